"""Build the whole course as a static website: ``make site``.

Usage: python scripts/build_site.py [--out DIR] [--jobs N] [--fresh] [--no-solutions]

The committed notebooks are never re-executed: their stored outputs are the ones
strict nbval tests. Sphinx (with myst-nb and sphinx-book-theme, configured in
``site/conf.py``) reads a temporary copy of ``notebooks/`` and ``docs/`` laid out as
in the repository, so relative links keep working, in which this script

* writes the instructor guide, the cheat sheet and the index's lesson table from their
  sources (``scripts/navigation.py``: the notebooks and ``docs/guide/``), as ``make nav`` does;
* adds the table of contents (hidden toctrees in the index) and a page for the
  solutions folder, and keeps the solutions out of the site's search (``--no-solutions``
  or ``PE_SITE_SOLUTIONS=0`` leaves them out of the site, for a graded class);
* turns every link to a heading (``lesson.ipynb#Heading-In-JupyterLab-Form`` or
  ``guide.md#github-form``) into a link to an explicit target placed before that
  heading, since Sphinx's own heading ids follow neither rule, and a link to a file
  that is not a page (README.md, say) into its text and the file's path;
* gives every live figure its controls without a kernel: the cell's stored view (its
  ``pe_helpers`` metadata names the figure and its starting values) is replaced by HTML
  sliders and buttons over an ``<img>``, and the figure's pictures over a grid of values
  per control (the figure's own ``site_grid``, or :func:`plan_axes`'s rule) are drawn now,
  by the figure's own view, and written into ``_static/live/``; ``site/static/live_figures.js``
  swaps the picture as a control moves, fetching each one when first needed;
* copies MathJax 3 from the ``django-static-mathjax`` package into the site, so
  the mathematics is typeset without the network.

The pictures are drawn on every core (``--jobs``) and kept in ``build/site-work/frames``
under a key of the code they depend on (the package's shared modules and the figure's own
lesson home), of the grid and of the CPU kernels that draw them, so a build after an edit to
the notebooks' text, the docs or another lesson draws that figure's pictures no more
(``--fresh`` ignores what is kept). They are drawn under the CPU kernels the notebooks were
run with (their metadata records them, ``scripts/regen.py``) where this CPU has them: a
trained model's last bits, and so a curve's pixels, follow numpy's SIMD code, and the site's
first picture of a figure must be the notebook's, pixel for pixel
(:func:`run_under_notebook_kernels`). The site lands in ``build/site`` (``index.html`` opens
the contents page).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import html
import importlib
import importlib.util
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple
from urllib.parse import unquote

sys.path.insert(0, str(Path(__file__).resolve().parent))
import navigation  # noqa: E402 - a sibling script: the generated docs and the index's table
from navigation import github_anchor  # noqa: E402

from pe_helpers.i18n import language, set_language, translate  # noqa: E402 - the zh/ edition

ROOT = Path(__file__).resolve().parent.parent
CONF = ROOT / "site"
OUT = ROOT / "build" / "site"
WORK = ROOT / "build" / "site-work"  # the prepared sources; site/conf.py reads its static/
#: The Chinese edition's prepared sources and pictures; its pages land in ``<out>/zh``.
WORK_ZH = ROOT / "build" / "site-work-zh"
#: What the site's own words say in each edition: the contents' captions, the solutions'
#: page, and the language switch (a link to the same page in the other edition).
WORDS = {
    "en": {
        "lessons": "Lessons",
        "reference": "Teaching and reference",
        "solutions": "Solutions",
        "solutions page": "# Solutions to the exercises\n\nWorked solutions to every lesson's "
        "exercises, one notebook per lesson. Try the exercises in the lesson first: each one "
        "checks itself.\n\n",
        "other": "中文版",
    },
    "zh": {
        "lessons": "课程",
        "reference": "教学与参考",
        "solutions": "参考答案",
        "solutions page": "# 练习参考答案\n\n每节课的练习都有一个参考答案 notebook。请先在课程里"
        "自己做练习：每道练习都会自己检查答案。\n\n",
        "other": "English",
    },
}
#: The nav cells' link to the other edition in JupyterLab; the site has its own switch.
EDITION_LINK = re.compile(r" · \[(?:中文版|English)\]\([^)]*\)")
PACKAGE = ROOT / "pe_helpers"  # the live figures' code: the pictures' cache key reads it

LINK = re.compile(r"(?<!!)(\[([^\]]*)\]\()([^)\s]+)(\))")  # links, not images
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
LIVE_VIEW = re.compile(r"\.view\(")
#: The mime type of a stored widget: a live view's output carries it beside its picture.
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
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

#: Most pictures :func:`plan_axes` gives one figure by its own rule (a figure with a
#: ``site_grid`` may have more: its grid is chosen by hand).
FRAME_BUDGET = 60
#: Most pictures any one figure may have on the site, whoever chose its grid.
MAX_FRAMES = 400
#: The pictures' format: lossless WebP, the same pixels as the view's PNG in 0.48 of its
#: bytes (measured on the course's figures) for 14 ms of CPU a picture; method 0 costs 12 ms
#: for 0.73, quality 50 25 ms for 0.40.
FRAME_EXTENSION = "webp"
FRAME_OPTIONS = {"lossless": True, "method": 1, "quality": 0}
#: Changed whenever the way pictures are drawn or stored changes: old kept pictures then go.
FRAME_VERSION = 1


def _decades(low: float, high: float, mantissas: tuple[float, ...]) -> tuple[float, ...]:
    """Every ``m · 10^e`` in ``[low, high]`` with ``m`` in ``mantissas``, and both ends."""
    found = {float(low), float(high)}
    for exponent in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1):
        for mantissa in mantissas:
            value = float(f"{mantissa * 10.0**exponent:.6g}")
            if low <= value <= high:
                found.add(value)
    return tuple(sorted(found))


def _steps(low: float, high: float, step: float) -> tuple[float, ...]:
    """``low, low + step, …`` up to ``high``, rounded to 10 decimals (no float drift)."""
    count = round((high - low) / step)
    return tuple(round(low + k * step, 10) for k in range(count + 1))


def jupyterlab_anchor(heading: str) -> str:
    """Anchor JupyterLab gives a notebook heading: its text with spaces turned into ``-``.

    Examples
    --------
    >>> jupyterlab_anchor("Property 1: distance")
    'Property-1:-distance'
    """
    return heading.strip().replace(" ", "-")


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
        return [self.anchor_rule(h) for text in self.blocks() for _, h in _lines(text) if h]

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
            lines = []
            for line, heading in _lines(text):
                if heading and self.anchor_rule(heading) in self.labels:
                    lines.append(f"({self.labels[self.anchor_rule(heading)]})=")
                lines.append(line)
            texts.append("\n".join(lines))
        self.set_blocks(texts)

    def write(self) -> None:
        """Save the (rewritten) page over its copy in the work folder."""
        if self.notebook is None:
            self.path.write_text(self.markdown, encoding="utf-8")
        else:
            self.path.write_text(json.dumps(self.notebook, indent=1), encoding="utf-8")


def _lines(text: str) -> Iterator[tuple[str, str | None]]:
    """Each line of ``text``, with its heading's text (None off a heading or in a fence)."""
    fenced = False
    for line in text.split("\n"):
        fenced ^= bool(FENCE.match(line))
        match = None if fenced else HEADING.match(line)
        yield line, match[2] if match else None


#: ``PE_SITE_SOLUTIONS=0`` builds the site without the solutions (for a graded class).
SOLUTIONS_SET = "PE_SITE_SOLUTIONS"


def solutions_wanted() -> bool:
    """Whether the site shows the solutions: yes unless ``PE_SITE_SOLUTIONS=0``."""
    return os.environ.get(SOLUTIONS_SET, "1").strip() != "0"


def copy_sources(
    work: Path, solutions: bool = True, root: Path | None = None
) -> dict[Path, Document]:
    """Copy the notebooks and docs of the course in ``root`` (default :data:`ROOT`) into
    ``work`` (its layout); return their pages.

    The instructor guide, the cheat sheet and the index's lesson table are written from
    their sources, the notebooks and ``docs/guide/`` (``scripts/navigation.py``), as
    ``make nav`` writes them. With ``solutions=False`` the solution notebooks are left out
    (a link to one then becomes its text and path, as a link to any file that is no page
    does).
    """
    root = ROOT if root is None else root
    facts = navigation.course_facts(root)
    generated = navigation.generated_docs(root, facts)
    pages = {}
    sources = [
        *sorted((root / "notebooks").glob("*.ipynb")),
        *(sorted((root / "notebooks" / "solutions").glob("*.ipynb")) if solutions else []),
        *sorted({*(root / "docs").glob("*.md"), *generated}),
    ]
    for source in sources:
        target = work / source.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        if source in generated:
            target.write_text(generated[source], encoding="utf-8")
        else:
            shutil.copyfile(source, target)
        page = pages[target.resolve()] = Document(target)
        if source.name == navigation.INDEX:
            navigation.write_roadmap(page.notebook["cells"], facts)
    return pages


def copy_zh_sources(
    work: Path, solutions: bool = True, root: Path | None = None
) -> dict[Path, Document]:
    """Copy the Chinese edition of the course in ``root`` (``notebooks/zh``, ``docs/zh``,
    written by ``scripts/i18n.py``) into ``work`` in the English layout (``notebooks/``,
    ``docs/``); return its pages. Each relative link points at the same file from its new
    place: a Chinese page at its copy, any other file of the repository where it lies."""
    root = ROOT if root is None else root
    zh = root / "notebooks" / "zh"
    moves = {p: work / "notebooks" / p.name for p in sorted(zh.glob("*.ipynb"))}
    if solutions:
        moves |= {
            p: work / "notebooks" / "solutions" / p.name
            for p in sorted(zh.glob("solutions/*.ipynb"))
        }
    moves |= {p: work / "docs" / p.name for p in sorted((root / "docs" / "zh").glob("*.md"))}
    pages = {}
    for source, target in moves.items():

        def move(match: re.Match, source: Path = source, target: Path = target) -> str:
            opening, link, closing = match[1], match[3], match[4]
            if re.match(r"^[a-z][a-z0-9+.-]*:", link) or link.startswith(("//", "#")):
                return match[0]
            part, hash_, anchor = link.partition("#")
            real = (source.parent / unquote(part)).resolve()
            if not real.exists():
                return match[0]
            moved = moves.get(real, work / real.relative_to(root.resolve()))
            return f"{opening}{os.path.relpath(moved, target.parent)}{hash_}{anchor}{closing}"

        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        page = pages[target.resolve()] = Document(target)
        page.set_blocks([LINK.sub(move, text) for text in page.blocks()])
    return pages


def language_switch(page: Path, target: Path, language: str) -> str:
    """The link from ``page`` (a path in the site's layout) of edition ``language`` to page
    ``target`` of the other edition, as HTML."""
    other_root = "zh/" if language == "en" else "../"
    url = "../" * (len(page.parts) - 1) + other_root + target.with_suffix(".html").as_posix()
    other = "zh" if language == "en" else "en"
    return (
        f'<p class="pe-language"><a href="{url}" hreflang="{other}" lang="{other}">'
        f"{WORDS[language]['other']}</a></p>"
    )


def add_language_switch(
    pages: dict[Path, Document], src: Path, language: str, root: Path | None = None
) -> None:
    """Give every page a link to the same page in the other edition (its contents page when
    it has no twin), in place of the nav cells' link to the other edition's notebook."""
    root = ROOT if root is None else root
    for page in pages.values():
        rel = page.path.relative_to(src)
        if language == "en":
            twin = root / rel.parts[0] / "zh" / Path(*rel.parts[1:])
        else:
            twin = root / rel
        target = rel if twin.is_file() else Path("notebooks") / navigation.INDEX
        switch = language_switch(rel, target, language)
        if page.notebook is None:
            page.markdown = f"{switch}\n\n{page.markdown}"
            continue
        for cell in page.notebook["cells"]:
            if "nav" in cell.get("metadata", {}).get("tags", []):
                cell["source"] = EDITION_LINK.sub("", cell["source"])
        page.notebook["cells"].insert(
            0, {"cell_type": "markdown", "id": "site-language", "metadata": {}, "source": switch}
        )


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


def live_output(cell: dict) -> dict | None:
    """The stored output of a live view's cell, or None for any other cell.

    A live view's cell calls ``.view(`` and stores one output holding the widget, its first
    picture (``image/png``) and, in its metadata, ``{"pe_helpers": {"figure": ..., "values":
    ...}}``: the figure's module and class, and the controls' starting values.

    Examples
    --------
    >>> output = {"output_type": "display_data", "data": {WIDGET_MIME: {}, "image/png": ""},
    ...           "metadata": {"pe_helpers": {"figure": "m.Demo", "values": {}}}}
    >>> cell = {"cell_type": "code", "source": "Demo().view()", "outputs": [output]}
    >>> live_output(cell)["metadata"]
    {'pe_helpers': {'figure': 'm.Demo', 'values': {}}}
    >>> live_output({"cell_type": "code", "source": "Demo().view()", "outputs": []}) is None
    True
    """
    if cell["cell_type"] != "code" or not LIVE_VIEW.search(_text(cell["source"])):
        return None
    for output in cell.get("outputs", []):
        if output.get("output_type") not in ("display_data", "execute_result"):
            continue
        data, about = output.get("data", {}), output.get("metadata", {}).get("pe_helpers")
        if WIDGET_MIME in data and "image/png" in data and isinstance(about, dict):
            if isinstance(about.get("figure"), str) and isinstance(about.get("values"), dict):
                return output
    return None


class Axis(NamedTuple):
    """One control of a live figure as the site shows it: the values it steps through.

    Attributes
    ----------
    name, label, kind : str
        The control's keyword, its label in the notebook and its kind (``Control.kind``).
    values : tuple
        The values the site has pictures for, in the control's order.
    start : int
        Index in ``values`` of the notebook's starting value.
    full : int
        How many values the notebook's control has: its options, or its slider's steps.
    alone : bool
        True for a control that moves one at a time with the figure's other such controls
        (the figure's ``site_one_at_a_time``): while it is off its starting value, they are
        at theirs.
    """

    name: str
    label: str
    kind: str
    values: tuple
    start: int
    full: int
    alone: bool = False

    @property
    def readouts(self) -> list[str]:
        """Each value as the site's control shows it."""
        return [readout(self.kind, value) for value in self.values]

    @property
    def every(self) -> bool:
        """True when the site has every value of the notebook's control."""
        return len(self.values) >= self.full


def readout(kind: str, value: object) -> str:
    """A control's value as text: a name, an integer, or a number without trailing zeros.

    Examples
    --------
    >>> readout("log", 1e6), readout("float", 0.25), readout("even", 64), readout("choice", "x")
    ('1,000,000', '0.25', '64', 'x')
    """
    if kind == "choice":
        return str(value)
    if kind in ("int", "even"):
        return f"{int(value):,d}"
    if kind == "log" and value >= 1 and float(value).is_integer():
        return f"{value:,.0f}"
    return f"{value:.6g}"


def slider_count(control) -> int:
    """How many values a control offers in JupyterLab: its options, or its slider's steps."""
    if control.kind == "choice":
        return len(control.options)
    if control.kind == "log":
        span = math.log10(control.maximum) - math.log10(control.minimum)
        return round(span / control.step) + 1
    return round((control.maximum - control.minimum) / control.step) + 1


def value_levels(control, start: object) -> list[tuple]:
    """The grids of the rule for one control, coarse to fine; each holds both ends and ``start``.

    A choice has one: all its names. A log slider's go by decades, then 1-2-5 per decade,
    then 1-1.5-2-3-…-9 per decade, then its own steps. A model width (``"even"``) starts with
    the powers of two. Then every slider goes by round multiples of its step (…, 20, 10, 5,
    2, 1 steps apart, from the widest spacing that leaves three multiples), down to every
    step. A grid no larger than the one before it is skipped.

    Examples
    --------
    >>> from pe_helpers.live import even_control, int_control
    >>> [len(level) for level in value_levels(int_control("n", 20, 2, 60), 20)]
    [4, 7, 13, 30, 59]
    >>> value_levels(int_control("n", 20, 2, 60), 20)[1]
    (2, 10, 20, 30, 40, 50, 60)
    >>> value_levels(even_control("d", 64, 8, 128), 64)[0]
    (8, 16, 32, 64, 128)
    """
    if control.kind == "choice":
        return [tuple(control.options)]
    low, high = control.minimum, control.maximum
    ends = {low, high, start}
    levels: list[set] = []
    if control.kind == "log":
        for mantissas in (
            (1.0,),
            (1.0, 2.0, 5.0),
            (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0),
        ):
            levels.append(ends | set(_decades(low, high, mantissas)))
        exponents = _steps(math.log10(low), math.log10(high), control.step)
        levels.append(ends | {float(f"{10.0**e:.6g}") for e in exponents})
    else:
        every = _steps(low, high, control.step)
        if control.kind == "even":
            levels.append(ends | {2**k for k in range(1, 31) if low <= 2**k <= high})
        multiples = sorted(
            {f * 10**e for e in range(7) for f in (1, 2, 5) if f * 10**e < len(every)},
            reverse=True,
        )
        for multiple in multiples:
            on_grid = {v for v in every if _is_multiple(v, multiple * control.step)}
            if len(on_grid) >= 3:  # coarser spacings leave too few values to be a grid
                levels.append(ends | on_grid)
        levels.append(ends | set(every))
    cast = int if control.kind in ("int", "even") else float
    grids = []
    for level in levels:  # coarse to fine: each grid kept holds more values than the last
        grid = tuple(sorted({cast(v) for v in level}))
        if not grids or len(grid) > len(grids[-1]):
            grids.append(grid)
    return grids


def grid_size(counts: Sequence[int], alone: Sequence[bool]) -> int:
    """How many pictures a figure needs: every combination of the controls that move together,
    times one for the starting values plus one per other value of each control that moves
    alone.

    Examples
    --------
    >>> grid_size([5, 3, 2, 2], [False, False, True, True])  # 15 x (1 + 1 + 1)
    45
    """
    together = math.prod(n for n, one in zip(counts, alone, strict=True) if not one)
    return together * (1 + sum(n - 1 for n, one in zip(counts, alone, strict=True) if one))


def _is_multiple(value: float, spacing: float) -> bool:
    ratio = value / spacing
    return abs(ratio - round(ratio)) < 1e-9


def plan_axes(figure_class: type, start: Mapping[str, object], budget: int = FRAME_BUDGET):
    """The values the site shows for each control of a live figure: a list of :class:`Axis`.

    The site has a picture for every combination of these values (the controls the figure
    names in ``site_one_at_a_time`` excepted: those move one at a time, see
    :func:`grid_size`). A control the figure's ``site_grid`` (name -> values) lists gets
    those values, chosen by hand where the rule would not pick what a learner wants to see;
    every other control starts at its coarsest grid of :func:`value_levels` and is refined,
    the one with the smallest share of its slider's values first, while the number of
    pictures stays within ``budget``. The notebook's starting value is always one of the
    values. Every picture costs about 0.1-0.4 s of a core to draw, so a grid stays near
    50-100 pictures, and at most :data:`MAX_FRAMES`.

    Parameters
    ----------
    figure_class : type
        A :class:`pe_helpers.live.LiveFigure` subclass.
    start : mapping
        The starting value of every control (the notebook's), by name.
    budget : int, default FRAME_BUDGET
        Most pictures the rule may give the figure.

    Returns
    -------
    list of Axis
        One per control, in the figure's order.

    Examples
    --------
    >>> from pe_helpers.live import LiveFigure, choice_control, float_control
    >>> class Demo(LiveFigure):
    ...     controls = {"a": float_control("a", 0.5, 0.0, 1.0, 0.05),
    ...                 "how": choice_control("how", ("x", "y"), "x")}
    >>> [(axis.name, len(axis.values)) for axis in plan_axes(Demo, {"a": 0.5, "how": "x"}, 30)]
    [('a', 11), ('how', 2)]
    >>> Demo.site_grid = {"a": (0.0, 1.0)}
    >>> plan_axes(Demo, {"a": 0.5, "how": "x"})[0].values
    (0.0, 0.5, 1.0)
    """
    controls = figure_class.controls
    chosen = getattr(figure_class, "site_grid", {})
    alone = set(getattr(figure_class, "site_one_at_a_time", ()))
    for where, names in (("site_grid", chosen), ("site_one_at_a_time", alone)):
        unknown = sorted(set(names) - set(controls))
        if unknown:
            raise ValueError(f"{figure_class.__name__}.{where} names no control {unknown}")
    if len(alone) == 1:
        raise ValueError(f"{figure_class.__name__}.site_one_at_a_time needs two or more")
    levels = {}
    for name, control in controls.items():
        value = control.check(name, start[name])
        if name in chosen:
            grid = {control.check(name, v) for v in chosen[name]} | {value}
            levels[name] = [tuple(v for v in _ordered(control, grid))]
        else:
            levels[name] = value_levels(control, value)
    level = dict.fromkeys(controls, 0)

    def frames(trial: dict) -> int:
        counts = [len(levels[name][trial[name]]) for name in controls]
        return grid_size(counts, [name in alone for name in controls])

    while True:
        finer = [
            name
            for name in controls
            if level[name] + 1 < len(levels[name])
            and frames({**level, name: level[name] + 1}) <= budget
        ]
        if not finer:
            break
        share = {n: len(levels[n][level[n]]) / slider_count(controls[n]) for n in finer}
        level[min(finer, key=share.get)] += 1
    axes = []
    for name, control in controls.items():
        values = levels[name][level[name]]
        axes.append(
            Axis(
                name,
                control.label,
                control.kind,
                values,
                values.index(control.check(name, start[name])),
                slider_count(control),
                name in alone,
            )
        )
    if frames(level) > MAX_FRAMES:
        raise ValueError(
            f"{figure_class.__name__} would have {frames(level)} "
            f"pictures on the site, more than MAX_FRAMES = {MAX_FRAMES}: list fewer values "
            f"in its site_grid"
        )
    return axes


def _ordered(control, values: set) -> list:
    """Values in the control's own order: its options' for a choice, ascending otherwise."""
    if control.kind == "choice":
        return [o for o in control.options if o in values]
    return sorted(values)


def snake(shape: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Every index of a grid of ``shape``, each one step from the last along one axis.

    The last axis runs forward, then back, while the axis before it takes one step, and so
    on: a view walking the grid this way changes one control by one value at a time.

    Examples
    --------
    >>> list(snake((2, 3)))
    [(0, 0), (0, 1), (0, 2), (1, 2), (1, 1), (1, 0)]
    """
    if not shape:
        yield ()
        return
    *head, last = shape
    forward = True
    for prefix in snake(head):
        for j in range(last) if forward else range(last - 1, -1, -1):
            yield (*prefix, j)
        forward = not forward


class LiveCell(NamedTuple):
    """One live figure of a page, as the site shows it.

    Attributes
    ----------
    page : str
        The notebook's stem, for example ``"07_rope"``.
    number : int
        The figure's place among the page's live figures, from 1.
    figure : str
        ``module.QualName`` of the figure's class, from the output's metadata.
    start : dict
        The notebook's starting value of every control, by name.
    summary : str
        The output's ``text/plain`` line (the picture's alternative text).
    picture : bytes
        The notebook's stored ``image/png``: the figure at ``start``.
    axes : list of Axis
        The values the site shows for each control.
    """

    page: str
    number: int
    figure: str
    start: dict
    summary: str
    picture: bytes
    axes: tuple[Axis, ...]

    @property
    def folder(self) -> str:
        """The figure's folder under ``_static/live/``."""
        return f"{self.page}-{self.number}"

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(len(axis.values) for axis in self.axes)

    @property
    def frames(self) -> int:
        """How many pictures the site has for this figure (:func:`grid_size`)."""
        return grid_size(self.shape, [axis.alone for axis in self.axes])

    @property
    def start_index(self) -> tuple[int, ...]:
        return tuple(axis.start for axis in self.axes)

    def key(self, sources: str) -> str:
        """What the pictures depend on, hashed: ``sources`` (:func:`source_digest`), the
        figure, its starting values, its grid and the CPU kernels of this process."""
        from pe_helpers.seeds import cpu_kernels

        grid = [(axis.name, list(axis.values), axis.alone) for axis in self.axes]
        about = json.dumps(
            [FRAME_VERSION, FRAME_OPTIONS, self.figure, self.start, grid, cpu_kernels()]
        )
        return hashlib.sha256(f"{sources}\n{about}".encode()).hexdigest()[:20]


def frame_name(index: Sequence[int]) -> str:
    """The file of the picture at grid ``index`` (one index per control).

    Examples
    --------
    >>> frame_name((3, 0, 12))
    '3-0-12.webp'
    """
    return "-".join(map(str, index)) + "." + FRAME_EXTENSION


def figure_class(path: str) -> type:
    """The live figure class named ``module.QualName`` (from a live view's metadata)."""
    from pe_helpers.live import LiveFigure

    module_name, _, name = path.rpartition(".")
    try:
        found = getattr(importlib.import_module(module_name), name)
    except (ImportError, AttributeError, ValueError):
        found = None
    if not (isinstance(found, type) and issubclass(found, LiveFigure)):
        raise ValueError(f"the stored view names {path!r}, which is no live figure")
    return found


def live_cells(pages: dict[Path, Document]) -> list[tuple[Document, dict, LiveCell]]:
    """Every live view of the course's pages, with its page and cell, in page order."""
    found = []
    for page in sorted(pages.values(), key=lambda p: p.path):
        if page.notebook is None:
            continue
        number = 0
        for cell in page.notebook["cells"]:
            output = live_output(cell)
            if output is None:
                continue
            number += 1
            about = output["metadata"]["pe_helpers"]
            cls = figure_class(about["figure"])
            unknown = sorted(set(about["values"]) - set(cls.controls))
            if unknown:
                raise ValueError(f"{page.path.name}: {cls.__name__} has no control {unknown}")
            start = {
                name: control.check(name, about["values"].get(name, control.default))
                for name, control in cls.controls.items()
            }
            summary = _text(output["data"].get("text/plain", about["figure"])).strip()
            picture = base64.b64decode(_text(output["data"]["image/png"]))
            axes = tuple(plan_axes(cls, start))
            live = LiveCell(page.path.stem, number, about["figure"], start, summary, picture, axes)
            found.append((page, cell, live))
    return found


def source_digest(figure: str, folder: Path = PACKAGE) -> str:
    """A hash of what a live figure's pictures depend on.

    That is the package's shared code and data (everything outside ``lessons/``, and
    ``lessons/__init__.py``), the figure's own lesson home (``lessons/<slug>/``: a home
    imports no other lesson's) and the versions of the libraries that draw and store the
    pictures. A figure that lives elsewhere gets the whole package.
    """
    import matplotlib
    import numpy
    import PIL

    def files(where: Path) -> list[Path]:
        found = visible(where.rglob("*"), where)
        return [p for p in found if p.is_file() and "__pycache__" not in p.parts]

    lessons = folder / "lessons"
    chosen = [p for p in files(folder) if lessons not in p.parents] + [lessons / "__init__.py"]
    parts = figure.split(".")
    home = lessons / parts[2] if parts[:2] == [folder.name, "lessons"] and len(parts) > 3 else None
    if home is not None and home.is_dir():
        chosen += files(home)
    else:
        chosen = files(folder)
    digest = hashlib.sha256()
    for path in chosen:
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    for library in (matplotlib, numpy, PIL):
        digest.update(f"{library.__name__} {library.__version__}".encode())
    return digest.hexdigest()


def walk(cell: LiveCell) -> list[tuple[int, ...]]:
    """Every index of ``cell``'s grid, in the order a view draws them (:func:`snake`).

    The controls that move together are walked as one grid, the one with the most values
    varying fastest (most steps then move it alone); the grid is walked once with the
    controls that move alone at their starting values, then once more per other value of
    each of them, forth and back.

    Examples
    --------
    >>> axes = (Axis("a", "a", "int", (0, 1, 2), 0, 3), Axis("b", "b", "int", (0, 1), 0, 2))
    >>> walk(LiveCell("01_demo", 1, "m.Demo", {}, "", b"", axes))
    [(0, 0), (1, 0), (2, 0), (2, 1), (1, 1), (0, 1)]
    >>> alone = (axes[0], *(Axis(n, n, "int", (0, 1), 0, 2, True) for n in "bc"))
    >>> walk(LiveCell("01_demo", 1, "m.Demo", {}, "", b"", alone))[2:7]
    [(2, 0, 0), (2, 1, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1)]
    """
    together = sorted(
        (i for i, axis in enumerate(cell.axes) if not axis.alone), key=lambda i: cell.shape[i]
    )
    settings = [cell.start_index]  # the controls that move alone: all at their start, or one off
    for i, axis in enumerate(cell.axes):
        if axis.alone:
            settings += [
                tuple(j if k == i else s for k, s in enumerate(cell.start_index))
                for j in range(len(axis.values))
                if j != axis.start
            ]
    grid = list(snake([cell.shape[i] for i in together]))
    path = []
    for n, setting in enumerate(settings):
        for walked in grid if n % 2 == 0 else reversed(grid):
            index = list(setting)
            for i, j in zip(together, walked, strict=True):
                index[i] = j
            path.append(tuple(index))
    return path


def render_frames(cell: LiveCell, indices: Sequence[tuple[int, ...]], folder: Path) -> dict:
    """Draw the pictures of ``cell`` at grid ``indices`` with its own view, into ``folder``.

    The figure is built with no arguments and viewed at the notebook's starting values.
    When ``indices`` holds the starting index, the view's first picture is written for it;
    then the view's controls are set to each index in turn (one control changes per step
    along :func:`walk`) and each ``view.image.value``, a PNG, is written losslessly as WebP.
    Returns ``{"frames", "seconds", "width", "height"}``.
    """
    from PIL import Image

    began = time.perf_counter()
    folder.mkdir(parents=True, exist_ok=True)
    view = figure_class(cell.figure)().view(**cell.start)
    written = 0

    def write(index: tuple[int, ...], png: bytes) -> tuple[int, int]:
        nonlocal written
        with Image.open(io.BytesIO(png)) as image:
            image.save(folder / frame_name(index), FRAME_EXTENSION.upper(), **FRAME_OPTIONS)
            written += 1
            return image.size

    width, height = _picture_size(view.image.value)
    if cell.start_index in indices:
        write(cell.start_index, view.image.value)
    for index in indices:
        if index == cell.start_index:
            continue
        for axis, i in zip(cell.axes, index, strict=True):
            if view.controls[axis.name].value != axis.values[i]:
                view.controls[axis.name].value = axis.values[i]
        write(index, view.image.value)
    view.close()
    seconds = time.perf_counter() - began
    return {"frames": written, "seconds": seconds, "width": width, "height": height}


#: Most pictures one process draws in one go: a figure's walk is cut into pieces this long,
#: so two processes share even the largest figure.
CHUNK_FRAMES = 40


def draw_live_figures(
    cells: list[LiveCell], frames: Path, jobs: int | None = None, fresh: bool = False
) -> dict[str, dict]:
    """Draw (or reuse) every figure's pictures under ``frames``; return stats by folder.

    A figure's pictures live in ``frames/<folder>-<key>`` (:meth:`LiveCell.key`); one
    already there (same sources, figure and grid) is reused unless ``fresh``, and
    any other folder there is removed. Each figure's :func:`walk` is cut into pieces of
    :data:`CHUNK_FRAMES` pictures, drawn ``jobs`` at a time (default: one per core) by
    processes of their own, the largest figures first. Stats per figure: ``frames``,
    ``bytes``, ``seconds`` (summed over its pieces), ``width``, ``height``, ``cache`` (its
    folder) and ``drawn now``.
    """
    wanted = {
        cell.folder: frames / f"{cell.folder}-{cell.key(source_digest(cell.figure))}"
        for cell in cells
    }
    frames.mkdir(parents=True, exist_ok=True)
    for old in frames.iterdir():  # pictures of another grid or of other sources
        if old not in wanted.values() or fresh:
            shutil.rmtree(old)
    todo = sorted(
        (c for c in cells if not (wanted[c.folder] / "stats.json").is_file()),
        key=lambda c: c.frames,
        reverse=True,
    )
    partial = {folder: path.with_name(path.name + ".partial") for folder, path in wanted.items()}
    pieces = []
    for cell in todo:
        path = walk(cell)
        for first in range(0, len(path), CHUNK_FRAMES):
            pieces.append((cell, path[first : first + CHUNK_FRAMES], partial[cell.folder]))
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(pieces) or 1))
    if jobs == 1:
        results = [render_frames(*piece) for piece in pieces]
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # fork: the workers start with the package imported, and need not import this script.
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context(method)) as pool:
            results = list(pool.map(render_frames, *zip(*pieces, strict=True)))
    for cell in todo:
        done = [r for (c, _, _), r in zip(pieces, results, strict=True) if c.folder == cell.folder]
        stats = {
            "frames": sum(r["frames"] for r in done),
            "bytes": sum(p.stat().st_size for p in partial[cell.folder].iterdir()),
            "seconds": round(sum(r["seconds"] for r in done), 2),
            "width": done[0]["width"],
            "height": done[0]["height"],
        }
        (partial[cell.folder] / "stats.json").write_text(json.dumps(stats))
        partial[cell.folder].rename(wanted[cell.folder])
    stats = {}
    for cell in cells:
        stats[cell.folder] = json.loads((wanted[cell.folder] / "stats.json").read_text())
        stats[cell.folder]["cache"] = wanted[cell.folder]
        stats[cell.folder]["drawn now"] = any(cell.folder == c.folder for c in todo)
    return stats


def same_pixels(first: bytes, second: bytes) -> bool:
    """True when two pictures (PNG, WebP, …) decode to the same RGB pixels."""
    import numpy as np
    from PIL import Image

    with Image.open(io.BytesIO(first)) as a, Image.open(io.BytesIO(second)) as b:
        return a.size == b.size and np.array_equal(
            np.asarray(a.convert("RGB")), np.asarray(b.convert("RGB"))
        )


def _picture_size(png: bytes) -> tuple[int, int]:
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        return image.size


def _values_text(axis: Axis) -> str:
    shown = axis.readouts
    if language() == "zh":
        if axis.every:
            every = f"全部 {len(shown)} 个（{'、'.join(shown)}）" if axis.kind == "choice" else ""
            return every or f"从 {shown[0]} 到 {shown[-1]} 的每个值"
        return "、".join(shown)
    if axis.kind == "choice":
        return f"all {len(shown)} ({', '.join(shown)})" if axis.every else ", ".join(shown)
    if axis.every:
        return f"every value from {shown[0]} to {shown[-1]}"
    return ", ".join(shown)


def live_caption(cell: LiveCell) -> str:
    """The note under a figure: what the site covers, what it leaves out, what JupyterLab adds.

    Examples
    --------
    >>> axes = (Axis("n", "heads", "int", (1, 2, 4), 2, 8),)
    >>> caption = live_caption(LiveCell("09_demo", 1, "m.Demo", {"n": 4}, "", b"", axes))
    >>> caption.startswith("This page has 3 pictures of the figure, drawn when the site")
    True
    >>> "combination of heads 1, 2, 4. The values in between are left out." in caption
    True
    """
    together = [axis for axis in cell.axes if not axis.alone]
    alone = [axis for axis in cell.axes if axis.alone]
    words = CAPTION[language()]

    def named(axes: list[Axis]) -> str:
        return words["sep"].join(
            f"{translate(a.label)}{words['takes']}{_values_text(a)}" for a in axes
        )

    text = words["pictures"].format(frames=cell.frames)
    text += words["each"].format(named(together)) if together else words["start"]
    if alone:
        text += words["alone"].format(
            together=words["then" if together else "them"], axes=named(alone)
        )
    every = all(axis.every for axis in cell.axes) and not alone
    text += words["every" if every else "between"] + words["lab"]
    escaped = html.escape(text, quote=False)
    return escaped.replace("&lt;code&gt;", "<code>").replace("&lt;/code&gt;", "</code>")


#: The note under a live figure, in each edition's words (:func:`live_caption`).
CAPTION = {
    "en": {
        "pictures": "This page has {frames} pictures of the figure, drawn when the site was "
        "built by the figure's own code, one for ",
        "each": "each combination of {}.",
        "start": "the notebook's values.",
        "alone": " With {together}, one at a time: {axes} (moving one of these puts the others "
        "back to the notebook's values).",
        "then": "each of those",
        "them": "them",
        "every": " That is every value of every control.",
        "between": " The values in between are left out.",
        "lab": " In JupyterLab the sliders are continuous and combine freely: run the notebook "
        "there (<code>make lab</code>) to see the figure at any value.",
        "sep": "; ",
        "takes": " ",
    },
    "zh": {
        "pictures": "本页有这张图的 {frames} 张图片，都是构建网站时由图自己的代码画出的：",
        "each": "{} 的每种组合。",
        "start": "notebook 里的取值。",
        "alone": "{together}每次只改变一个：{axes}"
        "（移动其中一个时，其余的回到 notebook 里的取值）。",
        "then": "在此基础上，",
        "them": "",
        "every": "这就是每个控件的每一个取值。",
        "between": "中间的取值没有画出。",
        "lab": "在 JupyterLab 里滑块是连续的，可以任意组合：在那里运行这个 notebook"
        "（<code>make lab</code>），就能看到任意取值下的图。",
        "sep": "；",
        "takes": " 取 ",
    },
}


def live_html(cell: LiveCell, frames_url: str, size: tuple[int, int]) -> str:
    """The controls, the picture and the note that replace a live view's stored output.

    ``frames_url`` is the figure's folder of pictures relative to the page. Numeric controls
    are range inputs over the indices of the site's values (so they snap to the grid); a
    choice is a row of toggle buttons, or a drop-down list past ``MAX_TOGGLE_OPTIONS``
    names, as in the notebook. ``site/static/live_figures.js`` makes them move the picture.
    """
    from pe_helpers.live import MAX_TOGGLE_OPTIONS

    prefix = f"pe-live-{cell.number}"
    rows = []
    for axis in cell.axes:
        ident = f"{prefix}-{axis.name}"
        label = html.escape(translate(axis.label))
        shown = [html.escape(translate(text)) for text in axis.readouts]
        now = shown[axis.start]
        if axis.kind != "choice":
            last = len(axis.values) - 1
            control = (
                f'<label for="{ident}">{label}</label>'
                f'<input type="range" id="{ident}" min="0" max="{last}" step="1" '
                f'value="{axis.start}" aria-valuetext="{now}">'
                f'<output id="{ident}-value" for="{ident}">{now}</output>'
            )
        elif len(axis.values) > MAX_TOGGLE_OPTIONS:
            options = "".join(
                f'<option value="{i}"{" selected" if i == axis.start else ""}>{text}</option>'
                for i, text in enumerate(shown)
            )
            control = f'<label for="{ident}">{label}</label><select id="{ident}">{options}</select>'
        else:
            buttons = "".join(
                f'<button type="button" data-index="{i}" '
                f'aria-pressed="{"true" if i == axis.start else "false"}">{text}</button>'
                for i, text in enumerate(shown)
            )
            control = (
                f'<span class="pe-live-label" id="{ident}-label">{label}</span>'
                f'<span class="pe-live-choice" role="group" id="{ident}" '
                f'aria-labelledby="{ident}-label">{buttons}</span>'
            )
        kind = f"pe-live-control pe-live-{axis.kind}" + (" pe-live-alone" if axis.alone else "")
        rows.append(f'<div class="{kind}" data-name="{axis.name}">{control}</div>')
    config = {
        "figure": cell.figure.rpartition(".")[2],
        "frames": frames_url,
        "extension": FRAME_EXTENSION,
        "start": list(cell.start_index),
        "controls": [
            {
                "name": a.name,
                "label": translate(a.label),
                "readouts": [translate(r) for r in a.readouts],
                "alone": a.alone,
            }
            for a in cell.axes
        ],
    }
    # "</" never appears inside the script: labels are text, and "/" is escaped.
    data = json.dumps(config, ensure_ascii=False).replace("</", "<\\/")
    width, height = size
    return (
        f'<div class="pe-live" id="{prefix}" data-figure="{html.escape(cell.figure)}">'
        f'<script type="application/json" class="pe-live-config">{data}</script>'
        f'<div class="pe-live-controls">{"".join(rows)}</div>'
        f'<img class="pe-live-picture" src="{frames_url}{frame_name(cell.start_index)}" '
        f'width="{width}" height="{height}" alt="{html.escape(cell.summary)}">'
        f'<p class="pe-live-note">{live_caption(cell)}</p>'
        f"</div>"
    )


def add_live_figures(
    pages: dict[Path, Document],
    src: Path,
    static: Path,
    frames: Path,
    render: bool = True,
    jobs: int | None = None,
    fresh: bool = False,
) -> dict[str, object]:
    """Replace every live view's stored output by the site's controls; draw their pictures.

    ``src`` is the folder the pages were copied into. The pictures are drawn into (or kept
    in) ``frames`` and copied to ``static/live/<folder>/``, which Sphinx copies to
    ``_static/live/``. With ``render=False`` no picture is drawn: the pages are written
    as they would be, for tests. A figure whose picture at the notebook's starting values
    differs from the notebook's stored one gets a warning (and fails the browser suite's
    check): its sliders would show another figure than the notebook's. The site builds
    every figure with no arguments, so the notebook must too, or draw the same when it does.

    Returns counts: ``live figures``, ``pictures``, ``picture bytes``, ``pictures drawn``
    (the rest were kept from an earlier build) and ``not the notebook's picture`` (folders).
    """
    cells = live_cells(pages)
    counts: dict[str, object] = {"live figures": len(cells), "pictures": 0}
    stats, differ = {}, []
    if render and cells:
        stats = draw_live_figures([live for _, _, live in cells], frames, jobs, fresh)
    for page, cell, live in cells:
        counts["pictures"] += live.frames
        if render:
            made = stats[live.folder]
            start = (made["cache"] / frame_name(live.start_index)).read_bytes()
            if not same_pixels(start, live.picture):
                name = live.figure.rpartition(".")[2]
                differ.append(live.folder)
                print(
                    f"WARNING: {live.page}: the site's {name}() does not draw the notebook's "
                    f"picture at {live.start}, so its sliders would show another figure: "
                    f"build the figure with no arguments in the notebook (or give the class "
                    f"defaults that draw the same), then make regen",
                    file=sys.stderr,
                )
            target = static / "live" / live.folder
            shutil.copytree(made["cache"], target, ignore=shutil.ignore_patterns("*.json"))
        depth = len(page.path.relative_to(src).parts) - 1
        url = "../" * depth + f"_static/live/{live.folder}/"
        cell["outputs"] = [
            {
                "output_type": "display_data",
                "data": {"text/html": live_html(live, url, _picture_size(live.picture))},
                "metadata": {},
            }
        ]
    if render:
        counts["picture bytes"] = sum(s["bytes"] for s in stats.values())
        counts["pictures drawn"] = sum(s["frames"] for s in stats.values() if s["drawn now"])
        counts["not the notebook's picture"] = differ
    return counts


#: Front matter that keeps a Markdown page out of the site's search (Sphinx's ``nosearch``).
NO_SEARCH = "---\nnosearch: true\n---\n"


def add_contents(work: Path, pages: dict[Path, Document], language: str = "en") -> None:
    """Give the site its order: index, lessons, guide and cheat sheet, then solutions.

    The solutions (when copied) stay out of the site's search: a search for a word of an
    exercise finds the lesson, not its answer. Sphinx indexes a page whose metadata holds
    ``nosearch`` under no word (a notebook's metadata is its page's metadata in myst-nb).
    """
    notebooks = work / "notebooks"
    lessons = sorted(p for p in notebooks.glob("[0-9][0-9]_*.ipynb") if p.name != navigation.INDEX)
    solutions = sorted((notebooks / "solutions").glob("*.ipynb"))
    for path in solutions:
        pages[path.resolve()].notebook["metadata"]["nosearch"] = True
    docs = [work / name for name in navigation.GENERATED_DOCS]
    docs += sorted(p for p in (work / "docs").glob("*.md") if p not in docs)

    def toctree(caption: str | None, entries: list[str], hidden: bool = True) -> str:
        options = [":maxdepth: 1"] + ([f":caption: {caption}"] if caption else [])
        options += [":hidden:"] if hidden else []
        return "```{toctree}\n" + "\n".join(options + [""] + entries) + "\n```\n"

    index = pages[(notebooks / navigation.INDEX).resolve()]
    words = WORDS[language]
    tree = toctree(words["lessons"], [p.stem for p in lessons])
    tree += "\n" + toctree(words["reference"], [f"/docs/{p.stem}" for p in docs])
    if solutions:
        tree += "\n" + toctree(words["solutions"], ["solutions/index"])
    index.notebook["cells"].append(
        {"cell_type": "markdown", "id": "site-contents", "metadata": {}, "source": tree}
    )
    if not solutions:
        return
    listing_page = Path("notebooks", "solutions", "index.md")
    switch = language_switch(listing_page, listing_page, language)
    listing = NO_SEARCH + switch + "\n\n" + words["solutions page"]
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


def copy_chinese_font(static: Path) -> Path:
    """Copy the package's Chinese font (and its licence) into ``static``: ``course.css`` falls
    back to it for Chinese text where the reader's system has no Chinese font (the browser
    fetches it only for a page with Chinese on it: ``unicode-range``)."""
    from pe_helpers.i18n import FONT

    shutil.copyfile(FONT, static / FONT.name)
    shutil.copyfile(FONT.parent / "OFL.txt", static / "OFL-NotoSansCJK.txt")
    return static / FONT.name


def prepare(
    work: Path,
    render: bool = True,
    jobs: int | None = None,
    fresh: bool = False,
    solutions: bool | None = None,
    language: str = "en",
) -> dict[str, object]:
    """Lay out the site's sources in ``work``; return counts of what was changed.

    Everything in ``work`` is made anew except ``work/frames``, the live figures' pictures
    kept from the last build (see :func:`draw_live_figures`). With ``render=False`` no
    picture is drawn (the pages are written as they would be: for tests). ``solutions``
    says whether the solution notebooks become pages (default: :func:`solutions_wanted`).
    """
    work.mkdir(parents=True, exist_ok=True)
    for old in work.iterdir():
        if old.name != "frames":
            shutil.rmtree(old) if old.is_dir() else old.unlink()
    solutions = solutions_wanted() if solutions is None else solutions
    copy = copy_sources if language == "en" else copy_zh_sources
    pages = copy(work / "src", solutions)
    links = rewrite_links(pages, work / "src")
    add_language_switch(pages, work / "src", language)
    # The pictures in the page's language: the drawing processes start from this one (fork).
    set_language(language)
    try:
        live = add_live_figures(
            pages, work / "src", work / "static", work / "frames", render, jobs, fresh
        )
    finally:
        set_language("en")
    add_contents(work / "src", pages, language)
    for page in pages.values():
        page.write()
    copy_mathjax(work / "static")
    copy_chinese_font(work / "static")
    return {"pages": len(pages) + solutions, "links rewritten": links, **live}


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


def jieba_dictionary(path: Path) -> Path:
    """Write the term base's Chinese terms (``i18n/zh/terms.tsv``) as a jieba user dictionary
    (one word and a high frequency per line), so Sphinx's Chinese search indexes each term
    whole (jieba alone cuts 外推 into 外 and 推); return ``path``."""
    words = set()
    for row in navigation.terms():
        for term in row["中文"].split("/"):
            term = re.sub(r"（.*?）|\(.*?\)", "", term).strip()
            if term and re.search(r"[\u3400-\u9fff]", term):
                words.add(term.replace(" ", ""))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{w} 100000 n\n" for w in sorted(words)), encoding="utf-8")
    return path


def mend_chinese_stemmer(script: Path) -> None:
    """Point the Chinese search's stemmer at the English one it ships (Sphinx 9.0 names a
    ``ChineseStemmer`` that does not exist, and every Chinese search stops on it:
    sphinx-doc/sphinx#14229, fixed by #14416); any other page's script is left alone."""
    text = script.read_text(encoding="utf-8")
    if "window.Stemmer = ChineseStemmer;" in text and "ChineseStemmer=" not in text:
        text = text.replace("window.Stemmer = ChineseStemmer;", "window.Stemmer = EnglishStemmer;")
        script.write_text(text, encoding="utf-8")


def build(out: Path = OUT, jobs: int | None = None, fresh: bool = False) -> dict[str, object]:
    """Prepare the sources in ``build/site-work``, run Sphinx into ``out``; return counts.

    ``site/conf.py`` finds the copied MathJax and the live figures' pictures in
    ``build/site-work/static``. ``jobs`` and ``fresh`` go to :func:`draw_live_figures`.
    """
    start = time.perf_counter()
    if out.exists():
        shutil.rmtree(out)
    counts = {}
    # The English edition at the top, the Chinese one in zh/: one Sphinx project each, so each
    # has its own search in its own language (Chinese words cut by jieba).
    for edition, work, pages in (("en", WORK, out), ("zh", WORK_ZH, out / "zh")):
        made = prepare(work, jobs=jobs, fresh=fresh, language=edition)
        for key, value in made.items():
            counts[key] = counts[key] + value if key in counts else value
        command = [
            sys.executable, "-m", "sphinx", "-b", "html", "-q", "-W", "--keep-going",
            "-c", str(CONF), "-d", str(work / "doctrees"),
            str(work / "src"), str(pages),
        ]  # fmt: skip
        env = {**os.environ, "PE_SITE_LANGUAGE": edition, "PE_SITE_WORK": str(work)}
        if edition == "zh":  # jieba learns the course's terms, so a search for one finds it
            env["PE_SITE_JIEBA_DICT"] = str(jieba_dictionary(work / "jieba_terms.txt"))
        if subprocess.run(command, env=env).returncode != 0:
            raise SystemExit("sphinx-build failed: its warnings and errors are printed above")
        # An edition opens on its contents page, which lives at notebooks/00_index.html.
        (pages / "index.html").write_text(REDIRECT, encoding="utf-8")
        mend_chinese_stemmer(pages / "_static" / "language_data.js")
    counts["html files"] = len(list(out.rglob("*.html")))
    counts["site bytes"] = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    counts["seconds"] = round(time.perf_counter() - start, 1)
    return counts


#: Set in the environment of a build that runs under the notebooks' CPU kernels.
KERNELS_SET = "PE_SITE_NOTEBOOK_KERNELS"


def visible(paths: Iterable[Path], below: Path) -> list[Path]:
    """``paths`` (sorted) without those inside a hidden folder under ``below``.

    JupyterLab keeps a copy of every file it opens in ``.ipynb_checkpoints`` beside it:
    those copies are no part of the course.

    >>> found = [Path("n/.ipynb_checkpoints/a-checkpoint.ipynb"), Path("n/a.ipynb")]
    >>> [p.as_posix() for p in visible(found, Path("n"))]
    ['n/a.ipynb']
    """
    return sorted(p for p in paths if not any(s[0] == "." for s in p.relative_to(below).parts))


def notebook_kernels(folder: Path = ROOT / "notebooks") -> dict | None:
    """The CPU kernels the notebooks were run with (one set for all), or None if unknown."""
    found = set()
    for path in visible(folder.rglob("*.ipynb"), folder):
        recorded = json.loads(path.read_text(encoding="utf-8"))["metadata"].get("pe_helpers", {})
        found.add(json.dumps(recorded.get("cpu_kernels"), sort_keys=True))
    return json.loads(found.pop()) if len(found) == 1 else None


def restart_under_notebook_kernels(script: str, argv: list[str], marker: str, instead: str) -> None:
    """Start ``script`` again with ``argv`` under the notebooks' CPU kernels, when they all
    record one set, this process has others and this CPU has theirs
    (:func:`pe_helpers.seeds.kernels_env`); ``marker`` is set in the new environment so it
    does not start again. Otherwise say so on stderr, with ``instead``: what this run does
    (``{here}`` in it becomes this process's kernels).
    """
    from pe_helpers.seeds import cpu_kernels, kernels_env

    recorded = notebook_kernels()
    here = cpu_kernels()
    if os.environ.get(marker) or recorded == here:
        return
    env = kernels_env(recorded) if recorded is not None else None
    if env is None:
        why = (
            "record different CPU kernels, or none (make regen runs them under one set)"
            if recorded is None
            else f"ran with CPU kernels {recorded}, which this CPU lacks"
        )
        print(f"WARNING: the notebooks {why}; {instead.format(here=here)}", file=sys.stderr)
        return
    print(f"running under the notebooks' CPU kernels: {env}", flush=True)
    os.execve(sys.executable, [sys.executable, script, *argv], {**os.environ, **env, marker: "1"})


def run_under_notebook_kernels(argv: list[str]) -> None:
    """Start this build again under the notebooks' CPU kernels where it can (see above)."""
    restart_under_notebook_kernels(
        str(Path(__file__).resolve()),
        argv,
        KERNELS_SET,
        "the pictures are drawn with {here}, and a figure's first picture may differ from "
        "the notebook's by a few pixels",
    )


def main(argv: list[str]) -> int:
    run_under_notebook_kernels(argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="where the HTML goes")
    parser.add_argument(
        "--jobs", type=int, default=None, help="figures drawn at once (default: one per core)"
    )
    parser.add_argument(
        "--fresh", action="store_true", help="draw every live figure again, keeping nothing"
    )
    parser.add_argument(
        "--no-solutions",
        action="store_true",
        help=f"leave the solutions out, for a graded class (or set {SOLUTIONS_SET}=0)",
    )
    args = parser.parse_args(argv)
    if args.no_solutions:
        os.environ[SOLUTIONS_SET] = "0"
    counts = build(args.out.resolve(), args.jobs, args.fresh)
    print(", ".join(f"{key}: {value}" for key, value in counts.items()))
    print(f"site: {args.out / 'index.html'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
