"""Lesson 11 · Conventions and numerics: the RoPE bugs people hit, reproduced and caught.

``notebooks/11_conventions_and_numerics.ipynb`` breaks lesson 08's trained RoPE model on
purpose and catches each break with :mod:`pe_helpers.conventions`,
:mod:`pe_helpers.table_conventions` and :mod:`pe_helpers.numerics`. Here: the measurements of
its trained models and the slips, one function each (``maths``), the figures and the live
:class:`AngleErrorPerPair` (``figures``), the checkers and exercise 4's checkpoint
(``exercises``).
"""

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
