"""Lesson 13 · Two layers: induction heads, and a key found past the training length.

The notebook ``notebooks/13_two_layers.ipynb`` trains :mod:`pe_helpers.model` with two
attention layers (``n_layers=2``) on two tasks of :mod:`pe_helpers.tasks`: ``repeated``, where
the model must find the earlier copy of its current token and say what followed it (an
induction head, fed by a previous-token head in layer 1), and ``passkey``, where it must
recall the token after a marker from far back, tested at 2, 4 and 8 times its training
length, with RoPE stretched by lesson 10's PI, NTK-aware and YaRN
(:func:`pe_helpers.rope_scaling.rope_frequencies`). What only this lesson needs lives here:
``maths`` (the lesson's models, the two scores, the one-layer limit and ``SEED_EXPERIMENTS``),
``figures`` (:class:`InductionHeads`, :class:`PasskeyLengths`, :func:`plot_passkey`) and
``exercises`` (the two checkers).
"""

from __future__ import annotations

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
