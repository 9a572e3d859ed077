"""Lesson 04 · The rotation property: helpers, the pair-rotation figure, the checkers."""

from __future__ import annotations

from collections import Counter

import matplotlib.pyplot as plt
import numpy as np
import pytest

from pe_helpers import shift_operator, sinusoidal_pe
from pe_helpers.lessons.rotation_property import (
    MAX_LABELLED_POSITIONS,
    PairRotation,
    check_rotation_angle,
    check_shift_block,
    check_sin_collision,
    pair_points,
    plot_shift_scatter,
    rotation_caption,
)
from pe_helpers.live import snapshot


def good_block(delta, w):
    c, s = np.cos(w * delta), np.sin(w * delta)
    return np.array([[c, s], [-s, c]])


def stub(*_args):
    raise NotImplementedError


# --- helpers -------------------------------------------------------------------------------------


def test_pair_points_are_columns_2k_and_2k_plus_1_of_the_encoding():
    positions = [0.0, 2.0, 4.0, -7.5]
    pairs, shifted, angle = pair_points(positions, 2.5, 3, d_model=16, base=100.0)
    np.testing.assert_allclose(pairs, sinusoidal_pe(positions, 16, 100.0)[:, 6:8])
    np.testing.assert_allclose(shifted, sinusoidal_pe(np.add(positions, 2.5), 16, 100.0)[:, 6:8])
    np.testing.assert_allclose(shifted, pairs @ shift_operator(2.5, 16, 100.0)[6:8, 6:8].T)
    assert angle == pytest.approx(100.0 ** (-6 / 16) * 2.5)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"frequency_index": 8}, ValueError, "frequency_index must be < d_model/2 = 8, got 8"),
        ({"frequency_index": 1.5}, TypeError, "frequency_index must be an integer"),
        ({"delta": float("nan")}, ValueError, "delta must be finite"),
        ({"positions": [[1.0]]}, ValueError, "positions must be 1-D"),
        ({"positions": 2_000_000}, ValueError, "at most 1,000,000"),
        ({"d_model": 15}, ValueError, "d_model must be even"),
    ],
)
def test_pair_points_names_bad_arguments(kwargs, error, match):
    arguments = {"positions": [0.0], "delta": 1.0, "frequency_index": 0, "d_model": 16}
    with pytest.raises(error, match=match):
        pair_points(**{**arguments, **kwargs})


def test_rotation_caption_reports_radians_degrees_and_wraps_full_turns():
    assert rotation_caption(1.0, 2) == "w_2·Δ = 1.000 rad = 57.3° (clockwise)"
    assert "≡ 53.5°" in rotation_caption(13.5, 0)
    with pytest.raises(ValueError, match="frequency_index"):
        rotation_caption(1.0, -1)
    with pytest.raises(TypeError, match="angle"):
        rotation_caption("1", 0)


def test_the_corrected_block_shifts_forward_and_the_seed_block_backward():
    t = np.linspace(-30, 30, 121)
    for delta in [0.5, 3.0, -7.0]:
        np.testing.assert_allclose(
            sinusoidal_pe(t, 8) @ shift_operator(delta, 8).T,
            sinusoidal_pe(t + delta, 8),
            atol=1e-12,
        )
    c, s = np.cos(0.8), np.sin(0.8)
    assert np.allclose(shift_operator(0.8, 2), [[c, s], [-s, c]])
    assert np.allclose(shift_operator(-0.8, 2), [[c, -s], [s, c]])  # the seed's matrix


# --- the pair-rotation figure --------------------------------------------------------------------


def test_pair_rotation_draws_points_their_images_chords_and_labels():
    figure = PairRotation().draw(delta=2.5, frequency_index=3)
    ax = figure.axes[0]
    pairs, shifted, angle = pair_points([0, 2, 4], 2.5, 3)
    offsets = [c.get_offsets() for c in ax.collections if c.get_offsets().shape == (3, 2)]
    np.testing.assert_allclose(offsets[0], pairs)
    np.testing.assert_allclose(offsets[1], shifted)
    assert ax.get_title() == "Pair k = 3 of d = 16, shifted by Δ = 2.5"
    texts = [t.get_text() for t in ax.texts]
    caption = rotation_caption(angle, 3).replace(" rad = ", " rad\n= ").replace(" (", "\n(")
    # Pair 3 turns 0.03 rad per position: the three points nearly coincide and share a label.
    assert texts == [caption, "0, 2, 4", "", ""]
    fast = PairRotation().draw(delta=0.0, frequency_index=0).axes[0]  # 1 rad per position
    assert [t.get_text() for t in fast.texts][1:] == ["0", "2", "4"]
    np.testing.assert_allclose(np.hypot(*ax.lines[0].get_data()), 1.0)  # the unit circle


def test_pair_rotation_view_steps_on_one_figure_and_blits():
    view = PairRotation().view()
    figure = view.figure
    view.controls["delta"].value = 6.5
    view.controls["frequency_index"].value = 7
    assert view.figure is figure and view.renders == 3 and view.blits == 2
    assert snapshot(figure) == snapshot(PairRotation().draw(delta=6.5, frequency_index=7))
    view.close()


def test_the_k_slider_is_declared_once_and_covers_the_pairs_of_the_width():
    view = PairRotation(base=100.0, positions=[1, 3]).view(frequency_index=7)
    slider = view.controls["frequency_index"]
    assert (slider.min, slider.max, slider.description) == (0, 7, "pair k (frequency w_k)")
    assert PairRotation.d_model // 2 - 1 == 7
    assert "controls" not in vars(PairRotation(base=100.0))  # never rewritten per figure
    with pytest.raises(ValueError, match=r"frequency_index must lie in \[0, 7\], got 8"):
        PairRotation().draw(frequency_index=8)
    with pytest.raises(TypeError, match="unexpected keyword argument 'd_model'"):
        PairRotation(d_model=64)
    view.close()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"positions": 5000}, f"1 to {MAX_LABELLED_POSITIONS} positions"),
        ({"positions": np.arange(13)}, f"1 to {MAX_LABELLED_POSITIONS} positions"),
        ({"positions": []}, "1 to 12 positions"),
        ({"base": -1.0}, "base must be > 0"),
    ],
)
def test_pair_rotation_refuses_sizes_before_drawing(kwargs, match):
    # Issue 18 item 3: positions=5000 took 37 s to build and about 10 s per step.
    figures = plt.get_fignums()
    with pytest.raises(ValueError, match=match):
        PairRotation(**kwargs)
    assert plt.get_fignums() == figures


def test_pair_rotation_at_its_largest_still_blits():
    view = PairRotation(positions=np.arange(MAX_LABELLED_POSITIONS) * 7.0).view()
    view.controls["delta"].value = 19.75
    assert view.blits == 1
    view.close()


def test_plot_shift_scatter_holds_points_line_and_highlight():
    t = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    ax = plot_shift_scatter(np.sin(t), np.sin(t + 1), slope=0.5, highlight=[[0.1, 0.2]])
    np.testing.assert_allclose(ax.collections[0].get_offsets()[:, 1], np.sin(t + 1))
    np.testing.assert_allclose(ax.collections[1].get_offsets(), [[0.1, 0.2]])
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [-0.5, 0.5])
    with pytest.raises(ValueError, match="after must have the shape of before"):
        plot_shift_scatter([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="highlight must be 2-D"):
        plot_shift_scatter([1.0], [1.0], highlight=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="highlight must have 2 columns"):
        plot_shift_scatter([1.0], [1.0], highlight=[[1.0, 2.0, 3.0]])
    with pytest.raises(TypeError, match="slope must be a real number"):
        plot_shift_scatter([1.0], [1.0], slope="1")


# --- Exercise 1: check_shift_block ---------------------------------------------------------------


def test_check_shift_block_accepts_the_block_in_float64_and_float32():
    assert check_shift_block(good_block).passed
    assert check_shift_block(lambda d, w: good_block(d, w).astype(np.float32)).passed
    assert check_shift_block(lambda d, w: good_block(d, w).tolist()).passed


def _seed(delta, w):
    return good_block(-delta, w)


@pytest.mark.parametrize(
    ("answer", "status", "message"),
    [
        (stub, "todo", "not done yet"),
        (lambda delta, w: None, "todo", "not done yet"),
        (_seed, "wrong", "(cos, sin)"),
        (lambda delta, w: good_block(delta, 1.0), "wrong", "w·Δ, not Δ"),
        (lambda delta, w: np.eye(3), "wrong", "must have shape (2, 2), got (3, 3)"),
        (lambda delta, w: good_block(2 * delta, w), "wrong", "angle-addition"),
        (lambda delta, w: np.full((2, 2), np.nan), "wrong", "NaN or infinite"),
        (lambda delta, w: "[[1, 0], [0, 1]]", "wrong", "must be an array of numbers, got str"),
        (lambda delta, w: [[1, 0], [0]], "wrong", "ragged"),
        (lambda delta: good_block(delta, 1.0), "wrong", "your function raised TypeError"),
        (np.eye(2), "wrong", "expected a function, got ndarray"),
    ],
)
def test_check_shift_block_names_each_slip(answer, status, message):
    feedback = check_shift_block(answer)
    assert feedback.status == status
    assert message in feedback.message


def test_check_shift_block_calls_the_learner_once_per_case():
    calls = Counter()

    def counted(delta, w):
        calls[delta, w] += 1
        return good_block(delta, w)

    assert check_shift_block(counted).passed
    assert set(calls.values()) == {1} and len(calls) >= 4


# --- Exercise 2: check_sin_collision -------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        (1.0, np.pi - 1.0),
        [1.0, np.pi - 1.0],
        np.array([1.0, np.pi - 1.0]),
        (np.float32(1.0), np.float32(np.pi) - np.float32(1.0)),
        np.array([-1.0, np.pi + 1.0], dtype=np.float32),
        lambda: (-1.0, np.pi + 1.0),
    ],
)
def test_check_sin_collision_accepts_mirror_pairs(answer):
    assert check_sin_collision(answer).passed


@pytest.mark.parametrize(
    ("answer", "status", "message"),
    [
        (None, "todo", "not done yet"),
        (stub, "todo", "not done yet"),
        ((np.pi - 0.5, 0.5), "wrong", "used in the lesson"),
        ((1.0, 1.0 + 2 * np.pi), "wrong", "period"),
        ((0.3, 0.4), "wrong", "must be equal"),
        ((2.0, 2.0), "wrong", "different positions"),
        ((1.0,), "wrong", "pair of two items"),
        ((float("nan"), float("nan")), "wrong", "t1 is nan"),
        ((float("inf"), -float("inf")), "wrong", "t1 is inf"),
        ((1.0, "2.14"), "wrong", "t2 is text"),
        ((1e6, np.pi - 1e6), "wrong", "within ±10,000"),
    ],
)
def test_check_sin_collision_names_each_slip(answer, status, message):
    # Issue 18 item 5: (nan, nan) and (inf, -inf) were graded correct, with a RuntimeWarning
    # (the suite turns warnings into errors).
    feedback = check_sin_collision(answer)
    assert feedback.status == status
    assert message in feedback.message


def test_check_sin_collision_reports_a_crashing_function():
    def crashes():
        raise ZeroDivisionError("oops")

    feedback = check_sin_collision(crashes)
    assert feedback.status == "wrong"
    assert feedback.message == "your function raised ZeroDivisionError: oops"


# --- Exercise 3: check_rotation_angle ------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [np.degrees(1.0), 57.3, np.float32(57.29578), np.array(57.3), np.array([57.3]), lambda: 57.3],
)
def test_check_rotation_angle_accepts_the_angle(answer):
    assert check_rotation_angle(answer).passed


@pytest.mark.parametrize(
    ("answer", "status", "message"),
    [
        (stub, "todo", "not done yet"),
        (1.0, "wrong", "radians"),
        (np.degrees(0.01), "wrong", "pair index"),
        (np.degrees(100.0), "wrong", "k = 0"),
        (45.0, "wrong", "within 0.1"),
        (float("nan"), "wrong", "the angle is nan"),
        (-float("inf"), "wrong", "the angle is -inf"),
        ("57.3", "wrong", "is text"),
        (True, "wrong", "must be a number, got bool"),
        (np.array([57.3, 57.3]), "wrong", "must be one number"),
    ],
)
def test_check_rotation_angle_names_each_slip(answer, status, message):
    feedback = check_rotation_angle(answer)
    assert feedback.status == status
    assert message in feedback.message
