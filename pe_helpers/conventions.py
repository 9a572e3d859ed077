"""Which RoPE is this? Conventions read off a black-box function's outputs, and the slips.

Lesson 11. :func:`identify_rope` probes a RoPE function ``f(x, positions)`` with unit basis
vectors and reads its pairing, direction and base off the outputs, naming each classic slip
it sees. :data:`LIBRARY_FLAGS` says which library setting is which pairing, each with the
file that says so. The same reading for sinusoidal tables is in
:mod:`~pe_helpers.table_conventions`; what low precision does to positions is in
:mod:`~pe_helpers.numerics`; one mutant function per slip lives with the lesson, in
:mod:`pe_helpers.lessons.conventions_and_numerics`.

Pure numpy: nothing here draws.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ._validate import (
    check_choice,
    check_d_model,
    check_int,
    check_memory,
    check_real,
    check_rope_base,
    show_value,
)
from .encodings import frequencies
from .i18n import translate

__all__ = ["LIBRARY_FLAGS", "MAX_BASE", "RopeConvention", "identify_rope"]

#: Largest base the detectors compare with (published bases are 1e4 to 1e7; the column-index
#: slip squares it, which must stay a finite float).
MAX_BASE = 1e15


class LibraryFlag(NamedTuple):
    """A library setting, the RoPE pairing it selects, and the source that says so."""

    library: str
    setting: str
    pairing: str  # "adjacent": pairs (2k, 2k+1); "halves": pairs (k, k + d/2)
    source: str  # github.com/owner/repo/blob/<commit>/<path>, then the line that says so

    @property
    def file(self) -> str:
        """``"owner/repo: path"`` of the source file, without the commit and the quote."""
        repo, rest = self.source.removeprefix("github.com/").split("/blob/", 1)
        return f"{repo}: {re.split(r'[,: ]', rest.split('/', 1)[1])[0]}"


GH = "github.com/"
_FLASH = (
    GH + "Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced/flash_attn"
    "/layers/rotary.py, apply_rotary_emb: 'interleaved: if True, rotate pairs of even and "
    "odd dimensions (GPT-J style) instead of 1st half and 2nd half (GPT-NeoX style)'"
)
MLX = GH + "ml-explore/mlx/blob/846d176227a0ac13d2667e58d2bb68b322109ab0/"
_MLX_ROPE = (
    MLX + "python/mlx/nn/layers/positional_encoding.py, RoPE: 'The traditional "
    "implementation rotates consecutive pairs of elements in the feature dimension while "
    "the default implementation rotates pairs with stride half the feature dimensions'; "
    "python/src/fast.cpp, rope: 'traditional implementation which rotates consecutive "
    "dimensions'"
)
_HF = GH + "huggingface/transformers/blob/"
_LLAMA_CPP = (
    GH + "ggml-org/llama.cpp/blob/00342301d01add50835550e8a916f12097d94517/src/"
    "llama-model.cpp, llama_model_rope_type: "
)
LIBRARY_FLAGS: tuple[LibraryFlag, ...] = (
    LibraryFlag("flash-attn", "apply_rotary_emb(interleaved=True)", "adjacent", _FLASH),
    LibraryFlag("flash-attn", "apply_rotary_emb(interleaved=False), the default", "halves", _FLASH),
    LibraryFlag("MLX", "nn.RoPE / mx.fast.rope(traditional=True)", "adjacent", _MLX_ROPE),
    LibraryFlag(
        "MLX", "nn.RoPE / mx.fast.rope(traditional=False), the default", "halves", _MLX_ROPE
    ),
    LibraryFlag(
        "transformers",
        "rotate_half (Llama, GPT-NeoX, ...)",
        "halves",
        _HF + "002272831fba584eb30dca9729c1be456836960a/src/transformers/models/llama/"
        "modeling_llama.py (and models/gpt_neox/modeling_gpt_neox.py): rotate_half "
        "returns cat((-x2, x1)) of the halves x1 = x[..., :d/2], x2 = x[..., d/2:]",
    ),
    LibraryFlag(
        "transformers",
        "GPT-J rotate_every_two",
        "adjacent",
        _HF + "cb6cd7e984c1482cfcf62aeb3b2921bfeca71e95/src/transformers/models/gptj/"
        "modeling_gptj.py: rotate_every_two stacks (-x[..., 1::2], x[..., ::2]) pairwise",
    ),
    LibraryFlag(
        "llama.cpp",
        "LLAMA_ROPE_TYPE_NORM (LLaMA, DeepSeek, ...)",
        "adjacent",
        _LLAMA_CPP + "'use what we call a normal RoPE, operating on pairs of consecutive "
        "head values'",
    ),
    LibraryFlag(
        "llama.cpp",
        "LLAMA_ROPE_TYPE_NEOX (GPT-NeoX, Qwen2, Falcon, Phi-3, ...)",
        "halves",
        _LLAMA_CPP + "'the pairs of head values are offset by n_rot/2'",
    ),
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
    "mixed_layout": "features are paired {detail} but cos and sin are laid out for {expected} "
    "pairs, so the two members of a pair turn at different speeds. Fix: lay out cos and sin "
    "for the pairing you rotate: np.tile(..., 2) (torch.cat((freqs, freqs))) for half-split "
    "rotate_half, np.repeat(..., 2) for adjacent pairs.",
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
TURNS = {1.0: "counter-clockwise", -1.0: "clockwise"}
Issues = list[tuple[str, str]]


def issue(code: str, detail: object = "", expected: object = "") -> tuple[str, str]:
    """The issue ``code`` with its message filled in."""
    return code, _MESSAGES[code].format(detail=detail, expected=expected)


def show_number(value: float | None) -> str:
    """A number in six digits, or "unknown" for None."""
    return "unknown" if value is None else f"{value:.6g}"


@dataclass(frozen=True)
class Verdict:
    """A convention report: the width probed and the issues; subclasses add what they read."""

    d_model: int
    issues: tuple[str, ...] = ()
    messages: tuple[str, ...] = ()

    @classmethod
    def from_issues(cls, d_model: int, issues: Issues, found: dict) -> Verdict:
        """The report of a probe: its ``(code, message)`` issues and the fields it ``found``."""
        codes, messages = zip(*issues, strict=True) if issues else ((), ())
        return cls(d_model=d_model, issues=codes, messages=messages, **found)

    @property
    def ok(self) -> bool:
        """True when no issue was found."""
        return not self.issues

    def __str__(self) -> str:
        """What was read, then the verdict: nothing to fix, or one line per problem."""
        lines = self._header()
        if self.ok:
            return translate("\n".join([*lines, "  verdict:    nothing to fix."]))
        problems = (f"  - {translate(m)}" for m in self.messages)
        return translate("\n".join([*lines, "  problems:", *problems]))


@dataclass(frozen=True)
class RopeConvention(Verdict):
    """What :func:`identify_rope` read off a RoPE function; ``print`` it for a verdict.

    Attributes
    ----------
    d_model : int
        Width of the rows ``f`` was probed with.
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
        Codes of what is wrong (``"clockwise"``, ``"base"``, ``"pairing"``, ...), ``()`` when
        nothing is.
    messages : tuple of str
        One sentence per issue: what is wrong and how to fix it.
    """

    pairing: Literal["adjacent", "halves"] | None = None
    direction: Literal["counter-clockwise", "clockwise"] | None = None
    base: float | None = None
    frequency: Literal["multiplied", "divided"] | None = None
    position_scale: float | None = None

    @property
    def same_layout_as(self) -> tuple[LibraryFlag, ...]:
        """The library settings with this pairing."""
        return tuple(flag for flag in LIBRARY_FLAGS if flag.pairing == self.pairing)

    def _header(self) -> list[str]:
        """The report's first lines: what was read."""
        lines = [f"RoPE, d_model = {self.d_model}"]
        if self.pairing is not None:
            lines.append(f"  pairing:    {_PAIRS[self.pairing]}")
            flags = "; ".join(f"{f.library} {f.setting}" for f in self.same_layout_as)
            lines.append(f"  same as:    {flags}")
        if self.direction is not None:
            lines.append(f"  direction:  {self.direction}")
        if self.frequency is not None:
            rule = "t * theta_k" if self.frequency == "multiplied" else "t / theta_k"
            theta = f"theta_k = base ** (-2k / d), base {show_number(self.base)}"
            lines.append(f"  angle:      {rule}, {theta}")
        return lines


class ProbeError(Exception):
    """The probed function raised or returned something unusable."""


def call_probe(f: Callable, args: tuple, shape: tuple[int, ...], what: str) -> np.ndarray:
    """``f(*args)`` as a finite float64 array of ``shape``, or a ProbeError that says why not."""
    try:
        with np.errstate(all="ignore"):
            out = f(*args)
    except Exception as exc:  # a learner's function may raise anything: report it, never crash
        raise ProbeError(f"{what}: the function raised {type(exc).__name__}: {exc}") from None
    if np.iscomplexobj(out):
        raise ProbeError(
            f"{what}: the function returned complex numbers; return real features "
            "(a complex z_k goes back as z.real and z.imag in its two columns)"
        )
    try:
        arr = np.asarray(out, dtype=np.float64)
    except (TypeError, ValueError):
        kind = type(out).__name__
        raise ProbeError(f"{what}: the function returned {kind}, not numbers") from None
    if arr.shape != shape:
        raise ProbeError(f"{what}: the function returned shape {arr.shape}, expected {shape}")
    if not np.all(np.isfinite(arr)):
        raise ProbeError(f"{what}: the function returned NaN or inf")
    return arr


def wrap_angle(angle: np.ndarray) -> np.ndarray:
    """Angles wrapped to (-π, π]."""
    return np.pi - np.mod(np.pi - angle, 2 * np.pi)


def refine_turns(angles: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Turn per position from wrapped angles at increasing ``t`` (the first must not wrap)."""
    omega = angles[0] / t[0]
    for angle, ti in zip(angles[1:], t[1:], strict=True):
        omega = (angle + 2 * np.pi * np.round((omega * ti - angle) / (2 * np.pi))) / ti
    return omega


def candidate_models(
    omega: np.ndarray, d: int, expected: float | None
) -> list[tuple[float, float, str]]:
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


def model_turns(d: int, model: tuple[float, float, str]) -> np.ndarray:
    """Turn per position of each pair under ``model`` = (base, scale, frequency)."""
    base, scale, frequency = model
    theta = frequencies(d, base)
    return scale * (theta if frequency == "multiplied" else 1 / theta)


def same_ratio(a: float, b: float) -> bool:
    """Whether ``a`` and ``b`` agree within 0.1 %."""
    return abs(np.log(a / b)) < 1e-3


def base_issues(model: tuple[float, float, str], expected: float | None) -> Issues:
    """The issues of a fitted (base, scale, frequency) against the ``expected`` base."""
    base, scale, frequency = model
    issues = [issue("divided")] if frequency == "divided" else []
    if abs(scale - 1) > 1e-3:
        issues.append(issue("position_scale", f"{scale:.4g}"))
    if expected is not None and frequency == "multiplied" and not same_ratio(base, expected):
        if same_ratio(base, expected**2):
            detail = f"frequencies fall twice as fast, as with base {base:.4g} = {expected:.4g}²"
            issues.append(issue("column_index", detail))
        else:
            issues.append(issue("base", f"{base:.6g}", f"{expected:.6g}"))
    return issues


def check_probe_args(
    fn: object, d_model: object, expected_base: object, atol: object, name: str = "f"
) -> tuple[int, float | None, float]:
    """The checked width, expected base and tolerance of a probe; ``fn`` must be callable."""
    if not callable(fn):
        raise TypeError(f"{name} must be callable (the function to probe), got {show_value(fn)}")
    d = check_d_model(d_model, maximum=1024)  # a RoPE map per position is d × d
    if d < 4:
        raise ValueError(f"d_model must be at least 4 to tell the layouts apart, got {d}")
    expected = None
    if expected_base is not None:
        expected = check_rope_base(expected_base, "expected_base")
        if expected > MAX_BASE:
            raise ValueError(f"expected_base must be at most {MAX_BASE:g}, got {expected!r}")
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
    returns the rotated ``x``. The unit basis vectors at positions ``0, 1, 2, 4, ...`` give the
    whole map at each position: its non-zero entries give the pairing, each 2x2 block an angle,
    the angles each pair's turn per position, and a log-linear fit the base.

    Parameters
    ----------
    f : callable
        The function to probe. If it raises or returns the wrong shape the report says so.
    d_model : int
        Width; even and >= 4.
    expected_base : float or None, default 10000.0
        Base ``f`` should use, in ``(1, MAX_BASE]``, to name a wrong base or the column-index
        slip (base squared); None to only measure it.
    expected_pairing : {"adjacent", "halves"} or None
        Pairing the weights were trained with; another one is reported as ``"pairing"``.
    max_position : int, default 256
        Largest position probed (a power of two at most this), 4 to 2**20; lower if ``f`` has
        a short cache.
    atol : float, default 1e-4
        Tolerance on entries and angles; raise it for float16 or bfloat16 functions.

    Returns
    -------
    RopeConvention

    Raises
    ------
    TypeError, ValueError
        An argument of the wrong kind or out of range (what ``f`` itself raises or returns is
        reported in the ``RopeConvention``, never raised).

    Examples
    --------
    >>> from pe_helpers.rope import apply_rope
    >>> report = identify_rope(lambda x, t: apply_rope(x, t, pairing="halves"), d_model=8)
    >>> report.pairing, report.direction, round(report.base), report.ok
    ('halves', 'counter-clockwise', 10000, True)
    >>> identify_rope(lambda x, t: apply_rope(x, np.asarray(t) / 4), d_model=8).issues
    ('position_scale',)
    """
    d, expected, atol = check_probe_args(f, d_model, expected_base, atol)
    if expected_pairing is not None:
        check_choice("expected_pairing", expected_pairing, tuple(_PAIRS))
    max_position = check_int("max_position", max_position, minimum=4, maximum=2**20)
    probes = int(np.log2(max_position)) + 2  # positions 0, 1, 2, 4, ..., max_position
    check_memory(f"max_position = {max_position} with d_model = {d}", 8 * 6 * probes * d * d)
    found: dict = {}
    try:
        issues = _read_rope(f, d, expected, max_position, atol, found)
    except ProbeError as exc:
        issues = [issue("error", exc)]
    mixed = any(code == "mixed_layout" for code, _ in issues)  # no single pairing to compare
    pairing = found.get("pairing")
    if pairing is not None and expected_pairing not in (None, pairing) and not mixed:
        issues.append(issue("pairing", _PAIRS[pairing], _PAIRS[expected_pairing]))
    return RopeConvention.from_issues(d, issues, found)


def _rope_maps(f: Callable, d: int, t: np.ndarray) -> np.ndarray:
    """The (d, d) map of ``f`` at each position of ``t``: column j is the image of e_j."""
    x = np.tile(np.eye(d), (t.size, 1))
    out = call_probe(f, (x, np.repeat(t, d)), x.shape, "probe with unit vectors")
    return out.reshape(t.size, d, d).transpose(0, 2, 1)


def _read_rope(
    f: Callable, d: int, expected: float | None, max_position: int, atol: float, found: dict
) -> Issues:
    """The issues of RoPE function ``f`` probed to ``max_position``; readings go in ``found``."""
    u = np.full(d, d**-0.5)
    rows, positions = np.stack([u, u, u, 0 * u]), np.array([3, 3, 1, 2])
    out = call_probe(f, (rows, positions), (4, d), "probe with 4 rows")
    if np.abs(out[3]).max() > atol:
        return [issue("wrong_axis")]
    if np.abs(out[0] - out[1]).max() > atol:
        return [issue("ignores_positions")]
    t = np.array([0] + [2**i for i in range(int(np.log2(max_position)) + 1)])
    try:
        maps = _rope_maps(f, d, t)
    except ProbeError:  # e.g. a cos/sin cache shorter than max_position: probe near 0 only
        t = np.arange(4)
        maps = _rope_maps(f, d, t)
    if np.abs(maps - np.eye(d)).max() <= atol:
        return [issue("identity")]
    mass = np.abs(maps[1:]).max(axis=0)
    cols = np.arange(d)
    coupling = np.where(cols[:, None] == cols, 0.0, mass)
    partner = coupling.argmax(axis=0)
    still = np.flatnonzero(coupling.max(axis=0) == 0)  # a turn, however slow, leaves exact zero
    if still.size:
        detail = f"features {still.tolist()[:6]} never turn: partial rotary?"
        return [issue("not_rotation", detail)]
    mass[cols, cols] = mass[partner, cols] = 0
    if mass.max() > atol or np.any(partner[partner] != cols):
        return [issue("not_rotation", "features mix beyond fixed pairs")]
    pairs = sorted({(min(j, p), max(j, p)) for j, p in enumerate(partner.tolist())})
    half = range(d // 2)
    layouts = {
        "adjacent": [(2 * k, 2 * k + 1) for k in half],
        "halves": [(k, k + d // 2) for k in half],
    }
    pairing = next((name for name, layout in layouts.items() if pairs == layout), None)
    if pairing is None:
        return [issue("unknown_pairing", pairs[:3] + ["..."])]
    found["pairing"] = pairing
    a, b = np.array(layouts[pairing]).T
    c, s = maps[:, a, a], maps[:, b, a]
    errors = c - maps[:, b, b], s + maps[:, a, b], c**2 + s**2 - 1  # a turn: [[c, -s], [s, c]]
    if max(np.abs(e).max() for e in errors) > atol:
        return [_not_a_turn(maps, partner, t, expected, atol, pairing)]
    angle = np.arctan2(s, c)
    issues = []
    swapped = bool(np.all(np.abs(angle[0] - np.pi / 2) <= atol))
    if swapped:
        issues.append(issue("sin_cos_swapped"))
    elif np.abs(angle[0]).max() > atol:
        issues.append(issue("position_offset", f"{angle[0, 0]:.3g}"))
    turned = wrap_angle(angle[1:] - angle[0])
    omega = refine_turns(turned, t[1:])
    sign = -1.0 if omega[0] < 0 else 1.0  # pair 0 turns by 1 rad per position: no wrapping
    found["direction"] = TURNS[sign]
    if sign < 0 and not swapped:
        issues.append(issue("clockwise"))
    for model in candidate_models(sign * omega, d, expected):
        predicted = np.multiply.outer(t[1:], sign * model_turns(d, model))
        if np.abs(wrap_angle(predicted - turned)).max() <= atol:
            break
    else:
        return [*issues, issue("not_geometric")]
    found.update(base=model[0], position_scale=model[1], frequency=model[2])
    return issues + base_issues(model, expected)


def _not_a_turn(
    maps: np.ndarray,
    partner: np.ndarray,
    t: np.ndarray,
    expected: float | None,
    atol: float,
    pairing: str,
) -> tuple[str, str]:
    """Pairs that are no turns: the column-index slip, or cos and sin laid out for the other
    pairing (``rotate_half`` with ``np.repeat``-ed cos, or the reverse)?"""
    d = partner.size
    if expected is None:
        return issue("not_rotation", "a pair is stretched or reflected")
    j = np.arange(d)
    sign = np.where(j < partner, -1.0, 1.0)  # row j holds (cos, -sin) or (sin, cos)
    own = np.arctan2(sign * maps[:, j, partner], maps[:, j, j])

    def fits(exponents: np.ndarray) -> bool:
        predicted = np.multiply.outer(t, expected ** (-exponents / d))
        return bool(np.abs(wrap_angle(predicted - own)).max() <= atol)

    if fits(2 * j):
        return issue("column_index", "each feature j turns at its own frequency base ** (-2j / d)")
    other = "halves" if pairing == "adjacent" else "adjacent"
    if fits(2 * (j % (d // 2) if other == "halves" else j // 2)):
        return issue("mixed_layout", _PAIRS[pairing], _PAIRS[other])
    return issue("not_rotation", "a pair is stretched or reflected")
