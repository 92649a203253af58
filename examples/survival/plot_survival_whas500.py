"""
Survival LP Ranker on WHAS500: pooled C-index and Kaplan–Meier risk groups
==========================================================================

The evaluation protocol of Ataman (2007), Sec. 5.3.5, on the Worcester Heart Attack Study
(WHAS500: 500 patients, 215 deaths, 14 covariates; shipped with scikit-survival). Each model
scores the test fold of a repeated stratified k-fold cross-validation; each test score becomes
its percentile among the training scores, so the percentiles of all folds form one ordering
of the whole cohort, scored by Harrell's C (the *pooled* C-index). The survival LP Ranker is
compared with the linear Newton ranking SVM and Cox regression by paired t-tests, and the top
10% of each pooled ordering is set against the rest with Kaplan–Meier curves.
"""

# %%
# Data and models
# ---------------
# ``load_survival`` one-hot encodes the categorical covariates and returns a structured
# survival target (``event``, ``time``). Every model is a pipeline fitted inside each training
# fold: columns constant in the fold are dropped (rare levels would otherwise break the Cox
# fit), then the covariates are min–max scaled. The LP Ranker uses the thesis's settings
# (Table 5.1: C = 1, RBF γ = 0.05) and, with ~48,000 comparable pairs per training fold, the
# projected-subgradient path; it stops once its step falls below ``step_min = 0.05``, ten times
# the thesis's 0.005, which here is several times faster for the same pooled C-index.

import matplotlib.pyplot as plt
from sklearn.feature_selection import VarianceThreshold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler

from aucopt import SurvivalLPRanker, SurvivalRankSVM
from aucopt.datasets import load_survival
from aucopt.survival import CoxPH, comparison_table, evaluate_methods, plot_risk_groups

X, y = load_survival("whas500")
print(f"WHAS500: {len(y)} patients, {y['event'].sum()} deaths, {X.shape[1]} covariates")


def pipeline(model):
    return make_pipeline(VarianceThreshold(), MinMaxScaler(), model)


methods = {
    "LP Ranker": pipeline(SurvivalLPRanker(C=1.0, gamma=0.05, method="subgradient",
                                           method_options={"step_min": 0.05},
                                           support_threshold=1e-3)),
    "RankSVM": pipeline(SurvivalRankSVM(alpha=1e-3)),
    "Cox": pipeline(CoxPH(alpha=0.01)),
}

# %%
# Pooled C-index by repeated cross-validation
# -------------------------------------------
# Five folds repeated twice keep this example fast; the thesis uses 10 folds repeated 5
# times (``n_splits=10, n_repeats=5``). The p-values are paired t-tests of each model's pooled
# C against Cox's over the repetitions, so with two repetitions they are only indicative.

results = evaluate_methods(methods, X, y, n_splits=5, n_repeats=2, random_state=0)
print(comparison_table(results, baseline="Cox"))

# %%
# Kaplan–Meier curves of the predicted risk groups
# ------------------------------------------------
# The patients each model ranks in its top 10% (pooled percentiles of the first repetition)
# against the other 90%; shaded bands are 95% pointwise confidence intervals, the legend gives
# Gehan's generalized Wilcoxon test of the two groups, and the table the number at risk.

fig, ax = plt.subplots(figsize=(10, 6), layout="constrained")
plot_risk_groups(y["time"], y["event"],
                 {name: results[name].percentiles[0] for name in ("LP Ranker", "Cox")},
                 top=10, time_unit="days", ax=ax,
                 title="WHAS500: top 10% predicted risk vs the rest")
plt.show()

# %%
# Reference
# ---------
# Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming for
# problems with binary output*. PhD thesis, University of Iowa, Ch. V.
