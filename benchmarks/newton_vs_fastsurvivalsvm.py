"""Benchmark: linear survival RankSVM (aucopt, truncated Newton on the sorted-pair core) vs
scikit-survival's FastSurvivalSVM (optional baseline; GPL, not a dependency).

Both minimize the same problem: ½‖w‖² + (α/2) Σ_{comparable (i,j)} max(0, 1 − (r_i − r_j))² with
r = risk scores, i.e. aucopt's F = (1/N) Σ ℓ + (a/2)‖w‖² (``SurvivalRankSVM(alpha=a)``) with
sksurv's α = 2/(a·N) (F/a is sksurv's objective; Pölsterl, Navab & Katouzian 2015). Times are
distinct (continuous), so both use exactly Harrell's pairs. Each fit runs in its own process
(wall time and peak memory); both objectives are evaluated by the same code.

Data: synthetic proportional-hazards survival data (d = 20, ~40% censored), and the real SUPPORT
and flchain sets when available (../shared/data/survival/support_train_test.h5 with h5py;
scikit-survival's load_flchain).

aucopt's kernels are compiled (numba) on first use and cached on disk; each timed aucopt fit is
preceded by a 200-row fit in the same process (a 131,072-row fit at scale, above every size from
which the kernels take their large paths), so the times are the fit itself. The compile and
cache-load times are measured separately: a fresh process with an empty ``NUMBA_CACHE_DIR``
(cold: compile) and a second one with the same folder (warm: load from the cache).

Scale section (issue 28): SurvivalRankSVM and RankSVM (labels = the event indicator) at
``--scale-n`` rows (default 10⁷, d = 20): wall time, CPU time (user + sys: the machine may be
shared) and peak RSS of the fit (the resident high-water mark from the fit's start, X and the
target included; restarted before the fit on Linux, so that the data generation does not count),
each in its own process; with ``--before DIR`` (a copy of an earlier ``aucopt`` package:
``DIR/aucopt``) the same fits with that code in the same run and their ratios; beside them the
machine's limit estimates, one pass of X·w and one ``np.sort`` of n floats.

    python benchmarks/newton_vs_fastsurvivalsvm.py [--sizes 10000 100000 300000] [--large 1000000 10000000]
        [--scale-n 10000000] [--before /tmp/aucopt-before] [--only-scale]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from _harness import peak_mb, reset_peak, spawn

ALPHA = 1e-4  # aucopt's alpha (penalty multiplier)
HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(HERE, "..", "..", "shared", "data", "survival", "support_train_test.h5")


def synthetic(n: int, d: int = 20, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = np.empty((n, d))
    for a in range(0, n, 1_000_000):  # in row blocks (the same draws): no temporary copy of X
        X[a:a + 1_000_000] = rng.normal(size=(min(n - a, 1_000_000), d))
    beta = rng.normal(size=d) / np.sqrt(d)
    event_time = rng.exponential(np.exp(-(X @ beta)))  # not (-X) @ beta: no negated copy of X
    censor_time = rng.exponential(1.5 * np.median(event_time), size=n)
    return X, event_time <= censor_time, np.minimum(event_time, censor_time)


def load(name: str, n: int):
    if name == "synthetic":
        return synthetic(n)
    from sklearn.preprocessing import StandardScaler

    if name == "support":
        import h5py

        with h5py.File(SHARED, "r") as f:
            X = np.vstack([f["train"]["x"][:], f["test"]["x"][:]])
            t = np.concatenate([f["train"]["t"][:], f["test"]["t"][:]]).astype(float)
            e = np.concatenate([f["train"]["e"][:], f["test"]["e"][:]]).astype(bool)
    else:  # flchain
        import pandas as pd
        from sksurv.datasets import load_flchain

        Xf, y = load_flchain()
        Xf = pd.get_dummies(Xf, drop_first=True).astype(float)
        keep = ~Xf.isna().any(axis=1).to_numpy()
        X, e, t = Xf.to_numpy()[keep], y["death"][keep], y["futime"][keep].astype(float)
    t = t + np.random.default_rng(1).random(len(t)) * 1e-6 * max(1.0, float(np.ptp(t)))  # distinct times
    return StandardScaler().fit_transform(X), e, t


def objective(X, event, time_, w_risk, N):
    """F/a = ½‖w‖² + (α/2) Σ ℓ with α = 2/(a·N), evaluated through the pair core."""
    from aucopt import PairSet
    from aucopt.pairs.core import pair_loss

    L, _ = pair_loss(PairSet.survival(event, time_), X @ w_risk, "squared_hinge")
    return 0.5 * float(w_risk @ w_risk) + L / (ALPHA * N)


def _cpu_seconds() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


#: rows of the warm-up fit before a timed fit at scale (above every size threshold of the kernels)
WARM_ROWS = 1 << 17


def run_scale(estimator: str, n: int) -> dict:
    """One fit at scale in this process: wall and CPU seconds, peak RSS, objective, iterations."""
    import aucopt
    from aucopt import RankSVM, SurvivalRankSVM, survival_target

    X, event, time_ = synthetic(n)
    # the compiled kernels, also those of the large paths (two threads, packed-key sorts) that only
    # run from 65,536 rows on: a fit on WARM_ROWS rows first, so that a changed module's kernels are
    # compiled there and not in the timed fit
    warm = min(n, WARM_ROWS)
    if estimator == "SurvivalRankSVM":
        make, y = SurvivalRankSVM, survival_target(event, time_)
        make(alpha=ALPHA).fit(X[:warm], survival_target(event[:warm], time_[:warm]))
    else:
        make, y = RankSVM, event.astype(np.int8)
        make(alpha=ALPHA).fit(X[:warm], y[:warm])
    reset_peak()  # the fit's peak, not the data generation's
    wall, cpu = time.perf_counter(), _cpu_seconds()
    model = make(alpha=ALPHA, tol=1e-9).fit(X, y)
    wall, cpu = time.perf_counter() - wall, _cpu_seconds() - cpu
    return {"seconds": wall, "cpu": cpu, "peak_mb": peak_mb(), "x_mb": X.nbytes / 2**20,
            "objective": float(model.objective_), "iterations": int(model.n_iter_), "code": aucopt.__file__}


def run_limits(n: int) -> dict:
    """The machine's limit estimates: one pass of X·w (d = 20) and one np.sort of n floats (best of 3)."""
    X, _, _ = synthetic(n)
    w = np.ones(X.shape[1])
    f = X @ w
    best = {"x_pass": np.inf, "sort": np.inf}
    for _ in range(3):
        for name, op in (("x_pass", lambda: X @ w), ("sort", lambda: np.sort(f))):
            cpu = _cpu_seconds()
            op()
            best[name] = min(best[name], _cpu_seconds() - cpu)
    return best


def spawn_with(root: str | None, args: list, time_limit: float) -> dict:
    """:func:`spawn` with ``root`` (a folder holding an ``aucopt`` package) first on the import path."""
    if root is None:
        return spawn(__file__, args, time_limit)
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = root + (os.pathsep + old if old else "")
    try:
        return spawn(__file__, args, time_limit)
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old


def scale_section(n: int, before: str | None, time_limit: float) -> None:
    limits = spawn(__file__, ["limits", "-", n], time_limit)
    print(f"\nscale: n = {n:,}, d = 20; limit estimates (CPU s): one X pass {limits.get('x_pass', np.nan):.3f}, "
          f"one sort of n floats {limits.get('sort', np.nan):.3f}")
    print(f"{'estimator':16} {'code':7} {'wall s':>8} {'cpu s':>8} {'peak MB':>8} {'peak/X':>7} "
          f"{'objective':>20} {'it':>3} | ratios before/now (wall, cpu, peak)")
    for estimator in ("SurvivalRankSVM", "RankSVM"):
        rows = [("now", spawn_with(None, ["scale", estimator, n], time_limit))]
        if before:
            rows.append(("before", spawn_with(before, ["scale", estimator, n], time_limit)))
        for label, r in rows:
            if "seconds" not in r:
                print(f"{estimator:16} {label:7} {r['status']}")
                continue
            print(f"{estimator:16} {label:7} {r['seconds']:8.2f} {r['cpu']:8.2f} {r['peak_mb']:8.0f} "
                  f"{r['peak_mb'] / r['x_mb']:7.2f} {r['objective']:20.15f} {r['iterations']:3d}", end="")
            now = rows[0][1]
            if label == "before" and "seconds" in now:
                gap = abs(r["objective"] - now["objective"]) / abs(r["objective"])
                print(f" | {r['seconds'] / now['seconds']:.2f}x, {r['cpu'] / now['cpu']:.2f}x, "
                      f"{r['peak_mb'] / now['peak_mb']:.2f}x; objective gap {gap:.1e}", end="")
            print(flush=True)


def run_one(method: str, data: str, n: int) -> dict:
    from aucopt import PairSet

    X, event, time_ = load(data, n)
    N = PairSet.survival(event, time_).n_pairs
    if method == "aucopt":  # compile / load the kernels outside the timing
        from aucopt import SurvivalRankSVM, survival_target

        SurvivalRankSVM(alpha=ALPHA).fit(X[:200], survival_target(event[:200], time_[:200]))
    start = time.perf_counter()
    if method == "aucopt":
        model = SurvivalRankSVM(alpha=ALPHA, tol=1e-9).fit(X, survival_target(event, time_))
        w_risk, iters = model.coef_, model.n_iter_
    else:
        import warnings

        from sksurv.svm import FastSurvivalSVM
        from sksurv.util import Surv

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = FastSurvivalSVM(alpha=2.0 / (ALPHA * N), rank_ratio=1.0, fit_intercept=False,
                                    max_iter=100, tol=1e-6, random_state=0)
            model.fit(X, Surv.from_arrays(event, time_))
        result = getattr(model, "optimizer_result_", None)
        w_risk, iters = -model.coef_, getattr(result, "nit", -1)
    seconds = time.perf_counter() - start
    return {"method": method, "data": data, "n": len(time_), "pairs": N, "seconds": seconds,
            "iterations": int(iters), "objective": objective(X, event, time_, w_risk, N),
            "peak_mb": peak_mb()}


COMPILE_SNIPPET = """
import time
t0 = time.perf_counter()
import numpy as np
from aucopt import SurvivalRankSVM, survival_target
t1 = time.perf_counter()
rng = np.random.default_rng(0)
X = rng.normal(size=(200, 5))
y = survival_target(rng.random(200) < 0.6, rng.exponential(size=200))
SurvivalRankSVM(alpha=1e-2).fit(X, y)
t2 = time.perf_counter()
SurvivalRankSVM(alpha=1e-2).fit(X, y)
t3 = time.perf_counter()
print(t1 - t0, (t2 - t1) - (t3 - t2))
"""


def compile_times() -> tuple[float, float]:
    """First-fit overhead (first fit minus a second identical fit) in a fresh process: with an
    empty numba cache (compile) and again with the filled cache (load)."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = []
        for _ in range(2):
            res = subprocess.run([sys.executable, "-c", COMPILE_SNIPPET], env=env, capture_output=True,
                                 text=True, check=True)
            out.append(float(res.stdout.split()[-1]))
    return out[0], out[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 300_000])
    parser.add_argument("--large", type=int, nargs="*", default=[1_000_000, 10_000_000])
    parser.add_argument("--time-limit", type=float, default=1800.0)
    parser.add_argument("--scale-n", type=int, default=10_000_000)
    parser.add_argument("--before", default=None, help="folder holding an earlier aucopt package, for ratios")
    parser.add_argument("--only-scale", action="store_true", help="run the scale section only")
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        method, what, n = args.one[0], args.one[1], int(args.one[2])
        result = (run_scale(what, n) if method == "scale" else run_limits(n) if method == "limits"
                  else run_one(method, what, n))
        print(json.dumps(result))
        return
    if args.only_scale:
        scale_section(args.scale_n, args.before, args.time_limit)
        return
    try:
        import sksurv  # noqa: F401
        have_sksurv = True
    except ImportError:
        have_sksurv = False
        print("scikit-survival is not installed: the baseline column is skipped (pip install scikit-survival).")
    jobs = [("synthetic", n) for n in args.sizes]
    try:
        import h5py  # noqa: F401
        have_h5py = True
    except ImportError:
        have_h5py = False
    if os.path.exists(SHARED) and have_h5py:
        jobs.append(("support", 0))
    else:
        print(f"SUPPORT skipped: needs {os.path.normpath(SHARED)} and h5py (pip install h5py).")
    if have_sksurv:
        jobs.append(("flchain", 0))
    cold, warm = compile_times()
    print(f"first-fit overhead of aucopt's compiled kernels: {cold:.1f} s cold (empty NUMBA_CACHE_DIR: compile), "
          f"{warm:.2f} s warm (loaded from the cache)")
    print(f"alpha = {ALPHA}; objective = ½‖w‖² + (α/2) Σ ℓ_sq (lower is better), sksurv's α = 2/(alpha·N)")
    print(f"{'data':10} {'n':>9} {'pairs':>15} | {'aucopt s':>9} {'obj':>14} {'MB':>6} | "
          f"{'sksurv s':>9} {'obj':>14} {'MB':>6} | speed-up, objective gap")
    for data, n in jobs:
        ours = spawn(__file__, ["aucopt", data, n], args.time_limit)
        base = spawn(__file__, ["sksurv", data, n], args.time_limit) if have_sksurv else {"status": "n/a"}
        row = f"{data:10} {ours.get('n', n):9,d} {ours.get('pairs', 0):15,d} | "
        row += (f"{ours['seconds']:9.2f} {ours['objective']:14.6f} {ours['peak_mb']:6.0f} | "
                if "seconds" in ours else f"{ours['status']:>31} | ")
        row += (f"{base['seconds']:9.2f} {base['objective']:14.6f} {base['peak_mb']:6.0f} | "
                if "seconds" in base else f"{base['status']:>31} | ")
        if "seconds" in ours and "seconds" in base:
            gap = (ours["objective"] - base["objective"]) / abs(base["objective"])
            row += f"{base['seconds'] / ours['seconds']:.1f}x, {gap:+.1e}"
        print(row, flush=True)
    for n in args.large:
        ours = spawn(__file__, ["aucopt", "synthetic", n], args.time_limit)
        print(f"{'synthetic':10} {n:9,d} {ours.get('pairs', 0):15,d} | "
              + (f"{ours['seconds']:9.2f} {ours['objective']:14.6f} {ours['peak_mb']:6.0f} | (aucopt only)"
                 if "seconds" in ours else ours["status"]), flush=True)
    scale_section(args.scale_n, args.before, args.time_limit)


if __name__ == "__main__":
    main()
