"""Unit and property tests for pe_helpers.attention."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pe_helpers.attention import (
    ScoreTerms,
    attention,
    causal_mask,
    relative_deviation,
    score_terms,
    softmax,
)
from pe_helpers.encodings import sinusoidal_pe

FAST = settings(max_examples=50, deadline=None)

seeds = st.integers(min_value=0, max_value=2**32 - 1)
finite = st.floats(min_value=-50.0, max_value=50.0, allow_nan=False, allow_infinity=False)
score_rows = st.lists(finite, min_size=1, max_size=10)


def explicit_attention(q, k, v, mask=None):
    """Scaled dot-product attention with loops, one query at a time."""
    n, d = q.shape
    m = k.shape[0]
    out = np.zeros((n, v.shape[1]))
    for i in range(n):
        allowed = [j for j in range(m) if mask is None or mask[i][j]]
        scores = {j: sum(q[i, a] * k[j, a] for a in range(d)) / math.sqrt(d) for j in allowed}
        top = max(scores.values())
        weights = {j: math.exp(s - top) for j, s in scores.items()}
        total = sum(weights.values())
        for j, w in weights.items():
            out[i] += (w / total) * v[j]
    return out


def explicit_relative_deviation(s):
    """Diagonal means by brute force over every entry."""
    rows, cols = s.shape
    diagonal = {}
    for i in range(rows):
        for j in range(cols):
            diagonal.setdefault(j - i, []).append(s[i, j])
    means = {offset: sum(vals) / len(vals) for offset, vals in diagonal.items()}
    projected = np.array([[means[j - i] for j in range(cols)] for i in range(rows)])
    return np.linalg.norm(s - projected) / np.linalg.norm(s - s.mean())


# ------------------------------------------------------------------------------- softmax


@FAST
@given(x=score_rows)
def test_softmax_is_a_distribution(x):
    p = softmax(x)
    assert p.shape == (len(x),)
    assert np.all(p >= 0)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    top = max(x)
    denominator = sum(math.exp(v - top) for v in x)
    np.testing.assert_allclose(p, [math.exp(v - top) / denominator for v in x], rtol=1e-12)


def test_softmax_along_other_axis():
    x = np.random.default_rng(0).standard_normal((3, 5))
    p = softmax(x, axis=0)
    np.testing.assert_allclose(p.sum(axis=0), 1.0, atol=1e-12)
    np.testing.assert_allclose(p, np.exp(x) / np.exp(x).sum(axis=0, keepdims=True), rtol=1e-12)


def test_softmax_stable_for_large_scores():
    p = softmax([1000.0, 1001.0, 1002.0])
    assert np.all(np.isfinite(p))
    e = np.exp([0.0, 1.0, 2.0])
    np.testing.assert_allclose(p, e / e.sum(), rtol=1e-12)
    np.testing.assert_allclose(softmax([-1000.0, -1000.0]), [0.5, 0.5])
    np.testing.assert_allclose(softmax([5000.0, 0.0]), [1.0, 0.0])


def test_softmax_minus_infinity_gets_zero():
    p = softmax([0.0, -np.inf, math.log(3.0), -np.inf])
    np.testing.assert_allclose(p, [0.25, 0.0, 0.75, 0.0], atol=1e-15)
    assert p[1] == 0.0 and p[3] == 0.0


# ----------------------------------------------------------------------------- attention


@FAST
@given(
    seed=seeds,
    n=st.integers(min_value=1, max_value=6),
    m=st.integers(min_value=1, max_value=6),
    d=st.integers(min_value=1, max_value=5),
    d_v=st.integers(min_value=1, max_value=4),
)
def test_attention_matches_loop(seed, n, m, d, d_v):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n, d)) * 3
    k = rng.standard_normal((m, d)) * 3
    v = rng.standard_normal((m, d_v))
    out = attention(q, k, v)
    assert out.shape == (n, d_v)
    np.testing.assert_allclose(out, explicit_attention(q, k, v), atol=1e-12)


@FAST
@given(seed=seeds, n=st.integers(min_value=1, max_value=7))
def test_masked_attention_matches_loop(seed, n):
    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((n, 4)) for _ in range(3))
    mask = rng.random((n, n)) < 0.5
    mask[np.arange(n), rng.integers(0, n, size=n)] = True  # every query sees something
    np.testing.assert_allclose(
        attention(q, k, v, mask), explicit_attention(q, k, v, mask), atol=1e-12
    )


def test_attention_batch_dims():
    rng = np.random.default_rng(5)
    q = rng.standard_normal((2, 4, 3))
    k = rng.standard_normal((2, 5, 3))
    v = rng.standard_normal((2, 5, 2))
    out = attention(q, k, v)
    assert out.shape == (2, 4, 2)
    for b in range(2):
        np.testing.assert_allclose(out[b], explicit_attention(q[b], k[b], v[b]), atol=1e-12)


@pytest.mark.parametrize("n", [1, 2, 5])
def test_causal_mask_layout(n):
    mask = causal_mask(n)
    assert mask.dtype == bool
    assert mask.shape == (n, n)
    for i in range(n):
        for j in range(n):
            assert mask[i, j] == (j <= i)


# --------------------------------------------------------------------------- score_terms


@FAST
@given(seed=seeds, n=st.integers(1, 6), d=st.integers(1, 6), d_k=st.integers(1, 5))
def test_score_terms_decomposition(seed, n, d, d_k):
    rng = np.random.default_rng(seed)
    e, p = rng.standard_normal((n, d)), rng.standard_normal((n, d))
    w_q, w_k = rng.standard_normal((d, d_k)), rng.standard_normal((d, d_k))
    terms = score_terms(e, p, w_q, w_k)
    assert isinstance(terms, ScoreTerms)
    full = (e + p) @ w_q @ w_k.T @ (e + p).T
    np.testing.assert_allclose(terms.total(), full, atol=1e-10)
    np.testing.assert_allclose(sum(terms), full, atol=1e-10)
    # positional order and names agree, and each term is its own product
    cc, cp, pc, pp = terms
    np.testing.assert_allclose(cc, e @ w_q @ w_k.T @ e.T, atol=1e-10)
    np.testing.assert_allclose(cp, e @ w_q @ w_k.T @ p.T, atol=1e-10)
    np.testing.assert_allclose(pc, p @ w_q @ w_k.T @ e.T, atol=1e-10)
    np.testing.assert_allclose(pp, p @ w_q @ w_k.T @ p.T, atol=1e-10)
    assert terms.content_position is cp and terms.position_content is pc


# -------------------------------------------------------------------- relative_deviation


@FAST
@given(seed=seeds, rows=st.integers(2, 9), cols=st.integers(2, 9))
def test_deviation_in_unit_interval_and_matches_definition(seed, rows, cols):
    s = np.random.default_rng(seed).standard_normal((rows, cols))
    value = relative_deviation(s)
    assert isinstance(value, float)
    assert 0.0 <= value <= 1.0
    assert value == pytest.approx(explicit_relative_deviation(s), abs=1e-12)


@FAST
@given(
    seed=seeds,
    a=st.one_of(st.floats(1e-3, 1e3), st.floats(-1e3, -1e-3)),
    b=st.floats(-1e3, 1e3),
)
def test_deviation_invariant_under_affine_maps(seed, a, b):
    s = np.random.default_rng(seed).standard_normal((7, 7))
    assert relative_deviation(a * s + b) == pytest.approx(relative_deviation(s), rel=1e-6)


def test_deviation_of_noise():
    n = 40
    rng = np.random.default_rng(2024)
    values = [relative_deviation(rng.standard_normal((n, n))) for _ in range(40)]
    assert np.mean(values) == pytest.approx(math.sqrt((n - 1) / (n + 1)), rel=0.03)


def test_pe_gram_matrix_is_toeplitz():
    pe = sinusoidal_pe(60, 128)
    assert relative_deviation(pe @ pe.T) < 1e-9
