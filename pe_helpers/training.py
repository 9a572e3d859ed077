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

import time
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from ._validate import check_bool, check_int, check_real
from .model import (
    ModelConfig,
    _check_length,
    _check_params,
    _check_tokens,
    _forward,
    _loss_and_grads,
    _Tables,
    init_params,
)
from .tasks import Task, make_task, task_batch

__all__ = ["Adam", "TrainedModel", "train"]


class Adam:
    """Adam (Kingma and Ba 2015) with bias correction, updating a dict of arrays in place.

    Parameters
    ----------
    lr : float, default 0.01
        Step size, > 0.
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
        for name, beta in (("beta1", beta1), ("beta2", beta2)):
            if not 0.0 <= check_real(name, beta) < 1.0:
                raise ValueError(f"{name} must lie in [0, 1), got {beta}")
        self.beta1, self.beta2 = float(beta1), float(beta2)
        self.eps = check_real("eps", eps, positive=True)
        self.steps = 0
        self._m: dict[str, np.ndarray] = {}
        self._v: dict[str, np.ndarray] = {}

    def step(self, params: dict[str, np.ndarray], grads: dict[str, np.ndarray]) -> None:
        """Move every ``params[name]`` against ``grads[name]``, in place."""
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

    Attributes
    ----------
    config : ModelConfig
    params : dict of numpy.ndarray
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
    _tables: dict = field(default_factory=dict, repr=False, compare=False)

    def _tables_for(self, n: int) -> _Tables:
        if n not in self._tables:
            self._tables[n] = _Tables(self.config, n)
        return self._tables[n]

    def _logits(self, tokens: ArrayLike) -> tuple[np.ndarray, dict]:
        tokens = _check_tokens(tokens, self.config)
        return _forward(self.params, self.config, tokens, self._tables_for(tokens.shape[1]))

    def logits(self, tokens: ArrayLike) -> np.ndarray:
        """Logits, shape ``(batch, n, vocab_size)``, for ``tokens`` of shape ``(n,)`` or
        ``(batch, n)``."""
        tokens = _check_tokens(tokens, self.config)
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

    def attention(self, tokens: ArrayLike) -> np.ndarray:
        """Attention weights per head: ``(n_heads, n, n)`` for one sequence, else
        ``(batch, n_heads, n, n)``; row ``i`` is query ``i``."""
        weights = self._logits(tokens)[1]["weights"]
        return weights[0] if np.ndim(tokens) == 1 else weights

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
            Number of test sequences, >= 1.
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
        batch = task_batch(task, n_samples, length, self.config.vocab_size, seed=seed)
        hits = (self.predict(batch.tokens) == batch.targets) & batch.scored
        if check_bool("per_position", per_position):
            counts = batch.scored.sum(axis=0)
            with np.errstate(invalid="ignore"):
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
        fields = {name: getattr(self.config, name) for name in ModelConfig.__dataclass_fields__}
        unknown = sorted(set(changes) - set(fields))
        if unknown:
            raise TypeError(f"replace got unknown config fields {unknown}; known: {sorted(fields)}")
        config = ModelConfig(**{**fields, **changes})
        params = _check_params({k: v.copy() for k, v in self.params.items()}, config)
        return TrainedModel(config, params, self.task, self.length, self.losses, self.seconds)


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
    """Train the one-layer model on a task with Adam; seeded and deterministic.

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
        Sequences per step.
    lr : float, default 0.03
        Adam step size.
    seed : int, default 0
        Seeds the initial parameters (``seed``) and the training data (``seed + 1``).
    params : dict of numpy.ndarray, optional
        Start from these parameters (copied) instead of random ones: fine-tuning.
    **model_options
        Any other :class:`~pe_helpers.model.ModelConfig` field (``d_model``, ``n_heads``,
        ``causal``, ``residual``, ``max_len``, ``base``, ``inv_freq``, ``attention_factor``,
        ``slopes``, ...).

    Returns
    -------
    TrainedModel

    Examples
    --------
    >>> model = train("copy_back", "learned", length=6, vocab_size=4, steps=5)
    >>> model.losses.shape, model.config.max_len
    ((5,), 6)
    """
    task = make_task(task, task_arg)
    length = check_int("length", length, minimum=2)
    steps = check_int("steps", steps, minimum=1)
    batch_size = check_int("batch_size", batch_size, minimum=1)
    seed = check_int("seed", seed, minimum=0)
    fields = set(ModelConfig.__dataclass_fields__) - {"method", "vocab_size"}
    unknown = sorted(set(model_options) - fields)
    if unknown:
        raise TypeError(f"train got unknown options {unknown}; model options: {sorted(fields)}")
    if method == "learned":
        model_options.setdefault("max_len", length)
    config = ModelConfig(method, vocab_size, **model_options)
    _check_length(length, config)
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
    tables = _Tables(config, length)
    losses = np.empty(steps)
    start = time.perf_counter()
    for step in range(steps):
        rows = slice(step * batch_size, (step + 1) * batch_size)
        losses[step], grads = _loss_and_grads(
            params, config, data.tokens[rows], data.targets[rows], data.scored[rows], tables
        )
        optimiser.step({"all": flat}, {"all": np.concatenate([grads[n].ravel() for n in names])})
    seconds = time.perf_counter() - start
    params = {name: value.copy() for name, value in params.items()}
    return TrainedModel(config, params, task, length, losses, seconds)
