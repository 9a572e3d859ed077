"""Train seed 0's models that lessons load instead of retraining, and write them.

Usage: python scripts/ship_models.py [SLUG ...]

With no slug, every lesson whose home defines ``SHIPPED_MODELS`` (``make models``). Each writes
``pe_helpers/data/models/<slug>.npz`` (:func:`pe_helpers.shipped_models.save_models`), with the
CPU kernels it trained under. It trains under the notebooks' CPU kernels where this CPU has them
(it starts itself again under theirs, as ``scripts/regen.py`` does), so a notebook that loads
the weights prints what one that trains them prints. ``tests/test_shipped_models.py`` trains
them again and compares bit for bit.
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
from pathlib import Path

import numpy as np

from pe_helpers.lessons import lessons_defining
from pe_helpers.seeds import cpu_kernels
from pe_helpers.shipped_models import MODELS_FOLDER, save_models

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_site import restart_under_notebook_kernels  # noqa: E402 - a sibling script

#: Set once this script runs under the notebooks' kernels, so it does not start again.
KERNELS_SET = "PE_SHIP_MODELS_NOTEBOOK_KERNELS"


def provenance() -> dict:
    """The commit, the versions and the CPU kernels the models are trained with."""
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=Path(__file__).parent
    ).stdout.strip()
    return {
        "command": "make models",
        "seed": 0,
        "commit": commit or "unknown",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "cpu_kernels": cpu_kernels(),
    }


def main(argv: list[str]) -> int:
    restart_under_notebook_kernels(
        str(Path(__file__).resolve()),
        argv,
        KERNELS_SET,
        "the models are trained with {here}; a notebook that loads them may print other "
        "last digits than one that trains them",
    )
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slugs", nargs="*", help="lessons to ship (default: all)")
    args = parser.parse_args(argv)
    available = {lesson.slug: recipes for lesson, recipes in lessons_defining("SHIPPED_MODELS")}
    unknown = sorted(set(args.slugs) - set(available))
    if unknown:
        parser.error(f"no SHIPPED_MODELS for {unknown}; lessons with them: {sorted(available)}")
    MODELS_FOLDER.mkdir(parents=True, exist_ok=True)
    for slug in args.slugs or list(available):
        models = {name: train() for name, train in available[slug].items()}
        path = MODELS_FOLDER / f"{slug}.npz"
        save_models(path, models, provenance())
        print(f"{slug}: {len(models)} models -> {path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
