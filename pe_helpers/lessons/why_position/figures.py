"""Lesson 01 figures: the recurrence weights (live), token outputs, serial steps."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine
from numpy.typing import ArrayLike

from ..._validate import check_array
from ...figures import WIDE_FIGSIZE, course_style, heatmap, legend_below, plot_curves
from ...live import LiveFigure, float_control, int_control
from .maths import recurrence_weights

__all__ = ["RecurrenceWeights", "plot_serial_steps", "plot_token_outputs"]


class RecurrenceWeights(LiveFigure):
    """The weight ``a^(n-t)`` of every input ``x_t`` in the last state ``h_n``.

    Sliders: the recurrence factor ``a`` (0 to 1) and the length ``n`` (2 to 60). The
    caption gives the first input's weight ``a^(n-1)``. A step of ``a`` keeps the axes
    and redraws only the curve, caption and title.

    Examples
    --------
    >>> figure = RecurrenceWeights().draw(decay=0.5, n_steps=3)
    >>> figure.axes[0].texts[0].get_text()
    'weight of x_1 in h_3: a^(n-1) = 0.5^2 = 0.25'
    """

    # The website's pictures (scripts/build_site.py): a^(n-t) fades fast below 0.7, slowly near 1.
    site_grid = {
        "decay": (0.0, 0.25, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0),
        "n_steps": (2, 5, 10, 20, 40, 60),
    }
    controls = {
        "decay": float_control("recurrence factor a", 0.9, 0.0, 1.0, 0.01),
        "n_steps": int_control("sequence length n", 20, 2, 60),
    }

    def build(self, axes: Axes) -> SimpleNamespace:
        (line,) = axes.plot([], [], marker="o", color="C0")
        caption = axes.text(0.02, 0.95, "", transform=axes.transAxes, va="top")
        axes.set_xlabel("input position t (1 = first token, n = last)")
        axes.set_ylabel("weight of x_t in h_n")
        axes.set_ylim(-0.03, 1.25)
        axes.xaxis.set_major_locator(mpl.ticker.MaxNLocator(integer=True))
        # Room at the sides for the widest tick label a longer n brings (laid out once).
        engine = axes.figure.get_layout_engine()
        if isinstance(engine, ConstrainedLayoutEngine):  # drawn on a learner's figure: theirs
            engine.set(w_pad=0.2)
        return SimpleNamespace(axes=axes, line=line, caption=caption)

    def update(self, art: SimpleNamespace, decay: float, n_steps: int) -> None:
        art.line.set_data(np.arange(1, n_steps + 1), recurrence_weights(decay, n_steps))
        first = decay ** (n_steps - 1)  # the weight of x_1 in h_n
        art.caption.set_text(
            f"weight of x_1 in h_{n_steps}: a^(n-1) = {decay:g}^{n_steps - 1} = {first:.3g}"
        )
        art.axes.title.set_text(
            f"h_t = a·h_(t-1) + x_t with a = {decay:.2f}\nwhat is left of each input in h_{n_steps}"
        )
        art.axes.set_xlim(0.5, n_steps + 0.5)

    def moving(self, art: SimpleNamespace) -> list:
        return [art.line, art.caption, art.axes.title]

    def rescaled(self, art: SimpleNamespace) -> list:
        return [art.axes.xaxis]  # n moves it, and nothing static lies along it


@course_style
def plot_token_outputs(sentences: Sequence[Sequence[str]], outputs: Sequence[ArrayLike]) -> Figure:
    """Side-by-side heatmaps of per-token outputs (one row per token), on one colour scale.

    Parameters
    ----------
    sentences : sequence of sequences of str
        The words of each sentence (one to four sentences); they label the rows and
        make the panel titles.
    outputs : sequence of array_like
        One matrix per sentence, shape ``(len(words), d)``.

    Returns
    -------
    matplotlib.figure.Figure
        A new wide figure; panel ``j`` shows ``outputs[j]``.

    Examples
    --------
    >>> figure = plot_token_outputs([["a", "b"]], [np.eye(2)])
    >>> figure.axes[0].get_title()
    '"a b"'
    """
    if isinstance(sentences, str) or not isinstance(sentences, Sequence):
        raise TypeError(f"sentences must be a list of word lists, got {sentences!r:.60}")
    if isinstance(outputs, str) or not hasattr(outputs, "__len__"):
        raise TypeError(f"outputs must be a list of matrices, got {outputs!r:.60}")
    if not 1 <= len(sentences) <= 4 or len(outputs) != len(sentences):
        raise ValueError(
            "sentences must hold one to four sentences, and outputs one matrix per sentence; "
            f"got {len(sentences)} sentences and {len(outputs)} matrices"
        )
    matrices = []
    for j, (words, matrix) in enumerate(zip(sentences, outputs, strict=True)):
        if isinstance(words, str) or not all(isinstance(w, str) for w in words):
            raise TypeError(f"sentences[{j}] must be a list of words (str), got {words!r}")
        arr = check_array(f"outputs[{j}]", matrix, ndim=2).astype(np.float64)
        if arr.shape[0] != len(words) or arr.shape[1] > 64:
            raise ValueError(
                f"outputs[{j}] must have one row per word ({len(words)}) and at most 64 "
                f"columns, got shape {arr.shape}"
            )
        matrices.append(arr)
    figure = plt.figure(figsize=(WIDE_FIGSIZE[0], 3.2), layout="constrained")
    axes = figure.subplots(1, len(matrices), squeeze=False)[0]
    limit = max(float(np.abs(m).max()) for m in matrices) or 1.0
    for j, (ax, words, arr) in enumerate(zip(axes, sentences, matrices, strict=True)):
        heatmap(
            arr,
            ax,
            xlabel="output dimension",
            ylabel="token" if j == 0 else "",
            title=f'"{" ".join(words)}"',
            limit=limit,
            colorbar=False,
        )
        ax.set_yticks(np.arange(arr.shape[0]), labels=list(words))
        ax.set_xticks(np.arange(arr.shape[1]))
    return figure


@course_style
def plot_serial_steps(
    lengths: ArrayLike,
    recurrent_chain: ArrayLike,
    attention_chain: ArrayLike,
    ax: Axes | None = None,
) -> Axes:
    """Measured chain of sequential matrix products against the sequence length.

    Parameters
    ----------
    lengths : array_like
        Sequence lengths ``n`` (x axis), at least one.
    recurrent_chain, attention_chain : array_like
        :attr:`LayerRun.chain` of each layer at each length (same length as ``lengths``).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        ``ax.lines[0]`` is the recurrent layer, ``ax.lines[1]`` attention.

    Examples
    --------
    >>> ax = plot_serial_steps([1, 2], [1, 2], [3, 3])
    >>> ax.lines[0].get_ydata().tolist()
    [1.0, 2.0]
    """
    n = check_array("lengths", lengths, ndim=1)
    chains = []
    for name, values in (
        ("recurrent_chain", recurrent_chain),
        ("attention_chain", attention_chain),
    ):
        chains.append(check_array(name, values, ndim=1))
        if chains[-1].shape != n.shape:
            raise ValueError(f"{name} must have one value per entry of lengths ({n.size})")
    labels = (
        "recurrent layer: one product per token, in a chain",
        "self-attention: the same short chain at every length",
    )
    ax = plot_curves(
        n,
        dict(zip(labels, chains, strict=True)),
        ax,
        xlabel="sequence length n (tokens)",
        ylabel="matrix products in a chain",
        title="Serial compute, measured\nproducts that must wait for the previous one",
        markers=True,
    )
    ax.set_ylim(0, max(float(np.max(chains)), 1.0) * 1.08)
    legend_below(ax, ncols=1)  # two long labels: one per row, under the x label
    return ax
