"""Re-execute notebooks top to bottom in a fresh kernel, in place, then clean them.

Usage: python scripts/regen.py NOTEBOOK [NOTEBOOK ...]

Each notebook runs in its own folder with the current environment's ``python3``
kernel; afterwards ``nbstripout --keep-output --keep-count`` drops volatile
metadata (timings, widget state) but keeps outputs and execution counts, which
strict nbval compares. A live figure's output is kept whole: the widget view, the
picture at its starting values (``image/png``, which JupyterLab shows for a notebook
not run yet, as nbconvert, GitHub and the website do) and its one-line summary
(``text/plain``, compared by strict nbval). The notebook's metadata records the CPU
kernels it ran with (``pe_helpers.cpu_kernels``: numpy's SIMD extensions, OpenBLAS's
core): its pictures' last pixels follow them, and the website draws its own pictures
under the same kernels where its CPU has them (``scripts/build_site.py``). So the notebooks
must all record one set: where they do and this CPU has other kernels, this script starts
itself again under theirs (as the site's build does), so notebooks regenerated one at a
time keep agreeing. ``--native`` runs under this CPU's own kernels instead: then
regenerate every notebook (``make regen`` with no ``NOTEBOOKS``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from pe_helpers.seeds import cpu_kernels

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_site import restart_under_notebook_kernels  # noqa: E402 - a sibling script

#: Set once this script runs under the notebooks' kernels, so it does not start again.
KERNELS_SET = "PE_REGEN_NOTEBOOK_KERNELS"


def _joined_streams(outputs: list) -> list:
    """Consecutive prints to one stream as one output: how many messages the kernel sent
    them in depends on its timing, and the stored notebook should not."""
    joined = []
    for output in outputs:
        last = joined[-1] if joined else None
        if (
            last is not None
            and output.get("output_type") == "stream" == last.get("output_type")
            and output.get("name") == last.get("name")
        ):
            last["text"] += output["text"]
        else:
            joined.append(output)
    return joined


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
            cell.outputs = _joined_streams(cell.outputs)
    nbformat.write(nb, path)
    subprocess.run(
        [sys.executable, "-m", "nbstripout", "--keep-output", "--keep-count", str(path)],
        check=True,
    )
    cleaned = nbformat.read(path, as_version=4)
    cleaned.metadata.setdefault("pe_helpers", {})["cpu_kernels"] = cpu_kernels()
    nbformat.write(cleaned, path)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--native"]:
        argv = argv[1:]
    elif argv:  # regenerated one at a time, the notebooks keep agreeing
        restart_under_notebook_kernels(
            str(Path(__file__).resolve()),
            argv,
            KERNELS_SET,
            "these notebooks run with {here}: regenerate every notebook so that they all "
            "agree (the website draws under one set)",
        )
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
