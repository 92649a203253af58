"""Problem interoperability against independent oracles.

Oracles: cvxpy (Clarabel) on ``to_cvxpy``; a fresh highspy instance solving the written file
(independent of aucopt's HiGHS backend and of ``Problem.read``); HiGHS's own solution file; the
LP Ranker written directly in cvxpy against the registered ``lp_ranker``.
"""

from __future__ import annotations

import os
import sys

import cvxpy as cp
import highspy
import numpy as np
import pytest
import scipy.sparse as sp

from aucopt import PairSet, Problem, available_formulations, get_formulation, kernel_matrix, solve
from aucopt.modeling._formulation import _REGISTRY
from aucopt.modeling._interop import column_names, cvxpy_formulation, from_cvxpy, read_problem

sys.path.insert(0, os.path.dirname(__file__))
from formulation_cases import CASES, shipped_formulations

RTOL = 1e-7


def reference(problem):
    """aucopt's optimum: HiGHS for an LP, Clarabel (tight) for a QP."""
    if problem.is_lp:
        result = solve(problem, "highs")
    else:
        result = solve(problem, "clarabel", solver_options={"tol_gap_abs": 1e-11, "tol_gap_rel": 1e-11,
                                                            "tol_feas": 1e-11})
    assert result.ok, result
    return result


def close(a, b, rtol=RTOL):
    return abs(a - b) <= rtol * max(1.0, abs(a), abs(b))


def fresh_highs():
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    return h


class _Built(dict):
    """CASES built on first use, so that one failing case fails only its own tests."""

    def __missing__(self, name):
        self[name] = CASES[name]()
        return self[name]


@pytest.fixture(scope="module")
def built():
    return _Built()


# ----------------------------------------------------------------------------- the case registry
def test_every_shipped_formulation_has_a_case():
    missing = sorted(set(shipped_formulations()) - set(CASES))
    assert not missing, (f"formulation(s) {missing} have no build case: add one line each to "
                         "tests/modeling/formulation_cases.py::CASES")
    assert {"lp_ranker", "aucsvm_l1_dual"} <= set(shipped_formulations())


def test_cases_are_small_and_of_their_formulation(built):
    for name in CASES:
        problem = built[name]
        assert problem.name == name
        assert problem.metadata["n_points"] <= 40
        assert problem.kind.lower() == get_formulation(name).kind


def test_shipped_filter_leaves_out_test_registered_formulations():
    @cvxpy_formulation("_interop_throwaway", kind="lp")
    def throwaway(pairs, kernel):
        t = cp.Variable(name="t")
        return cp.Problem(cp.Minimize(t), [t >= 0])

    try:
        assert "_interop_throwaway" in available_formulations()
        assert "_interop_throwaway" not in shipped_formulations()
    finally:
        _REGISTRY.pop("_interop_throwaway", None)


# ----------------------------------------------------------------------------- cvxpy
@pytest.mark.parametrize("name", sorted(CASES))
def test_to_cvxpy_same_optimum(built, name):
    problem = built[name]
    ours = reference(problem)
    cvx, x = problem.to_cvxpy()
    value = cvx.solve(solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    assert cvx.status == "optimal"
    assert close(float(value), ours.objective), (value, ours.objective)
    assert close(problem.objective(x.value), ours.objective)
    assert problem.violation(x.value) < 1e-7


@pytest.mark.parametrize("name", sorted(CASES))
def test_from_cvxpy_roundtrip_of_every_case(built, name):
    problem = built[name]
    cvx, _ = problem.to_cvxpy()
    back = from_cvxpy(cvx)
    assert back.kind == problem.kind
    assert close(reference(back).objective, reference(problem).objective)


def lp_ranker_cvxpy(pairs, K, C):
    """The LP Ranker (Ataman 2007, eq. 3.3) written directly in cvxpy: dense pair rows."""
    i, j, w = pairs.to_arrays()
    alpha = cp.Variable(K.shape[1], nonneg=True, name="alpha")
    z = cp.Variable(len(w), name="z")
    f = K @ cp.multiply(pairs.signs, alpha)
    model = cp.Problem(cp.Minimize(cp.sum(alpha) + C * (w @ z) + 0.25), [f[i] - f[j] + z >= 1, z >= 0])
    return model, alpha


@pytest.mark.parametrize("solver", ["highs", "osqp", "clarabel"])
def test_lp_ranker_written_in_cvxpy_matches_the_formulation(solver):
    # small enough for OSQP (ADMM) to identify the active set and polish to the exact LP optimum
    rng = np.random.default_rng(2)
    X = rng.normal(size=(12, 2))
    y = (X[:, 0] + 0.4 * rng.normal(size=12) > 0).astype(int)
    pairs, K = PairSet.bipartite(y), kernel_matrix(X, gamma=0.3)
    model, alpha = lp_ranker_cvxpy(pairs, K, C=1.0)
    problem = Problem.from_cvxpy(model, outputs={"coef": cp.multiply(pairs.signs, alpha)}, name="mine")
    assert set(problem.blocks) == {"alpha", "z"} and problem.is_lp
    expected = solve(get_formulation("lp_ranker").build(pairs, K, C=1.0), "highs").objective + 0.25
    options = {"osqp": dict(tol=1e-9),
               "clarabel": dict(solver_options={"tol_gap_abs": 1e-12, "tol_gap_rel": 1e-12, "tol_feas": 1e-12})}
    result = solve(problem, solver, **options.get(solver, {}))
    assert result.ok, result
    assert close(result.objective, expected), (result.objective, expected)
    # the output "coef" is Y alpha, evaluated on the solver's point
    coef = problem.output(result.x, "coef")
    np.testing.assert_allclose(coef, pairs.signs * problem.block(result.x, "alpha"), atol=1e-12)


def test_from_cvxpy_outputs_and_blocks_against_cvxpy_values():
    A = cp.Variable((2, 3), name="A")  # a matrix variable: its block is vec(A), column-major
    t = cp.Variable(name="t")
    model = cp.Problem(cp.Minimize(cp.sum_squares(A - np.arange(6).reshape(2, 3)) + t),
                       [t >= cp.sum(A[0]) - 1, A >= 0.5])
    expr = 2 * A[:, 1] - t + 3.0
    problem = Problem.from_cvxpy(model, blocks={"M": A}, outputs={"e": expr})
    model.solve(solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    result = solve(problem, "clarabel", solver_options={"tol_gap_abs": 1e-11, "tol_gap_rel": 1e-11,
                                                        "tol_feas": 1e-11})
    assert close(result.objective, model.value, 1e-6)
    np.testing.assert_allclose(problem.block(result.x, "M"), A.value.ravel(order="F"), atol=1e-5)
    np.testing.assert_allclose(problem.output(result.x, "e"), expr.value, atol=1e-5)
    assert problem.metadata["sense"] == "minimize"


def test_from_cvxpy_maximize_and_refusals():
    u = cp.Variable(2, name="u")
    problem = Problem.from_cvxpy(cp.Problem(cp.Maximize(cp.sum(u) - 3.0), [u <= 2]))
    assert problem.metadata["sense"] == "maximize"
    assert close(solve(problem).objective, -(4.0 - 3.0))
    with pytest.raises(ValueError, match="not DCP"):
        Problem.from_cvxpy(cp.Problem(cp.Minimize(-cp.sum_squares(u)), [u <= 1]))
    with pytest.raises(ValueError, match=r"cones|LP or a convex QP"):
        Problem.from_cvxpy(cp.Problem(cp.Minimize(cp.norm(u, 2)), [u >= 1]))
    with pytest.raises(ValueError, match="integer"):
        Problem.from_cvxpy(cp.Problem(cp.Minimize(cp.sum(cp.Variable(2, integer=True)))))
    with pytest.raises(ValueError, match="affine"):
        Problem.from_cvxpy(cp.Problem(cp.Minimize(cp.sum(u)), [u >= 0]), outputs={"bad": cp.square(u)})
    with pytest.raises(TypeError, match=r"cvxpy.Problem"):
        Problem.from_cvxpy("min x")


def test_cvxpy_formulation_registers_and_builds():
    @cvxpy_formulation("_lp_ranker_cvxpy_test", kind="lp")
    def ranker(pairs, kernel, C=1.0):
        model, alpha = lp_ranker_cvxpy(pairs, kernel, C)
        return model, {"coef": cp.multiply(pairs.signs, alpha)}

    try:
        form = get_formulation("_lp_ranker_cvxpy_test")
        pairs, K = CASES_DATA()
        problem = form.build(pairs, K, C=1.5)
        assert problem.name == "_lp_ranker_cvxpy_test" and problem.metadata["n_pairs"] == pairs.n_pairs
        expected = solve(get_formulation("lp_ranker").build(pairs, K, C=1.5)).objective + 0.25
        assert close(solve(problem).objective, expected)
        with pytest.raises(TypeError, match="written in cvxpy"):
            form(None)
    finally:
        _REGISTRY.pop("_lp_ranker_cvxpy_test", None)


def CASES_DATA():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(12, 2))
    y = np.r_[np.ones(5, int), np.zeros(7, int)]
    return PairSet.bipartite(y), kernel_matrix(X + y[:, None], gamma=0.5)


# ----------------------------------------------------------------------------- files
@pytest.mark.parametrize("suffix", [".mps", ".lp"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_write_read_roundtrip(built, name, suffix, tmp_path):
    problem = built[name]
    ours = reference(problem)
    path = problem.write(tmp_path / f"{name}{suffix}")
    # an independent reader and solver: a fresh highspy instance on the file
    h = fresh_highs()
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    h.run()
    assert h.modelStatusToString(h.getModelStatus()) == "Optimal"
    assert close(h.getInfo().objective_function_value, ours.objective, 1e-6 if problem.P is not None else RTOL)
    # and aucopt's reader
    back = Problem.read(path)
    assert back.n_vars == problem.n_vars and back.n_rows == problem.n_rows
    # same blocks (an LP file may list the blocks in another order), same data column by column
    assert {k: s.stop - s.start for k, s in back.blocks.items()} == {k: s.stop - s.start
                                                                      for k, s in problem.blocks.items()}
    perm = np.array([column_names(problem).index(col) for col in back.metadata["column_names"]])
    np.testing.assert_allclose(back.c, problem.c[perm], rtol=1e-12)
    for block, sl in back.blocks.items():
        np.testing.assert_array_equal(perm[sl], np.arange(problem.n_vars)[problem.blocks[block]])
    assert close(reference(back).objective, ours.objective)
    if suffix == ".mps":  # MPS keeps the exact data
        assert abs(back.A - problem.A).max() == 0 and back.offset == problem.offset
        np.testing.assert_array_equal(back.c, problem.c)
        assert (back.P is None) == (problem.P is None)
        if problem.P is not None:
            assert abs(back.P - problem.P).max() < 1e-15


def test_written_names_and_free_columns(tmp_path):
    lp = Problem(c=np.array([1.0, 1.0, 0.0]), A=sp.csc_matrix([[1.0, 1.0, 1.0], [1.0, -1.0, 0.0]]),
                 row_lower=np.array([1.0, -1.0]), row_upper=np.array([np.inf, 1.0]),
                 col_lower=np.zeros(3), col_upper=np.array([np.inf, np.inf, 5.0]),
                 blocks={"my block": slice(0, 2)}, offset=-2.0)
    assert column_names(lp) == ["my_block(0)", "my_block(1)", "_x(2)"]
    with open(lp.write(tmp_path / "m.lp")) as fh:
        text = fh.read()
    assert "my_block(0)" in text and "_x(2)" in text and "r(1)" in text
    back = read_problem(tmp_path / "m.lp")
    assert back.blocks == {"my_block": slice(0, 2)}
    assert back.metadata["column_names"] == column_names(lp)
    assert close(solve(back).objective, solve(lp).objective)  # ranged row, offset, upper bound kept
    with pytest.raises(ValueError, match=r"\.mps"):
        lp.write(tmp_path / "m.txt")
    with pytest.raises(ValueError, match="not found"):
        Problem.read(tmp_path / "missing.mps")


# ----------------------------------------------------------------------------- solutions
@pytest.mark.parametrize("name", sorted(CASES))
def test_highs_solution_file_read_back(built, name, tmp_path):
    problem = built[name]
    ours = reference(problem)
    path = problem.write(tmp_path / "model.mps")
    h = fresh_highs()
    h.readModel(str(path))
    h.run()
    # raw style: 13 significant digits; pretty style: a table of 6 significant digits
    for style, digits in ((0, 1e-10), (1, 1e-5)):
        sol = tmp_path / f"model{style}.sol"
        h.writeSolution(str(sol), style)
        x = problem.read_solution(sol)
        np.testing.assert_allclose(x, np.array(h.getSolution().col_value), rtol=digits, atol=digits)
        assert close(problem.objective(x), ours.objective, max(digits * 10, 1e-7 if problem.is_lp else 1e-6))
        assert problem.violation(x) < 100 * digits * (1 + np.abs(x).max())
        if problem.is_lp and "coef" in problem.outputs:  # the LP Ranker optima here are unique
            np.testing.assert_allclose(problem.output(x, "coef"), problem.output(ours.x, "coef"),
                                       atol=1e-6 + 10 * digits)


def test_plain_sol_file_by_hand(tmp_path):
    problem = CASES["lp_ranker"]()
    result = solve(problem, "highs")
    names = column_names(problem)
    lines = ["# Solution for model lp_ranker", f"# Objective value = {result.objective!r}"]
    # zeros omitted, as some solvers do
    lines += [f"{n} {float(v)!r}" for n, v in zip(names, result.x, strict=False) if v != 0.0]
    (tmp_path / "hand.sol").write_text("\n".join(lines) + "\n")
    x = problem.read_solution(tmp_path / "hand.sol")
    np.testing.assert_array_equal(x, result.x)
    np.testing.assert_array_equal(problem.output(x, "coef"), problem.output(result.x, "coef"))
    (tmp_path / "bad.sol").write_text("alpha(0) 1.0\nnot_a_column 2.0\n")
    with pytest.raises(ValueError, match="not_a_column"):
        problem.read_solution(tmp_path / "bad.sol")
    (tmp_path / "garbled.sol").write_text("alpha(0) one\n")
    with pytest.raises(ValueError, match="Line 1"):
        problem.read_solution(tmp_path / "garbled.sol")
