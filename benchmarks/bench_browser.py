"""Benchmark: each lesson's Run All in JupyterLab against the index's, and its slider's drag.

In headless Chromium (``$PE_CHROMIUM``, default Debian's ``/usr/bin/chromium``) against a
JupyterLab on 127.0.0.1 serving a copy of ``notebooks/``, for every lesson:

* **Run All**: the wall time from opening its page (the page, the kernel's start) through
  Run > Run All Cells to the last cell done and the kernel idle, as a ratio to the same for the
  index (the floor: a page, a kernel start and one import). Target 3x.
* **cells**: the wait a room sees after Run All, page and kernel start excluded (from the
  menu click to the last cell done and the kernel idle), and its ratio to the index's cells.
  Target :data:`CELLS_TARGET` (12 s on a quiet 2-core machine, issue 39).

Then a mouse drag over the lesson's first slider, a new value on every move (60 moves, one
every 40 ms): pictures that arrived per second. Figures also land in
``test-artifacts/e2e/browser_bench.json``.

Usage: python benchmarks/bench_browser.py [NN_slug.ipynb ...]; ``PE_DRAG_LABEL=text`` drags the
first slider whose label holds ``text`` where a lesson has one (a paired run of two versions);
``PE_BENCH_ROUNDS=n`` runs each notebook ``n`` times and keeps the fastest Run All and cells
(on a shared machine the fastest round is the one least stretched by other work).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "e2e"))  # the browser suites' shared helpers

from browser_support import (  # noqa: E402
    ERROR_OUTPUTS,
    chromium,
    open_notebook,
    require_browser,
    run_all,
    running_lab,
)

from pe_helpers.lessons import lessons  # noqa: E402

TARGET = 3.0
#: Seconds a lesson's cells may take after Run All, page and kernel start excluded.
CELLS_TARGET = 12.0
#: Runs of each notebook; the fastest is kept.
ROUNDS = max(1, int(os.environ.get("PE_BENCH_ROUNDS", "1")))
ARTIFACTS = ROOT / "test-artifacts" / "e2e"


def drag_fractions(n_values: int, moves: int) -> list[float]:
    """Where on the track each move of a drag lands: a new slider value every move.

    A slider with few values (a preset, a head count) would otherwise turn a 60-move drag
    into a handful of changes and count its own granularity, not the speed of the picture.
    The drag sweeps back and forth over the values (at most 30 per sweep), one value apart.

    Examples
    --------
    >>> values = [round(f * 5) for f in drag_fractions(6, moves=12)]
    >>> all(a != b for a, b in zip(values, values[1:]))
    True
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


def measure_drag(page, slider, image) -> dict:
    """Drag the slider to a new value on each of 60 moves, one every 40 ms; count the pictures.

    The moves are paced by the browser's clock, so the drag asks for more pictures than a
    kernel step can draw and the count measures the picture, not the hand. Frames per second
    = pictures that arrived / time from the first move to the last picture (pictures still
    queued when the drag ends are waited for and counted).
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
    fractions = drag_fractions(n_values, moves=60)
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
    count = -1
    while count != page.evaluate("window.__frames.length"):  # late pictures still count
        count = page.evaluate("window.__frames.length")
        page.wait_for_timeout(1000)
    last = page.evaluate("window.__frames.length ? Math.max(...window.__frames) : 0")
    seconds = (last - start) / 1000 if count else 0.0
    return {
        "frames": count,
        "fps": round(count / seconds, 1) if seconds else 0.0,
        "moves_per_second": round(len(fractions) / max((sent - start) / 1000, 1e-9), 1),
    }


#: Drag the first slider whose label holds this text instead of a lesson's first slider (for
#: a paired run of two versions whose first sliders differ): ``PE_DRAG_LABEL="factor s"``.
DRAG_LABEL = os.environ.get("PE_DRAG_LABEL", "")


def bench_lesson(browser, lab, name: str, drag: bool = True) -> dict:
    """Run All and cells time of one lesson (and its first slider's drag, if it has one)."""
    start = time.perf_counter()  # as a learner meets it: open the page, kernel start, Run All
    page = open_notebook(browser, lab, name)
    try:
        opened = time.perf_counter()
        run_all(page)
        done = time.perf_counter()
        result = {"run_all_s": round(done - start, 2), "cells_s": round(done - opened, 2)}
        errors = page.locator(ERROR_OUTPUTS)
        if errors.count():
            raise RuntimeError(f"{name}: error output: {errors.first.inner_text()[:300]}")
        sliders = page.locator(".jp-OutputArea .widget-slider")
        if DRAG_LABEL and sliders.filter(has_text=DRAG_LABEL).count():
            sliders = sliders.filter(has_text=DRAG_LABEL)  # the same slider in two versions
        if drag and sliders.count():
            slider = sliders.first
            slider.scroll_into_view_if_needed()
            view = slider.locator("xpath=ancestor::div[contains(@class,'widget-vbox')][1]")
            result |= measure_drag(page, slider, view.locator("img").first)
        return result
    finally:
        page.close()


def fastest(browser, lab, name: str) -> dict:
    """:func:`bench_lesson` over :data:`ROUNDS` runs: the fastest Run All and cells, one drag."""
    result = bench_lesson(browser, lab, name)
    for _ in range(ROUNDS - 1):
        again = bench_lesson(browser, lab, name, drag=False)
        for key in ("run_all_s", "cells_s"):
            result[key] = min(result[key], again[key])
    return result


def main(argv: list[str]) -> int:
    require_browser()
    chosen = set(argv)
    names = [lesson.notebook.name for lesson in lessons()]
    index, rest = names[0], [n for n in names[1:] if not chosen or n in chosen]
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        shutil.copytree(ROOT / "notebooks", work / "notebooks")
        with running_lab(work / "notebooks", work) as lab, chromium() as browser:
            bench_lesson(browser, lab, index)  # warm up: the first kernel start is slower
            first = fastest(browser, lab, index)
            floor, floor_cells = first["run_all_s"], max(first["cells_s"], 0.01)
            print(
                f"{index} Run All (floor): {floor:.1f} s (1.00x); cells {floor_cells:.1f} s (1.0x)"
            )
            for name in rest:
                results[name] = result = fastest(browser, lab, name)
                ratio = result["run_all_s"] / floor
                cells_ratio = result["cells_s"] / floor_cells
                mark = "" if ratio <= TARGET else f"  (over the {TARGET:g}x target)"
                cells_mark = (
                    "" if result["cells_s"] <= CELLS_TARGET else f" (over {CELLS_TARGET:g} s)"
                )
                drag = f"; drag {result['fps']:.1f} frames/s" if "fps" in result else ""
                print(
                    f"{name} Run All: {result['run_all_s']:.1f} s ({ratio:.2f}x floor){mark};"
                    f" cells {result['cells_s']:.1f} s ({cells_ratio:.1f}x the index's cells)"
                    f"{cells_mark}{drag}",
                    flush=True,
                )
                result["ratio"] = round(ratio, 2)
                result["cells_ratio"] = round(cells_ratio, 1)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "browser_bench.json").write_text(
        json.dumps(
            {"index_run_all_s": floor, "index_cells_s": floor_cells, "lessons": results},
            indent=2,
        )
    )
    worst = max((r["ratio"] for r in results.values()), default=0.0)
    print(f"worst Run All: {worst:.2f}x the index's (target {TARGET:g}x)")
    slowest = max((r["cells_s"] for r in results.values()), default=0.0)
    print(f"slowest cells after Run All: {slowest:.1f} s (target {CELLS_TARGET:g} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
