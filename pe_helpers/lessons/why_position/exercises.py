"""Lesson 01 exercise checkers: attend then unshuffle, and the fading first input."""

from __future__ import annotations

import dis
from collections.abc import Callable

import numpy as np

from ...attention import attention
from ...grading import Feedback, as_array, as_integer, as_number, close, grade

__all__ = ["check_first_input_weight", "check_steps_until_faded", "check_unshuffled_attention"]

#: A shuffle that is not its own inverse, so undoing it with ``order`` again is caught.
_ORDERS = (np.array([2, 0, 4, 1, 3]), np.array([1, 2, 3, 4, 0]))


def _reads_argument(function: Callable, position: int) -> bool | None:
    """Whether ``function``'s body reads its parameter number ``position``; None if unknown."""
    code = getattr(function, "__code__", None)
    if code is None or code.co_argcount <= position:
        return None
    name = code.co_varnames[position]
    if name in code.co_cellvars:
        return True
    for instruction in dis.get_instructions(code):
        if not instruction.opname.startswith("LOAD_"):
            continue
        value = instruction.argval
        if value == name or (isinstance(value, tuple) and name in value):
            return True
    return False


def check_unshuffled_attention(answer: object) -> Feedback:
    """Check ``attend_then_unshuffle(x, order)`` of lesson 01.

    The function shuffles the tokens with ``x[order]``, runs self-attention
    ``attention(s, s, s)`` on them and puts the output rows back in the original order.
    Because attention is permutation-equivariant, the result equals ``attention(x, x,
    x)`` — so the check also makes sure ``order`` is actually used.

    Examples
    --------
    >>> def solution(x, order):
    ...     s = x[order]
    ...     return attention(s, s, s)[np.argsort(order)]
    >>> check_unshuffled_attention(solution).status
    'correct'
    """
    x = np.random.default_rng(101).normal(size=(5, 4))
    plain = attention(x, x, x)

    def usable(attempt) -> str | None:
        for order in _ORDERS:
            as_array(attempt(x, order), "your outputs", shape=x.shape)
        return None

    def uses_order(attempt) -> str | None:
        if _reads_argument(attempt.function, 1) is False:
            return (
                "your function never uses order. Attention on x itself happens to give the "
                "right numbers — that is the lesson's point — but the task is to shuffle with "
                "order, attend, and undo the shuffle, so the check can show the two agree."
            )
        return None

    def unshuffled(attempt) -> str | None:
        for order in _ORDERS:
            got = as_array(attempt(x, order), "your outputs", shape=x.shape)
            shuffled = plain[order]
            if close(got, shuffled) and not close(got, plain):
                return (
                    "your rows are still in the shuffled order: row i belongs to token "
                    "order[i]. Undo the shuffle with the inverse permutation np.argsort(order)."
                )
            if close(got, shuffled[order]):
                return (
                    "you indexed with order a second time, which shuffles again instead of "
                    "undoing it: the inverse permutation is np.argsort(order)."
                )
            if not close(got, plain):
                return (
                    f"for order = {order.tolist()} the unshuffled outputs differ from "
                    "self-attention on the original x."
                )
        return None

    return grade(
        "attend, then unshuffle",
        answer,
        [usable, uses_order, unshuffled],
        "shuffle with s = x[order], attend with attention(s, s, s), then put row i back "
        "where token order[i] came from.",
        call=(x, _ORDERS[0]),
    )


def check_first_input_weight(answer: object) -> Feedback:
    """Check ``first_input_weight(decay, n_steps)``: the weight ``a^(n-1)`` of x_1 in h_n.

    Examples
    --------
    >>> check_first_input_weight(lambda a, n: a ** (n - 1)).status
    'correct'
    """
    cases = [(0.9, 20), (0.5, 3), (0.2, 1), (1.0, 7), (0.99, 100)]

    def weights(attempt) -> list[tuple[float, int, np.floating]]:
        return [
            (a, n, as_number(attempt(a, n), f"your weight for a = {a}, n = {n}", keep_dtype=True))
            for a, n in cases
        ]

    def off_by_one(attempt) -> str | None:
        if all(close(got, a**n) for a, n, got in weights(attempt)[:3]):
            return (
                "off by one: you returned a^n. h_1 = x_1 already holds x_1 with weight 1; "
                "each of the n - 1 later steps multiplies it by a once."
            )
        return None

    def values(attempt) -> str | None:
        for a, n, got in weights(attempt):
            if not close(got, a ** (n - 1)):
                want = a ** (n - 1)
                return f"for a = {a}, n = {n} the weight is {want:.6g}, you returned {got:.6g}."
        return None

    return grade(
        "weight of the first input",
        answer,
        [off_by_one, values],
        "unroll h_3 = a·h_2 + x_3 = a·(a·x_1 + x_2) + x_3 and count the factors a on x_1.",
        call=cases[0],
    )


def check_steps_until_faded(answer: object) -> Feedback:
    """Check ``steps_until_faded(decay, threshold)``: the smallest n with ``a^(n-1) < threshold``.

    Examples
    --------
    >>> check_steps_until_faded(
    ...     lambda a, eps: int(np.log(eps) // np.log(a)) + 2
    ... ).status
    'correct'
    """
    # The last two thresholds are exact powers of the decay (0.5^2, 0.25^2): a weight equal to
    # the threshold has not faded yet, so a ceil(log) formula is one short there.
    cases = [(0.9, 0.01), (0.5, 0.1), (0.99, 0.5), (0.3, 0.05), (0.5, 0.25), (0.25, 0.0625)]

    def expected(a: float, eps: float) -> int:
        n = 1
        while a ** (n - 1) >= eps:
            n += 1
        return n

    def lengths(attempt) -> list[tuple[float, float, int, int]]:
        """Each case's ``(a, threshold, right length, the learner's length)``."""
        what = "your length for a = {}, threshold = {}"
        return [
            (a, e, expected(a, e), as_integer(attempt(a, e), what.format(a, e))) for a, e in cases
        ]

    def exponent_not_length(attempt) -> str | None:
        if all(got == want - 1 for _, _, want, got in lengths(attempt)):
            return (
                "you returned the exponent n - 1, not the sequence length n: "
                "the weight of x_1 in h_n is a^(n-1)."
            )
        return None

    def smallest(attempt) -> str | None:
        for a, e, want, got in lengths(attempt):
            if got > want:
                return (
                    f"for a = {a}, threshold = {e}: n = {want} already gives "
                    f"a^(n-1) = {a ** (want - 1):.4g} < {e}; you returned {got}, not the smallest."
                )
            if got < 1:
                return f"a sequence has at least one token (n >= 1), you returned {got}."
            if got < want:
                return (
                    f"for a = {a}, threshold = {e}: at n = {got} the weight is still "
                    f"a^(n-1) = {a ** (got - 1):.4g} >= {e}."
                )
        return None

    return grade(
        "steps until the first input fades",
        answer,
        [exponent_not_length, smallest],
        "a loop that grows n until a**(n - 1) < threshold works; so does a logarithm.",
        call=cases[0],
    )
