"""Pair-row generation for any formulation: a working set of pair rows, certified at the end.

Most rows of a pairwise formulation are its pair rows, one per pair, of the shape
``pair_difference(expr) + slack >= rhs``, and at the optimum most of them hold with room to
spare. Dropping rows relaxes a problem: the problem restricted to a working set W of pair rows
(with every other row kept) has an optimum no larger than the full problem's. When the restricted
solution x satisfies every pair row outside W (to ``tol``), x is feasible for the full problem,
so it is the full problem's optimum — the certificate is one sparse product ``A_pairs x`` over
all pair rows, and the full problem's row duals are the restricted ones with zeros outside W.

Each round solves the restricted problem, then adds the pair rows that x violates, the most
violated first, at most ``pairs_per_point`` per point (so one badly ranked point does not fill a
round) and ``max_rows`` in all. The first working set is the pair rows most violated at the
origin projected on the column bounds. LPs on HiGHS grow one live model whose simplex basis
carries over from round to round (:class:`~aucopt.solvers.highs.IncrementalLP`); other backends
and QPs re-solve the restricted problem from the last point. A restricted problem that is
unbounded (a slack whose rows are all outside W) takes in more rows until it is bounded.

This is the constraint-generation idea of cutting-plane ranking SVMs (Joachims 2006) and of
Ataman (2007), Sec. 4.2, applied to any formulation without changing its file.
"""

from __future__ import annotations

import sys
import time
from numbers import Integral
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.exceptions import ConvergenceWarning

from .._solver_registry import lookup
from .._validation import Count, check_time_limit
from ..exceptions import warn
from .problem import Problem

if TYPE_CHECKING:
    from ..solvers.base import SolveResult

__all__ = ["PAIR_ROW_CONSTRAINTS", "pair_row_generation"]

#: pair rows per point added in one round (by default)
PAIRS_PER_POINT = 5

#: the declared constraints of the route's options (as scikit-learn declares parameters)
PAIR_ROW_CONSTRAINTS = {
    "pairs_per_point": [Count(Integral, 1, None, closed="left"), None],
    "max_rows": [Count(Integral, 1, None, closed="left"), None],
}


def is_pair_constraint(terms: dict, lower: np.ndarray, upper: np.ndarray, i: np.ndarray, j: np.ndarray) -> bool:
    """Whether a constraint block is one pair row per pair: one-sided, and its coefficients on some
    block of point variables (e.g. the scores) are nonzero at exactly the two points of its pair.

    Used by the builder to record ``Problem.metadata["pair_rows"]``: the rows
    ``pair_difference(expr) + slack >= rhs`` of any formulation, which pair-row generation may
    leave out of its working set.
    """
    P = len(i)
    if len(lower) != P or P == 0:
        return False
    one_sided = (np.all(np.isfinite(lower)) and np.all(np.isposinf(upper))) or \
        (np.all(np.isneginf(lower)) and np.all(np.isfinite(upper)))
    if not one_sided:
        return False
    lo, hi = np.minimum(i, j), np.maximum(i, j)
    for T in terms.values():
        T = T.tocsr()
        if T.shape[0] != P or T.nnz != 2 * P or not np.all(np.diff(T.indptr) == 2):
            continue
        T.sort_indices()
        cols = T.indices.reshape(P, 2)
        if np.array_equal(cols[:, 0], lo) and np.array_equal(cols[:, 1], hi):
            return True
    return False


def _select(violation: np.ndarray, candidates: np.ndarray, pair_index: tuple[np.ndarray, np.ndarray] | None,
            per_point: int | None, limit: int) -> np.ndarray:
    """The candidate rows to add: for every point its ``per_point`` most violated rows (a row is
    taken when it is among them for either of its points), the most violated first."""
    order = candidates[np.argsort(-violation[candidates], kind="stable")]
    if pair_index is not None and per_point is not None:
        keep = np.zeros(len(order), dtype=bool)
        for ends in pair_index:  # rank of each row among the rows of its i (then of its j), in this order
            e = np.asarray(ends)[order]
            by_point = np.argsort(e, kind="stable")
            starts = np.r_[0, np.flatnonzero(np.diff(e[by_point])) + 1]
            rank = np.arange(len(e)) - np.repeat(starts, np.diff(np.r_[starts, len(e)]))
            within = np.empty(len(e), dtype=np.int64)
            within[by_point] = rank
            keep |= within < per_point
        order = order[keep]
    return order[:limit]


def _row_violation(values: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """max(lower − v, v − upper, 0), scaled by 1 + |bound| (HiGHS's feasibility test)."""
    below = np.where(np.isfinite(lower), (lower - values) / (1.0 + np.abs(np.where(np.isfinite(lower), lower, 0))), 0)
    above = np.where(np.isfinite(upper), (values - upper) / (1.0 + np.abs(np.where(np.isfinite(upper), upper, 0))), 0)
    return np.maximum(np.maximum(below, above), 0.0)


def pair_row_generation(problem: Problem, pair_rows: ArrayLike, solver: str = "highs", *,
                        pair_index: tuple[np.ndarray, np.ndarray] | None = None,
                        pairs_per_point: int | None = PAIRS_PER_POINT, max_rows: int | None = None,
                        tol: float = 1e-7, max_iter: int = 200, time_limit: float | None = None,
                        verbose: int = 0, solver_options: dict | None = None) -> SolveResult:
    """Solve ``problem`` with its pair rows generated as needed, certifying that none is violated.

    Parameters
    ----------
    problem : Problem
        The whole problem (its pair rows are stored, not solved at once); LP or convex QP.
    pair_rows : array-like of int or bool of shape (n_rows,)
        The rows that may be left out of the working set: the pair rows (the builder records them
        in ``problem.metadata["pair_rows"]``). Every other row is always in.
    solver : str, default="highs"
        The backend of the restricted problems (:func:`aucopt.solvers.solve`).
    pair_index : tuple of two arrays of shape (n_pair_rows,), default=None
        The points (i, j) of each pair row, in the order of ``pair_rows``
        (``problem.metadata["pair_index"]``), for the per-point cap; None: no cap.
    pairs_per_point : int or None, default=5
        Every point brings its this many most violated rows into the working set per round.
    max_rows : int or None, default=None
        At most this many rows join per round; None: max(1,000, number of pair rows / 20).
    tol : float, default=1e-7
        A pair row is violated when it misses its bound by more than ``tol · (1 + |bound|)``;
        the run stops when none is.
    max_iter : int, default=200
        Maximum number of restricted solves.
    time_limit : float or None, default=None
        Wall-clock limit in seconds.
    verbose : int, default=0
        ≥ 1: one line per round on stderr.
    solver_options : dict, default=None
        Raw options of the backend.

    Returns
    -------
    result : SolveResult
        ``status`` is ``optimal`` only when the certificate holds (no pair row violated at an
        optimal restricted solution); stopped by ``max_iter`` or ``time_limit`` it is
        ``iteration_limit`` / ``time_limit``, ``x`` the last restricted solution (it violates
        ``info["violated"]`` pair rows) and ``objective`` its value, a lower bound of the
        optimum. ``dual`` holds the restricted duals with zeros outside the working set.
        ``info`` adds ``"rounds"``, ``"working_rows"`` (the pair rows in the last restricted
        problem), ``"violated"``, ``"max_violation"`` and ``"history"``.

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` or ``time_limit`` ends the run before the certificate holds.

    References
    ----------
    .. [1] Joachims, T. (2006). Training linear SVMs in linear time. *Proceedings of the 12th
       ACM SIGKDD International Conference on Knowledge Discovery and Data Mining*, 217–226.
    .. [2] Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming
       for problems with binary output*. PhD thesis, University of Iowa.

    Examples
    --------
    The LP Ranker built with every pair row, solved with a working set of them:

    >>> import numpy as np
    >>> from aucopt import PairSet, get_formulation, solve
    >>> from aucopt.modeling import pair_row_generation
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2))
    >>> y = (X[:, 0] + 0.5 * rng.normal(size=60) > 0).astype(int)
    >>> K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1))
    >>> problem = get_formulation("lp_ranker").build(PairSet.bipartite(y), K, C=1.0)
    >>> run = pair_row_generation(problem, problem.metadata["pair_rows"],
    ...                           pair_index=problem.metadata["pair_index"])
    >>> full = solve(problem)
    >>> run.status, bool(abs(run.objective - full.objective) <= 1e-7 * full.objective)
    (<Status.OPTIMAL: 'optimal'>, True)
    >>> run.info["working_rows"] < problem.metadata["n_pairs"]
    True
    """
    time_limit = check_time_limit(time_limit)
    if isinstance(max_iter, bool) or not isinstance(max_iter, Integral) or max_iter < 1:
        raise ValueError(f"max_iter must be an integer >= 1 (restricted solves); got {max_iter!r}.")
    start = time.perf_counter()
    rows = _pair_row_indices(problem, pair_rows, pair_index)
    limit = max(1000, len(rows) // 20) if max_rows is None else int(max_rows)
    run = _RowGeneration(problem, rows, solver, pair_index=pair_index, per_point=pairs_per_point, limit=limit,
                         tol=tol, verbose=verbose, solver_options=solver_options)
    for rounds in range(1, max_iter + 1):
        left = None if time_limit is None else max(time_limit - (time.perf_counter() - start), 1e-3)
        fresh = run.fresh_rows(run.solve_round(rounds, left))
        if fresh is None:  # the restricted solve itself stopped
            break
        run.record(rounds, start)
        if len(fresh) == 0:
            break
        if time_limit is not None and time.perf_counter() - start >= time_limit:
            run.timed_out = True
            break
        if rounds == max_iter:
            break
        run.add(fresh)
    return run.finish(start)


def _pair_row_indices(problem: Problem, pair_rows: ArrayLike,
                      pair_index: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
    """``pair_rows`` as int64 row indices (from a mask or indices), checked against the problem and ``pair_index``."""
    rows = np.asarray(pair_rows)
    rows = np.flatnonzero(rows) if rows.dtype == bool else rows.astype(np.int64)
    if rows.size and (rows.min() < 0 or rows.max() >= problem.n_rows):
        raise ValueError(f"pair_rows must index the problem's {problem.n_rows} rows; got indices from "
                         f"{rows.min()} to {rows.max()}.")
    if pair_index is not None and any(len(e) != len(rows) for e in pair_index):
        raise ValueError(f"pair_index must give two arrays of {len(rows)} points (one per pair row).")
    return rows


class _RowGeneration:
    """One run of pair-row generation: the working set W of pair rows, the live model and the last point.

    LPs on HiGHS grow one live model (``IncrementalLP``, from the solver registry) whose simplex
    basis carries over from round to round; other backends and QPs re-solve the restricted problem
    from the last point.
    """

    def __init__(self, problem: Problem, rows: np.ndarray, solver: str, *,
                 pair_index: tuple[np.ndarray, np.ndarray] | None, per_point: int | None, limit: int, tol: float,
                 verbose: int, solver_options: dict | None):
        self.problem, self.rows, self.solver = problem, rows, solver
        self.pair_index, self.per_point, self.limit, self.tol = pair_index, per_point, limit, tol
        self.verbose, self.solver_options = verbose, solver_options
        self.kept = np.setdiff1d(np.arange(problem.n_rows), rows)
        self.A = problem.A.tocsr()
        self.A_pairs, self.lo, self.hi = self.A[rows], problem.row_lower[rows], problem.row_upper[rows]
        self.in_w = np.zeros(len(rows), dtype=bool)
        self.x = np.clip(np.zeros(problem.n_vars), problem.col_lower, problem.col_upper)
        self.violation = _row_violation(self.A_pairs @ self.x, self.lo, self.hi)
        first = self.select(np.flatnonzero(self.violation > tol))
        self.in_w[first] = True
        self.lp: Any = None
        self.order = self.sub = np.r_[self.kept, rows[first]]  # the original row of each live row
        if problem.is_lp and solver == "highs":
            self.lp = lookup("IncrementalLP")(tol=min(tol, 1e-9), verbose=verbose >= 2, solver_options=solver_options)
            self.lp.add_columns(problem.c, problem.col_lower, problem.col_upper)
            self.lp.add_rows(problem.row_lower[self.kept], problem.row_upper[self.kept], self.A[self.kept])
            self.lp.add_rows(self.lo[first], self.hi[first], self.A_pairs[first])
        self.history: list[dict] = []
        self.result: Any = None
        self.n_violated, self.worst, self.timed_out, self.inner = -1, 0.0, False, None

    def select(self, candidates: np.ndarray) -> np.ndarray:
        """The candidate rows to add, at most ``per_point`` per point and ``limit`` in all (see :func:`_select`)."""
        return _select(self.violation, candidates, self.pair_index, self.per_point, self.limit)

    def restricted(self) -> tuple[np.ndarray, Problem]:
        """The rows of the problem restricted to W (every other row kept), and that problem."""
        problem = self.problem
        sub = np.sort(np.concatenate([self.kept, self.rows[np.flatnonzero(self.in_w)]]))
        return sub, Problem(c=problem.c, A=self.A[sub].tocsc(), row_lower=problem.row_lower[sub],
                            row_upper=problem.row_upper[sub], col_lower=problem.col_lower,
                            col_upper=problem.col_upper, P=problem.P, offset=problem.offset,
                            blocks=problem.blocks, outputs=problem.outputs, name=f"{problem.name} (restricted)",
                            metadata=problem.metadata)

    def solve_round(self, rounds: int, left: float | None) -> Any:
        """Solve the restricted problem of this round (the live LP, or a new problem from the last point)."""
        if self.lp is not None:
            self.result = self.lp.solve(time_limit=left)
            self.sub = self.order
        else:
            self.sub, sub_problem = self.restricted()
            self.result = lookup("solve")(sub_problem, self.solver, time_limit=left,
                                          warm_start=None if rounds == 1 else {"x": self.x},
                                          solver_options=self.solver_options)
        return self.result

    def fresh_rows(self, result: Any) -> np.ndarray | None:
        """The pair rows to add after ``result`` (none when the certificate holds); None when it stopped the run."""
        Status = lookup("Status")
        violated = None
        if result.x is not None:
            self.x = result.x
            self.violation = _row_violation(self.A_pairs @ self.x, self.lo, self.hi)
            violated = np.flatnonzero((self.violation > self.tol) & ~self.in_w)
            self.n_violated = len(violated)
            self.worst = float(self.violation[violated].max()) if len(violated) else 0.0
        if result.status in (Status.UNBOUNDED, Status.INFEASIBLE_OR_UNBOUNDED) and not self.in_w.all():
            return np.flatnonzero(~self.in_w)[:self.limit]  # more rows bound the slacks
        if violated is None or result.status not in (Status.OPTIMAL, Status.OPTIMAL_INACCURATE):
            self.timed_out = result.status == Status.TIME_LIMIT
            self.inner = None if self.timed_out else result.status  # the restricted solve itself stopped
            return None
        return self.select(violated)

    def record(self, rounds: int, start: float) -> None:
        """Log the round in ``history`` (and on stderr when verbose)."""
        result = self.result
        self.history.append({"round": rounds, "working_rows": int(self.in_w.sum()), "objective": result.objective,
                             "violated": self.n_violated, "max_violation": self.worst, "status": str(result.status),
                             "seconds": time.perf_counter() - start})
        if self.verbose:
            print(f"pair-row generation: round {rounds}, {int(self.in_w.sum()):,} pair rows, objective "
                  f"{result.objective:.10g}, {self.n_violated:,} violated", file=sys.stderr)

    def add(self, fresh: np.ndarray) -> None:
        """Bring the rows ``fresh`` into W (and into the live LP)."""
        self.in_w[fresh] = True
        if self.lp is not None:
            self.lp.add_rows(self.lo[fresh], self.hi[fresh], self.A_pairs[fresh])
            self.order = np.r_[self.order, self.rows[fresh]]

    def finish(self, start: float) -> SolveResult:
        """The run's ``SolveResult``: ``optimal`` only when certified; a ConvergenceWarning when stopped early."""
        Status, result, problem = lookup("Status"), self.result, self.problem
        certified = result.status == Status.OPTIMAL and self.n_violated == 0
        status = Status.OPTIMAL if certified else (
            Status.TIME_LIMIT if self.timed_out else result.status if result.status != Status.OPTIMAL
            else Status.ITERATION_LIMIT)
        dual = None
        if result.dual is not None:
            dual = np.zeros(problem.n_rows)
            dual[self.sub] = result.dual
        working, n_rows = int(self.in_w.sum()), len(self.rows)
        if not certified and status in (Status.TIME_LIMIT, Status.ITERATION_LIMIT):
            self._warn(status, working)
        return lookup("SolveResult")(
            status=status, objective=problem.objective(result.x) if result.x is not None else float("nan"),
            x=result.x, dual=dual, iterations=len(self.history), solve_time=time.perf_counter() - start,
            solver=self.solver, message=f"pair-row generation: {len(self.history)} rounds, {working:,} of "
            f"{n_rows:,} pair rows", problem_name=problem.name,
            info={"rounds": len(self.history), "working_rows": working, "violated": self.n_violated,
                  "max_violation": self.worst, "history": self.history})

    def _warn(self, status: Any, working: int) -> None:
        n_rows = len(self.rows)
        if self.inner is None:
            what = (f"the returned point solves the problem restricted to {working:,} of {n_rows:,} pair "
                    "rows, so its objective is a lower bound of the optimum; raise max_iter or the time limit")
        else:
            what = (f"the {self.solver} solve of the problem restricted to {working:,} of {n_rows:,} pair rows "
                    f"ended with status {self.inner.value}, so the returned point is its last iterate and nothing is "
                    "certified; raise the solver's iteration limit or use solver='highs'")
        warn(f"Pair-row generation stopped ({status.value}) after {len(self.history)} rounds with "
             f"{self.n_violated:,} pair rows violated (by up to {self.worst:.2g}): {what}.", ConvergenceWarning)
