"""Lesson 10 · Stretching RoPE to longer contexts: what each method does to each pair.

The notebook ``notebooks/10_long_context.ipynb`` compares the frequency recipes real configs
ship (their formulas are :mod:`pe_helpers.rope_scaling`, checked against transformers by
``make crosscheck``) pair by pair, on published configs and on lesson 08's trained model. What
only this lesson needs lives here:

* :data:`METHODS` and :func:`method_frequencies` — one name per method and its frequencies,
  built from the ``rope_parameters`` block :func:`rope_block` writes;
* :func:`rotate`, :func:`aligned_scores` and :func:`dynamic_key_angles` — RoPE with any
  frequencies, the score of an aligned query and key against distance, and the angles a key
  cached under dynamic NTK carries;
* :func:`stretched` and :func:`fine_tuned` — lesson 08's model evaluated with new frequencies,
  or trained a few steps with them;
* :class:`PairScaling` — the per-pair picture and the score curve under sliders;
* the exercise checkers :func:`check_ntk_base` and :func:`check_llama3_pairs`.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any, NamedTuple

import numpy as np
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator
from numpy.typing import ArrayLike

from .._validate import check_array, check_choice, check_int, check_real
from ..figures import plain_log_ticks
from ..grading import AnswerProblem, Feedback, as_number, close, grade
from ..live import LiveFigure, float_control, int_control
from ..rope_configs import model_rope_config
from ..rope_scaling import (
    classify_pairs,
    default_frequencies,
    ntk_aware_base,
    rope_frequencies,
    yarn_correction_dim,
)
from ..training import TrainedModel, train

__all__ = [
    "FIGURE_METHODS",
    "MAX_DISTANCES",
    "MAX_ELEMENTS",
    "METHODS",
    "PRESETS",
    "PairScaling",
    "Preset",
    "aligned_scores",
    "check_llama3_pairs",
    "check_ntk_base",
    "dynamic_key_angles",
    "fine_tuned",
    "method_frequencies",
    "rope_block",
    "rotate",
    "stretched",
]

#: The methods compared: plain RoPE and five ways to stretch it.
METHODS = ("RoPE", "PI", "NTK-aware", "dynamic NTK", "YaRN", "Llama 3")
#: The methods :class:`PairScaling` draws (dynamic NTK depends on the current length).
FIGURE_METHODS = ("PI", "NTK-aware", "YaRN", "Llama 3")
#: Most distances :func:`aligned_scores` evaluates, and most numbers :func:`rotate` returns.
MAX_DISTANCES, MAX_ELEMENTS = 100_000, 2**24
_MAX_HEAD_DIM = 1024
#: Llama 3.1's band edges (Meta's ``apply_scaling``); :func:`rope_block` uses them.
_LOW_FREQ_FACTOR, _HIGH_FREQ_FACTOR = 1.0, 4.0


class Preset(NamedTuple):
    """A head geometry for :class:`PairScaling`: its width, base and published recipe."""

    label: str
    head_dim: int
    rope_theta: float
    published: str


def _preset(name: str, label: str) -> Preset:
    config = model_rope_config(name)
    block = config.rope_parameters
    recipe = block["rope_type"]
    if "factor" in block:
        recipe += f", s = {block['factor']:g}"
    if "original_max_position_embeddings" in block:
        recipe += f" from L₀ = {block['original_max_position_embeddings']:,}"
    return Preset(label, config.head_dim, float(block["rope_theta"]), recipe)


#: The geometries the slider view steps through (published values from
#: :mod:`pe_helpers.rope_configs`, with their sources there).
PRESETS: tuple[Preset, ...] = (
    Preset("lesson 08 model", 16, 10000.0, "trained at L = 16, no scaling"),
    _preset("llama-2-7b", "Llama 2 7B"),
    _preset("llama-3.1-8b", "Llama 3.1 8B"),
    _preset("deepseek-v3", "DeepSeek-V3 (rope part)"),
    _preset("gemma-3-4b-global", "Gemma 3 4B (global layers)"),
)


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
        The context factor ``s`` (> 0).
    original : int
        ``L0`` (``original_max_position_embeddings``) for YaRN and Llama 3; "dynamic NTK" reads
        its reference length from ``max_position_embeddings``, outside the block.
    rope_theta : float, default 10000.0
        The base ``b``.
    beta_fast, beta_slow : float, default 32 and 1
        YaRN's bounds, in rotations within ``L0``.

    Returns
    -------
    dict

    Examples
    --------
    >>> rope_block("Llama 3", 8, 8192, rope_theta=500000.0)["rope_type"]
    'llama3'
    """
    method = check_choice("method", method, METHODS)
    factor = check_real("factor", factor, positive=True)
    original = check_int("original", original, minimum=1)
    theta = check_real("rope_theta", rope_theta, positive=True)
    if method == "RoPE":
        return {"rope_type": "default", "rope_theta": theta}
    if method == "NTK-aware":
        raise ValueError(
            "method 'NTK-aware' has no rope_type of its own in transformers (only its dynamic "
            "form, 'dynamic NTK'); use method_frequencies for it"
        )
    rope_type = {"PI": "linear", "dynamic NTK": "dynamic", "YaRN": "yarn", "Llama 3": "llama3"}
    block = {"rope_type": rope_type[method], "rope_theta": theta, "factor": factor}
    if method == "YaRN":
        block.update(original_max_position_embeddings=original,
                     beta_fast=check_real("beta_fast", beta_fast, positive=True),
                     beta_slow=check_real("beta_slow", beta_slow, positive=True))
    if method == "Llama 3":
        block.update(low_freq_factor=_LOW_FREQ_FACTOR, high_freq_factor=_HIGH_FREQ_FACTOR,
                     original_max_position_embeddings=original)
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

    Arguments as in :func:`rope_block`; ``length`` is the current sequence length, which only
    "dynamic NTK" reads (its reference length is ``original``, standing for the config's
    ``max_position_embeddings``; default: ``original``, where nothing changes).

    Examples
    --------
    >>> inv, att = method_frequencies("NTK-aware", 4, 2.0, 16, rope_theta=100.0)
    >>> inv.round(6).tolist(), att
    ([1.0, 0.05], 1.0)
    """
    method = check_choice("method", method, METHODS)
    head_dim = check_int("head_dim", head_dim, minimum=2)
    if head_dim > _MAX_HEAD_DIM:
        raise ValueError(f"head_dim must be at most {_MAX_HEAD_DIM}, got {head_dim}")
    if method == "NTK-aware":
        check_int("original", original, minimum=1)
        base = ntk_aware_base(check_real("rope_theta", rope_theta, positive=True), head_dim,
                              check_real("factor", factor, positive=True))
        return default_frequencies(base, head_dim), 1.0
    block = rope_block(method, factor, original, rope_theta=rope_theta,
                       beta_fast=beta_fast, beta_slow=beta_slow)
    if method != "dynamic NTK":
        return rope_frequencies(block, head_dim)
    length = original if length is None else check_int("length", length, minimum=1)
    return rope_frequencies(block, head_dim, max_position_embeddings=original, seq_len=length)


def rotate(x: ArrayLike, angles: ArrayLike, attention_factor: float = 1.0) -> np.ndarray:
    """Rotate each adjacent pair ``(2i, 2i + 1)`` of ``x`` by ``angles[..., i]``, then scale.

    With ``angles = position * inv_freq`` this is RoPE with any frequencies, as lesson 08's
    model applies it ("rope_adjacent"); ``attention_factor`` multiplies cos and sin, as YaRN's
    does, so a score between two rotated vectors grows by its square. ``x`` has shape
    ``(..., d)`` with ``d`` even, ``angles`` broadcasts to ``(..., d // 2)``; the result (float64,
    at most :data:`MAX_ELEMENTS` numbers) has ``x``'s shape broadcast with the angles.

    Examples
    --------
    >>> rotate([1.0, 0.0], [np.pi / 2]).round(12).tolist()
    [0.0, 1.0]
    """
    x = check_array("x", x, min_ndim=1).astype(np.float64)
    if x.shape[-1] % 2:
        raise ValueError(f"x must have an even last axis (pairs), got {x.shape[-1]}")
    angles = check_array("angles", angles).astype(np.float64)
    shape = np.broadcast_shapes(x[..., ::2].shape, angles.shape)
    if np.prod(shape) * 2 > MAX_ELEMENTS:
        raise ValueError(f"x and angles would give more than {MAX_ELEMENTS:,} numbers")
    factor = check_real("attention_factor", attention_factor, positive=True)
    first, second = x[..., 0::2], x[..., 1::2]
    cos, sin = factor * np.cos(angles), factor * np.sin(angles)
    out_first, out_second = first * cos - second * sin, first * sin + second * cos
    out = np.empty(out_first.shape[:-1] + (x.shape[-1],))
    out[..., 0::2], out[..., 1::2] = out_first, out_second
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
    if inv_freq.size > _MAX_HEAD_DIM // 2:
        raise ValueError(f"inv_freq may have at most {_MAX_HEAD_DIM // 2} pairs, got "
                         f"{inv_freq.size}")
    distances = check_array("distances", distances, ndim=1).astype(np.float64)
    if distances.size > MAX_DISTANCES:
        raise ValueError(f"distances may have at most {MAX_DISTANCES} entries, got "
                         f"{distances.size}")
    factor = check_real("attention_factor", attention_factor, positive=True)
    return factor**2 * np.cos(np.multiply.outer(distances, inv_freq)).mean(axis=-1)


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

    In token-by-token generation the key at position ``n`` is rotated once, when the sequence
    has ``n + 1`` tokens, with that length's base, and cached; a query at ``current_length``
    uses the current base. Returns ``cached`` and ``current``, each of shape
    ``(len(key_positions), head_dim // 2)``: ``n θ_i(base at n + 1)`` and
    ``n θ_i(base at current_length)`` (at most 4096 keys).

    Examples
    --------
    >>> cached, current = dynamic_key_angles([3], 8, 4, 2.0, 4)
    >>> bool(cached[0, 1] > current[0, 1]), float(cached[0, 0] - current[0, 0])
    (True, 0.0)
    """
    positions = check_array("key_positions", key_positions, ndim=1)
    if not np.issubdtype(positions.dtype, np.integer) or positions.min() < 0:
        raise ValueError("key_positions must be whole numbers >= 0")
    if positions.size > 4096:
        raise ValueError(f"key_positions may have at most 4096 entries, got {positions.size}")
    current_length = check_int("current_length", current_length, minimum=1)
    if positions.max() >= current_length:
        raise ValueError(f"key_positions must be below current_length {current_length}, got "
                         f"{positions.max()}")

    def at(length: int) -> np.ndarray:
        return method_frequencies("dynamic NTK", head_dim, factor, max_position_embeddings,
                                  rope_theta=rope_theta, length=length)[0]

    cached = np.array([n * at(n + 1) for n in positions.tolist()])
    return cached, np.multiply.outer(positions.astype(np.float64), at(current_length))


# --- lesson 08's model with new frequencies -----------------------------------------------------


def _model_frequencies(model: object, method: str, factor: float, length: int | None,
                       beta_fast: float = 32.0, beta_slow: float = 1.0):
    """``method``'s frequencies for a lesson 08 RoPE model, ``L0`` its training length."""
    if not isinstance(model, TrainedModel) or model.config.method != "rope_adjacent":
        raise TypeError(f"model must be a TrainedModel with method 'rope_adjacent', got "
                        f"{type(model).__name__}")
    return method_frequencies(method, model.config.d_head, factor, model.length,
                              rope_theta=model.config.base, length=length,
                              beta_fast=beta_fast, beta_slow=beta_slow)


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
    inv, att = _model_frequencies(model, method, factor, length, beta_fast, beta_slow)
    return model.replace(inv_freq=inv, attention_factor=att)


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

    Everything else (task, width, learning rate) as the model was trained; ``seed`` picks the
    fine-tuning data. "dynamic NTK" uses its base at ``length``.

    Examples
    --------
    >>> model = train("copy_back", "rope_adjacent", length=8, vocab_size=4, steps=2)
    >>> fine_tuned(model, "YaRN", 2.0, length=16, steps=1).length
    16
    """
    length = check_int("length", length, minimum=2)
    if length > 1024:
        raise ValueError(f"length must be at most 1024 (keeps fine-tuning fast), got {length}")
    steps = check_int("steps", steps, minimum=1)
    if steps > 2000:
        raise ValueError(f"steps must be at most 2000 (keeps fine-tuning fast), got {steps}")
    inv, att = _model_frequencies(model, method, factor, length)
    config = model.config
    return train(model.task, config.method, length=length, vocab_size=config.vocab_size,
                 steps=steps, seed=seed, params=model.params, d_model=config.d_model,
                 n_heads=config.n_heads, d_head=config.d_head, causal=config.causal,
                 residual=config.residual, base=config.base, inv_freq=inv,
                 attention_factor=att)


# --- the figure -----------------------------------------------------------------------------------

_COLOURS = {"RoPE": "black", "PI": "C0", "NTK-aware": "C1", "YaRN": "C2", "Llama 3": "C3"}
_POINTS = 240


def _distances(longest: int) -> np.ndarray:
    """Whole distances from 1 to ``longest``, spread evenly on a log scale."""
    return np.unique(np.round(np.geomspace(1, longest, _POINTS)))


class PairScaling(LiveFigure):
    """What each method does to each pair (left) and to the score against distance (right).

    Left: ``θ'_i / θ_i`` per pair on a log scale — 1 means kept, ``1/s`` interpolated, between
    ramped — with the pair where ``λ = L0`` and YaRN's bounds (pairs turning ``beta_fast`` and
    ``beta_slow`` times in ``L0``, before transformers rounds them) marked. Right: the aligned
    score (:func:`aligned_scores`) from 1 to ``s · L0`` tokens (the axis runs to 64 ``L0``, the
    largest ``s``), plain RoPE solid inside ``L0`` and dotted past it. Sliders: the head
    geometry (a preset), ``s``, ``log2 L0`` and YaRN's ``beta_fast`` and ``beta_slow``.

    Examples
    --------
    >>> fig = PairScaling().draw(preset=0, factor=4, log2_length=4)
    >>> fig.axes[0].get_title()
    'lesson 08 model: d = 16, θ = 10,000'
    """

    controls = {
        "preset": int_control("preset", 2, 0, len(PRESETS) - 1),
        "factor": int_control("factor s", 8, 1, 64),
        "log2_length": int_control("log₂ L₀", 13, 4, 17),
        "beta_fast": int_control("beta_fast", 32, 1, 64),
        "beta_slow": float_control("beta_slow", 1.0, 0.25, 8.0, 0.25),
    }
    figsize = (11.0, 4.5)
    grid = (1, 2)

    def build(self, axes) -> SimpleNamespace:
        left, right = axes
        pairs = {m: left.plot([], [], "o-", markersize=3, color=_COLOURS[m], label=m)[0]
                 for m in FIGURE_METHODS}
        (inside,) = right.plot([], [], color="black", label="RoPE, inside L₀")
        (beyond,) = right.plot([], [], ":", color="black", label="RoPE, past L₀")
        curves = {m: right.plot([], [], color=_COLOURS[m], label=m)[0] for m in FIGURE_METHODS}
        marks = {}
        for key, style in (("turn", "--"), ("beta_fast", ":"), ("beta_slow", ":")):
            colour = "grey" if key == "turn" else _COLOURS["YaRN"]
            marks[key] = left.axvline(0.0, linestyle=style, color=colour, linewidth=1)
        labels = {
            key: left.text(0.0, 0.03 if key == "turn" else 0.97, "", fontsize=9, ha="center",
                           va="bottom" if key == "turn" else "top", clip_on=True,
                           transform=left.get_xaxis_transform())
            for key in marks
        }
        end = right.axvline(1.0, linestyle="--", color="grey", linewidth=1)
        left.set_yscale("log")
        left.set_ylim(1 / 100, 2.5)
        # Few ticks (no minor ones): each tick is an artist that a draw lays out.
        left.yaxis.set_major_locator(FixedLocator([1 / 64, 1 / 16, 1 / 4, 1]))
        left.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"1/{1 / y:.0f}"
                                                     if y < 1 else "1"))
        left.yaxis.set_minor_locator(NullLocator())
        left.set_xlabel("pair i (0 = fastest)")
        left.set_ylabel("θ′ᵢ / θᵢ  (1 kept, 1/s interpolated)")
        right.set_xscale("log")
        right.xaxis.set_minor_locator(NullLocator())
        plain_log_ticks(right.xaxis)
        right.set_ylim(-0.7, 2.2)
        right.set_xlabel("distance Δ (tokens)")
        right.set_ylabel("aligned score / d")
        right.legend(loc="upper right", fontsize=8, ncols=2)
        return SimpleNamespace(left=left, right=right, pairs=pairs, inside=inside,
                               beyond=beyond, curves=curves, marks=marks, labels=labels, end=end)

    def update(self, art: SimpleNamespace, preset: int, factor: int, log2_length: int,
               beta_fast: int, beta_slow: float) -> None:
        geometry = PRESETS[preset]
        d, theta, original = geometry.head_dim, geometry.rope_theta, 2**log2_length
        plain = default_frequencies(theta, d)
        index = np.arange(d // 2)
        distances = _distances(factor * original)
        yarn_factor = 1.0
        for method in FIGURE_METHODS:
            inv, att = method_frequencies(method, d, float(factor), original, rope_theta=theta,
                                          beta_fast=beta_fast, beta_slow=beta_slow)
            art.pairs[method].set_data(index, inv / plain)
            art.curves[method].set_data(distances, aligned_scores(inv, distances, att))
            if method == "YaRN":
                yarn_factor = att
        rope = aligned_scores(plain, distances)
        inside = distances <= original
        art.inside.set_data(distances[inside], rope[inside])
        art.beyond.set_data(distances[distances >= original], rope[distances >= original])
        for key, turns, text in (("turn", 1.0, "λ = L₀"), ("beta_fast", beta_fast, "β_fast"),
                                 ("beta_slow", beta_slow, "β_slow")):
            where = yarn_correction_dim(turns, d, theta, original)
            art.marks[key].set_xdata([where, where])
            art.labels[key].set_x(where)
            art.labels[key].set_text(text if key == "turn" else f"{text} = {turns:g}")
        art.end.set_xdata([original, original])
        art.left.set_xlim(-0.5, d // 2 - 0.5)
        # The widest s sets the limit, so a step of s alone leaves every limit (and is blitted).
        art.right.set_xlim(1, self.controls["factor"].maximum * original)
        art.left.title.set_text(f"{geometry.label}: d = {d}, θ = {theta:,.0f}")
        art.right.title.set_text(
            f"L₀ = {original:,}, s = {factor}: YaRN logits × {yarn_factor**2:.2f}")

    def moving(self, art: SimpleNamespace) -> list:
        return [*art.pairs.values(), *art.curves.values(), art.inside, art.beyond,
                *art.marks.values(), *art.labels.values(), art.end,
                art.left.title, art.right.title]


# --- exercise checkers ---------------------------------------------------------------------------


def check_ntk_base(ntk_base: Callable) -> Feedback:
    """Lesson 10, exercise 1: ``ntk_base(base, head_dim, factor)`` returns the NTK-aware base.

    Examples
    --------
    >>> check_ntk_base(ntk_aware_base).status
    'correct'
    """
    cases = ((10000.0, 128, 2.0), (500000.0, 64, 8.0), (10000.0, 16, 4.0))

    def matches(attempt: Callable) -> str | None:
        answers = []
        for base, d, s in cases:
            got = attempt(base, d, s)
            what = f"your base for base = {base:g}, head_dim = {d}, factor = {s:g}"
            answers.append(as_number(got, what))
            if close(got, ntk_aware_base(base, d, s)):
                continue
            return _ntk_slip(got, base, d, s, answers)
        return None

    return grade(
        "NTK-aware base",
        ntk_base,
        [matches],
        "b′ = b · s^(d / (d − 2)), with d the head width (head_dim): the fastest pair keeps "
        "θ₀ = 1, and the slowest, b′^(−(d − 2)/d), comes out exactly s times slower.",
        call=cases[0],
    )


def _ntk_slip(got: object, base: float, d: int, s: float, answers: list[float]) -> str:
    def same(value: float) -> bool:
        return close(got, value)

    if len(answers) > 1 and same(answers[0]):
        return "you return the same number for different inputs: use the three arguments."
    if same(base):
        return "that is the base unchanged: NTK-aware scaling raises it."
    if same(base * s):
        return ("you multiplied the base by s: the slowest pair then slows by only "
                "s^((d − 2)/d); the exponent d/(d − 2) makes it exactly s.")
    if same(base * s ** ((d - 2) / d)):
        return "the exponent is upside down: it is d/(d − 2), slightly above 1."
    if same(base / s ** (d / (d - 2))):
        return "you divided: a larger base means slower pairs, which is the point."
    if same(base * s ** ((d / 2) / (d / 2 - 2))):
        return "d is the head width (head_dim), not the number of pairs head_dim / 2."
    return f"expected b · s^(d/(d − 2)) for base = {base:g}, d = {d}, s = {s:g}."


_LABELS = ("kept", "ramped", "interpolated")


def _as_labels(answer: object, size: int) -> np.ndarray:
    if isinstance(answer, str) or not isinstance(answer, (list, tuple, np.ndarray)):
        raise AnswerProblem(f"your answer must be a list or array of labels, one per pair, got "
                            f"{type(answer).__name__}.")
    labels = np.asarray(answer, dtype=object).ravel()
    if len(answer) != size or labels.size != size:
        raise AnswerProblem(f"your answer must hold one label per pair: head_dim / 2 = {size}, "
                            f"got {len(answer)}.")
    words = []
    for label in labels:
        if not isinstance(label, (str, np.str_)):
            raise AnswerProblem(f"each label must be the word 'kept', 'ramped' or "
                                f"'interpolated', got {label!r}.")
        word = str(label).strip().lower()
        word = "kept" if word == "extrapolated" else word
        if word not in _LABELS:
            raise AnswerProblem(f"unknown label {str(label)!r}: use 'kept', 'ramped' or "
                                f"'interpolated'.")
        words.append(word)
    return np.array(words)


def _llama3_cases() -> tuple[dict, ...]:
    real = model_rope_config("llama-3.1-8b")
    made_up = {"rope_type": "llama3", "rope_theta": 10000.0, "factor": 4.0,
               "low_freq_factor": 1.0, "high_freq_factor": 8.0,
               "original_max_position_embeddings": 2048}
    return (
        {"head_dim": real.head_dim, "max_position_embeddings": real.max_position_embeddings,
         "rope_parameters": real.rope_parameters},
        {"head_dim": 64, "max_position_embeddings": 16384, "rope_parameters": made_up},
    )


def _labels_for(block: dict, head_dim: int, **changes: object) -> np.ndarray:
    """llama3's labels by its rule, for any edges (a slip may put them the wrong way round)."""
    block = {**block, **changes}
    original = block["original_max_position_embeddings"]
    wavelength = 2 * np.pi / default_frequencies(block["rope_theta"], head_dim)
    labels = np.full(head_dim // 2, "ramped", dtype=object)
    labels[wavelength < original / block["high_freq_factor"]] = "kept"
    labels[wavelength > original / block["low_freq_factor"]] = "interpolated"
    return labels.astype(str)


def check_llama3_pairs(classify: Callable) -> Feedback:
    """Lesson 10, exercise 2: ``classify(config)`` labels each pair of a llama3 config.

    ``config`` holds ``head_dim``, ``max_position_embeddings`` and ``rope_parameters`` (a
    llama3 block); the answer is one of "kept", "ramped" or "interpolated" per pair.

    Examples
    --------
    >>> check_llama3_pairs(lambda c: classify_pairs(c["rope_parameters"], c["head_dim"])).status
    'correct'
    """
    cases = _llama3_cases()

    def matches(attempt: Callable) -> str | None:
        for config in cases:
            block, d = config["rope_parameters"], config["head_dim"]
            got = _as_labels(attempt(config), d // 2)
            want = classify_pairs(block, d)
            if np.array_equal(got, want):
                continue
            return _llama3_slip(got, config)
        return None

    return grade(
        "llama3 pairs",
        classify,
        [matches],
        "θᵢ = rope_theta^(−2i/head_dim) and λᵢ = 2π/θᵢ; with L₀ = "
        "original_max_position_embeddings: λ < L₀/high_freq_factor → 'kept', "
        "λ > L₀/low_freq_factor → 'interpolated', otherwise 'ramped'.",
        call=(cases[0],),
    )


def _llama3_slip(got: np.ndarray, config: dict) -> str:
    block, d = config["rope_parameters"], config["head_dim"]
    low, high = block["low_freq_factor"], block["high_freq_factor"]
    original = block["original_max_position_embeddings"]
    want = classify_pairs(block, d)
    swap = {"kept": "interpolated", "interpolated": "kept", "ramped": "ramped"}
    yarn = {"rope_type": "yarn", "rope_theta": block["rope_theta"], "factor": block["factor"],
            "original_max_position_embeddings": original}
    slips = (
        (_labels_for(block, d, original_max_position_embeddings=config["max_position_embeddings"]),
         "you measured against max_position_embeddings; L₀ is original_max_position_embeddings, "
         "the length the model was trained on before the extension."),
        (_labels_for(block, d, low_freq_factor=high, high_freq_factor=low),
         "low_freq_factor and high_freq_factor are swapped: wavelengths below "
         "L₀/high_freq_factor are kept."),
        (np.array([swap[w] for w in want]), "kept and interpolated are the wrong way round: the "
         "fast pairs (short wavelengths) are kept, the slow ones interpolated."),
        (classify_pairs(yarn, d), "that is YaRN's rule (beta_fast = 32, beta_slow = 1 "
         "rotations); llama3 draws its edges at wavelengths L₀/high_freq_factor and "
         "L₀/low_freq_factor."),
    )
    for labels, message in slips:
        if not np.array_equal(labels, want) and np.array_equal(got, labels):
            return message
    wrong = int(np.sum(got != want))
    return (f"{wrong} of {d // 2} labels differ for head_dim = {d}, rope_theta = "
            f"{block['rope_theta']:g}, L₀ = {original}: check the frequencies and the two "
            f"wavelength edges L₀/{high:g} and L₀/{low:g}.")
