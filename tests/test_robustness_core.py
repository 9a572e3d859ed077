"""Regression tests for the robustness audit of the maths (issue 18, items 2 and 11).

Each test failed before its fix: memory far beyond the result, a scale-invariant measure that
returned 0.0. The argument errors of the same audit (items 12-14) are in ``test_validation.py``.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from pe_helpers import (
    apply_rope,
    frequencies,
    relative_deviation,
    rope_score_bound,
    rope_scores,
)
from pe_helpers import rope as rope_module


def peak_bytes(compute):
    """Run ``compute()`` under tracemalloc; return its result and the peak traced bytes."""
    tracemalloc.start()
    try:
        result = compute()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak


# ------------------------------------------------- item 2: memory stays near the result


def test_rope_score_bound_peak_memory_is_a_small_multiple_of_the_result():
    # Before the fix this call held every (distance, frequency) phase at once: ~200x more.
    result, peak = peak_bytes(lambda: rope_score_bound(250_000, 32))
    assert result.shape == (250_000,)
    assert peak <= 4 * result.nbytes, f"peak {peak / 2**20:.1f} MiB for {result.nbytes} bytes"


@pytest.mark.parametrize(
    ("query_positions", "key_positions"),
    [([0], 250_000), (250_000, [0, 7])],
    ids=["one query, many keys", "many queries, two keys"],
)
def test_rope_scores_peak_memory_is_a_small_multiple_of_the_result(query_positions, key_positions):
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=32), rng.normal(size=32)
    result, peak = peak_bytes(lambda: rope_scores(q, k, query_positions, key_positions))
    assert result.size >= 250_000
    assert peak <= 4 * result.nbytes, f"peak {peak / 2**20:.1f} MiB for {result.nbytes} bytes"


@pytest.mark.parametrize("pairing", ["adjacent", "halves"])
@pytest.mark.parametrize(("n_queries", "n_keys"), [(3, 50), (50, 3), (17, 17)])
def test_blocked_rope_scores_equal_the_direct_product_across_block_edges(
    monkeypatch, pairing, n_queries, n_keys
):
    monkeypatch.setattr(rope_module, "_BLOCK_ENTRIES", 16)  # blocks of 2 rows at d = 8
    rng = np.random.default_rng(1)
    q, k = rng.normal(size=8), rng.normal(size=8)
    tq, tk = rng.uniform(-50, 500, n_queries), rng.uniform(-50, 500, n_keys)
    direct = (
        apply_rope(np.tile(q, (n_queries, 1)), tq, 100.0, pairing)
        @ apply_rope(np.tile(k, (n_keys, 1)), tk, 100.0, pairing).T
    )
    np.testing.assert_allclose(rope_scores(q, k, tq, tk, 100.0, pairing), direct, atol=1e-12)


def test_blocked_rope_score_bound_equals_the_formula_across_block_edges(monkeypatch):
    monkeypatch.setattr(rope_module, "_BLOCK_ENTRIES", 8)  # blocks of 2 distances at d = 8
    r = np.arange(-3.0, 20.0)
    theta = frequencies(8, 10000.0)
    direct = np.abs(np.cumsum(np.exp(1j * np.outer(r, theta)), axis=1)).mean(axis=1)
    np.testing.assert_allclose(rope_score_bound(r, 8), direct, rtol=1e-13)


# ----------------------------------------- item 11: relative_deviation at any scale


@pytest.mark.parametrize("scale", [1e155, 1e-200, 1e300, 1e-300, -1e250])
def test_relative_deviation_is_scale_invariant_at_extreme_scales(scale):
    s = np.random.default_rng(2).normal(size=(6, 6))
    expected = relative_deviation(s)
    assert 0.5 < expected < 1.0
    assert relative_deviation(s * scale) == pytest.approx(expected, rel=1e-9)


def test_relative_deviation_of_constant_or_zero_matrices_is_zero_at_any_scale():
    assert relative_deviation(np.zeros((3, 4))) == 0.0
    assert relative_deviation(np.full((4, 4), 1e300)) == 0.0
    i, j = np.indices((5, 5))
    assert relative_deviation(np.cos(j - i) * 1e-250) == pytest.approx(0.0, abs=1e-12)
