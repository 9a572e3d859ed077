"""Results over seeds: the core (pe_helpers.seeds), and the shipped files of every lesson.

The shipped files cannot rot: a cheap group of each lesson is re-trained here and must give the
shipped values exactly (under the CPU kernels the file records, where this CPU has them), and
every metric a notebook names must exist in its lesson's file.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys

import nbformat
import numpy as np
import pytest

import pe_helpers.seeds as seeds_module
from pe_helpers.lessons import lessons
from pe_helpers.seeds import (
    RESULTS_ENV,
    RESULTS_FOLDER,
    SEEDS,
    ResultsFileError,
    RunInterrupted,
    SeedResults,
    cpu_kernels,
    kernels_env,
    load_results,
    run_experiments,
    write_results,
)


def _with_experiments():
    found = []
    for lesson in lessons():
        if lesson.module:
            experiments = getattr(importlib.import_module(lesson.module), "SEED_EXPERIMENTS", None)
            if experiments:
                found.append((lesson, experiments))
    return found


WITH_EXPERIMENTS = _with_experiments()
IDS = [lesson.slug for lesson, _ in WITH_EXPERIMENTS]


# --- the core ---------------------------------------------------------------------------------


def test_results_round_trip_exactly(tmp_path):
    values = {"g.a": [0.1, 1 / 3, 0.95], "g.b": [1.0, 0.0, 0.5]}
    path = write_results("demo", (0, 1, 2), values, {"g": 1.5}, folder=tmp_path)
    back = load_results("demo", tmp_path)
    assert back.seeds == (0, 1, 2) and back.names == ["g.a", "g.b"]
    assert back["g.a"].tolist() == values["g.a"]  # bit for bit
    assert back.produced_by["seconds_per_group"] == {"g": 1.5}
    assert len(back.produced_by["commit"]) in (40, len("unknown"))
    text = path.read_text()
    assert text.count("\n") >= 6 and '"g.a": [0.1, 0.3333333333333333, 0.95]' in text


def test_spread_numbers_and_text():
    results = SeedResults("demo", (0, 1, 2, 3), {"g.x": np.array([0.5, 1.0, 0.8, 0.7])})
    assert (results.low("g.x"), results.median("g.x"), results.high("g.x")) == (0.5, 0.75, 1.0)
    assert results.describe("g.x") == "50–100% over 4 seeds (median 75%)"
    assert results.describe("g.x", scale="plain") == "0.50–1.00 over 4 seeds (median 0.75)"
    assert results.contains("g.x", 0.49) and not results.contains("g.x", 0.47)
    assert not results.contains("g.x", 0.49, slack=0.0)
    low, mid, high = results.band(["g.x", "g.x"])
    assert low.tolist() == [0.5, 0.5] and mid.tolist() == [0.75, 0.75]
    assert high.tolist() == [1.0, 1.0]


def test_a_lesson_with_no_file_is_named_with_the_closest_and_how_to_make_it(tmp_path):
    # bad names, scales and levels at the doors: tests/test_seeds_inputs.py
    with pytest.raises(ValueError, match=r"\blesson\b.*did you mean 'two_layers'"):
        load_results("two_layer")
    with pytest.raises(ValueError, match=r"\bfolder\b.*make experiments"):
        load_results("train_it", tmp_path)


def test_run_experiments_checks_its_groups():
    calls = []

    def group(seed):
        calls.append(seed)
        return {"double": 2.0 * seed, "one": 1.0}

    progress = []
    values, seconds = run_experiments({"g": group}, (3, 4), progress=lambda *a: progress.append(a))
    assert values == {"g.double": [6.0, 8.0], "g.one": [1.0, 1.0]} and calls == [3, 4]
    assert set(seconds) == {"g"} and progress[-1][:2] == (2, 2)
    with pytest.raises(ValueError, match="other metrics for seed 1"):
        run_experiments({"g": lambda seed: {f"m{seed}": 0.0}}, (0, 1))
    for seeds in ((), (-1,), (1, 1)):
        with pytest.raises(ValueError, match="seeds"):
            run_experiments({"g": group}, seeds)


# --- the shipped files ------------------------------------------------------------------------


def test_some_lessons_ship_results():
    assert len(WITH_EXPERIMENTS) >= 1
    shipped = sorted(path.stem for path in RESULTS_FOLDER.glob("*.json"))
    assert shipped == sorted(IDS), "every results file belongs to a lesson with experiments"


@pytest.mark.parametrize(("lesson", "experiments"), WITH_EXPERIMENTS, ids=IDS)
def test_shipped_results_cover_the_seeds_and_say_who_made_them(lesson, experiments):
    results = load_results(lesson.slug)
    assert results.seeds == SEEDS and len(SEEDS) >= 10
    groups = {name.split(".")[0] for name in results.names}
    assert groups == set(experiments), "one group of metrics per experiment"
    made = results.produced_by
    assert made["command"] == "make experiments" and re.fullmatch(r"[0-9a-f]{40}", made["commit"])
    assert set(made["seconds_per_group"]) == set(experiments)
    assert set(made["cpu_kernels"]) == {"numpy_simd", "openblas_core"}  # what bits follow
    for name in results.names:  # a length a method refuses is no metric: every value is finite
        assert np.isfinite(results[name]).all(), name


_RETRAIN = """
import json, sys
from importlib import import_module
from pe_helpers.seeds import cpu_kernels, run_experiments
slug, group, seeds = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
experiments = import_module("pe_helpers.lessons." + slug).SEED_EXPERIMENTS
values, _ = run_experiments({group: experiments[group]}, seeds)
print(json.dumps({"kernels": cpu_kernels(), "values": values}))
"""


def retrain(slug: str, group: str, seeds: list[int], recorded: dict) -> tuple[dict, dict]:
    """One group's values for ``seeds``, trained in a new process under the ``recorded`` CPU
    kernels where this CPU has them (else its own), and the kernels it ran with."""
    env = {**os.environ, **(kernels_env(recorded) or {})}
    done = subprocess.run(
        [sys.executable, "-c", _RETRAIN, slug, group, json.dumps(seeds)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    found = json.loads(done.stdout.splitlines()[-1])
    return found["kernels"], found["values"]


@pytest.mark.parametrize(("lesson", "experiments"), WITH_EXPERIMENTS, ids=IDS)
def test_a_cheap_group_reproduces_the_shipped_values_exactly(lesson, experiments):
    results = load_results(lesson.slug)
    seconds = results.produced_by["seconds_per_group"]
    group = min(experiments, key=lambda g: seconds[g])  # the cheapest group of this lesson
    seeds = [SEEDS[0], SEEDS[-1]]
    recorded = results.produced_by["cpu_kernels"]
    kernels, values = retrain(lesson.slug, group, seeds, recorded)
    shipped = {name for name in results.names if name.split(".")[0] == group}
    assert set(values) == shipped
    for name, row in values.items():
        if kernels == recorded:
            expected = results[name][[SEEDS.index(s) for s in seeds]]
            np.testing.assert_array_equal(row, expected, err_msg=name)
        else:  # a CPU without the file's kernels trains another draw: it lies in the spread
            width = results.high(name) - results.low(name)
            assert all(results.contains(name, v, slack=max(0.02, width / 4)) for v in row), name


def test_the_cpu_kernels_are_recorded_and_can_be_asked_for():
    here = cpu_kernels()
    assert set(here) == {"numpy_simd", "openblas_core"}
    simd = here["numpy_simd"]
    assert simd is None or all(isinstance(name, str) for name in simd)  # None: numpy < 1.26
    # No extension of numpy's beyond its baseline, and OpenBLAS's oldest x86 core.
    plain = {"numpy_simd": [], "openblas_core": "Nehalem"}
    env = kernels_env(plain)
    if env is not None:  # this CPU has the kernels asked for: a new process runs with them
        kernels, _ = retrain("train_it", "blind", [0], plain)
        assert kernels == plain, env


def _names_in_cell(source: str) -> list[str]:
    """Every string constant of a code cell, f-strings as regexes ('.*' per field)."""
    tree = ast.parse(
        "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
    )
    found = []
    # The literal pieces of an f-string are Constants too: only the whole f-string counts.
    pieces = {
        id(part)
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr)
        for part in node.values
    }
    for node in ast.walk(tree):
        if id(node) in pieces:
            continue
        if isinstance(node, ast.JoinedStr):
            found.append(
                "".join(
                    re.escape(part.value) if isinstance(part, ast.Constant) else ".*"
                    for part in node.values
                )
            )
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append(re.escape(node.value))
    return found


@pytest.mark.parametrize(("lesson", "experiments"), WITH_EXPERIMENTS, ids=IDS)
def test_every_metric_a_notebook_names_exists(lesson, experiments):
    results = load_results(lesson.slug)
    groups = tuple(f"{group}." for group in experiments)
    notebooks = [lesson.notebook] + ([lesson.solutions] if lesson.solutions else [])
    named = 0
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        code = [cell.source for cell in nb.cells if cell.cell_type == "code"]
        if path == lesson.notebook:
            assert any(f'load_results("{lesson.slug}")' in source for source in code), path
        for source in code:
            for pattern in _names_in_cell(source):
                plain = pattern.replace("\\", "")
                if not plain.startswith(groups) or " " in plain:
                    continue
                named += 1
                assert any(re.fullmatch(pattern, name) for name in results.names), (
                    f"{path.name} names {plain!r}, which {lesson.slug}.json does not hold"
                )
    assert named >= 3, f"{lesson.notebook.name} should read its numbers from the results"


#: Lesson 13's previous-token scores at L of the passkey models, which its section 4 reads to
#: test why PI does badly (issue 40, point 3): as trained, stretched, and each fine-tuned.
PREVIOUS_TOKEN_METRICS = [
    f"extension.{prefix}.previous_token"
    for extension in ("RoPE", "PI", "NTK-aware", "YaRN")
    for prefix in (extension, f"tuned_{extension}")
]


def _notebook_of(slug: str):
    """The lesson notebook of ``slug``."""
    return next(lesson.notebook for lesson, _ in WITH_EXPERIMENTS if lesson.slug == slug)


def test_lesson_13_ships_the_previous_token_score_of_every_passkey_model():
    results = load_results("two_layers")
    for name in PREVIOUS_TOKEN_METRICS:
        assert name in results.names, name
        assert ((results[name] >= 0) & (results[name] <= 1)).all(), name
    code = "".join(
        cell.source
        for cell in nbformat.read(_notebook_of("two_layers"), as_version=4).cells
        if cell.cell_type == "code"
    )
    assert '"extension.PI.previous_token"' in code  # section 4 reads them


def test_results_files_are_small_and_readable():
    for path in RESULTS_FOLDER.glob("*.json"):
        text = path.read_text()
        assert len(text) < 200_000, path
        data = json.loads(text)
        # one line per metric: its values, about 22 characters each, and its name
        longest = 25 * len(data["seeds"]) + 100
        assert data["format"] == 1 and max(map(len, text.splitlines())) < longest


def test_the_results_are_installed_with_the_package():
    """A hub installs pe_helpers from a wheel, not editable: package-data must carry the files."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    globs = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]["pe_helpers"]
    package = root / "pe_helpers"
    for path in (package / "data").rglob("*.json"):
        assert any(path.relative_to(package).match(glob) for glob in globs), path


# --- safe files: written whole, never replaced by accident, damage explained (issue 43) -------

ROOT = RESULTS_FOLDER.parents[2]
SHIPPED_TEXT = {path.name: path.read_bytes() for path in RESULTS_FOLDER.glob("*.json")}


def _experiments_script():
    """scripts/experiments.py as a module (it is no package)."""
    spec = importlib.util.spec_from_file_location("experiments", ROOT / "scripts/experiments.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def shipped_copy(tmp_path, monkeypatch):
    """A copy of the shipped results that pe_helpers.seeds takes for the shipped folder."""
    folder = tmp_path / "shipped"
    folder.mkdir()
    for name, text in SHIPPED_TEXT.items():
        (folder / name).write_bytes(text)
    monkeypatch.setattr(seeds_module, "RESULTS_FOLDER", folder)
    monkeypatch.delenv(RESULTS_ENV, raising=False)
    return folder


def _unchanged(folder) -> list[str]:
    """The shipped files in ``folder`` that are byte for byte the shipped ones."""
    return sorted(n for n, text in SHIPPED_TEXT.items() if (folder / n).read_bytes() == text)


def test_run_experiments_says_what_it_finished_when_interrupted():
    def slow(seed):
        if seed == 2:
            raise KeyboardInterrupt
        return {"x": 0.5}

    with pytest.raises(RunInterrupted) as stopped:
        run_experiments({"fast": lambda seed: {"x": 1.0}, "slow": slow}, (0, 1, 2, 3))
    assert stopped.value.finished == {"fast": [0, 1, 2, 3], "slow": [0, 1]}
    assert str(stopped.value) == (
        "interrupted while training group 'slow' seed 2; finished group 'fast' seeds 0–3, "
        "group 'slow' seeds 0, 1"
    )
    assert isinstance(stopped.value, KeyboardInterrupt)


def test_other_seeds_never_replace_the_shipped_results_by_accident(shipped_copy):
    values = {"g.a": [0.5, 0.5]}
    with pytest.raises(ValueError, match="seeds 0, 1 are not the shipped seeds 0–29.*--out DIR"):
        write_results("train_it", (0, 1), values, {"g": 1.0})
    with pytest.raises(ValueError, match="replace_shipped=True"):
        write_results("train_it", range(10, 20), {"g.a": [0.5] * 10}, {"g": 1.0})
    assert _unchanged(shipped_copy) == sorted(SHIPPED_TEXT)
    path = write_results("train_it", (0, 1), values, {"g": 1.0}, replace_shipped=True)
    assert path == shipped_copy / "train_it.json" and load_results("train_it").seeds == (0, 1)
    # the shipped seeds replace the shipped results: that is `make experiments`
    write_results("two_layers", SEEDS, {"g.a": [0.5] * len(SEEDS)}, {"g": 1.0})
    assert load_results("two_layers").names == ["g.a"]


def _fake_experiments(slugs=("train_it", "two_layers")):
    return {slug: {"g": lambda seed: {"a": seed / 100, "b": 0.5}} for slug in slugs}


def test_a_smaller_run_writes_elsewhere_and_says_where(shipped_copy, tmp_path, monkeypatch, capsys):
    script = _experiments_script()
    monkeypatch.setattr(script, "lessons_with_experiments", _fake_experiments)
    monkeypatch.setattr(script, "SCRATCH", tmp_path / "scratch")
    assert script.main(["train_it", "--seeds", "2"]) == 0
    out, err = capsys.readouterr()
    assert _unchanged(shipped_copy) == sorted(SHIPPED_TEXT)
    assert load_results("train_it", tmp_path / "scratch").seeds == (0, 1)
    assert f"-> {tmp_path / 'scratch' / 'train_it.json'}" in out
    assert "the shipped results stay as they are" in err and f"{RESULTS_ENV}=" in err
    with pytest.raises(SystemExit):  # into the shipped folder: refused before any training
        script.main(["train_it", "--seeds", "2", "--out", str(shipped_copy)])
    assert "would replace the shipped results" in capsys.readouterr().err
    assert _unchanged(shipped_copy) == sorted(SHIPPED_TEXT)
    assert script.main(["train_it", "--first-seed", "3", "--seeds", "2", "--replace-shipped"]) == 0
    assert load_results("train_it").seeds == (3, 4)


def test_lessons_read_another_folder_only_when_told(tmp_path, monkeypatch):
    write_results("train_it", (10, 11), {"g.a": [0.5, 0.6]}, {"g": 1.0}, folder=tmp_path)
    monkeypatch.setenv(RESULTS_ENV, str(tmp_path))
    assert load_results("train_it").seeds == (10, 11)
    (tmp_path / "train_it.json").write_text("")
    with pytest.raises(ResultsFileError, match=f"not the shipped file: {RESULTS_ENV} names"):
        load_results("train_it")
    with pytest.raises(FileNotFoundError, match=f"the folder {RESULTS_ENV} names"):
        load_results("two_layers")
    monkeypatch.setenv(RESULTS_ENV, "")
    assert load_results("train_it").seeds == SEEDS


def _damage(text: str, how: str) -> str:
    data = json.loads(text)
    name = sorted(data["values"])[0]
    if how == "empty":
        return ""
    if how == "truncated":
        return text[: len(text) // 2]
    if how == "no values":
        del data["values"]
    elif how == "a NaN for one seed":
        data["values"][name][3] = float("nan")
    elif how == "ragged values":
        data["values"][name] = data["values"][name][:-1]
    elif how == "a seed twice":
        data["seeds"][1] = data["seeds"][0]
    elif how == "a seed that is no integer":
        data["seeds"][2] = "two"
    elif how == "another lesson's file":
        data["lesson"] = "train_it"
    elif how == "another format":
        data["format"] = 2
    elif how == "a value that is no number":
        data["values"][name][0] = "0.5"
    elif how == "a list":
        data = [data]
    return json.dumps(data)


DAMAGES = {
    "empty": r"it is empty \(0 bytes\)",
    "truncated": r"it is not valid JSON \(.* at line \d+, column \d+\): it may have been cut short",
    "no values": "not the keys of a results file",
    "a NaN for one seed": r"values\['[^']+'\] must hold a finite value for every seed; seed 3 has "
    "nan",
    "ragged values": r"values\['[^']+'\] must hold one real number per seed \(30\)",
    "a seed twice": "seeds must be distinct",
    "a seed that is no integer": r"seeds\[2\] must be an integer, got 'two'",
    "another lesson's file": "it holds the results of lesson 'train_it', not 'two_layers'",
    "another format": "it has format 2; this code reads format 1",
    "a value that is no number": r"values\['[^']+'\]",
    "a list": "it holds a JSON list, not the keys of a results file",
}


@pytest.mark.parametrize("how", list(DAMAGES))
def test_a_damaged_or_foreign_file_says_what_is_wrong_and_how_to_mend_it(how, tmp_path):
    path = tmp_path / "two_layers.json"
    path.write_text(_damage(SHIPPED_TEXT["two_layers.json"].decode(), how))
    with pytest.raises(ResultsFileError) as refused:
        load_results("two_layers", tmp_path)
    message = str(refused.value)
    assert isinstance(refused.value, ValueError) and refused.value.path == path
    assert message.startswith(f"{path} cannot be read as the results of lesson 'two_layers': ")
    assert re.search(DAMAGES[how], message), message
    assert "`git checkout pe_helpers/data/seeds/two_layers.json`" in message
    assert "`make experiments LESSONS=two_layers`" in message


_CUT = """
import json, os, signal, sys, time
from pathlib import Path
import pe_helpers.seeds as seeds

signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal, even if inherited

folder, cut = Path(sys.argv[1]), json.loads(sys.argv[2])
spec = __import__("importlib.util").util.spec_from_file_location("x", sys.argv[3])
script = __import__("importlib.util").util.module_from_spec(spec)
spec.loader.exec_module(script)
seeds.RESULTS_FOLDER = folder
seeds.SEEDS = script.SEEDS = tuple(range(30))  # a 30-seed `make experiments`


def wait_for_the_signal():
    print("cut me", flush=True)
    for _ in range(1200):  # bounded: the test's signal arrives first
        time.sleep(0.05)


def experiment(slug, group):
    def run(seed):
        if [slug, group, seed] == cut:
            wait_for_the_signal()
        return {"a": seed / 100, "b": 0.5}

    return run


script.lessons_with_experiments = lambda: {
    slug: {group: experiment(slug, group) for group in ("g", "h")}
    for slug in ("train_it", "two_layers", "long_context")
}
if cut == "writing":
    real_fsync = os.fsync
    os.fsync = lambda fd: (wait_for_the_signal(), real_fsync(fd))
sys.exit(script.main([]))
"""

CUTS = {
    "first lesson, first seed": ["train_it", "g", 0],
    "first lesson, last group": ["train_it", "h", 29],
    "second lesson": ["two_layers", "h", 7],
    "writing": "writing",
}


@pytest.mark.parametrize("sent", ["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("cut", list(CUTS))
def test_a_30_seed_run_cut_anywhere_leaves_every_file_whole(cut, sent, tmp_path):
    folder = tmp_path / "shipped"
    folder.mkdir()
    for name, text in SHIPPED_TEXT.items():
        (folder / name).write_bytes(text)
    run = subprocess.Popen(
        [sys.executable, "-c", _CUT, str(folder), json.dumps(CUTS[cut]),
         str(ROOT / "scripts/experiments.py")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    lines = []
    for line in run.stdout:
        lines.append(line)
        if line.startswith("cut me"):
            run.send_signal(getattr(signal, sent))
            break
    out, err = run.communicate(timeout=120)
    lines.append(out)
    assert run.returncode == 130, err
    err = err.replace("\r", "\n")
    written = [line.split(":")[0] for line in lines if "metrics over 30 seeds" in line]
    assert "Interrupted: " in err and "is as it was before this run" in err
    if cut == "second lesson":
        assert written == ["train_it"]
        assert "finished group 'g' seeds 0–29, group 'h' seeds 0–6" in err
        assert "Written: train_it" in err and "not started: long_context" in err
    if cut == "writing":  # the first lesson had finished every seed
        assert written == [] and "writing train_it (it had finished every seed)" in err
    for name in SHIPPED_TEXT:  # every file whole: the shipped one, or a finished lesson's
        results = load_results(name[:-5], folder)
        if name[:-5] in written:
            assert results.seeds == tuple(range(30))
        else:
            assert (folder / name).read_bytes() == SHIPPED_TEXT[name]
    assert sorted(os.listdir(folder)) == sorted(SHIPPED_TEXT)  # no temporary file is left


def test_a_damaged_file_stops_its_lesson_at_the_first_cell_with_one_message(tmp_path):
    """Lesson 13 over a file with a NaN for one seed: one red cell, the rest not run (as Run All
    in JupyterLab stops), where the old code loaded it and failed later, cell after cell."""
    damaged = SHIPPED_TEXT["two_layers.json"].decode().replace("[0.4140625,", "[NaN,", 1)
    (tmp_path / "two_layers.json").write_text(damaged)
    notebook = next(
        lesson.notebook for lesson, _ in WITH_EXPERIMENTS if lesson.slug == "two_layers"
    )
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
         "--nbval-current-env", "--nbval-cell-timeout=120", str(notebook)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, RESULTS_ENV: str(tmp_path), "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    out = re.sub(r"\x1b\[[0-9;]*m", "", run.stdout)
    assert re.search(r"\b1 failed, \d+ skipped\b", out), out[-2000:]
    assert "NameError" not in out
    assert re.search(
        r"ResultsFileError: \S+two_layers\.json cannot be read as the results of lesson "
        r"'two_layers': values\['extension\.PI\.8L'\] must hold a finite value for every seed; "
        r"seed 0 has nan",
        out,
    ), out[-2000:]
    assert "git checkout pe_helpers/data/seeds/two_layers.json" in out


def test_median_interval_is_seeded_and_holds_the_median():
    rng = np.random.default_rng(3)
    values = rng.normal(0.7, 0.1, size=30)
    results = SeedResults("demo", range(30), {"g.x": values, "g.y": values - 0.2})
    median, low, high = results.median_interval("g.x")
    assert median == np.median(values) and low < median < high
    assert results.median_interval("g.x") == (median, low, high)  # the same draws every time
    assert results.median_interval("g.x", seed=1) != (median, low, high)
    narrow = results.median_interval("g.x", level=0.5)
    assert low <= narrow[1] <= narrow[2] <= high  # a lower level, a narrower interval
    # a wider spread of the seeds widens the interval
    wide = SeedResults("demo", range(30), {"g.x": 0.7 + 3 * (values - 0.7)})
    _, wide_low, wide_high = wide.median_interval("g.x")
    assert wide_high - wide_low > 2 * (high - low)


def test_difference_interval_pairs_the_seeds():
    rng = np.random.default_rng(4)
    shared = rng.normal(0.5, 0.2, size=30)  # each seed's own luck, in both metrics
    results = SeedResults("demo", range(30), {"g.a": shared + 0.05, "g.b": shared})
    difference, low, high = results.difference_interval("g.a", "g.b")
    assert difference == pytest.approx(0.05) and low == pytest.approx(0.05)
    assert high == pytest.approx(0.05)  # paired: the shared luck cancels
    assert results.difference_interval("g.b", "g.a")[0] == pytest.approx(-0.05)


def test_interval_texts_and_counts():
    results = SeedResults(
        "demo", range(5), {"g.x": [0.1, 0.2, 0.3, 0.4, 0.9], "g.y": [0.0, 0.1, 0.2, 0.3, 0.8]}
    )
    assert results.median_text("g.x") == "median 30% (95% interval 10–90%) over 5 seeds"
    assert results.median_text("g.x", scale="plain").startswith("median 0.30 (95% interval 0.10–")
    assert results.difference_text("g.x", "g.y") == "+10 points (95% interval +10 to +10)"
    assert results.difference_text("g.x", "g.y", scale="plain").startswith("+0.10 (95%")
    assert results.count_text("g.x", lambda v: v > 0.25) == "on 3 of 5 seeds"
