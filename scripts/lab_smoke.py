"""Start JupyterLab from this environment, load its page, check the widget extension, stop.

Usage: python scripts/lab_smoke.py

Used by ``make test-oldest``: the unit tests and nbval never start the JupyterLab
server, so this proves the declared floor of ``jupyterlab`` serves the course and
ships the ipywidgets front end (``@jupyter-widgets/jupyterlab-manager``) with it.
The server is the browser suites' (``tests/e2e/browser_support.py``): 127.0.0.1, a
random port and token, a temporary empty folder, stopped before the script exits.
Exits 1 with the server log when anything is missing.
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
import urllib.request
from pathlib import Path

WIDGETS_EXTENSION = "@jupyter-widgets/jupyterlab-manager"
SUPPORT = Path(__file__).resolve().parents[1] / "tests" / "e2e" / "browser_support.py"


def _browser_support():
    spec = importlib.util.spec_from_file_location("browser_support", SUPPORT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        root = work / "root"
        root.mkdir()
        problem = None
        try:
            with _browser_support().running_lab(root, work) as server:
                url, token = server["url"], server["token"]
                page = urllib.request.urlopen(f"{url}/lab?token={token}", timeout=30).read()
                page = page.decode("utf-8", "replace")
                if "jupyter-config-data" not in page:
                    problem = "/lab did not return the JupyterLab page"
                elif WIDGETS_EXTENSION not in page:
                    problem = f"/lab does not load the widget extension {WIDGETS_EXTENSION}"
        except RuntimeError as exc:  # the server did not start; the message holds its log
            print(f"lab smoke test failed: {exc}", file=sys.stderr)
            return 1
        if problem:
            print(f"lab smoke test failed: {problem}\n--- server log ---", file=sys.stderr)
            print((work / "server.log").read_text(), file=sys.stderr)
            return 1
    import jupyterlab

    print(f"JupyterLab {jupyterlab.__version__} served /lab with {WIDGETS_EXTENSION}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
