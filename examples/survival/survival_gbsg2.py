"""Survival LP Ranker on GBSG2 (German Breast Cancer Study Group 2, 686 subjects, recurrence).

The protocol of Ataman (2007), Sec. 5.3.5, at reduced size: pooled-percentile C-index, 5-fold CV × 2
(``--full``: 10 × 5), LP Ranker (C = 1, γ = 0.05, min-max scaling in a Pipeline; ~100k pairs per
training fold, so the projected-subgradient path, capped at 400 iterations), Newton RankSVM and
Cox; paired t-tests vs Cox, time-dependent AUC, KM figure ``km_gbsg2.png``. Needs scikit-survival.

    python examples/survival_gbsg2.py
"""

from survival_whas500 import run_example

if __name__ == "__main__":
    run_example("gbsg2", method="subgradient", max_iter=400,
                description=__doc__.splitlines()[0])
