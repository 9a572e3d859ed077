"""Shared numpydoc entries: a parameter that means the same everywhere is described once.

A docstring names a shared entry by a line holding only ``{name}``; :func:`fill_doc`
replaces that line with the entry, indented like the placeholder (the pattern of MNE's
``fill_doc`` / ``docdict`` and matplotlib's ``_docstring.interpd``). Only whole-line
placeholders are filled, so braces anywhere else -- numpydoc choice sets such as
``{"adjacent", "halves"}``, formulas, doctest output -- are left alone. An unknown name
raises ``KeyError`` when the module that uses it is imported, so a typo cannot reach a
learner's ``help()``.

A module with entries of its own (a lesson's figure limits, say) makes its own filler
with :func:`doc_filler`; its names may not shadow the shared ones.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Mapping
from typing import TypeVar

__all__ = ["DOCS", "doc_filler", "fill", "fill_doc"]

T = TypeVar("T")

#: A line holding only ``{identifier}`` (and indentation).
_PLACEHOLDER = re.compile(r"^(?P<indent>[ \t]*)\{(?P<name>[A-Za-z_]\w*)\}[ \t]*$", re.MULTILINE)

#: The shared entries, by placeholder name, written at column 0 (numpydoc layout).
DOCS: dict[str, str] = {
    "ax": """\
ax : matplotlib.axes.Axes, optional
    Axes to draw on; a new figure when None.""",
    "d_model": """\
d_model : int
    Width; positive and even.""",
    "base": """\
base : float, default 10000.0
    Frequency base; must be > 0.""",
    "pairing": """\
pairing : {"adjacent", "halves"}
    Layout of the pairs: ``"adjacent"`` pairs dimensions ``(2k, 2k+1)`` (RoFormer),
    ``"halves"`` pairs ``(k, k + d/2)`` (the rotate-half layout of Llama-family code).""",
    "q_k": """\
q : array_like
    Queries, shape ``(..., n, d)``.
k : array_like
    Keys, shape ``(..., m, d)``.""",
}


def fill(text: str, entries: Mapping[str, str] = DOCS) -> str:
    """``text`` with every whole-line ``{name}`` replaced by ``entries[name]``, indented.

    Parameters
    ----------
    text : str
        A docstring.
    entries : mapping of str to str, default DOCS
        Entries by placeholder name, written at column 0.

    Returns
    -------
    str
        The docstring as ``help()`` and the doctests read it.

    Examples
    --------
    >>> print(fill("Parameters\\n    ----------\\n    {ax}\\n"))
    Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Axes to draw on; a new figure when None.
    <BLANKLINE>
    >>> fill("    {axes}")
    Traceback (most recent call last):
    ...
    KeyError: 'no docstring entry {axes}: add it to pe_helpers._docs.DOCS or a doc_filler'
    """

    def entry(match: re.Match) -> str:
        name = match["name"]
        if name not in entries:
            raise KeyError(
                f"no docstring entry {{{name}}}: add it to pe_helpers._docs.DOCS or a doc_filler"
            )
        return textwrap.indent(entries[name], match["indent"])

    return _PLACEHOLDER.sub(entry, text)


def doc_filler(entries: Mapping[str, str] | None = None) -> Callable[[T], T]:
    """A decorator filling the shared entries, and ``entries``, into a docstring.

    Parameters
    ----------
    entries : mapping of str to str, optional
        A module's own entries; a name already in :data:`DOCS` raises ``ValueError``.

    Returns
    -------
    callable
        ``decorator(obj)`` fills ``obj.__doc__`` in place and returns ``obj``.

    Examples
    --------
    >>> @doc_filler({"n": "n : int\\n    How many."})
    ... def f(n, ax=None):
    ...     '''Parameters
    ...     ----------
    ...     {n}
    ...     {ax}
    ...     '''
    >>> print(f.__doc__.splitlines()[3])
            How many.
    """
    entries = dict(entries or {})
    clash = sorted(entries.keys() & DOCS.keys())
    if clash:
        raise ValueError(f"entries {clash} would shadow the shared ones of pe_helpers._docs")
    merged = {**DOCS, **entries}

    def decorator(obj: T) -> T:
        if obj.__doc__:  # None under ``python -OO``
            obj.__doc__ = fill(obj.__doc__, merged)
        return obj

    return decorator


#: Fill the shared entries of :data:`DOCS` into a function's or class's docstring.
fill_doc = doc_filler()
