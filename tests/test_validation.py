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
    relative_deviation,
    rope_matrix,
    rope_score_bound,
    rope_scores,
    rotation_matrix,
    score_terms,
    sinusoidal_pe,
    softmax,
)


def named(name: str) -> str:
    """A regex matching ``name`` as a whole argument name (``x`` but not ``max``)."""
    return rf"(?<![\w.]){re.escape(name)}(?!\w)"


ONES = np.ones((2, 4))
TIMEDELTAS = np.array([1, 2], dtype="timedelta64[s]")
BLOCKED = causal_mask(3).copy()
BLOCKED[1] = False

# (call, error, the argument the message must name)
BAD_CALLS = {
    # d_model: positive, even, an integer
    "d_model odd": (lambda: frequencies(3), ValueError, "d_model"),
    "d_model numpy bool": (lambda: frequencies(np.True_), TypeError, "d_model"),
    "d_model timedelta": (lambda: sinusoidal_pe(3, np.timedelta64(8)), TypeError, "d_model"),
    # positions: a count or a finite 1-D real array
    "count timedelta": (lambda: sinusoidal_pe(np.timedelta64(3), 8), TypeError, "positions"),
    "positions nan": (lambda: sinusoidal_pe([0.0, np.nan], 8), ValueError, "positions"),
    "positions -inf": (lambda: sinusoidal_pe([-np.inf], 8), ValueError, "positions"),
    "positions 2-D": (lambda: sinusoidal_pe([[0, 1], [2, 3]], 8), ValueError, "positions"),
    "positions timedeltas": (lambda: sinusoidal_pe(TIMEDELTAS, 8), TypeError, "positions"),
    # base: a finite number > 0
    "base timedelta": (lambda: frequencies(8, np.timedelta64(100)), TypeError, "base"),
    # dtype: a floating dtype
    "dtype int": (lambda: sinusoidal_pe(3, 4, dtype=int), TypeError, "dtype"),
    "dtype int64 name": (lambda: sinusoidal_pe(3, 4, dtype="int64"), TypeError, "dtype"),
    "dtype complex": (lambda: sinusoidal_pe(3, 4, dtype=np.complex128), TypeError, "dtype"),
    # apply_rope
    "x odd width": (lambda: apply_rope(np.ones((2, 3))), ValueError, "x.shape[-1]"),
    "x 1-D": (lambda: apply_rope(np.ones(4)), ValueError, "x"),
    "x nan": (lambda: apply_rope([[1.0, np.nan]]), ValueError, "x"),
    "rope positions short": (lambda: apply_rope(np.ones((3, 4)), [0.0, 1.0]), ValueError,
                             "positions"),
    "rope positions nan": (lambda: apply_rope(ONES, [0.0, np.nan]), ValueError, "positions"),
    "rope positions 2-D": (lambda: apply_rope(ONES, [[0.0, 1.0]]), ValueError, "positions"),
    "rope positions np.int64": (lambda: apply_rope(ONES[:1], np.int64(1)), TypeError,
                                "positions"),
    "rope positions 0-D array": (lambda: apply_rope(ONES[:1], np.array(1)), TypeError,
                                 "positions"),
    # rope_scores and rope_score_bound
    "q and k widths": (lambda: rope_scores([1.0, 0.0], [1.0, 0.0, 0, 0], 2, 2), ValueError, "q"),
    "distances timedeltas": (lambda: rope_score_bound(TIMEDELTAS, 4), TypeError, "distances"),
    # attention
    "q and k last axes": (lambda: attention(np.ones((3, 4)), np.ones((3, 5)), np.ones((3, 2))),
                          ValueError, "q"),
    "k and v rows": (lambda: attention(np.ones((2, 4)), np.ones((3, 4)), np.ones((5, 4))),
                     ValueError, "k"),
    "q 1-D": (lambda: attention(np.ones(4), ONES, ONES), ValueError, "q"),
    "k 1-D": (lambda: attention(ONES, np.ones(4), ONES), ValueError, "k"),
    "v 1-D": (lambda: attention(ONES, ONES, np.ones(4)), ValueError, "v"),
    "q complex": (lambda: attention(np.ones((2, 2)) * 1j, np.ones((2, 2)), np.ones((2, 2))),
                  TypeError, "q"),
    "mask of ints": (lambda: attention(ONES, ONES, ONES, np.ones((2, 2), dtype=int)), TypeError,
                     "mask"),
    "mask of floats": (lambda: attention(ONES, ONES, ONES, np.ones((2, 2))), TypeError, "mask"),
    "mask shape": (lambda: attention(ONES, ONES, ONES, np.ones((3, 3), dtype=bool)), ValueError,
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
    # relative_deviation
    "scores 1-D": (lambda: relative_deviation(np.ones(5)), ValueError, "scores"),
    "scores 3-D": (lambda: relative_deviation(np.ones((2, 2, 2))), ValueError, "scores"),
    "scores inf": (lambda: relative_deviation([[1.0, np.inf], [0.0, 1.0]]), ValueError,
                   "scores"),
    "scores bools": (lambda: relative_deviation(np.ones((2, 2), dtype=bool)), TypeError,
                     "scores"),
    # rotations and small helpers
    "theta timedelta": (lambda: rotation_matrix(np.timedelta64(1)), TypeError, "theta"),
    "position date": (lambda: rope_matrix(np.datetime64("2020-01-01"), 4), TypeError,
                      "position"),
    # softmax: real numbers, -inf allowed
    "softmax nan": (lambda: softmax([1.0, np.nan]), ValueError, "x"),
    "softmax +inf": (lambda: softmax([1.0, np.inf]), ValueError, "x"),
    "softmax complex": (lambda: softmax([1 + 0j, 2 + 0j]), TypeError, "x"),
    "softmax dates": (lambda: softmax(np.array(["2020-01-01"], dtype="datetime64[D]")),
                      TypeError, "x"),
    "softmax timedeltas": (lambda: softmax(TIMEDELTAS), TypeError, "x"),
    "softmax bools": (lambda: softmax([True, False]), TypeError, "x"),
    "softmax axis": (lambda: softmax([1.0, 2.0], 1), ValueError, "axis"),
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
