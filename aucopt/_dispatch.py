"""Array backends: how the core hands inputs held by a parallel library to the module that handles them.

The metrics and estimators recognize a dask collection when they are given one (by the dask
collection protocol, :func:`aucopt._validation.is_dask_collection`, without importing dask), but
they do not compute on it: :mod:`aucopt.distributed` does, and the core never imports it (the
imports of aucopt flow one way, from :mod:`aucopt.distributed` down to the core). Instead:

* a backend is declared here, by name, with the test that recognizes its collections and the
  module that implements it: ``"dask"`` → :mod:`aucopt.distributed`;
* that module registers its implementation of each operation when it is imported
  (:func:`register`): ``"gather_vectors"`` (n-vectors computed to memory, for the metrics and
  ``score``), ``"fit_linear_ranker"``, ``"linear_scores"`` and ``"labels"`` (the dask route of
  the linear Newton rankers);
* the core asks :func:`implementation` for an operation when an input belongs to the backend
  (:func:`backend_of`); the first request imports the backend's module by its name, as pandas
  loads its plotting backend. So a user passes dask arrays to :func:`aucopt.metrics.harrell_c` or
  ``RankSVM.fit`` without importing :mod:`aucopt.distributed` first, and ``import aucopt``
  imports neither dask nor :mod:`aucopt.distributed` (dask stays an optional extra).

Why a registry and not an ``import aucopt.distributed`` inside the core's functions: that import
points up the layers, which makes a cycle (the dask route of a ranker uses the ranker), and it
spreads the knowledge of dask's module names over the core. Why the module name declared here and
not a package entry point: the backend ships with aucopt, and a source checkout without installed
metadata must find it too.

Examples
--------
>>> import numpy as np
>>> from aucopt._dispatch import backend_of
>>> backend_of(np.arange(3), (np.ones(3), None)) is None
True
>>> import dask.array as da
>>> backend_of(np.arange(3), (da.ones(3), None))
'dask'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from ._validation import is_dask_collection

__all__ = ["BACKENDS", "ArrayBackend", "backend_of", "call_in_memory", "implementation", "register"]

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class ArrayBackend:
    """A library of lazy or distributed collections and the aucopt module that computes on them.

    Attributes
    ----------
    name : str
        The backend's name, e.g. ``"dask"``.
    holds : callable
        ``holds(*values) -> bool``: whether a value (or a member of a tuple among them) is one of
        the backend's collections; it must not import the library.
    module : str
        The module that registers the backend's operations when imported.
    extra : str
        The install command of the backend's optional dependencies, for error messages.
    """

    name: str
    holds: Callable[..., bool]
    module: str
    extra: str


#: the declared backends, by name
BACKENDS: dict[str, ArrayBackend] = {
    "dask": ArrayBackend("dask", is_dask_collection, "aucopt.distributed", "pip install 'aucopt[dask]'"),
}
_OPERATIONS: dict[tuple[str, str], Callable[..., Any]] = {}


def register(backend: str, operation: str) -> Callable[[F], F]:
    """Decorator: register the function as ``backend``'s implementation of ``operation``.

    Parameters
    ----------
    backend : str
        A name in :data:`BACKENDS`.
    operation : str
        The operation's name, e.g. ``"gather_vectors"``.

    Returns
    -------
    decorator : callable
        Registers the function it decorates and returns it unchanged.

    Raises
    ------
    KeyError
        For an undeclared backend.
    """
    if backend not in BACKENDS:
        raise KeyError(f"Unknown array backend {backend!r}; declared: {sorted(BACKENDS)}.")

    def decorate(function: F) -> F:
        _OPERATIONS[backend, operation] = function
        return function

    return decorate


def backend_of(*values: Any) -> str | None:
    """The name of the backend holding any of ``values`` (also inside a tuple), or None.

    Parameters
    ----------
    *values : object
        Inputs of a metric or an estimator.

    Returns
    -------
    name : str or None
        None when every value is in memory.
    """
    return next((name for name, backend in BACKENDS.items() if backend.holds(*values)), None)


def implementation(backend: str, operation: str) -> Callable[..., Any]:
    """``backend``'s implementation of ``operation``, importing the backend's module on first use.

    Parameters
    ----------
    backend : str
        A name in :data:`BACKENDS`.
    operation : str
        The operation's name.

    Returns
    -------
    function : callable
        The registered implementation.

    Raises
    ------
    ImportError
        When the backend's module cannot be imported (its optional dependencies are missing).
    NotImplementedError
        When the backend's module registers no implementation of ``operation``.
    """
    key = (backend, operation)
    if key not in _OPERATIONS:
        declared = BACKENDS[backend]
        try:
            importlib.import_module(declared.module)  # registers the backend's operations
        except ImportError as exc:
            raise ImportError(f"{operation} on {backend} input needs {declared.module} and its dependencies "
                              f"({declared.extra}): {exc}") from exc
    if key not in _OPERATIONS:
        raise NotImplementedError(f"{operation} is not available for {backend} input: {BACKENDS[backend].module} "
                                  "registers no implementation of it; compute the input to memory first.")
    return _OPERATIONS[key]


def call_in_memory(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)`` with the inputs a backend holds computed to memory first.

    The backend's ``"gather_vectors"`` brings every input it holds to memory in one computation
    (a graph they share runs once); the others pass through unchanged, and ``function`` then runs
    on in-memory values (so a metric's value does not depend on the chunking).

    Parameters
    ----------
    function : callable
        A metric, run on the gathered values.
    *args, **kwargs
        Its arguments.

    Returns
    -------
    result : object
        What ``function`` returns.
    """
    names = list(kwargs)
    values = [*args, *(kwargs[name] for name in names)]
    backend = backend_of(*values)
    if backend is not None:
        values = list(implementation(backend, "gather_vectors")(*values))
    return function(*values[:len(args)], **dict(zip(names, values[len(args):], strict=True)))
