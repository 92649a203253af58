"""Solver backends through aucopt.solvers.solve, cross-checked against each other and oracles.

Oracles: HiGHS vs Clarabel (two unrelated algorithms: simplex vs interior point) on the
LP Ranker; numpy KKT solves, scipy.optimize.lsq_linear and QPs/LPs with hand-designed
optimal primal/dual pairs for the QP path and the dual sign convention.

Tolerances: HiGHS / Clarabel / ECOS agree to 1e-6 relative in the objective; OSQP, a
first-order method, is run at tol = 1e-5 (eps_abs = eps_rel) on the LP Ranker and must agree to
1e-3 relative (its objective and its feasibility error); on small strictly convex QPs and
small non-degenerate LPs its polished solution must agree to 1e-6.

The contract: one registry feeds solve / check_solver / available_solvers; tol and max_iter
reach every backend; solver_options is the backend's raw options dict, applied last, and an
option the backend rejects raises ValueError naming it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import lsq_linear
from sklearn.datasets import make_classification

import aucopt
import aucopt.solvers
from aucopt import PairSet, Problem, SolverError, Status, available_solvers, get_formulation, kernel_matrix, solve
from aucopt.solvers import REGISTRY, SolverBackend, SolveResult, SolverWarning, check_solver

INF = np.inf
EXACT = ["highs", "cvxpy", "clarabel"]  # the backends held to 1e-6


def lp_ranker(X, target, gamma, C=1.0):
    K = kernel_matrix(X, gamma=gamma)
    return get_formulation("lp_ranker").build(PairSet.from_target(target), K, C=C)


def subset(n, size, seed):
    return np.random.default_rng(seed).choice(n, size, replace=False)


def assert_agree(problem, reference, solvers, rel=1e-6, feas=1e-6, **options):
    for name in solvers:
        res = solve(problem, solver=name, **options)
        assert res.status == Status.OPTIMAL, (name, res.status, res.message)
        assert res.x is not None and res.x.shape == (problem.n_vars,)
        assert problem.violation(res.x) < feas, name
        assert res.objective == pytest.approx(problem.objective(res.x), rel=1e-12)
        assert res.objective == pytest.approx(reference, rel=rel), name


# ----------------------------------------------------------------------------- LP Ranker, real data


@pytest.mark.parametrize("size, gamma, seed", [(80, 0.5, 0), (120, 2.0, 1), (150, 0.1, 2)])
def test_lp_ranker_breast_cancer_highs_equals_clarabel(breast_cancer, size, gamma, seed):
    X, y = breast_cancer
    idx = subset(len(y), size, seed)
    problem = lp_ranker(X[idx], y[idx], gamma, C=1.0)
    ref = solve(problem, "highs").raise_for_status()
    assert problem.violation(ref.x) < 1e-7
    assert ref.info["highs_objective"] == pytest.approx(ref.objective, rel=1e-9)
    assert_agree(problem, ref.objective, EXACT)


def test_lp_ranker_whas500_survival_highs_equals_clarabel(whas500):
    X, event, time = whas500
    idx = subset(len(time), 100, 3)
    problem = lp_ranker(X[idx], (event[idx], time[idx]), gamma=1.0, C=0.5)
    assert problem.metadata["pair_target"] == "survival"
    ref = solve(problem, "highs").raise_for_status()
    assert_agree(problem, ref.objective, EXACT)


@pytest.mark.parametrize("seed", range(3))
def test_lp_ranker_random_highs_equals_clarabel(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(20, 50))
    X = rng.normal(size=(m, 4))
    y = (X[:, 0] + rng.normal(size=m) > 0).astype(int)
    problem = lp_ranker(X, y, gamma=0.3, C=float(rng.uniform(0.2, 3.0)))
    ref = solve(problem, "highs")
    assert_agree(problem, ref.objective, EXACT + ["cvxpy:ecos"] * ("ecos" in available_solvers()))
    ipm = solve(problem, "highs", solver_options={"solver": "ipm"})
    assert ipm.status == Status.OPTIMAL and ipm.objective == pytest.approx(ref.objective, rel=1e-6)
    assert ref.info["algorithm"] == "simplex" and ipm.info["algorithm"] == "ipm"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_lp_ranker_osqp_loose(seed):
    # OSQP (ADMM) is slow to reach high accuracy on the degenerate LP Ranker: fixed small
    # instances where it converges at eps 1e-5; it must match HiGHS to 1e-3 relative.
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] + rng.normal(size=30) > 0).astype(int)
    problem = lp_ranker(X, y, gamma=0.5)
    ref = solve(problem, "highs").objective
    res = solve(problem, "osqp", tol=1e-5, max_iter=50_000)
    assert res.status in (Status.OPTIMAL, Status.OPTIMAL_INACCURATE), res.status
    assert res.objective == pytest.approx(ref, rel=1e-3)
    assert problem.violation(res.x) < 1e-3


# ----------------------------------------------------------------------------- QPs with oracles


def kkt_qp(seed, n=6, k=2):
    """min ½xᵀPx + cᵀx s.t. Ex = b (free x): solution and multipliers from the KKT system."""
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(n, n))
    P = M @ M.T + 0.5 * np.eye(n)
    c, E, b = rng.normal(size=n), rng.normal(size=(k, n)), rng.normal(size=k)
    kkt = np.block([[P, E.T], [E, np.zeros((k, k))]])
    sol = np.linalg.solve(kkt, np.r_[-c, b])
    x, lam = sol[:n], sol[n:]  # P x + c + Eᵀλ = 0
    problem = Problem(c=c, A=sp.csc_matrix(E), row_lower=b, row_upper=b, col_lower=np.full(n, -INF),
                      col_upper=np.full(n, INF), P=sp.csc_matrix(P), offset=1.5, name="kkt")
    return problem, x, -lam  # aucopt's convention: c + P x − Aᵀ y = 0


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("solver", ["highs", "osqp", "clarabel"])
def test_equality_qp_matches_kkt(seed, solver):
    problem, x_ref, y_ref = kkt_qp(seed)
    assert not problem.is_lp
    res = solve(problem, solver).raise_for_status()
    np.testing.assert_allclose(res.x, x_ref, atol=1e-6)
    np.testing.assert_allclose(res.dual, y_ref, atol=1e-5)
    assert res.objective == pytest.approx(problem.objective(x_ref), rel=1e-6)
    # the objective includes ½ xᵀPx and the offset exactly once
    P = problem.P.toarray()
    assert problem.objective(x_ref) == pytest.approx(0.5 * x_ref @ P @ x_ref + problem.c @ x_ref + 1.5)


@pytest.mark.parametrize("solver", ["highs", "osqp", "clarabel"])
def test_box_constrained_least_squares_matches_lsq_linear(solver):
    rng = np.random.default_rng(21)
    M, b = rng.normal(size=(12, 5)), rng.normal(size=12) * 3
    lb, ub = np.array([-0.2, 0.0, -INF, -1.0, 0.1]), np.array([0.2, INF, 0.3, 1.0, 0.5])
    ref = lsq_linear(M, b, bounds=(lb, ub), method="bvls", tol=1e-12)
    assert ref.success
    problem = Problem(c=-M.T @ b, A=sp.csc_matrix((0, 5)), row_lower=np.zeros(0), row_upper=np.zeros(0),
                      col_lower=lb, col_upper=ub, P=sp.csc_matrix(M.T @ M), offset=0.5 * b @ b)
    res = solve(problem, solver).raise_for_status()
    np.testing.assert_allclose(res.x, ref.x, atol=1e-6)
    assert res.objective == pytest.approx(0.5 * np.sum((M @ ref.x - b) ** 2), rel=1e-6)
    assert any(np.isclose(ref.x, lb) | np.isclose(ref.x, ub))  # some bound is active


def designed_qp(seed, n=6):
    """A strictly convex QP whose optimum (x*, y*) is chosen first and c derived from the KKT conditions.

    Rows: one equality, one ≥ active (y > 0), one ≤ active (y < 0), one range row inactive,
    one range row active at its upper end; column 0 at its lower bound 0 with reduced cost > 0.
    """
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(n, n))
    P = M @ M.T + np.eye(n)
    A = rng.normal(size=(5, n))
    x = rng.uniform(0.5, 1.5, n)
    x[0] = 0.0
    Ax = A @ x
    y = np.array([rng.normal(), 0.8, -0.6, 0.0, -1.1])
    row_lower = np.array([Ax[0], Ax[1], -INF, Ax[3] - 1.0, Ax[4] - 2.0])
    row_upper = np.array([Ax[0], INF, Ax[2], Ax[3] + 1.0, Ax[4]])
    zc = np.zeros(n)
    zc[0] = 0.7  # reduced cost of the column at its lower bound
    c = -P @ x + A.T @ y + zc  # c + P x − Aᵀ y = z ≥ 0 (z = 0 on free / inactive columns)
    col_lower = np.r_[0.0, np.full(n - 1, -INF)]
    problem = Problem(c=c, A=sp.csc_matrix(A), row_lower=row_lower, row_upper=row_upper,
                      col_lower=col_lower, col_upper=np.full(n, INF), P=sp.csc_matrix(P))
    return problem, x, y


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_designed_qp_all_backends_agree(seed):
    problem, x_ref, y_ref = designed_qp(seed)
    results = {s: solve(problem, s).raise_for_status() for s in ("highs", "osqp", "clarabel", "cvxpy")}
    for name, res in results.items():
        np.testing.assert_allclose(res.x, x_ref, atol=1e-6, err_msg=name)
        np.testing.assert_allclose(res.dual, y_ref, atol=1e-5, err_msg=name)
        assert res.objective == pytest.approx(problem.objective(x_ref), rel=1e-6, abs=1e-9)


# ----------------------------------------------------------------------------- dual convention


def designed_lp():
    """Non-degenerate LP with unique primal and dual solutions, worked out by hand.

    min x0 + 2x1 + 3x2 − x3 − x4, x ≥ 0
      r0: x0 + x1 + x2 = 1          (y = 1)
      r1: 0.3 ≤ x1 + x2 ≤ 0.5       (at lower, y = 1)
      r2: x3 + 2x4 ≤ 4              (at upper, y = −0.4)
      r3: 3x3 + x4 ≤ 6              (at upper, y = −0.2)
      r4: x0 + x3 ≥ −5              (inactive, y = 0)
    optimum x = (0.7, 0.3, 0, 1.6, 1.2), value −1.5.
    """
    A = np.array([[1, 1, 1, 0, 0], [0, 1, 1, 0, 0], [0, 0, 0, 1, 2], [0, 0, 0, 3, 1], [1, 0, 0, 1, 0]], float)
    problem = Problem(c=np.array([1.0, 2.0, 3.0, -1.0, -1.0]), A=sp.csc_matrix(A),
                      row_lower=np.array([1.0, 0.3, -INF, -INF, -5.0]),
                      row_upper=np.array([1.0, 0.5, 4.0, 6.0, INF]),
                      col_lower=np.zeros(5), col_upper=np.full(5, INF), name="designed_lp")
    return problem, np.array([0.7, 0.3, 0.0, 1.6, 1.2]), np.array([1.0, 1.0, -0.4, -0.2, 0.0])


@pytest.mark.parametrize("solver", ["highs", "osqp", "cvxpy", "clarabel", "cvxpy:ecos", "scs"])
def test_lp_duals_same_convention(solver):
    if solver.split(":")[-1] not in available_solvers():
        pytest.skip(f"{solver} not installed")
    loose = solver == "scs"
    problem, x_ref, y_ref = designed_lp()
    res = solve(problem, solver).raise_for_status()
    tol = 1e-3 if loose else 1e-6
    np.testing.assert_allclose(res.x, x_ref, atol=tol)
    np.testing.assert_allclose(res.dual, y_ref, atol=tol)
    y = res.dual
    reduced = problem.c - problem.A.T @ y
    assert np.all(reduced >= -tol)  # dual feasibility: all columns have lower bound 0
    assert np.all(np.abs(reduced * res.x) < tol)  # complementary slackness
    # rows: y ≥ 0 only where the lower bound is finite, y ≤ 0 only where the upper bound is
    assert np.all(y[np.isinf(problem.row_lower)] <= tol)
    assert np.all(y[np.isinf(problem.row_upper)] >= -tol)
    dual_value = np.sum(np.where(y > 0, y * np.nan_to_num(problem.row_lower, posinf=0, neginf=0),
                                 y * np.nan_to_num(problem.row_upper, posinf=0, neginf=0)))
    assert dual_value == pytest.approx(res.objective, abs=tol)  # strong duality
    assert res.objective == pytest.approx(-1.5, abs=tol)


def test_lp_ranker_duals_strong_duality():
    """On the LP Ranker (rows ≥ 1 and = 0, α, z ≥ 0, s free) HiGHS and Clarabel duals certify the optimum."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(25, 3))
    y = (X[:, 0] > 0).astype(int)
    problem = lp_ranker(X, y, gamma=0.5, C=0.7)
    free = np.isinf(problem.col_lower)
    for name in ("highs", "clarabel"):
        res = solve(problem, name).raise_for_status()
        reduced = problem.c - problem.A.T @ res.dual
        assert np.all(reduced[~free] >= -1e-6), name
        np.testing.assert_allclose(reduced[free], 0.0, atol=1e-6)
        assert np.all(res.dual[np.isinf(problem.row_upper)] >= -1e-7)
        assert res.dual @ problem.row_lower == pytest.approx(res.objective, rel=1e-6)


# ----------------------------------------------------------------------------- statuses


def infeasible_lp():
    # x0 + x1 ≥ 3, x0 − x1 = 0, x0 ≤ 1, x ≥ 0
    A = sp.csc_matrix(np.array([[1.0, 1.0], [1.0, -1.0]]))
    return Problem(c=np.array([1.0, 1.0]), A=A, row_lower=np.array([3.0, 0.0]), row_upper=np.array([INF, 0.0]),
                   col_lower=np.zeros(2), col_upper=np.array([1.0, INF]), name="infeasible")


def unbounded_lp():
    # min −x0 − x1 s.t. x0 − x1 ≥ 0, x ≥ 0
    return Problem(c=np.array([-1.0, -1.0]), A=sp.csc_matrix(np.array([[1.0, -1.0]])),
                   row_lower=np.array([0.0]), row_upper=np.array([INF]),
                   col_lower=np.zeros(2), col_upper=np.full(2, INF), name="unbounded")


CASES = [("highs", {}), ("highs", {"solver_options": {"presolve": "off"}}), ("osqp", {}), ("cvxpy", {}),
         ("clarabel", {})]


@pytest.mark.parametrize("solver, options", CASES)
def test_infeasible_status(solver, options):
    res = solve(infeasible_lp(), solver, **options)
    assert res.status in (Status.INFEASIBLE, Status.INFEASIBLE_OR_UNBOUNDED), res.status
    assert not res.ok
    with pytest.raises(SolverError, match="infeasible") as excinfo:
        res.raise_for_status()
    assert excinfo.value.result is res
    assert "'infeasible'" in str(excinfo.value)


@pytest.mark.parametrize("solver, options", CASES)
def test_unbounded_status(solver, options):
    res = solve(unbounded_lp(), solver, **options)
    assert res.status in (Status.UNBOUNDED, Status.INFEASIBLE_OR_UNBOUNDED), res.status
    with pytest.raises(SolverError, match="unbounded"):
        res.raise_for_status()


@pytest.mark.parametrize("solver", ["highs", "osqp", "clarabel"])
def test_infeasible_qp_status(solver):
    base = infeasible_lp()
    qp = Problem(c=base.c, A=base.A, row_lower=base.row_lower, row_upper=base.row_upper,
                 col_lower=base.col_lower, col_upper=base.col_upper, P=sp.identity(2, format="csc"))
    res = solve(qp, solver)
    assert res.status in (Status.INFEASIBLE, Status.INFEASIBLE_OR_UNBOUNDED), res.status
    with pytest.raises(SolverError):
        res.raise_for_status()


@pytest.fixture(scope="module")
def ranker_lp():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    return lp_ranker(X, rng.integers(0, 2, 30), gamma=0.5)


@pytest.mark.parametrize(
    "solver, options, expected",
    [
        ("osqp", {"max_iter": 1, "solver_options": {"polishing": False}}, {Status.ITERATION_LIMIT}),
        ("osqp", {"max_iter": 1}, {Status.ITERATION_LIMIT}),
        ("highs", {"solver_options": {"presolve": "off", "simplex_iteration_limit": 1}}, {Status.ITERATION_LIMIT}),
        ("highs", {"max_iter": 1, "solver_options": {"presolve": "off"}}, {Status.ITERATION_LIMIT}),
        ("highs", {"max_iter": 1}, {Status.ITERATION_LIMIT}),
        ("highs", {"solver_options": {"solver": "ipm", "ipm_iteration_limit": 1, "run_crossover": "off"}},
         {Status.ITERATION_LIMIT}),
        ("highs", {"max_iter": 1, "solver_options": {"solver": "ipm", "run_crossover": "off"}},
         {Status.ITERATION_LIMIT}),
        ("highs", {"time_limit": 0.0}, {Status.TIME_LIMIT}),
        ("clarabel", {"solver_options": {"max_iter": 1}}, {Status.ITERATION_LIMIT}),
        ("clarabel", {"max_iter": 1}, {Status.ITERATION_LIMIT}),
        ("cvxpy:scs", {"max_iter": 1}, {Status.ITERATION_LIMIT, Status.OPTIMAL_INACCURATE}),
    ],
)
def test_limit_status_warns(ranker_lp, solver, options, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # backends' own chatter
        res = solve(ranker_lp, solver, **options)
    assert res.status in expected, res.status
    assert res.x is not None and res.x.shape == (ranker_lp.n_vars,)
    with pytest.warns(SolverWarning, match="approximate"):
        assert res.raise_for_status() is res
    # the point it stopped at is not the optimum
    ref = solve(ranker_lp, "highs").objective
    assert ranker_lp.violation(res.x) > 1e-6 or res.objective > ref * (1 + 1e-6)


def test_optimal_does_not_warn(ranker_lp):
    res = solve(ranker_lp, "highs")
    assert res.ok and res.status == Status.OPTIMAL and str(res.status) == "optimal"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert res.raise_for_status() is res
    assert res.solver == "highs" and res.problem_name == "lp_ranker"
    assert res.iterations > 0 and res.wall_time >= 0


# ----------------------------------------------------------------------------- names and validation


def test_available_and_unknown_solvers():
    names = available_solvers()
    assert {"highs", "osqp", "cvxpy"} <= set(names)
    with pytest.raises(ValueError, match="Unknown solver") as excinfo:
        solve(designed_lp()[0], solver="gurobi_9000")
    for name in ("highs", "osqp", "cvxpy"):
        assert name in str(excinfo.value)
    with pytest.raises(ValueError, match="Unknown solver"):
        check_solver("nope")
    with pytest.raises(ValueError):
        solve(designed_lp()[0], solver=None)
    with pytest.raises(ValueError, match="not installed"):
        solve(designed_lp()[0], solver="cvxpy:no_such_cvxpy_solver")


@pytest.mark.parametrize("name, label", [("cvxpy", "cvxpy:clarabel"), ("CLARABEL", "cvxpy:clarabel"),
                                         ("cvxpy:clarabel", "cvxpy:clarabel"), (" HiGHS ", "highs"),
                                         ("cvxpy:SCS", "cvxpy:scs"), ("scs", "cvxpy:scs"),
                                         ("osqp", "osqp"), ("cvxpy:osqp", "cvxpy:osqp")])
def test_solver_name_forms(name, label):
    res = solve(designed_lp()[0], solver=name)
    assert res.solver == label
    assert res.objective == pytest.approx(-1.5, abs=1e-3)


def _problem(**overrides):
    kw = dict(c=np.zeros(3), A=sp.csc_matrix(np.ones((2, 3))), row_lower=np.zeros(2), row_upper=np.ones(2),
              col_lower=np.zeros(3), col_upper=np.ones(3))
    kw.update(overrides)
    return Problem(**kw)


@pytest.mark.parametrize(
    "overrides, match",
    [
        ({"A": sp.csc_matrix(np.ones((2, 4)))}, "columns"),
        ({"row_lower": np.zeros(3)}, "row_lower"),
        ({"col_upper": np.ones(2)}, "col_upper"),
        ({"row_lower": np.array([0.0, 2.0])}, "lower > upper"),
        ({"col_lower": np.array([0.0, 2.0, 0.0])}, "lower > upper"),
        ({"row_upper": np.array([1.0, np.nan])}, "NaN"),
        ({"col_lower": np.array([np.nan, 0.0, 0.0])}, "NaN"),
        ({"P": sp.identity(2, format="csc")}, "P must be"),
    ],
)
def test_problem_validation(overrides, match):
    with pytest.raises(ValueError, match=match):
        _problem(**overrides)


def test_problem_accepts_infinite_bounds_and_drops_empty_P():
    p = _problem(row_lower=np.array([-INF, 0.0]), col_upper=np.full(3, INF), P=sp.csc_matrix((3, 3)))
    assert p.is_lp and p.kind == "LP" and p.n_vars == 3 and p.n_rows == 2
    assert p.violation(np.zeros(3)) == 0.0
    assert p.violation(np.array([-1.5, 0.0, 3.0])) == pytest.approx(1.5)  # rows: 1.5 > 1; col 0: −1.5 < 0
    assert p.violation(np.array([0.0, 0.0, 3.0])) == pytest.approx(2.0)  # rows: 3 > 1


def test_highs_warm_start_from_the_optimum_saves_iterations(breast_cancer):
    """A warm start changes the path, not the answer: same optimum, fewer simplex iterations."""
    X, y = breast_cancer
    idx = np.random.default_rng(3).permutation(len(y))[:150]
    problem = get_formulation("lp_ranker").build(PairSet.bipartite(y[idx]), kernel_matrix(X[idx], gamma=1.0), C=10.0)
    cold = solve(problem, "highs", solver_options={"presolve": "off"})
    warm = solve(problem, "highs", solver_options={"presolve": "off"}, warm_start={"x": cold.x})
    assert warm.status == cold.status == Status.OPTIMAL
    assert warm.objective == pytest.approx(cold.objective, rel=1e-9)
    assert warm.iterations < cold.iterations
    with pytest.raises(ValueError, match="warm_start"):
        solve(problem, "highs", warm_start={"x": np.zeros(3)})


# ----------------------------------------------------------------------------- the registry


def test_registry_and_available_solvers_agree():
    names = available_solvers()
    assert len(names) == len(set(names))
    for key, backend in REGISTRY.items():
        assert backend.name == key and key == key.lower()
        assert (key in names) == backend.is_available()
        assert backend.problem_kinds <= {"LP", "QP"} and backend.required_modules
        for variant in backend.variants():
            assert variant in names
    for name in names:  # every listed name resolves, and solves a tiny LP
        assert check_solver(name) == name
    for name in ("highs", "osqp", "cvxpy", "clarabel"):
        res = solve(designed_lp()[0], name)
        assert res.status == Status.OPTIMAL and res.objective == pytest.approx(-1.5, abs=1e-5), name
    variants = [v for b in REGISTRY.values() if b.is_available() for v in b.variants()]
    assert set(names) == {k for k, b in REGISTRY.items() if b.is_available()} | set(variants)


class _Origin(SolverBackend):
    """A toy LP-only backend returning the origin."""

    name = "origin"
    required_modules = ("numpy",)
    problem_kinds = frozenset({"LP"})
    calls: ClassVar[list] = []

    def solve(self, problem, *, tol=None, max_iter=None, time_limit=None, verbose=False, warm_start=None,
              solver_options=None):
        self.calls.append(dict(tol=tol, max_iter=max_iter, time_limit=time_limit, verbose=verbose,
                               warm_start=warm_start, solver_options=solver_options))
        x = np.zeros(problem.n_vars)
        return SolveResult(Status.OPTIMAL, problem.objective(x), x, solver=self.label)


class _Missing(_Origin):
    name = "missing"
    required_modules = ("no_such_module_for_aucopt",)


def test_one_registry_line_adds_a_backend(monkeypatch):
    assert "origin" not in available_solvers()
    with pytest.raises(ValueError, match="Unknown solver 'origin'"):
        check_solver("origin")
    monkeypatch.setitem(REGISTRY, "origin", _Origin())
    assert "origin" in available_solvers() and check_solver("ORIGIN") == "ORIGIN"
    _Origin.calls.clear()
    raw = {"anything": 1}
    res = solve(designed_lp()[0], "origin", tol=1e-4, max_iter=7, time_limit=2.0, verbose=1, solver_options=raw)
    assert res.solver == "origin" and res.problem_name == "designed_lp" and res.wall_time >= 0
    assert _Origin.calls == [dict(tol=1e-4, max_iter=7, time_limit=2.0, verbose=1, warm_start=None,
                                  solver_options=raw)]
    assert _Origin.calls[0]["solver_options"] is raw  # passed unchanged
    # the backend's problem kinds are checked before it is called
    problem, _, _ = kkt_qp(0)
    with pytest.raises(ValueError, match=r"does not solve QPs.*\['LP'\]"):
        solve(problem, "origin")
    assert len(_Origin.calls) == 1


def test_backend_with_missing_module_is_not_available(monkeypatch):
    monkeypatch.setitem(REGISTRY, "missing", _Missing())
    assert "missing" not in available_solvers()
    with pytest.raises(ValueError, match="no_such_module_for_aucopt"):
        check_solver("missing")


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"tol": -1.0}, "tol must be a positive"),
        ({"tol": 0.0}, "tol must be a positive"),
        ({"max_iter": 0}, "max_iter must be an integer >= 1"),
        ({"max_iter": 2.5}, "max_iter must be an integer >= 1"),
        ({"time_limit": -1.0}, "time_limit must be a number >= 0"),
        ({"solver_options": "fast"}, "solver_options must be a dict"),
    ],
)
def test_solve_argument_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        solve(designed_lp()[0], "highs", **kwargs)


def test_hyphenated_cvxpy_names_are_unknown():
    with pytest.raises(ValueError, match="Unknown solver 'cvxpy-scs'"):
        check_solver("cvxpy-scs")


# ----------------------------------------------------------------------------- raw options


@pytest.mark.parametrize(
    "solver, raw, match",
    [
        ("highs", {"no_such_option": 1}, r"HiGHS rejected the option 'no_such_option' = 1"),
        ("highs", {"solver": "bogus"}, r"HiGHS rejected the option 'solver' = 'bogus'"),
        ("highs", {"presolve": False}, r"HiGHS rejected the option 'presolve' = False"),
        ("highs", {"time_limit": "soon"}, r"HiGHS rejected the option 'time_limit' = 'soon'"),
        ("highs", {"primal_feasibility_tolerance": -1.0}, r"'primal_feasibility_tolerance' = -1\.0"),
        ("osqp", {"no_such_setting": 1}, r"OSQP has no setting 'no_such_setting'"),
        ("osqp", {"eps_abs": "tight"}, r"OSQP rejected the setting 'eps_abs' = 'tight': wrong type"),
        ("osqp", {"eps_abs": -1.0}, r"OSQP rejected the setting 'eps_abs' = -1\.0 \(out of range"),
        ("cvxpy", {"no_such_setting": 1}, r"CLARABEL rejected solver_options \{'no_such_setting': 1\}"),
        ("clarabel", {"max_iter": "many"}, r"CLARABEL rejected solver_options \{'max_iter': 'many'\}"),
        ("cvxpy:ecos", {"no_such_setting": 1}, r"ECOS rejected solver_options"),
        ("cvxpy", {"solver": "SCS"}, r"may not name the cvxpy solver"),
    ],
)
def test_rejected_raw_option_raises(solver, raw, match):
    if solver.split(":")[-1] not in available_solvers():
        pytest.skip(f"{solver} not installed")
    problem = designed_lp()[0]
    with pytest.raises(ValueError, match=match):
        solve(problem, solver, solver_options=raw)
    with pytest.raises(ValueError, match=match):
        solve(kkt_qp(0)[0], solver, solver_options=raw)


def test_raw_options_are_applied_last(monkeypatch):
    """solver_options override what tol / max_iter / the defaults set, and are not modified."""
    import aucopt.solvers.highs as highs_backend

    recorded = []
    original = highs_backend._set_option

    def spy(h, highspy, key, value):
        recorded.append((key, value))
        original(h, highspy, key, value)

    monkeypatch.setattr(highs_backend, "_set_option", spy)
    raw = {"primal_feasibility_tolerance": 1e-5, "solver": "ipm"}
    frozen = dict(raw)
    res = solve(designed_lp()[0], "highs", tol=1e-8, max_iter=500, time_limit=30.0, solver_options=raw)
    assert res.ok and res.info["algorithm"] == "ipm"
    assert raw == frozen
    last = dict(recorded)  # the value HiGHS was left with
    assert last["primal_feasibility_tolerance"] == 1e-5 and last["dual_feasibility_tolerance"] == 1e-8
    assert last["solver"] == "ipm" and last["time_limit"] == 30.0 and last["output_flag"] is False
    for key in ("simplex_iteration_limit", "ipm_iteration_limit", "qp_iteration_limit", "pdlp_iteration_limit"):
        assert last[key] == 500
    recorded.clear()
    solve(designed_lp()[0], "highs")
    assert dict(recorded)["solver"] == "simplex"  # aucopt's LP default: dual simplex
    assert dict(recorded)["primal_feasibility_tolerance"] == 1e-9
    recorded.clear()
    solve(kkt_qp(0)[0], "highs")
    assert "solver" not in dict(recorded) and dict(recorded)["primal_feasibility_tolerance"] == 1e-7


# ----------------------------------------------------------------------------- tol and max_iter reach every backend


def test_tol_reaches_osqp():
    problem, x_ref, _ = designed_qp(0)
    errors, iterations = {}, {}
    for tol in (1e-2, 1e-8):
        res = solve(problem, "osqp", tol=tol, solver_options={"polishing": False})
        assert res.status == Status.OPTIMAL
        errors[tol] = np.abs(res.x - x_ref).max()
        iterations[tol] = res.iterations
    assert iterations[1e-2] < iterations[1e-8]
    assert errors[1e-8] < 1e-6 < errors[1e-2]
    # a raw eps_abs / eps_rel overrides tol
    raw = solve(problem, "osqp", tol=1e-8, solver_options={"polishing": False, "eps_abs": 1e-2, "eps_rel": 1e-2})
    assert raw.iterations == iterations[1e-2]


def test_tol_reaches_clarabel(ranker_lp):
    loose = solve(ranker_lp, "clarabel", tol=1e-2)
    tight = solve(ranker_lp, "clarabel", tol=1e-10)
    ref = solve(ranker_lp, "highs").objective
    assert loose.iterations < tight.iterations
    assert abs(tight.objective - ref) < abs(loose.objective - ref)
    assert tight.objective == pytest.approx(ref, rel=1e-8)
    # the same through Clarabel's own keywords
    raw = solve(ranker_lp, "clarabel", solver_options={"tol_gap_abs": 1e-2, "tol_gap_rel": 1e-2, "tol_feas": 1e-2})
    assert raw.iterations == loose.iterations


def test_tol_reaches_highs(ranker_lp):
    """tol sets HiGHS's feasibility and interior-point optimality tolerances."""
    ipm = {"presolve": "off", "solver": "ipm", "run_crossover": "off"}
    ref = solve(ranker_lp, "highs").objective
    loose = solve(ranker_lp, "highs", tol=1e-6, solver_options=ipm)
    tight = solve(ranker_lp, "highs", tol=1e-9, solver_options=ipm)
    assert loose.status == tight.status == Status.OPTIMAL
    assert loose.iterations < tight.iterations
    assert abs(tight.objective - ref) < abs(loose.objective - ref)
    assert tight.objective == pytest.approx(ref, rel=1e-7)


def test_cvxpy_solver_without_tolerance_mapping():
    if "scipy" not in available_solvers():
        pytest.skip("cvxpy's SCIPY interface not installed")
    problem = designed_lp()[0]
    assert solve(problem, "cvxpy:scipy").objective == pytest.approx(-1.5, abs=1e-7)
    with pytest.raises(ValueError, match="tol=1e-06 has no known mapping for the cvxpy solver SCIPY"):
        solve(problem, "cvxpy:scipy", tol=1e-6)
    with pytest.raises(ValueError, match="max_iter=5 has no known mapping"):
        solve(problem, "cvxpy:scipy", max_iter=5)


# ----------------------------------------------------------------------------- one LP, three backends


@pytest.mark.parametrize("seed", [0, 1])
def test_same_lp_on_highs_osqp_clarabel(seed):
    """A random bounded LP with a unique optimum: the three backends agree on x, y and the value."""
    rng = np.random.default_rng(40 + seed)
    n, k = 8, 5
    A = rng.normal(size=(k, n))
    x0 = rng.uniform(0.2, 1.0, n)
    row_lower, row_upper = A @ x0 - rng.uniform(0.1, 1, k), A @ x0 + rng.uniform(0.1, 1, k)
    problem = Problem(c=rng.normal(size=n), A=sp.csc_matrix(A), row_lower=row_lower, row_upper=row_upper,
                      col_lower=np.zeros(n), col_upper=np.full(n, 2.0), name="box_lp")
    results = {s: solve(problem, s, tol=1e-9).raise_for_status() for s in ("highs", "osqp", "clarabel")}
    ref = results["highs"]
    for name, res in results.items():
        assert res.status == Status.OPTIMAL, name
        assert res.objective == pytest.approx(ref.objective, rel=1e-6, abs=1e-8), name
        np.testing.assert_allclose(res.x, ref.x, atol=1e-5, err_msg=name)
        np.testing.assert_allclose(res.dual, ref.dual, atol=1e-5, err_msg=name)
        assert problem.violation(res.x) < 1e-6, name


@pytest.mark.parametrize("problem", [kkt_qp(0)[0], designed_qp(1)[0]], ids=["free", "bounded"])
def test_warm_start_reaches_osqp_and_cvxpy(problem):
    cold = solve(problem, "osqp", tol=1e-8, solver_options={"polishing": False})
    warm = solve(problem, "osqp", tol=1e-8, warm_start={"x": cold.x, "y": cold.dual},
                 solver_options={"polishing": False})
    assert cold.ok and warm.ok and warm.iterations < cold.iterations
    assert solve(problem, "clarabel", warm_start={"x": cold.x}).ok
    for name in ("osqp", "clarabel"):
        with pytest.raises(ValueError, match=r"warm_start\['x'\] must have shape"):
            solve(problem, name, warm_start={"x": np.zeros(2)})


@pytest.mark.parametrize("solver", ["highs", "osqp", "clarabel"])
def test_backends_are_silent_unless_verbose(solver, capfd):
    """Nothing reaches the terminal (not even HiGHS's banner) with verbose=False; verbose=True logs."""
    problem = designed_lp()[0]
    capfd.readouterr()
    assert solve(problem, solver).ok
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    assert solve(problem, solver, verbose=True).ok
    out, err = capfd.readouterr()
    assert len(out + err) > 0
    if solver == "highs":  # the model goes in without an integrality vector for HiGHS to warn about
        assert "Model status        : Optimal" in out and "WARNING" not in out + err


# ----------------------------------------------------------------------------- honest statuses


def unbounded_qp():
    """½‖β‖² − t with t free: unbounded below along t."""
    return Problem(c=np.array([0.0, 0.0, -1.0]), P=sp.diags([1.0, 1.0, 0.0]).tocsc(),
                   A=sp.csc_matrix(np.array([[1.0, 1.0, 0.0]])), row_lower=np.array([-10.0]),
                   row_upper=np.array([10.0]), col_lower=np.full(3, -np.inf), col_upper=np.full(3, np.inf))


@pytest.mark.parametrize("solver", ["highs", "osqp", "clarabel"])
def test_unbounded_free_variable_qp_is_not_optimal(solver):
    res = solve(unbounded_qp(), solver)
    assert res.status == Status.UNBOUNDED, (res.status, res.message)
    assert res.x is None


@pytest.mark.parametrize("solver", ["highs", "osqp", "clarabel"])
def test_non_finite_point_is_never_optimal(monkeypatch, solver):
    problem = designed_lp()[0]
    backend = aucopt.solvers._resolve(solver)
    real = type(backend).solve

    def poisoned(self, *args, **kwargs):
        res = real(self, *args, **kwargs)
        res.x = res.x.copy()
        res.x[0] = np.nan
        res.objective = float("nan")
        return res

    monkeypatch.setattr(type(backend), "solve", poisoned)
    res = solve(problem, solver)
    assert res.status == Status.NUMERICAL_ERROR and res.x is None
    assert "non-finite" in res.message
    with pytest.raises(SolverError):
        res.raise_for_status()


def test_clarabel_time_limit_is_time_limit(ranker_lp):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert solve(ranker_lp, "clarabel", time_limit=1e-9).status == Status.TIME_LIMIT
        assert solve(ranker_lp, "clarabel", max_iter=1).status == Status.ITERATION_LIMIT


# ----------------------------------------------------------------------------- time limits and logs
TIME_LIMITED = ["highs", "osqp", "clarabel", "scs", "cvxpy:highs", "cvxpy:osqp"]


@pytest.fixture(scope="module")
def medium_problems():
    """The LP Ranker LP and the AUC-SVM dual QP on 150 points (5,600 pairs): no backend solves
    either in a millisecond, so a 1e-3 s limit always binds."""
    X, y = make_classification(n_samples=150, n_features=5, random_state=0)
    lp = get_formulation("lp_ranker").build(PairSet.bipartite(y), kernel_matrix(X, gamma=0.5), C=1.0)
    qp = get_formulation("aucsvm_l1_dual").build(PairSet.bipartite(y), factor=X, C=1.0)
    return {"LP": lp, "QP": qp}


#: time limits tried in turn until a stop leaves a point: on a loaded machine a backend can spend
#: the first millisecond before its first iterate (HiGHS, stopped in its presolve, has no point)
TIME_LIMITS = (1e-3, 2e-3, 5e-3, 1e-2, 2e-2, 5e-2, 0.1, 0.2, 0.5)


def _stop_with_a_point(problem, solver):
    """The first solve of ``problem`` stopped by one of :data:`TIME_LIMITS` that leaves a point. A
    stop before any iterate must say so: no point, a NaN objective, and raise_for_status raises."""
    for limit in TIME_LIMITS:
        res = solve(problem, solver, solver_options={"time_limit": limit})
        assert res.status == Status.TIME_LIMIT, (solver, limit, res.status, res.message)
        if res.x is not None:
            return res
        assert np.isnan(res.objective), (solver, limit, res.objective)
        with pytest.raises(SolverError, match="time_limit"):
            res.raise_for_status()
    pytest.fail(f"{solver} left no point within {TIME_LIMITS[-1]} s")


@pytest.mark.parametrize("kind", ["LP", "QP"])
@pytest.mark.parametrize("solver", TIME_LIMITED)
def test_time_limit_option_stops_every_backend_with_a_usable_point(medium_problems, solver, kind):
    """``solver_options={"time_limit": s}`` is the one spelling on every backend (SCS's own
    keyword is time_limit_secs); the stop is TIME_LIMIT with a finite point and a warning."""
    problem = medium_problems[kind]
    res = _stop_with_a_point(problem, solver)
    assert res.x.shape == (problem.n_vars,) and np.all(np.isfinite(res.x))
    assert res.objective == pytest.approx(problem.objective(res.x), rel=1e-12)
    with pytest.warns(SolverWarning, match="time_limit"):
        res.raise_for_status()


def test_a_stop_before_any_iterate_leaves_no_point(medium_problems):
    """HiGHS stopped before its presolve ends (a limit of a nanosecond) has no point to give: the
    result says so, and raise_for_status refuses it rather than warn about an approximate one."""
    res = solve(medium_problems["LP"], "highs", solver_options={"time_limit": 1e-9})
    assert res.status == Status.TIME_LIMIT and res.x is None and np.isnan(res.objective)
    with pytest.raises(SolverError, match="before a first point, so there is no solution to return: raise the time"):
        res.raise_for_status()
    with pytest.raises(SolverError, match=r"before a first point.*raise the time limit"):
        aucopt.LPRanker(solver="highs", solver_options={"time_limit": 1e-9}).fit(*make_classification(
            n_samples=150, n_features=5, random_state=0))


def test_time_limit_is_what_stops_the_solve(medium_problems):
    """The same solves without the limit end optimal: the limit, not the problem, stopped them."""
    assert solve(medium_problems["QP"], "clarabel").status == Status.OPTIMAL
    assert solve(medium_problems["LP"], "highs").status == Status.OPTIMAL


@pytest.mark.parametrize("how", ["argument", "solver_options"])
def test_solver_without_time_limit_refuses_one(ranker_lp, how):
    kwargs = {"time_limit": 5.0} if how == "argument" else {"solver_options": {"time_limit": 5.0}}
    with pytest.raises(ValueError, match=r"cvxpy solver ECOS has no time limit .*choose a solver that has one"):
        solve(ranker_lp, "cvxpy:ecos", **kwargs)
    with pytest.raises(ValueError, match=r"time_limit'\] must be a number of seconds >= 0; got 'soon'"):
        solve(ranker_lp, "scs", solver_options={"time_limit": "soon"})


def test_scs_limits_are_limit_statuses_not_inaccurate_optima(medium_problems):
    """SCS reports 'solved (inaccurate - reached max_iters)': an iteration limit, not an optimum."""
    res = solve(medium_problems["QP"], "scs", max_iter=20)
    assert res.status == Status.ITERATION_LIMIT, (res.status, res.message)


@pytest.mark.parametrize("estimator, solver", [("LPRanker", "highs"), ("LPRanker", "osqp"),
                                               ("AUCSVM", "osqp"), ("AUCSVM", "clarabel")])
def test_estimators_honour_a_time_limit(estimator, solver):
    X, y = make_classification(n_samples=150, n_features=5, random_state=0)
    for limit in TIME_LIMITS:  # on a loaded machine the first limits may come before HiGHS's first point
        est = getattr(aucopt, estimator)(solver=solver, solver_options={"time_limit": limit})
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                est.fit(X, y)
                break
            except SolverError as exc:  # then the error says so and how to get one
                assert "stopped before a first point" in str(exc) and "raise the time limit" in str(exc)
    else:
        pytest.fail(f"{estimator} on {solver} left no point within {TIME_LIMITS[-1]} s")
    assert est.solve_result_.status == Status.TIME_LIMIT
    assert any(issubclass(w.category, SolverWarning) and "time_limit" in str(w.message) for w in caught)
    assert np.all(np.isfinite(est.decision_function(X)))


def _binary(n=24):
    return make_classification(n_samples=n, n_features=4, random_state=1)


def _survival(n=24):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3))
    return X, aucopt.survival_target(rng.random(n) < 0.7, rng.exponential(size=n) + 0.1)


#: (estimator, parameters, a line of the backend's own log)
LOGGED_FITS = [
    ("LPRanker", {"gamma": 1.0}, "Model status"),
    ("LPRanker", {"gamma": 1.0, "method": "chunking", "method_options": {"n_chunks": 2}}, "Model status"),
    ("LPRanker", {"gamma": 1.0, "method": "clustering"}, "Model status"),
    ("LPRanker", {"gamma": 1.0, "solver": "clarabel"}, "Clarabel"),
    ("SurvivalLPRanker", {"gamma": 1.0}, "Model status"),
    ("SurvivalLPRanker", {"gamma": 1.0, "method": "chunking", "method_options": {"n_chunks": 2}}, "Model status"),
    ("AUCSVM", {"C": 0.1, "method": "full"}, "OSQP v"),
    ("AUCSVM", {"C": 0.1, "kernel": "linear", "method": "kmeans", "method_options": {"n_clusters": 5}}, "OSQP v"),
    ("AUCSVM", {"C": 0.1, "solver": "highs"}, "Model status"),
    ("AUCSVM", {"C": 0.1, "kernel": "linear", "method": "liblinear"}, "iter"),
    ("SurvivalAUCSVM", {"C": 0.1, "method": "full"}, "OSQP v"),
]


@pytest.mark.parametrize("name, params, logged", LOGGED_FITS,
                         ids=[f"{n}-{p.get('method', 'full')}-{p.get('solver', '')}" for n, p, _ in LOGGED_FITS])
def test_verbose_prints_the_backend_log_and_quiet_prints_nothing(name, params, logged, capfd):
    X, y = _survival() if name.startswith("Survival") else _binary()
    capfd.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. k-means on few points; warnings are not the log
        getattr(aucopt, name)(verbose=False, **params).fit(X, y)
        quiet = capfd.readouterr()
        getattr(aucopt, name)(verbose=True, **params).fit(X, y)
        loud = capfd.readouterr()
    assert quiet.out == "" and quiet.err == ""
    assert logged in loud.out, loud.out[-2000:]


def test_cvxpy_highs_is_silent_unless_verbose():
    """HiGHS prints a banner when a process builds its first Highs object; through cvxpy it
    came before verbose=False could apply. In a fresh process, so no earlier Highs hides it."""
    code = textwrap.dedent("""
        import numpy as np, scipy.sparse as sp
        from aucopt import Problem, solve
        lp = Problem(c=np.array([1.0, 2.0]), A=sp.csc_matrix([[1.0, 1.0]]), row_lower=np.array([1.0]),
                     row_upper=np.array([np.inf]), col_lower=np.zeros(2), col_upper=np.full(2, np.inf))
        assert solve(lp, "cvxpy:highs").status == "optimal"
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).parent, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == "" and done.stderr == "", done.stdout + done.stderr


# ----------------------------------------------------------------------------- OSQP on LPs
@pytest.mark.parametrize("name, solver", [("LPRanker", "osqp"), ("LPRanker", "cvxpy:osqp"),
                                          ("SurvivalLPRanker", "osqp")])
def test_an_lp_sent_to_osqp_warns_at_fit_that_highs_is_the_lp_solver(name, solver):
    X, y = _survival() if name.startswith("Survival") else _binary()
    # the advice comes with the fit whatever its outcome: OSQP's default 200,000 iterations (the survival
    # LP used them all, 1.9 s) are not needed to see it
    est = getattr(aucopt, name)(gamma=1.0, solver=solver, max_iter=2000)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y)
    advice = [w for w in caught if issubclass(w.category, SolverWarning) and "HiGHS is the LP solver" in str(w.message)]
    assert len(advice) == 1, [str(w.message) for w in caught]
    assert f"solver={solver!r}" in str(advice[0].message) and "meant for QPs" in str(advice[0].message)
    assert advice[0].filename == __file__  # points at the user's fit call


@pytest.mark.parametrize("name, params", [("LPRanker", {}), ("LPRanker", {"solver": "clarabel"}),
                                          ("LPRanker", {"solver": "osqp", "method": "subgradient"}),
                                          ("AUCSVM", {"solver": "osqp"})])
def test_no_lp_advice_where_the_solver_fits_the_problem(name, params):
    X, y = _binary()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(aucopt, name)(**params).fit(X, y)
    assert not [w for w in caught if "HiGHS is the LP solver" in str(w.message)]


def test_a_zero_time_limit_stops_at_once_or_is_refused_by_name(medium_problems):
    """SCS reads time_limit_secs=0 as 'no limit': aucopt's 0 stops it at once, as on HiGHS and
    Clarabel; OSQP refuses 0 and the error names the setting."""
    for solver in ("scs", "highs", "clarabel"):
        res = solve(medium_problems["QP"], solver, solver_options={"time_limit": 0})
        assert res.status == Status.TIME_LIMIT, (solver, res.status)
    with pytest.raises(ValueError, match=r"OSQP rejected the setting 'time_limit' = 0\.0"):
        solve(medium_problems["QP"], "osqp", time_limit=0.0)
