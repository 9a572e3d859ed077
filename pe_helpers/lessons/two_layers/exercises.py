"""Lesson 13 · Two layers: the exercise checkers."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..._validate import check_choice
from ...grading import AnswerProblem, Feedback, agrees_on, close, grade, shown, value_of
from ...seeds import SeedResults
from .maths import LESSON_METHODS, SCALES, induction_score, induction_targets

__all__ = ["check_failure_length", "check_induction_score", "failure_length"]


def _cases() -> list[tuple[np.ndarray, np.ndarray]]:
    """Attention-shaped test cases: random causal rows over sequences that repeat tokens."""
    rng = np.random.default_rng(13)
    cases = []
    for batch, heads, n, vocab in ((2, 2, 8, 3), (3, 1, 12, 5), (1, 3, 6, 2)):
        tokens = rng.integers(0, vocab, size=(batch, n))
        scores = rng.normal(size=(batch, heads, n, n)) * 2.0
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights /= weights.sum(axis=-1, keepdims=True)
        cases.append((weights, tokens))
    return cases


def _slip_scores(weights: np.ndarray, tokens: np.ndarray) -> list[tuple[np.ndarray, str]]:
    """What the usual slips compute, each with its message."""
    n = tokens.shape[1]
    query, key = np.arange(n)[:, None], np.arange(n)[None, :]
    same = tokens[:, :, None] == tokens[:, None, :]  # (B, q, k): the key is the query's token

    def mean_over(targets: np.ndarray, queries: np.ndarray) -> np.ndarray:
        on = (weights * targets[:, None]).sum(axis=-1)  # (B, H, n)
        return on.transpose(1, 0, 2)[:, queries].mean(axis=-1)

    right = induction_targets(tokens)
    has = right.any(axis=-1)
    copies = same & (key < query)
    return [
        (
            mean_over(copies, copies.any(axis=-1)),
            "you scored the earlier copies of the query's token themselves; an induction head "
            "looks one key further, at the token that followed each copy.",
        ),
        (
            mean_over(right, np.ones_like(has)),
            "you averaged over every query, also those whose token has no earlier copy: they "
            "have nothing to find, so leave them out of the mean.",
        ),
        (
            weights[:, :, np.arange(1, n), np.arange(n - 1)].mean(axis=(0, 2)),
            "that is the previous-token score, a[t, t - 1]: the induction score looks at the "
            "keys whose previous token equals the query's token.",
        ),
    ]


def check_induction_score(function: Callable) -> Feedback:
    """Lesson 13, exercise 1: the induction score of every head, from attention alone.

    ``function(weights, tokens)`` gets the attention of one layer, ``(batch, heads, n, n)``,
    and the tokens ``(batch, n)``, and must return :func:`induction_score`'s one score per head.

    Examples
    --------
    >>> check_induction_score(induction_score).status
    'correct'
    """
    cases = _cases()

    def slip(got: np.ndarray, want: np.ndarray, weights: np.ndarray, tokens: np.ndarray) -> str:
        for expected, message in _slip_scores(weights, tokens):
            if expected.shape == got.shape and close(got, expected):
                return message
        return (
            f"on a test batch of {weights.shape[1]} heads you returned "
            f"{np.round(got, 3).tolist()}, expected {np.round(want, 3).tolist()}."
        )

    check = agrees_on(
        induction_score,
        cases,
        lambda weights, tokens: "your scores (one per head)",
        slip,
        scale=1.0,
    )
    return grade(
        "induction score",
        function,
        [check],
        "build a (batch, n, n) mask: key j >= 1, j <= t and tokens[j - 1] == tokens[t]; sum "
        "each head's weights on it, then average over the queries that have such a key.",
        call=cases[0],
    )


_NAMES = {f"{name}": name for name in SCALES} | {str(v): k for k, v in SCALES.items()}
#: Exercise 2's level. Three quarters, not a half: the sinusoidal model's median sits far above
#: it at L and far below at 2L (about 99% and 50%), so the answer does not hang on the seeds.
FAILURE_LEVEL = 0.75


def failure_length(results, method: str = "sinusoidal") -> str:
    """The shortest test length (``"2L"``, ``"4L"`` or ``"8L"``) at which ``method``'s median
    passkey accuracy over the shipped seeds is below :data:`FAILURE_LEVEL` (75%); ``"none"``
    if it never is.

    Only methods whose passkey model ran at every test length have an answer ("learned" stops
    at L; RoPE's runs are the extensions, ``extension.RoPE.2L``): others are refused.

    Examples
    --------
    >>> from pe_helpers.seeds import load_results
    >>> failure_length(load_results("two_layers")) in ("2L", "4L", "8L", "none")
    True
    """
    if not isinstance(results, SeedResults):
        raise TypeError(
            f"results must be the shipped results, load_results('two_layers'), got {shown(results)}"
        )
    method = check_choice("method", method, LESSON_METHODS)
    scales = ("2L", "4L", "8L")
    names = set(results.names)
    answered = [m for m in LESSON_METHODS if all(f"passkey.{m}.{s}" in names for s in scales)]
    if method not in answered:
        why = {
            "learned": ": its position table has no row past the training length L, so it "
            "never ran at 2L",
            "rope_adjacent": ": its passkey runs are the extensions, "
            "results.median('extension.RoPE.2L') and so on",
        }.get(method, "")
        raise ValueError(
            f"method {method!r} has no passkey results at {', '.join(scales)}{why}; "
            f"failure_length answers for {', '.join(map(repr, answered))}"
        )
    for scale in scales:
        if results.median(f"passkey.{method}.{scale}") < FAILURE_LEVEL:
            return scale
    return "none"


def check_failure_length(prediction: object) -> Feedback:
    """Lesson 13, exercise 2: where the sinusoidal passkey model drops below 75% right.

    ``prediction`` is :func:`failure_length`'s answer: ``"2L"``, ``"4L"``, ``"8L"`` (or 32,
    64, 128) or ``"none"``, or a function with no arguments that returns it.

    Examples
    --------
    >>> from pe_helpers.seeds import load_results
    >>> check_failure_length(failure_length(load_results("two_layers"))).status
    'correct'
    """
    from ...seeds import load_results

    want = failure_length(load_results("two_layers"))

    def answer(value: object) -> str | None:
        value = value_of(value)
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            value = str(int(value))
        text = value.strip().replace(" ", "") if isinstance(value, str) else ""
        choice = "none" if text.lower() == "none" else _NAMES.get(text.upper().replace("l", "L"))
        if choice is None or choice == "L":
            raise AnswerProblem(
                "your prediction must be '2L', '4L', '8L' or 'none' (or 32, 64, 128), got "
                f"{shown(value)}."
            )
        if choice == want:
            return None
        order = ["2L", "4L", "8L", "none"]
        if order.index(choice) > order.index(want):
            return (
                "later than it happens: the median run is below 75% right at a shorter test "
                "length already. Ask which added vectors training paired with W_Q and W_K, and "
                "find where the sinusoidal band of section 3's figure first drops below 75%."
            )
        return (
            f"earlier than it happens: at {choice} the median run is still right 75% of the "
            "time or more; look at the band of the sinusoidal model in section 3's figure."
        )

    return grade(
        "prediction: when the sinusoidal model fails",
        prediction,
        [answer],
        "the sinusoidal model adds a vector per position; which positions did training show?",
    )
