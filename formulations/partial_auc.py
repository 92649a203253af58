"""Partial AUC over FPR ∈ [0, β]: per positive, the k = ⌈β n_neg⌉ largest pairwise hinge losses.

    min_{α ≥ 0}  Σ_l α_l + C / (n_pos k) · Σ_{i ∈ pos} Σ_{k largest over j ∈ neg} (1 − f(x_i) + f(x_j))_+

with the LP Ranker's kernel expansion f(x) = Σ_l y_l α_l k(x, x_l). The hinge
(1 − f_i + f_j)_+ grows with f_j, so every positive's k largest hinge losses are those against
the same k highest-scored negatives — the negatives in the false-positive rates [0, β], the only
ones the partial AUC pAUC(0, β) counts. The loss is therefore

    (1 / (n_pos k)) Σ_{i ∈ pos} Σ_{j ∈ Z_k(f)} (1 − f_i + f_j)_+
        =  max_{|Z| = k} (1 / (n_pos k)) Σ_{i ∈ pos} Σ_{j ∈ Z} (1 − f_i + f_j)_+,

Z_k(f) the k top-scored negatives: convex (a maximum of convex functions) and, each hinge
bounding the indicator 1[f_i ≤ f_j], an upper bound of the partial-AUC error of the top k
negatives, 1 − pAUC(0, k / n_neg) / (k / n_neg). As an LP it is
``m.sum_largest(m.positive_part(h), k, groups=...)`` with h_ij = 1 − f_i + f_j and one group
per positive:

    Σ_{k largest j} (h_ij)_+ = min_{τ_i, u, z}  k τ_i + Σ_j u_ij   s.t.  u_ij ≥ z_ij − τ_i,  u_ij ≥ 0,
                                                                 z_ij ≥ h_ij,  z_ij ≥ 0

(Ogryczak & Tamir 2003; the CVaR form of Rockafellar & Uryasev 2000). At β = 1 (k = n_neg) the
loss is the mean of all pairwise hinges: the LP Ranker with C_LP = C / (n_pos n_neg).

Relation to Narasimhan & Agarwal (2013): their structural SVM surrogate for pAUC(0, β) is the
structural hinge of Joachims (2005) over S_pos × Z, maximized over the subsets Z of ⌈β n_neg⌉
negatives, and optimized by a cutting-plane method. This LP takes the same maximum over Z of
the pairwise (decomposed) hinge instead of the structural one: the surrogate the structural
hinge reduces to for the full AUC, up to the scale of the margin. Their follow-up
(SVMpAUC-tight, KDD 2013) builds a tighter structural surrogate; this LP is not that one.

Bipartite pairs only (the complete, unweighted positive × negative set).

Size: lifted, score rows n·(m + 1) nonzeros, then per pair a hinge row z_ij + s_i − s_j ≥ 1
(3 nonzeros) and an excess row u_ij − z_ij + τ_i ≥ 0 (3 nonzeros): n·(m + 1) + 6P; dense, the
hinge rows hold the m entries of K_i − K_j and z_ij: P·(m + 4).

References: Narasimhan, H., & Agarwal, S. (2013). A structural SVM based approach for optimizing
partial AUC. *Proceedings of the 30th International Conference on Machine Learning (ICML 2013)*,
PMLR 28(1), 516–524; Narasimhan, H., & Agarwal, S. (2013). SVMpAUC-tight: a new support vector
method for optimizing partial AUC based on a tight convex upper bound. *Proceedings of the 19th
ACM SIGKDD International Conference on Knowledge Discovery and Data Mining (KDD 2013)*, 167–175;
Ogryczak, W., & Tamir, A. (2003). Minimizing the sum of the k largest functions in linear time.
*Information Processing Letters*, 85(3), 117–122.
"""

import math
from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval

from aucopt.modeling import formulation


@formulation("partial_auc", kind="lp",
             nnz=lambda n_points, n_pairs, n_basis, lifted:
             n_points * (n_basis + 1) + 6 * n_pairs if lifted else n_pairs * (n_basis + 4),
             params={"C": [Interval(Real, 0, np.inf, closed="neither")],
                     "beta": [Interval(Real, 0, 1, closed="right")]})  # the largest FPR; 1: the full AUC
def partial_auc(m, C=1.0, beta=0.1):
    m.check_bipartite("partial_auc")  # positives over negatives, unweighted
    n_pos, n_neg = len(m.positives), len(m.negatives)
    k = math.ceil(round(beta * n_neg, 9))  # negatives in FPR [0, beta]
    alpha = m.variable("alpha", m.n_basis, lower=0)  # ranking-vector weights
    f = m.scores(alpha, signed=True)  # f = K Y α (lifted to score variables)
    i, _ = m.pair_index
    hinge = m.positive_part(1 - m.pair_difference(f), name="z")  # z_ij ≥ (1 − f_i + f_j)_+
    top = m.sum_largest(hinge, k, groups=np.searchsorted(m.positives, i), name="top")  # per positive
    m.minimize(alpha.sum() + C / (n_pos * k) * top.sum())
