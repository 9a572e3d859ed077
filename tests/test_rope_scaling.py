"""pe_helpers.rope_scaling against the formulas of BEYOND.md section 10, and the shipped configs.

Conformance with transformers itself is tests/crosscheck (``make crosscheck``).
"""

from __future__ import annotations

import json
import math
from importlib import resources

import numpy as np
import pytest

from pe_helpers.rope_configs import model_names, model_rope_config
from pe_helpers.rope_scaling import (
    ROPE_TYPES,
    classify_pairs,
    default_frequencies,
    dynamic_ntk_base,
    get_mscale,
    interpolation_weights,
    ntk_aware_base,
    rope_frequencies,
    rotary_dim,
    rotations_in_context,
    yarn_correction_range,
)
from pe_helpers.rope_variants import p_rope_frequencies

LLAMA31 = {
    "rope_type": "llama3",
    "rope_theta": 500000.0,
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
}
YARN = {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 16.0,
        "original_max_position_embeddings": 4096}  # fmt: skip


# ------------------------------------------------------------------------------ formulas


def test_ntk_aware_base_keeps_fastest_pair_and_divides_slowest_by_s():
    d, s = 128, 2.0
    before = default_frequencies(10000.0, d)
    after = default_frequencies(ntk_aware_base(10000.0, d, s), d)
    assert after[0] == before[0] == 1.0
    assert before[-1] / after[-1] == pytest.approx(s)  # slowest pair i = d/2 - 1: exactly / s
    assert np.all(np.diff(before / after) > 0)  # in between, divided by less than s


def test_plain_frequencies_and_wavelengths():
    inv, att = rope_frequencies({"rope_type": "default"}, 8)
    np.testing.assert_allclose(inv, 10000.0 ** (-np.arange(0, 8, 2) / 8), rtol=1e-15)
    assert att == 1.0 and rope_frequencies({}, 8)[0].tolist() == inv.tolist()  # the defaults
    np.testing.assert_allclose(rotations_in_context(inv, 100), 100 * inv / (2 * np.pi))


def test_linear_divides_every_pair_by_the_factor():
    inv, att = rope_frequencies({"rope_type": "linear", "rope_theta": 1e6, "factor": 8.0}, 256)
    np.testing.assert_allclose(inv, default_frequencies(1e6, 256) / 8, rtol=1e-15)
    assert att == 1.0
    assert set(classify_pairs({"rope_type": "linear", "factor": 8.0}, 16)) == {"interpolated"}
    assert set(classify_pairs({"rope_type": "default"}, 16)) == {"kept"}


def test_llama3_bands_follow_beyond_md():
    inv, att = rope_frequencies(LLAMA31, 128)
    plain = default_frequencies(500000.0, 128)
    wavelen = 2 * np.pi / plain
    high = wavelen < 8192 / 4
    low = wavelen > 8192 / 1
    mid = ~high & ~low
    assert high.any() and low.any() and mid.any()
    np.testing.assert_array_equal(inv[high], plain[high])  # lambda < 2048: unchanged
    np.testing.assert_allclose(inv[low], plain[low] / 8, rtol=1e-15)  # lambda > 8192: / 8
    smooth = (8192 / wavelen[mid] - 1) / (4 - 1)
    np.testing.assert_allclose(inv[mid], (1 - smooth) * plain[mid] / 8 + smooth * plain[mid])
    assert att == 1.0  # llama3 has no attention factor (it is not YaRN)
    labels = classify_pairs(LLAMA31, 128)
    assert list(labels[high]) == ["kept"] * high.sum()
    assert list(labels[low]) == ["interpolated"] * low.sum()
    assert list(labels[mid]) == ["ramped"] * mid.sum()


def test_llama3_is_smooth_between_the_bands():
    """Sweeping the base moves wavelengths through both edges; the result never jumps."""
    ratios = []
    for theta in np.geomspace(1e4, 1e7, 150):
        params = dict(LLAMA31, rope_theta=float(theta))
        inv, _ = rope_frequencies(params, 128)
        ratios.append(inv / default_frequencies(float(theta), 128))
    ratios = np.array(ratios)
    assert ratios.min() == pytest.approx(1 / 8) and ratios.max() == pytest.approx(1.0)
    assert np.max(np.abs(np.diff(ratios, axis=0))) < 0.05


@pytest.mark.parametrize("factor", [2.0, 4.0, 16.0, 40.0])
def test_yarn_attention_factor_is_0_1_ln_s_plus_1(factor):
    _, att = rope_frequencies(dict(YARN, factor=factor), 128)
    assert att == pytest.approx(0.1 * math.log(factor) + 1)


def test_yarn_mscale_ratio_and_explicit_attention_factor():
    both = dict(YARN, factor=40.0, mscale=0.707, mscale_all_dim=0.707)
    assert rope_frequencies(both, 64)[1] == pytest.approx(1.0)
    ratio = dict(YARN, factor=40.0, mscale=1.0, mscale_all_dim=0.5)
    expected = get_mscale(40.0, 1.0) / get_mscale(40.0, 0.5)
    assert rope_frequencies(ratio, 64)[1] == pytest.approx(expected)
    only_one = dict(YARN, factor=40.0, mscale=0.707)  # transformers needs both, else 0.1 ln s + 1
    assert rope_frequencies(only_one, 64)[1] == pytest.approx(get_mscale(40.0))
    assert rope_frequencies(dict(YARN, attention_factor=0.5), 64)[1] == 0.5


def test_yarn_keeps_fast_pairs_divides_slow_ones_and_ramps_between():
    inv, _ = rope_frequencies(YARN, 128)
    plain = default_frequencies(10000.0, 128)
    low, high = yarn_correction_range(YARN, 128)
    idx = np.arange(64)
    np.testing.assert_array_equal(inv[idx <= low], plain[idx <= low])
    np.testing.assert_allclose(inv[idx >= high], plain[idx >= high] / 16, rtol=1e-15)
    ratio = inv / plain
    between = (idx > low) & (idx < high)
    assert np.all(np.diff(ratio[between]) < 0)
    # kept pairs turn more than beta_fast = 32 times in L0, interpolated ones fewer than 1 time
    turns = rotations_in_context(plain, 4096)
    labels = classify_pairs(YARN, 128)
    assert turns[labels == "kept"].min() > 32 * 0.9
    assert turns[labels == "interpolated"].max() < 1.0 * 1.2


def test_yarn_truncate_false_and_beta_defaults():
    low, high = yarn_correction_range(dict(YARN, truncate=False), 128)
    assert not float(low).is_integer() and not float(high).is_integer()
    assert yarn_correction_range(dict(YARN, beta_fast=0, beta_slow=None), 128) == (
        yarn_correction_range(YARN, 128)
    )
    swapped = dict(YARN, beta_fast=1, beta_slow=32)  # the naming trap: not an error, a mess
    assert rope_frequencies(swapped, 128)[0].shape == (64,)


def test_yarn_factor_none_is_max_over_original():
    implicit = dict(YARN, factor=None)
    inv, att = rope_frequencies(implicit, 128, max_position_embeddings=4096 * 16)
    np.testing.assert_array_equal(inv, rope_frequencies(YARN, 128)[0])
    assert att == pytest.approx(0.1 * math.log(16) + 1)


def test_original_length_falls_back_to_max_position_embeddings():
    no_original = {k: v for k, v in YARN.items() if k != "original_max_position_embeddings"}
    inv, _ = rope_frequencies(no_original, 128, max_position_embeddings=4096)
    np.testing.assert_array_equal(inv, rope_frequencies(YARN, 128)[0])


@pytest.mark.parametrize("factor", [2.0, 16.0, 40.0])
def test_longrope_attention_factor_and_factor_choice(factor):
    short, long = [1.0, 1.5, 2.0, 3.0], [1.0, 4.0, 16.0, 64.0]
    params = {"rope_type": "longrope", "factor": factor, "short_factor": short,
              "long_factor": long, "original_max_position_embeddings": 4096}  # fmt: skip
    plain = default_frequencies(10000.0, 8)
    for seq_len, chosen in [(None, short), (4096, short), (4097, long)]:
        inv, att = rope_frequencies(params, 8, seq_len=seq_len)
        np.testing.assert_allclose(inv, plain / np.array(chosen), rtol=1e-15)
        assert att == pytest.approx(math.sqrt(1 + math.log(factor) / math.log(4096)))
    no_factor = {k: v for k, v in params.items() if k != "factor"}
    att = rope_frequencies(no_factor, 8, max_position_embeddings=4096 * 8)[1]
    assert att == pytest.approx(math.sqrt(1 + math.log(8) / math.log(4096)))
    assert rope_frequencies(dict(params, factor=1.0), 8)[1] == 1.0


def test_dynamic_is_unchanged_up_to_max_position_embeddings_then_grows_the_base():
    params = {"rope_type": "dynamic", "factor": 4.0}
    plain = default_frequencies(10000.0, 64)
    for seq_len in (None, 1, 1000, 4096):
        inv, _ = rope_frequencies(params, 64, max_position_embeddings=4096, seq_len=seq_len)
        np.testing.assert_allclose(inv, plain, rtol=1e-15)
    inv, att = rope_frequencies(params, 64, max_position_embeddings=4096, seq_len=8192)
    base = 10000.0 * (4.0 * 8192 / 4096 - 3.0) ** (64 / 62)
    assert base == pytest.approx(dynamic_ntk_base(10000.0, 64, 4.0, 8192, 4096))
    np.testing.assert_allclose(inv, default_frequencies(base, 64), rtol=1e-15)
    assert att == 1.0
    # the original length is not what "dynamic" compares against
    with_original = dict(params, original_max_position_embeddings=1024)
    same, _ = rope_frequencies(with_original, 64, max_position_embeddings=4096, seq_len=2048)
    np.testing.assert_allclose(same, plain, rtol=1e-15)


def test_dynamic_at_s_times_l0_is_the_ntk_aware_base():
    assert dynamic_ntk_base(10000.0, 128, 2.0, 4096, 4096) == 10000.0
    grown = dynamic_ntk_base(10000.0, 128, 2.0, 2 * 4096, 4096)
    assert grown == pytest.approx(ntk_aware_base(10000.0, 128, 3.0))


def test_partial_rotary_factor_shortens_the_spectrum():
    params = {"rope_type": "linear", "factor": 2.0, "partial_rotary_factor": 0.5}
    inv, _ = rope_frequencies(params, 128)
    assert rotary_dim(params, 128) == 64 and inv.shape == (32,)
    np.testing.assert_allclose(inv, default_frequencies(10000.0, 64) / 2, rtol=1e-15)


#: transformers' Gemma 4 default for its full-attention layers (configuration_gemma4.py).
GEMMA4_FULL = {"rope_type": "proportional", "partial_rotary_factor": 0.25, "rope_theta": 1e6}


def test_proportional_stops_the_slowest_pairs_of_the_whole_head():
    inv, att = rope_frequencies(GEMMA4_FULL, 512)
    assert inv.shape == (256,) and att == 1.0
    np.testing.assert_array_equal(inv[:64], default_frequencies(1e6, 512)[:64])
    assert not inv[64:].any()
    np.testing.assert_allclose(inv, p_rope_frequencies(512, 0.25, 1e6), rtol=1e-14, atol=0)
    scaled, _ = rope_frequencies(dict(GEMMA4_FULL, factor=4.0), 512)
    np.testing.assert_allclose(scaled, inv / 4.0, rtol=1e-15)


def test_partial_rotary_factor_means_two_things():
    """ "default": the first dims turn over their own width; "proportional": the fast pairs."""
    default, _ = rope_frequencies(dict(GEMMA4_FULL, rope_type="default"), 512)
    proportional, _ = rope_frequencies(GEMMA4_FULL, 512)
    np.testing.assert_array_equal(default, default_frequencies(1e6, 128))
    assert default.shape == (64,) and proportional.shape == (256,)
    slowest_default = 2 * np.pi / default[-1]
    slowest_proportional = 2 * np.pi / proportional[63]
    assert slowest_default > 4e6 and slowest_proportional < 200  # 5.1 million vs 188 tokens


def test_proportional_ends_are_default_rope_and_no_rotation():
    whole, _ = rope_frequencies(dict(GEMMA4_FULL, partial_rotary_factor=1.0), 64)
    np.testing.assert_array_equal(whole, rope_frequencies({"rope_theta": 1e6}, 64)[0])
    np.testing.assert_array_equal(
        whole, rope_frequencies({"rope_type": "proportional", "rope_theta": 1e6}, 64)[0]
    )
    none, _ = rope_frequencies(dict(GEMMA4_FULL, partial_rotary_factor=0.0), 64)
    assert none.shape == (32,) and not none.any()
    assert rotary_dim(dict(GEMMA4_FULL, partial_rotary_factor=0.0), 64) == 0
    with pytest.raises(ValueError, match="partial_rotary_factor"):
        rope_frequencies(dict(GEMMA4_FULL, rope_type="default", partial_rotary_factor=0.0), 64)
    with pytest.raises(ValueError, match="partial_rotary_factor"):
        rope_frequencies(dict(GEMMA4_FULL, partial_rotary_factor=-0.25), 64)
    with pytest.raises(ValueError, match="factor"):
        rope_frequencies(dict(GEMMA4_FULL, factor=0.0), 64)
    with pytest.raises(ValueError, match="proportional"):
        interpolation_weights(GEMMA4_FULL, 64)


def test_old_type_key():
    inv, _ = rope_frequencies({"type": "linear", "factor": 2.0}, 8)
    np.testing.assert_allclose(inv, default_frequencies(10000.0, 8) / 2)


def test_interpolation_weights_reproduce_the_frequencies():
    for params in (LLAMA31, YARN, {"rope_type": "linear", "factor": 3.0}):
        w = interpolation_weights(params, 128)
        inv, _ = rope_frequencies(params, 128)
        plain = default_frequencies(params.get("rope_theta", 10000.0), 128)
        np.testing.assert_allclose(inv, w * plain / params["factor"] + (1 - w) * plain)
    for rope_type in ("dynamic", "longrope"):
        with pytest.raises(ValueError, match=rope_type):
            interpolation_weights({"rope_type": rope_type, "factor": 2.0, "short_factor": [1],
                                   "long_factor": [1]}, 2)  # fmt: skip


# -------------------------------------------------------------------------------- errors


LONGROPE = {"rope_type": "longrope", "short_factor": [1.0], "long_factor": [1.0, 2.0],
            "original_max_position_embeddings": 64}  # fmt: skip


@pytest.mark.parametrize(
    ("params", "head_dim", "kwargs", "error", "named"),
    [
        ({"rope_type": "linear"}, 2, {}, ValueError, "factor"),
        ({"rope_type": "dynamic"}, 2, {}, ValueError, "factor"),
        ({"rope_type": "yarn", "original_max_position_embeddings": 4096}, 2, {}, ValueError,
         "factor"),
        ({"rope_type": "llama3", "factor": 8.0, "high_freq_factor": 4.0}, 2, {}, ValueError,
         "low_freq_factor"),
        ({"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0}, 2, {}, ValueError,
         "high_freq_factor"),
        ({"rope_type": "longrope", "long_factor": [1.0]}, 2, {}, ValueError, "short_factor"),
        ({"rope_type": "longrope", "short_factor": [1.0]}, 2, {}, ValueError, "long_factor"),
        ({"rope_type": "yarn", "factor": 4.0}, 2, {}, ValueError,
         "original_max_position_embeddings"),
        ({"rope_type": "dynamic", "factor": 2.0}, 64, {}, ValueError, "max_position_embeddings"),
        (dict(YARN, beta_fats=32), 64, {}, ValueError, "beta_fats"),
        ({"rope_type": "linear", "factor": 0}, 64, {}, ValueError, "factor"),
        ({"rope_type": "default"}, 63, {}, ValueError, "head_dim"),
        ({"rope_type": "default", "rope_theta": 1.0}, 64, {}, ValueError, "rope_theta"),
        ({"rope_type": "default", "partial_rotary_factor": 1.5}, 64, {}, ValueError,
         "partial_rotary_factor"),
        ({"rope_type": "default", "partial_rotary_factor": 0.3}, 10, {}, ValueError,
         "partial_rotary_factor"),
        (dict(LLAMA31, high_freq_factor=1.0), 128, {}, ValueError, "high_freq_factor"),
        (dict(YARN, truncate="yes"), 64, {}, TypeError, "truncate"),
        (dict(YARN, attention_factor=-1.0), 64, {}, ValueError, "attention_factor"),
        (LONGROPE, 4, {}, ValueError, "short_factor"),
    ],
)  # fmt: skip
def test_bad_values_are_named(params, head_dim, kwargs, error, named):
    with pytest.raises(error, match=named):
        rope_frequencies(params, head_dim, **kwargs)


def test_the_caller_s_dict_is_not_modified():
    params = dict(YARN)
    rope_frequencies(params, 64)
    assert params == YARN


# ------------------------------------------------------------------------- shipped configs


def test_every_rope_type_but_dynamic_and_longrope_appears_in_the_shipped_configs():
    types = {model_rope_config(n).rope_parameters["rope_type"] for n in model_names()}
    assert types >= {"default", "linear", "yarn", "llama3"}
    assert types <= set(ROPE_TYPES)


@pytest.mark.parametrize("name", model_names())
def test_shipped_config_loads_and_gives_finite_frequencies(name):
    cfg = model_rope_config(name)
    assert cfg.hf_config.startswith("https://huggingface.co/") and cfg.hf_config.endswith(
        "/config.json"
    )
    for seq_len in (None, 2 * cfg.max_position_embeddings):
        inv, att = cfg.frequencies(seq_len=seq_len)
        assert inv.shape == (rotary_dim(cfg.rope_parameters, cfg.head_dim) // 2,)
        assert np.all(np.isfinite(inv)) and np.all(inv > 0) and np.all(np.diff(inv) < 0)
        assert math.isfinite(att) and att > 0
    assert set(cfg.unconfirmed) <= set(cfg.rope_parameters) | {
        "head_dim",
        "max_position_embeddings",
    }


def test_every_shipped_entry_is_complete_and_sourced():
    fields = {"display_name", "hf_config", "head_dim", "max_position_embeddings",
              "rope_parameters", "sources", "unconfirmed", "note"}  # fmt: skip
    text = resources.files("pe_helpers").joinpath("data/rope_configs.json").read_text("utf-8")
    for name, entry in json.loads(text)["models"].items():
        assert fields <= set(entry), name
        keys = set(entry["rope_parameters"]) | {"head_dim", "max_position_embeddings"}
        assert "all" in entry["sources"] or keys <= set(entry["sources"]), name


def test_shipped_config_is_a_fresh_copy():
    cfg = model_rope_config("llama-3.1-8b")
    cfg.rope_parameters["factor"] = 2.0
    assert model_rope_config("llama-3.1-8b").rope_parameters["factor"] == 8.0


def test_llama31_shipped_config_matches_the_lesson_numbers():
    cfg = model_rope_config("llama-3.1-8b")
    assert cfg.rope_parameters == LLAMA31
    labels = classify_pairs(cfg.rope_parameters, cfg.head_dim)
    assert (labels == "kept").sum() == 29 and (labels == "interpolated").sum() == 29


def test_deepseek_attention_factor_is_one_because_mscale_equals_mscale_all_dim():
    for name in ("deepseek-v2", "deepseek-v3"):
        inv, att = model_rope_config(name).frequencies()
        assert att == pytest.approx(1.0) and inv.shape == (32,)


def test_an_unknown_model_is_refused_naming_name():
    with pytest.raises(ValueError, match="name"):
        model_rope_config("gpt-5")
