"""Lesson 14 · Position from content: CoPE, the forget gate, and PaTH's transforms.

The notebook ``notebooks/14_position_from_content.ipynb`` trains :mod:`pe_helpers.model` with
two position methods whose notion of position comes from the tokens themselves: ``"cope"``
(Golovneva et al. 2024: the position of a key is the sum of gates, one per key between it and
the query) and ``"forgetting"`` (Lin et al. 2025: a learned, data-dependent decay added to
every logit, an ALiBi whose slope each token sets). It compares them with NoPE, RoPE and
ALiBi on ``skip_back`` (:mod:`pe_helpers.tasks`): words among blanks, where the target is the
second word back, so the answer's distance in tokens varies. PaTH (Yang et al. 2025) is
treated as maths only. What only this lesson needs lives here: ``maths`` (the lesson's
models, what their gates hold, PaTH's transforms, lesson 09's map extended in
:data:`SCORE_TERMS`, and ``SEED_EXPERIMENTS``), ``figures`` (:class:`ContentGates`,
:func:`plot_skip_back`) and ``exercises`` (the two checkers).
"""

from __future__ import annotations

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
