"""Survival curves from risk scores: the one-covariate Cox calibration with Breslow's baseline.

Oracles: a brute-force partial likelihood and Breslow sum written from the definitions, integer
weights against repeated rows, scikit-survival's ``CoxPHSurvivalAnalysis(ties="breslow")`` on the
score column and lifelines' ``CoxPHFitter`` (optional peers).
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from aucopt import CoxPH, survival_target
from aucopt._breslow import StepFunction, fit_breslow


def _data(seed, n=120, censoring=0.4, tie_grid=0.25):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=n) * 2.0 + 3.0
    t = np.round(rng.exponential(np.exp(-0.6 * (s - 3.0))) / tie_grid) * tie_grid + 0.1  # many tied times
    e = rng.random(n) > censoring
    e[0] = True
    return s, t, e


def _loglik(beta, s, t, e, w):
    """Breslow's log partial likelihood, one event at a time."""
    return sum(w[i] * (beta * s[i] - np.log(np.sum(w[t >= t[i]] * np.exp(beta * s[t >= t[i]]))))
               for i in np.flatnonzero(e))


def _breslow_hazard(beta, s, t, e, w, at):
    """Ĥ₀(at) = Σ_{event times t_k ≤ at} d_k / Σ_{T_j ≥ t_k} w_j exp(β s_j), from the definition."""
    total = 0.0
    for tk in np.unique(t[e]):
        if tk <= at:
            d = np.sum(w[e & (t == tk)])
            total += d / np.sum(w[t >= tk] * np.exp(beta * s[t >= tk]))
    return total


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), weighted=st.booleans())
def test_calibration_is_the_partial_likelihood_maximum_and_breslows_baseline(seed, weighted):
    s, t, e = _data(seed, n=40)
    w = np.random.default_rng(seed).integers(1, 4, len(s)).astype(float) if weighted else np.ones(len(s))
    cal = fit_breslow(s, t, e, w)
    assert cal.converged
    h = 1e-5 * max(1.0, abs(cal.coef))
    slope = (_loglik(cal.coef + h, s, t, e, w) - _loglik(cal.coef - h, s, t, e, w)) / (2 * h)
    assert abs(slope) < 1e-6 * max(1.0, np.sum(w[e]))
    np.testing.assert_array_equal(cal.unique_times, np.unique(t))
    expected = [_breslow_hazard(cal.coef, s - cal.centre, t, e, w, u) for u in cal.unique_times]
    np.testing.assert_allclose(cal.cum_baseline_hazard, expected, rtol=1e-10, atol=1e-14)


def test_integer_weights_equal_repeated_rows():
    s, t, e = _data(3)
    w = np.random.default_rng(3).integers(0, 4, len(s))
    weighted = fit_breslow(s, t, e, w.astype(float))
    rows = np.repeat(np.arange(len(s)), w)
    repeated = fit_breslow(s[rows], t[rows], e[rows])
    assert weighted.coef == pytest.approx(repeated.coef, rel=1e-10)
    keep = np.isin(weighted.unique_times, repeated.unique_times)  # zero-weight rows add times with no mass
    np.testing.assert_allclose(np.interp(repeated.unique_times, weighted.unique_times[keep],
                                         weighted.cum_baseline_hazard[keep]),
                               repeated.cum_baseline_hazard, rtol=1e-10)


@pytest.mark.parametrize("seed", range(4))
def test_calibration_equals_scikit_survival_breslow_cox_on_the_score(seed):
    pytest.importorskip("sksurv")
    from sksurv.linear_model import CoxPHSurvivalAnalysis
    from sksurv.util import Surv

    s, t, e = _data(seed, n=300, censoring=0.7 if seed % 2 else 0.3)
    cal = fit_breslow(s, t, e)
    ref = CoxPHSurvivalAnalysis(ties="breslow", tol=1e-12).fit(s[:, None], Surv.from_arrays(e, t))
    assert cal.coef == pytest.approx(ref.coef_[0], rel=1e-6)
    np.testing.assert_allclose(cal.unique_times, ref.unique_times_)
    np.testing.assert_allclose(np.exp(-cal.cumulative_hazard(s[:20])),
                               ref.predict_survival_function(s[:20, None], return_array=True), atol=1e-6)


def test_scores_far_from_zero_give_the_curves_of_the_centred_scores():
    s, t, e = _data(5)
    near, far = fit_breslow(s, t, e), fit_breslow(s - 1e4, t, e)
    assert far.coef == pytest.approx(near.coef, rel=1e-9)
    np.testing.assert_allclose(far.cumulative_hazard(s[:10] - 1e4), near.cumulative_hazard(s[:10]), rtol=1e-8)
    assert np.all(np.isfinite(far.cum_baseline_hazard))


def test_step_functions_are_right_continuous_and_start_at_one():
    f = StepFunction(np.array([1.0, 2.0, 4.0]), np.array([0.9, 0.5, 0.2]), before=1.0)
    assert f(0.0) == 1.0 and f(0.999) == 1.0
    np.testing.assert_array_equal(f([1.0, 1.5, 2.0, 3.9, 4.0, 100.0]), [0.9, 0.9, 0.5, 0.5, 0.2, 0.2])
    assert isinstance(f(2.0), float)
    with pytest.raises(ValueError, match="NaN"):
        f([np.nan])


def test_perfectly_ordered_training_scores_warn_that_the_slope_is_unbounded():
    t = np.arange(1.0, 21.0)
    e = np.ones(20, dtype=bool)
    cal = fit_breslow(-t, t, e)  # the earliest event always has the highest score
    assert not cal.converged
    model = CoxPH.__new__(CoxPH)
    with pytest.warns(ConvergenceWarning, match="without bound"):
        model._calibrate(-t, t, e)


def test_perfectly_ordering_kernel_scores_give_finite_ordered_curves():
    """An RBF LP Ranker with a narrow kernel orders its training events perfectly, with scores
    spread so far that exp(β̂ s) overflowed: the baseline hazard was NaN, the survival functions NaN,
    and numpy's overflow warning reached the user. Only the calibration's warning is issued now, and
    the curves are finite, never increase, and are ordered by the risk scores."""
    from aucopt import SurvivalLPRanker

    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 4))
    y = survival_target(rng.random(120) < 0.7, rng.exponential(np.exp(-X[:, 0])))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = SurvivalLPRanker(gamma=50.0, method="full").fit(X, y)
    assert [type(w.message) for w in caught] == [ConvergenceWarning]
    cal = model.calibration_
    assert not cal.converged and np.isfinite(cal.cum_baseline_hazard).all()
    assert np.all(np.diff(cal.cum_baseline_hazard) >= 0)
    scores = model.predict(X)
    assert np.max(np.abs(cal.coef * (scores - cal.centre))) == pytest.approx(200.0)  # the largest representable
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        S = model.predict_survival_function(X, return_array=True)
    assert np.isfinite(S).all() and S.max() <= 1.0 and S.min() >= 0.0
    assert np.all(np.diff(S, axis=1) <= 0)
    assert np.all(np.diff(S[np.argsort(scores)], axis=0) <= 0)  # a higher risk score survives less, at every time


@pytest.mark.parametrize("beta", [0.0, 0.7, -3.0, 900.0])
def test_log_risk_set_totals_are_the_log_sums_of_each_risk_set(beta):
    """Against scipy's logsumexp over each risk set (a prefix of the descending order), also at a β
    where the plain sums overflow and underflow to 0."""
    from scipy.special import logsumexp

    from aucopt._breslow_kernels import log_risk_set_totals, tie_groups

    s, t, e = _data(5, n=200)
    w = np.random.default_rng(5).integers(0, 3, len(s)).astype(float)
    order = np.argsort(-t)
    z, wd = s[order] - s.mean(), w[order]
    _, group_end, _, _ = tie_groups(t[order], e[order], w[order], z)
    got = log_risk_set_totals(z, wd, group_end, beta)
    expected = [logsumexp(beta * z[: end + 1], b=wd[: end + 1]) if wd[: end + 1].any() else -np.inf
                for end in group_end]
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def _cox_data(n=150, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    t = np.round(rng.exponential(np.exp(-X[:, 0])), 2) + 0.01
    return X, survival_target(rng.random(n) < 0.7, t)


def test_cox_survival_functions_equal_lifelines():
    pd = pytest.importorskip("pandas")
    pytest.importorskip("lifelines")
    X, y = _cox_data()
    model = CoxPH().fit(X, y)
    frame = pd.DataFrame(X[:10], columns=["x0", "x1", "x2"])
    expected = model.fitter_.predict_survival_function(frame, times=model.unique_times_).to_numpy().T
    np.testing.assert_allclose(model.predict_survival_function(X[:10], return_array=True), expected, atol=1e-10)
    np.testing.assert_allclose(model.predict_median_survival_time(X[:10]),
                               model.fitter_.predict_median(frame).to_numpy())
    functions = model.predict_survival_function(X[:3])
    np.testing.assert_allclose([f(model.unique_times_) for f in functions], expected[:3], atol=1e-10)
    hazards = model.predict_cumulative_hazard_function(X[:3], return_array=True)
    np.testing.assert_allclose(np.exp(-hazards), expected[:3], atol=1e-10)


def test_survival_functions_through_a_pipeline_and_after_grid_search():
    pytest.importorskip("lifelines")
    X, y = _cox_data()
    pipe = make_pipeline(StandardScaler(), CoxPH()).fit(X, y)
    direct = pipe[-1].predict_survival_function(pipe[0].transform(X[:5]), return_array=True)
    np.testing.assert_allclose(pipe.predict_survival_function(X[:5], return_array=True), direct)
    assert not hasattr(make_pipeline(StandardScaler()).fit(X), "predict_survival_function")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = GridSearchCV(make_pipeline(StandardScaler(), CoxPH()), {"coxph__alpha": [0.0, 0.1]},
                              cv=KFold(3)).fit(X, y)
    curves = search.best_estimator_.predict_survival_function(X[:4], return_array=True)
    assert curves.shape == (4, len(search.best_estimator_[-1].unique_times_))
    assert np.all(np.diff(curves, axis=1) <= 0) and np.all((curves > 0) & (curves <= 1))


def _survival_rankers():
    from aucopt import SurvivalAUCSVM, SurvivalLPRanker, SurvivalRankRC, SurvivalRankSVM, SurvivalSparseAUC

    return [SurvivalRankSVM(alpha=1.0), SurvivalRankRC(alpha=1.0, gamma=0.5), SurvivalLPRanker(C=0.1, gamma=0.5),
            SurvivalAUCSVM(C=0.1), SurvivalSparseAUC(basis_size=10, random_state=0)]


@pytest.mark.parametrize("model", _survival_rankers(), ids=lambda m: type(m).__name__)
def test_every_survival_ranker_gives_the_cox_calibration_of_its_training_scores(model):
    pytest.importorskip("sksurv")
    from sksurv.linear_model import CoxPHSurvivalAnalysis
    from sksurv.util import Surv

    X, y = _cox_data(n=120, seed=1)
    X = StandardScaler().fit_transform(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    scores = model.predict(X)
    ref = CoxPHSurvivalAnalysis(ties="breslow", tol=1e-12).fit(scores[:, None], Surv.from_arrays(y["event"], y["time"]))
    assert model.calibration_.coef == pytest.approx(ref.coef_[0], rel=1e-6)
    np.testing.assert_allclose(model.predict_survival_function(X[:15], return_array=True),
                               ref.predict_survival_function(scores[:15, None], return_array=True), atol=1e-6)
    np.testing.assert_allclose(model.predict_cumulative_hazard_function(X[:15], return_array=True),
                               ref.predict_cumulative_hazard_function(scores[:15, None], return_array=True),
                               atol=1e-6)
    median = model.predict_median_survival_time(X[:15])
    curves = model.predict_survival_function(X[:15])
    for m, f in zip(median, curves, strict=True):  # the first training time with S ≤ ½
        if np.isfinite(m):
            assert f(m) <= 0.5 < f(np.nextafter(m, 0))


def test_zero_weight_rows_leave_the_calibration_as_if_removed():
    from aucopt import SurvivalRankSVM

    X, y = _cox_data(n=100, seed=2)
    w = np.ones(len(y))
    w[::4] = 0
    weighted = SurvivalRankSVM(alpha=1.0).fit(X, y, sample_weight=w)
    removed = SurvivalRankSVM(alpha=1.0).fit(X[w > 0], y[w > 0])
    assert weighted.calibration_.coef == pytest.approx(removed.calibration_.coef, rel=1e-8)
    np.testing.assert_allclose(weighted.predict_survival_function(X, return_array=True),
                               removed.predict_survival_function(X, return_array=True), atol=1e-10)


@pytest.mark.parametrize("beta", [0.0, 0.7, -3.0, 900.0])
def test_compiled_likelihood_pass_equals_the_numpy_sums(beta):
    """The one-pass kernel against cumulative sums read at the tie-group ends; a β so large that
    exp underflows in whole risk sets gives numpy's −inf / nan (the damped Newton step then halves)
    instead of an exception."""
    from aucopt._breslow_kernels import partial_likelihood_sums, tie_groups

    s, t, e = _data(5, n=200)
    w = np.random.default_rng(5).integers(0, 3, len(s)).astype(float)
    order = np.argsort(-t)
    z, wd = s[order] - s.mean(), w[order]
    unique_times, group_end, d, _ = tie_groups(t[order], e[order], w[order], z)
    np.testing.assert_array_equal(unique_times, np.unique(t))
    np.testing.assert_array_equal(d, [np.sum((w * e)[t == u]) for u in unique_times[::-1]])
    shift = max(beta * z.max(), beta * z.min())
    with np.errstate(all="ignore"):
        r = wd * np.exp(beta * z - shift)
        m0, m1, m2 = (np.cumsum(r * z**p)[group_end] for p in range(3))
        keep = d > 0
        mean = m1[keep] / m0[keep]
        expected = (d[keep] @ (np.log(m0[keep]) + shift), d[keep] @ mean,
                    d[keep] @ (m2[keep] / m0[keep] - mean * mean))
    got = partial_likelihood_sums(z, wd, group_end, d, beta, shift)
    np.testing.assert_allclose(got, expected, rtol=1e-10)
    assert np.isfinite(got).all() == (beta != 900.0)


@pytest.mark.parametrize("weighted", [False, True])
def test_the_compiled_sort_and_gathers_of_large_samples_give_the_same_calibration(weighted, monkeypatch):
    """From 65,536 subjects on the calibration sorts and reorders by the pair sets' compiled kernels
    (two threads); with that threshold lowered to 0 the calibration is the same to the bit, the
    times read from a structured survival target (a strided view) included."""
    import aucopt.pairs._survival

    rng = np.random.default_rng(4)
    n = 400
    y = survival_target(rng.random(n) < 0.6, np.round(rng.exponential(size=n), 1))  # tied times
    event, time = y["event"], y["time"]
    scores, w = rng.normal(size=n), (rng.integers(1, 4, n).astype(float) if weighted else None)
    numpy = fit_breslow(scores, time, event, w)
    monkeypatch.setattr(aucopt.pairs._survival, "PACKED_SORT_FROM", 0)
    compiled = fit_breslow(scores, time, event, w)
    assert compiled.coef == numpy.coef and compiled.centre == numpy.centre
    assert np.array_equal(compiled.unique_times, numpy.unique_times)
    assert np.array_equal(compiled.cum_baseline_hazard, numpy.cum_baseline_hazard)


@pytest.mark.parametrize("weighted", [False, True])
def test_a_subsample_start_reaches_the_same_calibration_in_fewer_passes(weighted, monkeypatch):
    """From about 4 × 65,536 subjects on the ascent starts from β̂ of every k-th subject in time
    order; with that threshold lowered, the slope and baseline equal those of the ascent from 0
    (to the Newton tolerance) and the passes over all the subjects are fewer."""
    import aucopt._breslow as breslow

    s, t, e = _data(5, n=3000)
    w = np.random.default_rng(5).integers(1, 4, len(s)).astype(float) if weighted else None
    passes = []
    count = breslow._PartialLikelihood.__call__

    def counted(self, beta):
        passes.append(len(self.z))
        return count(self, beta)

    monkeypatch.setattr(breslow._PartialLikelihood, "__call__", counted)
    from_zero = fit_breslow(s, t, e, w)
    full_from_zero = passes.count(len(s))
    passes.clear()
    monkeypatch.setattr(breslow, "_SUBSAMPLE", 300)
    started = fit_breslow(s, t, e, w)
    assert len(passes) > passes.count(len(s))  # the subsample's ascent ran
    assert passes.count(len(s)) < full_from_zero
    assert started.converged and started.coef == pytest.approx(from_zero.coef, rel=1e-10)
    np.testing.assert_allclose(started.cum_baseline_hazard, from_zero.cum_baseline_hazard, rtol=1e-9)
