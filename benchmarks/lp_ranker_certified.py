"""Benchmark: the LP Ranker at any size — every route side by side, certified gaps, defaults.

Every fit runs in its own process under a time limit (a route that fails or runs out of time at
one size is not tried at larger ones). Objectives are checked in the same run: the exact routes
agree, and every route's objective lies above the best exact optimum and its certified lower bound
below it.

    python benchmarks/lp_ranker_certified.py [--parts defaults routes curves coil calibrate]
        [--sizes 1000 2000 10000] [--data wdbc digits8 whas500 | none] [--time-limit 600]
        [--data-dir DIR] [--figure PNG]

Parts (all by default, in this order):

* ``defaults`` — the defaults a new user meets: ``LPRanker().fit`` on
  ``make_classification(n_samples=2000, n_features=20, weights=[0.94])``; a 5-fold
  ``cross_val_score`` of ``make_pipeline(preprocessing, SurvivalLPRanker(C=1, gamma=0.05))`` on
  scikit-survival's GBSG2; ``SurvivalLPRanker(C=1.0, gamma=0.05)`` on WHAS500. Seconds, the route
  ``method="auto"`` chose and its certified gap.
* ``routes`` — WDBC, digits 8-vs-rest, WHAS500 (80 % training splits) and two noisy half-moons in
  10-d at ``--sizes`` points (a test set of 2,000 fresh points): the full LP, row-and-column
  generation (exact), smoothing (certified gap 1e-3) and the subgradient of Ataman (2007). Seconds,
  peak memory, objective, certified gap, the true gap above the exact optimum where one finished,
  and the held-out AUC (Harrell's C for WHAS500).
* ``curves`` — the certified gap against time of smoothing (to 1e-4), generation and the
  subgradient on the half-moons: the time each first certifies 1e-1, 1e-2, 1e-3 and 1e-4 and,
  with ``--figure``, the curves.
* ``coil`` — CoIL 2000 (the data folder's ``coil2000/ticdata.csv.gz``): all 5,822 training
  customers at the thesis's γ = 0.01, C = 10 (smoothing and the subgradient), buyers among the
  top 20 % of the 4,000 evaluation customers; then C chosen on a validation third of the training
  rows along a warm-started path, refitted on all of them.
* ``calibrate`` — the runtime model of ``method="auto"`` (``aucopt._runtime``): the full LP and
  smoothing on growing problems, measured against the model's predictions; among them the defaults
  ``LPRanker()`` on ``make_classification`` (20 features, 30 % positives) of 1,000 to 3,000 rows and
  ``SurvivalLPRanker()`` on synthetic proportional-hazards data of 500 to 2,000 subjects.

Data: scikit-learn's WDBC and digits, scikit-survival's WHAS500 and GBSG2 (the ``survival``
extra; those rows are skipped without it), synthetic half-moons; CoIL 2000 from the data folder
(``--data-dir``, else ``AUCOPT_DATA``, else ``shared/data`` beside the checkout).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings

import numpy as np
from _harness import peak_mb, spawn

ROUTES = ("full", "generation", "smoothing", "subgradient")
GAMMA, C = 1.0, 10.0  # the half-moons, WDBC and digits (the thesis's grid values)
MILESTONES = (1e-1, 1e-2, 1e-3, 1e-4)


# ============================================================================ data
def moons(n: int, seed: int = 0):
    """Two noisy interleaved half-moons in 10-d (unscaled; ``lp_ranker_scale.synthetic`` min-max scales them)."""
    from sklearn.datasets import make_moons

    X2, y = make_moons(n, noise=0.3, random_state=seed)
    return np.hstack([X2, np.random.default_rng(seed).normal(scale=0.3, size=(n, 8))]), y


def synthetic_survival(m: int, seed: int = 0):
    """Proportional-hazards survival data: 20 standard normal features, hazard exp(x₀ + x₁/2),
    independent exponential censoring (about 40 % censored)."""
    from aucopt import survival_target

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 20))
    event_time, censor_time = rng.exponential(np.exp(-X[:, 0] - 0.5 * X[:, 1])), rng.exponential(1.0, m)
    return X, survival_target(event_time <= censor_time, np.minimum(event_time, censor_time))


def survival_frame(name: str):
    import pandas as pd
    from sklearn.preprocessing import StandardScaler
    from sksurv.datasets import load_gbsg2, load_whas500

    X, y = load_whas500() if name == "whas500" else load_gbsg2()
    return StandardScaler().fit_transform(pd.get_dummies(X, drop_first=True).astype(float)), y


def dataset(name: str):
    """(X_train, y_train, X_test, y_test, estimator class, C, gamma)."""
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import MinMaxScaler

    from aucopt import LPRanker, SurvivalLPRanker

    if name.startswith("moons"):  # the training points of lp_ranker_scale.synthetic, 2,000 fresh test points
        X, y = moons(int(name[5:]))
        Xt, yt = moons(2000, seed=1)
        scaler = MinMaxScaler().fit(X)
        return scaler.transform(X), y, scaler.transform(Xt), yt, LPRanker, C, GAMMA
    if name == "whas500":
        X, y = survival_frame(name)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, train_size=0.8, random_state=0)
        return X_tr, y_tr, X_te, y_te, SurvivalLPRanker, 1.0, 0.05
    from sklearn.datasets import load_breast_cancer, load_digits

    if name == "wdbc":
        X, y = load_breast_cancer(return_X_y=True)
        y = (y == 0).astype(int)
    else:
        X, y = load_digits(return_X_y=True)
        keep = np.random.default_rng(0).permutation(len(y))[:600]
        X, y = X[keep], (y[keep] == 8).astype(int)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, train_size=0.8, stratify=y, random_state=0)
    scaler = MinMaxScaler().fit(X_tr)
    return scaler.transform(X_tr), y_tr, scaler.transform(X_te), y_te, LPRanker, C, GAMMA


# ============================================================================ one fit (in its own process)
def _curve(model) -> list:
    """(seconds, best objective, best lower bound) of the route's record, thinned to ~200 points."""
    run, points = model.method_result_, []
    if run is None:
        return points
    best_F, best_LB = math.inf, 0.0
    for r in run.history:
        best_F = min(best_F, r.get("best", r.get("objective", math.inf)))
        best_LB = max(best_LB, r.get("best_lower_bound", r.get("lower_bound", 0.0)))
        points.append((r["seconds"], best_F, best_LB))
    step = max(1, len(points) // 200)
    return points[::step] + points[-1:]


def run_fit(route: str, name: str, tol: str, limit: str) -> dict:
    X, y, Xt, yt, make, c, gamma = dataset(name)
    # the route stops itself a little before the process is stopped, and reports what it reached
    options = {"method": route, "max_bytes": None, "solver_options": {"time_limit": 0.9 * float(limit)}}
    if route == "smoothing":
        options["tol"] = float(tol)
    if route == "subgradient":
        options["support_threshold"] = 1e-3
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = make(C=c, gamma=gamma, **options).fit(X, y)
    return {"seconds": time.perf_counter() - start, "peak_mb": peak_mb(), "objective": model.objective_,
            "gap": model.optimality_gap_, "lower_bound": _lower_bound(model), "test": model.score(Xt, yt),
            "pairs": int(model.n_pairs_), "points": len(y), "curve": _curve(model)}


def _lower_bound(model) -> float:
    run = model.method_result_
    if run is None:  # the full LP: its optimum, to HiGHS's tolerance (no bound when it stopped early)
        return model.objective_ if model.optimality_gap_ == 0.0 else float("nan")
    return float(getattr(run, "lower_bound", float("nan")))


def run_default(which: str) -> dict:
    from aucopt import LPRanker, SurvivalLPRanker

    start = time.perf_counter()
    if which == "make_classification":
        from sklearn.datasets import make_classification

        X, y = make_classification(n_samples=2000, n_features=20, weights=[0.94], random_state=0)
        model = LPRanker().fit(X, y)
        return {"seconds": time.perf_counter() - start, "method": model.method_, "gap": model.optimality_gap_,
                "pairs": int(model.n_pairs_)}
    if which == "whas500":
        X, y = survival_frame("whas500")
        model = SurvivalLPRanker(C=1.0, gamma=0.05).fit(X, y)
        return {"seconds": time.perf_counter() - start, "method": model.method_, "gap": model.optimality_gap_,
                "pairs": int(model.n_pairs_)}
    from sklearn.compose import make_column_transformer
    from sklearn.model_selection import KFold, cross_validate
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler
    from sksurv.datasets import load_gbsg2

    X, y = load_gbsg2()
    categorical = X.select_dtypes("category").columns
    preprocessing = make_column_transformer((OneHotEncoder(drop="first"), categorical), remainder=StandardScaler())
    out = cross_validate(make_pipeline(preprocessing, SurvivalLPRanker(C=1, gamma=0.05)), X, y, cv=KFold(5),
                         return_estimator=True)
    models = [p[-1] for p in out["estimator"]]
    return {"seconds": time.perf_counter() - start, "method": "/".join(sorted({m.method_ for m in models})),
            "gap": max(m.optimality_gap_ for m in models), "pairs": int(np.mean([m.n_pairs_ for m in models])),
            "score": float(np.mean(out["test_score"]))}


def run_calibration(route: str, kind: str, m: str) -> dict:
    from sklearn.metrics.pairwise import rbf_kernel

    from aucopt import LPRanker, PairSet, SurvivalLPRanker, _runtime

    m = int(m)
    if kind == "survival":
        X, y = survival_frame("whas500")
        X, y = X[:m], y[:m]
        model, pairs = SurvivalLPRanker(C=1.0, gamma=0.05, method=route, max_bytes=None), PairSet.survival(y)
    elif kind == "synthetic-survival":  # the default estimator on data of the size of the claim "seconds"
        X, y = synthetic_survival(m)
        model, pairs = SurvivalLPRanker(method=route, max_bytes=None), PairSet.survival(y)
    elif kind == "classification":  # the default estimator on make_classification, 30 % positives
        from sklearn.datasets import make_classification

        X, y = make_classification(m, 20, weights=[0.7], flip_y=0.05, random_state=0)
        model, pairs = LPRanker(method=route, max_bytes=None), PairSet.bipartite(y)
    else:
        from sklearn.preprocessing import minmax_scale

        X, y = moons(m)
        X = minmax_scale(X)
        model, pairs = LPRanker(C=C, gamma=GAMMA, method=route, max_bytes=None), PairSet.bipartite(y)
    rbf_kernel(X[:50], gamma=1.0)  # imports and compiled kernels loaded before the clock starts
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    predicted = model.predicted_seconds(route, pairs)
    return {"seconds": time.perf_counter() - start, "predicted": predicted, "points": m, "pairs": pairs.n_pairs,
            "target": pairs.target, "gap": model.optimality_gap_, "model": str(_runtime.FULL_LP_SECONDS)}


# ============================================================================ the parts
def part_defaults(limit):
    print("Defaults (method='auto'; each in its own process)")
    print(f"{'fit':>58} | {'seconds':>8} | {'route':>10} | {'certified gap':>13} | target")
    targets = {"make_classification": 30, "gbsg2_cv": 120, "whas500": 30}
    labels = {"make_classification": "LPRanker().fit, make_classification 2,000 × 20 (6 % positives)",
              "gbsg2_cv": "GBSG2: 5-fold cross_val_score, SurvivalLPRanker(C=1, gamma=0.05)",
              "whas500": "SurvivalLPRanker(C=1.0, gamma=0.05).fit on WHAS500"}
    for which, target in targets.items():
        r = spawn(__file__, ["default", which], limit)
        if "seconds" not in r:
            print(f"{labels[which]:>58} | {r['status']}")
            continue
        ok = "✓" if r["seconds"] <= target else "✗"
        print(f"{labels[which]:>58} | {r['seconds']:8.1f} | {r['method']:>10} | {r['gap']:13.2e} | ≤ {target} s {ok}",
              flush=True)


def part_routes(names, limit):
    print("\nRoutes side by side (each fit in its own process; smoothing at the default tol = 1e-3)")
    print(f"{'data':>10} {'points':>6} {'pairs':>11} | {'route':>11} | {'seconds':>8} {'peak MB':>8} | "
          f"{'objective':>13} {'cert. gap':>9} {'true gap':>9} | {'test AUC/C':>10}")
    from aucopt import PairSet, _runtime

    stopped = set()
    results = {}
    for name in names:
        rows = {}
        _, y, *_ = dataset(name)
        pairs = PairSet.survival(y) if name == "whas500" else PairSet.bipartite(y)
        for route in ROUTES:
            if route in stopped:
                rows[route] = {"status": "skipped (smaller size failed)"}
                continue
            predicted = _runtime.full_lp_seconds(len(y), pairs.n_pairs, pairs.target)
            if route == "full" and predicted > 3 * limit:
                rows[route] = {"status": f"not run: predicted {_runtime.describe(predicted)} (runtime model)"}
                continue
            rows[route] = spawn(__file__, ["fit", route, name, "1e-3", limit], limit)
            if "seconds" not in rows[route] and name.startswith("moons"):
                stopped.add(route)
        exact = [r["objective"] for k, r in rows.items() if k in ("full", "generation") and "seconds" in r
                 and r["gap"] == 0.0]
        optimum = min(exact) if exact else None
        if len(exact) == 2:
            assert abs(exact[0] - exact[1]) <= 1e-7 * optimum, f"{name}: the exact routes disagree: {exact}"
        for route, r in rows.items():
            if "seconds" not in r:
                print(f"{name:>10} {'':>6} {'':>11} | {route:>11} | {r['status']}")
                continue
            if optimum is not None:  # every bound on the same side of the optimum
                assert r["objective"] >= optimum * (1 - 1e-8), (name, route)
                assert not r["lower_bound"] > optimum * (1 + 1e-8), (name, route)
            true = "" if optimum is None else f"{(r['objective'] - optimum) / r['objective']:9.1e}"
            print(f"{name:>10} {r['points']:6d} {r['pairs']:11,d} | {route:>11} | {r['seconds']:8.1f} "
                  f"{r['peak_mb']:8.0f} | {r['objective']:13.8g} {r['gap']:9.1e} {true:>9} | {r['test']:10.4f}",
                  flush=True)
        results[name] = (rows, optimum)
    return results


def part_curves(sizes, limit, figure, done=None):
    """``done``: the routes part's results, {data name: ({route: result}, optimum)}; generation and
    the subgradient do not depend on ``tol`` and are not run again."""
    print("\nCertified gap against time (half-moons, RBF γ = 1, C = 10): seconds to the first certificate of")
    print(f"{'points':>6} | {'route':>11} | " + " | ".join(f"gap ≤ {m:g}" for m in MILESTONES) + " | end")
    curves = {}
    for n in sizes:
        for route in ("smoothing", "generation", "subgradient"):
            previous = (done or {}).get(f"moons{n}", ({}, None))[0].get(route)
            r = previous if route != "smoothing" and previous else \
                spawn(__file__, ["fit", route, f"moons{n}", "1e-4", limit], limit)
            if "seconds" not in r:
                print(f"{n:6d} | {route:>11} | {r['status']}")
                continue
            curve = [(t, (F - lb) / F) for t, F, lb in r["curve"]] or [(r["seconds"], r["gap"])]
            curves[(n, route)] = curve
            cells = []
            for m in MILESTONES:
                hit = next((t for t, g in curve if g <= m), None)
                cells.append(f"{hit:8.1f} s" if hit is not None else f"{'—':>10}")
            print(f"{n:6d} | {route:>11} | " + " | ".join(cells) + f" | {r['seconds']:.0f} s, gap {r['gap']:.1e}",
                  flush=True)
    if figure and curves:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, len(sizes), figsize=(4.2 * len(sizes), 3.4), sharey=True)
        for ax, n in zip(np.atleast_1d(axes), sizes, strict=False):
            for route, style in (("smoothing", "-"), ("generation", "--"), ("subgradient", ":")):
                if (n, route) in curves:
                    t, g = zip(*curves[(n, route)], strict=False)
                    ax.step(t, np.maximum(g, 1e-7), style, where="post", label=route)
            ax.set(xscale="log", yscale="log", title=f"half-moons, {n:,} points", xlabel="seconds")
            ax.grid(alpha=0.3)
        np.atleast_1d(axes)[0].set_ylabel("certified relative gap")
        np.atleast_1d(axes)[0].legend()
        fig.tight_layout()
        fig.savefig(figure, dpi=110)
        print(f"figure: {figure}")


def run_coil(data_dir) -> dict:
    from sklearn.metrics.pairwise import rbf_kernel
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import MinMaxScaler

    from aucopt import LPRanker, PairSet
    from aucopt.datasets import load_coil2000
    from aucopt.lp import smoothing, subgradient

    X, y, X_eval, y_eval = load_coil2000(data_dir=None if data_dir == "-" else data_dir)
    scaler = MinMaxScaler().fit(X)
    X, X_eval = scaler.transform(X), scaler.transform(X_eval)

    def buyers(scores):
        return int(y_eval[np.argsort(-scores, kind="stable")[:len(y_eval) // 5]].sum())

    out = {}
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    model = LPRanker(C=10.0, gamma=0.01).fit(X, y)
    out["smoothing"] = {"seconds": time.perf_counter() - start, "gap": model.optimality_gap_,
                        "objective": model.objective_, "buyers": buyers(model.decision_function(X_eval)),
                        "method": model.method_}
    K, pairs = rbf_kernel(X, gamma=0.01), PairSet.bipartite(y)
    start = time.perf_counter()
    run = subgradient(K, pairs, 10.0, step0=1.0, step_min=0.005, target_frac=0.05, patience=10, shrink=1.5,
                      max_iter=2000)
    alpha = np.where(run.alpha > 1e-6, run.alpha, 0.0)
    out["subgradient"] = {"seconds": time.perf_counter() - start, "gap": run.gap, "objective": run.objective,
                          "buyers": buyers(rbf_kernel(X_eval, X, gamma=0.01) @ (pairs.signs * alpha))}
    # C on a validation third of the training rows (the thesis's protocol), a warm-started path
    start = time.perf_counter()
    X_fit, X_val, y_fit, y_val = train_test_split(X, y, test_size=1 / 3, stratify=y, random_state=0)
    K_fit, K_val, fit_pairs = rbf_kernel(X_fit, gamma=0.01), rbf_kernel(X_val, X_fit, gamma=0.01), \
        PairSet.bipartite(y_fit)
    from aucopt.metrics import roc_auc

    path, previous = [], None
    for c in (1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 1.0, 10.0):
        previous = smoothing(K_fit, fit_pairs, c, warm_start=previous, max_bytes=None)
        path.append((c, roc_auc(y_val, K_val @ (fit_pairs.signs * previous.alpha)), previous.gap))
    best_C = max(path, key=lambda p: p[1])[0]
    model = LPRanker(C=best_C, gamma=0.01).fit(X, y)
    out["validated"] = {"seconds": time.perf_counter() - start, "C": best_C, "gap": model.optimality_gap_,
                        "buyers": buyers(model.decision_function(X_eval)), "path": path}
    return out


def part_coil(limit, data_dir):
    print("\nCoIL 2000: 5,822 training customers (348 buyers, 1,905,096 pairs), 4,000 evaluation customers")
    r = spawn(__file__, ["coil", data_dir or "-"], limit)
    if "smoothing" not in r:
        print(f"  {r.get('status', r)} (pass --data-dir with coil2000/ticdata.csv.gz)")
        return
    s, g, v = r["smoothing"], r["subgradient"], r["validated"]
    print(f"  C = 10, γ = 0.01, LPRanker() ({s['method']}): {s['seconds']:.1f} s, certified gap {s['gap']:.1e}, "
          f"F = {s['objective']:.6g}, buyers in the top 20 %: {s['buyers']}")
    print(f"  C = 10, γ = 0.01, subgradient (thesis's step rule): {g['seconds']:.1f} s, certified gap "
          f"{g['gap']:.2%}, F = {g['objective']:.6g}, buyers: {g['buyers']}")
    print("  C chosen on a validation third (warm-started smoothing path): "
          + ", ".join(f"C={c:g}: AUC {a:.4f}" for c, a, _ in v["path"]))
    print(f"  refit at C = {v['C']:g} on all training rows: {v['seconds']:.1f} s in all, certified gap "
          f"{v['gap']:.1e}, buyers: {v['buyers']}")


def part_calibrate(limit):
    from aucopt import _runtime

    print("\nRuntime model (method='auto'): measured against predicted, each fit in its own process")
    print(f"{'route':>9} {'target':>18} {'points':>6} {'pairs':>9} | {'seconds':>8} {'predicted':>9} {'ratio':>6}")
    grid = [("full", "bipartite", (250, 350, 500, 700)), ("full", "survival", (200, 300, 400, 500)),
            ("smoothing", "bipartite", (500, 1000, 2000, 5000)), ("smoothing", "survival", (300, 500)),
            ("smoothing", "classification", (1000, 2000, 3000)),
            ("smoothing", "synthetic-survival", (500, 1000, 1500, 2000))]
    for route, kind, sizes in grid:
        for m in sizes:
            r = spawn(__file__, ["calibrate", route, kind, m], limit)
            if "seconds" not in r:
                print(f"{route:>9} {kind:>18} {m:6d} | {r['status']}")
                break
            print(f"{route:>9} {kind:>18} {m:6d} {r['pairs']:9,d} | {r['seconds']:8.2f} {r['predicted']:9.2f} "
                  f"{r['seconds'] / r['predicted']:6.2f}", flush=True)
    print(f"model: full LP {_runtime.FULL_LP_SECONDS}, smoothing {_runtime.SMOOTHING_SECONDS} "
          "(a ratio above 1 is an under-prediction)")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        kind, *rest = sys.argv[2:]
        out = {"fit": run_fit, "default": run_default, "calibrate": run_calibration, "coil": run_coil}[kind](*rest)
        print(json.dumps(out))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", nargs="+", default=["defaults", "routes", "curves", "coil", "calibrate"],
                        choices=["defaults", "routes", "curves", "coil", "calibrate"])
    parser.add_argument("--sizes", nargs="+", type=int, default=[1000, 2000, 10000])
    parser.add_argument("--time-limit", type=float, default=600.0)
    parser.add_argument("--data", nargs="+", default=["wdbc", "digits8", "whas500"],
                        help="the real data sets of the routes part (the half-moons come from --sizes)")
    parser.add_argument("--data-dir", default=None)
    parser.add_argument("--figure", default=None, help="PNG file for the gap-against-time curves")
    args = parser.parse_args()
    if "defaults" in args.parts:
        part_defaults(args.time_limit)
    done = None
    if "routes" in args.parts:
        done = part_routes([d for d in args.data if d != "none"] + [f"moons{n}" for n in args.sizes], args.time_limit)
    if "curves" in args.parts:
        part_curves(args.sizes, args.time_limit, args.figure, done)
    if "coil" in args.parts:
        part_coil(args.time_limit, args.data_dir)
    if "calibrate" in args.parts:
        part_calibrate(args.time_limit)


if __name__ == "__main__":
    main()
