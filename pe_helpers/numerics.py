"""Positions in low precision: which integers survive, and how far RoPE angles drift.

Lesson 11. bfloat16 holds every integer only up to 256 and float16 up to 2048, so positions
past that collapse onto their neighbours; even in float32 the product t * theta loses digits at
long range. :func:`rope_angle_error` measures the damage per RoPE pair, and the fix (angles from
float64 positions, cast after cos and sin) that removes it.

Pure numpy, with ``ml_dtypes`` for bfloat16: nothing here draws.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from ._validate import check_positions
from .encodings import frequencies

__all__ = ["FLOAT_DTYPES", "largest_exact_integer", "rope_angle_error"]

_NAMED = {
    "float64": np.dtype(np.float64),
    "float32": np.dtype(np.float32),
    "float16": np.dtype(np.float16),
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
}
FLOAT_DTYPES: tuple[str, ...] = tuple(_NAMED)  # the precisions compared in lesson 11


def _wrap(angle: np.ndarray) -> np.ndarray:
    """Angles wrapped to (-π, π]."""
    return np.pi - np.mod(np.pi - angle, 2 * np.pi)


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
        A count n (positions 0 .. n-1) or a 1-D array of positions.
    d_model : int
        Width; positive and even.
    base : float, default 10000.0
        Frequency base.
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
    t = check_positions(positions)
    theta = frequencies(d_model, base)
    low = _float_dtype(dtype)
    if not (isinstance(fix, bool) or fix in ("float64", "float32")):
        raise ValueError(f"fix must be False, True, 'float64' or 'float32', got {fix!r}")
    angle_dtype = low if fix is False else np.dtype(np.float64 if fix is True else fix)
    reference = np.multiply.outer(t, theta)
    with np.errstate(over="ignore", invalid="ignore"):
        angle = t.astype(angle_dtype)[:, None] * theta.astype(angle_dtype)[None, :]
        cos = np.cos(angle.astype(np.float64)).astype(low).astype(np.float64)
        sin = np.sin(angle.astype(np.float64)).astype(low).astype(np.float64)
        return np.abs(_wrap(np.arctan2(sin, cos) - reference))
