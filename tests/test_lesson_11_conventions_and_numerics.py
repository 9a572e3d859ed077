"""Lesson 11 · Conventions and numerics: the pairing fix, the figures and the checkers."""

from __future__ import annotations

import matplotlib.pyplot as plt
import ml_dtypes
import numpy as np
import pytest
from matplotlib.colors import to_rgb

from pe_helpers.encodings import frequencies
from pe_helpers.lessons.conventions_and_numerics import (
    DTYPES,
    LOADER_D_MODEL,
    LOADER_HEAD_DIM,
    SEED_EXPERIMENTS,
    AngleErrorPerPair,
    check_cos_sin_cache,
    check_llama2_loader,
    check_rope_complex,
    check_snippet,
    llama2_checkpoint,
    pairing_metrics,
    plot_angle_error,
    plot_position_accuracy,
    reference_scores,
    repository_scores,
    swap_pairing,
)
from pe_helpers.rope import apply_rope, halves_permutation
from pe_helpers.training import train

BF16 = np.dtype(ml_dtypes.bfloat16)


# --- pairing: trained both ways, run the wrong way, fixed ---------------------------------------


@pytest.fixture(scope="module")
def adjacent_model():
    return train("token_at", "rope_adjacent")


def test_pairing_metrics_measure_what_the_notebook_prints(adjacent_model):
    halves = train("token_at", "rope_halves")
    measured = pairing_metrics(adjacent_model, halves)
    right = adjacent_model.accuracy(per_position=True)
    wrong = adjacent_model.replace(method="rope_halves").accuracy(per_position=True)
    assert measured["adjacent"] == adjacent_model.accuracy()
    assert measured["halves"] == halves.accuracy()
    assert [measured[f"wrong.p{t:02d}"] for t in range(16)] == wrong.tolist()
    assert [measured[f"right.p{t:02d}"] for t in range(16)] == right.tolist()
    assert measured["wrong.early"] == wrong[1:4].mean()
    assert measured["wrong.late"] == wrong[8:].mean()
    assert measured["right.late"] == right[8:].mean()
    assert measured["right.late_min"] == right[8:].min()
    assert len(measured) == 2 + 2 * 16 + 4
    # The query at 0 sees only itself, and no layout turns position 0: on any seed.
    assert measured["wrong.p00"] == measured["right.p00"]
    # The shipped experiment trains exactly these models for seed 0.
    assert SEED_EXPERIMENTS["pairing"](0) == measured


def test_pairing_metrics_leave_out_positions_nothing_scores():
    def both(length):
        return [
            train("copy_back", method, task_arg=2, length=length, vocab_size=4, steps=2)
            for method in ("rope_adjacent", "rope_halves")
        ]

    measured = pairing_metrics(*both(12))
    assert "wrong.p00" not in measured and "right.p01" not in measured  # copy-back k = 2
    assert {"wrong.p02", "right.p11", "wrong.early", "right.late_min"} <= set(measured)
    assert all(np.isfinite(value) for value in measured.values())
    short = pairing_metrics(*both(8))  # no position 8: no summary of positions 8 on
    assert "wrong.early" in short and not {"wrong.late", "right.late"} & set(short)


@pytest.mark.parametrize("method", ["rope_adjacent", "rope_halves"])
def test_swap_pairing_keeps_every_logit(method):
    model = train("copy_back", method, length=8, vocab_size=6, steps=20, n_heads=2, d_model=16)
    swapped = swap_pairing(model)
    tokens = np.random.default_rng(3).integers(0, 6, size=(5, 8))
    assert swapped.config.method != method
    assert np.allclose(swapped.logits(tokens), model.logits(tokens))
    assert np.array_equal(swapped.params["w_v"], model.params["w_v"])  # values never turn
    assert not np.allclose(
        model.replace(method=swapped.config.method).logits(tokens), model.logits(tokens)
    )
    assert np.allclose(swap_pairing(swapped).params["w_q"], model.params["w_q"])


# --- figures ------------------------------------------------------------------------------------


def test_position_accuracy_draws_each_curve_in_percent_and_each_band_in_its_colour():
    curves = {"right": [1.0, 1.0, np.nan], "wrong": [1.0, 0.5, 0.25]}
    ax = plot_position_accuracy(curves, bands={"wrong": ([1.0, 0.4, 0.1], [1.0, 0.6, 0.5])})
    assert [line.get_label() for line in ax.lines] == ["right", "wrong"]  # the lines: this run
    assert ax.lines[1].get_ydata().tolist() == [100.0, 50.0, 25.0]
    assert ax.lines[0].get_linestyle() != ax.lines[1].get_linestyle()
    (band,) = ax.collections
    assert band.get_label() == "min to max over seeds"
    assert np.allclose(band.get_edgecolor()[0][:3], to_rgb(ax.lines[1].get_color()))
    top = band.get_paths()[0].vertices[:, 1]
    assert top.min() == 10.0 and top.max() == 100.0  # in percent, like the lines
    assert ax.get_ylim() == (0.0, 140.0)  # room above 100% for the legend
    assert [text.get_text() for text in ax.get_legend().get_texts()] == [
        "right",
        "wrong",
        "min to max over seeds",
    ]


def test_angle_error_figure_shows_every_dtype_and_the_fix():
    ax = plot_angle_error(16, max_position=1e5)
    labels = [line.get_label() for line in ax.lines if not line.get_label().startswith("_")]
    assert labels[0] == "float64" and labels[-1] == "bfloat16, fixed (float64 angles)"
    assert {label.split(" ")[0] for label in labels[:-1]} >= set(DTYPES)
    float16 = next(line for line in ax.lines if line.get_label().startswith("float16"))
    x, y = float16.get_xdata(), float16.get_ydata()
    assert np.isnan(y[x > 65504]).all() and np.isfinite(y[(x > 10) & (x < 60000)]).all()


@pytest.mark.parametrize(
    ("position", "dtype", "title", "caption"),
    [
        (257, "bfloat16", "bfloat16, position 257: worst pair off by 1 rad", "stored as 256"),
        (256, "bfloat16", "bfloat16, position 256: worst pair off by", "stored exactly"),
        (1e6, "float16", "float16, position 1,000,000: every angle is NaN", "overflows float16"),
        (
            10000,
            "float32",
            "float32, position 10,000: worst pair off by 0.00032 rad",
            "stored exactly",
        ),
    ],
)
def test_angle_error_view_says_how_the_position_is_stored(position, dtype, title, caption):
    figure = AngleErrorPerPair().draw(position=position, dtype=dtype)
    ax = figure.axes[0]
    assert ax.get_title().startswith(title)
    assert caption in ax.texts[0].get_text()
    assert len(ax.lines[0].get_ydata()) == 64


def test_angle_error_view_picks_the_dtype_by_name():
    control = AngleErrorPerPair.controls["dtype"]
    assert (control.kind, control.default) == ("choice", "bfloat16")
    assert control.options == DTYPES == ("float64", "float32", "float16", "bfloat16")


# --- what the doors refuse ---------------------------------------------------------------------


def _trained(method="rope_halves", **options):
    return train("copy_back", method, length=6, vocab_size=4, steps=1, **options)


def _curves(curves=None, bands=None):
    return plot_position_accuracy({"a": [1.0, 0.5]} if curves is None else curves, bands=bands)


# (call on the module's adjacent model, error type, the parameter the message names)
BAD_ARGUMENTS = [
    (lambda m: pairing_metrics(m, m), ValueError, "halves"),
    (lambda m: pairing_metrics(_trained(), _trained()), ValueError, "adjacent"),
    (lambda m: swap_pairing(_trained("learned")), ValueError, "model"),
    (
        lambda m: swap_pairing(_trained("rope_adjacent", inv_freq=[1.0, 0.1])),
        ValueError,
        "model",
    ),
    (lambda m: _curves(bands={"other": ([1.0, 1.0], [1.0, 1.0])}), ValueError, "bands"),
    (lambda m: _curves(bands={"a": [1.0, 1.0]}), ValueError, "bands"),
    (lambda m: _curves(bands={"a": ([1.0], [1.0], [1.0])}), TypeError, "bands"),
    (lambda m: _curves(bands={"a": ([1.0, 1.0], [1.0])}), ValueError, "bands"),
    (lambda m: _curves(bands={"a": ([1.0, 0.5], [1.0, 1.5])}), ValueError, "bands"),
    (lambda m: _curves({}), TypeError, "accuracies"),
    (lambda m: _curves({str(i): [1.0] for i in range(11)}), TypeError, "accuracies"),
    (lambda m: _curves({"a": np.ones(5000)}), ValueError, "accuracies"),
    (lambda m: _curves({"a": [1.5]}), ValueError, "accuracies"),
    (lambda m: _curves({"a": [1.0, 1.0], "b": [1.0]}), ValueError, "accuracies"),
    (lambda m: plot_angle_error(d_model=7), ValueError, "d_model"),
    (lambda m: AngleErrorPerPair(d_model=2), ValueError, "d_model"),
    (
        lambda m: reference_scores(np.ones((5000, LOADER_D_MODEL)), *llama2_checkpoint()),
        ValueError,
        "x",
    ),
]


@pytest.mark.parametrize(("call", "error", "name"), BAD_ARGUMENTS)
def test_the_doors_name_the_bad_argument(adjacent_model, call, error, name):
    with pytest.raises(error, match=rf"\b{name}\b"):
        call(adjacent_model)
    plt.close("all")


# --- exercise 1: RoPE with complex numbers, read by the detector ------------------------------


def rope_complex(x, positions, base=10000.0, sign=1.0, real=np.float64):
    x = np.asarray(x, dtype=real)
    d = x.shape[1]
    z = x[:, 0::2] + 1j * x[:, 1::2]
    z = z * np.exp(sign * 1j * np.outer(positions, base ** (-np.arange(0, d, 2) / d)))
    out = np.empty(x.shape, dtype=real)
    out[:, 0::2], out[:, 1::2] = z.real, z.imag
    return out


def test_complex_rope_checker_accepts_right_answers_in_float64_and_float32():
    assert check_rope_complex(rope_complex)
    assert check_rope_complex(lambda x, t, base: rope_complex(x, t, base, real=np.float32))
    assert check_rope_complex(lambda x, t, base: apply_rope(x, t, base))

    def in_place(x, positions, base):
        x[:] = rope_complex(x, positions, base)  # changes its input: the checker passes copies
        return x

    assert check_rope_complex(in_place)


@pytest.mark.parametrize(
    ("answer", "phrase"),
    [
        (lambda x, t, base: rope_complex(x, t, base, sign=-1.0), "clockwise"),
        (lambda x, t, base: apply_rope(x, t, base, pairing="halves"), "feature k with feature k"),
        (lambda x, t, base: rope_complex(x, t), "not the expected 500"),
        (lambda x, t, base: rope_complex(x, t, base**2), "twice as fast"),
        (lambda x, t, base: rope_complex(x, np.arange(len(t)), base), "row index"),
        (lambda x, t, base: np.asarray(x, dtype=float), "nothing turns"),
        (lambda x, t, base: rope_complex(x, t, base) + 0j, "returned complex numbers"),
        (lambda x, t, base: rope_complex(x, t, base)[:, :4], "expected (4, 16)"),
    ],
)
def test_complex_rope_checker_names_each_slip(answer, phrase):
    feedback = check_rope_complex(answer)
    assert feedback.status == "wrong"
    assert phrase in feedback.message


# --- exercise 2: spot the error ------------------------------------------------------------------


def adjacent_rope(inv_freq_of):
    def rope(x, positions, base=10000.0):
        d = x.shape[1]
        angles = np.outer(positions, inv_freq_of(base, d))
        cos, sin = np.cos(angles), np.sin(angles)
        out = np.empty(x.shape)
        out[:, 0::2] = x[:, 0::2] * cos - x[:, 1::2] * sin
        out[:, 1::2] = x[:, 0::2] * sin + x[:, 1::2] * cos
        return out

    return rope


def rotate_half_rope(layout):
    def rope(x, positions, base=10000.0):
        d = x.shape[1]
        angles = np.outer(positions, 1.0 / base ** (np.arange(0, d, 2) / d))
        cos, sin = layout(np.cos(angles)), layout(np.sin(angles))
        return x * cos + np.hstack([-x[:, d // 2 :], x[:, : d // 2]]) * sin

    return rope


SNIPPET_A = adjacent_rope(lambda base, d: base ** (np.arange(0, d, 2) / d))
SNIPPET_B = adjacent_rope(lambda base, d: 1.0 / base ** (2 * np.arange(0, d, 2) / d))
SNIPPET_C = rotate_half_rope(lambda a: np.repeat(a, 2, axis=1))
FIXED = {
    "A": adjacent_rope(lambda base, d: base ** (-np.arange(0, d, 2) / d)),
    "B": adjacent_rope(lambda base, d: 1.0 / base ** (np.arange(0, d, 2) / d)),
    "C": rotate_half_rope(lambda a: np.tile(a, 2)),
}


def _fixed_in_float32(x, positions, base=10000.0):
    return FIXED["C"](np.asarray(x, np.float32), positions, np.float32(base)).astype(np.float32)


@pytest.mark.parametrize(
    ("letter", "fixed"), [*FIXED.items(), ("C", _fixed_in_float32)], ids=["A", "B", "C", "C32"]
)
def test_each_fixed_snippet_passes(letter, fixed):
    assert check_snippet(letter, fixed)


@pytest.mark.parametrize(
    ("letter", "snippet", "phrase"),
    [
        ("A", SNIPPET_A, "t / theta_k"),
        ("B", SNIPPET_B, "column index"),
        ("C", SNIPPET_C, "cos and sin are laid out for adjacent"),
        ("C", FIXED["A"], "this one should pair feature k with feature k + d/2"),
        ("A", FIXED["C"], "this one should pair neighbouring features"),
    ],
)
def test_each_buggy_snippet_gets_its_diagnosis(letter, snippet, phrase):
    feedback = check_snippet(letter, snippet)
    assert feedback.status == "wrong" and phrase in feedback.message
    assert feedback.hint


def test_snippet_checker_answers_an_unknown_letter_with_feedback():
    # Issue 32: a checker never raises; a lower-case letter is the same snippet.
    feedback = check_snippet("D", FIXED["A"])
    assert feedback.status == "wrong" and "letter must be 'A', 'B' or 'C'" in feedback.message
    assert check_snippet(None, FIXED["A"]).status == "wrong"
    assert check_snippet("a", FIXED["A"]).status == "correct"


# --- exercise 3: a cos/sin cache that survives low precision ---------------------------------


def cache(angle_dtype=np.float64, position_dtype=None, swap=False, cast=True):
    def cos_sin_cache(n_positions, d_model, dtype):
        inv_freq = frequencies(d_model).astype(angle_dtype)
        t = np.arange(n_positions).astype(position_dtype or angle_dtype).astype(angle_dtype)
        angles = np.outer(t, inv_freq)
        cos, sin = np.cos(angles), np.sin(angles)
        if swap:
            cos, sin = sin, cos
        return (cos.astype(dtype), sin.astype(dtype)) if cast else (cos, sin)

    return cos_sin_cache


def test_cache_checker_accepts_float64_and_float32_angles():
    assert check_cos_sin_cache(cache())
    assert check_cos_sin_cache(cache(np.float32))


def the_lesson_snippet(n_positions, d_model, dtype):
    inv_freq = (1.0 / 10000.0 ** (np.arange(0, d_model, 2) / d_model)).astype(dtype)
    t = np.arange(n_positions).astype(dtype)
    angles = np.outer(t, inv_freq)
    return np.cos(angles), np.sin(angles)


def _f16_positions(n_positions, d_model, dtype):
    t = np.arange(n_positions).astype(np.float16 if dtype == np.float16 else np.float64)
    angles = np.outer(t.astype(np.float64), frequencies(d_model))
    return np.cos(angles).astype(dtype), np.sin(angles).astype(dtype)


@pytest.mark.parametrize(
    ("answer", "phrase"),
    [
        (the_lesson_snippet, "frequencies or the products"),
        (cache(position_dtype=BF16), "positions up to 256 are right"),
        (_f16_positions, "positions up to 2,048 are right"),
        (cache(cast=False), "comes back as float64"),
        (cache(swap=True), "cos and sin are swapped"),
        (lambda n, d, dtype: ([1.0], [0.0]), "must be a numpy array"),
        (lambda n, d, dtype: (np.ones((n, d), dtype), np.zeros((n, d), dtype)), "shape (4096, 32)"),
    ],
)
def test_cache_checker_names_each_slip(answer, phrase):
    feedback = check_cos_sin_cache(answer)
    assert feedback.status == "wrong"
    assert phrase in feedback.message


# --- exercise 4: a Llama 2 checkpoint in a split-halves repository ------------------------------

_PERM = halves_permutation(LOADER_HEAD_DIM)
_INVERSE = np.argsort(_PERM)


def test_the_repository_agrees_with_the_reference_only_at_offset_zero():
    w_q, w_k = llama2_checkpoint()
    x = np.random.default_rng(5).normal(size=(10, LOADER_D_MODEL))
    gap = np.abs(repository_scores(x, w_q, w_k) - reference_scores(x, w_q, w_k))
    assert gap.diagonal().max() < 1e-12
    assert all(gap.diagonal(-offset).min() > 0 for offset in range(1, 10))
    fixed = repository_scores(x, w_q[:, _PERM], w_k[:, _PERM])
    assert np.allclose(fixed, reference_scores(x, w_q, w_k), rtol=1e-12, atol=1e-12)


def test_the_checkpoints_differ_by_seed_and_have_the_head_shape():
    (a, b), (c, _) = llama2_checkpoint(), llama2_checkpoint(seed=3)
    assert a.shape == b.shape == (LOADER_D_MODEL, LOADER_HEAD_DIM) and not np.allclose(a, c)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_loader_checker_judges_a_cast_answer_by_its_layout_not_its_rounding(dtype):
    def cast(convert):
        return lambda w_q, w_k: tuple(w.astype(dtype) for w in convert(w_q, w_k))

    assert check_llama2_loader(cast(lambda w_q, w_k: (w_q[:, _PERM], w_k[:, _PERM]))).passed
    unchanged = check_llama2_loader(cast(lambda w_q, w_k: (w_q, w_k)))
    assert unchanged.status == "wrong" and "unchanged" in unchanged.message


@pytest.mark.parametrize(
    ("convert", "phrase"),
    [
        (lambda w_q, w_k: (w_q, w_k), "unchanged"),
        (lambda w_q, w_k: (w_q[:, _INVERSE], w_k[:, _INVERSE]), "inverse permutation"),
        (lambda w_q, w_k: (w_q[:, _PERM], w_k), "W_K still has the adjacent layout"),
        (lambda w_q, w_k: (w_q, w_k[:, _PERM]), "W_Q still has the adjacent layout"),
        (lambda w_q, w_k: (w_q[_PERM], w_k[_PERM]), "reorder columns, not rows"),
        (lambda w_q, w_k: (w_q[:, ::-1], w_k[:, ::-1]), "only on the diagonal"),
        (lambda w_q, w_k: w_q, "your (W_Q, W_K)"),
    ],
)
def test_loader_checker_names_each_slip(convert, phrase):
    feedback = check_llama2_loader(convert)
    assert feedback.status == "wrong" and phrase in feedback.message
