"""pe_helpers.seeds under bad input: a clear error at the door naming the argument (issue 43).

The doors are :func:`~pe_helpers.seeds.load_results` (a lesson's slug, a folder) and the
methods a notebook calls on what it returns with a metric's name, a scale, a level. A results
file is checked once, where it is read (its damages: ``tests/test_seeds.py``); what the package
builds itself (:class:`~pe_helpers.seeds.SeedResults` from checked values) is not checked again.
"""

from __future__ import annotations

import numpy as np
import pytest

import pe_helpers.seeds as seeds
from pe_helpers.seeds import ResultsFileError, SeedResults

GOOD_VALUES = {"g.PI.L": [0.2, 0.4, 0.6], "g.PI.2L": [0.1, 0.2, 0.3]}


def _spread() -> SeedResults:
    return SeedResults("demo", (0, 1, 2), GOOD_VALUES, {})


@pytest.mark.parametrize(
    "lesson, error",
    [(None, TypeError), (3, TypeError), ({"a": 1}, TypeError), (b"ab", TypeError)]
    + [("../etc", ValueError), ("", ValueError), ("two layers", ValueError)]
    + [("no_such_lesson", ValueError)],
)
def test_load_results_names_a_bad_lesson(lesson, error):
    with pytest.raises(error, match=r"\blesson\b"):
        seeds.load_results(lesson)


@pytest.mark.parametrize("folder", [b"abc", 3, ""])
def test_load_results_names_a_bad_folder(folder):
    with pytest.raises(TypeError, match=r"\bfolder\b"):
        seeds.load_results("train_it", folder)


METHODS_OF_A_NAME = {
    "low": lambda s, name: s.low(name),
    "describe": lambda s, name: s.describe(name),
    "beside": lambda s, name: s.beside(name, 0.5),
    "contains": lambda s, name: s.contains(name, 0.5),
    "median_interval": lambda s, name: s.median_interval(name, n_boot=200),
    "median_text": lambda s, name: s.median_text(name),
    "count_text": lambda s, name: s.count_text(name, lambda v: v > 0.3),
    "difference_interval": lambda s, name: s.difference_interval("g.PI.L", name, n_boot=200),
    "band": lambda s, name: s.band(["g.PI.L", name]),
}


@pytest.mark.parametrize("method", list(METHODS_OF_A_NAME))
@pytest.mark.parametrize("name", ["g.PI.3L", "g", "", "other.x"])
def test_an_unknown_metric_is_a_key_error_naming_those_there_are(method, name):
    with pytest.raises(KeyError, match="closest|groups"):
        METHODS_OF_A_NAME[method](_spread(), name)


@pytest.mark.parametrize("method", list(METHODS_OF_A_NAME))
@pytest.mark.parametrize("name", [None, 3, b"g.PI.L", ["g.PI.L"]])
def test_a_name_that_is_no_str_is_a_type_error(method, name):
    with pytest.raises(TypeError, match="metric name"):
        METHODS_OF_A_NAME[method](_spread(), name)


def test_an_unknown_metric_names_the_closest_ones():
    with pytest.raises(KeyError, match=r"got 'g\.PI\.3L'; the closest: g\.PI\.L, g\.PI\.2L"):
        _spread().low("g.PI.3L")
    with pytest.raises(KeyError, match=r"names\[1\] must be a metric .*got 'g\.PL\.L'"):
        _spread().band(["g.PI.L", "g.PL.L"])


@pytest.mark.parametrize(
    "call, error, name",
    [
        (lambda s: s.describe("g.PI.L", scale="percentage"), ValueError, "scale"),
        (lambda s: s.median_text("g.PI.L", scale=["percent"]), ValueError, "scale"),
        (lambda s: s.beside("g.PI.L", "half"), TypeError, "this_run"),
        (lambda s: s.contains("g.PI.L", float("nan")), ValueError, "this_run"),
        (lambda s: s.median_interval("g.PI.L", level=1.0), ValueError, "level"),
        (lambda s: s.median_interval("g.PI.L", n_boot=10**9), ValueError, "n_boot"),
        (lambda s: s.difference_interval("g.PI.L", "g.PI.2L", seed=-1), ValueError, "seed"),
    ],
)
def test_a_bad_scale_level_or_value_is_named(call, error, name):
    with pytest.raises(error, match=rf"\b{name}\b"):
        call(_spread())


def test_an_experiment_that_returns_no_finite_number_is_named():
    with pytest.raises(ValueError, match=r"g\.x of seed 0"):
        seeds.run_experiments({"g": lambda seed: {"x": float("nan")}}, (0, 1))


def test_a_value_that_would_not_read_back_is_never_written(tmp_path):
    seeds.write_results("demo", (0, 1, 2), GOOD_VALUES, {"g": 1.0}, tmp_path)
    before = (tmp_path / "demo.json").read_bytes()
    bad = {"g.x": [0.1, float("nan"), 0.3]}
    with pytest.raises(ResultsFileError, match=r"values\['g\.x'\].*seed 1 has nan"):
        seeds.write_results("demo", (0, 1, 2), bad, {"g": 1.0}, tmp_path)
    assert (tmp_path / "demo.json").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.json"]  # no temporary file


def test_a_built_object_keeps_its_values():
    values = {"g.x": np.array([0.5, 1.0])}
    spread = SeedResults("demo", [0, 1], values)
    values["g.x"][0] = 0.0  # the caller's array stays theirs
    assert spread.seeds == (0, 1) and spread["g.x"].tolist() == [0.5, 1.0]
    with pytest.raises(ValueError, match="read-only"):
        spread.values["g.x"][0] = 0.0
