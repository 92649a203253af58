"""Pair-row generation for any formulation: the same optimum as the whole problem, certified.

Oracle: the whole problem on HiGHS (and Clarabel through cvxpy). Each shipped formulation with
pair rows is solved with a working set of them; the result must equal the whole problem's
optimum, be feasible for every row, and a run stopped early must report a lower bound.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from aucopt import PairSet, Problem, formulation, get_formulation, kernel_matrix, solve
from aucopt.modeling import pair_row_generation
from aucopt.solvers import Status

sys.path.insert(0, os.path.dirname(__file__))
from formulation_cases import CASES

WITH_PAIR_ROWS = ["lp_ranker", "lp_ranker_free_sign", "partial_auc", "fair_ranker", "ordinal_margin_lp",
                  "ranksvm_squared_hinge"]


def generate(problem, solver="highs", **options):
    meta = problem.metadata
    return pair_row_generation(problem, meta["pair_rows"], solver, pair_index=meta["pair_index"], **options)


@pytest.mark.parametrize("name", WITH_PAIR_ROWS)
def test_every_pair_formulation_reaches_the_whole_problems_optimum(name):
    problem = CASES[name]()
    meta = problem.metadata
    assert len(meta["pair_rows"]) == meta["n_pairs"] or name == "fair_ranker"
    i, j = meta["pair_index"]
    assert len(i) == len(meta["pair_rows"]) and np.all(i != j)
    run = generate(problem, max_rows=20, pairs_per_point=2)  # small rounds: several of them
    whole = solve(problem)
    assert run.status == Status.OPTIMAL and whole.status == Status.OPTIMAL
    assert run.objective == pytest.approx(whole.objective, rel=1e-6, abs=1e-7)
    assert problem.violation(run.x) <= 1e-6
    assert run.info["violated"] == 0 and run.info["rounds"] >= 2


def test_pair_rows_are_only_the_pair_rows():
    """The LP Ranker's score rows (s − K Y α = 0) are kept; its P pair rows are the last P rows."""
    problem = CASES["lp_ranker"]()
    P, rows = problem.metadata["n_pairs"], problem.metadata["pair_rows"]
    np.testing.assert_array_equal(rows, np.arange(problem.n_rows - P, problem.n_rows))
    assert "pair_rows" not in CASES["top_push"]().metadata  # no pair list, no pair rows


def test_other_backends_and_the_dual():
    problem = CASES["partial_auc"]()
    whole = solve(problem)
    run = generate(problem, "cvxpy:CLARABEL", max_rows=30)
    assert run.status == Status.OPTIMAL
    assert run.objective == pytest.approx(whole.objective, rel=1e-5)
    incremental = generate(problem, max_rows=30)
    outside = np.setdiff1d(problem.metadata["pair_rows"], np.flatnonzero(incremental.dual))
    assert len(outside) > 0 and np.all(incremental.dual[outside] == 0)
    # the duals are optimal for the whole problem: stationarity c − Aᵀy − reduced costs = 0 on free columns
    free = np.isinf(problem.col_lower) & np.isinf(problem.col_upper)
    residual = problem.c - problem.A.T @ incremental.dual
    assert np.abs(residual[free]).max() <= 1e-7


def test_stopped_early_reports_a_lower_bound_with_a_warning():
    problem = CASES["lp_ranker"]()
    whole = solve(problem)
    with pytest.warns(ConvergenceWarning, match="lower bound of the optimum"):
        run = generate(problem, max_iter=1, max_rows=5, pairs_per_point=1)
    assert run.status == Status.ITERATION_LIMIT and run.info["violated"] > 0
    assert run.objective <= whole.objective + 1e-9


def test_an_unbounded_restriction_takes_in_more_rows():
    """min Σx over x free with the pair rows x_k >= -1: the origin violates none, so the first
    working set is empty and the restricted problem unbounded."""
    A = sp.identity(3, format="csc")
    problem = Problem(c=np.ones(3), A=A, row_lower=-np.ones(3), row_upper=np.full(3, np.inf),
                      col_lower=np.full(3, -np.inf), col_upper=np.full(3, np.inf))
    run = pair_row_generation(problem, np.arange(3))
    assert run.status == Status.OPTIMAL and run.objective == pytest.approx(-3.0)


def test_a_user_formulation_with_ordinal_margins_runs_without_change():
    @formulation("test_rowgen_margin_lp", kind="lp")
    def margin_lp(m, C=1.0):
        a = m.variable("alpha", m.n_basis, lower=0)
        z = m.variable("z", m.n_pairs, lower=0)
        i, j = m.pair_index
        margin = 0.5 + 0.1 * ((i + j) % 3)  # a margin per pair
        m.minimize(a.sum() + C * (m.pair_weights @ z))
        m.subject_to(m.pair_difference(m.scores(a)) + z >= margin)

    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 40)
    X = rng.normal(size=(40, 2)) + 0.7 * y[:, None]
    problem = get_formulation("test_rowgen_margin_lp").build(PairSet.multipartite(y), kernel_matrix(X, gamma=0.5),
                                                              C=2.0)
    run = generate(problem, max_rows=50)
    assert run.status == Status.OPTIMAL
    assert run.objective == pytest.approx(solve(problem).objective, rel=1e-7)
    assert run.info["working_rows"] < problem.metadata["n_pairs"]


def test_bad_pair_rows_raise():
    problem = CASES["lp_ranker"]()
    with pytest.raises(ValueError, match="pair_rows must index"):
        pair_row_generation(problem, [problem.n_rows])
    with pytest.raises(ValueError, match="pair_index must give two arrays"):
        pair_row_generation(problem, problem.metadata["pair_rows"], pair_index=([0], [1]))


def test_the_estimators_generate_a_formulations_pair_rows():
    from aucopt import LPRanker

    rng = np.random.default_rng(0)
    y = rng.integers(0, 4, 90)
    X = rng.normal(size=(90, 3)) + 1.2 * y[:, None]
    params = dict(formulation="ordinal_margin_lp", pair_options={"target": "multipartite"}, gamma=0.3)
    full = LPRanker(method="full", **params).fit(X, y)
    gen = LPRanker(method="generation", method_options={"pairs_per_point": 2}, **params).fit(X, y)
    assert gen.method_ == "generation" and gen.optimality_gap_ == 0.0
    assert gen.objective_ == pytest.approx(full.objective_, rel=1e-7)
    assert gen.method_result_.info["working_rows"] < gen.n_pairs_
    np.testing.assert_allclose(gen.decision_function(X), full.decision_function(X), atol=1e-6)
    # a formulation reading m.groups, through fit; on 60 of the points (884 pairs, 643 of them generated:
    # the full fair LP over all 90 took 0.4 s, its generation 0.5 s)
    groups = np.arange(60) % 2
    fair = dict(formulation="fair_ranker", gamma=0.3)
    Xf, yb = X[:60], (y[:60] >= 2).astype(int)
    a = LPRanker(method="full", **fair).fit(Xf, yb, groups=groups)
    b = LPRanker(method="generation", **fair).fit(Xf, yb, groups=groups)
    assert b.objective_ == pytest.approx(a.objective_, rel=1e-7)
    with pytest.raises(ValueError, match="pairs_per_point"):
        LPRanker(method="generation", method_options={"pairs_per_point": 0}, **params).fit(X, y)
    with pytest.raises(ValueError, match="solves the LP Ranker itself"):
        LPRanker(method="smoothing", **params).fit(X, y)
    auto = LPRanker(**params)
    assert auto.select_method(PairSet.multipartite(np.arange(2000) % 4))[0] == "generation"
    assert auto.select_method(PairSet.multipartite(np.arange(40) % 4))[0] == "full"
