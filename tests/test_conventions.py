"""Lesson 11's maths: the convention detectors on right functions and one mutant per slip,
and the numerics of positions in low precision."""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

from pe_helpers.conventions import LIBRARY_FLAGS, identify_rope
from pe_helpers.encodings import frequencies, shift_operator, sinusoidal_pe
from pe_helpers.lessons.conventions_and_numerics import (
    erratum_shift_operator,
    pe_table_variants,
    rope_mutants,
)
from pe_helpers.numerics import largest_exact_integer, low_precision_rope_scores, rope_angle_error
from pe_helpers.rope import apply_rope, rope_scores
from pe_helpers.table_conventions import PE_TABLE_SOURCES, identify_pe_table


def rope(base=10000.0, pairing="adjacent"):
    return lambda x, positions: apply_rope(x, positions, base, pairing)


# --- identify_rope: right implementations ---------------------------------------------------


@pytest.mark.parametrize("pairing", ["adjacent", "halves"])
@pytest.mark.parametrize("base", [10.0, 10000.0, 500000.0])
@pytest.mark.parametrize("d_model", [4, 8, 64])
def test_a_right_rope_is_read_exactly(pairing, base, d_model):
    report = identify_rope(rope(base, pairing), d_model, expected_base=base)
    assert report.ok, report.messages
    assert (report.pairing, report.direction, report.frequency) == (
        pairing,
        "counter-clockwise",
        "multiplied",
    )
    assert report.base == pytest.approx(base, rel=1e-6)
    assert report.position_scale == pytest.approx(1.0, rel=1e-9)


def test_the_base_is_measured_without_an_expected_one():
    report = identify_rope(rope(500000.0), 16, expected_base=None)
    assert report.ok
    assert report.base == pytest.approx(500000.0, rel=1e-6)


def test_a_float32_implementation_passes_at_the_default_tolerance():
    def rope32(x, positions):
        x = np.asarray(x, dtype=np.float32)
        d = x.shape[1]
        theta = np.float32(10000.0) ** (-np.arange(0, d, 2, dtype=np.float32) / np.float32(d))
        angles = np.asarray(positions, dtype=np.float32)[:, None] * theta
        cos, sin = np.cos(angles), np.sin(angles)
        first, second = x[:, : d // 2], x[:, d // 2 :]
        return np.concatenate([first * cos - second * sin, first * sin + second * cos], axis=1)

    report = identify_rope(rope32, 128)
    assert report.ok and report.pairing == "halves"
    assert report.base == pytest.approx(10000.0, rel=1e-4)


def test_a_short_cos_sin_cache_is_probed_near_zero_only():
    cache = np.multiply.outer(np.arange(100), frequencies(8))

    def cached(x, positions):
        angles = cache[np.asarray(positions)]  # IndexError past position 99
        first, second = x[:, 0::2], x[:, 1::2]
        out = np.empty_like(x)
        out[:, 0::2] = first * np.cos(angles) - second * np.sin(angles)
        out[:, 1::2] = first * np.sin(angles) + second * np.cos(angles)
        return out

    report = identify_rope(cached, 8)
    assert report.ok and report.pairing == "adjacent"
    assert report.base == pytest.approx(10000.0, rel=1e-6)


def test_the_report_names_the_library_flags_of_its_layout():
    text = str(identify_rope(rope(pairing="adjacent"), 8))
    assert "adjacent (2k, 2k+1)" in text and "nothing to fix" in text
    assert "flash-attn apply_rotary_emb(interleaved=True)" in text
    assert "MLX nn.RoPE / mx.fast.rope(traditional=True)" in text
    halves = identify_rope(rope(pairing="halves"), 8)
    assert {f.library for f in halves.same_layout_as} == {
        "flash-attn",
        "MLX",
        "transformers",
        "llama.cpp",
    }
    assert all(f.pairing == "halves" for f in halves.same_layout_as)


# --- identify_rope: one mutant per slip -----------------------------------------------------

REPORTED_AS = {
    "clockwise": "clockwise",
    "column_index": "column_index",
    "column_index_per_feature": "column_index",
    "divided": "divided",
    "wrong_axis": "wrong_axis",
    "ignores_positions": "ignores_positions",
    "sin_cos_swapped": "sin_cos_swapped",
    "mixed_layout": "mixed_layout",
    "half_split": "pairing",
}


def test_every_mutant_has_an_expected_verdict():
    assert set(rope_mutants()) == set(REPORTED_AS)


@pytest.mark.parametrize("name", sorted(REPORTED_AS))
@pytest.mark.parametrize("d_model", [8, 128])
def test_each_mutant_is_caught_as_its_own_slip(name, d_model):
    report = identify_rope(rope_mutants()[name], d_model, expected_pairing="adjacent")
    assert report.issues == (REPORTED_AS[name],), report.messages
    assert "Fix" in report.messages[0]
    assert str(report).count("\n  - ") == 1


def test_mutant_reports_carry_what_was_measured():
    mutants = rope_mutants()
    clockwise = identify_rope(mutants["clockwise"], 16)
    assert (clockwise.direction, round(clockwise.base)) == ("clockwise", 10000)
    column = identify_rope(mutants["column_index"], 16)
    assert column.base == pytest.approx(1e8, rel=1e-6)  # base squared: falls twice as fast
    assert "1e+04²" in column.messages[0]
    divided = identify_rope(mutants["divided"], 16)
    assert (divided.frequency, divided.base) == ("divided", 10000.0)
    halves = identify_rope(mutants["half_split"], 16)
    assert halves.ok and halves.pairing == "halves"  # a layout, wrong only against the weights
    assert (
        "permute the rows of W_Q"
        in identify_rope(mutants["half_split"], 16, expected_pairing="adjacent").messages[0]
    )
    for name in ("wrong_axis", "ignores_positions"):
        report = identify_rope(mutants[name], 16)
        assert report.pairing is None and report.base is None
    other_base = identify_rope(rope_mutants(base=500.0)["clockwise"], 8, expected_base=500.0)
    assert other_base.issues == ("clockwise",) and other_base.base == pytest.approx(500.0)


@pytest.mark.parametrize(
    ("f", "issue", "words"),
    [
        (lambda x, t: apply_rope(x, np.asarray(t) + 1), "position_offset", "offset"),
        (lambda x, t: apply_rope(x, np.asarray(t) / 4), "position_scale", "0.25 rad"),
        (lambda x, t: apply_rope(x, t, 500000.0), "base", "500000"),
        (lambda x, t: np.array(x, dtype=float), "identity", "nothing turns"),
        (lambda x, t: np.hstack([apply_rope(x[:, :4], t), x[:, 4:]]), "not_rotation", "partial"),
        (lambda x, t: apply_rope(x, t)[:, [1, 0, 2, 3, 4, 5, 6, 7]], "not_rotation", "reflected"),
    ],
)
def test_other_departures_are_named(f, issue, words):
    report = identify_rope(f, 8)
    assert issue in report.issues
    assert words in " ".join(report.messages)


# --- identify_rope: a learner's broken function gives a report, not a traceback --------------


@pytest.mark.parametrize(
    ("f", "words"),
    [
        (lambda x, t: 1 / 0, "raised ZeroDivisionError: division by zero"),
        (lambda x, t: x[:, :2], "returned shape (4, 2), expected (4, 8)"),
        (lambda x, t: "rotated", "returned str, not numbers"),
        (lambda x, t: None, "returned shape ()"),
        (lambda x, t: x * np.nan, "returned NaN or inf"),
        (lambda x, t: x + 0j, "returned complex numbers"),
    ],
)
def test_a_broken_function_is_reported(f, words):
    report = identify_rope(f, 8)
    assert report.issues == ("error",) and not report.ok
    assert words in report.messages[0]
    assert words in str(report)


# --- the library flags: data with sources, and agreeing with the detector -------------------


def test_library_flags_name_a_pairing_and_a_source_each():
    assert {f.library for f in LIBRARY_FLAGS} == {"flash-attn", "MLX", "transformers", "llama.cpp"}
    for flag in LIBRARY_FLAGS:
        assert flag.pairing in ("adjacent", "halves")
        assert flag.source.startswith("github.com/") and "/blob/" in flag.source
        assert flag.file.split(": ")[1].endswith((".py", ".cpp"))  # the file that says so
    assert LIBRARY_FLAGS[0].file == "Dao-AILab/flash-attention: flash_attn/layers/rotary.py"
    by_setting = {(f.library, f.setting): f.pairing for f in LIBRARY_FLAGS}
    assert by_setting["flash-attn", "apply_rotary_emb(interleaved=True)"] == "adjacent"
    assert by_setting["MLX", "nn.RoPE / mx.fast.rope(traditional=True)"] == "adjacent"
    assert by_setting["transformers", "rotate_half (Llama, GPT-NeoX, ...)"] == "halves"
    assert by_setting["transformers", "GPT-J rotate_every_two"] == "adjacent"


def rotate_half(x, interleaved):
    """The 'rotate' of x*cos + rotate(x)*sin, as the cited sources define it (numpy)."""
    if interleaved:  # pairs of even and odd dimensions: (-x2, x1) stacked pairwise
        out = np.empty_like(x)
        out[:, 0::2], out[:, 1::2] = -x[:, 1::2], x[:, 0::2]
        return out
    first, second = np.split(x, 2, axis=1)  # first and second half: cat((-x2, x1))
    return np.hstack([-second, first])


@pytest.mark.parametrize("interleaved", [True, False])
def test_the_flags_formula_is_read_as_the_pairing_they_claim(interleaved):
    def library_rope(x, positions):
        angles = np.outer(positions, frequencies(x.shape[1]))
        repeat = np.repeat if interleaved else lambda a, n, axis: np.tile(a, (1, n))
        cos, sin = repeat(np.cos(angles), 2, axis=1), repeat(np.sin(angles), 2, axis=1)
        return x * cos + rotate_half(x, interleaved) * sin

    claimed = "adjacent" if interleaved else "halves"
    report = identify_rope(library_rope, 16)
    assert report.ok and report.pairing == claimed


# --- identify_pe_table ----------------------------------------------------------------------

LAYOUTS = {
    "sin_cos_interleaved": ("interleaved", "sin, cos", "clockwise"),
    "cos_sin_interleaved": ("interleaved", "cos, sin", "counter-clockwise"),
    "sines_then_cosines": ("split", "sin, cos", "clockwise"),
    "cosines_then_sines": ("split", "cos, sin", "counter-clockwise"),
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
@pytest.mark.parametrize("d_model", [4, 16, 128])
def test_each_table_layout_is_read(name, d_model):
    report = identify_pe_table(pe_table_variants()[name], d_model)
    assert report.ok, report.messages
    assert (report.layout, report.order, report.shift_direction) == LAYOUTS[name]
    assert report.base == pytest.approx(10000.0, rel=1e-6)
    assert (report.spacing, report.scale) == ("2k/d", 1.0)


def test_the_vaswani_table_matches_its_sources():
    report = identify_pe_table(lambda n, d: sinusoidal_pe(n, d), 8)
    assert [s.name for s in report.same_layout_as] == [PE_TABLE_SOURCES[0].name]
    split = identify_pe_table(pe_table_variants()["sines_then_cosines"], 8)
    assert "tensor2tensor add_timing_signal_1d" in str(split)


def test_table_slips_are_caught():
    variants = pe_table_variants()
    column = identify_pe_table(variants["column_index"], 16)
    assert column.issues == ("column_index",) and column.layout == "interleaved"
    assert "each column j runs at its own frequency" in column.messages[0]
    divided = identify_pe_table(variants["divided"], 16)
    assert divided.issues == ("divided",) and divided.base == 10000.0
    squared = identify_pe_table(lambda n, d: sinusoidal_pe(n, d, base=1e8), 16)
    assert squared.issues == ("column_index",)  # pair k at 2(2k)/d: base squared


def test_a_scaled_table_with_tensor2tensor_spacing_is_a_convention_not_a_slip():
    def mlx_like(n, d):  # frequencies from 1 down to exactly 1/base, scaled by sqrt(2/d)
        w = np.exp(-np.log(10000.0) * np.arange(d // 2) / (d // 2 - 1))
        a = np.multiply.outer(np.arange(n), w)
        return np.sqrt(2 / d) * np.hstack([np.sin(a), np.cos(a)])

    report = identify_pe_table(mlx_like, 16)
    assert report.ok, report.messages
    assert report.spacing == "k/(d/2-1)" and report.base == pytest.approx(10000.0, rel=1e-6)
    assert report.scale == pytest.approx(np.sqrt(2 / 16))


def test_the_shift_operator_direction_is_checked_on_the_table():
    vaswani = lambda n, d: sinusoidal_pe(n, d)  # noqa: E731
    assert identify_pe_table(vaswani, 8, shift=shift_operator).ok
    erratum = identify_pe_table(vaswani, 8, shift=erratum_shift_operator)
    assert erratum.issues == ("shift_direction",)
    assert "erratum" in erratum.messages[0] and "counter-clockwise" in erratum.messages[0]
    cos_sin = pe_table_variants()["cos_sin_interleaved"]
    assert identify_pe_table(cos_sin, 8, shift=erratum_shift_operator).ok  # right for (cos, sin)
    assert identify_pe_table(cos_sin, 8, shift=shift_operator).issues == ("shift_direction",)
    short = identify_pe_table(vaswani, 8, n_positions=3, shift=erratum_shift_operator)
    assert short.issues == ("shift_direction",)  # three rows are enough
    wrong = identify_pe_table(vaswani, 8, shift=lambda delta, d: 2 * np.eye(d))
    assert wrong.issues == ("shift_wrong",)
    broken = identify_pe_table(vaswani, 8, shift=lambda delta, d: np.eye(3))
    assert broken.issues == ("error",) and "shift(1, 8)" in broken.messages[0]


def test_erratum_shift_operator_is_the_transpose_of_the_right_one():
    assert np.allclose(erratum_shift_operator(2.5, 8), shift_operator(2.5, 8).T)


def test_table_errors_are_reported():
    assert identify_pe_table(lambda n, d: 1 / 0, 8).issues == ("error",)
    assert identify_pe_table(lambda n, d: np.zeros((n, d + 2)), 8).issues == ("error",)
    shifted = identify_pe_table(lambda n, d: sinusoidal_pe(np.arange(1, n + 1), d), 8)
    assert shifted.issues == ("row0",) and "row 0" in shifted.messages[0]


# --- numerics: exact integers and angle errors per dtype ------------------------------------

EXACT = {"bfloat16": 2**8, "float16": 2**11, "float32": 2**24, "float64": 2**53}


def as_dtype(name):
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


@pytest.mark.parametrize("name", sorted(EXACT))
def test_largest_exact_integer_survives_a_cast_and_the_next_does_not(name):
    n = largest_exact_integer(name)
    assert n == EXACT[name]
    dtype = as_dtype(name)
    below = np.arange(max(n - 4096, 0), n + 1)  # every integer up to n, the last 4097 of them
    assert np.array_equal(below.astype(dtype).astype(np.float64), below.astype(np.float64))
    assert int(np.array(n + 1, dtype=object).astype(dtype)) == n  # n + 1 rounds back to n
    assert largest_exact_integer(dtype) == n


def test_bfloat16_positions_collapse_past_256():
    angles = rope_angle_error([256, 257, 258], 8, dtype="bfloat16")[:, 0]
    assert angles[0] < 0.01 and angles[2] < 0.01  # 256 and 258 are bfloat16 numbers
    assert angles[1] == pytest.approx(1.0, abs=0.01)  # 257 becomes 256: pair 0 one radian short


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_the_angle_error_grows_with_position_and_the_fix_removes_it(dtype):
    positions = [1e2, 1e3, 1e4, 6e4]  # float16 holds up to 65504
    error = rope_angle_error(positions, 128, 1e4, dtype).max(axis=-1)
    fixed = rope_angle_error(positions, 128, 1e4, dtype, fix=True).max(axis=-1)
    assert np.all(np.diff(error) > 0)
    rounding = 2.0 ** -ml_dtypes.finfo(as_dtype(dtype)).nmant  # one unit in the last place of 1
    assert fixed.max() <= rounding  # only cos and sin are rounded: no growth with position
    assert fixed[-1] < error[-1] / 10


def test_float32_errors_match_the_facts_of_the_lesson():
    # BEYOND.md §11: d = 128, b = 1e4, float32 angle error about 2e-4 rad at 1e4, 5e-2 at 1e6
    error = rope_angle_error([1e3, 1e4, 1e6], 128, 1e4, "float32").max(axis=-1)
    assert 1e-5 < error[0] < 1e-4
    assert 1e-4 < error[1] < 1e-3
    assert 1e-2 < error[2] < 1e-1
    assert rope_angle_error([1e6], 128, 1e4, "float64").max() < 1e-9
    assert rope_angle_error([1e6], 128, 1e4, "float32", fix=True).max() < 1e-7


def test_float32_angles_fix_bfloat16_up_to_where_float32_itself_drifts():
    bf16 = rope_angle_error([1e4, 1e6], 128, 1e4, "bfloat16").max(axis=-1)
    via_f32 = rope_angle_error([1e4, 1e6], 128, 1e4, "bfloat16", fix="float32").max(axis=-1)
    f32 = rope_angle_error([1e4, 1e6], 128, 1e4, "float32").max(axis=-1)
    assert bf16.min() > 1.0 and via_f32[0] < 0.01
    assert via_f32[1] == pytest.approx(f32[1], rel=0.1)  # past 1e6 float32 is the limit


def test_float16_overflow_is_nan_and_the_fix_keeps_it_finite():
    assert np.isnan(rope_angle_error([1e6], 8, dtype="float16")).all()
    assert np.isfinite(rope_angle_error([1e6], 8, dtype="float16", fix=True)).all()


def test_mixed_layouts_are_named_both_ways_round():
    def tiled_cos_with_adjacent_pairs(x, positions):
        angles = np.tile(np.outer(positions, frequencies(x.shape[1])), 2)
        turned = np.empty_like(x)
        turned[:, 0::2], turned[:, 1::2] = -x[:, 1::2], x[:, 0::2]
        return x * np.cos(angles) + turned * np.sin(angles)

    for f, pairing in (
        (rope_mutants()["mixed_layout"], "halves"),
        (tiled_cos_with_adjacent_pairs, "adjacent"),
    ):
        for expected in (None, "adjacent", "halves"):
            report = identify_rope(f, 16, expected_pairing=expected)
            assert report.issues == ("mixed_layout",) and report.pairing == pairing
            assert "np.tile" in report.messages[0] and "np.repeat" in report.messages[0]
    assert identify_rope(rope_mutants()["mixed_layout"], 16, expected_base=None).issues == (
        "not_rotation",
    )  # without a base to compare with, only the shape of the map is known


# --- what low-precision angles do to a score ------------------------------------------------


def test_low_precision_scores_match_rope_scores_in_float64_and_with_the_fix():
    rng = np.random.default_rng(5)
    q, k = rng.normal(size=16), rng.normal(size=16)
    keys = np.array([0.0, 3.0, 250.0, 9000.0])
    exact = rope_scores(q, k, [4000.0], keys)[0]
    assert np.allclose(low_precision_rope_scores(q, k, 4000, keys, "float64"), exact)
    for dtype in ("float16", "bfloat16"):
        fixed = low_precision_rope_scores(q, k, 4000, keys, dtype, fix=True)
        assert np.abs(fixed - exact).max() < 0.05 * np.linalg.norm(q) * np.linalg.norm(k)


def test_neighbours_collapse_to_one_score_where_the_dtype_rounds_them_together():
    rng = np.random.default_rng(6)
    q, k = rng.normal(size=64), rng.normal(size=64)
    back = np.arange(32)
    assert np.unique(low_precision_rope_scores(q, k, 10000, 10000 - back, "bfloat16")).size == 1
    assert np.unique(low_precision_rope_scores(q, k, 10000, 10000 - back, "float16")).size == 5
    assert np.unique(low_precision_rope_scores(q, k, 100, 100 - back, "bfloat16")).size == 32
    assert np.isnan(low_precision_rope_scores(q, k, 1e5, [1.0], "float16")).all()


DIVIDED = pe_table_variants()["divided"]
Q = np.ones(8)
BAD_CALLS = {
    "d_model odd": (lambda: identify_rope(rope(), 7), ValueError, "d_model"),
    "d_model 2": (lambda: identify_rope(rope(), 2), ValueError, "d_model"),
    "max_position": (lambda: identify_rope(rope(), 8, max_position=2), ValueError,
                     "max_position"),
    "n_positions 2": (lambda: identify_pe_table(DIVIDED, 8, n_positions=2), ValueError,
                      "n_positions"),
    "dtype int32": (lambda: largest_exact_integer("int32"), ValueError, "dtype"),
    "fix bfloat16": (lambda: rope_angle_error(4, 8, fix="bfloat16"), ValueError, "fix"),
    "angle d_model odd": (lambda: rope_angle_error(4, 7), ValueError, "d_model"),
    "positions 2-D": (lambda: rope_angle_error(np.zeros((2, 2)), 8), ValueError, "positions"),
    "widths differ": (lambda: low_precision_rope_scores(Q, np.ones(6), 0, [0]), ValueError, "q"),
    "q odd": (lambda: low_precision_rope_scores(np.ones(7), np.ones(7), 0, [0]), ValueError,
              "q.size"),
    "key_positions many": (lambda: low_precision_rope_scores(Q, Q, 0, np.zeros(2_000_000)),
                           ValueError, "key_positions"),
    "scores dtype": (lambda: low_precision_rope_scores(Q, Q, 0, [0], "int8"), ValueError,
                     "dtype"),
}  # fmt: skip


@pytest.mark.parametrize(("call", "error", "name"), BAD_CALLS.values(), ids=BAD_CALLS.keys())
def test_a_bad_argument_is_refused_naming_it(call, error, name):
    with pytest.raises(error, match=rf"(?<![\w.]){re.escape(name)}(?!\w)"):
        call()


def test_the_size_limit_itself_is_fine():
    assert rope_angle_error(65536, 128).shape == (65536, 64)
