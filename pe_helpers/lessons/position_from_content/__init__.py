"""Lesson 14 · Position from content: CoPE, the forget gate, and PaTH's transforms.

``notebooks/14_position_from_content.ipynb`` trains ``"cope"`` (Golovneva et al. 2024) and
``"forgetting"`` (Lin et al. 2025) against NoPE, RoPE and ALiBi on ``skip_back``, the second
word back among blanks; PaTH (Yang et al. 2025) is maths only. Here: the models, their gates,
PaTH, :data:`SCORE_TERMS` and the seeds (``maths``), the figures and the checkers.
"""

from __future__ import annotations

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
