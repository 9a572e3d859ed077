"""The lesson's figures."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from numpy.typing import ArrayLike

from ..._validate import check_array, check_d_model, check_int
from ...attention import relative_deviation
from ...figures import format_base, heatmap, legend_below
from ...live import LiveFigure, int_control, log_control, side_by_side
from ...rope import rope_scores
from .maths import MAX_WIDTH

__all__ = ["RopeOffset"]


class RopeOffset(LiveFigure):
    """A RoPE score against distance, and a score matrix, with every position shifted.

    Left: the score of ``q`` at position *offset* and ``k`` at *offset + r*, for
    ``r = 0 .. max_distance`` (dots: the same at offset 0). Right: the score matrix of
    ``q`` and ``k`` placed at positions ``offset .. offset + n_positions - 1``; colours
    span ``±|q||k|``. The offset changes nothing; the base, how fast the score varies.

    Parameters
    ----------
    q, k : array_like, optional
        1-D vectors of the same even width (at most :data:`MAX_WIDTH`); give both or
        neither. Default: a seeded random ``q`` of width 64 and a key that resembles it.
    n_positions : int, default 24
        Size of the heatmap, 2 to 128.
    max_distance : int, default 64
        Largest distance on the curve, 1 to 1024.

    Examples
    --------
    >>> figure = RopeOffset([1.0, 0.0], [1.0, 0.0], max_distance=2).draw(offset=500)
    >>> figure.axes[0].lines[0].get_ydata().round(4).tolist()
    [1.0, 0.5403, -0.4161]
    """

    # The website's pictures (scripts/build_site.py): the offset changes nothing, so three.
    site_grid = {
        "base": (1e1, 2e1, 5e1, 1e2, 2e2, 5e2, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6),
        "offset": (0, 1000, 10000),
    }
    controls = {
        "base": log_control("base", 10000.0, 10.0, 1e6),
        "offset": int_control("position offset", 0, 0, 10000, 100),
    }
    layout = side_by_side(width_ratios=(1.2, 1.0))

    def __init__(
        self,
        q: ArrayLike | None = None,
        k: ArrayLike | None = None,
        n_positions: int = 24,
        max_distance: int = 64,
    ) -> None:
        if (q is None) != (k is None):
            raise TypeError("give both q and k, or neither (for the default vectors)")
        if q is None:
            rng = np.random.default_rng(0)
            q = rng.normal(size=64)
            k = q + 0.5 * rng.normal(size=64)
        self.q = check_array("q", q, ndim=1).astype(np.float64)
        self.k = check_array("k", k, ndim=1).astype(np.float64)
        check_d_model(self.q.size, "q.size", MAX_WIDTH)
        if self.k.size != self.q.size:
            raise ValueError(f"k must have the width of q ({self.q.size}), got {self.k.size}")
        self.n_positions = check_int("n_positions", n_positions, minimum=2, maximum=128)
        max_distance = check_int("max_distance", max_distance, minimum=1, maximum=1024)
        self.distances = np.arange(max_distance + 1)
        self.limit = float(np.linalg.norm(self.q) * np.linalg.norm(self.k)) or 1.0

    def build(self, axes) -> SimpleNamespace:
        curve_ax, heat_ax = axes
        zeros = np.zeros(self.distances.size)
        (curve,) = curve_ax.plot(self.distances, zeros, color="C0", label="query at the offset")
        dots = {"marker": "o", "markersize": 4, "linestyle": "none"}
        (reference,) = curve_ax.plot(
            self.distances, zeros, color="C1", **dots, label="query at 0 (reference)"
        )
        curve_ax.set_xlim(0, self.distances[-1])
        curve_ax.set_ylim(-1.05 * self.limit, 1.05 * self.limit)
        curve_ax.set_xlabel("relative distance n − m")
        curve_ax.set_ylabel("score q_m · k_n")
        legend_below(curve_ax)  # under the x label: the curves fill the panel
        labels = {"xlabel": "key position n − offset", "ylabel": "query position m − offset"}
        n = self.n_positions
        heatmap(np.zeros((n, n)), heat_ax, **labels, limit=self.limit, colorbar_label="score")
        image = heat_ax.images[0]
        return SimpleNamespace(
            curve_ax=curve_ax, heat_ax=heat_ax, curve=curve, reference=reference, image=image
        )

    def update(self, art: SimpleNamespace, base: float, offset: int) -> None:
        q, k, distances = self.q, self.k, self.distances.astype(np.float64)
        grid = offset + np.arange(self.n_positions, dtype=np.float64)
        matrix = rope_scores(q, k, grid, grid, base)
        art.curve.set_ydata(rope_scores(q, k, [offset], offset + distances, base)[0])
        art.reference.set_ydata(rope_scores(q, k, [0], distances, base)[0])
        art.curve_ax.title.set_text(f"Score vs distance, base = {format_base(base)}")
        art.image.set_data(matrix)
        # A deviation at rounding level is shown as a bound: its digits differ from CPU to CPU.
        deviation = relative_deviation(matrix)
        shown = "below 1e-12" if deviation < 1e-12 else f"{deviation:.3f}"
        last = offset + self.n_positions - 1
        art.heat_ax.title.set_text(f"positions {offset:g} to {last:g}\nrelative deviation {shown}")

    def moving(self, art: SimpleNamespace) -> list:
        return [art.curve, art.reference, art.curve_ax.title, art.image, art.heat_ax.title]
