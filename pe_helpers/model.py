"""An attention-only model of one or more layers with its backward pass written out by hand.

Pure numpy, float64: nothing here draws, and nothing imports plotting or widgets. With one
layer (the default, lesson 08) the model is

    x = E[tokens] (+ position vectors for "sinusoidal" and "learned")
    q_h, k_h, v_h = x W_Q[h], x W_K[h], x W_V[h]            one set per head
    q_h, k_h rotated by RoPE ("rope_adjacent", "rope_halves")
    s_h = q_h k_hᵀ / sqrt(d_head) (+ a bias b_h[i, j] for "alibi" and "t5_bias")
    s_h += q_h[i] · e_h[p_ij] for "cope", Σ_{l=j+1..i} log f_h[l] for "forgetting" (lesson 14)
    a_h = softmax(s_h) over the keys allowed (all, or j <= i when causal)
    logits = Σ_h (a_h v_h) W_O[h] + b_O  (+ x W_skip when residual)

With ``n_layers = N > 1`` (lesson 13) the layers ``l = 1 .. N - 1`` come first and write into a
residual stream, each with its own arrays named ``"layer{l}.w_q"``, ``"layer{l}.w_k"``,
``"layer{l}.w_v"`` and ``"layer{l}.w_o"`` (``W_O`` of shape ``(heads, d_head, d_model)``):

    x ← x + Σ_h softmax(q_h k_hᵀ / sqrt(d_head) + bias) v_h W_O^l[h]

and the last layer is the one above, reading that stream. RoPE, ALiBi and the causal mask act
in every layer; T5's bucket table is one table shared by all layers, as in T5; sinusoidal and
learned vectors are added once, to the embeddings.

The loss is the softmax cross-entropy on the scored positions; its gradient is written out by
hand (:func:`loss_and_grads`) and checked against central finite differences by
:func:`gradient_check`. Training lives in :mod:`~pe_helpers.training`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from ._validate import (
    check_array,
    check_bool,
    check_choice,
    check_int,
    check_memory,
    check_real,
    show_value,
)
from .attention import causal_mask, softmax_gradient, softmax_in_place
from .biases import bias_of, buckets_of, check_slopes, slopes_of
from .encodings import frequencies, sinusoidal_pe
from .rope import turn_pairs
from .tasks import Batch, Task

__all__ = ["METHODS", "ModelConfig", "init_params", "gradient_check"]

ROPE_METHODS = ("rope_adjacent", "rope_halves")
#: Methods whose position comes from content (lesson 14): each layer has its own arrays.
CONTENT_METHODS = ("cope", "forgetting")
METHODS = ("none", "sinusoidal", "learned", *ROPE_METHODS, "alibi", "t5_bias", *CONTENT_METHODS)
#: Arrays that start at zero (the rest are drawn at random), by the end of their names.
_ZERO_INIT = ("b_o", "t5_bias", "cope_pos", "b_forget")
#: Most integer positions a CoPE table may hold (each costs every query a dot product).
MAX_COPE_POSITIONS = 512
#: Most attention layers a model may have (keeps training and the gradient check fast).
MAX_LAYERS = 8
#: Largest attention factor (it multiplies cos and sin, so the logits grow by its square).
MAX_ATTENTION_FACTOR = 100.0
#: Largest RoPE frequency in absolute value, radians per token (past pi a turn aliases anyway).
MAX_INV_FREQ = 1e6
#: Largest ``sequences × length × width`` one forward pass of a door may work through (see
#: :func:`check_work`); a training run may work through :data:`MAX_TRAINING_WORK`.
MAX_WORK = 2 * 10**9
MAX_TRAINING_WORK = 10**10


@dataclass(frozen=True)
class ModelConfig:
    """Shape and position method of the one-layer attention model.

    Parameters
    ----------
    method : str
        One of :data:`METHODS` (the module docstring gives each one's formula): ``"learned"``
        adds a table of ``max_len`` rows; RoPE pairs ``(2k, 2k+1)`` ("rope_adjacent") or
        ``(k, k + d/2)`` ("rope_halves"); "t5_bias" learns a scalar per (bucket, head),
        bidirectional unless causal; "cope" (Golovneva et al. 2024) and "forgetting" (Lin et
        al. 2025) are causal only, with a CoPE table or forget gate in each layer.
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
        ``2 * len(inv_freq)`` dimensions, as transformers' partial rotary does), each at most
        :data:`MAX_INV_FREQ` in absolute value; default ``frequencies(d_head, base)``.
    attention_factor : float, default 1.0
        RoPE only: multiplies cos and sin (so the logits scale by its square), as in YaRN;
        in ``(0, MAX_ATTENTION_FACTOR]``.
    slopes : array_like, optional
        ALiBi slopes, one per head, each at most :data:`~pe_helpers.biases.MAX_SLOPE` in
        absolute value; default :func:`~pe_helpers.biases.alibi_slopes` of ``n_heads``.
    num_buckets, max_distance : int, default 32 and 128
        T5 bucketing, see :func:`~pe_helpers.biases.t5_relative_bucket`.
    n_layers : int, default 1
        Attention layers, 1 to :data:`MAX_LAYERS`; every layer but the last adds its heads'
        output to the residual stream (see the module docstring).
    cope_positions : int, default 8
        CoPE only: the integer positions ``0 .. P - 1`` with a learned vector each (``P``, at
        most :data:`MAX_COPE_POSITIONS`); a position past ``P - 1`` is clipped to it.

    Every field is checked once, also those the method ignores; the parameters must fit in
    1 GiB with Adam's copies (about 16 million numbers).

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
    n_layers: int = 1
    cope_positions: int = 8

    def __post_init__(self) -> None:
        """Check every field once; counts become ``int``, numbers ``float``, arrays tuples."""
        ints = {"vocab_size": 2, "d_model": 1, "n_heads": 1, "num_buckets": 2, "max_distance": 1}
        values = {
            name: check_int(name, getattr(self, name), minimum=low) for name, low in ints.items()
        }
        values["method"] = method = check_choice("method", self.method, METHODS)
        d_model, n_heads = values["d_model"], values["n_heads"]
        if self.d_head is None and n_heads > d_model:  # d_head = d_model // n_heads would be 0
            raise ValueError(f"n_heads must be at most d_model = {d_model}, got {n_heads}")
        d_head = d_model // n_heads if self.d_head is None else self.d_head
        values["d_head"] = d_head = check_int("d_head", d_head, minimum=1)
        values["causal"] = causal = check_bool("causal", self.causal)
        values["residual"] = check_bool("residual", self.residual)
        values["base"] = check_real("base", self.base, positive=True)
        values["attention_factor"] = factor = check_real(
            "attention_factor", self.attention_factor, positive=True
        )
        values["n_layers"] = check_int("n_layers", self.n_layers, minimum=1, maximum=MAX_LAYERS)
        values["cope_positions"] = check_int(
            "cope_positions", self.cope_positions, minimum=2, maximum=MAX_COPE_POSITIONS
        )
        if self.max_len is not None or method == "learned":
            values["max_len"] = check_int("max_len", self.max_len, minimum=1)
        if self.inv_freq is not None:
            inv_freq = check_array("inv_freq", self.inv_freq, ndim=1).astype(np.float64)
            values["inv_freq"] = tuple(inv_freq.tolist())
        if self.slopes is not None:
            values["slopes"] = tuple(check_slopes(self.slopes).tolist())
        for name, value in values.items():
            object.__setattr__(self, name, value)
        exact = (self.num_buckets // 2 if not causal else self.num_buckets) // 2
        inv_freq, slopes = self.inv_freq or (), self.slopes

        def refuse(name: str, rule: str) -> None:
            raise ValueError(f"{name} must be {rule}, got {name} = {getattr(self, name)!r}")

        if factor > MAX_ATTENTION_FACTOR:
            refuse("attention_factor", f"at most {MAX_ATTENTION_FACTOR:g}")
        if method == "sinusoidal" and d_model % 2 or method in ROPE_METHODS and d_head % 2:
            refuse("d_model" if method == "sinusoidal" else "d_head", f"even for {method}")
        if method in CONTENT_METHODS and not causal:
            refuse("causal", f"True for {method} (it reads the keys before the query)")
        if len(inv_freq) > d_head // 2 or max(map(abs, inv_freq), default=0) > MAX_INV_FREQ:
            refuse("inv_freq", f"at most {d_head // 2} entries, each at most {MAX_INV_FREQ:g}")
        if slopes is not None and len(slopes) != n_heads:
            refuse("slopes", f"one entry per head ({n_heads})")
        if method == "t5_bias" and not causal and self.num_buckets < 4:
            refuse("num_buckets", "at least 4 when bidirectional (causal=False)")
        if method == "t5_bias" and self.max_distance <= exact:
            refuse("max_distance", f"more than the {exact} exact buckets of num_buckets")
        # Adam keeps the parameters, their gradient, two moments and a flat copy: 8 arrays.
        sizes = ", ".join(
            f"{name} = {getattr(self, name)}"
            for name in ("vocab_size", "d_model", "n_heads", "d_head", "max_len", "num_buckets")
        )
        check_memory(f"a model with {sizes}", 8 * 8 * self.n_parameters())

    def n_parameters(self) -> int:
        """Number of trainable numbers of this configuration.

        Examples
        --------
        >>> ModelConfig("none", vocab_size=4, d_model=4, n_heads=1).n_parameters()  # 16+48+16+4
        84
        """
        return sum(math.prod(shape) for shape in self.param_shapes().values())

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
        content = {}  # what a content method adds to each layer
        if self.method == "cope":
            content["cope_pos"] = (h, e, self.cope_positions)
        elif self.method == "forgetting":
            content.update(w_forget=(h, d), b_forget=(h,))
        shapes.update(content)
        inner = dict(w_q=(h, d, e), w_k=(h, d, e), w_v=(h, d, e), w_o=(h, e, d), **content)
        for layer in range(1, self.n_layers):  # the layers before the last, after its arrays
            shapes.update({f"layer{layer}.{name}": shape for name, shape in inner.items()})
        return shapes


def init_params(config: ModelConfig, seed: int = 0) -> dict[str, np.ndarray]:
    """Random initial parameters: embeddings N(0, 1), projections N(0, 1/fan_in), biases 0.

    Examples
    --------
    >>> params = init_params(ModelConfig("learned", vocab_size=5, d_model=4, max_len=6))
    >>> {name: p.shape for name, p in params.items()}["pos"]
    (6, 4)
    """
    rng = np.random.default_rng(seed)
    params = {}
    for name, shape in config.param_shapes().items():
        if name in ("embed", "pos"):
            params[name] = rng.normal(size=shape)
        elif name.endswith(_ZERO_INIT):
            params[name] = np.zeros(shape)
        else:
            params[name] = rng.normal(size=shape) / np.sqrt(shape[-2])
    return params


class Tables:
    """Everything about positions that depends only on the config and the length ``n``."""

    def __init__(self, config: ModelConfig, n: int):
        method = config.method
        self.n = n
        self.pe = self.cos = self.sin = self.bias = self.buckets = None
        self.pairing = "adjacent" if method == "rope_adjacent" else "halves"
        if method == "sinusoidal":
            self.pe = sinusoidal_pe(n, config.d_model, config.base)
        if method in ROPE_METHODS:
            inv_freq = config.inv_freq or frequencies(config.d_head, config.base)
            angles = np.multiply.outer(np.arange(n, dtype=np.float64), inv_freq)
            self.cos = config.attention_factor * np.cos(angles)
            self.sin = config.attention_factor * np.sin(angles)
        if method == "alibi":
            slopes = slopes_of(config.n_heads) if config.slopes is None else np.array(config.slopes)
            self.bias = bias_of(n, slopes)
        if method == "t5_bias":
            offsets = np.arange(n)[None, :] - np.arange(n)[:, None]  # key j - query i
            self.buckets = buckets_of(
                offsets, not config.causal, config.num_buckets, config.max_distance
            )
        # What every forward pass adds to the scores: the fixed bias, and -inf where the
        # causal mask hides a key (added in place, instead of a bias sum and a masked copy).
        self.added = self.bias
        if config.causal:
            hidden = np.where(causal_mask(n), 0.0, -np.inf)
            self.added = hidden if self.bias is None else self.bias + hidden


def _qkv_matrix(params: dict) -> np.ndarray:
    """W_Q, W_K, W_V of every head side by side: shape ``(d_model, 3 * n_heads * d_head)``."""
    stacked = np.concatenate((params["w_q"], params["w_k"], params["w_v"]))  # (3H, d, e)
    return np.swapaxes(stacked, 0, 1).reshape(stacked.shape[1], -1)


def _layer(params: dict, layer: int, config: ModelConfig) -> dict:
    """Layer ``layer``'s arrays (1-based) by their short names; the last layer's are unprefixed."""
    if layer == config.n_layers:
        return params
    prefix = f"layer{layer}."
    return {name.removeprefix(prefix): p for name, p in params.items() if name.startswith(prefix)}


def _attend(x: np.ndarray, weights_of: dict, params: dict, config: ModelConfig, tables: Tables):
    """One attention layer on ``x`` (B, n, d): its heads' outputs side by side, and its cache."""
    batch, n, d = x.shape
    n_heads, e = config.n_heads, config.d_head
    # One matrix product for all queries, keys and values: (3, B, H, n, e).
    q, k, v = (
        (x.reshape(batch * n, d) @ _qkv_matrix(weights_of))
        .reshape(batch, n, 3, n_heads, e)
        .transpose(2, 0, 3, 1, 4)
    )
    if tables.cos is not None:
        q = turn_pairs(q, tables.cos, tables.sin, tables.pairing)
        k = turn_pairs(k, tables.cos, tables.sin, tables.pairing)
    scores = q @ np.swapaxes(k, -1, -2)
    scores /= np.sqrt(e)
    if tables.buckets is not None:
        scores += np.moveaxis(params["t5_bias"][tables.buckets], -1, 0)
    content = {}
    if config.method == "cope":
        content = _cope_forward(scores, q, weights_of["cope_pos"], tables)
    elif config.method == "forgetting":
        content = _forget_forward(scores, x, weights_of["w_forget"], weights_of["b_forget"])
    if tables.added is not None:
        scores += tables.added
    weights = softmax_in_place(scores)  # ``scores`` becomes the weights
    concat = np.swapaxes(weights @ v, 1, 2).reshape(batch * n, n_heads * e)  # heads side by side
    return concat, dict(x=x, q=q, k=k, v=v, weights=weights, concat=concat, **content)


# --- Position from content (lesson 14): CoPE and the forget gate, forward and backward ---


def _cope_forward(scores: np.ndarray, q: np.ndarray, table: np.ndarray, tables: Tables) -> dict:
    """Add CoPE's position term to ``scores`` (B, H, n, n) in place; return what backward needs.

    Golovneva et al. (2024): the gate of key t seen from query i is g_it = σ(s_it), the scaled
    score; the position of key j is p_ij = Σ_{t=j..i} g_it, clipped at P - 1; the logit gains
    q_i · e[p_ij], where e[p] interpolates the learned vectors e[⌊p⌋] and e[⌈p⌉].
    """
    n = scores.shape[-1]
    top = table.shape[-1] - 1
    visible = causal_mask(n)
    # g_it = σ(s_it) on the visible keys, 0 on the hidden ones: (B, H, n, n)
    gates = np.where(visible, 0.5 * (1.0 + np.tanh(0.5 * scores)), 0.0)
    # p_ij = Σ_{t >= j} g_it: a cumulative sum from the right
    raw = np.flip(np.cumsum(np.flip(gates, -1), axis=-1), -1)
    positions = np.minimum(raw, top)
    floor = np.floor(positions).astype(np.int64)
    ceil = np.ceil(positions).astype(np.int64)
    frac = positions - floor
    # z_i[p] = q_i · e[p] for every integer p: (B, H, n, P)
    z = np.einsum("bhne,hep->bhnp", q, table)
    z_floor = np.take_along_axis(z, floor, axis=-1)
    z_ceil = np.take_along_axis(z, ceil, axis=-1)
    scores += (1.0 - frac) * z_floor + frac * z_ceil
    return dict(
        gates=gates,
        positions=positions,
        floor=floor,
        ceil=ceil,
        frac=frac,
        slope=np.where(raw < top, z_ceil - z_floor, 0.0),
    )


def _cope_backward(cache: dict, table: np.ndarray, grad_scores: np.ndarray):
    """Back through CoPE's term: add the gates' share to ``grad_scores`` in place; return the
    gradient of the position table and CoPE's own share of the queries' gradient."""
    gates, floor, ceil, frac = (cache[key] for key in ("gates", "floor", "ceil", "frac"))
    batch, heads, n, _ = grad_scores.shape
    size = table.shape[-1]
    grad_term = grad_scores.copy()  # d loss / d (the position term), (B, H, n, n)
    # the term is (1 - w) z[floor] + w z[ceil]: scatter onto z, (B, H, n, P)
    rows = np.arange(batch * heads * n).reshape(batch, heads, n, 1) * size
    grad_z = np.bincount(
        np.concatenate([(rows + floor).ravel(), (rows + ceil).ravel()]),
        weights=np.concatenate([(grad_term * (1.0 - frac)).ravel(), (grad_term * frac).ravel()]),
        minlength=batch * heads * n * size,
    ).reshape(batch, heads, n, size)
    # d term / d p_ij = z[ceil] - z[floor] (0 where p was clipped); p_ij = Σ_{t >= j} g_it,
    # so d loss / d g_it = Σ_{j <= t} d loss / d p_ij: a cumulative sum from the left
    grad_gates = np.cumsum(grad_term * cache["slope"], axis=-1)
    grad_scores += grad_gates * gates * (1.0 - gates)  # σ' = σ (1 - σ); 0 on hidden keys
    grad_table = np.einsum("bhne,bhnp->hep", cache["q"], grad_z)
    grad_q = np.einsum("bhnp,hep->bhne", grad_z, table)
    return grad_table, grad_q


def _forget_forward(scores: np.ndarray, x: np.ndarray, w_forget: np.ndarray, b_forget: np.ndarray):
    """Add the forget gate's decay to ``scores`` (B, H, n, n) in place; return the gates.

    Lin et al. (2025): f_t = σ(w · x_t + b) per head; the logit (i, j) gains
    D_ij = Σ_{l=j+1..i} log f_l = c_i - c_j with c_t = Σ_{l<=t} log f_l.
    """
    # u_t = w · x_t + b per head: (B, H, n)
    u = np.einsum("bnd,hd->bhn", x, w_forget) + b_forget[None, :, None]
    log_f = -np.logaddexp(0.0, -u)  # log σ(u), without overflow
    c = np.cumsum(log_f, axis=-1)
    scores += c[..., :, None] - c[..., None, :]
    return dict(forget=np.exp(log_f))


def _forget_backward(cache: dict, w_forget: np.ndarray, grad_scores: np.ndarray):
    """Back through the decay: gradients of the gate's weights and bias, and of the input."""
    # D_ij = c_i - c_j: d loss / d c_t = Σ_j G_tj - Σ_i G_it
    grad_c = grad_scores.sum(axis=-1) - grad_scores.sum(axis=-2)  # (B, H, n)
    # c_t = Σ_{l <= t} log f_l: d loss / d log f_l = Σ_{t >= l} d loss / d c_t
    grad_log_f = np.flip(np.cumsum(np.flip(grad_c, -1), axis=-1), -1)
    grad_u = grad_log_f * (1.0 - cache["forget"])  # d log σ(u) / du = 1 - σ(u)
    grad_w = np.einsum("bhn,bnd->hd", grad_u, cache["x"])
    grad_x = np.einsum("bhn,hd->bnd", grad_u, w_forget)
    return grad_w, grad_u.sum(axis=(0, 2)), grad_x


def forward_pass(
    params: dict, config: ModelConfig, tokens: ArrayLike, tables: Tables | None = None
) -> tuple[np.ndarray, dict]:
    """Logits ``(B, n, vocab)`` of token ids ``(B, n)`` or ``(n,)``, and the cache backward reads.

    ``cache["weights"]`` holds the last layer's attention weights ``(B, H, n, n)``, and
    ``cache["inner"][l - 1]["weights"]`` layer ``l``'s; nothing is checked (not a door).
    """
    tokens = np.atleast_2d(tokens)
    tables = Tables(config, tokens.shape[1]) if tables is None else tables
    x = params["embed"][tokens]
    if config.method == "sinusoidal":
        x = x + tables.pe
    elif config.method == "learned":
        x = x + params["pos"][: tables.n]
    batch, n, d = x.shape
    n_heads, e = config.n_heads, config.d_head
    inner = []
    for layer in range(1, config.n_layers):
        # x <- x + Σ_h (a_h v_h) W_O^l[h]: the layer writes into the residual stream
        weights_of = _layer(params, layer, config)
        concat, cache = _attend(x, weights_of, params, config, tables)
        inner.append(cache)
        x = x + (concat @ weights_of["w_o"].reshape(n_heads * e, d)).reshape(batch, n, d)
    concat, cache = _attend(x, params, params, config, tables)
    logits = concat @ params["w_o"].reshape(n_heads * e, -1) + params["b_o"]
    if config.residual:
        logits = logits + x.reshape(batch * n, d) @ params["w_skip"]
    cache["inner"] = inner  # the caches of layers 1 .. N - 1; the last layer's is ``cache``
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


def _attend_backward(
    weights_of: dict,
    config: ModelConfig,
    tables: Tables,
    cache: dict,
    grad_heads: np.ndarray,
    softmax_grad,
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Back through one attention layer, from the gradient of its heads' outputs (B, H, n, e):
    the gradients of its W_Q, W_K, W_V (and of the T5 table), and of its input, flat."""
    x, q, k, v, weights = (cache[key] for key in ("x", "q", "k", "v", "weights"))
    batch, n_heads, n, e = v.shape
    d = x.shape[-1]
    flat_x = x.reshape(batch * n, d)
    grads = {}
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
    grad_input_extra = None
    if config.method == "cope":
        grads["cope_pos"], grad_q_extra = _cope_backward(cache, weights_of["cope_pos"], grad_scores)
    elif config.method == "forgetting":
        grads["w_forget"], grads["b_forget"], grad_input_extra = _forget_backward(
            cache, weights_of["w_forget"], grad_scores
        )
    grad_scores /= np.sqrt(e)
    grad_q = grad_scores @ k
    grad_k = np.swapaxes(grad_scores, -1, -2) @ q
    if config.method == "cope":
        grad_q += grad_q_extra
    if tables.cos is not None:  # the transpose of a rotation is the rotation backwards
        grad_q = turn_pairs(grad_q, tables.cos, -tables.sin, tables.pairing)
        grad_k = turn_pairs(grad_k, tables.cos, -tables.sin, tables.pairing)
    # (B, H, n, e) three times -> (B n, 3 H e), the layout of _qkv_matrix's columns
    grad_proj = np.empty((batch, n, 3, n_heads, e))
    for i, grad in enumerate((grad_q, grad_k, grad_v)):
        grad_proj[:, :, i] = np.swapaxes(grad, 1, 2)
    grad_proj = grad_proj.reshape(batch * n, 3 * n_heads * e)
    grad_w = (flat_x.T @ grad_proj).reshape(d, 3 * n_heads, e).swapaxes(0, 1)
    grads["w_q"], grads["w_k"], grads["w_v"] = (
        grad_w[i * n_heads : (i + 1) * n_heads] for i in range(3)
    )
    grad_input = grad_proj @ _qkv_matrix(weights_of).T
    if grad_input_extra is not None:
        grad_input += grad_input_extra.reshape(batch * n, d)
    return grads, grad_input


def _backward(
    params: dict,
    config: ModelConfig,
    tokens: np.ndarray,
    tables: Tables,
    cache: dict,
    grad_logits: np.ndarray,
    softmax_grad: Callable,
) -> dict[str, np.ndarray]:
    """The gradient of every parameter from the logits' gradient, the last layer first."""
    x = cache["x"]
    batch, n_heads, n, e = cache["v"].shape
    d = x.shape[-1]
    flat_g = grad_logits.reshape(batch * n, -1)
    grads = {"b_o": flat_g.sum(axis=0)}
    grad_out = flat_g  # the gradient of the layer's output: the logits, then the stream
    for layer in range(config.n_layers, 0, -1):
        last = layer == config.n_layers
        layer_cache = cache if last else cache["inner"][layer - 1]
        weights_of, prefix = _layer(params, layer, config), "" if last else f"layer{layer}."
        w_o = weights_of["w_o"]
        grads[prefix + "w_o"] = (layer_cache["concat"].T @ grad_out).reshape(w_o.shape)
        grad_concat = (grad_out @ w_o.reshape(n_heads * e, -1).T).reshape(batch, n, n_heads, e)
        found, grad_in = _attend_backward(
            weights_of, config, tables, layer_cache, np.swapaxes(grad_concat, 1, 2), softmax_grad
        )
        for name, grad in found.items():
            if name == "t5_bias" and not last:  # one table for all layers: the gradients add up
                grads[name] = grads[name] + grad
            else:
                grads[prefix + name] = grad
        if last and config.residual:
            grads["w_skip"] = x.reshape(batch * n, d).T @ flat_g
            grad_in += flat_g @ params["w_skip"].T
        # before the last layer x_out = x_in + concat W_O: the gradient reaches x_in directly too
        grad_out = grad_in if last else grad_out + grad_in
    one_hot = np.zeros((batch * n, config.vocab_size))
    one_hot[np.arange(batch * n), tokens.ravel()] = 1.0
    grads["embed"] = one_hot.T @ grad_out
    if config.method == "learned":
        grads["pos"] = np.zeros_like(params["pos"])
        grads["pos"][:n] = grad_out.reshape(batch, n, d).sum(axis=0)
    return grads


# --- Public entry points ---


def check_params(params: object, config: ModelConfig) -> dict[str, np.ndarray]:
    """``params`` as float64 arrays, refused unless they are ``config``'s names and shapes."""
    shapes = config.param_shapes()
    if not isinstance(params, dict):
        raise TypeError(f"params must be a dict of arrays, got {type(params).__name__}")
    if set(params) != set(shapes):
        raise ValueError(f"params must have the keys {sorted(shapes)}, got {sorted(params)}")
    checked = {}
    for name, shape in shapes.items():
        arr = check_array(f"params[{name!r}]", params[name]).astype(np.float64)
        if arr.shape != shape:
            raise ValueError(f"params[{name!r}] must have shape {shape}, got {arr.shape}")
        checked[name] = arr
    return checked


def check_size(config: ModelConfig, batch: int, n: int, what: str, block: int | None = None):
    """Refuse a pass whose arrays would pass the memory budget (``block``: sequences at once)."""
    at_once = batch if block is None else min(batch, block)
    layers = config.n_layers
    scores = 8 * config.n_heads * n * n * at_once * (4 * layers + 2)  # scores, weights, grads
    tables = 8 * n * n * (config.n_heads + 3)  # the mask, a bias, T5's buckets
    width = 6 * layers * config.n_heads * config.d_head + 3 * config.vocab_size
    activations = 8 * batch * n * width
    content = 0
    if config.method == "cope":
        # per layer, kept for backward: some 14 (n, n) and 4 (n, P) arrays in all
        p = config.cope_positions
        content = 8 * config.n_heads * at_once * layers * (14 * n * n + 4 * n * p)
    elif config.method == "forgetting":
        content = 8 * config.n_heads * at_once * layers * 2 * n * n  # the decay and its copy
    shown = f" and cope_positions = {config.cope_positions}" if config.method == "cope" else ""
    check_memory(
        f"{what} of shape ({batch}, {n}) with n_heads = {config.n_heads}{shown}",
        scores + tables + activations + content,
    )


def check_work(
    config: ModelConfig, sequences: int, length: int, what: str, maximum: int = MAX_WORK
) -> None:
    """Refuse ``sequences × length × width`` past ``maximum``, ``width = n_layers × n_heads ×
    d_head × (d_model + length (+ cope_positions))``: what a token's work grows with."""
    extra = config.cope_positions if config.method == "cope" else 0
    width = config.n_layers * config.n_heads * config.d_head * (config.d_model + length + extra)
    if sequences * length * width > maximum:
        raise ValueError(
            f"{what} is too much work for one call: sequences × length × width = {sequences} × "
            f"{length} × {width} passes {maximum:.0e}; use fewer or shorter sequences"
        )


def check_tokens(tokens: object, config: ModelConfig, block: int | None = None) -> np.ndarray:
    """Token ids of ``config``'s vocabulary as int64 ``(batch, n)``, within the model's limits
    (``block``: attention scores a forward pass holds at once)."""
    arr = check_array("tokens", tokens)
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"tokens must hold integer token ids, got dtype {arr.dtype}")
    if arr.ndim > 2:
        raise ValueError(f"tokens must be 1-D (one sequence) or 2-D (a batch), got {arr.shape}")
    if arr.min() < 0 or arr.max() >= config.vocab_size:
        raise ValueError(
            f"tokens must lie in 0 .. {config.vocab_size - 1} (vocab_size {config.vocab_size}), "
            f"got values from {arr.min()} to {arr.max()}"
        )
    check_length(arr.shape[-1], config)
    arr = np.atleast_2d(arr)
    n = arr.shape[1]
    at_once = None if block is None else max(1, block // (config.n_heads * n * n))
    check_size(config, arr.shape[0], n, "tokens", at_once)
    return arr.astype(np.int64)


def check_length(length: int, config: ModelConfig) -> int:
    """Refuse a length past a learned table's ``max_len``."""
    if config.method == "learned" and length > config.max_len:
        raise ValueError(
            f"the learned position table has max_len = {config.max_len} rows and cannot "
            f"encode length {length}: positions past {config.max_len - 1} have no embedding"
        )
    return length


def loss_and_grads(
    params: dict,
    config: ModelConfig,
    batch: Batch,
    tables: Tables | None = None,
    softmax_grad: Callable = softmax_gradient,
) -> tuple[float, dict[str, np.ndarray]]:
    """Mean cross-entropy over ``batch``'s scored positions, and its gradient, one array per
    parameter (``tables`` of the batch's length may be reused; ``softmax_grad`` is the
    softmax's backward step)."""
    tokens = batch.tokens
    tables = Tables(config, tokens.shape[1]) if tables is None else tables
    logits, cache = forward_pass(params, config, tokens, tables)
    loss, grad_logits = _cross_entropy(logits, batch.targets, batch.scored)
    return loss, _backward(params, config, tokens, tables, cache, grad_logits, softmax_grad)


#: Largest finite-difference step of :func:`gradient_check`.
MAX_STEP = 0.1
#: Largest batch_size and length of :func:`gradient_check`.
MAX_CHECK_SIZE = 64
#: Largest parameters × layers :func:`gradient_check` takes (two passes per entry).
MAX_CHECKED_ENTRIES = 10_000


def _checked_softmax_backward(function: Callable) -> Callable:
    """A learner's ``softmax_backward``, its answer checked before the backward pass uses it."""

    def checked(weights: np.ndarray, grad_weights: np.ndarray) -> np.ndarray:
        try:
            out = function(weights.copy(), grad_weights.copy())
        except Exception as exc:  # a learner's function may raise anything: say whose it is
            raise ValueError(f"softmax_backward raised {type(exc).__name__}: {exc}") from exc
        grad = check_array("softmax_backward's result", out, min_ndim=0)
        if grad.shape != weights.shape:
            raise ValueError(
                f"softmax_backward must return an array of the weights' shape {weights.shape}, "
                f"got shape {grad.shape}"
            )
        return grad.astype(np.float64)

    return checked


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
        Size of the test batch, each at most :data:`MAX_CHECK_SIZE` (length <= max_len for
        "learned"); the config's parameters × layers at most :data:`MAX_CHECKED_ENTRIES`.
    seed : int, default 0
        Seed of the parameters and the batch.
    step : float, default 1e-5
        Finite-difference step ``h``, in ``(0, MAX_STEP]``.
    softmax_backward : callable, optional
        ``f(weights, grad_weights) -> grad_scores`` to use in the hand-written pass instead of
        the package's :func:`~pe_helpers.attention.softmax_backward`; its answer must be a finite
        array of the weights' shape, and an error it raises becomes a ``ValueError`` naming it
        (an exercise: write it, then check it here).

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
    if not isinstance(config, ModelConfig):
        raise TypeError(f"config must be a ModelConfig, got {show_value(config)}")
    batch_size = check_int("batch_size", batch_size, minimum=1, maximum=MAX_CHECK_SIZE)
    length = check_length(check_int("length", length, minimum=2, maximum=MAX_CHECK_SIZE), config)
    seed = check_int("seed", seed, minimum=0)
    entries = config.n_parameters()
    if entries * config.n_layers > MAX_CHECKED_ENTRIES:  # two passes per entry
        raise ValueError(
            f"config's parameters × layers must be at most {MAX_CHECKED_ENTRIES}, got "
            f"{entries} × {config.n_layers}: use a smaller d_model, vocab_size or n_layers"
        )
    step = check_real("step", step, positive=True)
    if step > MAX_STEP:  # a larger step measures the curvature, not the gradient
        raise ValueError(f"step must be at most {MAX_STEP:g}, got {step!r}")
    params = init_params(config, seed)
    rng = np.random.default_rng(seed + 1)
    # Twice the initial scale keeps one layer's attention far from uniform; with more layers
    # the residual stream grows layer by layer, and twice would saturate the softmax (its
    # gradient then vanishes below the finite differences' rounding).
    scale = 2.0 if config.n_layers == 1 else 1.0
    for name in params:
        noise = rng.normal(size=params[name].shape) if name.endswith(_ZERO_INIT) else 0.0
        params[name] = scale * params[name] + noise
    batch = Task("copy_back", 1).batch(batch_size, length, config.vocab_size, seed)
    tables = Tables(config, length)
    softmax_grad = softmax_gradient
    if softmax_backward is not None:
        if not callable(softmax_backward):
            raise TypeError(
                f"softmax_backward must be callable, got {show_value(softmax_backward)}"
            )
        softmax_grad = _checked_softmax_backward(softmax_backward)
    _, grads = loss_and_grads(params, config, batch, tables, softmax_grad)
    errors = {}
    for name, value in params.items():
        numeric = np.zeros_like(value)
        for index in np.ndindex(value.shape):
            original = value[index]
            losses = []
            for sign in (1.0, -1.0):
                value[index] = original + sign * step
                logits, _ = forward_pass(params, config, batch.tokens, tables)
                losses.append(_cross_entropy(logits, batch.targets, batch.scored)[0])
            value[index] = original
            numeric[index] = (losses[0] - losses[1]) / (2.0 * step)
        scale = max(np.linalg.norm(grads[name]), np.linalg.norm(numeric))
        errors[name] = 0.0 if scale == 0.0 else float(np.linalg.norm(grads[name] - numeric) / scale)
    return errors
