"""Ordinal labels through the estimators, and formulations that read the data given at fit.

* ``pair_options={"target": "multipartite"}``: the binary rankers fit the pairs y_i > y_j
  (``PairSet.multipartite``); their ``score`` is checked against a brute-force multipartite
  C-index (weighted: pairs weigh w_i w_j) and their optimum against the same LP / QP built on
  pairs listed by brute force.
* ``m.labels`` / ``m.levels`` / ``m.event`` / ``m.time`` / ``m.groups``: read by formulations,
  through ``GridSearchCV`` and a ``Pipeline`` (``groups`` by scikit-learn's metadata routing).
* ``formulations/ordinal_margin_lp.py`` against an independent cvxpy model.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
import sklearn
from sklearn.model_selection import GridSearchCV, GroupKFold, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from aucopt import (
    LPRanker,
    Model,
    PairSet,
    RankSVM,
    SurvivalLPRanker,
    get_formulation,
    kernel_matrix,
    solve,
    survival_target,
)
from aucopt.metrics import multipartite_c_index

C = 0.5
GAMMA = 0.4


def ordinal_data(n=40, d=3, seed=0, n_levels=4):
    """Four levels of a noisy linear score, every level present (10 points each)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    latent = X @ np.r_[1.0, -0.6, np.zeros(d - 2)] + 0.6 * rng.normal(size=n)
    y = np.searchsorted(np.quantile(latent, np.arange(1, n_levels) / n_levels), latent)
    return X, y


def brute_pairs(y, w=None):
    """Every (i, j) with y_i > y_j, by two loops, with weight w_i w_j."""
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    pairs = [(i, j) for i in range(len(y)) for j in range(len(y)) if y[i] > y[j]]
    i, j = (np.array(a) for a in zip(*pairs, strict=False))
    return i, j, w[i] * w[j]


def brute_c_index(y, f, w=None):
    """Σ_{y_i > y_j} w_i w_j ([f_i > f_j] + ½ [f_i = f_j]) / Σ_{y_i > y_j} w_i w_j."""
    i, j, pw = brute_pairs(y, w)
    return float(pw @ ((f[i] > f[j]) + 0.5 * (f[i] == f[j])) / pw.sum())


def listed(y, w=None):
    """The brute-force pairs as an explicit pair set (signs: +1 for points above the lowest level)."""
    i, j, pw = brute_pairs(y, w)
    return PairSet.from_arrays(i, j, pw, n_points=len(y))


def lp_objective(problem):
    result = solve(problem, "highs")
    result.raise_for_status()
    return result.objective


# ============================================================================ the estimators on four levels
def test_lp_ranker_multipartite_score_and_objective():
    X, y = ordinal_data()
    est = LPRanker(C=C, gamma=GAMMA, method="full", pair_options={"target": "multipartite"}).fit(X, y)
    np.testing.assert_array_equal(est.classes_, [0, 1, 2, 3])
    f = est.decision_function(X)
    assert est.score(X, y) == pytest.approx(brute_c_index(y, f), abs=1e-12)
    assert est.score(X, y) > 0.9
    rng = np.random.default_rng(3)
    w = rng.integers(0, 4, len(y)).astype(float)
    assert est.score(X, y, sample_weight=w) == pytest.approx(brute_c_index(y, f, w), abs=1e-12)
    assert est.n_pairs_ == len(brute_pairs(y)[0])
    # the optimum of the same LP over the pairs listed by brute force
    K = kernel_matrix(X, gamma=GAMMA)
    assert est.objective_ == pytest.approx(lp_objective(get_formulation("lp_ranker").build(listed(y), K, C=C)),
                                           rel=1e-7)
    # weighted: pairs weigh w_i w_j (zero weights remove rows)
    weighted = LPRanker(C=C, gamma=GAMMA, method="full", pair_options={"target": "multipartite"})
    weighted.fit(X, y, sample_weight=w)
    keep = w > 0
    reference = get_formulation("lp_ranker").build(listed(y[keep], w[keep]), K[np.ix_(keep, keep)], C=C)
    assert weighted.objective_ == pytest.approx(lp_objective(reference), rel=1e-7)


def test_rank_svm_multipartite_score_and_objective():
    X, y = ordinal_data(seed=1)
    alpha = 0.05
    est = RankSVM(alpha=alpha, pair_options={"target": "multipartite"}).fit(X, y)
    f = est.decision_function(X)
    np.testing.assert_allclose(f, X @ est.coef_, rtol=1e-12)  # the scores, no threshold
    assert est.score(X, y) == pytest.approx(brute_c_index(y, f), abs=1e-12)
    w = np.random.default_rng(4).uniform(0.5, 2.0, len(y))
    assert est.score(X, y, sample_weight=w) == pytest.approx(brute_c_index(y, f, w), abs=1e-12)
    # F_α(w) = (1/N) Σ max(0, 1 − (f_i − f_j))² + (α/2)‖w‖² over the brute-force pairs
    i, j, pw = brute_pairs(y)
    F = (pw @ np.maximum(0.0, 1.0 - (f[i] - f[j])) ** 2) / pw.sum() + 0.5 * alpha * est.coef_ @ est.coef_
    assert est.objective_ == pytest.approx(F, rel=1e-10)
    # the QP of the same model over the listed pairs (C = 2/(αN), F_α = α F_C)
    problem = get_formulation("ranksvm_squared_hinge").build(listed(y), X @ X.T, factor=X, C=2.0 / (alpha * pw.sum()))
    result = solve(problem, "clarabel", tol=1e-10)
    result.raise_for_status()
    assert est.objective_ == pytest.approx(alpha * result.objective, rel=1e-6)
    np.testing.assert_allclose(est.coef_, X.T @ problem.output(result.x, "coef"), rtol=0, atol=1e-4)


@pytest.mark.parametrize("make", [lambda: LPRanker(C=C, gamma=GAMMA), lambda: RankSVM(alpha=0.05)],
                         ids=["LPRanker", "RankSVM"])
def test_predict_is_absent_for_ordinal_levels_and_unchanged_for_binary(make):
    X, y = ordinal_data()
    est = make().set_params(pair_options={"target": "multipartite"})
    assert not hasattr(est, "predict")
    est.fit(X, y)
    with pytest.raises(AttributeError, match="no predict: a ranker orders the samples but learns no cut points"):
        est.predict(X)
    binary = make().fit(X, y >= 2)  # the default: bipartite, thresholded predict
    assert binary.predict(X).dtype == bool and hasattr(binary, "threshold_")
    assert binary.score(X, y >= 2) == pytest.approx(brute_c_index((y >= 2).astype(int), binary.decision_function(X)))


def test_levels_option_orders_string_labels_and_counts_absent_levels():
    X, y = ordinal_data()
    levels = ["none", "mild", "moderate", "severe", "critical"]  # "critical" never occurs
    words = np.array(levels)[y]
    est = LPRanker(C=C, gamma=GAMMA, method="full", pair_options={"target": "multipartite", "levels": levels})
    est.fit(X, words)
    np.testing.assert_array_equal(est.classes_, levels)
    coded = LPRanker(C=C, gamma=GAMMA, method="full", pair_options={"target": "multipartite"}).fit(X, y)
    assert est.objective_ == pytest.approx(coded.objective_, rel=1e-9)
    assert est.score(X, words) == pytest.approx(coded.score(X, y), abs=1e-12)
    pairs = PairSet.multipartite(words[y != 1], levels=levels)  # "mild" absent: the index keeps its gap
    assert sorted(set(pairs.labels.tolist())) == [0, 2, 3]
    np.testing.assert_array_equal(pairs.levels[pairs.labels], words[y != 1])


# ============================================================================ what a formulation reads
def test_model_reads_labels_levels_event_time():
    m = Model(PairSet.bipartite(["sick", "well", "well", "sick"], pos_label="sick"))
    assert m.labels.tolist() == [1, 0, 0, 1] and m.levels.tolist() == ["well", "sick"]
    assert m.event is None and m.time is None
    m = Model(PairSet.multipartite([3, 1, 2, 1]))
    assert m.labels.tolist() == [2, 0, 1, 0] and m.levels.tolist() == [1, 2, 3]
    event, time = np.array([True, False, True]), np.array([2.0, 3.0, 1.0])
    for pairs in (PairSet.survival(event, time), PairSet.survival(event, time, variant="lprex")):
        m = Model(pairs)
        assert m.labels is None and m.levels is None
        np.testing.assert_array_equal(m.event, event)
        np.testing.assert_array_equal(m.time, time)
    m = Model(PairSet.from_arrays([0], [1], n_points=2))
    assert m.labels is None and m.event is None
    with pytest.raises(ValueError, match=r"^this formulation reads m\.groups: pass groups=\.\.\. to fit"):
        m.groups  # noqa: B018


def level_margin_lp(m, C=1.0, seen=None):
    """A user formulation: the LP Ranker with margin ℓ_i − ℓ_j read from m.labels."""
    if seen is not None:
        seen.append(m.labels.copy())
    i, j = m.pair_index
    alpha = m.variable("alpha", m.n_basis, lower=0)
    z = m.variable("z", m.n_pairs, lower=0)
    f = m.scores(alpha)
    m.minimize(alpha.sum() + C * (m.pair_weights @ z))
    m.subject_to(m.pair_difference(f) + z >= m.labels[i] - m.labels[j])


def test_formulation_reading_labels_through_grid_search_and_pipeline():
    X, y = ordinal_data(n=36)
    seen = []

    def recording(m, C=1.0):
        return level_margin_lp(m, C, seen)

    ranker = LPRanker(gamma=GAMMA, method="full", formulation=recording, pair_options={"target": "multipartite"})
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    search = GridSearchCV(make_pipeline(StandardScaler(), ranker), {"lpranker__C": [0.1, 1.0]}, cv=cv).fit(X, y)
    assert len(seen) == 2 * 3 + 1  # every fold and candidate, then the refit on all rows
    folds = [train for train, _ in cv.split(X, y)]
    for k, labels in enumerate(seen[:-1]):
        np.testing.assert_array_equal(labels, y[folds[k % 3]])  # the level index of each fitting row
    np.testing.assert_array_equal(seen[-1], y)
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    # the same model as the shipped ordinal_margin_lp
    best = search.best_params_["lpranker__C"]
    shipped = make_pipeline(StandardScaler(), LPRanker(C=best, gamma=GAMMA, method="full",
                                                        formulation="ordinal_margin_lp",
                                                        pair_options={"target": "multipartite"})).fit(X, y)
    assert search.best_estimator_[-1].objective_ == pytest.approx(shipped[-1].objective_, rel=1e-9)
    np.testing.assert_allclose(search.best_estimator_.decision_function(X), shipped.decision_function(X),
                               rtol=1e-6, atol=1e-8)
    assert search.best_estimator_.score(X, y) == pytest.approx(
        multipartite_c_index(y, shipped.decision_function(X)), abs=1e-6)


def group_slack_lp(m, C=1.0, seen=None):
    """A user formulation reading m.groups: the LP Ranker whose pair slacks cost C on pairs within
    a group and 2C across groups."""
    g = m.groups
    if seen is not None:
        seen.append(g.copy())
    i, j = m.pair_index
    alpha = m.variable("alpha", m.n_basis, lower=0)
    z = m.variable("z", m.n_pairs, lower=0)
    f = m.scores(alpha)
    m.minimize(alpha.sum() + C * ((m.pair_weights * np.where(g[i] == g[j], 1.0, 2.0)) @ z))
    m.subject_to(m.pair_difference(f) + z >= 1)


def cvxpy_group_slack(K, signs, i, j, pw, g, C):
    alpha = cp.Variable(K.shape[1], nonneg=True)
    f = K @ cp.multiply(signs, alpha)
    cost = pw * np.where(g[i] == g[j], 1.0, 2.0)
    problem = cp.Problem(cp.Minimize(cp.sum(alpha) + C * cost @ cp.pos(1 - (f[i] - f[j]))))
    problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    return problem.value


def test_formulation_reading_groups_given_at_fit():
    X, y = ordinal_data(n=30)
    y = (y >= 2).astype(int)
    groups = np.arange(len(y)) % 3
    est = LPRanker(C=C, gamma=GAMMA, method="full", formulation=group_slack_lp).fit(X, y, groups=groups)
    K = kernel_matrix(X, gamma=GAMMA)
    pairs = PairSet.bipartite(y)
    i, j, pw = pairs.to_arrays()
    assert est.objective_ == pytest.approx(cvxpy_group_slack(K, pairs.signs, i, j, pw, groups, C), rel=1e-7)
    without = LPRanker(C=C, gamma=GAMMA, method="full", formulation=group_slack_lp)
    message = r"^the formulation 'group_slack_lp' reads m\.groups: pass groups=\.\.\. to fit"
    with pytest.raises(ValueError, match=message):
        without.fit(X, y)
    with pytest.raises(ValueError, match=r"groups must hold one integer per sample \(30\); got shape \(29,\)"):
        without.fit(X, y, groups=groups[:-1])
    with pytest.raises(ValueError, match="groups must hold integer group indices"):
        without.fit(X, y, groups=np.where(groups == 0, "a", "b"))
    # a formulation that does not read them ignores them
    plain = LPRanker(C=C, gamma=GAMMA, method="full")
    assert plain.fit(X, y, groups=groups).objective_ == pytest.approx(plain.fit(X, y).objective_, rel=1e-12)


def test_groups_follow_the_rows_of_positive_weight():
    X, y = ordinal_data(n=30)
    y = (y >= 2).astype(int)
    groups = np.arange(len(y)) % 3
    w = np.ones(len(y))
    w[::4] = 0.0
    seen = []

    def recording(m, C=1.0):
        return group_slack_lp(m, C, seen)

    weighted = LPRanker(C=C, gamma=GAMMA, method="full", formulation=recording).fit(X, y, sample_weight=w,
                                                                                  groups=groups)
    np.testing.assert_array_equal(seen[-1], groups[w > 0])
    keep = w > 0
    removed = LPRanker(C=C, gamma=GAMMA, method="full", formulation=recording).fit(X[keep], y[keep],
                                                                                 groups=groups[keep])
    assert weighted.objective_ == pytest.approx(removed.objective_, rel=1e-9)


def test_groups_through_metadata_routing_grid_search_and_pipeline():
    X, y = ordinal_data(n=36)
    y = (y >= 2).astype(int)
    groups = np.arange(len(y)) % 4
    seen = []

    def recording(m, C=1.0):
        return group_slack_lp(m, C, seen)

    with sklearn.config_context(enable_metadata_routing=True):
        ranker = LPRanker(gamma=GAMMA, method="full", formulation=recording).set_fit_request(groups=True)
        pipe = make_pipeline(StandardScaler(), ranker)
        cv = GroupKFold(n_splits=2)  # the same groups also split the folds
        search = GridSearchCV(pipe, {"lpranker__C": [0.1, 1.0]}, cv=cv).fit(X, y, groups=groups)
    assert len(seen) == 2 * 2 + 1
    folds = [train for train, _ in cv.split(X, y, groups)]
    for k, g in enumerate(seen[:-1]):
        np.testing.assert_array_equal(g, groups[folds[k % 2]])
    np.testing.assert_array_equal(seen[-1], groups)
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    # without routing: a Pipeline passes step parameters
    seen.clear()
    make_pipeline(StandardScaler(), LPRanker(gamma=GAMMA, method="full", formulation=recording)).fit(
        X, y, lpranker__groups=groups)
    np.testing.assert_array_equal(seen[-1], groups)


def test_fair_ranker_reads_the_groups_given_at_fit():
    X, y = ordinal_data(n=30, seed=5)
    y = (y >= 2).astype(int)
    groups = (np.arange(len(y)) % 2).astype(int)
    est = LPRanker(C=C, gamma=GAMMA, method="full", formulation="fair_ranker").fit(X, y, groups=groups)
    direct = get_formulation("fair_ranker").build(PairSet.bipartite(y), kernel_matrix(X, gamma=GAMMA), C=C,
                                                 groups=groups)
    assert est.objective_ == pytest.approx(lp_objective(direct), rel=1e-9)
    with pytest.raises(ValueError, match=r"^the formulation 'fair_ranker' reads m\.groups"):
        LPRanker(C=C, gamma=GAMMA, method="full", formulation="fair_ranker").fit(X, y)


def test_survival_formulation_reads_event_and_time():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 3))
    time = rng.exponential(np.exp(-X[:, 0]))
    event = rng.random(30) < 0.7
    seen = []

    def recording(m, C=1.0):
        seen.append((m.labels, m.event.copy(), m.time.copy()))
        return get_formulation("lp_ranker")(m, C=C)

    est = SurvivalLPRanker(C=C, gamma=GAMMA, method="full", formulation=recording).fit(X, survival_target(event, time))
    labels, e, t = seen[-1]
    assert labels is None
    np.testing.assert_array_equal(e, event)
    np.testing.assert_array_equal(t, time)
    plain = SurvivalLPRanker(C=C, gamma=GAMMA, method="full").fit(X, survival_target(event, time))
    assert est.objective_ == pytest.approx(plain.objective_, rel=1e-12)


# ============================================================================ ordinal_margin_lp
def cvxpy_ordinal_margin(K, y, w, C, margin):
    """min Σα + C Σ w_i w_j max(0, margin (ℓ_i − ℓ_j) − (f_i − f_j)), f = K Y α, with cvxpy's atoms."""
    levels = np.unique(y)
    index = np.searchsorted(levels, y)
    i, j, pw = brute_pairs(y, w)
    signs = np.where(index > 0, 1.0, -1.0)
    alpha = cp.Variable(K.shape[1], nonneg=True)
    f = K @ cp.multiply(signs, alpha)
    loss = pw @ cp.pos(margin * (index[i] - index[j]) - (f[i] - f[j]))
    problem = cp.Problem(cp.Minimize(cp.sum(alpha) + C * loss))
    problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    return problem.value


@pytest.mark.parametrize("seed, C_, margin, weighted", [(0, 1.0, 1.0, False), (1, 5.0, 0.5, True),
                                                         (2, 0.3, 2.0, True)])
def test_ordinal_margin_lp_matches_an_independent_cvxpy_model(seed, C_, margin, weighted):
    X, y = ordinal_data(n=24, seed=seed)
    w = np.random.default_rng(seed).choice([0.5, 1.0, 2.0], len(y)) if weighted else None
    K = kernel_matrix(X, gamma=GAMMA)
    problem = get_formulation("ordinal_margin_lp").build(PairSet.multipartite(y, point_weights=w), K, C=C_,
                                                         margin=margin)
    assert lp_objective(problem) == pytest.approx(cvxpy_ordinal_margin(K, y, w, C_, margin), rel=1e-7)


def test_ordinal_margin_lp_through_the_estimator_and_its_bipartite_case():
    X, y = ordinal_data(n=30)
    K = kernel_matrix(X, gamma=GAMMA)
    est = LPRanker(C=C, gamma=GAMMA, method="full", formulation="ordinal_margin_lp",
                   pair_options={"target": "multipartite"}).fit(X, y)
    assert est.objective_ == pytest.approx(cvxpy_ordinal_margin(K, y, None, C, 1.0), rel=1e-7)
    assert est.score(X, y) == pytest.approx(brute_c_index(y, est.decision_function(X)), abs=1e-12)
    # two levels: the level gap is 1, the LP Ranker
    binary = LPRanker(C=C, gamma=GAMMA, method="full", formulation="ordinal_margin_lp").fit(X, y >= 2)
    assert binary.objective_ == pytest.approx(LPRanker(C=C, gamma=GAMMA, method="full").fit(X, y >= 2).objective_,
                                              rel=1e-9)
    # the margin grows with the gap: a larger optimum than the LP Ranker over the same pairs
    plain = LPRanker(C=C, gamma=GAMMA, method="full", pair_options={"target": "multipartite"}).fit(X, y)
    assert est.objective_ > plain.objective_


def test_ordinal_margin_lp_refuses_pairs_without_levels():
    event, time = np.array([True, True, False]), np.array([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"ordinal_margin_lp reads each point's level from m\.labels"):
        get_formulation("ordinal_margin_lp").build(PairSet.survival(event, time), np.eye(3))
    with pytest.raises(ValueError, match=r"'margin' parameter of the formulation 'ordinal_margin_lp' must be a float "
                                         r"in the range \(0.0, inf\). Got 0 instead."):
        get_formulation("ordinal_margin_lp").build(PairSet.multipartite([0, 1, 2]), np.eye(3), margin=0)


def test_rank_svm_multipartite_on_dask_equals_in_memory():
    distributed = pytest.importorskip("distributed")
    da = pytest.importorskip("dask.array")
    X, y = ordinal_data(n=80, seed=6)
    options = {"target": "multipartite"}
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster, distributed.Client(cluster):
        lazy = RankSVM(alpha=0.05, pair_options=options).fit(da.from_array(X, chunks=(20, 3)), y)
        score = lazy.score(da.from_array(X, chunks=(20, 3)), da.from_array(y, chunks=20))
    memory = RankSVM(alpha=0.05, pair_options=options).fit(X, y)
    np.testing.assert_allclose(lazy.coef_, memory.coef_, rtol=0, atol=1e-8)
    np.testing.assert_array_equal(lazy.classes_, [0, 1, 2, 3])
    assert score == pytest.approx(memory.score(X, y), abs=1e-12)
    assert not hasattr(lazy, "predict") and not hasattr(lazy, "threshold_")
