"""The lesson's exercise checkers."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...encodings import frequencies
from ...grading import Feedback, agrees_on, as_array, as_pair, close, grade, tolerance
from ...rope import apply_rope

__all__ = ["check_rope_adjacent", "check_rotate_pair", "check_unwrapped_pairs"]


def check_rotate_pair(rotate_pair: Callable) -> Feedback:
    """Lesson 07, exercise 1: ``rotate_pair(x0, x1, angle)`` turns ``(x0, x1)`` counter-clockwise.

    It must work on numbers and on numpy arrays of equal shape.

    Examples
    --------
    >>> def rotate_pair(x0, x1, angle):
    ...     c, s = np.cos(angle), np.sin(angle)
    ...     return x0 * c - x1 * s, x0 * s + x1 * c
    >>> check_rotate_pair(rotate_pair).status
    'correct'
    """
    rng = np.random.default_rng(7)
    x0, x1, angles = rng.normal(size=20), rng.normal(size=20), rng.uniform(-4, 4, size=20)
    cos, sin = np.cos(angles), np.sin(angles)
    want0, want1 = x0 * cos - x1 * sin, x0 * sin + x1 * cos

    def quarter_turn(attempt: Callable) -> str | None:
        what = "your result for (1, 0) turned by π/2"
        pair = as_pair(attempt(1.0, 0.0, np.pi / 2), what)
        named = zip(("y0", "y1"), pair, strict=True)
        got = np.concatenate([as_array(y, f"{name} for (1, 0)").ravel() for name, y in named])
        if got.shape != (2,):
            return f"{what} must be two numbers (y0, y1), got {got.size} values."
        if close(got, [0.0, -1.0]):
            return (
                "(1, 0) turned by +π/2 gave (0, −1): that is clockwise. Counter-clockwise "
                "needs y0 = x0·cos − x1·sin and y1 = x0·sin + x1·cos."
            )
        if not close(got, [0.0, 1.0]):
            return f"(1, 0) turned by π/2 should give (0, 1), got ({got[0]:.3f}, {got[1]:.3f})."
        return None

    def on_arrays(attempt: Callable) -> str | None:
        try:
            result = attempt(x0, x1, angles)
        except Exception as exc:
            if not str(exc).startswith("TypeError:"):  # the learner's error, as its text
                raise
            return (
                "your function works on single numbers but raised TypeError on numpy arrays: "
                "math.cos and math.sin take one number; np.cos and np.sin work on whole arrays."
            )
        what = "your result for arrays of 20 values"
        got = as_array(as_pair(result, what), what, shape=(2, 20))
        y0, y1 = got
        if not close(np.hypot(y0, y1), np.hypot(x0, x1), scale=1.0):
            return "a rotation keeps the length of (x0, x1); yours changes it — check the signs."
        if not (close(y0, want0, scale=1.0) and close(y1, want1, scale=1.0)):
            return "right for (1, 0) but not for general (x0, x1) — both inputs take part."
        return None

    return grade(
        "rotate one pair",
        rotate_pair,
        [quarter_turn, on_arrays],
        "multiply (x0, x1) by [[cos, −sin], [sin, cos]]; it must work on numbers and arrays.",
        call=(1.0, 0.0, 0.5),
    )


def check_rope_adjacent(rope_adjacent: Callable) -> Feedback:
    """Lesson 07, exercise 2: ``rope_adjacent(x, positions, base)`` is RoPE with adjacent pairs.

    Checked for two bases, so an answer that ignores ``base`` is caught.

    Examples
    --------
    >>> check_rope_adjacent(lambda x, positions, base: apply_rope(x, positions, base)).status
    'correct'
    """
    rng = np.random.default_rng(8)
    x = rng.normal(size=(5, 8))
    positions = np.array([0.0, 3.0, 7.0, 12.0, 100.0])
    scale = float(np.abs(x).max())

    def slip(got: np.ndarray, want: np.ndarray, x: np.ndarray, positions, base: float) -> str:
        return f"for base = {base:g}: {_rope_slip(got, x, positions, base, scale)}"

    matches = agrees_on(
        apply_rope,
        [(x, positions, base) for base in (10000.0, 500.0)],
        what=lambda x, positions, base: f"your result for base = {base:g}",
        slip=slip,
        scale=scale,
    )
    return grade(
        "RoPE, adjacent pairs",
        rope_adjacent,
        [matches],
        "angles = np.outer(positions, w) with w_k = base ** (−2k/d); then rotate "
        "(x[:, 0::2], x[:, 1::2]) with rotate_pair.",
        call=(x, positions, 10000.0),
    )


def _rope_slip(
    got: np.ndarray, x: np.ndarray, positions: np.ndarray, base: float, scale: float
) -> str:
    """The message for a wrong RoPE answer: the known slip it matches, or a general one."""

    def same(expected: np.ndarray) -> bool:
        return close(got, expected, scale=scale)

    for other in (10000.0, 500.0):
        if other != base and same(apply_rope(x, positions, other)):
            return (
                f"you returned the rotation for base {other:g}: use the base argument "
                "instead of a fixed number."
            )
    if same(apply_rope(x, positions, base, pairing="halves")):
        return (
            "you used the split-halves layout (pairs k and k + d/2); this exercise wants "
            "adjacent pairs (2k, 2k + 1), as in RoFormer."
        )
    if same(apply_rope(x, -positions, base)):
        return "you rotated clockwise: the angle is +m·w_k (counter-clockwise)."
    if same(apply_rope(x, np.arange(len(positions)), base)):
        return "you used the row index as the position; use the positions argument."
    lengths = np.linalg.norm(got.astype(np.float64), axis=1)
    if np.allclose(lengths, np.linalg.norm(x, axis=1), rtol=tolerance(got)):
        return (
            "lengths are kept but the angles are off: pair k turns by m·w_k with "
            "w_k = base ** (−2k / d), k counting pairs (0 .. d/2 − 1), not columns."
        )
    return "the rows changed length: each pair must be rotated, not scaled."


def check_unwrapped_pairs(unwrapped_pairs: Callable) -> Feedback:
    """Lesson 07, exercise 3: ``unwrapped_pairs(d_model, base, train_length)`` marks the pairs
    whose angle never completes a full turn over positions ``0 .. train_length - 1``.

    Examples
    --------
    >>> def answer(d_model, base, train_length):
    ...     return (train_length - 1) * frequencies(d_model, base) < 2 * np.pi
    >>> check_unwrapped_pairs(answer).status
    'correct'
    """
    cases = [(128, 10000.0, 512), (64, 500000.0, 4096), (16, 100.0, 50), (4, 10000.0, 7)]

    def matches(attempt: Callable) -> str | None:
        for d_model, base, length in cases:
            result = attempt(d_model, base, length)
            what = f"your result for d_model = {d_model}"
            values = as_array(result, what)
            if values.shape != (d_model // 2,):
                return (
                    f"return one entry per pair (d_model/2 = {d_model // 2}), "
                    f"got shape {values.shape}."
                )
            if np.asarray(result).dtype != bool:
                return (
                    "return booleans (True = never a full turn), "
                    f"got dtype {np.asarray(result).dtype}."
                )
            got = values.astype(bool)
            w = frequencies(d_model, base)
            expected = (length - 1) * w < 2 * np.pi
            if np.array_equal(got, expected):
                continue
            if np.array_equal(got, ~expected):
                return "you marked the pairs that DO complete a turn; invert the test."
            if np.array_equal(got, length * w < 2 * np.pi):
                return (
                    f"off by one for d = {d_model}, L = {length}: the last position is "
                    "L − 1, so the largest angle is (L − 1)·w_k."
                )
            return (
                f"wrong for d = {d_model}, base = {base:g}, L = {length}: compare (L − 1)·w_k "
                "with 2π, with w_k = base ** (−2k / d)."
            )
        return None

    return grade(
        "pairs that never turn fully in training",
        unwrapped_pairs,
        [matches],
        "the largest angle pair k reaches is (L − 1)·w_k; compare it with 2π.",
        call=(8, 10000.0, 16),
    )
