"""Write the prev / index / next links of every notebook, and its set-up guard.

Usage: python scripts/navigation.py [--check]

Lessons are the files ``notebooks/NN_slug.ipynb`` in name order
(:func:`pe_helpers.lessons.lessons`); a lesson's title is its first level-1
markdown heading. Solution notebooks (``notebooks/solutions/NN_slug_solutions.ipynb``)
link back to their lesson. The links live in markdown cells tagged ``nav``; this
script owns those cells and rewrites them. It also owns the first lines of each
notebook's first code cell, :data:`GUARD`: ``import pe_helpers``, whose comment says
what to run when a kernel without the course shows it in a ``ModuleNotFoundError``
(importing the package in a kernel draws each inline figure once, as laid out:
:func:`pe_helpers.figures.draw_inline_once`).
``--check`` changes nothing and exits 1 if anything is stale.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import nbformat

import pe_helpers
from pe_helpers.lessons import NOTEBOOKS, lessons

ROOT = NOTEBOOKS.parent
TAG = "nav"
INDEX = "00_index.ipynb"
#: The set-up lines: the package, then the version this notebook needs (the package's own at
#: `make nav` time), checked by :func:`pe_helpers.require`. Each comment is what a kernel that
#: lacks the course (``ModuleNotFoundError``) or has a course older than ``require`` shows.
GUARD = (
    "import pe_helpers  # the course's package (missing? start JupyterLab with `make lab`)\n\n"
    f'pe_helpers.require("{pe_helpers.__version__}")  # too old? ask your hub admin to reinstall '
    "the course\n"
)


def lesson_paths() -> list[Path]:
    return [lesson.notebook for lesson in lessons()]


def solutions() -> list[Path]:
    return [lesson.solutions for lesson in lessons() if lesson.solutions]


def title(path: Path) -> str:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown" and TAG not in cell.metadata.get("tags", []):
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return path.stem


def _link(text: str, target: str) -> str:
    return f"[{text}]({target})"


def lesson_nav(order: list[Path], index: int) -> str:
    """The row ``← previous | Contents | next →`` of lesson ``index``: one link per target
    (the first lesson's previous notebook is the contents, so it links there once)."""
    parts = []
    if index > 0 and order[index - 1].name != INDEX:
        prev = order[index - 1]
        parts.append("← " + _link(title(prev), prev.name))
    if order[index].name != INDEX:
        parts.append(("← " if index == 1 else "") + _link("Contents", INDEX))
    if index + 1 < len(order):
        nxt = order[index + 1]
        parts.append(_link(title(nxt), nxt.name) + " →")
    return " | ".join(parts)


def solution_nav(path: Path) -> str:
    lesson = NOTEBOOKS / path.name.replace("_solutions", "")
    back = _link("Back to the lesson: " + title(lesson), f"../{lesson.name}")
    return back + " | " + _link("Contents", "../00_index.ipynb")


def with_nav(nb: nbformat.NotebookNode, text: str) -> nbformat.NotebookNode:
    """Return ``nb`` with exactly one nav cell first and one last, holding ``text``."""
    cells = [c for c in nb.cells if TAG not in c.metadata.get("tags", [])]
    body = f"<small>{text}</small>"

    def nav_cell(where: str) -> nbformat.NotebookNode:
        cell = nbformat.v4.new_markdown_cell(body, id=f"nav-{where}")
        cell.metadata["tags"] = [TAG]
        return cell

    nb.cells = [nav_cell("top"), *cells, nav_cell("bottom")]
    return with_guard(nb)


def with_guard(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Return ``nb`` whose first code cell holds :data:`GUARD` once, as isort places it.

    That is just before the cell's first line importing from ``pe_helpers`` (``import x``
    comes before ``from x import`` within a section), so an older package stops at ``require``
    before an import of a name it lacks fails.
    """
    code = [c for c in nb.cells if c.cell_type == "code"]
    if code:
        lines = code[0].source.lstrip("\n").split("\n")
        # ``import pe_helpers`` and ``pe_helpers.require(...)`` (any version, with or without
        # their comments) become the guard.
        old = re.compile(r"import pe_helpers|pe_helpers\.require\(.*\)")
        lines = [line for line in lines if not old.fullmatch(line.split("#")[0].strip())]
        guard = GUARD.rstrip("\n").split("\n")
        first = next(
            (i for i, line in enumerate(lines) if line.startswith("from pe_helpers")), None
        )
        if first is not None:
            lines[first:first] = guard
        else:  # nothing else from the package: its own block after the other imports
            starts = ("import ", "from ")
            last = max((i for i, line in enumerate(lines) if line.startswith(starts)), default=-1)
            lines[last + 1 : last + 1] = ["", *guard] if last >= 0 else guard
        # One blank line at most between blocks (a guard removed above may leave two).
        lines = [line for i, line in enumerate(lines) if line or i == 0 or lines[i - 1]]
        code[0].source = "\n".join(lines)
    return nb


def _same(a: nbformat.NotebookNode, b: nbformat.NotebookNode) -> bool:
    def strip(nb):
        return [(c.cell_type, c.source, c.metadata.get("tags", [])) for c in nb.cells]

    return strip(a) == strip(b)


def targets() -> list[tuple[Path, str]]:
    order = lesson_paths()
    out = [(p, lesson_nav(order, i)) for i, p in enumerate(order)]
    out += [(p, solution_nav(p)) for p in solutions()]
    return out


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for path, text in targets():
        nb = nbformat.read(path, as_version=4)
        new = with_nav(nbformat.read(path, as_version=4), text)
        if _same(nb, new):
            continue
        stale.append(path)
        if not check:
            nbformat.write(new, path)
            # Keep it clean (cell ids renumbered, outputs and counts kept), as `make regen` does.
            subprocess.run(
                [sys.executable, "-m", "nbstripout", "--keep-output", "--keep-count", str(path)],
                check=True,
            )
    for path in stale:
        print(f"{'stale' if check else 'updated'}: {path.relative_to(ROOT)}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
