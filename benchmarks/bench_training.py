"""Benchmark: training the lesson 08 model vs the same number of forward passes alone.

One model per position method, with ``train``'s defaults (copy-back k=2, length 16, vocab 16,
d_model 32, 2 heads, 200 Adam steps of 16 sequences). The floor replays the same 200 batches
through the forward pass only: a training step adds the loss, the hand-written backward pass
and Adam. Prints ``name: value (ratio to floor)``; medians of interleaved runs.
"""

from __future__ import annotations

import time

import numpy as np

from pe_helpers.model import METHODS, ModelConfig, Tables, forward_pass, init_params
from pe_helpers.tasks import make_task, task_batch
from pe_helpers.training import train

TASK, LENGTH, VOCAB, STEPS, BATCH, REPEATS = make_task("copy_back", 2), 16, 16, 200, 16, 3


def forward_floor(method: str) -> float:
    """Seconds for STEPS forward passes over the batches ``train`` would draw."""
    options = {"max_len": LENGTH} if method == "learned" else {}
    config = ModelConfig(method, VOCAB, **options)
    params = init_params(config)
    data = task_batch(TASK, STEPS * BATCH, LENGTH, VOCAB, seed=1)
    start = time.perf_counter()
    tables = Tables(config, LENGTH)
    for step in range(STEPS):
        forward_pass(params, config, data.tokens[step * BATCH : (step + 1) * BATCH], tables)
    return time.perf_counter() - start


def training(method: str) -> float:
    start = time.perf_counter()
    train(TASK, method, length=LENGTH, vocab_size=VOCAB, steps=STEPS, batch_size=BATCH)
    return time.perf_counter() - start


def main() -> None:
    for method in METHODS:
        floors, trains = [], []
        forward_floor(method)  # warm up
        for _ in range(REPEATS):
            floors.append(forward_floor(method))
            trains.append(training(method))
        floor, ours = float(np.median(floors)), float(np.median(trains))
        print(f"{method} floor ({STEPS} forward passes): {floor * 1e3:.0f} ms (1.00x)")
        ratio = ours / floor
        print(f"{method} train ({STEPS} Adam steps): {ours * 1e3:.0f} ms ({ratio:.2f}x floor)")


if __name__ == "__main__":
    main()
