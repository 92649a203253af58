"""Solver backends behind one contract: ``solve(problem, solver=name, **options) -> SolveResult``.

One module per backend (``highs``, ``osqp``, ``cvxpy``), each exposing
``solve(problem, **options) -> SolveResult``. Names accepted by :func:`solve`:

* ``"highs"`` — HiGHS through highspy (LP: dual simplex by default; convex QP: its QP solver);
* ``"osqp"`` — OSQP (ADMM; QPs, and LPs at moderate accuracy);
* ``"cvxpy"`` — cvxpy with Clarabel, or ``"cvxpy:<SOLVER>"`` / a bare installed cvxpy solver name
  such as ``"clarabel"``, ``"scs"``, ``"ecos"``.

Row duals follow one sign convention whatever the backend: at an optimum,
c + P x − Aᵀ y ≥ 0 componentwise up to the column-bound multipliers, i.e. ``y_r > 0``
when row r is held at its lower bound and ``y_r < 0`` at its upper bound (HiGHS's convention).
"""

from __future__ import annotations

import importlib
import time
import warnings
from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from ..exceptions import SolverError, SolverWarning
from ..modeling.problem import Problem


class Status(str, Enum):
    """Solver outcome, mapped from each backend's own codes."""

    OPTIMAL = "optimal"
    OPTIMAL_INACCURATE = "optimal_inaccurate"
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    INFEASIBLE_OR_UNBOUNDED = "infeasible_or_unbounded"
    TIME_LIMIT = "time_limit"
    ITERATION_LIMIT = "iteration_limit"
    NUMERICAL_ERROR = "numerical_error"
    ERROR = "error"

    def __str__(self) -> str:
        return self.value


#: statuses after which the returned point is a usable (if possibly approximate) solution
USABLE = {Status.OPTIMAL, Status.OPTIMAL_INACCURATE, Status.TIME_LIMIT, Status.ITERATION_LIMIT}


@dataclass
class SolveResult:
    """What every backend returns."""

    status: Status
    objective: float
    x: np.ndarray | None
    dual: np.ndarray | None = None
    iterations: int = 0
    solve_time: float = float("nan")  # as reported by the solver
    wall_time: float = float("nan")  # total, including our conversion
    solver: str = ""
    message: str = ""
    problem_name: str = ""
    info: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == Status.OPTIMAL

    def raise_for_status(self) -> "SolveResult":
        """Raise :class:`SolverError` without a usable point; warn when it is approximate."""
        if self.status not in USABLE or self.x is None:
            raise SolverError(self)
        if self.status != Status.OPTIMAL:
            warnings.warn(
                f"{self.solver} stopped with status '{self.status}' on {self.problem_name!r}; "
                "the solution is approximate (raise the time/iteration limit or tighten tolerances).",
                SolverWarning,
                stacklevel=3,
            )
        return self


BACKENDS = {"highs": "highs", "osqp": "osqp", "cvxpy": "cvxpy"}


def _split_name(solver: str) -> tuple[str, dict]:
    if not isinstance(solver, str):
        raise ValueError(f"solver must be a string name, got {solver!r}.")
    key = solver.strip().lower()
    if key in BACKENDS:
        return BACKENDS[key], {}
    cvx = _cvxpy_solvers()
    if key.startswith("cvxpy:") or key.startswith("cvxpy-"):
        name = key[6:].upper()
        if name not in cvx:
            raise ValueError(f"Unknown solver {solver!r}: cvxpy solver {name!r} is not installed; "
                             f"installed cvxpy solvers: {cvx}.")
        return "cvxpy", {"solver": name}
    if key.upper() in cvx:
        return "cvxpy", {"solver": key.upper()}
    raise ValueError(
        f"Unknown solver {solver!r}; available: {available_solvers()} "
        f"(or 'cvxpy:<name>' for any installed cvxpy solver)."
    )


def _cvxpy_solvers() -> list[str]:
    try:
        import cvxpy

        return list(cvxpy.installed_solvers())
    except ImportError:  # pragma: no cover
        return []


def available_solvers() -> list[str]:
    """Backend names usable here: highs, osqp, cvxpy and the installed cvxpy solvers."""
    names = []
    for key, module in (("highs", "highspy"), ("osqp", "osqp")):
        try:
            importlib.import_module(module)
            names.append(key)
        except ImportError:  # pragma: no cover
            pass
    cvx = _cvxpy_solvers()
    if cvx:
        names += ["cvxpy"] + [s.lower() for s in cvx]
    return list(dict.fromkeys(names))


def check_solver(solver: str) -> str:
    """Validate a solver name early (before any work); return it."""
    _split_name(solver)
    return solver


def solve(problem: Problem, solver: str = "highs", **options) -> SolveResult:
    """Solve a standard-form problem with the named backend; never raises on solver failure
    (inspect ``result.status`` or call ``result.raise_for_status()``)."""
    backend, implied = _split_name(solver)
    module = importlib.import_module(f"{__name__}.{backend}")
    start = time.perf_counter()
    result = module.solve(problem, **{**implied, **options})
    result.wall_time = time.perf_counter() - start
    result.problem_name = problem.name
    return result
