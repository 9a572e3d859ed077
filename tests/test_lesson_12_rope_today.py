"""Lesson 12 · RoPE in today's architectures: the variants, helpers, figures and checkers."""

from __future__ import annotations

import numpy as np
import pytest

from pe_helpers import apply_rope, relative_deviation
from pe_helpers.lessons.rope_today import (
    PUBLISHED_SETTINGS,
    MropeScoreMap,
    check_mla_cache,
    check_mrope_ids,
    check_partial_rope,
    nope_layers,
    nope_query_scale,
    patch_scores,
    plot_nope_temperature,
    plot_turning_pairs,
    position_scores,
    relative_2d_deviation,
    top_key_weight,
)
from pe_helpers.rope_variants import (
    apply_mrope,
    apply_p_rope,
    apply_partial_rope,
    decoupled_rope_scores,
    mrope_pair_axes,
    mrope_position_ids,
)

RNG = np.random.default_rng(12)


# --- independent ports of the library code each variant follows -------------------------------


def _rotate_half(x):
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def _transformers_mrope(x, position_ids, mrope_section, base):
    """numpy port of transformers' Qwen2-VL rotation, in the v4 form (``mrope_section * 2``
    split over the doubled angles), which equals v5's ``Qwen2VLRotaryEmbedding`` (sections
    split by ``recomposition_frequencies``, then doubled) followed by ``apply_rotary_pos_emb``."""
    d = x.shape[-1]
    inv_freq = 1.0 / base ** (np.arange(0, d, 2) / d)
    freqs = position_ids[:, :, None] * inv_freq  # (3, n, d/2)
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos, sin = np.cos(emb), np.sin(emb)
    bounds = np.cumsum(list(mrope_section) * 2)[:-1]
    cos = np.concatenate([m[i % 3] for i, m in enumerate(np.split(cos, bounds, axis=-1))], -1)
    sin = np.concatenate([m[i % 3] for i, m in enumerate(np.split(sin, bounds, axis=-1))], -1)
    return x * cos + _rotate_half(x) * sin


def _transformers_rope_index(text_before, grid_h, grid_w, text_after):
    """numpy port of Qwen2VLModel.get_rope_index for one image (t = 1, grid already merged)."""
    parts = [np.tile(np.arange(text_before), (3, 1))]
    t_index = np.zeros(grid_h * grid_w, dtype=int)
    h_index = np.repeat(np.arange(grid_h), grid_w)
    w_index = np.tile(np.arange(grid_w), grid_h)
    parts.append(np.stack([t_index, h_index, w_index]) + text_before)
    start = parts[-1].max() + 1
    parts.append(np.tile(np.arange(text_after), (3, 1)) + start)
    return np.concatenate(parts, axis=1)


def _gptneox_partial(x, positions, rotary_ndims, base):
    """numpy port of GPT-NeoX / transformers partial rotary (rotate_half inside the slice)."""
    inv_freq = 1.0 / base ** (np.arange(0, rotary_ndims, 2) / rotary_ndims)
    emb = np.concatenate([np.outer(positions, inv_freq)] * 2, axis=-1)
    rot, rest = x[:, :rotary_ndims], x[:, rotary_ndims:]
    turned = rot * np.cos(emb) + _rotate_half(rot) * np.sin(emb)
    return np.concatenate([turned, rest], axis=-1)


def _deepmind_p_rope(x, positions, rope_proportion, base):
    """numpy port of DeepMind's gemma apply_rope(..., rope_proportion) (split halves)."""
    head_dim = x.shape[-1]
    rope_angles = int(rope_proportion * head_dim // 2)
    nope_angles = head_dim // 2 - rope_angles
    exponents = (2.0 / head_dim) * np.arange(rope_angles)
    timescale = np.concatenate([base**exponents, np.full(nope_angles, np.inf)])
    angles = positions[:, None] / timescale
    first, second = x[:, : head_dim // 2], x[:, head_dim // 2 :]
    return np.concatenate(
        [
            first * np.cos(angles) - second * np.sin(angles),
            second * np.cos(angles) + first * np.sin(angles),
        ],
        axis=-1,
    )


# --- partial rotation ---------------------------------------------------------------------------


def test_partial_rope_matches_gptneox_and_keeps_a_content_channel():
    x = RNG.normal(size=(5, 96))
    t = np.array([0.0, 1.0, 7.0, 100.0, 2048.0])
    got = apply_partial_rope(x, t, 0.25, pairing="halves")
    assert np.allclose(got, _gptneox_partial(x, t, 24, 10000.0))
    assert np.array_equal(got[:, 24:], x[:, 24:])
    assert np.allclose(apply_partial_rope(x, t, 1.0), apply_rope(x, t))
    assert np.array_equal(apply_partial_rope(x, t, 0.0), x)
    q, k = RNG.normal(size=96), RNG.normal(size=96)

    def partial(v, p):
        return apply_partial_rope(v, p, 0.25)

    assert relative_deviation(position_scores(partial, q, k, np.arange(20))) < 1e-12
    q[:24] = k[:24] = 0.0
    assert np.ptp(position_scores(partial, q, k, np.arange(20))) < 1e-12


def test_p_rope_matches_deepmind_and_its_ends_are_rope_and_nope():
    x = RNG.normal(size=(4, 128))
    t = np.array([0.0, 3.0, 50.0, 4000.0])
    for p in (0.25, 0.75, 1.0):
        got = apply_p_rope(x, t, p, pairing="halves")
        assert np.allclose(got, _deepmind_p_rope(x, t, p, 10000.0))
    assert np.allclose(apply_p_rope(x, t, 1.0), apply_rope(x, t))
    assert np.array_equal(apply_p_rope(x, t, 0.0), x)


# --- multimodal RoPE ----------------------------------------------------------------------------


def test_mrope_matches_transformers_and_is_rope_on_text():
    ids = mrope_position_ids(3, 4, 5, 2).astype(float)
    x = RNG.normal(size=(ids.shape[1], 128))
    got = apply_mrope(x, ids, (16, 24, 24), base=1e6, pairing="halves")
    assert np.allclose(got, _transformers_mrope(x, ids, (16, 24, 24), 1e6))
    text = np.array([[9.0], [9.0], [9.0]])
    assert np.allclose(apply_mrope(x[:1], text, (16, 24, 24)), apply_rope(x[:1], [9.0]))
    assert np.bincount(mrope_pair_axes((16, 24, 24), 128)).tolist() == [16, 24, 24]


@pytest.mark.parametrize("shape", [(0, 1, 1, 0), (2, 2, 3, 2), (3, 5, 2, 4), (1, 1, 7, 0)])
def test_position_ids_match_get_rope_index(shape):
    assert np.array_equal(mrope_position_ids(*shape), _transformers_rope_index(*shape))


def test_patch_scores_depend_on_the_2d_offset_only():
    q, k = RNG.normal(size=64), RNG.normal(size=64)
    scores = patch_scores(q, k, 4, 5, (8, 12, 12))
    assert relative_2d_deviation(scores, 4, 5) < 1e-12
    assert relative_2d_deviation(RNG.normal(size=(20, 20)), 4, 5) > 0.1
    ones = np.ones(128)
    one_query = patch_scores(ones, ones, 12, 16, (16, 24, 24))[88].reshape(12, 16)
    assert one_query.max() == pytest.approx(128.0)
    assert np.abs(np.diff(one_query, axis=0)).mean() > 100 * np.abs(np.diff(one_query, 1)).mean()


# --- decoupled RoPE ----------------------------------------------------------------------------


def test_decoupled_scores_are_the_concatenated_dot_products_and_relative():
    n, heads, d_nope, d_rope = 5, 3, 6, 4
    q_nope, k_nope = RNG.normal(size=(n, heads, d_nope)), RNG.normal(size=(n, heads, d_nope))
    q_rope, k_rope = RNG.normal(size=(n, heads, d_rope)), RNG.normal(size=(n, d_rope))
    t = np.arange(n, dtype=float)
    got = decoupled_rope_scores(q_nope, q_rope, k_nope, k_rope, t, t)
    for h in range(heads):
        q = np.concatenate([q_nope[:, h], apply_rope(q_rope[:, h], t)], axis=1)
        k = np.concatenate([k_nope[:, h], apply_rope(k_rope, t)], axis=1)
        assert np.allclose(got[h], q @ k.T)
    assert np.allclose(decoupled_rope_scores(q_nope, q_rope, k_nope, k_rope, t + 500, t + 500), got)


def test_published_settings_and_nope_layers():
    smollm3 = [int((i + 1) % 4 != 0) for i in range(36)]  # transformers' no_rope_layers rule
    assert [i for i, rope in enumerate(smollm3) if not rope] == nope_layers(36, 4)
    assert all(setting.source for setting in PUBLISHED_SETTINGS)


def _llama4_scale(positions, floor_scale=8192, attn_scale=0.1):
    """transformers' Llama4TextAttention: log1p(floor((t + 1) / floor_scale)) * attn_scale + 1."""
    t = np.asarray(positions, dtype=np.float64)
    return np.log(np.floor((t + 1) / floor_scale) + 1) * attn_scale + 1


def test_nope_query_scale_is_llama4_temperature():
    t = np.r_[0:20000, 65530:65540, 2**20 - 2 : 2**20 + 2]
    np.testing.assert_allclose(nope_query_scale(t), _llama4_scale(t), rtol=1e-15)
    steps = np.flatnonzero(np.diff(nope_query_scale(np.arange(40000))))
    assert (steps + 1).tolist() == [8191, 16383, 24575, 32767]
    np.testing.assert_allclose(nope_query_scale(t, 100, 0.5), _llama4_scale(t, 100, 0.5))
    assert np.all(nope_query_scale(t, attn_scale=0.0) == 1.0)


def test_top_key_weight_is_the_softmax_of_one_winner():
    for n, margin in ((1, 0.0), (5, 2.0), (300, 4.5)):
        scores = np.zeros(n)
        scores[0] = margin
        softmax = np.exp(scores) / np.exp(scores).sum()
        assert top_key_weight(n, margin) == pytest.approx(softmax[0], rel=1e-12)
    weights = top_key_weight(np.array([2, 20, 200]), 3.0)
    assert np.all(np.diff(weights) < 0)


def test_temperature_slows_the_fading():
    ax = plot_nope_temperature(margin=9.0, max_keys=2**20)
    plain, warm = (line.get_ydata() for line in ax.lines[:2])
    keys = ax.lines[0].get_xdata()
    before = keys < 8192
    assert np.array_equal(plain[before], warm[before])  # no temperature before 8,192 keys
    assert np.all(warm[~before] > plain[~before])
    assert plain[-1] < 0.01 < 0.3 < warm[-1]


# --- argument checks ----------------------------------------------------------------------------


def _ones_mla(k_rope=(2, 2)):
    """Arguments of decoupled_rope_scores: 2 tokens, 3 heads, 4 + 2 dims, k_rope of that shape."""
    shapes = ((2, 3, 4), (2, 3, 2), (2, 3, 4), k_rope)
    return *(np.ones(shape) for shape in shapes), [0, 1], [0, 1]


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        (lambda: apply_partial_rope(np.ones((2, 8)), 3, 0.5), TypeError, "positions"),
        (lambda: apply_partial_rope(np.ones((2, 8)), [0, 1, 2], 0.5), ValueError, "positions"),
        (lambda: apply_partial_rope(np.ones((2, 7)), [0, 1], 0.5), ValueError, "x"),
        (lambda: mrope_pair_axes((16, 24, 23), 128), ValueError, "mrope_section"),
        (
            lambda: apply_mrope(np.ones((2, 8)), np.zeros((2, 2)), (2, 1, 1)),
            ValueError,
            "position_ids",
        ),
        (lambda: decoupled_rope_scores(*_ones_mla(k_rope=(2, 3, 2))), ValueError, "k_rope"),
        (lambda: MropeScoreMap(head_dim=10), ValueError, "head_dim"),
    ],
)
def test_bad_arguments_are_named(call, error, name):
    with pytest.raises(error, match=rf"\b{name}\b"):
        call()


# --- figures ------------------------------------------------------------------------------------


def test_score_map_clamps_the_query_and_shows_its_row():
    figure = MropeScoreMap(head_dim=16).draw(grid_h=3, grid_w=4, t_pairs=2, row=20, col=1)
    ax = figure.axes[0]
    ones = np.ones(16)
    row = patch_scores(ones, ones, 3, 4, (2, 3, 3))[2 * 4 + 1].reshape(3, 4)
    low, high = row.min(), row.max()
    first, sections, second = ax.get_title().split("\n")
    assert (first, sections) == ("query patch (2, 1) (clamped)", "sections (t, h, w) = (2, 3, 3)")
    inside = MropeScoreMap(head_dim=8).draw(grid_h=4, grid_w=4, row=3, col=3).axes[0].get_title()
    assert "clamped" not in inside
    assert second == f"scores from {low:.3f} to {high:.3f}"
    assert high == pytest.approx(16)  # head_dim, at the query patch
    assert 0.01 < high - low < 0.1  # three decimals tell its ends apart
    shown = ax.images[0].get_array()  # the scores over the map's range: the colour bar's [0, 1]
    assert np.allclose(shown, (row - low) / (high - low))
    assert shown.min() == 0 and shown.max() == 1


def test_score_map_steps_blit_and_its_colour_bar_stays():
    view = MropeScoreMap().view()
    bar = view.figure.axes[1]  # the colour bar's Axes
    assert view.renders == 1 and view.blits == 0
    view.controls["col"].value = 3  # a new range of scores: only the title says so
    view.controls["grid_w"].value = 20  # the map's x limits move
    view.controls["grid_h"].value = 3  # and its y limits
    view.controls["t_pairs"].value = 8
    assert view.blits == 4 and view.renders == 5  # five pictures, one full draw
    assert view.figure.axes[0].get_xlim() == (-0.5, 19.5)
    assert bar.get_ylim() == (0.0, 1.0)
    picture = view.image.value
    view.refresh(afresh=True)
    assert view.image.value == picture  # what a full redraw gives, pixel for pixel
    view.close()


def test_score_map_title_gives_enough_decimals_for_any_spread():
    # The spread of a 2 x 2 map can be a few ten-thousandths: its ends must still differ.
    title = MropeScoreMap().draw(grid_h=2, grid_w=2, t_pairs=32, row=0, col=0).axes[0].get_title()
    low, high = title.split("\n")[-1].removeprefix("scores from ").split(" to ")
    assert low != high and len(low.split(".")[1]) >= 4


def test_turning_pairs_marks_the_stopped_pairs():
    ax = plot_turning_pairs(32, 0.5)
    labels = [line.get_label() for line in ax.lines]
    assert labels[:3] == ["RoPE", 'partial rotation ("default", 0.5)',
                          'p-RoPE ("proportional", 0.5)']  # fmt: skip
    stopped = ax.lines[4].get_xdata()
    assert stopped.tolist() == list(range(8, 16))


# --- checkers -----------------------------------------------------------------------------------


def _partial(x, positions, r, base=10000.0):
    out = np.array(x, dtype=float)
    out[:, :r] = apply_rope(out[:, :r], positions, base)
    return out


def _turned_adjacent(x, positions, r, base, sign=1.0):
    """The first r columns turned pair by pair (2k, 2k + 1), by sign * m * theta_k."""
    theta = base ** (-np.arange(0, r, 2) / r)
    angle = sign * np.outer(positions, theta)
    out = x.copy()
    even, odd = x[:, 0:r:2], x[:, 1:r:2]
    out[:, 0:r:2] = even * np.cos(angle) - odd * np.sin(angle)
    out[:, 1:r:2] = even * np.sin(angle) + odd * np.cos(angle)
    return out


def _in_place(x, positions, r, base):
    x[:, :r] = apply_rope(x[:, :r], positions, base)
    return x


def _shifted_text(before, rows, cols, after):
    ids = mrope_position_ids(before, rows, cols, after)
    ids[:, before + rows * cols :] = before + rows * cols + np.arange(after)
    return ids


def _swapped(before, rows, cols, after):
    ids = mrope_position_ids(before, rows, cols, after)
    ids[[1, 2]] = ids[[2, 1]]
    return ids


def _column_major(before, rows, cols, after):
    ids = mrope_position_ids(before, rows, cols, after)
    p = np.arange(rows * cols)
    ids[1, before : before + rows * cols] = before + p % rows
    ids[2, before : before + rows * cols] = before + p // rows
    return ids


def _no_offset(before, rows, cols, after):
    ids = mrope_position_ids(before, rows, cols, after)
    ids[:, before : before + rows * cols] -= before
    return ids


def _counting_t(before, rows, cols, after):
    ids = mrope_position_ids(before, rows, cols, after)
    ids[0, before : before + rows * cols] = before + np.arange(rows * cols)
    return ids


_RIGHT = [
    *((check_partial_rope, answer) for answer in (_partial, _turned_adjacent, _in_place)),
    (check_partial_rope, lambda *a: _partial(*a).astype(np.float32)),
    *((check_mla_cache, n) for n in (576, 576.0, np.int64(576), np.float32(576), np.array([576]))),
    (check_mrope_ids, mrope_position_ids),
    (check_mrope_ids, lambda *a: mrope_position_ids(*a).astype(np.float32)),
]


@pytest.mark.parametrize(("checker", "answer"), _RIGHT)
def test_checkers_accept_right_answers(checker, answer):
    assert checker(answer)


_SLIPS = {
    check_partial_rope: [
        (lambda x, t, r, b: apply_rope(x, t, b), "every column"),
        (lambda x, t, r, b: np.concatenate([x[:, :-r], apply_rope(x[:, -r:], t, b)], 1), "last"),
        (
            lambda x, t, r, b: np.concatenate([apply_rope(x, t, b)[:, :r], x[:, r:]], 1),
            "whole head",
        ),
        (lambda x, t, r, b: x.copy(), "nothing turned"),
        (lambda x, t, r, b: _partial(x, t, r, 10000.0), "base"),
        (lambda x, t, r, b: _partial(x, t, r, b) + 1.0, "unchanged"),
        (lambda x, t, r, b: _gptneox_partial(x, t, r, b), "split-halves"),
        (lambda x, t, r, b: _turned_adjacent(x, t, r, b, sign=-1.0), "clockwise"),
        (lambda x, t, r, b: _turned_adjacent(x, t + 1, r, b), "off by one (you turned by m + 1"),
        (lambda x, t, r, b: _turned_adjacent(x, t - 1, r, b), "off by one (you turned by m − 1"),
        (lambda x, t, r, b: _turned_adjacent(x, 2 * t, r, b), "not RoPE of width rotary_dim"),
    ],
    check_mla_cache: [
        (512, "rotated key"),
        (512 + 128 * 64, "shared"),
        (2 * 128 * 128, "multi-head"),
        (640, "64 wide"),
        (1000, "not it"),
        (576.5, "whole number"),
    ],
    check_mrope_ids: [
        (_shifted_text, "largest id"),
        (_swapped, "swapped"),
        (_column_major, "row by row"),
        (_no_offset, "start at 0"),
        (_counting_t, "temporal"),
        (lambda *a: mrope_position_ids(*a)[:, :-1], "shape"),
    ],
}


@pytest.mark.parametrize(
    ("checker", "answer", "phrase"),
    [(checker, *slip) for checker, slips in _SLIPS.items() for slip in slips],
)
def test_checkers_name_each_slip(checker, answer, phrase):
    feedback = checker(answer)
    assert feedback.status == "wrong" and phrase in feedback.message
