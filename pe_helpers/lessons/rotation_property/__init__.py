"""Lesson 04 · The rotation property.

Shifting a position by Δ turns every (sin, cos) pair of the sinusoidal encoding by
the same angle ``w_k Δ``, whatever the position: one fixed matrix ``T_Δ`` does the
shift.
"""

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
