"""Lesson 11 · Conventions and numerics: the RoPE bugs people hit, reproduced and caught.

``notebooks/11_conventions_and_numerics.ipynb`` breaks lesson 08's trained RoPE model on purpose
and catches each break with :mod:`pe_helpers.conventions`, :mod:`pe_helpers.table_conventions`
and :mod:`pe_helpers.numerics`. Here: the slips, one function each (:func:`rope_mutants`,
:func:`pe_table_variants`, :func:`erratum_shift_operator`); :func:`swap_pairing`; the figures
:func:`plot_position_accuracy`, :func:`plot_angle_error` and the live :class:`AngleErrorPerPair`;
the checkers :func:`check_rope_complex`, :func:`check_snippet` and :func:`check_cos_sin_cache`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import SimpleNamespace

import ml_dtypes
import numpy as np
from matplotlib.axes import Axes
from numpy.typing import ArrayLike

from .._docs import doc_filler
from .._validate import check_array, check_base, check_d_model, check_real
from ..conventions import identify_rope
from ..encodings import block_rotation, frequencies, sinusoidal_pe
from ..figures import course_style, new_axes
from ..grading import AnswerProblem, Attempt, Feedback, as_array, as_pair, grade
from ..live import LiveFigure, int_control, log_control
from ..numerics import FLOAT_DTYPES, largest_exact_integer, rope_angle_error
from ..rope import apply_rope, halves_permutation
from ..training import TrainedModel

__all__ = [
    "DTYPES",
    "SNIPPETS",
    "AngleErrorPerPair",
    "check_cos_sin_cache",
    "check_rope_complex",
    "check_snippet",
    "erratum_shift_operator",
    "pe_table_variants",
    "plot_angle_error",
    "plot_position_accuracy",
    "rope_mutants",
    "swap_pairing",
]

#: The precisions the slider steps through, in order (its value indexes this tuple).
DTYPES: tuple[str, ...] = FLOAT_DTYPES
_ROPE_METHODS = {"rope_adjacent": "rope_halves", "rope_halves": "rope_adjacent"}


# --- pairing: the fix for weights trained in the other layout -----------------------------------


def swap_pairing(model: TrainedModel) -> TrainedModel:
    """The same trained model run in the other RoPE layout, with W_Q and W_K permuted to match.

    ``apply_rope(x[..., p], pairing="halves") == apply_rope(x)[..., p]`` with
    ``p = halves_permutation(d_head)``, and a dot product is unchanged when both vectors are
    permuted alike: so permuting the head features of W_Q and W_K (their columns here, as
    ``q = x W_Q``; the rows of a PyTorch ``nn.Linear`` weight) leaves every output the same.

    Parameters
    ----------
    model : TrainedModel
        A model of :func:`pe_helpers.training.train` with method ``"rope_adjacent"`` or
        ``"rope_halves"`` that rotates every dimension of its heads.

    Returns
    -------
    TrainedModel
        The other method, with the permuted W_Q and W_K.

    Examples
    --------
    >>> from pe_helpers.training import train
    >>> model = train("copy_back", "rope_adjacent", length=6, vocab_size=4, steps=2)
    >>> swapped = swap_pairing(model)
    >>> swapped.config.method, bool(np.allclose(swapped.logits([0, 1, 2]), model.logits([0, 1, 2])))
    ('rope_halves', True)
    """
    if not isinstance(model, TrainedModel):
        raise TypeError(f"model must be a TrainedModel from train(...), got {type(model).__name__}")
    config = model.config
    if config.method not in _ROPE_METHODS:
        raise ValueError(f"model must use rope_adjacent or rope_halves, got {config.method!r}")
    if config.inv_freq is not None and 2 * len(config.inv_freq) != config.d_head:
        raise ValueError("swap_pairing needs every head dimension rotated (no partial rotary)")
    order = halves_permutation(config.d_head)
    if config.method == "rope_halves":
        order = np.argsort(order)
    swapped = model.replace(method=_ROPE_METHODS[config.method])
    for name in ("w_q", "w_k"):
        swapped.params[name] = swapped.params[name][..., order]
    return swapped


# --- the slips, one function each ----------------------------------------------------------------


def erratum_shift_operator(delta: float, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The source article's ``T_Δ``: counter-clockwise blocks ``[[cos, -sin], [sin, cos]]``.

    It moves a (cos, sin) table forward, but the article pairs it with the (sin, cos) table of
    :func:`~pe_helpers.encodings.sinusoidal_pe`, which needs its transpose,
    :func:`~pe_helpers.encodings.shift_operator`.

    Parameters
    ----------
    delta, d_model, base
        Offset Δ, width (positive, even) and frequency base, as in ``shift_operator``.

    Returns
    -------
    numpy.ndarray
        Shape ``(d_model, d_model)``: the transpose of ``shift_operator(delta, d_model, base)``.

    Examples
    --------
    >>> pe = sinusoidal_pe([0, 1], 4)
    >>> bool(np.allclose(erratum_shift_operator(1, 4) @ pe[0], pe[1]))
    False
    """
    return block_rotation(check_real("delta", delta) * frequencies(d_model, base))


def pe_table_variants(base: float = 10000.0) -> dict[str, Callable[[int, int], np.ndarray]]:
    """Sinusoidal-table functions ``g(n_positions, d_model)``: the layouts in use, and two slips.

    Parameters
    ----------
    base : float, default 10000.0
        Frequency base of every variant.

    Returns
    -------
    dict of str to callable
        ``"sin_cos_interleaved"`` (Vaswani), ``"cos_sin_interleaved"``, ``"sines_then_cosines"``
        (tensor2tensor, MLX), ``"cosines_then_sines"``, and the slips ``"column_index"`` (column
        j at ``base ** (-2j / d)``) and ``"divided"`` (``t / theta_k``).

    Examples
    --------
    >>> pe_table_variants()["cosines_then_sines"](2, 4)[0].tolist()
    [1.0, 1.0, 0.0, 0.0]
    """
    base = check_base(base)

    def angles(n: int, d: int) -> np.ndarray:
        return np.multiply.outer(np.arange(n), frequencies(d, base))

    def interleave(first: np.ndarray, second: np.ndarray) -> np.ndarray:
        return np.stack([first, second], axis=-1).reshape(first.shape[0], -1)

    def column_index(n: int, d: int) -> np.ndarray:
        j = np.arange(d)  # slip: column j gets base ** (-2j / d), not its pair's frequency
        a = np.multiply.outer(np.arange(n), base ** (-2 * j / d))
        return np.where(j % 2 == 0, np.sin(a), np.cos(a))

    def divided(n: int, d: int) -> np.ndarray:
        a = np.multiply.outer(np.arange(n), 1 / frequencies(d, base))  # slip: t / theta_k
        return interleave(np.sin(a), np.cos(a))

    return {
        "sin_cos_interleaved": lambda n, d: sinusoidal_pe(n, d, base),
        "cos_sin_interleaved": lambda n, d: interleave(np.cos(angles(n, d)), np.sin(angles(n, d))),
        "sines_then_cosines": lambda n, d: np.hstack([np.sin(angles(n, d)), np.cos(angles(n, d))]),
        "cosines_then_sines": lambda n, d: np.hstack([np.cos(angles(n, d)), np.sin(angles(n, d))]),
        "column_index": column_index,
        "divided": divided,
    }


def _turn(x: ArrayLike, angles: np.ndarray, swap: bool = False) -> np.ndarray:
    """Adjacent pairs of each row turned by ``angles[row, k]``; ``swap`` swaps cos and sin."""
    x = np.asarray(x, dtype=np.float64)
    cos, sin = (np.sin(angles), np.cos(angles)) if swap else (np.cos(angles), np.sin(angles))
    out = np.empty_like(x)
    out[:, 0::2] = x[:, 0::2] * cos - x[:, 1::2] * sin
    out[:, 1::2] = x[:, 0::2] * sin + x[:, 1::2] * cos
    return out


def rope_mutants(base: float = 10000.0) -> dict[str, Callable[..., np.ndarray]]:
    """RoPE functions ``f(x, positions)`` with one classic slip each (adjacent pairs otherwise).

    Parameters
    ----------
    base : float, default 10000.0
        Frequency base of every mutant.

    Returns
    -------
    dict of str to callable
        Keyed by slip; :func:`~pe_helpers.conventions.identify_rope` reports each as the issue
        of the same name: ``"clockwise"`` (sign of sin flipped), ``"column_index"`` (pair k at
        ``base ** (-2(2k) / d)``), ``"divided"`` (``t / theta``), ``"wrong_axis"`` (RoPE of
        ``x.T``; needs an even number of rows), ``"ignores_positions"`` (row index used),
        ``"sin_cos_swapped"``, ``"mixed_layout"`` (``rotate_half`` with cos and sin repeated
        for adjacent pairs). Also ``"column_index_per_feature"`` (feature j at
        ``base ** (-2j / d)``), reported as ``"column_index"``, and ``"half_split"``, a right
        RoPE in the other layout, reported as ``"pairing"`` when the weights expect adjacent
        pairs.

    Examples
    --------
    >>> f = rope_mutants()["clockwise"]
    >>> f(np.array([[1.0, 0.0]]), [1]).round(4).tolist()  # turned by -1 rad, not +1
    [[0.5403, -0.8415]]
    """
    base = check_base(base)

    def theta(d: int) -> np.ndarray:
        return base ** (-2 * np.arange(d // 2) / d)  # right: pair index k = 0 .. d/2 - 1

    def column_index(x, positions):
        d = np.shape(x)[1]
        column = np.arange(0, d, 2)  # slip: the column 2k where the pair index k belongs
        return _turn(x, np.outer(positions, base ** (-2 * column / d)))

    def column_index_per_feature(x, positions):
        x = np.asarray(x, dtype=np.float64)
        d = x.shape[1]
        a = np.outer(positions, base ** (-2 * np.arange(d) / d))  # slip: 2i where 2(i//2) belongs
        turned = np.empty_like(x)
        turned[:, 0::2], turned[:, 1::2] = -x[:, 1::2], x[:, 0::2]
        return x * np.cos(a) + turned * np.sin(a)

    def mixed_layout(x, positions):
        x = np.asarray(x, dtype=np.float64)
        d = x.shape[1]
        a = np.repeat(np.outer(positions, theta(d)), 2, axis=1)  # slip: laid out for adjacent
        turned = np.hstack([-x[:, d // 2 :], x[:, : d // 2]])  # but rotate_half pairs halves
        return x * np.cos(a) + turned * np.sin(a)

    return {
        "clockwise": lambda x, t: _turn(x, -np.outer(t, theta(np.shape(x)[1]))),  # -sin
        "column_index": column_index,
        "column_index_per_feature": column_index_per_feature,
        "divided": lambda x, t: _turn(x, np.outer(t, 1 / theta(np.shape(x)[1]))),  # t / θ
        "wrong_axis": lambda x, t: apply_rope(np.asarray(x).T, base=base).T,  # pairs rows
        "ignores_positions": lambda x, t: apply_rope(x, base=base),  # positions 0 .. n-1
        "sin_cos_swapped": lambda x, t: _turn(x, np.outer(t, theta(np.shape(x)[1])), swap=True),
        "mixed_layout": mixed_layout,
        "half_split": lambda x, t: apply_rope(x, t, base, pairing="halves"),  # right, other layout
    }


# --- figures -------------------------------------------------------------------------------------

_STYLES = (("-", "o"), ("--", "s"), (":", "^"), ("-.", "d"))

fill_doc = doc_filler({
    "head_width": """\
d_model : int, default 128
    Head width, even, 4 to 1024.""",
})


@fill_doc
@course_style
def plot_position_accuracy(accuracies: Mapping[str, ArrayLike], ax: Axes | None = None) -> Axes:
    """Accuracy at each query position, one curve per way of running a model.

    Parameters
    ----------
    accuracies : mapping of str to array_like
        Legend label -> accuracy per position (in [0, 1]; NaN where nothing is scored), as from
        ``TrainedModel.accuracy(per_position=True)``: 1 to 10 curves of one length (at most
        4096). Each curve gets its own line style and marker, so equal curves stay visible.
    {ax}

    Returns
    -------
    matplotlib.axes.Axes
        The axes: ``ax.lines[i]`` is the ``i``-th curve, in percent, labelled by its key.

    Examples
    --------
    >>> ax = plot_position_accuracy({"right": [1.0, 1.0], "wrong": [1.0, 0.5]})
    >>> [line.get_label() for line in ax.lines]
    ['right', 'wrong']
    """
    if not isinstance(accuracies, Mapping) or not accuracies or len(accuracies) > 10:
        raise TypeError(f"accuracies must be a dict of 1 to 10 label -> values, got {accuracies!r}")
    curves = {}
    for label, values in accuracies.items():
        name = f"accuracies[{label!r}]"
        acc = check_array(name, values, ndim=1, finite=False).astype(np.float64)
        if np.isinf(acc).any() or np.any(acc[np.isfinite(acc)] < 0) or np.any(acc > 1):
            raise ValueError(f"{name} must hold accuracies in [0, 1] (or NaN), got {values!r}")
        if acc.size > 4096 or (curves and acc.size != len(next(iter(curves.values())))):
            raise ValueError(f"{name} must have at most 4096 positions, as many as the first curve")
        curves[str(label)] = acc
    ax = new_axes(ax)
    for index, (label, acc) in enumerate(curves.items()):
        linestyle, marker = _STYLES[index % len(_STYLES)]
        ax.plot(np.arange(acc.size), 100 * acc, color=f"C{index % 10}", linestyle=linestyle,
                marker=marker, markersize=5, label=label)
    ax.set_xlim(-0.5, acc.size - 0.5)
    ax.set_ylim(0, 105)
    ax.set_xlabel("query position")
    ax.set_ylabel("accuracy (%)")
    ax.set_title("Accuracy at each position")
    ax.legend(loc="center right")
    return ax


#: Largest position :func:`plot_angle_error` draws (keeps it fast).
MAX_PLOT_POSITION = 10**7
_FLOOR = 1e-12


def _bounded_width(d_model: object) -> int:
    d = check_d_model(d_model)
    if not 4 <= d <= 1024:
        raise ValueError(f"d_model must lie in [4, 1024], got {d}")
    return d


@fill_doc
@course_style
def plot_angle_error(
    d_model: int = 128,
    base: float = 10000.0,
    max_position: float = 1e6,
    ax: Axes | None = None,
) -> Axes:
    """Worst RoPE angle error over the pairs against position, for each dtype (log-log).

    One line per dtype of :data:`DTYPES` with the angles computed in that dtype, and a dashed
    line for bfloat16 with the fix (angles in float64, cast after cos and sin). Dotted
    vertical lines mark where bfloat16 and float16 stop holding every integer; float16's line
    ends where positions overflow (65,504). Errors of exactly 0 are not drawn.

    Parameters
    ----------
    {head_width}
    {base}
    max_position : float, default 1e6
        Right end of the position axis, 10 to :data:`MAX_PLOT_POSITION`.
    {ax}

    Returns
    -------
    matplotlib.axes.Axes
        The axes, log-log: one line per dtype and the dashed bfloat16 fix, each
        labelled, with dotted marks where bfloat16 and float16 stop being exact and at π.

    Examples
    --------
    >>> ax = plot_angle_error(8, max_position=1000)
    >>> [line.get_label() for line in ax.lines][:2]
    ['float64', 'float32 (exact to 2^24)']
    """
    d = _bounded_width(d_model)
    base = check_base(base)
    top = check_real("max_position", max_position)
    if not 10 <= top <= MAX_PLOT_POSITION:
        raise ValueError(f"max_position must lie in [10, {MAX_PLOT_POSITION:g}], got {top:g}")
    positions = np.unique(np.round(np.logspace(0, np.log10(top), 300)))
    ax = new_axes(ax)
    for index, name in enumerate(DTYPES):
        worst = rope_angle_error(positions, d, base, name).max(axis=-1)
        ax.plot(positions, np.where(worst > 0, worst, np.nan), color=f"C{index}",
                label=name + _exact_note(name))
        if name in ("float16", "bfloat16"):
            ax.axvline(largest_exact_integer(name), color=f"C{index}", linestyle=":", linewidth=1.5)
    fixed = rope_angle_error(positions, d, base, "bfloat16", fix=True).max(axis=-1)
    ax.plot(positions, np.where(fixed > 0, fixed, np.nan), color=f"C{len(DTYPES) - 1}",
            linestyle="--", label="bfloat16, fixed (float64 angles)")
    ax.axhline(np.pi, color="0.45", linestyle=":", linewidth=1.5)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(1e-20, 20)  # room for the legend below the float64 line
    ax.set_xlabel("position t")
    ax.set_ylabel("worst angle error (rad)")
    ax.set_title(f"RoPE angle error, d = {d}: the dotted line at the top is π")
    ax.legend(loc="lower right", fontsize="small", ncol=2)
    return ax


def _exact_note(name: str) -> str:
    exact = largest_exact_integer(name)
    shown = f"2^{exact.bit_length() - 1}" if exact > 10**6 else f"{exact:,}"
    return f" (exact to {shown})" if exact < 2**30 else ""


@fill_doc
class AngleErrorPerPair(LiveFigure):
    """The angle error of every RoPE pair at one position, with the angles computed in a dtype.

    Sliders: the position (logarithmic, rounded to a whole number) and the dtype, an index into
    :data:`DTYPES` named in the title. Red: the angles computed in that dtype, as a careless
    implementation does; green, dashed: the fix (angles in float64, cast after cos and sin).
    Errors below 1e-12 are drawn at 1e-12; the caption says how the dtype stores the position.

    Parameters
    ----------
    {head_width}
    {base}

    Examples
    --------
    >>> fig = AngleErrorPerPair(d_model=8).draw(position=257, dtype=3)
    >>> fig.axes[0].get_title()
    'bfloat16, position 257: worst pair off by 1 rad'
    """

    controls = {
        "position": log_control("position", 1000.0, 1.0, 1e6, 0.05),
        "dtype": int_control("dtype (0 float64, 1 float32, 2 float16, 3 bfloat16)", 3, 0, 3),
    }

    def __init__(self, d_model: int = 128, base: float = 10000.0) -> None:
        self.d_model = _bounded_width(d_model)
        self.base = check_base(base)

    def build(self, axes) -> SimpleNamespace:
        pairs = np.arange(self.d_model // 2)
        empty = np.full(pairs.size, np.nan)
        (computed,) = axes.plot(pairs, empty, color="#D55E00", marker="o", markersize=3,
                                label="angles computed in the dtype")
        (fixed,) = axes.plot(pairs, empty, color="#009E73", linestyle="--",
                             label="fixed: float64 angles, cast after cos/sin")
        axes.axhline(np.pi, color="0.45", linestyle=":", linewidth=1.5, label="π")
        caption = axes.text(0.02, 0.04, "", transform=axes.transAxes)
        axes.set_yscale("log")
        axes.set_xlim(-0.5, pairs.size - 0.5)
        axes.set_ylim(_FLOOR / 3, 1e5)  # room for the legend above π
        axes.set_xlabel("pair k (0 = fastest)")
        axes.set_ylabel("angle error (rad)")
        axes.legend(loc="upper right", fontsize="small")
        return SimpleNamespace(axes=axes, computed=computed, fixed=fixed, caption=caption)

    def update(self, art: SimpleNamespace, position: float, dtype: int) -> None:
        t, name = int(round(position)), DTYPES[dtype]
        error = rope_angle_error([t], self.d_model, self.base, name)[0]
        fixed = rope_angle_error([t], self.d_model, self.base, name, fix=True)[0]
        art.computed.set_ydata(np.maximum(error, _FLOOR))
        art.fixed.set_ydata(np.maximum(fixed, _FLOOR))
        with np.errstate(over="ignore"):
            stored = float(np.array(t, dtype=np.float64).astype(ml_dtypes.finfo(name).dtype))
        if not np.isfinite(stored):
            worst = "every angle is NaN"
            note = f"{t:,} overflows {name} (largest {float(ml_dtypes.finfo(name).max):,.0f})"
        else:
            worst = f"worst pair off by {error.max():.2g} rad"
            note = (f"position {t:,} is stored exactly" if stored == t
                    else f"position {t:,} is stored as {stored:,.0f}")
        art.axes.title.set_text(f"{name}, position {t:,}: {worst}")
        art.caption.set_text(note)

    def moving(self, art: SimpleNamespace) -> list:
        return [art.computed, art.fixed, art.caption, art.axes.title]


# --- exercise checkers ---------------------------------------------------------------------------


_PAIR_WORDS = {"adjacent": "neighbouring features (2k, 2k+1)",
               "halves": "feature k with feature k + d/2"}


def _detector_says(answer: object, pairing: str, what: str) -> str | None:
    """Run the learner's ``f(x, positions, base)`` through identify_rope at two bases."""
    function = answer.function if isinstance(answer, Attempt) else answer
    for base in (10000.0, 500.0):
        report = identify_rope(lambda x, t, b=base: function(x, t, b), 16,  # noqa: B023
                               expected_base=base, expected_pairing=pairing)
        if report.issues == ("pairing",):
            return (f"{what} pairs {_PAIR_WORDS[report.pairing]}; this one should pair "
                    f"{_PAIR_WORDS[pairing]}.")
        if not report.ok:
            return f"with base = {base:g} the detector reads: " + " ".join(report.messages)
    return None


def check_rope_complex(rope_complex: Callable) -> Feedback:
    """Lesson 11, exercise 1: ``rope_complex(x, positions, base)``, RoPE as Meta's Llama code does.

    Graded by :func:`~pe_helpers.conventions.identify_rope` alone, at bases 10000 and 500:
    adjacent pairs, counter-clockwise, ``t * base ** (-2k / d)``.

    Examples
    --------
    >>> check_rope_complex(lambda x, t, base: apply_rope(x, t, base)).status
    'correct'
    """
    x = np.random.default_rng(11).normal(size=(3, 16))
    return grade(
        "RoPE with complex numbers",
        rope_complex,
        [lambda answer: _detector_says(answer, "adjacent", "your function")],
        "z = x[:, 0::2] + 1j * x[:, 1::2]; multiply z by np.exp(1j * angles) with angles = "
        "np.outer(positions, base ** (-np.arange(0, d, 2) / d)); put z.real back in the even "
        "columns and z.imag in the odd ones.",
        call=(x, np.array([0.0, 1.0, 5.0]), 10000.0),
    )


#: The "spot the error" snippets of exercise 2: the pairing each is meant to have, and a hint.
SNIPPETS: dict[str, tuple[str, str]] = {
    "A": ("adjacent", "work out inv_freq for the first two pairs by hand: pair 0 turns by one "
                      "radian per position, and each later pair turns more slowly."),
    "B": ("adjacent", "which exponent does the last pair get? It should be just above -1 "
                      "(the slowest pair turns by about 1/base per position), never below."),
    "C": ("halves", "print the first row of cos: which features share a cosine? Which "
                    "features does rotate_half turn together?"),
}


def check_snippet(letter: str, fixed: Callable) -> Feedback:
    """Lesson 11, exercise 2: the corrected snippet ``letter`` (``"A"``, ``"B"`` or ``"C"``).

    Each snippet is a RoPE function ``f(x, positions, base)`` with one slip; the fixed function
    is graded by :func:`~pe_helpers.conventions.identify_rope`, at bases 10000 and 500, against
    the pairing the snippet is meant to have (:data:`SNIPPETS`).

    Examples
    --------
    >>> check_snippet("A", lambda x, t, base: apply_rope(x, t, base)).status
    'correct'
    """
    if letter not in SNIPPETS:
        raise ValueError(f"letter must be one of {sorted(SNIPPETS)}, got {letter!r}")
    pairing, hint = SNIPPETS[letter]
    x = np.random.default_rng(12).normal(size=(3, 16))
    return grade(
        f"spot the error {letter}",
        fixed,
        [lambda answer: _detector_says(answer, pairing, "your fix")],
        hint,
        call=(x, np.array([0.0, 1.0, 5.0]), 10000.0),
    )


_CACHE_CASES = ((4096, 64, np.dtype(ml_dtypes.bfloat16)), (4096, 64, np.dtype(np.float16)))


def check_cos_sin_cache(cos_sin_cache: Callable) -> Feedback:
    """Lesson 11, exercise 3: ``cos_sin_cache(n_positions, d_model, dtype)`` → ``(cos, sin)``.

    Both ``(n_positions, d_model // 2)`` in ``dtype``, base 10000. Graded by the angle each
    (cos, sin) pair encodes: within a few roundings of ``dtype`` of ``t * base ** (-2k / d)`` at
    every one of 4,096 positions, in bfloat16 and in float16.

    Examples
    --------
    >>> def cos_sin_cache(n_positions, d_model, dtype):
    ...     angles = np.outer(np.arange(n_positions), frequencies(d_model))
    ...     return np.cos(angles).astype(dtype), np.sin(angles).astype(dtype)
    >>> check_cos_sin_cache(cos_sin_cache).status
    'correct'
    """

    def angles_hold(attempt: Callable) -> str | None:
        for n, d, dtype in _CACHE_CASES:
            cos, sin = as_pair(attempt(n, d, dtype), f"your cache for {dtype.name}")
            for name, values in (("cos", cos), ("sin", sin)):
                if not isinstance(values, np.ndarray):
                    raise AnswerProblem(f"{name} must be a numpy array, got "
                                        f"{type(values).__name__}.")
                if values.dtype != dtype:
                    return (f"for {dtype.name} your {name} comes back as {values.dtype}: cast cos "
                            "and sin to the requested dtype at the very end (the model stores "
                            "its cache in its own dtype).")
                as_array(values.astype(np.float64), f"your {name} for {dtype.name}",
                         shape=(n, d // 2))
            problem = _cache_slip(cos.astype(np.float64), sin.astype(np.float64), dtype)
            if problem:
                return problem
        return None

    return grade(
        "a cos/sin cache that survives low precision",
        cos_sin_cache,
        [angles_hold],
        "compute inv_freq and np.outer(positions, inv_freq) in float64 (or float32), take cos "
        "and sin there, and only then .astype(dtype).",
        call=_CACHE_CASES[0],
    )


def _cache_slip(cos: np.ndarray, sin: np.ndarray, dtype: np.dtype) -> str | None:
    n, half = cos.shape
    reference = np.multiply.outer(np.arange(n), frequencies(2 * half))
    error = np.abs(np.pi - np.mod(np.pi - (np.arctan2(sin, cos) - reference), 2 * np.pi))
    tolerance = 8 * 2.0 ** -(ml_dtypes.finfo(dtype).nmant + 1)
    if error.max() <= tolerance:
        return None
    swapped = np.abs(np.pi - np.mod(np.pi - (np.arctan2(cos, sin) - reference), 2 * np.pi))
    if swapped.max() <= tolerance:
        return "cos and sin are swapped: return (cos, sin) in that order."
    exact = largest_exact_integer(dtype)
    early = error[: exact + 1].max()
    if early > tolerance:
        return (f"already at positions up to {exact:,}, which {dtype.name} holds exactly, the "
                f"angles are off by up to {early:.2g} rad: the frequencies or the products "
                f"t·θ were rounded to {dtype.name}. Compute them in float32 or float64.")
    return (f"positions up to {exact:,} are right, but past them the angles are off by up to "
            f"{error.max():.2g} rad: {dtype.name} holds every integer only up to {exact:,}, so "
            "the positions were rounded. Make them float32 or float64; cast only cos and sin.")
