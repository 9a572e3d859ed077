"""Stretching RoPE to longer contexts: the frequency recipes that real models ship.

A model's ``rope_parameters`` block (``rope_scaling`` before transformers v5) says how its
rotary frequencies were changed to read past its training length. :func:`rope_frequencies` turns
it into per-pair frequencies and an attention factor for each ``rope_type`` of
:data:`ROPE_TYPES`. Pure numpy, float64; nothing draws.

The semantics follow transformers' ``src/transformers/modeling_rope_utils.py`` exactly, as shipped
in the PyPI wheels of transformers 5.23.0 and 5.24.0 (the same file, sha256 ``2563c539...0b0f9``);
``make crosscheck`` installs the newest 5.x and compares against it. The older GitHub snapshot at
commit ``0044e3b3facff1a1ad60b235c69d5b45beae75a4`` (v4 era: ``rope_scaling``,
``config.rope_theta``) was read for the history of the renaming. The points where people most
often go wrong, all mirrored here:

* "dynamic" measures the current length against ``max_position_embeddings``, never against
  ``original_max_position_embeddings`` (:func:`dynamic_ntk_base`).
* "yarn", "llama3" and "longrope" read ``original_max_position_embeddings`` from the block and,
  when it is missing, fall back to ``max_position_embeddings`` (transformers'
  ``standardize_rope_params``). A YaRN ``factor`` of ``None`` (or a missing longrope ``factor``)
  becomes ``max_position_embeddings / original_max_position_embeddings``.
* YaRN's ``beta_fast`` (default 32) and ``beta_slow`` (default 1) count *rotations* within the
  original context (:func:`yarn_correction_range`). A falsy value (0 or None) means the
  default, as in transformers' ``get("beta_fast") or 32``.
* YaRN's attention factor is ``0.1 ln s + 1``, or ``get_mscale(s, mscale) /
  get_mscale(s, mscale_all_dim)`` when both are set and non-zero (DeepSeek configs), unless
  ``attention_factor`` is given. LongRoPE's is ``sqrt(1 + ln s / ln L0)``; "llama3" has none.
* "longrope" uses ``long_factor`` only when ``seq_len`` exceeds the original length.
* ``partial_rotary_factor`` means one thing under "proportional" (Gemma 4's full-attention
  layers, whose optional ``factor`` divides every pair) and another elsewhere: :func:`rotary_dim`.

Deliberate differences, for inputs transformers accepts with a logged warning or a crash: unknown
keys, ``factor <= 0``, ``rope_theta <= 1``, an odd rotary dimension, ``high_freq_factor <=
low_freq_factor`` and a rotary dimension of 2 with "dynamic" raise a ``ValueError`` naming the
parameter. transformers v5 computes "default" per model class; here it honours
``partial_rotary_factor`` as GPT-NeoX's and GLM's do (Llama's ignores it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._validate import (
    check_array,
    check_bool,
    check_d_model,
    check_int,
    check_real,
    check_rope_base,
)

__all__ = [
    "ROPE_TYPES",
    "rope_frequencies",
    "rotary_dim",
    "default_frequencies",
    "ntk_aware_base",
    "dynamic_ntk_base",
    "rotations_in_context",
    "get_mscale",
    "yarn_correction_dim",
    "yarn_correction_range",
    "interpolation_weights",
    "classify_pairs",
]

ROPE_TYPES = ("default", "linear", "dynamic", "yarn", "llama3", "longrope", "proportional")

#: Every key :func:`rope_frequencies` reads; ``type`` is the pre-v4.45 name of ``rope_type``.
ROPE_PARAMETER_KEYS = frozenset(
    {
        "rope_type",
        "type",
        "rope_theta",
        "factor",
        "original_max_position_embeddings",
        "beta_fast",
        "beta_slow",
        "mscale",
        "mscale_all_dim",
        "attention_factor",
        "low_freq_factor",
        "high_freq_factor",
        "short_factor",
        "long_factor",
        "partial_rotary_factor",
        "truncate",
    }
)

#: transformers' ``RotaryEmbeddingConfigMixin.default_theta``, used when ``rope_theta`` is absent.
DEFAULT_ROPE_THETA = 10_000.0

#: The keys a rope type cannot do without ("default" and "proportional" need none).
_REQUIRED = {
    "linear": ("factor",),
    "dynamic": ("factor",),
    "yarn": ("factor",),
    "llama3": ("factor", "low_freq_factor", "high_freq_factor"),
    "longrope": ("short_factor", "long_factor"),
}
#: Widest head the formulas accept (published heads are 64 to 512 wide): keeps every call small.
MAX_HEAD_DIM = 2**16


def _optional_count(name: str, value: Any) -> int | None:
    """None, or ``value`` as an int >= 1."""
    return None if value is None else check_int(name, value, minimum=1)


def _check_head_dim(head_dim: Any, name: str = "head_dim") -> int:
    """An even head width, 2 to :data:`MAX_HEAD_DIM`."""
    return check_d_model(head_dim, name=name, maximum=MAX_HEAD_DIM)


def _optional_number(name: str, value: Any, default: float, *, positive: bool = True) -> float:
    """transformers' ``get(name) or default``: None and 0 give the default, else a finite number."""
    if value is None:
        return default
    if isinstance(value, Real) and not isinstance(value, (bool, np.bool_)) and value == 0:
        return default
    return check_real(name, value, positive=positive)


def _check_block(rope_parameters: Any, *, require: bool = True) -> tuple[dict[str, Any], str]:
    """Copy the block, check its keys and return it with its rope type."""
    if not isinstance(rope_parameters, Mapping):
        raise TypeError(
            f"rope_parameters must be a dict like a config's rope_parameters, "
            f"got {type(rope_parameters).__name__}: {rope_parameters!r}"
        )
    params = dict(rope_parameters)
    unknown = sorted(str(k) for k in params if k not in ROPE_PARAMETER_KEYS)
    if unknown:
        raise ValueError(
            f"unknown key(s) in rope_parameters: {', '.join(map(repr, unknown))}; "
            f"known keys: {', '.join(sorted(ROPE_PARAMETER_KEYS))}"
        )
    rope_type = params.get("rope_type", params.get("type", "default"))
    if rope_type not in ROPE_TYPES:
        raise ValueError(
            f"unknown rope_type {rope_type!r}; expected one of {', '.join(map(repr, ROPE_TYPES))}"
        )
    for key in _REQUIRED.get(rope_type, ()) if require else ():
        if key not in params:
            raise ValueError(f"rope_type {rope_type!r} needs the key {key!r} in rope_parameters")
    return params, rope_type


def _rope_theta(params: Mapping[str, Any]) -> float:
    """The block's ``rope_theta`` (default 10000), > 1."""
    theta = params.get("rope_theta")
    return DEFAULT_ROPE_THETA if theta is None else check_rope_base(theta, "rope_theta")


def _factor(params: Mapping[str, Any]) -> float:
    """The block's ``factor``, > 0."""
    return check_real("factor", params["factor"], positive=True)


def _original_length(
    params: Mapping[str, Any], rope_type: str, max_position_embeddings: int | None
) -> int:
    """``original_max_position_embeddings``, falling back to ``max_position_embeddings``."""
    value = params.get("original_max_position_embeddings")
    if value is None:
        if max_position_embeddings is None:
            raise ValueError(
                f"rope_type {rope_type!r} needs the key 'original_max_position_embeddings' in "
                "rope_parameters (or max_position_embeddings, which transformers falls back to)"
            )
        return max_position_embeddings
    return check_int("original_max_position_embeddings", value, minimum=1)


def _factor_or_implicit(
    params: Mapping[str, Any], rope_type: str, max_position_embeddings: int | None, original: int
) -> float:
    """The block's ``factor``, or ``max_position_embeddings / original`` when it is None."""
    if params.get("factor") is not None:
        return _factor(params)
    if max_position_embeddings is None:
        raise ValueError(
            f"rope_type {rope_type!r} with factor None needs max_position_embeddings "
            "(the factor becomes max_position_embeddings / original_max_position_embeddings)"
        )
    return max_position_embeddings / original


def rotary_dim(rope_parameters: Mapping[str, Any], head_dim: int) -> int:
    """Number of dimensions that turn with position, read from ``partial_rotary_factor`` ``p``.

    Only ``rope_type`` and ``partial_rotary_factor`` (default 1) are read. For every type but
    "proportional" it is ``int(head_dim * p)``, the first dimensions of the head; it must be
    even, and there are ``rotary_dim // 2`` frequencies. For "proportional" it is
    ``2 * int(p * head_dim // 2)``, the dimensions of the fastest pairs, while the frequencies
    still number ``head_dim // 2`` (the others are 0); ``p`` may be 0 there (no pair turns).

    Examples
    --------
    >>> rotary_dim({"rope_type": "default"}, 128)
    128
    >>> rotary_dim({"rope_type": "default", "partial_rotary_factor": 0.25}, 128)
    32
    >>> rotary_dim({"rope_type": "proportional", "partial_rotary_factor": 0.25}, 512)
    128
    """
    params, rope_type = _check_block(rope_parameters, require=False)
    head_dim = _check_head_dim(head_dim)
    proportional = rope_type == "proportional"
    factor = params.get("partial_rotary_factor")
    if factor is not None:
        factor = check_real("partial_rotary_factor", factor, positive=not proportional, minimum=0.0)
    factor = 1.0 if factor is None else factor
    if factor > 1:
        raise ValueError(f"partial_rotary_factor must be in (0, 1], got {factor!r}")
    if proportional:
        # transformers: rope_angles = int(rope_proportion * head_dim // 2)
        return 2 * int(factor * head_dim // 2)
    dim = int(head_dim * factor)
    if dim < 2 or dim % 2:
        raise ValueError(
            f"partial_rotary_factor={factor!r} with head_dim={head_dim} gives an odd or empty "
            f"rotary dimension {dim}; it must be even and at least 2"
        )
    return dim


# --------------------------------------------------------------------------------- formulas


def default_frequencies(base: float, dim: int) -> np.ndarray:
    """Plain RoPE frequencies ``theta_i = base ** (-2i / dim)``, ``i = 0 .. dim/2 - 1``.

    Returns a float64 array of shape ``(dim // 2,)``, from 1 down to just above ``1 / base``.
    ``base`` must be > 1 and ``dim`` even, at most ``MAX_HEAD_DIM`` (65536).

    Examples
    --------
    >>> default_frequencies(10000.0, 4).tolist()
    [1.0, 0.01]
    """
    base = check_rope_base(base)
    dim = _check_head_dim(dim, "dim")
    return 1.0 / base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)


def _ntk_args(base: Any, head_dim: Any, factor: Any) -> tuple[float, int, float]:
    """The checked base, head width (> 2) and factor of an NTK formula."""
    head_dim = _check_head_dim(head_dim)
    if head_dim <= 2:
        raise ValueError(f"head_dim must be > 2 for the NTK exponent d/(d-2), got {head_dim}")
    base = check_real("base", base, positive=True)
    return base, head_dim, check_real("factor", factor, positive=True)


def _raised_base(base: float, ratio: float, head_dim: int, what: str) -> float:
    """``base * ratio ** (d / (d - 2))``; a ValueError naming ``what`` past 1e300."""
    log_base = math.log(base) + head_dim / (head_dim - 2) * math.log(ratio)
    if log_base > math.log(1e300):
        raise ValueError(
            f"{what} give a base of about 10^{log_base / math.log(10):.0f}, past the largest "
            "float: use a smaller factor or base"
        )
    return base * ratio ** (head_dim / (head_dim - 2))


def ntk_aware_base(base: float, head_dim: int, factor: float) -> float:
    """NTK-aware base ``b' = b * s ** (d / (d - 2))``.

    ``d`` is the rotary dimension (even, > 2) and ``s`` the context factor. The fastest pair
    keeps its frequency and the slowest is divided by exactly ``s``.

    Examples
    --------
    >>> round(ntk_aware_base(10000.0, 128, 2.0))
    20221
    """
    base, head_dim, factor = _ntk_args(base, head_dim, factor)
    return _raised_base(base, factor, head_dim, f"base = {base:g} and factor = {factor:g}")


def dynamic_ntk_base(
    base: float, head_dim: int, factor: float, seq_len: int, max_position_embeddings: int
) -> float:
    """Base used by "dynamic" at current length ``L``: ``b * (s L / L0 - (s - 1)) ** (d/(d-2))``.

    ``L0`` is ``max_position_embeddings`` (not the original length: transformers' choice); an
    ``L`` below it counts as ``L0``, which gives ``b`` back. The bracket is computed as
    ``1 + s (L / L0 - 1)``, the same number without the cancellation of a huge ``s``.

    Examples
    --------
    >>> dynamic_ntk_base(10000.0, 128, 2.0, 2048, 4096)
    10000.0
    >>> round(dynamic_ntk_base(10000.0, 128, 2.0, 4096 * 2, 4096))
    30528
    """
    base, head_dim, factor = _ntk_args(base, head_dim, factor)
    seq_len = check_int("seq_len", seq_len, minimum=1)
    length0 = check_int("max_position_embeddings", max_position_embeddings, minimum=1)
    what = f"base = {base:g}, factor = {factor:g} and seq_len / max_position_embeddings"
    ratio = 1.0 + factor * (max(seq_len, length0) / length0 - 1.0)
    return _raised_base(base, ratio, head_dim, what)


@np.errstate(over="ignore")  # too many turns are refused by their value
def rotations_in_context(inv_freq: ArrayLike, length: float) -> np.ndarray:
    """Turns each pair makes over ``length`` tokens: ``r_i = length / lambda_i``.

    YaRN compares these with ``beta_fast`` and ``beta_slow`` at ``length = L0``.

    Examples
    --------
    >>> rotations_in_context([np.pi], 4).tolist()
    [2.0]
    """
    length = check_real("length", length, positive=True)
    freq = check_array("inv_freq", inv_freq, min_ndim=0).astype(np.float64)
    if np.any(freq <= 0):
        raise ValueError(f"inv_freq must be > 0 everywhere, got {freq!r:.60}")
    turns = length * freq / (2 * np.pi)
    if not np.all(np.isfinite(turns)):
        raise ValueError(
            f"length = {length:g} with these inv_freq gives more turns than a float holds"
        )
    return turns


def get_mscale(scale: float, mscale: float = 1.0) -> float:
    """YaRN's magnitude factor: 1 for ``scale <= 1``, else ``0.1 * mscale * ln(scale) + 1``.

    Examples
    --------
    >>> round(get_mscale(4.0), 6)
    1.138629
    >>> get_mscale(0.5)
    1.0
    """
    scale, mscale = check_real("scale", scale), check_real("mscale", mscale)
    if scale <= 1:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0


def yarn_correction_dim(
    num_rotations: float, dim: int, base: float, original_max_position_embeddings: int
) -> float:
    """Pair index (in units of dimensions / 2) that turns ``num_rotations`` times in ``L0``.

    transformers' ``find_correction_dim``: ``d ln(L0 / (2 pi r)) / (2 ln b)``, with ``dim`` the
    rotary dimension (an even int), ``r > 0`` and ``b > 1`` finite numbers.

    Examples
    --------
    >>> round(yarn_correction_dim(32, 128, 10000.0, 4096), 3)
    20.944
    """
    num_rotations = check_real("num_rotations", num_rotations, positive=True)
    dim = _check_head_dim(dim, "dim")
    base = check_rope_base(base)
    length0 = check_int(
        "original_max_position_embeddings", original_max_position_embeddings, minimum=1
    )
    return (dim * math.log(length0 / (num_rotations * 2 * math.pi))) / (2 * math.log(base))


def _yarn_setup(
    params: Mapping[str, Any], head_dim: int, max_position_embeddings: int | None
) -> tuple[float, float, float]:
    """YaRN's ``factor`` and ramp bounds ``(low, high)``, clamped to ``[0, dim - 1]``."""
    dim = rotary_dim(params, head_dim)
    base = _rope_theta(params)
    original = _original_length(params, "yarn", max_position_embeddings)
    factor = _factor_or_implicit(params, "yarn", max_position_embeddings, original)
    beta_fast = _optional_number("beta_fast", params.get("beta_fast"), 32.0)
    beta_slow = _optional_number("beta_slow", params.get("beta_slow"), 1.0)
    truncate = params.get("truncate", True)
    if truncate is not None:
        check_bool("truncate", truncate)
    low = yarn_correction_dim(beta_fast, dim, base, original)
    high = yarn_correction_dim(beta_slow, dim, base, original)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    return factor, max(low, 0), min(high, dim - 1)


def _ramp(low: float, high: float, size: int) -> np.ndarray:
    """YaRN's linear ramp over the pair index, 0 up to ``low`` and 1 from ``high``."""
    if low == high:
        high += 0.001  # transformers: "Prevent singularity"
    return np.clip((np.arange(size, dtype=np.float64) - low) / (high - low), 0.0, 1.0)


def yarn_correction_range(
    rope_parameters: Mapping[str, Any],
    head_dim: int,
    *,
    max_position_embeddings: int | None = None,
) -> tuple[float, float]:
    """YaRN's ramp bounds ``(low, high)`` over the pair index, as transformers computes them.

    Pairs turning more than ``beta_fast`` times in the original context (index ``<= low``) keep
    their frequency, pairs turning fewer than ``beta_slow`` times (index ``>= high``) are divided
    by ``factor``, those between are blended linearly. Arguments as in :func:`rope_frequencies`;
    the bounds are integers unless ``truncate`` is false.

    Examples
    --------
    >>> p = {"rope_type": "yarn", "factor": 40, "original_max_position_embeddings": 4096}
    >>> yarn_correction_range(p, 64)
    (10, 23)
    """
    params, rope_type = _check_block(rope_parameters)
    if rope_type != "yarn":
        raise ValueError(f"yarn_correction_range needs rope_type 'yarn', got {rope_type!r}")
    max_pos = _optional_count("max_position_embeddings", max_position_embeddings)
    _, low, high = _yarn_setup(params, head_dim, max_pos)
    return low, high


def _llama3_bands(
    params: Mapping[str, Any], base: float, dim: int, original: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Plain frequencies, the low-frequency and medium masks and ``smooth`` of "llama3"."""
    low_ff = check_real("low_freq_factor", params["low_freq_factor"], positive=True)
    high_ff = check_real("high_freq_factor", params["high_freq_factor"], positive=True)
    if high_ff <= low_ff:
        raise ValueError(
            f"high_freq_factor must be > low_freq_factor, got high_freq_factor={high_ff!r} "
            f"and low_freq_factor={low_ff!r}"
        )
    inv_freq = default_frequencies(base, dim)
    wavelen = 2 * math.pi / inv_freq
    low = wavelen > original / low_ff
    medium = ~(wavelen < original / high_ff) & ~low
    smooth = (original / wavelen - low_ff) / (high_ff - low_ff)
    return inv_freq, low, medium, smooth


@np.errstate(all="ignore")  # an overflow is refused at the end, by its value
def rope_frequencies(
    rope_parameters: Mapping[str, Any],
    head_dim: int,
    *,
    max_position_embeddings: int | None = None,
    seq_len: int | None = None,
) -> tuple[np.ndarray, float]:
    """Per-pair RoPE frequencies and attention factor of a ``rope_parameters`` block.

    The numpy twin of transformers' ``ROPE_INIT_FUNCTIONS[rope_type](config, seq_len=...)``.

    Parameters
    ----------
    rope_parameters : dict
        Keys as in a transformers v5 ``rope_parameters`` dict (:data:`ROPE_PARAMETER_KEYS`):
        ``rope_type`` (default "default"), ``rope_theta`` (default 10000), ``factor``, ...
        Keys another type uses are ignored; unknown keys are an error.
    head_dim : int
        Width of one attention head (for DeepSeek's MLA: ``qk_rope_head_dim``); even.
    max_position_embeddings : int, optional
        The config's ``max_position_embeddings``: the reference length of "dynamic" (required
        there), the fallback for a missing ``original_max_position_embeddings``, and the
        numerator of an implicit YaRN / LongRoPE factor.
    seq_len : int, optional
        Current sequence length: "dynamic" rescales its base when it exceeds
        ``max_position_embeddings``; "longrope" switches to ``long_factor`` when it exceeds
        ``original_max_position_embeddings``. Other types ignore it.

    Returns
    -------
    inv_freq : numpy.ndarray
        Float64, shape ``(rotary_dim // 2,)``: radians per token of each pair; for
        "proportional", shape ``(head_dim // 2,)``, with 0 for the pairs that never turn.
    attention_factor : float
        Multiplies cos and sin (so attention logits scale by its square); 1.0 where unused.

    Examples
    --------
    >>> inv, att = rope_frequencies({"rope_type": "linear", "factor": 4.0}, 4)
    >>> inv.tolist(), att
    ([0.25, 0.0025], 1.0)
    >>> llama31 = {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0,
    ...            "low_freq_factor": 1.0, "high_freq_factor": 4.0,
    ...            "original_max_position_embeddings": 8192}
    >>> inv, att = rope_frequencies(llama31, 128)
    >>> inv.shape, att
    ((64,), 1.0)
    >>> _, att = rope_frequencies({"rope_type": "yarn", "factor": 4.0,
    ...     "original_max_position_embeddings": 32768}, 128)
    >>> round(att, 6)
    1.138629

    The same ``partial_rotary_factor``, read two ways (a head of 8, four pairs):

    >>> p = {"partial_rotary_factor": 0.5, "rope_theta": 10000.0}
    >>> rope_frequencies(dict(p, rope_type="default"), 8)[0].tolist()  # first 4 dims turn
    [1.0, 0.01]
    >>> rope_frequencies(dict(p, rope_type="proportional"), 8)[0].tolist()  # slowest pairs stop
    [1.0, 0.1, 0.0, 0.0]
    """
    params, rope_type = _check_block(rope_parameters)
    head_dim = _check_head_dim(head_dim)
    max_pos = _optional_count("max_position_embeddings", max_position_embeddings)
    seq_len = _optional_count("seq_len", seq_len)
    dim = rotary_dim(params, head_dim)
    base = _rope_theta(params)
    original = None
    if rope_type in ("yarn", "llama3", "longrope"):
        original = _original_length(params, rope_type, max_pos)
    given = params.get("attention_factor")  # read by "yarn" and "longrope" only
    if given is not None:
        given = check_real("attention_factor", given, minimum=0.0)
    attention_factor = 1.0

    if rope_type in ("default", "linear"):
        inv_freq = default_frequencies(base, dim)
        if rope_type == "linear":
            inv_freq = inv_freq / _factor(params)
    elif rope_type == "proportional":
        # theta_i = base^(-2i / head_dim) for the first dim / 2 pairs, 0 for the rest; / factor
        factor = _factor(params) if "factor" in params else 1.0
        inv_freq = default_frequencies(base, head_dim)
        inv_freq[dim // 2 :] = 0.0
        inv_freq = inv_freq / factor
    elif rope_type == "dynamic":
        factor = _factor(params)
        if max_pos is None:
            raise ValueError(
                "rope_type 'dynamic' needs max_position_embeddings (its reference length)"
            )
        if dim <= 2:
            raise ValueError(f"rope_type 'dynamic' needs a rotary dimension > 2, got {dim}")
        length = max_pos if seq_len is None else seq_len
        inv_freq = default_frequencies(dynamic_ntk_base(base, dim, factor, length, max_pos), dim)
    elif rope_type == "yarn":
        factor, low, high = _yarn_setup(params, head_dim, max_pos)
        attention_factor = given
        if given is None:
            mscale, mscale_all_dim = (
                _optional_number(key, params.get(key), 0.0, positive=False)
                for key in ("mscale", "mscale_all_dim")
            )
            if mscale and mscale_all_dim:
                attention_factor = get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim)
            else:
                attention_factor = get_mscale(factor)
        extrapolation = default_frequencies(base, dim)
        ramp = _ramp(low, high, dim // 2)
        inv_freq = extrapolation / factor * ramp + extrapolation * (1 - ramp)
    elif rope_type == "llama3":
        factor = _factor(params)
        inv_freq, low, medium, smooth = _llama3_bands(params, base, dim, original)
        scaled = np.where(low, inv_freq / factor, inv_freq)
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
        inv_freq = np.where(medium, smoothed, scaled)
    else:  # longrope
        factors = {}
        for key in ("short_factor", "long_factor"):
            values = params[key]
            if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
                raise TypeError(f"{key} must be a list of numbers, got {values!r}")
            arr = np.asarray(
                [check_real(f"{key}[{i}]", v, positive=True) for i, v in enumerate(values)]
            )
            if arr.shape != (dim // 2,):
                raise ValueError(
                    f"{key} must have rotary_dim // 2 = {dim // 2} entries, got {arr.size}"
                )
            factors[key] = arr
        factor = _factor_or_implicit(params, "longrope", max_pos, original)
        if given is not None:
            attention_factor = given
        elif factor > 1.0:
            attention_factor = math.sqrt(1 + math.log(factor) / math.log(original))
        chosen = "long_factor" if seq_len and seq_len > original else "short_factor"
        inv_freq = default_frequencies(base, dim) / factors[chosen]
    attention_factor = float(attention_factor)
    if not (np.all(np.isfinite(inv_freq)) and math.isfinite(attention_factor)):
        raise ValueError(
            f"rope_parameters {dict(rope_parameters)!r:.300} give frequencies or an attention "
            "factor past the largest float: the factor or the base is too extreme"
        )
    return inv_freq, attention_factor


# ------------------------------------------------------------------------ per-pair picture


@np.errstate(over="ignore")  # a huge base: wavelengths of inf sort as they should
def interpolation_weights(
    rope_parameters: Mapping[str, Any],
    head_dim: int,
    *,
    max_position_embeddings: int | None = None,
) -> np.ndarray:
    """How far each pair moves from ``theta_i`` towards ``theta_i / s``, from 0 to 1.

    For the types that blend the two, ``theta'_i = w_i theta_i / s + (1 - w_i) theta_i``:
    "default" (all 0), "linear" (all 1), "llama3" (``w = 1 - smooth``) and "yarn" (``w`` is
    the ramp). "dynamic" and "longrope" change the base or use per-pair factors instead, so
    they have no such weights.

    Arguments as in :func:`rope_frequencies`; returns float64 in ``[0, 1]``, one per pair.

    Examples
    --------
    >>> interpolation_weights({"rope_type": "linear", "factor": 2.0}, 4).tolist()
    [1.0, 1.0]
    """
    params, rope_type = _check_block(rope_parameters)
    head_dim = _check_head_dim(head_dim)
    max_pos = _optional_count("max_position_embeddings", max_position_embeddings)
    dim = rotary_dim(params, head_dim)
    if rope_type == "default":
        return np.zeros(dim // 2)
    if rope_type == "linear":
        _factor(params)
        return np.ones(dim // 2)
    if rope_type == "yarn":
        _, low, high = _yarn_setup(params, head_dim, max_pos)
        return _ramp(low, high, dim // 2)
    if rope_type == "llama3":
        original = _original_length(params, rope_type, max_pos)
        _factor(params)
        _, low, medium, smooth = _llama3_bands(params, _rope_theta(params), dim, original)
        return np.where(medium, 1 - smooth, np.where(low, 1.0, 0.0))
    raise ValueError(
        f"rope_type {rope_type!r} does not blend theta and theta / factor per pair; "
        "interpolation weights exist for 'default', 'linear', 'llama3' and 'yarn'"
    )


def classify_pairs(
    rope_parameters: Mapping[str, Any],
    head_dim: int,
    *,
    max_position_embeddings: int | None = None,
) -> np.ndarray:
    """Label each pair "kept", "interpolated" (divided by ``factor``) or "ramped" (between).

    Arguments as in :func:`interpolation_weights`; one string per pair, fastest pair first.

    Examples
    --------
    >>> llama31 = {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0,
    ...            "low_freq_factor": 1.0, "high_freq_factor": 4.0,
    ...            "original_max_position_embeddings": 8192}
    >>> labels = classify_pairs(llama31, 128)
    >>> {k: int((labels == k).sum()) for k in ("kept", "ramped", "interpolated")}
    {'kept': 29, 'ramped': 6, 'interpolated': 29}
    """
    weights = interpolation_weights(
        rope_parameters, head_dim, max_position_embeddings=max_position_embeddings
    )
    labels = np.full(weights.shape, "ramped", dtype=object)
    labels[weights == 0] = "kept"
    labels[weights == 1] = "interpolated"
    return labels.astype(str)
