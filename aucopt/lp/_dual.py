"""Certified lower bounds of the LP Ranker's optimum, from points feasible for its dual.

The LP min Σ_l α_l + C Σ_p w_p z_p subject to f_i − f_j + z_p ≥ 1 for every pair p = (i, j),
f = K Y α and α, z ≥ 0 (Ataman 2007, eq. 3.3) has the dual max Σ_p μ_p subject to 0 ≤ μ_p ≤ C w_p
and (Y K Dᵀμ)_l ≤ 1 for every point l (Dᵀμ adds μ_p at the pair's first point and subtracts it at
its second). Any μ in the box, divided by max(1, max_l (Y K Dᵀμ)_l), is feasible, so its sum bounds
the optimum from below by weak duality, whatever produced μ: the smoothing route's smoothed slopes,
the subgradient route's violated pairs (:class:`DualBound`), or a restricted LP's duals in
chunking and row-and-column generation (:func:`pair_dual_bound`), however accurate the solver's
duals are.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..pairs import PairSet

__all__ = ["DualBound", "dual_value", "pair_dual_bound"]


def dual_value(mu_total: float, reach: np.ndarray) -> float:
    """Σ μ' of the dual point μ' = μ / max(1, max_l (Y K Dᵀ μ)_l), given Σ μ and Y K Dᵀ μ."""
    return mu_total / max(1.0, float(np.max(reach)))


def pair_dual_bound(pairs: PairSet, C: float, positions: np.ndarray, duals: np.ndarray,
                    product: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> tuple[float, np.ndarray]:
    """A certified lower bound of the LP optimum from a restricted LP's pair-row duals, and Y K Dᵀ μ.

    μ_p is the dual of the row of the pair at ``positions[k]`` (``duals[k]``), clipped to [0, C w_p],
    and 0 for the pairs without a row; μ / max(1, max_l (Y K Dᵀ μ)_l) is then feasible for the dual
    of the whole LP, so Σ μ divided by that maximum bounds the optimum by weak duality, whatever the
    accuracy of the solver's duals. ``product(points, v)`` is ``K[:, points] @ v``.
    """
    i, j, w = pairs.pairs_at(positions)
    mu = np.clip(np.asarray(duals, dtype=float), 0.0, C * w)
    m = pairs.n_points
    a = np.bincount(i, weights=mu, minlength=m) - np.bincount(j, weights=mu, minlength=m)
    nz = np.flatnonzero(a)
    reach = pairs.signs * product(nz, a[nz])
    return dual_value(float(mu.sum()), reach), reach


class DualBound:
    """The best certified lower bound over the iterates: each iteration's violated-pair dual point
    (Σ μ and Y K Dᵀ μ given), and the running (ergodic) average of those from the second on."""

    def __init__(self, m: int):
        self.lower, self.mu_sum, self.reach_sum = 0.0, 0.0, np.zeros(m)

    def add(self, k: int, mu: float, reach: np.ndarray) -> float:
        self.lower = max(self.lower, dual_value(mu, reach))
        if k > 1:  # the ergodic average of the later estimates (the first, at α_0, is kept alone)
            self.mu_sum += mu
            self.reach_sum += reach
            self.lower = max(self.lower, dual_value(self.mu_sum / (k - 1), self.reach_sum / (k - 1)))
        return self.lower
