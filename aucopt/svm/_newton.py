"""Truncated Newton for pairwise ranking losses in score space (Chapelle & Keerthi 2010).

Solves, for a linear map f = M θ (M = X for a linear RankSVM; M = K_{·R} T for a kernel ranker
in the whitened variable θ with β = T θ, K_RR = T⁻ᵀT⁻¹, Tayal et al. 2015),

    F(θ) = (1/N) Σ_(i,j) w_ij ℓ(f_i − f_j) + (α/2) ‖θ‖²,      N = Σ w_ij  (n₊n₋ for AUC)

with ℓ the squared hinge or the ε-smoothed hinge. Every pairwise sum goes through the sorted-pair
core (:mod:`aucopt.pairs.core`): the loss and c = ∂L/∂f in O(m log m), generalized-Hessian
products Q(v) reusing one sort. One outer iteration:

1. g = Mᵀc/N + αθ;  stop when ‖g‖_∞ ≤ tol.
2. s ≈ −H⁻¹g by conjugate gradients on Hv = MᵀQ(Mv)/N + αv (≤ ``max_cg_iter`` steps, relative
   residual ``cg_rtol``), every product on one pair-core state (one sort of f); M s is
   accumulated from the products M d of the steps, so the step costs no extra pass over M;
   stop when the Newton decrement −gᵀs ≤ tol · F.
3. line search on φ(t) = F(θ + t s), solved to |φ'(t)| ≤ 10⁻¹|φ'(0)| (the outer decrement
   test decides the final accuracy): along the ray the scores are f + t·Ms, so each 1-D Newton
   step t ← t − φ'(t)/φ''(t) costs one forward sweep of the pair core (φ' and φ'' directly,
   :meth:`~aucopt.pairs.core.PairEvaluator.line_derivatives`) and no product with M; safeguarded
   by bisection on the bracket where φ' changes sign. The first trial, t = 1, is a full
   evaluation (loss, c and Hessian state from one set-up); when it is accepted it serves the
   next outer iteration as is, otherwise the accepted t gets one full evaluation.

What does not depend on f (the pairs' time order, anchors, weights) is built once per solve
(:class:`~aucopt.pairs.core.PairEvaluator`). A float32 M is kept as it is and multiplied block by
block in float64 (scores, gradients and the objective are float64 throughout).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils._param_validation import Interval, StrOptions, validate_params

from .. import _threads
from .._lazy import lazy_module
from .._progress import progress_bar
from .._validation import Count, check_time_limit
from ..base import positive
from ..pairs import PairSet
from ..pairs.core import PairEvaluator, PairLoss

_dense_kernels = lazy_module("aucopt._dense_kernels")  # numba: products with 65,536 rows or more

__all__ = ["NEWTON_LOSSES", "NewtonResult", "newton_solve"]

#: the losses with twice differentiable pieces, as truncated Newton needs
NEWTON_LOSSES = ("squared_hinge", "smoothed_hinge")


@dataclass
class NewtonResult:
    """Solution and iteration record of :func:`newton_solve`.

    Attributes
    ----------
    theta : ndarray of shape (n_columns,)
        The minimizer θ.
    objective : float
        F(θ) at the returned θ.
    converged : bool
        Whether a stopping test (gradient or Newton decrement below ``tol``) was met.
    iterations : int
        Outer Newton iterations taken.
    cg_iterations : int
        Conjugate-gradient steps over all outer iterations.
    message : str
        Why the iteration stopped.
    history : list of dict
        One record per outer iteration: ``iteration``, ``objective``, ``grad_inf``,
        ``decrement``, ``step``, ``cg_iterations``, ``seconds``.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.svm import newton_solve
    >>> result = newton_solve(np.array([[1.0], [0.0]]), PairSet.bipartite([1, 0]), alpha=1.0)
    >>> result.converged, round(result.objective, 4)
    (True, 0.3333)
    """

    theta: np.ndarray
    objective: float
    converged: bool
    iterations: int
    cg_iterations: int
    message: str
    history: list = field(default_factory=list)  # one dict per outer iteration


@validate_params(
    {
        "M": ["array-like", "sparse matrix"],
        "pairs": [PairSet],
        "alpha": [positive()],
        "loss": [StrOptions(set(NEWTON_LOSSES))],
        "epsilon": [Interval(Real, 0, 1, closed="right")],
        "theta0": ["array-like", None],
        "tol": [positive()],
        "max_iter": [Count(Integral, 1, None, closed="left")],
        "max_cg_iter": [Count(Integral, 1, None, closed="left")],
        "cg_rtol": [Interval(Real, 0, 1, closed="neither")],
        "verbose": ["verbose"],
        "callback": [callable, None],
        "time_limit": [Real, None],
        "gap_tol": [Interval(Real, 0, None, closed="neither"), None],
    },
    prefer_skip_nested_validation=True,
)
def newton_solve(M: Any, pairs: PairSet, alpha: float, *, loss: str = "squared_hinge", epsilon: float = 0.5,
                 theta0: ArrayLike | None = None, tol: float = 1e-8, max_iter: int = 100, max_cg_iter: int = 25,
                 cg_rtol: float = 0.1, verbose: int = 0,
                 callback: Callable[[dict[str, Any]], Any] | None = None,
                 time_limit: float | None = None, gap_tol: float | None = None) -> NewtonResult:
    """Minimize a pairwise ranking loss plus a ridge penalty by truncated Newton.

    Minimizes F(θ) = (1/N) Σ w_ij ℓ((Mθ)_i − (Mθ)_j) + (α/2)‖θ‖² over the pairs (i, j) of
    ``pairs`` with weights w_ij, N = Σ w_ij, without listing the pairs.

    Parameters
    ----------
    M : {array-like, sparse matrix} of shape (n_points, n_columns)
        The linear map from θ to the scores f = Mθ (X for a linear ranker).
    pairs : PairSet
        The pairs (i, j) to rank f_i > f_j and their weights.
    alpha : float
        Penalty multiplier α > 0.
    loss : {"squared_hinge", "smoothed_hinge"}, default="squared_hinge"
        ℓ(z) = max(0, 1 − z)², or the ε-smoothed hinge: 1 − ε − z for z < 1 − 2ε,
        (1 − z)²/(4ε) on [1 − 2ε, 1), 0 above.
    epsilon : float, default=0.5
        ε in (0, 1] of the smoothed hinge (not used by the squared hinge).
    theta0 : array-like of shape (n_columns,), default=None
        Starting point (e.g. the solution at a neighbouring ``alpha``); zeros by default. It is
        not modified.
    tol : float, default=1e-8
        Stop when ‖∇F‖_∞ ≤ tol or the Newton decrement −gᵀs ≤ tol · F (not used with
        ``gap_tol``).
    max_iter : int, default=100
        Maximum number of outer Newton iterations.
    max_cg_iter : int, default=25
        Maximum number of conjugate-gradient steps per Newton iteration.
    cg_rtol : float, default=0.1
        Relative residual at which conjugate gradients stop.
    verbose : int, default=0
        0 silent; ≥ 1 shows a progress bar.
    callback : callable, default=None
        Called after every outer iteration with that iteration's history record.
    time_limit : float, default=None
        Seconds after which no new outer iteration starts (the last iterate is returned, not
        converged); None: no limit.
    gap_tol : float, default=None
        ``loss="squared_hinge"`` only: stop when the relative duality gap ‖∇F‖₂² / (2αF) is at
        most ``gap_tol`` (in place of the tests of ``tol``), or, not converged, when ‖∇F‖² has
        not halved in 3 iterations (rounding level). For this loss the dual point
        α_ij = (2/N) w_ij max(0, 1 − z_ij) read off the scores has the dual objective D with
        F − D = ‖∇F‖₂² / (2α), so the test certifies (F − F*) / F ≤ ``gap_tol``.

    Returns
    -------
    result : NewtonResult
        θ, F(θ), convergence flag and the iteration history.

    Raises
    ------
    NoComparablePairsError
        When ``pairs`` is empty.
    ValueError
        When all pair weights are zero or ``theta0`` has the wrong shape.

    See Also
    --------
    RankSVM, RankRC : Estimators built on this solver.

    Notes
    -----
    Each iteration computes the gradient g = Mᵀc/N + αθ from the sorted-pair core
    (O(m log m) for the m scores), an inexact Newton step by conjugate gradients on the
    generalized Hessian MᵀQM/N + αI (Chapelle & Keerthi 2010, Sec. 3), and an exact line
    search along the step in score space, where each trial step costs one sorted-pair
    evaluation and no product with M.

    References
    ----------
    .. [1] Chapelle, O., & Keerthi, S. S. (2010). Efficient algorithms for ranking with SVMs.
       *Information Retrieval*, 13(3), 201–215.
    .. [2] Tayal, A., Coleman, T. F., & Li, Y. (2015). RankRC: Large-scale nonlinear rare class
       ranking. *IEEE Transactions on Knowledge and Data Engineering*, 27(12), 3347–3359.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from aucopt import PairSet
    >>> from aucopt.svm import newton_solve
    >>> X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    >>> result = newton_solve(X, PairSet.bipartite(y), alpha=0.01)
    >>> result.converged, result.theta.shape
    (True, (4,))
    """
    if gap_tol is not None and loss != "squared_hinge":
        raise ValueError(f"gap_tol is the duality gap of loss='squared_hinge'; got loss={loss!r} (use tol).")
    alpha = float(alpha)
    rule = _StoppingRule(float(tol), gap_tol, alpha, check_time_limit(time_limit))
    loss_obj = PairLoss.make(loss) if loss == "squared_hinge" else PairLoss.make(loss, float(epsilon))
    N = pairs.check_nonempty().total_weight()
    if N <= 0:
        raise ValueError("All pair weights are zero; there is nothing to rank.")
    theta = _starting_point(M.shape[1], theta0)
    f = _matvec(M, theta)
    history, total_cg = [], 0
    bar = progress_bar(bool(verbose), total=max_iter, desc="Newton")
    start = time.perf_counter()
    evaluator = PairEvaluator(pairs, loss_obj)  # the pairs' time order and anchors, built once
    state = _Evaluation(evaluator, N, alpha, f, theta)
    converged, message = False, f"reached max_iter={max_iter}"
    it = 0
    for it in range(1, max_iter + 1):
        F = state.objective
        assert state.c is not None
        g = _rmatvec(M, state.c) / N + alpha * theta
        state.c = None  # not needed again: free it before the conjugate gradients
        g_inf = float(np.max(np.abs(g), initial=0.0))
        stop = rule.at_gradient(g, g_inf, F)
        if stop is not None:
            (converged, message), it = stop, it - 1
            break
        s, v, n_cg = _conjugate_gradient(_HessianProduct(M, state.hessian, N, alpha), -g, max_cg_iter, cg_rtol)
        total_cg += n_cg
        decrement = -float(g @ s)
        stop = rule.at_decrement(decrement, F)
        if stop is not None:
            (converged, message), it = stop, it - 1
            break
        del state  # free the Hessian state before the line search builds the next one
        t, state, f = _line_search(evaluator, N, alpha, f, v, theta, s, float(g @ s))
        del v
        theta = theta + t * s
        record = {"iteration": it, "objective": state.objective, "grad_inf": g_inf,
                  "decrement": decrement, "step": t, "cg_iterations": n_cg,
                  "seconds": time.perf_counter() - start}
        history.append(record)
        if callback is not None:
            callback(record)
        if bar is not None:
            bar.update(1)
            bar.set_postfix(F=f"{state.objective:.6g}", grad=f"{g_inf:.1e}")
        if rule.time_limit is not None and record["seconds"] >= rule.time_limit and it < max_iter:
            message = f"reached time_limit={rule.time_limit:g} s"
            break
    if bar is not None:
        bar.close()
    return NewtonResult(theta=theta, objective=state.objective, converged=converged, iterations=it,
                        cg_iterations=total_cg, message=message, history=history)


def _starting_point(p: int, theta0: ArrayLike | None) -> np.ndarray:
    """θ₀: zeros, or a float copy of ``theta0`` (never modified) of shape (p,)."""
    theta = np.zeros(p) if theta0 is None else np.array(theta0, dtype=float)
    if theta.shape != (p,):
        raise ValueError(f"theta0 must have shape ({p},), got {theta.shape}.")
    return theta


@dataclass
class _StoppingRule:
    """The tests of ``tol`` (gradient, Newton decrement) or, with ``gap_tol``, of the squared
    hinge's relative duality gap ‖g‖² / (2αF), each returning (converged, why) to stop, else
    None; and the time limit (seconds, or None), checked after each iteration.

    With ``gap_tol`` the objective's decrease is not a test: near the optimum it falls below F's
    rounding while Newton still divides ‖g‖ by about 10 an iteration (GBSG2 at C = 100: two more
    iterations took the gap from 1.5e-9 to below 1e-13). The iteration stops unconverged once ‖g‖²
    has not halved in ``STALL_ITERATIONS`` iterations (rounding level), or at a non-descent step.
    """

    tol: float
    gap_tol: float | None
    alpha: float
    time_limit: float | None
    best: float = np.inf  # the smallest ‖g‖² so far
    stalls: int = 0  # iterations since ‖g‖² last halved

    STALL_ITERATIONS: ClassVar[int] = 3

    def at_gradient(self, g: np.ndarray, g_inf: float, F: float) -> tuple[bool, str] | None:
        if self.gap_tol is None:
            return (True, "gradient norm below tol") if g_inf <= self.tol else None
        g2 = float(g @ g)
        if g2 <= self.gap_tol * 2.0 * self.alpha * F:
            return True, "relative duality gap below gap_tol"
        self.stalls = 0 if g2 <= 0.5 * self.best else self.stalls + 1
        self.best = min(self.best, g2)
        if self.stalls >= self.STALL_ITERATIONS:
            return False, "the gradient stopped decreasing (rounding level) before the duality gap reached gap_tol"
        return None

    def at_decrement(self, decrement: float, F: float) -> tuple[bool, str] | None:
        if self.gap_tol is not None:
            return (False, "no descent direction before the duality gap reached gap_tol") if decrement <= 0 else None
        return (True, "Newton decrement below tol * F") if decrement <= self.tol * max(F, 1e-300) else None


class _Evaluation:
    """Loss, c and the generalized Hessian at scores f (θ for the regularizer), computed once."""

    def __init__(self, evaluator: PairEvaluator, N: float, alpha: float, f: np.ndarray, theta: np.ndarray):
        self.c: np.ndarray | None
        L, self.c, self.hessian = evaluator.loss_and_hessian(f)
        self.objective = L / N + 0.5 * alpha * float(theta @ theta)


def _line_search(evaluator: PairEvaluator, N: float, alpha: float, f: np.ndarray, v: np.ndarray,
                 theta: np.ndarray, s: np.ndarray, slope0: float, rtol: float = 0.1,
                 max_steps: int = 60) -> tuple[float, _Evaluation, np.ndarray]:
    """Minimize the convex φ(t) = F(θ + t s) from the Newton step t = 1, to |φ'(t)| ≤ rtol·|φ'(0)|.

    φ'(t) = c(f + tv)ᵀv / N + α(θᵀs + t sᵀs),  φ''(t) = vᵀQ_{f+tv}(v) / N + α sᵀs. The trial
    t = 1 is a full evaluation (loss, c, Hessian state): when it is accepted, as it usually is
    near the solution, it is the next outer iteration's evaluation and the line search cost
    nothing extra. Later trials take φ' and φ'' from one forward sweep of the pair core each
    (:meth:`~aucopt.pairs.core.PairEvaluator.line_derivatives`: no c, no Hessian state); 1-D
    Newton safeguarded by bisection; the accepted t then gets its full evaluation. Returns t,
    that evaluation and the scores f + t v.
    """
    ss, ts = float(s @ s), float(theta @ s)
    lo, hi = 0.0, np.inf  # φ'(lo) < 0 ≤ φ'(hi)
    t = 1.0
    f_new = f + v
    state = _Evaluation(evaluator, N, alpha, f_new, theta + s)
    assert state.c is not None
    d1 = float(state.c @ v) / N + alpha * (ts + ss)
    if abs(d1) <= rtol * abs(slope0):
        return t, state, f_new
    del state, f_new  # later trials need only φ' and φ''
    for _ in range(max_steps):
        _, dL, d2L = evaluator.line_derivatives(f + t * v, v)
        d1 = dL / N + alpha * (ts + t * ss)
        if abs(d1) <= rtol * abs(slope0):
            break
        d2 = d2L / N + alpha * ss
        if d1 < 0:
            lo = t
        else:
            hi = t
        t_new = t - d1 / d2 if d2 > 0 else np.inf
        if not (lo < t_new < hi):  # Newton left the bracket: bisect (or expand)
            t_new = 0.5 * (lo + hi) if np.isfinite(hi) else 2.0 * max(t, lo)
        if np.isfinite(hi) and hi - lo <= 1e-12 * hi:
            break
        t = t_new
    f_new = f + t * v
    return t, _Evaluation(evaluator, N, alpha, f_new, theta + t * s), f_new


class _HessianProduct:
    """d ↦ (Hd, Md) with Hd = MᵀQ(Md)/N + αd, the generalized Hessian of F at the scores ``hessian``
    was built on; Md is returned too, so that conjugate gradients also accumulate M x."""

    def __init__(self, M: Any, hessian: Any, N: float, alpha: float):
        self.M, self.hessian, self.N, self.alpha = M, hessian, N, alpha

    def __call__(self, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        Md = _matvec(self.M, d)
        return _rmatvec(self.M, self.hessian.matvec(Md)) / self.N + self.alpha * d, Md


def _conjugate_gradient(hessp: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]], b: np.ndarray, maxiter: int,
                        rtol: float) -> tuple[np.ndarray, np.ndarray, int]:
    """Plain CG for H x = b with H positive definite (H ⪰ αI); returns (x, Mx, iterations).

    ``hessp(d)`` returns ``(Hd, Md)``; Mx is accumulated from the Md of the steps with the
    coefficients of x, which saves the product M x after the solve.
    """
    x = np.zeros_like(b)
    Mx: np.ndarray | None = None
    r = b.copy()
    d = r.copy()
    rr = float(r @ r)
    target = (rtol ** 2) * rr
    k = 0
    for k in range(1, maxiter + 1):
        Hd, Md = hessp(d)
        curvature = float(d @ Hd)
        if curvature <= 0:
            if k == 1:  # no curvature information: the right-hand side itself
                return b, Md, k  # d = b here
            break
        step = rr / curvature
        x += step * d
        if Mx is None:
            Mx = step * Md
        else:
            Mx += step * Md
        del Md
        r -= step * Hd
        rr_new = float(r @ r)
        if rr_new <= target:
            break
        d = r + (rr_new / rr) * d
        rr = rr_new
    assert Mx is not None  # at least one step was taken
    return x, Mx, k


#: rows per block when a float32 M is multiplied in float64 (a few MB: the block stays in cache)
_BLOCK_ROWS = 16384


def _compiled_rows(M: Any) -> bool:
    """Whether products with ``M`` go through the compiled halves on two threads: a C-contiguous
    float64 or float32 array of :data:`aucopt._threads.THREADED_FROM` rows or more, when numba may use
    two threads."""
    return (isinstance(M, np.ndarray) and M.ndim == 2 and M.dtype in (np.float64, np.float32)
            and M.flags.c_contiguous and _threads.threaded(M.shape[0]))


def _matvec(M: Any, v: np.ndarray) -> np.ndarray:
    """M v in float64; a float32 array is converted block by block (no float64 copy of M), or read as
    it is by the compiled halves (OpenBLAS's own two threads are as fast for a float64 M)."""
    if M.dtype == np.float32 and _compiled_rows(M):
        return _dense_kernels.matvec(M, v)
    if isinstance(M, np.ndarray) and M.dtype != np.float64:
        out = np.empty(M.shape[0])
        for a in range(0, M.shape[0], _BLOCK_ROWS):
            out[a:a + _BLOCK_ROWS] = M[a:a + _BLOCK_ROWS].astype(np.float64) @ v
        return out
    return np.asarray(M @ v, dtype=float).ravel()


def _rmatvec(M: Any, c: np.ndarray) -> np.ndarray:
    """Mᵀ c in float64; by the compiled halves on two threads when :func:`_compiled_rows` (2.4× OpenBLAS's
    transposed product at 10⁷ × 20); else a float32 array is converted block by block."""
    if _compiled_rows(M):
        return _dense_kernels.rmatvec(M, c)
    if isinstance(M, np.ndarray) and M.dtype != np.float64:
        out = np.zeros(M.shape[1])
        for a in range(0, M.shape[0], _BLOCK_ROWS):
            out += M[a:a + _BLOCK_ROWS].astype(np.float64).T @ c[a:a + _BLOCK_ROWS]
        return out
    return np.asarray(M.T @ c, dtype=float).ravel()
