"""Committed notebooks are named, ordered, executed, cleaned and linked as the course promises."""

from __future__ import annotations

import base64
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import navigation as nav
import pytest
from PIL import Image

from pe_helpers.lessons import NOTEBOOKS as NOTEBOOK_DIR
from pe_helpers.lessons import lessons

ROOT = NOTEBOOK_DIR.parent
LESSONS = [lesson.notebook for lesson in lessons()]
SOLUTIONS = sorted((NOTEBOOK_DIR / "solutions").glob("*.ipynb"))
ALL = LESSONS + SOLUTIONS


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def code_cells(nb: dict) -> list[dict]:
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def source(cell: dict) -> str:
    src = cell["source"]
    return src if isinstance(src, str) else "".join(src)


def test_lessons_are_numbered_and_index_comes_first():
    assert {p.name for p in NOTEBOOK_DIR.glob("*.ipynb")} == {p.name for p in LESSONS}, (
        "every notebook in notebooks/ must be named NN_slug.ipynb"
    )
    names = [p.name for p in LESSONS]
    assert names, "no notebooks found"
    assert names[0] == "00_index.ipynb"
    for name in names:
        assert re.fullmatch(r"\d\d_[a-z0-9_]+\.ipynb", name), name
    assert [int(name[:2]) for name in names] == list(range(len(names))), "numbered without gaps"


def test_every_solution_belongs_to_a_lesson():
    lesson_names = {p.name for p in LESSONS}
    for path in SOLUTIONS:
        assert path.name.endswith("_solutions.ipynb"), path.name
        assert path.name.replace("_solutions", "") in lesson_names, path.name


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.relative_to(NOTEBOOK_DIR).as_posix())
def test_notebook_was_run_in_order_in_a_fresh_kernel(path: Path):
    cells = [c for c in code_cells(load(path)) if source(c).strip()]
    counts = [c["execution_count"] for c in cells]
    assert counts == list(range(1, len(cells) + 1)), (
        f"{path.name}: execution counts {counts}; re-run it with `make regen`"
    )
    for cell in cells:
        for output in cell["outputs"]:
            assert output["output_type"] != "error", f"{path.name} stores an error output"
            data = output.get("data", {})
            if "application/vnd.jupyter.widget-view+json" in data:
                # A live view: its picture shows wherever the widget cannot (no kernel).
                assert {"image/png", "text/plain"} <= set(data), (
                    f"{path.name} stores a widget view without its picture"
                )


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.relative_to(NOTEBOOK_DIR).as_posix())
def test_notebook_starts_with_package_imports_and_a_seeded_rng(path: Path):
    nb = load(path)
    first = source(code_cells(nb)[0])
    assert "pe_helpers" in first, f"{path.name}: first code cell must import pe_helpers"
    assert first.count(nav.GUARD) == 1, f"{path.name}: set-up line missing; `make nav`"
    assert "find_spec" not in first and "draw_inline_once" not in first, path.name
    assert "rng = np.random.default_rng(0)" in first, f"{path.name}: seed the rng in cell 1"
    everything = "".join(source(c) for c in nb["cells"])
    assert "sys.path" not in everything, f"{path.name} edits sys.path"


def test_committed_notebooks_are_clean():
    result = subprocess.run(
        [sys.executable, "-m", "nbstripout", "--keep-output", "--keep-count", "--verify"]
        + [str(p) for p in ALL],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, (
        "notebooks are not clean; run `make regen`:\n" + result.stdout + result.stderr
    )


def test_every_notebook_records_the_same_cpu_kernels():
    # The website draws its live figures under the notebooks' kernels, one set for all: a
    # notebook regenerated under others would have a first picture the site cannot draw.
    found: dict[str, list[str]] = {}
    for path in ALL:
        kernels = load(path)["metadata"].get("pe_helpers", {}).get("cpu_kernels")
        assert kernels, f"{path.name}: no cpu_kernels recorded; run `make regen`"
        found.setdefault(json.dumps(kernels, sort_keys=True), []).append(path.name)
    assert len(found) == 1, f"notebooks record different CPU kernels (make regen): {found}"


def test_navigation_check_detects_a_stale_link():
    nb = nav.nbformat.read(LESSONS[0], as_version=4)
    nb.cells[0].source = "<small>[a link to nowhere](99_gone.ipynb)</small>"
    fixed = nav.with_nav(nav.nbformat.read(LESSONS[0], as_version=4), "x")
    assert not nav._same(nb, fixed)
    assert sum("nav" in c.metadata.get("tags", []) for c in fixed.cells) == 2


def test_each_navigation_row_links_the_contents_once():
    rows = nav.targets()
    assert len(rows) == len(LESSONS) + len(SOLUTIONS)
    for path, row in rows:
        targets = re.findall(r"\]\(([^)]+)\)", row)
        assert len(targets) == len(set(targets)), f"{path.name} links one notebook twice: {row}"
        *inside, edition = targets  # the last link opens the same notebook in Chinese
        assert edition == nav.edition_link(path).split("](")[1][:-1]
        assert (nav.ROOT / "notebooks" / path.parent.name / edition).resolve().name == path.name
        contents = [t for t in inside if t.endswith(nav.INDEX)]
        assert len(contents) == (path.name != nav.INDEX), f"{path.name}: {row}"


def test_the_set_up_line_is_written_once_and_says_what_to_run():
    nb = nav.nbformat.read(LESSONS[1], as_version=4)
    twice = nav.with_guard(nav.with_guard(nb))
    first = next(c for c in twice.cells if c.cell_type == "code").source
    assert first.count("import pe_helpers") == 1
    assert first == next(c for c in nb.cells if c.cell_type == "code").source
    # A cell with no import from the package gets the line after its other imports.
    bare = nav.nbformat.v4.new_notebook()
    bare.cells = [nav.nbformat.v4.new_code_cell("import numpy as np\n")]
    assert nav.with_guard(bare).cells[0].source == "import numpy as np\n\n" + nav.GUARD
    # A kernel without the course shows the failing import line: its comment says what to run.
    assert "make lab" in next(x for x in nav.GUARD.splitlines() if x.startswith("import "))


def test_the_set_up_lines_draw_each_inline_figure_once_at_its_laid_out_size(monkeypatch):
    # In a real kernel, by default: pyplot redraws every open figure after each cell, then the
    # inline backend draws it again for its PNG, trimmed (bbox_inches="tight", one more layout
    # pass). After the set-up lines a 4 x 3 inch figure at 100 dpi is drawn once, 400 x 300.
    from nbclient import NotebookClient

    count_draws = (
        "import matplotlib.figure\n"
        "draws = []\n"
        "_draw = matplotlib.figure.Figure.draw\n"
        "matplotlib.figure.Figure.draw = lambda self, r: draws.append(1) or _draw(self, r)"
    )
    figure = (
        "import matplotlib.pyplot as plt\n"
        "fig = plt.figure(figsize=(4, 3), dpi=100)\n"
        "fig.add_subplot().plot([0, 1])"
    )
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel must get the inline backend
    sizes, draws = [], []
    for setup in ("import matplotlib.pyplot", nav.GUARD):
        nb = nav.nbformat.v4.new_notebook()
        nb.cells = [
            nav.nbformat.v4.new_code_cell(f"{setup}\n{count_draws}"),
            nav.nbformat.v4.new_code_cell(figure),
            nav.nbformat.v4.new_code_cell("print(len(draws))"),
        ]
        NotebookClient(nb, timeout=120, kernel_name="python3").execute()
        png = next(o for o in nb.cells[1].outputs if "image/png" in o.get("data", {}))
        sizes.append(Image.open(io.BytesIO(base64.b64decode(png["data"]["image/png"]))).size)
        draws.append(int(nb.cells[2].outputs[0]["text"]))
    trimmed, laid_out = sizes
    assert laid_out == (400, 300)
    assert trimmed != laid_out  # the default trims the margins: the test can tell the two apart
    default, set_up = draws
    assert default >= 2  # the redraw, the PNG (and the trimming pass, as a draw)
    assert set_up == 1


def test_a_kernel_that_dies_starting_is_started_again_but_no_other_error_is_retried(monkeypatch):
    import importlib.util

    import nbval.kernel

    spec = importlib.util.spec_from_file_location("course_conftest", ROOT / "conftest.py")
    conftest = importlib.util.module_from_spec(spec)  # the top folder's, which nbval runs use
    spec.loader.exec_module(conftest)
    calls = []

    def flaky(*args, **kwargs):
        calls.append(args)
        if len(calls) == 1:
            raise RuntimeError("Kernel died before replying to kernel_info")
        if kwargs.get("broken"):
            raise RuntimeError("something else")
        return "km", "kc"

    monkeypatch.setattr(nbval.kernel, "start_new_kernel", flaky)
    conftest._kernel_starts_again_if_it_dies_starting()
    assert nbval.kernel.start_new_kernel(60, "python") == ("km", "kc")
    assert len(calls) == 2
    with pytest.raises(RuntimeError, match="something else"):
        nbval.kernel.start_new_kernel(60, "python", broken=True)
    assert len(calls) == 3  # not started again
