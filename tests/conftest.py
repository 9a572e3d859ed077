"""Tests draw with the non-interactive Agg backend (figures are closed by ../conftest.py)."""

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")
# The unit tests check the shipped results (pe_helpers/data/seeds): a PE_SEED_RESULTS left set in
# the shell (results over other seeds, for the lessons to read) must not stand in for them.
os.environ.pop("PE_SEED_RESULTS", None)

# tests/crosscheck needs the crosscheck extra (transformers, torch). Plain `pytest` (`make test`)
# leaves the folder out, so it never imports torch; `make crosscheck` runs it by path.
collect_ignore = ["crosscheck"]

ROOT = Path(__file__).resolve().parent.parent
# The course's scripts (build_site, navigation, oldest_requirements) import as modules in tests.
sys.path.insert(0, str(ROOT / "scripts"))


@pytest.fixture
def course_after_lab(tmp_path: Path) -> Path:
    """A copy of the course as `make lab` leaves it: every notebook and doc has a checkpoint.

    JupyterLab copies each file it opens into ``.ipynb_checkpoints`` beside it. These copies
    are older than the files (here: their links point one folder too deep, as a checkpoint's
    do, and the notebooks record other CPU kernels). ``notebooks/`` and ``docs/`` are copied,
    everything else at the top is linked.
    """
    course = tmp_path / "course"
    course.mkdir()
    for entry in ROOT.iterdir():
        if entry.name in ("notebooks", "docs"):
            shutil.copytree(entry, course / entry.name, ignore=shutil.ignore_patterns(".*"))
        elif not entry.name.startswith("."):
            (course / entry.name).symlink_to(entry)
    originals = [*course.glob("notebooks/**/*.ipynb"), *course.glob("docs/*.md")]
    for path in originals:
        checkpoint = path.parent / ".ipynb_checkpoints" / f"{path.stem}-checkpoint{path.suffix}"
        checkpoint.parent.mkdir(exist_ok=True)
        if path.suffix == ".ipynb":
            notebook = json.loads(path.read_text(encoding="utf-8"))
            notebook["metadata"].setdefault("pe_helpers", {})["cpu_kernels"] = {"other": "cpu"}
            checkpoint.write_text(json.dumps(notebook), encoding="utf-8")
        else:
            shutil.copyfile(path, checkpoint)
    assert len(originals) > 20
    return course
