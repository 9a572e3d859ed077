"""What the browser suites share: Chromium, a JupyterLab server, and JupyterLab page waits.

Used by ``test_browser.py`` (every live figure), ``benchmarks/bench_browser.py`` (Run All and
drag times), ``test_hub.py`` (the nbgitpuller link), ``test_site.py`` (the website) and
``scripts/lab_smoke.py`` (``make test-oldest``).
Chromium is ``$PE_CHROMIUM`` (default ``/usr/bin/chromium``, Debian's package); playwright's
own browser download is never used. A missing browser skips a test with what to install,
unless ``PE_REQUIRE_BROWSER=1`` (set by ``.ci/run``) turns the skip into a failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("PE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
#: The course's JupyterLab settings, which ``make lab`` installs into .venv (no news pop-up).
LAB_OVERRIDES = ROOT / "lab" / "overrides.json"
#: The ``--LabApp`` options of ``make lab`` (``tests/test_makefile.py`` checks it passes them).
LAB_OPTIONS = ("--LabApp.news_url=None",)
ERROR_OUTPUTS = (
    '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"],'
    '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.error"]'
)


def skip_or_fail(problem: str) -> None:
    """Skip the test with ``problem``, or fail it when ``PE_REQUIRE_BROWSER=1``."""
    import pytest

    if os.environ.get("PE_REQUIRE_BROWSER") == "1":
        pytest.fail(problem + " (PE_REQUIRE_BROWSER=1 makes this a failure)")
    pytest.skip(problem)


def require_browser() -> None:
    """Chromium at :data:`CHROMIUM` and playwright importable, or skip (fail under CI)."""
    if not Path(CHROMIUM).exists():
        skip_or_fail(
            f"Chromium not found at {CHROMIUM}: install it with `apt-get install -y chromium`"
        )
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        skip_or_fail("playwright is not installed: `pip install -e '.[test]'`")


@contextlib.contextmanager
def chromium() -> Iterator:
    """Headless Chromium from :data:`CHROMIUM` with the suite's flags, closed after the block."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def write_settings(folder: Path, news: bool = True) -> None:
    """JupyterLab user settings: every cell kept in the DOM, and (with ``news``, the default)
    no news pop-up and no update check."""
    settings = {
        "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    }
    if news:
        settings["@jupyterlab/apputils-extension/notification.jupyterlab-settings"] = {
            "fetchNews": "false",
            "checkForUpdates": False,
        }
    for relative, content in settings.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(content))


@contextlib.contextmanager
def running_lab(
    root_dir: Path,
    work: Path,
    env: Mapping[str, str] | None = None,
    timeout: float = 90.0,
    course_settings: bool = False,
) -> Iterator[dict]:
    """JupyterLab serving ``root_dir`` on 127.0.0.1 (random port and token) until the block ends.

    Its settings, workspaces and runtime files live under ``work`` (settings from
    :func:`write_settings`), its log in ``work / "server.log"``; kernels get the inline
    backend (``MPLBACKEND`` removed), as a learner's do. ``env`` replaces the environment it
    starts from (default: this process's). With ``course_settings`` the news pop-up is left
    to what ``make lab`` sets up: :data:`LAB_OVERRIDES` in the lab's application settings
    and its ``--LabApp`` options (:data:`LAB_OPTIONS`). Yields ``{"url", "token", "log"}``;
    raises ``RuntimeError`` with the server's log when it does not answer within ``timeout``
    seconds.
    """
    write_settings(work / "settings", news=not course_settings)
    port, token = free_port(), secrets.token_hex(16)
    server_env = dict(
        os.environ if env is None else env,
        JUPYTERLAB_SETTINGS_DIR=str(work / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(work / "workspaces"),
        JUPYTER_RUNTIME_DIR=str(work / "runtime"),
    )
    server_env.pop("MPLBACKEND", None)
    command = [
        sys.executable, "-m", "jupyterlab", "--no-browser",
        "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root_dir}",
    ]  # fmt: skip
    if course_settings:
        overrides = work / "app-settings" / "overrides.d" / "pe-course.json"
        overrides.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(LAB_OVERRIDES, overrides)
        command += [f"--LabApp.app_settings_dir={overrides.parent.parent}", *LAB_OPTIONS]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")  # JupyterLab refuses root without it
    log_path = work / "server.log"
    with open(log_path, "w") as log:
        server = subprocess.Popen(
            command, cwd=work, env=server_env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2)
                break
            except OSError as exc:
                if server.poll() is not None or time.monotonic() > deadline:
                    log = log_path.read_text()
                    raise RuntimeError("JupyterLab did not start:\n" + log) from exc
                time.sleep(0.5)
        yield {"url": url, "token": token, "log": log_path}
    finally:
        try:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def wait_idle(page, timeout_ms: int = 60_000) -> None:
    """Wait until JupyterLab's status bar shows an idle kernel."""
    page.wait_for_function(
        """() => {
            const items = [...document.querySelectorAll('.jp-StatusBar-TextItem')];
            return items.some(e => /\\|\\s*Idle/.test(e.textContent));
        }""",
        timeout=timeout_ms,
    )


def run_all(page) -> None:
    """Run > Run All Cells, then wait until every code cell has run and the kernel is idle."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    page.wait_for_function(
        """() => {
            const prompts = [...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')];
            return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
        }""",
        timeout=120_000,
    )
    wait_idle(page)


def open_notebook(browser, lab: Mapping[str, str], name: str):
    """A new page with notebook ``name`` of the served folder open and its kernel idle."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{lab['url']}/lab/tree/{name}?reset&token={lab['token']}")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    wait_idle(page)
    return page
