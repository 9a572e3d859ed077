"""Lesson 10 · Stretching RoPE to longer contexts: the methods and what their frequencies do.

See :mod:`pe_helpers.lessons.long_context` for the lesson's overview.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..._validate import check_array, check_choice, check_int, check_real
from ...i18n import translate
from ...model import MAX_ATTENTION_FACTOR
from ...rope_scaling import default_frequencies, ntk_aware_base, rope_frequencies
from ...seeds import SeedResults, spread_table
from ...training import TrainedModel, check_lengths, length_key, train

__all__ = [
    "SEED_EXPERIMENTS",
    "aligned_scores",
    "dynamic_key_angles",
    "fine_tuned",
    "fine_tuned_accuracies",
    "format_seed_table",
    "method_frequencies",
    "outside_spread",
    "rope_block",
    "rotate",
    "stretched",
    "stretched_accuracies",
]

#: The methods compared: plain RoPE and five ways to stretch it.
METHODS = ("RoPE", "PI", "NTK-aware", "dynamic NTK", "YaRN", "Llama 3")
#: Most distances :func:`aligned_scores` evaluates, most numbers :func:`rotate` returns, and
#: the widest head the methods take.
MAX_DISTANCES, MAX_ELEMENTS, MAX_HEAD_DIM = 100_000, 2**24, 1024
#: Largest ``rope_theta`` the methods take (published bases are 1e4 to 1e7).
MAX_THETA = 1e12
#: Most methods x test lengths' sum :func:`stretched_accuracies` tests (the lesson's: 672),
#: most methods x (steps x length + test lengths' sum) :func:`fine_tuned_accuracies` runs
#: (the lesson's: 3,600).
MAX_TEST_LENGTHS, MAX_FINE_TUNING = 4096, 200_000


# --- the methods --------------------------------------------------------------------------------


def rope_block(
    method: str,
    factor: float,
    original: int,
    *,
    rope_theta: float = 10000.0,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
) -> dict[str, Any]:
    """The ``rope_parameters`` block of a transformers config for ``method``.

    Parameters
    ----------
    method : str
        One of :data:`METHODS` except "NTK-aware", which has no ``rope_type`` of its own
        (transformers has only its dynamic form; :func:`method_frequencies` computes it).
    factor : float
        The context factor ``s``, >= 1.
    original : int
        ``L0`` (``original_max_position_embeddings``) for YaRN and Llama 3; "dynamic NTK" reads
        its reference length from ``max_position_embeddings``, outside the block.
    rope_theta : float, default 10000.0
        The base ``b``, in ``(1, MAX_THETA]``.
    beta_fast, beta_slow : float, default 32 and 1
        YaRN's bounds, in rotations within ``L0`` (> 0); checked for every method, read by YaRN.

    Examples
    --------
    >>> rope_block("Llama 3", 8, 8192, rope_theta=500000.0)["rope_type"]
    'llama3'
    """
    method = check_choice("method", method, METHODS)
    factor = check_real("factor", factor, minimum=1.0)
    original = check_int("original", original, minimum=1)
    theta = check_real("rope_theta", rope_theta, positive=True)
    if not 1 < theta <= MAX_THETA:
        raise ValueError(f"rope_theta must lie in (1, {MAX_THETA:g}] (a RoPE base), got {theta!r}")
    beta_fast = check_real("beta_fast", beta_fast, positive=True)
    beta_slow = check_real("beta_slow", beta_slow, positive=True)
    if method == "RoPE":
        return {"rope_type": "default", "rope_theta": theta}
    if method == "NTK-aware":
        raise ValueError("method 'NTK-aware' has no rope_type of its own: use method_frequencies")
    rope_type = {"PI": "linear", "dynamic NTK": "dynamic", "YaRN": "yarn", "Llama 3": "llama3"}
    block = {"rope_type": rope_type[method], "rope_theta": theta, "factor": factor}
    if method == "YaRN":
        block.update(
            original_max_position_embeddings=original, beta_fast=beta_fast, beta_slow=beta_slow
        )
    if method == "Llama 3":
        block.update(  # Llama 3.1's band edges (Meta's apply_scaling)
            low_freq_factor=1.0, high_freq_factor=4.0, original_max_position_embeddings=original
        )
    return block


def method_frequencies(
    method: str,
    head_dim: int,
    factor: float,
    original: int,
    *,
    rope_theta: float = 10000.0,
    length: int | None = None,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
) -> tuple[np.ndarray, float]:
    """Per-pair frequencies and attention factor of ``method`` for a head of ``head_dim``.

    Arguments as in :func:`rope_block`; ``head_dim`` is even, 2 to 1024; ``length`` is the
    current sequence length (>= 1, default ``original``), read by "dynamic NTK" only (its
    reference length is ``original``, standing for the config's ``max_position_embeddings``).

    Examples
    --------
    >>> inv, att = method_frequencies("NTK-aware", 4, 2.0, 16, rope_theta=100.0)
    >>> inv.round(6).tolist(), att
    ([1.0, 0.05], 1.0)
    """
    ntk = check_choice("method", method, METHODS) == "NTK-aware"
    options = {"rope_theta": rope_theta, "beta_fast": beta_fast, "beta_slow": beta_slow}
    # rope_block checks every argument; NTK-aware has no block: RoPE's is checked
    block = rope_block("RoPE" if ntk else method, factor, original, **options)
    head_dim = check_int("head_dim", head_dim, minimum=2, maximum=MAX_HEAD_DIM)
    length = original if length is None else check_int("length", length, minimum=1)
    if ntk:
        base = ntk_aware_base(block["rope_theta"], head_dim, factor)
        return default_frequencies(base, head_dim), 1.0
    return rope_frequencies(block, head_dim, max_position_embeddings=original, seq_len=length)


def check_attention_factor(value: object) -> float:
    """The checked ``attention_factor``, in ``(0, MAX_ATTENTION_FACTOR]``."""
    factor = check_real("attention_factor", value, positive=True)
    if factor > MAX_ATTENTION_FACTOR:
        raise ValueError(f"attention_factor must be at most {MAX_ATTENTION_FACTOR:g}, got {factor}")
    return factor


def rotate(x: ArrayLike, angles: ArrayLike, attention_factor: float = 1.0) -> np.ndarray:
    """Rotate each adjacent pair ``(2i, 2i + 1)`` of ``x`` by ``angles[..., i]``, then scale.

    With ``angles = position * inv_freq`` this is lesson 08's "rope_adjacent" with any
    frequencies; ``attention_factor`` (in ``(0, 100]``) multiplies cos and sin, as YaRN's does.
    ``x`` has shape ``(..., d)``, ``d`` even; ``angles`` broadcasts to ``(..., d // 2)``; the
    result holds at most :data:`MAX_ELEMENTS` numbers.

    Examples
    --------
    >>> rotate([1.0, 0.0], [np.pi / 2]).round(12).tolist()
    [0.0, 1.0]
    """
    x = check_array("x", x, min_ndim=1).astype(np.float64)
    if x.shape[-1] % 2:
        raise ValueError(f"x must have an even last axis (pairs), got {x.shape[-1]}")
    angles = check_array("angles", angles).astype(np.float64)
    pairs = x[..., ::2].shape
    try:
        shape = np.broadcast_shapes(pairs, angles.shape)
    except ValueError:
        shape = None
    if shape is None or shape[-1] != pairs[-1]:
        raise ValueError(f"angles {angles.shape} must broadcast to x's pairs {pairs}") from None
    if math.prod(shape) * 2 > MAX_ELEMENTS:
        raise ValueError(f"x and angles would give more than {MAX_ELEMENTS:,} numbers")
    factor = check_attention_factor(attention_factor)
    angles = np.broadcast_to(angles, shape)
    # each adjacent pair (x_2i, x_2i+1) turned by its angle, then scaled: (..., d)
    cos, sin = factor * np.cos(angles), factor * np.sin(angles)
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty((*shape[:-1], x.shape[-1]))
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


def aligned_scores(
    inv_freq: ArrayLike, distances: ArrayLike, attention_factor: float = 1.0
) -> np.ndarray:
    """Score of an all-ones query and key ``distances`` apart, divided by the width ``d``.

    ``m² · mean_i cos(θ_i Δ)`` with ``m`` the attention factor: 1 at distance 0 without one.
    (Lesson 07's aligned score, normalised.)

    Examples
    --------
    >>> aligned_scores([1.0, 0.5], [0.0, np.pi]).round(4).tolist()
    [1.0, -0.5]
    """
    inv_freq = check_array("inv_freq", inv_freq, ndim=1).astype(np.float64)
    if inv_freq.size > MAX_HEAD_DIM // 2:
        raise ValueError(
            f"inv_freq may have at most {MAX_HEAD_DIM // 2} pairs, got {inv_freq.size}"
        )
    distances = check_array("distances", distances, ndim=1).astype(np.float64)
    if distances.size > MAX_DISTANCES:
        raise ValueError(f"distances may have at most {MAX_DISTANCES} entries")
    attention_factor = check_attention_factor(attention_factor)
    # m² mean_i cos(θ_i Δ) per distance
    return attention_factor**2 * np.cos(np.multiply.outer(distances, inv_freq)).mean(axis=-1)


def dynamic_key_angles(
    key_positions: ArrayLike,
    current_length: int,
    head_dim: int,
    factor: float,
    max_position_embeddings: int,
    *,
    rope_theta: float = 10000.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Angles of cached keys under dynamic NTK: as cached, and as the current step rotates.

    In token-by-token generation the key at ``n`` is rotated once, with the base of length
    ``n + 1``, and cached. Returns ``cached`` and ``current``, each of shape
    ``(len(key_positions), head_dim // 2)`` (at most 4096 keys): ``n θ_i(base at n + 1)`` and
    ``n θ_i(base at current_length)``.

    Examples
    --------
    >>> cached, current = dynamic_key_angles([3], 8, 4, 2.0, 4)
    >>> bool(cached[0, 1] > current[0, 1]), float(cached[0, 0] - current[0, 0])
    (True, 0.0)
    """
    positions = check_array("key_positions", key_positions, ndim=1)
    if not np.issubdtype(positions.dtype, np.integer) or positions.min() < 0:
        raise ValueError("key_positions must be whole numbers >= 0")
    original = check_int("max_position_embeddings", max_position_embeddings, minimum=1)
    if positions.size > 4096:
        raise ValueError(f"key_positions may have at most 4096 entries, got {positions.size}")
    current_length = check_int("current_length", current_length, minimum=1)
    if positions.max() >= current_length:
        raise ValueError(f"key_positions must be below current_length {current_length}")

    def at(length: int) -> np.ndarray:
        frequencies, _ = method_frequencies(
            "dynamic NTK", head_dim, factor, original, rope_theta=rope_theta, length=length
        )
        return frequencies

    current = at(current_length)  # checks every argument before the loop
    cached = np.array([n * at(n + 1) for n in positions.tolist()])
    return cached, np.multiply.outer(positions.astype(np.float64), current)


# --- lesson 08's model with new frequencies -----------------------------------------------------


def _model_frequencies(model: object, method: str, factor: float, **options) -> tuple:
    """``method``'s frequencies for a lesson 08 RoPE model, ``L0`` its training length."""
    if not isinstance(model, TrainedModel) or model.config.method != "rope_adjacent":
        raise TypeError(f"model must be a 'rope_adjacent' TrainedModel, got {type(model).__name__}")
    config = model.config
    return method_frequencies(
        method, config.d_head, factor, model.length, rope_theta=config.base, **options
    )


def stretched(
    model: TrainedModel,
    method: str,
    factor: float,
    *,
    length: int | None = None,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
) -> TrainedModel:
    """The same weights with ``method``'s frequencies, ``L0`` being the training length.

    ``length`` is the test length, needed by "dynamic NTK" only (its base depends on it).

    Examples
    --------
    >>> model = train("copy_back", "rope_adjacent", length=8, vocab_size=4, steps=2)
    >>> stretched(model, "PI", 2.0).config.inv_freq[0]
    0.5
    """
    inv, att = _model_frequencies(
        model, method, factor, length=length, beta_fast=beta_fast, beta_slow=beta_slow
    )
    return model.replace(inv_freq=inv, attention_factor=att)


def _check_fine_tuning(length: object, steps: object) -> int:
    """The fine-tuning length (2 to 1024), after checking the steps (1 to 2000)."""
    check_int("steps", steps, minimum=1, maximum=2000)
    return check_int("length", length, minimum=2, maximum=1024)


def fine_tuned(
    model: TrainedModel,
    method: str,
    factor: float,
    *,
    length: int,
    steps: int,
    seed: int = 1,
) -> TrainedModel:
    """Train ``model`` ``steps`` more Adam steps at ``length`` with ``method``'s frequencies.

    Everything else as the model was trained; ``seed`` picks the fine-tuning data (as
    :func:`~pe_helpers.training.train`'s); ``length`` is 2 to 1024, ``steps`` 1 to 2000.

    Over seeds, pass the model's own seed plus one (``train(seed=s)`` then
    ``fine_tuned(..., seed=s + 1)``), as the lesson and :data:`SEED_EXPERIMENTS` do.

    Examples
    --------
    >>> model = train("copy_back", "rope_adjacent", length=8, vocab_size=4, steps=2)
    >>> fine_tuned(model, "YaRN", 2.0, length=16, steps=1).length
    16
    """
    length = _check_fine_tuning(length, steps)
    inv, att = _model_frequencies(model, method, factor, length=length)
    kept = ("vocab_size", "d_model", "n_heads", "d_head", "causal", "residual", "base")
    options = {name: getattr(model.config, name) for name in kept}
    options |= {"params": model.params, "inv_freq": inv, "attention_factor": att}
    return train(model.task, model.config.method, length=length, steps=steps, seed=seed, **options)


def _check_methods(methods: object) -> list[str]:
    """Method names: a non-empty sequence of entries of :data:`METHODS`, each once."""
    if isinstance(methods, (str, bytes)) or not isinstance(methods, Sequence) or not methods:
        raise TypeError(f"methods must be a non-empty list of names, got {methods!r:.80}")
    methods = [check_choice("methods entry", m, METHODS) for m in methods]
    if len(set(methods)) != len(methods):
        raise ValueError(f"methods must name each method once, got {methods}")
    return methods


def stretched_accuracies(
    model: TrainedModel,
    factor: float,
    lengths: Sequence[int],
    *,
    methods: Sequence[str] = METHODS,
) -> dict[str, np.ndarray]:
    """Accuracy of ``model`` under each method's frequencies at each test length, no training.

    Each method's model is :func:`stretched` ("dynamic NTK" at each test length) and tested by
    :meth:`~pe_helpers.training.TrainedModel.accuracy`.

    Parameters
    ----------
    model : TrainedModel
        A "rope_adjacent" model; its training length is ``L0``.
    factor : float
        The context factor ``s`` (>= 1).
    lengths : sequence of int
        Test lengths, each 2 to 1024; methods x their sum at most ``MAX_TEST_LENGTHS``.
    methods : sequence of str, default :data:`METHODS`
        Which methods, each once.

    Returns
    -------
    dict of str to numpy.ndarray
        Method -> one accuracy in [0, 1] per test length.

    Examples
    --------
    >>> model = train("copy_back", "rope_adjacent", length=8, vocab_size=4, steps=2)
    >>> table = stretched_accuracies(model, 2.0, [8, 16], methods=["RoPE", "dynamic NTK"])
    >>> list(table), table["RoPE"].shape
    (['RoPE', 'dynamic NTK'], (2,))
    """
    lengths, methods = check_lengths(lengths, 1024), _check_methods(methods)
    _model_frequencies(model, "RoPE", factor)  # the model and the factor, checked before the work
    if len(methods) * sum(lengths) > MAX_TEST_LENGTHS:
        raise ValueError(f"methods x lengths must sum to at most {MAX_TEST_LENGTHS:,} positions")
    return {  # the test length is read by "dynamic NTK" only
        method: np.array(
            [stretched(model, method, factor, length=n).accuracy(length=n) for n in lengths]
        )
        for method in methods
    }


def fine_tuned_accuracies(
    model: TrainedModel,
    factor: float,
    *,
    length: int,
    steps: int,
    lengths: Sequence[int],
    methods: Sequence[str],
    seed: int = 1,
) -> dict[str, np.ndarray]:
    """Accuracy at each test length after :func:`fine_tuned` with each method.

    Arguments and result as in :func:`stretched_accuracies` and :func:`fine_tuned`; methods x
    (steps x length + the test lengths' sum) is at most ``MAX_FINE_TUNING``.

    Examples
    --------
    >>> model = train("copy_back", "rope_adjacent", length=8, vocab_size=4, steps=2)
    >>> fine_tuned_accuracies(model, 2.0, length=16, steps=1, lengths=[8, 16],
    ...                       methods=["PI"])["PI"].shape
    (2,)
    """
    lengths, methods = check_lengths(lengths, 1024), _check_methods(methods)
    _model_frequencies(model, "RoPE", factor)
    length = _check_fine_tuning(length, steps)
    if len(methods) * (steps * length + sum(lengths)) > MAX_FINE_TUNING:
        raise ValueError(f"methods x (steps x length + lengths) past {MAX_FINE_TUNING:,}")
    tuned = {
        m: fine_tuned(model, m, factor, length=length, steps=steps, seed=seed) for m in methods
    }
    return {m: np.array([tuned[m].accuracy(length=n) for n in lengths]) for m in methods}


# --- section 3 over seeds -----------------------------------------------------------------------

#: Section 3's setting: lesson 08's copy-back model at ``L = 16``, stretched ``s = 4`` times.
_SECTION_LENGTH, _SECTION_FACTOR = 16, 4.0
#: The methods section 3 fine-tunes, and the steps of its short and its longer fine-tune.
_TUNED_METHODS = ("RoPE", "PI", "NTK-aware", "YaRN", "Llama 3")
_SHORT_STEPS, _LONG_STEPS = 10, 100


def metric_key(method: str) -> str:
    """A method's name as metric names write it: spaces become underscores."""
    return method.replace(" ", "_")


def _seed_rows(
    table: object, spread: object, group: object, lengths: object, train_length: object
) -> dict[str, tuple[list[str], np.ndarray]]:
    """Method -> (its metric names, this run's accuracies), one per length, checked."""
    if not isinstance(table, Mapping) or not table:
        raise TypeError(
            f"table must be a non-empty dict of method -> accuracies, got {table!r:.60}"
        )
    if not isinstance(spread, SeedResults):
        raise TypeError(f"spread must be SeedResults (load_results), got {type(spread).__name__}")
    if not isinstance(group, str):
        raise TypeError(f"group must be the name of a group of metrics, got {group!r:.80}")
    lengths = check_lengths(lengths, 1024)
    train_length = check_int("train_length", train_length, minimum=1)
    if any(n % train_length for n in lengths):
        raise ValueError(f"lengths must be multiples of train_length {train_length}, got {lengths}")
    rows = {}
    for method, row in table.items():
        row = check_array(f"table[{method!r}]", row, ndim=1)
        if row.size != len(lengths):
            raise ValueError(f"table[{method!r}] must hold one accuracy per length")
        names = [
            f"{group}.{metric_key(str(method))}.{length_key(n, train_length)}" for n in lengths
        ]
        missing = [name for name in names if name not in spread.values]
        if missing:
            raise ValueError(f"spread has no metric {missing[0]!r} (group = {group!r})")
        rows[method] = (names, row)
    return rows


def format_seed_table(
    title: str,
    table: Mapping[str, ArrayLike],
    spread: SeedResults,
    group: str,
    lengths: Sequence[int],
    *,
    train_length: int,
) -> str:
    """Accuracies of this run, each beside its spread over the shipped seeds.

    ``table`` maps a method to this run's accuracies at ``lengths`` (multiples of
    ``train_length``). Row ``method`` and length ``n`` read the metric
    ``"{group}.{method}.{column}"`` of ``spread`` (spaces in ``method`` written ``_``, ``column``
    ``"L"``, ``"2L"``, ...). ``title`` heads the first column.

    Examples
    --------
    >>> from pe_helpers.seeds import SeedResults
    >>> spread = SeedResults("demo", (0, 1), {"g.PI.L": np.array([0.2, 0.4])})
    >>> print(format_seed_table("demo", {"PI": [0.25]}, spread, "g", [16], train_length=16))
    each cell: this run (lowest–highest; median over 2 seeds)
    demo                                  L = 16
    PI                    25% (20–40; median 30)
    """
    if not isinstance(title, str):
        raise TypeError(f"title must be text, got {type(title).__name__}")
    rows = _seed_rows(table, spread, group, lengths, train_length)
    heads = [f"{length_key(n, train_length)} = {n}" for n in lengths]
    bands = {method: spread.band(names) for method, (names, _) in rows.items()}
    this_run = {method: row for method, (_, row) in rows.items()}
    seeds = len(spread.seeds)
    return (
        translate(f"each cell: this run (lowest–highest; median over {seeds} seeds)")
        + "\n"
        + spread_table(title, heads, bands, this_run, median=True)
    )


def outside_spread(
    table: Mapping[str, ArrayLike],
    spread: SeedResults,
    group: str,
    lengths: Sequence[int],
    *,
    train_length: int,
    slack: float = 0.02,
) -> list[str]:
    """The metrics where this run lies outside the band of the shipped seeds.

    Arguments as in :func:`format_seed_table`; ``slack`` widens each band on both sides
    (:meth:`~pe_helpers.seeds.SeedResults.contains`).

    Examples
    --------
    >>> from pe_helpers.seeds import SeedResults
    >>> spread = SeedResults("demo", (0, 1), {"g.PI.L": np.array([0.2, 0.4])})
    >>> outside_spread({"PI": [0.25]}, spread, "g", [16], train_length=16)
    []
    >>> outside_spread({"PI": [0.5]}, spread, "g", [16], train_length=16)
    ['g.PI.L']
    """
    slack = check_real("slack", slack)
    if slack < 0:
        raise ValueError(f"slack must be >= 0, got {slack}")
    rows = _seed_rows(table, spread, group, lengths, train_length).values()
    return [
        name
        for names, row in rows
        for name, value in zip(names, row.tolist(), strict=True)
        if not spread.contains(name, value, slack=slack)
    ]


def _section_model(seed: int) -> TrainedModel:
    """Section 3's model: copy back (k = 1) at L = 16, RoPE on adjacent pairs."""
    return train("copy_back", "rope_adjacent", task_arg=1, length=_SECTION_LENGTH, seed=seed)


def _named(table: dict[str, np.ndarray], lengths: list[int]) -> dict[str, float]:
    """A table of accuracies as metrics named ``"{method}.{column}"``."""
    return {
        f"{metric_key(method)}.{length_key(n, _SECTION_LENGTH)}": float(a)
        for method, row in table.items()
        for n, a in zip(lengths, row, strict=True)
    }


def _trained_over_seeds(seed: int) -> dict[str, float]:
    """The model's accuracy at its training length."""
    return {"L": _section_model(seed).accuracy()}


def _stretched_over_seeds(seed: int) -> dict[str, float]:
    """Every method at L, 2L and 4L with no fine-tuning."""
    lengths = [_SECTION_LENGTH, 2 * _SECTION_LENGTH, 4 * _SECTION_LENGTH]
    return _named(stretched_accuracies(_section_model(seed), _SECTION_FACTOR, lengths), lengths)


def _tuned_over_seeds(seed: int) -> dict[str, float]:
    """Ten fine-tuning steps at 4L per method (tested at L and 4L), and PI after 100."""
    model, long = _section_model(seed), 4 * _SECTION_LENGTH
    lengths = [_SECTION_LENGTH, long]
    table = fine_tuned_accuracies(
        model,
        _SECTION_FACTOR,
        length=long,
        steps=_SHORT_STEPS,
        lengths=lengths,
        methods=_TUNED_METHODS,
        seed=seed + 1,
    )
    metrics = _named(table, lengths)
    longer = fine_tuned(model, "PI", _SECTION_FACTOR, length=long, steps=_LONG_STEPS, seed=seed + 1)
    metrics[f"PI_{_LONG_STEPS}_steps.4L"] = longer.accuracy(length=long)
    return metrics


def _static_yarn_over_seeds(seed: int) -> dict[str, float]:
    """YaRN sized for 2L (factor 2) at L and 2L: a smaller static factor, as Qwen advises."""
    model = stretched(_section_model(seed), "YaRN", _SECTION_FACTOR / 2)
    return {
        f"factor_2.{length_key(n, _SECTION_LENGTH)}": model.accuracy(length=n)
        for n in (_SECTION_LENGTH, 2 * _SECTION_LENGTH)
    }


#: Section 3 over seeds, one group per notebook cell that trains (``make experiments`` writes
#: ``pe_helpers/data/seeds/long_context.json``). Seed ``s`` trains the model with ``seed=s``
#: and fine-tunes with ``seed=s + 1``, as the notebook does with its ``SEED``.
SEED_EXPERIMENTS: dict[str, Callable[[int], dict[str, float]]] = {
    "trained": _trained_over_seeds,
    "stretched": _stretched_over_seeds,
    "tuned": _tuned_over_seeds,
    "static_yarn": _static_yarn_over_seeds,
}
