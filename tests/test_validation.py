"""Bad inputs raise the documented error, naming the parameter and what it received.

TypeError means a value of the wrong kind; ValueError a value of the right
kind but out of range.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from pe_helpers import (
    apply_rope,
    attention,
    attention_weights,
    block_rotation,
    causal_mask,
    frequencies,
    halves_permutation,
    relative_deviation,
    rope_matrix,
    rotation_matrix,
    score_terms,
    shift_operator,
    sinusoidal_pe,
    softmax,
)


def says(*parts):
    """Regex matching the given literal fragments in order."""
    return ".*".join(re.escape(part) for part in parts)


# every helper that takes a d_model, called with a valid everything-else
D_MODEL_CALLS = {
    "frequencies": lambda d: frequencies(d),
    "sinusoidal_pe": lambda d: sinusoidal_pe(4, d),
    "shift_operator": lambda d: shift_operator(1.0, d),
    "rope_matrix": lambda d: rope_matrix(2, d),
    "halves_permutation": lambda d: halves_permutation(d),
}


# ------------------------------------------------------------------------------- d_model


@pytest.mark.parametrize("call", D_MODEL_CALLS.values(), ids=D_MODEL_CALLS.keys())
@pytest.mark.parametrize(
    ("bad", "error", "message"),
    [
        (3, ValueError, says("d_model must be even", "got 3")),
        (0, ValueError, says("d_model must be >= 1", "got 0")),
        (-4, ValueError, says("d_model must be >= 1", "got -4")),
        (4.0, TypeError, says("d_model must be an integer", "got 4.0")),
        (True, TypeError, says("d_model must be an integer", "got True")),
        ("8", TypeError, says("d_model must be an integer", "got '8'")),
    ],
)
def test_bad_d_model(call, bad, error, message):
    with pytest.raises(error, match=message):
        call(bad)


def test_numpy_integer_d_model_accepted():
    assert sinusoidal_pe(3, np.int64(4)).shape == (3, 4)
    with pytest.raises(TypeError, match=says("d_model must be an integer", f"got {np.True_!r}")):
        frequencies(np.True_)


# ----------------------------------------------------------------------------- positions


@pytest.mark.parametrize(
    ("bad", "error", "message"),
    [
        (-1, ValueError, says("positions must be >= 0", "got -1")),
        (2.5, TypeError, says("positions must be an integer", "got 2.5")),
        (False, TypeError, says("positions must be an integer", "got False")),
        ([0.0, np.nan], ValueError, says("positions must be finite", "nan")),
        ([1.0, np.inf], ValueError, says("positions must be finite", "inf")),
        ([-np.inf], ValueError, says("positions must be finite", "-inf")),
        ([[0, 1], [2, 3]], ValueError, says("positions must be 1-D", "(2, 2)")),
        (["a", "b"], TypeError, says("positions must be an int or a 1-D array", "['a', 'b']")),
        ("3", TypeError, says("positions must be an int or a 1-D array", "'3'")),
    ],
)
def test_bad_positions(bad, error, message):
    with pytest.raises(error, match=message):
        sinusoidal_pe(bad, 8)


def test_bad_positions_in_apply_rope():
    x = np.ones((2, 4))
    with pytest.raises(ValueError, match=says("positions must be finite", "nan")):
        apply_rope(x, positions=[0.0, np.nan])
    with pytest.raises(ValueError, match=says("positions must be 1-D", "(1, 2)")):
        apply_rope(x, positions=[[0.0, 1.0]])


# ---------------------------------------------------------------------------------- base


@pytest.mark.parametrize(
    ("bad", "error", "message"),
    [
        (0.0, ValueError, says("base must be > 0", "got 0.0")),
        (-10.0, ValueError, says("base must be > 0", "got -10.0")),
        (0, ValueError, says("base must be > 0", "got 0")),
        (float("nan"), ValueError, says("base must be finite", "got nan")),
        (float("inf"), ValueError, says("base must be finite", "got inf")),
        ("10000", TypeError, says("base must be a real number", "got '10000'")),
        (None, TypeError, says("base must be a real number", "got None")),
    ],
)
@pytest.mark.parametrize(
    "call",
    [
        lambda b: frequencies(8, base=b),
        lambda b: sinusoidal_pe(3, 8, base=b),
        lambda b: shift_operator(1.0, 8, base=b),
        lambda b: apply_rope(np.ones((2, 8)), base=b),
        lambda b: rope_matrix(1, 8, base=b),
    ],
    ids=["frequencies", "sinusoidal_pe", "shift_operator", "apply_rope", "rope_matrix"],
)
def test_bad_base(call, bad, error, message):
    with pytest.raises(error, match=message):
        call(bad)


# --------------------------------------------------------------------------------- dtype


@pytest.mark.parametrize(
    ("bad", "shown"),
    [
        (int, "<class 'int'>"),
        (np.int32, "<class 'numpy.int32'>"),
        ("int64", "'int64'"),
        (bool, "<class 'bool'>"),
        (np.complex128, "<class 'numpy.complex128'>"),
    ],
)
def test_non_floating_dtype(bad, shown):
    with pytest.raises(TypeError, match=says("dtype must be a floating dtype", f"got {shown}")):
        sinusoidal_pe(3, 4, dtype=bad)


def test_unparseable_dtype():
    with pytest.raises(TypeError, match=says("dtype must be a floating dtype", "got 'floaty'")):
        sinusoidal_pe(3, 4, dtype="floaty")


# ---------------------------------------------------------------------------- apply_rope


def test_apply_rope_odd_width():
    with pytest.raises(ValueError, match=says("x.shape[-1] must be even", "got 3")):
        apply_rope(np.ones((2, 3)))


def test_apply_rope_one_dimensional_x():
    with pytest.raises(ValueError, match=says("x must have at least 2 dimension(s)", "(4,)")):
        apply_rope(np.ones(4))


def test_apply_rope_non_numeric_x():
    with pytest.raises(TypeError, match=says("x must be an array of real numbers", "'a'")):
        apply_rope([["a", "b"]])


def test_apply_rope_non_finite_x():
    with pytest.raises(ValueError, match=says("x must be finite")):
        apply_rope([[1.0, np.nan]])


@pytest.mark.parametrize(("positions", "got"), [([0.0, 1.0], 2), (np.arange(4), 4)])
def test_apply_rope_positions_wrong_length(positions, got):
    with pytest.raises(
        ValueError, match=says("positions must have one entry per row of x (3)", f"got {got}")
    ):
        apply_rope(np.ones((3, 4)), positions=positions)


@pytest.mark.parametrize("pairing", ["interleaved", "Adjacent", "", None])
def test_apply_rope_unknown_pairing(pairing):
    with pytest.raises(ValueError, match=says("pairing must be one of", "got", repr(pairing))):
        apply_rope(np.ones((2, 4)), pairing=pairing)


# ------------------------------------------------------------------------------ attention


def test_attention_mismatched_widths():
    q, k, v = np.ones((3, 4)), np.ones((3, 5)), np.ones((3, 2))
    with pytest.raises(
        ValueError, match=says("q and k must have the same last dimension", "(3, 4)", "(3, 5)")
    ):
        attention(q, k, v)
    with pytest.raises(ValueError, match=says("q and k", "(3, 4)", "(3, 5)")):
        attention_weights(q, k)


def test_attention_k_v_row_mismatch():
    q, k, v = np.ones((2, 4)), np.ones((3, 4)), np.ones((5, 4))
    with pytest.raises(
        ValueError, match=says("k and v must have the same number of rows", "(3, 4)", "(5, 4)")
    ):
        attention(q, k, v)


@pytest.mark.parametrize("name", ["q", "k", "v"])
def test_attention_one_dimensional_inputs(name):
    args = {"q": np.ones((2, 4)), "k": np.ones((2, 4)), "v": np.ones((2, 4))}
    args[name] = np.ones(4)
    with pytest.raises(ValueError, match=says(f"{name} must have at least 2", "(4,)")):
        attention(**args)


@pytest.mark.parametrize("mask", [np.ones((2, 2), dtype=int), np.ones((2, 2)), [[1, 0], [1, 1]]])
def test_attention_non_bool_mask(mask):
    x = np.ones((2, 4))
    dtype = np.asarray(mask).dtype
    with pytest.raises(TypeError, match=says("mask must be a boolean array", f"got dtype {dtype}")):
        attention(x, x, x, mask)


def test_attention_mask_of_wrong_shape():
    x = np.ones((2, 4))
    with pytest.raises(ValueError, match=says("mask of shape (3, 3)", "scores of shape (2, 2)")):
        attention(x, x, x, np.ones((3, 3), dtype=bool))


def test_attention_mask_blocking_a_whole_row():
    x = np.ones((3, 4))
    mask = causal_mask(3)
    mask[1] = False
    with pytest.raises(ValueError, match=says("mask must allow every query at least one key")):
        attention(x, x, x, mask)
    with pytest.raises(ValueError, match="mask"):
        attention_weights(x, x, np.zeros((3, 3), dtype=bool))


# -------------------------------------------------------------------------- score_terms


def test_score_terms_mismatched_e_p():
    w = np.ones((4, 2))
    with pytest.raises(
        ValueError, match=says("e and p must have the same shape", "(3, 4)", "(2, 4)")
    ):
        score_terms(np.ones((3, 4)), np.ones((2, 4)), w, w)


def test_score_terms_mismatched_projections():
    e = np.ones((3, 4))
    with pytest.raises(
        ValueError, match=says("w_q and w_k must both have shape (4, d_k)", "(4, 2)", "(4, 3)")
    ):
        score_terms(e, e, np.ones((4, 2)), np.ones((4, 3)))
    with pytest.raises(ValueError, match=says("w_q and w_k", "(5, 2)", "(5, 2)")):
        score_terms(e, e, np.ones((5, 2)), np.ones((5, 2)))


@pytest.mark.parametrize("name", ["e", "p", "w_q", "w_k"])
def test_score_terms_requires_2d(name):
    args = {
        "e": np.ones((3, 4)),
        "p": np.ones((3, 4)),
        "w_q": np.ones((4, 2)),
        "w_k": np.ones((4, 2)),
    }
    args[name] = np.ones((1,) + args[name].shape)
    with pytest.raises(ValueError, match=says(f"{name} must be 2-D", "got shape (1, ")):
        score_terms(**args)


# -------------------------------------------------------------------- relative_deviation


def test_relative_deviation_one_dimensional():
    with pytest.raises(ValueError, match=says("scores must be 2-D", "got shape (5,)")):
        relative_deviation(np.ones(5))


def test_relative_deviation_three_dimensional():
    with pytest.raises(ValueError, match=says("scores must be 2-D", "(2, 2, 2)")):
        relative_deviation(np.ones((2, 2, 2)))


def test_relative_deviation_non_finite():
    with pytest.raises(ValueError, match=says("scores must be finite")):
        relative_deviation([[1.0, np.inf], [0.0, 1.0]])


# ------------------------------------------------------------- rotations and small helpers


@pytest.mark.parametrize(
    ("bad", "error", "message"),
    [
        ("pi", TypeError, says("theta must be a real number", "got 'pi'")),
        (None, TypeError, says("theta must be a real number", "got None")),
        (np.nan, ValueError, says("theta must be finite", "got nan")),
    ],
)
def test_rotation_matrix_bad_theta(bad, error, message):
    with pytest.raises(error, match=message):
        rotation_matrix(bad)


def test_shift_operator_bad_delta():
    with pytest.raises(TypeError, match=says("delta must be a real number", "got '1'")):
        shift_operator("1", 8)
    with pytest.raises(ValueError, match=says("delta must be finite", "got inf")):
        shift_operator(np.inf, 8)


def test_block_rotation_bad_angles():
    with pytest.raises(ValueError, match=says("angles must be finite", "nan")):
        block_rotation([0.0, np.nan])
    with pytest.raises(ValueError, match=says("angles must be 1-D", "(1, 2)")):
        block_rotation([[0.0, 1.0]])


def test_rope_matrix_bad_position():
    with pytest.raises(ValueError, match=says("position must be finite", "nan")):
        rope_matrix(np.nan, 4)


@pytest.mark.parametrize(
    ("bad", "error", "message"),
    [
        (0, ValueError, says("n must be >= 1", "got 0")),
        (-3, ValueError, says("n must be >= 1", "got -3")),
        (2.0, TypeError, says("n must be an integer", "got 2.0")),
    ],
)
def test_causal_mask_bad_n(bad, error, message):
    with pytest.raises(error, match=message):
        causal_mask(bad)


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        (([1.0, np.nan],), ValueError, "x must not contain NaN or \\+inf"),
        (([1.0, np.inf],), ValueError, "x must not contain NaN or \\+inf"),
        (([1.0, 2.0], 1), ValueError, says("axis must index one of the 1 dimensions", "got 1")),
        (([1.0, 2.0], 0.5), TypeError, says("axis must be an integer", "got 0.5")),
    ],
)
def test_softmax_bad_input(args, error, message):
    with pytest.raises(error, match=message):
        softmax(*args)


# --- added after review: inputs that used to slip through or fail with numpy's own message ------
def test_block_rotation_rejects_a_scalar_naming_angles():
    from pe_helpers import block_rotation

    for bad in (2, 1.5):
        with pytest.raises(ValueError, match=r"angles must be 1-D, got shape \(\)"):
            block_rotation(bad)
    with pytest.raises(ValueError, match=r"angles must be 1-D, got shape \(2, 2\)"):
        block_rotation(np.zeros((2, 2)))


def test_softmax_rejects_empty_or_non_numeric_input():
    with pytest.raises(ValueError, match=r"x must not be empty, got shape \(0,\)"):
        softmax([])
    with pytest.raises(TypeError, match="x must be an array of real numbers, got 'abc'"):
        softmax("abc")


def test_log_axes_reject_values_they_cannot_draw():
    from pe_helpers.figures import plot_curves

    with pytest.raises(ValueError, match="x must be > 0 on a log axis"):
        plot_curves([0.0, 1.0], {"a": [1.0, 2.0]}, xlabel="x", ylabel="y", logx=True)
    with pytest.raises(ValueError, match=r"curves\['a'\] must be > 0 on a log axis"):
        plot_curves([1.0, 2.0], {"a": [0.0, 2.0]}, xlabel="x", ylabel="y", logy=True)
