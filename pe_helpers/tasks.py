"""Toy sequence tasks that need word order, for the trainer of lesson 08.

Pure numpy: nothing here draws. Every batch is drawn from its own seeded generator, so the
same arguments always give the same tokens.

Two tasks, one of each kind:

* ``copy_back`` (relative): the target at position ``t`` is the token at ``t - k``;
  positions ``t < k`` have no target.
* ``token_at`` (absolute): the target at position ``t`` is the token at position ``p``;
  positions ``t < p`` have no target (a causal model cannot see position ``p`` yet).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ._docs import doc_filler
from ._validate import check_array, check_bool, check_choice, check_int

__all__ = [
    "TASKS",
    "Batch",
    "Task",
    "make_task",
    "copy_back",
    "token_at",
    "task_batch",
    "order_blind_accuracy",
    "most_frequent_earlier",
]

TASKS = ("copy_back", "token_at")

fill_doc = doc_filler(
    {
        "sequences": """\
batch_size : int
    Number of sequences, >= 1.
length : int
    Sequence length; longer than the task's argument (``offset``, ``position``), so that
    some position is scored.
vocab_size : int
    Tokens are drawn uniformly from ``0 .. vocab_size - 1``; >= 2.""",
    }
)


class Batch(NamedTuple):
    """Tokens, targets and which positions are scored.

    ``tokens`` and ``targets`` have shape ``(batch_size, length)``; ``targets`` holds -1 where
    ``scored`` is False.
    """

    tokens: np.ndarray
    targets: np.ndarray
    scored: np.ndarray


class Task(NamedTuple):
    """A task name and its one integer argument (``k`` for copy_back, ``p`` for token_at)."""

    name: str
    arg: int

    def batch(self, batch_size: int, length: int, vocab_size: int, seed: int = 0) -> Batch:
        """Draw a batch of this task; see :func:`task_batch`."""
        return task_batch(self, batch_size, length, vocab_size, seed=seed)


def make_task(task: str | Task, arg: int | None = None) -> Task:
    """Validate a task given by name (with an optional argument) or as a :class:`Task`.

    Parameters
    ----------
    task : {"copy_back", "token_at"} or Task
        The task; a ``Task`` is checked and returned.
    arg : int, optional
        ``k >= 1`` for copy_back (default 1), ``p >= 0`` for token_at (default 0).
        Must be omitted when ``task`` is already a ``Task``.

    Returns
    -------
    Task

    Examples
    --------
    >>> make_task("copy_back", 2)
    Task(name='copy_back', arg=2)
    >>> make_task("token_at")
    Task(name='token_at', arg=0)
    """
    if isinstance(task, Task):
        if arg is not None:
            raise ValueError(f"arg must be omitted when task is a Task, got arg={arg!r}")
        task, arg = task.name, task.arg
    name = check_choice("task", task, TASKS)
    minimum = 1 if name == "copy_back" else 0
    arg = minimum if arg is None else check_int(f"{name} argument", arg, minimum=minimum)
    return Task(name, arg)


def _tokens(batch_size: int, length: int, vocab_size: int, seed: int) -> np.ndarray:
    batch_size = check_int("batch_size", batch_size, minimum=1)
    length = check_int("length", length, minimum=1)
    vocab_size = check_int("vocab_size", vocab_size, minimum=2)
    seed = check_int("seed", seed, minimum=0)
    rng = np.random.default_rng(seed)
    return rng.integers(0, vocab_size, size=(batch_size, length))


def _check_fits(name: str, arg: int, length: int) -> None:
    if arg >= length:
        label = "offset k" if name == "copy_back" else "position p"
        raise ValueError(
            f"{name} {label} = {arg} leaves no scored position in a sequence of length "
            f"{length}; use length > {arg}"
        )


@fill_doc
def copy_back(
    batch_size: int, length: int, vocab_size: int, *, offset: int = 1, seed: int = 0
) -> Batch:
    """Random sequences whose target at position ``t`` is the token ``offset`` places back.

    A relative task: the answer is always at the same distance from the query.

    Parameters
    ----------
    {sequences}
    offset : int, default 1
        ``k >= 1``: positions ``t >= k`` are scored with target ``tokens[t - k]``.
    seed : int, default 0
        Seed (>= 0) of the generator.

    Returns
    -------
    Batch
        ``targets[:, t] == tokens[:, t - k]`` where ``scored[:, t]``, else -1.

    Examples
    --------
    >>> b = copy_back(3, 5, 10, offset=2, seed=3)
    >>> b.scored[0].tolist()
    [False, False, True, True, True]
    >>> bool((b.targets[:, 2:] == b.tokens[:, :-2]).all())
    True
    """
    offset = check_int("offset", offset, minimum=1)
    tokens = _tokens(batch_size, length, vocab_size, seed)
    _check_fits("copy_back", offset, tokens.shape[1])
    targets = np.full_like(tokens, -1)
    targets[:, offset:] = tokens[:, :-offset]
    return Batch(tokens, targets, targets >= 0)


@fill_doc
def token_at(
    batch_size: int, length: int, vocab_size: int, *, position: int = 0, seed: int = 0
) -> Batch:
    """Random sequences whose target at every position ``t >= p`` is the token at ``p``.

    An absolute task: the answer sits at a fixed place, whatever the query's position.

    Parameters
    ----------
    {sequences}
    position : int, default 0
        ``p >= 0``: positions ``t >= p`` are scored with target ``tokens[p]``.
    seed : int, default 0
        Seed (>= 0) of the generator.

    Returns
    -------
    Batch
        ``targets[:, t] == tokens[:, p]`` where ``scored[:, t]``, else -1.

    Examples
    --------
    >>> b = token_at(3, 4, 10, position=1, seed=3)
    >>> b.scored[0].tolist()
    [False, True, True, True]
    >>> bool((b.targets[:, 1:] == b.tokens[:, 1:2]).all())
    True
    """
    position = check_int("position", position, minimum=0)
    tokens = _tokens(batch_size, length, vocab_size, seed)
    _check_fits("token_at", position, tokens.shape[1])
    targets = np.full_like(tokens, -1)
    targets[:, position:] = tokens[:, position : position + 1]
    return Batch(tokens, targets, targets >= 0)


def task_batch(
    task: str | Task, batch_size: int, length: int, vocab_size: int, *, seed: int = 0
) -> Batch:
    """A batch of ``task`` (a name with its default argument, or a :class:`Task`).

    Examples
    --------
    >>> task_batch(make_task("copy_back", 1), 2, 3, 5).scored.tolist()
    [[False, True, True], [False, True, True]]
    """
    task = make_task(task)
    if task.name == "copy_back":
        return copy_back(batch_size, length, vocab_size, offset=task.arg, seed=seed)
    return token_at(batch_size, length, vocab_size, position=task.arg, seed=seed)


def order_blind_accuracy(
    task: str | Task,
    length: int,
    vocab_size: int,
    *,
    causal: bool = False,
    n_samples: int = 2000,
    seed: int = 0,
    per_position: bool = False,
) -> float | np.ndarray:
    """The best accuracy any model that cannot see order can reach on ``task``.

    An order-blind model sees, at query position ``t``, its own token and the *multiset* of the
    tokens it may attend to (all of them, or with ``causal=True`` those at ``0 .. t``) — not
    their order. Because the tokens are i.i.d., every arrangement of that multiset is equally
    likely, so the posterior of the target is known in closed form:

    * a target at another position (``t' != t`` among the ``m`` visible ones) is token ``v``
      with probability ``(c_v - [v == own]) / (m - 1)``;
    * with ``causal=False`` the model does not know ``t`` either, so for token_at it must mix
      the query at ``t = p`` (target = own token) with the others (target elsewhere), weighted
      by how many scored queries each kind has.

    The value returned is the mean over sampled sequences and scored positions of the largest
    posterior probability: the accuracy of the Bayes-optimal order-blind guess. It is well
    above ``1 / vocab_size`` (the target is among the visible tokens) and is the chance level
    a model without position information cannot beat.

    Parameters
    ----------
    task : {"copy_back", "token_at"} or Task
        The task.
    length : int
        Sequence length.
    vocab_size : int
        Vocabulary size, >= 2.
    causal : bool, default False
        Whether each query sees only its prefix (then it knows nothing more about ``t`` than the
        prefix multiset tells: the prefix size ``t + 1`` is taken as known, an upper bound).
    n_samples : int, default 2000
        Number of sampled sequences, >= 1.
    seed : int, default 0
        Seed (>= 0) of the sequences.
    per_position : bool, default False
        Return one value per query position (NaN where nothing is scored).

    Returns
    -------
    float or numpy.ndarray
        An accuracy in ``(1 / vocab_size, 1]``, or one per position.

    Examples
    --------
    >>> round(order_blind_accuracy("copy_back", 2, 4, n_samples=10), 3)
    1.0
    >>> order_blind_accuracy("token_at", 3, 4, causal=True, per_position=True)[:2].tolist()
    [1.0, 1.0]
    """
    task = make_task(task)
    for name, flag in (("causal", causal), ("per_position", per_position)):
        check_bool(name, flag)
    n_samples = check_int("n_samples", n_samples, minimum=1)
    batch = task_batch(task, n_samples, length, vocab_size, seed=seed)
    tokens = batch.tokens
    n = tokens.shape[1]
    onehot = np.eye(vocab_size)[tokens]  # (B, n, V)
    if causal:
        counts = np.cumsum(onehot, axis=1)
    else:
        counts = np.broadcast_to(onehot.sum(axis=1, keepdims=True), onehot.shape)
    visible = np.arange(1.0, n + 1.0) if causal else np.full(n, float(n))
    others = counts - onehot  # the multiset without the query's own token
    if task.name == "copy_back" or causal:
        # The target is another visible position (token_at with causal: the query knows t,
        # so at t = p the target is its own token and it is right for sure).
        best = others.max(axis=-1) / np.maximum(visible - 1.0, 1.0)
        if task.name == "token_at":
            best[:, task.arg] = 1.0
    else:
        p = task.arg
        n_scored = n - p
        # Unnormalised posterior: one query (t = p) whose target is its own token, and
        # n_scored - 1 queries whose target is another token of the multiset.
        score = onehot + (n_scored - 1) * others / (n - 1.0)
        best = score.max(axis=-1) / (1.0 + (n_scored - 1.0))
    if per_position:
        scored = batch.scored[0]
        return np.where(scored, best.mean(axis=0), np.nan)
    return float(best[batch.scored].mean())


def most_frequent_earlier(tokens: ArrayLike, vocab_size: int) -> np.ndarray:
    """Which tokens the best order-blind reader would guess at each position.

    A reader that sees the tokens before position ``t`` only as a bag (no order) can do no
    better than guess a token that occurs most often among positions ``0 .. t - 1``: the
    guesses behind :func:`order_blind_accuracy` with ``causal=True``, to compare a model's
    answers with (lesson 08 checks its NoPE model this way).

    Parameters
    ----------
    tokens : array_like of int
        Shape ``(batch, n)``, ids in ``0 .. vocab_size - 1``; at most 10⁷ entries times
        ``vocab_size``.
    vocab_size : int
        Number of token ids, >= 2.

    Returns
    -------
    numpy.ndarray of bool
        Shape ``(batch, n, vocab_size)``: True for the most frequent earlier tokens
        (all False at position 0, which has no earlier token).

    Examples
    --------
    >>> most_frequent_earlier([[2, 0, 2, 1]], 3)[0, 3].tolist()
    [False, False, True]
    """
    vocab_size = check_int("vocab_size", vocab_size, minimum=2)
    arr = check_array("tokens", tokens, ndim=2)
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"tokens must hold integer ids, got dtype {arr.dtype}")
    if arr.min() < 0 or arr.max() >= vocab_size:
        raise ValueError(
            f"tokens must lie in 0 .. {vocab_size - 1}, got {arr.min()} to {arr.max()}"
        )
    if arr.size * vocab_size > 10**7:
        raise ValueError(
            f"tokens.size × vocab_size may be at most 10,000,000, got {arr.size * vocab_size:,}"
        )
    counts = np.cumsum(np.eye(vocab_size, dtype=np.int64)[arr], axis=1)
    earlier = np.concatenate([np.zeros_like(counts[:, :1]), counts[:, :-1]], axis=1)
    best = earlier.max(axis=-1, keepdims=True)
    return (earlier == best) & (best > 0)
