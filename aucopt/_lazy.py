"""Modules imported at their first use.

``import aucopt`` must stay cheap: the compiled kernels (numba) are needed only when a model is
fitted or a pair core is evaluated, so the modules that define them are bound lazily::

    _compiled = lazy_module("aucopt.pairs._compiled")   # nothing imported yet
    _compiled.pair_loss_sweep(...)                       # imports the module, then calls

The import graph test (tests/test_import_graph.py) reads ``lazy_module("...")`` calls as imports,
so a lazy edge still counts for cycles and for the private-import rules.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class LazyModule:
    """Stands for the module ``name`` and imports it at the first attribute access.

    Parameters
    ----------
    name : str
        The module's absolute dotted name.

    Examples
    --------
    >>> from aucopt._lazy import lazy_module
    >>> math = lazy_module("math")
    >>> math.sqrt(4.0)
    2.0
    """

    __slots__ = ("_module", "_name")

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attribute: str) -> Any:
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attribute)

    def __repr__(self) -> str:
        state = "imported" if self._module is not None else "not imported yet"
        return f"<lazy module {self._name!r} ({state})>"


def lazy_module(name: str) -> Any:
    """The module ``name``, imported at its first attribute access (see :class:`LazyModule`)."""
    return LazyModule(name)
