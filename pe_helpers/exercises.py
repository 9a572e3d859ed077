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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

__all__ = ["Feedback", "Check", "grade"]

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
