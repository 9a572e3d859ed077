"""Lesson 01 · Why attention needs position: its helpers, figures and checkers.

Expected values are rebuilt here with plain loops or closed forms, never by calling the
function under test.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest

from pe_helpers.attention import attention, causal_mask
from pe_helpers.lessons import why_position as lesson
from pe_helpers.live import snapshot

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "01_why_position.ipynb"


# --- the lesson's shape (its sections: test_course_shape) -------------------------------------
def test_the_recurrence_slider_is_the_first_live_figure_in_one_compared_cell():
    text = ["".join(c["source"]) for c in json.loads(NOTEBOOK.read_text("utf-8"))["cells"]]
    views = [i for i, t in enumerate(text) if ".view(" in t]
    assert views and "RecurrenceWeights().view(" in text[views[0]]
    # One cell for the figure: no static twin, and its output (a summary) is compared.
    assert not any("RecurrenceWeights().draw(" in t for t in text)
    assert "NBVAL_IGNORE_OUTPUT" not in text[views[0]]


# --- serial compute, measured ------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 7, 33])
def test_recurrent_layer_runs_the_loop_and_counts_a_chain_of_n(n):
    rng = np.random.default_rng(n)
    d = 3
    x, w_h, w_x = rng.normal(size=(n, d)), rng.normal(size=(d, d)), rng.normal(size=(d, d))
    run = lesson.recurrent_layer(x, w_h, w_x)
    h, expected = np.zeros(d), []
    for row in x:
        h = np.tanh(h @ w_h + row @ w_x)
        expected.append(h)
    assert np.allclose(run.outputs, expected)
    assert (run.products, run.chain, run.multiply_adds) == (n + 1, n, 2 * n * d * d)


@pytest.mark.parametrize("n", [1, 2, 7, 33])
def test_attention_layer_matches_attention_and_its_chain_does_not_grow(n):
    rng = np.random.default_rng(n)
    d = 4
    x = rng.normal(size=(n, d))
    w_q, w_k, w_v = (rng.normal(size=(d, d)) for _ in range(3))
    run = lesson.attention_layer(x, w_q, w_k, w_v)
    assert np.allclose(run.outputs, attention(x @ w_q, x @ w_k, x @ w_v))
    assert (run.products, run.chain) == (5, 3)
    assert run.multiply_adds == 3 * n * d * d + 2 * n * n * d


# Wrong kinds, NaN, empty, ragged and huge values at every door: tests/test_fuzz_inputs.py.
@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: lesson.recurrent_layer(np.ones((2, 3)), np.eye(2), np.eye(3)), "w_h"),
        (lambda: lesson.attention_layer(np.zeros((3000, 2)), *[np.eye(2)] * 3), "x"),
        (lambda: lesson.recurrence_weights(1.5, 3), "decay"),
        (lambda: lesson.recurrence_states(np.zeros(200_000), 0.5), "inputs"),
    ],
)
def test_the_layers_and_the_recurrence_refuse_sizes_out_of_range(call, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        call()


# --- permutations and the causal mask ----------------------------------------------------------
def test_attention_is_permutation_equivariant_for_every_order_of_four_tokens():
    x = np.random.default_rng(5).normal(size=(4, 3))
    out = attention(x, x, x)
    for order in itertools.permutations(range(4)):
        xs = x[list(order)]
        assert np.allclose(attention(xs, xs, xs), out[list(order)])


def test_a_causal_mask_breaks_equivariance_and_separates_repeated_words():
    x = np.random.default_rng(6).normal(size=(4, 3))
    out = attention(x, x, x, mask=causal_mask(4))
    order = [3, 0, 1, 2]
    assert not np.allclose(attention(x[order], x[order], x[order], mask=causal_mask(4)), out[order])
    seq = np.vstack([x[:1], np.repeat(x[1:2], 3, axis=0)])
    causal = attention(seq, seq, seq, mask=causal_mask(4))[1:]
    assert np.allclose(attention(seq, seq, seq)[1:], attention(seq, seq, seq)[1])
    assert not np.allclose(causal, causal[0])


# --- the recurrence ----------------------------------------------------------------------------
def test_recurrence_states_follow_the_recursion_step_by_step():
    x = np.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0], [-2.0, 1.0]])
    a, h, expected = 0.7, np.zeros(2), []
    for row in x:
        h = a * h + row
        expected.append(h.copy())
    assert np.allclose(lesson.recurrence_states(x, a), expected)


def test_recurrence_weights_are_powers_of_the_factor_and_match_the_states():
    a, n = 0.8, 6
    weights = lesson.recurrence_weights(a, n)
    assert np.allclose(weights, [a ** (n - t) for t in range(1, n + 1)])
    x = np.random.default_rng(3).normal(size=n)
    assert np.isclose(lesson.recurrence_states(x, a)[-1], weights @ x)


# --- figures -----------------------------------------------------------------------------------
def test_recurrence_figure_shows_the_weights_caption_and_title():
    ax = lesson.RecurrenceWeights().draw(decay=0.5, n_steps=10).axes[0]
    (line,) = ax.lines
    assert line.get_xdata().tolist() == list(range(1, 11))
    assert np.allclose(line.get_ydata(), [0.5 ** (10 - t) for t in range(1, 11)])
    assert ax.texts[0].get_text() == "weight of x_1 in h_10: a^(n-1) = 0.5^9 = 0.00195"
    assert "a = 0.50" in ax.get_title() and "h_10" in ax.get_title()
    caption = lesson.RecurrenceWeights().draw(decay=0.0, n_steps=5).axes[0].texts[0]
    assert caption.get_text().endswith("0^4 = 0")


def test_recurrence_view_owns_its_ranges_and_blits_steps_of_a():
    view = lesson.RecurrenceWeights().view()
    decay, n_steps = view.controls["decay"], view.controls["n_steps"]
    assert (decay.min, decay.max, decay.value) == (0.0, 1.0, 0.9)
    assert (n_steps.min, n_steps.max, n_steps.value) == (2, 60, 20)
    decay.value = 0.5
    assert view.blits == 1  # limits stay: only the moving artists are redrawn
    n_steps.value = 40
    assert view.blits == 2  # the x range changes, and the x axis is drawn with the line
    assert view.figure.axes[0].get_xlim() == (0.5, 40.5)
    assert snapshot(view.figure) == snapshot(lesson.RecurrenceWeights().draw(decay=0.5, n_steps=40))
    view.close()


def test_token_outputs_share_one_colour_scale_and_name_bad_input():
    a, b = np.array([[1.0, -3.0], [0.0, 2.0]]), np.array([[0.0, 2.0], [1.0, -3.0]])
    figure = lesson.plot_token_outputs([["x", "y"], ["y", "x"]], [a, b])
    left, right = figure.axes
    assert np.array_equal(right.images[0].get_array(), b)
    assert left.images[0].get_clim() == right.images[0].get_clim() == (-3.0, 3.0)
    assert [t.get_text() for t in right.get_yticklabels()] == ["y", "x"]
    assert left.get_title() == '"x y"'
    with pytest.raises(ValueError, match=r"outputs\[0\]"):
        lesson.plot_token_outputs([["only one"]], [a])
    with pytest.raises(TypeError, match=r"sentences\[0\]"):
        lesson.plot_token_outputs(["x y"], [a])
    with pytest.raises(ValueError, match="sentences"):
        lesson.plot_token_outputs([["x", "y"]], [a, b])


def test_serial_steps_figure_draws_both_chains_and_names_bad_input():
    ax = lesson.plot_serial_steps([1, 2, 3], [1, 2, 3], [3, 3, 3])
    assert ax.lines[0].get_ydata().tolist() == [1, 2, 3]
    assert ax.lines[1].get_ydata().tolist() == [3, 3, 3]
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()
    with pytest.raises(ValueError, match="chain"):
        lesson.plot_serial_steps([1, 2], [1, 2, 3], [1, 1])


# --- exercise 1: attend, then unshuffle --------------------------------------------------------
# Each checker's own slips; the grading every checker shares (an unfinished stub, NaN, text, a
# crash, not a function) is pinned once in tests/test_core.py and for every checker by the fuzz.
def _unshuffle_right(x, order):
    s = x[order]
    return attention(s, s, s)[np.argsort(order)]


def _unshuffle_float32(x, order):
    s = x[order].astype(np.float32)
    return attention(s, s, s)[np.argsort(order)].astype(np.float32)


def _unshuffle_forgot(x, order):
    s = x[order]
    return attention(s, s, s)


def _unshuffle_twice(x, order):
    s = x[order]
    return attention(s, s, s)[order]


def _ignores_order(x, order):
    return attention(x, x, x)


@pytest.mark.parametrize(
    ("answer", "status", "message"),
    [
        (_unshuffle_right, "correct", "correct"),
        (_unshuffle_float32, "correct", "correct"),
        (_ignores_order, "wrong", "never uses order"),
        (lambda x, order: attention(x, x, x), "wrong", "never uses order"),
        (_unshuffle_forgot, "wrong", "still in the shuffled order"),
        (_unshuffle_twice, "wrong", "second time"),
        (lambda x, order: x[order][:, :2], "wrong", "must have shape (5, 4)"),
    ],
)
def test_check_unshuffled_attention(answer, status, message):
    feedback = lesson.check_unshuffled_attention(answer)
    assert feedback.status == status
    assert message in feedback.message


def test_check_unshuffled_attention_calls_once_per_case_on_copies():
    calls = []

    def shuffles_in_place(x, order):
        calls.append(1)
        x[:] = x[order]  # spoils the caller's array if it is not a copy
        return attention(x, x, x)[np.argsort(order)]

    assert lesson.check_unshuffled_attention(shuffles_in_place).passed
    assert len(calls) == 2  # two orders, each tried once


# --- exercises 2 and 3: fading -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("answer", "status", "message"),
    [
        (lambda a, n: a ** (n - 1), "correct", "correct"),
        (lambda a, n: np.float32(a) ** np.float32(n - 1), "correct", "correct"),
        (lambda a, n: np.array([a ** (n - 1)]), "correct", "correct"),
        (lambda a, n: a**n, "wrong", "off by one"),
        (lambda a, n: a / n, "wrong", "for a ="),
    ],
)
def test_check_first_input_weight(answer, status, message):
    feedback = lesson.check_first_input_weight(answer)
    assert feedback.status == status
    assert message in feedback.message


def _faded(a, eps):
    n = 1
    while a ** (n - 1) >= eps:
        n += 1
    return n


@pytest.mark.parametrize(
    ("answer", "status", "message"),
    [
        (_faded, "correct", "correct"),
        (lambda a, e: math.floor(math.log(e) / math.log(a)) + 2, "correct", "correct"),
        # One short wherever the threshold is an exact power of the decay (0.5 and 0.25).
        (
            lambda a, e: math.ceil(math.log(e) / math.log(a)) + 1,
            "wrong",
            "a = 0.5, threshold = 0.25",
        ),
        (lambda a, e: np.int32(_faded(a, e)), "correct", "correct"),
        (lambda a, e: float(_faded(a, e)), "correct", "correct"),
        (lambda a, e: _faded(a, e) - 1, "wrong", "exponent n - 1"),
        (lambda a, e: _faded(a, e) + 1, "wrong", "not the smallest"),
        (lambda a, e: _faded(a, e) - 2, "wrong", "is still"),
        (lambda a, e: _faded(a, e) + 0.5, "wrong", "whole number"),
        (lambda a, e: 0, "wrong", "at least one token"),
    ],
)
def test_check_steps_until_faded(answer, status, message):
    feedback = lesson.check_steps_until_faded(answer)
    assert feedback.status == status
    assert message in feedback.message
