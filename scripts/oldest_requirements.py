"""Print the declared minimum of every runtime dependency, pinned exactly.

Usage: python scripts/oldest_requirements.py [PYPROJECT] > oldest.txt
       python scripts/oldest_requirements.py --check [PYPROJECT]

Reads ``[project] dependencies`` from ``pyproject.toml`` and turns each ``name>=X``
into ``name==X``, one a line, so ``make test-oldest`` installs exactly the floors the
package claims to support (the pins are derived here, never written by hand, so they
cannot drift from ``pyproject.toml``). A runtime dependency without a ``>=`` floor, or
with an upper bound or exclusion, is an error: its oldest supported version would be
unknown. ``--check`` instead compares the versions installed in the running
environment with those floors, prints one line per dependency, and exits 1 unless
every one is installed at exactly its floor.
"""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # the test extras install tomli on Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def oldest_pins(pyproject_text: str) -> list[str]:
    """Return ``["name==floor", ...]`` for the runtime dependencies in ``pyproject_text``.

    Parameters
    ----------
    pyproject_text : str
        The contents of a ``pyproject.toml`` with a ``[project] dependencies`` list.

    Returns
    -------
    list of str
        One exact pin per dependency, in the order declared (markers kept).

    Raises
    ------
    ValueError
        If a dependency has no ``>=`` floor, or has any other version clause.
    """
    pins = []
    for line in tomllib.loads(pyproject_text)["project"]["dependencies"]:
        req = Requirement(line)
        specs = list(req.specifier)
        floors = [s.version for s in specs if s.operator == ">="]
        if len(floors) != 1 or len(specs) != 1:
            raise ValueError(
                f"dependency {line!r} must declare exactly one '>=' floor and nothing else, "
                "so its oldest supported version is known"
            )
        extras = f"[{','.join(sorted(req.extras))}]" if req.extras else ""
        marker = f"; {req.marker}" if req.marker else ""
        pins.append(f"{req.name}{extras}=={floors[0]}{marker}")
    return pins


def check_installed(pins: list[str]) -> bool:
    """Print each pinned dependency with its installed version; True if all match.

    Parameters
    ----------
    pins : list of str
        Exact pins as returned by :func:`oldest_pins`.

    Returns
    -------
    bool
        Whether every dependency is installed at exactly its pinned version.
    """
    all_match = True
    for pin in pins:
        req = Requirement(pin)
        (wanted,) = [s.version for s in req.specifier]
        try:
            installed = metadata.version(req.name)
        except metadata.PackageNotFoundError:
            installed = "not installed"
        match = installed != "not installed" and Version(installed) == Version(wanted)
        all_match &= match
        print(f"{req.name}: {installed} ({'=' if match else '!'}= declared floor {wanted})")
    return all_match


def main(argv: list[str]) -> int:
    args = argv[1:]
    check = "--check" in args
    args = [a for a in args if a != "--check"]
    path = Path(args[0]) if args else ROOT / "pyproject.toml"
    pins = oldest_pins(path.read_text())
    if check:
        return 0 if check_installed(pins) else 1
    print("\n".join(pins))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
