"""Results over seeds: the core (pe_helpers.seeds), and the shipped files of every lesson.

The shipped files cannot rot: a cheap group of each lesson is re-trained here and must give the
shipped values exactly (under the CPU kernels the file records, where this CPU has them), and
every metric a notebook names must exist in its lesson's file.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import re
import subprocess
import sys

import nbformat
import numpy as np
import pytest

from pe_helpers.lessons import lessons
from pe_helpers.seeds import (
    RESULTS_FOLDER,
    SEEDS,
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
    assert results.beside("g.x", 0.6).startswith("this run 60%; 50–100%")
    assert results.count("g.x", lambda a: a >= 0.7) == 3
    assert results.contains("g.x", 0.49) and not results.contains("g.x", 0.47)
    assert not results.contains("g.x", 0.49, slack=0.0)
    low, mid, high = results.band(["g.x", "g.x"])
    assert low.tolist() == [0.5, 0.5] and mid.tolist() == [0.75, 0.75]
    assert high.tolist() == [1.0, 1.0]


def test_bad_names_and_arguments_are_named():
    results = SeedResults("demo", (0, 1), {"g.x": np.array([0.5, 1.0])})
    with pytest.raises(KeyError, match="no metric 'g.y'.*g.x"):
        results["g.y"]
    with pytest.raises(KeyError, match="groups: g"):
        results["other.y"]
    with pytest.raises(TypeError, match="str"):
        results[3]
    with pytest.raises(ValueError, match="one bool per seed"):
        results.count("g.x", lambda a: a.sum())
    with pytest.raises(ValueError, match="scale"):
        results.describe("g.x", scale="percentage")
    with pytest.raises(ValueError, match="slack"):
        results.contains("g.x", 0.5, slack=-1)
    with pytest.raises(ValueError, match="3 values for 2 seeds"):
        SeedResults("demo", (0, 1), {"g.x": np.zeros(3)})
    with pytest.raises(ValueError, match="lesson must be"):
        load_results("../etc")
    with pytest.raises(FileNotFoundError, match="make experiments"):
        load_results("no_such_lesson")


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
    with pytest.raises(ValueError, match="at least one seed"):
        run_experiments({"g": group}, ())
    with pytest.raises(ValueError, match="seed"):
        run_experiments({"g": group}, (-1,))


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
    assert kernels_env({"numpy_simd": ["NO_SUCH_EXTENSION"], "openblas_core": "Haswell"}) is None


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


def test_results_files_are_small_and_readable():
    for path in RESULTS_FOLDER.glob("*.json"):
        text = path.read_text()
        assert len(text) < 200_000, path
        data = json.loads(text)
        assert data["format"] == 1 and max(map(len, text.splitlines())) < 400


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
