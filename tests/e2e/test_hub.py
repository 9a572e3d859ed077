"""A class on a shared JupyterHub: the nbgitpuller link brings the course to a student.

What a hub does for one student, played on this machine with no hub and no network:
the course's committed state is published as a local git repository (branch ``main``,
``file://`` URL), JupyterLab starts with nbgitpuller in an empty folder (the student's
home), and Chromium opens the course's ``git-pull`` link. The tests check that the
link clones the course into that folder and lands on JupyterLab with the index open,
that a lesson from the clone runs top to bottom without an error, and that clicking
the link again keeps a student's edit while it brings in the instructor's new commit.
The browser may only talk to 127.0.0.1: any other request is blocked and fails the
test. Screenshots go to ``test-artifacts/hub/``.

The kernel imports ``pe_helpers`` from this environment (the editable install), as a
hub image has it installed: nbgitpuller only brings the notebooks. The published
repository holds the current commit (``HEAD``), not uncommitted edits.
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlencode, urlparse

import nbformat
import pytest
from browser_support import (
    ERROR_OUTPUTS,
    ROOT,
    chromium,
    require_browser,
    running_lab,
    skip_or_fail,
    wait_idle,
)

ARTIFACTS = ROOT / "test-artifacts" / "hub"
# The clone's folder is the repository URL's last part, as on a hub cloning from GitHub.
COURSE = "positional-encoding-notebooks"
INDEX = f"{COURSE}/notebooks/00_index.ipynb"
LESSON = f"{COURSE}/notebooks/01_why_position.ipynb"
LESSON_LINK_TEXT = "Why attention needs position"
# Git variables that would point the test's git commands at another repository.
GIT_LEAKS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY")


def _require_hub_tools() -> None:
    """Skip (or fail under PE_REQUIRE_BROWSER=1) without Chromium, nbgitpuller or git."""
    require_browser()
    if importlib.util.find_spec("nbgitpuller") is None:
        skip_or_fail("nbgitpuller is not installed: `pip install -e '.[hub]'` (make setup does it)")
    elif shutil.which("git") is None:
        skip_or_fail("git is not installed: `apt-get install -y git`")


def _without_git_leaks() -> dict[str, str]:
    """This process's environment minus the variables that redirect git to another repository."""
    return {k: v for k, v in os.environ.items() if k not in GIT_LEAKS}


def _git(*args: str, cwd: Path) -> str:
    """Run git in ``cwd`` (English messages); fail the test with its stderr if it fails."""
    env = dict(_without_git_leaks(), LANG="C")
    result = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, f"git {' '.join(args)} failed:\n{result.stderr}"
    return result.stdout.strip()


def is_local(url: str) -> bool:
    """True for a URL the browser may load: 127.0.0.1, or one that never leaves the page."""
    parsed = urlparse(url)
    if parsed.scheme in ("data", "blob", "about"):
        return True
    return parsed.scheme in ("http", "https", "ws", "wss") and parsed.hostname == "127.0.0.1"


def test_only_loopback_urls_count_as_local():
    assert is_local("http://127.0.0.1:8888/lab/tree/x.ipynb?token=abc")
    assert is_local("ws://127.0.0.1:8888/api/kernels/1/channels")
    assert is_local("data:image/png;base64,AAAA")
    assert not is_local("https://github.com/jupyterhub/nbgitpuller")
    assert not is_local("http://localhost:8888/lab")
    assert not is_local("http://127.0.0.1.example.com/lab")
    assert not is_local("file:///etc/passwd")


@pytest.fixture(scope="module")
def course_repo(tmp_path_factory):
    """The course's current commit as a bare repository on branch main, and that commit."""
    _require_hub_tools()
    probe = subprocess.run(
        ["git", "rev-parse", "HEAD"],
        cwd=ROOT,
        env=_without_git_leaks(),
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        pytest.skip(f"{ROOT} is not a git checkout: the hub test publishes its commit")
    head = probe.stdout.strip()
    remote = tmp_path_factory.mktemp("remote") / COURSE
    _git("init", "--quiet", "--bare", str(remote), cwd=remote.parent)
    _git("symbolic-ref", "HEAD", "refs/heads/main", cwd=remote)
    # A CI checkout may be shallow; the bare repository then accepts a shallow history.
    _git("config", "receive.shallowUpdate", "true", cwd=remote)
    # Whatever branch (or detached HEAD) this checkout is on, the published branch is main.
    _git("push", "--quiet", "--no-verify", str(remote), "HEAD:refs/heads/main", cwd=ROOT)
    assert _git("rev-parse", "refs/heads/main", cwd=remote) == head
    return {"path": remote, "url": remote.as_uri(), "head": head}


@pytest.fixture(scope="module")
def hub_lab(tmp_path_factory):
    """JupyterLab with nbgitpuller on 127.0.0.1 (random port, token), in an empty folder."""
    _require_hub_tools()
    work = tmp_path_factory.mktemp("hub")
    home = work / "home"
    home.mkdir()
    with running_lab(home, work, env=_without_git_leaks()) as server:
        yield server | {"home": home}


def guard(context, blocked: list[str]) -> None:
    """Abort every request and WebSocket of the context that is not local; record its URL."""

    def block(route):
        blocked.append(route.request.url)
        route.abort()

    def block_socket(socket_route):
        blocked.append(socket_route.url)
        socket_route.close()

    context.route(lambda url: not is_local(url), block)
    context.route_web_socket(lambda url: not is_local(url), block_socket)


@pytest.fixture(scope="module")
def hub_browser(hub_lab):
    """One browser context (one student's cookies) that may only reach 127.0.0.1."""
    blocked: list[str] = []
    with chromium() as session:
        context = session.new_context(viewport={"width": 1400, "height": 1000})
        guard(context, blocked)
        yield {"chromium": session, "context": context, "blocked": blocked}


def test_the_guard_blocks_and_records_what_would_leave_the_machine(hub_browser):
    blocked: list[str] = []
    context = hub_browser["chromium"].new_context()
    try:
        guard(context, blocked)
        page = context.new_page()
        outcome = page.evaluate(
            """() => fetch('https://example.invalid/page').then(() => 'loaded', () => 'refused')"""
        )
        page.evaluate("""() => { window.socket = new WebSocket('wss://example.invalid/ws'); }""")
        page.wait_for_function("() => window.socket.readyState === WebSocket.CLOSED")
        assert outcome == "refused"
        assert blocked == ["https://example.invalid/page", "wss://example.invalid/ws"]
    finally:
        context.close()


def git_pull_link(hub_lab, course_repo, urlpath: str) -> str:
    """The nbgitpuller link as a hub would serve it, with this server's token for the login."""
    query = {"repo": course_repo["url"], "branch": "main", "urlpath": urlpath}
    return f"{hub_lab['url']}/git-pull?{urlencode(query | {'token': hub_lab['token']})}"


def _follow_link(context, link: str, landing: str):
    """Open the link in a new tab; wait for the sync page to send the tab on to JupyterLab."""
    page = context.new_page()
    page.goto(link)
    page.wait_for_url(f"**/{landing}", timeout=120_000)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    wait_idle(page)
    return page


def _current_tab(page) -> tuple[str, object]:
    """The label of the main area's current tab, and the notebook panel it shows."""
    tab = page.locator("#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current").first
    panel = page.locator(f"[id='{tab.get_attribute('data-id')}']")
    return tab.locator(".lm-TabBar-tabLabel").inner_text(), panel


def _open_lesson_from_index(page):
    """Click the index's first link to lesson 01, as a student would; its panel once idle."""
    _, index = _current_tab(page)
    index.locator(".jp-RenderedMarkdown a", has_text=LESSON_LINK_TEXT).first.click()
    page.wait_for_function(
        """(label) => {
            const tab = document.querySelector(
                '#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current .lm-TabBar-tabLabel');
            return tab !== null && tab.textContent === label;
        }""",
        arg=Path(LESSON).name,
        timeout=60_000,
    )
    _, panel = _current_tab(page)
    panel.locator(".jp-Cell").first.wait_for(timeout=60_000)
    wait_idle(page)
    return panel


def _menu(page, menu: str, item: str) -> None:
    """Click ``item`` in the menu bar's ``menu``; it acts on the current notebook."""
    page.locator(".lm-MenuBar-itemLabel", has_text=menu).first.click()
    page.locator(".lm-Menu-itemLabel", has_text=item).first.click()


@pytest.fixture(scope="module")
def first_visit(hub_lab, course_repo, hub_browser):
    """The student's first click: an empty home before, the tab that the link lands on after."""
    empty_before = not any(hub_lab["home"].iterdir())
    link = git_pull_link(hub_lab, course_repo, f"lab/tree/{INDEX}")
    try:
        page = _follow_link(hub_browser["context"], link, f"lab/tree/{INDEX}")
    except Exception as exc:  # nbgitpuller logs its git commands in the server's log
        log = "\n".join(hub_lab["log"].read_text().splitlines()[-40:])
        raise AssertionError(f"the link did not land:\n{log}") from exc
    yield {"page": page, "empty_before": empty_before, "link": link}
    if not page.is_closed():
        page.close()


def test_the_link_clones_the_course_and_opens_the_index(
    first_visit, hub_lab, course_repo, hub_browser
):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page = first_visit["page"]
    page.screenshot(path=str(ARTIFACTS / "index.png"))
    assert first_visit["empty_before"], "the student's folder was not empty before the click"
    clone = hub_lab["home"] / COURSE
    assert sorted(p.name for p in hub_lab["home"].iterdir()) == [COURSE]
    assert _git("rev-parse", "HEAD", cwd=clone) == course_repo["head"]
    published = _git("ls-tree", "-r", "--name-only", course_repo["head"], "notebooks", cwd=ROOT)
    on_disk = sorted(
        p.relative_to(clone).as_posix()
        for p in (clone / "notebooks").rglob("*")
        if p.is_file() and ".ipynb_checkpoints" not in p.parts
    )
    assert on_disk == sorted(published.splitlines())
    assert "notebooks/00_index.ipynb" in on_disk and "notebooks/01_why_position.ipynb" in on_disk
    assert urlparse(page.url).path == f"/lab/tree/{INDEX}"
    label, panel = _current_tab(page)
    assert label == "00_index.ipynb"
    assert panel.locator(".jp-Cell").count() == len(
        nbformat.read(clone / "notebooks" / "00_index.ipynb", as_version=4).cells
    )
    assert panel.get_by_role("heading", name="Roadmap").count() == 1
    assert hub_browser["blocked"] == [], "the browser tried to leave 127.0.0.1"


def test_a_lesson_opened_from_the_index_runs_without_errors(first_visit, hub_lab, hub_browser):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page = first_visit["page"]
    try:
        panel = _open_lesson_from_index(page)
        code_cells = sum(
            cell.cell_type == "code"
            for cell in nbformat.read(hub_lab["home"] / LESSON, as_version=4).cells
        )
        # Clear the stored outputs first, so every prompt shows a number only once it ran.
        _menu(page, "Edit", "Clear Outputs of All Cells")
        prompts = panel.locator(".jp-CodeCell .jp-InputPrompt")
        assert prompts.count() == code_cells
        assert not any(any(ch.isdigit() for ch in t) for t in prompts.all_inner_texts())
        _menu(page, "Run", "Run All Cells")
        page.wait_for_function(
            """(panel) => {
                const prompts = [...panel.querySelectorAll('.jp-CodeCell .jp-InputPrompt')];
                return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
            }""",
            arg=panel.element_handle(),
            timeout=180_000,
        )
        wait_idle(page)
        counts = [int(t.strip("[]: \n")) for t in prompts.all_inner_texts()]
        assert counts == list(range(1, code_cells + 1)), f"cells ran out of order: {counts}"
        errors = panel.locator(ERROR_OUTPUTS)
        assert errors.count() == 0, f"error output: {errors.first.inner_text()[:500]}"
        assert panel.locator(".jp-OutputArea .jp-RenderedImage img").count() > 0
        page.screenshot(path=str(ARTIFACTS / "lesson.png"))
    finally:
        page.close()  # unsaved: the run's outputs are not written back
    assert hub_browser["blocked"] == [], "the browser tried to leave 127.0.0.1"


def test_a_second_click_keeps_the_students_edit_and_merges_the_instructors_commit(
    first_visit, hub_lab, course_repo, hub_browser, tmp_path
):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    lesson = hub_lab["home"] / LESSON
    # The student adds a note to lesson 01 and saves (this is what a save writes to disk).
    note = f"My note for the exam {secrets.token_hex(4)}"
    notebook = nbformat.read(lesson, as_version=4)
    notebook.cells.insert(1, nbformat.v4.new_markdown_cell(note))
    nbformat.write(notebook, lesson)
    # The instructor fixes the end of the same lesson and the README, and pushes to main.
    teacher = tmp_path / "teacher"
    _git("clone", "--quiet", course_repo["url"], str(teacher), cwd=tmp_path)
    fix = f"Instructor's fix {secrets.token_hex(4)}"
    upstream = nbformat.read(teacher / "notebooks" / "01_why_position.ipynb", as_version=4)
    upstream.cells[-1].source += f"\n\n{fix}"
    nbformat.write(upstream, teacher / "notebooks" / "01_why_position.ipynb")
    with open(teacher / "README.md", "a", encoding="utf-8") as readme:
        readme.write(f"\n{fix}\n")
    identity = [
        *("-c", "user.name=Instructor", "-c", "user.email=instructor@example.invalid"),
        *("-c", "commit.gpgsign=false"),
    ]
    _git(*identity, "commit", "--quiet", "-am", "Fix lesson 01", cwd=teacher)
    _git("push", "--quiet", "origin", "HEAD:main", cwd=teacher)
    fix_commit = _git("rev-parse", "HEAD", cwd=teacher)

    page = _follow_link(hub_browser["context"], first_visit["link"], f"lab/tree/{INDEX}")
    try:
        clone = hub_lab["home"] / COURSE
        merged = nbformat.read(lesson, as_version=4)
        sources = [cell.source for cell in merged.cells]
        assert note in sources, "the student's note was lost"
        assert sources.index(note) == 1
        assert fix in merged.cells[-1].source, "the instructor's fix did not arrive"
        assert fix in (clone / "README.md").read_text(encoding="utf-8")
        _git("merge-base", "--is-ancestor", fix_commit, "HEAD", cwd=clone)
        assert _git("status", "--porcelain", "--untracked-files=no", cwd=clone) == ""
        label, _ = _current_tab(page)
        assert label == "00_index.ipynb"
        # The student opens the lesson again and sees both the note and the fix.
        panel = _open_lesson_from_index(page)
        for text in (note, fix):
            rendered = panel.locator(".jp-RenderedMarkdown", has_text=text)
            rendered.first.wait_for(timeout=30_000)
            assert rendered.count() == 1, f"{text!r} is shown {rendered.count()} times"
        page.screenshot(path=str(ARTIFACTS / "second_visit.png"))
    finally:
        page.close()
    assert hub_browser["blocked"] == [], "the browser tried to leave 127.0.0.1"
