"""Benchmark: the LP Ranker's exact optimum by row-and-column generation, against the full LP.

For each data set: the full lifted LP on HiGHS (``method="full"``), row-and-column generation
(``method="generation"``: the same optimum, certified) and the projected subgradient
(``method="subgradient"``, approximate), each fitted in its own process under a time limit
(a route that fails or runs out of time at one size is not tried at larger ones). Printed:
seconds and peak memory of each, the ratio full / generation (the baseline measured in the same
run), generation's rounds, final rows and columns and whether its certificate held, the
relative objective difference generation vs full (≤ 1e-7 expected), and the subgradient's gap
above the exact optimum with its own certified bound.

Data: scikit-learn's WDBC and digits (8 vs the rest, 600 rows), an 80 % training split,
min-max scaled; two noisy half-moons in 10-d at growing sizes; RBF γ = 1, C = 10 (the thesis's
grid values).

    python benchmarks/lp_generation.py [--sizes 250 500 1000 2000] [--time-limit 600]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from _harness import peak_mb, sweep
from lp_ranker_scale import GAMMA, C, dataset, split, synthetic

METHODS = ("full", "generation", "subgradient")


def data(name: str):
    if name.isdigit():
        return synthetic(int(name))
    X_tr, _, y_tr, _ = split(*dataset(name), seed=0)
    return X_tr, y_tr


def run_one(method: str, name: str) -> dict:
    from aucopt import LPRanker

    X, y = data(name)
    start = time.perf_counter()
    model = LPRanker(C=C, gamma=GAMMA, method=method, max_bytes=None,
                     support_threshold=1e-3 if method == "subgradient" else 1e-8).fit(X, y)
    out = {"seconds": time.perf_counter() - start, "peak_mb": peak_mb(), "objective": model.objective_,
           "pairs": int(model.n_pairs_), "points": len(y)}
    run = model.method_result_
    if method == "generation":
        out.update(rounds=run.rounds, rows=run.n_rows, columns=run.n_columns, converged=run.converged,
                   support=int(np.count_nonzero(run.alpha)))
    if method == "subgradient":
        out.update(lower_bound=run.lower_bound, gap=run.gap)
    return out


def cell(r: dict) -> str:
    return f"{r['seconds']:8.2f} s {r['peak_mb']:6.0f} MB" if "seconds" in r else f"{r['status'][:20]:>20}"


def table(names, time_limit):
    print(f"{'data':>8} {'points':>6} {'pairs':>11} | {'full':^20} | {'generation':^20} | {'full/gen':>8} | "
          f"{'rounds':>6} {'rows':>7} {'cols':>5} {'cert':>4} | {'gen vs full':>11} | {'subgradient':^20} "
          f"{'above opt':>9} {'bound gap':>9}")
    for name, rows in sweep(__file__, METHODS, names, time_limit):
        full, gen, sub = (rows[m] for m in METHODS)
        some = next((r for r in rows.values() if "pairs" in r), {"pairs": 0, "points": 0})
        exact = full.get("objective", gen.get("objective") if gen.get("converged") else None)
        line = f"{name:>8} {some['points']:6d} {some['pairs']:11,d} | {cell(full)} | {cell(gen)} | "
        line += (f"{full['seconds'] / gen['seconds']:7.1f}x" if "seconds" in full and "seconds" in gen
                 else f"{'—':>8}") + " | "
        line += (f"{gen['rounds']:6d} {gen['rows']:7,d} {gen['columns']:5d} {'yes' if gen['converged'] else 'no':>4}"
                 if "rounds" in gen else f"{'':>25}") + " | "
        line += (f"{abs(gen['objective'] - full['objective']) / full['objective']:11.1e}"
                 if "objective" in gen and "objective" in full else f"{'—':>11}") + " | "
        line += cell(sub)
        if "objective" in sub and exact:
            line += f" {(sub['objective'] - exact) / exact:8.1%} {sub['gap']:9.1%}"
        print(line, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="*", default=["wdbc", "digits8"])
    parser.add_argument("--sizes", type=int, nargs="*", default=[250, 500, 1000, 2000])
    parser.add_argument("--time-limit", type=float, default=600.0)
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(*args.one)))
        return
    print(f"LP Ranker, RBF gamma={GAMMA}, C={C}; each fit in its own process, time limit {args.time_limit:.0f} s")
    table(args.datasets, args.time_limit)
    table([str(n) for n in args.sizes], args.time_limit)


if __name__ == "__main__":
    main()
