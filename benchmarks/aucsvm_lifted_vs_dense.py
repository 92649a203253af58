"""Benchmark: AUC-SVM 1-norm dual (OP3), lifted sparse QP vs the naive dense-K′ QP.

Naive form: the P × P pairwise kernel K′ = A K Aᵀ materialized and handed to cvxpy as
``quad_form(α, K′)``. Lifted form (aucopt): v = Aᵀα (2 nonzeros per pair), u = Lᵀv with
K = L Lᵀ, objective ½‖u‖² − Σα — never forms K′. Both are solved by Clarabel through cvxpy
(same solver, same run); the lifted form is also solved by OSQP.

Each (form, pair count) runs in its own subprocess so that wall time and peak memory (max RSS)
are measured separately; a run is stopped at --time-limit seconds, and the naive form is skipped
when K′ alone would exceed --max-gb. Data: WDBC (scikit-learn), min-max scaled, RBF γ = 1.

    python benchmarks/aucsvm_lifted_vs_dense.py [--sizes 40 80 160 320 455] [--time-limit 300]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from _harness import peak_mb, spawn

C, GAMMA = 0.01, 1.0


def _data(n: int):
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import minmax_scale

    X, y = load_breast_cancer(return_X_y=True)
    y = (y == 0).astype(int)
    if n < len(y):
        X, _, y, _ = train_test_split(X, y, train_size=n, stratify=y, random_state=0)
    return minmax_scale(X), y


def run_one(form: str, n: int) -> dict:
    """Solve one problem in this process; return objective, seconds, pairs."""
    from aucopt import PairSet, get_formulation, solve
    from aucopt.kernels import kernel_factor, kernel_matrix

    X, y = _data(n)
    pairs = PairSet.bipartite(y)
    K = kernel_matrix(X, kernel="rbf", gamma=GAMMA)
    start = time.perf_counter()
    if form == "naive":
        import cvxpy as cp
        import scipy.sparse as sp

        i, j, _ = pairs.to_arrays(None)
        A = sp.csr_matrix((np.r_[np.ones(len(i)), -np.ones(len(i))],
                           (np.r_[np.arange(len(i)), np.arange(len(i))], np.r_[i, j])),
                          shape=(len(i), len(y)))
        AK = np.asarray(A @ K)
        Kp = np.asarray(A @ AK.T)  # K′ = A K Aᵀ, P × P dense
        alpha = cp.Variable(len(i))
        prob = cp.Problem(cp.Minimize(0.5 * cp.quad_form(alpha, Kp, assume_PSD=True) - cp.sum(alpha)),
                          [alpha >= 0, alpha <= C])
        prob.solve(solver="CLARABEL")
        objective, status = float(prob.value), prob.status
    else:
        solver = "clarabel" if form == "lifted-clarabel" else "osqp"
        problem = get_formulation("aucsvm_l1_dual").build(pairs, factor=kernel_factor(K), C=C)
        result = solve(problem, solver)
        objective, status = result.objective, str(result.status)
    seconds = time.perf_counter() - start
    return {"form": form, "n": n, "pairs": pairs.n_pairs, "objective": objective, "status": status,
            "seconds": seconds, "peak_mb": peak_mb()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[40, 80, 160, 320, 455])
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--max-gb", type=float, default=12.0, help="skip the naive form when K′ needs more")
    parser.add_argument("--one", nargs=2, metavar=("FORM", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one[0], int(args.one[1]))))
        return

    from aucopt import PairSet

    print(f"AUC-SVM OP3 on WDBC (RBF γ={GAMMA}, C={C}); time limit {args.time_limit:.0f} s per run")
    print(f"{'points':>6} {'pairs':>8} | {'form':16} {'status':22} {'objective':>14} {'seconds':>9} {'peak MB':>9}")
    largest = {}
    for n in args.sizes:
        P = PairSet.bipartite(_data(n)[1]).n_pairs
        rows = {}
        for form in ("lifted-osqp", "lifted-clarabel", "naive"):
            if form == "naive" and args.max_gb < 8 * P * P / 1e9:
                rows[form] = {"status": f"skipped: K′ needs {8 * P * P / 1e9:.0f} GB"}
            else:
                rows[form] = {"form": form, "n": n, **spawn(__file__, [form, n], args.time_limit)}
            r = rows[form]
            if "seconds" in r:
                largest[form] = max(largest.get(form, 0), P)
            print(f"{n:6d} {P:8,d} | {form:16} {r['status'][:22]:22} {r.get('objective', float('nan')):14.8f} "
                  f"{r.get('seconds', float('nan')):9.2f} {r.get('peak_mb', float('nan')):9.0f}")
        lifted, naive = rows["lifted-clarabel"], rows["naive"]
        if "seconds" in lifted and "seconds" in naive:
            print(f"{'':17}| naive / lifted (Clarabel): time {naive['seconds'] / lifted['seconds']:.1f}x, "
                  f"peak memory {naive['peak_mb'] / lifted['peak_mb']:.1f}x, "
                  f"objective rel. diff {abs(naive['objective'] - lifted['objective']) / abs(naive['objective']):.1e}")
    print("largest pair count solved: " + ", ".join(f"{k} {v:,}" for k, v in largest.items()))


if __name__ == "__main__":
    main()
