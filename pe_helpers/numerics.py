"""Positions in low precision: which integers survive, and how far RoPE angles drift.

Lesson 11. bfloat16 holds every integer only up to 256 and float16 up to 2048, so positions
past that collapse onto their neighbours; even in float32 the product t * theta loses digits at
long range. :func:`rope_angle_error` measures the damage per RoPE pair, and the fix (angles from
float64 positions, cast after cos and sin) that removes it; :func:`low_precision_rope_scores`
shows what it does to an attention score.

Pure numpy, with ``ml_dtypes`` for bfloat16: nothing here draws.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from ._validate import (
    check_array,
    check_d_model,
    check_positions,
    check_real,
    check_rope_base,
    show_value,
)
from .conventions import wrap_angle
from .encodings import frequencies
from .rope import turn_pairs

__all__ = ["FLOAT_DTYPES", "largest_exact_integer", "low_precision_rope_scores", "rope_angle_error"]

#: Most angles (positions × pairs) one call computes: about 32 MB per float64 array.
MAX_ENTRIES = 1 << 22
#: The largest |position|: past 2**53 even float64 no longer tells neighbouring positions apart.
MAX_POSITION = 2**53

_NAMED = {
    "float64": np.dtype(np.float64),
    "float32": np.dtype(np.float32),
    "float16": np.dtype(np.float16),
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
}
FLOAT_DTYPES: tuple[str, ...] = tuple(_NAMED)  # the precisions compared in lesson 11


def _float_dtype(dtype: DTypeLike) -> np.dtype:
    """One of FLOAT_DTYPES, given by name or as a numpy dtype."""
    if dtype is None:
        raise TypeError(f"dtype must be one of {FLOAT_DTYPES}, got None")
    try:
        resolved = _NAMED[dtype] if isinstance(dtype, str) and dtype in _NAMED else np.dtype(dtype)
    except TypeError:
        raise TypeError(f"dtype must be one of {FLOAT_DTYPES}, got {dtype!r}") from None
    if resolved not in _NAMED.values():
        raise ValueError(f"dtype must be one of {FLOAT_DTYPES}, got {dtype!r}")
    return resolved


def largest_exact_integer(dtype: DTypeLike) -> int:
    """The largest N such that every integer 0 .. N is exact in ``dtype``: ``2 ** (mantissa + 1)``.

    Past it neighbouring positions collapse (N + 1 rounds to N, ties to even), so two tokens get
    the same RoPE angles.

    Parameters
    ----------
    dtype : {"float64", "float32", "float16", "bfloat16"} or numpy dtype

    Returns
    -------
    int
        256 for bfloat16, 2048 for float16, 2**24 for float32, 2**53 for float64.

    Examples
    --------
    >>> [largest_exact_integer(t) for t in ("bfloat16", "float16", "float32")]
    [256, 2048, 16777216]
    """
    return 2 ** (int(ml_dtypes.finfo(_float_dtype(dtype)).nmant) + 1)


def rope_angle_error(
    positions: int | ArrayLike,
    d_model: int,
    base: float = 10000.0,
    dtype: DTypeLike = "float32",
    *,
    fix: bool = False,
) -> np.ndarray:
    """Angle error of each RoPE pair when its angle is computed in a low-precision dtype.

    Without the fix, positions t and frequencies theta_k are cast to ``dtype`` and multiplied
    in ``dtype``, and cos and sin of that product are stored in ``dtype``. The fix computes the
    angle t * theta_k in float64 (``fix=True``) or float32 (``fix="float32"``, as transformers'
    Llama does: 'Force float32 since bfloat16 loses precision on long contexts') from the exact
    positions, and casts only cos and sin to ``dtype``. The error of pair k at position t is
    ``|wrap(atan2(sin, cos) - t * theta_k)|``: the turn applied minus the float64 one, wrapped
    to (-π, π]; ``.max(axis=-1)`` gives the worst pair. NaN where the position overflows
    ``dtype`` (float16 past 65504).

    Parameters
    ----------
    positions : int or array_like
        A count n (positions 0 .. n-1) or a 1-D array of positions within ±2**53.
    d_model : int
        Width; positive and even.
    base : float, default 10000.0
        Frequency base, > 1.
    dtype : {"float32", "float64", "float16", "bfloat16"} or numpy dtype
        Precision of the computation.
    fix : bool or {"float64", "float32"}, default False
        Compute the angles in float64 (True) or float32 and cast only cos and sin.

    Returns
    -------
    numpy.ndarray
        Shape ``(len(positions), d_model // 2)``, radians in [0, π].

    Examples
    --------
    >>> err = rope_angle_error([256, 257], 8, dtype="bfloat16")  # 257 rounds to 256
    >>> err[:, 0].round(3).tolist()  # pair 0 turns 1 rad per position: 1 rad short at 257
    [0.0, 1.0]
    >>> float(rope_angle_error([257], 8, dtype="bfloat16", fix=True).max()) < 0.01
    True
    """
    pairs = check_d_model(d_model, maximum=2 * MAX_ENTRIES) // 2
    t = _checked_positions("positions", positions, pairs)
    theta = frequencies(d_model, check_rope_base(base))
    cos, sin = _cos_sin(t, theta, _float_dtype(dtype), _check_fix(fix))
    return np.abs(wrap_angle(np.arctan2(sin, cos) - np.multiply.outer(t, theta)))


def _checked_positions(name: str, positions: object, pairs: int) -> np.ndarray:
    """``check_positions``, with at most MAX_ENTRIES angles, none past MAX_POSITION."""
    t = check_positions(positions, name=name)
    if t.size * pairs > MAX_ENTRIES:
        raise ValueError(f"{name}: at most {MAX_ENTRIES:,} angles (positions × pairs) at once")
    if t.size and np.abs(t).max() > MAX_POSITION:
        raise ValueError(f"{name} must lie within ±2**53, got {show_value(positions)}")
    return t


def _check_fix(fix: object) -> bool | str:
    """``fix`` as a bool, "float64" or "float32"."""
    if isinstance(fix, (bool, np.bool_)):
        return bool(fix)
    if not (isinstance(fix, str) and fix in ("float64", "float32")):
        raise ValueError(f"fix must be False, True, 'float64' or 'float32', got {show_value(fix)}")
    return fix


def _cos_sin(
    t: np.ndarray, theta: np.ndarray, low: np.dtype, fix: bool | str
) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of ``t * theta`` as a ``low``-precision RoPE computes them (see
    :func:`rope_angle_error`), read as float64."""
    angle_dtype = low if fix is False else np.dtype(np.float64 if fix is True else fix)
    with np.errstate(over="ignore", invalid="ignore"):
        angle = t.astype(angle_dtype)[:, None] * theta.astype(angle_dtype)[None, :]
        angle = angle.astype(np.float64)
        cos = np.cos(angle).astype(low).astype(np.float64)
        sin = np.sin(angle).astype(low).astype(np.float64)
    return cos, sin


def low_precision_rope_scores(
    q: ArrayLike,
    k: ArrayLike,
    query_position: float,
    key_positions: int | ArrayLike,
    dtype: DTypeLike = "float32",
    base: float = 10000.0,
    *,
    fix: bool | str = False,
) -> np.ndarray:
    """RoPE scores of one query against keys when the angles come from a low-precision dtype.

    The cos and sin of every angle go through the same path as in :func:`rope_angle_error`
    (positions and frequencies in ``dtype``, or the ``fix``); ``q``, ``k`` and the products stay
    float64, so the scores differ from :func:`~pe_helpers.rope.rope_scores` only through the
    angles. Adjacent pairs ``(2k, 2k+1)``.

    Parameters
    ----------
    q, k : array_like
        1-D vectors of the same even width.
    query_position : float
        Position of the query, within ±2**53 (:data:`MAX_POSITION`).
    key_positions : int or array_like
        A count n (positions 0 .. n-1) or a 1-D array within ±2**53; with ``q``'s pairs, at
        most :data:`MAX_ENTRIES` angles.
    dtype : {"float32", "float64", "float16", "bfloat16"} or numpy dtype
        Precision the angles are computed in.
    base : float, default 10000.0
        Frequency base, > 1.
    fix : bool or {"float64", "float32"}, default False
        As in :func:`rope_angle_error`.

    Returns
    -------
    numpy.ndarray
        Shape ``(len(key_positions),)``; NaN where a position overflows ``dtype``.

    Examples
    --------
    >>> q = k = np.array([1.0, 0.0])  # pair 0 turns by 1 rad per position
    >>> s = low_precision_rope_scores(q, k, 257, [256, 257], "bfloat16")  # 257 is stored as 256
    >>> s.round(2).tolist()  # both keys look as if they sat where the query is
    [1.0, 1.0]
    >>> low_precision_rope_scores(q, k, 257, [256], "bfloat16", fix=True).round(2).tolist()
    [0.54]
    """
    q = check_array("q", q, ndim=1).astype(np.float64)
    k = check_array("k", k, ndim=1).astype(np.float64)
    check_d_model(q.size, name="q.size")
    if q.shape != k.shape:
        raise ValueError(f"q and k must have the same width, got {q.size} and {k.size}")
    t_query = _checked_positions(
        "query_position", [check_real("query_position", query_position)], 1
    )
    t_keys = _checked_positions("key_positions", key_positions, q.size // 2)
    if t_keys.size == 0:
        raise ValueError("key_positions must hold at least one position")
    theta = frequencies(q.size, check_rope_base(base))
    low, fix = _float_dtype(dtype), _check_fix(fix)

    with np.errstate(invalid="ignore"):
        keys = turn_pairs(k, *_cos_sin(t_keys, theta, low, fix), "adjacent")
        return keys @ turn_pairs(q, *_cos_sin(t_query, theta, low, fix), "adjacent")[0]
