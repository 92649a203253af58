"""The backend protocol: the outcome codes, the result record and the class every backend implements.

A backend is one class (one instance of it sits in the registry of :mod:`aucopt.solvers`) with

* ``name`` — the registry key, the string users pass as ``solver=``;
* ``required_modules`` — the Python modules it imports (checked by :meth:`SolverBackend.is_available`);
* ``problem_kinds`` — the problem kinds it accepts, a subset of ``{"LP", "QP"}``;
* ``lp_advice`` — why it is a poor choice for LPs ("" by default), issued by estimators as a
  warning when they send it an LP;
* ``has_time_limit`` — whether it honours ``time_limit`` (True by default; a backend without
  one raises ``ValueError`` when asked for one);
* ``solve(problem, *, tol, max_iter, time_limit, verbose, warm_start, solver_options)`` returning a
  :class:`SolveResult` whose ``status`` is one of the :class:`Status` codes, never raising on a
  solver failure (only on invalid arguments, e.g. an option the solver rejects).

It imports its solver library inside ``solve`` only, so that importing aucopt never needs it.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from ..exceptions import SolverError, SolverWarning, problem_label, warn
from ..modeling.problem import Problem

__all__ = ["USABLE", "SolveResult", "SolverBackend", "Status"]


class Status(str, Enum):
    """Outcome of a solve, the same codes for every backend.

    Each backend maps its own status codes onto these members (for example HiGHS's
    ``kIterationLimit``, OSQP's ``OSQP_MAX_ITER_REACHED`` and cvxpy's ``user_limit`` after
    Clarabel's iteration limit all become :attr:`ITERATION_LIMIT`). A member compares equal to
    its string value.

    Attributes
    ----------
    OPTIMAL : str
        Solved to the backend's tolerances.
    OPTIMAL_INACCURATE : str
        Solved, but the backend reports reduced accuracy.
    INFEASIBLE : str
        No point satisfies the constraints.
    UNBOUNDED : str
        The objective decreases without bound on the feasible set.
    INFEASIBLE_OR_UNBOUNDED : str
        One of the two, the backend does not say which.
    TIME_LIMIT : str
        Stopped at the time limit; the last point is returned when the backend has one.
    ITERATION_LIMIT : str
        Stopped at the iteration limit (``max_iter``); the last point is returned when the
        backend has one.
    NUMERICAL_ERROR : str
        The backend failed numerically (or rejected the problem as non-convex).
    ERROR : str
        Any other outcome.

    See Also
    --------
    SolveResult : carries the status with the solution.

    Examples
    --------
    >>> from aucopt.solvers import Status
    >>> Status.OPTIMAL == "optimal"
    True
    >>> str(Status.ITERATION_LIMIT)
    'iteration_limit'
    """

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


USABLE = frozenset({Status.OPTIMAL, Status.OPTIMAL_INACCURATE, Status.TIME_LIMIT, Status.ITERATION_LIMIT})
"""Statuses after which the returned point is a usable, if possibly approximate, solution."""


@dataclass
class SolveResult:
    """What every backend returns: status, solution, duals and statistics.

    Parameters
    ----------
    status : Status
        The outcome, mapped from the backend's own code.
    objective : float
        ½ xᵀPx + cᵀx + offset at ``x`` (evaluated by :meth:`Problem.objective`), NaN without ``x``.
    x : ndarray of shape (n_vars,) or None
        The primal point; None when the backend has no usable point.
    dual : ndarray of shape (n_rows,) or None, default=None
        Row multipliers in aucopt's sign convention: at an optimum c + P x − Aᵀ y is, up to the
        column-bound multipliers, zero, with ``y_r ≥ 0`` when row r is held at its lower bound
        and ``y_r ≤ 0`` at its upper bound (the convention of HiGHS).
    iterations : int, default=0
        Iterations reported by the backend (simplex + interior point + QP for HiGHS, ADMM
        iterations for OSQP, the cvxpy solver's count).
    solve_time : float, default=nan
        Seconds as reported by the backend.
    wall_time : float, default=nan
        Seconds of the whole :func:`~aucopt.solvers.solve` call, conversion included.
    solver : str, default=""
        The backend label, e.g. ``"highs"``, ``"osqp"`` or ``"cvxpy:clarabel"``.
    message : str, default=""
        The backend's own status text.
    problem_name : str, default=""
        ``Problem.name`` of the problem that was solved.
    info : dict, default={}
        Backend-specific extras (HiGHS: ``"algorithm"``, ``"highs_objective"``; OSQP:
        ``"polished"``; cvxpy: ``"compilation_time"``).

    Attributes
    ----------
    ok : bool
        True when ``status`` is :attr:`Status.OPTIMAL`.

    See Also
    --------
    aucopt.solvers.solve : returns a SolveResult.
    Status : the outcome codes.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.solvers import SolveResult, Status
    >>> result = SolveResult(Status.OPTIMAL, objective=1.5, x=np.array([0.5, 1.0]), solver="highs")
    >>> result.ok
    True
    >>> result.raise_for_status() is result
    True
    """

    status: Status
    objective: float
    x: np.ndarray | None
    dual: np.ndarray | None = None
    iterations: int = 0
    solve_time: float = float("nan")
    wall_time: float = float("nan")
    solver: str = ""
    message: str = ""
    problem_name: str = ""
    info: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when the status is :attr:`Status.OPTIMAL`."""
        return self.status == Status.OPTIMAL

    def raise_for_status(self) -> SolveResult:
        """Return self when a point is usable; raise or warn otherwise.

        Returns
        -------
        SolveResult
            ``self``, so that ``solve(...).raise_for_status().x`` reads in one line.

        Raises
        ------
        SolverError
            When the status is not in :data:`USABLE` (infeasible, unbounded, numerical
            failure) or there is no point.

        Warns
        -----
        SolverWarning
            When the point is usable but approximate (inaccurate, time or iteration limit).

        Examples
        --------
        >>> from aucopt.solvers import SolveResult, Status
        >>> from aucopt.exceptions import SolverError
        >>> try:
        ...     SolveResult(Status.INFEASIBLE, float("nan"), None, solver="highs").raise_for_status()
        ... except SolverError as exc:
        ...     print(exc)
        highs returned status 'infeasible' on an unnamed problem
        """
        if self.status not in USABLE or self.x is None:
            raise SolverError(self)
        if self.status != Status.OPTIMAL:
            detail = f" {self.solver}: {self.message}." if self.message else ""
            warn(
                f"{self.solver} stopped with status '{self.status}' on {problem_label(self.problem_name)}; "
                f"the solution is approximate (raise max_iter or the time limit, or loosen tol).{detail}",
                SolverWarning,
            )
        return self


class SolverBackend:
    """Base class of the solver backends: the protocol :func:`aucopt.solvers.solve` relies on.

    A backend sets the class attributes below and implements :meth:`solve`; one line in the
    registry of :mod:`aucopt.solvers` makes it available under ``name``. A backend that fronts
    several solvers (cvxpy) also implements :meth:`variants` and :meth:`variant`, so that
    ``"<name>:<variant>"`` and the bare variant names resolve to it.

    Attributes
    ----------
    name : str
        Registry key and ``solver=`` string (lower case).
    required_modules : tuple of str
        Modules imported by :meth:`solve`; the backend is available when all import.
    problem_kinds : frozenset of str
        The problem kinds it accepts, a subset of ``{"LP", "QP"}``.

    See Also
    --------
    aucopt.solvers.HiGHS, aucopt.solvers.OSQP, aucopt.solvers.CVXPY : the shipped backends.

    Examples
    --------
    A backend that returns the origin (for illustration; it solves nothing):

    >>> import numpy as np
    >>> from aucopt.solvers import SolveResult, SolverBackend, Status
    >>> class Origin(SolverBackend):
    ...     name = "origin"
    ...     required_modules = ("numpy",)
    ...     problem_kinds = frozenset({"LP"})
    ...     def solve(self, problem, *, tol=None, max_iter=None, time_limit=None, verbose=False,
    ...               warm_start=None, solver_options=None):
    ...         x = np.zeros(problem.n_vars)
    ...         return SolveResult(Status.OPTIMAL, problem.objective(x), x, solver=self.label)
    >>> Origin().is_available(), Origin().label
    (True, 'origin')
    """

    name: str = ""
    required_modules: tuple[str, ...] = ()
    problem_kinds: frozenset = frozenset({"LP", "QP"})

    @property
    def label(self) -> str:
        """The name recorded in :attr:`SolveResult.solver` (``name``, or ``"name:variant"``)."""
        return self.name

    def is_available(self) -> bool:
        """Whether every module of ``required_modules`` imports."""
        return not self.missing_modules()

    def missing_modules(self) -> list[str]:
        """The modules of ``required_modules`` that do not import here."""
        missing = []
        for module in self.required_modules:
            try:
                importlib.import_module(module)
            except ImportError:
                missing.append(module)
        return missing

    @property
    def lp_advice(self) -> str:
        """Why this backend is a poor choice for LPs ("" when it is a fine one).

        Estimators that send an LP to the backend issue it as a
        :class:`~aucopt.exceptions.SolverWarning` at fit time.
        """
        return ""

    @property
    def has_time_limit(self) -> bool:
        """Whether :meth:`solve` honours ``time_limit`` (True); a backend without a time limit
        returns False and raises ``ValueError`` when one is asked for."""
        return True

    def variants(self) -> list[str]:
        """Names of the solvers this backend fronts (lower case); empty for a single solver."""
        return []

    def variant(self, name: str) -> SolverBackend:
        """The backend configured for the fronted solver ``name``."""
        raise ValueError(f"The {self.name!r} backend has no variants; got {self.name}:{name}.")

    def solve(self, problem: Problem, *, tol: float | None = None, max_iter: int | None = None,
              time_limit: float | None = None, verbose: bool = False, warm_start: dict | None = None,
              solver_options: dict | None = None) -> SolveResult:  # pragma: no cover - abstract
        """Solve ``problem``; see :func:`aucopt.solvers.solve` for the parameters."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
