"""The slider form of a live figure: sliders above an ``ipywidgets.Image`` of the figure.

:meth:`pe_helpers.live.LiveFigure.view` builds the figure once, off pyplot, and hands it
here with its sliders and its ``update``. Why an ``ipywidgets.Image`` and not ``interact`` +
Output: the figure is never rebuilt on a step, nothing depends on the notebook's matplotlib
backend, the PNG is written straight from the Agg buffer, and when a step leaves every axes
limit alone only the artists listed by ``moving`` are redrawn over a cached background.
When limits do change, every panel, axis and legend whose inputs stayed is pasted from the
pixels it drew last time (:class:`_PixelCache`), so only what moved is laid out again.
A slider moved in the browser is drawn just after its message handler returns, so the next
value travels while this one is drawn.
"""

from __future__ import annotations

import asyncio
import functools
import struct
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence

import ipywidgets as widgets
import matplotlib as mpl
import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.legend import Legend

__all__ = ["InteractiveView"]


def _png_chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def _encode_png(figure: Figure) -> bytes:
    """The figure's Agg buffer as an 8-bit RGB PNG, lossless.

    Every row is stored with PNG's "Up" filter (its difference from the row above, one numpy
    subtraction) and deflated at zlib level 1. PIL at ``compress_level=1`` gives files of the
    same size but picks a filter row by row, which took twice as long (measured on the
    course's live figures: 11-14 ms against 5-8 ms a frame for 880 x 360 pixels).
    """
    rgba = np.asarray(figure.canvas.buffer_rgba())
    height, width = rgba.shape[:2]
    rgb = rgba[..., :3].reshape(height, 3 * width)
    rows = np.empty((height, 1 + 3 * width), np.uint8)
    rows[:, 0] = 2  # filter type "Up"
    rows[0, 1:] = rgb[0]
    np.subtract(rgb[1:], rgb[:-1], out=rows[1:, 1:])  # uint8: wraps modulo 256, as PNG asks
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", zlib.compress(rows, 1))
        + _png_chunk(b"IEND", b"")
    )


class _PixelCache:
    """What each panel, axis and legend drew last time, pasted back while its inputs stay.

    A cached artist's draw is recorded as the rectangle of the Agg buffer it changed (grown
    by :attr:`PAD` pixels, and for a panel its whole box, whose white patch changes nothing
    on a white figure), with the pixels there before and after. On a later draw with the
    same inputs (:meth:`key`) over the same pixels, the "after" pixels are pasted instead:
    drawing is deterministic, so the picture is the one a real draw would give, and a draw
    over anything else simply draws again. The inputs are, by the contract of ``moving``,
    a panel's limits (its artists that change otherwise are moving, so never part of its
    draw), an axis's own limits and a legend's texts (a legend placed "best" is never
    cached: its place follows the data); with, for each, its place, scale and visibility.
    """

    #: Pixels added around what a draw changed: antialiased edges may touch a pixel without
    #: changing it.
    PAD = 2

    def __init__(self, figure: Figure, moving: Sequence[Artist]) -> None:
        self.figure = figure
        self.entries: dict[Artist, tuple] = {}
        #: How many draws were replaced by their pixels.
        self.reused = 0
        #: Whether an axis that is drawn places and measures its ticks once (else as
        #: matplotlib does, twice).
        self.ticks_once = True
        # Before 3.11 an Axes draws its animated images too: such a panel is never cached.
        old = mpl.__version_info__ < (3, 11)
        images = {a.axes for a in moving if old and isinstance(a, AxesImage)}
        for ax in figure.axes:
            legend = ax.get_legend()
            for artist in (ax, ax.xaxis, ax.yaxis, legend):
                if artist is not None and artist not in moving and artist not in images:
                    artist.draw = functools.partial(self._draw, artist, artist.draw)

    @staticmethod
    def key(artist: Artist) -> tuple | None:
        """What ``artist``'s pixels depend on; None when that is not known (never cached)."""
        if isinstance(artist, Axis):
            return (artist.get_visible(), artist.get_scale(), tuple(artist.get_view_interval()),
                    artist.axes.bbox.bounds)
        if isinstance(artist, Legend):
            if artist._loc == 0:  # "best": placed by the data
                return None
            return (artist.get_visible(), artist.axes.bbox.bounds, artist.get_title().get_text(),
                    *(text.get_text() for text in artist.get_texts()))
        return (artist.get_visible(), artist.axison, artist.get_xscale(), artist.get_yscale(),
                artist.get_xlim(), artist.get_ylim(), artist.bbox.bounds)

    def _draw(self, artist: Artist, draw: Callable, renderer) -> None:
        canvas = self.figure.canvas
        if canvas.is_saving() or renderer is not getattr(canvas, "renderer", None):
            return draw(renderer)  # savefig, or another renderer: a plain draw
        key = self.key(artist)
        if key is None:
            return draw(renderer)  # a legend placed by the data: never kept
        pixels = np.asarray(renderer.buffer_rgba()).view(np.uint32)[..., 0]
        entry = self.entries.get(artist)
        if entry is not None and entry[0] == (key, pixels.shape):
            _, where, before, after = entry
            if np.array_equal(pixels[where], before):
                pixels[where] = after
                self.reused += 1
                return None
        old = pixels.copy()
        if isinstance(artist, Axis) and self.ticks_once:
            _draw_ticks_once(artist, draw, renderer)
        else:
            draw(renderer)
        height, width = pixels.shape
        changed = pixels != old
        rows, cols = changed.any(1).nonzero()[0], changed.any(0).nonzero()[0]
        box = [cols[0], rows[0], cols[-1] + 1, rows[-1] + 1] if rows.size else [width, height, 0, 0]
        if isinstance(artist, Axes):  # its patch changes nothing where it is the figure's colour
            x0, y0, x1, y1 = artist.bbox.extents
            box = [min(box[0], int(x0)), min(box[1], int(height - y1)),
                   max(box[2], int(x1) + 1), max(box[3], int(height - y0) + 1)]
        pad = self.PAD
        where = (slice(max(box[1] - pad, 0), max(min(box[3] + pad, height), 0)),
                 slice(max(box[0] - pad, 0), max(min(box[2] + pad, width), 0)))
        self.entries[artist] = ((key, pixels.shape), where, old[where].copy(), pixels[where].copy())
        return None


def _draw_ticks_once(axis: Axis, draw: Callable, renderer) -> None:
    """Draw ``axis`` placing and measuring its ticks once.

    ``Axis.draw`` places its ticks (locator, formatter, positions) and measures their labels,
    draws them, then does both again to move the axis label clear of them; nothing changes
    in between, so the second time returns the first result.
    """
    ticks = axis._update_ticks()
    measure = axis._get_ticklabel_bboxes
    measured = measure(ticks, renderer)

    def measure_once(some_ticks: list, some_renderer) -> tuple:
        if some_ticks is ticks and some_renderer is renderer:
            return measured
        return measure(some_ticks, some_renderer)

    axis._update_ticks = lambda: ticks
    axis._get_ticklabel_bboxes = measure_once
    try:
        draw(renderer)
    finally:
        del axis._update_ticks, axis._get_ticklabel_bboxes


class InteractiveView(widgets.VBox):
    """Sliders above a live figure.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The figure, built once (not through pyplot, so it is never displayed twice) and
        already showing the controls' starting values: it is the first picture as it is.
    controls : mapping of str to ipywidgets.ValueWidget
        The sliders, by the keyword they feed to ``update``.
    update : callable
        ``update(**values)`` changes the figure's artists in place, the same way for the same
        values: the last pictures are kept by values (:attr:`PICTURE_BYTES`), and a step back
        to values already drawn shows its picture again without drawing.
    moving : sequence of matplotlib artists, optional
        Every artist ``update`` may change while the limits of its Axes stay. When given,
        a step that leaves all limits alone redraws only these artists over a cached
        picture of the rest (blitting); any other step draws the rest again, pasting the
        pixels of each panel, axis and legend whose inputs stayed (:class:`_PixelCache`),
        then the moving artists. Without it every step redraws everything.

    Attributes
    ----------
    figure, controls, image : the figure, the sliders, the ``ipywidgets.Image``.
    renders : int
        Number of times the figure was rendered (1 after construction).
    blits : int
        How many of those renders redrew only the moving artists.
    reused : int
        How many panel, axis and legend draws were pasted from their last pixels.
    recalled : int
        How many steps showed a kept picture instead of rendering.
    """

    #: Bytes of PNG pictures kept per view (a picture is 20-80 kB).
    PICTURE_BYTES = 8 * 2**20

    def __init__(
        self,
        figure: Figure,
        controls: Mapping[str, widgets.ValueWidget],
        update: Callable[..., None],
        moving: Sequence[Artist] = (),
    ) -> None:
        self.figure = figure
        self.controls = dict(controls)
        self._update = update
        self._moving = list(moving)
        self._background = None
        self._scheduled = False
        # Held while the figure changes: ipykernel may handle slider messages on a subshell
        # thread while a cell runs on the main one, and one figure must not be drawn twice at once.
        self._drawing = threading.RLock()
        self.renders = 0
        self.blits = 0
        self.recalled = 0
        self._pictures: OrderedDict[tuple, bytes] = OrderedDict()
        if not isinstance(figure.canvas, FigureCanvasAgg):
            FigureCanvasAgg(figure)
        for artist in self._moving:
            artist.set_animated(True)
        self._pixels = _PixelCache(figure, self._moving) if self._moving else None
        self.image = widgets.Image(format="png", layout=widgets.Layout(max_width="100%"))
        super().__init__(children=[*self.controls.values(), self.image])
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        self._first_picture()

    def _first_picture(self) -> None:
        # The figure shows the starting values already, so the draw that lays it out is the
        # first picture. The layout is then frozen: a layout engine costs a full extra pass on
        # every draw, and placing a panel's titles lays out its y axis once more.
        self._draw(everything=True, key=tuple(self.values().items()))
        self.figure.set_layout_engine("none")
        self._place_titles(auto=False)

    def _place_titles(self, auto: bool) -> None:
        # False is what Axes.set_title(y=...) sets: the titles stay where they are.
        for ax in self.figure.axes:
            ax._autotitlepos = None if auto else False

    def values(self) -> dict[str, object]:
        """Current value of every control, by name."""
        return {name: control.value for name, control in self.controls.items()}

    def _limits(self) -> list:
        return [(ax.get_xlim(), ax.get_ylim()) for ax in self.figure.axes]

    @property
    def reused(self) -> int:
        return 0 if self._pixels is None else self._pixels.reused

    def refresh(self, afresh: bool = False) -> None:
        """Apply the current slider values to the figure and re-render it.

        With ``afresh``, every artist is drawn the way matplotlib draws it and every title is
        placed again: nothing kept is reused.
        """
        with self._drawing:
            if not afresh or self.figure is None:
                return self._refresh()
            if self._pixels is not None:
                self._pixels.entries.clear()
                self._pixels.ticks_once = False
            self._place_titles(auto=True)
            try:
                self._refresh(afresh)
            finally:
                self._place_titles(auto=False)
                if self._pixels is not None:
                    self._pixels.ticks_once = True

    def _refresh(self, afresh: bool = False) -> None:
        if self.figure is None:
            return
        values = self.values()
        before = self._limits()
        self._update(**values)
        key = tuple(values.items())
        picture = None if afresh else self._pictures.get(key)
        if picture is not None:
            # The figure follows the values; the canvas keeps an older picture, so the next
            # step that renders draws everything (reusing what it can).
            self._pictures.move_to_end(key)
            self._background = None
            self.image.value = picture
            self.recalled += 1
            return
        everything = afresh or self._background is None or self._limits() != before
        self._draw(everything, key)

    def _draw(self, everything: bool, key: tuple) -> None:
        # A full draw (kept, without the moving artists, as the background of later steps),
        # or that background restored; then the moving artists, then the picture.
        canvas = self.figure.canvas
        if everything:
            canvas.draw()
            if self._moving:
                self._background = canvas.copy_from_bbox(self.figure.bbox)
        else:
            canvas.restore_region(self._background)
            self.blits += 1
        for artist in self._moving:
            self.figure.draw_artist(artist)
        picture = _encode_png(self.figure)
        self.image.value = picture
        self.renders += 1
        self._pictures[key] = picture  # kept by the values it shows
        kept = sum(map(len, self._pictures.values()))
        while kept > self.PICTURE_BYTES:
            kept -= len(self._pictures.popitem(last=False)[1])

    def _on_change(self, _change: dict) -> None:
        loop = _front_end_loop()
        if loop is None:
            self.refresh()
        elif not self._scheduled:
            # A slider moved in the browser: let the comm handler return first, so the kernel
            # reports idle and the browser sends its next value while this one is drawn
            # (ipywidgets keeps one message per slider in flight until the kernel is idle).
            self._scheduled = True
            loop.call_soon(self._refresh_scheduled)

    def _refresh_scheduled(self) -> None:
        with self._drawing:
            # Cleared before the sliders are read: a value that arrives during this render
            # schedules the next one, so the last picture shows the last values.
            self._scheduled = False
            self._refresh()

    def close(self) -> None:
        """Close the sliders and the picture and release the figure and its callbacks."""
        for control in self.controls.values():
            control.close()
        self.image.close()
        # Dropping the references frees the figure; clearing it here would fail when
        # ipywidgets calls close() from __del__ at interpreter shutdown.
        self.figure = None
        self._update = None
        self._moving = []
        self._background = None
        self._pixels = None
        self._pictures.clear()
        super().close()


def _front_end_loop() -> asyncio.AbstractEventLoop | None:
    """The kernel's event loop while it handles a widget message from the browser, else None.

    A slider moved in the browser reaches the kernel as a ``comm_msg``; a value set by code
    (a cell, a test, a script) arrives any other way and is drawn at once.
    """
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipywidgets
        return None
    kernel = getattr(get_ipython(), "kernel", None)
    if kernel is None:
        return None
    try:
        parent = kernel.get_parent("shell") or {}
    except Exception:  # noqa: BLE001 - an old or unusual kernel: draw at once
        return None
    return loop if parent.get("header", {}).get("msg_type") == "comm_msg" else None
