"""Every relative link in README, docs/ and the notebooks' markdown resolves.

A link to ``file.ipynb#Some-Heading`` must name a heading of that notebook, with
JupyterLab's anchor rule (the heading text, spaces turned into ``-``); a link to
``file.md#some-heading`` uses GitHub's rule (lower case, punctuation dropped).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)|href=\"([^\"]+)\"")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.MULTILINE)


def markdown_sources() -> list[tuple[Path, str]]:
    sources = [(ROOT / "README.md", (ROOT / "README.md").read_text(encoding="utf-8"))]
    sources += [(p, p.read_text(encoding="utf-8")) for p in sorted((ROOT / "docs").rglob("*.md"))]
    for path in sorted((ROOT / "notebooks").rglob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        text = "\n\n".join(
            "".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"
        )
        sources.append((path, text))
    return sources


def headings(path: Path) -> list[str]:
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text(encoding="utf-8"))
        text = "\n\n".join(
            "".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"
        )
    else:
        text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    return HEADING.findall(text)


def jupyterlab_anchor(heading: str) -> str:
    return heading.strip().replace(" ", "-")


def github_anchor(heading: str) -> str:
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


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


def test_there_are_links_to_check():
    assert len(LINKS) > 10


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


def test_anchor_rules_match_known_examples():
    assert jupyterlab_anchor("Property 1: distance") == "Property-1:-distance"
    assert github_anchor("Lesson 03 · Choosing the frequencies") == (
        "lesson-03--choosing-the-frequencies"
    )
