"""The lesson's own maths."""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike

from ..._validate import check_d_model, check_int, check_positions, check_real
from ...encodings import frequencies

__all__ = ["pair_points"]

#: Most positions :func:`pair_points` computes at once, and its widest encoding.
MAX_POSITIONS, MAX_WIDTH = 1_000_000, 4096


def pair_points(
    positions: int | ArrayLike,
    delta: float,
    pair_index: int,
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
    pair_index : int
        The pair index ``k``, from 0 to ``d_model/2 - 1``: the pair of columns ``2k`` and
        ``2k + 1``, whose frequency is ``w_k``.
    d_model : int, default 16
        Width of the encoding (even, at most :data:`MAX_WIDTH`).
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
    if isinstance(positions, numbers.Integral):  # a count: bounded before any array is made
        check_int("positions", positions, maximum=MAX_POSITIONS)
    t = check_positions(positions)
    check_int("the number of positions", t.size, maximum=MAX_POSITIONS)
    delta = check_real("delta", delta)
    w = frequencies(check_d_model(d_model, maximum=MAX_WIDTH), base)
    k = check_int("pair_index", pair_index, minimum=0)
    if k >= w.size:
        raise ValueError(f"pair_index must be < d_model/2 = {w.size}, got {k}")
    w_k = w[k]
    return _pair(w_k * t), _pair(w_k * (t + delta)), float(w_k * delta)


def _pair(angles: np.ndarray) -> np.ndarray:
    """``(sin, cos)`` of each angle, shape ``(n, 2)``."""
    return np.column_stack([np.sin(angles), np.cos(angles)])
