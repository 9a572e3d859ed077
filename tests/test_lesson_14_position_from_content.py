"""Lesson 14 · Position from content: CoPE and the forget gate in the model, the task, PaTH's
maths, the figure's inputs and the checkers."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pe_helpers.lessons import position_from_content as pc
from pe_helpers.model import ModelConfig, forward_pass, gradient_check, init_params
from pe_helpers.tasks import Task, make_task, task_batch
from pe_helpers.training import train

# --- the two methods in the model ---------------------------------------------------------------


@pytest.mark.parametrize("method", ["cope", "forgetting"])
@pytest.mark.parametrize("n_layers", [1, 2, 3])
def test_content_gradients_match_central_differences(method, n_layers):
    config = ModelConfig(
        method, vocab_size=5, d_model=6, n_heads=2, n_layers=n_layers, cope_positions=3
    )
    errors = gradient_check(config, length=6)
    assert max(errors.values()) < 1e-6, errors
    extra = {"cope": "cope_pos", "forgetting": "w_forget"}[method]
    assert extra in errors and (n_layers == 1 or f"layer1.{extra}" in errors)


def test_cope_with_every_gate_open_counts_tokens():
    """Gates of 1 make p_ij = i - j + 1: CoPE's term is then a relative table in tokens."""
    model = train(
        "skip_back",
        "cope",
        task_arg=1,
        length=6,
        vocab_size=4,
        d_model=4,
        n_heads=1,
        cope_positions=16,
        steps=1,
    )
    params = model.params
    params["w_k"][:] = params["w_q"][:] = 50.0  # huge positive scores: every σ is 1
    params["embed"][:] = np.abs(params["embed"]) + 1.0
    positions = pc.cope_positions(model, [1, 2, 3, 1, 2])[0]
    n = 5
    want = np.where(
        np.tril(np.ones((n, n), dtype=bool)), np.subtract.outer(np.arange(n), np.arange(n)) + 1, 0
    )
    np.testing.assert_allclose(positions, want, atol=1e-9)


def test_forget_gate_of_one_is_no_position_at_all():
    """f = 1 everywhere adds nothing: the forgetting model is then the NoPE model."""
    config = ModelConfig("forgetting", vocab_size=5, d_model=4, n_heads=1)
    nope = ModelConfig("none", vocab_size=5, d_model=4, n_heads=1)
    params = init_params(config, seed=3)
    params["b_forget"] = np.full(1, 60.0)  # σ(60) = 1 to machine precision
    params["w_forget"] = np.zeros_like(params["w_forget"])
    plain = {k: v for k, v in params.items() if k not in ("w_forget", "b_forget")}
    tokens = [0, 1, 2, 3, 4, 1]
    np.testing.assert_allclose(
        forward_pass(params, config, tokens)[0], forward_pass(plain, nope, tokens)[0]
    )


# --- the task -----------------------------------------------------------------------------------


def test_skip_back_targets_are_the_kth_word_back():
    batch = task_batch(Task("skip_back", 2), 20, 30, 7, seed=5)
    for tokens, targets, scored in zip(*batch, strict=True):
        for t in range(30):
            words = tokens[: t + 1][tokens[: t + 1] != 0]
            assert scored[t] == (words.size >= 2)
            if scored[t]:
                assert targets[t] == words[-2]
    assert 0.4 < (batch.tokens == 0).mean() < 0.6


# --- the lesson's maths ---------------------------------------------------------------------------


def test_word_counts_and_the_map():
    assert pc.word_counts([0, 4, 0, 2]).tolist() == [
        [0, 0, 0, 0],
        [1, 1, 0, 0],
        [1, 1, 0, 0],
        [2, 2, 1, 1],
    ]
    assert set(pc.SCORE_TERMS) >= {"CoPE", "forget gate (FoX)", "PaTH", "RoPE"}


def test_path_with_one_rotation_is_rope_and_ignores_what_came_before():
    rng = np.random.default_rng(1)
    n, d = 6, 2
    angle = 0.3
    turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    q, k = rng.normal(size=(n, d)), rng.normal(size=(n, d))
    scores = pc.path_scores(q, k, np.broadcast_to(turn, (n, d, d)))
    for i in range(n):
        for j in range(i + 1):
            power = np.linalg.matrix_power(turn, i - j)
            assert scores[i, j] == pytest.approx(k[j] @ power @ q[i])
    assert np.isneginf(scores[0, 1])
    w = rng.normal(size=(n, d))
    h = np.stack([pc.path_transform(w[t], 1.3) for t in range(n)])
    whole = pc.path_scores(q, k, h)
    later = pc.path_scores(q[2:], k[2:], h[2:])
    seen = np.tril(np.ones((n - 2, n - 2), dtype=bool))
    np.testing.assert_allclose(whole[2:, 2:][seen], later[seen])


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        (lambda: pc.path_scores(np.ones((3, 2)), np.ones((3, 3))), ValueError, "k"),
        (
            lambda: pc.path_scores(np.ones((3, 2)), np.ones((3, 2)), np.ones((2, 2, 2))),
            ValueError,
            "transforms",
        ),
        (lambda: pc.path_scores(np.ones((100_000, 2)), np.ones((100_000, 2))), ValueError, "q"),
        (lambda: pc.path_transform(np.ones(10_000), 2.0), ValueError, "w"),
        (lambda: pc.train_skip_back("t5_bias"), ValueError, "method"),
        (lambda: pc.ContentGates({"CoPE": None}), ValueError, "models"),
        (
            lambda: pc.gate_summary(train("skip_back", "none", length=8, steps=1)),
            ValueError,
            "model",
        ),
        (lambda: ModelConfig("cope", vocab_size=4, causal=False), ValueError, "causal"),
        (lambda: ModelConfig("forgetting", vocab_size=4, causal=False), ValueError, "causal"),
        (lambda: ModelConfig("cope", vocab_size=4, cope_positions=1), ValueError, "cope_positions"),
    ],
)
def test_bad_arguments_are_named(call, error, name):
    with pytest.raises(error, match=rf"\b{name}\b"):
        call()


# --- the checkers -------------------------------------------------------------------------------


def test_checkers_accept_the_right_answers():
    assert pc.check_cope_positions(pc.exercises.positions_from_gates).status == "correct"
    assert pc.check_forget_bias(pc.exercises.forget_bias).status == "correct"


def _c(f):
    return np.cumsum(np.log(f))


@pytest.mark.parametrize(
    ("checker", "slip", "words"),
    [
        ("cope_positions", lambda g: np.tril(np.cumsum(np.tril(g), axis=-1)), "from the first key"),
        ("cope_positions", lambda g: pc.exercises.positions_from_gates(g) - np.tril(g), "own gate"),
        ("cope_positions", lambda g: np.flip(np.cumsum(np.flip(g, -1), -1), -1), "after the query"),
        ("forget_bias", lambda f: np.tril(_c(f)[:, None] - _c(f) + np.log(f)), "l = j + 1"),
        ("forget_bias", lambda f: np.tril(np.exp(_c(f)[:, None] - _c(f))), "logarithm"),
        ("forget_bias", lambda f: np.tril(_c(f) - _c(f)[:, None]), "sign"),
    ],
)
def test_checkers_name_each_slip(checker, slip, words):
    feedback = getattr(pc, f"check_{checker}")(slip)
    assert feedback.status == "wrong" and words in feedback.message


def _upper_ones(n: int) -> np.ndarray:
    return np.triu(np.ones((n, n)), 1)


def _row_shown(message: str) -> np.ndarray:
    """The row a feedback message shows (the first bracketed list), as an array."""
    start = message.index("[", message.index("row"))
    return np.array(json.loads(message[start : message.index("]", start) + 1]))


@pytest.mark.parametrize(
    ("checker", "right", "size_of"),
    [
        (pc.check_cope_positions, pc.exercises.positions_from_gates, lambda g: g.shape[0]),
        (pc.check_forget_bias, pc.exercises.forget_bias, lambda f: f.shape[0]),
    ],
)
def test_checkers_show_a_row_that_differs(checker, right, size_of):
    # Wrong only above the diagonal: the feedback says so and shows a row with the wrong entries.
    above = checker(lambda x: right(x) + _upper_ones(size_of(x)))
    assert above.status == "wrong" and "above the diagonal" in above.message
    assert _row_shown(above.message)[1:].max() == pytest.approx(1.0)

    # Wrong only in row 2: the feedback shows row 2, not the (right) last row.
    def scaled(x):
        answer = right(x).copy()
        answer[2] *= 1.5
        return answer

    inside = checker(scaled)
    assert inside.status == "wrong" and "row 2" in inside.message


def test_content_gates_titles_stay_inside_the_figure_at_every_setting():
    # The layout is made once, at the start: a longer title later must still fit.
    view = pc.ContentGates().view()
    outside = []
    for method in pc.ContentGates.controls["method"].options:
        view.controls["method"].value = method
        for sequence in range(8):
            view.controls["sequence"].value = sequence
            for query in (1, 2, 3, 13, 14, 15):  # the first words and the longest answers
                view.controls["query"].value = query
                for ax in view.figure.axes:
                    box = ax.title.get_window_extent()
                    if box.x0 < 0 or box.x1 > view.figure.bbox.x1:
                        outside.append((method, sequence, query, ax.get_title()))
    view.close()
    assert not outside, outside[:3]
