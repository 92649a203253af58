"""Exceptions and warnings raised by aucopt, in one place.

* :class:`ProblemTooLargeError` — a problem (pair list, kernel matrix, assembled LP/QP) would not
  fit in the memory budget ``max_bytes``; raised before any work starts, naming the scalable path.
* :class:`NoComparablePairsError` — the target defines no pair to rank (one class only, no event).
* :class:`SolverError` — a backend returned no usable solution (infeasible, unbounded, failure).
* :class:`ConvexityError` — a model or problem is not convex (a convex function bounded from
  below, a product of expressions, an indefinite quadratic term); raised when it is declared,
  before any solver runs.
* :class:`SolverWarning` — a backend stopped early or reports low accuracy.

Every warning aucopt issues (:class:`SolverWarning`, scikit-learn's ``ConvergenceWarning`` when an
iteration limit, not the stopping rule, ends a fit) goes through :func:`warn`, which attributes it
to the first line outside the aucopt package: the user's ``fit`` (or ``solve``, ``score``, ...)
call, however deep inside aucopt it arose.
"""

from __future__ import annotations

import os
import sys
import warnings

from ._validation import format_bytes

__all__ = ["ProblemTooLargeError", "NoComparablePairsError", "ConvexityError", "SolverError", "SolverWarning",
           "SlowFitWarning", "check_memory", "warn"]

_PACKAGE_DIRS = tuple({os.path.dirname(os.path.abspath(__file__)) + os.sep,
                       os.path.dirname(os.path.realpath(__file__)) + os.sep})


def _package_dirs() -> tuple[str, ...]:
    """The folders whose frames are aucopt's own: the package and the formulations folder."""
    formulations = sys.modules.get("aucopt.formulations")
    extra = tuple(os.path.abspath(p) + os.sep for p in getattr(formulations, "__path__", ()))
    return _PACKAGE_DIRS + extra


def _is_internal(filename: str, dirs: tuple[str, ...]) -> bool:
    return filename.startswith(dirs) or os.path.abspath(filename).startswith(dirs)


def warn(message, category: type[Warning] = UserWarning) -> None:
    """Issue a warning attributed to the first stack frame outside the aucopt package.

    ``warnings.warn`` with a fixed ``stacklevel`` points at the right line only from one call
    depth; this helper counts the frames instead, so a warning raised deep in a solver or a
    scalable path is reported at the user's own line (``fit``, ``solve``, ...), where warning
    filters by module and ``pytest.warns`` see it. (Python 3.12's ``skip_file_prefixes`` does the
    same, but aucopt supports Python 3.10.)

    Parameters
    ----------
    message : str or Warning
        The warning text, or a warning instance (its class is then the category).
    category : type, default=UserWarning
        A subclass of :class:`Warning`, e.g. :class:`SolverWarning` or scikit-learn's
        ``ConvergenceWarning``.

    Examples
    --------
    >>> import warnings
    >>> from aucopt.exceptions import SolverWarning, warn
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn("stopped early", SolverWarning)
    >>> caught[0].category.__name__, caught[0].filename.startswith("<doctest")  # the caller's line
    ('SolverWarning', True)
    """
    dirs = _package_dirs()
    frame = sys._getframe(1)  # the caller of warn(): stacklevel 2
    level = 2
    while frame.f_back is not None and _is_internal(frame.f_code.co_filename, dirs):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)


class ProblemTooLargeError(MemoryError, ValueError):
    """A problem would need more memory than the budget ``max_bytes`` allows.

    Raised before any allocation, with the size that was estimated, the budget and the
    scalable path that avoids the problem. Subclasses both :class:`MemoryError` and
    :class:`ValueError`.

    Parameters
    ----------
    what : str
        The object that would be too large.
    nbytes : float
        Estimated size in bytes.
    max_bytes : float
        The budget in force.
    fix : str
        The scalable path or remedy, quoted in the message.
    suggestion : object, default=None
        The alternative path named in ``fix`` when it was chosen from the estimates (an
        estimator name, its parameters and its own estimate, which fits ``max_bytes``).

    Attributes
    ----------
    what : str
        The object that would be too large (e.g. ``"the 20,000 x 20,000 kernel matrix"``).
    nbytes : float
        Estimated size in bytes.
    max_bytes : float
        The budget in force.
    suggestion : object or None
        The suggested path (attributes ``estimator``, ``params``, ``nbytes``), or None.

    Examples
    --------
    >>> from aucopt.exceptions import ProblemTooLargeError, check_memory
    >>> try:
    ...     check_memory(8e9, 2e9, "the kernel matrix", "use RankRC")
    ... except ProblemTooLargeError as exc:
    ...     print(exc)
    the kernel matrix would need about 8.0 GB (limit max_bytes=2.0 GB): use RankRC, or raise max_bytes.

    See Also
    --------
    check_memory : raises this error when an estimate exceeds the budget.
    """

    def __init__(self, what: str, nbytes: float, max_bytes: float, fix: str, suggestion=None):
        self.what, self.nbytes, self.max_bytes = what, float(nbytes), float(max_bytes)
        self.suggestion = suggestion
        super().__init__(f"{what} would need about {format_bytes(nbytes)} "
                         f"(limit max_bytes={format_bytes(max_bytes)}): {fix}, or raise max_bytes.")


def check_memory(nbytes: float, max_bytes: float | None, what: str, fix: str, *, suggestion=None) -> None:
    """Raise :class:`ProblemTooLargeError` when ``nbytes`` exceeds ``max_bytes`` (None: no limit).

    Parameters
    ----------
    nbytes : float
        Estimated size of the object about to be built.
    max_bytes : float or None
        The budget; None disables the check.
    what : str
        What would be built, for the message.
    fix : str
        The scalable path or remedy, for the message.
    suggestion : object, default=None
        The path named in ``fix``, kept as the error's ``suggestion`` attribute.

    Raises
    ------
    ProblemTooLargeError
        When ``nbytes > max_bytes``.

    See Also
    --------
    ProblemTooLargeError : the error, with the estimate and the budget as attributes.

    Examples
    --------
    >>> from aucopt.exceptions import check_memory
    >>> check_memory(1e6, 2e9, "a small matrix", "nothing to do")  # within budget: no error
    """
    if max_bytes is not None and nbytes > max_bytes:
        raise ProblemTooLargeError(what, nbytes, max_bytes, fix, suggestion)


class NoComparablePairsError(ValueError):
    """The target defines no pair (i, j) to rank: one class only, or no comparable survival pair.

    A survival pair (i, j) is comparable when subject i has an observed event before subject
    j's event or censoring time (Harrell et al. 1982); when every subject is censored there is
    none. Subclasses :class:`ValueError`.

    See Also
    --------
    aucopt.pairs.PairSet.check_nonempty : raises this error.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.exceptions import NoComparablePairsError
    >>> try:
    ...     PairSet.survival(np.zeros(3, bool), [1.0, 2.0, 3.0]).check_nonempty()
    ... except NoComparablePairsError:
    ...     print("no comparable pairs")
    no comparable pairs
    """


class ConvexityError(ValueError):
    """A model or problem is not convex, so no LP / QP solver can be trusted with it.

    Raised when a statement is declared, before any row is assembled or any solver runs:

    * by :class:`~aucopt.modeling.Model` (disciplined convex programming): a convex operator
      (``abs``, ``positive_part``, ``maximum``, ``group_max``, ``sum_largest``) bounded from
      below (``abs(expr) >= 1``) or in an equality, a concave objective (``-m.abs(x)`` or
      ``-m.sum_squares(x)`` in ``m.minimize``), an operator argument of the wrong curvature
      (``m.maximum(-m.abs(x))``), a product of two expressions (``x * y``, ``x @ y``) or a
      quadratic in a constraint;
    * by :class:`~aucopt.modeling.Problem`: a quadratic term ``P`` that is not positive
      semidefinite (the message names its smallest eigenvalue, or the variable where a
      factorization met a negative pivot).

    The message names the statement (its source line when known), the operator and its
    curvature, the side of the bound, and the fix. Subclasses :class:`ValueError`.

    See Also
    --------
    aucopt.modeling.Model.subject_to : checks each constraint as it is declared.
    aucopt.modeling.Model.minimize : checks the objective.
    aucopt.modeling.Problem : checks that ``P`` is positive semidefinite.

    Examples
    --------
    >>> from aucopt import Model, PairSet
    >>> from aucopt.exceptions import ConvexityError
    >>> m = Model(PairSet.bipartite([1, 0]))
    >>> x = m.variable("x", 2)
    >>> try:
    ...     m.subject_to(m.abs(x) >= 1)  # |x_k| >= 1: two disjoint pieces, not a convex set
    ... except ConvexityError as exc:
    ...     print("refused:", "abs" in str(exc) and "concave" in str(exc))
    refused: True
    """


class SolverWarning(UserWarning):
    """A solver stopped early (time or iteration limit) or reports low accuracy.

    The returned solution is usable but approximate; raise ``max_iter`` or the time limit, or
    loosen ``tol``. Issued by :meth:`aucopt.solvers.SolveResult.raise_for_status`.

    See Also
    --------
    SolverError : raised when there is no usable solution.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from aucopt.exceptions import SolverWarning
    >>> from aucopt.solvers import SolveResult, Status
    >>> result = SolveResult(Status.ITERATION_LIMIT, 1.0, np.zeros(2), solver="osqp")
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = result.raise_for_status()
    >>> caught[0].category is SolverWarning
    True
    """


class SlowFitWarning(UserWarning):
    """``method="auto"`` chose a route that its runtime model predicts will take over a minute.

    Issued before any work, with the route, the reason and the predicted time, so that a long fit
    is never started silently: set ``verbose=1`` to follow its progress, loosen ``tol``, or use
    less data.

    See Also
    --------
    aucopt.LPRanker.select_method : The route and its predicted time.

    Examples
    --------
    Silence it for a fit you know is long:

    >>> import warnings
    >>> from aucopt.exceptions import SlowFitWarning
    >>> warnings.filterwarnings("ignore", category=SlowFitWarning)
    >>> issubclass(SlowFitWarning, UserWarning)
    True
    >>> warnings.resetwarnings()
    """


class SolverError(RuntimeError):
    """A solver returned no usable solution (infeasible, unbounded, numerical failure).

    Parameters
    ----------
    result : SolveResult
        The backend's result.

    Attributes
    ----------
    result : SolveResult
        The backend's result (status, message, solver, problem name).

    See Also
    --------
    aucopt.solvers.SolveResult.raise_for_status : raises this error.
    SolverWarning : issued instead when the point is usable but approximate.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from aucopt import Problem, solve
    >>> from aucopt.exceptions import SolverError
    >>> infeasible = Problem(c=np.ones(1), A=sp.csc_matrix([[1.0]]), row_lower=np.array([2.0]),
    ...                      row_upper=np.array([np.inf]), col_lower=np.zeros(1), col_upper=np.ones(1),
    ...                      name="x >= 2, x <= 1")
    >>> try:
    ...     solve(infeasible, "highs").raise_for_status()
    ... except SolverError as exc:
    ...     print(exc.result.status, "|", exc)
    infeasible | highs returned status 'infeasible' on 'x >= 2, x <= 1': Infeasible
    """

    def __init__(self, result):
        self.result = result
        super().__init__(
            f"{result.solver} returned status '{result.status}' on {result.problem_name!r}"
            + (f": {result.message}" if result.message else "")
        )
