"""
Regularization paths: RankSVM penalties and SparseAUC basis sizes
=================================================================

Two ways aucopt traces a family of models in one fit, on the Wisconsin breast cancer data:

* :class:`~aucopt.RankSVM` (Chapelle & Keerthi 2010) solves a decreasing sequence of penalties
  ``alpha_path``, each Newton solve warm-started at the previous solution; ``path_`` keeps every
  weight vector.
* :class:`~aucopt.SparseAUC` (Kakkar et al. 2017) grows a kernel basis one point at a time;
  ``path_`` records the objective and the validation AUC after each addition, and the model
  with the best validation AUC is returned.
"""

# %%
# Data
# ----
# Standardized features, so that the weights of different features are comparable.

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from aucopt import RankSVM, SparseAUC, roc_auc

data = load_breast_cancer()
malignant = data.target == 0
X_train, X_test, y_train, y_test = train_test_split(data.data, malignant, train_size=0.5,
                                                    stratify=malignant, random_state=0)
scaler = StandardScaler().fit(X_train)
X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)

# %%
# A warm-started penalty path
# ---------------------------
# RankSVM minimizes the mean squared hinge over positive–negative pairs plus (α/2)‖w‖². The 29
# penalties from α = 10 down to 10⁻⁶ take a few Newton iterations each, thanks to the warm
# starts; the last value is the estimator's own ``alpha``.

alphas = np.logspace(1, -6, 29)
ranker = RankSVM(alpha=alphas[-1]).fit(X_train, y_train, alpha_path=alphas[:-1])
path_alphas = np.array([record["alpha"] for record in ranker.path_])
coefs = np.array([record["coef"] for record in ranker.path_])
print(f"{len(ranker.path_)} penalties, {sum(r['iterations'] for r in ranker.path_)} Newton "
      "iterations in all")

train_auc = [roc_auc(y_train, X_train @ w) for w in coefs]
test_auc = [roc_auc(y_test, X_test @ w) for w in coefs]

# %%
# As the penalty shrinks the training AUC climbs to 1 while the test AUC peaks and then falls:
# the ranker starts to fit noise. In practice α is chosen by cross-validation
# (:class:`~sklearn.model_selection.GridSearchCV` scores a ranker by its AUC). The five
# features with the largest weights at the smallest penalty are named.

fig, (ax_auc, ax_coef) = plt.subplots(1, 2, figsize=(11, 4.5), sharex=True)
ax_auc.semilogx(path_alphas, train_auc, "o-", markersize=3, label="training")
ax_auc.semilogx(path_alphas, test_auc, "o-", markersize=3, label="test")
ax_auc.set(xlabel="α", ylabel="AUC", title="RankSVM: AUC along the path")
ax_auc.legend()

top = np.argsort(-np.abs(coefs[-1]))[:5]
for k in range(coefs.shape[1]):
    named = k in top
    ax_coef.semilogx(path_alphas, coefs[:, k], color=None if named else "lightgrey",
                     linewidth=1.5 if named else 0.8, zorder=2 if named else 1,
                     label=data.feature_names[k] if named else None)
ax_coef.set(xlabel="α", ylabel="weight", title="RankSVM: weights along the path")
ax_coef.legend(fontsize="small")
ax_coef.invert_xaxis()  # shared axis: strong penalty on the left for both panels
fig.tight_layout()
plt.show()

# %%
# A greedy basis-size path
# ------------------------
# SparseAUC holds out 20% of the training rows and stops once ``n_iter_no_change`` validation
# checks fail to improve the best AUC; it returns the basis with the best validation AUC.
# ``retrain="always"`` re-optimizes all coefficients after every addition so that every step
# is validated.

sparse = SparseAUC(C=1.0, basis_size=80, retrain="always", n_iter_no_change=20)
sparse.fit(X_train, y_train)
sizes = [record["n_basis"] for record in sparse.path_]
print(f"grew {len(sizes)} basis vectors, kept {len(sparse.support_)}: validation AUC "
      f"{sparse.val_score_:.4f}, test AUC {sparse.score(X_test, y_test):.4f}")

fig, ax_obj = plt.subplots(figsize=(6, 4))
ax_obj.plot(sizes, [record["objective"] for record in sparse.path_], "o-", markersize=3,
            color="C0")
ax_obj.set(xlabel="basis size |J|", yscale="log",
           title="SparseAUC: basis-size path")
ax_obj.set_ylabel("training objective E", color="C0")
ax_val = ax_obj.twinx()
ax_val.plot(sizes, [record["val_score"] for record in sparse.path_], "s-", markersize=3,
            color="C1")
ax_val.set_ylabel("validation AUC", color="C1")
ax_val.axvline(len(sparse.support_), color="grey", linestyle=":",
               label=f"kept: {len(sparse.support_)} basis vectors")
ax_val.legend(loc="center right")
fig.tight_layout()
plt.show()

# %%
# References
# ----------
# * Chapelle, O., & Keerthi, S. S. (2010). Efficient algorithms for ranking with SVMs.
#   *Information Retrieval*, 13(3), 201–215.
# * Kakkar, V., Shevade, S., Sundararajan, S., & Garg, D. (2017). A sparse non-linear
#   classifier design using AUC optimization. *Proceedings of the 2017 SIAM International
#   Conference on Data Mining*, 291–299.
