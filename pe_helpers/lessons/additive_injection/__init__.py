"""Lesson 02 · Injecting position by addition (``notebooks/02_additive_injection.ipynb``).

Input = embedding + positional encoding. Concatenating a one-hot position and projecting
is the same as adding a learned position vector; in many dimensions a linear probe can
read the position back from the sum.
"""

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
