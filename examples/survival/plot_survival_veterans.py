"""Survival LP Ranker on the Veterans' Administration lung cancer trial (137 subjects, 128 deaths).

The protocol of Ataman (2007), Sec. 5.3.5, at reduced size: pooled-percentile C-index, 5-fold CV × 2
(``--full``: 10 × 5), LP Ranker (C = 1, γ = 0.05, min-max scaling in a Pipeline), Newton RankSVM
and Cox; paired t-tests vs Cox, time-dependent AUC, KM figure ``km_veterans.png``. Small enough
for the exact full LP. Needs scikit-survival for the data.

    python examples/survival_veterans.py
"""

from survival_whas500 import run_example

if __name__ == "__main__":
    run_example("veterans", method="full", description=__doc__.splitlines()[0])
