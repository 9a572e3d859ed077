"""Lesson 13 · Two layers: the model's extra layers, the tasks, the scores and the checkers."""

from __future__ import annotations

import re

import numpy as np
import pytest

from pe_helpers.lessons import two_layers as tl
from pe_helpers.lessons.two_layers.exercises import _cases, _slip_scores
from pe_helpers.model import (
    METHODS,
    ModelConfig,
    forward_pass,
    gradient_check,
    init_params,
    loss_and_grads,
)
from pe_helpers.rope_scaling import default_frequencies, ntk_aware_base, rope_frequencies
from pe_helpers.seeds import load_results
from pe_helpers.tasks import (
    TEST_SEED,
    Task,
    make_task,
    order_blind_accuracy,
    task_batch,
)
from pe_helpers.training import train

# --- the model with more layers -----------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("residual", [False, True])
def test_two_layer_gradients_match_central_differences(method, residual):
    config = ModelConfig(
        method,
        vocab_size=5,
        d_model=8,
        n_heads=2,
        max_len=6,
        n_layers=2,
        residual=residual,
        num_buckets=4,
        max_distance=4,
    )
    errors = gradient_check(config)
    assert {"layer1.w_q", "layer1.w_k", "layer1.w_v", "layer1.w_o"} <= set(errors)
    assert max(errors.values()) < 1e-6, errors


def test_the_gradient_check_looks_at_attention_far_from_saturated():
    """A saturated softmax has a vanishing gradient, which would pass any check."""
    config = ModelConfig("rope_adjacent", vocab_size=5, d_model=8, n_heads=2, n_layers=2)
    params = init_params(config)
    cache = forward_pass(params, config, task_batch("copy_back", 2, 5, 5).tokens)[1]
    weights = np.stack([cache["inner"][0]["weights"], cache["weights"]])
    assert weights.shape == (2, 2, 2, 5, 5)
    assert weights[:, :, :, 1:].max(axis=-1).min() < 0.99  # neither layer is one-hot


def test_three_layers_and_a_shared_t5_table():
    config = ModelConfig(
        "t5_bias", vocab_size=4, d_model=4, n_heads=1, n_layers=3, num_buckets=4, max_distance=4
    )
    shapes = config.param_shapes()
    assert "layer2.w_o" in shapes and sum(name.endswith("t5_bias") for name in shapes) == 1
    assert max(gradient_check(config, length=4).values()) < 1e-6


def test_one_layer_is_lesson_08s_model():
    one = ModelConfig("rope_adjacent", vocab_size=6)
    assert one.n_layers == 1
    assert list(one.param_shapes()) == ["embed", "w_q", "w_k", "w_v", "w_o", "b_o"]
    two = ModelConfig("rope_adjacent", vocab_size=6, n_layers=2)
    assert two.param_shapes()["layer1.w_o"] == (2, 16, 32)  # heads write into the stream
    assert two.param_shapes()["w_o"] == (2, 16, 6)  # the last layer reads the logits
    assert not any("cope" in name or "forget" in name for name in two.param_shapes())  # lesson 14


def test_a_zero_first_layer_leaves_the_last_layer_alone():
    """With layer 1's output matrix at zero the residual stream is the embedding: the two-layer
    model computes what the one-layer model with the same last layer does."""
    one = ModelConfig("sinusoidal", vocab_size=6, d_model=8)
    two = ModelConfig("sinusoidal", vocab_size=6, d_model=8, n_layers=2)
    params = init_params(two, seed=3)
    params["layer1.w_o"][:] = 0.0
    tokens = np.arange(7) % 6
    same = {name: value for name, value in params.items() if not name.startswith("layer")}
    np.testing.assert_allclose(
        forward_pass(params, two, tokens)[0], forward_pass(same, one, tokens)[0]
    )
    batch = task_batch("copy_back", 2, 7, 6)
    _, grads = loss_and_grads(params, two, batch)
    assert np.abs(grads["layer1.w_q"]).max() == 0.0  # nothing flows back through a zero W_O


def test_attention_of_a_layer_is_picked_and_checked():
    model = train(
        "repeated",
        "rope_adjacent",
        task_arg=3,
        length=8,
        vocab_size=6,
        steps=2,
        n_layers=2,
        n_heads=1,
    )
    tokens = task_batch(model.task, 2, 8, 6).tokens
    assert model.attention(tokens, layer=1).shape == (2, 1, 8, 8)
    assert not np.allclose(model.attention(tokens, layer=1), model.attention(tokens))
    np.testing.assert_array_equal(model.attention(tokens), model.attention(tokens, layer=2))


# --- the tasks ------------------------------------------------------------------------------------


def test_repeated_sequences_repeat_distinct_segments():
    batch = task_batch(Task("repeated", 3), 50, 24, 16, seed=2)
    periods = batch.scored.argmax(axis=1)
    assert periods.min() >= 3 and periods.max() <= 12 and len(set(periods.tolist())) > 3
    for tokens, targets, m in zip(batch.tokens, batch.targets, periods, strict=True):
        assert len(set(tokens[:m].tolist())) == m
        np.testing.assert_array_equal(tokens[m:], tokens[:-m])
        np.testing.assert_array_equal(targets[m:-1], tokens[m + 1 :])
        assert (targets[:m] == -1).all()


def test_passkey_sequences_hold_one_key_after_the_marker():
    batch = task_batch("passkey", 64, 20, 16, seed=4)
    for tokens, targets in zip(batch.tokens, batch.targets, strict=True):
        markers = np.flatnonzero(tokens == 0)
        assert markers.size == 2 and markers[-1] == 19
        assert targets[-1] == tokens[markers[0] + 1] and (targets[:-1] == -1).all()
    apart = task_batch(Task("passkey", 4), 64, 20, 16, seed=4)
    keys = apart.targets[:, -1]
    assert keys.min() >= 1 and keys.max() <= 4
    filler = apart.tokens[(apart.tokens != 0) & ~np.isin(apart.tokens, keys[:, None])]
    assert filler.min() >= 5


# --- the scores and the limit ---------------------------------------------------------------------


def test_scores_of_perfect_heads():
    tokens = np.array([[4, 1, 7, 4, 1, 7, 4, 1]])
    n = tokens.shape[1]
    previous = np.zeros((1, 1, n, n))
    previous[0, 0, 0, 0] = 1.0
    previous[0, 0, np.arange(1, n), np.arange(n - 1)] = 1.0
    assert tl.previous_token_score(previous, tokens).tolist() == [1.0]
    targets = tl.induction_targets(tokens)[0]
    induction = np.where(targets, 1.0, 0.0)
    induction[~targets.any(axis=1), 0] = 1.0
    induction /= induction.sum(axis=1, keepdims=True)
    assert tl.induction_score(induction[None, None], tokens).tolist() == [1.0]
    assert tl.induction_score(previous, tokens)[0] == 0.0
    assert targets[3].tolist() == [False, True, False, False, False, False, False, False]


_CAUSAL = np.tril(np.ones((3, 3)))[None, None] / np.arange(1, 4)[:, None]  # even over 0 .. t


def _sinusoidal_passkey_model():
    return train("passkey", "sinusoidal", length=8, steps=1, n_layers=2)


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        (lambda: order_blind_accuracy("passkey", 8, 8), ValueError, "passkey"),
        (lambda: tl.previous_token_score(np.ones((1, 1, 3, 3)), [[0] * 4]), ValueError, "weights"),
        (lambda: tl.induction_score(np.ones((1, 1, 3, 3)), np.zeros((1, 3))), TypeError, "tokens"),
        (lambda: tl.induction_score(_CAUSAL, [[0, 1, 2]]), ValueError, "tokens"),  # no repeat
        # a weight on a later key, which both scores leave out, or rows that are not attention
        (lambda: tl.induction_score(np.ones((1, 1, 3, 3)) / 3, [[0, 1, 0]]), ValueError, "weights"),
        (lambda: tl.previous_token_score(2 * _CAUSAL, [[0, 1, 0]]), ValueError, "weights"),
        (lambda: tl.stretch(_sinusoidal_passkey_model(), "PI"), TypeError, "model"),
    ],
)
def test_bad_arguments_are_named(call, error, name):
    with pytest.raises(error, match=rf"\b{name}\b"):
        call()


def test_the_order_blind_limit_is_what_a_bag_reader_gets():
    """Brute force: at each scored query, guess uniformly among the tokens seen least often."""
    setup = tl.INDUCTION
    batch = task_batch(make_task(*setup["task"]), 300, setup["length"], setup["vocab_size"], seed=0)
    right = []
    for tokens, targets, scored in zip(batch.tokens, batch.targets, batch.scored, strict=True):
        for t in np.flatnonzero(scored):
            counts = np.bincount(tokens[: t + 1], minlength=setup["vocab_size"])
            fewest = np.flatnonzero(counts == counts[counts > 0].min())
            right.append(float(targets[t] in fewest) / fewest.size)
    assert tl.induction_order_blind_limit(n_samples=300) == pytest.approx(np.mean(right))


def test_extension_frequencies_come_from_rope_frequencies():
    inv, att = tl.maths.extension_frequencies("PI", 32, 16)
    np.testing.assert_allclose(inv, default_frequencies(1e4, 32) / 4)
    inv, _ = tl.maths.extension_frequencies("NTK-aware", 32, 16)
    np.testing.assert_allclose(inv, default_frequencies(ntk_aware_base(1e4, 32, 4.0), 32))
    yarn = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 16}
    want = rope_frequencies(yarn, 32)
    got = tl.maths.extension_frequencies("YaRN", 32, 16)
    np.testing.assert_allclose(got[0], want[0])
    assert got[1] == want[1] > 1


# --- the checkers ---------------------------------------------------------------------------


def test_induction_checker_right_and_every_slip():
    assert tl.check_induction_score(tl.induction_score).status == "correct"
    weights, tokens = _cases()[0]
    for index, (_, message) in enumerate(_slip_scores(weights, tokens)):

        def slip(w, t, index=index):
            return _slip_scores(w, t)[index][0]

        feedback = tl.check_induction_score(slip)
        assert feedback.status == "wrong" and feedback.message == message
    other = tl.check_induction_score(lambda w, t: np.zeros(w.shape[1]))
    assert other.status == "wrong" and "expected" in other.message


def test_failure_length_answer_is_far_from_its_level():
    """Exercise 2's answer does not hang on the seeds: at every test length the sinusoidal
    model's median, and both ends of its 95% interval, lie more than 10 points from the level."""
    results = load_results("two_layers")
    for scale in ("L", "2L", "4L", "8L"):
        median, low, high = results.median_interval(f"passkey.sinusoidal.{scale}")
        assert min(abs(v - tl.exercises.FAILURE_LEVEL) for v in (median, low, high)) > 0.1, scale


def test_failure_length_checker():
    want = tl.failure_length(load_results("two_layers"))
    assert tl.check_failure_length(want).status == "correct"
    order = ["2L", "4L", "8L", "none"]
    for other in order:
        if other != want:
            message = tl.check_failure_length(other).message
            earlier = order.index(other) < order.index(want)
            assert message.startswith("earlier" if earlier else "later")
            # the feedback to a wrong prediction names no length but the learner's own
            lengths = set(re.findall(r"\b\d*L\b", message)) - {other}
            assert not lengths, f"{other!r}: the feedback names {lengths}"
    if want != "none":
        assert tl.check_failure_length(tl.SCALES[want]).status == "correct"
    assert "must be" in tl.check_failure_length(3.5).message
    assert "must be" in tl.check_failure_length("L").message


def test_the_passkey_previous_token_score_is_layer_1s_at_the_training_length():
    model = train("passkey", "rope_adjacent", length=32, steps=2, n_layers=2)
    batch = task_batch(model.task, 128, 16, model.config.vocab_size, seed=TEST_SEED)
    want = tl.previous_token_score(model.attention(batch.tokens, layer=1), batch.tokens).max()
    assert tl.passkey_previous_token(model) == want  # at L = 16, not the model's 32
    last = tl.previous_token_score(model.attention(batch.tokens), batch.tokens).max()
    assert want != last  # layer 1, not the last layer
    stretched = tl.passkey_previous_token(tl.stretch(model, "PI"))
    assert stretched != want  # PI's frequencies move layer 1's attention


def test_the_extension_group_adds_the_previous_token_score_and_changes_nothing_else(monkeypatch):
    model = train("passkey", "rope_adjacent", length=16, steps=2, n_layers=2, seed=3)
    monkeypatch.setattr(tl.maths, "train_passkey", lambda method, seed: model)
    found = tl.maths._extension_experiment(3)
    prefixes = [*tl.EXTENSIONS, *(f"tuned_{e}" for e in tl.EXTENSIONS)]
    assert set(found) == {f"{p}.{s}" for p in prefixes for s in [*tl.SCALES, "previous_token"]}
    assert all(0 <= found[f"{p}.previous_token"] <= 1 for p in prefixes)
    assert found["PI.previous_token"] == tl.passkey_previous_token(tl.stretch(model, "PI"))
    tuned = tl.fine_tune(model, "PI", seed=4)  # the accuracies are those without the new score
    assert [found[f"tuned_PI.{s}"] for s in tl.SCALES] == list(
        tl.passkey_accuracies(tuned).values()
    )
    assert found["tuned_PI.previous_token"] == tl.passkey_previous_token(tuned)
