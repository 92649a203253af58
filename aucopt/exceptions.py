"""Exceptions and warnings raised by aucopt, in one place.

* :class:`ProblemTooLargeError` — a problem (pair list, kernel matrix, assembled LP/QP) would not
  fit in the memory budget ``max_bytes``; raised before any work starts, naming the scalable path.
* :class:`NoComparablePairsError` — the target defines no pair to rank (one class only, no event).
* :class:`SolverError` — a backend returned no usable solution (infeasible, unbounded, failure).
* :class:`ConvexityError` — a model or problem is not convex (a convex function bounded from
  below, a product of expressions, an indefinite quadratic term); raised when it is declared,
  before any solver runs.
* :class:`SolverWarning` — a backend stopped early or reports low accuracy.
* :class:`ClusterDataLostError` — a fit on a dask cluster lost data it cannot recompute (a worker
  left holding scattered data, or the client closed mid-fit).
* :class:`InconsistentVersionWarning` — an estimator was unpickled by another aucopt version than
  the one that pickled it.

Every warning aucopt issues (:class:`SolverWarning`, scikit-learn's ``ConvergenceWarning`` when an
iteration limit, not the stopping rule, ends a fit) goes through :func:`warn`, which attributes it
to the first line outside the aucopt package: the user's ``fit`` (or ``solve``, ``score``, ...)
call, however deep inside aucopt it arose.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ._formulations_path import formulations_folders
from ._validation import format_bytes

if TYPE_CHECKING:  # annotations only: aucopt.solvers imports this module
    from .solvers import SolveResult

__all__ = [
    "ClusterDataLostError",
    "ConvexityError",
    "InconsistentVersionWarning",
    "NoComparablePairsError",
    "ProblemTooLargeError",
    "SlowFitWarning",
    "SolverError",
    "SolverWarning",
    "check_memory",
    "warn",
]

_PACKAGE_DIRS = tuple({os.path.dirname(os.path.abspath(__file__)) + os.sep,
                       os.path.dirname(os.path.realpath(__file__)) + os.sep})


def _package_dirs() -> tuple[str, ...]:
    """The folders whose frames are aucopt's own: the package and the formulations folder."""
    extra = tuple(os.path.abspath(p) + os.sep for p in formulations_folders())
    return _PACKAGE_DIRS + extra


def _is_internal(filename: str, dirs: tuple[str, ...]) -> bool:
    return filename.startswith(dirs) or os.path.abspath(filename).startswith(dirs)


def warn(message: str | Warning, category: type[Warning] = UserWarning) -> None:
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


def problem_label(name: str) -> str:
    """How messages name a solved problem: its name quoted, or "an unnamed problem".

    Examples
    --------
    >>> from aucopt.exceptions import problem_label
    >>> problem_label("lp_ranker"), problem_label("")
    ("'lp_ranker'", 'an unnamed problem')
    """
    return repr(name) if name else "an unnamed problem"


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

    def __init__(self, what: str, nbytes: float, max_bytes: float, fix: str, suggestion: object = None):
        self.what, self.nbytes, self.max_bytes = what, float(nbytes), float(max_bytes)
        self.suggestion = suggestion
        super().__init__(f"{what} would need about {format_bytes(nbytes)} "
                         f"(limit max_bytes={format_bytes(max_bytes)}): {fix}, or raise max_bytes.")


def check_memory(nbytes: float, max_bytes: float | None, what: str, fix: str, *,
                 suggestion: object = None) -> None:
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


class InconsistentVersionWarning(UserWarning):
    """An estimator was pickled by another aucopt version than the one unpickling it.

    aucopt stores its version in every estimator it pickles (``_aucopt_version``, as
    scikit-learn stores ``_sklearn_version``) and issues this warning when the version found
    differs from the running one, or when the pickle stored none (an aucopt older than 0.3.0).
    Parameters the pickle lacks because they were added since (``warm_start``, ``verbose``, ...)
    are set to their defaults, so that ``repr``, ``get_params`` and ``clone`` work; the fitted
    model is unchanged, but it may behave differently from a model fitted by this version.
    Refit it to be sure, or load it with the version that pickled it.

    Parameters
    ----------
    estimator_name : str
        The estimator's class name.
    current_version : str
        The running aucopt version.
    original_version : str or None
        The version that pickled the estimator; None when the pickle stored none.
    filled_parameters : dict, default=None
        The parameters the pickle lacked, with the defaults they were given.

    Attributes
    ----------
    estimator_name, current_version, original_version, filled_parameters
        As given.

    See Also
    --------
    sklearn.exceptions.InconsistentVersionWarning : The same warning for scikit-learn's version.

    Examples
    --------
    >>> from aucopt.exceptions import InconsistentVersionWarning
    >>> print(InconsistentVersionWarning(estimator_name="AUCSVM", current_version="0.3.0",
    ...                                  original_version="0.2.0", filled_parameters={"verbose": 0}))
    Trying to unpickle estimator AUCSVM from aucopt 0.2.0 with aucopt 0.3.0. The parameters it lacks were set to
    their defaults: verbose=0. The fitted model is unchanged, but it may not behave as it did with aucopt 0.2.0:
    refit it with aucopt 0.3.0, or load it with aucopt 0.2.0.
    """

    def __init__(self, *, estimator_name: str, current_version: str, original_version: str | None,
                 filled_parameters: dict | None = None):
        self.estimator_name = estimator_name
        self.current_version = current_version
        self.original_version = original_version
        self.filled_parameters = dict(filled_parameters or {})
        super().__init__(str(self))

    def __str__(self) -> str:
        origin = (f"aucopt {self.original_version}" if self.original_version is not None
                  else "an aucopt version older than 0.3.0 (the pickle records none)")
        filled = ""
        if self.filled_parameters:
            filled = (" The parameters it lacks were set to their defaults: "
                      + ", ".join(f"{k}={v!r}" for k, v in self.filled_parameters.items()) + ".")
        load = (f", or load it with aucopt {self.original_version}" if self.original_version is not None
                else ", or load it with the version that pickled it")
        return (f"Trying to unpickle estimator {self.estimator_name} from {origin} with aucopt "
                f"{self.current_version}.{filled} The fitted model is unchanged, but it may not behave as it did "
                f"with {origin.split(' (')[0]}: refit it with aucopt {self.current_version}{load}.")


class SlowFitWarning(UserWarning):
    """``method="auto"`` chose a route that its runtime model predicts will take over a minute.

    Issued before any work, with the route, the reason and the predicted time, so that a long fit
    is never started silently: set ``verbose=1`` to follow its progress, loosen ``tol``, or use
    less data.

    See Also
    --------
    aucopt.LPRanker.select_method : The route and its predicted time.
    aucopt.AUCSVM.predicted_seconds : The predicted time of dual coordinate descent.

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


class ClusterDataLostError(RuntimeError):
    """A fit on a dask cluster lost data that it cannot recompute, so nothing was fitted.

    A fit on dask collections survives the loss of a worker whenever the data on it can be
    rebuilt: blocks of X (and a dask y or ``sample_weight``) computed from a dask graph are
    recomputed by the scheduler on the remaining workers, in-memory targets are sent again, and
    the fit goes on to the same solution. This error is raised, instead of dask's
    ``FutureCancelledError``, when that is impossible:

    * a block of X, y or the weights was held by a worker that left and was not computed from a
      graph (it was sent with ``client.scatter``, or built from scattered data);
    * the client closed, or lost its scheduler, while the fit ran (the cluster then releases the
      fit's data).

    The message names what was lost and what to do. The dask error is chained as ``__cause__``.
    Subclasses :class:`RuntimeError`.

    Parameters
    ----------
    message : str
        The explanation.
    lost : sequence of str, default=()
        What was lost, one description per item (e.g. ``"block 3 of X (rows 600 to 799)"``).

    Attributes
    ----------
    lost : tuple of str
        What was lost.

    See Also
    --------
    aucopt.distributed.DaskRowOperator : Recomputes lost blocks and retries its products.

    Examples
    --------
    >>> from aucopt.exceptions import ClusterDataLostError
    >>> exc = ClusterDataLostError("block 0 of X was lost", lost=["block 0 of X (rows 0 to 99)"])
    >>> exc.lost, isinstance(exc, RuntimeError)
    (('block 0 of X (rows 0 to 99)',), True)
    """

    def __init__(self, message: str, lost: Iterable[str] = ()):
        super().__init__(message)
        self.lost = tuple(lost)


class SolverError(RuntimeError):
    """A solver returned no usable solution (infeasible, unbounded, numerical failure, or a time or
    iteration limit reached before its first point: the message then says which limit to raise).

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

    def __init__(self, result: SolveResult):
        self.result = result
        limit = _LIMIT_FIXES.get(str(result.status))  # a limit reached with no point (a point only warns)
        super().__init__(
            f"{result.solver} returned status '{result.status}' on {problem_label(result.problem_name)}"
            + (f": {result.message}" if result.message else "")
            + (f". It stopped before a first point, so there is no solution to return: {limit}."
               if limit and getattr(result, "x", None) is None else "")
        )


#: what to raise when a solver stopped at a limit before its first point (statuses by value)
_LIMIT_FIXES = {"time_limit": "raise the time limit (time_limit=seconds, or solver_options={'time_limit': seconds})",
                "iteration_limit": "raise max_iter"}
