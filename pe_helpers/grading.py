"""Grading for the self-checking exercises: feedback, and one set of answer helpers.

A learner passes an answer (a value, or a function) to the lesson's ``check_...``, which
returns a :class:`Feedback`: ``todo`` for an unfinished stub, ``wrong`` naming the property
that failed, or ``correct``; it is truthy only when correct, so solutions can ``assert`` it.
A learner's function runs once per distinct input, on copies, within
:data:`CALL_TIME_LIMIT` seconds a call; whatever goes wrong (their exception, an endless
loop, an unusable answer) becomes feedback: nothing raises from inside ``pe_helpers``.
"""

from __future__ import annotations

import copy
import ctypes
import math
import numbers
import signal
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

import numpy as np

from ._validate import show_value
from .i18n import translate

__all__ = [
    "AnswerProblem",
    "Attempt",
    "Check",
    "Feedback",
    "agrees_on",
    "as_array",
    "as_integer",
    "as_number",
    "as_pair",
    "close",
    "grade",
    "shown",
    "tolerance",
    "value_of",
]

#: A check receives the learner's answer and returns None when it holds, or a
#: message saying which property failed. It may raise :class:`AnswerProblem`.
Check = Callable[[object], "str | None"]

#: Seconds one call of a learner's function may run before the checker stops it and says so
#: (every checker's own cases take well under a second).
CALL_TIME_LIMIT = 10.0

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
        A nudge towards the answer, shown only when ``status`` is ``"wrong"`` (in HTML behind
        a click).
    """

    exercise: str
    status: str
    message: str
    hint: str = ""

    def __post_init__(self) -> None:
        # what the learner reads, in the notebook's language (pe_helpers.i18n)
        for name in ("exercise", "message", "hint"):
            object.__setattr__(self, name, translate(getattr(self, name)))

    @property
    def passed(self) -> bool:
        """True only for a correct answer."""
        return self.status == "correct"

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        text = f"{_ICONS[self.status]} {self.exercise}: {self.message}"
        if self.status == "wrong" and self.hint:
            text += f"\n  {translate('Hint')}: {self.hint}"
        return text

    __repr__ = __str__

    def _repr_html_(self) -> str:
        colour = _COLOURS[self.status]
        hint = ""
        if self.status == "wrong" and self.hint:
            # a projected notebook shows the verdict, not the answer
            hint = (
                f'<details style="margin-top: 2px;"><summary><em>{translate("Hint")}</em>'
                f"</summary>{escape(self.hint)}</details>"
            )
        return (
            f'<div style="border-left: 4px solid {colour}; padding: 4px 10px;">'
            f'<strong style="color: {colour}">{_ICONS[self.status]} {escape(self.exercise)}'
            f"</strong>: {escape(self.message)}{hint}</div>"
        )


class AnswerProblem(Exception):
    """Raised by a check or an ``as_*`` helper: the message is the learner's feedback."""


class _LearnerError(Exception):
    """The learner's own function raised: ``"ZeroDivisionError: oops"``."""


class _Unfinished(Exception):
    """The learner's function is still a stub."""


class _TimedOut(BaseException):
    """Raised inside the learner's function at the time limit; no ``except Exception`` stops it."""


def _call_with_limit(function: Callable, args: tuple, seconds: float) -> object:
    """``function(*args)``, stopped with :class:`_TimedOut` after ``seconds``."""
    if (
        threading.current_thread() is threading.main_thread()
        and hasattr(signal, "setitimer")
        and signal.getitimer(signal.ITIMER_REAL)[0] == 0  # no one else's timer to clobber
    ):
        return _call_with_alarm(function, args, seconds)
    return _call_in_thread(function, args, seconds)


def _call_with_alarm(function: Callable, args: tuple, seconds: float) -> object:
    """The main thread's way (a Jupyter kernel, pytest): SIGALRM interrupts the function."""

    def on_alarm(signum: int, frame: object) -> None:
        raise _TimedOut

    previous = signal.signal(signal.SIGALRM, on_alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            return function(*args)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, previous)


def _call_in_thread(function: Callable, args: tuple, seconds: float) -> object:
    """Elsewhere: the function runs in a thread, which is told to stop at the limit."""
    outcome: list = []

    def run() -> None:
        try:
            outcome.append(("value", function(*args)))
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller's thread
            outcome.append(("error", exc))

    worker = threading.Thread(target=run, daemon=True, name="learner's function")
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        # raise _TimedOut inside the worker at its next bytecode, so a loop does not run on
        ctypes.pythonapi.PyThreadState_SetAsyncExc(
            ctypes.c_ulong(worker.ident), ctypes.py_object(_TimedOut)
        )
        worker.join(1.0)
        raise _TimedOut
    kind, result = outcome[0]
    if kind == "error":
        raise result
    return result


def _key(value: object) -> object:
    if isinstance(value, np.ndarray):
        return ("array", value.shape, value.dtype.str, value.tobytes())
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(_key(v) for v in value))
    return ("value", type(value).__name__, repr(value))


class Attempt:
    """A learner's function, called at most once per distinct input, on copies.

    Parameters
    ----------
    function : callable
        The learner's answer.

    Examples
    --------
    >>> calls = []
    >>> attempt = Attempt(lambda x: calls.append(x) or 2 * x)
    >>> attempt(3), attempt(3), len(calls)
    (6, 6, 1)
    """

    def __init__(self, function: Callable) -> None:
        self.function = function
        self._results: dict = {}

    def __repr__(self) -> str:
        # What a message shows for the wrapped answer: never the wrapper's own repr.
        return f"a function ({getattr(self.function, '__name__', type(self.function).__name__)})"

    def __call__(self, *args: object) -> object:
        key = _key(args)
        if key not in self._results:
            # what it returned, or the exception that stands for what went wrong
            try:
                result = _call_with_limit(self.function, copy.deepcopy(args), CALL_TIME_LIMIT)
                self._results[key] = _Unfinished() if _unfinished(result) else result
            except NotImplementedError:
                self._results[key] = _Unfinished()
            except _TimedOut:
                self._results[key] = AnswerProblem(
                    f"your function did not return within {CALL_TIME_LIMIT:g} s, so it was "
                    "stopped: look for a loop that never ends (a while loop whose condition "
                    "stays true)."
                )
            except Exception as exc:  # noqa: BLE001 - a learner's error becomes feedback
                self._results[key] = _LearnerError(f"{type(exc).__name__}: {exc}")
        result = self._results[key]
        if isinstance(result, (_Unfinished, _LearnerError, AnswerProblem)):
            raise result
        return copy.deepcopy(result)


def _unfinished(answer: object) -> bool:
    return answer is None or answer is NotImplemented


def value_of(answer: object) -> object:
    """The answer itself, or what a zero-argument function answer returns.

    Examples
    --------
    >>> value_of(3), value_of(lambda: 3)
    (3, 3)
    """
    return answer() if callable(answer) else answer


def shown(value: object) -> str:
    """How a message shows a learner's value: its repr, cut at 60 characters; an object whose
    repr is only its address (``<... object at 0x...>``) by the name of its type.

    Examples
    --------
    >>> shown([1, 2]), shown(object())
    ('[1, 2]', 'an object of type object')
    """
    if " at 0x" in repr(value):
        return f"an object of type {type(value).__name__}"
    return show_value(value)


def as_number(
    value: object, what: str = "your answer", *, keep_dtype: bool = False
) -> float | np.floating:
    """A finite real number from a learner's answer, or :class:`AnswerProblem`.

    Accepts Python and numpy real scalars and arrays holding exactly one number;
    refuses text, booleans, complex numbers, NaN and ±inf with a message saying so.

    Parameters
    ----------
    value : object
        The learner's answer.
    what : str, default "your answer"
        How the message names it.
    keep_dtype : bool, default False
        Return a numpy scalar in the answer's own floating dtype (float64 for anything
        else), so that :func:`close` and :func:`tolerance` follow its precision: a float32
        answer is compared at float32's tolerance.

    Examples
    --------
    >>> as_number(np.array([0.25]))
    0.25
    >>> as_number(np.float32(0.5), keep_dtype=True).dtype
    dtype('float32')
    >>> as_number("0.25")
    Traceback (most recent call last):
    ...
    pe_helpers.grading.AnswerProblem: your answer is text ('0.25'); give the number itself, \
without quotes.
    """
    dtype = getattr(value, "dtype", None)
    if isinstance(value, str):
        raise AnswerProblem(f"{what} is text ({value!r}); give the number itself, without quotes.")
    if isinstance(value, np.ndarray):
        if value.size != 1:
            raise AnswerProblem(f"{what} must be one number, got an array of shape {value.shape}.")
        value = value.reshape(()).item()
    elif isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise AnswerProblem(
            f"{what} must be a number, got {type(value).__name__} ({shown(value)})."
        )
    try:
        number = float(value)
    except OverflowError:  # an int past a float's range (10**400)
        number = math.inf
    if not math.isfinite(number):
        raise AnswerProblem(f"{what} is {number}; a finite number is expected.")
    if keep_dtype:
        if isinstance(dtype, np.dtype) and np.issubdtype(dtype, np.floating):
            return dtype.type(number)
        return np.float64(number)
    return number


def as_integer(value: object, what: str = "your answer") -> int:
    """A whole number from a learner's answer (``3`` or ``3.0``), or :class:`AnswerProblem`.

    Examples
    --------
    >>> as_integer(np.float64(45.0))
    45
    """
    number = as_number(value, what)
    if number != round(number):
        raise AnswerProblem(f"{what} must be a whole number, got {number:g}.")
    return int(round(number))


def as_array(value: object, what: str = "your answer", shape: tuple | None = None) -> np.ndarray:
    """A finite real array from a learner's answer, of ``shape`` if given.

    The dtype is kept when it is floating (so tolerances can follow it), otherwise
    the values become float64.

    Examples
    --------
    >>> as_array([[1, 2]], shape=(1, 2)).dtype
    dtype('float64')
    >>> as_array([1, 2], shape=(3,))
    Traceback (most recent call last):
    ...
    pe_helpers.grading.AnswerProblem: your answer must have shape (3,), got (2,).
    """
    if value is None or isinstance(value, str):
        raise AnswerProblem(f"{what} must be an array of numbers, got {type(value).__name__}.")
    try:
        arr = np.asarray(value)
    except ValueError:
        raise AnswerProblem(f"{what} is ragged: its rows have different lengths.") from None
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.integer)
        or np.issubdtype(arr.dtype, np.floating)
        or arr.dtype == np.bool_
    ):
        raise AnswerProblem(f"{what} must hold real numbers, got dtype {arr.dtype}.")
    if not np.issubdtype(arr.dtype, np.floating):
        arr = arr.astype(np.float64)
    if shape is not None and arr.shape != tuple(shape):
        raise AnswerProblem(f"{what} must have shape {tuple(shape)}, got {arr.shape}.")
    if not np.all(np.isfinite(arr)):
        raise AnswerProblem(f"{what} holds NaN or infinite values.")
    return arr


def as_pair(value: object, what: str = "your answer") -> tuple[object, object]:
    """Two items from a tuple, list or array of length two, or :class:`AnswerProblem`.

    Examples
    --------
    >>> as_pair([1, 2])
    (1, 2)
    """
    if isinstance(value, (tuple, list, np.ndarray)) and len(value) == 2:
        return value[0], value[1]
    raise AnswerProblem(f"{what} must be a pair of two items, got {type(value).__name__}.")


def tolerance(*arrays: object) -> float:
    """Relative tolerance for comparing answers: follows the least precise float dtype.

    float64 → 1e-9, float32 → 1e-5, float16 (or bfloat16) → 2e-3.

    Examples
    --------
    >>> tolerance(np.zeros(2, np.float32), 1.0)
    1e-05
    """
    eps = max(
        (
            np.finfo(a.dtype).eps
            for a in arrays
            if isinstance(a, (np.ndarray, np.generic)) and np.issubdtype(a.dtype, np.floating)
        ),
        default=np.finfo(np.float64).eps,
    )
    if eps <= np.finfo(np.float64).eps:
        return 1e-9
    if eps <= np.finfo(np.float32).eps:
        return 1e-5
    return 2e-3


def close(got: object, want: object, *, scale: float = 1.0) -> bool:
    """Whether ``got`` matches ``want`` within :func:`tolerance` of ``got``'s dtype.

    ``scale`` sets the absolute floor (tolerance × scale) for values near 0.

    Examples
    --------
    >>> close(np.float32(1 / 3), 1 / 3), close(1 / 3 + 1e-6, 1 / 3)
    (True, False)
    """
    rtol = tolerance(got)
    return bool(np.allclose(got, want, rtol=rtol, atol=rtol * scale))


def agrees_on(
    reference: Callable[..., object],
    cases: Sequence[tuple],
    what: Callable[..., str],
    slip: Callable[..., str],
    *,
    scale: float | None = None,
) -> Check:
    """A check that a learner's function returns ``reference``'s array on every case.

    The answer is read with :func:`as_array`, of the reference's shape; the first case where
    the two differ gives the message.

    Parameters
    ----------
    reference : callable
        The right answer for the arguments of a case.
    cases : sequence of tuple
        The arguments of each call, in the order they are tried.
    what : callable
        ``what(*case)``: how to name the learner's result for that case in a message.
    slip : callable
        ``slip(got, want, *case)``: the feedback for a wrong result.
    scale : float, optional
        None: the answer must equal the reference exactly (integers, ids). A number: it
        must be :func:`close` to it, with this scale for the absolute floor.

    Returns
    -------
    callable
        A check for :func:`grade`: None when every case agrees, else the slip's message.

    Examples
    --------
    >>> squares = agrees_on(np.square, [(np.arange(3),)], lambda x: "your squares",
    ...                     lambda got, want, x: f"expected {want.tolist()}")
    >>> grade("squares", lambda x: x * x, [squares], "multiply").status
    'correct'
    >>> grade("squares", lambda x: x + x, [squares], "multiply").message
    'expected [0, 1, 4]'
    """

    def check(attempt: Callable) -> str | None:
        for case in cases:
            want = reference(*case)
            got = as_array(attempt(*case), what(*case), shape=np.shape(want))
            same = np.array_equal(got, want) if scale is None else close(got, want, scale=scale)
            if not same:
                return slip(got, want, *case)
        return None

    return check


def grade(
    exercise: str,
    answer: object,
    checks: Sequence[Check],
    hint: str,
    *,
    call: tuple | None = None,
) -> Feedback:
    """Run ``checks`` on ``answer`` and turn the outcome into :class:`Feedback`.

    ``"todo"`` while the answer is unfinished (None, or a function that raises
    NotImplementedError or returns None); ``"wrong"`` with the message of the first check that
    fails, of an :class:`AnswerProblem` or of the learner's error; else ``"correct"``.

    Parameters
    ----------
    exercise : str
        Name shown to the learner.
    answer : object
        The learner's answer: a value, or a function. A function is wrapped in an
        :class:`Attempt` before any check sees it.
    checks : sequence of callables
        Each takes the answer and returns None when its property holds or a message
        naming the property that failed; it may raise :class:`AnswerProblem`.
    hint : str
        General hint, shown once an attempt is wrong (never while the exercise is unfinished).
    call : tuple, optional
        If given, ``answer`` must be callable, and is first called with these
        arguments to detect an unfinished stub.

    Returns
    -------
    Feedback

    Examples
    --------
    >>> is_two = lambda a: None if as_number(a) == 2 else f"expected 2, got {a!r}"
    >>> grade("one plus one", 2, [is_two], "add").status
    'correct'
    >>> grade("one plus one", None, [is_two], "add").status
    'todo'
    >>> grade("one plus one", float("nan"), [is_two], "add").message
    'your answer is nan; a finite number is expected.'
    """
    # no hint before a first attempt: it would give the answer away on a first Run All
    todo = Feedback(exercise, "todo", "not done yet — fill in the cell above and run it again.")
    if _unfinished(answer):
        return todo
    if call is not None and not callable(answer):
        return Feedback(
            exercise, "wrong", f"expected a function, got {type(answer).__name__}.", hint
        )
    if callable(answer) and not isinstance(answer, Attempt):
        answer = Attempt(answer)
    try:
        if call is not None:
            answer(*call)
        for check in checks:
            problem = check(answer)
            if problem:
                return Feedback(exercise, "wrong", problem, hint)
    except _Unfinished:
        return todo
    except _LearnerError as exc:
        return Feedback(exercise, "wrong", f"your function raised {exc}", hint)
    except AnswerProblem as exc:
        return Feedback(exercise, "wrong", str(exc), hint)
    except Exception as exc:  # noqa: BLE001 - whatever the answer is, the learner gets feedback
        return Feedback(
            exercise, "wrong", f"this answer could not be used ({type(exc).__name__}: {exc}).", hint
        )
    return Feedback(exercise, "correct", "correct — well done.")
