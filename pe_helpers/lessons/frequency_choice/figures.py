"""Lesson 03 figures: wavelengths, the two readings of the exponent, aliasing, the counter."""

from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator, NullLocator
from numpy.typing import ArrayLike

from ..._validate import check_array, check_d_model, check_int, check_real
from ...encodings import frequencies, sinusoidal_pe
from ...figures import (
    WIDE_FIGSIZE,
    course_style,
    format_base,
    heatmap,
    legend_below,
    new_axes,
    plot_curves,
)
from ...live import LiveFigure, even_control, int_control, log_control, side_by_side
from .maths import binary_digits, column_frequencies, wavelengths

__all__ = [
    "EncodingAndWavelengths",
    "plot_aliasing",
    "plot_counter_analogy",
    "plot_frequency_readings",
    "plot_min_distance",
    "plot_wavelengths",
]

#: Largest base and widest encoding the figures of this lesson draw.
MAX_PLOT_BASE, MAX_PLOT_D = 1e12, 1024


def _plot_sizes(d_model: object, base: object) -> tuple[int, float]:
    d_model, base = check_d_model(d_model, maximum=MAX_PLOT_D), check_real("base", base)
    if not 1.0 <= base <= MAX_PLOT_BASE:
        raise ValueError(f"base must lie in [1, {MAX_PLOT_BASE:.0e}] for this figure, got {base:g}")
    return d_model, base


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _powers_of_ten(axis) -> None:
    """Label a log axis 10⁻³, 10⁰, 10⁴ in plain text (mathtext is slow), without minor ticks."""
    power = FuncFormatter(lambda v, _: "10" + str(round(np.log10(v))).translate(_SUPERSCRIPT))
    axis.set_major_formatter(power)
    axis.set_minor_locator(NullLocator())


def _build_wavelengths(ax: Axes, with_position: bool) -> SimpleNamespace:
    (ladder,) = ax.plot([], [], marker="o", color="C0", label="wavelength 2π / w_k")
    ax.axhline(2 * np.pi, linestyle=":", color="C2", label="2π (fastest pair)")
    top = ax.axhline(1.0, linestyle="--", color="C3", label="2π · base")
    position = ax.axhline(1.0, color="C1", label="position t") if with_position else None
    ax.set_yscale("log")
    _powers_of_ten(ax.yaxis)
    ax.set_xlabel("pair index k (dimensions 2k, 2k+1)")
    ax.set_ylabel("wavelength (positions)")
    legend_below(ax, ncols=2)  # under the x label: the ladder reaches every height
    return SimpleNamespace(axes=ax, ladder=ladder, top=top, position=position)


def _update_wavelengths(art, d_model: int, base: float, position=None, ylim=None) -> None:
    """Set the ladder, lines, limits and title for ``d_model`` and ``base``."""
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
    art.axes.set_title(f"Wavelength of pair k\nd = {d_model}, base = {format_base(base)}")


@course_style
def plot_wavelengths(d_model: int = 128, base: float = 10000.0, ax: Axes | None = None) -> Axes:
    """Wavelength of every (sin, cos) pair on a log scale, with lines at 2π and 2π·base.

    Parameters
    ----------
    d_model, base : int, float, default 128, 10000.0
        Width of the encoding (even, 2 to 1024) and frequency base (1 to 1e12).
        One point per pair (``d_model / 2`` of them), from 2π up to just below 2π·base.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        The axes: the wavelength of pair k is ``ax.lines[0]``, the lines at 2π and
        2π·base are ``ax.lines[1]`` and ``ax.lines[2]``.

    Examples
    --------
    >>> plot_wavelengths(8, 100.0).get_title()
    'Wavelength of pair k\\nd = 8, base = 100'
    """
    d_model, base = _plot_sizes(d_model, base)
    art = _build_wavelengths(new_axes(ax), with_position=False)
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
        The axes, log y: the pair reading is ``ax.lines[0]``, the column reading
        ``ax.lines[1]``.

    Examples
    --------
    >>> len(plot_frequency_readings(8).lines)
    2
    """
    d_model, base = _plot_sizes(d_model, base)
    ax = new_axes(ax)
    columns = np.arange(d_model)
    ax.semilogy(
        columns,
        np.repeat(frequencies(d_model, base), 2),
        marker="o",
        color="C0",
        label="i = pair index k (correct): sin and cos share w_k",
    )
    ax.semilogy(
        columns,
        column_frequencies(d_model, base),
        marker="x",
        linestyle="--",
        color="C3",
        label="i = column index (wrong): exponent runs to ≈ 2",
    )
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
        The axes: the fast sine is ``ax.lines[0]``, its slow alias ``ax.lines[1]`` and
        the values at whole-number t ``ax.lines[2]``.

    Examples
    --------
    >>> plot_aliasing(7.0, 5).get_title()
    'At whole-number t, sin(7 t)\\ntakes the values of sin(0.7168 t)'
    """
    w = check_real("frequency", frequency)
    t_max = check_int("t_max", t_max, minimum=1, maximum=100)
    if abs(w) * t_max > 1e5:
        raise ValueError(f"|frequency| · t_max must be <= 1e5, got {w:g} · {t_max}")
    alias = w - 2 * np.pi * round(w / (2 * np.pi))  # same values at every whole-number t
    ax = new_axes(ax)
    fine = np.linspace(0.0, t_max, max(400, int(4 * abs(w) * t_max / np.pi) + 1))  # 8/cycle
    ax.plot(fine, np.sin(w * fine), color="0.8", linewidth=0.5, label=f"sin({w:g} t), real t")
    ax.plot(fine, np.sin(alias * fine), color="C0", label=f"sin({alias:.4f} t)")
    whole = np.arange(t_max + 1, dtype=np.float64)
    ax.plot(whole, np.sin(w * whole), "o", color="C3", label="at t = 0, 1, 2, …")
    ax.set_xlabel("position t")
    ax.set_ylabel("value")
    ax.set_ylim(-1.7, 1.7)
    ax.set_title(f"At whole-number t, sin({w:g} t)\ntakes the values of sin({alias:.4f} t)")
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
        The axes, log y: ``ax.lines[i]`` is the curve of the ``i``-th encoding.

    Examples
    --------
    >>> plot_min_distance([2, 3], {"a": [1.0, 0.5]}).get_legend().get_texts()[0].get_text()
    'a'
    """
    n = check_array("lengths", lengths, ndim=1)
    if not isinstance(curves, Mapping) or not curves:
        raise TypeError(f"curves must be a non-empty dict of label -> values, got {curves!r:.60}")
    for label, values in curves.items():
        if check_array(f"curves[{label!r}]", values, ndim=1).shape != n.shape:
            raise ValueError(f"curves[{label!r}] must have one value per entry of lengths")
    ax = plot_curves(
        n,
        curves,
        new_axes(ax),
        xlabel="number of positions n",
        ylabel="closest pair distance",
        title="How close do two different positions get?",
        logy=True,
    )
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
        The figure: the counter is drawn on ``figure.axes[0]``, the encoding on
        ``figure.axes[1]``.

    Examples
    --------
    >>> plot_counter_analogy(4, 4).axes[1].get_title()
    'Sinusoidal PE (d = 4)\\nfast columns left'
    """
    d_model, base = _plot_sizes(d_model, base)
    if d_model > 16:
        raise ValueError(f"d_model must be at most 16 for this figure, got {d_model}")
    n_positions = check_int(
        "n_positions", n_positions, minimum=2, maximum=min(64, 2 ** (d_model // 2))
    )
    if axes is None:
        axes = plt.figure(figsize=WIDE_FIGSIZE, layout="constrained").subplots(1, 2)
    elif (
        not isinstance(axes, (list, tuple, np.ndarray))
        or len(axes) != 2
        or not all(isinstance(a, Axes) for a in axes)
    ):
        raise TypeError(f"axes must be a pair of matplotlib Axes, got {axes!r:.60}")
    left, right = axes
    heatmap(
        binary_digits(n_positions, d_model // 2),
        left,
        xlabel="bit b (value 2^b)",
        ylabel="position t",
        title="Binary counter (red = 1)\nlow bits flip fast",
        limit=1.0,
        colorbar=False,
    )
    heatmap(
        sinusoidal_pe(n_positions, d_model, base),
        right,
        xlabel="dimension i",
        ylabel="position t",
        title=f"Sinusoidal PE (d = {d_model})\nfast columns left",
        limit=1.0,
        colorbar=False,
    )
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

    # The values the website has pictures for (scripts/build_site.py).
    site_grid = {
        "d_model": (16, 64, 256),
        "base": (1e1, 1e2, 1e3, 1e4, 1e5, 1e6),
        "position": (1, 10, 100, 1000),
    }
    controls = {
        "d_model": even_control("d", 64, 2, 256),
        "base": log_control("base", 10000.0, 10.0, 1e6),
        "position": int_control("position t", 10, 1, 1000),
    }
    layout = side_by_side()

    def build(self, axes) -> SimpleNamespace:
        left, right = axes
        kinds = (("C0", "sin (even i)"), ("C1", "cos (odd i)"))
        dots = [left.plot([], [], "o", color=colour, label=label)[0] for colour, label in kinds]
        stems = [left.add_collection(LineCollection([], colors=colour)) for colour, _ in kinds]
        left.axhline(0.0, color="C7")
        left.set_ylim(-1.15, 1.5)
        left.set_xlabel("dimension i")
        for ax in axes:  # whole dimensions and pairs only: no "1.00" at the edge for d = 2
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        left.set_ylabel("PE value")
        left.legend(loc="upper center", ncols=2)
        wave = _build_wavelengths(right, with_position=True)
        return SimpleNamespace(left=left, dots=dots, stems=stems, wave=wave)

    def update(self, art: SimpleNamespace, d_model: int, base: float, position: int) -> None:
        row = sinusoidal_pe([position], d_model, base)[0]
        columns = np.arange(d_model, dtype=np.float64)
        for part, (dots, stems) in enumerate(zip(art.dots, art.stems, strict=True)):
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
        wave = [art.wave.ladder, art.wave.top, art.wave.position, art.wave.axes.title]
        return [*art.dots, *art.stems, art.left.title, *wave]

    def rescaled(self, art: SimpleNamespace) -> list:
        # d moves both x axes; nothing static lies along them (the lines at fixed heights
        # span their axes whatever the x limits), so a step of d blits too.
        return [art.left.xaxis, art.wave.axes.xaxis]
