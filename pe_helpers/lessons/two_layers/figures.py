"""Lesson 13 · Two layers: its static figure and its two live figures."""

from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import TYPE_CHECKING

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from ...figures import WIDE_FIGSIZE, course_style, draw_seed_band, seed_band_style
from ...grading import shown
from ...live import LiveFigure, choice_control, int_control, side_by_side
from ...seeds import check_results
from ...tasks import TEST_SEED, task_batch
from ...training import TrainedModel
from .maths import (
    EXTENSIONS,
    INDUCTION,
    LESSON_METHODS,
    SCALES,
    default_models,
    induction_score,
    induction_targets,
    passkey_accuracies,
    previous_token_score,
    stretch,
)

if TYPE_CHECKING:
    from ...seeds import SeedResults

__all__ = ["InductionHeads", "PasskeyLengths", "plot_passkey"]

_LENGTHS = np.array(list(SCALES.values()), dtype=np.float64)
_MARKERS = ("o", "s", "D", "^", "v", "P")
#: How the legend names each position method.
_METHOD_NAMES = {
    "none": "NoPE",
    "sinusoidal": "sinusoidal",
    "learned": "learned",
    "rope_adjacent": "RoPE",
    "alibi": "ALiBi",
    "t5_bias": "T5 bias",
}


def _band(results: SeedResults, prefix: str, seed: int = 0) -> tuple[np.ndarray, ...]:
    """Lengths, low, high and ``seed``'s run of the metrics ``prefix.L`` .. ``prefix.8L``."""
    scales = [s for s in SCALES if f"{prefix}.{s}" in results.values]
    low, _, high = results.band([f"{prefix}.{s}" for s in scales])
    row = [results[f"{prefix}.{s}"][results.seeds.index(seed)] for s in scales]
    return np.array([SCALES[s] for s in scales], dtype=np.float64), low, high, np.array(row)


def _length_axes(ax, title: str) -> None:
    ax.axvline(SCALES["L"], color="0.3", linestyle=":", linewidth=1.5)
    ax.set_xscale("log", base=2)
    ax.set_xticks(_LENGTHS, [f"{x:g}" for x in _LENGTHS])
    ax.minorticks_off()
    ax.set_ylim(-4, 104)
    ax.set_xlabel(f"test length (trained at L = {SCALES['L']})")
    ax.set_title(title)


@course_style
def plot_passkey(results: SeedResults, *, seed: int = 0) -> Figure:
    """Passkey accuracy against test length, over seeds: the methods, then RoPE stretched.

    Left: per position method, the range over the seeds (band) and the run of ``seed`` (line;
    the learned table's stops at L). Right: RoPE run with PI, NTK-aware or YaRN as is (dashed)
    and after the short fine-tune at 4L (solid).

    Parameters
    ----------
    results : SeedResults
        ``load_results("two_layers")``.
    seed : int, default 0
        The seed whose run is drawn as the line; one of ``results.seeds``.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from pe_helpers.seeds import load_results
    >>> figure = plot_passkey(load_results("two_layers"))
    >>> [ax.get_title() for ax in figure.axes]
    ['position methods', 'RoPE stretched to 4L\\ndashed: as is, solid: fine-tuned']
    """
    results = check_results(results, seed)
    figure = plt.figure(figsize=(WIDE_FIGSIZE[0], 6.0), layout="constrained")
    methods_ax, stretch_ax = figure.subplots(1, 2, sharey=True)
    for index, method in enumerate(LESSON_METHODS):
        group = "extension.RoPE" if method == "rope_adjacent" else f"passkey.{method}"
        xs, low, high, row = _band(results, group, seed)
        draw_seed_band(methods_ax, xs, 100 * low, 100 * high, color=f"C{index}")
        methods_ax.plot(
            xs,
            100 * row,
            color=f"C{index}",
            marker=_MARKERS[index],
            label=_METHOD_NAMES[method],
        )
    for index, extension in enumerate(EXTENSIONS):
        for prefix, style in ((extension, "--"), (f"tuned_{extension}", "-")):
            xs, low, high, row = _band(results, f"extension.{prefix}", seed)
            if style == "-":
                draw_seed_band(stretch_ax, xs, 100 * low, 100 * high, color=f"C{index}")
            stretch_ax.plot(
                xs,
                100 * row,
                color=f"C{index}",
                linestyle=style,
                marker=_MARKERS[index],
                label=extension if style == "-" else None,
            )
    _length_axes(methods_ax, "position methods")
    _length_axes(stretch_ax, "RoPE stretched to 4L\ndashed: as is, solid: fine-tuned")
    methods_ax.set_ylabel("passkey accuracy (%)")
    for ax in (methods_ax, stretch_ax):
        handles, labels = ax.get_legend_handles_labels()
        handles.append(Patch(**seed_band_style("0.3")))
        labels.append(f"{len(results.seeds)} seeds")
        # Below the panel, clear of the curves (which reach every height).
        ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncols=3)
    return figure


def _check_models(models: object, names: tuple[str, ...]) -> dict[str, TrainedModel]:
    if not isinstance(models, Mapping) or list(models) != list(names):
        raise ValueError(f"models must be a dict with the keys {list(names)}, got {shown(models)}")
    for name, model in models.items():
        if not isinstance(model, TrainedModel):
            raise TypeError(f"models[{name!r}] must be a TrainedModel, got {shown(model)}")
    return dict(models)


_INDUCTION_NAMES = ("RoPE, two layers", "NoPE, two layers", "RoPE, one layer")


class InductionHeads(LiveFigure):
    """Where one query looks in each layer of an induction model, for one repeated sequence.

    Left: the first layer's attention row of the query (dashed, the key just before it).
    Right: the last layer's row, the :func:`induction_targets` marked by squares (empty for
    the one-layer model). Titles give each layer's score on this sequence.

    Parameters
    ----------
    models : dict of str to TrainedModel, optional
        The three models, keyed as the model choice (``"RoPE, two layers"``, ``"NoPE, two
        layers"``, ``"RoPE, one layer"``). Default: the lesson's shipped ones (seed 0).

    Examples
    --------
    >>> figure = InductionHeads().draw(query=20)
    >>> figure.axes[0].get_title().startswith("layer 1, query 20")
    True
    """

    controls = {
        "model": choice_control("model", _INDUCTION_NAMES, "RoPE, two layers"),
        "query": int_control("query position", 20, 1, INDUCTION["length"] - 1),
    }
    layout = side_by_side()

    def __init__(self, models: Mapping[str, TrainedModel] | None = None) -> None:
        models = default_models(*_INDUCTION_NAMES) if models is None else models
        self.models = _check_models(models, _INDUCTION_NAMES)
        self.length = INDUCTION["length"]
        task = self.models[_INDUCTION_NAMES[0]].task
        batch = task_batch(task, 64, self.length, INDUCTION["vocab_size"], seed=TEST_SEED + 1)
        # The sequence shown: the first with a short segment, so that it repeats twice or more.
        periods = batch.scored.argmax(axis=1)  # the first scored position is the period
        shown = int(np.argmax(periods <= self.length // 3))
        self.tokens, self.period = batch.tokens[shown], int(periods[shown])
        self.targets = induction_targets(self.tokens[None])[0]  # (n, n)
        self._rows: dict[str, tuple[np.ndarray, np.ndarray | None]] = {}

    def _attention(self, name: str) -> tuple[np.ndarray, np.ndarray | None]:
        """The first and last layer's weights of the shown sequence (last None for one layer)."""
        if name not in self._rows:
            model = self.models[name]
            first = model.attention(self.tokens, layer=1)[0]
            last = model.attention(self.tokens)[0] if model.config.n_layers > 1 else None
            self._rows[name] = (first, last)
        return self._rows[name]

    def build(self, axes) -> SimpleNamespace:
        first_ax, last_ax = axes
        keys = np.arange(self.length)
        for ax in axes:
            ax.set_xlim(-0.5, self.length - 0.5)
            ax.set_ylim(0, 1.1)
            ax.set_xticks(keys[:: max(1, self.period)])
            ax.set_xlabel(f"key position (repeats every {self.period})")
        first_ax.set_ylabel("attention weight")
        art = SimpleNamespace(first_ax=first_ax, last_ax=last_ax)
        (art.first,) = first_ax.plot([], [], color="C0", marker="o", markersize=4, label="layer 1")
        (art.previous,) = first_ax.plot(
            [0, 0], [0, 1], color="0.3", linestyle="--", label="key t − 1"
        )
        (art.last,) = last_ax.plot([], [], color="C1", marker="o", markersize=4, label="layer 2")
        (art.targets,) = last_ax.plot(
            [],
            [],
            color="C3",
            marker="s",
            markersize=9,
            fillstyle="none",
            linestyle="none",
            label="after an earlier copy",
        )
        # One legend under both panels: the marks above the data are never covered.
        first_ax.figure.legend(
            handles=[art.first, art.previous, art.last, art.targets],
            loc="outside lower center",
            ncols=4,
        )
        art.note = last_ax.text(0.5, 0.5, "", transform=last_ax.transAxes, ha="center", va="center")
        return art

    def update(self, art: SimpleNamespace, model: str, query: int) -> None:
        first, last = self._attention(model)
        keys = np.arange(query + 1)  # the causal mask: keys 0 .. query
        art.first.set_data(keys, first[query, : query + 1])
        art.previous.set_xdata([query - 1] * 2)
        prev = float(previous_token_score(first[None, None], self.tokens[None])[0])
        art.first_ax.title.set_text(
            f"layer 1, query {query}\non key t − 1: {first[query, query - 1]:.2f} (mean {prev:.2f})"
        )
        wanted = np.flatnonzero(self.targets[query])
        if last is None:
            art.last.set_data([], [])
            art.targets.set_data(wanted, np.full(wanted.size, 1.05))
            art.note.set_text("one layer only:\nno second layer to look")
            art.last_ax.title.set_text("no layer 2\n(a one-layer model)")
            return
        art.last.set_data(keys, last[query, : query + 1])
        art.targets.set_data(wanted, np.full(wanted.size, 1.05))
        art.note.set_text("" if wanted.size else "no earlier copy of this token yet")
        score = float(induction_score(last[None, None], self.tokens[None])[0])
        on = float(last[query, wanted].sum()) if wanted.size else 0.0
        art.last_ax.title.set_text(f"layer 2\non the marked keys: {on:.2f} (mean {score:.2f})")

    def moving(self, art: SimpleNamespace) -> list:
        return [
            art.first,
            art.previous,
            art.first_ax.title,
            art.last,
            art.targets,
            art.note,
            art.last_ax.title,
        ]


class PasskeyLengths(LiveFigure):
    """Passkey accuracy against test length for the RoPE model run one way, and where it looks.

    Left: for the extension picked, the range over the seeds as is (grey band; dashed, this
    run) and fine-tuned at 4L (coloured band); dotted, the test length. Right: on one sequence
    of that length, the last marker's attention over the keys, the key marked; the title says
    whether this run answers it.

    Parameters
    ----------
    results : SeedResults, optional
        ``load_results("two_layers")`` (default: loaded).
    model : TrainedModel, optional
        The RoPE passkey model of this run; default the lesson's shipped one (seed 0).

    Examples
    --------
    >>> figure = PasskeyLengths().draw(extension="YaRN", length=64)
    >>> figure.axes[1].get_title().splitlines()[0]
    'YaRN, length 64'
    """

    controls = {
        "extension": choice_control("RoPE run as", EXTENSIONS, "YaRN"),
        "length": int_control("test length", 64, 16, 128, 16),
    }
    layout = side_by_side()

    def __init__(self, results: SeedResults | None = None, model: TrainedModel | None = None):
        from ...seeds import load_results

        self.results = load_results("two_layers") if results is None else check_results(results)
        model = default_models("passkey, RoPE")["passkey, RoPE"] if model is None else model
        if not isinstance(model, TrainedModel) or model.config.method != "rope_adjacent":
            raise TypeError(f"model must be a RoPE TrainedModel, got {shown(model)}")
        self.model = model
        longest = max(SCALES.values())
        batch = task_batch(model.task, 1, longest, model.config.vocab_size, seed=TEST_SEED + 1)
        self.tokens = batch.tokens[0]
        # The model under every extension, built (and checked) once: no training, cheap.
        self._models = {
            extension: model if extension == "RoPE" else stretch(model, extension)
            for extension in EXTENSIONS
        }
        self._curves: dict[str, np.ndarray] = {}

    def _curve(self, extension: str) -> np.ndarray:
        """This run's passkey accuracy at every length of SCALES under ``extension``."""
        if extension not in self._curves:
            found = passkey_accuracies(self._models[extension])
            self._curves[extension] = np.array([found[s] for s in SCALES])
        return self._curves[extension]

    def build(self, axes) -> SimpleNamespace:
        curve_ax, look_ax = axes
        art = SimpleNamespace(curve_ax=curve_ax, look_ax=look_ax, bands={}, tuned={})
        for extension in EXTENSIONS:
            xs, low, high, _ = _band(self.results, f"extension.{extension}")
            art.bands[extension] = draw_seed_band(curve_ax, xs, 100 * low, 100 * high, color="0.3")
            xs, low, high, _ = _band(self.results, f"extension.tuned_{extension}")
            art.tuned[extension] = draw_seed_band(
                curve_ax, xs, 100 * low, 100 * high, color="C2", hatch="\\\\"
            )
        (art.this_run,) = curve_ax.plot(
            [], [], color="C0", linestyle="--", marker="o", label="this run, no training"
        )
        art.picked = curve_ax.axvline(64, color="C3", linestyle=":", linewidth=2)
        _length_axes(curve_ax, "")
        curve_ax.set_ylabel("passkey accuracy (%)")
        handles, labels = curve_ax.get_legend_handles_labels()
        handles += [Patch(**seed_band_style("0.3")), Patch(**seed_band_style("C2", hatch="\\\\"))]
        labels += ["seeds, no training", "seeds, fine-tuned at 4L"]
        handles.append(look_ax.axvline(0, color="C3", linestyle="--", label="the key"))
        labels.append("the key")
        # Under both panels, clear of the data.
        curve_ax.figure.legend(handles, labels, loc="outside lower center", ncols=2)
        (art.row,) = look_ax.plot([], [], color="C0", linewidth=1.2)
        art.key = handles[-1]
        look_ax.set_xlim(-1, max(SCALES.values()))
        look_ax.set_ylim(0, 1.1)
        look_ax.set_xlabel("key position")
        look_ax.set_ylabel("last marker's attention")
        return art

    def update(self, art: SimpleNamespace, extension: str, length: int) -> None:
        for name in EXTENSIONS:
            art.bands[name].set_visible(name == extension)
            art.tuned[name].set_visible(name == extension)
        art.this_run.set_data(_LENGTHS, 100 * self._curve(extension))
        art.picked.set_xdata([length] * 2)
        scale = {value: name for name, value in SCALES.items()}.get(length)
        where = f"no seeds run at length {length}"
        if scale is not None:
            median = self.results.median(f"extension.{extension}.{scale}")
            where = f"median of the seeds at {scale}: {100 * median:.0f}%"
        art.curve_ax.title.set_text(f"RoPE run as {extension}\n{where}")
        model = self._models[extension]
        tokens = _passkey_sequence(self.tokens, length)
        weights = model.attention(tokens)[0, -1]  # (keys,)
        key = int(np.flatnonzero(tokens[:-1] == 0)[0]) + 1
        art.row.set_data(np.arange(length), weights)
        art.key.set_xdata([key] * 2)
        answer = int(model.predict(tokens)[0, -1])
        verdict = "found" if answer == tokens[key] else f"missed (answers {answer})"
        art.look_ax.title.set_text(f"{extension}, length {length}\nthe key is {verdict}")

    def moving(self, art: SimpleNamespace) -> list:
        return [
            *art.bands.values(),
            *art.tuned.values(),
            art.this_run,
            art.picked,
            art.curve_ax.title,
            art.row,
            art.key,
            art.look_ax.title,
        ]


def _passkey_sequence(tokens: np.ndarray, length: int) -> np.ndarray:
    """The figure's sequence cut to ``length``, its marker and key moved proportionally."""
    longest = tokens.size
    where = int(np.flatnonzero(tokens[:-1] == 0)[0])
    out = np.concatenate([tokens[: length - 1].copy(), [0]])
    out[:-1][out[:-1] == 0] = 1  # the old marker, if it is in the cut, becomes filler
    at = min(length - 3, where * length // longest)
    out[at], out[at + 1] = 0, tokens[where + 1]
    return out
