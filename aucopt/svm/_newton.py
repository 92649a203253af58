"""Truncated Newton for pairwise ranking losses in score space (seed 004 §2.4b; Chapelle & Keerthi 2010).

Solves, for a linear map f = M θ (M = X for a linear RankSVM, M = K_{·R} T for a kernel ranker in
the whitened variable θ = w, β = T w, seed 004 §1.6),

    F(θ) = (1/N) Σ_(i,j) w_ij ℓ(f_i − f_j) + (λ/2) ‖θ‖²,      N = Σ w_ij  (m₊m₋ for AUC)

with ℓ the squared hinge or the ε-smoothed hinge. Every pairwise sum goes through the sorted-pair
core (:mod:`aucopt.paircore`): L and c = ∂L/∂f in O(m log m), generalized-Hessian products
Q(v) reusing one sort. One outer iteration:

1. g = Mᵀc/N + λθ;  stop when ‖g‖_∞ ≤ tol.
2. s ≈ −H⁻¹g by conjugate gradients on Hv = MᵀQ(Mv)/N + λv (≤ ``cg_maxiter`` steps, relative
   residual ``cg_rtol``); stop when the Newton decrement −gᵀs ≤ tol · F.
3. line search on φ(t) = F(θ + t s), solved to |φ'(t)| ≤ 10⁻²|φ'(0)| (the outer decrement
   test decides the final accuracy): along the ray the scores are f + t·Ms, so each 1-D Newton
   step t ← t − φ'(t)/φ''(t) costs one sorted-pair evaluation and no product with M;
   safeguarded by bisection on the bracket where φ' changes sign. The evaluation at the
   accepted t (loss, c and Hessian state) is reused by the next outer iteration.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .._progress import progress_bar
from ..pairs import PairSet
from ..pairs.core import PairLoss, pair_loss_and_hessian


@dataclass
class NewtonResult:
    """Solution and iteration record of :func:`newton_solve`."""

    theta: np.ndarray
    objective: float
    converged: bool
    iterations: int
    cg_iterations: int
    message: str
    history: list = field(default_factory=list)  # one dict per outer iteration


def check_loss_params(lam, loss, eps) -> PairLoss:
    """Validate λ > 0 and the loss (``"squared_hinge"`` or ``"smoothed_hinge"`` with ε ∈ (0, 1])."""
    if not np.isscalar(lam) or isinstance(lam, bool) or not (0 < float(lam) < np.inf):
        raise ValueError(f"The regularization lam must be a positive finite number; got {lam!r}.")
    if loss not in ("squared_hinge", "smoothed_hinge"):
        raise ValueError(
            f"loss must be 'squared_hinge' or 'smoothed_hinge' (twice differentiable pieces, as "
            f"Newton needs); got {loss!r}."
        )
    if loss == "squared_hinge":
        return PairLoss.make(loss)  # eps plays no role
    if not (np.isscalar(eps) and 0 < float(eps) <= 1):
        raise ValueError(f"eps must lie in (0, 1] for the smoothed hinge; got {eps!r}.")
    return PairLoss.make(loss, eps)


def newton_solve(M, pairs: PairSet, lam: float, *, loss: str = "squared_hinge", eps: float = 0.5,
                 theta0=None, tol: float = 1e-8, max_iter: int = 100, cg_maxiter: int = 25,
                 cg_rtol: float = 0.1, progress: bool | None = False, callback=None) -> NewtonResult:
    """Minimize F(θ) = (1/N) Σ w_ij ℓ((Mθ)_i − (Mθ)_j) + (λ/2)‖θ‖² by truncated Newton.

    ``M`` is a dense or sparse ``m × p`` matrix; ``theta0`` warm-starts (e.g. along a λ path);
    ``callback(record)`` is called after every outer iteration with its history record;
    ``progress`` shows a tqdm bar (``None``: only on a terminal).
    """
    loss_obj = check_loss_params(lam, loss, eps)
    lam = float(lam)
    N = pairs.check_nonempty().total_weight()
    if N <= 0:
        raise ValueError("All pair weights are zero; there is nothing to rank.")
    p = M.shape[1]
    theta = np.zeros(p) if theta0 is None else np.array(theta0, dtype=float)
    if theta.shape != (p,):
        raise ValueError(f"theta0 must have shape ({p},), got {theta.shape}.")
    f = _matvec(M, theta)
    history, total_cg = [], 0
    bar = progress_bar(progress, total=max_iter, desc="Newton")
    start = time.perf_counter()
    state = _Evaluation(pairs, loss_obj, N, lam, f, theta)
    converged, message = False, f"reached max_iter={max_iter}"
    it = 0
    for it in range(1, max_iter + 1):
        F = state.objective
        g = _rmatvec(M, state.c) / N + lam * theta
        g_inf = float(np.max(np.abs(g), initial=0.0))
        if g_inf <= tol:
            converged, message, it = True, "gradient norm below tol", it - 1
            break
        hess = state.hessian

        def hessp(v):
            return _rmatvec(M, hess.matvec(_matvec(M, v))) / N + lam * v

        s, n_cg = _conjugate_gradient(hessp, -g, cg_maxiter, cg_rtol)
        total_cg += n_cg
        decrement = -float(g @ s)
        if decrement <= tol * max(F, 1e-300):
            converged, message, it = True, "Newton decrement below tol * F", it - 1
            break
        v = _matvec(M, s)
        t, state = _line_search(pairs, loss_obj, N, lam, f, v, theta, s, float(g @ s))
        theta = theta + t * s
        f = f + t * v
        record = {"iteration": it, "objective": state.objective, "grad_inf": g_inf,
                  "decrement": decrement, "step": t, "cg_iterations": n_cg,
                  "seconds": time.perf_counter() - start}
        history.append(record)
        if callback is not None:
            callback(record)
        if bar is not None:
            bar.update(1)
            bar.set_postfix(F=f"{state.objective:.6g}", grad=f"{g_inf:.1e}")
    if bar is not None:
        bar.close()
    return NewtonResult(theta=theta, objective=state.objective, converged=converged, iterations=it,
                        cg_iterations=total_cg, message=message, history=history)


class _Evaluation:
    """Loss, c and the generalized Hessian at scores f (θ for the regularizer), computed once."""

    def __init__(self, pairs, loss_obj, N, lam, f, theta):
        L, self.c, self.hessian = pair_loss_and_hessian(pairs, f, loss_obj.name, loss_obj.eps)
        self.objective = L / N + 0.5 * lam * float(theta @ theta)


def _line_search(pairs, loss_obj, N, lam, f, v, theta, s, slope0, rtol=1e-2, max_steps=60):
    """Minimize the convex φ(t) = F(θ + t s) from the Newton step t = 1, to |φ'(t)| ≤ rtol·|φ'(0)|.

    φ'(t) = c(f + tv)ᵀv / N + λ(θᵀs + t sᵀs),  φ''(t) = vᵀQ_{f+tv}(v) / N + λ sᵀs  (seed 004 §2.4b);
    1-D Newton safeguarded by bisection. Returns t and the evaluation at θ + t s, which the
    next outer iteration reuses (its c, objective and Hessian).
    """
    ss, ts = float(s @ s), float(theta @ s)
    lo, hi = 0.0, np.inf  # φ'(lo) < 0 ≤ φ'(hi)
    t = 1.0
    for _ in range(max_steps):
        state = _Evaluation(pairs, loss_obj, N, lam, f + t * v, theta + t * s)
        d1 = float(state.c @ v) / N + lam * (ts + t * ss)
        if abs(d1) <= rtol * abs(slope0):
            break
        d2 = float(v @ state.hessian.matvec(v)) / N + lam * ss
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
    return t, state


def _conjugate_gradient(hessp, b, maxiter, rtol):
    """Plain CG for H x = b with H positive definite (H ⪰ λI); returns (x, iterations)."""
    x = np.zeros_like(b)
    r = b.copy()
    d = r.copy()
    rr = float(r @ r)
    target = (rtol ** 2) * rr
    for k in range(1, maxiter + 1):
        Hd = hessp(d)
        curvature = float(d @ Hd)
        if curvature <= 0:
            return (x if k > 1 else b), k
        alpha = rr / curvature
        x += alpha * d
        r -= alpha * Hd
        rr_new = float(r @ r)
        if rr_new <= target:
            return x, k
        d = r + (rr_new / rr) * d
        rr = rr_new
    return x, maxiter


def _matvec(M, v):
    return np.asarray(M @ v, dtype=float).ravel()


def _rmatvec(M, c):
    return np.asarray(M.T @ c, dtype=float).ravel()

