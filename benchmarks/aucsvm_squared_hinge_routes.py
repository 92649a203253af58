"""Benchmark: the linear AUC-SVM with the squared hinge above 20,000 pairs, Newton vs dual coordinate descent.

``AUCSVM(kernel="linear", loss="squared_hinge")`` above 20,000 pairs took dual coordinate descent
(``method="dcd"``) under ``method="auto"`` until truncated Newton on the primal (``"newton"``) took
its place. Both reach the same optimum; this script fits every case with both routes in the same
run (the baseline is ``"dcd"``), each fit in a fresh process after a warm-up fit (compilation
excluded), and prints per fit the time, the iterations (epochs of ``"dcd"``, Newton iterations),
the status, the certified relative duality gap (objective_ + dual_objective_) / objective_, the
relative difference of the two objectives, and the time ratio dcd / newton.

Cases: ``make_classification`` with 20 features and 5 % flipped labels, 1,000 to 4,000 rows
(250,000 to 4 million pairs), and scikit-survival's WHAS500 and GBSG2 (``SurvivalAUCSVM``,
Harrell's pairs; skipped without scikit-survival); C = 0.01, 1 and 100. A dual coordinate descent
fit is stopped at ``--time-limit`` seconds (its ``solver_options["time_limit"]``; status
``time_limit``).

    python benchmarks/aucsvm_squared_hinge_routes.py [--quick] [--time-limit 300]

About 15 minutes on 2 cores (``--quick``: the 1,000-row and survival cases, about 3 minutes).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import warnings

CS = (0.01, 1.0, 100.0)


def load(name: str):
    """(estimator class, X, y) of a case."""
    from sklearn.datasets import make_classification
    from sklearn.preprocessing import StandardScaler

    from aucopt import AUCSVM, SurvivalAUCSVM
    from aucopt.datasets import load_survival

    if name.startswith("mc"):
        X, y = make_classification(n_samples=int(name[2:]), n_features=20, flip_y=0.05, random_state=0)
        return AUCSVM, X, y
    X, y = load_survival(name)
    return SurvivalAUCSVM, StandardScaler().fit_transform(X), y


def one(name: str, C: float, method: str, time_limit: float) -> None:
    """Fit one case in this process; print one JSON line."""
    import numpy as np

    from aucopt import AUCSVM, SurvivalAUCSVM, survival_target

    warnings.simplefilter("ignore")
    X0 = np.random.default_rng(1).normal(size=(300, 5))  # warm-up: compile or load the kernels
    AUCSVM(kernel="linear", loss="squared_hinge", method=method).fit(X0, X0[:, 0] > 0)
    SurvivalAUCSVM(kernel="linear", loss="squared_hinge", method=method).fit(
        X0, survival_target(X0[:, 1] > 0, np.exp(X0[:, 0])))
    Est, X, y = load(name)
    options = {"time_limit": time_limit} if method == "dcd" else None
    start = time.perf_counter()
    fit = Est(C=C, kernel="linear", loss="squared_hinge", method=method, solver_options=options).fit(X, y)
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "iterations": int(fit.n_iter_), "status": str(fit.solve_result_.status),
                      "objective": fit.objective_, "pairs": int(fit.n_pairs_),
                      "gap": (fit.objective_ + fit.dual_objective_) / abs(fit.objective_)}), flush=True)


def spawn(name: str, C: float, method: str, time_limit: float) -> dict:
    out = subprocess.run([sys.executable, __file__, "--one", name, str(C), method, str(time_limit)],
                         capture_output=True, text=True, check=True, timeout=time_limit + 600)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the 1,000-row and survival cases only")
    parser.add_argument("--time-limit", type=float, default=300.0, help="seconds per dual coordinate descent fit")
    parser.add_argument("--one", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        name, C, method, limit = args.one
        one(name, float(C), method, float(limit))
        return
    names = ["mc1000"] + ([] if args.quick else ["mc2000", "mc4000"])
    try:
        import sksurv  # noqa: F401
    except ImportError:
        print("scikit-survival is not installed: the survival cases (WHAS500, GBSG2) are skipped", file=sys.stderr)
    else:
        names += ["whas500", "gbsg2"]
    print(f"{'case':18s} {'pairs':>10s} {'dcd: s, epochs, status, gap':>40s} "
          f"{'newton: s, iterations, status, gap':>43s} {'objectives':>10s} {'dcd/newton':>10s}")
    for name in names:
        for C in CS:
            dcd, newton = (spawn(name, C, m, args.time_limit) for m in ("dcd", "newton"))
            diff = abs(dcd["objective"] - newton["objective"]) / newton["objective"]
            print(f"{name + f' C={C:g}':18s} {newton['pairs']:10,d} "
                  f"{dcd['seconds']:8.2f} s {dcd['iterations']:7,d} {dcd['status']:>15s} {dcd['gap']:8.1e} "
                  f"{newton['seconds']:8.2f} s {newton['iterations']:4d} {newton['status']:>18s} "
                  f"{newton['gap']:8.1e} {diff:10.1e} {dcd['seconds'] / newton['seconds']:10.1f}", flush=True)


if __name__ == "__main__":
    main()
