"""Train every model whose number a lesson states, over the seeds, and write the results.

Usage: python scripts/experiments.py [SLUG ...] [--seeds N]

With no slug, every lesson whose home defines ``SEED_EXPERIMENTS`` is run (``make
experiments``). Each writes ``pe_helpers/data/seeds/<slug>.json``, which the lesson's notebook
reads. A progress bar on stderr shows the group and seed being trained.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time

from pe_helpers.lessons import lessons
from pe_helpers.seeds import SEEDS, run_experiments, write_results


def lessons_with_experiments() -> dict[str, dict]:
    """slug -> the SEED_EXPERIMENTS of every lesson home that defines them, in lesson order."""
    found = {}
    for lesson in lessons():
        if lesson.module:
            experiments = getattr(importlib.import_module(lesson.module), "SEED_EXPERIMENTS", None)
            if experiments:
                found[lesson.slug] = experiments
    return found


class ProgressBar:
    """A one-line text progress bar: done/total, elapsed time, what runs now."""

    def __init__(self, title: str, width: int = 30) -> None:
        self.title, self.width, self.start = title, width, time.perf_counter()

    def __call__(self, done: int, total: int, label: str) -> None:
        filled = round(self.width * done / total)
        elapsed = time.perf_counter() - self.start
        bar = "#" * filled + "-" * (self.width - filled)
        end = "\n" if done == total else ""
        print(
            f"\r{self.title:18s} [{bar}] {done:3d}/{total} {elapsed:6.0f} s  {label:28s}",
            end=end,
            file=sys.stderr,
            flush=True,
        )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slugs", nargs="*", help="lessons to run (default: all)")
    parser.add_argument(
        "--seeds",
        type=int,
        default=len(SEEDS),
        help=f"number of seeds, from 0 (default {len(SEEDS)})",
    )
    args = parser.parse_args(argv)
    available = lessons_with_experiments()
    unknown = sorted(set(args.slugs) - set(available))
    if unknown:
        parser.error(f"no experiments for {unknown}; lessons with experiments: {sorted(available)}")
    if args.seeds < 1:
        parser.error(f"--seeds must be at least 1, got {args.seeds}")
    seeds = list(range(args.seeds))
    start = time.perf_counter()
    for slug in args.slugs or list(available):
        values, seconds = run_experiments(available[slug], seeds, progress=ProgressBar(slug))
        path = write_results(slug, seeds, values, seconds)
        print(f"{slug}: {len(values)} metrics over {len(seeds)} seeds -> {path}")
    print(f"all done in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
