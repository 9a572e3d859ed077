"""The version handshake: one version, recorded with the code it names, required by notebooks.

A hub updates its notebooks (nbgitpuller) without reinstalling the package, so each notebook's
set-up lines ``require`` the version they were written against, and the version moves with
every change of the package (``make version`` records it). These tests run a real notebook's
set-up lines against copies of the package that claim an older version.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

import pe_helpers
from pe_helpers import OutdatedCourseError, require

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import navigation  # noqa: E402
import record_version  # noqa: E402

sys.path.pop(0)

VERSION = pe_helpers.__version__


def test_require_passes_this_version_and_older_ones_and_refuses_a_newer_one():
    assert require(VERSION) is None and require("0.1") is None
    with pytest.raises(OutdatedCourseError, match=re.escape(f"has {VERSION}")) as refused:
        require("99.0.0")
    assert "\n" not in str(refused.value) and "make lab" in str(refused.value)
    assert isinstance(refused.value, ImportError)


@pytest.mark.parametrize(
    ("version", "error"),
    [(2, TypeError), (None, TypeError), ("", ValueError), ("v0.2.0", ValueError),
     ("0.2.0rc1", ValueError), ("9" * 10**5, ValueError)],
)  # fmt: skip
def test_require_refuses_what_is_not_a_version(version, error):
    with pytest.raises(error, match=r"\bversion\b"):
        require(version)


def test_the_version_lives_once():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    dynamic = project["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "pe_helpers.__version__"}
    assert record_version.version_of() == VERSION
    assert f'pe_helpers.require("{VERSION}", language="en")' in navigation.GUARD
    assert f'pe_helpers.require("{VERSION}", language="zh")' in navigation.ZH_GUARD


def test_the_package_has_not_changed_since_its_recorded_version():
    assert record_version.stale() is None, record_version.stale()


def _copy_package(tmp_path: Path, version: str) -> Path:
    """A copy of the package in ``tmp_path/pe_helpers`` whose ``__version__`` is ``version``."""
    copy = tmp_path / "pe_helpers"
    shutil.copytree(ROOT / "pe_helpers", copy, ignore=shutil.ignore_patterns("__pycache__"))
    init = copy / "__init__.py"
    text = init.read_text(encoding="utf-8").replace(
        f'__version__ = "{VERSION}"', f'__version__ = "{version}"'
    )
    init.write_text(text, encoding="utf-8")
    return copy


def test_a_change_without_a_bump_fails_and_make_version_records_a_bump(tmp_path):
    copy = _copy_package(tmp_path, VERSION)
    assert record_version.stale(copy) is None
    module = copy / "encodings.py"
    module.write_bytes(module.read_bytes().replace(b"\n", b"\r\n"))  # line endings only
    assert record_version.stale(copy) is None
    module.write_text(module.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    changed = f"package code changed since {VERSION}: bump __version__ and run `make version`"
    assert record_version.stale(copy) == changed
    with pytest.raises(SystemExit, match="bump __version__"):
        record_version.record(copy)  # no bump: nothing is recorded
    init = copy / "__init__.py"
    bumped = init.read_text(encoding="utf-8").replace(VERSION, "99.0.0")
    init.write_text(bumped, encoding="utf-8")
    assert "run `make version`" in record_version.stale(copy)
    assert record_version.record(copy) == "recorded pe_helpers 99.0.0"
    assert record_version.stale(copy) is None
    init.write_text(bumped.replace("99.0.0", VERSION), encoding="utf-8")
    assert "older than the recorded 99.0.0" in record_version.stale(copy)


def test_navigation_rewrites_a_set_up_line_that_states_another_version():
    nb = nbformat.read(ROOT / "notebooks" / "01_why_position.ipynb", as_version=4)
    current = navigation.with_guard(nb)
    stale = nbformat.from_dict(current)
    first = next(c for c in stale.cells if c.cell_type == "code")
    first.source = first.source.replace(f'require("{VERSION}"', 'require("0.1.0"')
    assert not navigation._same(stale, current)
    assert navigation._same(navigation.with_guard(stale), current)


def _set_up_cell(tmp_path: Path) -> Path:
    """Lesson 01's first code cell, as `make nav` writes it, in a script of its own."""
    nb = navigation.with_guard(nbformat.read(ROOT / "notebooks" / "01_why_position.ipynb", 4))
    script = tmp_path / "cell.py"
    script.write_text(next(c for c in nb.cells if c.cell_type == "code").source + "\n")
    return script


def _run(script: Path, package_folder: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(package_folder), MPLBACKEND="Agg")
    return subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120
    )


def test_an_older_package_stops_the_set_up_line_with_one_line_saying_what_to_run(tmp_path):
    older = _copy_package(tmp_path / "older", "0.1.9")
    result = _run(_set_up_cell(tmp_path), older.parent)
    assert result.returncode == 1
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(
        f"pe_helpers.OutdatedCourseError: This lesson needs pe_helpers >= {VERSION} "
        "but this kernel has 0.1.9: "
    ), result.stderr
    assert "admin to reinstall the course" in last and "`make lab`" in last
    # The current package runs the same cell through.
    current = _run(_set_up_cell(tmp_path), ROOT)
    assert current.returncode == 0, current.stderr


def test_a_package_from_before_the_handshake_fails_on_the_line_that_says_what_to_do(tmp_path):
    # 0.1.0 had no `require`: the traceback shows the set-up line, whose comment says it.
    old = _copy_package(tmp_path / "old", "0.1.0")
    init = old / "__init__.py"
    init.write_text(init.read_text(encoding="utf-8") + "\ndel require\n", encoding="utf-8")
    result = _run(_set_up_cell(tmp_path), old.parent)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert lines[-1] == "AttributeError: module 'pe_helpers' has no attribute 'require'"
    shown = navigation.GUARD.splitlines()[-1]
    assert shown in [line.strip() for line in lines] and "reinstall the course" in shown


def test_in_a_kernel_the_traceback_is_the_one_line_message(tmp_path, monkeypatch):
    from nbclient import NotebookClient

    older = _copy_package(tmp_path / "older", "0.1.9")
    monkeypatch.setenv("PYTHONPATH", str(older.parent))
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(_set_up_cell(tmp_path).read_text())]
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True).execute()
    (error,) = [o for o in nb.cells[0].outputs if o["output_type"] == "error"]
    assert error["ename"] == "OutdatedCourseError" and "\n" not in error["evalue"]
    assert error["traceback"] == [f"OutdatedCourseError: {error['evalue']}"]
    assert "has 0.1.9" in error["evalue"]
