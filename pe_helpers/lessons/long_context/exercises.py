"""Lesson 10 · Stretching RoPE to longer contexts: the exercise checkers.

See :mod:`pe_helpers.lessons.long_context` for the lesson's overview.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...grading import (
    AnswerProblem,
    Feedback,
    as_array,
    as_number,
    close,
    grade,
    shown,
    value_of,
)
from ...rope_configs import model_rope_config
from ...rope_scaling import (
    classify_pairs,
    default_frequencies,
    ntk_aware_base,
    rope_frequencies,
)
from .maths import rotate

__all__ = [
    "ENGINE_BLOCK",
    "ENGINE_HEAD_DIM",
    "check_llama3_pairs",
    "check_ntk_base",
    "check_yarn_engines",
    "yarn_engines",
]


def check_ntk_base(ntk_base: Callable) -> Feedback:
    """Lesson 10, exercise 1: ``ntk_base(base, head_dim, factor)`` returns the NTK-aware base.

    Examples
    --------
    >>> check_ntk_base(ntk_aware_base).status
    'correct'
    """
    cases = ((10000.0, 128, 2.0), (500000.0, 64, 8.0), (10000.0, 16, 4.0))

    def matches(attempt: Callable) -> str | None:
        answers = []
        for base, d, s in cases:
            got = attempt(base, d, s)
            what = f"your base for base = {base:g}, head_dim = {d}, factor = {s:g}"
            answers.append(as_number(got, what))
            if close(got, ntk_aware_base(base, d, s)):
                continue
            return _ntk_slip(got, base, d, s, answers)
        return None

    return grade(
        "NTK-aware base",
        ntk_base,
        [matches],
        "b′ = b · s^(d / (d − 2)), with d the head width (head_dim): the fastest pair keeps "
        "θ₀ = 1, and the slowest, b′^(−(d − 2)/d), comes out exactly s times slower.",
        call=cases[0],
    )


def _ntk_slip(got: object, base: float, d: int, s: float, answers: list[float]) -> str:
    def same(value: float) -> bool:
        return close(got, value)

    if len(answers) > 1 and same(answers[0]):
        return "you return the same number for different inputs: use the three arguments."
    if same(base):
        return "that is the base unchanged: NTK-aware scaling raises it."
    if same(base * s):
        return (
            "you multiplied the base by s: the slowest pair then slows by only "
            "s^((d − 2)/d); the exponent d/(d − 2) makes it exactly s."
        )
    if same(base * s ** ((d - 2) / d)):
        return "the exponent is upside down: it is d/(d − 2), slightly above 1."
    if same(base / s ** (d / (d - 2))):
        return "you divided: a larger base means slower pairs, which is the point."
    if same(base * s ** ((d / 2) / (d / 2 - 2))):
        return "d is the head width (head_dim), not the number of pairs head_dim / 2."
    return f"expected b · s^(d/(d − 2)) for base = {base:g}, d = {d}, s = {s:g}."


_LABELS = ("kept", "ramped", "interpolated")


def _as_labels(answer: object, size: int) -> np.ndarray:
    if isinstance(answer, str) or not isinstance(answer, (list, tuple, np.ndarray)):
        raise AnswerProblem(
            f"your answer must be a list or array of labels, one per pair, got "
            f"{type(answer).__name__}."
        )
    labels = np.asarray(answer, dtype=object).ravel()
    if len(answer) != size or labels.size != size:
        raise AnswerProblem(
            f"your answer must hold one label per pair: head_dim / 2 = {size}, got {len(answer)}."
        )
    words = []
    for label in labels:
        word = str(label).strip().lower() if isinstance(label, (str, np.str_)) else None
        word = "kept" if word == "extrapolated" else word
        if word not in _LABELS:
            raise AnswerProblem(
                f"unknown label {shown(label)}: each label must be the word 'kept', 'ramped' "
                "or 'interpolated'."
            )
        words.append(word)
    return np.array(words)


def _llama3_cases() -> tuple[dict, ...]:
    real = model_rope_config("llama-3.1-8b")
    made_up = {
        "rope_type": "llama3",
        "rope_theta": 10000.0,
        "factor": 4.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 8.0,
        "original_max_position_embeddings": 2048,
    }
    return (
        {
            "head_dim": real.head_dim,
            "max_position_embeddings": real.max_position_embeddings,
            "rope_parameters": real.rope_parameters,
        },
        {"head_dim": 64, "max_position_embeddings": 16384, "rope_parameters": made_up},
    )


def _labels_for(block: dict, head_dim: int, **changes: object) -> np.ndarray:
    """llama3's labels by its rule, for any edges (a slip may put them the wrong way round)."""
    block = {**block, **changes}
    original = block["original_max_position_embeddings"]
    wavelength = 2 * np.pi / default_frequencies(block["rope_theta"], head_dim)
    labels = np.full(head_dim // 2, "ramped", dtype=object)
    labels[wavelength < original / block["high_freq_factor"]] = "kept"
    labels[wavelength > original / block["low_freq_factor"]] = "interpolated"
    return labels.astype(str)


def check_llama3_pairs(classify: Callable) -> Feedback:
    """Lesson 10, exercise 2: ``classify(config)`` labels each pair of a llama3 config.

    ``config`` holds ``head_dim``, ``max_position_embeddings`` and ``rope_parameters`` (a
    llama3 block); the answer is one of "kept", "ramped" or "interpolated" per pair.

    Examples
    --------
    >>> check_llama3_pairs(lambda c: classify_pairs(c["rope_parameters"], c["head_dim"])).status
    'correct'
    """
    cases = _llama3_cases()

    def matches(attempt: Callable) -> str | None:
        for config in cases:
            block, d = config["rope_parameters"], config["head_dim"]
            got = _as_labels(attempt(config), d // 2)
            want = classify_pairs(block, d)
            if np.array_equal(got, want):
                continue
            return _llama3_slip(got, config)
        return None

    return grade(
        "llama3 pairs",
        classify,
        [matches],
        "θᵢ = rope_theta^(−2i/head_dim) and λᵢ = 2π/θᵢ; with L₀ = "
        "original_max_position_embeddings: λ < L₀/high_freq_factor → 'kept', "
        "λ > L₀/low_freq_factor → 'interpolated', otherwise 'ramped'.",
        call=(cases[0],),
    )


def _llama3_slip(got: np.ndarray, config: dict) -> str:
    block, d = config["rope_parameters"], config["head_dim"]
    low, high = block["low_freq_factor"], block["high_freq_factor"]
    original = block["original_max_position_embeddings"]
    want = classify_pairs(block, d)
    swap = {"kept": "interpolated", "interpolated": "kept", "ramped": "ramped"}
    yarn = {
        "rope_type": "yarn",
        "rope_theta": block["rope_theta"],
        "factor": block["factor"],
        "original_max_position_embeddings": original,
    }
    slips = (
        (
            _labels_for(
                block, d, original_max_position_embeddings=config["max_position_embeddings"]
            ),
            "you measured against max_position_embeddings; L₀ is original_max_position_embeddings, "
            "the length the model was trained on before the extension.",
        ),
        (
            _labels_for(block, d, low_freq_factor=high, high_freq_factor=low),
            "low_freq_factor and high_freq_factor are swapped: wavelengths below "
            "L₀/high_freq_factor are kept.",
        ),
        (
            np.array([swap[w] for w in want]),
            "kept and interpolated are the wrong way round: the "
            "fast pairs (short wavelengths) are kept, the slow ones interpolated.",
        ),
        (
            classify_pairs(yarn, d),
            "that is YaRN's rule (beta_fast = 32, beta_slow = 1 "
            "rotations); llama3 draws its edges at wavelengths L₀/high_freq_factor and "
            "L₀/low_freq_factor.",
        ),
    )
    for labels, message in slips:
        if not np.array_equal(labels, want) and np.array_equal(got, labels):
            return message
    wrong = int(np.sum(got != want))
    return (
        f"{wrong} of {d // 2} labels differ for head_dim = {d}, rope_theta = "
        f"{block['rope_theta']:g}, L₀ = {original}: check the frequencies and the two "
        f"wavelength edges L₀/{high:g} and L₀/{low:g}."
    )


# --- exercise 3: three engines serve one YaRN block ---------------------------------------------

#: The block the engines of exercise 3 serve: the three keys of Qwen3's opt-in YaRN block
#: (factor 4 from 32,768 tokens), on a head of :data:`ENGINE_HEAD_DIM` with base 10,000.
ENGINE_BLOCK = {
    "rope_type": "yarn",
    "rope_theta": 10000.0,
    "factor": 4.0,
    "original_max_position_embeddings": 32768,
}
ENGINE_HEAD_DIM = 64
#: Which engine has which bug (the checker's key): ``(factor on cos and sin, factor on logits)``
#: in units of the block's m.
_ENGINE_POWERS = {"A": (1, 2), "B": (1, 0), "C": (0, 0)}
_ENGINE_TRUTH = {"A": "doubled", "B": "right", "C": "missing"}
_ENGINE_LABELS = ("right", "missing", "doubled")


def _engine(cos_sin_power: int, logit_power: int) -> Callable:
    inv_freq, m = rope_frequencies(ENGINE_BLOCK, ENGINE_HEAD_DIM)

    def score(q, k, query_position, key_position):
        """The logit of query ``q`` at ``query_position`` against key ``k`` at ``key_position``."""
        q = as_array(q, "q", shape=(ENGINE_HEAD_DIM,))
        k = as_array(k, "k", shape=(ENGINE_HEAD_DIM,))
        t_q = as_number(query_position, "query_position")
        t_k = as_number(key_position, "key_position")
        # RoPE with cos and sin multiplied by m ** cos_sin_power, then the logit by m ** logit_power
        q_rot = rotate(q, t_q * inv_freq, m**cos_sin_power)
        k_rot = rotate(k, t_k * inv_freq, m**cos_sin_power)
        return float(m**logit_power * (q_rot @ k_rot))

    return score


def yarn_engines() -> dict[str, Callable]:
    """Exercise 3's three engines, ``engine(q, k, query_position, key_position) -> logit``.

    Each builds RoPE for :data:`ENGINE_BLOCK` on a head of :data:`ENGINE_HEAD_DIM` features
    with the block's YaRN frequencies; they differ only in where YaRN's attention factor ``m``
    goes. One applies it as transformers does (on cos and sin), one leaves it out, one applies
    it twice. Which is which is for the learner to find from the logits.

    Examples
    --------
    >>> engines = yarn_engines()
    >>> sorted(engines)
    ['A', 'B', 'C']
    >>> q = np.ones(ENGINE_HEAD_DIM)
    >>> round(engines["C"](q, q, 7, 7), 6)
    64.0
    """
    return {name: _engine(*powers) for name, powers in _ENGINE_POWERS.items()}


def _as_diagnosis(answer: object) -> dict[str, str]:
    if not isinstance(answer, dict):
        raise AnswerProblem(
            f"your answer must be a dict such as {{'A': 'right', ...}}, got "
            f"{type(answer).__name__}."
        )
    if sorted(map(str, answer)) != sorted(_ENGINE_TRUTH):
        raise AnswerProblem(
            f"your dict must have the keys 'A', 'B' and 'C', one per engine, "
            f"got {sorted(map(str, answer))}."
        )
    labels = {}
    for name, label in answer.items():
        word = label.strip().lower() if isinstance(label, str) else label
        if word not in _ENGINE_LABELS:
            raise AnswerProblem(
                f"engine {name}: unknown label {shown(label)}; use 'right', 'missing' or 'doubled'."
            )
        labels[str(name)] = word
    return labels


def check_yarn_engines(diagnosis: object) -> Feedback:
    """Lesson 10, exercise 3: which engine applies YaRN's attention factor right, none, twice.

    ``diagnosis`` maps each engine of :func:`yarn_engines` to "right", "missing" or
    "doubled" (or is a function with no arguments that returns that dict).

    Examples
    --------
    >>> check_yarn_engines({"A": "doubled", "B": "right", "C": "missing"}).status
    'correct'
    >>> check_yarn_engines({"A": "right", "B": "right", "C": "missing"}).status
    'wrong'
    """
    _, m = rope_frequencies(ENGINE_BLOCK, ENGINE_HEAD_DIM)
    ratio = {"right": m**2, "missing": 1.0, "doubled": m**4}

    def matches(answer: object) -> str | None:
        got = _as_diagnosis(value_of(answer))
        if len(set(got.values())) < len(got):
            return (
                "you gave two engines the same label: each of the three is a different "
                "case, one right, one with the factor missing, one with it applied twice."
            )
        for name, want in _ENGINE_TRUTH.items():
            if got[name] == want:
                continue
            return (
                f"engine {name} is not '{got[name]}': that label means a logit of "
                f"{ratio[got[name]]:.3f} × q·k for a query and a key at the same position. "
                f"Measure engine {name}'s factor yourself and compare."
            )
        return None

    return grade(
        "YaRN's attention factor in three engines",
        diagnosis,
        [matches],
        "put a query and a key at the same position: RoPE's rotations cancel there, so "
        "engine(q, k, t, t) / (q @ k) is the factor the engine puts on every logit. The block "
        "asks for m² (m from rope_frequencies(ENGINE_BLOCK, ENGINE_HEAD_DIM)); no factor gives "
        "1, a factor applied twice m⁴.",
    )
