"""Unit and property tests for pe_helpers.encodings.

Every expected value is rebuilt here from the textbook formulas
(``w_k = base ** (-2k / d)``, column ``2k`` = sin, column ``2k + 1`` = cos)
with plain loops, never by calling the function under test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pe_helpers import (
    block_rotation,
    frequencies,
    rotation_matrix,
    shift_operator,
    sinusoidal_pe,
)

FAST = settings(max_examples=50, deadline=None)

even_widths = st.integers(min_value=1, max_value=64).map(lambda half: 2 * half)
bases = st.floats(min_value=1.5, max_value=1e5, allow_nan=False, allow_infinity=False)
positions_1d = st.lists(
    st.floats(min_value=-500.0, max_value=500.0, allow_nan=False, allow_infinity=False),
    min_size=1,
    max_size=8,
)
angles = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)
offsets = st.floats(min_value=-200.0, max_value=200.0, allow_nan=False, allow_infinity=False)


def explicit_pe(positions, d_model, base=10000.0):
    """Sinusoidal PE by a double loop over positions and pairs."""
    positions = list(positions)
    out = np.zeros((len(positions), d_model))
    for row, t in enumerate(positions):
        for k in range(d_model // 2):
            w_k = base ** (-2.0 * k / d_model)
            out[row, 2 * k] = math.sin(t * w_k)
            out[row, 2 * k + 1] = math.cos(t * w_k)
    return out


def explicit_rotation(theta):
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -s], [s, c]])


# --------------------------------------------------------------------------- frequencies


@FAST
@given(d_model=even_widths, base=bases)
def test_frequencies_match_formula(d_model, base):
    w = frequencies(d_model, base=base)
    assert w.shape == (d_model // 2,) and w.dtype == np.float64 and w[0] == 1.0
    expected = [base ** (-2.0 * k / d_model) for k in range(d_model // 2)]
    np.testing.assert_allclose(w, expected, rtol=1e-12, atol=0)


# ------------------------------------------------------------------------- sinusoidal_pe


@pytest.mark.parametrize(
    ("n", "d_model", "dtype"),
    [(0, 4, np.float64), (1, 2, np.float16), (7, 16, np.float32), (50, 128, "float32")],
)
def test_pe_shape_and_dtype(n, d_model, dtype):
    pe = sinusoidal_pe(n, d_model, dtype=dtype)
    assert pe.shape == (n, d_model)
    assert pe.dtype == np.dtype(dtype)


@FAST
@given(t=positions_1d, d_model=st.sampled_from([2, 4, 6, 10, 32]), base=bases)
def test_pe_columns_are_sin_then_cos(t, d_model, base):
    pe = sinusoidal_pe(np.array(t), d_model, base=base)
    np.testing.assert_allclose(pe, explicit_pe(t, d_model, base), rtol=0, atol=1e-12)


def test_int_count_means_zero_to_n_minus_one():
    pe = sinusoidal_pe(9, 8)
    np.testing.assert_array_equal(pe, sinusoidal_pe(np.arange(9), 8))


def test_fractional_and_negative_positions():
    t = [-3.75, -1.0, 0.5, 2.25]
    pe = sinusoidal_pe(t, 10, base=50.0)
    np.testing.assert_allclose(pe, explicit_pe(t, 10, base=50.0), atol=1e-13)
    # sin is odd, cos is even: PE(-t) mirrors PE(t)
    pos, neg = sinusoidal_pe([1.5], 10)[0], sinusoidal_pe([-1.5], 10)[0]
    np.testing.assert_allclose(neg[0::2], -pos[0::2], atol=1e-13)
    np.testing.assert_allclose(neg[1::2], pos[1::2], atol=1e-13)


def test_rows_unique_for_50_positions():
    pe = sinusoidal_pe(50, 128)
    distances = np.linalg.norm(pe[:, None, :] - pe[None, :, :], axis=-1)
    off_diagonal = distances[~np.eye(50, dtype=bool)]
    assert off_diagonal.min() > 0.5
    assert np.unique(pe.round(10), axis=0).shape[0] == 50


def test_float32_stays_accurate_at_large_positions():
    t = np.array([1e6, 1e6 + 0.5, 1e6 + 17.0])
    d = 64
    pe32 = sinusoidal_pe(t, d, dtype=np.float32)
    assert pe32.dtype == np.float32
    pe64 = sinusoidal_pe(t, d)
    assert np.max(np.abs(pe32.astype(np.float64) - pe64)) < 1e-6
    k = np.arange(d // 2)
    exact_sin = np.sin(np.outer(t, 10000.0 ** (-2 * k / d)))
    assert np.max(np.abs(pe32[:, 0::2].astype(np.float64) - exact_sin)) < 1e-6


# ----------------------------------------------------------------------- rotation_matrix


@FAST
@given(m=angles, n=angles)
def test_rotation_relative_property(m, n):
    np.testing.assert_allclose(rotation_matrix(m), explicit_rotation(m), atol=1e-14)
    lhs = rotation_matrix(m).T @ rotation_matrix(n)
    np.testing.assert_allclose(lhs, explicit_rotation(n - m), atol=1e-11)
    np.testing.assert_allclose(lhs, rotation_matrix(n - m), atol=1e-11)


# ------------------------------------------------------------------------ block_rotation


@FAST
@given(theta=st.lists(angles, min_size=1, max_size=6))
def test_block_rotation_layout(theta):
    b = block_rotation(theta)
    size = 2 * len(theta)
    assert b.shape == (size, size)
    expected = np.zeros((size, size))
    for k, angle in enumerate(theta):
        expected[2 * k : 2 * k + 2, 2 * k : 2 * k + 2] = explicit_rotation(angle)
    np.testing.assert_allclose(b, expected, atol=1e-15)
    np.testing.assert_allclose(b.T @ b, np.eye(size), atol=1e-13)


# ------------------------------------------------------------------------ shift_operator


def explicit_shift(delta, d_model, base=10000.0):
    """Per pair: [[cos, sin], [-sin, cos]] of w_k * delta, for the (sin, cos) layout."""
    out = np.zeros((d_model, d_model))
    for k in range(d_model // 2):
        a = delta * base ** (-2.0 * k / d_model)
        c, s = math.cos(a), math.sin(a)
        out[2 * k : 2 * k + 2, 2 * k : 2 * k + 2] = [[c, s], [-s, c]]
    return out


@FAST
@given(t=offsets, delta=offsets, d_model=st.sampled_from([2, 8, 32, 128]))
def test_shift_operator_moves_pe(t, delta, d_model):
    op = shift_operator(delta, d_model)
    np.testing.assert_allclose(
        op @ explicit_pe([t], d_model)[0], explicit_pe([t + delta], d_model)[0], atol=1e-10
    )
    np.testing.assert_allclose(op, explicit_shift(delta, d_model), atol=1e-13)


@FAST
@given(d1=offsets, d2=offsets)
def test_shift_operators_are_orthogonal_and_compose(d1, d2):
    op = shift_operator(d1, 24)
    np.testing.assert_allclose(op.T @ op, np.eye(24), atol=1e-13)
    np.testing.assert_allclose(op.T, shift_operator(-d1, 24), atol=1e-13)
    lhs = op @ shift_operator(d2, 24)
    np.testing.assert_allclose(lhs, shift_operator(d1 + d2, 24), atol=1e-11)


def cos_sum(delta, d_model, base=10000.0):
    return sum(math.cos(delta * base ** (-2.0 * k / d_model)) for k in range(d_model // 2))


@FAST
@given(t=offsets, s=offsets, delta=offsets)
def test_dot_product_depends_on_offset_only(t, s, delta):
    d = 32
    pe = sinusoidal_pe([t, t + delta, s, s + delta, s - delta], d)
    expected = cos_sum(delta, d)
    assert pe[0] @ pe[1] == pytest.approx(expected, abs=1e-9)
    assert pe[2] @ pe[3] == pytest.approx(expected, abs=1e-9)
    # even in delta: PE(s) . PE(s - delta) is the same number
    assert pe[2] @ pe[4] == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(("delta", "expected"), [(0, 64.0), (1, 62.09), (10, 42.82)])
@pytest.mark.parametrize("t", [0.0, 5.0, 123.0, -77.5])
def test_dot_product_reference_values(t, delta, expected):
    pe = sinusoidal_pe([t, t + delta], 128, base=10000.0)
    assert pe[0] @ pe[1] == pytest.approx(expected, abs=0.01)
    assert pe[0] @ pe[1] == pytest.approx(cos_sum(delta, 128), abs=1e-10)
