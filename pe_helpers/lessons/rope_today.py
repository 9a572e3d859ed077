"""Lesson 12 · RoPE in today's architectures: partial, decoupled, multimodal, hybrid.

The notebook ``notebooks/12_rope_today.ipynb`` reads four settings met in current model
configs and checks what each does to the attention score. The variants themselves are
general maths in :mod:`pe_helpers.rope_variants`; what only this lesson needs lives here:

* :data:`PUBLISHED_SETTINGS` — the values the lesson teaches, each with where it was read;
* measurements: :func:`position_scores` (one query and one key placed at many
  positions), :func:`patch_scores` and :func:`relative_2d_deviation` (multimodal RoPE on
  an image grid), :func:`nope_layers` (which layers of a hybrid stack have no RoPE);
* figures: :class:`MropeScoreMap` (the score of one query patch against every patch,
  under sliders for the grid, the sections and the query patch) and
  :func:`plot_turning_pairs` (which pairs turn, and how fast, under RoPE, partial
  rotation and p-RoPE);
* the exercise checkers :func:`check_partial_rope`, :func:`check_mla_cache` and
  :func:`check_mrope_ids`.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import NamedTuple

import numpy as np
from matplotlib.axes import Axes
from numpy.typing import ArrayLike

from .._validate import check_array, check_base, check_int
from ..encodings import frequencies
from ..figures import course_style, new_axes
from ..grading import Feedback, as_array, as_integer, close, grade
from ..live import LiveFigure, even_control, int_control
from ..rope import apply_rope
from ..rope_variants import (
    apply_mrope,
    mrope_position_ids,
    p_rope_frequencies,
    rotary_dim,
)

__all__ = [
    "MAX_GRID_SIDE",
    "MAX_POSITIONS",
    "PUBLISHED_SETTINGS",
    "MropeScoreMap",
    "PublishedSetting",
    "check_mla_cache",
    "check_mrope_ids",
    "check_partial_rope",
    "nope_layers",
    "patch_scores",
    "plot_turning_pairs",
    "position_scores",
    "relative_2d_deviation",
]

#: Most positions :func:`position_scores` places a query and a key at.
MAX_POSITIONS = 2048
#: Largest image side :func:`patch_scores` takes (so the score matrix stays small).
MAX_GRID_SIDE = 32


class PublishedSetting(NamedTuple):
    """One value a model's code or config sets, and where it was read."""

    model: str
    setting: str
    value: str
    source: str


#: The settings this lesson teaches, each confirmed in the source named beside it.
PUBLISHED_SETTINGS: tuple[PublishedSetting, ...] = (
    PublishedSetting(
        "GPT-NeoX-20B",
        "rotary_pct (head 6144 / 64 = 96)",
        "0.25 → 24 of 96 dims rotate",
        "EleutherAI/gpt-neox, configs/20B.yml",
    ),
    PublishedSetting(
        "DeepSeek-V2 / V3",
        "qk_nope_head_dim, qk_rope_head_dim",
        "128 unrotated + 64 rotated",
        "DeepSeek-V2 report §2.1.3 and §3.1.2; deepseek-ai/DeepSeek-V3 inference/configs",
    ),
    PublishedSetting(
        "DeepSeek-V2 / V3",
        "kv_lora_rank (d_c), heads",
        "512, 128 heads",
        "DeepSeek-V2 report §3.1.2; DeepSeek-V3 inference/configs/config_671B.json",
    ),
    PublishedSetting(
        "Qwen2-VL-7B",
        "mrope_section (head 3584 / 28 = 128)",
        "(16, 24, 24) pairs for (t, h, w)",
        "Qwen's config.json; transformers qwen2_vl apply_multimodal_rotary_pos_emb",
    ),
    PublishedSetting(
        "SmolLM3-3B",
        "no_rope_layer_interval, layers",
        "4 → 9 NoPE layers of 36",
        "transformers configuration_smollm3.py",
    ),
    PublishedSetting(
        "Llama 4",
        "NoPE layer interval (iRoPE)",
        "every 4th layer (transformers default)",
        "meta-llama/llama-models models/llama4/model.py; transformers configuration_llama4.py",
    ),
    PublishedSetting(
        "p-RoPE",
        "keep fraction p",
        "fastest p of the pairs turn, the rest never",
        "Barbero et al. 2024 (arXiv 2410.06205), appendix code; google-deepmind/gemma",
    ),
)


def _bounded(name: str, value: object, minimum: int, maximum: int) -> int:
    value = check_int(name, value, minimum=minimum)
    if value > maximum:
        raise ValueError(f"{name} must be at most {maximum} (keeps it fast), got {value}")
    return value


# --- measurements -------------------------------------------------------------------------------


def position_scores(
    rotate: Callable[[np.ndarray, np.ndarray], np.ndarray],
    q: ArrayLike,
    k: ArrayLike,
    positions: ArrayLike,
) -> np.ndarray:
    """Entry ``[a, b]``: ``rotate(q at positions[a]) · rotate(k at positions[b])``.

    The same two vectors at every position, so the matrix shows what the positions
    alone do to the score under the encoding ``rotate(x, positions)``.

    Parameters
    ----------
    rotate : callable
        ``rotate(x, positions)`` returns ``x`` (shape ``(n, d)``) with row ``i`` encoded
        at ``positions[i]``, e.g. ``lambda x, t: apply_partial_rope(x, t, 0.25)``.
    q, k : array_like
        1-D vectors of the same width.
    positions : array_like
        1-D, at most :data:`MAX_POSITIONS` entries.

    Returns
    -------
    numpy.ndarray
        Shape ``(len(positions), len(positions))``.

    Examples
    --------
    >>> same = lambda x, t: x  # no position encoding at all
    >>> position_scores(same, [1.0, 2.0], [3.0, 0.0], [0, 5]).tolist()
    [[3.0, 3.0], [3.0, 3.0]]
    """
    if not callable(rotate):
        raise TypeError(f"rotate must be a function rotate(x, positions), got {rotate!r}")
    q = check_array("q", q, ndim=1).astype(np.float64)
    k = check_array("k", k, ndim=1).astype(np.float64)
    if q.shape != k.shape:
        raise ValueError(f"q and k must have the same width, got {q.size} and {k.size}")
    t = check_array("positions", positions, ndim=1).astype(np.float64)
    if t.size > MAX_POSITIONS:
        raise ValueError(f"positions may have at most {MAX_POSITIONS} entries, got {t.size}")
    rows = np.ones((t.size, 1))
    return rotate(rows * q, t) @ rotate(rows * k, t).T


def patch_scores(
    q: ArrayLike,
    k: ArrayLike,
    grid_h: int,
    grid_w: int,
    mrope_section: object,
    base: float = 10000.0,
) -> np.ndarray:
    """Multimodal-RoPE scores of ``q`` at every patch of an image against ``k`` at every patch.

    Patches are numbered row by row; patch ``p`` has ids ``(t, h, w) = (0, p // grid_w,
    p % grid_w)`` (the image alone, as :func:`pe_helpers.rope_variants.mrope_position_ids`
    numbers it with no text before).

    Parameters
    ----------
    q, k : array_like
        1-D vectors of the same even width ``d``.
    grid_h, grid_w : int
        Rows and columns of patches, 1 to :data:`MAX_GRID_SIDE`.
    mrope_section : sequence of three ints
        Pairs for (t, h, w), adding up to ``d // 2``.
    base : float, default 10000.0
        Frequency base.

    Returns
    -------
    numpy.ndarray
        Shape ``(grid_h * grid_w, grid_h * grid_w)``.

    Examples
    --------
    >>> s = patch_scores(np.ones(4), np.ones(4), 1, 2, (0, 1, 1), base=100.0)
    >>> s.round(4).tolist()  # pair 0 turns with the row id (0 for both), pair 1 with the column
    [[4.0, 3.99], [3.99, 4.0]]
    """
    q = check_array("q", q, ndim=1).astype(np.float64)
    k = check_array("k", k, ndim=1).astype(np.float64)
    if q.shape != k.shape:
        raise ValueError(f"q and k must have the same width, got {q.size} and {k.size}")
    rows = _bounded("grid_h", grid_h, 1, MAX_GRID_SIDE)
    cols = _bounded("grid_w", grid_w, 1, MAX_GRID_SIDE)
    ids = mrope_position_ids(0, rows, cols)
    ones = np.ones((rows * cols, 1))
    rotated_q = apply_mrope(ones * q, ids, mrope_section, base)
    rotated_k = apply_mrope(ones * k, ids, mrope_section, base)
    return rotated_q @ rotated_k.T


def relative_2d_deviation(scores: ArrayLike, grid_h: int, grid_w: int) -> float:
    """How far patch scores are from depending on ``(Δh, Δw)`` only, relative to their size.

    Groups the entries of ``scores`` (as from :func:`patch_scores`) by the offset
    ``(Δh, Δw)`` from the query patch to the key patch; returns the largest spread
    within a group divided by the largest ``|score|``. Zero means the score depends on
    the 2-D offset only.

    Parameters
    ----------
    scores : array_like
        Shape ``(grid_h * grid_w, grid_h * grid_w)``, finite.
    grid_h, grid_w : int
        The grid the patches come from.

    Returns
    -------
    float
        In ``[0, 2]``.

    Examples
    --------
    >>> relative_2d_deviation(np.ones((4, 4)), 2, 2)
    0.0
    """
    rows = _bounded("grid_h", grid_h, 1, MAX_GRID_SIDE)
    cols = _bounded("grid_w", grid_w, 1, MAX_GRID_SIDE)
    n = rows * cols
    s = check_array("scores", scores, ndim=2).astype(np.float64)
    if s.shape != (n, n):
        raise ValueError(f"scores must have shape ({n}, {n}) for a {rows}×{cols} grid")
    row, col = np.divmod(np.arange(n), cols)
    offset = (row[None, :] - row[:, None] + rows) * (2 * cols + 1) + (
        col[None, :] - col[:, None] + cols
    )
    keys = offset.ravel()
    values = s.ravel()
    order = np.argsort(keys, kind="stable")
    keys, values = keys[order], values[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    spread = np.maximum.reduceat(values, starts) - np.minimum.reduceat(values, starts)
    scale = float(np.abs(s).max())
    return float(spread.max() / scale) if scale > 0 else 0.0


def nope_layers(num_layers: int, interval: int) -> list[int]:
    """Indices (from 0) of the layers with no RoPE when every ``interval``-th layer skips it.

    The rule of Meta's Llama 4 code (``(layer_id + 1) % nope_layer_interval == 0``) and
    of transformers' SmolLM3 and Llama 4 configs (``no_rope_layers``).

    Parameters
    ----------
    num_layers : int
        Layers in the stack, 1 to 1000.
    interval : int
        Every ``interval``-th layer is a NoPE layer; >= 1.

    Returns
    -------
    list of int

    Examples
    --------
    >>> nope_layers(12, 4)
    [3, 7, 11]
    """
    num_layers = _bounded("num_layers", num_layers, 1, 1000)
    interval = check_int("interval", interval, minimum=1)
    return [layer for layer in range(num_layers) if (layer + 1) % interval == 0]


# --- figures -------------------------------------------------------------------------------------


@course_style
def plot_turning_pairs(
    head_dim: int = 128, fraction: float = 0.75, base: float = 10000.0, ax: Axes | None = None
) -> Axes:
    """Frequency of each pair under RoPE, partial rotation and p-RoPE with the same fraction.

    Pairs that never turn (the unrotated part of partial rotation, the stopped pairs of
    p-RoPE) are marked along the bottom edge.

    Parameters
    ----------
    head_dim : int, default 128
        Width of one head, even, at most 1024.
    fraction : float, default 0.75
        ``partial_rotary_factor`` for partial rotation and ``p`` for p-RoPE.
    base : float, default 10000.0
        Frequency base.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines``: RoPE, partial, p-RoPE, then the two "never turns" markers.

    Examples
    --------
    >>> ax = plot_turning_pairs(16, 0.5)
    >>> [line.get_label() for line in ax.lines][:3]
    ['RoPE', 'partial rotation (0.5)', 'p-RoPE (p = 0.5)']
    """
    head_dim = _bounded("head_dim", head_dim, 2, 1024)
    base = check_base(base)
    pairs = np.arange(head_dim // 2)
    full = frequencies(head_dim, base)
    r = rotary_dim(head_dim, fraction)
    partial = np.zeros(head_dim // 2)
    # The rotated part holds r / 2 pairs; in the adjacent layout they are pairs 0 .. r/2 - 1.
    partial[: r // 2] = frequencies(r, base) if r else []
    p_rope = p_rope_frequencies(head_dim, fraction, base)
    ax = new_axes(ax)
    floor = float(full.min()) / 10
    for values, label, style in (
        (full, "RoPE", {"color": "C0", "linewidth": 7, "alpha": 0.3}),
        (partial, f"partial rotation ({fraction:g})", {"color": "C1", "linestyle": "--"}),
        (p_rope, f"p-RoPE (p = {fraction:g})", {"color": "C2", "linestyle": ":"}),
    ):
        ax.plot(pairs, np.where(values > 0, values, np.nan), label=label, **style)
    for values, colour, marker, height, label in (
        (partial, "C1", "x", floor, "partial: never turns"),
        (p_rope, "C2", "+", floor / 4, "p-RoPE: never turns"),
    ):
        stopped = pairs[values == 0]
        ax.plot(stopped, np.full(stopped.size, height), marker, color=colour, label=label)
    ax.set_yscale("log")
    ax.set_xlabel("pair k (0 = fastest)")
    ax.set_ylabel("frequency (radians per position)")
    ax.set_title(f"Which pairs turn: head of {head_dim}, fraction {fraction:g}")
    ax.legend(loc="lower left")
    return ax


class MropeScoreMap(LiveFigure):
    """Multimodal-RoPE score of one query patch against every patch of an image.

    The query and the key carry the same content (all ones), so every colour is the
    work of the positions: pair ``k`` contributes ``2 cos(w_k · Δ)`` where ``Δ`` is the
    row offset or the column offset (or 0 for the temporal pairs), as its section says.
    The colour scale spans the map's own range (the largest score, ``head_dim``, sits
    at the query patch).
    Sliders: the grid (rows, columns), the number of temporal pairs (the rest split
    evenly between rows and columns) and the query patch (clamped to the grid).

    Parameters
    ----------
    head_dim : int, default 128
        Width of the head, a multiple of 4 from 8 to 256 (Qwen2-VL: 128).
    base : float, default 10000.0
        Frequency base (Qwen2-VL's config sets 1,000,000).

    Examples
    --------
    >>> fig = MropeScoreMap(head_dim=8).draw(grid_h=2, grid_w=3, t_pairs=0, row=9, col=0)
    >>> fig.axes[0].get_title()
    'query patch (1, 0); sections (t, h, w) = (0, 2, 2)'
    """

    controls = {
        "grid_h": int_control("rows", 12, 2, 24),
        "grid_w": int_control("columns", 16, 2, 24),
        "t_pairs": even_control("temporal pairs", 16, 0, 32),
        "row": int_control("query row", 5, 0, 23),
        "col": int_control("query column", 8, 0, 23),
    }
    figsize = (7.0, 5.0)

    def __init__(self, head_dim: int = 128, base: float = 10000.0) -> None:
        self.head_dim = _bounded("head_dim", head_dim, 8, 256)
        if self.head_dim % 4:
            raise ValueError(f"head_dim must be a multiple of 4, got {self.head_dim}")
        self.base = check_base(base)

    def sections(self, t_pairs: int) -> tuple[int, int, int]:
        """``(t, h, w)`` pairs: ``t_pairs`` (at most half the pairs), the rest split evenly."""
        t = min(t_pairs, self.head_dim // 4)
        rest = self.head_dim // 2 - t
        return t, rest - rest // 2, rest // 2

    def build(self, axes) -> SimpleNamespace:
        image = axes.imshow(
            np.zeros((2, 2)), cmap="viridis", interpolation="nearest", origin="upper"
        )
        axes.figure.colorbar(image, ax=axes, label="score (all-ones q and k)")
        (marker,) = axes.plot([0], [0], marker="*", color="black", markersize=14, linestyle="none")
        axes.set_xlabel("patch column w")
        axes.set_ylabel("patch row h")
        return SimpleNamespace(axes=axes, image=image, marker=marker)

    def update(
        self, art: SimpleNamespace, grid_h: int, grid_w: int, t_pairs: int, row: int, col: int
    ) -> None:
        row, col = min(row, grid_h - 1), min(col, grid_w - 1)
        sections = self.sections(t_pairs)
        ones = np.ones(self.head_dim)
        scores = patch_scores(ones, ones, grid_h, grid_w, sections, self.base)
        view = scores[row * grid_w + col].reshape(grid_h, grid_w)
        art.image.set_data(view)
        low, high = float(view.min()), float(view.max())
        art.image.set_clim(low, max(high, low + 1e-9))
        art.image.set_extent((-0.5, grid_w - 0.5, grid_h - 0.5, -0.5))
        art.axes.set_xlim(-0.5, grid_w - 0.5)
        art.axes.set_ylim(grid_h - 0.5, -0.5)
        art.marker.set_data([col], [row])
        art.axes.title.set_text(f"query patch ({row}, {col}); sections (t, h, w) = {sections}")

    def moving(self, art: SimpleNamespace) -> list:
        return [art.image, art.marker, art.axes.title]


# --- exercise checkers ---------------------------------------------------------------------------


def check_partial_rope(partial_rope: Callable) -> Feedback:
    """Lesson 12, exercise 1: ``partial_rope(x, positions, rotary_dim, base)``.

    Rotate the first ``rotary_dim`` columns of ``x`` with RoPE of width ``rotary_dim``
    (adjacent pairs); leave the other columns as they are.

    Examples
    --------
    >>> def partial_rope(x, positions, rotary_dim, base):
    ...     out = x.copy()
    ...     out[:, :rotary_dim] = apply_rope(x[:, :rotary_dim], positions, base)
    ...     return out
    >>> check_partial_rope(partial_rope).status
    'correct'
    """
    rng = np.random.default_rng(12)
    x = rng.normal(size=(5, 12))
    positions = np.array([0.0, 1.0, 4.0, 9.0, 30.0])
    scale = float(np.abs(x).max())
    cases = ((4, 10000.0), (8, 500.0))

    def matches(attempt: Callable) -> str | None:
        for r, base in cases:
            what = f"your result for rotary_dim = {r}, base = {base:g}"
            got = as_array(attempt(x, positions, r, base), what, shape=x.shape)
            want = x.copy()
            want[:, :r] = apply_rope(x[:, :r], positions, base)
            if close(got, want, scale=scale):
                continue
            return _partial_slip(got, x, positions, r, base, scale)
        return None

    return grade(
        "partial rotation",
        partial_rope,
        [matches],
        "copy x; replace its first rotary_dim columns by apply_rope(x[:, :rotary_dim], "
        "positions, base); return the copy.",
        call=(x, positions, 4, 10000.0),
    )


def _partial_slip(
    got: np.ndarray, x: np.ndarray, positions: np.ndarray, r: int, base: float, scale: float
) -> str:
    def same(expected: np.ndarray) -> bool:
        return close(got, expected, scale=scale)

    d = x.shape[1]
    for other in (10000.0, 500.0):
        right_but_other_base = x.copy()
        right_but_other_base[:, :r] = apply_rope(x[:, :r], positions, other)
        if other != base and same(right_but_other_base):
            return f"you rotated with base {other:g}: use the base argument, not a fixed number."
    if same(apply_rope(x, positions, base)):
        return "you rotated every column: only the first rotary_dim columns turn."
    tail = x.copy()
    tail[:, d - r :] = apply_rope(x[:, d - r :], positions, base)
    if same(tail):
        return "you rotated the last rotary_dim columns; it is the first ones that turn."
    wide = x.copy()
    wide[:, :r] = apply_rope(x, positions, base)[:, :r]
    if same(wide):
        return (
            "your frequencies are those of the whole head (base^(−2k/d) with d the full "
            "width): partial rotation computes them over the rotated part, base^(−2k/rotary_dim)."
        )
    if same(x):
        return "nothing turned: the first rotary_dim columns must be rotated by their positions."
    if not close(got[:, r:], x[:, r:], scale=scale):
        return "the columns after rotary_dim must come back unchanged."
    return "the first rotary_dim columns are not RoPE of width rotary_dim at these positions."


#: DeepSeek-V2's attention sizes (report §3.1.2; the V3 config has the same).
_MLA = {"heads": 128, "head_dim": 128, "d_c": 512, "d_rope": 64}


def check_mla_cache(answer: object) -> Feedback:
    """Lesson 12, exercise 2: numbers a DeepSeek-V2 layer caches per token (MLA + decoupled RoPE).

    Examples
    --------
    >>> check_mla_cache(576).status
    'correct'
    """
    heads, head_dim, d_c, d_rope = (_MLA[key] for key in ("heads", "head_dim", "d_c", "d_rope"))
    slips = {
        d_c: "that is the latent c alone: the rotated key k^R is cached too.",
        d_c + heads * d_rope: "the rotated key is one vector shared by all heads, not one each.",
        2 * heads * head_dim: "that is what ordinary multi-head attention caches (keys and values "
        "of every head); MLA caches the latent and the shared rotated key.",
        d_c + head_dim: "the rotated key is d_h^R = 64 wide, not 128.",
    }

    def value(ans: object) -> str | None:
        got = as_integer(ans, "your count")
        if got == d_c + d_rope:
            return None
        return slips.get(got, f"{got} is not it: add up the vectors one token leaves in the cache.")

    return grade(
        "MLA cache per token",
        answer,
        [value],
        "list what a later query needs from this token: the folded part reads the latent c; "
        "the rotated part reads the rotated key k^R. How wide is each, and how many of each?",
    )


def check_mrope_ids(mrope_ids: Callable) -> Feedback:
    """Lesson 12, exercise 3: ``mrope_ids(text_before, grid_h, grid_w, text_after)``.

    Return Qwen2-VL's position ids, shape ``(3, n)``, rows t, h, w.

    Examples
    --------
    >>> check_mrope_ids(mrope_position_ids).status
    'correct'
    """
    cases = ((3, 2, 4, 2), (0, 3, 2, 3), (1, 1, 5, 0))

    def matches(attempt: Callable) -> str | None:
        for before, rows, cols, after in cases:
            want = mrope_position_ids(before, rows, cols, after)
            what = f"your ids for ({before}, {rows}, {cols}, {after})"
            got = as_array(attempt(before, rows, cols, after), what, shape=want.shape)
            if np.array_equal(got, want):
                continue
            return _mrope_slip(got, want, before, rows, cols, after)
        return None

    return grade(
        "M-RoPE position ids",
        mrope_ids,
        [matches],
        "text: the same id on all three rows, counting on; patch (row, col): t = s, h = s + row, "
        "w = s + col, with s the next id; text after the image: largest id so far + 1.",
        call=cases[0],
    )


def _mrope_slip(
    got: np.ndarray, want: np.ndarray, before: int, rows: int, cols: int, after: int
) -> str:
    image = slice(before, before + rows * cols)
    if not np.array_equal(got[:, :before], want[:, :before]):
        return "the text before the image is wrong: a text token gets ids (i, i, i)."
    patches = got[:, image]
    if np.array_equal(patches[1:], want[[2, 1], image]):
        return "rows h and w are swapped: h counts the patch row, w the patch column."
    if np.array_equal(patches[0], before + np.arange(rows * cols)):
        return "the temporal id t stays the same for every patch of one image."
    if np.array_equal(patches, want[:, image] - before):
        return "the image's ids start at 0; they start after the text before it (s = text_before)."
    if not np.array_equal(patches, want[:, image]):
        order = np.stack([np.arange(rows * cols) % rows, np.arange(rows * cols) // rows])
        if np.array_equal(patches[1:], before + order):
            return "patches are numbered row by row (all columns of row 0 first)."
        return "the image's ids are wrong: patch (row, col) gets (s, s + row, s + col)."
    sequential = before + rows * cols + np.arange(after)
    if after and np.array_equal(got[0, image.stop :], sequential):
        return (
            "the text after the image continues from the token count; in M-RoPE it starts "
            "at the largest id used so far plus one."
        )
    return "the text after the image is wrong: ids (m, m, m) from m = largest id so far + 1."
