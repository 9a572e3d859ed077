"""The lesson's figures."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..._validate import check_int
from ...attention import relative_deviation
from ...figures import heatmap
from ...live import LiveFigure, even_control, float_control, side_by_side
from .maths import BLEND_T_VALUES, blend_deviations, blend_inputs, position_scores

__all__ = ["AttentionBlend"]


class AttentionBlend(LiveFigure):
    """The position–position term as both projections move from the identity to random.

    Both projections are ``W = (1 - t) I + t W_random`` (see :func:`blend_inputs`).
    Left: ``p W_Q W_Kᵀ pᵀ`` divided by its largest absolute entry, with its relative
    deviation in the title. Right: the deviation against t, the current t marked.

    Parameters
    ----------
    n_positions : int, default 32
        Number of positions, 2 to 256.
    seed : int, default 0
        Seed (>= 0) of the random projections.

    Examples
    --------
    >>> figure = AttentionBlend(n_positions=6).draw(d_model=8, t=0.0)
    >>> figure.axes[0].get_title().endswith("relative deviation 0.000")
    True
    """

    # The values the website has pictures for (scripts/build_site.py).
    site_grid = {"d_model": (8, 16, 32, 64, 128), "t": tuple(k / 10 for k in range(11))}
    controls = {
        "d_model": even_control("d", 64, 8, 128),
        "t": float_control("blend t (0: W = I, 1: random W)", 0.5, 0.0, 1.0, 0.05),
    }
    layout = side_by_side(width_ratios=(1.15, 1.0))

    def __init__(self, n_positions: int = 32, seed: int = 0) -> None:
        self.n_positions = check_int("n_positions", n_positions, minimum=2, maximum=256)
        self.seed = check_int("seed", seed, minimum=0)
        self._sweeps: dict[int, tuple] = {}

    def sweep(self, d_model: int) -> tuple[np.ndarray, ...]:
        """``(p, w_q_random, w_k_random, deviation curve)`` for one width, computed once."""
        if d_model not in self._sweeps:
            p, w_q, w_k = blend_inputs(d_model, self.n_positions, self.seed)
            self._sweeps[d_model] = (p, w_q, w_k, blend_deviations(p, w_q, w_k, BLEND_T_VALUES))
        return self._sweeps[d_model]

    def build(self, axes) -> SimpleNamespace:
        heat_ax, curve_ax = axes
        n = self.n_positions
        labels = {"xlabel": "key position j", "ylabel": "query position i"}
        heatmap(
            np.zeros((n, n)), heat_ax, **labels, limit=1.0, colorbar_label="score / max |score|"
        )
        image = heat_ax.images[0]
        (curve,) = curve_ax.plot(
            BLEND_T_VALUES, np.zeros_like(BLEND_T_VALUES), color="C0", label="p W_Q W_Kᵀ pᵀ"
        )
        (marker,) = curve_ax.plot(
            [0.0], [0.0], color="C1", marker="o", markersize=10, linestyle="none", label="current t"
        )
        # A margin round [0, 1]: the two "0.0" tick labels do not meet at the corner.
        curve_ax.set(xlim=(-0.04, 1.04), ylim=(-0.06, 1.06), ylabel="relative deviation")
        curve_ax.set_xlabel("blend t  (0: W = I,  1: W random)")
        curve_ax.legend(loc="lower right")
        return SimpleNamespace(
            heat_ax=heat_ax, curve_ax=curve_ax, image=image, curve=curve, marker=marker
        )

    def update(self, art: SimpleNamespace, d_model: int, t: float) -> None:
        p, w_q, w_k, curve = self.sweep(d_model)
        scores = position_scores(p, w_q, w_k, t)
        deviation = relative_deviation(scores)
        art.image.set_data(scores / (float(np.abs(scores).max()) or 1.0))
        title = f"p W_Q W_Kᵀ pᵀ at t = {t:.2f}\nrelative deviation {deviation:.3f}"
        art.heat_ax.title.set_text(title)
        art.curve.set_ydata(curve)
        art.marker.set_data([t], [deviation])
        art.curve_ax.title.set_text(f"d = {d_model}: distance from\n'depends on j − i only'")

    def moving(self, art: SimpleNamespace) -> list:
        return [art.image, art.heat_ax.title, art.curve, art.marker, art.curve_ax.title]
