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
from collections.abc import Callable, Mapping

import ipywidgets as widgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from ._validate import check_int, check_real

__all__ = [
    "InteractiveView",
    "render_png",
    "even_slider",
    "base_slider",
    "int_slider",
    "float_slider",
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

    Attributes
    ----------
    figure, controls, image : the figure, the sliders, the ``ipywidgets.Image``.
    renders : int
        Number of times the figure was rendered (1 after construction).
    """

    def __init__(
        self,
        figure: Figure,
        controls: Mapping[str, widgets.ValueWidget],
        update: Callable[..., None],
    ) -> None:
        self.figure = figure
        self.controls = dict(controls)
        self._update = update
        self.renders = 0
        if figure.get_layout_engine() is not None:
            # Lay out once, then freeze: a layout engine costs a full extra pass per draw.
            render_png(figure)
            figure.set_layout_engine("none")
        self.image = widgets.Image(format="png", layout=widgets.Layout(max_width="100%"))
        super().__init__(children=[*self.controls.values(), self.image])
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        self.refresh()

    def values(self) -> dict[str, object]:
        """Current value of every control, by name."""
        return {name: control.value for name, control in self.controls.items()}

    def refresh(self) -> None:
        """Apply the current slider values to the figure and re-render it."""
        self._update(**self.values())
        self.image.value = render_png(self.figure)
        self.renders += 1

    def _on_change(self, _change: dict) -> None:
        self.refresh()


def live_figure(figsize: tuple[float, float], nrows: int = 1, ncols: int = 1, **kwargs):
    """A pyplot-free figure for a view, with its Axes (``Figure.subplots`` arguments)."""
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
