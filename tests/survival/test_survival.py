"""Survival pair variants and the survival evaluation protocol of Ataman (2007), Sec. 5.3.5 (aucopt.survival).

Oracles: brute-force O(m²) enumeration of Harrell's comparable set and of the LPRex
censored–censored pairs; brute-force percentile conversion and Harrell C; lifelines
(KaplanMeierFitter, logrank_test, concordance_index) and scikit-survival
(concordance_index_censored); scipy.stats.ttest_rel; independent LP/QP models over the
brute-force pair list (scipy linprog, cvxpy).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from scipy.optimize import linprog
from sklearn.base import BaseEstimator
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import RepeatedStratifiedKFold

from aucopt import PairSet, SurvivalLPRanker, get_formulation, harrell_c, solve, survival_target
from aucopt.lp import _scale as lp_scale
from aucopt.pairs import CAPPED_FLOOR
from aucopt.survival import (
    CoxPH,
    compare_methods,
    kaplan_meier,
    logrank,
    percentile_scores,
    plot_risk_groups,
    pooled_cindex_cv,
    risk_groups,
    save_figure,
    time_dependent_auc,
)
from aucopt.svm._newton import newton_solve

# ----------------------------------------------------------------------------- oracles


def brute_harrell(event, time):
    m = len(time)
    return [(i, j) for i in range(m) for j in range(m)
            if i != j and event[i] and (time[i] < time[j] or (time[i] == time[j] and not event[j]))]


def brute_cc(event, time):
    m = len(time)
    return [(i, j) for i in range(m) for j in range(m)
            if not event[i] and not event[j] and time[i] < time[j]]


def brute_c(event, time, risk):
    num = den = 0.0
    for i, j in brute_harrell(event, time):
        den += 1
        num += 1.0 if risk[i] > risk[j] else 0.5 if risk[i] == risk[j] else 0.0
    return num / den


def as_dict(pairs: PairSet):
    i, j, w = pairs.to_arrays()
    keys = list(zip(i.tolist(), j.tolist(), strict=False))
    assert len(set(keys)) == len(keys), "a pair is listed twice"
    return dict(zip(keys, w.tolist(), strict=False))


def random_survival(seed, m=30, n_times=8, p_event=0.5):
    rng = np.random.default_rng(seed)
    time = rng.integers(1, n_times + 1, size=m).astype(float)  # many ties
    event = rng.random(m) < p_event
    X = rng.normal(size=(m, 3))
    return X, event, time


class LinearRisk(BaseEstimator):
    """Tiny deterministic risk model: least squares of −log(t) on X over the events."""

    def fit(self, X, y):
        e, t = y["event"], y["time"]
        A = np.column_stack([X[e], np.ones(e.sum())])
        self.coef_ = np.linalg.lstsq(A, -np.log(t[e] + 1.0), rcond=None)[0]
        return self

    def predict(self, X):
        return np.round(X @ self.coef_[:-1], 1)  # rounding creates tied risks


@pytest.fixture(scope="module")
def veterans():
    sksurv_datasets = pytest.importorskip("sksurv.datasets")
    X, y = sksurv_datasets.load_veterans_lung_cancer()
    cols = ["Age_in_years", "Karnofsky_score", "Months_from_Diagnosis"]
    Xn = X[cols].to_numpy(float)
    Xn = np.column_stack([Xn, (X["Celltype"] == "smallcell").to_numpy(float),
                          (X["Celltype"] == "adeno").to_numpy(float)])
    Xn = (Xn - Xn.min(0)) / (Xn.max(0) - Xn.min(0))
    rng = np.random.default_rng(0)
    keep = np.sort(rng.choice(len(Xn), 90, replace=False))
    event, time = y["Status"][keep], y["Survival_in_days"][keep].astype(float)
    return Xn[keep], survival_target(event, time)


# ============================================================================ pair variants


@pytest.mark.parametrize("seed", range(6))
def test_default_is_harrell_ordered_suffix_and_harrell_c_uses_it(seed):
    _, event, time = random_survival(seed)
    pairs = PairSet.survival(event, time)
    assert pairs.target == "survival" and pairs.storage == "sorted" and pairs.order is not None  # not listed
    expected = brute_harrell(event, time)
    assert sorted(as_dict(pairs)) == sorted(expected)
    risk = np.round(np.random.default_rng(seed).normal(size=len(time)), 1)
    assert harrell_c((event, time), risk) == pytest.approx(brute_c(event, time, risk), abs=1e-15)
    # an explicit Harrell set (via unit user weights) lists the same pairs in to_arrays order
    explicit = PairSet.survival(event, time, weights=np.ones(len(expected)))
    assert explicit.storage == "explicit" and explicit.target == "survival"
    for a, b in zip(pairs.to_arrays(), explicit.to_arrays(), strict=False):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(explicit.signs, np.where(event, 1.0, -1.0))


@pytest.mark.parametrize("seed", range(6))
def test_lprex_equals_brute_force(seed):
    _, event, time = random_survival(seed, p_event=0.4)
    pairs = PairSet.survival(survival_target(event, time), variant="lprex")
    expected = {p: 1.0 for p in brute_harrell(event, time)}
    cc = brute_cc(event, time)
    assert not set(cc) & set(expected)
    expected.update({p: 0.5 for p in cc})
    assert as_dict(pairs) == expected
    assert pairs.total_weight() == pytest.approx(sum(expected.values()))
    np.testing.assert_array_equal(pairs.signs, np.where(event, 1.0, -1.0))
    other = PairSet.survival(event, time, variant="lprex", censored_weight=0.25)
    assert as_dict(other) == {p: (0.25 if p in set(cc) else 1.0) for p in expected}


@pytest.mark.parametrize("variant", ["harrell", "lprex"])
@pytest.mark.parametrize("tw", ["linear", "log", "capped", "callable"])
def test_time_weights_equal_g_of_gap(variant, tw):
    _, event, time = random_survival(3, m=25, n_times=10, p_event=0.5)
    time = time * 1.7
    base = {p: 1.0 for p in brute_harrell(event, time)}
    if variant == "lprex":
        base.update({p: 0.5 for p in brute_cc(event, time)})
    gaps = np.array([time[j] - time[i] for i, j in base])
    scale = float(np.median(gaps[gaps > 0]))
    g = {"linear": lambda d: 1 + d / scale, "log": lambda d: 1 + np.log1p(d / scale),
         "capped": lambda d: min(1.0, max(d / scale, CAPPED_FLOOR)),
         "callable": lambda d: np.sqrt(d) + 0.1}[tw]
    arg = (lambda d: np.sqrt(d) + 0.1) if tw == "callable" else tw
    got = as_dict(PairSet.survival(event, time, variant=variant, time_weight=arg))
    expected = {(i, j): w * float(g(time[j] - time[i])) for (i, j), w in base.items()}
    assert got.keys() == expected.keys()
    for key, w in expected.items():
        assert got[key] == pytest.approx(w, rel=1e-12)
    # an explicit scale
    got2 = as_dict(PairSet.survival(event, time, variant=variant, time_weight="linear", time_scale=2.0))
    for (i, j), w in base.items():
        assert got2[(i, j)] == pytest.approx(w * (1 + (time[j] - time[i]) / 2.0), rel=1e-12)


def test_user_weights_callable_array_and_point_weights():
    _, event, time = random_survival(5, m=20)
    base = PairSet.survival(event, time)
    i0, _j0, _ = base.to_arrays()
    fn = lambda i, j, ti, tj, ei, ej: 1.0 + (tj - ti) * ej + 0.01 * i  # noqa: E731
    got = as_dict(PairSet.survival(event, time, weights=fn))
    for i, j in brute_harrell(event, time):
        assert got[(i, j)] == pytest.approx(1.0 + (time[j] - time[i]) * event[j] + 0.01 * i)
    arr = np.arange(1, len(i0) + 1, dtype=float)
    got = PairSet.survival(event, time, weights=arr).to_arrays()
    np.testing.assert_array_equal(got[2], arr)
    pw = np.linspace(0.5, 2.0, len(time))
    got = as_dict(PairSet.survival(event, time, variant="lprex", point_weights=pw))
    for i, j in brute_harrell(event, time):
        assert got[(i, j)] == pytest.approx(pw[i] * pw[j])
    for i, j in brute_cc(event, time):
        assert got[(i, j)] == pytest.approx(0.5 * pw[i] * pw[j])


def test_pair_variant_errors():
    _, event, time = random_survival(1, m=15)
    with pytest.raises(ValueError, match="variant must be one of"):
        PairSet.survival(event, time, variant="lprx")
    with pytest.raises(ValueError, match="time_weight must be None"):
        PairSet.survival(event, time, time_weight="quadratic")
    with pytest.raises(ValueError, match="time_scale"):
        PairSet.survival(event, time, time_weight="log", time_scale=0.0)
    with pytest.raises(ValueError, match="censored_weight"):
        PairSet.survival(event, time, variant="lprex", censored_weight=-1)
    with pytest.raises(ValueError, match="weights has 3 entries"):
        PairSet.survival(event, time, weights=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="one weight per pair"):
        PairSet.survival(event, time, weights=lambda i, j, *a: np.ones(2))
    with pytest.raises(ValueError, match="non-negative"):
        PairSet.survival(event, time, time_weight=lambda d: d - 100.0)
    with pytest.raises(ValueError, match="would need"):
        PairSet.survival(event, time, variant="lprex", max_bytes=64)
    with pytest.raises(ValueError, match="no comparable pairs"):
        PairSet.survival(np.zeros(5, bool), np.arange(5.0), time_weight="linear")
    # all censored but LPRex still has censored-censored pairs
    assert PairSet.survival(np.zeros(5, bool), np.arange(5.0), variant="lprex").n_pairs == 10


# ----------------------------------------------------------------------------- every solver path


@pytest.fixture(scope="module")
def small_lprex():
    X, event, time = random_survival(11, m=18, n_times=6, p_event=0.5)
    pairs = PairSet.survival(event, time, variant="lprex", time_weight="log")
    return X, event, time, pairs


def _brute_lp_objective(K, signs, pi, pj, pw, C):
    """LP Ranker solved with scipy linprog on the explicit pair list: vars (α ≥ 0, z ≥ 0)."""
    m, P = len(signs), len(pi)
    KY = K * signs[None, :]
    D = KY[pi] - KY[pj]  # rows f_i - f_j in α
    A_ub = np.hstack([-D, -np.eye(P)])  # -(f_i - f_j) - z <= -1
    c = np.concatenate([np.ones(m), C * pw])
    res = linprog(c, A_ub=A_ub, b_ub=-np.ones(P), bounds=[(0, None)] * (m + P), method="highs")
    assert res.status == 0
    return res.fun


def test_lprex_full_lp_matches_brute_force(small_lprex):
    X, _event, _time, pairs = small_lprex
    K = rbf_kernel(X, gamma=0.5)
    C = 1.0
    problem = get_formulation("lp_ranker").build(pairs, K, C=C)
    result = solve(problem, "highs").raise_for_status()
    i, j, w = pairs.to_arrays()
    assert result.objective == pytest.approx(_brute_lp_objective(K, pairs.signs, i, j, w, C), rel=1e-7)
    # the pair core's hinge at the optimum equals the brute-force hinge
    alpha = problem.block(result.x, "alpha")
    F, f = lp_scale.lp_objective(K, pairs, C, alpha)
    brute = alpha.sum() + C * np.sum(w * np.maximum(0.0, 1 - (f[i] - f[j])))
    assert pytest.approx(brute, rel=1e-9) == F and pytest.approx(result.objective, rel=1e-6) == F


def test_lprex_aucsvm_dual_matches_cvxpy_primal(small_lprex):
    cp = pytest.importorskip("cvxpy")
    X, _event, _time, pairs = small_lprex
    C = 0.3
    problem = get_formulation("aucsvm_l1_dual").build(pairs, factor=X, C=C)
    res = solve(problem, "osqp", tol=1e-9).raise_for_status()
    i, j, w = pairs.to_arrays()
    Z = X[i] - X[j]
    wv, xi = cp.Variable(X.shape[1]), cp.Variable(len(i))
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(wv) + C * (w @ xi)), [Z @ wv >= 1 - xi, xi >= 0])
    prob.solve(solver="CLARABEL")
    assert res.objective == pytest.approx(-prob.value, rel=1e-5)
    coef = problem.output(res.x, "coef")
    np.testing.assert_allclose(X.T @ coef, wv.value, atol=1e-4)


def test_lprex_subgradient_runs_and_is_bounded_by_lp(small_lprex):
    X, _event, _time, pairs = small_lprex
    K = rbf_kernel(X, gamma=0.5)
    C = 1.0
    lp = solve(get_formulation("lp_ranker").build(pairs, K, C=C), "highs").raise_for_status().objective
    run = lp_scale.subgradient(K, pairs, C, max_iter=3000)
    i, j, w = pairs.to_arrays()
    f = K @ (pairs.signs * run.alpha)
    brute = run.alpha.sum() + C * np.sum(w * np.maximum(0.0, 1 - (f[i] - f[j])))
    assert run.objective == pytest.approx(brute, rel=1e-9)
    assert lp - 1e-7 <= run.objective <= 1.1 * lp


def test_lprex_newton_matches_brute_force_minimizer(small_lprex):
    from scipy.optimize import minimize

    X, _event, _time, pairs = small_lprex
    alpha = 0.1
    res = newton_solve(X, pairs, alpha, tol=1e-10)
    assert res.converged
    i, j, w = pairs.to_arrays()
    Z = X[i] - X[j]
    N = w.sum()

    def F(theta):
        h = np.maximum(0.0, 1 - Z @ theta)
        return (w @ h**2) / N + 0.5 * alpha * theta @ theta, -2 * Z.T @ (w * h) / N + alpha * theta

    ref = minimize(F, np.zeros(X.shape[1]), jac=True, method="L-BFGS-B", options={"gtol": 1e-12})
    assert res.objective == pytest.approx(ref.fun, rel=1e-8)
    assert res.objective == pytest.approx(F(res.theta)[0], rel=1e-12)
    np.testing.assert_allclose(res.theta, ref.x, atol=1e-5)


# ============================================================================ percentiles / pooled CV


def test_percentile_scores_brute_force():
    rng = np.random.default_rng(0)
    train = np.round(rng.normal(size=40), 1)
    test = np.concatenate([np.round(rng.normal(size=20), 1), train[:5], [-10, 10]])
    got = percentile_scores(train, test)
    expected = [100.0 * sum(u < x for u in train) / len(train) for x in test]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    assert got[-2] == 0 and got[-1] == 100


def test_pooled_cindex_equals_brute_force_and_fold_c_equals_libraries():
    lifelines_utils = pytest.importorskip("lifelines.utils")
    sksurv_metrics = pytest.importorskip("sksurv.metrics")
    X, event, time = random_survival(7, m=60, n_times=20, p_event=0.6)
    time = time + np.abs(X[:, 0])  # risk depends on X
    y = survival_target(event, time)
    res = pooled_cindex_cv(LinearRisk(), X, y, n_splits=4, n_repeats=3, random_state=2)
    assert res.pooled_c.shape == (3,) and res.fold_c.shape == (3, 4) and res.percentiles.shape == (3, 60)
    splits = list(RepeatedStratifiedKFold(n_splits=4, n_repeats=3, random_state=2).split(X, event.astype(int)))
    for r in range(3):
        pct = np.empty(60)
        for k in range(4):
            train, test = splits[r * 4 + k]
            model = LinearRisk().fit(X[train], y[train])
            tr, te = model.predict(X[train]), model.predict(X[test])
            pct[test] = [100.0 * np.sum(tr < s) / len(tr) for s in te]
            np.testing.assert_allclose(res.scores[r, test], te)
            assert res.fold_c[r, k] == pytest.approx(brute_c(event[test], time[test], te), abs=1e-14)
            sk = sksurv_metrics.concordance_index_censored(event[test], time[test], te, tied_tol=0)[0]
            ll = lifelines_utils.concordance_index(time[test], -te, event[test])
            assert res.fold_c[r, k] == pytest.approx(sk, abs=1e-12)
            assert res.fold_c[r, k] == pytest.approx(ll, abs=1e-12)
        np.testing.assert_allclose(res.percentiles[r], pct, atol=1e-12)
        assert res.pooled_c[r] == pytest.approx(brute_c(event, time, pct), abs=1e-14)
    assert res.mean == pytest.approx(res.pooled_c.mean())


def test_fold_without_comparable_pairs_gives_nan():
    # 3 events only; with 3 stratified folds each test fold holds one event. Put every
    # censored subject before the events -> the event in a test fold has no later partner
    # unless ties allow; here all event times are the largest, so test folds have no pairs.
    m = 12
    time = np.arange(1.0, m + 1)
    event = np.zeros(m, bool)
    event[[m - 1, m - 2, m - 3]] = True  # the latest times; training folds: event before event
    X = np.random.default_rng(0).normal(size=(m, 2))
    res = pooled_cindex_cv(LinearRisk(), X, survival_target(event, time), n_splits=3, n_repeats=1)
    assert np.isnan(res.fold_c).all()
    assert np.isfinite(res.pooled_c).all()


class _NoFit(BaseEstimator):
    fitted = 0

    def fit(self, X, y):
        type(self).fitted += 1
        return self

    def predict(self, X):
        return np.zeros(len(X))


@pytest.mark.filterwarnings("ignore:The least populated class")
def test_pooled_cv_bad_input_raises_before_any_fit():
    X, event, time = random_survival(0, m=30)
    est = _NoFit()
    with pytest.raises(ValueError, match="non-negative"):
        pooled_cindex_cv(est, X, (event, -time))
    bad = time.copy()
    bad[3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        pooled_cindex_cv(est, X, (event, bad))
    with pytest.raises(ValueError, match="boolean-like"):
        pooled_cindex_cv(est, X, (event * 2, time))
    with pytest.raises(ValueError, match="All samples are censored"):
        pooled_cindex_cv(est, X, (np.zeros(30, bool), time))
    few = np.zeros(30, bool)
    few[:3] = True
    with pytest.raises(ValueError, match="Too few events per fold"):
        pooled_cindex_cv(est, X, (few, time), n_splits=5)
    # events exist but each only at the latest time: no comparable pair anywhere
    t2 = np.arange(30.0)
    e2 = np.zeros(30, bool)
    e2[-1] = True
    with pytest.raises(ValueError, match="no comparable pairs"):
        pooled_cindex_cv(est, X, (e2, t2), n_splits=2, min_events_per_fold=0)
    with pytest.raises(ValueError, match="X has 10 samples"):
        pooled_cindex_cv(est, X[:10], (event, time))
    assert _NoFit.fitted == 0


def test_compare_methods_matches_scipy():
    a = np.array([0.71, 0.69, 0.72, 0.70, 0.73])
    b = np.array([0.68, 0.69, 0.70, 0.66, 0.71])
    out = compare_methods(a, b)
    ref = stats.ttest_rel(a, b)
    assert out.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert out.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert out.sd_a == pytest.approx(np.std(a, ddof=1)) and out.mean_b == pytest.approx(b.mean())
    with pytest.raises(ValueError, match="at least 2"):
        compare_methods([0.7], [0.6])
    with pytest.raises(ValueError, match="Inconsistent"):
        compare_methods(a, b[:3])


# ============================================================================ end to end


def test_end_to_end_lpr_vs_cox_on_veterans(veterans):
    pytest.importorskip("lifelines")
    X, y = veterans
    lpr = pooled_cindex_cv(SurvivalLPRanker(C=1, gamma=0.5), X, y, n_splits=3, n_repeats=2)
    cox = pooled_cindex_cv(CoxPH(alpha=0.01), X, y, n_splits=3, n_repeats=2)
    assert (lpr.pooled_c > 0.5).all() and (cox.pooled_c > 0.5).all()
    out = compare_methods(lpr, cox)
    assert out.pvalue == pytest.approx(stats.ttest_rel(lpr.pooled_c, cox.pooled_c).pvalue, rel=1e-12)
    assert 0 <= out.pvalue <= 1


def test_coxph_wrapper_matches_lifelines(veterans):
    lifelines = pytest.importorskip("lifelines")
    import pandas as pd

    X, y = veterans
    model = CoxPH(alpha=0.01).fit(X, y)
    df = pd.DataFrame(X, columns=[f"c{k}" for k in range(X.shape[1])])
    df["T"], df["E"] = y["time"], y["event"]
    ref = lifelines.CoxPHFitter(penalizer=0.01).fit(df, "T", "E")
    np.testing.assert_allclose(model.coef_, ref.params_.to_numpy(), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(model.predict(X), X @ ref.params_.to_numpy(), rtol=1e-6, atol=1e-8)
    assert model.score(X, y) > 0.5
    with pytest.raises(ValueError, match="'alpha' parameter of CoxPH"):
        CoxPH(alpha=-1).fit(X, y)


def test_time_dependent_auc(veterans):
    pytest.importorskip("sksurv")
    X, y = veterans
    risk = CoxPH(alpha=0.01).fit(X, y).predict(X) if _has("lifelines") else -X[:, 1]
    times = np.percentile(y["time"][y["event"]], [25, 50, 75])
    auc, mean_auc = time_dependent_auc(y, y, risk, times)
    assert auc.shape == (3,) and 0.5 < mean_auc <= 1


def _has(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


# ============================================================================ Kaplan–Meier / log-rank


@pytest.mark.parametrize("seed", range(4))
def test_kaplan_meier_matches_lifelines(seed):
    lifelines = pytest.importorskip("lifelines")
    _, event, time = random_survival(seed, m=50, n_times=12)
    for mask in (np.ones(50, bool), np.arange(50) % 2 == 0):
        curve = kaplan_meier(time[mask], event[mask])
        kmf = lifelines.KaplanMeierFitter().fit(time[mask], event[mask])
        ref = kmf.survival_function_.loc[curve.times, "KM_estimate"].to_numpy()
        np.testing.assert_allclose(curve.survival, ref, rtol=0, atol=1e-12)
        grid = np.linspace(0, time.max() + 1, 37)
        np.testing.assert_allclose(curve.at(grid), kmf.survival_function_at_times(grid).to_numpy(),
                                   atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("weighting", [None, "wilcoxon", "tarone-ware"])
def test_logrank_matches_lifelines(seed, weighting):
    lifelines_stats = pytest.importorskip("lifelines.statistics")
    rng = np.random.default_rng(seed)
    ta = rng.integers(1, 15, 40).astype(float)
    tb = rng.integers(3, 20, 35).astype(float)
    ea, eb = rng.random(40) < 0.6, rng.random(35) < 0.5
    ours = logrank(ta, ea, tb, eb, weighting=weighting)
    ref = lifelines_stats.logrank_test(ta, tb, event_observed_A=ea, event_observed_B=eb,
                                       weightings=weighting)
    assert ours.statistic == pytest.approx(ref.test_statistic, rel=1e-10, abs=1e-12)
    assert ours.pvalue == pytest.approx(ref.p_value, rel=1e-10, abs=1e-14)


def test_logrank_and_km_errors():
    with pytest.raises(ValueError, match="'weighting' parameter of logrank"):
        logrank([1, 2], [1, 0], [2, 3], [1, 1], weighting="peto")
    with pytest.raises(ValueError, match="at least one event"):
        logrank([1, 2], [0, 0], [2, 3], [0, 0])
    with pytest.raises(ValueError, match="at least one sample"):
        kaplan_meier([], [])
    with pytest.raises(ValueError, match="non-negative"):
        kaplan_meier([-1.0, 2.0], [1, 0])


def test_risk_groups_and_plot(tmp_path):
    rng = np.random.default_rng(0)
    scores = np.round(rng.uniform(0, 100, 50))
    g = risk_groups(scores, top=10)
    assert g.high.sum() == 5 and (g.high ^ g.low).all()
    assert scores[g.high].min() >= scores[g.low].max()
    g90 = risk_groups(scores, top=90)
    assert g90.low.sum() == 5 and scores[g90.low].max() <= scores[g90.high].min()
    with pytest.raises(ValueError, match="'top' parameter of risk_groups"):
        risk_groups(scores, top=0)
    _, event, time = random_survival(2, m=50, n_times=15)
    fig = plot_risk_groups(time, event, {"A": scores, "B": -scores}, top=20, title="test")
    path = save_figure(fig, tmp_path / "km.png")
    with open(path, "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n"


def test_coxph_constant_column_gets_zero_coefficient():
    """A column constant in the training data (a rare one-hot level absent from a CV fold)
    gets coefficient 0; the rest equal lifelines fitted without that column."""
    lifelines = pytest.importorskip("lifelines")
    import pandas as pd

    from aucopt import CoxPH, survival_target

    rng = np.random.default_rng(5)
    X = rng.normal(size=(80, 3))
    X[:, 1] = 1.0
    t = rng.exponential(np.exp(-X[:, 0]))
    e = rng.random(80) < 0.7
    model = CoxPH(alpha=0.01).fit(X, survival_target(e, t))
    assert model.coef_[1] == 0.0
    df = pd.DataFrame({"a": X[:, 0], "c": X[:, 2], "T": t, "E": e.astype(int)})
    ref = lifelines.CoxPHFitter(penalizer=0.01).fit(df, "T", "E").params_
    np.testing.assert_allclose(model.coef_[[0, 2]], ref[["a", "c"]].to_numpy(), rtol=1e-6)


def test_flchain_loader_drops_the_cause_of_death():
    pytest.importorskip("sksurv")
    import pandas as pd
    from sksurv.datasets import load_flchain

    from aucopt.datasets import load_survival

    X, _ = load_survival("flchain")
    frame, _ = load_flchain()
    without = pd.get_dummies(frame.drop(columns=["chapter"]), drop_first=True)
    assert X.shape[1] == without.shape[1]  # no one-hot column of "chapter" survives


# ============================================================================ parameters


def _cox_data(seed=5, m=80):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 3)) * [1.0, 2.0, 0.5] + 1.0
    t = np.round(rng.exponential(np.exp(-X[:, 0])), 1) + 0.1  # tied times: Efron's correction matters
    e = rng.random(m) < 0.7
    return X, t, e


@pytest.mark.filterwarnings("ignore:Newton-Raphson convergence completed successfully")
@pytest.mark.parametrize("params", [{"max_iter": 1}, {"max_iter": 2}, {"tol": 0.5}, {"tol": 1e-10},
                                    {"alpha": 0.1, "l1_ratio": 0.5, "max_iter": 3}])
def test_coxph_tol_and_max_iter_reach_lifelines(params):
    lifelines = pytest.importorskip("lifelines")
    import warnings

    import pandas as pd
    from sklearn.exceptions import ConvergenceWarning

    X, t, e = _cox_data()
    y = survival_target(e, t)
    full = dict(alpha=0.0, l1_ratio=0.0, tol=1e-7, max_iter=500) | params
    df = pd.DataFrame(X, columns=["a", "b", "c"]).assign(T=t, E=e.astype(int))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = lifelines.CoxPHFitter(penalizer=full["alpha"], l1_ratio=full["l1_ratio"]).fit(
            df, "T", "E", fit_options={"precision": full["tol"], "max_steps": full["max_iter"]}).params_.to_numpy()
        default = CoxPH(alpha=full["alpha"], l1_ratio=full["l1_ratio"]).fit(X, y).coef_
    if "max_iter" in params:  # stopped early: lifelines' failure becomes scikit-learn's warning
        with pytest.warns(ConvergenceWarning, match=f"max_iter={params['max_iter']}"):
            model = CoxPH(**params).fit(X, y)
        assert not model.converged_
    else:
        model = CoxPH(**params).fit(X, y)
        assert model.converged_
    np.testing.assert_allclose(model.coef_, ref, rtol=1e-12, atol=1e-14)  # the same lifelines run
    if params != {"tol": 1e-10}:  # a loose tolerance or few steps stop before the default's optimum
        assert np.abs(model.coef_ - default).max() > 1e-6
    else:
        np.testing.assert_allclose(model.coef_, default, rtol=1e-4)


def test_coxph_ridge_equals_sksurv_on_standardized_columns():
    """The documented objective: CoxPH(alpha=a) on standardized columns (ddof=1) minimizes
    −ℓ(β)/n + (a/2)‖β‖², i.e. scikit-survival's CoxPHSurvivalAnalysis(alpha=n·a, ties="efron")."""
    pytest.importorskip("lifelines")
    sksurv_linear = pytest.importorskip("sksurv.linear_model")
    X, t, e = _cox_data(m=90)
    Xs = (X - X.mean(0)) / X.std(0, ddof=1)
    y = survival_target(e, t)
    for a in (0.01, 0.2):
        ours = CoxPH(alpha=a, tol=1e-10).fit(Xs, y).coef_
        ref = sksurv_linear.CoxPHSurvivalAnalysis(alpha=len(t) * a, ties="efron", tol=1e-12).fit(Xs, y).coef_
        np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=1e-7)
    # on raw columns lifelines penalizes the standardized coefficients s_k β_k
    ours = CoxPH(alpha=0.05, tol=1e-10).fit(X, y).coef_
    ref = sksurv_linear.CoxPHSurvivalAnalysis(alpha=len(t) * 0.05 * X.std(0, ddof=1) ** 2, ties="efron",
                                              tol=1e-12).fit(X, y).coef_
    np.testing.assert_allclose(ours, ref, rtol=1e-5, atol=1e-7)


class _Untouchable:
    """Data that fails loudly if anything reads it: parameter checks must come first."""

    shape = (30, 3)

    def __array__(self, *args, **kwargs):
        raise AssertionError("the data was read before the parameters were checked")

    def __len__(self):
        raise AssertionError("the data was read before the parameters were checked")


@pytest.mark.parametrize("param, value", [
    ("alpha", -0.1), ("alpha", "ridge"), ("l1_ratio", -0.5), ("l1_ratio", 1.5), ("tol", 0.0),
    ("tol", -1e-3), ("max_iter", 0), ("max_iter", 2.5), ("verbose", "loud"),
])
def test_coxph_each_constraint_rejects_bad_value_before_any_work(param, value):
    from sklearn.utils._param_validation import InvalidParameterError

    est = CoxPH(**{param: value})
    with pytest.raises(InvalidParameterError, match=f"'{param}' parameter of CoxPH"):
        est.fit(_Untouchable(), _Untouchable())
    assert not hasattr(est, "coef_")


@pytest.mark.parametrize("kwargs, name", [
    ({"n_splits": 1}, "n_splits"), ({"n_splits": 2.0}, "n_splits"), ({"n_repeats": 0}, "n_repeats"),
    ({"random_state": "zero"}, "random_state"), ({"stratify": "yes"}, "stratify"),
    ({"min_events_per_fold": -1}, "min_events_per_fold"), ({"verbose": "on"}, "verbose"),
])
def test_pooled_cv_parameters_rejected_before_any_fit(kwargs, name):
    from sklearn.utils._param_validation import InvalidParameterError

    from aucopt.survival import evaluate_methods

    X, event, time = random_survival(0, m=30)
    _NoFit.fitted = 0
    with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of pooled_cindex_cv"):
        pooled_cindex_cv(_NoFit(), X, (event, time), **kwargs)
    if name not in ("stratify", "min_events_per_fold"):
        with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of evaluate_methods"):
            evaluate_methods({"a": _NoFit()}, X, (event, time), **kwargs)
    with pytest.raises(InvalidParameterError, match="'estimator' parameter of pooled_cindex_cv"):
        pooled_cindex_cv(object(), X, (event, time))
    with pytest.raises(InvalidParameterError, match="'methods' parameter of evaluate_methods"):
        evaluate_methods([_NoFit()], X, (event, time))
    assert _NoFit.fitted == 0


def test_pooled_cv_verbose_shows_a_progress_bar(capsys):
    from aucopt.survival import evaluate_methods

    X, event, time = random_survival(7, m=40, n_times=20, p_event=0.6)
    y = survival_target(event, time)
    quiet = pooled_cindex_cv(LinearRisk(), X, y, n_splits=2, n_repeats=2, verbose=0)
    assert capsys.readouterr().err == ""
    loud = pooled_cindex_cv(LinearRisk(), X, y, n_splits=2, n_repeats=2, verbose=1)
    assert "CV LinearRisk" in capsys.readouterr().err
    np.testing.assert_array_equal(quiet.pooled_c, loud.pooled_c)
    results = evaluate_methods({"a": LinearRisk()}, X, y, n_splits=2, n_repeats=2, verbose=True)
    assert "CV LinearRisk" in capsys.readouterr().err
    np.testing.assert_array_equal(results["a"].pooled_c, quiet.pooled_c)
    assert results["a"].seconds > 0 and quiet.seconds > 0  # wall time, recorded by both


def test_plot_risk_groups_rejects_unknown_weighting():
    _, event, time = random_survival(2, m=20)
    with pytest.raises(ValueError, match="weighting must be one of"):
        plot_risk_groups(time, event, np.arange(20.0), weighting="peto")


def test_coxph_n_iter_counts_lifelines_newton_steps_and_verbose_prints_them(capsys):
    pytest.importorskip("lifelines")
    import pickle
    import warnings

    X, t, e = _cox_data()
    y = survival_target(e, t)
    quiet = CoxPH(alpha=0.01).fit(X, y)
    assert capsys.readouterr().out == ""
    loud = CoxPH(alpha=0.01, verbose=1).fit(X, y)
    printed = capsys.readouterr().out
    assert loud.n_iter_ == quiet.n_iter_ == printed.count("Iteration ") >= 2  # lifelines' own log
    np.testing.assert_array_equal(loud.coef_, quiet.coef_)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert CoxPH(max_iter=2).fit(X, y).n_iter_ == 2
    again = pickle.loads(pickle.dumps(quiet))  # the step counter does not stay on the fitter
    np.testing.assert_array_equal(again.predict(X), quiet.predict(X))


@pytest.mark.parametrize("case", ["all-censored", "no-one-at-risk-after-the-event"])
def test_coxph_without_comparable_pairs_raises_before_fitting(case):
    pytest.importorskip("lifelines")
    from aucopt.exceptions import NoComparablePairsError

    X, t, e = _cox_data()
    e = np.zeros_like(e)
    if case != "all-censored":
        t = np.arange(len(t), dtype=float)
        e[-1] = True
    with pytest.raises(NoComparablePairsError):
        CoxPH().fit(X, survival_target(e, t))


def test_cv_progress_bar_names_the_model_inside_a_pipeline(capsys):
    """The bar of a pipeline's cross-validation names its model, not 'Pipeline'."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler

    from aucopt import CoxPH
    from aucopt.survival import pooled_cindex_cv

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = survival_target(rng.random(40) < 0.8, rng.exponential(np.exp(-X[:, 0])))
    pooled_cindex_cv(make_pipeline(MinMaxScaler(), CoxPH(alpha=0.1)), X, y, n_splits=2, n_repeats=1, verbose=1)
    err = capsys.readouterr().err
    assert "CV CoxPH" in err and "Pipeline" not in err
