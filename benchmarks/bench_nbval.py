"""Benchmark: strict nbval over every notebook vs as many trivial notebooks.

The floor notebooks only import the package and matplotlib, so the ratio shows
what the lessons cost beyond kernel start-up. Prints ``name: value (ratio)``, then where
the course's time goes: the notebooks and the cells that take longest (from pytest's
JUnit report of the same run), and the lesson cells run again in this process, their time
split by kind of work (training, accuracy tests, inline figures, the live views' first
pictures, the rest), each as a share of the floor: what a target ratio leaves for them.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
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
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            *NBVAL,
            *junit,
            *map(str, paths),
        ],
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


def _timed(kinds: dict[str, float], kind: str, function, busy: list[bool]):
    """``function``, adding its time to ``kinds[kind]`` unless another timed call is running
    (``busy[0]``): a model trained inside a view's first picture counts once."""

    @functools.wraps(function)
    def timed(*args, **kwargs):
        if busy[0]:
            return function(*args, **kwargs)
        busy[0] = True
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            kinds[kind] += time.perf_counter() - start
            busy[0] = False

    return timed


def lesson_time_by_kind() -> dict[str, float]:
    """Run every notebook's cells but its set-up cell in this process, timed by kind of work.

    Each cell's open figures are then saved as PNGs and closed, as the inline backend does.
    Returns seconds per kind, and "lesson cells" for the total.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pe_helpers import training, views

    kinds: dict[str, float] = defaultdict(float)
    busy = [False]
    train = _timed(kinds, "training (train)", training.train, busy)
    patches = [
        (training, "train", train),
        (
            training.TrainedModel,
            "accuracy",
            _timed(
                kinds,
                "accuracy tests (TrainedModel.accuracy)",
                training.TrainedModel.accuracy,
                busy,
            ),
        ),
        (
            views.InteractiveView,
            "__init__",
            _timed(kinds, "live views' first pictures", views.InteractiveView.__init__, busy),
        ),
    ]
    patches += [
        (module, "train", train)
        for name, module in list(sys.modules.items())
        if name.startswith("pe_helpers.")
        and getattr(module, "train", None) is training.train
        and module is not training
    ]
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    here = Path.cwd()
    try:
        for owner, name, value in patches:
            setattr(owner, name, value)
        for path in NOTEBOOKS:
            os.chdir(path.parent)
            namespace: dict = {}
            cells = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
            for index, cell in enumerate(cells):
                start = time.perf_counter()
                with contextlib.redirect_stdout(io.StringIO()):
                    exec(compile(cell.source, str(path), "exec"), namespace)
                drawn = time.perf_counter()
                for number in plt.get_fignums():
                    plt.figure(number).canvas.print_figure(io.BytesIO(), format="png")
                plt.close("all")
                if index:  # the set-up cell is the floor's work
                    kinds["inline figures (PNG)"] += time.perf_counter() - drawn
                    kinds["lesson cells"] += time.perf_counter() - start
    finally:
        os.chdir(here)
        for owner, name, value in saved:
            setattr(owner, name, value)
    return kinds


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
    kinds = lesson_time_by_kind()
    total = kinds.pop("lesson cells")
    print(
        f"lesson cells (set-up cells left out) run in this process: {total:.1f} s "
        f"({total / floor:.2f}x floor); the kernels, their messages and first uses add "
        f"{course - floor - total:.1f} s ({(course - floor - total) / floor:.2f}x)"
    )
    for kind, seconds in sorted(kinds.items(), key=lambda kv: -kv[1]):
        print(f"  {kind}: {seconds:.1f} s ({seconds / floor:.2f}x floor)")
    rest = total - sum(kinds.values())
    print(f"  everything else: {rest:.1f} s ({rest / floor:.2f}x floor)")


if __name__ == "__main__":
    main()
