"""Benchmark: sinusoidal_pe at 4096 positions x 1024 dims vs np.sin over as many angles.

Prints ``name: value (ratio to floor)`` lines; the floor is measured in the same run.
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np

from pe_helpers import frequencies, sinusoidal_pe

N_POSITIONS, D_MODEL, REPEATS = 4096, 1024, 31


def interleaved_medians(first, second, repeats: int = REPEATS) -> tuple[float, float]:
    """Median seconds of two functions, timed in alternation so both see the same machine."""
    first(), second()
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeats):
        for function, bucket in ((first, times[0]), (second, times[1])):
            start = time.perf_counter()
            function()
            bucket.append(time.perf_counter() - start)
    return float(np.median(times[0])), float(np.median(times[1]))


def peak_bytes(function) -> int:
    tracemalloc.start()
    function()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def main() -> None:
    # The same angles the encoding needs, each twice (once for sin, once for cos).
    pair_angles = np.multiply.outer(np.arange(N_POSITIONS, dtype=float), frequencies(D_MODEL))
    angles = np.repeat(pair_angles, 2, axis=1)
    floor, ours = interleaved_medians(
        lambda: np.sin(angles), lambda: sinusoidal_pe(N_POSITIONS, D_MODEL)
    )
    result_mb = N_POSITIONS * D_MODEL * 8 / 2**20
    floor_peak = peak_bytes(lambda: np.sin(angles)) / 2**20
    ours_peak = peak_bytes(lambda: sinusoidal_pe(N_POSITIONS, D_MODEL)) / 2**20
    print(f"np.sin floor ({N_POSITIONS}x{D_MODEL} angles): {floor * 1e3:.1f} ms (1.00x)")
    print(f"sinusoidal_pe {N_POSITIONS}x{D_MODEL}: {ours * 1e3:.1f} ms ({ours / floor:.2f}x floor)")
    print(
        f"sinusoidal_pe peak memory: {ours_peak:.1f} MiB ({ours_peak / result_mb:.2f}x the "
        f"{result_mb:.0f} MiB result; np.sin floor {floor_peak:.1f} MiB)"
    )


if __name__ == "__main__":
    main()
