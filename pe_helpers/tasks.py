"""Toy sequence tasks that need word order, for the trainer of lessons 08, 13 and 14.

Pure numpy: nothing here draws. Every batch (:func:`task_batch`) is drawn from its own seeded
generator, so the same arguments always give the same tokens. Each task has one integer
argument ``arg`` (:class:`Task`); positions without a target are not scored (target -1).

* ``copy_back`` (relative): the target at position ``t`` is the token at ``t - k``.
* ``token_at`` (absolute): the target at every ``t >= p`` is the token at position ``p`` (a
  causal model cannot see ``p`` before it).

Two need two attention layers (lesson 13):

* ``repeated`` (induction): each sequence draws a segment length ``m`` from ``arg .. length //
  2`` and ``m`` distinct tokens; the segment repeats until the sequence ends, and from ``t >=
  m`` on the target is the next token, ``tokens[t + 1 - m]``. No fixed offset finds it: an
  induction head attends to the token after the earlier copy of the current one.
* ``passkey`` (retrieval, Mohtashami and Jaggi 2023 in miniature): random filler, the marker
  (token 0) followed by the key at a uniform place, the marker again at the last position,
  the only one scored, whose target is the key. With ``arg = K > 0`` keys are ids ``1 .. K``
  and the filler the other ids (a key stands out by what it is); with 0 they share ids and
  only its place tells the key apart.

And one where counting tokens is the wrong notion of position (lesson 14):

* ``skip_back``: each position is a blank (token 0) with probability 1/2, else a word; the
  target is the ``arg``-th most recent word up to ``t`` (blanks skipped), so its distance in
  tokens varies; positions with fewer words so far are not scored.

Examples
--------
>>> b = task_batch(Task("copy_back", 2), 3, 5, 10, seed=3)
>>> b.scored[0].tolist(), bool((b.targets[:, 2:] == b.tokens[:, :-2]).all())
([False, False, True, True, True], True)
>>> b = task_batch(Task("token_at", 1), 3, 4, 10, seed=3)
>>> b.scored[0].tolist(), bool((b.targets[:, 1:] == b.tokens[:, 1:2]).all())
([False, True, True, True], True)
>>> b = task_batch(Task("repeated", 3), 1, 8, 10, seed=1)
>>> m = int(np.argmax(b.scored[0]))  # the first scored position is the segment length
>>> bool((b.tokens[0, m:] == b.tokens[0, :-m]).all()), len(set(b.tokens[0, :m].tolist())) == m
(True, True)
>>> b = task_batch(Task("passkey", 3), 2, 6, 8, seed=3)
>>> key = int(b.tokens[0, b.tokens[0].tolist().index(0) + 1])
>>> int(b.targets[0, -1]) == key, 1 <= key <= 3, int(b.scored.sum())
(True, True, 2)
>>> b = task_batch(Task("skip_back", 2), 1, 8, 5, seed=1)
>>> b.tokens[0].tolist(), b.targets[0].tolist()  # from the second word on: the one before
([0, 0, 4, 0, 1, 0, 4, 4], [-1, -1, -1, -1, 4, 4, 1, 4])
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ._validate import check_bool, check_choice, check_int, check_memory

__all__ = [
    "TEST_SEED",
    "TASKS",
    "Batch",
    "Task",
    "make_task",
    "task_batch",
    "order_blind_accuracy",
    "most_frequent_earlier",
]

TASKS = ("copy_back", "token_at", "repeated", "passkey", "skip_back")
#: Seed of every held-out test batch of the course (training batches come from other seeds).
TEST_SEED = 12345
#: The smallest argument of each task (also its default).
_SMALLEST_ARG = {"copy_back": 1, "token_at": 0, "repeated": 2, "passkey": 0, "skip_back": 1}


class Batch(NamedTuple):
    """Tokens and targets, ``(batch_size, length)``, and which positions are scored (the
    others' target is -1)."""

    tokens: np.ndarray
    targets: np.ndarray
    scored: np.ndarray


class Task(NamedTuple):
    """A task name and its one integer argument (``k`` for copy_back, ``p`` for token_at)."""

    name: str
    arg: int

    def batch(self, batch_size: int, length: int, vocab_size: int, seed: int = 0) -> Batch:
        """Draw a batch of this task (sizes checked by the caller: :func:`task_batch` checks)."""
        if self.name in _KERNELS:
            return _KERNELS[self.name](batch_size, length, vocab_size, self.arg, seed)
        tokens = np.random.default_rng(seed).integers(0, vocab_size, size=(batch_size, length))
        targets = np.full_like(tokens, -1)
        if self.name == "copy_back":
            targets[:, self.arg :] = tokens[:, : -self.arg]
        else:
            targets[:, self.arg :] = tokens[:, self.arg : self.arg + 1]
        return Batch(tokens, targets, targets >= 0)


def make_task(task: str | Task, arg: int | None = None, *, arg_name: str = "arg") -> Task:
    """Validate a task given by name (with an optional argument) or as a :class:`Task`.

    Parameters
    ----------
    task : {"copy_back", "token_at", "repeated", "passkey", "skip_back"} or Task
        The task; a ``Task`` is checked and returned.
    arg : int, optional
        The task's argument, at least its smallest (``k >= 1`` for copy_back, ``p >= 0`` for
        token_at, ...), which is also its default. Must be omitted when ``task`` is a ``Task``.
    arg_name : str, default "arg"
        The argument's name in messages (``task_arg`` in :func:`~pe_helpers.training.train`).

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
            raise ValueError(
                f"{arg_name} must be omitted when task is a Task, got {arg_name}={arg!r}"
            )
        task, arg = task.name, task.arg
    name = check_choice("task", task, TASKS)
    minimum = _SMALLEST_ARG[name]
    if arg is None:
        return Task(name, minimum)
    return Task(name, check_int(f"{arg_name} (the argument of {name})", arg, minimum=minimum))


def check_fits(task: Task, length: int, vocab_size: int, arg_name: str = "arg") -> None:
    """Refuse a ``length`` or ``vocab_size`` that leaves ``task`` nothing to score or draw."""
    name, arg = task
    shortest, fewest = {
        "copy_back": (arg + 1, 2),
        "token_at": (arg + 1, 2),
        "repeated": (max(4, 2 * arg), max(2, length // 2)),
        "passkey": (3, max(3, arg + 2)),
        "skip_back": (2 * arg, 3),
    }[name]
    if length < shortest:
        raise ValueError(
            f"length must be >= {shortest} for {name} with {arg_name} = {arg} (else no "
            f"position is scored), got length = {length}"
        )
    if vocab_size < fewest:
        raise ValueError(
            f"vocab_size must be >= {fewest} for {name} with {arg_name} = {arg} and "
            f"length = {length}, got vocab_size = {vocab_size}"
        )


#: Bytes a batch holds per token: tokens, targets and a copy of each (int64), the scored mask.
BATCH_BYTES = 40


def task_batch(
    task: str | Task, batch_size: int, length: int, vocab_size: int, *, seed: int = 0
) -> Batch:
    """A batch of ``task`` (a name with its default argument, or a :class:`Task`).

    Parameters
    ----------
    task : str or Task
        See :func:`make_task`.
    batch_size, length : int
        Sequences and tokens per sequence (``length`` long enough for the task to score a
        position); ``batch_size × length`` within the memory budget (1 GiB).
    vocab_size : int
        Token ids ``0 .. vocab_size - 1``, >= 2 (``repeated``: >= ``length // 2``, a
        segment's tokens being distinct; ``passkey``: >= ``arg + 2``; ``skip_back``: >= 3).
    seed : int, default 0
        Seed (>= 0) of the generator.

    Returns
    -------
    Batch

    Examples
    --------
    >>> task_batch(make_task("copy_back", 1), 2, 3, 5).scored.tolist()
    [[False, True, True], [False, True, True]]
    """
    task = make_task(task)
    batch_size = check_int("batch_size", batch_size, minimum=1)
    length = check_int("length", length, minimum=1)
    vocab_size = check_int("vocab_size", vocab_size, minimum=2)
    seed = check_int("seed", seed, minimum=0)
    check_fits(task, length, vocab_size)
    check_memory(  # the batch, and for repeated a shuffled vocabulary per sequence
        f"batch_size = {batch_size} sequences of length = {length} with vocab_size = {vocab_size}",
        2 * BATCH_BYTES * batch_size * length + 16 * batch_size * vocab_size,
    )
    return task.batch(batch_size, length, vocab_size, seed)


def _repeated(batch_size: int, length: int, vocab_size: int, shortest: int, seed: int) -> Batch:
    """A ``repeated`` batch (sizes checked by :func:`task_batch`)."""
    longest = length // 2
    rng = np.random.default_rng(seed)
    periods = rng.integers(shortest, longest + 1, size=batch_size)  # (B,)
    # The first ``longest`` entries of a random permutation: distinct tokens, (B, longest).
    segments = rng.permuted(np.tile(np.arange(vocab_size), (batch_size, 1)), axis=1)[:, :longest]
    t = np.arange(length)
    rows = np.arange(batch_size)[:, None]
    tokens = segments[rows, t[None, :] % periods[:, None]]
    following = segments[rows, (t[None, :] + 1) % periods[:, None]]
    scored = t[None, :] >= periods[:, None]
    return Batch(tokens, np.where(scored, following, -1), scored)


def _passkey(batch_size: int, length: int, vocab_size: int, key_ids: int, seed: int) -> Batch:
    """A ``passkey`` batch (sizes checked by :func:`task_batch`)."""
    rng = np.random.default_rng(seed)
    first_filler = key_ids + 1 if key_ids else 1
    tokens = rng.integers(first_filler, vocab_size, size=(batch_size, length))
    keys = rng.integers(1, (key_ids if key_ids else vocab_size - 1) + 1, size=batch_size)
    where = rng.integers(0, length - 2, size=batch_size)
    rows = np.arange(batch_size)
    tokens[rows, where] = 0
    tokens[rows, where + 1] = keys
    tokens[:, -1] = 0
    targets = np.full_like(tokens, -1)
    targets[:, -1] = keys
    return Batch(tokens, targets, targets >= 0)


def _skip_back(batch_size: int, length: int, vocab_size: int, back: int, seed: int) -> Batch:
    """A ``skip_back`` batch (sizes checked by :func:`task_batch`)."""
    rng = np.random.default_rng(seed)
    words = rng.integers(1, vocab_size, size=(batch_size, length))
    tokens = np.where(rng.random((batch_size, length)) < 0.5, 0, words)
    # count[t] = words at 0 .. t; the answer is the word whose running count is count[t] - back + 1
    count = np.cumsum(tokens > 0, axis=1)
    scored = count >= back
    targets = np.full_like(tokens, -1)
    for row in range(batch_size):  # where each word sits, in order: (words,)
        places = np.flatnonzero(tokens[row])
        wanted = count[row] - back  # index into places
        ok = scored[row]
        targets[row, ok] = tokens[row, places[wanted[ok]]]
    return Batch(tokens, targets, scored)


_KERNELS = {"repeated": _repeated, "passkey": _passkey, "skip_back": _skip_back}


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
        Vocabulary size, >= 2. ``n_samples * length * vocab_size`` sets the memory a call
        needs, within the budget of 1 GiB (about 27 million).
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
    if task.name not in ("copy_back", "token_at"):
        raise ValueError(
            f"task: order_blind_accuracy knows copy_back and token_at, got {task.name!r} "
            "(lesson 13 computes the limits of its own tasks)"
        )
    causal = check_bool("causal", causal)
    per_position = check_bool("per_position", per_position)
    n_samples = check_int("n_samples", n_samples, minimum=1)
    length = check_int("length", length, minimum=1)
    vocab_size = check_int("vocab_size", vocab_size, minimum=2)
    seed = check_int("seed", seed, minimum=0)
    check_fits(task, length, vocab_size)
    # one-hot tokens, their counts, the counts without the own token and the scores: (B, n, V)
    check_memory(
        f"n_samples = {n_samples}, length = {length} and vocab_size = {vocab_size}",
        8 * 5 * n_samples * length * vocab_size,
    )
    batch = task.batch(n_samples, length, vocab_size, seed)
    tokens = batch.tokens
    n = tokens.shape[1]
    onehot = (tokens[..., None] == np.arange(vocab_size)).astype(np.float64)  # (B, n, V)
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
        Shape ``(batch, n)``, ids in ``0 .. vocab_size - 1``.
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
    counts = np.cumsum(np.eye(vocab_size, dtype=np.int64)[np.asarray(tokens)], axis=1)
    earlier = np.concatenate([np.zeros_like(counts[:, :1]), counts[:, :-1]], axis=1)
    best = earlier.max(axis=-1, keepdims=True)
    return (earlier == best) & (best > 0)
