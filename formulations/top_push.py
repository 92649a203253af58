"""Top push (Li, Jin & Zhou 2014), LP form: every positive above the highest-scored negative.

    min_{α ≥ 0, ξ ≥ 0, t}  Σ_l α_l + C Σ_{i ∈ pos} ξ_i
    s.t.                   f(x_i) − t ≥ 1 − ξ_i        for every positive i
                           t ≥ f(x_j)                  for every negative j  (t = max_j f(x_j))

with the kernel expansion f(x) = Σ_l y_l α_l k(x, x_l) of the LP Ranker. The loss of positive i
is the hinge (1 − f(x_i) + max_j f(x_j))_+: the pairs (i, j) against the top-scored negative
only, so the LP has one row per point and never lists the n_pos · n_neg pairs.

Li, Jin & Zhou minimize ½‖w‖² + (1/n_pos) Σ_i ℓ(max_j wᵀx_j − wᵀx_i) over a linear model with
the truncated quadratic loss ℓ(z) = (1 + z)_+², by a dual method in time linear in the number
of points; this is its L1-penalty / hinge-loss LP variant, in the LP Ranker's kernel expansion.
Bipartite pairs only (the complete, unweighted positive × negative set).

Size: lifted, the score rows s − K Y α = 0 hold n·(m + 1) nonzeros, each positive row
s_i − t + ξ_i ≥ 1 three and each negative row t − s_j ≥ 0 two (at most n·(m + 1) + 3n in all);
dense, each row holds the m entries of K_l and one or two more (at most n·(m + 2)).

References: Li, N., Jin, R., & Zhou, Z.-H. (2014). Top rank optimization in linear time.
*Advances in Neural Information Processing Systems 27 (NIPS 2014)*, 1502–1510.
"""

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval

from aucopt.modeling import formulation


@formulation("top_push", kind="lp",
             nnz=lambda n_points, n_pairs, n_basis, lifted:
             n_points * (n_basis + 1) + 3 * n_points if lifted else n_points * (n_basis + 2),
             params={"C": [Interval(Real, 0, np.inf, closed="neither")]})
def top_push(m, C=1.0):
    m.check_bipartite("top_push")  # positives over negatives, unweighted
    pos, neg = m.positives, m.negatives
    alpha = m.variable("alpha", m.n_basis, lower=0)  # ranking-vector weights
    xi = m.variable("xi", len(pos), lower=0)  # one hinge slack per positive
    f = m.scores(alpha, signed=True)  # f = K Y α (lifted to score variables)
    t = m.maximum(f[neg], name="t")  # t ≥ f_j for every negative: the top negative score
    m.minimize(alpha.sum() + C * xi.sum())
    m.subject_to(f[pos] - t + xi >= 1)
