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

import time
from numbers import Integral

import numpy as np

from .._validation import Count, check_time_limit
from ..exceptions import warn
from .problem import Problem

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


def _select(violation: np.ndarray, candidates: np.ndarray, pair_index, per_point: int, limit: int) -> np.ndarray:
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


def pair_row_generation(problem: Problem, pair_rows, solver: str = "highs", *, pair_index=None,
                        pairs_per_point: int | None = PAIRS_PER_POINT, max_rows: int | None = None,
                        tol: float = 1e-7, max_iter: int = 200, time_limit: float | None = None,
                        verbose: int = 0, solver_options: dict | None = None):
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
    from sklearn.exceptions import ConvergenceWarning

    from ..solvers import solve
    from ..solvers.base import SolveResult, Status

    time_limit = check_time_limit(time_limit)
    start = time.perf_counter()
    rows = np.asarray(pair_rows)
    rows = np.flatnonzero(rows) if rows.dtype == bool else rows.astype(np.int64)
    if rows.size and (rows.min() < 0 or rows.max() >= problem.n_rows):
        raise ValueError(f"pair_rows must index the problem's {problem.n_rows} rows; got indices from "
                         f"{rows.min()} to {rows.max()}.")
    if pair_index is not None and any(len(e) != len(rows) for e in pair_index):
        raise ValueError(f"pair_index must give two arrays of {len(rows)} points (one per pair row).")
    kept = np.setdiff1d(np.arange(problem.n_rows), rows)
    A = problem.A.tocsr()
    A_pairs, lo, hi = A[rows], problem.row_lower[rows], problem.row_upper[rows]
    limit = max(1000, len(rows) // 20) if max_rows is None else int(max_rows)
    incremental = problem.is_lp and solver == "highs"

    def restricted(working):
        sub = np.sort(np.concatenate([kept, rows[working]]))
        return sub, Problem(c=problem.c, A=A[sub].tocsc(), row_lower=problem.row_lower[sub],
                            row_upper=problem.row_upper[sub], col_lower=problem.col_lower,
                            col_upper=problem.col_upper, P=problem.P, offset=problem.offset,
                            blocks=problem.blocks, outputs=problem.outputs, name=f"{problem.name} (restricted)",
                            metadata=problem.metadata)

    in_w = np.zeros(len(rows), dtype=bool)
    x = np.clip(np.zeros(problem.n_vars), problem.col_lower, problem.col_upper)
    violation = _row_violation(A_pairs @ x, lo, hi)
    first = _select(violation, np.flatnonzero(violation > tol), pair_index, pairs_per_point, limit)
    in_w[first] = True
    if incremental:
        from ..solvers.highs import IncrementalLP

        lp = IncrementalLP(tol=min(tol, 1e-9), verbose=verbose >= 2, solver_options=solver_options)
        lp.add_columns(problem.c, problem.col_lower, problem.col_upper)
        lp.add_rows(problem.row_lower[kept], problem.row_upper[kept], A[kept])
        lp.add_rows(lo[first], hi[first], A_pairs[first])
        order = np.r_[kept, rows[first]]  # the original row of each live row
    history, result, n_violated, worst, timed_out, inner = [], None, -1, 0.0, False, None
    for rounds in range(1, max_iter + 1):
        left = None if time_limit is None else max(time_limit - (time.perf_counter() - start), 1e-3)
        if incremental:
            result = lp.solve(time_limit=left)
            sub = order
        else:
            sub, sub_problem = restricted(np.flatnonzero(in_w))
            result = solve(sub_problem, solver, time_limit=left, warm_start=None if rounds == 1 else {"x": x},
                           solver_options=solver_options)
        if result.x is not None:
            x = result.x
            violation = _row_violation(A_pairs @ x, lo, hi)
            violated = np.flatnonzero((violation > tol) & ~in_w)
            n_violated, worst = len(violated), float(violation[violated].max()) if len(violated) else 0.0
        if result.status in (Status.UNBOUNDED, Status.INFEASIBLE_OR_UNBOUNDED) and not in_w.all():
            fresh = np.flatnonzero(~in_w)[:limit]  # more rows bound the slacks
        elif result.x is None or result.status not in (Status.OPTIMAL, Status.OPTIMAL_INACCURATE):
            timed_out = result.status == Status.TIME_LIMIT
            inner = None if timed_out else result.status  # the restricted solve itself stopped
            break
        else:
            fresh = _select(violation, violated, pair_index, pairs_per_point, limit)
        history.append({"round": rounds, "working_rows": int(in_w.sum()), "objective": result.objective,
                        "violated": n_violated, "max_violation": worst, "status": str(result.status),
                        "seconds": time.perf_counter() - start})
        if verbose:
            import sys

            print(f"pair-row generation: round {rounds}, {int(in_w.sum()):,} pair rows, objective "
                  f"{result.objective:.10g}, {n_violated:,} violated", file=sys.stderr)
        if len(fresh) == 0:
            break
        if time_limit is not None and time.perf_counter() - start >= time_limit:
            timed_out = True
            break
        if rounds == max_iter:
            break
        in_w[fresh] = True
        if incremental:
            lp.add_rows(lo[fresh], hi[fresh], A_pairs[fresh])
            order = np.r_[order, rows[fresh]]
    certified = (result is not None and result.status == Status.OPTIMAL and n_violated == 0)
    status = Status.OPTIMAL if certified else (
        Status.TIME_LIMIT if timed_out else result.status if result.status != Status.OPTIMAL
        else Status.ITERATION_LIMIT)
    dual = None
    if result is not None and result.dual is not None:
        dual = np.zeros(problem.n_rows)
        dual[sub] = result.dual
    if not certified and status in (Status.TIME_LIMIT, Status.ITERATION_LIMIT):
        if inner is None:
            what = (f"the returned point solves the problem restricted to {int(in_w.sum()):,} of {len(rows):,} pair "
                    "rows, so its objective is a lower bound of the optimum; raise max_iter or the time limit")
        else:
            what = (f"the {solver} solve of the problem restricted to {int(in_w.sum()):,} of {len(rows):,} pair rows "
                    f"ended with status {inner.value}, so the returned point is its last iterate and nothing is "
                    "certified; raise the solver's iteration limit or use solver='highs'")
        warn(f"Pair-row generation stopped ({status.value}) after {len(history)} rounds with {n_violated:,} pair "
             f"rows violated (by up to {worst:.2g}): {what}.", ConvergenceWarning)
    return SolveResult(
        status=status, objective=problem.objective(result.x) if result is not None and result.x is not None
        else float("nan"), x=None if result is None else result.x, dual=dual,
        iterations=len(history), solve_time=time.perf_counter() - start, solver=solver,
        message=f"pair-row generation: {len(history)} rounds, {int(in_w.sum()):,} of {len(rows):,} pair rows",
        problem_name=problem.name,
        info={"rounds": len(history), "working_rows": int(in_w.sum()), "violated": n_violated,
              "max_violation": worst, "history": history})
