"""Lesson 10 · Stretching RoPE to longer contexts: what each method does to each pair.

The notebook ``notebooks/10_long_context.ipynb`` compares the frequency recipes real configs
ship (their formulas are :mod:`pe_helpers.rope_scaling`, checked against transformers by
``make crosscheck``) pair by pair, on published configs and on lesson 08's trained model. What
only this lesson needs lives here:

* :data:`METHODS` and :func:`method_frequencies` — one name per method and its frequencies,
  built from the ``rope_parameters`` block :func:`rope_block` writes;
* :func:`rotate`, :func:`aligned_scores` and :func:`dynamic_key_angles` — RoPE with any
  frequencies, the score of an aligned query and key against distance, and the angles a key
  cached under dynamic NTK carries;
* :func:`stretched` and :func:`fine_tuned` — lesson 08's model evaluated with new frequencies,
  or trained a few steps with them;
* :class:`PairScaling` — the per-pair picture and the score curve under sliders;
* the exercise checkers :func:`check_ntk_base` and :func:`check_llama3_pairs`.
"""

from __future__ import annotations

from .exercises import check_llama3_pairs, check_ntk_base
from .figures import FIGURE_METHODS, PRESETS, PairScaling, Preset
from .maths import (
    MAX_DISTANCES,
    MAX_ELEMENTS,
    METHODS,
    aligned_scores,
    dynamic_key_angles,
    fine_tuned,
    method_frequencies,
    rope_block,
    rotate,
    stretched,
)

__all__ = [
    "FIGURE_METHODS",
    "MAX_DISTANCES",
    "MAX_ELEMENTS",
    "METHODS",
    "PRESETS",
    "PairScaling",
    "Preset",
    "aligned_scores",
    "check_llama3_pairs",
    "check_ntk_base",
    "dynamic_key_angles",
    "fine_tuned",
    "method_frequencies",
    "rope_block",
    "rotate",
    "stretched",
]
