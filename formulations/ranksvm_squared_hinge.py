"""Ranking SVM with the squared hinge, primal (Chapelle & Keerthi 2010; Tayal et al. 2015).

    f(x) = Σ_k β_k k(x, x_k)          over the expansion points x_k (the kernel's columns)
    min_{β, z ≥ 0}  ½ βᵀK_RRβ + (C/2) Σ_(i,j) w_ij z_ij²
    s.t.            f(x_i) − f(x_j) ≥ 1 − z_ij      for every pair (i, j)

so z_ij = max(0, 1 − (f_i − f_j)) at the optimum. K_RR is the kernel among the expansion points:
the whole kernel when ``basis`` is None (K square, every point expands f: the kernel RankSVM), else
its rows ``basis`` (the kernel's columns are the points ``basis``, in that order: RankRC's K_{·R}).
The penalty is ½‖Lᵀβ‖² with K_RR = L Lᵀ (the given ``factor`` when ``basis`` is None, else an
exact eigen-factor), as in the AUC-SVM duals; the output "coef" is β. With ``basis`` None it is the
primal of ``aucsvm_l2_dual`` at the same C: the two optima are equal with opposite signs.

The estimators minimize F_α = (1/N) Σ w_ij max(0, 1 − z_ij)² + (α/2)‖w‖², N = Σ w_ij, without an
intercept (pair differences cancel it). F_α is α times this objective when C = 2/(αN):

* ``RankSVM(alpha=α)`` (and ``SurvivalRankSVM``): K = X Xᵀ, factor = X, ``coef_`` = Xᵀβ;
* ``RankRC(alpha=α, loss="squared_hinge")`` (and ``SurvivalRankRC``): K = k(X, X[support_]),
  ``basis=support_``, ``dual_coef_`` = β;
* ``AUCSVM(loss="squared_hinge", C=C)``: K = the training kernel, the same C.

Size (n points, P pairs, m expansion points, L of r ≤ m columns): lifted, the score rows
s − Kβ = 0 hold n·(m + 1) nonzeros and the pair rows 3P; dense, the pair rows hold P·(m + 1);
the rows u − Lᵀβ = 0 hold r·(m + 1), the quadratic term P + r.

References: Chapelle, O., & Keerthi, S. S. (2010). Efficient algorithms for ranking with SVMs.
*Information Retrieval*, 13(3), 201–215. Tayal, A., Coleman, T. F., & Li, Y. (2015). RankRC:
Large-scale nonlinear rare class ranking. *IEEE Transactions on Knowledge and Data Engineering*,
27(12), 3347–3359.
"""

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval

from aucopt.modeling import formulation


@formulation("ranksvm_squared_hinge", kind="qp",
             nnz=lambda n_points, n_pairs, n_basis, lifted:
             (n_points * (n_basis + 1) + 3 * n_pairs if lifted else n_pairs * (n_basis + 1))
             + n_basis * (n_basis + 2) + n_pairs,
             params={"C": [Interval(Real, 0, np.inf, closed="neither")], "basis": ["array-like", None]})
def ranksvm_squared_hinge(m, C=1.0, basis=None):
    beta = m.variable("beta", m.n_basis)  # expansion weights
    z = m.variable("z", m.n_pairs, lower=0)  # pair slacks (squared hinge)
    f = m.scores(beta, signed=False)  # f = K β (lifted to score variables)
    L = m.basis_factor(basis)  # K_RR = L Lᵀ, the kernel among the expansion points
    m.minimize(0.5 * m.sum_squares(L.T @ beta) + 0.5 * C * m.sum_squares(z, weights=m.pair_weights))
    m.subject_to(m.pair_difference(f) + z >= 1)
