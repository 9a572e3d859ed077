"""What a ``rope_parameters`` block may hold, and the checks that read it.

The rope types and keys transformers knows, the keys each type needs, and one check per kind
of value: a finite number, a positive int, an even head width, the block itself, its base, its
factor and its original length. Each raises ``TypeError`` for a value of the wrong kind and
``ValueError`` for one out of range, naming the parameter. :mod:`pe_helpers.rope_scaling`
reads every block through them and re-exports the public constants.
"""

from __future__ import annotations

from collections.abc import Mapping
from numbers import Real
from typing import Any

import numpy as np

from ._validate import check_d_model, check_int, check_real, check_rope_base

ROPE_TYPES = ("default", "linear", "dynamic", "yarn", "llama3", "longrope", "proportional")

#: Every key :func:`~pe_helpers.rope_scaling.rope_frequencies` reads; ``type`` is the pre-v4.45
#: name of ``rope_type``.
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

_REQUIRED = {
    "default": (),
    "linear": ("factor",),
    "dynamic": ("factor",),
    "yarn": ("factor",),
    "llama3": ("factor", "low_freq_factor", "high_freq_factor"),
    "longrope": ("short_factor", "long_factor"),
    "proportional": (),
}
NEEDS_ORIGINAL = ("yarn", "llama3", "longrope")
#: Widest head the formulas accept (published heads are 64 to 512 wide): keeps every call small.
MAX_HEAD_DIM = 2**16


def optional_count(name: str, value: Any) -> int | None:
    """None, or ``value`` as an int >= 1."""
    return None if value is None else check_int(name, value, minimum=1)


def check_head_dim(head_dim: Any, name: str = "head_dim") -> int:
    """An even head width, 2 to :data:`MAX_HEAD_DIM`."""
    return check_d_model(head_dim, name=name, maximum=MAX_HEAD_DIM)


def optional_number(name: str, value: Any, default: float, *, positive: bool = True) -> float:
    """transformers' ``get(name) or default``: None and 0 mean the default, as there; any
    other value must be a finite number (> 0 with ``positive``)."""
    if value is None:
        return default
    if isinstance(value, Real) and not isinstance(value, (bool, np.bool_)) and value == 0:
        return default
    return check_real(name, value, positive=positive)


def check_block(rope_parameters: Any, *, require: bool = True) -> tuple[dict[str, Any], str]:
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
    for key in _REQUIRED[rope_type] if require else ():
        if key not in params:
            raise ValueError(f"rope_type {rope_type!r} needs the key {key!r} in rope_parameters")
    return params, rope_type


def rope_theta(params: Mapping[str, Any]) -> float:
    """The block's ``rope_theta`` (default 10000), > 1."""
    theta = params.get("rope_theta")
    return DEFAULT_ROPE_THETA if theta is None else check_rope_base(theta, "rope_theta")


def scaling_factor(params: Mapping[str, Any], name: str = "factor") -> float:
    """The block's ``factor``, > 0."""
    return check_real(name, params[name], positive=True)


def original_length(
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


def implicit_factor(rope_type: str, max_position_embeddings: int | None, original: int) -> float:
    """``max_position_embeddings / original``, the factor a block leaves out."""
    if max_position_embeddings is None:
        raise ValueError(
            f"rope_type {rope_type!r} with factor None needs max_position_embeddings "
            "(the factor becomes max_position_embeddings / original_max_position_embeddings)"
        )
    return max_position_embeddings / original
