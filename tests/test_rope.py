"""Unit and property tests for pe_helpers.rope (rotary position embedding)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pe_helpers import (
    apply_rope,
    halves_permutation,
    relative_deviation,
    rope_matrix,
    rotation_matrix,
)
from pe_helpers.rope import rope_score_bound

FAST = settings(max_examples=50, deadline=None)

seeds = st.integers(min_value=0, max_value=2**32 - 1)
widths = st.sampled_from([2, 4, 8, 16, 64])
bases = st.sampled_from([10.0, 100.0, 10000.0, 500000.0])
positions = st.floats(min_value=-300.0, max_value=300.0, allow_nan=False, allow_infinity=False)


def explicit_rope(x, pos, base=10000.0):
    """Adjacent-pair RoPE of a 2-D ``x`` with a plain loop over rows and pairs."""
    n, d = x.shape
    out = np.zeros((n, d))
    for row in range(n):
        for k in range(d // 2):
            angle = pos[row] * base ** (-2.0 * k / d)
            c, s = math.cos(angle), math.sin(angle)
            a, b = x[row, 2 * k], x[row, 2 * k + 1]
            out[row, 2 * k] = c * a - s * b  # counter-clockwise
            out[row, 2 * k + 1] = s * a + c * b
    return out


def explicit_block_matrix(position, d, base=10000.0):
    """Block-diagonal rotation assembled from 2x2 rotation_matrix blocks."""
    out = np.zeros((d, d))
    for k in range(d // 2):
        out[2 * k : 2 * k + 2, 2 * k : 2 * k + 2] = rotation_matrix(
            position * base ** (-2.0 * k / d)
        )
    return out


def rope_scores(q, k, n, *, q_pairing="adjacent", k_pairing="adjacent", base=10000.0):
    """Scores of the fixed vector q at every position against k at every position."""
    rq = apply_rope(np.tile(q, (n, 1)), base=base, pairing=q_pairing)
    rk = apply_rope(np.tile(k, (n, 1)), base=base, pairing=k_pairing)
    return rq @ rk.T


@pytest.mark.parametrize("pairing", ["adjacent", "halves"])
def test_batch_dims_rotate_each_matrix_alike(pairing):
    x = np.random.default_rng(1).standard_normal((2, 3, 5, 8))
    out = apply_rope(x, pairing=pairing)
    assert out.shape == x.shape and out.dtype == np.float64
    for i in range(2):
        for j in range(3):
            np.testing.assert_allclose(out[i, j], apply_rope(x[i, j], pairing=pairing), atol=1e-15)
    np.testing.assert_allclose(apply_rope(x[0, 0]), explicit_rope(x[0, 0], range(5)), atol=1e-13)


def test_integer_input_is_promoted():
    x = np.arange(12).reshape(3, 4)
    np.testing.assert_allclose(apply_rope(x), explicit_rope(x.astype(float), range(3)), atol=1e-13)


@FAST
@given(
    seed=seeds,
    d=widths,
    pos=st.lists(positions, min_size=1, max_size=7),
    base=bases,
)
def test_each_pair_rotated_counter_clockwise(seed, d, pos, base):
    x = np.random.default_rng(seed).standard_normal((len(pos), d))
    out = apply_rope(x, positions=np.array(pos), base=base)
    np.testing.assert_allclose(out, explicit_rope(x, pos, base), atol=1e-11)


@FAST
@given(seed=seeds, d=widths, base=bases)
def test_score_depends_only_on_offset(seed, d, base):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal(d), rng.standard_normal(d)
    n = 12
    scores = rope_scores(q, k, n, base=base)
    assert relative_deviation(scores) < 1e-9
    halves = rope_scores(q, k, n, q_pairing="halves", k_pairing="halves", base=base)
    assert relative_deviation(halves) < 1e-9
    for m in range(n):
        for j in range(n):
            expected = q @ rope_matrix(j - m, d, base=base) @ k
            assert scores[m, j] == pytest.approx(expected, abs=1e-10)
            by_blocks = q @ explicit_block_matrix(j - m, d, base=base) @ k
            assert scores[m, j] == pytest.approx(by_blocks, abs=1e-10)


@FAST
@given(seed=seeds, d=widths, pos=st.lists(positions, min_size=1, max_size=6), base=bases)
def test_halves_is_adjacent_under_permutation(seed, d, pos, base):
    x = np.random.default_rng(seed).standard_normal((2, len(pos), d))
    perm = halves_permutation(d)
    lhs = apply_rope(x[..., perm], positions=pos, base=base, pairing="halves")
    rhs = apply_rope(x, positions=pos, base=base)[..., perm]
    np.testing.assert_allclose(lhs, rhs, atol=1e-12)


@pytest.mark.parametrize("d", [2, 4, 6, 10])
def test_halves_permutation_layout(d):
    expected = [i for i in range(d) if i % 2 == 0] + [i for i in range(d) if i % 2 == 1]
    assert halves_permutation(d).tolist() == expected


def test_halves_pairs_k_with_k_plus_half():
    # a vector in dimension k of the first half must rotate into dimension k + d/2
    d = 8
    x = np.zeros((2, d))
    x[:, 1] = 1.0
    out = apply_rope(x, pairing="halves")
    w1 = 10000.0 ** (-2.0 / d)
    expected = np.zeros(d)
    expected[1], expected[1 + d // 2] = math.cos(w1), math.sin(w1)
    np.testing.assert_allclose(out[1], expected, atol=1e-14)


@FAST
@given(seed=seeds, d=widths, m=positions, base=bases)
def test_rope_matrix_matches_apply_rope(seed, d, m, base):
    x = np.random.default_rng(seed).standard_normal(d)
    r = rope_matrix(m, d, base=base)
    assert r.shape == (d, d)
    np.testing.assert_allclose(r @ x, apply_rope(x[None, :], [m], base=base)[0], atol=1e-11)
    np.testing.assert_allclose(r, explicit_block_matrix(m, d, base=base), atol=1e-12)
    np.testing.assert_allclose(r.T @ r, np.eye(d), atol=1e-12)


@FAST
@given(m=positions, n=positions, d=widths)
def test_rope_matrix_relative_property(m, n, d):
    lhs = rope_matrix(m, d).T @ rope_matrix(n, d)
    np.testing.assert_allclose(lhs, rope_matrix(n - m, d), atol=1e-11)


def test_rope_score_bound_refuses_a_product_of_sizes_past_its_limit():
    # each size alone is within its own limit; together they would run for hours
    with pytest.raises(ValueError, match="distances"):
        rope_score_bound(2**24, 2**16)
