"""Lesson 12 · RoPE in today's architectures: which pairs turn, and the multimodal score map."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
from matplotlib.axes import Axes
from matplotlib.ticker import MaxNLocator

from ..._validate import check_base, check_int, check_real
from ...encodings import frequencies
from ...figures import WIDE_FIGSIZE, course_style, legend_below, new_axes
from ...live import Layout, LiveFigure, even_control, int_control
from ...rope_variants import p_rope_frequencies, rotary_dim
from .maths import nope_query_scale, patch_scores, top_key_weight

__all__ = [
    "MropeScoreMap",
    "plot_nope_temperature",
    "plot_turning_pairs",
]


@course_style
def plot_turning_pairs(
    head_dim: int = 128, fraction: float = 0.75, base: float = 10000.0, ax: Axes | None = None
) -> Axes:
    """Frequency of each pair under RoPE, and under ``partial_rotary_factor`` read the two ways
    transformers reads it: partial rotation (``rope_type="default"``) and p-RoPE
    (``"proportional"``); pairs that never turn are marked along the bottom edge.

    Parameters
    ----------
    head_dim : int, default 128
        Width of one head, even, at most 1024.
    fraction : float, default 0.75
        ``partial_rotary_factor`` for partial rotation and ``p`` for p-RoPE, in [0, 1].
    base : float, default 10000.0
        Frequency base.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines``: RoPE, partial, p-RoPE, then the two "never turns" markers.

    Examples
    --------
    >>> ax = plot_turning_pairs(16, 0.5)
    >>> [line.get_label() for line in ax.lines][:3]
    ['RoPE', 'partial rotation ("default", 0.5)', 'p-RoPE ("proportional", 0.5)']
    """
    head_dim = check_int("head_dim", head_dim, minimum=2, maximum=1024)
    fraction = check_real("fraction", fraction)
    if not 0 <= fraction <= 1:
        raise ValueError(f"fraction must lie in [0, 1], got {fraction}")
    base = check_base(base)
    pairs = np.arange(head_dim // 2)
    full = frequencies(head_dim, base)
    r = rotary_dim(head_dim, fraction)
    partial = np.zeros(head_dim // 2)
    # The rotated part holds r / 2 pairs; in the adjacent layout they are pairs 0 .. r/2 - 1.
    partial[: r // 2] = frequencies(r, base) if r else []
    p_rope = p_rope_frequencies(head_dim, fraction, base)
    ax = new_axes(ax, WIDE_FIGSIZE)  # wide: the legend of five entries goes below
    floor = float(full.min()) / 10
    for values, label, style in (
        (full, "RoPE", {"color": "C0", "linewidth": 7, "alpha": 0.3}),
        (
            partial,
            f'partial rotation ("default", {fraction:g})',
            {"color": "C1", "linestyle": "--"},
        ),
        (p_rope, f'p-RoPE ("proportional", {fraction:g})', {"color": "C2", "linestyle": ":"}),
    ):
        ax.plot(pairs, np.where(values > 0, values, np.nan), label=label, **style)
    for values, colour, marker, height, label in (
        (partial, "C1", "x", floor, "partial: never turns"),
        (p_rope, "C2", "+", floor / 4, "p-RoPE: never turns"),
    ):
        stopped = pairs[values == 0]
        ax.plot(stopped, np.full(stopped.size, height), marker, color=colour, label=label)
    ax.set_yscale("log")
    ax.set_xlabel("pair k (0 = fastest)")
    ax.set_ylabel("radians per position")
    ax.set_title(f"Which pairs turn: head of {head_dim}, fraction {fraction:g}")
    legend_below(ax, ncols=2)
    return ax


@course_style
def plot_nope_temperature(
    margin: float = 9.0, max_keys: int = 2**21, ax: Axes | None = None
) -> Axes:
    """Weight of the best key in a NoPE layer as the context grows, with and without Llama 4's
    query temperature: :func:`top_key_weight` ``(n, margin)`` and ``(n, margin * s)`` with
    ``s =`` :func:`nope_query_scale` ``(n - 1)``; a dotted line at 8,192 keys, where it starts.

    Parameters
    ----------
    margin : float, default 9.0
        Score of the best key above the others, > 0.
    max_keys : int, default 2**21
        Longest context drawn, 2 to 2**24.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines``: without the temperature, with it, then the 8,192 marker.

    Examples
    --------
    >>> ax = plot_nope_temperature(margin=5.0, max_keys=2**16)
    >>> [line.get_label() for line in ax.lines][:2]
    ['no temperature', 'Llama 4 temperature']
    """
    margin = check_real("margin", margin, positive=True)
    max_keys = check_int("max_keys", max_keys, minimum=2, maximum=2**24)
    keys = np.unique(np.geomspace(1, max_keys, 600).round())
    scale = nope_query_scale(keys - 1)
    ax = new_axes(ax)
    ax.plot(keys, top_key_weight(keys, margin), color="C0", label="no temperature")
    ax.plot(keys, top_key_weight(keys, margin * scale), color="C1",
            label="Llama 4 temperature")  # fmt: skip
    ax.axvline(8192, color="0.3", linestyle=":", label="8,192 keys")
    ax.set_xscale("log", base=2)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("keys the query sees (its position + 1)")
    ax.set_ylabel("softmax weight of the best key")
    ax.set_title(f"A NoPE layer, best key {margin:g} above the rest")
    ax.legend(loc="lower left")
    return ax


class MropeScoreMap(LiveFigure):
    """Multimodal-RoPE score of one query patch against every patch of an image.

    Query and key are all ones, so every colour is the work of the positions: pair ``k``
    adds ``2 cos(w_k · Δ)``, ``Δ`` the row or column offset (0 for temporal pairs). The
    colours span the map's own range, given in the title. Sliders: the grid, the temporal
    pairs (the rest split evenly between rows and columns) and the query patch (clamped).

    Parameters
    ----------
    head_dim : int, default 128
        Width of the head, a multiple of 4 from 8 to 256 (Qwen2-VL: 128).
    base : float, default 10000.0
        Frequency base (Qwen2-VL's config sets 1,000,000).

    Examples
    --------
    >>> fig = MropeScoreMap(head_dim=8).draw(grid_h=2, grid_w=3, t_pairs=0, row=9, col=0)
    >>> print(fig.axes[0].get_title())
    query patch (1, 0) (clamped)
    sections (t, h, w) = (0, 2, 2)
    scores from 7.07 to 8.00
    """

    # The website's pictures (scripts/build_site.py): the query at a corner, the middle and
    # the far side of the default grid; then, one at a time, the grid and the temporal pairs.
    site_grid = {
        "grid_h": (6, 12, 24),
        "grid_w": (8, 16, 24),
        "t_pairs": (0, 16, 32),
        "row": (0, 5, 11),
        "col": (0, 8, 15),
    }
    site_one_at_a_time = ("grid_h", "grid_w", "t_pairs")
    controls = {
        "grid_h": int_control("rows", 12, 2, 24),
        "grid_w": int_control("columns", 16, 2, 24),
        "t_pairs": even_control("temporal pairs", 16, 0, 32),
        "row": int_control("query row", 5, 0, 23),
        "col": int_control("query column", 8, 0, 23),
    }
    layout = Layout(figsize=(7.0, 5.0))

    def __init__(self, head_dim: int = 128, base: float = 10000.0) -> None:
        self.head_dim = check_int("head_dim", head_dim, minimum=8, maximum=256)
        if self.head_dim % 4:
            raise ValueError(f"head_dim must be a multiple of 4, got {self.head_dim}")
        self.base = check_base(base)

    def sections(self, t_pairs: int) -> tuple[int, int, int]:
        """``(t, h, w)`` pairs: ``t_pairs`` (at most half the pairs), the rest split evenly."""
        t = min(t_pairs, self.head_dim // 4)
        rest = self.head_dim // 2 - t
        return t, rest - rest // 2, rest // 2

    def build(self, axes) -> SimpleNamespace:
        # Cells fill the panel (aspect "auto"), so the layout made once holds; the scores are
        # rescaled to [0, 1] over the map, so the colour bar never changes.
        image = axes.imshow(
            np.zeros((2, 2)),
            cmap="viridis",
            interpolation="nearest",
            origin="upper",
            aspect="auto",
            vmin=0.0,
            vmax=1.0,
        )
        bar = axes.figure.colorbar(image, ax=axes, label="score on this map")
        bar.set_ticks([0.0, 1.0], labels=["lowest", "highest"])
        (marker,) = axes.plot([0], [0], marker="*", color="black", markersize=14, linestyle="none")
        axes.set_xlabel("patch column w")
        axes.set_ylabel("patch row h")
        for axis in (axes.xaxis, axes.yaxis):  # patches are counted: whole-number ticks
            axis.set_major_locator(MaxNLocator(integer=True))
        return SimpleNamespace(axes=axes, image=image, marker=marker)

    def update(
        self, art: SimpleNamespace, grid_h: int, grid_w: int, t_pairs: int, row: int, col: int
    ) -> None:
        clamped = row > grid_h - 1 or col > grid_w - 1  # the sliders reach past a small grid
        row, col = min(row, grid_h - 1), min(col, grid_w - 1)
        sections = self.sections(t_pairs)
        ones = np.ones(self.head_dim)
        scores = patch_scores(ones, ones, grid_h, grid_w, sections, self.base)
        view = scores[row * grid_w + col].reshape(grid_h, grid_w)
        low, high = float(view.min()), float(view.max())
        spread = high - low
        art.image.set_data((view - low) / spread if spread > 0 else np.zeros_like(view))
        art.image.set_extent((-0.5, grid_w - 0.5, grid_h - 0.5, -0.5))
        art.axes.set_xlim(-0.5, grid_w - 0.5)
        art.axes.set_ylim(grid_h - 0.5, -0.5)
        art.marker.set_data([col], [row])
        clamp = " (clamped)" if clamped else ""  # to the grid
        # Enough decimals to tell the ends apart: one more than the spread's first digit.
        places = min(6, max(0, math.ceil(-math.log10(spread)) + 1)) if spread > 0 else 0
        art.axes.title.set_text(
            f"query patch ({row}, {col}){clamp}\nsections (t, h, w) = {sections}\n"
            f"scores from {low:.{places}f} to {high:.{places}f}"  # dark to bright
        )

    def moving(self, art: SimpleNamespace) -> list:
        return [art.image, art.marker, art.axes.title]

    def rescaled(self, art: SimpleNamespace) -> list:
        return [art.axes.xaxis, art.axes.yaxis]  # the grid sets the map's limits
