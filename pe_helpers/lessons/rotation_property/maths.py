"""The lesson's own maths."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..._validate import (
    check_int,
    check_positions,
    check_real,
)
from ...encodings import frequencies

__all__ = ["MAX_LABELLED_POSITIONS", "pair_points", "rotation_caption"]


#: Most positions the pair-rotation figure draws: each gets a label, and a step must stay fast.
MAX_LABELLED_POSITIONS = 12
#: Most positions :func:`pair_points` computes at once.
MAX_POSITIONS = 1_000_000


# --- the lesson's maths --------------------------------------------------------------------------


def pair_points(
    positions: int | ArrayLike,
    delta: float,
    frequency_index: int,
    d_model: int = 16,
    base: float = 10000.0,
) -> tuple[np.ndarray, np.ndarray, float]:
    """Pair ``k`` of the encoding at ``positions`` and at ``positions + delta``.

    Parameters
    ----------
    positions : int or array_like
        A count ``n`` (positions ``0 .. n-1``) or a 1-D array of positions; at most
        :data:`MAX_POSITIONS` of them.
    delta : float
        The shift Δ.
    frequency_index : int
        The pair index ``k``, from 0 to ``d_model/2 - 1``.
    d_model : int, default 16
        Width of the encoding (even).
    base : float, default 10000.0
        Frequency base.

    Returns
    -------
    pairs, shifted : numpy.ndarray, shape (n, 2)
        ``(sin(w_k t), cos(w_k t))`` and the same at ``t + Δ``: columns ``2k`` and
        ``2k + 1`` of ``sinusoidal_pe``.
    angle : float
        The angle ``w_k Δ`` (radians) by which every point turns, clockwise.

    Examples
    --------
    >>> pairs, shifted, angle = pair_points([0.0], np.pi / 2, 0)
    >>> shifted.round(12).tolist(), angle == np.pi / 2
    ([[1.0, 0.0]], True)
    """
    t = check_positions(positions)
    if t.size > MAX_POSITIONS:
        raise ValueError(f"positions must hold at most {MAX_POSITIONS:,} values, got {t.size:,}")
    delta = check_real("delta", delta)
    w = frequencies(d_model, base)
    k = check_int("frequency_index", frequency_index, minimum=0)
    if k >= w.size:
        raise ValueError(f"frequency_index must be < d_model/2 = {w.size}, got {k}")
    return _pair_points(t, delta, w[k])


def _pair_points(t: np.ndarray, delta: float, w_k: float) -> tuple[np.ndarray, np.ndarray, float]:
    """:func:`pair_points` of float64 positions ``t`` (n,), a shift and one frequency ``w_k``."""
    return _pair(w_k * t), _pair(w_k * (t + delta)), float(w_k * delta)


def _pair(angles: np.ndarray) -> np.ndarray:
    """``(sin, cos)`` of each angle, shape ``(n, 2)``."""
    return np.column_stack([np.sin(angles), np.cos(angles)])


def rotation_caption(angle: float, frequency_index: int) -> str:
    """The text that annotates a pair rotation: the angle ``w_k·Δ`` in radians and degrees.

    Examples
    --------
    >>> rotation_caption(np.pi / 2, 0)
    'w_0·Δ = 1.571 rad = 90.0° (clockwise)'
    >>> rotation_caption(6.5, 0)
    'w_0·Δ = 6.500 rad = 372.4° ≡ 12.4° (clockwise)'
    """
    angle = check_real("angle", angle)
    return _rotation_caption(angle, check_int("frequency_index", frequency_index, minimum=0))


def _rotation_caption(angle: float, frequency_index: int) -> str:
    """:func:`rotation_caption` of a checked angle and pair index."""
    degrees = float(np.degrees(angle))
    text = f"w_{frequency_index}·Δ = {angle:.3f} rad = {degrees:.1f}°"
    if abs(degrees) >= 360:
        text += f" ≡ {degrees % 360:.1f}°"
    return text + " (clockwise)"
