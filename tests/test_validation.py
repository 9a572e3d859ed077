"""Bad inputs at the doors of the concept maths raise TypeError or ValueError naming the argument.

TypeError means a value of the wrong kind; ValueError a value of the right kind but out of
range. The tests pin the error's type and the parameter's name, never the sentence.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from pe_helpers import (
    apply_rope,
    attention,
    causal_mask,
    frequencies,
    halves_permutation,
    relative_deviation,
    rope_matrix,
    rope_score_bound,
    rope_scores,
    rotation_matrix,
    score_terms,
    shift_operator,
    sinusoidal_pe,
    softmax,
)


def named(name: str) -> str:
    """A regex matching ``name`` as a whole argument name (``x`` but not ``max``)."""
    return rf"(?<![\w.]){re.escape(name)}(?!\w)"


ONES = np.ones((2, 4))
RAGGED = [[1.0, 2.0], [3.0]]
TIMEDELTAS = np.array([1, 2], dtype="timedelta64[s]")
BLOCKED = causal_mask(3).copy()
BLOCKED[1] = False

# (call, error, the argument the message must name)
BAD_CALLS = {
    # d_model: positive, even, an integer
    "d_model odd": (lambda: frequencies(3), ValueError, "d_model"),
    "d_model zero": (lambda: sinusoidal_pe(4, 0), ValueError, "d_model"),
    "d_model negative": (lambda: shift_operator(1.0, -4), ValueError, "d_model"),
    "d_model float": (lambda: rope_matrix(2, 4.0), TypeError, "d_model"),
    "d_model bool": (lambda: halves_permutation(True), TypeError, "d_model"),
    "d_model numpy bool": (lambda: frequencies(np.True_), TypeError, "d_model"),
    "d_model text": (lambda: frequencies("8"), TypeError, "d_model"),
    "d_model timedelta": (lambda: sinusoidal_pe(3, np.timedelta64(8)), TypeError, "d_model"),
    "d_model 10**400": (lambda: frequencies(10**400), ValueError, "d_model"),
    # positions: a count or a finite 1-D real array
    "count negative": (lambda: sinusoidal_pe(-1, 8), ValueError, "positions"),
    "count float": (lambda: sinusoidal_pe(2.5, 8), TypeError, "positions"),
    "count bool": (lambda: sinusoidal_pe(False, 8), TypeError, "positions"),
    "count text": (lambda: sinusoidal_pe("3", 8), TypeError, "positions"),
    "count timedelta": (lambda: sinusoidal_pe(np.timedelta64(3), 8), TypeError, "positions"),
    "positions nan": (lambda: sinusoidal_pe([0.0, np.nan], 8), ValueError, "positions"),
    "positions -inf": (lambda: sinusoidal_pe([-np.inf], 8), ValueError, "positions"),
    "positions 2-D": (lambda: sinusoidal_pe([[0, 1], [2, 3]], 8), ValueError, "positions"),
    "positions text": (lambda: sinusoidal_pe(["a", "b"], 8), TypeError, "positions"),
    "positions ragged": (lambda: sinusoidal_pe(RAGGED, 8), ValueError, "positions"),
    "positions timedeltas": (lambda: sinusoidal_pe(TIMEDELTAS, 8), TypeError, "positions"),
    # base: a finite number > 0
    "base zero": (lambda: frequencies(8, base=0), ValueError, "base"),
    "base negative": (lambda: sinusoidal_pe(3, 8, base=-10.0), ValueError, "base"),
    "base nan": (lambda: shift_operator(1.0, 8, base=np.nan), ValueError, "base"),
    "base inf": (lambda: apply_rope(ONES, base=np.inf), ValueError, "base"),
    "base text": (lambda: rope_matrix(1, 8, base="10000"), TypeError, "base"),
    "base None": (lambda: frequencies(8, base=None), TypeError, "base"),
    "base timedelta": (lambda: frequencies(8, np.timedelta64(100)), TypeError, "base"),
    # dtype: a floating dtype
    "dtype int": (lambda: sinusoidal_pe(3, 4, dtype=int), TypeError, "dtype"),
    "dtype int64 name": (lambda: sinusoidal_pe(3, 4, dtype="int64"), TypeError, "dtype"),
    "dtype complex": (lambda: sinusoidal_pe(3, 4, dtype=np.complex128), TypeError, "dtype"),
    "dtype unknown": (lambda: sinusoidal_pe(3, 4, dtype="floaty"), TypeError, "dtype"),
    # apply_rope
    "x odd width": (lambda: apply_rope(np.ones((2, 3))), ValueError, "x.shape[-1]"),
    "x 1-D": (lambda: apply_rope(np.ones(4)), ValueError, "x"),
    "x text": (lambda: apply_rope([["a", "b"]]), TypeError, "x"),
    "x nan": (lambda: apply_rope([[1.0, np.nan]]), ValueError, "x"),
    "x ragged": (lambda: apply_rope(RAGGED), ValueError, "x"),
    "rope positions short": (lambda: apply_rope(np.ones((3, 4)), [0.0, 1.0]), ValueError,
                             "positions"),
    "rope positions nan": (lambda: apply_rope(ONES, [0.0, np.nan]), ValueError, "positions"),
    "rope positions 2-D": (lambda: apply_rope(ONES, [[0.0, 1.0]]), ValueError, "positions"),
    "rope positions ragged": (lambda: apply_rope(ONES, RAGGED), ValueError, "positions"),
    "rope positions int": (lambda: apply_rope(ONES[:1], 1), TypeError, "positions"),
    "rope positions np.int64": (lambda: apply_rope(ONES[:1], np.int64(1)), TypeError,
                                "positions"),
    "rope positions float": (lambda: apply_rope(ONES[:1], 1.0), TypeError, "positions"),
    "rope positions 0-D array": (lambda: apply_rope(ONES[:1], np.array(1)), TypeError,
                                 "positions"),
    "pairing unknown": (lambda: apply_rope(ONES, pairing="interleaved"), ValueError, "pairing"),
    "pairing None": (lambda: apply_rope(ONES, pairing=None), ValueError, "pairing"),
    # rope_scores and rope_score_bound
    "q ragged": (lambda: rope_scores(RAGGED, [1.0, 0.0], 2, 2), ValueError, "q"),
    "q and k widths": (lambda: rope_scores([1.0, 0.0], [1.0, 0.0, 0, 0], 2, 2), ValueError, "q"),
    "query_positions ragged": (lambda: rope_scores([1.0, 0.0], [1.0, 0.0], RAGGED, 2),
                               ValueError, "query_positions"),
    "query_positions empty": (lambda: rope_scores([1.0, 0.0], [1.0, 0.0], 0, 3), ValueError,
                              "query_positions"),
    "key_positions empty": (lambda: rope_scores([1.0, 0.0], [1.0, 0.0], 3, []), ValueError,
                            "key_positions"),
    "distances ragged": (lambda: rope_score_bound(RAGGED, 4), ValueError, "distances"),
    "distances timedeltas": (lambda: rope_score_bound(TIMEDELTAS, 4), TypeError, "distances"),
    # attention
    "q and k last axes": (lambda: attention(np.ones((3, 4)), np.ones((3, 5)), np.ones((3, 2))),
                          ValueError, "q"),
    "k and v rows": (lambda: attention(np.ones((2, 4)), np.ones((3, 4)), np.ones((5, 4))),
                     ValueError, "k"),
    "q 1-D": (lambda: attention(np.ones(4), ONES, ONES), ValueError, "q"),
    "k 1-D": (lambda: attention(ONES, np.ones(4), ONES), ValueError, "k"),
    "v 1-D": (lambda: attention(ONES, ONES, np.ones(4)), ValueError, "v"),
    "v ragged": (lambda: attention(np.ones((2, 2)), np.ones((2, 2)), RAGGED), ValueError, "v"),
    "q complex": (lambda: attention(np.ones((2, 2)) * 1j, np.ones((2, 2)), np.ones((2, 2))),
                  TypeError, "q"),
    "mask of ints": (lambda: attention(ONES, ONES, ONES, np.ones((2, 2), dtype=int)), TypeError,
                     "mask"),
    "mask of floats": (lambda: attention(ONES, ONES, ONES, np.ones((2, 2))), TypeError, "mask"),
    "mask shape": (lambda: attention(ONES, ONES, ONES, np.ones((3, 3), dtype=bool)), ValueError,
                   "mask"),
    "mask ragged": (lambda: attention(ONES, ONES, ONES, [[True], [True, False]]), ValueError,
                    "mask"),
    "mask blocks a row": (lambda: attention(np.ones((3, 4)), np.ones((3, 4)), np.ones((3, 4)),
                                            BLOCKED), ValueError, "mask"),
    # score_terms
    "e and p shapes": (lambda: score_terms(np.ones((3, 4)), ONES, np.eye(4), np.eye(4)),
                       ValueError, "e"),
    "w_q and w_k shapes": (lambda: score_terms(ONES, ONES, np.ones((4, 2)), np.ones((4, 3))),
                           ValueError, "w_q"),
    "w_q rows": (lambda: score_terms(ONES, ONES, np.ones((5, 2)), np.ones((5, 2))), ValueError,
                 "w_q"),
    "e 3-D": (lambda: score_terms(np.ones((1, 2, 4)), ONES, np.eye(4), np.eye(4)), ValueError,
              "e"),
    "w_k 3-D": (lambda: score_terms(ONES, ONES, np.eye(4), np.ones((1, 4, 4))), ValueError,
                "w_k"),
    "e ragged": (lambda: score_terms(RAGGED, np.ones((2, 2)), np.eye(2), np.eye(2)), ValueError,
                 "e"),
    # relative_deviation
    "scores 1-D": (lambda: relative_deviation(np.ones(5)), ValueError, "scores"),
    "scores 3-D": (lambda: relative_deviation(np.ones((2, 2, 2))), ValueError, "scores"),
    "scores inf": (lambda: relative_deviation([[1.0, np.inf], [0.0, 1.0]]), ValueError,
                   "scores"),
    "scores bools": (lambda: relative_deviation(np.ones((2, 2), dtype=bool)), TypeError,
                     "scores"),
    "scores ragged": (lambda: relative_deviation(RAGGED), ValueError, "scores"),
    # rotations and small helpers
    "theta text": (lambda: rotation_matrix("pi"), TypeError, "theta"),
    "theta None": (lambda: rotation_matrix(None), TypeError, "theta"),
    "theta nan": (lambda: rotation_matrix(np.nan), ValueError, "theta"),
    "theta timedelta": (lambda: rotation_matrix(np.timedelta64(1)), TypeError, "theta"),
    "delta text": (lambda: shift_operator("1", 8), TypeError, "delta"),
    "delta inf": (lambda: shift_operator(np.inf, 8), ValueError, "delta"),
    "delta complex": (lambda: shift_operator(1 + 1j, 4), TypeError, "delta"),
    "position nan": (lambda: rope_matrix(np.nan, 4), ValueError, "position"),
    "position complex": (lambda: rope_matrix(1 + 2j, 4), TypeError, "position"),
    "position date": (lambda: rope_matrix(np.datetime64("2020-01-01"), 4), TypeError,
                      "position"),
    "position text": (lambda: rope_matrix("3", 4), TypeError, "position"),
    "n zero": (lambda: causal_mask(0), ValueError, "n"),
    "n float": (lambda: causal_mask(2.0), TypeError, "n"),
    # softmax: real numbers, -inf allowed
    "softmax nan": (lambda: softmax([1.0, np.nan]), ValueError, "x"),
    "softmax +inf": (lambda: softmax([1.0, np.inf]), ValueError, "x"),
    "softmax empty": (lambda: softmax([]), ValueError, "x"),
    "softmax ragged": (lambda: softmax(RAGGED), ValueError, "x"),
    "softmax text": (lambda: softmax("abc"), TypeError, "x"),
    "softmax numeric text": (lambda: softmax(["1.0", "2.0"]), TypeError, "x"),
    "softmax complex": (lambda: softmax([1 + 0j, 2 + 0j]), TypeError, "x"),
    "softmax dates": (lambda: softmax(np.array(["2020-01-01"], dtype="datetime64[D]")),
                      TypeError, "x"),
    "softmax timedeltas": (lambda: softmax(TIMEDELTAS), TypeError, "x"),
    "softmax bools": (lambda: softmax([True, False]), TypeError, "x"),
    "softmax axis": (lambda: softmax([1.0, 2.0], 1), ValueError, "axis"),
    "softmax axis float": (lambda: softmax([1.0, 2.0], 0.5), TypeError, "axis"),
}  # fmt: skip


@pytest.mark.parametrize(("call", "error", "name"), BAD_CALLS.values(), ids=BAD_CALLS.keys())
def test_a_bad_argument_is_refused_naming_it(call, error, name):
    with pytest.raises(error, match=named(name)):
        call()


def test_numpy_integers_and_minus_infinity_are_accepted():
    assert sinusoidal_pe(3, np.int64(4)).shape == (3, 4)
    np.testing.assert_allclose(softmax(np.array([1, 1])), [0.5, 0.5])
    np.testing.assert_allclose(softmax([0.0, -np.inf]), [1.0, 0.0])


def test_log_axes_reject_values_they_cannot_draw():
    from pe_helpers.figures import plot_curves

    with pytest.raises(ValueError, match=named("x")):
        plot_curves([0.0, 1.0], {"a": [1.0, 2.0]}, xlabel="x", ylabel="y", logx=True)
    with pytest.raises(ValueError, match=named("curves")):
        plot_curves([1.0, 2.0], {"a": [0.0, 2.0]}, xlabel="x", ylabel="y", logy=True)
