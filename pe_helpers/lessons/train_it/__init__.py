"""Lesson 08 · Position in a model you train.

``notebooks/08_train_it.ipynb`` trains the one-layer attention model of
:mod:`pe_helpers.model` with each position method (:mod:`pe_helpers.training`,
:mod:`pe_helpers.tasks`), tests it past its training length and looks inside. Here: the
measurements on trained models and the models over seeds (``maths``), the extrapolation
figure and the live :class:`QueryAttention` (``figures``), the checkers (``exercises``).
"""

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
