"""The Chinese edition, generated from the English sources and gettext catalogs.

Usage: python scripts/i18n.py update | check | build | lint PO | worksheet PO [--all]
       | fill PO SHEET

The English notebooks and guide files stay the source. Each has a catalog under
``i18n/zh/`` (``notebooks/NN_slug.po``, ``notebooks/solutions/NN_slug_solutions.po``,
``docs/guide/NN_slug.po``) whose entries are keyed by their English text (``msgid``), with
``msgctxt`` saying what kind of text it is:

* ``markdown`` — a whole Markdown cell;
* ``comment`` — a comment in a code cell, from ``#`` to the end of its line;
* ``string`` — a string literal in a code cell that reads as prose (a space and a word),
  quotes and prefix included, so ``f"{n} steps"`` becomes ``f"{n} 步"``;
* ``block`` — a paragraph (text between blank lines, or a fenced code block) of a guide file.

A changed English text has no entry, so its translation is missing; the old entry stays in
the catalog as obsolete (``#~``) for the translator to reuse, and ``check`` fails on both.

``update``    adds the entries the sources have and marks the ones they lost obsolete.
``build``     writes ``notebooks/zh/**.ipynb`` (a cell whose source did not change keeps its
              outputs; ``make regen`` runs them) and ``docs/guide/zh/*.md``.
``check``     exits 1 on a missing, obsolete or fuzzy entry, or a stale generated file.
``worksheet`` writes a catalog's untranslated entries (or ``--all``) as plain text to fill in;
``fill``      reads such a sheet back into its catalog.
"""

from __future__ import annotations

import ast
import io
import os
import re
import string
import sys
import tokenize
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

import nbformat
import polib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))  # navigation.py, which writes the set-up lines
NOTEBOOKS = ROOT / "notebooks"
ZH_NOTEBOOKS = NOTEBOOKS / "zh"
GUIDE = ROOT / "docs" / "guide"
ZH_GUIDE = GUIDE / "zh"
CATALOGS = ROOT / "i18n" / "zh"
NAV_TAG = "nav"
WORD = re.compile(r"[A-Za-z]{2,}")


def sources(root: Path = ROOT) -> list[Path]:
    """Every English file the Chinese edition translates, in a stable order."""
    nbs = sorted((root / "notebooks").glob("*.ipynb"))
    nbs += sorted((root / "notebooks" / "solutions").glob("*.ipynb"))
    return nbs + sorted((root / "docs" / "guide").glob("*.md")) + [root / "pe_helpers"]


def catalog_path(source: Path, root: Path = ROOT) -> Path:
    """``notebooks/07_rope.ipynb`` -> ``i18n/zh/notebooks/07_rope.po``; the package's words
    are shipped with it, ``pe_helpers/data/locale/zh.po``."""
    if source.is_dir():
        return source / "data" / "locale" / "zh.po"
    return (root / "i18n" / "zh" / source.relative_to(root)).with_suffix(".po")


def target_path(source: Path, root: Path = ROOT) -> Path:
    """Where the Chinese edition of ``source`` is written."""
    rel = source.relative_to(root)
    if rel.parts[0] == "notebooks":
        return root / "notebooks" / "zh" / Path(*rel.parts[1:])
    return root / "docs" / "guide" / "zh" / rel.name


# -- what a source says -------------------------------------------------------------------


def _shown_strings(source: str) -> set[tuple[int, int]]:
    """(line, column) of each string literal ``source`` passes to a call a reader sees
    (``print``, a figure's title or labels, :data:`SHOWN_AS` keywords)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:  # IPython syntax (magics): the prose rule alone
        return set()
    shown = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "attr", getattr(node.func, "id", ""))
        values = list(node.args) if name in SHOWN_BY | {"print"} else []
        values += [k.value for k in node.keywords if k.arg in SHOWN_AS | {"missing"}]
        for value in values:
            for inner in ast.walk(value):
                if isinstance(inner, (ast.Constant, ast.JoinedStr)):
                    shown.add((inner.lineno, inner.col_offset))
    # "phrase" in feedback.message: the phrase is a piece of what the feedback shows, written
    # out or bound by a for loop over tuples (``for name, phrase in [(..., "off by one")]``)
    compared = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(isinstance(o, ast.In) for o in node.ops):
            if re.search(r"'(message|hint)'", ast.dump(node.comparators[0])):
                compared |= {id(n) for n in ast.walk(node.left)}
                if isinstance(node.left, ast.Name):
                    compared.add(node.left.id)
    for node in ast.walk(tree):
        if isinstance(node, ast.For) and isinstance(node.target, ast.Tuple):
            names = [getattr(t, "id", None) for t in node.target.elts]
            at = [i for i, name in enumerate(names) if name in compared]
            for row in getattr(node.iter, "elts", []):
                for i in at:
                    if isinstance(row, ast.Tuple) and i < len(row.elts):
                        compared.add(id(row.elts[i]))
    for node in ast.walk(tree):
        if id(node) in compared and isinstance(node, (ast.Constant, ast.JoinedStr)):
            shown.add((node.lineno, node.col_offset))
    return shown


def _code_tokens(source: str) -> Iterator[tuple[str, int, int]]:
    """(kind, start offset, end offset) of each translatable comment and string in ``source``:
    every comment with a word, every string that reads as prose (a space and a word) or that
    a reader sees (:func:`_shown_strings`)."""
    shown = _shown_strings(source)
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            body = tok.string.lstrip("#").strip()
            if not WORD.search(body) or body.startswith("noqa"):
                continue
            kind = "comment"
        elif tok.type == tokenize.STRING:
            inner = re.sub(r"^[A-Za-z]*('\'\'|\"\"\"|'|\")|('\'\'|\"\"\"|'|\")$", "", tok.string)
            words = WORD.search(re.sub(r"\{[^}]*\}", "", inner))
            if not words or (" " not in inner.strip() and tok.start not in shown):
                continue
            kind = "string"
        else:
            continue
        start = starts[tok.start[0] - 1] + tok.start[1]
        end = starts[tok.end[0] - 1] + tok.end[1]
        yield kind, start, end


def _without_guard(source: str) -> str:
    """``source`` without the set-up lines navigation.py writes (it writes their translation)."""
    import navigation  # noqa: PLC0415

    return navigation.without_guard(source)


def _is_nav(cell) -> bool:
    """A cell scripts write in each language (navigation, the glossary): no catalog entry."""
    return bool({NAV_TAG, "glossary"} & set(cell.get("metadata", {}).get("tags", [])))


def notebook_entries(path: Path) -> list[tuple[str, str, str]]:
    """(msgctxt, msgid, where) for every translatable text of notebook ``path``."""
    nb = nbformat.read(path, as_version=4)
    out = []
    for number, cell in enumerate(nb.cells):
        if _is_nav(cell) or not cell.source.strip():
            continue
        where = f"cell-{number}"
        if cell.cell_type == "markdown":
            out.append(("markdown", cell.source, where))
        elif cell.cell_type == "code":
            code = _without_guard(cell.source)
            out += [(kind, code[start:end], where) for kind, start, end in _code_tokens(code)]
    return out


def markdown_blocks(text: str) -> list[str]:
    """``text`` cut into paragraphs at blank lines; a fenced code block stays one piece."""
    blocks, current, fenced = [], [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not line.strip() and not fenced:
            if current:
                blocks.append("\n".join(current))
                current = []
            continue
        current.append(line)
    if current:
        blocks.append("\n".join(current))
    return blocks


def _translatable_block(block: str) -> bool:
    return bool(WORD.search(block)) and not block.lstrip().startswith("```")


def document_entries(path: Path) -> list[tuple[str, str, str]]:
    text = path.read_text(encoding="utf-8")
    return [
        ("block", b, f"block-{i}")
        for i, b in enumerate(markdown_blocks(text))
        if _translatable_block(b)
    ]


def entries(path: Path) -> list[tuple[str, str, str]]:
    """(msgctxt, msgid, where) of ``path``, each text once."""
    if path.is_dir():
        return package_entries(path.parent)
    raw = notebook_entries(path) if path.suffix == ".ipynb" else document_entries(path)
    seen, out = set(), []
    for ctxt, msgid, where in raw:
        if (ctxt, msgid) not in seen:
            seen.add((ctxt, msgid))
            out.append((ctxt, msgid, where))
    return out


# -- the package's own words ------------------------------------------------------------------

PACKAGE = ROOT / "pe_helpers"
PACKAGE_CATALOG = PACKAGE / "data" / "locale" / "zh.po"
#: Calls whose arguments a learner reads (figure texts, feedback), and keywords that name such
#: texts; elsewhere a string is a candidate only when it reads as prose (it has a space).
SHOWN_BY = {
    "set_title",
    "set_xlabel",
    "set_ylabel",
    "suptitle",
    "text",
    "annotate",
    "set_text",
    "legend",
    "set_label",
    "Feedback",
    "grade",
    "translate",
    "int_control",
    "even_control",
    "float_control",
    "log_control",
    "choice_control",
}
SHOWN_AS = {
    "label",
    "title",
    "xlabel",
    "ylabel",
    "colorbar_label",
    "reference_label",
    "what",
    "hint",
    "message",
}


def _template(node: ast.expr) -> str:
    """A string constant's text, or an f-string's text with ``{0}``, ``{1}`` ... for its values."""
    if isinstance(node, ast.Constant):
        return node.value
    parts, n = [], 0
    for value in node.values:
        if isinstance(value, ast.Constant):
            parts.append(value.value.replace("{", "{{").replace("}", "}}"))
        else:
            parts.append("{" + str(n) + "}")
            n += 1
    return "".join(parts)


def _ids(node: ast.AST) -> set[int]:
    return {id(n) for n in ast.walk(node)}


def package_strings(path: Path) -> list[tuple[str, int]]:
    """(text, line) of every string of module ``path`` a learner may read.

    Docstrings, error and warning messages (a learner's bad value gets an English error, as
    Python's own), HTML and links are left out.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip, shown, inner = set(), set(), set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant):
                skip.add(id(body[0].value))
        if isinstance(node, (ast.Raise, ast.Assert)):
            skip |= _ids(node)
        if isinstance(node, ast.Call):
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            if name == "warn":
                skip |= _ids(node)
            if name in SHOWN_BY:
                for arg in node.args:
                    shown |= _ids(arg)
            for keyword in node.keywords:
                if keyword.arg in SHOWN_AS:
                    shown |= _ids(keyword.value)
        if isinstance(node, ast.JoinedStr):
            inner |= {id(v) for v in node.values}
    out = []
    for node in ast.walk(tree):
        if id(node) in skip or id(node) in inner:
            continue
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)) and not isinstance(
            node, ast.JoinedStr
        ):
            continue
        text = _template(node)
        if not WORD.search(re.sub(r"\{\d+\}", "", text)) or "<" in text or "/blob/" in text:
            continue
        try:
            list(string.Formatter().parse(text))
        except ValueError:  # a lone brace: a piece of JSON, never shown
            continue
        if " " not in text.strip() and id(node) not in shown:
            continue
        out.append((text, node.lineno))
    return sorted(out, key=lambda t: t[1])


def package_entries(root: Path = ROOT) -> list[tuple[str, str, str]]:
    """(msgctxt, msgid, where) of the package's words, each text once."""
    seen, out = set(), []
    for path in sorted((root / "pe_helpers").rglob("*.py")):
        if path.name == "i18n.py":  # the switch itself: its doctests and font names
            continue
        for text, line in package_strings(path):
            if text not in seen:
                seen.add(text)
                out.append(("", text, f"{path.relative_to(root)}:{line}"))
    return out


# -- catalogs -------------------------------------------------------------------------------


def load(po_path: Path) -> polib.POFile:
    if po_path.is_file():
        return polib.pofile(str(po_path), wrapwidth=0)
    po = polib.POFile(wrapwidth=0)
    po.metadata = {
        "Project-Id-Version": "positional-encoding notebooks",
        "Language": "zh_CN",
        "MIME-Version": "1.0",
        "Content-Type": "text/plain; charset=UTF-8",
        "Content-Transfer-Encoding": "8bit",
    }
    return po


def translations(po: polib.POFile) -> dict[tuple[str, str], str]:
    """(msgctxt, msgid) -> msgstr of every translated, current entry."""
    return {
        (e.msgctxt or "", e.msgid): e.msgstr
        for e in po
        if e.msgstr and not e.obsolete and "fuzzy" not in e.flags
    }


def updated_catalog(source: Path, root: Path = ROOT) -> polib.POFile:
    """The catalog of ``source`` with its current entries, old translations kept."""
    po = load(catalog_path(source, root))
    old = {(e.msgctxt or "", e.msgid): e for e in po}
    fresh = polib.POFile(wrapwidth=0)
    fresh.metadata = po.metadata
    wanted = entries(source)
    keys = set()
    for ctxt, msgid, where in wanted:
        keys.add((ctxt, msgid))
        entry = old.get((ctxt, msgid))
        msgstr = entry.msgstr if entry is not None else ""
        fresh.append(
            polib.POEntry(msgctxt=ctxt, msgid=msgid, msgstr=msgstr, occurrences=[(where, "")])
        )
    for key, entry in old.items():
        if key not in keys and entry.msgstr:
            entry.obsolete = True
            fresh.append(entry)
    return fresh


def save(po: polib.POFile, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    po.wrapwidth = 0
    path.write_text(str(po) + "\n", encoding="utf-8")


LINK = re.compile(r"\]\(([^)\s]+)\)")


def _expressions(literal: str) -> list[str] | None:
    """The ``{...}`` expressions of a string literal, or None if it is not one."""
    try:
        tree = ast.parse(literal, mode="eval").body
    except SyntaxError:
        return None
    if isinstance(tree, ast.Constant) and isinstance(tree.value, str):
        return []
    if isinstance(tree, ast.JoinedStr):
        return sorted(ast.dump(v.value) for v in tree.values if isinstance(v, ast.FormattedValue))
    return None


def mismatch(ctxt: str, msgid: str, msgstr: str) -> str | None:
    """Why ``msgstr`` cannot stand for ``msgid`` in the same place, or None."""
    if ctxt == "comment":
        if not msgstr.startswith("#") or "\n" in msgstr:
            return "a comment must start with # and stay on one line"
    elif ctxt == "string":
        want, got = _expressions(msgid), _expressions(msgstr)
        if got is None:
            return "not a Python string literal"
        if want != got:
            return "its {expressions} differ from the English"
        if (
            msgid[: len(msgid) - len(msgid.lstrip("rbfuRBFU"))].lower()
            != msgstr[: len(msgstr) - len(msgstr.lstrip("rbfuRBFU"))].lower()
        ):
            return "its prefix (f, r, ...) differs from the English"
    elif ctxt == "":  # the package's words: the same {0}, {1} ... (any order)
        if sorted(re.findall(r"(?<!\{)\{\d+\}", msgid)) != sorted(
            re.findall(r"(?<!\{)\{\d+\}", msgstr)
        ):
            return "its {0}, {1} ... placeholders differ from the English"
    if sorted(LINK.findall(msgid)) != sorted(LINK.findall(msgstr)):
        return "its link targets differ from the English"
    if msgid.count("$") != msgstr.count("$"):
        return "its number of $ (maths) differs from the English"
    return None


def problems(root: Path = ROOT) -> list[str]:
    """Every missing, obsolete or fuzzy translation, one line each."""
    out = []
    for source in sources(root):
        po_path = catalog_path(source, root)
        rel = po_path.relative_to(root)
        if not po_path.is_file():
            out.append(f"{rel}: no catalog (run make i18n)")
            continue
        po = load(po_path)
        have = translations(po)
        for ctxt, msgid, where in entries(source):
            if (ctxt, msgid) not in have:
                out.append(f"{rel}: missing ({where}, {ctxt}): {msgid[:70]!r}")
            elif why := mismatch(ctxt, msgid, have[(ctxt, msgid)]):
                out.append(f"{rel}: {why} ({where}): {msgid[:70]!r}")
        for e in po:
            if e.obsolete:
                out.append(f"{rel}: stale (its English changed or went): {e.msgid[:70]!r}")
            elif "fuzzy" in e.flags:
                out.append(f"{rel}: fuzzy: {e.msgid[:70]!r}")
    return out


# -- the Chinese files ------------------------------------------------------------------------


def translate_code(source: str, table: dict[tuple[str, str], str]) -> str:
    """``source`` with each catalogued comment and string replaced by its translation."""
    pieces, last = [], 0
    for kind, start, end in _code_tokens(source):
        text = source[start:end]
        pieces.append(source[last:start])
        pieces.append(table.get((kind, text), text))
        last = end
    pieces.append(source[last:])
    return "".join(pieces)


def zh_notebook(source: Path, root: Path = ROOT) -> nbformat.NotebookNode:
    """The Chinese edition of notebook ``source`` (its nav cells written by navigation.py)."""
    import navigation  # noqa: PLC0415

    table = translations(load(catalog_path(source, root)))
    nb = nbformat.read(source, as_version=4)
    target = target_path(source, root)
    old = nbformat.read(target, as_version=4) if target.is_file() else None
    old_cells = {c.source: c for c in old.cells} if old is not None else {}
    for cell in nb.cells:
        if _is_nav(cell):
            continue
        if cell.cell_type == "markdown":
            cell.source = table.get(("markdown", cell.source), cell.source)
        elif cell.cell_type == "code":
            cell.source = navigation.zh_guard(translate_code(cell.source, table))
            kept = old_cells.get(cell.source)
            if kept is not None and kept.cell_type == "code":
                cell.outputs = kept.outputs
                cell.execution_count = kept.execution_count
            else:
                cell.outputs, cell.execution_count = [], None
    if any("glossary" in c.metadata.get("tags", []) for c in nb.cells):
        navigation.write_glossary(nb.cells, navigation.terms(root), "zh")
    return navigation.with_zh_nav(nb, source, root)


def zh_document(source: Path, root: Path = ROOT) -> str:
    table = translations(load(catalog_path(source, root)))
    text = source.read_text(encoding="utf-8")
    for block in markdown_blocks(text):
        if _translatable_block(block):
            text = text.replace(block, table.get(("block", block), block), 1)
    return text


# -- links: a Chinese page links the Chinese pages, at their Chinese headings -------------------

MD_LINK = re.compile(r"(\[[^\]]*\]\()([^)\s]+)(\))")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.MULTILINE)


def twin(path: Path, root: Path = ROOT) -> Path | None:
    """The Chinese edition of English course file ``path``, or None when it has none."""
    rel = path.relative_to(root)
    if rel.parts[0] == "notebooks" and rel.parts[1] != "zh":
        return root / "notebooks" / "zh" / Path(*rel.parts[1:])
    import navigation  # noqa: PLC0415

    for en, zh in zip(navigation.GENERATED_DOCS, navigation.ZH_GENERATED_DOCS, strict=True):
        if rel == Path(en):
            return root / zh
    return None


def _headings(markdown: str) -> list[str]:
    return HEADING.findall(re.sub(r"```.*?```", "", markdown, flags=re.DOTALL))


def anchor_map(english: list[str], chinese: list[str], rule) -> dict[str, str]:
    """English anchor -> Chinese anchor, for the headings of texts cut into the same pieces
    (cells, or a whole page) in both languages; a piece whose headings differ in number maps
    nothing."""
    out = {}
    for en, zh in zip(english, chinese, strict=True):
        a, b = _headings(en), _headings(zh)
        if len(a) == len(b):
            out.update({rule(x): rule(y) for x, y in zip(a, b, strict=True)})
    return out


def relinked(
    text: str, english: Path, chinese: Path, anchors: dict[Path, dict[str, str]], root: Path = ROOT
) -> str:
    """Markdown ``text`` of English page ``english`` moved to ``chinese``: each relative link
    points at the Chinese twin of its target where there is one (its heading anchor mapped
    to the Chinese heading), else at the same file from the new folder."""

    def move(match: re.Match) -> str:
        target = match[2]
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
            return match[0]
        part, hash_, anchor = target.partition("#")
        resolved = (english.parent / part).resolve() if part else english
        if not resolved.exists():
            return match[0]
        other = twin(resolved, root)
        if other is not None:
            mapped = anchors.get(resolved, {}).get(unquote(anchor))
            if mapped is not None:  # brackets and spaces escaped, as a Markdown link needs
                anchor = mapped.replace("(", "%28").replace(")", "%29").replace(" ", "%20")
            resolved = other
        new = "" if resolved == chinese else os.path.relpath(resolved, chinese.parent)
        return f"{match[1]}{new}{hash_}{anchor}{match[3]}"

    return MD_LINK.sub(move, text)


def generated(root: Path = ROOT) -> dict[Path, str]:
    """Every Chinese file the sources and catalogs make, as its text."""
    import navigation  # noqa: PLC0415
    from build_site import jupyterlab_anchor  # noqa: PLC0415

    notebooks, documents = {}, {}
    for source in sources(root):
        if source.is_dir():
            continue
        if source.suffix == ".ipynb":
            notebooks[source] = zh_notebook(source, root)
        else:
            documents[source] = zh_document(source, root)
    # anchors of the notebooks: cell by cell
    anchors = {}
    for source, nb in notebooks.items():
        english = nbformat.read(source, as_version=4)
        pairs = [
            (a.source, b.source)
            for a, b in zip(english.cells, nb.cells, strict=True)
            if a.cell_type == "markdown"
        ]
        anchors[source.resolve()] = anchor_map(*zip(*pairs, strict=True), jupyterlab_anchor)
    # the Chinese guide and cheat sheet, from the Chinese guide files
    guide = root / "docs" / "guide"
    facts = []
    for lesson in navigation.course_facts(root):
        path = root / "notebooks" / f"{lesson.stem}.ipynb"
        nb = notebooks[path]
        takeaways = next(c.source for c in nb.cells if c.source.startswith("## 要点回顾"))
        facts.append(
            navigation.zh_lesson_facts(
                lesson, documents[guide / f"{lesson.stem}.md"], takeaways, navigation.zh_title(path)
            )
        )
    frames = {
        name: documents[guide / f"{name}.md"] for name in ("_instructor_guide", "_cheatsheet")
    }
    docs = navigation.zh_generated_docs(root, facts, frames)
    english_docs = navigation.generated_docs(root)
    for en, zh in zip(english_docs, docs, strict=True):
        anchors[en.resolve()] = anchor_map([english_docs[en]], [docs[zh]], navigation.github_anchor)
    out = {}
    for source, nb in notebooks.items():
        target = target_path(source, root)
        for cell in nb.cells:
            if cell.cell_type == "markdown" and not _is_nav(cell):
                cell.source = relinked(cell.source, source, target, anchors, root)
        out[target] = nbformat.writes(nb) + "\n"
    for source, text in documents.items():
        out[target_path(source, root)] = text
    for (en, _), (zh, text) in zip(english_docs.items(), docs.items(), strict=True):
        out[zh] = relinked(text, en, zh, anchors, root)
    return out


def same_file(path: Path, text: str) -> bool:
    """Whether ``path`` holds ``text`` (a notebook: the same cells, whatever its outputs)."""
    old = path.read_text(encoding="utf-8")
    return _same_notebook(old, text) if path.suffix == ".ipynb" else old == text


def _same_notebook(a: str, b: str) -> bool:
    def strip(text):
        nb = nbformat.reads(text, as_version=4)
        return [(c.cell_type, c.source) for c in nb.cells]

    return strip(a) == strip(b)


# -- worksheets ---------------------------------------------------------------------------------

SHEET_ENTRY = "@@@@ ENTRY {n} | {ctxt} | {where}"
SHEET_ZH = "@@@@ 中文"
SHEET_END = "@@@@ END"


def worksheet(po_path: Path, everything: bool = False) -> str:
    po = load(po_path)
    parts = []
    for n, e in enumerate(po):
        if e.obsolete or (e.msgstr and not everything):
            continue
        where = e.occurrences[0][0] if e.occurrences else ""
        parts.append(
            "\n".join(
                [
                    SHEET_ENTRY.format(n=n, ctxt=e.msgctxt, where=where),
                    e.msgid,
                    SHEET_ZH,
                    e.msgstr,
                    SHEET_END,
                ]
            )
        )
    return "\n\n".join(parts) + "\n"


def fill(po_path: Path, sheet: str) -> int:
    """Read a filled worksheet into its catalog; returns the number of entries set."""
    po = load(po_path)
    live = list(po)
    pattern = re.compile(
        r"^@@@@ ENTRY (\d+) \|[^\n]*\n(.*?)\n@@@@ 中文\n(.*?)\n?@@@@ END$", re.S | re.M
    )
    count = 0
    for match in pattern.finditer(sheet):
        n, english, chinese = int(match[1]), match[2], match[3]
        entry = live[n]
        if entry.msgid != english:
            raise ValueError(f"entry {n}: the sheet's English differs from the catalog's")
        if chinese.strip():
            entry.msgstr = chinese
            count += 1
    save(po, po_path)
    return count


def main(argv: list[str], root: Path = ROOT) -> int:
    command = argv[0] if argv else "check"
    if command == "update":  # every catalog, or those of the sources named
        named = {Path(a).resolve() for a in argv[1:]}
        for source in sources(root):
            if not named or source.resolve() in named:
                save(updated_catalog(source, root), catalog_path(source, root))
        return 0
    if command == "worksheet":
        sys.stdout.write(worksheet(Path(argv[1]), "--all" in argv))
        return 0
    if command == "fill":
        print(fill(Path(argv[1]), Path(argv[2]).read_text(encoding="utf-8")), "entries filled")
        return 0
    if command == "lint":  # one catalog's filled entries, as check judges them
        po = load(Path(argv[1]))
        bad = [
            f"entry {n} ({e.msgctxt}): {why}: {e.msgid[:60]!r}"
            for n, e in enumerate(po)
            if e.msgstr and not e.obsolete and (why := mismatch(e.msgctxt, e.msgid, e.msgstr))
        ]
        left = sum(1 for e in po if not e.msgstr and not e.obsolete)
        print(*bad, f"{len(bad)} problems, {left} entries still to translate", sep="\n")
        return 1 if bad else 0
    if command == "build":
        for path, text in generated(root).items():
            if path.is_file() and same_file(path, text):
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(root)}")
        return 0
    if command == "check":
        found = problems(root)
        for path, text in generated(root).items():
            if not path.is_file() or not same_file(path, text):
                found.append(f"{path.relative_to(root)}: stale (run make i18n)")
        for line in found:
            print(line)
        return 1 if found else 0
    raise SystemExit(__doc__)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
