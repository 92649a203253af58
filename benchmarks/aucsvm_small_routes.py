"""Benchmark: the AUC-SVM below 20,000 pairs, the dual QP on OSQP vs dual coordinate descent.

``method="auto"`` of ``AUCSVM`` / ``SurvivalAUCSVM`` took the pairwise dual QP (``method="full"``,
OSQP) up to 20,000 pairs; it now takes dual coordinate descent (``"dcd"``, the same dual) at every
size, except for a linear kernel with the squared hinge (whose dual is too ill-conditioned for
coordinate descent: the QP up to 20,000 pairs, truncated Newton above). This script fits every case
with both routes in the same run (the baseline is ``"full"``) and prints per fit the time of each,
the ratio full / dcd, each route's relative distance to the optimum bounded by one certificate
(objective_ − LB) / objective_, with LB = −dual_objective_ of dual coordinate descent (its pair
duals lie in the box, so LB is a lower bound of the optimum), the warnings each fit issued, and the
route ``"auto"`` takes (a solver's failure is listed as ``SolverError``).

Cases: ``make_classification`` (10 features, 10 % flipped labels, standardized) and synthetic
proportional-hazards survival data (10 features, about 35 % censored, Harrell's pairs) with 60,
140 and 280 points (about 900 to 19,600 pairs); RBF and linear kernels, the hinge and the squared
hinge, C = 0.1, 1, 10 and 100. One process; a warm-up fit first, so compilation is excluded.

    python benchmarks/aucsvm_small_routes.py [--quick]

About 25 minutes on 2 cores, most of it the linear hinge QPs (``--quick``: 60 and 140 points,
about 10 minutes).
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings

import numpy as np

CS = (0.1, 1.0, 10.0, 100.0)
SETTINGS = [("rbf", "hinge"), ("rbf", "squared_hinge"), ("linear", "hinge"), ("linear", "squared_hinge")]


def case(kind: str, n: int):
    """(estimator class, X, y) of a case."""
    from sklearn.datasets import make_classification
    from sklearn.preprocessing import StandardScaler

    from aucopt import AUCSVM, SurvivalAUCSVM, survival_target

    X, y = make_classification(n, 10, random_state=n, flip_y=0.1)
    X = StandardScaler().fit_transform(X)
    if kind == "binary":
        return AUCSVM, X, y
    rng = np.random.default_rng(n)
    t, c = rng.exponential(np.exp(-X[:, 0] - 0.5 * X[:, 1])), rng.exponential(1.0, n)
    return SurvivalAUCSVM, X, survival_target(t <= c, np.minimum(t, c))


def timed(estimator, X, y):
    """(seconds, fitted estimator, names of the warnings issued); the objective is NaN when the
    solver failed (named among the warnings)."""
    from aucopt.exceptions import SolverError

    failed = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        try:
            estimator.fit(X, y)
        except SolverError:
            estimator.objective_, failed = float("nan"), ["SolverError"]
        seconds = time.perf_counter() - start
    return seconds, estimator, sorted({type(w.message).__name__ for w in caught} | set(failed))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="60 and 140 points only")
    args = parser.parse_args()
    from aucopt import PairSet

    for kind in ("binary", "survival"):  # warm-up: load the compiled kernels of every route
        Est, X, y = case(kind, 60)
        for (kernel, loss), C, method in itertools.product(SETTINGS, (1.0, 100.0), ("full", "dcd")):
            timed(Est(kernel=kernel, loss=loss, C=C, method=method), X, y)
    print(f"{'case':15s} {'pairs':>6s} {'kernel':6s} {'loss':13s} {'C':>5s} {'full s':>7s} {'dcd s':>7s} "
          f"{'full/dcd':>8s} {'full to opt':>11s} {'dcd to opt':>10s}  auto   warnings (full; dcd)")
    ratios = []
    for n in (60, 140) if args.quick else (60, 140, 280):
        for kind in ("binary", "survival"):
            Est, X, y = case(kind, n)
            for kernel, loss in SETTINGS:
                for C in CS:
                    params = dict(kernel=kernel, loss=loss, C=C)
                    t_full, full, w_full = timed(Est(method="full", **params), X, y)
                    t_dcd, dcd, w_dcd = timed(Est(method="dcd", **params), X, y)
                    lower = -dcd.dual_objective_
                    pairs = PairSet.survival(y) if kind == "survival" else PairSet.bipartite(y)
                    auto = Est(**params).select_method(pairs, X)[0]
                    ratios.append(t_full / t_dcd)
                    print(f"{kind + ' ' + str(n):15s} {pairs.n_pairs:6d} {kernel:6s} {loss:13s} {C:5g} {t_full:7.2f} "
                          f"{t_dcd:7.2f} {t_full / t_dcd:8.1f} {(full.objective_ - lower) / full.objective_:11.1e} "
                          f"{(dcd.objective_ - lower) / dcd.objective_:10.1e}  {auto:6s} {w_full}; {w_dcd}", flush=True)
    print(f"full / dcd over {len(ratios)} fits: median {np.median(ratios):.1f}, min {min(ratios):.2f}, "
          f"max {max(ratios):.0f}")


if __name__ == "__main__":
    main()
