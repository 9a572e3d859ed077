"""Lesson 12 · RoPE in today's architectures: partial, decoupled, multimodal, hybrid.

The notebook ``notebooks/12_rope_today.ipynb`` reads four settings met in current model
configs and checks what each does to the attention score. The variants themselves are
general maths in :mod:`pe_helpers.rope_variants`; what only this lesson needs lives here:
``maths`` (:data:`PUBLISHED_SETTINGS`, the values the lesson teaches with where each was read,
and the measurements), ``figures`` (:class:`MropeScoreMap`, :func:`plot_nope_temperature`,
:func:`plot_turning_pairs`) and ``exercises`` (the three checkers).
"""

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
