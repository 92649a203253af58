"""The solver registry: how the layers below :mod:`aucopt.solvers` reach a solver.

The data flow is pairs → formulation → problem → solver → model, so :mod:`aucopt.modeling` never
imports :mod:`aucopt.solvers`. Where the modeling layer must solve — comparing backends
(:func:`~aucopt.modeling.compare_solvers`), generating pair rows
(:func:`~aucopt.modeling.pair_row_generation`) — it looks the solver layer's entry points up here,
by name, as cvxpy's problems look their solvers up in a map of solver interfaces.
:mod:`aucopt.solvers` registers them when it is imported; the first look-up of an entry nobody has
registered yet imports it by name (as a plugin is loaded: the modeling layer holds no import of
the solvers), so the registry is filled before any solve.

The entries :mod:`aucopt.solvers` registers:

* ``"solve"``: :func:`aucopt.solvers.solve`;
* ``"resolve"``: the backend of a ``solver=`` name (``ValueError`` for an unknown or missing one);
* ``"SolveResult"`` and ``"Status"``: the result type and its status codes;
* ``"IncrementalLP"``: HiGHS's growing LP (:class:`aucopt.solvers.highs.IncrementalLP`).

Examples
--------
>>> from aucopt._solver_registry import lookup
>>> lookup("Status").OPTIMAL.value
'optimal'
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["ENTRIES", "lookup", "register"]

ENTRIES = ("solve", "resolve", "SolveResult", "Status", "IncrementalLP")
"""The names of the entry points the solver layer registers."""

SOLVER_LAYER = "aucopt.solvers"
"""The package whose import fills the registry."""

_REGISTERED: dict[str, Any] = {}


def register(**entries: Any) -> None:
    """Register entry points of the solver layer by name (called by :mod:`aucopt.solvers` at import).

    Raises
    ------
    ValueError
        For a name that is not one of :data:`ENTRIES`.
    """
    unknown = sorted(set(entries) - set(ENTRIES))
    if unknown:
        raise ValueError(f"Unknown solver registry entries {unknown}; the registry holds {list(ENTRIES)}.")
    _REGISTERED.update(entries)


def lookup(name: str) -> Any:
    """The registered entry point ``name`` (one of :data:`ENTRIES`).

    Raises
    ------
    RuntimeError
        When nothing is registered under ``name`` even after importing :mod:`aucopt.solvers`.
    """
    if name not in _REGISTERED:
        importlib.import_module(SOLVER_LAYER)  # registers its entry points
    try:
        return _REGISTERED[name]
    except KeyError:
        raise RuntimeError(
            f"No solver backend is registered for {name!r}: {SOLVER_LAYER} registers its backends when it is "
            "imported, and did not register this one."
        ) from None
