"""Build the whole course as a static website: ``make site``.

Usage: python scripts/build_site.py [--out DIR]

The committed notebooks are never re-executed: their stored outputs are the ones
strict nbval tests. Sphinx (with myst-nb and sphinx-book-theme, configured in
``site/conf.py``) reads a temporary copy of ``notebooks/`` and ``docs/`` laid out as
in the repository, so relative links keep working, in which this script

* adds the table of contents (hidden toctrees in the index) and a page for the
  solutions folder;
* turns every link to a heading (``lesson.ipynb#Heading-In-JupyterLab-Form`` or
  ``guide.md#github-form``) into a link to an explicit target placed before that
  heading, since Sphinx's own heading ids follow neither rule, and a link to a file
  that is not a page (README.md, say) into its text and the file's path;
* puts a note after every cell that makes a live slider view: on the site there is
  no kernel, so the sliders exist only in JupyterLab;
* copies MathJax 3 from the ``django-static-mathjax`` package into the site, so
  the mathematics is typeset without the network.

The site lands in ``build/site`` (``index.html`` opens the contents page).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parent.parent
CONF = ROOT / "site"
OUT = ROOT / "build" / "site"
WORK = ROOT / "build" / "site-work"  # the prepared sources; site/conf.py reads its static/

LINK = re.compile(r"(?<!!)(\[([^\]]*)\]\()([^)\s]+)(\))")  # links, not images
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
LIVE_VIEW = re.compile(r"\.view\(")
IGNORE_OUTPUT = "NBVAL_IGNORE_OUTPUT"
#: MathJax 3 files the site needs (from the django-static-mathjax package, which ships
#: MathJax's own es5 build): TeX input with CommonHTML output in one file, the TeX
#: extensions it loads on demand, its web fonts, and the menu's parts.
MATHJAX_PARTS = [
    "tex-chtml.js",
    "input/tex/extensions",
    "output/chtml/fonts/woff-v2",
    "ui",
    "a11y",
]
LIVE_NOTE = """\
```{admonition} Interactive in JupyterLab
:class: tip pe-live-note

The cell above builds a figure with sliders. Sliders need a running Python kernel, so this
page cannot move them: open the notebook in JupyterLab (`make lab`) and run it to move the
sliders. The pictures on this page are the figures the notebook draws at fixed settings.
```
"""


def jupyterlab_anchor(heading: str) -> str:
    """Anchor JupyterLab gives a notebook heading: its text with spaces turned into ``-``.

    Examples
    --------
    >>> jupyterlab_anchor("Property 1: distance")
    'Property-1:-distance'
    """
    return heading.strip().replace(" ", "-")


def github_anchor(heading: str) -> str:
    """Anchor GitHub gives a Markdown heading: lower case, punctuation dropped.

    Examples
    --------
    >>> github_anchor("Lesson 03 · Choosing the frequencies")
    'lesson-03--choosing-the-frequencies'
    """
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def is_live_view(cell: dict) -> bool:
    """True for a code cell that makes a slider view and stores no output.

    Such cells call ``.view(...)`` and carry ``# NBVAL_IGNORE_OUTPUT``: their output
    is a widget, which needs a kernel and is never committed.

    Examples
    --------
    >>> is_live_view({"cell_type": "code", "outputs": [],
    ...               "source": "# NBVAL_IGNORE_OUTPUT\\nPairRotation().view()"})
    True
    >>> is_live_view({"cell_type": "code", "outputs": [], "source": "x.view()"})
    False
    """
    source = _text(cell["source"])
    return (
        cell["cell_type"] == "code"
        and IGNORE_OUTPUT in source
        and bool(LIVE_VIEW.search(source))
        and not cell.get("outputs")
    )


def _text(source: str | list[str]) -> str:
    return source if isinstance(source, str) else "".join(source)


class Document:
    """One page of the site: a notebook or a Markdown file, held as its markdown blocks.

    Parameters
    ----------
    path : Path
        Where the page lives in the work folder (the copy of the repository layout).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        if path.suffix == ".ipynb":
            self.notebook = json.loads(path.read_text(encoding="utf-8"))
            for cell in self.notebook["cells"]:
                cell["source"] = _text(cell["source"])
            self.anchor_rule = jupyterlab_anchor
        else:
            self.notebook = None
            self.markdown = path.read_text(encoding="utf-8")
            self.anchor_rule = github_anchor
        self.labels: dict[str, str] = {}

    def blocks(self) -> list[str]:
        """The markdown texts of the page (one per markdown cell, or the whole file)."""
        if self.notebook is None:
            return [self.markdown]
        return [c["source"] for c in self.notebook["cells"] if c["cell_type"] == "markdown"]

    def set_blocks(self, texts: list[str]) -> None:
        """Replace the markdown texts, in the order :meth:`blocks` gave them."""
        if self.notebook is None:
            (self.markdown,) = texts
            return
        cells = [c for c in self.notebook["cells"] if c["cell_type"] == "markdown"]
        for cell, text in zip(cells, texts, strict=True):
            cell["source"] = text

    def anchors(self) -> list[str]:
        """The anchor of every heading, in the rule of the page's own viewer."""
        found = []
        for text in self.blocks():
            for line in _outside_fences(text):
                match = HEADING.match(line)
                if match:
                    found.append(self.anchor_rule(match[2]))
        return found

    def label_for(self, anchor: str) -> str:
        """An explicit target name for the heading with ``anchor`` (made on first use)."""
        if anchor not in self.anchors():
            raise KeyError(anchor)
        if anchor not in self.labels:
            # Readable and unique across the site: the page's name, then the heading's words.
            words = re.sub(r"[^a-z0-9]+", "-", f"{self.path.stem} {anchor}".lower()).strip("-")
            label, n = words[:80].rstrip("-"), 1
            while label in self.labels.values():
                n += 1
                label = f"{words[:80].rstrip('-')}-{n}"
            self.labels[anchor] = label
        return self.labels[anchor]

    def place_labels(self) -> None:
        """Write ``(label)=`` just before every heading that some link points at."""
        texts = []
        for text in self.blocks():
            lines, fenced = [], False
            for line in text.split("\n"):
                if FENCE.match(line):
                    fenced = not fenced
                match = None if fenced else HEADING.match(line)
                if match and self.anchor_rule(match[2]) in self.labels:
                    lines.append(f"({self.labels[self.anchor_rule(match[2])]})=")
                lines.append(line)
            texts.append("\n".join(lines))
        self.set_blocks(texts)

    def write(self) -> None:
        """Save the (rewritten) page over its copy in the work folder."""
        if self.notebook is None:
            self.path.write_text(self.markdown, encoding="utf-8")
        else:
            self.path.write_text(json.dumps(self.notebook, indent=1), encoding="utf-8")


def _outside_fences(text: str) -> list[str]:
    lines, fenced = [], False
    for line in text.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def copy_sources(work: Path) -> dict[Path, Document]:
    """Copy notebooks and docs into ``work`` (repository layout); return their pages."""
    pages = {}
    sources = [
        *sorted((ROOT / "notebooks").glob("*.ipynb")),
        *sorted((ROOT / "notebooks" / "solutions").glob("*.ipynb")),
        *sorted((ROOT / "docs").glob("*.md")),
    ]
    for source in sources:
        target = work / source.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        pages[target.resolve()] = Document(target)
    return pages


def rewrite_links(pages: dict[Path, Document], src: Path) -> int:
    """Point links at headings to explicit targets, and folder links at their index page.

    ``src`` is the folder the pages were copied into (the repository's layout). A link
    to a file of the repository that is not a page of the site (README.md, a module)
    becomes its text followed by the file's path. Returns the number of links rewritten.
    A link to a missing file or heading raises ``ValueError`` (``tests/test_links.py``
    keeps the sources free of those).
    """
    rewritten = 0

    def fix(page: Document, match: re.Match) -> str:
        nonlocal rewritten
        opening, text, target, closing = match[1], match[2], match[3], match[4]
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
            return match[0]
        file_part, _, anchor = target.partition("#")
        resolved = (page.path.parent / unquote(file_part)).resolve() if file_part else None
        if resolved is not None and resolved.is_dir():
            # A folder of the site (solutions/) gets an index page from add_contents.
            rewritten += 1
            return f"{opening}{file_part.rstrip('/')}/index.md{closing}"
        if resolved is not None and resolved not in pages:
            in_repo = ROOT / resolved.relative_to(src.resolve())
            if not in_repo.exists():
                raise ValueError(f"{page.path.name}: link to a missing file: {target}")
            rewritten += 1
            where = in_repo.relative_to(ROOT).as_posix()
            return f"{text} (`{where}` in the course's repository)"
        if anchor:
            linked = pages[resolved] if resolved else page
            try:
                label = linked.label_for(unquote(anchor))
            except KeyError:
                raise ValueError(f"{page.path.name}: no heading for {target}") from None
            rewritten += 1
            return f"{opening}#{label}{closing}"
        return match[0]

    for page in pages.values():
        page.set_blocks([LINK.sub(lambda m, p=page: fix(p, m), t) for t in page.blocks()])
    for page in pages.values():
        page.place_labels()
    return rewritten


def add_live_notes(pages: dict[Path, Document]) -> int:
    """Insert a markdown note after every live-view cell; return how many were added."""
    added = 0
    for page in pages.values():
        if page.notebook is None:
            continue
        cells = []
        for cell in page.notebook["cells"]:
            cells.append(cell)
            if is_live_view(cell):
                added += 1
                note_id = f"site-live-note-{added}"
                cells.append(
                    {"cell_type": "markdown", "id": note_id, "metadata": {}, "source": LIVE_NOTE}
                )
        page.notebook["cells"] = cells
    return added


def add_contents(work: Path, pages: dict[Path, Document]) -> None:
    """Give the site its order: index, lessons, guide and cheat sheet, then solutions."""
    notebooks = work / "notebooks"
    lessons = sorted(p for p in notebooks.glob("[0-9][0-9]_*.ipynb") if p.name != "00_index.ipynb")
    solutions = sorted((notebooks / "solutions").glob("*.ipynb"))
    docs = [work / "docs" / "instructor_guide.md", work / "docs" / "cheatsheet.md"]
    docs += sorted(p for p in (work / "docs").glob("*.md") if p not in docs)

    def toctree(caption: str | None, entries: list[str], hidden: bool = True) -> str:
        options = [":maxdepth: 1"] + ([f":caption: {caption}"] if caption else [])
        options += [":hidden:"] if hidden else []
        return "```{toctree}\n" + "\n".join(options + [""] + entries) + "\n```\n"

    index = pages[(notebooks / "00_index.ipynb").resolve()]
    tree = toctree("Lessons", [p.stem for p in lessons])
    tree += "\n" + toctree("Teaching and reference", [f"/docs/{p.stem}" for p in docs])
    tree += "\n" + toctree("Solutions", ["solutions/index"])
    index.notebook["cells"].append(
        {"cell_type": "markdown", "id": "site-contents", "metadata": {}, "source": tree}
    )
    listing = (
        "# Solutions to the exercises\n\n"
        "Worked solutions to every lesson's exercises, one notebook per lesson. Try the "
        "exercises in the lesson first: each one checks itself.\n\n"
    )
    (notebooks / "solutions" / "index.md").write_text(
        listing + toctree(None, [p.stem for p in solutions], hidden=False),
        encoding="utf-8",
    )


def mathjax_folder() -> Path:
    """Where the installed MathJax 3 lives (its ``es5`` folder, as MathJax ships it)."""
    spec = importlib.util.find_spec("mathjax")
    if spec is None or spec.origin is None:
        raise SystemExit("MathJax is not installed: run `make site` (it installs the site extra)")
    folder = Path(spec.origin).parent / "static" / "mathjax"
    if not (folder / "es5" / "tex-chtml.js").is_file():
        raise SystemExit(f"no MathJax 3 in {folder}: reinstall django-static-mathjax")
    return folder


def copy_mathjax(static: Path) -> Path:
    """Copy the MathJax files the site uses into ``static/mathjax``; return that folder."""
    source = mathjax_folder()
    target = static / "mathjax"
    for part in MATHJAX_PARTS:
        if (source / "es5" / part).is_dir():
            shutil.copytree(source / "es5" / part, target / part, dirs_exist_ok=True)
        else:
            (target / part).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / "es5" / part, target / part)
    shutil.copyfile(source / "LICENSE", target / "LICENSE")
    return target


def prepare(work: Path) -> dict[str, int]:
    """Lay out the site's sources in ``work``; return counts of what was changed."""
    if work.exists():
        shutil.rmtree(work)
    pages = copy_sources(work / "src")
    links = rewrite_links(pages, work / "src")
    notes = add_live_notes(pages)
    add_contents(work / "src", pages)
    for page in pages.values():
        page.write()
    copy_mathjax(work / "static")
    return {"pages": len(pages) + 1, "links rewritten": links, "live notes": notes}


REDIRECT = """\
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Positional encoding, interactively</title>
<link rel="icon" href="data:,">
<meta http-equiv="refresh" content="0; url=notebooks/00_index.html">
</head>
<body>
<p><a href="notebooks/00_index.html">Open the course's contents</a>.</p>
</body>
</html>
"""


def build(out: Path = OUT) -> dict[str, int]:
    """Prepare the sources in ``build/site-work``, run Sphinx into ``out``; return counts.

    ``site/conf.py`` finds the copied MathJax in ``build/site-work/static``.
    """
    start = time.perf_counter()
    work = WORK
    counts = prepare(work)
    if out.exists():
        shutil.rmtree(out)
    command = [
        sys.executable, "-m", "sphinx", "-b", "html", "-q", "-W", "--keep-going",
        "-c", str(CONF), "-d", str(work / "doctrees"),
        str(work / "src"), str(out),
    ]  # fmt: skip
    if subprocess.run(command).returncode != 0:
        raise SystemExit("sphinx-build failed: its warnings and errors are printed above")
    # The site opens on the course's contents page, which lives at notebooks/00_index.html.
    (out / "index.html").write_text(REDIRECT, encoding="utf-8")
    counts["html files"] = len(list(out.rglob("*.html")))
    counts["seconds"] = round(time.perf_counter() - start, 1)
    return counts


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="where the HTML goes")
    args = parser.parse_args(argv)
    counts = build(args.out.resolve())
    print(", ".join(f"{key}: {value}" for key, value in counts.items()))
    print(f"site: {args.out / 'index.html'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
