"""Lesson 10 · Stretching RoPE to longer contexts: what each method does to each pair.

``notebooks/10_long_context.ipynb`` compares the frequency recipes real configs ship (their
formulas: :mod:`pe_helpers.rope_scaling`) pair by pair, on published configs and on lesson
08's trained model. Here: each method's frequencies, lesson 08's model stretched or
fine-tuned with them and section 3 over seeds (``maths``), the live :class:`PairScaling`
(``figures``), the checkers and exercise 3's engines (``exercises``).
"""

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
