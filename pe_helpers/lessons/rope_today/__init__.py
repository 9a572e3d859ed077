"""Lesson 12 · RoPE in today's architectures: partial, decoupled, multimodal, hybrid.

``notebooks/12_rope_today.ipynb`` reads four settings of current model configs and checks
what each does to the attention score; the variants are :mod:`pe_helpers.rope_variants`. Here:
the settings and the measurements (``maths``), the figures (``figures``) and the checkers
(``exercises``).
"""

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
