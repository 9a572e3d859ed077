"""Lesson 10 · Stretching RoPE to longer contexts: the head geometries and the live figure.

See :mod:`pe_helpers.lessons.long_context` for the lesson's overview.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import NamedTuple

import numpy as np
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullLocator

from ...figures import legend_below
from ...live import LiveFigure, choice_control, float_control, int_control, side_by_side
from ...rope_configs import model_rope_config
from ...rope_scaling import default_frequencies, yarn_correction_dim
from .maths import aligned_scores, method_frequencies

__all__ = ["PairScaling"]

#: The methods :class:`PairScaling` draws (dynamic NTK depends on the current length).
FIGURE_METHODS = ("PI", "NTK-aware", "YaRN", "Llama 3")


class Preset(NamedTuple):
    """A head geometry for :class:`PairScaling`: its name in the menu, width and base."""

    label: str
    head_dim: int
    rope_theta: float


def _preset(name: str, label: str) -> Preset:
    config = model_rope_config(name)
    return Preset(label, config.head_dim, float(config.rope_parameters["rope_theta"]))


#: The geometries the figure's ``preset`` picks by name: lesson 08's model, then shipped models
#: under their :func:`~pe_helpers.rope_configs.model_rope_config` names (published values, with
#: their sources there).
PRESETS: dict[str, Preset] = {
    "lesson-08": Preset("lesson 08 model", 16, 10000.0),
    **{
        name: _preset(name, label)
        for name, label in (
            ("llama-2-7b", "Llama 2 7B"),
            ("llama-3.1-8b", "Llama 3.1 8B"),
            ("deepseek-v3", "DeepSeek-V3 (rope part)"),
            ("gemma-3-4b-global", "Gemma 3 4B (global layers)"),
        )
    },
}


_COLOURS = {"RoPE": "black", "PI": "C0", "NTK-aware": "C1", "YaRN": "C2", "Llama 3": "C3"}
_STYLES = {"PI": "--", "NTK-aware": "-.", "YaRN": "-", "Llama 3": (0, (5, 1, 1, 1, 1, 1))}


class PairScaling(LiveFigure):
    """What each method does to each pair (left) and to the score against distance (right).

    Left: ``θ'_i / θ_i`` per pair on a log scale — 1 means kept, ``1/s`` interpolated, between
    ramped — with the pair where ``λ = L0`` and YaRN's bounds (pairs turning ``beta_fast`` and
    ``beta_slow`` times in ``L0``, before transformers rounds them) marked. Right: the aligned
    score (:func:`aligned_scores`) from 1 to ``s · L0`` tokens (the axis runs to 64 ``L0``, the
    largest ``s``), plain RoPE solid inside ``L0`` and dotted past it. Controls: the head
    geometry (a model of :data:`PRESETS`, picked by name), and sliders for ``s``, ``log2 L0``
    and YaRN's ``beta_fast`` and ``beta_slow``.

    Examples
    --------
    >>> fig = PairScaling().draw(preset="lesson-08", factor=4, log2_length=4)
    >>> fig.axes[0].get_title()
    'lesson 08 model\\nd = 16, θ = 10,000'
    >>> {line.get_label(): line.get_ydata()[[0, -1]].round(2).tolist()  # fastest, slowest pair
    ...  for line in fig.axes[0].lines[:4]}
    {'PI': [0.25, 0.25], 'NTK-aware': [1.0, 0.25], 'YaRN': [1.0, 0.25], 'Llama 3': [0.64, 0.25]}
    """

    # The values the website has pictures for (scripts/build_site.py): every model with s = 1,
    # 8, 32; then, one at a time, the original length (1,024 or 8,192) and YaRN's two bounds.
    site_grid = {
        "factor": (1, 8, 32),
        "log2_length": (10, 13),
        "beta_fast": (8, 32),
        "beta_slow": (1.0, 4.0),
    }
    site_one_at_a_time = ("log2_length", "beta_fast", "beta_slow")
    controls = {
        "preset": choice_control(
            "model", {name: preset.label for name, preset in PRESETS.items()}, "llama-3.1-8b"
        ),
        "factor": int_control("factor s", 8, 1, 64),
        "log2_length": int_control("log₂ L₀", 13, 4, 17),
        "beta_fast": int_control("beta_fast", 32, 1, 64),
        "beta_slow": float_control("beta_slow", 1.0, 0.25, 8.0, 0.25),
    }
    layout = side_by_side(figsize=(11.0, 4.5))

    def build(self, axes) -> SimpleNamespace:
        left, right = axes
        art = SimpleNamespace(left=left, right=right, marks={})
        art.pairs = {
            m: left.plot([], [], "o-", markersize=3, color=_COLOURS[m], label=m)[0]
            for m in FIGURE_METHODS
        }
        (art.inside,) = right.plot([], [], color="black", label="RoPE, inside L₀")
        (art.beyond,) = right.plot([], [], ":", color="black", label="RoPE, past L₀")
        # A line style each as well as a colour: the curves cross.
        art.curves = {
            m: right.plot([], [], color=_COLOURS[m], linestyle=_STYLES[m], label=m)[0]
            for m in FIGURE_METHODS
        }
        for key, style in (("turn", "--"), ("beta_fast", ":"), ("beta_slow", ":")):
            colour = "0.3" if key == "turn" else _COLOURS["YaRN"]
            art.marks[key] = left.axvline(0.0, linestyle=style, color=colour, linewidth=1)
        art.labels = {
            key: left.text(
                0.0,
                {"turn": 0.03, "beta_fast": 0.97, "beta_slow": 0.85}[key],  # one row each
                "",
                ha="center",
                va="bottom" if key == "turn" else "top",
                clip_on=True,
                transform=left.get_xaxis_transform(),
            )
            for key in art.marks
        }
        art.end = right.axvline(1.0, linestyle="--", color="0.3", linewidth=1)
        left.set_yscale("log")
        left.set_ylim(1 / 100, 2.5)
        # Few ticks (no minor ones): each tick is an artist that a draw lays out.
        left.yaxis.set_major_locator(FixedLocator([1 / 64, 1 / 16, 1 / 4, 1]))
        left.yaxis.set_major_formatter(
            FuncFormatter(lambda y, _: f"1/{1 / y:.0f}" if y < 1 else "1")
        )
        left.yaxis.set_minor_locator(NullLocator())
        left.set_xlabel("pair i (0 = fastest)")
        left.set_ylabel("θ′ᵢ / θᵢ")
        right.set_xscale("log")
        right.xaxis.set_minor_locator(NullLocator())
        right.xaxis.set_major_locator(LogLocator(numticks=4))  # few labels: "10⁶" fits
        right.set_ylim(-0.7, 2.2)
        right.set_xlabel("distance Δ (tokens)")
        right.set_ylabel("aligned score / d")
        legend_below(right, ncols=3)  # under the x label: the curves fill the panel
        # Room at the sides (the layout is constrained) for tick labels an L₀ step brings near.
        right.figure.get_layout_engine().set(w_pad=0.15)
        return art

    def update(
        self,
        art: SimpleNamespace,
        preset: str,
        factor: int,
        log2_length: int,
        beta_fast: int,
        beta_slow: float,
    ) -> None:
        geometry = PRESETS[preset]
        d, theta, original = geometry.head_dim, geometry.rope_theta, 2**log2_length
        plain = default_frequencies(theta, d)
        index = np.arange(d // 2)
        # 240 whole distances from 1 to s L₀, spread evenly on a log scale
        distances = np.unique(np.round(np.geomspace(1, factor * original, 240)))
        yarn_factor = 1.0
        options = {"rope_theta": theta, "beta_fast": beta_fast, "beta_slow": beta_slow}
        for method in FIGURE_METHODS:
            inv, att = method_frequencies(method, d, factor, original, **options)
            art.pairs[method].set_data(index, inv / plain)
            art.curves[method].set_data(distances, aligned_scores(inv, distances, att))
            if method == "YaRN":
                yarn_factor = att
        rope = aligned_scores(plain, distances)
        inside = distances <= original
        art.inside.set_data(distances[inside], rope[inside])
        art.beyond.set_data(distances[distances >= original], rope[distances >= original])
        for key, turns, text in (
            ("turn", 1.0, "λ = L₀"),
            ("beta_fast", beta_fast, "β_fast"),
            ("beta_slow", beta_slow, "β_slow"),
        ):
            where = yarn_correction_dim(turns, d, theta, original)
            art.marks[key].set_xdata([where, where])
            # The label stays inside the panel, on the side of its line away from the edge.
            inside = min(max(where, -0.5), d // 2 - 0.5)
            art.labels[key].set_x(inside)
            art.labels[key].set_horizontalalignment("left" if inside < d / 4 else "right")
            art.labels[key].set_text(text if key == "turn" else f"{text} = {turns:g}")
        art.end.set_xdata([original, original])
        art.left.set_xlim(-0.5, d // 2 - 0.5)
        # The widest s sets the limit, so a step of s alone leaves every limit (and is blitted).
        art.right.set_xlim(1, self.controls["factor"].maximum * original)
        art.left.title.set_text(f"{geometry.label}\nd = {d}, θ = {theta:,.0f}")
        art.right.title.set_text(
            f"L₀ = {original:,}, s = {factor}\nYaRN logits × {yarn_factor**2:.2f}"
        )

    def moving(self, art: SimpleNamespace) -> list:
        return [
            *art.pairs.values(),
            *art.curves.values(),
            art.inside,
            art.beyond,
            *art.marks.values(),
            *art.labels.values(),
            art.end,
            art.left.title,
            art.right.title,
        ]

    def rescaled(self, art: SimpleNamespace) -> list:
        # The preset moves the left x axis, L₀ the right one; whatever lies along them moves
        # with every step anyway, so those steps blit too.
        return [art.left.xaxis, art.right.xaxis]
