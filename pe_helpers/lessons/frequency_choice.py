"""Lesson 03 · Choosing the frequencies (``notebooks/03_frequency_choice.ipynb``).

The geometric ladder of frequencies ``w_k = base^(-2k/d)``: the misreading of its
exponent, the wavelengths, aliasing at whole-number positions, collisions of a single
frequency and the binary-counter analogy. Helpers, figures (the slider figure is
:class:`EncodingAndWavelengths`) and exercise checkers.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullLocator
from numpy.typing import ArrayLike

from .._validate import _show, check_array, check_base, check_d_model, check_int, check_real
from ..encodings import frequencies, sinusoidal_pe
from ..figures import (
    FIGSIZE,
    WIDE_FIGSIZE,
    course_style,
    format_base,
    heatmap,
    new_axes,
    plot_curves,
)
from ..grading import Feedback, as_array, as_number, close, grade
from ..live import LiveFigure, even_control, int_control, log_control

__all__ = [
    "EXPONENT_HINT",
    "MAX_BITS",
    "MAX_CELLS",
    "MAX_DISTANCE_WORK",
    "EncodingAndWavelengths",
    "binary_digits",
    "check_longest_wavelength",
    "check_pair_frequencies",
    "check_pe_row",
    "column_reading_pe",
    "plot_aliasing",
    "plot_counter_analogy",
    "plot_frequency_readings",
    "plot_min_distance",
    "plot_wavelengths",
    "running_min_distance",
    "wavelengths",
]

#: Most numbers a helper of this lesson returns (32 MB of float64).
MAX_CELLS = 2**22
#: Most binary digits per value: every value must fit a signed 64-bit integer.
MAX_BITS = 63
#: Most work ``n² · d`` that :func:`running_min_distance` accepts (a few seconds).
MAX_DISTANCE_WORK = 3 * 10**10
#: Largest base and widest encoding the figures of this lesson draw.
MAX_PLOT_BASE, MAX_PLOT_D = 1e12, 1024
#: Working block of :func:`running_min_distance`: numbers per tile, rows per tile.
_BLOCK, _TILE = 2**17, 256


def _real_array(name: str, value: object, ndim: int) -> np.ndarray:
    """``value`` as a finite float64 array with ``ndim`` axes; ragged input is named."""
    try:
        arr = np.asarray(value)
    except ValueError as exc:
        raise ValueError(f"{name} must have rows of equal length, got {_show(value)}") from exc
    return np.asarray(check_array(name, arr, ndim=ndim), dtype=np.float64)


def _check_cells(what: str, count: int) -> None:
    if count > MAX_CELLS:
        raise ValueError(f"{what} would hold {count:,} numbers; the limit is {MAX_CELLS:,}")


# --- maths -----------------------------------------------------------------------------------


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
        Shape ``(d_model // 2,)``.

    Examples
    --------
    >>> (wavelengths(4, base=100.0) / (2 * np.pi)).tolist()
    [1.0, 10.0]
    """
    _check_cells("the wavelengths", check_d_model(d_model) // 2)
    return 2.0 * np.pi / frequencies(d_model, base)


def _column_reading(d_model: int, base: float) -> np.ndarray:
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
        Frequency base, > 0.

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
    d_model, base = check_d_model(d_model), check_base(base)
    _check_cells("the encoding", d_model)
    w = _column_reading(d_model, base)
    if isinstance(positions, numbers.Integral) and not isinstance(positions, bool):
        count = check_int("positions", positions, minimum=0)
        _check_cells("the encoding", count * w.size)
        t = np.arange(count, dtype=np.float64)
    else:
        t = _real_array("positions", positions, ndim=1)
        _check_cells("the encoding", t.size * w.size)
    angles = np.multiply.outer(t, w)
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
    x = _real_array("vectors", vectors, ndim=2)
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
        for left in range(0, bottom - 1, width):
            right = min(bottom - 1, left + width)
            screen = x[top:bottom] @ x[left:right].T
            screen *= -2.0
            screen += squares[left:right]
            if right > top:  # keep pairs (row j, column i) with i < j
                screen[np.arange(left, right) >= np.arange(top, bottom)[:, None]] = np.inf
            lowest = screen.min(axis=1)
            np.minimum(screened, lowest, out=screened)
            candidate = screen < (screened + tolerance)[:, None]
            here = np.flatnonzero(np.isfinite(lowest) & (lowest <= screened))
            candidate[here, screen[here].argmin(axis=1)] = True
            _refine(x, nearest, top, left, *np.nonzero(candidate))
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
    n_bits = check_int("n_bits", n_bits, minimum=1)
    if n_bits > MAX_BITS:
        raise ValueError(f"n_bits must be at most MAX_BITS = {MAX_BITS}, got {n_bits}")
    if isinstance(values, (numbers.Integral, np.integer)) and not isinstance(values, bool):
        count = check_int("values", values, minimum=1)
        _check_cells("the digits", count * n_bits)
        ints = np.arange(count, dtype=np.int64)
    else:
        ints = _whole_numbers(values)
        _check_cells("the digits", ints.size * n_bits)
    if int(ints.max()) >= 2**n_bits:
        raise ValueError(f"values must be < 2**n_bits = {2**n_bits}, got {int(ints.max())}")
    return (ints[:, None] >> np.arange(n_bits, dtype=np.int64)) & 1


def _whole_numbers(values: object) -> np.ndarray:
    """``values`` as a non-empty 1-D int64 array of integers in ``[0, 2**63)``."""
    try:
        arr = np.asarray(values)
    except (ValueError, OverflowError) as exc:
        raise ValueError(f"values must be a 1-D list of integers, got {_show(values)}") from exc
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"values must be a non-empty 1-D array, got shape {arr.shape}")
    if arr.dtype == object and all(isinstance(v, numbers.Integral) for v in arr.tolist()):
        arr = np.array([2**MAX_BITS])  # Python integers too large for numpy's int64
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(
            f"values must be integers (floats are whole only below 2**53), got {_show(values)}"
        )
    if int(arr.max()) >= 2**MAX_BITS or int(arr.min()) < 0:
        raise ValueError(f"values must lie in [0, 2**{MAX_BITS}), got {_show(values)}")
    return arr.astype(np.int64)


# --- figures ---------------------------------------------------------------------------------


def _axes(ax: Axes | None) -> Axes:
    """``ax``, or a new single panel: no layout engine (inline output is cropped anyway)."""
    return plt.figure(figsize=FIGSIZE).add_subplot() if ax is None else new_axes(ax)


def _plot_sizes(d_model: object, base: object) -> tuple[int, float]:
    d_model, base = check_d_model(d_model), check_base(base)
    if d_model > MAX_PLOT_D:
        raise ValueError(f"d_model must be at most {MAX_PLOT_D} for this figure, got {d_model}")
    if not 1.0 <= base <= MAX_PLOT_BASE:
        raise ValueError(f"base must lie in [1, {MAX_PLOT_BASE:.0e}] for this figure, got {base:g}")
    return d_model, base


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _powers_of_ten(axis) -> None:
    """Label a log axis 10⁻³, 10⁰, 10⁴ in plain text, without minor ticks.

    Mathtext labels and a minor tick per unit cost about 0.3 s a panel.
    """
    power = FuncFormatter(lambda v, _: "10" + str(round(np.log10(v))).translate(_SUPERSCRIPT))
    axis.set_major_formatter(power)
    axis.set_minor_locator(NullLocator())


def _build_wavelengths(ax: Axes, with_position: bool, legend: str) -> SimpleNamespace:
    (ladder,) = ax.plot([], [], marker="o", color="C0", label="wavelength 2π / w_k")
    ax.axhline(2 * np.pi, linestyle=":", color="C2", label="2π (fastest pair)")
    top = ax.axhline(1.0, linestyle="--", color="C3", label="2π · base")
    position = ax.axhline(1.0, color="C1", label="position t") if with_position else None
    ax.set_yscale("log")
    _powers_of_ten(ax.yaxis)
    ax.set_xlabel("pair index k (dimensions 2k, 2k+1)")
    ax.set_ylabel("wavelength (positions)")
    ax.legend(loc=legend)
    return SimpleNamespace(axes=ax, ladder=ladder, top=top, position=position)


def _update_wavelengths(art, d_model: int, base: float, position=None, ylim=None) -> None:
    lam = wavelengths(d_model, base)
    art.ladder.set_data(np.arange(lam.size, dtype=np.float64), lam)
    art.top.set_ydata([2 * np.pi * base] * 2)
    if art.position is not None:
        art.position.set_ydata([position] * 2)
    if ylim is None:
        shown = [float(lam.min()), float(lam.max()), 2 * np.pi, 2 * np.pi * base]
        ylim = (min(shown) / 2.0, max(shown) * 4.0)
    art.axes.set_xlim(-1, lam.size)
    art.axes.set_ylim(*ylim)
    art.axes.set_title(f"Wavelength of pair k (d = {d_model}, base = {format_base(base)})")


@course_style
def plot_wavelengths(d_model: int = 128, base: float = 10000.0, ax: Axes | None = None) -> Axes:
    """Wavelength of every (sin, cos) pair on a log scale, with lines at 2π and 2π·base.

    Parameters
    ----------
    d_model, base : int, float, default 128, 10000.0
        Width of the encoding (even, 2 to 1024) and frequency base (1 to 1e12).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> plot_wavelengths(8, 100.0).get_title()
    'Wavelength of pair k (d = 8, base = 100)'
    """
    d_model, base = _plot_sizes(d_model, base)
    art = _build_wavelengths(_axes(ax), with_position=False, legend="lower right")
    _update_wavelengths(art, d_model, base)
    return art.axes


@course_style
def plot_frequency_readings(
    d_model: int = 128, base: float = 10000.0, ax: Axes | None = None
) -> Axes:
    """Frequency of each column: pair reading of ``2i/d`` (right) vs column reading (wrong).

    Parameters
    ----------
    d_model, base : int, float, default 128, 10000.0
        Width of the encoding (even, 2 to 1024) and frequency base (1 to 1e12).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> len(plot_frequency_readings(8).lines)
    2
    """
    d_model, base = _plot_sizes(d_model, base)
    ax = _axes(ax)
    columns = np.arange(d_model)
    ax.semilogy(columns, np.repeat(frequencies(d_model, base), 2), marker="o", color="C0",
                label="i = pair index k (correct): sin and cos share w_k")
    ax.semilogy(columns, _column_reading(d_model, base), marker="x", linestyle="--",
                color="C3", label="i = column index (wrong): exponent runs to ≈ 2")
    ax.set_xlabel("column of the encoding")
    ax.set_ylabel("frequency (radians per position)")
    ax.set_title("Reading the exponent 2i/d: pair index vs column index")
    _powers_of_ten(ax.yaxis)
    ax.legend(loc="lower left")
    return ax


@course_style
def plot_aliasing(frequency: float = 1000.0, t_max: int = 10, ax: Axes | None = None) -> Axes:
    """A fast sine for continuous t, its values at whole-number t, and its slow alias.

    ``sin(w t) = sin((w - 2πm) t)`` at every integer ``t``; the alias takes the
    integer ``m`` nearest ``w / 2π``, so it lies in ``[-π, π]``.

    Parameters
    ----------
    frequency : float, default 1000.0
        Angular frequency ``w``, with ``|w| · t_max <= 1e5``.
    t_max : int, default 10
        Positions ``0 .. t_max`` (1 to 100).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> plot_aliasing(7.0, 5).get_title()
    'At whole-number t, sin(7 t) takes the values of sin(0.7168 t)'
    """
    w = check_real("frequency", frequency)
    t_max = check_int("t_max", t_max, minimum=1)
    if t_max > 100 or abs(w) * t_max > 1e5:
        raise ValueError(
            f"need t_max <= 100 and |frequency| · t_max <= 1e5, got t_max = {t_max}, "
            f"frequency = {w:g}"
        )
    alias = w - 2 * np.pi * round(w / (2 * np.pi))  # same values at every whole-number t
    ax = _axes(ax)
    fine = np.linspace(0.0, t_max, max(400, int(4 * abs(w) * t_max / np.pi) + 1))  # 8/cycle
    ax.plot(fine, np.sin(w * fine), color="0.7", linewidth=0.5, label=f"sin({w:g} t), real t")
    ax.plot(fine, np.sin(alias * fine), color="C0", label=f"sin({alias:.4f} t)")
    whole = np.arange(t_max + 1, dtype=np.float64)
    ax.plot(whole, np.sin(w * whole), "o", color="C3", label="at t = 0, 1, 2, …")
    ax.set_xlabel("position t")
    ax.set_ylabel("value")
    ax.set_ylim(-1.7, 1.7)
    ax.set_title(f"At whole-number t, sin({w:g} t) takes the values of sin({alias:.4f} t)")
    ax.legend(loc="upper center", ncols=3)
    return ax


@course_style
def plot_min_distance(
    lengths: ArrayLike, curves: Mapping[str, ArrayLike], ax: Axes | None = None
) -> Axes:
    """Smallest distance between the encodings of any two of the first n positions.

    Parameters
    ----------
    lengths : array_like
        Sequence lengths ``n`` (x axis).
    curves : dict of str to array_like
        One curve per encoding, by legend label; values > 0 (log y axis).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> plot_min_distance([2, 3], {"a": [1.0, 0.5]}).get_legend().get_texts()[0].get_text()
    'a'
    """
    ax = plot_curves(lengths, curves, _axes(ax), xlabel="number of positions n",
                     ylabel="closest pair distance",
                     title="How close do two different positions get?", logy=True)
    ax.legend(loc="lower left")  # a fixed place: "best" costs a fifth of the drawing
    _powers_of_ten(ax.yaxis)
    return ax


@course_style
def plot_counter_analogy(
    n_positions: int = 16, d_model: int = 8, base: float = 100.0, axes: object = None
) -> Figure:
    """A binary counter (one bit per pair) next to the sinusoidal encoding, row by row.

    Parameters
    ----------
    n_positions : int, default 16
        Positions ``0 .. n_positions - 1``: 2 to ``min(64, 2**(d_model / 2))``.
    d_model, base : int, float, default 8, 100.0
        Width of the encoding (even, 2 to 16) and frequency base (1 to 1e12).
    axes : pair of matplotlib.axes.Axes, optional
        Where to draw; a new wide figure when None.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> plot_counter_analogy(4, 4).axes[1].get_title()
    'Sinusoidal PE (d = 4): fast columns left'
    """
    d_model, base = _plot_sizes(d_model, base)
    n_positions = check_int("n_positions", n_positions, minimum=2)
    if d_model > 16 or n_positions > min(64, 2 ** (d_model // 2)):
        raise ValueError(
            f"need d_model <= 16 and n_positions <= min(64, 2**(d_model/2)), got "
            f"d_model = {d_model}, n_positions = {n_positions}"
        )
    if axes is None:
        axes = plt.figure(figsize=WIDE_FIGSIZE).subplots(1, 2, gridspec_kw={"wspace": 0.25})
    elif len(axes) != 2 or not all(isinstance(a, Axes) for a in axes):
        raise TypeError(f"axes must be a pair of matplotlib Axes, got {_show(axes)}")
    left, right = axes
    heatmap(binary_digits(n_positions, d_model // 2), left, xlabel="bit b (value 2^b)",
            ylabel="position t", title="Binary counter (red = 1): low bits flip fast",
            limit=1.0, colorbar=False)
    heatmap(sinusoidal_pe(n_positions, d_model, base), right, xlabel="dimension i",
            ylabel="position t", title=f"Sinusoidal PE (d = {d_model}): fast columns left",
            limit=1.0, colorbar=False)
    left.set_xticks(np.arange(d_model // 2))
    right.set_xticks(np.arange(d_model))
    return left.figure


class EncodingAndWavelengths(LiveFigure):
    """One position's encoding as stems (left) and the wavelength of every pair (right).

    The horizontal line on the right is the position ``t``: pairs whose wavelength
    lies below it have already turned full circle at least once.

    Examples
    --------
    >>> EncodingAndWavelengths().draw(d_model=8, base=100.0, position=3).axes[0].get_title()
    'PE(t = 3), d = 8, base = 100'
    """

    controls = {
        "d_model": even_control("d", 64, 2, 256),
        "base": log_control("base", 10000.0, 10.0, 1e6),
        "position": int_control("position t", 10, 1, 1000),
    }
    figsize = WIDE_FIGSIZE
    grid = (1, 2)

    def build(self, axes) -> SimpleNamespace:
        left, right = axes
        (sin_dots,) = left.plot([], [], "o", color="C0", label="sin (even i)")
        (cos_dots,) = left.plot([], [], "o", color="C1", label="cos (odd i)")
        sin_stems = left.add_collection(LineCollection([], colors="C0"))
        cos_stems = left.add_collection(LineCollection([], colors="C1"))
        left.axhline(0.0, color="C7")
        left.set_ylim(-1.15, 1.5)
        left.set_xlabel("dimension i")
        left.set_ylabel("PE value")
        left.legend(loc="upper center", ncols=2)
        wave = _build_wavelengths(right, with_position=True, legend="upper left")
        return SimpleNamespace(left=left, sin_dots=sin_dots, cos_dots=cos_dots,
                               sin_stems=sin_stems, cos_stems=cos_stems, wave=wave)

    def update(self, art: SimpleNamespace, d_model: int, base: float, position: int) -> None:
        row = sinusoidal_pe([position], d_model, base)[0]
        columns = np.arange(d_model, dtype=np.float64)
        parts = ((0, art.sin_dots, art.sin_stems), (1, art.cos_dots, art.cos_stems))
        for part, dots, stems in parts:
            x, y = columns[part::2], row[part::2]
            dots.set_data(x, y)
            stems.set_segments(np.stack([np.column_stack([x, 0 * y]), np.column_stack([x, y])], 1))
        art.left.set_xlim(-1, d_model)
        art.left.set_title(f"PE(t = {position:g}), d = {d_model}, base = {format_base(base)}")
        # Fixed limits: every t and base fits, the ladder visibly grows with the base, and a
        # step of t or base redraws only the artists that move.
        ylim = (0.5, 8 * np.pi * self.controls["base"].maximum)
        _update_wavelengths(art.wave, d_model, base, position, ylim)

    def moving(self, art: SimpleNamespace) -> list:
        wave = art.wave
        return [art.sin_dots, art.cos_dots, art.sin_stems, art.cos_stems, art.left.title,
                wave.ladder, wave.top, wave.position, wave.axes.title]


# --- exercises -------------------------------------------------------------------------------

#: The exponent slip every checker of this lesson looks for first.
EXPONENT_HINT = (
    "check the exponent: in w_k = base^(-2k/d) the k counts (sin, cos) PAIRS, k = 0 .. d/2 - 1. "
    "Reading 2i/d with i the COLUMN index (0 .. d-1) double-counts: the exponent runs to "
    "almost 2 instead of almost 1 and sin and cos of a pair get different frequencies."
)


def _matches(got: np.ndarray, want: np.ndarray) -> bool:
    return got.shape == np.shape(want) and close(got, want)


def _number(value: object, what: str) -> np.ndarray:
    """A learner's number as a 0-d array that keeps a float32 dtype (for the tolerance)."""
    as_number(value, what)
    arr = np.asarray(value)
    return (arr if np.issubdtype(arr.dtype, np.floating) else arr.astype(np.float64)).reshape(())


def _misread(d_model: int, base: float) -> list[np.ndarray]:
    """Frequencies from the two misreadings of ``2i/d``: per column, and ``4k/d`` per pair."""
    i, k = np.arange(d_model), np.arange(d_model // 2)
    return [base ** (-2.0 * i / d_model), base ** (-4.0 * k / d_model)]


def _interleave(w: np.ndarray, t: float) -> np.ndarray:
    return np.stack([np.sin(w * t), np.cos(w * t)], axis=1).ravel()


def check_pair_frequencies(answer: object) -> Feedback:
    """Check ``pair_frequencies(d_model, base)``: ``w_k = base^(-2k/d)``, k = 0 .. d/2 - 1.

    Examples
    --------
    >>> check_pair_frequencies(lambda d, b: b ** (-2 * np.arange(d // 2) / d)).status
    'correct'
    >>> print(check_pair_frequencies(lambda d, b: b ** (-2 * np.arange(d) / d)).message[:18])
    check the exponent
    """
    cases = [(8, 10000.0), (16, 100.0), (128, 10000.0)]

    def got(f, d, b):
        return as_array(f(d, b), f"your frequencies for d = {d}, base = {b:g}")

    def exponent(f):
        if any(_matches(got(f, d, b), slip) for d, b in cases for slip in _misread(d, b)):
            return EXPONENT_HINT
        return None

    def count(f):
        for d, b in cases:
            if got(f, d, b).shape != (d // 2,):
                return (f"one frequency per (sin, cos) pair: d = {d} needs shape ({d // 2},), "
                        f"got {got(f, d, b).shape}.")
        return None

    def slips(f):
        k = np.arange(4.0)
        if _matches(got(f, 8, 10000.0), 10000.0 ** (2 * k / 8)):
            return "the sign of the exponent is flipped: frequencies fall from 1 towards 1/base."
        if _matches(got(f, 8, 10000.0), 10000.0 ** (-k / 8)):
            return "the exponent is k/d; it should be 2k/d (the last pair then gets nearly 1/base)."
        return None

    def values(f):
        for d, b in cases:
            if not close(got(f, d, b)[0], 1.0):
                return f"the first pair (k = 0) has frequency base^0 = 1, got {got(f, d, b)[0]:g}."
            if not close(got(f, d, b), frequencies(d, b)):
                return f"for d = {d}, base = {b:g} the frequencies do not match base^(-2k/d)."
        return None

    return grade("frequencies of the pairs", answer, [exponent, count, slips, values],
                 "one frequency per pair: w_k = base^(-2k/d) for k = 0, 1, ..., d/2 - 1.",
                 call=cases[0])


def check_pe_row(answer: object) -> Feedback:
    """Check ``pe_row(t, d_model, base)``: ``row[2k] = sin(w_k t)``, ``row[2k+1] = cos(w_k t)``.

    Examples
    --------
    >>> check_pe_row(lambda t, d, b: sinusoidal_pe([t], d, b)[0]).status
    'correct'
    """
    cases = [(3.0, 8, 10000.0), (7.5, 16, 100.0), (41.0, 64, 10000.0)]

    def row(f, t, d, b):
        return as_array(f(t, d, b), f"your row for t = {t:g}, d = {d}")

    def shape(f):
        for t, d, b in cases:
            if row(f, t, d, b).shape != (d,):
                return f"the row for d = {d} should have shape ({d},), got {row(f, t, d, b).shape}."
        return None

    def bounded(f):
        if any(np.abs(row(f, *case)).max() > 1.001 for case in cases):
            return "sin and cos stay in [-1, 1], but your row has larger values."
        return None

    def exponent(f):
        for t, d, b in cases:
            by_column, by_pair = _misread(d, b)
            angles = t * by_column
            column_row = np.where(np.arange(d) % 2 == 0, np.sin(angles), np.cos(angles))
            if _matches(row(f, t, d, b), column_row) or _matches(
                row(f, t, d, b), _interleave(by_pair, t)
            ):
                return EXPONENT_HINT
        return None

    def layout(f):
        t, d, b = cases[1]
        got, want = row(f, t, d, b), sinusoidal_pe([t], d, b)[0]
        if _matches(got, _interleave(1.0 / frequencies(d, b), t)):
            return "you divided t by w_k; the angle is w_k · t = t / base^(2k/d)."
        if _matches(got, want.reshape(-1, 2)[:, ::-1].ravel()):
            return "sin and cos are swapped: column 2k is sin(w_k t), column 2k + 1 is cos(w_k t)."
        if _matches(got, np.concatenate([want[0::2], want[1::2]])):
            return ("you put all sines first and all cosines second; this course interleaves "
                    "them: sin at even columns, cos at odd columns.")
        return None

    def values(f):
        for t, d, b in cases:
            if not close(row(f, t, d, b), sinusoidal_pe([t], d, b)[0]):
                return f"for t = {t:g}, d = {d}, base = {b:g} the row is not the encoding."
        return None

    return grade("the encoding of one position", answer,
                 [shape, bounded, exponent, layout, values],
                 "compute the d/2 pair frequencies w_k first; then the even columns (row[0::2]) "
                 "take sin(w_k t) and the odd columns (row[1::2]) cos(w_k t).",
                 call=cases[0])


def check_longest_wavelength(answer: object) -> Feedback:
    """Check ``longest_wavelength(d_model, base)``: ``2π · base^((d-2)/d)``.

    Examples
    --------
    >>> check_longest_wavelength(lambda d, b: 2 * np.pi * b ** ((d - 2) / d)).status
    'correct'
    """
    cases = [(128, 10000.0), (8, 100.0), (2, 10000.0)]

    def got(f, d, b):
        return _number(f(d, b), f"your wavelength for d = {d}, base = {b:g}")

    def slips(f):
        if all(close(got(f, d, b), 2 * np.pi * b) for d, b in cases[:2]):
            return ("2π·base is a bound, not the value: the last pair has k = d/2 - 1, so its "
                    "exponent is 2k/d = (d - 2)/d, just under 1.")
        if all(close(got(f, d, b), b ** ((d - 2) / d)) for d, b in cases[:2]):
            return "that is 1/w of the last pair; a wavelength is 2π / w (don't forget 2π)."
        for d, b in cases[:2]:
            misread = [2 * np.pi * b ** (2 * (d - 1) / d), 2 * np.pi * b ** (2 * (d - 2) / d)]
            if any(close(got(f, d, b), slip) for slip in misread):
                return EXPONENT_HINT
        return None

    def values(f):
        for d, b in cases:
            want = 2 * np.pi * b ** ((d - 2) / d)
            if not close(got(f, d, b), want):
                return f"for d = {d}, base = {b:g} expected {want:.6g}, got {got(f, d, b):.6g}."
        return None

    return grade("the longest wavelength", answer, [slips, values],
                 "the slowest pair is k = d/2 - 1; its wavelength is 2π / w_k.", call=cases[0])
