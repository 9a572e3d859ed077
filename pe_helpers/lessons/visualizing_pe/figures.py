"""The lesson's figures."""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import offset_copy
from numpy.typing import ArrayLike

from ..._validate import check_array, check_int
from ...encodings import sinusoidal_pe
from ...figures import FIGSIZE, WIDE_FIGSIZE, course_style, format_base, heatmap, new_axes
from ...live import LiveFigure, even_control, int_control, log_control, side_by_side
from .maths import dot_profile, sines_then_cosines

__all__ = [
    "PEOverview",
    "plot_column_means",
    "plot_layouts",
    "plot_pe_dimensions",
    "plot_pe_dot_profile",
    "plot_pe_heatmap",
]

_RAW_DOT = r"$\mathrm{PE}(t)\cdot\mathrm{PE}(t+\Delta)$"


@course_style
def plot_pe_heatmap(
    pe: ArrayLike, ax: Axes | None = None, *, title: str = "", colorbar: bool = True
) -> Axes:
    """A positional-encoding matrix as a heatmap: positions down, dimensions across.

    Colours are fixed to [−1, 1] with the course's diverging map centred at 0: white
    is 0, dark red +1 (a cos column at small angles), dark blue −1.

    Parameters
    ----------
    pe : array_like, shape (n_positions, d_model)
        The encoding, e.g. ``sinusoidal_pe(50, 128)``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new wide figure when None.
    title : str
        Title; by default it names the shape.
    colorbar : bool, default True
        Add a colour bar.

    Returns
    -------
    matplotlib.axes.Axes
        The axes, with the encoding as ``ax.images[0]``.

    Examples
    --------
    >>> plot_pe_heatmap(np.zeros((5, 8))).get_title()
    'Positional encoding: 5 positions × 8 dimensions'
    """
    arr = check_array("pe", pe, ndim=2).astype(np.float64)
    if not isinstance(title, str):
        raise TypeError(f"title must be text, got {title!r:.60}")
    n_positions, d_model = arr.shape
    return heatmap(
        arr,
        ax,
        xlabel="dimension i (even: sin, odd: cos); red +1, white 0, blue −1",
        ylabel="position t",
        title=title or f"Positional encoding: {n_positions} positions × {d_model} dimensions",
        limit=1.0,
        colorbar=colorbar,
        colorbar_label="PE(t, i)",
    )


@course_style
def plot_pe_dimensions(pe: ArrayLike, dimensions: ArrayLike, ax: Axes | None = None) -> Axes:
    """Some columns of a positional encoding, each drawn as a wave over position.

    Parameters
    ----------
    pe : array_like, shape (n_positions, d_model)
        The encoding; row ``t`` is position ``t``.
    dimensions : sequence of int
        Column indices to draw (even: sin, odd: cos), at most ten.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        The axes: ``ax.lines[j]`` is the wave of the ``j``-th listed column.

    Examples
    --------
    >>> ax = plot_pe_dimensions(np.eye(4), [1, 2])
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['dim 1: cos, k = 0', 'dim 2: sin, k = 1']
    """
    arr = check_array("pe", pe, ndim=2).astype(np.float64)
    listed = np.asarray(dimensions, dtype=object)
    if listed.ndim != 1 or not 1 <= listed.size <= 10:
        raise ValueError(
            f"dimensions must be a 1-D sequence of 1 to 10 columns, got {dimensions!r}"
        )
    columns = [check_int("dimensions", column) for column in listed.tolist()]
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
    ax.set_title("Each dimension is a wave over positions")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return ax


def _dot_axes(ax: Axes) -> list:
    """Labels and reference lines (returned) shared by every dot-against-offset panel."""
    zero = ax.axhline(0.0, color="0.3", linewidth=1.0)
    no_offset = ax.axvline(0.0, color="0.3", linewidth=1.0, linestyle="--")
    ax.set_xlabel(r"offset $\Delta$")
    ax.set_ylabel(_RAW_DOT)
    return [zero, no_offset]


@course_style
def plot_pe_dot_profile(
    deltas: ArrayLike, dots: ArrayLike, ax: Axes | None = None, *, title: str = ""
) -> Axes:
    """The dot product of two encodings against their offset Δ.

    Parameters
    ----------
    deltas, dots : array_like, shape (n,)
        Offsets Δ and ``PE(t)·PE(t + Δ)`` for each (see :func:`dot_profile`).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.
    title : str
        Title of the axes.

    Returns
    -------
    matplotlib.axes.Axes
        The axes: the profile is ``ax.lines[0]``; ``ax.lines[1:]`` mark 0 and Δ = 0.

    Examples
    --------
    >>> plot_pe_dot_profile([-1, 0, 1], [1.5, 2.0, 1.5], title="d = 2").get_title()
    'd = 2'
    """
    x = check_array("deltas", deltas, ndim=1).astype(np.float64)
    y = check_array("dots", dots, ndim=1).astype(np.float64)
    if x.shape != y.shape:
        raise ValueError(f"dots must have the shape of deltas {x.shape}, got {y.shape}")
    ax = new_axes(ax, FIGSIZE)
    ax.plot(x, y, color="C0", marker="o", markersize=3)
    _dot_axes(ax)
    ax.set_title(title)
    return ax


@course_style
def plot_layouts(pe: ArrayLike, *, cmap: str = "RdBu") -> Figure:
    """The same encoding in two column orders, side by side, in one colour map.

    Left: interleaved (sin, cos, sin, cos, …: Vaswani et al., this course). Right:
    all sines, then all cosines (tensor2tensor). A dashed line marks the right half.

    Parameters
    ----------
    pe : array_like, shape (n_positions, d_model)
        The interleaved encoding.
    cmap : str, default "RdBu"
        A matplotlib colour map; ``"RdBu"`` (red −1, white 0, blue +1) is the map
        of the TensorFlow tutorial that drew the sines-then-cosines picture.

    Returns
    -------
    matplotlib.figure.Figure
        The figure: the interleaved layout on ``figure.axes[0]``, sines then cosines on
        ``figure.axes[1]``, and their shared colour bar.

    Examples
    --------
    >>> figure = plot_layouts(np.zeros((3, 4)))
    >>> [ax.get_title() for ax in figure.axes[:2]]
    ['interleaved: sin, cos, sin, cos, …', 'sines, then cosines']
    """
    arr = check_array("pe", pe, ndim=2).astype(np.float64)
    split = sines_then_cosines(arr)
    if not isinstance(cmap, str):
        raise TypeError(f"cmap must be the name of a matplotlib colour map, got {cmap!r}")
    if cmap not in mpl.colormaps:
        raise ValueError(f"cmap must be the name of a matplotlib colour map, got {cmap!r:.60}")
    n_positions, d_model = arr.shape
    figure, axes = plt.subplots(1, 2, figsize=WIDE_FIGSIZE, layout="constrained", sharey=True)
    panels = [(arr, "interleaved: sin, cos, sin, cos, …"), (split, "sines, then cosines")]
    for ax, (values, title) in zip(axes, panels, strict=True):
        image = ax.imshow(
            values, cmap=cmap, vmin=-1.0, vmax=1.0, aspect="auto", interpolation="nearest"
        )
        ax.axvline(d_model / 2 - 0.5, color="black", linestyle="--", linewidth=1.5)
        ax.set_title(title)
        ax.set_xlabel("dimension")
    axes[0].set_ylabel("position t")
    bar = figure.colorbar(image, ax=list(axes))
    bar.set_label(f"PE value, colour map {cmap}")
    return figure


@course_style
def plot_column_means(
    means: ArrayLike, ax: Axes | None = None, *, first_dimension: int = 0
) -> Axes:
    """Bar chart of the mean of each PE column, sin and cos columns in two colours.

    Parameters
    ----------
    means : array_like, shape (m,)
        Mean of columns ``first_dimension .. first_dimension + m - 1``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.
    first_dimension : int, default 0
        Index of the first column, so that even (sin) and odd (cos) are told apart.

    Returns
    -------
    matplotlib.axes.Axes
        The axes: one bar per column in ``ax.patches``, sin columns first.

    Examples
    --------
    >>> ax = plot_column_means([0.0, 1.0, 0.1, 0.9], first_dimension=2)
    >>> [float(bar.get_height()) for bar in ax.patches]
    [0.0, 0.1, 1.0, 0.9]
    """
    values = check_array("means", means, ndim=1).astype(np.float64)
    check_int("len(means)", values.size, maximum=1024)
    first = check_int("first_dimension", first_dimension, minimum=0)
    ax = new_axes(ax, FIGSIZE)
    dims = first + np.arange(values.size)
    is_sin = dims % 2 == 0
    ax.bar(dims[is_sin], values[is_sin], color="C0", label="sin columns (even i)")
    ax.bar(dims[~is_sin], values[~is_sin], color="C1", label="cos columns (odd i)")
    ax.axhline(0.0, color="0.3", linewidth=1.0)
    ax.set_ylim(min(-0.1, float(values.min()) - 0.1), max(1.1, float(values.max()) + 0.1))
    ax.set_xlabel("dimension i")
    ax.set_ylabel("mean of PE(t, i) over t")
    ax.set_title(f"Column means of dimensions {first}–{first + values.size - 1}")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return ax


def _label_offset() -> float:
    """Points between an axis and its y label that leave room for 3-digit tick labels."""
    size = mpl.rcParams["ytick.labelsize"]
    size = size if isinstance(size, (int, float)) else mpl.rcParams["font.size"]
    return (
        3 * 0.62 * size + mpl.rcParams["ytick.major.size"] + 2 * mpl.rcParams["ytick.major.pad"] + 4
    )


class PEOverview(LiveFigure):
    """Two panels: the encoding as a heatmap, and ``PE(t)·PE(t+Δ)`` against Δ.

    Left: the ``n × d`` encoding, colours fixed to [−1, 1] (red +1, white 0, blue −1).
    Right: the dot product for Δ from ``−(n−1)`` to ``n−1``, peak ``d/2`` at Δ = 0.

    Examples
    --------
    >>> figure = PEOverview().draw(d_model=16)
    >>> float(figure.axes[1].lines[0].get_ydata().max())  # the peak d/2, at Δ = 0
    8.0
    """

    # The values the website has pictures for (scripts/build_site.py).
    site_grid = {
        "n_positions": (10, 50, 200),
        "d_model": (16, 64, 128),
        "base": (1e1, 1e2, 1e3, 1e4, 1e5, 1e6),
    }
    controls = {
        "n_positions": int_control("positions n", 50, 2, 200),
        "d_model": even_control("d", 128, 2, 256),
        "base": log_control("base", 10000.0, 10.0, 1e6),
    }
    layout = side_by_side(width_ratios=(1.3, 1.0))

    def build(self, axes) -> SimpleNamespace:
        heat_ax, dot_ax = axes
        labels = {"xlabel": "dimension i (red +1, white 0, blue −1)", "ylabel": "position t"}
        image = heatmap(np.zeros((2, 2)), heat_ax, **labels, limit=1.0, colorbar=False).images[0]
        for axis in (heat_ax.xaxis, heat_ax.yaxis):
            axis.set_major_locator(MaxNLocator(integer=True))
        dot_ax.xaxis.set_major_locator(MaxNLocator(nbins=4, integer=True))  # room for "−160"
        # The y label stands clear of 3-digit positions (n up to 200) from the start: the
        # view lays the figure out once, at the starting n.
        heat_ax.yaxis.set_label_coords(
            0.0,
            0.5,
            transform=offset_copy(
                heat_ax.transAxes, heat_ax.figure, x=-_label_offset(), units="points"
            ),
        )
        (curve,) = dot_ax.plot([], [], color="C0", marker="o", markersize=3)
        references = _dot_axes(dot_ax)
        dot_ax.set_title(_RAW_DOT)
        return SimpleNamespace(
            heat_ax=heat_ax, dot_ax=dot_ax, image=image, curve=curve, references=references
        )

    def update(self, art: SimpleNamespace, n_positions: int, d_model: int, base: float) -> None:
        deltas = np.arange(-(n_positions - 1), n_positions, dtype=np.float64)
        dots = dot_profile(deltas, d_model, base)
        art.image.set_data(sinusoidal_pe(n_positions, d_model, base))
        art.image.set_extent((-0.5, d_model - 0.5, n_positions - 0.5, -0.5))
        art.heat_ax.set_xlim(-0.5, d_model - 0.5)
        art.heat_ax.set_ylim(n_positions - 0.5, -0.5)
        art.heat_ax.set_title(f"PE: {n_positions} × {d_model}, base {format_base(base)}")
        art.curve.set_data(deltas, dots)
        art.dot_ax.set_xlim(-n_positions + 0.5, n_positions - 0.5)
        spread = d_model / 2
        # The lower limit moves in quarters of d/2: a steady axis while the base is dragged.
        low = min(0.0, np.floor(dots.min() / spread * 4.0) / 4.0) - 0.05
        art.dot_ax.set_ylim(low * spread, 1.05 * spread)

    def moving(self, art: SimpleNamespace) -> list:
        return [art.image, art.curve, art.heat_ax.title]

    def rescaled(self, art: SimpleNamespace) -> list:
        # n moves the heatmap's position axis and the offset axis, and the line at Δ = 0
        # (data coordinates) with it: a step of n blits. d moves the other two axes: such a
        # step draws the whole figure, which costs less than four axes drawn on every step.
        zero, no_offset = art.references
        return [art.heat_ax.yaxis, art.dot_ax.xaxis, no_offset]
