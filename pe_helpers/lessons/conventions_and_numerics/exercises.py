"""Lesson 11 · Conventions and numerics: the exercise checkers."""

from __future__ import annotations

from collections.abc import Callable

import ml_dtypes
import numpy as np
from numpy.typing import ArrayLike

from ..._validate import check_array, check_int
from ...conventions import identify_rope
from ...encodings import frequencies
from ...grading import (
    AnswerProblem,
    Attempt,
    Feedback,
    as_array,
    as_pair,
    grade,
    shown,
    tolerance,
)
from ...i18n import translate
from ...numerics import largest_exact_integer
from ...rope import apply_rope, halves_permutation

__all__ = [
    "LOADER_D_MODEL",
    "LOADER_HEAD_DIM",
    "check_cos_sin_cache",
    "check_llama2_loader",
    "check_rope_complex",
    "check_snippet",
    "llama2_checkpoint",
    "reference_scores",
    "repository_scores",
]

_PAIR_WORDS = {
    "adjacent": "neighbouring features (2k, 2k+1)",
    "halves": "feature k with feature k + d/2",
}


def _detector_says(answer: object, pairing: str, what: str) -> str | None:
    """Run the learner's ``f(x, positions, base)`` through identify_rope at two bases."""
    function = answer.function if isinstance(answer, Attempt) else answer
    for base in (10000.0, 500.0):
        report = identify_rope(
            lambda x, t, b=base: function(x, t, b),
            16,  # noqa: B023
            expected_base=base,
            expected_pairing=pairing,
        )
        if report.issues == ("pairing",):
            return (
                f"{what} pairs {_PAIR_WORDS[report.pairing]}; this one should pair "
                f"{_PAIR_WORDS[pairing]}."
            )
        if not report.ok:
            # each sentence in the notebook's language, then the whole (pe_helpers.i18n)
            reads = " ".join(translate(message) for message in report.messages)
            return f"with base = {base:g} the detector reads: {reads}"
    return None


def check_rope_complex(rope_complex: Callable) -> Feedback:
    """Lesson 11, exercise 1: ``rope_complex(x, positions, base)``, RoPE as Meta's Llama code does,
    graded by :func:`~pe_helpers.conventions.identify_rope` at bases 10000 and 500.

    Examples
    --------
    >>> from pe_helpers.rope import apply_rope
    >>> check_rope_complex(lambda x, t, base: apply_rope(x, t, base)).status
    'correct'
    """
    x = np.random.default_rng(11).normal(size=(3, 16))
    return grade(
        "RoPE with complex numbers",
        rope_complex,
        [lambda answer: _detector_says(answer, "adjacent", "your function")],
        "z = x[:, 0::2] + 1j * x[:, 1::2]; multiply z by np.exp(1j * angles) with angles = "
        "np.outer(positions, base ** (-np.arange(0, d, 2) / d)); put z.real back in the even "
        "columns and z.imag in the odd ones.",
        call=(x, np.array([0.0, 1.0, 5.0]), 10000.0),
    )


#: The "spot the error" snippets of exercise 2: the pairing each is meant to have, and a hint.
SNIPPETS: dict[str, tuple[str, str]] = {
    "A": (
        "adjacent",
        "work out inv_freq for the first two pairs by hand: pair 0 turns by one "
        "radian per position, and each later pair turns more slowly.",
    ),
    "B": (
        "adjacent",
        "which exponent does the last pair get? It should be just above -1 "
        "(the slowest pair turns by about 1/base per position), never below.",
    ),
    "C": (
        "halves",
        "print the first row of cos: which features share a cosine? Which "
        "features does rotate_half turn together?",
    ),
}


def check_snippet(letter: str, fixed: Callable) -> Feedback:
    """Lesson 11, exercise 2: the corrected snippet ``letter`` (``"A"``, ``"B"`` or ``"C"``).

    Graded as :func:`check_rope_complex`, against the pairing the snippet is meant to have
    (:data:`SNIPPETS`); ``letter`` may be lower case, another letter gets feedback.

    Examples
    --------
    >>> from pe_helpers.rope import apply_rope
    >>> check_snippet("A", lambda x, t, base: apply_rope(x, t, base)).status
    'correct'
    >>> check_snippet("D", lambda x, t, base: apply_rope(x, t, base)).message
    "letter must be 'A', 'B' or 'C', the snippet you fixed; got 'D'."
    """
    key = letter.strip().upper() if isinstance(letter, str) else None
    if key not in SNIPPETS:
        return Feedback(
            "spot the error",
            "wrong",
            f"letter must be 'A', 'B' or 'C', the snippet you fixed; got {shown(letter)}.",
            'call check_snippet("A", fixed) with the letter of the snippet above your fix.',
        )
    letter = key
    pairing, hint = SNIPPETS[letter]
    x = np.random.default_rng(12).normal(size=(3, 16))
    return grade(
        f"spot the error {letter}",
        fixed,
        [lambda answer: _detector_says(answer, pairing, "your fix")],
        hint,
        call=(x, np.array([0.0, 1.0, 5.0]), 10000.0),
    )


_CACHE_CASES = ((4096, 64, np.dtype(ml_dtypes.bfloat16)), (4096, 64, np.dtype(np.float16)))


def check_cos_sin_cache(cos_sin_cache: Callable) -> Feedback:
    """Lesson 11, exercise 3: ``cos_sin_cache(n_positions, d_model, dtype)`` → ``(cos, sin)``.

    Both ``(n_positions, d_model // 2)`` in ``dtype``, base 10000; each (cos, sin) pair must
    encode ``t * base ** (-2k / d)`` within a few roundings at 4,096 positions, in bfloat16
    and float16.

    Examples
    --------
    >>> def cos_sin_cache(n_positions, d_model, dtype):
    ...     angles = np.outer(np.arange(n_positions), frequencies(d_model))
    ...     return np.cos(angles).astype(dtype), np.sin(angles).astype(dtype)
    >>> check_cos_sin_cache(cos_sin_cache).status
    'correct'
    """

    def angles_hold(attempt: Callable) -> str | None:
        for n, d, dtype in _CACHE_CASES:
            cos, sin = as_pair(attempt(n, d, dtype), f"your cache for {dtype.name}")
            for name, values in (("cos", cos), ("sin", sin)):
                if not isinstance(values, np.ndarray):
                    raise AnswerProblem(
                        f"{name} must be a numpy array, got {type(values).__name__}."
                    )
                if values.dtype != dtype:
                    return (
                        f"for {dtype.name} your {name} comes back as {values.dtype}: cast cos "
                        "and sin to the requested dtype at the very end (the model stores "
                        "its cache in its own dtype)."
                    )
                as_array(
                    values.astype(np.float64), f"your {name} for {dtype.name}", shape=(n, d // 2)
                )
            problem = _cache_slip(cos.astype(np.float64), sin.astype(np.float64), dtype)
            if problem:
                return problem
        return None

    return grade(
        "a cos/sin cache that survives low precision",
        cos_sin_cache,
        [angles_hold],
        "compute inv_freq and np.outer(positions, inv_freq) in float64 (or float32), take cos "
        "and sin there, and only then .astype(dtype).",
        call=_CACHE_CASES[0],
    )


def _cache_slip(cos: np.ndarray, sin: np.ndarray, dtype: np.dtype) -> str | None:
    n, half = cos.shape
    reference = np.multiply.outer(np.arange(n), frequencies(2 * half))
    error = np.abs(np.pi - np.mod(np.pi - (np.arctan2(sin, cos) - reference), 2 * np.pi))
    tolerance = 8 * 2.0 ** -(ml_dtypes.finfo(dtype).nmant + 1)
    if error.max() <= tolerance:
        return None
    swapped = np.abs(np.pi - np.mod(np.pi - (np.arctan2(cos, sin) - reference), 2 * np.pi))
    if swapped.max() <= tolerance:
        return "cos and sin are swapped: return (cos, sin) in that order."
    exact = largest_exact_integer(dtype)
    early = error[: exact + 1].max()
    if early > tolerance:
        return (
            f"already at positions up to {exact:,}, which {dtype.name} holds exactly, the "
            f"angles are off by up to {early:.2g} rad: the frequencies or the products "
            f"t·θ were rounded to {dtype.name}. Compute them in float32 or float64."
        )
    return (
        f"positions up to {exact:,} are right, but past them the angles are off by up to "
        f"{error.max():.2g} rad: {dtype.name} holds every integer only up to {exact:,}, so "
        "the positions were rounded. Make them float32 or float64; cast only cos and sin."
    )


# --- exercise 4: a Llama 2 checkpoint in a split-halves repository ------------------------------

#: Exercise 4's head: features per head and the width of the residual stream.
LOADER_HEAD_DIM, LOADER_D_MODEL = 8, 16


def llama2_checkpoint(seed: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """``(W_Q, W_K)`` of one head, ``(d_model, d_head)`` each, laid out for adjacent pairs as
    Meta's Llama 2 checkpoint is; ``q = x @ W_Q``, so the features are the columns.

    Examples
    --------
    >>> w_q, w_k = llama2_checkpoint()
    >>> w_q.shape, w_k.shape
    ((16, 8), (16, 8))
    """
    rng = np.random.default_rng(check_int("seed", seed, minimum=0))
    return tuple(rng.normal(size=(2, LOADER_D_MODEL, LOADER_HEAD_DIM)) / np.sqrt(LOADER_D_MODEL))


def _scores(x, w_q, w_k, pairing: str) -> np.ndarray:
    x = check_array("x", x, ndim=2).astype(np.float64)
    if x.shape[0] > MAX_TOKENS:
        raise ValueError(f"x may have at most {MAX_TOKENS} rows (tokens), got {x.shape[0]}")
    shape = (x.shape[1], LOADER_HEAD_DIM)
    w_q, w_k = (
        check_array(name, w, ndim=2).astype(np.float64) for name, w in (("w_q", w_q), ("w_k", w_k))
    )
    for name, w in (("w_q", w_q), ("w_k", w_k)):
        if w.shape != shape:
            raise ValueError(
                f"{name} must have shape {shape} (x's width, the head's), got {w.shape}"
            )
    positions = np.arange(x.shape[0], dtype=np.float64)
    q = apply_rope(x @ w_q, positions, pairing=pairing)
    k = apply_rope(x @ w_k, positions, pairing=pairing)
    return q @ k.T  # (queries, keys): entry (n, m) is the logit of query n against key m


#: Most tokens :func:`reference_scores` and :func:`repository_scores` take.
MAX_TOKENS = 4096


def reference_scores(x: ArrayLike, w_q: ArrayLike, w_k: ArrayLike) -> np.ndarray:
    """Logits of one head as Meta's reference code computes them: RoPE on adjacent pairs.

    ``x`` is ``(tokens, d_model)`` at positions ``0, 1, ...`` (at most :data:`MAX_TOKENS`);
    ``w_q`` and ``w_k`` are ``(d_model, LOADER_HEAD_DIM)``; returns ``(tokens, tokens)``.

    Examples
    --------
    >>> w_q, w_k = llama2_checkpoint()
    >>> reference_scores(np.eye(16)[:3], w_q, w_k).shape
    (3, 3)
    """
    return _scores(x, w_q, w_k, "adjacent")


def repository_scores(x: ArrayLike, w_q: ArrayLike, w_k: ArrayLike) -> np.ndarray:
    """The same logits as a teaching repository computes them: RoPE with ``rotate_half``.

    Arguments as in :func:`reference_scores`; the rotation pairs feature ``k`` with ``k + d/2``.

    Examples
    --------
    >>> w_q, w_k = llama2_checkpoint()
    >>> x = np.eye(16)[:3]
    >>> bool(np.allclose(np.diag(repository_scores(x, w_q, w_k)),
    ...                  np.diag(reference_scores(x, w_q, w_k))))
    True
    """
    return _scores(x, w_q, w_k, "halves")


def check_llama2_loader(convert: Callable) -> Feedback:
    """Lesson 11, exercise 4: ``repository_scores(x, *convert(w_q, w_k))`` must equal
    ``reference_scores(x, w_q, w_k)``, for :func:`llama2_checkpoint` and a second checkpoint.

    Examples
    --------
    >>> from pe_helpers.rope import halves_permutation
    >>> perm = halves_permutation(LOADER_HEAD_DIM)
    >>> check_llama2_loader(lambda w_q, w_k: (w_q[:, perm], w_k[:, perm])).status
    'correct'
    """
    x = np.random.default_rng(14).normal(size=(12, LOADER_D_MODEL))
    checkpoints = (llama2_checkpoint(), llama2_checkpoint(seed=3))

    def reproduces(attempt: Callable) -> str | None:
        for w_q, w_k in checkpoints:
            loaded = as_pair(attempt(w_q.copy(), w_k.copy()), "your (W_Q, W_K)")
            new_q, new_k = (
                as_array(w, f"your {name}") for w, name in zip(loaded, ("W_Q", "W_K"), strict=True)
            )
            tol = tolerance(*(np.asarray(w) for w in loaded))
            if new_q.shape != w_q.shape or new_k.shape != w_k.shape:
                return (
                    f"your weights have shapes {new_q.shape} and {new_k.shape}; they must keep "
                    f"the checkpoint's {w_q.shape}. With q = x @ W_Q the head's features are "
                    "the columns of W_Q: reorder columns, not rows."
                )
            want = reference_scores(x, w_q, w_k)
            got = repository_scores(x, new_q, new_k)
            if np.allclose(got, want, rtol=tol, atol=tol * np.abs(want).max()):
                continue
            return _loader_slip(w_q, w_k, new_q, new_k, got, want, tol)
        return None

    return grade(
        "a Llama 2 checkpoint in a split-halves repository",
        convert,
        [reproduces],
        "compare repository_scores with reference_scores offset by offset: where do they agree? "
        "Section 1's permutation (halves_permutation) moves adjacent pairs to where rotate_half "
        "expects them; apply it to the features (columns) of both W_Q and W_K.",
        call=(checkpoints[0][0].copy(), checkpoints[0][1].copy()),
    )


def _loader_slip(w_q, w_k, new_q, new_k, got: np.ndarray, want: np.ndarray, tol: float) -> str:
    perm = halves_permutation(LOADER_HEAD_DIM)
    inverse = np.argsort(perm)

    def same(a, b) -> bool:
        return np.allclose(a, b, rtol=tol, atol=tol * np.abs(b).max())

    if same(new_q, w_q) and same(new_k, w_k):
        return (
            "those are the checkpoint's weights unchanged: the repository's logits then agree "
            "with the reference only on the diagonal (a query against the key at its own "
            "position), the other pairing's signature."
        )
    if same(new_q, w_q[:, inverse]) and same(new_k, w_k[:, inverse]):
        return (
            "that is the inverse permutation (from the split-halves layout back to adjacent "
            "pairs): the checkpoint is adjacent, so use halves_permutation itself, "
            "W[:, perm]."
        )
    if same(new_q, w_q[:, perm]) != same(new_k, w_k[:, perm]):
        which = "W_K" if same(new_q, w_q[:, perm]) else "W_Q"
        return (
            f"you permuted only one of the two: {which} still has the adjacent layout, so "
            "the logits are wrong even at offset 0. Permute both alike."
        )
    diagonal = same(np.diag(got), np.diag(want))
    where = "only on the diagonal" if diagonal else "not even on the diagonal"
    return (
        f"the repository's logits with your weights match the reference {where}: permute the "
        "columns of W_Q and W_K with halves_permutation(d_head), nothing else."
    )
