"""pe_helpers: the small package behind the positional-encoding notebooks.

Pure maths lives in :mod:`~pe_helpers.encodings`, :mod:`~pe_helpers.rope` and
:mod:`~pe_helpers.attention`; figures in :mod:`~pe_helpers.plotting`; sliders in
:mod:`~pe_helpers.widgets`; self-checking exercises in :mod:`~pe_helpers.exercises`.
"""

from .attention import (
    ScoreTerms,
    attention,
    attention_weights,
    causal_mask,
    relative_deviation,
    score_terms,
    softmax,
)
from .encodings import (
    block_rotation,
    frequencies,
    rotation_matrix,
    shift_operator,
    sinusoidal_pe,
)
from .rope import apply_rope, halves_permutation, rope_matrix

__version__ = "0.1.0"

__all__ = [
    "ScoreTerms",
    "apply_rope",
    "attention",
    "attention_weights",
    "block_rotation",
    "causal_mask",
    "frequencies",
    "halves_permutation",
    "relative_deviation",
    "rope_matrix",
    "rotation_matrix",
    "score_terms",
    "shift_operator",
    "sinusoidal_pe",
    "softmax",
]
