"""Lesson 12 · RoPE in today's architectures: partial, decoupled, multimodal, hybrid.

The notebook ``notebooks/12_rope_today.ipynb`` reads four settings met in current model
configs and checks what each does to the attention score. The variants themselves are
general maths in :mod:`pe_helpers.rope_variants`; what only this lesson needs lives here:

* :data:`PUBLISHED_SETTINGS` — the values the lesson teaches, each with where it was read;
* measurements: :func:`position_scores` (one query and one key placed at many
  positions), :func:`patch_scores` and :func:`relative_2d_deviation` (multimodal RoPE on
  an image grid), :func:`nope_layers` (which layers of a hybrid stack have no RoPE),
  :func:`nope_query_scale` (Llama 4's query temperature in those layers) and
  :func:`top_key_weight` (what a softmax over many keys leaves the best one);
* figures: :class:`MropeScoreMap` (the score of one query patch against every patch,
  under sliders for the grid, the sections and the query patch),
  :func:`plot_nope_temperature` (the best key's weight over the context length, with and
  without that temperature) and :func:`plot_turning_pairs` (which pairs turn, and how
  fast, under RoPE, partial rotation and p-RoPE);
* the exercise checkers :func:`check_partial_rope`, :func:`check_mla_cache` and
  :func:`check_mrope_ids`.
"""

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
