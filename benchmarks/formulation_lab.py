"""Benchmark: declarative formulations against the same models in cvxpy, and pair-row generation.

Every measurement runs in its own process under a time limit. Objectives are checked in the same
run: every formulation's optimum equals that of its cvxpy model, and generation's certified
optimum equals the full LP's.

    python benchmarks/formulation_lab.py [--parts build generation] [--build-points 300]
        [--check-points 60] [--repeat 3] [--sizes 231 516 1155] [--time-limit 600] [--blas-threads N]

Parts (both by default, in this order):

* ``build`` — every shipped formulation (``aucopt.available_formulations()`` restricted to the
  ``aucopt.formulations`` package, the ordinal example ``ordinal_margin_lp`` among them) on the
  data of ``tests/modeling/formulation_cases.py``, made bigger: ``--build-points`` bipartite points
  (a third positive: 300 points give 20,000 pairs) and survival (Harrell's comparable pairs) or
  multipartite (4 levels) data with about as many pairs, where the formulation's case uses them.
  The time of ``get_formulation(name).build(pairs, K, **params)`` (listing the pairs included)
  against the same model written directly in cvxpy — vectorized, with a sparse pair-incidence
  matrix D and lifted scores s = K·Y·α (the dense form D·K·Y puts P·m coefficients in cvxpy's
  canonicalization and compiles about 100 times slower at 20,000 pairs), the pairs listed with
  numpy from the labels — constructed and compiled by ``get_problem_data`` (HiGHS for LPs,
  Clarabel for QPs). Best of ``--repeat`` builds each. The kernel matrix is given to both and not
  timed. Before the timings, both models are solved on ``--check-points`` points (aucopt's
  ``solve(problem, "highs")`` against cvxpy with HiGHS for LPs and Clarabel for QPs) and their
  optima must agree to 1e-6 relative.
* ``generation`` — the ordinal example as a user formulation: 4 balanced levels, X = N(0, I₅) +
  1.5·level, RBF kernel exp(−0.2‖x − x′‖²), C = 1, at ``--sizes`` points (231, 516 and 1,155
  points give 20,010, 99,846 and 500,259 pairs). The full LP (``solve(problem, "highs")``, dual
  simplex) against ``pair_row_generation`` on the same Problem (HiGHS, the simplex basis kept
  from round to round), each in its own process; seconds exclude the build (shown apart). Where
  both finish, the objectives must agree to 1e-7 relative. A full LP that runs out of time
  shows its status, and the ratio as a lower bound "> x"; it is not tried at larger sizes.

``--blas-threads N`` sets OMP_NUM_THREADS / OPENBLAS_NUM_THREADS / MKL_NUM_THREADS for the
measurement processes (default: the libraries' own). The QP formulations factor the kernel
(``kernel_factor``: an eigendecomposition of K) inside the build; on a loaded machine a
multithreaded OpenBLAS can make that 300 × 300 eigendecomposition 10–50 times slower than on one
thread, so compare runs with the same setting.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import sys
import time
import warnings

import numpy as np
import scipy.sparse as sp
from _harness import peak_mb, spawn

STARTED = time.perf_counter()  # a measurement process stops its solver before spawn() stops the process

#: per formulation: the data its case in tests/modeling/formulation_cases.py uses, and its parameters
SETUP = {
    "lp_ranker": ("bipartite", {"C": 1.0}),
    "lp_ranker_free_sign": ("survival", {"C": 0.5}),
    "aucsvm_l1_dual": ("bipartite", {"C": 1.0}),
    "aucsvm_l2_dual": ("survival", {"C": 2.0}),
    "top_push": ("bipartite", {"C": 1.0}),
    "partial_auc": ("bipartite", {"C": 50.0, "beta": 0.3}),
    "ranksvm_squared_hinge": ("survival", {"C": 1.0}),
    "auc_least_squares": ("bipartite", {"C": 0.5}),
    "fair_ranker": ("bipartite", {"C": 1.0, "epsilon": 0.05}),  # groups: point index mod 2
    "ordinal_margin_lp": ("multipartite", {"C": 1.0}),
}
BUILD_RTOL, GENERATION_RTOL = 1e-6, 1e-7


# ============================================================================ data
def make_data(kind: str, n: int, seed: int = 0):
    """The data of formulation_cases.py at n points: (labels, K, PairSet). ``labels``: y (bipartite),
    level indices (multipartite), or (event, time) (survival)."""
    from aucopt import PairSet, kernel_matrix

    rng = np.random.default_rng(seed)
    if kind == "bipartite":
        y = np.r_[np.ones(n // 3, int), np.zeros(n - n // 3, int)]
        X = rng.normal(size=(n, 3)) + 0.8 * y[:, None]
        return y, kernel_matrix(X, gamma=0.5), PairSet.bipartite(y)
    if kind == "survival":
        X = rng.normal(size=(n, 3))
        t = np.round(np.exp(-X[:, 0] + 0.5 * rng.normal(size=n)), 1)  # ties on purpose
        event = rng.random(n) < 0.7
        return (event, t), kernel_matrix(X, gamma=0.5), PairSet.survival(event, t)
    if kind == "multipartite":
        y = np.r_[np.arange(4), rng.integers(0, 4, n - 4)]
        X = rng.normal(size=(n, 3)) + 0.6 * y[:, None]
        return y, kernel_matrix(X, gamma=0.5), PairSet.multipartite(y)
    raise ValueError(kind)


def ordinal_data(n: int, seed: int = 0):
    """The generation part's data: 4 balanced levels, X = N(0, I_5) + 1.5·level, RBF γ = 0.2."""
    from aucopt import PairSet, kernel_matrix

    level = np.arange(n) % 4
    X = np.random.default_rng(seed).normal(size=(n, 5)) + 1.5 * level[:, None]
    return level, kernel_matrix(X, gamma=0.2), PairSet.multipartite(level)


def points_for(kind: str, bipartite_points: int) -> int:
    """Points of ``kind`` data with about as many pairs as ``bipartite_points`` bipartite points."""
    target = (bipartite_points // 3) * (bipartite_points - bipartite_points // 3)
    if kind == "bipartite":
        return bipartite_points
    n = bipartite_points
    for _ in range(3):  # pairs grow as n²
        n = max(8, round(n * math.sqrt(target / make_data(kind, n)[2].n_pairs)))
    return min(range(max(8, n - 3), n + 4), key=lambda m: abs(make_data(kind, m)[2].n_pairs - target))


# ============================================================================ the cvxpy models
def cvxpy_pairs(kind: str, labels):
    """(i, j, signs) from the labels with numpy, independently of PairSet (weights are all 1 here)."""
    if kind == "survival":
        event, t = labels
        mask = event[:, None] & ((t[:, None] < t[None, :]) | ((t[:, None] == t[None, :]) & ~event[None, :]))
        signs = np.where(event, 1.0, -1.0)  # events +1, censored −1 (Ataman 2007, eq. 5.3)
    else:  # bipartite (0/1) and multipartite levels: every i of a higher level than j
        y = np.asarray(labels)
        mask = y[:, None] > y[None, :]
        signs = np.where(y > y.min(), 1.0, -1.0)  # the lowest level −1, the others +1
    i, j = np.nonzero(mask)
    return i, j, signs


def incidence(i, j, n):
    """D (P × n): +1 at i, −1 at j, so D f = f_i − f_j."""
    P = len(i)
    return sp.csr_matrix((np.tile([1.0, -1.0], P), (np.repeat(np.arange(P), 2), np.column_stack([i, j]).ravel())),
                         shape=(P, n))


def cvxpy_model(name: str, kind: str, labels, K, C=1.0, **params):  # noqa: PLR0915 - one cvxpy model per formulation, side by side
    """The formulation's model written directly in cvxpy from its docstring's math; returns the
    cvxpy Problem and the number of pairs. Scores are lifted: s = K Y α (or K β) as rows."""
    import cvxpy as cp

    i, j, signs = cvxpy_pairs(kind, labels)
    n, P = K.shape[0], len(i)
    w = np.ones(P)
    D = incidence(i, j, n)
    s = cp.Variable(n)  # the training scores f(x_l)

    def ranker_lp(coef_sign):  # Σα + C Σ w z over s = K Y α, with α ≥ 0
        alpha = cp.Variable(K.shape[1], nonneg=True)
        return alpha, [s == K @ cp.multiply(coef_sign, alpha)]

    if name in ("lp_ranker", "ordinal_margin_lp"):
        alpha, cons = ranker_lp(signs)
        z = cp.Variable(P, nonneg=True)
        rhs = 1.0 if name == "lp_ranker" else params.get("margin", 1.0) * (labels[i] - labels[j])
        return cp.Problem(cp.Minimize(cp.sum(alpha) + C * (w @ z)), [*cons, D @ s + z >= rhs]), P
    if name == "lp_ranker_free_sign":
        beta, z = cp.Variable(K.shape[1]), cp.Variable(P, nonneg=True)
        return cp.Problem(cp.Minimize(cp.norm1(beta) + C * (w @ z)), [s == K @ beta, D @ s + z >= 1]), P
    if name == "fair_ranker":
        alpha, cons = ranker_lp(signs)
        z = cp.Variable(P, nonneg=True)
        g = np.arange(n) % 2  # the groups; a = 0, b = 1
        ab, ba = (g[i] == 0) & (g[j] == 1), (g[i] == 1) & (g[j] == 0)
        mean_ab, mean_ba = ab / ab.sum(), ba / ba.sum()
        d = D @ s
        eps = params["epsilon"]
        cons += [d + z >= 1, mean_ab @ z - mean_ba @ (1 - d) <= eps, mean_ba @ z - mean_ab @ (1 - d) <= eps]
        return cp.Problem(cp.Minimize(cp.sum(alpha) + C * (w @ z)), cons), P
    if name == "top_push":
        alpha, cons = ranker_lp(signs)
        pos, neg = np.flatnonzero(signs > 0), np.flatnonzero(signs < 0)
        loss = cp.sum(cp.pos(1 - s[pos] + cp.max(s[neg])))
        return cp.Problem(cp.Minimize(cp.sum(alpha) + C * loss), cons), P
    if name == "partial_auc":
        alpha, cons = ranker_lp(signs)
        pos, neg = np.flatnonzero(signs > 0), np.flatnonzero(signs < 0)
        k = math.ceil(round(params["beta"] * len(neg), 9))
        G = sp.csr_matrix((np.ones(P), (np.arange(P), np.searchsorted(pos, i))), shape=(P, len(pos)))
        tau = cp.Variable(len(pos))  # sum of the k largest of h over a group = min_τ kτ + Σ (h − τ)_+
        hinge = cp.pos(1 - D @ s)
        top = k * cp.sum(tau) + cp.sum(cp.pos(hinge - G @ tau))
        return cp.Problem(cp.Minimize(cp.sum(alpha) + C / (len(pos) * k) * top), cons), P
    Kpsd = cp.psd_wrap(K)
    if name in ("ranksvm_squared_hinge", "auc_least_squares"):
        beta = cp.Variable(K.shape[1])
        residual = 1 - D @ s
        loss = cp.pos(residual) if name == "ranksvm_squared_hinge" else residual
        objective = 0.5 * cp.quad_form(beta, Kpsd) + 0.5 * C * cp.sum_squares(cp.multiply(np.sqrt(w), loss))
        return cp.Problem(cp.Minimize(objective), [s == K @ beta]), P
    if name in ("aucsvm_l1_dual", "aucsvm_l2_dual"):  # ½ αᵀ D K Dᵀ α − Σα, with v = Dᵀα lifted
        alpha, v = cp.Variable(P, nonneg=True), cp.Variable(n)
        objective = 0.5 * cp.quad_form(v, Kpsd) - cp.sum(alpha)
        cons = [v == D.T @ alpha]
        if name == "aucsvm_l1_dual":
            cons.append(alpha <= C * w)
        else:
            objective = objective + 0.5 * cp.sum_squares(cp.multiply(1 / np.sqrt(C * w), alpha))
        return cp.Problem(cp.Minimize(objective), cons), P
    raise KeyError(f"no cvxpy model for {name!r}: add one to cvxpy_model")


# ============================================================================ one measurement (own process)
def run_build(name: str, points: str, check_points: str, repeat: str) -> dict:
    import cvxpy as cp

    from aucopt import get_formulation, solve

    kind, params = SETUP[name]
    form = get_formulation(name)

    def aucopt_build(labels, K, pairs):
        extra = {"groups": np.arange(K.shape[0]) % 2} if name == "fair_ranker" else {}
        return form.build(pairs, K, **params, **extra)

    solver = cp.HIGHS if form.kind == "lp" else cp.CLARABEL
    # the check (also warms both code paths up): the same optimum
    labels, K, pairs = make_data(kind, points_for(kind, int(check_points)), seed=1)
    result = solve(aucopt_build(labels, K, pairs), "highs", tol=1e-9)
    model, cvx_pairs = cvxpy_model(name, kind, labels, K, **params)
    options = ({"primal_feasibility_tolerance": 1e-9, "dual_feasibility_tolerance": 1e-9} if solver == cp.HIGHS
               else {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10})
    model.solve(solver=solver, **options)
    check = {"points": len(K), "pairs": int(pairs.n_pairs), "cvxpy_pairs": cvx_pairs, "aucopt": result.objective,
             "aucopt_status": str(result.status.value), "cvxpy": model.value, "cvxpy_status": model.status,
             "cvxpy_solver": solver}

    labels, K, pairs = make_data(kind, points_for(kind, int(points)))
    best_aucopt, best_cvxpy = math.inf, (math.inf, math.inf)
    for _ in range(int(repeat)):
        gc.collect()
        start = time.perf_counter()
        problem = aucopt_build(labels, K, pairs)
        best_aucopt = min(best_aucopt, time.perf_counter() - start)
        del problem
        gc.collect()
        start = time.perf_counter()
        model, cvx_pairs = cvxpy_model(name, kind, labels, K, **params)
        built = time.perf_counter()
        model.get_problem_data(solver)
        done = time.perf_counter()
        if done - start < sum(best_cvxpy):
            best_cvxpy = (built - start, done - built)
        del model
    return {"kind": kind, "points": len(K), "pairs": int(pairs.n_pairs), "cvxpy_pairs": cvx_pairs,
            "aucopt_s": best_aucopt, "cvxpy_model_s": best_cvxpy[0], "cvxpy_compile_s": best_cvxpy[1], "check": check,
            "peak_mb": peak_mb()}


def run_generation(route: str, n: str, limit: str) -> dict:
    from sklearn.exceptions import ConvergenceWarning

    from aucopt import get_formulation, solve
    from aucopt.modeling import pair_row_generation

    _level, K, pairs = ordinal_data(int(n))
    start = time.perf_counter()
    problem = get_formulation("ordinal_margin_lp").build(pairs, K, C=1.0)
    build_s = time.perf_counter() - start
    own_limit = 0.9 * float(limit) - (time.perf_counter() - STARTED)  # stop before the process is stopped
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if route == "full":
            result = solve(problem, "highs", time_limit=own_limit)
        else:
            meta = problem.metadata
            result = pair_row_generation(problem, meta["pair_rows"], "highs", pair_index=meta["pair_index"],
                                         time_limit=own_limit)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "build_s": build_s, "status": str(result.status.value), "objective": result.objective,
            "rounds": result.info.get("rounds"), "working_rows": result.info.get("working_rows"),
            "pairs": int(pairs.n_pairs), "points": int(n), "peak_mb": peak_mb()}


def shipped_formulations() -> list:
    """Registered formulations defined in the shipped ``aucopt.formulations`` package."""
    from aucopt import available_formulations, get_formulation

    return [name for name in available_formulations()
            if (getattr(get_formulation(name).func, "__module__", "") or "").startswith("aucopt.formulations")]


# ============================================================================ the parts
def part_build(points, check_points, repeat, limit) -> list:
    names = shipped_formulations()
    missing = [name for name in names if name not in SETUP]
    if missing:
        raise SystemExit(f"no data / cvxpy model in this benchmark for {missing}: add them to SETUP and cvxpy_model")
    print(f"Build: aucopt's build against the same model in cvxpy (constructed + get_problem_data), best of {repeat}; "
          f"optima checked at ~{check_points} points")
    print(f"{'formulation':>21} {'data':>12} {'points':>6} {'pairs':>7} | {'aucopt s':>8} | {'cvxpy model':>11} "
          f"{'compile':>8} {'total s':>8} | {'cvxpy/aucopt':>12} | {'check: pairs':>12} {'optimum':>14} "
          f"{'rel. diff.':>10}")
    failed = []
    for name in names:
        r = spawn(__file__, ["build", name, points, check_points, repeat], limit)
        if "aucopt_s" not in r:
            print(f"{name:>21} | {r['status']}", flush=True)
            failed.append(name)
            continue
        c = r["check"]
        assert r["pairs"] == r["cvxpy_pairs"] and c["pairs"] == c["cvxpy_pairs"], (name, r, c)
        assert c["aucopt_status"] == "optimal" and c["cvxpy_status"] == "optimal", (name, c)
        diff = abs(c["aucopt"] - c["cvxpy"]) / max(abs(c["aucopt"]), abs(c["cvxpy"]), 1e-12)
        assert diff <= BUILD_RTOL, f"{name}: aucopt {c['aucopt']!r} against cvxpy/{c['cvxpy_solver']} {c['cvxpy']!r}"
        total = r["cvxpy_model_s"] + r["cvxpy_compile_s"]
        print(f"{name:>21} {r['kind']:>12} {r['points']:6d} {r['pairs']:7,d} | {r['aucopt_s']:8.3f} | "
              f"{r['cvxpy_model_s']:11.3f} {r['cvxpy_compile_s']:8.3f} {total:8.3f} | {total / r['aucopt_s']:12.1f} | "
              f"{c['pairs']:12,d} {c['aucopt']:14.9g} {diff:10.1e}", flush=True)
    return failed


def part_generation(sizes, limit):
    print(f"\nGeneration: ordinal_margin_lp (4 levels, RBF γ = 0.2, C = 1), the full LP against pair-row "
          f"generation, each in its own process (limit {limit:.0f} s; seconds exclude the build)")
    print(f"{'points':>6} {'pairs':>9} {'build s':>7} | {'full s':>22} {'peak MB':>7} | {'generation s':>12} "
          f"{'peak MB':>7} | {'full/gen.':>9} | {'rounds':>6} {'working rows':>12} | {'objective':>14} "
          f"{'rel. diff.':>10}")
    stopped = {"full": False, "generation": False}  # out of time at a smaller size: not tried again
    for n in sizes:
        runs = {route: {"status": "skipped"} if stopped[route] else
                spawn(__file__, ["generation", route, n, limit], limit) for route in ("full", "generation")}
        full, gen = runs["full"], runs["generation"]
        for route, r in runs.items():
            stopped[route] |= r["status"] != "optimal"
        if gen["status"] != "optimal":
            print(f"{n:6d} | generation: {gen['status']}; full: {full['status']}", flush=True)
            continue
        diff = ""
        if full["status"] == "optimal":
            rel = abs(full["objective"] - gen["objective"]) / abs(full["objective"])
            assert rel <= GENERATION_RTOL, f"{n} points: full {full['objective']!r}, generation {gen['objective']!r}"
            full_cell, ratio, diff = f"{full['seconds']:.2f}", f"{full['seconds'] / gen['seconds']:.1f}", f"{rel:.1e}"
        else:
            out_of_time = full["status"] == "time_limit" or full["status"].startswith(">")
            reached = full.get("seconds", limit)  # the full LP takes at least this long
            full_cell = f"{full['status']} at {reached:.0f} s" if "seconds" in full else full["status"]
            ratio = f"> {reached / gen['seconds']:.1f}" if out_of_time else "—"
        full_mb = f"{full['peak_mb']:7.0f}" if "peak_mb" in full else f"{'':>7}"
        print(f"{n:6d} {gen['pairs']:9,d} {gen['build_s']:7.2f} | {full_cell:>22} {full_mb} | {gen['seconds']:12.2f} "
              f"{gen['peak_mb']:7.0f} | {ratio:>9} | {gen['rounds']:6d} {gen['working_rows']:12,d} | "
              f"{gen['objective']:14.9g} {diff:>10}", flush=True)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        # the JSON goes to the real stdout; the solvers' own prints (e.g. HiGHS's banner, which the C
        # library may flush at exit) go to /dev/null, so the JSON stays the last line
        out = os.fdopen(os.dup(1), "w")
        sys.stdout.flush()
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        kind, *rest = sys.argv[2:]
        result = {"build": run_build, "generation": run_generation}[kind](*rest)
        out.write(json.dumps(result) + "\n")
        out.flush()
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", nargs="+", default=["build", "generation"], choices=["build", "generation"])
    parser.add_argument("--build-points", type=int, default=300,
                        help="bipartite points of the build part (a third positive: 300 give 20,000 pairs); "
                             "survival and multipartite data get about as many pairs")
    parser.add_argument("--check-points", type=int, default=60, help="the same, for the optimum check")
    parser.add_argument("--repeat", type=int, default=3, help="builds timed per formulation (the best counts)")
    parser.add_argument("--sizes", nargs="+", type=int, default=[231, 516, 1155],
                        help="points of the generation part (4 balanced levels: 20,010 / 99,846 / 500,259 pairs)")
    parser.add_argument("--time-limit", type=float, default=600.0)
    parser.add_argument("--blas-threads", type=int, default=None,
                        help="BLAS / OpenMP threads of the measurement processes (default: the libraries' own)")
    args = parser.parse_args()
    if args.blas_threads is not None:  # inherited by the processes spawn() starts
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(args.blas_threads)
        print(f"BLAS / OpenMP threads: {args.blas_threads}")
    failed = []
    if "build" in args.parts:
        failed = part_build(args.build_points, args.check_points, args.repeat, args.time_limit)
    if "generation" in args.parts:
        part_generation(args.sizes, args.time_limit)
    if failed:
        raise SystemExit(f"build part: {', '.join(failed)} did not finish")


if __name__ == "__main__":
    main()
