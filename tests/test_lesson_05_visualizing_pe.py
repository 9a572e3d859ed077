"""Lesson 05 · Seeing the encoding: profiles, bilinear forms, figures, the checkers."""

from __future__ import annotations

from collections import Counter

import matplotlib.pyplot as plt
import numpy as np
import pytest

from pe_helpers import frequencies, halves_permutation, sinusoidal_pe
from pe_helpers.lessons.visualizing_pe import (
    PEOverview,
    check_dot_from_frequencies,
    check_dot_value,
    check_first_rise,
    dot_profile,
    pair_form,
    pair_form_profile,
    plot_column_means,
    plot_layouts,
    plot_pe_dimensions,
    plot_pe_dot_profile,
    plot_pe_heatmap,
    sines_then_cosines,
)
from pe_helpers.live import snapshot


def good_dot(delta, d_model, base=10000.0):
    return float(np.cos(frequencies(d_model, base) * delta).sum())


# --- the lesson's maths --------------------------------------------------------------------------


def test_dot_profile_is_the_dot_product_of_two_encodings_at_every_position():
    t = np.linspace(-300.0, 300.0, 61)
    for delta in [0.0, 1.0, -7.5, 40.0]:
        dots = np.sum(sinusoidal_pe(t, 32, 500.0) * sinusoidal_pe(t + delta, 32, 500.0), axis=1)
        np.testing.assert_allclose(dots, dot_profile([delta], 32, 500.0)[0])
    assert dot_profile([0, 1, 10], 128).round(2).tolist() == [64.0, 62.09, 42.82]


def test_pair_form_scores_are_relative_and_split_into_even_and_odd_parts():
    t = np.random.default_rng(0).uniform(-500.0, 500.0, size=50)
    deltas = np.array([-12.0, -1.0, 0.0, 3.0, 25.0])
    for a, b in [(1.0, 0.0), (0.0, 1.0), (0.5, -2.0)]:
        form = pair_form(16, a, b)
        for delta, expected in zip(deltas, pair_form_profile(deltas, 16, a, b), strict=True):
            scores = np.sum(sinusoidal_pe(t, 16) @ form * sinusoidal_pe(t + delta, 16), axis=1)
            np.testing.assert_allclose(scores, expected, atol=1e-9)
    odd = pair_form_profile(deltas, 16, 0.0, 1.0)
    np.testing.assert_allclose(pair_form_profile(-deltas, 16, 0.0, 1.0), -odd)
    np.testing.assert_allclose(pair_form_profile(deltas, 16), dot_profile(deltas, 16))
    np.testing.assert_array_equal(pair_form(2, 0.0, 1.0), [[0.0, -1.0], [1.0, 0.0]])


def test_sines_then_cosines_is_the_halves_permutation():
    pe = sinusoidal_pe(7, 12)
    np.testing.assert_array_equal(sines_then_cosines(pe), pe[:, halves_permutation(12)])


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        # Wrong kinds, NaN, negatives and huge sizes at every door: test_fuzz_inputs.py.
        (lambda: plot_column_means(np.zeros(5000)), ValueError, "means"),
        (lambda: sines_then_cosines(np.zeros((2, 3))), ValueError, r"\bpe\b"),
        (lambda: plot_pe_dimensions(np.eye(16), [16]), ValueError, "dimensions"),
        (lambda: plot_pe_dot_profile([0.0, 1.0], [1.0]), ValueError, "dots"),
        (lambda: plot_layouts(np.eye(4), cmap="no such map"), ValueError, "cmap"),
        (lambda: plot_pe_heatmap(np.eye(4), title=np.ones(2)), TypeError, "title"),
        (lambda: PEOverview().view(d_model=10**6), ValueError, "d_model"),
        (lambda: PEOverview().view(d_model=7), ValueError, "d_model"),
    ],
)
def test_doors_name_bad_arguments_before_drawing(call, error, name, monkeypatch):
    # Issue 18 item 14: pe_overview_view(d_model=10**6) drew for 5.8 s before refusing.
    def drawn(*_args, **_kwargs):
        raise AssertionError("the figure was built before the values were checked")

    monkeypatch.setattr(PEOverview, "build", drawn)
    figures = plt.get_fignums()
    with pytest.raises(error, match=name):
        call()
    assert plt.get_fignums() == figures


# --- static figures ------------------------------------------------------------------------------


def test_plot_pe_heatmap_fixes_the_colour_range_to_plus_minus_one():
    pe = sinusoidal_pe(50, 128)
    ax = plot_pe_heatmap(pe)
    image = ax.images[0]
    np.testing.assert_allclose(image.get_array(), pe)
    assert image.get_clim() == (-1.0, 1.0)
    assert "50 positions × 128 dimensions" in ax.get_title()


def test_plot_pe_dimensions_draws_the_requested_columns():
    pe = sinusoidal_pe(30, 16)
    ax = plot_pe_dimensions(pe, [0, 3])
    np.testing.assert_allclose(ax.lines[0].get_ydata(), pe[:, 0])
    np.testing.assert_allclose(ax.lines[1].get_ydata(), pe[:, 3])
    labels = [text.get_text() for text in ax.get_legend().get_texts()]
    assert labels == ["dim 0: sin, k = 0", "dim 3: cos, k = 1"]


def test_plot_pe_dot_profile_holds_the_curve():
    deltas = np.arange(-5.0, 6.0)
    ax = plot_pe_dot_profile(deltas, dot_profile(deltas, 8), title="d = 8")
    np.testing.assert_allclose(ax.lines[0].get_ydata(), dot_profile(deltas, 8))
    assert ax.get_title() == "d = 8"


def test_plot_layouts_draws_both_orders_in_the_chosen_map():
    pe = sinusoidal_pe(50, 128)
    figure = plot_layouts(pe)
    left, right = (ax.images[0] for ax in figure.axes[:2])
    np.testing.assert_allclose(left.get_array(), pe)
    np.testing.assert_allclose(right.get_array(), sines_then_cosines(pe))
    assert left.get_cmap().name == right.get_cmap().name == "RdBu"
    assert left.get_clim() == right.get_clim() == (-1.0, 1.0)
    # The lesson's count: about two thirds of the split right half is above 0.8.
    assert 0.6 < (sines_then_cosines(pe)[:, 64:] > 0.8).mean() < 0.72


def test_plot_column_means_splits_sin_and_cos_columns():
    means = sinusoidal_pe(50, 128)[:, 64:].mean(axis=0)
    ax = plot_column_means(means, first_dimension=64)
    sin_bars = [bar.get_height() for bar in ax.containers[0]]
    cos_bars = [bar.get_height() for bar in ax.containers[1]]
    np.testing.assert_allclose(sin_bars, means[0::2])
    np.testing.assert_allclose(cos_bars, means[1::2])


# --- the overview figure -------------------------------------------------------------------------


def test_overview_shows_the_encoding_and_its_dot_product():
    figure = PEOverview().draw(n_positions=20, d_model=16, base=100.0)
    heat_ax, dot_ax = figure.axes
    image = heat_ax.images[0]
    np.testing.assert_allclose(image.get_array(), sinusoidal_pe(20, 16, 100.0))
    assert image.get_extent() == [-0.5, 15.5, 19.5, -0.5]
    assert image.get_clim() == (-1.0, 1.0)
    deltas = np.arange(-19.0, 20.0)
    np.testing.assert_allclose(dot_ax.lines[0].get_xdata(), deltas)
    np.testing.assert_allclose(dot_ax.lines[0].get_ydata(), dot_profile(deltas, 16, 100.0))
    low, high = dot_ax.get_ylim()
    assert high >= 8.0 and low <= dot_profile(deltas, 16, 100.0).min()
    assert heat_ax.get_title() == "PE: 20 × 16, base 100"


def test_overview_steps_blit_while_the_limits_stay():
    view = PEOverview().view()
    view.controls["base"].value = 5000.0  # same limits: blitted
    assert view.blits == 1
    view.controls["d_model"].value = 16  # new limits: redrawn
    assert view.blits == 1 and view.renders == 3
    assert snapshot(view.figure) == snapshot(PEOverview().draw(base=5000.0, d_model=16))
    view.controls["n_positions"].value = 70  # its two axes are drawn with the data: blitted
    assert view.blits == 2 and view.figure.axes[0].get_ylim() == (69.5, -0.5)
    picture = view.image.value
    view.refresh(afresh=True)
    assert view.image.value == picture
    view.close()


# --- the exercise checkers ----------------------------------------------------------------------


def _float32_dot(delta, d_model, base=10000.0):
    # Issue 18 item 6: a float32 sum failed a 1e-9 tolerance.
    w = frequencies(d_model, base).astype(np.float32)
    return np.cos(w * np.float32(delta)).sum(dtype=np.float32)


def _single_term(delta, d_model, base=10000.0):
    return float(np.cos(frequencies(d_model, base)[0] * delta))


# Each checker's own slips; the grading every checker shares (a stub, NaN, text, a crash, a
# function returning the value) is pinned once in tests/test_core.py and by the fuzz.
@pytest.mark.parametrize(
    ("check", "answer", "status", "message"),
    [
        (check_dot_from_frequencies, good_dot, "correct", "correct"),
        (check_dot_from_frequencies, _float32_dot, "correct", "correct"),
        (
            check_dot_from_frequencies,
            lambda d, m, b=1e4: np.array([good_dot(d, m, b)]),
            "correct",
            "",
        ),
        (check_dot_from_frequencies, _single_term, "wrong", "single term"),
        (check_dot_from_frequencies, lambda d, m, b=1e4: 2 * good_dot(d, m, b), "wrong", "d/2"),
        (check_dot_from_frequencies, lambda d, m, b=1e4: good_dot(d, m), "wrong", "base is used"),
        (check_dot_value, good_dot(5.0, 64), "correct", "correct"),
        (check_dot_value, 23.50, "correct", "correct"),
        (check_dot_value, 32.0, "wrong", "Δ = 0"),
        (check_dot_value, np.cos(5.0), "wrong", "first term"),
        (check_dot_value, good_dot(5.0, 128), "wrong", "d = 128"),
        (check_dot_value, 23.6, "wrong", "within 0.01"),
        (check_first_rise, 12, "correct", "correct"),
        (check_first_rise, 12.0, "correct", "correct"),
        (check_first_rise, 5, "wrong", "still falls"),
        (check_first_rise, 18, "wrong", "smaller Δ"),
        (check_first_rise, 0, "wrong", "between 1"),
        (check_first_rise, 12.5, "wrong", "whole number"),
    ],
)
def test_the_checkers_grade_answers_and_name_each_slip(check, answer, status, message):
    feedback = check(answer)
    assert feedback.status == status
    assert message in feedback.message


def test_check_dot_from_frequencies_calls_the_learner_once_per_case():
    calls = Counter()

    def counted(delta, d_model, base=10000.0):
        calls[delta, d_model, base] += 1
        return good_dot(delta, d_model, base)

    assert check_dot_from_frequencies(counted).passed
    assert set(calls.values()) == {1} and len(calls) == 5
