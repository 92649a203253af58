"""Benchmark: aucopt's compiled metrics vs their counterparts in lifelines, scikit-survival and
scikit-learn.

* ``aucopt.metrics.harrell_c`` vs lifelines' ``concordance_index`` and scikit-survival's
  ``concordance_index_censored`` (optional baselines; scikit-survival is GPL, not a dependency);
* ``aucopt.metrics.roc_auc`` vs scikit-learn's ``roc_auc_score``, unweighted and with
  ``sample_weight``.

Data: synthetic proportional-hazards survival data with heavy ties (times rounded to 1/100 of a
unit, about 40% censored, risks rounded to 3 decimals) and binary labels drawn from the same
risks. Every value is checked against each peer in the same run (|difference| ≤ 1e-12; aucopt
runs with ``tied_tol=0``, lifelines' exact ties, and with its default relative tolerance against
scikit-survival's absolute one, which agree here: the risks have magnitude ~1 and no near-ties).
Times are the best of 3 calls (one call for a peer that takes over 2 s), the ratios are the
peer's time over aucopt's, measured in the same process. A peer is skipped at a size where its
measured growth predicts more than ``--peer-limit`` seconds (scikit-survival's concordance is
quadratic in n).

The compile time of the numba kernels is reported separately: the first calls of ``harrell_c``
and ``roc_auc`` (unweighted and weighted, then ``harrell_c`` through the packed-key sort that
arrays of 2,000,000 entries or more take) in a fresh process with an empty numba cache
(``NUMBA_CACHE_DIR`` pointed at a new folder: compilation), then in a second fresh process with
that cache (loading the compiled code), then once more in the same process (steady state).

    python benchmarks/metrics_vs_peers.py [--sizes 10000 100000 1000000 10000000] [--peer-limit 60]
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

REPEATS = 3
# Growth exponents predicting a peer's time at the next size from its last measurement (lifelines
# and scikit-learn sort: n log n, measured 10x per 10x from 10^6 to 10^7; scikit-survival: n^2).
GROWTH = {"lifelines": 1.05, "sksurv": 2.0, "sklearn": 1.1, "sklearn weighted": 1.1}


def synthetic(n: int, seed: int = 0):
    """(event, time, risk, label, weight): tied times and risks, ~40% censored."""
    rng = np.random.default_rng(seed)
    hazard = rng.normal(size=n)
    event_time = rng.exponential(np.exp(-hazard))
    censor_time = rng.exponential(1.5 * np.median(event_time), size=n)
    event = event_time <= censor_time
    time_ = np.round(np.minimum(event_time, censor_time), 2)
    risk = np.round(hazard + rng.normal(size=n), 3)
    label = rng.random(n) < 1.0 / (1.0 + np.exp(-hazard))
    weight = rng.integers(0, 4, n) * rng.random(n)
    return event, time_, risk, label, weight


def best_time(func, repeats: int = REPEATS):
    """(value, seconds): the best of ``repeats`` calls, or of one call when it takes over 2 s."""
    best, value = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        value = func()
        best = min(best, time.perf_counter() - start)
        if best > 2.0:
            break
    return value, best


def compile_times() -> dict:
    """First-call times in fresh processes: empty numba cache, then the same cache warm."""
    script = (
        "import time, json\n"
        "import numpy as np\n"
        "from aucopt.metrics import harrell_c, roc_auc\n"
        "e = np.array([True, False, True, True]); t = np.array([1.0, 2.0, 3.0, 4.0])\n"
        "r = np.array([0.3, 0.1, 0.2, 0.2]); w = np.array([1.0, 2.0, 1.0, 1.0])\n"
        "calls = {'harrell_c': lambda: harrell_c((e, t), r),\n"
        "         'harrell_c weighted': lambda: harrell_c((e, t), r, sample_weight=w),\n"
        "         'roc_auc': lambda: roc_auc(e, r),\n"
        "         'roc_auc weighted': lambda: roc_auc(e, r, sample_weight=w),\n"
        "         'packed-key sort (n >= 2e6)': lambda: harrell_c((e, t), r)}\n"
        "out = {}\n"
        "for name, call in calls.items():\n"
        "    if name.startswith('packed'):  # the sort kernels used from PACKED_SORT_MIN entries on\n"
        "        import aucopt._metrics_numba; aucopt._metrics_numba.PACKED_SORT_MIN = 0\n"
        "    start = time.perf_counter(); call(); first = time.perf_counter() - start\n"
        "    start = time.perf_counter(); call(); out[name] = (first, time.perf_counter() - start)\n"
        "print(json.dumps(out))\n"
    )
    results = {}
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for label in ("empty cache", "warm cache"):
            out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                                 check=True)
            results[label] = json.loads(out.stdout.strip().splitlines()[-1])
    return results


def warm_up(event, time_, risk, label, weight):
    """Compile (or load) every kernel the timed calls use, the packed-key sort included."""
    import aucopt._metrics_numba as kernels
    from aucopt.metrics import harrell_c, roc_auc

    saved = kernels.PACKED_SORT_MIN
    try:
        for packed in (True, False):
            kernels.PACKED_SORT_MIN = 0 if packed else saved
            harrell_c((event[:10], time_[:10]), risk[:10])
            harrell_c((event[:10], time_[:10]), risk[:10], sample_weight=weight[:10] + 1)
            roc_auc(label[:10], risk[:10], sample_weight=weight[:10] + 1)
            roc_auc(label[:10], risk[:10])
    finally:
        kernels.PACKED_SORT_MIN = saved


def main():  # noqa: PLR0915 - the benchmark script, read top to bottom
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000, 10_000_000])
    parser.add_argument("--peer-limit", type=float, default=60.0,
                        help="skip a peer where its predicted time exceeds this many seconds")
    args = parser.parse_args()

    from sklearn.metrics import roc_auc_score

    from aucopt.metrics import harrell_c, roc_auc

    peers = {}
    try:
        from lifelines.utils import concordance_index

        peers["lifelines"] = lambda e, t, r: concordance_index(t, -r, e)
    except ImportError:
        print("lifelines is not installed: its column is skipped (pip install lifelines).")
    try:
        from sksurv.metrics import concordance_index_censored

        peers["sksurv"] = lambda e, t, r: concordance_index_censored(e, t, r)[0]
    except ImportError:
        print("scikit-survival is not installed: its column is skipped (pip install scikit-survival).")

    print("First calls (seconds; the kernels are compiled once per machine and cached):")
    for label, row in compile_times().items():
        print(f"  {label:12}: " + ", ".join(f"{name} {first:.2f} (then {again * 1e3:.2f} ms)"
                                          for name, (first, again) in row.items()))
    print()

    last = {}  # peer -> (n, seconds) of its last measurement

    def run_peer(name, n, func):
        if name in last:
            n0, s0 = last[name]
            predicted = s0 * (n / n0) ** GROWTH[name]
            if predicted > args.peer_limit:
                return None, f"skipped (~{predicted:,.0f} s predicted)"
        value, seconds = best_time(func)
        last[name] = (n, seconds)
        return value, seconds

    header = f"{'metric':24} {'n':>11} {'aucopt ms':>10} | {'peer':10} {'peer ms':>10} {'ratio':>7}  equal"
    print(header)
    print("-" * len(header))
    for n in args.sizes:
        event, time_, risk, label, weight = synthetic(n)
        warm_up(event, time_, risk, label, weight)
        rows = []
        ours_exact, t_exact = best_time(lambda: harrell_c((event, time_), risk, tied_tol=0))
        ours_tol, t_tol = best_time(lambda: harrell_c((event, time_), risk))
        for name, ours, t_ours in (("lifelines", ours_exact, t_exact), ("sksurv", ours_tol, t_tol)):
            if name in peers:
                peer = run_peer(name, n, lambda f=peers[name]: f(event, time_, risk))
                rows.append(("harrell_c", t_ours, name, ours, peer))
        ours, t_ours = best_time(lambda: roc_auc(label, risk, tied_tol=0))
        rows.append(("roc_auc", t_ours, "sklearn", ours,
                     run_peer("sklearn", n, lambda: roc_auc_score(label, risk))))
        ours, t_ours = best_time(lambda: roc_auc(label, risk, tied_tol=0, sample_weight=weight))
        rows.append(("roc_auc sample_weight", t_ours, "sklearn", ours,
                     run_peer("sklearn weighted", n, lambda: roc_auc_score(label, risk, sample_weight=weight))))
        ours, t_ours = best_time(lambda: harrell_c((event, time_), risk, sample_weight=weight))
        rows.append(("harrell_c sample_weight", t_ours, "-", ours, (None, "(no peer)")))
        for metric, t_ours, peer, ours, (theirs, t_peer) in rows:
            line = f"{metric:24} {n:11,d} {t_ours * 1e3:10.1f} | {peer:10} "
            if isinstance(t_peer, str):
                line += f"{t_peer}"
            else:
                equal = abs(ours - theirs) <= 1e-12
                verdict = "yes" if equal else f"NO ({ours} vs {theirs})"
                line += f"{t_peer * 1e3:10.1f} {t_peer / t_ours:6.1f}x  {verdict}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
