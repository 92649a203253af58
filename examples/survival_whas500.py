"""Survival LP Ranker on WHAS500 (Worcester Heart Attack Study), against Cox regression.

Pairs are Harrell's comparable set; y_l = +1 for observed deaths, −1 for censored subjects;
higher score = higher risk. Needs scikit-survival for the data set (pip install scikit-survival).

    python examples/survival_whas500.py
"""

import sys

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler

from aucopt import SurvivalLPRanker, harrell_c, survival_target

try:
    from sksurv.datasets import load_whas500
except ImportError:
    sys.exit("This example needs scikit-survival for the WHAS500 data: pip install scikit-survival")

X, y = load_whas500()
X = X.select_dtypes("number").to_numpy(float)  # numeric covariates only
y = survival_target(y["fstat"], y["lenfol"])
X_tr, X_te, y_tr, y_te = train_test_split(X, y, train_size=0.5, random_state=0, stratify=y["event"])
scaler = MinMaxScaler().fit(X_tr)
X_tr, X_te = scaler.transform(X_tr), scaler.transform(X_te)

model = SurvivalLPRanker(C=1.0, gamma=0.05).fit(X_tr, y_tr)
print(f"{model.n_pairs_:,} comparable pairs, {len(model.support_)} ranking vectors, "
      f"objective {model.objective_:.3f}, {model.solve_result_.wall_time:.2f} s")
print(f"LP Ranker test C-index {model.score(X_te, y_te):.4f}")

try:
    from lifelines import CoxPHFitter
    import pandas as pd
except ImportError:
    sys.exit("(install lifelines for the Cox baseline)")
frame = pd.DataFrame(X_tr).assign(time=y_tr["time"], event=y_tr["event"])
cox = CoxPHFitter(penalizer=1e-4).fit(frame, "time", "event")
print(f"Cox regression test C-index {harrell_c(y_te, np.asarray(cox.predict_log_partial_hazard(pd.DataFrame(X_te)))):.4f}")
