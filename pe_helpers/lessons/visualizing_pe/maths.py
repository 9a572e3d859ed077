"""The lesson's own maths."""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike

from ..._validate import check_array, check_d_model, check_int, check_positions, check_real
from ...encodings import frequencies

__all__ = ["J", "dot_profile", "pair_form", "pair_form_profile", "sines_then_cosines"]


#: The quarter turn ``[[0, −1], [1, 0]]``: on a (sin, cos) pair, ``u(t) J u(t+Δ)ᵀ = sin(wΔ)``.
J = np.array([[0.0, -1.0], [1.0, 0.0]])
#: Most angles ``w_k Δ`` one profile may evaluate (len(deltas) × d_model/2): about 80 MB.
MAX_ANGLES = 10_000_000
#: Widest model :func:`pair_form` builds as a dense d × d matrix.
MAX_FORM_WIDTH = 4096


def _angles(deltas: ArrayLike, d_model: int, base: float) -> np.ndarray:
    """The checked angles ``w_k Δ``, shape ``(len(deltas), d_model // 2)``."""
    if isinstance(deltas, numbers.Integral):  # a count: bounded before any array is made
        check_int("deltas", deltas, maximum=MAX_ANGLES)
    offsets, pairs = check_positions(deltas, "deltas"), check_d_model(d_model) // 2
    if offsets.size * pairs > MAX_ANGLES:
        raise ValueError(
            f"len(deltas) × d_model/2 must be at most {MAX_ANGLES:,}, "
            f"got {offsets.size:,} × {pairs:,}"
        )
    return np.multiply.outer(offsets, frequencies(d_model, base))


def dot_profile(deltas: int | ArrayLike, d_model: int, base: float = 10000.0) -> np.ndarray:
    """``PE(t)·PE(t+Δ) = Σ_k cos(w_k Δ)`` for each offset Δ (the same for every t).

    Parameters
    ----------
    deltas : int or array_like
        A count ``n`` (offsets ``0 .. n-1``) or a 1-D array of offsets, negative allowed.
    d_model : int
        Width of the encoding (even).
    base : float, default 10000.0
        Frequency base.

    Returns
    -------
    numpy.ndarray
        One value per offset; ``d_model/2`` at Δ = 0.

    Examples
    --------
    >>> dot_profile([0, 1, 10], 128).round(2).tolist()
    [64.0, 62.09, 42.82]
    """
    return np.cos(_angles(deltas, d_model, base)).sum(axis=1)


def pair_form(d_model: int, a: float = 1.0, b: float = 0.0) -> np.ndarray:
    """The block-diagonal matrix ``M`` with the block ``a·I + b·J`` on every (sin, cos) pair.

    ``PE(t) M PE(t+Δ)ᵀ = Σ_k [a cos(w_k Δ) + b sin(w_k Δ)]``: relative for every
    ``a, b``; with ``b = 0`` even in Δ, with ``a = 0`` odd in Δ.

    Parameters
    ----------
    d_model : int
        Width (even, at most 4096).
    a, b : float
        Weights of the identity and of the quarter turn :data:`J`.

    Returns
    -------
    numpy.ndarray
        Shape ``(d_model, d_model)``.

    Examples
    --------
    >>> pair_form(4, a=2.0, b=1.0).tolist()[0]
    [2.0, -1.0, 0.0, 0.0]
    """
    d_model = check_d_model(d_model, maximum=MAX_FORM_WIDTH)
    block = check_real("a", a) * np.eye(2) + check_real("b", b) * J
    return np.kron(np.eye(d_model // 2), block) + 0.0  # + 0.0 turns kron's -0.0 into 0.0


def pair_form_profile(
    deltas: int | ArrayLike, d_model: int, a: float = 1.0, b: float = 0.0, base: float = 10000.0
) -> np.ndarray:
    """``Σ_k [a cos(w_k Δ) + b sin(w_k Δ)]``: the score ``PE(t) M PE(t+Δ)ᵀ`` of :func:`pair_form`.

    Examples
    --------
    >>> pair_form_profile([-1, 0, 1], 2, a=0.0, b=1.0).round(4).tolist()
    [-0.8415, 0.0, 0.8415]
    """
    a, b = check_real("a", a), check_real("b", b)
    angles = _angles(deltas, d_model, base)
    return a * np.cos(angles).sum(axis=1) + b * np.sin(angles).sum(axis=1)


def sines_then_cosines(pe: ArrayLike) -> np.ndarray:
    """Reorder interleaved columns (sin, cos, sin, cos, …) into all sines, then all cosines.

    This is the layout of tensor2tensor's ``get_timing_signal_1d`` and of many
    tutorials; the values are the same, only the column order differs.

    Examples
    --------
    >>> sines_then_cosines(np.array([[0.0, 1.0, 0.5, 0.9]])).tolist()
    [[0.0, 0.5, 1.0, 0.9]]
    """
    arr = check_array("pe", pe, ndim=2).astype(np.float64)
    check_d_model(arr.shape[1], "the number of columns of pe")
    return np.concatenate([arr[:, 0::2], arr[:, 1::2]], axis=1)
