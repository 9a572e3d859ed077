"""Lesson 03 · Choosing the frequencies (``notebooks/03_frequency_choice.ipynb``).

The geometric ladder of frequencies ``w_k = base^(-2k/d)``: the misreading of its
exponent, the wavelengths, aliasing at whole-number positions, collisions of a single
frequency and the binary-counter analogy.
"""

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
