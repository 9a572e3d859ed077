"""Rotary position embedding (RoPE): rotate queries and keys instead of adding.

Pure numpy: nothing here draws.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._validate import check_array, check_choice, check_d_model, check_positions
from .encodings import block_rotation, frequencies

__all__ = ["apply_rope", "rope_matrix", "halves_permutation"]

PAIRINGS = ("adjacent", "halves")


def apply_rope(
    x: ArrayLike,
    positions: int | ArrayLike | None = None,
    base: float = 10000.0,
    pairing: str = "adjacent",
) -> np.ndarray:
    """Rotate each row of ``x`` by angles proportional to its position.

    Row ``m``'s pair ``k`` is rotated counter-clockwise by ``m * w_k`` with
    ``w_k = base ** (-2k / d)``. Because rotations compose,
    ``apply_rope(q)[m] @ apply_rope(k)[n]`` depends on ``n - m`` only.

    Parameters
    ----------
    x : array_like
        Shape ``(..., n, d)`` with ``d`` even: ``n`` vectors of width ``d``.
    positions : int or array_like, optional
        Positions of the ``n`` rows (1-D, length ``n``); default ``0 .. n-1``.
    base : float, default 10000.0
        Frequency base; must be > 0.
    pairing : {"adjacent", "halves"}
        ``"adjacent"`` pairs dimensions ``(2k, 2k+1)`` (RoFormer);
        ``"halves"`` pairs ``(k, k + d/2)`` (the rotate-half layout of Llama-family code).

    Returns
    -------
    numpy.ndarray
        Same shape as ``x``, float64. Norms of rows are preserved.

    Examples
    --------
    >>> q = np.array([[1.0, 0.0], [1.0, 0.0]])
    >>> apply_rope(q).round(4).tolist()
    [[1.0, 0.0], [0.5403, 0.8415]]
    """
    x = check_array("x", x, min_ndim=2).astype(np.float64)
    n, d = x.shape[-2], x.shape[-1]
    check_d_model(d, name="x.shape[-1]")
    pairing = check_choice("pairing", pairing, PAIRINGS)
    t = np.arange(n, dtype=np.float64) if positions is None else check_positions(positions)
    if t.size != n:
        raise ValueError(f"positions must have one entry per row of x ({n}), got {t.size}")
    angles = np.multiply.outer(t, frequencies(d, base))
    cos, sin = np.cos(angles), np.sin(angles)
    if pairing == "adjacent":
        first, second = x[..., 0::2], x[..., 1::2]
    else:
        first, second = x[..., : d // 2], x[..., d // 2 :]
    rot_first = first * cos - second * sin
    rot_second = first * sin + second * cos
    out = np.empty_like(x)
    if pairing == "adjacent":
        out[..., 0::2], out[..., 1::2] = rot_first, rot_second
    else:
        out[..., : d // 2], out[..., d // 2 :] = rot_first, rot_second
    return out


def rope_matrix(position: float, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The explicit ``(d_model, d_model)`` RoPE rotation for one position (adjacent pairing).

    ``apply_rope(x, [m])[0] == rope_matrix(m, d) @ x[0]``; useful to check the
    efficient element-wise form, far too costly to use for real.

    Parameters
    ----------
    position : float
        Position ``m`` of the token.
    d_model : int
        Width; positive and even.
    base : float, default 10000.0
        Frequency base; must be > 0.

    Returns
    -------
    numpy.ndarray
        Block-diagonal, orthogonal, shape ``(d_model, d_model)``.

    Examples
    --------
    >>> R = rope_matrix(3, 4)
    >>> bool(np.allclose(R.T @ R, np.eye(4)))
    True
    """
    (m,) = check_positions([position], name="position")
    return block_rotation(m * frequencies(d_model, base))


def halves_permutation(d_model: int) -> np.ndarray:
    """Index array that turns the adjacent layout into the split-halves layout.

    With ``perm = halves_permutation(d)``:
    ``apply_rope(x[..., perm], pairing="halves") == apply_rope(x)[..., perm]``.

    Parameters
    ----------
    d_model : int
        Width; positive and even.

    Returns
    -------
    numpy.ndarray
        ``[0, 2, 4, ..., 1, 3, 5, ...]``, shape ``(d_model,)``.

    Examples
    --------
    >>> halves_permutation(6).tolist()
    [0, 2, 4, 1, 3, 5]
    """
    d_model = check_d_model(d_model)
    return np.concatenate([np.arange(0, d_model, 2), np.arange(1, d_model, 2)])
