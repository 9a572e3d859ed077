"""Kernel memory over repeated Run Alls: ``python benchmarks/bench_memory.py [NOTEBOOK ...]``.

Each notebook runs three times, top to bottom, in one kernel (as a learner who presses Run All
again and again); the kernel's resident memory is read after each run, once garbage is
collected and free heap pages are handed back (:data:`RELEASE`). The first run loads
everything; what the second and third add is what a run leaks. Target: under 5 MB a run.
Prints one line per notebook and exits 1 when a run grows the kernel by more than the target.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
#: Run Alls per notebook (``PE_MEMORY_RUNS`` in the environment to change it).
RUNS = int(os.environ.get("PE_MEMORY_RUNS", "3"))
TARGET_MB = 5.0
#: Run in the kernel before each reading: free what nothing holds, and hand the C heap's free
#: pages back to the system (glibc's malloc_trim), so the reading is what the kernel keeps,
#: not the high-water mark of a run that held two generations of a lesson's objects at once.
RELEASE = """\
import ctypes, gc
gc.collect()
try:
    ctypes.CDLL("libc.so.6").malloc_trim(0)
except (OSError, AttributeError):
    pass
"""


def _rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` in MB (Linux: /proc/<pid>/status)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def run_all_three_times(path: Path) -> list[float]:
    """The kernel's resident memory (MB) after each of :data:`RUNS` Run Alls of ``path``."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    sizes = []
    with client.setup_kernel():
        pid = client.km.provisioner.process.pid
        for _ in range(RUNS):
            for index, cell in enumerate(nb.cells):
                if cell.cell_type == "code":
                    client.execute_cell(cell, index)
            client.execute_cell(nbformat.v4.new_code_cell(RELEASE), 0, store_history=False)
            time.sleep(0.2)
            sizes.append(_rss_mb(pid))
    return sizes


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    worst = 0.0
    for path in paths:
        sizes = run_all_three_times(path)
        growth = [b - a for a, b in zip(sizes[:-1], sizes[1:], strict=True)]
        worst = max(worst, *growth)
        shown = ", ".join(f"{s:.0f}" for s in sizes)
        grown = ", ".join(f"{g:+.1f}" for g in growth)
        print(f"{path.name:38} kernel MB after each Run All: {shown}; per later run: {grown}")
    print(f"largest growth of a later Run All: {worst:.1f} MB (target < {TARGET_MB:g} MB)")
    return 0 if worst < TARGET_MB else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
