"""Lesson 07 · Rotary position embedding (RoPE).

The notebook ``notebooks/07_rope.ipynb`` derives RoPE from one requirement (the score
may depend on ``n - m`` only), checks it, and looks at what it does over long
distances. The rotation itself is maths shared with later lessons and lives in
:mod:`pe_helpers.rope`; what only this lesson needs lives here:

* two measurements: :func:`mean_abs_scores` (the typical size of a score against
  distance, next to RoFormer's bound) and :func:`unseen_angle_gaps` (how far the
  angles met beyond the training length are from every angle seen in training);
* the figure :class:`RopeOffset` (score against distance and a score matrix, under a
  base slider and a position-offset slider);
* the exercise checkers :func:`check_rotate_pair`, :func:`check_rope_adjacent` and
  :func:`check_unwrapped_pairs`.
"""

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
