"""A one-layer attention model with its backward pass written out by hand.

Pure numpy, float64: nothing here draws, and nothing imports plotting or widgets. The model is

    x = E[tokens] (+ position vectors for "sinusoidal" and "learned")
    q_h, k_h, v_h = x W_Q[h], x W_K[h], x W_V[h]            one set per head
    q_h, k_h rotated by RoPE ("rope_adjacent", "rope_halves")
    s_h = q_h k_hᵀ / sqrt(d_head) (+ a bias b_h[i, j] for "alibi" and "t5_bias")
    a_h = softmax(s_h) over the keys allowed (all, or j <= i when causal)
    logits = Σ_h (a_h v_h) W_O[h] + b_O  (+ x W_skip when residual)

and its loss is the softmax cross-entropy on the scored positions. The gradient of every
parameter is computed by hand (:func:`loss_and_grads`; the softmax's own step is
:func:`~pe_helpers.attention.softmax_backward`, next to the softmax) and checked against
central finite differences by :func:`gradient_check`. Training lives in
:mod:`~pe_helpers.training`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from ._validate import check_array, check_bool, check_choice, check_int, check_real
from .attention import _softmax, _softmax_backward, causal_mask, softmax_backward
from .biases import alibi_bias, t5_relative_bucket
from .encodings import frequencies, sinusoidal_pe
from .rope import _turn_pairs
from .tasks import Batch, make_task, task_batch

__all__ = [
    "METHODS",
    "ModelConfig",
    "init_params",
    "forward",
    "loss_and_grads",
    "softmax_backward",
    "gradient_check",
]

METHODS = (
    "none",
    "sinusoidal",
    "learned",
    "rope_adjacent",
    "rope_halves",
    "alibi",
    "t5_bias",
)
ROPE_METHODS = ("rope_adjacent", "rope_halves")


def _as_tuple(name: str, value: ArrayLike | None) -> tuple[float, ...] | None:
    """A 1-D real array as a tuple (hashable, immutable), or None."""
    if value is None:
        return None
    return tuple(check_array(name, value, ndim=1).astype(np.float64).tolist())


@dataclass(frozen=True)
class ModelConfig:
    """Shape and position method of the one-layer attention model.

    Parameters
    ----------
    method : str
        One of :data:`METHODS`: ``"none"``; ``"sinusoidal"`` (added to the embeddings);
        ``"learned"`` (an absolute table of ``max_len`` rows, added); ``"rope_adjacent"`` /
        ``"rope_halves"`` (queries and keys rotated, pairs ``(2k, 2k+1)`` or ``(k, k + d/2)``);
        ``"alibi"`` (fixed bias ``-m_h |i - j|``); ``"t5_bias"`` (a learned scalar per
        (bucket, head), buckets from :func:`~pe_helpers.biases.t5_relative_bucket`,
        bidirectional unless causal).
    vocab_size : int
        Number of token ids, >= 2; also the number of output classes.
    d_model : int, default 32
        Embedding width (even for "sinusoidal").
    n_heads : int, default 2
        Attention heads, >= 1.
    d_head : int, optional
        Width of each head's query, key and value; default ``d_model // n_heads`` (even for RoPE).
    causal : bool, default True
        Mask keys after the query.
    residual : bool, default False
        Also read the logits from the layer's input (``x W_skip``), as a residual stream would.
    max_len : int, optional
        Rows of the learned table; required for "learned", ignored otherwise.
    base : float, default 10000.0
        Frequency base of "sinusoidal" and of RoPE when ``inv_freq`` is not given.
    inv_freq : array_like, optional
        RoPE angular frequencies (at most ``d_head / 2``; fewer rotate only the first
        ``2 * len(inv_freq)`` dimensions, as transformers' partial rotary does); default
        ``frequencies(d_head, base)``.
    attention_factor : float, default 1.0
        RoPE only: multiplies cos and sin (so the logits scale by its square), as in YaRN.
    slopes : array_like, optional
        ALiBi slopes, one per head; default :func:`~pe_helpers.biases.alibi_slopes` of
        ``n_heads``.
    num_buckets, max_distance : int, default 32 and 128
        T5 bucketing, see :func:`~pe_helpers.biases.t5_relative_bucket`.

    Examples
    --------
    >>> ModelConfig("rope_halves", vocab_size=8, d_model=16, n_heads=2).d_head
    8
    """

    method: str
    vocab_size: int
    d_model: int = 32
    n_heads: int = 2
    d_head: int | None = None
    causal: bool = True
    residual: bool = False
    max_len: int | None = None
    base: float = 10000.0
    inv_freq: tuple[float, ...] | None = field(default=None)
    attention_factor: float = 1.0
    slopes: tuple[float, ...] | None = field(default=None)
    num_buckets: int = 32
    max_distance: int = 128

    def __post_init__(self) -> None:
        def put(name: str, value: object) -> None:
            object.__setattr__(self, name, value)

        put("method", check_choice("method", self.method, METHODS))
        put("vocab_size", check_int("vocab_size", self.vocab_size, minimum=2))
        put("d_model", check_int("d_model", self.d_model, minimum=1))
        put("n_heads", check_int("n_heads", self.n_heads, minimum=1))
        d_head = self.d_model // self.n_heads if self.d_head is None else self.d_head
        put("d_head", check_int("d_head", d_head, minimum=1))
        put("causal", check_bool("causal", self.causal))
        put("residual", check_bool("residual", self.residual))
        put("base", check_real("base", self.base, positive=True))
        put(
            "attention_factor", check_real("attention_factor", self.attention_factor, positive=True)
        )
        put("num_buckets", check_int("num_buckets", self.num_buckets, minimum=2))
        put("max_distance", check_int("max_distance", self.max_distance, minimum=1))
        method = self.method
        if method == "sinusoidal" and self.d_model % 2:
            raise ValueError(f"d_model must be even for sinusoidal, got {self.d_model}")
        if method in ROPE_METHODS and self.d_head % 2:
            raise ValueError(f"d_head must be even for {method}, got {self.d_head}")
        if method == "learned":
            if self.max_len is None:
                raise ValueError("max_len must be given for the learned table, got None")
            put("max_len", check_int("max_len", self.max_len, minimum=1))
        elif self.max_len is not None:
            put("max_len", check_int("max_len", self.max_len, minimum=1))
        put("inv_freq", _as_tuple("inv_freq", self.inv_freq))
        if self.inv_freq is not None and len(self.inv_freq) > self.d_head // 2:
            raise ValueError(
                f"inv_freq must have at most d_head / 2 = {self.d_head // 2} entries, "
                f"got {len(self.inv_freq)}"
            )
        put("slopes", _as_tuple("slopes", self.slopes))
        if self.slopes is not None and len(self.slopes) != self.n_heads:
            raise ValueError(
                f"slopes must have one entry per head ({self.n_heads}), got {len(self.slopes)}"
            )
        if method == "t5_bias":  # let the bucket function check num_buckets / max_distance
            t5_relative_bucket(
                0,
                bidirectional=not self.causal,
                num_buckets=self.num_buckets,
                max_distance=self.max_distance,
            )

    def param_shapes(self) -> dict[str, tuple[int, ...]]:
        """Name and shape of every trainable array of this configuration."""
        d, h, e, v = self.d_model, self.n_heads, self.d_head, self.vocab_size
        shapes = {"embed": (v, d)}
        if self.method == "learned":
            shapes["pos"] = (self.max_len, d)
        shapes.update(w_q=(h, d, e), w_k=(h, d, e), w_v=(h, d, e), w_o=(h, e, v), b_o=(v,))
        if self.residual:
            shapes["w_skip"] = (d, v)
        if self.method == "t5_bias":
            shapes["t5_bias"] = (self.num_buckets, h)
        return shapes


def init_params(config: ModelConfig, seed: int = 0) -> dict[str, np.ndarray]:
    """Random initial parameters: embeddings N(0, 1), projections N(0, 1/fan_in), biases 0.

    Examples
    --------
    >>> params = init_params(ModelConfig("learned", vocab_size=5, d_model=4, max_len=6))
    >>> {name: p.shape for name, p in params.items()}["pos"]
    (6, 4)
    """
    if not isinstance(config, ModelConfig):
        raise TypeError(f"config must be a ModelConfig, got {type(config).__name__}")
    rng = np.random.default_rng(check_int("seed", seed, minimum=0))
    params = {}
    for name, shape in config.param_shapes().items():
        if name in ("embed", "pos"):
            params[name] = rng.normal(size=shape)
        elif name in ("b_o", "t5_bias"):
            params[name] = np.zeros(shape)
        else:
            params[name] = rng.normal(size=shape) / np.sqrt(shape[-2])
    return params


class _Tables:
    """Everything about positions that depends only on the config and the length ``n``."""

    def __init__(self, config: ModelConfig, n: int):
        method = config.method
        self.n = n
        self.pe = self.cos = self.sin = self.bias = self.buckets = None
        if method == "sinusoidal":
            self.pe = sinusoidal_pe(n, config.d_model, config.base)
        if method in ROPE_METHODS:
            inv_freq = config.inv_freq
            if inv_freq is None:
                inv_freq = frequencies(config.d_head, config.base)
            angles = np.multiply.outer(np.arange(n, dtype=np.float64), inv_freq)
            self.cos = config.attention_factor * np.cos(angles)
            self.sin = config.attention_factor * np.sin(angles)
        if method == "alibi":
            self.bias = alibi_bias(n, config.n_heads, slopes=config.slopes)
        if method == "t5_bias":
            offsets = np.arange(n)[None, :] - np.arange(n)[:, None]  # key j - query i
            self.buckets = t5_relative_bucket(
                offsets,
                bidirectional=not config.causal,
                num_buckets=config.num_buckets,
                max_distance=config.max_distance,
            )
        # What every forward pass adds to the scores: the fixed bias, and -inf where the
        # causal mask hides a key (added in place, instead of a bias sum and a masked copy).
        self.added = self.bias
        if config.causal:
            hidden = np.where(causal_mask(n), 0.0, -np.inf)
            self.added = hidden if self.bias is None else self.bias + hidden


def _rotate(x: np.ndarray, cos: np.ndarray, sin: np.ndarray, method: str) -> np.ndarray:
    """RoPE from precomputed tables (``sin -> -sin`` gives the transpose, for the backward)."""
    return _turn_pairs(x, cos, sin, "adjacent" if method == "rope_adjacent" else "halves")


def _qkv_matrix(params: dict) -> np.ndarray:
    """W_Q, W_K, W_V of every head side by side: shape ``(d_model, 3 * n_heads * d_head)``."""
    stacked = np.concatenate((params["w_q"], params["w_k"], params["w_v"]))  # (3H, d, e)
    return np.swapaxes(stacked, 0, 1).reshape(stacked.shape[1], -1)


def _forward(params: dict, config: ModelConfig, tokens: np.ndarray, tables: _Tables):
    x = params["embed"][tokens]
    if config.method == "sinusoidal":
        x = x + tables.pe
    elif config.method == "learned":
        x = x + params["pos"][: tables.n]
    batch, n, d = x.shape
    n_heads, e = config.n_heads, config.d_head
    # One matrix product for all queries, keys and values: (3, B, H, n, e).
    q, k, v = (
        (x.reshape(batch * n, d) @ _qkv_matrix(params))
        .reshape(batch, n, 3, n_heads, e)
        .transpose(2, 0, 3, 1, 4)
    )
    if tables.cos is not None:
        q = _rotate(q, tables.cos, tables.sin, config.method)
        k = _rotate(k, tables.cos, tables.sin, config.method)
    scores = q @ np.swapaxes(k, -1, -2)
    scores /= np.sqrt(e)
    if tables.buckets is not None:
        scores += np.moveaxis(params["t5_bias"][tables.buckets], -1, 0)
    if tables.added is not None:
        scores += tables.added
    weights = _softmax(scores)  # in place: ``scores`` becomes the weights
    concat = np.swapaxes(weights @ v, 1, 2).reshape(batch * n, n_heads * e)  # heads side by side
    logits = concat @ params["w_o"].reshape(n_heads * e, -1) + params["b_o"]
    if config.residual:
        logits = logits + x.reshape(batch * n, d) @ params["w_skip"]
    cache = dict(x=x, q=q, k=k, v=v, weights=weights, concat=concat)
    return logits.reshape(batch, n, -1), cache


def _cross_entropy(logits: np.ndarray, targets: np.ndarray, scored: np.ndarray):
    """Mean cross-entropy over scored positions, and its gradient with respect to the logits."""
    flat = logits.reshape(-1, logits.shape[-1])
    rows = np.flatnonzero(scored)
    wanted = targets.ravel()[rows]
    shifted = flat - flat.max(axis=-1, keepdims=True)
    exp = np.exp(shifted)
    total = exp.sum(axis=-1)
    loss = -float(np.mean(shifted[rows, wanted] - np.log(total[rows])))
    grad = np.zeros_like(flat)
    grad[rows] = exp[rows] / total[rows, None]  # the softmax of the logits
    grad[rows, wanted] -= 1.0
    return loss, (grad / rows.size).reshape(logits.shape)


def _backward(
    params: dict,
    config: ModelConfig,
    tokens: np.ndarray,
    tables: _Tables,
    cache: dict,
    grad_logits: np.ndarray,
    softmax_grad=_softmax_backward,
) -> dict[str, np.ndarray]:
    x, q, k, v, weights = (cache[key] for key in ("x", "q", "k", "v", "weights"))
    batch, n_heads, n, e = v.shape
    d = x.shape[-1]
    flat_g = grad_logits.reshape(batch * n, -1)
    flat_x = x.reshape(batch * n, d)
    grads = {"b_o": flat_g.sum(axis=0)}
    grads["w_o"] = (cache["concat"].T @ flat_g).reshape(params["w_o"].shape)
    grad_heads = np.swapaxes(
        (flat_g @ params["w_o"].reshape(n_heads * e, -1).T).reshape(batch, n, n_heads, e), 1, 2
    )
    grad_weights = grad_heads @ np.swapaxes(v, -1, -2)
    grad_v = np.swapaxes(weights, -1, -2) @ grad_heads
    grad_scores = softmax_grad(weights, grad_weights)
    if tables.buckets is not None:
        per_head = grad_scores.sum(axis=0).reshape(n_heads, -1)
        grads["t5_bias"] = np.stack(
            [
                np.bincount(tables.buckets.ravel(), weights=row, minlength=config.num_buckets)
                for row in per_head
            ],
            axis=-1,
        )
    grad_scores /= np.sqrt(e)
    grad_q = grad_scores @ k
    grad_k = np.swapaxes(grad_scores, -1, -2) @ q
    if tables.cos is not None:  # the transpose of a rotation is the rotation backwards
        grad_q = _rotate(grad_q, tables.cos, -tables.sin, config.method)
        grad_k = _rotate(grad_k, tables.cos, -tables.sin, config.method)
    # (B, H, n, e) three times -> (B n, 3 H e), the layout of _qkv_matrix's columns
    grad_proj = np.empty((batch, n, 3, n_heads, e))
    for i, grad in enumerate((grad_q, grad_k, grad_v)):
        grad_proj[:, :, i] = np.swapaxes(grad, 1, 2)
    grad_proj = grad_proj.reshape(batch * n, 3 * n_heads * e)
    grad_w = (flat_x.T @ grad_proj).reshape(d, 3 * n_heads, e).swapaxes(0, 1)
    grads["w_q"], grads["w_k"], grads["w_v"] = (
        grad_w[i * n_heads : (i + 1) * n_heads] for i in range(3)
    )
    grad_x = grad_proj @ _qkv_matrix(params).T
    if config.residual:
        grads["w_skip"] = flat_x.T @ flat_g
        grad_x += flat_g @ params["w_skip"].T
    one_hot = np.zeros((batch * n, config.vocab_size))
    one_hot[np.arange(batch * n), tokens.ravel()] = 1.0
    grads["embed"] = one_hot.T @ grad_x
    if config.method == "learned":
        grads["pos"] = np.zeros_like(params["pos"])
        grads["pos"][:n] = grad_x.reshape(batch, n, d).sum(axis=0)
    return grads


# --- Public entry points: checked arguments, then the private passes above ---


def _check_config(config: object) -> ModelConfig:
    if not isinstance(config, ModelConfig):
        raise TypeError(f"config must be a ModelConfig, got {type(config).__name__}")
    return config


def _check_params(params: object, config: ModelConfig) -> dict[str, np.ndarray]:
    shapes = config.param_shapes()
    if not isinstance(params, dict):
        raise TypeError(f"params must be a dict of arrays, got {type(params).__name__}")
    if set(params) != set(shapes):
        raise ValueError(
            f"params must have exactly the keys {sorted(shapes)} for method "
            f"{config.method!r}, got {sorted(params)}"
        )
    checked = {}
    for name, shape in shapes.items():
        arr = check_array(f"params[{name!r}]", params[name]).astype(np.float64)
        if arr.shape != shape:
            raise ValueError(f"params[{name!r}] must have shape {shape}, got {arr.shape}")
        checked[name] = arr
    return checked


def _check_tokens(tokens: object, config: ModelConfig, name: str = "tokens") -> np.ndarray:
    arr = check_array(name, tokens)
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must hold integer token ids, got dtype {arr.dtype}")
    if arr.ndim > 2:
        raise ValueError(f"{name} must be 1-D (one sequence) or 2-D (a batch), got {arr.shape}")
    if arr.min() < 0 or arr.max() >= config.vocab_size:
        raise ValueError(
            f"{name} must lie in 0 .. {config.vocab_size - 1} (vocab_size {config.vocab_size}), "
            f"got values from {arr.min()} to {arr.max()}"
        )
    _check_length(arr.shape[-1], config)
    return np.atleast_2d(arr).astype(np.int64)


def _check_length(length: int, config: ModelConfig) -> int:
    if config.method == "learned" and length > config.max_len:
        raise ValueError(
            f"the learned position table has max_len = {config.max_len} rows and cannot "
            f"encode length {length}: positions past {config.max_len - 1} have no embedding"
        )
    return length


def forward(
    params: dict, config: ModelConfig, tokens: ArrayLike, *, return_attention: bool = False
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Logits of the model for a sequence or a batch of sequences.

    Parameters
    ----------
    params : dict of numpy.ndarray
        As returned by :func:`init_params` (or trained).
    config : ModelConfig
        The model's configuration.
    tokens : array_like of int
        Shape ``(n,)`` or ``(batch, n)``, ids in ``0 .. vocab_size - 1``.
    return_attention : bool, default False
        Also return the attention weights.

    Returns
    -------
    logits : numpy.ndarray
        Shape ``(batch, n, vocab_size)`` (batch 1 for a 1-D input).
    weights : numpy.ndarray
        Only with ``return_attention``: shape ``(batch, n_heads, n, n)``, rows sum to 1.

    Examples
    --------
    >>> config = ModelConfig("sinusoidal", vocab_size=5, d_model=4)
    >>> forward(init_params(config), config, [0, 1, 2]).shape
    (1, 3, 5)
    """
    config = _check_config(config)
    params = _check_params(params, config)
    tokens = _check_tokens(tokens, config)
    logits, cache = _forward(params, config, tokens, _Tables(config, tokens.shape[1]))
    if check_bool("return_attention", return_attention):
        return logits, cache["weights"]
    return logits


def loss_and_grads(
    params: dict, config: ModelConfig, batch: Batch
) -> tuple[float, dict[str, np.ndarray]]:
    """Mean cross-entropy over the scored positions of ``batch`` and its exact gradient.

    The gradient is the backward pass written out by hand (no autograd); see
    :func:`gradient_check` for its test against finite differences.

    Parameters
    ----------
    params : dict of numpy.ndarray
        Model parameters.
    config : ModelConfig
        The model's configuration.
    batch : Batch
        Tokens, targets and scored mask, e.g. from :func:`pe_helpers.tasks.copy_back`.

    Returns
    -------
    loss : float
        Mean negative log-likelihood of the targets.
    grads : dict of numpy.ndarray
        One array per parameter, same shapes.

    Examples
    --------
    >>> from pe_helpers.tasks import copy_back
    >>> config = ModelConfig("none", vocab_size=4, d_model=4)
    >>> loss, grads = loss_and_grads(init_params(config), config, copy_back(2, 5, 4))
    >>> sorted(grads) == sorted(config.param_shapes())
    True
    """
    config = _check_config(config)
    params = _check_params(params, config)
    tokens, targets, scored = _check_batch(batch, config)
    tables = _Tables(config, tokens.shape[1])
    return _loss_and_grads(params, config, tokens, targets, scored, tables)


def _check_batch(batch: object, config: ModelConfig):
    if not isinstance(batch, Batch):
        raise TypeError(f"batch must be a Batch (tokens, targets, scored), got {batch!r:.60}")
    tokens = _check_tokens(batch.tokens, config, "batch.tokens")
    targets = np.atleast_2d(np.asarray(batch.targets))
    scored = np.atleast_2d(np.asarray(batch.scored, dtype=bool))
    if targets.shape != tokens.shape or scored.shape != tokens.shape:
        raise ValueError(
            f"batch.targets and batch.scored must match batch.tokens {tokens.shape}, "
            f"got {targets.shape} and {scored.shape}"
        )
    if not scored.any():
        raise ValueError("batch.scored must mark at least one position, got none")
    if np.any(targets[scored] < 0) or np.any(targets[scored] >= config.vocab_size):
        raise ValueError(
            f"batch.targets at scored positions must lie in 0 .. {config.vocab_size - 1}"
        )
    return tokens, targets.astype(np.int64), scored


def _loss_and_grads(
    params, config, tokens, targets, scored, tables, softmax_grad=_softmax_backward
):
    logits, cache = _forward(params, config, tokens, tables)
    loss, grad_logits = _cross_entropy(logits, targets, scored)
    return loss, _backward(params, config, tokens, tables, cache, grad_logits, softmax_grad)


def gradient_check(
    config: ModelConfig,
    *,
    batch_size: int = 2,
    length: int = 5,
    seed: int = 0,
    step: float = 1e-5,
    softmax_backward: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
) -> dict[str, float]:
    """Relative error of the hand-written gradient against central finite differences.

    For each parameter array ``p``: ``|g - g_fd| / max(|g|, |g_fd|)`` (Frobenius norms; 0 when
    both vanish), where ``g_fd[i] = (L(p + h e_i) - L(p - h e_i)) / 2h``. The parameters are
    random (scaled up so attention is far from uniform), the batch is copy-back with offset 1
    (so one position is not scored) and the T5 table, if any, is random too.

    Parameters
    ----------
    config : ModelConfig
        Keep it small: the cost is two forward passes per parameter entry.
    batch_size, length : int, default 2 and 5
        Size of the test batch (length <= max_len for "learned").
    seed : int, default 0
        Seed of the parameters and the batch.
    step : float, default 1e-5
        Finite-difference step ``h``.
    softmax_backward : callable, optional
        ``f(weights, grad_weights) -> grad_scores`` to use in the hand-written pass instead of
        the package's :func:`~pe_helpers.attention.softmax_backward` (an exercise: write it,
        then check it here).

    Returns
    -------
    dict of str to float
        One relative error per parameter array; float64 gives about 1e-9 for a correct pass.

    Examples
    --------
    >>> config = ModelConfig("rope_halves", vocab_size=4, d_model=4, n_heads=1)
    >>> max(gradient_check(config).values()) < 1e-6
    True
    """
    config = _check_config(config)
    length = _check_length(check_int("length", length, minimum=2), config)
    step = check_real("step", step, positive=True)
    params = init_params(config, seed)
    rng = np.random.default_rng(seed + 1)
    for name in params:
        params[name] = 2.0 * params[name] + (
            rng.normal(size=params[name].shape) if name in ("b_o", "t5_bias") else 0.0
        )
    batch = task_batch(make_task("copy_back", 1), batch_size, length, config.vocab_size, seed=seed)
    tokens, targets, scored = _check_batch(batch, config)
    tables = _Tables(config, length)
    softmax_grad = _softmax_backward
    if softmax_backward is not None:
        if not callable(softmax_backward):
            raise TypeError(f"softmax_backward must be callable, got {softmax_backward!r}")
        softmax_grad = softmax_backward
    _, grads = _loss_and_grads(params, config, tokens, targets, scored, tables, softmax_grad)
    errors = {}
    for name, value in params.items():
        numeric = np.zeros_like(value)
        for index in np.ndindex(value.shape):
            original = value[index]
            losses = []
            for sign in (1.0, -1.0):
                value[index] = original + sign * step
                logits, _ = _forward(params, config, tokens, tables)
                losses.append(_cross_entropy(logits, targets, scored)[0])
            value[index] = original
            numeric[index] = (losses[0] - losses[1]) / (2.0 * step)
        scale = max(np.linalg.norm(grads[name]), np.linalg.norm(numeric))
        errors[name] = 0.0 if scale == 0.0 else float(np.linalg.norm(grads[name] - numeric) / scale)
    return errors
