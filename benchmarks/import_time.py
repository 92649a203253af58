"""What `import aucopt`, `aucopt --version` and `aucopt --help` cost, against scikit-learn's own start.

Each command runs in a fresh process ``--repeat`` times (default 7) and the best wall time is
kept (the least disturbed run); the baseline is ``import sklearn.base``, which every aucopt
estimator needs, measured in the same run. Also printed: which heavy optional packages the
import loaded (none of numba, cvxpy, dask, matplotlib, lifelines should be), and what the first
fit costs when the compiled kernels come from numba's on-disk cache (warm) — the cost moved out
of the import.

    python benchmarks/import_time.py [--repeat 7]

Targets: ``import aucopt`` at most 0.5 s above ``import sklearn.base``; ``aucopt --version`` and
``aucopt --help`` at most 0.5 s.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time

HEAVY = ("numba", "cvxpy", "dask", "distributed", "matplotlib", "lifelines", "highspy", "osqp", "clarabel")

FIRST_FIT = """
import time
t = time.perf_counter()
import numpy as np
from aucopt import RankSVM
X = np.random.default_rng(0).normal(size=(2000, 10)); y = X[:, 0] > 0
RankSVM().fit(X, y)
print(time.perf_counter() - t)
"""


def best_of(command: list[str], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    python = [sys.executable, "-c"]
    empty = best_of([*python, "pass"], args.repeat)
    sklearn = best_of([*python, "import sklearn.base"], args.repeat)
    aucopt = best_of([*python, "import aucopt"], args.repeat)
    script = shutil.which("aucopt")
    cli = [script] if script else [*python, "import sys; from aucopt.cli import main; sys.exit(main())"]
    version = best_of([*cli, "--version"], args.repeat)
    helptext = best_of([*cli, "--help"], args.repeat)
    loaded = subprocess.run([*python, f"import sys, aucopt; print([m for m in {HEAVY!r} if m in sys.modules])"],
                            check=True, capture_output=True, text=True).stdout.strip()
    first_fit = float(subprocess.run([*python, FIRST_FIT], check=True, capture_output=True,
                                     text=True).stdout.strip().splitlines()[-1])
    print(f"best of {args.repeat} fresh processes (wall seconds)")
    print(f"  python -c pass              {empty:6.3f}")
    print(f"  import sklearn.base         {sklearn:6.3f}   (baseline)")
    print(f"  import aucopt               {aucopt:6.3f}   {aucopt - sklearn:+.3f} s above the baseline "
          f"(target <= +0.5)")
    print(f"  aucopt --version            {version:6.3f}   (target <= 0.5)")
    print(f"  aucopt --help               {helptext:6.3f}   (target <= 0.5)")
    print(f"  heavy packages after import {loaded}   (target: [])")
    print(f"  import + first RankSVM fit  {first_fit:6.3f}   (compiled kernels from the warm cache)")


if __name__ == "__main__":
    main()
