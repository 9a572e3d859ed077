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
  or trained a few steps with them; :func:`stretched_accuracies` and
  :func:`fine_tuned_accuracies` test every method at several lengths, and
  :data:`SEED_EXPERIMENTS` runs section 3 over seeds, and :func:`format_seed_table`
  prints this run beside the spread (:func:`outside_spread`: where it leaves it);
* :class:`PairScaling` — the per-pair picture and the score curve under sliders;
* the exercise checkers :func:`check_ntk_base`, :func:`check_llama3_pairs` and
  :func:`check_yarn_engines`, with exercise 3's engines (:func:`yarn_engines`).
"""

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
