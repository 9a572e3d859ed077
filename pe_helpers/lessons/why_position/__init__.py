"""Lesson 01 · Why attention needs position (``notebooks/01_why_position.ipynb``).

Self-attention without position is permutation-equivariant; a recurrent layer gets
order for free and pays for it. This module runs both layers while counting their
matrix products (how many, how many in a chain that cannot be parallelised, and the
multiply-adds), runs the linear recurrence ``h_t = a h_(t-1) + x_t`` behind the
fading figure, draws the lesson's figures (the slider one is :class:`RecurrenceWeights`)
and checks its exercises.
"""

from .exercises import (
    check_first_input_weight,
    check_steps_until_faded,
    check_unshuffled_attention,
)
from .figures import (
    RecurrenceWeights,
    plot_serial_steps,
    plot_token_outputs,
    recurrence_caption,
)
from .maths import (
    MAX_LAYER_TOKENS,
    MAX_TOKENS,
    MAX_WIDTH,
    LayerRun,
    attention_layer,
    recurrence_states,
    recurrence_weights,
    recurrent_layer,
)

__all__ = [
    "MAX_LAYER_TOKENS",
    "MAX_TOKENS",
    "MAX_WIDTH",
    "LayerRun",
    "RecurrenceWeights",
    "attention_layer",
    "check_first_input_weight",
    "check_steps_until_faded",
    "check_unshuffled_attention",
    "plot_serial_steps",
    "plot_token_outputs",
    "recurrence_caption",
    "recurrence_states",
    "recurrence_weights",
    "recurrent_layer",
]
