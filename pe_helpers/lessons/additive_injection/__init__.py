"""Lesson 02 · Injecting position by addition (``notebooks/02_additive_injection.ipynb``).

Input = embedding + positional encoding. Concatenating a one-hot position and projecting
is the same as adding a learned position vector; in many dimensions a linear probe can
read the position back from the sum. This package measures the cosines of random
directions and fits the probe (with an adjustable embedding scale, to separate the
signal-to-noise story from the angle story), draws the lesson's figures (the slider one
is :class:`DimensionPanels`) and checks its exercises.
"""

from __future__ import annotations

from .exercises import (
    check_add_position_vector,
    check_concat_then_project,
    check_fit_position_probe,
)
from .figures import COSINE_BINS, DimensionPanels, plot_cosine_vs_dim, plot_probe_vs_dim
from .figures import DIMENSION_PAIRS as DIMENSION_PAIRS
from .maths import MAX_CELLS, ProbeResult, position_probe, random_cosines, slow_columns

__all__ = [
    "COSINE_BINS",
    "MAX_CELLS",
    "DimensionPanels",
    "ProbeResult",
    "check_add_position_vector",
    "check_concat_then_project",
    "check_fit_position_probe",
    "plot_cosine_vs_dim",
    "plot_probe_vs_dim",
    "position_probe",
    "random_cosines",
    "slow_columns",
]
