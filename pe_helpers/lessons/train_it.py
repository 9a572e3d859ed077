"""Lesson 08 · Position in a model you train.

The notebook ``notebooks/08_train_it.ipynb`` trains the one-layer attention model of
:mod:`pe_helpers.model` (trainer in :mod:`pe_helpers.training`, tasks in
:mod:`pe_helpers.tasks`) with each position method, tests it past its training length
and looks inside. What only this lesson needs lives here:

* measurements on trained models: :func:`accuracy_table` (accuracy per method and test
  length, NaN where a learned table refuses the length) and :func:`target_attention` (how
  much attention a query gives the key that holds its answer); :func:`format_accuracy_table`
  prints such a table in whole percentages (the order-blind guesses a NoPE model is compared
  with are :func:`pe_helpers.tasks.most_frequent_earlier`);
* the figures :func:`plot_extrapolation` (accuracy against test length, per method) and
  :class:`QueryAttention` (one query's attention row and the accuracy per position, under
  sliders for the test length, the query position and the method);
* the exercise checkers :func:`check_softmax_backward`, :func:`check_prefix_prediction` and
  :func:`check_nope_prediction`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from .._validate import _show, check_array, check_int
from ..figures import WIDE_FIGSIZE, course_style
from ..grading import AnswerProblem, Feedback, as_array, as_number, close, grade, tolerance
from ..live import LiveFigure, int_control
from ..model import ModelConfig, _softmax_backward, gradient_check
from ..tasks import Task, order_blind_accuracy, task_batch
from ..training import TrainedModel, train

__all__ = [
    "LESSON_METHODS",
    "MAX_MODELS",
    "MAX_TEST_LENGTH",
    "QueryAttention",
    "accuracy_table",
    "check_nope_prediction",
    "check_prefix_prediction",
    "check_softmax_backward",
    "format_accuracy_table",
    "plot_extrapolation",
    "target_attention",
]

#: The position methods the lesson compares, in the order of its tables.
LESSON_METHODS = ("none", "sinusoidal", "learned", "rope_adjacent")
#: Most models one table, figure or view takes.
MAX_MODELS = 6
#: Longest test sequence the helpers accept (and the end of the view's length slider).
MAX_TEST_LENGTH = 64
#: Longest sequence :func:`accuracy_table` and :func:`target_attention` evaluate.
MAX_LENGTH = 256
#: Most test sequences one evaluation draws.
MAX_SAMPLES = 2048
#: Seed of the test sequences (training draws from ``seed + 1`` = 1 by default).
TEST_SEED = 12345


def _bounded_int(name: str, value: object, minimum: int, maximum: int) -> int:
    value = check_int(name, value, minimum=minimum)
    if value > maximum:
        raise ValueError(f"{name} must be at most {maximum} (keeps it fast), got {value}")
    return value


def _check_models(models: object) -> dict[str, TrainedModel]:
    if not isinstance(models, Mapping) or not models:
        raise TypeError(
            f"models must be a non-empty dict of name -> TrainedModel, got {_show(models)}"
        )
    if len(models) > MAX_MODELS:
        raise ValueError(f"models may hold at most {MAX_MODELS} models, got {len(models)}")
    for name, model in models.items():
        if not isinstance(model, TrainedModel):
            raise TypeError(
                f"models[{name!r}] must be a TrainedModel (from train), got "
                f"{type(model).__name__}"
            )
    return {str(name): model for name, model in models.items()}


def _accuracies(name: str, values: object) -> np.ndarray:
    """A 1-D float array of accuracies where NaN (a refused length) is allowed, ±inf is not."""
    arr = np.asarray(values)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number) or np.iscomplexobj(arr):
        raise TypeError(f"{name} must be an array of accuracies, got {_show(values)}")
    arr = arr.astype(np.float64)
    if arr.ndim != 1 or arr.size == 0 or np.isinf(arr).any():
        raise ValueError(f"{name} must be a non-empty 1-D array without ±inf, got {_show(values)}")
    return arr


def _refuses(model: TrainedModel, length: int) -> bool:
    """Whether ``model`` cannot run sequences of ``length`` (a learned table too short)."""
    config = model.config
    return config.method == "learned" and length > config.max_len


def _target_keys(task: Task, length: int) -> np.ndarray:
    """The key holding each query's answer (-1 where a query has none)."""
    queries = np.arange(length)
    if task.name == "copy_back":
        keys = queries - task.arg
    else:
        keys = np.full(length, task.arg)
    return np.where(queries >= task.arg, keys, -1)


# --- training and measuring ---------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _default_models() -> dict[str, TrainedModel]:
    """The lesson's copy-back models (k = 1, L = 16), trained once per session."""
    return {method: train("copy_back", method, task_arg=1) for method in LESSON_METHODS}


def accuracy_table(
    models: Mapping[str, TrainedModel],
    lengths: Sequence[int],
    *,
    n_samples: int = 256,
    seed: int = TEST_SEED,
) -> dict[str, np.ndarray]:
    """Accuracy of each model on its own task at each test length.

    Parameters
    ----------
    models : dict of str to TrainedModel
        At most :data:`MAX_MODELS` models.
    lengths : sequence of int
        Test lengths, each 2 to :data:`MAX_LENGTH`.
    n_samples : int, default 256
        Test sequences per length, 1 to :data:`MAX_SAMPLES`.
    seed : int, default TEST_SEED
        Seed of the test sequences (not the training data's).

    Returns
    -------
    dict of str to numpy.ndarray
        One array of accuracies in [0, 1] per model, NaN where a learned table is
        shorter than the length (the model refuses it).

    Examples
    --------
    >>> models = {"learned": train("copy_back", "learned", length=4, steps=2)}
    >>> accuracy_table(models, [4, 8], n_samples=8)["learned"].tolist()[1]
    nan
    """
    models = _check_models(models)
    if isinstance(lengths, (str, bytes)) or not isinstance(lengths, Sequence) or not lengths:
        raise TypeError(f"lengths must be a non-empty list of integers, got {_show(lengths)}")
    lengths = [_bounded_int("lengths entry", n, 2, MAX_LENGTH) for n in lengths]
    n_samples = _bounded_int("n_samples", n_samples, 1, MAX_SAMPLES)
    return {
        name: np.array(
            [
                math.nan if _refuses(model, n) else model.accuracy(
                    length=n, n_samples=n_samples, seed=seed)
                for n in lengths
            ]
        )
        for name, model in models.items()
    }


def format_accuracy_table(
    rows: Mapping[str, ArrayLike], lengths: Sequence[int], *, train_length: int
) -> str:
    """Rows of accuracies (one per length, in [0, 1]) as whole percentages; NaN is ``refuses``.

    The header names each length as a multiple of ``train_length`` (``L``) when it is one.

    Examples
    --------
    >>> print(format_accuracy_table({"learned": [1.0, np.nan]}, [16, 32], train_length=16))
    method                 L = 16  2L = 32
    learned                  100%  refuses
    """
    train_length = check_int("train_length", train_length, minimum=1)
    lengths = [check_int("lengths entry", n, minimum=1) for n in lengths]

    def header(n: int) -> str:
        if n % train_length:
            return f"n = {n}"
        factor = n // train_length
        return f"{'' if factor == 1 else factor}L = {n}"

    heads = [header(n) for n in lengths]
    widths = [max(len(h), 7) for h in heads]
    lines = [f"{'method':<20}" + "".join(f"  {h:>{w}}" for h, w in zip(heads, widths, strict=True))]
    for label, values in rows.items():
        arr = _accuracies(f"rows[{label!r}]", values)
        if arr.size != len(lengths):
            raise ValueError(
                f"rows[{label!r}] must hold one value per length ({len(lengths)}), got {arr.size}"
            )
        cells = ["refuses" if math.isnan(v) else f"{round(100 * v)}%" for v in arr.tolist()]
        lines.append(
            f"{label:<20}" + "".join(f"  {c:>{w}}" for c, w in zip(cells, widths, strict=True))
        )
    return "\n".join(lines)


def target_attention(
    model: TrainedModel,
    length: int,
    queries: ArrayLike,
    *,
    n_samples: int = 128,
    seed: int = TEST_SEED,
) -> np.ndarray:
    """Share of attention the query gives the key that holds its answer.

    For each query position, the mean over test sequences of each head's weight on the
    target key (``t - k`` for copy_back, ``p`` for token_at), then the largest over heads:
    how sharply the best head looks at the right place.

    Parameters
    ----------
    model : TrainedModel
        A trained model (its own task decides the target key).
    length : int
        Test length, 2 to :data:`MAX_LENGTH` (not past a learned table's rows).
    queries : array_like of int
        Query positions, each with a target (``t >= k`` or ``t >= p``) and ``< length``.
    n_samples : int, default 128
        Test sequences, 1 to :data:`MAX_SAMPLES` // 2.
    seed : int, default TEST_SEED
        Seed of the test sequences.

    Returns
    -------
    numpy.ndarray
        One share in [0, 1] per query.

    Examples
    --------
    >>> model = train("copy_back", "none", length=4, steps=2)
    >>> target_attention(model, 4, [1, 3], n_samples=4).shape
    (2,)
    """
    if not isinstance(model, TrainedModel):
        raise TypeError(f"model must be a TrainedModel (from train), got {type(model).__name__}")
    length = _bounded_int("length", length, 2, MAX_LENGTH)
    n_samples = _bounded_int("n_samples", n_samples, 1, MAX_SAMPLES // 2)
    positions = check_array("queries", queries, ndim=1)
    if not np.issubdtype(positions.dtype, np.integer):
        raise TypeError(f"queries must hold integer positions, got dtype {positions.dtype}")
    targets = _target_keys(model.task, length)
    bad = [int(t) for t in positions if not 0 <= t < length or targets[t] < 0]
    if bad:
        raise ValueError(
            f"queries must lie in {model.task.arg} .. {length - 1} (positions with an answer "
            f"for {model.task.name} {model.task.arg}), got {bad}"
        )
    batch = task_batch(model.task, n_samples, length, model.config.vocab_size, seed=seed)
    weights = model.attention(batch.tokens)  # (B, H, n, n); refuses lengths past a table
    shares = weights[:, :, positions, targets[positions]].mean(axis=0)  # (H, queries)
    return shares.max(axis=0)


# --- figures --------------------------------------------------------------------------------

_MARKERS = ("o", "s", "D", "^", "v", "P")


@course_style
def plot_extrapolation(
    tables: Mapping[str, Mapping[str, ArrayLike]],
    lengths: Sequence[int],
    *,
    train_length: int,
    limits: Mapping[str, ArrayLike] | None = None,
) -> Figure:
    """Accuracy against test length, one panel per task and one line per method.

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

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> tables = {"copy back": {"rope": [1.0, 0.9], "learned": [1.0, np.nan]}}
    >>> figure = plot_extrapolation(tables, [16, 32], train_length=16)
    >>> [text.get_text() for text in figure.legends[0].get_texts()]
    ['rope', 'learned (× = refuses)']
    """
    if not isinstance(tables, Mapping) or not tables or len(tables) > 3:
        raise TypeError(f"tables must be a dict of 1 to 3 task panels, got {_show(tables)}")
    xs = check_array("lengths", lengths, ndim=1).astype(np.float64)
    if xs.min() <= 0:
        raise ValueError(f"lengths must be > 0 (log axis), got minimum {xs.min():g}")
    train_length = check_int("train_length", train_length, minimum=1)
    limits = {} if limits is None else dict(limits)
    figure = plt.figure(figsize=WIDE_FIGSIZE, layout="constrained")
    axes = figure.subplots(1, len(tables), sharey=True, squeeze=False)[0]
    for ax, (title, rows) in zip(axes, tables.items(), strict=True):
        if not isinstance(rows, Mapping) or not rows or len(rows) > MAX_MODELS:
            raise TypeError(
                f"tables[{title!r}] must be a dict of 1 to {MAX_MODELS} method -> accuracies"
            )
        for index, (method, values) in enumerate(rows.items()):
            ys = _accuracies(f"tables[{title!r}][{method!r}]", values)
            if ys.shape != xs.shape:
                raise ValueError(f"tables[{title!r}][{method!r}] needs one value per length")
            refused = np.isnan(ys)
            label = f"{method} (× = refuses)" if refused.any() else str(method)
            marker = _MARKERS[index % len(_MARKERS)]
            ax.plot(xs, 100 * ys, color=f"C{index}", marker=marker, markersize=7, label=label)
            if refused.any():
                ax.plot(xs[refused], np.zeros(refused.sum()), color=f"C{index}", marker="x",
                        markersize=10, markeredgewidth=2.5, linestyle="none")
        if title in limits:
            ys = check_array(f"limits[{title!r}]", limits[title], ndim=1).astype(np.float64)
            ax.plot(xs, 100 * ys, color="0.4", linestyle="--", label="order-blind limit")
        ax.axvline(train_length, color="0.6", linestyle=":", linewidth=1.5)
        ax.set_xscale("log", base=2)
        ax.set_xticks(xs, [f"{x:g}" for x in xs])
        ax.minorticks_off()
        ax.set_ylim(-4, 104)
        ax.set_xlabel(f"test length (trained at L = {train_length})")
        ax.set_title(str(title))
    axes[0].set_ylabel("accuracy (%)")
    handles, labels = axes[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncols=len(labels),
                  fontsize="small")
    return figure


class QueryAttention(LiveFigure):
    """Where one query of each trained model looks, and how often the model is right.

    Left: the attention weights of the query at position *query* over the keys of one
    test sequence of length *length*, one line per head, for the model picked by
    *method*; the dashed line marks the key that holds the answer, the shaded band the
    positions past the training length. Right: that model's accuracy at every position
    of sequences of this length (the dashed grey line is the order-blind limit per
    position), with the query marked. A learned table refuses lengths past its rows and
    says so. Training happens before, never on a slider step; accuracies are computed
    once per (method, length) and kept. A step of the query or the method redraws only
    what moves; a step of the length also rescales the x axes.

    Parameters
    ----------
    models : dict of str to TrainedModel, optional
        1 to 4 models trained on one task, at one training length (at most
        :data:`MAX_TEST_LENGTH`), with one vocabulary and one number of heads (at most 4).
        Default: the lesson's copy-back models (k = 1, L = 16), trained once per session.
    n_samples : int, default 128
        Test sequences per accuracy, 8 to 1024.

    Examples
    --------
    >>> figure = QueryAttention().draw(length=32, query=20, method=3)
    >>> figure.axes[0].get_title()
    'rope_adjacent: query 20 of 32 (answer at key 19)'
    """

    controls = {
        "length": int_control("test length", 32, 4, MAX_TEST_LENGTH, 4),
        "query": int_control("query position", 20, 0, MAX_TEST_LENGTH - 1),
        "method": int_control("method (0–3)", 3, 0, 3),
    }
    figsize = WIDE_FIGSIZE
    grid = (1, 2)

    def __init__(
        self, models: Mapping[str, TrainedModel] | None = None, n_samples: int = 128
    ) -> None:
        models = _default_models() if models is None else _check_models(models)
        if len(models) > 4:
            raise ValueError(f"models may hold at most 4 models (the method slider), got "
                             f"{len(models)}")
        first = next(iter(models.values()))
        for name, model in models.items():
            same = (model.task, model.length, model.config.vocab_size, model.config.n_heads)
            want = (first.task, first.length, first.config.vocab_size, first.config.n_heads)
            if same != want:
                raise ValueError(
                    f"models must share task, training length, vocab_size and n_heads; "
                    f"models[{name!r}] has {same}, the first has {want}"
                )
        if first.length > MAX_TEST_LENGTH:
            raise ValueError(
                f"the models' training length must be at most {MAX_TEST_LENGTH}, got {first.length}"
            )
        if first.config.n_heads > 4:
            raise ValueError(f"models may have at most 4 heads, got {first.config.n_heads}")
        self.models = models
        self.names = list(models)
        self.task = first.task
        self.train_length = first.length
        self.n_heads = first.config.n_heads
        self.vocab_size = first.config.vocab_size
        self.n_samples = _bounded_int("n_samples", n_samples, 8, 1024)
        self.tokens = task_batch(
            self.task, 1, MAX_TEST_LENGTH, self.vocab_size, seed=TEST_SEED + 1
        ).tokens[0]
        self._accuracy: dict[tuple[str, int], np.ndarray] = {}
        self._limits: dict[int, np.ndarray] = {}

    def _per_position(self, name: str, length: int) -> np.ndarray:
        key = (name, length)
        if key not in self._accuracy:
            model = self.models[name]
            if _refuses(model, length) or length <= self.task.arg:
                self._accuracy[key] = np.full(length, np.nan)
            else:
                self._accuracy[key] = model.accuracy(
                    length=length, n_samples=self.n_samples, per_position=True)
        return self._accuracy[key]

    def _limit(self, length: int) -> np.ndarray:
        if length not in self._limits:
            if length <= self.task.arg:
                self._limits[length] = np.full(length, np.nan)
            else:
                self._limits[length] = order_blind_accuracy(
                    self.task, length, self.vocab_size, causal=True, n_samples=512,
                    per_position=True)
        return self._limits[length]

    def build(self, axes) -> SimpleNamespace:
        row_ax, acc_ax = axes
        for ax in axes:
            ax.axvspan(self.train_length - 0.5, MAX_TEST_LENGTH - 0.5, color="0.92", zorder=0)
        heads = [
            row_ax.plot([], [], color=f"C{h}", marker="o", markersize=3, label=f"head {h + 1}")[0]
            for h in range(self.n_heads)
        ]
        target = row_ax.axvline(0, color="0.3", linestyle="--", linewidth=1.5,
                                label="key with the answer")
        row_ax.set_ylim(0, 1.3)
        row_ax.set_yticks([0, 0.25, 0.5, 0.75, 1])
        row_ax.set_xlabel(f"key position (shaded: past L = {self.train_length})")
        row_ax.set_ylabel("attention weight")
        row_ax.legend(loc="upper center", ncols=self.n_heads + 1, fontsize="small")
        note = row_ax.text(0.5, 0.5, "", transform=row_ax.transAxes, ha="center", va="center")
        (accuracy,) = acc_ax.plot([], [], color="C0", marker="o", markersize=3,
                                  label="this model")
        (limit,) = acc_ax.plot([], [], color="0.4", linestyle="--", label="order-blind limit")
        query = acc_ax.axvline(0, color="C3", linewidth=1.5, label="the query")
        acc_ax.set_ylim(0, 130)
        acc_ax.set_yticks([0, 25, 50, 75, 100])
        acc_ax.set_xlabel("query position")
        acc_ax.set_ylabel("accuracy (%)")
        acc_ax.legend(loc="upper center", ncols=3, fontsize="small")
        return SimpleNamespace(row_ax=row_ax, acc_ax=acc_ax, heads=heads, target=target,
                               note=note, accuracy=accuracy, limit=limit, query=query)

    def update(self, art: SimpleNamespace, length: int, query: int, method: int) -> None:
        # Lines get only the points that exist (never NaN), so snapshots compare exactly.
        name = self.names[min(method, len(self.names) - 1)]
        model = self.models[name]
        query = min(query, length - 1)
        target = int(_target_keys(self.task, length)[query])
        keys = np.arange(length)
        refused = _refuses(model, length)
        if refused:
            rows = np.empty((self.n_heads, 0))
            keys = keys[:0]
            art.note.set_text(f"{name}: the table has {model.config.max_len} rows;\n"
                              f"it refuses length {length}")
        else:
            rows = model.attention(self.tokens[:length])[:, query]
            art.note.set_text("")
        for line, row in zip(art.heads, rows if rows.size else [[]] * self.n_heads,
                             strict=True):
            line.set_data(keys, row)
        art.target.set_xdata([max(target, 0)] * 2)
        art.target.set_visible(target >= 0)
        answer = f"answer at key {target}" if target >= 0 else "no answer yet"
        art.row_ax.title.set_text(f"{name}: query {query} of {length} ({answer})")
        per_position = self._per_position(name, length)
        scored = ~np.isnan(per_position)
        art.accuracy.set_data(np.arange(length)[scored], 100 * per_position[scored])
        limit = self._limit(length)
        known = ~np.isnan(limit)
        art.limit.set_data(np.arange(length)[known], 100 * limit[known])
        art.query.set_xdata([query, query])
        for ax in (art.row_ax, art.acc_ax):
            ax.set_xlim(-0.5, length - 0.5)
        if refused:
            summary = "refuses this length"
        else:
            summary = f"{round(100 * float(per_position[scored].mean()))}% right on average"
        art.acc_ax.title.set_text(f"{name} at length {length}: {summary}")

    def moving(self, art: SimpleNamespace) -> list:
        return [*art.heads, art.target, art.note, art.row_ax.title, art.accuracy, art.limit,
                art.query, art.acc_ax.title]


# --- exercise checkers ----------------------------------------------------------------------


def check_softmax_backward(softmax_backward: Callable) -> Feedback:
    """Lesson 08, exercise 1: the gradient through a row-wise softmax, then the model's.

    ``softmax_backward(weights, grad_weights)`` must return ``dL/ds`` from ``a = softmax(s)``
    (rows along the last axis, masked entries 0) and ``g = dL/da``. Checked on a batch of
    attention-shaped arrays, then plugged into the model's backward pass and compared with
    finite differences by :func:`pe_helpers.model.gradient_check`.

    Examples
    --------
    >>> check_softmax_backward(lambda a, g: a * (g - (g * a).sum(-1, keepdims=True))).status
    'correct'
    """
    rng = np.random.default_rng(8)
    scores = rng.normal(size=(2, 2, 5, 5)) * 2.0
    scores = np.where(np.tril(np.ones((5, 5), dtype=bool)), scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    grad_weights = rng.normal(size=weights.shape)
    want = _softmax_backward(weights, grad_weights)
    config = ModelConfig("rope_adjacent", vocab_size=4, d_model=4, n_heads=1)
    found: dict[str, float] = {}

    def on_a_batch(attempt: Callable) -> str | None:
        what = "your result"
        got = as_array(attempt(weights, grad_weights), what, shape=weights.shape)
        found["tolerance"] = tolerance(got)
        if close(got, want, scale=1.0):
            return None
        return _softmax_slip(got, weights, grad_weights)

    def in_the_model(attempt: Callable) -> str | None:
        def learner(a: np.ndarray, g: np.ndarray) -> np.ndarray:
            got = as_array(attempt(a, g), "your result inside the model", shape=a.shape)
            return got.astype(np.float64)

        errors = gradient_check(config, length=4, softmax_backward=learner)
        worst = max(errors, key=errors.get)
        limit = 1e-6 if found["tolerance"] <= 1e-9 else 1e-3
        if errors[worst] > limit:
            return (
                f"right on the test batch, but inside the model the gradient of {worst} is off "
                f"by {errors[worst]:.1e} (relative) from finite differences."
            )
        return None

    return grade(
        "softmax backward",
        softmax_backward,
        [on_a_batch, in_the_model],
        "dL/ds = a * (g - (g * a).sum(axis=-1, keepdims=True)): each score moves every weight "
        "of its row.",
        call=(weights, grad_weights),
    )


def _softmax_slip(got: np.ndarray, a: np.ndarray, g: np.ndarray) -> str:
    """The message for a wrong softmax gradient: the slip it matches, or a general one."""
    slips = [
        (a * g, "you returned a * g: the softmax couples a row, so also subtract the weighted "
                "row sum, a * (g - Σ_j g_j a_j)."),
        (a * (1 - a) * g, "you kept only the diagonal of the Jacobian, a_k (1 - a_k); each "
                          "s_k also lowers every other weight of its row."),
        (a * (g - (g * a).sum(axis=-2, keepdims=True)),
         "you summed over the queries (axis -2); the row sum runs over the keys: axis=-1."),
        (a * (g - (g * a).sum()), "you summed over the whole array; sum each row "
                                  "(axis=-1, keepdims=True)."),
        (a * (g - g.sum(axis=-1, keepdims=True)), "the row sum must weight g by a: "
                                                  "Σ_j g_j a_j, not Σ_j g_j."),
        (-_softmax_backward(a, g), "the sign is flipped: dL/ds = a * (g - Σ_j g_j a_j)."),
        (g, "you returned g unchanged: multiply by the softmax's Jacobian."),
    ]
    for expected, message in slips:
        if close(got, expected, scale=1.0):
            return message
    return "your gradient differs from a * (g - Σ_j g_j a_j) on a batch of attention rows."


_PREFIX_CHOICES = {"same": "same", "a": "same", "lower": "lower", "b": "lower",
                   "higher": "higher", "c": "higher"}


def check_prefix_prediction(prediction: object) -> Feedback:
    """Lesson 08, exercise 2: a causal model's outputs before position L on a 4L sequence.

    ``prediction`` is ``"same"`` (a), ``"lower"`` (b) or ``"higher"`` (c): how its accuracy at
    positions ``0 .. L - 1`` compares with the same sequences cut to length L.

    Examples
    --------
    >>> check_prefix_prediction("same").status
    'correct'
    >>> check_prefix_prediction("lower").status
    'wrong'
    """

    def answer(value: object) -> str | None:
        if not isinstance(value, str):
            raise AnswerProblem(
                f"your prediction must be text: 'same', 'lower' or 'higher', got {_show(value)}."
            )
        choice = _PREFIX_CHOICES.get(value.strip().lower().strip("().'\""))
        if choice is None:
            raise AnswerProblem(
                f"your prediction must be 'same', 'lower' or 'higher' (or a, b, c), got "
                f"{value!r}."
            )
        if choice != "same":
            return (
                f"'{choice}' is not it: with the causal mask, position t attends to keys 0 .. t "
                "only, so nothing after it can change its output — whatever the length."
            )
        return None

    return grade(
        "prediction: the first L positions",
        prediction,
        [answer],
        "which keys can the query at position 5 see when the sequence is 64 tokens long?",
    )


def check_nope_prediction(percent: object) -> Feedback:
    """Lesson 08, exercise 3: the NoPE copy-back model's accuracy at 8L = 128, in percent.

    Correct within 3.5 points of the order-blind limit at length 128 (vocabulary 16, causal
    mask), which is what the trained NoPE model reaches; the value at 4L = 64 (the last one
    the lesson's table shows) is a slip with its own hint.

    Examples
    --------
    >>> check_nope_prediction(15).status
    'correct'
    >>> check_nope_prediction(6).message[:12]
    'that is 1/16'
    """
    limit = 100 * order_blind_accuracy("copy_back", 2 * MAX_TEST_LENGTH, 16, causal=True)
    at_4l = 100 * order_blind_accuracy("copy_back", MAX_TEST_LENGTH, 16, causal=True)

    def answer(value: object) -> str | None:
        guess = as_number(value, "your prediction")
        if 0 < guess < 1:
            return f"give a percentage (0 to 100), not a fraction: {guess:g} is {100 * guess:g}%?"
        if not 0 <= guess <= 100:
            return f"an accuracy in percent lies between 0 and 100, got {guess:g}."
        if abs(guess - limit) <= 3.5:
            return None
        if abs(guess - at_4l) <= 1.5:
            return (
                f"that is about the value at 4L = 64 ({at_4l:.0f}%). At 128 tokens the prefix "
                "holds more candidates still, so the most frequent one is right less often."
            )
        if abs(guess - 100 / 16) <= 2:
            return (
                "that is 1/16, blind guessing over the vocabulary. The model does better: the "
                "answer is one of the earlier tokens, and it picks the most frequent of them."
            )
        if guess > 50:
            return (
                "too high: NoPE has no position signal, so it cannot find the token one place "
                "back; it can only guess the most frequent earlier token."
            )
        if guess > limit:
            return (
                "too high: the longer the prefix, the more distinct tokens it holds, and the "
                "less often 'the most frequent earlier token' is the right one."
            )
        return "too low: the most frequent earlier token is right more often than that."

    return grade(
        "prediction: NoPE at 8L",
        percent,
        [answer],
        "section 3 showed that NoPE answers the most frequent earlier token; "
        "order_blind_accuracy tells how often that is right at length 128.",
    )
