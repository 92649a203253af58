"""
ROC curves of AUC-maximizing rankers
====================================

Four aucopt rankers, each of which maximizes a convex surrogate of the area under the ROC
curve, next to scikit-learn's logistic regression on the Wisconsin diagnostic breast cancer
data (WDBC), malignant tumours being the positive class:

* the LP Ranker (Ataman 2007), a 1-norm kernel expansion solved as a linear program;
* the AUC-maximizing SVM (Brefeld & Scheffer 2005), a pairwise hinge-loss QP;
* RankSVM, the linear ranking SVM by truncated Newton (Chapelle & Keerthi 2010);
* RankRC (Tayal et al. 2015), a kernel ranker on the rare-class basis.

Every aucopt binary ranker is a scikit-learn classifier whose ``decision_function`` is the
ranking score, so :class:`sklearn.metrics.RocCurveDisplay` draws it as it draws any classifier.
"""

# %%
# Data
# ----
# Half of the 569 tumours for training, half for testing, stratified by diagnosis. Every model
# is a pipeline that min–max scales the features on the training half.

import matplotlib.pyplot as plt
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import RocCurveDisplay
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler

from aucopt import AUCSVM, LPRanker, RankRC, RankSVM

X, y = load_breast_cancer(return_X_y=True)
malignant = y == 0
X_train, X_test, y_train, y_test = train_test_split(X, malignant, train_size=0.5,
                                                    stratify=malignant, random_state=0)

# %%
# Fit the rankers and the baseline
# --------------------------------
# The LP Ranker and the AUC-SVM list all 39,060 positive–negative training pairs in one LP or
# QP; RankSVM and RankRC never list them (an O(m log m) pass over sorted scores).

models = {
    "LP Ranker": LPRanker(C=10.0, kernel="rbf", gamma=1.0),
    "AUC-SVM": AUCSVM(C=0.01, kernel="linear", loss="squared_hinge", method="liblinear"),
    "RankSVM": RankSVM(alpha=1e-4),
    "RankRC": RankRC(alpha=1e-3, basis="rare"),
    "logistic regression": LogisticRegression(C=10.0, max_iter=1000),
}
for name, estimator in models.items():
    models[name] = make_pipeline(MinMaxScaler(), estimator).fit(X_train, y_train)

# %%
# ROC curves
# ----------
# The right panel enlarges the top-left corner, where the models differ: the share of
# malignant tumours found while few benign ones are flagged.

fig, (ax_full, ax_zoom) = plt.subplots(1, 2, figsize=(11, 5))
for name, model in models.items():
    style = {"linestyle": "--", "color": "black"} if name == "logistic regression" else {}
    for ax in (ax_full, ax_zoom):
        RocCurveDisplay.from_estimator(model, X_test, y_test, name=name, ax=ax,
                                       curve_kwargs=style,
                                       plot_chance_level=(ax is ax_full and name == "LP Ranker"),
                                       chance_level_kw={"color": "grey", "linestyle": ":"})
ax_full.set_title("test ROC curves, WDBC (malignant = positive)")
ax_zoom.set(xlim=(0, 0.2), ylim=(0.8, 1.0), title="top-left corner")
ax_zoom.get_legend().remove()  # the same curves as on the left
fig.tight_layout()
plt.show()

# %%
# Test AUC
# --------
# The ``score`` of an aucopt ranker is the AUC itself (ties counted as one half); for the
# logistic regression it is computed with :func:`aucopt.roc_auc`.

from aucopt import roc_auc

for name, model in models.items():
    print(f"{name:20s} test AUC {roc_auc(y_test, model.decision_function(X_test)):.4f}")

# %%
# References
# ----------
# * Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming for
#   problems with binary output*. PhD thesis, University of Iowa.
# * Brefeld, U., & Scheffer, T. (2005). AUC maximizing support vector learning. *Proceedings
#   of the ICML 2005 Workshop on ROC Analysis in Machine Learning*.
# * Chapelle, O., & Keerthi, S. S. (2010). Efficient algorithms for ranking with SVMs.
#   *Information Retrieval*, 13(3), 201–215.
# * Tayal, A., Coleman, T. F., & Li, Y. (2015). RankRC: Large-scale nonlinear rare class
#   ranking. *IEEE Transactions on Knowledge and Data Engineering*, 27(12), 3347–3359.
