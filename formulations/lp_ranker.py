"""LP Ranker (Ataman 2007, eq. 3.3), kernel expansion f(x) = Σ_l y_l α_l k(x, x_l).

    min_{α ≥ 0, z ≥ 0}  Σ_l α_l + C Σ_(i,j) w_ij z_ij
    s.t.                f(x_i) − f(x_j) ≥ 1 − z_ij      for every pair (i, j)

Over bipartite pairs this is the thesis's AUC ranker; over survival pairs (Harrell's
comparable set) it is the survival LP Ranker of Ataman (2007), Ch. 5, eq. 5.3, with y_l = +1 for
subjects with an observed event and −1 for censored ones (the pair set's ``signs``).

Size: lifted, the score rows s − K Y α = 0 hold n·(m + 1) nonzeros and each pair row
s_i − s_j + z_ij ≥ 1 three; dense, each pair row holds the m entries of K_i − K_j and z_ij.

References: Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming for
problems with binary output*. PhD thesis, University of Iowa.
"""

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval

from aucopt.modeling import formulation


@formulation("lp_ranker", kind="lp",
             nnz=lambda n_points, n_pairs, n_basis, lifted:
             n_points * (n_basis + 1) + 3 * n_pairs if lifted else n_pairs * (n_basis + 1),
             params={"C": [Interval(Real, 0, np.inf, closed="neither")]})
def lp_ranker(m, C=1.0):
    alpha = m.variable("alpha", m.n_basis, lower=0)  # ranking-vector weights
    z = m.variable("z", m.n_pairs, lower=0)  # pair slacks (hinge)
    f = m.scores(alpha, signed=True)  # f = K Y α (lifted to score variables)
    m.minimize(alpha.sum() + C * (m.pair_weights @ z))
    m.subject_to(m.pair_difference(f) + z >= 1)
