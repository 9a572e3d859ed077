"""The Makefile heals a broken .venv by itself (issue 18, item 17).

Each test copies the real Makefile and pyproject.toml into a temporary folder and runs
``make`` there against a fake Python: a shell script that logs every call, creates a
venv folder on ``-m venv``, answers ``-m pip`` and ``-c "import pip"`` (or fails like a
venv without pip when the venv holds a ``NO_PIP`` marker; ``-m ensurepip`` removes the
marker when ``FAKE_ENSUREPIP`` is set, and fails otherwise, as on Debian without
python3-venv) and installs fake ``ruff`` / ``jupyter`` / ``pytest`` on ``-m pip install``
(only those named in ``FAKE_TOOLS``, if set). Like pip, it installs only packages it does not
list as installed (``.venv/INSTALLED``): a tool deleted from ``bin/`` comes back only after
``-m pip uninstall`` of its package. So the recipes run for real, in milliseconds, with no
network and no real install.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAKE = shutil.which("make")
pytestmark = pytest.mark.skipif(MAKE is None, reason="make is not installed")

FAKE_PYTHON = textwrap.dedent(
    """\
    #!/usr/bin/env bash
    echo "$0 $*" >> "$FAKE_LOG"
    here="$(dirname "$0")"
    if [ "$1" = -m ] && [ "$2" = venv ]; then
        [ -e "$FAKE_VENV_FAILS" ] && { echo "ensurepip is not available" >&2; exit 1; }
        mkdir -p "$3/bin" && cp "$FAKE_PYTHON" "$3/bin/python" && exit 0
    fi
    if [ "$1" = -c ]; then
        case "$2" in *"import pip"*) [ -e "$here/NO_PIP" ] && exit 1;; esac
        exit 0
    fi
    if [ "$1" = -m ] && [ "$2" = ensurepip ]; then
        [ -n "$FAKE_ENSUREPIP" ] || { echo "No module named ensurepip" >&2; exit 1; }
        rm -f "$here/NO_PIP" && exit 0
    fi
    installed="$here/../INSTALLED"
    touch "$installed"
    if [ "$1" = -m ] && [ "$2" = pip ]; then
        if [ -e "$here/NO_PIP" ]; then echo "$0: No module named pip" >&2; exit 1; fi
        if [ "$3" = install ]; then
            for tool in ${FAKE_TOOLS:-ruff jupyter pytest}; do
                package=$tool; [ "$tool" = jupyter ] && package=jupyter-core
                grep -qx "$package" "$installed" && continue  # "Requirement already satisfied"
                printf '#!/bin/sh\\necho "%s $*" >> "$FAKE_LOG"\\n' "$tool" > "$here/$tool"
                chmod +x "$here/$tool"
                echo "$package" >> "$installed"
            done
        fi
        if [ "$3" = uninstall ]; then
            for package in "$@"; do :; done  # the last argument
            grep -vx "$package" "$installed" > "$installed.new"; mv "$installed.new" "$installed"
        fi
        exit 0
    fi
    exit 0
    """
)


@pytest.fixture
def project(tmp_path):
    """A folder with the real Makefile and pyproject.toml, and a fake system Python."""
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    fake = tmp_path / "fake-python3"
    fake.write_text(FAKE_PYTHON)
    fake.chmod(0o755)
    log = tmp_path / "calls.log"
    log.touch()
    env = dict(
        os.environ,
        FAKE_LOG=str(log),
        FAKE_PYTHON=str(fake),
        FAKE_VENV_FAILS=str(tmp_path / "VENV_FAILS"),
    )
    env.pop("MAKEFLAGS", None)

    def make(*targets: str, **extra_env: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [MAKE, "--no-print-directory", f"PYTHON={fake}", *targets],
            cwd=tmp_path,
            env={**env, **extra_env},
            capture_output=True,
            text=True,
            timeout=60,
        )

    return tmp_path, make, log


def _healthy_venv(folder: Path) -> None:
    """A .venv as `make setup` leaves it, its stamp newer than pyproject.toml."""
    bin_dir = folder / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    shutil.copy(folder / "fake-python3", bin_dir / "python")
    for tool in ("ruff", "jupyter", "pytest"):
        (bin_dir / tool).write_text('#!/bin/sh\necho "' + tool + ' $*" >> "$FAKE_LOG"\n')
        (bin_dir / tool).chmod(0o755)
    (folder / ".venv" / "INSTALLED").write_text("ruff\njupyter-core\npytest\n")
    stamp = folder / ".venv" / ".installed"
    stamp.touch()
    now = time.time()
    for path in [folder / "pyproject.toml", *bin_dir.iterdir()]:
        os.utime(path, (now - 100, now - 100))
    os.utime(stamp, (now - 50, now - 50))


@pytest.mark.parametrize("stamped", [False, True])
def test_a_venv_without_pip_and_no_ensurepip_is_rebuilt_not_a_dead_end(project, stamped):
    # Unstamped: what a `python3 -m venv` that failed at ensurepip leaves. Stamped: a set-up
    # venv whose pip went, on a Python without ensurepip (Debian without python3-venv).
    folder, make, log = project
    if stamped:
        _healthy_venv(folder)
    else:
        (folder / ".venv" / "bin").mkdir(parents=True)
        shutil.copy(folder / "fake-python3", folder / ".venv" / "bin" / "python")
    (folder / ".venv" / "bin" / "NO_PIP").touch()
    result = make("setup")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "No module named pip" not in result.stderr
    assert "rebuilding it" in result.stdout
    calls = log.read_text()
    assert "-m venv .venv" in calls
    assert "-m pip install --quiet -e .[test,hub]" in calls
    assert not (folder / ".venv" / "bin" / "NO_PIP").exists()
    assert (folder / ".venv" / ".installed").exists()


@pytest.mark.parametrize("target", ["setup", "lint"])
def test_a_stamped_venv_missing_ruff_gets_it_back_by_reinstalling_its_package(project, target):
    # Issue 32: `pip install -e .` finds ruff "already satisfied" and leaves bin/ruff missing.
    folder, make, log = project
    _healthy_venv(folder)
    (folder / ".venv" / "bin" / "ruff").unlink()
    result = make(target)
    assert result.returncode == 0, result.stdout + result.stderr
    assert ".venv/bin/ruff is missing: reinstalling ruff" in result.stdout
    calls = log.read_text().splitlines()
    uninstall = next(i for i, c in enumerate(calls) if "-m pip uninstall --quiet --yes ruff" in c)
    install = next(i for i, c in enumerate(calls) if "-m pip install --quiet -e" in c)
    assert uninstall < install
    if target == "lint":
        assert install < next(i for i, c in enumerate(calls) if c.startswith("ruff check"))
    assert (folder / ".venv" / "bin" / "ruff").exists()
    assert not any("jupyter-core" in c or "uninstall --quiet --yes pytest" in c for c in calls)
    assert not any("-m venv" in c for c in calls), "a venv with pip must be reused, not rebuilt"
    assert "still missing" not in result.stdout
    assert "Nothing to be done" in make("setup").stdout  # healed: nothing left to do


@pytest.mark.parametrize("target", ["setup", "lint"])
def test_a_stamped_venv_whose_pip_is_gone_gets_pip_back_before_anything_runs(project, target):
    # Issue 32: the stamp said "up to date", so `make setup` did nothing and `make test` died
    # at "No module named pip". ensurepip brings pip back; the installed packages stay.
    folder, make, log = project
    _healthy_venv(folder)
    (folder / ".venv" / "bin" / "NO_PIP").touch()
    result = make(target, FAKE_ENSUREPIP="1")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Nothing to be done" not in result.stdout
    assert ".venv has no working pip: restoring it (ensurepip)" in result.stdout
    calls = log.read_text().splitlines()
    assert any("-m ensurepip --upgrade" in c for c in calls)
    assert not any("-m venv" in c for c in calls), "ensurepip heals it: no rebuild"
    assert not (folder / ".venv" / "bin" / "NO_PIP").exists()
    install = next(i for i, c in enumerate(calls) if "-m pip install --quiet -e" in c)
    if target == "lint":
        assert install < next(i for i, c in enumerate(calls) if c.startswith("ruff check"))
    assert "Nothing to be done" in make("setup").stdout  # healed: the next make does nothing


@pytest.mark.parametrize("edited", [False, True])
def test_a_healthy_stamped_venv_is_reused_and_reinstalled_only_past_pyproject(project, edited):
    folder, make, log = project
    _healthy_venv(folder)
    if edited:
        (folder / "pyproject.toml").touch()
    result = make("lint")
    assert result.returncode == 0, result.stdout + result.stderr
    calls = log.read_text().splitlines()
    if edited:
        assert ".venv/bin/python -m pip install --quiet -e .[test,hub]" in calls
    else:
        probes = [c for c in calls if c == ".venv/bin/python -c import pip"]  # pip still there?
        assert len(probes) == 1
        assert [c for c in calls if c not in probes] == ["ruff check .", "ruff format --check ."]


def test_version_records_the_package_then_rewrites_the_set_up_lines(project):
    folder, make, log = project
    _healthy_venv(folder)
    result = make("version")
    assert result.returncode == 0, result.stdout + result.stderr
    scripts = [c for c in log.read_text().splitlines() if " scripts/" in c]
    assert scripts == [
        ".venv/bin/python scripts/record_version.py",
        ".venv/bin/python scripts/navigation.py",
    ]


def test_a_failing_venv_module_says_what_to_install(project):
    folder, make, _ = project
    (folder / "VENV_FAILS").touch()
    result = make("setup")
    assert result.returncode != 0
    assert "install venv support" in result.stdout
    assert not (folder / ".venv" / ".installed").exists()


def test_a_tool_still_missing_after_install_says_make_clean(project):
    folder, make, _ = project
    _healthy_venv(folder)
    (folder / ".venv" / "bin" / "jupyter").unlink()
    result = make("setup", FAKE_TOOLS="ruff pytest")  # an install that does not bring it back
    assert result.returncode != 0
    assert ".venv/bin/jupyter is still missing after the install: run make clean" in result.stdout
    stamp = folder / ".venv" / ".installed"
    assert not stamp.exists() or stamp.stat().st_mtime < time.time() - 10


def test_test_oldest_pins_the_floors_in_its_own_venv_then_runs_unit_and_nbval(project):
    folder, make, _ = project
    _healthy_venv(folder)
    (folder / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "oldest_requirements.py", folder / "scripts")
    result = make("-n", "test-oldest")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert "-m pip install --quiet -e" not in result.stdout, "the main .venv is up to date"
    expected_in_order = [
        "rm -rf .venv-oldest",
        "-m venv .venv-oldest",
        ".venv/bin/python scripts/oldest_requirements.py > .venv-oldest/oldest.txt",
        "-c .venv-oldest/oldest.txt -r .venv-oldest/oldest.txt",
        ".venv-oldest/bin/python scripts/oldest_requirements.py --check",
        ".venv-oldest/bin/python -m pytest -q --ignore=tests/e2e",
        "--nbval",
        ".venv-oldest/bin/python scripts/lab_smoke.py",
    ]
    positions = [_at(lines, part) for part in expected_in_order]
    assert positions == sorted(positions)
    nbval_line = lines[positions[6]]
    assert "notebooks/01_why_position.ipynb" in nbval_line
    assert "--nbval-sanitize-with tests/nbval_sanitize.cfg" in nbval_line


def _at(lines: list[str], part: str) -> int:
    """The index of the first line holding ``part``."""
    return next(i for i, line in enumerate(lines) if part in line)


def test_site_adds_its_extra_once_builds_before_unit_and_again_only_past_its_sources(project):
    folder, make, _ = project
    _healthy_venv(folder)
    (folder / "scripts").mkdir()
    for script in ("build_site.py", "navigation.py"):  # inputs of the site target
        shutil.copy(ROOT / "scripts" / script, folder / "scripts")
    result = make("-n", "site")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    install = _at(lines, "-m pip install --quiet -e")
    assert ".[test,hub,site]" in lines[install] and lines[install].startswith(".venv/bin/python")
    assert install < _at(lines, "scripts/build_site.py")
    assert not any("-m venv" in line for line in lines)
    lines = make("-n", "unit").stdout.splitlines()
    assert _at(lines, "scripts/build_site.py") < _at(lines, "-m pytest -q")

    (folder / ".venv" / ".site-installed").touch()
    result = make("-n", "site")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "pip install" not in result.stdout, "the site extra is installed once"
    assert ".venv/bin/python scripts/build_site.py" in result.stdout
    (folder / "build" / "site").mkdir(parents=True)
    (folder / "build" / "site" / "index.html").touch()
    assert "build_site.py" not in make("-n", "site").stdout  # newer than its sources
    now = time.time()
    os.utime(folder / "scripts" / "build_site.py", (now + 5, now + 5))
    assert "scripts/build_site.py" in make("-n", "site").stdout


def test_lab_serves_the_top_folder_with_the_course_settings(project):
    # The top folder, so the index's links to docs/ open in JupyterLab (tests/e2e/test_lab_links.py
    # clicks them); the course's settings, so no news pop-up covers a projected screen.
    folder, make, log = project
    _healthy_venv(folder)
    (folder / "lab").mkdir()
    shutil.copy(ROOT / "lab" / "overrides.json", folder / "lab")
    result = make("lab")
    assert result.returncode == 0, result.stdout + result.stderr
    installed = folder / ".venv" / "share" / "jupyter" / "lab" / "settings" / "overrides.d"
    assert (installed / "pe-course.json").read_bytes() == (
        ROOT / "lab" / "overrides.json"
    ).read_bytes()
    call = next(line for line in log.read_text().splitlines() if line.startswith("jupyter lab"))
    arguments = call.split()
    assert f"--ServerApp.root_dir={folder}" in arguments
    assert "--ServerApp.ip=127.0.0.1" in arguments
    assert arguments[-1] == "notebooks/00_index.ipynb"
    support = (ROOT / "tests" / "e2e" / "browser_support.py").read_text()
    options = re.search(r"^LAB_OPTIONS = \((.*)\)$", support, re.MULTILINE)[1]
    assert set(re.findall(r'"([^"]+)"', options)) <= set(arguments), "the e2e lab is make lab's"
    # Installed once: a second `make lab` only starts the lab.
    assert "cp lab/overrides.json" not in make("lab").stdout
