"""The course's website (``make site``) in a real browser, with no network.

``build/site`` is served by a local ``http.server`` on 127.0.0.1 (random port) and
opened in headless Chromium. Every request to any other address is aborted and fails
the test. For every page: no console error and no failed request; every internal link
and ``#anchor`` resolves; every picture loads; every formula is typeset by MathJax and
no raw ``$...$`` is left in the text; every live view of its notebook is there as
controls over a picture, with its note, and the first load fetches one picture per
figure and no more; a screenshot lands in ``test-artifacts/site/``. For every live
figure: the picture at the starting values has the pixels of the notebook's stored
picture; each control is there, labelled as in the notebook, and moving it (keyboard, and
the mouse for sliders and buttons) changes the picture, and moving it back restores it;
controls that move one at a time put each other back. Search finds the RoPE lesson and
no solution page (no word of theirs is in the search index), and the sidebar and the
prev/next links walk the course in order. The load time of every page goes to
``test-artifacts/site/load_times.json``; speed (the largest page's too) is judged in
``benchmarks/bench_site.py``.

No site, or a site older than its sources: the tests skip saying "run make site",
unless ``PE_REQUIRE_BROWSER=1`` (set by ``.ci/run``) turns that into a failure.
Chromium is ``$PE_CHROMIUM`` (default ``/usr/bin/chromium``), from ``browser_support.py``.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import http.server
import io
import json
import re
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import build_site
import numpy as np
import pytest
from browser_support import ROOT, chromium, require_browser, skip_or_fail
from PIL import Image

from pe_helpers.seeds import cpu_kernels, kernels_env

SITE = ROOT / "build" / "site"
ARTIFACTS = ROOT / "test-artifacts" / "site"
SOURCES = [
    *sorted((ROOT / "notebooks").glob("*.ipynb")),
    *sorted((ROOT / "notebooks" / "solutions").glob("*.ipynb")),
    *sorted((ROOT / "docs").glob("*.md")),
]
#: The Chinese edition (notebooks/zh, docs/zh), laid out as the English one under zh/.
ZH_SOURCES = [
    *sorted((ROOT / "notebooks" / "zh").glob("*.ipynb")),
    *sorted((ROOT / "notebooks" / "zh" / "solutions").glob("*.ipynb")),
    *sorted((ROOT / "docs" / "zh").glob("*.md")),
]
#: What the site is built from: the Makefile's SITE_INPUTS, and the package that draws the
#: live figures' pictures.
BUILD_INPUTS = [
    *SOURCES,
    *ZH_SOURCES,
    *sorted((ROOT / "docs" / "guide").glob("*.md")),  # the guide's and cheat sheet's sources
    *sorted((ROOT / "site").rglob("*.*")),
    ROOT / "scripts/build_site.py",
    ROOT / "scripts/navigation.py",
    *sorted(p for p in (ROOT / "pe_helpers").rglob("*") if p.suffix in (".py", ".json")),
]
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


def _zh_page_of(source: Path) -> str:
    parts = source.relative_to(ROOT).parts
    return "zh/" + Path(parts[0], *parts[2:]).with_suffix(".html").as_posix()


ZH_PAGES = [_zh_page_of(p) for p in ZH_SOURCES]
ZH_PAGES += ["zh/notebooks/solutions/index.html", "zh/search.html", "zh/genindex.html"]
RAW_DOLLARS = re.compile(r"\$[^$\s][^$]*\$|\\\(|\\\[")


def live_views(notebook: Path) -> list[dict]:
    """Every live view stored in ``notebook``: its page, folder, figure, values and picture."""
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    found = []
    for cell in nb["cells"]:
        output = build_site.live_output(cell)
        if output is not None:
            about = output["metadata"]["pe_helpers"]
            picture = base64.b64decode("".join(output["data"]["image/png"]))
            page, folder = _page_of(notebook), f"{notebook.stem}-{len(found) + 1}"
            found.append({"page": page, "folder": folder, "picture": picture, **about})
    return found


LIVE = [view for p in SOURCES if p.suffix == ".ipynb" for view in live_views(p)]


def _same_kernels() -> bool:
    """Whether the site's pictures are drawn under the CPU kernels the notebooks ran with
    (``scripts/build_site.py`` starts itself again under them where this CPU has them)."""
    recorded = build_site.notebook_kernels()
    return recorded is None or recorded == cpu_kernels() or kernels_env(recorded) is not None


SAME_KERNELS = _same_kernels()
LIVE_PER_PAGE = {path: [v for v in LIVE if v["page"] == path] for path in PAGES}


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
        self.requests: list[str] = []
        self.page.on("request", lambda r: self.requests.append(r.url))
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


@functools.cache
def _ids(path: Path) -> frozenset[str]:
    """Every ``id`` (and ``name``) a page's HTML declares."""

    class Ids(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.ids: set[str] = set()

        def handle_starttag(self, tag, attrs):
            self.ids |= {value for key, value in attrs if key in ("id", "name") and value}

    parser = Ids()
    parser.feed(path.read_text(encoding="utf-8"))
    return frozenset(parser.ids)


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
    times = {"load_ms": round(visit.load_ms), "math_typeset_ms": round(visit.math_done_ms)}
    results.setdefault("pages", {})[path] = times
    record.write_text(json.dumps(results, indent=2, sort_keys=True))


def test_the_site_has_exactly_the_course_pages():
    _require_site()
    built = {
        p.relative_to(SITE).as_posix()
        for p in SITE.rglob("*.html")
        if "_static" not in p.relative_to(SITE).parts[:2]
    }
    assert built == {*PAGES, "index.html", *ZH_PAGES, "zh/index.html"}
    assert len(ZH_PAGES) == len(PAGES) - 2  # every page but the English-only teaching docs
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

        live = page.locator(".pe-live")
        expected = LIVE_PER_PAGE.get(path, [])
        assert live.count() == len(expected), f"{path}: live figures on the page"
        for i, view in enumerate(expected):
            figure = live.nth(i)
            assert figure.get_attribute("data-figure") == view["figure"]
            assert figure.locator(".pe-live-controls").is_visible()
            note = figure.locator(".pe-live-note")
            assert note.is_visible() and "In JupyterLab the sliders are continuous" in (
                note.inner_text()
            )
        # The first load fetches each figure's starting picture, and no other.
        fetched = sorted({u for u in visit.requests if "/_static/live/" in u})
        assert len(fetched) == len(expected), f"{path}: pictures fetched at load: {fetched}"
        if expected:
            live.first.screenshot(path=str(ARTIFACTS / f"{shot}__live.png"))

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


def test_sidebar_lists_the_course_in_order(browser, site_url):
    visit = Visit(browser, site_url, COURSE_ORDER[0])
    try:
        sidebar = visit.page.locator("nav.bd-docs-nav a.reference")
        in_sidebar = [
            urlsplit(h).path.lstrip("/")
            for h in sidebar.evaluate_all("links => links.map(a => a.href)")
        ]
        # Solutions are listed under their section page, in the same order as prev/next.
        assert in_sidebar == COURSE_ORDER
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


def _search(browser, site_url: str, query: str, edition: str = "") -> list[str]:
    visit = Visit(browser, site_url, f"{edition}search.html?q={query}")
    try:
        visit.page.wait_for_function(  # Sphinx writes the summary once the search is done
            "() => (document.querySelector('#search-results .search-summary')?.innerText || '')"
            ".trim().length > 0",
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


@pytest.mark.parametrize(
    "term,lesson",
    [("旋转", "07_rope"), ("外推", "10_long_context"), ("位置编码", "01_why_position")],
)
def test_the_chinese_search_finds_the_glossarys_terms(browser, site_url, term, lesson):
    found = _search(browser, site_url, term, "zh/")
    assert f"zh/notebooks/{lesson}.html" in found, found
    assert _search(browser, site_url, "qwxzvbnk", "zh/") == []


SWITCH = re.compile(r'<p class="pe-language"><a href="([^"]+)"')


@pytest.mark.parametrize(
    "path", [p for p in PAGES + ZH_PAGES if "search" not in p and "genindex" not in p]
)
def test_every_page_links_the_same_page_in_the_other_edition(path):
    _require_site()
    html = (SITE / path).read_text(encoding="utf-8")
    switch = SWITCH.findall(html)
    assert len(switch) == 1, f"{path}: {len(switch)} language switches"
    target = ((SITE / path).parent / switch[0]).resolve()
    assert target.is_file(), f"{path}: the switch goes to {switch[0]}, no such page"
    twin = path[3:] if path.startswith("zh/") else f"zh/{path}"
    if (SITE / twin).is_file():
        assert target == (SITE / twin).resolve(), f"{path}: the switch skips its twin {twin}"


def test_a_chinese_lesson_page_shows_its_figures_controls_in_chinese(browser, site_url):
    visit = Visit(browser, site_url, "zh/notebooks/07_rope.html")
    try:
        page = visit.page
        labels = page.locator(".pe-live-controls label, .pe-live-label").all_inner_texts()
        assert labels and all(re.search(r"[\u3400-\u9fff]", t) for t in labels), labels
        note = page.locator(".pe-live-note").first.inner_text()
        assert "JupyterLab" in note and re.search(r"[\u3400-\u9fff]", note)
        page.screenshot(path=str(ARTIFACTS / "zh__notebooks__07_rope.png"))
        assert not visit.outside and not visit.errors and not visit.failed
    finally:
        visit.close()


def _search_index() -> dict:
    text = (SITE / "searchindex.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("(") + 1 : text.rindex(")")])


def test_the_search_index_holds_no_word_of_a_solution_page():
    _require_site()
    index = _search_index()
    solutions = {
        number
        for number, name in enumerate(index["docnames"])
        if name.startswith("notebooks/solutions/")
    }
    assert len(solutions) == len(SOLUTION_PAGES) + 1  # and their listing page
    for kind in ("terms", "titleterms"):
        for term, pages in index[kind].items():
            pages = {pages} if isinstance(pages, int) else set(pages)
            assert not pages & solutions, f"{term!r} finds a solution page"
    assert not any(index["titles"][number] for number in solutions)


def test_live_view_count_sees_the_course():
    # The course has live views, and the rule finds them (so the page and figure tests can fail).
    assert len(LIVE) >= len(LESSON_PAGES) - 1
    assert not any(LIVE_PER_PAGE[p] for p in SOLUTION_PAGES)


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


#: The pixels of the picture an <img> shows (RGBA, as a canvas reads them), hashed.
PICTURE_HASH = """async img => {
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const context = canvas.getContext('2d', {willReadFrequently: true});
    context.drawImage(img, 0, 0);
    const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
    const digest = await crypto.subtle.digest('SHA-256', pixels);
    return [...new Uint8Array(digest)].map(b => b.toString(16).padStart(2, '0')).join('');
}"""


def _pixel_hash(picture: bytes) -> str:
    with Image.open(io.BytesIO(picture)) as image:
        return hashlib.sha256(np.asarray(image.convert("RGBA")).tobytes()).hexdigest()


class LiveFigure:
    """One live figure on its page: its controls, its picture and what it shows now."""

    def __init__(self, visit: Visit, index: int) -> None:
        self.page = visit.page
        self.root = visit.page.locator(".pe-live").nth(index)
        self.root.scroll_into_view_if_needed()
        self.page.wait_for_function(
            "el => el.dataset.ready === 'true'", arg=self.root.element_handle()
        )
        self.picture = self.root.locator("img.pe-live-picture")
        self.config = json.loads(self.root.locator("script.pe-live-config").text_content())

    def state(self) -> str:
        return self.root.get_attribute("data-state")

    def shown(self) -> str:
        """The hash of the picture's pixels, once the picture of the current state is shown."""
        want = f"/{self.state()}.{self.config['extension']}"
        # The page puts the new picture's <img> in place of the old one once it is decoded.
        self.page.wait_for_function(
            """([root, want]) => {
                const img = root.querySelector('img.pe-live-picture');
                return img.complete && img.naturalWidth > 0 && img.src.endsWith(want);
            }""",
            arg=[self.root.element_handle(), want],
            timeout=10_000,
        )
        return self.picture.evaluate(PICTURE_HASH)

    def row(self, name: str):
        return self.root.locator(f'.pe-live-control[data-name="{name}"]')


def _move(figure: LiveFigure, name: str, how: str) -> None:
    """Move control ``name`` one value away from where it is: by keyboard or by mouse."""
    row = figure.row(name)
    slider = row.locator('input[type="range"]')
    if slider.count():
        at, last = int(slider.input_value()), int(slider.get_attribute("max"))
        if how == "keyboard":
            slider.focus()
            figure.page.keyboard.press("ArrowRight" if at < last else "ArrowLeft")
        else:  # a click on the track, at the next value's place
            box = slider.bounding_box()
            to = at + 1 if at < last else at - 1
            thumb = 16  # the track runs between the thumb's centres at its two ends
            x = thumb / 2 + (box["width"] - thumb) * to / last
            slider.click(position={"x": x, "y": box["height"] / 2})
            assert int(slider.input_value()) != at, f"{name}: the click did not move the slider"
        return
    choice = row.locator("select")
    if choice.count():
        at = int(choice.input_value())
        count = choice.locator("option").count()
        if how == "keyboard":
            choice.focus()
            figure.page.keyboard.press("ArrowDown" if at + 1 < count else "ArrowUp")
        else:
            choice.select_option(str(at + 1 if at + 1 < count else at - 1))
        return
    buttons = row.locator("button")
    pressed = [b.get_attribute("aria-pressed") for b in buttons.all()].index("true")
    other = buttons.nth(pressed + 1 if pressed + 1 < buttons.count() else pressed - 1)
    if how == "keyboard":
        other.focus()
        figure.page.keyboard.press("Enter")
    else:
        other.click()


def _back(figure: LiveFigure, name: str, start: int) -> None:
    """Put control ``name`` back to the value index ``start`` (by keyboard)."""
    row = figure.row(name)
    slider = row.locator('input[type="range"]')
    if slider.count():
        slider.focus()
        at = int(slider.input_value())
        for _ in range(abs(at - start)):
            figure.page.keyboard.press("ArrowLeft" if at > start else "ArrowRight")
        return
    choice = row.locator("select")
    if choice.count():
        choice.select_option(str(start))
        return
    row.locator("button").nth(start).click()


@pytest.mark.parametrize("view", LIVE, ids=lambda v: v["folder"])
def test_a_live_figure_starts_at_the_notebooks_picture_and_every_control_moves_it(
    browser, site_url, view
):
    figure_class = build_site.figure_class(view["figure"])
    on_page = [v["folder"] for v in LIVE_PER_PAGE[view["page"]]].index(view["folder"])
    visit = Visit(browser, site_url, view["page"])
    try:
        figure = LiveFigure(visit, on_page)
        config = figure.config
        start_state = "-".join(map(str, config["start"]))
        # At the start: the notebook's picture, pixel for pixel, in the file and on the page
        assert figure.state() == start_state
        frame = SITE / "_static" / "live" / view["folder"] / f"{start_state}.webp"
        start = figure.shown()
        if SAME_KERNELS:  # the site drew under the notebooks' CPU kernels: the same pixels
            same = build_site.same_pixels(frame.read_bytes(), view["picture"])
            assert same, f"{view['folder']}: the site's picture at the start is not the notebook's"
            assert start == _pixel_hash(view["picture"])
        else:  # a CPU without the notebooks' kernels: the page shows the site's own picture
            assert start == _pixel_hash(frame.read_bytes())

        names = [c["name"] for c in config["controls"]]
        assert names == list(figure_class.controls), "every control, in the notebook's order"
        for i, name in enumerate(names):
            control = figure_class.controls[name]
            row = figure.row(name)
            label = row.locator("label, .pe-live-label").first
            assert label.inner_text().strip() == control.label
            if control.kind == "choice":
                names_shown = row.locator("button, option").all_inner_texts()
                assert [n.strip() for n in names_shown] == list(control.options)
            else:
                assert figure.page.get_by_label(control.label, exact=True).count() >= 1
            for how in ("keyboard", "mouse"):
                _move(figure, name, how)
                moved = figure.shown()
                assert figure.state() != start_state, f"{name} ({how}): the state did not move"
                assert moved != start, f"{name} ({how}): moving it left the picture as it was"
                _back(figure, name, config["start"][i])
                assert figure.state() == start_state
                assert figure.shown() == start, f"{name}: moving it back did not restore it"

        alone = [c["name"] for c in config["controls"] if c["alone"]]
        if alone:  # moving one of them puts the one moved before back
            first, second = alone[:2]
            _move(figure, first, "keyboard")
            _move(figure, second, "keyboard")
            figure.shown()
            state = figure.state().split("-")
            assert state[names.index(first)] == str(config["start"][names.index(first)])
            assert state[names.index(second)] != str(config["start"][names.index(second)])
        problems = (visit.errors, visit.failed, visit.outside)
        assert not any(problems), problems
    finally:
        visit.close()
