"""Scaled dot-product attention and tools to dissect its scores.

Pure numpy: nothing here draws.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ._validate import as_array, check_array, check_int, check_memory, show_value

__all__ = [
    "softmax",
    "softmax_backward",
    "attention",
    "causal_mask",
    "score_terms",
    "relative_deviation",
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
    return softmax_in_place(arr, axis)  # on softmax's own copy


def softmax_in_place(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    """:func:`softmax` of a float64 array the caller owns, which becomes the weights (the
    model's forward pass: no checks, no copy)."""
    with np.errstate(invalid="ignore"):
        scores -= np.max(scores, axis=axis, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=axis, keepdims=True)
    return scores


def softmax_backward(weights: ArrayLike, grad_weights: ArrayLike) -> np.ndarray:
    """Gradient with respect to the scores of a row-wise softmax, from that of its output.

    With ``a = softmax(s)`` along the last axis and ``g = dL/da``, the Jacobian
    ``da_j / ds_k = a_j ([j == k] - a_k)`` gives ``dL/ds = a * (g - Σ_j g_j a_j)``. This is the
    piece of the model's backward pass that :func:`pe_helpers.model.gradient_check` can take
    from a learner.

    Parameters
    ----------
    weights : array_like
        Softmax output ``a``, rows summing to 1 (masked entries 0).
    grad_weights : array_like
        ``dL/da``, same shape.

    Returns
    -------
    numpy.ndarray
        ``dL/ds``, same shape; each row sums to 0.

    Examples
    --------
    >>> softmax_backward([[0.5, 0.5]], [[1.0, 0.0]]).tolist()
    [[0.25, -0.25]]
    """
    a = check_array("weights", weights).astype(np.float64)
    g = check_array("grad_weights", grad_weights).astype(np.float64)
    if a.shape != g.shape:
        raise ValueError(
            f"weights and grad_weights must have the same shape, got {a.shape} and {g.shape}"
        )
    return softmax_gradient(a, g)


def softmax_gradient(a: np.ndarray, g: np.ndarray) -> np.ndarray:
    """:func:`softmax_backward` of float64 arrays of one shape (the model's backward pass)."""
    # masked entries have weight 0, so their score gradient is 0 too
    return a * (g - (g * a).sum(axis=-1, keepdims=True))


def attention_weights(q: np.ndarray, k: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """``softmax(q kᵀ / sqrt(d))`` of float64 ``q`` (..., n, d), ``k`` (..., m, d), a bool mask."""
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
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
        Shape broadcastable to ``(..., n, m)``; ``True`` where query ``i`` may attend to key
        ``j``. Every query must be allowed at least one key.

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
    q = check_array("q", q, min_ndim=2).astype(np.float64)
    k = check_array("k", k, min_ndim=2).astype(np.float64)
    v = check_array("v", v, min_ndim=2).astype(np.float64)
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must have the same last dimension, got {q.shape} and {k.shape}")
    if v.shape[-2] != k.shape[-2]:
        raise ValueError(f"k and v must have the same number of rows, got {k.shape} and {v.shape}")
    if mask is not None:
        mask = as_array("mask", mask)
        if mask.dtype != bool or mask.ndim == 0:
            raise TypeError(f"mask must be an array of bools, got {show_value(mask)}")
        shape = np.broadcast_shapes(q.shape[:-2], k.shape[:-2]) + (q.shape[-2], k.shape[-2])
        try:
            mask = np.broadcast_to(mask, shape)
        except ValueError as exc:
            raise ValueError(f"mask of shape {mask.shape} does not fit scores {shape}") from exc
        if not mask.any(axis=-1).all():
            raise ValueError("mask must allow every query at least one key")
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
    check_memory(f"n = {n}", n * n)
    return np.tri(n, dtype=bool)


class ScoreTerms(NamedTuple):
    """The four parts of an attention score matrix for inputs ``e + p``."""

    content_content: np.ndarray
    content_position: np.ndarray
    position_content: np.ndarray
    position_position: np.ndarray

    def total(self) -> np.ndarray:
        """Sum of the four terms: the full score matrix."""
        return sum(self)


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
