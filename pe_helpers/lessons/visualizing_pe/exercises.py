"""The lesson's exercise checkers."""

from __future__ import annotations

import numpy as np

from ...grading import Feedback, as_integer, as_number, close, grade, value_of
from .maths import dot_profile

__all__ = ["check_dot_from_frequencies", "check_dot_value", "check_first_rise"]


def check_dot_from_frequencies(dot_from_frequencies) -> Feedback:
    """Exercise 1: ``dot_from_frequencies(delta, d_model, base)`` returns PE(t)·PE(t+Δ).

    Examples
    --------
    >>> from pe_helpers import frequencies
    >>> check_dot_from_frequencies(
    ...     lambda delta, d_model, base=10000.0: np.cos(frequencies(d_model, base) * delta).sum()
    ... ).status
    'correct'
    """
    cases = [(1.0, 8, 10000.0), (10.0, 128, 10000.0), (-3.5, 16, 100.0), (7.0, 2, 10000.0)]

    def value(answer, delta: float, d_model: int, base: float) -> np.floating:
        """The learner's number, in its own precision (the tolerance follows it)."""
        what = f"dot_from_frequencies({delta:g}, {d_model}, {base:g})"
        return as_number(answer(delta, d_model, base), what, keep_dtype=True)

    def whole_sum(answer) -> str | None:
        got = value(answer, 10.0, 128, 10000.0)
        if abs(got - np.cos(10.0)) < 1e-4:
            return (
                "you returned a single term cos(w_0·Δ) — the source article's proof makes this "
                "slip; the dot product sums cos(w_k·Δ) over all d/2 pairs."
            )
        return None

    def zero_offset(answer) -> str | None:
        got = value(answer, 0.0, 16, 10000.0)
        if close(got, 16.0, scale=8.0):
            return (
                "at Δ = 0 you return d = 16, but each (sin, cos) pair adds sin² + cos² = 1, "
                "so |PE(t)|² = d/2 = 8: sum over the d/2 pairs, not the d dimensions."
            )
        if not close(got, 8.0, scale=8.0):
            return f"at Δ = 0 the dot product is |PE(t)|² = d/2 = 8 for d = 16; got {got:g}."
        return None

    def matches(answer) -> str | None:
        for delta, d_model, base in cases:
            expected = float(dot_profile([delta], d_model, base)[0])
            got = value(answer, delta, d_model, base)
            if not close(got, expected, scale=d_model / 2):
                return (
                    f"for Δ = {delta:g}, d = {d_model}, base = {base:g} the dot product is "
                    f"{expected:.4f}, you returned {got:.4f}; check that the base is used."
                )
        return None

    return grade(
        "dot product from frequencies",
        dot_from_frequencies,
        [whole_sum, zero_offset, matches],
        "sin(a)·sin(b) + cos(a)·cos(b) = cos(b − a): each pair contributes cos(w_k·Δ); "
        "add them up with frequencies(d_model, base).",
        call=(1.0, 8, 10000.0),
    )


def check_dot_value(answer: object) -> Feedback:
    """Exercise 2: PE(t)·PE(t+5) for d = 64, base 10000, to two decimals.

    ``answer`` is a number, or a function with no arguments returning one.

    Examples
    --------
    >>> check_dot_value(23.50).status
    'correct'
    """
    truth = float(dot_profile([5.0], 64)[0])
    slips = [
        (32.0, "32 = d/2 is the value at Δ = 0; here Δ = 5."),
        (float(np.cos(5.0)), "that is only the first term cos(w_0·5); sum over all 32 pairs."),
        (
            float(dot_profile([5.0], 128)[0]),
            "that is the value for d = 128; the question asks for d = 64.",
        ),
    ]

    def dot(answer: object) -> str | None:
        got = as_number(value_of(answer), "the dot product")
        for value, message in slips:
            if abs(got - value) < 0.01:
                return message
        if abs(got - truth) > 0.01:
            return f"{got:.4f} is not within 0.01 of PE(t)·PE(t+5) for d = 64."
        return None

    return grade(
        "dot product at Δ = 5",
        answer,
        [dot],
        "compute Σ_k cos(w_k·5) with w = frequencies(64), or take PE(0)·PE(5) directly.",
    )


def check_first_rise(answer: object) -> Feedback:
    """Exercise 3: the smallest whole Δ ≥ 1 with dot(Δ) > dot(Δ − 1), for d = 128.

    ``answer`` is a whole number, or a function with no arguments returning one.

    Examples
    --------
    >>> check_first_rise(12).status
    'correct'
    """
    dots = dot_profile(200, 128)
    truth = int(np.flatnonzero(np.diff(dots) > 0)[0] + 1)

    def rise(answer: object) -> str | None:
        got = as_integer(value_of(answer), "Δ")
        if not 1 <= got < dots.size:
            return f"Δ must be a whole number between 1 and {dots.size - 1}, got {got}."
        if dots[got] <= dots[got - 1]:
            return (
                f"at Δ = {got} the curve still falls: dot({got}) = {dots[got]:.2f} ≤ "
                f"dot({got - 1}) = {dots[got - 1]:.2f}."
            )
        if got > truth:
            return "the curve does rise there, but it already rose at a smaller Δ."
        return None

    return grade(
        "first rise",
        answer,
        [rise],
        "compute the dot product for Δ = 0 .. 199 and look for the first Δ where np.diff(...) > 0.",
    )
