"""Write what the notebooks and the per-lesson guide files say into every place that repeats it.

Usage: python scripts/navigation.py [--check]

Lessons are the files ``notebooks/NN_slug.ipynb`` in name order
(:func:`pe_helpers.lessons.lessons`); a lesson's title is its first level-1
markdown heading. This script owns

* the prev / index / next links of every notebook: markdown cells tagged ``nav``
  (solution notebooks, ``notebooks/solutions/NN_slug_solutions.ipynb``, link back to
  their lesson);
* the first lines of each notebook's first code cell, :data:`GUARD`: ``import pe_helpers``,
  whose comment says what to run when a kernel without the course shows it in a
  ``ModuleNotFoundError`` (importing the package in a kernel draws each inline figure
  once, as laid out: :func:`pe_helpers.figures.draw_inline_once`);
* the lesson table of ``notebooks/00_index.ipynb`` (its "Roadmap" cell), and
  ``docs/instructor_guide.md`` and ``docs/cheatsheet.md``, written from each notebook's
  title, ``**Time:**`` line and ``## Key takeaways`` cell and from the lesson's own guide
  file ``docs/guide/NN_slug.md`` (:func:`guide_file`), inside the frames
  ``docs/guide/_instructor_guide.md`` and ``docs/guide/_cheatsheet.md``.

``--check`` changes nothing and exits 1 if anything is stale.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

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
    f'pe_helpers.require("{pe_helpers.__version__}", language="en")  # too old? ask your hub '
    "admin to reinstall the course\n"
)
#: The Chinese edition's set-up lines: the same code, its language switch set to Chinese.
ZH_GUARD = (
    "import pe_helpers  # 课程的辅助包（找不到？用 `make lab` 启动 JupyterLab）\n\n"
    f'pe_helpers.require("{pe_helpers.__version__}", language="zh")  # 版本太旧？请 JupyterHub '
    "管理员重新安装课程\n"
)
_GUARD_LINE = re.compile(r"import pe_helpers|pe_helpers\.require\(.*\)")


def without_guard(source: str) -> str:
    """``source`` with the set-up lines of :data:`GUARD` taken out."""
    lines = source.split("\n")
    return "\n".join(
        line for line in lines if not _GUARD_LINE.fullmatch(line.split("#")[0].strip())
    )


def zh_guard(source: str) -> str:
    """``source`` (a translated code cell) with the English set-up lines in Chinese."""
    english = GUARD.rstrip("\n").split("\n")
    chinese = ZH_GUARD.rstrip("\n").split("\n")
    lines = source.split("\n")
    for en, zh in zip(english, chinese, strict=True):
        lines = [zh if line == en else line for line in lines]
    return "\n".join(lines)


def lesson_paths(root: Path = ROOT) -> list[Path]:
    return [lesson.notebook for lesson in lessons(root / "notebooks")]


def solutions(root: Path = ROOT) -> list[Path]:
    return [lesson.solutions for lesson in lessons(root / "notebooks") if lesson.solutions]


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


def lesson_nav(
    order: list[Path], index: int, name: Callable[[Path], str] = title, contents: str = "Contents"
) -> str:
    """The row ``← previous | Contents | next →`` of lesson ``index``: one link per target
    (the first lesson's previous notebook is the contents, so it links there once)."""
    parts = []
    if index > 0 and order[index - 1].name != INDEX:
        prev = order[index - 1]
        parts.append("← " + _link(name(prev), prev.name))
    if order[index].name != INDEX:
        parts.append(("← " if index == 1 else "") + _link(contents, INDEX))
    if index + 1 < len(order):
        nxt = order[index + 1]
        parts.append(_link(name(nxt), nxt.name) + " →")
    return " | ".join(parts)


def solution_nav(
    path: Path,
    name: Callable[[Path], str] = title,
    words: tuple[str, str] = ("Back to the lesson: ", "Contents"),
) -> str:
    lesson = path.parent.parent / path.name.replace("_solutions", "")
    back = _link(words[0] + name(lesson), f"../{lesson.name}")
    return back + " | " + _link(words[1], "../00_index.ipynb")


def edition_link(path: Path, root: Path = ROOT) -> str:
    """The link from notebook ``path`` to the same notebook in the other edition."""
    rel = path.relative_to(root / "notebooks")
    depth = len(rel.parts) - 1
    if rel.parts[0] == "zh":
        return _link("English", "../" * depth + Path(*rel.parts[1:]).as_posix())
    return _link("中文版", "../" * depth + Path("zh", *rel.parts).as_posix())


def zh_title(path: Path) -> str:
    """The Chinese title of English notebook ``path`` (its title cell, translated)."""
    import i18n  # noqa: PLC0415 (scripts/i18n.py, which imports this module)

    table = i18n.translations(i18n.load(i18n.catalog_path(path)))
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "markdown" and TAG not in cell.metadata.get("tags", []):
            translated = table.get(("markdown", cell.source), cell.source)
            for line in translated.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return title(path)


def zh_nav_text(source: Path, root: Path = ROOT) -> str:
    """The Chinese edition's navigation row for English notebook ``source``."""
    order = lesson_paths(root)
    if source in order:
        text = lesson_nav(order, order.index(source), zh_title, "目录")
    else:
        text = solution_nav(source, zh_title, ("返回本课：", "目录"))
    import i18n  # noqa: PLC0415

    return text + " · " + edition_link(i18n.target_path(source, root), root)


def with_zh_nav(
    nb: nbformat.NotebookNode, source: Path, root: Path = ROOT
) -> nbformat.NotebookNode:
    """The Chinese notebook ``nb`` with its own navigation cells."""
    return with_nav(nb, zh_nav_text(source, root), guard=False)


def with_nav(nb: nbformat.NotebookNode, text: str, guard: bool = True) -> nbformat.NotebookNode:
    """Return ``nb`` with exactly one nav cell first and one last, holding ``text``."""
    cells = [c for c in nb.cells if TAG not in c.metadata.get("tags", [])]
    body = f"<small>{text}</small>"

    def nav_cell(where: str) -> nbformat.NotebookNode:
        cell = nbformat.v4.new_markdown_cell(body, id=f"nav-{where}")
        cell.metadata["tags"] = [TAG]
        return cell

    nb.cells = [nav_cell("top"), *cells, nav_cell("bottom")]
    return with_guard(nb) if guard else nb


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
        lines = [line for line in lines if not _GUARD_LINE.fullmatch(line.split("#")[0].strip())]
        # The guard's own blank line stays behind: one blank line at most, none first.
        lines = [line for i, line in enumerate(lines) if line or (i and lines[i - 1])]
        lines = lines[1:] if lines and not lines[0] else lines
        guard = GUARD.rstrip("\n").split("\n")
        first = next(
            (i for i, line in enumerate(lines) if line.startswith("from pe_helpers")), None
        )
        if first is not None:  # a section of its own: a blank line after other imports
            lines[first:first] = ["", *guard] if first and lines[first - 1] else guard
        else:  # nothing else from the package: its own block after the other imports
            starts = ("import ", "from ")
            last = max((i for i, line in enumerate(lines) if line.startswith(starts)), default=-1)
            lines[last + 1 : last + 1] = ["", *guard] if last >= 0 else guard
        # One blank line at most between blocks (a guard removed above may leave two).
        lines = [line for i, line in enumerate(lines) if line or i == 0 or lines[i - 1]]
        code[0].source = "\n".join(lines)
    return nb


# ---- The places that repeat a lesson's facts: the index's table, the guide, the cheat sheet.

#: A lesson's guide file holds its teaching notes: these parts, in this order, then
#: ``## Cheat sheet`` (its formulas); its ``**In one line:**`` is the index row's summary.
GUIDE_PARTS = (
    "Learning goals",
    "Timing plan",
    "Live moments",
    "Questions for the room",
    "Misconceptions to probe",
)
SHEET = "\n## Cheat sheet\n"
#: Where a frame (``docs/guide/_*.md``) takes generated text.
MARK = "<!-- make nav: {} -->"
#: The first line of every generated place.
GENERATED = "<!-- generated by make nav — edit {} -->"
FROM_LESSONS = "docs/guide/NN_slug.md"
#: The docs make nav writes (:func:`generated_docs`), from the top of the course.
GENERATED_DOCS = ("docs/instructor_guide.md", "docs/cheatsheet.md")


def github_anchor(heading: str) -> str:
    """Anchor GitHub gives a Markdown heading: lower case, punctuation dropped.

    Examples
    --------
    >>> github_anchor("Lesson 03 · Choosing the frequencies")
    'lesson-03--choosing-the-frequencies'
    """
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


class LessonFacts(NamedTuple):
    """What the generated places say about one lesson (:func:`lesson_facts`)."""

    stem: str  # "01_why_position"
    title: str  # the notebook's first heading
    minutes: int  # its **Time:** line
    needs: list[str]  # the lessons its **Prerequisites:** line names, "04"
    takeaways: str  # the bullets of its ## Key takeaways cell
    solutions: bool  # whether it has a solutions notebook
    summary: str  # the guide file's **In one line:**
    notes: str  # the guide file's parts, GUIDE_PARTS
    formulas: str  # the guide file's ## Cheat sheet

    @property
    def heading(self) -> str:
        return f"Lesson {self.stem[:2]} · {self.title}"

    @property
    def anchor(self) -> str:
        return github_anchor(self.heading)


def guide_file(root: Path, stem: str) -> Path:
    """The lesson's own guide file, ``docs/guide/NN_slug.md``."""
    return root / "docs" / "guide" / f"{stem}.md"


def content_cells(path: Path) -> list[str]:
    """The sources of a notebook's cells, its navigation cells left out."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if TAG not in c["metadata"].get("tags", [])]


def lesson_facts(path: Path, root: Path = ROOT) -> LessonFacts:
    """Read one lesson's facts from its notebook and its guide file; a missing part raises
    ``ValueError`` naming the file and the part."""
    cells = content_cells(path)
    time = next((c for c in cells if c.startswith("**Time:**")), "")
    minutes = re.match(r"\*\*Time:\*\* about (\d+) minutes", time)
    takeaways = next((c for c in cells if c.startswith("## Key takeaways")), "")
    if not (minutes and takeaways):
        raise ValueError(
            f"{path.name}: needs a '**Time:** about N minutes' cell and '## Key takeaways'"
        )
    named = time.split("\n\n")[0].partition("**Prerequisites:**")[2]
    needs = []
    for start, end in re.findall(r"lessons? (\d\d)(?:[–-](\d\d))?", named):
        needs += [f"{n:02d}" for n in range(int(start), int(end or start) + 1)]
    guide = guide_file(root, path.stem)
    if not guide.is_file():
        raise ValueError(f"{path.name} has no guide file {guide.relative_to(root)}: write it")
    where = guide.relative_to(root).as_posix()
    summary, notes, formulas = guide_parts(guide.read_text(encoding="utf-8"), where)
    return LessonFacts(
        path.stem,
        title(path),
        int(minutes[1]),
        needs,
        takeaways.partition("\n")[2].strip(),
        (path.parent / "solutions" / f"{path.stem}_solutions.ipynb").is_file(),
        summary,
        notes,
        formulas,
    )


def guide_parts(
    text: str,
    where: str,
    words: tuple[str, tuple[str, ...], str] = ("**In one line:**", GUIDE_PARTS, SHEET),
) -> tuple[str, str, str]:
    """A guide file's one-line summary, its teaching notes (its parts, from the first) and its
    cheat sheet; ``words`` names them in the file's language. A missing one raises
    ``ValueError`` naming the file ``where`` and what it needs."""
    mark, parts, sheet = words
    summary = re.search(rf"^{re.escape(mark)}\s*(.+)$", text, re.MULTILINE)
    first = text.find(f"### {parts[0]}")
    if not summary or first < 0 or sheet not in text:
        raise ValueError(f"{where} needs '{mark} …', '### {parts[0]}' … and '{sheet.strip()}'")
    notes, _, formulas = text[first:].partition(sheet)
    return summary[1].strip(), notes.strip(), formulas.strip()


def course_facts(root: Path = ROOT) -> list[LessonFacts]:
    """Every lesson's facts (the index left out), in notebook order."""
    return [lesson_facts(path, root) for path in lesson_paths(root) if path.name != INDEX]


def with_total(notes: str, minutes: int) -> str:
    """The notes with a **Total** row (the notebook's minutes) closing the timing plan."""
    lines = notes.split("\n")
    start = lines.index(f"### {GUIDE_PARTS[1]}")
    last = max(i for i, line in enumerate(lines) if i > start and line.startswith("|"))
    assert not any(line.startswith("### ") for line in lines[start + 1 : last])
    lines.insert(last + 1, f"| **Total** | **{minutes}** |")
    return "\n".join(lines)


def guide_section(lesson: LessonFacts) -> str:
    """One lesson's section of the instructor guide."""
    links = [f"[notebook](../notebooks/{lesson.stem}.ipynb)"]
    if lesson.solutions:
        links.append(f"[solutions](../notebooks/solutions/{lesson.stem}_solutions.ipynb)")
    links.append(f"[formulas](cheatsheet.md#{lesson.anchor})")
    return (
        f'<a id="{lesson.anchor}"></a>\n\n## {lesson.heading}\n\n{" · ".join(links)}\n\n'
        f"{with_total(lesson.notes, lesson.minutes)}\n\n### Key takeaways\n\n{lesson.takeaways}\n"
    )


def course_plan(facts: list[LessonFacts]) -> str:
    """The guide's table of lessons: minutes and the lessons each one needs."""
    rows = ["| Lesson | Minutes | Needs |", "|--------|---------|-------|"]
    for lesson in facts:
        needs = ", ".join(lesson.needs) or "—"
        link = f"[{lesson.stem[:2]} · {lesson.title}](#{lesson.anchor})"
        rows.append(f"| {link} | {lesson.minutes} | {needs} |")
    return "\n".join(rows)


def _framed(frame: Path, generated_from: str, parts: dict[str, str]) -> str:
    """The frame's text (its own first comment dropped), each marker replaced by its part."""
    text = re.sub(r"\A<!--.*?-->\n+", "", frame.read_text(encoding="utf-8"), flags=re.DOTALL)
    for name, part in parts.items():
        if MARK.format(name) not in text:
            raise ValueError(f"{frame.name} has no marker {MARK.format(name)}")
        text = text.replace(MARK.format(name), part)
    return GENERATED.format(generated_from) + "\n\n" + text


def generated_docs(root: Path = ROOT, facts: list[LessonFacts] | None = None) -> dict[Path, str]:
    """The texts of ``docs/instructor_guide.md`` and ``docs/cheatsheet.md``, by path."""
    facts = course_facts(root) if facts is None else facts
    guide = root / "docs" / "guide"
    total = sum(lesson.minutes for lesson in facts)
    total_text = f"**{total} minutes** of class time ({total // 60} h {total % 60} min)"
    return {
        root / GENERATED_DOCS[0]: _framed(
            guide / "_instructor_guide.md",
            f"{FROM_LESSONS} (a lesson) or docs/guide/_instructor_guide.md (the rest)",
            {
                "course total": total_text,
                "course plan": course_plan(facts),
                "lessons": "\n".join(guide_section(lesson) for lesson in facts).rstrip("\n"),
            },
        ),
        root / GENERATED_DOCS[1]: _framed(
            guide / "_cheatsheet.md",
            f"{FROM_LESSONS} (its Cheat sheet) or docs/guide/_cheatsheet.md (the rest)",
            {
                "lessons": "\n\n".join(
                    f"## {lesson.heading}\n\n{lesson.formulas}" for lesson in facts
                )
            },
        ),
    }


def roadmap_table(facts: list[LessonFacts]) -> str:
    """The index's table: a row per lesson, linking its notebook and its guide section."""
    rows = [
        GENERATED.format(FROM_LESSONS),
        "",
        "| # | Lesson | Minutes | In one line | Teaching notes |",
        "|---|--------|---------|-------------|----------------|",
    ]
    for lesson in facts:
        guide = f"[guide](../docs/instructor_guide.md#{lesson.anchor})"
        rows.append(
            f"| {lesson.stem[:2]} | [{lesson.title}]({lesson.stem}.ipynb) | {lesson.minutes} "
            f"| {lesson.summary} | {guide} |"
        )
    return "\n".join(rows)


def with_roadmap(source: str, facts: list[LessonFacts]) -> str:
    """The index's "Roadmap" cell ``source`` with its table written anew."""
    lines = source.split("\n")
    first = next(
        i for i, line in enumerate(lines) if line.startswith(("| #", GENERATED.split(" —")[0]))
    )
    end = first + 1
    while end < len(lines) and (lines[end].startswith("|") or not lines[end].strip()):
        end += 1
    while not lines[end - 1].strip():  # the blank lines after the table stay
        end -= 1
    return "\n".join([*lines[:first], roadmap_table(facts), *lines[end:]])


def write_roadmap(cells: list, facts: list[LessonFacts]) -> None:
    """Write the lesson table anew in the index's "Roadmap" cell, one of ``cells``."""
    cell = next(c for c in cells if c["source"].startswith("## Roadmap"))
    cell["source"] = with_roadmap(cell["source"], facts)


#: The course's term base, one row per term in both languages: the index's glossary in each
#: edition is written from it, and translators use it.
TERMS = ROOT / "i18n" / "zh" / "terms.tsv"
GLOSSARY_TAG = "glossary"


def terms(root: Path = ROOT) -> list[dict[str, str]]:
    """The rows of the term base: ``english``, ``中文``, ``meaning``, ``含义``."""
    lines = (root / TERMS.relative_to(ROOT)).read_text(encoding="utf-8").strip().split("\n")
    head = lines[0].split("\t")
    return [dict(zip(head, line.split("\t"), strict=True)) for line in lines[1:]]


def glossary(rows: list[dict[str, str]], language: str = "en") -> str:
    """The index's glossary cell in ``language``, from the term base ``rows``."""
    if language == "en":
        head = (
            "## Glossary (English – 中文)\n\nThe terms both editions of the course use.\n\n"
            "| English | 中文 | Meaning in this course |\n|---------|------|-------------|"
        )
        cells = [(r["english"], r["中文"], r["meaning"]) for r in rows]
    else:
        head = (
            "## 术语表（中文 – English）\n\n课程的两个版本使用同一套术语。\n\n"
            "| 中文 | English | 在本课程中的含义 |\n|------|---------|------------------|"
        )
        cells = [(r["中文"], r["english"], r["含义"]) for r in rows]
    return head + "".join(f"\n| {a} | {b} | {c} |" for a, b, c in cells)


def write_glossary(cells: list, rows: list[dict[str, str]], language: str = "en") -> None:
    """Write the index's glossary cell (the one tagged or headed "Glossary") anew."""
    cell = next(
        c
        for c in cells
        if GLOSSARY_TAG in c.get("metadata", {}).get("tags", [])
        or c["source"].startswith("## Glossary")
    )
    cell["source"] = glossary(rows, language)
    cell.setdefault("metadata", {})["tags"] = [GLOSSARY_TAG]


def updated(path: Path, text: str, facts: list[LessonFacts]) -> nbformat.NotebookNode:
    """Notebook ``path`` with its navigation ``text`` and set-up line (and, for the index,
    its lesson table and glossary) written anew."""
    nb = with_nav(nbformat.read(path, as_version=4), text)
    if path.name == INDEX:
        write_roadmap(nb.cells, facts)
        write_glossary(nb.cells, terms(path.parent.parent))
    return nb


def _same(a: nbformat.NotebookNode, b: nbformat.NotebookNode) -> bool:
    def strip(nb):
        return [(c.cell_type, c.source, c.metadata.get("tags", [])) for c in nb.cells]

    return strip(a) == strip(b)


def targets(root: Path = ROOT) -> list[tuple[Path, str]]:
    order = lesson_paths(root)
    out = [(p, lesson_nav(order, i)) for i, p in enumerate(order)]
    out += [(p, solution_nav(p)) for p in solutions(root)]
    return [(p, text + " · " + edition_link(p, root)) for p, text in out]


def clean(path: Path) -> None:
    """Keep a notebook clean (cell ids renumbered, outputs and counts kept), as `make regen`."""
    subprocess.run(
        [sys.executable, "-m", "nbstripout", "--keep-output", "--keep-count", str(path)],
        check=True,
    )


def main(argv: list[str], root: Path = ROOT) -> int:
    check = "--check" in argv
    facts = course_facts(root)
    stale = []
    for path, text in targets(root):
        new = updated(path, text, facts)
        if _same(nbformat.read(path, as_version=4), new):
            continue
        stale.append(path)
        if not check:
            nbformat.write(new, path)
            clean(path)
    for path, text in generated_docs(root, facts).items():
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(path)
        if not check:
            path.write_text(text, encoding="utf-8")
    for path in stale:
        print(f"{'stale' if check else 'updated'}: {path.relative_to(root)}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))


# ---- The Chinese edition's guide and cheat sheet: the same generator, Chinese words. --------

#: The Chinese guide files' parts (docs/guide/zh/NN_slug.md, written by scripts/i18n.py).
ZH_GUIDE_PARTS = ("学习目标", "时间安排", "课堂演示", "课堂提问", "值得追问的误解")
ZH_SHEET = "\n## 速查表\n"
ZH_GENERATED_DOCS = ("docs/zh/instructor_guide.md", "docs/zh/cheatsheet.md")


def zh_lesson_facts(lesson: LessonFacts, guide: str, takeaways: str, title_zh: str) -> LessonFacts:
    """``lesson``'s facts in Chinese: its Chinese guide file's text ``guide``, the bullets of
    its Chinese takeaways cell and its Chinese title (minutes and needs are the same)."""
    where = f"docs/guide/zh/{lesson.stem}.md (its catalog's headings)"
    summary, notes, formulas = guide_parts(
        guide, where, ("**一句话概括：**", ZH_GUIDE_PARTS, ZH_SHEET)
    )
    return lesson._replace(
        title=title_zh,
        takeaways=takeaways.partition("\n")[2].strip(),
        summary=summary,
        notes=notes,
        formulas=formulas,
    )


def zh_heading(lesson: LessonFacts) -> str:
    return f"第 {lesson.stem[:2]} 课 · {lesson.title}"


def zh_guide_section(lesson: LessonFacts) -> str:
    """One lesson's section of the Chinese instructor guide."""
    anchor = github_anchor(zh_heading(lesson))
    links = [f"[笔记本](../../notebooks/zh/{lesson.stem}.ipynb)"]
    if lesson.solutions:
        links.append(f"[参考答案](../../notebooks/zh/solutions/{lesson.stem}_solutions.ipynb)")
    links.append(f"[公式](cheatsheet.md#{anchor})")
    lines = lesson.notes.split("\n")
    start = lines.index(f"### {ZH_GUIDE_PARTS[1]}")
    last = max(i for i, line in enumerate(lines) if i > start and line.startswith("|"))
    lines.insert(last + 1, f"| **合计** | **{lesson.minutes}** |")
    notes = "\n".join(lines)
    return (  # the id: JupyterLab's Markdown preview scrolls to it (as in the English guide)
        f'<a id="{anchor}"></a>\n\n## {zh_heading(lesson)}\n\n{" · ".join(links)}\n\n'
        f"{notes}\n\n### 要点回顾\n\n{lesson.takeaways}\n"
    )


def zh_generated_docs(
    root: Path, facts: list[LessonFacts], frames: dict[str, str]
) -> dict[Path, str]:
    """The Chinese guide and cheat sheet (``docs/zh``), from the Chinese lesson ``facts`` and
    the Chinese frames (``frames``: ``"_instructor_guide"`` and ``"_cheatsheet"`` texts)."""
    total = sum(lesson.minutes for lesson in facts)
    total_text = f"课堂时间共 **{total} 分钟**（{total // 60} 小时 {total % 60} 分）"
    rows = ["| 课 | 分钟 | 先修 |", "|----|------|------|"]
    for lesson in facts:
        link = f"[{lesson.stem[:2]} · {lesson.title}](#{github_anchor(zh_heading(lesson))})"
        rows.append(f"| {link} | {lesson.minutes} | {', '.join(lesson.needs) or '—'} |")

    def framed(name: str, parts: dict[str, str]) -> str:
        text = re.sub(r"\A<!--.*?-->\n+", "", frames[name], flags=re.DOTALL)
        for mark, part in parts.items():
            if MARK.format(mark) not in text:
                raise ValueError(f"docs/guide/zh/{name}.md has no marker {MARK.format(mark)}")
            text = text.replace(MARK.format(mark), part)
        note = "由 make i18n 生成——请修改 docs/guide/NN_slug.md 及其译文目录 i18n/zh/docs/guide"
        return f"<!-- {note} -->\n\n{text}"

    return {
        root / ZH_GENERATED_DOCS[0]: framed(
            "_instructor_guide",
            {
                "course total": total_text,
                "course plan": "\n".join(rows),
                "lessons": "\n".join(zh_guide_section(lesson) for lesson in facts).rstrip("\n"),
            },
        ),
        root / ZH_GENERATED_DOCS[1]: framed(
            "_cheatsheet",
            {
                "lessons": "\n\n".join(
                    f"## {zh_heading(lesson)}\n\n{lesson.formulas}" for lesson in facts
                )
            },
        ),
    }
