"""AUCSVM: dual coordinate descent (``method="dcd"``) against the lifted dual QP (OSQP, Clarabel).

Run (about 10 minutes on 2 cores)::

    python benchmarks/aucsvm_dcd.py

Each (route, size) runs in its own process (wall time of ``fit``, peak RSS). Data: a balanced
``make_classification`` problem (10 features) with n₊ = n₋ = √pairs, RBF kernel (gamma="scale"),
hinge loss, C = 1e-3. Every route solves the same pairwise dual; the objectives F_C are printed
and checked against the most accurate QP (Clarabel) to 1e-6 relative, with the time ratios of
the QP routes to DCD. ``--dcd-only`` adds DCD alone at larger sizes (1e6 pairs RBF, 1e7 pairs
linear) when the time allows.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from _harness import peak_mb, sweep

TIME_LIMIT = 600.0
ROUTES = {
    "dcd": dict(method="dcd"),
    "clarabel": dict(method="full", solver="clarabel"),
    "osqp": dict(method="full", solver="osqp", solver_options={"eps_abs": 1e-7, "eps_rel": 1e-7}),
}


def data(n_pairs, seed=0):
    from sklearn.datasets import make_classification

    side = int(round(np.sqrt(n_pairs)))
    X, y = make_classification(n_samples=2 * side, n_features=10, n_informative=5, weights=[0.5],
                               flip_y=0.05, random_state=seed)
    return X, y


def one(route, n_pairs, kernel="rbf"):
    from aucopt import AUCSVM

    X, y = data(n_pairs)
    est = AUCSVM(C=1e-3, kernel=kernel, max_bytes=None, **ROUTES[route])
    if route == "dcd":  # compile (or load the cache) outside the timing
        AUCSVM(C=1e-3, kernel=kernel, method="dcd").fit(X[:20], y[:20])
    start = time.perf_counter()
    est.fit(X, y)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "objective": est.objective_, "pairs": est.n_pairs_,
            "iterations": int(est.n_iter_), "status": str(est.solve_result_.status), "peak_mb": peak_mb()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--one", nargs="+")
    parser.add_argument("--sizes", type=float, nargs="+", default=[2e4, 1e5])
    parser.add_argument("--large", action="store_true", help="also DCD alone at 1e6 pairs RBF, 1e7 linear")
    args = parser.parse_args()
    if args.one:
        kernel = args.one[2] if len(args.one) > 2 else "rbf"
        print(json.dumps(one(args.one[0], int(float(args.one[1])), kernel)))
        return
    print(f"{'pairs':>10} {'route':>9} {'seconds':>9} {'iter':>8} {'status':>16} {'F_C':>16} {'rel diff':>9} "
          f"{'x dcd':>7} {'MB':>6}")
    ok = True
    for n, rows in sweep(__file__, list(ROUTES), [int(s) for s in args.sizes], TIME_LIMIT):
        ref = rows["clarabel"].get("objective")
        base = rows["dcd"].get("seconds")
        for route, r in rows.items():
            if "seconds" not in r:
                print(f"{n:>10,} {route:>9} {r['status']}")
                continue
            rel = abs(r["objective"] - ref) / abs(ref) if ref else float("nan")
            ratio = r["seconds"] / base if base else float("nan")
            print(f"{r['pairs']:>10,} {route:>9} {r['seconds']:>9.2f} {r['iterations']:>8,} {r['status']:>16} "
                  f"{r['objective']:>16.10g} {rel:>9.1e} {ratio:>7.1f} {r['peak_mb']:>6.0f}", flush=True)
        if ref is not None and "objective" in rows["dcd"]:
            ok &= abs(rows["dcd"]["objective"] - ref) <= 1e-6 * abs(ref)
    if args.large:
        for kernel, n in (("rbf", 10**6), ("linear", 10**7)):
            from _harness import spawn
            r = spawn(__file__, ["dcd", n, kernel], TIME_LIMIT)
            print(f"{n:>10,} dcd/{kernel:<6} " + (f"{r['seconds']:.2f} s, {r['iterations']:,} epochs, {r['status']}, "
                                                 f"F_C {r['objective']:.10g}, {r['peak_mb']:.0f} MB"
                                                 if "seconds" in r else r["status"]), flush=True)
    print("DCD objective equals Clarabel's to 1e-6:", ok)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
