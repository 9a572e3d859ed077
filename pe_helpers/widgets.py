"""Interactive views: sliders wired to the pure maths and the plotting helpers.

Each builder returns an :class:`InteractiveView`, a ``VBox`` of sliders above a
picture of one matplotlib figure. The figure is built once; a slider step only
recomputes the data, updates the existing artists and re-renders that figure to
PNG bytes (the bytes the browser receives). Tests drive views headlessly by
setting ``view.controls[name].value`` and reading ``view.figure``.

Why an ``Image`` widget and not ``interact`` + Output: the figure is not
rebuilt on every step, nothing depends on the notebook's matplotlib backend, and
the PNG is encoded with fast compression from the Agg buffer.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Mapping, Sequence

import ipywidgets as widgets
import numpy as np
from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from numpy.typing import ArrayLike
from PIL import Image

from ._validate import (
    check_base,
    check_d_model,
    check_int,
    check_positions,
    check_real,
)
from .attention import (
    blend_deviations,
    blend_inputs,
    blend_position_scores,
    relative_deviation,
)
from .encodings import frequencies, sinusoidal_pe
from .foundations import (
    position_probe,
    random_cosines,
    recurrence_weights,
    wavelengths,
)
from .plotting import (
    BLEND_T_VALUES,
    CIRCLE_FIGSIZE,
    FIGSIZE,
    WIDE_FIGSIZE,
    blend_title,
    cosine_histogram,
    course_style,
    dimension_titles,
    offset_title,
    pe_vector_title,
    plot_blend,
    plot_dimension_panels,
    plot_frequency_panels,
    plot_pair_rotation,
    plot_pe_overview,
    plot_recurrence_weights,
    plot_rope_offset,
    recurrence_caption,
    recurrence_title,
    rotation_caption,
    stem_segments,
    wavelength_limits,
    wavelength_title,
)
from .rope import rope_scores

__all__ = [
    "InteractiveView",
    "view_builders",
    "render_png",
    "even_slider",
    "base_slider",
    "int_slider",
    "float_slider",
    # Lesson 04–05
    "pair_rotation_title",
    "pair_rotation_view",
    "pe_overview_view",
    # Lesson 06–07
    "attention_blend_view",
    "rope_offset_view",
    # Lesson 01–03
    "DIMENSION_PAIRS",
    "recurrence_view",
    "dimension_data",
    "dimension_view",
    "frequency_view",
]

#: Resolution of widget pictures: sharp on a projector, cheap to redraw.
WIDGET_DPI = 80


def render_png(figure: Figure) -> bytes:
    """Draw ``figure`` with Agg and return it as PNG bytes (fast compression).

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        A figure whose canvas is (or can be made) an Agg canvas.

    Returns
    -------
    bytes
        A PNG image.

    Examples
    --------
    >>> render_png(Figure(figsize=(1, 1)))[:4]
    b'\\x89PNG'
    """
    if not isinstance(figure, Figure):
        raise TypeError(f"figure must be a matplotlib Figure, got {type(figure).__name__}")
    if not isinstance(figure.canvas, FigureCanvasAgg):
        FigureCanvasAgg(figure)
    figure.canvas.draw()
    return _encode_png(figure)


def _encode_png(figure: Figure) -> bytes:
    rgba = np.asarray(figure.canvas.buffer_rgba())
    buffer = io.BytesIO()
    Image.fromarray(rgba[..., :3]).save(buffer, format="png", compress_level=1)
    return buffer.getvalue()


class InteractiveView(widgets.VBox):
    """Sliders above a live figure.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The figure, built once by the view's builder (not through pyplot, so it
        is never displayed twice).
    controls : mapping of str to ipywidgets.ValueWidget
        The sliders, by the keyword they feed to ``update``.
    update : callable
        ``update(**values)`` recomputes the data and changes the figure's
        artists in place; it must not create a new figure.
    moving : sequence of matplotlib artists, optional
        Every artist ``update`` may change *without* changing any axes limits.
        When given, a step that leaves all limits alone redraws only these
        artists over a cached picture of the rest (blitting); any other step
        redraws the whole figure. Leave empty when unsure: the result is the
        same, only slower.

    Attributes
    ----------
    figure, controls, image : the figure, the sliders, the ``ipywidgets.Image``.
    renders : int
        Number of times the figure was rendered (1 after construction).
    blits : int
        How many of those renders redrew only the moving artists.
    """

    def __init__(
        self,
        figure: Figure,
        controls: Mapping[str, widgets.ValueWidget],
        update: Callable[..., None],
        moving: Sequence[Artist] = (),
    ) -> None:
        if not isinstance(figure, Figure):
            raise TypeError(f"figure must be a matplotlib Figure, got {type(figure).__name__}")
        if not callable(update):
            raise TypeError(f"update must be callable, got {type(update).__name__}")
        self.figure = figure
        self.controls = dict(controls)
        self._update = update
        self._moving = list(moving)
        self._background = None
        self.renders = 0
        self.blits = 0
        if not isinstance(figure.canvas, FigureCanvasAgg):
            FigureCanvasAgg(figure)
        if figure.get_layout_engine() is not None:
            # Lay out once, then freeze: a layout engine costs a full extra pass per draw.
            figure.canvas.draw()
            figure.set_layout_engine("none")
        for artist in self._moving:
            artist.set_animated(True)
        self.image = widgets.Image(format="png", layout=widgets.Layout(max_width="100%"))
        super().__init__(children=[*self.controls.values(), self.image])
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        self.refresh()

    def values(self) -> dict[str, object]:
        """Current value of every control, by name."""
        return {name: control.value for name, control in self.controls.items()}

    def _limits(self) -> list:
        return [(ax.get_xlim(), ax.get_ylim()) for ax in self.figure.axes]

    def refresh(self) -> None:
        """Apply the current slider values to the figure and re-render it."""
        before = self._limits()
        self._update(**self.values())
        canvas = self.figure.canvas
        if self._background is not None and self._limits() == before:
            canvas.restore_region(self._background)
            self.blits += 1
        else:
            canvas.draw()
            if self._moving:
                self._background = canvas.copy_from_bbox(self.figure.bbox)
        for artist in self._moving:
            self.figure.draw_artist(artist)
        self.image.value = _encode_png(self.figure)
        self.renders += 1

    def _on_change(self, _change: dict) -> None:
        self.refresh()


def view_builders() -> dict[str, Callable[..., InteractiveView]]:
    """Every interactive view of the course, by name (the public ``*_view`` builders).

    Each can be called without arguments.

    Returns
    -------
    dict of str to callable

    Examples
    --------
    >>> "recurrence_view" in view_builders()
    True
    """
    module = sys.modules[__name__]
    return {
        name: getattr(module, name)
        for name in __all__
        if name.endswith("_view") and callable(getattr(module, name))
    }


@course_style
def live_figure(figsize: tuple[float, float], nrows: int = 1, ncols: int = 1, **kwargs):
    """A pyplot-free figure for a view, with its Axes (``Figure.subplots`` arguments).

    Made under the course style (or projector mode, when on), like every static figure.
    Updates should change titles with ``ax.title.set_text`` (which keeps the style's
    font size) rather than ``ax.set_title`` (which applies the current defaults).
    """
    figure = Figure(figsize=figsize, dpi=WIDGET_DPI, layout="constrained")
    FigureCanvasAgg(figure)
    return figure, figure.subplots(nrows, ncols, **kwargs)


def _style(description: str) -> dict:
    return {
        "description": description,
        "continuous_update": True,
        "style": {"description_width": "initial"},
        "layout": widgets.Layout(width="480px"),
    }


def int_slider(description: str, value: int, minimum: int, maximum: int, step: int = 1):
    """An integer slider that updates while dragged.

    Parameters
    ----------
    description : str
        Label shown left of the slider.
    value, minimum, maximum, step : int
        Start value, range and step.

    Returns
    -------
    ipywidgets.IntSlider

    Examples
    --------
    >>> int_slider("n", 5, 1, 10).value
    5
    """
    value = check_int("value", value)
    minimum = check_int("minimum", minimum)
    maximum = check_int("maximum", maximum)
    step = check_int("step", step, minimum=1)
    if not minimum <= value <= maximum:
        raise ValueError(f"value must lie in [{minimum}, {maximum}], got {value}")
    return widgets.IntSlider(
        value=value, min=minimum, max=maximum, step=step, **_style(description)
    )


def even_slider(description: str, value: int, minimum: int = 2, maximum: int = 256):
    """A slider for a model width: even values only.

    Examples
    --------
    >>> even_slider("d", 64).step
    2
    """
    for name, number in (("value", value), ("minimum", minimum), ("maximum", maximum)):
        if check_int(name, number, minimum=2) % 2:
            raise ValueError(f"{name} must be even, got {number}")
    return int_slider(description, value, minimum, maximum, step=2)


def float_slider(
    description: str, value: float, minimum: float, maximum: float, step: float
) -> widgets.FloatSlider:
    """A float slider that updates while dragged.

    Examples
    --------
    >>> float_slider("Δ", 1.0, 0.0, 10.0, 0.5).max
    10.0
    """
    value = check_real("value", value)
    minimum = check_real("minimum", minimum)
    maximum = check_real("maximum", maximum)
    step = check_real("step", step, positive=True)
    if not minimum <= value <= maximum:
        raise ValueError(f"value must lie in [{minimum}, {maximum}], got {value}")
    return widgets.FloatSlider(
        value=value, min=minimum, max=maximum, step=step, **_style(description)
    )


def base_slider(description: str = "base", value: float = 10000.0) -> widgets.FloatLogSlider:
    """A logarithmic slider for the frequency base, from 10 to 10^6.

    Examples
    --------
    >>> base_slider().value
    10000.0
    """
    value = check_real("value", value, positive=True)
    if not 10.0 <= value <= 1e6:
        raise ValueError(f"value must lie in [10, 1e6], got {value}")
    return widgets.FloatLogSlider(
        value=value, base=10, min=1, max=6, step=0.1, readout_format=".3g", **_style(description)
    )


# --- Lesson 04–05: the rotation property and seeing the encoding ---


def _pair_points(positions: np.ndarray, delta: float, k: int, d_model: int, base: float):
    """Pair ``k`` of the encoding at ``positions`` and at ``positions + delta``, and its angle."""
    pairs = sinusoidal_pe(positions, d_model, base)[:, 2 * k : 2 * k + 2]
    shifted = sinusoidal_pe(positions + delta, d_model, base)[:, 2 * k : 2 * k + 2]
    return pairs, shifted, frequencies(d_model, base)[k] * delta


def pair_rotation_title(frequency_index: int, d_model: int, delta: float) -> str:
    """Title of the unit-circle picture: which pair, which width, which shift.

    Examples
    --------
    >>> pair_rotation_title(0, 16, 1.0)
    'Pair k = 0 of d = 16, shifted by Δ = 1'
    """
    frequency_index = check_int("frequency_index", frequency_index, minimum=0)
    d_model = check_d_model(d_model)
    delta = check_real("delta", delta)
    return f"Pair k = {frequency_index} of d = {d_model}, shifted by Δ = {delta:g}"


def pair_rotation_view(
    delta: float = 1.0,
    frequency_index: int = 0,
    d_model: int = 16,
    base: float = 10000.0,
    positions: ArrayLike = (0, 2, 4),
) -> InteractiveView:
    """Sliders for Δ and the pair index k over the unit-circle picture of lesson 04.

    The points are pair ``k`` of ``PE(t)`` for the given positions; the squares are
    the same pair at ``t + Δ``: every point turns clockwise by the same angle ``w_k Δ``.

    Parameters
    ----------
    delta : float, default 1.0
        Start value of the Δ slider (0 to 20).
    frequency_index : int, default 0
        Start value of the k slider (0 to d_model/2 - 1).
    d_model : int, default 16
        Width of the encoding (fixed).
    base : float, default 10000.0
        Frequency base (fixed).
    positions : array_like, default (0, 2, 4)
        The positions drawn.

    Returns
    -------
    InteractiveView
        Controls ``"delta"`` and ``"frequency_index"``.

    Examples
    --------
    >>> view = pair_rotation_view()
    >>> view.controls["frequency_index"].value = 1
    >>> view.renders
    2
    """
    d_model = check_d_model(d_model)
    base = check_base(base)
    t = check_positions(positions)
    if t.size == 0:
        raise ValueError("positions must hold at least one position, got an empty array")
    delta = check_real("delta", delta)
    if not 0.0 <= delta <= 20.0:
        raise ValueError(f"delta must lie in [0, 20], got {delta}")
    frequency_index = check_int("frequency_index", frequency_index, minimum=0)
    if frequency_index >= d_model // 2:
        raise ValueError(
            f"frequency_index must be < d_model/2 = {d_model // 2}, got {frequency_index}"
        )
    figure, ax = live_figure(CIRCLE_FIGSIZE)
    pairs, shifted, angle = _pair_points(t, delta, frequency_index, d_model, base)
    plot_pair_rotation(
        pairs,
        shifted,
        ax,
        positions=t,
        caption=rotation_caption(angle, frequency_index),
        title=pair_rotation_title(frequency_index, d_model, delta),
    )
    before, after, arrows = ax.collections[:3]
    caption, labels = ax.texts[0], ax.texts[1:]

    def update(delta: float, frequency_index: int) -> None:
        pairs, shifted, angle = _pair_points(t, delta, frequency_index, d_model, base)
        before.set_offsets(pairs)
        after.set_offsets(shifted)
        arrows.set_offsets(pairs)
        arrows.set_UVC(shifted[:, 0] - pairs[:, 0], shifted[:, 1] - pairs[:, 1])
        caption.set_text(rotation_caption(angle, frequency_index))
        for label, (x, y) in zip(labels, pairs, strict=True):
            label.set_position((1.12 * x, 1.12 * y))
        ax.title.set_text(pair_rotation_title(frequency_index, d_model, delta))

    controls = {
        "delta": float_slider("shift Δ", delta, 0.0, 20.0, 0.25),
        "frequency_index": int_slider("pair index k", frequency_index, 0, d_model // 2 - 1),
    }
    moving = [before, after, arrows, caption, *labels, ax.title]
    return InteractiveView(figure, controls, update, moving=moving)


def _overview_data(n_positions: int, d_model: int, base: float):
    """The encoding and ``PE(0)·PE(Δ)`` for ``Δ = -(n-1) .. n-1`` (this is Σ_k cos(w_k Δ))."""
    pe = sinusoidal_pe(n_positions, d_model, base)
    deltas = np.arange(-(n_positions - 1), n_positions, dtype=np.float64)
    dots = sinusoidal_pe(deltas, d_model, base) @ pe[0]
    return pe, deltas, dots


def pe_overview_view(
    n_positions: int = 50, d_model: int = 128, base: float = 10000.0
) -> InteractiveView:
    """Sliders for n, d and base over the two-panel figure of lesson 05.

    Left: the encoding as a heatmap (colours fixed to [-1, 1]); right: the dot
    product ``PE(t)·PE(t+Δ)`` against Δ from ``-(n-1)`` to ``n-1``.

    Parameters
    ----------
    n_positions : int, default 50
        Start value of the n slider (2 to 200).
    d_model : int, default 128
        Start value of the d slider (even, 2 to 256).
    base : float, default 10000.0
        Start value of the base slider (10 to 10^6, log scale).

    Returns
    -------
    InteractiveView
        Controls ``"n_positions"``, ``"d_model"`` and ``"base"``.

    Examples
    --------
    >>> view = pe_overview_view()
    >>> view.controls["d_model"].value = 16
    >>> view.figure.axes[0].images[0].get_array().shape
    (50, 16)
    """
    n_positions = check_int("n_positions", n_positions, minimum=2)
    if n_positions > 200:
        raise ValueError(f"n_positions must be <= 200, got {n_positions}")
    d_model = check_d_model(d_model)
    base = check_base(base)
    figure, axes = live_figure(WIDE_FIGSIZE, 1, 2, width_ratios=(1.3, 1.0))
    plot_pe_overview(*_overview_data(n_positions, d_model, base), axes=axes)
    heat_ax, dot_ax = axes
    image, curve = heat_ax.images[0], dot_ax.lines[0]

    def update(n_positions: int, d_model: int, base: float) -> None:
        pe, deltas, dots = _overview_data(n_positions, d_model, base)
        image.set_data(pe)
        image.set_extent((-0.5, d_model - 0.5, n_positions - 0.5, -0.5))
        heat_ax.title.set_text(f"PE: {n_positions} × {d_model}")
        curve.set_data(deltas, dots)
        dot_ax.set_xlim(deltas[0] - 1, deltas[-1] + 1)
        spread = d_model / 2
        dot_ax.set_ylim(min(-0.05 * spread, dots.min() - 0.05 * spread), 1.05 * spread)

    controls = {
        "n_positions": int_slider("positions n", n_positions, 2, 200),
        "d_model": even_slider("d", d_model, 2, 256),
        "base": base_slider("base", base),
    }
    moving = [image, curve, heat_ax.title]
    return InteractiveView(figure, controls, update, moving=moving)


# --- Lesson 06–07: attention breakdown and RoPE ---


def attention_blend_view(
    d_model: int = 64, t: float = 0.5, n_positions: int = 32, seed: int = 0
) -> InteractiveView:
    """Sliders for d and the blend t over the two-panel figure of lesson 06.

    Both projections are ``W = (1 - t) I + t W_random``. Left: the position–position
    term ``p W_Q W_Kᵀ pᵀ`` with its relative deviation in the title; right: the
    deviation against t, with the current t marked.

    Parameters
    ----------
    d_model : int, default 64
        Start value of the d slider (even, 8 to 128).
    t : float, default 0.5
        Start value of the blend slider (0 to 1).
    n_positions : int, default 32
        Number of positions (fixed).
    seed : int, default 0
        Seed of the random projections (fixed).

    Returns
    -------
    InteractiveView
        Controls ``"d_model"`` and ``"t"``.

    Examples
    --------
    >>> view = attention_blend_view()
    >>> view.controls["t"].value = 0.0
    >>> view.figure.axes[0].get_title().endswith("relative deviation 0.000")
    True
    """
    d_model = check_d_model(d_model)
    if not 8 <= d_model <= 128:
        raise ValueError(f"d_model must lie in [8, 128], got {d_model}")
    t = check_real("t", t)
    if not 0.0 <= t <= 1.0:
        raise ValueError(f"t must lie in [0, 1], got {t}")
    n_positions = check_int("n_positions", n_positions, minimum=2)
    seed = check_int("seed", seed, minimum=0)
    figure, axes = live_figure(WIDE_FIGSIZE, 1, 2, width_ratios=(1.15, 1.0))
    plot_blend(d_model, t, n_positions=n_positions, seed=seed, axes=axes)
    heat_ax, curve_ax = axes
    image = heat_ax.images[0]
    curve, marker = curve_ax.lines[:2]

    def update(d_model: int, t: float) -> None:
        p, w_q, w_k = blend_inputs(d_model, n_positions, seed)
        scores = blend_position_scores(p, w_q, w_k, t)
        deviation = relative_deviation(scores)
        image.set_data(scores / (float(np.abs(scores).max()) or 1.0))
        heat_ax.title.set_text(blend_title(t, deviation))
        curve.set_ydata(blend_deviations(p, w_q, w_k, BLEND_T_VALUES))
        marker.set_data([t], [deviation])
        curve_ax.title.set_text(f"Distance from 'depends on j − i only', d = {d_model}")

    controls = {
        "d_model": even_slider("d", d_model, 8, 128),
        "t": float_slider("blend t (0: W = I, 1: random W)", t, 0.0, 1.0, 0.05),
    }
    moving = [image, heat_ax.title, curve, marker, curve_ax.title]
    return InteractiveView(figure, controls, update, moving=moving)


def rope_offset_view(
    q: ArrayLike | None = None,
    k: ArrayLike | None = None,
    base: float = 10000.0,
    offset: int = 0,
    n_positions: int = 24,
    max_distance: int = 64,
) -> InteractiveView:
    """Sliders for the base and a position offset over the two-panel figure of lesson 07.

    Left: the RoPE score of ``q`` at ``offset`` and ``k`` at ``offset + r`` against
    ``r`` (dots: the same at offset 0); right: the score matrix over positions
    ``offset .. offset + n_positions - 1``. Moving the offset changes nothing.

    Parameters
    ----------
    q, k : array_like, optional
        1-D vectors of the same even width (fixed); by default seeded random
        vectors of width 64.
    base : float, default 10000.0
        Start value of the base slider (10 to 10^6, log scale).
    offset : int, default 0
        Start value of the offset slider (0 to 10000).
    n_positions, max_distance : int
        Size of the heatmap and length of the curve (fixed).

    Returns
    -------
    InteractiveView
        Controls ``"base"`` and ``"offset"``.

    Examples
    --------
    >>> view = rope_offset_view([1.0, 0.0, 0.0, 1.0], [0.5, 0.5, 1.0, 0.0])
    >>> before = view.figure.axes[0].lines[0].get_ydata().copy()
    >>> view.controls["offset"].value = 5000
    >>> bool(np.allclose(view.figure.axes[0].lines[0].get_ydata(), before))
    True
    """
    if q is None or k is None:
        rng = np.random.default_rng(0)
        q = rng.standard_normal(64) if q is None else q
        k = rng.standard_normal(64) if k is None else k
    base = check_base(base)
    offset = check_int("offset", offset, minimum=0)
    if offset > 10000:
        raise ValueError(f"offset must be <= 10000, got {offset}")
    n_positions = check_int("n_positions", n_positions, minimum=2)
    distances = np.arange(check_int("max_distance", max_distance, minimum=1) + 1)
    figure, axes = live_figure(WIDE_FIGSIZE, 1, 2, width_ratios=(1.2, 1.0))
    plot_rope_offset(
        q, k, base=base, offset=offset, n_positions=n_positions,
        max_distance=distances[-1], axes=axes,
    )
    curve_ax, heat_ax = axes
    curve, reference = curve_ax.lines[:2]
    legend_text = curve_ax.get_legend().get_texts()[0]
    image = heat_ax.images[0]

    def update(base: float, offset: int) -> None:
        grid = offset + np.arange(n_positions)
        matrix = rope_scores(q, k, grid, grid, base)
        curve.set_ydata(rope_scores(q, k, [offset], offset + distances, base)[0])
        reference.set_ydata(rope_scores(q, k, [0], distances, base)[0])
        legend_text.set_text(f"query at {offset:g}")
        curve_ax.title.set_text(f"Score vs distance, base = {base:.3g}")
        image.set_data(matrix)
        heat_ax.title.set_text(offset_title(offset, n_positions, relative_deviation(matrix)))

    controls = {
        "base": base_slider("base", base),
        "offset": int_slider("position offset", offset, 0, 10000, 100),
    }
    return InteractiveView(figure, controls, update)


# --- Lesson 01–03: why position, addition, frequencies ---

#: Random pairs behind the cosine histogram of :func:`dimension_view`.
DIMENSION_PAIRS = 2000


def recurrence_view(decay: float = 0.9, n_steps: int = 20) -> InteractiveView:
    """Sliders for the factor ``a`` and the length ``n`` of ``h_t = a h_(t-1) + x_t`` (lesson 01).

    The curve is the weight ``a^(n-t)`` of every input ``x_t`` in the last state
    ``h_n``; the caption gives the first input's weight ``a^(n-1)``.

    Parameters
    ----------
    decay : float, default 0.9
        Start value of the ``a`` slider (0 to 1).
    n_steps : int, default 20
        Start value of the ``n`` slider (2 to 60).

    Returns
    -------
    InteractiveView
        Controls ``"decay"`` and ``"n_steps"``.

    Examples
    --------
    >>> view = recurrence_view()
    >>> view.controls["n_steps"].value = 30
    >>> view.figure.axes[0].lines[0].get_xdata().size
    30
    """
    decay = check_real("decay", decay)
    if not 0.0 <= decay <= 1.0:
        raise ValueError(f"decay must lie in [0, 1], got {decay}")
    n_steps = check_int("n_steps", n_steps, minimum=2)
    if n_steps > 60:
        raise ValueError(f"n_steps must be <= 60, got {n_steps}")
    figure, ax = live_figure(FIGSIZE)
    plot_recurrence_weights(recurrence_weights(decay, n_steps), decay, ax=ax)
    line, caption = ax.lines[0], ax.texts[0]

    def update(decay: float, n_steps: int) -> None:
        line.set_data(np.arange(1, n_steps + 1), recurrence_weights(decay, n_steps))
        caption.set_text(recurrence_caption(decay, n_steps))
        ax.title.set_text(recurrence_title(decay, n_steps))
        ax.set_xlim(0.5, n_steps + 0.5)

    controls = {
        "decay": float_slider("recurrence factor a", decay, 0.0, 1.0, 0.01),
        "n_steps": int_slider("sequence length n", n_steps, 2, 60),
    }
    return InteractiveView(figure, controls, update, moving=[line, caption, ax.title])


def dimension_data(d_model: int, seed: int = 0):
    """Cosines of random pairs and a position probe at width ``d_model`` (both seeded).

    Returns ``(cosines, probe)`` from :func:`~pe_helpers.foundations.random_cosines`
    (:data:`DIMENSION_PAIRS` pairs) and :func:`~pe_helpers.foundations.position_probe`,
    each drawn from ``np.random.default_rng(seed)``: the same ``d_model`` always
    gives the same picture.

    Examples
    --------
    >>> cosines, probe = dimension_data(8)
    >>> cosines.shape
    (2000,)
    """
    seed = check_int("seed", seed, minimum=0)
    cosines = random_cosines(d_model, DIMENSION_PAIRS, np.random.default_rng(seed))
    probe = position_probe(d_model, np.random.default_rng(seed))
    return cosines, probe


def dimension_view(d_model: int = 16, seed: int = 0) -> InteractiveView:
    """A slider for the width d over lesson 02's two panels.

    Left: cosines of random vector pairs (they crowd around 0 as d grows). Right:
    positions read back by a linear probe from ``embedding + PE`` against the
    true positions (they close in on the diagonal as d grows).

    Parameters
    ----------
    d_model : int, default 16
        Start value of the d slider (even, 2 to 256).
    seed : int, default 0
        Seed of the random vectors and embeddings.

    Returns
    -------
    InteractiveView
        Control ``"d_model"``.

    Examples
    --------
    >>> view = dimension_view()
    >>> view.controls["d_model"].value = 128
    >>> view.figure.axes[1].get_title()
    'Probe on embedding + PE, d = 128: R² = 0.83'
    """
    d_model = check_d_model(d_model)
    if d_model > 256:
        raise ValueError(f"d_model must be <= 256, got {d_model}")
    seed = check_int("seed", seed, minimum=0)
    figure, axes = live_figure(WIDE_FIGSIZE, 1, 2)
    left, right = axes
    cosines, probe = dimension_data(d_model, seed)
    plot_dimension_panels(
        cosines,
        probe.true_positions,
        probe.predicted_positions,
        d_model,
        probe.r2,
        axes=[left, right],
    )
    bars, points = left.patches, right.collections[0]

    def update(d_model: int) -> None:
        cosines, probe = dimension_data(d_model, seed)
        heights = cosine_histogram(cosines)
        for bar, height in zip(bars, heights, strict=True):
            bar.set_height(height)
        left.set_ylim(0.0, max(float(heights.max()), 0.05) * 1.15)
        points.set_offsets(np.column_stack([probe.true_positions, probe.predicted_positions]))
        titles = dimension_titles(d_model, float(np.mean(np.abs(cosines))), probe.r2)
        left.title.set_text(titles[0])
        right.title.set_text(titles[1])

    return InteractiveView(figure, {"d_model": even_slider("d", d_model, 2, 256)}, update)


def frequency_view(
    d_model: int = 64, base: float = 10000.0, position: int = 10
) -> InteractiveView:
    """Sliders for d, base and the position t over lesson 03's two panels.

    Left: the encoding of position t, one stem per dimension. Right: the
    wavelength of every pair on a log scale with the position t as a line: the
    pairs below the line have already turned full circle at least once.

    Parameters
    ----------
    d_model : int, default 64
        Start value of the d slider (even, 2 to 256).
    base : float, default 10000.0
        Start value of the base slider (10 to 10^6, log scale).
    position : int, default 10
        Start value of the t slider (1 to 1000).

    Returns
    -------
    InteractiveView
        Controls ``"d_model"``, ``"base"`` and ``"position"``.

    Examples
    --------
    >>> view = frequency_view()
    >>> view.controls["d_model"].value = 8
    >>> view.figure.axes[0].lines[0].get_xdata().tolist()
    [0, 2, 4, 6]
    """
    d_model = check_d_model(d_model)
    if d_model > 256:
        raise ValueError(f"d_model must be <= 256, got {d_model}")
    base = check_base(base)
    position = check_int("position", position, minimum=1)
    if position > 1000:
        raise ValueError(f"position must be <= 1000, got {position}")
    figure, axes = live_figure(WIDE_FIGSIZE, 1, 2)
    left, right = axes
    plot_frequency_panels(
        sinusoidal_pe([position], d_model, base)[0],
        wavelengths(d_model, base),
        base,
        position,
        axes=[left, right],
    )
    sin_dots, cos_dots = left.lines[:2]
    sin_stems, cos_stems = left.collections[:2]
    wave_line, _, base_line, position_line = right.lines[:4]
    position_label = right.get_legend().get_texts()[3]

    def update(d_model: int, base: float, position: int) -> None:
        row = sinusoidal_pe([position], d_model, base)[0]
        columns = np.arange(d_model)
        sin_dots.set_data(columns[0::2], row[0::2])
        cos_dots.set_data(columns[1::2], row[1::2])
        sin_stems.set_segments(stem_segments(row[0::2], columns[0::2]))
        cos_stems.set_segments(stem_segments(row[1::2], columns[1::2]))
        left.set_xlim(-1, d_model)
        left.title.set_text(pe_vector_title(position, d_model, base))
        lam = wavelengths(d_model, base)
        wave_line.set_data(np.arange(lam.size), lam)
        base_line.set_ydata([2 * np.pi * base] * 2)
        position_line.set_ydata([position] * 2)
        position_label.set_text(f"position t = {position:g}")
        right.set_xlim(-1, lam.size)
        right.set_ylim(*wavelength_limits(lam, base, position))
        right.title.set_text(wavelength_title(d_model, base))

    controls = {
        "d_model": even_slider("d", d_model, 2, 256),
        "base": base_slider("base", base),
        "position": int_slider("position t", position, 1, 1000),
    }
    return InteractiveView(figure, controls, update)
