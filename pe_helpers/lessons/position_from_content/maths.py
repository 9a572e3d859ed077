"""Lesson 14 · Position from content: the lesson's models, their gates, PaTH and the seeds."""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import ArrayLike

from ..._validate import check_array, check_choice, check_int, check_real
from ...biases import ONE_HEAD_ALIBI_SLOPES
from ...grading import shown
from ...shipped_models import shipped_models
from ...tasks import TEST_SEED, make_task, task_batch
from ...training import TrainedModel, checked_samples, train

__all__ = [
    "LESSON_METHODS",
    "METHOD_NAMES",
    "SCALES",
    "SCORE_TERMS",
    "SEED_EXPERIMENTS",
    "SHIPPED_MODELS",
    "SKIP_BACK",
    "cope_positions",
    "gate_summary",
    "path_scores",
    "path_transform",
    "query_kind_accuracies",
    "skip_back_accuracies",
    "test_sequence",
    "train_skip_back",
    "word_counts",
]

#: The position methods compared, by their names in :data:`pe_helpers.model.METHODS`.
LESSON_METHODS = ("none", "rope_adjacent", "alibi", "forgetting", "cope")
#: How the notebook and the figures name them.
METHOD_NAMES = {
    "none": "NoPE",
    "rope_adjacent": "RoPE",
    "alibi": "ALiBi",
    "forgetting": "forget gate (FoX)",
    "cope": "CoPE",
}
#: Most tokens and widest vectors :func:`path_scores` (and :func:`path_transform`) take.
MAX_PATH_TOKENS = 512
MAX_PATH_WIDTH = 256
#: Most tokens :func:`gate_summary` reads (``n_samples`` times the model's length).
MAX_SUMMARY_TOKENS = 1024
#: The task and the models: the second word back among blanks, L = 16, vocabulary 16 (token 0
#: the blank), one layer of one head, 400 Adam steps of 32 sequences (lr 0.01); CoPE counts up
#: to 8 (``cope_positions``).
SKIP_BACK = {
    "task": ("skip_back", 2),
    "length": 16,
    "vocab_size": 16,
    "d_model": 32,
    "n_heads": 1,
    "steps": 400,
    "batch_size": 32,
    "lr": 0.01,
    "cope_positions": 8,
}
#: The test lengths, by the names the shipped results carry.
SCALES = {"L": 16, "2L": 32, "4L": 64}

#: Lesson 09's map extended: which of lesson 06's four score terms (content-content q·k,
#: content-position, position-content, position-position) each method changes, and how.
SCORE_TERMS = {
    "sinusoidal / learned": ("all four", "a vector added to x: every term gains a part"),
    "RoPE": ("q·k itself", "q and k rotated by their positions: q·R^(j-i)·k"),
    "ALiBi / T5": ("a fifth, added term", "a bias b(i - j) counted in tokens, no content"),
    "forget gate (FoX)": (
        "a fifth, added term",
        "a bias Σ log f_l over the tokens between: ALiBi with a slope each token sets",
    ),
    "CoPE": (
        "content-position",
        "q_i·e[p_ij], with p_ij a sum of gates σ(q_i·k_t): a position counted by content",
    ),
    "PaTH": ("q·k itself", "k_j·(Π H_s)·q_i: RoPE's rotations replaced by data-dependent maps"),
}


def train_skip_back(method: str, *, seed: int = 0) -> TrainedModel:
    """A one-layer model trained on :data:`SKIP_BACK` (a few seconds; CoPE about twice that).

    Parameters
    ----------
    method : str
        One of :data:`LESSON_METHODS`.
    seed : int, default 0
        Seeds the weights (``seed``) and the training data (``seed + 1``).

    Examples
    --------
    >>> model = train_skip_back("cope")
    >>> model.config.cope_positions, model.length
    (8, 16)
    """
    method = check_choice("method", method, LESSON_METHODS)
    keys = ("length", "vocab_size", "d_model", "n_heads", "steps", "batch_size", "lr")
    options = {key: SKIP_BACK[key] for key in keys}
    if method == "alibi":
        options["slopes"] = ONE_HEAD_ALIBI_SLOPES
    if method == "cope":
        options["cope_positions"] = SKIP_BACK["cope_positions"]
    return train(make_task(*SKIP_BACK["task"]), method, seed=seed, **options)


def skip_back_accuracies(model: TrainedModel, *, n_samples: int = 128) -> dict[str, float]:
    """Accuracy on fresh sequences at each length of :data:`SCALES`.

    Examples
    --------
    >>> model = train("skip_back", "none", task_arg=2, length=16, steps=2)
    >>> sorted(skip_back_accuracies(model, n_samples=4))
    ['2L', '4L', 'L']
    """
    n_samples = checked_samples(model, n_samples)
    return {
        scale: model.accuracy(length=length, n_samples=n_samples, seed=TEST_SEED)
        for scale, length in SCALES.items()
    }


def query_kind_accuracies(
    model: TrainedModel, *, length: int = 16, n_samples: int = 128
) -> dict[str, float]:
    """Accuracy at word queries and at blank queries (the second word back, blanks between),
    apart.

    Parameters
    ----------
    model : TrainedModel
        A model trained on the lesson's task.
    length : int, default 16
        Test length (the training length, :math:`L`, by default), 2 to 256.
    n_samples : int, default 128
        Number of test sequences (those of :func:`skip_back_accuracies`), 1 to 2048.

    Returns
    -------
    dict of str -> float
        ``{"word_queries": ..., "blank_queries": ...}``, shares of the scored positions.

    Examples
    --------
    >>> model = train("skip_back", "none", task_arg=2, length=16, steps=2)
    >>> sorted(query_kind_accuracies(model, n_samples=4))
    ['blank_queries', 'word_queries']
    """
    n_samples = checked_samples(model, n_samples)
    length = check_int("length", length, minimum=2, maximum=256)
    batch = task_batch(model.task, n_samples, length, model.config.vocab_size, seed=TEST_SEED)
    hits = (model.predict(batch.tokens) == batch.targets) & batch.scored
    found = {}
    for kind, where in (("word_queries", batch.tokens != 0), ("blank_queries", batch.tokens == 0)):
        scored = batch.scored & where
        found[kind] = float(hits[scored].sum() / max(int(scored.sum()), 1))
    return found


def test_sequence(length: int = 16, index: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """One test sequence of the task and its targets (-1 where nothing is scored).

    Examples
    --------
    >>> tokens, targets = test_sequence(16)
    >>> tokens.shape, int((targets >= 0).sum()) > 8
    ((16,), True)
    """
    length = check_int("length", length, minimum=2, maximum=256)
    index = check_int("index", index, minimum=0, maximum=63)
    task = make_task(*SKIP_BACK["task"])
    batch = task_batch(task, 64, length, SKIP_BACK["vocab_size"], seed=TEST_SEED + 1)
    return batch.tokens[index], batch.targets[index]


def word_counts(tokens: ArrayLike) -> np.ndarray:
    """The number of words (tokens other than the blank 0) in ``tokens[j .. i]``, ``(n, n)``:
    what CoPE's positions should become on this task (0 above the diagonal).

    Examples
    --------
    >>> word_counts([3, 0, 5]).tolist()
    [[1, 0, 0], [1, 0, 0], [2, 1, 1]]
    """
    t = check_array("tokens", tokens, ndim=1)
    if t.size > 1024:
        raise ValueError(f"tokens must hold at most 1024 tokens (a size limit), got {t.size}")
    words = (t != 0).astype(np.int64)
    after = np.cumsum(words)  # words at 0 .. i
    before = np.concatenate([[0], after[:-1]])  # words at 0 .. j - 1
    counts = after[:, None] - before[None, :]
    return np.where(np.tril(np.ones((t.size, t.size), dtype=bool)), counts, 0)


def _cache(model: TrainedModel, tokens: ArrayLike) -> dict:
    """The last layer's forward cache of one sequence ``(n,)`` (or a batch of one)."""
    return model.logits_and_cache(np.reshape(tokens, (1, -1)))[1]


def cope_positions(model: TrainedModel, tokens: ArrayLike) -> np.ndarray:
    """CoPE's positions p_ij of one sequence, per head: ``(heads, n, n)``, 0 above the diagonal.

    p_ij = Σ_{t=j..i} σ(s_it), clipped at ``cope_positions - 1``, with s the scaled score.

    Examples
    --------
    >>> model = train("skip_back", "cope", task_arg=2, length=8, steps=2)
    >>> p = cope_positions(model, [1, 0, 2, 0])
    >>> p.shape, bool((np.diff(p[0, 3, :4]) <= 0).all())  # fewer keys counted further right
    ((2, 4, 4), True)
    """
    if not isinstance(model, TrainedModel) or model.config.method != "cope":
        raise TypeError(f"model must be a 'cope' TrainedModel, got {shown(model)}")
    return _cache(model, check_array("tokens", tokens))["positions"][0]


def forget_gates(model: TrainedModel, tokens: ArrayLike) -> np.ndarray:
    """The forget gate f_t = σ(w · x_t + b) of every token, per head: ``(heads, n)``.

    Examples
    --------
    >>> model = train("skip_back", "forgetting", task_arg=2, length=8, steps=2)
    >>> f = forget_gates(model, [1, 0, 2, 0])
    >>> f.shape, bool(((0 < f) & (f < 1)).all())
    ((2, 4), True)
    """
    return _cache(model, tokens)["forget"][0]


# --- PaTH, as maths only ---------------------------------------------------------------------


def path_transform(w: ArrayLike, beta: float) -> np.ndarray:
    """PaTH's Householder-like matrix of one token, ``H = I - β w wᵀ``, ``(d, d)``.

    With β = 2 and a unit ``w`` it is a reflection (orthogonal); for other β it is not.

    Examples
    --------
    >>> h = path_transform([1.0, 0.0], 2.0)
    >>> h.tolist()
    [[-1.0, 0.0], [0.0, 1.0]]
    """
    w = check_array("w", w, ndim=1).astype(np.float64)
    beta = check_real("beta", beta)
    if w.size > MAX_PATH_WIDTH:
        raise ValueError(f"w may have at most {MAX_PATH_WIDTH} entries, got {w.size}")
    return np.eye(w.size) - beta * np.outer(w, w)


def path_scores(q: ArrayLike, k: ArrayLike, transforms: ArrayLike | None = None) -> np.ndarray:
    """PaTH's logits ``k_jᵀ (H_{j+1} H_{j+2} ... H_i) q_i`` for every ``j <= i``: ``(n, n)``.

    Parameters
    ----------
    q, k : array_like
        Queries and keys, ``(n, d)``: at most :data:`MAX_PATH_TOKENS` tokens of width
        :data:`MAX_PATH_WIDTH`.
    transforms : array_like, optional
        One matrix per token, ``(n, d, d)`` (the first is never used). Default: identities,
        the logits plain ``q_i · k_j``.

    Returns
    -------
    numpy.ndarray
        ``(n, n)``; ``-inf`` above the diagonal (the causal mask).

    Examples
    --------
    >>> q = k = np.eye(2)
    >>> path_scores(q, k).tolist()
    [[1.0, -inf], [0.0, 1.0]]
    """
    q = check_array("q", q, ndim=2).astype(np.float64)
    k = check_array("k", k, ndim=2).astype(np.float64)
    if q.shape != k.shape:
        raise ValueError(f"q and k must have the same shape (n, d), got {q.shape} and {k.shape}")
    n, d = q.shape
    if n > MAX_PATH_TOKENS or d > MAX_PATH_WIDTH:
        raise ValueError(
            f"q and k may have at most {MAX_PATH_TOKENS} tokens of width {MAX_PATH_WIDTH}, got "
            f"shape {q.shape}"
        )
    if transforms is None:  # identities: the plain logits q_i · k_j
        return np.where(np.tril(np.ones((n, n), dtype=bool)), q @ k.T, -np.inf)
    h = check_array("transforms", transforms, ndim=3)
    if h.shape != (n, d, d):
        raise ValueError(f"transforms must have shape {(n, d, d)}, got {h.shape}")
    h = np.ascontiguousarray(h, dtype=np.float64)
    scores = np.full((n, n), -np.inf)
    # carried[i - j] = (H_{j+1} ... H_i) q_i for every query i >= j, built from j = n - 1 down:
    # at key j the queries from j on are scored, then all of them pass through H_j
    carried = q.copy()  # (n, d)
    for j in range(n - 1, -1, -1):
        scores[j:, j] = carried[j:] @ k[j]
        carried[j:] = carried[j:] @ h[j].T
    return scores


# --- the lesson's models over seeds (pe_helpers.seeds) ----------------------------------------


@functools.lru_cache(maxsize=1)
def default_models() -> dict[str, TrainedModel]:
    """The notebook's two content models (seed 0): their shipped weights, loaded once."""
    return shipped_models("position_from_content", list(SHIPPED_MODELS))


def gate_summary(model: TrainedModel, *, n_samples: int = 32) -> dict[str, float]:
    """What a content model's gates hold on test sequences of the training length: for CoPE,
    ``position_error``, the mean ``|p_ij - c_ij|`` where the clipped :func:`word_counts`
    ``c_ij <= 3`` (the counts the task reads); for the forget gate, ``gate_word`` and
    ``gate_blank``, the mean gate on words and on blanks.

    Examples
    --------
    >>> model = train("skip_back", "forgetting", task_arg=2, length=8, steps=2)
    >>> sorted(gate_summary(model, n_samples=2))
    ['gate_blank', 'gate_word']
    """
    n_samples = checked_samples(model, n_samples, maximum=64)
    if n_samples * model.length > MAX_SUMMARY_TOKENS:
        raise ValueError(
            f"n_samples * the model's length must be at most {MAX_SUMMARY_TOKENS}, got "
            f"n_samples = {n_samples} at length {model.length}; use n_samples <= "
            f"{max(1, MAX_SUMMARY_TOKENS // model.length)}"
        )
    method = model.config.method
    if method not in ("cope", "forgetting"):
        raise ValueError(f"model must use 'cope' or 'forgetting', got {method!r}")
    errors, words, blanks = [], [], []
    for index in range(n_samples):
        tokens, _ = test_sequence(model.length, index)
        if method == "cope":
            top = model.config.cope_positions - 1
            counts = np.minimum(word_counts(tokens), top)
            near = np.tril(counts <= 3)
            errors.append(np.abs(cope_positions(model, tokens)[0] - counts)[near])
        else:
            gate = forget_gates(model, tokens)[0]
            words.append(gate[tokens != 0])
            blanks.append(gate[tokens == 0])
    if method == "cope":
        return {"position_error": float(np.concatenate(errors).mean())}
    return {
        "gate_word": float(np.concatenate(words).mean()),
        "gate_blank": float(np.concatenate(blanks).mean()),
    }


def _content_experiment(seed: int) -> dict[str, float]:
    """Section 2's live models: CoPE and the forget gate, at L, 2L and 4L, and their gates."""
    found = {}
    for method in ("cope", "forgetting"):
        model = train_skip_back(method, seed=seed)
        accuracies = skip_back_accuracies(model)
        found |= {f"{method}.{scale}": value for scale, value in accuracies.items()}
        found |= {f"{method}.{k}": v for k, v in gate_summary(model).items()}
        for scale, length in SCALES.items():
            kinds = query_kind_accuracies(model, length=length)
            found |= {f"{method}.{scale}.{k}": v for k, v in kinds.items()}
    return found


def _counting_experiment(seed: int) -> dict[str, float]:
    """Section 2's table: the methods that count tokens (NoPE, RoPE, ALiBi)."""
    found = {}
    for method in ("none", "rope_adjacent", "alibi"):
        accuracies = skip_back_accuracies(train_skip_back(method, seed=seed))
        found |= {f"{method}.{scale}": value for scale, value in accuracies.items()}
    return found


#: Group -> function of a seed (``scripts/experiments.py position_from_content`` writes
#: ``pe_helpers/data/seeds/position_from_content.json``).
SEED_EXPERIMENTS = {"content": _content_experiment, "counting": _counting_experiment}


#: The models the notebook trains with seed 0, by name; their weights ship in
#: ``pe_helpers/data/models/position_from_content.npz`` (:mod:`pe_helpers.shipped_models`).
SHIPPED_MODELS = {
    "CoPE": lambda: train_skip_back("cope", seed=0),
    "forget gate (FoX)": lambda: train_skip_back("forgetting", seed=0),
}
