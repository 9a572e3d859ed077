"""Lesson 09 · The family of position methods: the map's data, the measurements and the bench.

See :mod:`pe_helpers.lessons.position_methods` for the lesson's overview.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

from ..._validate import check_choice, check_int
from ...attention import relative_deviation
from ...biases import alibi_bias, t5_bias, t5_relative_bucket
from ...i18n import translate
from ...model import CONTENT_METHODS, METHODS, ModelConfig, Tables, forward_pass, init_params
from ...rope import apply_rope
from ...seeds import SeedResults, spread_table
from ...tasks import Task, make_task, order_blind_accuracy
from ...training import TrainedModel, length_key, train

__all__ = [
    "POSITION_MAP",
    "SEED_EXPERIMENTS",
    "bench_metrics",
    "format_bench",
    "last_query_attention",
    "map_kind",
    "method_properties",
    "mystery_matrices",
    "run_bench",
    "seed_range",
    "t5_table_facts",
    "term_kind",
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
    MapEntry(
        "sinusoidal",
        "Vaswani et al. 2017",
        ("eᵢWeⱼ", "eᵢWpⱼ", "pᵢWeⱼ", "pᵢWpⱼ"),
        _ABS,
        "sinusoidal",
    ),
    MapEntry(
        "learned absolute",
        "Devlin et al. 2019",
        ("eᵢWeⱼ", "eᵢWpⱼ", "pᵢWeⱼ", "pᵢWpⱼ"),
        _ABS,
        "learned",
    ),
    MapEntry(
        "Shaw relative",
        "Shaw et al. 2018",
        ("eᵢWeⱼ", "eᵢW_Q a[clip(j−i)]", "—", "—"),
        ("content only", "relative, learned", _GONE, _GONE),
        None,
    ),
    MapEntry(
        "Transformer-XL",
        "Dai et al. 2019",
        ("eᵢW_Q W_E eⱼ", "eᵢW_Q W_R r(i−j)", "u W_E eⱼ", "v W_R r(i−j)"),
        ("content only", "relative, fixed", "content only", "relative, fixed"),
        None,
    ),
    MapEntry(
        "T5 bias",
        "Raffel et al. 2020",
        ("eᵢWeⱼ", "—", "—", "b_h[bucket(j−i)]"),
        ("content only", _GONE, _GONE, "relative, learned"),
        "t5_bias",
    ),
    MapEntry(
        "DeBERTa",
        "He et al. 2021",
        ("eᵢW_Q W_K eⱼ", "eᵢW_Q K_r[δ(i,j)]", "Q_r[δ(j,i)] W_K eⱼ", "—"),
        ("content only", "relative, learned", "relative, learned", _GONE),
        None,
    ),
    MapEntry(
        "TUPE-A",
        "Ke et al. 2021",
        ("eᵢW_Q W_K eⱼ", "—", "—", "pᵢU_Q U_K pⱼ"),
        ("content only", _GONE, _GONE, "absolute"),
        None,
    ),
    MapEntry(
        "ALiBi",
        "Press et al. 2022",
        ("eᵢWeⱼ", "—", "—", "−m_h (i − j)"),
        ("content only", _GONE, _GONE, "relative, fixed"),
        "alibi",
    ),
    MapEntry(
        "RoPE",
        "Su et al. 2021",
        ("eᵢW_Q R(j−i) W_K eⱼ", "—", "—", "—"),
        ("relative, fixed", _GONE, _GONE, _GONE),
        "rope_adjacent",
    ),
    MapEntry(
        "NoPE",
        "Kazemnejad et al. 2023",
        ("eᵢWeⱼ", "—", "—", "—"),
        ("content only", _GONE, _GONE, _GONE),
        "none",
    ),
)


#: An absolute position vector in a formula (pᵢ, pⱼ), and an offset or a relative index
#: (i − j, j − i, DeBERTa's δ(i, j)).
_ABSOLUTE_SYMBOL = re.compile(r"p[ᵢⱼ]")
_RELATIVE_SYMBOL = re.compile(r"[ij] ?− ?[ij]|δ\(")


def term_kind(formula: str) -> str:
    """What a term of the map depends on, read from the symbols of its formula alone.

    "dropped" for "—"; "absolute" with ``pᵢ`` or ``pⱼ``; "relative" with an offset (``i − j``,
    ``j − i``) or DeBERTa's ``δ(i, j)``; otherwise "content only".

    Examples
    --------
    >>> [term_kind(f) for f in ("eᵢWeⱼ", "eᵢWpⱼ", "b_h[bucket(j−i)]", "—")]
    ['content only', 'absolute', 'relative', 'dropped']
    """
    if not isinstance(formula, str):
        raise TypeError(f"formula must be a string, got {type(formula).__name__}")
    if formula.strip() == "—":
        return "dropped"
    if _ABSOLUTE_SYMBOL.search(formula):
        return "absolute"
    if _RELATIVE_SYMBOL.search(formula):
        return "relative"
    return "content only"


def map_kind(entry: MapEntry) -> str:
    """What the map says a method's scores depend on, as :func:`method_properties` measures it.

    "absolute" if any term is absolute, else "relative" if any term is relative, else "none"
    (only content–content is left).

    Examples
    --------
    >>> [map_kind(e) for e in POSITION_MAP if e.name in ("TUPE-A", "RoPE", "NoPE")]
    ['absolute', 'relative', 'none']
    """
    if not isinstance(entry, MapEntry):
        raise TypeError(f"entry must be a MapEntry of POSITION_MAP, got {type(entry).__name__}")
    coarse = [role.split(",")[0] for role in entry.roles]
    if "absolute" in coarse:
        return "absolute"
    return "relative" if "relative" in coarse else "none"


# --- measurements on the trainer's models ----------------------------------------------------

#: Longest sequence the measurements build score matrices for.
MAX_POSITIONS = 256


def same_token_scores(
    params: dict, config: ModelConfig, n_positions: int, token: int = 0
) -> np.ndarray:
    """Attention scores (before the mask and the softmax) of ``token`` repeated ``n`` times.

    Whatever differs between entries is the position method's work (Toeplitz: relative).
    Returns shape ``(n_heads, n, n)``: ``q_i · k_j / sqrt(d_head)`` plus any bias.

    Examples
    --------
    >>> config = ModelConfig("alibi", vocab_size=4, d_model=8, n_heads=2)
    >>> s = same_token_scores(init_params(config), config, 5)
    >>> s.shape, relative_deviation(s[0]) < 1e-12
    ((2, 5, 5), True)
    """
    assert config.method not in CONTENT_METHODS, "their scores depend on the content's gates"
    n = n_positions
    tables = Tables(config, n)
    _, cache = forward_pass(params, config, np.full((1, n), token), tables)
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
MAX_MODEL_OPTIONS = {
    "d_model": 256,
    "n_heads": 32,
    "d_head": 256,
    "num_buckets": 256,
    "max_len": MAX_POSITIONS,
}


def _check_model_options(options: Mapping) -> dict:
    """The model options, with every size bounded so nothing can hang or fill memory."""
    for name, limit in MAX_MODEL_OPTIONS.items():
        if options.get(name) is not None:
            check_int(name, options[name], minimum=1, maximum=limit)
    return dict(options)


def method_properties(
    method: str, n_positions: int = 16, seed: int = 0, **model_options
) -> MethodProperties:
    """Measure a position method on a freshly initialised model without a mask.

    The model sees one token repeated ``n_positions`` times (:func:`same_token_scores`); a
    T5 table, which starts at zero, is filled with random numbers first. Then:

    * ``kind``: "none" if every score is the same, "relative" if every head's matrix is
      Toeplitz (``relative_deviation`` below 1e-9), else "absolute";
    * ``direction_aware``: the score matrix is not symmetric;
    * ``extra_parameters``: trainable numbers beyond a "none" model of the same shape.

    ``n_positions`` is 2 to :data:`MAX_POSITIONS`; model options are bounded by
    ``MAX_MODEL_OPTIONS``.

    Examples
    --------
    >>> method_properties("alibi").kind, method_properties("t5_bias").direction_aware
    ('relative', True)
    >>> method_properties("learned", n_positions=16).extra_parameters  # 16 rows of 32
    512
    """
    n = check_int("n_positions", n_positions, minimum=2, maximum=MAX_POSITIONS)
    model_options = _check_model_options(model_options)
    # lesson 14's content methods score by their gates: not measurable on one repeated token
    position_only = tuple(m for m in METHODS if m not in CONTENT_METHODS)
    if check_choice("method", method, position_only) == "learned":
        model_options.setdefault("max_len", n)
    config = ModelConfig(method, vocab_size=2, causal=False, **model_options)
    seed = check_int("seed", seed, minimum=0)
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
    baseline = dataclasses.replace(config, method="none", max_len=None)

    def count(c: ModelConfig) -> int:
        return sum(int(np.prod(shape)) for shape in c.param_shapes().values())

    return MethodProperties(
        config.method, kind, deviation, asymmetry > 1e-9 * scale, count(config) - count(baseline)
    )


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

#: The bench's tasks: copy-back by 1 (a fixed offset) and the token at position 0 (a fixed
#: position).
BENCH_TASKS: tuple[tuple[str, int], ...] = (("copy_back", 1), ("token_at", 0))

#: Most models one bench trains (entries x tasks), and the longest test sequence.
MAX_MODELS = 16
MAX_TEST_LENGTH = 128
#: Most steps x training length over all of a bench's models (the lesson's: 44,800), and
#: most test tokens over all of its evaluations (the lesson's: 401,408).
MAX_TRAINING, MAX_TEST_TOKENS = 2**17, 2**21


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
    seed: int = 0

    @property
    def length(self) -> int:
        """The training length ``L``."""
        return self.models[0][0].length


def _train_entry(
    entry: BenchEntry, task: Task, *, length: int = 16, steps: int = 200, seed: int = 0
) -> TrainedModel:
    """One model of the bench: ``entry``'s method and options trained on ``task``."""
    return train(task, entry.method, length=length, steps=steps, seed=seed, **dict(entry.options))


def run_bench(
    entries: Sequence = BENCH,
    tasks: Sequence = BENCH_TASKS,
    *,
    length: int = 16,
    factors: Sequence[int] = (1, 2, 4),
    steps: int = 200,
    seed: int = 0,
    n_samples: int = 256,
) -> BenchResult:
    """Train every entry on every task (length ``L``) and test at ``factor * L``.

    Parameters
    ----------
    entries : sequence of BenchEntry or (label, method[, options])
        The rows. Entries x tasks x steps x ``L`` is at most :data:`MAX_TRAINING`, entries x
        tasks x ``n_samples`` x the test lengths' sum at most :data:`MAX_TEST_TOKENS`.
    tasks : sequence of (name, argument) or Task
        The columns.
    length : int, default 16
        Training length ``L``, 2 .. 32.
    factors : sequence of int, default (1, 2, 4)
        Test lengths as multiples of ``L`` (at most 128 tokens).
    steps, seed, n_samples : int
        Adam steps (<= 1000), the seed of every model, test sequences per length (<= 2048).
        Model options are bounded by ``MAX_MODEL_OPTIONS``.

    Examples
    --------
    >>> result = run_bench([("RoPE", "rope_adjacent")], [("copy_back", 1)], length=6,
    ...                    factors=(1, 2), steps=3, n_samples=4)
    >>> result.accuracy.shape, result.lengths
    ((1, 1, 2), (6, 12))
    """
    rows = tuple(_bench_entry(e, f"entries[{i}]") for i, e in enumerate(_items("entries", entries)))
    columns = tuple(_bench_task(t, f"tasks[{i}]") for i, t in enumerate(_items("tasks", tasks)))
    if not rows or not columns or len(rows) * len(columns) > MAX_MODELS:
        raise ValueError(f"entries x tasks must be 1 .. {MAX_MODELS} models, got {len(rows)}")
    length = check_int("length", length, minimum=2, maximum=32)
    lengths = tuple(
        check_int("factors entry", f, minimum=1) * length for f in _items("factors", factors)
    )
    if not lengths or max(lengths) > MAX_TEST_LENGTH:
        raise ValueError(f"factors must give test lengths up to {MAX_TEST_LENGTH}, got {lengths}")
    steps = check_int("steps", steps, minimum=1, maximum=1000)
    n_samples = check_int("n_samples", n_samples, minimum=1, maximum=2048)
    seed = check_int("seed", seed, minimum=0)
    # measured first: every entry's options are refused before any training
    properties = tuple(method_properties(e.method, length, seed, **dict(e.options)) for e in rows)
    models = len(rows) * len(columns)
    if (
        models * steps * length > MAX_TRAINING
        or models * n_samples * sum(lengths) > MAX_TEST_TOKENS
    ):
        raise ValueError(
            f"entries x tasks x steps x length must be at most {MAX_TRAINING:,}, entries x tasks "
            f"x n_samples x the test lengths' sum at most {MAX_TEST_TOKENS:,}"
        )
    accuracy = np.full((len(rows), len(columns), len(lengths)), np.nan)
    models = []
    for r, entry in enumerate(rows):
        trained = []
        for c, task in enumerate(columns):
            model = _train_entry(entry, task, length=length, steps=steps, seed=seed)
            trained.append(model)
            for k, n in enumerate(lengths):
                if entry.method != "learned" or n <= model.config.max_len:
                    accuracy[r, c, k] = model.accuracy(length=n, n_samples=n_samples)
        models.append(tuple(trained))
    baseline = np.array(
        [[order_blind_accuracy(t, n, 16, causal=True) for n in lengths] for t in columns]
    )
    return BenchResult(rows, columns, lengths, accuracy, properties, baseline, tuple(models), seed)


def _items(name: str, value: object) -> tuple:
    """A list or tuple (not text), as a tuple; the callers refuse an empty one."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"{name} must be a list, got {type(value).__name__}")
    return tuple(value)


def _bench_entry(entry: object, name: str) -> BenchEntry:
    """A BenchEntry, or ``(label, method[, options])`` as one."""
    if not isinstance(entry, BenchEntry):
        if not isinstance(entry, (tuple, list)) or len(entry) not in (2, 3):
            raise TypeError(f"{name} must be a BenchEntry or (label, method[, options])")
        entry = BenchEntry(*entry)
    if not isinstance(entry.label, str):
        raise TypeError(f"{name}: the label must be text, got {type(entry.label).__name__}")
    check_choice(f"{name}: the method", entry.method, METHODS)
    if not isinstance(entry.options, Mapping):
        raise TypeError(f"{name}: the options must be a dict, got {type(entry.options).__name__}")
    return entry


def _bench_task(task: object, name: str) -> Task:
    """A Task, or ``(name, argument)`` as one."""
    task = (task,) if isinstance(task, Task) else task
    if not isinstance(task, (tuple, list)) or len(task) not in (1, 2):
        raise TypeError(f"{name} must be a Task or (name, argument), got {type(task).__name__}")
    try:
        return make_task(*task)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{name}: {exc}") from None


def task_label(task: Task) -> str:
    return f"copy_back k={task.arg}" if task.name == "copy_back" else f"token_at p={task.arg}"


def entry_key(entry: BenchEntry) -> str:
    """An entry's name in the metric names of the results file: its method, then its options
    (``"alibi_8heads"`` for ALiBi with ``n_heads=8``).

    Examples
    --------
    >>> [entry_key(entry) for entry in BENCH[3:6]]
    ['rope_adjacent', 'alibi', 'alibi_8heads']
    """
    parts = [entry.method] + [
        f"{value}heads" if option == "n_heads" else f"{option}{value}"
        for option, value in sorted(dict(entry.options).items())
    ]
    return "_".join(parts)


def metric_names(result: BenchResult) -> list[list[list[str | None]]]:
    """``[entry][task][length]`` -> the cell's metric name in the "bench" group (None where a
    learned table refuses the length)."""
    names = [
        [
            [
                None
                if np.isnan(a)
                else f"{task.name}.{entry_key(entry)}.{length_key(n, result.length)}"
                for a, n in zip(row, result.lengths, strict=True)
            ]
            for task, row in zip(result.tasks, acc, strict=True)
        ]
        for entry, acc in zip(result.entries, result.accuracy, strict=True)
    ]
    flat = [name for entry in names for task in entry for name in task if name is not None]
    if len(set(flat)) != len(flat):
        raise ValueError("entries: two cells of the bench have one metric name")
    return names


def bench_metrics(result: BenchResult) -> dict[str, float]:
    """Every accuracy of a bench as a named share in [0, 1]: ``"copy_back.rope_adjacent.2L"``
    (task, :func:`entry_key`, test length as a multiple of ``L``). A length a learned table
    refuses has no metric.

    These are the metrics of the results file's "bench" group (``"bench." + name``).

    Examples
    --------
    >>> result = run_bench([("RoPE", "rope_adjacent")], [("copy_back", 1)], length=6,
    ...                    factors=(1, 2), steps=2, n_samples=4)
    >>> sorted(bench_metrics(result))
    ['copy_back.rope_adjacent.2L', 'copy_back.rope_adjacent.L']
    """
    if not isinstance(result, BenchResult):
        raise TypeError(f"result must be a BenchResult, got {type(result).__name__}")
    names = metric_names(result)
    return {
        name: float(a)
        for entry_names, acc in zip(names, result.accuracy, strict=True)
        for task_names, row in zip(entry_names, acc, strict=True)
        for name, a in zip(task_names, row, strict=True)
        if name is not None
    }


def seed_range(spread: SeedResults, name: str) -> str:
    """The lowest to the highest value of a metric over the seeds, in whole percent:
    ``'82–100%'``, or one number where both round alike (``'6%'``).

    Examples
    --------
    >>> spread = SeedResults("demo", (0, 1), {"g.a": np.array([0.82, 1.0]),
    ...                                       "g.b": np.array([0.061, 0.064])})
    >>> seed_range(spread, "g.a"), seed_range(spread, "g.b")
    ('82–100%', '6%')
    """
    if not isinstance(spread, SeedResults):
        raise TypeError(f"spread must be SeedResults (load_results), got {type(spread).__name__}")
    if not isinstance(name, str) or name not in spread.values:
        raise ValueError(f"name must be a metric of spread, got {name!r:.80}")
    low, high = (f"{100 * v:.0f}" for v in (spread.low(name), spread.high(name)))
    return f"{low}%" if low == high else f"{low}–{high}%"


def format_bench(result: BenchResult, spread: SeedResults | None = None) -> str:
    """The bench as a text table: accuracy in whole percentages ("–": length refused).

    With ``spread`` (the lesson's results over seeds), a table per task follows: the lowest
    and the highest accuracy of each cell over the seeds.

    Parameters
    ----------
    result : BenchResult
        A bench from :func:`run_bench`.
    spread : SeedResults, optional
        The results over seeds, holding a "bench" group of :func:`bench_metrics` for every
        cell the bench fills.

    Examples
    --------
    >>> result = run_bench([("RoPE", "rope_adjacent")], [("copy_back", 1)], length=6,
    ...                    factors=(1,), steps=2, n_samples=2)
    >>> text = format_bench(result)
    >>> text.splitlines()[0], text.splitlines()[2].split()[-4:]
    ('this run (seed 0), accuracy in %', ['extra', 'params', 'position', 'direction'])
    >>> spread = SeedResults("demo", (0, 1), {"bench.copy_back.rope_adjacent.L":
    ...                                          np.array([0.5, 0.75])})
    >>> [line.split() for line in format_bench(result, spread).splitlines()[-2:]]
    [['copy_back', 'k=1', 'L', '=', '6'], ['RoPE', '50–75']]
    """
    if not isinstance(result, BenchResult):
        raise TypeError(f"result must be a BenchResult, got {type(result).__name__}")
    if spread is not None and not isinstance(spread, SeedResults):
        raise TypeError(f"spread must be SeedResults (load_results), got {type(spread).__name__}")
    span = 5 * len(result.lengths)  # each cell 5 characters wide
    head = f"{'':16}" + "".join(f"{'':3}{task_label(t):^{span}}" for t in result.tasks)
    lengths = "".join(f"{n:5d}" for n in result.lengths)
    lines = [
        f"this run (seed {result.seed}), accuracy in %",
        head.rstrip(),
        f"{'test length':16}"
        + f"{'':3}{lengths}" * len(result.tasks)
        + "   extra params   position   direction",
    ]
    for entry, acc, prop in zip(result.entries, result.accuracy, result.properties, strict=True):
        cells = "".join(
            f"{'':3}" + "".join("    –" if np.isnan(a) else f"{100 * a:5.0f}" for a in row)
            for row in acc
        )
        lines.append(
            f"{entry.label:16}{cells}{prop.extra_parameters:15d}   {prop.kind:10}"
            f" {'yes' if prop.direction_aware else 'no'}"
        )
    if spread is None:
        return translate("\n".join(lines))
    names = metric_names(result)
    missing = [n for e in names for t in e for n in t if n and f"bench.{n}" not in spread.values]
    if missing:
        raise ValueError(f"spread holds no metric 'bench.{missing[0]}' (the lesson's bench only)")
    heads = [f"{length_key(n, result.length)} = {n}" for n in result.lengths]
    lines += ["", f"over {len(spread.seeds)} seeds, lowest–highest accuracy in %"]
    for c, task in enumerate(result.tasks):
        rows = {}
        for entry, entry_names in zip(result.entries, names, strict=True):
            filled = [k for k, n in enumerate(entry_names[c]) if n]
            rows[entry.label] = band = np.full((3, len(heads)), np.nan)  # low, median, high
            band[:, filled] = spread.band([f"bench.{entry_names[c][k]}" for k in filled])
        lines += [""] * (c > 0) + [spread_table(task_label(task), heads, rows)]
    return translate("\n".join(lines))


# --- inside the trained T5 model (section 6) --------------------------------------------------


def _check_t5_copy_model(model: TrainedModel) -> TrainedModel:
    """A trained causal T5-bias model of copy_back, or a named error."""
    if not isinstance(model, TrainedModel):
        raise TypeError(f"model must be a TrainedModel, got {type(model).__name__}")
    if model.config.method != "t5_bias" or not model.config.causal:
        raise ValueError(f"model must be a causal t5_bias model, got {model.config.method!r}")
    if model.task.name != "copy_back":
        raise ValueError(f"model must be trained on copy_back, got {model.task.name!r}")
    return model


def t5_table_facts(model: TrainedModel) -> dict[str, float]:
    """What a trained causal T5 table of copy_back holds, as numbers (flags are 1.0 or 0.0).

    In training the queries see the keys ``0 .. L - 1`` places back, so only those distances'
    buckets are *reached*; the target is ``k`` places back (copy_back's argument).

    Parameters
    ----------
    model : TrainedModel
        A causal ``t5_bias`` model trained on copy_back (the bench's T5 entry).

    Returns
    -------
    dict of str -> float
        ``"argmax_one_back"``: every head's largest bias is at the target's bucket;
        ``"seen_negative"``: every other reached bucket is negative in every head;
        ``"highest_other_seen"``: the largest bias among those other reached buckets;
        ``"untrained_zero"``: every bucket never reached still holds exactly 0.

    Examples
    --------
    >>> model = train("copy_back", "t5_bias", length=6, steps=30)
    >>> facts = t5_table_facts(model)
    >>> sorted(facts), facts["untrained_zero"]
    (['argmax_one_back', 'highest_other_seen', 'seen_negative', 'untrained_zero'], 1.0)
    """
    model = _check_t5_copy_model(model)
    config, table = model.config, model.params["t5_bias"]  # (buckets, heads)

    sizes = {"num_buckets": config.num_buckets, "max_distance": config.max_distance}
    target = int(t5_relative_bucket(-model.task.arg, bidirectional=False, **sizes))
    reached = np.unique(t5_relative_bucket(-np.arange(model.length), bidirectional=False, **sizes))
    others = np.setdiff1d(reached, [target])
    never = np.setdiff1d(np.arange(config.num_buckets), reached)
    return {
        "argmax_one_back": float((table.argmax(axis=0) == target).all()),
        "seen_negative": float((table[others] < 0).all()),
        "highest_other_seen": float(table[others].max()),
        "untrained_zero": float((table[never] == 0).all()),
    }


def last_query_attention(
    model: TrainedModel,
    lengths: Sequence[int] = (16, 32, 64),
    *,
    n_sequences: int = 128,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Where the last query of a copy_back model looks, at each test length.

    The last query's attention, averaged over ``n_sequences`` random sequences (drawn from
    ``seed``, up to 2048) and the heads, summed on the target key (``k`` places back) and on
    the keys ``L`` (the training length) or more places back: ``near, far``, one share per
    length. ``model`` is a causal ``t5_bias`` model of copy_back; ``lengths`` run from
    ``k + 1`` to 128.

    Examples
    --------
    >>> model = train("copy_back", "t5_bias", length=6, steps=2)
    >>> near, far = last_query_attention(model, (6, 12), n_sequences=4)
    >>> near.shape, float(far[0])
    ((2,), 0.0)
    """
    model = _check_t5_copy_model(model)
    shift = model.task.arg
    lengths = [check_int("lengths entry", n, minimum=shift + 1) for n in _items("lengths", lengths)]
    if not lengths or max(lengths) > MAX_TEST_LENGTH:
        raise ValueError(f"lengths must hold lengths up to {MAX_TEST_LENGTH}, got {lengths}")
    check_int("n_sequences", n_sequences, minimum=1, maximum=2048)
    rng = np.random.default_rng(check_int("seed", seed, minimum=0))
    tokens = rng.integers(0, model.config.vocab_size, size=(n_sequences, max(lengths)))
    near, far = [], []
    for n in lengths:
        # (sequences, heads, queries, keys) -> the last query's row, averaged: (keys,)
        last = model.attention(tokens[:, :n]).mean(axis=(0, 1))[-1]
        near.append(last[-1 - shift])
        far.append(last[: max(n - model.length, 0)].sum())
    return np.array(near), np.array(far)


def _bench_experiment(seed: int) -> dict[str, float]:
    """Section 5's bench, as the notebook runs it, for one seed."""
    return bench_metrics(run_bench(seed=seed))


def _t5_experiment(seed: int) -> dict[str, float]:
    """Section 6's measurements of the bench's T5 model of copy_back, for one seed."""
    entry = next(e for e in BENCH if e.method == "t5_bias")
    model = _train_entry(entry, make_task(*BENCH_TASKS[0]), seed=seed)
    near, far = last_query_attention(model)
    return {
        **t5_table_facts(model),
        **{f"near.{key}": float(v) for key, v in zip(("L", "2L", "4L"), near, strict=True)},
        **{f"far.{key}": float(v) for key, v in zip(("2L", "4L"), far[1:], strict=True)},
        "near_falls": float(near[0] > near[1] > near[2]),
        "far_rises": float(far[0] < far[1] < far[2]),
    }


#: The models whose numbers the notebook states, by notebook cell: group -> function of a
#: seed returning named floats (``scripts/experiments.py`` runs them over the seeds).
SEED_EXPERIMENTS = {"bench": _bench_experiment, "t5": _t5_experiment}


#: The four panels of exercise 2, and which method made each.
PANELS = {"A": "t5_bias", "B": "learned", "C": "rope", "D": "alibi"}


def mystery_matrices(n_positions: int = 24) -> dict[str, np.ndarray]:
    """The four position matrices of exercise 2 (one head each), by panel letter.

    A T5 bias of a random table (16 buckets, max distance 32, bidirectional), a random
    learned table's position-position term, a RoPE score of one query and one key at every
    pair of positions, an ALiBi head (slope 1/4, no mask).

    Examples
    --------
    >>> sorted(mystery_matrices(8))
    ['A', 'B', 'C', 'D']
    """
    n = check_int("n_positions", n_positions, minimum=4, maximum=MAX_POSITIONS)
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
    return {panel: made[method] for panel, method in PANELS.items()}
