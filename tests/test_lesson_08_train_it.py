"""Lesson 08 · Position in a model you train: helpers, figures and checkers.

The trainer itself (gradients, Adam, tasks, trained-model claims) is tested in
``tests/test_training.py``; this file tests what the lesson module adds.
"""

from __future__ import annotations

import numpy as np
import pytest

from pe_helpers.lessons.train_it import (
    MAX_LENGTH,
    MAX_MODELS,
    QueryAttention,
    accuracy_table,
    check_nope_prediction,
    check_prefix_prediction,
    check_softmax_backward,
    format_accuracy_table,
    plot_extrapolation,
    target_attention,
)
from pe_helpers.live import snapshot
from pe_helpers.model import _softmax_backward
from pe_helpers.tasks import most_frequent_earlier, order_blind_accuracy, task_batch
from pe_helpers.training import train


@pytest.fixture(scope="module")
def small():
    """Quick copy-back models (L = 8, 60 steps): enough to have shapes and refusals."""
    methods = ("none", "sinusoidal", "learned", "rope_adjacent")
    return {method: train("copy_back", method, length=8, steps=60) for method in methods}


# --- measurements -------------------------------------------------------------------------


def test_most_frequent_earlier_is_the_mode_of_the_prefix_before_t():
    tokens = np.array([[2, 0, 2, 1, 0, 0]])
    best = most_frequent_earlier(tokens, 3)
    assert not best[0, 0].any()  # nothing before position 0
    assert best[0, 1].tolist() == [False, False, True]  # only a 2 before
    assert best[0, 3].tolist() == [False, False, True]  # 2, 0, 2
    assert best[0, 5].tolist() == [True, False, True]  # 2, 0, 2, 1, 0: a tie
    rng = np.random.default_rng(0)
    batch = rng.integers(0, 5, size=(4, 12))
    got = most_frequent_earlier(batch, 5)
    for b in range(4):
        for t in range(1, 12):
            counts = np.bincount(batch[b, :t], minlength=5)
            assert got[b, t].tolist() == (counts == counts.max()).tolist()


def test_the_order_blind_guess_reaches_the_order_blind_limit():
    batch = task_batch("copy_back", 2000, 16, 16, seed=0)
    best = most_frequent_earlier(batch.tokens, 16)
    # Expected accuracy of a uniform pick among the best tokens = the Bayes ceiling.
    hit = best[np.arange(2000)[:, None], np.arange(16), np.maximum(batch.targets, 0)]
    expected = (hit / best.sum(axis=-1).clip(min=1))[:, 1:].mean()
    limit = order_blind_accuracy("copy_back", 16, 16, causal=True, n_samples=2000)
    assert abs(expected - limit) < 0.01


@pytest.mark.parametrize(
    ("args", "error", "text"),
    [
        (([[0, 1]], 1), ValueError, "vocab_size must be >= 2"),
        (([0, 1], 3), ValueError, "tokens must be 2-D"),
        (([[0, 3]], 3), ValueError, r"tokens must lie in 0 \.\. 2"),
        (([[0.0, 1.0]], 3), TypeError, "integer ids"),
        ((np.zeros((1000, 1000), int), 16), ValueError, "at most 10,000,000"),
    ],
)
def test_most_frequent_earlier_names_bad_arguments(args, error, text):
    with pytest.raises(error, match=text):
        most_frequent_earlier(*args)


def test_accuracy_table_marks_what_a_learned_table_refuses(small):
    table = accuracy_table(small, [8, 16, 32], n_samples=16)
    assert set(table) == set(small)
    assert np.isnan(table["learned"][1:]).all() and not np.isnan(table["learned"][0])
    for name in ("none", "sinusoidal", "rope_adjacent"):
        assert np.all((table[name] >= 0) & (table[name] <= 1))
    assert table["sinusoidal"][0] == small["sinusoidal"].accuracy(length=8, n_samples=16)


def test_the_learned_table_refuses_with_a_clear_error(small):
    with pytest.raises(ValueError, match="max_len = 8 rows and cannot encode length 16"):
        small["learned"].accuracy(length=16)


@pytest.mark.parametrize(
    ("models", "lengths", "error", "text"),
    [
        ({}, [8], TypeError, "non-empty dict"),
        ({"a": 1}, [8], TypeError, r"models\['a'\] must be a TrainedModel"),
        (None, "8", TypeError, "lengths must be a non-empty list"),
        (None, [], TypeError, "lengths must be a non-empty list"),
        (None, [MAX_LENGTH + 1], ValueError, "at most 256"),
        (None, [1], ValueError, "lengths entry must be >= 2"),
    ],
)
def test_accuracy_table_names_bad_arguments(small, models, lengths, error, text):
    with pytest.raises(error, match=text):
        accuracy_table(small if models is None else models, lengths)


def test_accuracy_table_bounds_the_number_of_models(small):
    many = {str(i): small["none"] for i in range(MAX_MODELS + 1)}
    with pytest.raises(ValueError, match=f"at most {MAX_MODELS} models"):
        accuracy_table(many, [8])


def test_format_accuracy_table_prints_whole_percentages():
    text = format_accuracy_table(
        {"rope": [1.0, 0.946, 0.6049], "learned": [0.999, np.nan, np.nan]}, [16, 32, 64],
        train_length=16)
    lines = text.splitlines()
    assert lines[0].split() == ["method", "L", "=", "16", "2L", "=", "32", "4L", "=", "64"]
    assert lines[1].split() == ["rope", "100%", "95%", "60%"]
    assert lines[2].split() == ["learned", "100%", "refuses", "refuses"]
    assert "n = 20" in format_accuracy_table({"a": [0.5]}, [20], train_length=16)
    with pytest.raises(ValueError, match="one value per length"):
        format_accuracy_table({"a": [0.5]}, [16, 32], train_length=16)


def test_target_attention_is_the_best_heads_mean_weight_on_the_answer(small):
    model = small["rope_adjacent"]
    got = target_attention(model, 12, [1, 5, 11], n_samples=8, seed=3)
    weights = model.attention(task_batch(model.task, 8, 12, 16, seed=3).tokens)
    for index, query in enumerate((1, 5, 11)):
        assert np.isclose(got[index], weights[:, :, query, query - 1].mean(axis=0).max())
    token_model = train("token_at", "sinusoidal", task_arg=2, length=6, steps=3)
    weights = token_model.attention(task_batch(token_model.task, 4, 6, 16, seed=0).tokens)
    expected = weights[:, :, 4, 2].mean(axis=0).max()
    assert np.isclose(target_attention(token_model, 6, [4], n_samples=4, seed=0)[0], expected)


@pytest.mark.parametrize(
    ("length", "queries", "error", "text"),
    [
        (8, [0], ValueError, r"queries must lie in 1 \.\. 7"),
        (8, [8], ValueError, "queries must lie"),
        (8, [1.5], TypeError, "integer positions"),
        (1000, [3], ValueError, "length must be at most 256"),
    ],
)
def test_target_attention_names_bad_arguments(small, length, queries, error, text):
    with pytest.raises(error, match=text):
        target_attention(small["none"], length, queries)


def test_target_attention_refuses_lengths_past_a_learned_table(small):
    with pytest.raises(ValueError, match="max_len = 8"):
        target_attention(small["learned"], 16, [3])


# --- figures --------------------------------------------------------------------------------


def test_the_extrapolation_figure_has_one_panel_per_task_and_marks_refusals():
    tables = {
        "copy": {"rope": [1.0, 0.9, 0.6], "learned": [1.0, np.nan, np.nan]},
        "first": {"rope": [1.0, 0.7, 0.4], "learned": [1.0, np.nan, np.nan]},
    }
    figure = plot_extrapolation(tables, [16, 32, 64], train_length=16,
                                limits={"copy": [0.3, 0.2, 0.1]})
    copy_ax, first_ax = figure.axes
    assert (copy_ax.get_title(), first_ax.get_title()) == ("copy", "first")
    assert np.allclose(copy_ax.lines[0].get_ydata(), [100, 90, 60])
    refusals = copy_ax.lines[2]  # the × markers of the learned table
    assert refusals.get_marker() == "x" and np.allclose(refusals.get_xdata(), [32, 64])
    legend = [text.get_text() for text in figure.legends[0].get_texts()]
    assert legend == ["rope", "learned (× = refuses)", "order-blind limit"]


@pytest.mark.parametrize(
    ("tables", "lengths", "error", "text"),
    [
        ({}, [16], TypeError, "1 to 3 task panels"),
        ({"a": {"x": [1.0]}}, [0], ValueError, "lengths must be > 0"),
        ({"a": {"x": [1.0, 0.5]}}, [16], ValueError, "one value per length"),
        ({"a": []}, [16], TypeError, "method -> accuracies"),
    ],
)
def test_the_extrapolation_figure_names_bad_arguments(tables, lengths, error, text):
    with pytest.raises(error, match=text):
        plot_extrapolation(tables, lengths, train_length=16)


def test_query_attention_shows_the_rows_and_the_accuracy_of_the_picked_model(small):
    figure = QueryAttention(small).draw(length=12, query=9, method=3)
    row_ax, acc_ax = figure.axes
    assert row_ax.get_title() == "rope_adjacent: query 9 of 12 (answer at key 8)"
    rows = small["rope_adjacent"].attention(QueryAttention(small).tokens[:12])[:, 9]
    assert np.allclose(row_ax.lines[0].get_ydata(), rows[0])
    assert np.allclose(row_ax.lines[1].get_ydata(), rows[1])
    assert row_ax.get_xlim() == (-0.5, 11.5)
    longest = small["rope_adjacent"].accuracy(length=128, n_samples=128, per_position=True)
    assert np.allclose(acc_ax.lines[0].get_ydata(), 100 * longest[1:12])
    assert acc_ax.get_title().startswith("rope_adjacent at length 12: ")


@pytest.mark.parametrize("method", ["none", "sinusoidal", "learned", "rope_adjacent"])
def test_a_causal_models_predictions_on_prefixes_are_its_predictions_on_the_whole(small, method):
    # QueryAttention slices one evaluation at the longest length for every shorter one.
    model = small[method]
    longest = 8 if method == "learned" else 128
    tokens = task_batch("copy_back", 16, longest, model.config.vocab_size, seed=3).tokens
    whole = model.predict(tokens)
    for n in (2, 5, longest // 2):
        assert np.array_equal(model.predict(tokens[:, :n]), whole[:, :n])
    broken = model.replace(causal=False)
    assert not np.array_equal(broken.predict(tokens[:, :5]), broken.predict(tokens)[:, :5])


def test_query_attention_evaluates_a_non_causal_model_at_each_length(small):
    models = {name: model.replace(causal=False) for name, model in small.items()}
    figure = QueryAttention(models)
    figure.draw(length=12, query=9, method=3)
    expected = models["rope_adjacent"].accuracy(length=12, n_samples=128, per_position=True)
    assert np.allclose(figure._accuracy[("rope_adjacent", 12)][1:], expected[1:])


def test_query_attention_says_when_the_learned_table_refuses(small):
    figure = QueryAttention(small).draw(length=16, query=20, method=2)
    row_ax, acc_ax = figure.axes
    assert "it refuses length 16" in row_ax.texts[0].get_text()
    assert row_ax.get_title() == "learned: query 15 of 16 (answer at key 14)"  # query clipped
    assert acc_ax.get_title() == "learned at length 16: refuses this length"
    assert len(acc_ax.lines[0].get_xdata()) == 0


def test_query_attention_steps_blit_and_equal_a_fresh_drawing(small):
    figure = QueryAttention(small)
    view = figure.view(length=12, query=5, method=0)
    view.controls["query"].value = 9
    view.controls["method"].value = 3
    assert view.blits == 2  # no axes limit moved
    view.controls["length"].value = 24
    assert view.blits == 2  # the x axes follow the length: a full redraw
    values = view.values()
    assert snapshot(view.figure) == snapshot(QueryAttention(small).draw(**values))
    assert set(figure._accuracy) == {("none", None), ("rope_adjacent", None)}  # once per model
    view.close()


def test_query_attention_default_is_the_lessons_copy_back_models():
    figure = QueryAttention()
    assert figure.names == ["none", "sinusoidal", "learned", "rope_adjacent"]
    assert (figure.task.name, figure.task.arg, figure.train_length) == ("copy_back", 1, 16)
    assert QueryAttention().models is figure.models  # trained once per session


def test_query_attention_names_bad_arguments(small):
    with pytest.raises(TypeError, match="non-empty dict"):
        QueryAttention({})
    with pytest.raises(ValueError, match="at most 4 models"):
        QueryAttention({str(i): small["none"] for i in range(5)})
    other = train("token_at", "none", length=8, steps=2)
    with pytest.raises(ValueError, match="must share task"):
        QueryAttention({"a": small["none"], "b": other})
    with pytest.raises(ValueError, match="n_samples must be at most 1024"):
        QueryAttention(small, n_samples=10**6)
    with pytest.raises(ValueError, match="query must lie"):
        QueryAttention(small).draw(query=64)


# --- exercise checkers ----------------------------------------------------------------------


def right_backward(weights, grad_weights):
    return weights * (grad_weights - (grad_weights * weights).sum(axis=-1, keepdims=True))


def stub(*_args):
    raise NotImplementedError


def crashes(*_args):
    raise ZeroDivisionError("oops")


def test_check_softmax_backward_accepts_right_answers():
    assert check_softmax_backward(right_backward).passed
    assert check_softmax_backward(lambda a, g: right_backward(a, g).tolist()).passed
    as_float32 = check_softmax_backward(
        lambda a, g: right_backward(a.astype(np.float32), g.astype(np.float32)))
    assert as_float32.passed, as_float32

    def in_place(a, g):
        g -= (g * a).sum(axis=-1, keepdims=True)
        a *= g
        return a

    assert check_softmax_backward(in_place).passed  # the checker passes copies


def test_check_softmax_backward_calls_the_function_once_per_case():
    calls = []

    def counted(a, g):
        calls.append(a.shape)
        return right_backward(a, g)

    assert check_softmax_backward(counted).passed
    assert calls == [(2, 2, 5, 5), (2, 1, 4, 4)]  # the test batch, then one backward pass


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (lambda a, g: a * g, "you returned a * g"),
        (lambda a, g: a * (1 - a) * g, "only the diagonal of the Jacobian"),
        (lambda a, g: a * (g - (g * a).sum(axis=-2, keepdims=True)), "summed over the queries"),
        (lambda a, g: a * (g - (g * a).sum()), "summed over the whole array"),
        (lambda a, g: a * (g - g.sum(axis=-1, keepdims=True)), "weight g by a"),
        (lambda a, g: -right_backward(a, g), "sign is flipped"),
        (lambda a, g: g, "returned g unchanged"),
        (lambda a, g: right_backward(a, g) + 0.1, "differs from a * (g - Σ_j g_j a_j)"),
        (lambda a, g: right_backward(a, g)[..., :3], "must have shape (2, 2, 5, 5)"),
        (lambda a, g: np.full(a.shape, np.nan), "NaN or infinite"),
        (lambda a, g: "a * g", "must be an array of numbers"),
        (crashes, "your function raised ZeroDivisionError: oops"),
    ],
)
def test_check_softmax_backward_names_each_slip(answer, message):
    feedback = check_softmax_backward(answer)
    assert feedback.status == "wrong"
    assert message in feedback.message


def test_check_softmax_backward_catches_an_error_only_inside_the_model():
    test_shape = (2, 2, 5, 5)

    def right_on_the_batch_only(a, g):
        return right_backward(a, g) if a.shape == test_shape else a * g

    feedback = check_softmax_backward(right_on_the_batch_only)
    assert feedback.status == "wrong" and "inside the model" in feedback.message

    def crashes_in_the_model(a, g):
        if a.shape != test_shape:
            raise IndexError("row 3")
        return right_backward(a, g)

    feedback = check_softmax_backward(crashes_in_the_model)
    assert feedback.message == "your function raised IndexError: row 3"


def test_check_softmax_backward_stubs_and_non_functions():
    assert check_softmax_backward(stub).status == "todo"
    assert check_softmax_backward(None).status == "todo"
    assert "expected a function" in check_softmax_backward(3.0).message


def test_the_reference_softmax_backward_rows_sum_to_zero():
    rng = np.random.default_rng(1)
    scores = rng.normal(size=(3, 6))
    weights = np.exp(scores) / np.exp(scores).sum(axis=-1, keepdims=True)
    assert np.allclose(_softmax_backward(weights, rng.normal(size=(3, 6))).sum(axis=-1), 0)


@pytest.mark.parametrize("answer", ["same", "Same", " a ", "(a)", "'same'"])
def test_check_prefix_prediction_accepts_same(answer):
    assert check_prefix_prediction(answer).passed


@pytest.mark.parametrize(
    ("answer", "status", "message"),
    [
        ("lower", "wrong", "causal mask"),
        ("b", "wrong", "'lower' is not it"),
        ("higher", "wrong", "'higher' is not it"),
        ("maybe", "wrong", "must be 'same', 'lower' or 'higher'"),
        (3, "wrong", "must be text"),
        (float("nan"), "wrong", "must be text"),
        (None, "todo", "not done yet"),
    ],
)
def test_check_prefix_prediction_rejects_the_rest(answer, status, message):
    feedback = check_prefix_prediction(answer)
    assert feedback.status == status
    assert message in feedback.message


def test_the_prefix_claim_holds_for_a_causal_model(small):
    model = small["rope_adjacent"]
    long = task_batch("copy_back", 16, 32, 16, seed=0).tokens
    assert np.allclose(model.logits(long[:, :8]), model.logits(long)[:, :8])


@pytest.mark.parametrize("answer", [15, 15.0, np.float32(15.0), np.array([15]), 13, 18])
def test_check_nope_prediction_accepts_the_order_blind_limit(answer):
    assert check_nope_prediction(answer).passed


@pytest.mark.parametrize(
    ("answer", "status", "message"),
    [
        (19, "wrong", "value at 4L"),
        (6, "wrong", "that is 1/16"),
        (90, "wrong", "NoPE has no position signal"),
        (30, "wrong", "the longer the prefix"),
        (2, "wrong", "too low"),
        (0.15, "wrong", "not a fraction"),
        (150, "wrong", "between 0 and 100"),
        (float("nan"), "wrong", "your prediction is nan"),
        (float("inf"), "wrong", "your prediction is inf"),
        ("15", "wrong", "is text"),
        (True, "wrong", "must be a number"),
        (None, "todo", "not done yet"),
    ],
)
def test_check_nope_prediction_names_each_slip(answer, status, message):
    feedback = check_nope_prediction(answer)
    assert feedback.status == status
    assert message in feedback.message


def test_the_nope_prediction_is_graded_against_the_limit_at_8l():
    limit = 100 * order_blind_accuracy("copy_back", 128, 16, causal=True)
    assert 13 < limit < 17
    assert check_nope_prediction(round(limit)).passed
