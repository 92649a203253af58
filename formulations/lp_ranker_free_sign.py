"""Free-sign LP Ranker: the LP Ranker of Ataman (2007), eq. 3.3, without the sign structure y_l α_l.

    f(x) = Σ_l β_l k(x, x_l),  β = β⁺ − β⁻ free in sign
    min  ‖β‖₁ + C Σ w_ij z_ij    s.t.  f(x_i) − f(x_j) ≥ 1 − z_ij,  z ≥ 0

This is an L1-regularized pairwise-hinge kernel expansion; the feasible set contains the
LP Ranker's (β = Y α), so its optimum is never larger.

Size: as the LP Ranker with two weight blocks, n·(2m + 1) + 3P nonzeros lifted, P·(2m + 1) dense.

References: Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming for
problems with binary output*. PhD thesis, University of Iowa.
"""

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval

from aucopt.modeling import formulation


@formulation("lp_ranker_free_sign", kind="lp",
             nnz=lambda n_points, n_pairs, n_basis, lifted:
             n_points * (2 * n_basis + 1) + 3 * n_pairs if lifted else n_pairs * (2 * n_basis + 1),
             params={"C": [Interval(Real, 0, np.inf, closed="neither")]})
def lp_ranker_free_sign(m, C=1.0):
    beta_pos = m.variable("beta_pos", m.n_basis, lower=0)
    beta_neg = m.variable("beta_neg", m.n_basis, lower=0)
    z = m.variable("z", m.n_pairs, lower=0)
    f = m.scores(beta_pos - beta_neg, signed=False)  # f = K (β⁺ − β⁻)
    m.minimize(beta_pos.sum() + beta_neg.sum() + C * (m.pair_weights @ z))
    m.subject_to(m.pair_difference(f) + z >= 1)
