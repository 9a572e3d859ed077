"""scripts/confirm_claims.py on a tiny notebook: no kernel, no training."""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import confirm_claims  # noqa: E402 - a script beside the tests

CELLS = [
    "import numpy as np\nSEED = 0\nGUARD = False\nx = 3",
    "assert x > 1  # holds by 2",
    "assert not GUARD or x < 2",
    "for i in range(3):\n    assert i < 2, 'too far'",
    "assert (np.array([1.0, 2.0]) > np.array([0.5, 0.5])).all()",
    "assert abs(x - 3) < 0.25 < 1",
    "assert x == 3",
    "print('no claim here')",
]


def _notebook(cells: list[str]) -> nbformat.NotebookNode:
    """A notebook of code cells."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    return nb


def _run_in_process(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Run each code cell in one namespace, storing stdout and errors as a kernel would."""
    namespace: dict = {}
    for cell in nb.cells:
        out = io.StringIO()
        cell.outputs = []
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(cell.source, "<cell>", "exec"), namespace)
        except Exception as exc:
            cell.outputs.append(
                nbformat.v4.new_output("error", ename=type(exc).__name__, evalue=str(exc))
            )
        if out.getvalue():
            cell.outputs.append(
                nbformat.v4.new_output("stream", name="stdout", text=out.getvalue())
            )
    return nb


def test_instrument_lists_every_assert_with_its_cell_line_and_text() -> None:
    _, claims = confirm_claims.instrument(_notebook(CELLS), "fake.ipynb")
    assert [(c.cell, c.line) for c in claims] == [(1, 1), (2, 1), (3, 2), (4, 1), (5, 1), (6, 1)]
    assert claims[0].text == "assert x > 1"
    assert claims[2].text == "assert i < 2, 'too far'"
    assert all(c.notebook == "fake.ipynb" for c in claims)


def test_records_hold_fail_skip_and_margins() -> None:
    instrumented, claims = confirm_claims.instrument(_notebook(CELLS), "fake.ipynb")
    run = confirm_claims.read_run(_run_in_process(instrumented))
    assert not run.cell_errors  # no assert raised
    outcome = {c.line + 100 * c.cell: run.outcomes[c.key] for c in claims}
    assert outcome[101].status() == "held" and outcome[101].margin == pytest.approx(2)
    assert outcome[201].status() == "skipped"  # its guard was off
    assert outcome[302].status() == "FAILED"  # i = 2 fails
    assert outcome[302].margin == pytest.approx(-0)  # worst over the loop: 2 - 2
    assert outcome[401].status() == "held" and outcome[401].margin == pytest.approx(0.5)
    assert outcome[501].status() == "held" and outcome[501].margin == pytest.approx(0.25)
    assert outcome[601].status() == "held" and outcome[601].margin is None


def test_report_and_failures_name_the_failing_assert() -> None:
    nb = _notebook(CELLS)
    instrumented, claims = confirm_claims.instrument(nb, "fake.ipynb")
    runs = {"shipped": {"fake.ipynb": confirm_claims.read_run(_run_in_process(instrumented))}}
    table = confirm_claims.report(claims, runs)
    lines = table.splitlines()
    assert len(lines) == 2 + len(claims)
    assert "assert x > 1" in lines[2] and "held" in lines[2] and "+2.000" in lines[2]
    assert "FAILED" in lines[4] and "too far" in lines[4]
    bad = confirm_claims.failures(claims, runs["shipped"])
    assert bad == ["fake.ipynb cell 3 line 2: assert i < 2, 'too far'"]


def test_a_cell_that_stops_is_reported() -> None:
    instrumented, claims = confirm_claims.instrument(_notebook(["1 / 0", "assert True"]), "f")
    run = confirm_claims.read_run(_run_in_process(instrumented))
    assert run.cell_errors == {0: "ZeroDivisionError: division by zero"}
    assert confirm_claims.failures(claims, {"f": run}) == [
        "f cell 0: ZeroDivisionError: division by zero"
    ]


def test_with_seed_sets_the_live_seed_only() -> None:
    nb = confirm_claims.with_seed(_notebook(CELLS), 31)
    assert nb.cells[0].source.splitlines()[1] == "SEED = 31"
    assert nb.cells[1].source == CELLS[1]
