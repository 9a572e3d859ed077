"""Benchmark: building the course's website, its size, its largest page and its live figures.

Times a fresh rebuild of ``build/site`` (``scripts/build_site.py --fresh``: every page made
anew and every live figure's pictures drawn again, as on a fresh checkout), then a rebuild
that keeps the pictures (what ``make site`` does after an edit to the text), and weighs the
site. Then serves it on 127.0.0.1 and opens every page in headless Chromium with an empty
cache, several times each for the largest page (HTML plus its pictures): a page is "ready"
when its load event has fired and MathJax has typeset every formula. Last, for every live
figure, how long a slider move takes to show its picture once the pictures one step away
are loaded (the page fetches them when the reader reaches for the figure): from the
slider's ``input`` event to the first frame painted with the new picture in place (the
machine's load average is printed beside it: a busy machine delays the browser's frames).
Prints each figure against its target: fresh build <= 3 min, site <= 60 MB, largest page
<= 3 s, a move <= 50 ms (nine moves in ten: the 90th percentile over every figure).

Usage: python benchmarks/bench_site.py [--repeats N] [--moves N]   (or ``make bench-site``)
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "build" / "site"
CHROMIUM = os.environ.get("PE_CHROMIUM", "/usr/bin/chromium")
BUILD_TARGET_S = 180.0
SIZE_TARGET_MB = 60.0
PAGE_TARGET_S = 3.0
MOVE_TARGET_MS = 50.0

#: One move of a figure's first slider, timed in the page: the slider's value is set and its
#: ``input`` event sent (what a drag or a key does), then the clock runs until the new
#: picture's <img> is in place and the next frame has been painted.
TIMED_MOVES = """async (root, moves) => {
    const slider = root.querySelector('input[type="range"]');
    root.dispatchEvent(new PointerEvent('pointerenter'));  // the reader reaches for it
    const shown = () => root.querySelector('img.pe-live-picture').src
        .endsWith('/' + root.dataset.state + '.webp');
    const times = [];
    for (let m = 0; m < moves; m++) {
        await new Promise(done => setTimeout(done, 800));  // the neighbours arrive
        const at = Number(slider.value);
        const to = at + 1 <= Number(slider.max) && m % 4 < 2 ? at + 1 : at - 1;
        // the page puts the new picture's <img> in place once it is decoded
        const swapped = new Promise(done => {
            const watch = new MutationObserver(() => {
                if (shown()) { watch.disconnect(); done(); }
            });
            watch.observe(root, {childList: true, subtree: true});
        });
        const start = performance.now();
        slider.value = String(to);
        slider.dispatchEvent(new Event('input', {bubbles: true}));
        await swapped;
        await new Promise(done => requestAnimationFrame(() => setTimeout(done, 0)));  // painted
        times.push(performance.now() - start);
    }
    return times;
}"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


def timed_build(*flags: str) -> float:
    """Seconds ``scripts/build_site.py`` takes with ``flags``; its summary line is printed."""
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_site.py"), *flags],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        print(result.stdout, result.stderr, sep="\n")
        raise SystemExit("the site did not build; the benchmark needs a building site")
    print(f"  {result.stdout.splitlines()[0]}")
    return time.perf_counter() - start


def pages() -> list[str]:
    """Every page of the site (not the root index.html, which only redirects)."""
    found = (p.relative_to(SITE) for p in SITE.rglob("*.html"))
    return sorted(p.as_posix() for p in found if p.parts[0] != "_static" and len(p.parts) > 1)


def weight(page: str) -> int:
    """Bytes of a page's HTML plus the pictures it shows."""
    html = SITE / page
    text = html.read_text(encoding="utf-8")
    pictures = {html.parent / unquote(src) for src in re.findall(r'<img[^>]+src="([^"]+)"', text)}
    return html.stat().st_size + sum(p.stat().st_size for p in pictures if p.is_file())


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def ready_seconds(browser, url: str) -> tuple[float, float]:
    """Open ``url`` in a fresh context (empty cache); return (load event, maths typeset) in s."""
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    page = context.new_page()
    page.route("**/*", lambda r: r.continue_() if "//127.0.0.1:" in r.request.url else r.abort())
    try:
        page.goto(url, wait_until="load")
        load = page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
        math = load
        if page.locator(".math.notranslate").count():
            page.wait_for_function(
                "() => window.MathJax && MathJax.startup && MathJax.startup.promise"
            )
            math = page.evaluate("() => MathJax.startup.promise.then(() => performance.now())")
        return load / 1000, max(load, math) / 1000
    finally:
        context.close()


def move_times(browser, url: str, moves: int) -> dict[str, list[float]]:
    """Milliseconds of ``moves`` moves of the first slider of every live figure on ``url``."""
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    page = context.new_page()
    page.route("**/*", lambda r: r.continue_() if "//127.0.0.1:" in r.request.url else r.abort())
    try:
        page.goto(url, wait_until="load")
        found = {}
        figures = page.locator(".pe-live")
        for i in range(figures.count()):
            figure = figures.nth(i)
            if not figure.locator('input[type="range"]').count():
                continue
            figure.scroll_into_view_if_needed()
            name = figure.get_attribute("data-figure").rpartition(".")[2]
            found[name] = figure.evaluate(TIMED_MOVES, moves)
        return found
    finally:
        context.close()


def _percentile(values: list[float], percent: float) -> float:
    """The ``percent``-th percentile of ``values`` (linear between the nearest ranks)."""
    ordered = sorted(values)
    rank = (len(ordered) - 1) * percent / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="loads of the largest page")
    parser.add_argument("--moves", type=int, default=12, help="slider moves timed per figure")
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"Chromium not found at {CHROMIUM}: apt-get install -y chromium")
    from playwright.sync_api import sync_playwright

    load = os.getloadavg()[0]
    fresh = timed_build("--fresh")
    all_pages = pages()
    print(
        f"site build, fresh ({len(all_pages)} course pages, every live figure drawn, load "
        f"average {load:.1f} on {os.cpu_count()} cores): {fresh:.1f} s "
        f"(target <= {BUILD_TARGET_S:.0f} s: {'met' if fresh <= BUILD_TARGET_S else 'MISSED'})"
    )
    kept = timed_build()
    print(f"site build, pictures kept (an edit to the text): {kept:.1f} s")
    size, frames = folder_bytes(SITE), folder_bytes(SITE / "_static" / "live")
    count = sum(1 for p in (SITE / "_static" / "live").rglob("*.webp"))
    verdict = "met" if size <= SIZE_TARGET_MB * 1e6 else "MISSED"
    print(
        f"site size: {size / 1e6:.1f} MB, of which {count} live pictures {frames / 1e6:.1f} MB "
        f"(target <= {SIZE_TARGET_MB:.0f} MB: {verdict})"
    )
    handler = functools.partial(_Quiet, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
            )
            try:
                ready_seconds(browser, f"{base}/{all_pages[0]}")  # warm the browser itself
                once = {page: ready_seconds(browser, f"{base}/{page}")[1] for page in all_pages}
                largest = max(all_pages, key=weight)
                loads = [ready_seconds(browser, f"{base}/{largest}") for _ in range(args.repeats)]
                live_pages = [p for p in all_pages if 'class="pe-live"' in (SITE / p).read_text()]
                before_moves = os.getloadavg()[0]
                moves = {}
                for page in live_pages:
                    moves.update(move_times(browser, f"{base}/{page}", args.moves))
            finally:
                browser.close()
    finally:
        server.shutdown()
        server.server_close()
    load_s = statistics.median(s[0] for s in loads)
    ready = statistics.median(s[1] for s in loads)
    verdict = "met" if ready <= PAGE_TARGET_S else "MISSED"
    print(
        f"largest page {largest} ({weight(largest) / 1e6:.2f} MB with pictures), "
        f"median of {args.repeats}: load {load_s:.2f} s, ready with maths {ready:.2f} s "
        f"(target <= {PAGE_TARGET_S:.0f} s: {verdict})"
    )
    slowest = max(once, key=once.get)
    print(f"slowest page once: {slowest} ready in {once[slowest]:.2f} s")
    print(
        f"a slider move, picture one step away already loaded ({args.moves} moves a figure, "
        f"load average {before_moves:.1f} before, {os.getloadavg()[0]:.1f} after):"
    )
    for name, times in moves.items():
        print(
            f"  {name:24s} median {statistics.median(times):5.1f} ms, "
            f"90th percentile {_percentile(times, 90):5.1f} ms, max {max(times):5.1f} ms"
        )
    every = [t for times in moves.values() for t in times]
    p90 = _percentile(every, 90)
    verdict = "met" if p90 <= MOVE_TARGET_MS else "MISSED"
    print(
        f"slider move to picture over {len(moves)} figures: median "
        f"{statistics.median(every):.1f} ms, 90th percentile {p90:.1f} ms, worst "
        f"{max(every):.1f} ms (target: 90th percentile <= {MOVE_TARGET_MS:.0f} ms: {verdict})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
