"""Re-execute notebooks top to bottom in a fresh kernel, in place, then clean them.

Usage: python scripts/regen.py NOTEBOOK [NOTEBOOK ...]

Each notebook runs in its own folder with the current environment's ``python3``
kernel; afterwards ``nbstripout --keep-output --keep-count`` drops volatile
metadata (timings, widget state) but keeps outputs and execution counts, which
strict nbval compares. Widget views are not stored: without their state, a
reopened notebook could only show "model not found" where a slider was (the
static figure above each view carries the picture; running the cell brings the
sliders back).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


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
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs if WIDGET_VIEW not in o.get("data", {})]
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
