"""Course figures: one function per kind of figure.

Every function takes ``ax=None`` (a new projector-sized figure is made when it is
None) and returns the Axes it drew on, so notebooks can compose panels and tests
can read the data back. Importing this module changes no global matplotlib state.
Values in [-1, 1] are drawn with a diverging colour map centred at 0, so that 0
and ±1 are never confused.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from cycler import cycler
from matplotlib.axes import Axes
from numpy.typing import ArrayLike

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
        with mpl.rc_context(active_rc()):
            return function(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


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
