"""Layout rules that keep the package light: one function per computation, checks at doors."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "pe_helpers"


def _imports_of_private_names() -> list[str]:
    """``module: name`` for every underscore name one package module imports from another."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            # ``from . import _threads`` imports a private module, not a name from one.
            inside = node.module is not None and (
                node.level > 0 or node.module.startswith("pe_helpers")
            )
            for alias in node.names if inside else ():
                if alias.name.startswith("_") and alias.name != "__version__":
                    found.append(f"{path.relative_to(PACKAGE.parent)}: {alias.name}")
    return found


def test_no_module_imports_another_modules_private_name():
    # A name another module needs is a plain name: an underscore import was the sign of a
    # checked/unchecked twin, kept so that a caller could skip the checks.
    assert _imports_of_private_names() == []


def test_the_scan_sees_a_private_import(tmp_path, monkeypatch):
    fake = tmp_path / "pe_helpers"
    fake.mkdir()
    (fake / "a.py").write_text("from .b import _kernel\nfrom .b import public\n")
    monkeypatch.setattr(__import__(__name__), "PACKAGE", fake)
    assert _imports_of_private_names() == ["pe_helpers/a.py: _kernel"]


def _imports_of_other_lessons() -> list[str]:
    """``home: module`` for every import from one lesson home into another."""
    found = []
    for path in sorted((PACKAGE / "lessons").glob("*/*.py")):
        home = path.parent.name
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                parts = node.module.split(".")
                if node.level == 2 or (node.level == 0 and parts[:2] == ["pe_helpers", "lessons"]):
                    other = parts[0] if node.level == 2 else parts[2] if len(parts) > 2 else ""
                    if other and other != home:
                        found.append(f"{home}: {node.module}")
    return found


def test_no_lesson_home_imports_another_lessons_home():
    # maths two lessons need moves to a concept module (CONTRIBUTING, "How the package is laid out")
    assert _imports_of_other_lessons() == []
