"""Lesson 02 figures: cosines and probe against the width, and the width slider."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from matplotlib.axes import Axes
from matplotlib.ticker import FixedLocator
from numpy.typing import ArrayLike

from ..._validate import check_array, check_int
from ...figures import WIDE_FIGSIZE, course_style, legend_below, new_axes, plain_log_ticks
from ...live import LiveFigure, even_control, side_by_side
from .maths import ProbeResult, position_probe, random_cosines

__all__ = ["DimensionPanels", "plot_cosine_vs_dim", "plot_probe_vs_dim"]

#: Bin edges of the cosine histogram (fixed, so a step of the slider changes only heights).
COSINE_BINS = np.linspace(-1.0, 1.0, 41)


def _curves(dims: ArrayLike, **curves: ArrayLike) -> list[np.ndarray]:
    """``dims`` (each >= 1), then each curve (one value per dimension), as float64."""
    arrays = [
        check_array(name, v, ndim=1).astype(np.float64)
        for name, v in (("dims", dims), *curves.items())
    ]
    if arrays[0].min() < 1:
        raise ValueError(f"dims must be dimensions >= 1, got minimum {arrays[0].min():g}")
    for name, ys in zip(curves, arrays[1:], strict=True):
        if ys.shape != arrays[0].shape:
            raise ValueError(f"{name} must have one value per entry of dims ({arrays[0].size})")
    return arrays


@course_style
def plot_cosine_vs_dim(
    dims: ArrayLike, mean_abs_cosines: ArrayLike, ax: Axes | None = None
) -> Axes:
    """Measured mean ``|cos|`` of random pairs against ``d``, with ``√(2 / (π d))`` (log-log).

    Parameters
    ----------
    dims : array_like
        Dimensions ``d`` (x axis), each >= 1.
    mean_abs_cosines : array_like
        Measured mean ``|cos|`` per dimension, each in ``(0, 1]``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines[0]`` measured, ``ax.lines[1]`` the theory.

    Examples
    --------
    >>> ax = plot_cosine_vs_dim([4, 16], [0.4, 0.2])
    >>> ax.get_xscale()
    'log'
    """
    d, measured = _curves(dims, mean_abs_cosines=mean_abs_cosines)
    if measured.min() <= 0 or measured.max() > 1:
        raise ValueError(f"mean_abs_cosines must lie in (0, 1], got {mean_abs_cosines!r:.60}")
    ax = new_axes(ax)
    ax.plot(d, measured, marker="o", color="C0", label="measured: mean |cos| of random pairs")
    ax.plot(
        d,
        np.sqrt(2 / (np.pi * d)),
        linestyle="--",
        color="C1",
        label="theory: √(2 / (π d)) ≈ 0.8 / √d",
    )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    plain_log_ticks(ax.xaxis)
    ax.yaxis.set_major_locator(FixedLocator([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]))
    plain_log_ticks(ax.yaxis)
    ax.set_xlabel("dimension d")
    ax.set_ylabel("mean |cosine|")
    ax.set_title("Random directions turn nearly\northogonal as d grows")
    legend_below(ax)
    return ax


@course_style
def plot_probe_vs_dim(
    dims: ArrayLike, r2_with_tokens: ArrayLike, r2_position_only: ArrayLike, ax: Axes | None = None
) -> Axes:
    """R² of a linear position probe against the dimension, with and without embeddings.

    Each R² is the ``r2`` of :func:`position_probe` at one dimension: with the default
    embeddings, and with ``embedding_scale=0`` (the encoding alone).

    Parameters
    ----------
    dims : array_like
        Dimensions ``d`` (x axis, log scale), each >= 1.
    r2_with_tokens : array_like
        Probe R² on ``embedding + PE``, one per dimension.
    r2_position_only : array_like
        Probe R² on ``PE`` alone, one per dimension.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.

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
    d, mixed, alone = _curves(
        dims, r2_with_tokens=r2_with_tokens, r2_position_only=r2_position_only
    )
    ax = new_axes(ax)
    ax.plot(d, mixed, marker="o", color="C0", label="probe on embedding + PE")
    ax.plot(d, alone, marker="s", linestyle="--", color="C1", label="probe on PE alone")
    ax.set_xscale("log", base=2)
    plain_log_ticks(ax.xaxis)
    ax.set_xlabel("dimension d")
    ax.set_ylabel("R² on held-out samples")
    ax.set_title("A linear probe reads the position back, better as d grows")
    ax.set_ylim(min(-0.05, float(min(mixed.min(), alone.min())) - 0.05), 1.05)
    ax.legend(loc="lower right")
    return ax


#: Pairs of random vectors in the left panel of :class:`DimensionPanels`.
DIMENSION_PAIRS = 2000
#: Fixed height of the histogram axis: the tallest bar for d up to 256 is about 0.3.
_HISTOGRAM_TOP = 0.36
_PROBE_POSITIONS = 32


class DimensionPanels(LiveFigure):
    """Lesson 02's width slider: random cosines (left) and the position probe (right).

    Left: a histogram of the cosines of :data:`DIMENSION_PAIRS` random pairs in ``d``
    dimensions. Right: held-out samples, true position against the position a linear
    probe reads from embedding + PE. Both axes keep their limits at every ``d``, so a
    step redraws only the histogram, points and titles.

    Parameters
    ----------
    seed : int, default 0
        Seed of the random vectors and embeddings: the same ``d`` always gives the
        same picture.

    Examples
    --------
    >>> figure = DimensionPanels().draw(d_model=128)
    >>> figure.axes[1].get_title()
    'Probe on embedding + PE, d = 128\\nR² = 0.83'
    """

    # The values the website has pictures for (scripts/build_site.py).
    site_grid = {"d_model": (2, 4, 6, 8, 10, 12, 14, 16, 20, 24, 32, 48, 64, 96, 128, 192, 256)}
    controls = {"d_model": even_control("d", 16, 2, 256)}
    layout = side_by_side(figsize=(WIDE_FIGSIZE[0], 4.0))

    def __init__(self, seed: int = 0) -> None:
        self.seed = check_int("seed", seed, minimum=0, maximum=2**32 - 1)

    def data(self, d_model: int) -> tuple[np.ndarray, ProbeResult]:
        """The cosines and the probe drawn for width ``d_model``."""
        cosines = random_cosines(d_model, DIMENSION_PAIRS, np.random.default_rng(self.seed))
        probe = position_probe(d_model, np.random.default_rng(self.seed))  # its defaults
        return cosines, probe

    def build(self, axes) -> SimpleNamespace:
        left, right = axes
        histogram = left.stairs(np.zeros(COSINE_BINS.size - 1), COSINE_BINS, fill=True, color="C0")
        left.set_xlim(-1.1, 1.1)  # a margin: the "−1.0" and "0.0" tick labels do not meet
        left.set_ylim(0.0, _HISTOGRAM_TOP)
        left.set_xlabel("cosine of two random vectors")
        left.set_ylabel("fraction of pairs")
        top = _PROBE_POSITIONS - 1.0
        right.plot([0.0, top], [0.0, top], linestyle="--", color="C1", label="perfect probe")
        points = right.scatter(
            np.zeros(0), np.zeros(0), alpha=0.4, color="C0", label="held-out samples"
        )
        right.set_xlim(-1.0, top + 1.0)
        right.set_ylim(-0.5 * top, 1.5 * top)
        right.set_xlabel("true position t")
        right.set_ylabel("position read by the probe")
        right.legend(loc="upper left")
        return SimpleNamespace(left=left, right=right, histogram=histogram, points=points)

    def update(self, art: SimpleNamespace, d_model: int) -> None:
        cosines, probe = self.data(d_model)
        counts, _ = np.histogram(cosines, bins=COSINE_BINS)
        art.histogram.set_data(counts / cosines.size)
        art.points.set_offsets(np.column_stack([probe.true_positions, probe.predicted_positions]))
        art.left.title.set_text(
            f"Random pairs, d = {d_model}\nmean |cos| = {np.abs(cosines).mean():.3f}"
        )
        art.right.title.set_text(f"Probe on embedding + PE, d = {d_model}\nR² = {probe.r2:.2f}")

    def moving(self, art: SimpleNamespace) -> list:
        return [art.histogram, art.points, art.left.title, art.right.title]
