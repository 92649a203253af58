"""Survival LP Ranker on FLCHAIN (serum free light chain study, death).

The ``chapter`` column (cause of death, defined only for the deceased) is dropped: it leaks the
event indicator (``aucopt.datasets.load_survival('flchain')`` keeps it).

The whole set has ~10M comparable pairs, so the default run uses a stratified subsample of 800
subjects (``--subsample N``; ``--subsample 100000`` = all) and the projected-subgradient LP Ranker
(C = 1, γ = 0.05, min-max scaling in a Pipeline). The protocol of Ataman (2007), Sec. 5.3.5, at reduced size: pooled C,
5-fold CV × 2 (``--full``: 10 × 5), Newton RankSVM and Cox, paired t-tests vs Cox,
time-dependent AUC, KM figure ``km_flchain.png``. Needs scikit-survival for the data.

    python examples/survival_flchain.py [--subsample 800]
"""

from survival_whas500 import load_flchain_without_leak, run_example

if __name__ == "__main__":
    run_example("flchain", method="subgradient", max_iter=400, subsample=800,
                loader=load_flchain_without_leak,
                description=__doc__.splitlines()[0])
