"""Censoring-aware survival metrics: Uno's C, the cumulative/dynamic AUC(t), the Brier score.

Oracles: brute-force double loops written from the definitions (Uno et al. 2011; Uno et al.
2007 / Hung & Chiang 2010; Graf et al. 1999, with the censoring Kaplan–Meier estimate Ĝ computed
from its product-limit definition), and scikit-survival's ``concordance_index_ipcw``,
``cumulative_dynamic_auc``, ``brier_score`` and ``integrated_brier_score`` (GPL: a test oracle
only, skipped when it is not installed).
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from hypothesis import event as hypothesis_event
from hypothesis import given, settings
from hypothesis import strategies as st

from aucopt import survival_target
from aucopt.exceptions import NoComparablePairsError
from aucopt.metrics import (
    CensoringSurvival,
    brier_score,
    censoring_survival,
    cumulative_dynamic_auc,
    harrell_c,
    integrated_brier_score,
    roc_auc,
    uno_c,
    uno_c_scorer,
)

TOL = 1e-10
SETTINGS = settings(max_examples=120, deadline=None, derandomize=True)


# ----------------------------------------------------------------------------- brute force
def brute_censoring_survival(event, time, s):
    """Ĝ(s) = Π_{u ≤ s} (1 − #censored at u / (#time ≥ u − #events at u)); None when unknown."""
    event, time = np.asarray(event, bool), np.asarray(time, float)
    if s > time.max():
        last = brute_censoring_survival(event, time, time.max())
        return 0.0 if last == 0.0 else None
    g = 1.0
    for u in np.unique(time):
        if u > s:
            break
        at_risk = int(np.sum(time >= u)) - int(np.sum((time == u) & event))
        censored = int(np.sum((time == u) & ~event))
        if at_risk > 0:
            g *= 1.0 - censored / at_risk
    return g


class Refused(Exception):
    """The definition needs 1/Ĝ where Ĝ is 0 or unknown, or has no pair / no case."""


def _weight(train, s, power):
    g = brute_censoring_survival(*train, s)
    if g is None or g == 0.0:
        raise Refused
    return g ** -power


def _credit(ri, rj, tol):
    return 1.0 if ri - rj > tol else (0.5 if abs(ri - rj) <= tol else 0.0)


def brute_uno_c(train, test, risk, tau=np.inf, tied_tol=1e-8):
    event, time = np.asarray(test[0], bool), np.asarray(test[1], float)
    risk = np.asarray(risk, float)
    tol = tied_tol * np.max(np.abs(risk))
    num = den = 0.0
    for i in range(len(time)):
        if not event[i] or time[i] >= tau:
            continue
        partners = [j for j in range(len(time)) if time[i] < time[j] or (time[i] == time[j] and not event[j])]
        if not partners:
            continue
        w = _weight(train, time[i], 2)
        for j in partners:
            den += w
            num += w * _credit(risk[i], risk[j], tol)
    if den == 0:
        raise Refused
    return num / den


def brute_auc_at(train, test, risk, t, tied_tol=1e-8):
    event, time = np.asarray(test[0], bool), np.asarray(test[1], float)
    risk = np.asarray(risk, float)
    tol = tied_tol * np.max(np.abs(risk))
    cases = [i for i in range(len(time)) if event[i] and time[i] <= t]
    controls = [j for j in range(len(time)) if time[j] > t]
    if not cases or not controls:
        raise Refused
    num = den = 0.0
    for i in cases:
        w = _weight(train, time[i], 1)
        for j in controls:
            den += w
            num += w * _credit(risk[i], risk[j], tol)
    return num / den


def brute_km(event, time, s):
    surv = 1.0
    for u in np.unique(time):
        if u <= s:
            surv *= 1.0 - np.sum((time == u) & event) / np.sum(time >= u)
    return surv


def brute_mean_auc(test, aucs, times):
    event, time = np.asarray(test[0], bool), np.asarray(test[1], float)
    if len(times) == 1:
        return aucs[0]
    surv = np.array([brute_km(event, time, t) for t in times])
    drops = -np.diff(np.r_[1.0, surv])
    return float(np.sum(np.asarray(aucs) * drops) / (1.0 - surv[-1]))


def brute_brier_at(train, test, surv_t, t):
    event, time = np.asarray(test[0], bool), np.asarray(test[1], float)
    total = 0.0
    for i in range(len(time)):
        if event[i] and time[i] <= t:
            total += surv_t[i] ** 2 * _weight(train, time[i], 1)
        elif time[i] > t:
            total += (1.0 - surv_t[i]) ** 2 * _weight(train, t, 1)
    return total / len(time)


# ----------------------------------------------------------------------------- strategies
@st.composite
def survival_data(draw, min_size=2, max_size=24, n_times=7):
    m = draw(st.integers(min_size, max_size))
    time = draw(st.lists(st.integers(1, n_times), min_size=m, max_size=m))
    event = draw(st.lists(st.booleans(), min_size=m, max_size=m))
    return np.array(event, bool), np.array(time, float)


@st.composite
def training_targets(draw, test):
    """The test target itself, another target, or another one followed beyond every test time."""
    kind = draw(st.sampled_from(["same", "other", "covering"]))
    if kind == "same":
        return test
    event, time = draw(survival_data(min_size=1))
    if kind == "covering":  # a last event at 8 > any test time: Ĝ is known and positive everywhere
        event, time = np.r_[event, True], np.r_[time, 8.0]
    return event, time


@st.composite
def risks(draw, m):
    if draw(st.booleans()):  # integer-valued: exact ties
        return np.array(draw(st.lists(st.integers(-3, 3), min_size=m, max_size=m)), float)
    return np.array(draw(st.lists(st.floats(-5, 5, allow_nan=False, width=32), min_size=m, max_size=m)), float)


# ----------------------------------------------------------------------------- Ĝ
@SETTINGS
@given(survival_data(min_size=1), st.lists(st.floats(0, 9, allow_nan=False), min_size=1, max_size=8))
def test_censoring_survival_equals_its_definition(train, points):
    g = censoring_survival(train)
    assert isinstance(g, CensoringSurvival)
    got = g.at(points)
    for s, value in zip(points, got, strict=False):
        expected = brute_censoring_survival(*train, s)
        if expected is None:
            assert np.isnan(value)
        else:
            assert value == pytest.approx(expected, abs=1e-13)


def test_censoring_survival_without_censoring_is_one():
    g = censoring_survival(([True, True, True], [1.0, 2.0, 2.0]))
    assert g.at([0.0, 1.0, 2.0]).tolist() == [1.0, 1.0, 1.0]
    assert np.isnan(g.at(2.5))  # nobody followed beyond 2: unknown


# ----------------------------------------------------------------------------- Uno's C vs brute force
@SETTINGS
@given(st.data())
def test_uno_c_equals_double_loop(data):
    test = data.draw(survival_data())
    train = data.draw(training_targets(test))
    risk = data.draw(risks(len(test[1])))
    tau = data.draw(st.one_of(st.none(), st.floats(0.5, 8.0)))
    tied_tol = data.draw(st.sampled_from([1e-8, 0.0, 0.3]))
    try:
        expected = brute_uno_c(train, test, risk, np.inf if tau is None else tau, tied_tol)
    except Refused:
        hypothesis_event("refused (Ĝ = 0 or unknown where needed, or no pair / case)")
        with pytest.raises(ValueError):
            uno_c(train, test, risk, tau, tied_tol=tied_tol)
        return
    assert uno_c(train, test, risk, tau, tied_tol=tied_tol) == pytest.approx(expected, abs=1e-12)


@SETTINGS
@given(st.data())
def test_cumulative_dynamic_auc_equals_double_loop(data):
    test = data.draw(survival_data(min_size=3))
    _event, time = test
    train = data.draw(training_targets(test))
    two_d = data.draw(st.booleans())
    times = sorted(set(data.draw(st.lists(st.floats(float(time.min()), float(time.max()), exclude_max=True),
                                          min_size=1, max_size=4)))) if time.min() < time.max() else [0.5]
    risk = np.column_stack([data.draw(risks(len(time))) for _ in times]) if two_d else data.draw(risks(len(time)))
    try:
        if time.min() >= time.max():
            raise Refused
        expected = [brute_auc_at(train, test, risk[:, k] if two_d else risk, t) for k, t in enumerate(times)]
    except Refused:
        hypothesis_event("refused (Ĝ = 0 or unknown where needed, or no pair / case)")
        with pytest.raises(ValueError):
            cumulative_dynamic_auc(train, test, risk, times)
        return
    auc, mean_auc = cumulative_dynamic_auc(train, test, risk, times)
    np.testing.assert_allclose(auc, expected, rtol=0, atol=1e-12)
    assert mean_auc == pytest.approx(brute_mean_auc(test, expected, times), abs=1e-12)


@SETTINGS
@given(st.data())
def test_brier_score_equals_loop(data):
    test = data.draw(survival_data(min_size=3))
    _event, time = test
    if time.min() >= time.max():
        return
    train = data.draw(training_targets(test))
    times = sorted(set(data.draw(st.lists(st.floats(float(time.min()), float(time.max()), exclude_max=True),
                                          min_size=2, max_size=4))))
    surv = np.array(data.draw(st.lists(st.floats(0, 1), min_size=len(time) * len(times),
                                       max_size=len(time) * len(times)))).reshape(len(time), len(times))
    try:
        expected = [brute_brier_at(train, test, surv[:, k], t) for k, t in enumerate(times)]
    except Refused:
        hypothesis_event("refused (Ĝ = 0 or unknown where needed, or no pair / case)")
        with pytest.raises(ValueError, match="Ĝ"):
            brier_score(train, test, surv, times)
        return
    got_times, scores = brier_score(train, test, surv, times)
    np.testing.assert_array_equal(got_times, times)
    np.testing.assert_allclose(scores, expected, rtol=0, atol=1e-12)
    if len(times) >= 2:
        area = sum((times[k + 1] - times[k]) * (expected[k] + expected[k + 1]) / 2 for k in range(len(times) - 1))
        assert integrated_brier_score(train, test, surv, times) == pytest.approx(
            area / (times[-1] - times[0]), abs=1e-12)


# ----------------------------------------------------------------------------- special cases
def test_uno_c_without_censoring_is_harrell_c():
    rng = np.random.default_rng(3)
    time = rng.integers(1, 20, 300).astype(float)
    event = np.ones(300, bool)
    risk = rng.integers(0, 6, 300).astype(float)
    assert uno_c((event, time), (event, time), risk) == pytest.approx(harrell_c((event, time), risk), abs=1e-15)


def test_auc_without_censoring_is_the_roc_auc_of_cases_and_controls():
    rng = np.random.default_rng(4)
    time = rng.exponential(size=200)
    event = np.ones(200, bool)
    risk = rng.normal(size=200) - time
    t = float(np.median(time))
    auc, _ = cumulative_dynamic_auc((event, time), (event, time), risk, t)
    assert auc[0] == pytest.approx(roc_auc(time <= t, risk), abs=1e-14)


def test_uno_c_is_invariant_to_rescaling_and_row_order():
    rng = np.random.default_rng(5)
    time = rng.integers(1, 15, 150).astype(float)
    event = rng.random(150) < 0.4
    event[time == time.max()] = False
    risk = rng.normal(size=150)
    value = uno_c((event, time), (event, time), risk, tau=10)
    perm = rng.permutation(150)
    assert uno_c((event, time), (event[perm], time[perm]), 1e-9 * risk[perm], tau=10) == pytest.approx(value, abs=1e-14)


def test_needless_refusal_of_scikit_survival_is_avoided():
    # the last test event ties a censored training sample at the largest time, so Ĝ = 0 there;
    # it enters no AUC case (t < max) and Uno's C pairs only through the censored sample at 6
    event = np.array([True, False, True, True, True, False])
    time = np.array([1.0, 2.0, 3.0, 4.0, 6.0, 6.0])
    risk = np.array([0.9, 0.4, 0.5, 0.6, 0.2, 0.1])
    auc, _ = cumulative_dynamic_auc((event, time), (event, time), risk, [2.0, 5.0])
    np.testing.assert_allclose(auc, [brute_auc_at((event, time), (event, time), risk, t) for t in (2.0, 5.0)])
    with pytest.raises(ValueError, match="Ĝ estimated from y_train is 0 from time 6"):
        uno_c((event, time), (event, time), risk)  # the event at 6 pairs with the censored sample at 6
    assert uno_c((event, time), (event, time), risk, tau=5) == pytest.approx(
        brute_uno_c((event, time), (event, time), risk, 5), abs=1e-14)


# ----------------------------------------------------------------------------- errors
EVENT = np.array([True, False, True, True, False, True, False])
TIME = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0])
Y = (EVENT, TIME)
RISK = np.array([0.9, 0.4, 0.5, 0.6, 0.2, 0.1, 0.3])


def test_errors_name_the_quantity_and_the_fix():
    with pytest.raises(NoComparablePairsError, match="No comparable pairs before tau=1"):
        uno_c(Y, Y, RISK, tau=1.0)
    with pytest.raises(NoComparablePairsError, match="No comparable pairs"):
        uno_c(Y, (np.zeros(7, bool), TIME), RISK)
    with pytest.raises(ValueError, match="tau must be None"):
        uno_c(Y, Y, RISK, tau=-1)
    with pytest.raises(ValueError, match=r"unknown after its largest time 4 .*tau below"):
        uno_c((EVENT[:4], TIME[:4]), Y, RISK)  # test followed to 7, training to 4
    with pytest.raises(ValueError, match=r"within the follow-up of y_test, \[1, 7\)"):
        cumulative_dynamic_auc(Y, Y, RISK, [2.0, 7.0])
    with pytest.raises(ValueError, match=r"within the follow-up of y_test"):
        brier_score(Y, Y, np.full((7, 1), 0.5), 0.5)
    late_first_event = (np.r_[False, False, EVENT[2:]], TIME)
    with pytest.raises(ValueError, match=r"t=1\.5 has no case.*first event is at 3"):
        cumulative_dynamic_auc(Y, late_first_event, RISK, [1.5, 4.0])
    with pytest.raises(ValueError, match=r"risk has shape \(7, 3\).*\(7, 2\)"):
        cumulative_dynamic_auc(Y, Y, np.zeros((7, 3)), [2.0, 3.0])
    with pytest.raises(ValueError, match="strictly increasing"):
        cumulative_dynamic_auc(Y, Y, np.zeros((7, 2)), [3.0, 2.0])
    with pytest.raises(ValueError, match=r"survival_probabilities has shape \(7, 2\).*\(7, 3\)"):
        brier_score(Y, Y, np.full((7, 2), 0.5), [2.0, 3.0, 4.0])
    with pytest.raises(ValueError, match="strictly increasing"):
        brier_score(Y, Y, np.full((7, 2), 0.5), [3.0, 2.0])
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\].*not risk scores"):
        brier_score(Y, Y, np.column_stack([RISK + 1, RISK]), [2.0, 3.0])
    with pytest.raises(ValueError, match="at least two time points"):
        integrated_brier_score(Y, Y, np.full((7, 1), 0.5), [2.0])
    short = (np.array([True, False, True, False]), np.array([1.0, 2.0, 3.0, 4.0]))  # Ĝ = 0 from 4 on
    with pytest.raises(ValueError, match=r"is 0 from time 4\.5"):
        brier_score(short, Y, np.full((7, 2), 0.5), [2.0, 4.5])


# ----------------------------------------------------------------------------- scorer
def test_uno_c_scorer_uses_the_scored_fold():
    from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

    from aucopt import SurvivalRankSVM

    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 3))
    y = survival_target(rng.random(150) < 0.6, rng.exponential(np.exp(-X[:, 0])))
    scorer = uno_c_scorer(tau=1.0)
    cv = KFold(3)
    scores = cross_val_score(SurvivalRankSVM(), X, y, cv=cv, scoring=scorer)
    for score, (train, test) in zip(scores, cv.split(X), strict=False):
        model = SurvivalRankSVM().fit(X[train], y[train])
        assert score == pytest.approx(uno_c(y[test], y[test], model.predict(X[test]), tau=1.0), abs=1e-14)
    search = GridSearchCV(SurvivalRankSVM(), {"alpha": [1e-3, 1.0]}, cv=cv, scoring=scorer).fit(X, y)
    assert 0.5 < search.best_score_ <= 1.0
    with pytest.raises(ValueError, match="tau"):
        uno_c_scorer(tau=0)


def test_dask_inputs_are_gathered():
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(1)
    time = rng.integers(1, 20, 100).astype(float)
    event = rng.random(100) < 0.5
    event[time == time.max()] = False
    risk = rng.normal(size=100)
    dask_y = (da.from_array(event, chunks=30), da.from_array(time, chunks=30))
    assert uno_c(dask_y, dask_y, da.from_array(risk, chunks=30)) == uno_c((event, time), (event, time), risk)
    auc_dask, _ = cumulative_dynamic_auc(dask_y, (event, time), da.from_array(risk, chunks=40), [5.0])
    np.testing.assert_array_equal(auc_dask, cumulative_dynamic_auc((event, time), (event, time), risk, [5.0])[0])


# ----------------------------------------------------------------------------- scikit-survival as oracle
def _sksurv():
    return pytest.importorskip("sksurv.metrics")


def _compare_with_sksurv(y_train, y_test, risk, times, tau, survival):
    sm = _sksurv()
    from sksurv.util import Surv

    ytr, yte = Surv.from_arrays(*y_train), Surv.from_arrays(*y_test)
    tol = 1e-8 * np.max(np.abs(risk))  # scikit-survival's tolerance is absolute, aucopt's relative
    diffs = {}
    diffs["uno_c"] = abs(uno_c(ytr, yte, risk) - sm.concordance_index_ipcw(ytr, yte, risk, tied_tol=tol)[0])
    diffs["uno_c_tau"] = abs(uno_c(ytr, yte, risk, tau=tau)
                             - sm.concordance_index_ipcw(ytr, yte, risk, tau=tau, tied_tol=tol)[0])
    auc, mean_auc = cumulative_dynamic_auc(ytr, yte, risk, times)
    auc_ref, mean_ref = sm.cumulative_dynamic_auc(ytr, yte, risk, times, tied_tol=tol)
    diffs["auc"] = max(np.max(np.abs(auc - auc_ref)), abs(mean_auc - mean_ref))
    risk_2d = np.column_stack([risk * (1.0 + 0.25 * k) + 0.5 * k * (y_test[1] > times[k]) for k in range(len(times))])
    auc, mean_auc = cumulative_dynamic_auc(ytr, yte, risk_2d, times)
    auc_ref, mean_ref = sm.cumulative_dynamic_auc(ytr, yte, risk_2d, times, tied_tol=tol)
    diffs["auc_2d"] = max(np.max(np.abs(auc - auc_ref)), abs(mean_auc - mean_ref))
    got_times, scores = brier_score(ytr, yte, survival, times)
    ref_times, ref_scores = sm.brier_score(ytr, yte, survival, times)
    np.testing.assert_array_equal(got_times, ref_times)
    diffs["brier"] = np.max(np.abs(scores - ref_scores))
    diffs["ibs"] = abs(integrated_brier_score(ytr, yte, survival, times)
                       - sm.integrated_brier_score(ytr, yte, survival, times))
    return diffs


def _survival_from_risk(y_train, risk, times):
    """Valid survival probabilities: the training Kaplan–Meier curve to the power exp(risk − mean)."""
    event, time = y_train
    base = np.array([brute_km(event, time, t) for t in times])
    return base[None, :] ** np.exp(risk - risk.mean())[:, None]


@functools.cache  # loaded once per data set, not once per parametrization (flchain: 7,874 rows)
def _dataset(name):
    datasets = pytest.importorskip("sksurv.datasets")
    X, y = getattr(datasets, name)()
    numeric = X.select_dtypes("number").dropna(axis=1)
    Z = ((numeric - numeric.mean()) / numeric.std()).to_numpy()
    event, time = y[y.dtype.names[0]].astype(bool), y[y.dtype.names[1]].astype(float)
    arrays = event, time, Z @ np.linspace(1.0, -0.5, Z.shape[1])
    for a in arrays:
        a.flags.writeable = False  # shared by the parametrizations
    return arrays


@pytest.mark.parametrize("name", ["load_whas500", "load_gbsg2", "load_veterans_lung_cancer", "load_flchain"])
@pytest.mark.parametrize("split", [False, True], ids=["train=test", "halves"])
@pytest.mark.parametrize("rounded", [False, True], ids=["continuous", "tied-risks"])
def test_equal_to_scikit_survival_on_its_data_sets(name, split, rounded):
    event, time, risk = _dataset(name)
    if split:  # random halves; the subjects at the largest time train, so Ĝ covers every test time
        train = (np.random.default_rng(0).random(len(time)) < 0.5) | (time == time.max())
    else:
        train = np.ones(len(time), bool)
    test = ~train if split else train
    risk = np.round(risk[test], 1) if rounded else risk[test]
    y_train, y_test = (event[train], time[train]), (event[test], time[test])
    times = np.percentile(time[test][event[test]], [10, 30, 50, 70, 85])
    tau = float(np.percentile(time[test], 80))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-survival's own deprecation warnings
        diffs = _compare_with_sksurv(y_train, y_test, risk, times, tau, _survival_from_risk(y_train, risk, times))
    assert max(diffs.values()) < TOL, diffs


@pytest.mark.parametrize("seed", range(12))
def test_equal_to_scikit_survival_on_random_data_with_ties_and_heavy_censoring(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(40, 400))
    time = rng.integers(1, 25, n).astype(float)
    event = rng.random(n) < rng.choice([0.1, 0.2, 0.5])  # 50 % to 90 % censored
    event[time == time.max()] = False  # scikit-survival refuses when Ĝ = 0 at any test event time
    risk = rng.integers(0, 5, n).astype(float) if seed % 2 else rng.normal(size=n)
    if not event.any() or time[event].min() >= time.max() - 1:
        pytest.skip("too few events for this seed")
    split = seed % 3 == 0
    train = (rng.random(n) < 0.6) | (time == time.max()) if split else np.ones(n, bool)
    test = ~train if split else train
    test_events = time[test][event[test]]
    if len(test_events) < 2:
        pytest.skip("too few test events for this seed")
    times = np.unique(np.clip(np.percentile(test_events, [20, 50, 80]), time[test].min(), time[test].max() - 0.5))
    tau = float(np.percentile(time[test], 70))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        diffs = _compare_with_sksurv((event[train], time[train]), (event[test], time[test]), risk[test], times, tau,
                                     _survival_from_risk((event[train], time[train]), risk[test], times))
    assert max(diffs.values()) < TOL, diffs
