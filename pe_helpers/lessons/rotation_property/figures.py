"""The lesson's figures."""

from __future__ import annotations

import numbers
from types import SimpleNamespace
from typing import ClassVar

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.text import Text
from numpy.typing import ArrayLike

from ..._validate import check_array, check_base, check_int, check_positions, check_real
from ...figures import FIGSIZE, course_style, new_axes
from ...live import Layout, LiveFigure, float_control, int_control
from .maths import pair_points

__all__ = ["PairRotation", "plot_shift_scatter"]

#: Most positions the pair-rotation figure draws: each gets a label, and a step must stay fast.
MAX_LABELLED_POSITIONS = 12


class PairRotation(LiveFigure):
    """Pair ``k`` of a few positions on the unit circle, and where a shift Δ moves them.

    Dots are ``(sin(w_k t), cos(w_k t))`` (x = dimension ``2k``, y = ``2k + 1``),
    squares the same pair at ``t + Δ``, and a chord joins each dot to its square:
    every point turns clockwise by the same angle ``w_k Δ``.

    The encoding is 16 wide (:attr:`d_model`): the k slider runs over its 8 pairs, 0 (the
    fastest, ``w_0 = 1``) to 7 (the slowest).

    Parameters
    ----------
    base : float, default 10000.0
        Frequency base.
    positions : array_like, default (0, 2, 4)
        The positions drawn, each labelled (1 to :data:`MAX_LABELLED_POSITIONS`).

    Examples
    --------
    >>> figure = PairRotation().draw(delta=1.0, pair_index=1)
    >>> print(figure.axes[0].texts[0].get_text())  # the angle every point turns by
    w_1·Δ = 0.316 rad
    = 18.1°
    (clockwise)
    """

    #: Width of the encoding whose pairs the figure shows.
    d_model: ClassVar[int] = 16
    # The values the website has pictures for (scripts/build_site.py).
    site_grid = {
        "delta": (0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 10.0, 20.0),
        "pair_index": tuple(range(8)),
    }
    controls = {
        "delta": float_control("shift Δ", 1.0, 0.0, 20.0, 0.25),
        "pair_index": int_control("pair k (frequency w_k)", 0, 0, d_model // 2 - 1),
    }
    layout = Layout(figsize=(8.0, 5.0))  # a square circle and its legend, no empty margins

    def __init__(self, *, base: float = 10000.0, positions: ArrayLike = (0, 2, 4)) -> None:
        self.base = check_base(base)
        if isinstance(positions, numbers.Integral):  # a count: bounded before any array is made
            check_int("positions", positions, maximum=MAX_LABELLED_POSITIONS)
        self.positions = check_positions(positions)
        # each position is labelled
        check_int("len(positions)", self.positions.size, minimum=1, maximum=MAX_LABELLED_POSITIONS)

    def build(self, axes: Axes) -> SimpleNamespace:
        circle = np.linspace(0.0, 2.0 * np.pi, 361)
        axes.plot(np.cos(circle), np.sin(circle), color="0.75", linewidth=1.0, label="unit circle")
        chords = LineCollection(
            [], colors="C1", linewidths=1.2, linestyles="--", label="move t → t + Δ"
        )
        axes.add_collection(chords, autolim=False)
        before = axes.scatter([], [], s=70, color="C0", zorder=3, label="position t")
        after = axes.scatter([], [], s=70, marker="s", color="C1", zorder=3, label="position t + Δ")
        # Right of the circle, under the legend: clear of the points and their labels.
        caption = axes.text(1.04, 0.0, "", transform=axes.transAxes, va="bottom", ha="left")
        labels = [
            axes.text(0.0, 0.0, f"{t:g}", ha="center", va="center", color="C0")
            for t in self.positions
        ]
        axes.axhline(0.0, color="0.85", linewidth=0.8, zorder=0)
        axes.axvline(0.0, color="0.85", linewidth=0.8, zorder=0)
        axes.set_xlim(-1.35, 1.35)
        axes.set_ylim(-1.35, 1.35)
        axes.set_aspect("equal")
        axes.set_xlabel(r"dimension $2k$: $\sin(w_k t)$")
        axes.set_ylabel(r"dimension $2k+1$: $\cos(w_k t)$")
        axes.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
        return SimpleNamespace(
            axes=axes, before=before, after=after, chords=chords, caption=caption, labels=labels
        )

    def update(self, art: SimpleNamespace, delta: float, pair_index: int) -> None:
        pairs, shifted, angle = pair_points(
            self.positions, delta, pair_index, self.d_model, self.base
        )
        art.before.set_offsets(pairs)
        art.after.set_offsets(shifted)
        art.chords.set_segments(list(np.stack([pairs, shifted], axis=1)))
        degrees = float(np.degrees(angle))  # the angle w_k·Δ every point turns by
        turns = f" ≡ {degrees % 360:.1f}°" if abs(degrees) >= 360 else ""
        art.caption.set_text(
            f"w_{pair_index}·Δ = {angle:.3f} rad\n= {degrees:.1f}°{turns}\n(clockwise)"
        )
        # Positions whose points (nearly) coincide share one label: "0, 2".
        shown: list[tuple[Text, np.ndarray, list[str]]] = []
        for label, point, t in zip(art.labels, pairs, self.positions, strict=True):
            label.set_position(tuple(1.12 * point))
            near = [entry for entry in shown if np.hypot(*(entry[1] - point)) < 0.2]
            if near:
                near[0][2].append(f"{t:g}")
                label.set_text("")
            else:
                shown.append((label, point, [f"{t:g}"]))
        for label, _, names in shown:
            label.set_text(", ".join(names))
        art.axes.set_title(f"Pair k = {pair_index} of d = {self.d_model}, shifted by Δ = {delta:g}")

    def moving(self, art: SimpleNamespace) -> list:
        return [art.chords, art.before, art.after, art.caption, *art.labels, art.axes.title]


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

    If a linear map took the feature at ``t`` to the feature at ``t + Δ``, the
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
        Points ``(x, y)`` to mark (two positions with the same x but different y).
    xlabel, ylabel, title : str
        Axis labels and title.

    Returns
    -------
    matplotlib.axes.Axes
        The axes: the positions are ``ax.collections[0]``, the marked points (if any)
        ``ax.collections[1]``, the best line (if any) ``ax.lines[0]``.

    Examples
    --------
    >>> t = np.linspace(0, 6, 50)
    >>> ax = plot_shift_scatter(np.sin(t), np.sin(t + 1), slope=0.5)
    >>> ax.get_legend().get_texts()[-1].get_text()
    'best line y = 0.50·x'
    """
    x = check_array("before", before, ndim=1).astype(np.float64)
    y = check_array("after", after, ndim=1).astype(np.float64)
    if x.shape != y.shape:
        raise ValueError(f"after must have the shape of before {x.shape}, got {y.shape}")
    marks = None if highlight is None else check_array("highlight", highlight, ndim=2)
    if marks is not None and marks.shape[1] != 2:
        raise ValueError(f"highlight must have 2 columns (x, y), got shape {marks.shape}")
    slope = None if slope is None else check_real("slope", slope)
    ax = new_axes(ax, FIGSIZE)
    ax.scatter(x, y, s=14, color="C0", label="one position t")
    if marks is not None:
        ax.scatter(
            marks[:, 0],
            marks[:, 1],
            s=160,
            marker="*",
            color="C3",
            zorder=3,
            label="same x, different y",
        )
    if slope is not None:
        ends = np.array([-1.0, 1.0])
        ax.plot(ends, slope * ends, color="C2", label=f"best line y = {slope:.2f}·x")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.set_aspect("equal")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return ax
