"""Shared benchmark plumbing: run one measurement in a fresh process (wall time, peak RSS)."""

from __future__ import annotations

import json
import resource
import subprocess
import sys


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
