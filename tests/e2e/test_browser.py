"""Drive every lesson in a real browser: JupyterLab 4 + ipywidgets 8 in headless Chromium.

For each notebook: open it, wait for an idle kernel, Run All, assert no cell shows
an error, move the first slider with the keyboard, assert its label and picture
changed, and save a screenshot under ``test-artifacts/e2e/``. Every lesson also
measures the pictures drawn during a mouse drag over its first slider (a new value on
every move); the figures land in ``test-artifacts/e2e/drag_fps.json`` (one entry per lesson).

Chromium and the server come from ``browser_support.py``; without Chromium the tests skip
with install instructions, unless ``PE_REQUIRE_BROWSER=1`` (set by ``.ci/run``).
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from browser_support import (
    ERROR_OUTPUTS,
    ROOT,
    chromium,
    require_browser,
    run_all,
    running_lab,
    wait_idle,
)

from pe_helpers.lessons import lessons

ARTIFACTS = ROOT / "test-artifacts" / "e2e"
LESSONS = [lesson.notebook.name for lesson in lessons()]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on 127.0.0.1, random port and token, serving a copy of notebooks/."""
    require_browser()
    work = tmp_path_factory.mktemp("lab")
    served = work / "notebooks"
    shutil.copytree(ROOT / "notebooks", served)
    with running_lab(served, work) as server:
        yield server | {"served": served}


@pytest.fixture(scope="module")
def browser(lab):
    (ARTIFACTS / "drag_fps.json").unlink(missing_ok=True)
    with chromium() as session:
        yield session


def _open(browser, lab, name: str):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{lab['url']}/lab/tree/{name}?reset&token={lab['token']}")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    wait_idle(page)
    return page


@pytest.mark.parametrize("name", LESSONS)
def test_lesson_runs_and_its_slider_redraws(browser, lab, name):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page = _open(browser, lab, name)
    try:
        run_all(page)
        errors = page.locator(ERROR_OUTPUTS)
        assert errors.count() == 0, f"{name}: error output: {errors.first.inner_text()[:500]}"
        sliders = page.locator(".jp-OutputArea .widget-slider")
        static_figures = page.locator(".jp-OutputArea .jp-RenderedImage img")
        if name == "00_index.ipynb":
            page.screenshot(path=str(ARTIFACTS / f"{Path(name).stem}.png"), full_page=True)
            return
        assert sliders.count() > 0, f"{name}: no slider rendered after Run All"
        assert static_figures.count() > 0, f"{name}: no inline figure shown after Run All"
        slider = sliders.first
        slider.scroll_into_view_if_needed()
        view = slider.locator("xpath=ancestor::div[contains(@class,'widget-vbox')][1]")
        image = view.locator("img").first
        image.wait_for(state="visible", timeout=30_000)
        readout = slider.locator(".widget-readout")
        before_label = readout.inner_text()
        before_src = image.get_attribute("src")
        before_png = image.screenshot()
        handle = slider.locator(".noUi-handle").first
        handle.focus()
        # A slider that starts at its maximum (for example all heads shown) moves left.
        at_max = handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemax")
        for _ in range(3):
            handle.press("ArrowLeft" if at_max else "ArrowRight")
        page.wait_for_function(
            "([img, src]) => img.getAttribute('src') !== src",
            arg=[image.element_handle(), before_src],
            timeout=30_000,
        )
        wait_idle(page)
        time.sleep(0.3)
        assert readout.inner_text() != before_label, f"{name}: slider label did not change"
        assert image.screenshot() != before_png, f"{name}: picture did not change"
        view.screenshot(path=str(ARTIFACTS / f"{Path(name).stem}_slider.png"))
        page.screenshot(path=str(ARTIFACTS / f"{Path(name).stem}.png"))
        _measure_drag(page, slider, image, name)
    finally:
        page.close()


def _drag_fractions(n_values: int, moves: int) -> list[float]:
    """Where on the track each move of a drag lands: a new slider value every move.

    A slider with few values (a preset, a head count) would otherwise turn a 60-move drag
    into a handful of changes and count its own granularity, not the speed of the picture.
    The drag sweeps back and forth over the values (at most 30 per sweep), one value apart.
    """
    last = max(n_values - 1, 1)
    stride = max(1, round(last / 30))
    index, direction, fractions = 0, 1, []
    for _ in range(moves):
        if not 0 <= index + direction * stride <= last:
            direction = -direction
        index += direction * stride
        fractions.append(index / last)
    return fractions


def _measure_drag(page, slider, image, name: str) -> None:
    """Drag the slider to a new value on each of 60 moves, one every 40 ms; count the pictures.

    The moves are paced by the clock (25 a second, or as fast as the browser takes them), so
    the drag asks for more pictures than a kernel step can draw and the count measures the
    picture, not the hand. Frames per second = pictures that arrived / time from the first move
    to the last picture (pictures still queued when the drag ends are waited for and counted);
    the rate the moves were actually sent at is recorded beside it.
    """
    page.evaluate(
        """(img) => {
            window.__frames = [];
            new MutationObserver(() => window.__frames.push(performance.now()))
                .observe(img, {attributes: true, attributeFilter: ['src']});
        }""",
        image.element_handle(),
    )
    target = slider.locator(".noUi-target").first
    low, high, step = target.evaluate(
        "el => [el.noUiSlider.options.range.min, el.noUiSlider.options.range.max,"
        " el.noUiSlider.options.step]"
    )
    n_values = int(round((high - low) / step)) + 1
    fractions = _drag_fractions(n_values, moves=60)
    # The browser sends the moves itself, on its own clock: driving each one from here costs
    # a round trip (60-90 ms under load), which would cap the drag near 12 moves a second.
    start, sent = target.evaluate(
        """async (el, fractions) => {
            const handle = el.querySelector('.noUi-handle');
            const track = el.getBoundingClientRect();
            const box = handle.getBoundingClientRect();
            const y = box.top + box.height / 2;
            const root = document.documentElement;  // where noUiSlider listens during a drag
            const mouse = (type, x, on) => on.dispatchEvent(new MouseEvent(type, {
                bubbles: true, cancelable: true, view: window, clientX: x, clientY: y,
                button: 0, buttons: type === 'mouseup' ? 0 : 1}));
            mouse('mousedown', box.left + box.width / 2, handle);
            const start = performance.now();
            for (let i = 0; i < fractions.length; i++) {
                await new Promise(r => setTimeout(r, start + 40 * (i + 1) - performance.now()));
                mouse('mousemove', track.left + track.width * fractions[i], root);
            }
            const sent = performance.now();
            mouse('mouseup', track.left + track.width * fractions.at(-1), root);
            return [start, sent];
        }""",
        fractions,
    )
    moves_per_second = len(fractions) / max((sent - start) / 1000, 1e-9)
    # Pictures requested during the drag keep arriving briefly after it: wait for quiet.
    count = -1
    while count != page.evaluate("window.__frames.length"):
        count = page.evaluate("window.__frames.length")
        page.wait_for_timeout(1000)
    frames = count
    last = page.evaluate("window.__frames.length ? Math.max(...window.__frames) : 0")
    seconds = (last - start) / 1000 if frames else 0.0
    fps = frames / seconds if seconds else 0.0
    record = ARTIFACTS / "drag_fps.json"
    results = json.loads(record.read_text()) if record.exists() else {}
    results[name] = {"frames": frames, "seconds": round(seconds, 2), "fps": round(fps, 1),
                     "slider_values": n_values, "moves_per_second": round(moves_per_second, 1)}
    record.write_text(json.dumps(dict(sorted(results.items())), indent=2))
    print(f"\nbrowser drag on {name}: {frames} frames in {seconds:.2f} s = {fps:.1f} frames/s "
          f"({moves_per_second:.0f} moves/s)")
    assert frames > 0, "no picture arrived during the drag"


@pytest.mark.parametrize("n_values", [2, 6, 33, 200])
def test_every_move_of_the_measured_drag_lands_on_a_new_value(n_values):
    fractions = _drag_fractions(n_values, moves=60)
    values = [round(f * (n_values - 1)) for f in fractions]
    assert len(fractions) == 60 and all(0 <= f <= 1 for f in fractions)
    assert all(a != b for a, b in zip(values, values[1:], strict=False))
    assert len(set(values)) == min(n_values, 31) or n_values > 31
