"""Survival LP Ranker on WHAS500 (Worcester Heart Attack Study) with the protocol of Ataman (2007), Sec. 5.3.5.

Pooled-percentile C-index by repeated stratified k-fold CV (reduced here to 5 folds × 2 repetitions;
``--full`` gives the thesis's 10 × 5) for the LP Ranker (thesis Table 5.1: C = 1, RBF γ = 0.05,
min-max scaling fitted inside each training fold, after dropping columns constant in the fold —
rare one-hot levels otherwise break lifelines' Cox fit), the linear Newton RankSVM and Cox regression;
paired t-tests vs Cox, time-dependent AUC at event-time quartiles, and a Kaplan–Meier figure of
the top 10 % vs the rest written to the current directory. Needs scikit-survival for the data.

    python examples/survival_whas500.py [--splits 5 --repeats 2 | --full]

This file also holds ``run_example``, used by the gbsg2 / veterans / flchain examples.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np


def _subsample(X, y, n, seed):
    """Stratified (on the event indicator) random subsample of n subjects."""
    from sklearn.model_selection import train_test_split

    if n is None or n >= len(y):
        return X, y
    idx, _ = train_test_split(np.arange(len(y)), train_size=n, random_state=seed, stratify=y["event"])
    idx = np.sort(idx)
    return X[idx], y[idx]


def load_flchain_without_leak():
    """FLCHAIN as ``load_survival("flchain")`` but without ``chapter`` (the ICD chapter of the
    cause of death: defined only for subjects who died, so it leaks the event indicator)."""
    import pandas as pd
    from sksurv.datasets import load_flchain

    from aucopt import survival_target

    frame, target = load_flchain()
    frame = pd.get_dummies(frame.drop(columns=["chapter"]), drop_first=True, dtype=float)
    keep = ~frame.isna().any(axis=1).to_numpy()
    return frame.to_numpy(float)[keep], survival_target(np.asarray(target["death"], bool)[keep],
                                                        np.asarray(target["futime"], float)[keep])


def run_example(name, *, C=1.0, gamma=0.05, method="subgradient", max_iter=None,
                subsample=None, description=None, argv=None, loader=None):
    from sklearn.pipeline import make_pipeline
    from sklearn.feature_selection import VarianceThreshold
    from sklearn.preprocessing import MinMaxScaler

    from aucopt import SurvivalLPRanker, SurvivalRankSVM
    from aucopt.datasets import load_survival
    from aucopt.pairs import PairSet
    from aucopt.survival import (comparison_table, evaluate_methods, plot_risk_groups, save_figure,
                                 time_dependent_auc)

    parser = argparse.ArgumentParser(description=description or f"survival protocol on {name}")
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--full", action="store_true", help="thesis protocol: 10 folds × 5 repetitions")
    parser.add_argument("--subsample", type=int, default=subsample,
                        help="stratified subsample size (default: %(default)s = all subjects)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.full:
        args.splits, args.repeats = 10, 5

    try:
        X, y = loader() if loader is not None else load_survival(name)
    except ImportError:
        sys.exit(f"This example needs scikit-survival for the {name} data: pip install scikit-survival")
    X, y = _subsample(X, y, args.subsample, args.seed)
    n_pairs = PairSet.survival(y).n_pairs
    print(f"{name}: {len(y)} subjects, {int(y['event'].sum())} events, {X.shape[1]} covariates, "
          f"{n_pairs:,} comparable pairs; {args.splits}-fold CV × {args.repeats}")

    threshold = 1e-3 if method == "subgradient" else 1e-8
    methods = {
        "LPR": make_pipeline(VarianceThreshold(), MinMaxScaler(), SurvivalLPRanker(
            C=C, gamma=gamma, method=method, max_iter=max_iter, support_threshold=threshold)),
        "Newton": make_pipeline(VarianceThreshold(), MinMaxScaler(), SurvivalRankSVM(alpha=1e-3)),
    }
    try:
        from aucopt.survival import CoxPH
        import lifelines  # noqa: F401

        methods["Cox"] = make_pipeline(VarianceThreshold(), MinMaxScaler(), CoxPH(alpha=0.01))
    except ImportError:
        print("(lifelines is not installed: no Cox baseline; pip install 'aucopt[survival]')")

    results = evaluate_methods(methods, X, y, n_splits=args.splits, n_repeats=args.repeats,
                               random_state=args.seed, verbose=0)
    print(comparison_table(results, baseline="Cox" if "Cox" in results else None))
    if args.repeats < 2:
        print("(paired t-tests need at least 2 repetitions)")

    # time-dependent AUC of the pooled percentiles (repetition 1) at the event-time quartiles
    try:
        import sksurv  # noqa: F401

        event_times = y["time"][y["event"]]
        times = np.quantile(event_times, [0.25, 0.5, 0.75])
        times = times[times < y["time"].max()]
        print("time-dependent AUC (cumulative/dynamic) of the pooled ordering at t = "
              + ", ".join(f"{t:g}" for t in times))
        for label, res in results.items():
            auc_t, mean_auc = time_dependent_auc(y, y, res.percentiles[0], times)
            print(f"  {label:8} " + "  ".join(f"{a:.4f}" for a in auc_t) + f"   mean {mean_auc:.4f}")
    except ImportError:
        print("(scikit-survival is not installed: no time-dependent AUC)")

    try:
        fig = plot_risk_groups(y["time"], y["event"], {k: r.percentiles[0] for k, r in results.items()},
                               top=10, title=f"{name}: top 10% vs rest (pooled CV, repetition 1)")
        print(f"Kaplan–Meier figure: {save_figure(fig, f'km_{name}.png')}")
    except ImportError:
        print("(matplotlib is not installed: no Kaplan–Meier figure)")
    return results


if __name__ == "__main__":
    run_example("whas500", description=__doc__.splitlines()[0])
