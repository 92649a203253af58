"""Benchmark: aucopt's memory estimates against the memory each route's fit adds.

Every ``max_bytes`` guard refuses a problem from an estimate made before any allocation
(``aucopt._memory``). This benchmark checks the estimate of every route that has one (the LP
Ranker's full LP, generation, smoothing, chunking, local clustering and subgradient routes;
AUCSVM's dual QP with an RBF or a linear kernel, dual coordinate descent with either on sorted
pairs (never listed) and on listed pairs, liblinear and k-means; RankRC; SparseAUC; RankSVM) at
two sizes each (three for k-means, whose two algorithms differ), against the memory the whole
``fit`` adds, and passes a row when

    measured <= estimate <= 1.5 x measured.

Run (about 6 minutes on 2 cores; ``--quick``: the smallest size of each route, about 3)::

    python benchmarks/memory_estimates.py [--quick] [--routes NAME ...]

It prints one row per fit (route, points, features, pairs, estimate, both measurements, the
ratio and pass/FAIL) and exits with status 1 when a row is outside the band.

**What is measured.** Each (route, size) runs in a fresh process. After the imports, the data,
a product of two 1,000 x 1,000 matrices (the first large product of a process touches OpenBLAS's
work buffer, once) and a warm-up fit of the same route on 40 points (which loads the solver
libraries and numba's cached kernels), the route is fitted twice, each time on a fresh clone:

1. the increase of the peak resident set (Linux ``VmHWM``, reset through ``/proc/self/clear_refs``
   just before the fit) over the resident set before the fit. This sees what native libraries
   (HiGHS, OSQP, liblinear, LAPACK) allocate outside Python's allocator, but not pages that are
   allocated and never written. The fits' processes run with glibc's mmap threshold fixed at
   128 kB (``MALLOC_MMAP_THRESHOLD_``): glibc otherwise raises it up to 32 MB as arrays are
   freed and keeps freed arrays below it resident, so at these sizes the resident set would
   follow the allocator's reuse rather than the memory in use (AUCSVM's dual coordinate descent
   over 1e6 pairs, 10 features: 84 MB resident with glibc's defaults against 60 MB in use; above
   32 MB, as in the fits the guards are for, every array is returned anyway);
2. the peak of :mod:`tracemalloc` during the fit: every allocation through Python's and numpy's
   allocators, written or not, but none of the native libraries' own.

*measured* is the larger of the two (both columns are printed). The fit includes everything
``fit`` does: validation, the route, the training scores and the fitted attributes it keeps.

**Which estimate.** Where a route's sizes are known before the fit, the estimate is the one its
guard applies. Five routes grow a problem whose size depends on the run; they are checked at
the sizes the run reached, with the formulas their guards evaluate at a-priori sizes:
generation at its restricted LP's final rows, columns and scored points, smoothing at its
largest working set, chunking at its largest restricted LP, local clustering with the LP on
the reduced points and pairs (which the formulation's own guard checks when it is built), and
SparseAUC at the largest basis it retrained (validation stopping ends it early).

Data: Gaussian features (10 columns unless the route names another), random labels (50 %
positive; 30 % for RankRC, whose default basis is the rare class); for the listed pairs of dual
coordinate descent, a survival target (50 % events, exponential times) with time-difference
weights (``pair_options={"time_weight": "linear"}``: an explicit pair set). The QP and iterative routes
are capped at a few hundred iterations or epochs: their memory is allocated before the first
one, so the cap bounds the time, not the memory. The features are float64 arrays, so no fit
converts them (a conversion adds one copy of X, which the estimates do not count).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time
import tracemalloc
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _harness import spawn

#: the acceptance band of estimate / measured
LOW, HIGH = 1.0, 1.5


#: the pair options of the routes on listed (explicit) survival pairs
LISTED = {"time_weight": "linear"}


def _route(estimator, estimate, d=10, share=0.5, warm=None, listed=False):
    """A route: its estimator, its estimate ``estimate(n, P, X, y, fitted)``, the data's shape, the
    parameters that differ for the warm-up fit on 40 points, and whether the target is a survival
    one whose pairs are listed (``LISTED``) rather than binary labels."""
    return {"estimator": estimator, "estimate": estimate, "d": d, "share": share, "warm": warm or {},
            "listed": listed}


def _largest_working_set(fitted):
    return max((h.get("working_set", 0) for h in fitted.method_result_.history), default=0)


def _largest_restricted_lp(fitted, P, n_chunks=5):
    """Pairs of chunking's largest restricted LP: the most retained before a solve, and a chunk."""
    retained = [0] + [h["retained"] for h in fitted.method_result_.history]
    return min(P, max(retained[:-1]) + -(-P // n_chunks))


def _largest_retrain(fitted):
    return max((record["n_basis"] for record in fitted.path_ if record["retrained"]), default=0)


def _routes():
    """route name -> (sizes, description, builder n -> route)."""
    from aucopt import AUCSVM, LPRanker, RankRC, RankSVM, SparseAUC, SurvivalAUCSVM
    from aucopt import _memory as mem

    def lp(method, **kw):
        return LPRanker(gamma=0.1, method=method, max_bytes=None, **kw)

    def svm(method, kernel, **kw):
        return AUCSVM(C=1e-3, kernel=kernel, gamma=0.1, method=method, max_bytes=None, **kw)

    def dcd(kernel, storage):
        return lambda n, P, X, y, fitted: mem.aucsvm_dcd_bytes(n, P, X.shape[1], kernel, storage=storage)

    def listed_dcd(kernel):
        return SurvivalAUCSVM(C=1e-3, kernel=kernel, gamma=0.1, method="dcd", max_iter=50, max_bytes=None,
                              pair_options=LISTED)

    def sparse_sizes(n):
        rows = n - int(round(0.2 * n))  # the validation split's complement
        return rows, min(max(1, rows // 2), 512), min(100, rows)

    def generation(n, P, X, y, fitted):
        run = fitted.method_result_
        return mem.generation_work_bytes(n, P, n_columns=run.n_columns, n_rows=run.n_rows, n_scored=run.n_points)

    def clustering(n, P, X, y, fitted):
        (_, m), (_, pairs) = fitted.reduction_["points"], fitted.reduction_["pairs"]
        return max(mem.clustering_bytes(n), mem.lp_bytes(m, pairs))

    return {
        # the full LP and the AUCSVM dual QP: sizes known before the fit
        "lp_full": ((200, 300), "LPRanker(method='full'), rbf, HiGHS",
                    lambda n: _route(lp("full"), lambda n, P, X, y, fitted: mem.lp_bytes(n, P))),
        # the routes whose restricted problems grow with the run: the estimate at the sizes reached
        "lp_generation": ((300, 350), "LPRanker(method='generation'), rbf; at the restricted LP's final size",
                          lambda n: _route(lp("generation", max_iter=3), generation)),
        "lp_smoothing": ((1500, 2500), "LPRanker(method='smoothing'), rbf, kernel stored; at the largest "
                         "working set",
                         lambda n: _route(lp("smoothing", max_iter=20),
                                          lambda n, P, X, y, fitted: mem.kernel_bytes(n) + mem.smoothing_work_bytes(
                                              n, _largest_working_set(fitted)))),
        "lp_chunking": ((200, 230), "LPRanker(method='chunking'), rbf, HiGHS; at the largest restricted LP",
                        lambda n: _route(lp("chunking", max_iter=2),
                                         lambda n, P, X, y, fitted: mem.chunking_bytes(
                                             n, P, restricted=_largest_restricted_lp(fitted, P)))),
        "lp_clustering": ((400, 450), "LPRanker(method='clustering'), rbf; the LP at the reduced size",
                          lambda n: _route(lp("clustering"), clustering)),
        "lp_subgradient": ((1500, 2500), "LPRanker(method='subgradient'), rbf",
                           lambda n: _route(lp("subgradient", max_iter=200),
                                            lambda n, P, X, y, fitted: mem.subgradient_bytes(n))),
        "aucsvm_full_rbf": ((300, 500), "AUCSVM(method='full'), rbf: kernel factor + dual QP, OSQP",
                            lambda n: _route(svm("full", "rbf", max_iter=200),
                                             lambda n, P, X, y, fitted: mem.aucsvm_kernel_bytes(n, P, solver="osqp"))),
        "aucsvm_full_linear": ((1000, 1500), "AUCSVM(method='full'), linear: dual QP, OSQP",
                               lambda n: _route(svm("full", "linear", max_iter=200),
                                                lambda n, P, X, y, fitted: mem.dual_qp_bytes(n, P, X.shape[1],
                                                                                             solver="osqp"))),
        "aucsvm_dcd_linear": ((2000, 2828), "AUCSVM(method='dcd'), linear, 50 features, sorted pairs",
                              lambda n: _route(svm("dcd", "linear", max_iter=50), dcd("linear", "sorted"), d=50)),
        "aucsvm_dcd_rbf": ((1000, 2000), "AUCSVM(method='dcd'), rbf, sorted pairs",
                           lambda n: _route(svm("dcd", "rbf", max_iter=50), dcd("rbf", "sorted"))),
        "aucsvm_dcd_listed_linear": ((1000, 1414), "SurvivalAUCSVM(method='dcd'), linear, 50 features, listed "
                                     "(time-weighted) pairs",
                                     lambda n: _route(listed_dcd("linear"), dcd("linear", "explicit"), d=50,
                                                      listed=True)),
        "aucsvm_dcd_listed_rbf": ((1000, 1414), "SurvivalAUCSVM(method='dcd'), rbf, listed (time-weighted) pairs",
                                  lambda n: _route(listed_dcd("rbf"), dcd("rbf", "explicit"), listed=True)),
        "aucsvm_liblinear": ((1000, (1000, 30)), "AUCSVM(method='liblinear'), linear",
                             lambda n: _route(svm("liblinear", "linear", max_iter=100),
                                              lambda n, P, X, y, fitted: mem.pair_difference_bytes(
                                                  P, X.shape[1], route="liblinear"))),
        "aucsvm_kmeans": ((1000, (1000, 30), 500), "AUCSVM(method='kmeans'), linear",
                          lambda n: _route(svm("kmeans", "linear", max_iter=200),
                                           lambda n, P, X, y, fitted: mem.pair_difference_bytes(
                                               P, X.shape[1], route="kmeans"))),
        "rankrc": ((3000, 6000), "RankRC default basis (rare class, 30 %)",
                   lambda n: _route(RankRC(max_bytes=None),
                                    lambda n, P, X, y, fitted: mem.rankrc_bytes(n, int(y.sum())), share=0.3)),
        "sparse_auc": ((2000, 4000), "SparseAUC default basis size and kappa; at the largest basis retrained",
                       lambda n: _route(SparseAUC(max_bytes=None, max_iter=5),
                                        lambda n, P, X, y, fitted: mem.sparse_auc_bytes(
                                            *sparse_sizes(n), n_retrained=_largest_retrain(fitted)))),
        "sparse_auc_basis": ((2000, 3000), "SparseAUC(basis_size=150, kappa=20, validation_fraction=0)",
                             lambda n: _route(SparseAUC(basis_size=150, kappa=20, validation_fraction=0.0, max_iter=5,
                                                        max_bytes=None),
                                              lambda n, P, X, y, fitted: mem.sparse_auc_bytes(n, 150, 20),
                                              warm={"basis_size": 5})),
        "ranksvm": ((100_000, 200_000), "RankSVM (truncated Newton), 50 features",
                    lambda n: _route(RankSVM(), lambda n, P, X, y, fitted: mem.ranksvm_bytes(n, X.shape[1]), d=50)),
    }


def _status_rss() -> tuple[float, float]:
    """(resident set, peak resident set) of this process in bytes, from /proc/self/status."""
    values = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[key] = float(rest.split()[0]) * 1024.0
    return values["VmRSS"], values["VmHWM"]


def _reset_peak_rss() -> None:
    """Reset the peak resident set (VmHWM) to the current resident set (Linux 4.0 and later; where
    that is refused, the peak stays the process's, which only matters if the imports peaked higher)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def one(name: str, n: int, d: int = 0) -> dict:
    """Fit route ``name`` on n points (d features; 0: the route's default) in this process; return the
    estimate and both measurements (bytes)."""
    import numpy as np
    from sklearn.base import clone

    from aucopt import PairSet, survival_target

    _sizes, _description, build = _routes()[name]
    spec = build(n)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d or spec["d"]))
    labels = (rng.random(n) < spec["share"]).astype(int)
    labels[:2] = [0, 1]
    if spec["listed"]:  # a survival target whose time-weighted pairs are listed
        y = survival_target(labels.astype(bool), rng.exponential(size=n))
        P = PairSet.survival(y, **LISTED).n_pairs
    else:
        y = labels
        P = PairSet.bipartite(y).n_pairs
    estimator = spec["estimator"]
    order = rng.permutation(n)
    warm = np.r_[0, 1, order[order > 1][:38]]  # rows 0 and 1: both classes, or an event
    # the first large matrix product of a process touches OpenBLAS's work buffer (tens of MB,
    # once per process and thread): touch it here, as any earlier product would have
    square = rng.normal(size=(1000, 1000))
    float((square @ square).sum())
    del square
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # iteration caps warn; the memory is what is measured
        clone(estimator).set_params(**spec["warm"]).fit(X[warm], y[warm])
        gc.collect()
        fitted = clone(estimator)
        before, _ = _status_rss()
        _reset_peak_rss()
        start = time.perf_counter()
        fitted.fit(X, y)
        seconds = time.perf_counter() - start
        rss = max(_status_rss()[1] - before, 0.0)
        estimate = float(spec["estimate"](n, P, X, y, fitted))
        del fitted
        gc.collect()
        fitted = clone(estimator)
        tracemalloc.start()
        fitted.fit(X, y)
        traced = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return {"d": X.shape[1], "pairs": P, "estimate": estimate, "rss": rss, "traced": float(traced), "seconds": seconds}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--one", nargs=3, metavar=("ROUTE", "N", "D"), help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="only the smallest size of each route")
    parser.add_argument("--routes", nargs="+", metavar="NAME", help="only these routes")
    parser.add_argument("--time-limit", type=float, default=300.0, help="seconds per process (default 300)")
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(one(args.one[0], int(args.one[1]), int(args.one[2]))))
        return 0
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # for the fits' processes
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    # glibc raises its mmap threshold (up to 32 MB) after a large array is freed, and freed heap
    # memory below it stays resident: a fixed threshold returns every freed array to the system,
    # so the resident set follows the memory in use (as it does for arrays above 32 MB anyway)
    os.environ.setdefault("MALLOC_MMAP_THRESHOLD_", str(128 * 1024))
    routes = _routes()
    unknown = sorted(set(args.routes or ()) - set(routes))
    if unknown:
        parser.error(f"unknown routes {unknown}; choose from {sorted(routes)}")
    print(f"{'route':<26}{'n':>8}{'d':>4}{'pairs':>15}{'estimate MB':>13}{'RSS MB':>9}{'traced MB':>11}"
          f"{'est./meas.':>12}  in [{LOW}, {HIGH}]", flush=True)
    failures = 0
    for name, (sizes, _description, _) in routes.items():
        if args.routes and name not in args.routes:
            continue
        for size in sizes[:1] if args.quick else sizes:
            n, d = size if isinstance(size, tuple) else (size, 0)
            r = spawn(__file__, [name, n, d], args.time_limit)
            if "estimate" not in r:
                print(f"{name:<26}{n:>8}  {r.get('status')}", flush=True)
                failures += 1
                continue
            measured = max(r["rss"], r["traced"])
            ratio = r["estimate"] / measured if measured > 0 else float("inf")
            ok = LOW <= ratio <= HIGH
            failures += not ok
            print(f"{name:<26}{n:>8}{r['d']:>4}{r['pairs']:>15,}{r['estimate'] / 1e6:>13.1f}{r['rss'] / 1e6:>9.1f}"
                  f"{r['traced'] / 1e6:>11.1f}{ratio:>12.2f}  {'pass' if ok else 'FAIL'}  ({r['seconds']:.1f} s)",
                  flush=True)
    print("routes: " + "; ".join(f"{name}: {d}" for name, (_, d, _) in routes.items()
                                 if not args.routes or name in args.routes))
    print(f"{failures} row(s) outside [{LOW}, {HIGH}]" if failures else f"every row within [{LOW}, {HIGH}]")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
