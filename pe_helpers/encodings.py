"""Sinusoidal positional encoding and the rotations hidden inside it.

Pure numpy: nothing here draws.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from ._validate import (
    check_base,
    check_d_model,
    check_float_dtype,
    check_memory,
    check_positions,
    check_real,
)

__all__ = [
    "frequencies",
    "sinusoidal_pe",
    "rotation_matrix",
    "shift_operator",
]

#: The widest encoding the doors here and in :mod:`pe_helpers.rope` accept.
MAX_D_MODEL = 2**16


def frequencies(d_model: int, base: float = 10000.0) -> np.ndarray:
    """Angular frequency of each (sin, cos) pair.

    ``w_k = base ** (-2k / d_model)`` for the pair index ``k = 0 .. d_model/2 - 1``.
    Note the exponent uses ``2k`` where ``k`` counts *pairs*; writing ``2i`` with
    ``i`` the column index would double-count.

    Parameters
    ----------
    d_model : int
        Width of the encoding; positive, even, at most :data:`MAX_D_MODEL`.
    base : float, default 10000.0
        Ratio that the wavelengths sweep; must be > 0.

    Returns
    -------
    numpy.ndarray
        Shape ``(d_model // 2,)``, float64, starting at 1.0 and decreasing when base > 1.

    Examples
    --------
    >>> frequencies(4, base=100.0)
    array([1. , 0.1])
    """
    d_model, base = check_d_model(d_model, maximum=MAX_D_MODEL), check_base(base)
    return base ** (-2.0 * np.arange(d_model // 2, dtype=np.float64) / d_model)


def sinusoidal_pe(
    positions: int | ArrayLike,
    d_model: int,
    base: float = 10000.0,
    dtype: DTypeLike = np.float64,
) -> np.ndarray:
    """The sinusoidal positional encoding of Vaswani et al. (2017).

    Column ``2k`` holds ``sin(w_k t)`` and column ``2k + 1`` holds ``cos(w_k t)``.
    Angles are always computed in float64 and only then cast to ``dtype``, so a
    float32 encoding stays accurate at large positions.

    Parameters
    ----------
    positions : int or array_like
        A count ``n`` (meaning positions ``0 .. n-1``) or a 1-D array of positions;
        fractional and negative positions are allowed.
    d_model : int
        Width of the encoding; positive and even.
    base : float, default 10000.0
        Frequency base; must be > 0.
    dtype : numpy dtype, default float64
        Floating dtype of the result.

    Returns
    -------
    numpy.ndarray
        Shape ``(n, d_model)``, one row per position.

    Examples
    --------
    >>> pe = sinusoidal_pe(3, 4)
    >>> pe.shape
    (3, 4)
    >>> pe[0].tolist()
    [0.0, 1.0, 0.0, 1.0]
    """
    t = check_positions(positions)
    w = frequencies(d_model, base)
    dtype = check_float_dtype(dtype)
    check_memory(f"{t.size} positions with d_model = {d_model}", 24 * t.size * w.size)
    angles = np.multiply.outer(t, w)
    pe = np.empty((t.size, w.size, 2), dtype=dtype)
    np.sin(angles, out=pe[..., 0], casting="same_kind")
    np.cos(angles, out=pe[..., 1], casting="same_kind")
    return pe.reshape(t.size, 2 * w.size)


def rotation_matrix(theta: float) -> np.ndarray:
    """The 2x2 counter-clockwise rotation by ``theta`` radians.

    Parameters
    ----------
    theta : float
        Angle in radians.

    Returns
    -------
    numpy.ndarray
        ``[[cos θ, -sin θ], [sin θ, cos θ]]``, shape ``(2, 2)``.

    Examples
    --------
    >>> np.round(rotation_matrix(np.pi / 2) @ [1.0, 0.0], 12).tolist()
    [0.0, 1.0]
    """
    theta = check_real("theta", theta)
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s], [s, c]])


def block_rotation(angles: ArrayLike) -> np.ndarray:
    """Block-diagonal matrix whose block ``k`` is ``rotation_matrix(angles[k])`` (no door)."""
    theta = np.asarray(angles, dtype=np.float64)
    c, s = np.cos(theta), np.sin(theta)
    size = 2 * theta.size
    out = np.zeros((size, size))
    even = np.arange(0, size, 2)
    out[even, even] = c
    out[even, even + 1] = -s
    out[even + 1, even] = s
    out[even + 1, even + 1] = c
    return out


def shift_operator(delta: float, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The matrix ``T`` with ``PE(t + delta) = T @ PE(t)`` for every ``t``.

    For the (sin, cos) ordering each block is
    ``[[cos(w_k Δ), sin(w_k Δ)], [-sin(w_k Δ), cos(w_k Δ)]]``, a *clockwise*
    rotation by ``w_k Δ``. (The matrix with ``-sin`` top-right belongs to the
    (cos, sin) ordering.) ``T`` does not depend on ``t``.

    Parameters
    ----------
    delta : float
        Offset Δ between the two positions.
    d_model : int
        Width of the encoding; positive and even.
    base : float, default 10000.0
        Frequency base; must be > 0.

    Returns
    -------
    numpy.ndarray
        Shape ``(d_model, d_model)``, block-diagonal and orthogonal.

    Examples
    --------
    >>> pe = sinusoidal_pe([3.0, 5.0], 8)
    >>> bool(np.allclose(shift_operator(2, 8) @ pe[0], pe[1]))
    True
    """
    delta = check_real("delta", delta)
    w = frequencies(d_model, base)
    check_memory(f"d_model = {d_model}", 8 * (2 * w.size) ** 2)
    return block_rotation(-delta * w)
