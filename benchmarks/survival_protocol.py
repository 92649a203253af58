"""Ataman (2007), Tables 5.2 / 5.3 style comparison on the public survival sets (protocol of Sec. 5.3.5).

For each data set: pooled-percentile C-index by repeated stratified k-fold CV (test scores →
training percentiles with strict ``<``, folds pooled per repetition, Harrell's C with ties ½) for

* LPR    — SurvivalLPRanker (C = 1, RBF γ = 0.05, thesis Table 5.1 WPBC/SEER row), Harrell's pairs;
* LPRex  — the same plus censored–censored pairs with weight 0.5 (Table 5.3);
* Cox    — CoxPH (lifelines, ridge alpha = 0.01), when lifelines is installed;
* FSSVM  — scikit-survival ``FastSurvivalSVM(rank_ratio=1, fit_intercept=False)``, when installed.
  Its ``predict`` is already a risk for rank_ratio = 1 (Harrell's C of predict on WHAS500 is
  0.79, not 0.21), so it is passed as is; ``--check-sign`` re-verifies this on the first data set.

All features are min-max scaled inside each training fold (after dropping fold-constant
columns). Paired t-tests by repetition (df = R − 1): Table 5.2 = LPR vs Cox (and vs FSSVM),
Table 5.3 = LPR vs LPRex. Nothing is hard-coded: the script prints what it measured.

Defaults are a reduced protocol (5 folds × 2, LP by projected subgradient capped at 400
iterations, flchain subsampled to 800 subjects with the leaking ``chapter`` column dropped);
the thesis protocol is ``--splits 10 --repeats 5 --method full`` (the full LP takes minutes per
fold on whas500/gbsg2; ``--method chunking`` is exact and usually faster).

    python benchmarks/survival_protocol.py
    python benchmarks/survival_protocol.py --splits 10 --repeats 5 --method chunking --flchain-n 2000
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import VarianceThreshold
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler

from aucopt import SurvivalLPRanker, harrell_c, survival_target
from aucopt.datasets import load_survival
from aucopt.pairs import PairSet
from aucopt.survival import CoxPH, compare_methods, pooled_cindex_cv

DATASETS = ("whas500", "gbsg2", "veterans", "flchain")


class NegatedRisk(BaseEstimator):
    """Wrap an estimator whose ``predict`` means longer survival, so that higher = higher risk."""

    def __init__(self, estimator):
        self.estimator = estimator

    def fit(self, X, y):
        from sklearn.base import clone

        self.estimator_ = clone(self.estimator).fit(X, y)
        return self

    def predict(self, X):
        return -np.asarray(self.estimator_.predict(X), dtype=float)


def load(name, flchain_n, seed):
    if name != "flchain":
        return load_survival(name)
    import pandas as pd
    from sksurv.datasets import load_flchain

    frame, target = load_flchain()  # 'chapter' = cause of death, only for the deceased: leaks
    frame = pd.get_dummies(frame.drop(columns=["chapter"]), drop_first=True, dtype=float)
    keep = ~frame.isna().any(axis=1).to_numpy()
    X = frame.to_numpy(float)[keep]
    y = survival_target(np.asarray(target["death"], bool)[keep], np.asarray(target["futime"], float)[keep])
    if flchain_n and flchain_n < len(y):
        idx = np.sort(train_test_split(np.arange(len(y)), train_size=flchain_n, random_state=seed,
                                       stratify=y["event"])[0])
        X, y = X[idx], y[idx]
    return X, y


def pipe(model):
    return make_pipeline(VarianceThreshold(), MinMaxScaler(), model)


def methods_for(args, fssvm_negate):
    max_iter = args.max_iter if args.method == "subgradient" else None
    threshold = 1e-3 if args.method == "subgradient" else 1e-8
    out = {
        "LPR": pipe(SurvivalLPRanker(C=args.C, gamma=args.gamma, method=args.method, max_iter=max_iter,
                                     support_threshold=threshold)),
        "LPRex": pipe(SurvivalLPRanker(C=args.C, gamma=args.gamma, method=args.method, max_iter=max_iter,
                                       support_threshold=threshold, pair_options={"variant": "lprex"})),
    }
    try:
        import lifelines  # noqa: F401

        out["Cox"] = pipe(CoxPH(alpha=0.01))
    except ImportError:
        print("(lifelines not installed: no Cox baseline)")
    try:
        from sksurv.svm import FastSurvivalSVM

        fs = FastSurvivalSVM(alpha=args.fssvm_alpha, rank_ratio=1.0, fit_intercept=False, max_iter=100,
                             random_state=0)
        out["FSSVM"] = pipe(NegatedRisk(fs) if fssvm_negate else fs)
    except ImportError:
        print("(scikit-survival not installed: no FastSurvivalSVM baseline)")
    return out


def fssvm_is_risk(X, y):
    """True when FastSurvivalSVM(rank_ratio=1).predict orders like a risk (C > 0.5 on training data)."""
    from sksurv.svm import FastSurvivalSVM

    Xs = MinMaxScaler().fit_transform(VarianceThreshold().fit_transform(X))
    fs = FastSurvivalSVM(alpha=1.0, rank_ratio=1.0, fit_intercept=False, max_iter=100, random_state=0).fit(Xs, y)
    c = harrell_c(y, fs.predict(Xs))
    print(f"FastSurvivalSVM(rank_ratio=1) sign check: Harrell's C of predict = {c:.4f} "
          f"({'risk, used as is' if c > 0.5 else 'survival-like, negated'})")
    return c > 0.5


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    p.add_argument("--splits", type=int, default=5)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--method", default="subgradient", choices=("full", "chunking", "subgradient"))
    p.add_argument("--max-iter", type=int, default=400, help="subgradient iteration cap")
    p.add_argument("--C", type=float, default=1.0)
    p.add_argument("--gamma", type=float, default=0.05)
    p.add_argument("--fssvm-alpha", type=float, default=1.0)
    p.add_argument("--flchain-n", type=int, default=800, help="flchain subsample (0 = all, ~10M pairs)")
    p.add_argument("--check-sign", action="store_true", help="verify FastSurvivalSVM's sign on the data")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.repeats < 2:
        p.error("--repeats must be >= 2 for the paired t-tests")

    negate = False
    summary = []
    for d, name in enumerate(args.datasets):
        X, y = load(name, args.flchain_n, args.seed)
        if args.check_sign and d == 0:
            negate = not fssvm_is_risk(X, y)
        print(f"\n== {name}: {len(y)} subjects, {int(y['event'].sum())} events, {X.shape[1]} covariates, "
              f"{PairSet.survival(y).n_pairs:,} pairs; {args.splits}-fold × {args.repeats}, LP {args.method}")
        res = {}
        methods = methods_for(args, negate)
        if "FSSVM" in methods and y["time"].min() <= 0:
            del methods["FSSVM"]
            print("  (FastSurvivalSVM skipped: it refuses times <= 0, which this data set has)")
        for label, est in methods.items():
            start = time.perf_counter()
            res[label] = pooled_cindex_cv(est, X, y, n_splits=args.splits, n_repeats=args.repeats,
                                          random_state=args.seed, verbose=0)
            print(f"  {label:6} pooled C {res[label].mean:.4f} ± {res[label].std:.4f}  "
                  f"(mean fold C {np.nanmean(res[label].fold_c):.4f}, {time.perf_counter() - start:.1f} s)",
                  flush=True)
        for a, b in (("LPR", "Cox"), ("LPR", "FSSVM"), ("LPR", "LPRex")):
            if a in res and b in res:
                cmp = compare_methods(res[a], res[b])
                print(f"  {a} vs {b}: {cmp}")
                summary.append((name, a, b, cmp))
    print("\nsummary (paired t-test by repetition)")
    print(f"{'data':9} {'A vs B':14} {'mean A':>7} {'mean B':>7} {'p':>8}")
    for name, a, b, cmp in summary:
        print(f"{name:9} {a + ' vs ' + b:14} {cmp.mean_a:7.4f} {cmp.mean_b:7.4f} {cmp.pvalue:8.4g}")


if __name__ == "__main__":
    main()
