"""Lesson 01 maths: the two layers with their products counted, and the linear recurrence."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ..._validate import check_array, check_int, check_real, check_square

__all__ = [
    "LayerRun",
    "attention_layer",
    "recurrence_states",
    "recurrence_weights",
    "recurrent_layer",
]

#: Longest sequence the linear recurrence accepts.
MAX_TOKENS = 100_000


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
    """``x`` as float64, at most 2048 tokens (attention holds n² scores: 32 MB) of width 1024."""
    x = check_array("x", x, ndim=2).astype(np.float64)
    if x.shape[0] > 2048 or x.shape[1] > 1024:
        raise ValueError(f"x must have at most 2048 rows and 1024 columns, got shape {x.shape}")
    return x


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
    w_h, w_x = (check_square(name, w, d, " to match x") for name, w in (("w_h", w_h), ("w_x", w_x)))
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
    weights = (("w_q", w_q), ("w_k", w_k), ("w_v", w_v))
    w_q, w_k, w_v = (check_square(name, w, d, " to match x") for name, w in weights)
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
    x = check_array("inputs", inputs).astype(np.float64)
    if x.shape[0] > MAX_TOKENS or x.size > 2**22:  # 32 MB of float64
        raise ValueError(
            f"inputs must have at most {MAX_TOKENS} steps and 2**22 numbers, got shape {x.shape}"
        )
    decay = _decay(decay)
    states = np.empty_like(x)
    h = np.zeros_like(x[0])
    for t in range(x.shape[0]):
        h = decay * h + x[t]
        states[t] = h
    return states


def _decay(value: object) -> float:
    """The checked recurrence factor, in ``[-1, 1]``."""
    decay = check_real("decay", value, minimum=-1.0)
    if decay > 1.0:
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
    n_steps = check_int("n_steps", n_steps, minimum=1, maximum=MAX_TOKENS)
    return _decay(decay) ** np.arange(n_steps - 1, -1, -1, dtype=np.float64)
