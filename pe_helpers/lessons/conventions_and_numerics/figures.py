"""Lesson 11 · Conventions and numerics: the figures and the live angle error per pair."""

from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace

import ml_dtypes
import numpy as np
from matplotlib.axes import Axes
from numpy.typing import ArrayLike

from ..._validate import check_array, check_d_model, check_real, check_rope_base
from ...figures import course_style, draw_seed_band, legend_below, new_axes
from ...live import LiveFigure, choice_control, log_control
from ...numerics import FLOAT_DTYPES, largest_exact_integer, rope_angle_error

__all__ = [
    "AngleErrorPerPair",
    "DTYPES",
    "plot_angle_error",
    "plot_position_accuracy",
]

#: The precisions the figures compare, in order: the names the dtype choice offers.
DTYPES: tuple[str, ...] = FLOAT_DTYPES
_STYLES = (("-", "o"), ("--", "s"), (":", "^"), ("-.", "d"))


@course_style
def plot_position_accuracy(
    accuracies: Mapping[str, ArrayLike],
    ax: Axes | None = None,
    *,
    bands: Mapping[str, tuple[ArrayLike, ArrayLike]] | None = None,
) -> Axes:
    """Accuracy at each query position, one curve per way of running a model.

    Parameters
    ----------
    accuracies : mapping of str to array_like
        Legend label -> accuracy per position (in [0, 1]; NaN where nothing is scored), as from
        ``TrainedModel.accuracy(per_position=True)``: 1 to 10 curves of one length (at most
        4096), each in its own line style and marker.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.
    bands : mapping of str to (array_like, array_like), optional
        For some curves (by label), the lowest and highest accuracy at each position over seeds
        (as from ``SeedResults.band``), hatched in the curve's colour under its line.

    Returns
    -------
    matplotlib.axes.Axes
        The axes: ``ax.lines[i]`` is the ``i``-th curve, in percent, labelled by its key;
        ``ax.collections`` the bands, in the order of ``bands``.

    Examples
    --------
    >>> ax = plot_position_accuracy({"right": [1.0, 1.0], "wrong": [1.0, 0.5]},
    ...                             bands={"wrong": ([1.0, 0.3], [1.0, 0.6])})
    >>> [line.get_label() for line in ax.lines], len(ax.collections)
    (['right', 'wrong'], 1)
    """
    if not isinstance(accuracies, Mapping) or not accuracies or len(accuracies) > 10:
        raise TypeError(f"accuracies must be a dict of 1 to 10 label -> values, got {accuracies!r}")
    curves = {}
    for label, values in accuracies.items():
        curves[str(label)] = _accuracy_row(f"accuracies[{label!r}]", values, curves)
    shaded = _checked_bands(bands, curves)
    ax = new_axes(ax)
    colours = {label: f"C{index % 10}" for index, label in enumerate(curves)}
    positions = np.arange(len(next(iter(curves.values()))))
    for index, (label, acc) in enumerate(curves.items()):
        linestyle, marker = _STYLES[index % len(_STYLES)]
        ax.plot(
            positions,
            100 * acc,
            color=colours[label],
            linestyle=linestyle,
            marker=marker,
            markersize=5,
            label=label,
        )
    for label, (low, high) in shaded.items():  # under the lines; listed after them
        draw_seed_band(
            ax,
            positions,
            100 * low,
            100 * high,
            color=colours[label],
            label="min to max over seeds",
        )
    ax.set_xlim(-0.5, positions.size - 0.5)
    ax.set_xlabel("query position")
    ax.set_ylabel("accuracy (%)")
    ax.set_title("Accuracy at each position")
    if shaded:  # room above 100% for a legend of two columns: the lines, then their bands
        ax.set_ylim(0, 140)
        ax.set_yticks(np.arange(0, 101, 20))
        ax.legend(loc="upper center", ncol=2)
    else:
        ax.set_ylim(0, 105)
        ax.legend(loc="center right")
    return ax


def _accuracy_row(name: str, values: object, curves: Mapping[str, np.ndarray]) -> np.ndarray:
    """One curve of accuracies in [0, 1] (NaN allowed), as long as the curves before it."""
    acc = check_array(name, values, ndim=1, finite=False).astype(np.float64)
    if np.isinf(acc).any() or np.any(acc[np.isfinite(acc)] < 0) or np.any(acc > 1):
        raise ValueError(f"{name} must hold accuracies in [0, 1] (or NaN), got {values!r}")
    if acc.size > 4096 or (curves and acc.size != len(next(iter(curves.values())))):
        raise ValueError(f"{name} must have at most 4096 positions, as many as the first curve")
    return acc


def _checked_bands(bands: object, curves: Mapping[str, np.ndarray]) -> dict:
    """``bands`` as label -> (low, high) arrays, each for a curve and as long as it."""
    if bands is None:
        return {}
    if not isinstance(bands, Mapping):
        raise TypeError(f"bands must be a dict of label -> (low, high), got {bands!r}")
    checked = {}
    for label, pair in bands.items():
        name = f"bands[{label!r}]"
        if str(label) not in curves:
            raise ValueError(f"{name} names no curve; the curves are {list(curves)}")
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError(f"{name} must be a pair (low, high) of arrays, got {pair!r:.80}")
        checked[str(label)] = [_accuracy_row(f"{name}[{i}]", p, curves) for i, p in enumerate(pair)]
    return checked


#: Largest position :func:`plot_angle_error` draws (keeps it fast).
MAX_PLOT_POSITION = 10**7
_FLOOR = 1e-12


def _bounded_width(d_model: object) -> int:
    d = check_d_model(d_model)
    if not 4 <= d <= 1024:
        raise ValueError(f"d_model must lie in [4, 1024], got {d}")
    return d


@course_style
def plot_angle_error(
    d_model: int = 128,
    base: float = 10000.0,
    max_position: float = 1e6,
    ax: Axes | None = None,
) -> Axes:
    """Worst RoPE angle error over the pairs against position, for each dtype (log-log).

    One line per dtype of :data:`DTYPES`, the angles computed in it, and bfloat16 fixed
    (float64 angles, cast after cos and sin), dashed; float16's line ends where positions
    overflow (65,504). Errors of exactly 0 are not drawn.

    Parameters
    ----------
    d_model : int, default 128
        Head width, even, 4 to 1024.
    base : float, default 10000.0
        Frequency base; must be > 1.
    max_position : float, default 1e6
        Right end of the position axis, 10 to :data:`MAX_PLOT_POSITION`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        One labelled line per dtype and the fix; dotted marks where bfloat16 and float16 stop
        holding every integer, and at π.

    Examples
    --------
    >>> ax = plot_angle_error(8, max_position=1000)
    >>> [line.get_label() for line in ax.lines][:2]
    ['float64', 'float32 (exact to 2^24)']
    """
    d = _bounded_width(d_model)
    base = check_rope_base(base)
    top = check_real("max_position", max_position)
    if not 10 <= top <= MAX_PLOT_POSITION:
        raise ValueError(f"max_position must lie in [10, {MAX_PLOT_POSITION:g}], got {top:g}")
    positions = np.unique(np.round(np.logspace(0, np.log10(top), 300)))
    ax = new_axes(ax)
    for index, name in enumerate(DTYPES):
        worst = rope_angle_error(positions, d, base, name).max(axis=-1)
        ax.plot(
            positions,
            np.where(worst > 0, worst, np.nan),
            color=f"C{index}",
            label=name + _exact_note(name),
        )
        if name in ("float16", "bfloat16"):
            ax.axvline(largest_exact_integer(name), color=f"C{index}", linestyle=":", linewidth=1.5)
    fixed = rope_angle_error(positions, d, base, "bfloat16", fix=True).max(axis=-1)
    ax.plot(
        positions,
        np.where(fixed > 0, fixed, np.nan),
        color=f"C{len(DTYPES) - 1}",
        linestyle="--",
        label="bfloat16, fixed (float64 angles)",
    )
    ax.axhline(np.pi, color="0.3", linestyle=":", linewidth=1.5)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(1e-20, 20)  # room for the legend below the float64 line
    ax.set_xlabel("position t")
    ax.set_ylabel("worst angle error (rad)")
    ax.set_title(f"RoPE angle error, d = {d}\nthe dotted line at the top is π")
    legend_below(ax, ncols=2)
    return ax


def _exact_note(name: str) -> str:
    exact = largest_exact_integer(name)
    shown = f"2^{exact.bit_length() - 1}" if exact > 10**6 else f"{exact:,}"
    return f" (exact to {shown})" if exact < 2**30 else ""


class AngleErrorPerPair(LiveFigure):
    """The angle error of every RoPE pair at one position, with the angles computed in a dtype.

    Controls: the position (logarithmic, rounded) and the dtype. Red: the angles computed in
    the dtype; green, dashed: the fix of :func:`plot_angle_error`, whose ``d_model`` and
    ``base`` it takes. Errors below 1e-12 are drawn at 1e-12; the caption says how the dtype
    stores the position.

    Examples
    --------
    >>> fig = AngleErrorPerPair(d_model=8).draw(position=257, dtype="bfloat16")
    >>> fig.axes[0].get_title()
    'bfloat16, position 257: worst pair off by 1 rad'
    >>> fig.axes[0].texts[0].get_text()  # the caption says why
    'position 257 is stored as 256'
    """

    # The website's pictures (scripts/build_site.py): positions 1-2-5 per decade, every dtype.
    site_grid = {"position": (*(m * 10.0**e for e in range(6) for m in (1, 2, 5)), 1e6)}
    controls = {
        "position": log_control("position", 1000.0, 1.0, 1e6, 0.05),
        "dtype": choice_control("dtype", DTYPES, "bfloat16"),
    }

    def __init__(self, d_model: int = 128, base: float = 10000.0) -> None:
        self.d_model = _bounded_width(d_model)
        self.base = check_rope_base(base)

    def build(self, axes) -> SimpleNamespace:
        pairs = np.arange(self.d_model // 2)
        empty = np.full(pairs.size, np.nan)
        (computed,) = axes.plot(
            pairs,
            empty,
            color="#D55E00",
            marker="o",
            markersize=3,
            label="angles computed in the dtype",
        )
        (fixed,) = axes.plot(
            pairs,
            empty,
            color="#009E73",
            linestyle="--",
            label="fixed: float64 angles, cast after cos/sin",
        )
        axes.axhline(np.pi, color="0.3", linestyle=":", linewidth=1.5, label="π")
        caption = axes.text(0.02, 0.04, "", transform=axes.transAxes)
        axes.set_yscale("log")
        axes.set_xlim(-0.5, pairs.size - 0.5)
        axes.set_ylim(_FLOOR / 3, 1e5)
        axes.set_xlabel("pair k (0 = fastest)")
        axes.set_ylabel("angle error (rad)")
        legend_below(axes, ncols=2)  # under the x label: the errors reach every height
        return SimpleNamespace(axes=axes, computed=computed, fixed=fixed, caption=caption)

    def update(self, art: SimpleNamespace, position: float, dtype: str) -> None:
        t, name = int(round(position)), dtype
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
            note = (
                f"position {t:,} is stored exactly"
                if stored == t
                else f"position {t:,} is stored as {stored:,.0f}"
            )
        art.axes.title.set_text(f"{name}, position {t:,}: {worst}")
        art.caption.set_text(note)

    def moving(self, art: SimpleNamespace) -> list:
        return [art.computed, art.fixed, art.caption, art.axes.title]
