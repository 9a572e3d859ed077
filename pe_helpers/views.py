"""The slider form of a live figure: sliders above an ``ipywidgets.Image`` of the figure.

:meth:`pe_helpers.live.LiveFigure.view` builds the figure once, off pyplot, and hands it
here with its sliders and its ``update``: the figure is never rebuilt on a step, nothing
depends on the notebook's matplotlib backend, and the PNG is written straight from the Agg
buffer. A step is cheap on matplotlib's public API alone: the layout is computed once and
frozen, a step that keeps every limit redraws only the moving artists over a copy of the
last full draw (blitting), and a step back to values drawn before shows their picture again.
"""

from __future__ import annotations

import asyncio
import base64
import struct
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence

import ipywidgets as widgets
import numpy as np
from matplotlib.artist import Artist
from matplotlib.axis import Axis
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .figures import kernel_request

__all__ = ["InteractiveView"]


def _png_chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def _encode_png(figure: Figure) -> bytes:
    """The figure's Agg buffer as an 8-bit RGB PNG: "Up" filter on every row, zlib level 1."""
    # PIL at compress_level=1: files of the same size, twice the time (11-14 ms against 5-8 ms).
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


class InteractiveView(widgets.VBox):
    """Sliders above a live figure.

    Parameters
    ----------
    figure : matplotlib.figure.Figure
        The figure, built once off pyplot, already showing the controls' starting values.
    controls : mapping of str to ipywidgets.ValueWidget
        The sliders, by the keyword they feed to ``update``.
    update : callable
        ``update(**values)`` changes the figure's artists in place, the same way for the same
        values (pictures are kept by values, up to :attr:`PICTURE_BYTES`).
    moving, rescaled : sequence of matplotlib artists, optional
        As :meth:`pe_helpers.live.LiveFigure.moving` and ``rescaled`` return them.
    summary : str, optional
        One line naming the figure and its starting values: the view's ``text/plain``.
    about : mapping, optional
        Stored as ``{"pe_helpers": about}`` in the output's metadata (the website reads it).

    Notes
    -----
    Displayed, the output holds the widget, the first picture as ``image/png`` (for places
    without a kernel) and ``summary`` (which nbval compares).

    Attributes
    ----------
    figure, controls, image : the figure, the sliders, the ``ipywidgets.Image``.
    renders, blits, recalled : int
        Renders so far (1 after construction), how many of them blitted, and how many steps
        showed a kept picture instead.
    """

    #: Bytes of PNG pictures kept per view (a picture is 20-80 kB).
    PICTURE_BYTES = 8 * 2**20

    def __init__(
        self,
        figure: Figure,
        controls: Mapping[str, widgets.ValueWidget],
        update: Callable[..., None],
        moving: Sequence[Artist] = (),
        rescaled: Sequence[Artist] = (),
        summary: str = "",
        about: Mapping[str, object] | None = None,
    ) -> None:
        self.figure = figure
        self.summary = summary or f"{type(self).__name__} of a {type(figure).__name__}"
        self._about = dict(about or {})
        self.controls = dict(controls)
        self._update = update
        self._moving = list(moving)
        self._rescaled = list(rescaled)
        self._rescaled_axes = [artist for artist in self._rescaled if isinstance(artist, Axis)]
        # The last full draw (without the animated artists) and its limits; the same with the
        # rescaled artists drawn, and what their Axes showed.
        self._background = None
        self._background_limits = None
        self._rescaled_background = None
        self._rescaled_shown = None
        self._scheduled = False
        # ipykernel may handle slider messages on a subshell thread while a cell runs.
        self._drawing = threading.RLock()
        self.renders = 0
        self.blits = 0
        self.recalled = 0
        self._pictures: OrderedDict[tuple, bytes] = OrderedDict()
        if not isinstance(figure.canvas, FigureCanvasAgg):
            FigureCanvasAgg(figure)
        for artist in (*self._rescaled, *self._moving):
            artist.set_animated(True)  # left out of a full draw, drawn over it by draw_artist
        self.image = widgets.Image(format="png", layout=widgets.Layout(max_width="100%"))
        super().__init__(children=[*self.controls.values(), self.image])
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        # The draw that lays the figure out is the first picture; the layout is then frozen
        # (a layout engine costs a full extra pass on every draw).
        self._draw(tuple(self.values().items()), blit=False)
        self.figure.set_layout_engine("none")
        for ax in self.figure.axes:
            # An x label stays where this draw put it, unless a fixed aspect moves the box.
            if ax.get_aspect() == "auto":
                label = ax.xaxis.label
                ax.xaxis.set_label_coords(*label.get_position(), transform=label.get_transform())
        self.first_picture = self.image.value

    def _repr_mimebundle_(self, **kwargs: object) -> tuple[dict, dict]:
        """The widget, its first picture and its summary: one output, right wherever shown."""
        data = super()._repr_mimebundle_(**kwargs)
        data["text/plain"] = self.summary
        data["image/png"] = base64.b64encode(self.first_picture).decode("ascii")
        return data, {"pe_helpers": self._about} if self._about else {}

    def values(self) -> dict[str, object]:
        """Current value of every control, by name."""
        return {name: control.value for name, control in self.controls.items()}

    def _limits(self) -> list:
        """The limits a blitted step must keep: those of every Axis not rescaled."""
        rescaled = {id(axis) for axis in self._rescaled_axes}
        return [
            (axis.get_view_interval().tolist() if id(axis) not in rescaled else None)
            for ax in self.figure.axes
            for axis in (ax.xaxis, ax.yaxis)
        ]

    def _rescaled_now(self) -> list:
        """What each rescaled Axis shows: its limits and its label."""
        return [(a.get_view_interval().tolist(), a.label.get_text()) for a in self._rescaled_axes]

    def refresh(self, afresh: bool = False) -> None:
        """Apply the current slider values and re-render; ``afresh``: draw the whole figure."""
        with self._drawing:
            if self.figure is None:
                return
            values = self.values()
            self._update(**values)
            key = tuple(values.items())
            picture = None if afresh else self._pictures.get(key)
            if picture is not None:
                self._pictures.move_to_end(key)
                self.image.value = picture
                self.recalled += 1
                return
            blit = not afresh and self._background is not None
            self._draw(key, blit and self._limits() == self._background_limits)

    def _draw(self, key: tuple, blit: bool) -> None:
        # The kept background or a full draw; the rescaled artists unless kept as they are;
        # the moving ones; the picture.
        canvas = self.figure.canvas
        rescaled_kept = False
        if blit:
            rescaled_kept = (
                self._rescaled_background is not None
                and self._rescaled_now() == self._rescaled_shown
            )
            kept = self._rescaled_background if rescaled_kept else self._background
            canvas.restore_region(kept)
            self.blits += 1
        else:
            canvas.draw()
            if self._moving or self._rescaled:
                self._background = canvas.copy_from_bbox(self.figure.bbox)
                self._background_limits = self._limits()
        if self._rescaled and not rescaled_kept:
            for artist in self._rescaled:
                self.figure.draw_artist(artist)
            self._rescaled_background = canvas.copy_from_bbox(self.figure.bbox)
            self._rescaled_shown = self._rescaled_now()
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
            # Let the comm handler return first: the kernel reports idle, and the browser sends
            # its next value (one in flight per slider) while this one is drawn.
            self._scheduled = True
            loop.call_soon(self._refresh_scheduled)

    def _refresh_scheduled(self) -> None:
        with self._drawing:
            # Cleared first: a value that arrives during this render schedules the next one.
            self._scheduled = False
            self.refresh()

    def close(self) -> None:
        """Close the sliders, the picture and their layouts and styles; release the figure."""
        for widget in [*self.controls.values(), self.image, self]:
            for part in (getattr(widget, "layout", None), getattr(widget, "style", None)):
                if isinstance(part, widgets.Widget):
                    part.close()
            if widget is not self:
                widget.close()
        # Dropped, not cleared: ipywidgets may call close() from __del__ at shutdown.
        self.figure = None
        self._update = None
        self._moving = []
        self._rescaled = []
        self._rescaled_axes = []
        self._background = None
        self._rescaled_background = None
        self._pictures.clear()
        super().close()


def _front_end_loop() -> asyncio.AbstractEventLoop | None:
    """The kernel's event loop while it handles a ``comm_msg`` from the browser, else None."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    return loop if kernel_request().get("header", {}).get("msg_type") == "comm_msg" else None
