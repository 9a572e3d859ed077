"""Tests for the helpers behind lessons 01–03 (foundations, figures, sliders, exercises).

Expected values are rebuilt here from the formulas with plain loops or closed forms,
never by calling the function under test.
"""

from __future__ import annotations

import itertools
import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from pe_helpers import attention, sinusoidal_pe  # noqa: E402
from pe_helpers import exercises as ex  # noqa: E402
from pe_helpers import foundations as fd  # noqa: E402
from pe_helpers import plotting as pl  # noqa: E402
from pe_helpers import widgets as wd  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# --- foundations: lesson 01 ----------------------------------------------------------


def test_serial_steps_counts_tokens_for_a_recurrence_and_one_for_attention():
    assert [fd.serial_steps(n, "recurrent") for n in (1, 7, 64)] == [1, 7, 64]
    assert [fd.serial_steps(n, "attention") for n in (1, 7, 64)] == [1, 1, 1]


@pytest.mark.parametrize(
    ("args", "error"),
    [((0, "recurrent"), ValueError), ((3, "lstm"), ValueError), ((2.0, "attention"), TypeError)],
)
def test_serial_steps_rejects_bad_arguments(args, error):
    with pytest.raises(error):
        fd.serial_steps(*args)


def test_recurrence_states_follow_the_recursion_step_by_step():
    x = np.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0], [-2.0, 1.0]])
    a = 0.7
    h = np.zeros(2)
    expected = []
    for row in x:
        h = a * h + row
        expected.append(h.copy())
    assert np.allclose(fd.recurrence_states(x, a), expected)


def test_recurrence_weights_are_powers_of_the_factor_and_match_the_states():
    a, n = 0.8, 6
    weights = fd.recurrence_weights(a, n)
    assert np.allclose(weights, [a ** (n - t) for t in range(1, n + 1)])
    x = np.random.default_rng(3).normal(size=n)
    assert np.isclose(fd.recurrence_states(x, a)[-1], weights @ x)


def test_recurrence_helpers_reject_bad_arguments():
    with pytest.raises(ValueError, match="n_steps"):
        fd.recurrence_weights(0.5, 0)
    with pytest.raises(TypeError, match="decay"):
        fd.recurrence_weights("0.5", 3)
    with pytest.raises(ValueError, match="inputs"):
        fd.recurrence_states([1.0, np.nan], 0.5)


def test_attention_is_permutation_equivariant_for_every_order_of_four_tokens():
    x = np.random.default_rng(5).normal(size=(4, 3))
    out = attention(x, x, x)
    for order in itertools.permutations(range(4)):
        xs = x[list(order)]
        assert np.allclose(attention(xs, xs, xs), out[list(order)])


# --- foundations: lesson 02 ----------------------------------------------------------


def test_random_cosines_are_cosines_and_shrink_like_one_over_root_d():
    rng = np.random.default_rng(0)
    small = np.abs(fd.random_cosines(8, 4000, rng)).mean()
    large = np.abs(fd.random_cosines(512, 4000, rng)).mean()
    assert small > 3 * large
    assert math.isclose(large, math.sqrt(2 / (math.pi * 512)), rel_tol=0.1)
    c = fd.random_cosines(3, 100, rng)
    assert c.shape == (100,) and np.all(np.abs(c) <= 1)


def test_random_cosines_rejects_a_missing_generator():
    with pytest.raises(TypeError, match="rng"):
        fd.random_cosines(4, 10, 0)


def test_position_probe_improves_with_dimension_and_reads_the_pe_alone():
    low = fd.position_probe(8, np.random.default_rng(1)).r2
    high = fd.position_probe(256, np.random.default_rng(1)).r2
    assert low < 0.5 < 0.85 < high
    alone = fd.position_probe(16, np.random.default_rng(1), with_tokens=False)
    assert alone.r2 > 0.99
    assert alone.true_positions.shape == alone.predicted_positions.shape == (400,)


def test_position_probe_is_reproducible_and_rejects_odd_widths():
    a = fd.position_probe(32, np.random.default_rng(7))
    b = fd.position_probe(32, np.random.default_rng(7))
    assert np.array_equal(a.predicted_positions, b.predicted_positions)
    with pytest.raises(ValueError, match="d_model"):
        fd.position_probe(7, np.random.default_rng(0))


# --- foundations: lesson 03 ----------------------------------------------------------


def test_wavelengths_run_geometrically_from_two_pi():
    lam = fd.wavelengths(128)
    assert math.isclose(lam[0], 2 * math.pi)
    assert math.isclose(lam[-1] / (2 * math.pi), 10000 ** (126 / 128))
    assert round(lam[-1] / (2 * math.pi)) == 8660
    assert np.allclose(lam[1:] / lam[:-1], 10000 ** (2 / 128))


def test_column_reading_double_counts_the_exponent():
    d, base = 8, 10000.0
    expected = [base ** (-2 * i / d) for i in range(d)]
    assert np.allclose(fd.column_reading_frequencies(d, base), expected)
    pe = fd.column_reading_pe([2.0], d, base)[0]
    assert np.isclose(pe[2], math.sin(2.0 * expected[2]))
    assert np.isclose(pe[3], math.cos(2.0 * expected[3]))
    assert not np.allclose(pe, sinusoidal_pe([2.0], d, base)[0])


def test_running_min_distance_matches_a_brute_force_search():
    x = np.random.default_rng(11).normal(size=(9, 3))
    got = fd.running_min_distance(x)
    for m in range(2, 10):
        brute = min(np.linalg.norm(x[i] - x[j]) for i in range(m) for j in range(i + 1, m))
        assert np.isclose(got[m - 2], brute)


def test_running_min_distance_needs_two_rows():
    with pytest.raises(ValueError, match="n >= 2"):
        fd.running_min_distance([[1.0, 2.0]])


def test_binary_digits_are_least_significant_first():
    bits = fd.binary_digits(8, 3)
    for value, row in enumerate(bits):
        assert sum(int(b) << k for k, b in enumerate(row)) == value
    with pytest.raises(ValueError, match="n_bits"):
        fd.binary_digits([8], 3)
    with pytest.raises(ValueError, match="non-negative"):
        fd.binary_digits([1.5], 3)


# --- plotting ------------------------------------------------------------------------


def test_plot_token_outputs_shares_one_colour_scale_and_labels_rows():
    a, b = np.array([[1.0, -2.0], [0.5, 0.0]]), np.array([[0.0, 3.0], [1.0, 1.0]])
    fig = pl.plot_token_outputs([a, b], [["x", "y"], ["y", "x"]], ["A", "B"])
    left, right = fig.axes[0], fig.axes[1]
    assert np.array_equal(right.images[0].get_array(), b)
    assert left.images[0].get_clim() == right.images[0].get_clim() == (-3.0, 3.0)
    assert [t.get_text() for t in right.get_yticklabels()] == ["y", "x"]
    assert left.get_title() == "A"
    with pytest.raises(ValueError, match="row_labels"):
        pl.plot_token_outputs([a], [["only one"]], ["A"])


def test_plot_serial_steps_draws_both_curves():
    ax = pl.plot_serial_steps([1, 2, 3], [1, 2, 3], [1, 1, 1])
    assert ax.lines[0].get_ydata().tolist() == [1, 2, 3]
    assert ax.lines[1].get_ydata().tolist() == [1, 1, 1]
    assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()
    with pytest.raises(ValueError, match="same length"):
        pl.plot_serial_steps([1, 2], [1, 2, 3], [1, 1])


def test_plot_recurrence_weights_plots_the_weights_and_the_caption():
    ax = pl.plot_recurrence_weights([0.25, 0.5, 1.0], 0.5)
    assert ax.lines[0].get_xdata().tolist() == [1, 2, 3]
    assert ax.lines[0].get_ydata().tolist() == [0.25, 0.5, 1.0]
    assert "0.25" in ax.texts[0].get_text()
    assert "a = 0.50" in ax.get_title()


def test_plot_cosine_and_probe_curves_hold_the_data():
    ax = pl.plot_cosine_vs_dim([4, 16, 64], [0.4, 0.2, 0.1], [0.39, 0.2, 0.1])
    assert ax.lines[0].get_ydata().tolist() == [0.4, 0.2, 0.1]
    assert ax.get_xscale() == ax.get_yscale() == "log"
    ax = pl.plot_probe_vs_dim([8, 16], [0.3, 0.6], [1.0, 1.0])
    assert ax.lines[1].get_ydata().tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="same length"):
        pl.plot_probe_vs_dim([8, 16], [0.3], [1.0, 1.0])


def test_plot_dimension_panels_draws_histogram_and_probe_points():
    cosines = np.array([0.01, 0.02, -0.5, 0.9])
    fig = pl.plot_dimension_panels(cosines, [0.0, 5.0], [1.0, 4.0], 16, 0.75)
    left, right = fig.axes[:2]
    heights = [bar.get_height() for bar in left.patches]
    assert np.isclose(sum(heights), 1.0) and len(heights) == 40
    assert np.allclose(right.collections[0].get_offsets(), [[0.0, 1.0], [5.0, 4.0]])
    assert "R² = 0.75" in right.get_title() and "d = 16" in left.get_title()


def test_plot_wavelengths_and_frequency_readings():
    ax = pl.plot_wavelengths([6.0, 60.0, 600.0], 1000.0, position=20)
    assert ax.lines[0].get_ydata().tolist() == [6.0, 60.0, 600.0]
    assert np.isclose(ax.lines[2].get_ydata()[0], 2 * np.pi * 1000)
    assert ax.lines[3].get_ydata()[0] == 20
    assert "d = 6" in ax.get_title()
    with pytest.raises(ValueError, match="position"):
        pl.plot_wavelengths([6.0], 10.0, position=-1)
    ax = pl.plot_frequency_readings([1, 1, 0.1, 0.1], [1, 0.1, 0.01, 0.001])
    assert ax.lines[1].get_ydata().tolist() == [1, 0.1, 0.01, 0.001]


def test_plot_min_distance_and_counter_analogy():
    ax = pl.plot_min_distance([2, 3, 4], {"one": [1.0, 0.5, 0.1], "bank": [2.0, 2.0, 2.0]})
    assert ax.lines[1].get_ydata().tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(ValueError, match="at least one"):
        pl.plot_min_distance([2], {})
    bits = fd.binary_digits(4, 2)
    fig = pl.plot_counter_analogy(bits, sinusoidal_pe(4, 4))
    assert np.array_equal(fig.axes[0].images[0].get_array(), bits)
    with pytest.raises(ValueError, match="one row per position"):
        pl.plot_counter_analogy(bits, sinusoidal_pe(5, 4))


def test_plot_frequency_panels_shows_the_row_and_the_wavelengths():
    row = sinusoidal_pe([3.0], 8)[0]
    fig = pl.plot_frequency_panels(row, fd.wavelengths(8), 10000.0, 3)
    left, right = fig.axes[:2]
    assert np.allclose(left.lines[0].get_ydata(), row[0::2])
    assert np.allclose(left.lines[1].get_ydata(), row[1::2])
    assert left.get_title() == "PE(t = 3), d = 8, base = 10,000"
    assert right.lines[3].get_ydata()[0] == 3
    with pytest.raises(ValueError, match="twice as many"):
        pl.plot_frequency_panels(row, fd.wavelengths(16), 10000.0, 3)


# --- widgets -------------------------------------------------------------------------


def test_recurrence_view_updates_the_same_figure():
    view = wd.recurrence_view()
    figure = view.figure
    view.controls["decay"].value = 0.5
    view.controls["n_steps"].value = 10
    line = view.figure.axes[0].lines[0]
    assert view.figure is figure
    assert np.allclose(line.get_ydata(), [0.5 ** (10 - t) for t in range(1, 11)])
    assert "0.5^9" in view.figure.axes[0].texts[0].get_text()
    assert view.renders == 3
    with pytest.raises(ValueError, match="decay"):
        wd.recurrence_view(decay=1.5)


def test_dimension_view_recomputes_cosines_and_probe():
    view = wd.dimension_view(d_model=8)
    figure = view.figure
    left, right = figure.axes[:2]
    before = right.collections[0].get_offsets().copy()
    view.controls["d_model"].value = 256
    assert view.figure is figure
    cosines, probe = wd.dimension_data(256)
    assert np.allclose(right.collections[0].get_offsets()[:, 1], probe.predicted_positions)
    assert not np.allclose(before[:, 1], probe.predicted_positions)
    heights = [bar.get_height() for bar in left.patches]
    assert np.allclose(heights, pl.cosine_histogram(cosines))
    assert "d = 256" in right.get_title()
    with pytest.raises(ValueError, match="d_model"):
        wd.dimension_view(d_model=9)


def test_frequency_view_follows_d_base_and_position():
    view = wd.frequency_view()
    figure = view.figure
    left, right = figure.axes[:2]
    view.controls["d_model"].value = 8
    view.controls["position"].value = 50
    view.controls["base"].value = 100.0
    assert view.figure is figure
    row = sinusoidal_pe([50.0], 8, 100.0)[0]
    assert np.allclose(left.lines[0].get_ydata(), row[0::2])
    assert np.allclose(left.lines[1].get_ydata(), row[1::2])
    assert np.allclose(right.lines[0].get_ydata(), fd.wavelengths(8, 100.0))
    assert np.isclose(right.lines[2].get_ydata()[0], 2 * np.pi * 100)
    assert right.lines[3].get_ydata()[0] == 50
    assert "base = 100" in left.get_title()
    segments = left.collections[0].get_segments()
    assert len(segments) == 4 and np.isclose(segments[1][1][1], row[2])
    with pytest.raises(ValueError, match="position"):
        wd.frequency_view(position=0)


# --- exercises -----------------------------------------------------------------------


def _stub(*_args):
    raise NotImplementedError


def _unshuffle_right(x, order):
    s = x[order]
    return attention(s, s, s)[np.argsort(order)]


def _unshuffle_forgot(x, order):
    s = x[order]
    return attention(s, s, s)


def _unshuffle_twice(x, order):
    s = x[order]
    return attention(s, s, s)[order]


def test_check_unshuffled_attention():
    assert ex.check_unshuffled_attention(_unshuffle_right).passed
    assert ex.check_unshuffled_attention(_stub).status == "todo"
    forgot = ex.check_unshuffled_attention(_unshuffle_forgot)
    assert forgot.status == "wrong" and "still in the shuffled order" in forgot.message
    twice = ex.check_unshuffled_attention(_unshuffle_twice)
    assert twice.status == "wrong" and "second time" in twice.message


def test_check_first_input_weight():
    assert ex.check_first_input_weight(lambda a, n: a ** (n - 1)).passed
    assert ex.check_first_input_weight(_stub).status == "todo"
    off = ex.check_first_input_weight(lambda a, n: a**n)
    assert off.status == "wrong" and "off by one" in off.message
    other = ex.check_first_input_weight(lambda a, n: a / n)
    assert other.status == "wrong" and "for a =" in other.message


def test_check_steps_until_faded():
    def right(a, eps):
        n = 1
        while a ** (n - 1) >= eps:
            n += 1
        return n

    assert ex.check_steps_until_faded(right).passed
    assert ex.check_steps_until_faded(_stub).status == "todo"
    exponent = ex.check_steps_until_faded(lambda a, eps: right(a, eps) - 1)
    assert exponent.status == "wrong" and "exponent n - 1" in exponent.message
    late = ex.check_steps_until_faded(lambda a, eps: right(a, eps) + 1)
    assert late.status == "wrong" and "not the smallest" in late.message
    floaty = ex.check_steps_until_faded(lambda a, eps: float(right(a, eps)))
    assert floaty.status == "wrong" and "whole number" in floaty.message


def test_check_concat_then_project():
    def right(x, position, w, n):
        return w @ np.concatenate([x, np.eye(n)[position]])

    def off_by_one(x, position, w, n):
        return w @ np.concatenate([x, np.eye(n)[(position + 1) % n]])

    def no_position(x, position, w, n):
        return w @ np.concatenate([x, np.zeros(n)])

    assert ex.check_concat_then_project(right).passed
    assert ex.check_concat_then_project(_stub).status == "todo"
    off = ex.check_concat_then_project(off_by_one)
    assert off.status == "wrong" and "positions count from 0" in off.message
    missing = ex.check_concat_then_project(no_position)
    assert missing.status == "wrong" and "position part is missing" in missing.message


def test_check_add_position_vector():
    assert ex.check_add_position_vector(lambda x, p, wt, wp: wt @ x + wp[:, p]).passed
    assert ex.check_add_position_vector(_stub).status == "todo"
    row = ex.check_add_position_vector(lambda x, p, wt, wp: wt @ x + wp[p, : len(x)])
    assert row.status == "wrong" and "COLUMN" in row.message
    token_only = ex.check_add_position_vector(lambda x, p, wt, wp: wt @ x)
    assert token_only.status == "wrong" and "differs" in token_only.message


def test_check_fit_position_probe():
    def right(features, positions):
        design = np.column_stack([features, np.ones(len(features))])
        return np.linalg.lstsq(design, positions, rcond=None)[0]

    def no_bias(features, positions):
        return np.linalg.lstsq(features, positions, rcond=None)[0]

    def bias_first(features, positions):
        w = right(features, positions)
        return np.r_[w[-1], w[:-1]]

    assert ex.check_fit_position_probe(right).passed
    assert ex.check_fit_position_probe(_stub).status == "todo"
    assert "bias" in ex.check_fit_position_probe(no_bias).message
    assert "put the bias last" in ex.check_fit_position_probe(bias_first).message
    zeros = ex.check_fit_position_probe(lambda f, p: np.zeros(f.shape[1] + 1))
    assert zeros.status == "wrong" and "not the least-squares fit" in zeros.message


def test_check_pair_frequencies_names_the_exponent_slip():
    assert ex.check_pair_frequencies(lambda d, b: b ** (-2 * np.arange(d // 2) / d)).passed
    assert ex.check_pair_frequencies(_stub).status == "todo"
    column = ex.check_pair_frequencies(lambda d, b: b ** (-2 * np.arange(d) / d))
    assert column.status == "wrong" and column.message == ex.EXPONENT_HINT
    doubled = ex.check_pair_frequencies(lambda d, b: b ** (-4 * np.arange(d // 2) / d))
    assert doubled.message == ex.EXPONENT_HINT
    no_two = ex.check_pair_frequencies(lambda d, b: b ** (-np.arange(d // 2) / d))
    assert "k/d" in no_two.message
    flipped = ex.check_pair_frequencies(lambda d, b: b ** (2 * np.arange(d // 2) / d))
    assert "sign" in flipped.message


def _pe_row_right(t, d, b):
    return sinusoidal_pe([t], d, b)[0]


def _pe_row_column_reading(t, d, b):
    return fd.column_reading_pe([t], d, b)[0]


def _pe_row_halves(t, d, b):
    row = sinusoidal_pe([t], d, b)[0]
    return np.concatenate([row[0::2], row[1::2]])


def _pe_row_swapped(t, d, b):
    return sinusoidal_pe([t], d, b)[0].reshape(-1, 2)[:, ::-1].ravel()


def test_check_pe_row():
    assert ex.check_pe_row(_pe_row_right).passed
    assert ex.check_pe_row(_stub).status == "todo"
    assert ex.check_pe_row(_pe_row_column_reading).message == ex.EXPONENT_HINT
    assert "interleaves" in ex.check_pe_row(_pe_row_halves).message
    assert "swapped" in ex.check_pe_row(_pe_row_swapped).message
    short = ex.check_pe_row(lambda t, d, b: np.zeros(d // 2))
    assert short.status == "wrong" and "shape" in short.message


def test_check_longest_wavelength():
    assert ex.check_longest_wavelength(lambda d, b: 2 * np.pi * b ** ((d - 2) / d)).passed
    assert ex.check_longest_wavelength(_stub).status == "todo"
    bound = ex.check_longest_wavelength(lambda d, b: 2 * np.pi * b)
    assert bound.status == "wrong" and "(d - 2)/d" in bound.message
    no_pi = ex.check_longest_wavelength(lambda d, b: b ** ((d - 2) / d))
    assert no_pi.status == "wrong" and "2π" in no_pi.message
