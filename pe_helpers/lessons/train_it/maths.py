"""Lesson 08 · Position in a model you train: limits, shared checks and measurements.

See :mod:`pe_helpers.lessons.train_it` for the lesson's overview.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike

from ..._validate import _show, check_array, check_int
from ...tasks import Task, task_batch
from ...training import TrainedModel, train

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
#: Seed of the test sequences (training draws from ``seed + 1`` = 1 by default).
TEST_SEED = 12345



def _check_models(models: object) -> dict[str, TrainedModel]:
    if not isinstance(models, Mapping) or not models:
        raise TypeError(
            f"models must be a non-empty dict of name -> TrainedModel, got {_show(models)}"
        )
    if len(models) > MAX_MODELS:
        raise ValueError(f"models may hold at most {MAX_MODELS} models, got {len(models)}")
    for name, model in models.items():
        if not isinstance(model, TrainedModel):
            raise TypeError(
                f"models[{name!r}] must be a TrainedModel (from train), got "
                f"{type(model).__name__}"
            )
    return {str(name): model for name, model in models.items()}


def _accuracies(name: str, values: object) -> np.ndarray:
    """A 1-D float array of accuracies where NaN (a refused length) is allowed, ±inf is not."""
    arr = np.asarray(values)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number) or np.iscomplexobj(arr):
        raise TypeError(f"{name} must be an array of accuracies, got {_show(values)}")
    arr = arr.astype(np.float64)
    if arr.ndim != 1 or arr.size == 0 or np.isinf(arr).any():
        raise ValueError(f"{name} must be a non-empty 1-D array without ±inf, got {_show(values)}")
    return arr


def _refuses(model: TrainedModel, length: int) -> bool:
    """Whether ``model`` cannot run sequences of ``length`` (a learned table too short)."""
    config = model.config
    return config.method == "learned" and length > config.max_len


def _target_keys(task: Task, length: int) -> np.ndarray:
    """The key holding each query's answer (-1 where a query has none)."""
    queries = np.arange(length)
    if task.name == "copy_back":
        keys = queries - task.arg
    else:
        keys = np.full(length, task.arg)
    return np.where(queries >= task.arg, keys, -1)


# --- training and measuring ---------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _default_models() -> dict[str, TrainedModel]:
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

    Parameters
    ----------
    models : dict of str to TrainedModel
        At most :data:`MAX_MODELS` models.
    lengths : sequence of int
        Test lengths, each 2 to :data:`MAX_LENGTH`.
    n_samples : int, default 256
        Test sequences per length, 1 to :data:`MAX_SAMPLES`.
    seed : int, default TEST_SEED
        Seed of the test sequences (not the training data's).

    Returns
    -------
    dict of str to numpy.ndarray
        One array of accuracies in [0, 1] per model, NaN where a learned table is
        shorter than the length (the model refuses it).

    Examples
    --------
    >>> models = {"learned": train("copy_back", "learned", length=4, steps=2)}
    >>> accuracy_table(models, [4, 8], n_samples=8)["learned"].tolist()[1]
    nan
    """
    models = _check_models(models)
    if isinstance(lengths, (str, bytes)) or not isinstance(lengths, Sequence) or not lengths:
        raise TypeError(f"lengths must be a non-empty list of integers, got {_show(lengths)}")
    lengths = [check_int("lengths entry", n, minimum=2, maximum=MAX_LENGTH) for n in lengths]
    n_samples = check_int("n_samples", n_samples, minimum=1, maximum=MAX_SAMPLES)
    return {
        name: np.array(
            [
                math.nan if _refuses(model, n) else model.accuracy(
                    length=n, n_samples=n_samples, seed=seed)
                for n in lengths
            ]
        )
        for name, model in models.items()
    }


def format_accuracy_table(
    rows: Mapping[str, ArrayLike], lengths: Sequence[int], *, train_length: int
) -> str:
    """Rows of accuracies (one per length, in [0, 1]) as whole percentages; NaN is ``refuses``.

    The header names each length as a multiple of ``train_length`` (``L``) when it is one.

    Examples
    --------
    >>> print(format_accuracy_table({"learned": [1.0, np.nan]}, [16, 32], train_length=16))
    method                 L = 16  2L = 32
    learned                  100%  refuses
    """
    train_length = check_int("train_length", train_length, minimum=1)
    lengths = [check_int("lengths entry", n, minimum=1) for n in lengths]

    def header(n: int) -> str:
        if n % train_length:
            return f"n = {n}"
        factor = n // train_length
        return f"{'' if factor == 1 else factor}L = {n}"

    heads = [header(n) for n in lengths]
    widths = [max(len(h), 7) for h in heads]
    lines = [f"{'method':<20}" + "".join(f"  {h:>{w}}" for h, w in zip(heads, widths, strict=True))]
    for label, values in rows.items():
        arr = _accuracies(f"rows[{label!r}]", values)
        if arr.size != len(lengths):
            raise ValueError(
                f"rows[{label!r}] must hold one value per length ({len(lengths)}), got {arr.size}"
            )
        cells = ["refuses" if math.isnan(v) else f"{round(100 * v)}%" for v in arr.tolist()]
        lines.append(
            f"{label:<20}" + "".join(f"  {c:>{w}}" for c, w in zip(cells, widths, strict=True))
        )
    return "\n".join(lines)


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
    if not isinstance(model, TrainedModel):
        raise TypeError(f"model must be a TrainedModel (from train), got {type(model).__name__}")
    length = check_int("length", length, minimum=2, maximum=MAX_LENGTH)
    n_samples = check_int("n_samples", n_samples, minimum=1, maximum=MAX_SAMPLES // 2)
    positions = check_array("queries", queries, ndim=1)
    if not np.issubdtype(positions.dtype, np.integer):
        raise TypeError(f"queries must hold integer positions, got dtype {positions.dtype}")
    targets = _target_keys(model.task, length)
    bad = [int(t) for t in positions if not 0 <= t < length or targets[t] < 0]
    if bad:
        raise ValueError(
            f"queries must lie in {model.task.arg} .. {length - 1} (positions with an answer "
            f"for {model.task.name} {model.task.arg}), got {bad}"
        )
    batch = task_batch(model.task, n_samples, length, model.config.vocab_size, seed=seed)
    weights = model.attention(batch.tokens)  # (B, H, n, n); refuses lengths past a table
    shares = weights[:, :, positions, targets[positions]].mean(axis=0)  # (H, queries)
    return shares.max(axis=0)
