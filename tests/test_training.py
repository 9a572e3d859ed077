"""Tests of lesson 08's trainer: pe_helpers.model, .training, .tasks and .biases."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from pe_helpers.biases import alibi_bias, alibi_slopes, t5_relative_bucket
from pe_helpers.encodings import frequencies
from pe_helpers.model import (
    CONTENT_METHODS,
    METHODS,
    ModelConfig,
    Tables,
    forward_pass,
    gradient_check,
    init_params,
)
from pe_helpers.rope import apply_rope, turn_pairs
from pe_helpers.tasks import (
    Task,
    make_task,
    order_blind_accuracy,
    task_batch,
)
from pe_helpers.training import TrainedModel, train

L = 16  # training length of the trained-model tests (the package defaults: vocab 16, d 32)


# --- The backward pass, against central finite differences ---


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("method", METHODS)
def test_gradient_matches_finite_differences(method, causal):
    if method in CONTENT_METHODS and not causal:  # lesson 14's methods are causal only
        pytest.skip(f"{method} refuses causal=False (tested in lesson 14's tests)")
    config = ModelConfig(
        method,
        vocab_size=5,
        d_model=8,
        n_heads=2,
        causal=causal,
        residual=not causal,
        max_len=7,
        num_buckets=6,
        max_distance=5,  # short buckets: the log range is used
    )
    errors = gradient_check(config, length=6)
    assert set(errors) == set(config.param_shapes())
    assert max(errors.values()) <= 1e-6, errors


@pytest.mark.parametrize(
    "options",
    [
        dict(method="rope_adjacent", inv_freq=[0.9, 0.2], attention_factor=1.3),
        dict(method="rope_halves", inv_freq=[0.7], attention_factor=0.8),  # partial rotary
        dict(method="alibi", slopes=[0.5, 2.0], residual=True),
        dict(method="t5_bias", causal=False, num_buckets=4, max_distance=3),
        dict(method="learned", max_len=9, n_heads=1, d_head=6),
    ],
)
def test_gradient_with_the_hooks(options):
    config = ModelConfig(**(dict(vocab_size=4, d_model=8, n_heads=2) | options))
    assert max(gradient_check(config, length=6, seed=3).values()) <= 1e-6


def test_gradient_check_catches_a_wrong_backward(monkeypatch):
    import pe_helpers.model as model

    original = model._backward

    def broken(*args):
        grads = original(*args)
        grads["w_k"] = grads["w_k"] * 1.01
        return grads

    monkeypatch.setattr(model, "_backward", broken)
    errors = gradient_check(ModelConfig("rope_halves", vocab_size=4, d_model=8))
    assert errors["w_k"] > 1e-3 and errors["w_q"] <= 1e-6


def test_gradient_check_takes_a_learners_softmax_backward():
    config = ModelConfig("sinusoidal", vocab_size=4, d_model=8)

    def correct(a, g):
        return a * g - a * (a * g).sum(axis=-1, keepdims=True)

    def forgot_the_sum(a, g):
        return a * g

    assert max(gradient_check(config, softmax_backward=correct).values()) <= 1e-6
    assert max(gradient_check(config, softmax_backward=forgot_the_sum).values()) > 1e-2


# --- RoPE hook: the table-driven rotation is lesson 07's apply_rope ---


@pytest.mark.parametrize("pairing", ["adjacent", "halves"])
def test_rotation_is_apply_rope(pairing):
    config = ModelConfig(f"rope_{pairing}", vocab_size=4, d_model=16, n_heads=2, base=100.0)
    tables = Tables(config, 11)
    x = np.random.default_rng(0).normal(size=(3, 2, 11, 8))
    expected = apply_rope(x, base=100.0, pairing=pairing)
    np.testing.assert_allclose(
        turn_pairs(x, tables.cos, tables.sin, tables.pairing), expected, rtol=0, atol=1e-13
    )
    back = turn_pairs(expected, tables.cos, -tables.sin, tables.pairing)
    np.testing.assert_allclose(back, x, rtol=0, atol=1e-13)


def test_partial_inv_freq_rotates_the_leading_dimensions_only():
    config = ModelConfig(
        "rope_halves",
        vocab_size=4,
        d_model=8,
        n_heads=1,
        inv_freq=frequencies(4, 50.0),
        attention_factor=2.0,
    )
    tables = Tables(config, 6)
    x = np.random.default_rng(1).normal(size=(6, 8))
    out = turn_pairs(x, tables.cos, tables.sin, tables.pairing)
    np.testing.assert_allclose(
        out[:, :4], 2.0 * apply_rope(x[:, :4], base=50.0, pairing="halves"), atol=1e-13
    )
    np.testing.assert_array_equal(out[:, 4:], x[:, 4:])


def test_default_inv_freq_equals_explicit_frequencies():
    tokens = np.arange(7) % 5
    a = ModelConfig("rope_adjacent", vocab_size=5, d_model=8)
    b = ModelConfig("rope_adjacent", vocab_size=5, d_model=8, inv_freq=frequencies(4))
    params = init_params(a)
    np.testing.assert_array_equal(
        forward_pass(params, a, tokens)[0], forward_pass(params, b, tokens)[0]
    )


# --- ALiBi slopes and T5 buckets ---


def reference_alibi_slopes(n):
    """The recursion of get_slopes in ofirpress/attention_with_linear_biases, as a spec."""

    def power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start**i for i in range(n)]

    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + reference_alibi_slopes(2 * closest)[0::2][: n - closest]


@pytest.mark.parametrize("n_heads", range(1, 33))
def test_alibi_slopes_follow_the_reference_rule(n_heads):
    np.testing.assert_allclose(alibi_slopes(n_heads), reference_alibi_slopes(n_heads), rtol=1e-14)


def transformers_bucket(rel, bidirectional, num_buckets, max_distance):
    """transformers' T5Attention._relative_position_bucket for one int, float32 like torch."""
    bucket = 0
    if bidirectional:
        num_buckets //= 2
        bucket += num_buckets if rel > 0 else 0
        rel = abs(rel)
    else:
        rel = -min(rel, 0)
    max_exact = num_buckets // 2
    if rel < max_exact:
        return bucket + rel
    f32 = np.float32
    large = max_exact + int(
        np.log(f32(rel) / f32(max_exact))
        / f32(math.log(max_distance / max_exact))
        * f32(num_buckets - max_exact)
    )
    return bucket + min(large, num_buckets - 1)


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("num_buckets, max_distance", [(32, 128), (16, 50), (12, 77), (8, 20)])
def test_t5_buckets_match_transformers_on_offsets_to_300(bidirectional, num_buckets, max_distance):
    offsets = np.arange(-300, 301)
    expected = [
        transformers_bucket(int(r), bidirectional, num_buckets, max_distance) for r in offsets
    ]
    got = t5_relative_bucket(
        offsets, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    assert got.tolist() == expected


def test_t5_default_buckets_are_t5s_and_float64_gives_the_same():
    offsets = np.arange(-2000, 2001)
    explicit = t5_relative_bucket(offsets, bidirectional=True, num_buckets=32, max_distance=128)
    assert t5_relative_bucket(offsets).tolist() == explicit.tolist()  # checked against transformers
    # the same offsets computed in float64 give the same buckets for the defaults
    r = np.arange(8, 2000)
    float64 = np.minimum(8 + (np.log(r / 8) / np.log(16) * 8).astype(int), 15)
    assert t5_relative_bucket(-r).tolist() == float64.tolist()


# --- Determinism and Adam ---


def test_same_seed_gives_bit_identical_parameters():
    runs = [
        train("copy_back", "rope_halves", length=8, vocab_size=6, steps=30, seed=s)
        for s in (4, 4, 5)
    ]
    for name in runs[0].params:
        assert np.array_equal(runs[0].params[name], runs[1].params[name])
    assert np.array_equal(runs[0].losses, runs[1].losses)
    assert not np.array_equal(runs[0].params["w_q"], runs[2].params["w_q"])


# --- Facts about trained models (trained once per module) ---


@pytest.fixture(scope="module")
def models():
    def fit(task, method, causal=True):
        return train(
            task,
            method,
            task_arg={"copy_back": 2, "token_at": 0}[task],
            length=L,
            causal=causal,
            seed=0,
        )

    trained = {}
    for task in ("copy_back", "token_at"):
        trained[task, "none", False] = fit(task, "none", causal=False)
        for method in ("none", "sinusoidal", "learned", "rope_adjacent", "rope_halves"):
            trained[task, method, True] = fit(task, method)
    return trained


@pytest.mark.parametrize("task", ["copy_back", "token_at"])
def test_no_position_no_mask_is_permutation_equivariant(models, task):
    model = models[task, "none", False]
    rng = np.random.default_rng(7)
    tokens = rng.integers(0, 16, size=(4, L))
    perm = rng.permutation(L)
    np.testing.assert_allclose(
        model.logits(tokens[:, perm]), model.logits(tokens)[:, perm], rtol=0, atol=1e-12
    )
    # ... so it cannot beat the best order-blind guess (well above 1/vocab)
    ceiling = order_blind_accuracy(model.task, L, 16)
    assert 1 / 16 < ceiling < 0.35
    assert model.accuracy(n_samples=400) <= ceiling + 0.03


def test_nope_with_a_causal_mask_learns_the_prefix_but_not_the_order(models):
    # copy-back k=2: at t = 2 the target is one of the 2 tokens before the query, at t the
    # best order-blind guess is right about 1/t of the time; NoPE reaches that and no more.
    model = models["copy_back", "none", True]
    per_position = model.accuracy(n_samples=1000, per_position=True)
    assert np.isnan(per_position[:2]).all()
    assert per_position[2] > 0.45  # 1/2 at t = 2
    assert per_position[-4:].mean() < 0.2  # about 1/15 at the end
    causal_ceiling = order_blind_accuracy(model.task, L, 16, causal=True)
    assert model.accuracy(n_samples=400) <= causal_ceiling + 0.03
    # ... and it gets there: at every position it matches the best guess from the prefix
    # multiset (the most frequent earlier token other than its own), position by position
    ceiling = order_blind_accuracy(model.task, L, 16, causal=True, per_position=True)
    np.testing.assert_allclose(per_position[2:], ceiling[2:], atol=0.07)
    assert model.accuracy(n_samples=400) > models["copy_back", "none", False].accuracy() + 0.05
    # token_at p=0: the query at t = 1 sees one other token, the target: always right
    first = models["token_at", "none", True].accuracy(n_samples=400, per_position=True)
    assert first[:2].min() > 0.95 and first[-4:].mean() < 0.3


@pytest.mark.parametrize("method", ["sinusoidal", "learned", "rope_adjacent", "rope_halves"])
@pytest.mark.parametrize("task", ["copy_back", "token_at"])
def test_position_methods_learn_both_tasks_at_the_training_length(models, task, method):
    # far above the order-blind ceiling (< 0.35) that permutation equivariance allows
    assert models[task, method, True].accuracy(n_samples=200) >= 0.95


def test_a_learned_table_refuses_positions_past_max_len(models):
    learned = models["copy_back", "learned", True]
    with pytest.raises(ValueError, match="max_len"):
        learned.accuracy(length=2 * L)
    with pytest.raises(ValueError, match="max_len"):
        learned.attention(np.zeros(L + 1, dtype=int))


def test_attention_rows(models):
    model = models["copy_back", "rope_adjacent", True]
    tokens = np.arange(L) % 16
    weights = model.attention(tokens)
    assert weights.shape == (2, L, L)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0)
    assert np.all(np.triu(weights, 1) == 0.0)
    assert model.attention(tokens[None].repeat(3, 0)).shape == (3, 2, L, L)
    # the trained copy-back(2) model looks two tokens back from every query t >= 2
    best_head = weights[:, np.arange(2, L), np.arange(L - 2)].mean(axis=-1).max()
    assert best_head > 0.5


def test_replace_keeps_the_parameters(models):
    model = models["copy_back", "rope_adjacent", True]
    changed = model.replace(attention_factor=1.0)
    np.testing.assert_array_equal(changed.logits(np.arange(5)), model.logits(np.arange(5)))
    assert isinstance(changed, TrainedModel)
    with pytest.raises(TypeError, match="colour"):
        model.replace(colour="red")


# --- Tasks ---


def test_task_generators():
    batch = task_batch(Task("copy_back", 3), 4, 9, 7, seed=2)
    assert batch.tokens.shape == (4, 9) and batch.tokens.max() < 7
    assert (batch.targets[:, 3:] == batch.tokens[:, :-3]).all()
    assert (batch.targets[:, :3] == -1).all() and not batch.scored[:, :3].any()
    at = task_batch(Task("token_at", 4), 4, 9, 7, seed=2)
    assert (at.targets[:, 4:] == at.tokens[:, 4:5]).all() and not at.scored[:, :4].any()
    # same seed, same draw
    assert np.array_equal(task_batch("copy_back", 4, 9, 7, seed=2).tokens, at.tokens)
    assert not np.array_equal(task_batch("copy_back", 4, 9, 7, seed=3).tokens, at.tokens)


def brute_force_order_blind(task, length, vocab):
    """Best accuracy of any function of (own token, multiset of all tokens), by enumeration."""
    hits = {}
    for seq in itertools.product(range(vocab), repeat=length):
        bag = tuple(sorted(seq))
        for t in range(length):
            if t < task.arg:  # not scored
                continue
            target = seq[t - task.arg] if task.name == "copy_back" else seq[task.arg]
            counts = hits.setdefault((seq[t], bag), np.zeros(vocab))
            counts[target] += 1
    scored = sum(c.sum() for c in hits.values())
    return sum(c.max() for c in hits.values()) / scored


@pytest.mark.parametrize("task", [Task("copy_back", 1), Task("token_at", 0), Task("token_at", 2)])
def test_order_blind_accuracy_is_the_bayes_ceiling(task):
    exact = brute_force_order_blind(task, 4, 3)
    assert order_blind_accuracy(task, 4, 3, n_samples=20000, seed=1) == pytest.approx(
        exact, abs=0.01
    )


# --- Argument checks at the doors: the type and the parameter's name ---


@pytest.mark.parametrize(
    "kwargs, error, name",
    [
        (dict(vocab_size=1), ValueError, "vocab_size"),
        (dict(method="learned"), TypeError, "max_len"),
        (dict(method="rope_adjacent", d_head=3), ValueError, "d_head"),
        (dict(method="rope_adjacent", inv_freq=[1.0] * 5), ValueError, "inv_freq"),
        (dict(method="alibi", slopes=[1.0]), ValueError, "slopes"),
        (dict(method="t5_bias", num_buckets=4, max_distance=2), ValueError, "max_distance"),
        (dict(method="t5_bias", causal=False, num_buckets=3), ValueError, "num_buckets"),
    ],
)
def test_bad_config(kwargs, error, name):
    options = dict(method="none", vocab_size=4, d_model=8) | kwargs
    with pytest.raises(error, match=rf"\b{name}\b"):
        ModelConfig(**options)


@pytest.mark.parametrize(
    "call, error, name",
    [
        (lambda: train("copy_back", "none", width=3), TypeError, "width"),
        (lambda: train("copy_back", "none", task_arg=16, length=16), ValueError, "length"),
        (lambda: train("copy_back", "none", params={"embed": 1}), ValueError, "params"),
        (lambda: train("repeated", "none", length=24, vocab_size=8), ValueError, "vocab_size"),
        (lambda: task_batch(Task("copy_back", 5), 2, 5, 4), ValueError, "length"),
        (lambda: task_batch(Task("token_at", -1), 2, 3, 4), ValueError, "arg"),
        (lambda: task_batch("copy_back", 2, 5, 4, seed=-1), ValueError, "seed"),
        (lambda: task_batch("passkey", 2, 2, 8), ValueError, "length"),
        (lambda: train("skip_back", "none", task_arg=20, length=16), ValueError, "task_arg"),
        (lambda: task_batch(make_task("skip_back", 5), 2, 8, 5), ValueError, "length"),
        (lambda: order_blind_accuracy("repeated", 8, 4), ValueError, "task"),
        (lambda: alibi_bias(3, 2, slopes=[1.0]), ValueError, "slopes"),
    ],
)
def test_bad_arguments_at_the_doors(call, error, name):
    with pytest.raises(error, match=rf"\b{name}\b"):
        call()


def test_a_trained_models_methods_check_the_learners_values(models):
    model = models["copy_back", "learned", True]
    for tokens, error in (([0, 16], ValueError), ([0.0, 1.0], TypeError)):
        with pytest.raises(error, match="tokens"):
            model.logits(tokens)
    with pytest.raises(ValueError, match="layer"):
        model.attention(np.arange(4), layer=2)
    with pytest.raises(ValueError, match="n_samples"):
        model.accuracy(n_samples=10**6)


def test_train_checks_each_argument_once(monkeypatch):
    """One call of train: every argument through one check of pe_helpers._validate, once."""
    import sys
    from collections import Counter

    import pe_helpers._validate as validate

    counts: Counter = Counter()
    # check_memory names a size, not an argument: the arguments' own checks are counted
    checks = [n for n in dir(validate) if n.startswith("check_") and n != "check_memory"]
    checks.append("as_array")
    for check in checks:
        original = getattr(validate, check)

        def counted(name, *args, _original=original, **kwargs):
            counts[str(name).split()[0]] += 1  # "task_arg (the argument of ...)" is task_arg
            return _original(name, *args, **kwargs)

        for module in list(sys.modules.values()):
            if (
                module.__name__.startswith("pe_helpers")
                and module is not validate  # one check calling another is one check
                and getattr(module, check, None) is original
            ):
                monkeypatch.setattr(module, check, counted)
    base = train("copy_back", "learned", length=6, vocab_size=5, steps=1, d_model=8)
    for method, options in [
        ("learned", {}),
        ("rope_adjacent", dict(inv_freq=[1.0, 0.5])),
        ("alibi", dict(slopes=[0.5, 0.25], n_layers=2)),
        ("t5_bias", dict(causal=False, num_buckets=8, max_distance=16)),
        ("cope", dict(task="skip_back", task_arg=2, cope_positions=4)),
    ]:
        counts.clear()
        arguments = dict(length=6, vocab_size=5, steps=2, batch_size=3, lr=0.01, seed=1)
        arguments |= dict(d_model=8, n_heads=2, task_arg=1) | options
        task = arguments.pop("task", "copy_back")
        if method == "learned":
            arguments["params"] = base.params
        train(task, method, **arguments)
        named = {"task", "method", *arguments} - {"params"}
        if "params" in arguments:
            named |= {f"params[{name!r}]" for name in base.params}
        # every argument once; what the forward pass hands the attention's own doors (the
        # softmax's scores, say) is not an argument of train
        assert {name: counts[name] for name in named} == dict.fromkeys(named, 1), (method, counts)
