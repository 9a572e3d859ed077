"""Lesson 09 · The family of position methods, side by side.

The notebook ``notebooks/09_position_methods.ipynb`` puts the methods learners meet in
papers on two common grounds. The map is lesson 06's four score terms (what does each
method keep, drop or replace?); the bench is lesson 08's trainer (same model, same tasks,
same test past the training length). The maths of ALiBi and T5's buckets is general and
lives in :mod:`pe_helpers.biases`; what only this lesson needs is here:

* the map: :data:`POSITION_MAP` (each method's four terms, with its source),
  :func:`term_kind` and :func:`map_kind` (what a term's formula and a whole row say the
  scores depend on, to hold against the roles and the measurements) and
  :func:`plot_position_map`;
* measurements on the trainer's models: :func:`same_token_scores` (the scores of a sequence
  of one repeated token, so only position can make them differ), :func:`method_properties`
  (relative or absolute, direction-aware, extra parameters, all computed) and the bench,
  :func:`run_bench`, :func:`format_bench`, :func:`plot_bench`, and inside its T5 model
  :func:`t5_table_facts` and :func:`last_query_attention`;
* results over seeds: :data:`SEED_EXPERIMENTS` (the bench and the T5 model, one seed at a
  time; :func:`bench_metrics` names each cell, :func:`seed_range` prints one), shipped in
  ``pe_helpers/data/seeds/``;
* live figures: :class:`AlibiHeads` (per-head bias under a head-count slider) and
  :class:`T5BucketMap` (bucket of every offset under sliders for buckets and max distance);
* exercises: :func:`check_t5_bucket` and, with :func:`mystery_matrices` /
  :func:`plot_mystery_biases`, :func:`check_method_names`.
"""

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
