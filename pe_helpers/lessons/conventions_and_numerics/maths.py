"""Lesson 11 · Conventions and numerics: the pairing fix, the trained models over seeds, and the
slips, one function each."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

from ..._validate import check_base, check_d_model, check_int, check_real
from ...encodings import block_rotation, frequencies, sinusoidal_pe
from ...rope import apply_rope, halves_permutation
from ...training import TrainedModel, train

__all__ = [
    "SEED_EXPERIMENTS",
    "erratum_shift_operator",
    "pairing_metrics",
    "pe_table_variants",
    "rope_mutants",
    "swap_pairing",
]

_ROPE_METHODS = {"rope_adjacent": "rope_halves", "rope_halves": "rope_adjacent"}
#: The query positions the lesson averages: the first few after 0, and position 8 on.
EARLY_POSITIONS, LATE_POSITIONS = slice(1, 4), slice(8, None)


# --- pairing: the fix for weights trained in the other layout -----------------------------------


def swap_pairing(model: TrainedModel) -> TrainedModel:
    """The same trained model run in the other RoPE layout, with W_Q and W_K permuted to match.

    ``apply_rope(x[..., p], pairing="halves") == apply_rope(x)[..., p]`` with
    ``p = halves_permutation(d_head)``, and a dot product is unchanged when both vectors are
    permuted alike: permuting the head features of W_Q and W_K (their columns, as
    ``q = x W_Q``) leaves every output the same. ``model`` rotates every dimension of its heads.

    Examples
    --------
    >>> from pe_helpers.training import train
    >>> model = train("copy_back", "rope_adjacent", length=6, vocab_size=4, steps=2)
    >>> swapped = swap_pairing(model)
    >>> swapped.config.method, bool(np.allclose(swapped.logits([0, 1, 2]), model.logits([0, 1, 2])))
    ('rope_halves', True)
    """
    if not isinstance(model, TrainedModel):
        raise TypeError(f"model must be a TrainedModel from train(...), got {type(model).__name__}")
    config = model.config
    if config.method not in _ROPE_METHODS:
        raise ValueError(f"model must use rope_adjacent or rope_halves, got {config.method!r}")
    if config.inv_freq is not None and 2 * len(config.inv_freq) != config.d_head:
        raise ValueError("model must rotate every dimension of its heads (no partial rotary)")
    order = halves_permutation(config.d_head)
    if config.method == "rope_halves":
        order = np.argsort(order)
    swapped = model.replace(method=_ROPE_METHODS[config.method])
    for name in ("w_q", "w_k"):
        swapped.params[name] = swapped.params[name][..., order]
    return swapped


# --- the trained models, measured the same way for the notebook and for every seed --------------


def pairing_metrics(adjacent: TrainedModel, halves: TrainedModel) -> dict[str, float]:
    """What lesson 11 states about its two trained models, as named shares in [0, 1].

    Parameters
    ----------
    adjacent : TrainedModel
        A model trained with ``"rope_adjacent"``; it is also run with half-split pairs
        (``adjacent.replace(method="rope_halves")``, the weights unchanged).
    halves : TrainedModel
        A model trained with ``"rope_halves"`` on the same task.

    Returns
    -------
    dict of str to float
        ``"adjacent"``, ``"halves"``: each model's accuracy in the layout it was trained with;
        ``"right.pNN"`` and ``"wrong.pNN"``: the adjacent weights' accuracy at query position
        ``NN`` (two digits) run with adjacent (right) and half-split (wrong) pairs;
        ``"wrong.early"``, ``"wrong.late"``, ``"right.late"``: their means over positions 1-3
        and from 8 on; ``"right.late_min"``: the trained layout's worst position from 8 on.
        Positions where nothing is scored are left out, and so is a summary of none.

    Examples
    --------
    >>> adjacent = train("token_at", "rope_adjacent", length=10, steps=3)
    >>> measured = pairing_metrics(adjacent, train("token_at", "rope_halves", length=10, steps=3))
    >>> sorted(measured)[:4], measured["wrong.p00"] == measured["right.p00"]
    (['adjacent', 'halves', 'right.late', 'right.late_min'], True)
    """
    for name, model, method in (
        ("adjacent", adjacent, "rope_adjacent"),
        ("halves", halves, "rope_halves"),
    ):
        if not isinstance(model, TrainedModel):
            raise TypeError(
                f"{name} must be a TrainedModel from train(...), got {type(model).__name__}"
            )
        if model.config.method != method:
            raise ValueError(f"{name} must be trained with {method!r}, got {model.config.method!r}")
    right = adjacent.accuracy(per_position=True)
    wrong = adjacent.replace(method="rope_halves").accuracy(per_position=True)
    measured = {"adjacent": adjacent.accuracy(), "halves": halves.accuracy()}
    for kind, per_position in (("right", right), ("wrong", wrong)):
        for position in np.flatnonzero(np.isfinite(per_position)):
            measured[f"{kind}.p{position:02d}"] = float(per_position[position])
    summaries = (
        ("wrong.early", wrong[EARLY_POSITIONS], np.nanmean),
        ("wrong.late", wrong[LATE_POSITIONS], np.nanmean),
        ("right.late", right[LATE_POSITIONS], np.nanmean),
        ("right.late_min", right[LATE_POSITIONS], np.nanmin),
    )
    for name, chosen, summary in summaries:
        if np.isfinite(chosen).any():  # a short model may score none of these positions
            measured[name] = float(summary(chosen))
    return measured


def pairing_experiment(seed: int) -> dict[str, float]:
    """:func:`pairing_metrics` of the notebook's two models (``token_at``) for one seed."""
    adjacent = train("token_at", "rope_adjacent", seed=seed)
    halves = train("token_at", "rope_halves", seed=seed)
    return pairing_metrics(adjacent, halves)


#: What ``scripts/experiments.py`` trains for every seed; the notebook reads the results.
SEED_EXPERIMENTS = {"pairing": pairing_experiment}


# --- the slips, one function each ----------------------------------------------------------------


def erratum_shift_operator(delta: float, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The source article's ``T_Δ``, blocks ``[[cos, -sin], [sin, cos]]``: the transpose of
    :func:`~pe_helpers.encodings.shift_operator` (same arguments, ``d_model`` up to 4096), which
    moves a (cos, sin) table forward, not the (sin, cos) table the article pairs it with.

    Examples
    --------
    >>> pe = sinusoidal_pe([0, 1], 4)
    >>> bool(np.allclose(erratum_shift_operator(1, 4) @ pe[0], pe[1]))
    False
    """
    d_model = check_d_model(check_int("d_model", d_model, minimum=2, maximum=4096))
    return block_rotation(check_real("delta", delta) * frequencies(d_model, base))


def pe_table_variants(base: float = 10000.0) -> dict[str, Callable[[int, int], np.ndarray]]:
    """Sinusoidal-table functions ``g(n_positions, d_model)``: the layouts in use, two slips.

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
        Keyed by the issue :func:`~pe_helpers.conventions.identify_rope` reports:
        ``"clockwise"``, ``"column_index"`` (pair k at ``base ** (-2(2k) / d)``), ``"divided"``
        (``t / theta``), ``"wrong_axis"`` (RoPE of ``x.T``; an even number of rows),
        ``"ignores_positions"``, ``"sin_cos_swapped"``, ``"mixed_layout"`` (``rotate_half``
        with cos and sin laid out for adjacent pairs); also ``"column_index_per_feature"``
        (reported as ``"column_index"``) and ``"half_split"`` (right, in the other layout:
        ``"pairing"``).

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

    def mixed_layout(x, positions):
        x = np.asarray(x, dtype=np.float64)
        d = x.shape[1]
        a = np.repeat(np.outer(positions, theta(d)), 2, axis=1)  # slip: laid out for adjacent
        turned = np.hstack([-x[:, d // 2 :], x[:, : d // 2]])  # but rotate_half pairs halves
        return x * np.cos(a) + turned * np.sin(a)

    return {
        "clockwise": lambda x, t: _turn(x, -np.outer(t, theta(np.shape(x)[1]))),  # -sin
        "column_index": column_index,
        "column_index_per_feature": column_index_per_feature,
        "divided": lambda x, t: _turn(x, np.outer(t, 1 / theta(np.shape(x)[1]))),  # t / θ
        "wrong_axis": lambda x, t: apply_rope(np.asarray(x).T, base=base).T,  # pairs rows
        "ignores_positions": lambda x, t: apply_rope(x, base=base),  # positions 0 .. n-1
        "sin_cos_swapped": lambda x, t: _turn(x, np.outer(t, theta(np.shape(x)[1])), swap=True),
        "mixed_layout": mixed_layout,
        "half_split": lambda x, t: apply_rope(x, t, base, pairing="halves"),  # right, other layout
    }
