"""Benchmark: kernel survival ranking as m grows — RankRC basis (events) vs full basis vs
scikit-survival's FastKernelSurvivalSVM (optional baseline; GPL, not a dependency).

All three minimize a squared-hinge pairwise loss over Harrell's pairs with an RBF kernel:
* aucopt ``SurvivalRankRC(basis="rare")``: f = K_{·R} β over the m_e subjects with events,
  storing only the m × m_e kernel block — O(m·m_e) memory and time per iteration;
* aucopt ``SurvivalRankRC(basis="full")``: f = K β, the m × m kernel (O(m²));
* sksurv ``FastKernelSurvivalSVM(kernel="rbf", alpha=2/(a·N), rank_ratio=1)`` (Pölsterl et al.
  2015), a = aucopt's ``alpha``: also the full kernel, the same objective as the full basis (its
  F/a; scores are −risk), solved by newton-cg with an order-statistic tree per Hessian product.

Data: synthetic proportional-hazards data (d = 10, ~90% censored, so events are the rare
class); each fit in its own process: wall time and peak memory; objectives of the two
full-kernel fits are compared on the same scale (½βᵀKβ + (α/2) Σ ℓ).

    python benchmarks/rankrc_kernel_scaling.py [--sizes 1000 2000 4000 8000 16000]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from _harness import peak_mb, sweep

ALPHA, GAMMA = 1e-3, 0.05  # aucopt's alpha (penalty multiplier), RBF gamma


def synthetic(n: int, d: int = 10, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    beta = rng.normal(size=d) / np.sqrt(d)
    event_time = rng.exponential(np.exp(-(X @ beta) - 0.5 * np.sin(2 * X[:, 0])))
    censor_time = rng.exponential(0.12 * np.median(event_time), size=n)
    return X, event_time <= censor_time, np.minimum(event_time, censor_time)


def run_one(method: str, n: int) -> dict:
    from aucopt import PairSet, SurvivalRankRC, survival_target
    from aucopt.pairs.core import pair_loss

    X, event, t = synthetic(n)
    pairs = PairSet.survival(event, t)
    N = pairs.n_pairs
    start = time.perf_counter()
    if method == "sksurv":
        import warnings

        from sksurv.svm import FastKernelSurvivalSVM
        from sksurv.util import Surv

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = FastKernelSurvivalSVM(alpha=2.0 / (ALPHA * N), rank_ratio=1.0, kernel="rbf",
                                          gamma=GAMMA, max_iter=100, tol=1e-6, random_state=0)
            model.fit(X, Surv.from_arrays(event, t))
        from sklearn.metrics.pairwise import rbf_kernel

        beta = -model.coef_  # its scores are −risk: risk = Kβ
        risk = rbf_kernel(X, X, gamma=GAMMA) @ beta
        reg = float(beta @ risk)
    else:
        model = SurvivalRankRC(alpha=ALPHA, basis="rare" if method == "rankrc" else "full", gamma=GAMMA,
                               loss="squared_hinge", tol=1e-6).fit(X, survival_target(event, t))
        risk = model.decision_function(X)
        Kb = model.kernel_(model.support_vectors_, model.support_vectors_)
        reg = float(model.dual_coef_ @ Kb @ model.dual_coef_)
    seconds = time.perf_counter() - start
    L, _ = pair_loss(pairs, risk, "squared_hinge")
    objective = 0.5 * reg + L / (ALPHA * N)  # F/a = ½βᵀKβ + (α/2)Σℓ, α = 2/(a·N)
    return {"method": method, "n": n, "events": int(event.sum()), "pairs": N, "seconds": seconds,
            "objective": objective, "peak_mb": peak_mb()}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000, 8000, 16000])
    parser.add_argument("--time-limit", type=float, default=900.0)
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one[0], int(args.one[1]))))
        return
    methods = ["rankrc", "full"]
    try:
        import sksurv  # noqa: F401

        methods.append("sksurv")
    except ImportError:
        print("scikit-survival is not installed: FastKernelSurvivalSVM is skipped.")
    print(f"RBF γ={GAMMA}, alpha={ALPHA}, squared hinge; "
          "objective = ½βᵀKβ + (α/2)Σℓ (full-kernel fits comparable)")
    columns = " | ".join(f"{m + ' s':>10} {'MB':>6} {'objective':>12}" for m in methods)
    print(f"{'m':>6} {'events':>6} {'pairs':>12} | " + columns)
    for n, rows in sweep(__file__, methods, args.sizes, args.time_limit):
        first = next((r for r in rows.values() if "n" in r), {})
        cells = []
        for m in methods:
            r = rows[m]
            cells.append(f"{r['seconds']:10.2f} {r['peak_mb']:6.0f} {r['objective']:12.4f}" if "seconds" in r
                         else f"{r['status'][:31]:>31}")
        print(f"{n:6d} {first.get('events', 0):6d} {first.get('pairs', 0):12,d} | " + " | ".join(cells), flush=True)


if __name__ == "__main__":
    main()
