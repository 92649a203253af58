"""Benchmark: per-iteration cost of the LP Ranker's projected subgradient on CoIL 2000.

One iteration of :func:`aucopt.lp.subgradient` is two kernel mat-vecs (f = K Y α and K c, each
m² = 34 M multiply-adds on the 5,822 training rows) and one hinge pass of the sorted-pair core
over the 348 × 5,474 = 1.9 M bipartite pairs (never listed). This script times the whole
iteration (from the run's history) and its parts separately: one ``pair_loss(..., "hinge")``
call and one ``K @ x``.

Data: CoIL 2000 (``aucopt.datasets.load_coil2000``; the data folder is ``--data-dir``, else
``AUCOPT_DATA``, else ``shared/data`` beside the checkout), min-max scaled, RBF γ = 1/d, C = 1.

    python benchmarks/subgradient_coil.py [--iterations 200] [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--data-dir", default=None)
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


if __name__ == "__main__":
    main()
