"""Benchmark: LP Ranker on WDBC, lifted sparse form vs the dense pair rows of Ataman (2007).

Same data, same solver (HiGHS dual simplex), same run. The dense form (Ataman 2007, eq. 3.3, as
printed) has one row per pair with m nonzeros, A = (E+ − E−) K Y (pn × m); the lifted form
introduces score variables s = K Y α, so each pair row s_i − s_j + z_ij ≥ 1 has 3 nonzeros.

    python benchmarks/lp_ranker_lifted_vs_dense.py [--train-size 0.8] [--gamma 1] [--C 1]

Prints both objectives, both times and the speed ratio dense / lifted.
"""

from __future__ import annotations

import argparse
import time

from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler

from aucopt import PairSet, get_formulation, kernel_matrix, solve


def run(train_size: float, gamma: float, C: float, solver: str, seed: int) -> None:
    X, y = load_breast_cancer(return_X_y=True)
    y = (y == 0).astype(int)
    X_tr, _, y_tr, _ = train_test_split(X, y, train_size=train_size, random_state=seed, stratify=y)
    X_tr = MinMaxScaler().fit_transform(X_tr)
    pairs = PairSet.bipartite(y_tr)
    K = kernel_matrix(X_tr, kernel="rbf", gamma=gamma)
    form = get_formulation("lp_ranker")
    print(f"WDBC: {len(y_tr)} training points, {pairs.n_pairs:,} pairs, RBF gamma={gamma}, C={C}, solver={solver}")
    results = {}
    for lifted in (True, False):
        t0 = time.perf_counter()
        problem = form.build(pairs, K, lifted=lifted, max_bytes=None, C=C)
        t1 = time.perf_counter()
        res = solve(problem, solver).raise_for_status()
        t2 = time.perf_counter()
        label = "lifted" if lifted else "dense"
        results[label] = (res.objective, t1 - t0, t2 - t1, problem)
        print(f"  {label:6s}: {problem.n_vars:>7,} vars {problem.n_rows:>7,} rows {problem.nnz:>12,} nonzeros | "
              f"build {t1 - t0:6.2f} s  solve {t2 - t1:7.2f} s  objective {res.objective:.8f}")
    (obj_l, b_l, s_l, _), (obj_d, b_d, s_d, _) = results["lifted"], results["dense"]
    print(f"  objective |lifted - dense| / |dense| = {abs(obj_l - obj_d) / abs(obj_d):.2e}")
    print(f"  speed ratio dense / lifted: solve {s_d / s_l:.1f}x, build+solve {(b_d + s_d) / (b_l + s_l):.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--train-size", type=float, default=0.8)
    parser.add_argument("--gamma", type=float, default=1.0)
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--solver", default="highs")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    run(args.train_size, args.gamma, args.C, args.solver, args.seed)


if __name__ == "__main__":
    main()
