"""cvxpy backend: any installed cvxpy solver (Clarabel by default).

The standard form maps to ``cp.Variable(n)`` with ``A x`` split into equality rows and
finite lower / upper inequality rows, so every conic/QP solver cvxpy knows can be used
(``solver="CLARABEL" | "SCS" | "ECOS" | "OSQP" | ...``). Interior-point solvers such as
Clarabel are robust but slower than HiGHS simplex on the degenerate LP Ranker.
Options: ``solver``, ``verbose``, ``time_limit`` (passed where the solver supports it) and
solver-specific keyword arguments through ``solver_options``.
"""

from __future__ import annotations

import numpy as np

from ..modeling.problem import Problem
from . import SolveResult
from . import Status

_TIME_LIMIT_KEYS = {"CLARABEL": "time_limit", "SCS": "time_limit_secs", "HIGHS": "time_limit"}


def _status(cp, status: str) -> Status:
    return {
        cp.OPTIMAL: Status.OPTIMAL,
        cp.OPTIMAL_INACCURATE: Status.OPTIMAL_INACCURATE,
        cp.INFEASIBLE: Status.INFEASIBLE,
        cp.INFEASIBLE_INACCURATE: Status.INFEASIBLE,
        cp.UNBOUNDED: Status.UNBOUNDED,
        cp.UNBOUNDED_INACCURATE: Status.UNBOUNDED,
        cp.USER_LIMIT: Status.TIME_LIMIT,
        cp.SOLVER_ERROR: Status.NUMERICAL_ERROR,
    }.get(status, Status.ERROR)


def solve(problem: Problem, *, solver: str = "CLARABEL", verbose: bool = False,
          time_limit: float | None = None, solver_options: dict | None = None) -> SolveResult:
    import cvxpy as cp

    solver = solver.upper()
    if solver not in cp.installed_solvers():
        raise ValueError(f"cvxpy solver {solver!r} is not installed; installed: {cp.installed_solvers()}.")
    n = problem.n_vars
    x = cp.Variable(n)
    A, lo, hi = problem.A.tocsr(), problem.row_lower, problem.row_upper
    eq = np.flatnonzero(lo == hi)
    ge = np.flatnonzero(np.isfinite(lo) & (lo != hi))
    le = np.flatnonzero(np.isfinite(hi) & (lo != hi))
    groups = []  # (constraint, rows, sign mapping its dual to aucopt's convention)
    if len(eq):
        groups.append((A[eq] @ x == lo[eq], eq, -1.0))
    if len(ge):
        groups.append((A[ge] @ x >= lo[ge], ge, 1.0))
    if len(le):
        groups.append((A[le] @ x <= hi[le], le, -1.0))
    cons = [g[0] for g in groups]
    cl, cu = problem.col_lower, problem.col_upper
    for mask, make in ((np.isfinite(cl), lambda idx: x[idx] >= cl[idx]),
                       (np.isfinite(cu), lambda idx: x[idx] <= cu[idx])):
        idx = np.flatnonzero(mask)
        if len(idx):
            cons.append(make(idx))
    objective = problem.c @ x + problem.offset
    if problem.P is not None:
        objective = objective + 0.5 * cp.quad_form(x, problem.P, assume_PSD=True)
    prob = cp.Problem(cp.Minimize(objective), cons)
    kwargs = dict(solver_options or {})
    if time_limit is not None and solver in _TIME_LIMIT_KEYS:
        kwargs[_TIME_LIMIT_KEYS[solver]] = float(time_limit)
    try:
        prob.solve(solver=solver, verbose=verbose, **kwargs)
    except cp.error.SolverError as exc:
        return SolveResult(status=Status.NUMERICAL_ERROR, objective=float("nan"), x=None,
                           solver=f"cvxpy:{solver.lower()}", message=str(exc))
    status = _status(cp, prob.status)
    xv = None if x.value is None else np.asarray(x.value, dtype=float)
    dual = None
    if xv is not None and all(g[0].dual_value is not None for g in groups):
        dual = np.zeros(problem.n_rows)
        for con, rows, sign in groups:
            dual[rows] += sign * np.asarray(con.dual_value, dtype=float).ravel()
    stats = prob.solver_stats
    return SolveResult(
        status=status, objective=problem.objective(xv) if xv is not None else float("nan"),
        x=xv, dual=dual, iterations=int(stats.num_iters or 0) if stats else 0,
        solve_time=float(stats.solve_time) if stats and stats.solve_time is not None else float("nan"),
        solver=f"cvxpy:{solver.lower()}", message=str(prob.status),
        info={"compilation_time": getattr(prob, "compilation_time", None)},
    )
