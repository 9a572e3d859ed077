"""Lesson 03 maths: wavelengths, the column reading of the exponent, closest pairs, bits."""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike

from ..._validate import (
    as_array,
    check_array,
    check_d_model,
    check_int,
    check_positions,
    check_rope_base,
)
from ...encodings import frequencies

__all__ = ["binary_digits", "column_reading_pe", "running_min_distance", "wavelengths"]

#: Most numbers a helper of this lesson returns (32 MB of float64).
MAX_CELLS = 2**22
#: Most binary digits per value: every value must fit a signed 64-bit integer.
MAX_BITS = 63
#: Most work ``n² · d`` that :func:`running_min_distance` accepts (20,000 vectors of width 64).
MAX_DISTANCE_WORK = 3 * 10**10
#: Working block of :func:`running_min_distance`: numbers per tile, rows per tile.
_BLOCK, _TILE = 2**17, 256


def _check_cells(what: str, count: int) -> None:
    if count > MAX_CELLS:
        raise ValueError(f"{what} would hold {count:,} numbers; the limit is {MAX_CELLS:,}")


def wavelengths(d_model: int, base: float = 10000.0) -> np.ndarray:
    """Wavelength ``2π / w_k`` of each (sin, cos) pair, in positions.

    A geometric progression with ratio ``base^(2/d)``, from ``2π`` (pair 0) to
    ``2π · base^((d-2)/d)`` (the last pair).

    Parameters
    ----------
    d_model : int
        Width of the encoding; positive, even, at most ``2 * MAX_CELLS``.
    base : float, default 10000.0
        Frequency base, > 0.

    Returns
    -------
    numpy.ndarray
        The wavelength of each pair, shape ``(d_model // 2,)``, growing from ``2π``.

    Examples
    --------
    >>> (wavelengths(4, base=100.0) / (2 * np.pi)).round(12).tolist()
    [1.0, 10.0]
    """
    _check_cells(f"d_model = {d_model}", check_d_model(d_model) // 2)
    return 2.0 * np.pi / frequencies(d_model, base)


def column_frequencies(d_model: int, base: float) -> np.ndarray:
    """Per-column frequencies ``base^(-2i/d)`` of the column reading (``i`` the column)."""
    return base ** (-2.0 * np.arange(d_model) / d_model)


def column_reading_pe(
    positions: int | ArrayLike, d_model: int, base: float = 10000.0
) -> np.ndarray:
    """The encoding built with the column reading of the exponent ``2i/d`` (a known bug).

    Reading ``i`` as the *column* index gives column ``i`` the frequency
    ``base^(-2i/d)``: the exponent runs to almost 2 instead of almost 1, and the sin
    and cos columns of a pair get different frequencies.

    Parameters
    ----------
    positions : int or array_like
        A count ``n`` (positions ``0 .. n-1``) or a 1-D array of positions.
    d_model : int
        Width of the encoding; positive and even.
    base : float, default 10000.0
        Frequency base, > 1.

    Returns
    -------
    numpy.ndarray
        Shape ``(n, d_model)`` (at most ``MAX_CELLS`` numbers): even column ``i`` holds
        ``sin(w_i t)``, odd column ``i`` holds ``cos(w_i t)``, ``w_i = base^(-2i/d)``.

    Examples
    --------
    >>> column_reading_pe([0.0], 4).tolist()
    [[0.0, 1.0, 0.0, 1.0]]
    """
    d_model, base = check_d_model(d_model), check_rope_base(base)
    _check_cells(f"d_model = {d_model}", d_model)
    if isinstance(positions, numbers.Integral):  # a count: bounded before any array is made
        check_int("positions", positions, maximum=MAX_CELLS // d_model)
    t = check_positions(positions)
    _check_cells(f"{t.size} positions and d_model = {d_model}", t.size * d_model)
    angles = np.multiply.outer(t, column_frequencies(d_model, base))
    out = np.cos(angles)
    out[:, 0::2] = np.sin(angles[:, 0::2])
    return out


def running_min_distance(vectors: ArrayLike) -> np.ndarray:
    """Smallest distance between two of the first ``m`` vectors, for ``m = 2 .. n``.

    Works in tiles of ``2**17`` numbers, so memory stays a few MB above the input for
    any ``n``. A fast screen ``|y|² - 2 x·y`` picks the earlier vectors that can be
    nearest within rounding; their distances are computed from differences ``x - y``,
    so close vectors far from the origin are not lost to cancellation.

    Parameters
    ----------
    vectors : array_like
        Shape ``(n, d)`` with ``n >= 2``: one vector per position, in order, with
        ``n² · d <= MAX_DISTANCE_WORK`` (3e10, e.g. 20,000 vectors of width 64).

    Returns
    -------
    numpy.ndarray
        Shape ``(n - 1,)``; entry ``m - 2`` is the minimum Euclidean distance over all
        pairs among rows ``0 .. m - 1``. It never increases.

    Examples
    --------
    >>> running_min_distance([[0.0], [3.0], [1.0]]).tolist()
    [3.0, 1.0]
    >>> running_min_distance([[1e8], [1e8 + 1]]).tolist()
    [1.0]
    """
    x = np.asarray(check_array("vectors", vectors, ndim=2), dtype=np.float64)
    n, d = x.shape
    if n < 2:
        raise ValueError(f"vectors must have shape (n, d) with n >= 2, got {x.shape}")
    if n * n * d > MAX_DISTANCE_WORK:
        raise ValueError(
            f"vectors of shape {x.shape} need n² · d = {n * n * d:.2e} steps; "
            f"the limit is MAX_DISTANCE_WORK = {MAX_DISTANCE_WORK:.0e}"
        )
    squares = np.einsum("ij,ij->i", x, x)
    # The screen is off by less than slack · (|x|² + |y|²), with room to spare.
    slack = 16.0 * (d + 2) * np.finfo(np.float64).eps
    nearest = np.full(n, np.inf)  # squared distance from row j to its nearest earlier row
    width = _BLOCK // _TILE
    for top in range(1, n, _TILE):
        bottom = min(n, top + _TILE)
        tolerance = slack * (squares[top:bottom] + squares[:bottom].max())
        screened = np.full(bottom - top, np.inf)
        scaled = -2.0 * x[top:bottom]  # exact: -2 x·y, one pass over the tile fewer
        for left in range(0, bottom - 1, width):
            right = min(bottom - 1, left + width)
            screen = block = candidate = None  # the last block's arrays go before the next's
            screen = scaled @ x[left:right].T
            screen += squares[left:right]
            if right > top:  # keep pairs (row j, column i) with i < j
                screen[np.arange(left, right) >= np.arange(top, bottom)[:, None]] = np.inf
            lowest = screen.min(axis=1)
            np.minimum(screened, lowest, out=screened)
            near = screened + tolerance
            # Only rows whose block comes within rounding of their running minimum have
            # candidates (usually few): the others are skipped without a pass over the block.
            rows = np.flatnonzero(np.isfinite(lowest) & ((lowest < near) | (lowest <= screened)))
            if rows.size == 0:
                continue
            whole = 2 * rows.size > len(screen)  # most rows: the whole block, without a copy
            if whole:
                rows = slice(None)
            block = screen[rows]
            candidate = block < near[rows, None]
            here = np.flatnonzero(lowest[rows] <= screened[rows])
            candidate[here, block.argmin(axis=1)[here]] = True
            row, col = np.nonzero(candidate)
            _refine(x, nearest, top, left, row if whole else rows[row], col)
    return np.minimum.accumulate(np.sqrt(nearest[1:]))


def _refine(x: np.ndarray, nearest: np.ndarray, top: int, left: int, row, col) -> None:
    """Lower ``nearest[top + row]`` to the exact squared distances to rows ``left + col``."""
    if row.size == 0:
        return
    exact = np.empty(row.size)
    chunk = max(1, _BLOCK // x.shape[1])
    for lo in range(0, row.size, chunk):
        diff = x[top + row[lo : lo + chunk]] - x[left + col[lo : lo + chunk]]
        exact[lo : lo + chunk] = np.einsum("ij,ij->i", diff, diff)
    firsts = np.flatnonzero(np.r_[True, row[1:] != row[:-1]])
    rows = top + row[firsts]
    nearest[rows] = np.minimum(nearest[rows], np.minimum.reduceat(exact, firsts))


def binary_digits(values: int | ArrayLike, n_bits: int) -> np.ndarray:
    """Binary digits of non-negative integers, least significant bit first.

    Exact for every integer below ``2**63``: the values stay integers throughout.

    Parameters
    ----------
    values : int or array_like of int
        A count ``n`` (meaning ``0 .. n-1``) or a 1-D array of integers in
        ``[0, 2**n_bits)`` (integers, not floats: floats are whole only below ``2**53``).
    n_bits : int
        Number of digits, 1 to ``MAX_BITS`` (63).

    Returns
    -------
    numpy.ndarray
        Shape ``(n, n_bits)`` of 0/1 integers (at most ``MAX_CELLS``); column ``b``
        is bit ``b`` (value ``2**b``).

    Examples
    --------
    >>> binary_digits(4, 2).tolist()
    [[0, 0], [1, 0], [0, 1], [1, 1]]
    >>> int(binary_digits([2**53 + 1], 54)[0, 0])
    1
    """
    n_bits = check_int("n_bits", n_bits, minimum=1, maximum=MAX_BITS)
    if isinstance(values, (numbers.Integral, np.integer)) and not isinstance(values, bool):
        count = check_int("values", values, minimum=1)
        _check_cells(f"values = {count} and n_bits = {n_bits}", count * n_bits)
        ints = np.arange(count, dtype=np.int64)
    else:
        ints = _whole_numbers(values)
        _check_cells(f"{ints.size} values and n_bits = {n_bits}", ints.size * n_bits)
    if int(ints.max()) >= 2**n_bits:
        raise ValueError(f"values must be < 2**n_bits = {2**n_bits}, got {int(ints.max())}")
    return (ints[:, None] >> np.arange(n_bits, dtype=np.int64)) & 1


def _whole_numbers(values: object) -> np.ndarray:
    """``values`` as a non-empty 1-D int64 array of integers in ``[0, 2**63)``."""
    arr = as_array("values", values)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"values must be a non-empty 1-D array, got shape {arr.shape}")
    if arr.dtype == object and all(isinstance(v, numbers.Integral) for v in arr.tolist()):
        arr = np.array([2**MAX_BITS])  # Python integers too large for numpy's int64
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(
            f"values must be integers (floats are whole only below 2**53), got {values!r:.60}"
        )
    if int(arr.max()) >= 2**MAX_BITS or int(arr.min()) < 0:
        raise ValueError(f"values must lie in [0, 2**{MAX_BITS}), got {values!r:.60}")
    return arr.astype(np.int64)
