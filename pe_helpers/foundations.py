"""Measurements behind the first three lessons (why position, addition, frequencies).

Pure numpy: nothing here draws. Lesson 01 uses the recurrence helpers, lesson 02
the random-direction and linear-probe helpers, lesson 03 the frequency and
distance helpers.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ._validate import (
    check_array,
    check_base,
    check_choice,
    check_d_model,
    check_int,
    check_positions,
    check_real,
)
from .encodings import frequencies, sinusoidal_pe

__all__ = [
    "serial_steps",
    "recurrence_states",
    "recurrence_weights",
    "random_cosines",
    "ProbeResult",
    "position_probe",
    "column_reading_frequencies",
    "column_reading_pe",
    "wavelengths",
    "running_min_distance",
    "binary_digits",
]


def _check_generator(rng: object) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    return rng


# --- Lesson 01: why attention needs position -------------------------------------------


def serial_steps(n_tokens: int, architecture: str) -> int:
    """Number of steps that must run one after another to encode ``n_tokens`` tokens.

    A recurrent network needs the state of token ``t - 1`` before it can compute
    token ``t``: ``n_tokens`` serial steps. Self-attention computes every output
    from the inputs alone, in one parallel step (one matrix product per layer).

    Parameters
    ----------
    n_tokens : int
        Sequence length, >= 1.
    architecture : {"recurrent", "attention"}
        Kind of layer.

    Returns
    -------
    int

    Examples
    --------
    >>> serial_steps(12, "recurrent"), serial_steps(12, "attention")
    (12, 1)
    """
    n_tokens = check_int("n_tokens", n_tokens, minimum=1)
    architecture = check_choice("architecture", architecture, ("recurrent", "attention"))
    return n_tokens if architecture == "recurrent" else 1


def recurrence_states(inputs: ArrayLike, decay: float) -> np.ndarray:
    """Run the linear recurrence ``h_t = decay * h_(t-1) + x_t`` from ``h_0 = 0``.

    Parameters
    ----------
    inputs : array_like
        Shape ``(n,)`` or ``(n, d)``: the inputs ``x_1 .. x_n``, one row per step.
    decay : float
        The recurrence factor ``a``.

    Returns
    -------
    numpy.ndarray
        The states ``h_1 .. h_n``, same shape as ``inputs``. Computed with an
        explicit loop: each step needs the previous one.

    Examples
    --------
    >>> recurrence_states([1.0, 0.0, 0.0], 0.5).tolist()
    [1.0, 0.5, 0.25]
    """
    x = check_array("inputs", inputs).astype(np.float64)
    decay = check_real("decay", decay)
    states = np.empty_like(x)
    h = np.zeros_like(x[0])
    for t in range(x.shape[0]):
        h = decay * h + x[t]
        states[t] = h
    return states


def recurrence_weights(decay: float, n_steps: int) -> np.ndarray:
    """Weight of each input ``x_1 .. x_n`` in the last state ``h_n`` of the recurrence.

    Unrolling ``h_t = a h_(t-1) + x_t`` gives ``h_n = sum_t a^(n-t) x_t``: the
    first input is multiplied by ``a^(n-1)``, the last by 1.

    Parameters
    ----------
    decay : float
        The recurrence factor ``a``.
    n_steps : int
        Sequence length ``n``, >= 1.

    Returns
    -------
    numpy.ndarray
        Shape ``(n,)``; entry ``t - 1`` is the weight of ``x_t``.

    Examples
    --------
    >>> recurrence_weights(0.5, 3).tolist()
    [0.25, 0.5, 1.0]
    """
    decay = check_real("decay", decay)
    n_steps = check_int("n_steps", n_steps, minimum=1)
    return decay ** np.arange(n_steps - 1, -1, -1, dtype=np.float64)


# --- Lesson 02: injecting position by addition -----------------------------------------


def random_cosines(d_model: int, n_pairs: int, rng: np.random.Generator) -> np.ndarray:
    """Cosine similarities of ``n_pairs`` pairs of independent random Gaussian vectors.

    Their mean absolute value is about ``sqrt(2 / (pi d))``: random directions
    in many dimensions are nearly orthogonal.

    Parameters
    ----------
    d_model : int
        Dimension of the vectors, >= 1.
    n_pairs : int
        Number of pairs, >= 1.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_pairs,)``, values in ``[-1, 1]``.

    Examples
    --------
    >>> c = random_cosines(1000, 200, np.random.default_rng(0))
    >>> bool(np.abs(c).mean() < 0.05)
    True
    """
    d_model = check_int("d_model", d_model, minimum=1)
    n_pairs = check_int("n_pairs", n_pairs, minimum=1)
    rng = _check_generator(rng)
    u = rng.standard_normal((n_pairs, d_model))
    v = rng.standard_normal((n_pairs, d_model))
    cos = np.sum(u * v, axis=1) / (np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1))
    return np.clip(cos, -1.0, 1.0)


class ProbeResult(NamedTuple):
    """Outcome of :func:`position_probe` on the held-out samples."""

    true_positions: np.ndarray
    predicted_positions: np.ndarray
    r2: float


def position_probe(
    d_model: int,
    rng: np.random.Generator,
    *,
    n_positions: int = 32,
    n_samples: int = 1600,
    vocab_size: int = 1000,
    base: float = 10000.0,
    with_tokens: bool = True,
) -> ProbeResult:
    """Fit a least-squares linear probe that reads the position from ``embedding + PE``.

    Each sample is a random token (embedding entries drawn from N(0, 1)) at a
    random position ``t``; its input vector is ``embedding + PE(t)``. A linear
    map with a bias is fitted by ``np.linalg.lstsq`` on the first 75 % of the
    samples to predict ``t``, and scored on the other 25 % by R² (1 is perfect,
    0 is no better than guessing the mean position).

    Parameters
    ----------
    d_model : int
        Width of embeddings and encoding; positive and even.
    rng : numpy.random.Generator
        Source of the embeddings and of the samples.
    n_positions : int, default 32
        Positions are ``0 .. n_positions - 1``.
    n_samples : int, default 1600
        Number of (token, position) samples, >= 8.
    vocab_size : int, default 1000
        Number of distinct random token embeddings.
    base : float, default 10000.0
        Frequency base of the sinusoidal encoding.
    with_tokens : bool, default True
        If False, probe the encoding alone (no embedding added).

    Returns
    -------
    ProbeResult
        True and predicted positions of the held-out samples, and the R².

    Examples
    --------
    >>> position_probe(256, np.random.default_rng(0)).r2 > 0.8
    True
    """
    d_model = check_d_model(d_model)
    rng = _check_generator(rng)
    n_positions = check_int("n_positions", n_positions, minimum=2)
    n_samples = check_int("n_samples", n_samples, minimum=8)
    vocab_size = check_int("vocab_size", vocab_size, minimum=1)
    if not isinstance(with_tokens, bool):
        raise TypeError(f"with_tokens must be True or False, got {with_tokens!r}")
    pe = sinusoidal_pe(n_positions, d_model, check_base(base))
    embeddings = rng.standard_normal((vocab_size, d_model))
    tokens = rng.integers(0, vocab_size, n_samples)
    positions = rng.integers(0, n_positions, n_samples)
    features = pe[positions] + (embeddings[tokens] if with_tokens else 0.0)
    design = np.column_stack([features, np.ones(n_samples)])
    n_train = (3 * n_samples) // 4
    weights, *_ = np.linalg.lstsq(design[:n_train], positions[:n_train], rcond=None)
    truth = positions[n_train:].astype(np.float64)
    predicted = design[n_train:] @ weights
    spread = np.sum((truth - truth.mean()) ** 2)
    r2 = 1.0 - np.sum((predicted - truth) ** 2) / spread if spread > 0 else 0.0
    return ProbeResult(truth, predicted, float(r2))


# --- Lesson 03: choosing the frequencies -----------------------------------------------


def wavelengths(d_model: int, base: float = 10000.0) -> np.ndarray:
    """Wavelength ``2 pi / w_k`` of each (sin, cos) pair, in positions.

    They grow geometrically by the factor ``base^(2/d)`` from ``2 pi`` (pair 0)
    to ``2 pi base^((d-2)/d)`` (the last pair).

    Parameters
    ----------
    d_model : int
        Width of the encoding; positive and even.
    base : float, default 10000.0
        Frequency base; must be > 0.

    Returns
    -------
    numpy.ndarray
        Shape ``(d_model // 2,)``.

    Examples
    --------
    >>> (wavelengths(4, base=100.0) / (2 * np.pi)).tolist()
    [1.0, 10.0]
    """
    return 2.0 * np.pi / frequencies(d_model, base)


def column_reading_frequencies(d_model: int, base: float = 10000.0) -> np.ndarray:
    """The frequency of each *column* if the exponent ``2i/d`` is read with ``i`` the column.

    This is the misreading of ``w = base^(-2i/d)``: column ``i`` gets
    ``base^(-2i/d)``, so the exponent runs to almost 2 instead of almost 1, the
    slowest column has a frequency near ``1 / base**2``, and the sin and cos
    columns of a pair get different frequencies.

    Parameters
    ----------
    d_model : int
        Width of the encoding; positive and even.
    base : float, default 10000.0
        Frequency base; must be > 0.

    Returns
    -------
    numpy.ndarray
        Shape ``(d_model,)``. (The correct per-column frequencies are
        ``np.repeat(frequencies(d_model, base), 2)``.)

    Examples
    --------
    >>> column_reading_frequencies(4, base=100.0).tolist()
    [1.0, 0.1, 0.01, 0.001]
    """
    d_model = check_d_model(d_model)
    base = check_base(base)
    i = np.arange(d_model, dtype=np.float64)
    return base ** (-2.0 * i / d_model)


def column_reading_pe(
    positions: int | ArrayLike, d_model: int, base: float = 10000.0
) -> np.ndarray:
    """The encoding built with the column reading of the exponent (a known bug).

    Even column ``i`` holds ``sin(w_i t)``, odd column ``i`` holds ``cos(w_i t)``,
    with ``w_i`` from :func:`column_reading_frequencies`.

    Parameters
    ----------
    positions : int or array_like
        A count ``n`` or a 1-D array of positions.
    d_model : int
        Width of the encoding; positive and even.
    base : float, default 10000.0
        Frequency base; must be > 0.

    Returns
    -------
    numpy.ndarray
        Shape ``(n, d_model)``.

    Examples
    --------
    >>> column_reading_pe([0.0], 4).tolist()
    [[0.0, 1.0, 0.0, 1.0]]
    """
    t = check_positions(positions)
    angles = np.multiply.outer(t, column_reading_frequencies(d_model, base))
    out = np.cos(angles)
    out[:, 0::2] = np.sin(angles[:, 0::2])
    return out


def running_min_distance(vectors: ArrayLike) -> np.ndarray:
    """Smallest distance between two of the first ``m`` vectors, for ``m = 2 .. n``.

    Parameters
    ----------
    vectors : array_like
        Shape ``(n, d)`` with ``n >= 2``: one vector per position, in order.

    Returns
    -------
    numpy.ndarray
        Shape ``(n - 1,)``; entry ``m - 2`` is the minimum Euclidean distance over
        all pairs among rows ``0 .. m - 1``. It never increases.

    Examples
    --------
    >>> running_min_distance([[0.0], [3.0], [1.0]]).tolist()
    [3.0, 1.0]
    """
    x = check_array("vectors", vectors, min_ndim=2).astype(np.float64)
    if x.ndim != 2 or x.shape[0] < 2:
        raise ValueError(f"vectors must have shape (n, d) with n >= 2, got {x.shape}")
    norms = np.sum(x * x, axis=1)
    squared = norms[:, None] + norms[None, :] - 2.0 * (x @ x.T)
    squared = np.maximum(squared, 0.0)
    upper = np.triu(np.ones(squared.shape, dtype=bool), k=0)
    squared[upper] = np.inf  # keep pairs i < j only (row j, column i)
    closest_earlier = np.sqrt(squared.min(axis=1)[1:])
    return np.minimum.accumulate(closest_earlier)


def binary_digits(values: int | ArrayLike, n_bits: int) -> np.ndarray:
    """Binary digits of non-negative integers, least significant bit first.

    Parameters
    ----------
    values : int or array_like of int
        A count ``n`` (meaning ``0 .. n-1``) or a 1-D array of integers in
        ``[0, 2**n_bits)``.
    n_bits : int
        Number of digits, >= 1.

    Returns
    -------
    numpy.ndarray
        Shape ``(n, n_bits)`` of 0/1 integers; column ``b`` is bit ``b`` (value ``2**b``).

    Examples
    --------
    >>> binary_digits(4, 2).tolist()
    [[0, 0], [1, 0], [0, 1], [1, 1]]
    """
    n_bits = check_int("n_bits", n_bits, minimum=1)
    numbers = check_positions(values, name="values")
    if np.any(numbers != np.round(numbers)) or np.any(numbers < 0):
        raise ValueError(f"values must be non-negative integers, got {values!r}")
    ints = numbers.astype(np.int64)
    if np.any(ints >= 2**n_bits):
        raise ValueError(f"values must be < 2**n_bits = {2**n_bits}, got max {ints.max()}")
    return (ints[:, None] >> np.arange(n_bits)) & 1
