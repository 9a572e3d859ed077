"""`make lab`'s JupyterLab in Chromium: the index opens the guide and the cheat sheet.

``make lab`` serves the repository's top folder and opens ``notebooks/00_index.ipynb``, so
the index's links to ``../docs/*.md`` lead to a file JupyterLab serves; it opens it as a
Markdown preview. Served from ``notebooks/`` (as before), the same clicks opened nothing.
The lab here is started as ``make lab`` starts it (the repository's top folder, the course's
settings from ``lab/overrides.json`` and its ``--LabApp`` options), over a temporary copy of
``notebooks/`` and ``docs/`` (JupyterLab writes checkpoints beside what it opens), with no
news setting of its own: the news pop-up must stay away by the course's settings alone.
Screenshots go to ``test-artifacts/e2e/``.
"""

from __future__ import annotations

import shutil

import pytest
from browser_support import ROOT, chromium, require_browser, running_lab

ARTIFACTS = ROOT / "test-artifacts" / "e2e"
INDEX = "notebooks/00_index.ipynb"
#: Link text in the index, the tab the click opens, and a heading the preview then shows.
LINKS = [
    ("instructor guide", "instructor_guide.md", "Instructor guide"),
    ("cheat sheet", "cheatsheet.md", None),  # its title: the first line of docs/cheatsheet.md
]
NEWS = "official Jupyter news"


def _title(name: str) -> str:
    lines = (ROOT / "docs" / name).read_text(encoding="utf-8").splitlines()
    first = next(line for line in lines if line.strip() and not line.startswith("<!--"))
    assert first.startswith("# "), f"docs/{name} does not open with its title"
    return first[2:].strip()


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab as `make lab` starts it, over a copy of the course's notebooks and docs."""
    require_browser()
    work = tmp_path_factory.mktemp("lab-links")
    course = work / "course"
    for folder in ("notebooks", "docs"):
        shutil.copytree(ROOT / folder, course / folder, ignore=shutil.ignore_patterns(".*"))
    with running_lab(course, work, course_settings=True) as server:
        yield server


@pytest.fixture(scope="module")
def index(lab):
    """The index open in Chromium at a classroom's 1280 x 720."""
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(f"{lab['url']}/lab/tree/{INDEX}?reset&token={lab['token']}")
        page.wait_for_selector(".jp-Notebook .jp-RenderedMarkdown a", timeout=60_000)
        yield page


def _tab_labels(page) -> list[str]:
    return page.locator("#jp-main-dock-panel .lm-TabBar-tabLabel").all_inner_texts()


@pytest.mark.parametrize("text,tab,heading", LINKS, ids=[tab for _, tab, _ in LINKS])
def test_the_index_opens_the_doc_inside_jupyterlab(index, text, tab, heading):
    heading = heading or _title(tab)
    index.locator("#jp-main-dock-panel .lm-TabBar-tabLabel", has_text="00_index").click()
    link = index.locator(".jp-Notebook .jp-RenderedMarkdown a", has_text=text).first
    link.scroll_into_view_if_needed()
    link.click()
    preview = index.locator(".jp-MarkdownViewer:visible")
    title = preview.locator("h1", has_text=heading).first
    title.wait_for(state="visible", timeout=30_000)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    index.screenshot(path=str(ARTIFACTS / f"lab-{tab}.png"))
    assert tab in _tab_labels(index)
    assert index.locator(".jp-Dialog").count() == 0  # no "Cannot open" error


def test_a_lesson_link_in_the_index_opens_the_guide_at_that_lesson(index):
    index.locator("#jp-main-dock-panel .lm-TabBar-tabLabel", has_text="00_index").click()
    row = index.locator(".jp-RenderedMarkdown tr", has_text="Seeing the encoding").first
    row.scroll_into_view_if_needed()
    row.locator("a", has_text="guide").click()
    heading = index.locator(".jp-MarkdownViewer:visible h2", has_text="Lesson 05 · Seeing")
    heading.wait_for(state="visible", timeout=30_000)
    # The preview scrolled to it: the heading is in view, near the top of the panel.
    index.wait_for_function(
        """() => {
            const h = [...document.querySelectorAll('.jp-MarkdownViewer h2')]
                .find(e => e.textContent.startsWith('Lesson 05'));
            const r = h && h.getBoundingClientRect();
            return r && r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
        }""",
        timeout=10_000,
    )


def test_no_news_pop_up_covers_the_corner(index):
    # By now the lab has long been restored (the pop-up, when asked for, comes right after).
    assert index.locator(".Toastify__toast", has_text=NEWS).count() == 0
