"""Row-and-column generation for the LP Ranker, and the pair scan it rests on.

Oracles, independent of the code under test:

* the full LP (Ataman 2007, eq. 3.3) built by ``get_formulation("lp_ranker")`` and solved by
  HiGHS, and the same LP on Clarabel (cvxpy), a second solver;
* brute-force pair lists from the definitions (positives × negatives; Harrell's comparable
  pairs), margins and per-point selections computed pair by pair;
* a from-scratch HiGHS solve of the LP that the live model has grown to.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.preprocessing import minmax_scale

from aucopt import LPRanker, PairSet, Problem, SurvivalLPRanker, get_formulation, survival_target
from aucopt.exceptions import ProblemTooLargeError
from aucopt.lp import GenerationResult, row_column_generation
from aucopt.pairs.core import violated_pairs
from aucopt.solvers import Status, solve
from aucopt.solvers.highs import IncrementalLP

RTOL = 1e-7


# ============================================================================ oracles
def full_lp(K, pairs, C, solver="highs", alpha=False):
    problem = get_formulation("lp_ranker").build(pairs, K, C=C)
    result = solve(problem, solver).raise_for_status()
    return (result.objective, problem.block(result.x, "alpha")) if alpha else result.objective


def _moons(n, seed=0):
    from sklearn.datasets import make_moons

    X2, y = make_moons(n, noise=0.3, random_state=seed)
    X = np.hstack([X2, np.random.default_rng(seed).normal(scale=0.3, size=(n, 4))])
    return minmax_scale(X), y


def _survival(n=70, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    event = rng.random(n) < 0.7
    time = np.round(rng.exponential(np.exp(-X[:, 0])), 1)  # rounded: tied times
    return X, event, time


def _pair_sets():
    rng = np.random.default_rng(1)
    y = rng.random(40) < 0.4
    _, event, time = _survival(40)
    explicit_i = rng.integers(0, 40, 300)
    explicit_j = rng.integers(0, 40, 300)
    keep = explicit_i != explicit_j
    w = rng.random(keep.sum())
    w[:20] = 0.0
    pw = rng.random(40)
    pw[:3] = 0.0
    return {
        "bipartite": PairSet.bipartite(y),
        "survival": PairSet.survival(event, time),
        "weighted": PairSet.bipartite(y, point_weights=pw),
        "explicit": PairSet.from_arrays(explicit_i[keep], explicit_j[keep], w, n_points=40),
    }


# ============================================================================ the pair scan
@pytest.mark.parametrize("kind", ["bipartite", "survival", "weighted", "explicit"])
@pytest.mark.parametrize("per_point", [1, 3])
def test_violated_pairs_match_brute_force(kind, per_point):
    pairs = _pair_sets()[kind]
    rng = np.random.default_rng(2)
    f = rng.normal(size=pairs.n_points)  # continuous: no ties between margins
    skip = rng.random(pairs.n_pairs) < 0.3
    found = violated_pairs(pairs, f, 0.5, per_point=per_point, skip=skip)
    i, j, w = pairs.to_arrays()
    z = f[i] - f[j]
    hit = (z < 0.5) & (w > 0) & ~skip
    assert found.total == int(hit.sum())
    expected = set()
    for point in range(pairs.n_points):
        for side in (i, j):
            mine = np.flatnonzero(hit & (side == point))
            expected |= set(mine[np.argsort(z[mine])][:per_point].tolist())
    assert set(found.positions.tolist()) == expected
    np.testing.assert_array_equal(found.margins, z[found.positions])
    assert np.all(np.diff(found.margins) >= 0)


def test_violated_pairs_rejects_bad_input():
    pairs = PairSet.bipartite([1, 0, 1])
    with pytest.raises(ValueError, match="f has 2 entries but the pair set has 3 points"):
        violated_pairs(pairs, np.zeros(2))
    with pytest.raises(ValueError, match=r"skip must have shape \(2,\)"):
        violated_pairs(pairs, np.zeros(3), skip=np.zeros(5, bool))
    with pytest.raises(ValueError, match="per_point=0 must be a positive integer"):
        violated_pairs(pairs, np.zeros(3), per_point=0)


# ============================================================================ the live LP
def test_incremental_lp_equals_a_from_scratch_solve():
    """Columns and rows added over several solves give the LP that one HiGHS solve of the whole gives."""
    rng = np.random.default_rng(0)
    lp = IncrementalLP()
    c = rng.random(6) + 0.1
    lp.add_columns(c[:3], np.zeros(3), np.full(3, np.inf))
    A1 = sp.random(4, 3, density=0.8, random_state=1) + sp.eye(4, 3)
    lp.add_rows(np.ones(4), np.full(4, np.inf), A1)
    assert lp.solve().status == Status.OPTIMAL
    A2 = sp.random(4, 3, density=0.8, random_state=2)
    lp.add_columns(c[3:], np.zeros(3), np.full(3, np.inf), A2)
    A3 = sp.random(2, 6, density=0.8, random_state=3) + sp.eye(2, 6)
    lp.add_rows(np.full(2, 2.0), np.full(2, np.inf), A3)
    warm = lp.solve()
    A = sp.vstack([sp.hstack([A1, A2]), A3]).tocsc()
    whole = solve(Problem(c=c, A=A, row_lower=np.array([1.0] * 4 + [2.0] * 2), row_upper=np.full(6, np.inf),
                          col_lower=np.zeros(6), col_upper=np.full(6, np.inf)), "highs")
    assert warm.status == Status.OPTIMAL and warm.objective == pytest.approx(whole.objective, rel=1e-9)
    # reduced costs in HiGHS's convention: c - A^T y
    np.testing.assert_allclose(warm.info["col_dual"], c - A.T @ warm.dual, atol=1e-9)
    with pytest.raises(ValueError, match="A must have 6 columns"):
        lp.add_rows([0.0], [1.0], sp.csr_matrix((1, 5)))


def test_incremental_lp_after_deletions_equals_a_from_scratch_solve():
    """Rows and columns deleted between solves (the rest moving up, in order) leave the LP that a
    fresh HiGHS solve of the remaining rows and columns gives, from the basis of the last solve."""
    rng = np.random.default_rng(4)
    n, k = 8, 10
    c = rng.random(n) + 0.1
    A = (sp.random(k, n, density=0.6, random_state=5) + sp.eye(k, n)).tocsr()
    lp = IncrementalLP()
    lp.add_columns(c, np.zeros(n), np.full(n, np.inf))
    lp.add_rows(np.ones(k), np.full(k, np.inf), A)
    first = lp.solve()
    assert first.status == Status.OPTIMAL
    rows, cols = np.array([7, 1, 4, 1]), np.array([6, 2])  # unsorted, with a repeat
    lp.delete_rows(rows)
    lp.delete_columns(cols)
    lp.delete_rows([])  # nothing to delete: nothing changes
    assert (lp.n_rows, lp.n_cols) == (k - 3, n - 2)
    keep_rows, keep_cols = np.setdiff1d(np.arange(k), rows), np.setdiff1d(np.arange(n), cols)
    warm = lp.solve()
    rest = A[keep_rows][:, keep_cols].tocsc()
    whole = solve(Problem(c=c[keep_cols], A=rest, row_lower=np.ones(len(keep_rows)),
                          row_upper=np.full(len(keep_rows), np.inf), col_lower=np.zeros(len(keep_cols)),
                          col_upper=np.full(len(keep_cols), np.inf)), "highs")
    assert warm.status == Status.OPTIMAL and warm.objective == pytest.approx(whole.objective, rel=1e-9)
    np.testing.assert_allclose(rest @ warm.x, warm.info["row_value"], atol=1e-12)


# ============================================================================ the certified optimum
def _cases():
    X, y = load_breast_cancer(return_X_y=True)
    rows = np.random.default_rng(0).choice(len(y), 120, replace=False)
    Xc, yc = minmax_scale(X[rows]), (y[rows] == 0).astype(int)
    Xm, ym = _moons(90)
    Xs, event, time = _survival(70)
    pw = np.random.default_rng(3).random(90) + 0.2
    pw[:5] = 0.0
    return {
        "wdbc": (rbf_kernel(Xc, gamma=1.0), PairSet.bipartite(yc), 10.0),
        "moons": (rbf_kernel(Xm, gamma=1.0), PairSet.bipartite(ym), 10.0),
        "moons-weighted": (rbf_kernel(Xm, gamma=1.0), PairSet.bipartite(ym, point_weights=pw), 3.0),
        "survival": (rbf_kernel(Xs, gamma=0.25), PairSet.survival(event, time), 1.0),
        "survival-lprex": (rbf_kernel(Xs, gamma=0.25), PairSet.survival(event, time, variant="lprex"), 1.0),
    }


CASES = _cases()


@pytest.mark.parametrize("name", list(CASES))
def test_generation_reaches_the_full_lp_optimum_with_its_certificate(name):
    K, pairs, C = CASES[name]
    run = row_column_generation(K, pairs, C, columns_per_round=20, max_pairs=200)
    assert run.converged and run.solve_result.status == Status.OPTIMAL
    objective, alpha = full_lp(K, pairs, C, alpha=True)
    assert run.objective == pytest.approx(objective, rel=RTOL)
    # the same ranking vectors (the optimum is unique on these problems) and coefficients
    support = lambda a: set(np.flatnonzero(a > 1e-8 * a.max()).tolist())  # noqa: E731
    assert support(run.alpha) == support(alpha)
    np.testing.assert_allclose(run.alpha, alpha, atol=1e-7 * alpha.max())
    # the certificate, checked pair by pair: every pair outside the LP has margin >= 1
    i, j, w = pairs.to_arrays()
    f = K @ (pairs.signs * run.alpha)
    outside = np.ones(pairs.n_pairs, bool)
    outside[run.rows] = False
    assert np.all((f[i] - f[j])[outside & (w > 0)] >= 1 - 1e-7)
    assert run.violated_pairs == 0 and run.min_reduced_cost >= -1e-7
    # ... and the LP never held every pair (the point of generating them)
    assert run.n_rows < pairs.n_pairs and len(run.history) == run.rounds


def test_generation_agrees_with_a_second_solver():
    K, pairs, C = CASES["moons"]
    run = row_column_generation(K, pairs, C)
    assert run.objective == pytest.approx(full_lp(K, pairs, C, "cvxpy:clarabel"), rel=1e-6)


def test_kernel_callable_equals_the_matrix():
    K, pairs, C = CASES["moons"]
    X, _ = _moons(90)
    asked = []

    def blocks(rows, cols):
        asked.append((len(rows), len(cols)))
        return rbf_kernel(X[rows], X[cols], gamma=1.0)

    a = row_column_generation(K, pairs, C)
    b = row_column_generation(blocks, pairs, C)
    assert b.objective == pytest.approx(a.objective, rel=1e-12)
    np.testing.assert_allclose(b.alpha, a.alpha, atol=1e-9)
    assert max(r * c for r, c in asked) <= 90 * 90


def test_warm_start_along_a_C_path_reaches_each_optimum_in_fewer_rounds():
    K, pairs, _ = CASES["moons"]
    previous = None
    for C in (1.0, 2.0, 4.0):
        cold = row_column_generation(K, pairs, C, start="zero")
        warm = row_column_generation(K, pairs, C, warm_start=previous) if previous is not None else cold
        assert warm.converged and warm.objective == pytest.approx(full_lp(K, pairs, C), rel=RTOL)
        if previous is not None:
            assert warm.rounds < cold.rounds
        previous = warm
    with pytest.raises(ValueError, match="warm_start comes from another problem"):
        row_column_generation(K[:50, :50], PairSet.bipartite(np.arange(50) % 2), 1.0, warm_start=previous)


def _time_limit_on_call(monkeypatch, call, with_point):
    """Make the ``call``-th restricted LP of a run stop at the time limit (with its point, or none),
    whatever the machine's load: the stop is the solver's status, not a clock."""
    from dataclasses import replace

    original, calls = IncrementalLP.solve, []

    def solve_(self, time_limit=None):
        calls.append(time_limit)
        result = original(self, time_limit=time_limit)
        if len(calls) != call:
            return result
        return replace(result, status=Status.TIME_LIMIT, x=result.x if with_point else None, dual=None,
                       message="Time limit reached")
    monkeypatch.setattr(IncrementalLP, "solve", solve_)
    return calls


def test_max_iter_stops_with_a_warning_and_an_upper_bound():
    K, pairs, C = CASES["moons"]
    optimum = full_lp(K, pairs, C)
    with pytest.warns(ConvergenceWarning, match="stopped at max_iter=2 rounds before its certificate held"):
        run = row_column_generation(K, pairs, C, max_iter=2, max_pairs=20, start="zero")
    assert run.rounds == 2 and not run.converged and run.solve_result.status == Status.ITERATION_LIMIT
    assert run.objective >= optimum * (1 - 1e-9)  # any α ≥ 0 is feasible: its F bounds the optimum


@pytest.mark.parametrize("with_point", [False, True])
def test_a_restricted_lp_stopped_by_the_time_limit_ends_the_run_with_its_best_point(monkeypatch, with_point):
    """HiGHS's time limit inside a restricted LP (without a point, or with one and no duals) is the
    run's stop: a ConvergenceWarning with the best point and its certified bound, no solver error."""
    K, pairs, C = CASES["moons"]
    optimum = full_lp(K, pairs, C)
    calls = _time_limit_on_call(monkeypatch, 2, with_point=with_point)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no SolverWarning, no SolverError: the route's own stop
        with pytest.warns(ConvergenceWarning, match=r"stopped at time_limit=60 s .* certified lower bound"):
            run = row_column_generation(K, pairs, C, solver_options={"time_limit": 60.0}, max_pairs=20,
                                        start="zero")
    assert len(calls) == 2 and all(0 < left <= 60.0 for left in calls)
    assert run.solve_result.status == Status.TIME_LIMIT and not run.converged and run.rounds == 2
    assert run.objective <= run.history[0]["objective"]  # the best of the rounds
    assert run.objective >= optimum * (1 - 1e-9) >= run.lower_bound * (1 - 1e-9) > 0
    assert run.gap == pytest.approx((run.objective - run.lower_bound) / run.objective)
    f = K @ (pairs.signs * run.alpha)  # the point is the one whose objective is reported
    i, j, w = pairs.to_arrays(None)
    assert run.alpha.min() >= 0 and run.objective == pytest.approx(
        run.alpha.sum() + C * np.sum(w * np.maximum(0.0, 1.0 - (f[i] - f[j]))), rel=1e-12)


def _highs_time_limit_on_call(monkeypatch, call):
    """Give the ``call``-th restricted LP of a run a time limit of 0 s: HiGHS itself stops it with its
    ``time_limit`` status (the LP has rows or columns to work on), whatever the machine's load."""
    original, statuses = IncrementalLP.solve, []

    def solve_(self, time_limit=None):
        result = original(self, time_limit=0.0 if len(statuses) + 1 == call else time_limit)
        statuses.append(result.status)
        return result
    monkeypatch.setattr(IncrementalLP, "solve", solve_)
    return statuses


@pytest.mark.parametrize("call", [1, 2])
def test_highs_time_limit_inside_a_restricted_lp_ends_the_run_with_a_warning_and_its_bound(monkeypatch, call):
    """HiGHS's own time_limit status inside generation (not a SolverError): a ConvergenceWarning
    with the best point, its full objective and a certified lower bound below the optimum."""
    K, pairs, C = CASES["moons"]
    optimum = full_lp(K, pairs, C)
    statuses = _highs_time_limit_on_call(monkeypatch, call)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no SolverWarning, no SolverError: the route's own stop
        with pytest.warns(ConvergenceWarning, match=r"stopped at time_limit=60 s .* certified lower bound"):
            run = row_column_generation(K, pairs, C, solver_options={"time_limit": 60.0}, max_pairs=20,
                                        start="zero")
    assert statuses[-1] == Status.TIME_LIMIT and len(statuses) == call  # HiGHS's status ended the run
    assert run.solve_result.status == Status.TIME_LIMIT and not run.converged and run.rounds == call
    assert run.solve_result.problem_name.startswith("LP Ranker restricted to generated pair rows")
    assert run.objective >= optimum * (1 - 1e-9) >= run.lower_bound * (1 - 1e-9)
    assert 0.0 < run.gap <= 1.0 and run.gap == pytest.approx(
        (run.objective - run.lower_bound) / run.objective)
    f = K @ (pairs.signs * run.alpha)
    i, j, w = pairs.to_arrays(None)
    assert run.alpha.min() >= 0 and run.objective == pytest.approx(
        run.alpha.sum() + C * np.sum(w * np.maximum(0.0, 1.0 - (f[i] - f[j]))), rel=1e-12)


def test_lp_ranker_generation_stopped_by_highs_time_limit_keeps_its_best_point(monkeypatch):
    """The estimator: HiGHS's time_limit inside a restricted LP gives a fitted model, a
    ConvergenceWarning at fit and the certified gap in ``optimality_gap_``."""
    X, y = _moons(90)
    statuses = _highs_time_limit_on_call(monkeypatch, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.warns(ConvergenceWarning, match="stopped at time_limit=60 s"):
            est = LPRanker(C=10.0, gamma=1.0, method="generation", solver_options={"time_limit": 60.0},
                           method_options={"start": "zero", "max_pairs": 20}).fit(X, y)
    assert statuses == [Status.OPTIMAL, Status.TIME_LIMIT]
    assert est.solve_result_.status == Status.TIME_LIMIT and est.n_iter_ == 2
    assert est.optimality_gap_ == est.method_result_.gap and 0.0 < est.optimality_gap_ <= 1.0
    assert est.objective_ == pytest.approx(est.method_result_.objective, rel=1e-12)


@pytest.mark.parametrize("kind", ["moons", "survival"])
def test_the_smoothing_start_hands_over_a_working_set_that_reaches_the_same_optimum(kind):
    from aucopt.lp import smoothing

    K, pairs, C = CASES[kind]
    optimum = full_lp(K, pairs, C)
    zero = row_column_generation(K, pairs, C, start="zero")
    started = row_column_generation(K, pairs, C)  # start="smoothing"
    handed = row_column_generation(K, pairs, C, warm_start=smoothing(K, pairs, C, tol=1e-2))
    for run in (zero, started, handed):
        assert run.converged and run.objective == pytest.approx(optimum, rel=RTOL)
        assert 0.0 <= run.gap <= 1e-8 and run.lower_bound <= optimum * (1 + 1e-12)
    assert started.rounds <= zero.rounds


def _rounded_case(seed, n, gamma):
    """A small bipartite problem of rounded points (ties and near-duplicates): the kind of kernel whose
    entries span many orders of magnitude."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 2)), 1)
    y = rng.random(n) < 0.5
    y[:2] = [True, False]
    return rbf_kernel(X, gamma=gamma), PairSet.bipartite(y)


@pytest.mark.parametrize("route", ["generation", "chunking"])
@pytest.mark.parametrize("tol", [1e-2, 1e-4, None])
def test_the_certified_bound_of_restricted_lps_holds_at_any_tolerance(route, tol):
    """The lower bound comes from the restricted LPs' pair duals clipped and scaled to a point feasible
    for the full LP's dual, so HiGHS's tolerance (``tol``) widens the certified gap but never lifts the
    bound above the optimum. (It used to be the restricted LP's objective, claimed with gap 0 once the
    certificate held: 3e-5 above the optimum here at tol=0.01, for both routes.)"""
    from aucopt.lp import chunking, lp_objective

    K, pairs = _rounded_case(740102319, 60, 0.5)
    C = 10.0
    optimum, alpha = full_lp(K, pairs, C, alpha=True)
    upper = lp_objective(K, pairs, C, np.maximum(alpha, 0.0))[0]  # F at HiGHS's point, over every pair: ≥ the optimum
    if route == "generation":
        run = row_column_generation(K, pairs, C, tol=tol)
    else:
        run = chunking(K, pairs, C, tol=tol, n_chunks=2, random_state=0)
    assert run.converged
    assert run.lower_bound <= upper
    assert run.gap == pytest.approx((run.objective - run.lower_bound) / run.objective, rel=1e-12, abs=1e-15)
    assert run.gap >= (run.objective - upper) / run.objective
    if tol is None:
        assert run.gap <= 1e-8 and run.objective == pytest.approx(optimum, rel=RTOL)


def test_a_restricted_lp_the_simplex_fails_from_its_warm_basis_is_solved_from_scratch():
    """HiGHS's dual simplex stops with an error ("excessive dual values") when warm-started on this
    kernel LP (entries from 1e-34 to 1); the restricted LP is then solved once more without the basis."""
    K, pairs = _rounded_case(2012929073, 60, 5.0)
    C = 100.0
    optimum = full_lp(K, pairs, C)
    run = row_column_generation(K, pairs, C)
    assert run.converged and run.objective == pytest.approx(optimum, rel=RTOL)
    assert run.lower_bound <= optimum * (1 + 1e-12) and run.gap <= 1e-7


def test_progress_history_and_callback(capsys):
    K, pairs, C = CASES["wdbc"]
    seen = []
    run = row_column_generation(K, pairs, C, callback=seen.append, verbose=1)
    assert seen == run.history and seen[-1]["violated"] == 0
    assert {"rows", "columns", "violated", "min_reduced_cost", "objective", "lp_seconds"} <= set(seen[0])
    assert seen[-1]["objective"] == pytest.approx(seen[-1]["lp_objective"], rel=1e-7)
    assert "row/column generation" in capsys.readouterr().err


def test_memory_budget_and_bad_options_raise_before_any_work():
    K, pairs, C = CASES["wdbc"]
    with pytest.raises(ProblemTooLargeError, match="Row-and-column generation over"):
        row_column_generation(K, pairs, C, max_bytes=1e3)
    with pytest.raises(ValueError, match="pairs_per_point"):
        row_column_generation(K, pairs, C, pairs_per_point=0)
    with pytest.raises(ValueError, match="must have shape"):
        row_column_generation(K[:5], pairs, C)


# ============================================================================ the estimators
def test_lp_ranker_generation_equals_full():
    X, y = _moons(90)
    full = LPRanker(C=10.0, gamma=1.0, method="full").fit(X, y)
    gen = LPRanker(C=10.0, gamma=1.0, method="generation", method_options={"columns_per_round": 20}).fit(X, y)
    assert gen.method_ == "generation" and isinstance(gen.method_result_, GenerationResult)
    assert gen.objective_ == pytest.approx(full.objective_, rel=RTOL)
    assert gen.n_iter_ == gen.method_result_.rounds and gen.problem_size_ is None
    np.testing.assert_allclose(gen.decision_function(X), full.decision_function(X), atol=1e-6)


def test_survival_lp_ranker_generation_equals_full():
    X, event, time = _survival(70)
    y = survival_target(event, time)
    full = SurvivalLPRanker(C=1.0, gamma=0.25, method="full").fit(X, y)
    gen = SurvivalLPRanker(C=1.0, gamma=0.25, method="generation").fit(X, y)
    assert gen.objective_ == pytest.approx(full.objective_, rel=RTOL)
    assert gen.method_result_.converged
    assert gen.score(X, y) == pytest.approx(full.score(X, y), abs=1e-6)


def test_precomputed_kernel_and_sample_weights_on_generation():
    X, y = _moons(60)
    K = rbf_kernel(X, gamma=1.0)
    sw = np.random.default_rng(0).random(60) + 0.5
    sw[:4] = 0.0
    full = LPRanker(kernel="precomputed", method="full").fit(K, y, sample_weight=sw)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gen = LPRanker(kernel="precomputed", method="generation").fit(K, y, sample_weight=sw)
    assert gen.objective_ == pytest.approx(full.objective_, rel=RTOL)
    np.testing.assert_allclose(gen.decision_function(K), full.decision_function(K), atol=1e-6)
