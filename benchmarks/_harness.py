"""Shared benchmark plumbing: run one measurement in a fresh process (wall time, peak RSS)."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable


def peak_mb() -> float:
    """Peak resident memory of this process in MB: since the last :func:`reset_peak` where Linux
    allows it (``VmHWM``), else since the process started (``ru_maxrss``, in kB on Linux)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def reset_peak() -> bool:
    """Start :func:`peak_mb` again from the current resident memory (Linux: ``clear_refs``), so
    that the peak of a measured call is not that of the data generation before it. Whether it could."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


def spawn(script: str, args: list, time_limit: float) -> dict:
    """Run ``python script --one *args`` and return the JSON dict it prints last, or a status."""
    cmd = [sys.executable, script, "--one", *map(str, args)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=time_limit, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1])
    except subprocess.TimeoutExpired:
        return {"status": f"> {time_limit:.0f} s (stopped)"}
    except subprocess.CalledProcessError as exc:
        if exc.returncode < 0:  # e.g. SIGKILL from the out-of-memory killer
            return {"status": f"killed (signal {-exc.returncode})"}
        tail = (exc.stderr or "").strip().splitlines()[-1:] or ["?"]
        return {"status": f"failed: {tail[0][:60]}"}


def sweep(script: str, methods, sizes, time_limit: float):
    """Yield ``(size, {method: result})`` over growing sizes, each run in its own process;
    a method that failed or ran out of time at one size is not tried at larger ones."""
    stopped = set()
    for n in sizes:
        rows = {m: ({"status": "skipped (smaller size failed)"} if m in stopped
                    else spawn(script, [m, n], time_limit)) for m in methods}
        stopped |= {m for m, r in rows.items() if "seconds" not in r}
        yield n, rows


def measure_version(script: str, args: list[str], path: str | None) -> dict:
    """Run ``python script --one *args`` with ``path`` (a folder holding an earlier ``aucopt``
    package) first on ``PYTHONPATH``, or the aucopt installed here when None; the script prints
    one JSON line a fit with a ``"case"`` key. Returns {case: row}."""
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = os.path.abspath(path) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, script, "--one", *map(str, args)], capture_output=True, text=True, env=env,
                         check=True, cwd=os.path.dirname(os.path.abspath(script)))
    return {row["case"]: row for row in map(json.loads, out.stdout.strip().splitlines())}


def print_versions(before: dict, after: dict, cell: Callable[[dict], str], width: int, case_width: int = 18) -> None:
    """The before/after table of :func:`measure_version`'s rows: ``cell(row)`` per version (``width``
    characters) and the time ratio before / after."""
    print(f"{'case':{case_width}s} {'before':>{width}s} {'after':>{width}s} {'before/after':>12s}")
    for case, row in after.items():
        old = before.get(case)
        ratio = f"{old['seconds'] / row['seconds']:12.2f}" if old else ""
        print(f"{case:{case_width}s} {cell(old) if old else '':>{width}s} {cell(row):>{width}s} {ratio}")


def print_fit_row(case: str, estimator, X, y) -> None:
    """Fit an AUC-SVM and print the row :func:`measure_version` reads: the case, the seconds, the
    iterations (``n_iter_``), the status and the relative duality gap (primal minus dual)."""
    start = time.perf_counter()
    fit = estimator.fit(X, y)
    seconds = time.perf_counter() - start
    gap = (fit.objective_ + fit.dual_objective_) / abs(fit.objective_)
    print(json.dumps({"case": case, "seconds": seconds, "epochs": int(fit.n_iter_),
                      "status": str(fit.solve_result_.status), "gap": gap}), flush=True)
