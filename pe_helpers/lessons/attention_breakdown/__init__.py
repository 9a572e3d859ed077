"""Lesson 06 · Where additive encoding breaks down (``notebooks/06_attention_breakdown.ipynb``).

The attention score of inputs ``e + p`` splits into four terms; this home measures how far
the position–position term is from depending on ``j - i`` alone as both projections move
from the identity to random matrices (the slider figure is :class:`AttentionBlend`), runs
a stack of random attention layers to weigh the article's verdict, and checks the
exercises.
"""

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
