"""compare_solvers: a row per backend, agreement of exact solvers, failures as rows, a time limit
per backend that is reported rather than waited for.

Oracles: each backend solved directly with aucopt.solve; the objective recomputed from the point.
"""

from __future__ import annotations

import numpy as np
import pytest

import aucopt.solvers
from aucopt import PairSet, Status, get_formulation, kernel_matrix, solve
from aucopt.modeling._compare import COLUMNS, DEFAULT_TIME_LIMIT, compare_solvers, iter_compare_solvers
from aucopt.solvers import REGISTRY, SolverBackend


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


class _Broken(SolverBackend):
    """A backend that raises: ValueError (options it rejects) or another exception (a crash)."""

    name = "broken"
    required_modules = ("numpy",)

    def __init__(self, exc):
        self.exc = exc

    def solve(self, problem, **kwargs):
        raise self.exc


def test_missing_or_failing_solver_is_a_row(ranker, monkeypatch):
    pairs, K = ranker
    problem = get_formulation("aucsvm_l1_dual").build(pairs, K)  # a QP
    monkeypatch.setitem(REGISTRY, "broken", _Broken(RuntimeError("segfault avoided")))
    monkeypatch.setitem(REGISTRY, "picky", _Broken(ValueError("no such option")))
    table = compare_solvers(problem, ("gurobi_not_installed", "clarabel", "ecos", "broken", "picky"),
                            time_limit=30.0)
    by = table.set_index("solver")
    assert by.loc["gurobi_not_installed", "status"] == "unavailable"
    assert "Unknown solver" in by.loc["gurobi_not_installed", "message"]
    assert by.loc["broken", "status"] == "error" and by.loc["broken", "message"] == "RuntimeError: segfault avoided"
    assert by.loc["picky", "status"] == "unavailable" and by.loc["picky", "message"] == "no such option"
    for name in ("gurobi_not_installed", "broken", "picky"):
        assert np.isnan(by.loc[name, "objective"])
    assert by.loc["clarabel", "status"] == "optimal" and table.attrs["reference_solver"] in ("clarabel", "ecos")
    # ECOS has no time limit: it runs without one, and its row says so
    assert by.loc["ecos", "status"] == "optimal"
    assert by.loc["ecos", "message"].startswith("cvxpy:ecos has no time limit: ran without the 30 s limit")
    assert by.loc["ecos", "objective_gap"] < 1e-6


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


# ----------------------------------------------------------------------------- time limits
@pytest.fixture(scope="module")
def medium():
    """The LP Ranker LP and the AUC-SVM dual QP on 150 points (5,600 pairs): no backend finishes
    either in a millisecond (tests/solvers/test_solvers.py::medium_problems)."""
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=150, n_features=5, random_state=0)
    pairs = PairSet.bipartite(y)
    return {"LP": get_formulation("lp_ranker").build(pairs, kernel_matrix(X, gamma=0.5), C=1.0),
            "QP": get_formulation("aucsvm_l1_dual").build(pairs, factor=X, C=1.0)}


@pytest.mark.parametrize("kind", ["LP", "QP"])
def test_a_tiny_time_limit_stops_osqp_and_highs_and_the_rows_say_so(medium, kind):
    problem = medium[kind]
    seen = []
    table = compare_solvers(problem, ("highs", "osqp"), time_limit=1e-3, callback=seen.append)
    by = table.set_index("solver")
    assert (by["status"] == "time_limit").all(), table[["solver", "status", "message"]]
    assert [row["status"] for row in seen] == ["time_limit", "time_limit"]
    assert table.attrs["time_limited"] == ["highs", "osqp"] and table.attrs["time_limit"] == 1e-3
    assert table.attrs["reference_solver"] is None  # a stopped solve is never the reference
    for name in ("highs", "osqp"):
        assert by.loc[name, "message"].startswith("stopped at the 0.001 s time limit")
        # the last point, evaluated; on a loaded machine the limit may come before any point (then
        # the row says so and shows no objective, and the backend's result has no x)
        has_point = bool(np.isfinite(by.loc[name, "objective"]))
        assert ("(an approximate point)" in by.loc[name, "message"]) == has_point
        assert ("before a first point: no objective" in by.loc[name, "message"]) == (not has_point)
    # the limit, not the problem, stopped them: each backend alone, without the limit, finishes
    assert solve(problem, "highs").status == Status.OPTIMAL


def test_a_limit_before_any_point_says_there_is_none(medium):
    """A limit HiGHS reaches before its first point (1 ns): no objective, and the row says so
    instead of claiming an approximate point."""
    table = compare_solvers(medium["LP"], ("highs",), time_limit=1e-9)
    row = table.iloc[0]
    assert row["status"] == "time_limit" and np.isnan(row["objective"])
    assert row["message"].startswith("stopped at the 1e-09 s time limit (before a first point: no objective)")
    assert np.isnan(row["objective_gap"]) and table.attrs["reference_solver"] is None


def test_the_default_time_limit_reaches_every_backend_and_keeps_the_results(ranker, monkeypatch):
    pairs, K = ranker
    problem = get_formulation("aucsvm_l1_dual").build(pairs, K, C=0.5)
    solvers = ("highs", "osqp", "clarabel", "ecos")
    unlimited = compare_solvers(problem, solvers, time_limit=None)
    calls = []
    real = aucopt.solvers.solve

    def spy(problem, solver, **kwargs):
        calls.append((solver, kwargs["time_limit"]))
        return real(problem, solver, **kwargs)

    monkeypatch.setattr(aucopt.solvers, "solve", spy)
    default = compare_solvers(problem, solvers)
    assert DEFAULT_TIME_LIMIT == 60.0 and default.attrs["time_limit"] == 60.0 and default.attrs["time_limited"] == []
    # the exact solvers first; ECOS, without a time limit, runs without one
    assert calls == [("highs", 60.0), ("clarabel", 60.0), ("ecos", None), ("osqp", 60.0)]
    assert default["solver"].tolist() == unlimited["solver"].tolist()
    assert (default["status"] == "optimal").all() and (unlimited["status"] == "optimal").all()
    np.testing.assert_allclose(default["objective"], unlimited["objective"], rtol=1e-9)
    assert default.attrs["reference_solver"] == unlimited.attrs["reference_solver"]


@pytest.mark.parametrize("bad", [0, -1.0, float("inf"), "soon", True])
def test_time_limit_must_be_positive_seconds_or_none(ranker, bad):
    pairs, K = ranker
    with pytest.raises(ValueError, match="time_limit must be a positive number of seconds, or None"):
        compare_solvers("lp_ranker", ("highs",), pairs=pairs, kernel=K, time_limit=bad)
    with pytest.raises(ValueError, match="time_limit must be a positive number"):
        next(iter_compare_solvers("lp_ranker", ("highs",), pairs=pairs, kernel=K, time_limit=bad))
