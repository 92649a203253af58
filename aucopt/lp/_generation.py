"""The LP Ranker by row-and-column generation on one live HiGHS model.

The LP Ranker (Ataman 2007, eq. 3.3) over pairs p = (i, j) with weights w_p,

    min  Σ_l α_l + C Σ_p w_p z_p   s.t.  s_i − s_j + z_p ≥ 1 (every pair),  s = K Y α,  α, z ≥ 0,

has one row per pair and one column per ranking vector, but at its optimum few pairs have a
positive dual and the L1 penalty leaves few α_l > 0. Row-and-column generation keeps a
restricted LP over a working set of pair rows and of ranking-vector columns (with the score
variables s_i of the points those rows touch) and grows it:

* rows: the pairs whose margin f_i − f_j < 1 at the current scores f = K Y α, found in one
  compiled scan (:func:`aucopt.pairs.core.violated_pairs`), the most violated per point;
* columns: the points whose α_l has a negative reduced cost 1 + y_l (K π)_l, π the duals of the
  score rows (one kernel product against the points with a nonzero dual, in row blocks, so the
  kernel is never formed whole).

No pair violated and no column priced out is the optimality certificate of the full LP: the
restricted solution, with z_p = max(0, 1 − (f_i − f_j)) for the pairs outside, is feasible for
the full LP, and the restricted duals (0 on the pairs outside) are dual feasible for it, with
equal objectives.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from numbers import Integral, Real
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions, validate_parameter_constraints

from .. import _memory
from .._validation import Count, check_time_limit
from ..base import positive
from ..exceptions import warn
from ..pairs import DEFAULT_MAX_BYTES, PairSet
from ..pairs.core import pair_counts, pair_loss, violated_pairs
from ..solvers import SolveResult, Status
from ..solvers.highs import IncrementalLP
from ._dual import pair_dual_bound
from ._kernel import KernelLike, KernelOperator
from ._runlog import RunLog, relative_gap
from ._smoothing import SmoothingResult, smoothing

__all__ = ["GENERATION_CONSTRAINTS", "GenerationResult", "row_column_generation"]

#: the smoothing start: its certified gap, and the pairs it hands over (per point and side, those of
#: margin below 1 + START_MARGIN, the smallest first)
START_TOL, START_MARGIN, START_PAIRS = 1e-3, 0.01, 64
#: the most entries of the per-point buffers of that selection (16 bytes each)
START_ENTRIES = 1 << 22

@dataclass
class GenerationResult:
    """Record of a :func:`row_column_generation` run.

    Attributes
    ----------
    alpha : ndarray of shape (m,)
        The expansion coefficients α (zero outside the generated columns).
    objective : float
        The full LP's objective at α: Σ α + C Σ_p w_p max(0, 1 − (f_i − f_j)) over every pair.
    rounds : int
        Restricted LPs solved.
    n_rows : int
        Pair rows in the final restricted LP.
    n_columns : int
        Ranking-vector columns in the final restricted LP.
    n_points : int
        Points with a score row in the final restricted LP.
    violated_pairs : int
        Pairs outside the LP whose margin is below 1 − ``min_violation`` at the end (0 certifies
        primal feasibility).
    min_reduced_cost : float
        The smallest reduced cost of a ranking vector at the end (≥ −``min_violation``
        certifies dual feasibility).
    converged : bool
        Whether the certificate holds: ``violated_pairs == 0`` and no column prices out.
    lower_bound : float
        The best lower bound of the LP optimum over the rounds (and of the smoothing start): a
        restricted LP's pair duals π, clipped to [0, C w_p], give Σπ divided by max(1, 1 − the
        smallest reduced cost over every column), the value of a point feasible for the dual of
        the full LP; it holds whatever the accuracy of HiGHS's duals.
    gap : float
        ``(objective − lower_bound) / objective``: how far above the optimum α can be, certified.
        When the certificate holds, it is of the order of HiGHS's tolerances (``tol``).
    history : list of dict
        Per round: ``round``, ``rows``, ``columns``, ``points``, ``lp_objective``,
        ``objective`` (the full LP's, at that round's α), ``violated`` (pairs), ``min_reduced_cost``,
        ``lower_bound`` (the best so far),
        ``added_rows``, ``added_columns``, ``simplex_iterations``, ``lp_seconds`` (the
        restricted LP's solve) and ``seconds`` (since the call, the smoothing start included).
    columns : ndarray of int64
        The points with a ranking-vector column in the final restricted LP.
    rows : ndarray of int64
        The pair positions (in :meth:`~aucopt.pairs.PairSet.to_arrays` order) with a row in the
        final restricted LP; with ``columns``, the ``warm_start`` of another run.
    solve_result : SolveResult
        The last restricted LP's result; its status is
        :attr:`~aucopt.solvers.Status.ITERATION_LIMIT` or :attr:`~aucopt.solvers.Status.TIME_LIMIT`
        when ``max_iter`` or the time limit ended the run before the certificate held.

    See Also
    --------
    row_column_generation : The function returning this record.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.lp import row_column_generation
    >>> run = row_column_generation(np.eye(4), PairSet.bipartite([1, 1, 0, 0]), 1.0)
    >>> run.converged, run.violated_pairs, run.objective
    (True, 0, 2.0)
    """

    alpha: np.ndarray
    objective: float
    rounds: int
    n_rows: int
    n_columns: int
    n_points: int
    violated_pairs: int
    min_reduced_cost: float
    converged: bool
    history: list = field(default_factory=list)
    lower_bound: float = 0.0
    gap: float = 1.0
    solve_result: object = None
    columns: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    rows: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))


#: constraints of the options of :func:`row_column_generation`
GENERATION_CONSTRAINTS = {
    "C": [positive()],
    "pairs_per_point": [Count(Integral, 1, None, closed="left")],
    "max_pairs": [Count(Integral, 1, None, closed="left"), None],
    "columns_per_round": [Count(Integral, 1, None, closed="left")],
    "min_violation": [Interval(Real, 0, 1, closed="left")],
    "max_iter": [Count(Integral, 1, None, closed="left")],
    "tol": [positive(), None],
    "solver_options": [dict, None],
    "verbose": ["verbose"],
    "max_bytes": [positive(), None],
    "callback": [callable, None],
    "warm_start": [GenerationResult, SmoothingResult, None],
    "start": [StrOptions({"smoothing", "zero"})],
}


class _RestrictedLP:
    """The restricted LP Ranker on a live :class:`IncrementalLP`: α columns for the generated
    ranking vectors, score columns s_i and score rows s_i − Σ_l y_l K_il α_l = 0 for the points
    the pair rows touch, and per pair row a slack column z_p and the row s_i − s_j + z_p ≥ 1.
    Nothing is ever deleted, so the LP indices of the points and pairs are fixed once added."""

    def __init__(self, kernel: KernelOperator, pairs: PairSet, C: float, lp: IncrementalLP):
        m = pairs.n_points
        self.kernel, self.pairs, self.C, self.lp = kernel, pairs, C, lp
        self.y = pairs.signs
        self.alpha_col = np.full(m, -1, dtype=np.int64)  # LP column of α_l
        self.score_col = np.full(m, -1, dtype=np.int64)  # LP column of s_i
        self.score_row = np.full(m, -1, dtype=np.int64)  # LP row defining s_i
        self.alpha_points = np.zeros(0, dtype=np.int64)  # in the order of their columns
        self.score_points = np.zeros(0, dtype=np.int64)  # in the order of their rows
        self.pair_rows = np.zeros(0, dtype=np.int64)  # pair positions with a row
        self.z_cols = np.zeros(0, dtype=np.int64)  # their slack columns
        self.z_rows = np.zeros(0, dtype=np.int64)  # and their LP rows
        self.in_rows = np.zeros(pairs.n_pairs, dtype=np.bool_)

    @property
    def n_pair_rows(self) -> int:
        return len(self.pair_rows)

    def add_columns(self, points) -> None:
        """α columns for ``points``, with their entries −y_l K_il in the existing score rows."""
        points = np.asarray(points, dtype=np.int64)
        k = len(points)
        if k == 0:
            return
        A = None
        scored = self.score_points
        if len(scored):
            block = sp.coo_matrix(-self.kernel.block(scored, points) * self.y[points])
            A = sp.csc_matrix((block.data, (self.score_row[scored][block.row], block.col)), shape=(self.lp.n_rows, k))
        self.alpha_col[points] = self.lp.add_columns(np.ones(k), np.zeros(k), np.full(k, np.inf), A)
        self.alpha_points = np.concatenate([self.alpha_points, points])

    def _add_scores(self, points) -> None:
        """Score columns s_i (free) and score rows s_i − Σ_l y_l K_il α_l = 0 for ``points``."""
        k = len(points)
        cols = self.lp.add_columns(np.zeros(k), np.full(k, -np.inf), np.full(k, np.inf))
        self.score_col[points] = cols
        A = sp.csr_matrix((np.ones(k), (np.arange(k), cols)), shape=(k, self.lp.n_cols))
        basis = self.alpha_points
        if len(basis):
            block = sp.coo_matrix(-self.kernel.block(points, basis) * self.y[basis])
            A = A + sp.csr_matrix((block.data, (block.row, self.alpha_col[basis][block.col])), shape=A.shape)
        self.score_row[points] = self.lp.add_rows(np.zeros(k), np.zeros(k), A)
        self.score_points = np.concatenate([self.score_points, points])

    def add_pairs(self, positions) -> None:
        """Pair rows s_i − s_j + z_p ≥ 1 with slack columns z_p of cost C w_p."""
        positions = np.asarray(positions, dtype=np.int64)
        k = len(positions)
        if k == 0:
            return
        i, j, w = self.pairs.pairs_at(positions)
        touched = np.unique(np.concatenate([i, j]))
        new_points = touched[self.score_col[touched] < 0]
        if len(new_points):
            self._add_scores(new_points)
        z = self.lp.add_columns(self.C * w, np.zeros(k), np.full(k, np.inf))
        r = np.repeat(np.arange(k), 3)
        c = np.column_stack([self.score_col[i], self.score_col[j], z]).ravel()
        v = np.tile([1.0, -1.0, 1.0], k)
        rows = self.lp.add_rows(np.ones(k), np.full(k, np.inf), sp.csr_matrix((v, (r, c)), shape=(k, self.lp.n_cols)))
        self.pair_rows = np.concatenate([self.pair_rows, positions])
        self.z_cols = np.concatenate([self.z_cols, z])
        self.z_rows = np.concatenate([self.z_rows, rows])
        self.in_rows[positions] = True

    def point(self, alpha) -> np.ndarray:
        """The LP's columns at α: the α columns, the scores s = K Y α of the scored points and
        the slacks z_p = max(0, 1 − (s_i − s_j)) (a primal start for HiGHS)."""
        x = np.zeros(self.lp.n_cols)
        basis = self.alpha_points
        x[self.alpha_col[basis]] = alpha[basis]
        support = np.flatnonzero(alpha)
        s = self.kernel.product(support, (self.y * alpha)[support])
        scored = self.score_points
        x[self.score_col[scored]] = s[scored]
        i, j, _ = self.pairs.pairs_at(self.pair_rows)
        x[self.z_cols] = np.maximum(0.0, 1.0 - (s[i] - s[j]))
        return x

    def alpha(self, x) -> np.ndarray:
        alpha = np.zeros(self.pairs.n_points)
        basis = self.alpha_points
        alpha[basis] = np.maximum(x[self.alpha_col[basis]], 0.0)
        return alpha

    def pricing(self, dual) -> tuple[np.ndarray, float]:
        """The reduced costs 1 − y_l (K Dᵀπ)_l of every point l and the certified lower bound, for π the
        duals of the pair rows clipped to [0, C w_p] (see :func:`~aucopt.lp._dual.pair_dual_bound`): at
        the restricted LP's exact optimum, the reduced costs of its score rows' duals."""
        lower, reach = pair_dual_bound(self.pairs, self.C, self.pair_rows, dual[self.z_rows], self.kernel.product)
        return 1.0 - reach, lower


def _most_negative(rc, allowed, count, threshold):
    """Up to ``count`` indices of ``allowed`` entries of ``rc`` below ``threshold``, most negative first."""
    cand = np.flatnonzero(allowed & (rc < threshold))
    if len(cand) > count:
        cand = cand[np.argpartition(rc[cand], count - 1)[:count]]
    return cand[np.argsort(rc[cand], kind="stable")]


def row_column_generation(K: KernelLike, pairs: PairSet, C: float, *, pairs_per_point: int = 5,
                          max_pairs: int | None = None, columns_per_round: int = 100, min_violation: float = 1e-7,
                          max_iter: int = 500, tol: float | None = None, solver_options: dict | None = None,
                          verbose: int = 0, max_bytes: float | None = DEFAULT_MAX_BYTES,
                          callback: Callable[[dict], Any] | None = None,
                          warm_start: GenerationResult | SmoothingResult | None = None,
                          start: str = "smoothing") -> GenerationResult:
    """The LP Ranker's exact optimum by row-and-column generation on one live HiGHS model.

    Starts from the working set of a near-optimal solution (the smoothing route to a certified
    gap of 1e-3: its ranking vectors and the pairs at or below their margin, with the solution
    itself as HiGHS's starting point) and alternates: solve the restricted LP from the last simplex basis; add the pairs
    whose margin is violated at the current scores (for every point, its ``pairs_per_point``
    most violated pairs as the upper and as the lower point, at most ``max_pairs`` per round);
    add the ranking vectors whose reduced cost is negative (the ``columns_per_round`` most
    negative). It stops when no pair is violated and no column prices out, which certifies the
    optimum of the full LP (Ataman 2007, eq. 3.3) over every pair, or at ``max_iter`` rounds or
    the time limit.

    Parameters
    ----------
    K : ndarray of shape (m, m) or callable
        The training kernel, or a callable ``K(rows, cols)`` returning the block
        ``K[rows][:, cols]`` (index arrays), so that the kernel is never formed whole.
    pairs : PairSet
        The pairs (i, j, w_ij), bipartite, survival or custom; ``pairs.signs`` gives Y.
    C : float
        Weight of the pairwise hinge loss (> 0).
    pairs_per_point : int, default=5
        Violated pairs kept per point and side (upper, lower) in a round.
    max_pairs : int or None, default=None
        Pair rows added per round at most, the most violated of those kept first; None: m, the
        number of points. (On noisy half-moons of 1,000 points, m per round took 35 s, 2m 38 s
        and 5m 66 s: rows added at a poor early iterate cost simplex iterations and stay.)
    columns_per_round : int, default=100
        Ranking-vector columns added per round at most, the most negative reduced costs first.
    min_violation : float, default=1e-7
        Margin shortfall 1 − (f_i − f_j), and negative reduced cost, above which a pair or a
        column counts as violated: the tolerance of the certificate.
    max_iter : int, default=500
        Maximum number of rounds (restricted LPs).
    tol : float or None, default=None
        HiGHS's primal and dual feasibility tolerance; None: 1e-9.
    solver_options : dict, default=None
        Raw HiGHS options, except ``"time_limit"`` (seconds, a positive number), which caps the
        whole run: each LP gets the time left, and a run stopped by it, even inside a restricted
        LP, keeps its best point and reports ``solve_result.status == "time_limit"`` with a
        ``ConvergenceWarning`` (the point's objective and certified lower bound).
    verbose : int, default=0
        0: silent; 1: a progress bar over the rounds (rows, columns, violated pairs, objective);
        ≥ 2: also HiGHS's log.
    max_bytes : float or None, default=2 GiB
        Memory budget of the working arrays (one byte per pair for the row mask, a kernel block);
        larger problems raise :class:`~aucopt.exceptions.ProblemTooLargeError` before any work.
        None: no limit.
    callback : callable, default=None
        Called with each round's history record (a dict).
    warm_start : GenerationResult or SmoothingResult, default=None
        A run on the same pairs and kernel (e.g. at another ``C``, along a regularization
        path): its final columns and rows start the LP; a :func:`smoothing` run hands over its
        ranking vectors, the pairs below margin 1.01 at its scores, and its α as the start.
    start : {"smoothing", "zero"}, default="smoothing"
        The first working set without ``warm_start``: from :func:`smoothing` to a gap of 1e-3
        (on noisy half-moons of 1,000 and 2,000 points the exact optimum then takes 14 s and
        104 s against 61 s and 1,005 s), or, ``"zero"``, the ranking vectors and pairs that
        the all-violated start α = 0 ranks worst.

    Returns
    -------
    result : GenerationResult
        α, the full LP's objective at α, the certificate and the history.

    Raises
    ------
    ProblemTooLargeError
        When the working arrays would exceed ``max_bytes``.

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` or the time limit ends the run before the certificate holds; α is
        then the best point found (of the rounds and the smoothing start), feasible (its
        objective an upper bound of the optimum) but not certified optimal, and ``gap`` is
        certified against the best lower bound.

    See Also
    --------
    chunking : Constraint generation over all ranking vectors, re-solving each restricted LP.
    subgradient : The projected subgradient method (approximate, no LP solver).
    aucopt.LPRanker : The estimator; ``method="generation"`` calls this function.

    Notes
    -----
    The restricted LP keeps the lifted form of the full LP: one score column and one score row
    per point touched by a pair row (holding one kernel entry per generated column), then three
    nonzeros per pair row. A column's reduced cost is 1 + y_l (K π)_l with π the duals of the
    score rows, which equals 1 − y_l (K v)_l with v = Σ_p μ_p (e_i − e_j) and μ the pair-row
    duals. The first columns are priced at μ_p = C w_p (every pair violated at α = 0), and the
    first pairs are the most violated at the scores K v of that start. Adding rows keeps the basis
    dual feasible and adding columns keeps it primal feasible, so HiGHS's simplex resumes from the
    last basis. The certificate is exact up to ``min_violation`` and HiGHS's tolerances (the same
    as a full LP solved by HiGHS). Column generation for L1-regularized linear programs is the
    approach of LPBoost [2]_; constraint generation over pairs that of cutting-plane ranking
    SVMs [3]_.

    References
    ----------
    .. [1] Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming for
       problems with binary output*. PhD thesis, University of Iowa.
    .. [2] Demiriz, A., Bennett, K. P., & Shawe-Taylor, J. (2002). Linear programming boosting via
       column generation. *Machine Learning*, 46(1–3), 225–254.
    .. [3] Joachims, T. (2006). Training linear SVMs in linear time. *Proceedings of the 12th ACM
       SIGKDD International Conference on Knowledge Discovery and Data Mining*, 217–226.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.metrics.pairwise import rbf_kernel
    >>> from aucopt import PairSet, get_formulation, solve
    >>> X, y = make_classification(n_samples=80, random_state=0)
    >>> K, pairs = rbf_kernel(X, gamma=0.05), PairSet.bipartite(y)
    >>> run = row_column_generation(K, pairs, 1.0, columns_per_round=10)
    >>> full = solve(get_formulation("lp_ranker").build(pairs, K, C=1.0))
    >>> run.converged, bool(abs(run.objective - full.objective) <= 1e-7 * full.objective)
    (True, True)
    >>> run.n_rows < pairs.n_pairs, run.n_columns < len(y)  # a fraction of the rows and columns
    (True, True)

    The kernel as a callable, so it is never formed whole:

    >>> run2 = row_column_generation(lambda r, c: rbf_kernel(X[r], X[c], gamma=0.05), pairs, 1.0,
    ...                              columns_per_round=10)
    >>> bool(abs(run2.objective - run.objective) <= 1e-7 * run.objective)
    True
    """
    validate_parameter_constraints(
        GENERATION_CONSTRAINTS,
        dict(C=C, pairs_per_point=pairs_per_point, max_pairs=max_pairs, columns_per_round=columns_per_round,
             min_violation=min_violation, max_iter=max_iter, tol=tol, solver_options=solver_options,
             verbose=verbose, max_bytes=max_bytes, callback=callback, warm_start=warm_start),
        caller_name="row_column_generation")
    P, m = pairs.check_nonempty().n_pairs, pairs.n_points
    _memory.refuse(_memory.generation_work_bytes(m, P), max_bytes,
                   f"Row-and-column generation over {P:,} pairs (pair mask and kernel blocks)",
                   lambda: _memory.lp_routes(m, P, survival=pairs.target == "survival", solver="highs",
                                             max_bytes=max_bytes, exclude=("generation",)))
    time_limit = check_time_limit((solver_options or {}).get("time_limit"), "solver_options['time_limit']")
    C = float(C)
    start_time = time.perf_counter()
    kernel = K if isinstance(K, KernelOperator) else KernelOperator(K, m)
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    lp = IncrementalLP(tol=tol, verbose=verbose >= 2, solver_options=solver_options,
                       name=f"LP Ranker restricted to generated pair rows and columns ({P:,} pairs, {m:,} points)")
    model = _RestrictedLP(kernel, pairs, C, lp)
    rule = _Pricing(pairs_per_point, m if max_pairs is None else int(max_pairs), columns_per_round, min_violation)
    if warm_start is None and start == "smoothing":
        left = None if deadline is None else max(deadline - time.perf_counter(), 1e-3)
        with warnings.catch_warnings():  # a start stopped early is still a start
            warnings.simplefilter("ignore", ConvergenceWarning)
            warm_start = smoothing(kernel, pairs, C, tol=START_TOL, time_limit=left, max_bytes=max_bytes)
    if isinstance(warm_start, SmoothingResult):
        start_point = _seed_from_smoothing(model, warm_start)
    elif warm_start is not None:
        _seed_from_run(model, warm_start)
    else:
        _seed_from_zero(model, rule)
    run = _GenerationRun(model, rule, start_time, deadline)
    log = RunLog(verbose, callback, desc="row/column generation", unit="LP")
    for rounds in range(1, max_iter + 1):
        if not run.round(rounds, log, last=rounds == max_iter):
            break
    log.close()
    if isinstance(warm_start, SmoothingResult):  # a run stopped early may keep the start's point and bound
        run.offer_start(start_point, warm_start)
    return run.finish(time_limit, max_iter, log.history)


@dataclass
class _Pricing:
    """What a round adds: the ``per_point`` most violated pairs per point and side (at most
    ``max_pairs``) and the ``columns`` most negative reduced costs, both beyond ``min_violation``."""

    per_point: int
    max_pairs: int
    columns: int
    min_violation: float


def _seed_from_smoothing(model: _RestrictedLP, warm_start: SmoothingResult) -> np.ndarray:
    """The ranking vectors of a smoothing run, the pairs at or below margin 1 + START_MARGIN at its
    scores (all of them, as far as the buffers allow) and its α as HiGHS's start; returns that α."""
    pairs, m = model.pairs, model.pairs.n_points
    if len(warm_start.alpha) != m:
        raise ValueError(f"warm_start comes from a problem with {len(warm_start.alpha)} points; this one has {m}: "
                         "pass the result of a run on the same pairs.")
    start_point = np.maximum(np.asarray(warm_start.alpha, dtype=float), 0.0)
    columns = np.flatnonzero(start_point)
    f = model.kernel.product(columns, (pairs.signs * start_point)[columns])
    model.add_columns(columns)
    counts = pair_counts(pairs, f, 1.0 + START_MARGIN)
    most = int(max(counts.first.max(initial=0), counts.second.max(initial=0)))
    per_point = max(1, min(most, max(START_PAIRS, START_ENTRIES // m)))
    model.add_pairs(np.unique(violated_pairs(pairs, f, 1.0 + START_MARGIN, per_point=per_point).positions))
    model.lp.set_start(model.point(start_point))
    return start_point


def _seed_from_run(model: _RestrictedLP, warm_start: GenerationResult) -> None:
    """The final columns and rows of a run on the same pairs."""
    m, P = model.pairs.n_points, model.pairs.n_pairs
    columns, rows = np.unique(warm_start.columns), np.unique(warm_start.rows)
    if (len(columns) and columns[-1] >= m) or (len(rows) and rows[-1] >= P):
        raise ValueError(f"warm_start comes from another problem (columns up to {columns.max(initial=-1)}, rows "
                         f"up to {rows.max(initial=-1)}; this one has {m} points and {P} pairs): pass the result "
                         "of a run on the same pairs.")
    model.add_columns(columns)
    model.add_pairs(rows)


def _seed_from_zero(model: _RestrictedLP, rule: _Pricing) -> None:
    """Every pair is violated at α = 0, so μ_p = C w_p: price the columns and rank the pairs there."""
    pairs, m = model.pairs, model.pairs.n_points
    _, grad = pair_loss(pairs, np.zeros(m), "hinge")
    v0 = -model.C * grad
    nz = np.flatnonzero(v0)
    f0 = model.kernel.product(nz, v0[nz])
    model.add_columns(_most_negative(1.0 - pairs.signs * f0, np.ones(m, dtype=bool), rule.columns,
                                     -rule.min_violation))
    model.add_pairs(violated_pairs(pairs, f0, np.inf, per_point=rule.per_point).positions[:rule.max_pairs])


class _GenerationRun:
    """The rounds of row-and-column generation on a seeded restricted LP: solve, certify, grow.

    Keeps the last α and its full objective, the best point of the rounds (kept when the run stops
    early), the best certified lower bound and the last round's certificate (violated pairs, the
    smallest reduced cost).
    """

    def __init__(self, model: _RestrictedLP, rule: _Pricing, start_time: float, deadline: float | None):
        self.model, self.rule, self.start_time, self.deadline = model, rule, start_time, deadline
        self.result: SolveResult | None = None
        self.rounds, self.timed_out = 0, False
        self.n_violated, self.min_rc, self.lower = -1, -np.inf, 0.0
        self.alpha = np.zeros(model.pairs.n_points)
        self.objective = model.C * pair_loss(model.pairs, self.alpha, "hinge")[0]  # F(0): α = 0 is feasible
        self.best_alpha, self.best_objective = self.alpha, self.objective

    def full_objective(self, alpha: np.ndarray) -> tuple[np.ndarray, float]:
        """The scores at α and F(α) over every pair: an upper bound of the optimum for any α ≥ 0."""
        model = self.model
        support = np.flatnonzero(alpha)
        scores = model.kernel.product(support, (model.pairs.signs * alpha)[support])
        return scores, float(alpha.sum()) + model.C * pair_loss(model.pairs, scores, "hinge")[0]

    def _offer(self, alpha: np.ndarray, objective: float) -> None:
        if objective < self.best_objective:
            self.best_alpha, self.best_objective = alpha, objective

    def round(self, rounds: int, log: RunLog, *, last: bool) -> bool:
        """Solve the restricted LP, certify its point and grow the LP; whether another round follows."""
        model, rule = self.model, self.rule
        self.rounds = rounds
        left = None if self.deadline is None else max(self.deadline - time.perf_counter(), 1e-3)
        lp_start = time.perf_counter()
        result = self.result = model.lp.solve(time_limit=left)
        lp_seconds = time.perf_counter() - lp_start
        if result.status == Status.TIME_LIMIT:  # the run's time is up inside this LP: its point (if any) may help
            self.timed_out = True
            if result.x is not None:
                candidate = model.alpha(result.x)
                self._offer(candidate, self.full_objective(candidate)[1])
            return False
        result.raise_for_status()
        self.alpha = model.alpha(result.x)
        f, self.objective = self.full_objective(self.alpha)
        self._offer(self.alpha, self.objective)
        found = violated_pairs(model.pairs, f, 1.0 - rule.min_violation, per_point=rule.per_point,
                               skip=model.in_rows)
        rc, lower = model.pricing(result.dual)
        allowed = model.alpha_col < 0
        self.min_rc = float(rc[allowed].min()) if allowed.any() else 0.0
        self.n_violated = found.total
        self.lower = max(self.lower, lower)
        new_cols = _most_negative(rc, allowed, rule.columns, -rule.min_violation)
        new_rows = found.positions[:rule.max_pairs]
        record = {"round": rounds, "rows": model.n_pair_rows, "columns": len(model.alpha_points),
                  "points": len(model.score_points), "lp_objective": result.objective, "objective": self.objective,
                  "violated": self.n_violated, "min_reduced_cost": self.min_rc, "lower_bound": self.lower,
                  "added_rows": len(new_rows), "added_columns": len(new_cols),
                  "simplex_iterations": result.iterations, "lp_seconds": lp_seconds,
                  "seconds": time.perf_counter() - self.start_time}
        log.add(record, {"rows": record["rows"], "columns": record["columns"], "violated": self.n_violated,
                         "F": f"{self.objective:.6g}"})
        if len(new_rows) == 0 and len(new_cols) == 0:
            return False
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            self.timed_out = True
            return False
        if last:
            return False
        model.add_columns(new_cols)
        model.add_pairs(new_rows)
        return True

    @property
    def converged(self) -> bool:
        """The certificate: the last LP optimal, no pair violated and no column priced out."""
        return (not self.timed_out and self.result is not None and self.result.status == Status.OPTIMAL
                and self.n_violated == 0 and self.min_rc >= -self.rule.min_violation)

    def offer_start(self, start_point: np.ndarray, start: SmoothingResult) -> None:
        """The smoothing start's bound counts too; a run stopped early keeps its point when better than the rounds'."""
        self.lower = max(self.lower, start.lower_bound)
        if not self.converged:
            self._offer(start_point, start.objective)

    def finish(self, time_limit: float | None, max_iter: int, history: list) -> GenerationResult:
        """The record: the certified optimum, or the best point with its gap and a ConvergenceWarning."""
        model, converged, result = self.model, self.converged, self.result
        assert result is not None  # max_iter >= 1: at least one LP was solved
        alpha, objective, lower = self.alpha, self.objective, self.lower
        if not converged:  # the best point of the rounds, or of the smoothing start, with the best certified bound
            alpha, objective = self.best_alpha, self.best_objective
        gap = relative_gap(objective, lower)
        if not converged:
            why = (f"time_limit={time_limit:g} s (solver_options)" if self.timed_out else f"max_iter={max_iter} rounds")
            status = Status.TIME_LIMIT if self.timed_out else Status.ITERATION_LIMIT
            result = replace(result, status=status, message=f"row/column generation stopped at {why}")
            warn(f"Row-and-column generation stopped at {why} before its certificate held ({max(self.n_violated, 0):,} "
                 f"violated pairs, smallest reduced cost {self.min_rc:.3g}); its best point has objective F = "
                 f"{objective:.6g}, certified lower bound {lower:.6g}: at most a fraction {gap:.3g} above the LP "
                 f"optimum (certified relative gap). Raise {'time_limit' if self.timed_out else 'max_iter'}, or use "
                 "method='smoothing' for a near-optimal solution with a certified gap.", ConvergenceWarning)
        return GenerationResult(alpha=alpha, objective=objective, rounds=self.rounds, n_rows=model.n_pair_rows,
                                n_columns=len(model.alpha_points), n_points=len(model.score_points),
                                violated_pairs=max(self.n_violated, 0), min_reduced_cost=self.min_rc,
                                converged=converged, lower_bound=lower, gap=gap,
                                history=history, solve_result=result, columns=model.alpha_points.copy(),
                                rows=model.pair_rows.copy())
