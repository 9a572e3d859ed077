"""Start JupyterLab from this environment, load its page, check the widget extension, stop.

Usage: python scripts/lab_smoke.py

Used by ``make test-oldest``: the unit tests and nbval never start the JupyterLab
server, so this proves the declared floor of ``jupyterlab`` serves the course and
ships the ipywidgets front end (``@jupyter-widgets/jupyterlab-manager``) with it.
The server listens on 127.0.0.1 with a random port and token, serves a temporary
empty folder, and is stopped before the script exits. Exits 1 with the server log
when anything is missing.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

WIDGETS_EXTENSION = "@jupyter-widgets/jupyterlab-manager"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main() -> int:
    port, token = _free_port(), secrets.token_hex(16)
    with tempfile.TemporaryDirectory() as work:
        env = dict(
            os.environ,
            JUPYTER_RUNTIME_DIR=str(Path(work) / "runtime"),
            JUPYTERLAB_WORKSPACES_DIR=str(Path(work) / "workspaces"),
        )
        command = [
            sys.executable, "-m", "jupyterlab", "--no-browser",
            "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
            f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={work}",
        ]  # fmt: skip
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            command.append("--allow-root")
        log_path = Path(work) / "server.log"
        with open(log_path, "w") as log:
            server = subprocess.Popen(
                command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        url = f"http://127.0.0.1:{port}"
        problem = None
        try:
            deadline = time.monotonic() + 90
            while True:
                try:
                    urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2)
                    break
                except OSError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        problem = "JupyterLab did not start"
                        break
                    time.sleep(0.5)
            if problem is None:
                page = urllib.request.urlopen(f"{url}/lab?token={token}", timeout=30).read()
                page = page.decode("utf-8", "replace")
                if "jupyter-config-data" not in page:
                    problem = "/lab did not return the JupyterLab page"
                elif WIDGETS_EXTENSION not in page:
                    problem = f"/lab does not load the widget extension {WIDGETS_EXTENSION}"
        finally:
            try:
                os.killpg(server.pid, signal.SIGTERM)
                server.wait(timeout=15)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
        if problem:
            print(f"lab smoke test failed: {problem}\n--- server log ---", file=sys.stderr)
            print(log_path.read_text(), file=sys.stderr)
            return 1
    import jupyterlab

    print(f"JupyterLab {jupyterlab.__version__} served /lab with {WIDGETS_EXTENSION}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
