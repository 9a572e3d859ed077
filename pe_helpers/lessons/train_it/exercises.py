"""Lesson 08 · Position in a model you train: the exercise checkers.

See :mod:`pe_helpers.lessons.train_it` for the lesson's overview.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from ...attention import softmax_backward as reference_softmax_backward
from ...grading import (
    AnswerProblem,
    Feedback,
    as_array,
    as_number,
    close,
    grade,
    shown,
    tolerance,
    value_of,
)
from ...model import ModelConfig, gradient_check
from ...tasks import order_blind_accuracy
from .maths import MAX_TEST_LENGTH

__all__ = [
    "check_nope_prediction",
    "check_prefix_prediction",
    "check_softmax_backward",
]


def check_softmax_backward(softmax_backward: Callable) -> Feedback:
    """Lesson 08, exercise 1: the gradient through a row-wise softmax, then the model's.

    ``softmax_backward(weights, grad_weights)`` must return ``dL/ds`` from ``a = softmax(s)``
    (rows along the last axis, masked entries 0) and ``g = dL/da``. Checked on a batch of
    attention-shaped arrays, then plugged into the model's backward pass and compared with
    finite differences by :func:`pe_helpers.model.gradient_check`.

    Examples
    --------
    >>> check_softmax_backward(lambda a, g: a * (g - (g * a).sum(-1, keepdims=True))).status
    'correct'
    """
    rng = np.random.default_rng(8)
    scores = rng.normal(size=(2, 2, 5, 5)) * 2.0
    scores = np.where(np.tril(np.ones((5, 5), dtype=bool)), scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    grad_weights = rng.normal(size=weights.shape)
    want = reference_softmax_backward(weights, grad_weights)
    config = ModelConfig("rope_adjacent", vocab_size=4, d_model=4, n_heads=1)
    found: dict[str, float] = {}

    def on_a_batch(attempt: Callable) -> str | None:
        got = as_array(attempt(weights, grad_weights), "your result", shape=weights.shape)
        found["tolerance"] = tolerance(got)
        if close(got, want, scale=1.0):
            return None
        return _softmax_slip(got, weights, grad_weights)

    def in_the_model(attempt: Callable) -> str | None:
        def learner(a: np.ndarray, g: np.ndarray) -> np.ndarray:
            got = as_array(attempt(a, g), "your result inside the model", shape=a.shape)
            return got.astype(np.float64)

        try:
            errors = gradient_check(config, length=4, softmax_backward=learner)
        except ValueError as exc:  # the learner's function raised: report their own error
            if exc.__cause__ is not None:
                raise exc.__cause__ from None
            raise
        worst = max(errors, key=errors.get)
        limit = 1e-6 if found["tolerance"] <= 1e-9 else 1e-3
        if errors[worst] > limit:
            return (
                f"right on the test batch, but inside the model the gradient of {worst} is off "
                f"by {errors[worst]:.1e} (relative) from finite differences."
            )
        return None

    return grade(
        "softmax backward",
        softmax_backward,
        [on_a_batch, in_the_model],
        "dL/ds = a * (g - (g * a).sum(axis=-1, keepdims=True)): each score moves every weight "
        "of its row.",
        call=(weights, grad_weights),
    )


def _softmax_slip(got: np.ndarray, a: np.ndarray, g: np.ndarray) -> str:
    """The message for a wrong softmax gradient: the slip it matches, or a general one."""
    slips = [
        (
            a * g,
            "you returned a * g: the softmax couples a row, so also subtract the weighted "
            "row sum, a * (g - Σ_j g_j a_j).",
        ),
        (
            a * (1 - a) * g,
            "you kept only the diagonal of the Jacobian, a_k (1 - a_k); each "
            "s_k also lowers every other weight of its row.",
        ),
        (
            a * (g - (g * a).sum(axis=-2, keepdims=True)),
            "you summed over the queries (axis -2); the row sum runs over the keys: axis=-1.",
        ),
        (
            a * (g - (g * a).sum()),
            "you summed over the whole array; sum each row (axis=-1, keepdims=True).",
        ),
        (
            a * (g - g.sum(axis=-1, keepdims=True)),
            "the row sum must weight g by a: Σ_j g_j a_j, not Σ_j g_j.",
        ),
        (-reference_softmax_backward(a, g), "the sign is flipped: dL/ds = a * (g - Σ_j g_j a_j)."),
        (g, "you returned g unchanged: multiply by the softmax's Jacobian."),
    ]
    for expected, message in slips:
        if close(got, expected, scale=1.0):
            return message
    return "your gradient differs from a * (g - Σ_j g_j a_j) on a batch of attention rows."


_PREDICTIONS = ("same", "lower", "higher")  # answers a, b and c


def check_prefix_prediction(prediction: object) -> Feedback:
    """Lesson 08, exercise 2: a causal model's outputs before position L on a 4L sequence.

    ``prediction`` is ``"same"`` (a), ``"lower"`` (b) or ``"higher"`` (c): how its accuracy at
    positions ``0 .. L - 1`` compares with the same sequences cut to length L; or a function
    with no arguments that returns it.

    Examples
    --------
    >>> check_prefix_prediction("same").status
    'correct'
    >>> check_prefix_prediction("lower").status
    'wrong'
    """

    def answer(given: object) -> str | None:
        value = value_of(given)
        if not isinstance(value, str):
            raise AnswerProblem(
                f"your prediction must be text: 'same', 'lower' or 'higher', got {shown(value)}."
            )
        choice = value.strip().lower().strip("().'\"")
        choice = dict(zip("abc", _PREDICTIONS, strict=True)).get(choice, choice)
        if choice not in _PREDICTIONS:
            raise AnswerProblem(
                f"your prediction must be 'same', 'lower' or 'higher' (or a, b, c), got "
                f"{shown(value)}."
            )
        if choice != "same":
            return (
                f"'{choice}' is not it: with the causal mask, position t attends to keys 0 .. t "
                "only, so nothing after it can change its output — whatever the length."
            )
        return None

    hint = "which keys can the query at position 5 see when the sequence is 64 tokens long?"
    return grade("prediction: the first L positions", prediction, [answer], hint)


@functools.lru_cache(maxsize=1)
def _nope_limits() -> tuple[float, float]:
    """The order-blind limits at 8L = 128 and 4L = 64 (vocabulary 16, causal), in percent."""
    limit = 100 * order_blind_accuracy("copy_back", 2 * MAX_TEST_LENGTH, 16, causal=True)
    return limit, 100 * order_blind_accuracy("copy_back", MAX_TEST_LENGTH, 16, causal=True)


def check_nope_prediction(percent: object) -> Feedback:
    """Lesson 08, exercise 3: the NoPE copy-back model's accuracy at 8L = 128, in percent.

    The answer is the order-blind limit at length 128 (vocabulary 16, causal mask), about 15%;
    the trained NoPE model lands a point below it on every shipped seed. A guess is correct
    from 3 points below that limit up to halfway to the limit at 4L = 64 (about 19%). From
    there to 1.5 points past the 4L limit, it copies the table's 4L value: a hint of its own.
    ``percent`` is a number, or a function with no arguments that returns it.

    Examples
    --------
    >>> check_nope_prediction(15).status
    'correct'
    >>> check_nope_prediction(18).message[:30]
    'that is about the value at 4L '
    >>> check_nope_prediction(6).message[:12]
    'that is 1/16'
    """
    limit, at_4l = _nope_limits()
    halfway = (limit + at_4l) / 2  # above it, a guess is nearer the 4L value than the answer

    def answer(value: object) -> str | None:
        guess = as_number(value_of(value), "your prediction")
        if 0 < guess < 1:
            return f"give a percentage (0 to 100), not a fraction: {guess:g} is {100 * guess:g}%?"
        if not 0 <= guess <= 100:
            return f"an accuracy in percent lies between 0 and 100, got {guess:g}."
        if halfway < guess <= at_4l + 1.5:
            return (
                f"that is about the value at 4L = 64 (the limit there is {at_4l:.0f}%). At 128 "
                "tokens the prefix holds more candidates still, so the most frequent one is "
                "right less often."
            )
        if limit - 3 <= guess <= halfway:
            return None
        if abs(guess - 100 / 16) <= 2:
            return (
                "that is 1/16, blind guessing over the vocabulary. The model does better: the "
                "answer is one of the earlier tokens, and it picks the most frequent of them."
            )
        if guess > 50:
            return (
                "too high: NoPE has no position signal, so it cannot find the token one place "
                "back; it can only guess the most frequent earlier token."
            )
        if guess > limit:
            return (
                "too high: the longer the prefix, the more distinct tokens it holds, and the "
                "less often 'the most frequent earlier token' is the right one."
            )
        return "too low: the most frequent earlier token is right more often than that."

    return grade(
        "prediction: NoPE at 8L",
        percent,
        [answer],
        "section 3 showed that NoPE answers the most frequent earlier token; "
        "order_blind_accuracy tells how often that is right at length 128.",
    )
