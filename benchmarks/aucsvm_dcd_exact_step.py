"""Benchmark: dual coordinate descent's exact step on a stalled active set, before and after.

The AUC-SVM's dual coordinate descent (``method="dcd"``) solves the dual restricted to its active
set exactly once the projected-gradient gap stalls there. Each case below is fitted with the
current code and, with ``--before DIR`` (a copy of an earlier ``aucopt`` package: ``DIR/aucopt``,
e.g. ``git archive <rev> aucopt | tar -x -C DIR``), with that code, in the same run: one process
per version, the cases in the same order after a warm-up fit (compilation excluded). Printed per
fit: the time, the epochs, the status and the relative duality gap (primal minus dual, the
certificate), and the time ratio before / after.

Cases: scikit-survival's WHAS500, GBSG2 and AIDS (one-hot, standardized; Harrell's pairs,
``SurvivalAUCSVM``, RBF kernel), 1,000 synthetic survival rows, ``make_classification`` 2,000 × 10
(``AUCSVM``, RBF) and WDBC; the linear kernel on ``make_classification`` 500 × 20 and 2,000 × 20;
C = 0.1, 1 and 10 (the slowest combinations left out). The survival cases need scikit-survival.

    python benchmarks/aucsvm_dcd_exact_step.py [--before /tmp/aucopt-before] [--only gbsg2 mc500lin]

About 2 minutes a version on 2 cores.
"""

from __future__ import annotations

import argparse
import sys
import warnings

from _harness import measure_version, print_fit_row, print_versions


def cases():
    import numpy as np
    from sklearn.datasets import load_breast_cancer, make_classification
    from sklearn.preprocessing import StandardScaler

    from aucopt import AUCSVM, SurvivalAUCSVM, survival_target
    from aucopt.datasets import load_survival

    try:
        import pandas as pd
        from sksurv.datasets import load_aids
    except ImportError:
        print("scikit-survival (or pandas) is not installed: the survival data sets are skipped", file=sys.stderr)
    else:
        for name in ("whas500", "gbsg2"):
            X, y = load_survival(name)
            yield name, StandardScaler().fit_transform(X), y, SurvivalAUCSVM, "rbf", (0.1, 1.0, 10.0)
        Xdf, target = load_aids()  # not among load_survival's sets
        yield ("aids", StandardScaler().fit_transform(pd.get_dummies(Xdf, drop_first=True, dtype=float)),
               survival_target(target["censor"], target["time"]), SurvivalAUCSVM, "rbf", (0.1, 1.0, 10.0))
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1000, 10))
    t, c = rng.exponential(np.exp(-X[:, 0] - 0.5 * X[:, 1])), rng.exponential(2.0, size=1000)
    yield "synth1000", X, survival_target(t <= c, np.minimum(t, c)), SurvivalAUCSVM, "rbf", (0.1, 1.0)
    yield "mc2000", *make_classification(2000, 10, random_state=0), AUCSVM, "rbf", (0.1, 1.0, 10.0)
    Xb, yb = load_breast_cancer(return_X_y=True)
    yield "wdbc", StandardScaler().fit_transform(Xb), yb, AUCSVM, "rbf", (0.1, 1.0, 10.0)
    yield "mc500lin", *make_classification(500, 20, random_state=1), AUCSVM, "linear", (0.1, 1.0, 10.0)
    yield "mc2000lin", *make_classification(2000, 20, random_state=1), AUCSVM, "linear", (0.1, 1.0)


def run_all(only: list[str]) -> None:
    """Fit every case with the aucopt on ``sys.path``; one JSON line a fit."""
    import numpy as np

    from aucopt import AUCSVM

    warnings.simplefilter("ignore")
    X0 = np.random.default_rng(1).normal(size=(200, 5))
    for kernel in ("rbf", "linear"):  # warm-up: compile or load the kernels
        AUCSVM(method="dcd", kernel=kernel).fit(X0, X0[:, 0] > 0)
    for name, X, y, Est, kernel, Cs in cases():
        if only and name not in only:
            continue
        for C in Cs:
            print_fit_row(f"{name} C={C:g}", Est(C=C, method="dcd", kernel=kernel, random_state=0), X, y)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=None, help="folder holding an earlier aucopt package")
    parser.add_argument("--only", nargs="*", default=[], help="case names (e.g. gbsg2 mc500lin)")
    parser.add_argument("--one", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        run_all(args.one)
        return
    before = measure_version(__file__, args.only, args.before) if args.before else {}
    after = measure_version(__file__, args.only, None)
    print_versions(before, after,
                   lambda r: f"{r['seconds']:6.2f} s {r['epochs']:7,d} {r['status'][:4]} {r['gap']:8.1e}", 28, 16)


if __name__ == "__main__":
    main()
