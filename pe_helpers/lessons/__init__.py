"""One module per lesson: its own helpers, figures, live views and exercise checkers.

A lesson ``notebooks/NN_slug.ipynb`` imports its home ``pe_helpers.lessons.slug``
(for example ``01_why_position`` → :mod:`pe_helpers.lessons.why_position`). Two lists
live here. The homes are the modules of this package, so :func:`live_figures` works
wherever the package is installed. The lessons themselves are read from the notebook file
names (:func:`lessons`: navigation, tests and benchmarks use it), and the notebooks are not
part of the package: they are found in a checkout of the course, next to the package folder
(:data:`NOTEBOOKS`), or in a folder passed by name.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from ..live import LiveFigure

__all__ = ["NOTEBOOKS", "Lesson", "lessons", "lessons_defining", "live_figures"]

#: Where a checkout of the course keeps its notebooks: beside the package folder. An
#: installed copy of the package (a wheel, a hub's non-editable install) has no such folder.
NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"

_NAME = re.compile(r"^(\d\d)_([a-z0-9_]+)\.ipynb$")


class Lesson(NamedTuple):
    """One notebook of the course."""

    number: int
    slug: str
    notebook: Path
    solutions: Path | None
    module: str | None


def lessons(folder: Path | str | None = None) -> list[Lesson]:
    """Every ``NN_slug.ipynb`` in ``folder``, in order, with its solutions and module.

    Parameters
    ----------
    folder : path, optional
        The course's notebooks folder. By default :data:`NOTEBOOKS`, which exists only in
        a checkout of the course (the package installed from the repository, editable):
        from anywhere else, pass the folder.

    Returns
    -------
    list of Lesson
        ``module`` is the dotted name of the lesson's home in :mod:`pe_helpers.lessons`
        (None for a notebook without one, such as the index); ``solutions`` the path of
        ``solutions/NN_slug_solutions.ipynb`` (None when there is none).

    Examples
    --------
    >>> [lesson.slug for lesson in lessons()][:2]
    ['index', 'why_position']
    """
    if folder is None:
        if not NOTEBOOKS.is_dir():
            raise FileNotFoundError(
                f"lessons() reads the notebooks of a checkout of the course, and this copy of "
                f"pe_helpers has none beside it ({NOTEBOOKS}): pass folder=, the course's "
                f"notebooks folder"
            )
        folder = NOTEBOOKS
    folder = Path(folder)
    homes = _homes()
    found = []
    for path in sorted(folder.glob("*.ipynb")):
        match = _NAME.match(path.name)
        if not match:
            continue
        number, slug = int(match[1]), match[2]
        solutions = folder / "solutions" / f"{path.stem}_solutions.ipynb"
        found.append(
            Lesson(
                number,
                slug,
                path,
                solutions if solutions.is_file() else None,
                f"{__name__}.{slug}" if slug in homes else None,
            )
        )
    return found


def _homes() -> list[str]:
    """The names of this package's modules: one home per lesson, slug by slug."""
    return [info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_")]


def lessons_defining(name: str) -> list[tuple[Lesson, object]]:
    """Every lesson whose home defines a non-empty ``name`` (``"SHIPPED_MODELS"``), with it.

    Examples
    --------
    >>> [lesson.slug for lesson, _ in lessons_defining("SHIPPED_MODELS")][-1]
    'position_from_content'
    """
    found = []
    for lesson in lessons():
        if lesson.module:
            value = getattr(importlib.import_module(lesson.module), name, None)
            if value:
                found.append((lesson, value))
    return found


def live_figures() -> list[type[LiveFigure]]:
    """Every live figure of the course: each lesson's home is imported, and registers its own.

    Examples
    --------
    >>> from pe_helpers.live import LiveFigure
    >>> figures = live_figures()
    >>> all(issubclass(f, LiveFigure) for f in figures)
    True
    >>> "AlibiHeads" in [f.__name__ for f in figures]
    True
    """
    from ..live import registered_figures

    for name in _homes():
        importlib.import_module(f"{__name__}.{name}")
    return [cls for cls in registered_figures() if cls.__module__.startswith(f"{__name__}.")]
