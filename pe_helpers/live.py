"""Figures defined once, drawn statically or live under sliders.

A lesson's figure is a :class:`LiveFigure`: ``build(axes)`` creates its artists and returns
them in a namespace (``update`` reaches each by name, never by index), ``update(art,
**values)`` sets everything that depends on the control values. ``draw(**values)`` builds,
then updates: the static figure a notebook shows. ``view(**values)`` builds the same figure
off pyplot and calls the same ``update`` on every slider step
(:class:`~pe_helpers.views.InteractiveView`; ipywidgets is imported with the first view).
Each :class:`Control` owns its range: a value is checked once, where it enters.
"""

from __future__ import annotations

import hashlib
import math
import reprlib
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import TYPE_CHECKING, ClassVar

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ._validate import check_int, check_real
from .figures import (
    FIGSIZE,
    WIDE_FIGSIZE,
    WIDGET_DPI,
    active_rc,
    kernel_request,
    pin_cycle_colours,
    pin_style,
    style_context,
)
from .i18n import translate, translate_figure

if TYPE_CHECKING:
    import ipywidgets as widgets

    from .views import InteractiveView

__all__ = [
    "Control",
    "Layout",
    "LiveFigure",
    "choice_control",
    "even_control",
    "float_control",
    "int_control",
    "log_control",
    "side_by_side",
    "snapshot",
]

#: Most options a choice shows as a row of buttons; a longer choice is a drop-down list.
MAX_TOGGLE_OPTIONS = 4


@dataclass(frozen=True)
class Control:
    """One control of a live figure: its label, default and range (made by the ``*_control``
    factories).

    Attributes
    ----------
    label : str
        Text left of the slider (or of the buttons).
    default, minimum, maximum, step : float, or str for a choice
        Start value, range and step (for ``"log"``: the value range, step in decades; for
        ``"choice"``: the default name, the first and the last option, step 1).
    kind : {"int", "even", "float", "log", "choice"}
    options : tuple of str
        The names a ``"choice"`` picks from, in the order shown; empty for a slider.
    names : tuple of str
        What a ``"choice"`` shows for each option (its display name); empty for a slider.
    """

    label: str
    default: float | str
    minimum: float | str
    maximum: float | str
    step: float
    kind: str
    options: tuple[str, ...] = ()
    names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.label, str) or not self.label.strip():
            raise TypeError(f"label must be a non-empty str, got {reprlib.repr(self.label)}")
        self.check("default", self.default)  # an even slider's default is even

    def check(self, name: str, value: object) -> float | int | str:
        """Return ``value`` if it suits this control, else raise naming ``name``.

        Examples
        --------
        >>> int_control("n", 5, 1, 10).check("n_steps", 11)
        Traceback (most recent call last):
        ...
        ValueError: n_steps must lie in [1, 10], got 11
        >>> choice_control("dtype", ("float32", "float16"), "float32").check("dtype", "int8")
        Traceback (most recent call last):
        ...
        ValueError: dtype must be one of 'float32', 'float16', got 'int8'
        """
        if self.kind == "choice":
            names = ", ".join(map(repr, self.options))
            if not isinstance(value, str):
                raise TypeError(f"{name} must be a name, one of {names}, got {reprlib.repr(value)}")
            if value not in self.options:
                raise ValueError(f"{name} must be one of {names}, got {value!r}")
            return str(value)
        integral = self.kind in ("int", "even")
        value = check_int(name, value) if integral else check_real(name, value)
        if not self.minimum <= value <= self.maximum:
            raise ValueError(
                f"{name} must lie in [{self.minimum:g}, {self.maximum:g}], got {value}"
            )
        if self.kind == "even" and value % 2:
            raise ValueError(f"{name} must be even, got {value}")
        return value

    def widget(self, name: str, value: object) -> widgets.ValueWidget:
        """A slider, buttons or a drop-down list starting at ``value``, checked."""
        import ipywidgets as widgets

        shown = {"value": self.check(name, value), "description": translate(self.label)}
        shown["style"] = {"description_width": "initial"}
        if self.kind == "choice":
            options = list(zip(map(translate, self.names), self.options, strict=True))
            if len(self.options) > MAX_TOGGLE_OPTIONS:
                return widgets.Dropdown(options=options, **shown)
            row = widgets.Layout(display="flex")  # the label left of the buttons, as a slider's
            return widgets.ToggleButtons(options=options, layout=row, **shown)
        shown["layout"] = widgets.Layout(width="480px")
        if self.kind == "log":
            low, high = math.log10(self.minimum), math.log10(self.maximum)
            return widgets.FloatLogSlider(
                base=10, min=low, max=high, step=self.step, readout_format=".3g", **shown
            )
        if self.kind == "float":
            return widgets.FloatSlider(min=self.minimum, max=self.maximum, step=self.step, **shown)
        low, high, step = int(self.minimum), int(self.maximum), int(self.step)
        return widgets.IntSlider(min=low, max=high, step=step, **shown)


def _control(label: str, default, minimum, maximum, step, kind: str) -> Control:
    """A slider's definition, its numbers checked."""
    number = check_int if kind in ("int", "even") else check_real
    named = {"default": default, "minimum": minimum, "maximum": maximum, "step": step}
    default, minimum, maximum, step = (number(n, v) for n, v in named.items())
    if not minimum <= default <= maximum:
        raise ValueError(
            f"control {label!r}: need minimum <= default <= maximum, got "
            f"{minimum} <= {default} <= {maximum}"
        )
    if step <= 0 or (kind == "log" and minimum <= 0):
        raise ValueError(f"control {label!r}: step and (on a log slider) minimum must be > 0")
    return Control(label, default, minimum, maximum, step, kind)


def int_control(label: str, default: int, minimum: int, maximum: int, step: int = 1) -> Control:
    """An integer slider's definition.

    Examples
    --------
    >>> int_control("n", 5, 1, 10).widget("n", 7).value
    7
    """
    return _control(label, default, minimum, maximum, step, "int")


def even_control(label: str, default: int, minimum: int = 2, maximum: int = 256) -> Control:
    """A model-width slider's definition: even values only.

    Examples
    --------
    >>> even_control("d", 64).widget("d_model", 64).step
    2
    """
    return _control(label, default, minimum, maximum, 2, "even")


def float_control(
    label: str, default: float, minimum: float, maximum: float, step: float
) -> Control:
    """A float slider's definition.

    Examples
    --------
    >>> float_control("Δ", 1.0, 0.0, 10.0, 0.5).widget("delta", 2.5).value
    2.5
    """
    return _control(label, default, minimum, maximum, step, "float")


def log_control(
    label: str, default: float, minimum: float, maximum: float, step: float = 0.1
) -> Control:
    """A logarithmic slider's definition (``step`` in decades), e.g. a frequency base.

    Examples
    --------
    >>> log_control("base", 10000.0, 10.0, 1e6).widget("base", 100.0).value
    100.0
    """
    return _control(label, default, minimum, maximum, step, "log")


def choice_control(label: str, options: Sequence[str] | Mapping[str, str], default: str) -> Control:
    """A choice's definition: one of a few names, picked by name (a method, a dtype, a preset).

    Parameters
    ----------
    label : str
        Text left of the choice, non-empty.
    options : sequence of str, or mapping of str to str
        Two or more distinct names, in the order shown; the figure receives the name. A
        mapping gives each name a display name: ``{"rope_adjacent": "RoPE"}``.
    default : str
        The name picked at the start, one of ``options``.

    Returns
    -------
    Control
        Of kind ``"choice"``: ``ipywidgets.ToggleButtons`` for up to
        :data:`MAX_TOGGLE_OPTIONS` options, an ``ipywidgets.Dropdown`` for more.

    Examples
    --------
    >>> dtype = choice_control("dtype", ("float64", "float32", "bfloat16"), "float32")
    >>> buttons = dtype.widget("dtype", "bfloat16")
    >>> type(buttons).__name__, buttons.value, buttons.label
    ('ToggleButtons', 'bfloat16', 'bfloat16')
    >>> method = choice_control("method", {"none": "NoPE", "rope_adjacent": "RoPE"}, "none")
    >>> buttons = method.widget("method", "rope_adjacent")
    >>> buttons.value, buttons.label
    ('rope_adjacent', 'RoPE')
    """
    if isinstance(options, Mapping):
        options, names = tuple(options), tuple(options.values())
    elif isinstance(options, Sequence) and not isinstance(options, str):
        options = names = tuple(options)
    else:
        raise TypeError(f"options must be a sequence of names, got {reprlib.repr(options)}")
    if not all(isinstance(o, str) and o.strip() for o in (*options, *names)):
        raise TypeError(f"options must be non-empty str, got {reprlib.repr(options)}")
    if len(options) < 2 or len(set(options)) < len(options) or len(set(names)) < len(names):
        raise ValueError(f"options must be two or more distinct names, got {list(options)}")
    return Control(label, default, options[0], options[-1], 1, "choice", options, names)


@dataclass(frozen=True)
class Layout:
    """The panels of a live figure: its size, its grid and any other ``subplots`` keywords.

    Attributes
    ----------
    figsize : (float, float), default FIGSIZE
        Figure size in inches.
    grid : (int, int), default (1, 1)
        Rows and columns of panels (``Figure.subplots``).
    subplot_kw : dict
        Extra ``Figure.subplots`` keywords, for example ``{"sharex": True}``.

    Examples
    --------
    >>> Layout((9.0, 6.0), (2, 1), {"sharex": True}).subplots(Figure()).shape
    (2,)
    """

    figsize: tuple[float, float] = FIGSIZE
    grid: tuple[int, int] = (1, 1)
    subplot_kw: dict = field(default_factory=dict)

    def subplots(self, figure: Figure):
        """The panels on ``figure``: one Axes, or an array of them."""
        return figure.subplots(*self.grid, **self.subplot_kw)


def side_by_side(
    width_ratios: Sequence[float] | None = None, figsize: tuple[float, float] = WIDE_FIGSIZE
) -> Layout:
    """Two panels, left and right, on a wide figure: the layout of most two-panel figures.

    Parameters
    ----------
    width_ratios : sequence of two floats, optional
        Relative widths of the left and right panels; equal when None.
    figsize : (float, float), default WIDE_FIGSIZE
        Figure size in inches.

    Returns
    -------
    Layout
        ``grid`` (1, 2), with ``width_ratios`` passed on to ``Figure.subplots``.

    Examples
    --------
    >>> side_by_side((1.2, 1.0)).subplot_kw
    {'width_ratios': [1.2, 1.0]}
    """
    if width_ratios is None:
        return Layout(figsize, (1, 2))
    return Layout(figsize, (1, 2), {"width_ratios": list(width_ratios)})


#: Every LiveFigure subclass, in definition order (filled by ``__init_subclass__``).
_LIVE_FIGURES: list[type[LiveFigure]] = []
#: The open view of each (figure class, notebook cell): re-running a cell closes the old one.
_OPEN_VIEWS: dict[tuple, weakref.ref] = {}


def _cell_id() -> str | None:
    """The cell being run: JupyterLab's cell id, else (nbclient, nbval) a hash of its code."""
    parent = kernel_request()
    cell = parent.get("metadata", {}).get("cellId")
    if cell is None:
        code = parent.get("content", {}).get("code")
        cell = None if code is None else "code:" + hashlib.sha1(code.encode()).hexdigest()
    return cell


class LiveFigure:
    """A course figure, defined once for its static form and its slider form.

    Subclasses set :attr:`controls` and :attr:`layout` and define :meth:`build`,
    :meth:`update` and, for blitting, :meth:`moving` and :meth:`rescaled`. Options that are
    not sliders (a seed, a matrix) are constructor arguments, checked in ``__init__``.

    Examples
    --------
    >>> class Line(LiveFigure):
    ...     controls = {"slope": float_control("slope", 1.0, -2.0, 2.0, 0.1)}
    ...     def build(self, axes):
    ...         (line,) = axes.plot([0.0, 1.0], [0.0, 0.0])
    ...         axes.set_ylim(-2, 2)
    ...         return SimpleNamespace(axes=axes, line=line)
    ...     def update(self, art, slope):
    ...         art.line.set_ydata([0.0, slope])
    ...         art.axes.title.set_text(f"slope {slope:g}")
    >>> Line().draw(slope=0.5).axes[0].get_title()
    'slope 0.5'
    >>> view = Line().view()
    >>> view.controls["slope"].value = -1.0
    >>> view.figure.axes[0].get_title()
    'slope -1'
    """

    #: The sliders, by the keyword ``update`` receives.
    controls: ClassVar[dict[str, Control]] = {}
    #: Figure size and panels.
    layout: ClassVar[Layout] = Layout()

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        _LIVE_FIGURES.append(cls)

    def build(self, axes) -> SimpleNamespace:
        """Create the artists on ``axes`` (one Axes, or an array of them); return them."""
        raise NotImplementedError

    def update(self, art: SimpleNamespace, **values: object) -> None:
        """Set every data-dependent part of the figure for ``values``."""
        raise NotImplementedError

    def moving(self, art: SimpleNamespace) -> list[Artist]:
        """Artists a step may change while the limits of every Axes stay; default none.

        Everything else must depend on the limits alone: a step that keeps the limits of the
        last full draw redraws only these over a copy of it (blitting).
        """
        return []

    def rescaled(self, art: SimpleNamespace) -> list[Artist]:
        """Axis objects whose limits a blitted step may change, and what follows them.

        ``ax.xaxis`` or ``ax.yaxis`` (of an Axes of "auto" aspect), then every static artist
        whose pixels follow those limits or lie over one that does (a legend), in drawing
        order; default none. Drawn again only when a listed Axis's limits or label change.
        """
        return []

    def values(self, **values: object) -> dict[str, object]:
        """``values`` checked against the controls, with each missing one at its default.

        Examples
        --------
        >>> class Empty(LiveFigure):
        ...     controls = {"n": int_control("n", 3, 1, 5)}
        >>> Empty().values()
        {'n': 3}
        >>> Empty().values(m=1)
        Traceback (most recent call last):
        ...
        TypeError: Empty has no control 'm'; its controls are ['n']
        """
        unknown = sorted(set(values) - set(self.controls))
        if unknown:
            raise TypeError(
                f"{type(self).__name__} has no control {unknown[0]!r}; "
                f"its controls are {list(self.controls)}"
            )
        return {
            name: control.check(name, values.get(name, control.default))
            for name, control in self.controls.items()
        }

    def summary(self, values: Mapping[str, object]) -> str:
        """One line: the figure's name and each control's label and value.

        Examples
        --------
        >>> class Wave(LiveFigure):
        ...     controls = {"k": int_control("pair k", 0, 0, 7), "base": log_control(
        ...         "base", 10000.0, 10.0, 1e6)}
        >>> Wave().summary(Wave().values())
        'Wave with controls: pair k = 0, base = 10000'
        """
        shown = ", ".join(
            f"{translate(control.label)} = {values[name]:g}"
            if not isinstance(values[name], str)
            else f"{translate(control.label)} = {values[name]}"
            for name, control in self.controls.items()
        )
        return translate(f"{type(self).__qualname__} with controls: {shown}")

    def _render(self, figure: Figure, values: dict, settings: Mapping) -> SimpleNamespace:
        with style_context(settings):
            axes = self.layout.subplots(figure)
            art = self.build(axes)
            self.update(art, **values)
            pin_style(figure, settings)
            translate_figure(figure)
        return art

    def draw(self, **values: object) -> Figure:
        """The static figure for ``values`` (defaults for the rest), drawn through pyplot.

        Returns
        -------
        matplotlib.figure.Figure
            Shown inline by a notebook at the end of the cell.
        """
        values = self.values(**values)
        figure = plt.figure(figsize=self.layout.figsize, layout="constrained")
        self._render(figure, values, active_rc())
        return figure

    def view(self, **values: object) -> InteractiveView:
        """The same figure under sliders, starting at ``values`` (defaults for the rest).

        Running the cell again closes the view it made before (:meth:`InteractiveView.close`).
        """
        from .views import InteractiveView

        values = self.values(**values)
        figure = Figure(figsize=self.layout.figsize, dpi=WIDGET_DPI, layout="constrained")
        FigureCanvasAgg(figure)
        settings = active_rc()
        art = self._render(figure, values, settings)

        def update(**step: object) -> None:
            with style_context(settings):
                self.update(art, **step)
                pin_cycle_colours(figure)
                translate_figure(figure)

        moving, rescaled = self.moving(art), self.rescaled(art)
        # An Axes listed whole would be left out of savefig too (it skips animated Axes).
        assert not any(isinstance(a, Axes) for a in (*moving, *rescaled)), "list artists, not Axes"
        sliders = {name: c.widget(name, values[name]) for name, c in self.controls.items()}
        name = type(self).__qualname__
        about = {"figure": f"{type(self).__module__}.{name}", "values": values}
        view = InteractiveView(
            figure,
            sliders,
            update,
            moving,
            rescaled,
            summary=self.summary(values),
            about=about,
        )
        cell = _cell_id()
        if cell is not None:
            key = (type(self).__module__, name, cell)
            old = _OPEN_VIEWS.get(key)
            if old is not None and old() is not None:
                old().close()
            _OPEN_VIEWS[key] = weakref.ref(view)
        return view


def registered_figures() -> list[type[LiveFigure]]:
    """Every :class:`LiveFigure` subclass defined so far, in definition order."""
    return list(_LIVE_FIGURES)


def snapshot(figure: Figure) -> list[dict]:
    """What a figure shows, as plain data: per Axes its texts, limits and artists' data.

    Equal snapshots show the same texts, legends, limits, lines, points, bars and images:
    the parity tests compare a live view after a step with a fresh static figure.
    """

    def rounded(values) -> list:
        # NaN (and masked cells) become None: NaN never equals itself, None does.
        arr = np.round(np.ma.filled(np.ma.asarray(values, dtype=np.float64), np.nan), 9)
        return np.where(np.isnan(arr), None, arr).tolist()

    panels = []
    for ax in figure.axes:
        legend = ax.get_legend()
        panels.append(
            {
                "title": ax.get_title(),
                "xlabel": ax.get_xlabel(),
                "ylabel": ax.get_ylabel(),
                "xlim": rounded(ax.get_xlim()),
                "ylim": rounded(ax.get_ylim()),
                "xscale": ax.get_xscale(),
                "yscale": ax.get_yscale(),
                "texts": [t.get_text() for t in ax.texts],
                "legend": [t.get_text() for t in legend.get_texts()] if legend else [],
                "lines": [rounded(line.get_xydata()) for line in ax.lines],
                "collections": [_collection_data(c, rounded) for c in ax.collections],
                "patches": [
                    rounded(p.get_patch_transform().transform(p.get_path().vertices))
                    for p in ax.patches
                ],
                "images": [rounded(im.get_array()) for im in ax.images],
            }
        )
    return panels


def _collection_data(collection, rounded: Callable) -> list:
    """Offsets, colour values and segments of a collection (scatter, stems, regions)."""
    array = collection.get_array()
    segments = getattr(collection, "get_segments", lambda: [])()
    return [
        rounded(collection.get_offsets()),
        None if array is None else rounded(array),
        [rounded(segment) for segment in segments],
    ]
