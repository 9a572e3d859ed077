"""The lesson's own maths."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ..._validate import check_array, check_bool, check_d_model, check_int, check_square
from ...attention import attention, relative_deviation
from ...encodings import sinusoidal_pe

__all__ = [
    "BLEND_T_VALUES",
    "attention_stack",
    "blend_deviations",
    "blend_inputs",
    "encoding_readout",
    "random_projection",
]


#: Widest model (and projection) and most positions the helpers take: 2048² numbers are 32 MB.
MAX_WIDTH = MAX_POSITIONS = 2048
#: Blends at which the deviation curve of the blend figure is sampled.
BLEND_T_VALUES = np.linspace(0.0, 1.0, 41)
#: Most positions and widest encoding :func:`blend_deviations` takes, and its most blends.
MAX_BLEND_SIZE, MAX_BLENDS = 256, 101


def _check_rows(name: str, value: object, most: int = MAX_POSITIONS) -> np.ndarray:
    arr = check_array(name, value, ndim=2).astype(np.float64)
    if max(arr.shape) > most:
        raise ValueError(f"{name} may have at most {most} rows and columns, got shape {arr.shape}")
    return arr


def random_projection(
    d_model: int, d_k: int | None = None, seed: int | np.random.Generator = 0
) -> np.ndarray:
    """A random projection matrix with entries drawn from ``N(0, 1/d_model)``.

    With this scale ``x @ W`` keeps, on average, the length of ``x``: the usual
    initialisation of a query or key projection before training.

    Parameters
    ----------
    d_model : int
        Input width (rows), 1 to :data:`MAX_WIDTH`.
    d_k : int, optional
        Output width (columns: the width of one query or key), 1 to :data:`MAX_WIDTH`;
        default ``d_model`` (a square matrix).
    seed : int or numpy.random.Generator, default 0
        Seed (>= 0) of a fresh generator, or a generator to draw from.

    Returns
    -------
    numpy.ndarray
        The projection ``W``, shape ``(d_model, d_k)``: ``x @ W`` has rows of width ``d_k``.

    Examples
    --------
    >>> random_projection(4, 2, seed=1).shape
    (4, 2)
    """
    d_model = check_int("d_model", d_model, minimum=1, maximum=MAX_WIDTH)
    d_k = d_model if d_k is None else check_int("d_k", d_k, minimum=1, maximum=MAX_WIDTH)
    if isinstance(seed, np.random.Generator):
        generator = seed
    else:
        generator = np.random.default_rng(check_int("seed", seed, minimum=0))
    return generator.normal(size=(d_model, d_k)) / np.sqrt(d_model)


def _blend(t: float, w: np.ndarray) -> np.ndarray:
    """``(1 - t) I + t W``: the identity at t = 0, ``w`` at t = 1."""
    return (1.0 - t) * np.eye(w.shape[0]) + t * w


def position_scores(p: np.ndarray, w_q: np.ndarray, w_k: np.ndarray, t: float) -> np.ndarray:
    """``(p W_Q)(p W_K)ᵀ`` with both projections blended by ``t``: shape ``(n, n)``."""
    return (p @ _blend(t, w_q)) @ (p @ _blend(t, w_k)).T


def blend_deviations(
    p: ArrayLike, w_q_random: ArrayLike, w_k_random: ArrayLike, t_values: ArrayLike
) -> np.ndarray:
    """Relative deviation of the position–position term along the identity-to-random blend.

    Both projections are blended, ``W_Q = (1 - t) I + t w_q_random`` and ``W_K = (1 - t) I
    + t w_k_random``; for each ``t`` the value is the relative deviation
    (:func:`pe_helpers.attention.relative_deviation`) of the position–position term
    ``p W_Q W_Kᵀ pᵀ``: 0 when it depends on ``j - i`` only, as at ``t = 0`` (``p pᵀ``).

    Parameters
    ----------
    p : array_like
        Positional encodings, shape ``(n, d)``, ``n`` and ``d`` at most 256.
    w_q_random, w_k_random : array_like
        ``(d, d)`` matrices reached at ``t = 1``.
    t_values : array_like
        1-D blends, each in ``[0, 1]``; at most 101 of them.

    Returns
    -------
    numpy.ndarray
        Shape ``(len(t_values),)``, each in ``[0, 1]``.

    Examples
    --------
    >>> p = np.eye(3, 4)
    >>> blend_deviations(p, np.ones((4, 4)), np.ones((4, 4)), [0.0]).tolist()
    [0.0]
    """
    p = _check_rows("p", p, MAX_BLEND_SIZE)
    w_q = check_square("w_q_random", w_q_random, p.shape[1])
    w_k = check_square("w_k_random", w_k_random, p.shape[1])
    ts = check_array("t_values", t_values, ndim=1).astype(np.float64)
    check_int("len(t_values)", ts.size, maximum=MAX_BLENDS)
    if ts.min() < 0.0 or ts.max() > 1.0:
        raise ValueError(f"t_values must lie in [0, 1], got {ts.min():g} to {ts.max():g}")
    return np.array([relative_deviation(position_scores(p, w_q, w_k, t)) for t in ts.tolist()])


def blend_inputs(d_model: int, n_positions: int = 32, seed: int = 0) -> tuple[np.ndarray, ...]:
    """The encoding and the two random projections behind the blend figure.

    Parameters
    ----------
    d_model : int
        Width; positive, even, at most :data:`MAX_WIDTH`.
    n_positions : int, default 32
        Number of positions, 2 to :data:`MAX_POSITIONS`.
    seed : int, default 0
        Seed (>= 0) of ``w_q_random``; ``w_k_random`` uses ``seed + 1``.

    Returns
    -------
    tuple of numpy.ndarray
        ``(p, w_q_random, w_k_random)``: ``sinusoidal_pe(n_positions, d_model)`` and
        ``random_projection(d_model, seed=s)`` for ``s = seed, seed + 1``.

    Examples
    --------
    >>> p, w_q, w_k = blend_inputs(4, 3)
    >>> p.shape, w_q.shape
    ((3, 4), (4, 4))
    """
    d_model = check_d_model(d_model, maximum=MAX_WIDTH)
    n_positions = check_int("n_positions", n_positions, minimum=2, maximum=MAX_POSITIONS)
    seed = check_int("seed", seed, minimum=0)
    p = sinusoidal_pe(n_positions, d_model)
    return p, random_projection(d_model, seed=seed), random_projection(d_model, seed=seed + 1)


def attention_stack(
    x: ArrayLike, n_layers: int = 6, *, residual: bool = True, seed: int = 0
) -> list[np.ndarray]:
    """Inputs of a stack of random single-head attention layers, with or without residuals.

    Layer ``l`` computes ``F_l(x) = attention(x W_Q, x W_K, x W_V)`` with untrained
    projections from :func:`random_projection`; with residual connections its output
    is ``x + F_l(x)``, without them ``F_l(x)``. No normalisation, no feed-forward part:
    only what carries (or loses) the input from layer to layer.

    Parameters
    ----------
    x : array_like
        Input rows, shape ``(n, d)``, at most 1024 rows and 256 columns.
    n_layers : int, default 6
        Number of layers, 1 to 12.
    residual : bool, default True
        Add each layer's output to its input.
    seed : int, default 0
        Seed (>= 0) of the projections: the same seed gives the same layers.

    Returns
    -------
    list of numpy.ndarray
        ``n_layers + 1`` arrays of shape ``(n, d)``: the input, then each layer's output.

    Examples
    --------
    >>> states = attention_stack(np.eye(4), 2)
    >>> len(states), states[-1].shape
    (3, (4, 4))
    """
    x = check_array("x", x, ndim=2).astype(np.float64)
    if x.shape[0] > 1024 or x.shape[1] > 256:
        raise ValueError(f"x may have at most 1024 rows and 256 columns, got shape {x.shape}")
    n_layers = check_int("n_layers", n_layers, minimum=1, maximum=12)
    check_bool("residual", residual)
    generator = np.random.default_rng(check_int("seed", seed, minimum=0))
    states = [x]
    for _ in range(n_layers):
        w_q, w_k, w_v = (random_projection(x.shape[1], seed=generator) for _ in range(3))
        out = attention(x @ w_q, x @ w_k, x @ w_v)
        x = x + out if residual else out
        states.append(x)
    return states


def encoding_readout(x: ArrayLike, p: ArrayLike, seed: int = 0) -> float:
    """How much of the encoding ``p`` a linear read-out recovers from ``x`` (held-out R²).

    A least-squares map ``x A + b ≈ p`` is fitted on a random three quarters of the rows
    and scored on the rest: 1 recovers ``p`` exactly, 0 is no better than the mean row.

    Parameters
    ----------
    x : array_like
        Rows to read from, shape ``(n, d)``, ``n >= 8``.
    p : array_like
        Encodings to recover, shape ``(n, d_p)``.
    seed : int, default 0
        Seed (>= 0) of the split.

    Returns
    -------
    float
        R² on the held-out rows (below 0 when worse than the mean row).

    Examples
    --------
    >>> p = np.random.default_rng(1).normal(size=(40, 3))
    >>> round(encoding_readout(2 * p, p), 6)
    1.0
    """
    x = _check_rows("x", x)
    p = _check_rows("p", p)
    if x.shape[0] != p.shape[0] or x.shape[0] < 8:
        raise ValueError(f"x and p need the same number of rows (>= 8), got {x.shape}, {p.shape}")
    order = np.random.default_rng(check_int("seed", seed, minimum=0)).permutation(x.shape[0])
    cut = 3 * x.shape[0] // 4
    train, test = order[:cut], order[cut:]
    features = np.hstack([x, np.ones((x.shape[0], 1))])
    coefficients, *_ = np.linalg.lstsq(features[train], p[train], rcond=None)
    residual = p[test] - features[test] @ coefficients
    spread = p[test] - p[test].mean(axis=0)
    return float(1.0 - np.sum(residual**2) / np.sum(spread**2))
