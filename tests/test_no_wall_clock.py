"""No notebook and no unit test reads a wall clock to judge a result (issue 39, point 5).

On a busy machine (a class hub where thirty kernels train at once, or six CPU-bound processes
on two cores) a wall clock measures the load: ``assert seconds < 30`` in lessons 13 and 14 and a
5 s budget in the fuzz test turned cells and ``make test`` red there. Work is bounded by what it
computes (steps, sizes, function calls, memory); speed is measured in ``benchmarks/`` alone.

This test reads every notebook's code cells (lessons and solutions) and every unit test file
(``tests/*.py``; the browser suites under ``tests/e2e`` wait for a page, which is not a check of
speed) with :mod:`ast`, and fails naming the file and line of

* a read of a clock: ``time.perf_counter``, ``time.monotonic``, ``time.time``,
  ``time.process_time`` (and their ``_ns`` forms), ``datetime.now``, the :mod:`timeit` module,
  ``signal.alarm`` or ``signal.ITIMER_REAL``, whether called through the module or imported by
  name;
* the ``seconds`` a trained model records (``model.seconds``): a wall-clock time;
* the ``%time`` and ``%timeit`` magics in a notebook's code.

:data:`ALLOWED` lists the few reads that time nothing, each with its reason.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Clock functions by module: reading any of them in a check makes it depend on the load.
CLOCKS = {
    "time": {
        name + ns
        for name in ("perf_counter", "monotonic", "time", "process_time", "thread_time")
        for ns in ("", "_ns")
    },
    "datetime": {"now", "utcnow", "today"},
    "signal": {"alarm", "ITIMER_REAL"},
}
#: A whole module that exists to time code.
CLOCK_MODULES = {"timeit"}

#: (file relative to the repository, clock) -> why that read judges no speed.
ALLOWED = {
    ("tests/test_makefile.py", "time.time"): "sets files' modification times for make",
}


def _clock_reads(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, what) of every clock read, ``.seconds`` read and clock import in ``tree``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            if node.attr == "seconds":
                found.append((node.lineno, "a trained model's .seconds (wall clock)"))
            elif isinstance(node.value, ast.Name):
                module = node.value.id
                if node.attr in CLOCKS.get(module, ()) or module in CLOCK_MODULES:
                    found.append((node.lineno, f"{module}.{node.attr}"))
            elif (
                isinstance(node.value, ast.Attribute)  # datetime.datetime.now
                and node.attr in CLOCKS["datetime"]
                and node.value.attr == "datetime"
            ):
                found.append((node.lineno, f"datetime.{node.attr}"))
        elif isinstance(node, ast.ImportFrom) and node.module:
            root = node.module.split(".")[0]
            for alias in node.names:
                if root in CLOCK_MODULES or alias.name in CLOCKS.get(root, ()):
                    found.append((node.lineno, f"{node.module}.{alias.name}"))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in CLOCK_MODULES:
                    found.append((node.lineno, f"import {alias.name}"))
    return found


def _code_of_cell(source: str) -> tuple[str, list[tuple[int, str]]]:
    """A cell's source with IPython magics blanked, and the timing magics it holds."""
    lines, magics = [], []
    for number, line in enumerate(source.splitlines(), start=1):
        stripped = line.lstrip()
        if stripped.startswith(("%", "!")):
            word = stripped.lstrip("%").split(maxsplit=1)[0] if stripped.strip("%!") else ""
            if word in ("time", "timeit"):
                magics.append((number, f"%{word}"))
            lines.append("")
        else:
            lines.append(line)
    return "\n".join(lines), magics


def notebook_findings(path: Path) -> list[str]:
    """Every clock read in the code cells of the notebook at ``path``, as ``cell N line M: ...``."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    findings = []
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        code, magics = _code_of_cell(source)
        reads = magics + _clock_reads(ast.parse(code))
        findings += [f"cell {index} line {line}: {what}" for line, what in sorted(reads)]
    return findings


def file_findings(path: Path) -> list[str]:
    """Every clock read in the Python file at ``path`` not in :data:`ALLOWED`."""
    relative = path.relative_to(ROOT).as_posix()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"line {line}: {what}"
        for line, what in sorted(_clock_reads(tree))
        if (relative, what) not in ALLOWED
    ]


NOTEBOOKS = sorted(
    p for p in (ROOT / "notebooks").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
)
TEST_FILES = sorted((ROOT / "tests").glob("*.py"))


def test_the_scan_sees_the_notebooks_and_the_tests():
    assert len(NOTEBOOKS) >= 28 and any(p.parent.name == "solutions" for p in NOTEBOOKS)
    assert Path(__file__) in TEST_FILES and ROOT / "tests" / "test_fuzz_inputs.py" in TEST_FILES


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_notebook_reads_a_clock(path):
    findings = notebook_findings(path)
    assert not findings, f"{path.name} reads a clock (bound steps or sizes): {findings}"


@pytest.mark.parametrize("path", TEST_FILES, ids=lambda p: p.name)
def test_no_unit_test_reads_a_clock(path):
    findings = file_findings(path)
    assert not findings, f"{path.name} reads a clock (count work instead): {findings}"


def _scanned(folder: Path, code: str) -> list[str]:
    """What the scan finds in a notebook of one code cell holding ``code``."""
    path = folder / "nb.ipynb"
    path.write_text(json.dumps({"cells": [{"cell_type": "code", "source": [code]}]}))
    return notebook_findings(path)


@pytest.mark.parametrize(
    "code",
    [
        "seconds = sum(m.seconds for m in models.values())\nassert seconds < 30",
        "assert passkey_model.seconds < 30",
        "start = time.perf_counter()\nf()\nassert time.perf_counter() - start < 1.0",
        "from time import monotonic\nt = monotonic()",
        "import timeit\ntimeit.timeit(f)",
        "signal.setitimer(signal.ITIMER_REAL, 6.0)",
        "when = datetime.datetime.now()",
        "%timeit f()",
    ],
)
def test_the_scan_finds_each_kind_of_clock_read(tmp_path, code):
    assert _scanned(tmp_path, code)


def test_the_scan_passes_work_bounds_and_cpu_timers(tmp_path):
    code = (
        'assert len(model.losses) == SKIP_BACK["steps"]\n'
        "signal.setitimer(signal.ITIMER_PROF, 6.0)\n"
        "time.sleep(0.1)\n"
    )
    assert _scanned(tmp_path, code) == []
