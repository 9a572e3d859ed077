"""The website's source preparation (``scripts/build_site.py``), without running Sphinx.

Each test lays out a small course in a temporary folder (or reads the real one) and
checks what the build script writes: heading links become explicit targets, folder
links open their index page, a live view becomes HTML controls over its pictures, drawn
by the figure's own view (one small figure, AlibiHeads, is drawn for real), every live
figure of the course gets a grid within budget, the contents order is the course's. The
browser checks of the built site are in ``tests/e2e/test_site.py``.
"""

from __future__ import annotations

import base64
import doctest
import io
import json
import shutil
import sys
from pathlib import Path

import build_site
import numpy as np
import pytest
from PIL import Image

from pe_helpers.lessons import live_figures
from pe_helpers.lessons.position_methods import AlibiHeads

ROOT = Path(__file__).resolve().parent.parent


FIGURE = f"{AlibiHeads.__module__}.AlibiHeads"


@pytest.fixture(scope="module")
def alibi_picture() -> bytes:
    """AlibiHeads' first picture at its defaults: what a notebook's live cell stores."""
    view = AlibiHeads().view()
    try:
        return view.image.value
    finally:
        view.close()


def _live_output(picture: bytes, values: dict, figure: str = FIGURE) -> dict:
    """A live view's stored output, as a kernel writes it."""
    return {
        "output_type": "execute_result",
        "execution_count": 1,
        "data": {
            build_site.WIDGET_MIME: {"version_major": 2, "version_minor": 0, "model_id": "0"},
            "image/png": base64.b64encode(picture).decode(),
            "text/plain": ["AlibiHeads with controls: heads = 8"],
        },
        "metadata": {"pe_helpers": {"figure": figure, "values": values}},
    }


def _notebook(*cells: tuple[str, str], outputs: dict[int, list] | None = None) -> str:
    outputs = outputs or {}
    return json.dumps(
        {
            "cells": [
                {"cell_type": kind, "id": str(i), "metadata": {}, "source": source}
                | ({"outputs": outputs.get(i, []), "execution_count": 1} if kind == "code" else {})
                for i, (kind, source) in enumerate(cells)
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


@pytest.fixture
def course(tmp_path, alibi_picture):
    """A two-page course: a lesson with a maths heading and a live view, and a guide."""
    (tmp_path / "notebooks" / "solutions").mkdir(parents=True)
    (tmp_path / "docs").mkdir()
    (tmp_path / "notebooks" / "01_demo.ipynb").write_text(
        _notebook(
            ("markdown", "# Demo\n\nSee the [guide](../docs/guide.md#lesson-01--demo)."),
            ("markdown", "## Fading: what is left of $x_1$\n\nText."),
            ("code", "AlibiHeads().view()"),
            ("markdown", "Solutions are in [the folder](solutions/)."),
            outputs={2: [_live_output(alibi_picture, {"n_heads": 8})]},
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
    assert "[the folder](solutions/index.md)" in lesson["cells"][3]["source"]  # its index page


@pytest.mark.parametrize(
    ("line", "written"),
    [
        (
            "See [the README](../README.md#read-the-course-as-a-website) first.",
            "See the README (`README.md` in the course's repository) first.",
        ),
        ("![a figure](figure.png)", "![a figure](figure.png)"),  # a picture is no link
    ],
)
def test_a_link_to_a_file_that_is_no_page_becomes_text_and_a_picture_stays(course, line, written):
    folder, pages = course
    guide = pages[(folder / "docs" / "guide.md").resolve()]
    guide.set_blocks([guide.blocks()[0] + "\n" + line])
    build_site.rewrite_links(pages, folder)
    assert guide.blocks()[0].endswith("\n" + written)


@pytest.mark.parametrize(
    ("link", "problem"),
    [
        ("../notebooks/01_demo.ipynb#No-such-heading", "no heading for"),
        ("../notebooks/99_gone.ipynb", "missing file"),
    ],
)
def test_a_link_to_a_missing_heading_or_file_stops_the_build(course, link, problem):
    folder, pages = course
    guide = pages[(folder / "docs" / "guide.md").resolve()]
    guide.set_blocks([guide.blocks()[0] + f"\n[x]({link})"])
    with pytest.raises(ValueError, match=problem):
        build_site.rewrite_links(pages, folder)


def _lesson(folder: Path, pages: dict) -> build_site.Document:
    return pages[(folder / "notebooks" / "01_demo.ipynb").resolve()]


def _add_live(folder: Path, pages: dict, **options) -> dict:
    return build_site.add_live_figures(
        pages, folder, folder / "static", folder / "frames", **options
    )


def test_a_live_view_becomes_labelled_controls_over_its_picture(course):
    folder, pages = course
    counts = _add_live(folder, pages, render=False)
    assert counts == {"live figures": 1, "pictures": 8}
    (output,) = _lesson(folder, pages).notebook["cells"][2]["outputs"]
    assert output["output_type"] == "display_data" and list(output["data"]) == ["text/html"]
    page = output["data"]["text/html"]
    # heads 1..8, starting at 8: the slider's last index, and its picture's file
    assert '<label for="pe-live-1-n_heads">heads</label>' in page
    assert '<input type="range" id="pe-live-1-n_heads" min="0" max="7" step="1" value="7"' in page
    assert 'src="../_static/live/01_demo-1/7.webp"' in page
    assert 'alt="AlibiHeads with controls: heads = 8"' in page
    assert "That is every value of every control." in page
    assert "In JupyterLab the sliders are continuous" in page
    config = page.split('class="pe-live-config">')[1].split("</script>")[0]
    assert json.loads(config)["controls"] == [
        {"name": "n_heads", "label": "heads", "readouts": list("12345678"), "alone": False}
    ]


def test_a_choice_is_buttons_up_to_four_names_and_a_list_past_them():
    from pe_helpers.lessons.conventions_and_numerics import AngleErrorPerPair
    from pe_helpers.lessons.long_context import PairScaling

    for figure, name, widget in [
        (AngleErrorPerPair, "dtype", 'role="group"'),
        (PairScaling, "preset", "<select"),
    ]:
        start = {n: c.default for n, c in figure.controls.items()}
        axes = tuple(build_site.plan_axes(figure, start))
        cell = build_site.LiveCell("10_demo", 1, f"m.{figure.__name__}", start, "", b"", axes)
        page = build_site.live_html(cell, "../_static/live/10_demo-1/", (10, 10))
        row = page.split(f'data-name="{name}">')[1].split("</div>")[0]
        assert widget in row and figure.controls[name].label in row
        assert all(option in row for option in figure.controls[name].options)


def test_the_live_view_rule_needs_the_call_the_widget_the_picture_and_the_metadata(
    alibi_picture,
):
    output = _live_output(alibi_picture, {"n_heads": 8})
    cell = {"cell_type": "code", "source": "AlibiHeads().view()", "outputs": [output]}
    assert build_site.live_output(cell) is output  # no outputs: live_output's doctest
    assert build_site.live_output({**cell, "source": "AlibiHeads().draw()"}) is None
    assert build_site.live_output({**cell, "cell_type": "markdown"}) is None
    for leave_out in (build_site.WIDGET_MIME, "image/png"):
        data = {k: v for k, v in output["data"].items() if k != leave_out}
        assert build_site.live_output({**cell, "outputs": [{**output, "data": data}]}) is None
    assert build_site.live_output({**cell, "outputs": [{**output, "metadata": {}}]}) is None


def _pixels(picture: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(picture)) as image:
        return np.asarray(image.convert("RGB"))


def test_the_pictures_are_the_figures_own_view_at_every_value(course, alibi_picture):
    folder, pages = course
    counts = _add_live(folder, pages, jobs=1)
    assert counts["pictures"] == counts["pictures drawn"] == 8
    assert counts["not the notebook's picture"] == []
    frames = folder / "static" / "live" / "01_demo-1"
    assert sorted(p.name for p in frames.iterdir()) == [f"{i}.webp" for i in range(8)]
    # The picture at the start is the notebook's, pixel for pixel (lossless WebP)
    assert np.array_equal(_pixels((frames / "7.webp").read_bytes()), _pixels(alibi_picture))
    # Every other picture is what the notebook's view shows at that value
    view = AlibiHeads().view()
    try:
        for heads in (1, 3, 8):
            view.controls["n_heads"].value = heads
            shown = _pixels((frames / f"{heads - 1}.webp").read_bytes())
            assert np.array_equal(shown, _pixels(view.image.value))
    finally:
        view.close()
    pictures = {(frames / f"{i}.webp").read_bytes() for i in range(8)}
    assert len(pictures) == 8


def test_pictures_are_kept_between_builds_and_drawn_again_when_asked(course):
    folder, pages = course
    assert _add_live(folder, pages, jobs=1)["pictures drawn"] == 8
    kept = list((folder / "frames").iterdir())
    assert _add_live(folder, _fresh_pages(folder), jobs=1)["pictures drawn"] == 0
    assert list((folder / "frames").iterdir()) == kept
    assert _add_live(folder, _fresh_pages(folder), jobs=1, fresh=True)["pictures drawn"] == 8


def _fresh_pages(folder: Path) -> dict:
    """The fixture's lesson read again (the build rewrites it in place), with no static/."""
    shutil.rmtree(folder / "static", ignore_errors=True)
    path = folder / "notebooks" / "01_demo.ipynb"
    return {path.resolve(): build_site.Document(path)}


def test_a_figure_that_is_not_the_notebooks_is_reported(course, alibi_picture, capsys):
    folder, pages = course
    lesson = _lesson(folder, pages)
    view = AlibiHeads().view(n_heads=3)
    other = view.image.value
    view.close()
    lesson.notebook["cells"][2]["outputs"] = [_live_output(other, {"n_heads": 8})]
    counts = _add_live(folder, pages, jobs=1)
    assert counts["not the notebook's picture"] == ["01_demo-1"]
    assert "does not draw the notebook's picture" in capsys.readouterr().err


def test_a_stored_view_of_no_live_figure_stops_the_build(course, alibi_picture):
    folder, pages = course
    cell = _lesson(folder, pages).notebook["cells"][2]
    cell["outputs"] = [_live_output(alibi_picture, {}, figure="pe_helpers.live.snapshot")]
    with pytest.raises(ValueError, match="no live figure"):
        _add_live(folder, pages, render=False)


def _defaults(figure: type) -> dict:
    return {name: control.default for name, control in figure.controls.items()}


@pytest.mark.parametrize("figure", live_figures(), ids=lambda c: c.__name__)
def test_every_live_figure_gets_a_grid_within_budget_walked_one_control_at_a_time(figure):
    start = _defaults(figure)
    axes = tuple(build_site.plan_axes(figure, start))
    assert [axis.name for axis in axes] == list(figure.controls)
    for axis in axes:
        control = figure.controls[axis.name]
        assert axis.label == control.label
        assert len(axis.values) >= 2, f"{axis.name}: a control the reader cannot move"
        assert axis.values[axis.start] == control.default
        assert [control.check(axis.name, v) for v in axis.values] == list(axis.values)
        if control.kind != "choice":
            assert list(axis.values) == sorted(set(axis.values))
    count = build_site.grid_size([len(a.values) for a in axes], [a.alone for a in axes])
    assert count <= build_site.MAX_FRAMES
    if not getattr(figure, "site_grid", None):
        assert count <= build_site.FRAME_BUDGET
    for name, values in getattr(figure, "site_grid", {}).items():  # chosen by hand: kept
        chosen = next(axis for axis in axes if axis.name == name).values
        assert set(chosen) == {*values, figure.controls[name].default}
    # The walk draws every picture once, moving one control at a time.
    cell = build_site.LiveCell("01_demo", 1, "m.Demo", start, "", b"", axes)
    path = build_site.walk(cell)
    assert len(path) == len(set(path)) == cell.frames
    assert cell.start_index in path
    alone = [i for i, axis in enumerate(axes) if axis.alone]
    for index in path:  # at most one control of the one-at-a-time ones off its start
        assert sum(index[i] != cell.start_index[i] for i in alone) <= 1
    for before, after in zip(path, path[1:], strict=False):
        moved = [i for i in range(len(axes)) if before[i] != after[i]]
        one_step = len(moved) == 1 and abs(before[moved[0]] - after[moved[0]]) == 1
        assert one_step or set(moved) <= set(alone), (before, after)


def test_a_grid_a_figure_declares_wrong_stops_the_build():
    from pe_helpers.live import LiveFigure, float_control, int_control

    class Demo(LiveFigure):
        controls = {"a": float_control("a", 0.5, 0.0, 1.0, 0.05), "n": int_control("n", 3, 1, 9)}
        site_grid = {"a": (0.0, 1.0)}

    start = {"a": 0.5, "n": 3}  # a grid declared right: plan_axes' doctest
    for wrong in ({"site_grid": {"b": (1,)}}, {"site_one_at_a_time": ("a", "b")}):
        with pytest.raises(ValueError, match="names no control"):
            build_site.plan_axes(type("Wrong", (Demo,), wrong), start)
    with pytest.raises(ValueError, match="two or more"):
        build_site.plan_axes(type("Alone", (Demo,), {"site_one_at_a_time": ("a",)}), start)


def test_the_grids_of_the_rule_refine_each_other_and_keep_the_ends_and_the_start():
    from pe_helpers.live import even_control, float_control, int_control, log_control

    for control, start in [
        (int_control("n", 20, 2, 60), 20),
        (even_control("d", 64, 8, 128), 64),
        (float_control("t", 0.5, 0.0, 1.0, 0.05), 0.5),
        (log_control("base", 1e4, 10.0, 1e6), 1e4),
        (int_control("offset", 0, 0, 10000, 100), 0),
    ]:
        levels = build_site.value_levels(control, start)
        assert [len(g) for g in levels] == sorted({len(g) for g in levels})
        for grid in levels:
            assert {control.minimum, control.maximum, start} <= set(grid)
        assert len(levels[-1]) == build_site.slider_count(control)


@pytest.mark.parametrize("name", [build_site.__name__, "navigation"])
def test_the_site_scripts_examples_hold(name):
    # The anchor rules (jupyterlab_anchor, navigation's github_anchor) are pinned there.
    result = doctest.testmod(sys.modules[name], optionflags=doctest.ELLIPSIS)
    assert result.attempted and not result.failed


def _needs_mathjax() -> None:
    # The site extra brings MathJax; .venv-oldest (`make test-oldest`) installs only [test].
    pytest.importorskip("mathjax", reason="the site extra is not installed: run make site")


def _course_pages(root: Path) -> tuple[list[Path], list[Path]]:
    """The notebooks and docs of the course at ``root`` (no checkpoint copy of JupyterLab's)."""
    return (
        sorted(root.glob("notebooks/*.ipynb")) + sorted(root.glob("notebooks/solutions/*.ipynb")),
        sorted(root.glob("docs/*.md")),
    )


def test_the_real_course_prepares_with_every_link_and_live_view_leaving_it_alone(
    tmp_path, monkeypatch
):
    _needs_mathjax()
    monkeypatch.delenv(build_site.SOLUTIONS_SET, raising=False)
    notebooks, docs = _course_pages(ROOT)
    before = {p: p.read_bytes() for p in notebooks}
    counts = build_site.prepare(tmp_path, render=False)
    assert {p: p.read_bytes() for p in notebooks} == before  # the committed notebooks
    assert counts["pages"] == len(notebooks) + len(docs) + 1  # and the solutions page
    views, calls = 0, 0
    for path in notebooks:
        for cell in json.loads(path.read_text())["cells"]:
            views += build_site.live_output(cell) is not None
            source = "".join(cell["source"])
            calls += cell["cell_type"] == "code" and ".view(" in source and "def " not in source
    # Every cell that makes a view stores it (an unrun one would lose its sliders silently)
    assert counts["live figures"] == views == calls >= 13
    assert counts["pictures"] <= 1200
    assert counts["links rewritten"] > 100
    index = json.loads((tmp_path / "src" / "notebooks" / "00_index.ipynb").read_text())
    contents = index["cells"][-1]["source"]
    lessons = [p.stem for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))][1:]
    positions = [contents.index(f"\n{stem}\n") for stem in lessons]
    assert positions == sorted(positions)
    assert contents.index("/docs/instructor_guide") < contents.index("solutions/index")
    assert (tmp_path / "static" / "mathjax" / "tex-chtml.js").is_file()
    # The solutions are pages that stay out of the site's search: Sphinx indexes a page with
    # `nosearch` metadata under no word.
    src = tmp_path / "src"
    solutions = sorted((src / "notebooks" / "solutions").glob("*.ipynb"))
    assert len(solutions) == len(notebooks) - len(list(ROOT.glob("notebooks/*.ipynb")))
    for path in solutions:
        assert json.loads(path.read_text())["metadata"]["nosearch"] is True, path.name
    listing = (src / "notebooks" / "solutions" / "index.md").read_text()
    assert listing.startswith(build_site.NO_SEARCH)
    for path in [*(src / "notebooks").glob("*.ipynb"), *(src / "docs").glob("*.md")]:
        text = path.read_text()
        assert "nosearch" not in (json.loads(text)["metadata"] if path.suffix == ".ipynb" else text)


def test_the_checkpoints_jupyterlab_writes_are_no_pages(course_after_lab, tmp_path, monkeypatch):
    # `make lab`, then `make site` / `make test`: JupyterLab's copies sit beside the notebooks.
    _needs_mathjax()
    notebooks, docs = _course_pages(course_after_lab)
    kernels = build_site.notebook_kernels(ROOT / "notebooks")
    monkeypatch.setattr(build_site, "ROOT", course_after_lab)
    counts = build_site.prepare(tmp_path / "work", render=False)
    assert counts["pages"] == len(notebooks) + len(docs) + 1
    written = [p.relative_to(tmp_path / "work") for p in (tmp_path / "work").rglob("*")]
    assert not [p for p in written if ".ipynb_checkpoints" in p.parts]
    # A stale checkpoint's kernels are not the notebooks' (the build would warn of a mismatch).
    assert build_site.notebook_kernels(course_after_lab / "notebooks") == kernels


@pytest.mark.parametrize("how", ["environment", "argument"])
def test_a_site_for_a_graded_class_has_no_solutions(tmp_path, monkeypatch, how):
    _needs_mathjax()
    if how == "environment":
        monkeypatch.setenv(build_site.SOLUTIONS_SET, "0")
        counts = build_site.prepare(tmp_path, render=False)
    else:
        monkeypatch.delenv(build_site.SOLUTIONS_SET, raising=False)
        counts = build_site.prepare(tmp_path, render=False, solutions=False)
    src = tmp_path / "src"
    assert not (src / "notebooks" / "solutions").exists()
    docs = _course_pages(ROOT)[1]
    assert counts["pages"] == len(list(ROOT.glob("notebooks/*.ipynb"))) + len(docs)
    index = json.loads((src / "notebooks" / "00_index.ipynb").read_text())
    assert "solutions" not in index["cells"][-1]["source"]  # no Solutions in the contents
    # A link to a solution is now text naming the file in the repository, as for README.md.
    written = [*(src / "notebooks").glob("*.ipynb"), *(src / "docs").glob("*.md")]
    text = "\n".join(p.read_text() for p in written)
    assert "](solutions/" not in text and "](../notebooks/solutions/" not in text
    assert "in the course's repository" in text


def test_a_script_restarts_under_the_kernels_the_notebooks_record(monkeypatch, capsys):
    # os.execve is replaced: what the script would be started again with is recorded.
    from pe_helpers.seeds import cpu_kernels, kernels_env

    started = []
    monkeypatch.setattr(build_site.os, "execve", lambda *args: started.append(args))
    monkeypatch.delenv("PE_TEST_MARK", raising=False)
    other = {"numpy_simd": ["X86_V3"], "openblas_core": "Haswell"}
    if cpu_kernels() == other:
        other = {"numpy_simd": [], "openblas_core": "Nehalem"}
    env = kernels_env(other)
    monkeypatch.setattr(build_site, "notebook_kernels", lambda: other)
    build_site.restart_under_notebook_kernels("s.py", ["a"], "PE_TEST_MARK", "x {here}")
    if env is None:  # this CPU lacks them: a warning, no restart
        assert not started and "which this CPU lacks" in capsys.readouterr().err
    else:
        ((executable, args, environ),) = started
        assert args[1:] == ["s.py", "a"] and environ["PE_TEST_MARK"] == "1"
        assert all(environ[k] == v for k, v in env.items())
    started.clear()
    monkeypatch.setattr(build_site, "notebook_kernels", lambda: None)  # notebooks disagree
    build_site.restart_under_notebook_kernels("s.py", ["a"], "PE_TEST_MARK", "runs with {here}")
    err = capsys.readouterr().err
    assert not started and "record different CPU kernels" in err and str(cpu_kernels()) in err
    monkeypatch.setattr(build_site, "notebook_kernels", lambda: cpu_kernels())  # the same: stay
    build_site.restart_under_notebook_kernels("s.py", ["a"], "PE_TEST_MARK", "")
    assert not started and capsys.readouterr().err == ""
