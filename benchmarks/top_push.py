"""Benchmark: top push (Li, Jin & Zhou 2014, LP form) vs the LP Ranker's full LP on all of WDBC.

Same data (the 569 points of WDBC, malignant = positive, features scaled to [0, 1]), same RBF
kernel, same solver (HiGHS), same run. The LP Ranker has one row per pair (212 × 357 = 75,684);
top push has one row per point and never lists the pairs.

    python benchmarks/top_push.py [--gamma 1] [--C 1] [--solver highs] [--repeat 3]

Prints, for each formulation, the problem size, the build and solve seconds (best of
``--repeat``), the training AUC and the fraction of positives above the top-scored negative,
then the time ratio LP Ranker / top push.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import roc_auc_score
from sklearn.preprocessing import MinMaxScaler

from aucopt import PairSet, get_formulation, kernel_matrix, solve


def timed(name: str, pairs, K, C: float, solver: str, repeat: int):
    """Best-of-``repeat`` build and solve seconds, and the last problem and result."""
    form = get_formulation(name)
    best_build = best_solve = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        problem = form.build(pairs, K, C=C, max_bytes=None)
        t1 = time.perf_counter()
        result = solve(problem, solver).raise_for_status()
        t2 = time.perf_counter()
        best_build, best_solve = min(best_build, t1 - t0), min(best_solve, t2 - t1)
    return best_build, best_solve, problem, result


def run(gamma: float, C: float, solver: str, repeat: int) -> None:
    X, y = load_breast_cancer(return_X_y=True)
    y = (y == 0).astype(int)  # malignant = positive
    X = MinMaxScaler().fit_transform(X)
    pairs = PairSet.bipartite(y)
    K = kernel_matrix(X, kernel="rbf", gamma=gamma)
    print(f"WDBC: {len(y)} points ({y.sum()} positive), {pairs.n_pairs:,} pairs, RBF gamma={gamma}, "
          f"C={C}, solver={solver}, best of {repeat}")
    total = {}
    for name in ("top_push", "lp_ranker"):
        build, solve_s, problem, result = timed(name, pairs, K, C, solver, repeat)
        f = problem.block(result.x, "scores")
        above = np.mean(f[y == 1] > f[y == 0].max())
        total[name] = build + solve_s
        print(f"  {name:10s} {problem.n_rows:7,} rows {problem.nnz:9,} nonzeros  build {build:6.3f} s  "
              f"solve {solve_s:6.3f} s  total {total[name]:6.3f} s  objective {result.objective:10.4f}  "
              f"train AUC {roc_auc_score(y, f):.4f}  positives above the top negative {above:.3f}")
    print(f"  ratio lp_ranker / top_push: {total['lp_ranker'] / total['top_push']:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gamma", type=float, default=1.0)
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--solver", default="highs")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    run(args.gamma, args.C, args.solver, args.repeat)


if __name__ == "__main__":
    main()
