"""The LP Ranker at scale: constraint generation (chunking) and the projected subgradient.

Both work on a training kernel K (m × m, symmetric), the point signs y of a
:class:`~aucopt.pairs.PairSet` (``pairs.signs``) and any pair set (bipartite, survival,
weighted), for the LP Ranker objective of Ataman (2007), eq. 4.4 with pair weights w_ij:

    F(α) = Σ_l α_l + C Σ_(i,j) w_ij max(0, 1 − (f_i − f_j)),   f = K Y α,  α ≥ 0.

* :func:`chunking` — the "modified chunking" of Ataman (2007), Fig. 4.1, as exact constraint
  generation: solve the LP on S ∪ chunk (and the pairs active at the last LP's solution), add
  the pairs whose *margin* is violated (f_i − f_j < 1 − ``min_violation``), all of them
  (scheme 1) or the ``top_k`` most violated per chunk (scheme 2), until a restricted LP's
  solution violates no pair outside it. Each restricted LP is a relaxation, so that solution is
  the optimum of the full LP. (Reading the
  thesis's "pairwise violations" as mis-ordered pairs, f_i − f_j < 0, is available as
  ``violation="misorder"``; it is not exact.)
* :func:`subgradient` — the projected subgradient method of Ataman (2007), Fig. 4.4 and
  eq. 4.5, with the dynamic Polyak step s_k = λ_k (F(α_k) − F_target)/‖g_k‖²,
  F − F_target = ``target_frac``·F, λ_k divided by ``shrink`` after ``patience`` non-improving
  iterations and a stop when λ_k < ``step_min``; also constant and 1/√k steps. Every run
  reports a certified lower bound of the LP optimum from a dual-feasible point built from the
  violated-pair indicators, hence a relative optimality gap. The hinge value
  and subgradient come from the sorted-pair core in O(m log m) plus two kernel products per
  iteration: pairs are never listed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from numbers import Integral, Real
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions, validate_parameter_constraints

from .. import _memory
from .._validation import Count, CountOptions, check_time_limit
from ..base import as_generator, positive
from ..exceptions import warn
from ..modeling import Problem, get_formulation
from ..pairs import DEFAULT_MAX_BYTES, PairSet
from ..pairs.core import pair_loss
from ..solvers import USABLE, SolveResult, Status, solve
from ..solvers.highs import IncrementalLP
from ._dual import DualBound, pair_dual_bound
from ._kernel import KernelOperator
from ._runlog import RunLog, relative_gap
from ._steps import STEP_RULES, step_rule

__all__ = ["ChunkingResult", "SubgradientResult", "chunking", "lp_objective", "subgradient"]

#: memory per pair of the chunk partition (defined with the rest of the memory model)
CHUNKING_BYTES_PER_PAIR = _memory.CHUNKING_BYTES_PER_PAIR


#: constraints of the options of :func:`subgradient` (checked by the function and, for
#: ``method_options``, by the estimators before any work)
SUBGRADIENT_CONSTRAINTS = {
    "C": [positive()],
    "rule": [StrOptions(set(STEP_RULES))],
    "step0": [positive()],
    "step_min": [positive()],
    "patience": [Count(Integral, 0, None, closed="left")],
    "shrink": [Interval(Real, 1, None, closed="neither")],
    "target_frac": [Interval(Real, 0, 1, closed="neither")],
    "min_improvement": [Interval(Real, 0, 1, closed="left")],
    "step": [positive()],
    "max_iter": [Count(Integral, 1, None, closed="left")],
    "tol": [positive(), None],
    "alpha0": ["array-like", None],
    "callback": [callable, None],
    "verbose": ["verbose"],
}

#: constraints of the options of :func:`chunking`
CHUNKING_CONSTRAINTS = {
    "C": [positive()],
    "n_chunks": [Count(Integral, 1, None, closed="left")],
    "scheme": [CountOptions(Integral, {1, 2})],
    "top_k": [Count(Integral, 1, None, closed="left")],
    "violation": [StrOptions({"margin", "misorder"})],
    "min_violation": [Interval(Real, 0, 1, closed="left")],
    "max_iter": [Count(Integral, 1, None, closed="left")],
    "solver": [str],
    "solver_options": [dict, None],
    "tol": [positive(), None],
    "verbose": ["verbose"],
    "random_state": ["random_state", np.random.Generator],
    "max_bytes": [positive(), None],
    "callback": [callable, None],
}


def lp_objective(K: np.ndarray, pairs: PairSet, C: float, alpha: np.ndarray) -> tuple[float, np.ndarray]:
    """Value of the LP Ranker objective and the training scores at a coefficient vector α.

    F(α) = Σ_l α_l + C Σ_(i,j) w_ij max(0, 1 − (f_i − f_j)) with f = K Y α, evaluated with the
    sorted-pair core in O(m² + m log m) time (the pairs are never listed).

    Parameters
    ----------
    K : ndarray of shape (m, m)
        Training kernel matrix.
    pairs : PairSet
        The pairs (i, j, w_ij) over the m training points; ``pairs.signs`` is Y.
    C : float
        Weight of the pairwise hinge loss.
    alpha : ndarray of shape (m,)
        Non-negative expansion coefficients α.

    Returns
    -------
    objective : float
        F(α).
    scores : ndarray of shape (m,)
        f = K Y α.

    See Also
    --------
    subgradient : Minimizes this objective without listing pairs.
    chunking : Minimizes it exactly by constraint generation.

    References
    ----------
    .. [1] Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming for
       problems with binary output*. PhD thesis, University of Iowa.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.lp import lp_objective
    >>> pairs = PairSet.bipartite([1, 1, 0])
    >>> F, f = lp_objective(np.eye(3), pairs, 1.0, np.array([1.0, 0.0, 0.5]))
    >>> float(F), f.tolist()
    (2.0, [1.0, 0.0, -0.5])
    """
    f = K @ (pairs.signs * alpha)
    hinge, _ = pair_loss(pairs, f, "hinge")
    return float(np.sum(alpha)) + C * hinge, f


# ============================================================================ subgradient
@dataclass
class SubgradientResult:
    """Record of a :func:`subgradient` run.

    Attributes
    ----------
    alpha : ndarray of shape (m,)
        The best iterate α (lowest F seen).
    objective : float
        F at the best iterate.
    iterations : int
        Iterations started; with the dynamic rule the last one may stop before stepping, so
        ``iterations`` can exceed ``len(history)`` by one.
    best_iteration : int
        The (1-based) iteration of the best iterate.
    history : list of dict
        Per iteration: ``iteration``, ``objective``, ``best``, ``step`` (the multiplier s_k of
        the subgradient actually used), ``grad_norm``, ``lower_bound`` and ``gap`` (so far),
        ``seconds`` and, for the dynamic and dual-target rules, ``step_scale`` (λ_k).
    stop : str
        Why the run ended: ``"step_min"`` (λ_k fell below ``step_min``), ``"tol"`` (the iterate
        moved by less than ``tol``), ``"stationary"`` (zero subgradient), ``"time_limit"`` or
        ``"max_iter"``.
    lower_bound : float
        A certified lower bound of the LP optimum: the value Σ_p μ_p of a feasible point μ of
        the LP's dual, built from the violated-pair indicators of the iterates (see
        :func:`subgradient`, Notes). 0 when no iteration ran.
    gap : float
        Relative optimality gap (``objective`` − ``lower_bound``)/``objective`` (0 when the
        objective is 0): the best iterate is at most this fraction above the LP optimum.

    See Also
    --------
    subgradient : The function returning this record.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.lp import subgradient
    >>> run = subgradient(np.eye(4), PairSet.bipartite([1, 1, 0, 0]), 1.0, rule="constant", max_iter=5)
    >>> run.iterations, len(run.history), run.stop
    (5, 5, 'max_iter')
    """

    alpha: np.ndarray
    objective: float
    iterations: int
    best_iteration: int
    history: list = field(default_factory=list)
    stop: str = "max_iter"
    lower_bound: float = 0.0
    gap: float = 1.0


_REFRESH = 64
"""The subgradient method recomputes f = K Y α in full at least every this many iterations."""


def _scores_after_step(K, y, f, alpha, alpha_next, k):
    """f = K Y α_next from f = K Y α. The projected step changes few coefficients once most of α
    sits at the bound 0: then the update reads only those rows of K (K is symmetric), about
    m·|Δ| operations instead of m²; a full product every ``_REFRESH`` iterations (and when
    many coefficients move) keeps the rounding of the updates from accumulating."""
    changed = np.flatnonzero(alpha_next != alpha)
    if k % _REFRESH == 0 or 4 * len(changed) > len(alpha):
        return K @ (y * alpha_next)
    if len(changed) == 0:
        return f
    return f + (y[changed] * (alpha_next[changed] - alpha[changed])) @ K[changed]


def subgradient(K: np.ndarray, pairs: PairSet, C: float, *, rule: str = "dynamic", step0: float = 2.0,
                step_min: float = 0.005, patience: int = 10, shrink: float = 2.0,
                target_frac: float = 0.1, min_improvement: float = 0.0, step: float = 0.1,
                max_iter: int = 5000, tol: float | None = None,
                alpha0: ArrayLike | None = None, callback: Callable[[dict], Any] | None = None, verbose: int = 0,
                time_limit: float | None = None) -> SubgradientResult:
    """Projected subgradient method for the LP Ranker, keeping the best iterate.

    Minimizes F(α) = Σ_l α_l + C Σ_(i,j) w_ij max(0, 1 − (f_i − f_j)), f = K Y α, over α ≥ 0
    (Ataman 2007, eq. 4.4) with steps α ← max(0, α − s_k g_k) along a subgradient
    g = 1 + C·Y Kᵀ c, where c = ∂(hinge sum)/∂f comes from the sorted-pair core in
    O(m log m): c_u = −Σ_j w_uj over u's violated pairs as first element and +Σ_i w_iu as
    second; pairs with margin exactly 1 contribute 0. The pairs are never listed.

    Parameters
    ----------
    K : ndarray of shape (m, m)
        Symmetric training kernel matrix.
    pairs : PairSet
        The pairs (i, j, w_ij); ``pairs.signs`` gives Y.
    C : float
        Weight of the pairwise hinge loss (> 0).
    rule : {"dynamic", "dual_target", "constant", "sqrt"}, default="dynamic"
        Step rule. ``"dynamic"`` (Ataman 2007, Fig. 4.4): the Polyak step
        s_k = λ_k · ``target_frac`` · F(α_k)/‖g_k‖²; λ starts at ``step0`` and is divided by
        ``shrink`` on the (``patience`` + 1)-th consecutive non-improving iteration; the run
        stops when λ < ``step_min``. ``"dual_target"``: the same λ schedule with the Polyak
        step towards the certified lower bound, s_k = λ_k (F(α_k) − LB_k)/‖g_k‖² (Polyak 1969),
        LB_k the best dual bound so far (see Notes), never below 0.001·``target_frac``·F(α_k).
        ``"constant"`` and ``"sqrt"`` move α by the distance ``step`` resp. ``step``/√k along
        −g/‖g‖ (normalized: ‖g‖ grows with C and the number of pairs, so a raw step size would
        not transfer between problems) and run ``max_iter`` iterations.
    step0 : float, default=2.0
        Initial step scale λ_0 of the dynamic rule.
    step_min : float, default=0.005
        The dynamic rule stops when its step scale λ_k falls below this.
    patience : int, default=10
        Non-improving iterations tolerated before the dynamic rule shrinks λ.
    shrink : float, default=2.0
        Factor (> 1) dividing λ after ``patience`` non-improving iterations.
    target_frac : float, default=0.1
        The dynamic rule aims at F_target = (1 − ``target_frac``)·F(α_k); in (0, 1).
    min_improvement : float, default=0.0
        Relative improvement below which a new best objective counts as non-improving for the
        λ schedule of the dynamic and dual-target rules: an iteration improves only when
        F(α_k) < (1 − ``min_improvement``)·F_best (the best iterate is kept either way). 0 is
        the thesis's rule, under which a run whose objective keeps decreasing by tiny amounts
        never shrinks λ; on CoIL 2000 (1.9 M pairs) 0.01 reaches ``step_min`` after about 170
        iterations, as in Ataman (2007), where 0 still has λ ≈ 0.3 there.
    step : float, default=0.1
        Distance moved per iteration by the ``"constant"`` rule (``step``/√k for ``"sqrt"``).
    max_iter : int, default=5000
        Maximum number of iterations.
    tol : float or None, default=None
        Stopping tolerance: stop when a step moves α by at most ``tol`` · max(1, ‖α‖).
        None: no such test (the rule's own stop and ``max_iter`` apply).
    alpha0 : array-like of shape (m,), default=None
        Starting point (projected onto α ≥ 0); None starts at α = 0.
    callback : callable, default=None
        Called with each iteration's history record (a dict).
    verbose : int, default=0
        0: silent; ≥ 1: a progress bar with the current and best objective and the relative gap,
        and a closing line with the objective, the lower bound and the gap.
    time_limit : float, default=None
        Wall-clock limit in seconds for the whole run; the best iterate so far is returned
        (``stop == "time_limit"``, with a ``ConvergenceWarning``). None: no limit.

    Returns
    -------
    result : SubgradientResult
        The best iterate, its objective, the iteration counts, the history and the stop reason.

    Warns
    -----
    ConvergenceWarning
        When ``time_limit`` ends the run, or when the run reaches ``max_iter`` before its
        stopping rule holds: the dynamic rule's
        step scale is still above ``step_min``, or a ``tol`` was given and not met. The
        ``"constant"`` and ``"sqrt"`` rules without ``tol`` stop at ``max_iter`` by design.

    See Also
    --------
    chunking : Exact constraint generation for the same LP.
    lp_objective : The objective F(α) this method minimizes.
    aucopt.LPRanker : The estimator; ``method="subgradient"`` calls this function.

    Notes
    -----
    Each iteration costs one kernel product (K c), one pass of the sorted-pair core and the
    update of f = K Y α, which reads only the rows of K whose coefficient moved (a full
    product when more than a quarter move, and every 64 iterations): O(m² + m log m) time and
    O(m²) memory for K; the LP itself, with one row per pair, is never built. The method
    returns the best iterate seen, which is generally not a vertex of the LP: small
    coefficients are rarely exactly 0 (an estimator's ``support_threshold`` of about 1e-3
    gives a sparse expansion).

    The certified lower bound comes from the LP's dual, max Σ_p μ_p subject to
    0 ≤ μ_p ≤ C w_p and (Y K Dᵀ μ)_l ≤ 1 for every l (D the pair-difference operator): any μ in
    the box, divided by max(1, max_l (Y K Dᵀ μ)_l), is dual feasible and its Σ μ bounds the LP
    optimum from below. Each iteration's violated-pair indicator, μ_p = C w_p on the pairs with
    margin below 1, gives such a point at no extra cost (Σ μ = C (hinge − c·f) and
    Y K Dᵀ μ = 1 − g), and so does the running average of these points over iterations 2, …, k;
    ``lower_bound`` is the best of them. The bound is valid at any iteration but can be loose
    (tens of percent on small problems whose iterates are within a few percent of the optimum):
    ``gap`` is a certificate, not an estimate of the distance to the optimum.

    References
    ----------
    .. [1] Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming for
       problems with binary output*. PhD thesis, University of Iowa.
    .. [2] Polyak, B. T. (1969). Minimization of unsmooth functionals. *USSR Computational
       Mathematics and Mathematical Physics*, 9(3), 14–29.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.metrics.pairwise import rbf_kernel
    >>> from aucopt import PairSet
    >>> from aucopt.lp import lp_objective, subgradient
    >>> X, y = make_classification(n_samples=60, random_state=0)
    >>> K, pairs = rbf_kernel(X, gamma=0.05), PairSet.bipartite(y)
    >>> run = subgradient(K, pairs, 1.0)  # the dynamic step rule, until the step scale reaches step_min
    >>> bool(run.objective < lp_objective(K, pairs, 1.0, np.zeros(60))[0])  # below F(0) = C·n_pairs
    True
    >>> run.objective == run.history[run.best_iteration - 1]["objective"]
    True
    """
    validate_parameter_constraints(
        SUBGRADIENT_CONSTRAINTS,
        dict(C=C, rule=rule, step0=step0, step_min=step_min, patience=patience, shrink=shrink,
             target_frac=target_frac, min_improvement=min_improvement, step=step, max_iter=max_iter,
             tol=tol, alpha0=alpha0, callback=callback, verbose=verbose),
        caller_name="subgradient")
    time_limit = check_time_limit(time_limit)
    pairs.check_nonempty()
    steps = step_rule(rule, step0=step0, step_min=step_min, patience=patience, shrink=shrink,
                      target_frac=target_frac, min_improvement=min_improvement, step=step)
    y = pairs.signs
    alpha = np.zeros(pairs.n_points) if alpha0 is None else np.maximum(np.asarray(alpha0, dtype=float), 0.0)
    best, bound = _BestIterate(alpha.copy()), DualBound(pairs.n_points)
    log = RunLog(verbose, callback, total=max_iter, desc="subgradient")
    start, stop, k = time.perf_counter(), "max_iter", 0
    f = K @ (y * alpha)
    for k in range(1, max_iter + 1):
        hinge, c = pair_loss(pairs, f, "hinge")
        F = float(alpha.sum()) + C * hinge
        steps.observe(F, best.objective)
        best.offer(alpha, F, k)
        if steps.exhausted():
            stop = "step_min"
            break
        g = 1.0 + C * y * (K @ c)  # K symmetric: Kᵀc = Kc
        # Dual estimate μ_p = C w_p on the violated pairs: Σ μ = C (hinge − c·f) and the dual
        # rows (Y K Dᵀ μ)_l = −C y_l (K c)_l = 1 − g_l; μ / max(1, max_l (1 − g_l)) is feasible.
        lower = bound.add(k, C * max(hinge - float(c @ f), 0.0), 1.0 - g)
        gg = float(g @ g)
        if gg == 0.0:  # α is a stationary point of F
            stop = "stationary"
            break
        s = steps.step(F, lower, gg, k)
        alpha_next = np.maximum(alpha - s * g, 0.0)
        record = {"iteration": k, "objective": F, "best": best.objective, "step": s, "grad_norm": np.sqrt(gg),
                  "lower_bound": lower, "gap": relative_gap(best.objective, lower),
                  "seconds": time.perf_counter() - start}
        if steps.scale is not None:
            record["step_scale"] = steps.scale
        log.add(record, {"F": f"{F:.6g}", "best": f"{best.objective:.6g}", "gap": f"{record['gap']:.2%}"})
        moved = float(np.linalg.norm(alpha_next - alpha))
        small = tol is not None and moved <= tol * max(1.0, float(np.linalg.norm(alpha)))
        f = _scores_after_step(K, y, f, alpha, alpha_next, k)
        alpha = alpha_next
        if small:
            stop = "tol"
            break
        if time_limit is not None and record["seconds"] >= time_limit:
            stop = "time_limit"
            break
    log.close()
    gap = relative_gap(best.objective, bound.lower)
    if verbose:
        print(f"subgradient: F = {best.objective:.6g}, lower bound = {bound.lower:.6g}, relative gap = {gap:.3%}")
    _warn_subgradient_stop(stop, k, best.objective, bound.lower, gap, scheduled=steps.scale is not None, tol=tol,
                           max_iter=max_iter, step_min=step_min, time_limit=time_limit)
    return SubgradientResult(alpha=best.alpha, objective=best.objective, iterations=k, best_iteration=best.iteration,
                             history=log.history, stop=stop, lower_bound=bound.lower, gap=gap)


class _BestIterate:
    """The iterate of lowest F seen (the subgradient method is not a descent method)."""

    def __init__(self, alpha: np.ndarray):
        self.alpha, self.objective, self.iteration = alpha, np.inf, 0

    def offer(self, alpha: np.ndarray, F: float, k: int) -> None:
        if self.objective > F:
            self.alpha, self.objective, self.iteration = alpha.copy(), F, k


def _warn_subgradient_stop(stop, k, best_F, lower, gap, *, scheduled, tol, max_iter, step_min, time_limit):
    """The ConvergenceWarning of a run ended by the time limit, or by ``max_iter`` before its own rule held."""
    if stop == "time_limit":
        warn(f"The subgradient method stopped at time_limit={time_limit:g} s after {k} iterations, before "
             f"its stopping rule held; its best iterate has objective F = {best_F:.6g}, certified lower bound "
             f"{lower:.6g}: at most a fraction {gap:.3g} above the LP optimum (certified relative gap). "
             "Raise time_limit (solver_options={'time_limit': ...}).", ConvergenceWarning)
    if stop == "max_iter" and (scheduled or tol is not None):
        rule_text = f"step scale >= step_min={step_min}" if scheduled else f"moves > tol={tol}"
        warn(f"The subgradient method stopped at max_iter={max_iter} before its stopping rule held "
             f"({rule_text}); the best iterate (F = {best_F:.6g}) may be far from the optimum. "
             "Raise max_iter, or raise step_min / tol.", ConvergenceWarning)


# ============================================================================ chunking
@dataclass
class ChunkingResult:
    """Record of a :func:`chunking` run.

    Attributes
    ----------
    alpha : ndarray of shape (m,)
        α of the last restricted LP (optimal for the full LP when the last pass added nothing).
    objective : float
        The full LP's objective F(α), over all pairs.
    passes : int
        Passes over the chunks.
    n_constraints : int
        Pairs retained in the working set S at the end.
    n_solves : int
        Restricted LPs solved.
    history : list of dict
        Per restricted LP: ``pass``, ``chunk``, ``retained`` (``|S|``), ``added`` and
        ``restricted_objective``.
    solve_result : SolveResult or None
        The backend's result for the last restricted LP, with status
        :attr:`~aucopt.solvers.Status.ITERATION_LIMIT` when ``max_iter`` ended the run before
        the optimality rule held (α is then only the optimum of the restricted LP).
    converged : bool
        Whether the optimality rule held at the end: the last restricted LP's solution
        violates no pair outside it (the run stops at the first such LP).
    cold_restarts : int
        Restricted LPs that the backend failed to solve from the warm start and that were
        solved again from scratch.
    lower_bound : float
        The best certified lower bound of the full LP's optimum over the restricted LPs: each one's
        pair-row duals, clipped to [0, C w_p] and scaled to feasibility for the dual of the full LP,
        bound the optimum by weak duality (whatever the accuracy of the backend's duals).
    gap : float
        ``(objective − lower_bound) / objective``, certified; of the order of the backend's
        tolerances when the optimality rule held.

    See Also
    --------
    chunking : The function returning this record.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.lp import chunking
    >>> run = chunking(np.eye(4), PairSet.bipartite([1, 1, 0, 0]), 1.0, n_chunks=2, random_state=0)
    >>> run.n_solves == run.passes * 2, run.solve_result.solver
    (True, 'highs')
    """

    alpha: np.ndarray
    objective: float
    passes: int
    n_constraints: int
    n_solves: int
    history: list = field(default_factory=list)
    solve_result: object = None
    converged: bool = True
    cold_restarts: int = 0
    lower_bound: float = 0.0
    gap: float = 0.0


def chunking(K: np.ndarray, pairs: PairSet, C: float, *, n_chunks: int = 5, scheme: int = 1, top_k: int = 1000,
             violation: str = "margin", min_violation: float = 1e-7, max_iter: int = 50,
             solver: str = "highs", solver_options: dict | None = None, tol: float | None = None,
             verbose: int = 0, random_state: int | np.random.RandomState | np.random.Generator | None = None,
             max_bytes: float | None = DEFAULT_MAX_BYTES,
             callback: Callable[[dict], Any] | None = None) -> ChunkingResult:
    """Constraint generation for the LP Ranker ("modified chunking", Ataman 2007, Fig. 4.1).

    The pairs are split into ``n_chunks`` random chunks, fixed across passes (a chunk is a set
    of pair positions, listed only when its LP is built). For each chunk the LP (Ataman 2007,
    eq. 3.3) is solved on S ∪ chunk ∪ A, where A are the pairs active at the previous restricted
    LP's solution (margin f_i − f_j ≤ 1 + ``min_violation``): the thesis solves it on S ∪ chunk,
    and dropping the constraints that held the last solution in place costs passes and, with
    HiGHS, the warm start. The pairs outside are then scanned chunk by chunk for
    violations, and scheme 1 adds all of them to the working set S, scheme 2 the ``top_k`` with
    the smallest margins. The run stops at the first restricted LP whose solution violates no
    pair outside it, or after ``max_iter`` passes. (The thesis stops after a whole pass that
    adds nothing; the rest of that pass would only confirm what the first such LP certifies.)
    With HiGHS the restricted LPs are one live model: between two LPs the pair rows (with their
    slacks) that leave are deleted and those that enter are added, and HiGHS solves the changed
    model from the last basis (a row nonbasic in it is never deleted, so the basis stays valid).
    When that solve fails (a kernel with many tiny entries, about 1e-9 to 1e-6, as an RBF kernel
    with a large ``gamma``, can make the basis near-singular), the LP is solved again from
    scratch (counted in ``cold_restarts``). Other backends solve each restricted LP from scratch.

    Parameters
    ----------
    K : ndarray of shape (m, m)
        Symmetric training kernel matrix.
    pairs : PairSet
        The pairs (i, j, w_ij); ``pairs.signs`` gives Y.
    C : float
        Weight of the pairwise hinge loss (> 0).
    n_chunks : int, default=5
        Number of chunks, in [1, n_pairs].
    scheme : {1, 2}, default=1
        1: add every violated pair; 2: add the ``top_k`` most violated pairs per chunk solve.
    top_k : int, default=1000
        Pairs added per chunk solve by scheme 2.
    violation : {"margin", "misorder"}, default="margin"
        ``"margin"``: a pair is violated when f_i − f_j < 1 − ``min_violation`` (exact: the
        result is the full LP's optimum); ``"misorder"``: when f_i − f_j < 0 (not exact).
    min_violation : float, default=1e-7
        Margin shortfall 1 − (f_i − f_j) above which a pair counts as violated (rule
        ``"margin"``); absorbs the backend's rounding at pairs held exactly at margin 1.
    max_iter : int, default=50
        Maximum number of passes over the chunks.
    solver : str, default="highs"
        LP backend (see :func:`aucopt.available_solvers`).
    solver_options : dict, default=None
        Raw options passed unchanged to the backend, except ``"time_limit"`` (seconds, a
        positive number), which caps the whole run: each restricted LP gets the time left, and
        a run stopped by it, even inside a restricted LP, keeps its best point and reports
        ``solve_result.status == "time_limit"`` with a ``ConvergenceWarning`` (the point's
        objective and certified lower bound).
    tol : float or None, default=None
        The backend's stopping (feasibility / optimality) tolerance; None: its default.
    verbose : int, default=0
        0: silent; 1: a progress bar over the restricted LPs; ≥ 2: also the backend's log.
    random_state : int, RandomState instance, numpy.random.Generator or None, default=None
        Seed of the random partition of the pairs into chunks.
    max_bytes : float or None, default=2 GiB
        Memory budget of the partition (about 18 bytes per pair); larger problems raise
        :class:`~aucopt.exceptions.ProblemTooLargeError` before any work. None: no limit.
    callback : callable, default=None
        Called with each restricted LP's history record (a dict).

    Returns
    -------
    result : ChunkingResult
        α, the full LP's objective, the counts of passes / retained pairs / solves, the history
        and the last backend result.

    Raises
    ------
    ProblemTooLargeError
        When the partition of the pairs would exceed ``max_bytes``.

    Warns
    -----
    ConvergenceWarning
        When ``max_iter`` passes end the run while the last restricted LP's solution still
        violates some pair: the result is then not the full LP's optimum, and
        ``solve_result.status`` is :attr:`~aucopt.solvers.Status.ITERATION_LIMIT`; or when the
        time limit ends it before its optimality rule held (status
        :attr:`~aucopt.solvers.Status.TIME_LIMIT`).

    See Also
    --------
    subgradient : The projected subgradient method for the same LP (no LP solver, no pair list).
    aucopt.LPRanker : The estimator; ``method="chunking"`` calls this function.

    Notes
    -----
    Each restricted LP keeps a subset of the pair rows of the full LP, so its optimum is a lower
    bound of the full optimum; when its solution violates no pair outside it, every pair
    satisfies its margin constraint there, so that solution is feasible, hence optimal, for the
    full LP. The reported ``lower_bound`` is not the restricted LP's objective, which the backend
    computes only to its tolerances, but the value of a point feasible for the full LP's dual,
    built from the restricted LP's pair-row duals, so ``gap`` is certified at any ``tol``.
    The same certificate is checked when ``max_iter`` ends the run: the result is reported
    optimal only if the last restricted LP's solution violates no pair.

    References
    ----------
    .. [1] Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming for
       problems with binary output*. PhD thesis, University of Iowa.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.metrics.pairwise import rbf_kernel
    >>> from aucopt import PairSet, get_formulation, solve
    >>> X, y = make_classification(n_samples=60, random_state=0)
    >>> K, pairs = rbf_kernel(X, gamma=0.05), PairSet.bipartite(y)
    >>> run = chunking(K, pairs, 1.0, n_chunks=3, random_state=0)
    >>> full = solve(get_formulation("lp_ranker").build(pairs, K, C=1.0))
    >>> bool(abs(run.objective - full.objective) <= 1e-7 * full.objective)
    True
    >>> run.n_constraints < pairs.n_pairs  # only part of the pairs was ever in an LP
    True
    """
    validate_parameter_constraints(
        CHUNKING_CONSTRAINTS,
        dict(C=C, n_chunks=n_chunks, scheme=scheme, top_k=top_k, violation=violation,
             min_violation=min_violation, max_iter=max_iter, solver=solver, solver_options=solver_options,
             tol=tol, verbose=verbose, random_state=random_state, max_bytes=max_bytes, callback=callback),
        caller_name="chunking")
    time_limit = check_time_limit((solver_options or {}).get("time_limit"), "solver_options['time_limit']")
    P = pairs.check_nonempty().n_pairs
    if n_chunks > P:
        raise ValueError(f"n_chunks={n_chunks} exceeds the number of pairs; use an integer in [1, {P}].")
    _memory.refuse(_memory.chunking_work_bytes(pairs.n_points, P, n_chunks=n_chunks, solver=solver), max_bytes,
                   f"Chunking over {P:,} pairs (pair partition and restricted LPs)",
                   lambda: _memory.lp_routes(pairs.n_points, P, survival=pairs.target == "survival", solver=solver,
                                             max_bytes=max_bytes, exclude=("chunking",)))
    chunk_of = as_generator(random_state).integers(0, n_chunks, size=P)
    chunks = [np.flatnonzero(chunk_of == b) for b in range(n_chunks)]
    del chunk_of
    run = _ChunkingRun(K, pairs, C, chunks, solver=solver, solver_options=solver_options, tol=tol, verbose=verbose,
                       threshold=1.0 - min_violation if violation == "margin" else 0.0,
                       active_margin=1.0 + min_violation, top_k=top_k if scheme == 2 else None, time_limit=time_limit)
    log = RunLog(verbose, callback, desc="chunking", unit="LP")
    passes = 0
    for passes in range(1, max_iter + 1):
        run.one_pass(passes, log)
        if not run.violated or run.timed_out:
            break
    log.close()
    return run.finish(passes, max_iter, time_limit, log.history)


class _ChunkingRun:
    """One chunking run: the working set S, the last α and its restricted LP, the certified bound.

    A pass solves the LP on S ∪ chunk ∪ A for each chunk in turn (:meth:`one_pass`), A the pairs
    active at the last restricted LP's solution, and adds to S the pairs outside that the
    solution violates (:meth:`_violated_outside`); :meth:`finish` certifies the last α or says
    why the run stopped before its optimality rule held.
    """

    def __init__(self, K, pairs: PairSet, C: float, chunks: list, *, solver: str, solver_options: dict | None,
                 tol: float | None, verbose: int, threshold: float, active_margin: float, top_k: int | None,
                 time_limit: float | None):
        self.K, self.pairs, self.C, self.chunks = K, pairs, C, chunks
        self.kernel = KernelOperator(K, pairs.n_points)  # the products of the certified bound
        self.solver, self.solver_options, self.tol, self.verbose = solver, solver_options, tol, verbose
        self.threshold, self.active_margin, self.top_k = threshold, active_margin, top_k
        self.active = np.zeros(0, dtype=np.int64)  # the pairs active at the last restricted LP's solution
        self.form = get_formulation("lp_ranker")
        self.live = (_LiveRestrictedLP(self.form, K, pairs, C, tol=tol, verbose=verbose, solver_options=solver_options)
                     if solver.strip().lower() == "highs" else None)
        self.in_S = np.zeros(pairs.n_pairs, dtype=bool)
        self.alpha = np.zeros(pairs.n_points)
        self.result: SolveResult | None = None
        self.n_solves = self.cold_restarts = 0
        self.violated, self.timed_out, self.lower = True, False, 0.0
        self.deadline = None if time_limit is None else time.perf_counter() + time_limit  # each LP gets what is left

    def one_pass(self, passes: int, log: RunLog) -> None:
        """Solve the LP on S ∪ chunk ∪ A for each chunk in turn, growing S, until one certifies the optimum."""
        for b, chunk in enumerate(self.chunks):
            options = self.solver_options
            if self.deadline is not None:
                left = self.deadline - time.perf_counter()
                if left <= 0 and self.result is not None:
                    self.timed_out = True
                    break
                options = {**(options or {}), "time_limit": max(left, 1e-3)}
            R = np.union1d(np.union1d(np.flatnonzero(self.in_S), chunk), self.active)
            R, alpha, result = self._solve_restricted(R, f"chunking pass {passes}, chunk {b + 1}", options)
            if result.status == Status.TIME_LIMIT:  # the run's time is up inside this LP: keep the better point
                self._keep_better(alpha)
                break
            result.raise_for_status()
            assert alpha is not None  # a usable status has a point
            self.alpha = alpha
            f = self.K @ (self.pairs.signs * self.alpha)
            ri, rj, _ = self.pairs.pairs_at(R)
            self.active = R[f[ri] - f[rj] <= self.active_margin]
            cand = self._violated_outside(R, f)
            self.violated = len(cand) > 0  # no violated pair outside R: this α is optimal for all pairs
            fresh = cand[~self.in_S[cand]]
            self.in_S[fresh] = True
            record = {"pass": passes, "chunk": b, "retained": int(self.in_S.sum()), "added": len(fresh),
                      "restricted_objective": result.objective}
            log.add(record, {"pass": passes, "retained": record["retained"], "added": record["added"]})
            if not self.violated:  # the certificate holds now: the rest of the pass would only confirm it
                break

    def _solve_restricted(self, R: np.ndarray, where: str,
                          options: dict | None) -> tuple[np.ndarray, np.ndarray | None, SolveResult]:
        """The LP on the pair positions R (and, on HiGHS's live model, the active pairs it kept):
        the pair positions it holds, its α (clipped at 0; None without a point) and the result.

        HiGHS: the live model, changed to R and solved again; solved from scratch when that fails.
        Other backends: the restricted problem built and solved afresh."""
        pairs = self.pairs

        def name(n_pairs: int) -> str:
            return f"{self.form.name} restricted to {n_pairs:,} of {pairs.n_pairs:,} pairs ({where})"

        time_limit = (options or {}).get("time_limit")
        if self.live is not None:
            live, alpha, result = self.live.solve(R, name, time_limit)
            if result.status not in USABLE and self.n_solves:
                # the basis carried over can be singular on badly scaled kernels
                live, alpha, result = self.live.solve(R, name, time_limit, cold=True)
                self.cold_restarts += 1
            R = live
            pair_rows = np.flatnonzero(self.live.row_key >= 0)
            positions = self.live.row_key[pair_rows]
        else:
            problem = _restricted_problem(self.form, self.K, pairs, self.C, R)
            problem.name = name(len(R))
            result = solve(problem, self.solver, tol=self.tol, verbose=self.verbose >= 2, solver_options=options)
            alpha = None if result.x is None else np.maximum(problem.block(result.x, "alpha"), 0.0)
            pair_rows, positions = problem.metadata["pair_rows"], R
        if result.dual is not None and result.status in USABLE:  # a bound from any duals (see pair_dual_bound)
            bound, _ = pair_dual_bound(pairs, self.C, positions, result.dual[pair_rows], self.kernel.product)
            self.lower = max(self.lower, bound)
        self.n_solves += 1
        self.result = result
        return R, alpha, result

    def _keep_better(self, candidate: np.ndarray | None) -> None:
        """A restricted LP stopped by the time limit: its point, when better than the last α (any α ≥ 0 is feasible)."""
        self.timed_out, self.violated = True, True
        if candidate is None:
            return
        if lp_objective(self.K, self.pairs, self.C, candidate)[0] < lp_objective(self.K, self.pairs, self.C,
                                                                                 self.alpha)[0]:
            self.alpha = candidate

    def _violated_outside(self, R: np.ndarray, f: np.ndarray) -> np.ndarray:
        """The pairs outside R with margin f_i − f_j below the threshold, scanned one chunk at a time
        (the ``top_k`` of smallest margin for scheme 2)."""
        in_R = np.zeros(self.pairs.n_pairs, dtype=bool)
        in_R[R] = True
        found, margins = [np.zeros(0, dtype=np.int64)], [np.zeros(0)]
        for other in self.chunks:
            cand = other[~in_R[other]]
            if len(cand) == 0:
                continue
            ci, cj, _ = self.pairs.pairs_at(cand)
            lhs = f[ci] - f[cj]
            hit = lhs < self.threshold
            found.append(cand[hit])
            margins.append(lhs[hit])
        cand, lhs = np.concatenate(found), np.concatenate(margins)
        if self.top_k is not None and len(cand) > self.top_k:
            cand = cand[np.argpartition(lhs, self.top_k - 1)[:self.top_k]]
        return cand

    def finish(self, passes: int, max_iter: int, time_limit: float | None, history: list) -> ChunkingResult:
        """The record of the run; a ConvergenceWarning when it stopped with violated pairs left."""
        objective, _ = lp_objective(self.K, self.pairs, self.C, self.alpha)
        gap = relative_gap(objective, self.lower)
        result = self.result
        if self.violated:
            assert result is not None  # a pass solves at least one LP before the run can stop
            if self.timed_out:
                result = replace(result, status=Status.TIME_LIMIT,
                                 message=f"chunking stopped at time_limit={time_limit:g} s with violated pairs left")
                warn(f"Chunking stopped at time_limit={time_limit:g} s (solver_options) before its optimality rule "
                     f"held; its best point has objective F = {objective:.6g}, certified lower bound "
                     f"{self.lower:.6g}: at most a fraction {gap:.3g} above the full LP's optimum (certified relative "
                     "gap). Raise time_limit.", ConvergenceWarning)
            else:
                result = replace(result, status=Status.ITERATION_LIMIT,
                                 message=f"chunking stopped at max_iter={max_iter} passes with violated pairs left")
                warn(f"Chunking stopped at max_iter={max_iter} passes before its optimality rule held (the last "
                     f"restricted LP's solution still violates pairs); its objective F = {objective:.6g} is at most "
                     f"a fraction {gap:.3g} above the full LP's optimum (certified relative gap). Raise max_iter.",
                     ConvergenceWarning)
        return ChunkingResult(alpha=self.alpha, objective=objective, passes=passes, n_constraints=int(self.in_S.sum()),
                              n_solves=self.n_solves, history=history, solve_result=result,
                              converged=not self.violated, cold_restarts=self.cold_restarts,
                              lower_bound=self.lower, gap=gap)


def _restricted_problem(form, K, pairs: PairSet, C: float, R: np.ndarray) -> Problem:
    """The formulation's LP on the pair positions R (pair rows and slacks in the order of R)."""
    restricted = PairSet.from_arrays(*pairs.pairs_at(R), n_points=pairs.n_points, signs=pairs.signs)
    return form.build(restricted, K, C=C, max_bytes=None)


class _LiveRestrictedLP:
    """Chunking's restricted LPs as one live HiGHS model (:class:`~aucopt.solvers.highs.IncrementalLP`).

    The first LP is the formulation's restricted problem, loaded whole. For each later LP on
    the pair positions R, the pair rows and slack columns of the pairs that left are deleted, and
    those of the pairs that entered are built by the formulation (on those pairs alone) and
    appended, their columns mapped onto the live α and score columns. A pair row nonbasic at the
    last solution stays even when its pair is not in R (the caller's R holds the active pairs;
    a degenerate one can be nonbasic at a margin just above): deleting it would drop HiGHS's
    basis, and the next solve would start from a dual infeasible crash basis. The LP on R plus
    those pairs is still a restriction of the whole LP. ``col_key`` / ``row_key`` say what
    each live column / row is: the pair position p ≥ 0 of a slack or pair row, −1 for a score
    column or score row, −2 − l for the α of point l.
    """

    def __init__(self, form, K, pairs: PairSet, C: float, *, tol: float | None, verbose: int,
                 solver_options: dict | None):
        self.form, self.K, self.pairs, self.C = form, K, pairs, C
        self.tol, self.verbose, self.solver_options = tol, verbose, solver_options
        self.lp: Any = None
        self.col_key = self.row_key = np.zeros(0, dtype=np.int64)

    def _load(self, R: np.ndarray) -> None:
        """A new live model holding the whole restricted LP on R."""
        problem = _restricted_problem(self.form, self.K, self.pairs, self.C, R)
        self.lp = IncrementalLP(tol=self.tol, verbose=self.verbose >= 2, solver_options=self.solver_options)
        self.lp.add_columns(problem.c, problem.col_lower, problem.col_upper)
        self.lp.add_rows(problem.row_lower, problem.row_upper, problem.A)
        col_key = np.full(problem.n_vars, -1, dtype=np.int64)
        col_key[problem.blocks["alpha"]] = -2 - np.arange(self.pairs.n_points)
        col_key[problem.blocks["z"]] = R
        row_key = np.full(problem.n_rows, -1, dtype=np.int64)
        row_key[problem.metadata["pair_rows"]] = R
        self.col_key, self.row_key = col_key, row_key

    def _change_to(self, R: np.ndarray) -> None:
        """Delete the pairs that are neither in R nor active, append those of R that are not live."""
        lp = self.lp
        R = np.union1d(R, self.row_key[lp.nonbasic_rows()])
        R = R[R >= 0]  # the score rows (key −1) are never deleted
        gone_cols = np.flatnonzero((self.col_key >= 0) & ~np.isin(self.col_key, R))
        gone_rows = np.flatnonzero((self.row_key >= 0) & ~np.isin(self.row_key, R))
        lp.delete_rows(gone_rows)
        lp.delete_columns(gone_cols)
        self.col_key, self.row_key = np.delete(self.col_key, gone_cols), np.delete(self.row_key, gone_rows)
        new = np.setdiff1d(R, self.row_key[self.row_key >= 0])
        if len(new) == 0:
            return
        part = _restricted_problem(self.form, self.K, self.pairs, self.C, new)
        z = part.blocks["z"]
        live_col = np.empty(part.n_vars, dtype=np.int64)  # the live column of each column of ``part``
        live_col[part.blocks["alpha"]] = np.flatnonzero(self.col_key <= -2)
        live_col[part.blocks["scores"]] = np.flatnonzero(self.col_key == -1)
        live_col[z] = lp.n_cols + np.arange(len(new))
        lp.add_columns(part.c[z], part.col_lower[z], part.col_upper[z])
        rows = part.A.tocsr()[part.metadata["pair_rows"]]
        rows = sp.csr_matrix((rows.data, live_col[rows.indices], rows.indptr), shape=(len(new), lp.n_cols))
        lp.add_rows(part.row_lower[part.metadata["pair_rows"]], part.row_upper[part.metadata["pair_rows"]], rows)
        self.col_key, self.row_key = np.r_[self.col_key, new], np.r_[self.row_key, new]

    def solve(self, R: np.ndarray, name: Callable[[int], str], time_limit: float | None,
              cold: bool = False) -> tuple[np.ndarray, np.ndarray | None, SolveResult]:
        """Solve the LP on R (the live model changed, or a new one when ``cold``): the pair positions
        of the live LP (R and the active pairs kept), α ≥ 0 or None, and the result. ``name`` gives
        the LP's name from its number of pairs."""
        if cold or self.lp is None:
            self._load(R)
        else:
            self._change_to(R)
        live = np.sort(self.row_key[self.row_key >= 0])
        self.lp.name = name(len(live))
        result = self.lp.solve(time_limit=time_limit)
        alpha = None if result.x is None else np.maximum(result.x[self.col_key <= -2], 0.0)
        return live, alpha, result
