"""Lesson 11 · Conventions and numerics: the exercise checkers.

See :mod:`pe_helpers.lessons.conventions_and_numerics` for the lesson's overview.
"""

from __future__ import annotations

from collections.abc import Callable

import ml_dtypes
import numpy as np

from ...conventions import identify_rope
from ...encodings import frequencies
from ...grading import AnswerProblem, Attempt, Feedback, as_array, as_pair, grade
from ...numerics import largest_exact_integer

_PAIR_WORDS = {"adjacent": "neighbouring features (2k, 2k+1)",
               "halves": "feature k with feature k + d/2"}


def _detector_says(answer: object, pairing: str, what: str) -> str | None:
    """Run the learner's ``f(x, positions, base)`` through identify_rope at two bases."""
    function = answer.function if isinstance(answer, Attempt) else answer
    for base in (10000.0, 500.0):
        report = identify_rope(lambda x, t, b=base: function(x, t, b), 16,  # noqa: B023
                               expected_base=base, expected_pairing=pairing)
        if report.issues == ("pairing",):
            return (f"{what} pairs {_PAIR_WORDS[report.pairing]}; this one should pair "
                    f"{_PAIR_WORDS[pairing]}.")
        if not report.ok:
            return f"with base = {base:g} the detector reads: " + " ".join(report.messages)
    return None


def check_rope_complex(rope_complex: Callable) -> Feedback:
    """Lesson 11, exercise 1: ``rope_complex(x, positions, base)``, RoPE as Meta's Llama code does.

    Graded by :func:`~pe_helpers.conventions.identify_rope` alone, at bases 10000 and 500:
    adjacent pairs, counter-clockwise, ``t * base ** (-2k / d)``.

    Examples
    --------
    >>> from pe_helpers.rope import apply_rope
    >>> check_rope_complex(lambda x, t, base: apply_rope(x, t, base)).status
    'correct'
    """
    x = np.random.default_rng(11).normal(size=(3, 16))
    return grade(
        "RoPE with complex numbers",
        rope_complex,
        [lambda answer: _detector_says(answer, "adjacent", "your function")],
        "z = x[:, 0::2] + 1j * x[:, 1::2]; multiply z by np.exp(1j * angles) with angles = "
        "np.outer(positions, base ** (-np.arange(0, d, 2) / d)); put z.real back in the even "
        "columns and z.imag in the odd ones.",
        call=(x, np.array([0.0, 1.0, 5.0]), 10000.0),
    )


#: The "spot the error" snippets of exercise 2: the pairing each is meant to have, and a hint.
SNIPPETS: dict[str, tuple[str, str]] = {
    "A": ("adjacent", "work out inv_freq for the first two pairs by hand: pair 0 turns by one "
                      "radian per position, and each later pair turns more slowly."),
    "B": ("adjacent", "which exponent does the last pair get? It should be just above -1 "
                      "(the slowest pair turns by about 1/base per position), never below."),
    "C": ("halves", "print the first row of cos: which features share a cosine? Which "
                    "features does rotate_half turn together?"),
}


def check_snippet(letter: str, fixed: Callable) -> Feedback:
    """Lesson 11, exercise 2: the corrected snippet ``letter`` (``"A"``, ``"B"`` or ``"C"``).

    Each snippet is a RoPE function ``f(x, positions, base)`` with one slip; the fixed function
    is graded by :func:`~pe_helpers.conventions.identify_rope`, at bases 10000 and 500, against
    the pairing the snippet is meant to have (:data:`SNIPPETS`).

    Examples
    --------
    >>> from pe_helpers.rope import apply_rope
    >>> check_snippet("A", lambda x, t, base: apply_rope(x, t, base)).status
    'correct'
    """
    if letter not in SNIPPETS:
        raise ValueError(f"letter must be one of {sorted(SNIPPETS)}, got {letter!r}")
    pairing, hint = SNIPPETS[letter]
    x = np.random.default_rng(12).normal(size=(3, 16))
    return grade(
        f"spot the error {letter}",
        fixed,
        [lambda answer: _detector_says(answer, pairing, "your fix")],
        hint,
        call=(x, np.array([0.0, 1.0, 5.0]), 10000.0),
    )


_CACHE_CASES = ((4096, 64, np.dtype(ml_dtypes.bfloat16)), (4096, 64, np.dtype(np.float16)))


def check_cos_sin_cache(cos_sin_cache: Callable) -> Feedback:
    """Lesson 11, exercise 3: ``cos_sin_cache(n_positions, d_model, dtype)`` → ``(cos, sin)``.

    Both ``(n_positions, d_model // 2)`` in ``dtype``, base 10000. Graded by the angle each
    (cos, sin) pair encodes: within a few roundings of ``dtype`` of ``t * base ** (-2k / d)`` at
    every one of 4,096 positions, in bfloat16 and in float16.

    Examples
    --------
    >>> def cos_sin_cache(n_positions, d_model, dtype):
    ...     angles = np.outer(np.arange(n_positions), frequencies(d_model))
    ...     return np.cos(angles).astype(dtype), np.sin(angles).astype(dtype)
    >>> check_cos_sin_cache(cos_sin_cache).status
    'correct'
    """

    def angles_hold(attempt: Callable) -> str | None:
        for n, d, dtype in _CACHE_CASES:
            cos, sin = as_pair(attempt(n, d, dtype), f"your cache for {dtype.name}")
            for name, values in (("cos", cos), ("sin", sin)):
                if not isinstance(values, np.ndarray):
                    raise AnswerProblem(f"{name} must be a numpy array, got "
                                        f"{type(values).__name__}.")
                if values.dtype != dtype:
                    return (f"for {dtype.name} your {name} comes back as {values.dtype}: cast cos "
                            "and sin to the requested dtype at the very end (the model stores "
                            "its cache in its own dtype).")
                as_array(values.astype(np.float64), f"your {name} for {dtype.name}",
                         shape=(n, d // 2))
            problem = _cache_slip(cos.astype(np.float64), sin.astype(np.float64), dtype)
            if problem:
                return problem
        return None

    return grade(
        "a cos/sin cache that survives low precision",
        cos_sin_cache,
        [angles_hold],
        "compute inv_freq and np.outer(positions, inv_freq) in float64 (or float32), take cos "
        "and sin there, and only then .astype(dtype).",
        call=_CACHE_CASES[0],
    )


def _cache_slip(cos: np.ndarray, sin: np.ndarray, dtype: np.dtype) -> str | None:
    n, half = cos.shape
    reference = np.multiply.outer(np.arange(n), frequencies(2 * half))
    error = np.abs(np.pi - np.mod(np.pi - (np.arctan2(sin, cos) - reference), 2 * np.pi))
    tolerance = 8 * 2.0 ** -(ml_dtypes.finfo(dtype).nmant + 1)
    if error.max() <= tolerance:
        return None
    swapped = np.abs(np.pi - np.mod(np.pi - (np.arctan2(cos, sin) - reference), 2 * np.pi))
    if swapped.max() <= tolerance:
        return "cos and sin are swapped: return (cos, sin) in that order."
    exact = largest_exact_integer(dtype)
    early = error[: exact + 1].max()
    if early > tolerance:
        return (f"already at positions up to {exact:,}, which {dtype.name} holds exactly, the "
                f"angles are off by up to {early:.2g} rad: the frequencies or the products "
                f"t·θ were rounded to {dtype.name}. Compute them in float32 or float64.")
    return (f"positions up to {exact:,} are right, but past them the angles are off by up to "
            f"{error.max():.2g} rad: {dtype.name} holds every integer only up to {exact:,}, so "
            "the positions were rounded. Make them float32 or float64; cast only cos and sin.")
