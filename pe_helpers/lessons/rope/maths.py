"""The lesson's own maths."""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike

from ..._validate import check_array, check_base, check_d_model, check_int, check_positions
from ...encodings import frequencies

__all__ = ["mean_abs_scores", "unseen_angle_gaps"]


#: Largest vector width the helpers accept.
MAX_WIDTH = 2048
#: Most (vector, distance) scores one call of :func:`mean_abs_scores` computes.
MAX_SCORES = 10_000_000
#: Longest sequence :func:`unseen_angle_gaps` looks at.
MAX_LENGTH = 100_000


def mean_abs_scores(
    queries: ArrayLike, keys: ArrayLike, distances: ArrayLike, base: float = 10000.0
) -> np.ndarray:
    """Mean of ``|q_i · R_r k_i|`` over the rows ``i``, for each distance ``r``.

    Row ``i`` pairs query ``q_i`` at position 0 with key ``k_i`` at position ``r``
    (RoPE, adjacent pairs): the typical size of a score at distance ``r``, to set
    beside RoFormer's bound (:func:`pe_helpers.rope.rope_score_bound`). Computed in
    complex form: with pair products ``h = z_q conj(z_k)`` the score is
    ``Re Σ_k h_k exp(-i r w_k)``, one matrix product for all distances.

    Parameters
    ----------
    queries, keys : array_like
        Shape ``(n, d)`` each, ``d`` even and at most :data:`MAX_WIDTH`.
    distances : array_like
        1-D relative distances ``r`` (``n * len(distances)`` at most :data:`MAX_SCORES`).
    base : float, default 10000.0
        Frequency base; must be > 0.

    Returns
    -------
    numpy.ndarray
        Shape ``(len(distances),)``, non-negative.

    Examples
    --------
    >>> ones = np.ones((1, 4))
    >>> mean_abs_scores(ones, ones, [0, 1], base=100.0).round(3).tolist()  # 2 cos 1 + 2 cos 0.1
    [4.0, 3.071]
    """
    q = check_array("queries", queries, ndim=2).astype(np.float64)
    k = check_array("keys", keys, ndim=2).astype(np.float64)
    if q.shape != k.shape:
        raise ValueError(f"queries and keys must have the same shape, got {q.shape} and {k.shape}")
    check_d_model(q.shape[1], "queries.shape[1]", MAX_WIDTH)
    if isinstance(distances, numbers.Integral):  # a count: bounded before any array is made
        check_int("distances", distances, maximum=MAX_SCORES)
    r = check_positions(distances, name="distances")
    if not 1 <= q.shape[0] * r.size <= MAX_SCORES:
        raise ValueError(
            f"queries rows × distances must be 1 to {MAX_SCORES:,}, got {q.shape[0]} × {r.size}"
        )
    w = frequencies(q.shape[1], check_base(base))
    products = (q[:, 0::2] + 1j * q[:, 1::2]) * np.conj(k[:, 0::2] + 1j * k[:, 1::2])
    block = max(1, 1_000_000 // q.shape[0])  # distances per step: at most ~16 MB of scores
    means = [
        np.abs((products @ np.exp(-1j * np.outer(w, r[start : start + block]))).real).mean(axis=0)
        for start in range(0, r.size, block)
    ]
    return np.concatenate(means)


def unseen_angle_gaps(d_model: int, base: float, train_length: int, test_length: int) -> np.ndarray:
    """For each pair, how far the angles of a longer sequence are from those seen in training.

    Pair ``k`` turns by ``m·w_k`` at position ``m``. Training shows the angles of
    positions ``0 .. train_length - 1`` (modulo 2π). The value for pair ``k`` is the
    largest distance on the circle between an angle of a position ``0 .. test_length - 1``
    and the nearest training angle: at most ``w_k / 2`` when training went round the
    whole circle, larger when the longer sequence reaches angles training never made.

    Parameters
    ----------
    d_model : int
        Width; positive, even, at most :data:`MAX_WIDTH`.
    base : float
        Frequency base; must be > 0.
    train_length : int
        Positions seen in training, >= 1.
    test_length : int
        Positions of the longer sequence, ``train_length`` to :data:`MAX_LENGTH`.

    Returns
    -------
    numpy.ndarray
        Shape ``(d_model // 2,)``, radians in ``[0, π]``.

    Examples
    --------
    >>> gaps = unseen_angle_gaps(4, 100.0, 8, 64)  # w = (1, 0.1)
    >>> bool(gaps[0] <= 0.5), round(float(gaps[1]), 2)
    (True, 2.78)
    """
    d_model = check_d_model(d_model, maximum=MAX_WIDTH)
    w = frequencies(d_model, check_base(base))
    train_length = check_int("train_length", train_length, minimum=1, maximum=MAX_LENGTH)
    test_length = check_int("test_length", test_length, minimum=train_length, maximum=MAX_LENGTH)
    full_turn = 2 * np.pi
    gaps = np.empty(w.size)
    for index, frequency in enumerate(w):
        seen = np.sort(np.mod(np.arange(train_length) * frequency, full_turn))
        ring = np.concatenate([seen - full_turn, seen, seen + full_turn])
        angles = np.mod(np.arange(test_length) * frequency, full_turn)
        right = np.searchsorted(ring, angles)
        nearest = np.minimum(ring[right] - angles, angles - ring[right - 1])
        gaps[index] = nearest.max()
    return gaps
