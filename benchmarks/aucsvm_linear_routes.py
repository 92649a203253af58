"""Benchmark: the linear AUC-SVM's exact routes above 20,000 pairs, dual coordinate descent against liblinear.

``AUCSVM(kernel="linear", method="auto")`` takes dual coordinate descent (``"dcd"``: w = Xᵀc kept,
O(d) a step) above ``aucopt.svm.AUCSVM_AUTO_MAX_PAIRS``; it took liblinear on the symmetrized
pair differences (``"liblinear"``, the same optimum by Brefeld & Scheffer 2005, Theorem 2) before.
Both routes are fitted on the same data in one run, each fit in its own process (the import and
the first call's compilation excluded: a warm-up fit on 300 rows comes first), hinge loss, the
default ``tol`` and ``max_iter`` of each route, ``max_bytes`` raised to 20 GB so that liblinear's
pair differences are not refused. Printed per fit: seconds of each route, whether it converged
(liblinear's ``SolverWarning`` at its iteration limit, dual coordinate descent's status), the
time ratio liblinear / dcd, the relative objective difference, and whether the default
``max_bytes`` admits liblinear's pair differences (``aucopt._memory``).

Data: WDBC (standardized and min-max scaled) and digits 8-vs-rest from scikit-learn, and
``make_classification`` (2 to 20 features, 300 to 3,000 rows), C from 0.01 to 10.

    python benchmarks/aucsvm_linear_routes.py            # about 13 minutes on 2 cores
    python benchmarks/aucsvm_linear_routes.py --quick    # the sets of 1,000 rows or fewer (7 minutes)
    python benchmarks/aucsvm_linear_routes.py --only "mc 3000x20"   # named data sets only
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from _harness import spawn  # noqa: E402

#: (name, C): the data sets and penalties measured
CASES = [(name, C) for name in ("wdbc std", "wdbc minmax", "digits 8", "mc 1000x10") for C in (0.01, 0.1, 1.0)]
CASES += [("mc 300x20", 1.0), ("mc 500x20", 1.0), ("mc 700x20", 1.0), ("mc 1000x20", 1.0), ("mc 2000x20", 1.0),
          ("mc 1000x2", 1.0), ("mc 1000x5", 1.0), ("mc 1000x5", 10.0), ("mc 2000x10", 1.0), ("mc 2000x3", 1.0),
          ("mc 3000x20", 1.0)]
LARGE = 1000  # --quick: make_classification sets of at most this many rows


def load(name):
    import numpy as np
    from sklearn.datasets import load_breast_cancer, load_digits, make_classification
    from sklearn.preprocessing import MinMaxScaler, StandardScaler

    if name.startswith("wdbc"):
        data = load_breast_cancer()
        scaler = StandardScaler() if name.endswith("std") else MinMaxScaler()
        return scaler.fit_transform(data.data), data.target
    if name == "digits 8":
        digits = load_digits()
        return digits.data / 16.0, (digits.target == 8).astype(np.int64)
    n, d = map(int, name.split()[1].split("x"))
    if d >= 10:
        return make_classification(n_samples=n, n_features=d, random_state=0)
    return make_classification(n_samples=n, n_features=d, n_informative=min(d, 2), n_redundant=0, random_state=0)


def one(name, C, method):
    """Fit one route in this process; print a JSON line."""
    from sklearn.datasets import make_classification

    from aucopt import AUCSVM

    AUCSVM(kernel="linear", method=method).fit(*make_classification(n_samples=300, n_features=20, random_state=1))
    X, y = load(name)
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = AUCSVM(kernel="linear", method=method, C=float(C), max_bytes=20e9).fit(X, y)
    seconds = time.perf_counter() - start
    converged = model.solve_result_.status == "optimal" and not any(
        "iteration_limit" in str(w.message) for w in caught)
    print(json.dumps({"seconds": seconds, "objective": model.objective_, "converged": converged}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--one", nargs=3)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", nargs="+", help="data set names to run (e.g. 'mc 2000x20')")
    parser.add_argument("--time-limit", type=float, default=600)
    args = parser.parse_args()
    if args.one:
        one(*args.one)
        return
    from aucopt import _memory
    from aucopt.pairs import DEFAULT_MAX_BYTES

    script = os.path.abspath(__file__)
    print(f"{'data':14s} {'C':>5s} {'pairs':>10s} {'liblinear':>18s} {'dcd':>18s} {'lib/dcd':>8s} "
          f"{'rel. obj. diff':>14s}  liblinear within the default max_bytes")
    faster = unconverged = total = 0
    for name, C in CASES:
        if args.quick and name.startswith("mc") and int(name.split()[1].split("x")[0]) > LARGE:
            continue
        if args.only and name not in args.only:
            continue
        X, y = load(name)
        P = int((y == 1).sum()) * int((y != 1).sum())
        fits = {m: spawn(script, [name, C, m], args.time_limit) for m in ("liblinear", "dcd")}
        lib, dcd = fits["liblinear"], fits["dcd"]

        def cell(r):
            return (f"{r['seconds']:7.2f} s {'ok' if r['converged'] else 'UNCONVERGED':>11s}" if "seconds" in r
                    else r["status"][:18])

        fits_memory = _memory.aucsvm_bytes("liblinear", "linear", len(y), P, X.shape[1], X.shape[1]) \
            <= DEFAULT_MAX_BYTES
        ratio = diff = "-"
        if "seconds" in lib and "seconds" in dcd:
            total += 1
            faster += dcd["seconds"] < lib["seconds"]
            unconverged += not lib["converged"]
            ratio = f"{lib['seconds'] / dcd['seconds']:.2f}"
            diff = f"{(lib['objective'] - dcd['objective']) / dcd['objective']:+.1e}"
        print(f"{name:14s} {C:5g} {P:10,d} {cell(lib):>18s} {cell(dcd):>18s} {ratio:>8s} {diff:>14s}  "
              f"{'yes' if fits_memory else 'no'}", flush=True)
    print(f"\ndcd faster on {faster} of {total} fits; liblinear unconverged on {unconverged} of {total}")


if __name__ == "__main__":
    main()
