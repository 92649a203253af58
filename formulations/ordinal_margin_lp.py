"""Ordinal-margin LP Ranker: the LP Ranker (Ataman 2007, eq. 3.3) with margins that grow with the level gap.

Ordinal labels with level indices ℓ (``m.labels``: 0 for the lowest level, 1 for the next, ...)
give one pair (i, j) for every ℓ_i > ℓ_j (``PairSet.multipartite``). A pair of points two
levels apart should be ranked further apart than one of neighbouring levels: the required
margin is the level gap, as in the magnitude-preserving hinge of Cortes, Mohri & Rastogi (2007):

    min_{α ≥ 0, z ≥ 0}  Σ_l α_l + C Σ_(i,j) w_ij z_ij
    s.t.                f(x_i) − f(x_j) ≥ margin · (ℓ_i − ℓ_j) − z_ij      for every pair (i, j)

with f(x) = Σ_l y_l α_l k(x, x_l) (y_l = −1 on the lowest level, +1 above, the pair set's
signs). Over bipartite pairs (ℓ ∈ {0, 1}) and ``margin=1`` it is the LP Ranker. The level
indices are read from the pair set the estimator built (``m.labels``), so the formulation runs
as ``LPRanker(formulation="ordinal_margin_lp", pair_options={"target": "multipartite"})``;
pair sets without labels (survival, listed pairs) are refused.

Parameters: ``C`` as the LP Ranker; ``margin`` > 0, the margin per level of gap. Size: the LP
Ranker's (lifted: n·(m + 1) + 3P nonzeros; dense: P·(m + 1)).

References: Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming for
problems with binary output*. PhD thesis, University of Iowa. Cortes, C., Mohri, M., & Rastogi, A.
(2007). Magnitude-preserving ranking algorithms. *Proceedings of the 24th International Conference
on Machine Learning (ICML 2007)*, 169–176.

Examples
--------
>>> import numpy as np
>>> from aucopt import PairSet, get_formulation, solve
>>> pairs = PairSet.multipartite([0, 1, 2])          # three points, one per level
>>> problem = get_formulation("ordinal_margin_lp").build(pairs, np.eye(3), C=10.0)
>>> f = problem.output(solve(problem).x, "coef")     # K = I: the scores are the coefficients
>>> bool(f[2] - f[0] >= 2 - 1e-9 and f[1] - f[0] >= 1 - 1e-9)  # two levels apart: margin 2
True
"""

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval

from aucopt.modeling import formulation


@formulation("ordinal_margin_lp", kind="lp",
             nnz=lambda n_points, n_pairs, n_basis, lifted:
             n_points * (n_basis + 1) + 3 * n_pairs if lifted else n_pairs * (n_basis + 1),
             params={"C": [Interval(Real, 0, np.inf, closed="neither")],
                     "margin": [Interval(Real, 0, np.inf, closed="neither")]})  # per level of gap
def ordinal_margin_lp(m, C=1.0, margin=1.0):
    if m.labels is None:
        raise ValueError("ordinal_margin_lp reads each point's level from m.labels, which this pair set does not "
                         "carry (survival or listed pairs): build it with PairSet.multipartite(y) (estimators: "
                         "pair_options={'target': 'multipartite'}), or use lp_ranker.")
    i, j = m.pair_index
    gap = m.labels[i] - m.labels[j]  # level gap of every pair, ≥ 1 for ordinal pairs
    if np.any(gap <= 0):
        raise ValueError("ordinal_margin_lp needs pairs of a higher level over a lower one; "
                         f"{int(np.sum(gap <= 0))} pair(s) are not.")
    alpha = m.variable("alpha", m.n_basis, lower=0)  # ranking-vector weights
    z = m.variable("z", m.n_pairs, lower=0)  # pair slacks (hinge)
    f = m.scores(alpha, signed=True)  # f = K Y α (lifted to score variables)
    m.minimize(alpha.sum() + C * (m.pair_weights @ z))
    m.subject_to(m.pair_difference(f) + z >= margin * gap)
