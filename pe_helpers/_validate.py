"""Argument checks for the doors: the public helpers a learner's values enter through.

Every check raises ``TypeError`` for a value of the wrong kind and ``ValueError`` for a value of
the right kind but out of range, and names the parameter and the value it received. Sizes are
capped by a ``maximum`` of :func:`check_int` or by :func:`check_memory` (:data:`MEMORY_BUDGET`).
"""

from __future__ import annotations

import numbers

import numpy as np

#: The most memory the arrays of one call may need: 1 GiB.
MEMORY_BUDGET = 2**30
#: The largest integer :func:`check_int` accepts, in size: numpy's int64 (2**63 - 1).
INT64_MAX = 2**63 - 1
#: The largest count of positions :func:`check_positions` turns into ``0 .. n-1`` (128 MiB).
MAX_POSITIONS = 2**24


def show_value(value: object) -> str:
    """``repr(value)``, cut to 60 characters, for an error message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_plain(value: object, kind: type) -> bool:
    """A number of ``kind`` (``numbers.Integral`` or ``numbers.Real``), not a bool or a time."""
    # numpy registers timedelta64 as an Integral: a duration is no count, so it is refused.
    if isinstance(value, (bool, np.bool_, np.timedelta64, np.datetime64)):
        return False
    return isinstance(value, kind)


def check_int(
    name: str, value: object, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    """Return ``value`` as an ``int``: no bool or float, within the bounds and numpy's int64."""
    if not _is_plain(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {show_value(value)}")
    value = int(value)
    if not -INT64_MAX <= value <= INT64_MAX:
        raise ValueError(f"{name} must lie within ±{INT64_MAX} (int64), got {show_value(value)}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum} (a size limit), got {value}")
    return value


def check_memory(what: str, n_bytes: float) -> None:
    """Refuse work needing more than :data:`MEMORY_BUDGET`; ``what`` (sizes) starts the message."""
    if not n_bytes <= MEMORY_BUDGET:
        raise ValueError(
            f"{what} would need about {n_bytes / 2**30:.3g} GiB of memory, past the size limit "
            "of 1 GiB per call: use smaller sizes"
        )


def check_bool(name: str, value: object) -> bool:
    """Return ``value`` if it is ``True`` or ``False`` (numpy bools too); 1, 0 and None raise."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {show_value(value)}")
    return bool(value)


def check_d_model(value: object, name: str = "d_model", maximum: int | None = None) -> int:
    """Return a positive, even model width (at most ``maximum``)."""
    d_model = check_int(name, value, minimum=1, maximum=maximum)
    if d_model % 2:
        raise ValueError(f"{name} must be even (sin/cos come in pairs), got {d_model}")
    return d_model


def check_real(
    name: str, value: object, *, positive: bool = False, minimum: float | None = None
) -> float:
    """Return a finite real scalar as ``float``; optionally > 0 or >= ``minimum``."""
    if not _is_plain(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {show_value(value)}")
    try:
        value = float(value)
    except OverflowError:  # an int past a float's range (10**400): as good as infinite
        raise ValueError(f"{name} must be finite, got {show_value(value)}") from None
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    if positive and value <= 0:
        raise ValueError(f"{name} must be > 0, got {value}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def check_base(value: object) -> float:
    """Return the frequency base, a finite number > 0."""
    return check_real("base", value, positive=True)


def check_rope_base(value: object, name: str = "base") -> float:
    """Return a RoPE base, > 1: its frequencies ``base ** (-2k / d)`` fall from 1."""
    base = check_real(name, value)
    if base <= 1:
        raise ValueError(f"{name} must be > 1 (frequencies fall from 1), got {base}")
    return base


def as_array(name: str, value: object) -> np.ndarray:
    """``np.asarray(value)``; a ragged list raises ``ValueError``, a non-array ``TypeError``."""
    try:
        return np.asarray(value)
    except ValueError as exc:
        raise ValueError(f"{name} must be a rectangular array, got {show_value(value)}") from exc
    except TypeError as exc:
        raise TypeError(f"{name} must be an array, got {show_value(value)}") from exc


def check_positions(positions: object, name: str = "positions") -> np.ndarray:
    """Turn a count ``n`` or a 1-D array of positions into a float64 array.

    An integer ``n`` (at most :data:`MAX_POSITIONS`) means ``0, 1, ..., n-1``. Arrays may hold
    fractional or negative positions but must be 1-D, real and finite.
    """
    if isinstance(positions, (numbers.Number, np.generic)) and not isinstance(
        positions, np.ndarray
    ):
        count = check_int(name, positions, minimum=0, maximum=MAX_POSITIONS)
        return np.arange(count, dtype=np.float64)
    arr = as_array(name, positions)
    if arr.dtype.kind not in "iuf":  # bool, complex, time, text and objects are no positions
        raise TypeError(
            f"{name} must be an int or a 1-D array of real numbers, got {show_value(positions)}"
        )
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got an array of shape {arr.shape}")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf), got {show_value(positions)}")
    return arr


def check_array(
    name: str,
    value: object,
    *,
    min_ndim: int = 1,
    ndim: int | None = None,
    finite: bool = True,
) -> np.ndarray:
    """A non-empty int or float array, ``min_ndim`` or more (or ``ndim``) axes; finite if asked."""
    arr = as_array(name, value)
    if arr.dtype.kind not in "iuf":  # bool, complex, text, times and objects
        raise TypeError(f"{name} must be an array of real numbers, got {show_value(value)}")
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {arr.shape}")
    if arr.ndim < min_ndim:
        raise ValueError(
            f"{name} must have at least {min_ndim} dimension(s), got shape {arr.shape}"
        )
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {arr.shape}")
    if finite and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf), got {show_value(value)}")
    return arr


def check_square(name: str, value: object, size: int, why: str = "") -> np.ndarray:
    """A ``(size, size)`` real matrix as float64; ``why`` ends the message (" to match x")."""
    matrix = check_array(name, value, ndim=2).astype(np.float64)
    if matrix.shape != (size, size):
        raise ValueError(f"{name} must be a ({size}, {size}) matrix{why}, got shape {matrix.shape}")
    return matrix


def check_float_dtype(value: object) -> np.dtype:
    """Return ``value`` as a numpy floating dtype (not None, which numpy reads as float64)."""
    try:
        dtype = np.dtype(value)
    except TypeError as exc:
        raise TypeError(f"dtype must be a floating dtype, got {show_value(value)}") from exc
    if value is None or not np.issubdtype(dtype, np.floating):
        raise TypeError(f"dtype must be a floating dtype, got {show_value(value)}")
    return dtype


def check_choice(name: str, value: object, choices: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {show_value(value)}")
    return str(value)  # numpy's str_ too, as the plain string it equals
