"""Train lesson 08's one-layer attention model in seconds: Adam, a training loop, the result.

Pure numpy, float64: nothing here draws. The model, its position methods and its hand-written
backward pass are in :mod:`~pe_helpers.model`; the tasks in :mod:`~pe_helpers.tasks`; ALiBi and
T5 biases in :mod:`~pe_helpers.biases`.

Examples
--------
>>> model = train("copy_back", "rope_adjacent", task_arg=1, length=8, vocab_size=6, steps=3)
>>> model.attention(np.arange(8) % 6).shape
(2, 8, 8)
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from ._validate import check_bool, check_int, check_memory, check_real, show_value
from .model import (
    MAX_TRAINING_WORK,
    ModelConfig,
    Tables,
    check_length,
    check_params,
    check_size,
    check_tokens,
    check_work,
    forward_pass,
    init_params,
    loss_and_grads,
)
from .tasks import BATCH_BYTES, TEST_SEED, Batch, Task, check_fits, make_task

__all__ = ["TrainedModel", "train"]

#: Most Adam steps, sequences per step and tokens per sequence of :func:`train`; their
#: product with the model's width is capped by :data:`~pe_helpers.model.MAX_TRAINING_WORK`.
MAX_STEPS = 10_000
MAX_BATCH_SIZE = 1024
MAX_LENGTH = 1024
#: Most test sequences of :meth:`TrainedModel.accuracy`.
MAX_SAMPLES = 4096
#: Largest Adam step size: each step moves every parameter by about ``lr``.
MAX_LR = 10.0


#: Attention scores one forward pass of :meth:`TrainedModel.logits` holds at the most.
_SCORES_PER_BLOCK = 2**18


@dataclass
class TrainedModel:
    """A trained model: its configuration, parameters and how training went.

    :func:`train` builds it, and :func:`~pe_helpers.shipped_models.shipped_models` loads one;
    nothing here checks the fields again.

    Attributes
    ----------
    config : ModelConfig
    params : dict of numpy.ndarray
        One float64 array per entry of ``config.param_shapes()``, of that shape.
    task : Task
        The task it was trained on.
    length : int
        Training sequence length ``L``.
    losses : numpy.ndarray
        Training loss at every step.
    seconds : float
        Wall-clock training time.
    """

    config: ModelConfig
    params: dict[str, np.ndarray]
    task: Task
    length: int
    losses: np.ndarray
    seconds: float = 0.0
    _tables: dict = field(default_factory=dict, repr=False, compare=False, init=False)

    def _tables_for(self, n: int) -> Tables:
        if n not in self._tables:
            self._tables[n] = Tables(self.config, n)
        return self._tables[n]

    def logits_and_cache(self, tokens: ArrayLike) -> tuple[np.ndarray, dict]:
        """Logits ``(batch, n, vocab_size)`` of ``tokens`` and the forward pass's cache."""
        tokens = check_tokens(tokens, self.config)
        return forward_pass(self.params, self.config, tokens, self._tables_for(tokens.shape[1]))

    def logits(self, tokens: ArrayLike) -> np.ndarray:
        """Logits, shape ``(batch, n, vocab_size)``, for ``tokens`` of shape ``(n,)`` or
        ``(batch, n)``."""
        tokens = check_tokens(tokens, self.config, block=_SCORES_PER_BLOCK)
        tables = self._tables_for(tokens.shape[1])
        # Blocks of sequences whose attention scores fit in the CPU's cache: the same numbers,
        # about twice as fast for a long test (256 sequences of 64 tokens, 8 heads).
        block = max(1, _SCORES_PER_BLOCK // (self.config.n_heads * tokens.shape[1] ** 2))
        return np.concatenate(
            [
                forward_pass(self.params, self.config, tokens[i : i + block], tables)[0]
                for i in range(0, len(tokens), block)
            ]
        )

    def predict(self, tokens: ArrayLike) -> np.ndarray:
        """The most likely token at every position, shape ``(batch, n)``."""
        return self.logits(tokens).argmax(axis=-1)

    def attention(self, tokens: ArrayLike, *, layer: int | None = None) -> np.ndarray:
        """Attention weights per head: ``(n_heads, n, n)`` for one sequence, else
        ``(batch, n_heads, n, n)``; row ``i`` is query ``i``.

        ``layer`` picks the attention layer, 1 to ``config.n_layers`` (default: the last)."""
        last = self.config.n_layers
        layer = last if layer is None else check_int("layer", layer, minimum=1, maximum=last)
        cache = self.logits_and_cache(tokens)[1]
        weights = cache["weights"] if layer == last else cache["inner"][layer - 1]["weights"]
        return weights[0] if np.ndim(tokens) == 1 else weights

    def accuracy(
        self,
        task: str | Task | None = None,
        length: int | None = None,
        *,
        n_samples: int = 256,
        seed: int = TEST_SEED,
        per_position: bool = False,
    ) -> float | np.ndarray:
        """Share of scored positions where the most likely token is the target.

        Parameters
        ----------
        task : str or Task, optional
            Default: the training task.
        length : int, optional
            Test length, at most :data:`MAX_LENGTH`; default the training length. "learned"
            refuses lengths past max_len.
        n_samples : int, default 256
            Number of test sequences, 1 to :data:`MAX_SAMPLES`; ``n_samples × length`` times
            the model's width is capped (:func:`~pe_helpers.model.check_work`).
        seed : int, default 12345
            Seed of the test sequences. ``train(seed=s)`` drew its sequences from seed
            ``s + 1``: testing with that seed would replay training data.
        per_position : bool, default False
            Return one accuracy per position (NaN where nothing is scored).

        Returns
        -------
        float or numpy.ndarray
        """
        task = self.task if task is None else make_task(task)
        if length is not None:
            length = check_int("length", length, minimum=1, maximum=MAX_LENGTH)
        length = check_length(length or self.length, self.config)
        n_samples = check_int("n_samples", n_samples, minimum=1, maximum=MAX_SAMPLES)
        seed = check_int("seed", seed, minimum=0)
        per_position = check_bool("per_position", per_position)
        check_fits(task, length, self.config.vocab_size)
        check_work(self.config, n_samples, length, f"n_samples = {n_samples} at length = {length}")
        batch = task.batch(n_samples, length, self.config.vocab_size, seed)
        hits = (self.logits(batch.tokens).argmax(axis=-1) == batch.targets) & batch.scored
        if per_position:
            counts = batch.scored.sum(axis=0)
            return np.where(counts > 0, hits.sum(axis=0) / np.maximum(counts, 1), np.nan)
        return float(hits.sum() / batch.scored.sum())

    def replace(self, **changes) -> TrainedModel:
        """The same parameters under a changed config, e.g. ``inv_freq`` or
        ``attention_factor`` for a RoPE model (lesson 10) or ``causal``.

        Examples
        --------
        >>> model = train("copy_back", "rope_adjacent", length=6, vocab_size=4, steps=2)
        >>> model.replace(attention_factor=1.2).config.attention_factor
        1.2
        """
        config = dataclasses.replace(self.config, **changes)  # an unknown field: TypeError
        params = check_params(self.params, config)  # checked copies
        return TrainedModel(config, params, self.task, self.length, self.losses, self.seconds)


def _diverged(lr: float, step: int, steps: int, loss: object) -> None:
    raise ValueError(
        f"training diverged at step {step + 1} of {steps} (the loss is {loss}): lr = {lr!r} "
        "is too large for this model; try lr = 0.03, the default, or less"
    )


def check_lengths(lengths: object, maximum: int | None) -> list[int]:
    """A non-empty list of test lengths, each 2 to ``maximum`` (a lesson's door)."""
    if isinstance(lengths, (str, bytes)) or not isinstance(lengths, Sequence) or not lengths:
        raise TypeError(f"lengths must be a non-empty list of integers, got {lengths!r:.80}")
    return [check_int("lengths entry", n, minimum=2, maximum=maximum) for n in lengths]


def length_key(length: int, train_length: int) -> str:
    """A test length as a multiple of the training length, as metric names write it ('L',
    '2L'); '' if it is no multiple."""
    times, rest = divmod(length, train_length)
    return "" if rest else "L" if times == 1 else f"{times}L"


def checked_samples(model: object, n_samples: object, maximum: int = 2048) -> int:
    """``n_samples`` for a :class:`TrainedModel` ``model``, both checked (a lesson's door)."""
    if not isinstance(model, TrainedModel):
        raise TypeError(f"model must be a TrainedModel, got {show_value(model)}")
    return check_int("n_samples", n_samples, minimum=1, maximum=maximum)


def train(
    task: str | Task = "copy_back",
    method: str = "sinusoidal",
    *,
    task_arg: int | None = None,
    length: int = 16,
    vocab_size: int = 16,
    steps: int = 200,
    batch_size: int = 16,
    lr: float = 0.03,
    seed: int = 0,
    params: dict[str, np.ndarray] | None = None,
    **model_options,
) -> TrainedModel:
    """Train the attention model (one layer unless ``n_layers``) on a task with Adam; seeded.

    The same arguments give bit-identical parameters (on the same machine and numpy build).

    Parameters
    ----------
    task : {"copy_back", "token_at"} or Task, default "copy_back"
        What to learn; see :mod:`pe_helpers.tasks`.
    method : str, default "sinusoidal"
        Position method, one of :data:`pe_helpers.model.METHODS`.
    task_arg : int, optional
        ``k`` for copy_back (default 1) or ``p`` for token_at (default 0).
    length : int, default 16
        Training sequence length ``L``; also ``max_len`` of a learned table unless given.
    vocab_size : int, default 16
        Token ids ``0 .. vocab_size - 1``.
    steps : int, default 200
        Adam steps, one fresh batch each.
    batch_size : int, default 16
        Sequences per step. ``steps``, ``batch_size`` and ``length`` are at most
        :data:`MAX_STEPS`, :data:`MAX_BATCH_SIZE` and :data:`MAX_LENGTH`; their product times
        the model's width at most :data:`~pe_helpers.model.MAX_TRAINING_WORK` (see
        :func:`~pe_helpers.model.check_work`), and the run within 1 GiB of memory.
    lr : float, default 0.03
        Adam (Kingma and Ba 2015) step size, in ``(0, 10]``. A run whose loss stops being
        finite is stopped, with a ``ValueError`` naming ``lr``.
    seed : int, default 0
        Seeds the initial parameters (``seed``) and the training data (``seed + 1``).
    params : dict of numpy.ndarray, optional
        Start from these parameters (copied) instead of random ones: fine-tuning.
    **model_options
        Any other :class:`~pe_helpers.model.ModelConfig` field (``d_model``, ``n_heads``,
        ``causal``, ``residual``, ``max_len``, ``base``, ``inv_freq``, ``attention_factor``,
        ``slopes``, ``n_layers`` for a deeper model, ...).

    Returns
    -------
    TrainedModel

    Examples
    --------
    >>> model = train("copy_back", "learned", length=6, vocab_size=4, steps=5)
    >>> model.losses.shape, model.config.max_len
    ((5,), 6)
    """
    task = make_task(task, task_arg, arg_name="task_arg")
    length = check_int("length", length, minimum=2, maximum=MAX_LENGTH)
    steps = check_int("steps", steps, minimum=1, maximum=MAX_STEPS)
    batch_size = check_int("batch_size", batch_size, minimum=1, maximum=MAX_BATCH_SIZE)
    seed = check_int("seed", seed, minimum=0)
    lr = check_real("lr", lr, positive=True)
    if lr > MAX_LR:
        raise ValueError(f"lr must be at most {MAX_LR:g}, got {lr!r}")
    if isinstance(method, str) and method == "learned":
        model_options.setdefault("max_len", length)
    config = ModelConfig(method, vocab_size, **model_options)  # checks method and the options
    check_length(length, config)
    check_fits(task, length, config.vocab_size, "task_arg")
    sizes = f"train with steps = {steps}, batch_size = {batch_size} and length = {length}"
    check_work(config, steps * batch_size, length, sizes, MAX_TRAINING_WORK)
    check_size(config, batch_size, length, "a training batch")
    check_memory(sizes, BATCH_BYTES * steps * batch_size * length)  # the training data
    params = init_params(config, seed) if params is None else check_params(params, config)
    params = {name: np.array(value, dtype=np.float64) for name, value in params.items()}
    beta1, beta2, eps = 0.9, 0.999, 1e-8  # Adam's decays of its two moments, and its epsilon
    m = {name: np.zeros_like(value) for name, value in params.items()}
    v = {name: np.zeros_like(value) for name, value in params.items()}
    data = task.batch(steps * batch_size, length, config.vocab_size, seed + 1)
    empty = np.flatnonzero(~data.scored.reshape(steps, -1).any(axis=1))
    if empty.size:  # its loss would be 0 / 0, read as a diverging run
        raise ValueError(
            f"the batch of step {empty[0]} has no scored position (task {task.name!r} with "
            f"task_arg = {task.arg}, length = {length}, batch_size = {batch_size}): use a "
            "longer length, a smaller task_arg or a larger batch_size"
        )
    tables = Tables(config, length)
    losses = np.empty(steps)
    start = time.perf_counter()
    for step in range(steps):
        rows = slice(step * batch_size, (step + 1) * batch_size)
        with np.errstate(over="ignore", invalid="ignore"):  # a diverging run is refused below
            batch = Batch(data.tokens[rows], data.targets[rows], data.scored[rows])
            losses[step], grads = loss_and_grads(params, config, batch, tables)
            if not math.isfinite(losses[step]):
                _diverged(lr, step, steps, losses[step])
            correct1, correct2 = 1.0 - beta1 ** (step + 1), 1.0 - beta2 ** (step + 1)
            for name, grad in grads.items():
                m[name] *= beta1
                m[name] += (1.0 - beta1) * grad
                v[name] *= beta2
                v[name] += (1.0 - beta2) * grad * grad
                params[name] -= lr * (m[name] / correct1) / (np.sqrt(v[name] / correct2) + eps)
    if not all(np.isfinite(value).all() for value in params.values()):
        _diverged(lr, steps - 1, steps, "finite, but the last step left parameters that are not")
    seconds = time.perf_counter() - start
    return TrainedModel(config, params, task, length, losses, seconds)
