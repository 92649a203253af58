"""HiGHS backend (highspy), for LPs and convex QPs.

Default LP algorithm: dual simplex (``algorithm="simplex"``). Measured on the LP Ranker
(WDBC, lifted form) it is an order of magnitude faster than HiGHS's interior point or
Clarabel, because the LP is highly degenerate and has few ranking vectors at the optimum.
Options: ``algorithm`` ("simplex" | "ipm" | "pdlp" | "choose"), ``time_limit`` (s),
``warm_start={"x": x0}`` (a starting primal point, passed to ``Highs.setSolution``; HiGHS builds
a starting basis from it — e.g. the previous round's solution in constraint generation),
``tol`` (primal/dual feasibility tolerance; default 1e-9 for LPs and HiGHS's 1e-7
for QPs, whose active-set solver reports "solve error" when asked for tighter), ``presolve`` (bool), ``threads``, ``verbose``,
and any raw HiGHS option through ``highs_options={name: value}``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..modeling.problem import Problem
from . import USABLE
from . import SolveResult
from . import Status

INF = 1e30  # HiGHS's infinity


def _status_map():
    import highspy

    M = highspy.HighsModelStatus
    return {
        M.kOptimal: Status.OPTIMAL,
        M.kInfeasible: Status.INFEASIBLE,
        M.kUnbounded: Status.UNBOUNDED,
        M.kUnboundedOrInfeasible: Status.INFEASIBLE_OR_UNBOUNDED,
        M.kTimeLimit: Status.TIME_LIMIT,
        M.kIterationLimit: Status.ITERATION_LIMIT,
        M.kSolveError: Status.NUMERICAL_ERROR,
    }


def _clip(v):
    return np.clip(np.asarray(v, dtype=float), -INF, INF)


def solve(problem: Problem, *, algorithm: str = "simplex", time_limit: float | None = None,
          tol: float | None = None, presolve: bool = True, threads: int | None = None,
          verbose: bool = False, highs_options: dict | None = None,
          warm_start: dict | None = None) -> SolveResult:
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", bool(verbose))
    if problem.is_lp:
        h.setOptionValue("solver", algorithm)
    h.setOptionValue("presolve", "on" if presolve else "off")
    if tol is None:
        tol = 1e-9 if problem.is_lp else 1e-7
    h.setOptionValue("primal_feasibility_tolerance", float(tol))
    h.setOptionValue("dual_feasibility_tolerance", float(tol))
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    if threads is not None:
        h.setOptionValue("threads", int(threads))
    for key, value in (highs_options or {}).items():
        h.setOptionValue(key, value)

    A = problem.A.tocsc()
    A.sort_indices()
    h.passModel(
        problem.n_vars, problem.n_rows, A.nnz, int(highspy.MatrixFormat.kColwise),
        int(highspy.ObjSense.kMinimize), float(problem.offset), problem.c,
        _clip(problem.col_lower), _clip(problem.col_upper),
        _clip(problem.row_lower), _clip(problem.row_upper),
        A.indptr.astype(np.int32), A.indices.astype(np.int32), A.data,
        np.zeros(problem.n_vars, dtype=np.int32),
    )
    if problem.P is not None:
        Q = sp.tril(problem.P, format="csc")  # HiGHS: lower triangle, column-wise
        Q.sort_indices()
        h.passHessian(problem.n_vars, Q.nnz, int(highspy.HessianFormat.kTriangular),
                      Q.indptr.astype(np.int32), Q.indices.astype(np.int32), Q.data)
    if warm_start is not None and warm_start.get("x") is not None:
        x0 = np.asarray(warm_start["x"], dtype=float)
        if x0.shape != (problem.n_vars,):
            raise ValueError(f"warm_start['x'] must have shape ({problem.n_vars},), got {x0.shape}.")
        solution = highspy.HighsSolution()
        solution.col_value = list(x0)
        solution.value_valid = True
        h.setSolution(solution)
    h.run()
    model_status = h.getModelStatus()
    status = _status_map().get(model_status, Status.ERROR)
    info = h.getInfo()
    solution = h.getSolution()
    has_x = bool(solution.value_valid) and status in USABLE
    x = np.array(solution.col_value) if has_x else None
    dual = np.array(solution.row_dual) if solution.dual_valid else None
    iterations = int(max(info.simplex_iteration_count, 0) + max(info.ipm_iteration_count, 0)
                     + max(info.qp_iteration_count, 0) + max(info.pdlp_iteration_count, 0))
    objective = problem.objective(x) if x is not None else float("nan")
    return SolveResult(
        status=status, objective=objective, x=x, dual=dual, iterations=iterations,
        solve_time=float(h.getRunTime()), solver="highs",
        message=h.modelStatusToString(model_status),
        info={"algorithm": algorithm if problem.is_lp else "qp",
              "highs_objective": float(info.objective_function_value)},
    )
