"""Every relative link in README, docs/ and the notebooks' markdown resolves.

A link to ``file.ipynb#Some-Heading`` must name a heading of that notebook, with
JupyterLab's anchor rule (the heading text, spaces turned into ``-``); a link to
``file.md#some-heading`` uses GitHub's rule (lower case, punctuation dropped).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest

# The anchor rules the site uses too (their doctests pin them: tests/test_site_build.py).
from build_site import jupyterlab_anchor
from navigation import github_anchor

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)|href=\"([^\"]+)\"")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.MULTILINE)


def course_files(folder: Path, pattern: str) -> list[Path]:
    """Files under ``folder`` matching ``pattern``, none inside a hidden folder.

    JupyterLab copies each file it opens into ``.ipynb_checkpoints`` beside it: no part of
    the course, and their relative links point nowhere.
    """
    found = folder.rglob(pattern)
    return sorted(p for p in found if not any(s[0] == "." for s in p.relative_to(folder).parts))


def markdown(path: Path) -> str:
    """A doc's text, or a notebook's markdown cells."""
    if path.suffix != ".ipynb":
        return path.read_text(encoding="utf-8")
    nb = json.loads(path.read_text(encoding="utf-8"))
    return "\n\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")


def markdown_sources() -> list[tuple[Path, str]]:
    # docs/guide/ holds the sources `make nav` copies into docs/: their links are checked there.
    guide = ROOT / "docs" / "guide"  # and its Chinese twins, docs/guide/zh
    docs = [p for p in course_files(ROOT / "docs", "*.md") if guide not in p.parents]
    notebooks = course_files(ROOT / "notebooks", "*.ipynb")
    return [(p, markdown(p)) for p in [ROOT / "README.md", *docs, *notebooks]]


def headings(path: Path) -> list[str]:
    return HEADING.findall(re.sub(r"```.*?```", "", markdown(path), flags=re.DOTALL))


def relative_links() -> list[tuple[Path, str]]:
    found = []
    for path, text in markdown_sources():
        text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
        for match in LINK.finditer(text):
            target = match.group(1) or match.group(2)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
                continue
            found.append((path, target))
    return found


LINKS = relative_links()


@pytest.mark.parametrize(
    "source,target", LINKS, ids=[f"{p.relative_to(ROOT)}->{t}" for p, t in LINKS]
)
def test_relative_link_resolves(source: Path, target: str):
    file_part, _, anchor = target.partition("#")
    resolved = (source.parent / unquote(file_part)).resolve() if file_part else source
    assert resolved.exists(), f"{source.relative_to(ROOT)} links to missing {target}"
    if anchor:
        anchor = unquote(anchor)
        names = headings(resolved)
        rule = jupyterlab_anchor if resolved.suffix == ".ipynb" else github_anchor
        assert anchor in {rule(h) for h in names}, (
            f"{source.relative_to(ROOT)} links to #{anchor}, not a heading of {resolved.name}"
        )


def test_the_checkpoints_jupyterlab_writes_are_not_checked(course_after_lab, monkeypatch):
    # `make lab`, then `make test`: JupyterLab's copies sit beside the notebooks and docs.
    in_the_course = len(markdown_sources())
    monkeypatch.setattr(sys.modules[__name__], "ROOT", course_after_lab)
    sources = [path for path, _ in markdown_sources()]
    assert not [p for p in sources if ".ipynb_checkpoints" in p.parts]
    assert len(sources) == in_the_course
    for source, target in relative_links():
        test_relative_link_resolves(source, target)


NOTEBOOK_TO_DOC = [
    (source, target) for source, target in LINKS if source.suffix == ".ipynb" and ".md#" in target
]


def test_there_are_links_to_check():
    assert len(LINKS) > 10
    assert len(NOTEBOOK_TO_DOC) >= 14  # the index's guide link for every lesson


@pytest.mark.parametrize(
    "source,target",
    NOTEBOOK_TO_DOC,
    ids=[f"{p.relative_to(ROOT)}->{t}" for p, t in NOTEBOOK_TO_DOC],
)
def test_a_link_from_a_notebook_to_a_doc_section_scrolls_there_in_jupyterlab(source, target):
    # JupyterLab opens the doc as a Markdown preview, whose headings carry JupyterLab's anchors
    # ("Lesson-05-·-Seeing-the-encoding"), not GitHub's that the link names: it scrolls to an
    # element with that id, so the doc holds one (<a id="..."></a> above the heading).
    file_part, _, anchor = target.partition("#")
    doc = (source.parent / unquote(file_part)).resolve()
    ids = set(re.findall(r"<a id=\"([^\"]+)\"></a>", doc.read_text(encoding="utf-8")))
    names = {jupyterlab_anchor(h) for h in headings(doc)}
    assert unquote(anchor) in ids | names, (
        f"{source.relative_to(ROOT)} links to #{anchor}: JupyterLab's preview of {doc.name} "
        f'has no such anchor (add <a id="{anchor}"></a> above its heading)'
    )
