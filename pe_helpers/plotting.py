"""Course figures: one function per kind of figure.

Every function takes ``ax=None`` (a new projector-sized figure is made when it is
None) and returns the Axes it drew on, so notebooks can compose panels and tests
can read the data back. Importing this module changes no global matplotlib state.
Values in [-1, 1] are drawn with a diverging colour map centred at 0, so that 0
and ±1 are never confused.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import TypeVar

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from cycler import cycler
from matplotlib.axes import Axes
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.text import Text
from numpy.typing import ArrayLike

from ._validate import check_array, check_int, check_real
from .attention import (
    blend_deviations,
    blend_inputs,
    blend_position_scores,
    relative_deviation,
)
from .rope import rope_scores

__all__ = [
    "FIGSIZE",
    "WIDE_FIGSIZE",
    "DIVERGING_CMAP",
    "COURSE_RC",
    "CLASSROOM_RC",
    "classroom_style",
    "course_style",
    "new_axes",
    "heatmap",
    # Lesson 04–05
    "CIRCLE_FIGSIZE",
    "rotation_caption",
    "plot_pair_rotation",
    "plot_shift_scatter",
    "plot_pe_heatmap",
    "plot_pe_dimensions",
    "plot_pe_dot_profile",
    "plot_pe_overview",
    "plot_column_means",
    # Lesson 06–07
    "plot_heatmap_row",
    "plot_curves",
    "blend_title",
    "BLEND_T_VALUES",
    "plot_blend",
    "offset_title",
    "plot_rope_offset",
    # Lesson 01–03
    "format_base",
    "plot_token_outputs",
    "plot_serial_steps",
    "recurrence_caption",
    "recurrence_title",
    "plot_recurrence_weights",
    "plot_cosine_vs_dim",
    "plot_probe_vs_dim",
    "COSINE_BINS",
    "cosine_histogram",
    "dimension_titles",
    "plot_dimension_panels",
    "plot_wavelengths",
    "wavelength_title",
    "wavelength_limits",
    "plot_frequency_readings",
    "plot_min_distance",
    "plot_counter_analogy",
    "pe_vector_title",
    "stem_segments",
    "plot_pe_vector",
    "plot_frequency_panels",
]

F = TypeVar("F", bound=Callable)

#: Matplotlib settings every course figure is drawn with (applied per call, never globally).
COURSE_RC: dict = {
    "font.size": 12,
    "axes.titlesize": 13,
    "axes.labelsize": 12,
    "xtick.labelsize": 11,
    "ytick.labelsize": 11,
    "legend.fontsize": 11,
    "lines.linewidth": 2.0,
    "axes.grid": False,
}

#: Okabe-Ito palette: distinguishable with the common colour-vision deficiencies.
OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]

#: Projector mode: large type, thick lines, colour-blind-safe high-contrast colours.
CLASSROOM_RC: dict = {
    **COURSE_RC,
    "font.size": 16,
    "axes.titlesize": 18,
    "axes.labelsize": 16,
    "xtick.labelsize": 14,
    "ytick.labelsize": 14,
    "legend.fontsize": 14,
    "lines.linewidth": 3.0,
    "lines.markersize": 9.0,
    "axes.linewidth": 1.5,
    "axes.prop_cycle": cycler(color=OKABE_ITO),
}

_classroom = [False]


class classroom_style:  # noqa: N801 - used like a function: classroom_style()
    """Switch projector mode on (or off) for every course figure drawn afterwards.

    Call it once (``classroom_style()``) to switch on for the rest of the session,
    ``classroom_style(False)`` to switch off, or use it as a context manager to
    switch on for a block only. Nothing changes at import time and matplotlib's
    own defaults are never touched: the setting applies only to figures drawn by
    ``pe_helpers`` (see :data:`CLASSROOM_RC`).

    Parameters
    ----------
    on : bool, default True
        Whether projector mode is on.

    Examples
    --------
    >>> with classroom_style():
    ...     ax = heatmap(np.eye(2))
    >>> ax.title.get_fontsize() >= CLASSROOM_RC["axes.titlesize"]
    True
    """

    def __init__(self, on: bool = True) -> None:
        if not isinstance(on, bool):
            raise TypeError(f"on must be True or False, got {on!r}")
        self._previous = _classroom[0]
        _classroom[0] = on

    def __enter__(self) -> classroom_style:
        return self

    def __exit__(self, *exc_info: object) -> None:
        _classroom[0] = self._previous

    def __repr__(self) -> str:
        return f"projector mode {'on' if _classroom[0] else 'off'}"


def active_rc() -> dict:
    """The settings course figures are drawn with right now."""
    return CLASSROOM_RC if _classroom[0] else COURSE_RC


def course_style(function: F) -> F:
    """Decorator: run a plotting function with the course's (or projector) settings."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        # Save and restore only the course's own keys. A full ``mpl.rc_context`` would
        # also undo what a backend sets up when the first figure of a session is made
        # inside it: IPython's inline backend switches matplotlib to interactive mode
        # then, and once that is reverted no later figure is shown in the notebook.
        settings = active_rc()
        saved = {key: mpl.rcParams[key] for key in settings}
        mpl.rcParams.update(settings)
        try:
            result = function(*args, **kwargs)
            figure = _figure_of(result)
            if figure is not None:
                _fix_style(figure, settings)
            return result
        finally:
            mpl.rcParams.update(saved)

    return wrapper  # type: ignore[return-value]


def _figure_of(result: object):
    """The figure a plotting function drew on, from the Axes, Figure or tuple it returned."""
    if isinstance(result, (tuple, list)) and result:
        result = result[0]
    if isinstance(result, Figure):
        return result
    if isinstance(result, Axes):
        return result.get_figure(root=True)
    return None


_CYCLE_COLOUR = re.compile(r"^C\d+$")


def _fix_style(figure, settings: dict) -> None:
    """Pin what matplotlib would otherwise look up later, after the settings are gone.

    Tick labels are created lazily and "C0", "C1", ... colours are resolved at
    draw time, both from the defaults in force *then*; fix them to ``settings`` now.
    """
    for ax in figure.axes:
        ax.tick_params(axis="x", labelsize=settings["xtick.labelsize"])
        ax.tick_params(axis="y", labelsize=settings["ytick.labelsize"])
    for artist in figure.findobj(lambda a: isinstance(a, (Line2D, Text))):
        pairs = [(artist.get_color, artist.set_color)]
        if isinstance(artist, Line2D):
            pairs += [
                (artist.get_markerfacecolor, artist.set_markerfacecolor),
                (artist.get_markeredgecolor, artist.set_markeredgecolor),
            ]
        for get, set_ in pairs:
            value = get()
            if isinstance(value, str) and _CYCLE_COLOUR.match(value):
                set_(to_hex(value))


#: Size of a single-panel course figure, in inches: legible on a projector.
FIGSIZE = (8.0, 4.0)
#: Size of a wide figure (heatmaps of many dimensions, several panels).
WIDE_FIGSIZE = (11.0, 4.5)
#: Diverging colour map used for every signed quantity (blue < 0 < red).
DIVERGING_CMAP = "RdBu_r"


def new_axes(ax: Axes | None = None, figsize: tuple[float, float] = FIGSIZE) -> Axes:
    """Return ``ax``, or the Axes of a new figure of ``figsize`` inches when it is None.

    Parameters
    ----------
    ax : matplotlib.axes.Axes, optional
        Axes to draw on.
    figsize : (float, float), default FIGSIZE
        Size of the new figure, in inches.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = new_axes()
    >>> tuple(ax.figure.get_size_inches()) == FIGSIZE
    True
    """
    if ax is None:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    elif not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes or None, got {type(ax).__name__}")
    return ax


@course_style
def heatmap(
    values: ArrayLike,
    ax: Axes | None = None,
    *,
    xlabel: str = "",
    ylabel: str = "",
    title: str = "",
    limit: float | None = None,
    colorbar: bool = True,
    colorbar_label: str = "",
    figsize: tuple[float, float] = WIDE_FIGSIZE,
) -> Axes:
    """Draw a matrix with a diverging colour map centred at 0.

    Parameters
    ----------
    values : array_like
        2-D matrix; row ``i`` is drawn at height ``i`` (row 0 on top).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new wide figure when None.
    xlabel, ylabel, title : str
        Axis labels and title.
    limit : float, optional
        Colour range is ``[-limit, limit]``; default: the largest absolute value.
    colorbar : bool, default True
        Add a colour bar.
    colorbar_label : str
        Label of the colour bar.
    figsize : (float, float)
        Size of the new figure when ``ax`` is None.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes; the image is ``ax.images[0]``.

    Examples
    --------
    >>> ax = heatmap(np.eye(3), limit=1.0)
    >>> ax.images[0].get_array().shape
    (3, 3)
    """
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 2:
        raise ValueError(f"values must be 2-D, got shape {arr.shape}")
    if limit is None:
        limit = float(np.abs(arr).max()) or 1.0
    elif not limit > 0:
        raise ValueError(f"limit must be > 0, got {limit}")
    ax = new_axes(ax, figsize)
    image = ax.imshow(
        arr,
        cmap=DIVERGING_CMAP,
        vmin=-limit,
        vmax=limit,
        aspect="auto",
        interpolation="nearest",
    )
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if colorbar:
        bar = ax.figure.colorbar(image, ax=ax)
        bar.set_label(colorbar_label)
    return ax


# --- Lesson 04–05: the rotation property and seeing the encoding ---

#: Size of the unit-circle figure of lesson 04 (room for the circle and its legend).
CIRCLE_FIGSIZE = (8.0, 5.5)


def _check_matrix(name: str, value: object, columns: int | None = None) -> np.ndarray:
    """A finite real 2-D array (optionally with ``columns`` columns), as float64."""
    arr = check_array(name, value, ndim=2).astype(np.float64)
    if columns is not None and arr.shape[1] != columns:
        raise ValueError(f"{name} must have {columns} columns, got shape {arr.shape}")
    return arr


def _check_vector(name: str, value: object) -> np.ndarray:
    """A finite real 1-D array, as float64."""
    return check_array(name, value, ndim=1).astype(np.float64)


def rotation_caption(angle: float, frequency_index: int) -> str:
    """The text that annotates a pair rotation: the angle w_k·Δ in radians and degrees.

    Examples
    --------
    >>> rotation_caption(np.pi / 2, 0)
    'w_0·Δ = 1.571 rad = 90.0° (clockwise)'
    """
    angle = check_real("angle", angle)
    frequency_index = check_int("frequency_index", frequency_index, minimum=0)
    degrees = float(np.degrees(angle))
    text = f"w_{frequency_index}·Δ = {angle:.3f} rad = {degrees:.1f}°"
    if abs(degrees) >= 360:
        text += f" ≡ {degrees % 360:.1f}°"
    return text + " (clockwise)"


@course_style
def plot_pair_rotation(
    pairs: ArrayLike,
    shifted: ArrayLike,
    ax: Axes | None = None,
    *,
    positions: ArrayLike | None = None,
    caption: str = "",
    title: str = "",
) -> Axes:
    """One (sin, cos) pair of several positions on the unit circle, and where a shift moves them.

    Parameters
    ----------
    pairs : array_like, shape (n, 2)
        ``(sin(w_k t), cos(w_k t))`` for each position ``t``: column 0 is dimension
        ``2k`` (drawn on the x axis), column 1 is dimension ``2k + 1`` (y axis).
    shifted : array_like, shape (n, 2)
        The same pair at positions ``t + Δ``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure of :data:`CIRCLE_FIGSIZE` when None.
    positions : array_like, optional
        The positions ``t``, written next to their points.
    caption : str
        Text in the top-left corner (e.g. :func:`rotation_caption`).
    title : str
        Title of the axes.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines[0]`` is the unit circle, ``ax.collections[0]`` the points at ``t``,
        ``ax.collections[1]`` the points at ``t + Δ``, ``ax.collections[2]`` the arrows
        (a quiver), ``ax.texts[0]`` the caption and ``ax.texts[1:]`` the position labels.

    Examples
    --------
    >>> ax = plot_pair_rotation([[0.0, 1.0]], [[1.0, 0.0]], caption="90°")
    >>> ax.collections[1].get_offsets().tolist()
    [[1.0, 0.0]]
    """
    before = _check_matrix("pairs", pairs, columns=2)
    after = _check_matrix("shifted", shifted, columns=2)
    if after.shape != before.shape:
        raise ValueError(
            f"shifted must have the shape of pairs {before.shape}, got {after.shape}"
        )
    labels = None if positions is None else _check_vector("positions", positions)
    if labels is not None and labels.size != before.shape[0]:
        raise ValueError(
            f"positions must have one entry per pair ({before.shape[0]}), got {labels.size}"
        )
    ax = new_axes(ax, CIRCLE_FIGSIZE)
    circle = np.linspace(0.0, 2.0 * np.pi, 361)
    ax.plot(np.cos(circle), np.sin(circle), color="0.75", linewidth=1.0, label="unit circle")
    ax.scatter(before[:, 0], before[:, 1], s=70, color="C0", zorder=3, label="position t")
    ax.scatter(
        after[:, 0], after[:, 1], s=70, marker="s", color="C1", zorder=3, label="position t + Δ"
    )
    ax.quiver(
        before[:, 0],
        before[:, 1],
        after[:, 0] - before[:, 0],
        after[:, 1] - before[:, 1],
        angles="xy",
        scale_units="xy",
        scale=1.0,
        color="C1",
        width=0.006,
        alpha=0.7,
        zorder=2,
    )
    ax.text(0.02, 0.98, caption, transform=ax.transAxes, va="top", ha="left")
    if labels is not None:
        for (x, y), t in zip(before, labels, strict=True):
            ax.text(1.12 * x, 1.12 * y, f"{t:g}", ha="center", va="center", color="C0")
    ax.axhline(0.0, color="0.85", linewidth=0.8, zorder=0)
    ax.axvline(0.0, color="0.85", linewidth=0.8, zorder=0)
    ax.set_xlim(-1.35, 1.35)
    ax.set_ylim(-1.35, 1.35)
    ax.set_aspect("equal")
    ax.set_xlabel("dimension 2k: sin(w_k t)")
    ax.set_ylabel("dimension 2k+1: cos(w_k t)")
    ax.set_title(title)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return ax


@course_style
def plot_shift_scatter(
    before: ArrayLike,
    after: ArrayLike,
    ax: Axes | None = None,
    *,
    slope: float | None = None,
    highlight: ArrayLike | None = None,
    xlabel: str = "value at t",
    ylabel: str = "value at t + Δ",
    title: str = "",
) -> Axes:
    """Scatter of a feature at position ``t`` against the same feature at ``t + Δ``.

    If some linear map took the feature at ``t`` to the feature at ``t + Δ``, the
    points would lie on the line ``y = slope · x``; a loop means no such map exists.

    Parameters
    ----------
    before, after : array_like, shape (n,)
        The feature at ``t`` and at ``t + Δ``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.
    slope : float, optional
        Draw the best line through the origin, ``y = slope · x``.
    highlight : array_like, shape (m, 2), optional
        Points ``(x, y)`` to mark (e.g. two positions with the same x but different y).
    xlabel, ylabel, title : str
        Axis labels and title.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.collections[0]`` holds the points, ``ax.collections[1]`` the highlighted
        points (if any), ``ax.lines[0]`` the fitted line (if ``slope`` is given).

    Examples
    --------
    >>> t = np.linspace(0, 6, 50)
    >>> ax = plot_shift_scatter(np.sin(t), np.sin(t + 1), slope=0.5)
    >>> float(ax.lines[0].get_ydata()[-1])
    0.5
    """
    x = _check_vector("before", before)
    y = _check_vector("after", after)
    if x.shape != y.shape:
        raise ValueError(f"after must have the shape of before {x.shape}, got {y.shape}")
    ax = new_axes(ax, FIGSIZE)
    ax.scatter(x, y, s=14, color="C0", label="one position t")
    if highlight is not None:
        marks = _check_matrix("highlight", highlight, columns=2)
        ax.scatter(
            marks[:, 0], marks[:, 1], s=160, marker="*", color="C3", zorder=3,
            label="same x, different y",
        )
    if slope is not None:
        slope = check_real("slope", slope)
        ends = np.array([-1.0, 1.0])
        ax.plot(ends, slope * ends, color="C2", label=f"best line y = {slope:.2f}·x")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.set_aspect("equal")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return ax


@course_style
def plot_pe_heatmap(
    pe: ArrayLike,
    ax: Axes | None = None,
    *,
    title: str = "",
    colorbar: bool = True,
    figsize: tuple[float, float] = WIDE_FIGSIZE,
) -> Axes:
    """A positional-encoding matrix as a heatmap: positions down, dimensions across.

    The colour range is fixed to [-1, 1] with the diverging map centred at 0, so
    white means 0 and dark red means +1 (a cos column at small angles).

    Parameters
    ----------
    pe : array_like, shape (n_positions, d_model)
        The encoding, e.g. ``sinusoidal_pe(50, 128)``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new wide figure when None.
    title : str
        Title; default names the shape.
    colorbar : bool, default True
        Add a colour bar.
    figsize : (float, float)
        Size of the new figure when ``ax`` is None.

    Returns
    -------
    matplotlib.axes.Axes
        The image is ``ax.images[0]``.

    Examples
    --------
    >>> ax = plot_pe_heatmap(np.zeros((5, 8)))
    >>> ax.images[0].get_clim()
    (-1.0, 1.0)
    """
    arr = _check_matrix("pe", pe)
    n_positions, d_model = arr.shape
    return heatmap(
        arr,
        ax,
        xlabel="dimension i (even: sin, odd: cos)",
        ylabel="position t",
        title=title or f"Positional encoding: {n_positions} positions × {d_model} dimensions",
        limit=1.0,
        colorbar=colorbar,
        colorbar_label="PE(t, i)",
        figsize=figsize,
    )


@course_style
def plot_pe_dimensions(
    pe: ArrayLike,
    dimensions: ArrayLike,
    ax: Axes | None = None,
    *,
    title: str = "Each dimension is a wave over positions",
) -> Axes:
    """Some columns of a positional encoding, each drawn as a curve over position.

    Parameters
    ----------
    pe : array_like, shape (n_positions, d_model)
        The encoding; row ``t`` is position ``t``.
    dimensions : sequence of int
        Column indices to draw (even: sin, odd: cos).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.
    title : str
        Title of the axes.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines[j]`` is column ``dimensions[j]``.

    Examples
    --------
    >>> ax = plot_pe_dimensions(np.eye(4), [1, 2])
    >>> ax.lines[0].get_ydata().tolist()
    [0.0, 1.0, 0.0, 0.0]
    """
    arr = _check_matrix("pe", pe)
    listed = np.asarray(dimensions)
    if listed.ndim != 1 or listed.size == 0:
        raise ValueError(f"dimensions must be a non-empty 1-D sequence, got {dimensions!r}")
    columns = [check_int("dimensions", c) for c in listed.tolist()]
    for column in columns:
        if not 0 <= column < arr.shape[1]:
            raise ValueError(f"dimensions must lie in [0, {arr.shape[1] - 1}], got {column}")
    ax = new_axes(ax, FIGSIZE)
    t = np.arange(arr.shape[0])
    for column in columns:
        kind = "sin" if column % 2 == 0 else "cos"
        ax.plot(t, arr[:, column], label=f"dim {column}: {kind}, k = {column // 2}")
    ax.set_ylim(-1.1, 1.1)
    ax.set_xlabel("position t")
    ax.set_ylabel("PE(t, i)")
    ax.set_title(title)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return ax


@course_style
def plot_pe_dot_profile(
    deltas: ArrayLike,
    dots: ArrayLike,
    ax: Axes | None = None,
    *,
    title: str = "PE(t)·PE(t+Δ) depends only on the offset Δ",
) -> Axes:
    """The dot product of two encodings against their offset Δ.

    Parameters
    ----------
    deltas : array_like, shape (n,)
        Offsets Δ (may be negative).
    dots : array_like, shape (n,)
        ``PE(t)·PE(t + Δ)`` for each offset.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.
    title : str
        Title of the axes.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines[0]`` is the curve; ``ax.lines[1]`` and ``ax.lines[2]`` mark
        ``y = 0`` and ``Δ = 0``.

    Examples
    --------
    >>> ax = plot_pe_dot_profile([-1, 0, 1], [1.5, 2.0, 1.5])
    >>> ax.lines[0].get_ydata().tolist()
    [1.5, 2.0, 1.5]
    """
    x = _check_vector("deltas", deltas)
    y = _check_vector("dots", dots)
    if x.shape != y.shape:
        raise ValueError(f"dots must have the shape of deltas {x.shape}, got {y.shape}")
    ax = new_axes(ax, FIGSIZE)
    ax.plot(x, y, color="C0", marker="o", markersize=3)
    ax.axhline(0.0, color="0.6", linewidth=1.0)
    ax.axvline(0.0, color="0.6", linewidth=1.0, linestyle="--")
    ax.set_xlabel("offset Δ")
    ax.set_ylabel("PE(t)·PE(t+Δ)")
    ax.set_title(title)
    return ax


@course_style
def plot_pe_overview(
    pe: ArrayLike,
    deltas: ArrayLike,
    dots: ArrayLike,
    axes: np.ndarray | None = None,
) -> Figure:
    """Two panels: the encoding as a heatmap and its dot product against offset.

    Parameters
    ----------
    pe : array_like, shape (n_positions, d_model)
        The encoding.
    deltas, dots : array_like, shape (m,)
        Offsets and ``PE(t)·PE(t + Δ)`` for each (see :func:`plot_pe_dot_profile`).
    axes : array of two Axes, optional
        Where to draw; a new wide figure when None.

    Returns
    -------
    matplotlib.figure.Figure
        ``figure.axes[0]`` holds the heatmap, ``figure.axes[1]`` the dot product.

    Examples
    --------
    >>> fig = plot_pe_overview(np.zeros((3, 4)), [0, 1], [2.0, 1.0])
    >>> fig.axes[1].lines[0].get_ydata().tolist()
    [2.0, 1.0]
    """
    if axes is None:
        _, axes = plt.subplots(
            1, 2, figsize=WIDE_FIGSIZE, layout="constrained", width_ratios=(1.3, 1.0)
        )
    axes = np.asarray(axes, dtype=object).ravel()
    if axes.size != 2 or not all(isinstance(a, Axes) for a in axes):
        raise TypeError("axes must hold exactly two matplotlib Axes")
    arr = _check_matrix("pe", pe)
    plot_pe_heatmap(arr, axes[0], title=f"PE: {arr.shape[0]} × {arr.shape[1]}")
    plot_pe_dot_profile(deltas, dots, axes[1], title="PE(t)·PE(t+Δ)")
    return axes[0].figure


@course_style
def plot_column_means(
    means: ArrayLike,
    ax: Axes | None = None,
    *,
    first_dimension: int = 0,
    title: str = "Mean of each column over all positions",
) -> Axes:
    """Bar chart of the mean of each PE column, sin columns and cos columns in two colours.

    Parameters
    ----------
    means : array_like, shape (m,)
        Mean of columns ``first_dimension .. first_dimension + m - 1``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.
    first_dimension : int, default 0
        Index of the first column, so that even (sin) and odd (cos) are told apart.
    title : str
        Title of the axes.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.containers[0]`` holds the sin bars, ``ax.containers[1]`` the cos bars.

    Examples
    --------
    >>> ax = plot_column_means([0.0, 1.0, 0.1, 0.9], first_dimension=2)
    >>> [float(bar.get_height()) for bar in ax.containers[1]]
    [1.0, 0.9]
    """
    values = _check_vector("means", means)
    first_dimension = check_int("first_dimension", first_dimension, minimum=0)
    ax = new_axes(ax, FIGSIZE)
    dims = first_dimension + np.arange(values.size)
    is_sin = dims % 2 == 0
    ax.bar(dims[is_sin], values[is_sin], color="C0", label="sin columns (even i)")
    ax.bar(dims[~is_sin], values[~is_sin], color="C1", label="cos columns (odd i)")
    ax.axhline(0.0, color="0.6", linewidth=1.0)
    ax.set_ylim(min(-0.1, float(values.min()) - 0.1), max(1.1, float(values.max()) + 0.1))
    ax.set_xlabel("dimension i")
    ax.set_ylabel("mean of PE(t, i) over t")
    ax.set_title(title)
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return ax


# --- Lesson 06–07: attention breakdown and RoPE ---


@course_style
def plot_heatmap_row(
    matrices: list[ArrayLike],
    titles: list[str],
    *,
    xlabel: str = "key position j",
    ylabel: str = "query position i",
    shared_limit: bool = True,
    colorbar_label: str = "score",
    axes: np.ndarray | None = None,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """Several matrices side by side as heatmaps (diverging, centred at 0).

    Parameters
    ----------
    matrices : list of array_like
        2-D matrices, one per panel.
    titles : list of str
        One title per panel.
    xlabel, ylabel : str
        Axis labels (the y label only on the first panel).
    shared_limit : bool, default True
        One colour range for all panels (so sizes compare), with one colour bar
        on the last panel; otherwise each panel gets its own range and colour bar.
    colorbar_label : str
        Label of the colour bar(s).
    axes : array of Axes, optional
        One Axes per matrix; a new figure when None.
    figsize : (float, float), optional
        Size of a new figure; default about 3.6 inches per panel.

    Returns
    -------
    matplotlib.figure.Figure
        ``figure.axes[i].images[0]`` holds matrix ``i``; colour bars come after the panels.

    Examples
    --------
    >>> fig = plot_heatmap_row([np.eye(2), -np.eye(2)], ["plus", "minus"])
    >>> [ax.get_title() for ax in fig.axes[:2]]
    ['plus', 'minus']
    """
    if isinstance(matrices, np.ndarray) and matrices.ndim == 2:
        raise TypeError("matrices must be a list of 2-D matrices, got a single matrix")
    arrays = [_check_matrix(f"matrices[{i}]", m) for i, m in enumerate(matrices)]
    titles = list(titles)
    if not arrays:
        raise ValueError("matrices must hold at least one matrix")
    if len(titles) != len(arrays):
        raise ValueError(f"titles must have {len(arrays)} entries, got {len(titles)}")
    if axes is None:
        size = figsize or (min(3.6 * len(arrays) + 1.2, 14.0), 4.0)
        _, axes = plt.subplots(1, len(arrays), figsize=size, layout="constrained")
    axes = np.asarray(axes, dtype=object).ravel()
    if axes.size != len(arrays) or not all(isinstance(a, Axes) for a in axes):
        raise TypeError(f"axes must hold exactly {len(arrays)} matplotlib Axes")
    limit = max(float(np.abs(a).max()) for a in arrays) or 1.0
    for index, (ax, arr, title) in enumerate(zip(axes, arrays, titles, strict=True)):
        last = index == len(arrays) - 1
        heatmap(
            arr,
            ax,
            xlabel=xlabel,
            ylabel=ylabel if index == 0 else "",
            title=title,
            limit=limit if shared_limit else None,
            colorbar=last or not shared_limit,
            colorbar_label=colorbar_label if (last or not shared_limit) else "",
        )
    return axes[0].figure


@course_style
def plot_curves(
    x: ArrayLike,
    curves: dict[str, ArrayLike],
    ax: Axes | None = None,
    *,
    xlabel: str,
    ylabel: str,
    title: str = "",
    reference: float | None = None,
    reference_label: str = "",
    logx: bool = False,
    logy: bool = False,
    markers: bool = False,
) -> Axes:
    """Several labelled curves over the same x values, in the course colour cycle.

    Parameters
    ----------
    x : array_like, shape (n,)
        Shared x values.
    curves : dict of str to array_like
        Legend label -> y values (shape ``(n,)``), drawn in order as ``C0, C1, ...``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.
    xlabel, ylabel, title : str
        Axis labels and title.
    reference : float, optional
        Draw a dashed horizontal line at this height (``ax.lines[-1]``).
    reference_label : str
        Legend label of the reference line.
    logx, logy : bool
        Logarithmic axes.
    markers : bool
        Mark every point.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines[i]`` is curve ``i``.

    Examples
    --------
    >>> ax = plot_curves([0, 1], {"a": [1, 2]}, xlabel="x", ylabel="y")
    >>> ax.lines[0].get_ydata().tolist()
    [1.0, 2.0]
    """
    xs = _check_vector("x", x)
    if not isinstance(curves, dict) or not curves:
        raise TypeError("curves must be a non-empty dict of label -> y values")
    if logx and xs.min() <= 0:
        raise ValueError(f"x must be > 0 on a log axis (logx=True), got minimum {xs.min():g}")
    ax = new_axes(ax, FIGSIZE)
    for index, (label, values) in enumerate(curves.items()):
        ys = _check_vector(f"curves[{label!r}]", values)
        if ys.shape != xs.shape:
            raise ValueError(
                f"curves[{label!r}] must have the shape of x {xs.shape}, got {ys.shape}"
            )
        if logy and ys.min() <= 0:
            raise ValueError(
                f"curves[{label!r}] must be > 0 on a log axis (logy=True), got minimum {ys.min():g}"
            )
        marker = "o" if markers else None
        ax.plot(xs, ys, color=f"C{index % 10}", label=label, marker=marker, markersize=3)
    if reference is not None:
        height = check_real("reference", reference)
        label = reference_label or None
        ax.axhline(height, color="0.4", linestyle="--", linewidth=1.5, label=label)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend()
    return ax


def blend_title(t: float, deviation: float) -> str:
    """Title of the blend heatmap: the blend t and the relative deviation.

    Examples
    --------
    >>> blend_title(0.5, 0.71)
    'p W_Q W_Kᵀ pᵀ at t = 0.50\\nrelative deviation 0.710'
    """
    t = check_real("t", t)
    deviation = check_real("deviation", deviation)
    return f"p W_Q W_Kᵀ pᵀ at t = {t:.2f}\nrelative deviation {deviation:.3f}"


#: Blends at which the deviation curve of lesson 06 is sampled.
BLEND_T_VALUES = np.linspace(0.0, 1.0, 41)


@course_style
def plot_blend(
    d_model: int = 64,
    t: float = 0.5,
    *,
    n_positions: int = 32,
    seed: int = 0,
    axes: np.ndarray | None = None,
) -> Figure:
    """Lesson 06: the position–position term as ``W`` moves from the identity to random.

    Both projections are ``W = (1 - t) I + t W_random`` (see :func:`blend_inputs`).

    Parameters
    ----------
    d_model : int, default 64
        Width; positive and even.
    t : float, default 0.5
        Blend in ``[0, 1]``.
    n_positions : int, default 32
        Number of positions.
    seed : int, default 0
        Seed of the random projections.
    axes : array of two Axes, optional
        Where to draw; a new wide figure when None.

    Returns
    -------
    matplotlib.figure.Figure
        ``figure.axes[0]``: heatmap of ``p W_Q W_Kᵀ pᵀ`` divided by its largest
        absolute entry (deviation in the title);
        ``figure.axes[1]``: deviation against t (``lines[0]``) and the current t
        (``lines[1]``, one marker).

    Examples
    --------
    >>> fig = plot_blend(8, 0.0, n_positions=6)
    >>> fig.axes[0].get_title().endswith("relative deviation 0.000")
    True
    """
    t = check_real("t", t)
    p, w_q, w_k = blend_inputs(d_model, n_positions, seed)
    scores = blend_position_scores(p, w_q, w_k, t)
    curve = blend_deviations(p, w_q, w_k, BLEND_T_VALUES)
    if axes is None:
        _, axes = plt.subplots(
            1, 2, figsize=WIDE_FIGSIZE, layout="constrained", width_ratios=(1.15, 1.0)
        )
    axes = np.asarray(axes, dtype=object).ravel()
    if axes.size != 2 or not all(isinstance(a, Axes) for a in axes):
        raise TypeError("axes must hold exactly two matplotlib Axes")
    heatmap(
        scores / (float(np.abs(scores).max()) or 1.0),  # scaled: the pattern is what matters
        axes[0],
        xlabel="key position j",
        ylabel="query position i",
        title=blend_title(t, relative_deviation(scores)),
        limit=1.0,
        colorbar_label="score / max |score|",
    )
    ax = axes[1]
    ax.plot(BLEND_T_VALUES, curve, color="C0", label="p W_Q W_Kᵀ pᵀ")
    marker = {"marker": "o", "markersize": 10, "linestyle": "none"}
    ax.plot([t], [relative_deviation(scores)], color="C1", label="current t", **marker)
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel("blend t  (0: W = I,  1: W random)")
    ax.set_ylabel("relative deviation")
    ax.set_title(f"Distance from 'depends on j − i only', d = {d_model}")
    ax.legend(loc="lower right")
    return axes[0].figure


def offset_title(offset: float, n_positions: int, deviation: float) -> str:
    """Title of the RoPE score heatmap: the positions shown and the relative deviation.

    Examples
    --------
    >>> offset_title(100, 24, 0.0)
    'positions 100 to 123: relative deviation 0.0e+00'
    """
    offset = check_real("offset", offset)
    n_positions = check_int("n_positions", n_positions, minimum=1)
    deviation = check_real("deviation", deviation)
    last = offset + n_positions - 1
    return f"positions {offset:g} to {last:g}: relative deviation {deviation:.1e}"


@course_style
def plot_rope_offset(
    q: ArrayLike,
    k: ArrayLike,
    *,
    base: float = 10000.0,
    offset: int = 0,
    n_positions: int = 24,
    max_distance: int = 64,
    axes: np.ndarray | None = None,
) -> Figure:
    """Lesson 07: a RoPE score against distance, and a score matrix, at shifted positions.

    The query sits at ``offset`` and the key at ``offset + r`` for ``r = 0 ..
    max_distance``; the heatmap places both vectors at every position
    ``offset .. offset + n_positions - 1``. The colour range is ``±|q||k|``.

    Parameters
    ----------
    q, k : array_like
        1-D vectors of the same even width.
    base : float, default 10000.0
        Frequency base.
    offset : int, default 0
        Shift added to every position.
    n_positions : int, default 24
        Size of the heatmap.
    max_distance : int, default 64
        Largest relative distance on the curve.
    axes : array of two Axes, optional
        Where to draw; a new wide figure when None.

    Returns
    -------
    matplotlib.figure.Figure
        ``figure.axes[0]``: ``lines[0]`` the score at ``offset``, ``lines[1]`` the
        score at offset 0 (reference); ``figure.axes[1]``: the heatmap.

    Examples
    --------
    >>> fig = plot_rope_offset([1.0, 0.0], [1.0, 0.0], offset=5, max_distance=2)
    >>> fig.axes[0].lines[0].get_ydata().round(4).tolist()
    [1.0, 0.5403, -0.4161]
    """
    offset = check_real("offset", offset)
    n_positions = check_int("n_positions", n_positions, minimum=2)
    distances = np.arange(check_int("max_distance", max_distance, minimum=1) + 1)
    curve = rope_scores(q, k, [offset], offset + distances, base)[0]
    reference = rope_scores(q, k, [0.0], distances, base)[0]
    grid = offset + np.arange(n_positions)
    matrix = rope_scores(q, k, grid, grid, base)
    limit = float(np.linalg.norm(q) * np.linalg.norm(k)) or 1.0
    if axes is None:
        _, axes = plt.subplots(
            1, 2, figsize=WIDE_FIGSIZE, layout="constrained", width_ratios=(1.2, 1.0)
        )
    axes = np.asarray(axes, dtype=object).ravel()
    if axes.size != 2 or not all(isinstance(a, Axes) for a in axes):
        raise TypeError("axes must hold exactly two matplotlib Axes")
    ax = axes[0]
    ax.plot(distances, curve, color="C0", label=f"query at {offset:g}")
    marker = {"marker": "o", "markersize": 4, "linestyle": "none"}
    ax.plot(distances, reference, color="C1", label="query at 0 (reference)", **marker)
    ax.set_ylim(-1.05 * limit, 1.05 * limit)
    ax.set_xlabel("relative distance n − m")
    ax.set_ylabel("score q_m · k_n")
    ax.set_title(f"Score vs distance, base = {base:.3g}")
    ax.legend(loc="upper right")
    heatmap(
        matrix,
        axes[1],
        xlabel="key position n − offset",
        ylabel="query position m − offset",
        title=offset_title(offset, n_positions, relative_deviation(matrix)),
        limit=limit,
        colorbar_label="score",
    )
    return axes[0].figure


# --- Lesson 01–03: why position, addition, frequencies ---


def _same_length(**arrays: np.ndarray) -> None:
    sizes = {name: arr.shape[0] for name, arr in arrays.items()}
    if len(set(sizes.values())) > 1:
        raise ValueError(f"these must have the same length, got {sizes}")


def _plain_log_ticks(axis) -> None:
    """Label a log axis with plain numbers (2, 4, 8 or 0.1, 0.2) instead of powers."""
    axis.set_major_formatter(mpl.ticker.FormatStrFormatter("%g"))
    axis.set_minor_formatter(mpl.ticker.NullFormatter())


def format_base(base: float) -> str:
    """How figure titles show a frequency base: ``10,000`` or ``31.6``.

    Examples
    --------
    >>> format_base(10000.0), format_base(31.622)
    ('10,000', '31.6')
    """
    base = check_real("base", base, positive=True)
    return f"{base:,.0f}" if base >= 1000 else f"{base:.3g}"


@course_style
def plot_token_outputs(
    matrices: list,
    row_labels: list,
    titles: list,
    axes: list | None = None,
) -> Figure:
    """Side-by-side heatmaps of per-token vectors (one row per token), on one colour scale.

    Parameters
    ----------
    matrices : list of array_like
        Each of shape ``(n_tokens, d)``: e.g. the attention outputs of two sentences.
    row_labels : list of list of str
        The token of each row, per matrix.
    titles : list of str
        One title per matrix.
    axes : list of matplotlib.axes.Axes, optional
        One Axes per matrix; a new wide figure when None.

    Returns
    -------
    matplotlib.figure.Figure
        Panel ``j`` shows ``matrices[j]``; its image is ``figure.axes[j].images[0]``.

    Examples
    --------
    >>> fig = plot_token_outputs([np.eye(2)], [["a", "b"]], ["identity"])
    >>> fig.axes[0].get_title()
    'identity'
    """
    arrays = []
    for j, matrix in enumerate(matrices):
        arr = check_array(f"matrices[{j}]", matrix, ndim=2).astype(np.float64)
        arrays.append(arr)
    if not arrays:
        raise ValueError("matrices must hold at least one matrix, got none")
    if len(row_labels) != len(arrays) or len(titles) != len(arrays):
        raise ValueError(
            f"need one row_labels list and one title per matrix ({len(arrays)}), "
            f"got {len(row_labels)} and {len(titles)}"
        )
    for j, (arr, labels) in enumerate(zip(arrays, row_labels, strict=True)):
        if len(labels) != arr.shape[0]:
            raise ValueError(
                f"row_labels[{j}] must name the {arr.shape[0]} rows, got {len(labels)} labels"
            )
    if axes is None:
        figure = plt.figure(figsize=WIDE_FIGSIZE, layout="constrained")
        axes = list(figure.subplots(1, len(arrays), squeeze=False)[0])
    elif len(axes) != len(arrays):
        raise ValueError(f"axes must hold {len(arrays)} Axes, got {len(axes)}")
    limit = max(float(np.abs(arr).max()) for arr in arrays) or 1.0
    for j, (ax, arr, labels, title) in enumerate(
        zip(axes, arrays, row_labels, titles, strict=True)
    ):
        last = j == len(arrays) - 1
        heatmap(
            arr,
            ax,
            xlabel="output dimension",
            ylabel="token" if j == 0 else "",
            title=title,
            limit=limit,
            colorbar=last,
            colorbar_label="value" if last else "",
        )
        ax.set_yticks(np.arange(arr.shape[0]), labels=list(labels))
        ax.set_xticks(np.arange(arr.shape[1]))
    return axes[0].figure


@course_style
def plot_serial_steps(
    lengths: ArrayLike,
    recurrent_steps: ArrayLike,
    attention_steps: ArrayLike,
    ax: Axes | None = None,
) -> Axes:
    """Serial steps needed to process a sequence, for a recurrent layer and for attention.

    Parameters
    ----------
    lengths : array_like
        Sequence lengths ``n`` (x axis).
    recurrent_steps, attention_steps : array_like
        Steps that must run one after another, per length.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines[0]`` is the recurrent curve, ``ax.lines[1]`` attention.

    Examples
    --------
    >>> ax = plot_serial_steps([1, 2], [1, 2], [1, 1])
    >>> ax.lines[0].get_ydata().tolist()
    [1.0, 2.0]
    """
    n = _check_vector("lengths", lengths)
    rnn = _check_vector("recurrent_steps", recurrent_steps)
    att = _check_vector("attention_steps", attention_steps)
    _same_length(lengths=n, recurrent_steps=rnn, attention_steps=att)
    ax = new_axes(ax)
    ax.plot(n, rnn, color="C0", label="recurrent network: one step per token")
    ax.plot(n, att, color="C1", label="self-attention: all tokens at once")
    ax.set_xlabel("sequence length n (tokens)")
    ax.set_ylabel("steps that must run in series")
    ax.set_title("Serial compute: a recurrent network waits for every previous token")
    ax.set_ylim(0, max(float(rnn.max()), 1.0) * 1.05)
    ax.legend(loc="upper left")
    return ax


def recurrence_caption(decay: float, n_steps: int) -> str:
    """Annotation of the recurrence figure: the weight ``a^(n-1)`` of the first input.

    Examples
    --------
    >>> recurrence_caption(0.5, 3)
    'weight of x_1 in h_3: a^(n-1) = 0.5^2 = 0.25'
    """
    decay = check_real("decay", decay)
    n_steps = check_int("n_steps", n_steps, minimum=1)
    weight = decay ** (n_steps - 1)
    return f"weight of x_1 in h_{n_steps}: a^(n-1) = {decay:g}^{n_steps - 1} = {weight:.3g}"


def recurrence_title(decay: float, n_steps: int) -> str:
    """Title of the recurrence figure.

    Examples
    --------
    >>> recurrence_title(0.9, 20)
    'h_t = a·h_(t-1) + x_t, a = 0.90: what is left of each input in h_20'
    """
    decay = check_real("decay", decay)
    n_steps = check_int("n_steps", n_steps, minimum=1)
    return f"h_t = a·h_(t-1) + x_t, a = {decay:.2f}: what is left of each input in h_{n_steps}"


@course_style
def plot_recurrence_weights(
    weights: ArrayLike,
    decay: float,
    ax: Axes | None = None,
) -> Axes:
    """Weight of each input ``x_t`` in the last state ``h_n`` of a linear recurrence.

    Parameters
    ----------
    weights : array_like
        Shape ``(n,)``: entry ``t - 1`` is the weight of ``x_t`` (``a^(n-t)``).
    decay : float
        The factor ``a`` (used in the title and caption).
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines[0]`` holds the weights (x = 1 .. n); ``ax.texts[0]`` is the caption.

    Examples
    --------
    >>> ax = plot_recurrence_weights([0.25, 0.5, 1.0], 0.5)
    >>> ax.lines[0].get_xdata().tolist()
    [1.0, 2.0, 3.0]
    """
    w = _check_vector("weights", weights)
    decay = check_real("decay", decay)
    ax = new_axes(ax)
    steps = np.arange(1, w.size + 1, dtype=np.float64)
    ax.plot(steps, w, marker="o", color="C0")
    ax.text(
        0.02,
        0.95,
        recurrence_caption(decay, w.size),
        transform=ax.transAxes,
        va="top",
    )
    ax.set_xlabel("input position t (1 = first token, n = last)")
    ax.set_ylabel("weight of x_t in h_n")
    ax.set_title(recurrence_title(decay, w.size))
    ax.set_xlim(0.5, w.size + 0.5)
    ax.set_ylim(-0.03, 1.25)
    ax.xaxis.set_major_locator(mpl.ticker.MaxNLocator(integer=True))
    return ax


@course_style
def plot_cosine_vs_dim(
    dims: ArrayLike,
    mean_abs_cosines: ArrayLike,
    reference: ArrayLike,
    ax: Axes | None = None,
) -> Axes:
    """Mean absolute cosine of random vector pairs against the dimension (log-log).

    Parameters
    ----------
    dims : array_like
        Dimensions ``d`` (x axis).
    mean_abs_cosines : array_like
        Measured mean ``|cos|`` per dimension.
    reference : array_like
        A theoretical curve per dimension (e.g. ``sqrt(2 / (pi d))``).
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines[0]`` measured, ``ax.lines[1]`` reference.

    Examples
    --------
    >>> ax = plot_cosine_vs_dim([4, 16], [0.4, 0.2], [0.4, 0.2])
    >>> ax.get_xscale()
    'log'
    """
    d = _check_vector("dims", dims)
    measured = _check_vector("mean_abs_cosines", mean_abs_cosines)
    ref = _check_vector("reference", reference)
    _same_length(dims=d, mean_abs_cosines=measured, reference=ref)
    ax = new_axes(ax)
    ax.loglog(d, measured, marker="o", color="C0", label="measured: mean |cos| of random pairs")
    ax.loglog(d, ref, linestyle="--", color="C1", label="theory: √(2 / (π d)) ≈ 0.8 / √d")
    ax.set_xscale("log", base=2)
    _plain_log_ticks(ax.xaxis)
    ax.yaxis.set_major_locator(mpl.ticker.FixedLocator([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]))
    _plain_log_ticks(ax.yaxis)
    ax.set_xlabel("dimension d")
    ax.set_ylabel("mean |cosine|")
    ax.set_title("Random directions become nearly orthogonal as d grows")
    ax.legend(loc="upper right")
    return ax


@course_style
def plot_probe_vs_dim(
    dims: ArrayLike,
    r2_with_tokens: ArrayLike,
    r2_position_only: ArrayLike,
    ax: Axes | None = None,
) -> Axes:
    """R² of a linear position probe against the dimension, with and without embeddings.

    Parameters
    ----------
    dims : array_like
        Dimensions ``d`` (x axis, log scale).
    r2_with_tokens : array_like
        Probe R² on ``embedding + PE``.
    r2_position_only : array_like
        Probe R² on ``PE`` alone.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines[0]`` with embeddings, ``ax.lines[1]`` PE only.

    Examples
    --------
    >>> ax = plot_probe_vs_dim([8, 16], [0.3, 0.5], [1.0, 1.0])
    >>> ax.lines[0].get_ydata().tolist()
    [0.3, 0.5]
    """
    d = _check_vector("dims", dims)
    mixed = _check_vector("r2_with_tokens", r2_with_tokens)
    alone = _check_vector("r2_position_only", r2_position_only)
    _same_length(dims=d, r2_with_tokens=mixed, r2_position_only=alone)
    ax = new_axes(ax)
    ax.plot(d, mixed, marker="o", color="C0", label="probe on embedding + PE")
    ax.plot(d, alone, marker="s", linestyle="--", color="C1", label="probe on PE alone")
    ax.set_xscale("log", base=2)
    _plain_log_ticks(ax.xaxis)
    ax.set_xlabel("dimension d")
    ax.set_ylabel("R² on held-out samples")
    ax.set_title("A linear probe reads the position back, better as d grows")
    ax.set_ylim(-0.05, 1.05)
    ax.legend(loc="lower right")
    return ax


#: Bin edges of the cosine histogram of lesson 02 (fixed, so a slider only changes heights).
COSINE_BINS = np.linspace(-1.0, 1.0, 41)


def cosine_histogram(cosines: ArrayLike) -> np.ndarray:
    """Fraction of the cosines in each bin of :data:`COSINE_BINS`.

    Examples
    --------
    >>> float(cosine_histogram([0.01, 0.02]).max())
    1.0
    """
    c = _check_vector("cosines", cosines)
    counts, _ = np.histogram(c, bins=COSINE_BINS)
    return counts / max(c.size, 1)


def dimension_titles(d_model: int, mean_abs_cosine: float, r2: float) -> tuple[str, str]:
    """Titles of the two panels of the dimension figure of lesson 02.

    Examples
    --------
    >>> dimension_titles(16, 0.2, 0.5)[1]
    'Probe on embedding + PE, d = 16: R² = 0.50'
    """
    d_model = check_int("d_model", d_model, minimum=1)
    mean_abs_cosine = check_real("mean_abs_cosine", mean_abs_cosine)
    r2 = check_real("r2", r2)
    return (
        f"Random pairs, d = {d_model}: mean |cos| = {mean_abs_cosine:.3f}",
        f"Probe on embedding + PE, d = {d_model}: R² = {r2:.2f}",
    )


@course_style
def plot_dimension_panels(
    cosines: ArrayLike,
    true_positions: ArrayLike,
    predicted_positions: ArrayLike,
    d_model: int,
    r2: float,
    axes: list | None = None,
) -> Figure:
    """Two panels for one dimension d: cosines of random pairs, and a probe's predictions.

    Parameters
    ----------
    cosines : array_like
        Cosine similarities of random pairs (left: histogram on :data:`COSINE_BINS`).
    true_positions, predicted_positions : array_like
        Held-out positions and what the linear probe predicted (right: scatter).
    d_model : int
        The dimension (titles).
    r2 : float
        The probe's R² (title).
    axes : pair of matplotlib.axes.Axes, optional
        Where to draw; a new wide figure when None.

    Returns
    -------
    matplotlib.figure.Figure
        Left: ``axes[0].patches`` are the histogram bars; right: ``axes[1].collections[0]``
        holds the (true, predicted) points and ``axes[1].lines[0]`` the diagonal.

    Examples
    --------
    >>> fig = plot_dimension_panels([0.1, -0.1], [0, 1], [0.2, 0.9], 8, 0.9)
    >>> len(fig.axes[0].patches)
    40
    """
    c = _check_vector("cosines", cosines)
    truth = _check_vector("true_positions", true_positions)
    guess = _check_vector("predicted_positions", predicted_positions)
    _same_length(true_positions=truth, predicted_positions=guess)
    d_model = check_int("d_model", d_model, minimum=1)
    r2 = check_real("r2", r2)
    if axes is None:
        figure = plt.figure(figsize=WIDE_FIGSIZE, layout="constrained")
        axes = list(figure.subplots(1, 2))
    elif len(axes) != 2:
        raise ValueError(f"axes must hold 2 Axes, got {len(axes)}")
    left, right = axes
    heights = cosine_histogram(c)
    left.bar(
        COSINE_BINS[:-1],
        heights,
        width=np.diff(COSINE_BINS),
        align="edge",
        color="C0",
    )
    left.set_xlim(-1.0, 1.0)
    left.set_ylim(0.0, max(float(heights.max()), 0.05) * 1.15)
    left.set_xlabel("cosine of two random vectors")
    left.set_ylabel("fraction of pairs")
    top = max(float(truth.max()), 1.0)
    right.plot([0.0, top], [0.0, top], linestyle="--", color="C1", label="perfect probe")
    right.scatter(truth, guess, alpha=0.4, color="C0", label="held-out samples")
    right.set_xlim(-1.0, top + 1.0)
    right.set_ylim(-0.5 * top, 1.5 * top)
    right.set_xlabel("true position t")
    right.set_ylabel("position read by the probe")
    right.legend(loc="upper left")
    title_left, title_right = dimension_titles(d_model, float(np.mean(np.abs(c))), r2)
    left.set_title(title_left)
    right.set_title(title_right)
    return left.figure


@course_style
def plot_wavelengths(
    wavelength_values: ArrayLike,
    base: float,
    position: float | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Wavelength of every (sin, cos) pair on a log scale, between 2π and 2π·base.

    Parameters
    ----------
    wavelength_values : array_like
        ``2 pi / w_k`` for ``k = 0 .. d/2 - 1``.
    base : float
        Frequency base (the reference line ``2 pi base``).
    position : float, optional
        Also draw a horizontal line at this position: pairs below it have turned
        at least once full circle by then.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines[0]`` wavelengths, ``ax.lines[1]`` the 2π line, ``ax.lines[2]`` the
        2π·base line, ``ax.lines[3]`` the position line (when given).

    Examples
    --------
    >>> ax = plot_wavelengths([6.28, 62.8], 100.0)
    >>> ax.get_yscale()
    'log'
    """
    lam = _check_vector("wavelength_values", wavelength_values)
    if lam.min() <= 0:
        raise ValueError(f"wavelength_values must be > 0 (log axis), got minimum {lam.min():g}")
    base = check_real("base", base, positive=True)
    ax = new_axes(ax)
    k = np.arange(lam.size, dtype=np.float64)
    ax.semilogy(k, lam, marker="o", color="C0", label="wavelength 2π / w_k")
    ax.axhline(2 * np.pi, linestyle=":", color="C2", label="2π (fastest pair)")
    ax.axhline(2 * np.pi * base, linestyle="--", color="C3", label="2π · base")
    if position is not None:
        position = check_real("position", position, positive=True)
        ax.axhline(position, color="C1", label=f"position t = {position:g}")
    ax.set_xlabel("pair index k (dimensions 2k, 2k+1)")
    ax.set_ylabel("wavelength (positions)")
    ax.set_title(wavelength_title(2 * lam.size, base))
    ax.set_xlim(-1, lam.size)
    ax.set_ylim(*wavelength_limits(lam, base, position))
    ax.legend(loc="lower right")
    return ax


def wavelength_title(d_model: int, base: float) -> str:
    """Title of the wavelength figure.

    Examples
    --------
    >>> wavelength_title(128, 10000.0)
    'Wavelengths grow geometrically (d = 128, base = 10,000)'
    """
    d_model = check_int("d_model", d_model, minimum=1)
    return f"Wavelengths grow geometrically (d = {d_model}, base = {format_base(base)})"


def wavelength_limits(
    wavelength_values: ArrayLike, base: float, position: float | None = None
) -> tuple[float, float]:
    """Log-scale y limits that show every wavelength, both reference lines and the position.

    Examples
    --------
    >>> lo, hi = wavelength_limits([6.28, 62.8], 10.0)
    >>> lo < 6.28 and hi > 62.8
    True
    """
    lam = _check_vector("wavelength_values", wavelength_values)
    if lam.min() <= 0:
        raise ValueError(f"wavelength_values must be > 0 (log axis), got minimum {lam.min():g}")
    base = check_real("base", base, positive=True)
    values = [float(lam.min()), float(lam.max()), 2 * np.pi, 2 * np.pi * base]
    if position is not None:
        values.append(check_real("position", position, positive=True))
    return min(values) / 2.0, max(values) * 4.0


@course_style
def plot_frequency_readings(
    pair_reading: ArrayLike,
    column_reading: ArrayLike,
    ax: Axes | None = None,
) -> Axes:
    """Frequency of each column under the pair reading (right) and column reading (wrong).

    Parameters
    ----------
    pair_reading : array_like
        Per-column frequencies with ``w_k = base^(-2k/d)``, k the pair index.
    column_reading : array_like
        Per-column frequencies with ``base^(-2i/d)``, i the column index.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines[0]`` pair reading, ``ax.lines[1]`` column reading.

    Examples
    --------
    >>> ax = plot_frequency_readings([1, 1, 0.1, 0.1], [1, 0.1, 0.01, 0.001])
    >>> len(ax.lines)
    2
    """
    right = _check_vector("pair_reading", pair_reading)
    wrong = _check_vector("column_reading", column_reading)
    _same_length(pair_reading=right, column_reading=wrong)
    ax = new_axes(ax)
    columns = np.arange(right.size)
    ax.semilogy(columns, right, marker="o", color="C0",
                label="i = pair index k (correct): sin and cos share w_k")
    ax.semilogy(columns, wrong, marker="x", linestyle="--", color="C3",
                label="i = column index (wrong): exponent runs to ≈ 2")
    ax.set_xlabel("column of the encoding")
    ax.set_ylabel("frequency (radians per position)")
    ax.set_title("Reading the exponent 2i/d: pair index vs column index")
    ax.legend(loc="lower left")
    return ax


@course_style
def plot_min_distance(
    lengths: ArrayLike,
    curves: dict,
    ax: Axes | None = None,
) -> Axes:
    """Smallest distance between the encodings of any two of the first n positions.

    Parameters
    ----------
    lengths : array_like
        Sequence lengths ``n`` (x axis).
    curves : dict of str to array_like
        One curve per encoding, by legend label (log y axis).
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines[j]`` is the j-th curve.

    Examples
    --------
    >>> ax = plot_min_distance([2, 3], {"a": [1.0, 0.5]})
    >>> ax.get_legend().get_texts()[0].get_text()
    'a'
    """
    n = _check_vector("lengths", lengths)
    if not curves:
        raise ValueError("curves must hold at least one curve, got none")
    ax = new_axes(ax)
    for j, (label, values) in enumerate(curves.items()):
        y = _check_vector(f"curves[{label!r}]", values)
        _same_length(lengths=n, curve=y)
        ax.semilogy(n, y, color=f"C{j}", label=str(label))
    ax.set_xlabel("number of positions n")
    ax.set_ylabel("closest pair distance")
    ax.set_title("How close do two different positions get?")
    ax.legend(loc="lower left")
    return ax


@course_style
def plot_counter_analogy(
    bits: ArrayLike,
    pe: ArrayLike,
    axes: list | None = None,
) -> Figure:
    """A binary counter next to the sinusoidal encoding, one row per position.

    Parameters
    ----------
    bits : array_like
        Shape ``(n, n_bits)`` of 0/1, least significant bit first.
    pe : array_like
        Shape ``(n, d)``: the encoding of the same positions.
    axes : pair of matplotlib.axes.Axes, optional
        Where to draw; a new wide figure when None.

    Returns
    -------
    matplotlib.figure.Figure
        ``figure.axes[0].images[0]`` holds the bits, ``figure.axes[1].images[0]`` the PE.

    Examples
    --------
    >>> fig = plot_counter_analogy([[0, 0], [1, 0]], [[0.0, 1.0], [0.8, 0.5]])
    >>> fig.axes[1].get_title()
    'Sinusoidal PE (d = 2): fast columns left'
    """
    b = check_array("bits", bits, min_ndim=2).astype(np.float64)
    p = check_array("pe", pe, min_ndim=2).astype(np.float64)
    if b.ndim != 2 or p.ndim != 2 or b.shape[0] != p.shape[0]:
        raise ValueError(
            f"bits and pe must be 2-D with one row per position, got {b.shape} and {p.shape}"
        )
    if axes is None:
        figure = plt.figure(figsize=WIDE_FIGSIZE, layout="constrained")
        axes = list(figure.subplots(1, 2))
    elif len(axes) != 2:
        raise ValueError(f"axes must hold 2 Axes, got {len(axes)}")
    left, right = axes
    heatmap(b, left, xlabel="bit b (value 2^b)", ylabel="position t",
            title="Binary counter (red = 1): low bits flip fast", limit=1.0, colorbar=False)
    heatmap(p, right, xlabel="dimension i", ylabel="position t",
            title=f"Sinusoidal PE (d = {p.shape[1]}): fast columns left", limit=1.0,
            colorbar_label="PE value")
    for ax in axes:
        ax.set_yticks(np.arange(b.shape[0]))
    left.set_xticks(np.arange(b.shape[1]))
    right.set_xticks(np.arange(p.shape[1]))
    return left.figure


def pe_vector_title(position: float, d_model: int, base: float) -> str:
    """Title of the PE-vector panel.

    Examples
    --------
    >>> pe_vector_title(10, 64, 10000.0)
    'PE(t = 10), d = 64, base = 10,000'
    """
    position = check_real("position", position)
    d_model = check_int("d_model", d_model, minimum=1)
    return f"PE(t = {position:g}), d = {d_model}, base = {format_base(base)}"


def stem_segments(values: ArrayLike, columns: ArrayLike) -> np.ndarray:
    """Vertical segments from 0 to each value, for drawing stems with a LineCollection.

    Examples
    --------
    >>> stem_segments([0.5], [3]).tolist()
    [[[3.0, 0.0], [3.0, 0.5]]]
    """
    v = _check_vector("values", values)
    x = _check_vector("columns", columns)
    _same_length(values=v, columns=x)
    return np.stack([np.column_stack([x, np.zeros_like(v)]), np.column_stack([x, v])], axis=1)


@course_style
def plot_pe_vector(
    pe_row: ArrayLike,
    title: str = "",
    ax: Axes | None = None,
) -> Axes:
    """The encoding of one position as stems: sin columns (even) and cos columns (odd).

    Parameters
    ----------
    pe_row : array_like
        Shape ``(d,)``: one row of the encoding.
    title : str
        Title of the panel.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines[0]``/``ax.lines[1]`` are the sin/cos markers,
        ``ax.collections[0]``/``[1]`` their stems.

    Examples
    --------
    >>> ax = plot_pe_vector([0.0, 1.0, 0.5, 0.9])
    >>> ax.lines[1].get_ydata().tolist()
    [1.0, 0.9]
    """
    row = _check_vector("pe_row", pe_row)
    if row.size % 2:
        raise ValueError(f"pe_row must have an even length, got {row.size}")
    ax = new_axes(ax)
    columns = np.arange(row.size, dtype=np.float64)
    for j, (name, part) in enumerate((("sin (even i)", 0), ("cos (odd i)", 1))):
        ax.plot(columns[part::2], row[part::2], "o", color=f"C{j}", label=name)
    for j, part in enumerate((0, 1)):
        ax.add_collection(
            mpl.collections.LineCollection(
                stem_segments(row[part::2], columns[part::2]), colors=f"C{j}"
            )
        )
    ax.axhline(0.0, color="C7")
    ax.set_xlim(-1, row.size)
    ax.set_ylim(-1.15, 1.15)
    ax.set_xlabel("dimension i")
    ax.set_ylabel("PE value")
    ax.set_title(title)
    ax.legend(loc="lower right", ncols=2)
    return ax


@course_style
def plot_frequency_panels(
    pe_row: ArrayLike,
    wavelength_values: ArrayLike,
    base: float,
    position: float,
    axes: list | None = None,
) -> Figure:
    """Lesson 03's slider figure: one position's encoding, and the wavelengths against it.

    Parameters
    ----------
    pe_row : array_like
        The encoding of ``position``, shape ``(d,)``.
    wavelength_values : array_like
        Wavelength of each pair, shape ``(d / 2,)``.
    base : float
        Frequency base.
    position : float
        The position shown (> 0).
    axes : pair of matplotlib.axes.Axes, optional
        Where to draw; a new wide figure when None.

    Returns
    -------
    matplotlib.figure.Figure
        Left: :func:`plot_pe_vector`; right: :func:`plot_wavelengths` with the position line.

    Examples
    --------
    >>> fig = plot_frequency_panels([0.8, 0.5, 0.1, 1.0], [6.3, 63.0], 100.0, 1)
    >>> len(fig.axes)
    2
    """
    row = _check_vector("pe_row", pe_row)
    lam = _check_vector("wavelength_values", wavelength_values)
    if row.size != 2 * lam.size:
        raise ValueError(
            f"pe_row must have twice as many entries as wavelength_values, got "
            f"{row.size} and {lam.size}"
        )
    if axes is None:
        figure = plt.figure(figsize=WIDE_FIGSIZE, layout="constrained")
        axes = list(figure.subplots(1, 2))
    elif len(axes) != 2:
        raise ValueError(f"axes must hold 2 Axes, got {len(axes)}")
    plot_pe_vector(row, pe_vector_title(position, row.size, base), ax=axes[0])
    plot_wavelengths(lam, base, position=position, ax=axes[1])
    return axes[0].figure
