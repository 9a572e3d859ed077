"""Lesson 14 · Position from content: the exercise checkers."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...grading import Feedback, agrees_on, close, grade

__all__ = ["check_cope_positions", "check_forget_bias"]


def positions_from_gates(gates: np.ndarray) -> np.ndarray:
    """CoPE's positions from its gates: ``p[i, j] = Σ_{t=j..i} g[i, t]``, 0 where ``j > i``.

    Examples
    --------
    >>> positions_from_gates(np.array([[1.0, 0.0], [0.5, 1.0]])).tolist()
    [[1.0, 0.0], [1.5, 1.0]]
    """
    g = np.tril(gates)  # a key after the query is never counted
    return np.tril(np.flip(np.cumsum(np.flip(g, -1), axis=-1), -1))


def forget_bias(forget: np.ndarray) -> np.ndarray:
    """The forget gate's bias: ``D[i, j] = Σ_{l=j+1..i} log f_l`` for ``j <= i``, else 0.

    Examples
    --------
    >>> np.exp(forget_bias(np.array([1.0, 0.5, 0.5])))[2].round(3).tolist()  # last query
    [0.25, 0.5, 1.0]
    """
    c = np.cumsum(np.log(forget))
    return np.tril(c[:, None] - c[None, :])


def _gate_cases() -> list[tuple[np.ndarray]]:
    rng = np.random.default_rng(14)
    return [(rng.uniform(size=(n, n)),) for n in (4, 7, 1)]


def _forget_cases() -> list[tuple[np.ndarray]]:
    rng = np.random.default_rng(15)
    return [(rng.uniform(0.05, 1.0, size=n),) for n in (5, 8, 1)]


def _where_they_differ(got: np.ndarray, want: np.ndarray) -> str:
    """The first row where ``got`` and ``want`` (both (n, n)) differ, and what differs there."""
    rows = [i for i in range(want.shape[0]) if not close(got[i], want[i])]
    assert rows, "called only when the matrices differ"
    i = rows[0]
    if close(np.tril(got)[i], want[i]):
        return (
            f"differ above the diagonal, e.g. row {i}: {np.round(got[i], 3).tolist()}; "
            "entries past the query (j > i) must be 0."
        )
    return (
        f"differ first in row {i}: {np.round(got[i], 3).tolist()}, "
        f"expected {np.round(want[i], 3).tolist()}."
    )


def check_cope_positions(function: Callable) -> Feedback:
    """Lesson 14, exercise 1: ``function(gates)``, CoPE's positions from gates ``(n, n)`` (row
    ``i`` the query, column ``t`` the key): ``p[i, j] = Σ_{t=j..i} g[i, t]``, 0 for ``j > i``.

    Examples
    --------
    >>> check_cope_positions(positions_from_gates).status
    'correct'
    """

    def slip(got: np.ndarray, want: np.ndarray, gates: np.ndarray) -> str:
        g = np.tril(gates)
        slips = [
            (
                np.tril(np.cumsum(g, axis=-1)),
                "you summed the gates from the first key up to j; CoPE counts from the key j "
                "up to the query i (a cumulative sum from the right).",
            ),
            (
                np.tril(np.flip(np.cumsum(np.flip(g, -1), axis=-1), -1) - g),
                "you left the key's own gate out: the sum runs over t = j .. i, j included.",
            ),
            (
                np.flip(np.cumsum(np.flip(gates, -1), axis=-1), -1),
                "you counted the keys after the query too: zero them first (the causal mask), "
                "and return 0 above the diagonal.",
            ),
        ]
        for expected, message in slips:
            if close(got, expected):
                return message
        return f"on gates of shape {gates.shape} your positions " + _where_they_differ(got, want)

    check = agrees_on(
        positions_from_gates, _gate_cases(), lambda gates: "your positions", slip, scale=1.0
    )
    return grade(
        "CoPE positions",
        function,
        [check],
        "zero the gates above the diagonal (np.tril), then sum each row from the right: flip "
        "the last axis, np.cumsum, flip back.",
        call=_gate_cases()[0],
    )


def check_forget_bias(function: Callable) -> Feedback:
    """Lesson 14, exercise 2: ``function(forget)``, the forget gate's bias from gates ``f`` in
    (0, 1], ``(n,)``: ``D[i, j] = Σ_{l=j+1..i} log f[l]`` for ``j <= i``, else 0.

    Examples
    --------
    >>> check_forget_bias(forget_bias).status
    'correct'
    """

    def slip(got: np.ndarray, want: np.ndarray, forget: np.ndarray) -> str:
        c = np.cumsum(np.log(forget))
        log_f = np.log(forget)
        slips = [
            (
                np.tril(c[:, None] - c[None, :] + log_f[None, :]),
                "you included the key's own gate (l = j): the sum runs over the tokens after "
                "the key, l = j + 1 .. i, so the diagonal is 0.",
            ),
            (
                np.tril(np.exp(c[:, None] - c[None, :])),
                "you returned the product of the gates, F[i, j]; the bias added to the logit "
                "is its logarithm, D = log F.",
            ),
            (
                np.tril(c[None, :] - c[:, None]),
                "your sign is flipped: log f <= 0, so the bias must be <= 0 (it forgets).",
            ),
        ]
        for expected, message in slips:
            if close(got, expected):
                return message
        return f"for gates {np.round(forget, 3).tolist()} your bias entries " + _where_they_differ(
            got, want
        )

    check = agrees_on(forget_bias, _forget_cases(), lambda forget: "your bias", slip, scale=1.0)
    return grade(
        "forget-gate bias",
        function,
        [check],
        "take c = np.cumsum(np.log(f)); then D[i, j] = c[i] - c[j]; keep the lower triangle.",
        call=_forget_cases()[0],
    )
