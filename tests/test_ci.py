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


APT = "apt-get install -y -qq chromium"


@pytest.mark.parametrize(
    ("case", "uid", "calls"),
    [
        ("a given PE_CHROMIUM", 0, []),
        ("on PATH", 1000, []),
        ("root", 0, [APT]),
        ("sudo", 1000, [f"sudo -n env DEBIAN_FRONTEND=noninteractive {APT}", APT]),
    ],
)
def test_the_script_prints_the_browser_it_finds_or_installs(fakes, tmp_path, case, uid, calls):
    run, bin_dir, log = fakes
    found = tmp_path / "my-chromium" if case == "a given PE_CHROMIUM" else bin_dir / "chromium"
    if case in ("a given PE_CHROMIUM", "on PATH"):
        _write(found, f"#!{BASH}\n")
    env = {"PE_CHROMIUM": str(found)} if case == "a given PE_CHROMIUM" else {}
    result = run(uid=uid, sudo=case == "sudo", **env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{found}\n"
    assert log.read_text().splitlines() == calls


@pytest.mark.parametrize("given", [True, False])
def test_a_missing_pe_chromium_or_no_way_to_install_stops_saying_what_to_do(fakes, tmp_path, given):
    run, _, log = fakes
    result = run(uid=1000, **({"PE_CHROMIUM": str(tmp_path / "nowhere")} if given else {}))
    assert result.returncode == 1 and result.stdout == ""
    if given:
        assert f"PE_CHROMIUM={tmp_path / 'nowhere'} is not an executable file" in result.stderr
    else:
        assert "needs root" in result.stderr and "apt-get install -y chromium" in result.stderr
        assert "PE_CHROMIUM" in result.stderr
    assert log.read_text() == ""  # nothing installed


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
