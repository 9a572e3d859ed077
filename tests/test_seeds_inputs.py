"""pe_helpers.seeds under bad input: a clear error at the door, or a finite answer (issue 43).

The results API is fuzzed as tests/test_fuzz_inputs.py fuzzes the newest helpers, with its
bad values (:data:`BAD`: None, NaN, text, ragged lists, empty arrays, bools, objects ...) and
each case's own (a metric name that is not there, a NaN for one seed, a function returning the
wrong shape). Every public callable of :mod:`pe_helpers.seeds` (and every public method of
:class:`~pe_helpers.seeds.SeedResults`) has a case; each argument is replaced, in turn, by each
bad value. Each call must

* raise ``TypeError``, ``ValueError`` or ``KeyError`` (a metric name that is not there) whose
  message names the argument, and for a metric the closest names; ``load_results`` may say
  ``FileNotFoundError`` for a folder or slug with no file, naming the file it looked for;
* or return an answer in which every number is finite, and never accept what is no valid value
  of that argument (text, objects, ragged lists, None or a bool where the signature does not
  allow them): an object that is built must work.

The calls are cheap (nothing here trains), so they run in this process; files are written
into a temporary folder that stands in for the shipped one.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

import pe_helpers.seeds as seeds
from pe_helpers.seeds import ResultsFileError, SeedResults


def _fuzz_module():
    """tests/test_fuzz_inputs.py, for its bad values and its judges of an answer."""
    if "test_fuzz_inputs" in sys.modules:  # pytest collected it already
        return sys.modules["test_fuzz_inputs"]
    path = Path(__file__).with_name("test_fuzz_inputs.py")
    spec = importlib.util.spec_from_file_location("_fuzz_inputs_for_seeds", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


FUZZ = _fuzz_module()
BAD, NEVER_VALID = FUZZ.BAD, FUZZ.NEVER_VALID
GOOD_VALUES = {"g.PI.L": [0.2, 0.4, 0.6], "g.PI.2L": [0.1, 0.2, 0.3]}


def _spread() -> SeedResults:
    return SeedResults("demo", (0, 1, 2), GOOD_VALUES, {})


@dataclass
class Case:
    """One right call (``call()`` gives the callable); ``extra``: an argument's own bad values."""

    call: Callable[[], Callable]
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)
    not_found_ok: bool = False  # load_results: a path with no file is a FileNotFoundError


def _holds(answer):
    return lambda values: answer(values)


NAME_EXTRA = {
    "unknown metric": lambda: "g.PI.3L",
    "a group's name": lambda: "g",
    "empty name": lambda: "",
    "bytes": lambda: b"g.PI.L",
}


def _cases(folder: Path) -> dict[str, Case]:
    """Every case by dotted name; ``folder`` holds a results file 'demo.json'."""
    spread = _spread()
    method = lambda name: lambda: getattr(spread, name)  # noqa: E731
    name_only = {"name": NAME_EXTRA}
    experiment = lambda seed: {"x": seed / 10}  # noqa: E731
    return {
        "SeedResults": Case(
            lambda: SeedResults,
            ("demo", (0, 1, 2), GOOD_VALUES, {"commit": "abc"}),
            extra={
                "lesson": {
                    "a dict": lambda: {"a": 1},
                    "bytes": lambda: b"ab",
                    "empty": lambda: "",
                    "a path": lambda: "../etc",
                },
                "seeds": {
                    "a seed twice": lambda: (0, 0, 1),
                    "text of digits": lambda: "012",
                    "a billion seeds": lambda: range(10**9),
                    "a dict": lambda: {0: 1, 1: 1, 2: 1},
                    "floats": lambda: (0.0, 1.0, 2.0),
                },
                "values": {
                    "a NaN for one seed": lambda: {"g.x": [0.1, float("nan"), 0.3]},
                    "one value short": lambda: {"g.x": [0.1, 0.2]},
                    "a column": lambda: {"g.x": [[0.1], [0.2], [0.3]]},
                    "a key that is no str": lambda: {3: [0.1, 0.2, 0.3]},
                    "bools": lambda: {"g.x": [True, False, True]},
                    "no metric": lambda: {},
                    "text values": lambda: {"g.x": ["a", "b", "c"]},
                    "None values": lambda: {"g.x": None},
                    "ragged values": lambda: {"g.x": [[0.1, 0.2], [0.3]]},
                },
                "produced_by": {"a list": lambda: [1]},
            },
        ),
        "SeedResults.low": Case(method("low"), ("g.PI.L",), extra=name_only),
        "SeedResults.high": Case(method("high"), ("g.PI.L",), extra=name_only),
        "SeedResults.median": Case(method("median"), ("g.PI.L",), extra=name_only),
        "SeedResults.band": Case(
            method("band"),
            (["g.PI.L", "g.PI.2L"],),
            extra={
                "names": {
                    "one name as a str": lambda: "g.PI.L",
                    "no names": lambda: [],
                    "an unknown name": lambda: ["g.PI.L", "g.PI.3L"],
                    "a number among names": lambda: ["g.PI.L", 3],
                    "a dict": lambda: {"g.PI.L": 1},
                }
            },
        ),
        "SeedResults.count": Case(
            method("count"),
            ("g.PI.L", lambda values: values > 0.3),
            extra={
                "name": NAME_EXTRA,
                "holds": {
                    "returns None": lambda: _holds(lambda v: None),
                    "returns one bool": lambda: _holds(lambda v: True),
                    "returns floats": lambda: _holds(lambda v: v * 2),
                    "returns too many": lambda: _holds(lambda v: np.ones(7, bool)),
                    "returns ragged": lambda: _holds(lambda v: [[True], [True, False]]),
                },
            },
        ),
        "SeedResults.describe": Case(
            method("describe"),
            ("g.PI.L",),
            {"scale": "plain"},
            extra={
                "name": NAME_EXTRA,
                "scale": {
                    "percentage": lambda: "percentage",
                    "a list": lambda: ["percent"],
                    "an array": lambda: np.array(["percent", "plain"]),
                },
            },
        ),
        "SeedResults.beside": Case(
            method("beside"),
            ("g.PI.L", 0.5),
            {"scale": "percent"},
            extra={"name": NAME_EXTRA, "scale": {"percentage": lambda: "percentage"}},
        ),
        "SeedResults.contains": Case(
            method("contains"), ("g.PI.L", 0.5), {"slack": 0.02}, extra=name_only
        ),
        "SeedResults.median_interval": Case(
            method("median_interval"),
            ("g.PI.L",),
            {"level": 0.95, "n_boot": 200, "seed": 0},
            extra=name_only,
        ),
        "SeedResults.difference_interval": Case(
            method("difference_interval"),
            ("g.PI.L", "g.PI.2L"),
            {"level": 0.9, "n_boot": 200, "seed": 1},
            extra={"first": NAME_EXTRA, "second": NAME_EXTRA},
        ),
        "SeedResults.median_text": Case(
            method("median_text"),
            ("g.PI.L",),
            {"scale": "plain", "level": 0.9},
            extra={"name": NAME_EXTRA, "scale": {"percentage": lambda: "percentage"}},
        ),
        "SeedResults.difference_text": Case(
            method("difference_text"),
            ("g.PI.L", "g.PI.2L"),
            {"scale": "percent", "level": 0.95},
            extra={"first": NAME_EXTRA, "scale": {"percentage": lambda: "percentage"}},
        ),
        "SeedResults.count_text": Case(
            method("count_text"), ("g.PI.L", lambda values: values > 0.3), extra=name_only
        ),
        "load_results": Case(
            lambda: seeds.load_results,
            ("demo", folder),
            extra={"lesson": {"a dict": lambda: {"a": 1}, "bytes": lambda: b"demo"}},
            not_found_ok=True,
        ),
        "run_experiments": Case(
            lambda: seeds.run_experiments,
            ({"g": experiment}, (0, 1)),
            {"progress": lambda done, total, label: None},
            extra={
                "experiments": {
                    "not a function": lambda: {"g": 3},
                    "a dotted group": lambda: {"g.x": experiment},
                    "no group": lambda: {},
                    "returns None": lambda: {"g": lambda seed: None},
                    "returns NaN": lambda: {"g": lambda seed: {"x": float("nan")}},
                    "returns text": lambda: {"g": lambda seed: {"x": "abc"}},
                    "returns a bool": lambda: {"g": lambda seed: {"x": True}},
                    "other metrics per seed": lambda: {"g": lambda seed: {f"m{seed}": 1.0}},
                },
                "progress": {"a number": lambda: 3},
            },
        ),
        "results_destination": Case(
            lambda: seeds.results_destination,
            ((0, 1, 2), folder),
            {"replace_shipped": False},
            extra={"folder": {"bytes": lambda: b"abc"}, "replace_shipped": {"one": lambda: 1}},
        ),
        "write_results": Case(
            lambda: seeds.write_results,
            ("demo", (0, 1, 2), GOOD_VALUES, {"g": 1.0}, folder),
            {"replace_shipped": False},
            extra={
                "values": {"a NaN for one seed": lambda: {"g.x": [0.1, float("nan"), 0.3]}},
                "seconds": {
                    "NaN seconds": lambda: {"g": float("nan")},
                    "text seconds": lambda: {"g": "1 s"},
                    "a key that is no str": lambda: {1: 1.0},
                },
                "replace_shipped": {"one": lambda: 1},
            },
        ),
        "cpu_kernels": Case(lambda: seeds.cpu_kernels),
        "kernels_env": Case(
            lambda: seeds.kernels_env,
            ({"numpy_simd": [], "openblas_core": "Haswell"},),
            extra={
                "recorded": {
                    "simd as text": lambda: {"numpy_simd": "X86_V3", "openblas_core": "Haswell"},
                    "simd as a number": lambda: {"numpy_simd": 3, "openblas_core": "Haswell"},
                    "core as a number": lambda: {"numpy_simd": [], "openblas_core": 3},
                }
            },
        ),
    }


def public_callables() -> list[str]:
    """Every public callable of pe_helpers.seeds, and SeedResults' public methods."""
    names = []
    for name in seeds.__all__:
        obj = getattr(seeds, name)
        if callable(obj):
            names.append(name)
            if inspect.isclass(obj) and not issubclass(obj, BaseException):
                names += [
                    f"{name}.{attr}"
                    for attr, value in vars(obj).items()
                    if not attr.startswith("_") and inspect.isfunction(value)
                ]
    return sorted(names)


def _judge(case: Case, argument: str, label: str, parameter, call: Callable) -> str | None:
    """None if a bad call behaved (a clear refusal naming ``argument``, or a finite answer)."""
    try:
        result = call()
    except (TypeError, ValueError, KeyError, FileNotFoundError) as exc:
        text = f"{type(exc).__name__}: {exc}"[:300]
        allowed = (TypeError, ValueError, KeyError, ResultsFileError)
        if case.not_found_ok and type(exc) is FileNotFoundError:
            return None if "no results for lesson" in str(exc) else f"raised {text}"
        if type(exc) not in allowed:
            return f"raised {text}"
        if not FUZZ._names(str(exc), argument):
            return f"the message does not name {argument!r}: {text}"
        if type(exc) is KeyError and "closest" not in str(exc) and "groups" not in str(exc):
            return f"a KeyError that names no metric to use: {text}"
        return None
    except Exception as exc:  # noqa: BLE001 - any other exception is a finding
        return f"raised {type(exc).__name__}: {exc}"[:300]
    problem = FUZZ._is_finite(result, False)
    if problem:
        return f"returned {problem}"
    if label in NEVER_VALID and not FUZZ._annotation_allows(parameter, label):
        return "accepted it (the call returned instead of refusing)"
    if label in ("a dict", "bytes", "a list") or label.startswith(
        ("returns", "a NaN", "one value")
    ):
        return "accepted it (the call returned instead of refusing)"
    return None


def _calls(case: Case) -> list[tuple[str, str, object, Callable]]:
    """Every bad call of one case: (argument, label, parameter, call)."""
    target = case.call()
    signature = inspect.signature(target)
    calls = []
    for index, (argument, parameter) in enumerate(signature.parameters.items()):
        positional = index < len(case.args)
        if not positional and argument not in case.kwargs:
            continue  # an argument the right call leaves at its default
        values = {**BAD, **case.extra.get(argument, {})}
        for label, make in values.items():
            args, kwargs = list(case.args), dict(case.kwargs)
            if positional:
                args[index] = make()
            else:
                kwargs[argument] = make()
            calls.append(
                (argument, label, parameter, lambda a=tuple(args), k=kwargs: target(*a, **k))
            )
    return calls


@pytest.fixture
def folders(tmp_path, monkeypatch):
    """A folder with a good 'demo.json', and a stand-in for the shipped folder."""
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    monkeypatch.setattr(seeds, "RESULTS_FOLDER", shipped)
    monkeypatch.delenv(seeds.RESULTS_ENV, raising=False)
    monkeypatch.chdir(tmp_path)  # a path given as text ('abc') lands here
    folder = tmp_path / "results"
    seeds.write_results("demo", (0, 1, 2), GOOD_VALUES, {"g": 1.0}, folder)
    return folder


def test_every_public_callable_has_a_case(tmp_path):
    cases = _cases(tmp_path)
    assert sorted(cases) == [
        n for n in public_callables() if n not in ("ResultsFileError", "RunInterrupted")
    ]


def test_bad_input_gets_a_clear_error_naming_the_argument_or_a_finite_answer(folders):
    findings, total = [], 0
    for name, case in _cases(folders).items():
        right = case.call()(*case.args, **case.kwargs)
        assert FUZZ._is_finite(right, False) is None, name
        for argument, label, parameter, call in _calls(case):
            total += 1
            finding = _judge(case, argument, label, parameter, call)
            if finding:
                findings.append(f"{name} {argument}={label}: {finding}")
    shown = "\n".join(findings[:40])
    more = f"\n... and {len(findings) - 40} more" if len(findings) > 40 else ""
    assert not findings, f"{len(findings)} of {total} calls misbehaved:\n{shown}{more}"
    assert total > 500
    assert sorted(os.listdir(seeds.RESULTS_FOLDER)) == []  # nothing reached the shipped folder


@pytest.mark.parametrize(
    ("lesson", "message"),
    [
        (None, r"lesson must be a lesson's slug \(a str such as 'train_it'\), got None"),
        ({"a": 1}, r"lesson must be a lesson's slug .*got \{'a': 1\}"),
        (b"ab", r"lesson must be a lesson's slug .*got b'ab'"),
    ],
)
def test_the_issues_objects_that_failed_later_are_refused_when_built(lesson, message):
    with pytest.raises(TypeError, match=message):
        SeedResults(lesson, (0, 1), {"g.x": [0.5, 1.0]})


def test_an_unknown_metric_names_the_closest_ones():
    spread = _spread()
    with pytest.raises(KeyError, match=r"got 'g\.PI\.3L'; the closest: g\.PI\.L, g\.PI\.2L"):
        spread.low("g.PI.3L")
    with pytest.raises(KeyError, match=r"names\[1\] must be a metric .*got 'g\.PL\.L'"):
        spread.band(["g.PI.L", "g.PL.L"])
    with pytest.raises(TypeError, match="names must be a list of metric names, got 'g.PI.L'"):
        spread.band("g.PI.L")


def test_a_built_object_keeps_its_values_and_compares_by_them():
    values = {"g.x": np.array([0.5, 1.0])}
    spread = SeedResults("demo", [0, 1], values)
    values["g.x"][0] = 0.0  # the caller's array stays theirs
    assert spread.seeds == (0, 1) and spread["g.x"].tolist() == [0.5, 1.0]
    with pytest.raises(ValueError, match="read-only"):
        spread.values["g.x"][0] = 0.0
    assert spread == SeedResults("demo", (0, 1), {"g.x": [0.5, 1.0]}, {"commit": "other"})
    assert spread != SeedResults("demo", (0, 1), {"g.x": [0.5, 0.9]})
