"""Lesson 08 · Position in a model you train: its figure and live figure.

See :mod:`pe_helpers.lessons.train_it` for the lesson's overview.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator
from numpy.typing import ArrayLike

from ..._validate import check_array, check_int
from ...figures import WIDE_FIGSIZE, course_style, draw_seed_band, seed_band_style
from ...live import LiveFigure, choice_control, int_control, side_by_side
from ...tasks import order_blind_accuracy
from ...training import TrainedModel
from .maths import (
    LESSON_METHODS,
    MAX_MODELS,
    MAX_TEST_LENGTH,
    check_accuracies,
    check_models,
    check_rows,
    default_models,
    refuses,
    target_keys,
    view_tokens,
)

__all__ = [
    "QueryAttention",
    "plot_extrapolation",
]

_MARKERS = ("o", "s", "D", "^", "v", "P")
#: How a refused length is marked: a cross at 0.
_REFUSED = {"marker": "x", "markersize": 10, "markeredgewidth": 2.5, "linestyle": "none"}


@course_style
def plot_extrapolation(
    tables: Mapping[str, Mapping[str, ArrayLike]],
    lengths: Sequence[int],
    *,
    train_length: int,
    limits: Mapping[str, ArrayLike] | None = None,
    bands: Mapping[str, Mapping[str, Sequence[ArrayLike]]] | None = None,
    band_label: str = "hatched: range over seeds",
) -> Figure:
    """Accuracy against test length, one panel per task and one line per method.

    The lines are one run; ``bands`` shades, behind each method's line and in its colour, the
    range the accuracy took over seeds.

    Parameters
    ----------
    tables : dict of str to dict of str to array_like
        Panel title (a task) -> {method: accuracies in [0, 1], NaN where refused}; at most
        three panels of :data:`MAX_MODELS` lines.
    lengths : sequence of int
        The test lengths (x axis, logarithmic).
    train_length : int
        ``L``, marked by a dotted vertical line.
    limits : dict of str to array_like, optional
        Panel title -> order-blind limit per length (dashed grey line).
    bands : dict of str to dict of str to tuple, optional
        Panel title -> {method: ``(low, high)`` or ``(low, median, high)`` per length, as
        :meth:`pe_helpers.seeds.SeedResults.band` returns; NaN where refused}. Only the low
        and high are drawn, as a hatched band; a method of the panel may have none.
    band_label : str, default "hatched: range over seeds"
        The legend's entry for the bands (shown when there are bands).

    Examples
    --------
    >>> tables = {"copy back": {"rope": [1.0, 0.9], "learned": [1.0, np.nan]}}
    >>> figure = plot_extrapolation(tables, [16, 32], train_length=16)
    >>> [text.get_text() for text in figure.legends[0].get_texts()]
    ['rope', 'learned (× = refuses)']
    >>> bands = {"copy back": {"rope": ([0.99, 0.8], [1.0, 0.95])}}
    >>> figure = plot_extrapolation(tables, [16, 32], train_length=16, bands=bands)
    >>> figure.legends[0].get_texts()[-1].get_text()
    'hatched: range over seeds'
    """
    if not isinstance(tables, Mapping) or not 1 <= len(tables) <= 3:
        raise TypeError(f"tables must be a dict of 1 to 3 task panels, got {tables!r:.80}")
    xs = check_array("lengths", lengths, ndim=1).astype(np.float64)
    if xs.min() <= 0:
        raise ValueError(f"lengths must be > 0 (log axis), got minimum {xs.min():g}")
    train_length = check_int("train_length", train_length, minimum=1)
    limits = {} if limits is None else limits
    bands = {} if bands is None else bands
    for name, given in (("limits", limits), ("bands", bands)):
        if not isinstance(given, Mapping) or set(given) - set(tables):
            raise TypeError(f"{name} must be a dict of titles of tables, got {given!r:.80}")
    panels = {}  # title -> ({method: accuracies}, {method: band}, limit or None)
    for title, rows in tables.items():
        name = f"tables[{title!r}]"
        lines, shaded = check_rows(rows, bands.get(title), xs.size, name, f"bands[{title!r}]")
        if len(lines) > MAX_MODELS:
            raise ValueError(f"{name} may hold at most {MAX_MODELS} rows, got {len(lines)}")
        limit = limits.get(title)
        if limit is not None:
            limit = check_accuracies(f"limits[{title!r}]", limit, xs.size)
        panels[title] = lines, shaded, limit
    figure = plt.figure(figsize=WIDE_FIGSIZE, layout="constrained")
    axes = figure.subplots(1, len(tables), sharey=True, squeeze=False)[0]
    for ax, (title, (lines, shaded, limit)) in zip(axes, panels.items(), strict=True):
        for index, (method, ys) in enumerate(lines.items()):
            band = shaded.get(method)
            if band is not None:
                draw_seed_band(ax, xs, 100 * band[0], 100 * band[-1], color=f"C{index}")
            refused = np.isnan(ys)
            label = f"{method} (× = refuses)" if refused.any() else str(method)
            marker = _MARKERS[index % len(_MARKERS)]
            ax.plot(xs, 100 * ys, color=f"C{index}", marker=marker, markersize=7, label=label)
            if refused.any():
                ax.plot(xs[refused], np.zeros(refused.sum()), color=f"C{index}", **_REFUSED)
        if limit is not None:
            ax.plot(xs, 100 * limit, color="0.4", linestyle="--", label="order-blind limit")
        ax.axvline(train_length, color="0.3", linestyle=":", linewidth=1.5)
        ax.set_xscale("log", base=2)
        ax.set_xticks(xs, [f"{x:g}" for x in xs])
        ax.minorticks_off()
        ax.set_ylim(-4, 104)
        ax.set_xlabel(f"test length (trained at L = {train_length})")
        ax.set_title(str(title))
    axes[0].set_ylabel("accuracy (%)")
    handles, labels = axes[0].get_legend_handles_labels()
    if any(bands.values()):
        handles.append(Patch(**seed_band_style("0.3")))
        labels.append(band_label)
    figure.legend(handles, labels, loc="outside lower center", ncols=len(labels))
    return figure


#: How the figures and buttons name each position method.
METHOD_NAMES = {m: m for m in LESSON_METHODS} | {"none": "NoPE", "rope_adjacent": "RoPE"}


class QueryAttention(LiveFigure):
    """Where one query of each trained model looks, and how often the model is right.

    Left: the attention weights of the query at position *query* over the keys of one
    test sequence of length *length*, one line per head, for the model of the position
    method picked by name (*method*, one of :data:`LESSON_METHODS`); the dashed line marks
    the key that holds the answer, the shaded band the positions past the training length.
    Right: that model's accuracy at every position of sequences of this length (the dashed
    grey line is the order-blind limit per position), with the query marked. A learned
    table refuses lengths past its rows and says so. No step trains; accuracies are kept.

    Parameters
    ----------
    models : dict of str to TrainedModel, optional
        One model per method of :data:`LESSON_METHODS`, keyed by the method's name and trained
        with it, all on one task, at one training length (at most :data:`MAX_TEST_LENGTH`),
        with one vocabulary and one number of heads (at most 4). Default: the lesson's
        copy-back models (k = 1, L = 16), trained once per session.
    n_samples : int, default 128
        Test sequences per accuracy, 8 to 1024.

    Examples
    --------
    >>> figure = QueryAttention().draw(length=32, query=20, method="rope_adjacent")
    >>> figure.axes[0].get_title()
    'RoPE: query 20'
    """

    # The values the website has pictures for (scripts/build_site.py): L, 2L and 4L; queries
    # inside L, just past it and far past it; every method.
    site_grid = {"length": (16, 32, 64), "query": (1, 8, 15, 20, 24, 31, 48, 63)}
    controls = {
        "length": int_control("test length", 32, 4, MAX_TEST_LENGTH, 4),
        "query": int_control("query position", 20, 0, MAX_TEST_LENGTH - 1),
        "method": choice_control("method", METHOD_NAMES, "rope_adjacent"),
    }
    layout = side_by_side()

    def __init__(
        self, models: Mapping[str, TrainedModel] | None = None, n_samples: int = 128
    ) -> None:
        models = default_models() if models is None else check_models(models)
        if sorted(models) != sorted(LESSON_METHODS):
            raise ValueError(f"models must be keyed {list(LESSON_METHODS)}, got {list(models)}")
        models = {name: models[name] for name in LESSON_METHODS}  # in the choice's order
        first = models["none"]
        want = (first.task, first.length, first.config.vocab_size, first.config.n_heads)
        for name, model in models.items():
            same = (model.task, model.length, model.config.vocab_size, model.config.n_heads)
            if model.config.method != name or same != want:
                raise ValueError(
                    f"models[{name!r}] must be trained with method {name!r} and share task, "
                    f"training length, vocab_size and n_heads {want}, got {same}"
                )
        if first.length > MAX_TEST_LENGTH or first.config.n_heads > 4:
            raise ValueError(f"models must be trained at length <= {MAX_TEST_LENGTH}, n_heads <= 4")
        self.models = models
        self.task = first.task
        self.train_length = first.length
        self.n_heads = first.config.n_heads
        self.vocab_size = first.config.vocab_size
        self.n_samples = check_int("n_samples", n_samples, minimum=8, maximum=1024)
        self.tokens = view_tokens(self.task, self.vocab_size)
        self._accuracy: dict[tuple[str, int | None], np.ndarray] = {}
        self._limits: np.ndarray | None = None

    def _per_position(self, name: str, length: int) -> np.ndarray:
        model = self.models[name]
        if refuses(model, length) or length <= self.task.arg:
            return np.full(length, np.nan)
        # With the mask, the prediction at position i sees positions 0 .. i only: on the
        # prefixes of long sequences it is the prediction on the long ones. One evaluation at
        # the longest length the model runs serves every length of the slider.
        causal = model.config.causal
        key = (name, None if causal else length)
        if key not in self._accuracy:
            longest = MAX_TEST_LENGTH
            if model.config.method == "learned":
                longest = min(longest, model.config.max_len)
            self._accuracy[key] = model.accuracy(
                length=longest if causal else length, n_samples=self.n_samples, per_position=True
            )
        return self._accuracy[key][:length]

    def _limit(self, length: int) -> np.ndarray:
        # The order-blind limit with the mask is a function of the position alone.
        if length <= self.task.arg:
            return np.full(length, np.nan)
        if self._limits is None:
            self._limits = order_blind_accuracy(
                self.task,
                MAX_TEST_LENGTH,
                self.vocab_size,
                causal=True,
                n_samples=512,
                per_position=True,
            )
        return self._limits[:length]

    def build(self, axes) -> SimpleNamespace:
        row_ax, acc_ax = axes
        art = SimpleNamespace(row_ax=row_ax, acc_ax=acc_ax)
        art.bands = [
            ax.axvspan(self.train_length - 0.5, MAX_TEST_LENGTH - 0.5, color="0.92", zorder=0)
            for ax in axes
        ]
        art.heads = [
            row_ax.plot([], [], "o-", color=f"C{h}", markersize=3, label=f"head {h + 1}")[0]
            for h in range(self.n_heads)
        ]
        # Vertical marks span the data's range (0 to 1) only: the legends sit above it.
        (art.target,) = row_ax.plot(
            [0, 0], [0, 1], "--", color="0.3", linewidth=1.5, label="key with the answer"
        )
        row_ax.set_ylim(0, 1.45)
        row_ax.set_yticks([0, 0.25, 0.5, 0.75, 1])
        row_ax.set_xlabel(f"key position (shaded: past L = {self.train_length})")
        row_ax.set_ylabel("attention weight")
        row_ax.legend(loc="upper center", ncols=self.n_heads + 1, borderaxespad=0.2)
        art.note = row_ax.text(0.5, 0.5, "", transform=row_ax.transAxes, ha="center", va="center")
        (art.accuracy,) = acc_ax.plot([], [], "o-", color="C0", markersize=3, label="this model")
        (art.limit,) = acc_ax.plot([], [], "--", color="0.4", label="order-blind limit")
        (art.query,) = acc_ax.plot([0, 0], [0, 100], color="C3", linewidth=1.5, label="the query")
        acc_ax.set_ylim(0, 145)
        acc_ax.set_yticks([0, 25, 50, 75, 100])
        acc_ax.set_xlabel("query position")
        for ax in axes:  # whole positions only: no tick half a position past the last
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        acc_ax.set_ylabel("accuracy (%)")
        acc_ax.legend(loc="upper center", ncols=2, borderaxespad=0.2)
        return art

    def update(self, art: SimpleNamespace, length: int, query: int, method: str) -> None:
        # Lines get only the points that exist (never NaN), so snapshots compare exactly.
        name, model = METHOD_NAMES[method], self.models[method]  # name: what a title shows
        clamped = query > length - 1  # the query slider reaches past a short sequence's end
        query = min(query, length - 1)
        target = int(target_keys(self.task, length)[query])
        keys = np.arange(length)
        refused = refuses(model, length)
        if refused:
            rows = np.empty((self.n_heads, 0))
            keys = keys[:0]
            art.note.set_text(
                f"{name}: the table has {model.config.max_len} rows;\nit refuses length {length}"
            )
        else:
            rows = model.attention(self.tokens[:length])[:, query]
            art.note.set_text("")
        for line, row in zip(art.heads, rows if rows.size else [[]] * self.n_heads, strict=True):
            line.set_data(keys, row)
        art.target.set_xdata([max(target, 0)] * 2)
        art.target.set_visible(target >= 0)
        # One short clause per title (it must fit in projector mode): the answer's key is the
        # dashed line, the length the x axis.
        last = " (clamped)" if clamped else ""  # the slider went past the last position
        art.row_ax.title.set_text(f"{name}: query {query}{last}")
        per_position = self._per_position(method, length)
        scored = ~np.isnan(per_position)
        art.accuracy.set_data(np.arange(length)[scored], 100 * per_position[scored])
        limit = self._limit(length)
        known = ~np.isnan(limit)
        art.limit.set_data(np.arange(length)[known], 100 * limit[known])
        art.query.set_xdata([query, query])
        for ax in (art.row_ax, art.acc_ax):
            ax.set_xlim(-0.5, length - 0.5)
        if refused:
            summary = f"refuses length {length}"
        else:
            summary = f"{round(100 * float(per_position[scored].mean()))}% right"
        art.acc_ax.title.set_text(f"{name}: {summary}")

    def moving(self, art: SimpleNamespace) -> list:
        return [
            *art.heads,
            art.target,
            art.note,
            art.row_ax.title,
            art.accuracy,
            art.limit,
            art.query,
            art.acc_ax.title,
        ]

    def rescaled(self, art: SimpleNamespace) -> list:
        # The length moves both x axes, the shaded bands (data coordinates) with them and
        # the legends over the bands: redrawn with the axes, so a step of the length blits.
        axes = (art.row_ax, art.acc_ax)
        return [*art.bands, *(ax.xaxis for ax in axes), *(ax.get_legend() for ax in axes)]
