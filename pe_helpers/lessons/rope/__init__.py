"""Lesson 07 · Rotary position embedding (``notebooks/07_rope.ipynb``).

The rotation itself is shared maths (:mod:`pe_helpers.rope`); this home measures the
typical size of a score against distance (beside RoFormer's bound) and the angles met
beyond the training length, draws :class:`RopeOffset` (sliders: base, position offset)
and checks the exercises.
"""

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
