"""Fair LP Ranker: the LP Ranker (Ataman 2007, eq. 3.3) with its cross-group hinge gap at most ε.

Two groups a, b (a per-point protected attribute). The cross-group pairs are
P_ab = {(i, j): i in a, j in b} (for bipartite pairs: i positive in a, j negative in b, the pairs
of xAUC(a, b) of Kallus & Zhou 2019) and P_ba; h_ij = max(0, 1 − (f_i − f_j)) is the pair hinge.
The constraint asked for is |mean_{P_ab} h − mean_{P_ba} h| ≤ ε, a difference of convex functions:
not convex. With the LP Ranker's slacks z ≥ h, the rows on z alone would not bound it — the LP
may raise the slacks of the better-ranked group's pairs above their hinge (paying C per unit) to
close the gap on paper. Each direction instead bounds the upper bound z of one group against the
affine lower bound 1 − (f_i − f_j) ≤ h of the other:

    min_{α ≥ 0, z ≥ 0}  Σ_l α_l + C Σ_(i,j) w_ij z_ij
    s.t.                f(x_i) − f(x_j) ≥ 1 − z_ij                       for every pair (i, j)
                        mean_{P_ab} z − mean_{P_ba} (1 − (f_i − f_j)) ≤ ε
                        mean_{P_ba} z − mean_{P_ab} (1 − (f_i − f_j)) ≤ ε

with f(x) = Σ_l y_l α_l k(x, x_l). Every feasible point satisfies the hinge-gap bound exactly,
|mean_{P_ab} h − mean_{P_ba} h| ≤ ε (an inner, convex approximation of it). It is tight when the
cross-group pairs have margins f_i − f_j ≤ 1; a margin beyond 1 counts as a negative hinge in the
other direction, so small ε also limits how far the cross-group pairs are separated. ε large
leaves the LP Ranker. Means are unweighted, over the pairs (every pair counts once, as in xAUC).

Parameters: ``C`` as the LP Ranker; ``groups``, one label per point, exactly two distinct labels
(a = the smaller; None: ``m.groups``, the groups given at fit, so that
``LPRanker(formulation="fair_ranker").fit(X, y, groups=g)`` fits it); ``epsilon`` ≥ 0. Size: the
LP Ranker's, plus two rows with at most n_pairs + 2·n_points nonzeros (2·n_basis dense).

References: Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming for
problems with binary output*. PhD thesis, University of Iowa. Kallus, N., & Zhou, A. (2019). The
fairness of risk scores beyond classification: bipartite ranking and the xAUC metric. *Advances in
Neural Information Processing Systems 32 (NeurIPS 2019)*.
"""

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval

from aucopt.modeling import formulation


def cross_group_pairs(m, groups):
    """Per pair: 0 for (i in a, j in b), 1 for (i in b, j in a), −1 within a group; a, b sorted labels."""
    groups = np.asarray(groups)
    labels = np.unique(groups).tolist() if groups.shape == (m.n_points,) else []
    if len(labels) != 2:
        raise ValueError(f"groups must give each of the {m.n_points} points one of exactly two group labels; "
                         f"got shape {groups.shape} with labels {labels[:6]}.")
    g = (groups == labels[1]).astype(int)
    i, j = m.pair_index
    cross = np.where(g[i] == g[j], -1, g[i])
    for k, (a, b) in enumerate((labels, labels[::-1])):
        if not np.any(cross == k):
            raise ValueError(f"No pair ranks a point of group {a!r} above one of group {b!r}: the cross-group "
                             "gap is undefined; each group needs points on both sides of some pair.")
    return cross


@formulation("fair_ranker", kind="lp",
             nnz=lambda n_points, n_pairs, n_basis, lifted:
             n_points * (n_basis + 3) + 4 * n_pairs if lifted else n_pairs * (n_basis + 2) + 2 * n_basis,
             params={"C": [Interval(Real, 0, np.inf, closed="neither")], "groups": ["array-like", None],
                     "epsilon": [Interval(Real, 0, np.inf, closed="left")]})  # the largest cross-group hinge gap
def fair_ranker(m, C=1.0, groups=None, epsilon=0.05):
    cross = cross_group_pairs(m, m.groups if groups is None else groups)  # 0: P_ab, 1: P_ba, −1: within a group
    alpha = m.variable("alpha", m.n_basis, lower=0)  # ranking-vector weights
    z = m.variable("z", m.n_pairs, lower=0)  # pair slacks (hinge)
    f = m.scores(alpha, signed=True)  # f = K Y α (lifted to score variables)
    d = m.pair_difference(f)
    upper, lower = m.group_mean(z, cross), m.group_mean(1 - d, cross)  # z ≥ hinge ≥ 1 − d, per group
    m.minimize(alpha.sum() + C * (m.pair_weights @ z))
    m.subject_to(d + z >= 1, upper[0] - lower[1] <= epsilon, upper[1] - lower[0] <= epsilon)
