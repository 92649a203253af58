"""Benchmark: per-iteration cost of the LP Ranker's projected subgradient on CoIL 2000.

One iteration of :func:`aucopt.lp.subgradient` is two kernel mat-vecs (f = K Y α and K c, each
m² = 34 M multiply-adds on the 5,822 training rows) and one hinge pass of the sorted-pair core
over the 348 × 5,474 = 1.9 M bipartite pairs (never listed). This script times the whole
iteration (from the run's history) and its parts separately: one ``pair_loss(..., "hinge")``
call and one ``K @ x``.

Data: CoIL 2000 (``aucopt.datasets.load_coil2000``; the data folder is ``--data-dir``, else
``AUCOPT_DATA``, else ``shared/data`` beside the checkout), min-max scaled, RBF γ = 1/d, C = 1.

With ``--gap`` it also compares the subgradient with the exact path: on random subsets of the
training rows small enough for the full LP on HiGHS, the LP optimum, the subgradient's best
objective and certified lower bound (hence the true and the certified gap) and both times; then,
on all rows, the thesis's settings (C = 10, γ = 0.01, λ_0 = 1, shrink 1.5, patience 10,
target 5%) under the step-scale rules: iterations to λ < 0.005, objective, certified gap and the
buyers in the top 20% of the evaluation set.

    python benchmarks/subgradient_coil.py [--iterations 200] [--data-dir DIR] [--gap]
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--gap", action="store_true", help="compare with the exact LP and the step rules")
    args = parser.parse_args()

    from sklearn.metrics.pairwise import rbf_kernel
    from sklearn.preprocessing import MinMaxScaler

    from aucopt import PairSet
    from aucopt.datasets import load_coil2000
    from aucopt.lp import subgradient
    from aucopt.pairs.core import pair_loss

    try:
        X, y, _, _ = load_coil2000(data_dir=args.data_dir)
    except FileNotFoundError as exc:
        print(f"CoIL 2000 not found ({exc}); pass --data-dir.")
        return
    X = MinMaxScaler().fit_transform(X)
    K = rbf_kernel(X, gamma=1.0 / X.shape[1])
    pairs = PairSet.bipartite(y)
    m = len(y)
    print(f"CoIL 2000: m = {m:,} rows, {pairs.n_pairs:,} pairs, K {K.nbytes / 1e6:.0f} MB")

    rng = np.random.default_rng(0)
    f = K @ (pairs.signs * rng.random(m) * 1e-3)
    pair_loss(pairs, f, "hinge")  # compile / load the kernels once
    reps = 50
    t0 = time.perf_counter()
    for _ in range(reps):
        pair_loss(pairs, f, "hinge")
    core_ms = (time.perf_counter() - t0) / reps * 1e3
    t0 = time.perf_counter()
    for _ in range(reps):
        K @ f
    matvec_ms = (time.perf_counter() - t0) / reps * 1e3

    subgradient(K, pairs, 1.0, rule="constant", max_iter=3)  # warm-up
    t0 = time.perf_counter()
    run = subgradient(K, pairs, 1.0, rule="constant", step=0.1, max_iter=args.iterations)
    total = time.perf_counter() - t0
    per_iter_ms = total / run.iterations * 1e3
    print(f"subgradient: {run.iterations} iterations in {total:.2f} s = {per_iter_ms:.1f} ms / iteration "
          f"(objective {run.objective:.6g})")
    print(f"  parts: pair_loss(hinge) {core_ms:.1f} ms, one K @ x {matvec_ms:.1f} ms "
          f"(two per iteration: {2 * matvec_ms:.1f} ms)")
    if args.gap:
        gap_table(args.data_dir)


def gap_table(data_dir):
    """The subgradient's true and certified gaps against the full LP, and the step rules on CoIL."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.metrics.pairwise import rbf_kernel
    from sklearn.preprocessing import MinMaxScaler

    from aucopt import PairSet, get_formulation
    from aucopt.datasets import load_coil2000
    from aucopt.lp import subgradient
    from aucopt.solvers import solve

    warnings.simplefilter("ignore", ConvergenceWarning)
    X, y, X_eval, y_eval = load_coil2000(data_dir=data_dir)
    scaler = MinMaxScaler().fit(X)
    X, X_eval = scaler.transform(X), scaler.transform(X_eval)
    C, gamma = 10.0, 0.01
    options = {"step0": 1.0, "step_min": 0.005, "target_frac": 0.05, "patience": 10, "shrink": 1.5}
    print("\nsubsets (rows, pairs): full LP on HiGHS vs subgradient (dynamic, 2,000 iterations at most)")
    print(f"{'rows':>6} {'pairs':>8} {'LP opt':>10} {'LP s':>7} {'sub F':>10} {'true gap':>9} "
          f"{'cert. gap':>9} {'sub s':>6}")
    rng = np.random.default_rng(0)
    for m in (200, 400, 800):
        idx = rng.choice(len(y), m, replace=False)
        K, pairs = rbf_kernel(X[idx], gamma=gamma), PairSet.bipartite(y[idx])
        t0 = time.perf_counter()
        problem = get_formulation("lp_ranker").build(pairs, K, C=C)
        opt = solve(problem, "highs").raise_for_status().objective
        lp_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        run = subgradient(K, pairs, C, max_iter=2000, **options)
        sub_s = time.perf_counter() - t0
        print(f"{m:>6} {pairs.n_pairs:>8,} {opt:>10.5g} {lp_s:>7.2f} {run.objective:>10.5g} "
              f"{(run.objective - opt) / opt:>9.2%} {run.gap:>9.2%} {sub_s:>6.2f}")
    K, pairs = rbf_kernel(X, gamma=gamma), PairSet.bipartite(y)
    K_eval = rbf_kernel(X_eval, X, gamma=gamma)
    print("\nall rows: step-scale rules (2,000 iterations at most)")
    print(f"{'rule':>12} {'min_impr':>8} {'iters':>6} {'stop':>9} {'λ at 170':>9} {'objective':>11} "
          f"{'cert. gap':>9} {'buyers':>6} {'s':>6}")
    for rule, min_improvement in (("dynamic", 0.0), ("dynamic", 1e-3), ("dynamic", 3e-3), ("dynamic", 1e-2),
                                  ("dual_target", 0.0)):
        t0 = time.perf_counter()
        run = subgradient(K, pairs, C, rule=rule, min_improvement=min_improvement, max_iter=2000, **options)
        seconds = time.perf_counter() - t0
        alpha = np.where(run.alpha > 1e-6, run.alpha, 0.0)
        scores = K_eval @ (pairs.signs * alpha)
        buyers = int(y_eval[np.argsort(-scores, kind="stable")[:len(y_eval) // 5]].sum())
        lam = run.history[min(169, len(run.history) - 1)]["step_scale"]
        print(f"{rule:>12} {min_improvement:>8g} {run.iterations:>6} {run.stop:>9} {lam:>9.3g} "
              f"{run.objective:>11.5g} {run.gap:>9.2%} {buyers:>6} {seconds:>6.1f}")


if __name__ == "__main__":
    main()
