"""Lesson 13 · Two layers: induction heads, and a key found past the training length.

``notebooks/13_two_layers.ipynb`` trains two-layer models on ``repeated`` (an induction head,
fed by a previous-token head) and ``passkey`` (tested up to 8 times the training length, RoPE
stretched by lesson 10's PI, NTK-aware and YaRN). Here: the models, the two scores, the
one-layer limit and the seeds (``maths``), the figures and the checkers.
"""

from __future__ import annotations

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
