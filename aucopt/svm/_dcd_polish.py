"""An exact step on a stalled active set, for dual coordinate descent slowed by near-parallel pairs.

Coordinate descent converges slowly when active coordinates are nearly the same direction:
pairs (i, j) and (i, j') with x_j ≈ x_j' have nearly parallel columns x_i − x_j, and each
coordinate step undoes most of the other's (a zigzag whose rate is the squared cosine of their
angle). At 10⁸ linear pairs in 10 features this held 18 active pairs at a projected-gradient gap
of about 3·10⁻⁶ for 90,000 epochs, with the relative duality gap already at 2·10⁻¹⁰; on
scikit-survival's GBSG2 (686 patients, 133,072 Harrell pairs, RBF kernel, C = 10) 574 active pairs
held the gap above 10⁻⁶ for 100,000 epochs. Once the gap stalls, the dual restricted to the active
set (every other α fixed) is a box-constrained QP with a k × k Hessian:

    min_δ ½ δᵀQ_AA δ + g_Aᵀδ   s.t.  −α_A ≤ δ ≤ u_A − α_A,

with g_A the current gradient and Q_AA the pairs' curvature (K or X Xᵀ, plus 1/(C w_p) on the
diagonal for the squared hinge). :func:`box_qp` solves it by a primal–dual interior-point method
(Mehrotra's predictor–corrector) to a projected gradient of about 1e-10, one Cholesky
factorization a step: of Q_AA + Θ (k × k), or for a linear kernel with fewer features than half
the pairs of the d × d matrix I + Vᵀ Θ⁻¹ V with Q_AA = V Vᵀ (Woodbury). Q_AA is singular when
the pairs outnumber its rank, which the barrier's Θ > 0 absorbs. The step is applied like k
coordinate steps (α, f or w, and c); the epochs then go on and decide convergence by their
projected-gradient test as before.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from .._numba import njit

__all__ = ["POLISH_MAX_PAIRS", "STALL_EPOCHS", "apply_alpha", "box_qp", "polish_work", "restricted_optimum", "woodbury"]

#: no exact step on more active pairs than this (the dense Hessian and its factor take 16 k² bytes)
POLISH_MAX_PAIRS = 3000
#: epochs without halving the projected-gradient gap that count as a stall
STALL_EPOCHS = 50
#: when a stall is affordable, in the multiply-adds of the epochs (a coordinate that moves updates a
#: row of n or d numbers, and every step reads its gradient): a step costing at most
#: ``POLISH_FREE_WORK`` (about 300 pairs of a kernel matrix) is taken at any stall; a longer one once
#: the epochs have done 1 / ``POLISH_SHARE`` times its work. Counted in work, not seconds, so that a
#: fit is the same at every run. Measured on 2 cores (survival and binary fits, RBF and linear
#: kernels): the epochs did 0.14 to 1.6 G of these multiply-adds a second, the step's factorizations
#: 1.2 to 11 G flops (``_IPM_ITERATIONS`` iterations predicted); a flop counted as 1/8 let the step
#: cost more than it saved on AIDS (1.9 → 2.8 s at C = 10), as 1/4 it does not
#: (benchmarks/aucsvm_dcd_exact_step.py).
POLISH_FREE_WORK = 6e7
POLISH_SHARE = 0.5
_IPM_ITERATIONS, _FLOP_SPEEDUP = 25, 4.0


def woodbury(k: int, rank: int | None) -> bool:
    """Whether the step on ``k`` pairs factors the d × d Woodbury matrix (a linear kernel, ``rank``
    its number of features, below k / 2) rather than the k × k Hessian, for either loss (the
    squared hinge's ridge enters the diagonal of either)."""
    return rank is not None and 2 * rank < k


def polish_work(k: int, rank: int | None) -> float:
    """The exact step's predicted cost on ``k`` pairs, in multiply-adds of the epochs; ``rank`` is
    the number of features for a linear kernel, None for a kernel matrix."""
    if rank is not None and woodbury(k, rank):
        flops = 2.0 * k * rank**2 + rank**3 / 3.0 + 4.0 * k * rank
    else:
        flops = k**3 / 3.0 + 4.0 * k**2
    return _IPM_ITERATIONS * flops / _FLOP_SPEEDUP


def box_qp(b: np.ndarray, upper: np.ndarray, *, Q: np.ndarray | None = None, V: np.ndarray | None = None,
           ridge: np.ndarray | None = None, tol: float = 1e-10, max_iter: int = 100) -> np.ndarray:
    """argmin ½ xᵀHx + bᵀx subject to 0 ≤ x ≤ upper (entries may be inf), H = Q or V Vᵀ (PSD),
    plus diag(``ridge``) when given.

    A primal–dual interior-point method with Mehrotra's predictor–corrector. It stops when the
    dual residual and min(x, z) (for each bound and its multiplier z) are at most ``tol``, at
    ``max_iter`` or when rounding ends the progress (the last interior point); the variables
    whose multiplier exceeds their distance to a bound are then put on it.
    """
    k = b.shape[0]
    fin = np.isfinite(upper)
    u = np.where(fin, upper, 0.0)
    x = np.where(fin, 0.5 * u, 1.0)
    zl, zu = np.ones(k), fin.astype(float)
    H = Q if Q is not None else V
    assert H is not None, "box_qp needs Q or V"
    ridge = np.zeros(k) if ridge is None else ridge
    for _ in range(max_iter):
        s = np.where(fin, u - x, 1.0)
        rd = (H @ x if Q is not None else H @ (H.T @ x)) + ridge * x + b - zl + zu
        comp = max(float(np.max(np.minimum(x, zl))), float(np.max(np.minimum(s, zu), initial=0.0, where=fin)))
        if np.abs(rd).max() <= tol and comp <= tol:
            break
        mu = (x @ zl + (s * zu)[fin].sum()) / (k + fin.sum())
        point = (x, s, zl, zu, 1.0 / x, np.where(fin, 1.0 / s, 0.0), fin)
        solve = _newton_solver(Q, V, zl * point[4] + zu * point[5] + ridge)
        affine = _direction(solve, rd, point, 0.0, 0.0, 0.0)  # predictor
        t = _step_length(point, *affine)
        (dxa, dzla, dzua), (xa, sa) = affine, (x + t * affine[0], s - t * affine[0])
        mu_aff = (xa @ (zl + t * dzla) + (sa * (zu + t * dzua))[fin].sum()) / (k + fin.sum())
        dx, dzl, dzu = _direction(solve, rd, point, (mu_aff / mu) ** 3 * mu, dxa * dzla, dxa * dzua)  # corrector
        t = 0.995 * _step_length(point, dx, dzl, dzu)
        x_next = x + t * dx
        if not (np.all(x_next > 0.0) and np.all((u - x_next)[fin] > 0.0)):
            break  # rounding reached the bounds: keep the last interior point
        x, zl, zu = x_next, zl + t * dzl, np.where(fin, zu + t * dzu, 0.0)
    x = np.where(zl > x, 0.0, x)
    return np.where(fin & (zu > u - x), u, x)


def _direction(solve, rd, point, sigma_mu, dl, du):
    """The Newton direction (dx, dz_lower, dz_upper) towards complementarity ``sigma_mu``, with the
    corrector's second-order terms ``dl``, ``du`` (zeros for the predictor)."""
    x, s, zl, zu, inv_x, inv_s, _ = point
    dx = solve(-rd + (sigma_mu - dl) * inv_x - zl - (sigma_mu + du) * inv_s + zu)
    return dx, (sigma_mu - x * zl - dl) * inv_x - zl * inv_x * dx, (sigma_mu - s * zu + du) * inv_s + zu * inv_s * dx


def _step_length(point, dx, dzl, dzu):
    """The largest step ≤ 1 that keeps x, the distances to the finite upper bounds and the
    multipliers non-negative."""
    x, s, zl, zu, _, _, fin = point
    return min(_to_boundary(x, dx), _to_boundary(zl, dzl), _to_boundary(s[fin], -dx[fin]),
               _to_boundary(zu[fin], dzu[fin]))


def _to_boundary(v: np.ndarray, dv: np.ndarray) -> float:
    """The largest step t ≤ 1 with v + t dv ≥ 0."""
    neg = dv < 0.0
    return min(1.0, float(np.min(-v[neg] / dv[neg]))) if neg.any() else 1.0


def _newton_solver(Q, V, theta):
    """r ↦ (H + diag θ)⁻¹ r by one Cholesky factorization (of the d × d Woodbury matrix for H = V Vᵀ)."""
    if Q is not None:
        H = Q.copy()
        H[np.diag_indices_from(H)] += theta
        try:
            factor = sla.cho_factor(H, check_finite=False)
        except np.linalg.LinAlgError:  # θ below rounding on a singular Q
            H[np.diag_indices_from(H)] += 1e-14 * np.trace(H) / H.shape[0]
            factor = sla.cho_factor(H, check_finite=False)
        return lambda r: sla.cho_solve(factor, r, check_finite=False)
    inv_theta = 1.0 / theta
    M = V.T @ (inv_theta[:, None] * V)
    M[np.diag_indices_from(M)] += 1.0
    factor = sla.cho_factor(M, check_finite=False)
    return lambda r: inv_theta * (r - V @ sla.cho_solve(factor, V.T @ (inv_theta * r), check_finite=False))


def restricted_optimum(data: np.ndarray, linear: bool, a: np.ndarray, b: np.ndarray, wp: np.ndarray,
                       alpha_A: np.ndarray, state: np.ndarray, C: float, power: int) -> np.ndarray:
    """α on the active pairs (a, b) with weights wp minimizing the dual over them, the others fixed.

    ``state`` is w = Xᵀc (``linear``) or f = Kc. The QP is solved in x = α / s with
    s = C·max w_p (½ s xᵀQ_AA x + (g_A − Q_AA α_A)ᵀx, whose bounds are then of order 1, not of
    order C), by :func:`box_qp`; ``alpha_A`` itself (no step) when a factorization fails.
    """
    k = len(a)
    Q = V = None
    scale = C * float(np.max(wp))
    if linear:
        D = data[a] - data[b]
        g = D @ state - 1.0
        if woodbury(k, D.shape[1]):
            V = D * np.sqrt(scale)
        else:
            Q = D @ D.T
    else:
        Q = data[np.ix_(a, a)] - data[np.ix_(a, b)] - data[np.ix_(b, a)] + data[np.ix_(b, b)]
        g = state[a] - state[b] - 1.0
    # the ridge's gradient term α_A / (C w_p) and its part of Q_AA α_A cancel in the linear term
    ridge = 1.0 / (C * wp) if power == 2 else np.zeros(k)
    upper = np.full(k, np.inf) if power == 2 else C * wp
    if Q is not None:
        linear_term = g - Q @ alpha_A
        Q *= scale
    else:
        linear_term = g - D @ (D.T @ alpha_A)
    try:
        x = box_qp(linear_term, upper / scale, Q=Q, V=V, ridge=scale * ridge)
    except np.linalg.LinAlgError:  # a factorization that rounding defeated: no step, the epochs go on
        return alpha_A
    if not np.all(np.isfinite(x)):
        return alpha_A
    new = np.maximum(scale * x, 0.0)
    return np.minimum(new, C * wp) if power == 1 else new


@njit(cache=True, nogil=True)
def apply_alpha(data, linear, a, b, pnums, new, alpha, state, c):
    """Set α_p = new for the pairs ``pnums`` = (a, b), updating ``state`` (w or f) and ``c`` (if not
    empty) as coordinate steps do, pair by pair."""
    for k in range(pnums.shape[0]):
        p = pnums[k]
        delta = new[k] - alpha[p]
        if delta == 0.0:
            continue
        alpha[p] = new[k]
        if c.shape[0]:
            c[a[k]] += delta
            c[b[k]] -= delta
        for t in range(state.shape[0]):
            state[t] += delta * (data[a[k], t] - data[b[k], t])
