"""Benchmark: SurvivalRankSVM on dask.distributed against the in-memory fit, same data, same run.

For each n (default 10⁶ and 10⁷, d = 20), two measurements, each in a fresh process:

* **memory**: X (n × 20 float64) generated in the process (the same numbers as the dask run:
  ``dask.array.random.RandomState(seed)`` with the same chunks, computed with the synchronous
  scheduler), then ``SurvivalRankSVM().fit(X, y)``;
* **dask**: a LocalCluster of 2 worker processes (1 thread each); X, event and time generated
  on the workers and persisted there before the clock starts; ``SurvivalRankSVM().fit(X_dask,
  (event_dask, time_dask))``: the Newton coordination runs in one task on a worker, so y and
  the n-vectors of the solver never reach the measuring process.

Reported: fit time, the driver's peak RSS (``ru_maxrss`` of the measuring process, the client;
it also hosts the scheduler) and its growth above the imports, each worker's peak RSS
(``client.run`` + ``resource``; the coordinating worker, which holds the solver's n-vectors,
first), the share of the products' wall time spent outside the block products (transfers,
serialization, scheduling: ``distributed_stats_["communication_fraction"]``), the per-product
costs, and the ratios dask / memory. The coefficients of both fits are compared.

    python benchmarks/dask_rankers.py [--sizes 1000000 10000000] [--chunk-rows 500000]

About 4 minutes on 2 cores. Measured here (2 cores shared with other jobs):

    n = 10⁶: memory 2.6 s, driver +392 MB | dask 4.7 s, driver +4 MB (3 % of X), coordinating
             worker 634 MB (267 MB before the fit), other worker 267 MB, 17 ms a product,
             communication 47 % of product time; time ratio 1.79x
    n = 10⁷: memory 57.3 s, driver +3,134 MB | dask 63.9 s, driver +6 MB (0.4 % of X),
             coordinating worker 2,690 MB (908 MB before the fit), other worker 1,114 MB,
             157 ms a product (76 MB), communication 57 % of product time, products 4 % of the
             fit; time ratio 1.11x; coef agree to 3e-16

The solver's state (n × 20 to 30 float64 vectors, the sorted-pair core's) lives on the
coordinating worker, next to its share of X; the client only sends block keys and receives
the coefficients, the iteration history and the statistics.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time

import numpy as np

D = 20
SEED = 0


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _rss_mb() -> float:
    """Current resident memory of this process, in MB (Linux)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")  # pragma: no cover


def _imports():
    import dask.array  # noqa: F401
    import distributed  # noqa: F401

    import aucopt  # noqa: F401
    return _rss_mb()


def _data(n, chunk_rows):
    """Lazy X, event and time (a log-normal survival model, 30 % censored)."""
    import dask.array as da

    rs = da.random.RandomState(SEED)
    X = rs.normal(size=(n, D), chunks=(chunk_rows, D))
    beta = np.linspace(1.0, -1.0, D) / np.sqrt(D)
    risk = X @ beta
    time_ = da.exp(-risk + 0.5 * rs.normal(size=n, chunks=chunk_rows))
    event = rs.random_sample(size=n, chunks=chunk_rows) < 0.7
    return X, event, time_


def _estimator():
    from aucopt import SurvivalRankSVM

    return SurvivalRankSVM(alpha=1e-3)


def run_memory(n, chunk_rows):
    import dask

    from aucopt import survival_target

    base = _imports()
    X, event, time_ = _data(n, chunk_rows)
    with dask.config.set(scheduler="synchronous"):
        X, event, time_ = dask.compute(X, event, time_)
    y = survival_target(event, time_)
    start = time.perf_counter()
    model = _estimator().fit(X, y)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "driver_peak_mb": _peak_mb(), "driver_base_mb": base,
            "coef": model.coef_.tolist(), "n_iter": model.n_iter_, "x_mb": X.nbytes / 2**20}


def run_dask(n, chunk_rows):
    from distributed import Client, LocalCluster, wait

    base = _imports()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                      memory_limit="8GiB") as cluster, Client(cluster) as client:
        X, event, time_ = _data(n, chunk_rows)
        X, event, time_ = client.persist([X, event, time_])
        wait([X, event, time_])
        base_workers = client.run(_peak_mb)
        start = time.perf_counter()
        model = _estimator().fit(X, (event, time_))  # y stays on the workers too
        seconds = time.perf_counter() - start
        stats = model.distributed_stats_
        workers = client.run(_peak_mb)
        coordinator = stats["coordinator"]
        others = [m for w, m in sorted(workers.items()) if w != coordinator]
        calls = stats["matvec_calls"] + stats["rmatvec_calls"]
        return {"seconds": seconds, "driver_peak_mb": _peak_mb(), "driver_base_mb": base,
                "coef": model.coef_.tolist(),
                "n_iter": model.n_iter_, "worker_peak_mb": [workers[coordinator], *others],
                "worker_peak_after_generation_mb": [base_workers[coordinator]] +
                [m for w, m in sorted(base_workers.items()) if w != coordinator],
                "communication_fraction": stats["communication_fraction"],
                "product_seconds": stats["seconds"], "products": calls,
                "seconds_per_product": stats["seconds"] / max(calls, 1),
                "worker_seconds": sorted(stats["worker_seconds"].values()),
                "bytes_per_product": (stats["bytes_sent"] + stats["bytes_received"]) / max(calls, 1),
                "n_blocks": stats["n_blocks"], "x_mb": n * D * 8 / 2**20}


def _spawn(kind, n, chunk_rows, time_limit):
    import subprocess

    cmd = [sys.executable, __file__, "--one", kind, str(n), str(chunk_rows)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=time_limit, check=True)
    except subprocess.TimeoutExpired:
        return {"status": f"> {time_limit:.0f} s (stopped)"}
    except subprocess.CalledProcessError as exc:
        tail = (exc.stderr or "").strip().splitlines()[-3:]
        return {"status": f"failed ({exc.returncode}): {' | '.join(tail)[:300]}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--chunk-rows", type=int, default=500_000)
    parser.add_argument("--time-limit", type=float, default=1800.0)
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        kind, n, chunk_rows = args.one[0], int(args.one[1]), int(args.one[2])
        result = (run_memory if kind == "memory" else run_dask)(n, chunk_rows)
        print(json.dumps(result))
        return
    print(f"SurvivalRankSVM(alpha=1e-3), d = {D}, row blocks of {args.chunk_rows:,}, "
          "2 worker processes x 1 thread")
    for n in args.sizes:
        mem = _spawn("memory", n, args.chunk_rows, args.time_limit)
        dsk = _spawn("dask", n, args.chunk_rows, args.time_limit)
        print(f"\nn = {n:,}  (X = {n * D * 8 / 2**20:,.0f} MB)")
        for name, r in (("memory", mem), ("dask", dsk)):
            if "seconds" not in r:
                print(f"  {name:7s} {r['status']}")
                continue
            growth = r["driver_peak_mb"] - r["driver_base_mb"]
            line = (f"  {name:7s} fit {r['seconds']:8.1f} s  {r['n_iter']:3d} Newton iterations  "
                    f"driver peak {r['driver_peak_mb']:6.0f} MB, {growth:6.0f} MB above the "
                    f"{r['driver_base_mb']:.0f} MB after imports ({growth / r['x_mb']:.0%} of X)")
            print(line)
            if name == "dask":
                peaks, gen = r["worker_peak_mb"], r["worker_peak_after_generation_mb"]
                print(f"          workers' peak: coordinating {peaks[0]:.0f} MB (after generating its "
                      f"blocks {gen[0]:.0f}), others {', '.join(f'{m:.0f}' for m in peaks[1:])} MB "
                      f"(after generation {', '.join(f'{m:.0f}' for m in gen[1:])})")
                print(f"          "
                      f"{r['products']} products, {r['seconds_per_product'] * 1e3:.0f} ms and "
                      f"{r['bytes_per_product'] / 2**20:.1f} MB each; block products "
                      f"{', '.join(f'{s:.1f}' for s in r['worker_seconds'])} s per worker; "
                      f"communication {r['communication_fraction']:.0%} of product time; "
                      f"products {r['product_seconds'] / r['seconds']:.0%} of the fit")
        if "seconds" in mem and "seconds" in dsk:
            diff = float(np.max(np.abs(np.subtract(mem["coef"], dsk["coef"]))))
            grow = [r["driver_peak_mb"] - r["driver_base_mb"] for r in (mem, dsk)]
            print(f"  ratio dask / memory: time {dsk['seconds'] / mem['seconds']:.2f}x, driver peak "
                  f"{dsk['driver_peak_mb'] / mem['driver_peak_mb']:.2f}x (growth above imports "
                  f"{grow[1] / grow[0]:.2f}x); max |coef difference| {diff:.1e}")


if __name__ == "__main__":
    main()
