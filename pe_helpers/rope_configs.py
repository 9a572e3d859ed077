"""RoPE settings of published models, shipped with the package (no network at run time).

The data lives in ``pe_helpers/data/rope_configs.json``: for each model its ``rope_parameters``
block (transformers v5 layout), ``head_dim``, ``max_position_embeddings``, the address of its
``config.json`` on the Hugging Face Hub and, per value, the source it was confirmed from.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from ._validate import show_value
from .rope_scaling import rope_frequencies

__all__ = ["model_names", "model_rope_config"]


@dataclass(frozen=True)
class ModelRopeConfig:
    """One published model's RoPE settings and where each value was read.

    ``rope_parameters`` is a fresh dict per call: changing it leaves the shipped data alone.
    """

    name: str
    display_name: str
    hf_config: str
    head_dim: int
    max_position_embeddings: int
    rope_parameters: dict[str, Any]
    sources: dict[str, str]
    unconfirmed: tuple[str, ...]
    note: str

    def frequencies(self, seq_len: int | None = None) -> tuple[np.ndarray, float]:
        """:func:`~pe_helpers.rope_scaling.rope_frequencies` of this model."""
        return rope_frequencies(
            self.rope_parameters,
            self.head_dim,
            max_position_embeddings=self.max_position_embeddings,
            seq_len=seq_len,
        )


@lru_cache(maxsize=1)
def _load() -> dict[str, dict[str, Any]]:
    """The shipped models by name (tests/test_rope_scaling.py checks every entry)."""
    text = resources.files("pe_helpers").joinpath("data/rope_configs.json").read_text("utf-8")
    return json.loads(text)["models"]


def model_names() -> list[str]:
    """Names of the shipped models, in file order.

    Examples
    --------
    >>> "llama-3.1-8b" in model_names()
    True
    """
    return list(_load())


def model_rope_config(name: str) -> ModelRopeConfig:
    """The RoPE settings of a shipped model.

    Parameters
    ----------
    name : str
        One of :func:`model_names`.

    Returns
    -------
    ModelRopeConfig

    Raises
    ------
    ValueError
        For an unknown name, or one that is not a string (the message lists the known ones).

    Examples
    --------
    >>> cfg = model_rope_config("llama-3.1-8b")
    >>> cfg.rope_parameters["rope_type"], cfg.head_dim, cfg.max_position_embeddings
    ('llama3', 128, 131072)
    >>> inv_freq, attention_factor = cfg.frequencies()
    >>> inv_freq.shape, attention_factor
    ((64,), 1.0)
    """
    models = _load()
    if not isinstance(name, str) or name not in models:
        raise ValueError(
            f"name must be a shipped model, one of {', '.join(models)}; got {show_value(name)} "
            "(an unknown model)"
        )
    entry = copy.deepcopy(models[name])
    return ModelRopeConfig(name=name, **dict(entry, unconfirmed=tuple(entry["unconfirmed"])))
