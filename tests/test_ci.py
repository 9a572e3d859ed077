"""CI's browser set-up is one documented path that agrees with the tests (issue 18, item 18).

``.ci/ensure_chromium`` runs here with PATH reduced to a folder of fakes (``id``,
``apt-get``, ``sudo``, ``chromium``), so every branch — a given ``PE_CHROMIUM``, a
Chromium already on PATH, an install as root, through sudo, or no way to install — runs
for real without touching the machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / ".ci" / "ensure_chromium"
BASH = shutil.which("bash")
CHMOD = shutil.which("chmod")
pytestmark = pytest.mark.skipif(BASH is None or CHMOD is None, reason="needs bash and chmod")

FAKE_APT_GET = """#!{bash}
echo "apt-get $*" >> "{log}"
if [ "$1" = install ]; then
    printf '#!{bash}\\necho fake chromium\\n' > "{bin}/chromium"
    "{chmod}" +x "{bin}/chromium"
fi
"""
FAKE_SUDO = """#!{bash}
echo "sudo $*" >> "{log}"
shift  # -n
exec "$@"
"""
FAKE_ENV = """#!{bash}
while [ "${{1#*=}}" != "$1" ]; do export "$1"; shift; done
exec "$@"
"""


def _write(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(0o755)


@pytest.fixture
def fakes(tmp_path):
    """A PATH folder with fake id / apt-get / env, and a runner for the script."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    log.touch()
    fmt = {"bash": BASH, "chmod": CHMOD, "log": log, "bin": bin_dir}
    _write(bin_dir / "apt-get", FAKE_APT_GET.format(**fmt))
    _write(bin_dir / "env", FAKE_ENV.format(**fmt))

    def run(uid: int = 0, sudo: bool = False, **env: str) -> subprocess.CompletedProcess:
        _write(bin_dir / "id", f"#!{BASH}\necho {uid}\n")
        if sudo:
            _write(bin_dir / "sudo", FAKE_SUDO.format(**fmt))
        return subprocess.run(
            [BASH, str(SCRIPT)],
            env={"PATH": str(bin_dir), **env},
            capture_output=True,
            text=True,
            timeout=30,
        )

    return run, bin_dir, log


def test_a_given_pe_chromium_is_used_as_it_is(fakes, tmp_path):
    run, _, log = fakes
    browser = tmp_path / "my-chromium"
    _write(browser, f"#!{BASH}\n")
    result = run(PE_CHROMIUM=str(browser))
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{browser}\n"
    assert log.read_text() == ""


def test_a_missing_pe_chromium_fails_naming_it_and_installs_nothing(fakes, tmp_path):
    run, _, log = fakes
    result = run(PE_CHROMIUM=str(tmp_path / "nowhere"))
    assert result.returncode == 1
    assert f"PE_CHROMIUM={tmp_path / 'nowhere'} is not an executable file" in result.stderr
    assert result.stdout == ""
    assert log.read_text() == ""


def test_chromium_on_path_is_found_without_installing(fakes):
    run, bin_dir, log = fakes
    _write(bin_dir / "chromium", f"#!{BASH}\n")
    result = run(uid=1000)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{bin_dir / 'chromium'}\n"
    assert log.read_text() == ""


def test_as_root_it_installs_debians_chromium_with_apt_get(fakes):
    run, bin_dir, log = fakes
    result = run(uid=0)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{bin_dir / 'chromium'}\n"
    assert log.read_text().splitlines() == ["apt-get install -y -qq chromium"]


def test_without_root_it_installs_through_sudo_when_sudo_exists(fakes):
    run, bin_dir, log = fakes
    result = run(uid=1000, sudo=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{bin_dir / 'chromium'}\n"
    calls = log.read_text().splitlines()
    assert calls[0].startswith("sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install")
    assert calls[1] == "apt-get install -y -qq chromium"


def test_without_root_or_sudo_it_stops_and_says_what_to_do(fakes):
    run, _, log = fakes
    result = run(uid=1000)
    assert result.returncode == 1
    assert "needs root" in result.stderr
    assert "apt-get install -y chromium" in result.stderr
    assert "PE_CHROMIUM" in result.stderr
    assert log.read_text() == ""


def test_ci_run_exports_the_browser_the_tests_read():
    ci = (ROOT / ".ci" / "run").read_text()
    support = (ROOT / "tests" / "e2e" / "browser_support.py").read_text()
    assert 'os.environ.get("PE_CHROMIUM"' in support
    for suite in sorted((ROOT / "tests" / "e2e").glob("test_*.py")):
        text = suite.read_text()
        assert "from browser_support import" in text, f"{suite.name}: not on the shared browser"
        assert "PE_CHROMIUM" not in text.split('"""', 2)[2], f"{suite.name} reads its own browser"
    assert "/usr/bin/chromium" not in ci, ".ci/run must not hard-code the browser path"
    assert 'PE_CHROMIUM="$(.ci/ensure_chromium)"' in ci
    assert "export PE_CHROMIUM" in ci
    assert "sudo" not in ci.split("ensure_chromium", 1)[1].split("make test", 1)[0]
    assert os.access(SCRIPT, os.X_OK)
