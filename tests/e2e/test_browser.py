"""The course's live figures in the real front end: JupyterLab 4 + ipywidgets 8 in Chromium.

What only this suite proves (strict nbval already proves every notebook prints what is stored,
and tests/test_core.py that every slider step equals a fresh static figure in the kernel):
the front end renders each live figure's view, and moving each of its controls brings a new
picture. So instead of re-running every lesson, it serves one generated page that builds every
live figure of the course, one cell each, and moves every control of every view with the
keyboard (or a click, for a choice). One real lesson also runs top to bottom, so a lesson
notebook's own cells are seen to run without an error in the browser.

Timings (each lesson's Run All against the index's, drag frames per second) are measured by
``benchmarks/bench_browser.py`` (``make bench``), not here.

Chromium and the server come from ``browser_support.py``; without Chromium the tests skip
with install instructions, unless ``PE_REQUIRE_BROWSER=1`` (set by ``.ci/run``).
"""

from __future__ import annotations

import shutil
import time

import nbformat
import pytest
from browser_support import (
    ERROR_OUTPUTS,
    ROOT,
    chromium,
    open_notebook,
    require_browser,
    run_all,
    running_lab,
    wait_idle,
)

from pe_helpers.lessons import lessons, live_figures

ARTIFACTS = ROOT / "test-artifacts" / "e2e"
FIGURES = [(cls.__module__, cls.__qualname__, len(cls.controls)) for cls in live_figures()]
PAGE = "every_live_figure.ipynb"
#: The real lesson run top to bottom: short, with static figures, a live view and exercises.
LESSON = "01_why_position.ipynb"


def _every_live_figure_notebook() -> nbformat.NotebookNode:
    """One code cell per live figure of the course: its view at the default values."""
    cells = [nbformat.v4.new_markdown_cell("Every live figure of the course, one per cell.")]
    for module, name, _ in FIGURES:
        cells.append(nbformat.v4.new_code_cell(f"from {module} import {name}\n{name}().view()"))
    kernel = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": kernel})


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on 127.0.0.1, random port and token, serving a copy of notebooks/."""
    require_browser()
    work = tmp_path_factory.mktemp("lab")
    served = work / "notebooks"
    shutil.copytree(ROOT / "notebooks", served)
    nbformat.write(_every_live_figure_notebook(), served / PAGE)
    with running_lab(served, work) as server:
        yield server


@pytest.fixture(scope="module")
def browser(lab):
    with chromium() as session:
        yield session


def test_the_page_holds_every_live_figure_the_lessons_show():
    sources = "\n".join(
        cell.source
        for lesson in lessons()
        for cell in nbformat.read(lesson.notebook, as_version=4).cells
        if cell.cell_type == "code"
    )
    assert sources.count(".view(") == len(FIGURES) >= 13  # one view per live figure
    assert all(name in sources for _, name, _ in FIGURES)
    assert all(n_controls >= 1 for *_, n_controls in FIGURES)
    assert len(_every_live_figure_notebook().cells) == len(FIGURES) + 1


def _move(control, kind: str) -> str:
    """Move one control to another value; return what it then reads."""
    if kind == "slider":
        handle = control.locator(".noUi-handle").first
        handle.focus()
        # A slider that starts at its maximum (for example all heads shown) moves left.
        at_max = handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemax")
        for _ in range(3):
            handle.press("ArrowLeft" if at_max else "ArrowRight")
        return control.locator(".widget-readout").inner_text()
    if kind == "toggle":
        # Read the name before the click: the locator is re-evaluated, and once clicked the
        # button is the active one (so "the first inactive" would then be another).
        choice = control.locator("button:not(.mod-active)").first.element_handle()
        name = choice.inner_text()
        choice.click()
        return name
    select = control.locator("select")
    options = select.locator("option").all_inner_texts()
    other = next(o for o in options if o != select.input_value())
    select.select_option(label=other)
    return other


def _controls(view) -> list[tuple[object, str]]:
    found = [(c, "slider") for c in view.locator(".widget-slider").all()]
    found += [(c, "toggle") for c in view.locator(".widget-toggle-buttons").all()]
    found += [(c, "dropdown") for c in view.locator(".widget-dropdown").all()]
    return found


def _read(control, kind: str) -> str:
    if kind == "slider":
        return control.locator(".widget-readout").inner_text()
    if kind == "toggle":
        return control.locator("button.mod-active").inner_text()
    return control.locator("select").input_value()


def test_every_control_of_every_live_figure_redraws_it(browser, lab):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page = open_notebook(browser, lab, PAGE)
    try:
        run_all(page)
        errors = page.locator(ERROR_OUTPUTS)
        assert errors.count() == 0, f"error output: {errors.first.inner_text()[:500]}"
        views = page.locator(".jp-CodeCell")
        assert views.count() == len(FIGURES)
        for index, (module, name, n_controls) in enumerate(FIGURES):
            view = views.nth(index).locator(".jp-OutputArea .widget-vbox").first
            view.scroll_into_view_if_needed()
            image = view.locator("img").first
            image.wait_for(state="visible", timeout=30_000)
            controls = _controls(view)
            assert len(controls) == n_controls, f"{name}: {len(controls)} controls shown"
            for number, (control, kind) in enumerate(controls):
                before = _read(control, kind), image.get_attribute("src"), image.screenshot()
                now = _move(control, kind)
                page.wait_for_function(
                    "([img, src]) => img.getAttribute('src') !== src",
                    arg=[image.element_handle(), before[1]],
                    timeout=30_000,
                )
                wait_idle(page)
                time.sleep(0.2)
                where = f"{module}.{name}, control {number} ({kind})"
                assert now != before[0], f"{where}: the control did not change"
                assert image.screenshot() != before[2], f"{where}: the picture did not change"
            view.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    finally:
        page.close()


#: The cell of LESSON that shows its live figure, and that figure's sliders.
LIVE_CELL, LIVE_SLIDERS = "RecurrenceWeights().view(", 2


def _live_cell_state(page) -> dict:
    """What the live figure's cell of LESSON shows: pictures, sliders, widget errors."""
    cell = page.locator(".jp-CodeCell", has_text=LIVE_CELL)
    assert cell.count() == 1, f"{LESSON}: {cell.count()} cells call {LIVE_CELL}"
    output = cell.locator(".jp-OutputArea")
    return {
        "pictures": output.locator("img").count(),  # stored picture or the widget's own
        "stored": output.locator(".jp-RenderedImage img").count(),
        "sliders": output.locator(".widget-slider").count(),
        "error": "Error displaying widget" in output.inner_text(),
    }


def test_a_lesson_runs_top_to_bottom_with_its_slider(browser, lab):
    # Opened before it runs (as a learner's fresh copy is: not trusted yet), the live figure's
    # one cell shows its stored picture; after Run All the same cell holds the sliders and
    # the live picture instead, once: never two pictures of the figure, never a widget error.
    page = open_notebook(browser, lab, LESSON)
    try:
        before = _live_cell_state(page)
        assert before == {"pictures": 1, "stored": 1, "sliders": 0, "error": False}, before
        run_all(page)
        errors = page.locator(ERROR_OUTPUTS)
        assert errors.count() == 0, f"{LESSON}: error output: {errors.first.inner_text()[:500]}"
        assert page.locator(".jp-OutputArea .jp-RenderedImage img").count() > 0
        page.locator(".jp-CodeCell", has_text=LIVE_CELL).locator(".widget-slider").first.wait_for()
        after = _live_cell_state(page)
        assert after == {"pictures": 1, "stored": 0, "sliders": LIVE_SLIDERS, "error": False}, after
        page.screenshot(path=str(ARTIFACTS / "01_why_position.png"))
    finally:
        page.close()


def test_nbconvert_html_shows_each_live_figure_as_its_picture(browser, tmp_path):
    # No kernel and no widget state: nbconvert's HTML shows the stored picture of the cell.
    import subprocess
    import sys

    source = ROOT / "notebooks" / LESSON
    subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", str(source),
         "--output-dir", str(tmp_path)],
        check=True, capture_output=True,
    )  # fmt: skip
    page = browser.new_page()
    try:
        page.route("http*://**", lambda route: route.abort())  # offline: nothing but the file
        page.goto((tmp_path / LESSON.replace(".ipynb", ".html")).as_uri())
        cell = page.locator(".jp-CodeCell", has_text=LIVE_CELL)
        assert cell.count() == 1
        pictures = cell.locator(".jp-OutputArea img")
        assert pictures.count() == 1
        assert pictures.first.evaluate("img => img.naturalWidth") > 300
        assert "Error displaying widget" not in cell.inner_text()
    finally:
        page.close()


#: The Chinese edition's lesson: the same notebook, generated (scripts/i18n.py) in Chinese.
ZH_LESSON = "zh/01_why_position.ipynb"


def test_a_chinese_lesson_runs_in_chinese_its_sliders_move_and_a_wrong_answer_is_told_in_chinese(
    browser, lab
):
    import re

    cjk = re.compile(r"[\u3400-\u9fff]")
    page = open_notebook(browser, lab, ZH_LESSON)
    try:
        run_all(page)
        errors = page.locator(ERROR_OUTPUTS)  # a missing glyph would warn on stderr here
        assert errors.count() == 0, f"{ZH_LESSON}: {errors.first.inner_text()[:500]}"
        cell = page.locator(".jp-CodeCell", has_text=LIVE_CELL)
        cell.locator(".widget-slider").first.wait_for()
        labels = cell.locator(".widget-label").all_inner_texts()
        assert labels and all(cjk.search(label) for label in labels if label.strip()), labels
        picture = cell.locator(".jp-OutputArea img").first
        before = picture.get_attribute("src")
        for control, kind in _controls(cell):
            _move(control, kind)
        page.wait_for_function(
            "([img, old]) => img.getAttribute('src') !== old",
            arg=[picture.element_handle(), before],
            timeout=30_000,
        )
        page.screenshot(path=str(ARTIFACTS / "zh_01_why_position.png"))
        # A wrong answer to the last exercise: the checker answers in Chinese.
        exercise = page.locator(".jp-CodeCell", has_text="check_steps_until_faded(steps_until")
        cell = exercise.first.element_handle()  # the cell, whatever text it holds next
        exercise.first.locator(".cm-content").click()
        page.keyboard.press("Control+a")
        page.keyboard.type("check_steps_until_faded(3)")
        page.keyboard.press("Shift+Enter")
        page.wait_for_function(
            "cell => (cell.querySelector('.jp-OutputArea')?.innerText || '').includes('✗')",
            arg=cell,
            timeout=60_000,
        )
        told = cell.query_selector(".jp-OutputArea").inner_text()
        assert cjk.search(told), told
        page.screenshot(path=str(ARTIFACTS / "zh_01_wrong_answer.png"))
    finally:
        page.close()
