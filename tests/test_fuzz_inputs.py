"""Every door of the course under bad input: a clear error naming the argument, fast, or a
usable answer. Nothing here is typed by hand per lesson.

A *door* is where a learner's value enters the package (CONTRIBUTING.md, "Validation"):

* every public callable a notebook or its solutions imports from ``pe_helpers``, found by
  reading the import lines of the notebooks :func:`pe_helpers.lessons.lessons` lists
  (:func:`notebook_imports`), restricted to the names in the ``__all__`` of the course's
  modules: each concept module :mod:`pkgutil` finds in the package, and each lesson's home;
* every checker (``check_*`` in a lesson home's ``__all__``), every live figure's constructor
  (:func:`pe_helpers.lessons.live_figures`) and every control factory of
  :mod:`pe_helpers.live` (its public functions that return a ``Control``); a slider value goes
  through its control's ``check``, tested for every control of every live figure.

A new lesson (its notebook, its home) is covered without an edit here. The right call of each
door is read from its own docstring: the first call its examples make that returns (for a
checker: that grades a right answer ``correct``); a door whose parameters all have defaults
may also be called bare. Then each parameter, in turn, is replaced by each value of
:data:`BAD` (wrong kinds, bools, NaN and ±inf, negatives, sizes 10**6 to 10**18 and 10**400,
1e±300, text, numeric strings, ragged lists, empty arrays, objects), a function argument also
by each of :data:`BAD_FUNCTIONS`, and a dict argument also key by key. Each call must

* raise ``TypeError`` or ``ValueError`` (those exact types) naming the parameter (or the key),
  having made at most :data:`REFUSAL_CALLS` function calls (the check comes before the work);
* or, accepted, return an answer as finite as the right call's, and never accept what no
  parameter ever takes (text, complex numbers, objects, ragged lists, None or a bool where the
  signature does not say so; a ``str`` parameter is a label, shown as whatever it is given);
  a checker must return ``Feedback`` (never raise), never ``correct``, with no
  ``object at 0x...`` in it, and grade its one answer given by a function returning it as it
  grades the answer itself;
* never hang nor run out of memory: the calls run in a worker process (this file run as a
  script) under a CPU-time limit (:data:`CPU_SECONDS` of its own CPU, which a busy machine does
  not shorten) and an address-space limit (:data:`ADDRESS_SLACK`), restarted after a crash.
  No wall clock is read except to notice a dead worker.
"""

from __future__ import annotations

import ast
import copy
import doctest
import importlib
import inspect
import io
import json
import math
import numbers
import os
import pkgutil
import re
import resource
import select
import signal
import subprocess
import sys
import warnings
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path

import numpy as np

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

#: The most function calls (Python and C, counted by :func:`sys.setprofile`) a refusal may
#: make: a check comes before the work (refusals make 16 to about 1,800; training makes
#: hundreds of thousands). A count, not a time, so a busy machine cannot fail it.
REFUSAL_CALLS = 5000
#: CPU seconds of the worker's own time one call may use: a bad size that is accepted must
#: still finish (the doors cap sizes and steps; the largest right call takes about a second).
CPU_SECONDS = 20.0
#: Headroom of the worker's address space over what it holds before a call: past it an
#: allocation fails here (a MemoryError, a finding) instead of taking the machine down.
ADDRESS_SLACK = 3 * 2**29
#: Wall seconds after which a worker that stopped answering counts as dead (a crash, a hang
#: in C that the CPU timer cannot interrupt): far past any call's CPU limit.
WORKER_WAIT = 300.0
ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------ the doors


def course_modules() -> list[str]:
    """The concept modules (found by pkgutil) and every lesson's home (from the lessons)."""
    import pe_helpers
    from pe_helpers.lessons import lessons

    concepts = [
        f"pe_helpers.{info.name}"
        for info in pkgutil.iter_modules(pe_helpers.__path__)
        if not info.name.startswith("_") and not info.ispkg
    ]
    return concepts + [lesson.module for lesson in lessons() if lesson.module]


def notebook_imports() -> set[tuple[str, str]]:
    """``(module, name)`` of every name the notebooks and solutions take from ``pe_helpers``."""
    from pe_helpers.lessons import lessons

    found: set[tuple[str, str]] = set()
    for lesson in lessons():
        for path in filter(None, (lesson.notebook, lesson.solutions)):
            for cell in json.loads(path.read_text())["cells"]:
                if cell["cell_type"] == "code":
                    found |= cell_imports("".join(cell["source"]))
    return found


def cell_imports(source: str) -> set[tuple[str, str]]:
    """``from pe_helpers.x import name`` and ``x.name`` after ``from pe_helpers import x``
    (or ``import pe_helpers.x``) in one cell's code (magics left out).

    Examples
    --------
    >>> sorted(cell_imports("from pe_helpers import rope; rope.apply_rope(x)"))
    [('pe_helpers', 'rope'), ('pe_helpers.rope', 'apply_rope')]
    """
    lines = [ln for ln in source.splitlines() if not ln.lstrip().startswith(("%", "!"))]
    tree = ast.parse("\n".join(lines))
    found, aliases = set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pe_helpers"):
            for alias in node.names:
                found.add((node.module, alias.name))
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            aliases.update({a.asname or a.name: a.name for a in node.names})
    for node in ast.walk(tree):
        root, _, rest = _dotted(node).partition(".")
        if rest and aliases.get(root, "").startswith("pe_helpers"):
            found.add(tuple(f"{aliases[root]}.{rest}".rsplit(".", 1)))
    return found


def _dotted(node: ast.AST) -> str:
    """``a.b.c`` for an attribute chain on a name, else ""."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else ""


def _takes_arguments(obj: object) -> bool:
    try:
        parameters = inspect.signature(obj).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters)


@cache
def doors() -> dict[str, object]:
    """Every door, by ``module.qualname`` of where it is defined."""
    from pe_helpers import live
    from pe_helpers.lessons import lessons, live_figures

    public = {}
    for module in course_modules():
        for name in importlib.import_module(module).__all__:
            public[id(getattr(importlib.import_module(module), name))] = name
    chosen = []
    for module, name in notebook_imports():
        try:
            obj = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):
            continue  # a module imported whole, or a name that is not public: not a door
        if id(obj) in public and callable(obj) and not isinstance(obj, Mapping):
            chosen.append(obj)
    for lesson in lessons():
        if lesson.module:
            home = importlib.import_module(lesson.module)
            chosen += [getattr(home, n) for n in home.__all__ if n.startswith("check_")]
    chosen += live_figures()
    chosen += [
        getattr(live, n)
        for n in live.__all__
        if inspect.isfunction(getattr(live, n))
        and inspect.signature(getattr(live, n)).return_annotation in ("Control", live.Control)
    ]
    return {f"{o.__module__}.{o.__qualname__}": o for o in chosen if _takes_arguments(o)}


def _is_checker(obj: object) -> bool:
    return getattr(obj, "__name__", "").startswith("check_")


# ------------------------------------------------------------------------------ bad values

BAD: dict[str, Callable[[], object]] = {
    "None": lambda: None,
    "nan": lambda: float("nan"),
    "inf": lambda: float("inf"),
    "-inf": lambda: -float("inf"),
    "negative": lambda: -3,
    "zero": lambda: 0,
    "10**6": lambda: 10**6,
    "10**9": lambda: 10**9,
    "10**12": lambda: 10**12,
    "10**18": lambda: 10**18,
    "10**400": lambda: 10**400,
    "1e300": lambda: 1e300,
    "1e-300": lambda: 1e-300,
    "text": lambda: "abc",
    "numeric text": lambda: np.array(["3.14", "6.28"]),
    "ragged": lambda: [[1.0, 2.0], [3.0]],
    "empty array": lambda: np.array([]),
    "bool": lambda: True,
    "complex": lambda: 1 + 2j,
    "float16": lambda: np.float16(2.5),
    "float16 array": lambda: np.arange(1, 5, dtype=np.float16),
    "object": lambda: object(),
    "list with 10**9": lambda: [2, 10**9],
}
#: Never a valid value of any argument (None and bool: unless the signature allows them).
NEVER_VALID = {"text", "numeric text", "ragged", "complex", "object", "None", "bool"}


def _raises(*_):
    raise RuntimeError("the learner's function broke")


#: Functions a learner might pass where a function is asked for: each must be told apart.
BAD_FUNCTIONS: dict[str, Callable] = {
    "returns None": lambda *_: None,
    "returns a number": lambda *_: 1.0,
    "returns text": lambda *_: "abc",
    "returns NaN": lambda *a: np.full(np.shape(a[0]), np.nan) if a else np.nan,
    "returns one column": lambda *a: np.ones((np.shape(a[0])[0], 1)) if a else 1.0,
    "raises": _raises,
}
#: Not a bad value: a checker's right answer given as a function with no arguments returning
#: it, which every checker of a value must grade correct.
AS_FUNCTION = "the right answer, from a function"
#: Bad values a dict's entries get, one key at a time (a rope_parameters block, an answer).
BAD_ENTRIES = ("None", "nan", "-inf", "negative", "10**9", "10**400", "text", "bool", "object")


def _allows(parameter: inspect.Parameter | None, label: str) -> bool:
    """Whether the signature says ``parameter`` takes a value like ``label``'s."""
    if parameter is None:
        return True
    text = str(parameter.annotation)
    if parameter.annotation is inspect.Parameter.empty or "object" in text or "Any" in text:
        return True
    if label == "None":
        return parameter.default is None or "None" in text
    if label == "bool":
        return "bool" in text
    if label == "text":
        return "str" in text
    return False


def _is_label(parameter: inspect.Parameter | None) -> bool:
    """A text shown as it is (a title, an axis label): any value is shown as its text."""
    return parameter is not None and parameter.annotation in (str, "str")


# ---------------------------------------------------------------------- the right calls


class _Recorder:
    """Stands for a door in its docstring's examples; keeps the calls that returned."""

    def __init__(self, door: Callable) -> None:
        self.door = door
        self.calls: list[tuple[tuple, dict, object]] = []

    def __call__(self, *args, **kwargs):
        kept = copy.deepcopy((args, kwargs))
        result = self.door(*args, **kwargs)
        self.calls.append((*kept, result))
        return result


@cache
def right_call(key: str) -> tuple[tuple, dict, object] | None:
    """The first call of door ``key`` its docstring's examples make that returns (a checker's:
    that grades correct); a door whose parameters all have defaults: the bare call."""
    from pe_helpers.grading import Feedback

    door = doors()[key]
    recorder = _Recorder(door)
    globs = dict(vars(sys.modules[door.__module__]))
    globs[door.__name__] = recorder
    for example in doctest.DocTestParser().get_examples(inspect.getdoc(door) or ""):
        if example.options.get(doctest.SKIP) or example.exc_msg:
            continue
        try:
            exec(compile(example.source, key, "exec"), globs)  # noqa: S102 - the docstring's own
        except Exception:  # noqa: BLE001 - a later example needs an earlier one: stop here
            break
        for args, kwargs, result in recorder.calls:
            if not _is_checker(door) or (isinstance(result, Feedback) and result.passed):
                return args, kwargs, result
    parameters = inspect.signature(door).parameters.values()
    if all(
        p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters
    ):
        return (), {}, door()
    return None


def places(key: str) -> list[tuple[str, int | None]]:
    """Each parameter of door ``key`` to replace: its name and its position in the right call
    (None: passed by keyword)."""
    args, kwargs, _ = right_call(key)
    found = []
    for index, (name, p) in enumerate(inspect.signature(doors()[key]).parameters.items()):
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or name.startswith("_"):
            continue
        found.append((name, index if index < len(args) else None))
    return found


def plan(key: str) -> list[list[str]]:
    """Every call to make of door ``key``: ``[parameter, dict key, bad value's label]``."""
    if right_call(key) is None:
        return []
    args, kwargs, _ = right_call(key)
    tasks = []
    for name, index in places(key):
        right = args[index] if index is not None else kwargs.get(name)
        labels = list(BAD) + (list(BAD_FUNCTIONS) if callable(right) else [])
        tasks += [[name, "", label] for label in labels]
        if _is_checker(doors()[key]) and len(places(key)) == 1 and not callable(right):
            tasks.append([name, "", AS_FUNCTION])  # the right value, returned by a function
        if isinstance(right, dict) and all(isinstance(k, str) for k in right):
            tasks += [[name, k, label] for k in right for label in BAD_ENTRIES]
    return tasks


# ------------------------------------------------------------------------- judging a call


def non_finite(value: object, depth: int = 0) -> int:
    """How many NaN or infinite numbers ``value`` holds (through containers and records)."""
    from matplotlib.artist import Artist

    if depth > 5 or value is None or isinstance(value, (str, bytes, bool, Artist, type)):
        return 0
    if isinstance(value, (np.ndarray, np.generic)):
        arr = np.asarray(value)
        if arr.dtype.kind in "fc":
            return int(np.count_nonzero(~np.isfinite(arr)))
        if arr.dtype.kind == "O":
            return sum(non_finite(v, depth + 1) for v in arr.ravel())
        return 0
    if isinstance(value, numbers.Number):
        return 0 if isinstance(value, numbers.Real) and math.isfinite(value) else 1
    if isinstance(value, Mapping):
        items = list(value.values())
    elif isinstance(value, (list, tuple)):
        items = list(value)
    elif callable(value) or not hasattr(value, "__dict__"):
        return 0
    else:
        items = [v for k, v in vars(value).items() if not k.startswith("_")]
    return sum(non_finite(v, depth + 1) for v in items)


class CallCounter:
    """Count the function calls (Python and C) made inside a ``with`` block: its work.

    Examples
    --------
    >>> with CallCounter() as counted:
    ...     _ = [abs(x) for x in range(10)]
    >>> counted.calls >= 10
    True
    """

    def __init__(self) -> None:
        self.calls = 0
        self._outer = None

    def _profile(self, frame, event, arg) -> None:
        if event in ("call", "c_call"):
            self.calls += 1

    def __enter__(self) -> CallCounter:
        self._outer = sys.getprofile()
        sys.setprofile(self._profile)
        return self

    def __exit__(self, *exc) -> None:
        sys.setprofile(self._outer)


class _Timeout(BaseException):
    """The call used more than CPU_SECONDS of the worker's CPU (its CPU timer fired)."""


def names(message: str, name: str) -> bool:
    """Whether ``message`` names ``name`` as a word (``d_model``, not ``d_model_max``)."""
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", message) is not None


def _same(a: object, b: object) -> bool:
    try:
        return type(a) is type(b) and bool(np.array_equal(a, b))
    except Exception:  # noqa: BLE001 - values that do not compare are not the same
        return False


def _put(args: tuple, kwargs: dict, index: int | None, name: str, value: object) -> tuple:
    """The arguments of a call with parameter ``name`` (at ``index``, or by keyword) set."""
    if index is None:
        return args, {**kwargs, name: value}
    return (*args[:index], value, *args[index + 1 :]), kwargs


def run_call(key: str, name: str, entry: str, label: str) -> str | None:
    """Make one call of :func:`plan`; None if it behaved, else what went wrong."""
    from pe_helpers.grading import Feedback

    door = doors()[key]
    right = right_call(key)
    if right is None:
        return "no right call: give the door a docstring example that calls it and returns"
    args, kwargs, expected = copy.deepcopy(right)
    index = dict(places(key))[name]
    parameter = inspect.signature(door).parameters[name]
    original = args[index] if index is not None else kwargs.get(name, parameter.default)
    if label == AS_FUNCTION:
        given_args, given_kwargs = _put(args, kwargs, index, name, lambda: original)
        feedback = door(*given_args, **given_kwargs)
        return None if feedback.passed else f"the right answer from a function: {feedback}"
    value = bad = BAD_FUNCTIONS[label] if label in BAD_FUNCTIONS else BAD[label]()
    named = name
    if entry:  # one entry of a dict replaced: the message names the key
        value, named, parameter = {**original, entry: value}, entry, None
        original = original[entry]
    args, kwargs = _put(args, kwargs, index, name, value)
    checker = _is_checker(door)
    counted = CallCounter()
    try:
        with counted:
            result = door(*args, **kwargs)
    except _Timeout:
        return f"used more than {CPU_SECONDS:g} s of CPU"
    except Exception as exc:  # noqa: BLE001 - every other exception is judged
        text = f"{type(exc).__name__}: {exc}"[:240]
        if checker or type(exc) not in (TypeError, ValueError):
            return f"raised {text}"
        if not names(str(exc), named):
            return f"the message does not name {named!r}: {text}"
        if counted.calls > REFUSAL_CALLS:
            return f"made {counted.calls} calls before refusing ({text})"
        return None
    if checker:
        if not isinstance(result, Feedback):
            return f"returned {type(result).__name__}, not Feedback"
        if "object at 0x" in f"{result.message} {result.hint}":
            return f"the feedback leaks an object: {result.message[:160]}"
        if result.passed and not _same(bad, original):
            return "a bad answer was graded correct"
        return None
    if label in NEVER_VALID and not _allows(parameter, label) and not _is_label(parameter):
        return "accepted it (the call returned instead of refusing)"
    if label not in NEVER_VALID and non_finite(result) > non_finite(expected):
        return "returned NaN or infinite values the right call does not"
    return None


# -------------------------------------------------------------- the issue's own examples


def issue_examples() -> list[tuple[Callable[[], object], str]]:
    """Calls at the doors that issues 32 and 41 name, and the argument each refusal names.

    The generic fuzz reaches most of them too; these pin the sizes and steps a call that
    trains or allocates must still refuse at once.
    """
    from pe_helpers.biases import alibi_bias, alibi_slopes
    from pe_helpers.conventions import identify_rope
    from pe_helpers.lessons.frequency_choice import running_min_distance
    from pe_helpers.lessons.long_context import method_frequencies
    from pe_helpers.lessons.rope_today import position_scores
    from pe_helpers.model import ModelConfig, gradient_check
    from pe_helpers.rope import apply_rope
    from pe_helpers.rope_configs import model_rope_config
    from pe_helpers.rope_scaling import (
        classify_pairs,
        default_frequencies,
        interpolation_weights,
        ntk_aware_base,
        rope_frequencies,
        yarn_correction_dim,
    )
    from pe_helpers.tasks import order_blind_accuracy
    from pe_helpers.training import train

    llama3 = model_rope_config("llama-3.1-8b").rope_parameters
    yarn = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64}
    config = ModelConfig("rope_adjacent", vocab_size=4, d_model=4, n_heads=1)
    return [
        (lambda: default_frequencies(10000.0, 10**9), "dim"),
        (lambda: alibi_slopes(10**9), "n_heads"),
        (lambda: alibi_bias(5, 10**9), "n_heads"),
        (lambda: interpolation_weights({"rope_type": "linear", "factor": 2.0}, 10**9), "head_dim"),
        (lambda: rope_frequencies(llama3, 10**9), "head_dim"),
        (lambda: classify_pairs(llama3, 10**9), "head_dim"),
        (lambda: rope_frequencies(yarn, 10**9), "head_dim"),
        (lambda: train(steps=10**9), "steps"),
        (lambda: train(length=10**9), "length"),
        (lambda: train(batch_size=10**9), "batch_size"),
        (lambda: train(vocab_size=10**9), "vocab_size"),
        (lambda: train(method="learned", max_len=10**9), "max_len"),
        (lambda: train(lr=1e300), "lr"),
        (lambda: train("copy_back", np.array([])), "method"),
        (lambda: gradient_check(config, batch_size=10**9), "batch_size"),
        (lambda: gradient_check(config, length=10**9), "length"),
        (lambda: order_blind_accuracy("copy_back", 4, 10**9), "vocab_size"),
        (lambda: yarn_correction_dim(32, float("nan"), 10000.0, 4096), "dim"),
        (lambda: ntk_aware_base(10000.0, 128, 1e300), "factor"),
        (lambda: position_scores(lambda x, t: x.sum(), [1.0, 0.0], [1.0, 0.0], [0, 1]), "rotate"),
        (lambda: method_frequencies("NTK-aware", 4, 2.0, 16, beta_fast="abc"), "beta_fast"),
        (
            lambda: identify_rope(lambda x, t: apply_rope(x, t), 8, expected_base=1e-300),
            "expected_base",
        ),
        (lambda: running_min_distance(np.zeros((40_000, 20))), "vectors"),
    ]


def run_example(index: int) -> str | None:
    """Make example ``index`` of :func:`issue_examples`; None if refused as it must be."""
    call, name = issue_examples()[index]
    try:
        with CallCounter() as counted:
            call()
    except (TypeError, ValueError) as exc:
        if not names(str(exc), name):
            return f"refused, but {str(exc)[:200]!r} does not name {name!r}"
        return (
            f"made {counted.calls} calls before refusing" if counted.calls > REFUSAL_CALLS else None
        )
    except Exception as exc:  # noqa: BLE001 - a finding
        return f"raised {type(exc).__name__}: {exc}"[:240]
    return "accepted it"


# ------------------------------------------------------------------------------ the worker


def _address_space() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _on_cpu_limit(*_):
    raise _Timeout


def _task(task: list) -> object:
    """One task of the parent: ``["plan", door]`` or ``["call", door, name, entry, label]``."""
    if task[0] == "plan":
        return plan(task[1])
    if task[0] == "example":
        return run_example(task[1])
    return run_call(*task[1:])


def worker() -> None:
    """Read tasks (JSON lines) from stdin; write one JSON line of answer per task."""
    import matplotlib.pyplot as plt

    doors()
    warnings.simplefilter("error")  # as under pytest (filterwarnings = error): a finding
    signal.signal(signal.SIGPROF, _on_cpu_limit)  # CPU time of this process, not the load
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    out, sys.stdout = sys.stdout, io.StringIO()  # what a door prints is not an answer
    for line in sys.stdin:
        limit = _address_space() + ADDRESS_SLACK
        resource.setrlimit(resource.RLIMIT_AS, (min(limit, hard) if hard > 0 else limit, hard))
        signal.setitimer(signal.ITIMER_PROF, CPU_SECONDS)
        try:
            answer = _task(json.loads(line))
        except _Timeout:
            answer = f"used more than {CPU_SECONDS:g} s of CPU"
        except BaseException as exc:  # noqa: BLE001 - the harness itself must not die
            answer = f"the harness failed: {type(exc).__name__}: {exc}"[:300]
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
            resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
            plt.close("all")
            sys.stdout = io.StringIO()
        out.write(json.dumps(answer) + "\n")
        out.flush()


class Worker:
    """The worker process, restarted after a crash or a hang."""

    def __init__(self) -> None:
        self.process: subprocess.Popen | None = None

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process.stdin.close()
            self.process.stdout.close()
            self.process = None

    def ask(self, task: list) -> object:
        """The worker's answer to ``task``; a dead or silent worker's is a finding."""
        if self.process is None:
            self.process = subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve()), "--worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                cwd=ROOT,
                env=dict(os.environ, OPENBLAS_NUM_THREADS="1", MPLBACKEND="Agg"),
            )
        self.process.stdin.write(json.dumps(task) + "\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], WORKER_WAIT)
        line = self.process.stdout.readline() if ready else ""
        if not line:
            self.stop()
            return f"killed: no answer in {WORKER_WAIT:g} s, or a crash"
        return json.loads(line)


# ------------------------------------------------------------------------------- the tests


def live_figures_now() -> list[type]:
    """Every live figure of the course (each lesson's home imported)."""
    from pe_helpers.lessons import live_figures

    return live_figures()


if __name__ != "__main__":
    import pytest

    @pytest.fixture(scope="module")
    def worker_process():
        process = Worker()
        yield process
        process.stop()

    def test_the_doors_are_found_in_every_lesson():
        from pe_helpers.lessons import lessons

        homes = {lesson.module for lesson in lessons() if lesson.module}
        found = doors()
        for home in homes:
            assert any(key.startswith(f"{home}.") for key in found), f"no door in {home}"
        assert "pe_helpers.training.train" in found and "pe_helpers.live.int_control" in found

    def test_each_example_of_the_issues_is_refused_at_once_naming_the_argument(worker_process):
        findings = [(i, worker_process.ask(["example", i])) for i in range(len(issue_examples()))]
        lines = [f"example {i}: {finding}" for i, finding in findings if finding]
        assert not lines, "\n".join(lines)

    @pytest.mark.parametrize("figure", live_figures_now(), ids=lambda f: f.__name__)
    def test_every_slider_value_enters_through_its_control(figure):
        # The slider form and draw(**values) read each value through the control's check.
        for name, control in figure.controls.items():
            for label, bad in BAD.items():
                try:
                    value = figure.values(figure.__new__(figure), **{name: bad()})[name]
                except (TypeError, ValueError) as exc:
                    assert type(exc) in (TypeError, ValueError) and names(str(exc), name), exc
                    continue
                assert label not in NEVER_VALID, (name, label, value)
                if control.kind == "choice":
                    assert value in control.options, (name, label, value)
                else:
                    assert control.minimum <= value <= control.maximum, (name, label, value)

    @pytest.mark.parametrize("key", sorted(doors()))
    def test_bad_input_at_a_door_gets_a_clear_error_fast(key, worker_process):
        tasks = worker_process.ask(["plan", key])
        assert isinstance(tasks, list) and tasks, f"{key}: {tasks or 'no right call'}"
        lines = []
        for name, entry, label in tasks:
            finding = worker_process.ask(["call", key, name, entry, label])
            if finding:
                lines.append(f"{name}{f'[{entry!r}]' if entry else ''}={label}: {finding}")
        shown = "\n".join(lines[:30]) + (
            f"\n... and {len(lines) - 30} more" if len(lines) > 30 else ""
        )
        assert not lines, f"{key}: {len(lines)} of {len(tasks)} calls misbehaved:\n{shown}"


if __name__ == "__main__" and sys.argv[1:] == ["--worker"]:
    worker()
