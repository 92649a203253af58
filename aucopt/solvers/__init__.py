"""Solver backends behind one registry and one entry point, :func:`solve`.

Every backend solves the same standard form, :class:`~aucopt.modeling.Problem` (an LP or a convex
QP), and returns a :class:`SolveResult` whose ``status`` is one of the :class:`Status` codes:

* ``"highs"`` — :class:`HiGHS` (highspy): dual simplex for LPs, HiGHS's QP solver for QPs;
* ``"osqp"`` — :class:`OSQP`: ADMM for QPs (LPs at moderate accuracy);
* ``"cvxpy"`` — :class:`CVXPY`: Clarabel through cvxpy; ``"cvxpy:<NAME>"`` or a bare installed cvxpy
  solver name such as ``"clarabel"``, ``"scs"``, ``"ecos"`` selects another cvxpy solver.

:func:`available_solvers` lists the names usable here; :func:`check_solver` validates one before
any work. All backends take the same arguments: ``tol`` and ``max_iter`` are mapped by each
backend onto its own tolerance and iteration-limit options (None keeps aucopt's default for the
backend), and ``solver_options`` is the backend's own raw options dict, passed unchanged (HiGHS
option names, OSQP settings, cvxpy ``solve`` keywords) and applied last.

Row duals follow one sign convention whatever the backend: at an optimum c + P x − Aᵀ y is zero
up to the column-bound multipliers, with ``y_r ≥ 0`` when row r is held at its lower bound and
``y_r ≤ 0`` at its upper bound (HiGHS's convention).

Adding a backend
----------------
Write one file in this package with a subclass of :class:`SolverBackend` that sets ``name``,
``required_modules`` and ``problem_kinds`` and implements ``solve(problem, *, tol, max_iter,
time_limit, verbose, warm_start, solver_options) -> SolveResult`` (importing its solver library
inside ``solve``, mapping the solver's status codes onto :class:`Status`, raising ``ValueError``
for options the solver rejects, and accepting ``solver_options={"time_limit": seconds}`` or saying
that it cannot); a backend that is a poor choice for LPs also sets ``lp_advice`` (see
:func:`lp_advice`). Then add one line to ``REGISTRY`` below. :func:`solve`,
:func:`check_solver`, :func:`available_solvers` and every estimator's ``solver=`` parameter then
know it.
"""

from __future__ import annotations

import logging
import time
from numbers import Integral, Real

import numpy as np

from .._solver_registry import register as _register_solver_layer
from ..exceptions import SolverError, SolverWarning
from ..modeling.problem import Problem
from .base import USABLE, SolverBackend, SolveResult, Status
from .cvxpy import CVXPY
from .highs import HiGHS, IncrementalLP
from .osqp import OSQP

__all__ = [
    "CVXPY",
    "OSQP",
    "REGISTRY",
    "USABLE",
    "HiGHS",
    "IncrementalLP",
    "SolveResult",
    "SolverBackend",
    "SolverError",
    "SolverWarning",
    "Status",
    "available_solvers",
    "check_solver",
    "lp_advice",
    "solve",
]

REGISTRY: dict[str, SolverBackend] = {backend.name: backend for backend in (
    HiGHS(),
    OSQP(),
    CVXPY(),
)}
"""The backends by name, one line each: the single source of :func:`solve` and :func:`available_solvers`."""

_LOG = logging.getLogger(__name__)


def _resolve(solver: str) -> SolverBackend:
    """The backend for a ``solver=`` name: a registry name, ``"<name>:<variant>"`` or a bare variant."""
    if not isinstance(solver, str):
        raise ValueError(f"solver must be a string name such as 'highs'; got {solver!r}.")
    key = solver.strip().lower()
    backend = None
    if key in REGISTRY:
        backend = REGISTRY[key]
    elif ":" in key:
        base, _, variant = key.partition(":")
        if base in REGISTRY:
            _check_available(REGISTRY[base], solver)
            backend = REGISTRY[base].variant(variant)
    else:
        for candidate in REGISTRY.values():
            if candidate.is_available() and key in candidate.variants():
                backend = candidate.variant(key)
                break
    if backend is None:
        raise ValueError(f"Unknown solver {solver!r}; available: {available_solvers()} "
                         "(or 'cvxpy:<name>' for any installed cvxpy solver).")
    _check_available(backend, solver)
    return backend


def _check_available(backend: SolverBackend, solver: str) -> None:
    missing = backend.missing_modules()
    if missing:
        raise ValueError(f"The solver {solver!r} needs the Python module(s) {missing}, which are not "
                         f"installed; install them or choose one of {available_solvers()}.")


def available_solvers() -> list[str]:
    """Names accepted by ``solver=`` here, from the registry.

    Returns
    -------
    list of str
        The registry backends whose modules import (``"highs"``, ``"osqp"``, ``"cvxpy"``), followed
        by the solvers they front (the installed cvxpy solvers, lower case), without duplicates.

    See Also
    --------
    check_solver : validate one name.
    solve : solve a problem with a named backend.

    Examples
    --------
    >>> from aucopt.solvers import available_solvers
    >>> names = available_solvers()
    >>> {"highs", "osqp", "cvxpy", "clarabel"} <= set(names)
    True
    """
    names = []
    for name, backend in REGISTRY.items():
        if backend.is_available():
            names.append(name)
            names += backend.variants()
    return list(dict.fromkeys(names))


def check_solver(solver: str) -> str:
    """Validate a solver name before any work; return it unchanged.

    Parameters
    ----------
    solver : str
        A name of :func:`available_solvers`, ``"cvxpy:<NAME>"``, case and surrounding spaces ignored.

    Returns
    -------
    str
        ``solver``.

    Raises
    ------
    ValueError
        For an unknown name, a cvxpy solver that is not installed, or a backend whose Python
        module is missing; the message lists the available names.

    See Also
    --------
    available_solvers : the names accepted.

    Examples
    --------
    >>> from aucopt.solvers import check_solver
    >>> check_solver("cvxpy:clarabel")
    'cvxpy:clarabel'
    >>> check_solver("gurobi_9000")
    Traceback (most recent call last):
    ...
    ValueError: Unknown solver 'gurobi_9000'; available: ...
    """
    _resolve(solver)
    return solver


def lp_advice(solver: str) -> str:
    """Why ``solver`` is a poor choice for LPs, or "" when it is a fine one.

    Parameters
    ----------
    solver : str
        A name accepted by :func:`check_solver`.

    Returns
    -------
    str
        The advice (for OSQP, directly or through cvxpy: it is meant for QPs and HiGHS is the
        LP solver); estimators that build an LP issue it as a
        :class:`~aucopt.exceptions.SolverWarning` at fit time.

    Examples
    --------
    >>> from aucopt.solvers import lp_advice
    >>> lp_advice("highs")
    ''
    >>> "HiGHS is the LP solver" in lp_advice("osqp")
    True
    """
    return _resolve(solver).lp_advice


def solve(problem: Problem, solver: str = "highs", *, tol: float | None = None, max_iter: int | None = None,
          time_limit: float | None = None, verbose: bool = False, warm_start: dict | None = None,
          solver_options: dict | None = None) -> SolveResult:
    """Solve a standard-form LP or convex QP with a named backend.

    Parameters
    ----------
    problem : Problem
        The problem, e.g. from ``get_formulation(name).build(...)``.
    solver : str, default="highs"
        The backend: a name of :func:`available_solvers` or ``"cvxpy:<NAME>"``.
    tol : float, default=None
        Stopping / feasibility tolerance, mapped by the backend onto its own options (HiGHS:
        primal and dual feasibility tolerances; OSQP: ``eps_abs`` and ``eps_rel``; Clarabel:
        gap and feasibility tolerances). None: aucopt's default for the backend (HiGHS 1e-9 for
        LPs and 1e-7 for QPs, OSQP 1e-6, the cvxpy solver's own).
    max_iter : int, default=None
        Iteration limit, mapped onto the backend's (HiGHS: simplex, IPM, QP and PDLP iteration
        limits; OSQP: ``max_iter``, default 200,000). None: the backend's default.
    time_limit : float, default=None
        Time limit in seconds (HiGHS, OSQP, and through cvxpy Clarabel, SCS, HiGHS and OSQP;
        a cvxpy solver without one, such as ECOS, raises ``ValueError``). A solve stopped by it
        reports :attr:`Status.TIME_LIMIT` with the backend's last point.
    verbose : bool or int, default=False
        Print the backend's own log (HiGHS ``output_flag``, OSQP ``verbose``, cvxpy
        ``verbose``); False prints nothing.
    warm_start : dict, default=None
        Starting point ``{"x": x0}`` (all backends; OSQP also takes ``"y"``, duals in aucopt's
        sign convention).
    solver_options : dict, default=None
        The backend's raw options, passed unchanged and applied last (so they override the
        settings above): HiGHS option names (``{"solver": "ipm", "presolve": "off"}``), OSQP
        settings (``{"polishing": False}``), cvxpy ``solve`` keywords. An option the backend does
        not accept raises ``ValueError`` naming it. ``{"time_limit": seconds}`` is the time limit
        on every backend (HiGHS's and OSQP's own name; renamed for the cvxpy solver, e.g. SCS's
        ``time_limit_secs``).

    Returns
    -------
    SolveResult
        Status, primal point, row duals and statistics. A solver failure is reported in
        ``result.status``, never raised; a usable status (``optimal``, ``optimal_inaccurate``,
        ``time_limit``, ``iteration_limit``) always comes with a finite point and objective: a
        backend's point with NaN or infinite entries, or a non-finite objective, is reported as
        ``numerical_error`` with ``x=None``; call ``result.raise_for_status()`` to raise
        :class:`~aucopt.exceptions.SolverError` (or warn for approximate points).

    Raises
    ------
    ValueError
        For an unknown solver, a problem kind the backend does not accept, invalid ``tol``,
        ``max_iter``, ``time_limit`` or ``solver_options``, an option the backend rejects, or
        problem data changed in place since the problem was made that are no longer valid
        (:meth:`~aucopt.modeling.Problem.validate`; e.g. a ``ConvexityError`` for a ``P`` made
        indefinite), before the backend sees them.

    See Also
    --------
    available_solvers : the names accepted by ``solver``.
    aucopt.modeling.Problem : the standard form.
    aucopt.modeling.get_formulation : builds problems from declarative formulations.

    Notes
    -----
    The standard form is

        minimize    ½ xᵀ P x + cᵀ x + offset
        subject to  row_lower ≤ A x ≤ row_upper,   col_lower ≤ x ≤ col_upper

    (:class:`~aucopt.modeling.Problem`). Each backend converts it to its own form (OSQP: the
    column bounds become identity rows; cvxpy: equality and one-sided inequality rows) and maps
    its duals back to aucopt's sign convention.

    References
    ----------
    .. [1] Huangfu, Q., & Hall, J. A. J. (2018). Parallelizing the dual revised simplex method.
       *Mathematical Programming Computation*, 10(1), 119–142.
    .. [2] Stellato, B., Banjac, G., Goulart, P., Bemporad, A., & Boyd, S. (2020). OSQP: An operator
       splitting solver for quadratic programs. *Mathematical Programming Computation*, 12(4),
       637–672.
    .. [3] Diamond, S., & Boyd, S. (2016). CVXPY: A Python-embedded modeling language for convex
       optimization. *JMLR*, 17(83), 1–5.

    Examples
    --------
    The LP Ranker on 40 points, by dual simplex and by interior point:

    >>> from sklearn.datasets import make_classification
    >>> from aucopt import PairSet, get_formulation, kernel_matrix, solve
    >>> X, y = make_classification(n_samples=40, n_features=4, random_state=0)
    >>> problem = get_formulation("lp_ranker").build(PairSet.bipartite(y), kernel_matrix(X, gamma=0.5), C=1.0)
    >>> simplex = solve(problem, "highs")
    >>> ipm = solve(problem, "highs", solver_options={"solver": "ipm"})
    >>> print(simplex.status, ipm.status, abs(simplex.objective - ipm.objective) < 1e-6)
    optimal optimal True
    >>> solve(problem, "highs", max_iter=1, solver_options={"presolve": "off"}).status
    <Status.ITERATION_LIMIT: 'iteration_limit'>
    >>> solve(problem, "osqp", solver_options={"time_limit": 1e-9}).status
    <Status.TIME_LIMIT: 'time_limit'>
    """
    backend = _resolve(solver)
    problem.validate()  # data changed in place since the problem was made are checked again
    if problem.kind not in backend.problem_kinds:
        raise ValueError(f"The solver {solver!r} does not solve {problem.kind}s (it accepts "
                         f"{sorted(backend.problem_kinds)}); choose one of {available_solvers()}.")
    _check_arguments(tol=tol, max_iter=max_iter, time_limit=time_limit, solver_options=solver_options)
    _LOG.info("solving %r (%s: %d variables, %d rows, %d nonzeros) with %s", problem.name, problem.kind,
              problem.n_vars, problem.n_rows, problem.nnz, solver)
    _LOG.debug("%s options: tol=%r, max_iter=%r, time_limit=%r, verbose=%r, warm_start=%s, solver_options=%r",
               solver, tol, max_iter, time_limit, verbose, sorted(warm_start or {}), solver_options)
    start = time.perf_counter()
    result = backend.solve(problem, tol=tol, max_iter=max_iter, time_limit=time_limit, verbose=verbose,
                           warm_start=warm_start, solver_options=solver_options)
    result.wall_time = time.perf_counter() - start
    result.problem_name = problem.name
    result = _check_finite(result)
    _LOG.info("%s on %r: status %s, objective %.10g, %d iterations, %.3g s", result.solver, problem.name,
              result.status, result.objective, result.iterations or 0, result.wall_time)
    return result


def _check_finite(result: SolveResult) -> SolveResult:
    """Demote a usable status with a non-finite point or objective to NUMERICAL_ERROR.

    No backend may report a point with NaN or infinite entries (e.g. after an overflow in the
    problem data) as a solution; the offending point is dropped and the reason recorded in
    ``message`` and ``info["reported_status"]``.
    """
    if result.status not in USABLE:
        return result
    x = result.x
    solved = result.status in (Status.OPTIMAL, Status.OPTIMAL_INACCURATE)
    if x is None and not solved:
        return result  # a limit status without a point: nothing claimed
    bad = []
    if x is None:
        bad.append("no primal point")
    elif not np.all(np.isfinite(x)):
        bad.append(f"{int(np.count_nonzero(~np.isfinite(x)))} non-finite entries in x")
    if not np.isfinite(result.objective):
        bad.append(f"objective {result.objective!r}")
    if bad:
        result.info["reported_status"] = str(result.status)
        result.message = (f"{result.solver} reported '{result.status}' with {', '.join(bad)}; treated as a "
                          "numerical error (check the problem data for overflow: rescale X or the weights). "
                          f"Backend message: {result.message}")
        result.status = Status.NUMERICAL_ERROR
        result.x = None
    return result


def _check_arguments(*, tol, max_iter, time_limit, solver_options) -> None:
    if tol is not None and not (isinstance(tol, Real) and not isinstance(tol, bool) and 0 < float(tol) < float("inf")):
        raise ValueError(f"tol must be a positive finite number or None; got {tol!r}.")
    if max_iter is not None and not (isinstance(max_iter, Integral) and not isinstance(max_iter, bool)
                                     and int(max_iter) >= 1):
        raise ValueError(f"max_iter must be an integer >= 1 or None; got {max_iter!r}.")
    if time_limit is not None and not (isinstance(time_limit, Real) and not isinstance(time_limit, bool)
                                       and float(time_limit) >= 0):
        raise ValueError(f"time_limit must be a number >= 0 (seconds) or None; got {time_limit!r}.")
    if solver_options is not None and not isinstance(solver_options, dict):
        raise ValueError(f"solver_options must be a dict of the backend's own options or None; "
                         f"got {type(solver_options).__name__}.")


def _registered_solve(*args, **kwargs) -> SolveResult:
    """:func:`solve`, looked up when called (a ``solve`` replaced on this module is the one that runs)."""
    return solve(*args, **kwargs)


# the layers below (aucopt.modeling) solve through the registry, never by importing this package
_register_solver_layer(solve=_registered_solve, resolve=_resolve, SolveResult=SolveResult, Status=Status,
                       IncrementalLP=IncrementalLP)
