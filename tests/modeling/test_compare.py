"""compare_solvers: a row per backend, agreement of exact solvers, failures as rows.

Oracles: each backend solved directly with aucopt.solve; the objective recomputed from the point.
"""

from __future__ import annotations

import numpy as np
import pytest

from aucopt import PairSet, get_formulation, kernel_matrix, solve
from aucopt.modeling._compare import COLUMNS, compare_solvers, iter_compare_solvers


@pytest.fixture(scope="module")
def ranker():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(12, 2))
    y = (X[:, 0] + 0.4 * rng.normal(size=12) > 0).astype(int)
    return PairSet.bipartite(y), kernel_matrix(X, gamma=0.3)


def test_highs_and_clarabel_agree_one_row_each(ranker):
    pairs, K = ranker
    seen = []
    table = compare_solvers("lp_ranker", ("highs", "clarabel", "osqp"), pairs=pairs, kernel=K, params={"C": 1.0},
                            callback=seen.append)
    assert list(table.columns) == list(COLUMNS)
    assert table["solver"].tolist() == ["highs", "clarabel", "osqp"] == [r["solver"] for r in seen]
    problem = get_formulation("lp_ranker").build(pairs, K, C=1.0)
    direct = solve(problem, "highs")
    by = table.set_index("solver")
    assert abs(by.loc["highs", "objective"] - direct.objective) < 1e-9
    assert (by["status"] == "optimal").all()
    assert table.attrs["reference_solver"] in ("highs", "clarabel")
    assert table.attrs["max_objective_gap"] < 1e-6
    assert by.loc["clarabel", "objective_gap"] < 1e-7 and by.loc["clarabel", "coef_gap"] < 1e-4
    assert table.attrs["max_coef_gap"] == pytest.approx(np.nanmax(table["coef_gap"]))
    assert (table["seconds"] > 0).all() and (table["iterations"] > 0).all()


def test_first_order_solvers_run_after_the_exact_ones(ranker):
    pairs, K = ranker
    rows = list(iter_compare_solvers("lp_ranker", ("scs", "highs"), pairs=pairs, kernel=K))
    assert [r["solver"] for r in rows] == ["highs", "scs"]
    # the SCS row is compared with HiGHS's point, computed independently here
    problem = get_formulation("lp_ranker").build(pairs, K)
    ref = solve(problem, "highs")
    scs = rows[1]
    assert scs["objective_gap"] == pytest.approx(abs(scs["objective"] - ref.objective) / max(1, abs(ref.objective)),
                                                 rel=1e-6, abs=1e-9)
    expected = np.max(np.abs(problem.output(scs["_x"], "coef") - problem.output(ref.x, "coef")))
    assert scs["coef_gap"] == pytest.approx(expected, rel=1e-6, abs=1e-9)


def test_missing_or_failing_solver_is_a_row(ranker):
    pairs, K = ranker
    problem = get_formulation("aucsvm_l1_dual").build(pairs, K)  # a QP
    table = compare_solvers(problem, ("gurobi_not_installed", "clarabel", "ecos"), time_limit=30.0)
    by = table.set_index("solver")
    assert by.loc["gurobi_not_installed", "status"] == "unavailable"
    assert "Unknown solver" in by.loc["gurobi_not_installed", "message"]
    assert by.loc["ecos", "status"] == "unavailable" and "time limit" in by.loc["ecos", "message"]
    assert by.loc["clarabel", "status"] == "optimal" and table.attrs["reference_solver"] == "clarabel"
    assert np.isnan(by.loc["ecos", "objective"])


def test_no_exact_solver_ok_means_no_reference_and_bad_arguments(ranker):
    pairs, K = ranker
    table = compare_solvers("lp_ranker", ("osqp",), pairs=pairs, kernel=K)
    assert table.attrs["reference_solver"] is None and np.isnan(table["objective_gap"]).all()
    with pytest.raises(ValueError, match="needs pairs="):
        compare_solvers("lp_ranker", ("highs",))
    with pytest.raises(ValueError, match="solvers is empty"):
        compare_solvers("lp_ranker", (), pairs=pairs, kernel=K)
    with pytest.raises(ValueError, match="already built"):
        compare_solvers(get_formulation("lp_ranker").build(pairs, K), ("highs",), pairs=pairs)
