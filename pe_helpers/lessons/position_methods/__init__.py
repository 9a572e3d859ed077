"""Lesson 09 · The family of position methods, side by side.

``notebooks/09_position_methods.ipynb`` puts the methods of the papers on two common grounds:
lesson 06's four score terms (the map, :data:`POSITION_MAP`) and lesson 08's trainer (the
bench, :func:`run_bench`). ALiBi's and T5's maths lives in :mod:`pe_helpers.biases`; here: the
map, the measurements, the bench and its models over seeds (``maths``), the figures and the
live :class:`AlibiHeads` and :class:`T5BucketMap` (``figures``), the checkers (``exercises``).
"""

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
