"""cvxpy backend: any conic / QP solver installed for cvxpy (Clarabel by default)."""

from __future__ import annotations

import functools
import os
import sys
import warnings
from dataclasses import dataclass
from numbers import Real
from typing import Any

import numpy as np

from ..modeling.problem import Problem
from .base import SolverBackend, SolveResult, Status

__all__ = ["CVXPY"]

#: cvxpy ``solve`` keywords that ``tol`` / ``max_iter`` / ``time_limit`` set, per cvxpy solver
TOLERANCE_KEYS = {
    "CLARABEL": ("tol_gap_abs", "tol_gap_rel", "tol_feas"),
    "SCS": ("eps_abs", "eps_rel"),
    "ECOS": ("abstol", "reltol", "feastol"),
    "ECOS_BB": ("abstol", "reltol", "feastol"),
    "OSQP": ("eps_abs", "eps_rel"),
    "HIGHS": ("primal_feasibility_tolerance", "dual_feasibility_tolerance"),
}
ITERATION_KEYS = {
    "CLARABEL": ("max_iter",),
    "SCS": ("max_iters",),
    "ECOS": ("max_iters",),
    "ECOS_BB": ("max_iters",),
    "OSQP": ("max_iter",),
    "HIGHS": ("simplex_iteration_limit", "ipm_iteration_limit", "qp_iteration_limit"),
}
TIME_LIMIT_KEYS = {"CLARABEL": "time_limit", "SCS": "time_limit_secs", "HIGHS": "time_limit",
                   "OSQP": "time_limit"}
"""The solver keyword of a time limit: ``time_limit`` (the argument, or the key of the same name
in ``solver_options``) is passed under this name. A cvxpy solver missing here has no time limit."""


class CVXPY(SolverBackend):
    """The cvxpy backend (``solver="cvxpy"``, ``"cvxpy:<NAME>"`` or a bare cvxpy solver name).

    The standard form is stated in cvxpy [1]_ as ``cp.Variable(n)`` with ``A x`` split into
    equality rows and finite lower / upper inequality rows, so every conic or QP solver cvxpy
    knows can be used: ``"cvxpy"`` is Clarabel [2]_, ``"cvxpy:scs"``, ``"cvxpy:ecos"``, ... or
    just ``"clarabel"``, ``"scs"``, ``"ecos"`` (a bare name that is not a registry backend).
    Interior-point solvers such as Clarabel are robust but slower than HiGHS's simplex on the
    degenerate LP Ranker.

    How the arguments of :func:`aucopt.solvers.solve` map onto ``cvxpy.Problem.solve``:

    ==================  ===================================================================
    ``tol``             the solver's tolerances (:data:`TOLERANCE_KEYS`: Clarabel
                        ``tol_gap_abs``, ``tol_gap_rel``, ``tol_feas``; SCS ``eps_abs``,
                        ``eps_rel``; ECOS ``abstol``, ``reltol``, ``feastol``; ...); None
                        keeps the solver's defaults
    ``max_iter``        the solver's iteration limit (:data:`ITERATION_KEYS`)
    ``time_limit``      the solver's time limit (:data:`TIME_LIMIT_KEYS`: Clarabel, HiGHS and
                        OSQP ``time_limit``, SCS ``time_limit_secs``); ECOS and the other
                        solvers have none and raise ``ValueError`` when one is asked for
    ``verbose``         ``verbose``: cvxpy's log and the solver's own
    ``warm_start``      ``{"x": x0}``: the variable's starting value, with ``warm_start=True``
    ``solver_options``  ``solve`` keywords, passed unchanged (e.g. Clarabel settings
                        ``{"tol_feas": 1e-10}``); applied last, so they override the above.
                        One exception: ``{"time_limit": seconds}`` is the time limit on every
                        solver that has one, renamed to the solver's keyword (SCS:
                        ``time_limit_secs``)
    ==================  ===================================================================

    A solve stopped by the time limit reports :attr:`Status.TIME_LIMIT` with the solver's last
    point (cvxpy's ``user_limit``, or SCS's "inaccurate - reached time_limit_secs").

    ``tol`` or ``max_iter`` for a cvxpy solver without a known mapping raise ``ValueError``
    (pass the solver's own keywords in ``solver_options`` instead); so do keywords the solver
    rejects.

    Parameters
    ----------
    solver : str, default="CLARABEL"
        The cvxpy solver name (any of ``cvxpy.installed_solvers()``).

    Attributes
    ----------
    name : str
        ``"cvxpy"``.
    required_modules : tuple of str
        ``("cvxpy",)``.
    problem_kinds : frozenset of str
        LP and convex QP.

    See Also
    --------
    aucopt.solvers.solve : the entry point that calls this backend.
    HiGHS, OSQP : the other backends.

    References
    ----------
    .. [1] Diamond, S., & Boyd, S. (2016). CVXPY: A Python-embedded modeling language for convex
       optimization. *JMLR*, 17(83), 1–5.
    .. [2] Goulart, P. J., & Chen, Y. (2024). Clarabel: An interior-point solver for conic programs
       with quadratic objectives. arXiv:2405.12762.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from aucopt import Problem, solve
    >>> lp = Problem(c=np.array([1.0, 2.0]), A=sp.csc_matrix([[1.0, 1.0]]), row_lower=np.array([1.0]),
    ...              row_upper=np.array([np.inf]), col_lower=np.zeros(2), col_upper=np.full(2, np.inf))
    >>> result = solve(lp, "clarabel", tol=1e-9)
    >>> print(result.solver, result.status, np.round(result.x, 6), np.round(result.dual, 6))
    cvxpy:clarabel optimal [1. 0.] [1.]
    """

    name = "cvxpy"
    required_modules = ("cvxpy",)
    problem_kinds = frozenset({"LP", "QP"})

    def __init__(self, solver: str = "CLARABEL"):
        self.solver = str(solver).upper()

    @property
    def label(self) -> str:
        """``"cvxpy:<solver>"`` in lower case, e.g. ``"cvxpy:clarabel"``."""
        return f"cvxpy:{self.solver.lower()}"

    @property
    def lp_advice(self) -> str:
        """OSQP's advice when cvxpy fronts OSQP ("" for the other solvers)."""
        from .osqp import LP_ADVICE

        return LP_ADVICE if self.solver == "OSQP" else ""

    @property
    def has_time_limit(self) -> bool:
        """Whether the cvxpy solver has a time limit (:data:`TIME_LIMIT_KEYS`)."""
        return self.solver in TIME_LIMIT_KEYS

    def variants(self) -> list[str]:
        """The installed cvxpy solvers, lower case."""
        return [name.lower() for name in installed_solvers()]

    def variant(self, name: str) -> CVXPY:
        """The backend for the cvxpy solver ``name`` (checked to be installed)."""
        installed = [v.upper() for v in self.variants()]
        if name.upper() not in installed:
            raise ValueError(f"Unknown solver 'cvxpy:{name}': cvxpy solver {name.upper()!r} is not installed; "
                             f"installed cvxpy solvers: {installed}.")
        return CVXPY(name.upper())

    def __repr__(self) -> str:
        return f"CVXPY({self.solver!r})"

    def solve(self, problem: Problem, *, tol: float | None = None, max_iter: int | None = None,
              time_limit: float | None = None, verbose: bool = False, warm_start: dict | None = None,
              solver_options: dict | None = None) -> SolveResult:
        """Solve ``problem`` with the cvxpy solver; see the class docstring for the mapping.

        As cvxpy's own solver interfaces do: the options are translated (:meth:`options`), the
        problem is stated in cvxpy (:func:`apply`), solved, and the solution inverted back to
        aucopt's status, primal point and row duals (:meth:`invert`).
        """
        import cvxpy as cp

        solver = self.solver
        if solver not in installed_solvers():
            raise ValueError(f"cvxpy solver {solver!r} is not installed; installed: {list(installed_solvers())}.")
        kwargs = self.options(tol=tol, max_iter=max_iter, time_limit=time_limit, verbose=verbose,
                              solver_options=solver_options)
        if solver == "HIGHS" and not verbose:
            _silence_highs_banner()
        data = apply(problem)
        if warm_start is not None and warm_start.get("x") is not None:
            data.x.value = _start_point(warm_start["x"], problem.n_vars)
            kwargs.setdefault("warm_start", True)
        try:
            with warnings.catch_warnings():  # cvxpy's "may be inaccurate": the status says it
                warnings.filterwarnings("ignore", message="Solution may be inaccurate", category=UserWarning)
                data.problem.solve(solver=solver, **kwargs)
        except cp.error.SolverError as exc:
            return SolveResult(status=Status.NUMERICAL_ERROR, objective=float("nan"), x=None,
                               solver=self.label, message=str(exc))
        except (TypeError, ValueError) as exc:
            if not solver_options:
                raise
            raise ValueError(f"The cvxpy solver {solver} rejected solver_options {dict(solver_options)!r}: "
                             f"{exc}") from exc
        return self.invert(data, problem, kwargs)

    def options(self, *, tol: float | None = None, max_iter: int | None = None, time_limit: float | None = None,
                verbose: bool = False, solver_options: dict | None = None) -> dict[str, Any]:
        """The keywords of ``cvxpy.Problem.solve`` for the arguments of :meth:`solve` (the solver aside).

        ``tol``, ``max_iter`` and ``time_limit`` become the solver's own keywords
        (:data:`TOLERANCE_KEYS`, :data:`ITERATION_KEYS`, :data:`TIME_LIMIT_KEYS`);
        ``solver_options`` are applied last, ``{"time_limit": seconds}`` renamed to the solver's
        keyword. Raises ``ValueError`` for an option without a mapping for this solver.
        """
        solver = self.solver
        raw = dict(solver_options or {})
        if "solver" in raw:
            raise ValueError(f"solver_options may not name the cvxpy solver (got solver={raw['solver']!r}); "
                             "choose it with solver='cvxpy:<NAME>'.")
        kwargs: dict[str, Any] = {"verbose": bool(verbose)}
        if tol is not None:
            kwargs.update(dict.fromkeys(self._keys(TOLERANCE_KEYS, "tol", tol), float(tol)))
        if max_iter is not None:
            kwargs.update(dict.fromkeys(self._keys(ITERATION_KEYS, "max_iter", max_iter), int(max_iter)))
        if "time_limit" in raw:  # the one spelling of a time limit, whatever the solver's keyword
            time_limit = raw.pop("time_limit")
            _check_seconds(time_limit)
        if time_limit is not None:
            if solver not in TIME_LIMIT_KEYS:
                raise ValueError(f"The cvxpy solver {solver} has no time limit (time_limit={time_limit!r}); "
                                 f"drop the time limit or choose a solver that has one: "
                                 f"{sorted(name.lower() for name in TIME_LIMIT_KEYS)}.")
            # SCS reads 0 as "no limit"; every other backend stops at once
            kwargs[TIME_LIMIT_KEYS[solver]] = max(float(time_limit), 1e-9) if solver == "SCS" else float(time_limit)
        kwargs.update(raw)
        return kwargs

    def _keys(self, table: dict[str, tuple[str, ...]], what: str, value: float) -> tuple[str, ...]:
        """The solver's keywords for ``what`` in ``table``, or a ValueError when it has none."""
        if self.solver not in table:
            raise ValueError(f"{what}={value!r} has no known mapping for the cvxpy solver {self.solver}; "
                             f"leave {what}=None and pass the solver's own keyword in solver_options.")
        return table[self.solver]

    def invert(self, data: CvxpyData, problem: Problem, kwargs: dict[str, Any]) -> SolveResult:
        """The :class:`SolveResult` of a solved :class:`CvxpyData`: cvxpy's status mapped onto
        :class:`Status`, the primal point, and the row duals in aucopt's sign convention."""
        import cvxpy as cp

        prob, x = data.problem, data.x
        status = _status(cp, prob.status, prob.solver_stats, self.solver, kwargs)
        xv = None if x.value is None else np.asarray(x.value, dtype=float)
        dual = data.row_duals(problem.n_rows) if xv is not None else None
        stats = prob.solver_stats
        return SolveResult(
            status=status, objective=problem.objective(xv) if xv is not None else float("nan"),
            x=xv, dual=dual, iterations=int(stats.num_iters or 0) if stats else 0,
            solve_time=float(stats.solve_time) if stats and stats.solve_time is not None else float("nan"),
            solver=self.label, message=str(prob.status),
            info={"compilation_time": getattr(prob, "compilation_time", None)},
        )


@dataclass
class CvxpyData:
    """The standard form stated in cvxpy: the problem, its variable and the row constraint groups.

    ``groups`` holds ``(constraint, rows, sign)``: the equality rows, the finite lower and the
    finite upper inequality rows of ``A x``, each with the sign that maps its cvxpy dual onto
    aucopt's convention (≥ 0 at a row's lower bound).
    """

    problem: Any
    x: Any
    groups: list[tuple[Any, np.ndarray, float]]

    def row_duals(self, n_rows: int) -> np.ndarray | None:
        """The row duals in aucopt's sign convention; None when cvxpy has none for some group."""
        if not all(con.dual_value is not None for con, _, _ in self.groups):
            return None
        dual = np.zeros(n_rows)
        for con, rows, sign in self.groups:
            dual[rows] += sign * np.asarray(con.dual_value, dtype=float).ravel()
        return dual


@functools.cache
def installed_solvers() -> tuple[str, ...]:
    """``cvxpy.installed_solvers()``, asked once per process (empty without cvxpy).

    cvxpy answers by trying to import every solver it knows, about 5 ms each time: asked at
    every solve and registry look-up, that was half the time of a small fit.
    """
    try:
        import cvxpy
    except ImportError:  # pragma: no cover
        return ()
    return tuple(cvxpy.installed_solvers())


def apply(problem: Problem) -> CvxpyData:
    """State ``problem`` in cvxpy: ``cp.Variable(n)``, ``A x`` split into equality rows and finite
    lower / upper inequality rows, the finite column bounds, and ½ xᵀPx + cᵀx + offset."""
    import cvxpy as cp

    x = cp.Variable(problem.n_vars)
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
    lower, upper = np.flatnonzero(np.isfinite(cl)), np.flatnonzero(np.isfinite(cu))
    if len(lower):
        cons.append(x[lower] >= cl[lower])
    if len(upper):
        cons.append(x[upper] <= cu[upper])
    objective = problem.c @ x + problem.offset
    if problem.P is not None:
        objective = objective + 0.5 * cp.quad_form(x, problem.P, assume_PSD=True)
    return CvxpyData(cp.Problem(cp.Minimize(objective), cons), x, groups)


def _start_point(x0: Any, n: int) -> np.ndarray:
    """``warm_start['x']`` as a float vector of ``n`` entries, or a ValueError."""
    x0 = np.asarray(x0, dtype=float)
    if x0.shape != (n,):
        raise ValueError(f"warm_start['x'] must have shape ({n},), got {x0.shape}.")
    return x0


def _check_seconds(value: Any) -> None:
    """Refuse a ``solver_options['time_limit']`` that is not a number of seconds >= 0."""
    if not (isinstance(value, Real) and not isinstance(value, bool) and float(value) >= 0):
        raise ValueError(f"solver_options['time_limit'] must be a number of seconds >= 0; got {value!r}.")


def _status(cp, status: str, stats, solver: str = "", kwargs: dict | None = None) -> Status:
    if status == cp.USER_LIMIT:  # cvxpy's one code for both limits: ask the solver which one
        return _user_limit(stats, solver, kwargs or {})
    if status == cp.OPTIMAL_INACCURATE:  # SCS: "solved (inaccurate - reached time_limit_secs)"
        text = _solver_status_text(stats)
        if "time_limit" in text:
            return Status.TIME_LIMIT
        if "max_iters" in text:
            return Status.ITERATION_LIMIT
    return {
        cp.OPTIMAL: Status.OPTIMAL,
        cp.OPTIMAL_INACCURATE: Status.OPTIMAL_INACCURATE,
        cp.INFEASIBLE: Status.INFEASIBLE,
        cp.INFEASIBLE_INACCURATE: Status.INFEASIBLE,
        cp.UNBOUNDED: Status.UNBOUNDED,
        cp.UNBOUNDED_INACCURATE: Status.UNBOUNDED,
        cp.SOLVER_ERROR: Status.NUMERICAL_ERROR,
    }.get(status, Status.ERROR)


def _user_limit(stats, solver: str, kwargs: dict) -> Status:
    """Which limit cvxpy's ``user_limit`` stands for: TIME_LIMIT or ITERATION_LIMIT.

    The solver's own status text decides when cvxpy keeps it; otherwise (Clarabel's
    ``extra_stats`` is empty) the limits that were set do: the iteration count reaching the
    iteration cap means ITERATION_LIMIT, a time cap that was set and not an iteration cap that
    was reached means TIME_LIMIT.
    """
    text = _solver_status_text(stats)
    if "time" in text:
        return Status.TIME_LIMIT
    if "iter" in text:
        return Status.ITERATION_LIMIT
    caps = [kwargs[key] for key in ITERATION_KEYS.get(solver, ()) if kwargs.get(key) is not None]
    iterations = getattr(stats, "num_iters", None)
    if caps and iterations is not None and iterations >= min(caps):
        return Status.ITERATION_LIMIT
    if kwargs.get(TIME_LIMIT_KEYS.get(solver, "time_limit")) is not None:
        return Status.TIME_LIMIT
    return Status.ITERATION_LIMIT


def _solver_status_text(stats) -> str:
    """The solver's own status text from cvxpy's ``solver_stats`` (lower case; "" when absent)."""
    extra = getattr(stats, "extra_stats", None)
    info = extra.get("info", {}) if isinstance(extra, dict) else {}
    return str(getattr(extra, "status", None) or (info.get("status", "") if isinstance(info, dict) else "")).lower()


_HIGHS_BANNER = {"silenced": False}


def _silence_highs_banner() -> None:
    """Create the process's first ``highspy.Highs`` with the standard output closed.

    HiGHS prints its banner from C++ when the first ``Highs`` object of a process is built,
    before cvxpy can pass ``verbose=False``; building that first object here, with file
    descriptor 1 pointed at the null device, keeps a quiet solve quiet.
    """
    if _HIGHS_BANNER["silenced"]:
        return
    _HIGHS_BANNER["silenced"] = True
    import highspy

    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (OSError, ValueError, AttributeError):  # no file descriptor 1 to redirect
        return
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
