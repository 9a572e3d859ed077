"""environment.yml (conda, Binder) and pyproject.toml (pip, make) list the same packages."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import oldest_requirements
import pytest
import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = (ROOT / "pyproject.toml").read_text()
PROJECT = tomllib.loads(PYPROJECT)["project"]
ENV = yaml.safe_load((ROOT / "environment.yml").read_text())


def package_name(requirement: str) -> str:
    name = re.split(r"[\s<>=!~\[;]", requirement.strip(), maxsplit=1)[0]
    return name.lower().replace("_", "-")


# Extras that only `make` installs with pip, on purpose absent from environment.yml:
# crosscheck (transformers + a CPU torch) is the optional conformance check; site (Sphinx,
# myst-nb, the book theme, MathJax) builds the course's website for maintainers and readers,
# which a learner's conda environment or a Binder session does not need; fonts (mplfonts) is the
# source `make font` cuts the shipped Chinese font from.
PIP_ONLY_EXTRAS = {"crosscheck", "site", "fonts"}


def pyproject_packages() -> set[str]:
    requirements = list(PROJECT["dependencies"])
    for name, extra in PROJECT.get("optional-dependencies", {}).items():
        if name not in PIP_ONLY_EXTRAS:
            requirements += extra
    return {package_name(r) for r in requirements}


def environment_packages() -> set[str]:
    names = set()
    for entry in ENV["dependencies"]:
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
    pip_parts = [e["pip"] for e in ENV["dependencies"] if isinstance(e, dict) and "pip" in e]
    assert pip_parts and "-e ." in pip_parts[0]
    assert ENV["name"] == "pe-notebooks"
    assert "conda-forge" in ENV["channels"]


def test_package_name_parsing_sees_a_difference():
    assert package_name("numpy>=1.24") == "numpy"
    assert package_name("PyYAML >= 6") == "pyyaml"
    assert package_name("nbval[extra]>=0.11") == "nbval"


def test_pip_only_extras_exist_and_stay_out_of_environment_yml():
    extras = PROJECT["optional-dependencies"]
    assert PIP_ONLY_EXTRAS <= set(extras)
    only_pip = {package_name(r) for name in PIP_ONLY_EXTRAS for r in extras[name]}
    assert not only_pip & environment_packages()


def _floors(requirements) -> dict[str, str]:
    floors = {}
    for requirement in requirements:
        match = re.fullmatch(r"\s*([A-Za-z0-9_.-]+)\s*>=\s*([0-9][0-9.]*)\s*", requirement)
        if match:
            floors[package_name(match[1])] = match[2]
    return floors


def test_environment_yml_declares_the_same_runtime_floors_as_pyproject():
    runtime = _floors(PROJECT["dependencies"])
    in_env = _floors(e for e in ENV["dependencies"] if isinstance(e, str))
    assert len(runtime) == len(PROJECT["dependencies"]), "every runtime dependency needs a floor"
    assert {name: in_env.get(name) for name in runtime} == runtime


#: matplotlib APIs the package may call, with the release that brought each.
_MATPLOTLIB_APIS = {
    'loc="outside ': (3, 7),  # Figure.legend placed outside the axes
    'set_layout_engine("none")': (3, 6),
    "get_figure(root=True)": (3, 10),
}


def test_matplotlib_floor_has_the_apis_the_package_calls():
    floor = tuple(int(part) for part in _floors(PROJECT["dependencies"])["matplotlib"].split("."))
    code = "\n".join(p.read_text() for p in (ROOT / "pe_helpers").rglob("*.py"))
    used = {api: since for api, since in _MATPLOTLIB_APIS.items() if api in code}
    assert used, "the table should list at least one API the package calls"
    for api, since in used.items():
        assert floor >= since, f"the package calls {api!r}, which needs matplotlib {since}"


def test_oldest_pins_are_the_declared_floors_pinned_exactly():
    expected = [f"{name}=={floor}" for name, floor in _floors(PROJECT["dependencies"]).items()]
    assert oldest_requirements.oldest_pins(PYPROJECT) == expected


def test_oldest_pins_refuse_a_dependency_without_a_single_floor():
    for bad in ('"numpy"', '"numpy>=1.24,<3"', '"numpy==1.26"'):
        text = f"[project]\nname = 'x'\ndependencies = [{bad}]\n"
        with pytest.raises(ValueError, match="exactly one '>=' floor"):
            oldest_requirements.oldest_pins(text)
    text = "[project]\nname = 'x'\ndependencies = ['tomli>=2.0; python_version < \"3.11\"']\n"
    assert oldest_requirements.oldest_pins(text) == ['tomli==2.0; python_version < "3.11"']


_SPY_ON_NUMPY = """
import os, sys
class Spy:
    def find_spec(self, name, path=None, target=None):
        if name == "numpy":
            print(os.environ.get("OPENBLAS_NUM_THREADS"), os.environ.get("MKL_NUM_THREADS"))
        return None
sys.meta_path.insert(0, Spy())
import pe_helpers
"""


@pytest.mark.parametrize(("preset", "seen"), [({}, "1 1"), ({"OPENBLAS_NUM_THREADS": "3"}, "3 1")])
def test_numpy_is_loaded_with_one_blas_thread_unless_the_user_set_one(preset, seen):
    # A kernel started without `make lab` (Binder, conda, `jupyter lab`) gets no exported
    # OPENBLAS_NUM_THREADS; importing pe_helpers must set it before numpy loads its BLAS.
    import os
    import subprocess

    from pe_helpers._threads import BLAS_THREAD_VARIABLES

    env = {k: v for k, v in os.environ.items() if k not in BLAS_THREAD_VARIABLES}
    result = subprocess.run(
        [sys.executable, "-c", _SPY_ON_NUMPY],
        env={**env, **preset},
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.splitlines()[0] == seen
