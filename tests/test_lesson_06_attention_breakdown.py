"""Lesson 06 · Where additive encoding breaks down: helpers, figures and checkers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pe_helpers import relative_deviation, score_terms, sinusoidal_pe
from pe_helpers.figures import plot_heatmap_row
from pe_helpers.lessons.attention_breakdown import (
    BLEND_T_VALUES,
    AttentionBlend,
    attention_stack,
    blend_deviations,
    blend_inputs,
    check_position_position,
    check_relative_projections,
    encoding_readout,
    random_projection,
)
from pe_helpers.lessons.attention_breakdown.maths import MAX_WIDTH, position_scores

# --- maths --------------------------------------------------------------------------


def test_random_projection_shape_scale_and_reproducibility():
    w = random_projection(256, 64, seed=3)
    assert w.shape == (256, 64)
    assert abs(w.std() * math.sqrt(256) - 1.0) < 0.02
    assert np.array_equal(random_projection(8, seed=5), random_projection(8, seed=5))
    assert not np.array_equal(random_projection(8, seed=5), random_projection(8, seed=6))
    g1, g2 = np.random.default_rng(1), np.random.default_rng(1)
    assert np.array_equal(random_projection(4, seed=g1), random_projection(4, seed=g2))
    assert random_projection(6).shape == (6, 6)


def test_the_blended_scores_end_points_and_midpoint():
    p, w_q, w_k = blend_inputs(16, 10, seed=2)
    assert np.allclose(position_scores(p, w_q, w_k, 0.0), p @ p.T)
    assert np.allclose(position_scores(p, w_q, w_k, 1.0), p @ w_q @ w_k.T @ p.T)
    half_q, half_k = (np.eye(16) + w_q) / 2, (np.eye(16) + w_k) / 2
    assert np.allclose(position_scores(p, w_q, w_k, 0.5), p @ half_q @ half_k.T @ p.T)


def _deviations(**kwargs):
    arguments = {"p": np.eye(8), "w_q": np.eye(8), "w_k": np.eye(8), "t_values": [0.5], **kwargs}
    return blend_deviations(*arguments.values())


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        # Wrong kinds, NaN, negatives and huge sizes at every door: test_fuzz_inputs.py.
        (lambda: random_projection(MAX_WIDTH + 1), ValueError, "d_model"),
        # Issue 18, item 14: errors used to say "w_random" and "t" for every argument.
        (lambda: _deviations(w_q=np.eye(4)), ValueError, "w_q_random"),
        (lambda: _deviations(w_k=np.ones((8, 3))), ValueError, "w_k_random"),
        (lambda: _deviations(t_values=[0.0, 1.5]), ValueError, "t_values"),
        (lambda: _deviations(t_values=np.zeros(5000)), ValueError, "t_values"),
        (lambda: _deviations(p=np.zeros((5000, 8))), ValueError, r"\bp\b"),
        (lambda: blend_inputs(7), ValueError, "d_model"),
        (lambda: attention_stack(np.zeros((5000, 8))), ValueError, r"\bx\b"),
        (lambda: encoding_readout(np.eye(5), np.eye(5)), ValueError, r"\bx\b"),
        (lambda: AttentionBlend(n_positions=10**5), ValueError, "n_positions"),
        # Issue 18, item 15: plot_heatmap_row(None, ...) ended in a raw Python error.
        (lambda: plot_heatmap_row(np.eye(2), ["a", "b"]), TypeError, "matrices"),
        (lambda: plot_heatmap_row([np.eye(2)], ["a", "b"]), ValueError, "titles"),
        (lambda: plot_heatmap_row([np.eye(2)] * 7, ["a"] * 7), ValueError, "matrices"),
        (lambda: plot_heatmap_row([None], ["a"]), TypeError, r"matrices\[0\]"),
        (lambda: plot_heatmap_row([np.zeros((3, 5000))], ["a"]), ValueError, r"matrices\[0\]"),
    ],
)
def test_doors_name_bad_arguments(call, error, name):
    with pytest.raises(error, match=name):
        call()


def test_blend_inputs_shapes_and_distinct_seeds():
    p, w_q, w_k = blend_inputs(8, 5, seed=4)
    assert p.shape == (5, 8) and w_q.shape == w_k.shape == (8, 8)
    assert np.allclose(p, sinusoidal_pe(5, 8))
    assert np.array_equal(w_q, random_projection(8, seed=4))
    assert np.array_equal(w_k, random_projection(8, seed=5))


def test_blend_deviations_start_at_zero_and_match_relative_deviation():
    p, w_q, w_k = blend_inputs(64)
    ts = [0.0, 0.1, 0.25, 0.5, 1.0]
    curve = blend_deviations(p, w_q, w_k, ts)
    assert curve[0] < 1e-12
    assert np.all(np.diff(curve[:4]) > 0)
    for t, value in zip(ts, curve, strict=True):
        assert math.isclose(value, relative_deviation(position_scores(p, w_q, w_k, t)))


def test_the_ordering_claim_of_the_table_holds_on_average():
    """PE·PEᵀ < position–position < full score (means over five seeds)."""
    n = 32
    for d in (16, 128):
        p = sinusoidal_pe(n, d)
        rows = []
        for seed in range(5):
            g = np.random.default_rng(seed)
            e = g.normal(size=(n, d)) / np.sqrt(2)
            terms = score_terms(e, p, random_projection(d, seed=g), random_projection(d, seed=g))
            rows.append(
                [relative_deviation(m) for m in (p @ p.T, terms.position_position, terms.total())]
            )
        pe_only, pos_pos, full = np.mean(rows, axis=0)
        assert pe_only < 1e-12 < 0.5 < pos_pos < full


# --- figures ------------------------------------------------------------------------


def test_plot_heatmap_row_shared_and_separate_colour_ranges():
    a, b = np.eye(3), -2 * np.eye(3)
    fig = plot_heatmap_row([a, b], ["A", "B"], xlabel="x", ylabel="y")
    panels = fig.axes[:2]
    assert [ax.get_title() for ax in panels] == ["A", "B"]
    assert np.array_equal(panels[1].images[0].get_array(), b)
    assert panels[0].images[0].get_clim() == (-2.0, 2.0)
    assert len(fig.axes) == 3  # two panels, one shared colour bar
    assert panels[0].get_ylabel() == "y" and panels[1].get_ylabel() == ""
    fig = plot_heatmap_row([a, b], ["A", "B"], shared_limit=False)
    assert fig.axes[0].images[0].get_clim() == (-1.0, 1.0)
    assert len(fig.axes) == 4


def test_plot_heatmap_row_masks_non_finite_cells():
    masked = np.where(np.eye(3, dtype=bool), np.nan, 2.0)
    fig = plot_heatmap_row([masked, np.eye(3)], ["masked", "eye"])
    assert fig.axes[0].images[0].get_clim() == (-2.0, 2.0)
    assert fig.axes[0].images[0].get_array().mask.sum() == 3


def test_the_blend_figure_shows_the_blended_term_and_its_deviation():
    figure = AttentionBlend(n_positions=12, seed=1).draw(d_model=16, t=0.3)
    heat, curve_ax = figure.axes[0], figure.axes[1]
    p, w_q, w_k = blend_inputs(16, 12, seed=1)
    scores = position_scores(p, w_q, w_k, 0.3)
    assert np.allclose(heat.images[0].get_array(), scores / np.abs(scores).max())
    assert heat.images[0].get_clim() == (-1.0, 1.0)
    deviation = relative_deviation(scores)
    assert heat.get_title() == f"p W_Q W_Kᵀ pᵀ at t = 0.30\nrelative deviation {deviation:.3f}"
    curve, marker = curve_ax.lines
    assert np.allclose(curve.get_ydata(), blend_deviations(p, w_q, w_k, BLEND_T_VALUES))
    assert np.asarray(marker.get_xdata()).tolist() == [0.3]
    assert curve_ax.get_title().startswith("d = 16:")


def test_the_blend_view_redraws_only_the_moving_artists():
    view = AttentionBlend(n_positions=10).view(d_model=16, t=0.5)
    view.controls["t"].value = 0.0
    view.controls["d_model"].value = 32
    assert view.blits == 2  # no step changes an axes limit
    heat = view.figure.axes[0]
    p, _, _ = blend_inputs(32, 10)
    assert np.allclose(heat.images[0].get_array(), p @ p.T / np.abs(p @ p.T).max())
    assert heat.get_title().endswith("relative deviation 0.000")
    view.close()


# --- exercise checkers --------------------------------------------------------------


# Each checker's own slips; the grading every checker shares (a stub, NaN, text, a crash, not a
# function) is pinned once in tests/test_core.py and for every checker by the fuzz.
def _position_position(p, w_q, w_k):
    return (p @ w_q) @ (p @ w_k).T


def _in_place(p, w_q, w_k):
    p *= 1.0  # touches its input: the checker must pass copies
    return _position_position(p, w_q, w_k)


def _scaled_pairs(d_model):
    return np.diag(np.repeat(np.arange(1.0, d_model // 2 + 1), 2)), np.eye(d_model)


def _random_pair(d):
    return random_projection(d, seed=0), random_projection(d, seed=1)


POS, REL = check_position_position, check_relative_projections
pp = _position_position


@pytest.mark.parametrize(
    ("check", "answer", "status", "text"),
    [
        (POS, pp, "correct", ""),
        (POS, lambda p, q, k: pp(p, q, k).astype(np.float32), "correct", ""),
        (POS, lambda p, q, k: pp(p, q, k).tolist(), "correct", ""),
        (POS, _in_place, "correct", ""),
        (POS, lambda p, q, k: pp(p, q, k).T, "wrong", "transpose: row i"),
        (POS, lambda p, q, k: p @ q @ k @ p.T, "wrong", "W_K needs a transpose"),
        (POS, lambda p, q, k: p @ p.T, "wrong", "W_Q and W_K are missing"),
        (POS, lambda p, q, k: np.zeros((3, 3)), "wrong", "shape (6, 6)"),
        (POS, lambda p, q, k: 2 * pp(p, q, k), "wrong", "values differ"),
        (REL, _scaled_pairs, "correct", ""),
        # Issue 18, item 8: a list [w_q, w_k] was rejected where a pair is expected.
        (REL, lambda d: list(_scaled_pairs(d)), "correct", ""),
        (REL, lambda d: np.stack(_scaled_pairs(d)), "correct", ""),
        (REL, lambda d: tuple(w.astype(np.float32) for w in _scaled_pairs(d)), "correct", ""),
        (REL, lambda d: (np.eye(d), 3 * np.eye(d)), "wrong", "multiple of the identity"),
        (REL, _random_pair, "wrong", "not relative"),
        (REL, lambda d: (np.zeros((d, d)), np.eye(d)), "wrong", "is zero"),
        (REL, lambda d: np.eye(d), "wrong", "must be a pair of two items"),
        (REL, lambda d: (np.eye(d), np.eye(d + 1)), "wrong", "w_k must have shape"),
        (REL, lambda d: (np.full((d, d), np.nan), np.eye(d)), "wrong", "w_q holds NaN"),
        (REL, lambda d: ("eye", np.eye(d)), "wrong", "w_q must be an array of numbers"),
    ],
)
def test_the_checkers_grade_answers_and_name_each_slip(check, answer, status, text):
    feedback = check(answer)
    assert feedback.status == status and text in feedback.message, feedback


def test_check_relative_projections_calls_once_per_width():
    calls = []

    def counted(d_model):
        calls.append(d_model)
        return _scaled_pairs(d_model)

    assert check_relative_projections(counted).passed
    assert sorted(calls) == [8, 16]


def test_attention_stack_keeps_the_encoding_only_with_residuals():
    rng = np.random.default_rng(5)
    p = sinusoidal_pe(256, 64)
    x = rng.normal(size=(256, 64)) / np.sqrt(2) + p
    kept = attention_stack(x, 6, residual=True, seed=1)
    lost = attention_stack(x, 6, residual=False, seed=1)
    assert len(kept) == len(lost) == 7 and np.array_equal(kept[0], x)
    assert abs(encoding_readout(kept[-1], p) - encoding_readout(x, p)) < 0.05
    assert encoding_readout(lost[-1], p) < 0.1
    assert math.isclose(encoding_readout(2 * p + 1, p), 1.0)
