"""Every public callable since lesson 08 under bad input: a clear error, or a finite answer.

Issue 32. The modules added after lessons 01-07 were hardened (:mod:`pe_helpers.model`,
``training``, ``tasks``, ``biases``, ``rope_scaling``, ``rope_configs``, ``rope_variants``,
``conventions``, ``numerics``, ``table_conventions``, and the maths and checkers of lessons
08-14; the full-size trainers of lessons 13 and 14, seconds a call, are checked for their
refusals alone, :data:`TRAINERS`). This test finds every public callable of them by ``__all__``
(functions, classes and the public methods of classes; a new one without a case below fails
:func:`test_every_public_callable_has_a_case`), calls it once the right way (:data:`CASES`),
then again with each argument replaced, in turn, by each value of :data:`BAD` (None, NaN, ±inf,
negative, zero, 10**9, 10**18, 1e±300, text, numeric strings, a ragged list, an empty array, a
bool, a complex number, float16, an object, a list holding 10**9) and by a case's own extra
values (say, a function with the wrong output shape); a dict argument (a ``rope_parameters``
block) gets each of its entries replaced the same way. Each call must

* raise ``TypeError`` or ``ValueError`` (those exact types) whose message names the argument,
  or return a finite result (every float in it finite; NaN only where a case says a NaN is
  documented);
* refuse what is never a valid value of that argument: text, complex numbers, objects, ragged
  lists, and None or a bool where the signature does not allow them;
* for a checker, return a ``Feedback`` (never raise), not "correct", that leaks no
  ``object at 0x...``;
* stay within the budget of :mod:`pe_helpers._validate`: a refusal within
  :data:`REFUSAL_CALLS` function calls (the check comes before the work), any call within
  ``TIME_BUDGET`` seconds of the worker's own CPU time, no allocation past ``MEMORY_BUDGET``
  (the worker runs under ``RLIMIT_AS``, so a huge allocation is a MemoryError here, not a dead
  machine; a call past ``TIME_BUDGET`` of CPU is interrupted, one that hangs in C is killed).
  Work is counted, never read off a wall clock: on a busy machine (a class hub, six other
  processes on two cores) a wall clock measures the load, and the same call would fail.

The calls run in a worker process (this file run as a script), fed through a pipe and
restarted after a kill; so do the issue's examples (:func:`issue_examples`), each of which must
be refused at once with its own message. Figures and slider views (``figures.py``) are not
fuzzed here, and plain records (named tuples, reports) are listed in :data:`RECORDS` with what
validates them. The other tests below check the checkers' answers (a value, or a function
with no arguments returning it), a diverging training run and Adam's own checks.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import json
import math
import numbers
import os
import re
import resource
import select
import signal
import subprocess
import sys
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from pe_helpers._validate import MEMORY_BUDGET, TIME_BUDGET  # noqa: E402

#: The most function calls (Python and C, counted by :func:`sys.setprofile`) a refusal may
#: make: a check comes before the work (measured: refusals make 16 to about 1,800 calls, the
#: most for a rope_parameters block checked whole; 400 training steps make 150,000). A count,
#: not a time, so a busy machine cannot fail it.
REFUSAL_CALLS = 5000
#: Hang guard of a worker that stopped answering (a crash, a hang in C that the CPU timer
#: cannot interrupt): wall seconds, far past any call's budget even on a loaded machine.
WORKER_WAIT = 180.0
#: Headroom of the worker's address space over what it holds before a call.
ADDRESS_SLACK = MEMORY_BUDGET + 2**29

PACKAGE_MODULES = (
    "pe_helpers.model",
    "pe_helpers.training",
    "pe_helpers.tasks",
    "pe_helpers.biases",
    "pe_helpers.rope_scaling",
    "pe_helpers.rope_configs",
    "pe_helpers.rope_variants",
    "pe_helpers.conventions",
    "pe_helpers.numerics",
    "pe_helpers.table_conventions",
)
LESSON_MODULES = (
    "pe_helpers.lessons.train_it",
    "pe_helpers.lessons.position_methods",
    "pe_helpers.lessons.long_context",
    "pe_helpers.lessons.conventions_and_numerics",
    "pe_helpers.lessons.rope_today",
    "pe_helpers.lessons.two_layers",
    "pe_helpers.lessons.position_from_content",
)

#: Plain records: built by the package (or by hand) and validated where they are used.
RECORDS = {
    "pe_helpers.tasks.Batch": "checked by loss_and_grads (_check_batch)",
    "pe_helpers.tasks.Task": "checked by make_task wherever a task is used",
    "pe_helpers.rope_configs.ModelRopeConfig": "its frequencies() runs rope_frequencies",
    "pe_helpers.conventions.LibraryFlag": "a row of LIBRARY_FLAGS",
    "pe_helpers.conventions.RopeConvention": "the report identify_rope returns",
    "pe_helpers.table_conventions.PeTableConvention": "the report identify_pe_table returns",
    "pe_helpers.table_conventions.TableSource": "a row of PE_TABLE_SOURCES",
    "pe_helpers.lessons.position_methods.maths.BenchEntry": "run_bench trains what it names",
    "pe_helpers.lessons.position_methods.maths.BenchResult": "what run_bench returns",
    "pe_helpers.lessons.position_methods.maths.MapEntry": "a row of POSITION_MAP",
    "pe_helpers.lessons.position_methods.maths.MethodProperties": "what method_properties returns",
    "pe_helpers.lessons.rope_today.maths.PublishedSetting": "a row of PUBLISHED_SETTINGS",
}


# ------------------------------------------------------------------------------ bad values

BAD: dict[str, Callable[[], object]] = {
    "None": lambda: None,
    "nan": lambda: float("nan"),
    "inf": lambda: float("inf"),
    "-inf": lambda: -float("inf"),
    "negative": lambda: -3,
    "zero": lambda: 0,
    "10**9": lambda: 10**9,
    "10**18": lambda: 10**18,
    "1e300": lambda: 1e300,
    "1e-300": lambda: 1e-300,
    "text": lambda: "abc",
    "numeric text": lambda: np.array(["3.14", "6.28"]),
    "ragged": lambda: [[1.0, 2.0], [3.0]],
    "empty array": lambda: np.array([]),
    "bool": lambda: True,
    "complex": lambda: 1 + 2j,
    "float16": lambda: np.float16(2.5),
    "float16 array": lambda: np.arange(1, 5, dtype=np.float16),
    "object": lambda: object(),
    "list with 10**9": lambda: [2, 10**9],
}
#: Never a valid value of any argument (None and bool: unless the signature allows them).
NEVER_VALID = {"text", "numeric text", "ragged", "complex", "object", "None", "bool"}


def _annotation_allows(parameter: inspect.Parameter, label: str) -> bool:
    text = str(parameter.annotation)
    if parameter.annotation is inspect.Parameter.empty or "object" in text or "Any" in text:
        return True
    if label == "None":
        return parameter.default is None or "None" in text
    if label == "bool":
        return "bool" in text
    if label == "text":
        return "str" in text
    return False


# ------------------------------------------------------------------------------ the cases


@dataclass
class Case:
    """One right call of a public callable, and how to read its answers.

    ``call`` returns the callable (a bound method for a method); ``extra`` maps an argument to
    more bad values of its own; ``ignore`` lists arguments not to replace (with the reason in
    a comment); ``nan_ok`` allows documented NaN in a result; ``checker``: every call must
    return a Feedback.
    """

    call: Callable[[], Callable]
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)
    ignore: tuple = ()
    nan_ok: bool = False
    checker: bool = False
    keys: dict = field(default_factory=dict)  # argument -> dict keys whose values are fuzzed
    # the part of a result that must be finite, where a documented mask is -inf elsewhere
    unmasked: Callable | None = None


class Fixtures:
    """Objects the cases share, built once per worker on first use."""

    @functools.cached_property
    def config(self):
        from pe_helpers.model import ModelConfig

        return ModelConfig("rope_adjacent", vocab_size=4, d_model=4, n_heads=1)

    @functools.cached_property
    def params(self):
        from pe_helpers.model import init_params

        return init_params(self.config)

    @functools.cached_property
    def batch(self):
        from pe_helpers.tasks import copy_back

        return copy_back(2, 5, 4)

    def train(self, task="copy_back", method="rope_adjacent", **options):
        from pe_helpers.training import train

        defaults = dict(length=6, vocab_size=4, steps=2, batch_size=2, d_model=8, n_heads=2)
        return train(task, method, **{**defaults, **options})

    @functools.cached_property
    def model(self):
        return self.train()

    @functools.cached_property
    def t5_model(self):
        return self.train(method="t5_bias")

    @functools.cached_property
    def token_models(self):
        return self.train("token_at", "rope_adjacent"), self.train("token_at", "rope_halves")

    @functools.cached_property
    def bench(self):
        from pe_helpers.lessons.position_methods import run_bench

        return run_bench(
            [("RoPE", "rope_adjacent")],
            [("copy_back", 1)],
            length=6,
            factors=(1,),
            steps=2,
            n_samples=2,
        )

    @functools.cached_property
    def spread(self):
        from pe_helpers.seeds import SeedResults

        return SeedResults(
            "demo",
            (0, 1),
            {"g.PI.L": np.array([0.2, 0.4]), "bench.copy_back.rope_adjacent.L": np.ones(2)},
        )

    @functools.cached_property
    def passkey_model(self):
        from pe_helpers.training import train

        return train("passkey", "rope_adjacent", length=8, steps=2, n_layers=2)

    def skip_back_model(self, method: str):
        from pe_helpers.training import train

        return train("skip_back", method, task_arg=2, length=8, steps=2)

    @functools.cached_property
    def cope_model(self):
        return self.skip_back_model("cope")

    @functools.cached_property
    def forget_model(self):
        return self.skip_back_model("forgetting")

    @functools.cached_property
    def heads(self):
        """Attention weights (layers, heads, n, n) of three tokens, as lesson 13's scores read."""
        weights = np.zeros((1, 1, 3, 3))
        weights[0, 0, :, 0] = 1
        weights[0, 0, 2] = [0, 1, 0]
        return weights


fx = Fixtures()

YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64}
LLAMA3 = {
    "rope_type": "llama3",
    "rope_theta": 500000.0,
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 64,
}
BLOCKS = {
    "default": {"rope_type": "default", "rope_theta": 10000.0},
    "linear": {"rope_type": "linear", "factor": 2.0},
    "dynamic": {"rope_type": "dynamic", "factor": 2.0},
    "yarn": YARN,
    "llama3": LLAMA3,
    "longrope": {
        "rope_type": "longrope",
        "short_factor": [1.0, 1.0],
        "long_factor": [2.0, 4.0],
        "original_max_position_embeddings": 64,
    },
    "proportional": {"rope_type": "proportional", "partial_rotary_factor": 0.5},
}
BLOCK_KEYS = {
    "default": ("rope_theta", "partial_rotary_factor"),
    "linear": ("factor", "rope_theta"),
    "dynamic": ("factor",),
    "yarn": (
        "factor",
        "original_max_position_embeddings",
        "beta_fast",
        "beta_slow",
        "mscale",
        "mscale_all_dim",
        "attention_factor",
        "truncate",
    ),
    "llama3": ("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"),
    "longrope": ("short_factor", "long_factor", "factor", "original_max_position_embeddings"),
    "proportional": ("partial_rotary_factor", "factor"),
}


def _rope(x, t):
    from pe_helpers.rope import apply_rope

    return apply_rope(x, t)


def _table(n, d):
    from pe_helpers.encodings import sinusoidal_pe

    return sinusoidal_pe(n, d)


def _shift(delta, d):
    from pe_helpers.encodings import shift_operator

    return shift_operator(delta, d)


def _raises(*_):
    raise RuntimeError("the learner's function broke")


#: Functions a learner might pass where a function is asked for: each must be told apart.
BAD_FUNCTIONS = {
    "returns None": lambda *_: None,
    "returns a number": lambda *_: 1.0,
    "returns text": lambda *_: "abc",
    "returns NaN": lambda *a: np.full(np.shape(a[0]), np.nan) if a else np.nan,
    "returns one column": lambda *a: np.ones((np.shape(a[0])[0], 1)) if a else 1.0,
    "raises": _raises,
}


def _functions():
    return {label: (lambda f=f: f) for label, f in BAD_FUNCTIONS.items()}


def _m(path: str) -> Callable[[], Callable]:
    """The callable at ``module:attribute`` (imported in the worker when first called)."""
    module, _, name = path.partition(":")

    def get():
        obj = importlib.import_module(module)
        for part in name.split("."):
            obj = getattr(obj, part)
        return obj

    return get


def _cases() -> dict[str, list[Case]]:
    """Every case, by the callable's dotted name (a class's method: ``Class.method``)."""
    c: dict[str, list[Case]] = {}

    def add(name: str, *cases: Case) -> None:
        c.setdefault(name, []).extend(cases)

    # --- model -------------------------------------------------------------------------------
    model = "pe_helpers.model"
    config_kw = dict(vocab_size=4, d_model=4, n_heads=1)
    add(
        f"{model}.ModelConfig",
        Case(_m(f"{model}:ModelConfig"), ("rope_adjacent",), config_kw),
        Case(_m(f"{model}:ModelConfig"), ("learned",), config_kw | dict(max_len=8)),
        Case(_m(f"{model}:ModelConfig"), ("alibi",), dict(vocab_size=4, d_model=4, n_heads=2)),
        Case(_m(f"{model}:ModelConfig"), ("t5_bias",), config_kw | dict(causal=False)),
        Case(_m(f"{model}:ModelConfig"), ("sinusoidal",), config_kw | dict(residual=True)),
        Case(_m(f"{model}:ModelConfig"), ("cope",), config_kw | dict(cope_positions=4)),
        Case(_m(f"{model}:ModelConfig"), ("forgetting",), config_kw | dict(n_layers=2)),
    )
    add(f"{model}.ModelConfig.param_shapes", Case(lambda: fx.config.param_shapes))
    add(f"{model}.ModelConfig.n_parameters", Case(lambda: fx.config.n_parameters))
    add(f"{model}.init_params", Case(_m(f"{model}:init_params"), (), {"config": fx.config}))
    add(
        f"{model}.forward",
        Case(
            _m(f"{model}:forward"),
            (),
            dict(params=fx.params, config=fx.config, tokens=[0, 1, 2]),
            extra={
                "tokens": {
                    "50,000 tokens": lambda: np.zeros(50_000, dtype=int),
                    "ids past the vocabulary": lambda: [0, 9],
                }
            },
        ),
    )
    add(
        f"{model}.loss_and_grads",
        Case(
            _m(f"{model}:loss_and_grads"),
            (),
            dict(params=fx.params, config=fx.config, batch=fx.batch),
        ),
    )
    add(
        f"{model}.softmax_backward",
        Case(
            _m(f"{model}:softmax_backward"),
            (np.full((2, 3), 1 / 3), np.ones((2, 3))),
        ),
    )
    add(
        f"{model}.gradient_check",
        Case(
            _m(f"{model}:gradient_check"),
            (fx.config,),
            dict(batch_size=1, length=3, step=1e-5),
            extra={"softmax_backward": _functions()},
        ),
    )

    # --- training ----------------------------------------------------------------------------
    training = "pe_helpers.training"
    add(
        f"{training}.Adam",
        Case(_m(f"{training}:Adam"), (), dict(lr=0.01, beta1=0.9, beta2=0.999, eps=1e-8)),
    )
    add(
        f"{training}.Adam.step",
        Case(
            lambda: __import__("pe_helpers.training", fromlist=["Adam"]).Adam().step,
            ({"w": np.ones(3)}, {"w": np.ones(3)}),
        ),
    )
    add(
        f"{training}.TrainedModel",
        Case(
            _m(f"{training}:TrainedModel"),
            (),
            dict(
                config=fx.model.config,
                params=fx.model.params,
                task=fx.model.task,
                length=6,
                losses=np.array([1.0, 0.5]),
                seconds=0.1,
            ),
        ),
    )
    tokens = {"50,000 tokens": lambda: np.zeros(50_000, dtype=int)}
    for method in ("logits", "predict", "attention"):
        add(
            f"{training}.TrainedModel.{method}",
            Case(
                lambda method=method: getattr(fx.model, method),
                ([0, 1, 2],),
                extra={"tokens": tokens},
            ),
        )
    add(
        f"{training}.TrainedModel.accuracy",
        Case(lambda: fx.model.accuracy, (), dict(length=6, n_samples=4), nan_ok=True),
        Case(
            lambda: fx.model.accuracy,
            (),
            dict(length=6, n_samples=4, per_position=True),
            nan_ok=True,
        ),
    )
    add(
        f"{training}.TrainedModel.evaluation_seconds",
        Case(lambda: fx.model.evaluation_seconds, (256, 16)),
    )
    add(
        f"{training}.training_seconds",
        Case(_m(f"{training}:training_seconds"), (fx.config, 200, 16, 16)),
    )
    add(
        f"{training}.TrainedModel.replace",
        Case(
            lambda: fx.model.replace,
            (),
            dict(attention_factor=1.2, base=100.0, inv_freq=[1.0, 0.5]),
        ),
    )
    add(
        f"{training}.train",
        Case(
            _m(f"{training}:train"),
            ("copy_back", "rope_adjacent"),
            dict(
                length=6,
                vocab_size=4,
                steps=2,
                batch_size=2,
                lr=0.03,
                d_model=8,
                n_heads=2,
                base=10000.0,
                attention_factor=1.0,
            ),
        ),
        Case(
            _m(f"{training}:train"),
            ("token_at", "learned"),
            dict(length=6, vocab_size=4, steps=2, batch_size=2, d_model=8, max_len=8, task_arg=2),
        ),
        Case(
            _m(f"{training}:train"),
            ("copy_back", "t5_bias"),
            dict(
                length=6,
                vocab_size=4,
                steps=2,
                batch_size=2,
                d_model=8,
                num_buckets=8,
                max_distance=16,
            ),
        ),
        Case(
            _m(f"{training}:train"),
            ("copy_back", "cope"),
            dict(length=6, vocab_size=4, steps=2, batch_size=2, d_model=8, cope_positions=4),
        ),
    )

    # --- tasks -------------------------------------------------------------------------------
    tasks = "pe_helpers.tasks"
    add(
        f"{tasks}.make_task",
        Case(_m(f"{tasks}:make_task"), ("copy_back", 2)),
        Case(_m(f"{tasks}:make_task"), ("token_at",)),
    )
    add(f"{tasks}.copy_back", Case(_m(f"{tasks}:copy_back"), (2, 5, 4), dict(offset=1, seed=0)))
    add(f"{tasks}.token_at", Case(_m(f"{tasks}:token_at"), (2, 5, 4), dict(position=1, seed=0)))
    add(
        f"{tasks}.task_batch", Case(_m(f"{tasks}:task_batch"), ("copy_back", 2, 5, 4), dict(seed=0))
    )
    add(
        f"{tasks}.Task.batch",
        Case(
            lambda: __import__("pe_helpers.tasks", fromlist=["Task"]).Task("copy_back", 1).batch,
            (2, 5, 4),
            dict(seed=0),
        ),
    )
    add(
        f"{tasks}.order_blind_accuracy",
        Case(
            _m(f"{tasks}:order_blind_accuracy"),
            ("copy_back", 4, 4),
            dict(n_samples=10, seed=0),
            nan_ok=True,  # per_position=True: NaN where nothing is scored (documented)
        ),
        Case(
            _m(f"{tasks}:order_blind_accuracy"),
            ("token_at", 4, 4),
            dict(n_samples=10, causal=True, per_position=True),
            nan_ok=True,
        ),
    )
    add(f"{tasks}.repeated", Case(_m(f"{tasks}:repeated"), (2, 8, 10), dict(shortest=3, seed=0)))
    add(f"{tasks}.passkey", Case(_m(f"{tasks}:passkey"), (2, 6, 5), dict(seed=0)))
    add(f"{tasks}.skip_back", Case(_m(f"{tasks}:skip_back"), (2, 8, 5), dict(seed=0)))
    add(
        f"{tasks}.most_frequent_earlier",
        Case(_m(f"{tasks}:most_frequent_earlier"), ([[2, 0, 2, 1]], 3)),
    )

    # --- biases ------------------------------------------------------------------------------
    biases = "pe_helpers.biases"
    add(f"{biases}.alibi_slopes", Case(_m(f"{biases}:alibi_slopes"), (8,)))
    add(
        f"{biases}.alibi_bias",
        Case(_m(f"{biases}:alibi_bias"), (5, 2)),
        Case(_m(f"{biases}:alibi_bias"), (5,), dict(slopes=[1.0, 0.5])),
    )
    add(
        f"{biases}.t5_relative_bucket",
        Case(
            _m(f"{biases}:t5_relative_bucket"),
            ([-20, 0, 7],),
            dict(bidirectional=True, num_buckets=32, max_distance=128),
        ),
    )
    add(
        f"{biases}.t5_bias",
        Case(
            _m(f"{biases}:t5_bias"),
            (np.arange(8.0)[:, None], 4),
            dict(bidirectional=True, max_distance=4),
        ),
    )

    # --- rope_scaling ------------------------------------------------------------------------
    scaling = "pe_helpers.rope_scaling"
    for rope_type, block in BLOCKS.items():
        extra_kw = dict(max_position_embeddings=32) if rope_type == "dynamic" else {}
        add(
            f"{scaling}.rope_frequencies",
            Case(
                _m(f"{scaling}:rope_frequencies"),
                (block, 4 if rope_type in ("longrope",) else 8),
                dict(seq_len=16, **extra_kw)
                | ({"max_position_embeddings": 32} if rope_type != "dynamic" else {}),
                keys={"rope_parameters": BLOCK_KEYS[rope_type]},
            ),
        )
        if rope_type in ("default", "linear", "yarn", "llama3"):
            for name in ("interpolation_weights", "classify_pairs"):
                add(
                    f"{scaling}.{name}",
                    Case(
                        _m(f"{scaling}:{name}"),
                        (block, 8),
                        dict(max_position_embeddings=32),
                        keys={"rope_parameters": BLOCK_KEYS[rope_type]},
                    ),
                )
    add(
        f"{scaling}.rotary_dim",
        Case(
            _m(f"{scaling}:rotary_dim"),
            ({"rope_type": "default", "partial_rotary_factor": 0.5}, 8),
            keys={"rope_parameters": ("partial_rotary_factor",)},
        ),
    )
    add(f"{scaling}.default_frequencies", Case(_m(f"{scaling}:default_frequencies"), (10000.0, 8)))
    add(f"{scaling}.ntk_aware_base", Case(_m(f"{scaling}:ntk_aware_base"), (10000.0, 8, 2.0)))
    add(
        f"{scaling}.dynamic_ntk_base",
        Case(_m(f"{scaling}:dynamic_ntk_base"), (10000.0, 8, 2.0, 64, 32)),
    )
    add(
        f"{scaling}.pair_wavelengths",
        Case(_m(f"{scaling}:pair_wavelengths"), ([np.pi, 2 * np.pi],)),
    )
    add(
        f"{scaling}.rotations_in_context",
        Case(_m(f"{scaling}:rotations_in_context"), ([np.pi, 1.0], 4.0)),
    )
    add(f"{scaling}.get_mscale", Case(_m(f"{scaling}:get_mscale"), (4.0, 1.0)))
    add(
        f"{scaling}.yarn_correction_dim",
        Case(_m(f"{scaling}:yarn_correction_dim"), (32, 128, 10000.0, 4096)),
    )
    add(
        f"{scaling}.yarn_correction_range",
        Case(
            _m(f"{scaling}:yarn_correction_range"),
            (YARN, 8),
            dict(max_position_embeddings=32),
            keys={"rope_parameters": BLOCK_KEYS["yarn"]},
        ),
    )

    # --- rope_configs ------------------------------------------------------------------------
    configs = "pe_helpers.rope_configs"
    add(f"{configs}.model_names", Case(_m(f"{configs}:model_names")))
    add(f"{configs}.model_rope_config", Case(_m(f"{configs}:model_rope_config"), ("llama-3.1-8b",)))
    add(
        f"{configs}.ModelRopeConfig.frequencies",
        Case(
            lambda: (
                __import__("pe_helpers.rope_configs", fromlist=["x"])
                .model_rope_config("llama-3.1-8b")
                .frequencies
            ),
            (),
            dict(seq_len=1000),
        ),
    )

    # --- rope_variants -----------------------------------------------------------------------
    variants = "pe_helpers.rope_variants"
    x = np.ones((2, 8))
    add(f"{variants}.rotary_dim", Case(_m(f"{variants}:rotary_dim"), (96, 0.25)))
    add(
        f"{variants}.apply_partial_rope",
        Case(
            _m(f"{variants}:apply_partial_rope"),
            (x, [0, 1], 0.5),
            dict(base=100.0, pairing="halves"),
        ),
    )
    add(
        f"{variants}.p_rope_frequencies",
        Case(_m(f"{variants}:p_rope_frequencies"), (8, 0.5), dict(base=100.0)),
    )
    add(
        f"{variants}.apply_p_rope",
        Case(
            _m(f"{variants}:apply_p_rope"), (x, [0, 1], 0.5), dict(base=100.0, pairing="adjacent")
        ),
    )
    add(f"{variants}.mrope_pair_axes", Case(_m(f"{variants}:mrope_pair_axes"), ((1, 1, 2), 8)))
    add(f"{variants}.mrope_position_ids", Case(_m(f"{variants}:mrope_position_ids"), (2, 2, 3, 2)))
    add(
        f"{variants}.apply_mrope",
        Case(
            _m(f"{variants}:apply_mrope"),
            (np.ones((1, 8)), [[5], [5], [5]], (2, 1, 1)),
            dict(base=100.0, pairing="halves"),
        ),
    )
    one = np.ones((1, 1, 2))
    add(
        f"{variants}.decoupled_rope_scores",
        Case(
            _m(f"{variants}:decoupled_rope_scores"),
            (one, one, one, np.ones((1, 2)), [0], [0]),
            dict(base=100.0),
        ),
    )

    # --- conventions, table_conventions, numerics --------------------------------------------
    add(
        "pe_helpers.conventions.identify_rope",
        Case(
            _m("pe_helpers.conventions:identify_rope"),
            (_rope, 8),
            dict(expected_base=10000.0, expected_pairing="adjacent", max_position=16, atol=1e-4),
            extra={"f": _functions()},
        ),
    )
    add(
        "pe_helpers.table_conventions.identify_pe_table",
        Case(
            _m("pe_helpers.table_conventions:identify_pe_table"),
            (_table, 8),
            dict(n_positions=17, expected_base=10000.0, shift=_shift, atol=1e-4),
            extra={"g": _functions(), "shift": _functions()},
        ),
    )
    numerics = "pe_helpers.numerics"
    add(
        f"{numerics}.largest_exact_integer",
        Case(_m(f"{numerics}:largest_exact_integer"), ("bfloat16",)),
    )
    add(
        f"{numerics}.rope_angle_error",
        Case(
            _m(f"{numerics}:rope_angle_error"),
            ([256, 257], 8),
            dict(base=10000.0, dtype="bfloat16", fix=False),
        ),
        Case(
            _m(f"{numerics}:rope_angle_error"),
            (4, 8),
            dict(dtype="float16", fix="float32"),
            nan_ok=True,
        ),
    )
    add(
        f"{numerics}.low_precision_rope_scores",
        Case(
            _m(f"{numerics}:low_precision_rope_scores"),
            (np.array([1.0, 0.0]), np.array([1.0, 0.0]), 257, [256, 257]),
            dict(dtype="bfloat16", base=10000.0, fix=True),
            nan_ok=True,
        ),
    )

    # --- lesson 08 ---------------------------------------------------------------------------
    lesson = "pe_helpers.lessons.train_it"
    add(
        f"{lesson}.maths.accuracy_table",
        Case(_m(f"{lesson}:accuracy_table"), ({"a": fx.model}, [6, 8]), dict(n_samples=4, seed=0)),
    )
    add(
        f"{lesson}.maths.format_accuracy_table",
        Case(
            _m(f"{lesson}:format_accuracy_table"),
            ({"learned": [1.0, np.nan]}, [16, 32]),
            dict(train_length=16, bands={"learned": ([0.5, 0.1], [1.0, 0.2])}),
        ),
    )
    for name in ("target_attention", "far_attention"):
        add(
            f"{lesson}.maths.{name}",
            Case(_m(f"{lesson}:{name}"), (fx.model, 8, [6, 7]), dict(n_samples=4, seed=0)),
        )
    add(
        f"{lesson}.maths.accuracy_by_range",
        Case(
            _m(f"{lesson}:accuracy_by_range"),
            (fx.model, 8, [(1, 4), (4, 8)]),
            dict(n_samples=4, seed=0),
        ),
    )
    add(
        f"{lesson}.maths.most_frequent_share",
        Case(_m(f"{lesson}:most_frequent_share"), (fx.model,), dict(n_samples=8, seed=0)),
    )
    add(
        f"{lesson}.exercises.check_softmax_backward",
        Case(
            _m(f"{lesson}:check_softmax_backward"),
            (lambda a, g: a * (g - (g * a).sum(-1, keepdims=True)),),
            checker=True,
            extra={"softmax_backward": _functions()},
        ),
    )
    add(
        f"{lesson}.exercises.check_prefix_prediction",
        Case(_m(f"{lesson}:check_prefix_prediction"), ("same",), checker=True),
    )
    add(
        f"{lesson}.exercises.check_nope_prediction",
        Case(_m(f"{lesson}:check_nope_prediction"), (15,), checker=True),
    )

    # --- lesson 09 ---------------------------------------------------------------------------
    lesson = "pe_helpers.lessons.position_methods"
    add(f"{lesson}.maths.term_kind", Case(_m(f"{lesson}:term_kind"), ("eᵢWpⱼ",)))
    add(
        f"{lesson}.maths.map_kind",
        Case(
            _m(f"{lesson}:map_kind"),
            (__import__("pe_helpers.lessons.position_methods", fromlist=["x"]).POSITION_MAP[0],),
        ),
    )
    add(
        f"{lesson}.maths.same_token_scores",
        Case(_m(f"{lesson}:same_token_scores"), (fx.params, fx.config, 5), dict(token=1)),
    )
    add(
        f"{lesson}.maths.method_properties",
        Case(
            _m(f"{lesson}:method_properties"),
            ("alibi",),
            dict(n_positions=6, seed=0, d_model=8, n_heads=2),
        ),
        Case(
            _m(f"{lesson}:method_properties"),
            ("t5_bias",),
            dict(n_positions=6, d_model=8, num_buckets=8, max_distance=16),
        ),
    )
    add(
        f"{lesson}.maths.run_bench",
        Case(
            _m(f"{lesson}:run_bench"),
            ([("RoPE", "rope_adjacent")], [("copy_back", 1)]),
            dict(length=6, factors=(1,), steps=2, seed=0, n_samples=2),
        ),
    )
    add(
        f"{lesson}.maths.entry_key",
        Case(
            _m(f"{lesson}:entry_key"),
            (__import__("pe_helpers.lessons.position_methods", fromlist=["x"]).BENCH[5],),
        ),
    )
    add(f"{lesson}.maths.bench_metrics", Case(_m(f"{lesson}:bench_metrics"), (fx.bench,)))
    add(f"{lesson}.maths.seed_range", Case(_m(f"{lesson}:seed_range"), (fx.spread, "g.PI.L")))
    add(
        f"{lesson}.maths.format_bench",
        Case(_m(f"{lesson}:format_bench"), (fx.bench,), dict(spread=fx.spread)),
    )
    add(f"{lesson}.maths.t5_table_facts", Case(_m(f"{lesson}:t5_table_facts"), (fx.t5_model,)))
    add(
        f"{lesson}.maths.last_query_attention",
        Case(
            _m(f"{lesson}:last_query_attention"),
            (fx.t5_model, (6, 12)),
            dict(n_sequences=4, seed=0),
        ),
    )
    add(f"{lesson}.maths.mystery_matrices", Case(_m(f"{lesson}:mystery_matrices"), (8,)))
    add(
        f"{lesson}.exercises.check_t5_bucket",
        Case(
            _m(f"{lesson}:check_t5_bucket"),
            (
                lambda r, b, n, m: __import__(
                    "pe_helpers.biases", fromlist=["x"]
                ).t5_relative_bucket(r, bidirectional=b, num_buckets=n, max_distance=m),
            ),
            checker=True,
            extra={"bucket": _functions()},
        ),
    )
    add(
        f"{lesson}.exercises.check_method_names",
        Case(
            _m(f"{lesson}:check_method_names"), (["T5", "learned", "RoPE", "ALiBi"],), checker=True
        ),
    )

    # --- lesson 10 ---------------------------------------------------------------------------
    lesson = "pe_helpers.lessons.long_context"
    for method in ("RoPE", "PI", "dynamic NTK", "YaRN", "Llama 3"):
        add(
            f"{lesson}.maths.rope_block",
            Case(
                _m(f"{lesson}:rope_block"),
                (method, 2.0, 64),
                dict(rope_theta=10000.0, beta_fast=32.0, beta_slow=1.0),
            ),
        )
    for method in ("RoPE", "PI", "NTK-aware", "dynamic NTK", "YaRN", "Llama 3"):
        add(
            f"{lesson}.maths.method_frequencies",
            Case(
                _m(f"{lesson}:method_frequencies"),
                (method, 8, 2.0, 64),
                dict(rope_theta=10000.0, length=128, beta_fast=32.0, beta_slow=1.0),
            ),
        )
    add(
        f"{lesson}.maths.rotate",
        Case(_m(f"{lesson}:rotate"), ([1.0, 0.0], [np.pi / 2]), dict(attention_factor=1.0)),
    )
    add(
        f"{lesson}.maths.aligned_scores",
        Case(
            _m(f"{lesson}:aligned_scores"), ([1.0, 0.5], [0.0, np.pi]), dict(attention_factor=1.0)
        ),
    )
    add(
        f"{lesson}.maths.dynamic_key_angles",
        Case(_m(f"{lesson}:dynamic_key_angles"), ([3], 8, 4, 2.0, 4), dict(rope_theta=10000.0)),
    )
    add(
        f"{lesson}.maths.stretched",
        Case(
            _m(f"{lesson}:stretched"),
            (fx.model, "PI", 2.0),
            dict(length=12, beta_fast=32.0, beta_slow=1.0),
        ),
    )
    add(
        f"{lesson}.maths.fine_tuned",
        Case(_m(f"{lesson}:fine_tuned"), (fx.model, "YaRN", 2.0), dict(length=12, steps=1, seed=1)),
    )
    add(
        f"{lesson}.maths.stretched_accuracies",
        Case(
            _m(f"{lesson}:stretched_accuracies"),
            (fx.model, 2.0, [6, 12]),
            dict(methods=["RoPE", "dynamic NTK"]),
        ),
    )
    add(
        f"{lesson}.maths.fine_tuned_accuracies",
        Case(
            _m(f"{lesson}:fine_tuned_accuracies"),
            (fx.model, 2.0),
            dict(length=12, steps=1, lengths=[6], methods=["PI"], seed=1),
        ),
    )
    add(f"{lesson}.maths.metric_key", Case(_m(f"{lesson}:metric_key"), ("dynamic NTK",)))
    add(f"{lesson}.maths.column_key", Case(_m(f"{lesson}:column_key"), (32, 16)))
    add(
        f"{lesson}.maths.format_seed_table",
        Case(
            _m(f"{lesson}:format_seed_table"),
            ("demo", {"PI": [0.25]}, fx.spread, "g", [16]),
            dict(train_length=16),
        ),
    )
    add(
        f"{lesson}.maths.outside_spread",
        Case(
            _m(f"{lesson}:outside_spread"),
            ({"PI": [0.25]}, fx.spread, "g", [16]),
            dict(train_length=16, slack=0.02),
        ),
    )
    add(
        f"{lesson}.exercises.check_ntk_base",
        Case(
            _m(f"{lesson}:check_ntk_base"),
            (_m(f"{scaling}:ntk_aware_base")(),),
            checker=True,
            extra={"ntk_base": _functions()},
        ),
    )
    add(
        f"{lesson}.exercises.check_llama3_pairs",
        Case(
            _m(f"{lesson}:check_llama3_pairs"),
            (
                lambda cfg: __import__("pe_helpers.rope_scaling", fromlist=["x"]).classify_pairs(
                    cfg["rope_parameters"], cfg["head_dim"]
                ),
            ),
            checker=True,
            extra={"classify": _functions()},
        ),
    )
    add(f"{lesson}.exercises.yarn_engines", Case(_m(f"{lesson}:yarn_engines")))
    add(
        f"{lesson}.exercises.check_yarn_engines",
        Case(
            _m(f"{lesson}:check_yarn_engines"),
            ({"A": "doubled", "B": "right", "C": "missing"},),
            checker=True,
        ),
    )

    # --- lesson 11 ---------------------------------------------------------------------------
    lesson = "pe_helpers.lessons.conventions_and_numerics"
    add(f"{lesson}.maths.swap_pairing", Case(_m(f"{lesson}:swap_pairing"), (fx.model,)))
    add(f"{lesson}.maths.pairing_metrics", Case(_m(f"{lesson}:pairing_metrics"), fx.token_models))
    add(
        f"{lesson}.maths.erratum_shift_operator",
        Case(_m(f"{lesson}:erratum_shift_operator"), (1.0, 4), dict(base=10000.0)),
    )
    add(
        f"{lesson}.maths.pe_table_variants",
        Case(_m(f"{lesson}:pe_table_variants"), (), dict(base=100.0)),
    )
    add(f"{lesson}.maths.rope_mutants", Case(_m(f"{lesson}:rope_mutants"), (), dict(base=100.0)))
    right_rope = lambda x, t, base: _m("pe_helpers.rope:apply_rope")()(x, t, base)  # noqa: E731
    add(
        f"{lesson}.exercises.check_rope_complex",
        Case(
            _m(f"{lesson}:check_rope_complex"),
            (right_rope,),
            checker=True,
            extra={"rope_complex": _functions()},
        ),
    )
    add(
        f"{lesson}.exercises.check_snippet",
        Case(
            _m(f"{lesson}:check_snippet"),
            ("A", right_rope),
            checker=True,
            extra={"fixed": _functions(), "letter": {"D": lambda: "D", "a space": lambda: " "}},
        ),
    )
    add(
        f"{lesson}.exercises.check_cos_sin_cache",
        Case(
            _m(f"{lesson}:check_cos_sin_cache"),
            (_cache,),
            checker=True,
            extra={"cos_sin_cache": _functions()},
        ),
    )
    add(
        f"{lesson}.exercises.llama2_checkpoint",
        Case(_m(f"{lesson}:llama2_checkpoint"), (), dict(seed=2)),
    )
    w = np.random.default_rng(0).normal(size=(16, 8))
    for name in ("reference_scores", "repository_scores"):
        add(f"{lesson}.exercises.{name}", Case(_m(f"{lesson}:{name}"), (np.eye(16)[:3], w, w)))
    add(
        f"{lesson}.exercises.check_llama2_loader",
        Case(
            _m(f"{lesson}:check_llama2_loader"),
            (_loader,),
            checker=True,
            extra={"convert": _functions()},
        ),
    )

    # --- lesson 12 ---------------------------------------------------------------------------
    lesson = "pe_helpers.lessons.rope_today"
    add(
        f"{lesson}.maths.position_scores",
        Case(
            _m(f"{lesson}:position_scores"),
            (_rope, [1.0, 2.0], [3.0, 0.0], [0, 5]),
            extra={"rotate": _functions()},
        ),
    )
    add(
        f"{lesson}.maths.patch_scores",
        Case(
            _m(f"{lesson}:patch_scores"),
            (np.ones(4), np.ones(4), 1, 2, (0, 1, 1)),
            dict(base=100.0),
        ),
    )
    add(
        f"{lesson}.maths.relative_2d_deviation",
        Case(_m(f"{lesson}:relative_2d_deviation"), (np.ones((4, 4)), 2, 2)),
    )
    add(f"{lesson}.maths.nope_layers", Case(_m(f"{lesson}:nope_layers"), (12, 4)))
    add(
        f"{lesson}.maths.nope_query_scale",
        Case(
            _m(f"{lesson}:nope_query_scale"),
            ([0, 8190, 8191],),
            dict(floor_scale=8192, attn_scale=0.1),
        ),
    )
    add(f"{lesson}.maths.top_key_weight", Case(_m(f"{lesson}:top_key_weight"), ([1, 2], 0.0)))
    add(
        f"{lesson}.exercises.check_partial_rope",
        Case(
            _m(f"{lesson}:check_partial_rope"),
            (_partial,),
            checker=True,
            extra={"partial_rope": _functions()},
        ),
    )
    add(
        f"{lesson}.exercises.check_mla_cache",
        Case(_m(f"{lesson}:check_mla_cache"), (576,), checker=True),
    )
    add(
        f"{lesson}.exercises.check_mrope_ids",
        Case(
            _m(f"{lesson}:check_mrope_ids"),
            (_m(f"{variants}:mrope_position_ids")(),),
            checker=True,
            extra={"mrope_ids": _functions()},
        ),
    )

    # --- lesson 13 ---------------------------------------------------------------------------
    lesson = "pe_helpers.lessons.two_layers"
    add(
        f"{lesson}.maths.extension_frequencies",
        Case(_m(f"{lesson}:extension_frequencies"), ("PI", 4, 16)),
    )
    add(f"{lesson}.maths.stretch", Case(_m(f"{lesson}:stretch"), (fx.passkey_model, "PI")))
    add(
        f"{lesson}.maths.fine_tune",
        Case(_m(f"{lesson}:fine_tune"), (fx.passkey_model, "YaRN"), dict(seed=1)),
    )
    add(
        f"{lesson}.maths.passkey_accuracies",
        Case(_m(f"{lesson}:passkey_accuracies"), (fx.passkey_model,), dict(n_samples=8)),
    )
    add(
        f"{lesson}.maths.passkey_previous_token",
        Case(_m(f"{lesson}:passkey_previous_token"), (fx.passkey_model,), dict(n_samples=8)),
    )
    add(
        f"{lesson}.maths.induction_order_blind_limit",
        Case(_m(f"{lesson}:induction_order_blind_limit"), (), dict(n_samples=200, seed=0)),
    )
    add(
        f"{lesson}.maths.induction_targets", Case(_m(f"{lesson}:induction_targets"), ([[5, 7, 5]],))
    )
    for name in ("induction_score", "previous_token_score"):
        add(f"{lesson}.maths.{name}", Case(_m(f"{lesson}:{name}"), (fx.heads, [[5, 7, 5]])))
    add(
        f"{lesson}.exercises.check_induction_score",
        Case(
            _m(f"{lesson}:check_induction_score"),
            (_m(f"{lesson}:induction_score")(),),
            checker=True,
            extra={"function": _functions()},
        ),
    )
    add(
        f"{lesson}.exercises.failure_length",
        Case(
            _m(f"{lesson}:failure_length"), (_m("pe_helpers.seeds:load_results")()("two_layers"),)
        ),
    )
    add(
        f"{lesson}.exercises.check_failure_length",
        Case(
            _m(f"{lesson}:check_failure_length"),
            (
                _m(f"{lesson}:failure_length")()(
                    _m("pe_helpers.seeds:load_results")()("two_layers")
                ),
            ),
            checker=True,
        ),
    )

    # --- lesson 14 ---------------------------------------------------------------------------
    lesson = "pe_helpers.lessons.position_from_content"
    add(
        f"{lesson}.maths.cope_positions",
        Case(_m(f"{lesson}:cope_positions"), (fx.cope_model, [1, 0, 2, 0])),
    )
    add(
        f"{lesson}.maths.forget_gates",
        Case(_m(f"{lesson}:forget_gates"), (fx.forget_model, [1, 0, 2, 0])),
    )
    add(
        f"{lesson}.maths.gate_summary",
        Case(_m(f"{lesson}:gate_summary"), (fx.forget_model,), dict(n_samples=2)),
        Case(_m(f"{lesson}:gate_summary"), (fx.cope_model,), dict(n_samples=2)),
    )
    add(
        f"{lesson}.maths.skip_back_accuracies",
        Case(_m(f"{lesson}:skip_back_accuracies"), (fx.cope_model,), dict(n_samples=4)),
    )
    add(
        f"{lesson}.maths.query_kind_accuracies",
        Case(_m(f"{lesson}:query_kind_accuracies"), (fx.forget_model,), dict(n_samples=4)),
    )
    add(f"{lesson}.maths.test_sequence", Case(_m(f"{lesson}:test_sequence"), (16, 0)))
    add(f"{lesson}.maths.word_counts", Case(_m(f"{lesson}:word_counts"), ([3, 0, 5],)))
    add(f"{lesson}.maths.path_transform", Case(_m(f"{lesson}:path_transform"), ([1.0, 0.0], 2.0)))
    add(
        f"{lesson}.maths.path_scores",
        Case(
            _m(f"{lesson}:path_scores"),
            (np.eye(2), np.eye(2)),
            dict(transforms=np.stack([np.eye(2)] * 2)),
            unmasked=lambda scores: scores[np.tril_indices_from(scores)],  # -inf above: causal
        ),
    )
    add(
        f"{lesson}.exercises.positions_from_gates",
        Case(_m(f"{lesson}:positions_from_gates"), (np.array([[1.0, 0.0], [0.5, 1.0]]),)),
    )
    add(
        f"{lesson}.exercises.forget_bias",
        Case(_m(f"{lesson}:forget_bias"), (np.array([1.0, 0.5, 0.5]),)),
    )
    for name, reference in (
        ("check_cope_positions", "positions_from_gates"),
        ("check_forget_bias", "forget_bias"),
    ):
        add(
            f"{lesson}.exercises.{name}",
            Case(
                _m(f"{lesson}:{name}"),
                (_m(f"{lesson}:{reference}")(),),
                checker=True,
                extra={"function": _functions()},
            ),
        )
    return c


#: Trainers of a lesson's full-size models (seconds each, too long to call right once per bad
#: value): :func:`test_a_full_size_trainer_refuses_bad_input_at_once` checks their refusals.
TRAINERS = {
    "pe_helpers.lessons.two_layers.maths.train_induction": dict(
        method="rope_adjacent", n_layers=2, seed=0
    ),
    "pe_helpers.lessons.two_layers.maths.train_passkey": dict(method="rope_adjacent", seed=0),
    "pe_helpers.lessons.position_from_content.maths.train_skip_back": dict(method="cope", seed=0),
}
#: Values each trainer's argument never takes: each must be refused, naming the argument.
TRAINER_BAD = {
    "method": (None, "text", 3, [1]),
    "seed": (None, "text", -1, 1.5, True, float("nan"), [1]),
    "n_layers": (None, "text", 0, 9, 1.5, True, 10**9),
}


def _cache(n, d, dtype):
    from pe_helpers.encodings import frequencies

    angles = np.outer(np.arange(n), frequencies(d))
    return np.cos(angles).astype(dtype), np.sin(angles).astype(dtype)


def _loader(w_q, w_k):
    from pe_helpers.rope import halves_permutation

    perm = halves_permutation(8)
    return w_q[:, perm], w_k[:, perm]


def _partial(x, positions, rotary_dim, base):
    from pe_helpers.rope import apply_rope

    out = x.copy()
    out[:, :rotary_dim] = apply_rope(x[:, :rotary_dim], positions, base)
    return out


# ------------------------------------------------------------------------ the public names


def public_callables() -> list[str]:
    """Dotted names of every public callable these modules export (classes' methods too)."""
    names = []
    for module_name in PACKAGE_MODULES + LESSON_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if not callable(obj) or isinstance(obj, Mapping):
                continue
            home = obj.__module__
            if module_name in LESSON_MODULES:
                if home.endswith(".figures"):
                    continue  # figures and views: not fuzzed here (see the module docstring)
                where = f"{home}.{name}"
            else:
                where = f"{module_name}.{name}"
            names.append(where)
            if inspect.isclass(obj):
                for attr, value in vars(obj).items():
                    if not attr.startswith("_") and inspect.isfunction(value):
                        names.append(f"{where}.{attr}")
    return sorted(set(names))


def _module_of(name: str) -> str:
    for module in PACKAGE_MODULES + LESSON_MODULES:
        if name.startswith(module + "."):
            return module
    raise KeyError(name)


# ------------------------------------------------------------------------- judging a call


def _is_finite(value: object, nan_ok: bool, depth: int = 0) -> str | None:
    """None when every number in ``value`` is finite, else what is not."""
    if depth > 6 or value is None or isinstance(value, (str, bytes, bool, np.bool_)):
        return None
    if isinstance(value, (np.ndarray, np.generic)):
        arr = np.asarray(value)
        if arr.dtype.kind in "fc":
            bad = np.isinf(arr) if nan_ok else ~np.isfinite(arr)
            return f"non-finite values in an array of shape {arr.shape}" if bad.any() else None
        if arr.dtype.kind == "O":
            return next((p for v in arr.ravel() if (p := _is_finite(v, nan_ok, depth + 1))), None)
        return None
    if isinstance(value, numbers.Number):
        if isinstance(value, complex):
            return f"a complex result {value!r}"
        number = float(value)
        ok = math.isfinite(number) or (nan_ok and math.isnan(number))
        return None if ok else f"the result {number!r}"
    if isinstance(value, Mapping):
        items = list(value.values())
    elif isinstance(value, (list, tuple)):
        items = list(value)
    elif dataclasses.is_dataclass(value):
        items = [
            getattr(value, f.name) for f in dataclasses.fields(value) if not f.name.startswith("_")
        ]
    elif callable(value):
        return None
    else:
        items = (
            [v for k, v in vars(value).items() if not k.startswith("_")]
            if hasattr(value, "__dict__")
            else []
        )
    return next((p for v in items if (p := _is_finite(v, nan_ok, depth + 1))), None)


def _names(message: str, name: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", message) is not None


class _Timeout(BaseException):
    """The call used more than TIME_BUDGET of CPU time (raised by the worker's CPU timer)."""


OVER_BUDGET = f"used more than the time budget of {TIME_BUDGET:g} s of CPU"


class CallCounter:
    """Count the function calls (Python and C) made inside a ``with`` block: its work.

    Examples
    --------
    >>> with CallCounter() as counted:
    ...     _ = [abs(x) for x in range(10)]
    >>> counted.calls >= 10
    True
    """

    def __init__(self) -> None:
        self.calls = 0
        self._outer = None

    def _profile(self, frame, event, arg) -> None:
        """Count one call."""
        if event in ("call", "c_call"):
            self.calls += 1

    def __enter__(self) -> CallCounter:
        self._outer = sys.getprofile()
        sys.setprofile(self._profile)
        return self

    def __exit__(self, *exc) -> None:
        sys.setprofile(self._outer)


def _judge(case: Case, name: str | None, label: str, parameter, call: Callable) -> str | None:
    """Run ``call``; None if it behaved, else what went wrong."""
    from pe_helpers.grading import Feedback

    counted = CallCounter()
    try:
        with counted:
            result = call()
    except _Timeout:
        return OVER_BUDGET
    except Exception as exc:  # noqa: BLE001 - every other exception is a finding
        text = f"{type(exc).__name__}: {exc}"[:240]
        if name is None:
            return f"the right call raised {text}"
        if case.checker:
            return f"a checker raised {text}"
        if type(exc) not in (TypeError, ValueError):
            return f"raised {text}"
        if not _names(str(exc), name):
            return f"the message does not name {name!r}: {text}"
        if counted.calls > REFUSAL_CALLS:
            return f"made {counted.calls} calls before refusing ({text})"
        return None
    if case.checker:
        if not isinstance(result, Feedback):
            return f"a checker returned {type(result).__name__}, not Feedback"
        text = f"{result.message} {result.hint}"
        if "object at 0x" in text or "Attempt" in text:
            return f"the feedback leaks an object: {result.message[:160]}"
        if name is not None and result.status == "correct":
            return "a bad answer was graded correct"
        if name is None and result.status != "correct":
            return f"the right answer was graded {result.status}: {result.message[:160]}"
        return None
    shown = case.unmasked(result) if case.unmasked is not None else result
    problem = _is_finite(shown, case.nan_ok)
    if problem:
        return f"returned {problem}" if name else f"the right call returned {problem}"
    if name is not None and parameter is not None and label in NEVER_VALID:
        if not _annotation_allows(parameter, label):
            return "accepted it (the call returned instead of refusing)"
    return None


def _arguments(case: Case, target: Callable) -> list[tuple[str, inspect.Parameter | None, str]]:
    """The arguments a case replaces, each with its parameter and its place ('arg0', 'kw')."""
    signature = inspect.signature(target)
    bound = signature.bind_partial(*case.args, **case.kwargs)
    places = []
    for index, (pname, parameter) in enumerate(signature.parameters.items()):
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if pname.startswith("_") or pname in case.ignore:
            continue
        given_positionally = index < len(case.args)
        places.append((pname, parameter, f"arg{index}" if given_positionally else "kw"))
    named = {p for p, _, _ in places}
    var_kw = any(p.kind == p.VAR_KEYWORD for p in signature.parameters.values())
    if var_kw:
        for key in case.kwargs:
            if key not in named and key not in bound.signature.parameters:
                places.append((key, None, "kw"))
    return places


def _replaced(case: Case, place: str, pname: str, value: object) -> tuple[tuple, dict]:
    args, kwargs = list(case.args), dict(case.kwargs)
    if place.startswith("arg"):
        args[int(place[3:])] = value
    else:
        kwargs[pname] = value
    return tuple(args), kwargs


def tasks_for(module: str) -> list[tuple[str, int, str, str, str]]:
    """Every call to make for the callables of ``module``: (name, case, argument, key, value)."""
    found = []
    for name, cases in sorted(CASES.items()):
        if _module_of(name) != module:
            continue
        for index, case in enumerate(cases):
            found.append((name, index, "", "", ""))
            target = case.call()
            for pname, _, _ in _arguments(case, target):
                labels = list(BAD) + list(case.extra.get(pname, {}))
                found += [(name, index, pname, "", label) for label in labels]
                for key in case.keys.get(pname, ()):
                    found += [(name, index, pname, key, label) for label in BAD]
    return found


def run_task(task: tuple[str, int, str, str, str]) -> str | None:
    """Make one call of :func:`tasks_for`; None if it behaved, else the finding."""
    name, index, pname, key, label = task
    if name == "example":
        return run_example(index)
    case = CASES[name][index]
    target = case.call()
    if not pname:
        return _judge(case, None, "", None, lambda: target(*case.args, **case.kwargs))
    places = {p: (parameter, place) for p, parameter, place in _arguments(case, target)}
    parameter, place = places[pname]
    factory = case.extra.get(pname, {}).get(label) or BAD[label]
    value = factory()
    if key:
        mapping = dict(case.args[int(place[3:])] if place.startswith("arg") else case.kwargs[pname])
        mapping[key] = value
        args, kwargs = _replaced(case, place, pname, mapping)
        # the message must name the key (rope_parameters['factor'] or factor)
        return _judge(case, key, label, None, lambda: target(*args, **kwargs))
    args, kwargs = _replaced(case, place, pname, value)
    return _judge(case, pname, label, parameter, lambda: target(*args, **kwargs))


CASES = _cases()


# ------------------------------------------------------------ the issue's examples


def issue_examples() -> list[tuple[Callable[[], object], str]]:
    """Each example call of issue 32, and a regular expression its refusal must match."""
    from pe_helpers.biases import alibi_bias, alibi_slopes
    from pe_helpers.conventions import identify_rope
    from pe_helpers.lessons.frequency_choice import running_min_distance
    from pe_helpers.lessons.long_context import method_frequencies
    from pe_helpers.lessons.rope_today import position_scores
    from pe_helpers.model import ModelConfig, gradient_check, init_params
    from pe_helpers.rope import apply_rope
    from pe_helpers.rope_configs import model_rope_config
    from pe_helpers.rope_scaling import (
        classify_pairs,
        default_frequencies,
        interpolation_weights,
        ntk_aware_base,
        pair_wavelengths,
        rope_frequencies,
        yarn_correction_dim,
    )
    from pe_helpers.tasks import copy_back, order_blind_accuracy
    from pe_helpers.training import TrainedModel, train

    llama3 = model_rope_config("llama-3.1-8b").rope_parameters
    config = ModelConfig("rope_adjacent", vocab_size=4, d_model=4, n_heads=1)
    budget = "the budget is 1 GiB per call"
    return [
        (lambda: default_frequencies(10000.0, 10**9), "dim must be at most 65536"),
        (
            lambda: alibi_slopes(10**9),
            f"n_heads = 1000000000 would need about 44.7 GiB.*{budget}",
        ),
        (lambda: alibi_bias(5, 10**9), f"n_heads = 1000000000 would need.*{budget}"),
        (
            lambda: interpolation_weights({"rope_type": "linear", "factor": 2.0}, 10**9),
            "head_dim must be at most 65536 .*1 GiB of memory and 5 s",
        ),
        (lambda: rope_frequencies(llama3, 10**9), "head_dim must be at most 65536"),
        (lambda: classify_pairs(llama3, 10**9), "head_dim must be at most 65536"),
        (lambda: rope_frequencies(YARN, 10**9), "head_dim must be at most 65536"),
        (lambda: train(steps=10**9), "steps = 1000000000.*the budget is 60 s per call"),
        (lambda: train(length=10**9), "length = 1000000000 would take about"),
        (lambda: train(batch_size=10**9), "batch_size = 1000000000 .*would take about"),
        (lambda: train(vocab_size=10**9), f"vocab_size = 1000000000.*{budget}"),
        (lambda: train(method="learned", max_len=10**9), f"max_len = 1000000000.*{budget}"),
        (lambda: copy_back(10**9, 16, 16), f"batch_size = 1000000000 .*{budget}"),
        (lambda: gradient_check(config, batch_size=10**9), "batch_size = 1000000000.*5 s"),
        (lambda: gradient_check(config, length=10**9), "length = 1000000000.*5 s"),
        (
            lambda: order_blind_accuracy("copy_back", 4, 10**9),
            f"vocab_size = 1000000000 would need about 291 TiB.*{budget}",
        ),
        (
            lambda: yarn_correction_dim(32, float("nan"), 10000.0, 4096),
            "dim must be an int, got nan",
        ),
        (lambda: yarn_correction_dim(32, None, 10000.0, 4096), "dim must be an int, got None"),
        (
            lambda: pair_wavelengths(np.array(["3.14", "6.28"])),
            "inv_freq must be an array of real numbers",
        ),
        (lambda: ntk_aware_base(10000.0, 128, 1e300), "factor = 1e\\+300 give a base of about"),
        (lambda: train(lr=1e300), "lr must be at most 10"),
        (lambda: train("copy_back", np.array([])), "method must be one of"),
        (
            lambda: position_scores(lambda x, t: x.sum(), [1.0, 0.0], [1.0, 0.0], [0, 1]),
            "rotate must return an array of x's shape \\(2, 2\\)",
        ),
        (
            lambda: method_frequencies("NTK-aware", 4, 2.0, 16, beta_fast="abc", beta_slow=None),
            "beta_fast must be a real number, got 'abc'",
        ),
        (
            lambda: identify_rope(lambda x, t: apply_rope(x, t), 8, expected_base=1e-300),
            "expected_base must lie in \\(1, 1e\\+15\\]",
        ),
        (lambda: TrainedModel(None, None, None, None, None), "config must be a ModelConfig"),
        (
            lambda: TrainedModel(config, init_params(config), "copy_back", 6, [np.nan]),
            "losses must be finite",
        ),
        (
            lambda: running_min_distance(np.zeros((40_000, 20))),
            "the limit is MAX_DISTANCE_WORK",
        ),
    ]


def run_example(index: int) -> str | None:
    """Make example ``index`` of :func:`issue_examples`; None if it is refused as it must be."""
    call, message = issue_examples()[index]
    counted = CallCounter()
    try:
        with counted:
            call()
    except (TypeError, ValueError) as exc:
        if not re.search(message, str(exc)):
            return f"refused, but the message {str(exc)[:200]!r} does not match {message!r}"
        if counted.calls > REFUSAL_CALLS:
            return f"made {counted.calls} calls before refusing"
        return None
    except Exception as exc:  # noqa: BLE001 - a finding
        return f"raised {type(exc).__name__}: {exc}"[:240]
    return "accepted it"


# ------------------------------------------------------------------------------ the worker


def _address_space() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _on_alarm(*_):
    raise _Timeout


def worker() -> None:
    """Read tasks (JSON lines) from stdin; write one JSON line of findings per task."""
    for module in LESSON_MODULES:
        importlib.import_module(module)
    warnings.simplefilter(
        "error"
    )  # as under pytest (filterwarnings = error): a warning is a finding
    signal.signal(signal.SIGPROF, _on_alarm)  # CPU time of this process: its work, not the load
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    for line in sys.stdin:
        task = tuple(json.loads(line))
        # within the budget from what the worker already holds: a bigger allocation fails
        limit = _address_space() + ADDRESS_SLACK
        resource.setrlimit(resource.RLIMIT_AS, (min(limit, hard) if hard > 0 else limit, hard))
        signal.setitimer(signal.ITIMER_PROF, TIME_BUDGET + 1.0)
        try:
            finding = run_task(task)
        except _Timeout:
            finding = OVER_BUDGET
        except BaseException as exc:  # noqa: BLE001 - the harness itself must not die
            finding = f"the harness failed: {type(exc).__name__}: {exc}"[:300]
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
            resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
        sys.stdout.write(json.dumps(finding) + "\n")
        sys.stdout.flush()


class Worker:
    """The worker process, restarted after a kill (a hang in C code, a crash)."""

    def __init__(self) -> None:
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", MPLBACKEND="Agg")
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process.stdin.close()
            self.process.stdout.close()
            self.process = None

    def run(self, tasks: list[tuple]) -> list[tuple[tuple, str]]:
        """Every task's finding (None ones left out); a killed worker's task is a finding."""
        findings = []
        for task in tasks:
            if self.process is None:
                self.start()
            self.process.stdin.write(json.dumps(task) + "\n")
            self.process.stdin.flush()
            # the worker's CPU timer stops a long call; this only catches a dead or hung worker
            ready, _, _ = select.select([self.process.stdout], [], [], WORKER_WAIT)
            line = self.process.stdout.readline() if ready else ""
            if not line:
                findings.append((task, f"killed: no answer in {WORKER_WAIT:g} s, or a crash"))
                self.stop()
                continue
            finding = json.loads(line)
            if finding:
                findings.append((task, finding))
        return findings


# ------------------------------------------------------------------------------- the tests

if __name__ != "__main__":
    import pytest

    @pytest.fixture(scope="module")
    def worker_process():
        process = Worker()
        yield process
        process.stop()

    def test_every_public_callable_has_a_case():
        public = set(public_callables())
        missing = sorted(public - set(CASES) - set(RECORDS) - set(TRAINERS))
        assert not missing, f"no fuzz case for {missing}: add one to _cases() (or to RECORDS)"
        stale = sorted((set(CASES) | set(RECORDS) | set(TRAINERS)) - public)
        assert not stale, f"cases for names that are not public: {stale}"

    @pytest.mark.parametrize("name", sorted(TRAINERS))
    def test_a_full_size_trainer_refuses_bad_input_at_once(name):
        module, _, attribute = name.rpartition(".")
        trainer = getattr(importlib.import_module(module), attribute)
        right = TRAINERS[name]
        for argument in right:
            for bad in TRAINER_BAD[argument]:
                called = {**right, argument: bad}
                method = called.pop("method")
                with (
                    CallCounter() as counted,
                    pytest.raises((TypeError, ValueError), match=argument) as refused,
                ):
                    trainer(method, **called)
                assert type(refused.value) in (TypeError, ValueError), (argument, bad)
                assert counted.calls <= REFUSAL_CALLS, (argument, bad, counted.calls)

    @pytest.mark.parametrize("module", PACKAGE_MODULES + LESSON_MODULES)
    def test_bad_input_gets_a_clear_error_or_a_finite_answer(module, worker_process):
        tasks = tasks_for(module)
        findings = worker_process.run(tasks)
        lines = [
            f"{name}[{index}] {arg}{f'[{key!r}]' if key else ''}={label}: {finding}"
            for (name, index, arg, key, label), finding in findings
        ]
        shown = "\n".join(lines[:40])
        more = f"\n... and {len(lines) - 40} more" if len(lines) > 40 else ""
        assert not lines, f"{len(lines)} of {len(tasks)} calls misbehaved:\n{shown}{more}"

    def test_each_example_of_the_issue_is_refused_at_once_naming_the_argument(worker_process):
        # in the worker too: a regression here allocates gigabytes, which must fail, not kill
        tasks = [("example", index, "", "", "") for index in range(len(issue_examples()))]
        findings = worker_process.run(tasks)
        lines = [f"example {index}: {finding}" for (_, index, *_), finding in findings]
        assert not lines, "\n".join(lines)

    def test_a_diverging_run_stops_and_names_lr(monkeypatch):
        from pe_helpers import training

        real = training._loss_and_grads
        calls = []

        def blows_up(*args, **kwargs):
            loss, grads = real(*args, **kwargs)
            calls.append(loss)
            return (float("nan") if len(calls) == 2 else loss), grads

        monkeypatch.setattr(training, "_loss_and_grads", blows_up)
        with pytest.raises(
            ValueError, match=r"diverged at step 2 of 5 \(the loss is nan\): lr = 0\.5"
        ):
            training.train("copy_back", "none", length=6, vocab_size=4, steps=5, lr=0.5)

    def test_adam_step_checks_its_arrays_and_refuses_a_non_finite_step():
        from pe_helpers.training import Adam

        params = {"w": np.ones(3)}
        with pytest.raises(ValueError, match=r"grads\['w'\] must have the shape of params"):
            Adam().step(params, {"w": np.ones(2)})
        with pytest.raises(ValueError, match=r"grads\['v'\] has no parameter"):
            Adam().step(params, {"v": np.ones(3)})
        with pytest.raises(TypeError, match=r"params\['w'\] must be a float64 array"):
            Adam().step({"w": [1.0]}, {"w": np.ones(1)})
        Adam(lr=0.5).step(params, {"w": np.array([1.0, -1.0, 0.0])})
        np.testing.assert_allclose(params["w"], [0.5, 1.5, 1.0], rtol=1e-7)  # lr per entry

    # ------------------------------------------- checkers: a value or a function giving it

    def _value_checkers():
        from pe_helpers.lessons.long_context import check_yarn_engines
        from pe_helpers.lessons.position_methods import check_method_names
        from pe_helpers.lessons.rope_today import check_mla_cache
        from pe_helpers.lessons.train_it import check_nope_prediction, check_prefix_prediction

        return {
            "check_nope_prediction": (check_nope_prediction, 15, 40),
            "check_prefix_prediction": (check_prefix_prediction, "same", "lower"),
            "check_method_names": (
                check_method_names,
                ["T5", "learned", "RoPE", "ALiBi"],
                ["RoPE", "learned", "T5", "ALiBi"],
            ),
            "check_mla_cache": (check_mla_cache, 576, 512),
            "check_yarn_engines": (
                check_yarn_engines,
                {"A": "doubled", "B": "right", "C": "missing"},
                {"A": "right", "B": "right", "C": "missing"},
            ),
        }

    @pytest.mark.parametrize("name", ["check_nope_prediction", "check_prefix_prediction",
                                      "check_method_names", "check_mla_cache",
                                      "check_yarn_engines"])  # fmt: skip
    def test_value_checkers_take_a_function_with_no_arguments_and_leak_no_object(name):
        check, right, wrong = _value_checkers()[name]
        assert check(right).status == "correct"
        assert check(lambda: right).status == "correct"
        assert check(lambda: wrong).status == "wrong"
        assert check(lambda: None).status == "todo"
        for odd in (object(), lambda: object(), lambda x: right):
            feedback = check(odd)
            assert feedback.status == "wrong"
            text = feedback.message + feedback.hint
            assert "object at 0x" not in text and "Attempt" not in text, text

    def test_check_snippet_gives_feedback_for_any_letter():
        from pe_helpers.lessons.conventions_and_numerics import check_snippet
        from pe_helpers.rope import apply_rope

        right = lambda x, t, base: apply_rope(x, t, base)  # noqa: E731
        assert check_snippet("a", right).status == "correct"
        assert check_snippet(" A ", right).status == "correct"
        for letter in ("D", None, "", 3, object()):
            feedback = check_snippet(letter, right)
            assert feedback.status == "wrong"
            assert "letter must be 'A', 'B' or 'C'" in feedback.message
            assert "object at 0x" not in feedback.message

    def test_a_learners_number_keeps_its_precision():
        from pe_helpers.grading import as_number, close

        third = as_number(np.float32(1 / 3), keep_dtype=True)
        assert third.dtype == np.float32 and close(third, 1 / 3)
        assert as_number(np.array([0.25], dtype=np.float16), keep_dtype=True).dtype == np.float16
        assert type(as_number(2, keep_dtype=True)) is np.float64
        assert type(as_number(np.float32(2.0))) is float


if __name__ == "__main__" and sys.argv[1:] == ["--worker"]:
    worker()
