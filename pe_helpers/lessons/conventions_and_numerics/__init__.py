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

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
