"""Benchmark: strict nbval over every notebook vs as many trivial notebooks.

The floor notebooks only import the package and matplotlib, so the ratio shows
what the lessons cost beyond kernel start-up. Prints ``name: value (ratio)``.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
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


def timed_nbval(paths: list[Path]) -> float:
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *NBVAL, *map(str, paths)],
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


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        floor = timed_nbval(trivial_notebooks(Path(tmp), len(NOTEBOOKS)))
    course = timed_nbval(NOTEBOOKS)
    print(f"nbval floor ({len(NOTEBOOKS)} trivial notebooks): {floor:.1f} s (1.00x)")
    ratio = course / floor
    print(f"nbval whole course ({len(NOTEBOOKS)} notebooks): {course:.1f} s ({ratio:.2f}x floor)")


if __name__ == "__main__":
    main()
