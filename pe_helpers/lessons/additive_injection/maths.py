"""Lesson 02 maths: random cosines and the position probe."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ..._validate import as_array, check_d_model, check_int, check_real
from ...encodings import frequencies, sinusoidal_pe

__all__ = ["ProbeResult", "position_probe", "random_cosines", "slow_columns"]

#: Most random numbers a helper of this lesson draws at once (32 MB of float64).
MAX_CELLS = 2**22


def _generator(rng: object) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a Generator (np.random.default_rng(seed)), got {rng!r:.40}")
    return rng


def _cells(what: str, count: int) -> None:
    if count > MAX_CELLS:
        raise ValueError(f"{what} would need {count:,} random numbers; the limit is {MAX_CELLS:,}")


def random_cosines(d_model: int, n_pairs: int, rng: np.random.Generator) -> np.ndarray:
    """Cosine similarities of ``n_pairs`` pairs of independent random Gaussian vectors.

    Their mean absolute value is about ``sqrt(2 / (π d))``: random directions in many
    dimensions are nearly orthogonal.

    Parameters
    ----------
    d_model : int
        Dimension of the vectors, >= 1.
    n_pairs : int
        Number of pairs, >= 1 (``n_pairs · d_model`` at most :data:`MAX_CELLS` / 2).
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
    _cells(f"n_pairs = {n_pairs} and d_model = {d_model}", 2 * d_model * n_pairs)
    rng = _generator(rng)
    # cos = u·v / (|u| |v|) per pair, shape (n_pairs,)
    u = rng.standard_normal((n_pairs, d_model))
    v = rng.standard_normal((n_pairs, d_model))
    cos = np.sum(u * v, axis=1) / (np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1))
    return np.clip(cos, -1.0, 1.0)


def slow_columns(d_model: int, span: int, base: float = 10000.0) -> np.ndarray:
    """Columns of the sinusoidal encoding that do not complete a turn over ``span`` positions.

    A column of pair ``k`` has wavelength ``2π / w_k``; over positions ``0 .. span - 1``
    a column with a wavelength longer than ``span`` moves less than one full turn, so
    it changes smoothly with the position.

    Parameters
    ----------
    d_model : int
        Width of the encoding; positive and even.
    span : int
        Number of positions, >= 1.
    base : float, default 10000.0
        Frequency base.

    Returns
    -------
    numpy.ndarray
        The column indices, in increasing order.

    Examples
    --------
    >>> slow_columns(8, 32, base=100.0).tolist()
    [4, 5, 6, 7]
    """
    d_model = check_d_model(d_model, maximum=MAX_CELLS)
    span = check_int("span", span, minimum=1)
    wavelengths = np.repeat(2.0 * np.pi / frequencies(d_model, base), 2)
    return np.flatnonzero(wavelengths > span)


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
    embedding_scale: float = 1.0,
    columns: ArrayLike | None = None,
) -> ProbeResult:
    """Fit a least-squares linear probe that reads the position from ``embedding + PE``.

    Each sample is a random token at a random position ``t``; its input vector is
    ``embedding + PE(t)``, with embedding entries drawn from ``N(0, embedding_scale²)``.
    A linear map with a bias is fitted by ``np.linalg.lstsq`` on the first 75 % of the
    samples to predict ``t``, and scored on the other 25 % by R² (1 is perfect, 0 is no
    better than guessing the mean position).

    Parameters
    ----------
    d_model : int
        Width of embeddings and encoding; positive and even, at most 4096.
    rng : numpy.random.Generator
        Source of the embeddings and of the samples.
    n_positions : int, default 32
        Positions are ``0 .. n_positions - 1`` (at least 2).
    n_samples : int, default 1600
        Number of (token, position) samples, >= 8.
    vocab_size : int, default 1000
        Number of distinct random token embeddings.
    base : float, default 10000.0
        Frequency base of the sinusoidal encoding.
    embedding_scale : float, default 1.0
        Standard deviation of the embedding entries; 0 probes the encoding alone.
    columns : array_like of int, optional
        Let the probe see only these columns (for example :func:`slow_columns`).

    Returns
    -------
    ProbeResult
        True and predicted positions of the held-out samples, and the R².

    Examples
    --------
    >>> position_probe(256, np.random.default_rng(0)).r2 > 0.8
    True
    """
    d_model = check_d_model(d_model, maximum=4096)
    rng = _generator(rng)
    n_positions = check_int("n_positions", n_positions, minimum=2)
    n_samples = check_int("n_samples", n_samples, minimum=8)
    vocab_size = check_int("vocab_size", vocab_size, minimum=1)
    sizes = f"n_samples = {n_samples}, n_positions = {n_positions} and d_model = {d_model}"
    _cells(sizes, (n_samples + n_positions) * d_model)
    _cells(f"vocab_size = {vocab_size} and d_model = {d_model}", vocab_size * d_model)
    scale = check_real("embedding_scale", embedding_scale, minimum=0.0)
    keep = np.arange(d_model) if columns is None else _columns(columns, d_model)
    pe = sinusoidal_pe(n_positions, d_model, base)
    embeddings = scale * rng.standard_normal((vocab_size, d_model))
    tokens = rng.integers(0, vocab_size, n_samples)
    positions = rng.integers(0, n_positions, n_samples)
    features = (pe[positions] + embeddings[tokens])[:, keep]
    design = np.column_stack([features, np.ones(n_samples)])
    n_train = (3 * n_samples) // 4
    weights, *_ = np.linalg.lstsq(design[:n_train], positions[:n_train], rcond=None)
    truth = positions[n_train:].astype(np.float64)
    predicted = design[n_train:] @ weights
    spread = np.sum((truth - truth.mean()) ** 2)
    r2 = 1.0 - np.sum((predicted - truth) ** 2) / spread if spread > 0 else 0.0
    return ProbeResult(truth, predicted, float(r2))


def _columns(columns: ArrayLike, d_model: int) -> np.ndarray:
    arr = as_array("columns", columns)
    if arr.ndim != 1 or arr.size == 0 or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"columns must be a non-empty 1-D array of integers, got {columns!r:.60}")
    if arr.min() < 0 or arr.max() >= d_model:
        raise ValueError(f"columns must lie in [0, {d_model - 1}], got {columns!r:.60}")
    return arr
