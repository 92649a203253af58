"""Benchmark: the fair LP Ranker (``formulations/fair_ranker.py``) — ε against held-out AUC and xAUC gap.

    python benchmarks/fair_ranker.py [--data-dir DIR] [--adult-train 400] [--seed 0]

For each data set, the LP Ranker (ε = ∞, the unconstrained baseline, fitted in the same run) and
the fair ranker at ε ∈ {0.2, 0.1, 0.05, 0.02, 0.01, 0}; linear kernel on standardized covariates,
C = 0.01, HiGHS. Reported per ε: held-out AUC, held-out xAUC gap Δ = xAUC(a, b) − xAUC(b, a)
(``aucopt.metrics.xauc``) ± 2 DeLong standard errors, the training xAUC gap and the fit seconds.

Data:
  whas500  scikit-survival's WHAS500 (``aucopt.datasets.load_survival``), outcome death within five
           years (1,825 days; subjects censored earlier dropped: 297 remain), groups = gender
           (a = male, b = female); 3-fold stratified cross-validation, held-out figures averaged
           over the folds (standard error from the per-fold DeLong variances).
  adult    a9a (LIBSVM) from the data folder, ``libsvm/adult_adult.trn.bz2`` / ``.tst.bz2``
           (skipped, saying which file is missing, when absent); groups = sex (features 72/73:
           a = female, b = male); a stratified subsample of ``--adult-train`` training rows (the LP
           lists every positive × negative pair), scored on the full 16,281-row test file.

Measured (2-core machine, seed 0, 3 m 45 s in all): WHAS500 — LP Ranker AUC 0.823, Δ −0.107 ± 0.113;
fair ε = 0.02: AUC 0.822, Δ 0.006 ± 0.109 (ε = 0: AUC 0.798, Δ 0.038). Adult — LP Ranker AUC 0.838,
Δ −0.233 ± 0.022; fair ε = 0.02: AUC 0.843, Δ −0.023 ± 0.017 (fit 35 s vs 3 s). Every ε ≤ 0.2 gives
about the same ranker: the rows count a cross-group margin beyond 1 against the bound (see the
formulation), so they bind well before the hinge gap itself reaches ε.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from aucopt import PairSet, get_formulation, solve
from aucopt.metrics import roc_auc, xauc

EPSILONS = (None, 0.2, 0.1, 0.05, 0.02, 0.01, 0.0)  # None: the LP Ranker
C = 0.01


def delong_variance(f, pos, neg):
    """DeLong et al. (1988) variance of the AUC of the scores ``f[pos]`` against ``f[neg]``."""
    ps, ns = np.sort(f[pos]), np.sort(f[neg])
    v10 = (np.searchsorted(ns, f[pos], "left") + np.searchsorted(ns, f[pos], "right")) / (2 * len(ns))
    v01 = 1 - (np.searchsorted(ps, f[neg], "left") + np.searchsorted(ps, f[neg], "right")) / (2 * len(ps))
    return np.var(v10, ddof=1) / len(ps) + np.var(v01, ddof=1) / len(ns)


def gap_variance(y, f, g, a, b):
    """Variance of Δ: xAUC(a, b) and xAUC(b, a) use disjoint samples, so their variances add."""
    return (delong_variance(f, (y == 1) & (g == a), (y == 0) & (g == b))
            + delong_variance(f, (y == 1) & (g == b), (y == 0) & (g == a)))


def fit_one(Xtr, ytr, gtr, epsilon):
    """Fit on standardized training rows; return (expansion coefficients, seconds)."""
    K, pairs = Xtr @ Xtr.T, PairSet.bipartite(ytr)
    start = time.perf_counter()
    if epsilon is None:
        problem = get_formulation("lp_ranker").build(pairs, K, C=C)
    else:
        problem = get_formulation("fair_ranker").build(pairs, K, C=C, groups=gtr, epsilon=epsilon)
    result = solve(problem, "highs")
    result.raise_for_status()
    return problem.output(result.x, "coef"), time.perf_counter() - start


def evaluate(splits):
    """splits: list of (Xtr, ytr, gtr, Xte, yte, gte); one table row per ε."""
    from sklearn.preprocessing import StandardScaler

    rows = []
    for epsilon in EPSILONS:
        auc, gap, var, train_gap, seconds = [], [], [], [], 0.0
        for Xtr, ytr, gtr, Xte, yte, gte in splits:
            scaler = StandardScaler().fit(Xtr)
            Xtr_s, Xte_s = scaler.transform(Xtr), scaler.transform(Xte)
            coef, sec = fit_one(Xtr_s, ytr, gtr, epsilon)
            f_tr, f_te = Xtr_s @ (Xtr_s.T @ coef), Xte_s @ (Xtr_s.T @ coef)
            a, b = np.unique(gtr)
            auc.append(roc_auc(yte, f_te))
            gap.append(xauc(yte, f_te, gte, group_a=a).gap)
            var.append(gap_variance(yte, f_te, gte, a, b))
            train_gap.append(xauc(ytr, f_tr, gtr, group_a=a).gap)
            seconds += sec
        k = len(splits)
        rows.append(("LP Ranker (ε = ∞)" if epsilon is None else f"fair, ε = {epsilon:g}", np.mean(auc),
                     np.mean(gap), 2 * np.sqrt(np.sum(var)) / k, np.mean(train_gap), seconds))
    return rows


def print_table(title, rows):
    print(f"\n{title}")
    print(f"{'model':<20} {'test AUC':>9} {'test Δ xAUC':>12} {'± 2 SE':>8} {'train Δ':>8} {'fit s':>7}")
    for name, auc, gap, two_se, train_gap, sec in rows:
        print(f"{name:<20} {auc:9.3f} {gap:12.3f} {two_se:8.3f} {train_gap:8.3f} {sec:7.1f}")


def whas500_splits(seed):
    import pandas as pd
    from sklearn.model_selection import StratifiedKFold
    from sksurv.datasets import load_whas500

    from aucopt.datasets import load_survival

    X, target = load_survival("whas500")
    columns = pd.get_dummies(load_whas500()[0], drop_first=True, dtype=float).columns
    gender = X[:, columns.get_loc("gender_1")]
    died = target["event"] & (target["time"] <= 1825.0)
    keep = died | (target["time"] > 1825.0)
    X, y, g = X[keep], died[keep].astype(int), gender[keep]
    folds = StratifiedKFold(3, shuffle=True, random_state=seed).split(X, 2 * y + g)
    return [(X[tr], y[tr], g[tr], X[te], y[te], g[te]) for tr, te in folds]


def adult_splits(data_dir, n_train, seed):
    from sklearn.datasets import load_svmlight_file
    from sklearn.model_selection import train_test_split

    from aucopt.datasets import get_data_dir

    files = [os.path.join("libsvm", f"adult_adult.{part}.bz2") for part in ("trn", "tst")]
    folder = get_data_dir(data_dir, required=files[0])
    get_data_dir(data_dir, required=files[1])
    (Xtr, ytr), (Xte, yte) = (load_svmlight_file(os.path.join(folder, f), n_features=123) for f in files)
    Xtr, Xte = Xtr.toarray(), Xte.toarray()
    ytr, yte = (ytr > 0).astype(int), (yte > 0).astype(int)
    gtr, gte = Xtr[:, 72], Xte[:, 72]  # a9a feature 73 (1-based): male; feature 72: female
    strat = 2 * ytr + gtr
    sub, _ = train_test_split(np.arange(len(ytr)), train_size=n_train, stratify=strat, random_state=seed)
    return [(Xtr[sub], ytr[sub], gtr[sub], Xte, yte, gte)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None, help="folder holding libsvm/adult_adult.*.bz2")
    parser.add_argument("--adult-train", type=int, default=400, help="training rows subsampled from a9a")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print_table("WHAS500, death within 5 years, groups = gender (a = male, b = female); 3-fold CV",
                evaluate(whas500_splits(args.seed)))
    try:
        splits = adult_splits(args.data_dir, args.adult_train, args.seed)
    except FileNotFoundError as exc:
        print(f"\nadult (a9a): skipped — {exc}")
        return
    print_table(f"adult (a9a), income > 50K, groups = sex (a = female, b = male); {args.adult_train} training "
                "rows, full test file", evaluate(splits))


if __name__ == "__main__":
    main()
