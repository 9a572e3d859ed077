"""Record the package's fingerprint under its version (`make version`, after a bump).

Usage: python scripts/record_version.py [--check]

``pe_helpers/data/version.json`` holds ``__version__`` and one sha256 over every module and
data file of the package (path order, text read with ``\\n`` line endings), the record itself
excluded. A hub updates its notebooks without its package, and each notebook's set-up lines
``require`` the version it was written against, so the version must move whenever the code
does: ``tests/test_version.py`` fails when the fingerprint changed under the recorded version.
This script refuses to record such a change without a bump. ``--check`` writes nothing and
exits 1 with the reason when the record is not current.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "pe_helpers"
RECORD = Path("data") / "version.json"
SUFFIXES = {".py", ".json", ".npz"}  # the package's modules and its package data
TEXT = {".py", ".json"}


def version_of(package: Path = PACKAGE) -> str:
    """``__version__`` as ``pe_helpers/__init__.py`` states it (read, not imported)."""
    text = (package / "__init__.py").read_text(encoding="utf-8")
    return re.search(r'^__version__ = "([^"]+)"$', text, re.MULTILINE).group(1)


def fingerprint(package: Path = PACKAGE) -> str:
    """One sha256 over the package's files: each file's path and the sha256 of its content."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        relative = path.relative_to(package)
        hidden = any(part.startswith(".") or part == "__pycache__" for part in relative.parts)
        if hidden or not path.is_file() or path.suffix not in SUFFIXES or relative == RECORD:
            continue
        content = path.read_bytes()
        if path.suffix in TEXT:
            content = content.replace(b"\r\n", b"\n")
        digest.update(f"{relative.as_posix()}\0{hashlib.sha256(content).hexdigest()}\n".encode())
    return digest.hexdigest()


def _parse(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def stale(package: Path = PACKAGE) -> str | None:
    """Why the record is not current, in one line, or ``None`` when it is."""
    path, version = package / RECORD, version_of(package)
    if not path.exists():
        return f"{path.name} is missing: run `make version`"
    data = json.loads(path.read_text(encoding="utf-8"))
    recorded, digest = data["version"], data["sha256"]
    if _parse(version) < _parse(recorded):
        return f"__version__ {version} is older than the recorded {recorded}"
    if version != recorded:
        return f"__version__ is {version} but the record says {recorded}: run `make version`"
    if digest != fingerprint(package):
        return f"package code changed since {version}: bump __version__ and run `make version`"
    return None


def record(package: Path = PACKAGE) -> str:
    """Write the record of a new version; refuse to record a changed package without a bump."""
    reason, version = stale(package), version_of(package)
    if reason is None:
        return f"pe_helpers {version} is recorded and current"
    path = package / RECORD
    if path.exists() and _parse(json.loads(path.read_text("utf-8"))["version"]) >= _parse(version):
        raise SystemExit(reason.replace(" and run", ", then"))  # changed, or older: no bump
    text = json.dumps({"version": version, "sha256": fingerprint(package)}, indent=2)
    path.write_text(text + "\n", encoding="utf-8")
    return f"recorded pe_helpers {version}"


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        problem = stale()
        print(problem or "the version record is current")
        sys.exit(problem is not None)
    print(record())
