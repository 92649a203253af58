"""HiGHS backend (highspy): LPs by dual simplex by default, convex QPs by HiGHS's QP solver."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike

from .._highs import clip as _clip
from .._highs import new_highs as _new_highs
from .._highs import pass_problem as pass_problem
from ..modeling.problem import Problem
from .base import USABLE, SolverBackend, SolveResult, Status

__all__ = ["HiGHS", "IncrementalLP"]

INF = 1e30  # HiGHS's infinity

TOLERANCES = ("primal_feasibility_tolerance", "dual_feasibility_tolerance", "ipm_optimality_tolerance")
"""The HiGHS options that ``tol`` sets."""

ITERATION_LIMITS = ("simplex_iteration_limit", "ipm_iteration_limit", "qp_iteration_limit",
                    "pdlp_iteration_limit")
"""The HiGHS options that ``max_iter`` sets."""

MAX_QP_REFINEMENTS = 3
"""At most this many extra QP solves remove the bias of HiGHS's QP regularization (see
:class:`HiGHS`); one suffices on the AUC-SVM duals."""


class HiGHS(SolverBackend):
    """The HiGHS backend (``solver="highs"``): dual simplex for LPs, HiGHS's QP solver for QPs.

    HiGHS [1]_ is called through highspy. Measured on the LP Ranker (WDBC, lifted form), dual
    simplex is an order of magnitude faster than HiGHS's interior point or Clarabel: the LP is
    highly degenerate and has few ranking vectors at the optimum. It is therefore the default
    LP algorithm (HiGHS's own default is ``"choose"``). The survival LP Ranker asks for the
    interior point on the dual LP instead (``{"solver": "ipm", "ipx_dualize_strategy": 1}``),
    2-5 times faster on Harrell's comparable pairs, most of which keep a slack at the optimum.

    How the arguments of :func:`aucopt.solvers.solve` map onto HiGHS options:

    ========================  ===================================================================
    ``tol``                   ``primal_feasibility_tolerance``, ``dual_feasibility_tolerance``
                              and ``ipm_optimality_tolerance`` (default 1e-9 for LPs; 1e-7,
                              HiGHS's default, for QPs, whose active-set solver reports a solve
                              error when asked for tighter); for QPs also the stationarity
                              residual left by HiGHS's QP regularization (below)
    ``max_iter``              ``simplex_iteration_limit``, ``ipm_iteration_limit``,
                              ``qp_iteration_limit``, ``pdlp_iteration_limit``
    ``time_limit``            ``time_limit`` (seconds), also settable as
                              ``solver_options={"time_limit": seconds}``; a solve stopped by it
                              reports ``Status.TIME_LIMIT`` with HiGHS's last point
    ``verbose``               ``output_flag``
    ``warm_start={"x": x0}``  ``Highs.setSolution``: HiGHS builds a starting basis from the
                              point (e.g. the previous round's solution in constraint generation)
    ``solver_options``        any HiGHS option by name, e.g. ``{"solver": "ipm"}``,
                              ``{"presolve": "off"}``, ``{"threads": 1}``; set last, so it
                              overrides the settings above (and the LP default ``solver="simplex"``)
    ========================  ===================================================================

    Every option is checked: an unknown name, a value of the wrong type or out of range raises
    ``ValueError`` naming the option and the value.

    QPs: HiGHS's active-set QP solver adds ``qp_regularization_value`` (ε = 1e-7) to the
    Hessian's diagonal, so its optimum is that of ½ xᵀ(P + εI)x + cᵀx: off by a stationarity
    residual ε·``|x|`` that no tolerance removes (on the AUC-SVM dual of 150 WDBC rows, a primal
    objective 1e-5 relative above Clarabel's and OSQP's). Lowering ε makes the QP solver stall
    or fail on ill-conditioned QPs (RankSVM's exact QP on 40 points: 0.3 s at 1e-7, stopped at a
    20 s limit at 1e-9 to 1e-12, a numerical error at 0), so the backend keeps ε and removes the bias by up to
    :data:`MAX_QP_REFINEMENTS` proximal-point re-solves with the cost c − ε x_prev, until the
    residual is at most ``tol · (1 + ‖c‖∞)`` (one re-solve on the AUC-SVM dual: objectives
    within 1e-10 of Clarabel's). ``info["qp_refinements"]`` counts them and
    ``info["qp_regularization_residual"]`` is the residual left; ``solver_options=
    {"qp_regularization_value": 0}`` solves the unregularized QP once instead.

    Attributes
    ----------
    name : str
        ``"highs"``.
    required_modules : tuple of str
        ``("highspy",)``.
    problem_kinds : frozenset of str
        LP and convex QP.

    See Also
    --------
    aucopt.solvers.solve : the entry point that calls this backend.
    OSQP, CVXPY : the other backends.

    References
    ----------
    .. [1] Huangfu, Q., & Hall, J. A. J. (2018). Parallelizing the dual revised simplex method.
       *Mathematical Programming Computation*, 10(1), 119–142.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from aucopt import Problem, solve
    >>> lp = Problem(c=np.array([1.0, 2.0]), A=sp.csc_matrix([[1.0, 1.0]]), row_lower=np.array([1.0]),
    ...              row_upper=np.array([np.inf]), col_lower=np.zeros(2), col_upper=np.full(2, np.inf))
    >>> result = solve(lp, "highs", solver_options={"solver": "ipm"})
    >>> print(result.status, round(result.objective, 6), result.info["algorithm"])
    optimal 1.0 ipm
    """

    name = "highs"
    required_modules = ("highspy",)
    problem_kinds = frozenset({"LP", "QP"})

    def solve(self, problem: Problem, *, tol: float | None = None, max_iter: int | None = None,
              time_limit: float | None = None, verbose: bool = False, warm_start: dict | None = None,
              solver_options: dict | None = None) -> SolveResult:
        """Solve ``problem`` with HiGHS; see the class docstring for the option mapping."""
        import highspy

        options: dict[str, Any] = {"output_flag": bool(verbose)}
        if problem.is_lp:
            options["solver"] = "simplex"  # dual simplex: HiGHS's default simplex strategy
        if tol is None:
            tol = 1e-9 if problem.is_lp else 1e-7
        options.update(dict.fromkeys(TOLERANCES, float(tol)))
        if max_iter is not None:
            options.update(dict.fromkeys(ITERATION_LIMITS, int(max_iter)))
        if time_limit is not None:
            options["time_limit"] = float(time_limit)
        options.update(solver_options or {})

        h = _new_highs(highspy)
        h.setOptionValue("output_flag", False)  # silent while the options are checked
        for key, value in options.items():
            _set_option(h, highspy, key, value)

        pass_problem(h, highspy, problem)
        if warm_start is not None and warm_start.get("x") is not None:
            x0 = np.asarray(warm_start["x"], dtype=float)
            if x0.shape != (problem.n_vars,):
                raise ValueError(f"warm_start['x'] must have shape ({problem.n_vars},), got {x0.shape}.")
            start = highspy.HighsSolution()
            start.col_value = list(x0)
            start.value_valid = True
            h.setSolution(start)
        status, message, x, dual, _solution, info = _run(h, highspy)
        iterations = _iterations(info)
        extras = {"highs_objective": float(info.objective_function_value)}
        if status == Status.OPTIMAL and problem.P is not None and x is not None:
            status, message = _check_qp_optimum(problem, x, dual, tol, status, message)
            if status not in USABLE:
                x = None
            else:
                x, dual, more, extras = _remove_regularization_bias(h, highspy, problem, x, dual, tol)
                iterations += more
        return SolveResult(
            status=status, objective=problem.objective(x) if x is not None else float("nan"), x=x,
            dual=dual, iterations=iterations, solve_time=float(h.getRunTime()), solver=self.label,
            message=message,
            info={"algorithm": _get_option(h, "solver") if problem.is_lp else "qp", **extras},
        )


class IncrementalLP:
    """A live HiGHS LP that grows (or sheds) columns and rows between solves, each solve warm-started.

    Row-and-column generation keeps one model and adds to it; chunking also deletes the pair rows
    that leave its working set. HiGHS keeps the simplex basis across ``addCols`` / ``addRows``
    (new columns nonbasic at a bound, new rows basic), so each solve starts where the last one
    ended instead of from scratch (deletions: see :meth:`delete_rows`). Minimization; rows
    ``row_lower <= A x <= row_upper``, columns ``lower <= x <= upper`` (±inf for none).

    Parameters
    ----------
    tol : float, default=1e-9
        Primal and dual feasibility tolerance of the simplex.
    verbose : bool, default=False
        HiGHS's log.
    solver_options : dict, default=None
        Further HiGHS options by name, set last (checked as by :class:`HiGHS`).
    name : str, default="restricted LP"
        What the model is, recorded as ``problem_name`` in each solve's result (and so named by a
        :class:`~aucopt.exceptions.SolverError` or :class:`~aucopt.exceptions.SolverWarning`).

    Attributes
    ----------
    n_cols, n_rows : int
        Current size of the model.
    name : str
        As given.

    See Also
    --------
    HiGHS : The backend for a whole problem at once.
    aucopt.lp.row_column_generation : Grows the LP Ranker on one of these.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from aucopt.solvers.highs import IncrementalLP
    >>> lp = IncrementalLP(name="two columns")
    >>> lp.add_columns(cost=[1.0, 1.0], lower=[0.0, 0.0], upper=[np.inf, np.inf])
    array([0, 1])
    >>> lp.add_rows(lower=[2.0], upper=[np.inf], A=sp.csr_matrix([[1.0, 2.0]]))  # x0 + 2 x1 >= 2
    array([0])
    >>> result = lp.solve()
    >>> print(result.status, result.objective, result.x.tolist(), result.dual.tolist(), result.problem_name)
    optimal 1.0 [0.0, 1.0] [0.5] two columns
    >>> lp.add_columns(cost=[0.4], lower=[0.0], upper=[np.inf], A=sp.csc_matrix([[1.0]]))  # a cheaper column
    array([2])
    >>> result = lp.solve()  # from the last basis
    >>> print(result.status, round(result.objective, 12), result.x.tolist())
    optimal 0.8 [0.0, 0.0, 2.0]
    """

    def __init__(self, *, tol: float | None = None, verbose: bool = False, solver_options: dict | None = None,
                 name: str = "restricted LP"):
        import highspy

        self.name = str(name)
        self._hs = highspy
        self._h = h = _new_highs(highspy)
        h.setOptionValue("output_flag", False)
        tol = 1e-9 if tol is None else float(tol)
        options = {"solver": "simplex", **dict.fromkeys(TOLERANCES, tol), **(solver_options or {})}
        options.pop("time_limit", None)  # per solve, see solve()
        for key, value in options.items():
            _set_option(h, highspy, key, value)
        _set_option(h, highspy, "output_flag", bool(verbose))

    @property
    def n_cols(self) -> int:
        return int(self._h.getNumCol())

    @property
    def n_rows(self) -> int:
        return int(self._h.getNumRow())

    def add_columns(self, cost: ArrayLike, lower: ArrayLike, upper: ArrayLike,
                    A: sp.spmatrix | ArrayLike | None = None) -> np.ndarray:
        """Add columns with costs, bounds and entries ``A`` (n_rows × k, None: no entries); returns their indices."""
        cost = np.asarray(cost, dtype=float).ravel()
        k, n = len(cost), self.n_cols
        cols = sp.csc_matrix((self.n_rows, k)) if A is None else sp.csc_matrix(A)
        if cols.shape != (self.n_rows, k):
            raise ValueError(f"A must have shape ({self.n_rows}, {k}), got {cols.shape}.")
        cols.sort_indices()
        self._check(self._h.addCols(k, cost, _clip(lower), _clip(upper), cols.nnz, cols.indptr[:-1].astype(np.int32),
                                    cols.indices.astype(np.int32), cols.data.astype(float)), "addCols")
        return np.arange(n, n + k)

    def add_rows(self, lower: ArrayLike, upper: ArrayLike, A: sp.spmatrix | ArrayLike) -> np.ndarray:
        """Add rows ``lower <= A x <= upper`` (A: k × n_cols); returns their indices."""
        rows = sp.csr_matrix(A)
        k, n = rows.shape[0], self.n_rows
        if rows.shape[1] != self.n_cols:
            raise ValueError(f"A must have {self.n_cols} columns, got {rows.shape[1]}.")
        rows.sort_indices()
        self._check(self._h.addRows(k, _clip(lower), _clip(upper), rows.nnz, rows.indptr[:-1].astype(np.int32),
                                    rows.indices.astype(np.int32), rows.data.astype(float)), "addRows")
        return np.arange(n, n + k)

    def delete_rows(self, rows: ArrayLike) -> None:
        """Delete the rows at the indices ``rows``; the rows after them move up, in order. HiGHS
        keeps the stored basis when the deleted rows are basic (inactive), and drops it when one
        is nonbasic (active).

        Parameters
        ----------
        rows : array-like of int
            Current row indices, in any order; repeats count once, an empty list changes nothing.

        Examples
        --------
        >>> import numpy as np
        >>> import scipy.sparse as sp
        >>> lp = IncrementalLP()
        >>> lp.add_columns(cost=[1.0, 1.0], lower=[0.0, 0.0], upper=[np.inf, np.inf])
        array([0, 1])
        >>> lp.add_rows(lower=[1.0, 3.0], upper=[np.inf, np.inf], A=sp.csr_matrix([[1.0, 0.0], [0.0, 1.0]]))
        array([0, 1])
        >>> lp.solve().objective
        4.0
        >>> lp.delete_rows([1])  # x1 >= 3 goes
        >>> lp.n_rows, lp.solve().objective
        (1, 1.0)
        """
        rows = np.unique(np.asarray(rows, dtype=np.int32))
        if len(rows):
            self._check(self._h.deleteRows(len(rows), rows), "deleteRows")

    def nonbasic_rows(self) -> np.ndarray:
        """Indices of the rows that are nonbasic in the current basis (active: held at a bound by
        the last solution); empty without a valid basis. Deleting one of them drops the basis.

        Returns
        -------
        rows : ndarray of int64
            The nonbasic rows' current indices, increasing.

        Examples
        --------
        >>> import numpy as np
        >>> import scipy.sparse as sp
        >>> lp = IncrementalLP()
        >>> lp.add_columns(cost=[1.0, 1.0], lower=[0.0, 0.0], upper=[np.inf, np.inf])
        array([0, 1])
        >>> lp.add_rows(lower=[1.0, 0.5], upper=[np.inf, np.inf], A=sp.csr_matrix([[1.0, 0.0], [1.0, 0.0]]))
        array([0, 1])
        >>> lp.solve().objective  # x0 = 1: the first row is active, the second is not
        1.0
        >>> lp.nonbasic_rows()
        array([0])
        """
        basis = self._h.getBasis()
        if not basis.valid:
            return np.zeros(0, dtype=np.int64)
        basic = self._hs.HighsBasisStatus.kBasic
        return np.flatnonzero([status != basic for status in basis.row_status])

    def delete_columns(self, columns: ArrayLike) -> None:
        """Delete the columns at the indices ``columns``; the columns after them move left, in order.
        HiGHS keeps the stored basis when the deleted columns are nonbasic, and drops it when one is basic.

        Parameters
        ----------
        columns : array-like of int
            Current column indices, in any order; repeats count once, an empty list changes nothing.

        Examples
        --------
        >>> import numpy as np
        >>> import scipy.sparse as sp
        >>> lp = IncrementalLP()
        >>> lp.add_columns(cost=[1.0, 3.0], lower=[0.0, 0.0], upper=[np.inf, np.inf])
        array([0, 1])
        >>> lp.add_rows(lower=[2.0], upper=[np.inf], A=sp.csr_matrix([[1.0, 1.0]]))  # x0 + x1 >= 2
        array([0])
        >>> lp.solve().objective
        2.0
        >>> lp.delete_columns([0])  # the cheap column goes: x1 >= 2 is left
        >>> lp.n_cols, lp.solve().objective
        (1, 6.0)
        """
        columns = np.unique(np.asarray(columns, dtype=np.int32))
        if len(columns):
            self._check(self._h.deleteCols(len(columns), columns), "deleteCols")

    def set_start(self, x: ArrayLike) -> None:
        """A primal point (one value per column) from which the next solve builds its starting basis
        (``Highs.setSolution``), e.g. an approximate solution found by another method."""
        start = self._hs.HighsSolution()
        start.col_value = list(np.asarray(x, dtype=float))
        start.value_valid = True
        self._h.setSolution(start)

    def solve(self, time_limit: float | None = None) -> SolveResult:
        """Solve from the current basis. ``x`` are the column values, ``dual`` the row duals
        (HiGHS's convention, ≥ 0 at a row's lower bound), ``info["col_dual"]`` the reduced costs
        and ``info["row_value"]`` the row activities."""
        h = self._h
        _set_option(h, self._hs, "time_limit", float("inf") if time_limit is None else float(time_limit))
        status, message, x, dual, solution, info = _run(h, self._hs)
        iterations, seconds = max(int(info.simplex_iteration_count), 0), float(h.getRunTime())
        if status == Status.ERROR:
            # The simplex can fail from a warm basis that a solve from scratch gets through (dual values
            # "excessive" for the ratio test after rows or a start point were added to a kernel LP of
            # entries spread over many orders of magnitude): drop the basis and solve once more.
            left = float("inf") if time_limit is None else float(time_limit) - seconds
            if left > 0.0:
                h.clearSolver()
                _set_option(h, self._hs, "time_limit", left)
                status, message, x, dual, solution, info = _run(h, self._hs)
                iterations += max(int(info.simplex_iteration_count), 0)
                seconds += float(h.getRunTime())
        return SolveResult(
            status=status, objective=float(info.objective_function_value) if x is not None else float("nan"),
            x=x, dual=dual, iterations=iterations, solve_time=seconds,
            solver="highs", message=message, problem_name=self.name,
            info={"col_dual": np.array(solution.col_dual) if solution.dual_valid else None,
                  "row_value": np.array(solution.row_value) if x is not None else None})

    def _check(self, status, what):
        if status == self._hs.HighsStatus.kError:
            raise RuntimeError(f"HiGHS {what} failed on a model of {self.n_rows} rows and {self.n_cols} columns.")


def _run(h, highspy):
    """Run HiGHS on its model: (status, message, x or None, row duals or None, solution, info),
    x only for a usable status with a valid primal solution."""
    h.run()
    model_status = h.getModelStatus()
    status = _status_map(highspy).get(model_status, Status.ERROR)
    solution = h.getSolution()
    x = np.array(solution.col_value) if solution.value_valid and status in USABLE else None
    dual = np.array(solution.row_dual) if solution.dual_valid else None
    return status, h.modelStatusToString(model_status), x, dual, solution, h.getInfo()


def _iterations(info) -> int:
    """Simplex + interior point + QP + PDLP iterations of one HiGHS run."""
    return sum(max(int(getattr(info, f"{kind}_iteration_count")), 0) for kind in ("simplex", "ipm", "qp", "pdlp"))


def _remove_regularization_bias(h, highspy, problem: Problem, x, dual, tol):
    """Undo the bias of HiGHS's QP regularization by proximal-point rounds; (x, dual, iterations, info).

    HiGHS's active-set QP solver minimizes ½ xᵀ(P + εI)x + cᵀx, with ε its option
    ``qp_regularization_value`` (1e-7 by default), which keeps the reduced Hessian positive
    definite on LP-like columns. Its optimum x₀ leaves the stationarity residual ε x₀ on the
    columns strictly between their bounds: about 1e-7 · ``|x|``, above the feasibility tolerances
    whenever ``|x|`` is large (the AUC-SVM dual, whose α reaches C at unit kernel scale), and ``tol``
    cannot reduce it. Lowering ε instead makes the QP solver stall or fail on ill-conditioned
    QPs, so ε stays and the bias is removed: round k solves the same regularized QP with the cost
    c − ε x_{k−1}, i.e. min f(x) + ε/2 ‖x − x_{k−1}‖² (the proximal point method), whose optimum
    leaves the residual ε (x_{k−1} − x_k). Rounds stop when that residual is at most
    ``tol · (1 + ‖c‖∞)``, after :data:`MAX_QP_REFINEMENTS` rounds, or at the time limit; a round
    that does not end optimal is discarded (the previous point is kept).
    """
    eps = float(_get_option(h, "qp_regularization_value"))
    extras = {"highs_objective": float(h.getInfo().objective_function_value), "qp_refinements": 0}
    if not eps > 0.0:
        return x, dual, 0, extras
    target = float(tol) * (1.0 + float(np.max(np.abs(problem.c), initial=0.0)))
    lo, up = np.asarray(problem.col_lower, float), np.asarray(problem.col_upper, float)
    time_limit = float(_get_option(h, "time_limit"))
    columns = np.arange(problem.n_vars, dtype=np.int32)
    iterations, previous = 0, np.zeros_like(x)
    for _ in range(MAX_QP_REFINEMENTS + 1):
        slack = 1e-9 * (1.0 + np.abs(x))
        inside = ~((np.isfinite(lo) & (x <= lo + slack)) | (np.isfinite(up) & (x >= up - slack)))
        residual = eps * float(np.max(np.abs(x - previous)[inside], initial=0.0))
        extras["qp_regularization_residual"] = residual
        if residual <= target or extras["qp_refinements"] == MAX_QP_REFINEMENTS:
            break
        left = time_limit - float(h.getRunTime())
        if not left > 0.0:
            break
        _set_option(h, highspy, "time_limit", left)
        h.changeColsCost(problem.n_vars, columns, problem.c - eps * x)
        status, _, x_new, dual_new, _, info = _run(h, highspy)
        iterations += _iterations(info)
        if status != Status.OPTIMAL or x_new is None:
            break
        previous, x, dual = x, x_new, dual_new
        extras["qp_refinements"] += 1
        # HiGHS's objective is that of the shifted cost: add back ε x_{k−1}ᵀx
        extras["highs_objective"] = float(info.objective_function_value) + eps * float(previous @ x)
    return x, dual, iterations, extras


def _set_option(h, highspy, key, value) -> None:
    """``h.setOptionValue(key, value)``, raising ValueError when HiGHS does not accept it."""
    if isinstance(value, np.generic):
        value = value.item()
    try:
        status = h.setOptionValue(str(key), value)
    except (TypeError, ValueError, RuntimeError):
        status = None
    if status != highspy.HighsStatus.kOk:
        raise ValueError(
            f"HiGHS rejected the option {key!r} = {value!r} (unknown option name, wrong type or value "
            "out of range). Pass HiGHS option names and values as HiGHS documents them, e.g. "
            "solver_options={'solver': 'ipm', 'presolve': 'off', 'time_limit': 60.0}."
        )


def _get_option(h, key):
    value = h.getOptionValue(key)
    return value[1] if isinstance(value, tuple) else value  # (status, value) in recent highspy


def _status_map(highspy) -> dict:
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


def _check_qp_optimum(problem: Problem, x, dual, tol, status, message):
    """Verify HiGHS's 'optimal' on a QP by the stationarity residual; return (status, message).

    HiGHS's QP solver can stop at its internal bound on a free variable (about 1e7) and report
    'Optimal' for an unbounded QP such as ½‖β‖² − t with t free. At a true optimum the reduced
    cost g = c + P x − Aᵀ y vanishes on every column strictly between its bounds (and has the
    right sign at an active bound). When it does not, the status becomes UNBOUNDED if a column
    with a violated reduced cost is an unbounded ray (no curvature, and moving it in the
    descent direction keeps every bound and row feasible), NUMERICAL_ERROR otherwise.
    """
    y = np.zeros(problem.n_rows) if dual is None else np.asarray(dual, dtype=float)
    Px = problem.P @ x
    Aty = problem.A.T @ y
    g = problem.c + Px - Aty
    scale = 1.0 + max(np.max(np.abs(problem.c), initial=0.0), np.max(np.abs(Px), initial=0.0),
                      np.max(np.abs(Aty), initial=0.0))
    lo, up = np.asarray(problem.col_lower, float), np.asarray(problem.col_upper, float)
    slack = 1e-6 * (1.0 + np.abs(x))
    at_lower = np.isfinite(lo) & (x <= lo + slack)
    at_upper = np.isfinite(up) & (x >= up - slack)
    residual = np.abs(g)
    residual[at_lower] = np.maximum(-g[at_lower], 0.0)
    residual[at_upper] = np.maximum(g[at_upper], 0.0)
    residual[at_lower & at_upper] = 0.0
    limit = max(1e-4, 1e3 * float(tol)) * scale
    bad = np.flatnonzero(residual > limit)
    if bad.size == 0:
        return status, message
    P = sp.csc_matrix(problem.P)
    A = sp.csc_matrix(problem.A)
    for j in bad:
        direction = -np.sign(g[j])
        if P[:, j].count_nonzero() or P[j, :].count_nonzero():
            continue
        if (direction > 0 and np.isfinite(up[j])) or (direction < 0 and np.isfinite(lo[j])):
            continue
        column = A[:, j].toarray().ravel() * direction
        rows = np.flatnonzero(column)
        if (np.all(np.isinf(problem.row_upper[rows][column[rows] > 0]))
                and np.all(np.isinf(problem.row_lower[rows][column[rows] < 0]))):
            return Status.UNBOUNDED, (f"HiGHS reported '{message}', but variable {j} at {x[j]:.3g} has reduced "
                                      f"cost {g[j]:.3g} and is an unbounded ray: the QP is unbounded")
    j = bad[np.argmax(residual[bad])]
    return Status.NUMERICAL_ERROR, (f"HiGHS reported '{message}', but the stationarity residual is "
                                    f"{residual[j]:.3g} at variable {j} (limit {limit:.3g}); the point is not optimal")
