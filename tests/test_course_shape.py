"""The course's shape: every lesson has its parts, its home, its tests, its guide section.

The list of lessons comes from the notebook names (``pe_helpers.lessons.lessons``); these
tests check that the required parts exist, not how they are worded, that every place
``make nav`` writes from a lesson's own files is current and names every lesson, and that
adding a lesson needs its own files only.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import re
import shutil
from pathlib import Path

import build_site as site
import navigation as nav
import nbformat
import pytest

from pe_helpers.lessons import lessons

ROOT = Path(__file__).resolve().parent.parent
COURSE = [lesson for lesson in lessons() if lesson.number > 0]
LESSONS = [lesson.notebook for lesson in COURSE]
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
#: Most lines of Python a lesson's home (``pe_helpers/lessons/<slug>/``) may hold; growth
#: past it is a decision taken in CONTRIBUTING ("Line budget"), not a drift.
HOME_LINES = 1400


def guide_file(path: Path) -> str:
    """A lesson's own guide file, ``docs/guide/NN_slug.md``."""
    return (ROOT / "docs" / "guide" / f"{path.stem}.md").read_text(encoding="utf-8")


def content_cells(path: Path) -> list[str]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if "nav" not in c["metadata"].get("tags", [])]


def lesson_title(path: Path) -> str:
    return content_cells(path)[0].splitlines()[0].removeprefix("# ").strip()


def lesson_minutes(path: Path) -> int:
    match = re.match(r"\*\*Time:\*\* about (\d+) minutes", content_cells(path)[1])
    assert match, f"{path.name}: second cell must start with '**Time:** about N minutes'"
    return int(match.group(1))


def takeaways(path: Path) -> str:
    return next(c for c in content_cells(path) if c.startswith("## Key takeaways"))


def bullets(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("- ")]


@pytest.mark.parametrize("lesson", COURSE, ids=lambda lesson: lesson.slug)
def test_every_lesson_has_a_home_module_solutions_and_a_test_file(lesson):
    assert lesson.module, f"no pe_helpers/lessons/{lesson.slug}/ for {lesson.notebook.name}"
    assert importlib.import_module(lesson.module).__doc__, f"{lesson.module} needs a docstring"
    assert lesson.solutions, f"no solutions notebook for {lesson.notebook.name}"
    test_file = ROOT / "tests" / f"test_lesson_{lesson.notebook.stem}.py"
    assert test_file.is_file(), f"no {test_file.relative_to(ROOT)}"


#: How long Run All takes, as a lesson states it at the top (issue 39): the cells' time after
#: Run All, page and kernel start excluded, on a quiet 2-core machine (benchmarks/README.md).
RUN_ALL = re.compile(r"· \*\*Run All:\*\* (a few seconds|under (\d+) s) ·")


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_lesson_opens_with_time_run_all_and_goals_and_ends_with_takeaways(path: Path):
    cells = content_cells(path)
    assert 15 <= lesson_minutes(path) <= 25
    stated = RUN_ALL.search(cells[1].splitlines()[0])
    assert stated, "the Time line says '· **Run All:** a few seconds ·' or 'under N s ·'"
    assert stated.group(2) is None or int(stated.group(2)) <= 12, "at most 12 s after Run All"
    assert "**Goals**" in cells[1]
    assert re.search(r"^1\. ", cells[1], re.MULTILINE), "goals must be a numbered list"
    headings = [c.splitlines()[0] for c in cells if c.startswith("## ")]
    for part in ("## Exercises", "## Key takeaways", "## References"):
        assert any(h.startswith(part) for h in headings), f"lesson needs a '{part}' section"
    sources = cells[-2:] if cells[-1].startswith("### Read Su Jianlin") else cells[-1:]
    assert sources[0].startswith("## References"), "a lesson ends with its sources"
    assert 3 <= len(bullets(takeaways(path))) <= 6


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_guide_file_has_every_part_and_its_timing_plan_adds_up_to_the_lesson(path: Path):
    text = guide_file(path)
    assert re.search(r"^\*\*In one line:\*\* \S", text, re.MULTILINE), "the index row's summary"
    positions = [text.find(f"\n### {name}\n") for name in SUBSECTIONS[:-1]]
    missing = [name for name, at in zip(SUBSECTIONS, positions, strict=False) if at < 0]
    assert not missing, f"docs/guide/{path.stem}.md misses parts: {missing}"
    assert positions == sorted(positions) and positions[-1] < text.find("\n## Cheat sheet\n")
    timing = text[positions[1] : positions[2]]
    minutes = [int(m) for m in re.findall(r"^\|[^|*]+\| (\d+) \|$", timing, re.MULTILINE)]
    assert sum(minutes) == lesson_minutes(path), f"timing rows add up to {sum(minutes)}"
    assert "**Total**" not in timing, "make nav writes the Total, from the notebook"
    live = text[positions[2] : positions[3]]
    assert len(re.findall(r"^\d\. \*\*", live, re.MULTILINE)) >= 2, "name two or three moments"


def test_every_generated_place_is_current_and_names_every_lesson():
    # Current: the notebooks' navigation and set-up lines, the index's table, the docs.
    assert nav.main(["--check"]) == 0, "stale: run `make nav`"
    for text in nav.generated_docs(ROOT, nav.course_facts()).values():
        assert text.startswith("<!-- generated by make nav — edit docs/guide/NN_slug.md")
    index = content_cells(ROOT / "notebooks" / "00_index.ipynb")
    roadmap = next(cell for cell in index if cell.startswith("## Roadmap"))
    for path in LESSONS:
        heading = f"## Lesson {path.name[:2]} · {lesson_title(path)}\n"
        assert heading in GUIDE and heading in CHEATSHEET, f"{path.name} misses a docs section"
        row = f"| {path.name[:2]} | [{lesson_title(path)}]({path.name}) | {lesson_minutes(path)} |"
        line = next((line for line in roadmap.splitlines() if line.startswith(row)), "")
        guide = f"[guide](../docs/instructor_guide.md#lesson-{path.name[:2]}--"  # tests/test_links
        assert guide in line, f"the index has no row for {path.name} linking its guide section"


def test_every_lesson_home_belongs_to_a_notebook_and_stays_within_its_line_budget():
    folder = ROOT / "pe_helpers" / "lessons"
    assert [p.name for p in folder.glob("*.py")] == ["__init__.py"], "a lesson's home is a folder"
    homes = [p for p in folder.iterdir() if (p / "__init__.py").is_file()]
    lines = {
        home.name: sum(len(f.read_text(encoding="utf-8").splitlines()) for f in home.rglob("*.py"))
        for home in homes
    }
    assert set(lines) == {lesson.slug for lesson in COURSE}, "a home for each notebook, no other"
    over = {name: n for name, n in lines.items() if n > HOME_LINES}
    assert not over, f"past the {HOME_LINES}-line budget of a lesson home (CONTRIBUTING): {over}"


def test_cheatsheet_links_every_lesson_to_a_checking_cell():
    links = re.findall(r"\]\(\.\./notebooks/(\d\d)_[a-z0-9_]+\.ipynb#[^)]+\)", CHEATSHEET)
    assert sorted(set(links)) == [p.name[:2] for p in LESSONS]
    assert "../notebooks/" not in re.sub(r"\]\(\.\./notebooks/[^)#]+#[^)]+\)", "", CHEATSHEET), (
        "every cheat-sheet link to a lesson must point at a heading"
    )


def lesson_needs(path: Path) -> list[str]:
    """The lessons a notebook's **Prerequisites** line names ("lessons 04–05" is 04 and 05)."""
    first = content_cells(path)[1].split("\n\n")[0]
    assert "**Prerequisites:**" in first, f"{path.name}: the time line names its prerequisites"
    named = first.split("**Prerequisites:**", 1)[1]
    needs = []
    for start, end in re.findall(r"lessons? (\d\d)(?:[–-](\d\d))?", named):
        needs += [f"{n:02d}" for n in range(int(start), int(end or start) + 1)]
    return needs


def course_plan() -> str:
    start = GUIDE.index("\n## Course plan\n")
    return GUIDE[start : GUIDE.index("\n## ", start + 1)]


@pytest.mark.parametrize("slot", [60, 90])
def test_a_course_plan_path_fits_its_slot_and_covers_what_it_skips(slot):
    plan = course_plan()
    start = plan.index(f"\n### {slot} minutes\n")
    following = plan.find("\n### ", start + 1)
    path_text = plan[start : following if following > 0 else len(plan)]
    line = re.search(r"^Lessons ([\d →]+): (\d+) minutes, (\d+) left", path_text, re.M)
    assert line, f"the {slot}-minute path opens with 'Lessons NN → NN: M minutes, K left'"
    taught = line[1].split(" → ")
    by_number = {p.name[:2]: p for p in LESSONS}
    minutes = sum(lesson_minutes(by_number[n]) for n in taught)
    assert int(line[2]) == minutes and minutes + int(line[3]) == slot
    instead = re.findall(r"^- Instead of lesson (\d\d):", path_text, re.M)
    for position, number in enumerate(taught):
        for need in lesson_needs(by_number[number]):
            assert need in taught[:position] or need in instead, (
                f"the {slot}-minute path teaches {number} without {need} or a word instead of it"
            )
    needed = {need for number in taught for need in lesson_needs(by_number[number])}
    assert set(instead) <= needed - set(taught), "a summary of a lesson nothing taught needs"


def test_the_index_and_the_guide_say_what_a_kernel_restart_leaves():
    # A live view stores its picture, not a static copy drawn above it; after a restart its
    # sliders still move but redraw nothing until the cell runs again (seen in JupyterLab 4.6).
    index = "\n".join(content_cells(ROOT / "notebooks" / "00_index.ipynb"))
    for name, text in (("the index", index), ("the guide", GUIDE)):
        flat = " ".join(text.split())
        assert "static figure just above" not in flat and "drawn once with the default" not in flat
        restart = flat[flat.index("restart") :][:600]
        assert "changes nothing" in restart or "does not" in restart, f"{name}: {restart}"
        assert "Run All Cells" in restart, f"{name} says how to bring the sliders back"


#: The new lesson of CONTRIBUTING's "Add a lesson": its guide file and its home's one figure.
NEW_GUIDE = """**In one line:** A dial that turns.

### Learning goals

1. Turn the dial.

### Timing plan

| Section | Minutes |
|---|---|
| The dial | 15 |
| Exercises | 5 |

### Live moments

1. **Turn it.** Say: "it turns."
2. **Turn it back.** Say: "it turns back."

### Questions for the room

- *Does it turn?* Yes.

### Misconceptions to probe

- "It cannot turn." It can.

## Cheat sheet

- $\\theta \\mapsto \\theta + 1$. [checked in lesson 15](../notebooks/15_my_topic.ipynb#The-dial)
"""
NEW_FIGURE = '''"""Lesson 15's figure."""

from types import SimpleNamespace

from pe_helpers.live import LiveFigure, int_control


class Dial(LiveFigure):
    """A dial at an angle."""

    site_grid = {"angle": (0, 90, 180)}
    controls = {"angle": int_control("angle", 45, 0, 180)}

    def build(self, axes):
        return SimpleNamespace(line=axes.plot([0, 1], [0, 0])[0])

    def update(self, art, angle):
        art.line.set_ydata([0, angle])
'''


def _new_lesson() -> dict[str, str]:
    """Lesson 15's own files, by path: notebook, solutions, guide file, home, test."""
    new = nbformat.v4.new_notebook
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    notebook = new(
        cells=[
            md("# My topic"),
            md(
                "**Time:** about 20 minutes · **Run All:** a few seconds · **Prerequisites:** "
                "lesson 07\n\n**Goals**\n1. turn the dial."
            ),
            code("import numpy as np\nfrom pe_helpers.lessons.my_topic import Dial\n\n"),
            md("## The dial"),
            code("Dial().view()"),
            md("## Exercises"),
            md("## Key takeaways\n\n- The dial turns.\n- It turns back.\n- It stops at 180."),
            md("## References\n\n- None."),
        ]
    )
    solutions = new(cells=[code("from pe_helpers.lessons.my_topic import Dial")])
    return {
        "notebooks/15_my_topic.ipynb": nbformat.writes(notebook),
        "notebooks/solutions/15_my_topic_solutions.ipynb": nbformat.writes(solutions),
        "docs/guide/15_my_topic.md": NEW_GUIDE,
        "pe_helpers/lessons/my_topic/__init__.py": '"""Lesson 15."""\n\nfrom .figures import *\n',
        "pe_helpers/lessons/my_topic/figures.py": NEW_FIGURE,
        "tests/test_lesson_15_my_topic.py": "from pe_helpers.lessons.my_topic import Dial\n",
    }


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_adding_a_lesson_needs_its_own_files_only_and_every_generated_place_picks_it_up(
    tmp_path, monkeypatch
):
    # CONTRIBUTING's "Add a lesson", done in a copy of the course's notebooks and docs.
    cleaned = []
    monkeypatch.setattr(nav, "clean", cleaned.append)  # nbstripout: 3 s a notebook, here
    root = tmp_path / "course"
    for folder in ("notebooks", "docs", "i18n"):  # i18n: the term base the index's glossary reads
        shutil.copytree(ROOT / folder, root / folder, ignore=shutil.ignore_patterns(".*"))
    before = _files(root)
    own = _new_lesson()
    for name, text in own.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    assert nav.main([], root) == 0  # make nav
    assert nav.main(["--check"], root) == 0
    changed = {name for name, data in _files(root).items() if before.get(name) != data}
    generated = ["00_index.ipynb", "14_position_from_content.ipynb"]  # its table, its next link
    generated = {*(f"notebooks/{name}" for name in generated), *nav.GENERATED_DOCS}
    assert changed - set(own) == generated, "only make nav writes outside the lesson's files"
    assert {p.relative_to(root).as_posix() for p in cleaned} == {
        name for name in changed if name.endswith(".ipynb")
    }

    anchor = "lesson-15--my-topic"
    index = "\n".join(content_cells(root / "notebooks" / "00_index.ipynb"))
    row = "| 15 | [My topic](15_my_topic.ipynb) | 20 | A dial that turns. |"
    assert f"{row} [guide](../docs/instructor_guide.md#{anchor}) |" in index
    guide = (root / "docs" / "instructor_guide.md").read_text(encoding="utf-8")
    section = guide[guide.index("## Lesson 15 · My topic\n") :]
    assert "| Exercises | 5 |\n| **Total** | **20** |" in section
    assert "### Key takeaways\n\n- The dial turns.\n- It turns back.\n- It stops at 180." in section
    assert f"| [15 · My topic](#{anchor}) | 20 | 07 |" in guide  # the course plan
    total = sum(lesson_minutes(path) for path in LESSONS) + 20
    assert f"**{total} minutes** of class time" in guide
    cheatsheet = (root / "docs" / "cheatsheet.md").read_text(encoding="utf-8")
    assert "## Lesson 15 · My topic\n\n- $\\theta \\mapsto" in cheatsheet
    following = nbformat.read(root / "notebooks" / "14_position_from_content.ipynb", 4)
    assert "[My topic](15_my_topic.ipynb)" in following.cells[0].source

    # The website's pages: the lesson in the contents, and its figure's grid from the figure.
    pages = site.copy_sources(tmp_path / "site", root=root)
    site.add_contents(tmp_path / "site", pages)
    contents = pages[(tmp_path / "site" / "notebooks" / "00_index.ipynb").resolve()]
    assert "\n15_my_topic\n" in contents.notebook["cells"][-1]["source"]
    assert (
        "## Lesson 15 · My topic"
        in pages[(tmp_path / "site" / nav.GENERATED_DOCS[0]).resolve()].markdown
    )
    spec = importlib.util.spec_from_file_location(
        "lesson_15_figures", root / "pe_helpers" / "lessons" / "my_topic" / "figures.py"
    )
    home = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(home)
    (axis,) = site.plan_axes(home.Dial, {"angle": 45})
    assert axis.values == (0, 45, 90, 180)

    # A lesson without its guide file is missed by no generated place: make nav stops.
    (root / "docs" / "guide" / "15_my_topic.md").unlink()
    with pytest.raises(ValueError, match="15_my_topic.md"):
        nav.main(["--check"], root)
