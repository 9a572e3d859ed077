"""The benchmarks' own logic (their timings are never asserted: ``make bench`` prints them)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("n_values", [2, 6, 33, 200])
def test_every_move_of_the_measured_drag_lands_on_a_new_value(n_values):
    fractions = _load("bench_browser").drag_fractions(n_values, moves=60)
    values = [round(f * (n_values - 1)) for f in fractions]
    assert len(fractions) == 60 and all(0 <= f <= 1 for f in fractions)
    assert all(a != b for a, b in zip(values, values[1:], strict=False))
