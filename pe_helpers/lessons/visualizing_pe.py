"""Lesson 05 · Seeing the encoding.

The encoding as a picture (heatmaps, per-dimension waves), the dot product
``PE(t)·PE(t+Δ) = Σ_k cos(w_k Δ)`` that depends on the offset alone and is even in Δ,
the bilinear score with a block ``b·J`` that is odd in Δ, and how column order and
colour map change what a heatmap seems to say. This module holds the lesson's
helpers, its figures (:class:`PEOverview` under sliders; static plots) and its
exercise checkers.
"""

from __future__ import annotations

from types import SimpleNamespace

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from .._docs import fill_doc
from .._validate import check_array, check_d_model, check_int, check_positions, check_real
from ..encodings import frequencies, sinusoidal_pe
from ..figures import (
    FIGSIZE,
    WIDE_FIGSIZE,
    course_style,
    diverging_cmap,
    format_base,
    heatmap,
    new_axes,
)
from ..grading import Feedback, as_integer, as_number, close, grade, value_of
from ..live import LiveFigure, even_control, int_control, log_control, side_by_side

__all__ = [
    "J",
    "MAX_ANGLES",
    "PEOverview",
    "check_dot_from_frequencies",
    "check_dot_value",
    "check_first_rise",
    "dot_profile",
    "pair_form",
    "pair_form_profile",
    "plot_column_means",
    "plot_layouts",
    "plot_pe_dimensions",
    "plot_pe_dot_profile",
    "plot_pe_heatmap",
    "sines_then_cosines",
]

#: The quarter turn ``[[0, −1], [1, 0]]``: on a (sin, cos) pair, ``u(t) J u(t+Δ)ᵀ = sin(wΔ)``.
J = np.array([[0.0, -1.0], [1.0, 0.0]])
#: Most angles ``w_k Δ`` one profile may evaluate (len(deltas) × d_model/2): about 80 MB.
MAX_ANGLES = 10_000_000
#: Widest model :func:`pair_form` builds as a dense d × d matrix.
MAX_FORM_WIDTH = 4096

_RAW_DOT = r"$\mathrm{PE}(t)\cdot\mathrm{PE}(t+\Delta)$"


# --- the lesson's maths --------------------------------------------------------------------------


def _angles(deltas: ArrayLike, d_model: int, base: float) -> np.ndarray:
    offsets = check_positions(deltas, "deltas")
    w = frequencies(d_model, base)
    if offsets.size * w.size > MAX_ANGLES:
        raise ValueError(
            f"len(deltas) × d_model/2 must be at most {MAX_ANGLES:,}, "
            f"got {offsets.size:,} × {w.size:,}"
        )
    return np.multiply.outer(offsets, w)


def dot_profile(deltas: int | ArrayLike, d_model: int, base: float = 10000.0) -> np.ndarray:
    """``PE(t)·PE(t+Δ) = Σ_k cos(w_k Δ)`` for each offset Δ (the same for every t).

    Parameters
    ----------
    deltas : int or array_like
        A count ``n`` (offsets ``0 .. n-1``) or a 1-D array of offsets, negative allowed.
    d_model : int
        Width of the encoding (even).
    base : float, default 10000.0
        Frequency base.

    Returns
    -------
    numpy.ndarray
        One value per offset; ``d_model/2`` at Δ = 0.

    Examples
    --------
    >>> dot_profile([0, 1, 10], 128).round(2).tolist()
    [64.0, 62.09, 42.82]
    """
    return np.cos(_angles(deltas, d_model, base)).sum(axis=1)


def pair_form(d_model: int, a: float = 1.0, b: float = 0.0) -> np.ndarray:
    """The block-diagonal matrix ``M`` with the block ``a·I + b·J`` on every (sin, cos) pair.

    ``PE(t) M PE(t+Δ)ᵀ = Σ_k [a cos(w_k Δ) + b sin(w_k Δ)]``: relative for every
    ``a, b``; with ``b = 0`` even in Δ, with ``a = 0`` odd in Δ.

    Parameters
    ----------
    d_model : int
        Width (even, at most 4096).
    a, b : float
        Weights of the identity and of the quarter turn :data:`J`.

    Returns
    -------
    numpy.ndarray
        Shape ``(d_model, d_model)``.

    Examples
    --------
    >>> pair_form(4, a=2.0, b=1.0).tolist()[0]
    [2.0, -1.0, 0.0, 0.0]
    """
    d_model = check_d_model(d_model)
    if d_model > MAX_FORM_WIDTH:
        raise ValueError(f"d_model must be <= {MAX_FORM_WIDTH}, got {d_model}")
    block = check_real("a", a) * np.eye(2) + check_real("b", b) * J
    return np.kron(np.eye(d_model // 2), block) + 0.0  # + 0.0 turns kron's -0.0 into 0.0


def pair_form_profile(
    deltas: int | ArrayLike, d_model: int, a: float = 1.0, b: float = 0.0, base: float = 10000.0
) -> np.ndarray:
    """``Σ_k [a cos(w_k Δ) + b sin(w_k Δ)]``: the score ``PE(t) M PE(t+Δ)ᵀ`` of :func:`pair_form`.

    Examples
    --------
    >>> pair_form_profile([-1, 0, 1], 2, a=0.0, b=1.0).round(4).tolist()
    [-0.8415, 0.0, 0.8415]
    """
    a, b = check_real("a", a), check_real("b", b)
    angles = _angles(deltas, d_model, base)
    return a * np.cos(angles).sum(axis=1) + b * np.sin(angles).sum(axis=1)


def sines_then_cosines(pe: ArrayLike) -> np.ndarray:
    """Reorder interleaved columns (sin, cos, sin, cos, …) into all sines, then all cosines.

    This is the layout of tensor2tensor's ``get_timing_signal_1d`` and of many
    tutorials; the values are the same, only the column order differs.

    Examples
    --------
    >>> sines_then_cosines(np.array([[0.0, 1.0, 0.5, 0.9]])).tolist()
    [[0.0, 0.5, 1.0, 0.9]]
    """
    arr = check_array("pe", pe, ndim=2).astype(np.float64)
    check_d_model(arr.shape[1], "the number of columns of pe")
    return np.concatenate([arr[:, 0::2], arr[:, 1::2]], axis=1)


# --- figures -------------------------------------------------------------------------------------


def _check_encoding(pe: ArrayLike) -> np.ndarray:
    return check_array("pe", pe, ndim=2).astype(np.float64)


@course_style
def plot_pe_heatmap(
    pe: ArrayLike, ax: Axes | None = None, *, title: str = "", colorbar: bool = True
) -> Axes:
    """A positional-encoding matrix as a heatmap: positions down, dimensions across.

    Colours are fixed to [−1, 1] with the course's diverging map centred at 0: white
    is 0, dark red +1 (a cos column at small angles), dark blue −1.

    Parameters
    ----------
    pe : array_like, shape (n_positions, d_model)
        The encoding, e.g. ``sinusoidal_pe(50, 128)``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new wide figure when None.
    title : str
        Title; by default it names the shape.
    colorbar : bool, default True
        Add a colour bar.

    Returns
    -------
    matplotlib.axes.Axes
        The axes, with the encoding as ``ax.images[0]``.

    Examples
    --------
    >>> plot_pe_heatmap(np.zeros((5, 8))).get_title()
    'Positional encoding: 5 positions × 8 dimensions'
    """
    arr = _check_encoding(pe)
    n_positions, d_model = arr.shape
    return heatmap(
        arr,
        ax,
        xlabel="dimension i (even: sin, odd: cos); red +1, white 0, blue −1",
        ylabel="position t",
        title=title or f"Positional encoding: {n_positions} positions × {d_model} dimensions",
        limit=1.0,
        colorbar=colorbar,
        colorbar_label="PE(t, i)",
    )


@fill_doc
@course_style
def plot_pe_dimensions(pe: ArrayLike, dimensions: ArrayLike, ax: Axes | None = None) -> Axes:
    """Some columns of a positional encoding, each drawn as a wave over position.

    Parameters
    ----------
    pe : array_like, shape (n_positions, d_model)
        The encoding; row ``t`` is position ``t``.
    dimensions : sequence of int
        Column indices to draw (even: sin, odd: cos), at most ten.
    {ax}

    Returns
    -------
    matplotlib.axes.Axes
        The axes: ``ax.lines[j]`` is the wave of the ``j``-th listed column.

    Examples
    --------
    >>> ax = plot_pe_dimensions(np.eye(4), [1, 2])
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['dim 1: cos, k = 0', 'dim 2: sin, k = 1']
    """
    arr = _check_encoding(pe)
    listed = np.asarray(dimensions, dtype=object)
    if listed.ndim != 1 or not 1 <= listed.size <= 10:
        raise ValueError(
            f"dimensions must be a 1-D sequence of 1 to 10 columns, got {dimensions!r}"
        )
    columns = [check_int("dimensions", column) for column in listed.tolist()]
    for column in columns:
        if not 0 <= column < arr.shape[1]:
            raise ValueError(f"dimensions must lie in [0, {arr.shape[1] - 1}], got {column}")
    ax = new_axes(ax, FIGSIZE)
    t = np.arange(arr.shape[0])
    for column in columns:
        kind = "sin" if column % 2 == 0 else "cos"
        ax.plot(t, arr[:, column], label=f"dim {column}: {kind}, k = {column // 2}")
    ax.set_ylim(-1.1, 1.1)
    ax.set_xlabel("position t")
    ax.set_ylabel("PE(t, i)")
    ax.set_title("Each dimension is a wave over positions")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return ax


def _dot_axes(ax: Axes) -> None:
    """Labels and reference lines shared by every dot-product-against-offset panel."""
    ax.axhline(0.0, color="0.6", linewidth=1.0)
    ax.axvline(0.0, color="0.6", linewidth=1.0, linestyle="--")
    ax.set_xlabel(r"offset $\Delta$")
    ax.set_ylabel(_RAW_DOT)


@fill_doc
@course_style
def plot_pe_dot_profile(
    deltas: ArrayLike, dots: ArrayLike, ax: Axes | None = None, *, title: str = ""
) -> Axes:
    """The dot product of two encodings against their offset Δ.

    Parameters
    ----------
    deltas, dots : array_like, shape (n,)
        Offsets Δ and ``PE(t)·PE(t + Δ)`` for each (see :func:`dot_profile`).
    {ax}
    title : str
        Title of the axes.

    Returns
    -------
    matplotlib.axes.Axes
        The axes: the profile is ``ax.lines[0]``; ``ax.lines[1:]`` mark 0 and Δ = 0.

    Examples
    --------
    >>> plot_pe_dot_profile([-1, 0, 1], [1.5, 2.0, 1.5], title="d = 2").get_title()
    'd = 2'
    """
    x = check_array("deltas", deltas, ndim=1).astype(np.float64)
    y = check_array("dots", dots, ndim=1).astype(np.float64)
    if x.shape != y.shape:
        raise ValueError(f"dots must have the shape of deltas {x.shape}, got {y.shape}")
    ax = new_axes(ax, FIGSIZE)
    ax.plot(x, y, color="C0", marker="o", markersize=3)
    _dot_axes(ax)
    ax.set_title(title)
    return ax


@course_style
def plot_layouts(pe: ArrayLike, *, cmap: str = "RdBu") -> Figure:
    """The same encoding in two column orders, side by side, in one colour map.

    Left: interleaved (sin, cos, sin, cos, …: Vaswani et al., this course). Right:
    all sines, then all cosines (tensor2tensor). A dashed line marks the right half.

    Parameters
    ----------
    pe : array_like, shape (n_positions, d_model)
        The interleaved encoding.
    cmap : str, default "RdBu"
        A matplotlib colour map; ``"RdBu"`` (red −1, white 0, blue +1) is the map
        of the TensorFlow tutorial that drew the sines-then-cosines picture.

    Returns
    -------
    matplotlib.figure.Figure
        The figure: the interleaved layout on ``figure.axes[0]``, sines then cosines on
        ``figure.axes[1]``, and their shared colour bar.

    Examples
    --------
    >>> figure = plot_layouts(np.zeros((3, 4)))
    >>> [ax.get_title() for ax in figure.axes[:2]]
    ['interleaved: sin, cos, sin, cos, …', 'sines, then cosines']
    """
    arr = _check_encoding(pe)
    split = sines_then_cosines(arr)
    if not isinstance(cmap, str):
        raise TypeError(f"cmap must be the name of a matplotlib colour map, got {cmap!r}")
    n_positions, d_model = arr.shape
    figure, axes = plt.subplots(1, 2, figsize=WIDE_FIGSIZE, layout="constrained", sharey=True)
    panels = [(arr, "interleaved: sin, cos, sin, cos, …"), (split, "sines, then cosines")]
    for ax, (values, title) in zip(axes, panels, strict=True):
        image = ax.imshow(
            values, cmap=cmap, vmin=-1.0, vmax=1.0, aspect="auto", interpolation="nearest"
        )
        ax.axvline(d_model / 2 - 0.5, color="black", linestyle="--", linewidth=1.5)
        ax.set_title(title)
        ax.set_xlabel("dimension")
    axes[0].set_ylabel("position t")
    bar = figure.colorbar(image, ax=list(axes))
    bar.set_label(f"PE value, colour map {cmap}")
    return figure


@fill_doc
@course_style
def plot_column_means(
    means: ArrayLike, ax: Axes | None = None, *, first_dimension: int = 0
) -> Axes:
    """Bar chart of the mean of each PE column, sin and cos columns in two colours.

    Parameters
    ----------
    means : array_like, shape (m,)
        Mean of columns ``first_dimension .. first_dimension + m - 1``.
    {ax}
    first_dimension : int, default 0
        Index of the first column, so that even (sin) and odd (cos) are told apart.

    Returns
    -------
    matplotlib.axes.Axes
        The axes: one bar per column in ``ax.patches``, sin columns first.

    Examples
    --------
    >>> ax = plot_column_means([0.0, 1.0, 0.1, 0.9], first_dimension=2)
    >>> [float(bar.get_height()) for bar in ax.patches]
    [0.0, 0.1, 1.0, 0.9]
    """
    values = check_array("means", means, ndim=1).astype(np.float64)
    first = check_int("first_dimension", first_dimension, minimum=0)
    ax = new_axes(ax, FIGSIZE)
    dims = first + np.arange(values.size)
    is_sin = dims % 2 == 0
    ax.bar(dims[is_sin], values[is_sin], color="C0", label="sin columns (even i)")
    ax.bar(dims[~is_sin], values[~is_sin], color="C1", label="cos columns (odd i)")
    ax.axhline(0.0, color="0.6", linewidth=1.0)
    ax.set_ylim(min(-0.1, float(values.min()) - 0.1), max(1.1, float(values.max()) + 0.1))
    ax.set_xlabel("dimension i")
    ax.set_ylabel("mean of PE(t, i) over t")
    ax.set_title(f"Column means of dimensions {first}–{first + values.size - 1}")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return ax


class PEOverview(LiveFigure):
    """Two panels: the encoding as a heatmap, and ``PE(t)·PE(t+Δ)`` against Δ.

    Left: the ``n × d`` encoding, colours fixed to [−1, 1] (red +1, white 0, blue −1).
    Right: the dot product for Δ from ``−(n−1)`` to ``n−1``, peak ``d/2`` at Δ = 0.

    Examples
    --------
    >>> view = PEOverview().view()
    >>> view.controls["d_model"].value = 16
    >>> float(view.figure.axes[1].lines[0].get_ydata().max())  # the peak d/2, at Δ = 0
    8.0
    >>> view.figure.axes[0].get_title()
    'PE: 50 × 16, base 10,000'
    """

    controls = {
        "n_positions": int_control("positions n", 50, 2, 200),
        "d_model": even_control("d", 128, 2, 256),
        "base": log_control("base", 10000.0, 10.0, 1e6),
    }
    layout = side_by_side(width_ratios=(1.3, 1.0))

    def build(self, axes) -> SimpleNamespace:
        heat_ax, dot_ax = axes
        image = heat_ax.imshow(
            np.zeros((2, 2)),
            cmap=diverging_cmap(),
            vmin=-1.0,
            vmax=1.0,
            aspect="auto",
            interpolation="nearest",
        )
        heat_ax.set_xlabel("dimension i (red +1, white 0, blue −1)")
        heat_ax.set_ylabel("position t")
        (curve,) = dot_ax.plot([], [], color="C0", marker="o", markersize=3)
        _dot_axes(dot_ax)
        dot_ax.set_title(_RAW_DOT)
        return SimpleNamespace(heat_ax=heat_ax, dot_ax=dot_ax, image=image, curve=curve)

    def update(self, art: SimpleNamespace, n_positions: int, d_model: int, base: float) -> None:
        deltas = np.arange(-(n_positions - 1), n_positions, dtype=np.float64)
        dots = dot_profile(deltas, d_model, base)
        art.image.set_data(sinusoidal_pe(n_positions, d_model, base))
        art.image.set_extent((-0.5, d_model - 0.5, n_positions - 0.5, -0.5))
        art.heat_ax.set_xlim(-0.5, d_model - 0.5)
        art.heat_ax.set_ylim(n_positions - 0.5, -0.5)
        art.heat_ax.set_title(f"PE: {n_positions} × {d_model}, base {format_base(base)}")
        art.curve.set_data(deltas, dots)
        art.dot_ax.set_xlim(-n_positions, n_positions)
        spread = d_model / 2
        # The lower limit moves in quarters of d/2, so most base steps keep the limits (blit).
        low = min(0.0, np.floor(dots.min() / spread * 4.0) / 4.0) - 0.05
        art.dot_ax.set_ylim(low * spread, 1.05 * spread)

    def moving(self, art: SimpleNamespace) -> list:
        return [art.image, art.curve, art.heat_ax.title]


# --- exercise checkers ---------------------------------------------------------------------------


def _number(value: object, what: str) -> tuple[float, object]:
    """The learner's number, and the raw value whose dtype sets the tolerance."""
    number = as_number(value, what)
    return number, value if isinstance(value, (np.ndarray, np.generic)) else number


def check_dot_from_frequencies(dot_from_frequencies) -> Feedback:
    """Exercise 1: ``dot_from_frequencies(delta, d_model, base)`` returns PE(t)·PE(t+Δ).

    Examples
    --------
    >>> check_dot_from_frequencies(
    ...     lambda delta, d_model, base=10000.0: np.cos(frequencies(d_model, base) * delta).sum()
    ... ).status
    'correct'
    """
    cases = [(1.0, 8, 10000.0), (10.0, 128, 10000.0), (-3.5, 16, 100.0), (7.0, 2, 10000.0)]

    def value(answer, delta: float, d_model: int, base: float) -> tuple[float, object]:
        what = f"dot_from_frequencies({delta:g}, {d_model}, {base:g})"
        return _number(answer(delta, d_model, base), what)

    def whole_sum(answer) -> str | None:
        got, _ = value(answer, 10.0, 128, 10000.0)
        if abs(got - np.cos(10.0)) < 1e-4:
            return (
                "you returned a single term cos(w_0·Δ) — the source article's proof makes this "
                "slip; the dot product sums cos(w_k·Δ) over all d/2 pairs."
            )
        return None

    def zero_offset(answer) -> str | None:
        got, raw = value(answer, 0.0, 16, 10000.0)
        if close(raw, 16.0, scale=8.0):
            return (
                "at Δ = 0 you return d = 16, but each (sin, cos) pair adds sin² + cos² = 1, "
                "so |PE(t)|² = d/2 = 8: sum over the d/2 pairs, not the d dimensions."
            )
        if not close(raw, 8.0, scale=8.0):
            return f"at Δ = 0 the dot product is |PE(t)|² = d/2 = 8 for d = 16; got {got:g}."
        return None

    def matches(answer) -> str | None:
        for delta, d_model, base in cases:
            expected = float(dot_profile([delta], d_model, base)[0])
            got, raw = value(answer, delta, d_model, base)
            if not close(raw, expected, scale=d_model / 2):
                return (
                    f"for Δ = {delta:g}, d = {d_model}, base = {base:g} the dot product is "
                    f"{expected:.4f}, you returned {got:.4f}; check that the base is used."
                )
        return None

    return grade(
        "dot product from frequencies",
        dot_from_frequencies,
        [whole_sum, zero_offset, matches],
        "sin(a)·sin(b) + cos(a)·cos(b) = cos(b − a): each pair contributes cos(w_k·Δ); "
        "add them up with frequencies(d_model, base).",
        call=(1.0, 8, 10000.0),
    )


def check_dot_value(answer: object) -> Feedback:
    """Exercise 2: PE(t)·PE(t+5) for d = 64, base 10000, to two decimals.

    ``answer`` is a number, or a function with no arguments returning one.

    Examples
    --------
    >>> check_dot_value(23.50).status
    'correct'
    >>> check_dot_value(float("nan")).message
    'the dot product is nan; a finite number is expected.'
    """
    truth = float(dot_profile([5.0], 64)[0])
    slips = [
        (32.0, "32 = d/2 is the value at Δ = 0; here Δ = 5."),
        (float(np.cos(5.0)), "that is only the first term cos(w_0·5); sum over all 32 pairs."),
        (
            float(dot_profile([5.0], 128)[0]),
            "that is the value for d = 128; the question asks for d = 64.",
        ),
    ]

    def dot(answer: object) -> str | None:
        got = as_number(value_of(answer), "the dot product")
        for value, message in slips:
            if abs(got - value) < 0.01:
                return message
        if abs(got - truth) > 0.01:
            return f"{got:.4f} is not within 0.01 of PE(t)·PE(t+5) for d = 64."
        return None

    return grade(
        "dot product at Δ = 5",
        answer,
        [dot],
        "compute Σ_k cos(w_k·5) with w = frequencies(64), or take PE(0)·PE(5) directly.",
    )


def check_first_rise(answer: object) -> Feedback:
    """Exercise 3: the smallest whole Δ ≥ 1 with dot(Δ) > dot(Δ − 1), for d = 128.

    ``answer`` is a whole number, or a function with no arguments returning one.

    Examples
    --------
    >>> check_first_rise(12).status
    'correct'
    """
    dots = dot_profile(200, 128)
    truth = int(np.flatnonzero(np.diff(dots) > 0)[0] + 1)

    def rise(answer: object) -> str | None:
        got = as_integer(value_of(answer), "Δ")
        if not 1 <= got < dots.size:
            return f"Δ must be a whole number between 1 and {dots.size - 1}, got {got}."
        if dots[got] <= dots[got - 1]:
            return (
                f"at Δ = {got} the curve still falls: dot({got}) = {dots[got]:.2f} ≤ "
                f"dot({got - 1}) = {dots[got - 1]:.2f}."
            )
        if got > truth:
            return "the curve does rise there, but it already rose at a smaller Δ."
        return None

    return grade(
        "first rise",
        answer,
        [rise],
        "compute the dot product for Δ = 0 .. 199 and look for the first Δ where np.diff(...) > 0.",
    )
