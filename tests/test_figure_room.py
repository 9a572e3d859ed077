"""Every course figure, as a room sees it: text that fits, is large enough, and colours apart.

Each static figure (every public ``plot_*`` function of ``pe_helpers.figures`` and of each
lesson's home, and ``heatmap``, called as its docstring examples call it, or with its defaults)
and each live figure (found generically, as the parity tests of ``tests/test_core.py`` find
them) is drawn with the Agg renderer in the default
style and in projector mode (``classroom_style()``), at its starting values and at the
extremes of every control, and checked for:

* fit: every text (titles, axis and tick labels, legends, other texts) inside the figure and
  clear of every other text; a legend clear of the lines and points of its panel;
* size: every text at least :data:`~pe_helpers.figures.MIN_TEXT_PX` CSS pixels on a
  1280 x 720 screen in the default style (JupyterLab scales a picture wider than its content
  column down to the column's width, :data:`~pe_helpers.figures.CONTENT_WIDTH_PX`);
* colour: the colours of a figure's series stay at least CIELAB ΔE (CIE76) 15 apart for
  viewers with deuteranopia and with protanopia, simulated with the matrices of Machado,
  Oliveira & Fernandes (2009), "A physiologically-based model for simulation of color vision
  deficiency", IEEE TVCG 15(6): 1291-1298, at severity 1.0.
"""

from __future__ import annotations

import doctest
import functools
import importlib
import inspect
import itertools
import re

import matplotlib as mpl
import numpy as np
import pytest
from matplotlib.collections import Collection
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from pe_helpers import figures, sinusoidal_pe
from pe_helpers.figures import (
    CONTENT_WIDTH_PX,
    COURSE_RC,
    FIGURE_SIZES,
    MIN_TEXT_PX,
    STATIC_DPI,
    WIDGET_DPI,
    classroom_style,
    on_screen_px,
)
from pe_helpers.lessons import lessons, live_figures
from pe_helpers.lessons.conventions_and_numerics import plot_position_accuracy
from pe_helpers.lessons.visualizing_pe import plot_layouts

#: Smallest CIELAB distance (CIE76) between two series colours of a figure, under each
#: simulated colour-vision deficiency.
MIN_DELTA_E = 15.0
#: Pixels of slack: anti-aliasing and rounding, never a visible overlap.
SLACK = 1.0


# --- what a figure shows -----------------------------------------------------------------------
def _tick_labels(axis) -> list[Text]:
    """The tick labels an axis draws: those of ticks inside its view interval."""
    low, high = sorted(axis.get_view_interval())
    tolerance = 1e-9 * max(abs(low), abs(high), 1.0)
    shown = []
    for locations, ticks in (
        (axis.get_majorticklocs(), axis.get_major_ticks()),
        (axis.get_minorticklocs(), axis.get_minor_ticks()),
    ):
        for location, tick in zip(locations, ticks, strict=False):
            if low - tolerance <= location <= high + tolerance and tick.get_visible():
                shown += [t for t in (tick.label1, tick.label2) if t.get_visible()]
    return shown


def _shown(text: Text) -> bool:
    return text.get_visible() and bool(text.get_text().strip())


def text_boxes(figure: Figure) -> list[tuple[str, Bbox]]:
    """Every text the figure draws, a legend counting as one box, in display pixels."""
    renderer = figure.canvas.get_renderer()
    ticks, in_legends, boxes = set(), set(), []
    for ax in figure.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                ticks.update({id(tick.label1), id(tick.label2)})
            for label in _tick_labels(axis):
                if _shown(label):
                    boxes.append((f"tick {label.get_text()!r}", label.get_window_extent(renderer)))
    for legend in figure.findobj(Legend):
        if legend.get_visible():
            in_legends.update(id(t) for t in legend.findobj(Text))
            boxes.append(("legend", legend.get_window_extent(renderer)))
    for text in figure.findobj(Text):
        if id(text) in ticks or id(text) in in_legends or not _shown(text):
            continue
        boxes.append((repr(text.get_text()), text.get_window_extent(renderer)))
    return boxes


def _inside(box: Bbox, frame: Bbox) -> bool:
    return (
        box.x0 >= frame.x0 - SLACK
        and box.y0 >= frame.y0 - SLACK
        and box.x1 <= frame.x1 + SLACK
        and box.y1 <= frame.y1 + SLACK
    )


def _overlap(a: Bbox, b: Bbox) -> bool:
    return min(a.x1, b.x1) - max(a.x0, b.x0) > SLACK and min(a.y1, b.y1) - max(a.y0, b.y0) > SLACK


def _data_points(ax) -> np.ndarray:
    """Display coordinates along every visible line (densified) and of every scatter point."""
    points = [np.empty((0, 2))]
    for line in ax.lines:
        if not line.get_visible() or len(line.get_xdata()) == 0:
            continue
        xy = line.get_transform().transform(np.asarray(line.get_xydata(), float))
        xy = xy[np.isfinite(xy).all(axis=1)]
        if line.get_linestyle() not in ("None", "none", "", " ") and len(xy) > 1:
            steps = np.linspace(0.0, 1.0, 12)[:, None, None]
            xy = (xy[:-1] + steps * (xy[1:] - xy[:-1])).reshape(-1, 2)
        points.append(xy)
    for collection in ax.collections:
        if type(collection).__name__ == "PathCollection" and collection.get_visible():
            offsets = np.asarray(collection.get_offsets(), float)
            if offsets.size:
                points.append(collection.get_offset_transform().transform(offsets))
    return np.concatenate(points)


def fit_problems(figure: Figure) -> list[str]:
    """What does not fit: texts outside the figure or over each other, legends over data."""
    problems = []
    frame = figure.bbox
    boxes = text_boxes(figure)
    for name, box in boxes:
        if not _inside(box, frame):
            problems.append(f"{name} leaves the figure ({box.bounds} outside {frame.bounds})")
    for (name, box), (other, other_box) in itertools.combinations(boxes, 2):
        if _overlap(box, other_box):
            problems.append(f"{name} overlaps {other}")
    renderer = figure.canvas.get_renderer()
    for ax in figure.axes:
        legend = ax.get_legend()
        if legend is None or not legend.get_visible():
            continue
        box = legend.get_window_extent(renderer)
        points = _data_points(ax)
        inside = (
            (points[:, 0] > box.x0 + 2)
            & (points[:, 0] < box.x1 - 2)
            & (points[:, 1] > box.y0 + 2)
            & (points[:, 1] < box.y1 - 2)
        )
        if inside.any():
            problems.append(f"the legend of {ax.get_title()!r} hides {inside.sum()} data points")
    return problems


def small_texts(figure: Figure) -> list[str]:
    """Texts smaller than MIN_TEXT_PX CSS pixels once JupyterLab shows the figure at 1280 x 720."""
    width = figure.get_figwidth()
    small = []
    for text in figure.findobj(Text):
        if not _shown(text):
            continue
        px = on_screen_px(text.get_fontsize(), width, figure.dpi)
        if px < MIN_TEXT_PX - 1e-9:
            small.append(f"{text.get_text()!r}: {px:.1f} px")
    return sorted(set(small))


# --- every figure of the course -----------------------------------------------------------------
@functools.cache
def _plotting_functions() -> dict:
    """Name -> every public ``plot_*`` function (and ``heatmap``) of figures.py and the lessons."""
    modules = [figures] + [importlib.import_module(x.module) for x in lessons() if x.module]
    return {
        name: getattr(module, name)
        for module in modules
        for name in getattr(module, "__all__", ())
        if name.startswith("plot_") or name == "heatmap"
    }


STATIC = sorted(_plotting_functions())
_rng = np.random.default_rng(0)
#: Figures whose docstring example is a toy (a 2 x 2 matrix's half-integer ticks crowd in
#: projector mode): drawn as their notebook draws them instead.
AS_IN_NOTEBOOKS = {
    # a 3 x 4 toy's half-step ticks crowd under the oldest matplotlib: the lesson's 50 x 128
    "plot_layouts": lambda: plot_layouts(sinusoidal_pe(50, 128), cmap="RdBu"),
    "heatmap": lambda: figures.heatmap(
        _rng.normal(size=(50, 128)),
        xlabel="dimension i",
        ylabel="position t",
        title="PE(t, i)",
        colorbar_label="value",
    ),
    "plot_heatmap_row": lambda: figures.plot_heatmap_row(
        [_rng.normal(size=(16, 16)) for _ in range(4)],
        ["content-content", "content-position", "position-content", "position-position"],
    ),
    "plot_position_accuracy": lambda: plot_position_accuracy(
        {
            "trained adjacent, run adjacent": np.linspace(1.0, 0.9, 16),
            "trained adjacent, run half-split": np.linspace(1.0, 0.1, 16),
        },
        bands={
            "trained adjacent, run adjacent": (np.full(16, 0.85), np.ones(16)),
            "trained adjacent, run half-split": (np.full(16, 0.05), np.full(16, 0.5)),
        },
    ),
}
LIVE = live_figures()
STYLES = ["default", "projector"]


def _style(name: str):
    return classroom_style(name == "projector")


def _extremes(control) -> list:
    """Every option of a choice; a slider's minimum and maximum."""
    if control.kind == "choice":
        return list(control.options)
    values = [control.minimum, control.maximum]
    return [int(v) if control.kind in ("int", "even") else v for v in values]


def _live_steps(figure_class, style: str):
    """A view at its starting values, then each control to each extreme: (label, figure)."""
    with _style(style):
        view = figure_class().view()
    try:
        yield "start", view.figure
        start = view.values()
        for name, control in figure_class.controls.items():
            for value in _extremes(control):
                view.controls[name].value = value
                yield f"{name}={value}", view.figure
            view.controls[name].value = start[name]
    finally:
        view.close()


@functools.cache
def _drawn_static(name: str, style: str) -> tuple[Figure, ...]:
    """The figures of ``name``'s docstring examples (or of a call with its defaults), drawn."""
    function, made = _plotting_functions()[name], []

    def record(*args, **kwargs):
        made.append(function(*args, **kwargs))
        return made[-1]

    namespace = {**vars(inspect.getmodule(function)), name: record}
    with _style(style):
        if name in AS_IN_NOTEBOOKS:
            made.append(AS_IN_NOTEBOOKS[name]())
        for example in [] if made else doctest.DocTestParser().get_examples(function.__doc__ or ""):
            exec(example.source, namespace)
        if not made:
            made.append(function())
    drawn = tuple(r if isinstance(r, Figure) else r.figure for r in made)
    for figure in drawn:
        figure.canvas.draw()
    return drawn


def _problems(item, style: str, find) -> list[str]:
    """What ``find`` reports, each once, on a static figure (by name) or each live step."""
    if isinstance(item, str):
        steps = ((f"example {i}", f) for i, f in enumerate(_drawn_static(item, style)))
    else:
        steps = _live_steps(item, style)
    return sorted({f"{step}: {p}" for step, figure in steps for p in find(figure)})


FIGURES = [*STATIC, *LIVE]


def _name(item) -> str:
    return item if isinstance(item, str) else item.__name__


# --- the tests ----------------------------------------------------------------------------------
@pytest.mark.parametrize("style", STYLES)
@pytest.mark.parametrize("item", FIGURES, ids=_name)
def test_every_figure_fits_its_text_at_every_extreme(item, style):
    problems = _problems(item, style, fit_problems)
    assert not problems, f"{_name(item)} ({style}): " + "; ".join(problems)


def test_the_course_sizes_put_every_text_at_12_px_or_more_at_1280_x_720():
    # The figure sizes and font sizes the course uses, from figures.py alone.
    smallest = min(
        COURSE_RC[k] for k in COURSE_RC if k.endswith("size") and k != "lines.markersize"
    )
    for name, (width, _) in FIGURE_SIZES.items():
        for dpi in (STATIC_DPI, WIDGET_DPI):
            px = on_screen_px(smallest, width, dpi)
            assert px >= MIN_TEXT_PX, f"{name} at {dpi} dpi: {smallest} pt is {px:.1f} px"
    # A picture wider than the content column is scaled down to it; a narrower one is not.
    assert on_screen_px(12, 2 * CONTENT_WIDTH_PX / 80, 80) == pytest.approx(12 / 72 * 80 / 2)
    assert on_screen_px(12, 5.0, 72) == pytest.approx(12.0)


@pytest.mark.parametrize("item", FIGURES, ids=_name)
def test_every_figure_shows_text_of_12_px_or_more(item):
    small = _problems(item, "default", small_texts)
    assert not small, f"{_name(item)}: " + ", ".join(small)


# --- colour vision ------------------------------------------------------------------------------
#: Machado, Oliveira & Fernandes (2009), Table 1, severity 1.0, on linear RGB.
MACHADO = {
    "deuteranopia": np.array(
        [
            [0.367322, 0.860646, -0.227968],
            [0.280085, 0.672501, 0.047413],
            [-0.011820, 0.042940, 0.968881],
        ]
    ),
    "protanopia": np.array(
        [
            [0.152286, 1.052583, -0.204868],
            [0.114503, 0.786281, 0.099216],
            [-0.003882, -0.048116, 1.051998],
        ]
    ),
}


def _linear(srgb: np.ndarray) -> np.ndarray:
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def _lab(srgb: np.ndarray) -> np.ndarray:
    """CIELAB (D65) of sRGB colours in [0, 1], shape (n, 3)."""
    xyz = (
        _linear(srgb)
        @ np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]).T
    )
    xyz = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack(
        [116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])], axis=1
    )


def simulate(srgb: np.ndarray, deficiency: str) -> np.ndarray:
    """sRGB colours as seen with ``deficiency`` (Machado et al. 2009, severity 1.0)."""
    linear = np.clip(_linear(srgb) @ MACHADO[deficiency].T, 0.0, 1.0)
    return np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * linear ** (1 / 2.4) - 0.055)


def _on_white(rgba) -> tuple:
    r, g, b, a = rgba
    return tuple(round(float(c * a + (1 - a)), 4) for c in (r, g, b))


def series_colours(figure: Figure) -> set[tuple]:
    """The colours (over white) of a figure's lines, points, bars and bands; legends aside."""
    colours = set()
    for ax in figure.axes:
        for line in ax.lines:
            if line.get_visible() and len(line.get_xdata()):
                colours.add(_on_white(to_rgba(line.get_color(), line.get_alpha())))
        for collection in ax.collections:
            if not isinstance(collection, Collection) or not collection.get_visible():
                continue
            if type(collection).__name__ in ("QuadMesh",) or collection.get_array() is not None:
                continue  # a colour map, not a series
            for rgba in (*collection.get_facecolor(), *collection.get_edgecolor()):
                if rgba[3] > 0:
                    colours.add(_on_white(rgba))
        for patch in ax.patches:
            if patch.get_visible() and patch.get_fill():
                colours.add(_on_white(patch.get_facecolor()))
    colours.discard((1.0, 1.0, 1.0))
    return colours


def _achromatic(colour) -> bool:
    return max(colour) - min(colour) < 0.02


def colour_clashes(figure: Figure) -> list[str]:
    """Pairs of series colours closer than MIN_DELTA_E under a simulated deficiency."""
    colours = sorted(series_colours(figure))
    clashes = []
    for deficiency in MACHADO:
        lab = _lab(simulate(np.array(colours).reshape(-1, 3), deficiency))
        for (i, a), (j, b) in itertools.combinations(enumerate(colours), 2):
            if _achromatic(a) and _achromatic(b):
                continue  # greys differ in lightness, which no deficiency changes
            distance = float(np.linalg.norm(lab[i] - lab[j]))
            if distance < MIN_DELTA_E:
                hex_a, hex_b = mpl.colors.to_hex(a), mpl.colors.to_hex(b)
                clashes.append(f"{hex_a} ~ {hex_b} ({deficiency}: ΔE {distance:.1f})")
    return clashes


def test_the_simulation_reproduces_what_makes_tab10_unsafe_and_okabe_ito_safe():
    def smallest(palette, deficiency):
        lab = _lab(simulate(np.array([to_rgba(c)[:3] for c in palette]), deficiency))
        return min(np.linalg.norm(a - b) for a, b in itertools.combinations(lab, 2))

    tab10 = mpl.colormaps["tab10"].colors[:4]
    assert smallest(tab10, "deuteranopia") < 10 and smallest(tab10, "protanopia") < 10
    for deficiency in MACHADO:
        assert smallest(figures.OKABE_ITO, deficiency) >= MIN_DELTA_E
    # Severity 1.0 keeps greys grey and white white.
    grey = np.array([[0.5, 0.5, 0.5], [1.0, 1.0, 1.0]])
    assert np.allclose(simulate(grey, "deuteranopia"), grey, atol=0.01)


@pytest.mark.parametrize("item", FIGURES, ids=_name)
def test_every_figure_keeps_its_colours_apart_for_colour_blind_viewers(item):
    clashes = _problems(item, "default", colour_clashes)
    assert not clashes, f"{_name(item)}: " + ", ".join(clashes)


# --- choices ------------------------------------------------------------------------------------
_CODE_NAME = re.compile(r"^[a-z0-9]+([_-][a-z0-9.]+)+$|^none$")


CHOOSING = [c for c in LIVE if any(k.kind == "choice" for k in c.controls.values())]


@pytest.mark.parametrize("figure_class", CHOOSING, ids=lambda c: c.__name__)
def test_every_choice_shows_display_names_and_passes_the_code_value(figure_class):
    choices = {n: c for n, c in figure_class.controls.items() if c.kind == "choice"}
    for name, control in choices.items():
        widget = control.widget(name, control.default)
        labels = [label for label, _ in widget.options]
        code = [label for label in labels if _CODE_NAME.match(label)]
        assert not code, f"{figure_class.__name__}.{name} shows code names {code}"
        assert [value for _, value in widget.options] == list(control.options)
