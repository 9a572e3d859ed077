"""Scaled dot-product attention and tools to dissect its scores.

Pure numpy: nothing here draws.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ._validate import as_array, check_array, check_int, check_real
from .encodings import sinusoidal_pe

__all__ = [
    "softmax",
    "attention_weights",
    "attention",
    "causal_mask",
    "ScoreTerms",
    "score_terms",
    "relative_deviation",
    "random_projection",
    "blend_matrix",
    "blend_deviations",
    "blend_position_scores",
    "blend_inputs",
]


def softmax(x: ArrayLike, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along ``axis``.

    ``-inf`` entries get weight 0; a slice that is entirely ``-inf`` gives NaN.

    Parameters
    ----------
    x : array_like
        Real scores (integer or floating dtype); ``-inf`` allowed (masked), NaN and
        ``+inf`` are not. Complex numbers, strings, bools and datetimes raise ``TypeError``.
    axis : int, default -1
        Axis to normalise over.

    Returns
    -------
    numpy.ndarray
        Non-negative, sums to 1 along ``axis``.

    Examples
    --------
    >>> softmax([1000.0, 1000.0]).tolist()
    [0.5, 0.5]
    """
    arr = check_array("x", x, min_ndim=0, finite=False).astype(np.float64)
    if np.isnan(arr).any() or np.isposinf(arr).any():
        raise ValueError("x must not contain NaN or +inf")
    axis = check_int("axis", axis)
    if arr.ndim == 0 or not -arr.ndim <= axis < arr.ndim:
        raise ValueError(f"axis must index one of the {arr.ndim} dimensions of x, got {axis}")
    with np.errstate(invalid="ignore"):
        shifted = arr - np.max(arr, axis=axis, keepdims=True)
        e = np.exp(shifted)
        return e / e.sum(axis=axis, keepdims=True)


def _check_qk(q: ArrayLike, k: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    q = check_array("q", q, min_ndim=2).astype(np.float64)
    k = check_array("k", k, min_ndim=2).astype(np.float64)
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"q and k must have the same last dimension, got q {q.shape} and k {k.shape}"
        )
    return q, k


def attention_weights(q: ArrayLike, k: ArrayLike, mask: ArrayLike | None = None) -> np.ndarray:
    """Attention weights ``softmax(q kᵀ / sqrt(d))``.

    Parameters
    ----------
    q : array_like
        Queries, shape ``(..., n, d)``.
    k : array_like
        Keys, shape ``(..., m, d)``.
    mask : array_like of bool, optional
        Shape broadcastable to ``(..., n, m)``; ``True`` where query ``i`` may
        attend to key ``j``. Every query must be allowed at least one key.

    Returns
    -------
    numpy.ndarray
        Shape ``(..., n, m)``; each row sums to 1.

    Examples
    --------
    >>> attention_weights(np.zeros((2, 4)), np.ones((3, 4))).round(3).tolist()[0]
    [0.333, 0.333, 0.333]
    """
    q, k = _check_qk(q, k)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        mask = as_array("mask", mask)
        if mask.dtype != bool:
            raise TypeError(f"mask must be a boolean array, got dtype {mask.dtype}")
        try:
            mask = np.broadcast_to(mask, scores.shape)
        except ValueError as exc:
            raise ValueError(
                f"mask of shape {mask.shape} does not fit scores of shape {scores.shape}"
            ) from exc
        blocked = np.flatnonzero((~mask.any(axis=-1)).reshape(-1, mask.shape[-2]).any(axis=0))
        if blocked.size:
            raise ValueError(
                "mask must allow every query at least one key; "
                f"query rows {blocked.tolist()} are fully masked"
            )
        scores = np.where(mask, scores, -np.inf)
    return softmax(scores, axis=-1)


def attention(
    q: ArrayLike, k: ArrayLike, v: ArrayLike, mask: ArrayLike | None = None
) -> np.ndarray:
    """Scaled dot-product attention ``softmax(q kᵀ / sqrt(d)) v``.

    Parameters
    ----------
    q : array_like
        Queries, shape ``(..., n, d)``.
    k : array_like
        Keys, shape ``(..., m, d)``.
    v : array_like
        Values, shape ``(..., m, d_v)``.
    mask : array_like of bool, optional
        ``True`` where attending is allowed; see :func:`attention_weights`.

    Returns
    -------
    numpy.ndarray
        Shape ``(..., n, d_v)``.

    Examples
    --------
    >>> x = np.eye(3)
    >>> attention(x, x, x).shape
    (3, 3)
    """
    q, k = _check_qk(q, k)
    v = check_array("v", v, min_ndim=2).astype(np.float64)
    if v.shape[-2] != k.shape[-2]:
        raise ValueError(
            f"k and v must have the same number of rows, got k {k.shape} and v {v.shape}"
        )
    return attention_weights(q, k, mask) @ v


def causal_mask(n: int) -> np.ndarray:
    """Lower-triangular boolean mask: query ``i`` may see keys ``0 .. i``.

    Parameters
    ----------
    n : int
        Sequence length, >= 1.

    Returns
    -------
    numpy.ndarray
        Shape ``(n, n)``, dtype bool.

    Examples
    --------
    >>> causal_mask(2).tolist()
    [[True, False], [True, True]]
    """
    n = check_int("n", n, minimum=1)
    return np.tril(np.ones((n, n), dtype=bool))


class ScoreTerms(NamedTuple):
    """The four parts of an attention score matrix for inputs ``e + p``."""

    content_content: np.ndarray
    content_position: np.ndarray
    position_content: np.ndarray
    position_position: np.ndarray

    def total(self) -> np.ndarray:
        """Sum of the four terms: the full score matrix."""
        return (
            self.content_content
            + self.content_position
            + self.position_content
            + (self.position_position)
        )


def score_terms(e: ArrayLike, p: ArrayLike, w_q: ArrayLike, w_k: ArrayLike) -> ScoreTerms:
    """Split ``(e + p) W_Q W_Kᵀ (e + p)ᵀ`` into its four terms.

    Parameters
    ----------
    e : array_like
        Token (content) embeddings, shape ``(n, d)``.
    p : array_like
        Positional encodings, shape ``(n, d)``.
    w_q, w_k : array_like
        Query and key projections, shape ``(d, d_k)`` each.

    Returns
    -------
    ScoreTerms
        ``(content_content, content_position, position_content, position_position)``,
        each ``(n, n)``; ``.total()`` is the full (unscaled) score matrix.

    Examples
    --------
    >>> e, p, w = np.eye(2), np.ones((2, 2)), np.eye(2)
    >>> terms = score_terms(e, p, w, w)
    >>> bool(np.allclose(terms.total(), (e + p) @ (e + p).T))
    True
    """
    e = check_array("e", e, ndim=2).astype(np.float64)
    p = check_array("p", p, ndim=2).astype(np.float64)
    w_q = check_array("w_q", w_q, ndim=2).astype(np.float64)
    w_k = check_array("w_k", w_k, ndim=2).astype(np.float64)
    if e.shape != p.shape:
        raise ValueError(f"e and p must have the same shape, got {e.shape} and {p.shape}")
    if w_q.shape != w_k.shape or w_q.shape[0] != e.shape[1]:
        raise ValueError(
            f"w_q and w_k must both have shape ({e.shape[1]}, d_k), got {w_q.shape} and {w_k.shape}"
        )
    qe, qp, ke, kp = e @ w_q, p @ w_q, e @ w_k, p @ w_k
    return ScoreTerms(qe @ ke.T, qe @ kp.T, qp @ ke.T, qp @ kp.T)


def relative_deviation(scores: ArrayLike) -> float:
    """How far a score matrix is from depending on ``j - i`` alone.

    Let ``D(S)`` replace every entry of ``S`` by the mean of its diagonal
    (all entries with the same ``j - i``) and ``c`` be the overall mean. Then

        relative_deviation(S) = ||S - D(S)||_F / ||S - c||_F

    ``D`` and ``c`` are orthogonal projections (onto Toeplitz and constant
    matrices, the second inside the first), so the value lies in ``[0, 1]``:
    0 exactly when ``S`` is Toeplitz, unchanged by ``a S + b`` (a ≠ 0), and
    about ``sqrt((n-1)/(n+1))`` for an ``n x n`` matrix of independent noise.
    A constant matrix (up to rounding: spread below 1e-12 of its norm) returns 0.

    Parameters
    ----------
    scores : array_like
        A 2-D real matrix (need not be square).

    Returns
    -------
    float
        The deviation, between 0 and 1.

    Examples
    --------
    >>> i, j = np.indices((5, 5))
    >>> relative_deviation(np.cos(j - i))
    0.0
    """
    s = check_array("scores", scores, ndim=2).astype(np.float64)
    # Scale to max |s| = 1 first: the value is scale-invariant, but squaring entries
    # near 1e155 overflows to inf and near 1e-200 underflows to 0 (both gave 0.0).
    peak = np.max(np.abs(s))
    if peak == 0.0:
        return 0.0
    s = s / peak
    i, j = np.indices(s.shape)
    offset = (j - i).ravel() + (s.shape[0] - 1)
    sums = np.bincount(offset, weights=s.ravel())
    counts = np.bincount(offset)
    diag_mean = (sums / counts)[offset].reshape(s.shape)
    total = np.linalg.norm(s - s.mean())
    if total <= 1e-12 * np.linalg.norm(s):
        return 0.0
    return float(min(1.0, np.linalg.norm(s - diag_mean) / total))


# --- Lesson 06: where additive encoding breaks down ---


def random_projection(
    d_model: int, d_k: int | None = None, seed: int | np.random.Generator = 0
) -> np.ndarray:
    """A random projection matrix with entries drawn from ``N(0, 1/d_model)``.

    With this scale ``x @ W`` keeps, on average, the length of ``x``: the typical
    initialisation of a query or key projection before training.

    Parameters
    ----------
    d_model : int
        Input width (rows), >= 1.
    d_k : int, optional
        Output width (columns), >= 1; default ``d_model`` (a square matrix).
    seed : int or numpy.random.Generator, default 0
        Seed (>= 0) of a fresh generator, or a generator to draw from.

    Returns
    -------
    numpy.ndarray
        Shape ``(d_model, d_k)``, float64.

    Examples
    --------
    >>> random_projection(4, 2, seed=1).shape
    (4, 2)
    >>> bool(np.array_equal(random_projection(3, seed=5), random_projection(3, seed=5)))
    True
    """
    d_model = check_int("d_model", d_model, minimum=1)
    d_k = d_model if d_k is None else check_int("d_k", d_k, minimum=1)
    if isinstance(seed, np.random.Generator):
        generator = seed
    else:
        generator = np.random.default_rng(check_int("seed", seed, minimum=0))
    return generator.normal(size=(d_model, d_k)) / np.sqrt(d_model)


def blend_matrix(t: float, w_random: ArrayLike) -> np.ndarray:
    """Straight-line blend ``(1 - t) I + t W`` between the identity and a square matrix.

    Parameters
    ----------
    t : float
        Blend, between 0 (identity) and 1 (``w_random``).
    w_random : array_like
        A square ``(d, d)`` matrix.

    Returns
    -------
    numpy.ndarray
        Shape ``(d, d)``, float64.

    Examples
    --------
    >>> blend_matrix(0.25, np.zeros((2, 2))).tolist()
    [[0.75, 0.0], [0.0, 0.75]]
    """
    t = check_real("t", t)
    if not 0.0 <= t <= 1.0:
        raise ValueError(f"t must lie in [0, 1], got {t}")
    w = check_array("w_random", w_random, min_ndim=2).astype(np.float64)
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise ValueError(f"w_random must be a square 2-D matrix, got shape {w.shape}")
    return (1.0 - t) * np.eye(w.shape[0]) + t * w


def blend_deviations(
    p: ArrayLike, w_q_random: ArrayLike, w_k_random: ArrayLike, t_values: ArrayLike
) -> np.ndarray:
    """Relative deviation of the position–position term along the identity-to-random blend.

    For each ``t``, ``W_Q = blend_matrix(t, w_q_random)``, ``W_K = blend_matrix(t,
    w_k_random)`` and the value is ``relative_deviation(p W_Q W_Kᵀ pᵀ)``.

    Parameters
    ----------
    p : array_like
        Positional encodings, shape ``(n, d)``.
    w_q_random, w_k_random : array_like
        Square ``(d, d)`` matrices reached at ``t = 1``.
    t_values : array_like
        1-D blends, each in ``[0, 1]``.

    Returns
    -------
    numpy.ndarray
        Shape ``(len(t_values),)``, each in ``[0, 1]``.

    Examples
    --------
    >>> p = np.eye(3, 4)
    >>> blend_deviations(p, np.ones((4, 4)), np.ones((4, 4)), [0.0]).tolist()
    [0.0]
    """
    p = check_array("p", p, ndim=2).astype(np.float64)
    ts = check_array("t_values", t_values, ndim=1)
    return np.array(
        [
            relative_deviation(blend_position_scores(p, w_q_random, w_k_random, t))
            for t in ts.tolist()
        ]
    )


def blend_position_scores(
    p: ArrayLike, w_q_random: ArrayLike, w_k_random: ArrayLike, t: float
) -> np.ndarray:
    """The position–position term ``p W_Q W_Kᵀ pᵀ`` with both projections blended.

    ``W_Q = blend_matrix(t, w_q_random)`` and ``W_K = blend_matrix(t, w_k_random)``:
    at ``t = 0`` this is ``p pᵀ``, at ``t = 1`` the term with the random matrices.

    Parameters
    ----------
    p : array_like
        Positional encodings, shape ``(n, d)``.
    w_q_random, w_k_random : array_like
        Square ``(d, d)`` matrices reached at ``t = 1``.
    t : float
        Blend, in ``[0, 1]``.

    Returns
    -------
    numpy.ndarray
        Shape ``(n, n)``; row ``i`` is query position ``i``, column ``j`` key position ``j``.

    Examples
    --------
    >>> p = np.eye(2)
    >>> blend_position_scores(p, 3 * p, p, 1.0).tolist()
    [[3.0, 0.0], [0.0, 3.0]]
    """
    p = check_array("p", p, ndim=2).astype(np.float64)
    w_q = blend_matrix(t, w_q_random)
    w_k = blend_matrix(t, w_k_random)
    if w_q.shape != w_k.shape or w_q.shape[0] != p.shape[1]:
        raise ValueError(
            f"w_q_random and w_k_random must both have shape ({p.shape[1]}, {p.shape[1]}), "
            f"got {w_q.shape} and {w_k.shape}"
        )
    return (p @ w_q) @ (p @ w_k).T


def blend_inputs(d_model: int, n_positions: int = 32, seed: int = 0) -> tuple:
    """Encoding and the two random projections of the lesson 06 blend figure.

    Parameters
    ----------
    d_model : int
        Width; positive and even.
    n_positions : int, default 32
        Number of positions, >= 2.
    seed : int, default 0
        Seed (>= 0) of ``w_q_random``; ``w_k_random`` uses ``seed + 1``.

    Returns
    -------
    tuple of numpy.ndarray
        ``(p, w_q_random, w_k_random)``: ``sinusoidal_pe(n_positions, d_model)``,
        ``random_projection(d_model, seed=seed)`` and
        ``random_projection(d_model, seed=seed + 1)``.

    Examples
    --------
    >>> p, w_q, w_k = blend_inputs(4, 3)
    >>> p.shape, w_q.shape
    ((3, 4), (4, 4))
    """
    seed = check_int("seed", seed, minimum=0)
    p = sinusoidal_pe(check_int("n_positions", n_positions, minimum=2), d_model)
    return p, random_projection(d_model, seed=seed), random_projection(d_model, seed=seed + 1)
