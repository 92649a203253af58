"""AUC-maximizing SVM, 1-norm soft margin, dual (Brefeld & Scheffer 2005, Optimization Problem 3).

    min_α  ½ αᵀ K′ α − 1ᵀα     s.t.  0 ≤ α_ij ≤ C w_ij      (closed box: the paper's "<" is a typo)

with the pairwise kernel K′ = A K Aᵀ (A: pair incidence, +1 at i, −1 at j), never formed:
v = Aᵀα (2 nonzeros per pair) and u = Lᵀv with K = L Lᵀ give αᵀK′α = ‖u‖². The model is
f(x) = Σ_l coef_l k(x_l, x) with coef = Aᵀα (the output "coef"); w_ij are the pair weights
(1 in the paper). Over survival pairs this is the hinge-loss survival SVM.

Size (n points, P pairs, L of r columns): rows v − Aᵀα = 0 hold 2P + n nonzeros, rows
u − Lᵀv = 0 hold r·(n + 1), and the quadratic term r.

References: Brefeld, U., & Scheffer, T. (2005). AUC maximizing support vector learning.
*Proceedings of the ICML 2005 Workshop on ROC Analysis in Machine Learning*.
"""

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval

from aucopt.modeling import formulation


@formulation("aucsvm_l1_dual", kind="qp",
             nnz=lambda n_points, n_pairs, n_basis, lifted: 2 * n_pairs + n_points + n_basis * (n_points + 2),
             params={"C": [Interval(Real, 0, np.inf, closed="neither")]})
def aucsvm_l1_dual(m, C=1.0):
    alpha = m.variable("alpha", m.n_pairs, lower=0, upper=C * m.pair_weights)
    v = m.pair_incidence.T @ alpha  # v = Aᵀα: the per-point coefficients
    m.output("coef", v)
    coef = m.lift(v, name="coef")  # lifted, so that Lᵀv costs r·n nonzeros, not r·P
    m.minimize(0.5 * m.sum_squares(m.kernel_factor.T @ coef) - alpha.sum())  # ½‖Lᵀv‖² − Σα
