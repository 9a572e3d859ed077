"""Lesson 07 · Rotary position embedding (RoPE).

The notebook ``notebooks/07_rope.ipynb`` derives RoPE from one requirement (the score
may depend on ``n - m`` only), checks it, and looks at what it does over long
distances. The rotation itself is maths shared with later lessons and lives in
:mod:`pe_helpers.rope`; what only this lesson needs lives here:

* two measurements: :func:`mean_abs_scores` (the typical size of a score against
  distance, next to RoFormer's bound) and :func:`unseen_angle_gaps` (how far the
  angles met beyond the training length are from every angle seen in training);
* the figure :class:`RopeOffset` (score against distance and a score matrix, under a
  base slider and a position-offset slider);
* the exercise checkers :func:`check_rotate_pair`, :func:`check_rope_adjacent` and
  :func:`check_unwrapped_pairs`.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace

import numpy as np
from numpy.typing import ArrayLike

from .._validate import check_array, check_base, check_d_model, check_int, check_positions
from ..attention import relative_deviation
from ..encodings import frequencies
from ..figures import diverging_cmap, format_base
from ..grading import Feedback, agrees_on, as_array, as_pair, close, grade, tolerance
from ..live import LiveFigure, int_control, log_control, side_by_side
from ..rope import apply_rope, rope_scores

__all__ = [
    "MAX_WIDTH",
    "RopeOffset",
    "check_rope_adjacent",
    "check_rotate_pair",
    "check_unwrapped_pairs",
    "mean_abs_scores",
    "offset_title",
    "unseen_angle_gaps",
]

#: Largest vector width the helpers accept.
MAX_WIDTH = 2048
#: Most (vector, distance) scores one call of :func:`mean_abs_scores` computes.
MAX_SCORES = 10_000_000
#: Longest sequence :func:`unseen_angle_gaps` looks at.
MAX_LENGTH = 100_000


def _check_width(name: str, width: int) -> int:
    check_d_model(width, name=name)
    if width > MAX_WIDTH:
        raise ValueError(f"{name} must be at most {MAX_WIDTH}, got {width}")
    return width


# --- maths: how large scores are, and which angles are new -----------------------------------


def mean_abs_scores(
    queries: ArrayLike, keys: ArrayLike, distances: ArrayLike, base: float = 10000.0
) -> np.ndarray:
    """Mean of ``|q_i · R_r k_i|`` over the rows ``i``, for each distance ``r``.

    Row ``i`` pairs query ``q_i`` at position 0 with key ``k_i`` at position ``r``
    (RoPE, adjacent pairs): the typical size of a score at distance ``r``, to set
    beside RoFormer's bound (:func:`pe_helpers.rope.rope_score_bound`). Computed in
    complex form: with pair products ``h = z_q conj(z_k)`` the score is
    ``Re Σ_k h_k exp(-i r w_k)``, one matrix product for all distances.

    Parameters
    ----------
    queries, keys : array_like
        Shape ``(n, d)`` each, ``d`` even and at most :data:`MAX_WIDTH`.
    distances : array_like
        1-D relative distances ``r`` (``n * len(distances)`` at most :data:`MAX_SCORES`).
    base : float, default 10000.0
        Frequency base; must be > 0.

    Returns
    -------
    numpy.ndarray
        Shape ``(len(distances),)``, non-negative.

    Examples
    --------
    >>> ones = np.ones((1, 4))
    >>> mean_abs_scores(ones, ones, [0, 1], base=100.0).round(3).tolist()  # 2 cos 1 + 2 cos 0.1
    [4.0, 3.071]
    """
    q = check_array("queries", queries, ndim=2).astype(np.float64)
    k = check_array("keys", keys, ndim=2).astype(np.float64)
    if q.shape != k.shape:
        raise ValueError(f"queries and keys must have the same shape, got {q.shape} and {k.shape}")
    _check_width("queries.shape[1]", q.shape[1])
    r = check_positions(distances, name="distances")
    if r.size == 0:
        raise ValueError("distances must not be empty")
    if q.shape[0] * r.size > MAX_SCORES:
        raise ValueError(
            f"queries rows × distances may be at most {MAX_SCORES:,}, got {q.shape[0]} × {r.size}"
        )
    w = frequencies(q.shape[1], check_base(base))
    products = (q[:, 0::2] + 1j * q[:, 1::2]) * np.conj(k[:, 0::2] + 1j * k[:, 1::2])
    block = max(1, 1_000_000 // q.shape[0])  # distances per step: at most ~16 MB of scores
    means = [
        np.abs((products @ np.exp(-1j * np.outer(w, r[start : start + block]))).real).mean(axis=0)
        for start in range(0, r.size, block)
    ]
    return np.concatenate(means)


def unseen_angle_gaps(d_model: int, base: float, train_length: int, test_length: int) -> np.ndarray:
    """For each pair, how far the angles of a longer sequence are from those seen in training.

    Pair ``k`` turns by ``m·w_k`` at position ``m``. Training shows the angles of
    positions ``0 .. train_length - 1`` (modulo 2π). The value for pair ``k`` is the
    largest distance on the circle between an angle of a position ``0 .. test_length - 1``
    and the nearest training angle: at most ``w_k / 2`` when training went round the
    whole circle, larger when the longer sequence reaches angles training never made.

    Parameters
    ----------
    d_model : int
        Width; positive, even, at most :data:`MAX_WIDTH`.
    base : float
        Frequency base; must be > 0.
    train_length : int
        Positions seen in training, >= 1.
    test_length : int
        Positions of the longer sequence, ``train_length`` to :data:`MAX_LENGTH`.

    Returns
    -------
    numpy.ndarray
        Shape ``(d_model // 2,)``, radians in ``[0, π]``.

    Examples
    --------
    >>> gaps = unseen_angle_gaps(4, 100.0, 8, 64)  # w = (1, 0.1)
    >>> bool(gaps[0] <= 0.5), round(float(gaps[1]), 2)
    (True, 2.78)
    """
    d_model = _check_width("d_model", d_model)
    w = frequencies(d_model, check_base(base))
    train_length = check_int("train_length", train_length, minimum=1, maximum=MAX_LENGTH)
    test_length = check_int("test_length", test_length, minimum=train_length, maximum=MAX_LENGTH)
    full_turn = 2 * np.pi
    gaps = np.empty(w.size)
    for index, frequency in enumerate(w):
        seen = np.sort(np.mod(np.arange(train_length) * frequency, full_turn))
        ring = np.concatenate([seen - full_turn, seen, seen + full_turn])
        angles = np.mod(np.arange(test_length) * frequency, full_turn)
        right = np.searchsorted(ring, angles)
        nearest = np.minimum(ring[right] - angles, angles - ring[right - 1])
        gaps[index] = nearest.max()
    return gaps


# --- figure ---------------------------------------------------------------------------------


def offset_title(offset: float, n_positions: int, deviation: float) -> str:
    """Title of the RoPE score heatmap: the positions shown and the relative deviation.

    Examples
    --------
    >>> offset_title(100, 24, 0.0)
    'positions 100 to 123: relative deviation 0.0e+00'
    """
    last = offset + n_positions - 1
    return f"positions {offset:g} to {last:g}: relative deviation {deviation:.1e}"


class RopeOffset(LiveFigure):
    """A RoPE score against distance, and a score matrix, with every position shifted.

    Left: the score of ``q`` at position *offset* and ``k`` at *offset + r*, for
    ``r = 0 .. max_distance`` (dots: the same at offset 0). Right: the score matrix of
    ``q`` and ``k`` placed at positions ``offset .. offset + n_positions - 1``; colours
    span ``±|q||k|``. Sliders: ``base`` (10 to 10⁶, log scale) and ``offset`` (0 to
    10,000): the offset changes nothing, the base changes how fast the score varies.

    Parameters
    ----------
    q, k : array_like, optional
        1-D vectors of the same even width (at most :data:`MAX_WIDTH`); give both or
        neither. Default: a seeded random ``q`` of width 64 and a key that resembles it.
    n_positions : int, default 24
        Size of the heatmap, 2 to 128.
    max_distance : int, default 64
        Largest distance on the curve, 1 to 1024.

    Examples
    --------
    >>> figure = RopeOffset([1.0, 0.0], [1.0, 0.0], max_distance=2).draw(offset=500)
    >>> figure.axes[0].lines[0].get_ydata().round(4).tolist()
    [1.0, 0.5403, -0.4161]
    """

    controls = {
        "base": log_control("base", 10000.0, 10.0, 1e6),
        "offset": int_control("position offset", 0, 0, 10000, 100),
    }
    layout = side_by_side(width_ratios=(1.2, 1.0))

    def __init__(
        self,
        q: ArrayLike | None = None,
        k: ArrayLike | None = None,
        n_positions: int = 24,
        max_distance: int = 64,
    ) -> None:
        if (q is None) != (k is None):
            raise TypeError("give both q and k, or neither (for the default vectors)")
        if q is None:
            rng = np.random.default_rng(0)
            q = rng.normal(size=64)
            k = q + 0.5 * rng.normal(size=64)
        self.q = check_array("q", q, ndim=1).astype(np.float64)
        self.k = check_array("k", k, ndim=1).astype(np.float64)
        _check_width("q.size", self.q.size)
        if self.k.size != self.q.size:
            raise ValueError(
                f"q and k must have the same width, got {self.q.size} and {self.k.size}"
            )
        self.n_positions = check_int("n_positions", n_positions, minimum=2, maximum=128)
        max_distance = check_int("max_distance", max_distance, minimum=1, maximum=1024)
        self.distances = np.arange(max_distance + 1)
        self.limit = float(np.linalg.norm(self.q) * np.linalg.norm(self.k)) or 1.0

    def build(self, axes) -> SimpleNamespace:
        curve_ax, heat_ax = axes
        zeros = np.zeros(self.distances.size)
        (curve,) = curve_ax.plot(self.distances, zeros, color="C0", label="query at the offset")
        (reference,) = curve_ax.plot(
            self.distances,
            zeros,
            color="C1",
            marker="o",
            markersize=4,
            linestyle="none",
            label="query at 0 (reference)",
        )
        curve_ax.set_xlim(0, self.distances[-1])
        curve_ax.set_ylim(-1.05 * self.limit, 1.05 * self.limit)
        curve_ax.set_xlabel("relative distance n − m")
        curve_ax.set_ylabel("score q_m · k_n")
        curve_ax.legend(loc="upper right")
        n = self.n_positions
        image = heat_ax.imshow(
            np.zeros((n, n)),
            cmap=diverging_cmap(),
            vmin=-self.limit,
            vmax=self.limit,
            aspect="auto",
            interpolation="nearest",
        )
        heat_ax.figure.colorbar(image, ax=heat_ax, label="score")
        heat_ax.set_xlabel("key position n − offset")
        heat_ax.set_ylabel("query position m − offset")
        return SimpleNamespace(
            curve_ax=curve_ax, heat_ax=heat_ax, curve=curve, reference=reference, image=image
        )

    def update(self, art: SimpleNamespace, base: float, offset: int) -> None:
        q, k, distances = self.q, self.k, self.distances
        grid = offset + np.arange(self.n_positions)
        matrix = rope_scores(q, k, grid, grid, base)
        art.curve.set_ydata(rope_scores(q, k, [offset], offset + distances, base)[0])
        art.reference.set_ydata(rope_scores(q, k, [0], distances, base)[0])
        art.curve_ax.title.set_text(f"Score vs distance, base = {format_base(base)}")
        art.image.set_data(matrix)
        art.heat_ax.title.set_text(
            offset_title(offset, self.n_positions, relative_deviation(matrix))
        )

    def moving(self, art: SimpleNamespace) -> list:
        return [art.curve, art.reference, art.curve_ax.title, art.image, art.heat_ax.title]


# --- exercise checkers ----------------------------------------------------------------------


def check_rotate_pair(rotate_pair: Callable) -> Feedback:
    """Lesson 07, exercise 1: ``rotate_pair(x0, x1, angle)`` turns ``(x0, x1)`` counter-clockwise.

    It must work on numbers and on numpy arrays of equal shape.

    Examples
    --------
    >>> def rotate_pair(x0, x1, angle):
    ...     c, s = np.cos(angle), np.sin(angle)
    ...     return x0 * c - x1 * s, x0 * s + x1 * c
    >>> check_rotate_pair(rotate_pair).status
    'correct'
    """
    rng = np.random.default_rng(7)
    x0, x1, angles = rng.normal(size=20), rng.normal(size=20), rng.uniform(-4, 4, size=20)
    cos, sin = np.cos(angles), np.sin(angles)
    want0, want1 = x0 * cos - x1 * sin, x0 * sin + x1 * cos

    def quarter_turn(attempt: Callable) -> str | None:
        what = "your result for (1, 0) turned by π/2"
        pair = as_pair(attempt(1.0, 0.0, np.pi / 2), what)
        named = zip(("y0", "y1"), pair, strict=True)
        got = np.concatenate([as_array(y, f"{name} for (1, 0)").ravel() for name, y in named])
        if got.shape != (2,):
            return f"{what} must be two numbers (y0, y1), got {got.size} values."
        if close(got, [0.0, -1.0]):
            return (
                "(1, 0) turned by +π/2 gave (0, −1): that is clockwise. Counter-clockwise "
                "needs y0 = x0·cos − x1·sin and y1 = x0·sin + x1·cos."
            )
        if not close(got, [0.0, 1.0]):
            return f"(1, 0) turned by π/2 should give (0, 1), got ({got[0]:.3f}, {got[1]:.3f})."
        return None

    def on_arrays(attempt: Callable) -> str | None:
        try:
            result = attempt(x0, x1, angles)
        except Exception as exc:
            original = getattr(exc, "original", None)
            if not isinstance(original, TypeError):
                raise
            return (
                "your function works on single numbers but raised TypeError on numpy arrays: "
                "math.cos and math.sin take one number; np.cos and np.sin work on whole arrays."
            )
        what = "your result for arrays of 20 values"
        got = as_array(as_pair(result, what), what, shape=(2, 20))
        y0, y1 = got
        if not close(np.hypot(y0, y1), np.hypot(x0, x1), scale=1.0):
            return "a rotation keeps the length of (x0, x1); yours changes it — check the signs."
        if not (close(y0, want0, scale=1.0) and close(y1, want1, scale=1.0)):
            return "right for (1, 0) but not for general (x0, x1) — both inputs take part."
        return None

    return grade(
        "rotate one pair",
        rotate_pair,
        [quarter_turn, on_arrays],
        "multiply (x0, x1) by [[cos, −sin], [sin, cos]]; it must work on numbers and arrays.",
        call=(1.0, 0.0, 0.5),
    )


def check_rope_adjacent(rope_adjacent: Callable) -> Feedback:
    """Lesson 07, exercise 2: ``rope_adjacent(x, positions, base)`` is RoPE with adjacent pairs.

    Checked for two bases, so an answer that ignores ``base`` is caught.

    Examples
    --------
    >>> check_rope_adjacent(lambda x, positions, base: apply_rope(x, positions, base)).status
    'correct'
    """
    rng = np.random.default_rng(8)
    x = rng.normal(size=(5, 8))
    positions = np.array([0.0, 3.0, 7.0, 12.0, 100.0])
    scale = float(np.abs(x).max())

    def slip(got: np.ndarray, want: np.ndarray, x: np.ndarray, positions, base: float) -> str:
        return f"for base = {base:g}: {_rope_slip(got, x, positions, base, scale)}"

    matches = agrees_on(
        apply_rope,
        [(x, positions, base) for base in (10000.0, 500.0)],
        what=lambda x, positions, base: f"your result for base = {base:g}",
        slip=slip,
        scale=scale,
    )
    return grade(
        "RoPE, adjacent pairs",
        rope_adjacent,
        [matches],
        "angles = np.outer(positions, w) with w_k = base ** (−2k/d); then rotate "
        "(x[:, 0::2], x[:, 1::2]) with rotate_pair.",
        call=(x, positions, 10000.0),
    )


def _rope_slip(
    got: np.ndarray, x: np.ndarray, positions: np.ndarray, base: float, scale: float
) -> str:
    """The message for a wrong RoPE answer: the known slip it matches, or a general one."""

    def same(expected: np.ndarray) -> bool:
        return close(got, expected, scale=scale)

    for other in (10000.0, 500.0):
        if other != base and same(apply_rope(x, positions, other)):
            return (
                f"you returned the rotation for base {other:g}: use the base argument "
                "instead of a fixed number."
            )
    if same(apply_rope(x, positions, base, pairing="halves")):
        return (
            "you used the split-halves layout (pairs k and k + d/2); this exercise wants "
            "adjacent pairs (2k, 2k + 1), as in RoFormer."
        )
    if same(apply_rope(x, -positions, base)):
        return "you rotated clockwise: the angle is +m·w_k (counter-clockwise)."
    if same(apply_rope(x, np.arange(len(positions)), base)):
        return "you used the row index as the position; use the positions argument."
    lengths = np.linalg.norm(got.astype(np.float64), axis=1)
    if np.allclose(lengths, np.linalg.norm(x, axis=1), rtol=tolerance(got)):
        return (
            "lengths are kept but the angles are off: pair k turns by m·w_k with "
            "w_k = base ** (−2k / d), k counting pairs (0 .. d/2 − 1), not columns."
        )
    return "the rows changed length: each pair must be rotated, not scaled."


def check_unwrapped_pairs(unwrapped_pairs: Callable) -> Feedback:
    """Lesson 07, exercise 3: ``unwrapped_pairs(d_model, base, train_length)`` marks the pairs
    whose angle never completes a full turn over positions ``0 .. train_length - 1``.

    Examples
    --------
    >>> def answer(d_model, base, train_length):
    ...     return (train_length - 1) * frequencies(d_model, base) < 2 * np.pi
    >>> check_unwrapped_pairs(answer).status
    'correct'
    """
    cases = [(128, 10000.0, 512), (64, 500000.0, 4096), (16, 100.0, 50), (4, 10000.0, 7)]

    def matches(attempt: Callable) -> str | None:
        for d_model, base, length in cases:
            result = attempt(d_model, base, length)
            what = f"your result for d_model = {d_model}"
            values = as_array(result, what)
            if values.shape != (d_model // 2,):
                return (
                    f"return one entry per pair (d_model/2 = {d_model // 2}), "
                    f"got shape {values.shape}."
                )
            if np.asarray(result).dtype != bool:
                return (
                    "return booleans (True = never a full turn), "
                    f"got dtype {np.asarray(result).dtype}."
                )
            got = values.astype(bool)
            w = frequencies(d_model, base)
            expected = (length - 1) * w < 2 * np.pi
            if np.array_equal(got, expected):
                continue
            if np.array_equal(got, ~expected):
                return "you marked the pairs that DO complete a turn; invert the test."
            if np.array_equal(got, length * w < 2 * np.pi):
                return (
                    f"off by one for d = {d_model}, L = {length}: the last position is "
                    "L − 1, so the largest angle is (L − 1)·w_k."
                )
            return (
                f"wrong for d = {d_model}, base = {base:g}, L = {length}: compare (L − 1)·w_k "
                "with 2π, with w_k = base ** (−2k / d)."
            )
        return None

    return grade(
        "pairs that never turn fully in training",
        unwrapped_pairs,
        [matches],
        "the largest angle pair k reaches is (L − 1)·w_k; compare it with 2π.",
        call=(8, 10000.0, 16),
    )
