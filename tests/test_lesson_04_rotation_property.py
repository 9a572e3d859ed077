"""Lesson 04 · The rotation property: helpers, the pair-rotation figure, the checkers."""

from __future__ import annotations

from collections import Counter

import matplotlib.pyplot as plt
import numpy as np
import pytest

from pe_helpers import shift_operator, sinusoidal_pe
from pe_helpers.lessons.rotation_property import (
    PairRotation,
    check_rotation_angle,
    check_shift_block,
    check_sin_collision,
    pair_points,
    plot_shift_scatter,
)
from pe_helpers.lessons.rotation_property.figures import MAX_LABELLED_POSITIONS
from pe_helpers.live import snapshot


def good_block(delta, w):
    c, s = np.cos(w * delta), np.sin(w * delta)
    return np.array([[c, s], [-s, c]])


# --- helpers -------------------------------------------------------------------------------------


def test_pair_points_are_columns_2k_and_2k_plus_1_of_the_encoding():
    positions = [0.0, 2.0, 4.0, -7.5]
    pairs, shifted, angle = pair_points(positions, 2.5, 3, d_model=16, base=100.0)
    np.testing.assert_allclose(pairs, sinusoidal_pe(positions, 16, 100.0)[:, 6:8])
    np.testing.assert_allclose(shifted, sinusoidal_pe(np.add(positions, 2.5), 16, 100.0)[:, 6:8])
    np.testing.assert_allclose(shifted, pairs @ shift_operator(2.5, 16, 100.0)[6:8, 6:8].T)
    assert angle == pytest.approx(100.0 ** (-6 / 16) * 2.5)


def _points(**kwargs):
    return pair_points(**{"positions": [0.0], "delta": 1.0, "pair_index": 0, **kwargs})


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        # Wrong kinds, NaN, negatives and huge sizes at every door: test_fuzz_inputs.py.
        (lambda: _points(pair_index=8), ValueError, "pair_index"),
        (lambda: _points(positions=2_000_000), ValueError, "positions"),
        (lambda: _points(d_model=15), ValueError, "d_model"),
        (lambda: plot_shift_scatter([1.0, 2.0], [1.0]), ValueError, "after"),
        (
            lambda: plot_shift_scatter([1.0], [1.0], highlight=[[1.0, 2.0, 3.0]]),
            ValueError,
            "highlight",
        ),
        (lambda: PairRotation(d_model=64), TypeError, "d_model"),
        (lambda: PairRotation(positions=5000), ValueError, "positions"),
        (lambda: PairRotation(positions=np.arange(13)), ValueError, "positions"),
    ],
)
def test_doors_name_bad_arguments_before_drawing(call, error, name):
    # Issue 18 item 3: positions=5000 took 37 s to build and about 10 s per step.
    figures = plt.get_fignums()
    with pytest.raises(error, match=name):
        call()
    assert plt.get_fignums() == figures


# --- the pair-rotation figure --------------------------------------------------------------------


def test_pair_rotation_draws_points_their_images_chords_and_labels():
    figure = PairRotation().draw(delta=2.5, pair_index=3)
    ax = figure.axes[0]
    pairs, shifted, angle = pair_points([0, 2, 4], 2.5, 3)
    offsets = [c.get_offsets() for c in ax.collections if c.get_offsets().shape == (3, 2)]
    np.testing.assert_allclose(offsets[0], pairs)
    np.testing.assert_allclose(offsets[1], shifted)
    assert ax.get_title() == "Pair k = 3 of d = 16, shifted by Δ = 2.5"
    texts = [t.get_text() for t in ax.texts]
    assert angle == pytest.approx(2.5 * 10000 ** (-6 / 16))
    # Pair 3 turns 0.03 rad per position: the three points nearly coincide and share a label.
    assert texts == ["w_3·Δ = 0.079 rad\n= 4.5°\n(clockwise)", "0, 2, 4", "", ""]
    wrapped = PairRotation().draw(delta=13.5, pair_index=0).axes[0].texts[0]
    assert wrapped.get_text() == "w_0·Δ = 13.500 rad\n= 773.5° ≡ 53.5°\n(clockwise)"
    fast = PairRotation().draw(delta=0.0, pair_index=0).axes[0]  # 1 rad per position
    assert [t.get_text() for t in fast.texts][1:] == ["0", "2", "4"]
    np.testing.assert_allclose(np.hypot(*ax.lines[0].get_data()), 1.0)  # the unit circle


def test_pair_rotation_view_steps_on_one_figure_and_blits():
    view = PairRotation().view()
    figure = view.figure
    view.controls["delta"].value = 6.5
    view.controls["pair_index"].value = 7
    assert view.figure is figure and view.renders == 3 and view.blits == 2
    assert snapshot(figure) == snapshot(PairRotation().draw(delta=6.5, pair_index=7))
    view.close()


def test_the_k_slider_is_declared_once_and_covers_the_pairs_of_the_width():
    view = PairRotation(base=100.0, positions=[1, 3]).view(pair_index=7)
    slider = view.controls["pair_index"]
    assert (slider.min, slider.max, slider.description) == (0, 7, "pair k (frequency w_k)")
    assert PairRotation.d_model // 2 - 1 == 7
    assert "controls" not in vars(PairRotation(base=100.0))  # never rewritten per figure
    view.close()


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


# --- the exercise checkers ----------------------------------------------------------------------


def _seed(delta, w):
    return good_block(-delta, w)


# Each checker's own slips; the grading every checker shares (a stub, NaN, text, a crash, not a
# function) is pinned once in tests/test_core.py and for every checker by the fuzz.
@pytest.mark.parametrize(
    ("check", "answer", "status", "message"),
    [
        (check_shift_block, good_block, "correct", "correct"),
        (check_shift_block, lambda d, w: good_block(d, w).astype(np.float32), "correct", "correct"),
        (check_shift_block, lambda d, w: good_block(d, w).tolist(), "correct", "correct"),
        (check_shift_block, _seed, "wrong", "(cos, sin)"),
        (check_shift_block, lambda delta, w: good_block(delta, 1.0), "wrong", "w·Δ, not Δ"),
        (check_shift_block, lambda delta, w: np.eye(3), "wrong", "must have shape (2, 2)"),
        (check_shift_block, lambda delta, w: good_block(2 * delta, w), "wrong", "angle-addition"),
        (check_sin_collision, (1.0, np.pi - 1.0), "correct", "correct"),
        (
            check_sin_collision,
            (np.float32(1.0), np.float32(np.pi) - np.float32(1.0)),
            "correct",
            "",
        ),
        (check_sin_collision, np.array([-1.0, np.pi + 1.0], dtype=np.float32), "correct", ""),
        (check_sin_collision, lambda: (-1.0, np.pi + 1.0), "correct", "correct"),
        (check_sin_collision, (np.pi - 0.5, 0.5), "wrong", "used in the lesson"),
        (check_sin_collision, (1.0, 1.0 + 2 * np.pi), "wrong", "period"),
        (check_sin_collision, (0.3, 0.4), "wrong", "must be equal"),
        (check_sin_collision, (2.0, 2.0), "wrong", "different positions"),
        (check_sin_collision, (1.0,), "wrong", "pair of two items"),
        # Issue 18 item 5: (nan, nan) and (inf, -inf) were graded correct, with a RuntimeWarning.
        (check_sin_collision, (float("nan"), float("nan")), "wrong", "t1 is nan"),
        (check_sin_collision, (float("inf"), -float("inf")), "wrong", "t1 is inf"),
        (check_sin_collision, (1e6, np.pi - 1e6), "wrong", "within ±10,000"),
        (check_rotation_angle, np.degrees(1.0), "correct", "correct"),
        (check_rotation_angle, 57.3, "correct", "correct"),
        (check_rotation_angle, np.float32(57.29578), "correct", "correct"),
        (check_rotation_angle, np.array([57.3]), "correct", "correct"),
        (check_rotation_angle, 1.0, "wrong", "radians"),
        (check_rotation_angle, np.degrees(0.01), "wrong", "pair index"),
        (check_rotation_angle, np.degrees(100.0), "wrong", "k = 0"),
        (check_rotation_angle, 45.0, "wrong", "within 0.1"),
    ],
)
def test_the_checkers_grade_answers_and_name_each_slip(check, answer, status, message):
    feedback = check(answer)
    assert feedback.status == status
    assert message in feedback.message


def test_check_shift_block_calls_the_learner_once_per_case():
    calls = Counter()

    def counted(delta, w):
        calls[delta, w] += 1
        return good_block(delta, w)

    assert check_shift_block(counted).passed
    assert set(calls.values()) == {1} and len(calls) >= 4
