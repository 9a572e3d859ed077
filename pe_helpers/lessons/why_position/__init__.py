"""Lesson 01 · Why attention needs position (``notebooks/01_why_position.ipynb``).

Self-attention without position is permutation-equivariant; a recurrent layer gets
order for free and pays for it in serial steps, counted here product by product.
"""

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
