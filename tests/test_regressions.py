"""Regression tests for the classic positional-encoding bugs.

Each test builds the buggy variant by hand, shows that a property check
catches it, and shows that the real helper passes the same check.
"""

from __future__ import annotations

import numpy as np
import pytest

from pe_helpers import (
    apply_rope,
    relative_deviation,
    shift_operator,
    sinusoidal_pe,
)

N, D, BASE = 50, 128, 10000.0


def gram_deviation(pe):
    return relative_deviation(pe @ pe.T)


def maps_forward(op, pe_at, t, delta):
    """Does ``op`` send the encoding of every t to the encoding of t + delta?"""
    return np.allclose(pe_at(t) @ op.T, pe_at(t + delta), atol=1e-9)


# (1) exponent 2i per column instead of 2k per pair -------------------------------------


def pe_column_exponent(n, d, base=BASE):
    """Buggy: w_i = base**(-2i/d) for column i, so a pair's sin and cos disagree."""
    t = np.arange(n, dtype=float)[:, None]
    i = np.arange(d)[None, :]
    angles = t * base ** (-2.0 * i / d)
    return np.where(i % 2 == 0, np.sin(angles), np.cos(angles))


def test_column_exponent_breaks_toeplitz_gram():
    buggy = pe_column_exponent(N, D)
    assert gram_deviation(buggy) > 1e-3
    assert gram_deviation(sinusoidal_pe(N, D, base=BASE)) < 1e-9


# (2) odd d_model -------------------------------------------------------------------------


def pe_silently_padded(n, d, base=BASE):
    """Buggy: accept odd d by building d // 2 pairs and padding with a zero column."""
    pairs = d // 2
    t = np.arange(n, dtype=float)[:, None]
    angles = t * base ** (-2.0 * np.arange(pairs) / (2 * pairs))
    out = np.zeros((n, d))
    out[:, 0 : 2 * pairs : 2] = np.sin(angles)
    out[:, 1 : 2 * pairs : 2] = np.cos(angles)
    return out


def every_row_has_norm_sqrt_half_d(pe):
    d = pe.shape[1]
    return np.allclose((pe**2).sum(axis=1), d / 2)


@pytest.mark.parametrize("d", [1, 3, 7, 127])
def test_odd_d_model_raises(d):
    assert not every_row_has_norm_sqrt_half_d(pe_silently_padded(10, d))
    with pytest.raises(ValueError, match=r"\bd_model\b"):
        sinusoidal_pe(10, d)
    assert every_row_has_norm_sqrt_half_d(sinusoidal_pe(10, d + 1))


# (3) sin and cos swapped ---------------------------------------------------------------


def pe_swapped(t, d, base=BASE):
    """Buggy: cos on even columns and sin on odd ones."""
    angles = np.multiply.outer(np.asarray(t, dtype=float), base ** (-2.0 * np.arange(d // 2) / d))
    out = np.empty((angles.shape[0], d))
    out[:, 0::2] = np.cos(angles)
    out[:, 1::2] = np.sin(angles)
    return out


@pytest.mark.parametrize("delta", [1.0, -2.5, 7.25])
def test_swapped_sin_cos_breaks_shift_operator(delta):
    t = np.array([0.0, 1.0, 3.5, -4.0, 20.0])
    op = shift_operator(delta, 16)
    assert not maps_forward(op, lambda s: pe_swapped(s, 16), t, delta)
    assert maps_forward(op, lambda s: sinusoidal_pe(s, 16), t, delta)
    # the Gram matrix alone cannot see this bug: it is still Toeplitz
    assert gram_deviation(pe_swapped(np.arange(30), 16)) < 1e-9


# (4) the seed's sign error ---------------------------------------------------------------


def pairs_sin_cos(t, w):
    return np.stack([np.sin(w * t), np.cos(w * t)], axis=-1)


def pairs_cos_sin(t, w):
    return np.stack([np.cos(w * t), np.sin(w * t)], axis=-1)


def minus_sin_top_right(a):
    return np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])


def plus_sin_top_right(a):
    return np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]])


@pytest.mark.parametrize("w", [1.0, 0.3, 0.01])
@pytest.mark.parametrize("delta", [0.5, 1.0, -3.0])
def test_rotation_sign_depends_on_pair_order(w, delta):
    t = np.array([0.0, 0.7, 2.0, -5.0, 11.0])
    a = w * delta

    def moves(matrix, pairs):
        return np.allclose(pairs(t, w) @ matrix.T, pairs(t + delta, w), atol=1e-12)

    assert not moves(minus_sin_top_right(a), pairs_sin_cos)  # the seed's bug
    assert moves(minus_sin_top_right(a), pairs_cos_sin)
    assert moves(plus_sin_top_right(a), pairs_sin_cos)  # shift_operator's blocks (test_encodings)


# (5) mixing RoPE layouts -----------------------------------------------------------------


def fixed_vector_scores(q, k, n, q_pairing, k_pairing):
    rq = apply_rope(np.tile(q, (n, 1)), pairing=q_pairing)
    rk = apply_rope(np.tile(k, (n, 1)), pairing=k_pairing)
    return rq @ rk.T


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mixed_rope_layouts_break_relative_scores(seed):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal(16), rng.standard_normal(16)
    mixed = fixed_vector_scores(q, k, 24, "adjacent", "halves")
    assert relative_deviation(mixed) > 0.01
    for pairing in ("adjacent", "halves"):
        consistent = fixed_vector_scores(q, k, 24, pairing, pairing)
        assert relative_deviation(consistent) < 1e-9
