"""Lesson 05 · Seeing the encoding.

The encoding as a picture (heatmaps, per-dimension waves), the dot product
``PE(t)·PE(t+Δ) = Σ_k cos(w_k Δ)`` that depends on the offset alone and is even in Δ,
the bilinear score with a block ``b·J`` that is odd in Δ, and how column order and
colour map change what a heatmap seems to say.
"""

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
