"""The course's website (``make site``) in a real browser, with no network.

``build/site`` is served by a local ``http.server`` on 127.0.0.1 (random port) and
opened in headless Chromium. Every request to any other address is aborted and fails
the test. For every page: no console error and no failed request; every internal link
and ``#anchor`` resolves; every picture loads; every formula is typeset by MathJax and
no raw ``$...$`` is left in the text; slider views carry their "Interactive in
JupyterLab" note; a screenshot lands in ``test-artifacts/site/``. Search finds the
RoPE lesson, and the sidebar and the prev/next links walk the course in order. The
load time of every page (the largest one marked) goes to
``test-artifacts/site/load_times.json``; speed is judged in ``benchmarks/bench_site.py``.

No site, or a site older than its sources: the tests skip saying "run make site",
unless ``PE_REQUIRE_BROWSER=1`` (set by ``.ci/run``) turns that into a failure.
Chromium is ``$PE_CHROMIUM`` (default ``/usr/bin/chromium``), from ``browser_support.py``.
"""

from __future__ import annotations

import functools
import http.server
import json
import re
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from browser_support import ROOT, chromium, require_browser, skip_or_fail

SITE = ROOT / "build" / "site"
ARTIFACTS = ROOT / "test-artifacts" / "site"
SOURCES = [
    *sorted((ROOT / "notebooks").glob("*.ipynb")),
    *sorted((ROOT / "notebooks" / "solutions").glob("*.ipynb")),
    *sorted((ROOT / "docs").glob("*.md")),
]
BUILD_INPUTS = [*SOURCES, *sorted((ROOT / "site").rglob("*.*")), ROOT / "scripts/build_site.py"]
SOLUTIONS_PAGE = "notebooks/solutions/index.html"


def _page_of(source: Path) -> str:
    return source.relative_to(ROOT).with_suffix(".html").as_posix()


LESSON_PAGES = [_page_of(p) for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))]
SOLUTION_PAGES = [_page_of(p) for p in sorted((ROOT / "notebooks" / "solutions").glob("*.ipynb"))]
DOC_PAGES = ["docs/instructor_guide.html", "docs/cheatsheet.html"]
DOC_PAGES += sorted({_page_of(p) for p in (ROOT / "docs").glob("*.md")} - set(DOC_PAGES))
#: Reading order: the contents page, the lessons, the guide and cheat sheet, the solutions.
COURSE_ORDER = [*LESSON_PAGES, *DOC_PAGES, SOLUTIONS_PAGE, *SOLUTION_PAGES]
PAGES = [*COURSE_ORDER, "search.html", "genindex.html"]
RAW_DOLLARS = re.compile(r"\$[^$\s][^$]*\$|\\\(|\\\[")


def live_view_cells(notebook: Path) -> int:
    """How many cells of ``notebook`` make a slider view (no stored output to show)."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    count = 0
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code" and "NBVAL_IGNORE_OUTPUT" in source:
            count += ".view(" in source and not cell["outputs"]
    return count


LIVE_NOTES = {_page_of(p): live_view_cells(p) for p in SOURCES if p.suffix == ".ipynb"}


def _require_site() -> None:
    index = SITE / "index.html"
    if not index.is_file():
        skip_or_fail(f"no site in {SITE.relative_to(ROOT)}: run make site")
    built = index.stat().st_mtime
    newer = [p for p in BUILD_INPUTS if p.stat().st_mtime > built]
    if newer:
        skip_or_fail(f"the site is older than {newer[0].relative_to(ROOT)}: run make site")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="module")
def site_url():
    """The built site, served from 127.0.0.1 on a random port for this module."""
    _require_site()
    handler = functools.partial(_Quiet, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser(site_url):
    require_browser()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "load_times.json").unlink(missing_ok=True)
    with chromium() as session:
        yield session


class Visit:
    """One page opened with every outside request blocked and every problem recorded."""

    def __init__(self, browser, site_url: str, path: str, settle: bool = True) -> None:
        self.page = browser.new_page(viewport={"width": 1300, "height": 900})
        self.outside: list[str] = []
        self.errors: list[str] = []
        self.failed: list[str] = []
        self.page.route("**/*", self._route(site_url))
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))
        self.page.on("requestfailed", lambda r: self.failed.append(f"{r.url} ({r.failure})"))
        self.page.on(
            "response", lambda r: r.status >= 400 and self.failed.append(f"{r.url} ({r.status})")
        )
        self.page.goto(f"{site_url}/{path}", wait_until="load")
        self.math_done_ms = self.load_ms = 0.0
        if settle:  # not for a page that moves on by itself
            self.math_done_ms = self._wait_for_math()
            self.load_ms = self.page.evaluate(
                "performance.getEntriesByType('navigation')[0].loadEventEnd"
            )

    def _route(self, site_url: str):
        def handle(route):
            url = route.request.url
            if url == site_url or url.startswith(site_url + "/"):
                route.continue_()
            else:
                self.outside.append(url)
                route.abort()

        return handle

    def _console(self, message) -> None:
        if message.type == "error":
            self.errors.append(f"console error: {message.text}")

    def _wait_for_math(self) -> float:
        """Wait until MathJax has typeset the page; return when that was (ms after start)."""
        if not self.page.locator(".math.notranslate").count():
            return 0.0
        self.page.wait_for_function(
            "() => window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=30_000
        )
        return self.page.evaluate("() => MathJax.startup.promise.then(() => performance.now())")

    def close(self) -> None:
        self.page.close()


def _page_ids(path: Path) -> set[str]:
    """Every ``id`` (and ``name``) a page's HTML declares."""

    class Ids(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.ids: set[str] = set()

        def handle_starttag(self, tag, attrs):
            self.ids |= {value for key, value in attrs if key in ("id", "name") and value}

    parser = Ids()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.ids


@functools.cache
def _ids(path: Path) -> frozenset[str]:
    return frozenset(_page_ids(path))


def _broken_links(hrefs: list[str], site_url: str) -> list[str]:
    broken = []
    for href in hrefs:
        if not href.startswith(site_url + "/"):
            continue  # outside links are never followed (and never requested)
        parts = urlsplit(href)
        target = SITE / unquote(parts.path).lstrip("/")
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            broken.append(f"{href}: no such file")
        elif parts.fragment and target.suffix == ".html":
            if unquote(parts.fragment) not in _ids(target):
                broken.append(f"{href}: no id {parts.fragment!r} on {target.name}")
    return broken


def _record_load(path: str, visit: Visit) -> None:
    record = ARTIFACTS / "load_times.json"
    results = json.loads(record.read_text()) if record.exists() else {}
    results.setdefault("pages", {})[path] = {
        "load_ms": round(visit.load_ms),
        "math_typeset_ms": round(visit.math_done_ms),
    }
    record.write_text(json.dumps(results, indent=2, sort_keys=True))


def test_the_site_has_exactly_the_course_pages():
    _require_site()
    built = {
        p.relative_to(SITE).as_posix()
        for p in SITE.rglob("*.html")
        if p.relative_to(SITE).parts[0] != "_static"
    }
    assert built == {*PAGES, "index.html"}
    assert len(LESSON_PAGES) >= 13 and LESSON_PAGES[0] == "notebooks/00_index.html"
    assert len(SOLUTION_PAGES) == len(LESSON_PAGES) - 1


@pytest.mark.parametrize("path", PAGES)
def test_page_loads_cleanly_with_links_pictures_and_math(browser, site_url, path):
    visit = Visit(browser, site_url, path)
    try:
        page = visit.page
        shot = path.removesuffix(".html").replace("/", "__")
        page.screenshot(path=str(ARTIFACTS / f"{shot}.png"))  # the top of the page
        _record_load(path, visit)
        assert not visit.outside, f"requests outside 127.0.0.1: {visit.outside}"
        assert not visit.errors, (visit.errors, visit.failed)
        assert not visit.failed, f"failed requests: {visit.failed}"

        hrefs = page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)")
        internal = [h for h in hrefs if h.startswith(site_url + "/")]
        assert len(internal) > 5, f"{path}: only {len(internal)} internal links"
        assert not _broken_links(hrefs, site_url)

        images = page.evaluate(
            """async () => {
                const imgs = [...document.images];
                await Promise.all(imgs.map(img => img.complete ? null :
                    new Promise(done => { img.onload = img.onerror = done; })));
                return imgs.map(img => [img.getAttribute('src'), img.naturalWidth]);
            }"""
        )
        assert not [src for src, width in images if width == 0], f"{path}: pictures not loaded"
        if path in LESSON_PAGES[1:]:
            figures = page.locator(".cell_output img").count()
            assert figures > 0, f"{path}: a lesson page without a single figure"

        math = page.locator(".math.notranslate")  # Sphinx's math nodes
        typeset = page.locator(".math.notranslate:has(mjx-container)")
        assert typeset.count() == math.count(), f"{path}: formulas left untypeset"
        assert page.locator("mjx-merror").count() == 0, f"{path}: a formula MathJax cannot read"
        text = page.evaluate(
            """() => {
                const main = document.querySelector('main').cloneNode(true);
                main.querySelectorAll('pre, code, script, style, .math, mjx-container')
                    .forEach(e => e.remove());
                return main.innerText;
            }"""
        )
        leftover = RAW_DOLLARS.findall(text)
        assert not leftover, f"{path}: raw TeX in the text: {leftover[:5]}"

        notes = page.locator(".pe-live-note")
        assert notes.count() == LIVE_NOTES.get(path, 0)
        for i in range(notes.count()):
            assert notes.nth(i).is_visible()
            assert "Interactive in JupyterLab" in notes.nth(i).inner_text()
        if notes.count():
            notes.first.screenshot(path=str(ARTIFACTS / f"{shot}__live_note.png"))

        if path in COURSE_ORDER:
            at = COURSE_ORDER.index(path)
            before = COURSE_ORDER[at - 1] if at > 0 else None
            after = COURSE_ORDER[at + 1] if at + 1 < len(COURSE_ORDER) else None
            for selector, neighbour in (("a.left-prev", before), ("a.right-next", after)):
                link = page.locator(selector)
                if neighbour is None:
                    assert link.count() == 0, f"{path}: {selector} where there is none"
                else:
                    href = urlsplit(link.first.evaluate("a => a.href")).path.lstrip("/")
                    assert href == neighbour, f"{path}: {selector} goes to {href}"
    finally:
        visit.close()


def test_sidebar_lists_the_course_in_order_and_next_opens_the_next_page(browser, site_url):
    visit = Visit(browser, site_url, COURSE_ORDER[0])
    try:
        sidebar = visit.page.locator("nav.bd-docs-nav a.reference")
        in_sidebar = [
            urlsplit(h).path.lstrip("/")
            for h in sidebar.evaluate_all("links => links.map(a => a.href)")
        ]
        # Solutions are listed under their section page, in the same order as prev/next.
        assert in_sidebar == COURSE_ORDER
        visit.page.locator("a.right-next").click()
        visit.page.wait_for_url(f"**/{COURSE_ORDER[1]}")
        assert visit.page.locator("article h1").first.is_visible()
    finally:
        visit.close()


def test_lesson_navigation_links_open_the_neighbouring_lessons(browser, site_url):
    lesson = LESSON_PAGES[4]
    visit = Visit(browser, site_url, lesson)
    try:
        nav = visit.page.locator("small").first
        hrefs = nav.locator("a").evaluate_all("links => links.map(a => a.href)")
        targets = [urlsplit(h).path.lstrip("/") for h in hrefs]
        assert targets == [LESSON_PAGES[3], LESSON_PAGES[0], LESSON_PAGES[5]]
        nav.locator("a").last.click()
        visit.page.wait_for_url(f"**/{LESSON_PAGES[5]}")
        assert visit.page.locator("article h1").first.is_visible()
    finally:
        visit.close()


def test_the_site_opens_on_the_contents_page(browser, site_url):
    visit = Visit(browser, site_url, "index.html", settle=False)
    try:
        visit.page.wait_for_url(f"**/{LESSON_PAGES[0]}", timeout=10_000)
        assert visit.page.locator("nav.bd-docs-nav").count() == 1
        assert not visit.errors and not visit.outside and not visit.failed
    finally:
        visit.close()


def _search(browser, site_url: str, query: str) -> list[str]:
    visit = Visit(browser, site_url, f"search.html?q={query}")
    try:
        visit.page.wait_for_function(
            "() => /Search finished|did not match/.test("
            "document.querySelector('#search-results')?.innerText || '')",
            timeout=30_000,
        )
        assert not visit.errors and not visit.outside and not visit.failed
        links = visit.page.eval_on_selector_all(
            "#search-results li a", "links => links.map(a => a.href)"
        )
        return [urlsplit(h).path.lstrip("/") for h in links]
    finally:
        visit.close()


def test_search_finds_the_rope_lesson_and_nothing_for_nonsense(browser, site_url):
    found = _search(browser, site_url, "rotary")
    rope = next(p for p in LESSON_PAGES if p.endswith("_rope.html"))
    assert rope in found
    assert len(found) >= 3
    assert _search(browser, site_url, "qwxzvbnk") == []


def test_live_view_count_sees_the_course():
    # The course has slider views, and the counting rule finds them (so the page test can fail).
    assert sum(LIVE_NOTES.values()) >= len(LESSON_PAGES) - 1
    assert all(LIVE_NOTES[p] == 0 for p in SOLUTION_PAGES)


def test_broken_link_check_sees_a_missing_page_and_a_missing_anchor():
    _require_site()
    base = "http://127.0.0.1:1"
    index = LESSON_PAGES[0]
    assert _broken_links([f"{base}/{index}"], base) == []
    assert _broken_links([f"{base}/notebooks/99_nothing.html"], base)
    assert _broken_links([f"{base}/{index}#no-such-heading"], base)
    assert _broken_links(["https://arxiv.org/abs/1706.03762"], base) == []


def test_raw_tex_pattern_sees_dollars_and_brackets():
    assert RAW_DOLLARS.findall("costs $x_1$ here")
    assert RAW_DOLLARS.findall(r"a \(x\) b")
    assert not RAW_DOLLARS.findall("a price of 5 $ and 6 $")


def _weight(path: str) -> int:
    """Bytes of a page's HTML plus the pictures it shows."""
    html = SITE / path
    text = html.read_text(encoding="utf-8")
    pictures = {html.parent / unquote(src) for src in re.findall(r'<img[^>]+src="([^"]+)"', text)}
    return html.stat().st_size + sum(p.stat().st_size for p in pictures if p.is_file())


def test_the_largest_page_loads_and_its_time_is_recorded(browser, site_url):
    largest = max(COURSE_ORDER, key=_weight)
    visit = Visit(browser, site_url, largest)
    try:
        assert not visit.errors and not visit.outside and not visit.failed
        assert visit.load_ms > 0
        record = ARTIFACTS / "load_times.json"
        results = json.loads(record.read_text()) if record.exists() else {}
        results["largest"] = {
            "page": largest,
            "bytes": _weight(largest),
            "load_ms": round(visit.load_ms),
            "math_typeset_ms": round(visit.math_done_ms),
        }
        record.write_text(json.dumps(results, indent=2, sort_keys=True))
        print(
            f"\nlargest page {largest}: {_weight(largest) / 1e6:.1f} MB, loaded in "
            f"{visit.load_ms:.0f} ms, mathematics typeset at {visit.math_done_ms:.0f} ms"
        )
    finally:
        visit.close()
