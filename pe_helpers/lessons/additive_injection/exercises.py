"""Lesson 02 exercise checkers: concatenate then project, add a position vector, a probe."""

from __future__ import annotations

import numpy as np

from ...encodings import sinusoidal_pe
from ...grading import Feedback, as_array, close, grade, tolerance

__all__ = ["check_add_position_vector", "check_concat_then_project", "check_fit_position_probe"]


def _concat_case(d: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.normal(size=d), rng.normal(size=(d, d + n))


def check_concat_then_project(answer: object) -> Feedback:
    """Check ``concat_then_project(x, position, w, n_positions)`` of lesson 02.

    It stacks the embedding ``x`` (length d) on a one-hot vector of ``n_positions``
    entries with a 1 at ``position``, and multiplies by ``w`` of shape
    ``(d, d + n_positions)``.

    Examples
    --------
    >>> def solution(x, position, w, n_positions):
    ...     return w @ np.concatenate([x, np.eye(n_positions)[position]])
    >>> check_concat_then_project(solution).status
    'correct'
    """
    d, n = 4, 6
    x, w = _concat_case(d, n, 202)

    def result(attempt, position: int) -> np.ndarray:
        return as_array(
            attempt(x, position, w, n), f"your vector for position {position}", shape=(d,)
        )

    def position_missing(attempt) -> str | None:
        if close(result(attempt, 2), w[:, :d] @ x):
            return (
                "the position part is missing: you get W_I·x only. The one-hot vector "
                "needs a 1 at index position, so that W_P contributes its column."
            )
        return None

    def off_by_one(attempt) -> str | None:
        for position in (1, 2, 3):
            got = result(attempt, position)
            for wrong in (position - 1, position + 1):
                if close(got, w[:, :d] @ x + w[:, d + wrong]):
                    return (
                        f"for position {position} your one-hot vector has its 1 at index "
                        f"{wrong}: positions count from 0, so put it at index position."
                    )
        return None

    def values(attempt) -> str | None:
        for position in range(n):
            if not close(result(attempt, position), w @ np.concatenate([x, np.eye(n)[position]])):
                return f"for position {position} the result is not W·[x; one_hot(position)]."
        return None

    return grade(
        "concatenate, then project",
        answer,
        [position_missing, off_by_one, values],
        "np.eye(n_positions)[position] is the one-hot vector; np.concatenate([x, p]) "
        "stacks; w @ ... projects.",
        call=(x, 0, w, n),
    )


def check_add_position_vector(answer: object) -> Feedback:
    """Check ``add_position_vector(x, position, w_token, w_position)`` of lesson 02.

    It must return ``w_token @ x + w_position[:, position]``: the embedding plus the
    learned vector of that position (a column of ``W_P``), equal to the
    concatenate-then-project result. A square case (as many positions as dimensions)
    comes first, so the slip ``w_position[position]`` (a row) is named rather than
    ending in numpy's broadcasting error.

    Examples
    --------
    >>> check_add_position_vector(lambda x, p, wt, wp: wt @ x + wp[:, p]).status
    'correct'
    """
    cases = [(5, 5, 212), (4, 6, 202)]  # (d, n_positions, seed): square first

    def run(attempt, d: int, n: int, seed: int, position: int) -> tuple[np.ndarray, np.ndarray]:
        x, w = _concat_case(d, n, seed)
        w_token, w_position = w[:, :d], w[:, d:]
        got = attempt(x, position, w_token, w_position)
        want = w @ np.concatenate([x, np.eye(n)[position]])
        return as_array(got, f"your vector for position {position}", shape=(d,)), want

    def row_not_column(attempt) -> str | None:
        d, n, seed = cases[0]
        x, w = _concat_case(d, n, seed)
        for position in range(n):
            got, _ = run(attempt, d, n, seed, position)
            if close(got, w[:, :d] @ x + w[position, d:]):
                return (
                    "you took a row of W_P (w_position[position]); each position owns a "
                    "COLUMN: w_position[:, position]."
                )
        return None

    def equals_concat(attempt) -> str | None:
        for d, n, seed in cases:
            for position in range(n):
                got, want = run(attempt, d, n, seed, position)
                if not close(got, want):
                    return (
                        f"with d = {d}, {n} positions: for position {position} the sum "
                        "differs from W·[x; one_hot(position)]."
                    )
        return None

    x, w = _concat_case(*cases[0])
    return grade(
        "embedding plus a learned position vector",
        answer,
        [row_not_column, equals_concat],
        "W·[x; p] = W_I·x + W_P·p, and W_P·one_hot(position) picks one COLUMN of W_P: "
        "w_position[:, position] (w_position[position] would be a row).",
        call=(x, 0, w[:, :5], w[:, 5:]),
    )


def check_fit_position_probe(answer: object) -> Feedback:
    """Check ``fit_position_probe(features, positions)`` of lesson 02.

    It returns ``d + 1`` least-squares weights: one per feature, then the bias, so that
    ``features @ weights[:-1] + weights[-1]`` predicts the positions.

    Examples
    --------
    >>> def solution(features, positions):
    ...     design = np.column_stack([features, np.ones(len(features))])
    ...     return np.linalg.lstsq(design, positions, rcond=None)[0]
    >>> check_fit_position_probe(solution).status
    'correct'
    """
    rng = np.random.default_rng(303)
    positions = rng.integers(0, 20, 120).astype(np.float64)
    features = sinusoidal_pe(positions, 8) + 0.5 * rng.normal(size=(120, 8))
    design = np.column_stack([features, np.ones(len(features))])
    best = np.linalg.lstsq(design, positions, rcond=None)[0]
    d = features.shape[1]

    def weights(attempt) -> np.ndarray:
        return as_array(attempt(features, positions), "your weights")

    def no_bias(attempt) -> str | None:
        if weights(attempt).shape == (d,):
            return (
                f"you returned {d} weights: the probe also needs a bias (an intercept), "
                "so add a column of ones to the features and return d + 1 weights."
            )
        return None

    def shape(attempt) -> str | None:
        got = weights(attempt)
        return None if got.shape == (d + 1,) else f"return {d + 1} weights, got shape {got.shape}."

    def bias_first(attempt) -> str | None:
        got = weights(attempt)
        if close(got, np.r_[best[-1], best[:-1]]) and not close(got, best):
            return "put the bias last: weights[:-1] multiply the features, weights[-1] is added."
        return None

    def least_squares(attempt) -> str | None:
        got = weights(attempt)
        residual = float(np.sum((design @ got.astype(np.float64) - positions) ** 2))
        optimum = float(np.sum((design @ best - positions) ** 2))
        if residual > optimum * (1 + 10 * tolerance(got)):
            return (
                f"these weights are not the least-squares fit: squared error {residual:.4g}, "
                f"the best possible is {optimum:.4g}."
            )
        return None

    return grade(
        "fit a linear position probe",
        answer,
        [no_bias, shape, bias_first, least_squares],
        "design = np.column_stack([features, np.ones(len(features))]); "
        "np.linalg.lstsq(design, positions, rcond=None)[0].",
        call=(features, positions),
    )
