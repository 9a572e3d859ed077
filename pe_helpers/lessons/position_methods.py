"""Lesson 09 · The family of position methods, side by side.

The notebook ``notebooks/09_position_methods.ipynb`` puts the methods learners meet in
papers on two common grounds. The map is lesson 06's four score terms (what does each
method keep, drop or replace?); the bench is lesson 08's trainer (same model, same tasks,
same test past the training length). The maths of ALiBi and T5's buckets is general and
lives in :mod:`pe_helpers.biases`; what only this lesson needs is here:

* the map: :data:`POSITION_MAP` (each method's four terms, with its source) and
  :func:`plot_position_map`;
* measurements on the trainer's models: :func:`same_token_scores` (the scores of a sequence
  of one repeated token, so only position can make them differ), :func:`method_properties`
  (relative or absolute, direction-aware, extra parameters, all computed) and the bench,
  :func:`run_bench`, :func:`format_bench`, :func:`plot_bench`;
* live figures: :class:`AlibiHeads` (per-head bias under a head-count slider) and
  :class:`T5BucketMap` (bucket of every offset under sliders for buckets and max distance);
* exercises: :func:`check_t5_bucket` and, with :func:`mystery_matrices` /
  :func:`plot_mystery_biases`, :func:`check_method_names`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from types import SimpleNamespace
from typing import NamedTuple

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap, to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from .._validate import _show, check_int
from ..attention import relative_deviation
from ..biases import alibi_bias, alibi_slopes, t5_bias, t5_relative_bucket
from ..figures import (
    MASKED_COLOUR,
    WIDE_FIGSIZE,
    colour_limit,
    course_style,
    diverging_cmap,
    new_axes,
)
from ..grading import AnswerProblem, Feedback, as_array, grade
from ..live import LiveFigure, even_control, int_control
from ..model import ModelConfig, _check_config, _check_params, _forward, _Tables, init_params
from ..rope import apply_rope
from ..tasks import Task, make_task, order_blind_accuracy
from ..training import TrainedModel, train

__all__ = [
    "BENCH",
    "POSITION_MAP",
    "ROLES",
    "AlibiHeads",
    "BenchEntry",
    "BenchResult",
    "MAX_MODEL_OPTIONS",
    "MapEntry",
    "MethodProperties",
    "T5BucketMap",
    "check_method_names",
    "check_t5_bucket",
    "format_bench",
    "method_properties",
    "mystery_matrices",
    "plot_bench",
    "plot_mystery_biases",
    "plot_position_map",
    "run_bench",
    "same_token_scores",
]

# --- the map ---------------------------------------------------------------------------------

#: What a method does with one of the four score terms, and the colour the map gives it.
ROLES = {
    "content only": "#f7f7f7",
    "absolute": "#E69F00",
    "relative, learned": "#0072B2",
    "relative, fixed": "#56B4E9",
    "dropped": "#9e9e9e",
}

#: The four terms of lesson 06, in the map's column order.
TERMS = ("content–content", "content–position", "position–content", "position–position")


class MapEntry(NamedTuple):
    """One method on the map: its four terms (formula and role) and where it is defined."""

    name: str
    source: str
    formulas: tuple[str, str, str, str]
    roles: tuple[str, str, str, str]
    bench: str | None


_ABS = ("content only", "absolute", "absolute", "absolute")
_GONE = "dropped"

#: Every method of the lesson, on lesson 06's four terms (``e`` content, ``p`` position,
#: ``W = W_Q W_Kᵀ``). Each row was checked against the paper named in ``source``.
POSITION_MAP: tuple[MapEntry, ...] = (
    MapEntry("sinusoidal", "Vaswani et al. 2017", ("eᵢWeⱼ", "eᵢWpⱼ", "pᵢWeⱼ", "pᵢWpⱼ"), _ABS,
             "sinusoidal"),
    MapEntry("learned absolute", "Devlin et al. 2019", ("eᵢWeⱼ", "eᵢWpⱼ", "pᵢWeⱼ", "pᵢWpⱼ"), _ABS,
             "learned"),
    MapEntry("Shaw relative", "Shaw et al. 2018", ("eᵢWeⱼ", "eᵢW_Q a[clip(j−i)]", "—", "—"),
             ("content only", "relative, learned", _GONE, _GONE), None),
    MapEntry("Transformer-XL", "Dai et al. 2019",
             ("eᵢW_Q W_E eⱼ", "eᵢW_Q W_R r(i−j)", "u W_E eⱼ", "v W_R r(i−j)"),
             ("content only", "relative, fixed", "content only", "relative, fixed"), None),
    MapEntry("T5 bias", "Raffel et al. 2020", ("eᵢWeⱼ", "—", "—", "b_h[bucket(j−i)]"),
             ("content only", _GONE, _GONE, "relative, learned"), "t5_bias"),
    MapEntry("DeBERTa", "He et al. 2021",
             ("eᵢW_Q W_K eⱼ", "eᵢW_Q K_r[δ(i,j)]", "Q_r[δ(j,i)] W_K eⱼ", "—"),
             ("content only", "relative, learned", "relative, learned", _GONE), None),
    MapEntry("TUPE-A", "Ke et al. 2021", ("eᵢW_Q W_K eⱼ", "—", "—", "pᵢU_Q U_K pⱼ"),
             ("content only", _GONE, _GONE, "absolute"), None),
    MapEntry("ALiBi", "Press et al. 2022", ("eᵢWeⱼ", "—", "—", "−m_h (i − j)"),
             ("content only", _GONE, _GONE, "relative, fixed"), "alibi"),
    MapEntry("RoPE", "Su et al. 2021", ("eᵢW_Q R(j−i) W_K eⱼ", "—", "—", "—"),
             ("relative, fixed", _GONE, _GONE, _GONE), "rope_adjacent"),
    MapEntry("NoPE", "Kazemnejad et al. 2023", ("eᵢWeⱼ", "—", "—", "—"),
             ("content only", _GONE, _GONE, _GONE), "none"),
)


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
    ax.imshow(codes, cmap=ListedColormap(list(ROLES.values())), vmin=-0.5,
              vmax=len(roles) - 0.5, aspect="auto", interpolation="nearest")
    for row, entry in enumerate(POSITION_MAP):
        for col, (formula, role) in enumerate(zip(entry.formulas, entry.roles, strict=True)):
            colour = "white" if role in ("relative, learned", "dropped") else "black"
            ax.text(col, row, formula, ha="center", va="center", fontsize=10, color=colour)
    ax.set_xticks(range(len(TERMS)), TERMS)
    ax.xaxis.tick_top()
    ax.set_yticks(range(len(POSITION_MAP)),
                  [f"{e.name} ({e.source})" for e in POSITION_MAP])
    ax.tick_params(length=0)
    ax.legend(handles=[Patch(facecolor=c, edgecolor="0.5", label=r) for r, c in ROLES.items()],
              loc="upper center", bbox_to_anchor=(0.5, -0.02), ncol=len(ROLES), frameon=False)
    return ax


# --- measurements on the trainer's models ----------------------------------------------------

#: Longest sequence the measurements build score matrices for.
MAX_POSITIONS = 256


def same_token_scores(params: dict, config: ModelConfig, n_positions: int,
                      token: int = 0) -> np.ndarray:
    """Attention scores (before the mask and the softmax) of ``token`` repeated ``n`` times.

    Every query and key carries the same content, so whatever differs between entries is
    the work of the position method: a Toeplitz matrix means the method is relative.

    Parameters
    ----------
    params : dict
        The model's parameters (:func:`~pe_helpers.model.init_params` or trained).
    config : ModelConfig
        Its configuration.
    n_positions : int
        Sequence length, 1 .. 256 (at most ``max_len`` for "learned").
    token : int, default 0
        The repeated token id.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_heads, n, n)``: ``q_i · k_j / sqrt(d_head)`` plus any bias.

    Examples
    --------
    >>> config = ModelConfig("alibi", vocab_size=4, d_model=8, n_heads=2)
    >>> s = same_token_scores(init_params(config), config, 5)
    >>> s.shape, relative_deviation(s[0]) < 1e-12
    ((2, 5, 5), True)
    """
    config = _check_config(config)
    params = _check_params(params, config)
    n = check_int("n_positions", n_positions, minimum=1)
    if n > MAX_POSITIONS:
        raise ValueError(f"n_positions must be at most {MAX_POSITIONS}, got {n}")
    token = check_int("token", token, minimum=0)
    if token >= config.vocab_size:
        raise ValueError(f"token must be below vocab_size {config.vocab_size}, got {token}")
    if config.method == "learned" and n > config.max_len:
        raise ValueError(f"n_positions must be at most max_len {config.max_len}, got {n}")
    tables = _Tables(config, n)
    _, cache = _forward(params, config, np.full((1, n), token), tables)
    scores = cache["q"][0] @ np.swapaxes(cache["k"][0], -1, -2) / np.sqrt(config.d_head)
    if tables.bias is not None:
        scores = scores + tables.bias
    if tables.buckets is not None:
        scores = scores + np.moveaxis(params["t5_bias"][tables.buckets], -1, 0)
    return scores


class MethodProperties(NamedTuple):
    """What the bench table says about a method, each entry computed."""

    method: str
    kind: str  # "relative", "absolute" or "none" (position never changes the score)
    deviation: float  # largest relative_deviation over heads of the same-token scores
    direction_aware: bool  # some pair of positions scores differently in the two orders
    extra_parameters: int  # trainable numbers beyond those of the "none" model


#: Largest model the measurements and the bench build (each option's upper bound).
MAX_MODEL_OPTIONS = {"d_model": 256, "n_heads": 32, "d_head": 256, "num_buckets": 256,
                     "max_len": MAX_POSITIONS}


def _check_model_options(options: Mapping) -> dict:
    """The model options, with every size bounded so nothing can hang or fill memory."""
    for name, limit in MAX_MODEL_OPTIONS.items():
        value = options.get(name)
        if value is not None and check_int(name, value, minimum=1) > limit:
            raise ValueError(f"{name} must be at most {limit} here, got {value}")
    return dict(options)


def method_properties(method: str, n_positions: int = 16, seed: int = 0,
                      **model_options) -> MethodProperties:
    """Measure a position method on a freshly initialised model without a mask.

    The model sees one token repeated ``n_positions`` times (:func:`same_token_scores`).
    A T5 table starts at zero, so it is filled with random numbers first (any trained
    table is just other numbers). Then:

    * ``kind``: "none" if every score is the same, "relative" if every head's matrix is
      Toeplitz (``relative_deviation`` below 1e-9), else "absolute";
    * ``direction_aware``: the score matrix is not symmetric, so query ``i`` with key ``j``
      can differ from query ``j`` with key ``i``;
    * ``extra_parameters``: trainable numbers beyond a "none" model of the same shape.

    Model options are bounded by :data:`MAX_MODEL_OPTIONS`.

    Examples
    --------
    >>> method_properties("alibi").kind, method_properties("t5_bias").direction_aware
    ('relative', True)
    >>> method_properties("learned", n_positions=16).extra_parameters  # 16 rows of 32
    512
    """
    n = check_int("n_positions", n_positions, minimum=2)
    model_options = _check_model_options(model_options)
    if method == "learned":
        model_options.setdefault("max_len", n)
    config = ModelConfig(method, vocab_size=2, causal=False, **model_options)
    params = init_params(config, seed)
    if "t5_bias" in params:
        params["t5_bias"] = np.random.default_rng(seed + 1).normal(size=params["t5_bias"].shape)
    scores = same_token_scores(params, config, n)
    scale = float(np.abs(scores).max())
    deviation = max(relative_deviation(head) for head in scores)
    if np.ptp(scores, axis=(1, 2)).max() <= 1e-12 * scale:
        kind = "none"
    else:
        kind = "relative" if deviation < 1e-9 else "absolute"
    asymmetry = float(np.abs(scores - np.swapaxes(scores, 1, 2)).max())
    fields = {name: getattr(config, name) for name in ModelConfig.__dataclass_fields__}
    baseline = ModelConfig(**{**fields, "method": "none", "max_len": None})

    def count(c: ModelConfig) -> int:
        return sum(int(np.prod(shape)) for shape in c.param_shapes().values())

    return MethodProperties(config.method, kind, deviation, asymmetry > 1e-9 * scale,
                            count(config) - count(baseline))


# --- the bench -------------------------------------------------------------------------------


class BenchEntry(NamedTuple):
    """One row of the bench: a label, a method of the trainer and its model options."""

    label: str
    method: str
    options: Mapping = {}


#: The bench of the lesson: lesson 08's model (2 heads) with each method, and ALiBi again
#: with 8 heads (slopes 1/2 ... 1/256 instead of 1/16 and 1/256).
BENCH: tuple[BenchEntry, ...] = (
    BenchEntry("none (NoPE)", "none"),
    BenchEntry("sinusoidal", "sinusoidal"),
    BenchEntry("learned", "learned"),
    BenchEntry("RoPE", "rope_adjacent"),
    BenchEntry("ALiBi, 2 heads", "alibi"),
    BenchEntry("ALiBi, 8 heads", "alibi", {"n_heads": 8}),
    BenchEntry("T5 bias", "t5_bias"),
)

#: Most models one bench trains (entries x tasks), and the longest test sequence.
MAX_MODELS = 16
MAX_TEST_LENGTH = 128


class BenchResult(NamedTuple):
    """Accuracies ``[entry, task, test length]`` (NaN where a learned table refuses the
    length), the computed properties of each entry, the order-blind ceiling ``[task,
    length]`` and the trained models ``[entry][task]``."""

    entries: tuple[BenchEntry, ...]
    tasks: tuple[Task, ...]
    lengths: tuple[int, ...]
    accuracy: np.ndarray
    properties: tuple[MethodProperties, ...]
    baseline: np.ndarray
    models: tuple[tuple[TrainedModel, ...], ...]


def run_bench(entries: Sequence = BENCH, tasks: Sequence = (("copy_back", 1), ("token_at", 0)),
              *, length: int = 16, factors: Sequence[int] = (1, 2, 4), steps: int = 200,
              seed: int = 0, n_samples: int = 256) -> BenchResult:
    """Train every entry on every task (length ``L``) and test at ``factor * L``.

    Parameters
    ----------
    entries : sequence of BenchEntry or (label, method[, options])
        The rows; :data:`BENCH` by default.
    tasks : sequence of (name, argument) or Task
        The columns; copy-back by 1 (relative) and the token at position 0 (absolute).
    length : int, default 16
        Training length ``L``, 2 .. 32.
    factors : sequence of int, default (1, 2, 4)
        Test lengths as multiples of ``L`` (at most 128 tokens).
    steps, seed, n_samples : int
        Adam steps (<= 1000), the seed of every model, test sequences per length (<= 2048).
        Model options are bounded by :data:`MAX_MODEL_OPTIONS`.

    Returns
    -------
    BenchResult

    Examples
    --------
    >>> result = run_bench([("RoPE", "rope_adjacent")], [("copy_back", 1)], length=6,
    ...                    factors=(1, 2), steps=3, n_samples=4)
    >>> result.accuracy.shape, result.lengths
    ((1, 1, 2), (6, 12))
    """
    rows = tuple(e if isinstance(e, BenchEntry) else BenchEntry(*e) for e in entries)
    columns = tuple(t if isinstance(t, Task) else make_task(*t) for t in tasks)
    if not rows or not columns or len(rows) * len(columns) > MAX_MODELS:
        raise ValueError(f"entries x tasks must be 1 .. {MAX_MODELS} models, got "
                         f"{len(rows)} x {len(columns)}")
    length = check_int("length", length, minimum=2)
    if length > 32:
        raise ValueError(f"length must be at most 32, got {length}")
    lengths = tuple(check_int("factor", f, minimum=1) * length for f in factors)
    if not lengths or max(lengths) > MAX_TEST_LENGTH:
        raise ValueError(f"factors must give test lengths up to {MAX_TEST_LENGTH}, got {lengths}")
    if check_int("steps", steps, minimum=1) > 1000:
        raise ValueError(f"steps must be at most 1000, got {steps}")
    if check_int("n_samples", n_samples, minimum=1) > 2048:
        raise ValueError(f"n_samples must be at most 2048, got {n_samples}")
    for entry in rows:
        _check_model_options(entry.options)
    accuracy = np.full((len(rows), len(columns), len(lengths)), np.nan)
    models = []
    for r, entry in enumerate(rows):
        trained = []
        for c, task in enumerate(columns):
            model = train(task, entry.method, length=length, steps=steps, seed=seed,
                          **dict(entry.options))
            trained.append(model)
            for k, n in enumerate(lengths):
                if entry.method != "learned" or n <= model.config.max_len:
                    accuracy[r, c, k] = model.accuracy(length=n, n_samples=n_samples)
        models.append(tuple(trained))
    properties = tuple(method_properties(e.method, length, seed, **dict(e.options)) for e in rows)
    baseline = np.array([[order_blind_accuracy(t, n, 16, causal=True) for n in lengths]
                         for t in columns])
    return BenchResult(rows, columns, lengths, accuracy, properties, baseline, tuple(models))


def _task_label(task: Task) -> str:
    return f"copy_back k={task.arg}" if task.name == "copy_back" else f"token_at p={task.arg}"


def format_bench(result: BenchResult) -> str:
    """The bench as a text table: accuracy in whole percentages ("–": length refused).

    Examples
    --------
    >>> result = run_bench([("RoPE", "rope_adjacent")], [("copy_back", 1)], length=6,
    ...                    factors=(1,), steps=2, n_samples=2)
    >>> format_bench(result).splitlines()[1].split()[-4:]
    ['extra', 'params', 'position', 'direction']
    """
    if not isinstance(result, BenchResult):
        raise TypeError(f"result must be a BenchResult, got {_show(result)}")
    width = 5 * len(result.lengths)
    head = f"{'':16}" + "".join(f"{'':3}{_task_label(t):^{width}}" for t in result.tasks)
    lengths = "".join(f"{n:5d}" for n in result.lengths)
    lines = [head.rstrip(),
             f"{'test length':16}" + "".join(f"{'':3}{lengths}" for _ in result.tasks)
             + "   extra params   position   direction"]
    for entry, acc, prop in zip(result.entries, result.accuracy, result.properties, strict=True):
        cells = "".join(
            f"{'':3}" + "".join("    –" if np.isnan(a) else f"{100 * a:5.0f}" for a in row)
            for row in acc)
        lines.append(f"{entry.label:16}{cells}{prop.extra_parameters:15d}   {prop.kind:10}"
                     f" {'yes' if prop.direction_aware else 'no'}")
    return "\n".join(lines)


@course_style
def plot_bench(result: BenchResult) -> Figure:
    """Accuracy against test length, one panel per task, one line per entry, with the
    order-blind ceiling dashed.

    Examples
    --------
    >>> result = run_bench([("RoPE", "rope_adjacent")], [("copy_back", 1)], length=6,
    ...                    factors=(1, 2), steps=2, n_samples=2)
    >>> [text.get_text() for text in plot_bench(result).legends[0].get_texts()]
    ['RoPE', 'order-blind limit']
    """
    if not isinstance(result, BenchResult):
        raise TypeError(f"result must be a BenchResult, got {_show(result)}")
    figure = plt.figure(figsize=WIDE_FIGSIZE, layout="constrained")
    axes = figure.subplots(1, len(result.tasks), sharey=True, squeeze=False)[0]
    for c, (ax, task) in enumerate(zip(axes, result.tasks, strict=True)):
        for r, entry in enumerate(result.entries):
            values = 100 * result.accuracy[r, c]
            lone = np.isfinite(values).sum() == 1  # a learned table: one point, drawn larger
            ax.plot(result.lengths, values, marker="s" if lone else "o",
                    markersize=10 if lone else 6, color=f"C{r % 10}", label=entry.label)
        ax.plot(result.lengths, 100 * result.baseline[c], linestyle="--", color="0.4",
                label="order-blind limit")
        ax.set_xscale("log", base=2)
        ax.set_xticks(result.lengths, [str(n) for n in result.lengths])
        ax.minorticks_off()
        ax.set_xlabel("test length (trained at the first)")
        ax.set_title(_task_label(task))
    axes[0].set_ylabel("accuracy (%)")
    axes[0].set_ylim(0, 105)
    figure.legend(handles=axes[0].lines, loc="outside right center", fontsize=10)
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
    figsize = (10.0, 5.4)

    def __init__(self, n_positions: int = 16) -> None:
        self.n = check_int("n_positions", n_positions, minimum=4)
        if self.n > 64:
            raise ValueError(f"n_positions must be at most 64, got {self.n}")
        step = self.n + 1  # one blank cell between blocks
        self.corners = [(row * step, col * step) for row in range(2) for col in range(4)]
        self.shape = (2 * step - 1, 4 * step - 1)

    def build(self, axes) -> SimpleNamespace:
        limit = (self.n - 1) / 2
        data = axes.imshow(np.zeros(self.shape), cmap=diverging_cmap(), vmin=-limit,
                           vmax=limit, interpolation="nearest")
        # Grey future keys and blank blocks are an opaque layer on top, not NaN cells: every
        # value the figure holds stays finite, so two drawings of it compare equal.
        cover = axes.imshow(np.zeros((*self.shape, 4)), interpolation="nearest")
        labels = [axes.text(left + self.n - 1, top, "", ha="right", va="top", fontsize=10)
                  for top, left in self.corners]
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
        art.axes.title.set_text(f"ALiBi, {n_heads} head{'s' * (n_heads > 1)}: bias −m·(i − j); "
                                f"colour from {-(n - 1) / 2:g} (blue) to 0 (white)")

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

    controls = {
        "num_buckets": even_control("buckets", 32, 4, 64),
        "max_distance": int_control("max distance", 128, 40, 512, 8),
    }
    grid = (2, 1)
    figsize = (9.0, 6.0)
    subplot_kw = {"sharex": True}

    def __init__(self, max_offset: int = 300) -> None:
        self.max_offset = check_int("max_offset", max_offset, minimum=16)
        if self.max_offset > 1000:
            raise ValueError(f"max_offset must be at most 1000, got {self.max_offset}")
        self.offsets = np.arange(-self.max_offset, self.max_offset + 1)

    def build(self, axes) -> SimpleNamespace:
        steps, edges = [], []
        for ax in axes:
            (line,) = ax.plot(self.offsets, np.zeros(self.offsets.size), drawstyle="steps-mid")
            steps.append(line)
            edges.append([ax.axvline(0.0, color="0.4", linestyle="--", linewidth=1.2)
                          for _ in range(2)])
            ax.set_ylabel("bucket")
            ax.set_xlim(-self.max_offset, self.max_offset)
        axes[1].set_xlabel("offset j − i (key minus query)")
        return SimpleNamespace(axes=list(axes), steps=steps, edges=edges)

    def update(self, art: SimpleNamespace, num_buckets: int, max_distance: int) -> None:
        for ax, line, edges, bidirectional in zip(art.axes, art.steps, art.edges,
                                                  (True, False), strict=True):
            buckets = t5_relative_bucket(self.offsets, bidirectional=bidirectional,
                                         num_buckets=num_buckets, max_distance=max_distance)
            line.set_ydata(buckets)
            for edge, x in zip(edges, (-max_distance, max_distance), strict=True):
                edge.set_xdata([x, x])
            ax.set_ylim(-1, num_buckets)
            half = num_buckets // 2 if bidirectional else num_buckets
            mode = "bidirectional" if bidirectional else "causal"
            per = f"{half} per sign" if bidirectional else f"{half} buckets"
            ax.title.set_text(f"{mode}: {per}, exact for distance < {half // 2}")

    def moving(self, art: SimpleNamespace) -> list:
        return [*art.steps, *(e for pair in art.edges for e in pair),
                *(ax.title for ax in art.axes)]


# --- exercises -------------------------------------------------------------------------------

_BUCKET_CASES = ((True, 32, 128), (False, 32, 128), (True, 16, 64), (False, 16, 64))
_OFFSETS = np.arange(-300, 301)


def check_t5_bucket(bucket: Callable) -> Feedback:
    """Lesson 09, exercise 1: ``bucket(relative_position, bidirectional, num_buckets,
    max_distance)`` must equal :func:`~pe_helpers.biases.t5_relative_bucket` on the offsets
    -300 .. 300, both modes, for (32, 128) and (16, 64).

    Examples
    --------
    >>> check_t5_bucket(lambda r, b, n, m: t5_relative_bucket(
    ...     r, bidirectional=b, num_buckets=n, max_distance=m)).status
    'correct'
    """

    def matches(attempt: Callable) -> str | None:
        for bidirectional, num_buckets, max_distance in _BUCKET_CASES:
            case = (f"bidirectional={bidirectional}, num_buckets={num_buckets}, "
                    f"max_distance={max_distance}")
            got = as_array(attempt(_OFFSETS.copy(), bidirectional, num_buckets, max_distance),
                           f"your buckets for {case}", shape=_OFFSETS.shape)
            want = t5_relative_bucket(_OFFSETS, bidirectional=bidirectional,
                                      num_buckets=num_buckets, max_distance=max_distance)
            if np.array_equal(got, want):
                continue
            wrong = _OFFSETS[got != want]
            slip = _bucket_slip(got, bidirectional, num_buckets, max_distance)
            return (f"for {case} your buckets differ at {wrong.size} offsets (first: "
                    f"{wrong[0]}, bucket {got[_OFFSETS == wrong[0]][0]:g} instead of "
                    f"{want[_OFFSETS == wrong[0]][0]}). {slip}")
        return None

    return grade(
        "T5 buckets",
        bucket,
        [matches],
        "per side: distances below num_buckets // 2 keep their own bucket; larger ones get "
        "max_exact + floor(log(d / max_exact) / log(max_distance / max_exact) * (n - max_exact)),"
        " at most n - 1 (n: the buckets of one side, max_exact = n // 2).",
        call=(_OFFSETS.copy(), True, 32, 128),
    )


def _reference(rel: np.ndarray, bidirectional: bool, n: int, max_distance: int, *,
               upper=lambda r: r > 0, halve: bool = True, clamp: bool = True,
               causal_distance=lambda r: -np.minimum(r, 0), rounding=np.floor) -> np.ndarray:
    """The bucket rule with one step changeable, to recognise a learner's slip."""
    base = np.zeros(rel.shape, dtype=np.int64)
    if bidirectional:
        n = n // 2 if halve else n
        base = base + upper(rel) * n
        distance = np.abs(rel)
    else:
        distance = causal_distance(rel)
    exact = n // 2
    with np.errstate(divide="ignore"):
        scaled = (np.log(np.maximum(distance, 1) / exact) / np.log(max_distance / exact)
                  * (n - exact))
    large = exact + rounding(scaled).astype(np.int64)
    if clamp:
        large = np.minimum(large, n - 1)
    return base + np.where(distance < exact, distance, large)


def _bucket_slip(got: np.ndarray, bidirectional: bool, n: int, max_distance: int) -> str:
    slips = (
        (dict(upper=lambda r: r >= 0), "Offset 0 belongs to the lower half: only keys after "
         "the query (j - i > 0) go to the upper buckets."),
        (dict(halve=False), "When bidirectional, each sign gets num_buckets // 2 buckets: "
         "halve num_buckets before splitting exact and log-spaced ones."),
        (dict(clamp=False), "Distances past max_distance must all share the last bucket: "
         "clamp with np.minimum(..., n - 1)."),
        (dict(causal_distance=np.abs), "In causal mode a key after the query (j - i > 0) is "
         "never seen: those offsets all go to bucket 0; the distance is -min(j - i, 0)."),
        (dict(rounding=np.round), "The log-spaced part is truncated (floor, or int()), not "
         "rounded."),
    )
    for change, message in slips:
        if np.array_equal(got, _reference(_OFFSETS, bidirectional, n, max_distance, **change)):
            return message
    if np.array_equal(got, _reference(-_OFFSETS, bidirectional, n, max_distance)):
        return ("Your buckets are mirrored: relative_position is key minus query (j - i), "
                "so a key before the query has a negative offset.")
    return "Compare your function with the rule in the hint, one offset at a time."


#: The four panels of exercise 2, and which method made each.
_PANELS = {"A": "t5_bias", "B": "learned", "C": "rope", "D": "alibi"}
_NAMES = {
    "t5_bias": ("t5", "t5bias", "t5relativebias", "t5buckets", "buckets", "t5relative"),
    "learned": ("learned", "learnedabsolute", "absolute", "learnedposition",
                "learnedpositionembedding", "absolutelearned"),
    "rope": ("rope", "rotary", "ropeadjacent", "ropehalves", "rotarypositionembedding"),
    "alibi": ("alibi", "linearbias", "linearbiases", "attentionwithlinearbiases"),
}
_HINTS = {
    "t5_bias": "each diagonal has one colour, but the colours follow no formula, and far "
    "from the diagonal several neighbouring diagonals share one colour.",
    "learned": "the colours do not repeat along the diagonals: the score depends on where "
    "each of the two positions is, not on their offset.",
    "rope": "each diagonal has one colour, and the colour swings up and down as the offset "
    "grows, like a sum of waves.",
    "alibi": "it is symmetric and darkens in a straight line with |i - j|.",
}


def mystery_matrices(n_positions: int = 24) -> dict[str, np.ndarray]:
    """The four position matrices of exercise 2 (one head each), by panel letter.

    One is a T5 bias from a random table (16 buckets, max distance 32, bidirectional), one
    a learned absolute table's position-position term through random ``W_Q, W_K``, one a
    RoPE score of one query and one key at every pair of positions, one an ALiBi head
    (slope 1/4, without a mask).

    Examples
    --------
    >>> sorted(mystery_matrices(8))
    ['A', 'B', 'C', 'D']
    """
    n = check_int("n_positions", n_positions, minimum=4)
    if n > MAX_POSITIONS:
        raise ValueError(f"n_positions must be at most {MAX_POSITIONS}, got {n}")
    rng = np.random.default_rng(9)
    d = 16
    table = rng.normal(size=(16, 1))
    positions = rng.normal(size=(n, d))
    w_q, w_k = rng.normal(size=(2, d, d)) / np.sqrt(d)
    q, k = rng.normal(size=(2, d))
    made = {
        "t5_bias": t5_bias(table, n, bidirectional=True, max_distance=32)[0],
        "learned": (positions @ w_q) @ (positions @ w_k).T / np.sqrt(d),
        "rope": apply_rope(np.tile(q, (n, 1)), base=100.0)
        @ apply_rope(np.tile(k, (n, 1)), base=100.0).T,
        "alibi": alibi_bias(n, slopes=[0.25])[0],
    }
    return {panel: made[method] for panel, method in _PANELS.items()}


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
        ax.imshow(values, cmap=diverging_cmap(), vmin=-limit, vmax=limit,
                  interpolation="nearest")
        ax.set_title(panel)
        ax.set_xlabel("key j")
        ax.set_xticks([])
        ax.set_yticks([])
    figure.axes[0].set_ylabel("query i")
    return figure


def _method_of(name: object, panel: str) -> str:
    if not isinstance(name, str):
        raise AnswerProblem(f"panel {panel}: give a method's name as text, got {_show(name)}.")
    key = re.sub(r"[\s_\-]", "", name.lower())
    for method, names in _NAMES.items():
        if key in names:
            return method
    raise AnswerProblem(f"panel {panel}: {name!r} is not one of the four methods; answer with "
                        "'ALiBi', 'T5 bias', 'RoPE' or 'learned absolute'.")


def check_method_names(answer: object) -> Feedback:
    """Lesson 09, exercise 2: name the method behind each panel of
    :func:`plot_mystery_biases`, as ``{"A": "...", ..., "D": "..."}`` or a list in A-D order.

    Examples
    --------
    >>> check_method_names(["T5", "learned", "RoPE", "ALiBi"]).status
    'correct'
    >>> print(check_method_names({"A": "rope", "B": "learned", "C": "t5", "D": "alibi"}).message)
    2 of 4 panels are wrong. Panel A: each diagonal has one colour, but the colours follow no \
formula, and far from the diagonal several neighbouring diagonals share one colour.
    """

    def named(ans: object) -> str | None:
        if isinstance(ans, Mapping):
            given = {str(key).strip().upper(): value for key, value in ans.items()}
            missing = sorted(set(_PANELS) - set(given))
            if missing:
                return f"name every panel: {', '.join(missing)} missing."
        elif isinstance(ans, (list, tuple)) and len(ans) == len(_PANELS):
            given = dict(zip(_PANELS, ans, strict=True))
        else:
            return (f"answer with a dict {{'A': ..., 'D': ...}} or a list of four names, "
                    f"got {_show(ans)}.")
        methods = {panel: _method_of(given[panel], panel) for panel in _PANELS}
        wrong = [panel for panel in _PANELS if methods[panel] != _PANELS[panel]]
        if not wrong:
            return None
        first = wrong[0]
        return (f"{len(wrong)} of {len(_PANELS)} panels are wrong. Panel {first}: "
                f"{_HINTS[_PANELS[first]]}")

    values = answer.values() if isinstance(answer, Mapping) else answer
    if isinstance(values, (list, tuple, type({}.values()))) and all(v is None for v in values):
        answer = None  # the template, untouched
    return grade(
        "name the method",
        answer,
        [named],
        "look along the diagonals first (same colour: relative), then at how the colour "
        "changes with distance; relative_deviation(mystery_matrices()[panel]) measures the "
        "first.",
    )
