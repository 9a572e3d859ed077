"""Helpers of lessons 06 (where additive encoding breaks down) and 07 (RoPE)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pe_helpers import (
    apply_rope,
    frequencies,
    relative_deviation,
    rope_matrix,
    sinusoidal_pe,
)
from pe_helpers.attention import (
    blend_deviations,
    blend_inputs,
    blend_matrix,
    blend_position_scores,
    random_projection,
)
from pe_helpers.exercises import (
    check_position_position,
    check_relative_projections,
    check_rope_adjacent,
    check_rotate_pair,
    check_unwrapped_pairs,
)
from pe_helpers.plotting import (
    BLEND_T_VALUES,
    blend_title,
    offset_title,
    plot_blend,
    plot_curves,
    plot_heatmap_row,
    plot_rope_offset,
)
from pe_helpers.rope import rope_score_bound, rope_scores
from pe_helpers.widgets import attention_blend_view, rope_offset_view

# --- maths: lesson 06 ---------------------------------------------------------------


def test_random_projection_shape_scale_and_reproducibility():
    w = random_projection(256, 64, seed=3)
    assert w.shape == (256, 64)
    assert abs(w.std() * math.sqrt(256) - 1.0) < 0.02
    assert np.array_equal(random_projection(8, seed=5), random_projection(8, seed=5))
    assert not np.array_equal(random_projection(8, seed=5), random_projection(8, seed=6))
    g1, g2 = np.random.default_rng(1), np.random.default_rng(1)
    assert np.array_equal(random_projection(4, seed=g1), random_projection(4, seed=g2))
    assert random_projection(6).shape == (6, 6)


@pytest.mark.parametrize(
    ("kwargs", "error", "text"),
    [
        ({"d_model": 0}, ValueError, "d_model"),
        ({"d_model": 2.5}, TypeError, "d_model"),
        ({"d_model": 4, "d_k": 0}, ValueError, "d_k"),
        ({"d_model": 4, "seed": -1}, ValueError, "seed"),
        ({"d_model": 4, "seed": "x"}, TypeError, "seed"),
    ],
)
def test_random_projection_rejects_bad_arguments(kwargs, error, text):
    with pytest.raises(error, match=text):
        random_projection(**kwargs)


def test_blend_matrix_end_points_and_midpoint():
    w = np.arange(9.0).reshape(3, 3)
    assert np.array_equal(blend_matrix(0.0, w), np.eye(3))
    assert np.array_equal(blend_matrix(1.0, w), w)
    assert np.allclose(blend_matrix(0.5, w), 0.5 * np.eye(3) + 0.5 * w)


@pytest.mark.parametrize(
    ("t", "w", "error", "text"),
    [
        (1.5, np.eye(2), ValueError, "t must lie"),
        (-0.1, np.eye(2), ValueError, "t must lie"),
        ("0.5", np.eye(2), TypeError, "t"),
        (0.5, np.ones((2, 3)), ValueError, "square"),
        (0.5, np.ones(3), ValueError, "w_random"),
    ],
)
def test_blend_matrix_rejects_bad_arguments(t, w, error, text):
    with pytest.raises(error, match=text):
        blend_matrix(t, w)


def test_blend_position_scores_end_points():
    p, w_q, w_k = blend_inputs(16, 10, seed=2)
    assert np.allclose(blend_position_scores(p, w_q, w_k, 0.0), p @ p.T)
    assert np.allclose(blend_position_scores(p, w_q, w_k, 1.0), p @ w_q @ w_k.T @ p.T)
    with pytest.raises(ValueError, match="w_q_random"):
        blend_position_scores(p, np.eye(8), np.eye(8), 0.5)


def test_blend_inputs_shapes_and_distinct_seeds():
    p, w_q, w_k = blend_inputs(8, 5, seed=4)
    assert p.shape == (5, 8) and w_q.shape == w_k.shape == (8, 8)
    assert np.allclose(p, sinusoidal_pe(5, 8))
    assert np.array_equal(w_q, random_projection(8, seed=4))
    assert np.array_equal(w_k, random_projection(8, seed=5))
    with pytest.raises(ValueError, match="n_positions"):
        blend_inputs(8, 1)


def test_blend_deviations_start_at_zero_and_match_relative_deviation():
    p, w_q, w_k = blend_inputs(64)
    ts = [0.0, 0.1, 0.25, 0.5, 1.0]
    curve = blend_deviations(p, w_q, w_k, ts)
    assert curve[0] < 1e-12
    assert np.all(np.diff(curve[:4]) > 0)
    for t, value in zip(ts, curve, strict=True):
        assert math.isclose(value, relative_deviation(blend_position_scores(p, w_q, w_k, t)))
    with pytest.raises(ValueError, match="t_values"):
        blend_deviations(p, w_q, w_k, [[0.0]])


def test_lesson06_ordering_claim_holds_on_average():
    """The table of lesson 06: PE·PEᵀ < position–position < full score (means over seeds)."""
    from pe_helpers import score_terms

    n = 32
    for d in (16, 128):
        p = sinusoidal_pe(n, d)
        rows = []
        for seed in range(5):
            g = np.random.default_rng(seed)
            e = g.normal(size=(n, d)) / np.sqrt(2)
            terms = score_terms(e, p, random_projection(d, seed=g), random_projection(d, seed=g))
            rows.append([relative_deviation(m) for m in (p @ p.T, *terms[3:], terms.total())])
        pe_only, pos_pos, full = np.mean(rows, axis=0)
        assert pe_only < 1e-12 < 0.5 < pos_pos < full


# --- maths: lesson 07 ---------------------------------------------------------------


def test_rope_scores_match_explicit_rotations_and_are_relative():
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=8), rng.normal(size=8)
    tq, tk = np.array([0.0, 2.0, 5.0]), np.array([1.0, 7.0])
    got = rope_scores(q, k, tq, tk, base=100.0)
    for a, m in enumerate(tq):
        for b, n in enumerate(tk):
            expected = (rope_matrix(m, 8, 100.0) @ q) @ (rope_matrix(n, 8, 100.0) @ k)
            assert math.isclose(got[a, b], expected, abs_tol=1e-12)
    assert relative_deviation(rope_scores(q, k, 20, 20)) < 1e-12
    halves = rope_scores(q, k, 20, 20, pairing="halves")
    assert relative_deviation(halves) < 1e-12


@pytest.mark.parametrize(
    ("q", "k", "error", "text"),
    [
        (np.ones(3), np.ones(3), ValueError, "even"),
        (np.ones(4), np.ones(6), ValueError, "same width"),
        (np.ones((2, 4)), np.ones(4), ValueError, "1-D"),
        (["a", "b"], np.ones(2), TypeError, "q"),
    ],
)
def test_rope_scores_rejects_bad_vectors(q, k, error, text):
    with pytest.raises(error, match=text):
        rope_scores(q, k, 3, 3)


def test_rope_score_bound_matches_a_plain_loop():
    d, base = 16, 500.0
    theta = [base ** (-2 * i / d) for i in range(d // 2)]
    for r in (0.0, 1.0, 7.0, 123.0):
        total = 0.0
        for j in range(1, d // 2 + 1):
            partial = sum(complex(math.cos(r * theta[i]), math.sin(r * theta[i])) for i in range(j))
            total += abs(partial)
        assert math.isclose(rope_score_bound([r], d, base)[0], total / (d // 2), rel_tol=1e-12)


def test_rope_score_bound_starts_at_its_maximum_and_decays():
    bound = rope_score_bound(1025, 128)
    assert math.isclose(bound[0], (64 + 1) / 2)
    assert bound.max() == bound[0]
    assert bound[512:].mean() < 0.35 * bound[0]
    near = [rope_score_bound(np.arange(1, 64), 128, b).mean() for b in (100, 1e4, 1e6)]
    assert near[0] < near[1] < near[2]
    with pytest.raises(ValueError, match="even"):
        rope_score_bound(10, 7)
    with pytest.raises(ValueError, match="base"):
        rope_score_bound(10, 8, base=0.0)


# --- plotting -----------------------------------------------------------------------


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


@pytest.mark.parametrize(
    ("matrices", "titles", "error", "text"),
    [
        (np.eye(2), ["a", "b"], TypeError, "list"),
        ([np.eye(2)], ["a", "b"], ValueError, "titles"),
        ([], [], ValueError, "at least one"),
        ([np.ones(3)], ["a"], ValueError, r"matrices\[0\] must be 2-D, got shape \(3,\)"),
    ],
)
def test_plot_heatmap_row_rejects_bad_input(matrices, titles, error, text):
    with pytest.raises(error, match=text):
        plot_heatmap_row(matrices, titles)


def test_plot_curves_draws_every_curve_and_the_reference():
    ax = plot_curves(
        [1, 2, 4],
        {"a": [1.0, 2.0, 3.0], "b": [3.0, 2.0, 1.0]},
        xlabel="x",
        ylabel="y",
        title="t",
        reference=2.0,
        reference_label="ref",
        logx=True,
    )
    assert ax.lines[1].get_ydata().tolist() == [3.0, 2.0, 1.0]
    assert np.asarray(ax.lines[-1].get_ydata()).tolist() == [2.0, 2.0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "linear"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "b", "ref"]
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == ("x", "y", "t")
    with pytest.raises(ValueError, match="shape of x"):
        plot_curves([1, 2], {"a": [1.0]}, xlabel="x", ylabel="y")
    with pytest.raises(TypeError, match="non-empty dict"):
        plot_curves([1, 2], {}, xlabel="x", ylabel="y")


def test_titles():
    assert blend_title(0.25, 0.5) == "p W_Q W_Kᵀ pᵀ at t = 0.25\nrelative deviation 0.500"
    assert offset_title(10, 5, 1e-15) == "positions 10 to 14: relative deviation 1.0e-15"


def test_plot_blend_shows_the_blended_term_and_its_deviation():
    fig = plot_blend(16, 0.3, n_positions=12, seed=1)
    heat, curve = fig.axes[0], fig.axes[1]
    p, w_q, w_k = blend_inputs(16, 12, seed=1)
    scores = blend_position_scores(p, w_q, w_k, 0.3)
    assert np.allclose(heat.images[0].get_array(), scores / np.abs(scores).max())
    assert heat.images[0].get_clim() == (-1.0, 1.0)
    assert heat.get_title() == blend_title(0.3, relative_deviation(scores))
    assert np.allclose(curve.lines[0].get_ydata(), blend_deviations(p, w_q, w_k, BLEND_T_VALUES))
    assert np.asarray(curve.lines[1].get_xdata()).tolist() == [0.3]
    with pytest.raises(ValueError, match="t must lie"):
        plot_blend(16, 2.0)


def test_plot_rope_offset_curve_is_unchanged_by_the_offset():
    rng = np.random.default_rng(2)
    q, k = rng.normal(size=16), rng.normal(size=16)
    fig0 = plot_rope_offset(q, k, offset=0, max_distance=10, n_positions=6)
    fig1 = plot_rope_offset(q, k, offset=777, max_distance=10, n_positions=6)
    curve0, curve1 = fig0.axes[0].lines[0].get_ydata(), fig1.axes[0].lines[0].get_ydata()
    assert np.allclose(curve0, rope_scores(q, k, [0], np.arange(11))[0])
    assert np.allclose(curve0, curve1)
    heat = fig1.axes[1]
    assert np.allclose(heat.images[0].get_array(), rope_scores(q, k, 6, 6))
    assert heat.get_title().startswith("positions 777 to 782")
    limit = np.linalg.norm(q) * np.linalg.norm(k)
    assert np.allclose(heat.images[0].get_clim(), (-limit, limit))


# --- widgets ------------------------------------------------------------------------


def test_attention_blend_view_updates_in_place():
    view = attention_blend_view(d_model=16, t=0.5, n_positions=10)
    figure = view.figure
    heat, curve_ax = figure.axes[0], figure.axes[1]
    before = heat.images[0].get_array().copy()
    view.controls["t"].value = 0.0
    assert view.figure is figure and view.renders == 2
    p, _, _ = blend_inputs(16, 10)
    assert np.allclose(heat.images[0].get_array(), p @ p.T / np.abs(p @ p.T).max())
    assert not np.allclose(heat.images[0].get_array(), before)
    assert heat.get_title().endswith("relative deviation 0.000")
    assert np.asarray(curve_ax.lines[1].get_xdata()).tolist() == [0.0]
    old_curve = curve_ax.lines[0].get_ydata().copy()
    view.controls["d_model"].value = 32
    assert view.figure is figure
    p, w_q, w_k = blend_inputs(32, 10)
    assert np.allclose(curve_ax.lines[0].get_ydata(), blend_deviations(p, w_q, w_k, BLEND_T_VALUES))
    assert not np.allclose(curve_ax.lines[0].get_ydata(), old_curve)
    assert curve_ax.get_title().endswith("d = 32")
    assert len(figure.axes) == 3  # no colour bar added by the updates


@pytest.mark.parametrize(
    ("kwargs", "error", "text"),
    [
        ({"d_model": 7}, ValueError, "even"),
        ({"d_model": 256}, ValueError, "d_model"),
        ({"t": 1.5}, ValueError, "t must lie"),
        ({"n_positions": 1}, ValueError, "n_positions"),
    ],
)
def test_attention_blend_view_rejects_bad_arguments(kwargs, error, text):
    with pytest.raises(error, match=text):
        attention_blend_view(**kwargs)


def test_rope_offset_view_offset_changes_nothing_but_base_does():
    rng = np.random.default_rng(3)
    q, k = rng.normal(size=32), rng.normal(size=32)
    view = rope_offset_view(q, k, n_positions=8, max_distance=20)
    figure = view.figure
    curve_ax, heat = figure.axes[0], figure.axes[1]
    curve = curve_ax.lines[0].get_ydata().copy()
    matrix = heat.images[0].get_array().copy()
    view.controls["offset"].value = 4000
    assert view.figure is figure
    assert np.allclose(curve_ax.lines[0].get_ydata(), curve)
    assert np.allclose(heat.images[0].get_array(), matrix)
    assert heat.get_title().startswith("positions 4000 to 4007")
    assert curve_ax.get_legend().get_texts()[0].get_text() == "query at 4000"
    view.controls["base"].value = 100.0
    expected = rope_scores(q, k, [4000], 4000 + np.arange(21), base=100.0)[0]
    assert np.allclose(curve_ax.lines[0].get_ydata(), expected)
    assert np.allclose(curve_ax.lines[1].get_ydata(), expected)  # reference at offset 0
    assert curve_ax.get_title() == "Score vs distance, base = 100"
    assert view.renders == 3


@pytest.mark.parametrize(
    ("kwargs", "error", "text"),
    [
        ({"offset": -1}, ValueError, "offset"),
        ({"offset": 20000}, ValueError, "offset"),
        ({"base": 0.0}, ValueError, "base"),
        ({"n_positions": 1}, ValueError, "n_positions"),
    ],
)
def test_rope_offset_view_rejects_bad_arguments(kwargs, error, text):
    with pytest.raises(error, match=text):
        rope_offset_view(np.ones(4), np.ones(4), **kwargs)


# --- exercises ----------------------------------------------------------------------


def stub(*_args):
    raise NotImplementedError


def returns_none(*_args):
    return None


def test_check_position_position():
    assert check_position_position(lambda p, wq, wk: (p @ wq) @ (p @ wk).T).passed
    assert check_position_position(stub).status == "todo"
    assert check_position_position(returns_none).status == "todo"
    cases = [
        (lambda p, wq, wk: ((p @ wq) @ (p @ wk).T).T, "transpose: row i"),
        (lambda p, wq, wk: p @ wq @ wk @ p.T, "W_K needs a transpose"),
        (lambda p, wq, wk: p @ p.T, "projections W_Q and W_K are missing"),
        (lambda p, wq, wk: np.zeros((3, 3)), "shape (6, 6)"),
        (lambda p, wq, wk: 2 * (p @ wq) @ (p @ wk).T, "values differ"),
    ]
    for answer, text in cases:
        feedback = check_position_position(answer)
        assert feedback.status == "wrong" and text in feedback.message, feedback


def _scaled_pairs(d_model):
    return np.diag(np.repeat(np.arange(1.0, d_model // 2 + 1), 2)), np.eye(d_model)


def test_check_relative_projections():
    assert check_relative_projections(_scaled_pairs).passed
    assert check_relative_projections(stub).status == "todo"
    cases = [
        (lambda d: (np.eye(d), 3 * np.eye(d)), "multiple of the identity"),
        (lambda d: (random_projection(d, seed=0), random_projection(d, seed=1)), "not relative"),
        (lambda d: (np.zeros((d, d)), np.eye(d)), "is zero"),
        (lambda d: [np.eye(d), np.eye(d)], "tuple"),
        (lambda d: (np.eye(d), np.eye(d + 1)), "w_k must have shape"),
    ]
    for answer, text in cases:
        feedback = check_relative_projections(answer)
        assert feedback.status == "wrong" and text in feedback.message, feedback


def _rotate_pair(x0, x1, angle):
    c, s = np.cos(angle), np.sin(angle)
    return x0 * c - x1 * s, x0 * s + x1 * c


def test_check_rotate_pair():
    assert check_rotate_pair(_rotate_pair).passed
    assert check_rotate_pair(lambda x0, x1, a: np.array(_rotate_pair(x0, x1, a))).passed
    assert check_rotate_pair(stub).status == "todo"
    cases = [
        (lambda x0, x1, a: _rotate_pair(x0, x1, -a), "clockwise"),
        (lambda x0, x1, a: (x0 * np.cos(a), x0 * np.sin(a)), "keeps the length"),
        (lambda x0, x1, a: (x0, x1), "should give (0, 1)"),
        (lambda x0, x1, a: x0, "return the pair"),
    ]
    for answer, text in cases:
        feedback = check_rotate_pair(answer)
        assert feedback.status == "wrong" and text in feedback.message, feedback


def test_check_rope_adjacent():
    assert check_rope_adjacent(lambda x, t, base: apply_rope(x, t, base)).passed
    assert check_rope_adjacent(stub).status == "todo"

    def wrong_frequencies(x, t, base):
        d = x.shape[1]
        w = base ** (-np.arange(d // 2) / d)  # exponent k/d instead of 2k/d
        out = np.empty_like(x)
        angles = np.outer(t, w)
        out[:, 0::2], out[:, 1::2] = _rotate_pair(x[:, 0::2], x[:, 1::2], angles)
        return out

    cases = [
        (lambda x, t, base: apply_rope(x, t, base, pairing="halves"), "split-halves"),
        (lambda x, t, base: apply_rope(x, -t, base), "clockwise"),
        (lambda x, t, base: apply_rope(x, None, base), "row index"),
        (wrong_frequencies, "w_k = base ** (−2k / d)"),
        (lambda x, t, base: 2 * apply_rope(x, t, base), "changed length"),
        (lambda x, t, base: x[:2], "shape (5, 8)"),
    ]
    for answer, text in cases:
        feedback = check_rope_adjacent(answer)
        assert feedback.status == "wrong" and text in feedback.message, feedback


def test_check_unwrapped_pairs():
    def right(d_model, base, length):
        return (length - 1) * frequencies(d_model, base) < 2 * np.pi

    assert check_unwrapped_pairs(right).passed
    assert check_unwrapped_pairs(stub).status == "todo"
    cases = [
        (lambda d, b, n: ~right(d, b, n), "DO complete a turn"),
        (lambda d, b, n: n * frequencies(d, b) < 2 * np.pi, "off by one"),
        (lambda d, b, n: right(d, b, n).astype(int), "booleans"),
        (lambda d, b, n: right(2 * d, b, n), "one entry per pair"),
        (lambda d, b, n: (n - 1) * frequencies(d, b) < np.pi, "compare (L − 1)·w_k"),
    ]
    for answer, text in cases:
        feedback = check_unwrapped_pairs(answer)
        assert feedback.status == "wrong" and text in feedback.message, feedback
