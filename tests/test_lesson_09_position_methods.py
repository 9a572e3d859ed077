"""Lesson 09: the map of position methods, the bench, the live figures and the checkers."""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest

from pe_helpers.attention import causal_mask, relative_deviation, softmax
from pe_helpers.biases import MAX_BIAS_POSITIONS, alibi_slopes, t5_bias, t5_relative_bucket
from pe_helpers.lessons import position_methods as pm
from pe_helpers.model import METHODS, ModelConfig, forward_pass, init_params
from pe_helpers.seeds import SeedResults, load_results
from pe_helpers.tasks import make_task
from pe_helpers.training import train

OFFSETS = np.arange(-300, 301)


def reference_bucket(rel, bidirectional, num_buckets, max_distance):
    """transformers' T5Attention._relative_position_bucket, transcribed in float64."""
    rel = np.asarray(rel)
    out = np.zeros(rel.shape, dtype=np.int64)
    if bidirectional:
        num_buckets //= 2
        out += (rel > 0) * num_buckets
        distance = np.abs(rel)
    else:
        distance = -np.minimum(rel, 0)
    exact = num_buckets // 2
    large = exact + (
        np.log(np.maximum(distance, 1) / exact)
        / math.log(max_distance / exact)
        * (num_buckets - exact)
    ).astype(np.int64)
    return out + np.where(distance < exact, distance, np.minimum(large, num_buckets - 1))


# --- biases.t5_bias ----------------------------------------------------------------------------


@pytest.mark.parametrize("bidirectional", [True, False])
def test_t5_bias_reads_the_table_at_the_bucket_of_each_offset(bidirectional):
    table = np.random.default_rng(1).normal(size=(32, 3))
    bias = t5_bias(table, 40, bidirectional=bidirectional, max_distance=20)
    i, j = np.indices((40, 40))
    buckets = reference_bucket(j - i, bidirectional, 32, 20)
    assert bias.shape == (3, 40, 40)
    assert np.array_equal(bias, np.moveaxis(table[buckets], -1, 0))
    assert max(relative_deviation(head) for head in bias) < 1e-12  # Toeplitz, any table


@pytest.mark.parametrize(("bidirectional", "last", "first"), [(True, 15, 91), (False, 31, 113)])
def test_where_the_last_bucket_starts_in_each_mode(bidirectional, last, first):
    """32 buckets, max distance 128: 16 per side when bidirectional, 32 for keys back if causal."""
    back = -np.arange(3000)
    for buckets in (t5_relative_bucket(back, bidirectional=bidirectional),
                    reference_bucket(back, bidirectional, 32, 128)):  # fmt: skip
        assert buckets.max() == last and int(np.flatnonzero(buckets == last)[0]) == first
        assert np.all(buckets[first:] == last)
    exact = (last + 1) // 2
    assert first == math.ceil(exact * (128 / exact) ** ((exact - 1) / exact))


def test_the_map_has_four_known_roles_per_method_and_bench_names_of_the_trainer():
    for entry in pm.POSITION_MAP:
        assert len(entry.formulas) == len(entry.roles) == 4
        assert set(entry.roles) <= set(pm.maths.ROLES)
        assert entry.bench is None or entry.bench in METHODS
        dropped = [f for f, r in zip(entry.formulas, entry.roles, strict=True) if r == "dropped"]
        assert all(f == "—" for f in dropped)
    absolute = [e.name for e in pm.POSITION_MAP if "absolute" in e.roles]
    assert absolute == ["sinusoidal", "learned absolute", "TUPE-A"]


def test_each_role_agrees_with_the_symbols_of_its_formula():
    for entry in pm.POSITION_MAP:
        kinds = [pm.term_kind(formula) for formula in entry.formulas]
        assert kinds == [role.split(",")[0] for role in entry.roles], entry.name
        if entry.bench:
            assert pm.map_kind(entry) == pm.method_properties(entry.bench).kind, entry.name


@pytest.mark.parametrize(
    ("formula", "kind"),
    [
        ("pᵢWpⱼ", "absolute"),
        ("v W_R r(i−j)", "relative"),
        ("−m_h (i − j)", "relative"),
        ("Q_r[δ(j,i)] W_K eⱼ", "relative"),
        ("u W_E eⱼ", "content only"),
    ],
)
def test_term_kind_reads_the_symbols(formula, kind):
    assert pm.term_kind(formula) == kind


def test_a_wrong_role_would_be_caught():
    alibi = next(e for e in pm.POSITION_MAP if e.name == "ALiBi")
    wrong = alibi._replace(roles=("content only", "dropped", "dropped", "absolute"))
    kinds = [pm.term_kind(formula) for formula in wrong.formulas]
    assert kinds != [role.split(",")[0] for role in wrong.roles]
    assert pm.map_kind(wrong) == "absolute" != pm.method_properties("alibi").kind


def test_the_map_figure_shows_every_cell():
    ax = pm.plot_position_map()
    assert len(ax.texts) == 40
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(pm.maths.ROLES)
    plt.close(ax.figure)


# --- measurements --------------------------------------------------------------------------------


@pytest.mark.parametrize("causal", [True, False])
# lesson 14's content methods (CoPE, the forget gate) are not on lesson 09's bench
@pytest.mark.parametrize("method", [m for m in METHODS if m not in ("cope", "forgetting")])
def test_same_token_scores_are_the_scores_the_model_attends_with(method, causal):
    config = ModelConfig(
        method,
        vocab_size=5,
        d_model=8,
        n_heads=2,
        causal=causal,
        max_len=7,
        num_buckets=6,
        max_distance=5,
    )
    params = init_params(config, seed=3)
    if method == "t5_bias":
        params["t5_bias"] = np.random.default_rng(4).normal(size=params["t5_bias"].shape)
    scores = pm.maths.same_token_scores(params, config, 7, token=2)
    if causal:
        scores = np.where(causal_mask(7), scores, -np.inf)
    weights = forward_pass(params, config, np.full(7, 2))[1]["weights"]
    assert np.allclose(softmax(scores, axis=-1), weights[0], atol=1e-12)


@pytest.mark.parametrize(
    "method, kind, aware, extra",
    [
        ("none", "none", False, 0),
        ("sinusoidal", "absolute", True, 0),
        ("learned", "absolute", True, 16 * 32),
        ("rope_adjacent", "relative", True, 0),
        ("rope_halves", "relative", True, 0),
        ("alibi", "relative", False, 0),
        ("t5_bias", "relative", True, 32 * 2),
    ],
)
def test_method_properties(method, kind, aware, extra):
    found = pm.method_properties(method)
    assert (found.kind, found.direction_aware, found.extra_parameters) == (kind, aware, extra)
    assert (found.deviation < 1e-9) == (kind != "absolute")


def test_method_properties_follow_the_model_options():
    assert pm.method_properties("t5_bias", n_heads=8, num_buckets=16).extra_parameters == 128
    assert pm.method_properties("learned", n_positions=8, d_model=16).extra_parameters == 128


# --- the bench -----------------------------------------------------------------------------------


def test_a_small_bench_has_every_entry_computed():
    result = pm.run_bench(
        [("learned", "learned"), pm.maths.BenchEntry("T5", "t5_bias", {"n_heads": 1})],
        [("copy_back", 1)],
        length=6,
        factors=(1, 2),
        steps=5,
        n_samples=8,
    )
    assert result.accuracy.shape == (2, 1, 2) and result.lengths == (6, 12)
    assert np.isnan(result.accuracy[0, 0, 1]) and not np.isnan(result.accuracy[1]).any()
    assert [p.extra_parameters for p in result.properties] == [6 * 32, 32]
    assert result.baseline.shape == (1, 2) and len(result.models[1]) == 1
    table = pm.format_bench(result)
    rows = table.splitlines()
    assert rows[0] == "this run (seed 0), accuracy in %" and len(rows) == 5
    assert "–" in rows[3] and rows[4].split()[-2:] == ["relative", "yes"]
    figure = pm.plot_bench(result)
    legend = [t.get_text() for t in figure.legends[0].get_texts()]
    assert legend == ["learned", "T5", "order-blind limit"]
    plt.close(figure)


def _tiny_bench(seed=0):
    """Two entries (one learned) on both tasks, a few steps: every kind of cell, quickly."""
    entries = [("learned", "learned"), pm.maths.BenchEntry("ALiBi 4", "alibi", {"n_heads": 4})]
    return pm.run_bench(entries, length=6, factors=(1, 2), steps=3, n_samples=8, seed=seed)


def _spread_of(result, seeds=(0, 1), shift=0.1):
    """Results over two seeds around a bench's own values: this run and this run - shift."""
    values = {
        f"bench.{name}": np.array([value, max(value - shift, 0.0)])
        for name, value in pm.bench_metrics(result).items()
    }
    return SeedResults("demo", seeds, values)


def test_bench_metrics_name_every_filled_cell_and_skip_refused_lengths():
    result = _tiny_bench(seed=2)
    metrics = pm.bench_metrics(result)
    tasks = ("copy_back", "token_at")
    learned = [f"{task}.learned.L" for task in tasks]  # the learned table refuses 2L
    alibi = [f"{task}.alibi_4heads.{n}" for task in tasks for n in ("L", "2L")]
    assert sorted(metrics) == sorted(learned + alibi)
    assert metrics["token_at.alibi_4heads.2L"] == result.accuracy[1, 1, 1]
    assert result.seed == 2 and result.length == 6
    keys = [pm.maths.entry_key(e) for e in pm.maths.BENCH]
    assert keys[:3] + keys[6:] == ["none", "sinusoidal", "learned", "t5_bias"]  # 3:6 a doctest
    assert (
        pm.maths.entry_key(pm.maths.BenchEntry("x", "t5_bias", {"num_buckets": 8}))
        == "t5_bias_num_buckets8"
    )


def test_bench_metrics_refuse_two_cells_of_one_name():
    result = pm.run_bench(
        [("a", "none"), ("b", "none")],
        [("copy_back", 1)],
        length=4,
        factors=(1,),
        steps=1,
        n_samples=2,
    )
    with pytest.raises(ValueError, match="one metric name"):
        pm.bench_metrics(result)


def test_format_bench_adds_the_range_over_seeds_below_this_run():
    result = _tiny_bench()
    spread = _spread_of(result)
    rows = pm.format_bench(result, spread).splitlines()
    assert rows[:5] == pm.format_bench(result).splitlines()
    assert rows[5] == "" and rows[6] == "over 2 seeds, lowest–highest accuracy in %"
    for first, task in ((7, "copy_back"), (11, "token_at")):  # one table per task
        assert rows[first].split()[:2] == [task, "k=1" if task == "copy_back" else "p=0"]
        learned, alibi = rows[first + 1].split(), rows[first + 2].split()
        assert learned[1:] == [pm.seed_range(spread, f"bench.{task}.learned.L")[:-1], "–"]
        assert alibi[:2] == ["ALiBi", "4"] and alibi[2:] == [
            pm.seed_range(spread, f"bench.{task}.alibi_4heads.{n}")[:-1] for n in ("L", "2L")
        ]


def test_plot_bench_shades_the_band_of_each_line_and_bars_a_lone_point():
    result = _tiny_bench()
    spread = _spread_of(result, shift=0.2)
    figure = pm.plot_bench(result, spread)
    for c, ax in enumerate(figure.axes):
        bands = [a for a in ax.collections if type(a).__name__.endswith("PolyCollection")]

        bars = [a for a in ax.collections if type(a).__name__ == "LineCollection"]
        assert len(bands) == 1 and len(bars) == 1  # ALiBi's band, the learned table's bar
        (segment,) = bars[0].get_segments()
        high = 100 * result.accuracy[0, c, 0]
        np.testing.assert_allclose(segment[:, 1], [max(high - 20, 0), high])
        assert bands[0].get_edgecolor()[0][:3].tolist() == list(
            plt.matplotlib.colors.to_rgb(ax.lines[1].get_color())
        )
    texts = [t.get_text() for t in figure.legends[0].get_texts()]
    assert texts[-1] == "band: lowest–highest over 2 seeds" and texts[:2] == ["learned", "ALiBi 4"]
    assert figure.get_suptitle() == "lines: this run (seed 0)"
    plt.close(figure)


def test_the_shipped_results_name_exactly_the_cells_of_the_lessons_bench():
    spread = load_results("position_methods")
    names = sorted(f"bench.{name}" for name in pm.bench_metrics(pm.run_bench(steps=1, n_samples=1)))
    assert names == [name for name in spread.names if name.startswith("bench.")]
    assert len(names) == 7 * 2 * 3 - 4  # the learned table refuses 2L and 4L on both tasks
    t5 = [name for name in spread.names if name.startswith("t5.")]
    assert sorted(t5) == sorted(f"t5.{name}" for name in pm.maths._t5_experiment(0))


def test_the_t5_group_trains_the_benchs_t5_model():
    entry = next(e for e in pm.maths.BENCH if e.method == "t5_bias")
    task = make_task(*pm.maths.BENCH_TASKS[0])
    bench = pm.run_bench([entry], [task], length=8, factors=(1,), steps=20, n_samples=4, seed=3)
    alone = pm.maths._train_entry(entry, task, length=8, steps=20, seed=3)
    for name, values in bench.models[0][0].params.items():
        np.testing.assert_array_equal(values, alone.params[name], err_msg=name)
    assert set(pm.SEED_EXPERIMENTS) == {"bench", "t5"}


# --- inside the trained T5 model -----------------------------------------------------------------


@pytest.fixture(scope="module")
def t5_copy_model():
    return train("copy_back", "t5_bias", length=8, steps=80, seed=1)


def test_t5_table_facts_read_the_table(t5_copy_model):
    facts = pm.t5_table_facts(t5_copy_model)
    table = t5_copy_model.params["t5_bias"]
    others = np.delete(table[:8], 1, axis=0)  # distances 0 and 2..7 were reached
    assert facts == {
        "argmax_one_back": float((table.argmax(axis=0) == 1).all()),
        "seen_negative": float((others < 0).all()),
        "highest_other_seen": float(others.max()),
        "untrained_zero": 1.0,
    }
    changed = t5_copy_model.replace()
    changed.params["t5_bias"][20] = 1e-3  # an untrained bucket that moved
    facts = pm.t5_table_facts(changed)
    assert facts["untrained_zero"] == 0.0 and facts["highest_other_seen"] == float(others.max())


def test_last_query_attention_splits_the_last_row(t5_copy_model):
    near, far = pm.last_query_attention(t5_copy_model, (8, 16, 32), n_sequences=16, seed=4)
    tokens = np.random.default_rng(4).integers(0, 16, size=(16, 32))
    last = t5_copy_model.attention(tokens[:, :16]).mean(axis=(0, 1))[-1]
    assert near[1] == last[-2] and far[1] == last[:8].sum() and far[0] == 0.0
    assert near.shape == far.shape == (3,) and ((near + far) <= 1 + 1e-12).all()


def test_alibi_heads_shows_one_block_per_head_with_its_slope():
    figure = pm.AlibiHeads(n_positions=6).draw(n_heads=3)
    ax = figure.axes[0]
    labels = [text.get_text() for text in ax.texts]
    assert labels[:4] == ["head 1\nm = 1/16", "head 2\nm = 1/256", "head 3\nm = 1/4", ""]
    mosaic = ax.images[0].get_array()
    cover = ax.images[1].get_array()
    assert mosaic.shape == (13, 27) and cover.shape == (13, 27, 4)
    third = mosaic[0:6, 14:20]  # head 3: first row of blocks, third column
    expected = -alibi_slopes(3)[2] * np.subtract.outer(np.arange(6), np.arange(6))
    assert np.allclose(third, np.minimum(expected, 0.0))
    opaque = cover[..., 3]
    assert np.array_equal(opaque[0:6, 14:20], np.triu(np.ones((6, 6)), 1))  # future keys grey
    assert (opaque[7:13, 0:6] == 1).all()  # head 5 does not exist: blank
    assert np.isfinite(mosaic).all() and np.isfinite(cover).all()
    plt.close(figure)


def test_t5_bucket_map_draws_the_package_buckets():
    figure = pm.T5BucketMap(max_offset=50).draw(num_buckets=8, max_distance=40)
    offsets = np.arange(-50, 51)
    for ax, bidirectional in zip(figure.axes, (True, False), strict=True):
        assert np.array_equal(
            ax.lines[0].get_ydata(), package_bucket(offsets, bidirectional, 8, 40)
        )

    plt.close(figure)


def package_bucket(rel, bidirectional, num_buckets, max_distance):
    return t5_relative_bucket(
        rel, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )


@pytest.mark.parametrize(
    "answer",
    [
        package_bucket,
        reference_bucket,  # the package and a float64 transcription agree on the checked cases
        lambda r, b, n, m: package_bucket(r, b, n, m).astype(np.float32),
        lambda r, b, n, m: package_bucket(r, b, n, m).tolist(),
    ],
)
def test_right_bucket_functions_pass(answer):
    assert pm.check_t5_bucket(answer).status == "correct"


def slip(**change):
    return lambda r, b, n, m: pm.exercises._reference(np.asarray(r), b, n, m, **change)


@pytest.mark.parametrize(
    "answer, hint",
    [
        (slip(upper=lambda r: r >= 0), "Offset 0 belongs to the lower half"),
        (slip(halve=False), "halve num_buckets"),
        (slip(clamp=False), "clamp"),
        (slip(causal_distance=np.abs), "In causal mode"),
        (slip(rounding=np.round), "truncated"),
        (lambda r, b, n, m: package_bucket(-np.asarray(r), b, n, m), "mirrored"),
        (lambda r, b, n, m: package_bucket(r, b, n, m) + (np.asarray(r) == 5), "one offset"),
        (lambda r, *_: np.zeros(5), "shape"),
    ],
)
def test_each_bucket_slip_gets_its_hint(answer, hint):
    feedback = pm.check_t5_bucket(answer)
    assert feedback.status == "wrong"
    assert hint in feedback.message


def test_a_bucket_function_never_sees_the_checker_array():
    seen = []

    def modifies(rel, b, n, m):
        seen.append(rel)
        rel += 1000  # in place: must not change what the checker compares
        return package_bucket(rel - 1000, b, n, m)

    assert pm.check_t5_bucket(modifies).status == "correct"
    assert np.array_equal(pm.exercises._OFFSETS, OFFSETS)


# --- exercise 2: name the method ------------------------------------------------------------------


def test_the_mystery_panels_are_what_the_checker_says():
    matrices = pm.mystery_matrices()
    deviations = {panel: relative_deviation(m) for panel, m in matrices.items()}
    assert max(deviations["A"], deviations["C"], deviations["D"]) < 1e-12 < 0.5 < deviations["B"]
    assert np.allclose(matrices["D"], matrices["D"].T) and not np.allclose(
        matrices["C"], matrices["C"].T
    )
    assert (matrices["D"] <= 0).all()


@pytest.mark.parametrize(
    "answer",
    [
        {"A": "T5 bias", "B": "learned", "C": "RoPE", "D": "ALiBi"},
        {"a": "t5", "b": "Learned absolute", "c": "rotary", "d": "alibi"},
        ["T5_bias", "absolute", "rope", "ALiBi"],
        ("t5 buckets", "learned", "RoPE", "linear biases"),
    ],
)
def test_right_names_pass(answer):
    assert pm.check_method_names(answer).status == "correct"


@pytest.mark.parametrize(
    "answer, words",
    [
        (["T5", "ALiBi", "RoPE", "learned"], "Panel B: the colours do not repeat"),
        (["T5", "learned", "RoPE", "sinus"], "'sinus' is not one of the four methods"),
        (["T5", "learned", "RoPE", 3], "as text"),
        ({"A": "T5", "B": "learned"}, "C, D missing"),
        (["T5", "learned"], "a list of four names"),
        ("ALiBi", "a list of four names"),
    ],
)
def test_wrong_names_get_feedback(answer, words):
    feedback = pm.check_method_names(answer)
    assert feedback.status == "wrong"
    assert words in feedback.message


@pytest.mark.parametrize("answer", [{"A": None, "B": None, "C": None, "D": None}, [None] * 4])
def test_an_untouched_template_is_not_done_yet(answer):
    assert pm.check_method_names(answer).status == "todo"


def test_the_guide_and_the_cheatsheet_quote_the_shipped_spread():
    # Every range the docs quote for this lesson is lowest-highest over the shipped seeds.
    spread = load_results("position_methods")
    docs = Path(__file__).resolve().parents[1] / "docs"
    guide = (docs / "instructor_guide.md").read_text(encoding="utf-8")
    section = guide[guide.index("## Lesson 09 ·") : guide.index("## Lesson 10 ·")]
    cheatsheet = (docs / "cheatsheet.md").read_text(encoding="utf-8")

    def span(name: str) -> str:  # "81–85" (or "6" when every seed agrees to the percent)
        low, high = (round(100 * float(f(spread[name]))) for f in (np.min, np.max))
        return f"{low}–{high}" if low != high else f"{low}"

    n = len(spread.seeds)
    for name, prefix in [
        ("bench.copy_back.alibi.L", ""),
        ("bench.copy_back.alibi_8heads.L", ""),
        ("bench.copy_back.t5_bias.4L", ""),
        ("bench.copy_back.none.L", ""),
        ("bench.copy_back.alibi_8heads.4L", ""),
        ("bench.copy_back.rope_adjacent.2L", "anywhere in "),
        ("bench.token_at.sinusoidal.4L", "at 4L in "),
        ("t5.near.L", "falls from "),
        ("t5.near.2L", "to\n  "),
    ]:
        assert f"{prefix}{span(name)}%" in section, name
    assert f"over those {n} seeds" in section and "10 seeds" not in section
    rows = {
        "copy back — T5": "bench.copy_back.t5_bias",
        "ALiBi 2 heads": "bench.copy_back.alibi",
        "8 heads": "bench.copy_back.alibi_8heads",
        "token at 0 — T5": "bench.token_at.t5_bias",
    }
    for label, stem in rows.items():
        quoted = "/".join(span(f"{stem}.{s}") for s in ("L", "2L", "4L"))
        assert f"{label} {quoted}%" in cheatsheet, label
    assert f"lowest–highest over {n} seeds" in cheatsheet
    assert f"spans {span('bench.copy_back.rope_adjacent.2L')}%" in cheatsheet
