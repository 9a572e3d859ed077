"""Lesson 09 · The family of position methods: the exercise checkers.

See :mod:`pe_helpers.lessons.position_methods` for the lesson's overview.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

import numpy as np

from ...biases import t5_relative_bucket
from ...grading import AnswerProblem, Feedback, as_array, grade, shown, value_of
from .maths import PANELS

__all__ = [
    "check_method_names",
    "check_t5_bucket",
]

_BUCKET_CASES = ((True, 32, 128), (False, 32, 128), (True, 16, 64), (False, 16, 64))
_OFFSETS = np.arange(-300, 301)


def check_t5_bucket(bucket: Callable) -> Feedback:
    """Lesson 09, exercise 1: ``bucket(relative_position, bidirectional, num_buckets,
    max_distance)`` must equal :func:`~pe_helpers.biases.t5_relative_bucket` on the offsets
    -300 .. 300, both modes, for (32, 128) and (16, 64).

    Examples
    --------
    >>> check_t5_bucket(lambda r, b, n, m: t5_relative_bucket(
    ...     r, bidirectional=b, num_buckets=n, max_distance=m)).status
    'correct'
    """

    def matches(attempt: Callable) -> str | None:
        for values in _BUCKET_CASES:
            named = dict(zip(("bidirectional", "num_buckets", "max_distance"), values, strict=True))
            case = ", ".join(f"{key}={value}" for key, value in named.items())
            got = as_array(
                attempt(_OFFSETS.copy(), *values), f"your buckets for {case}", shape=_OFFSETS.shape
            )
            want = t5_relative_bucket(_OFFSETS, **named)
            if np.array_equal(got, want):
                continue
            wrong = _OFFSETS[got != want]
            slip = _bucket_slip(got, *values)
            return (
                f"for {case} your buckets differ at {wrong.size} offsets (first: "
                f"{wrong[0]}, bucket {got[_OFFSETS == wrong[0]][0]:g} instead of "
                f"{want[_OFFSETS == wrong[0]][0]}). {slip}"
            )
        return None

    return grade(
        "T5 buckets",
        bucket,
        [matches],
        "per side: distances below num_buckets // 2 keep their own bucket; larger ones get "
        "max_exact + floor(log(d / max_exact) / log(max_distance / max_exact) * (n - max_exact)),"
        " at most n - 1 (n: the buckets of one side, max_exact = n // 2).",
        call=(_OFFSETS.copy(), True, 32, 128),
    )


def _reference(
    rel: np.ndarray,
    bidirectional: bool,
    n: int,
    max_distance: int,
    *,
    upper=lambda r: r > 0,
    halve: bool = True,
    clamp: bool = True,
    causal_distance=lambda r: -np.minimum(r, 0),
    rounding=np.floor,
) -> np.ndarray:
    """The bucket rule with one step changeable, to recognise a learner's slip."""
    base = np.zeros(rel.shape, dtype=np.int64)
    if bidirectional:
        n = n // 2 if halve else n
        base = base + upper(rel) * n
        distance = np.abs(rel)
    else:
        distance = causal_distance(rel)
    exact = n // 2
    with np.errstate(divide="ignore"):
        scaled = (
            np.log(np.maximum(distance, 1) / exact) / np.log(max_distance / exact) * (n - exact)
        )
    large = exact + rounding(scaled).astype(np.int64)
    if clamp:
        large = np.minimum(large, n - 1)
    return base + np.where(distance < exact, distance, large)


def _bucket_slip(got: np.ndarray, bidirectional: bool, n: int, max_distance: int) -> str:
    slips = (
        (
            dict(upper=lambda r: r >= 0),
            "Offset 0 belongs to the lower half: only keys after "
            "the query (j - i > 0) go to the upper buckets.",
        ),
        (
            dict(halve=False),
            "When bidirectional, each sign gets num_buckets // 2 buckets: "
            "halve num_buckets before splitting exact and log-spaced ones.",
        ),
        (
            dict(clamp=False),
            "Distances past max_distance must all share the last bucket: "
            "clamp with np.minimum(..., n - 1).",
        ),
        (
            dict(causal_distance=np.abs),
            "In causal mode a key after the query (j - i > 0) is "
            "never seen: those offsets all go to bucket 0; the distance is -min(j - i, 0).",
        ),
        (
            dict(rounding=np.round),
            "The log-spaced part is truncated (floor, or int()), not rounded.",
        ),
    )
    for change, message in slips:
        if np.array_equal(got, _reference(_OFFSETS, bidirectional, n, max_distance, **change)):
            return message
    if np.array_equal(got, _reference(-_OFFSETS, bidirectional, n, max_distance)):
        return (
            "Your buckets are mirrored: relative_position is key minus query (j - i), "
            "so a key before the query has a negative offset."
        )
    return "Compare your function with the rule in the hint, one offset at a time."


_NAMES = {
    "t5_bias": ("t5", "t5bias", "t5relativebias", "t5buckets", "buckets", "t5relative"),
    "learned": (
        "learned",
        "learnedabsolute",
        "absolute",
        "learnedposition",
        "learnedpositionembedding",
        "absolutelearned",
    ),
    "rope": ("rope", "rotary", "ropeadjacent", "ropehalves", "rotarypositionembedding"),
    "alibi": ("alibi", "linearbias", "linearbiases", "attentionwithlinearbiases"),
}
_HINTS = {
    "t5_bias": "each diagonal has one colour, but the colours follow no formula, and far "
    "from the diagonal several neighbouring diagonals share one colour.",
    "learned": "the colours do not repeat along the diagonals: the score depends on where "
    "each of the two positions is, not on their offset.",
    "rope": "each diagonal has one colour, and the colour swings up and down as the offset "
    "grows, like a sum of waves.",
    "alibi": "it is symmetric and darkens in a straight line with |i - j|.",
}


def _method_of(name: object, panel: str) -> str:
    if not isinstance(name, str):
        raise AnswerProblem(f"panel {panel}: give a method's name as text, got {shown(name)}.")
    key = re.sub(r"[\s_\-]", "", name.lower())
    for method, names in _NAMES.items():
        if key in names:
            return method
    raise AnswerProblem(
        f"panel {panel}: {name!r} is not one of the four methods; answer with "
        "'ALiBi', 'T5 bias', 'RoPE' or 'learned absolute'."
    )


def check_method_names(answer: object) -> Feedback:
    """Lesson 09, exercise 2: name the method behind each panel of
    :func:`plot_mystery_biases`, as ``{"A": "...", ..., "D": "..."}`` or a list in A-D order
    (or a function with no arguments that returns one).

    Examples
    --------
    >>> check_method_names(["T5", "learned", "RoPE", "ALiBi"]).status
    'correct'
    >>> print(check_method_names({"A": "rope", "B": "learned", "C": "t5", "D": "alibi"}).message)
    2 of 4 panels are wrong. Panel A: each diagonal has one colour, but the colours follow no \
formula, and far from the diagonal several neighbouring diagonals share one colour.
    """

    def named(given: object) -> str | None:
        ans = value_of(given)
        if isinstance(ans, Mapping):
            given = {str(key).strip().upper(): value for key, value in ans.items()}
            missing = sorted(set(PANELS) - set(given))
            if missing:
                return f"name every panel: {', '.join(missing)} missing."
        elif isinstance(ans, (list, tuple)) and len(ans) == len(PANELS):
            given = dict(zip(PANELS, ans, strict=True))
        else:
            return (
                f"answer with a dict {{'A': ..., 'D': ...}} or a list of four names, "
                f"got {shown(ans)}."
            )
        methods = {panel: _method_of(given[panel], panel) for panel in PANELS}
        wrong = [panel for panel in PANELS if methods[panel] != PANELS[panel]]
        if not wrong:
            return None
        first = wrong[0]
        return (
            f"{len(wrong)} of {len(PANELS)} panels are wrong. Panel {first}: "
            f"{_HINTS[PANELS[first]]}"
        )

    values = answer.values() if isinstance(answer, Mapping) else answer
    if isinstance(values, (list, tuple, type({}.values()))) and all(v is None for v in values):
        answer = None  # the template, untouched
    return grade(
        "name the method",
        answer,
        [named],
        "look along the diagonals first (same colour: relative), then at how the colour "
        "changes with distance; relative_deviation(mystery_matrices()[panel]) measures the "
        "first.",
    )
