"""Lesson 11 · Conventions and numerics: the RoPE bugs people hit, reproduced and caught.

``notebooks/11_conventions_and_numerics.ipynb`` breaks lesson 08's trained RoPE model on purpose
and catches each break with :mod:`pe_helpers.conventions`, :mod:`pe_helpers.table_conventions`
and :mod:`pe_helpers.numerics`. Here: what the notebook measures on its trained models
(:func:`pairing_metrics`, run over seeds by :data:`SEED_EXPERIMENTS`); the slips, one function
each (:func:`rope_mutants`, :func:`pe_table_variants`, :func:`erratum_shift_operator`);
:func:`swap_pairing`; the figures
:func:`plot_position_accuracy`, :func:`plot_angle_error` and the live :class:`AngleErrorPerPair`;
the checkers :func:`check_rope_complex`, :func:`check_snippet`, :func:`check_cos_sin_cache`
and :func:`check_llama2_loader`, with exercise 4's :func:`llama2_checkpoint`,
:func:`reference_scores` and :func:`repository_scores`.
"""

from __future__ import annotations

from .exercises import (
    LOADER_D_MODEL,
    LOADER_HEAD_DIM,
    SNIPPETS,
    check_cos_sin_cache,
    check_llama2_loader,
    check_rope_complex,
    check_snippet,
    llama2_checkpoint,
    reference_scores,
    repository_scores,
)
from .figures import DTYPES, AngleErrorPerPair, plot_angle_error, plot_position_accuracy
from .figures import MAX_PLOT_POSITION as MAX_PLOT_POSITION
from .maths import (
    SEED_EXPERIMENTS,
    erratum_shift_operator,
    pairing_metrics,
    pe_table_variants,
    rope_mutants,
    swap_pairing,
)

__all__ = [
    "DTYPES",
    "LOADER_D_MODEL",
    "LOADER_HEAD_DIM",
    "SEED_EXPERIMENTS",
    "SNIPPETS",
    "AngleErrorPerPair",
    "check_cos_sin_cache",
    "check_llama2_loader",
    "check_rope_complex",
    "check_snippet",
    "erratum_shift_operator",
    "llama2_checkpoint",
    "pairing_metrics",
    "pe_table_variants",
    "plot_angle_error",
    "plot_position_accuracy",
    "reference_scores",
    "repository_scores",
    "rope_mutants",
    "swap_pairing",
]
