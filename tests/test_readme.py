"""The README is for users: short, the two commands first, lessons named only through the index."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
#: The pages that took over what left the README; they quote `make` commands too.
PAGES = [ROOT / "README.md", ROOT / "docs" / "teaching.md", ROOT / "docs" / "testing.md"]


def test_the_readme_is_at_most_150_lines():
    assert len(README.splitlines()) <= 150, "README.md is for users: move details to docs/"


def test_the_readme_starts_with_the_two_commands():
    title, blank, fence, *rest = README.splitlines()
    assert title.startswith("# ") and blank == "" and fence == "```bash", README[:200]
    block = rest[: rest.index("```")]
    assert [line.split("#")[0].strip() for line in block] == ["make lab", "make test"]


def test_the_readme_names_no_lesson_but_the_index():
    notebooks = set(re.findall(r"\d\d_\w+\.ipynb", README))
    assert notebooks == {"00_index.ipynb"}, notebooks
    assert not re.search(r"\blessons? \d", README, re.IGNORECASE), "name lessons by the index"


def test_every_make_command_the_pages_quote_is_a_target():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([\w-]+):", makefile, re.MULTILINE))
    for page in PAGES:
        quoted = set(re.findall(r"\bmake ([a-z][\w-]*)", page.read_text(encoding="utf-8")))
        assert quoted and quoted <= targets, f"{page.name}: no such target {quoted - targets}"
