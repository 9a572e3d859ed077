"""The shared machinery: plotting core and projector mode, live views, exercise grading."""

from __future__ import annotations

import io

import matplotlib as mpl
import numpy as np
import pytest
from matplotlib.figure import Figure
from PIL import Image

from pe_helpers import exercises, plotting, widgets
from pe_helpers.plotting import CLASSROOM_RC, COURSE_RC, classroom_style, heatmap, new_axes


# --- plotting core -----------------------------------------------------------------------------
def test_importing_and_drawing_leave_matplotlib_defaults_alone():
    before = dict(mpl.rcParams)
    heatmap(np.eye(3))
    with classroom_style():
        heatmap(np.eye(3))
    assert dict(mpl.rcParams) == before


def test_heatmap_is_diverging_and_centred_at_zero():
    values = np.array([[0.2, -0.5], [0.1, 0.3]])
    ax = heatmap(values, xlabel="dimension", ylabel="position", title="PE")
    image = ax.images[0]
    assert np.allclose(image.get_array(), values)
    assert image.get_clim() == (-0.5, 0.5)
    assert image.get_cmap().name == plotting.DIVERGING_CMAP
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == ("dimension", "position", "PE")
    assert heatmap(values, limit=1.0).images[0].get_clim() == (-1.0, 1.0)


def test_heatmap_and_new_axes_reject_bad_input():
    with pytest.raises(ValueError, match="values must be 2-D"):
        heatmap(np.zeros(3))
    with pytest.raises(ValueError, match="limit must be > 0, got -1"):
        heatmap(np.eye(2), limit=-1)
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes or None, got str"):
        new_axes("left")


def test_new_axes_reuses_the_given_axes_and_sizes_new_figures_for_a_projector():
    ax = new_axes()
    assert tuple(ax.figure.get_size_inches()) == plotting.FIGSIZE
    assert new_axes(ax) is ax


def _font_sizes_and_widths(ax):
    texts = [ax.title, ax.xaxis.label, ax.yaxis.label, *ax.get_xticklabels()]
    return [t.get_fontsize() for t in texts], [line.get_linewidth() for line in ax.lines]


@plotting.course_style
def _plot_line(ax=None):
    ax = new_axes(ax)
    ax.plot([0, 1], [0, 1])
    ax.set_title("t")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    return ax


def test_projector_mode_meets_its_promised_font_size_and_line_width():
    with classroom_style():
        ax = _plot_line()
    sizes, widths = _font_sizes_and_widths(ax)
    assert min(sizes) >= CLASSROOM_RC["xtick.labelsize"]
    assert ax.title.get_fontsize() == CLASSROOM_RC["axes.titlesize"]
    assert min(widths) >= CLASSROOM_RC["lines.linewidth"]
    assert ax.lines[0].get_color().lower() == plotting.OKABE_ITO[0].lower()
    normal = _plot_line()
    assert normal.title.get_fontsize() == COURSE_RC["axes.titlesize"]
    assert normal.lines[0].get_linewidth() == COURSE_RC["lines.linewidth"]


def test_projector_mode_as_a_call_stays_on_until_switched_off():
    try:
        classroom_style()
        assert plotting.active_rc() is CLASSROOM_RC
        assert _plot_line().title.get_fontsize() == CLASSROOM_RC["axes.titlesize"]
    finally:
        classroom_style(False)
    assert plotting.active_rc() is COURSE_RC
    with pytest.raises(TypeError, match="on must be True or False, got 'yes'"):
        classroom_style("yes")


# --- widgets core ------------------------------------------------------------------------------
def test_render_png_returns_png_bytes_of_the_figure():
    figure = Figure(figsize=(2, 1), dpi=50)
    data = widgets.render_png(figure)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(TypeError, match="figure must be a matplotlib Figure"):
        widgets.render_png("figure")


def test_interactive_view_updates_the_same_figure_on_each_slider_step():
    figure, ax = widgets.live_figure((4, 3))
    (line,) = ax.plot([0, 1, 2], [0, 0, 0])

    def update(slope):
        line.set_ydata(slope * np.arange(3))

    view = widgets.InteractiveView(figure, {"slope": widgets.float_slider("a", 1, 0, 5, 1)}, update)
    first_png = view.image.value
    assert view.renders == 1 and np.allclose(line.get_ydata(), [0, 1, 2])
    view.controls["slope"].value = 3.0
    assert view.figure is figure and view.renders == 2
    assert np.allclose(view.figure.axes[0].lines[0].get_ydata(), [0, 3, 6])
    assert view.image.value != first_png
    assert view.figure.get_layout_engine() is None or not isinstance(
        view.figure.get_layout_engine(), mpl.layout_engine.ConstrainedLayoutEngine
    )


def test_slider_makers_validate_their_arguments():
    assert widgets.even_slider("d", 64).step == 2
    with pytest.raises(ValueError, match="value must be even, got 63"):
        widgets.even_slider("d", 63)
    with pytest.raises(ValueError, match=r"value must lie in \[1, 10\], got 11"):
        widgets.int_slider("n", 11, 1, 10)
    with pytest.raises(ValueError, match="step must be > 0"):
        widgets.float_slider("x", 1.0, 0.0, 2.0, 0.0)
    with pytest.raises(ValueError, match=r"value must lie in \[10, 1e6\]"):
        widgets.base_slider(value=5.0)
    assert widgets.base_slider().value == 10000.0


# --- exercises core ----------------------------------------------------------------------------
def _square_checks():
    return [
        lambda f: None if f(3) == 9 else f"square(3) should be 9, got {f(3)!r}",
        lambda f: None if f(-2) == 4 else "negative numbers square to positive ones",
    ]


def test_grade_stub_wrong_and_right_answers():
    def stub(x):
        raise NotImplementedError

    todo = exercises.grade("square", stub, _square_checks(), "multiply x by itself", call=(1,))
    assert todo.status == "todo" and not todo and "not done yet" in str(todo)
    assert "Hint: multiply x by itself" in str(todo)
    assert exercises.grade("square", None, _square_checks(), "h").status == "todo"
    assert exercises.grade("square", lambda x: None, _square_checks(), "h", call=(1,)).status == (
        "todo"
    )
    wrong = exercises.grade("square", lambda x: 2 * x, _square_checks(), "h", call=(1,))
    assert wrong.status == "wrong" and "square(3) should be 9, got 6" in wrong.message
    half = exercises.grade("square", lambda x: x * abs(x), _square_checks(), "h", call=(1,))
    assert half.status == "wrong" and "negative numbers" in half.message
    right = exercises.grade("square", lambda x: x * x, _square_checks(), "h", call=(1,))
    assert right.passed and bool(right) and "correct" in str(right)


def test_grade_turns_a_learners_exception_into_feedback_not_a_traceback():
    def broken(x):
        return [1, 2][x]

    feedback = exercises.grade("square", broken, _square_checks(), "h", call=(5,))
    assert feedback.status == "wrong" and "IndexError" in feedback.message
    not_callable = exercises.grade("square", 3, _square_checks(), "h", call=(1,))
    assert not_callable.status == "wrong" and "expected a function, got int" in not_callable.message
    assert "border-left" in feedback._repr_html_()
    with pytest.raises(TypeError, match="exercise must be a non-empty string"):
        exercises.grade("", 1, [], "h")


# --- every view: a slider step shows exactly what a full redraw shows ---------------------------
def _full_render(view) -> np.ndarray:
    """The picture the view shows when it redraws everything for its current values."""
    view._background = None
    view.refresh()
    return _shown(view)


def _shown(view) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(view.image.value)))


@pytest.mark.parametrize("name", sorted(widgets.view_builders()))
def test_every_slider_step_shows_what_a_full_redraw_shows(name):
    view = widgets.view_builders()[name]()
    figure = view.figure
    for control_name, control in view.controls.items():
        start = control.value
        for value in (control.min, control.max, start):
            if value == control.value:
                continue
            control.value = value
            assert view.figure is figure
            shown = _shown(view)
            assert np.array_equal(shown, _full_render(view)), (
                f"{name}: picture after {control_name} = {value} differs from a full redraw"
            )
    assert view.renders > 1


def test_blitting_is_used_when_limits_stay_and_detects_stale_artists():
    view = widgets.recurrence_view()
    view.controls["decay"].value = 0.5
    assert view.blits == 1
    view.controls["n_steps"].value = 40
    assert view.blits == 1, "a change of x-limits must redraw the whole figure"
    # An artist changed but not declared as moving is caught by the comparison above.
    caption = view.figure.axes[0].texts[0]
    view._moving.remove(caption)
    caption.set_animated(False)
    view._background = None
    view.refresh()
    view.controls["decay"].value = 0.3
    assert view.blits == 2
    assert not np.array_equal(_shown(view), _full_render(view))


@plotting.course_style
def _plot_named_cycle_colours(ax=None):
    ax = new_axes(ax)
    ax.plot([0, 1], [1, 0], color="C1")
    ax.text(0.5, 0.5, "label", color="C2")
    return ax


def test_projector_mode_colours_survive_until_the_figure_is_drawn():
    with classroom_style():
        ax = _plot_named_cycle_colours()
    assert ax.lines[0].get_color() == plotting.OKABE_ITO[1].lower()
    assert ax.texts[0].get_color() == plotting.OKABE_ITO[2].lower()
    assert min(t.get_fontsize() for t in ax.get_yticklabels()) == CLASSROOM_RC["ytick.labelsize"]


@pytest.mark.parametrize("name", sorted(widgets.view_builders()))
def test_views_built_in_projector_mode_keep_its_sizes_after_a_slider_step(name):
    with classroom_style():
        view = widgets.view_builders()[name]()
    for control in view.controls.values():
        control.value = control.max
    for ax in view.figure.axes:
        ticks = ax.get_xticklabels() + ax.get_yticklabels()
        assert min(t.get_fontsize() for t in ticks) >= CLASSROOM_RC["ytick.labelsize"]
        if ax.get_title():
            assert ax.title.get_fontsize() == CLASSROOM_RC["axes.titlesize"], ax.get_title()
        if ax.get_xlabel():
            assert ax.xaxis.label.get_fontsize() == CLASSROOM_RC["axes.labelsize"]
