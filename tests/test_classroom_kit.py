"""The classroom kit: lesson openings and endings, the instructor guide, the cheat sheet."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LESSONS = sorted((ROOT / "notebooks").glob("0[1-9]_*.ipynb"))
GUIDE = (ROOT / "docs" / "instructor_guide.md").read_text(encoding="utf-8")
CHEATSHEET = (ROOT / "docs" / "cheatsheet.md").read_text(encoding="utf-8")
SUBSECTIONS = [
    "Learning goals",
    "Timing plan",
    "Live moments",
    "Questions for the room",
    "Misconceptions to probe",
    "Key takeaways",
]


def content_cells(path: Path) -> list[str]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if "nav" not in c["metadata"].get("tags", [])]


def lesson_title(path: Path) -> str:
    return content_cells(path)[0].splitlines()[0].removeprefix("# ").strip()


def lesson_minutes(path: Path) -> int:
    match = re.match(r"\*\*Time:\*\* about (\d+) minutes", content_cells(path)[1])
    assert match, f"{path.name}: second cell must start with '**Time:** about N minutes'"
    return int(match.group(1))


def guide_section(path: Path) -> str:
    heading = f"## Lesson {path.name[:2]} · {lesson_title(path)}"
    assert heading in GUIDE, f"instructor guide has no section '{heading}'"
    start = GUIDE.index(heading)
    following = GUIDE.find("\n## ", start + len(heading))
    return GUIDE[start : following if following > 0 else len(GUIDE)]


def bullets(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("- ")]


def test_every_lesson_is_covered():
    assert [p.name[:2] for p in LESSONS] == ["01", "02", "03", "04", "05", "06", "07"]


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_lesson_opens_with_time_and_goals_and_ends_with_takeaways(path: Path):
    cells = content_cells(path)
    assert 15 <= lesson_minutes(path) <= 25
    assert "**Goals** — by the end of this lesson you can:" in cells[1]
    assert re.search(r"^1\. ", cells[1], re.MULTILINE), "goals must be a numbered list"
    assert cells[-1].startswith("## Key takeaways")
    assert 3 <= len(bullets(cells[-1])) <= 5
    assert any(c.startswith("## Exercises") for c in cells), "lesson must have exercises"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_guide_section_has_every_part_in_order_and_fits_the_lesson(path: Path):
    section = guide_section(path)
    positions = [section.find(f"### {name}") for name in SUBSECTIONS]
    missing = [name for name, at in zip(SUBSECTIONS, positions, strict=True) if at < 0]
    assert not missing, f"missing parts: {missing}"
    assert positions == sorted(positions)
    total = re.search(r"\| \*\*Total\*\* \| \*\*(\d+)\*\* \|", section)
    assert total and int(total.group(1)) == lesson_minutes(path)
    timing = section[positions[1] : positions[2]]
    minutes = [int(m) for m in re.findall(r"^\|[^|*]+\| (\d+) \|$", timing, re.MULTILINE)]
    assert sum(minutes) == lesson_minutes(path), f"timing rows add up to {sum(minutes)}"
    live = section[positions[2] : positions[3]]
    assert len(re.findall(r"^\d\. \*\*", live, re.MULTILINE)) >= 2, "name two or three moments"
    guide_takeaways = bullets(section[positions[5] :])
    assert len(guide_takeaways) == len(bullets(content_cells(path)[-1]))
    assert f"../notebooks/{path.name}" in section


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_index_links_each_lesson_to_its_guide_section(path: Path):
    index = "\n".join(content_cells(ROOT / "notebooks" / "00_index.ipynb"))
    heading = f"Lesson {path.name[:2]} · {lesson_title(path)}"
    anchor = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
    row = next(line for line in index.splitlines() if f"]({path.name})" in line)
    assert f"../docs/instructor_guide.md#{anchor}" in row


def test_cheatsheet_links_every_lesson_to_a_checking_cell():
    links = re.findall(r"\]\(\.\./notebooks/(\d\d)_[a-z0-9_]+\.ipynb#[^)]+\)", CHEATSHEET)
    assert sorted(set(links)) == [p.name[:2] for p in LESSONS]
    assert "../notebooks/" not in re.sub(r"\]\(\.\./notebooks/[^)#]+#[^)]+\)", "", CHEATSHEET), (
        "every cheat-sheet link to a lesson must point at a heading"
    )
