"""Benchmark: strict nbval over every notebook vs as many trivial notebooks.

The floor notebooks only import the package and matplotlib, so the ratio shows
what the lessons cost beyond kernel start-up. Prints ``name: value (ratio)``, then where
the course's time goes: the notebooks and the cells that take longest (from pytest's
JUnit report of the same run), to profile before cutting.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted(ROOT.glob("notebooks/*.ipynb")) + sorted(
    ROOT.glob("notebooks/solutions/*.ipynb")
)
NBVAL = [
    "--nbval",
    "--nbval-current-env",
    "--nbval-sanitize-with",
    str(ROOT / "tests" / "nbval_sanitize.cfg"),
]


def timed_nbval(paths: list[Path], report: Path | None = None) -> float:
    junit = [f"--junitxml={report}"] if report else []
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *NBVAL, *junit,
         *map(str, paths)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        print(result.stdout[-2000:])
        raise SystemExit("nbval failed; the benchmark needs a passing course")
    return elapsed


def trivial_notebooks(folder: Path, count: int) -> list[Path]:
    paths = []
    for i in range(count):
        nb = nbformat.v4.new_notebook()
        cell = nbformat.v4.new_code_cell("import matplotlib.pyplot as plt\nimport pe_helpers")
        cell.execution_count = 1
        nb.cells = [cell]
        path = folder / f"trivial_{i:02d}.ipynb"
        nbformat.write(nb, path)
        paths.append(path)
    return paths


def cell_times(report: Path) -> list[tuple[float, str, str]]:
    """(seconds, notebook, cell) for every cell nbval ran, from its JUnit report."""
    cells = []
    for case in ET.parse(report).iter("testcase"):
        # classname "notebooks.solutions.01_why_position_solutions.ipynb", name "Cell 3"
        notebook = case.get("classname", "").removesuffix(".ipynb").rpartition(".")[2]
        cells.append((float(case.get("time", 0.0)), notebook, case.get("name", "")))
    return cells


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        floor = timed_nbval(trivial_notebooks(Path(tmp), len(NOTEBOOKS)))
        report = Path(tmp) / "course.xml"
        course = timed_nbval(NOTEBOOKS, report)
        cells = cell_times(report)
    print(f"nbval floor ({len(NOTEBOOKS)} trivial notebooks): {floor:.1f} s (1.00x)")
    ratio = course / floor
    print(f"nbval whole course ({len(NOTEBOOKS)} notebooks): {course:.1f} s ({ratio:.2f}x floor)")
    per_notebook: dict[str, float] = defaultdict(float)
    for seconds, notebook, _ in cells:
        per_notebook[notebook] += seconds
    print(f"cells: {sum(per_notebook.values()):.1f} s in {len(cells)} cells; slowest notebooks:")
    for notebook, seconds in sorted(per_notebook.items(), key=lambda kv: -kv[1])[:6]:
        print(f"  {notebook}: {seconds:.1f} s")
    print("slowest cells:")
    for seconds, notebook, cell in sorted(cells, reverse=True)[:8]:
        print(f"  {notebook} {cell}: {seconds:.2f} s")


if __name__ == "__main__":
    main()
