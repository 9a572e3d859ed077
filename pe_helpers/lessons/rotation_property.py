"""Lesson 04 · The rotation property.

Shifting a position by Δ turns every (sin, cos) pair of the sinusoidal encoding by
the same angle ``w_k Δ``, whatever the position: one fixed matrix ``T_Δ`` does the
shift. This module holds the lesson's helpers (one pair at shifted positions, the
angle caption), its figures (:class:`PairRotation` under sliders, and the static
:func:`plot_shift_scatter`) and its exercise checkers.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import ClassVar

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from numpy.typing import ArrayLike

from .._docs import fill_doc
from .._validate import (
    check_array,
    check_base,
    check_int,
    check_positions,
    check_real,
)
from ..encodings import frequencies
from ..figures import FIGSIZE, course_style, new_axes
from ..grading import (
    AnswerProblem,
    Feedback,
    as_array,
    as_number,
    as_pair,
    close,
    grade,
    tolerance,
    value_of,
)
from ..live import Layout, LiveFigure, float_control, int_control

__all__ = [
    "MAX_LABELLED_POSITIONS",
    "PairRotation",
    "check_rotation_angle",
    "check_shift_block",
    "check_sin_collision",
    "pair_points",
    "plot_shift_scatter",
    "rotation_caption",
]

#: Most positions the pair-rotation figure draws: each gets a label, and a step must stay fast.
MAX_LABELLED_POSITIONS = 12
#: Most positions :func:`pair_points` computes at once.
MAX_POSITIONS = 1_000_000


# --- the lesson's maths --------------------------------------------------------------------------


def pair_points(
    positions: int | ArrayLike,
    delta: float,
    frequency_index: int,
    d_model: int = 16,
    base: float = 10000.0,
) -> tuple[np.ndarray, np.ndarray, float]:
    """Pair ``k`` of the encoding at ``positions`` and at ``positions + delta``.

    Parameters
    ----------
    positions : int or array_like
        A count ``n`` (positions ``0 .. n-1``) or a 1-D array of positions; at most
        :data:`MAX_POSITIONS` of them.
    delta : float
        The shift Δ.
    frequency_index : int
        The pair index ``k``, from 0 to ``d_model/2 - 1``.
    d_model : int, default 16
        Width of the encoding (even).
    base : float, default 10000.0
        Frequency base.

    Returns
    -------
    pairs, shifted : numpy.ndarray, shape (n, 2)
        ``(sin(w_k t), cos(w_k t))`` and the same at ``t + Δ``: columns ``2k`` and
        ``2k + 1`` of ``sinusoidal_pe``.
    angle : float
        The angle ``w_k Δ`` (radians) by which every point turns, clockwise.

    Examples
    --------
    >>> pairs, shifted, angle = pair_points([0.0], np.pi / 2, 0)
    >>> shifted.round(12).tolist(), angle == np.pi / 2
    ([[1.0, 0.0]], True)
    """
    t = check_positions(positions)
    if t.size > MAX_POSITIONS:
        raise ValueError(f"positions must hold at most {MAX_POSITIONS:,} values, got {t.size:,}")
    delta = check_real("delta", delta)
    w = frequencies(d_model, base)
    k = check_int("frequency_index", frequency_index, minimum=0)
    if k >= w.size:
        raise ValueError(f"frequency_index must be < d_model/2 = {w.size}, got {k}")
    return _pair(w[k] * t), _pair(w[k] * (t + delta)), float(w[k] * delta)


def _pair(angles: np.ndarray) -> np.ndarray:
    return np.column_stack([np.sin(angles), np.cos(angles)])


def rotation_caption(angle: float, frequency_index: int) -> str:
    """The text that annotates a pair rotation: the angle ``w_k·Δ`` in radians and degrees.

    Examples
    --------
    >>> rotation_caption(np.pi / 2, 0)
    'w_0·Δ = 1.571 rad = 90.0° (clockwise)'
    >>> rotation_caption(6.5, 0)
    'w_0·Δ = 6.500 rad = 372.4° ≡ 12.4° (clockwise)'
    """
    angle = check_real("angle", angle)
    frequency_index = check_int("frequency_index", frequency_index, minimum=0)
    degrees = float(np.degrees(angle))
    text = f"w_{frequency_index}·Δ = {angle:.3f} rad = {degrees:.1f}°"
    if abs(degrees) >= 360:
        text += f" ≡ {degrees % 360:.1f}°"
    return text + " (clockwise)"


# --- figures -------------------------------------------------------------------------------------


class PairRotation(LiveFigure):
    """Pair ``k`` of a few positions on the unit circle, and where a shift Δ moves them.

    Dots are ``(sin(w_k t), cos(w_k t))`` (x = dimension ``2k``, y = ``2k + 1``),
    squares the same pair at ``t + Δ``, and a chord joins each dot to its square:
    every point turns clockwise by the same angle ``w_k Δ``.

    The encoding is 16 wide (:attr:`d_model`): the k slider runs over its 8 pairs, 0 (the
    fastest, ``w_0 = 1``) to 7 (the slowest), and is declared once, with the class.

    Parameters
    ----------
    base : float, default 10000.0
        Frequency base.
    positions : array_like, default (0, 2, 4)
        The positions drawn, each labelled (1 to :data:`MAX_LABELLED_POSITIONS`).

    Examples
    --------
    >>> view = PairRotation().view()
    >>> view.controls["frequency_index"].value = 1
    >>> view.figure.axes[0].get_title()
    'Pair k = 1 of d = 16, shifted by Δ = 1'
    >>> view.figure.axes[0].texts[0].get_text()  # the angle every point turns by
    'w_1·Δ = 0.316 rad = 18.1° (clockwise)'
    """

    #: Width of the encoding whose pairs the figure shows.
    d_model: ClassVar[int] = 16
    controls = {
        "delta": float_control("shift Δ", 1.0, 0.0, 20.0, 0.25),
        "frequency_index": int_control("pair k (frequency w_k)", 0, 0, d_model // 2 - 1),
    }
    layout = Layout(figsize=(8.0, 5.0))  # a square circle and its legend, no empty margins

    def __init__(self, *, base: float = 10000.0, positions: ArrayLike = (0, 2, 4)) -> None:
        self.base = check_base(base)
        self.positions = check_positions(positions)
        if not 1 <= self.positions.size <= MAX_LABELLED_POSITIONS:
            raise ValueError(
                f"positions must hold 1 to {MAX_LABELLED_POSITIONS} positions (each is "
                f"labelled), got {self.positions.size:,}"
            )

    def build(self, axes: Axes) -> SimpleNamespace:
        circle = np.linspace(0.0, 2.0 * np.pi, 361)
        axes.plot(np.cos(circle), np.sin(circle), color="0.75", linewidth=1.0, label="unit circle")
        chords = LineCollection([], colors="C1", linewidths=1.5, alpha=0.7, label="move t → t + Δ")
        axes.add_collection(chords, autolim=False)
        before = axes.scatter([], [], s=70, color="C0", zorder=3, label="position t")
        after = axes.scatter([], [], s=70, marker="s", color="C1", zorder=3, label="position t + Δ")
        caption = axes.text(0.02, 0.98, "", transform=axes.transAxes, va="top", ha="left")
        labels = [
            axes.text(0.0, 0.0, f"{t:g}", ha="center", va="center", color="C0")
            for t in self.positions
        ]
        axes.axhline(0.0, color="0.85", linewidth=0.8, zorder=0)
        axes.axvline(0.0, color="0.85", linewidth=0.8, zorder=0)
        axes.set_xlim(-1.35, 1.35)
        axes.set_ylim(-1.35, 1.35)
        axes.set_aspect("equal")
        axes.set_xlabel(r"dimension $2k$: $\sin(w_k t)$")
        axes.set_ylabel(r"dimension $2k+1$: $\cos(w_k t)$")
        axes.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
        return SimpleNamespace(
            axes=axes, before=before, after=after, chords=chords, caption=caption, labels=labels
        )

    def update(self, art: SimpleNamespace, delta: float, frequency_index: int) -> None:
        pairs, shifted, angle = pair_points(
            self.positions, delta, frequency_index, self.d_model, self.base
        )
        art.before.set_offsets(pairs)
        art.after.set_offsets(shifted)
        art.chords.set_segments(list(np.stack([pairs, shifted], axis=1)))
        art.caption.set_text(rotation_caption(angle, frequency_index))
        for label, (x, y) in zip(art.labels, pairs, strict=True):
            label.set_position((1.12 * x, 1.12 * y))
        art.axes.set_title(
            f"Pair k = {frequency_index} of d = {self.d_model}, shifted by Δ = {delta:g}"
        )

    def moving(self, art: SimpleNamespace) -> list:
        return [art.chords, art.before, art.after, art.caption, *art.labels, art.axes.title]


@fill_doc
@course_style
def plot_shift_scatter(
    before: ArrayLike,
    after: ArrayLike,
    ax: Axes | None = None,
    *,
    slope: float | None = None,
    highlight: ArrayLike | None = None,
    xlabel: str = "value at t",
    ylabel: str = "value at t + Δ",
    title: str = "",
) -> Axes:
    """Scatter of a feature at position ``t`` against the same feature at ``t + Δ``.

    If a linear map took the feature at ``t`` to the feature at ``t + Δ``, the
    points would lie on the line ``y = slope · x``; a loop means no such map exists.

    Parameters
    ----------
    before, after : array_like, shape (n,)
        The feature at ``t`` and at ``t + Δ``.
    {ax}
    slope : float, optional
        Draw the best line through the origin, ``y = slope · x``.
    highlight : array_like, shape (m, 2), optional
        Points ``(x, y)`` to mark (two positions with the same x but different y).
    xlabel, ylabel, title : str
        Axis labels and title.

    Returns
    -------
    matplotlib.axes.Axes
        The axes: the positions are ``ax.collections[0]``, the marked points (if any)
        ``ax.collections[1]``, the best line (if any) ``ax.lines[0]``.

    Examples
    --------
    >>> t = np.linspace(0, 6, 50)
    >>> ax = plot_shift_scatter(np.sin(t), np.sin(t + 1), slope=0.5)
    >>> ax.get_legend().get_texts()[-1].get_text()
    'best line y = 0.50·x'
    """
    x = check_array("before", before, ndim=1).astype(np.float64)
    y = check_array("after", after, ndim=1).astype(np.float64)
    if x.shape != y.shape:
        raise ValueError(f"after must have the shape of before {x.shape}, got {y.shape}")
    marks = None if highlight is None else check_array("highlight", highlight, ndim=2)
    if marks is not None and marks.shape[1] != 2:
        raise ValueError(f"highlight must have 2 columns (x, y), got shape {marks.shape}")
    ax = new_axes(ax, FIGSIZE)
    ax.scatter(x, y, s=14, color="C0", label="one position t")
    if marks is not None:
        ax.scatter(
            marks[:, 0],
            marks[:, 1],
            s=160,
            marker="*",
            color="C3",
            zorder=3,
            label="same x, different y",
        )
    if slope is not None:
        slope = check_real("slope", slope)
        ends = np.array([-1.0, 1.0])
        ax.plot(ends, slope * ends, color="C2", label=f"best line y = {slope:.2f}·x")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.set_aspect("equal")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return ax


# --- exercise checkers ---------------------------------------------------------------------------


def _shift_block(delta: float, w: float) -> np.ndarray:
    c, s = np.cos(w * delta), np.sin(w * delta)
    return np.array([[c, s], [-s, c]])


def check_shift_block(shift_block) -> Feedback:
    """Exercise 1: ``shift_block(delta, w)`` is the 2×2 matrix taking (sin wt, cos wt) to t + Δ.

    Examples
    --------
    >>> def shift_block(delta, w):
    ...     c, s = np.cos(w * delta), np.sin(w * delta)
    ...     return np.array([[c, s], [-s, c]])
    >>> check_shift_block(shift_block).status
    'correct'
    """
    cases = [(0.7, 1.0), (2.0, 0.3), (-1.5, 2.0), (10.0, 0.01)]

    def block(answer, delta: float, w: float) -> np.ndarray:
        return as_array(answer(delta, w), f"shift_block({delta:g}, {w:g})", shape=(2, 2))

    def seed_sign(answer) -> str | None:
        if close(block(answer, 0.7, 1.0), _shift_block(-0.7, 1.0)):
            return (
                "this is the source article's matrix [[cos, −sin], [sin, cos]]: it maps pairs "
                "ordered (cos, sin), and on our (sin, cos) pairs it shifts by −Δ. From "
                "sin(a+b) = sin a·cos b + cos a·sin b the top row is [cos wΔ, sin wΔ], so the "
                "minus sign belongs bottom-left."
            )
        return None

    def uses_frequency(answer) -> str | None:
        ignores_w = _shift_block(2.0, 1.0)
        if close(block(answer, 2.0, 1.0), ignores_w) and close(block(answer, 2.0, 0.3), ignores_w):
            return "right for w = 1 but not for w = 0.3: the pair turns by the angle w·Δ, not Δ."
        return None

    def maps_pe(answer) -> str | None:
        for delta, w in cases:
            if not close(block(answer, delta, w), _shift_block(delta, w)):
                return (
                    f"for Δ = {delta:g}, w = {w:g} your matrix does not take "
                    "(sin wt, cos wt) to (sin w(t+Δ), cos w(t+Δ)); expand both with the "
                    "angle-addition formulas."
                )
        return None

    return grade(
        "2×2 shift block",
        shift_block,
        [seed_sign, uses_frequency, maps_pe],
        "write sin(w(t+Δ)) and cos(w(t+Δ)) with the angle-addition formulas and read off "
        "the coefficients of sin(wt) and cos(wt).",
        call=(0.7, 1.0),
    )


#: Largest |t| a collision answer may use: beyond it rounding blurs "equal sines".
_COLLISION_LIMIT = 10_000.0


def check_sin_collision(answer: object) -> Feedback:
    """Exercise 2: two positions with equal sin(t) but different sin(t + 1) (w = 1, Δ = 1).

    ``answer`` is a pair ``(t1, t2)``, or a function with no arguments returning one.

    Examples
    --------
    >>> check_sin_collision((1.0, np.pi - 1.0)).status
    'correct'
    >>> check_sin_collision((0.5, np.pi - 0.5)).message
    'that is the pair used in the lesson; find another one.'
    """

    def positions(answer: object) -> tuple[float, float, float]:
        first, second = as_pair(value_of(answer), "your answer (t1, t2)")
        t1, t2 = as_number(first, "t1"), as_number(second, "t2")
        if max(abs(t1), abs(t2)) > _COLLISION_LIMIT:
            raise AnswerProblem(
                f"keep both positions within ±{_COLLISION_LIMIT:,.0f} (got {t1:g}, {t2:g}): "
                "that far out, rounding decides whether two sines are equal."
            )
        return t1, t2, tolerance(first, second)

    def distinct(answer: object) -> str | None:
        t1, t2, _ = positions(answer)
        if abs(t1 - t2) < 1e-3:
            return f"t1 and t2 must be different positions, got {t1:g} and {t2:g}."
        if np.allclose(sorted([t1, t2]), [0.5, np.pi - 0.5]):
            return "that is the pair used in the lesson; find another one."
        return None

    def same_sin(answer: object) -> str | None:
        t1, t2, rtol = positions(answer)
        if abs(np.sin(t1) - np.sin(t2)) > rtol * max(1.0, abs(t1), abs(t2)):
            return (
                f"sin(t1) = {np.sin(t1):.4f} but sin(t2) = {np.sin(t2):.4f}: the sin feature "
                "must be equal at both positions."
            )
        return None

    def different_after(answer: object) -> str | None:
        t1, t2, _ = positions(answer)
        gap = abs(np.sin(t1 + 1.0) - np.sin(t2 + 1.0))
        if gap < 0.1:
            return (
                f"sin(t1 + 1) and sin(t2 + 1) differ by only {gap:.4f}. If the positions are "
                "a whole period 2π apart they agree forever; use the mirror point t2 = π − t1 "
                "with t1 away from π/2."
            )
        return None

    return grade(
        "sin alone cannot be shifted",
        answer,
        [distinct, same_sin, different_after],
        "sin(π − t) = sin(t): the mirror point has the same sin but moves the other way.",
    )


def check_rotation_angle(answer: object) -> Feedback:
    """Exercise 3: degrees turned by pair k = 1 of a d = 4 encoding (base 10000) for Δ = 100.

    ``answer`` is the angle in degrees (a number), or a function with no arguments returning it.

    Examples
    --------
    >>> check_rotation_angle(57.3).status
    'correct'
    >>> check_rotation_angle(1.0).message
    'that is the angle in radians; the question asks for degrees.'
    >>> check_rotation_angle(float("nan")).message
    'the angle is nan; a finite number is expected.'
    """
    truth = float(np.degrees(frequencies(4)[1] * 100.0))
    slips = [
        (np.radians(truth), 1e-3, "that is the angle in radians; the question asks for degrees."),
        (
            np.degrees(10000.0 ** (-4 / 4) * 100.0),
            0.01,
            "you used the column index i = 2 in the exponent: w_k = base^(−2k/d) with k = 1 "
            "the pair index, so w_1 = 10000^(−1/2).",
        ),
        (np.degrees(100.0), 1.0, "that angle uses w = 1, the frequency of pair k = 0, not k = 1."),
    ]

    def angle(answer: object) -> str | None:
        got = as_number(value_of(answer), "the angle")
        for value, within, message in slips:
            if abs(got - value) < within:
                return message
        if abs(got - truth) > 0.1:
            return f"{got:g}° is not the angle w_1·Δ (in degrees) to within 0.1°."
        return None

    return grade(
        "rotation angle",
        answer,
        [angle],
        "angle = w_k·Δ with w_k = base^(−2k/d); convert radians to degrees with np.degrees.",
    )
