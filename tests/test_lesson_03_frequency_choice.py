"""Lesson 03 · Choosing the frequencies: helpers, figures, the slider figure and the checkers.

Expected values are rebuilt here from the formulas (loops, closed forms, brute force),
never by calling the function under test.
"""

from __future__ import annotations

import math
import tracemalloc

import matplotlib.pyplot as plt
import numpy as np
import pytest

from pe_helpers.encodings import sinusoidal_pe
from pe_helpers.lessons import frequency_choice as fc

HINT = fc.exercises.EXPONENT_HINT


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# --- maths -----------------------------------------------------------------------------------
def test_wavelengths_run_geometrically_from_two_pi():
    lam = fc.wavelengths(128)
    assert math.isclose(lam[0], 2 * math.pi)
    assert math.isclose(lam[-1], 2 * math.pi * 10000 ** (126 / 128))
    assert round(lam[-1] / (2 * math.pi)) == 8660
    assert np.allclose(lam[1:] / lam[:-1], 10000 ** (2 / 128))


def test_column_reading_double_counts_the_exponent():
    d, base, t = 8, 10000.0, 2.0
    w = [base ** (-2 * i / d) for i in range(d)]
    expected = [math.sin(t * w[i]) if i % 2 == 0 else math.cos(t * w[i]) for i in range(d)]
    assert np.allclose(fc.column_reading_pe([t], d, base)[0], expected)
    assert not np.allclose(expected, sinusoidal_pe([t], d, base)[0])
    assert np.array_equal(fc.column_reading_pe(3, d), fc.column_reading_pe([0.0, 1.0, 2.0], d))


def _brute_running_min(x: np.ndarray) -> list[float]:
    return [
        min(math.dist(x[i], x[j]) for i in range(m) for j in range(i + 1, m))
        for m in range(2, len(x) + 1)
    ]


@pytest.mark.parametrize("tile", [(2**17, 256), (16, 4), (6, 3)], ids=["default", "small", "odd"])
def test_running_min_distance_matches_a_brute_force_search(monkeypatch, tile):
    monkeypatch.setattr(fc.maths, "_BLOCK", tile[0])
    monkeypatch.setattr(fc.maths, "_TILE", tile[1])
    rng = np.random.default_rng(11)
    for x in (rng.normal(size=(40, 3)), np.round(rng.normal(size=(40, 2)) * 2), np.zeros((5, 2))):
        assert np.allclose(fc.running_min_distance(x), _brute_running_min(x), rtol=1e-12, atol=0)


def test_running_min_distance_survives_cancellation():
    # Issue 18 item 11: from |x|² + |y|² - 2x·y these came out 0.
    assert fc.running_min_distance([[1e8], [1e8 + 1]]).tolist() == [1.0]
    assert fc.running_min_distance([[0.0], [1e8], [1e8 + 1]]).tolist() == [1e8, 1.0]
    far = np.full((3, 4), 1e9)
    far[1, 0] += 0.5
    far[2, 3] += 2.0
    assert np.allclose(fc.running_min_distance(far), [0.5, 0.5], rtol=1e-12)


def test_running_min_distance_memory_stays_a_working_set():
    # Issue 18 item 2: the full n x n matrix took 6 GB for 20,000 rows; now tiles of 1 MB.
    pe = sinusoidal_pe(5000, 64)
    tracemalloc.start()
    try:
        result = fc.running_min_distance(pe)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 2**20  # the n x n matrix alone would be 200 MB
    assert peak < 40 * 8 * pe.shape[0] * 2  # a small multiple of result and work arrays
    assert result.shape == (4999,) and result[-1] > 1.0


def test_running_min_distance_refuses_work_past_its_limit_at_once(monkeypatch):
    def work_began(*args, **kwargs):
        raise AssertionError("the work began before the refusal")

    vectors = np.zeros((40_000, 20))
    monkeypatch.setattr(np, "einsum", work_began)  # the work's first step: |x|² per row
    with pytest.raises(ValueError, match="MAX_DISTANCE_WORK"):
        fc.running_min_distance(vectors)


def test_binary_digits_are_exact_integers_least_significant_first():
    bits = fc.binary_digits(8, 3)
    for value, row in enumerate(bits):
        assert sum(int(b) << k for k, b in enumerate(row)) == value
    # Issue 18 item 10: through float64 the lowest bit of 2**53 + 1 was lost
    assert fc.binary_digits([2**53 + 1], 54)[0].tolist() == [1] + [0] * 52 + [1]
    assert fc.binary_digits([2**63 - 1], 63)[0].tolist() == [1] * 63  # no overflow, no warning
    assert fc.binary_digits(np.array([5], dtype=np.uint64), 3).tolist() == [[1, 0, 1]]


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        # Wrong kinds, NaN, ragged lists and huge sizes at every door: test_fuzz_inputs.py.
        (lambda: fc.binary_digits([8], 3), ValueError, "values"),
        (lambda: fc.binary_digits(9, 3), ValueError, "values"),
        (lambda: fc.binary_digits([-1], 3), ValueError, "values"),
        (lambda: fc.binary_digits([2**64], 63), ValueError, "values"),
        (lambda: fc.binary_digits(np.array([2**63], dtype=np.uint64), 63), ValueError, "values"),
        (lambda: fc.binary_digits([True], 3), TypeError, "values"),
        (lambda: fc.running_min_distance([[1.0, 2.0]]), ValueError, "vectors"),
        (lambda: fc.plot_wavelengths(7), ValueError, "d_model"),
        (lambda: fc.plot_min_distance([2, 3], {"a": [1.0]}), ValueError, "lengths"),
        (lambda: fc.plot_min_distance([2, 3], {"a": [1.0, 0.0]}), ValueError, "curves"),
        (lambda: fc.plot_counter_analogy(17, 8), ValueError, "n_positions"),
        (lambda: fc.plot_counter_analogy(4, 4, axes=[1, 2]), TypeError, "axes"),
    ],
)
def test_doors_name_bad_arguments_before_any_work(call, error, name):
    tracemalloc.start()  # refused before any array is made: memory, not a clock, bounds it
    try:
        with pytest.raises(error, match=name):
            call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**20


# --- figures ---------------------------------------------------------------------------------
def test_static_figures_show_their_data():
    ax = fc.plot_wavelengths(8, 100.0)
    assert np.allclose(ax.lines[0].get_ydata(), [2 * math.pi * 100 ** (k / 4) for k in range(4)])
    assert ax.get_title() == "Wavelength of pair k\nd = 8, base = 100"
    ax = fc.plot_frequency_readings(4, 100.0)
    assert np.allclose(ax.lines[0].get_ydata(), [1, 1, 0.1, 0.1])
    assert np.allclose(ax.lines[1].get_ydata(), [1, 0.1, 0.01, 0.001])
    ax = fc.plot_aliasing(1000.0, 10)
    alias = 1000 - 318 * math.pi
    dots = ax.lines[2]
    assert np.allclose(dots.get_ydata(), [math.sin(alias * t) for t in range(11)], atol=1e-12)
    ax = fc.plot_min_distance([2, 3, 4], {"one": [1.0, 0.5, 0.1], "bank": [2.0, 2.0, 2.0]})
    assert ax.lines[1].get_ydata().tolist() == [2.0, 2.0, 2.0]
    figure = fc.plot_counter_analogy(4, 4, 100.0)
    assert figure.axes[0].images[0].get_array().tolist() == [[0, 0], [1, 0], [0, 1], [1, 1]]
    assert np.allclose(figure.axes[1].images[0].get_array(), sinusoidal_pe(4, 4, 100.0))


def test_the_slider_figure_follows_d_base_and_position():
    view = fc.EncodingAndWavelengths().view()
    view.controls["d_model"].value = 8
    view.controls["base"].value = 100.0
    blits = view.blits
    view.controls["position"].value = 50
    assert view.blits == blits + 1  # a step of t redraws only what moves
    art_left, art_right = view.figure.axes[:2]
    row = [f(50 * 100.0 ** (-2 * k / 8)) for k in range(4) for f in (math.sin, math.cos)]
    assert np.allclose(art_left.lines[0].get_ydata(), row[0::2])
    assert np.allclose(art_left.lines[1].get_ydata(), row[1::2])
    assert art_left.get_title() == "PE(t = 50), d = 8, base = 100"
    ladder = [2 * math.pi * 10 ** (k / 2) for k in range(4)]
    assert np.allclose(art_right.lines[0].get_ydata(), ladder)
    view.controls["base"].value = 1000.0
    assert view.blits == blits + 2  # fixed limits: a base step is blitted too
    view.controls["d_model"].value = 12  # both x axes are drawn with the stems: blitted
    assert view.blits == blits + 3 and art_left.get_xlim() == (-1.0, 12.0)
    view.close()


# --- exercises -------------------------------------------------------------------------------
def _frequencies(d, b):
    return b ** (-2 * np.arange(d // 2) / d)


def _pe_row(t, d, b):
    w = _frequencies(d, b)
    return np.stack([np.sin(w * t), np.cos(w * t)], axis=1).ravel()


def _longest(d, b):
    return 2 * np.pi * b ** ((d - 2) / d)


CHECKERS = {
    "pair_frequencies": (fc.check_pair_frequencies, _frequencies),
    "pe_row": (fc.check_pe_row, _pe_row),
    "longest_wavelength": (fc.check_longest_wavelength, _longest),
}


# The grading every checker shares (a stub, NaN, text, a crash): tests/test_core.py and the fuzz.
@pytest.mark.parametrize("name", CHECKERS)
def test_each_checker_passes_float64_and_float32_calling_once_per_case(name):
    check, right = CHECKERS[name]
    calls = []

    def counted(*args):
        calls.append(args)
        return right(*args)

    assert check(counted).passed
    assert len(calls) == len({repr(a) for a in calls}) == 3
    assert check(lambda *a: np.asarray(right(*a), dtype=np.float32)).passed


def test_pair_frequency_slips_get_their_hints():
    check = fc.check_pair_frequencies
    assert check(lambda d, b: b ** (-2 * np.arange(d) / d)).message == HINT
    assert check(lambda d, b: b ** (-4 * np.arange(d // 2) / d)).message == HINT
    assert "k/d" in check(lambda d, b: b ** (-np.arange(d // 2) / d)).message
    assert "sign" in check(lambda d, b: b ** (2 * np.arange(d // 2) / d)).message
    assert "shape (4,)" in check(lambda d, b: np.ones(3)).message
    assert "base^0 = 1" in check(lambda d, b: 2 * _frequencies(d, b)).message
    assert check(lambda d, b: [float(v) for v in _frequencies(d, b)]).passed  # a list is fine


def test_pe_row_slips_get_their_hints():
    check = fc.check_pe_row
    assert check(lambda t, d, b: fc.column_reading_pe([t], d, b)[0]).message == HINT

    def halves(t, d, b):
        row = _pe_row(t, d, b)
        return np.concatenate([row[0::2], row[1::2]])

    def divided(t, d, b):
        w = 1 / _frequencies(d, b)
        return np.stack([np.sin(w * t), np.cos(w * t)], axis=1).ravel()

    assert "interleaves" in check(halves).message
    swapped = check(lambda t, d, b: _pe_row(t, d, b).reshape(-1, 2)[:, ::-1].ravel())
    assert "swapped" in swapped.message
    assert "divided" in check(divided).message
    assert "shape (8,)" in check(lambda t, d, b: np.zeros(d // 2)).message
    assert "[-1, 1]" in check(lambda t, d, b: 2 * _pe_row(t, d, b)).message

    def in_place(t, d, b):
        row = _pe_row(t, d, b)
        row[1::2] = 0.0
        return row

    assert check(in_place).message.startswith("for t = 3")


def test_longest_wavelength_slips_get_their_hints():
    check = fc.check_longest_wavelength
    assert "(d - 2)/d" in check(lambda d, b: 2 * np.pi * b).message
    assert "2π" in check(lambda d, b: b ** ((d - 2) / d)).message
    assert check(lambda d, b: 2 * np.pi * b ** (2 * (d - 1) / d)).message == HINT
    assert check(lambda d, b: np.array([_longest(d, b)])).passed  # one number in an array
    assert "one number" in check(lambda d, b: np.array([1.0, 2.0])).message
    assert "expected" in check(lambda d, b: _longest(d, b) + 1).message
