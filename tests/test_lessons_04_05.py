"""Helpers of lessons 04 (the rotation property) and 05 (seeing the encoding)."""

from __future__ import annotations

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import pytest

from pe_helpers import frequencies, shift_operator, sinusoidal_pe
from pe_helpers.exercises import (
    check_dot_from_frequencies,
    check_dot_value,
    check_first_rise,
    check_rotation_angle,
    check_shift_block,
    check_sin_collision,
)
from pe_helpers.plotting import (
    COURSE_RC,
    course_style,
    plot_column_means,
    plot_pair_rotation,
    plot_pe_dimensions,
    plot_pe_dot_profile,
    plot_pe_heatmap,
    plot_pe_overview,
    plot_shift_scatter,
    rotation_caption,
)
from pe_helpers.widgets import pair_rotation_title, pair_rotation_view, pe_overview_view


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def pair(positions, k, d_model=16, delta=0.0):
    return sinusoidal_pe(np.asarray(positions, dtype=float) + delta, d_model)[:, 2 * k : 2 * k + 2]


def good_block(delta, w):
    c, s = np.cos(w * delta), np.sin(w * delta)
    return np.array([[c, s], [-s, c]])


def good_dot(delta, d_model, base=10000.0):
    return float(np.cos(frequencies(d_model, base) * delta).sum())


def stub(*_args):
    raise NotImplementedError


# --- course_style ----------------------------------------------------------------------------


def test_course_style_keeps_changes_a_backend_makes_but_restores_course_keys():
    # The inline backend turns interactive mode on the first time a figure is made; undoing
    # that after the first course figure stopped every later figure from being shown.
    before_interactive = mpl.is_interactive()
    font_size = mpl.rcParams["font.size"]

    @course_style
    def first_figure_of_session():
        assert mpl.rcParams["font.size"] == COURSE_RC["font.size"]
        mpl.interactive(True)

    try:
        mpl.rcParams["font.size"] = 7.0
        first_figure_of_session()
        assert mpl.is_interactive()
        assert mpl.rcParams["font.size"] == 7.0
    finally:
        mpl.interactive(before_interactive)
        mpl.rcParams["font.size"] = font_size


def test_course_style_restores_keys_when_the_function_raises():
    font_size = mpl.rcParams["font.size"]

    @course_style
    def broken():
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        broken()
    assert mpl.rcParams["font.size"] == font_size


# --- Lesson 04: plotting ----------------------------------------------------------------------


def test_rotation_caption_reports_radians_degrees_and_wraps_full_turns():
    assert rotation_caption(1.0, 2) == "w_2·Δ = 1.000 rad = 57.3° (clockwise)"
    assert "≡ 53.5°" in rotation_caption(13.5, 0)
    with pytest.raises(ValueError, match="frequency_index"):
        rotation_caption(1.0, -1)
    with pytest.raises(TypeError, match="angle"):
        rotation_caption("1", 0)


def test_plot_pair_rotation_draws_points_images_arrows_and_labels():
    positions = [0.0, 2.0, 4.0]
    before, after = pair(positions, 0), pair(positions, 0, delta=1.0)
    ax = plot_pair_rotation(before, after, positions=positions, caption="angle", title="T")
    np.testing.assert_allclose(ax.collections[0].get_offsets(), before)
    np.testing.assert_allclose(ax.collections[1].get_offsets(), after)
    arrows = ax.collections[2]
    np.testing.assert_allclose(np.column_stack([arrows.U, arrows.V]), after - before)
    assert ax.texts[0].get_text() == "angle"
    assert [text.get_text() for text in ax.texts[1:]] == ["0", "2", "4"]
    radius = np.hypot(*ax.lines[0].get_data())
    np.testing.assert_allclose(radius, 1.0)
    assert ax.get_title() == "T" and "sin" in ax.get_xlabel() and "cos" in ax.get_ylabel()


def test_plot_pair_rotation_rejects_bad_shapes():
    with pytest.raises(ValueError, match="pairs"):
        plot_pair_rotation(np.zeros((3, 3)), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="shifted"):
        plot_pair_rotation(np.zeros((3, 2)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="positions"):
        plot_pair_rotation(np.zeros((3, 2)), np.zeros((3, 2)), positions=[1, 2])
    with pytest.raises(TypeError, match="ax"):
        plot_pair_rotation(np.zeros((1, 2)), np.zeros((1, 2)), ax="axes")


def test_plot_shift_scatter_holds_points_line_and_highlight():
    t = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    ax = plot_shift_scatter(np.sin(t), np.sin(t + 1), slope=0.5, highlight=[[0.1, 0.2]])
    np.testing.assert_allclose(ax.collections[0].get_offsets()[:, 1], np.sin(t + 1))
    np.testing.assert_allclose(ax.collections[1].get_offsets(), [[0.1, 0.2]])
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [-0.5, 0.5])
    with pytest.raises(ValueError, match="after"):
        plot_shift_scatter([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="highlight"):
        plot_shift_scatter([1.0], [1.0], highlight=[1.0, 2.0, 3.0])


# --- Lesson 05: plotting ----------------------------------------------------------------------


def test_plot_pe_heatmap_fixes_the_colour_range_to_plus_minus_one():
    pe = sinusoidal_pe(50, 128)
    ax = plot_pe_heatmap(pe)
    image = ax.images[0]
    np.testing.assert_allclose(image.get_array(), pe)
    assert image.get_clim() == (-1.0, 1.0)
    assert image.get_cmap().name == "RdBu_r"
    assert "50 positions × 128 dimensions" in ax.get_title()
    assert ax.get_ylabel() == "position t"
    with pytest.raises(ValueError, match="pe"):
        plot_pe_heatmap(np.zeros(4))


def test_plot_pe_dimensions_draws_the_requested_columns():
    pe = sinusoidal_pe(30, 16)
    ax = plot_pe_dimensions(pe, [0, 3])
    np.testing.assert_allclose(ax.lines[0].get_ydata(), pe[:, 0])
    np.testing.assert_allclose(ax.lines[1].get_ydata(), pe[:, 3])
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert labels == ["dim 0: sin, k = 0", "dim 3: cos, k = 1"]
    with pytest.raises(ValueError, match="dimensions"):
        plot_pe_dimensions(pe, [16])
    with pytest.raises(TypeError, match="dimensions"):
        plot_pe_dimensions(pe, [1.5])
    with pytest.raises(ValueError, match="dimensions"):
        plot_pe_dimensions(pe, [])


def test_plot_pe_dot_profile_and_overview_hold_the_curve():
    deltas = np.arange(-5.0, 6.0)
    dots = np.cos(np.multiply.outer(deltas, frequencies(8))).sum(axis=1)
    ax = plot_pe_dot_profile(deltas, dots)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), dots)
    assert ax.get_xlabel() == "offset Δ"
    fig = plot_pe_overview(sinusoidal_pe(6, 8), deltas, dots)
    np.testing.assert_allclose(fig.axes[0].images[0].get_array(), sinusoidal_pe(6, 8))
    np.testing.assert_allclose(fig.axes[1].lines[0].get_xdata(), deltas)
    with pytest.raises(ValueError, match="dots"):
        plot_pe_dot_profile([0.0, 1.0], [1.0])
    with pytest.raises(TypeError, match="axes"):
        plot_pe_overview(sinusoidal_pe(6, 8), deltas, dots, axes=[fig.axes[0]])


def test_plot_column_means_splits_sin_and_cos_columns():
    means = sinusoidal_pe(50, 128)[:, 64:].mean(axis=0)
    ax = plot_column_means(means, first_dimension=64)
    sin_bars = [bar.get_height() for bar in ax.containers[0]]
    cos_bars = [bar.get_height() for bar in ax.containers[1]]
    np.testing.assert_allclose(sin_bars, means[0::2])
    np.testing.assert_allclose(cos_bars, means[1::2])
    assert ax.containers[0][0].get_x() + ax.containers[0][0].get_width() / 2 == 64
    with pytest.raises(ValueError, match="first_dimension"):
        plot_column_means(means, first_dimension=-1)


# --- widgets ----------------------------------------------------------------------------------


def test_pair_rotation_view_updates_the_same_figure():
    view = pair_rotation_view()
    figure = view.figure
    ax = figure.axes[0]
    positions = [0.0, 2.0, 4.0]
    view.controls["delta"].value = 2.5
    assert view.figure is figure and figure.axes[0] is ax
    np.testing.assert_allclose(ax.collections[1].get_offsets(), pair(positions, 0, delta=2.5))
    assert ax.texts[0].get_text() == rotation_caption(2.5, 0)
    assert ax.get_title() == pair_rotation_title(0, 16, 2.5)
    view.controls["frequency_index"].value = 3
    np.testing.assert_allclose(ax.collections[0].get_offsets(), pair(positions, 3))
    np.testing.assert_allclose(ax.collections[1].get_offsets(), pair(positions, 3, delta=2.5))
    arrows = ax.collections[2]
    np.testing.assert_allclose(
        np.column_stack([arrows.U, arrows.V]), pair(positions, 3, delta=2.5) - pair(positions, 3)
    )
    assert view.renders == 3


def test_pair_rotation_view_rejects_bad_arguments():
    with pytest.raises(ValueError, match="frequency_index"):
        pair_rotation_view(frequency_index=8, d_model=16)
    with pytest.raises(ValueError, match="delta"):
        pair_rotation_view(delta=25.0)
    with pytest.raises(ValueError, match="d_model"):
        pair_rotation_view(d_model=15)
    with pytest.raises(ValueError, match="positions"):
        pair_rotation_view(positions=[])


def test_pe_overview_view_updates_image_and_curve_in_place():
    view = pe_overview_view()
    figure = view.figure
    n_axes = len(figure.axes)  # heatmap, colour bar, dot product
    heat_ax, dot_ax = figure.axes[0], figure.axes[1]
    view.controls["d_model"].value = 16
    view.controls["n_positions"].value = 20
    view.controls["base"].value = 100.0
    assert view.figure is figure and len(figure.axes) == n_axes
    image = heat_ax.images[0]
    np.testing.assert_allclose(image.get_array(), sinusoidal_pe(20, 16, 100.0))
    assert image.get_extent() == [-0.5, 15.5, 19.5, -0.5]
    assert image.get_clim() == (-1.0, 1.0)
    deltas = np.arange(-19.0, 20.0)
    expected = np.cos(np.multiply.outer(deltas, frequencies(16, 100.0))).sum(axis=1)
    np.testing.assert_allclose(dot_ax.lines[0].get_xdata(), deltas)
    np.testing.assert_allclose(dot_ax.lines[0].get_ydata(), expected)
    assert dot_ax.get_ylim()[1] >= 8.0
    assert heat_ax.get_title() == "PE: 20 × 16"


def test_pe_overview_view_rejects_bad_arguments():
    with pytest.raises(ValueError, match="n_positions"):
        pe_overview_view(n_positions=1)
    with pytest.raises(ValueError, match="n_positions"):
        pe_overview_view(n_positions=500)
    with pytest.raises(ValueError, match="d_model"):
        pe_overview_view(d_model=7)
    with pytest.raises(ValueError, match="base"):
        pe_overview_view(base=-1.0)


# --- the shift operator the lesson relies on --------------------------------------------------


def test_shift_operator_matches_the_corrected_block_not_the_seed_block():
    t = np.linspace(-30, 30, 121)
    for delta in [0.5, 3.0, -7.0]:
        np.testing.assert_allclose(
            sinusoidal_pe(t, 8) @ shift_operator(delta, 8).T,
            sinusoidal_pe(t + delta, 8),
            atol=1e-12,
        )
    c, s = np.cos(0.8), np.sin(0.8)
    assert np.allclose(shift_operator(0.8, 2), [[c, s], [-s, c]])
    assert not np.allclose(shift_operator(0.8, 2), [[c, -s], [s, c]])


# --- exercises: lesson 04 ---------------------------------------------------------------------


def test_check_shift_block():
    assert check_shift_block(good_block).passed
    assert check_shift_block(stub).status == "todo"
    assert check_shift_block(lambda delta, w: None).status == "todo"

    def seed(delta, w):
        c, s = np.cos(w * delta), np.sin(w * delta)
        return np.array([[c, -s], [s, c]])

    feedback = check_shift_block(seed)
    assert feedback.status == "wrong" and "(cos, sin)" in feedback.message
    feedback = check_shift_block(lambda delta, w: good_block(delta, 1.0))
    assert feedback.status == "wrong" and "w·Δ" in feedback.message
    feedback = check_shift_block(lambda delta, w: np.eye(3))
    assert feedback.status == "wrong" and "2x2" in feedback.message
    feedback = check_shift_block(lambda delta, w: good_block(2 * delta, w))
    assert feedback.status == "wrong" and "angle-addition" in feedback.message


def test_check_sin_collision():
    assert check_sin_collision((1.0, np.pi - 1.0)).passed
    assert check_sin_collision(lambda: (-1.0, np.pi + 1.0)).passed
    reused = check_sin_collision((np.pi - 0.5, 0.5))
    assert reused.status == "wrong" and "used in the lesson" in reused.message
    assert check_sin_collision(None).status == "todo"
    assert check_sin_collision(stub).status == "todo"
    feedback = check_sin_collision((1.0, 1.0 + 2 * np.pi))
    assert feedback.status == "wrong" and "period" in feedback.message
    feedback = check_sin_collision((0.3, 0.4))
    assert feedback.status == "wrong" and "equal" in feedback.message
    feedback = check_sin_collision((2.0, 2.0))
    assert feedback.status == "wrong" and "different" in feedback.message
    assert check_sin_collision((1.0,)).status == "wrong"


def test_check_rotation_angle():
    assert check_rotation_angle(np.degrees(1.0)).passed
    assert check_rotation_angle(lambda: 57.3).passed
    assert check_rotation_angle(stub).status == "todo"
    feedback = check_rotation_angle(1.0)
    assert feedback.status == "wrong" and "radians" in feedback.message
    feedback = check_rotation_angle(np.degrees(0.01))
    assert feedback.status == "wrong" and "pair index" in feedback.message
    feedback = check_rotation_angle(np.degrees(100.0))
    assert feedback.status == "wrong" and "k = 0" in feedback.message
    feedback = check_rotation_angle(45.0)
    assert feedback.status == "wrong" and "within 0.1" in feedback.message
    assert check_rotation_angle("57.3").status == "wrong"


# --- exercises: lesson 05 ---------------------------------------------------------------------


def test_check_dot_from_frequencies():
    assert check_dot_from_frequencies(good_dot).passed
    assert check_dot_from_frequencies(stub).status == "todo"
    feedback = check_dot_from_frequencies(
        lambda delta, d_model, base=10000.0: float(np.cos(frequencies(d_model, base)[0] * delta))
    )
    assert feedback.status == "wrong" and "single term" in feedback.message
    def doubled(delta, d_model, base=10000.0):
        return 2 * good_dot(delta, d_model, base)

    def ignores_base(delta, d_model, base=10000.0):
        return good_dot(delta, d_model)

    feedback = check_dot_from_frequencies(doubled)
    assert feedback.status == "wrong" and "d/2" in feedback.message
    feedback = check_dot_from_frequencies(ignores_base)
    assert feedback.status == "wrong" and "base" in feedback.message


def test_check_dot_value():
    truth = good_dot(5.0, 64)
    assert round(truth, 2) == 23.50
    assert check_dot_value(truth).passed
    assert check_dot_value(lambda: 23.50).passed
    assert check_dot_value(stub).status == "todo"
    assert "Δ = 0" in check_dot_value(32.0).message
    assert "first term" in check_dot_value(np.cos(5.0)).message
    assert "d = 128" in check_dot_value(good_dot(5.0, 128)).message
    assert "within 0.01" in check_dot_value(23.6).message


def test_check_first_rise():
    assert check_first_rise(12).passed
    assert check_first_rise(lambda: 12).passed
    assert check_first_rise(stub).status == "todo"
    assert "still falls" in check_first_rise(5).message
    assert "smaller Δ" in check_first_rise(18).message
    assert "between 1" in check_first_rise(0).message
    assert check_first_rise(12.0).status == "wrong"


def test_lesson_05_numbers():
    assert [round(good_dot(delta, 128), 2) for delta in (0, 1, 10)] == [64.0, 62.09, 42.82]
