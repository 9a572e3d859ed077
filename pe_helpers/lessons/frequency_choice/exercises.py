"""Lesson 03 exercise checkers: pair frequencies, one row of the encoding, longest wavelength."""

from __future__ import annotations

import numpy as np

from ...encodings import frequencies, sinusoidal_pe
from ...grading import Feedback, as_array, as_number, close, grade
from .maths import column_reading_pe

__all__ = ["check_longest_wavelength", "check_pair_frequencies", "check_pe_row"]

#: The exponent slip every checker of this lesson looks for first.
EXPONENT_HINT = (
    "check the exponent: in w_k = base^(-2k/d) the k counts (sin, cos) PAIRS, k = 0 .. d/2 - 1. "
    "Reading 2i/d with i the COLUMN index (0 .. d-1) double-counts: the exponent runs to "
    "almost 2 instead of almost 1 and sin and cos of a pair get different frequencies."
)


def _matches(got: np.ndarray, want: np.ndarray) -> bool:
    return got.shape == np.shape(want) and close(got, want)


def _misread(d_model: int, base: float) -> list[np.ndarray]:
    """Frequencies from the two misreadings of ``2i/d``: per column, and ``4k/d`` per pair."""
    i, k = np.arange(d_model), np.arange(d_model // 2)
    return [base ** (-2.0 * i / d_model), base ** (-4.0 * k / d_model)]


def _interleave(w: np.ndarray, t: float) -> np.ndarray:
    return np.stack([np.sin(w * t), np.cos(w * t)], axis=1).ravel()


def check_pair_frequencies(answer: object) -> Feedback:
    """Check ``pair_frequencies(d_model, base)``: ``w_k = base^(-2k/d)``, k = 0 .. d/2 - 1.

    Examples
    --------
    >>> check_pair_frequencies(lambda d, b: b ** (-2 * np.arange(d // 2) / d)).status
    'correct'
    """
    cases = [(8, 10000.0), (16, 100.0), (128, 10000.0)]

    def got(f, d, b):
        return as_array(f(d, b), f"your frequencies for d = {d}, base = {b:g}")

    def exponent(f):
        if any(_matches(got(f, d, b), slip) for d, b in cases for slip in _misread(d, b)):
            return EXPONENT_HINT
        return None

    def count(f):
        for d, b in cases:
            if got(f, d, b).shape != (d // 2,):
                return (
                    f"one frequency per (sin, cos) pair: d = {d} needs shape ({d // 2},), "
                    f"got {got(f, d, b).shape}."
                )
        return None

    def slips(f):
        k = np.arange(4.0)
        if _matches(got(f, 8, 10000.0), 10000.0 ** (2 * k / 8)):
            return "the sign of the exponent is flipped: frequencies fall from 1 towards 1/base."
        if _matches(got(f, 8, 10000.0), 10000.0 ** (-k / 8)):
            return "the exponent is k/d; it should be 2k/d (the last pair then gets nearly 1/base)."
        return None

    def values(f):
        for d, b in cases:
            if not close(got(f, d, b)[0], 1.0):
                return f"the first pair (k = 0) has frequency base^0 = 1, got {got(f, d, b)[0]:g}."
            if not close(got(f, d, b), frequencies(d, b)):
                return f"for d = {d}, base = {b:g} the frequencies do not match base^(-2k/d)."
        return None

    return grade(
        "frequencies of the pairs",
        answer,
        [exponent, count, slips, values],
        "one frequency per pair: w_k = base^(-2k/d) for k = 0, 1, ..., d/2 - 1.",
        call=cases[0],
    )


def check_pe_row(answer: object) -> Feedback:
    """Check ``pe_row(t, d_model, base)``: ``row[2k] = sin(w_k t)``, ``row[2k+1] = cos(w_k t)``.

    Examples
    --------
    >>> check_pe_row(lambda t, d, b: sinusoidal_pe([t], d, b)[0]).status
    'correct'
    """
    cases = [(3.0, 8, 10000.0), (7.5, 16, 100.0), (41.0, 64, 10000.0)]

    def row(f, t, d, b):
        return as_array(f(t, d, b), f"your row for t = {t:g}, d = {d}")

    def shape(f):
        for t, d, b in cases:
            if row(f, t, d, b).shape != (d,):
                return f"the row for d = {d} should have shape ({d},), got {row(f, t, d, b).shape}."
        return None

    def bounded(f):
        if any(np.abs(row(f, *case)).max() > 1.001 for case in cases):
            return "sin and cos stay in [-1, 1], but your row has larger values."
        return None

    def exponent(f):
        for t, d, b in cases:
            got, by_pair = row(f, t, d, b), _interleave(_misread(d, b)[1], t)
            if _matches(got, column_reading_pe([t], d, b)[0]) or _matches(got, by_pair):
                return EXPONENT_HINT
        return None

    def layout(f):
        t, d, b = cases[1]
        got, want = row(f, t, d, b), sinusoidal_pe([t], d, b)[0]
        if _matches(got, _interleave(1.0 / frequencies(d, b), t)):
            return "you divided t by w_k; the angle is w_k · t = t / base^(2k/d)."
        if _matches(got, want.reshape(-1, 2)[:, ::-1].ravel()):
            return "sin and cos are swapped: column 2k is sin(w_k t), column 2k + 1 is cos(w_k t)."
        if _matches(got, np.concatenate([want[0::2], want[1::2]])):
            return (
                "you put all sines first and all cosines second; this course interleaves "
                "them: sin at even columns, cos at odd columns."
            )
        return None

    def values(f):
        for t, d, b in cases:
            if not close(row(f, t, d, b), sinusoidal_pe([t], d, b)[0]):
                return f"for t = {t:g}, d = {d}, base = {b:g} the row is not the encoding."
        return None

    return grade(
        "the encoding of one position",
        answer,
        [shape, bounded, exponent, layout, values],
        "compute the d/2 pair frequencies w_k first; then the even columns (row[0::2]) "
        "take sin(w_k t) and the odd columns (row[1::2]) cos(w_k t).",
        call=cases[0],
    )


def check_longest_wavelength(answer: object) -> Feedback:
    """Check ``longest_wavelength(d_model, base)``: ``2π · base^((d-2)/d)``.

    Examples
    --------
    >>> check_longest_wavelength(lambda d, b: 2 * np.pi * b ** ((d - 2) / d)).status
    'correct'
    """
    cases = [(128, 10000.0), (8, 100.0), (2, 10000.0)]

    def got(f, d, b):
        return as_number(f(d, b), f"your wavelength for d = {d}, base = {b:g}", keep_dtype=True)

    def slips(f):
        if all(close(got(f, d, b), 2 * np.pi * b) for d, b in cases[:2]):
            return (
                "2π·base is a bound, not the value: the last pair has k = d/2 - 1, so its "
                "exponent is 2k/d = (d - 2)/d, just under 1."
            )
        if all(close(got(f, d, b), b ** ((d - 2) / d)) for d, b in cases[:2]):
            return "that is 1/w of the last pair; a wavelength is 2π / w (don't forget 2π)."
        for d, b in cases[:2]:
            misread = [2 * np.pi * b ** (2 * (d - 1) / d), 2 * np.pi * b ** (2 * (d - 2) / d)]
            if any(close(got(f, d, b), slip) for slip in misread):
                return EXPONENT_HINT
        return None

    def values(f):
        for d, b in cases:
            want = 2 * np.pi * b ** ((d - 2) / d)
            if not close(got(f, d, b), want):
                return f"for d = {d}, base = {b:g} expected {want:.6g}, got {got(f, d, b):.6g}."
        return None

    return grade(
        "the longest wavelength",
        answer,
        [slips, values],
        "the slowest pair is k = d/2 - 1; its wavelength is 2π / w_k.",
        call=cases[0],
    )
