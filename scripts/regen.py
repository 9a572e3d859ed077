"""Re-execute notebooks top to bottom in a fresh kernel, in place, then clean them.

Usage: python scripts/regen.py NOTEBOOK [NOTEBOOK ...]

Each notebook runs in its own folder with the current environment's ``python3``
kernel; afterwards ``nbstripout --keep-output --keep-count`` drops volatile
metadata (timings, widget state) but keeps outputs and execution counts, which
strict nbval compares. A live figure's output is kept whole: the widget view, the
picture at its starting values (``image/png``, which JupyterLab shows for a notebook
not run yet, as nbconvert, GitHub and the website do) and its one-line summary
(``text/plain``, compared by strict nbval).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient


def regenerate(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        record_timing=False,
    )
    client.execute()
    nbformat.write(nb, path)
    subprocess.run(
        [sys.executable, "-m", "nbstripout", "--keep-output", "--keep-count", str(path)],
        check=True,
    )


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    for name in argv:
        path = Path(name)
        print(f"executing {path}", flush=True)
        regenerate(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
