"""Censoring-aware training: ``pair_options={"weights": "ipcw"}`` (Uno's weights, ``tau``) and
``pair_options={"horizon": τ}`` on every survival estimator and solver route.

The IPCW pairs stay in sorted storage (anchor weights); each fit must equal the fit on the same
weights given explicitly: the user's pair-weight array on Harrell's pairs, or the pair set
listed (explicit storage). Objectives agree to 1e-8 (relative), scores to a tolerance of the
route.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
import pytest

from aucopt import (
    PairSet,
    SurvivalAUCSVM,
    SurvivalLPRanker,
    SurvivalRankRC,
    SurvivalRankSVM,
    SurvivalSparseAUC,
    survival_target,
)
from aucopt.exceptions import NoComparablePairsError
from aucopt.metrics import uno_c


def _data(n=70, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    t = rng.exponential(np.exp(-X[:, 0]))
    c = rng.exponential(1.5, n)
    event, time = t <= c, np.minimum(t, c).round(2) + 0.01  # rounded: tied times
    last = np.argmax(time)
    time[last], event[last] = time.max() + 0.5, False  # Ĝ > 0 at every event
    return X, survival_target(event, time)


X, Y = _data()
TAU = float(np.quantile(Y["time"], 0.6))
HORIZON = float(np.quantile(Y["time"][Y["event"]], 0.5))

# (factory, whether the scores are unique: the Newton and QP routes; LP optima need not be)
ESTIMATORS = {
    "SurvivalRankSVM": (lambda po: SurvivalRankSVM(pair_options=po), True),
    "SurvivalRankRC": (lambda po: SurvivalRankRC(pair_options=po), True),
    "SurvivalLPRanker-full": (lambda po: SurvivalLPRanker(method="full", pair_options=po), False),
    "SurvivalLPRanker-smoothing": (lambda po: SurvivalLPRanker(method="smoothing", pair_options=po), False),
    "SurvivalLPRanker-generation": (lambda po: SurvivalLPRanker(method="generation", pair_options=po), False),
    "SurvivalLPRanker-chunking": (lambda po: SurvivalLPRanker(method="chunking", pair_options=po), False),
    "SurvivalLPRanker-subgradient": (lambda po: SurvivalLPRanker(method="subgradient", max_iter=200,
                                                                 pair_options=po), False),
    "SurvivalAUCSVM-full": (lambda po: SurvivalAUCSVM(method="full", pair_options=po), True),
    "SurvivalAUCSVM-dcd": (lambda po: SurvivalAUCSVM(method="dcd", pair_options=po), True),
    "SurvivalAUCSVM-liblinear": (lambda po: SurvivalAUCSVM(kernel="linear", method="liblinear", pair_options=po),
                                 True),
    # 20 candidates per greedy step (the default 100 would try every row of these 70): both fits draw the same ones
    "SurvivalSparseAUC": (lambda po: SurvivalSparseAUC(validation_fraction=0, basis_size=15, kappa=20, pair_options=po),
                          True),
}


def _fit(model, X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # route advice, iteration limits: the same on both sides
        return model.fit(X, y, **kw)


def _assert_same_fit(a, b, X, unique_scores):
    assert a.objective_ == pytest.approx(b.objective_, rel=1e-8)
    if unique_scores:
        fa, fb = a.predict(X), b.predict(X)
        np.testing.assert_allclose(fa, fb, rtol=0, atol=1e-6 * np.abs(fb).max())


def uno_pair_weights(y, tau=None, sample_weight=None):
    """Uno's weight of every Harrell pair of ``y`` (to_arrays order), 0 past tau: the array form."""
    i, _, _ = PairSet.survival(y).to_arrays()
    a = PairSet.survival(y, weights="ipcw", point_weights=sample_weight).anchor_weights
    u = a[i]
    if tau is not None:
        u = np.where(y["time"][i] < tau, u, 0.0)
    return u


def listed_twin(model):
    """The same estimator, fitted on its pair set listed (explicit storage, the same signs)."""
    base = type(model)

    class Listed(base):
        def _make_pairs(self, y, sample_weight, rows=None):
            pairs = super()._make_pairs(y, sample_weight, rows)
            i, j, w = pairs.to_arrays(None)
            listed = PairSet.from_arrays(i, j, w, n_points=pairs.n_points, signs=pairs.signs, target=pairs.target)
            return replace(listed, event=pairs.event, time=pairs.time)

    Listed.__name__ = base.__name__
    return Listed(**model.get_params())


# ============================================================================ Uno's weights
@pytest.mark.parametrize("tau", [None, TAU])
@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_ipcw_fit_equals_fit_on_explicit_weights(name, tau):
    make, unique_scores = ESTIMATORS[name]
    options = {"weights": "ipcw"} if tau is None else {"weights": "ipcw", "tau": tau}
    ipcw = _fit(make(options), X, Y)
    explicit = _fit(make({"weights": uno_pair_weights(Y, tau)}), X, Y)
    _assert_same_fit(ipcw, explicit, X, unique_scores)
    assert ipcw.n_pairs_ <= explicit.n_pairs_  # truncated pairs are left out, not weighted 0


@pytest.mark.parametrize("name", ["SurvivalRankSVM", "SurvivalRankRC", "SurvivalAUCSVM-full", "SurvivalSparseAUC"])
def test_ipcw_with_sample_weight(name):
    make, unique_scores = ESTIMATORS[name]
    sw = np.random.default_rng(1).uniform(0.5, 2.0, len(Y))
    ipcw = _fit(make({"weights": "ipcw"}), X, Y, sample_weight=sw)
    explicit = _fit(make({"weights": uno_pair_weights(Y, sample_weight=sw)}), X, Y, sample_weight=sw)
    _assert_same_fit(ipcw, explicit, X, unique_scores)


def test_integer_sample_weights_equal_repeated_rows():
    """Ĝ is the weighted Kaplan–Meier estimate: a weight k is the row repeated k times."""
    sw = np.random.default_rng(2).integers(1, 4, len(Y)).astype(float)
    rep = np.repeat(np.arange(len(Y)), sw.astype(int))
    for options in ({"weights": "ipcw"}, {"weights": "ipcw", "tau": TAU}, {"horizon": HORIZON, "weights": "ipcw"}):
        weighted = _fit(SurvivalRankSVM(pair_options=options), X, Y, sample_weight=sw)
        repeated = _fit(SurvivalRankSVM(pair_options=options), X[rep], Y[rep])
        _assert_same_fit(weighted, repeated, X, True)


def test_zero_weight_rows_are_left_out_of_the_censoring_estimate():
    sw = np.ones(len(Y))
    sw[::4] = 0.0
    keep = sw > 0
    for options in ({"weights": "ipcw"}, {"horizon": HORIZON, "weights": "ipcw"}):
        for make in (lambda: SurvivalRankSVM(pair_options=options), lambda: SurvivalRankRC(pair_options=options)):
            with_zeros = _fit(make(), X, Y, sample_weight=sw)
            subset = _fit(make(), X[keep], Y[keep])
            _assert_same_fit(with_zeros, subset, X, True)


def test_ipcw_pairs_reproduce_uno_c_on_fitted_scores():
    model = _fit(SurvivalRankSVM(pair_options={"weights": "ipcw"}), X, Y)
    risk = model.predict(X)
    pairs = PairSet.survival(Y, weights="ipcw")
    i, j, w = pairs.to_arrays()
    frac = np.dot(w, (risk[i] > risk[j]) + 0.5 * (risk[i] == risk[j])) / w.sum()
    assert frac == pytest.approx(uno_c(Y, Y, risk, tied_tol=0.0), abs=1e-12)


# ============================================================================ horizon pairs
@pytest.mark.parametrize("ipcw", [False, True])
@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_horizon_fit_equals_fit_on_listed_pairs(name, ipcw):
    make, unique_scores = ESTIMATORS[name]
    options = {"horizon": HORIZON, **({"weights": "ipcw"} if ipcw else {})}
    model = make(options)
    sorted_fit = _fit(model, X, Y)
    listed_fit = _fit(listed_twin(model), X, Y)
    _assert_same_fit(sorted_fit, listed_fit, X, unique_scores)
    case, control = Y["event"] & (Y["time"] <= HORIZON), Y["time"] > HORIZON
    assert sorted_fit.n_pairs_ == case.sum() * control.sum()


def test_horizon_ipcw_equals_weights_on_harrell_pairs_for_the_linear_ranker():
    """Horizon pairs are Harrell pairs: zero weight elsewhere gives the same linear fit."""
    i, j, _ = PairSet.survival(Y).to_arrays()
    g = PairSet.survival(Y, horizon=HORIZON, weights="ipcw").anchor_weights
    t, e = Y["time"], Y["event"]
    u = np.where(e[i] & (t[i] <= HORIZON) & (t[j] > HORIZON), g[i], 0.0)
    horizon = _fit(SurvivalRankSVM(pair_options={"horizon": HORIZON, "weights": "ipcw"}), X, Y)
    explicit = _fit(SurvivalRankSVM(pair_options={"weights": u}), X, Y)
    _assert_same_fit(horizon, explicit, X, True)


def test_validation_split_estimates_the_censoring_on_the_fitting_rows():
    for options in ({"weights": "ipcw"}, {"horizon": HORIZON, "weights": "ipcw"}):
        model = SurvivalSparseAUC(validation_fraction=0.25, basis_size=10, kappa=20, pair_options=options)
        _assert_same_fit(_fit(model, X, Y), _fit(listed_twin(model), X, Y), X, True)


def test_cross_validation_with_ipcw_pairs_and_uno_scorer():
    from sklearn.model_selection import KFold, cross_val_score

    from aucopt.metrics import uno_c_scorer

    model = SurvivalRankSVM(pair_options={"weights": "ipcw", "tau": TAU})
    scores = cross_val_score(model, X, Y, cv=KFold(3), scoring=uno_c_scorer(tau=TAU))
    assert scores.shape == (3,) and np.all((scores > 0) & (scores <= 1))


# ============================================================================ refusals
@pytest.mark.parametrize("options, error, match", [
    ({"weights": "ipcw", "tau": 0}, ValueError, "tau must be a positive finite time"),
    ({"weights": "ipcw", "tau": -2.0}, ValueError, "tau must be a positive finite time"),
    ({"tau": 1.0}, ValueError, "pass weights='ipcw' with it"),
    ({"weights": "ipcw", "variant": "lprex"}, ValueError, "does not combine with variant='lprex'"),
    ({"weights": "ipcw", "time_weight": "log"}, ValueError, "does not combine with time_weight"),
    ({"weights": "IPCW"}, ValueError, "weights must be 'ipcw'"),
    ({"horizon": 1e6}, NoComparablePairsError, "no control"),
    ({"horizon": 0.005}, NoComparablePairsError, "no case"),
    ({"horizon": -1.0}, ValueError, "horizon must be a positive finite time"),
    ({"horizon": 1.0, "variant": "lprex"}, ValueError, "does not combine with variant"),
    ({"horizon": 1.0, "tau": 2.0}, ValueError, "does not combine with tau"),
    ({"horizon_": 1.0}, ValueError, "unknown"),
])
def test_errors(options, error, match):
    with pytest.raises(error, match=match):
        SurvivalRankSVM(pair_options=options).fit(X, Y)


def test_infinite_weight_is_refused_with_the_truncation_fix():
    y = Y.copy()
    last = np.argmax(y["time"])
    other = np.flatnonzero(y["event"])[0]
    y["time"][other] = y["time"][last]  # an event tied with the censoring at the largest time: Ĝ = 0 there
    with pytest.raises(ValueError, match="Truncate with tau"):
        SurvivalRankSVM(pair_options={"weights": "ipcw"}).fit(X, y)
    SurvivalRankSVM(pair_options={"weights": "ipcw", "tau": TAU}).fit(X, y)
