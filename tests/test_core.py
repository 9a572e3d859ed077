"""The presentation core: figure basics, live figures and views, grading helpers."""

from __future__ import annotations

import asyncio
import base64
import gc
import io
import os
import subprocess
import sys
import textwrap
import weakref
from types import SimpleNamespace

import matplotlib as mpl
import numpy as np
import PIL.Image
import pytest
from matplotlib.axis import XAxis

from pe_helpers import figures, grading, live, views
from pe_helpers.attention import causal_mask
from pe_helpers.figures import CLASSROOM_RC, COURSE_RC, OKABE_ITO, classroom_style, heatmap
from pe_helpers.lessons import live_figures
from pe_helpers.live import LiveFigure, float_control, int_control, snapshot


class Sine(LiveFigure):
    """A test figure: a sine of adjustable frequency, with a title and a caption."""

    controls = {
        "frequency": float_control("frequency w", 1.0, 0.5, 4.0, 0.5),
        "points": int_control("points", 50, 10, 100),
    }

    def build(self, axes):
        (line,) = axes.plot([], [])
        caption = axes.text(0.02, 0.9, "", transform=axes.transAxes)
        axes.set_xlabel("t")
        axes.set_ylim(-1.1, 1.1)
        return SimpleNamespace(axes=axes, line=line, caption=caption)

    def update(self, art, frequency, points):
        t = np.linspace(0.0, 10.0, points)
        art.line.set_data(t, np.sin(frequency * t))
        art.axes.set_xlim(0.0, 10.0)
        art.axes.title.set_text(f"sin({frequency:g} t)")
        art.caption.set_text(f"{points} points")

    def moving(self, art):
        return [art.line, art.caption, art.axes.title]


# --- figure basics -----------------------------------------------------------------------------
def test_drawing_leaves_matplotlib_defaults_alone():
    before = dict(mpl.rcParams)
    heatmap(np.eye(3))
    Sine().draw()
    with classroom_style():
        heatmap(np.eye(3))
        Sine().view()
    assert dict(mpl.rcParams) == before


def test_masked_cells_get_their_own_colour_and_do_not_set_the_scale():
    scores = np.arange(25.0).reshape(5, 5) - 3.0
    ax = heatmap(np.where(causal_mask(5), scores, -np.inf))
    image = ax.images[0]
    assert image.get_clim() == (-21.0, 21.0)  # from the finite cells only
    assert image.get_array().mask.sum() == 10
    rgba = image.to_rgba(image.get_array())
    assert np.allclose(rgba[0, 1], mpl.colors.to_rgba(figures.MASKED_COLOUR))
    assert len({tuple(c) for c in rgba[np.tril(np.ones((5, 5), bool))]}) > 5


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        (lambda: heatmap(np.zeros((0, 3))), ValueError, "values"),
        (lambda: heatmap(np.zeros(3)), ValueError, "values"),
        (lambda: heatmap(np.eye(2), figsize=(1e9, 2)), ValueError, "figsize"),
        (
            lambda: figures.plot_curves([1, 2], [[1, 2]], xlabel="x", ylabel="y"),
            TypeError,
            "curves",
        ),
        (lambda: live.even_control("d", 8, 2, 64).check("d_model", 7), ValueError, "d_model"),
        (lambda: int_control("n", 5, 10, 1), ValueError, "minimum"),
        (lambda: Sine().view(freq=2.0), TypeError, "freq"),
        (lambda: live.choice_control("", ("a", "b"), "a"), TypeError, "label"),
        (lambda: live.choice_control("m", {"a", "b"}, "a"), TypeError, "options"),
        (lambda: live.choice_control("m", ("a", 2), "a"), TypeError, "options"),
        (lambda: live.choice_control("m", ("a",), "a"), ValueError, "options"),
        (lambda: live.choice_control("m", ("a", "a"), "a"), ValueError, "options"),
        (lambda: live.choice_control("m", ("a", "b"), "c"), ValueError, "default"),
    ],
)
def test_a_door_of_the_core_names_the_bad_argument(call, error, name):
    # What the fuzz test cannot build: a wrong shape, a wrong pair, odd, crossed or unknown.
    with pytest.raises(error, match=rf"\b{name}\b"):
        call()


def test_slider_ranges_come_from_the_control():
    view = Sine().view(points=20)
    slider = view.controls["points"]
    assert (slider.min, slider.max, slider.value, slider.description) == (10, 100, 20, "points")
    log = live.log_control("base", 1e4, 10.0, 1e6).widget("base", 1e4)
    assert (log.min, log.max, log.value) == (1.0, 6.0, 1e4)


def test_a_choice_is_picked_by_name_with_buttons_or_a_list():
    import ipywidgets as widgets

    dtypes = ("float64", "float32", "float16", "bfloat16")
    control = live.choice_control("dtype", dtypes, "float32")
    assert (control.kind, control.options, control.default) == ("choice", dtypes, "float32")
    assert control.check("dtype", "bfloat16") == "bfloat16"
    buttons = control.widget("dtype", "float16")
    assert isinstance(buttons, widgets.ToggleButtons)
    pairs = tuple(zip(dtypes, dtypes, strict=True))  # (shown, passed): the names themselves
    assert (buttons.options, buttons.value, buttons.description) == (pairs, "float16", "dtype")
    many = tuple(f"preset {i}" for i in range(live.MAX_TOGGLE_OPTIONS + 1))
    menu = live.choice_control("preset", many, "preset 2").widget("preset", "preset 4")
    assert isinstance(menu, widgets.Dropdown) and menu.value == "preset 4"
    assert tuple(value for _, value in menu.options) == many


# --- one definition, two forms: blitted, drawn whole or recalled ----------------------------
class Panels(LiveFigure):
    """A test figure: a sine whose x range follows ``points`` (left) beside a fixed panel.

    Past 75 points the figure's face turns grey: a change outside every panel that comes
    with a step of the left x range, as the contract of ``moving`` allows.
    """

    controls = Sine.controls
    layout = live.side_by_side()

    def build(self, axes):
        left, right = axes
        (line,) = left.plot([], [])
        (ramp,) = right.plot([0.0, 1.0], [0.0, 0.0], label="ramp")
        left.set_ylim(-1.1, 1.1)
        right.set_ylim(-4.5, 4.5)
        right.legend(loc="upper left")
        return SimpleNamespace(left=left, right=right, line=line, ramp=ramp)

    def update(self, art, frequency, points):
        t = np.linspace(0.0, points / 10, points)
        art.line.set_data(t, np.sin(frequency * t))
        art.left.set_xlim(0.0, points / 10)
        art.ramp.set_ydata([0.0, frequency])
        art.right.title.set_text(f"ramp to {frequency:g}")
        art.left.figure.patch.set_facecolor("0.8" if points > 75 else "white")

    def moving(self, art):
        return [art.line, art.ramp, art.right.title]


def _is_a_full_redraw(view) -> bool:
    picture = view.image.value
    view.refresh(afresh=True)
    return view.image.value == picture


def test_a_step_that_moves_a_limit_draws_everything_and_one_that_keeps_them_blits():
    view = Panels().view()
    view.controls["points"].value = 60  # the left x range moves: the whole figure is drawn
    assert (view.renders, view.blits) == (2, 0)
    assert _is_a_full_redraw(view)  # (a render too)
    view.controls["frequency"].value = 3.0  # every limit stays: blitted
    assert (view.renders, view.blits) == (4, 1)
    assert _is_a_full_redraw(view)
    view.controls["points"].value = 80  # the face turns grey with the limits: drawn, not blitted
    assert (view.renders, view.blits) == (6, 1)
    assert _is_a_full_redraw(view)
    assert snapshot(view.figure) == snapshot(Panels().draw(frequency=3.0, points=80))


class Stretch(LiveFigure):
    """A test figure: a sine whose x range follows ``points``, its x axis listed as rescaled."""

    controls = Sine.controls

    def build(self, axes):
        (line,) = axes.plot([], [])
        axes.set_ylim(-1.1, 1.1)
        return SimpleNamespace(axes=axes, line=line)

    def update(self, art, frequency, points):
        t = np.linspace(0.0, points / 10, points)
        art.line.set_data(t, np.sin(frequency * t))
        art.axes.set_xlim(0.0, points / 10)
        art.axes.set_xlabel("time" if points < 90 else "time (long)")

    def moving(self, art):
        return [art.line]

    def rescaled(self, art):
        return [art.axes.xaxis]


def test_a_step_that_moves_only_a_rescaled_axis_blits_and_draws_it_only_then(monkeypatch):
    view = Stretch().view()
    drawn = []
    draw = XAxis.draw

    def counted(axis, renderer):
        drawn.append(axis)
        draw(axis, renderer)

    monkeypatch.setattr(XAxis, "draw", counted)
    view.controls["points"].value = 60  # the x range moves, and the axis with it: blitted
    assert (view.renders, view.blits, len(drawn)) == (2, 1, 1)
    assert view.figure.axes[0].get_xlim() == (0.0, 6.0)
    view.controls["frequency"].value = 3.0  # the axis shows what it showed: not drawn again
    assert (view.renders, view.blits, len(drawn)) == (3, 2, 1)
    view.controls["points"].value = 95  # a new label: drawn again
    assert (view.renders, view.blits, len(drawn)) == (4, 3, 2)
    assert _is_a_full_redraw(view)
    assert snapshot(view.figure) == snapshot(Stretch().draw(frequency=3.0, points=95))
    view.controls["points"].value = 70
    assert _is_a_full_redraw(view)
    view.close()


def test_a_view_keeps_each_x_label_where_its_first_draw_put_it():
    # Laid out once: a draw does not search for the label's place again.
    view = Stretch().view()
    label = view.figure.axes[0].xaxis.label
    where = label.get_window_extent().bounds
    view.figure.axes[0].tick_params(axis="x", labelsize=30)  # taller tick labels
    view.refresh(afresh=True)
    assert label.get_window_extent().bounds == where
    view.close()


class SquareStretch(Stretch):
    """Stretch with square units: its box follows its x range."""

    def build(self, axes):
        axes.set_aspect("equal")
        return super().build(axes)


def test_an_x_label_under_a_box_of_fixed_aspect_still_follows_it():
    view = SquareStretch().view(points=20)
    label = view.figure.axes[0].xaxis.label
    before = label.get_window_extent().y1
    view.controls["points"].value = 80  # a wider x range: a shorter box, its label higher
    view.refresh(afresh=True)
    assert label.get_window_extent().y1 > before + 5
    view.close()


def test_a_view_replaces_no_method_of_any_artist():
    # Public matplotlib only: a view draws each artist the way matplotlib does.
    view = Panels().view()
    view.controls["points"].value = 60
    view.controls["frequency"].value = 3.0
    for ax in view.figure.axes:
        for artist in (ax, ax.xaxis, ax.yaxis, ax.get_legend(), ax.title, *ax.lines):
            if artist is not None:
                assert not [name for name in vars(artist) if callable(vars(artist)[name])
                            and name in dir(type(artist))], artist  # fmt: skip


def test_a_step_back_to_values_already_drawn_shows_their_picture_without_drawing():
    view = Sine().view()
    first = view.image.value
    view.controls["frequency"].value = 2.0  # blitted
    second = view.image.value
    view.controls["frequency"].value = 1.0
    assert (view.renders, view.recalled) == (2, 1) and view.image.value == first
    assert snapshot(view.figure) == snapshot(Sine().draw())  # the figure follows the values
    view.controls["frequency"].value = 2.0
    assert (view.renders, view.recalled) == (2, 2) and view.image.value == second
    view.controls["frequency"].value = 3.0  # the limits of the last full draw: blitted
    assert (view.renders, view.blits) == (3, 2) and _is_a_full_redraw(view)


def test_a_view_keeps_its_latest_pictures_up_to_a_byte_budget(monkeypatch):
    view = Sine().view()
    monkeypatch.setattr(view, "PICTURE_BYTES", 2.5 * len(view.image.value))
    for frequency in (1.5, 2.0, 2.5, 3.0):
        view.controls["frequency"].value = frequency
    kept = [dict(key)["frequency"] for key in view._pictures]
    assert kept[-1] == 3.0 and 1.0 not in kept and len(kept) < 5  # the oldest went first
    assert sum(map(len, view._pictures.values())) <= view.PICTURE_BYTES
    view.controls["frequency"].value = 1.0  # forgotten: drawn again
    assert view.recalled == 0 and view.renders == 6


def test_live_pictures_are_lossless_pngs_of_the_agg_buffer():
    view = Sine().view(frequency=3.5)
    picture = PIL.Image.open(io.BytesIO(view.image.value))
    picture.verify()  # chunk CRCs and zlib stream
    picture = PIL.Image.open(io.BytesIO(view.image.value))
    assert picture.mode == "RGB"
    agg = np.asarray(view.figure.canvas.buffer_rgba())[..., :3]
    assert np.array_equal(np.asarray(picture), agg)


def test_projector_mode_reaches_static_and_live_figures_and_survives_steps():
    with classroom_style():
        static = Sine().draw()
        view = Sine().view()
    view.controls["frequency"].value = 2.0
    for figure in (static, view.figure):
        ax = figure.axes[0]
        assert ax.title.get_fontsize() == CLASSROOM_RC["axes.titlesize"]
        assert ax.lines[0].get_linewidth() == CLASSROOM_RC["lines.linewidth"]
    assert Sine().draw().axes[0].title.get_fontsize() == COURSE_RC["axes.titlesize"]


def test_a_step_pins_the_cycle_colours_and_tick_sizes_of_the_style_it_was_built_in():
    class Marked(Sine):
        def update(self, art, frequency, points):
            super().update(art, frequency, points)
            art.line.set_color(f"C{int(2 * frequency) % 3}")  # a cycle colour, set on a step
            art.axes.set_xlim(0.0, 10.0 * frequency)  # new ticks are made at the next draw

    with classroom_style():
        view = Marked().view()
    view.controls["frequency"].value = 4.0  # run outside projector mode: its settings still hold
    assert view.figure.axes[0].lines[0].get_color() == OKABE_ITO[2].lower()
    ticks = view.figure.axes[0].xaxis.get_ticklabels()
    assert len(ticks) > 3
    assert {label.get_fontsize() for label in ticks} == {CLASSROOM_RC["xtick.labelsize"]}


def test_one_layout_gives_both_forms_their_size_and_panels():
    class Pair(Sine):
        layout = live.side_by_side(width_ratios=(2.0, 1.0), figsize=(8.0, 3.0))

        def build(self, axes):
            left, right = axes
            return super().build(left)

    for figure in (Pair().draw(), Pair().view().figure):
        assert tuple(figure.get_size_inches()) == (8.0, 3.0)
        left, right = figure.axes
        assert left.get_position().width > 1.5 * right.get_position().width
    assert tuple(Sine().draw().get_size_inches()) == figures.FIGSIZE


def test_the_core_imports_no_lesson_and_finds_the_lessons_figures_without_the_notebooks(
    monkeypatch, tmp_path
):
    code = (
        "import sys, pe_helpers.figures, pe_helpers.grading, pe_helpers.live, pe_helpers.views\n"
        "print(any(name.startswith('pe_helpers.lessons') for name in sys.modules))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "MPLBACKEND": "Agg"},
        check=True,
    )
    assert run.stdout.split() == ["False"]
    from pe_helpers import lessons

    # An installed copy of the package: no notebooks beside it.
    monkeypatch.setattr(lessons, "NOTEBOOKS", tmp_path / "notebooks")
    assert {"AlibiHeads", "PEOverview"} <= {cls.__name__ for cls in lessons.live_figures()}
    with pytest.raises(FileNotFoundError, match="folder"):
        lessons.lessons()


def test_ipywidgets_is_loaded_with_the_first_slider_not_with_the_package():
    # A solutions notebook (checkers, static figures) never needs it: about 0.2 s a kernel.
    code = (
        "import sys, pe_helpers, pe_helpers.live, pe_helpers.lessons.position_methods\n"
        "print('ipywidgets' in sys.modules)\n"
        "pe_helpers.lessons.position_methods.AlibiHeads().view()\n"
        "print('ipywidgets' in sys.modules)"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "MPLBACKEND": "Agg"},
        check=True,
    )
    assert run.stdout.split() == ["False", "True"]


def test_slider_moves_from_the_browser_are_drawn_after_the_handler_latest_values_last(
    monkeypatch,
):
    # In a kernel, a value from the browser is drawn once the comm handler has returned
    # (the browser then sends its next value during the render); values that pile up are
    # drawn once, at their latest. Here the kernel's loop is asyncio.run's.
    monkeypatch.setattr(views, "_front_end_loop", asyncio.get_running_loop)

    async def drag():
        view = Sine().view()
        slider = view.controls["frequency"]
        for value in (1.5, 2.0, 2.5):
            slider.value = value
        assert view.renders == 1  # nothing drawn inside the handlers
        await asyncio.sleep(0)
        assert view.renders == 2 and view.figure.axes[0].get_title() == "sin(2.5 t)"
        slider.value = 3.0
        view.controls["points"].value = 70
        await asyncio.sleep(0)
        assert view.renders == 3
        return view

    view = asyncio.run(drag())
    assert snapshot(view.figure) == snapshot(Sine().draw(frequency=3.0, points=70))
    assert view.image.value == Sine().view(frequency=3.0, points=70).image.value


_KERNEL_DRAG = """
    import threading, time
    from types import SimpleNamespace
    from pe_helpers import views
    from pe_helpers.live import LiveFigure, float_control, snapshot

    class Line(LiveFigure):
        controls = {"slope": float_control("slope", 0.0, -2.0, 2.0, 0.1)}
        def build(self, axes):
            (line,) = axes.plot([0.0, 1.0], [0.0, 0.0])
            axes.set_ylim(-2, 2)
            return SimpleNamespace(axes=axes, line=line)
        def update(self, art, slope):
            art.line.set_ydata([0.0, slope])
            art.axes.title.set_text(f"slope {slope:g}")
        def moving(self, art):
            return [art.line, art.axes.title]

    view = Line().view()
    deferred, drawing, busy, overlaps = [], [], [], []
    front_end_loop, update = views._front_end_loop, view._update
    def spy_loop():
        deferred.append(front_end_loop() is not None)
        return front_end_loop()
    def spy_update(**values):
        drawing.append(threading.current_thread().name)
        busy.append(1)
        overlaps.append(len(busy) > 1)  # two renders of one figure at once
        time.sleep(0.02)  # a render takes time: messages arrive meanwhile
        try:
            update(**values)
        finally:
            busy.pop()
    views._front_end_loop, view._update = spy_loop, spy_update
    print(view.controls["slope"].model_id)
"""


def test_a_drag_in_a_real_kernel_ends_on_its_last_value(tmp_path):
    # Slider moves as JupyterLab 4.6 sends them: comm_msg updates addressed to a subshell, each
    # sent once the kernel is idle after the one before (ipywidgets' one message in flight).
    # ipykernel 7 hands the first to the main thread (where the comm last spoke) and the rest
    # to the subshell's thread, so renders may start on two threads.
    jupyter_client = pytest.importorskip("jupyter_client")
    manager = jupyter_client.KernelManager(kernel_name="python3")
    manager.start_kernel(extra_arguments=[], cwd=str(tmp_path))
    client = manager.blocking_client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=60)
        outputs = []

        def run(code):
            reply = client.execute_interactive(
                textwrap.dedent(code), timeout=60,
                output_hook=lambda m: outputs.append(m["content"].get("text", "")),
            )  # fmt: skip
            assert reply["content"]["status"] == "ok", reply["content"]
            return "".join(outputs).strip()

        comm_id = run(_KERNEL_DRAG)
        client.control_channel.send(client.session.msg("create_subshell_request", {}))
        subshell = client.get_control_msg(timeout=30)["content"].get("subshell_id")
        values = [round(0.1 * i, 1) for i in range(1, 16)]
        for value in values:
            msg = client.session.msg(
                "comm_msg",
                {
                    "comm_id": comm_id,
                    "data": {"method": "update", "state": {"value": value}, "buffer_paths": []},
                },
            )
            msg["header"]["subshell_id"] = subshell
            client.shell_channel.send(msg)
            while True:
                reply = client.get_iopub_msg(timeout=30)
                if (
                    reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]
                    and reply["content"].get("execution_state") == "idle"
                ):
                    break
        outputs.clear()
        result = run("""
            deadline = time.monotonic() + 30
            while view.figure.axes[0].get_title() != "slope 1.5" and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(0.5)  # a stale render would land now
            fresh = Line().view(slope=1.5)
            print(view.controls["slope"].value, any(deferred), not any(overlaps),
                  snapshot(view.figure) == snapshot(Line().draw(slope=1.5)),
                  view.image.value == fresh.image.value)
        """)
        assert result == "1.5 True True True True", result
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


# --- views are freed ---------------------------------------------------------------------------
def test_closing_a_view_frees_it_and_twenty_rebuilds_leave_no_widget_nor_memory_behind():
    import tracemalloc

    view = Sine().view()
    figure = weakref.ref(view.figure)
    view.close()
    gc.collect()
    assert figure() is None
    view.refresh()  # a closed view ignores late events

    from ipywidgets.widgets import widget

    def rebuild() -> None:
        view = Sine().view(frequency=2.0)
        view.controls["frequency"].value = 3.0
        view.close()

    rebuild()  # first use: imports, caches and fonts
    gc.collect()
    registered = set(widget._instances)
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    for _ in range(20):
        rebuild()
    gc.collect()
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    assert set(widget._instances) == registered  # every slider, style and layout closed
    grown = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    assert grown < 2**20, f"20 rebuilds kept {grown / 2**20:.2f} MB"


def test_a_view_carries_its_picture_and_a_summary_for_places_without_a_kernel():
    view = Sine().view(frequency=2.0)
    data, metadata = view._repr_mimebundle_()
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == view.model_id
    assert base64.b64decode(data["image/png"]) == view.first_picture == view.image.value
    assert data["text/plain"] == "Sine with controls: frequency w = 2, points = 50"
    assert metadata == {
        "pe_helpers": {"figure": f"{Sine.__module__}.Sine", "values": Sine().values(frequency=2.0)}
    }
    view.controls["frequency"].value = 3.0  # the stored picture stays the starting one
    assert base64.b64decode(view._repr_mimebundle_()[0]["image/png"]) == view.first_picture
    view.close()


@pytest.mark.parametrize("known_by", ["cell id", "code"])
def test_re_running_a_cell_closes_the_view_it_made_before(monkeypatch, known_by):
    cell = {"now": "cell-1"}
    if known_by == "cell id":
        monkeypatch.setattr(live, "_cell_id", lambda: cell["now"])
    else:  # no cell id (nbclient, nbval): the cell's code tells the cells apart

        def parent(channel):
            return {"metadata": {}, "content": {"code": cell["now"]}}

        kernel = SimpleNamespace(get_parent=parent)
        monkeypatch.setattr("IPython.get_ipython", lambda: SimpleNamespace(kernel=kernel))
    first = Sine().view()
    figure = weakref.ref(first.figure)
    second = Sine().view()
    gc.collect()
    assert figure() is None and first.figure is None
    assert second.figure is not None
    cell["now"] = "cell-2"
    other_cell = Sine().view()
    assert second.figure is not None and other_cell.figure is not None


# --- grading -----------------------------------------------------------------------------------
def _is_quarter(answer):
    return None if grading.as_number(grading.value_of(answer)) == 0.25 else "not 0.25"


@pytest.mark.parametrize(
    ("answer", "status", "message"),
    [
        (np.array([0.25]), "correct", "correct"),
        (np.float32(0.25), "correct", "correct"),
        (lambda: 0.25, "correct", "correct"),
        (float("inf"), "wrong", "your answer is inf"),
        ("0.25", "wrong", "is text"),  # 0.25, None and nan: grade's doctest
        (True, "wrong", "must be a number, got bool"),
        (np.array([0.25, 0.5]), "wrong", "must be one number"),
        (1j, "wrong", "must be a number, got complex"),
    ],
)
def test_number_answers(answer, status, message):
    feedback = grading.grade("quarter", answer, [_is_quarter], "a quarter")
    assert feedback.status == status
    assert message in feedback.message


def test_a_learners_function_runs_once_per_case_on_copies():
    calls = []

    def doubled_in_place(x):
        calls.append(1)
        x *= 2  # mutates its argument: the checker's own array must not change
        return x

    data = np.arange(3.0)

    def twice(attempt):
        first, again = attempt(data), attempt(data)
        return None if np.allclose(first, 2 * data) and np.allclose(again, first) else "no"

    assert grading.grade("double", doubled_in_place, [twice, twice], "x").passed
    assert len(calls) == 1
    assert np.array_equal(data, np.arange(3.0))


def test_errors_become_feedback_and_say_whose_they_are():
    def crashes(x):
        raise ZeroDivisionError("oops")

    def uses(attempt):
        attempt(1.0)

    feedback = grading.grade("f", crashes, [uses], "h", call=(1.0,))
    assert feedback.message == "your function raised ZeroDivisionError: oops"

    def checker_trips(answer):
        return np.asarray(answer) + "x"

    feedback = grading.grade("g", 1.0, [checker_trips], "h")
    assert feedback.status == "wrong" and feedback.message.startswith("this answer could not")

    def stub(x):
        raise NotImplementedError

    assert grading.grade("s", stub, [uses], "h", call=(1.0,)).status == "todo"


def test_tolerances_follow_the_answer_dtype():
    # float32 within its tolerance, float64 not: close's doctest
    assert grading.tolerance(np.zeros(1, np.float16)) == 2e-3
    with pytest.raises(grading.AnswerProblem, match="ragged"):
        grading.as_array([[1, 2], [3]])
    assert grading.as_pair([np.eye(2), np.eye(2)])[0].shape == (2, 2)
    # a learner's number keeps its precision when asked to, and is a plain float otherwise
    assert grading.as_number(np.array([0.25], np.float16), keep_dtype=True).dtype == np.float16
    assert type(grading.as_number(2, keep_dtype=True)) is np.float64
    assert type(grading.as_number(np.float32(2.0))) is float


@pytest.mark.parametrize("reader", ["as_number", "as_integer", "as_array", "as_pair"])
def test_an_answer_reader_turns_any_bad_answer_into_feedback(reader):
    # The readers are the doors of a learner's answer: whatever it is, AnswerProblem or a value.
    bad = [None, np.nan, -np.inf, 10**400, "0.25", np.array(["1"]), [[1.0], [1.0, 2.0]], True,
           1 + 2j, object(), np.array([]), [2, 10**400]]  # fmt: skip
    for answer in bad:
        try:
            got = getattr(grading, reader)(answer)
        except grading.AnswerProblem as problem:
            assert "object at 0x" not in str(problem), problem
        else:
            assert reader == "as_pair" or np.all(np.isfinite(got)), (answer, got)


def test_a_reference_check_stops_at_the_first_case_that_differs_and_names_its_slip():
    tried = []

    def reference(n):
        tried.append(n)
        return np.arange(n) / 3

    def slip(got, want, n):
        return f"wrong for n = {n}"

    def rounded(n):
        return np.round(np.arange(n) / 3, 12 if n < 4 else 2)

    exact = grading.agrees_on(reference, [(2,), (5,), (9,)], lambda n: f"n = {n}", slip)
    near = grading.agrees_on(reference, [(2,), (5,)], lambda n: f"n = {n}", slip, scale=1.0)
    assert grading.grade("thirds", rounded, [exact], "h").message == "wrong for n = 2"
    assert grading.grade("thirds", rounded, [near], "h").message == "wrong for n = 5"
    assert tried == [2, 2, 5]
    short = grading.grade("thirds", lambda n: np.zeros(1), [near], "h")
    assert short.message == "n = 2 must have shape (2,), got (1,)."


# --- every lesson figure -----------------------------------------------------------------------
def _other_values(control) -> list:
    """Values of ``control`` away from its default: every other option of a choice, else the
    slider's maximum (or its minimum if the default is the maximum)."""
    if control.kind == "choice":
        return [option for option in control.options if option != control.default]
    value = control.minimum if control.default == control.maximum else control.maximum
    return [int(value) if control.kind in ("int", "even") else value]


@pytest.mark.parametrize("figure_class", live_figures(), ids=lambda c: c.__name__)
def test_every_live_view_equals_its_static_figure_at_every_step(figure_class):
    view = figure_class().view()
    assert snapshot(view.figure) == snapshot(figure_class().draw()), "first frame"
    values = dict(view.values())
    for name, control in figure_class.controls.items():
        for value in _other_values(control):
            view.controls[name].value = value
            values[name] = view.controls[name].value
            assert snapshot(view.figure) == snapshot(figure_class().draw(**values)), (name, value)
    view.close()


@pytest.mark.parametrize("figure_class", live_figures(), ids=lambda c: c.__name__)
def test_every_live_view_pictures_each_step_as_a_full_redraw_would(figure_class):
    # Each control away (through every option of a choice) and back: blitted, drawn whole or
    # recalled; the picture must be the one a draw of every artist gives.
    view = figure_class().view()
    for name, control in figure_class.controls.items():
        for value in (*_other_values(control), control.default):
            view.controls[name].value = value
            assert _is_a_full_redraw(view), (name, value)
    view.close()


def test_snapshots_of_figures_with_nan_cells_compare_equal():
    scores = np.where(causal_mask(4), np.arange(16.0).reshape(4, 4), np.nan)
    assert snapshot(heatmap(scores).figure) == snapshot(heatmap(scores).figure)
    assert snapshot(heatmap(scores).figure) != snapshot(heatmap(scores + 1).figure)
