"""One module per lesson: its own helpers, figures, live views and exercise checkers.

A lesson ``notebooks/NN_slug.ipynb`` imports its home ``pe_helpers.lessons.slug``
(for example ``01_why_position`` → :mod:`pe_helpers.lessons.why_position`). The list
of lessons is read from the notebook file names, once, here: navigation, tests and
benchmarks all use :func:`lessons`.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from types import ModuleType
from typing import NamedTuple

__all__ = ["NOTEBOOKS", "Lesson", "lesson_modules", "lessons"]

#: The course's notebook folder (the package is installed from the repository, editable).
NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"

_NAME = re.compile(r"^(\d\d)_([a-z0-9_]+)\.ipynb$")


class Lesson(NamedTuple):
    """One notebook of the course."""

    number: int
    slug: str
    notebook: Path
    solutions: Path | None
    module: str | None


def lessons(folder: Path | str = NOTEBOOKS) -> list[Lesson]:
    """Every ``NN_slug.ipynb`` in ``folder``, in order, with its solutions and module.

    ``module`` is the dotted name of the lesson's home in :mod:`pe_helpers.lessons`
    (None for a notebook without one, such as the index); ``solutions`` the path of
    ``solutions/NN_slug_solutions.ipynb`` (None when there is none).

    Examples
    --------
    >>> [lesson.slug for lesson in lessons()][:2]
    ['index', 'why_position']
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"folder must be the course's notebooks folder, got {str(folder)!r}")
    found = []
    for path in sorted(folder.glob("*.ipynb")):
        match = _NAME.match(path.name)
        if not match:
            continue
        number, slug = int(match[1]), match[2]
        solutions = folder / "solutions" / f"{path.stem}_solutions.ipynb"
        module = f"{__name__}.{slug}"
        home = Path(__file__).parent
        has_module = (home / f"{slug}.py").is_file() or (home / slug / "__init__.py").is_file()
        found.append(
            Lesson(
                number,
                slug,
                path,
                solutions if solutions.is_file() else None,
                module if has_module else None,
            )
        )
    return found


def lesson_modules() -> list[ModuleType]:
    """Import and return every lesson's home module, in lesson order."""
    return [importlib.import_module(lesson.module) for lesson in lessons() if lesson.module]
