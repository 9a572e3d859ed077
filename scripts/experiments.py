"""Train every model whose number a lesson states, over the seeds, and write the results.

Usage: python scripts/experiments.py [SLUG ...] [--seeds N] [--first-seed K] [--out DIR]
                                     [--replace-shipped]

With no slug, every lesson whose home defines ``SEED_EXPERIMENTS`` is run (``make
experiments``). A run over the shipped seeds (``pe_helpers.seeds.SEEDS``) writes
``pe_helpers/data/seeds/<slug>.json``, which the lesson's notebook reads. A run over other
seeds (``--seeds 2``, ``--first-seed 10 --seeds 20``) writes to ``build/seeds/`` (or ``--out
DIR``) and leaves the shipped results as they are, unless ``--replace-shipped`` says to replace
them; the lessons read such a folder when ``PE_SEED_RESULTS=DIR`` is set.

Each file is written whole or not at all (a temporary file, renamed over the old one). Ctrl-C
or SIGTERM stops the run: it says which lessons it wrote and which groups and seeds of the
lesson under way it finished (not written), and exits with status 130. A progress bar on
stderr shows the group and seed being trained.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import time
from pathlib import Path

from pe_helpers.lessons import lessons
from pe_helpers.seeds import (
    RESULTS_ENV,
    SEEDS,
    RunInterrupted,
    _is_shipped,
    _seed_text,
    results_destination,
    run_experiments,
    write_results,
)

ROOT = Path(__file__).resolve().parents[1]
#: Where results over other seeds than the shipped ones go by default.
SCRATCH = ROOT / "build" / "seeds"


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


def _shown(path: Path) -> str:
    """A path relative to the repository when it lies inside it."""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def _on_sigterm(signum: int, frame: object) -> None:
    """SIGTERM stops a run as Ctrl-C does: what finished is said, nothing partial is written."""
    raise KeyboardInterrupt


def _report_interruption(
    written: list[str], slug: str, during: str, lessons_left: list[str], out: Path
) -> None:
    """Say what an interrupted run wrote, what it had finished, and that nothing is partial."""
    print("", file=sys.stderr)  # leave the progress bar's line
    print(f"Interrupted: {during}.", file=sys.stderr)
    print(
        "Written: " + (", ".join(written) if written else "nothing") + f" (to {_shown(out)}).",
        file=sys.stderr,
    )
    print(
        f"{_shown(out / f'{slug}.json')} is as it was before this run"
        + (f"; not started: {', '.join(lessons_left)}." if lessons_left else "."),
        file=sys.stderr,
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slugs", nargs="*", help="lessons to run (default: all)")
    parser.add_argument(
        "--seeds",
        type=int,
        default=len(SEEDS),
        help=f"number of seeds (default {len(SEEDS)}, the shipped seeds)",
    )
    parser.add_argument("--first-seed", type=int, default=SEEDS[0], help="the first seed")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help="folder to write to (default: the shipped results for the shipped seeds, "
        f"{_shown(SCRATCH)} for others)",
    )
    parser.add_argument(
        "--replace-shipped",
        action="store_true",
        help="let results over other seeds than the shipped ones replace the shipped results",
    )
    args = parser.parse_args(argv)
    available = lessons_with_experiments()
    unknown = sorted(set(args.slugs) - set(available))
    if unknown:
        parser.error(f"no experiments for {unknown}; lessons with experiments: {sorted(available)}")
    if args.seeds < 1:
        parser.error(f"--seeds must be at least 1, got {args.seeds}")
    if args.first_seed < 0:
        parser.error(f"--first-seed must be at least 0, got {args.first_seed}")
    seeds = tuple(range(args.first_seed, args.first_seed + args.seeds))
    out = args.out
    if out is None:
        out = None if seeds == SEEDS or args.replace_shipped else SCRATCH
    try:  # checked before any training: a run over other seeds never replaces by accident
        out = results_destination(seeds, out, replace_shipped=args.replace_shipped)
    except ValueError as exc:
        parser.error(str(exc))
    shipped = _is_shipped(out)
    print(
        f"seeds {_seed_text(seeds)} -> {_shown(out)}"
        + (
            " (the shipped results)"
            if shipped
            else f" (the shipped results stay as they are; lessons read these with "
            f"{RESULTS_ENV}={_shown(out)})"
        ),
        file=sys.stderr,
    )
    todo = args.slugs or list(available)
    written: list[str] = []
    start = time.perf_counter()
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    slug, during = todo[0], ""
    try:
        for slug in todo:
            during = f"training {slug}"
            values, seconds = run_experiments(available[slug], seeds, progress=ProgressBar(slug))
            during = f"writing {slug} (it had finished every seed)"
            path = write_results(
                slug, seeds, values, seconds, out, replace_shipped=args.replace_shipped
            )
            written.append(slug)
            print(f"{slug}: {len(values)} metrics over {len(seeds)} seeds -> {_shown(path)}")
    except RunInterrupted as stop:
        _report_interruption(written, slug, f"{slug}: {stop}", todo[todo.index(slug) + 1 :], out)
        return 130
    except KeyboardInterrupt:
        _report_interruption(written, slug, during, todo[todo.index(slug) + 1 :], out)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
    print(f"all done in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    raise SystemExit(main(sys.argv[1:]))
