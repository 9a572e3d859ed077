"""The language a learner reads: English, or the Chinese edition's Simplified Chinese.

One switch, :func:`set_language`, set by a notebook's set-up line
(``pe_helpers.require("0.3.0", language="zh")`` in ``notebooks/zh/``). The package's own
words stay English in its code; the presentation core translates what a learner reads where
it leaves the package: a figure's texts (:func:`translate_figure`, called by the course
style and by every live figure's step), the controls' labels and a checker's feedback
(:func:`translate`). The translations live in the gettext catalog
``pe_helpers/data/locale/zh.po``, one entry per English text of the package: a plain string,
or an f-string's text with ``{0}``, ``{1}`` ... where its values go (``"base {0}"`` matches
``"base 10,000"``; the values are translated in turn, so ``"{0}: {1}"`` composes).
``scripts/i18n.py`` checks the catalog against the package's strings. Chinese text is drawn
with the subset of Noto Sans CJK SC shipped in ``pe_helpers/data/fonts``.
"""

from __future__ import annotations

import functools
import re
import string
from pathlib import Path

__all__ = ["LANGUAGES", "language", "set_language", "translate", "translate_figure"]

#: The languages of the course: English (the source) and Simplified Chinese.
LANGUAGES = ("en", "zh")
DATA = Path(__file__).parent / "data"
CATALOG = DATA / "locale" / "zh.po"
FONT = DATA / "fonts" / "NotoSansCJKsc-course.otf"
#: The family name of :data:`FONT` (the subset keeps the original's name).
FONT_FAMILY = "Noto Sans CJK SC"

_language = ["en"]


def language() -> str:
    """The language learners read now: ``"en"`` or ``"zh"``."""
    return _language[0]


def set_language(name: str) -> None:
    """Show the package's figures, controls and feedback in ``name`` from now on.

    Parameters
    ----------
    name : {"en", "zh"}
        ``"zh"`` also adds the shipped Chinese font to matplotlib's font fallbacks.

    Examples
    --------
    >>> set_language("zh")
    >>> language(), translate("correct — well done.")
    ('zh', '正确——做得好！')
    >>> set_language("en")
    >>> language(), translate("correct — well done.")
    ('en', 'correct — well done.')
    >>> set_language("fr")
    Traceback (most recent call last):
    ...
    ValueError: language must be one of 'en', 'zh', got 'fr'
    """
    if not isinstance(name, str):
        raise TypeError(f"language must be a str, one of 'en', 'zh', got {repr(name)[:60]}")
    if name not in LANGUAGES:
        raise ValueError(f"language must be one of 'en', 'zh', got {repr(name)[:60]}")
    if name == "zh":
        _use_font()
    _language[0] = name


def _use_font() -> None:
    """Register the Chinese font once and make it the fallback of the font families in use:
    Latin letters, digits and symbols stay as they were (DejaVu Sans), Chinese comes from it."""
    import matplotlib as mpl
    from matplotlib import font_manager

    if FONT_FAMILY not in {f.name for f in font_manager.fontManager.ttflist}:
        font_manager.fontManager.addfont(str(FONT))
    families = [f for f in mpl.rcParams["font.family"] if f != FONT_FAMILY]
    mpl.rcParams["font.family"] = [*families, FONT_FAMILY]


def _template(msgid: str) -> tuple[re.Pattern, tuple[str, ...]] | None:
    """``"base {0}"`` as a pattern matching ``"base <anything>"`` and its field names; None for
    a plain text (or one that is no template: a lone brace)."""
    try:
        parts = list(string.Formatter().parse(msgid))
    except ValueError:
        return None
    fields = tuple(field for _, field, _, _ in parts if field is not None)
    if not fields:
        return None
    pattern = "".join(
        re.escape(literal) + ("(.*?)" if field is not None else "")
        for literal, field, _, _ in parts
    )
    return re.compile(pattern, re.S), fields


@functools.cache
def _catalog() -> tuple[dict[str, str], list[tuple[re.Pattern, tuple[str, ...], str]]]:
    """The catalog's plain texts, and its templates (the most literal text first)."""
    import polib

    plain, templates = {}, []
    for entry in polib.pofile(str(CATALOG)):
        if not entry.msgstr or entry.obsolete or "fuzzy" in entry.flags:
            continue
        found = _template(entry.msgid)
        literal = re.sub(r"\{[^{}]*\}", "", entry.msgid)
        if found is None:
            plain[entry.msgid] = entry.msgstr
        elif literal.strip(" :;,.()-"):  # words around the fields: "{0}: {1}" alone is none
            templates.append((len(literal), *found, entry.msgstr))
    templates.sort(key=lambda t: -t[0])
    return plain, [(pattern, fields, msgstr) for _, pattern, fields, msgstr in templates]


@functools.lru_cache(maxsize=4096)
def _translated(text: str) -> str:
    plain, templates = _catalog()
    found = plain.get(text)
    if found is not None:
        return found
    for pattern, fields, msgstr in templates:
        match = pattern.fullmatch(text)
        if match:
            values = [_translated(value) if value else value for value in match.groups()]
            named = {f: v for f, v in zip(fields, values, strict=True) if not f.isdigit()}
            return msgstr.format(*values, **named)
    stripped = text.strip()
    if stripped != text and stripped:
        start = text.index(stripped)
        return text[:start] + _translated(stripped) + text[start + len(stripped) :]
    if "\n" in text:
        return "\n".join(_translated(line) for line in text.split("\n"))
    return text


def translate(text: str) -> str:
    """``text`` in the current language (itself in English, or when the catalog lacks it).

    Examples
    --------
    >>> translate("key position j")  # in English
    'key position j'
    """
    if _language[0] == "en" or not isinstance(text, str) or not text.strip():
        return text
    return _translated(text)


def translate_figure(figure) -> None:
    """Put every text of ``figure`` (titles, labels, legends, annotations, named ticks) in the
    current language; nothing to do in English."""
    if _language[0] == "en":
        return
    from matplotlib.text import Text
    from matplotlib.ticker import FixedFormatter

    for axes in figure.axes:
        for axis in (axes.xaxis, axes.yaxis):
            formatter = axis.get_major_formatter()
            if isinstance(formatter, FixedFormatter):
                formatter.seq = [translate(label) for label in formatter.seq]
    for text in figure.findobj(Text):
        shown = text.get_text()
        new = translate(shown)
        if new != shown:
            text.set_text(new)
            if "$" in new:  # mathtext draws the words around $...$ in one font, no fallbacks
                others = [f for f in text.get_fontfamily() if f != FONT_FAMILY]
                text.set_fontfamily([FONT_FAMILY, *others])
