"""OSQP backend (operator splitting / ADMM) for convex QPs, and LPs at moderate accuracy."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..modeling.problem import Problem
from .base import SolverBackend, SolveResult, Status

__all__ = ["OSQP", "clear_cache"]

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

CACHE_SIZE = 1
"""How many set-up OSQP solvers the backend keeps for warm-started re-solves (0: none).

Each kept solver holds its problem's factorization; one is enough for a path of parameters
(a C path re-solves one sparsity pattern), and a solve never waits for another: a solver in
use by one thread is out of the cache until it returns."""


@dataclass
class _Cached:
    """A set-up ``osqp.OSQP`` and the data it holds, to update it for a problem of the same pattern."""

    solver: Any  # osqp.OSQP (osqp is imported inside solve only)
    P: sp.csc_matrix
    A: sp.csc_matrix
    q: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    settings: dict


_CACHE: OrderedDict = OrderedDict()
_MISSING = object()
_CACHE_LOCK = threading.Lock()


def clear_cache() -> None:
    """Drop the OSQP solvers kept for warm-started re-solves (and their factorizations).

    Examples
    --------
    >>> from aucopt.solvers.osqp import clear_cache
    >>> clear_cache()
    """
    with _CACHE_LOCK:
        _CACHE.clear()


#: OSQP settings that ``update_settings`` changes on a set-up solver (the others, such as
#: ``scaling``, ``sigma``, ``adaptive_rho`` or ``linsys_solver``, are fixed at setup)
_UPDATABLE_SETTINGS = frozenset({"verbose", "warm_starting", "polishing", "alpha", "max_iter", "eps_abs", "eps_rel",
                                 "eps_prim_inf", "eps_dual_inf", "scaled_termination", "check_termination",
                                 "check_dualgap", "time_limit", "delta", "polish_refine_iter"})


def _cache_key(P, A, settings: dict) -> tuple:
    """Shapes, nonzero counts and the settings fixed at setup: what two problems must share for one
    solver to serve both (the sparsity patterns are compared on a hit)."""
    fixed = tuple(sorted((k, repr(v)) for k, v in settings.items() if k not in _UPDATABLE_SETTINGS | {"rho"}))
    return (P.shape, A.shape, P.nnz, A.nnz, fixed)


def _same_pattern(a: sp.csc_matrix, b: sp.csc_matrix) -> bool:
    return np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)


def _take_cached(key, P, A) -> _Cached | None:
    """The cached solver for ``key`` whose P and A have the sparsity pattern of ``P`` and ``A``, removed
    from the cache while in use; None when there is none (or the cache is off)."""
    if CACHE_SIZE <= 0:
        return None
    with _CACHE_LOCK:
        entry = _CACHE.get(key)
        if entry is None or not (_same_pattern(entry.P, P) and _same_pattern(entry.A, A)):
            return None
        del _CACHE[key]
    return entry


def _put_cached(key, entry: _Cached) -> None:
    if CACHE_SIZE <= 0:
        return
    with _CACHE_LOCK:
        _CACHE[key] = entry
        _CACHE.move_to_end(key)
        while len(_CACHE) > CACHE_SIZE:
            _CACHE.popitem(last=False)


def _update(entry: _Cached, P, q, A, lower, upper, settings: dict) -> None:
    """Load a problem of the cached pattern into the cached solver: ``update_settings`` with the
    settings that changed, ``update`` with the vectors and only the matrices whose values changed
    (a changed matrix costs a numeric refactorization, an unchanged one nothing).

    The solver keeps the step size ρ that ADMM adapted on the previous solve, unless ``rho`` is
    set, which restarts ADMM from it (and from the iterates of a fresh setup on the same data)."""
    new_settings = {k: v for k, v in settings.items() if k == "rho" or entry.settings.get(k, _MISSING) != v}
    defaults = None
    for k in entry.settings.keys() - settings.keys():  # e.g. a time limit the new solve does not set
        if defaults is None:
            defaults = entry.solver.ext.OSQPSettings()
            entry.solver.ext.osqp_set_default_settings(defaults)
        new_settings[k] = getattr(defaults, k)
    if new_settings:
        entry.solver.update_settings(**new_settings)
    changed = {}
    for key, new, old in (("q", q, entry.q), ("l", lower, entry.lower), ("u", upper, entry.upper)):
        if not np.array_equal(new, old):
            changed[key] = new
    for key, new, old in (("Px", P, entry.P), ("Ax", A, entry.A)):
        if not np.array_equal(new.data, old.data):
            changed[key] = new.data.astype(float)
    if changed:
        entry.solver.update(**changed)


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
    ``warm_start``      ``{"x": x0, "y": y0}``, ``y0`` in aucopt's dual sign convention;
                        a warm-started solve also reuses the set-up solver of the last
                        problem with the same sparsity pattern (below)
    ``solver_options``  any OSQP setting by name, e.g. ``{"polishing": False, "rho": 0.1,
                        "scaling": 20}``; applied last, so it overrides the settings above
    ==================  ===================================================================

    An unknown setting, a value of the wrong type or one OSQP's validation rejects raises
    ``ValueError`` naming the setting and the value.

    Re-solves: the backend keeps the last set-up ``osqp.OSQP`` (:data:`CACHE_SIZE` of them),
    keyed by the shapes, the sparsity patterns of P and [A; I] and the settings fixed at setup
    (``scaling``, ``sigma``, ``adaptive_rho``, ...), as cvxpy's OSQP interface does. A solve
    with ``warm_start`` on a problem of the same pattern (a path of C: only the bounds, or the
    values, change) calls ``update(q=, l=, u=)``, ``update(Px=, Ax=)`` for a matrix whose
    values changed and ``update_settings`` for changed tolerances or limits, then
    ``warm_start(x=, y=)``, instead of ``setup``: no new scaling or symbolic factorization, and
    ADMM starts from the step size ρ it adapted on the previous solve (``info["reused_setup"]``
    says which). Measured on C paths of the AUC-SVM dual (10 values of C from 1e-3 to 1e-1, each
    solve warm-started from the previous one): 150 standardized WDBC rows, linear kernel, 3.7 s
    instead of 6.2 s (27,150 ADMM iterations instead of 46,075); 200 WDBC points, RBF kernel,
    3.6 s instead of 4.9 s. The kept ρ is a different start from a fresh setup's, so on an
    ill-conditioned QP the iteration count can also grow; ``solver_options={"rho": 0.1}``
    restarts from a given ρ (the iterates of a fresh setup on the same P and A). A solve without
    ``warm_start`` always sets up afresh, so that a cold solve does not depend on the previous
    one; :func:`clear_cache` drops the kept solvers (and their factorizations).

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
        for M in (P, A):  # canonical CSC: the data order OSQP's update(Px=, Ax=) expects
            M.sum_duplicates()
            M.sort_indices()
        q = np.asarray(problem.c, dtype=float)
        tol = DEFAULT_TOL if tol is None else float(tol)
        settings = dict(eps_abs=tol, eps_rel=tol, polishing=True, verbose=bool(verbose),
                        max_iter=DEFAULT_MAX_ITER if max_iter is None else int(max_iter))
        if time_limit is not None:
            settings["time_limit"] = float(time_limit)
        raw = dict(solver_options or {})
        _check_settings(osqp, raw)
        settings.update(raw)
        start = None if warm_start is None else _warm_start(problem, warm_start, bounded)
        key = _cache_key(P, A, settings)
        entry = _take_cached(key, P, A) if start is not None else None
        if entry is not None:
            try:
                _update(entry, P, q, A, lower, upper, settings)
            except (osqp.OSQPException, ValueError, RuntimeError):
                entry = None  # set up afresh below
        reused = entry is not None
        if entry is None:
            solver = osqp.OSQP()
            try:
                solver.setup(P, q, A, lower, upper, **settings)
            except osqp.OSQPException as exc:
                if _error_code(exc) == 2:  # OSQP_SETTINGS_VALIDATION_ERROR
                    checked = raw or {k: v for k, v in settings.items() if k != "verbose"}  # e.g. time_limit=0
                    raise ValueError(_rejected_message(osqp, checked)) from exc
                return SolveResult(status=Status.NUMERICAL_ERROR, objective=float("nan"), x=None,
                                   solver=self.label, message=f"OSQP setup failed (error code {_error_code(exc)})")
            entry = _Cached(solver, P, A, q, lower, upper, settings)
        else:
            entry = _Cached(entry.solver, P, A, q, lower, upper, settings)
        if start is not None:
            entry.solver.warm_start(**start)
        res = entry.solver.solve(raise_error=False)
        status = _status(osqp, res.info.status_val)
        has_x = res.x is not None and np.all(np.isfinite(res.x)) and status in (
            Status.OPTIMAL, Status.OPTIMAL_INACCURATE, Status.ITERATION_LIMIT, Status.TIME_LIMIT)
        x = np.array(res.x, dtype=float) if has_x else None  # a copy: the solver's memory is reused
        dual = -np.array(res.y[:k], dtype=float) if has_x else None  # OSQP: Px + q + Aᵀy = 0
        result = SolveResult(
            status=status, objective=problem.objective(x) if x is not None else float("nan"),
            x=x, dual=dual, iterations=int(res.info.iter), solve_time=float(res.info.run_time),
            solver=self.label, message=str(res.info.status),
            info={"polished": int(getattr(res.info, "status_polish", 0)) == 1, "reused_setup": reused},
        )
        _put_cached(key, entry)
        return result


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
    if code is None:
        return None
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
