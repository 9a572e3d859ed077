"""Lesson 12 · RoPE in today's architectures: the exercise checkers."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...grading import Feedback, agrees_on, as_integer, close, grade, value_of
from ...rope import apply_rope
from ...rope_variants import mrope_position_ids

__all__ = [
    "check_mla_cache",
    "check_mrope_ids",
    "check_partial_rope",
]


def check_partial_rope(partial_rope: Callable) -> Feedback:
    """Lesson 12, exercise 1: ``partial_rope(x, positions, rotary_dim, base)`` rotates the first
    ``rotary_dim`` columns of ``x`` with RoPE of width ``rotary_dim``, keeps the others.

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
    matches = agrees_on(
        _partial_rope,
        [(x, positions, r, base) for r, base in ((4, 10000.0), (8, 500.0))],
        what=lambda x, positions, r, base: f"your result for rotary_dim = {r}, base = {base:g}",
        slip=lambda got, want, *case: _partial_slip(got, *case, scale),
        scale=scale,
    )
    return grade(
        "partial rotation",
        partial_rope,
        [matches],
        "copy x; replace its first rotary_dim columns by apply_rope(x[:, :rotary_dim], "
        "positions, base); return the copy.",
        call=(x, positions, 4, 10000.0),
    )


def _partial_rope(x: np.ndarray, positions: np.ndarray, r: int, base: float) -> np.ndarray:
    """The right answer: the first ``r`` columns turned as a RoPE of width ``r``, the rest kept."""
    out = x.copy()
    out[:, :r] = apply_rope(x[:, :r], positions, base)
    return out


def _partial_slip(
    got: np.ndarray, x: np.ndarray, positions: np.ndarray, r: int, base: float, scale: float
) -> str:
    def same(expected: np.ndarray) -> bool:
        return close(got, expected, scale=scale)

    d = x.shape[1]
    for other in (10000.0, 500.0):
        if other != base and same(_partial_rope(x, positions, r, other)):
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

    def rotated(part: np.ndarray) -> np.ndarray:
        out = x.copy()
        out[:, :r] = part
        return out

    head = x[:, :r]
    if same(rotated(apply_rope(head, positions, base, "halves"))):
        return (
            "you paired column i with column i + rotary_dim/2 (the split-halves layout, "
            "rotate_half): here the pairs are adjacent, columns (2k, 2k + 1), as apply_rope "
            "pairs them by default."
        )
    if same(rotated(apply_rope(head, -positions, base))):
        return (
            "you turned each pair clockwise, by −m·θ: RoPE turns it by +m·θ, so the first "
            "column of a pair becomes x cos(mθ) − y sin(mθ). Check the signs of the sine terms."
        )
    for shift in (1.0, -1.0):
        if same(rotated(apply_rope(head, positions + shift, base))):
            return (
                f"your positions are off by one (you turned by {'m + 1' if shift > 0 else 'm − 1'}"
                "): the token at position m turns by m·θ, and the one at position 0 not at "
                "all. Use the positions as given."
            )
    return "the first rotary_dim columns are not RoPE of width rotary_dim at these positions."


#: DeepSeek-V2's attention sizes: heads, head width, latent d_c, rotated key d_h^R (report
#: §3.1.2; the V3 config has the same).
_MLA = (128, 128, 512, 64)


def check_mla_cache(answer: object) -> Feedback:
    """Lesson 12, exercise 2: numbers a DeepSeek-V2 layer caches per token (MLA + decoupled RoPE),
    or a function with no arguments that returns it.

    Examples
    --------
    >>> check_mla_cache(576).status
    'correct'
    """
    heads, head_dim, d_c, d_rope = _MLA
    slips = {
        d_c: "that is the latent c alone: the rotated key k^R is cached too.",
        d_c + heads * d_rope: "the rotated key is one vector shared by all heads, not one each.",
        2 * heads * head_dim: "that is what ordinary multi-head attention caches (keys and values "
        "of every head); MLA caches the latent and the shared rotated key.",
        d_c + head_dim: "the rotated key is d_h^R = 64 wide, not 128.",
    }

    def value(ans: object) -> str | None:
        got = as_integer(value_of(ans), "your count")
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
    """Lesson 12, exercise 3: ``mrope_ids(text_before, grid_h, grid_w, text_after)``, Qwen2-VL's
    position ids ``(3, n)``, rows t, h, w.

    Examples
    --------
    >>> check_mrope_ids(mrope_position_ids).status
    'correct'
    """
    cases = ((3, 2, 4, 2), (0, 3, 2, 3), (1, 1, 5, 0))
    matches = agrees_on(
        mrope_position_ids, cases, what=lambda *case: f"your ids for {case}", slip=_mrope_slip
    )
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
