"""Which RoPE is this? Conventions read off a black-box function's outputs, and the slips.

Lesson 11. :func:`identify_rope` probes a RoPE function ``f(x, positions)`` with unit basis
vectors and reads its pairing, direction and base off the outputs; :func:`identify_pe_table`
does the same for a sinusoidal table ``g(n_positions, d_model)``. :data:`LIBRARY_FLAGS` and
:data:`PE_TABLE_SOURCES` say which library setting is which layout, each with the file that
says so. :func:`rope_mutants` and :func:`pe_table_variants` implement the classic slips.
What low precision does to positions is in :mod:`~pe_helpers.numerics`.

Pure numpy: nothing here draws.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ._validate import check_base, check_choice, check_d_model, check_int, check_real
from .encodings import block_rotation, frequencies, sinusoidal_pe
from .rope import apply_rope

__all__ = [
    "LIBRARY_FLAGS",
    "PE_TABLE_SOURCES",
    "LibraryFlag",
    "PeTableConvention",
    "RopeConvention",
    "TableSource",
    "erratum_shift_operator",
    "identify_pe_table",
    "identify_rope",
    "pe_table_variants",
    "rope_mutants",
]


class LibraryFlag(NamedTuple):
    """A library setting, the RoPE pairing it selects, and the source that says so."""

    library: str
    setting: str
    pairing: str  # "adjacent": pairs (2k, 2k+1); "halves": pairs (k, k + d/2)
    source: str


class TableSource(NamedTuple):
    """A sinusoidal-table layout in use, and the source that shows it."""

    name: str
    layout: str  # "interleaved": columns (2k, 2k+1); "split": columns (k, k + d/2)
    order: str  # "sin, cos" or "cos, sin"
    source: str


_GH = "github.com/"
_FLASH = (_GH + "Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced/flash_attn"
          "/layers/rotary.py, apply_rotary_emb: 'interleaved: if True, rotate pairs of even and "
          "odd dimensions (GPT-J style) instead of 1st half and 2nd half (GPT-NeoX style)'")
_MLX = _GH + "ml-explore/mlx/blob/846d176227a0ac13d2667e58d2bb68b322109ab0/"
_MLX_ROPE = (_MLX + "python/mlx/nn/layers/positional_encoding.py, RoPE: 'The traditional "
             "implementation rotates consecutive pairs of elements in the feature dimension while "
             "the default implementation rotates pairs with stride half the feature dimensions'; "
             "python/src/fast.cpp, rope: 'traditional implementation which rotates consecutive "
             "dimensions'")
_HF = _GH + "huggingface/transformers/blob/"
_LLAMA_CPP = (_GH + "ggml-org/llama.cpp/blob/00342301d01add50835550e8a916f12097d94517/src/"
              "llama-model.cpp, llama_model_rope_type: ")
LIBRARY_FLAGS: tuple[LibraryFlag, ...] = (
    LibraryFlag("flash-attn", "apply_rotary_emb(interleaved=True)", "adjacent", _FLASH),
    LibraryFlag("flash-attn", "apply_rotary_emb(interleaved=False), the default", "halves", _FLASH),
    LibraryFlag("MLX", "nn.RoPE / mx.fast.rope(traditional=True)", "adjacent", _MLX_ROPE),
    LibraryFlag("MLX", "nn.RoPE / mx.fast.rope(traditional=False), the default", "halves",
                _MLX_ROPE),
    LibraryFlag("transformers", "rotate_half (Llama, GPT-NeoX, ...)", "halves",
                _HF + "002272831fba584eb30dca9729c1be456836960a/src/transformers/models/llama/"
                "modeling_llama.py (and models/gpt_neox/modeling_gpt_neox.py): rotate_half "
                "returns cat((-x2, x1)) of the halves x1 = x[..., :d/2], x2 = x[..., d/2:]"),
    LibraryFlag("transformers", "GPT-J rotate_every_two", "adjacent",
                _HF + "cb6cd7e984c1482cfcf62aeb3b2921bfeca71e95/src/transformers/models/gptj/"
                "modeling_gptj.py: rotate_every_two stacks (-x[..., 1::2], x[..., ::2]) pairwise"),
    LibraryFlag("llama.cpp", "LLAMA_ROPE_TYPE_NORM (LLaMA, DeepSeek, ...)", "adjacent",
                _LLAMA_CPP + "'use what we call a normal RoPE, operating on pairs of consecutive "
                "head values'"),
    LibraryFlag("llama.cpp", "LLAMA_ROPE_TYPE_NEOX (GPT-NeoX, Qwen2, Falcon, Phi-3, ...)",
                "halves", _LLAMA_CPP + "'the pairs of head values are offset by n_rot/2'"),
)
_MLX_PE = (_MLX + "python/mlx/nn/layers/positional_encoding.py, SinusoidalPositionalEncoding: "
           "'cos_first: If True embed using [cos(x); sin(x)] instead of the reverse'")
PE_TABLE_SOURCES: tuple[TableSource, ...] = (
    TableSource("Vaswani et al. 2017, the source article (pe_helpers.sinusoidal_pe)",
                "interleaved", "sin, cos",
                "arXiv:1706.03762, section 3.5: PE(pos, 2i) = sin, PE(pos, 2i+1) = cos"),
    TableSource("tensor2tensor add_timing_signal_1d", "split", "sin, cos",
                _GH + "tensorflow/tensor2tensor/blob/017f83a91da0a4f481834fa0eac44d446774acfe/"
                "tensor2tensor/layers/common_attention.py: "
                "signal = tf.concat([tf.sin(scaled_time), tf.cos(scaled_time)], axis=1)"),
    TableSource("MLX nn.SinusoidalPositionalEncoding, the default", "split", "sin, cos", _MLX_PE),
    TableSource("MLX nn.SinusoidalPositionalEncoding(cos_first=True)", "split", "cos, sin",
                _MLX_PE),
)

# What each issue code means and how to fix it.
_MESSAGES = {
    "error": "{detail}",
    "wrong_axis": "a zero row came out non-zero: rows are mixed, so the turn runs along the "
    "positions axis (features play the positions, as with RoPE on a transposed or (heads, ...) "
    "tensor). Fix: turn pairs of features (the last axis) of each row by that row's angles.",
    "ignores_positions": "two equal rows at the same position came out different: the angles "
    "come from the row index, not from `positions`. Fix: angles = np.outer(positions, theta).",
    "identity": "nothing turns: the output equals the input at every position.",
    "not_rotation": "at a fixed position the map is not a turn of feature pairs ({detail}).",
    "unknown_pairing": "features are paired as {detail}: neither adjacent nor half-split.",
    "sin_cos_swapped": "position 0 is turned by 90 degrees and later positions turn backwards: "
    "cos and sin are swapped (x*sin + rotate(x)*cos). Fix: x*cos + rotate(x)*sin.",
    "position_offset": "position 0 is turned (pair 0 by {detail} rad): positions are offset. "
    "Fix: leave position 0 as it is; turn by t*theta with t the position itself.",
    "clockwise": "pairs turn clockwise: the sign of sin is flipped, so scores depend on m - n "
    "instead of n - m. Harmless when q and k share it and train from scratch, wrong with weights "
    "trained the usual way. Fix: (x1, x2) -> (x1 cos - x2 sin, x1 sin + x2 cos).",
    "divided": "the angle grows with the pair index: t / theta_k instead of t * theta_k. "
    "Fix: angle = t * base ** (-2k / d).",
    "column_index": "{detail}: the exponent runs over the column index where the pair index "
    "belongs (2i/d with i a column). Fix: base ** (-2k / d) for pairs k = 0 .. d/2 - 1, that is "
    "base ** (-np.arange(0, d, 2) / d).",
    "base": "the base is {detail}, not the expected {expected}. Fix: use the model's base "
    "(rope_theta in its config).",
    "position_scale": "pair 0 turns by {detail} rad per position instead of 1: positions are "
    "scaled (position interpolation?).",
    "not_geometric": "no base fits the per-pair angles: the frequencies are not base ** (-2k/d).",
    "pairing": "pairs are {detail} but the weights expect {expected}: the first tokens look "
    "fine (position 0 is not turned), then the output degrades. Fix: permute the rows of W_Q "
    "and W_K (halves_permutation), or switch the library flag (LIBRARY_FLAGS).",
    "row0": "row 0 (position 0) should hold sin 0 = 0 in half the columns and cos 0 = 1 in "
    "the other half; got {detail}.",
    "unknown_layout": "the sine columns {detail} are neither the even nor the odd columns, nor "
    "one half.",
    "shift_direction": "T_Δ turns {detail}, but PE(t + Δ) = T_Δ PE(t) needs the other way for "
    "this table: the source article's erratum (its T_Δ, -sin top-right, belongs to (cos, sin) "
    "pairs). Fix: transpose T_Δ.",
    "shift_wrong": "T_Δ does not map PE(t) to PE(t + Δ) for Δ = {detail}.",
}
_PAIRS = {"adjacent": "adjacent (2k, 2k+1)", "halves": "half-split (k, k + d/2)"}
_TURNS = {1.0: "counter-clockwise", -1.0: "clockwise"}
_Issues = list[tuple[str, str]]


def _issue(code: str, detail: object = "", expected: object = "") -> tuple[str, str]:
    return code, _MESSAGES[code].format(detail=detail, expected=expected)


def _show(value: float | None) -> str:
    return "unknown" if value is None else f"{value:.6g}"


class _Verdict:
    """``ok`` and a printable report for the convention dataclasses below."""

    issues: tuple[str, ...]
    messages: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """True when no issue was found."""
        return not self.issues

    def _header(self) -> list[str]:  # pragma: no cover - each report writes its own
        raise NotImplementedError

    def __str__(self) -> str:
        lines = self._header()
        if self.ok:
            return "\n".join([*lines, "  verdict:    nothing to fix."])
        return "\n".join([*lines, "  problems:", *(f"  - {m}" for m in self.messages)])


@dataclass(frozen=True)
class RopeConvention(_Verdict):
    """What :func:`identify_rope` read off a RoPE function; ``print`` it for a verdict.

    Attributes
    ----------
    d_model : int
        Width probed.
    pairing : {"adjacent", "halves"} or None
        Which features turn together; None when unknown.
    direction : {"counter-clockwise", "clockwise"} or None
        Sense of the turn as the position grows.
    base : float or None
        ``theta_k = base ** (-2k / d)``; None when no base fits.
    frequency : {"multiplied", "divided"} or None
        Angle ``position_scale * t * theta_k`` (right) or ``t / theta_k`` (a slip).
    position_scale : float or None
        Turn of pair 0 per position: 1 for plain RoPE.
    issues : tuple of str
        Codes of what is wrong: ``"error"``, ``"wrong_axis"``, ``"ignores_positions"``,
        ``"identity"``, ``"not_rotation"``, ``"unknown_pairing"``, ``"sin_cos_swapped"``,
        ``"position_offset"``, ``"clockwise"``, ``"divided"``, ``"column_index"``, ``"base"``,
        ``"position_scale"``, ``"not_geometric"``, ``"pairing"``; ``()`` when nothing is.
    messages : tuple of str
        One sentence per issue: what is wrong and how to fix it.
    """

    d_model: int
    pairing: str | None = None
    direction: str | None = None
    base: float | None = None
    frequency: str | None = None
    position_scale: float | None = None
    issues: tuple[str, ...] = ()
    messages: tuple[str, ...] = ()

    @property
    def same_layout_as(self) -> tuple[LibraryFlag, ...]:
        """The library settings with this pairing."""
        return tuple(flag for flag in LIBRARY_FLAGS if flag.pairing == self.pairing)

    def _header(self) -> list[str]:
        lines = [f"RoPE, d_model = {self.d_model}"]
        if self.pairing is not None:
            lines.append(f"  pairing:    {_PAIRS[self.pairing]}")
            flags = "; ".join(f"{f.library} {f.setting}" for f in self.same_layout_as)
            lines.append(f"  same as:    {flags}")
        if self.direction is not None:
            lines.append(f"  direction:  {self.direction}")
        if self.frequency is not None:
            rule = "t * theta_k" if self.frequency == "multiplied" else "t / theta_k"
            theta = f"theta_k = base ** (-2k / d), base {_show(self.base)}"
            lines.append(f"  angle:      {rule}, {theta}")
        return lines


class _ProbeError(Exception):
    """The probed function raised or returned something unusable."""


def _call(f: Callable, args: tuple, shape: tuple[int, ...], what: str) -> np.ndarray:
    """``f(*args)`` as a finite float64 array of ``shape``, or a _ProbeError that says why not."""
    try:
        with np.errstate(all="ignore"):
            out = f(*args)
    except Exception as exc:  # a learner's function may raise anything: report it, never crash
        raise _ProbeError(f"{what}: the function raised {type(exc).__name__}: {exc}") from None
    try:
        arr = np.asarray(out, dtype=np.float64)
    except (TypeError, ValueError):
        kind = type(out).__name__
        raise _ProbeError(f"{what}: the function returned {kind}, not numbers") from None
    if arr.shape != shape:
        raise _ProbeError(f"{what}: the function returned shape {arr.shape}, expected {shape}")
    if not np.all(np.isfinite(arr)):
        raise _ProbeError(f"{what}: the function returned NaN or inf")
    return arr


def _wrap(angle: np.ndarray) -> np.ndarray:
    """Angles wrapped to (-π, π]."""
    return np.pi - np.mod(np.pi - angle, 2 * np.pi)


def _refine(angles: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Turn per position from wrapped angles read at increasing positions ``t``.

    The first reading must not wrap; each later one is unwrapped by the current estimate, so
    the estimate sharpens as the positions grow.
    """
    omega = angles[0] / t[0]
    for angle, ti in zip(angles[1:], t[1:], strict=True):
        omega = (angle + 2 * np.pi * np.round((omega * ti - angle) / (2 * np.pi))) / ti
    return omega


def _models(omega: np.ndarray, d: int, expected: float | None) -> list[tuple[float, float, str]]:
    """Candidate (base, scale, frequency): a log-linear fit of ``omega``, then the usual slips."""
    models = []
    if np.all(omega > 0):
        k = np.arange(omega.size)
        slope, intercept = np.polyfit(k, np.log(omega), 1)
        if np.abs(intercept + slope * k - np.log(omega)).max() <= 1e-3:
            frequency = "divided" if slope > 0 else "multiplied"
            models.append((float(np.exp(abs(slope) * d / 2)), float(np.exp(intercept)), frequency))
    if expected is not None:  # aliased (wrapped) readings are still told by a model that fits
        models += [(expected, 1.0, "multiplied"), (expected**2, 1.0, "multiplied")]
        models.append((expected, 1.0, "divided"))
    return models


def _omega(d: int, model: tuple[float, float, str]) -> np.ndarray:
    base, scale, frequency = model
    theta = frequencies(d, base)
    return scale * (theta if frequency == "multiplied" else 1 / theta)


def _close(a: float, b: float) -> bool:
    return abs(np.log(a / b)) < 1e-3


def _base_issues(model: tuple[float, float, str], expected: float | None) -> _Issues:
    base, scale, frequency = model
    issues = [_issue("divided")] if frequency == "divided" else []
    if abs(scale - 1) > 1e-3:
        issues.append(_issue("position_scale", f"{scale:.4g}"))
    if expected is not None and frequency == "multiplied" and not _close(base, expected):
        if _close(base, expected**2):
            detail = f"frequencies fall twice as fast, as with base {base:.4g} = {expected:.4g}²"
            issues.append(_issue("column_index", detail))
        else:
            issues.append(_issue("base", f"{base:.6g}", f"{expected:.6g}"))
    return issues


def _check_common(fn: object, d_model: object, expected_base: object, atol: object) -> tuple:
    if not callable(fn):
        raise TypeError(f"the function to probe must be callable, got {fn!r}")
    d = check_d_model(d_model)
    if d < 4:
        raise ValueError(f"d_model must be >= 4 to tell the layouts apart, got {d}")
    expected = None if expected_base is None else check_base(expected_base)
    return d, expected, check_real("atol", atol, positive=True)


def identify_rope(
    f: Callable[[np.ndarray, np.ndarray], ArrayLike],
    d_model: int,
    *,
    expected_base: float | None = 10000.0,
    expected_pairing: str | None = None,
    max_position: int = 256,
    atol: float = 1e-4,
) -> RopeConvention:
    """Read the convention of a black-box RoPE function off its outputs.

    ``f(x, positions)`` gets ``x`` of shape ``(n, d_model)`` and ``n`` integer positions and
    returns the rotated ``x``. Four rows first check that rows stay apart and that the angles
    come from ``positions``. Then the unit basis vectors at positions ``0, 1, 2, 4, ...`` give
    the whole map at each position: its non-zero entries give the pairing, each 2x2 block an
    angle, the angles (unwrapped from position to position) each pair's turn per position, and a
    log-linear fit against the pair index the base, checked against every angle read.

    Parameters
    ----------
    f : callable
        The function to probe. If it raises or returns the wrong shape the report says so.
    d_model : int
        Width; even and >= 4.
    expected_base : float or None, default 10000.0
        Base ``f`` should use, to name a wrong base or the column-index slip (base squared);
        None to only measure it.
    expected_pairing : {"adjacent", "halves"} or None
        Pairing the weights were trained with; another one is reported as ``"pairing"``.
    max_position : int, default 256
        Largest position probed (a power of two at most this); lower if ``f`` has a short cache.
    atol : float, default 1e-4
        Tolerance on entries and angles; raise it for float16 or bfloat16 functions.

    Returns
    -------
    RopeConvention

    Examples
    --------
    >>> report = identify_rope(lambda x, t: apply_rope(x, t, pairing="halves"), d_model=8)
    >>> report.pairing, report.direction, round(report.base), report.ok
    ('halves', 'counter-clockwise', 10000, True)
    >>> identify_rope(rope_mutants()["divided"], d_model=8).issues
    ('divided',)
    """
    d, expected, atol = _check_common(f, d_model, expected_base, atol)
    if expected_pairing is not None:
        check_choice("expected_pairing", expected_pairing, tuple(_PAIRS))
    max_position = check_int("max_position", max_position, minimum=4)
    found: dict = {}
    try:
        issues = _read_rope(f, d, expected, max_position, atol, found)
    except _ProbeError as exc:
        issues = [_issue("error", exc)]
    if expected_pairing is not None and found.get("pairing") not in (None, expected_pairing):
        issues.append(_issue("pairing", _PAIRS[found["pairing"]], _PAIRS[expected_pairing]))
    codes, messages = zip(*issues, strict=True) if issues else ((), ())
    return RopeConvention(d_model=d, issues=codes, messages=messages, **found)


def _rope_maps(f: Callable, d: int, t: np.ndarray) -> np.ndarray:
    """The (d, d) map of ``f`` at each position of ``t``: column j is the image of e_j."""
    x = np.tile(np.eye(d), (t.size, 1))
    out = _call(f, (x, np.repeat(t, d)), x.shape, "probe with unit vectors")
    return out.reshape(t.size, d, d).transpose(0, 2, 1)


def _read_rope(f, d, expected, max_position, atol, found) -> _Issues:
    u = np.full(d, d**-0.5)
    rows, positions = np.stack([u, u, u, 0 * u]), np.array([3, 3, 1, 2])
    out = _call(f, (rows, positions), (4, d), "probe with 4 rows")
    if np.abs(out[3]).max() > atol:
        return [_issue("wrong_axis")]
    if np.abs(out[0] - out[1]).max() > atol:
        return [_issue("ignores_positions")]
    t = np.array([0] + [2**i for i in range(int(np.log2(max_position)) + 1)])
    try:
        maps = _rope_maps(f, d, t)
    except _ProbeError:  # e.g. a cos/sin cache shorter than max_position: probe near 0 only
        t = np.arange(4)
        maps = _rope_maps(f, d, t)
    if np.abs(maps - np.eye(d)).max() <= atol:
        return [_issue("identity")]
    mass = np.abs(maps[1:]).max(axis=0)
    cols = np.arange(d)
    coupling = np.where(cols[:, None] == cols, 0.0, mass)
    partner = coupling.argmax(axis=0)
    still = np.flatnonzero(coupling.max(axis=0) == 0)  # a turn, however slow, leaves exact zero
    if still.size:
        detail = f"features {still.tolist()[:6]} never turn: partial rotary?"
        return [_issue("not_rotation", detail)]
    mass[cols, cols] = mass[partner, cols] = 0
    if mass.max() > atol or np.any(partner[partner] != cols):
        return [_issue("not_rotation", "features mix beyond fixed pairs")]
    pairs = sorted({(min(j, p), max(j, p)) for j, p in enumerate(partner.tolist())})
    half = range(d // 2)
    layouts = {
        "adjacent": [(2 * k, 2 * k + 1) for k in half],
        "halves": [(k, k + d // 2) for k in half],
    }
    pairing = next((name for name, layout in layouts.items() if pairs == layout), None)
    if pairing is None:
        return [_issue("unknown_pairing", pairs[:3] + ["..."])]
    found["pairing"] = pairing
    a, b = np.array(layouts[pairing]).T
    c, s = maps[:, a, a], maps[:, b, a]
    if max(np.abs(c - maps[:, b, b]).max(), np.abs(s + maps[:, a, b]).max(),
           np.abs(c**2 + s**2 - 1).max()) > atol:
        return [_not_a_turn(maps, partner, t, expected, atol)]
    angle = np.arctan2(s, c)
    issues = []
    swapped = bool(np.all(np.abs(angle[0] - np.pi / 2) <= atol))
    if swapped:
        issues.append(_issue("sin_cos_swapped"))
    elif np.abs(angle[0]).max() > atol:
        issues.append(_issue("position_offset", f"{angle[0, 0]:.3g}"))
    turned = _wrap(angle[1:] - angle[0])
    omega = _refine(turned, t[1:])
    sign = -1.0 if omega[0] < 0 else 1.0  # pair 0 turns by 1 rad per position: no wrapping
    found["direction"] = _TURNS[sign]
    if sign < 0 and not swapped:
        issues.append(_issue("clockwise"))
    for model in _models(sign * omega, d, expected):
        predicted = np.multiply.outer(t[1:], sign * _omega(d, model))
        if np.abs(_wrap(predicted - turned)).max() <= atol:
            break
    else:
        return [*issues, _issue("not_geometric")]
    found.update(base=model[0], position_scale=model[1], frequency=model[2])
    return issues + _base_issues(model, expected)


def _not_a_turn(maps, partner, t, expected, atol) -> tuple[str, str]:
    """Pairs that are no turns: is each feature turning at its own frequency (2i for 2⌊i/2⌋)?"""
    d = partner.size
    if expected is not None:
        j = np.arange(d)
        sign = np.where(j < partner, -1.0, 1.0)  # row j holds (cos, -sin) or (sin, cos)
        own = np.arctan2(sign * maps[:, j, partner], maps[:, j, j])
        if np.abs(_wrap(np.multiply.outer(t, expected ** (-2 * j / d)) - own)).max() <= atol:
            detail = "each feature j turns at its own frequency base ** (-2j / d)"
            return _issue("column_index", detail)
    return _issue("not_rotation", "a pair is stretched or reflected")


# --- Sinusoidal tables: layout, order, base, and which way T_Δ turns ---


@dataclass(frozen=True)
class PeTableConvention(_Verdict):
    """What :func:`identify_pe_table` read off a sinusoidal table; ``print`` it for a verdict.

    Attributes
    ----------
    d_model : int
        Width probed.
    layout : {"interleaved", "split"} or None
        Pairs in columns (2k, 2k+1), or sines in one half and cosines in the other.
    order : {"sin, cos", "cos, sin"} or None
        Which member of each pair comes first.
    base : float or None
        Frequencies ``base ** (-2k / d)``, or ``base ** (-k / (d/2 - 1))`` when ``spacing`` is
        ``"k/(d/2-1)"`` (tensor2tensor's and MLX's: the last pair reaches ``1 / base``).
    spacing : {"2k/d", "k/(d/2-1)"} or None
        How the exponent runs; the second is told only with ``expected_base``.
    scale : float or None
        Amplitude (cos 0): 1 for Vaswani's table, ``sqrt(2/d)`` for MLX's.
    shift_direction : {"clockwise", "counter-clockwise"} or None
        How ``T_Δ`` with ``PE(t + Δ) = T_Δ PE(t)`` turns each pair in column order: clockwise
        for (sin, cos) pairs, counter-clockwise for (cos, sin).
    issues, messages : tuple of str
        As in :class:`RopeConvention`, plus ``"row0"``, ``"unknown_layout"``,
        ``"shift_direction"`` (the source article's erratum) and ``"shift_wrong"``.
    """

    d_model: int
    layout: str | None = None
    order: str | None = None
    base: float | None = None
    spacing: str | None = None
    scale: float | None = None
    shift_direction: str | None = None
    issues: tuple[str, ...] = ()
    messages: tuple[str, ...] = ()

    @property
    def same_layout_as(self) -> tuple[TableSource, ...]:
        """The known tables with this layout and order."""
        key = (self.layout, self.order)
        return tuple(s for s in PE_TABLE_SOURCES if (s.layout, s.order) == key)

    def _header(self) -> list[str]:
        lines = [f"sinusoidal table, d_model = {self.d_model}"]
        if self.layout is not None:
            lines.append(f"  layout:     {self.layout}, ({self.order}) pairs, "
                         f"amplitude {_show(self.scale)}")
            known = "; ".join(s.name for s in self.same_layout_as) or "no table we know of"
            lines.append(f"  same as:    {known}")
            lines.append(f"  T_Δ turns:  {self.shift_direction}  (PE(t + Δ) = T_Δ PE(t))")
        if self.spacing is not None:
            lines.append(f"  base:       {_show(self.base)}, exponent {self.spacing}")
        return lines


def identify_pe_table(
    g: Callable[[int, int], ArrayLike],
    d_model: int,
    *,
    n_positions: int = 257,
    expected_base: float | None = 10000.0,
    shift: Callable[[float, int], ArrayLike] | None = None,
    atol: float = 1e-4,
) -> PeTableConvention:
    """Read the layout of a sinusoidal positional-encoding table off the table itself.

    Row 0 gives it away exactly: sines are 0 there and cosines 1, so the sine columns tell
    interleaved from split and (sin, cos) from (cos, sin). The k-th sine and k-th cosine columns
    form pair k; its angles at rows 1, 2, 4, ... give its turn per position, and a log-linear
    fit gives the base, checked against the whole table.

    Parameters
    ----------
    g : callable
        ``g(n_positions, d_model)`` returning the table, shape ``(n_positions, d_model)``.
    d_model : int
        Width; even and >= 4.
    n_positions : int, default 257
        Rows asked for (positions 0 .. n_positions - 1); at least 3.
    expected_base : float or None, default 10000.0
        Base the table should use; None to only measure it.
    shift : callable or None
        ``shift(delta, d_model)`` returning a ``T_Δ`` to check on the table: tells the source
        article's erratum (a ``T_Δ`` turning the wrong way) from a right one.
    atol : float, default 1e-4
        Tolerance on entries and angles.

    Returns
    -------
    PeTableConvention

    Examples
    --------
    >>> report = identify_pe_table(lambda n, d: sinusoidal_pe(n, d), d_model=8)
    >>> report.layout, report.order, round(report.base), report.shift_direction
    ('interleaved', 'sin, cos', 10000, 'clockwise')
    >>> identify_pe_table(pe_table_variants()["sines_then_cosines"], 8).layout
    'split'
    >>> identify_pe_table(lambda n, d: sinusoidal_pe(n, d), 8, shift=erratum_shift_operator).issues
    ('shift_direction',)
    """
    d, expected, atol = _check_common(g, d_model, expected_base, atol)
    n = check_int("n_positions", n_positions, minimum=3)
    if shift is not None and not callable(shift):
        raise TypeError(f"shift must be callable or None, got {shift!r}")
    found: dict = {}
    try:
        issues = _read_table(g, d, n, expected, shift, atol, found)
    except _ProbeError as exc:
        issues = [_issue("error", exc)]
    codes, messages = zip(*issues, strict=True) if issues else ((), ())
    return PeTableConvention(d_model=d, issues=codes, messages=messages, **found)


def _read_table(g, d, n, expected, shift, atol, found) -> _Issues:
    table = _call(g, (n, d), (n, d), f"g({n}, {d})")
    scale = np.abs(table[0]).max()
    is_cos, is_sin = np.abs(table[0] - scale) <= atol * scale, np.abs(table[0]) <= atol * scale
    if scale <= atol or not np.all(is_cos | is_sin) or is_cos.sum() != d // 2:
        return [_issue("row0", np.round(table[0], 3).tolist())]
    table = table / scale
    sin_cols, cos_cols = np.flatnonzero(is_sin), np.flatnonzero(is_cos)
    half = np.arange(d // 2)
    layouts = {("interleaved", "sin, cos"): 2 * half, ("interleaved", "cos, sin"): 2 * half + 1,
               ("split", "sin, cos"): half, ("split", "cos, sin"): half + d // 2}
    key = next((k for k, cols in layouts.items() if np.array_equal(cols, sin_cols)), None)
    if key is None:
        return [_issue("unknown_layout", sin_cols.tolist())]
    pair0 = sorted([sin_cols[0], cos_cols[0]])  # T_Δ turns v(0) into v(1): the sign of v0 x v1
    (x0, y0), (x1, y1) = table[0, pair0], table[1, pair0]
    turn = _TURNS[-1.0 if x0 * y1 - y0 * x1 < 0 else 1.0]
    found.update(layout=key[0], order=key[1], scale=float(scale), shift_direction=turn)
    issues = [] if shift is None else _check_shift(shift, table, turn, atol)
    ladder = 2 ** np.arange(int(np.log2(n - 1)) + 1)
    omega = _refine(np.arctan2(table[ladder][:, sin_cols], table[ladder][:, cos_cols]), ladder)
    t = np.arange(n)
    for model in _models(omega, d, expected):
        angles = np.multiply.outer(t, _omega(d, model))
        sin_err, cos_err = np.sin(angles) - table[:, sin_cols], np.cos(angles) - table[:, cos_cols]
        if max(np.abs(sin_err).max(), np.abs(cos_err).max()) <= atol:
            break
    else:
        if expected is not None:  # the tutorial slip: column j at its own frequency
            angles = np.multiply.outer(t, expected ** (-2 * np.arange(d) / d))
            if np.abs(np.where(is_sin, np.sin(angles), np.cos(angles)) - table).max() <= atol:
                detail = "each column j runs at its own frequency base ** (-2j / d)"
                return [*issues, _issue("column_index", detail)]
        return [*issues, _issue("not_geometric")]
    found.update(base=model[0], spacing="2k/d")
    stretched = model[0] ** ((d - 2) / d)  # the same frequencies read as base ** (-k / (d/2 - 1))
    plain = model[2] == "multiplied" and abs(model[1] - 1) <= 1e-3
    if expected is not None and plain and _close(stretched, expected):
        found.update(base=stretched, spacing="k/(d/2-1)")
        return issues
    return issues + _base_issues(model, expected)


def _check_shift(shift: Callable, table: np.ndarray, needed: str, atol: float) -> _Issues:
    """Does ``T_Δ = shift(Δ, d)`` map row t of the table to row t + Δ, turning as ``needed``?"""
    d = table.shape[1]
    rows = min(len(table), 64)
    for delta in (1, min(3, rows - 1)):
        matrix = _call(shift, (delta, d), (d, d), f"shift({delta}, {d})")
        before, after = table[: rows - delta], table[delta:rows]
        if np.abs(before @ matrix.T - after).max() <= atol:
            continue
        if np.abs(before @ matrix - after).max() <= atol:  # the transpose works: wrong way round
            wrong_way = "counter-clockwise" if needed == "clockwise" else "clockwise"
            return [_issue("shift_direction", wrong_way)]
        return [_issue("shift_wrong", delta)]
    return []


def erratum_shift_operator(delta: float, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The source article's ``T_Δ``: counter-clockwise blocks ``[[cos, -sin], [sin, cos]]``.

    It moves a (cos, sin) table forward, but the article pairs it with the (sin, cos) table of
    :func:`~pe_helpers.encodings.sinusoidal_pe`, which needs its transpose,
    :func:`~pe_helpers.encodings.shift_operator`.

    Parameters
    ----------
    delta : float
        Offset Δ.
    d_model : int
        Width; positive and even.
    base : float, default 10000.0
        Frequency base.

    Returns
    -------
    numpy.ndarray
        Shape ``(d_model, d_model)``.

    Examples
    --------
    >>> pe = sinusoidal_pe([0, 1], 4)
    >>> bool(np.allclose(erratum_shift_operator(1, 4) @ pe[0], pe[1]))
    False
    """
    return block_rotation(check_real("delta", delta) * frequencies(d_model, base))


def pe_table_variants(base: float = 10000.0) -> dict[str, Callable[[int, int], np.ndarray]]:
    """Sinusoidal-table functions ``g(n_positions, d_model)``: the layouts in use, and two slips.

    Parameters
    ----------
    base : float, default 10000.0
        Frequency base of every variant.

    Returns
    -------
    dict of str to callable
        ``"sin_cos_interleaved"`` (Vaswani), ``"cos_sin_interleaved"``, ``"sines_then_cosines"``
        (tensor2tensor, MLX), ``"cosines_then_sines"``, and the slips ``"column_index"`` (column
        j at ``base ** (-2j / d)``) and ``"divided"`` (``t / theta_k``).

    Examples
    --------
    >>> pe_table_variants()["cosines_then_sines"](2, 4)[0].tolist()
    [1.0, 1.0, 0.0, 0.0]
    """
    base = check_base(base)

    def angles(n: int, d: int) -> np.ndarray:
        return np.multiply.outer(np.arange(n), frequencies(d, base))

    def interleave(first: np.ndarray, second: np.ndarray) -> np.ndarray:
        return np.stack([first, second], axis=-1).reshape(first.shape[0], -1)

    def column_index(n: int, d: int) -> np.ndarray:
        j = np.arange(d)  # slip: column j gets base ** (-2j / d), not its pair's frequency
        a = np.multiply.outer(np.arange(n), base ** (-2 * j / d))
        return np.where(j % 2 == 0, np.sin(a), np.cos(a))

    def divided(n: int, d: int) -> np.ndarray:
        a = np.multiply.outer(np.arange(n), 1 / frequencies(d, base))  # slip: t / theta_k
        return interleave(np.sin(a), np.cos(a))

    return {
        "sin_cos_interleaved": lambda n, d: sinusoidal_pe(n, d, base),
        "cos_sin_interleaved": lambda n, d: interleave(np.cos(angles(n, d)), np.sin(angles(n, d))),
        "sines_then_cosines": lambda n, d: np.hstack([np.sin(angles(n, d)), np.cos(angles(n, d))]),
        "cosines_then_sines": lambda n, d: np.hstack([np.cos(angles(n, d)), np.sin(angles(n, d))]),
        "column_index": column_index,
        "divided": divided,
    }


# --- RoPE slips, one function each ---


def _turn(x: ArrayLike, angles: np.ndarray, swap: bool = False) -> np.ndarray:
    """Adjacent pairs of each row turned by ``angles[row, k]``; ``swap`` swaps cos and sin."""
    x = np.asarray(x, dtype=np.float64)
    cos, sin = (np.sin(angles), np.cos(angles)) if swap else (np.cos(angles), np.sin(angles))
    out = np.empty_like(x)
    out[:, 0::2] = x[:, 0::2] * cos - x[:, 1::2] * sin
    out[:, 1::2] = x[:, 0::2] * sin + x[:, 1::2] * cos
    return out


def rope_mutants(base: float = 10000.0) -> dict[str, Callable[..., np.ndarray]]:
    """RoPE functions ``f(x, positions)`` with one classic slip each (adjacent pairs otherwise).

    Parameters
    ----------
    base : float, default 10000.0
        Frequency base of every mutant.

    Returns
    -------
    dict of str to callable
        Keyed by slip; :func:`identify_rope` reports each as the issue of the same name:
        ``"clockwise"`` (sign of sin flipped), ``"column_index"`` (pair k at
        ``base ** (-2(2k) / d)``), ``"divided"`` (``t / theta``), ``"wrong_axis"`` (RoPE of
        ``x.T``; needs an even number of rows), ``"ignores_positions"`` (row index used),
        ``"sin_cos_swapped"``. Also ``"column_index_per_feature"`` (feature j at
        ``base ** (-2j / d)``), reported as ``"column_index"``, and ``"half_split"``, a right
        RoPE in the other layout, reported as ``"pairing"`` when the weights expect adjacent
        pairs.

    Examples
    --------
    >>> f = rope_mutants()["clockwise"]
    >>> f(np.array([[1.0, 0.0]]), [1]).round(4).tolist()  # turned by -1 rad, not +1
    [[0.5403, -0.8415]]
    """
    base = check_base(base)

    def theta(d: int) -> np.ndarray:
        return base ** (-2 * np.arange(d // 2) / d)  # right: pair index k = 0 .. d/2 - 1

    def column_index(x, positions):
        d = np.shape(x)[1]
        column = np.arange(0, d, 2)  # slip: the column 2k where the pair index k belongs
        return _turn(x, np.outer(positions, base ** (-2 * column / d)))

    def column_index_per_feature(x, positions):
        x = np.asarray(x, dtype=np.float64)
        d = x.shape[1]
        a = np.outer(positions, base ** (-2 * np.arange(d) / d))  # slip: 2i where 2(i//2) belongs
        turned = np.empty_like(x)
        turned[:, 0::2], turned[:, 1::2] = -x[:, 1::2], x[:, 0::2]
        return x * np.cos(a) + turned * np.sin(a)

    return {
        "clockwise": lambda x, t: _turn(x, -np.outer(t, theta(np.shape(x)[1]))),  # -sin
        "column_index": column_index,
        "column_index_per_feature": column_index_per_feature,
        "divided": lambda x, t: _turn(x, np.outer(t, 1 / theta(np.shape(x)[1]))),  # t / θ
        "wrong_axis": lambda x, t: apply_rope(np.asarray(x).T, base=base).T,  # pairs rows
        "ignores_positions": lambda x, t: apply_rope(x, base=base),  # positions 0 .. n-1
        "sin_cos_swapped": lambda x, t: _turn(x, np.outer(t, theta(np.shape(x)[1])), swap=True),
        "half_split": lambda x, t: apply_rope(x, t, base, pairing="halves"),  # right, other layout
    }
