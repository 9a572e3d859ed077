"""Argument checks shared by the public helpers, and the budget of one call.

Every check raises ``TypeError`` for a value of the wrong kind and ``ValueError``
for a value of the right kind but out of range, and names the parameter and the
value it received.

The budget, stated once here: one call of a public helper may use about 1 GiB of memory
(:data:`MEMORY_BUDGET`) and 5 s on one core (:data:`TIME_BUDGET`); one call that trains or
evaluates several models, 60 s (:data:`TRAINING_BUDGET`). Sizes past it are refused before any
work, by :func:`check_memory`, :func:`check_seconds` or a ``maximum`` of :func:`check_int`,
with a message that names the argument and says the budget. Times are estimates from the
sizes, pessimistic for a shared laptop core.
"""

from __future__ import annotations

import numbers

import numpy as np

#: The memory budget of one call of a public helper: 1 GiB. A size whose arrays would need
#: more is refused before anything is allocated, with a message naming the argument.
MEMORY_BUDGET = 2**30
#: The time budget of one call of a public helper that computes, in seconds on one core of a
#: laptop; a size whose work would take longer is refused the same way.
TIME_BUDGET = 5.0
#: The time budget of one call that trains or evaluates several models (``train``,
#: ``fine_tuned``, ``run_bench``, ``accuracy_table`` ...), in seconds on one core, estimated
#: from the model's size, the batch and the steps.
TRAINING_BUDGET = 60.0
#: The largest integer :func:`check_int` accepts, in size: numpy's int64 (2**63 - 1).
INT64_MAX = 2**63 - 1
#: The budgets as the messages state them.
BUDGET = f"about 1 GiB of memory and {TIME_BUDGET:g} s per call"


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_time(value: object) -> bool:
    # numpy registers timedelta64 as an Integral (it subclasses signedinteger): a duration
    # is not a count or a position, so every check below refuses it, as it does datetimes.
    return isinstance(value, (np.timedelta64, np.datetime64))


def _is_plain(value: object, kind: type) -> bool:
    """A number of ``kind`` (``numbers.Integral`` or ``numbers.Real``), not a bool or a time."""
    if isinstance(value, (bool, np.bool_)) or _is_time(value):
        return False
    return isinstance(value, kind)


def check_int(
    name: str, value: object, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    """Return ``value`` as an ``int``; reject bools, floats and values outside the bounds.

    ``maximum`` is a size limit that keeps a call within the budget (:data:`BUDGET`); the
    message says so. Whatever the bounds, the value must fit numpy's int64 (:data:`INT64_MAX`):
    a larger one (``10**400``) would end in a raw ``OverflowError`` wherever it meets numpy or
    a float, so it is refused here, before any conversion.
    """
    if not _is_plain(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {_show(value)}")
    value = int(value)
    if not -INT64_MAX <= value <= INT64_MAX:
        raise ValueError(
            f"{name} must lie within ±{INT64_MAX} (numpy's int64; no count or position of the "
            f"course comes near it), got {_show(value)}"
        )
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(
            f"{name} must be at most {maximum} (a size limit: it keeps a call within "
            f"{BUDGET}), got {value}"
        )
    return value


def _bytes(n_bytes: float) -> str:
    for unit, size in (("EiB", 2**60), ("PiB", 2**50), ("TiB", 2**40), ("GiB", 2**30)):
        if n_bytes >= size:
            return f"{n_bytes / size:.3g} {unit}"
    return f"{n_bytes / 2**20:.3g} MiB"


def check_memory(what: str, n_bytes: float) -> None:
    """Refuse work whose arrays would need more than :data:`MEMORY_BUDGET`.

    ``what`` names the arguments that set the size, with their values ("length = 1000 and
    n_samples = 256"); it starts the message.
    """
    if not n_bytes <= MEMORY_BUDGET:
        raise ValueError(
            f"{what} would need about {_bytes(n_bytes)} of memory; the budget is 1 GiB per call "
            "(pe_helpers._validate.MEMORY_BUDGET): use smaller sizes"
        )


def check_seconds(what: str, seconds: float, budget: float = TIME_BUDGET) -> None:
    """Refuse work estimated to take longer than ``budget`` seconds (default :data:`TIME_BUDGET`).

    ``what`` names the arguments that set the work, with their values; it starts the message.
    """
    if not seconds <= budget:
        shown = f"{seconds:.3g} s" if seconds < 1e6 else f"{seconds / 3.15e7:.3g} years"
        constant = "TRAINING_BUDGET" if budget == TRAINING_BUDGET else "TIME_BUDGET"
        raise ValueError(
            f"{what} would take about {shown} on one core; the budget is {budget:g} s per call "
            f"(pe_helpers._validate.{constant}): use smaller sizes"
        )


def check_bool(name: str, value: object) -> bool:
    """Return ``value`` if it is ``True`` or ``False`` (numpy bools too); 1, 0 and None raise."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {_show(value)}")
    return bool(value)


def check_d_model(value: object, name: str = "d_model") -> int:
    """Return a positive, even model width."""
    d_model = check_int(name, value, minimum=1)
    if d_model % 2:
        raise ValueError(f"{name} must be even (sin/cos come in pairs), got {d_model}")
    return d_model


def check_real(name: str, value: object, *, positive: bool = False) -> float:
    """Return a finite real scalar as ``float``; optionally require it to be > 0."""
    if not _is_plain(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {_show(value)}")
    try:
        value = float(value)
    except OverflowError:  # an int past a float's range (10**400): as good as infinite
        raise ValueError(f"{name} must be finite, got {_show(value)}") from None
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    if positive and value <= 0:
        raise ValueError(f"{name} must be > 0, got {value}")
    return value


def check_base(value: object) -> float:
    """Return the frequency base, a finite number > 0."""
    return check_real("base", value, positive=True)


def as_array(name: str, value: object) -> np.ndarray:
    """``np.asarray(value)``, with numpy's own errors replaced by one naming ``name``.

    A ragged nested list (rows of different lengths) raises ``ValueError``; anything
    else numpy cannot turn into an array raises ``TypeError``.
    """
    try:
        return np.asarray(value)
    except ValueError as exc:
        raise ValueError(
            f"{name} must be a rectangular array (every row the same length), got {_show(value)}"
        ) from exc
    except TypeError as exc:
        raise TypeError(f"{name} must be an array, got {_show(value)}") from exc


def _is_real_dtype(dtype: np.dtype) -> bool:
    # kind "i"/"u"/"f": not bool ("b"), complex ("c"), timedelta ("m"), datetime ("M"),
    # strings ("U", "S") or objects ("O").
    return dtype.kind in "iuf"


def check_positions(positions: object, name: str = "positions") -> np.ndarray:
    """Turn a count ``n`` or a 1-D array of positions into a float64 array.

    An integer ``n`` means ``0, 1, ..., n-1``. Arrays may hold fractional or
    negative positions but must be 1-D, real and finite.
    """
    if isinstance(positions, (numbers.Number, np.generic)) and not isinstance(
        positions, np.ndarray
    ):
        count = check_int(name, positions, minimum=0)
        return np.arange(count, dtype=np.float64)
    arr = as_array(name, positions)
    if not _is_real_dtype(arr.dtype):
        raise TypeError(
            f"{name} must be an int or a 1-D array of real numbers, got {_show(positions)}"
        )
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got an array of shape {arr.shape}")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf), got {_show(positions)}")
    return arr


def check_array(
    name: str,
    value: object,
    *,
    min_ndim: int = 1,
    ndim: int | None = None,
    finite: bool = True,
) -> np.ndarray:
    """A non-empty real array with at least ``min_ndim`` (or exactly ``ndim``) axes.

    Real means integer or floating dtype: bools, complex numbers, strings (even
    numeric ones), datetimes, timedeltas and objects raise ``TypeError``; a ragged
    nested list raises ``ValueError``. With ``finite=True`` (the default) NaN and
    ±inf raise ``ValueError`` too; callers that accept some infinities check them.
    """
    arr = as_array(name, value)
    if not _is_real_dtype(arr.dtype):
        raise TypeError(f"{name} must be an array of real numbers, got {_show(value)}")
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {arr.shape}")
    if arr.ndim < min_ndim:
        raise ValueError(
            f"{name} must have at least {min_ndim} dimension(s), got shape {arr.shape}"
        )
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {arr.shape}")
    if finite and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf), got {_show(value)}")
    return arr


def check_square(name: str, value: object, size: int, why: str = "") -> np.ndarray:
    """A ``(size, size)`` real matrix as float64; ``why`` ends the message (" to match x")."""
    matrix = check_array(name, value, ndim=2).astype(np.float64)
    if matrix.shape != (size, size):
        raise ValueError(f"{name} must be a ({size}, {size}) matrix{why}, got shape {matrix.shape}")
    return matrix


def check_float_dtype(value: object) -> np.dtype:
    """Return ``value`` as a numpy floating dtype."""
    try:
        dtype = np.dtype(value)
    except TypeError as exc:
        raise TypeError(f"dtype must be a floating dtype, got {_show(value)}") from exc
    if not np.issubdtype(dtype, np.floating):
        raise TypeError(f"dtype must be a floating dtype, got {_show(value)}")
    return dtype


def check_choice(name: str, value: object, choices: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {_show(value)}")
    return str(value)  # numpy's str_ too, as the plain string it equals
