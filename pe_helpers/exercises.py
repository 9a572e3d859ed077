"""Self-checking exercises.

A learner writes a function (or computes a value) in the notebook and passes it
to the lesson's ``check_...`` function, which returns a :class:`Feedback`:

* ``todo``    -- the stub is unfinished (returns None or raises NotImplementedError):
  a friendly "not done yet" and a hint, never a traceback;
* ``wrong``   -- a specific hint that names the property that failed;
* ``correct`` -- it says so.

Feedback shows itself as text (and coloured HTML in JupyterLab) and is truthy
only when correct, so solution notebooks can ``assert check_...(answer)``.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

import numpy as np

from .attention import attention, random_projection, relative_deviation
from .encodings import frequencies, sinusoidal_pe
from .rope import apply_rope

__all__ = [
    "Feedback",
    "Check",
    "grade",
    # Lesson 04–05
    "check_shift_block",
    "check_sin_collision",
    "check_rotation_angle",
    "check_dot_from_frequencies",
    "check_dot_value",
    "check_first_rise",
    # Lesson 06–07
    "check_position_position",
    "check_relative_projections",
    "check_rotate_pair",
    "check_rope_adjacent",
    "check_unwrapped_pairs",
    # Lesson 01–03
    "EXPONENT_HINT",
    "check_unshuffled_attention",
    "check_first_input_weight",
    "check_steps_until_faded",
    "check_concat_then_project",
    "check_add_position_vector",
    "check_fit_position_probe",
    "check_pair_frequencies",
    "check_pe_row",
    "check_longest_wavelength",
]

#: A check receives the learner's answer and returns None when it holds, or a
#: message saying which property failed. It may raise: that counts as a failure.
Check = Callable[[object], "str | None"]

_ICONS = {"todo": "…", "wrong": "✗", "correct": "✓"}
_COLOURS = {"todo": "#8a6d00", "wrong": "#b00020", "correct": "#1b7a1b"}


@dataclass(frozen=True)
class Feedback:
    """The verdict on one exercise attempt.

    Attributes
    ----------
    exercise : str
        Short name of the exercise.
    status : {"todo", "wrong", "correct"}
    message : str
        What happened, in one or two sentences.
    hint : str
        A nudge towards the answer (empty when correct).
    """

    exercise: str
    status: str
    message: str
    hint: str = ""

    @property
    def passed(self) -> bool:
        """True only for a correct answer."""
        return self.status == "correct"

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        text = f"{_ICONS[self.status]} {self.exercise}: {self.message}"
        if self.hint:
            text += f"\n  Hint: {self.hint}"
        return text

    def __repr__(self) -> str:
        return str(self)

    def _repr_html_(self) -> str:
        colour = _COLOURS[self.status]
        hint = f"<br><em>Hint:</em> {escape(self.hint)}" if self.hint else ""
        return (
            f'<div style="border-left: 4px solid {colour}; padding: 4px 10px;">'
            f'<strong style="color: {colour}">{_ICONS[self.status]} {escape(self.exercise)}'
            f"</strong>: {escape(self.message)}{hint}</div>"
        )


def _unfinished(answer: object) -> bool:
    return answer is None or answer is NotImplemented


def grade(
    exercise: str,
    answer: object,
    checks: Sequence[Check],
    hint: str,
    *,
    call: tuple | None = None,
) -> Feedback:
    """Run ``checks`` on ``answer`` and turn the outcome into :class:`Feedback`.

    Parameters
    ----------
    exercise : str
        Name shown to the learner.
    answer : object
        The learner's answer: a value, or a function when ``call`` is given.
    checks : sequence of callables
        Each takes the answer (the value, or the function) and returns None when
        its property holds or a message naming the property that failed.
    hint : str
        General hint shown while the exercise is unfinished.
    call : tuple, optional
        If given, ``answer`` must be callable; it is first called with these
        arguments to detect an unfinished stub (None returned or
        NotImplementedError raised).

    Returns
    -------
    Feedback

    Examples
    --------
    >>> is_two = lambda a: None if a == 2 else f"expected 2, got {a!r}"
    >>> grade("one plus one", 2, [is_two], "add").status
    'correct'
    >>> grade("one plus one", None, [is_two], "add").status
    'todo'
    """
    if not isinstance(exercise, str) or not exercise:
        raise TypeError(f"exercise must be a non-empty string, got {exercise!r}")
    todo = Feedback(
        exercise, "todo", "not done yet — fill in the cell above and run it again.", hint
    )
    if _unfinished(answer):
        return todo
    if call is not None:
        if not callable(answer):
            return Feedback(
                exercise, "wrong", f"expected a function, got {type(answer).__name__}.", hint
            )
        try:
            probe = answer(*call)
        except NotImplementedError:
            return todo
        except Exception as exc:  # noqa: BLE001 - a learner's error becomes a hint
            return Feedback(
                exercise, "wrong", f"your function raised {type(exc).__name__}: {exc}", hint
            )
        if _unfinished(probe):
            return todo
    for check in checks:
        try:
            problem = check(answer)
        except NotImplementedError:
            return todo
        except Exception as exc:  # noqa: BLE001 - a learner's error becomes a hint
            problem = f"raised {type(exc).__name__}: {exc}"
        if problem:
            return Feedback(exercise, "wrong", problem, hint)
    return Feedback(exercise, "correct", "correct — well done.")


# --- Lesson 04–05: the rotation property and seeing the encoding ---


def _as_value(answer: object) -> object:
    """A learner's answer: the value itself, or what a zero-argument function returns."""
    return answer() if callable(answer) else answer


def _grade_value(exercise: str, answer: object, checks: Sequence[Check], hint: str) -> Feedback:
    """Grade a number answer given either directly or as a zero-argument function."""
    if callable(answer):
        return grade(exercise, answer, checks, hint, call=())
    return grade(exercise, answer, checks, hint)


def _as_float(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what} must be a number, got {type(value).__name__}")
    return float(value)


def _pair_matrix(answer: Callable, delta: float, w: float) -> np.ndarray:
    matrix = np.asarray(answer(delta, w), dtype=np.float64)
    if matrix.shape != (2, 2):
        raise ValueError(f"shift_block must return a 2x2 matrix, got shape {matrix.shape}")
    return matrix


def check_shift_block(shift_block: Callable) -> Feedback:
    """Lesson 04: ``shift_block(delta, w)`` is the 2x2 matrix taking (sin wt, cos wt) to t + Δ.

    Examples
    --------
    >>> def shift_block(delta, w):
    ...     c, s = np.cos(w * delta), np.sin(w * delta)
    ...     return np.array([[c, s], [-s, c]])
    >>> check_shift_block(shift_block).status
    'correct'
    """
    cases = [(0.7, 1.0), (2.0, 0.3), (-1.5, 2.0), (10.0, 0.01)]

    def shape(answer: Callable) -> str | None:
        _pair_matrix(answer, 0.7, 1.0)
        return None

    def seed_sign(answer: Callable) -> str | None:
        delta, w = 0.7, 1.0
        c, s = np.cos(w * delta), np.sin(w * delta)
        if np.allclose(_pair_matrix(answer, delta, w), [[c, -s], [s, c]]):
            return (
                "this is the source article's matrix [[cos, −sin], [sin, cos]] — it maps "
                "pairs ordered (cos, sin). Our pairs are ordered (sin, cos): "
                "sin(a+b) = sin a·cos b + cos a·sin b gives the top row [cos wΔ, sin wΔ], "
                "so the minus sign belongs bottom-left."
            )
        return None

    def uses_frequency(answer: Callable) -> str | None:
        delta, w = 2.0, 0.3
        c1, s1 = np.cos(delta), np.sin(delta)
        right_for_w1 = np.allclose(_pair_matrix(answer, delta, 1.0), [[c1, s1], [-s1, c1]])
        if right_for_w1 and np.allclose(_pair_matrix(answer, delta, w), [[c1, s1], [-s1, c1]]):
            return (
                "right for w = 1 but not for w = 0.3: the pair turns by the angle w·Δ, not Δ."
            )
        return None

    def maps_pe(answer: Callable) -> str | None:
        t = np.linspace(-20.0, 20.0, 41)
        for delta, w in cases:
            matrix = _pair_matrix(answer, delta, w)
            now = np.stack([np.sin(w * t), np.cos(w * t)])
            later = np.stack([np.sin(w * (t + delta)), np.cos(w * (t + delta))])
            if not np.allclose(matrix @ now, later, atol=1e-9):
                return (
                    f"for Δ = {delta:g}, w = {w:g} your matrix does not take "
                    "(sin wt, cos wt) to (sin w(t+Δ), cos w(t+Δ)); expand both with the "
                    "angle-addition formulas."
                )
        return None

    return grade(
        "2x2 shift block",
        shift_block,
        [shape, seed_sign, uses_frequency, maps_pe],
        "write sin(w(t+Δ)) and cos(w(t+Δ)) with the angle-addition formulas and read off "
        "the coefficients of sin(wt) and cos(wt).",
        call=(1.0, 1.0),
    )


def check_sin_collision(answer: object) -> Feedback:
    """Lesson 04: two positions with equal sin(t) but different sin(t + 1) (w = 1, Δ = 1).

    ``answer`` is a pair ``(t1, t2)`` or a zero-argument function returning one.

    Examples
    --------
    >>> check_sin_collision((1.0, np.pi - 1.0)).status
    'correct'
    >>> check_sin_collision((0.5, np.pi - 0.5)).message
    'that is the pair used in the lesson; find another one.'
    """

    def pair(answer: object) -> tuple[float, float]:
        value = _as_value(answer)
        if not isinstance(value, (tuple, list, np.ndarray)) or len(value) != 2:
            raise TypeError("the answer must be a pair (t1, t2)")
        return _as_float(value[0], "t1"), _as_float(value[1], "t2")

    def distinct(answer: object) -> str | None:
        t1, t2 = pair(answer)
        if abs(t1 - t2) < 1e-3:
            return f"t1 and t2 must be different positions, got {t1:g} and {t2:g}."
        if np.allclose(sorted([t1, t2]), [0.5, np.pi - 0.5]):
            return "that is the pair used in the lesson; find another one."
        return None

    def same_sin(answer: object) -> str | None:
        t1, t2 = pair(answer)
        if abs(np.sin(t1) - np.sin(t2)) > 1e-6:
            return (
                f"sin(t1) = {np.sin(t1):.4f} but sin(t2) = {np.sin(t2):.4f}: the sin feature "
                "must be equal at both positions."
            )
        return None

    def different_after(answer: object) -> str | None:
        t1, t2 = pair(answer)
        gap = abs(np.sin(t1 + 1.0) - np.sin(t2 + 1.0))
        if gap < 0.1:
            return (
                f"sin(t1 + 1) and sin(t2 + 1) differ by only {gap:.4f}. If the positions are "
                "a whole period 2π apart they agree forever; use the mirror point t2 = π − t1 "
                "with t1 away from π/2."
            )
        return None

    return _grade_value(
        "sin alone cannot be shifted",
        answer,
        [distinct, same_sin, different_after],
        "sin(π − t) = sin(t): the mirror point has the same sin but moves the other way.",
    )


def check_rotation_angle(answer: object) -> Feedback:
    """Lesson 04: degrees turned by pair k = 1 of a d = 4 encoding (base 10000) for Δ = 100.

    Examples
    --------
    >>> check_rotation_angle(57.3).status
    'correct'
    """
    truth = float(np.degrees(frequencies(4)[1] * 100.0))

    def value(answer: object) -> float:
        return _as_float(_as_value(answer), "the angle")

    def radians(answer: object) -> str | None:
        if abs(value(answer) - np.radians(truth)) < 1e-3:
            return "that is the angle in radians; the question asks for degrees."
        return None

    def column_index(answer: object) -> str | None:
        if abs(value(answer) - np.degrees(10000.0 ** (-4 / 4) * 100.0)) < 0.01:
            return (
                "you used the column index i = 2 in the exponent: w_k = base^(−2k/d) with "
                "k = 1 the pair index, so w_1 = 10000^(−1/2)."
            )
        return None

    def unit_frequency(answer: object) -> str | None:
        if abs(value(answer) - np.degrees(100.0)) < 1.0:
            return "that angle uses w = 1, the frequency of pair k = 0, not of pair k = 1."
        return None

    def close(answer: object) -> str | None:
        if abs(value(answer) - truth) > 0.1:
            return f"{value(answer):g}° is not the angle w_1·Δ (in degrees) to within 0.1°."
        return None

    return _grade_value(
        "rotation angle",
        answer,
        [radians, column_index, unit_frequency, close],
        "angle = w_k·Δ with w_k = base^(−2k/d); convert radians to degrees with np.degrees.",
    )


def check_dot_from_frequencies(dot_from_frequencies: Callable) -> Feedback:
    """Lesson 05: ``dot_from_frequencies(delta, d_model, base)`` returns PE(t)·PE(t+Δ).

    Examples
    --------
    >>> check_dot_from_frequencies(
    ...     lambda delta, d_model, base=10000.0: np.cos(frequencies(d_model, base) * delta).sum()
    ... ).status
    'correct'
    """
    cases = [(1.0, 8, 10000.0), (10.0, 128, 10000.0), (-3.5, 16, 100.0), (7.0, 2, 10000.0)]

    def value(answer: Callable, delta: float, d_model: int, base: float) -> float:
        return _as_float(np.asarray(answer(delta, d_model, base)).item(), "the dot product")

    def zero_offset(answer: Callable) -> str | None:
        got = value(answer, 0.0, 16, 10000.0)
        if np.isclose(got, 16.0):
            return (
                "at Δ = 0 you return d = 16, but each (sin, cos) pair adds sin² + cos² = 1, "
                "so |PE(t)|² = d/2 = 8: sum over the d/2 pairs, not the d dimensions."
            )
        if not np.isclose(got, 8.0):
            return f"at Δ = 0 the dot product is |PE(t)|² = d/2 = 8 for d = 16; got {got:g}."
        return None

    def whole_sum(answer: Callable) -> str | None:
        got = value(answer, 10.0, 128, 10000.0)
        if np.isclose(got, np.cos(10.0)):
            return (
                "you returned a single term cos(w_0·Δ) — the source article's proof makes this "
                "slip; the dot product sums cos(w_k·Δ) over all d/2 pairs."
            )
        return None

    def matches(answer: Callable) -> str | None:
        for delta, d_model, base in cases:
            pe = sinusoidal_pe([0.0, delta], d_model, base)
            expected = float(pe[0] @ pe[1])
            got = value(answer, delta, d_model, base)
            if not np.isclose(got, expected, rtol=1e-9, atol=1e-9):
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
    """Lesson 05: PE(t)·PE(t+5) for d = 64, base 10000, to two decimals.

    Examples
    --------
    >>> check_dot_value(23.50).status
    'correct'
    """
    truth = float(np.cos(frequencies(64) * 5.0).sum())

    def value(answer: object) -> float:
        return _as_float(_as_value(answer), "the dot product")

    def known_slips(answer: object) -> str | None:
        got = value(answer)
        if abs(got - 32.0) < 0.01:
            return "32 = d/2 is the value at Δ = 0; here Δ = 5."
        if abs(got - np.cos(5.0)) < 0.01:
            return "that is only the first term cos(w_0·5); sum over all 32 pairs."
        if abs(got - np.cos(frequencies(128) * 5.0).sum()) < 0.01:
            return "that is the value for d = 128; the question asks for d = 64."
        return None

    def close(answer: object) -> str | None:
        if abs(value(answer) - truth) > 0.01:
            return f"{value(answer):.4f} is not within 0.01 of PE(t)·PE(t+5) for d = 64."
        return None

    return _grade_value(
        "dot product at Δ = 5",
        answer,
        [known_slips, close],
        "compute Σ_k cos(w_k·5) with w = frequencies(64), or take PE(0)·PE(5) directly.",
    )


def check_first_rise(answer: object) -> Feedback:
    """Lesson 05: the smallest integer Δ ≥ 1 with dot(Δ) > dot(Δ − 1), for d = 128.

    Examples
    --------
    >>> check_first_rise(12).status
    'correct'
    """
    deltas = np.arange(0, 200)
    dots = np.cos(np.multiply.outer(deltas, frequencies(128))).sum(axis=1)
    rises = np.flatnonzero(np.diff(dots) > 0) + 1
    truth = int(rises[0])

    def value(answer: object) -> int:
        got = _as_value(answer)
        if isinstance(got, bool) or not isinstance(got, numbers.Integral):
            raise TypeError(f"give a whole number Δ, got {got!r}")
        return int(got)

    def in_range(answer: object) -> str | None:
        got = value(answer)
        if not 1 <= got < deltas.size:
            return f"Δ must be an integer between 1 and {deltas.size - 1}, got {got}."
        return None

    def rises_there(answer: object) -> str | None:
        got = value(answer)
        if dots[got] <= dots[got - 1]:
            return (
                f"at Δ = {got} the curve still falls: dot({got}) = {dots[got]:.2f} ≤ "
                f"dot({got - 1}) = {dots[got - 1]:.2f}."
            )
        return None

    def first(answer: object) -> str | None:
        if value(answer) > truth:
            return "the curve does rise there, but it already rose at a smaller Δ."
        return None

    return _grade_value(
        "first rise",
        answer,
        [in_range, rises_there, first],
        "compute the dot product for Δ = 0 .. 199 and look for the first Δ where "
        "np.diff(...) > 0.",
    )


# --- Lesson 06–07: attention breakdown and RoPE ---


def _as_matrix(value: object, what: str, shape: tuple[int, ...]) -> np.ndarray:
    arr = np.asarray(value, dtype=np.float64)
    if arr.shape != shape:
        raise ValueError(f"{what} must have shape {shape}, got {arr.shape}")
    return arr


def check_position_position(position_position: Callable) -> Feedback:
    """Lesson 06: ``position_position(p, w_q, w_k)`` returns the matrix ``p W_Q W_Kᵀ pᵀ``.

    Examples
    --------
    >>> check_position_position(lambda p, w_q, w_k: (p @ w_q) @ (p @ w_k).T).status
    'correct'
    """
    p = sinusoidal_pe(6, 8)
    w_q = random_projection(8, seed=11)
    w_k = random_projection(8, seed=12)
    expected = (p @ w_q) @ (p @ w_k).T

    def result(answer: Callable) -> np.ndarray:
        return _as_matrix(answer(p, w_q, w_k), "the result", (6, 6))

    def shape(answer: Callable) -> str | None:
        result(answer)
        return None

    def known_slips(answer: Callable) -> str | None:
        got = result(answer)
        if np.allclose(got, expected):
            return None
        if np.allclose(got, expected.T):
            return (
                "you returned the transpose: row i must be the query position "
                "(p_i W_Q) and column j the key position (p_j W_K)."
            )
        if np.allclose(got, p @ w_q @ w_k @ p.T):
            return "W_K needs a transpose: the key is k_j = p_j W_K, so the term is q_i · k_j."
        if np.allclose(got, p @ p.T):
            return "that is p pᵀ: the projections W_Q and W_K are missing."
        return "the values differ from (p W_Q)(p W_K)ᵀ."

    return grade(
        "position–position term",
        position_position,
        [shape, known_slips],
        "queries are p @ w_q, keys are p @ w_k, and the scores are queries @ keys.T.",
        call=(p, w_q, w_k),
    )


def check_relative_projections(relative_projections: Callable) -> Feedback:
    """Lesson 06: ``relative_projections(d_model)`` returns ``(w_q, w_k)``, not a multiple of I,
    whose position–position term depends on ``j - i`` only.

    Examples
    --------
    >>> def answer(d_model):
    ...     return np.diag(np.repeat(np.arange(1.0, d_model // 2 + 1), 2)), np.eye(d_model)
    >>> check_relative_projections(answer).status
    'correct'
    """
    widths = (8, 16)

    def pair(answer: Callable, d_model: int) -> tuple[np.ndarray, np.ndarray]:
        result = answer(d_model)
        if not isinstance(result, tuple) or len(result) != 2:
            raise TypeError(f"return a tuple (w_q, w_k), got {type(result).__name__}")
        shape = (d_model, d_model)
        return _as_matrix(result[0], "w_q", shape), _as_matrix(result[1], "w_k", shape)

    def shapes(answer: Callable) -> str | None:
        for d_model in widths:
            pair(answer, d_model)
        return None

    def not_trivial(answer: Callable) -> str | None:
        for d_model in widths:
            w_q, w_k = pair(answer, d_model)
            m = w_q @ w_k.T
            if np.allclose(m, 0.0):
                return f"W_Q W_Kᵀ is zero for d = {d_model}: every score is 0, no information."
            if np.allclose(m, m[0, 0] * np.eye(d_model)):
                return (
                    f"W_Q W_Kᵀ is a multiple of the identity for d = {d_model} — that case "
                    "we already know; find one that is not."
                )
        return None

    def relative(answer: Callable) -> str | None:
        for d_model in widths:
            w_q, w_k = pair(answer, d_model)
            p = sinusoidal_pe(40, d_model)
            deviation = relative_deviation((p @ w_q) @ (p @ w_k).T)
            if deviation > 1e-9:
                return (
                    f"for d = {d_model} the position–position term is not relative "
                    f"(deviation {deviation:.3f}). M = W_Q W_Kᵀ must not mix different "
                    "(sin, cos) pairs, and each 2x2 block must commute with rotations "
                    "(a·I + b·[[0, −1], [1, 0]])."
                )
        return None

    return grade(
        "projections that keep the term relative",
        relative_projections,
        [shapes, not_trivial, relative],
        "try W_K = I and a W_Q that scales each (sin, cos) pair by its own number.",
        call=(8,),
    )


def check_rotate_pair(rotate_pair: Callable) -> Feedback:
    """Lesson 07: ``rotate_pair(x0, x1, angle)`` turns ``(x0, x1)`` counter-clockwise.

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

    def result(answer: Callable, a: object, b: object, angle: object) -> np.ndarray:
        out = answer(a, b, angle)
        if not isinstance(out, (tuple, list, np.ndarray)) or len(out) != 2:
            raise TypeError(f"return the pair (y0, y1), got {type(out).__name__}")
        return np.asarray(out[0], dtype=np.float64), np.asarray(out[1], dtype=np.float64)

    def quarter_turn(answer: Callable) -> str | None:
        y0, y1 = result(answer, 1.0, 0.0, np.pi / 2)
        if np.allclose([y0, y1], [0.0, -1.0]):
            return (
                "(1, 0) turned by +π/2 gave (0, −1): that is clockwise. Counter-clockwise "
                "needs y0 = x0·cos − x1·sin and y1 = x0·sin + x1·cos."
            )
        if not np.allclose([y0, y1], [0.0, 1.0]):
            got = f"({float(y0):.3f}, {float(y1):.3f})"
            return f"(1, 0) turned by π/2 should give (0, 1), got {got}."
        return None

    def keeps_length(answer: Callable) -> str | None:
        y0, y1 = result(answer, x0, x1, angles)
        if not np.allclose(np.hypot(y0, y1), np.hypot(x0, x1)):
            return "a rotation keeps the length of (x0, x1); yours changes it — check the signs."
        return None

    def matches(answer: Callable) -> str | None:
        y0, y1 = result(answer, x0, x1, angles)
        c, s = np.cos(angles), np.sin(angles)
        if not (np.allclose(y0, x0 * c - x1 * s) and np.allclose(y1, x0 * s + x1 * c)):
            return "right for (1, 0) but not for general (x0, x1) — both inputs take part."
        return None

    return grade(
        "rotate one pair",
        rotate_pair,
        [quarter_turn, keeps_length, matches],
        "multiply (x0, x1) by [[cos, −sin], [sin, cos]]; it must work on numbers and arrays.",
        call=(1.0, 0.0, 0.5),
    )


def check_rope_adjacent(rope_adjacent: Callable) -> Feedback:
    """Lesson 07: ``rope_adjacent(x, positions, base)`` is RoPE with adjacent pairs.

    Examples
    --------
    >>> from pe_helpers.rope import apply_rope
    >>> check_rope_adjacent(lambda x, positions, base: apply_rope(x, positions, base)).status
    'correct'
    """
    rng = np.random.default_rng(8)
    x = rng.normal(size=(5, 8))
    positions = np.array([0.0, 3.0, 7.0, 12.0, 100.0])
    base = 10000.0
    expected = apply_rope(x, positions, base)

    def result(answer: Callable) -> np.ndarray:
        return _as_matrix(answer(x.copy(), positions.copy(), base), "the result", x.shape)

    def shape(answer: Callable) -> str | None:
        result(answer)
        return None

    def known_slips(answer: Callable) -> str | None:
        got = result(answer)
        if np.allclose(got, expected):
            return None
        if np.allclose(got, apply_rope(x, positions, base, pairing="halves")):
            return (
                "you used the split-halves layout (pairs k and k + d/2); this exercise wants "
                "adjacent pairs (2k, 2k + 1), as in RoFormer."
            )
        if np.allclose(got, apply_rope(x, -positions, base)):
            return "you rotated clockwise: the angle is +m·w_k (counter-clockwise)."
        if np.allclose(got, apply_rope(x, np.arange(len(positions)), base)):
            return "you used the row index as the position; use the positions argument."
        if np.allclose(np.linalg.norm(got, axis=1), np.linalg.norm(x, axis=1)):
            return (
                "lengths are kept but the angles are off: pair k turns by m·w_k with "
                "w_k = base ** (−2k / d), k counting pairs (0 .. d/2 − 1), not columns."
            )
        return "the rows changed length: each pair must be rotated, not scaled."

    return grade(
        "RoPE, adjacent pairs",
        rope_adjacent,
        [shape, known_slips],
        "angles = np.outer(positions, w) with w_k = base ** (−2k/d); then rotate "
        "(x[:, 0::2], x[:, 1::2]) with rotate_pair.",
        call=(x.copy(), positions.copy(), base),
    )


def check_unwrapped_pairs(unwrapped_pairs: Callable) -> Feedback:
    """Lesson 07: ``unwrapped_pairs(d_model, base, train_length)`` marks the pairs whose angle
    never completes a full turn over positions ``0 .. train_length - 1``.

    Examples
    --------
    >>> def answer(d_model, base, train_length):
    ...     return (train_length - 1) * frequencies(d_model, base) < 2 * np.pi
    >>> check_unwrapped_pairs(answer).status
    'correct'
    """
    cases = [(128, 10000.0, 512), (64, 500000.0, 4096), (16, 100.0, 50), (4, 10000.0, 7)]

    def result(answer: Callable, d_model: int, base: float, length: int) -> np.ndarray:
        out = np.asarray(answer(d_model, base, length))
        if out.shape != (d_model // 2,):
            raise ValueError(
                f"return one entry per pair (d_model/2 = {d_model // 2}), got shape {out.shape}"
            )
        if out.dtype != bool:
            raise TypeError(f"return booleans (True = never a full turn), got dtype {out.dtype}")
        return out

    def shape(answer: Callable) -> str | None:
        for case in cases:
            result(answer, *case)
        return None

    def known_slips(answer: Callable) -> str | None:
        for d_model, base, length in cases:
            got = result(answer, d_model, base, length)
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
        [shape, known_slips],
        "the largest angle pair k reaches is (L − 1)·w_k; compare it with 2π.",
        call=(8, 10000.0, 16),
    )


# --- Lesson 01–03: why position, addition, frequencies ---

#: The exponent slip every lesson-03 check looks for first.
EXPONENT_HINT = (
    "check the exponent: in w_k = base^(-2k/d) the k counts (sin, cos) PAIRS, k = 0 .. d/2 - 1. "
    "Reading 2i/d with i the COLUMN index (0 .. d-1) double-counts: the exponent runs to "
    "almost 2 instead of almost 1 and sin and cos of a pair get different frequencies."
)


def _as_float_array(value: object, name: str = "your answer") -> np.ndarray:
    arr = np.asarray(value, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf")
    return arr


def _shape_problem(got: np.ndarray, expected: tuple, what: str) -> str | None:
    if got.shape != expected:
        return f"{what} should have shape {expected}, got {got.shape}."
    return None


# Lesson 01 ----------------------------------------------------------------------------

_SHUFFLE_ORDER = np.array([2, 0, 4, 1, 3])


def _shuffle_case() -> np.ndarray:
    return np.random.default_rng(101).normal(size=(5, 4))


def check_unshuffled_attention(answer: object) -> Feedback:
    """Check ``attend_then_unshuffle(x, order)`` of lesson 01.

    The function runs self-attention on the shuffled tokens ``x[order]`` and puts
    the outputs back in the original order; the result must equal self-attention
    on ``x`` itself (attention is permutation-equivariant).

    Examples
    --------
    >>> from pe_helpers import attention
    >>> def solution(x, order):
    ...     s = x[order]
    ...     return attention(s, s, s)[np.argsort(order)]
    >>> check_unshuffled_attention(solution).status
    'correct'
    """
    x, order = _shuffle_case(), _SHUFFLE_ORDER
    shuffled = x[order]
    shuffled_out = attention(shuffled, shuffled, shuffled)
    original_out = attention(x, x, x)

    def shape(f):
        return _shape_problem(_as_float_array(f(x, order)), x.shape, "the outputs")

    def still_shuffled(f):
        if np.allclose(_as_float_array(f(x, order)), shuffled_out):
            return (
                "your rows are still in the shuffled order: row i belongs to token order[i]. "
                "Undo the shuffle with the inverse permutation np.argsort(order)."
            )
        return None

    def shuffled_twice(f):
        if np.allclose(_as_float_array(f(x, order)), shuffled_out[order]):
            return (
                "you indexed with order a second time, which shuffles again instead of "
                "undoing it: the inverse permutation is np.argsort(order)."
            )
        return None

    def matches(f):
        if not np.allclose(_as_float_array(f(x, order)), original_out):
            return "the unshuffled outputs differ from self-attention on the original x."
        return None

    return grade(
        "attend, then unshuffle",
        answer,
        [shape, still_shuffled, shuffled_twice, matches],
        "shuffle with s = x[order], attend with attention(s, s, s), then put row i back "
        "where token order[i] came from.",
        call=(x, order),
    )


def check_first_input_weight(answer: object) -> Feedback:
    """Check ``first_input_weight(decay, n_steps)``: the weight ``a^(n-1)`` of x_1 in h_n.

    Examples
    --------
    >>> check_first_input_weight(lambda a, n: a ** (n - 1)).status
    'correct'
    >>> check_first_input_weight(lambda a, n: a ** n).status
    'wrong'
    """
    cases = [(0.9, 20), (0.5, 3), (0.2, 1), (1.0, 7), (0.99, 100)]

    def off_by_one(f):
        if all(np.isclose(float(f(a, n)), a**n) for a, n in cases[:3]):
            return (
                "off by one: you returned a^n. h_1 = x_1 already holds x_1 with weight 1; "
                "each of the n - 1 later steps multiplies it by a once."
            )
        return None

    def values(f):
        for a, n in cases:
            got = float(f(a, n))
            if not np.isclose(got, a ** (n - 1)):
                return (
                    f"for a = {a}, n = {n} the weight is {a ** (n - 1):.6g}, "
                    f"you returned {got:.6g}."
                )
        return None

    return grade(
        "weight of the first input",
        answer,
        [off_by_one, values],
        "unroll h_3 = a·h_2 + x_3 = a·(a·x_1 + x_2) + x_3 and count the factors a on x_1.",
        call=(0.9, 20),
    )


def check_steps_until_faded(answer: object) -> Feedback:
    """Check ``steps_until_faded(decay, threshold)``: the smallest n with a^(n-1) < threshold.

    Examples
    --------
    >>> import math
    >>> check_steps_until_faded(
    ...     lambda a, eps: math.floor(math.log(eps) / math.log(a)) + 2
    ... ).status
    'correct'
    """
    cases = [(0.9, 0.01), (0.5, 0.1), (0.99, 0.5), (0.3, 0.05)]

    def expected(a, eps):
        n = 1
        while a ** (n - 1) >= eps:
            n += 1
        return n

    def integer(f):
        got = f(0.9, 0.01)
        if isinstance(got, (bool, np.bool_)) or not isinstance(got, (numbers.Integral)):
            return f"return a whole number of steps (an int), got {got!r}."
        return None

    def exponent_not_length(f):
        if all(int(f(a, e)) == expected(a, e) - 1 for a, e in cases):
            return (
                "you returned the exponent n - 1, not the sequence length n: "
                "the weight of x_1 in h_n is a^(n-1)."
            )
        return None

    def smallest(f):
        for a, e in cases:
            got, want = int(f(a, e)), expected(a, e)
            if got > want:
                return (
                    f"for a = {a}, threshold = {e}: n = {want} already gives "
                    f"a^(n-1) = {a ** (want - 1):.4g} < {e}; you returned {got}, not the smallest."
                )
            if got < want:
                return (
                    f"for a = {a}, threshold = {e}: at n = {got} the weight is still "
                    f"a^(n-1) = {a ** (got - 1):.4g} >= {e}."
                )
        return None

    return grade(
        "steps until the first input fades",
        answer,
        [integer, exponent_not_length, smallest],
        "a loop that grows n until a**(n - 1) < threshold works; so does a logarithm.",
        call=(0.9, 0.01),
    )


# Lesson 02 ----------------------------------------------------------------------------

_CONCAT_D, _CONCAT_N = 4, 6


def _concat_case():
    rng = np.random.default_rng(202)
    x = rng.normal(size=_CONCAT_D)
    w = rng.normal(size=(_CONCAT_D, _CONCAT_D + _CONCAT_N))
    return x, w


def check_concat_then_project(answer: object) -> Feedback:
    """Check ``concat_then_project(x, position, w, n_positions)`` of lesson 02.

    It stacks the embedding ``x`` (length d) on a one-hot vector of
    ``n_positions`` entries with a 1 at ``position``, and multiplies by ``w``
    of shape ``(d, d + n_positions)``.

    Examples
    --------
    >>> def solution(x, position, w, n_positions):
    ...     return w @ np.concatenate([x, np.eye(n_positions)[position]])
    >>> check_concat_then_project(solution).status
    'correct'
    """
    x, w = _concat_case()
    d, n = _CONCAT_D, _CONCAT_N

    def result(f, position):
        return _as_float_array(f(x, position, w, n))

    def shape(f):
        return _shape_problem(result(f, 2), (d,), "the projected vector")

    def position_missing(f):
        if np.allclose(result(f, 2), w[:, :d] @ x):
            return (
                "the position part is missing: you get W_I·x only. The one-hot vector "
                "needs a 1 at index position, so that W_P contributes its column."
            )
        return None

    def off_by_one(f):
        for position in (1, 2, 3):
            got = result(f, position)
            for wrong in (position - 1, position + 1):
                if np.allclose(got, w[:, :d] @ x + w[:, d + wrong]):
                    return (
                        f"for position {position} your one-hot vector has its 1 at index "
                        f"{wrong}: positions count from 0, so put it at index position."
                    )
        return None

    def values(f):
        for position in range(n):
            if not np.allclose(result(f, position), w @ np.concatenate([x, np.eye(n)[position]])):
                return f"for position {position} the result is not W·[x; one_hot(position)]."
        return None

    return grade(
        "concatenate, then project",
        answer,
        [shape, position_missing, off_by_one, values],
        "np.eye(n_positions)[position] is the one-hot vector; np.concatenate([x, p]) "
        "stacks; w @ ... projects.",
        call=(x, 0, w, n),
    )


def check_add_position_vector(answer: object) -> Feedback:
    """Check ``add_position_vector(x, position, w_token, w_position)`` of lesson 02.

    It must return ``w_token @ x + w_position[:, position]``: the embedding plus
    the learned vector of that position, equal to the concatenate-then-project result.

    Examples
    --------
    >>> check_add_position_vector(lambda x, p, wt, wp: wt @ x + wp[:, p]).status
    'correct'
    """
    x, w = _concat_case()
    d, n = _CONCAT_D, _CONCAT_N
    w_token, w_position = w[:, :d], w[:, d:]

    def shape(f):
        return _shape_problem(
            _as_float_array(f(x, 1, w_token, w_position)), (d,), "the sum"
        )

    def row_not_column(f):
        for position in range(d):
            if np.allclose(
                _as_float_array(f(x, position, w_token, w_position)),
                w_token @ x + w_position[position, :d],
            ):
                return (
                    "you took a row of W_P; each position owns a COLUMN: w_position[:, position]."
                )
        return None

    def equals_concat(f):
        for position in range(n):
            want = w @ np.concatenate([x, np.eye(n)[position]])
            if not np.allclose(_as_float_array(f(x, position, w_token, w_position)), want):
                return (
                    f"for position {position} the sum differs from W·[x; one_hot(position)]."
                )
        return None

    return grade(
        "embedding plus a learned position vector",
        answer,
        [shape, row_not_column, equals_concat],
        "W·[x; p] = W_I·x + W_P·p, and W_P·one_hot(position) picks one column of W_P.",
        call=(x, 0, w_token, w_position),
    )


def _probe_case():
    rng = np.random.default_rng(303)
    positions = rng.integers(0, 20, 120)
    features = sinusoidal_pe(positions, 8) + 0.5 * rng.normal(size=(120, 8))
    return features, positions.astype(np.float64)


def check_fit_position_probe(answer: object) -> Feedback:
    """Check ``fit_position_probe(features, positions)`` of lesson 02.

    It returns ``d + 1`` least-squares weights: one per feature, then the bias,
    so that ``features @ weights[:-1] + weights[-1]`` predicts the positions.

    Examples
    --------
    >>> def solution(features, positions):
    ...     design = np.column_stack([features, np.ones(len(features))])
    ...     return np.linalg.lstsq(design, positions, rcond=None)[0]
    >>> check_fit_position_probe(solution).status
    'correct'
    """
    features, positions = _probe_case()
    design = np.column_stack([features, np.ones(len(features))])
    best = np.linalg.lstsq(design, positions, rcond=None)[0]
    d = features.shape[1]

    def no_bias(f):
        got = _as_float_array(f(features, positions))
        if got.shape == (d,):
            return (
                f"you returned {d} weights: the probe also needs a bias (an intercept), "
                "so add a column of ones to the features and return d + 1 weights."
            )
        return None

    def shape(f):
        return _shape_problem(_as_float_array(f(features, positions)), (d + 1,), "the weights")

    def bias_first(f):
        got = _as_float_array(f(features, positions))
        if np.allclose(got, np.r_[best[-1], best[:-1]]) and not np.allclose(got, best):
            return "put the bias last: weights[:-1] multiply the features, weights[-1] is added."
        return None

    def least_squares(f):
        got = _as_float_array(f(features, positions))
        residual = np.sum((design @ got - positions) ** 2)
        optimum = np.sum((design @ best - positions) ** 2)
        if residual > optimum * (1 + 1e-6) + 1e-9:
            return (
                f"these weights are not the least-squares fit: squared error {residual:.4g}, "
                f"the best possible is {optimum:.4g}."
            )
        return None

    return grade(
        "fit a linear position probe",
        answer,
        [no_bias, shape, bias_first, least_squares],
        "design = np.column_stack([features, np.ones(len(features))]); "
        "np.linalg.lstsq(design, positions, rcond=None)[0].",
        call=(features, positions),
    )


# Lesson 03 ----------------------------------------------------------------------------


def _exponent_slip(got: np.ndarray, d_model: int, base: float) -> bool:
    """True if ``got`` looks like frequencies from the column reading of 2i/d."""
    i = np.arange(d_model, dtype=np.float64)
    k = np.arange(d_model // 2, dtype=np.float64)
    candidates = [base ** (-2 * i / d_model), base ** (-4 * k / d_model)]
    return any(got.shape == c.shape and np.allclose(got, c) for c in candidates)


def check_pair_frequencies(answer: object) -> Feedback:
    """Check ``pair_frequencies(d_model, base)``: ``w_k = base^(-2k/d)`` for k = 0 .. d/2 - 1.

    A frequency vector built with the column index in the exponent gets the
    specific exponent hint (:data:`EXPONENT_HINT`).

    Examples
    --------
    >>> check_pair_frequencies(lambda d, b: b ** (-2 * np.arange(d // 2) / d)).status
    'correct'
    >>> print(check_pair_frequencies(lambda d, b: b ** (-2 * np.arange(d) / d)).message[:18])
    check the exponent
    """
    cases = [(8, 10000.0), (16, 100.0), (128, 10000.0)]

    def exponent(f):
        for d, b in cases:
            if _exponent_slip(_as_float_array(f(d, b)), d, b):
                return EXPONENT_HINT
        return None

    def count(f):
        for d, b in cases:
            got = _as_float_array(f(d, b))
            if got.shape != (d // 2,):
                return (
                    f"one frequency per (sin, cos) pair: d = {d} needs shape ({d // 2},), "
                    f"got {got.shape}."
                )
        return None

    def direction(f):
        got = _as_float_array(f(8, 10000.0))
        if np.allclose(got, 10000.0 ** (2 * np.arange(4) / 8)):
            return (
                "the sign of the exponent is flipped: frequencies must fall from 1 "
                "towards 1/base."
            )
        return None

    def missing_two(f):
        got = _as_float_array(f(8, 10000.0))
        if np.allclose(got, 10000.0 ** (-np.arange(4) / 8)):
            return "the exponent is k/d; it should be 2k/d (the last pair then gets nearly 1/base)."
        return None

    def values(f):
        for d, b in cases:
            got = _as_float_array(f(d, b))
            if not np.isclose(got[0], 1.0):
                return f"the first pair (k = 0) has frequency base^0 = 1, got {got[0]:.6g}."
            if not np.allclose(got, frequencies(d, b)):
                return f"for d = {d}, base = {b:g} the frequencies do not match base^(-2k/d)."
        return None

    return grade(
        "frequencies of the pairs",
        answer,
        [exponent, count, direction, missing_two, values],
        "one frequency per pair: w_k = base^(-2k/d) for k = 0, 1, ..., d/2 - 1.",
        call=(8, 10000.0),
    )


def check_pe_row(answer: object) -> Feedback:
    """Check ``pe_row(t, d_model, base)``: the encoding of one position.

    Column ``2k`` is ``sin(w_k t)``, column ``2k + 1`` is ``cos(w_k t)``,
    ``w_k = base^(-2k/d)``. The column reading of the exponent gets the exponent
    hint; a swapped or split-halves layout gets its own message.

    Examples
    --------
    >>> from pe_helpers import sinusoidal_pe
    >>> check_pe_row(lambda t, d, b: sinusoidal_pe([t], d, b)[0]).status
    'correct'
    """
    cases = [(3.0, 8, 10000.0), (7.5, 16, 100.0), (41.0, 64, 10000.0)]

    def row(f, t, d, b):
        return _as_float_array(f(t, d, b))

    def shape(f):
        for t, d, b in cases:
            problem = _shape_problem(row(f, t, d, b), (d,), f"the row for d = {d}")
            if problem:
                return problem
        return None

    def bounded(f):
        for t, d, b in cases:
            if np.abs(row(f, t, d, b)).max() > 1 + 1e-12:
                return "sin and cos stay in [-1, 1], but your row has larger values."
        return None

    def exponent(f):
        for t, d, b in cases:
            got = row(f, t, d, b)
            i = np.arange(d, dtype=np.float64)
            angles = t * b ** (-2 * i / d)
            slip = np.where(i % 2 == 0, np.sin(angles), np.cos(angles))
            k = np.arange(d // 2, dtype=np.float64)
            angles4 = t * b ** (-4 * k / d)
            slip4 = np.stack([np.sin(angles4), np.cos(angles4)], axis=1).ravel()
            if np.allclose(got, slip) or np.allclose(got, slip4):
                return EXPONENT_HINT
        return None

    def layout(f):
        t, d, b = cases[0]
        got, want = row(f, t, d, b), sinusoidal_pe([t], d, b)[0]
        swapped = want.reshape(-1, 2)[:, ::-1].ravel()
        halves = np.concatenate([want[0::2], want[1::2]])
        if np.allclose(got, swapped):
            return "sin and cos are swapped: column 2k is sin(w_k t), column 2k + 1 is cos(w_k t)."
        if np.allclose(got, halves):
            return (
                "you put all sines first and all cosines second; this course interleaves "
                "them: sin at even columns, cos at odd columns."
            )
        return None

    def values(f):
        for t, d, b in cases:
            if not np.allclose(row(f, t, d, b), sinusoidal_pe([t], d, b)[0]):
                return (
                    f"for t = {t:g}, d = {d}, base = {b:g} the row is not the "
                    "sinusoidal encoding."
                )
        return None

    return grade(
        "the encoding of one position",
        answer,
        [shape, bounded, exponent, layout, values],
        "compute the d/2 pair frequencies w_k first; then the even columns (row[0::2]) "
        "take sin(w_k t) and the odd columns (row[1::2]) cos(w_k t).",
        call=(3.0, 8, 10000.0),
    )


def check_longest_wavelength(answer: object) -> Feedback:
    """Check ``longest_wavelength(d_model, base)``: ``2 pi base^((d-2)/d)``.

    Examples
    --------
    >>> check_longest_wavelength(lambda d, b: 2 * np.pi * b ** ((d - 2) / d)).status
    'correct'
    """
    cases = [(128, 10000.0), (8, 100.0), (2, 10000.0)]

    def want(d, b):
        return 2 * np.pi * b ** ((d - 2) / d)

    def full_base(f):
        if all(np.isclose(float(f(d, b)), 2 * np.pi * b) for d, b in cases[:2]):
            return (
                "2π·base is a bound, not the value: the last pair has k = d/2 - 1, so its "
                "exponent is 2k/d = (d - 2)/d, just under 1."
            )
        return None

    def missing_two_pi(f):
        if all(np.isclose(float(f(d, b)), b ** ((d - 2) / d)) for d, b in cases[:2]):
            return "that is 1/w of the last pair; a wavelength is 2π / w (don't forget 2π)."
        return None

    def values(f):
        for d, b in cases:
            got = float(f(d, b))
            if not np.isclose(got, want(d, b)):
                return f"for d = {d}, base = {b:g} expected {want(d, b):.6g}, got {got:.6g}."
        return None

    return grade(
        "the longest wavelength",
        answer,
        [full_base, missing_two_pi, values],
        "the slowest pair is k = d/2 - 1; its wavelength is 2π / w_k.",
        call=(128, 10000.0),
    )
