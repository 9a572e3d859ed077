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
(:func:`pe_helpers.figures.draw_inline_once`): a notebook's one set-up line is
``import pe_helpers``.
"""

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
from .rope import (
    apply_rope,
    halves_permutation,
    rope_matrix,
    rope_score_bound,
    rope_scores,
)
from .rope_scaling import rope_frequencies
from .table_conventions import identify_pe_table

__version__ = "0.1.0"

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


def _set_up_a_notebook() -> None:
    """In a Jupyter kernel, draw each inline figure once (no redraw, no trimming pass)."""
    if "ipykernel" in sys.modules:
        from .figures import draw_inline_once

        draw_inline_once()


_set_up_a_notebook()
