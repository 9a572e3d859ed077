"""RoPE as today's models use it: partial rotation, p-RoPE, multimodal RoPE, decoupled RoPE.

Pure numpy: nothing here draws. Each variant follows the library code named in its docstring
(the tests check it): :func:`apply_partial_rope` (GPT-NeoX's ``rotary_pct``), p-RoPE
(:func:`apply_p_rope`, Barbero et al. 2024), Qwen2-VL's multimodal RoPE (:func:`apply_mrope`)
and DeepSeek-V2's decoupled RoPE (:func:`decoupled_rope_scores`).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from ._validate import (
    check_array,
    check_base,
    check_choice,
    check_d_model,
    check_int,
    check_real,
    show_value,
)
from .encodings import frequencies
from .rope import PAIRINGS, apply_rope, turn_pairs

__all__ = [
    "MAX_SCORES",
    "MAX_TOKENS",
    "MAX_WIDTH",
    "apply_mrope",
    "apply_p_rope",
    "apply_partial_rope",
    "decoupled_rope_scores",
    "mrope_pair_axes",
    "mrope_position_ids",
    "p_rope_frequencies",
    "rotary_dim",
]

#: Widest head (vector width) the helpers accept.
MAX_WIDTH = 4096
#: Most tokens (rows) one call rotates.
MAX_TOKENS = 100_000
#: Largest image side, in patches, for :func:`mrope_position_ids`.
MAX_GRID = 256
#: Most scores (queries × keys × heads) one call of :func:`decoupled_rope_scores` computes.
MAX_SCORES = 10_000_000


def _rows(name: str, x: ArrayLike) -> np.ndarray:
    """Rows ``(n, d)`` as float64: ``d`` an even width up to MAX_WIDTH, ``n`` up to MAX_TOKENS."""
    arr = check_array(name, x, ndim=2).astype(np.float64)
    check_d_model(arr.shape[1], name=f"{name}.shape[1]", maximum=MAX_WIDTH)
    if arr.shape[0] > MAX_TOKENS:
        raise ValueError(f"{name} may have at most {MAX_TOKENS:,} rows, got {arr.shape[0]:,}")
    return arr


def _positions(name: str, value: object, count: int) -> np.ndarray:
    """A 1-D array of ``count`` positions as float64 (a bare number is refused)."""
    if isinstance(value, (numbers.Number, np.generic)):
        raise TypeError(
            f"{name} must be a 1-D array of positions, one per row, got {show_value(value)}"
        )
    arr = check_array(name, value, ndim=1).astype(np.float64)
    if arr.size != count:
        raise ValueError(f"{name} must have one entry per row ({count}), got {arr.size}")
    return arr


def _fraction(name: str, value: object) -> float:
    """A real number in [0, 1] as float."""
    value = check_real(name, value)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got {value}")
    return value


def rotary_dim(head_dim: int, partial_rotary_factor: float) -> int:
    """How many dimensions of a head rotate: ``int(head_dim * partial_rotary_factor)``.

    The rule of the "default" rope type in transformers 5
    (``GPTNeoXRotaryEmbedding.compute_default_rope_parameters``); the count must come out
    even. The "proportional" type reads the same factor differently: see
    :func:`p_rope_frequencies`.

    Parameters
    ----------
    head_dim : int
        Width of one head; positive, even, at most :data:`MAX_WIDTH`.
    partial_rotary_factor : float
        Fraction in ``[0, 1]``.

    Returns
    -------
    int

    Examples
    --------
    >>> rotary_dim(96, 0.25)  # GPT-NeoX-20B: 64 heads of 6144 / 64 = 96, rotary_pct 0.25
    24
    """
    head_dim = check_d_model(head_dim, name="head_dim", maximum=MAX_WIDTH)
    factor = _fraction("partial_rotary_factor", partial_rotary_factor)
    rotated = int(head_dim * factor)
    if rotated % 2:
        raise ValueError(f"head_dim * partial_rotary_factor must give an even count, got {rotated}")
    return rotated


def apply_partial_rope(
    x: ArrayLike,
    positions: ArrayLike,
    partial_rotary_factor: float,
    base: float = 10000.0,
    pairing: str = "adjacent",
) -> np.ndarray:
    """RoPE on the first ``rotary_dim`` dimensions of each row; the rest pass unrotated.

    ``r = rotary_dim(d, partial_rotary_factor)``; columns ``0 .. r-1`` are rotated by
    :func:`pe_helpers.rope.apply_rope` as a vector of width ``r`` (frequencies
    ``base ** (-2k / r)``, as transformers and GPT-NeoX compute them).

    Parameters
    ----------
    x : array_like
        Rows to rotate, shape ``(n, d)``, ``d`` even and at most :data:`MAX_WIDTH`.
    positions : array_like
        1-D, one position per row.
    partial_rotary_factor : float
        Fraction of each row that rotates, in ``[0, 1]``.
    base : float, default 10000.0
        Frequency base; must be > 0.
    pairing : {"adjacent", "halves"}
        Layout of the pairs inside the rotated part.

    Returns
    -------
    numpy.ndarray
        ``x`` with its first ``r`` columns turned; shape ``(n, d)``, float64.

    Examples
    --------
    >>> x = np.ones((2, 4))
    >>> apply_partial_rope(x, [0, 1], 0.5).round(4).tolist()
    [[1.0, 1.0, 1.0, 1.0], [-0.3012, 1.3818, 1.0, 1.0]]
    """
    x = _rows("x", x)
    t = _positions("positions", positions, x.shape[0])
    pairing = check_choice("pairing", pairing, PAIRINGS)
    r = rotary_dim(x.shape[1], partial_rotary_factor)
    out = x.copy()
    if r:
        out[:, :r] = apply_rope(x[:, :r], t, check_base(base), pairing)
    return out


def p_rope_frequencies(head_dim: int, keep_fraction: float, base: float = 10000.0) -> np.ndarray:
    """The frequencies of p-RoPE: the fastest pairs keep ``base ** (-2k / d)``, the rest get 0.

    The first ``int(keep_fraction * head_dim // 2)`` pairs keep their usual frequency (the
    exponent still divides by the full ``head_dim``); the slowest pairs never turn — as in the
    p-RoPE code of Barbero et al. (2024, appendix) and transformers' ``"proportional"`` rope
    type (``partial_rotary_factor`` is ``keep_fraction``; Gemma 4, ``pairing="halves"``).

    Parameters
    ----------
    head_dim : int
        Width of one head; positive, even, at most :data:`MAX_WIDTH`.
    keep_fraction : float
        ``p`` in ``[0, 1]``: 1 is plain RoPE, 0 is no position encoding (NoPE).
    base : float, default 10000.0
        Frequency base; must be > 0.

    Returns
    -------
    numpy.ndarray
        The frequency of each pair, shape ``(head_dim // 2,)``: ``base ** (-2k / d)`` for
        the kept pairs, then zeros.

    Examples
    --------
    >>> p_rope_frequencies(8, 0.5, base=10000.0).round(12).tolist()
    [1.0, 0.1, 0.0, 0.0]
    """
    head_dim = check_d_model(head_dim, name="head_dim", maximum=MAX_WIDTH)
    p = _fraction("keep_fraction", keep_fraction)
    w = frequencies(head_dim, check_base(base))
    w[int(p * head_dim // 2) :] = 0.0
    return w


def apply_p_rope(
    x: ArrayLike,
    positions: ArrayLike,
    keep_fraction: float,
    base: float = 10000.0,
    pairing: str = "adjacent",
) -> np.ndarray:
    """p-RoPE: rotate each row by its position with :func:`p_rope_frequencies`.

    ``keep_fraction = 1`` is :func:`pe_helpers.rope.apply_rope`; 0 returns ``x`` unchanged.

    Parameters
    ----------
    x : array_like
        Rows to rotate, shape ``(n, d)``, ``d`` even and at most :data:`MAX_WIDTH`.
    positions : array_like
        1-D, one position per row.
    keep_fraction : float
        Fraction ``p`` of the pairs (the fastest) that keep turning.
    base : float, default 10000.0
        Frequency base; must be > 0.
    pairing : {"adjacent", "halves"}
        Layout of the pairs, as in :func:`pe_helpers.rope.apply_rope`.

    Returns
    -------
    numpy.ndarray
        ``x`` turned at the p-RoPE frequencies; shape ``(n, d)``, float64.

    Examples
    --------
    >>> apply_p_rope(np.ones((2, 4)), [0, 1], 0.5, base=100.0).round(4).tolist()
    [[1.0, 1.0, 1.0, 1.0], [-0.3012, 1.3818, 1.0, 1.0]]
    """
    x = _rows("x", x)
    t = _positions("positions", positions, x.shape[0])
    pairing = check_choice("pairing", pairing, PAIRINGS)
    angles = np.multiply.outer(t, p_rope_frequencies(x.shape[1], keep_fraction, base))
    return turn_pairs(x, np.cos(angles), np.sin(angles), pairing)


def _sections(mrope_section: object) -> tuple[int, int, int]:
    """Three pair counts (t, h, w), each >= 0."""
    try:
        items = list(mrope_section)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(
            f"mrope_section must be three counts (t, h, w), got {show_value(mrope_section)}"
        ) from None
    if len(items) != 3:
        raise ValueError(f"mrope_section must have three entries (t, h, w), got {len(items)}")
    return tuple(  # type: ignore[return-value]
        check_int(f"mrope_section[{i}]", item, minimum=0) for i, item in enumerate(items)
    )


def mrope_pair_axes(mrope_section: Sequence[int], head_dim: int) -> np.ndarray:
    """Which position axis (0 = t, 1 = h, 2 = w) drives each pair of a head.

    transformers' ``Qwen2VLRotaryEmbedding.recomposition_frequencies`` splits the pairs, in
    order, into blocks of ``mrope_section`` = (t, h, w) pairs: the first block turns with the
    temporal id, the next with the row id, the last with the column id. Each pair keeps
    its own frequency ``base ** (-2k / d)``, so t takes the fastest pairs and w the slowest.

    Parameters
    ----------
    mrope_section : sequence of three ints
        Pairs per axis; they must add up to ``head_dim // 2``.
    head_dim : int
        Width of one head; positive, even, at most :data:`MAX_WIDTH`.

    Returns
    -------
    numpy.ndarray
        Shape ``(head_dim // 2,)``, integers 0, 1, 2.

    Examples
    --------
    >>> np.bincount(mrope_pair_axes((16, 24, 24), 128)).tolist()  # Qwen2-VL
    [16, 24, 24]
    >>> mrope_pair_axes((1, 1, 2), 8).tolist()
    [0, 1, 2, 2]
    """
    sections = _sections(mrope_section)
    head_dim = check_d_model(head_dim, name="head_dim", maximum=MAX_WIDTH)
    if sum(sections) != head_dim // 2:
        raise ValueError(
            f"mrope_section must add up to head_dim // 2 = {head_dim // 2}, "
            f"got {sections} (sum {sum(sections)})"
        )
    return np.repeat(np.arange(3), sections)


def mrope_position_ids(
    text_before: int, grid_h: int, grid_w: int, text_after: int = 0
) -> np.ndarray:
    """Position ids (t, h, w) of text, then one image of ``grid_h × grid_w`` patches, then text.

    The rule of transformers' Qwen2-VL ``get_rope_index`` for one image (temporal size 1,
    the grid already merged): a text token gets the same id on all three axes, counting
    on; the image's patches, row by row, get ``t = s``, ``h = s + row``, ``w = s + col``
    where ``s`` is the next id after the text before; the text after the image starts at
    the largest id so far plus one.

    Parameters
    ----------
    text_before : int
        Text tokens before the image, >= 0.
    grid_h, grid_w : int
        Rows and columns of image patches, 1 to :data:`MAX_GRID`.
    text_after : int, default 0
        Text tokens after the image, >= 0.

    Returns
    -------
    numpy.ndarray
        Integers, shape ``(3, text_before + grid_h * grid_w + text_after)``: rows t, h, w.

    Examples
    --------
    >>> mrope_position_ids(2, 2, 3, 2).tolist()
    [[0, 1, 2, 2, 2, 2, 2, 2, 5, 6], [0, 1, 2, 2, 2, 3, 3, 3, 5, 6], [0, 1, 2, 3, 4, 2, 3, 4, 5, 6]]
    """
    before = check_int("text_before", text_before, minimum=0)
    after = check_int("text_after", text_after, minimum=0)
    rows = check_int("grid_h", grid_h, minimum=1, maximum=MAX_GRID)
    cols = check_int("grid_w", grid_w, minimum=1, maximum=MAX_GRID)
    if before + after > MAX_TOKENS:
        raise ValueError(f"text_before + text_after must be at most {MAX_TOKENS:,}")
    text = np.broadcast_to(np.arange(before), (3, before))
    row, col = np.divmod(np.arange(rows * cols), cols)
    image = before + np.stack([np.zeros_like(row), row, col])
    start = before + max(rows, cols)
    tail = np.broadcast_to(start + np.arange(after), (3, after))
    return np.concatenate([text, image, tail], axis=1).astype(np.int64)


def apply_mrope(
    x: ArrayLike,
    position_ids: ArrayLike,
    mrope_section: Sequence[int],
    base: float = 10000.0,
    pairing: str = "adjacent",
) -> np.ndarray:
    """Multimodal RoPE: pair ``k`` of token ``i`` turns by ``position_ids[axis_k, i] · w_k``.

    ``axis_k`` comes from :func:`mrope_pair_axes`; ``w_k = base ** (-2k / d)``. A token
    whose three ids are equal (text) gets exactly :func:`pe_helpers.rope.apply_rope`.
    transformers' Qwen2-VL rotates with ``pairing="halves"`` (``rotate_half``).

    Parameters
    ----------
    x : array_like
        Rows to rotate, shape ``(n, d)``, ``d`` even and at most :data:`MAX_WIDTH`.
    position_ids : array_like
        Shape ``(3, n)``: rows t, h, w (see :func:`mrope_position_ids`).
    mrope_section : sequence of three ints
        Pairs per axis, adding up to ``d // 2``.
    base : float, default 10000.0
        Frequency base; must be > 0.
    pairing : {"adjacent", "halves"}
        Layout of the pairs, as in :func:`pe_helpers.rope.apply_rope`.

    Returns
    -------
    numpy.ndarray
        ``x`` turned; shape ``(n, d)``, float64.

    Examples
    --------
    >>> ids = np.array([[5], [5], [5]])  # a text token at position 5
    >>> x = np.ones((1, 8))
    >>> bool(np.allclose(apply_mrope(x, ids, (2, 1, 1)), apply_rope(x, [5])))
    True
    """
    x = _rows("x", x)
    ids = check_array("position_ids", position_ids, ndim=2).astype(np.float64)
    if ids.shape != (3, x.shape[0]):
        raise ValueError(
            f"position_ids must have shape (3, {x.shape[0]}) (rows t, h, w), got {ids.shape}"
        )
    pairing = check_choice("pairing", pairing, PAIRINGS)
    axes = mrope_pair_axes(mrope_section, x.shape[1])
    angles = ids[axes].T * frequencies(x.shape[1], check_base(base))
    return turn_pairs(x, np.cos(angles), np.sin(angles), pairing)


def decoupled_rope_scores(
    q_nope: ArrayLike,
    q_rope: ArrayLike,
    k_nope: ArrayLike,
    k_rope: ArrayLike,
    query_positions: ArrayLike,
    key_positions: ArrayLike,
    base: float = 10000.0,
) -> np.ndarray:
    """Scores of DeepSeek-V2's attention: ``[q^C; RoPE(q^R)] · [k^C; RoPE(k^R)]`` per head.

    Head ``h`` concatenates an unrotated part (``q_nope[:, h]``, ``k_nope[:, h]``) with a
    rotated part (``q_rope[:, h]`` and one key ``k_rope`` shared by every head), as in
    equations (14)–(17) of the DeepSeek-V2 report; the score is the dot product of the
    two concatenations (no ``1/√d`` scale here).

    Parameters
    ----------
    q_nope : array_like
        Shape ``(n_q, heads, d_nope)``.
    q_rope : array_like
        Shape ``(n_q, heads, d_rope)``, ``d_rope`` even.
    k_nope : array_like
        Shape ``(n_k, heads, d_nope)``.
    k_rope : array_like
        Shape ``(n_k, d_rope)``: one rotated key per token, for all heads.
    query_positions, key_positions : array_like
        1-D, one position per query / key.
    base : float, default 10000.0
        Frequency base of the rotated part.

    Returns
    -------
    numpy.ndarray
        Shape ``(heads, n_q, n_k)``.

    Examples
    --------
    >>> one = np.ones((1, 1, 2))
    >>> decoupled_rope_scores(one, one, one, np.ones((1, 2)), [0], [0]).tolist()
    [[[4.0]]]
    """
    qn = check_array("q_nope", q_nope, ndim=3).astype(np.float64)
    qr = check_array("q_rope", q_rope, ndim=3).astype(np.float64)
    kn = check_array("k_nope", k_nope, ndim=3).astype(np.float64)
    kr = _rows("k_rope", k_rope)
    if qr.shape[:2] != qn.shape[:2]:
        raise ValueError(
            f"q_rope must have shape ({qn.shape[0]}, {qn.shape[1]}, d_rope), got {qr.shape}"
        )
    if kn.shape[1:] != qn.shape[1:]:
        raise ValueError(
            f"k_nope must have shape (n_k, {qn.shape[1]}, {qn.shape[2]}), got {kn.shape}"
        )
    if kr.shape != (kn.shape[0], qr.shape[2]):
        raise ValueError(
            f"k_rope must have shape ({kn.shape[0]}, {qr.shape[2]}) (one key for all heads), "
            f"got {kr.shape}"
        )
    if qn.shape[0] * kn.shape[0] * qn.shape[1] > MAX_SCORES:
        raise ValueError(f"queries × keys × heads may be at most {MAX_SCORES:,} in one call")
    tq = _positions("query_positions", query_positions, qn.shape[0])
    tk = _positions("key_positions", key_positions, kn.shape[0])
    check_d_model(qr.shape[2], name="q_rope.shape[2]", maximum=MAX_WIDTH)
    base = check_base(base)
    rotated_q = apply_rope(qr.transpose(1, 0, 2), tq, base)  # (heads, n_q, d_rope)
    position = np.einsum("hqd,kd->hqk", rotated_q, apply_rope(kr, tk, base))
    return np.einsum("qhd,khd->hqk", qn, kn) + position
