"""pe_helpers: the small package behind the positional-encoding notebooks.

Pure maths lives in :mod:`~pe_helpers.encodings`, :mod:`~pe_helpers.rope`,
:mod:`~pe_helpers.attention`, :mod:`~pe_helpers.foundations` (lessons 01-03),
:mod:`~pe_helpers.conventions`, :mod:`~pe_helpers.table_conventions` and
:mod:`~pe_helpers.numerics` (lesson 11);
figures in :mod:`~pe_helpers.plotting`; sliders in :mod:`~pe_helpers.widgets`;
self-checking exercises in :mod:`~pe_helpers.exercises`. The maths is re-exported
here; import figures, views and checks from their modules.
"""

from .attention import (
    ScoreTerms,
    attention,
    attention_weights,
    blend_deviations,
    blend_inputs,
    blend_matrix,
    blend_position_scores,
    causal_mask,
    random_projection,
    relative_deviation,
    score_terms,
    softmax,
)
from .conventions import LIBRARY_FLAGS, LibraryFlag, RopeConvention, identify_rope
from .encodings import (
    block_rotation,
    frequencies,
    rotation_matrix,
    shift_operator,
    sinusoidal_pe,
)
from .foundations import (
    ProbeResult,
    binary_digits,
    column_reading_frequencies,
    column_reading_pe,
    position_probe,
    random_cosines,
    recurrence_states,
    recurrence_weights,
    running_min_distance,
    serial_steps,
    wavelengths,
)
from .numerics import FLOAT_DTYPES, largest_exact_integer, rope_angle_error
from .rope import (
    apply_rope,
    halves_permutation,
    rope_matrix,
    rope_score_bound,
    rope_scores,
)
from .table_conventions import (
    PE_TABLE_SOURCES,
    PeTableConvention,
    TableSource,
    identify_pe_table,
)

__version__ = "0.1.0"

__all__ = [
    "FLOAT_DTYPES",
    "LIBRARY_FLAGS",
    "LibraryFlag",
    "PE_TABLE_SOURCES",
    "PeTableConvention",
    "ProbeResult",
    "RopeConvention",
    "ScoreTerms",
    "TableSource",
    "apply_rope",
    "attention",
    "attention_weights",
    "binary_digits",
    "blend_deviations",
    "blend_inputs",
    "blend_matrix",
    "blend_position_scores",
    "block_rotation",
    "causal_mask",
    "column_reading_frequencies",
    "column_reading_pe",
    "frequencies",
    "halves_permutation",
    "identify_pe_table",
    "identify_rope",
    "largest_exact_integer",
    "position_probe",
    "random_cosines",
    "random_projection",
    "recurrence_states",
    "recurrence_weights",
    "relative_deviation",
    "rope_angle_error",
    "rope_matrix",
    "rope_score_bound",
    "rope_scores",
    "rotation_matrix",
    "running_min_distance",
    "score_terms",
    "serial_steps",
    "shift_operator",
    "sinusoidal_pe",
    "softmax",
    "wavelengths",
]
