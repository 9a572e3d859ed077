"""pe_helpers: the small package behind the positional-encoding notebooks.

Pure maths, by concept, importing nothing from presentation: :mod:`~pe_helpers.encodings`,
:mod:`~pe_helpers.rope`, :mod:`~pe_helpers.attention`, :mod:`~pe_helpers.rope_scaling`
(context extension), :mod:`~pe_helpers.rope_variants` (partial, multimodal, p-RoPE),
:mod:`~pe_helpers.biases` (ALiBi, T5 buckets), :mod:`~pe_helpers.conventions`,
:mod:`~pe_helpers.table_conventions` and
:mod:`~pe_helpers.numerics`; the small trainable model in :mod:`~pe_helpers.model`,
:mod:`~pe_helpers.training` and :mod:`~pe_helpers.tasks`.

Presentation: :mod:`~pe_helpers.figures` (style, projector mode, heatmaps),
:mod:`~pe_helpers.live` (figures defined once, static and under sliders),
:mod:`~pe_helpers.views` (their slider form) and
:mod:`~pe_helpers.grading` (exercise feedback). Each lesson's own helpers, figures and
checkers live in :mod:`pe_helpers.lessons` (``pe_helpers.lessons.<slug>``).

The most used maths is re-exported here. Importing the package first keeps numpy's BLAS on
one thread (see :mod:`~pe_helpers._threads`). In a Jupyter kernel, importing it also sets
the inline backend up so that each figure is drawn once, as laid out
(:func:`pe_helpers.figures.draw_inline_once`). A notebook's set-up lines import the package
and state the version its lesson needs, :func:`require`, so a kernel whose course is older
says so, in one line, before anything else fails.
"""

import re
import sys

from . import _threads  # noqa: F401  (before anything imports numpy)
from .attention import (
    ScoreTerms,
    attention,
    attention_weights,
    causal_mask,
    relative_deviation,
    score_terms,
    softmax,
)
from .biases import alibi_bias, alibi_slopes, t5_relative_bucket
from .conventions import identify_rope
from .encodings import (
    block_rotation,
    frequencies,
    rotation_matrix,
    shift_operator,
    sinusoidal_pe,
)
from .i18n import set_language
from .rope import (
    apply_rope,
    halves_permutation,
    rope_matrix,
    rope_score_bound,
    rope_scores,
)
from .rope_scaling import rope_frequencies
from .table_conventions import identify_pe_table

#: The one place the version lives (pyproject.toml reads it). It moves with every change of the
#: package's code or data: bump it, then `make version` (CONTRIBUTING.md).
__version__ = "0.3.0"

__all__ = [
    "ScoreTerms",
    "alibi_bias",
    "alibi_slopes",
    "apply_rope",
    "attention",
    "attention_weights",
    "block_rotation",
    "causal_mask",
    "frequencies",
    "halves_permutation",
    "identify_pe_table",
    "identify_rope",
    "relative_deviation",
    "require",
    "rope_frequencies",
    "rope_matrix",
    "rope_score_bound",
    "rope_scores",
    "rotation_matrix",
    "score_terms",
    "shift_operator",
    "sinusoidal_pe",
    "softmax",
    "t5_relative_bucket",
]


class OutdatedCourseError(ImportError):
    """The kernel's ``pe_helpers`` is older than the lesson that imports it."""

    def _render_traceback_(self) -> list[str]:
        """In a notebook (IPython's hook), the traceback is the one line that says what to run."""
        return [f"{type(self).__name__}: {self}"]


def _parse(version: str) -> tuple[int, ...]:
    """``"0.2.0"`` as ``(0, 2, 0)``."""
    return tuple(int(part) for part in version.split("."))


def require(version: str, language: str = "en") -> None:
    """Stop a lesson whose kernel has an older ``pe_helpers`` than ``version``, saying what to run;
    then show the package's figures, controls and feedback in ``language``.

    Every notebook's set-up lines call it with the version the notebook was written against
    (``scripts/navigation.py`` writes it). On a JupyterHub, nbgitpuller updates the notebooks
    but not the installed package: without this check a lesson that calls a new function fails
    later with an ``ImportError`` that says nothing useful.

    Parameters
    ----------
    version : str
        The lowest version the lesson works with, as ``"MAJOR.MINOR.PATCH"``.
    language : {"en", "zh"}
        The notebook's language, ``"zh"`` in the Chinese edition
        (:func:`pe_helpers.i18n.set_language`).

    Raises
    ------
    OutdatedCourseError
        When :data:`__version__` is older than ``version``; its message is one line that says
        what to run, and in a notebook it is the whole traceback.

    Examples
    --------
    >>> require("0.1.0")  # this package is newer: nothing happens
    >>> require("99.0.0")
    Traceback (most recent call last):
    ...
    pe_helpers.OutdatedCourseError: This lesson needs pe_helpers >= 99.0.0 but this kernel has ...
    """
    if not isinstance(version, str):
        raise TypeError(f"version must be a string such as '0.2.0', got {repr(version)[:60]}")
    if not re.fullmatch(r"\d{1,6}(\.\d{1,6}){0,3}", version):
        raise ValueError(f"version must look like '0.2.0', got {repr(version)[:60]}")
    if _parse(__version__) < _parse(version):
        raise OutdatedCourseError(
            f"This lesson needs pe_helpers >= {version} but this kernel has {__version__}: "
            "on a hub, ask its admin to reinstall the course (docs/teaching.md); on your own "
            "machine, run `make lab` in the course folder; then restart the kernel."
        )
    set_language(language)


def _set_up_a_notebook() -> None:
    """In a Jupyter kernel, draw each inline figure once (no redraw, no trimming pass)."""
    if "ipykernel" in sys.modules:
        from .figures import draw_inline_once

        draw_inline_once()


_set_up_a_notebook()
