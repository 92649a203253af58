"""The LP Ranker at scale with a certified optimality gap: smoothing, continuation and Newton steps.

The LP Ranker (Ataman 2007, eq. 3.3) over pairs p = (i, j) with weights w_p is

    F* = min_{α ≥ 0} F(α),   F(α) = Σ_l α_l + C Σ_p w_p max(0, t_p),   t_p = 1 − (f_i − f_j),  f = K Y α,

and its dual is max Σ_p π_p over 0 ≤ π_p ≤ C w_p with (Y K Aᵀ π)_l ≤ 1 for every point l
(A the pair incidence). Smoothing the hinge (Nesterov 2005) to h_μ(t) = max_{0 ≤ u ≤ 1}(u t −
μu²/2) gives a C¹ piecewise-quadratic objective F_μ whose gradient carries a pair dual,
π_p(μ) = C w_p clip(t_p/μ, 0, 1). Any π in the box, divided by max(1, max_l (Y K Aᵀ π)_l), is
dual feasible, so every iterate has a certified lower bound LB = Σ π / max(1, max_l (YKAᵀπ)_l)
and, with the upper bound F(α) of the best iterate, a certified relative gap (F − LB)/F. At the
minimizer of F_μ the reach max_l (YKAᵀπ(μ))_l is at most 1 and the gap is that of the smoothing
alone, F(α) − Σπ = C Σ_p w_p t_p (1 − t_p/μ) over the pairs with 0 < t_p < μ: it shrinks with μ.

Each iteration costs a few passes of the sorted-pair core (O(m log m), pairs never listed) and one
kernel product; its Newton step works on a working set W of columns (the support of α and the
most negative entries of the gradient): the Hessian block Hᵂ = C Φᵀ Q Φ (Φ = K[:, W] Y_W, Q the
pair core's Hessian, formed for all columns of Φ at once), a Levenberg–Marquardt term, the
bound-constrained model minimized exactly (a primal–dual active-set method, HiGHS's QP solver
when it does not settle), and an exact line search along the step with the core's line
derivatives.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, validate_parameter_constraints

from .. import _memory
from .._validation import Count, check_time_limit
from ..base import positive
from ..exceptions import warn
from ..pairs import DEFAULT_MAX_BYTES, PairSet
from ..pairs.core import pair_line_derivatives, pair_loss, pair_loss_and_hessian, pair_slopes
from ._dual import dual_value
from ._kernel import KernelLike, KernelOperator
from ._runlog import RunLog, relative_gap

__all__ = ["SMOOTHING_CONSTRAINTS", "SmoothingResult", "smoothing"]

#: the widest smoothing the pair core's smoothed hinge takes (half-width ε ≤ 1)
MU_MAX = 2.0
#: the narrowest smoothing tried before the run reports that it stalled
MU_MIN = 1e-12
#: Newton steps at one smoothing width before it is narrowed regardless
STAGE_STEPS = 300
#: a stage (not the last) ends when five Newton steps lowered F_μ by less than this times the smoothing's
#: share of the gap, relative
STALL = 1e-4
#: how far one continuation stage narrows μ: by 0.5·tol / (the smoothing's share of the gap), kept in this range
NARROWING = (0.03, 0.3)
#: columns entering the working set per Newton step: the most negative gradients, at most
#: max(ENTER_MIN, ENTER_FRACTION · support size)
ENTER_MIN, ENTER_FRACTION = 50, 0.5


@dataclass
class SmoothingResult:
    """Record of a :func:`smoothing` run.

    Attributes
    ----------
    alpha : ndarray of shape (m,)
        The best iterate α (lowest F).
    objective : float
        F(α) over every pair: an upper bound of the LP optimum.
    lower_bound : float
        The best certified lower bound of the LP optimum (a dual-feasible Σπ).
    gap : float
        ``(objective − lower_bound) / objective`` (0 when the objective is 0): α is at most this
        fraction above the optimum.
    converged : bool
        Whether ``gap <= tol``.
    iterations : int
        Newton steps taken (an evaluation that only narrows μ is not one).
    mu : float
        The smoothing width at the end (the next run's start with ``warm_start``).
    stop : str
        ``"tol"``, ``"max_iter"``, ``"time_limit"`` or ``"stalled"`` (the gap stopped
        shrinking at the narrowest smoothing, near the floating-point limit of the certificate).
    history : list of dict
        Per evaluation of the objective and certificate: ``iteration`` (Newton steps before
        it), ``mu``, ``objective`` (F at that iterate), ``best``, ``lower_bound`` (at that
        iterate), ``best_lower_bound``, ``gap``, ``smoothed`` (F_μ),
        ``support``, ``working_set``, ``step`` (the line search's t) and ``seconds``.

    See Also
    --------
    smoothing : The function returning this record.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.lp import smoothing
    >>> run = smoothing(np.eye(4), PairSet.bipartite([1, 1, 0, 0]), 1.0)
    >>> run.converged, run.gap <= 1e-3, bool(run.lower_bound <= 2.0 <= run.objective)
    (True, True, True)
    """

    alpha: np.ndarray
    objective: float
    lower_bound: float
    gap: float
    converged: bool
    iterations: int
    mu: float
    stop: str = "tol"
    history: list = field(default_factory=list)


#: constraints of the options of :func:`smoothing`
SMOOTHING_CONSTRAINTS = {
    "C": [positive()],
    "tol": [Interval(Real, 0, 1, closed="neither")],
    "mu0": [Interval(Real, 0, MU_MAX, closed="right")],
    "max_iter": [Count(Integral, 1, None, closed="left")],
    "max_columns": [Count(Integral, 1, None, closed="left"), None],
    "verbose": ["verbose"],
    "max_bytes": [positive(), None],
    "callback": [callable, None],
    "warm_start": [SmoothingResult, None],
}


def _box_qp(H, g, lower, active=None, deadline=None):
    """argmin gᵀd + ½ dᵀ H d subject to d ≥ lower, H symmetric positive definite (dense).

    A primal–dual active-set method (Hintermüller, Ito & Kunisch 2002) with one Cholesky
    factorization per active-set change settles in a few iterations on these models; when it
    does not (it may cycle on matrices far from diagonal dominance), HiGHS's QP solver, given
    the time left before ``deadline`` (a ``time.perf_counter()`` value; None: no limit).
    ``active`` (boolean) is a guess of the variables at their bound at the solution.
    Returns the step and the variables at their bound; (None, None) when HiGHS returns no point.
    """
    n = len(g)
    d, lam = np.zeros(n), np.zeros(n)
    previous = None
    active = np.zeros(n, dtype=bool) if active is None else active
    for _ in range(30):
        if previous is not None:
            active = (lam > 0) | (~previous & (d < lower))
            if np.array_equal(active, previous):
                return np.maximum(d, lower), active
        free = ~active
        d = np.where(active, lower, 0.0)
        if free.any():
            rhs = -g[free] - H[np.ix_(free, active)] @ lower[active]
            try:
                d[free] = sla.cho_solve(sla.cho_factor(H[np.ix_(free, free)], check_finite=False), rhs,
                                        check_finite=False)
            except np.linalg.LinAlgError:
                break
        lam = np.where(active, H @ d + g, 0.0)
        previous = active
    d = _highs_box_qp(H, g, lower, deadline)
    return (None, None) if d is None else (d, d <= lower)


def _highs_box_qp(H, g, lower, deadline=None):
    """The bound-constrained QP of :func:`_box_qp` by HiGHS's active-set QP solver, stopped at ``deadline``.

    Any point HiGHS returns is feasible (it is clipped to the bounds), so a solve stopped by the
    time limit still gives a step, and the route's own time limit then ends the run at its next
    evaluation, with its best iterate and certificate. None when HiGHS returns no point (a model
    whose curvature is rounding noise, say): the caller then takes a projected gradient step.
    """
    from ..modeling.problem import Problem
    from ..solvers import solve

    n = len(g)
    problem = Problem(c=g, A=sp.csr_matrix((0, n)), row_lower=np.zeros(0), row_upper=np.zeros(0),
                      col_lower=lower, col_upper=np.full(n, np.inf), P=sp.csc_matrix(H), name="smoothing Newton step")
    left = None if deadline is None else max(deadline - time.perf_counter(), 1e-3)
    result = solve(problem, "highs", time_limit=left)
    if result.x is None:
        return None
    return np.maximum(np.asarray(result.x, dtype=float), lower)


def _line_search(pairs, C, f, u, slope_alpha, mu, t_max=1.0, expand=False):
    """The t in [0, t_max] minimizing φ(t) = t·slope_alpha + C·L_μ(f + t u) (convex, piecewise
    quadratic): a safeguarded Newton iteration on φ' with the pair core's line derivatives. With
    ``expand``, t_max doubles while φ still decreases at it (a direction without curvature)."""
    def derivatives(t):
        _, d1, d2 = pair_line_derivatives(pairs, f + t * u, u, "smoothed_hinge", eps=mu / 2)
        return slope_alpha + C * d1, C * d2

    d1, _ = derivatives(t_max)
    for _ in range(60 if expand else 0):
        if d1 > 0.0:
            break
        t_max *= 2.0
        d1, _ = derivatives(t_max)
    if d1 <= 0.0:
        return t_max
    d1, d2 = derivatives(0.0)
    if d1 >= 0.0:
        return 0.0
    lo, hi = 0.0, t_max
    t = min(t_max, -d1 / d2) if d2 > 0 else 0.5 * t_max
    for _ in range(60):
        d1, d2 = derivatives(t)
        if d1 > 0:
            hi = t
        else:
            lo = t
        if hi - lo <= 1e-10 * t_max or d1 == 0.0:
            break
        step = t - d1 / d2 if d2 > 0 else 0.5 * (lo + hi)
        t = step if lo < step < hi else 0.5 * (lo + hi)
    return lo if d1 > 0 else t


def _newton_step(HW, g, alpha, nu, active, deadline=None):
    """The step d ≥ −α of the Levenberg–Marquardt model gᵀd + ½dᵀ(H + nu·D)d, D the Hessian's diagonal
    (floored at 1e-6 of its mean, so that columns without curvature still have a bounded step), and
    the variables it puts at their bound; None when the model has no curvature at all, or none that
    gives a finite step. ``deadline``: see :func:`_box_qp`."""
    diag = np.diag(HW).copy()
    if not diag.max() > 0.0:
        return None, None
    D = np.maximum(diag, 1e-6 * float(diag[diag > 0].mean()))
    d, at_bound = _box_qp(HW + np.diag(nu * D), g, -alpha, active=active, deadline=deadline)
    return (d, at_bound) if d is not None and np.isfinite(d).all() else (None, None)


def smoothing(K: KernelLike, pairs: PairSet, C: float, *, tol: float = 1e-3, mu0: float = 1.0, max_iter: int = 1000,
              max_columns: int | None = None, time_limit: float | None = None, verbose: int = 0,
              callback: Callable[[dict], Any] | None = None, warm_start: SmoothingResult | None = None,
              max_bytes: float | None = DEFAULT_MAX_BYTES) -> SmoothingResult:
    """The LP Ranker to a certified relative optimality gap, by smoothing with continuation.

    Minimizes the smoothed objective F_μ(α) = Σ_l α_l + C Σ_p w_p h_μ(t_p) over α ≥ 0 by
    Newton steps on a working set of columns, and narrows μ as the smoothing, rather than the
    Newton iteration, limits the gap. Every iteration certifies a lower bound of the LP optimum
    from the pair duals in the smoothed gradient, and the run stops when the relative gap between
    the best objective F(α) (over every pair) and the best lower bound is at most ``tol``.

    Parameters
    ----------
    K : ndarray of shape (m, m), callable or KernelOperator
        The symmetric training kernel; a callable ``K(rows, cols)`` returning the block
        ``K[rows][:, cols]``, so that the kernel is never stored (each iteration then evaluates
        it once in row blocks); or a :class:`~aucopt.lp._kernel.KernelOperator`.
    pairs : PairSet
        The pairs (i, j, w_ij), bipartite, survival (every variant), multipartite or custom;
        ``pairs.signs`` gives Y. Sorted pair sets are never listed.
    C : float
        Weight of the pairwise hinge loss (> 0).
    tol : float, default=1e-3
        The certified relative gap ``(F(α) − LB) / F(α)`` at which the run stops, in (0, 1).
    mu0 : float, default=1.0
        The first smoothing width μ (at most 2). At α = 0 every margin t_p is 1, so μ ≥ 1 gives
        the first Newton step curvature.
    max_iter : int, default=1000
        Maximum number of Newton steps.
    max_columns : int or None, default=None
        Largest working set of columns per Newton step; None: as many as ``max_bytes`` allows.
    time_limit : float or None, default=None
        Wall-clock limit in seconds (a positive number; None: no limit), for the Newton steps'
        inner QP solves too; the run then returns its best iterate and certified gap with a
        ``ConvergenceWarning``.
    verbose : int, default=0
        0: silent; ≥ 1: a progress bar with μ, the objective and the certified gap.
    callback : callable, default=None
        Called with each iteration's history record (a dict).
    warm_start : SmoothingResult, default=None
        A run on the same pairs and kernel (e.g. at a neighbouring ``C``): its α and smoothing
        width start this one.
    max_bytes : float or None, default=2 GiB
        Memory budget of the working arrays (the kernel, when given as an array, is the
        caller's); larger problems raise :class:`~aucopt.exceptions.ProblemTooLargeError`
        before any work. None: no limit.

    Returns
    -------
    result : SmoothingResult
        α, F(α), the certified lower bound and gap, and the history.

    Raises
    ------
    ProblemTooLargeError
        When the working arrays for even a small working set exceed ``max_bytes``.

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` or ``time_limit`` ends the run before the gap reaches ``tol``, or when
        the gap stops shrinking; the returned gap is the one certified.

    See Also
    --------
    row_column_generation : The exact optimum, certified, on a growing LP.
    subgradient : The projected subgradient method of Ataman (2007), with its own bound.
    aucopt.LPRanker : The estimator; ``method="smoothing"`` calls this function.

    Notes
    -----
    The certificate is exact in the following sense: the lower bound is the dual objective of a
    point that is dual feasible by construction (a box-clipped π scaled by the largest dual row), so
    it can only be loose, never above the optimum (up to the rounding of float64 sums, about 1e-13
    relative, at any smoothing width: the pairs of the smoothed hinge's narrow quadratic band are
    summed one by one, see :func:`aucopt.pairs.core.pair_slopes`); the upper bound is the full
    objective, evaluated over every pair, at the returned α. The gap is therefore never smaller than
    the true one. Smoothing a nonsmooth objective for a first-order method is the approach of
    Nesterov (2005); the Newton steps on the piecewise-quadratic smoothed hinge use the sorted-pair
    products of the truncated-Newton rankers (Chapelle & Keerthi 2010; Tayal et al. 2015); the
    bound-constrained model is solved by the primal–dual active-set method of Hintermüller, Ito &
    Kunisch (2002).

    References
    ----------
    .. [1] Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming for
       problems with binary output*. PhD thesis, University of Iowa.
    .. [2] Nesterov, Y. (2005). Smooth minimization of non-smooth functions. *Mathematical
       Programming*, 103(1), 127–152.
    .. [3] Hintermüller, M., Ito, K., & Kunisch, K. (2002). The primal–dual active set strategy
       as a semismooth Newton method. *SIAM Journal on Optimization*, 13(3), 865–888.
    .. [4] Chapelle, O., & Keerthi, S. S. (2010). Efficient algorithms for ranking with SVMs.
       *Information Retrieval*, 13(3), 201–215.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.metrics.pairwise import rbf_kernel
    >>> from aucopt import PairSet, get_formulation, solve
    >>> X, y = make_classification(n_samples=80, random_state=0)
    >>> K, pairs = rbf_kernel(X, gamma=0.05), PairSet.bipartite(y)
    >>> run = smoothing(K, pairs, 1.0, tol=1e-4)
    >>> exact = solve(get_formulation("lp_ranker").build(pairs, K, C=1.0)).objective
    >>> run.converged, bool(run.lower_bound <= exact <= run.objective <= exact * (1 + 1e-4))
    (True, True)
    """
    validate_parameter_constraints(
        SMOOTHING_CONSTRAINTS,
        dict(C=C, tol=tol, mu0=mu0, max_iter=max_iter, max_columns=max_columns,
             verbose=verbose, max_bytes=max_bytes, callback=callback, warm_start=warm_start),
        caller_name="smoothing")
    time_limit = check_time_limit(time_limit)
    pairs.check_nonempty()
    m = pairs.n_points
    kernel = K if isinstance(K, KernelOperator) else KernelOperator(K, m)
    run = _SmoothingRun(kernel, pairs, float(C), _column_budget(m, max_columns, max_bytes, pairs), mu0, warm_start)
    log = RunLog(verbose, callback, total=max_iter, desc="smoothing")
    stop, gap = "max_iter", 1.0
    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit
    while True:
        point = run.evaluate()
        gap = relative_gap(run.best_F, run.best_LB)
        record = {"iteration": run.steps, "mu": run.mu, "objective": point.F, "best": run.best_F,
                  "lower_bound": point.lower, "best_lower_bound": run.best_LB, "gap": gap,
                  "smoothed": point.smoothed, "support": int(np.count_nonzero(run.alpha)),
                  "seconds": time.perf_counter() - start}
        log.add(record, {"mu": f"{run.mu:.1e}", "F": f"{run.best_F:.6g}", "gap": f"{gap:.2e}"}, advance=False)
        if gap <= tol:
            stop = "tol"
            break
        if time_limit is not None and record["seconds"] >= time_limit:
            stop = "time_limit"
            break
        if run.steps == max_iter:
            break
        narrowed = run.continuation(point, tol)
        if narrowed == "stalled":
            stop = "stalled"
            break
        if narrowed:
            continue
        record["working_set"], record["step"] = run.newton_step(point, deadline)
        log.advance()
    log.close()
    if verbose:
        print(f"smoothing: F = {run.best_F:.8g}, certified lower bound = {run.best_LB:.8g}, relative gap = "
              f"{gap:.2e} ({run.steps} Newton steps, final μ = {run.mu:.1e})", flush=True)
    if stop in ("max_iter", "time_limit", "stalled"):
        why, fix = {"max_iter": (f"max_iter={max_iter} Newton steps", "Raise max_iter"),
                    "time_limit": (f"time_limit={time_limit} s",
                                   "Raise time_limit (solver_options={'time_limit': ...})"),
                    "stalled": ("the narrowest smoothing", "Raise tol")}[stop]
        warn(f"The smoothing route stopped at {why} with a certified relative gap of {gap:.3g} (tol={tol:g}): its "
             f"best point has objective F = {run.best_F:.8g}, certified lower bound {run.best_LB:.8g}, so it is at "
             f"most that fraction above the LP optimum. {fix}, or use method='generation' for the exact optimum.",
             ConvergenceWarning)
    return SmoothingResult(alpha=run.best_alpha, objective=float(run.best_F), lower_bound=float(run.best_LB),
                           gap=float(gap), converged=gap <= tol, iterations=run.steps, mu=float(run.mu),
                           stop=stop, history=log.history)


@dataclass
class _Point:
    """The objective and certificate at one iterate α for the smoothing width μ."""

    F: float  # the LP objective, over every pair
    smoothed: float  # F_μ
    dual: float  # Σ π(μ), the smoothed gradient's pair duals
    lower: float  # the certified lower bound of this iterate
    grad: np.ndarray  # ∇F_μ (1 − grad_l: the dual rows (YKAᵀπ)_l, up to the prefix sums' rounding)
    hessian: Any  # the pair core's Hessian operator Q of the smoothed hinge


class _SmoothingRun:
    """The iterate α (with its scores f = K Y α), the smoothing width μ, the best point and bound.

    Each pass evaluates the objective and its certificate (:meth:`evaluate`), narrows μ when the
    smoothing, not the iteration, limits the gap (:meth:`continuation`), or takes a Newton step on
    a working set of columns (:meth:`newton_step`).
    """

    def __init__(self, kernel: KernelOperator, pairs: PairSet, C: float, w_max: int, mu0: float,
                 warm_start: SmoothingResult | None):
        m = pairs.n_points
        self.kernel, self.pairs, self.C, self.w_max = kernel, pairs, C, w_max
        self.y = pairs.signs.astype(float)
        if warm_start is not None:
            if len(warm_start.alpha) != m:
                raise ValueError(f"warm_start comes from a problem with {len(warm_start.alpha)} points; this one "
                                 f"has {m}: pass the result of a run on the same pairs.")
            self.alpha = np.maximum(np.asarray(warm_start.alpha, dtype=float), 0.0)
            self.mu = min(float(mu0), 10.0 * warm_start.mu)
        else:
            self.alpha, self.mu = np.zeros(m), float(mu0)
        support = np.flatnonzero(self.alpha)
        self.f = kernel.product(support, self.y[support] * self.alpha[support])
        self.best_F, self.best_alpha, self.best_LB = np.inf, self.alpha.copy(), 0.0
        self.nu = 1e-3  # Levenberg–Marquardt weight, relative to the Hessian's diagonal
        self.stage_smoothed: list[float] = []  # F_μ at the iterates of the current smoothing width
        self.cache: dict = {}
        self.steps = 0

    def evaluate(self) -> _Point:
        """The objective, F_μ, the certified lower bound and the gradient at α; keeps the best point and bound."""
        pairs, C, alpha, f = self.pairs, self.C, self.alpha, self.f
        eps = self.mu / 2.0
        L, c, hessian = pair_loss_and_hessian(pairs, f, "smoothed_hinge", eps=eps)
        hinge, _ = pair_loss(pairs, f, "hinge")
        F = float(alpha.sum()) + C * hinge
        grad = 1.0 + C * self.y * self.kernel.matvec(c)  # ∇F_μ
        # Σ π(μ) and the dual rows (YKAᵀπ)_l of the same pair duals, the narrow band's pairs summed one
        # by one: the prefix sums of ∇F_μ lose digits ∝ |f|/μ, and Σ π and the rows would disagree
        total, c_exact = pair_slopes(pairs, f, "smoothed_hinge", eps=eps)
        dual = C * total
        rows = -C * self.y * self.kernel.matvec(c_exact)
        lower = dual_value(dual, rows)
        if self.best_F > F:
            self.best_F, self.best_alpha = F, alpha.copy()
        self.best_LB = max(self.best_LB, lower)
        return _Point(F=F, smoothed=float(alpha.sum()) + C * L, dual=dual, lower=lower, grad=grad, hessian=hessian)

    def continuation(self, point: _Point, tol: float) -> str | None:
        """Narrow μ once the smoothing, not the iteration, limits the gap: ``"narrowed"``, ``"stalled"``
        (the narrowest width reached) or None (take a Newton step at this width)."""
        smoothing_gap = relative_gap(point.F, point.dual)
        self.stage_smoothed.append(point.smoothed)
        stage = self.stage_smoothed
        final = smoothing_gap <= 0.5 * tol
        stalled = (not final and len(stage) > 5
                   and stage[-6] - point.smoothed <= STALL * smoothing_gap * abs(point.smoothed))
        settled = relative_gap(point.F, point.lower) <= 1.5 * smoothing_gap  # this iterate's dual is nearly feasible
        if not ((not final and settled) or stalled or len(stage) > STAGE_STEPS):
            return None
        if self.mu <= MU_MIN:
            return "stalled"
        self.mu = max(MU_MIN, self.mu * min(NARROWING[1], max(NARROWING[0], 0.5 * tol / max(smoothing_gap, 1e-300))))
        self.stage_smoothed = []
        return "narrowed"

    def newton_step(self, point: _Point, deadline: float | None) -> tuple[int, float]:
        """A Newton step on the working set W (the support and the most negative gradients), exactly
        line-searched; returns |W| and the step length t."""
        alpha, grad, C = self.alpha, point.grad, self.C
        entering = np.flatnonzero((alpha == 0.0) & (grad < 0.0))
        support = np.flatnonzero(alpha)
        room = max(min(self.w_max - len(support), max(ENTER_MIN, int(ENTER_FRACTION * len(support)))), 1)
        if len(entering) > room:
            entering = entering[np.argpartition(grad[entering], room - 1)[:room]]
        W = np.union1d(support, entering)
        PhiT = _working_rows(self.kernel, self.y, W, self.cache)  # Φᵀ: row r is y_l K[l] for l = W[r]
        QPhi = point.hessian.matmat(PhiT.T)
        touched = np.flatnonzero(QPhi.any(axis=1))  # points in no quadratic-zone pair add nothing
        HW = (C * (PhiT[:, touched] @ QPhi[touched]) if 3 * len(touched) < 2 * self.pairs.n_points
              else C * (PhiT @ QPhi))
        HW = 0.5 * (HW + HW.T)
        d, at_bound = _newton_step(HW, grad[W], alpha[W], self.nu, np.isin(W, self.cache.get("at_bound", ())),
                                   deadline)
        del QPhi, HW
        if d is None:  # no pair in the quadratic zone touches W (or no finite step): a projected gradient
            # step, exactly searched
            g = grad[W]
            rising = bool((g < 0.0).any())  # up along −g, as far as φ decreases; else down towards 0
            d = np.maximum(-g, 0.0) if rising else np.where(g > 0.0, -alpha[W], 0.0)
            t = _line_search(self.pairs, C, self.f, d @ PhiT, float(d.sum()), self.mu, expand=rising)
            at_bound = np.zeros(len(W), dtype=bool)
        else:
            t = _line_search(self.pairs, C, self.f, d @ PhiT, float(d.sum()), self.mu)
        self.cache["at_bound"] = W[at_bound]
        self.nu = max(self.nu / 4.0, 1e-8) if t >= 0.999 else (min(self.nu * 4.0, 1e8) if t < 0.3 else self.nu)
        alpha[W] = np.maximum(alpha[W] + t * d, 0.0)
        self.f = alpha[W] @ PhiT  # exact: the support lies in W
        self.steps += 1
        return len(W), t


def _working_rows(kernel, y, W, cache):
    """Φᵀ for the working set W (rows y_l K[l]): gathered from a stored kernel; computed in blocks
    otherwise, reusing the rows of the previous step's working set."""
    if kernel.stored:
        rows = kernel.rows(W)
        rows *= y[W, None]
        return rows
    old_W, old = cache.get("W"), cache.get("rows")
    if old_W is None or len(old_W) == 0:
        rows = kernel.rows(W) * y[W, None]
    else:
        position = np.minimum(np.searchsorted(old_W, W), len(old_W) - 1)
        kept = old_W[position] == W
        rows = np.empty((len(W), kernel.m))
        rows[kept] = old[position[kept]]
        new = W[~kept]
        if len(new):
            rows[~kept] = kernel.rows(new) * y[new, None]
    cache["W"], cache["rows"] = W, rows
    return rows


def _column_budget(m, max_columns, max_bytes, pairs):
    """The largest working set that ``max_bytes`` allows (at least 50 columns, or refuse)."""
    cap = m if max_columns is None else min(m, int(max_columns))
    if max_bytes is not None:
        while cap > 50 and _memory.smoothing_work_bytes(m, cap) > max_bytes:
            cap = int(cap * 0.8)
        _memory.refuse(_memory.smoothing_work_bytes(m, min(cap, m)), max_bytes,
                       f"The smoothing route over {m:,} points (column blocks of the working set)",
                       lambda: _memory.lp_routes(m, pairs.n_pairs, survival=pairs.target == "survival",
                                                 max_bytes=max_bytes, exclude=("smoothing",)))
    return max(cap, 1)
