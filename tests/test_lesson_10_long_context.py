"""Lesson 10 · Stretching RoPE to longer contexts: helpers, the figure and the checkers."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest

from pe_helpers import apply_rope
from pe_helpers.lessons.long_context import (
    ENGINE_BLOCK,
    ENGINE_HEAD_DIM,
    SEED_EXPERIMENTS,
    PairScaling,
    aligned_scores,
    check_llama3_pairs,
    check_ntk_base,
    check_yarn_engines,
    dynamic_key_angles,
    fine_tuned,
    fine_tuned_accuracies,
    format_seed_table,
    method_frequencies,
    outside_spread,
    rope_block,
    rotate,
    stretched,
    stretched_accuracies,
    yarn_engines,
)
from pe_helpers.lessons.long_context.figures import FIGURE_METHODS, PRESETS
from pe_helpers.lessons.long_context.maths import METHODS, length_key, metric_key
from pe_helpers.rope_configs import model_rope_config
from pe_helpers.rope_scaling import (
    classify_pairs,
    default_frequencies,
    ntk_aware_base,
    rope_frequencies,
)
from pe_helpers.seeds import SeedResults, load_results
from pe_helpers.training import train

RNG = np.random.default_rng(10)
LLAMA31 = dict(head_dim=128, factor=8.0, original=8192, rope_theta=500000.0)


@pytest.fixture(scope="module")
def model():
    return train("copy_back", "rope_adjacent", length=8, vocab_size=6, steps=20)


# --- the methods --------------------------------------------------------------------------------


def _freqs(method, **changes):
    args = {**LLAMA31, **changes}
    return method_frequencies(
        method, args.pop("head_dim"), args.pop("factor"), args.pop("original"), **args
    )


def test_every_block_is_one_rope_frequencies_accepts():
    for method in METHODS:
        if method == "NTK-aware":
            continue
        block = rope_block(method, 4.0, 2048, rope_theta=5e5)
        inv, att = rope_frequencies(block, 64, max_position_embeddings=2048)
        assert inv.shape == (32,) and att > 0


def test_pi_divides_every_pair_and_ntk_aware_keeps_the_ends_as_promised():
    plain = default_frequencies(5e5, 128)
    assert np.allclose(_freqs("PI")[0], plain / 8)
    ntk, factor = _freqs("NTK-aware")
    assert factor == 1.0 and ntk[0] == 1.0 and np.isclose(ntk[-1], plain[-1] / 8)
    assert np.allclose(ntk, default_frequencies(ntk_aware_base(5e5, 128, 8.0), 128))


def test_llama3_is_ntk_by_parts_with_alpha_1_beta_4_and_not_yarn():
    plain = default_frequencies(5e5, 128)
    r = 8192 / (2 * np.pi / plain)  # turns within L0, written out
    gamma = np.clip((r - 1) / 3, 0, 1)  # YaRN paper, equation 18 with alpha = 1, beta = 4
    llama3, m = _freqs("Llama 3")
    assert np.allclose(llama3, (1 - gamma) * plain / 8 + gamma * plain, rtol=1e-12, atol=0)
    assert m == 1.0
    assert np.allclose(llama3, model_rope_config("llama-3.1-8b").frequencies()[0])
    yarn, m_yarn = _freqs("YaRN")
    assert (~np.isclose(llama3, yarn)).sum() == 16 and np.isclose(m_yarn, 0.1 * np.log(8) + 1)


def test_dynamic_ntk_changes_nothing_up_to_its_reference_length():
    plain = default_frequencies(1e4, 64)
    for length in (None, 100, 2048):
        inv, _ = method_frequencies("dynamic NTK", 64, 4.0, 2048, length=length)
        assert np.array_equal(inv, plain)
    longer, _ = method_frequencies("dynamic NTK", 64, 1.0, 2048, length=4 * 2048)
    assert np.allclose(longer, default_frequencies(ntk_aware_base(1e4, 64, 4.0), 64))


def test_rotate_with_plain_frequencies_is_lessons_07_rope():
    x = RNG.normal(size=(5, 16))
    positions = np.array([0.0, 1.0, 3.0, 10.0, 77.0])
    angles = np.multiply.outer(positions, default_frequencies(1e4, 16))
    assert np.allclose(rotate(x, angles), apply_rope(x, positions))


def test_the_attention_factor_scales_a_score_by_its_square():
    q, k = RNG.normal(size=8), RNG.normal(size=8)
    angles = RNG.normal(size=4)
    plain = rotate(q, angles) @ rotate(k, 2 * angles)
    assert np.isclose(rotate(q, angles, 1.5) @ rotate(k, 2 * angles, 1.5), 2.25 * plain)


def test_aligned_scores_start_at_m_squared_and_pi_stretches_the_curve():
    plain = default_frequencies(1e4, 32)
    distances = np.arange(0, 200, dtype=float)
    assert aligned_scores(plain, [0.0], 1.3)[0] == pytest.approx(1.69)
    assert np.allclose(aligned_scores(plain / 4, 4 * distances), aligned_scores(plain, distances))


def test_cached_keys_under_dynamic_ntk_keep_the_angles_of_their_own_step():
    cached, current = dynamic_key_angles([0, 10, 4095, 5000, 8191], 8192, 32, 2.0, 4096)
    assert cached.shape == current.shape == (5, 16)
    assert np.all(cached[:, 0] == current[:, 0])  # pair 0 turns at 1 rad/token under any base
    assert np.allclose(cached[-1], current[-1])  # the newest key was rotated with today's base
    plain = default_frequencies(1e4, 32)
    assert np.allclose(cached[2], 4095 * plain)  # below L_max the base never changed
    assert not np.allclose(cached[2], current[2])


# --- lesson 08's model ----------------------------------------------------------------------------


def test_stretched_swaps_only_the_frequencies(model):
    same = stretched(model, "RoPE", 4.0)
    tokens = np.arange(16) % 6
    assert np.allclose(same.logits(tokens), model.logits(tokens))
    pi = stretched(model, "PI", 4.0)
    assert np.allclose(pi.config.inv_freq, default_frequencies(1e4, model.config.d_head) / 4)
    yarn = stretched(model, "YaRN", 4.0)
    assert yarn.config.attention_factor == pytest.approx(0.1 * np.log(4) + 1)
    assert all(np.array_equal(pi.params[k], model.params[k]) for k in model.params)


def test_fine_tuned_trains_at_the_new_length_from_the_old_weights(model):
    tuned = fine_tuned(model, "NTK-aware", 2.0, length=16, steps=2)
    assert tuned.length == 16 and tuned.losses.shape == (2,)
    assert tuned.config.inv_freq == stretched(model, "NTK-aware", 2.0).config.inv_freq


def test_stretched_accuracies_test_each_method_as_stretched_does(model):
    table = stretched_accuracies(model, 2.0, [8, 16], methods=["PI", "dynamic NTK"])
    assert list(table) == ["PI", "dynamic NTK"]
    pi = stretched(model, "PI", 2.0)
    assert table["PI"].tolist() == [pi.accuracy(length=8), pi.accuracy(length=16)]
    # dynamic NTK: its base at each test length
    at_16 = stretched(model, "dynamic NTK", 2.0, length=16)
    assert table["dynamic NTK"][1] == at_16.accuracy(length=16)
    assert table["dynamic NTK"][0] == model.accuracy(length=8)  # nothing changes up to L0
    assert list(stretched_accuracies(model, 2.0, [8])) == list(METHODS)


def test_fine_tuned_accuracies_are_fine_tuned_models_tested(model):
    table = fine_tuned_accuracies(
        model, 2.0, length=16, steps=2, lengths=[8, 16], methods=["YaRN"], seed=4
    )
    tuned = fine_tuned(model, "YaRN", 2.0, length=16, steps=2, seed=4)
    assert table["YaRN"].tolist() == [tuned.accuracy(length=8), tuned.accuracy(length=16)]
    other = fine_tuned_accuracies(model, 2.0, length=16, steps=2, lengths=[16], methods=["YaRN"])
    assert other["YaRN"][0] == fine_tuned(model, "YaRN", 2.0, length=16, steps=2).accuracy(
        length=16
    )  # the default seed is fine_tuned's


def test_metric_names_write_methods_and_lengths_as_the_results_file_does():
    keys = "/".join(metric_key(m) for m in METHODS)
    assert keys == "RoPE/PI/NTK-aware/dynamic_NTK/YaRN/Llama_3"

    assert [length_key(n, 16) for n in (16, 32, 64)] == ["L", "2L", "4L"]


def test_the_seed_table_puts_this_run_beside_each_metrics_spread():
    spread = SeedResults(
        "demo",
        (0, 1, 2),
        {
            "g.PI.L": np.array([0.1, 0.2, 0.3]),
            "g.PI.4L": np.array([0.05, 0.5, 0.9]),
            "g.dynamic_NTK.L": np.array([1.0, 1.0, 1.0]),
            "g.dynamic_NTK.4L": np.array([0.7, 0.8, 0.75]),
        },
    )
    text = format_seed_table(
        "title",
        {"PI": [0.2, 0.5], "dynamic NTK": np.array([1.0, 0.8])},
        spread,
        "g",
        [16, 64],
        train_length=16,
    )
    lines = text.splitlines()
    assert "over 3 seeds" in lines[0] and "median" in lines[0]
    assert lines[1].split() == ["title", "L", "=", "16", "4L", "=", "64"]
    assert " ".join(lines[2].split()) == "PI 20% (10–30; median 20) 50% (5–90; median 50)"
    assert " ".join(lines[3].split()[2:]) == "100% (100–100; median 100) 80% (70–80; median 75)"

    assert len({len(line) for line in lines[1:]}) == 1  # columns line up


def test_outside_spread_names_the_metrics_this_run_leaves():
    spread = SeedResults(
        "demo", (0, 1), {"g.PI.L": np.array([0.2, 0.4]), "g.PI.2L": np.array([0.1, 0.3])}
    )
    table = {"PI": [0.41, 0.33]}
    assert outside_spread(table, spread, "g", [16, 32], train_length=16) == ["g.PI.2L"]
    assert outside_spread(table, spread, "g", [16, 32], train_length=16, slack=0.05) == []


def test_the_no_fine_tuning_group_reproduces_the_shipped_values():
    # test_seeds re-trains only the cheapest group ("trained"); this one swaps frequencies
    shipped = load_results("long_context")
    measured = SEED_EXPERIMENTS["stretched"](9)
    assert {f"stretched.{name}" for name in measured} == {
        name for name in shipped.names if name.startswith("stretched.")
    }
    for name, value in measured.items():
        assert value == shipped[f"stretched.{name}"][9], name


def test_each_seed_is_one_draw_of_the_model_and_of_its_fine_tuning_data(monkeypatch):
    from pe_helpers.lessons.long_context import maths

    seeds = []

    def one_step(*args, seed, **options):  # train, but one step: only the seeds matter here
        seeds.append(seed)
        return train(*args, seed=seed, **{**options, "steps": 1})

    monkeypatch.setattr(maths, "train", one_step)
    measured = SEED_EXPERIMENTS["tuned"](3)
    assert seeds == [3] + [4] * 6  # the model, five 10-step fine-tunes and PI's 100 steps
    assert "PI_100_steps.4L" in measured and "Llama_3.L" in measured


def test_the_guide_and_the_cheatsheet_quote_the_shipped_spread():
    spread = load_results("long_context")
    docs = Path(__file__).resolve().parents[1] / "docs"
    guide = (docs / "instructor_guide.md").read_text(encoding="utf-8")
    section = guide[guide.index("## Lesson 10 ·") : guide.index("## Lesson 11 ·")]
    for name, quoted in [
        ("stretched.PI.L", "13–35%"),
        ("stretched.Llama_3.L", "44–70%"),
        ("tuned.PI.4L", "19–73%"),
        ("tuned.PI_100_steps.4L", "82–100%"),
    ]:
        over = f" over {len(spread.seeds)} seeds"
        assert spread.describe(name).startswith(quoted + over) and quoted in section
    cheatsheet = (docs / "cheatsheet.md").read_text(encoding="utf-8")
    medians = ", ".join(
        f"{method} {100 * spread.median(f'stretched.{metric_key(method)}.L'):.0f}% / "
        f"{100 * spread.median(f'stretched.{metric_key(method)}.4L'):.0f}%"
        for method in METHODS
    )
    assert medians in " ".join(cheatsheet.split()), medians


# --- what the doors refuse -----------------------------------------------------------------------

_SPREAD = SeedResults("demo", (0, 1), {"g.PI.L": np.array([0.2, 0.4])})


def _sinusoidal():
    return train("copy_back", "sinusoidal", length=6, vocab_size=4, steps=1)


def _seed_table(table=None, lengths=(16,), title="t", spread=_SPREAD):
    table = {"PI": [0.2]} if table is None else table
    return format_seed_table(title, table, spread, "g", list(lengths), train_length=16)


def _tuned(m, **kwargs):
    args = {"length": 16, "steps": 1, "lengths": [16], "methods": ["PI"]} | kwargs
    return fine_tuned_accuracies(m, 2.0, **args)


# (call on the module's model, error type, the parameter the message names)
BAD_ARGUMENTS = [
    (lambda m: rope_block("ntk", 2.0, 16), ValueError, "method"),
    (lambda m: rope_block("NTK-aware", 2.0, 16), ValueError, "method"),
    (lambda m: rope_block("PI", 0.5, 16), ValueError, "factor"),
    (lambda m: method_frequencies("PI", 2048, 2.0, 16), ValueError, "head_dim"),
    (lambda m: method_frequencies("PI", 15, 2.0, 16), ValueError, "head_dim"),
    (lambda m: rotate(np.ones(3), [0.0]), ValueError, "x"),
    (lambda m: rotate(np.ones(4), [0.0, 0.0, 0.0]), ValueError, "angles"),
    (lambda m: aligned_scores([1.0], np.zeros(200_001)), ValueError, "distances"),
    (lambda m: aligned_scores(np.ones(1000), [1.0]), ValueError, "inv_freq"),
    (lambda m: dynamic_key_angles([8192], 8192, 32, 2.0, 4096), ValueError, "key_positions"),
    (lambda m: dynamic_key_angles([1.5], 8192, 32, 2.0, 4096), ValueError, "key_positions"),
    (
        lambda m: dynamic_key_angles(np.arange(5000), 8192, 32, 2.0, 4096),
        ValueError,
        "key_positions",
    ),
    (lambda m: stretched(_sinusoidal(), "PI", 2.0), TypeError, "model"),
    (lambda m: stretched(m, "pi", 2.0), ValueError, "method"),
    (lambda m: fine_tuned(m, "PI", 2.0, length=16, steps=10_000), ValueError, "steps"),
    (lambda m: stretched_accuracies(m, 2.0, [16, 2048]), ValueError, "lengths"),
    (lambda m: stretched_accuracies(m, 2.0, [1024] * 5), ValueError, "lengths"),
    (lambda m: stretched_accuracies(m, 2.0, [16], methods=["pi"]), ValueError, "methods"),
    (lambda m: stretched_accuracies(m, 2.0, [16], methods=["PI", "PI"]), ValueError, "methods"),
    (lambda m: _tuned(m, steps=2000, length=1024), ValueError, "steps"),
    (lambda m: _seed_table(lengths=[16, 64]), ValueError, "table"),
    (lambda m: _seed_table({"YaRN": [0.2]}), ValueError, "spread"),  # issue 32: not KeyError
    (lambda m: _seed_table(lengths=[20]), ValueError, "lengths"),
    (lambda m: _seed_table(title=3), TypeError, "title"),
    (lambda m: _seed_table(spread={}), TypeError, "spread"),
    (
        lambda m: outside_spread({"PI": [0.2, 0.3]}, _SPREAD, "g", [16], train_length=16),
        ValueError,
        "table",
    ),
    (lambda m: PairScaling().draw(preset="llama-3-8b"), ValueError, "preset"),
]


@pytest.mark.parametrize(("call", "error", "name"), BAD_ARGUMENTS)
def test_the_doors_name_the_bad_argument(model, call, error, name):
    with pytest.raises(error, match=rf"\b{name}\b"):
        call(model)
    plt.close("all")


# --- the figure -----------------------------------------------------------------------------------


def test_presets_are_the_shipped_geometries():
    llama = model_rope_config("llama-3.1-8b")
    assert PRESETS["llama-3.1-8b"].rope_theta == llama.rope_parameters["rope_theta"]
    assert PRESETS["lesson-08"].head_dim == 16  # lesson 08's model: d_model 32, two heads
    for name in list(PRESETS)[1:]:  # every other preset is a shipped model, by its name
        assert PRESETS[name].head_dim == model_rope_config(name).head_dim


def test_the_preset_is_picked_by_name_from_a_list():
    import ipywidgets as widgets

    control = PairScaling.controls["preset"]
    names = ("lesson-08", "llama-2-7b", "llama-3.1-8b", "deepseek-v3", "gemma-3-4b-global")
    assert (control.kind, control.options, control.default) == ("choice", names, "llama-3.1-8b")
    view = PairScaling().view(preset="deepseek-v3")
    menu = view.controls["preset"]
    assert isinstance(menu, widgets.Dropdown) and tuple(v for _, v in menu.options) == names
    menu.value = "lesson-08"
    assert view.figure.axes[0].get_title() == "lesson 08 model\nd = 16, θ = 10,000"
    view.close()


def test_the_figure_shows_each_methods_ratio_per_pair_and_the_title_names_the_preset():
    figure = plt.figure(layout="constrained")  # as every drawing of a live figure is
    axes = figure.subplots(1, 2)
    view = PairScaling()
    art = view.build(axes)
    view.update(art, preset="deepseek-v3", factor=40, log2_length=12, beta_fast=32, beta_slow=1.0)
    plain = default_frequencies(1e4, 64)
    for method in FIGURE_METHODS:
        inv, _ = method_frequencies(method, 64, 40.0, 4096)
        assert np.allclose(art.pairs[method].get_ydata(), inv / plain)
    assert art.left.get_title().startswith("DeepSeek-V3")
    assert art.right.get_title().endswith(f"× {(0.1 * np.log(40) + 1) ** 2:.2f}")
    assert art.right.get_xlim() == pytest.approx((1, 64 * 4096))
    assert art.curves["PI"].get_xdata().max() == 40 * 4096
    plt.close(figure)


# --- exercise 1: the NTK-aware base ---------------------------------------------------------------


def test_ntk_base_accepts_right_answers_including_float32():
    assert check_ntk_base(lambda b, d, s: np.float32(b * s ** (d / (d - 2))))
    assert check_ntk_base(lambda b, d, s: np.array([b * s ** (d / (d - 2))]))


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (lambda b, d, s: b * s, "multiplied the base by s"),
        (lambda b, d, s: b * s ** ((d - 2) / d), "upside down"),
        (lambda b, d, s: b / s ** (d / (d - 2)), "divided"),
        (lambda b, d, s: b * s ** ((d / 2) / (d / 2 - 2)), "not the number of pairs"),
        (lambda b, d, s: b, "unchanged"),
        (lambda b, d, s: ntk_aware_base(1e4, 128, 2.0), "same number for different inputs"),
        (lambda b, d, s: b * s**2, "expected b · s^(d/(d − 2))"),
        (lambda b, d, s: default_frequencies(b, d), "one number"),
    ],
)
def test_ntk_base_names_each_slip_and_unusable_answer(answer, words):
    feedback = check_ntk_base(answer)
    assert feedback.status == "wrong" and words in feedback.message


# --- exercise 2: llama3 pairs ------------------------------------------------------------------


def _right(config):
    return classify_pairs(config["rope_parameters"], config["head_dim"])


def _by_rule(config, *, original=None, low=None, high=None, labels=("kept", "interpolated")):
    block, d = config["rope_parameters"], config["head_dim"]
    original = original or block["original_max_position_embeddings"]
    low = low or block["low_freq_factor"]
    high = high or block["high_freq_factor"]
    wavelength = 2 * np.pi * block["rope_theta"] ** (np.arange(0, d, 2) / d)
    out = np.full(d // 2, "ramped", dtype=object)
    out[wavelength < original / high] = labels[0]
    out[wavelength > original / low] = labels[1]
    return list(out)


def test_llama3_pairs_accepts_right_answers_in_any_container():
    assert check_llama3_pairs(_by_rule)
    assert check_llama3_pairs(lambda c: tuple(str(x).upper() for x in _right(c)))
    assert check_llama3_pairs(lambda c: ["extrapolated" if x == "kept" else x for x in _right(c)])


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (lambda c: _by_rule(c, original=c["max_position_embeddings"]), "max_position_embeddings"),
        (
            lambda c: _by_rule(
                c,
                low=c["rope_parameters"]["high_freq_factor"],
                high=c["rope_parameters"]["low_freq_factor"],
            ),
            "swapped",
        ),
        (lambda c: _by_rule(c, labels=("interpolated", "kept")), "wrong way round"),
        (
            lambda c: classify_pairs({**c["rope_parameters"], "rope_type": "yarn"}, c["head_dim"]),
            "YaRN's rule",
        ),
        (lambda c: ["kept"] * (c["head_dim"] // 2), "labels differ"),
        (lambda c: _right(c)[:-1], "one label per pair"),
        (lambda c: np.zeros(c["head_dim"] // 2), "must be the word"),
        (lambda c: ["fast"] * (c["head_dim"] // 2), "unknown label"),
        (lambda c: "kept", "list or array of labels"),
    ],
)
def test_llama3_pairs_names_each_slip_and_unusable_answer(answer, words):
    feedback = check_llama3_pairs(answer)
    assert feedback.status == "wrong" and words in feedback.message


def test_llama3_pairs_passes_copies_and_its_second_case_has_every_label():
    def mutate(config):
        labels = _right(config)
        config["rope_parameters"]["original_max_position_embeddings"] = 1  # in place
        return labels

    assert check_llama3_pairs(mutate)  # the checker's own configs are untouched
    made_up = {
        "rope_type": "llama3",
        "rope_theta": 10000.0,
        "factor": 4.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 8.0,
        "original_max_position_embeddings": 2048,
    }
    assert set(classify_pairs(made_up, 64)) == {"kept", "ramped", "interpolated"}


# --- exercise 3: the attention factor in three engines ------------------------------------------

_RIGHT_ENGINES = {"A": "doubled", "B": "right", "C": "missing"}


def test_the_engines_differ_only_in_the_attention_factor():
    _, m = rope_frequencies(ENGINE_BLOCK, ENGINE_HEAD_DIM)
    assert np.isclose(m, 0.1 * np.log(4.0) + 1)
    q, k = np.random.default_rng(3).normal(size=(2, ENGINE_HEAD_DIM))
    engines = yarn_engines()
    power = {"missing": 0, "right": 2, "doubled": 4}
    for name, label in _RIGHT_ENGINES.items():
        assert np.isclose(engines[name](q, k, 900, 900), m ** power[label] * (q @ k))
        far = engines[name](q, k, 900, 100) / m ** power[label]
        assert np.isclose(far, engines["C"](q, k, 900, 100))  # same rotation in every engine


def test_the_engines_check_their_inputs():
    with pytest.raises(Exception, match="shape"):
        yarn_engines()["A"](np.ones(3), np.ones(ENGINE_HEAD_DIM), 0, 0)


def test_engine_checker_accepts_the_right_labels_in_any_case():
    assert check_yarn_engines({"A": " Doubled", "B": "RIGHT", "C": "missing"}).passed


@pytest.mark.parametrize(
    ("answer", "phrase"),
    [
        ({"A": "right", "B": "doubled", "C": "missing"}, "engine A is not 'right'"),
        ({"A": "doubled", "B": "missing", "C": "right"}, "engine B is not 'missing'"),
        ({"A": "missing", "B": "right", "C": "doubled"}, "engine A is not 'missing'"),
        ({"A": "right", "B": "right", "C": "missing"}, "the same label"),
        ({"A": "doubled", "B": "fine", "C": "missing"}, "unknown label 'fine'"),
        ({"A": "doubled", "B": "right"}, "keys 'A', 'B' and 'C'"),
        (["doubled", "right", "missing"], "must be a dict"),
    ],
)
def test_engine_checker_names_each_slip(answer, phrase):
    feedback = check_yarn_engines(answer)
    assert feedback.status == "wrong" and phrase in feedback.message


def test_the_static_yarn_group_runs_what_the_notebook_runs():
    metrics = SEED_EXPERIMENTS["static_yarn"](0)
    trained = train("copy_back", "rope_adjacent", task_arg=1, length=16, seed=0)
    model = stretched(trained, "YaRN", 2.0)
    assert metrics == {"factor_2.L": model.accuracy(), "factor_2.2L": model.accuracy(length=32)}


@pytest.mark.parametrize("wrong_label", ["right", "missing"])
def test_engine_checker_does_not_print_the_engines_measured_factor(wrong_label):
    # Engine A applies the factor twice (m⁴): the feedback to a wrong label for A must not print
    # m⁴, which with the hint's "right m², missing 1, doubled m⁴" is the answer.
    _, m = rope_frequencies(ENGINE_BLOCK, ENGINE_HEAD_DIM)
    others = {"right", "missing", "doubled"} - {wrong_label, "doubled"}
    answer = {"A": wrong_label, "B": others.pop() if others else "right", "C": "doubled"}
    feedback = check_yarn_engines(answer)
    assert feedback.status == "wrong" and "engine A" in feedback.message
    assert f"{m**4:.3f}" not in feedback.message
