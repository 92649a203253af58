"""Benchmark: the LP Ranker's scalable paths, in the shape of the Ch. IV tables of Ataman (2007).

* Table 4.1/4.2 — chunking (constraint generation): passes, retained constraints, % reduction,
  time vs the full LP (same objective: chunking is exact);
* Table 4.3/4.4 — local clustering (variants b, bp, f): points and constraints before/after,
  time vs the full LP;
* Table 4.5 — test AUC of the full LP vs clustering vs subgradient over random splits;
* Fig. 4.6 — as the number of points grows: time and peak memory of the full LP, clustering and
  subgradient (each in its own process; the full LP stops at the memory limit).

Data: scikit-learn's WDBC (breast cancer) and digits (one digit vs the rest, subsampled), min-max
scaled, RBF γ = 1, C = 10 (thesis grid values); all shipped with scikit-learn.

    python benchmarks/lp_ranker_scale.py [--splits 5] [--sizes 250 500 1000 2000 4000 8000]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from _harness import peak_mb, sweep

C, GAMMA = 10.0, 1.0


def dataset(name: str, seed: int = 0):
    from sklearn.datasets import load_breast_cancer, load_digits

    if name == "wdbc":
        X, y = load_breast_cancer(return_X_y=True)
        return X, (y == 0).astype(int)
    X, y = load_digits(return_X_y=True)
    keep = np.random.default_rng(seed).permutation(len(y))[:600]
    return X[keep], (y[keep] == int(name[-1])).astype(int)  # e.g. "digits8": 8 vs the rest


def split(X, y, seed, train=0.8):
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import MinMaxScaler

    X_tr, X_te, y_tr, y_te = train_test_split(X, y, train_size=train, stratify=y, random_state=seed)
    scaler = MinMaxScaler().fit(X_tr)
    return scaler.transform(X_tr), scaler.transform(X_te), y_tr, y_te


def fit(method, X, y, **options):
    from aucopt import LPRanker

    start = time.perf_counter()
    model = LPRanker(C=C, gamma=GAMMA, method=method, method_options=options or None,
                     support_threshold=1e-3 if method == "subgradient" else 1e-8).fit(X, y)
    return model, time.perf_counter() - start


def tables(names, n_splits):
    print("Table 4.1/4.2 — chunking (5 random chunks; scheme 2 keeps the 1000 most violated per chunk)")
    print(f"{'data':9} {'pairs':>7} | {'full s':>7} | {'s1 pass':>7} {'kept':>6} {'%red':>6} {'s1 s':>6} | "
          f"{'s2 pass':>7} {'kept':>6} {'%red':>6} {'s2 s':>6} | objective rel. diff (s1, s2)")
    for name in names:
        X_tr, _, y_tr, _ = split(*dataset(name), seed=0)
        full, t_full = fit("full", X_tr, y_tr)
        row = f"{name:9} {full.n_pairs_:7,d} | {t_full:7.2f} |"
        diffs = []
        for scheme in (1, 2):
            model, t = fit("chunking", X_tr, y_tr, scheme=scheme)
            run = model.method_result_
            red = 100 * (1 - run.n_constraints / full.n_pairs_)
            row += f" {run.passes:7d} {run.n_constraints:6d} {red:6.1f} {t:6.2f} |"
            diffs.append(abs(model.objective_ - full.objective_) / full.objective_)
        print(row + f" {diffs[0]:.1e}, {diffs[1]:.1e}")

    print("\nTable 4.3/4.4 — local clustering (points and constraints after reduction; LP time incl. clustering)")
    print(f"{'data':9} {'points':>6} {'pairs':>7} {'full s':>7} | " + " | ".join(
        f"{v:>2}: {'pts':>4} {'pairs':>6} {'%red':>5} {'s':>5} {'×':>5}" for v in ("b", "bp", "f")))
    for name in names:
        X_tr, _, y_tr, _ = split(*dataset(name), seed=0)
        full, t_full = fit("full", X_tr, y_tr)
        cells = []
        for variant in ("b", "bp", "f"):
            model, t = fit("clustering", X_tr, y_tr, variant=variant)
            (_, pts), (pairs_before, pairs_after) = model.reduction_["points"], model.reduction_["pairs"]
            cells.append(f"{variant:>2}: {pts:4d} {pairs_after:6d} {100 * (1 - pairs_after / pairs_before):5.1f} "
                         f"{t:5.2f} {t_full / t:5.1f}")
        print(f"{name:9} {len(y_tr):6d} {full.n_pairs_:7,d} {t_full:7.2f} | " + " | ".join(cells))

    print(f"\nTable 4.5 — test AUC, mean (sd) over {n_splits} random 80/20 splits")
    print(f"{'data':9} | {'LP':>15} | {'LP(clus b)':>15} | {'LP(clus f)':>15} | {'LP(sub)':>15}")
    for name in names:
        X, y = dataset(name)
        aucs = {k: [] for k in ("full", "b", "f", "sub")}
        for seed in range(n_splits):
            X_tr, X_te, y_tr, y_te = split(X, y, seed)
            aucs["full"].append(fit("full", X_tr, y_tr)[0].score(X_te, y_te))
            aucs["b"].append(fit("clustering", X_tr, y_tr, variant="b")[0].score(X_te, y_te))
            aucs["f"].append(fit("clustering", X_tr, y_tr, variant="f")[0].score(X_te, y_te))
            aucs["sub"].append(fit("subgradient", X_tr, y_tr)[0].score(X_te, y_te))
        print(f"{name:9} | " + " | ".join(f"{np.mean(v):.4f} ({np.std(v):.4f})" for v in aucs.values()))


def synthetic(n: int, seed: int = 0):
    """Two noisy interleaved half-moons in 10-d (nearly balanced), min-max scaled."""
    from sklearn.datasets import make_moons
    from sklearn.preprocessing import minmax_scale

    X2, y = make_moons(n, noise=0.3, random_state=seed)
    X = np.hstack([X2, np.random.default_rng(seed).normal(scale=0.3, size=(n, 8))])
    return minmax_scale(X), y


def run_one(method: str, n: int) -> dict:
    X, y = synthetic(n)
    model, seconds = fit(method, X, y)
    return {"seconds": seconds, "peak_mb": peak_mb(), "objective": model.objective_,
            "pairs": int(model.n_pairs_), "train_auc": model.score(X, y)}


def growth(sizes, time_limit):
    print("\nFig. 4.6 — as points grow (two-moons, 10-d): seconds / peak MB / training AUC")
    print(f"{'points':>6} {'pairs':>11} | " + " | ".join(f"{m:^24}" for m in ("full", "clustering", "subgradient")))
    for n, rows in sweep(__file__, ("full", "clustering", "subgradient"), sizes, time_limit):
        pairs = next((r["pairs"] for r in rows.values() if "pairs" in r), 0)
        cells = [f"{r['seconds']:8.2f} s {r['peak_mb']:6.0f} MB {r['train_auc']:.3f}" if "seconds" in r
                 else f"{r['status'][:24]:>24}" for r in rows.values()]
        print(f"{n:6d} {pairs:11,d} | " + " | ".join(cells), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="+", default=["wdbc", "digits8", "digits3"])
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="*", default=[250, 500, 1000, 2000, 4000, 8000])
    parser.add_argument("--time-limit", type=float, default=600.0)
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one[0], int(args.one[1]))))
        return
    print(f"LP Ranker, RBF γ={GAMMA}, C={C}")
    tables(args.datasets, args.splits)
    growth(args.sizes, args.time_limit)


if __name__ == "__main__":
    main()
