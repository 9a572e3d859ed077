"""Lesson 14 · Position from content: its live figure of the gates and its static figure."""

from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import TYPE_CHECKING

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from ...figures import WIDE_FIGSIZE, course_style, draw_seed_band, seed_band_style
from ...grading import shown
from ...live import LiveFigure, choice_control, int_control, side_by_side
from ...seeds import check_results
from ...training import TrainedModel
from .maths import (
    LESSON_METHODS,
    METHOD_NAMES,
    SCALES,
    SKIP_BACK,
    cope_positions,
    default_models,
    forget_gates,
    test_sequence,
    word_counts,
)

if TYPE_CHECKING:
    from ...seeds import SeedResults

__all__ = ["ContentGates", "plot_skip_back"]

_GATE_MODELS = ("CoPE", "forget gate (FoX)")
_SHORT_NAMES = {"CoPE": "CoPE", "forget gate (FoX)": "FoX"}  # in a title that must fit
_MARKERS = ("o", "s", "D", "^", "v")


class ContentGates(LiveFigure):
    """What a content method measures along one test sequence, seen from one query.

    Left, for CoPE: its position of every key, p_ij (dots), beside the words in
    ``tokens[j .. i]`` (dashed steps); for the forget gate: each token's gate f_t (squares)
    and F_ij = Π_{l=j+1..i} f_l (dots). Words are marked along the bottom. Right: the query's
    attention, the key holding the answer dashed; the title says what the model answers.

    Parameters
    ----------
    models : dict of str to TrainedModel, optional
        ``{"CoPE": ..., "forget gate (FoX)": ...}``, trained on the lesson's task. Default: the
        lesson's, trained once per session (seed 0).

    Examples
    --------
    >>> figure = ContentGates().draw(method="CoPE", query=15)
    >>> figure.axes[1].get_title().startswith("CoPE, query 15")
    True
    """

    controls = {
        "method": choice_control("method", _GATE_MODELS, "CoPE"),
        "sequence": int_control("test sequence", 0, 0, 7),
        "query": int_control("query position", 15, 1, SKIP_BACK["length"] - 1),
    }
    layout = side_by_side()

    def __init__(self, models: Mapping[str, TrainedModel] | None = None) -> None:
        models = default_models() if models is None else models
        if not isinstance(models, Mapping) or list(models) != list(_GATE_MODELS):
            raise ValueError(
                f"models must be a dict with the keys {list(_GATE_MODELS)}, got {shown(models)}"
            )
        for name, method in zip(_GATE_MODELS, ("cope", "forgetting"), strict=True):
            model = models[name]
            if not isinstance(model, TrainedModel) or model.config.method != method:
                raise TypeError(f"models[{name!r}] must be a {method!r} TrainedModel")
        self.models = dict(models)
        self.length = SKIP_BACK["length"]
        self._seen: dict[tuple[str, int], tuple] = {}

    def _measured(self, method: str, sequence: int) -> tuple:
        """Tokens, targets, the gate quantity, attention and answers of one sequence."""
        key = (method, sequence)
        if key not in self._seen:
            tokens, targets = test_sequence(self.length, sequence)
            model = self.models[method]
            if method == "CoPE":
                gate = cope_positions(model, tokens)[0]  # (n, n)
            else:
                gate = forget_gates(model, tokens)[0]  # (n,)
            weights = model.attention(tokens)[0]  # (n, n)
            answers = model.predict(tokens)[0]
            self._seen[key] = (tokens, targets, gate, weights, answers)
        return self._seen[key]

    def build(self, axes) -> SimpleNamespace:
        gate_ax, look_ax = axes
        for ax in axes:
            ax.set_xlim(-0.5, self.length - 0.5)
            ax.set_xlabel("key position j")
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # whole positions
        # The y label keeps one place for both methods (their tick labels differ in width).
        gate_ax.yaxis.set_label_coords(-0.09, 0.5)
        # legend_of: the method the gate panel's legend was made for
        art = SimpleNamespace(gate_ax=gate_ax, look_ax=look_ax, legend_of=None)
        (art.measured,) = gate_ax.plot([], [], color="C0", marker="o", markersize=5)
        (art.reference,) = gate_ax.plot([], [], color="0.3", linestyle="--", drawstyle="steps-mid")
        (art.gates,) = gate_ax.plot([], [], color="C1", marker="s", linestyle="none")
        (art.words,) = gate_ax.plot(
            [], [], color="C2", marker="^", linestyle="none", label="a word"
        )
        (art.row,) = look_ax.plot([], [], color="C0", marker="o", markersize=4)
        (art.target,) = look_ax.plot(
            [0, 0], [0, 1], color="C3", linestyle="--", label="the second word back"
        )
        (art.look_words,) = look_ax.plot([], [], color="C2", marker="^", linestyle="none")
        look_ax.set_ylim(-0.08, 1.45)  # room above the weights for the legend
        look_ax.set_ylabel("attention weight of the query")
        look_ax.legend(loc="upper left")
        return art

    def update(self, art: SimpleNamespace, method: str, sequence: int, query: int) -> None:
        tokens, targets, gate, weights, answers = self._measured(method, sequence)
        keys = np.arange(query + 1)
        places = np.flatnonzero(tokens != 0)
        if method == "CoPE":
            top = self.models["CoPE"].config.cope_positions - 1
            # Room above the counts for the legend, which the moving dots never cross.
            art.gate_ax.set_ylim(-0.6, top + 4.5)
            art.gate_ax.set_yticks(np.arange(top + 1), labels=[str(p) for p in range(top + 1)])
            art.words.set_data(places, np.full(places.size, -0.3))
            art.measured.set_data(keys, gate[query, : query + 1])
            art.measured.set_label("CoPE's position p_ij")
            counts = np.minimum(word_counts(tokens)[query, : query + 1], top)
            art.reference.set_data(keys, counts)
            art.reference.set_label("words in j .. i")
            art.gates.set_data([], [])
            art.gates.set_label("_hidden")
            art.gate_ax.set_ylabel("position p_ij")
            art.gate_ax.title.set_text(f"CoPE counts from query {query} back")
        else:
            art.gate_ax.set_ylim(-0.08, 1.7)  # room above the gates for the legend
            # One-character labels, as CoPE's counts have: the layout, laid out once, fits both.
            art.gate_ax.set_yticks([0.0, 0.5, 1.0], labels=["0", "½", "1"])
            art.words.set_data(places, np.full(places.size, -0.04))
            kept = np.exp(np.cumsum(np.log(gate[1 : query + 1])[::-1])[::-1])
            art.measured.set_data(keys, np.append(kept, 1.0))
            art.measured.set_label("kept from key j, F_ij")
            art.reference.set_data([], [])
            art.reference.set_label("_hidden")
            art.gates.set_data(np.arange(self.length), gate)
            art.gates.set_label("gate f_t of each token")
            art.gate_ax.set_ylabel("f_t and F_ij")
            art.gate_ax.title.set_text(f"the forget gate, seen from query {query}")
        if art.legend_of != method:  # the labels follow the method alone
            art.gate_ax.legend(loc="upper left", ncols=2)
            art.legend_of = method
        art.row.set_data(keys, weights[query, : query + 1])
        short = _SHORT_NAMES[method]
        art.look_words.set_data(places, np.full(places.size, -0.04))
        if targets[query] >= 0:
            wanted = int(targets[query])
            held = places[places <= query][-2]
            art.target.set_xdata([held] * 2)
            art.target.set_visible(True)
            # A wrong answer's title is no longer than a right one's: the layout fits both.
            said = "is right" if answers[query] == wanted else f"says {answers[query]}"
            art.look_ax.title.set_text(f"{short}, query {query}\nanswer {wanted}, the model {said}")
        else:
            art.target.set_xdata([-10, -10])  # off the axes, whatever was shown before
            art.target.set_visible(False)
            art.look_ax.title.set_text(f"{short}, query {query}\nfewer than two words yet")

    def moving(self, art: SimpleNamespace) -> list:
        # A sequence or a query keeps every limit and legend: these redraw alone (blitting).
        return [
            art.measured,
            art.reference,
            art.gates,
            art.words,
            art.row,
            art.target,
            art.look_words,
            art.gate_ax.title,
            art.look_ax.title,
        ]


def _group(method: str) -> str:
    return "content" if method in ("cope", "forgetting") else "counting"


@course_style
def plot_skip_back(results: SeedResults, *, seed: int = 0) -> Figure:
    """Accuracy on the second word back against test length: per method, the range over the
    shipped seeds (band) and the run of ``seed`` (line); dotted, the training length L.

    Examples
    --------
    >>> from pe_helpers.seeds import load_results
    >>> plot_skip_back(load_results("position_from_content")).axes[0].get_xlabel()
    'test length (trained at L = 16)'
    """
    results = check_results(results, seed)
    figure = plt.figure(figsize=WIDE_FIGSIZE, layout="constrained")
    ax = figure.subplots()
    xs = np.array(list(SCALES.values()), dtype=np.float64)
    at = results.seeds.index(seed)
    for index, method in enumerate(LESSON_METHODS):
        names = [f"{_group(method)}.{method}.{scale}" for scale in SCALES]
        low, _, high = results.band(names)
        draw_seed_band(ax, xs, 100 * low, 100 * high, color=f"C{index}")
        row = [results[name][at] for name in names]
        ax.plot(
            xs,
            100 * np.array(row),
            color=f"C{index}",
            marker=_MARKERS[index],
            label=METHOD_NAMES[method],
        )
    ax.axvline(SCALES["L"], color="0.3", linestyle=":", linewidth=1.5)
    ax.set_xscale("log", base=2)
    ax.set_xticks(xs, [f"{x:g}" for x in xs])
    ax.minorticks_off()
    ax.set_ylim(0, 104)
    ax.set_xlabel(f"test length (trained at L = {SCALES['L']})")
    ax.set_ylabel("accuracy, second word back (%)")
    handles, labels = ax.get_legend_handles_labels()
    handles.append(Patch(**seed_band_style("0.3")))
    labels.append(f"range over {len(results.seeds)} seeds")
    ax.legend(handles, labels, loc="center left", bbox_to_anchor=(1.01, 0.5))  # clear of the data
    return figure
