"""The lesson's exercise checkers."""

from __future__ import annotations

import numpy as np

from ...encodings import frequencies
from ...grading import (
    AnswerProblem,
    Feedback,
    as_array,
    as_number,
    as_pair,
    close,
    grade,
    tolerance,
    value_of,
)

__all__ = ["check_rotation_angle", "check_shift_block", "check_sin_collision"]


def _shift_block(delta: float, w: float) -> np.ndarray:
    c, s = np.cos(w * delta), np.sin(w * delta)
    return np.array([[c, s], [-s, c]])


def check_shift_block(shift_block) -> Feedback:
    """Exercise 1: ``shift_block(delta, w)`` is the 2×2 matrix taking (sin wt, cos wt) to t + Δ.

    Examples
    --------
    >>> def shift_block(delta, w):
    ...     c, s = np.cos(w * delta), np.sin(w * delta)
    ...     return np.array([[c, s], [-s, c]])
    >>> check_shift_block(shift_block).status
    'correct'
    """
    cases = [(0.7, 1.0), (2.0, 0.3), (-1.5, 2.0), (10.0, 0.01)]

    def block(answer, delta: float, w: float) -> np.ndarray:
        return as_array(answer(delta, w), f"shift_block({delta:g}, {w:g})", shape=(2, 2))

    def seed_sign(answer) -> str | None:
        if close(block(answer, 0.7, 1.0), _shift_block(-0.7, 1.0)):
            return (
                "this is the source article's matrix [[cos, −sin], [sin, cos]]: it maps pairs "
                "ordered (cos, sin), and on our (sin, cos) pairs it shifts by −Δ. From "
                "sin(a+b) = sin a·cos b + cos a·sin b the top row is [cos wΔ, sin wΔ], so the "
                "minus sign belongs bottom-left."
            )
        return None

    def uses_frequency(answer) -> str | None:
        ignores_w = _shift_block(2.0, 1.0)
        if close(block(answer, 2.0, 1.0), ignores_w) and close(block(answer, 2.0, 0.3), ignores_w):
            return "right for w = 1 but not for w = 0.3: the pair turns by the angle w·Δ, not Δ."
        return None

    def maps_pe(answer) -> str | None:
        for delta, w in cases:
            if not close(block(answer, delta, w), _shift_block(delta, w)):
                return (
                    f"for Δ = {delta:g}, w = {w:g} your matrix does not take "
                    "(sin wt, cos wt) to (sin w(t+Δ), cos w(t+Δ)); expand both with the "
                    "angle-addition formulas."
                )
        return None

    return grade(
        "2×2 shift block",
        shift_block,
        [seed_sign, uses_frequency, maps_pe],
        "write sin(w(t+Δ)) and cos(w(t+Δ)) with the angle-addition formulas and read off "
        "the coefficients of sin(wt) and cos(wt).",
        call=(0.7, 1.0),
    )


#: Largest |t| a collision answer may use: beyond it rounding blurs "equal sines".
_COLLISION_LIMIT = 10_000.0


def check_sin_collision(answer: object) -> Feedback:
    """Exercise 2: two positions with equal sin(t) but different sin(t + 1) (w = 1, Δ = 1).

    ``answer`` is a pair ``(t1, t2)``, or a function with no arguments returning one.

    Examples
    --------
    >>> check_sin_collision((1.0, np.pi - 1.0)).status
    'correct'
    """

    def positions(answer: object) -> tuple[float, float, float]:
        first, second = as_pair(value_of(answer), "your answer (t1, t2)")
        t1, t2 = as_number(first, "t1"), as_number(second, "t2")
        if max(abs(t1), abs(t2)) > _COLLISION_LIMIT:
            raise AnswerProblem(
                f"keep both positions within ±{_COLLISION_LIMIT:,.0f} (got {t1:g}, {t2:g}): "
                "that far out, rounding decides whether two sines are equal."
            )
        return t1, t2, tolerance(first, second)

    def distinct(answer: object) -> str | None:
        t1, t2, _ = positions(answer)
        if abs(t1 - t2) < 1e-3:
            return f"t1 and t2 must be different positions, got {t1:g} and {t2:g}."
        if np.allclose(sorted([t1, t2]), [0.5, np.pi - 0.5]):
            return "that is the pair used in the lesson; find another one."
        return None

    def same_sin(answer: object) -> str | None:
        t1, t2, rtol = positions(answer)
        if abs(np.sin(t1) - np.sin(t2)) > rtol * max(1.0, abs(t1), abs(t2)):
            return (
                f"sin(t1) = {np.sin(t1):.4f} but sin(t2) = {np.sin(t2):.4f}: the sin feature "
                "must be equal at both positions."
            )
        return None

    def different_after(answer: object) -> str | None:
        t1, t2, _ = positions(answer)
        gap = abs(np.sin(t1 + 1.0) - np.sin(t2 + 1.0))
        if gap < 0.1:
            return (
                f"sin(t1 + 1) and sin(t2 + 1) differ by only {gap:.4f}. If the positions are "
                "a whole period 2π apart they agree forever; use the mirror point t2 = π − t1 "
                "with t1 away from π/2."
            )
        return None

    return grade(
        "sin alone cannot be shifted",
        answer,
        [distinct, same_sin, different_after],
        "sin(π − t) = sin(t): the mirror point has the same sin but moves the other way.",
    )


def check_rotation_angle(answer: object) -> Feedback:
    """Exercise 3: degrees turned by pair k = 1 of a d = 4 encoding (base 10000) for Δ = 100.

    ``answer`` is the angle in degrees (a number), or a function with no arguments returning it.

    Examples
    --------
    >>> check_rotation_angle(57.3).status
    'correct'
    """
    truth = float(np.degrees(frequencies(4)[1] * 100.0))
    slips = [
        (np.radians(truth), 1e-3, "that is the angle in radians; the question asks for degrees."),
        (
            np.degrees(10000.0 ** (-4 / 4) * 100.0),
            0.01,
            "you used the column index i = 2 in the exponent: w_k = base^(−2k/d) with k = 1 "
            "the pair index, so w_1 = 10000^(−1/2).",
        ),
        (np.degrees(100.0), 1.0, "that angle uses w = 1, the frequency of pair k = 0, not k = 1."),
    ]

    def angle(answer: object) -> str | None:
        got = as_number(value_of(answer), "the angle")
        for value, within, message in slips:
            if abs(got - value) < within:
                return message
        if abs(got - truth) > 0.1:
            return f"{got:g}° is not the angle w_1·Δ (in degrees) to within 0.1°."
        return None

    return grade(
        "rotation angle",
        answer,
        [angle],
        "angle = w_k·Δ with w_k = base^(−2k/d); convert radians to degrees with np.degrees.",
    )
