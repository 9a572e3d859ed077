"""Lesson 02 · Injecting position by addition: its helpers, figures and checkers."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from pe_helpers.encodings import frequencies
from pe_helpers.lessons import additive_injection as lesson
from pe_helpers.live import snapshot

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "02_additive_injection.ipynb"


# --- the lesson's shape (its sections: test_course_shape) -------------------------------------
def test_one_compared_cell_per_live_figure():
    text = ["".join(c["source"]) for c in json.loads(NOTEBOOK.read_text("utf-8"))["cells"]]
    views = [i for i, t in enumerate(text) if ".view(" in t]
    # One cell per live figure: no static twin, and its output (a summary) is compared.
    assert views and not any("NBVAL_IGNORE_OUTPUT" in text[i] for i in views)
    assert not any("DimensionPanels().draw(" in t for t in text)


# --- random directions -------------------------------------------------------------------------
def test_random_cosines_are_cosines_and_shrink_like_one_over_root_d():
    rng = np.random.default_rng(0)
    small = np.abs(lesson.random_cosines(8, 4000, rng)).mean()
    large = np.abs(lesson.random_cosines(512, 4000, rng)).mean()
    assert small > 3 * large
    assert math.isclose(large, math.sqrt(2 / (math.pi * 512)), rel_tol=0.1)
    c = lesson.random_cosines(3, 100, rng)
    assert c.shape == (100,) and np.all(np.abs(c) <= 1)


# --- the probe ---------------------------------------------------------------------------------
def test_slow_columns_are_those_that_do_not_turn_over_the_span():
    d = 64
    wavelengths = np.repeat(2 * np.pi / frequencies(d), 2)
    slow = lesson.slow_columns(d, 32)
    assert slow.tolist() == [i for i in range(d) if wavelengths[i] > 32]
    shares = [lesson.slow_columns(d, 32).size / d for d in (32, 64, 128, 256)]
    assert max(shares) - min(shares) < 0.02  # the same share at every width


def test_position_probe_improves_with_dimension_and_reads_the_pe_alone():
    low = lesson.position_probe(8, np.random.default_rng(1)).r2
    high = lesson.position_probe(256, np.random.default_rng(1)).r2
    assert low < 0.5 < 0.85 < high
    alone = lesson.position_probe(16, np.random.default_rng(1), embedding_scale=0.0)
    assert alone.r2 > 0.99
    assert alone.true_positions.shape == alone.predicted_positions.shape == (400,)


def test_the_probe_depends_on_d_over_sigma_squared_not_on_angles():
    same_ratio = [
        lesson.position_probe(d, np.random.default_rng(1), embedding_scale=math.sqrt(d / 64)).r2
        for d in (64, 128, 256)
    ]
    assert max(same_ratio) - min(same_ratio) < 0.02
    louder = lesson.position_probe(128, np.random.default_rng(1), embedding_scale=2.0).r2
    assert louder < same_ratio[1] - 0.1


def test_slow_columns_carry_most_of_the_signal():
    full = lesson.position_probe(128, np.random.default_rng(1)).r2
    slow = lesson.slow_columns(128, 32)
    fast = np.setdiff1d(np.arange(128), slow)
    assert lesson.position_probe(128, np.random.default_rng(1), columns=slow).r2 > 0.9 * full
    assert lesson.position_probe(128, np.random.default_rng(1), columns=fast).r2 < 0.5 * full


def test_position_probe_is_reproducible():
    a = lesson.position_probe(32, np.random.default_rng(7))
    b = lesson.position_probe(32, np.random.default_rng(7))
    assert np.array_equal(a.predicted_positions, b.predicted_positions)


def _probe(**kwargs):
    arguments = {"d_model": 8, "rng": np.random.default_rng(0), **kwargs}
    return lesson.position_probe(arguments.pop("d_model"), arguments.pop("rng"), **arguments)


# Wrong kinds, NaN, negatives and huge sizes at every door: tests/test_fuzz_inputs.py.
@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        (lambda: _probe(d_model=7), ValueError, "d_model"),
        (lambda: _probe(columns=[0.5]), TypeError, "columns"),
        (lambda: _probe(columns=[0, 8]), ValueError, "columns"),
        (
            lambda: lesson.plot_probe_vs_dim([8, 16], [0.3], [1.0, 1.0]),
            ValueError,
            "r2_with_tokens",
        ),
        (lambda: lesson.plot_cosine_vs_dim([4, 16], [0.0, 0.2]), ValueError, "mean_abs_cosines"),
        (lambda: lesson.plot_cosine_vs_dim([0, 16], [0.5, 0.2]), ValueError, "dims"),
    ],
)
def test_doors_name_bad_arguments(call, error, name):
    with pytest.raises(error, match=name):
        call()


# --- figures -----------------------------------------------------------------------------------
def test_cosine_and_probe_figures_hold_the_data():
    ax = lesson.plot_cosine_vs_dim([4, 16, 64], [0.4, 0.2, 0.1])
    assert ax.lines[0].get_ydata().tolist() == [0.4, 0.2, 0.1]
    assert np.allclose(ax.lines[1].get_ydata(), np.sqrt(2 / (np.pi * np.array([4, 16, 64]))))
    assert ax.get_xscale() == ax.get_yscale() == "log"
    ax = lesson.plot_probe_vs_dim([8, 16], [0.3, 0.6], [1.0, 1.0])
    assert ax.lines[1].get_ydata().tolist() == [1.0, 1.0]


def test_dimension_panels_show_the_cosines_and_the_probe():
    figure = lesson.DimensionPanels().draw(d_model=8)
    left, right = figure.axes
    cosines, probe = lesson.DimensionPanels().data(8)
    (histogram,) = left.patches
    counts, _ = np.histogram(cosines, bins=lesson.figures.COSINE_BINS)
    assert np.allclose(histogram.get_data().values, counts / cosines.size)
    assert np.allclose(right.collections[0].get_offsets()[:, 1], probe.predicted_positions)
    assert "d = 8" in left.get_title() and f"R² = {probe.r2:.2f}" in right.get_title()


def test_dimension_view_owns_its_range_and_blits_every_step():
    view = lesson.DimensionPanels().view()
    slider = view.controls["d_model"]
    assert (slider.min, slider.max, slider.step, slider.value) == (2, 256, 2, 16)
    slider.value = 256
    slider.value = 2
    assert view.blits == 2  # fixed limits: every step redraws only the histogram, points and titles
    assert snapshot(view.figure) == snapshot(lesson.DimensionPanels().draw(d_model=2))
    view.close()


# --- exercise 1: concatenate, then project -----------------------------------------------------
# Each checker's own slips; the grading every checker shares (an unfinished stub, NaN, text, a
# crash) is pinned once in tests/test_core.py and for every checker by the fuzz.
def _concat(x, position, w, n):
    return w @ np.concatenate([x, np.eye(n)[position]])


@pytest.mark.parametrize(
    ("answer", "status", "message"),
    [
        (_concat, "correct", "correct"),
        (lambda x, p, w, n: _concat(x, p, w, n).astype(np.float32), "correct", "correct"),
        (lambda x, p, w, n: list(_concat(x, p, w, n)), "correct", "correct"),
        (lambda x, p, w, n: _concat(x, (p + 1) % n, w, n), "wrong", "positions count from 0"),
        (
            lambda x, p, w, n: w @ np.concatenate([x, np.zeros(n)]),
            "wrong",
            "position part is missing",
        ),
        (
            lambda x, p, w, n: w @ np.concatenate([np.zeros_like(x), np.eye(n)[p]]),
            "wrong",
            "is not W·[x; one_hot(position)]",
        ),
        (lambda x, p, w, n: np.concatenate([x, np.eye(n)[p]]), "wrong", "must have shape (4,)"),
    ],
)
def test_check_concat_then_project(answer, status, message):
    feedback = lesson.check_concat_then_project(answer)
    assert feedback.status == status
    assert message in feedback.message


# --- exercise 2: the same thing as an addition -------------------------------------------------
@pytest.mark.parametrize(
    ("answer", "status", "message"),
    [
        (lambda x, p, wt, wp: wt @ x + wp[:, p], "correct", "correct"),
        (lambda x, p, wt, wp: (wt @ x + wp[:, p]).astype(np.float32), "correct", "correct"),
        # Issue 11: the row slip used to end in numpy's broadcasting error.
        (lambda x, p, wt, wp: wt @ x + wp[p], "wrong", "you took a row of W_P"),
        (lambda x, p, wt, wp: wt @ x + wp[p, :], "wrong", "each position owns a COLUMN"),
        (lambda x, p, wt, wp: wt @ x, "wrong", "differs from W·[x; one_hot(position)]"),
        (lambda x, p, wt, wp: None if p else wt @ x + wp[:, p], "todo", "not done yet"),
        (lambda x, p, wt, wp: wt[p], "wrong", "differs"),
    ],
)
def test_check_add_position_vector(answer, status, message):
    feedback = lesson.check_add_position_vector(answer)
    assert feedback.status == status
    assert message in feedback.message


def test_the_row_slip_gets_the_hint_even_where_the_shapes_do_not_match():
    feedback = lesson.check_add_position_vector(lambda x, p, wt, wp: wt @ x + wp[p])
    assert "w_position[:, position]" in feedback.message + feedback.hint
    assert "broadcast" not in feedback.message


# --- exercise 3: fit a linear probe ------------------------------------------------------------
def _lstsq(features, positions):
    design = np.column_stack([features, np.ones(len(features))])
    return np.linalg.lstsq(design, positions, rcond=None)[0]


def _lstsq_float32(features, positions):
    design = np.column_stack([features, np.ones(len(features))]).astype(np.float32)
    return np.linalg.lstsq(design, positions.astype(np.float32), rcond=None)[0]


@pytest.mark.parametrize(
    ("answer", "status", "message"),
    [
        (_lstsq, "correct", "correct"),
        (_lstsq_float32, "correct", "correct"),
        (lambda f, p: np.linalg.lstsq(f, p, rcond=None)[0], "wrong", "needs a bias"),
        (lambda f, p: np.r_[_lstsq(f, p)[-1], _lstsq(f, p)[:-1]], "wrong", "put the bias last"),
        (lambda f, p: np.zeros(f.shape[1] + 1), "wrong", "not the least-squares fit"),
        (lambda f, p: np.zeros(3), "wrong", "return 9 weights"),
    ],
)
def test_check_fit_position_probe(answer, status, message):
    feedback = lesson.check_fit_position_probe(answer)
    assert feedback.status == status
    assert message in feedback.message


def test_checkers_pass_copies_and_call_once_per_case():
    calls = []

    def spoils_its_inputs(features, positions):
        calls.append(1)
        weights = _lstsq(features, positions)
        features[:] = 0.0  # would break the checker's own data if it were not a copy
        positions[:] = 0.0
        return weights

    assert lesson.check_fit_position_probe(spoils_its_inputs).passed
    assert len(calls) == 1
