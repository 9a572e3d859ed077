"""Additive attention biases that encode relative position: ALiBi and T5's buckets.

Pure numpy: nothing here draws. Both add a number to the logit of query ``i`` and key ``j``
that depends on ``j - i`` only, so every head's bias matrix is Toeplitz.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ._validate import check_array, check_bool, check_int, check_memory

__all__ = [
    "MAX_SLOPE",
    "ONE_HEAD_ALIBI_SLOPES",
    "alibi_slopes",
    "alibi_bias",
    "t5_relative_bucket",
    "t5_bias",
]

#: ALiBi's slopes for a model of one head: the steepest slope of an 8-head model, 1/2.
ONE_HEAD_ALIBI_SLOPES = (0.5,)


def alibi_slopes(n_heads: int) -> np.ndarray:
    """The ALiBi head slopes of Press, Smith and Lewis (2022), arXiv 2108.12409.

    For ``H`` a power of two, ``m_h = 2 ** (-8 h / H)`` for ``h = 1 .. H`` (8 heads: 1/2 ...
    1/256). Otherwise the first ``P = 2 ** floor(log2 H)`` slopes are those of ``P`` heads and
    the remaining ``H - P`` are every other slope (the 1st, 3rd, ...) of ``2P`` heads. This is
    the rule of the authors' code, ``get_slopes`` in
    https://github.com/ofirpress/attention_with_linear_biases/blob/master/fairseq/models/transformer.py
    (checked against that file).

    Parameters
    ----------
    n_heads : int
        Number of heads, >= 1.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_heads,)``, float64, in ``(0, 1)``.

    Examples
    --------
    >>> (1 / alibi_slopes(8)).tolist()
    [2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0]
    >>> (1 / alibi_slopes(6)).round(3).tolist()
    [4.0, 16.0, 64.0, 256.0, 2.0, 8.0]
    """
    n_heads = check_int("n_heads", n_heads, minimum=1)
    check_memory(f"n_heads = {n_heads}", 8 * 6 * n_heads)  # the slopes of P and 2P heads
    return slopes_of(n_heads)


def slopes_of(n_heads: int) -> np.ndarray:
    """:func:`alibi_slopes` for a checked ``n_heads`` (the model's tables call it)."""
    power = 2 ** int(math.floor(math.log2(n_heads)))
    own = 2.0 ** (-8.0 * np.arange(1, power + 1) / power)
    if power == n_heads:
        return own
    doubled = 2.0 ** (-8.0 * np.arange(1, 2 * power + 1) / (2 * power))
    return np.concatenate([own, doubled[0::2][: n_heads - power]])


def alibi_bias(
    n_positions: int, n_heads: int | None = None, *, slopes: ArrayLike | None = None
) -> np.ndarray:
    """ALiBi's additive logit bias ``-m_h * |i - j|`` for query ``i`` and key ``j``.

    Under a causal mask only ``j <= i`` is used, which is the paper's ``-m_h (i - j)``; without
    a mask the same penalty applies to keys on both sides (a symmetric extension).

    Parameters
    ----------
    n_positions : int
        Sequence length, >= 1.
    n_heads : int, optional
        Number of heads, >= 1: slopes from :func:`alibi_slopes`.
    slopes : array_like, optional
        Or the slopes themselves, one per head (then ``n_heads``, if given, must match): real
        numbers with ``|m| <= MAX_SLOPE``.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_heads, n_positions, n_positions)``, each slice Toeplitz.

    Examples
    --------
    >>> (256 * alibi_bias(3, 1)[0] + 0.0).tolist()
    [[0.0, -1.0, -2.0], [-1.0, 0.0, -1.0], [-2.0, -1.0, 0.0]]
    >>> alibi_bias(2, slopes=[1.0, 0.5])[:, 1, 0].tolist()
    [-1.0, -0.5]
    """
    n = check_int("n_positions", n_positions, minimum=1)
    if slopes is None:
        if n_heads is None:
            raise ValueError("give n_heads or slopes, got neither")
        heads = check_int("n_heads", n_heads, minimum=1)
    else:
        m = check_slopes(slopes)
        heads = m.size
        if n_heads is not None and check_int("n_heads", n_heads, minimum=1) != m.size:
            raise ValueError(f"slopes must have n_heads = {n_heads} entries, got {m.size}")
    check_memory(f"n_positions = {n} with n_heads = {heads}", 8 * (heads + 2) * n * n)
    return bias_of(n, slopes_of(heads) if slopes is None else m)


def bias_of(n: int, slopes: np.ndarray) -> np.ndarray:
    """:func:`alibi_bias` for checked sizes and slopes: shape ``(slopes.size, n, n)``."""
    distance = np.abs(np.subtract.outer(np.arange(n), np.arange(n)))
    return -slopes[:, None, None] * distance


#: Largest ALiBi slope (in absolute value) :func:`alibi_bias` and the model take: the bias
#: ``-m |i - j|`` of any length stays far from overflowing a float.
MAX_SLOPE = 1e6


def check_slopes(slopes: ArrayLike, name: str = "slopes") -> np.ndarray:
    """ALiBi slopes as a 1-D float64 array: real, finite, each ``|m| <= MAX_SLOPE``."""
    m = check_array(name, slopes, ndim=1).astype(np.float64)
    if np.abs(m).max() > MAX_SLOPE:
        raise ValueError(f"{name} must lie in [-{MAX_SLOPE:g}, {MAX_SLOPE:g}], got {m!r:.60}")
    return m


def t5_relative_bucket(
    relative_position: ArrayLike,
    *,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> np.ndarray:
    """T5's bucket of each relative position ``key - query``, as transformers computes it.

    Of the ``N`` buckets per side, ``N / 2`` hold the exact distances ``0 .. N/2 - 1``, the rest
    are log-spaced up to ``max_distance``, and every larger distance falls into the last bucket.
    The log step runs in float32 like ``T5Attention._relative_position_bucket`` in transformers'
    ``models/t5/modeling_t5.py``, so bucket edges agree with it even where float64 would not.

    Parameters
    ----------
    relative_position : array_like of int
        Offsets ``key_position - query_position``, any shape.
    bidirectional : bool, default True
        Separate buckets for keys after the query, in the upper half (encoder); False for causal
        decoders, where keys after the query share bucket 0 with offset 0.
    num_buckets : int, default 32
        Total number of buckets, >= 2 (>= 4 when bidirectional).
    max_distance : int, default 128
        Distance from which on every offset shares the last bucket; > the exact range.

    Returns
    -------
    numpy.ndarray
        Integer buckets in ``0 .. num_buckets - 1``, same shape as ``relative_position``.

    Examples
    --------
    >>> t5_relative_bucket([-200, -20, -7, 0, 1, 7, 8, 200]).tolist()
    [15, 10, 7, 0, 17, 23, 24, 31]
    >>> t5_relative_bucket([-300, -20, 0, 5], bidirectional=False).tolist()
    [31, 17, 0, 0]
    """
    rel = check_array("relative_position", relative_position, min_ndim=0)
    if not np.issubdtype(rel.dtype, np.integer):
        if not np.array_equal(rel, np.round(rel)):
            raise TypeError(f"relative_position must hold integers, got dtype {rel.dtype}")
        largest = float(np.abs(rel.astype(np.float64)).max())
        if largest >= 2**62:
            raise ValueError(f"relative_position must lie in (-2**62, 2**62), got {largest:g}")
        rel = rel.astype(np.int64)
    bidirectional = check_bool("bidirectional", bidirectional)
    num_buckets = check_int("num_buckets", num_buckets, minimum=4 if bidirectional else 2)
    max_distance = check_int("max_distance", max_distance, minimum=1)
    max_exact = (num_buckets // 2 if bidirectional else num_buckets) // 2
    if max_distance <= max_exact:
        per = " of a side" if bidirectional else ""
        raise ValueError(
            f"max_distance must exceed the {max_exact} exact buckets{per} (num_buckets = "
            f"{num_buckets}), got max_distance = {max_distance}"
        )
    return buckets_of(rel, bidirectional, num_buckets, max_distance)


def buckets_of(
    rel: np.ndarray, bidirectional: bool, num_buckets: int, max_distance: int
) -> np.ndarray:
    """:func:`t5_relative_bucket` for checked integer offsets and sizes (the model calls it)."""
    max_exact = (num_buckets // 2 if bidirectional else num_buckets) // 2
    buckets = np.zeros(rel.shape, dtype=np.int64)
    if bidirectional:
        num_buckets //= 2
        buckets += (rel > 0) * num_buckets
        distance = np.abs(rel)
    else:
        distance = -np.minimum(rel, 0)
    is_small = distance < max_exact
    # float32 throughout, as torch does for a float tensor divided by Python scalars.
    ratio = np.maximum(distance, 1).astype(np.float32) / np.float32(max_exact)
    scaled = (
        np.log(ratio)
        / np.float32(math.log(max_distance / max_exact))
        * np.float32(num_buckets - max_exact)
    )
    large = np.minimum(max_exact + scaled.astype(np.int64), num_buckets - 1)
    return buckets + np.where(is_small, distance, large)


#: Longest sequence :func:`t5_bias` builds a bias for (n x n entries per head).
MAX_BIAS_POSITIONS = 4096


def t5_bias(
    table: ArrayLike, n_positions: int, *, bidirectional: bool = True, max_distance: int = 128
) -> np.ndarray:
    """T5's additive logit bias from its learned table: ``table[bucket(j - i), h]``.

    Row ``i`` is the query, column ``j`` the key; the bucket of ``j - i`` comes from
    :func:`t5_relative_bucket` with ``num_buckets`` = the table's number of rows.

    Parameters
    ----------
    table : array_like
        Shape ``(num_buckets, n_heads)``: one learned number per bucket and head.
    n_positions : int
        Sequence length, 1 .. 4096.
    bidirectional : bool, default True
        Bucket by sign (encoder) or not (decoder).
    max_distance : int, default 128
        See :func:`t5_relative_bucket`.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_heads, n_positions, n_positions)``, float64.

    Examples
    --------
    >>> table = np.arange(8.0)[:, None]  # bucket b holds the number b
    >>> t5_bias(table, 4, max_distance=4)[0].tolist()
    [[0.0, 5.0, 6.0, 7.0], [1.0, 0.0, 5.0, 6.0], [2.0, 1.0, 0.0, 5.0], [3.0, 2.0, 1.0, 0.0]]
    """
    values = check_array("table", table, ndim=2).astype(np.float64)
    n = check_int("n_positions", n_positions, minimum=1, maximum=MAX_BIAS_POSITIONS)
    offsets = np.subtract.outer(np.arange(n), np.arange(n)).T  # [i, j] = j - i
    buckets = t5_relative_bucket(
        offsets, bidirectional=bidirectional, num_buckets=values.shape[0], max_distance=max_distance
    )
    return np.moveaxis(values[buckets], -1, 0)
