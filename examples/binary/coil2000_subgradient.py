"""The CoIL 2000 case study of Ataman (2007), Sec. 4.5, with the LP Ranker's projected subgradient.

Train on the 5,822 original training customers (348 caravan-insurance buyers), rank the 4,000
evaluation customers, count buyers among the top 20% (800). Thesis settings: RBF γ = 0.01,
C = 10, dynamic step with λ0 = 1, λ_end = 0.005, F − F_target = 0.05·F, patience h = 10, λ ÷ 1.5.
The thesis trained on 2/3 of the rows (~0.85 M pairs) at ~15 min per iteration, ~170 iterations,
and found 116 buyers (competition winner: 121; random: ~48). Here: all 5,822 rows, 1.9 M pairs.
Needs ../shared/data/coil2000 (see aucopt.datasets.load_coil2000).

    python examples/coil2000_subgradient.py
"""

import sys
import time

import numpy as np
from sklearn.preprocessing import MinMaxScaler

from aucopt import LPRanker
from aucopt.datasets import load_coil2000

try:
    X_tr, y_tr, X_ev, y_ev = load_coil2000()
except FileNotFoundError as exc:
    sys.exit(str(exc))
scaler = MinMaxScaler().fit(X_tr)
X_tr, X_ev = scaler.transform(X_tr), scaler.transform(X_ev)

# the step starts at step0, is divided by `shrink` after `patience` non-improving iterations, stops below step_min
options = {"step0": 1.0, "step_min": 0.005, "target_frac": 0.05, "patience": 10, "shrink": 1.5}
start = time.perf_counter()
model = LPRanker(C=10.0, gamma=0.01, method="subgradient", method_options=options, max_iter=2000,
                 support_threshold=1e-6)
model.fit(X_tr, y_tr)
seconds = time.perf_counter() - start
run = model.method_result_
top = np.argsort(-model.decision_function(X_ev), kind="stable")[:800]
print(f"training: {len(y_tr):,} customers, {int(y_tr.sum())} buyers, {model.n_pairs_:,} pairs")
print(f"subgradient: {run.iterations} iterations ({run.best_iteration} best) in {seconds:.1f} s "
      f"({seconds / run.iterations * 1000:.0f} ms per iteration; thesis: ~15 min per iteration)")
print(f"objective {run.objective:.2f}; evaluation AUC {model.score(X_ev, y_ev):.4f}")
print(f"buyers in the top 20% (800) of the 4,000 evaluation customers: {int(y_ev[top].sum())} "
      "(thesis LPR: 116; competition winner: 121; random: ~48)")
