"""The lesson's exercise checkers."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...attention import relative_deviation
from ...encodings import sinusoidal_pe
from ...grading import Feedback, as_array, as_pair, close, grade, tolerance
from .maths import random_projection

__all__ = ["check_position_position", "check_relative_projections"]


def check_position_position(position_position: Callable) -> Feedback:
    """Lesson 06, exercise 1: ``position_position(p, w_q, w_k)`` returns ``p W_Q W_Kᵀ pᵀ``.

    Examples
    --------
    >>> check_position_position(lambda p, w_q, w_k: (p @ w_q) @ (p @ w_k).T).status
    'correct'
    """
    p = sinusoidal_pe(6, 8)
    w_q = random_projection(8, seed=11)
    w_k = random_projection(8, seed=12)
    expected = (p @ w_q) @ (p @ w_k).T
    scale = float(np.abs(expected).max())

    def matches(attempt: Callable) -> str | None:
        got = as_array(attempt(p, w_q, w_k), "your result", shape=(6, 6))
        if close(got, expected, scale=scale):
            return None
        if close(got, expected.T, scale=scale):
            return (
                "you returned the transpose: row i must be the query position "
                "(p_i W_Q) and column j the key position (p_j W_K)."
            )
        if close(got, p @ w_q @ w_k @ p.T, scale=scale):
            return "W_K needs a transpose: the key is k_j = p_j W_K, so the term is q_i · k_j."
        if close(got, p @ p.T, scale=scale):
            return "that is p pᵀ: the projections W_Q and W_K are missing."
        return "the values differ from (p W_Q)(p W_K)ᵀ."

    return grade(
        "position–position term",
        position_position,
        [matches],
        "queries are p @ w_q, keys are p @ w_k, and the scores are queries @ keys.T.",
        call=(p, w_q, w_k),
    )


def check_relative_projections(relative_projections: Callable) -> Feedback:
    """Lesson 06, exercise 2: ``relative_projections(d_model)`` returns a pair ``(w_q, w_k)``.

    ``W_Q W_Kᵀ`` must not be a multiple of the identity, and the position–position
    term ``p W_Q W_Kᵀ pᵀ`` must depend on ``j - i`` only (checked for d = 8 and 16).

    Examples
    --------
    >>> def answer(d_model):
    ...     return np.diag(np.repeat(np.arange(1.0, d_model // 2 + 1), 2)), np.eye(d_model)
    >>> check_relative_projections(answer).status
    'correct'
    """
    widths = (8, 16)

    def projections(attempt: Callable, d_model: int) -> tuple[np.ndarray, np.ndarray]:
        w_q, w_k = as_pair(attempt(d_model), f"your result for d_model = {d_model}")
        shape = (d_model, d_model)
        return as_array(w_q, "w_q", shape=shape), as_array(w_k, "w_k", shape=shape)

    def not_trivial(attempt: Callable) -> str | None:
        for d_model in widths:
            w_q, w_k = projections(attempt, d_model)
            m = w_q.astype(np.float64) @ w_k.astype(np.float64).T
            scale = float(np.abs(m).max())
            if scale == 0.0:
                return f"W_Q W_Kᵀ is zero for d = {d_model}: every score is 0, no information."
            if close(m, m[0, 0] * np.eye(d_model), scale=scale):
                return (
                    f"W_Q W_Kᵀ is a multiple of the identity for d = {d_model} — that case "
                    "we already know; find one that is not."
                )
        return None

    def relative(attempt: Callable) -> str | None:
        for d_model in widths:
            w_q, w_k = projections(attempt, d_model)
            p = sinusoidal_pe(40, d_model)
            deviation = relative_deviation((p @ w_q) @ (p @ w_k).T)
            if deviation > 10 * tolerance(w_q, w_k):
                return (
                    f"for d = {d_model} the position–position term is not relative "
                    f"(deviation {deviation:.3f}). M = W_Q W_Kᵀ must not mix different "
                    "(sin, cos) pairs, and each 2x2 block must commute with rotations "
                    "(a·I + b·[[0, −1], [1, 0]])."
                )
        return None

    return grade(
        "projections that keep the term relative",
        relative_projections,
        [not_trivial, relative],
        "try W_K = I and a W_Q that scales each (sin, cos) pair by its own number.",
        call=(8,),
    )
