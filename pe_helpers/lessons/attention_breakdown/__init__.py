"""Lesson 06 · Where additive encoding breaks down.

The notebook ``notebooks/06_attention_breakdown.ipynb`` splits the attention score of
inputs ``e + p`` into four terms and measures how far each one is from depending on
``j - i`` alone. What only this lesson needs lives here:

* the blend sweep, both projections on the line ``(1 - t) I + t W_random``
  (:func:`random_projection`, :func:`blend_inputs`, :func:`blend_deviations`), and a
  stack of random attention layers to weigh the article's verdict
  (:func:`attention_stack`, :func:`encoding_readout`);
* the figure :class:`AttentionBlend` (slider);
* the exercise checkers :func:`check_position_position` and
  :func:`check_relative_projections`.
"""

from . import exercises, figures, maths
from .exercises import *  # noqa: F403
from .figures import *  # noqa: F403
from .maths import *  # noqa: F403

__all__ = [*exercises.__all__, *figures.__all__, *maths.__all__]
