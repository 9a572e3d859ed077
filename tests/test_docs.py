"""Shared docstring entries (pe_helpers._docs): filled where used, never left as placeholders."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import textwrap

import pytest

import pe_helpers
from pe_helpers import _docs
from pe_helpers._docs import DOCS, doc_filler, fill, fill_doc


def _package_modules() -> list:
    names = [info.name for info in pkgutil.walk_packages(pe_helpers.__path__, "pe_helpers.")]
    return [importlib.import_module(name) for name in ["pe_helpers", *names]]


def _documented(module) -> list[tuple[str, str]]:
    """(qualified name, docstring) of the module, its functions, classes and their methods."""
    found = [(module.__name__, module.__doc__ or "")]
    for name, obj in vars(module).items():
        if not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        if getattr(obj, "__module__", None) != module.__name__:
            continue
        found.append((f"{module.__name__}.{name}", obj.__doc__ or ""))
        for member, value in vars(obj).items() if inspect.isclass(obj) else ():
            if inspect.isfunction(value):
                found.append((f"{module.__name__}.{name}.{member}", value.__doc__ or ""))
    return found


def test_a_placeholder_line_becomes_the_entry_indented_like_it():
    text = "Summary.\n\n    Parameters\n    ----------\n    {ax}\n    other : int\n"
    filled = fill(text)
    assert "{ax}" not in filled
    assert textwrap.indent(DOCS["ax"], "    ") + "\n    other : int\n" in filled


def test_braces_that_are_not_a_whole_line_placeholder_are_left_alone():
    text = '    pairing : {"adjacent", "halves"}\n    ``{x}`` in prose, and {a} {b}\n'
    assert fill(text) == text


def test_an_unknown_placeholder_raises_when_the_function_is_decorated():
    with pytest.raises(KeyError, match=r"\{d_modle\}"):

        @fill_doc
        def typo():
            """Parameters
            ----------
            {d_modle}
            """


def test_a_local_entry_is_filled_and_may_not_shadow_a_shared_one():
    @doc_filler({"count": "count : int\n    How many."})
    def counted(count, ax=None):
        """Parameters
        ----------
        {count}
        {ax}
        """

    assert "        How many.\n" in counted.__doc__
    assert DOCS["ax"].splitlines()[1] in counted.__doc__
    with pytest.raises(ValueError, match="shadow"):
        doc_filler({"base": "base : float\n    Something else."})


def test_a_missing_docstring_passes_through():
    def bare():
        pass

    bare.__doc__ = None  # as under python -OO
    assert fill_doc(bare) is bare and bare.__doc__ is None


def test_no_placeholder_is_left_anywhere_in_the_package():
    left = [
        name
        for module in _package_modules()
        for name, doc in _documented(module)
        if _docs._PLACEHOLDER.search(doc)
    ]
    assert left == []


def test_filled_docstrings_carry_the_shared_text():
    from pe_helpers import rope, rope_variants
    from pe_helpers.lessons.frequency_choice import figures

    attention = importlib.import_module("pe_helpers.attention")  # the package exports a function
    assert "Frequency base; must be > 0." in rope.apply_rope.__doc__
    assert "rotate-half layout" in rope_variants.apply_p_rope.__doc__
    assert "Queries, shape" in attention.attention.__doc__
    assert "Axes to draw on; a new figure when None." in figures.plot_wavelengths.__doc__
    assert "frequency base (1 to 1e12)" in figures.plot_frequency_readings.__doc__


def test_the_examples_of_filled_docstrings_are_still_collected_as_doctests():
    from pe_helpers import rope_variants

    tests = {t.name: t for t in doctest.DocTestFinder().find(rope_variants)}
    assert tests["pe_helpers.rope_variants.apply_p_rope"].examples
    assert tests["pe_helpers.rope_variants.apply_mrope"].examples
