"""Rotary position embedding (RoPE): rotate queries and keys instead of adding.

Pure numpy: nothing here draws.
"""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike

from ._validate import (
    check_array,
    check_choice,
    check_d_model,
    check_memory,
    check_positions,
    check_real,
    show_value,
)
from .encodings import MAX_D_MODEL, block_rotation, frequencies

__all__ = [
    "apply_rope",
    "rope_matrix",
    "halves_permutation",
    "rope_scores",
    "rope_score_bound",
]

PAIRINGS = ("adjacent", "halves")

# Long inputs are processed in blocks of about this many float64 entries per temporary
# array (256 KiB), so memory stays near the size of the result: `rope_scores(q, k, [0],
# 10**6)` and `rope_score_bound(10**6, 128)` once peaked at 2 GB for an 8 MB result.
_BLOCK_ENTRIES = 1 << 15


def _block_rows(width: int) -> int:
    """Rows per block when each row holds ``width`` entries."""
    return max(1, _BLOCK_ENTRIES // max(1, width))


def turn_pairs(x: np.ndarray, cos: np.ndarray, sin: np.ndarray, pairing: str) -> np.ndarray:
    """Turn pair ``k`` of ``x``'s last axis by the angle with cosine ``cos[..., k]`` and sine
    ``sin[..., k]``: the one rotation every RoPE in the package goes through (not a door).

    ``pairing`` "adjacent" pairs ``(2k, 2k + 1)``, "halves" ``(k, k + m)``, with ``m`` the
    number of pairs turned (``cos.shape[-1]``); dimensions past ``2m`` pass through. ``cos`` and
    ``sin`` broadcast against the pairs; scaling both scales the pair (YaRN's factor), and
    ``-sin`` turns backwards (the transpose, for a backward pass).
    """
    m, d = cos.shape[-1], x.shape[-1]
    if pairing == "adjacent":
        first, second = slice(0, 2 * m, 2), slice(1, 2 * m, 2)
    else:
        first, second = slice(0, m), slice(m, 2 * m)
    a, b = x[..., first], x[..., second]
    shape = np.broadcast_shapes(a.shape, cos.shape)[:-1] + (d,)
    out = np.empty(shape) if 2 * m == d else np.array(np.broadcast_to(x, shape), dtype=float)
    out[..., first] = a * cos - b * sin
    out[..., second] = a * sin + b * cos
    return out


def _rotate(x: np.ndarray, t: np.ndarray, w: np.ndarray, pairing: str) -> np.ndarray:
    """Rotate row ``i`` of ``x`` (last axis even) by ``t[i] * w``."""
    angles = np.multiply.outer(t, w)
    return turn_pairs(x, np.cos(angles), np.sin(angles), pairing)


def _rotated_copies(vector: np.ndarray, t: np.ndarray, w: np.ndarray, pairing: str) -> np.ndarray:
    """``vector`` rotated to each position in ``t``: shape ``(t.size, d)``, built in blocks."""
    out = np.empty((t.size, vector.size))
    rows = _block_rows(vector.size)
    for start in range(0, t.size, rows):
        out[start : start + rows] = _rotate(vector, t[start : start + rows], w, pairing)
    return out


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
    positions : array_like, optional
        Positions of the ``n`` rows (1-D, length ``n``); default ``0 .. n-1``. A bare
        number is ambiguous (a count elsewhere, a position in ``rope_matrix``): write ``[m]``.
    base : float, default 10000.0
        Frequency base; must be > 0.
    pairing : {"adjacent", "halves"}
        Layout of the pairs: ``"adjacent"`` pairs dimensions ``(2k, 2k+1)`` (RoFormer),
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
    if positions is None:
        t = np.arange(n, dtype=np.float64)
    else:
        if (
            isinstance(positions, (numbers.Number, np.generic))
            or getattr(positions, "ndim", 1) == 0
        ):
            raise TypeError(
                f"positions must be a 1-D array, one per row of x, got {show_value(positions)}: "
                "write [m] for one row at position m (a bare number is ambiguous)"
            )
        t = check_positions(positions)
    if t.size != n:
        raise ValueError(f"positions must have one entry per row of x ({n}), got {t.size}")
    return _rotate(x, t, frequencies(d, base), pairing)


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
    m = check_real("position", position)
    w = frequencies(d_model, base)
    check_memory(f"d_model = {d_model}", 8 * (2 * w.size) ** 2)
    return block_rotation(m * w)


def halves_permutation(d_model: int) -> np.ndarray:
    """Index array that turns the adjacent layout into the split-halves layout.

    With ``perm = halves_permutation(d)``:
    ``apply_rope(x[..., perm], pairing="halves") == apply_rope(x)[..., perm]``.

    Parameters
    ----------
    d_model : int
        Width; positive, even, at most :data:`~pe_helpers.encodings.MAX_D_MODEL`.

    Returns
    -------
    numpy.ndarray
        ``[0, 2, 4, ..., 1, 3, 5, ...]``, shape ``(d_model,)``.

    Examples
    --------
    >>> halves_permutation(6).tolist()
    [0, 2, 4, 1, 3, 5]
    """
    d_model = check_d_model(d_model, maximum=MAX_D_MODEL)
    return np.concatenate([np.arange(0, d_model, 2), np.arange(1, d_model, 2)])


# --- Lesson 07: RoPE scores, long-range decay, angles past the training length ---


def rope_scores(
    q: ArrayLike,
    k: ArrayLike,
    query_positions: int | ArrayLike,
    key_positions: int | ArrayLike,
    base: float = 10000.0,
    pairing: str = "adjacent",
) -> np.ndarray:
    """Scores of one query vector and one key vector placed at many positions.

    Entry ``[a, b]`` is ``apply_rope(q at query_positions[a]) · apply_rope(k at
    key_positions[b])``: the same two vectors, only their positions change, so
    the matrix shows what the positions alone do to the score.

    Parameters
    ----------
    q, k : array_like
        1-D vectors of the same even width ``d``.
    query_positions, key_positions : int or array_like
        A count ``n`` >= 1 (positions ``0 .. n-1``) or a non-empty 1-D array of positions.
    base : float, default 10000.0
        Frequency base; must be > 0.
    pairing : {"adjacent", "halves"}
        Layout of the rotated pairs, used for both ``q`` and ``k``.

    Returns
    -------
    numpy.ndarray
        Shape ``(len(query_positions), len(key_positions))``. Computed in blocks: peak
        memory stays near the size of this result plus the rotated copies of the shorter
        side, however long the other side is.

    Examples
    --------
    >>> q = k = np.array([1.0, 0.0])
    >>> rope_scores(q, k, [0, 5], [0, 5]).round(4).tolist()
    [[1.0, 0.2837], [0.2837, 1.0]]
    """
    q, k = (check_array(name, v, ndim=1).astype(np.float64) for name, v in (("q", q), ("k", k)))
    check_d_model(q.size, name="q.size")
    if q.size != k.size:
        raise ValueError(f"q and k must have the same width, got {q.size} and {k.size}")
    pairing = check_choice("pairing", pairing, PAIRINGS)
    w = frequencies(q.size, base)
    tq = check_positions(query_positions, name="query_positions")
    tk = check_positions(key_positions, name="key_positions")
    for name, t in (("query_positions", tq), ("key_positions", tk)):
        if t.size == 0:
            raise ValueError(f"{name} must hold at least one position, got none")
    check_memory(f"{tq.size} query_positions by {tk.size} key_positions", 8 * tq.size * tk.size)
    swapped = tq.size > tk.size  # the score is symmetric: rotate the shorter side once
    if swapped:
        q, k, tq, tk = k, q, tk, tq
    out = np.empty((tq.size, tk.size))
    rotated_q = _rotated_copies(q, tq, w, pairing)
    rows = _block_rows(max(q.size, tq.size))
    for start in range(0, tk.size, rows):  # walk through the longer side a block at a time
        block = _rotated_copies(k, tk[start : start + rows], w, pairing)
        out[:, start : start + rows] = rotated_q @ block.T
    return out.T if swapped else out


#: Most terms ``len(distances) * d_model / 2`` :func:`rope_score_bound` sums: 10**6 distances
#: of a 256-wide head, a few seconds of a core.
MAX_BOUND_TERMS = 2**27


def rope_score_bound(distances: int | ArrayLike, d_model: int, base: float = 10000.0) -> np.ndarray:
    """RoFormer's long-range bound on the RoPE score, as a function of relative distance.

    With ``θ_i = base ** (-2i / d)`` and ``S_j = Σ_{i<j} exp(1j · r · θ_i)``, the
    value at distance ``r`` is ``(1 / (d/2)) Σ_{j=1}^{d/2} |S_j|`` (Su et al. 2021,
    section 3.4.3): the score of query and key vectors with slowly varying pair
    products is at most a constant times this. It equals ``(d/2 + 1) / 2`` at
    ``r = 0`` and tends to decrease with ``|r|`` (not monotonically).

    Parameters
    ----------
    distances : int or array_like
        A count ``n`` (distances ``0 .. n-1``) or a 1-D array of relative distances.
    d_model : int
        Width; positive and even.
    base : float, default 10000.0
        Frequency base; must be > 0.

    Returns
    -------
    numpy.ndarray
        Shape ``(len(distances),)``, non-negative. Computed a block of distances at a
        time, so peak memory stays near the size of this result.

    Examples
    --------
    >>> rope_score_bound([0], 8).tolist()
    [2.5]
    """
    r = check_positions(distances, name="distances")
    theta = frequencies(d_model, base)
    if r.size * theta.size > MAX_BOUND_TERMS:
        raise ValueError(
            f"distances x d_model / 2 must be at most {MAX_BOUND_TERMS:,} terms (a size limit), "
            f"got {r.size:,} distances with d_model = {d_model}"
        )
    out = np.empty(r.size)
    rows = _block_rows(theta.size)
    for start in range(0, r.size, rows):
        phases = np.exp(1j * np.multiply.outer(r[start : start + rows], theta))
        np.cumsum(phases, axis=-1, out=phases)
        out[start : start + rows] = np.abs(phases).mean(axis=-1)
    return out
