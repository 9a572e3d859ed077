"""Which sinusoidal table is this? Layout, order, base and the direction of T_Δ, from the table.

Lesson 11. :func:`identify_pe_table` reads a positional-encoding table ``g(n_positions,
d_model)`` the way :func:`~pe_helpers.conventions.identify_rope` reads a RoPE function: row 0
tells the layout (sines are 0 there, cosines 1), the angles of each (sin, cos) pair the
frequencies, and an optional ``T_Δ`` is checked on the table itself, which catches the source
article's erratum. :data:`PE_TABLE_SOURCES` names the layouts in use, each with its source.

Pure numpy: nothing here draws.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ._validate import check_int
from .conventions import (
    GH,
    MLX,
    TURNS,
    Issues,
    ProbeError,
    Verdict,
    base_issues,
    call_probe,
    candidate_models,
    check_probe_args,
    issue,
    model_turns,
    refine_turns,
    same_ratio,
    show_number,
    show_value,
)

__all__ = ["identify_pe_table"]


class TableSource(NamedTuple):
    """A sinusoidal-table layout in use, and the source that shows it."""

    name: str
    layout: str  # "interleaved": columns (2k, 2k+1); "split": columns (k, k + d/2)
    order: str  # "sin, cos" or "cos, sin"
    source: str


_MLX_PE = (
    MLX + "python/mlx/nn/layers/positional_encoding.py, SinusoidalPositionalEncoding: "
    "'cos_first: If True embed using [cos(x); sin(x)] instead of the reverse'"
)
PE_TABLE_SOURCES: tuple[TableSource, ...] = (
    TableSource(
        "Vaswani et al. 2017, the source article (pe_helpers.sinusoidal_pe)",
        "interleaved",
        "sin, cos",
        "arXiv:1706.03762, section 3.5: PE(pos, 2i) = sin, PE(pos, 2i+1) = cos",
    ),
    TableSource(
        "tensor2tensor add_timing_signal_1d",
        "split",
        "sin, cos",
        GH + "tensorflow/tensor2tensor/blob/017f83a91da0a4f481834fa0eac44d446774acfe/"
        "tensor2tensor/layers/common_attention.py: "
        "signal = tf.concat([tf.sin(scaled_time), tf.cos(scaled_time)], axis=1)",
    ),
    TableSource("MLX nn.SinusoidalPositionalEncoding, the default", "split", "sin, cos", _MLX_PE),
    TableSource(
        "MLX nn.SinusoidalPositionalEncoding(cos_first=True)", "split", "cos, sin", _MLX_PE
    ),
)


@dataclass(frozen=True)
class PeTableConvention(Verdict):
    """What :func:`identify_pe_table` read off a sinusoidal table; ``print`` it for a verdict.

    Attributes
    ----------
    d_model : int
        Width of the table: ``g`` was asked for this many columns.
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

    layout: Literal["interleaved", "split"] | None = None
    order: Literal["sin, cos", "cos, sin"] | None = None
    base: float | None = None
    spacing: Literal["2k/d", "k/(d/2-1)"] | None = None
    scale: float | None = None
    shift_direction: Literal["clockwise", "counter-clockwise"] | None = None

    @property
    def same_layout_as(self) -> tuple[TableSource, ...]:
        """The known tables with this layout and order."""
        key = (self.layout, self.order)
        return tuple(s for s in PE_TABLE_SOURCES if (s.layout, s.order) == key)

    def _header(self) -> list[str]:
        """The report's first lines: what was read."""
        lines = [f"sinusoidal table, d_model = {self.d_model}"]
        if self.layout is not None:
            lines.append(
                f"  layout:     {self.layout}, ({self.order}) pairs, "
                f"amplitude {show_number(self.scale)}"
            )
            known = "; ".join(s.name for s in self.same_layout_as) or "no table we know of"
            lines.append(f"  same as:    {known}")
            lines.append(f"  T_Δ turns:  {self.shift_direction}  (PE(t + Δ) = T_Δ PE(t))")
        if self.spacing is not None:
            lines.append(f"  base:       {show_number(self.base)}, exponent {self.spacing}")
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
        Rows asked for (positions 0 .. n_positions - 1); 3 to 65536.
    expected_base : float or None, default 10000.0
        Base the table should use, in ``(1, MAX_BASE]``; None to only measure it.
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
    >>> from pe_helpers.encodings import shift_operator, sinusoidal_pe
    >>> report = identify_pe_table(lambda n, d: sinusoidal_pe(n, d), d_model=8)
    >>> report.layout, report.order, round(report.base), report.shift_direction
    ('interleaved', 'sin, cos', 10000, 'clockwise')
    >>> split = lambda n, d: np.hstack([sinusoidal_pe(n, d)[:, 0::2], sinusoidal_pe(n, d)[:, 1::2]])
    >>> identify_pe_table(split, 8).layout
    'split'
    >>> backwards = lambda delta, d: shift_operator(delta, d).T  # the source article's T_Δ
    >>> identify_pe_table(lambda n, d: sinusoidal_pe(n, d), 8, shift=backwards).issues
    ('shift_direction',)
    """
    d, expected, atol = check_probe_args(g, d_model, expected_base, atol, name="g")
    n = check_int("n_positions", n_positions, minimum=3, maximum=65536)
    if shift is not None and not callable(shift):
        raise TypeError(f"shift must be callable or None, got {show_value(shift)}")
    found: dict = {}
    try:
        issues = _read_table(g, d, n, expected, shift, atol, found)
    except ProbeError as exc:
        issues = [issue("error", exc)]
    return PeTableConvention.from_issues(d, issues, found)


def _read_table(
    g: Callable,
    d: int,
    n: int,
    expected: float | None,
    shift: Callable | None,
    atol: float,
    found: dict,
) -> Issues:
    """The issues of table ``g(n, d)`` (and of ``shift``); what it reads goes into ``found``."""
    table = call_probe(g, (n, d), (n, d), f"g({n}, {d})")
    scale = np.abs(table[0]).max()
    is_cos, is_sin = np.abs(table[0] - scale) <= atol * scale, np.abs(table[0]) <= atol * scale
    if scale <= atol or not np.all(is_cos | is_sin) or is_cos.sum() != d // 2:
        return [issue("row0", np.round(table[0], 3).tolist())]
    table = table / scale
    sin_cols, cos_cols = np.flatnonzero(is_sin), np.flatnonzero(is_cos)
    half = np.arange(d // 2)
    layouts = {
        ("interleaved", "sin, cos"): 2 * half,
        ("interleaved", "cos, sin"): 2 * half + 1,
        ("split", "sin, cos"): half,
        ("split", "cos, sin"): half + d // 2,
    }
    key = next((k for k, cols in layouts.items() if np.array_equal(cols, sin_cols)), None)
    if key is None:
        return [issue("unknown_layout", sin_cols.tolist())]
    pair0 = sorted([sin_cols[0], cos_cols[0]])  # T_Δ turns v(0) into v(1): the sign of v0 x v1
    (x0, y0), (x1, y1) = table[0, pair0], table[1, pair0]
    turn = TURNS[-1.0 if x0 * y1 - y0 * x1 < 0 else 1.0]
    found.update(layout=key[0], order=key[1], scale=float(scale), shift_direction=turn)
    issues = [] if shift is None else _check_shift(shift, table, turn, atol)
    ladder = 2 ** np.arange(int(np.log2(n - 1)) + 1)
    omega = refine_turns(np.arctan2(table[ladder][:, sin_cols], table[ladder][:, cos_cols]), ladder)
    t = np.arange(n)
    for model in candidate_models(omega, d, expected):
        angles = np.multiply.outer(t, model_turns(d, model))
        sin_err, cos_err = np.sin(angles) - table[:, sin_cols], np.cos(angles) - table[:, cos_cols]
        if max(np.abs(sin_err).max(), np.abs(cos_err).max()) <= atol:
            break
    else:
        if expected is not None:  # the tutorial slip: column j at its own frequency
            angles = np.multiply.outer(t, expected ** (-2 * np.arange(d) / d))
            if np.abs(np.where(is_sin, np.sin(angles), np.cos(angles)) - table).max() <= atol:
                detail = "each column j runs at its own frequency base ** (-2j / d)"
                return [*issues, issue("column_index", detail)]
        return [*issues, issue("not_geometric")]
    found.update(base=model[0], spacing="2k/d")
    stretched = model[0] ** ((d - 2) / d)  # the same frequencies read as base ** (-k / (d/2 - 1))
    plain = model[2] == "multiplied" and abs(model[1] - 1) <= 1e-3
    if expected is not None and plain and same_ratio(stretched, expected):
        found.update(base=stretched, spacing="k/(d/2-1)")
        return issues
    return issues + base_issues(model, expected)


def _check_shift(shift: Callable, table: np.ndarray, needed: str, atol: float) -> Issues:
    """Does ``T_Δ = shift(Δ, d)`` map row t of the table to row t + Δ, turning as ``needed``?"""
    d = table.shape[1]
    rows = min(len(table), 64)
    for delta in (1, min(3, rows - 1)):
        matrix = call_probe(shift, (delta, d), (d, d), f"shift({delta}, {d})")
        before, after = table[: rows - delta], table[delta:rows]
        if np.abs(before @ matrix.T - after).max() <= atol:
            continue
        if np.abs(before @ matrix - after).max() <= atol:  # the transpose works: wrong way round
            wrong_way = "counter-clockwise" if needed == "clockwise" else "clockwise"
            return [issue("shift_direction", wrong_way)]
        return [issue("shift_wrong", delta)]
    return []
