"""Benchmark: aucopt's memory estimates against the measured peak memory of real fits.

Every ``max_bytes`` guard refuses a problem from an estimate made before any allocation
(``aucopt._memory``). This benchmark checks those estimates: for the full LP Ranker (HiGHS), the
AUCSVM dual QP (OSQP; RBF kernel with its kernel factor, and the linear kernel) and RankRC's
kernel block (default rare-class basis), at three sizes each, it fits the estimator in a fresh
process and measures the peak resident memory above the process's resident memory just before
the fit (after imports, data creation and a warm-up fit of the same path on 40 points, which
loads the solver libraries). The target is an estimate within 2x of the
measurement.

    python benchmarks/memory_estimates.py [--quick]

Prints one row per fit: n, pairs, estimate, measured, ratio measured / estimate and whether it
is within 2x. ``--quick`` runs the smallest size of each path only. The QP fits are capped at a
few hundred solver iterations: the solver's memory is allocated at setup, so the cap bounds the
time, not the memory.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _harness import spawn  # noqa: E402

#: path -> (sizes, one-line description)
PATHS = {
    "lp_full": ((250, 400, 550), "LPRanker(method='full'), rbf, HiGHS"),
    "aucsvm_rbf": ((300, 500, 700), "AUCSVM rbf: kernel factor + dual QP, OSQP"),
    "aucsvm_linear": ((1000, 2000, 3000), "AUCSVM linear: dual QP, OSQP"),
    "rankrc": ((3000, 6000, 9000), "RankRC default basis (rare class, 30%)"),
}


def _rss_bytes() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _peak_bytes() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024.0


def one(path: str, n: int) -> dict:
    """Fit one path at size n in this process; return estimate and measured peak (bytes)."""
    import numpy as np

    from aucopt import AUCSVM, LPRanker, PairSet, RankRC
    from aucopt import _memory

    rng = np.random.default_rng(0)
    positive_share = 0.3 if path == "rankrc" else 0.5
    X = rng.normal(size=(n, 10))
    y = (rng.random(n) < positive_share).astype(int)
    pairs = PairSet.bipartite(y)
    P = pairs.n_pairs
    if path == "lp_full":
        estimator = LPRanker(gamma=0.1, method="full", max_bytes=None)
        estimate = _memory.lp_bytes(n, P)
    elif path == "aucsvm_rbf":
        estimator = AUCSVM(gamma=0.1, method="full", solver="osqp", max_iter=200, max_bytes=None)
        estimate = _memory.aucsvm_kernel_bytes(n, P, solver="osqp")
    elif path == "aucsvm_linear":
        estimator = AUCSVM(kernel="linear", method="full", solver="osqp", max_iter=200, max_bytes=None)
        estimate = _memory.dual_qp_bytes(n, P, X.shape[1], solver="osqp")
    elif path == "rankrc":
        estimator = RankRC(max_bytes=None)
        estimate = _memory.rankrc_bytes(n, int(y.sum()))
    else:
        raise ValueError(f"unknown path {path!r}; choose from {sorted(PATHS)}")
    from sklearn.base import clone

    with warnings.catch_warnings():  # a warm-up fit on 40 points loads every library the path uses
        warnings.simplefilter("ignore")  # (code and allocator arenas are not what the estimates count)
        clone(estimator).fit(X[:40], y[:40])
    before = _rss_bytes()
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # iteration caps warn; the memory is what is measured
        estimator.fit(X, y)
    seconds = time.perf_counter() - start
    measured = max(_peak_bytes() - before, 0.0)
    return {"pairs": P, "estimate": estimate, "measured": measured, "seconds": seconds}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--one", nargs=2, metavar=("PATH", "N"), help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="only the smallest size of each path")
    parser.add_argument("--time-limit", type=float, default=300.0, help="seconds per fit (default 300)")
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(one(args.one[0], int(args.one[1]))))
        return 0
    print(f"{'path':<15}{'n':>6}{'pairs':>12}{'estimate MB':>13}{'measured MB':>13}{'ratio':>8}  within 2x")
    worst = 0.0
    for path, (sizes, _) in PATHS.items():
        for n in sizes[:1] if args.quick else sizes:
            r = spawn(__file__, [path, n], args.time_limit)
            if "estimate" not in r:
                print(f"{path:<15}{n:>6}  {r.get('status')}")
                continue
            ratio = r["measured"] / r["estimate"]
            worst = max(worst, ratio, 1.0 / ratio if ratio > 0 else float("inf"))
            ok = 0.5 <= ratio <= 2.0
            print(f"{path:<15}{n:>6}{r['pairs']:>12,}{r['estimate'] / 1e6:>13.1f}{r['measured'] / 1e6:>13.1f}"
                  f"{ratio:>8.2f}  {'yes' if ok else 'NO'}  ({r['seconds']:.1f} s)", flush=True)
    print(f"largest factor between estimate and measurement: {worst:.2f}")
    print("paths: " + "; ".join(f"{p}: {d}" for p, (_, d) in PATHS.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
