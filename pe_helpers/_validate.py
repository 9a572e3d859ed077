"""Argument checks shared by the public helpers.

Every check raises ``TypeError`` for a value of the wrong kind and ``ValueError``
for a value of the right kind but out of range, and names the parameter and the
value it received.
"""

from __future__ import annotations

import numbers

import numpy as np


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

    ``maximum`` is a size limit that keeps a call fast and small; the message says so.
    """
    if not _is_plain(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {_show(value)}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum} (keeps it fast and small), got {value}")
    return value


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
    value = float(value)
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
    return value
