"""The website's source preparation (``scripts/build_site.py``), without running Sphinx.

Each test lays out a small course in a temporary folder (or reads the real one) and
checks what the build script writes: heading links become explicit targets, folder
links open their index page, slider views get their note, the contents order is the
course's. The browser checks of the built site are in ``tests/e2e/test_site.py``.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load_build_site():
    path = ROOT / "scripts" / "build_site.py"
    spec = importlib.util.spec_from_file_location("build_site", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build_site = _load_build_site()


def _notebook(*cells: tuple[str, str]) -> str:
    return json.dumps(
        {
            "cells": [
                {"cell_type": kind, "id": str(i), "metadata": {}, "source": source}
                | ({"outputs": [], "execution_count": None} if kind == "code" else {})
                for i, (kind, source) in enumerate(cells)
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


@pytest.fixture
def course(tmp_path):
    """A two-page course: a lesson with a maths heading and a slider view, and a guide."""
    (tmp_path / "notebooks" / "solutions").mkdir(parents=True)
    (tmp_path / "docs").mkdir()
    (tmp_path / "notebooks" / "01_demo.ipynb").write_text(
        _notebook(
            ("markdown", "# Demo\n\nSee the [guide](../docs/guide.md#lesson-01--demo)."),
            ("markdown", "## Fading: what is left of $x_1$\n\nText."),
            ("code", "# NBVAL_IGNORE_OUTPUT\nDemo().view()"),
            ("markdown", "Solutions are in [the folder](solutions/)."),
        )
    )
    (tmp_path / "docs" / "guide.md").write_text(
        "# Guide\n\n## Lesson 01 · Demo\n\n"
        "[checked](../notebooks/01_demo.ipynb#Fading:-what-is-left-of-$x_1$)\n\n"
        "```bash\n# not a heading\n```\n"
    )
    pages = {}
    for path in [tmp_path / "notebooks" / "01_demo.ipynb", tmp_path / "docs" / "guide.md"]:
        pages[path.resolve()] = build_site.Document(path)
    return tmp_path, pages


def test_heading_links_become_explicit_targets_placed_before_the_heading(course):
    folder, pages = course
    assert build_site.rewrite_links(pages, folder) == 3
    for page in pages.values():
        page.write()
    guide = (folder / "docs" / "guide.md").read_text()
    lesson = json.loads((folder / "notebooks" / "01_demo.ipynb").read_text())
    label = "01-demo-fading-what-is-left-of-x-1"
    assert f"[checked](#{label})" in guide
    assert lesson["cells"][1]["source"].startswith(f"({label})=\n## Fading")
    guide_label = "guide-lesson-01-demo"
    assert f"[guide](#{guide_label})" in lesson["cells"][0]["source"]
    assert f"({guide_label})=\n## Lesson 01 · Demo" in guide
    assert "# not a heading" in guide and "(guide-not-a-heading)=" not in guide


def test_a_folder_link_opens_the_folders_index_page(course):
    folder, pages = course
    build_site.rewrite_links(pages, folder)
    lesson = pages[(folder / "notebooks" / "01_demo.ipynb").resolve()]
    assert "[the folder](solutions/index.md)" in lesson.blocks()[2]


def test_a_link_to_a_missing_heading_stops_the_build(course):
    folder, pages = course
    guide = pages[(folder / "docs" / "guide.md").resolve()]
    guide.set_blocks(["[x](../notebooks/01_demo.ipynb#No-such-heading)"])
    with pytest.raises(ValueError, match="no heading for"):
        build_site.rewrite_links(pages, folder)


def test_every_slider_view_gets_the_jupyterlab_note(course):
    folder, pages = course
    assert build_site.add_live_notes(pages) == 1
    cells = pages[(folder / "notebooks" / "01_demo.ipynb").resolve()].notebook["cells"]
    assert cells[2]["source"].endswith(".view()")
    assert cells[3]["cell_type"] == "markdown"
    assert "Interactive in JupyterLab" in cells[3]["source"]
    assert "pe-live-note" in cells[3]["source"]


def test_live_view_rule_needs_the_marker_the_call_and_no_output():
    view = "# NBVAL_IGNORE_OUTPUT\nPairRotation().view(d_model=64)"
    cell = {"cell_type": "code", "source": view, "outputs": []}
    assert build_site.is_live_view(cell)
    assert not build_site.is_live_view({**cell, "source": "PairRotation().view()"})
    assert not build_site.is_live_view({**cell, "source": "# NBVAL_IGNORE_OUTPUT\nx = 1"})
    assert not build_site.is_live_view({**cell, "outputs": [{"output_type": "stream"}]})
    assert not build_site.is_live_view({**cell, "cell_type": "markdown"})


def test_anchor_rules_are_jupyterlabs_and_githubs():
    assert build_site.jupyterlab_anchor("Property 1: distance") == "Property-1:-distance"
    assert build_site.github_anchor("Lesson 03 · Choosing the frequencies") == (
        "lesson-03--choosing-the-frequencies"
    )


def _needs_mathjax() -> None:
    # The site extra brings MathJax; .venv-oldest (`make test-oldest`) installs only [test].
    pytest.importorskip("mathjax", reason="the site extra is not installed: run make site")


def test_the_real_course_prepares_with_every_link_and_slider_view(tmp_path):
    _needs_mathjax()
    counts = build_site.prepare(tmp_path)
    notebooks = sorted((ROOT / "notebooks").rglob("*.ipynb"))
    docs = sorted((ROOT / "docs").glob("*.md"))
    assert counts["pages"] == len(notebooks) + len(docs) + 1  # and the solutions page
    views = 0
    for path in notebooks:
        for cell in json.loads(path.read_text())["cells"]:
            views += build_site.is_live_view(cell)
    assert counts["live notes"] == views >= 12
    assert counts["links rewritten"] > 100
    index = json.loads((tmp_path / "src" / "notebooks" / "00_index.ipynb").read_text())
    contents = index["cells"][-1]["source"]
    lessons = [p.stem for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))][1:]
    positions = [contents.index(f"\n{stem}\n") for stem in lessons]
    assert positions == sorted(positions)
    assert contents.index("/docs/instructor_guide") < contents.index("solutions/index")
    assert (tmp_path / "src" / "notebooks" / "solutions" / "index.md").is_file()
    assert (tmp_path / "static" / "mathjax" / "tex-chtml.js").is_file()


def test_the_committed_notebooks_are_left_alone(tmp_path):
    _needs_mathjax()
    before = {p: p.read_bytes() for p in (ROOT / "notebooks").rglob("*.ipynb")}
    build_site.prepare(tmp_path)
    assert {p: p.read_bytes() for p in (ROOT / "notebooks").rglob("*.ipynb")} == before


def test_a_link_to_a_repository_file_that_is_no_page_becomes_text_and_path(course):
    folder, pages = course
    guide = pages[(folder / "docs" / "guide.md").resolve()]
    link = "See [the README](../README.md#read-the-course-as-a-website) first."
    guide.set_blocks([guide.blocks()[0] + "\n" + link])
    build_site.rewrite_links(pages, folder)
    text = guide.blocks()[0]
    assert text.endswith("\nSee the README (`README.md` in the course's repository) first.")


def test_a_link_to_a_missing_file_stops_the_build(course):
    folder, pages = course
    guide = pages[(folder / "docs" / "guide.md").resolve()]
    guide.set_blocks([guide.blocks()[0] + "\n[gone](../notebooks/99_gone.ipynb)"])
    with pytest.raises(ValueError, match="missing file"):
        build_site.rewrite_links(pages, folder)


def test_pictures_are_not_taken_for_links(course):
    folder, pages = course
    guide = pages[(folder / "docs" / "guide.md").resolve()]
    guide.set_blocks([guide.blocks()[0] + "\n![a figure](figure.png)"])
    build_site.rewrite_links(pages, folder)
    assert guide.blocks()[0].endswith("\n![a figure](figure.png)")
