"""OSQP backend (operator splitting / ADMM) for convex QPs, and LPs at moderate accuracy."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..modeling.problem import Problem
from .base import SolveResult, SolverBackend, Status

__all__ = ["OSQP"]

#: aucopt's defaults where they differ from OSQP's (eps 1e-3, max_iter 4000)
DEFAULT_TOL = 1e-6
DEFAULT_MAX_ITER = 200_000

LP_ADVICE = ("OSQP is a first-order (ADMM) solver meant for QPs: on a degenerate LP such as the LP Ranker it "
             "converges slowly (minutes at a few hundred points where HiGHS takes about a second) and often "
             "stops at its iteration or time limit with an approximate point. HiGHS is the LP solver: use "
             "solver='highs' (the default).")
"""The warning text for LPs sent to OSQP (measured on the LP Ranker LP, 300 points: no OSQP
setting of scaling, rho, adaptive rho, polishing or eps reaches HiGHS's optimum within 45 s;
HiGHS's dual simplex takes under a second)."""

#: names OSQP's ``setup`` accepts besides the fields of its settings structure
_EXTRA_SETTINGS = ("rho", "solver_type", "cg_preconditioner", "polish", "warm_start")


class OSQP(SolverBackend):
    """The OSQP backend (``solver="osqp"``): ADMM for convex QPs, with solution polishing.

    OSQP [1]_ solves ``l ≤ [A; I] x ≤ u``; the finite column bounds become identity rows.
    aucopt's defaults are tighter than OSQP's own (eps 1e-3) so that QP results agree with the
    other backends: ``eps_abs = eps_rel = 1e-6`` and ``polishing=True``, an active-set
    refinement run after ADMM converges that recovers a high-accuracy solution (objectives
    within about 1e-9 of an interior-point solver on the AUC-SVM duals). LPs run too, but a
    first-order method converges slowly on degenerate LPs such as the LP Ranker (it often
    stops at the iteration limit, reported as ``ITERATION_LIMIT``): use HiGHS for LPs.

    How the arguments of :func:`aucopt.solvers.solve` map onto OSQP settings:

    ==================  ===================================================================
    ``tol``             ``eps_abs`` and ``eps_rel`` (default 1e-6)
    ``max_iter``        ``max_iter`` (default 200,000)
    ``time_limit``      ``time_limit`` (seconds, > 0), also settable as
                        ``solver_options={"time_limit": seconds}``; a solve stopped by it
                        reports ``Status.TIME_LIMIT`` with the last ADMM iterate
    ``verbose``         ``verbose``
    ``warm_start``      ``{"x": x0, "y": y0}``, ``y0`` in aucopt's dual sign convention
    ``solver_options``  any OSQP setting by name, e.g. ``{"polishing": False, "rho": 0.1,
                        "scaling": 20}``; applied last, so it overrides the settings above
    ==================  ===================================================================

    An unknown setting, a value of the wrong type or one OSQP's validation rejects raises
    ``ValueError`` naming the setting and the value.

    Attributes
    ----------
    name : str
        ``"osqp"``.
    required_modules : tuple of str
        ``("osqp",)``.
    problem_kinds : frozenset of str
        LP and convex QP.

    See Also
    --------
    aucopt.solvers.solve : the entry point that calls this backend.
    HiGHS, CVXPY : the other backends.

    References
    ----------
    .. [1] Stellato, B., Banjac, G., Goulart, P., Bemporad, A., & Boyd, S. (2020). OSQP: An operator
       splitting solver for quadratic programs. *Mathematical Programming Computation*, 12(4),
       637–672.

    Examples
    --------
    Project the point (1, 2) onto the half-plane x₀ + x₁ ≤ 1: min ½‖x‖² − x₀ − 2x₁.

    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from aucopt import Problem, solve
    >>> qp = Problem(c=np.array([-1.0, -2.0]), A=sp.csc_matrix([[1.0, 1.0]]), row_lower=np.array([-np.inf]),
    ...              row_upper=np.array([1.0]), col_lower=np.full(2, -np.inf), col_upper=np.full(2, np.inf),
    ...              P=sp.identity(2, format="csc"), offset=2.5)
    >>> result = solve(qp, "osqp", tol=1e-8)
    >>> print(result.status, np.round(result.x, 6) + 0.0, round(result.objective, 6))
    optimal [0. 1.] 1.0
    """

    name = "osqp"
    required_modules = ("osqp",)
    problem_kinds = frozenset({"LP", "QP"})
    lp_advice = LP_ADVICE

    def solve(self, problem: Problem, *, tol: float | None = None, max_iter: int | None = None,
              time_limit: float | None = None, verbose: bool = False, warm_start: dict | None = None,
              solver_options: dict | None = None) -> SolveResult:
        """Solve ``problem`` with OSQP; see the class docstring for the settings mapping."""
        import osqp

        n, k = problem.n_vars, problem.n_rows
        bounded = np.flatnonzero(np.isfinite(problem.col_lower) | np.isfinite(problem.col_upper))
        E = sp.csc_matrix((np.ones(len(bounded)), (np.arange(len(bounded)), bounded)), shape=(len(bounded), n))
        A = sp.vstack([problem.A, E], format="csc")
        lower = np.concatenate([problem.row_lower, problem.col_lower[bounded]])
        upper = np.concatenate([problem.row_upper, problem.col_upper[bounded]])
        P = sp.csc_matrix((n, n)) if problem.P is None else sp.triu(problem.P, format="csc")
        tol = DEFAULT_TOL if tol is None else float(tol)
        settings = dict(eps_abs=tol, eps_rel=tol, polishing=True, verbose=bool(verbose),
                        max_iter=DEFAULT_MAX_ITER if max_iter is None else int(max_iter))
        if time_limit is not None:
            settings["time_limit"] = float(time_limit)
        raw = dict(solver_options or {})
        _check_settings(osqp, raw)
        settings.update(raw)
        solver = osqp.OSQP()
        try:
            solver.setup(P, problem.c, A, lower, upper, **settings)
        except osqp.OSQPException as exc:
            if _error_code(exc) == 2:  # OSQP_SETTINGS_VALIDATION_ERROR
                checked = raw or {k: v for k, v in settings.items() if k != "verbose"}  # e.g. time_limit=0
                raise ValueError(_rejected_message(osqp, checked)) from exc
            return SolveResult(status=Status.NUMERICAL_ERROR, objective=float("nan"), x=None,
                               solver=self.label, message=f"OSQP setup failed (error code {_error_code(exc)})")
        if warm_start is not None:
            solver.warm_start(**_warm_start(problem, warm_start, bounded))
        res = solver.solve(raise_error=False)
        status = _status(osqp, res.info.status_val)
        has_x = res.x is not None and np.all(np.isfinite(res.x)) and status in (
            Status.OPTIMAL, Status.OPTIMAL_INACCURATE, Status.ITERATION_LIMIT, Status.TIME_LIMIT)
        x = np.asarray(res.x, dtype=float) if has_x else None
        dual = -np.asarray(res.y[:k], dtype=float) if has_x else None  # OSQP: Px + q + Aᵀy = 0
        return SolveResult(
            status=status, objective=problem.objective(x) if x is not None else float("nan"),
            x=x, dual=dual, iterations=int(res.info.iter), solve_time=float(res.info.run_time),
            solver=self.label, message=str(res.info.status),
            info={"polished": int(getattr(res.info, "status_polish", 0)) == 1},
        )


def _warm_start(problem: Problem, warm_start: dict, bounded: np.ndarray) -> dict:
    """OSQP's ``x`` and ``y`` from aucopt's ``{"x": x0, "y": y0}``: OSQP's duals are the negated row
    duals, followed by the multipliers of the column-bound rows, which are the reduced costs
    c + P x0 − Aᵀ y0 of the bounded columns."""
    x0, y0 = warm_start.get("x"), warm_start.get("y")
    for key, value, size in (("x", x0, problem.n_vars), ("y", y0, problem.n_rows)):
        if value is not None and np.shape(value) != (size,):
            raise ValueError(f"warm_start[{key!r}] must have shape ({size},), got {np.shape(value)}.")
    out = {"x": None if x0 is None else np.asarray(x0, dtype=float)}
    if y0 is not None:
        y0 = np.asarray(y0, dtype=float)
        bound_duals = np.zeros(len(bounded))
        if x0 is not None:
            reduced = problem.c - problem.A.T @ y0
            if problem.P is not None:
                reduced = reduced + problem.P @ out["x"]
            bound_duals = reduced[bounded]
        out["y"] = -np.concatenate([y0, bound_duals])
    return out


def _settings_names(osqp) -> set:
    fields = {name for name in dir(osqp.OSQP().ext.OSQPSettings) if not name.startswith("_")}
    return fields | set(_EXTRA_SETTINGS)


def _check_settings(osqp, raw: dict) -> None:
    """Name the first unknown or wrongly typed OSQP setting of ``raw``."""
    if not raw:
        return
    names = _settings_names(osqp)
    probe = osqp.OSQP().ext.OSQPSettings()
    for key, value in raw.items():
        if key not in names:
            raise ValueError(f"OSQP has no setting {key!r} (solver_options); its settings are "
                             f"{sorted(names)}.")
        if hasattr(probe, key):
            try:
                setattr(probe, key, value)
            except TypeError as exc:
                raise ValueError(f"OSQP rejected the setting {key!r} = {value!r}: wrong type.") from exc


def _rejected_message(osqp, raw: dict) -> str:
    """Find the setting OSQP's validation rejects by setting each one up on a 1-variable QP."""
    one = sp.csc_matrix(np.ones((1, 1)))
    for key, value in raw.items():
        try:
            osqp.OSQP().setup(one, np.zeros(1), one, np.zeros(1), np.ones(1), verbose=False, **{key: value})
        except osqp.OSQPException:
            return f"OSQP rejected the setting {key!r} = {value!r} (out of range; see OSQP's settings)."
    return f"OSQP rejected the settings {raw!r} (out of range; see OSQP's settings)."


def _error_code(exc) -> int | None:
    code = exc.args[0] if exc.args else None
    try:
        return int(code)
    except (TypeError, ValueError):
        return None


def _status(osqp, code: int) -> Status:
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
