"""Lesson 03 · Choosing the frequencies (``notebooks/03_frequency_choice.ipynb``).

The geometric ladder of frequencies ``w_k = base^(-2k/d)``: the misreading of its
exponent, the wavelengths, aliasing at whole-number positions, collisions of a single
frequency and the binary-counter analogy. Helpers, figures (the slider figure is
:class:`EncodingAndWavelengths`) and exercise checkers.
"""

from .exercises import (
    EXPONENT_HINT,
    check_longest_wavelength,
    check_pair_frequencies,
    check_pe_row,
)
from .figures import (
    EncodingAndWavelengths,
    plot_aliasing,
    plot_counter_analogy,
    plot_frequency_readings,
    plot_min_distance,
    plot_wavelengths,
)
from .maths import (
    MAX_BITS,
    MAX_CELLS,
    MAX_DISTANCE_WORK,
    binary_digits,
    column_reading_pe,
    running_min_distance,
    wavelengths,
)

__all__ = [
    "EXPONENT_HINT",
    "MAX_BITS",
    "MAX_CELLS",
    "MAX_DISTANCE_WORK",
    "EncodingAndWavelengths",
    "binary_digits",
    "check_longest_wavelength",
    "check_pair_frequencies",
    "check_pe_row",
    "column_reading_pe",
    "plot_aliasing",
    "plot_counter_analogy",
    "plot_frequency_readings",
    "plot_min_distance",
    "plot_wavelengths",
    "running_min_distance",
    "wavelengths",
]
