"""Lesson 12 · RoPE in today's architectures: the published settings and the measurements."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ..._validate import as_array, check_array, check_int, check_real
from ...rope_variants import apply_mrope, mrope_position_ids

__all__ = [
    "MAX_POSITIONS",
    "PUBLISHED_SETTINGS",
    "nope_layers",
    "nope_query_scale",
    "patch_scores",
    "position_scores",
    "relative_2d_deviation",
    "top_key_weight",
]

#: Most positions :func:`position_scores` places a query and a key at, and the widest vectors.
MAX_POSITIONS = 2048
MAX_WIDTH = 4096
#: Most entries :func:`nope_query_scale` and :func:`top_key_weight` compute.
MAX_ENTRIES = 10**7
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
        "Qwen/Qwen2-VL-7B-Instruct config.json; transformers qwen2_vl "
        "Qwen2VLRotaryEmbedding.recomposition_frequencies",
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
        "Llama 4",
        "attn_temperature_tuning (NoPE layers)",
        "on, floor_scale 8192, attn_scale 0.1 (transformers defaults)",
        "transformers configuration_llama4.py defaults; modeling_llama4.py Llama4TextAttention",
    ),
    PublishedSetting(
        "Gemma 4",
        "rope_type, partial_rotary_factor",
        '"proportional", 0.25, head 512 in full attention (transformers defaults)',
        "transformers configuration_gemma4.py defaults; modeling_rope_utils.py "
        "_compute_proportional_rope_parameters (p-RoPE: Barbero et al. 2024, arXiv 2410.06205)",
    ),
)


def position_scores(
    rotate: Callable[[np.ndarray, np.ndarray], np.ndarray],
    q: ArrayLike,
    k: ArrayLike,
    positions: ArrayLike,
) -> np.ndarray:
    """Entry ``[a, b]``: ``rotate(q at positions[a]) · rotate(k at positions[b])``, what the
    positions alone do to the score under the encoding ``rotate(x, positions)``.

    Parameters
    ----------
    rotate : callable
        ``rotate(x, positions)`` returns ``x`` (shape ``(n, d)``) with row ``i`` encoded
        at ``positions[i]``, e.g. ``lambda x, t: apply_partial_rope(x, t, 0.25)``; anything
        else (or an error it raises) is a ``ValueError`` naming ``rotate``.
    q, k : array_like
        1-D vectors of the same width, at most :data:`MAX_WIDTH`.
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
    if q.shape != k.shape or q.size > MAX_WIDTH:
        raise ValueError(f"q and k must have one width, at most {MAX_WIDTH}: {q.size}, {k.size}")
    t = check_array("positions", positions, ndim=1).astype(np.float64)
    if t.size > MAX_POSITIONS:
        raise ValueError(f"positions may have at most {MAX_POSITIONS} entries, got {t.size}")
    rows = np.ones((t.size, 1))
    return _rotated(rotate, rows * q, t, "q") @ _rotated(rotate, rows * k, t, "k").T


def _rotated(rotate: Callable, x: np.ndarray, t: np.ndarray, what: str) -> np.ndarray:
    """``rotate(x, t)``, checked: a finite real array of ``x``'s shape, or a named error."""
    try:
        out = rotate(x.copy(), t.copy())
    except Exception as exc:  # the function is the caller's: say that it raised, and what
        raise ValueError(f"rotate raised {type(exc).__name__} on {what}: {exc}") from exc
    out = check_array(f"rotate's result for {what}", out, min_ndim=0)
    if out.shape != x.shape:
        raise ValueError(
            f"rotate must return an array of x's shape {x.shape} ({what} at every position), "
            f"got shape {out.shape}"
        )
    return out.astype(np.float64)


def patch_scores(
    q: ArrayLike,
    k: ArrayLike,
    grid_h: int,
    grid_w: int,
    mrope_section: object,
    base: float = 10000.0,
) -> np.ndarray:
    """Multimodal-RoPE scores of ``q`` at every patch of an image against ``k`` at every patch,
    numbered row by row with the ids of :func:`pe_helpers.rope_variants.mrope_position_ids`.

    Parameters
    ----------
    q, k : array_like
        1-D vectors of the same even width ``d``, at most :data:`MAX_WIDTH`.
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
    if q.shape != k.shape or q.size > MAX_WIDTH:
        raise ValueError(f"q and k must have one width, at most {MAX_WIDTH}: {q.size}, {k.size}")
    rows = check_int("grid_h", grid_h, minimum=1, maximum=MAX_GRID_SIDE)
    cols = check_int("grid_w", grid_w, minimum=1, maximum=MAX_GRID_SIDE)
    ids = mrope_position_ids(0, rows, cols)
    ones = np.ones((rows * cols, 1))
    # apply_mrope checks the width, the sections and the base
    rotated_q = apply_mrope(ones * q, ids, mrope_section, base)
    return rotated_q @ apply_mrope(ones * k, ids, mrope_section, base).T


def relative_2d_deviation(scores: ArrayLike, grid_h: int, grid_w: int) -> float:
    """The largest spread of patch scores sharing one offset ``(Δh, Δw)``, over the largest
    ``|score|``: zero when the score depends on the 2-D offset only.

    Parameters
    ----------
    scores : array_like
        As from :func:`patch_scores`, ``(grid_h * grid_w, grid_h * grid_w)``.
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
    rows = check_int("grid_h", grid_h, minimum=1, maximum=MAX_GRID_SIDE)
    cols = check_int("grid_w", grid_w, minimum=1, maximum=MAX_GRID_SIDE)
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
    """Indices (from 0) of the layers with no RoPE when every ``interval``-th layer skips it:
    ``(layer_id + 1) % nope_layer_interval == 0``, as Llama 4 and SmolLM3 have it.

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
    num_layers = check_int("num_layers", num_layers, minimum=1, maximum=1000)
    interval = check_int("interval", interval, minimum=1)
    return [layer for layer in range(num_layers) if (layer + 1) % interval == 0]


def nope_query_scale(
    positions: ArrayLike,
    floor_scale: int = 8192,
    attn_scale: float = 0.1,
) -> np.ndarray:
    """Llama 4's temperature for the query at each position of a NoPE layer.

    ``s(t) = attn_scale * ln(floor((t + 1) / floor_scale) + 1) + 1`` multiplies the query at
    position ``t`` (from 0), as transformers' ``Llama4TextAttention`` does when
    ``attn_temperature_tuning`` is on: 1 for the first ``floor_scale - 1`` positions, then
    growing by steps, about logarithmically.

    Parameters
    ----------
    positions : array_like
        Positions from 0, finite and >= 0.
    floor_scale : int, default 8192
        Tokens per step of the floor, >= 1.
    attn_scale : float, default 0.1
        Strength of the temperature, >= 0.

    Returns
    -------
    numpy.ndarray
        Float64, the shape of ``positions``.

    Examples
    --------
    >>> nope_query_scale([0, 8190, 8191]).round(4).tolist()  # ⌊(t + 1) / 8192⌋ = 0, 0, 1
    [1.0, 1.0, 1.0693]
    """
    size = as_array("positions", positions).size  # before a pass over the values
    if size > MAX_ENTRIES:
        raise ValueError(f"positions may have at most {MAX_ENTRIES:,} entries, got {size:,}")
    t = check_array("positions", positions, min_ndim=0).astype(np.float64)
    if np.any(t < 0):
        raise ValueError("positions must be >= 0 (they count from 0)")
    steps = check_int("floor_scale", floor_scale, minimum=1)
    strength = check_real("attn_scale", attn_scale)
    if strength < 0:
        raise ValueError(f"attn_scale must be >= 0, got {strength}")
    return np.log1p(np.floor((t + 1.0) / steps)) * strength + 1.0


def top_key_weight(n_keys: ArrayLike, margin: ArrayLike) -> np.ndarray:
    """Softmax weight ``1 / (1 + (n - 1) exp(-margin))`` of one key whose score is ``margin``
    above ``n_keys - 1`` equal others.

    Parameters
    ----------
    n_keys : array_like
        Number of keys, >= 1.
    margin : array_like
        Score of the top key minus that of every other key; broadcasts with ``n_keys``.

    Returns
    -------
    numpy.ndarray
        Float64 in ``(0, 1]``.

    Examples
    --------
    >>> top_key_weight([1, 2], 0.0).tolist()
    [1.0, 0.5]
    """
    n = check_array("n_keys", n_keys, min_ndim=0).astype(np.float64)
    if np.any(n < 1):
        raise ValueError("n_keys must be >= 1")
    gap = check_array("margin", margin, min_ndim=0).astype(np.float64)
    try:
        size = math.prod(np.broadcast_shapes(n.shape, gap.shape))
    except ValueError:
        raise ValueError(f"margin {gap.shape} must broadcast with n_keys {n.shape}") from None
    if size > MAX_ENTRIES:
        raise ValueError(f"n_keys and margin make {size:,} entries, more than {MAX_ENTRIES:,}")
    with np.errstate(over="ignore", invalid="ignore"):  # exp(-margin) past a float: limit 0
        weight = 1.0 / (1.0 + (n - 1.0) * np.exp(-gap))
    return np.where(n == 1, 1.0, weight)[()]  # one key takes all (0 * inf above: NaN)
