"""Lesson 02 · Injecting position by addition (``notebooks/02_additive_injection.ipynb``).

Input = embedding + positional encoding. Concatenating a one-hot position and projecting
is the same as adding a learned position vector; in many dimensions a linear probe can
read the position back from the sum. This module measures the cosines of random
directions and fits the probe (with an adjustable embedding scale, to separate the
signal-to-noise story from the angle story), draws the lesson's figures (the slider one
is :class:`DimensionPanels`) and checks its exercises.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import NamedTuple

import numpy as np
from matplotlib.axes import Axes
from matplotlib.ticker import FixedLocator
from numpy.typing import ArrayLike

from .._validate import _show, check_array, check_base, check_d_model, check_int, check_real
from ..encodings import frequencies, sinusoidal_pe
from ..figures import WIDE_FIGSIZE, course_style, new_axes, plain_log_ticks
from ..grading import Feedback, as_array, close, grade, tolerance
from ..live import LiveFigure, even_control

__all__ = [
    "COSINE_BINS",
    "MAX_CELLS",
    "DimensionPanels",
    "ProbeResult",
    "check_add_position_vector",
    "check_concat_then_project",
    "check_fit_position_probe",
    "plot_cosine_vs_dim",
    "plot_probe_vs_dim",
    "position_probe",
    "random_cosines",
    "slow_columns",
]

#: Most random numbers a helper of this lesson draws at once (32 MB of float64).
MAX_CELLS = 2**22
#: Bin edges of the cosine histogram (fixed, so a step of the slider changes only heights).
COSINE_BINS = np.linspace(-1.0, 1.0, 41)



# --- maths ----------------------------------------------------------------------------------


def _generator(rng: object) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy Generator (np.random.default_rng(seed)), got {_show(rng)}"
        )
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
    _cells(f"random_cosines({d_model}, {n_pairs})", 2 * d_model * n_pairs)
    rng = _generator(rng)
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
    d_model = check_d_model(d_model)
    span = check_int("span", span, minimum=1)
    wavelengths = np.repeat(2.0 * np.pi / frequencies(d_model, check_base(base)), 2)
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
    d_model = check_d_model(d_model)
    if d_model > 4096:
        raise ValueError(f"d_model must be <= 4096, got {d_model}")
    rng = _generator(rng)
    n_positions = check_int("n_positions", n_positions, minimum=2)
    n_samples = check_int("n_samples", n_samples, minimum=8)
    vocab_size = check_int("vocab_size", vocab_size, minimum=1)
    _cells("the samples", n_samples * d_model + n_positions * d_model)
    _cells("the embedding table", vocab_size * d_model)
    scale = check_real("embedding_scale", embedding_scale)
    if scale < 0:
        raise ValueError(f"embedding_scale must be >= 0, got {scale}")
    keep = np.arange(d_model) if columns is None else _columns(columns, d_model)
    pe = sinusoidal_pe(n_positions, d_model, check_base(base))
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
    arr = np.asarray(columns)
    if arr.ndim != 1 or arr.size == 0 or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"columns must be a non-empty 1-D array of integers, got {_show(columns)}")
    if arr.min() < 0 or arr.max() >= d_model:
        raise ValueError(f"columns must lie in [0, {d_model - 1}], got {_show(columns)}")
    return arr


# --- figures --------------------------------------------------------------------------------


def _dimensions(name: str, values: ArrayLike) -> np.ndarray:
    dims = check_array(name, values, ndim=1).astype(np.float64)
    if dims.min() < 1:
        raise ValueError(f"{name} must be dimensions >= 1, got minimum {dims.min():g}")
    return dims


def _curve(name: str, values: ArrayLike, dims: np.ndarray) -> np.ndarray:
    ys = check_array(name, values, ndim=1).astype(np.float64)
    if ys.shape != dims.shape:
        raise ValueError(f"{name} must have one value per dimension ({dims.size}), got {ys.size}")
    return ys


@course_style
def plot_cosine_vs_dim(
    dims: ArrayLike, mean_abs_cosines: ArrayLike, ax: Axes | None = None
) -> Axes:
    """Measured mean ``|cos|`` of random pairs against ``d``, with ``√(2 / (π d))`` (log-log).

    Parameters
    ----------
    dims : array_like
        Dimensions ``d`` (x axis), each >= 1.
    mean_abs_cosines : array_like
        Measured mean ``|cos|`` per dimension, each in ``(0, 1]``.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines[0]`` measured, ``ax.lines[1]`` the theory.

    Examples
    --------
    >>> ax = plot_cosine_vs_dim([4, 16], [0.4, 0.2])
    >>> ax.get_xscale()
    'log'
    """
    d = _dimensions("dims", dims)
    measured = _curve("mean_abs_cosines", mean_abs_cosines, d)
    if measured.min() <= 0 or measured.max() > 1:
        raise ValueError(f"mean_abs_cosines must lie in (0, 1], got {_show(mean_abs_cosines)}")
    ax = new_axes(ax)
    ax.plot(d, measured, marker="o", color="C0", label="measured: mean |cos| of random pairs")
    ax.plot(
        d,
        np.sqrt(2 / (np.pi * d)),
        linestyle="--",
        color="C1",
        label="theory: √(2 / (π d)) ≈ 0.8 / √d",
    )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    plain_log_ticks(ax.xaxis)
    ax.yaxis.set_major_locator(FixedLocator([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]))
    plain_log_ticks(ax.yaxis)
    ax.set_xlabel("dimension d")
    ax.set_ylabel("mean |cosine|")
    ax.set_title("Random directions become nearly orthogonal as d grows")
    ax.legend(loc="upper right")
    return ax


@course_style
def plot_probe_vs_dim(
    dims: ArrayLike,
    r2_with_tokens: ArrayLike,
    r2_position_only: ArrayLike,
    ax: Axes | None = None,
) -> Axes:
    """R² of a linear position probe against the dimension, with and without embeddings.

    Parameters
    ----------
    dims : array_like
        Dimensions ``d`` (x axis, log scale), each >= 1.
    r2_with_tokens : array_like
        Probe R² on ``embedding + PE``, one per dimension.
    r2_position_only : array_like
        Probe R² on ``PE`` alone, one per dimension.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines[0]`` with embeddings, ``ax.lines[1]`` PE only.

    Examples
    --------
    >>> ax = plot_probe_vs_dim([8, 16], [0.3, 0.5], [1.0, 1.0])
    >>> ax.lines[0].get_ydata().tolist()
    [0.3, 0.5]
    """
    d = _dimensions("dims", dims)
    mixed = _curve("r2_with_tokens", r2_with_tokens, d)
    alone = _curve("r2_position_only", r2_position_only, d)
    ax = new_axes(ax)
    ax.plot(d, mixed, marker="o", color="C0", label="probe on embedding + PE")
    ax.plot(d, alone, marker="s", linestyle="--", color="C1", label="probe on PE alone")
    ax.set_xscale("log", base=2)
    plain_log_ticks(ax.xaxis)
    ax.set_xlabel("dimension d")
    ax.set_ylabel("R² on held-out samples")
    ax.set_title("A linear probe reads the position back, better as d grows")
    ax.set_ylim(min(-0.05, float(min(mixed.min(), alone.min())) - 0.05), 1.05)
    ax.legend(loc="lower right")
    return ax


#: Pairs of random vectors in the left panel of :class:`DimensionPanels`.
DIMENSION_PAIRS = 2000
#: Fixed height of the histogram axis: the tallest bar for d up to 256 is about 0.3.
_HISTOGRAM_TOP = 0.36
_PROBE_POSITIONS = 32


class DimensionPanels(LiveFigure):
    """Lesson 02's width slider: random cosines (left) and the position probe (right).

    Left: a histogram of the cosines of :data:`DIMENSION_PAIRS` random pairs in ``d``
    dimensions. Right: held-out samples, true position against the position a linear
    probe reads from embedding + PE. Both axes keep their limits at every ``d``, so a
    step redraws only the histogram, points and titles.

    Parameters
    ----------
    seed : int, default 0
        Seed of the random vectors and embeddings: the same ``d`` always gives the
        same picture.

    Examples
    --------
    >>> figure = DimensionPanels().draw(d_model=128)
    >>> figure.axes[1].get_title()
    'Probe on embedding + PE, d = 128: R² = 0.83'
    """

    controls = {"d_model": even_control("d", 16, 2, 256)}
    figsize = (WIDE_FIGSIZE[0], 4.0)
    grid = (1, 2)

    def __init__(self, seed: int = 0) -> None:
        self.seed = check_int("seed", seed, minimum=0)
        if self.seed >= 2**32:
            raise ValueError(f"seed must be < 2**32, got {self.seed}")

    def data(self, d_model: int) -> tuple[np.ndarray, ProbeResult]:
        """The cosines and the probe drawn for width ``d_model``."""
        d_model = self.controls["d_model"].check("d_model", d_model)
        cosines = random_cosines(d_model, DIMENSION_PAIRS, np.random.default_rng(self.seed))
        return cosines, position_probe(d_model, np.random.default_rng(self.seed))

    def build(self, axes) -> SimpleNamespace:
        left, right = axes
        histogram = left.stairs(np.zeros(COSINE_BINS.size - 1), COSINE_BINS, fill=True, color="C0")
        left.set_xlim(-1.0, 1.0)
        left.set_ylim(0.0, _HISTOGRAM_TOP)
        left.set_xlabel("cosine of two random vectors")
        left.set_ylabel("fraction of pairs")
        top = _PROBE_POSITIONS - 1.0
        right.plot([0.0, top], [0.0, top], linestyle="--", color="C1", label="perfect probe")
        points = right.scatter(
            np.zeros(0), np.zeros(0), alpha=0.4, color="C0", label="held-out samples"
        )
        right.set_xlim(-1.0, top + 1.0)
        right.set_ylim(-0.5 * top, 1.5 * top)
        right.set_xlabel("true position t")
        right.set_ylabel("position read by the probe")
        right.legend(loc="upper left")
        return SimpleNamespace(left=left, right=right, histogram=histogram, points=points)

    def update(self, art: SimpleNamespace, d_model: int) -> None:
        cosines, probe = self.data(d_model)
        counts, _ = np.histogram(cosines, bins=COSINE_BINS)
        art.histogram.set_data(counts / cosines.size)
        art.points.set_offsets(np.column_stack([probe.true_positions, probe.predicted_positions]))
        art.left.title.set_text(
            f"Random pairs, d = {d_model}: mean |cos| = {np.abs(cosines).mean():.3f}"
        )
        art.right.title.set_text(f"Probe on embedding + PE, d = {d_model}: R² = {probe.r2:.2f}")

    def moving(self, art: SimpleNamespace) -> list:
        return [art.histogram, art.points, art.left.title, art.right.title]


# --- exercises ------------------------------------------------------------------------------


def _concat_case(d: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.normal(size=d), rng.normal(size=(d, d + n))


def _one_hot(n: int, position: int) -> np.ndarray:
    return np.eye(n)[position]


def check_concat_then_project(answer: object) -> Feedback:
    """Check ``concat_then_project(x, position, w, n_positions)`` of lesson 02.

    It stacks the embedding ``x`` (length d) on a one-hot vector of ``n_positions``
    entries with a 1 at ``position``, and multiplies by ``w`` of shape
    ``(d, d + n_positions)``.

    Examples
    --------
    >>> def solution(x, position, w, n_positions):
    ...     return w @ np.concatenate([x, np.eye(n_positions)[position]])
    >>> check_concat_then_project(solution).status
    'correct'
    """
    d, n = 4, 6
    x, w = _concat_case(d, n, 202)

    def result(attempt, position: int) -> np.ndarray:
        return as_array(
            attempt(x, position, w, n), f"your vector for position {position}", shape=(d,)
        )

    def position_missing(attempt) -> str | None:
        if close(result(attempt, 2), w[:, :d] @ x):
            return (
                "the position part is missing: you get W_I·x only. The one-hot vector "
                "needs a 1 at index position, so that W_P contributes its column."
            )
        return None

    def off_by_one(attempt) -> str | None:
        for position in (1, 2, 3):
            got = result(attempt, position)
            for wrong in (position - 1, position + 1):
                if close(got, w[:, :d] @ x + w[:, d + wrong]):
                    return (
                        f"for position {position} your one-hot vector has its 1 at index "
                        f"{wrong}: positions count from 0, so put it at index position."
                    )
        return None

    def values(attempt) -> str | None:
        for position in range(n):
            if not close(result(attempt, position), w @ np.concatenate([x, _one_hot(n, position)])):
                return f"for position {position} the result is not W·[x; one_hot(position)]."
        return None

    return grade(
        "concatenate, then project",
        answer,
        [position_missing, off_by_one, values],
        "np.eye(n_positions)[position] is the one-hot vector; np.concatenate([x, p]) "
        "stacks; w @ ... projects.",
        call=(x, 0, w, n),
    )


def check_add_position_vector(answer: object) -> Feedback:
    """Check ``add_position_vector(x, position, w_token, w_position)`` of lesson 02.

    It must return ``w_token @ x + w_position[:, position]``: the embedding plus the
    learned vector of that position (a column of ``W_P``), equal to the
    concatenate-then-project result. A square case (as many positions as dimensions)
    comes first, so the slip ``w_position[position]`` (a row) is named rather than
    ending in numpy's broadcasting error.

    Examples
    --------
    >>> check_add_position_vector(lambda x, p, wt, wp: wt @ x + wp[:, p]).status
    'correct'
    >>> print(check_add_position_vector(lambda x, p, wt, wp: wt @ x + wp[p]).message)
    you took a row of W_P (w_position[position]); each position owns a COLUMN: \
w_position[:, position].
    """
    cases = [(5, 5, 212), (4, 6, 202)]  # (d, n_positions, seed): square first

    def run(attempt, d: int, n: int, seed: int, position: int) -> tuple[np.ndarray, np.ndarray]:
        x, w = _concat_case(d, n, seed)
        w_token, w_position = w[:, :d], w[:, d:]
        got = attempt(x, position, w_token, w_position)
        want = w @ np.concatenate([x, _one_hot(n, position)])
        return as_array(got, f"your vector for position {position}", shape=(d,)), want

    def row_not_column(attempt) -> str | None:
        d, n, seed = cases[0]
        x, w = _concat_case(d, n, seed)
        for position in range(n):
            got, _ = run(attempt, d, n, seed, position)
            if close(got, w[:, :d] @ x + w[position, d:]):
                return (
                    "you took a row of W_P (w_position[position]); each position owns a "
                    "COLUMN: w_position[:, position]."
                )
        return None

    def equals_concat(attempt) -> str | None:
        for d, n, seed in cases:
            for position in range(n):
                got, want = run(attempt, d, n, seed, position)
                if not close(got, want):
                    return (
                        f"with d = {d}, {n} positions: for position {position} the sum "
                        "differs from W·[x; one_hot(position)]."
                    )
        return None

    x, w = _concat_case(*cases[0])
    return grade(
        "embedding plus a learned position vector",
        answer,
        [row_not_column, equals_concat],
        "W·[x; p] = W_I·x + W_P·p, and W_P·one_hot(position) picks one COLUMN of W_P: "
        "w_position[:, position] (w_position[position] would be a row).",
        call=(x, 0, w[:, :5], w[:, 5:]),
    )


def check_fit_position_probe(answer: object) -> Feedback:
    """Check ``fit_position_probe(features, positions)`` of lesson 02.

    It returns ``d + 1`` least-squares weights: one per feature, then the bias, so that
    ``features @ weights[:-1] + weights[-1]`` predicts the positions.

    Examples
    --------
    >>> def solution(features, positions):
    ...     design = np.column_stack([features, np.ones(len(features))])
    ...     return np.linalg.lstsq(design, positions, rcond=None)[0]
    >>> check_fit_position_probe(solution).status
    'correct'
    """
    rng = np.random.default_rng(303)
    positions = rng.integers(0, 20, 120).astype(np.float64)
    features = sinusoidal_pe(positions, 8) + 0.5 * rng.normal(size=(120, 8))
    design = np.column_stack([features, np.ones(len(features))])
    best = np.linalg.lstsq(design, positions, rcond=None)[0]
    d = features.shape[1]

    def weights(attempt) -> np.ndarray:
        return as_array(attempt(features, positions), "your weights")

    def no_bias(attempt) -> str | None:
        if weights(attempt).shape == (d,):
            return (
                f"you returned {d} weights: the probe also needs a bias (an intercept), "
                "so add a column of ones to the features and return d + 1 weights."
            )
        return None

    def shape(attempt) -> str | None:
        got = weights(attempt)
        return None if got.shape == (d + 1,) else f"return {d + 1} weights, got shape {got.shape}."

    def bias_first(attempt) -> str | None:
        got = weights(attempt)
        if close(got, np.r_[best[-1], best[:-1]]) and not close(got, best):
            return "put the bias last: weights[:-1] multiply the features, weights[-1] is added."
        return None

    def least_squares(attempt) -> str | None:
        got = weights(attempt)
        residual = float(np.sum((design @ got.astype(np.float64) - positions) ** 2))
        optimum = float(np.sum((design @ best - positions) ** 2))
        if residual > optimum * (1 + 10 * tolerance(got)):
            return (
                f"these weights are not the least-squares fit: squared error {residual:.4g}, "
                f"the best possible is {optimum:.4g}."
            )
        return None

    return grade(
        "fit a linear position probe",
        answer,
        [no_bias, shape, bias_first, least_squares],
        "design = np.column_stack([features, np.ones(len(features))]); "
        "np.linalg.lstsq(design, positions, rcond=None)[0].",
        call=(features, positions),
    )
