"""An exact step on a small active set, for dual coordinate descent stalled by near-parallel pairs.

Coordinate descent converges slowly when two active coordinates are nearly the same direction:
pairs (i, j) and (i, j') with x_j ≈ x_j' have nearly parallel columns x_i − x_j, and each
coordinate step undoes most of the other's (a zigzag whose rate is the squared cosine of their
angle). At 10⁸ linear pairs in 10 features this held 18 active pairs at a projected-gradient gap
of about 3·10⁻⁶ for 90,000 epochs, with the relative duality gap already at 2·10⁻¹⁰. Once the
active set is small, the dual restricted to it (every other α fixed) is a box-constrained QP with
a k × k Hessian, which HiGHS's active-set QP solver solves exactly:

    min_δ ½ δᵀQ_AA δ + g_Aᵀδ   s.t.  −α_A ≤ δ ≤ u_A − α_A,

with g_A the current gradient and Q_AA the pairs' curvature (K or X, plus 1/(C w_p) on the
diagonal for the squared hinge). The step is applied like k coordinate steps (α, f or w, and c);
the epochs then go on and decide convergence by their projected-gradient test as before.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._highs import new_highs, pass_problem
from .._numba import njit
from ..modeling import Problem

__all__ = ["POLISH_MAX_PAIRS", "STALL_EPOCHS", "apply_alpha", "restricted_optimum"]

#: the active set is solved exactly when it holds at most this many pairs and its gap stalls. HiGHS's
#: QP time grows steeply with k on these dense, often rank-deficient Hessians (a linear kernel's D Dᵀ
#: has rank d): one step on 1,000 pairs of 20 features took 7.8 s of a 9 s fit. At 300 (it was 1,000),
#: of the 22 linear fits of benchmarks/aucsvm_linear_routes.py up to 2,000 points those at C ≥ 1 took
#: 0.1 to 5.9 s instead of 0.14 to 15.4 s (up to 9 times less; the others, under 0.7 s, at most
#: 0.05 s slower), 1e7 linear pairs 9.2 s instead of 12.5 s, and 12 RBF fits the same or less; every fit
#: converged, the objectives equal to 4e-9 (relative). The 1e8-pair zigzag it was made for held 18
#: pairs.
POLISH_MAX_PAIRS = 300
#: epochs without halving the projected-gradient gap that count as a stall
STALL_EPOCHS = 50


def restricted_optimum(data: np.ndarray, linear: bool, a: np.ndarray, b: np.ndarray, wp: np.ndarray,
                       alpha_A: np.ndarray, state: np.ndarray, C: float, power: int) -> np.ndarray | None:
    """α on the active pairs (a, b) with weights wp minimizing the dual over them, the others fixed.

    ``state`` is w = Xᵀc (``linear``) or f = Kc. The step is solved in units of s = C·max w_p
    (the QP ½ s δ'ᵀQ_AA δ' + g_Aᵀδ' in δ = s δ', whose bounds are then of order 1, not of order
    C). None when HiGHS does not report an optimum.
    """
    import highspy

    k = len(a)
    if linear:
        D = data[a] - data[b]
        Q = D @ D.T
        g = D @ state - 1.0
    else:
        Q = data[np.ix_(a, a)] - data[np.ix_(a, b)] - data[np.ix_(b, a)] + data[np.ix_(b, b)]
        g = state[a] - state[b] - 1.0
    if power == 2:
        ridge = 1.0 / (C * wp)
        Q[np.diag_indices_from(Q)] += ridge
        g = g + ridge * alpha_A
        upper = np.full(k, np.inf)
    else:
        upper = C * wp - alpha_A
    scale = C * float(np.max(wp))
    step_qp = Problem(c=g, A=sp.csc_matrix((0, k)), row_lower=np.zeros(0), row_upper=np.zeros(0),
                      col_lower=-alpha_A / scale, col_upper=upper / scale, P=Q * scale, name="dcd active set")
    h = new_highs(highspy)
    h.setOptionValue("output_flag", False)
    # HiGHS's tightest tolerances, and less of the QP solver's regularization of the Hessian (its
    # default 1e-7 left gradients of about 2e-7 after the step; 0 fails on a singular Hessian)
    for option in ("primal_feasibility_tolerance", "dual_feasibility_tolerance", "qp_regularization_value"):
        h.setOptionValue(option, 1e-10)
    pass_problem(h, highspy, step_qp)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    step = np.asarray(h.getSolution().col_value)
    new = np.maximum(alpha_A + scale * step, 0.0)
    if power == 1:
        new = np.minimum(new, C * wp)
    basis = h.getBasis()
    if basis.valid:  # exactly on the bounds the QP put them on (its values can be 1e-16 off)
        status = np.array([int(x) for x in basis.col_status])
        new[status == int(highspy.HighsBasisStatus.kLower)] = 0.0
        if power == 1:
            at_upper = status == int(highspy.HighsBasisStatus.kUpper)
            new[at_upper] = (C * wp)[at_upper]
    return new


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
