"""Benchmark: dual coordinate descent on a linear kernel, started from Newton's smoothed primal, before and after.

With a linear kernel, ``AUCSVM(method="dcd")`` (what ``method="auto"`` takes above 20,000 pairs for
the hinge) starts from the pair duals of the ε-smoothed hinge's primal optimum, found by truncated
Newton on X (O(nd) a pass, the pairs never listed), instead of α = 0. Each case below is fitted with
the current code and, with ``--before DIR`` (a copy of an earlier ``aucopt`` package: ``DIR/aucopt``,
e.g. ``git archive <rev> aucopt | tar -x -C DIR``), with that code, in the same run: one process per
version, the cases in the same order after a warm-up fit (compilation excluded). Printed per fit:
the time, the epochs, the status and the relative duality gap (primal minus dual, the certificate),
and the time ratio before / after. Each fit is stopped at ``--time-limit`` seconds.

Cases: ``make_classification`` with 20 features and 5 % flipped labels, 1,000 and 2,000 rows
(250,000 and 1 million pairs), C from 0.01 to 100; the same with 5 features at 2,000 rows (a more
degenerate dual); scikit-survival's WHAS500 and GBSG2 (``SurvivalAUCSVM``, Harrell's pairs;
skipped without scikit-survival), C from 0.01 to 10. The hinge throughout.

    python benchmarks/aucsvm_dcd_newton_start.py [--before /tmp/aucopt-before] [--time-limit 120]

About 3 minutes for the current code; the code before stops at the time limit on the large C.
"""

from __future__ import annotations

import argparse
import sys
import warnings

from _harness import measure_version, print_fit_row, print_versions


def cases():
    from sklearn.datasets import make_classification
    from sklearn.preprocessing import StandardScaler

    from aucopt import AUCSVM, SurvivalAUCSVM
    from aucopt.datasets import load_survival

    wide = (0.01, 0.1, 1.0, 10.0, 100.0)
    for n, d in ((1000, 20), (2000, 20), (2000, 5)):
        X, y = make_classification(n_samples=n, n_features=d, n_informative=min(d, 5), n_redundant=0,
                                   flip_y=0.05, random_state=0)
        yield f"mc{n}x{d}", X, y, AUCSVM, wide
    try:
        import sksurv  # noqa: F401
    except ImportError:
        print("scikit-survival is not installed: the survival data sets are skipped", file=sys.stderr)
        return
    for name in ("whas500", "gbsg2"):
        X, y = load_survival(name)
        yield name, StandardScaler().fit_transform(X), y, SurvivalAUCSVM, (0.01, 0.1, 1.0, 10.0)


def run_all(time_limit: float) -> None:
    """Fit every case with the aucopt on ``sys.path``; one JSON line a fit."""
    import numpy as np

    from aucopt import AUCSVM, SurvivalAUCSVM, survival_target

    warnings.simplefilter("ignore")
    X0 = np.random.default_rng(1).normal(size=(300, 5))  # warm-up: compile or load the kernels
    AUCSVM(method="dcd", kernel="linear").fit(X0, X0[:, 0] > 0)
    SurvivalAUCSVM(method="dcd", kernel="linear").fit(X0, survival_target(X0[:, 1] > 0, np.exp(X0[:, 0])))
    for name, X, y, Est, Cs in cases():
        for C in Cs:
            print_fit_row(f"{name} C={C:g}", Est(C=C, method="dcd", kernel="linear", random_state=0,
                                                 solver_options={"time_limit": time_limit}), X, y)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=None, help="folder holding an earlier aucopt package")
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds per fit")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one is not None:
        run_all(float(args.one))
        return
    before = measure_version(__file__, [args.time_limit], args.before) if args.before else {}
    after = measure_version(__file__, [args.time_limit], None)
    print_versions(before, after,
                   lambda r: f"{r['seconds']:7.2f} s {r['epochs']:7,d} {r['status'][:15]:>15s} {r['gap']:8.1e}", 38)


if __name__ == "__main__":
    main()
