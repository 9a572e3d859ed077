"""environment.yml (conda, Binder) and pyproject.toml (pip, make) list the same packages."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def package_name(requirement: str) -> str:
    name = re.split(r"[\s<>=!~\[;]", requirement.strip(), maxsplit=1)[0]
    return name.lower().replace("_", "-")


# Extras that only `make` installs with pip, on purpose absent from environment.yml:
# crosscheck (transformers + a CPU torch) is the optional conformance check.
PIP_ONLY_EXTRAS = {"crosscheck"}


def pyproject_packages() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = list(project["dependencies"])
    for name, extra in project.get("optional-dependencies", {}).items():
        if name not in PIP_ONLY_EXTRAS:
            requirements += extra
    return {package_name(r) for r in requirements}


def environment_packages() -> set[str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    names = set()
    for entry in env["dependencies"]:
        if isinstance(entry, dict):
            names |= {package_name(r) for r in entry.get("pip", []) if not r.startswith("-e")}
        else:
            names.add(package_name(entry))
    return names - {"python", "pip"}


def test_environment_yml_and_pyproject_list_the_same_packages():
    in_pyproject, in_env = pyproject_packages(), environment_packages()
    assert in_pyproject == in_env, (
        f"only in pyproject.toml: {sorted(in_pyproject - in_env)}; "
        f"only in environment.yml: {sorted(in_env - in_pyproject)}"
    )


def test_environment_installs_the_package_itself():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_parts = [e["pip"] for e in env["dependencies"] if isinstance(e, dict) and "pip" in e]
    assert pip_parts and "-e ." in pip_parts[0]
    assert env["name"] == "pe-notebooks"
    assert "conda-forge" in env["channels"]


def test_package_name_parsing_sees_a_difference():
    assert package_name("numpy>=1.24") == "numpy"
    assert package_name("PyYAML >= 6") == "pyyaml"
    assert package_name("nbval[extra]>=0.11") == "nbval"


def test_pip_only_extras_exist_and_stay_out_of_environment_yml():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert PIP_ONLY_EXTRAS <= set(extras)
    only_pip = {package_name(r) for name in PIP_ONLY_EXTRAS for r in extras[name]}
    assert not only_pip & environment_packages()
