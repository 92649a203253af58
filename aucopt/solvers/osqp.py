"""OSQP backend (ADMM) for convex QPs.

OSQP takes ``l ≤ [A; I] x ≤ u``; the column bounds become identity rows. Defaults are
tighter than OSQP's own (eps 1e-3) so QP results agree with the other backends:
``eps_abs`` = ``eps_rel`` = 1e-6 and ``polish=True``, an active-set refinement run after
ADMM converges that recovers a high-accuracy solution (objectives within ~1e-9 of an
interior-point solver on the AUC-SVM duals; asking ADMM itself for 1e-7 there often stalls
at ``max_iter`` = 200,000 without polishing). LPs run too, but a first-order
method converges slowly on degenerate LPs such as the LP Ranker (on real data it often stops
at the iteration limit, reported as ``ITERATION_LIMIT``): use HiGHS for LPs. Also: ``time_limit`` (s), ``warm_start``
(``{"x": ..., "y": ...}`` in aucopt's dual convention), ``verbose``, and any raw OSQP
setting through ``osqp_options``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..modeling.problem import Problem
from . import SolveResult
from . import Status


def _status(code: int) -> Status:
    import osqp

    S = osqp.SolverStatus
    return {
        int(S.OSQP_SOLVED): Status.OPTIMAL,
        int(S.OSQP_SOLVED_INACCURATE): Status.OPTIMAL_INACCURATE,
        int(S.OSQP_PRIMAL_INFEASIBLE): Status.INFEASIBLE,
        int(S.OSQP_PRIMAL_INFEASIBLE_INACCURATE): Status.INFEASIBLE,
        int(S.OSQP_DUAL_INFEASIBLE): Status.UNBOUNDED,
        int(S.OSQP_DUAL_INFEASIBLE_INACCURATE): Status.UNBOUNDED,
        int(S.OSQP_MAX_ITER_REACHED): Status.ITERATION_LIMIT,
        int(S.OSQP_TIME_LIMIT_REACHED): Status.TIME_LIMIT,
        int(S.OSQP_NON_CVX): Status.NUMERICAL_ERROR,
    }.get(int(code), Status.ERROR)


def solve(problem: Problem, *, eps_abs: float = 1e-6, eps_rel: float = 1e-6, polish: bool = True,
          max_iter: int = 200_000, time_limit: float | None = None, warm_start: dict | None = None,
          verbose: bool = False, osqp_options: dict | None = None) -> SolveResult:
    import osqp

    n, k = problem.n_vars, problem.n_rows
    bounded = np.flatnonzero(np.isfinite(problem.col_lower) | np.isfinite(problem.col_upper))
    E = sp.csc_matrix((np.ones(len(bounded)), (np.arange(len(bounded)), bounded)), shape=(len(bounded), n))
    A = sp.vstack([problem.A, E], format="csc")
    lower = np.concatenate([problem.row_lower, problem.col_lower[bounded]])
    upper = np.concatenate([problem.row_upper, problem.col_upper[bounded]])
    P = sp.csc_matrix((n, n)) if problem.P is None else sp.triu(problem.P, format="csc")
    settings = dict(eps_abs=eps_abs, eps_rel=eps_rel, polishing=polish, max_iter=int(max_iter),
                    verbose=verbose)
    if time_limit is not None:
        settings["time_limit"] = float(time_limit)
    settings.update(osqp_options or {})
    solver = osqp.OSQP()
    solver.setup(P, problem.c, A, lower, upper, **settings)
    if warm_start is not None:
        y0 = warm_start.get("y")
        solver.warm_start(x=warm_start.get("x"),
                          y=None if y0 is None else -np.concatenate([y0, np.zeros(len(bounded))]))
    res = solver.solve(raise_error=False)
    status = _status(res.info.status_val)
    has_x = res.x is not None and np.all(np.isfinite(res.x)) and status in (
        Status.OPTIMAL, Status.OPTIMAL_INACCURATE, Status.ITERATION_LIMIT, Status.TIME_LIMIT)
    x = np.asarray(res.x, dtype=float) if has_x else None
    dual = -np.asarray(res.y[:k], dtype=float) if has_x else None  # OSQP: Px + q + Aᵀy = 0
    return SolveResult(
        status=status, objective=problem.objective(x) if x is not None else float("nan"),
        x=x, dual=dual, iterations=int(res.info.iter), solve_time=float(res.info.run_time),
        solver="osqp", message=str(res.info.status),
        info={"polished": int(getattr(res.info, "status_polish", 0)) == 1},
    )
