"""Lesson 13 · Two layers: the lesson's models, its two scores, its limits and its seeds."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping

import numpy as np
from numpy.typing import ArrayLike

from ..._validate import check_array, check_choice, check_int
from ...biases import ONE_HEAD_ALIBI_SLOPES
from ...grading import shown
from ...rope_scaling import ntk_aware_base, rope_frequencies
from ...shipped_models import shipped_models
from ...tasks import TEST_SEED, make_task, task_batch
from ...training import TrainedModel, checked_samples, train

__all__ = [
    "EXTENSIONS",
    "INDUCTION",
    "LESSON_METHODS",
    "PASSKEY",
    "SCALES",
    "SEED_EXPERIMENTS",
    "SHIPPED_MODELS",
    "fine_tune",
    "induction_order_blind_limit",
    "induction_score",
    "induction_targets",
    "passkey_accuracies",
    "passkey_previous_token",
    "previous_token_score",
    "stretch",
    "train_induction",
    "train_passkey",
]

#: The position methods compared, by their names in :data:`pe_helpers.model.METHODS`.
LESSON_METHODS = ("none", "sinusoidal", "learned", "rope_adjacent", "alibi", "t5_bias")
#: Ways to run the RoPE model past its training length (lesson 10's methods, by name).
EXTENSIONS = ("RoPE", "PI", "NTK-aware", "YaRN")

#: The induction models: repeated segments of 3 .. 12 distinct tokens in 24, vocabulary 16,
#: one head per layer, 400 Adam steps of 16 sequences (lr 0.01).
INDUCTION = {
    "task": ("repeated", 3),
    "length": 24,
    "vocab_size": 16,
    "d_model": 32,
    "n_heads": 1,
    "steps": 400,
    "batch_size": 16,
    "lr": 0.01,
}
#: The passkey models: filler and key share ids 1 .. 15 (only its place tells the key), L = 16,
#: one head per layer, 800 Adam steps of 32 sequences (lr 0.005).
PASSKEY = {
    "task": ("passkey", 0),
    "length": 16,
    "vocab_size": 16,
    "d_model": 32,
    "n_heads": 1,
    "steps": 800,
    "batch_size": 32,
    "lr": 0.005,
}
#: The test lengths, by the names the shipped results carry.
SCALES = {"L": 16, "2L": 32, "4L": 64, "8L": 128}
#: The context factor s of PI, NTK-aware and YaRN (the window they stretch L to: 4L).
FACTOR = 4.0
#: The short fine-tune at 4L: Adam steps, sequences per step, step size.
TUNE = {"steps": 60, "batch_size": 16, "lr": 0.005}


def _options(setup: Mapping, method: str, n_layers: int) -> dict:
    """The arguments of :func:`pe_helpers.training.train` that ``setup`` fixes."""
    keys = ("length", "vocab_size", "d_model", "n_heads", "steps", "batch_size", "lr")
    options = {key: setup[key] for key in keys} | {"n_layers": n_layers}
    if method == "alibi":
        options["slopes"] = ONE_HEAD_ALIBI_SLOPES
    return options


def train_induction(method: str, *, n_layers: int = 2, seed: int = 0) -> TrainedModel:
    """A model trained on the repeated-segment task of :data:`INDUCTION` (about a second).

    Parameters
    ----------
    method : str
        One of :data:`LESSON_METHODS`.
    n_layers : int, default 2
        1 or 2 attention layers.
    seed : int, default 0
        Seeds the weights (``seed``) and the training data (``seed + 1``).

    Examples
    --------
    >>> model = train_induction("rope_adjacent", n_layers=1)
    >>> model.config.n_layers, model.length
    (1, 24)
    """
    method = check_choice("method", method, LESSON_METHODS)
    n_layers = check_int("n_layers", n_layers, minimum=1, maximum=2)
    task = make_task(*INDUCTION["task"])
    return train(task, method, seed=seed, **_options(INDUCTION, method, n_layers))


def train_passkey(method: str, *, seed: int = 0) -> TrainedModel:
    """A two-layer model trained on the passkey task of :data:`PASSKEY` at L = 16 (a few s).

    Examples
    --------
    >>> train_passkey("alibi").config.slopes
    (0.5,)
    """
    method = check_choice("method", method, LESSON_METHODS)
    task = make_task(*PASSKEY["task"])
    return train(task, method, seed=seed, **_options(PASSKEY, method, 2))


# --- the two scores ---------------------------------------------------------------------------


def _check_weights(weights: object, tokens: object) -> tuple[np.ndarray, np.ndarray]:
    """Attention ``(batch, heads, n, n)`` and tokens ``(batch, n)`` that belong together."""
    w = check_array("weights", weights, ndim=4).astype(np.float64)
    t = check_array("tokens", tokens, ndim=2)
    if not np.issubdtype(t.dtype, np.integer):
        raise TypeError(f"tokens must hold integer ids, got dtype {t.dtype}")
    batch, _, n, keys = w.shape
    if n != keys or t.shape != (batch, n):
        raise ValueError(
            f"weights (batch, heads, n, n) and tokens (batch, n) must match, got {w.shape} "
            f"and {t.shape}"
        )
    # causal attention: a weight on a later key would be left out of both scores in silence
    later = np.triu(np.ones((n, n), dtype=bool), 1)
    if np.any(w[..., later] != 0):
        raise ValueError(
            "weights must be causal attention, 0 above the diagonal (a query sees no later "
            f"key), got up to {np.abs(w[..., later]).max():.3g} on later keys"
        )
    if np.any(w < 0) or not np.allclose(w.sum(axis=-1), 1.0, rtol=0.0, atol=1e-3):
        raise ValueError("weights must be attention: >= 0, every row summing to 1")
    return w, t


def previous_token_score(weights: ArrayLike, tokens: ArrayLike) -> np.ndarray:
    """Per head: the mean attention ``a[t, t - 1]`` a query ``t >= 1`` gives the key just before
    it, over every sequence: 1 for a perfect previous-token head.

    Parameters
    ----------
    weights : array_like
        Attention of one layer, ``(batch, heads, n, n)``, rows summing to 1.
    tokens : array_like of int
        The sequences, ``(batch, n)`` (checked against ``weights``; the score ignores them).

    Returns
    -------
    numpy.ndarray
        One score in [0, 1] per head.

    Examples
    --------
    >>> a = np.tril(np.eye(4, k=-1)) + np.eye(4)[:, :] * [1, 0, 0, 0]  # query t looks at t - 1
    >>> previous_token_score(a[None, None], np.zeros((1, 4), dtype=int)).tolist()
    [1.0]
    """
    w, _ = _check_weights(weights, tokens)
    n = w.shape[-1]
    t = np.arange(1, n)
    return w[:, :, t, t - 1].mean(axis=(0, 2))


def induction_targets(tokens: ArrayLike) -> np.ndarray:
    """Which keys an induction head should attend to: ``(batch, n, n)`` booleans, key ``j`` of
    query ``t`` when ``1 <= j <= t`` and ``tokens[j - 1] == tokens[t]``.

    Examples
    --------
    >>> induction_targets([[5, 7, 5]])[0, 2].tolist()  # query 2 (a 5): key 1 followed a 5
    [False, True, False]
    """
    t = np.asarray(tokens)
    n = t.shape[1]
    after = np.zeros(t.shape[:1] + (n, n), dtype=bool)
    # after[b, q, j] = tokens[b, j - 1] == tokens[b, q] for keys j = 1 .. q
    after[:, :, 1:] = t[:, :, None] == t[:, None, :-1]
    query, key = np.arange(n)[:, None], np.arange(n)[None, :]
    return after & (key <= query) & (key >= 1)


def induction_score(weights: ArrayLike, tokens: ArrayLike) -> np.ndarray:
    """Per head: the total weight a query puts on its :func:`induction_targets`, averaged over
    the queries that have one: 1 for a perfect induction head.

    Examples
    --------
    >>> a = np.zeros((1, 1, 3, 3)); a[0, 0, :, 0] = 1; a[0, 0, 2] = [0, 1, 0]
    >>> induction_score(a, [[5, 7, 5]]).tolist()
    [1.0]
    """
    w, t = _check_weights(weights, tokens)
    targets = induction_targets(t)  # (B, n, n)
    if not targets.any():
        raise ValueError("tokens must repeat a token somewhere, or there is nothing to find")
    has = targets.any(axis=-1)  # (B, n): queries with something to find
    on_targets = (w * targets[:, None]).sum(axis=-1)  # (B, H, n)
    return on_targets.transpose(1, 0, 2)[:, has].mean(axis=-1)


def induction_order_blind_limit(n_samples: int = 4000, seed: int = 0) -> float:
    """The best accuracy on :data:`INDUCTION`'s task of a reader that sees its prefix as a bag,
    as a one-layer model does.

    At a scored query ``t >= m`` the prefix holds the segment's tokens, those up to ``t mod m``
    once more; the next token is one of the others, so the best guess is right
    ``1 / (m - ((t + 1) mod m))`` of the time. The mean over sampled sequences and queries.

    Examples
    --------
    >>> 0.3 < induction_order_blind_limit(n_samples=200) < 0.5
    True
    """
    n_samples = check_int("n_samples", n_samples, minimum=1, maximum=100_000)
    length, vocab = INDUCTION["length"], INDUCTION["vocab_size"]
    batch = task_batch(make_task(*INDUCTION["task"]), n_samples, length, vocab, seed=seed)
    periods = batch.scored.argmax(axis=1)[:, None]  # the first scored position is m
    t = np.arange(length)[None, :]
    candidates = periods - (t + 1) % periods
    return float((1.0 / candidates)[batch.scored].mean())


def _scores(model: TrainedModel, n_samples: int = 128) -> dict[str, float]:
    """Accuracy and the best head's previous-token (layer 1) and induction (last) scores."""
    batch = task_batch(model.task, n_samples, model.length, model.config.vocab_size, seed=TEST_SEED)
    first = model.attention(batch.tokens, layer=1)
    last = model.attention(batch.tokens)
    return {
        "accuracy": model.accuracy(n_samples=256, seed=TEST_SEED),
        "previous_token": float(previous_token_score(first, batch.tokens).max()),
        "induction": float(induction_score(last, batch.tokens).max()),
    }


# --- past the training length -------------------------------------------------------------------


def extension_frequencies(extension: str, d_head: int, train_length: int, base: float = 1e4):
    """RoPE frequencies and attention factor of ``extension`` for context factor :data:`FACTOR`,
    from lesson 10's :func:`pe_helpers.rope_scaling.rope_frequencies`.

    Examples
    --------
    >>> inv, att = extension_frequencies("PI", 4, 16)
    >>> inv.tolist(), att
    ([0.25, 0.0025], 1.0)
    """
    if extension == "RoPE":
        block = {"rope_type": "default", "rope_theta": base}
    elif extension == "PI":
        block = {"rope_type": "linear", "rope_theta": base, "factor": FACTOR}
    elif extension == "NTK-aware":
        block = {"rope_type": "default", "rope_theta": ntk_aware_base(base, d_head, FACTOR)}
    else:
        block = {
            "rope_type": "yarn",
            "rope_theta": base,
            "factor": FACTOR,
            "original_max_position_embeddings": train_length,
        }
    return rope_frequencies(block, d_head)


def _checked_frequencies(model: object, extension: object) -> tuple[np.ndarray, float]:
    """:func:`extension_frequencies` for a RoPE ``model``, both arguments checked."""
    if not isinstance(model, TrainedModel) or model.config.method != "rope_adjacent":
        raise TypeError(f"model must be a 'rope_adjacent' TrainedModel, got {shown(model)}")
    extension = check_choice("extension", extension, EXTENSIONS)
    return extension_frequencies(extension, model.config.d_head, model.length, model.config.base)


def stretch(model: TrainedModel, extension: str) -> TrainedModel:
    """The RoPE model's weights run with ``extension``'s frequencies; no training.

    Examples
    --------
    >>> model = train("passkey", "rope_adjacent", length=8, steps=2, n_layers=2)
    >>> stretch(model, "PI").config.inv_freq[0]
    0.25
    """
    inv, att = _checked_frequencies(model, extension)
    return model.replace(inv_freq=inv, attention_factor=att)


def fine_tune(model: TrainedModel, extension: str, *, seed: int = 1) -> TrainedModel:
    """:data:`TUNE`'s short fine-tune at 4L of the RoPE model under ``extension``'s frequencies;
    ``seed`` picks the data (over seeds, the model's seed plus one).

    Examples
    --------
    >>> model = train("passkey", "rope_adjacent", length=8, steps=2, n_layers=2)
    >>> fine_tune(model, "YaRN").length
    64
    """
    inv, att = _checked_frequencies(model, extension)
    config = model.config
    return train(
        model.task,
        config.method,
        length=SCALES["4L"],
        vocab_size=config.vocab_size,
        d_model=config.d_model,
        n_heads=config.n_heads,
        n_layers=config.n_layers,
        seed=seed,
        params=model.params,
        inv_freq=inv,
        attention_factor=att,
        **TUNE,
    )


def passkey_accuracies(model: TrainedModel, *, n_samples: int = 128) -> dict[str, float]:
    """Passkey accuracy at each length of :data:`SCALES` (NaN where a learned table refuses).

    Examples
    --------
    >>> model = train("passkey", "learned", length=16, steps=2, n_layers=2)
    >>> passkey_accuracies(model, n_samples=8)["2L"]
    nan
    """
    n_samples = checked_samples(model, n_samples)
    learned = model.config.method == "learned"  # its table has no row past max_len
    return {
        scale: math.nan
        if learned and length > model.config.max_len
        else model.accuracy(length=length, n_samples=n_samples, seed=TEST_SEED)
        for scale, length in SCALES.items()
    }


def passkey_previous_token(model: TrainedModel, *, n_samples: int = 128) -> float:
    """Layer 1's best previous-token score on the passkey test batch of length L (also for a
    model fine-tuned at 4L).

    Examples
    --------
    >>> model = train("passkey", "rope_adjacent", length=16, steps=2, n_layers=2)
    >>> 0.0 <= passkey_previous_token(model, n_samples=4) <= 1.0
    True
    """
    n_samples = checked_samples(model, n_samples)
    batch = task_batch(model.task, n_samples, SCALES["L"], model.config.vocab_size, seed=TEST_SEED)
    first = model.attention(batch.tokens, layer=1)
    return float(previous_token_score(first, batch.tokens).max())


@functools.lru_cache(maxsize=2)
def default_models(*names: str) -> dict[str, TrainedModel]:
    """The notebook's models ``names`` (seed 0): their shipped weights, loaded once."""
    return shipped_models("two_layers", list(names))


# --- the lesson's models over seeds (pe_helpers.seeds) ---------------------------------------


def _induction_methods_experiment(
    seed: int, methods: tuple[str, ...] = ("sinusoidal", "learned", "alibi", "t5_bias")
) -> dict[str, float]:
    """Section 2's table: :func:`_scores` of two-layer induction models of ``methods``."""
    return {
        f"{method}.{k}": v
        for method in methods
        for k, v in _scores(train_induction(method, seed=seed)).items()
    }


def _induction_experiment(seed: int) -> dict[str, float]:
    """Section 2's live models: RoPE and NoPE with two layers, RoPE with one."""
    found = _induction_methods_experiment(seed, ("rope_adjacent", "none"))
    one = train_induction("rope_adjacent", n_layers=1, seed=seed)
    found["one_layer.accuracy"] = one.accuracy(n_samples=256, seed=TEST_SEED)
    return found


def _passkey_experiment(seed: int) -> dict[str, float]:
    """Section 3: every method but RoPE (the extension group's), at L, 2L, 4L and 8L."""
    found = {}
    for method in LESSON_METHODS:
        if method == "rope_adjacent":
            continue
        accuracies = passkey_accuracies(train_passkey(method, seed=seed))
        found |= {f"{method}.{s}": v for s, v in accuracies.items() if not math.isnan(v)}
    return found


def _extension_experiment(seed: int) -> dict[str, float]:
    """Section 3's RoPE model as is, stretched and fine-tuned (``tuned_``): accuracies and
    layer 1's previous-token score."""
    model = train_passkey("rope_adjacent", seed=seed)
    found = {}
    for extension in EXTENSIONS:
        stretched = model if extension == "RoPE" else stretch(model, extension)
        tuned = fine_tune(model, extension, seed=seed + 1)
        for prefix, which in ((extension, stretched), (f"tuned_{extension}", tuned)):
            found |= {f"{prefix}.{s}": v for s, v in passkey_accuracies(which).items()}
            found[f"{prefix}.previous_token"] = passkey_previous_token(which)
    return found


#: Group -> function of a seed (``make experiments LESSONS=two_layers`` writes
#: ``pe_helpers/data/seeds/two_layers.json``).
SEED_EXPERIMENTS = {
    "induction": _induction_experiment,
    "induction_methods": _induction_methods_experiment,
    "passkey": _passkey_experiment,
    "extension": _extension_experiment,
}


#: The models the notebook trains with seed 0, by name; their weights ship in
#: ``pe_helpers/data/models/two_layers.npz`` (:mod:`pe_helpers.shipped_models`).
SHIPPED_MODELS = {
    "RoPE, two layers": lambda: train_induction("rope_adjacent", seed=0),
    "NoPE, two layers": lambda: train_induction("none", seed=0),
    "RoPE, one layer": lambda: train_induction("rope_adjacent", n_layers=1, seed=0),
    "passkey, RoPE": lambda: train_passkey("rope_adjacent", seed=0),
}
