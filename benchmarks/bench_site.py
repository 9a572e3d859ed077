"""Benchmark: building the course's website, and loading its largest page in Chromium.

Times a fresh rebuild of ``build/site`` (what ``make site`` runs once the site extra is
installed: ``scripts/build_site.py`` re-creates every page from nothing), then serves the
site on 127.0.0.1 and opens every page in headless Chromium with an empty cache, several
times each for the largest page (HTML plus its pictures). A page is "ready" when its load
event has fired and MathJax has typeset every formula. Prints each figure against its
target: build <= 2 min, largest page <= 3 s.

Usage: python benchmarks/bench_site.py [--repeats N]   (or ``make bench-site``)
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
BUILD_TARGET_S = 120.0
PAGE_TARGET_S = 3.0


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


def timed_build() -> float:
    start = time.perf_counter()
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "build_site.py")], cwd=ROOT)
    if result.returncode != 0:
        raise SystemExit("the site did not build; the benchmark needs a building site")
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


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="loads of the largest page")
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"Chromium not found at {CHROMIUM}: apt-get install -y chromium")
    from playwright.sync_api import sync_playwright

    build = timed_build()
    all_pages = pages()
    print(
        f"site build, fresh ({len(all_pages)} course pages): {build:.1f} s "
        f"(target <= {BUILD_TARGET_S:.0f} s: {'met' if build <= BUILD_TARGET_S else 'MISSED'})"
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
            finally:
                browser.close()
    finally:
        server.shutdown()
        server.server_close()
    load = statistics.median(s[0] for s in loads)
    ready = statistics.median(s[1] for s in loads)
    verdict = "met" if ready <= PAGE_TARGET_S else "MISSED"
    print(
        f"largest page {largest} ({weight(largest) / 1e6:.2f} MB with pictures), "
        f"median of {args.repeats}: load {load:.2f} s, ready with maths {ready:.2f} s "
        f"(target <= {PAGE_TARGET_S:.0f} s: {verdict})"
    )
    slowest = max(once, key=once.get)
    print(f"slowest page once: {slowest} ready in {once[slowest]:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
