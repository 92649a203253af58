"""The LP Ranker's smoothing route and the certified gaps of every route.

Oracles, independent of the code under test:

* the full LP (Ataman 2007, eq. 3.3) built by ``get_formulation("lp_ranker")`` and solved by
  HiGHS's dual simplex: its optimum F* must lie between every certified lower bound and the
  returned objective, and the reported gap must cover the true one,
  (objective − F*) / objective ≤ gap (up to HiGHS's 1e-9 tolerance);
* brute-force sums over listed pairs for the pair-core quantities the route rests on (the
  smoothed dual total and the batched Hessian products).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel

import aucopt
from aucopt import LPRanker, PairSet, SlowFitWarning, SurvivalLPRanker, get_formulation, survival_target
from aucopt.exceptions import ProblemTooLargeError
from aucopt.lp import SmoothingResult, row_column_generation, smoothing
from aucopt.lp._kernel import KernelOperator
from aucopt.pairs.core import pair_loss_and_hessian, pair_slope_total
from aucopt.solvers import solve

SLACK = 1e-8  # HiGHS's optimum is exact to its 1e-9 feasibility tolerances


def full_lp(K, pairs, C):
    return solve(get_formulation("lp_ranker").build(pairs, K, C=C), "highs").raise_for_status().objective


def check_certificate(run, optimum, tol=None):
    """The optimum lies between the certified bounds and the gap covers the true distance."""
    assert run.lower_bound <= optimum * (1 + SLACK) + SLACK
    assert run.objective >= optimum * (1 - SLACK) - SLACK
    assert (run.objective - optimum) / run.objective <= run.gap + SLACK
    if tol is not None:
        assert run.converged and run.gap <= tol


def _survival(n=50, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    event = rng.random(n) < 0.7
    time = np.round(rng.exponential(np.exp(-X[:, 0])), 1)  # rounded: tied times
    return X, event, time


def _cases():
    X, y = make_classification(n_samples=60, n_features=5, random_state=0)
    Xs, event, time = _survival()
    rng = np.random.default_rng(3)
    i, j = rng.integers(0, 60, 400), rng.integers(0, 60, 400)
    keep = i != j
    X_dup = np.vstack([X[:40], X[:20]])  # duplicate points
    return {
        "bipartite": (rbf_kernel(X, gamma=0.1), PairSet.bipartite(y), 1.0),
        "weighted": (rbf_kernel(X, gamma=0.1), PairSet.bipartite(y, point_weights=rng.random(60) * 2), 1.0),
        "duplicates": (rbf_kernel(X_dup, gamma=0.1), PairSet.bipartite(np.r_[y[:40], y[:20]]), 1.0),
        "harrell": (rbf_kernel(Xs, gamma=0.2), PairSet.survival(event, time), 1.0),
        "lprex": (rbf_kernel(Xs, gamma=0.2), PairSet.survival(event, time, variant="lprex"), 1.0),
        "time_weight": (rbf_kernel(Xs, gamma=0.2), PairSet.survival(event, time, time_weight="log"), 1.0),
        "multipartite": (rbf_kernel(X, gamma=0.1), PairSet.multipartite(rng.integers(0, 3, 60)), 1.0),
        "custom": (rbf_kernel(X, gamma=0.1), PairSet.from_arrays(i[keep], j[keep], rng.random(keep.sum()),
                                                                  n_points=60), 1.0),
    }


CASES = _cases()


# ============================================================================ the certificate
@pytest.mark.parametrize("kind", sorted(CASES))
def test_the_optimum_lies_within_the_reported_gap(kind):
    K, pairs, C = CASES[kind]
    optimum = full_lp(K, pairs, C)
    run = smoothing(K, pairs, C, tol=1e-4)
    check_certificate(run, optimum, tol=1e-4)
    # every iterate's bound is a bound, and the best objective is F at the returned α
    assert all(r["lower_bound"] <= optimum * (1 + SLACK) + SLACK for r in run.history)
    f = K @ (pairs.signs * run.alpha)
    i, j, w = pairs.to_arrays()
    assert run.objective == pytest.approx(run.alpha.sum() + C * np.sum(w * np.maximum(0, 1 - (f[i] - f[j]))),
                                          rel=1e-10)


@pytest.mark.parametrize("tol", [1e-1, 1e-3, 1e-6])
def test_the_gap_reaches_any_tolerance(tol):
    K, pairs, C = CASES["bipartite"]
    run = smoothing(K, pairs, C, tol=tol)
    check_certificate(run, full_lp(K, pairs, C), tol=tol)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(6, 30), survival=st.booleans(),
       C=st.sampled_from([0.1, 1.0, 10.0]), gamma=st.sampled_from([0.05, 0.5, 5.0]), weighted=st.booleans())
@example(seed=23, n=23, survival=True, C=10.0, gamma=5.0, weighted=True)  # HiGHS returns no Newton step
@example(seed=2879334, n=6, survival=True, C=0.1, gamma=0.05, weighted=True)  # its one pair weighs 0
@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_lower_bounds_never_exceed_the_optimum(seed, n, survival, C, gamma, weighted):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 2)), 1)  # ties and duplicates
    w = np.round(rng.random(n) * 2, 1) if weighted else None
    if survival:
        pairs = PairSet.survival(rng.random(n) < 0.6, np.round(rng.exponential(size=n), 1), point_weights=w)
    else:
        y = rng.random(n) < 0.5
        y[:2] = [True, False]
        pairs = PairSet.bipartite(y, point_weights=w)
    if pairs.n_pairs == 0 or pairs.total_weight() == 0:  # no weighted pair: nothing to rank
        return
    K = rbf_kernel(X, gamma=gamma)
    optimum = full_lp(K, pairs, C)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        run = smoothing(K, pairs, C, tol=1e-3, max_iter=60)  # stopped early or not, the bounds hold
    check_certificate(run, optimum)


def test_the_certificate_holds_at_a_smoothing_width_far_below_the_score_spread():
    """The case found by ``test_lower_bounds_never_exceed_the_optimum`` (seed 32201): the run narrows μ
    to about 1e-12 against scores spread over 2.3. Summed by prefix sums, Σπ and the dual rows lost
    about 1e-7 and the bound ended 4.6e-8 (relative) above the optimum; the band's pairs are now
    summed one by one."""
    rng = np.random.default_rng(32201)
    X, w = np.round(rng.normal(size=(12, 2)), 1), np.round(rng.random(12) * 2, 1)
    y = rng.random(12) < 0.5
    y[:2] = [True, False]
    pairs = PairSet.bipartite(y, point_weights=w)
    K = rbf_kernel(X, gamma=0.05)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        run = smoothing(K, pairs, 1.0, tol=1e-3, max_iter=60)
    check_certificate(run, full_lp(K, pairs, 1.0))


def test_a_newton_model_without_a_finite_step_takes_a_gradient_step_and_converges():
    """A nearly diagonal kernel (gamma = 5 on rounded, duplicated points) gives Newton models whose
    curvature is rounding noise (diagonal 1e-29 to 1e-16), where HiGHS's QP returns no point: the
    route then takes an exactly searched projected gradient step, with no overflow, and still
    reaches its gap (a step of −g over that noise diagonal once stalled it at a gap of 0.47)."""
    rng = np.random.default_rng(23)
    X = np.round(rng.normal(size=(23, 2)), 1)
    w = np.round(rng.random(23) * 2, 1)
    pairs = PairSet.survival(rng.random(23) < 0.6, np.round(rng.exponential(size=23), 1), point_weights=w)
    K = rbf_kernel(X, gamma=5.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        run = smoothing(K, pairs, 10.0, tol=1e-3, max_iter=150)
    check_certificate(run, full_lp(K, pairs, 10.0), tol=1e-3)


def test_a_stop_at_a_limit_reports_the_gap_it_reached_with_a_warning():
    K, pairs, C = CASES["harrell"]
    optimum = full_lp(K, pairs, C)
    with pytest.warns(ConvergenceWarning, match=r"stopped at max_iter=3 Newton steps with a certified relative gap"):
        run = smoothing(K, pairs, C, tol=1e-6, max_iter=3)
    assert run.stop == "max_iter" and not run.converged and run.iterations == 3
    check_certificate(run, optimum)
    with pytest.warns(ConvergenceWarning, match=r"stopped at time_limit=1e-09 s"):
        run = smoothing(K, pairs, C, tol=1e-6, time_limit=1e-9)
    assert run.stop == "time_limit" and run.iterations == 0 and 0.5 < run.gap <= 1.0  # α = 0, one dual bound
    check_certificate(run, optimum)


def test_a_warm_start_along_a_c_path_keeps_the_certificate_and_saves_steps():
    K, pairs, _ = CASES["bipartite"]
    previous, steps = None, []
    for C in (1.0, 2.0, 4.0):
        cold = smoothing(K, pairs, C, tol=1e-4)
        warm = smoothing(K, pairs, C, tol=1e-4, warm_start=previous)
        check_certificate(warm, full_lp(K, pairs, C), tol=1e-4)
        steps.append((cold.iterations, warm.iterations))
        previous = warm
    assert sum(w for _, w in steps[1:]) < sum(c for c, _ in steps[1:])
    with pytest.raises(ValueError, match="warm_start comes from a problem with 60 points"):
        smoothing(K[:50, :50], PairSet.bipartite(np.arange(50) % 2), 1.0, warm_start=previous)


def test_the_kernel_as_blocks_or_as_a_factor_gives_the_same_run():
    X, y = make_classification(n_samples=50, n_features=4, random_state=1)
    pairs = PairSet.bipartite(y)
    stored = smoothing(rbf_kernel(X, gamma=0.2), pairs, 1.0, tol=1e-5)
    blocks = smoothing(KernelOperator(lambda r, c: rbf_kernel(X[r], X[c], gamma=0.2), 50, block_entries=300),
                       pairs, 1.0, tol=1e-5)
    assert blocks.iterations == stored.iterations
    np.testing.assert_allclose(blocks.alpha, stored.alpha, rtol=1e-6, atol=1e-9)
    linear = smoothing(KernelOperator(None, 50, factor=X), pairs, 0.1, tol=1e-5)
    check_certificate(linear, full_lp(X @ X.T, pairs, 0.1), tol=1e-5)


def test_memory_budget_and_bad_options_raise_before_any_work():
    K, pairs, C = CASES["bipartite"]
    with pytest.raises(ProblemTooLargeError, match="smoothing route over 60 points"):
        smoothing(K, pairs, C, max_bytes=1e3)
    with pytest.raises(ValueError, match="'tol' parameter of smoothing must be a float in the range"):
        smoothing(K, pairs, C, tol=0.0)
    with pytest.raises(ValueError, match="'mu0' parameter"):
        smoothing(K, pairs, C, mu0=3.0)
    with pytest.raises(ValueError, match="must have shape"):
        smoothing(K[:5], pairs, C)


# ============================================================================ the pair core
@pytest.mark.parametrize("kind", sorted(CASES))
def test_slope_total_and_batched_hessian_match_listed_pairs(kind):
    _, pairs, _ = CASES[kind]
    rng = np.random.default_rng(0)
    f = np.round(rng.normal(size=pairs.n_points), 1)  # scores on the pieces' boundaries too
    i, j, w = pairs.to_arrays()
    for mu in (1.0, 0.3, 0.1):
        t = 1 - (f[i] - f[j])
        assert pair_slope_total(pairs, f, "smoothed_hinge", eps=mu / 2) == pytest.approx(
            np.sum(w * np.clip(t / mu, 0, 1)), rel=1e-12, abs=1e-12)
        _, _, hessian = pair_loss_and_hessian(pairs, f, "smoothed_hinge", eps=mu / 2)
        V = rng.normal(size=(pairs.n_points, 45))  # more columns than one compiled batch
        z = f[i] - f[j]
        quad = (z < 1) & (z >= 1 - mu)  # the pieces' half-open rule, on the float64 difference itself
        D = (w * quad / mu)[:, None] * (V[i] - V[j])
        expected = np.zeros_like(V)
        np.add.at(expected, i, D)
        np.subtract.at(expected, j, D)
        np.testing.assert_allclose(hessian.matmat(V), expected, rtol=1e-10, atol=1e-10)


def test_kernel_operator_forms_agree():
    X = np.random.default_rng(0).normal(size=(30, 3))
    K = X @ X.T
    forms = [KernelOperator(K, 30), KernelOperator(lambda r, c: X[r] @ X[c].T, 30, block_entries=50),
             KernelOperator(None, 30, factor=X), KernelOperator(K, 30, symmetric=True)]
    idx, v = np.array([4, 0, 17]), np.arange(30.0)
    for op in forms:
        np.testing.assert_allclose(op.rows(idx), K[idx], atol=1e-12)
        np.testing.assert_allclose(op.matvec(v), K @ v, atol=1e-9)
        np.testing.assert_allclose(op.product(idx, v[:3]), K[:, idx] @ v[:3], atol=1e-12)
    asymmetric = K + np.triu(np.ones((30, 30)), 1)
    np.testing.assert_allclose(KernelOperator(asymmetric, 30).rows(idx), asymmetric[:, idx].T)


# ============================================================================ the estimators
def test_every_route_reports_an_honest_optimality_gap():
    X, y = make_classification(n_samples=50, n_features=4, random_state=2)
    K = rbf_kernel(X, gamma=0.25)
    optimum = full_lp(K, PairSet.bipartite(y), 1.0)
    gaps = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for method, options in [("full", None), ("generation", None), ("smoothing", None), ("chunking", None),
                                ("subgradient", {"step_min": 0.1}), ("clustering", None)]:
            model = LPRanker(C=1.0, gamma=0.25, method=method, method_options=options).fit(X, y)
            gaps[method] = model.optimality_gap_
            if method != "clustering":
                assert (model.objective_ - optimum) / model.objective_ <= model.optimality_gap_ + SLACK
    # the full LP trusts HiGHS's optimal status; the generated and chunked LPs certify their optimum by a
    # dual-feasible point built from their duals: a gap of the order of HiGHS's tolerances
    assert gaps["full"] == 0.0 and 0.0 <= gaps["generation"] <= 1e-8 and 0.0 <= gaps["chunking"] <= 1e-8
    assert 0 < gaps["smoothing"] <= 1e-3 and 0 < gaps["subgradient"] <= 1
    assert math.isnan(gaps["clustering"])


def test_survival_smoothing_fits_every_pair_variant():
    X, event, time = _survival(60, seed=4)
    y = survival_target(event, time)
    for options in (None, {"variant": "lprex"}, {"time_weight": "log"}):
        model = SurvivalLPRanker(C=1.0, gamma=0.2, method="smoothing", tol=1e-4, pair_options=options).fit(X, y)
        exact = SurvivalLPRanker(C=1.0, gamma=0.2, method="full", pair_options=options).fit(X, y)
        assert model.optimality_gap_ <= 1e-4
        assert exact.objective_ <= model.objective_ <= exact.objective_ * (1 + 1e-4) + SLACK
        assert abs(model.score(X, y) - exact.score(X, y)) < 0.01


def test_a_stop_at_the_time_limit_keeps_the_certificate_and_warns():
    X, y = make_classification(n_samples=80, random_state=0)
    with pytest.warns(ConvergenceWarning, match="certified relative gap"):
        model = LPRanker(method="smoothing", tol=1e-9, solver_options={"time_limit": 1e-9}).fit(X, y)
    assert 0.5 < model.optimality_gap_ <= 1.0 and model.method_result_.stop == "time_limit"


def test_auto_predicts_time_says_why_and_announces_a_slow_fit(monkeypatch, capsys):
    X, y = make_classification(n_samples=80, random_state=0)
    pairs = PairSet.bipartite(y)
    method, reason = LPRanker().select_method(pairs)
    assert method == "full" and "predicted" in reason
    monkeypatch.setattr(aucopt._runtime, "AUTO_FULL_SECONDS", 0.0)
    method, reason = LPRanker(tol=1e-4).select_method(pairs)
    assert method == "smoothing" and "certified relative gap of 0.0001" in reason and "full LP" in reason
    model = LPRanker(verbose=1).fit(X, y)
    assert model.method_ == "smoothing" and model.optimality_gap_ <= 1e-3
    assert "method='auto': smoothing" in capsys.readouterr().out
    monkeypatch.setattr(aucopt._runtime, "SLOW_FIT_SECONDS", 0.0)
    with pytest.warns(SlowFitWarning, match="The fit is predicted to take"):
        LPRanker().fit(X, y)
    with warnings.catch_warnings():  # an explicit method is the user's choice: no announcement
        warnings.simplefilter("error", SlowFitWarning)
        LPRanker(method="smoothing").fit(X, y)


def test_survival_smoothing_is_predicted_with_its_own_constants(monkeypatch):
    """The default SurvivalLPRanker() took 68 s by smoothing on 1,000 synthetic subjects (129 Newton
    steps) where the bipartite constants predicted 6.5 s, so no warning: a survival pair set now
    takes the survival constants, and a fit of 1,000 subjects is announced before it starts."""
    rng = np.random.default_rng(0)
    time, event = rng.exponential(size=1000), rng.random(1000) < 0.6
    survival, bipartite = PairSet.survival(survival_target(event, time)), PairSet.bipartite(event)
    ranker = SurvivalLPRanker()
    assert ranker.predicted_seconds("smoothing", survival) > aucopt._runtime.SLOW_FIT_SECONDS
    bipartite_seconds = LPRanker().predicted_seconds("smoothing", bipartite)
    assert bipartite_seconds == aucopt._runtime.smoothing_seconds(1000) < aucopt._runtime.SLOW_FIT_SECONDS
    assert ranker.select_method(survival)[0] == "smoothing"

    def not_run(*args, **kwargs):
        raise RuntimeError("the warning comes first")

    monkeypatch.setattr(aucopt.lp._classes, "smoothing", not_run)
    with pytest.warns(SlowFitWarning, match="The fit is predicted to take 95 s"), pytest.raises(RuntimeError):
        ranker.fit(rng.normal(size=(1000, 3)), survival_target(event, time))


def test_every_bipartite_fit_measured_over_a_minute_is_announced():
    """make_classification (20 features, 30 % positives) by smoothing: 57 s at 2,000 rows, 166 s at
    3,000 (benchmarks/lp_ranker_certified.py --parts calibrate): the model announces the second only."""
    ranker = LPRanker()
    seconds = {m: ranker.predicted_seconds("smoothing", PairSet.bipartite(np.arange(m) % 10 < 3)) for m in (2000, 3000)}
    assert seconds[2000] < aucopt._runtime.SLOW_FIT_SECONDS < seconds[3000]


def test_a_kernel_over_the_budget_is_evaluated_in_blocks_and_said_so(monkeypatch):
    X, y = make_classification(n_samples=120, random_state=0)
    pairs = PairSet.bipartite(y)
    budget = aucopt._memory.smoothing_work_bytes(120, 120) + 1e4  # the working arrays, not the kernel
    model = LPRanker(method="smoothing", max_bytes=budget)
    assert not model._stores_kernel(120)
    monkeypatch.setattr(aucopt._runtime, "AUTO_FULL_SECONDS", 0.0)
    assert "evaluated in blocks" in LPRanker(max_bytes=budget).select_method(pairs)[1]
    blocked = model.fit(X, y)
    stored = LPRanker(method="smoothing").fit(X, y)
    # The kernel by blocks rounds as the whole kernel does only with a one-thread BLAS (a threaded
    # product splits its sums otherwise), so the two runs may take different steps: each certifies
    # its own gap, and the optimum of the whole LP lies within it.
    optimum = LPRanker(method="full").fit(X, y).objective_
    for run in (blocked, stored):
        assert run.optimality_gap_ <= 1e-3 and run.objective_ >= optimum * (1 - SLACK)
        assert (run.objective_ - optimum) / run.objective_ <= run.optimality_gap_ + SLACK
    with pytest.raises(ProblemTooLargeError, match="smoothing route"):
        LPRanker(method="smoothing", max_bytes=1e4).fit(X, y)


def test_summary_shows_the_route_and_its_gap():
    X, y = make_classification(n_samples=60, random_state=0)
    model = LPRanker(method="smoothing").fit(X, y)
    text = str(model.summary())
    assert "method = smoothing" in text and "optimality_gap = " in text and "status = converged" in text


def test_generation_stopped_early_reports_a_certified_gap():
    K, pairs, C = CASES["bipartite"]
    optimum = full_lp(K, pairs, C)
    with pytest.warns(ConvergenceWarning, match="certified relative gap"):
        run = row_column_generation(K, pairs, C, max_iter=2, max_pairs=10, columns_per_round=5, start="zero")
    assert not run.converged and 0 < run.gap < 1
    assert run.lower_bound <= optimum * (1 + SLACK) and (run.objective - optimum) / run.objective <= run.gap + SLACK
    assert isinstance(smoothing(K, pairs, C), SmoothingResult)


def test_generation_stopped_early_keeps_its_smoothing_start():
    """Stopped before its certificate, generation returns a point at least as good as its smoothing
    start and a bound at least as tight (e.g. when the start used the whole time limit)."""
    K, pairs, C = CASES["harrell"]
    warm = smoothing(K, pairs, 10 * C, tol=0.3)
    with pytest.warns(ConvergenceWarning, match="certified relative gap"):
        run = row_column_generation(K, pairs, 10 * C, warm_start=warm, solver_options={"time_limit": 1e-9})
    assert not run.converged
    assert run.objective <= warm.objective and run.lower_bound >= warm.lower_bound
    assert run.gap <= warm.gap + 1e-12
    optimum = full_lp(K, pairs, 10 * C)
    assert run.lower_bound <= optimum * (1 + SLACK) <= run.objective * (1 + 2 * SLACK)
