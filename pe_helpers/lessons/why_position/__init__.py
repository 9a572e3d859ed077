"""Lesson 01 · Why attention needs position (``notebooks/01_why_position.ipynb``).

Self-attention without position is permutation-equivariant; a recurrent layer gets
order for free and pays for it. This module runs both layers while counting their
matrix products (how many, how many in a chain that cannot be parallelised, and the
multiply-adds), runs the linear recurrence ``h_t = a h_(t-1) + x_t`` behind the
fading figure, draws the lesson's figures (the slider one is :class:`RecurrenceWeights`)
and checks its exercises.
"""

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
