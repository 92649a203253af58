"""AUC-maximizing SVM, 2-norm soft margin, dual (Brefeld & Scheffer 2005, Optimization Problem 4, eq. 12).

    min_α  ½ αᵀ (K′ + diag(1 / (C w_ij))) α − 1ᵀα     s.t.  α ≥ 0

(the paper's "K′ + (1/C) 1" means the identity, not the all-ones matrix). Lifted as in
Optimization Problem 3: v = Aᵀα, u = Lᵀv, objective ½‖u‖² + Σ α²/(2 C w) − Σα. The primal
slacks are ξ = α / (C w). Pairs of weight 0 do not enter the loss, so their α is fixed at 0.

Size (n points, P pairs, L of r columns): as the 1-norm dual plus the P diagonal entries of
diag(1 / (C w)).

References: Brefeld, U., & Scheffer, T. (2005). AUC maximizing support vector learning.
*Proceedings of the ICML 2005 Workshop on ROC Analysis in Machine Learning*.
"""

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval

from aucopt.modeling import formulation


@formulation("aucsvm_l2_dual", kind="qp",
             nnz=lambda n_points, n_pairs, n_basis, lifted: 3 * n_pairs + n_points + n_basis * (n_points + 2),
             params={"C": [Interval(Real, 0, np.inf, closed="neither")]})
def aucsvm_l2_dual(m, C=1.0):
    w = m.pair_weights
    alpha = m.variable("alpha", m.n_pairs, lower=0, upper=np.where(w > 0, np.inf, 0.0))
    v = m.pair_incidence.T @ alpha  # v = Aᵀα: the per-point coefficients
    m.output("coef", v)
    coef = m.lift(v, name="coef")  # lifted, so that Lᵀv costs r·n nonzeros, not r·P
    ridge = np.divide(1.0, C * w, out=np.zeros_like(w), where=w > 0)  # 1/(C w_ij)
    m.minimize(0.5 * m.sum_squares(m.kernel_factor.T @ coef)
               + 0.5 * m.sum_squares(alpha, weights=ridge) - alpha.sum())
