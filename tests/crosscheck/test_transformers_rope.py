"""pe_helpers.rope_scaling against transformers' own RoPE init functions (``make crosscheck``).

Needs the ``crosscheck`` extra (transformers, CPU torch); plain ``pytest`` skips this folder
(tests/conftest.py), so ``make test`` never imports torch.

The configs are built on ``RotaryEmbeddingConfigMixin``, the part of transformers'
``PreTrainedConfig`` that standardizes ``rope_parameters``; the init functions read nothing else
but ``head_dim``, ``hidden_size``, ``num_attention_heads`` and ``max_position_embeddings``. That
keeps the run to the imports it needs (torch and ``modeling_rope_utils``). transformers v5 has no
"default" entry in ``ROPE_INIT_FUNCTIONS`` (each model class computes it); its "linear" function
with ``factor`` 1 evaluates the same plain-RoPE expression, ``partial_rotary_factor`` included.

"proportional" (Gemma 4's full-attention layers) reads ``partial_rotary_factor`` differently
from "default": both readings are compared with transformers' own code (GPT-NeoX's
``compute_default_rope_parameters``, the "proportional" init function, and Gemma 4's rotary
embedding and rotation with its default config).

Two comparisons:

* as people run it: transformers computes in float32, so agreement is checked to rtol 1e-6 --
  on every shipped config, and on random configs wherever float32 rounding allows it. In the
  llama3 smoothing band and in an untruncated YaRN ramp, transformers' float32 arithmetic
  cancels (``L0 / wavelength - low_freq_factor``; ``index - low``) and its own error grows with
  the factor; there the tolerance adds that float32 bound, stated in ``_float32_rtol``;
* formula for formula: the same transformers functions, with their ``torch.float`` /
  ``torch.float32`` turned into float64, must agree to rtol 1e-12 on every random config
  (longrope keeps a float32 ``.float()`` in its exponent, so 1e-6 there).
"""

from __future__ import annotations

import contextlib
import copy
import math
import random
import types

import numpy as np
import pytest
import torch
import transformers
import transformers.modeling_rope_utils as rope_utils

from pe_helpers.rope_configs import model_names, model_rope_config
from pe_helpers.rope_scaling import ROPE_TYPES, rope_frequencies, rotary_dim

EPS32 = float(np.finfo(np.float32).eps)
PER_TYPE = 50


def test_versions_compared(record_property):
    """Names what was compared: the transformers release and the torch build."""
    record_property("transformers", transformers.__version__)
    record_property("torch", torch.__version__)
    assert int(transformers.__version__.split(".")[0]) >= 5
    assert set(rope_utils.ROPE_INIT_FUNCTIONS) >= set(ROPE_TYPES) - {"default"}


class RopeConfig(rope_utils.RotaryEmbeddingConfigMixin):
    """A model config as the v5 RoPE init functions see it."""

    def __init__(self, rope_parameters, head_dim, max_position_embeddings):
        self.hidden_size = head_dim * 4
        self.num_attention_heads = 4
        self.head_dim = head_dim
        self.max_position_embeddings = max_position_embeddings
        self.rope_parameters = copy.deepcopy(rope_parameters)
        # as PreTrainedConfig.__init__ does: rope_theta into the block, a missing
        # original_max_position_embeddings filled from max_position_embeddings
        self.convert_rope_params_to_dict()


def transformers_frequencies(params, head_dim, max_position_embeddings, seq_len=None):
    """What transformers computes for a config carrying this ``rope_parameters`` block."""
    rope_type = params.get("rope_type", "default")
    if rope_type == "default":
        params = dict(params, rope_type="linear", factor=1.0)
        rope_type = "linear"
    config = RopeConfig(params, head_dim, max_position_embeddings)
    inv_freq, factor = rope_utils.ROPE_INIT_FUNCTIONS[rope_type](config, None, seq_len=seq_len)
    return inv_freq, float(factor)


class _Float64Torch(types.ModuleType):
    """``torch`` with its float32 dtype names pointing at float64."""

    float = torch.float64
    float32 = torch.float64

    def __getattr__(self, name):
        return getattr(torch, name)


@contextlib.contextmanager
def float64_transformers():
    saved = rope_utils.torch
    rope_utils.torch = _Float64Torch("torch")
    try:
        yield
    finally:
        rope_utils.torch = saved


def random_case(rng: random.Random, rope_type: str):
    head_dim = rng.choice([32, 64, 80, 96, 128, 256])
    params = {"rope_type": rope_type, "rope_theta": 10 ** rng.uniform(3, 6.3)}
    if rng.random() < 0.3:
        params["partial_rotary_factor"] = rng.choice([0.25, 0.5, 0.75, 1.0])
    max_pos = rng.choice([2048, 4096, 8192, 32768, 131072])
    seq_len = rng.choice([None, rng.randint(1, 4 * max_pos)])
    if rope_type in ("linear", "dynamic", "yarn", "llama3"):
        params["factor"] = rng.uniform(1.0, 64.0)
    if rope_type in ("yarn", "llama3", "longrope") and rng.random() < 0.85:
        params["original_max_position_embeddings"] = rng.choice([1024, 2048, 4096, 8192, 32768])
    if rope_type == "yarn":
        if rng.random() < 0.5:
            params["beta_fast"] = rng.uniform(8, 64)
        if rng.random() < 0.5:
            params["beta_slow"] = rng.uniform(0.25, 2)
        if rng.random() < 0.25:
            params["truncate"] = False
        if rng.random() < 0.3:
            params["mscale"], params["mscale_all_dim"] = (
                rng.uniform(0.5, 1.5),
                rng.uniform(0.5, 1.5),
            )
        if rng.random() < 0.1:
            params["attention_factor"] = rng.uniform(0.5, 2)
    if rope_type == "llama3":
        params["low_freq_factor"] = rng.uniform(0.5, 2)
        params["high_freq_factor"] = params["low_freq_factor"] + rng.uniform(0.5, 6)
    if rope_type == "proportional":
        # always a fraction, 0 included (transformers: "a value in the range [0.0, 1.0)")
        params["partial_rotary_factor"] = rng.choice([0.0, 0.125, 0.25, 0.5, 0.75, 1.0])
        if rng.random() < 0.5:
            params["factor"] = rng.uniform(1.0, 64.0)
    if rope_type == "longrope":
        pairs = rotary_dim(params, head_dim) // 2
        params["short_factor"] = [rng.uniform(1, 2) for _ in range(pairs)]
        params["long_factor"] = [rng.uniform(1, 64) for _ in range(pairs)]
        if rng.random() < 0.5:
            params["factor"] = rng.uniform(1, 40)
    return params, head_dim, max_pos, seq_len


CASES = [
    random_case(random.Random(f"{rope_type}-{k}"), rope_type)
    for rope_type in ROPE_TYPES
    for k in range(PER_TYPE)
]


def _case_id(case):
    params, head_dim, max_pos, seq_len = case
    return f"{params['rope_type']}-d{head_dim}-L{max_pos}-seq{seq_len}"


def _float32_rtol(params, head_dim, max_pos):
    """1e-6, plus transformers' own float32 error where its arithmetic cancels."""
    rope_type = params["rope_type"]
    if rope_type == "llama3":
        low, high = params["low_freq_factor"], params["high_freq_factor"]
        return 1e-6 + 4 * EPS32 * (params["factor"] - 1) * high / (high - low)
    if rope_type == "yarn" and params.get("truncate", True) is False:
        from pe_helpers.rope_scaling import yarn_correction_range

        low, high = yarn_correction_range(params, head_dim, max_position_embeddings=max_pos)
        dim = rotary_dim(params, head_dim)
        return 1e-6 + 4 * EPS32 * (params["factor"] - 1) * (dim / 2) / max(high - low, 1e-3)
    return 1e-6


@pytest.mark.parametrize("name", model_names())
@pytest.mark.parametrize("length", ["none", "short", "long"])
def test_shipped_config_matches_transformers_in_float32(name, length):
    cfg = model_rope_config(name)
    seq_len = {"none": None, "short": 16, "long": 4 * cfg.max_position_embeddings}[length]
    ours, our_factor = cfg.frequencies(seq_len=seq_len)
    theirs, their_factor = transformers_frequencies(
        cfg.rope_parameters, cfg.head_dim, cfg.max_position_embeddings, seq_len
    )
    assert theirs.dtype == torch.float32
    np.testing.assert_allclose(ours, theirs.double().numpy(), rtol=1e-6, atol=0)
    assert math.isclose(our_factor, their_factor, rel_tol=1e-12)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_random_config_matches_transformers(case):
    params, head_dim, max_pos, seq_len = case
    ours, our_factor = rope_frequencies(
        params, head_dim, max_position_embeddings=max_pos, seq_len=seq_len
    )
    theirs32, factor32 = transformers_frequencies(params, head_dim, max_pos, seq_len)
    with float64_transformers():
        theirs64, factor64 = transformers_frequencies(params, head_dim, max_pos, seq_len)
    assert theirs32.dtype == torch.float32 and theirs64.dtype == torch.float64
    np.testing.assert_allclose(
        ours, theirs32.double().numpy(), rtol=_float32_rtol(params, head_dim, max_pos), atol=0
    )
    rtol64 = 1e-6 if params["rope_type"] == "longrope" else 1e-12
    np.testing.assert_allclose(ours, theirs64.numpy(), rtol=rtol64, atol=0)
    assert math.isclose(our_factor, factor32, rel_tol=1e-12)
    assert math.isclose(our_factor, factor64, rel_tol=1e-12)


# ------------------------------------------------------------ one field, two meanings


def test_partial_rotary_factor_default_and_proportional_as_transformers_reads_them():
    """``partial_rotary_factor`` 0.25 on a head of 512: the first 128 dims vs the fastest pairs."""
    from transformers.models.gpt_neox.modeling_gpt_neox import GPTNeoXRotaryEmbedding

    block = {"rope_type": "default", "partial_rotary_factor": 0.25, "rope_theta": 1e6}
    neox, _ = GPTNeoXRotaryEmbedding.compute_default_rope_parameters(RopeConfig(block, 512, 8192))
    ours, _ = rope_frequencies(block, 512)
    assert neox.shape == ours.shape == (64,)
    np.testing.assert_allclose(ours, neox.double().numpy(), rtol=1e-6, atol=0)

    block = dict(block, rope_type="proportional")
    theirs, factor = transformers_frequencies(block, 512, 8192)
    ours, our_factor = rope_frequencies(block, 512)
    assert theirs.shape == ours.shape == (256,) and factor == our_factor == 1.0
    np.testing.assert_allclose(ours, theirs.double().numpy(), rtol=1e-6, atol=0)
    assert int((theirs == 0).sum()) == int((ours == 0).sum()) == 192


def test_gemma4_default_config_frequencies_and_rotation():
    """Gemma 4's two layer types as transformers builds them, and the rotation it applies."""
    from transformers.models.gemma4.configuration_gemma4 import Gemma4TextConfig
    from transformers.models.gemma4.modeling_gemma4 import (
        Gemma4TextRotaryEmbedding,
        apply_rotary_pos_emb,
    )

    from pe_helpers.rope_variants import apply_p_rope

    config = Gemma4TextConfig()
    embedding = Gemma4TextRotaryEmbedding(config)
    for layer_type, rope_type in (("full_attention", "proportional"),
                                  ("sliding_attention", "default")):  # fmt: skip
        block = config.rope_parameters[layer_type]
        head_dim = config.per_layer_config[layer_type].head_dim
        assert block["rope_type"] == rope_type
        theirs = getattr(embedding, f"{layer_type}_inv_freq")
        ours, _ = rope_frequencies(block, head_dim)
        np.testing.assert_allclose(ours, theirs.double().numpy(), rtol=1e-6, atol=0)

    full = config.rope_parameters["full_attention"]
    head_dim = config.per_layer_config["full_attention"].head_dim
    x = torch.randn(1, 4, head_dim, generator=torch.Generator().manual_seed(0))
    positions = [0, 3, 40, 500]
    cos, sin = embedding(x, torch.tensor([positions]), "full_attention")
    theirs = apply_rotary_pos_emb(x[:, None], cos, sin)[0, 0].double().numpy()
    ours = apply_p_rope(x[0].double().numpy(), positions, full["partial_rotary_factor"],
                        full["rope_theta"], pairing="halves")  # fmt: skip
    # float32 angles: position * inv_freq rounded to about 500 * 2**-24 radians
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-4)
    unmoved = (theirs == x[0].double().numpy()).all(axis=0)
    assert np.array_equal(unmoved, (ours == x[0].double().numpy()).all(axis=0))
    rotated = np.flatnonzero(~unmoved)  # rotate_half pairs dim i with i + head_dim / 2
    quarter = head_dim // 8  # int(0.25 * 512 // 2) = 64 turning pairs
    assert rotated.tolist() == [*range(quarter), *range(head_dim // 2, head_dim // 2 + quarter)]
