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

import math
import time
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from ._validate import (
    TRAINING_BUDGET,
    check_array,
    check_bool,
    check_choice,
    check_int,
    check_memory,
    check_real,
    check_seconds,
)
from ._validate import show_value as _show
from .model import (
    FLOPS_PER_SECOND,
    METHODS,
    ModelConfig,
    _check_config,
    _check_length,
    _check_params,
    _check_size,
    _check_tokens,
    _forward,
    _forward_flops,
    _loss_and_grads,
    _Tables,
    init_params,
)
from .tasks import Batch, Task, _make_task, _task_batch, make_task, task_batch

__all__ = ["Adam", "TrainedModel", "train", "training_seconds"]


#: Largest Adam step size: each step moves every parameter by about ``lr``.
MAX_LR = 10.0


class Adam:
    """Adam (Kingma and Ba 2015) with bias correction, updating a dict of arrays in place.

    Parameters
    ----------
    lr : float, default 0.01
        Step size, in ``(0, MAX_LR]``.
    beta1, beta2 : float, default 0.9 and 0.999
        Decay of the first and second moment estimates, in [0, 1).
    eps : float, default 1e-8
        Added to the root of the second moment, > 0.

    Examples
    --------
    >>> params = {"w": np.array([1.0, -1.0])}
    >>> Adam(lr=0.1).step(params, {"w": np.array([2.0, -3.0])})
    >>> params["w"].round(6).tolist()
    [0.9, -0.9]
    """

    def __init__(
        self, lr: float = 0.01, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8
    ):
        self.lr = check_real("lr", lr, positive=True)
        if self.lr > MAX_LR:
            raise ValueError(
                f"lr must be at most {MAX_LR:g} (each Adam step moves a parameter by about lr), "
                f"got {lr!r}"
            )
        for name, beta in (("beta1", beta1), ("beta2", beta2)):
            if not 0.0 <= check_real(name, beta) < 1.0:
                raise ValueError(f"{name} must lie in [0, 1), got {beta}")
        self.beta1, self.beta2 = float(beta1), float(beta2)
        self.eps = check_real("eps", eps, positive=True)
        self.steps = 0
        self._m: dict[str, np.ndarray] = {}
        self._v: dict[str, np.ndarray] = {}

    def step(self, params: dict[str, np.ndarray], grads: dict[str, np.ndarray]) -> None:
        """Move every ``params[name]`` against ``grads[name]``, in place.

        ``params`` is a dict of float64 arrays (updated in place); ``grads`` a dict with some
        of its keys, each a finite real array of that parameter's shape.

        Raises
        ------
        TypeError
            ``params`` or ``grads`` not a dict of arrays, or a parameter not a float64 array.
        ValueError
            A key of ``grads`` missing from ``params``, a shape that differs, a gradient that
            is not finite, or a step that would leave a parameter non-finite.
        """
        if not isinstance(params, dict):
            raise TypeError(f"params must be a dict of float64 arrays, got {_show(params)}")
        if not isinstance(grads, dict):
            raise TypeError(f"grads must be a dict of arrays, got {_show(grads)}")
        checked = {}
        for name, grad in grads.items():
            if name not in params:
                raise ValueError(f"grads[{name!r}] has no parameter: params has {sorted(params)}")
            value = params[name]
            if not isinstance(value, np.ndarray) or value.dtype != np.float64:
                raise TypeError(
                    f"params[{name!r}] must be a float64 array (updated in place), got "
                    f"{_show(value)}"
                )
            grad = check_array(f"grads[{name!r}]", grad, min_ndim=0).astype(np.float64)
            if grad.shape != value.shape:
                raise ValueError(
                    f"grads[{name!r}] must have the shape of params[{name!r}], {value.shape}, "
                    f"got {grad.shape}"
                )
            checked[name] = grad
        before = {name: params[name].copy() for name in checked}
        with np.errstate(over="ignore", invalid="ignore"):  # checked below, by value
            self._step(params, checked)
        for name in checked:
            if not np.all(np.isfinite(params[name])):
                params[name][...] = before[name]
                raise ValueError(
                    f"the step leaves params[{name!r}] non-finite: lr = {self.lr!r} or the "
                    "gradient is too large (the parameters are left as they were)"
                )

    def _step(self, params: dict[str, np.ndarray], grads: dict[str, np.ndarray]) -> None:
        """:meth:`step` on arrays the caller has checked (the training loop's)."""
        self.steps += 1
        correct1 = 1.0 - self.beta1**self.steps
        correct2 = 1.0 - self.beta2**self.steps
        for name, grad in grads.items():
            m = self._m.setdefault(name, np.zeros_like(grad))
            v = self._v.setdefault(name, np.zeros_like(grad))
            m *= self.beta1
            m += (1.0 - self.beta1) * grad
            v *= self.beta2
            v += (1.0 - self.beta2) * grad * grad
            params[name] -= self.lr * (m / correct1) / (np.sqrt(v / correct2) + self.eps)


#: Attention scores one forward pass of :meth:`TrainedModel.logits` holds at the most.
_SCORES_PER_BLOCK = 2**18


@dataclass
class TrainedModel:
    """A trained model: its configuration, parameters and how training went.

    :func:`train` builds it; built by hand, every field is checked as :func:`train` would
    leave it.

    Attributes
    ----------
    config : ModelConfig
    params : dict of numpy.ndarray
        One finite array per entry of ``config.param_shapes()``, of that shape (copied, as
        float64).
    task : Task
        The task it was trained on (a name with its argument, or a :class:`Task`).
    length : int
        Training sequence length ``L``, >= 2 (at most ``max_len`` for "learned").
    losses : numpy.ndarray
        Training loss at every step: a non-empty 1-D array of finite numbers.
    seconds : float
        Wall-clock training time, >= 0.

    Raises
    ------
    TypeError
        A field of the wrong kind.
    ValueError
        A field out of range: params of other names or shapes, a non-finite loss.
    """

    config: ModelConfig
    params: dict[str, np.ndarray]
    task: Task
    length: int
    losses: np.ndarray
    seconds: float = 0.0
    _tables: dict = field(default_factory=dict, repr=False, compare=False, init=False)

    def __post_init__(self) -> None:
        if not isinstance(self.config, ModelConfig):
            raise TypeError(f"config must be a ModelConfig, got {_show(self.config)}")
        self.params = _check_params(self.params, self.config)
        self.task = make_task(self.task)
        self.length = _check_length(check_int("length", self.length, minimum=2), self.config)
        losses = check_array("losses", self.losses, ndim=1)
        self.losses = losses.astype(np.float64)
        seconds = check_real("seconds", self.seconds)
        if seconds < 0:
            raise ValueError(f"seconds must be >= 0, got {seconds}")
        self.seconds = seconds

    def _tables_for(self, n: int) -> _Tables:
        if n not in self._tables:
            self._tables[n] = _Tables(self.config, n)
        return self._tables[n]

    def _logits(self, tokens: ArrayLike) -> tuple[np.ndarray, dict]:
        """Logits and the forward cache of ``tokens``, checked here."""
        return self._forward_pass(_check_tokens(tokens, self.config))

    def _forward_pass(self, tokens: np.ndarray) -> tuple[np.ndarray, dict]:
        """Logits and the forward cache of checked int64 tokens ``(batch, n)``."""
        return _forward(self.params, self.config, tokens, self._tables_for(tokens.shape[1]))

    def logits(self, tokens: ArrayLike) -> np.ndarray:
        """Logits, shape ``(batch, n, vocab_size)``, for ``tokens`` of shape ``(n,)`` or
        ``(batch, n)``."""
        return self._blocked_logits(_check_tokens(tokens, self.config, block=_SCORES_PER_BLOCK))

    def _blocked_logits(self, tokens: np.ndarray) -> np.ndarray:
        """:meth:`logits` of checked int64 tokens ``(batch, n)``, a block of sequences at once."""
        tables = self._tables_for(tokens.shape[1])
        # Blocks of sequences whose attention scores fit in the CPU's cache: the same numbers,
        # about twice as fast for a long test (256 sequences of 64 tokens, 8 heads).
        block = max(1, _SCORES_PER_BLOCK // (self.config.n_heads * tokens.shape[1] ** 2))
        return np.concatenate(
            [
                _forward(self.params, self.config, tokens[i : i + block], tables)[0]
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
        weights = self._attention(_check_tokens(tokens, self.config), layer)
        return weights[0] if np.ndim(tokens) == 1 else weights

    def _attention(self, tokens: np.ndarray, layer: int) -> np.ndarray:
        """Attention weights ``(batch, n_heads, n, n)`` of checked tokens at a checked layer."""
        cache = self._forward_pass(tokens)[1]
        if layer == self.config.n_layers:
            return cache["weights"]
        return cache["inner"][layer - 1]["weights"]

    def accuracy(
        self,
        task: str | Task | None = None,
        length: int | None = None,
        *,
        n_samples: int = 256,
        seed: int = 12345,
        per_position: bool = False,
    ) -> float | np.ndarray:
        """Share of scored positions where the most likely token is the target.

        Parameters
        ----------
        task : str or Task, optional
            Default: the training task.
        length : int, optional
            Test length; default the training length. "learned" refuses lengths past max_len.
        n_samples : int, default 256
            Number of test sequences, >= 1. With ``length`` and the model's size it sets the
            cost, which must stay within the time budget of one call (5 s, estimated by
            :meth:`evaluation_seconds`) and its memory budget (1 GiB).
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
        length = self.length if length is None else check_int("length", length, minimum=1)
        _check_length(length, self.config)
        n_samples = check_int("n_samples", n_samples, minimum=1)
        per_position = check_bool("per_position", per_position)
        check_seconds(
            f"accuracy on n_samples = {n_samples} sequences of length = {length}",
            self.evaluation_seconds(n_samples, length),
        )
        _check_size(self.config, n_samples, length, "the test sequences (n_samples, length)", 1)
        batch = task_batch(task, n_samples, length, self.config.vocab_size, seed=seed)
        tokens = _check_tokens(batch.tokens, self.config, block=_SCORES_PER_BLOCK)
        return self._score(tokens, batch, per_position)

    def _accuracy(
        self, length: int, n_samples: int, per_position: bool, seed: int = 12345
    ) -> float | np.ndarray:
        """:meth:`accuracy` on the training task, of sizes checked against it and the model."""
        batch = _task_batch(self.task, n_samples, length, self.config.vocab_size, seed)
        return self._score(batch.tokens, batch, per_position)

    def _score(self, tokens: np.ndarray, batch: Batch, per_position: bool) -> float | np.ndarray:
        """Share of ``batch``'s scored positions predicted right (its checked ``tokens``)."""
        hits = (self._blocked_logits(tokens).argmax(axis=-1) == batch.targets) & batch.scored
        if per_position:
            counts = batch.scored.sum(axis=0)
            with np.errstate(invalid="ignore"):
                return np.where(counts > 0, hits.sum(axis=0) / np.maximum(counts, 1), np.nan)
        return float(hits.sum() / batch.scored.sum())

    def evaluation_seconds(self, n_samples: int, length: int) -> float:
        """About how long one forward pass over ``n_samples`` sequences of ``length`` tokens
        takes on one core, pessimistically (what :meth:`accuracy` holds against its budget).

        Examples
        --------
        >>> model = train("copy_back", "none", length=6, vocab_size=4, steps=2)
        >>> model.evaluation_seconds(256, 16) < 1
        True
        """
        n_samples = check_int("n_samples", n_samples, minimum=1)
        length = check_int("length", length, minimum=1)
        return 1e-3 + _forward_flops(self.config, n_samples, length) / FLOPS_PER_SECOND

    def replace(self, **changes) -> TrainedModel:
        """The same parameters under a changed config, e.g. ``inv_freq`` or
        ``attention_factor`` for a RoPE model (lesson 10) or ``causal``.

        Examples
        --------
        >>> model = train("copy_back", "rope_adjacent", length=6, vocab_size=4, steps=2)
        >>> model.replace(attention_factor=1.2).config.attention_factor
        1.2
        """
        fields = {name: getattr(self.config, name) for name in ModelConfig.__dataclass_fields__}
        unknown = sorted(set(changes) - set(fields))
        if unknown:
            raise TypeError(f"replace got unknown config fields {unknown}; known: {sorted(fields)}")
        config = ModelConfig(**{**fields, **changes})
        params = _check_params({k: v.copy() for k, v in self.params.items()}, config)
        return TrainedModel(config, params, self.task, self.length, self.losses, self.seconds)


#: Seconds one training step costs beyond its arithmetic (Python, small arrays), pessimistically.
_STEP_OVERHEAD = 1e-3


def training_seconds(config: ModelConfig, steps: int, batch_size: int, length: int) -> float:
    """About how long :func:`train` takes on one core, pessimistically: what its budget reads.

    ``steps`` times a fixed overhead plus a forward and a backward pass (three forward passes'
    arithmetic) on ``batch_size`` sequences of ``length`` tokens, at
    :data:`~pe_helpers.model.FLOPS_PER_SECOND`. :func:`train` refuses a run estimated past
    ``TRAINING_BUDGET`` (60 s, :mod:`pe_helpers._validate`).

    Examples
    --------
    >>> config = ModelConfig("sinusoidal", vocab_size=16)
    >>> 0.5 < training_seconds(config, steps=200, batch_size=16, length=16) < 5
    True
    """
    config = _check_config(config)
    steps = check_int("steps", steps, minimum=1)
    batch_size = check_int("batch_size", batch_size, minimum=1)
    length = check_int("length", length, minimum=1)
    flops = 3 * _forward_flops(config, batch_size, length)
    return steps * (_STEP_OVERHEAD + flops / FLOPS_PER_SECOND)


def _diverged(lr: float, step: int, steps: int, loss: object) -> None:
    raise ValueError(
        f"training diverged at step {step + 1} of {steps} (the loss is {loss}): lr = {lr!r} "
        "is too large for this model; try lr = 0.03, the default, or less"
    )


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
        Sequences per step. With ``steps``, ``length`` and the model's size it sets the
        cost: a run estimated past 60 s (:func:`training_seconds`, the ``TRAINING_BUDGET`` of
        :mod:`pe_helpers._validate`) or past its 1 GiB of memory is refused before it starts.
    lr : float, default 0.03
        Adam step size, in ``(0, 10]``. A run whose loss stops being finite is stopped, with a
        ``ValueError`` naming ``lr``.
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

    Raises
    ------
    TypeError
        An argument of the wrong kind, or an unknown model option.
    ValueError
        An argument out of range, a run past the time or memory budget, or a run that
        diverges (its loss not finite: ``lr`` too large).

    Examples
    --------
    >>> model = train("copy_back", "learned", length=6, vocab_size=4, steps=5)
    >>> model.losses.shape, model.config.max_len
    ((5,), 6)
    """
    task = _make_task(task, task_arg, "task_arg")
    length = check_int("length", length, minimum=2)
    steps = check_int("steps", steps, minimum=1)
    batch_size = check_int("batch_size", batch_size, minimum=1)
    seed = check_int("seed", seed, minimum=0)
    lr = Adam(lr).lr  # checked before any work
    fields = set(ModelConfig.__dataclass_fields__) - {"method", "vocab_size"}
    unknown = sorted(set(model_options) - fields)
    if unknown:
        raise TypeError(f"train got unknown options {unknown}; model options: {sorted(fields)}")
    if check_choice("method", method, METHODS) == "learned":
        model_options.setdefault("max_len", length)
    config = ModelConfig(method, vocab_size, **model_options)
    _check_length(length, config)
    check_seconds(
        f"train with steps = {steps}, batch_size = {batch_size} and length = {length}",
        training_seconds(config, steps, batch_size, length),
        TRAINING_BUDGET,
    )
    _check_size(config, batch_size, length, "a training batch")
    check_memory(
        f"steps = {steps} batches of batch_size = {batch_size} sequences of length = {length}",
        40 * steps * batch_size * length,
    )
    try:  # one sequence: does the task fit this length and vocabulary?
        task_batch(task, 1, length, config.vocab_size)
    except ValueError as exc:
        raise ValueError(
            f"{exc} (task {task.name!r} with task_arg = {task.arg}, length = {length}, "
            f"vocab_size = {config.vocab_size})"
        ) from None
    params = (
        init_params(config, seed)
        if params is None
        else {name: value.copy() for name, value in _check_params(params, config).items()}
    )
    # Adam runs on one flat vector (a few array operations per step, not a few per
    # parameter); the dict holds views into it.
    names = list(params)
    flat = np.concatenate([params[name].ravel() for name in names])
    offsets = np.cumsum([0] + [params[name].size for name in names])
    params = {
        name: flat[offsets[i] : offsets[i + 1]].reshape(params[name].shape)
        for i, name in enumerate(names)
    }
    optimiser = Adam(lr)
    data = task_batch(task, steps * batch_size, length, vocab_size, seed=seed + 1)
    empty = np.flatnonzero(~data.scored.reshape(steps, -1).any(axis=1))
    if empty.size:  # its loss would be 0 / 0, read as a diverging run
        raise ValueError(
            f"the batch of step {empty[0]} has no scored position (task {task.name!r} with "
            f"task_arg = {task.arg}, length = {length}, batch_size = {batch_size}): use a "
            "longer length, a smaller task_arg or a larger batch_size"
        )
    tables = _Tables(config, length)
    losses = np.empty(steps)
    start = time.perf_counter()
    for step in range(steps):
        rows = slice(step * batch_size, (step + 1) * batch_size)
        with np.errstate(over="ignore", invalid="ignore"):  # a diverging run is refused below
            losses[step], grads = _loss_and_grads(
                params, config, data.tokens[rows], data.targets[rows], data.scored[rows], tables
            )
            if not math.isfinite(losses[step]):
                _diverged(lr, step, steps, losses[step])
            optimiser._step(
                {"all": flat}, {"all": np.concatenate([grads[n].ravel() for n in names])}
            )
    if not np.all(np.isfinite(flat)):
        _diverged(lr, steps - 1, steps, "finite, but the last step left parameters that are not")
    seconds = time.perf_counter() - start
    params = {name: value.copy() for name, value in params.items()}
    return TrainedModel(config, params, task, length, losses, seconds)
