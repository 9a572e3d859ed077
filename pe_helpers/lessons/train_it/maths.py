"""Lesson 08 · Position in a model you train: limits, checks, measurements, seed experiments.

See :mod:`pe_helpers.lessons.train_it` for the lesson's overview.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike

from ..._validate import check_array, check_int
from ...seeds import spread_table
from ...tasks import TEST_SEED, Task, most_frequent_earlier, order_blind_accuracy, task_batch
from ...training import TrainedModel, check_lengths, length_key, train

__all__ = [
    "SEED_EXPERIMENTS",
    "accuracy_by_range",
    "accuracy_table",
    "far_attention",
    "format_accuracy_table",
    "most_frequent_share",
    "target_attention",
]

#: The position methods the lesson compares, in the order of its tables.
LESSON_METHODS = ("none", "sinusoidal", "learned", "rope_adjacent")
#: Most models one table, figure or view takes.
MAX_MODELS = 6
#: Longest test sequence the helpers accept (and the end of the view's length slider).
MAX_TEST_LENGTH = 64
#: Longest sequence :func:`accuracy_table` and :func:`target_attention` evaluate.
MAX_LENGTH = 256
#: Most test sequences one evaluation draws.
MAX_SAMPLES = 2048
#: Most test tokens one :func:`accuracy_table` runs (models x samples x lengths), and most
#: attention weights one measurement of queries holds (samples x heads x length²).
MAX_TABLE_TOKENS, MAX_WEIGHTS = 2**21, 2**24


def check_models(models: object) -> dict[str, TrainedModel]:
    """A non-empty dict of at most :data:`MAX_MODELS` trained models, keyed by str."""
    if not isinstance(models, Mapping) or not models:
        raise TypeError(f"models must be a non-empty dict of TrainedModels, got {models!r:.60}")
    if len(models) > MAX_MODELS:
        raise ValueError(f"models may hold at most {MAX_MODELS} models, got {len(models)}")
    for name, model in models.items():
        _check_model(model, f"models[{name!r}]")
    return {str(name): model for name, model in models.items()}


def _check_model(model: object, name: str = "model") -> TrainedModel:
    if not isinstance(model, TrainedModel):
        raise TypeError(f"{name} must be a TrainedModel (from train), got {type(model).__name__}")
    return model


def refuses(model: TrainedModel, length: int) -> bool:
    """Whether ``model`` cannot run sequences of ``length`` (a learned table too short)."""
    return model.config.method == "learned" and length > model.config.max_len


def target_keys(task: Task, length: int) -> np.ndarray:
    """The key holding each query's answer (-1 where a query has none)."""
    queries = np.arange(length)
    keys = queries - task.arg if task.name == "copy_back" else np.full(length, task.arg)
    return np.where(queries >= task.arg, keys, -1)


def _query_args(model, length, queries, n_samples) -> tuple[TrainedModel, int, np.ndarray, int]:
    """The checked arguments of a measurement of some queries' attention."""
    model = _check_model(model)
    length = check_int("length", length, minimum=2, maximum=MAX_LENGTH)
    n_samples = check_int("n_samples", n_samples, minimum=1, maximum=MAX_SAMPLES // 2)
    if n_samples * model.config.n_heads * length**2 > MAX_WEIGHTS:
        raise ValueError(f"n_samples x n_heads x length² past {MAX_WEIGHTS:,}: lower n_samples")
    positions = check_array("queries", queries, ndim=1)
    if not np.issubdtype(positions.dtype, np.integer):
        raise TypeError(f"queries must hold integer positions, got dtype {positions.dtype}")
    return model, length, positions, n_samples


def view_tokens(task: Task, vocab_size: int) -> np.ndarray:
    """The one test sequence of :class:`QueryAttention`, :data:`MAX_TEST_LENGTH` tokens."""
    return task_batch(task, 1, MAX_TEST_LENGTH, vocab_size, seed=TEST_SEED + 1).tokens[0]


# --- training and measuring ---------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def default_models() -> dict[str, TrainedModel]:
    """The lesson's copy-back models (k = 1, L = 16), trained once per session."""
    return {method: train("copy_back", method, task_arg=1) for method in LESSON_METHODS}


def accuracy_table(
    models: Mapping[str, TrainedModel],
    lengths: Sequence[int],
    *,
    n_samples: int = 256,
    seed: int = TEST_SEED,
) -> dict[str, np.ndarray]:
    """Accuracy of each model on its own task at each test length.

    At most :data:`MAX_MODELS` models; test lengths 2 to :data:`MAX_LENGTH`; ``n_samples`` test
    sequences per length (models x n_samples x the lengths' sum at most
    :data:`MAX_TABLE_TOKENS`) drawn from ``seed``. Returns one array of accuracies per model,
    NaN where a learned table refuses the length.

    Examples
    --------
    >>> models = {"learned": train("copy_back", "learned", length=4, steps=2)}
    >>> accuracy_table(models, [4, 8], n_samples=8)["learned"].tolist()[1]
    nan
    """
    models = check_models(models)
    lengths = check_lengths(lengths, MAX_LENGTH)
    n_samples = check_int("n_samples", n_samples, minimum=1, maximum=MAX_SAMPLES)
    if len(models) * n_samples * sum(lengths) > MAX_TABLE_TOKENS:
        raise ValueError(f"models x n_samples x lengths past {MAX_TABLE_TOKENS:,} test tokens")
    return {
        name: np.array(
            [
                math.nan
                if refuses(model, n)
                else model.accuracy(length=n, n_samples=n_samples, seed=seed)
                for n in lengths
            ]
        )
        for name, model in models.items()
    }


def format_accuracy_table(
    rows: Mapping[str, ArrayLike],
    lengths: Sequence[int],
    *,
    train_length: int,
    bands: Mapping[str, Sequence[ArrayLike]] | None = None,
) -> str:
    """Rows of accuracies (one per length, in [0, 1]) as whole percentages; NaN is ``refuses``.

    The header names each length as a multiple of ``train_length`` (``L``) when it is one.
    ``bands`` maps a label to its range over seeds, ``(low, [median,] high)`` as
    :meth:`pe_helpers.seeds.SeedResults.band` returns: its cells read ``"95% (82–100)"``.

    Examples
    --------
    >>> print(format_accuracy_table({"learned": [1.0, np.nan]}, [16, 32], train_length=16))
    method                 L = 16  2L = 32
    learned                  100%  refuses
    >>> band = ([0.82, 0.57], [0.97, 0.6], [1.0, 0.67])
    >>> print(format_accuracy_table({"rope": [0.95, 0.6]}, [16, 32], train_length=16,
    ...                             bands={"rope": band}))
    method                      L = 16      2L = 32
    rope                  95% (82–100)  60% (57–67)
    """
    train_length = check_int("train_length", train_length, minimum=1)
    lengths = check_lengths(lengths, maximum=None)
    values, bands = check_rows(rows, bands, len(lengths), "rows", "bands")
    return spread_table(
        "method",
        [f"{length_key(n, train_length) or 'n'} = {n}" for n in lengths],
        {label: bands.get(label) for label in rows},
        values,
        missing="refuses",
    )


def check_accuracies(name: str, values: object, size: int, ndim: int = 1) -> np.ndarray:
    """Accuracies with NaN where a length is refused (no ±inf), ``size`` on the last axis."""
    arr = check_array(name, values, ndim=ndim, finite=False).astype(np.float64)
    if np.isinf(arr).any() or arr.shape[-1] != size:
        raise ValueError(f"{name} must hold one accuracy per entry of lengths ({size}) and no ±inf")
    return arr


def check_rows(
    rows: object, bands: object, size: int, name: str, band_name: str
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Label -> ``size`` accuracies, and label -> their band, ``(low, [median,] high)``."""
    if not isinstance(rows, Mapping) or not rows:
        raise TypeError(f"{name} must be a non-empty dict of label -> accuracies, got {rows!r:.60}")
    bands = {} if bands is None else bands
    if not isinstance(bands, Mapping) or set(bands) - set(rows):
        raise TypeError(f"{band_name} must be a dict of labels of {name}, got {bands!r:.60}")
    for label, band in bands.items():
        if (
            isinstance(band, (str, bytes))
            or not isinstance(band, Sequence)
            or len(band) not in (2, 3)
        ):
            raise TypeError(f"{band_name}[{label!r}] must be (low, high) or (low, median, high)")
    return (
        {label: check_accuracies(f"{name}[{label!r}]", row, size) for label, row in rows.items()},
        {
            label: check_accuracies(f"{band_name}[{label!r}]", b, size, 2)
            for label, b in bands.items()
        },
    )


def target_attention(
    model: TrainedModel,
    length: int,
    queries: ArrayLike,
    *,
    n_samples: int = 128,
    seed: int = TEST_SEED,
) -> np.ndarray:
    """Share of attention the query gives the key that holds its answer.

    For each query position, the mean over test sequences of each head's weight on the
    target key (``t - k`` for copy_back, ``p`` for token_at), then the largest over heads:
    how sharply the best head looks at the right place.

    Parameters
    ----------
    model : TrainedModel
        A trained model (its own task decides the target key).
    length : int
        Test length, 2 to :data:`MAX_LENGTH` (not past a learned table's rows).
    queries : array_like of int
        Query positions, each with a target (``t >= k`` or ``t >= p``) and ``< length``.
    n_samples : int, default 128
        Test sequences, 1 to :data:`MAX_SAMPLES` // 2.
    seed : int, default TEST_SEED
        Seed of the test sequences.

    Returns
    -------
    numpy.ndarray
        One share in [0, 1] per query.

    Examples
    --------
    >>> model = train("copy_back", "none", length=4, steps=2)
    >>> target_attention(model, 4, [1, 3], n_samples=4).shape
    (2,)
    """
    model, length, positions, n_samples = _query_args(model, length, queries, n_samples)
    targets = target_keys(model.task, length)
    bad = [int(t) for t in positions if not 0 <= t < length or targets[t] < 0]
    if bad:
        raise ValueError(
            f"queries must lie in {model.task.arg} .. {length - 1} (positions with an answer "
            f"for {model.task.name} {model.task.arg}), got {bad}"
        )
    return _best_head_share(
        model, length, positions, targets[positions, None] == np.arange(length), n_samples, seed
    )


def far_attention(
    model: TrainedModel,
    length: int,
    queries: ArrayLike,
    *,
    distance: int | None = None,
    n_samples: int = 128,
    seed: int = TEST_SEED,
) -> np.ndarray:
    """Share of attention a query gives the keys at least ``distance`` positions back.

    For each query position ``t``, the mean over test sequences of each head's total weight on
    the keys ``0 .. t - distance``, then the largest over heads. Arguments and result as in
    :func:`target_attention`; ``distance`` is >= 1, default the training length ``L`` (keys at
    distances training never showed), and each query ``>= distance``.

    Examples
    --------
    >>> model = train("copy_back", "none", length=4, steps=2)
    >>> far_attention(model, 8, [4, 7], n_samples=4).shape
    (2,)
    """
    model, length, positions, n_samples = _query_args(model, length, queries, n_samples)
    distance = model.length if distance is None else check_int("distance", distance, minimum=1)
    bad = [int(t) for t in positions if not distance <= t < length]
    if bad:
        raise ValueError(
            f"queries must lie in {distance} .. {length - 1} (distance .. length - 1: a key "
            f"distance = {distance} or more positions back must exist), got {bad}"
        )
    far = np.arange(length)[None, :] <= positions[:, None] - distance  # (queries, keys)
    return _best_head_share(model, length, positions, far, n_samples, seed)


def _best_head_share(model, length, positions, keys, n_samples, seed) -> np.ndarray:
    """Per query, the largest over heads of the mean weight on ``keys`` (queries, keys)."""
    batch = task_batch(model.task, n_samples, length, model.config.vocab_size, seed=seed)
    weights = model.attention(batch.tokens)[:, :, positions]  # (B, H, queries, keys)
    return (weights * keys).sum(axis=-1).mean(axis=0).max(axis=0)


def accuracy_by_range(
    model: TrainedModel,
    length: int,
    ranges: Sequence[tuple[int, int]],
    *,
    n_samples: int = 128,
    seed: int = TEST_SEED,
) -> np.ndarray:
    """Mean accuracy of a model over ranges of positions of sequences of one length.

    ``ranges`` holds ``(start, stop)`` pairs of positions, ``start`` at least the task's ``k``
    or ``p`` and ``stop <= length``; the other arguments as in :func:`target_attention`
    (``n_samples`` up to :data:`MAX_SAMPLES`). Returns one accuracy per range.

    Examples
    --------
    >>> model = train("copy_back", "rope_adjacent", length=4, steps=2)
    >>> accuracy_by_range(model, 8, [(1, 4), (4, 8)], n_samples=4).shape
    (2,)
    """
    model = _check_model(model)
    length = check_int("length", length, minimum=2, maximum=MAX_LENGTH)
    n_samples = check_int("n_samples", n_samples, minimum=1, maximum=MAX_SAMPLES)
    if isinstance(ranges, (str, bytes)) or not isinstance(ranges, Sequence) or not ranges:
        raise TypeError(
            f"ranges must be a non-empty list of (start, stop) pairs, got {ranges!r:.40}"
        )
    first = model.task.arg
    pairs = []
    for pair in ranges:
        if not isinstance(pair, Sequence) or isinstance(pair, (str, bytes)) or len(pair) != 2:
            raise TypeError(f"ranges must hold (start, stop) pairs, got {pair!r:.80}")
        start = check_int("ranges start", pair[0], minimum=first)
        stop = check_int("ranges stop", pair[1], minimum=start + 1, maximum=length)
        pairs.append((start, stop))
    per_position = model.accuracy(length=length, n_samples=n_samples, seed=seed, per_position=True)
    return np.array([per_position[start:stop].mean() for start, stop in pairs])


def most_frequent_share(model: TrainedModel, *, n_samples: int = 512, seed: int = 11) -> float:
    """Share of a model's answers that are a most frequent earlier token.

    On ``n_samples`` test sequences (1 to :data:`MAX_SAMPLES`, drawn from ``seed``) of the
    model's training length and task, the share of positions ``1 .. L - 1`` where its answer is
    one of the tokens most frequent before it (:func:`pe_helpers.tasks.most_frequent_earlier`).

    Examples
    --------
    >>> model = train("copy_back", "none", length=4, steps=2)
    >>> 0 <= most_frequent_share(model, n_samples=8) <= 1
    True
    """
    model = _check_model(model)
    n_samples = check_int("n_samples", n_samples, minimum=1, maximum=MAX_SAMPLES)
    vocab_size = model.config.vocab_size
    tokens = task_batch(model.task, n_samples, model.length, vocab_size, seed=seed).tokens
    answers = model.predict(tokens)  # (B, n)
    best = most_frequent_earlier(tokens, vocab_size)  # (B, n, vocab): the most frequent before t
    is_best = np.take_along_axis(best, answers[..., None], axis=-1)[..., 0]
    return float(is_best[:, 1:].mean())


# --- the lesson's models over seeds (pe_helpers.seeds) ---------------------------------------

#: Training length and vocabulary of the notebook's models (the trainer's defaults).
_L, _VOCAB = 16, 16
#: The test lengths of the notebook's table, by the names its metrics carry.
_SCALES = {"L": _L, "2L": 2 * _L, "4L": 4 * _L}
#: The position methods of sections 4-6 (NoPE is section 3's model).
_METHODS = ("sinusoidal", "learned", "rope_adjacent")
#: Position ranges of the 4L sequences (section 5), by the names their metrics carry.
_RANGES = {"1-15": (1, _L), "16-31": (_L, 2 * _L), "32-63": (2 * _L, 4 * _L)}
#: Query positions of section 6; the learned table runs the first two only.
_LOOK_QUERIES = (8, 15, 20, 40)


def _length_metrics(model: TrainedModel, prefix: str) -> dict[str, float]:
    """The accuracy at L, 2L and 4L (at L only for a learned table, which refuses the rest)."""
    row = accuracy_table({prefix: model}, list(_SCALES.values()))[prefix]
    return {
        f"{prefix}.{scale}": float(value)
        for scale, value in zip(_SCALES, row, strict=True)
        if not math.isnan(value)
    }


def _inside_metrics(model: TrainedModel, prefix: str) -> dict[str, float]:
    """Section 5's accuracy per range of positions and section 6's attention, one model."""
    found = {}
    if model.config.method == "learned":  # runs only up to L
        looks = target_attention(model, _L, list(_LOOK_QUERIES[:2]))
    else:
        looks = target_attention(model, 4 * _L, list(_LOOK_QUERIES))
        ranges = accuracy_by_range(model, 4 * _L, list(_RANGES.values()))
        found |= {f"{prefix}.4L.{name}": float(v) for name, v in zip(_RANGES, ranges, strict=True)}
    found |= {f"{prefix}.looks.{t}": float(v) for t, v in zip(_LOOK_QUERIES, looks, strict=False)}
    return found


def _blind_experiment(seed: int) -> dict[str, float]:
    """Section 2 (the notebook's ``blind``): no position, no mask, both tasks; accuracy at L."""
    tasks = ("copy_back", "token_at")
    blind = {task: train(task, "none", length=_L, causal=False, seed=seed) for task in tasks}
    return {f"{task}.L": float(model.accuracy()) for task, model in blind.items()}


def _nope_experiment(seed: int) -> dict[str, float]:
    """Section 3 and every later measurement of the notebook's ``nope`` models."""
    nope = {task: train(task, "none", length=_L, seed=seed) for task in ("copy_back", "token_at")}
    copy = nope["copy_back"]
    per_position = copy.accuracy(per_position=True)
    limit = order_blind_accuracy("copy_back", _L, _VOCAB, causal=True, per_position=True)
    return (
        _length_metrics(copy, "copy_back")
        | _length_metrics(nope["token_at"], "token_at")
        | _inside_metrics(copy, "copy_back")
        | {
            "copy_back.8L": float(copy.accuracy(length=8 * _L, n_samples=128)),
            "copy_back.most_frequent_share": most_frequent_share(copy),
            "copy_back.worst_gap": float(np.nanmax(np.abs(per_position - limit))),
        }
    )


def _copy_experiment(seed: int) -> dict[str, float]:
    """Sections 4-6 on the notebook's ``copy_models`` (other than NoPE's), as it measures them."""
    found = {}
    for method in _METHODS:
        model = train("copy_back", method, length=_L, seed=seed)
        found |= _length_metrics(model, method) | _inside_metrics(model, method)
        if method != "learned":
            far = far_attention(model, 4 * _L, [20, 40])
            found |= {f"{method}.far.20": float(far[0]), f"{method}.far.40": float(far[1])}
        if method == "rope_adjacent":
            rows = model.attention(view_tokens(model.task, _VOCAB)[: 2 * _L])[:, 20]
            peaks = rows.argmax(axis=1)  # the key each head looks at most
            found[f"{method}.q20_peak_on_answer"] = float(19 in peaks)
            found[f"{method}.q20_peak_far_back"] = float(peaks.min() < 20 - _L)
    return found


def _first_experiment(seed: int) -> dict[str, float]:
    """Sections 4-5 on the notebook's ``first_models`` (other than NoPE's), as it measures them."""
    models = {method: train("token_at", method, length=_L, seed=seed) for method in _METHODS}
    found = {}
    for method, model in models.items():
        found |= _length_metrics(model, method)
    on_key_0 = target_attention(models["rope_adjacent"], _L, [4, 8, 15])
    return found | {
        f"rope_adjacent.key0.{t}": float(v) for t, v in zip((4, 8, 15), on_key_0, strict=True)
    }


def _third_experiment(seed: int) -> dict[str, float]:
    """Section 4's token at 3 (the notebook's ``third``): accuracy at L."""
    methods = ("sinusoidal", "rope_adjacent")
    third = {m: train("token_at", m, task_arg=3, length=_L, seed=seed) for m in methods}
    return {f"{method}.L": float(model.accuracy()) for method, model in third.items()}


#: Group -> function of a seed: every model the notebook trains, measured as it measures them
#: (``make experiments`` writes ``pe_helpers/data/seeds/train_it.json`` from them).
SEED_EXPERIMENTS = {
    "blind": _blind_experiment,
    "nope": _nope_experiment,
    "copy": _copy_experiment,
    "first": _first_experiment,
    "third": _third_experiment,
}
