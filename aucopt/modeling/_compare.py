"""Compare solver backends on one problem in one call: status, objective, time and disagreement.

:func:`compare_solvers` solves the same :class:`~aucopt.modeling.Problem` (or a formulation built
on a pair set) with each backend and reports, per backend, how far its objective and its model
coefficients (the output ``"coef"``) lie from a reference: the best (lowest) objective among the
exact solvers — simplex and interior point (HiGHS, Clarabel, ECOS, ...), not the first-order
methods OSQP and SCS, whose points are approximate by design — that finished with status
``optimal``. A backend that is not installed, rejects the problem or fails is a row with its
status and message, never an exception. Each backend runs under a time limit
(:data:`DEFAULT_TIME_LIMIT` seconds unless told otherwise), and one that hits it is a row with
status ``time_limit`` and its last point, not a wait.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .._solver_registry import lookup
from .._validation import check_time_limit
from ..pairs import PairSet
from ._formulation import Formulation, get_formulation
from .problem import Problem

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["COLUMNS", "DEFAULT_TIME_LIMIT", "FIRST_ORDER_SOLVERS", "compare_solvers", "iter_compare_solvers"]

FIRST_ORDER_SOLVERS = frozenset({"osqp", "scs", "cvxpy:osqp", "cvxpy:scs"})
"""Backends whose points are approximate by design (ADMM / splitting): never the reference."""

COLUMNS = ("solver", "status", "objective", "seconds", "iterations", "objective_gap", "coef_gap", "message")
"""The columns of the table, in order."""

DEFAULT_TIME_LIMIT = 60.0
"""Seconds per backend by default: OSQP on the LP Ranker LP of 200 WDBC points (the README's
``aucopt compare`` example) otherwise runs for more than 5 minutes, to its iteration limit."""


def _is_exact(solver: str) -> bool:
    """True for a backend that may be the reference: not one of :data:`FIRST_ORDER_SOLVERS`."""
    return solver.strip().lower() not in FIRST_ORDER_SOLVERS


def _problem(problem_or_formulation: Problem | str | Formulation | Callable, pairs: PairSet | None,
             kernel: ArrayLike | None, params: dict | None) -> Problem:
    if isinstance(problem_or_formulation, Problem):
        if pairs is not None or kernel is not None or params:
            raise ValueError("pairs, kernel and params build a formulation; they must be None when a Problem is "
                             "given (it is already built).")
        return problem_or_formulation
    form = get_formulation(problem_or_formulation)
    if pairs is None:
        raise ValueError(f"Comparing solvers on the formulation {form.name!r} needs pairs= (a PairSet), and "
                         "kernel= for a kernel formulation; or pass a built Problem.")
    return form.build(pairs, kernel, **(params or {}))


def _check_time_limit(time_limit: Any) -> float | None:
    return check_time_limit(time_limit)  # the one check of every time limit


def _gaps(row: dict, reference: dict | None, problem: Problem, points: dict) -> None:
    """Fill the row's objective and coef disagreement with ``reference`` (in place)."""
    row["objective_gap"] = row["coef_gap"] = float("nan")
    if reference is None or not np.isfinite(row["objective"]):
        return
    ref = reference["objective"]
    row["objective_gap"] = abs(row["objective"] - ref) / max(1.0, abs(ref))
    x, x_ref = points.get(row["solver"]), points.get(reference["solver"])
    if x is not None and x_ref is not None and "coef" in problem.outputs:
        row["coef_gap"] = float(np.max(np.abs(problem.output(x, "coef") - problem.output(x_ref, "coef")),
                                       initial=0.0))


def iter_compare_solvers(problem_or_formulation: Problem | str | Formulation | Callable,
                         solvers: Sequence[str] = ("highs", "osqp", "clarabel", "scs"), *,
                         pairs: PairSet | None = None, kernel: ArrayLike | None = None, params: dict | None = None,
                         tol: float | None = None, time_limit: float | None = DEFAULT_TIME_LIMIT) -> Iterator[dict]:
    """Solve with each backend in turn and yield one row (a dict of :data:`COLUMNS`) as each finishes.

    The exact solvers run first (in the given order), then the first-order ones, so that every
    row of a first-order solver is compared with the final reference; a row of an exact solver
    is compared with the best exact objective found so far. :func:`compare_solvers` collects the
    rows and recomputes every disagreement against the final reference.

    Parameters
    ----------
    problem_or_formulation, solvers, pairs, kernel, params, tol, time_limit
        As in :func:`compare_solvers`.

    Yields
    ------
    dict
        ``solver``, ``status`` (a :class:`~aucopt.solvers.Status` value, ``"time_limit"`` for
        a backend stopped by ``time_limit``, ``"unavailable"`` for a backend that is not
        installed or does not take the problem, ``"error"`` for one that raised),
        ``objective``, ``seconds`` (wall time), ``iterations``, ``objective_gap``, ``coef_gap``
        and ``message``; the primal point under the private key ``"_x"``.

    See Also
    --------
    compare_solvers : the table.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.modeling import iter_compare_solvers
    >>> rows = iter_compare_solvers("lp_ranker", ["highs", "no_such_solver"], pairs=PairSet.bipartite([1, 0, 0]),
    ...                             kernel=np.eye(3))
    >>> [(row["solver"], row["status"]) for row in rows]
    [('highs', 'optimal'), ('no_such_solver', 'unavailable')]
    """
    resolve, solve = lookup("resolve"), lookup("solve")
    time_limit = _check_time_limit(time_limit)
    problem = _problem(problem_or_formulation, pairs, kernel, params)
    solvers = [str(s) for s in solvers]
    if not solvers:
        raise ValueError("solvers is empty; name at least one backend, e.g. ('highs', 'clarabel').")
    exact = [s for s in solvers if _is_exact(s)]
    order = exact + [s for s in solvers if s not in exact]
    points: dict[str, np.ndarray] = {}
    reference = None
    for name in order:
        row = {"solver": name, "status": "", "objective": float("nan"), "seconds": float("nan"), "iterations": None,
               "objective_gap": float("nan"), "coef_gap": float("nan"), "message": ""}
        try:
            backend = resolve(name)
        except ValueError as exc:
            row.update(status="unavailable", message=str(exc))
            yield {**row, "_x": None}
            continue
        # a backend without a time limit (e.g. ECOS) runs without one, and its row says so
        limit = time_limit if backend.has_time_limit else None
        note = ("" if limit == time_limit
                else f"{backend.label} has no time limit: ran without the {time_limit:g} s limit; ")
        start = time.perf_counter()
        try:
            result = solve(problem, name, tol=tol, time_limit=limit)
        except ValueError as exc:  # the backend does not take this problem or these options
            row.update(status="unavailable", seconds=time.perf_counter() - start, message=str(exc))
            yield {**row, "_x": None}
            continue
        except Exception as exc:
            row.update(status="error", seconds=time.perf_counter() - start,
                       message=f"{type(exc).__name__}: {exc}")
            yield {**row, "_x": None}
            continue
        if result.status == "time_limit" and limit is not None:
            reached = "an approximate point" if result.x is not None else "before a first point: no objective"
            note += f"stopped at the {limit:g} s time limit ({reached}); "
        row.update(status=str(result.status.value), objective=float(result.objective), seconds=result.wall_time,
                   iterations=int(result.iterations or 0), message=note + str(result.message or ""))
        if result.x is not None:
            points[name] = result.x
        if (name in exact and result.ok and result.x is not None
                and (reference is None or result.objective < reference["objective"])):
            reference = {"solver": name, "objective": float(result.objective)}
        _gaps(row, reference, problem, points)
        yield {**row, "_x": result.x}


def compare_solvers(problem_or_formulation: Problem | str | Formulation | Callable,
                    solvers: Sequence[str] = ("highs", "osqp", "clarabel", "scs"), *, pairs: PairSet | None = None,
                    kernel: ArrayLike | None = None, params: dict | None = None, tol: float | None = None,
                    time_limit: float | None = DEFAULT_TIME_LIMIT, callback: Callable | None = None) -> pd.DataFrame:
    """Solve one problem with several backends; one table row per backend, with its disagreement.

    Parameters
    ----------
    problem_or_formulation : Problem, str, Formulation or callable
        A built problem, or a formulation (name, :class:`~aucopt.modeling.Formulation` or function)
        to build on ``pairs`` and ``kernel`` with ``params``.
    solvers : sequence of str, default=("highs", "osqp", "clarabel", "scs")
        Backend names (see :func:`aucopt.available_solvers`).
    pairs : PairSet, default=None
        The pairs, for a formulation.
    kernel : array-like, default=None
        The kernel matrix, for a formulation.
    params : dict, default=None
        The formulation's parameters, e.g. ``{"C": 1.0}``.
    tol : float, default=None
        Stopping tolerance passed to every backend (None: each backend's default).
    time_limit : float or None, default=60.0
        Seconds per backend (:data:`DEFAULT_TIME_LIMIT`), passed to each backend's own time
        limit (HiGHS and OSQP ``time_limit``, Clarabel ``time_limit``, SCS
        ``time_limit_secs``); a backend stopped by it is a row with status ``"time_limit"``,
        its last point and a message saying so. None: no limit. A backend without a time limit
        (ECOS) runs without one, its row's message says so.
    callback : callable, default=None
        ``callback(row)`` with each row (a dict of :data:`COLUMNS`) as soon as its backend has
        finished, e.g. to print it.

    Returns
    -------
    pandas.DataFrame
        One row per backend, in the order they ran (exact solvers first), columns
        :data:`COLUMNS`: ``objective_gap`` is ``|objective − reference| / max(1, |reference|)``,
        ``coef_gap`` the largest ``|coef − coef_reference|`` over the output ``"coef"`` (NaN when the
        problem has none). ``attrs`` holds ``reference_solver``, ``reference_objective``,
        ``max_objective_gap`` and ``max_coef_gap`` (over the rows with a point), ``time_limit``
        and ``time_limited``, the solvers stopped by it.

    Raises
    ------
    ValueError
        For an empty ``solvers``, a formulation without ``pairs``, a ``time_limit`` that is not a
        positive number or None, or ``params`` that the formulation does not take or that lie
        outside its declared constraints (:meth:`~aucopt.modeling.Formulation.validate_params`),
        before any backend runs.

    See Also
    --------
    iter_compare_solvers : the same rows as a generator.
    aucopt.solvers.solve : one backend.
    aucopt.compare_methods : the survival evaluation protocol across estimators (not solvers).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from aucopt import PairSet, kernel_matrix
    >>> from aucopt.modeling import compare_solvers
    >>> X, y = make_classification(n_samples=30, n_features=4, random_state=0)
    >>> table = compare_solvers("lp_ranker", ["highs", "clarabel"], pairs=PairSet.bipartite(y),
    ...                         kernel=kernel_matrix(X, gamma=0.5), params={"C": 1.0})
    >>> table[["solver", "status"]].values.tolist()
    [['highs', 'optimal'], ['clarabel', 'optimal']]
    >>> bool(table.attrs["max_objective_gap"] < 1e-6), bool(table.attrs["max_coef_gap"] < 1e-3)
    (True, True)

    A time limit too short to finish is reported, not waited for:

    >>> quick = compare_solvers("lp_ranker", ["highs", "osqp"], pairs=PairSet.bipartite(y),
    ...                         kernel=kernel_matrix(X, gamma=0.5), time_limit=1e-6)
    >>> quick["status"].tolist(), quick.attrs["time_limited"]
    (['time_limit', 'time_limit'], ['highs', 'osqp'])
    """
    import pandas as pd

    time_limit = _check_time_limit(time_limit)
    problem = _problem(problem_or_formulation, pairs, kernel, params)
    rows: list[dict] = []
    points: dict[str, Any] = {}
    for row in iter_compare_solvers(problem, solvers, tol=tol, time_limit=time_limit):
        points[row["solver"]] = row.pop("_x")
        rows.append(row)
        if callback is not None:
            callback(dict(row))
    reference = None
    exact_ok = [r for r in rows if _is_exact(r["solver"]) and r["status"] == "optimal"
                and points.get(r["solver"]) is not None]
    if exact_ok:
        best = min(exact_ok, key=lambda r: r["objective"])
        reference = {"solver": best["solver"], "objective": best["objective"]}
    for row in rows:
        _gaps(row, reference, problem, points)
    table = pd.DataFrame(rows, columns=list(COLUMNS))
    table.attrs.update(
        reference_solver=None if reference is None else reference["solver"],
        reference_objective=float("nan") if reference is None else reference["objective"],
        max_objective_gap=float(np.nanmax(table["objective_gap"])) if table["objective_gap"].notna().any()
        else float("nan"),
        max_coef_gap=float(np.nanmax(table["coef_gap"])) if table["coef_gap"].notna().any() else float("nan"),
        time_limit=time_limit,
        time_limited=[r["solver"] for r in rows if r["status"] == "time_limit"],
    )
    return table
