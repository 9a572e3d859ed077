"""Lesson 09 · The family of position methods: the map's data, the measurements and the bench.

See :mod:`pe_helpers.lessons.position_methods` for the lesson's overview.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

from ..._validate import _show, check_int
from ...attention import relative_deviation
from ...biases import alibi_bias, t5_bias
from ...model import ModelConfig, _check_config, _check_params, _forward, _Tables, init_params
from ...rope import apply_rope
from ...tasks import Task, make_task, order_blind_accuracy
from ...training import TrainedModel, train

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


#: The four panels of exercise 2, and which method made each.
_PANELS = {"A": "t5_bias", "B": "learned", "C": "rope", "D": "alibi"}


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
