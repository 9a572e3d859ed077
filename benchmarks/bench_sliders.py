"""Benchmark: kernel-side time of one slider step for every live figure of every lesson.

A step is ``control.value = v``: the observer recomputes the data, updates the
figure's artists and renders the PNG bytes the browser receives. The floor is
the same figure with a bare ``set_data``/``set_ydata`` on one artist, a full Agg
draw and a default ``savefig`` PNG encode. Prints ``name: value (ratio to floor)``.
The sweep comes back over its values, and a view shows a picture it already drew without
drawing it again: each step line also gives the median of the steps that were drawn.
"""

from __future__ import annotations

import io
import time

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
from matplotlib.image import AxesImage  # noqa: E402

from pe_helpers.lessons import live_figures  # noqa: E402

STEPS = 30


def step_values(control, steps: int) -> list:
    """Values that sweep the slider back and forth around its start, all different in turn.

    A choice (buttons or a drop-down list) steps through its options from the one it shows,
    and back, as often as ``steps`` allows.
    """
    if not hasattr(control, "min"):
        # a choice that shows display names holds (name, value) pairs
        options = [o[1] if isinstance(o, tuple) else o for o in control.options]
        start = options.index(control.value)
        sweep = options[start:] + options[:start]
        sweep = [*sweep[1:], *sweep[-2::-1]]  # on through the options, then back to the start
        return (sweep * (steps // len(sweep) + 1))[:steps]
    low, high, step = control.min, control.max, control.step
    start = control.value
    span = max(step, min(high - low, 10 * step))
    sweep = np.linspace(max(low, start - span / 2), min(high, start + span / 2), steps // 2)
    values = [*sweep, *sweep[::-1]]
    if isinstance(control.value, int):
        values = [int(round(v / step) * step) for v in values]
    return values


def median_step(view, name: str) -> tuple[float, float]:
    """Median time of a step, and of the steps that drew (not shown again from a picture)."""
    control = view.controls[name]
    values = step_values(control, STEPS)
    times, drawn = [], []
    previous = control.value
    for value in values:
        if value == previous:
            continue
        renders = view.renders
        start = time.perf_counter()
        control.value = value
        times.append(time.perf_counter() - start)
        if view.renders > renders:
            drawn.append(times[-1])
        previous = value
    return float(np.median(times)), float(np.median(drawn))


def floor_step(figure) -> float:
    """set_data on one artist, full Agg draw, PNG encode: median over STEPS."""
    artists = []
    for ax in figure.axes:
        artists += [a for a in ax.images if isinstance(a, AxesImage)] + list(ax.lines)
    artist = artists[0]
    if isinstance(artist, AxesImage):
        data = np.asarray(artist.get_array())

        def bare(i):
            artist.set_data(data if i % 2 else data[::-1])

    else:
        y = np.asarray(artist.get_ydata(), dtype=float)

        def bare(i):
            artist.set_ydata(y if i % 2 else y[::-1])

    times = []
    for i in range(STEPS):
        start = time.perf_counter()
        bare(i)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png")
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main() -> None:
    worst = worst_drawn = 0.0
    for figure_class in live_figures():
        # the lesson's slug: pe_helpers.lessons.<slug> or pe_helpers.lessons.<slug>.figures
        view_name = f"{figure_class.__module__.split('.')[2]}.{figure_class.__name__}"
        view = figure_class().view()
        floor = floor_step(view.figure)
        print(f"{view_name} floor (set_data + draw + PNG): {floor * 1e3:.1f} ms (1.00x)")
        for control in view.controls:
            step, drawn = median_step(view, control)
            worst, worst_drawn = max(worst, step / floor), max(worst_drawn, drawn / floor)
            print(
                f"{view_name} step '{control}': {step * 1e3:.1f} ms ({step / floor:.2f}x floor);"
                f" drawn steps {drawn * 1e3:.1f} ms ({drawn / floor:.2f}x)"
            )
    print(
        f"worst slider step: {worst:.2f}x floor, of the drawn steps {worst_drawn:.2f}x"
        " (target: worst step <= 0.60x)"
    )


if __name__ == "__main__":
    main()
