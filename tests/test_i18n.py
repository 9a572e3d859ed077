"""The Chinese edition: complete and current catalogs, the same code, Chinese that renders.

The English notebooks, guide files and package strings are the source; ``scripts/i18n.py``
writes ``notebooks/zh`` and ``docs/guide/zh`` from them and from the gettext catalogs
(``i18n/zh``, ``pe_helpers/data/locale/zh.po``). These tests fail on a missing or stale
translation, on a Chinese code cell that is not the English code, on a character the shipped
font lacks, and on a figure or a checker that still speaks English in a Chinese notebook.
"""

from __future__ import annotations

import ast
import logging
import re
import shutil
import warnings
from pathlib import Path

import matplotlib as mpl
import nbformat
import pytest
from fontTools.ttLib import TTFont
from matplotlib import font_manager

import i18n  # scripts/i18n.py
import pe_helpers
from pe_helpers import i18n as language
from pe_helpers.grading import Feedback
from pe_helpers.lessons.rope import check_rotate_pair
from pe_helpers.lessons.why_position import check_steps_until_faded

ROOT = Path(__file__).resolve().parent.parent
CJK = re.compile(r"[\u3400-\u9fff]")
EN = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted(
    (ROOT / "notebooks" / "solutions").glob("*.ipynb")
)


@pytest.fixture
def chinese():
    """The package speaking Chinese for one test."""
    language.set_language("zh")
    try:
        yield
    finally:
        language.set_language("en")


# --- one source: complete, current, the same code ---------------------------------------------


def test_every_text_has_a_current_translation_and_every_chinese_file_is_current():
    problems = i18n.problems()
    assert not problems, f"{len(problems)} problems (make i18n, then translate):\n" + "\n".join(
        problems[:20]
    )
    stale = [
        path
        for path, text in i18n.generated().items()
        if not path.is_file() or not i18n.same_file(path, text)
    ]
    assert not stale, f"stale Chinese files (make i18n): {stale}"


def test_there_is_a_chinese_notebook_for_every_english_one():
    assert len(EN) == 29
    for path in EN:
        assert i18n.target_path(path).is_file(), path


@pytest.fixture
def course_copy(tmp_path):
    """The sources and catalogs in a folder of their own (the package without its data)."""
    for part in ("notebooks", "docs/guide"):  # the English sources, not the Chinese files
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("zh"))
    shutil.copytree(
        ROOT / "pe_helpers",
        tmp_path / "pe_helpers",
        ignore=shutil.ignore_patterns("models", "seeds", "fonts", "__pycache__"),
    )
    shutil.copytree(ROOT / "i18n", tmp_path / "i18n")
    return tmp_path


def _edit_markdown(path: Path, old: str, new: str) -> None:
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "markdown" and old in c.source)
    cell.source = cell.source.replace(old, new, 1)
    nbformat.write(nb, path)


def test_a_changed_english_sentence_makes_its_translation_missing_then_stale(course_copy):
    assert i18n.problems(course_copy) == []
    lesson = course_copy / "notebooks" / "07_rope.ipynb"
    _edit_markdown(lesson, "Start in two dimensions", "Begin in two dimensions")
    missing = i18n.problems(course_copy)
    assert len(missing) == 1 and "missing" in missing[0] and "07_rope" in missing[0]
    i18n.main(["update"], course_copy)  # the old entry stays, marked obsolete
    after = i18n.problems(course_copy)
    assert any("stale" in p for p in after) and any("missing" in p for p in after)


def test_a_changed_package_string_or_code_comment_is_caught_too(course_copy):
    grading = course_copy / "pe_helpers" / "grading.py"
    text = grading.read_text(encoding="utf-8")
    grading.write_text(text.replace("correct — well done.", "correct — nicely done."))
    found = i18n.problems(course_copy)
    assert any("zh.po: missing" in p and "nicely done" in p for p in found), found
    grading.write_text(text)
    lesson = course_copy / "notebooks" / "07_rope.ipynb"
    nb = nbformat.read(lesson, as_version=4)
    comment = "# d_k: the width of one attention head"
    cell = next(c for c in nb.cells if c.cell_type == "code" and comment in c.source)
    cell.source = cell.source.replace(comment, "# a comment nobody translated")
    nbformat.write(nb, lesson)
    assert any("a comment nobody translated" in p for p in i18n.problems(course_copy))


def test_a_translation_that_breaks_the_code_is_refused():
    assert i18n.mismatch("string", 'f"{n} steps"', 'f"{n} 步"') is None
    assert "expressions" in i18n.mismatch("string", 'f"{n} steps"', 'f"{m} 步"')
    assert "literal" in i18n.mismatch("string", '"two words"', "两个词")
    assert "comment" in i18n.mismatch("comment", "# a note", "注释")
    assert "placeholders" in i18n.mismatch("", "base {0}", "底数")
    assert "link" in i18n.mismatch("markdown", "[a](x.ipynb)", "[甲](y.ipynb)")


def _code_shape(source: str) -> str:
    """The code with every string emptied (comments are gone in the tree); an f-string keeps
    its values, in any order (a translation may reorder a sentence)."""
    lines = [line for line in source.split("\n") if not line.lstrip().startswith(("%", "!"))]
    tree = ast.parse("\n".join(lines))
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            values = [v for v in node.values if isinstance(v, ast.FormattedValue)]
            node.values = sorted(values, key=ast.dump)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            node.value = ""
    return ast.dump(tree)


@pytest.mark.parametrize("path", EN, ids=lambda p: p.stem)
def test_the_chinese_code_cells_are_the_english_code(path):
    english = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
    chinese = nbformat.read(i18n.target_path(path), as_version=4).cells
    chinese = [c for c in chinese if c.cell_type == "code"]
    assert len(english) == len(chinese)
    for en, zh in zip(english, chinese, strict=True):
        assert _code_shape(en.source) == _code_shape(zh.source), en.source[:200]
    first = chinese[0].source
    assert f'pe_helpers.require("{pe_helpers.__version__}", language="zh")' in first


# --- the font ------------------------------------------------------------------------------------


def _covered(path: str) -> set[int]:
    with TTFont(path, lazy=True) as font:
        return set(font.getBestCmap())


def test_every_character_the_catalogs_use_is_in_a_font_the_figures_use():
    dejavu = _covered(font_manager.findfont("DejaVu Sans"))
    ours = _covered(str(language.FONT))
    used = set()
    for po in [*(ROOT / "i18n").rglob("*.po"), language.CATALOG]:
        used |= {ord(c) for e in i18n.load(po) for c in e.msgstr}
    lacking = sorted(chr(c) for c in used - dejavu - ours if c > 0x7F and chr(c).isprintable())
    # Markdown and code reach the browser, not matplotlib; but the package's words all do.
    package = {ord(c) for e in i18n.load(language.CATALOG) for c in e.msgstr}
    assert not [c for c in lacking if ord(c) in package], "make font: " + "".join(lacking)


def test_the_language_switch_checks_its_value_and_adds_the_font_once():
    with pytest.raises(ValueError, match="language"):
        language.set_language("fr")
    with pytest.raises(TypeError, match="language"):
        language.set_language(None)
    with pytest.raises(ValueError, match="language"):
        pe_helpers.require("0.1.0", language="de")
    before = list(mpl.rcParams["font.family"])
    try:
        language.set_language("zh")
        language.set_language("zh")
        assert mpl.rcParams["font.family"].count(language.FONT_FAMILY) == 1
    finally:
        language.set_language("en")
        mpl.rcParams["font.family"] = before


# --- what a Chinese notebook shows ------------------------------------------------------------


def test_templates_carry_their_values_and_english_is_left_alone(chinese):
    shown = language.translate("correct — well done.")
    assert CJK.search(shown)
    assert (
        language.translate("no such sentence in the catalog") == "no such sentence in the catalog"
    )
    language.set_language("en")
    assert language.translate("correct — well done.") == "correct — well done."


def test_a_wrong_answer_gets_chinese_feedback_and_a_chinese_hint(chinese):
    def clockwise(x0, x1, angle):
        import numpy as np

        c, s = np.cos(angle), np.sin(angle)
        return x0 * c + x1 * s, -x0 * s + x1 * c

    feedback = check_rotate_pair(clockwise)
    assert feedback.status == "wrong"
    assert CJK.search(feedback.message), feedback.message
    assert CJK.search(feedback.hint), feedback.hint
    assert "提示" in str(feedback) and "提示" in feedback._repr_html_()
    todo = check_steps_until_faded(None)  # the exercise's stub
    assert todo.status == "todo" and CJK.search(todo.message), todo.message


def test_english_feedback_is_unchanged():
    feedback = Feedback("demo", "wrong", "not yet", "look again")
    assert str(feedback) == "✗ demo: not yet\n  Hint: look again"


class _GlyphLog(logging.Handler):
    def __init__(self):
        super().__init__()
        self.missing = []

    def emit(self, record):
        if "glyph" in record.getMessage().lower():
            self.missing.append(record.getMessage())


def _texts(figure) -> list[str]:
    from matplotlib.text import Text

    return [t.get_text() for t in figure.findobj(Text) if t.get_visible() and t.get_text()]


def _figures():
    import test_figure_room as room

    return room, room.FIGURES


ROOM, FIGURES = _figures()


@pytest.mark.parametrize("style", ROOM.STYLES)
@pytest.mark.parametrize("item", FIGURES, ids=ROOM._name)
def test_every_figure_drawn_in_chinese_has_every_glyph_fits_and_speaks_chinese(
    item, style, chinese
):
    log = _GlyphLog()
    logger = logging.getLogger("matplotlib")
    logger.addHandler(log)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("error", message=".*[Gg]lyph.*")
            if isinstance(item, str):
                drawn = (("example", f) for f in ROOM._drawn_static.__wrapped__(item, style))
            else:
                drawn = ROOM._live_steps(item, style)
            texts, unfit = [], []
            for step, figure in drawn:  # each step drawn as it comes
                figure.canvas.draw()
                texts += _texts(figure)
                unfit += [f"{step}: {p}" for p in ROOM.fit_problems(figure)]
    finally:
        logger.removeHandler(log)
    assert not log.missing, log.missing[:3]
    assert not unfit, unfit[:3]  # the Chinese texts fit as the English do
    if item != "plot_curves":  # the core's curves: every text is its caller's (here "x", "y")
        assert any(CJK.search(t) for t in texts), f"{ROOM._name(item)}: no Chinese in {texts[:8]}"


def test_a_text_with_maths_puts_the_chinese_font_first_once_however_often_it_is_translated(
    chinese,
):
    from matplotlib.figure import Figure

    figure = Figure()
    title = figure.add_subplot().set_title("offset $\\Delta$")
    for _ in range(3):  # a live figure's steps: its update sets the English text again
        title.set_text("offset $\\Delta$")
        language.translate_figure(figure)
    assert CJK.search(title.get_text()) and "$\\Delta$" in title.get_text()
    assert title.get_fontfamily().count(language.FONT_FAMILY) == 1
    assert title.get_fontfamily()[0] == language.FONT_FAMILY
