"""The AUC-SVM's primal objective and the certificate of its exact routes.

Private to :mod:`aucopt.svm._aucsvm`: the primal objective ½‖w‖² + (C/r) Σ w_ij ξ_ij^r from the
sorted-pair core, and the check that reports a fit of ``method="full"`` or ``"dcd"`` optimal only
within :data:`AUCSVM_GAP_TOL` of its dual bound.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ..base import Solution
from ..exceptions import SolverWarning, warn
from ..pairs import PairSet
from ..pairs.core import pair_loss
from ..solvers import SolveResult, Status

#: the exact routes (``method="full"``, ``"dcd"``) report ``optimal`` only when the relative duality
#: gap (objective_ + dual_objective_) / objective_ is at most this; above, ``optimal_inaccurate``
AUCSVM_GAP_TOL = 1e-4


def _certified(basis: Any, coef: np.ndarray, result: SolveResult, f: np.ndarray, w_sq_norm: float, dual: float,
               pairs: PairSet, C: float, power: int) -> Solution:
    """The solution of an exact route (``"full"``, ``"dcd"``) with its primal objective, reported
    optimal only within :data:`AUCSVM_GAP_TOL` of the dual objective ``-dual`` (a lower bound).

    A route that stops on its own criterion (the projected gradient, the QP's residuals) may
    leave every support pair a rounding error short of its margin: harmless at a moderate C, but
    ``C Σ w_ij ξ_ij`` then dominates the primal objective at a large C (C·w_ij of 10⁶ and more, a
    separable problem nearly hard-margin). The best multiple ``t w`` of the solution (``t`` close
    to 1, the same ranking) closes those margins: it is taken when the gap exceeds the tolerance.
    A gap still above it is reported as ``optimal_inaccurate``, with a warning.
    """
    objective = _primal_objective(f, w_sq_norm, pairs, C, power)
    if result.status != Status.OPTIMAL or _relative_gap(objective, dual) <= AUCSVM_GAP_TOL:
        return Solution(basis, coef, result, objective)
    t, scaled = _best_multiple(f, w_sq_norm, pairs, C, power)
    if -dual - 1e-9 * abs(dual) <= scaled < objective:  # below the dual bound: scores too large to sum exactly
        coef, objective = coef * t, scaled
    gap = _relative_gap(objective, dual)
    if gap > AUCSVM_GAP_TOL:
        message = (f"the relative duality gap is {gap:.3g} > {AUCSVM_GAP_TOL:g} (objective {objective:.6g}, dual "
                   f"bound {-dual:.6g}): the solution may be far from the optimum; a tighter tol, or a smaller C (or "
                   "smaller sample weights), narrows it")
        result = dataclasses.replace(result, status=Status.OPTIMAL_INACCURATE, message=message)
        warn(f"{result.solver} converged on {result.problem_name!r} by its own criterion, but {message}.",
             SolverWarning)
    return Solution(basis, coef, result, objective)


def _largest_pair_weight(pairs: PairSet) -> float:
    """The largest pair weight w_ij (an upper bound for sorted pair sets: point weights squared
    times the largest anchor weight); 1 for unweighted pairs."""
    if pairs.storage != "sorted":
        return float(np.max(pairs.to_arrays(None)[2], initial=0.0))
    largest = 1.0
    if pairs.point_weights is not None and pairs.point_weights.size:
        largest *= float(np.max(pairs.point_weights)) ** 2
    if pairs.anchor_weights is not None and pairs.anchor_weights.size:
        largest *= float(np.max(pairs.anchor_weights))
    return largest


def _relative_gap(objective: float, dual: float) -> float:
    """(objective + dual) / |objective|, ``dual`` the negated dual objective (``dual_objective_``)."""
    return (objective + dual) / abs(objective) if objective else 0.0


def _best_multiple(f: np.ndarray, w_sq_norm: float, pairs: PairSet, C: float, power: int) -> tuple[float, float]:
    """argmin over t ≥ 0 of P(t) = ½ t² ‖w‖² + (C/r) Σ w_ij max(0, 1 − t (f_i − f_j))^r, and P there.

    P is convex; its derivative t ‖w‖² + (C/r) cᵀf (c = ∂L/∂f at t f, one pass of the pair core)
    is non-decreasing, so bisection finds its sign change (60 halvings: t to rounding)."""
    loss = "hinge" if power == 1 else "squared_hinge"

    def slope(t: float) -> float:
        return t * w_sq_norm + C / power * float(pair_loss(pairs, t * f, loss)[1] @ f)

    lo, hi = 0.0, 2.0
    while slope(hi) < 0 and hi < 1e12:
        lo, hi = hi, 2.0 * hi
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if slope(mid) < 0:
            lo = mid
        else:
            hi = mid
    t = 0.5 * (lo + hi)
    return t, _primal_objective(t * f, t * t * w_sq_norm, pairs, C, power)


def _primal_objective(f: np.ndarray, w_sq_norm: float, pairs: PairSet, C: float, power: int) -> float:
    """½‖w‖² + (C/r) Σ w_ij ξ_ij^r with ξ_ij = max(0, 1 − (f_i − f_j)), r = 1 or 2, from the
    sorted-pair core (the pairs are not listed)."""
    loss, _ = pair_loss(pairs, f, "hinge" if power == 1 else "squared_hinge")
    return 0.5 * w_sq_norm + C / power * loss
