"""Cut the Chinese font the package ships from Noto Sans CJK SC (``make font``).

Usage: python scripts/subset_font.py [SOURCE.otf]

The figures of the Chinese edition draw Chinese with ``pe_helpers/data/fonts/
NotoSansCJKsc-course.otf`` (:data:`pe_helpers.i18n.FONT`), a subset of Noto Sans CJK SC
(SIL Open Font License 1.1, ``OFL.txt`` beside it): the 3,755 most common characters (GB 2312
level 1), Chinese punctuation and full-width forms, and every other character the catalogs
use. Latin letters and symbols come from matplotlib's own DejaVu Sans, first in the fallback
list. The source font comes from the ``mplfonts`` package on PyPI (``pip install mplfonts``,
which ``make font`` runs); nothing is downloaded when the course runs.
"""

from __future__ import annotations

import importlib.metadata
import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "pe_helpers" / "data" / "fonts" / "NotoSansCJKsc-course.otf"
SOURCE_NAME = "NotoSansCJKsc-Regular.otf"


def source_font() -> Path:
    """Noto Sans CJK SC Regular as the installed ``mplfonts`` package holds it."""
    for file in importlib.metadata.files("mplfonts") or ():
        if file.name == SOURCE_NAME:
            return Path(file.locate())
    raise SystemExit(f"{SOURCE_NAME} not found: pip install mplfonts (make font does)")


def gb2312_level1() -> str:
    """The 3,755 characters of GB 2312 level 1, rows 16-55."""
    chars = []
    for row in range(0xB0, 0xD8):
        for cell in range(0xA1, 0xFF):
            try:
                chars.append(bytes([row, cell]).decode("gb2312"))
            except UnicodeDecodeError:
                continue
    return "".join(chars)


def catalog_characters() -> str:
    """Every non-ASCII character of the catalogs (the Chinese they draw)."""
    text = "".join(
        p.read_text(encoding="utf-8")
        for p in [*(ROOT / "i18n").rglob("*.po"), ROOT / "pe_helpers/data/locale/zh.po"]
        if p.is_file()
    )
    return "".join(sorted({c for c in text if ord(c) > 0x7F}))


def characters() -> str:
    ranges = [(0x20, 0x7E), (0x3000, 0x303F), (0xFF01, 0xFF5E)]
    base = "".join(chr(c) for lo, hi in ranges for c in range(lo, hi + 1))
    return base + gb2312_level1() + catalog_characters()


def main(argv: list[str]) -> int:
    source = Path(argv[0]) if argv else source_font()
    font = TTFont(str(source))
    cmap = font.getBestCmap()
    wanted = sorted({ord(c) for c in characters()} & set(cmap))
    options = subset.Options()
    options.layout_features = []
    options.name_IDs = ["*"]
    options.hinting = False
    options.desubroutinize = False
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=wanted)
    subsetter.subset(font)
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    font.save(str(TARGET))
    print(f"{TARGET.relative_to(ROOT)}: {len(wanted)} characters, {TARGET.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
