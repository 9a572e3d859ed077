"""Lesson 07 · Rotary position embedding (RoPE): helpers, figure and checkers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pe_helpers import apply_rope, frequencies, relative_deviation, rope_matrix
from pe_helpers.lessons.rope import (
    RopeOffset,
    check_rope_adjacent,
    check_rotate_pair,
    check_unwrapped_pairs,
    mean_abs_scores,
    unseen_angle_gaps,
)
from pe_helpers.rope import rope_score_bound, rope_scores

# --- the identities the lesson teaches ----------------------------------------------


def test_the_complex_form_is_the_real_rotation():
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=16), rng.normal(size=16)
    theta = frequencies(16, 10000.0)
    zq, zk = q[0::2] + 1j * q[1::2], k[0::2] + 1j * k[1::2]
    for m, n in [(0, 3), (7, 2), (100, 140)]:
        turned_q, turned_k = zq * np.exp(1j * m * theta), zk * np.exp(1j * n * theta)
        complex_score = np.real(np.sum(turned_q * np.conj(turned_k)))
        real_score = apply_rope(q[None], [m])[0] @ apply_rope(k[None], [n])[0]
        relative = np.real(np.sum(zq * np.conj(zk) * np.exp(-1j * (n - m) * theta)))
        assert math.isclose(complex_score, real_score, abs_tol=1e-12)
        assert math.isclose(complex_score, relative, abs_tol=1e-12)


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


# --- a bound, not a typical score (issue 11, item 3) ----------------------------------


def test_typical_scores_do_not_fall_with_distance_but_aligned_ones_do():
    rng = np.random.default_rng(0)
    queries, keys = rng.normal(size=(2000, 128)), rng.normal(size=(2000, 128))
    distances = [0, 1, 10, 100, 1000]
    random_scores = mean_abs_scores(queries, keys, distances)
    assert np.all((random_scores > 8.0) & (random_scores < 10.0))
    ones = np.ones((1, 128))
    aligned = mean_abs_scores(ones, ones, distances)
    assert np.allclose(aligned, [128.0, 124.19, 85.64, 61.09, 20.36], atol=0.01)
    bound = rope_score_bound(distances, 128)
    assert np.all(np.diff(bound) < 0)  # the bound falls over these distances


def test_mean_abs_scores_matches_rope_scores():
    rng = np.random.default_rng(1)
    queries, keys = rng.normal(size=(3, 8)), rng.normal(size=(3, 8))
    got = mean_abs_scores(queries, keys, [0, 5], base=50.0)
    for index, r in enumerate((0, 5)):
        pairs = zip(queries, keys, strict=True)
        each = [abs(rope_scores(q, k, [0], [r], base=50.0)[0, 0]) for q, k in pairs]
        assert math.isclose(got[index], np.mean(each), rel_tol=1e-12)


# --- angles beyond the training length ------------------------------------------------


def test_new_angles_appear_exactly_for_pairs_that_never_turn_fully():
    w = frequencies(128, 10000.0)
    gaps = unseen_angle_gaps(128, 10000.0, 512, 2048)
    never_turned = 511 * w < 2 * np.pi
    assert np.array_equal(gaps > w / 2, never_turned)
    assert never_turned.sum() == 33
    assert np.all(gaps <= np.pi)
    assert np.all(unseen_angle_gaps(8, 100.0, 64, 64) <= frequencies(8, 100.0) / 2 + 1e-12)


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        # Wrong kinds, NaN, negatives and huge sizes at every door: test_fuzz_inputs.py.
        (lambda: mean_abs_scores(np.ones((2, 4)), np.ones((3, 4)), [0]), ValueError, "keys"),
        (lambda: mean_abs_scores(np.ones((2, 3)), np.ones((2, 3)), [0]), ValueError, "queries"),
        (
            lambda: mean_abs_scores(*[np.ones((10**4, 2))] * 2, np.arange(10**4)),
            ValueError,
            "distances",
        ),
        (lambda: unseen_angle_gaps(7, 1e4, 8, 16), ValueError, "d_model"),
        (lambda: unseen_angle_gaps(8, 1e4, 16, 8), ValueError, "test_length"),
        (lambda: unseen_angle_gaps(4096, 1e4, 8, 16), ValueError, "d_model"),
        (lambda: RopeOffset(np.ones(4)), TypeError, r"\bk\b"),
        (lambda: RopeOffset(np.ones(4), np.ones(6)), ValueError, r"\bk\b"),
        (lambda: RopeOffset(np.ones(3), np.ones(3)), ValueError, r"\bq\b"),
    ],
)
def test_doors_name_bad_arguments(call, error, name):
    with pytest.raises(error, match=name):
        call()


# --- the offset figure ----------------------------------------------------------------


def test_the_offset_figure_is_unchanged_by_the_offset():
    rng = np.random.default_rng(2)
    q, k = rng.normal(size=16), rng.normal(size=16)
    figure = RopeOffset(q, k, n_positions=6, max_distance=10)
    at_zero, shifted = figure.draw(offset=0), figure.draw(offset=700)
    curve0 = at_zero.axes[0].lines[0].get_ydata()
    assert np.allclose(curve0, rope_scores(q, k, [0], np.arange(11))[0])
    assert np.allclose(curve0, shifted.axes[0].lines[0].get_ydata())
    heat = shifted.axes[1]
    assert np.allclose(heat.images[0].get_array(), rope_scores(q, k, 6, 6))
    assert heat.get_title().startswith("positions 700 to 705")
    limit = np.linalg.norm(q) * np.linalg.norm(k)
    assert np.allclose(heat.images[0].get_clim(), (-limit, limit))
    assert heat.get_title() == "positions 700 to 705\nrelative deviation below 1e-12"


def test_the_offset_view_blits_and_follows_the_base():
    rng = np.random.default_rng(3)
    q, k = rng.normal(size=32), rng.normal(size=32)
    view = RopeOffset(q, k, n_positions=8, max_distance=20).view()
    view.controls["offset"].value = 4000
    view.controls["base"].value = 100.0
    assert view.blits == 2  # no step changes an axes limit
    curve_ax = view.figure.axes[0]
    expected = rope_scores(q, k, [4000], 4000 + np.arange(21), base=100.0)[0]
    assert np.allclose(curve_ax.lines[0].get_ydata(), expected)
    assert np.allclose(curve_ax.lines[1].get_ydata(), expected)  # reference at offset 0
    assert curve_ax.get_title() == "Score vs distance, base = 100"
    view.close()


# --- exercise checkers ----------------------------------------------------------------


# Each checker's own slips; the grading every checker shares (a stub, NaN, text, a crash) is
# pinned once in tests/test_core.py and for every checker by the fuzz.
def _rotate_pair(x0, x1, angle):
    c, s = np.cos(angle), np.sin(angle)
    return x0 * c - x1 * s, x0 * s + x1 * c


def _float32_pair(x0, x1, angle):
    cast = np.float32 if np.ndim(x0) == 0 else (lambda y: np.asarray(y, np.float32))
    return tuple(cast(y) for y in _rotate_pair(x0, x1, angle))


def _with_math(x0, x1, angle):
    # Issue 11: math.cos on arrays raised a raw TypeError inside the checker.
    c, s = math.cos(angle), math.sin(angle)
    return x0 * c - x1 * s, x0 * s + x1 * c


def _column_exponent(x, t, base):
    d = x.shape[1]
    w = base ** (-np.arange(d // 2) / d)  # exponent k/d instead of 2k/d
    out = np.empty_like(x)
    out[:, 0::2], out[:, 1::2] = _rotate_pair(x[:, 0::2], x[:, 1::2], np.outer(t, w))
    return out


def _unwrapped(d_model, base, length):
    return (length - 1) * frequencies(d_model, base) < 2 * np.pi


PAIR, ROPE, UNWRAPPED = check_rotate_pair, check_rope_adjacent, check_unwrapped_pairs


@pytest.mark.parametrize(
    ("check", "answer", "status", "text"),
    [
        (PAIR, _rotate_pair, "correct", ""),
        (PAIR, lambda x0, x1, a: np.array(_rotate_pair(x0, x1, a)), "correct", ""),
        (PAIR, lambda x0, x1, a: list(_rotate_pair(x0, x1, a)), "correct", ""),
        (PAIR, _float32_pair, "correct", ""),
        (PAIR, lambda *a: tuple(np.atleast_1d(y) for y in _rotate_pair(*a)), "correct", ""),
        (PAIR, _with_math, "wrong", "raised TypeError on numpy arrays: math.cos and math.sin"),
        (PAIR, lambda x0, x1, a: _rotate_pair(x0, x1, -a), "wrong", "clockwise"),
        (PAIR, lambda x0, x1, a: (x0 * np.cos(a), x0 * np.sin(a)), "wrong", "keeps the length"),
        (PAIR, lambda x0, x1, a: (x0, x1), "wrong", "should give (0, 1)"),
        (PAIR, lambda x0, x1, a: x0, "wrong", "must be a pair"),
        (PAIR, lambda x0, x1, a: ("0", "1"), "wrong", "y0 for (1, 0) must be an array of numbers"),
        (ROPE, lambda x, t, base: apply_rope(x, t, base), "correct", ""),
        (ROPE, lambda x, t, base: apply_rope(x, t, base).astype(np.float32), "correct", ""),
        # Issue 11: an answer with base 10000 hard-coded used to pass.
        (
            ROPE,
            lambda x, t, base: apply_rope(x, t, 10000.0),
            "wrong",
            "for base = 500: you returned",
        ),
        (
            ROPE,
            lambda x, t, base: apply_rope(x, t, base, pairing="halves"),
            "wrong",
            "split-halves",
        ),
        (ROPE, lambda x, t, base: apply_rope(x, -t, base), "wrong", "clockwise"),
        (ROPE, lambda x, t, base: apply_rope(x, None, base), "wrong", "row index"),
        (ROPE, _column_exponent, "wrong", "w_k = base ** (−2k / d)"),
        (ROPE, lambda x, t, base: 2 * apply_rope(x, t, base), "wrong", "changed length"),
        (UNWRAPPED, _unwrapped, "correct", ""),
        (UNWRAPPED, lambda d, b, n: _unwrapped(d, b, n).tolist(), "correct", ""),
        (UNWRAPPED, lambda d, b, n: ~_unwrapped(d, b, n), "wrong", "DO complete a turn"),
        (UNWRAPPED, lambda d, b, n: n * frequencies(d, b) < 2 * np.pi, "wrong", "off by one"),
        (UNWRAPPED, lambda d, b, n: _unwrapped(d, b, n).astype(int), "wrong", "booleans"),
        (UNWRAPPED, lambda d, b, n: _unwrapped(2 * d, b, n), "wrong", "one entry per pair"),
        (
            UNWRAPPED,
            lambda d, b, n: (n - 1) * frequencies(d, b) < np.pi,
            "wrong",
            "compare (L − 1)",
        ),
    ],
)
def test_the_checkers_grade_answers_and_name_each_slip(check, answer, status, text):
    feedback = check(answer)
    assert feedback.status == status and text in feedback.message, feedback
