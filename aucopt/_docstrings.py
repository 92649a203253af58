"""Docstring parts shared by twin estimators.

A binary ranker and its survival twin (``RankSVM`` and ``SurvivalRankSVM``, say) take the same
parameters and fit the same model; only the pairs differ. Their docstrings keep one copy of the
shared sections: a line ``{{name}}`` in a docstring is replaced, when the class is defined, by the
part of that name, re-indented to the placeholder's indentation. The result is an ordinary literal
docstring, so numpydoc, Sphinx, ``help()`` and doctest see the whole text.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

_FIELD = re.compile(r"^(?P<indent>[ ]*)\{\{(?P<name>\w+)\}\}[ ]*$", re.MULTILINE)


def fill_doc(**parts: str) -> Callable[[T], T]:
    """Return a decorator that replaces each ``{{name}}`` line of a docstring by ``parts[name]``.

    Parameters
    ----------
    **parts : str
        The shared text of each placeholder, written at any indentation (it is dedented, then
        indented to the placeholder's column).

    Returns
    -------
    decorator : callable
        Sets the decorated object's ``__doc__`` and returns the object.

    Examples
    --------
    >>> from aucopt._docstrings import fill_doc
    >>> @fill_doc(shared='''
    ...     C : float, default=1.0
    ...         Weight of the pair losses.''')
    ... class Ranker:
    ...     '''A ranker.
    ...
    ...     Parameters
    ...     ----------
    ...     {{shared}}
    ...     '''
    >>> print(Ranker.__doc__.splitlines()[4])
        C : float, default=1.0
    """

    def decorate(obj: T) -> T:
        doc = obj.__doc__ or ""
        unknown = sorted({m["name"] for m in _FIELD.finditer(doc)} - parts.keys())
        if unknown:
            raise KeyError(f"docstring placeholders without a part: {unknown}; pass them to fill_doc")

        def substitute(match: re.Match[str]) -> str:
            return textwrap.indent(textwrap.dedent(parts[match["name"]]).strip("\n"), match["indent"])

        obj.__doc__ = _FIELD.sub(substitute, doc)
        return obj

    return decorate
