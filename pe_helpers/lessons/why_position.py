"""Lesson 01 · Why attention needs position (``notebooks/01_why_position.ipynb``).

Self-attention without position is permutation-equivariant; a recurrent layer gets
order for free and pays for it. This module runs both layers while counting their
matrix products (how many, how many in a chain that cannot be parallelised, and the
multiply-adds), runs the linear recurrence ``h_t = a h_(t-1) + x_t`` behind the
fading figure, draws the lesson's figures (the slider one is :class:`RecurrenceWeights`)
and checks its exercises.
"""

from __future__ import annotations

import dis
import math
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import NamedTuple

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from .._validate import _show, check_array, check_int, check_real
from ..attention import attention
from ..figures import WIDE_FIGSIZE, course_style, heatmap, plot_curves
from ..grading import Feedback, as_array, as_integer, as_number, close, grade
from ..live import LiveFigure, float_control, int_control

__all__ = [
    "MAX_LAYER_TOKENS",
    "MAX_TOKENS",
    "MAX_WIDTH",
    "LayerRun",
    "RecurrenceWeights",
    "attention_layer",
    "check_first_input_weight",
    "check_steps_until_faded",
    "check_unshuffled_attention",
    "plot_serial_steps",
    "plot_token_outputs",
    "recurrence_caption",
    "recurrence_states",
    "recurrence_weights",
    "recurrent_layer",
]

#: Longest sequence the linear recurrence accepts.
MAX_TOKENS = 100_000
#: Longest sequence the layer helpers accept (attention holds n² scores: 32 MB of float64).
MAX_LAYER_TOKENS = 2048
#: Widest token vector the layer helpers accept.
MAX_WIDTH = 1024
#: Most numbers the recurrence may hold (32 MB of float64).
_MAX_CELLS = 2**22


def _array(name: str, value: object, **kwargs: object) -> np.ndarray:
    """:func:`check_array`, naming ``name`` for ragged input too (rows of unequal length)."""
    try:
        np.asarray(value)
    except ValueError as exc:
        raise ValueError(
            f"{name} must be a rectangular array (rows of equal length), got {_show(value)}"
        ) from exc
    return check_array(name, value, **kwargs)


# --- maths ----------------------------------------------------------------------------------


class LayerRun(NamedTuple):
    """One layer run on a sequence, with the matrix products it executed.

    Attributes
    ----------
    outputs : numpy.ndarray
        Shape ``(n, d)``: one output vector per token.
    products : int
        Matrix products executed.
    chain : int
        Longest chain of products in which each product needs the result of the one
        before: steps that must run one after another, however many processors.
    multiply_adds : int
        Scalar multiply-adds in all the products: the layer's cost.
    """

    outputs: np.ndarray
    products: int
    chain: int
    multiply_adds: int


class _Tally:
    """Runs matrix products and keeps count; a value's depth is its chain of products."""

    def __init__(self) -> None:
        self.products = 0
        self.multiply_adds = 0

    def product(self, a: np.ndarray, b: np.ndarray, *depths: int) -> tuple[np.ndarray, int]:
        self.products += 1
        self.multiply_adds += a.shape[0] * a.shape[1] * b.shape[1]
        return a @ b, max(depths, default=0) + 1


def _sequence(x: ArrayLike) -> np.ndarray:
    x = _array("x", x, ndim=2).astype(np.float64)
    n, d = x.shape
    if n > MAX_LAYER_TOKENS or d > MAX_WIDTH:
        raise ValueError(
            f"x must have at most {MAX_LAYER_TOKENS} rows and {MAX_WIDTH} columns, "
            f"got shape {x.shape}"
        )
    return x


def _square(name: str, w: ArrayLike, d: int) -> np.ndarray:
    w = _array(name, w, ndim=2).astype(np.float64)
    if w.shape != (d, d):
        raise ValueError(f"{name} must have shape ({d}, {d}) to match x, got {w.shape}")
    return w


def recurrent_layer(x: ArrayLike, w_h: ArrayLike, w_x: ArrayLike) -> LayerRun:
    """Run ``h_t = tanh(h_(t-1) W_h + x_t W_x)`` from ``h_0 = 0``, counting the products.

    The input products ``x_t W_x`` do not depend on each other and run as one batched
    product; each ``h_(t-1) W_h`` needs the state before it, so they form a chain.

    Parameters
    ----------
    x : array_like
        Shape ``(n, d)``: one token vector per row.
    w_h, w_x : array_like
        Shape ``(d, d)``: recurrent and input weights.

    Returns
    -------
    LayerRun
        ``outputs`` are the states ``h_1 .. h_n``; ``n + 1`` products, a chain of ``n``,
        ``2 n d²`` multiply-adds.

    Examples
    --------
    >>> run = recurrent_layer(np.ones((5, 2)), np.eye(2), np.eye(2))
    >>> run.products, run.chain, run.multiply_adds
    (6, 5, 40)
    """
    x = _sequence(x)
    d = x.shape[1]
    w_h, w_x = _square("w_h", w_h, d), _square("w_x", w_x, d)
    tally = _Tally()
    inputs, input_depth = tally.product(x, w_x)
    h, depth = np.zeros((1, d)), 0
    states = np.empty_like(x)
    for t in range(x.shape[0]):
        carried, depth = tally.product(h, w_h, depth)
        depth = max(depth, input_depth)
        h = np.tanh(carried + inputs[t])
        states[t] = h[0]
    return LayerRun(states, tally.products, depth, tally.multiply_adds)


def attention_layer(x: ArrayLike, w_q: ArrayLike, w_k: ArrayLike, w_v: ArrayLike) -> LayerRun:
    """Run one self-attention layer ``softmax(Q Kᵀ / √d_k) V`` on ``x``, counting the products.

    ``Q = x W_Q``, ``K = x W_K``, ``V = x W_V``; the outputs equal
    :func:`pe_helpers.attention.attention` on those three matrices.

    Parameters
    ----------
    x : array_like
        Shape ``(n, d)``: one token vector per row.
    w_q, w_k, w_v : array_like
        Shape ``(d, d)``: query, key and value projections (here ``d_k = d``).

    Returns
    -------
    LayerRun
        Five products at any length, a chain of three, ``3 n d² + 2 n² d`` multiply-adds.

    Examples
    --------
    >>> run = attention_layer(np.ones((5, 2)), np.eye(2), np.eye(2), np.eye(2))
    >>> run.products, run.chain, run.multiply_adds
    (5, 3, 160)
    """
    x = _sequence(x)
    d = x.shape[1]
    w_q, w_k, w_v = (_square(name, w, d) for name, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v)))
    tally = _Tally()
    q, q_depth = tally.product(x, w_q)
    k, k_depth = tally.product(x, w_k)
    v, v_depth = tally.product(x, w_v)
    scores, depth = tally.product(q, k.T, q_depth, k_depth)
    scores = scores / math.sqrt(d)
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights /= weights.sum(axis=1, keepdims=True)
    outputs, depth = tally.product(weights, v, depth, v_depth)
    return LayerRun(outputs, tally.products, depth, tally.multiply_adds)


def recurrence_states(inputs: ArrayLike, decay: float) -> np.ndarray:
    """Run the linear recurrence ``h_t = decay · h_(t-1) + x_t`` from ``h_0 = 0``.

    Parameters
    ----------
    inputs : array_like
        Shape ``(n,)`` or ``(n, d)``: the inputs ``x_1 .. x_n``, one row per step
        (at most :data:`MAX_TOKENS` steps and ``2**22`` numbers).
    decay : float
        The recurrence factor ``a``, with ``|a| <= 1`` (larger factors explode).

    Returns
    -------
    numpy.ndarray
        The states ``h_1 .. h_n``, same shape as ``inputs``, computed step by step.

    Examples
    --------
    >>> recurrence_states([1.0, 0.0, 0.0], 0.5).tolist()
    [1.0, 0.5, 0.25]
    """
    x = _array("inputs", inputs).astype(np.float64)
    if x.shape[0] > MAX_TOKENS or x.size > _MAX_CELLS:
        raise ValueError(
            f"inputs must have at most {MAX_TOKENS} steps and {_MAX_CELLS} numbers, "
            f"got shape {x.shape}"
        )
    decay = _decay(decay)
    states = np.empty_like(x)
    h = np.zeros_like(x[0])
    for t in range(x.shape[0]):
        h = decay * h + x[t]
        states[t] = h
    return states


def _decay(value: object) -> float:
    decay = check_real("decay", value)
    if abs(decay) > 1.0:
        raise ValueError(f"decay must lie in [-1, 1] (larger factors explode), got {decay:g}")
    return decay


def recurrence_weights(decay: float, n_steps: int) -> np.ndarray:
    """Weight of each input ``x_1 .. x_n`` in the last state ``h_n`` of the recurrence.

    Unrolling ``h_t = a h_(t-1) + x_t`` gives ``h_n = Σ_t a^(n-t) x_t``: the first
    input is multiplied by ``a^(n-1)``, the last by 1.

    Parameters
    ----------
    decay : float
        The recurrence factor ``a``, in ``[-1, 1]``.
    n_steps : int
        Sequence length ``n``, from 1 to :data:`MAX_TOKENS`.

    Returns
    -------
    numpy.ndarray
        Shape ``(n,)``; entry ``t - 1`` is the weight of ``x_t``.

    Examples
    --------
    >>> recurrence_weights(0.5, 3).tolist()
    [0.25, 0.5, 1.0]
    """
    decay = _decay(decay)
    n_steps = _steps(n_steps)
    return decay ** np.arange(n_steps - 1, -1, -1, dtype=np.float64)


def _steps(value: object) -> int:
    n_steps = check_int("n_steps", value, minimum=1)
    if n_steps > MAX_TOKENS:
        raise ValueError(f"n_steps must be <= {MAX_TOKENS}, got {n_steps}")
    return n_steps


# --- figures --------------------------------------------------------------------------------


def _power_text(base: float, exponent: int) -> str:
    """``base ** exponent`` to three digits, through logarithms when a float would overflow."""
    if exponent == 0:
        return "1"
    if base == 0:
        return "0"
    sign = "-" if base < 0 and exponent % 2 else ""
    log10 = exponent * math.log10(abs(base))
    if abs(log10) < 300:
        return f"{sign}{abs(base) ** exponent:.3g}"
    power = math.floor(log10)
    return f"{sign}{10 ** (log10 - power):.3g}e{power:+d}"


def recurrence_caption(decay: float, n_steps: int) -> str:
    """Caption of the recurrence figure: the weight ``a^(n-1)`` of the first input.

    Any finite ``decay`` is described, however large the power (no overflow).

    Examples
    --------
    >>> recurrence_caption(0.5, 3)
    'weight of x_1 in h_3: a^(n-1) = 0.5^2 = 0.25'
    >>> recurrence_caption(1e300, 4)
    'weight of x_1 in h_4: a^(n-1) = 1e+300^3 = 1e+900'
    """
    decay = check_real("decay", decay)
    n_steps = _steps(n_steps)
    power = _power_text(decay, n_steps - 1)
    return f"weight of x_1 in h_{n_steps}: a^(n-1) = {decay:g}^{n_steps - 1} = {power}"


class RecurrenceWeights(LiveFigure):
    """The weight ``a^(n-t)`` of every input ``x_t`` in the last state ``h_n``.

    Sliders: the recurrence factor ``a`` (0 to 1) and the length ``n`` (2 to 60). The
    caption gives the first input's weight ``a^(n-1)``. A step of ``a`` keeps the axes
    and redraws only the curve, caption and title.

    Examples
    --------
    >>> figure = RecurrenceWeights().draw(decay=0.5, n_steps=3)
    >>> figure.axes[0].texts[0].get_text()
    'weight of x_1 in h_3: a^(n-1) = 0.5^2 = 0.25'
    """

    controls = {
        "decay": float_control("recurrence factor a", 0.9, 0.0, 1.0, 0.01),
        "n_steps": int_control("sequence length n", 20, 2, 60),
    }

    def build(self, axes: Axes) -> SimpleNamespace:
        (line,) = axes.plot([], [], marker="o", color="C0")
        caption = axes.text(0.02, 0.95, "", transform=axes.transAxes, va="top")
        axes.set_xlabel("input position t (1 = first token, n = last)")
        axes.set_ylabel("weight of x_t in h_n")
        axes.set_ylim(-0.03, 1.25)
        axes.xaxis.set_major_locator(mpl.ticker.MaxNLocator(integer=True))
        return SimpleNamespace(axes=axes, line=line, caption=caption)

    def update(self, art: SimpleNamespace, decay: float, n_steps: int) -> None:
        art.line.set_data(np.arange(1, n_steps + 1), recurrence_weights(decay, n_steps))
        art.caption.set_text(recurrence_caption(decay, n_steps))
        art.axes.title.set_text(
            f"h_t = a·h_(t-1) + x_t, a = {decay:.2f}: what is left of each input in h_{n_steps}"
        )
        art.axes.set_xlim(0.5, n_steps + 0.5)

    def moving(self, art: SimpleNamespace) -> list:
        return [art.line, art.caption, art.axes.title]


@course_style
def plot_token_outputs(
    sentences: Sequence[Sequence[str]],
    outputs: Sequence[ArrayLike],
) -> Figure:
    """Side-by-side heatmaps of per-token outputs (one row per token), on one colour scale.

    Parameters
    ----------
    sentences : sequence of sequences of str
        The words of each sentence (one to four sentences); they label the rows and
        make the panel titles.
    outputs : sequence of array_like
        One matrix per sentence, shape ``(len(words), d)``.

    Returns
    -------
    matplotlib.figure.Figure
        A new wide figure; panel ``j`` shows ``outputs[j]``.

    Examples
    --------
    >>> figure = plot_token_outputs([["a", "b"]], [np.eye(2)])
    >>> figure.axes[0].get_title()
    '"a b"'
    """
    if isinstance(sentences, str) or not isinstance(sentences, Sequence):
        raise TypeError(f"sentences must be a list of word lists, got {type(sentences).__name__}")
    if not 1 <= len(sentences) <= 4 or len(outputs) != len(sentences):
        raise ValueError(
            "need one to four sentences and one output matrix per sentence, "
            f"got {len(sentences)} sentences and {len(outputs)} matrices"
        )
    matrices = []
    for j, (words, matrix) in enumerate(zip(sentences, outputs, strict=True)):
        if isinstance(words, str) or not all(isinstance(w, str) for w in words):
            raise TypeError(f"sentences[{j}] must be a list of words (str), got {words!r}")
        arr = _array(f"outputs[{j}]", matrix, ndim=2).astype(np.float64)
        if arr.shape[0] != len(words) or arr.shape[1] > 64:
            raise ValueError(
                f"outputs[{j}] must have one row per word ({len(words)}) and at most 64 "
                f"columns, got shape {arr.shape}"
            )
        matrices.append(arr)
    figure = plt.figure(figsize=(WIDE_FIGSIZE[0], 3.2), layout="constrained")
    axes = figure.subplots(1, len(matrices), squeeze=False)[0]
    limit = max(float(np.abs(m).max()) for m in matrices) or 1.0
    for j, (ax, words, arr) in enumerate(zip(axes, sentences, matrices, strict=True)):
        heatmap(
            arr,
            ax,
            xlabel="output dimension",
            ylabel="token" if j == 0 else "",
            title=f'"{" ".join(words)}"',
            limit=limit,
            colorbar=False,
        )
        ax.set_yticks(np.arange(arr.shape[0]), labels=list(words))
        ax.set_xticks(np.arange(arr.shape[1]))
    return figure


@course_style
def plot_serial_steps(
    lengths: ArrayLike,
    recurrent_chain: ArrayLike,
    attention_chain: ArrayLike,
    ax: Axes | None = None,
) -> Axes:
    """Measured chain of sequential matrix products against the sequence length.

    Parameters
    ----------
    lengths : array_like
        Sequence lengths ``n`` (x axis), at least one.
    recurrent_chain, attention_chain : array_like
        :attr:`LayerRun.chain` of each layer at each length (same length as ``lengths``).
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines[0]`` is the recurrent layer, ``ax.lines[1]`` attention.

    Examples
    --------
    >>> ax = plot_serial_steps([1, 2], [1, 2], [3, 3])
    >>> ax.lines[0].get_ydata().tolist()
    [1.0, 2.0]
    """
    n = _array("lengths", lengths, ndim=1)
    chains = [
        _array(name, values, ndim=1)
        for name, values in (
            ("recurrent_chain", recurrent_chain),
            ("attention_chain", attention_chain),
        )
    ]
    if any(chain.shape != n.shape for chain in chains):
        raise ValueError(f"each chain must have one value per length ({n.size})")
    labels = (
        "recurrent layer: one product per token, in a chain",
        "self-attention: the same short chain at every length",
    )
    ax = plot_curves(
        n,
        dict(zip(labels, chains, strict=True)),
        ax,
        xlabel="sequence length n (tokens)",
        ylabel="matrix products in a chain",
        title="Serial compute, measured: products that must wait for the previous one",
        markers=True,
    )
    ax.set_ylim(0, max(float(np.max(chains)), 1.0) * 1.08)
    ax.legend(loc="upper left")
    return ax


# --- exercises ------------------------------------------------------------------------------

#: A shuffle that is not its own inverse, so undoing it with ``order`` again is caught.
_ORDERS = (np.array([2, 0, 4, 1, 3]), np.array([1, 2, 3, 4, 0]))


def _reads_argument(function: Callable, position: int) -> bool | None:
    """Whether ``function``'s body reads its parameter number ``position``; None if unknown."""
    code = getattr(function, "__code__", None)
    if code is None or code.co_argcount <= position:
        return None
    name = code.co_varnames[position]
    if name in code.co_cellvars:
        return True
    for instruction in dis.get_instructions(code):
        if not instruction.opname.startswith("LOAD_"):
            continue
        value = instruction.argval
        if value == name or (isinstance(value, tuple) and name in value):
            return True
    return False


def check_unshuffled_attention(answer: object) -> Feedback:
    """Check ``attend_then_unshuffle(x, order)`` of lesson 01.

    The function shuffles the tokens with ``x[order]``, runs self-attention
    ``attention(s, s, s)`` on them and puts the output rows back in the original order.
    Because attention is permutation-equivariant, the result equals ``attention(x, x,
    x)`` — so the check also makes sure ``order`` is actually used.

    Examples
    --------
    >>> def solution(x, order):
    ...     s = x[order]
    ...     return attention(s, s, s)[np.argsort(order)]
    >>> check_unshuffled_attention(solution).status
    'correct'
    >>> check_unshuffled_attention(lambda x, order: attention(x, x, x)).status
    'wrong'
    """
    x = np.random.default_rng(101).normal(size=(5, 4))
    plain = attention(x, x, x)

    def usable(attempt) -> str | None:
        for order in _ORDERS:
            as_array(attempt(x, order), "your outputs", shape=x.shape)
        return None

    def uses_order(attempt) -> str | None:
        if _reads_argument(attempt.function, 1) is False:
            return (
                "your function never uses order. Attention on x itself happens to give the "
                "right numbers — that is the lesson's point — but the task is to shuffle with "
                "order, attend, and undo the shuffle, so the check can show the two agree."
            )
        return None

    def unshuffled(attempt) -> str | None:
        for order in _ORDERS:
            got = as_array(attempt(x, order), "your outputs", shape=x.shape)
            shuffled = plain[order]
            if close(got, shuffled) and not close(got, plain):
                return (
                    "your rows are still in the shuffled order: row i belongs to token "
                    "order[i]. Undo the shuffle with the inverse permutation np.argsort(order)."
                )
            if close(got, shuffled[order]):
                return (
                    "you indexed with order a second time, which shuffles again instead of "
                    "undoing it: the inverse permutation is np.argsort(order)."
                )
            if not close(got, plain):
                return (
                    f"for order = {order.tolist()} the unshuffled outputs differ from "
                    "self-attention on the original x."
                )
        return None

    return grade(
        "attend, then unshuffle",
        answer,
        [usable, uses_order, unshuffled],
        "shuffle with s = x[order], attend with attention(s, s, s), then put row i back "
        "where token order[i] came from.",
        call=(x, _ORDERS[0]),
    )


def _number(value: object, what: str) -> np.floating:
    """A learner's number, in its own float precision (so the tolerance can follow it)."""
    number = as_number(value, what)
    dtype = getattr(value, "dtype", None)
    if dtype is not None and np.issubdtype(dtype, np.floating):
        return dtype.type(number)
    return np.float64(number)


def check_first_input_weight(answer: object) -> Feedback:
    """Check ``first_input_weight(decay, n_steps)``: the weight ``a^(n-1)`` of x_1 in h_n.

    Examples
    --------
    >>> check_first_input_weight(lambda a, n: a ** (n - 1)).status
    'correct'
    >>> check_first_input_weight(lambda a, n: a ** n).status
    'wrong'
    """
    cases = [(0.9, 20), (0.5, 3), (0.2, 1), (1.0, 7), (0.99, 100)]

    def weights(attempt) -> list[tuple[float, int, np.floating]]:
        return [
            (a, n, _number(attempt(a, n), f"your weight for a = {a}, n = {n}")) for a, n in cases
        ]

    def off_by_one(attempt) -> str | None:
        if all(close(got, a**n) for a, n, got in weights(attempt)[:3]):
            return (
                "off by one: you returned a^n. h_1 = x_1 already holds x_1 with weight 1; "
                "each of the n - 1 later steps multiplies it by a once."
            )
        return None

    def values(attempt) -> str | None:
        for a, n, got in weights(attempt):
            if not close(got, a ** (n - 1)):
                want = a ** (n - 1)
                return f"for a = {a}, n = {n} the weight is {want:.6g}, you returned {got:.6g}."
        return None

    return grade(
        "weight of the first input",
        answer,
        [off_by_one, values],
        "unroll h_3 = a·h_2 + x_3 = a·(a·x_1 + x_2) + x_3 and count the factors a on x_1.",
        call=cases[0],
    )


def check_steps_until_faded(answer: object) -> Feedback:
    """Check ``steps_until_faded(decay, threshold)``: the smallest n with ``a^(n-1) < threshold``.

    Examples
    --------
    >>> check_steps_until_faded(
    ...     lambda a, eps: math.floor(math.log(eps) / math.log(a)) + 2
    ... ).status
    'correct'
    """
    cases = [(0.9, 0.01), (0.5, 0.1), (0.99, 0.5), (0.3, 0.05)]

    def expected(a: float, eps: float) -> int:
        n = 1
        while a ** (n - 1) >= eps:
            n += 1
        return n

    def lengths(attempt) -> list[tuple[float, float, int]]:
        return [
            (a, e, as_integer(attempt(a, e), f"your length for a = {a}, threshold = {e}"))
            for a, e in cases
        ]

    def exponent_not_length(attempt) -> str | None:
        if all(got == expected(a, e) - 1 for a, e, got in lengths(attempt)):
            return (
                "you returned the exponent n - 1, not the sequence length n: "
                "the weight of x_1 in h_n is a^(n-1)."
            )
        return None

    def smallest(attempt) -> str | None:
        for a, e, got in lengths(attempt):
            want = expected(a, e)
            if got > want:
                return (
                    f"for a = {a}, threshold = {e}: n = {want} already gives "
                    f"a^(n-1) = {a ** (want - 1):.4g} < {e}; you returned {got}, not the smallest."
                )
            if got < 1:
                return f"a sequence has at least one token (n >= 1), you returned {got}."
            if got < want:
                return (
                    f"for a = {a}, threshold = {e}: at n = {got} the weight is still "
                    f"a^(n-1) = {a ** (got - 1):.4g} >= {e}."
                )
        return None

    return grade(
        "steps until the first input fades",
        answer,
        [exponent_not_length, smallest],
        "a loop that grows n until a**(n - 1) < threshold works; so does a logarithm.",
        call=cases[0],
    )
