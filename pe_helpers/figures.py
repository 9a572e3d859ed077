"""Figure basics shared by every lesson: style, projector mode, axes, heatmaps, curves.

Importing this module changes no global matplotlib state: the course settings are
applied around each drawing (:func:`course_style`, :func:`style_context`) and pinned on
the figure afterwards. Signed quantities use a diverging colour map centred at 0, so 0
and ±1 are never confused; cells that are NaN or infinite (masked scores) get a colour of
their own and never stretch the colour scale.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TypeVar

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from cycler import cycler
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.cm import ScalarMappable
from matplotlib.collections import Collection
from matplotlib.colors import Normalize, to_hex, to_rgba
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.text import Text
from matplotlib.transforms import offset_copy
from numpy.typing import ArrayLike

from ._validate import check_array, check_bool, check_real
from .i18n import translate_figure

__all__ = [
    "classroom_style",
    "draw_inline_once",
    "heatmap",
    "plain_log_ticks",
    "plot_curves",
    "plot_heatmap_row",
]

F = TypeVar("F", bound=Callable)

# Every course figure is read at 1280 x 720 from the back of a room. JupyterLab scales a PNG
# wider than its content column down to it (:func:`on_screen_px`): 12 pt stays >= 12 px on every
# figure up to 11.7 inches wide, at any dpi >= 72.

#: Width of JupyterLab's notebook content column at 1280 x 720, file browser open (CSS px;
#: JupyterLab 4.6 in Chromium, measured for issue 39).
CONTENT_WIDTH_PX = 844
#: Smallest text, in CSS pixels on that screen, any course figure may show (default style).
MIN_TEXT_PX = 12
#: Resolution of static figures (the inline backend saves at the figure's dpi).
STATIC_DPI = 100
#: Resolution of live pictures (:mod:`pe_helpers.views`): sharp on a projector, cheap to redraw.
WIDGET_DPI = 80
#: Size of a single-panel course figure, in inches: legible on a projector.
FIGSIZE = (8.0, 4.0)
#: Size of a wide figure (heatmaps of many dimensions, several panels).
WIDE_FIGSIZE = (11.0, 4.5)
#: Size of a figure whose panel must stay square (a unit circle).
CIRCLE_FIGSIZE = (11.0, 5.0)
#: Every figure size the course uses, by name; no figure is wider than 11 inches.
FIGURE_SIZES = {"FIGSIZE": FIGSIZE, "WIDE_FIGSIZE": WIDE_FIGSIZE, "CIRCLE_FIGSIZE": CIRCLE_FIGSIZE}
#: Diverging colour map used for every signed quantity (blue < 0 < red).
DIVERGING_CMAP = "RdBu_r"
#: Most panels :func:`plot_heatmap_row` draws side by side, and most rows or columns of each.
MAX_PANELS = 6
MAX_HEATMAP_SIZE = 2048
#: Widest or tallest figure a door draws, in inches.
MAX_INCHES = 30
#: Colour of heatmap cells that hold NaN or ±inf (masked scores): neither blue nor red.
MASKED_COLOUR = "#bdbdbd"

#: Okabe-Ito palette, black last: distinguishable with the common colour-vision deficiencies
#: (every pair at least CIELAB ΔE 15 apart under simulated deuteranopia and protanopia;
#: tests/test_figure_room.py). Every series of every course figure takes its colour from it.
OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]

#: Matplotlib settings every course figure is drawn with (applied per drawing, never globally):
#: no text under 12 pt (see :data:`MIN_TEXT_PX`), colours from :data:`OKABE_ITO`.
COURSE_RC: dict = {
    "figure.dpi": STATIC_DPI,
    "font.size": 13,
    "axes.titlesize": 14,
    "axes.labelsize": 13,
    "xtick.labelsize": 12,
    "ytick.labelsize": 12,
    "legend.fontsize": 12,
    "legend.title_fontsize": 12,
    "figure.titlesize": 14,
    "lines.linewidth": 2.0,
    "axes.grid": False,
    "axes.prop_cycle": cycler(color=OKABE_ITO),
}

#: Projector mode: large type and thick lines, same colours.
CLASSROOM_RC: dict = {
    **COURSE_RC,
    "font.size": 16,
    "axes.titlesize": 18,
    "axes.labelsize": 16,
    "xtick.labelsize": 14,
    "ytick.labelsize": 14,
    "legend.fontsize": 14,
    "legend.title_fontsize": 14,
    "figure.titlesize": 18,
    "lines.linewidth": 3.0,
    "lines.markersize": 9.0,
    "axes.linewidth": 1.5,
}


def on_screen_px(points: float, width_inches: float, dpi: float) -> float:
    """How tall, in CSS pixels, text of ``points`` shows in JupyterLab at 1280 x 720."""
    natural = points / 72.0 * dpi
    return natural * min(1.0, CONTENT_WIDTH_PX / (width_inches * dpi))


_classroom = [False]


class classroom_style:  # noqa: N801 - used like a function: classroom_style()
    """Switch projector mode on (or off) for every course figure drawn afterwards.

    ``classroom_style()`` switches it on for the session, ``classroom_style(False)`` off; as
    a context manager, on for a block only. Only figures drawn by ``pe_helpers``, static and
    live, follow it (:data:`CLASSROOM_RC`); matplotlib's own defaults are never touched.

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
        on = check_bool("on", on)
        self._previous = _classroom[0]
        _classroom[0] = on

    def __enter__(self) -> classroom_style:
        return self

    def __exit__(self, *exc_info: object) -> None:
        _classroom[0] = self._previous

    def __repr__(self) -> str:
        return f"projector mode {'on' if _classroom[0] else 'off'}"


def draw_inline_once() -> None:
    """Set IPython's inline backend up so that each figure is drawn once, as laid out.

    Drops pyplot's redraw of every open figure after each cell (its REPL display hook;
    ``plt.ion()`` installs it again) and the inline backend's ``bbox_inches="tight"`` pass,
    which course figures, laid out already, do not need. Outside an IPython kernel with the
    inline backend it does nothing.

    Examples
    --------
    >>> draw_inline_once()  # a plain Python session: nothing to change
    """
    from IPython import get_ipython  # installed with ipywidgets

    shell = get_ipython()
    if shell is None or "inline" not in mpl.get_backend():
        return
    # Loaded first: loading it installs the display hook removed below.
    importlib.import_module("matplotlib_inline.backend_inline")
    from matplotlib_inline.config import InlineBackend

    config = InlineBackend.instance(parent=shell)
    config.print_figure_kwargs = {**config.print_figure_kwargs, "bbox_inches": None}
    plt.uninstall_repl_displayhook()


def kernel_request() -> dict:
    """The request the IPython kernel is handling (its parent message); {} outside a kernel."""
    from IPython import get_ipython

    kernel = getattr(get_ipython(), "kernel", None)
    try:
        return (kernel.get_parent("shell") or {}) if kernel is not None else {}
    except Exception:  # noqa: BLE001 - an old or unusual kernel: no request to read
        return {}


def active_rc() -> dict:
    """The settings course figures are drawn with right now (course or projector)."""
    return CLASSROOM_RC if _classroom[0] else COURSE_RC


@contextlib.contextmanager
def style_context(settings: Mapping | None = None) -> Iterator[Mapping]:
    """Apply ``settings`` (default: the active ones) for the block; yield them.

    Only these keys are restored: a full ``mpl.rc_context`` would also undo the interactive
    mode the inline backend switches on with a session's first figure, hiding later figures.
    """
    settings = active_rc() if settings is None else settings
    saved = {key: mpl.rcParams[key] for key in settings}
    mpl.rcParams.update(settings)
    try:
        yield settings
    finally:
        mpl.rcParams.update(saved)


def course_style(function: F) -> F:
    """Decorator: run a plotting function under :func:`style_context` and pin the result."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with style_context() as settings:
            result = function(*args, **kwargs)
            figure = _figure_of(result)
            if figure is not None:
                pin_style(figure, settings)
                translate_figure(figure)
            return result

    return wrapper  # type: ignore[return-value]


def _figure_of(result: object) -> Figure | None:
    """The figure a plotting function drew on, from the Axes, Figure or tuple it returned."""
    if isinstance(result, (tuple, list)) and result:
        result = result[0]
    if isinstance(result, Figure):
        return result
    if isinstance(result, Axes):
        return result.figure
    return None


_CYCLE_COLOUR = re.compile(r"^C\d+$")


def pin_style(figure: Figure, settings: Mapping) -> None:
    """Fix the tick label sizes and "C0", "C1", ... colours of ``figure`` to ``settings`` now."""
    for ax in figure.axes:
        ax.tick_params(axis="x", labelsize=settings["xtick.labelsize"])
        ax.tick_params(axis="y", labelsize=settings["ytick.labelsize"])
    pin_cycle_colours(figure)


def pin_cycle_colours(figure: Figure) -> None:
    """Replace every "C0", "C1", ... colour of the figure's lines, texts and collections."""
    stack = list(figure.get_children())
    while stack:
        artist = stack.pop()
        if isinstance(artist, Axis):
            continue  # ticks take their colours from the settings, never from the cycle
        stack.extend(artist.get_children())
        if isinstance(artist, Collection) and artist.get_array() is None:
            # A collection resolves "C0" when drawn: fix it to the colours of the settings now.
            artist.set_facecolor(artist.get_facecolor())
            artist.set_edgecolor(artist.get_edgecolor())
            continue
        if not isinstance(artist, (Line2D, Text)):
            continue
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


def check_figsize(figsize: object) -> None:
    """Refuse a figure size that is not two sizes in inches, each in (0, MAX_INCHES]."""
    if not isinstance(figsize, (tuple, list)) or len(figsize) != 2:
        raise TypeError(f"figsize must be (width, height) in inches, got {figsize!r}")
    for inches in figsize:
        if check_real("figsize", inches, positive=True) > MAX_INCHES:
            raise ValueError(f"figsize must be at most {MAX_INCHES} inches a side, got {figsize}")


def new_axes(ax: Axes | None = None, figsize: tuple[float, float] = FIGSIZE) -> Axes:
    """Return ``ax``, or the Axes of a new figure of ``figsize`` inches when it is None."""
    if ax is not None and not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes or None, got {type(ax).__name__}")
    check_figsize(figsize)
    if ax is None:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def plain_log_ticks(axis: Axis) -> None:
    """Label a log axis with plain numbers (2, 4, 8 or 0.1, 0.2) instead of powers.

    Examples
    --------
    >>> ax = new_axes()
    >>> ax.set_xscale("log")
    >>> plain_log_ticks(ax.xaxis)
    """
    if not isinstance(axis, Axis):
        raise TypeError(f"axis must be an Axis (ax.xaxis or ax.yaxis), got {type(axis).__name__}")
    axis.set_major_formatter(mpl.ticker.FormatStrFormatter("%g"))
    axis.set_minor_formatter(mpl.ticker.NullFormatter())


def format_base(base: float) -> str:
    """How figure titles show a frequency base: ``10,000`` or ``31.6``.

    Examples
    --------
    >>> format_base(10000.0), format_base(31.622)
    ('10,000', '31.6')
    """
    return f"{base:,.0f}" if base >= 1000 else f"{base:.3g}"


def _matrix(name: str, values: ArrayLike) -> np.ndarray:
    """``values`` as a float 2-D matrix of at most MAX_HEATMAP_SIZE rows and columns."""
    arr = check_array(name, values, ndim=2, finite=False).astype(np.float64)
    if max(arr.shape) > MAX_HEATMAP_SIZE:
        raise ValueError(
            f"{name} may have at most {MAX_HEATMAP_SIZE} rows and columns, got {arr.shape}"
        )
    return arr


def colour_limit(values: np.ndarray) -> float:
    """Half-width of a symmetric colour scale: the largest finite ``|value|`` (1 if none)."""
    finite = np.abs(values[np.isfinite(values)])
    return float(finite.max()) if finite.size and finite.max() > 0 else 1.0


def diverging_cmap():
    """The course's diverging colour map, with :data:`MASKED_COLOUR` for masked cells."""
    return mpl.colormaps[DIVERGING_CMAP].with_extremes(bad=MASKED_COLOUR)


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
    """Draw a matrix with a diverging colour map centred at 0, NaN and ±inf cells masked.

    Parameters
    ----------
    values : array_like
        2-D matrix, at least 1 x 1; row 0 on top.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new wide figure when None.
    xlabel, ylabel, title : str
        Axis labels and title.
    limit : float, optional
        Colour range is ``[-limit, limit]``; default: the largest finite absolute value.
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
    arr = _matrix("values", values)
    limit = colour_limit(arr) if limit is None else check_real("limit", limit, positive=True)
    check_bool("colorbar", colorbar)
    ax = new_axes(ax, figsize)
    image = ax.imshow(
        np.ma.masked_invalid(arr),
        cmap=diverging_cmap(),
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


@course_style
def plot_curves(
    x: ArrayLike,
    curves: Mapping[str, ArrayLike],
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
    curves : mapping of str to array_like
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
    xs = check_array("x", x, ndim=1).astype(np.float64)
    if not isinstance(curves, Mapping) or not curves:
        raise TypeError(f"curves must be a non-empty dict of label -> y values, got {curves!r}")
    for flag, name in ((logx, "logx"), (logy, "logy"), (markers, "markers")):
        check_bool(name, flag)
    if logx and xs.min() <= 0:
        raise ValueError(f"x must be > 0 on a log axis (logx=True), got minimum {xs.min():g}")
    ys = {}
    for label, values in curves.items():
        ys[label] = check_array(f"curves[{label!r}]", values, ndim=1).astype(np.float64)
        if ys[label].shape != xs.shape:
            raise ValueError(
                f"curves[{label!r}] must have the shape of x {xs.shape}, got {ys[label].shape}"
            )
        if logy and ys[label].min() <= 0:
            raise ValueError(f"curves[{label!r}] must be > 0 on a log axis (logy=True)")
    height = None if reference is None else check_real("reference", reference)
    ax = new_axes(ax, FIGSIZE)
    for index, (label, values) in enumerate(ys.items()):
        marker = "o" if markers else None
        ax.plot(xs, values, color=f"C{index % 10}", label=str(label), marker=marker, markersize=3)
    if height is not None:
        ax.axhline(
            height, color="0.4", linestyle="--", linewidth=1.5, label=reference_label or None
        )
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    legend_below(ax, ncols=min(len(curves) + (reference is not None), 3))
    return ax


def legend_below(ax: Axes, *args: object, **kwargs: object) -> Legend:
    """Put the legend of ``ax`` under its x label, clear of its tick labels in either style."""
    rc = mpl.rcParams
    tick = rc["xtick.labelsize"]
    tick = tick if isinstance(tick, (int, float)) else rc["font.size"]
    label = rc["axes.labelsize"]
    label = label if isinstance(label, (int, float)) else rc["font.size"]
    drop = rc["xtick.major.size"] + rc["xtick.major.pad"] + 1.3 * tick + rc["axes.labelpad"]
    drop += 1.3 * label * (1 + ax.get_xlabel().count("\n")) + 2.0
    anchor = offset_copy(ax.transAxes, ax.figure, y=-drop, units="points")
    kwargs = {"loc": "upper center", "bbox_to_anchor": (0.5, 0.0), **kwargs}
    return ax.legend(*args, bbox_transform=anchor, borderaxespad=0.0, **kwargs)


def draw_seed_band(
    ax: Axes,
    x: ArrayLike,
    low: ArrayLike,
    high: ArrayLike,
    *,
    color: str,
    label: str | None = None,
    alpha: float = 1.0,
    hatch: str = "////",
):
    """Outline the range a measurement took over seeds (:func:`seed_band_style`); returns it."""
    return ax.fill_between(
        np.asarray(x), low, high, **seed_band_style(color, alpha, hatch), label=label
    )


def seed_band_style(color: str, alpha: float = 1.0, hatch: str = "////") -> dict:
    """Keywords of a seed band and of its legend patch: a hatched outline, no fill."""
    edge = (*to_rgba(color)[:3], alpha)
    return {"facecolor": "none", "edgecolor": edge, "hatch": hatch, "linewidth": 0.8}


@course_style
def plot_heatmap_row(
    matrices: Sequence[ArrayLike],
    titles: Sequence[str],
    *,
    xlabel: str = "key position j",
    ylabel: str = "query position i",
    shared_limit: bool = True,
    colorbar_label: str = "score",
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """Several matrices side by side as heatmaps (diverging, centred at 0).

    Parameters
    ----------
    matrices : list of array_like
        1 to :data:`MAX_PANELS` 2-D matrices, one per panel; NaN or ±inf cells are
        drawn in the masked colour.
    titles : list of str
        One title per panel.
    xlabel, ylabel : str
        Axis labels (the y label only on the first panel).
    shared_limit : bool, default True
        One colour range for all panels (so sizes compare) with one colour bar on the
        last panel; otherwise each panel gets its own range and colour bar.
    colorbar_label : str
        Label of the colour bar(s).
    figsize : (float, float), optional
        Size of the figure; default about 3.6 inches per panel, at most 11 inches wide.

    Returns
    -------
    matplotlib.figure.Figure
        Panels first, in the order of ``matrices``, then the colour bars.

    Examples
    --------
    >>> fig = plot_heatmap_row([np.eye(2), -np.eye(2)], ["plus", "minus"])
    >>> [ax.get_title() for ax in fig.axes[:2]]
    ['plus', 'minus']
    """
    if not isinstance(matrices, (list, tuple)):
        raise TypeError(f"matrices must be a list of 2-D matrices, got {type(matrices).__name__}")
    if not 1 <= len(matrices) <= MAX_PANELS:
        raise ValueError(f"matrices must hold 1 to {MAX_PANELS} matrices, got {len(matrices)}")
    arrays = [_matrix(f"matrices[{i}]", m) for i, m in enumerate(matrices)]
    if not isinstance(titles, (list, tuple)) or not all(isinstance(t, str) for t in titles):
        raise TypeError(f"titles must be a list of strings, got {titles!r}")
    if len(titles) != len(arrays):
        raise ValueError(f"titles must have {len(arrays)} entries, got {len(titles)}")
    check_bool("shared_limit", shared_limit)
    if figsize is not None:
        check_figsize(figsize)
    # No wider than the widest course figure, so no text is scaled below MIN_TEXT_PX.
    size = figsize or (min(3.6 * len(arrays) + 1.2, WIDE_FIGSIZE[0]), 4.0)
    same_shape = len({a.shape for a in arrays}) == 1
    figure, axes = plt.subplots(1, len(arrays), figsize=size, squeeze=False, sharey=same_shape)
    # A fixed layout: constrained layout costs a full extra pass for a row this simple.
    figure.subplots_adjust(
        left=0.07,
        right=0.9 if shared_limit else 0.96,
        bottom=0.16,
        top=0.8,
        wspace=0.25 if shared_limit and same_shape else 0.5,
    )
    limit = max(colour_limit(a) for a in arrays)
    for index, (ax, arr, title) in enumerate(zip(axes[0], arrays, titles, strict=True)):
        heatmap(
            arr,
            ax,
            xlabel=xlabel,
            ylabel=ylabel if index == 0 else "",
            title=title,
            limit=limit if shared_limit else None,
            colorbar=not shared_limit,
            colorbar_label=colorbar_label,
        )
    if shared_limit:
        scale = ScalarMappable(Normalize(-limit, limit), cmap=diverging_cmap())
        figure.colorbar(scale, ax=list(axes[0]), label=colorbar_label, fraction=0.04, pad=0.02)
    return figure
