"""Least-squares pairwise AUC: the square loss of one-pass AUC optimization (Gao et al. 2013, Eq. (2)).

    f(x) = Σ_k β_k k(x, x_k)          over the expansion points x_k (the kernel's columns)
    min_{β, r}  ½ βᵀK_RRβ + (C/2) Σ_(i,j) w_ij r_ij²
    s.t.        f(x_i) − f(x_j) + r_ij = 1          for every pair (i, j)

an equality-constrained QP: r_ij = 1 − (f_i − f_j) is the residual of the square loss, which
also penalizes pairs ranked by more than the margin 1. K_RR, ``basis`` and the penalty
½‖Lᵀβ‖² (K_RR = L Lᵀ) are as in ``ranksvm_squared_hinge``; the output "coef" is β.

Gao et al. (2013), Eq. (2), with α in place of their λ and pair weights w_ij = v_i v_j,
minimize L(w) = (α/2)‖w‖² + (1/(2N)) Σ w_ij (1 − wᵀ(x_i − x_j))², N = Σ w_ij = T₊T₋, without
an intercept. L is α times this objective when C = 1/(αN): with the linear kernel K = X Xᵀ
(factor = X) the minimizer has w = Xᵀβ equal to ``aucopt.online.batch_solution(X, y, alpha=α)``,
the fixed point of ``OnePassAUC(alpha=α)``. Over survival pairs it is the same square loss on
Harrell's comparable pairs.

Size (n points, P pairs, m expansion points, L of r ≤ m columns): lifted, the score rows
s − Kβ = 0 hold n·(m + 1) nonzeros and the pair rows 3P; dense, the pair rows hold P·(m + 1);
the rows u − Lᵀβ = 0 hold r·(m + 1), the quadratic term P + r.

References: Gao, W., Jin, R., Zhu, S., & Zhou, Z.-H. (2013). One-pass AUC optimization.
*Proceedings of the 30th International Conference on Machine Learning (ICML 2013)*, PMLR 28(3),
906–914.
"""

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval

from aucopt.modeling import formulation


@formulation("auc_least_squares", kind="qp",
             nnz=lambda n_points, n_pairs, n_basis, lifted:
             (n_points * (n_basis + 1) + 3 * n_pairs if lifted else n_pairs * (n_basis + 1))
             + n_basis * (n_basis + 2) + n_pairs,
             params={"C": [Interval(Real, 0, np.inf, closed="neither")], "basis": ["array-like", None]})
def auc_least_squares(m, C=1.0, basis=None):
    beta = m.variable("beta", m.n_basis)  # expansion weights
    r = m.variable("r", m.n_pairs)  # pair residuals 1 − (f_i − f_j)
    f = m.scores(beta, signed=False)  # f = K β (lifted to score variables)
    L = m.basis_factor(basis)  # K_RR = L Lᵀ, the kernel among the expansion points
    m.minimize(0.5 * m.sum_squares(L.T @ beta) + 0.5 * C * m.sum_squares(r, weights=m.pair_weights))
    m.subject_to(m.pair_difference(f) + r == 1)
