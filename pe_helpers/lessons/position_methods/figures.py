"""Lesson 09 · The family of position methods: its figures and live figures.

See :mod:`pe_helpers.lessons.position_methods` for the lesson's overview.
"""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap, to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from ..._validate import check_int
from ...biases import alibi_bias, alibi_slopes, t5_relative_bucket
from ...figures import (
    MASKED_COLOUR,
    WIDE_FIGSIZE,
    colour_limit,
    course_style,
    diverging_cmap,
    draw_seed_band,
    new_axes,
    seed_band_style,
)
from ...live import Layout, LiveFigure, even_control, int_control
from ...seeds import SeedResults
from .maths import (
    POSITION_MAP,
    ROLES,
    TERMS,
    BenchResult,
    format_bench,
    metric_names,
    mystery_matrices,
    run_bench,  # noqa: F401  (used by the doctest of plot_bench)
    task_label,
)

__all__ = [
    "AlibiHeads",
    "T5BucketMap",
    "plot_bench",
    "plot_mystery_biases",
    "plot_position_map",
]


@course_style
def plot_position_map(ax: Axes | None = None) -> Axes:
    """The map: one row per method of :data:`POSITION_MAP`, one column per score term.

    Each cell shows the term's formula and is coloured by its role (:data:`ROLES`).

    Examples
    --------
    >>> ax = plot_position_map()
    >>> ax.images[0].get_array().shape
    (10, 4)
    """
    ax = new_axes(ax, (11.0, 6.0))
    roles = list(ROLES)
    codes = np.array([[roles.index(r) for r in entry.roles] for entry in POSITION_MAP])
    ax.imshow(
        codes,
        cmap=ListedColormap(list(ROLES.values())),
        vmin=-0.5,
        vmax=len(roles) - 0.5,
        aspect="auto",
        interpolation="nearest",
    )
    for row, entry in enumerate(POSITION_MAP):
        for col, (formula, role) in enumerate(zip(entry.formulas, entry.roles, strict=True)):
            colour = "white" if role in ("relative, learned", "dropped") else "black"
            # 12 pt in both styles: the cells do not grow with projector mode.
            ax.text(col, row, formula, ha="center", va="center", color=colour, fontsize=12)
    ax.set_xticks(range(len(TERMS)), [term.replace("–", "–\n") for term in TERMS])
    ax.xaxis.tick_top()
    ax.set_yticks(range(len(POSITION_MAP)), [f"{e.name} ({e.source})" for e in POSITION_MAP])
    ax.tick_params(length=0)
    ax.legend(
        handles=[Patch(facecolor=c, edgecolor="0.3", label=r) for r, c in ROLES.items()],
        loc="upper center",
        bbox_to_anchor=(0.5, -0.02),
        ncol=3,
        frameon=False,
    )
    return ax


@course_style
def plot_bench(result: BenchResult, spread: SeedResults | None = None) -> Figure:
    """Accuracy against test length, one panel per task, one line per entry, with the
    order-blind ceiling dashed.

    With ``spread`` (the lesson's results over seeds), each line gets a hatched band in its
    colour: the lowest to the highest accuracy over the seeds (a bar for a learned table's
    single point). The lines are this run.

    Parameters
    ----------
    result : BenchResult
        A bench from :func:`run_bench`.
    spread : SeedResults, optional
        The results over seeds, with a "bench" metric for every cell the bench fills.

    Examples
    --------
    >>> result = run_bench([("RoPE", "rope_adjacent")], [("copy_back", 1)], length=6,
    ...                    factors=(1, 2), steps=2, n_samples=2)
    >>> [text.get_text() for text in plot_bench(result).legends[0].get_texts()]
    ['RoPE', 'order-blind limit']
    >>> spread = SeedResults("demo", (0, 1), {"bench.copy_back.rope_adjacent.L": np.array(
    ...     [0.9, 1.0]), "bench.copy_back.rope_adjacent.2L": np.array([0.5, 0.8])})
    >>> figure = plot_bench(result, spread)
    >>> figure.legends[0].get_texts()[-1].get_text()
    'band: lowest–highest over 2 seeds'
    """
    if not isinstance(result, BenchResult):
        raise TypeError(f"result must be a BenchResult, got {type(result).__name__}")
    if spread is not None:
        format_bench(result, spread)  # the same checks: a SeedResults with every cell
    names = metric_names(result)
    figure = plt.figure(figsize=WIDE_FIGSIZE, layout="constrained")
    axes = figure.subplots(1, len(result.tasks), sharey=True, squeeze=False)[0]
    for c, (ax, task) in enumerate(zip(axes, result.tasks, strict=True)):
        for r, entry in enumerate(result.entries):
            values = 100 * result.accuracy[r, c]
            colour = f"C{r % 10}"
            lone = np.isfinite(values).sum() == 1  # a learned table: one point, drawn larger
            style = {"marker": "s", "markersize": 10} if lone else {"marker": "o", "markersize": 6}
            ax.plot(result.lengths, values, color=colour, label=entry.label, **style)
            if spread is None:
                continue
            filled = [k for k, name in enumerate(names[r][c]) if name is not None]
            low, _, high = spread.band([f"bench.{names[r][c][k]}" for k in filled])
            x = [result.lengths[k] for k in filled]
            if lone:
                ax.vlines(x, 100 * low, 100 * high, color=colour, linewidth=2.5)
            else:
                draw_seed_band(ax, x, 100 * low, 100 * high, color=colour)
        limit = 100 * result.baseline[c]
        ax.plot(result.lengths, limit, linestyle="--", color="0.4", label="order-blind limit")
        ax.set_xscale("log", base=2)
        ax.set_xticks(result.lengths, [str(n) for n in result.lengths])
        ax.minorticks_off()
        ax.set_xlabel("test length (trained at the first)")
        ax.set_title(task_label(task))
    axes[0].set_ylabel("accuracy (%)")
    axes[0].set_ylim(0, 105)
    handles = list(axes[0].lines)
    if spread is not None:
        label = f"band: lowest–highest over {len(spread.seeds)} seeds"
        handles.append(Patch(**seed_band_style("0.3"), label=label))
        figure.suptitle(f"lines: this run (seed {result.seed})")
    figure.legend(handles=handles, loc="outside right center")
    return figure


# --- live figures ----------------------------------------------------------------------------


def _fraction(slope: float) -> str:
    inverse = 1.0 / slope
    return f"1/{inverse:.0f}" if abs(inverse - round(inverse)) < 1e-9 else f"{slope:.3g}"


class AlibiHeads(LiveFigure):
    """ALiBi's causal bias ``-m_h (i - j)`` of every head, under a head-count slider.

    One block per head (up to 8, in two rows of four), each an ``n x n`` heatmap with the
    query down and the key across. The colour scale is the same in every block and every step
    (from ``-(n - 1) / 2``, the steepest slope's largest penalty, to 0), so a flat block means a
    weak slope. Future keys are grey; blocks beyond the head count are blank.

    Parameters
    ----------
    n_positions : int, default 16
        Length shown, 4 .. 64.

    Examples
    --------
    >>> fig = AlibiHeads(n_positions=4).draw(n_heads=2)
    >>> [text.get_text() for text in fig.axes[0].texts[:3]]
    ['head 1\\nm = 1/16', 'head 2\\nm = 1/256', '']
    """

    controls = {"n_heads": int_control("heads", 8, 1, 8)}
    layout = Layout(figsize=(10.0, 5.4))

    def __init__(self, n_positions: int = 16) -> None:
        self.n = check_int("n_positions", n_positions, minimum=4, maximum=64)
        step = self.n + 1  # one blank cell between blocks
        self.corners = [(row * step, col * step) for row in range(2) for col in range(4)]
        self.shape = (2 * step - 1, 4 * step - 1)

    def build(self, axes) -> SimpleNamespace:
        limit = (self.n - 1) / 2
        data = axes.imshow(
            np.zeros(self.shape),
            cmap=diverging_cmap(),
            vmin=-limit,
            vmax=limit,
            interpolation="nearest",
        )
        # Grey future keys and blank blocks are an opaque layer on top, not NaN cells: every
        # value the figure holds stays finite, so two drawings of it compare equal.
        cover = axes.imshow(np.zeros((*self.shape, 4)), interpolation="nearest")
        labels = [
            axes.text(left + self.n - 1, top, "", ha="right", va="top")
            for top, left in self.corners
        ]
        axes.set_xticks([])
        axes.set_yticks([])
        axes.set_xlabel("key j, left to right in each block (one block per head)")
        axes.set_ylabel("query i, top to bottom")
        return SimpleNamespace(axes=axes, data=data, cover=cover, labels=labels)

    def update(self, art: SimpleNamespace, n_heads: int) -> None:
        n = self.n
        slopes = alibi_slopes(n_heads)
        bias = alibi_bias(n, slopes=slopes)
        mosaic = np.zeros(self.shape)
        cover = np.ones((*self.shape, 4))  # opaque white: gaps and unused blocks
        future = np.triu(np.ones((n, n), dtype=bool), 1)
        grey = to_rgba(MASKED_COLOUR)
        for h, ((top, left), label) in enumerate(zip(self.corners, art.labels, strict=True)):
            label.set_text(f"head {h + 1}\nm = {_fraction(slopes[h])}" if h < n_heads else "")
            if h >= n_heads:
                continue
            mosaic[top : top + n, left : left + n] = np.where(future, 0.0, bias[h])
            cover[top : top + n, left : left + n] = np.where(future[..., None], grey, 0.0)
        art.data.set_data(mosaic)
        art.cover.set_data(cover)
        art.axes.title.set_text(
            f"ALiBi, {n_heads} head{'s' * (n_heads > 1)}: bias −m·(i − j); "
            f"colour from {-(n - 1) / 2:g} (blue) to 0 (white)"
        )

    def moving(self, art: SimpleNamespace) -> list:
        return [art.data, art.cover, *art.labels, art.axes.title]


class T5BucketMap(LiveFigure):
    """T5's bucket of every offset ``j - i``, bidirectional (top) and causal (bottom).

    Sliders: the number of buckets and the max distance. Dashed lines mark
    ``±max_distance``, beyond which every offset shares its side's last bucket.

    Parameters
    ----------
    max_offset : int, default 300
        Offsets shown: ``-max_offset .. max_offset``, 16 .. 1000.

    Examples
    --------
    >>> fig = T5BucketMap(max_offset=50).draw(num_buckets=8, max_distance=40)
    >>> fig.axes[1].get_title()
    'causal: 8 buckets, exact for distance < 4'
    """

    # The values the website has pictures for (scripts/build_site.py): every head count (by
    # the rule); bucket counts and distances by octaves.
    site_grid = {"num_buckets": (4, 8, 16, 32, 64), "max_distance": (40, 64, 128, 256, 512)}
    controls = {
        "num_buckets": even_control("buckets", 32, 4, 64),
        "max_distance": int_control("max distance", 128, 40, 512, 8),
    }
    layout = Layout(figsize=(9.0, 6.0), grid=(2, 1), subplot_kw={"sharex": True})

    def __init__(self, max_offset: int = 300) -> None:
        self.max_offset = check_int("max_offset", max_offset, minimum=16, maximum=1000)
        self.offsets = np.arange(-self.max_offset, self.max_offset + 1)

    def build(self, axes) -> SimpleNamespace:
        steps, edges = [], []
        for ax in axes:
            (line,) = ax.plot(self.offsets, np.zeros(self.offsets.size), drawstyle="steps-mid")
            steps.append(line)
            edges.append(
                [ax.axvline(0.0, color="0.4", linestyle="--", linewidth=1.2) for _ in range(2)]
            )
            ax.set_ylabel("bucket")
            ax.set_xlim(-self.max_offset, self.max_offset)
        axes[1].set_xlabel("offset j − i (key minus query)")
        return SimpleNamespace(axes=list(axes), steps=steps, edges=edges)

    def update(self, art: SimpleNamespace, num_buckets: int, max_distance: int) -> None:
        sizes = {"num_buckets": num_buckets, "max_distance": max_distance}
        for ax, line, edges, bidirectional in zip(
            art.axes, art.steps, art.edges, (True, False), strict=True
        ):
            line.set_ydata(t5_relative_bucket(self.offsets, bidirectional=bidirectional, **sizes))
            for edge, x in zip(edges, (-max_distance, max_distance), strict=True):
                edge.set_xdata([x, x])
            ax.set_ylim(-0.6, num_buckets - 0.4)  # no "−1" tick to meet the x tick labels
            half = num_buckets // 2 if bidirectional else num_buckets
            mode = "bidirectional" if bidirectional else "causal"
            per = f"{half} per sign" if bidirectional else f"{half} buckets"
            ax.title.set_text(f"{mode}: {per}, exact for distance < {half // 2}")

    def moving(self, art: SimpleNamespace) -> list:
        return [
            *art.steps,
            *(e for pair in art.edges for e in pair),
            *(ax.title for ax in art.axes),
        ]

    def rescaled(self, art: SimpleNamespace) -> list:
        # The bucket count moves both y axes; nothing static lies along them (the edges span
        # the axes' height whatever the limits), so those steps blit too.
        return [ax.yaxis for ax in art.axes]


@course_style
def plot_mystery_biases(n_positions: int = 24) -> Figure:
    """The four heatmaps of exercise 2, panels A to D (diverging colours centred at 0).

    Examples
    --------
    >>> [ax.get_title() for ax in plot_mystery_biases(8).axes]
    ['A', 'B', 'C', 'D']
    """
    matrices = mystery_matrices(n_positions)
    figure = plt.figure(figsize=(11.0, 3.4), layout="constrained")
    for ax, (panel, values) in zip(figure.subplots(1, 4), matrices.items(), strict=True):
        limit = colour_limit(values)
        ax.imshow(values, cmap=diverging_cmap(), vmin=-limit, vmax=limit, interpolation="nearest")
        ax.set_title(panel)
        ax.set_xlabel("key j")
        ax.set_xticks([])
        ax.set_yticks([])
    figure.axes[0].set_ylabel("query i")
    return figure
