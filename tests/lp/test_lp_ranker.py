"""Tests of aucopt.LPRanker (binary labels) and aucopt.SurvivalLPRanker (survival targets).

Oracles: scikit-learn's estimator checks and metrics, brute-force pair enumeration,
scikit-survival's ``concordance_index_censored`` and lifelines' ``concordance_index``
(the survival packages are optional test oracles, loaded with ``pytest.importorskip``).

LP fits use subsets of 60-150 rows of real data sets (``load_breast_cancer``, whas500) so that
the whole file runs in well under a minute on two cores.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import get_scorer, roc_auc_score
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import MinMaxScaler
from sklearn.utils._param_validation import InvalidParameterError

import aucopt
import aucopt.kernels
import aucopt.lp._classes
import aucopt.lp._scale
import aucopt.modeling
import aucopt.solvers
import aucopt.svm._aucsvm
from aucopt import LPRanker, PairSet, SurvivalLPRanker, get_formulation, harrell_c, survival_target
from aucopt.exceptions import ProblemTooLargeError, SolverWarning

# ============================================================================ data


def _cancer_raw(n=300, seed=0):
    """Breast cancer subset; malignant (target == 0) is the positive class (label 1)."""
    X, y = load_breast_cancer(return_X_y=True)
    idx = np.random.RandomState(seed).permutation(len(y))[:n]
    return X[idx], (y[idx] == 0).astype(int)


@pytest.fixture(scope="module")
def cancer():
    """150 training / 150 test rows, min-max scaled on the training rows."""
    X, y = _cancer_raw()
    scaler = MinMaxScaler().fit(X[:150])
    return scaler.transform(X[:150]), y[:150], scaler.transform(X[150:]), y[150:]


@pytest.fixture(scope="module")
def cancer_model(cancer):
    Xtr, ytr, _, _ = cancer
    return LPRanker(C=1.0, gamma=1.0).fit(Xtr, ytr)


def _whas500(n=150, seed=0):
    sksurv_datasets = pytest.importorskip("sksurv.datasets")
    X, y = sksurv_datasets.load_whas500()
    Xn = X.select_dtypes("number").to_numpy(dtype=float)
    idx = np.random.RandomState(seed).permutation(len(y))[:n]
    return MinMaxScaler().fit_transform(Xn[idx]), y[idx]


@pytest.fixture(scope="module")
def whas():
    return _whas500(100)


@pytest.fixture(scope="module")
def whas_model(whas):
    X, y = whas
    return SurvivalLPRanker(C=1.0).fit(X, y)


def _event_time(y):
    """(event, time) of a structured survival array, whatever its field names."""
    names = y.dtype.names
    e = next(n for n in names if y.dtype[n].kind == "b")
    t = next(n for n in names if n != e)
    return np.asarray(y[e], dtype=bool), np.asarray(y[t], dtype=float)


def _toy(n=30, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.rand(n, 3)
    y = np.r_[np.ones(n // 2, int), np.zeros(n - n // 2, int)]
    return X, y


# ============================================================================ brute force


def _bipartite_pairs(y, pos_label=1):
    pos = [i for i in range(len(y)) if y[i] == pos_label]
    neg = [j for j in range(len(y)) if y[j] != pos_label]
    return [(i, j) for i in pos for j in neg]


def _harrell_pairs(event, time):
    m = len(time)
    return [
        (i, j)
        for i in range(m)
        if event[i]
        for j in range(m)
        if time[i] < time[j] or (time[i] == time[j] and not event[j])
    ]


def _brute_objective(est, f, pairs, weights=None):
    """Σ α + C Σ w_ij max(0, 1 − (f_i − f_j)) with α = |dual_coef_| (zero elsewhere)."""
    i, j = np.array(pairs).T
    w = np.ones(len(i)) if weights is None else weights[i] * weights[j]
    hinge = np.maximum(0.0, 1.0 - (f[i] - f[j]))
    return float(np.abs(est.dual_coef_).sum() + est.C * np.dot(w, hinge))


# ============================================================================ scikit-learn compatibility

def test_lpranker_declares_binary_only():
    """LPRanker rejects more than two classes, so its tags must say so (scikit-learn then
    runs the classifier checks on binary data instead of failing them on 3-class data)."""
    tags = LPRanker().__sklearn_tags__()
    assert tags.estimator_type == "classifier"
    assert tags.classifier_tags.multi_class is False


@pytest.mark.parametrize("cls", [LPRanker, SurvivalLPRanker])
def test_clone_get_set_params_roundtrip(cls):
    params = dict(C=0.5, kernel="poly", gamma=0.3, degree=2, coef0=0.5,
                  formulation="lp_ranker_free_sign", method="full", method_options={"scheme": 2},
                  solver="cvxpy", solver_options={"verbose": False}, tol=1e-6, max_iter=100, verbose=1,
                  random_state=3, support_threshold=1e-4, lifted=False, max_bytes=10**7)
    if cls is LPRanker:
        params["pos_label"] = "yes"
        params["pair_options"] = {"target": "bipartite"}
    else:
        params["pair_options"] = {"variant": "lprex"}
    est = cls(**params)
    got = est.get_params(deep=False)
    assert got == params  # every constructor argument is a parameter, stored unchanged
    assert ("pos_label" in cls().get_params()) == (cls is LPRanker)

    twin = clone(est)
    assert twin is not est and twin.get_params() == est.get_params()
    assert twin.solver_options is not est.solver_options  # deep-copied non-estimator param

    assert est.set_params(C=2.0, kernel="linear") is est
    assert est.get_params()["C"] == 2.0 and est.get_params()["kernel"] == "linear"
    assert cls(**est.get_params()).get_params() == est.get_params()
    with pytest.raises(ValueError, match="Invalid parameter"):
        est.set_params(not_a_parameter=1)


def test_clone_of_fitted_is_unfitted_and_refits_identically(cancer, cancer_model):
    Xtr, ytr, Xte, _ = cancer
    twin = clone(cancer_model)
    assert not hasattr(twin, "dual_coef_")
    twin.fit(Xtr, ytr)
    np.testing.assert_allclose(twin.decision_function(Xte), cancer_model.decision_function(Xte))
    assert twin.objective_ == pytest.approx(cancer_model.objective_, rel=1e-12)


def test_pipeline_minmax_then_ranker():
    X, y = _cancer_raw(n=250, seed=1)
    Xtr, ytr, Xte, yte = X[:150], y[:150], X[150:], y[150:]
    pipe = Pipeline([("scale", MinMaxScaler()), ("rank", LPRanker())]).fit(Xtr, ytr)
    scaler = MinMaxScaler().fit(Xtr)
    alone = LPRanker().fit(scaler.transform(Xtr), ytr)
    np.testing.assert_allclose(pipe.decision_function(Xte), alone.decision_function(scaler.transform(Xte)))
    np.testing.assert_array_equal(pipe.predict(Xte), alone.predict(scaler.transform(Xte)))
    auc = pipe.score(Xte, yte)
    assert auc == pytest.approx(roc_auc_score(yte, pipe.decision_function(Xte)), abs=1e-12)
    assert auc > 0.95


def test_grid_search_default_score_is_roc_auc():
    X, y = _cancer_raw(n=120, seed=2)  # 2 x 4 x 3 fits and the refits: 80 training rows each
    X = MinMaxScaler().fit_transform(X)
    grid = {"C": [0.1, 1], "gamma": [0.1, 1]}
    by_score = GridSearchCV(LPRanker(), grid, cv=3).fit(X, y)
    by_auc = GridSearchCV(LPRanker(), grid, cv=3, scoring="roc_auc").fit(X, y)
    np.testing.assert_allclose(by_score.cv_results_["mean_test_score"],
                               by_auc.cv_results_["mean_test_score"], atol=1e-12)
    assert by_score.best_params_ == by_auc.best_params_
    assert by_auc.best_score_ > 0.95
    # recompute one fold by hand: StratifiedKFold(3) is what cv=3 means for a classifier
    train, test = next(iter(StratifiedKFold(3).split(X, y)))
    k = by_auc.cv_results_["params"].index(by_auc.best_params_)
    fold = LPRanker(**by_auc.best_params_).fit(X[train], y[train])
    expected = roc_auc_score(y[test], fold.decision_function(X[test]))
    assert by_auc.cv_results_["split0_test_score"][k] == pytest.approx(expected, abs=1e-12)
    assert by_auc.best_estimator_.get_params()["C"] == by_auc.best_params_["C"]


def test_roc_auc_scorer_agrees_with_score_for_non_default_pos_label(cancer):
    """With pos_label = classes_[0] (malignant = 0 in the raw target) scikit-learn's
    ``roc_auc`` scorer must still agree with ``score``: by the classifier convention,
    decision_function ranks classes_[1] high, and the scorer relies on that."""
    Xtr, ytr, Xte, yte = cancer
    raw_tr, raw_te = 1 - ytr, 1 - yte  # load_breast_cancer coding: 0 = malignant
    est = LPRanker(C=1.0, gamma=1.0, pos_label=0).fit(Xtr, raw_tr)
    assert est.pos_label_ == 0
    assert est.score(Xte, raw_te) > 0.95
    assert get_scorer("roc_auc")(est, Xte, raw_te) == pytest.approx(est.score(Xte, raw_te), abs=1e-12)


def test_cross_val_score_survival_uses_harrell_c(whas):
    sksurv_metrics = pytest.importorskip("sksurv.metrics")
    X, y = whas
    cv = KFold(3, shuffle=True, random_state=0)
    est = SurvivalLPRanker(C=1.0, gamma=1.0)
    scores = cross_val_score(est, X, y, cv=cv)
    assert scores.shape == (3,)
    event, t = _event_time(y)
    for score, (train, test) in zip(scores, cv.split(X), strict=False):
        risk = clone(est).fit(X[train], y[train]).predict(X[test])
        assert score == pytest.approx(harrell_c(y[test], risk), abs=1e-12)
        oracle = sksurv_metrics.concordance_index_censored(event[test], t[test], risk, tied_tol=0)[0]
        assert score == pytest.approx(oracle, abs=1e-12)
    assert np.all(scores > 0.6)


# ============================================================================ correctness vs oracles


def test_score_equals_sklearn_roc_auc(cancer, cancer_model):
    Xtr, ytr, Xte, yte = cancer
    for X, y in ((Xtr, ytr), (Xte, yte)):
        f = cancer_model.decision_function(X)
        assert cancer_model.score(X, y) == pytest.approx(roc_auc_score(y, f), abs=1e-12)
    assert cancer_model.score(Xte, yte) > 0.95


def test_survival_score_equals_sksurv_and_lifelines(whas, whas_model):
    sksurv_metrics = pytest.importorskip("sksurv.metrics")
    lifelines_utils = pytest.importorskip("lifelines.utils")
    X, y = whas
    event, t = _event_time(y)
    risk = whas_model.predict(X)
    c = whas_model.score(X, y)
    # the LP makes some scores equal in exact arithmetic (f_i − f_j = 0 at a vertex), which come
    # out ~1e-13 apart: score ties them within 1e-8, as scikit-survival's default does; the exact
    # count (tied_tol=0) is what lifelines computes
    assert c == pytest.approx(sksurv_metrics.concordance_index_censored(event, t, risk)[0], abs=1e-12)
    exact = harrell_c(y, risk, tied_tol=0)
    assert exact == pytest.approx(
        sksurv_metrics.concordance_index_censored(event, t, risk, tied_tol=0)[0], abs=1e-12)
    assert exact == pytest.approx(lifelines_utils.concordance_index(t, -risk, event), abs=1e-12)


def test_survival_fit_on_whas500_ranks_well(whas, whas_model):
    X, y = whas
    risk = whas_model.predict(X)
    c = whas_model.score(X, y)
    assert c == harrell_c(y, risk)
    assert c > 0.75  # well above chance (0.5); ~0.92 here
    assert whas_model.n_pairs_ == len(_harrell_pairs(*_event_time(y)))
    assert whas_model.pair_target_ == "survival"


def test_survival_lp_is_solved_by_the_interior_point_to_the_simplex_optimum(whas, whas_model, cancer_model):
    """Survival pairs go to HiGHS's interior point on the dual LP with crossover, bipartite pairs to
    the dual simplex; both reach the optimum the dual simplex reaches, at a vertex."""
    X, y = whas
    assert whas_model.solve_result_.info["algorithm"] == "ipm"
    assert cancer_model.solve_result_.info["algorithm"] == "simplex"
    simplex = SurvivalLPRanker(C=1.0, solver_options={"solver": "simplex"}).fit(X, y)
    assert simplex.solve_result_.info["algorithm"] == "simplex"
    assert whas_model.objective_ == pytest.approx(simplex.objective_, rel=1e-9)
    np.testing.assert_allclose(whas_model.predict(X), simplex.predict(X), rtol=1e-6, atol=1e-8)
    assert whas_model.solve_result_.status == "optimal" and len(whas_model.support_) == len(simplex.support_)


def test_a_failed_interior_point_is_solved_again_by_the_dual_simplex(whas, whas_model, monkeypatch):
    X, y = whas
    real_solve, calls = aucopt.lp._classes.solve, []

    def failing_ipm(problem, solver, **kwargs):
        options = kwargs.get("solver_options") or {}
        calls.append(options.get("solver"))
        if options.get("solver") != "ipm":
            return real_solve(problem, solver, **kwargs)
        # as HiGHS's interior point ends on a numerical failure: a real interior point run (one
        # iteration: its point is discarded, so a whole solve would only cost time) reported as an error
        result = real_solve(problem, solver, **{**kwargs, "max_iter": 1})
        result.status, result.x = aucopt.solvers.Status.ERROR, None
        return result

    monkeypatch.setattr(aucopt.lp._classes, "solve", failing_ipm)
    refit = SurvivalLPRanker(C=1.0).fit(X, y)
    assert calls == ["ipm", None]
    assert refit.solve_result_.status == "optimal" and refit.solve_result_.info["algorithm"] == "simplex"
    assert refit.objective_ == pytest.approx(whas_model.objective_, rel=1e-9)
    calls.clear()
    with pytest.raises(aucopt.exceptions.SolverError, match="status 'error'"):  # the user's choice is kept
        SurvivalLPRanker(C=1.0, solver_options={"solver": "ipm"}).fit(X, y)
    assert calls == ["ipm"]


def test_objective_equals_brute_force_bipartite(cancer, cancer_model):
    Xtr, ytr, _, _ = cancer
    f = cancer_model.decision_function(Xtr)
    pairs = _bipartite_pairs(ytr)
    assert cancer_model.n_pairs_ == len(pairs)
    assert cancer_model.objective_ == pytest.approx(_brute_objective(cancer_model, f, pairs), rel=1e-6)
    # coef_l = y_l α_l with α ≥ 0: positives carry positive, negatives negative coefficients
    signs = np.where(ytr[cancer_model.support_] == 1, 1.0, -1.0)
    assert np.all(cancer_model.dual_coef_ * signs > 0)


def test_objective_equals_brute_force_survival(whas, whas_model):
    X, y = whas
    event, t = _event_time(y)
    f = whas_model.decision_function(X)
    pairs = _harrell_pairs(event, t)
    assert whas_model.objective_ == pytest.approx(_brute_objective(whas_model, f, pairs), rel=1e-6)
    signs = np.where(event[whas_model.support_], 1.0, -1.0)  # +1 events, −1 censored
    assert np.all(whas_model.dual_coef_ * signs > 0)


def test_dropping_non_support_vectors_keeps_training_scores(cancer, cancer_model):
    Xtr, ytr, _, _ = cancer
    est = cancer_model
    # rebuild the very same LP through the public pipeline to read the full expansion
    K = est.kernel_(Xtr)
    problem = get_formulation("lp_ranker").build(PairSet.bipartite(ytr), K, C=1.0)
    assert problem.n_vars == len(est.solve_result_.x)
    coef = problem.output(est.solve_result_.x, "coef")
    dropped = np.setdiff1d(np.arange(len(ytr)), est.support_)
    assert 0 < len(est.support_) < len(ytr) and len(dropped) > 0  # the test is not vacuous
    np.testing.assert_allclose(coef[est.support_], est.dual_coef_)
    assert np.all(np.abs(coef[dropped]) <= est.support_threshold * max(1.0, np.abs(coef).max()))
    np.testing.assert_allclose(est.decision_function(Xtr), K @ coef + est.intercept_, rtol=0, atol=1e-7)
    # keeping every nonzero coefficient (support_threshold=0) changes nothing either
    full = LPRanker(C=1.0, gamma=1.0, support_threshold=0.0).fit(Xtr, ytr)
    np.testing.assert_allclose(full.decision_function(Xtr), est.decision_function(Xtr), atol=1e-7)


def test_highs_and_clarabel_agree(cancer, cancer_model):
    pytest.importorskip("cvxpy")
    Xtr, ytr, Xte, yte = cancer
    clarabel = LPRanker(C=1.0, gamma=1.0, solver="cvxpy").fit(Xtr, ytr)
    assert clarabel.solve_result_.solver == "cvxpy:clarabel"
    assert cancer_model.solve_result_.solver == "highs"
    assert clarabel.objective_ == pytest.approx(cancer_model.objective_, rel=1e-6)
    assert clarabel.score(Xte, yte) == pytest.approx(cancer_model.score(Xte, yte), abs=1e-6)


def test_precomputed_rbf_equals_rbf(cancer):
    Xtr, ytr, Xte, _ = cancer
    Xtr, ytr = Xtr[:100], ytr[:100]
    gamma = 0.7
    direct = LPRanker(C=1.0, kernel="rbf", gamma=gamma).fit(Xtr, ytr)
    pre = LPRanker(C=1.0, kernel="precomputed").fit(rbf_kernel(Xtr, gamma=gamma), ytr)
    assert pre.objective_ == pytest.approx(direct.objective_, rel=1e-9)
    np.testing.assert_array_equal(pre.support_, direct.support_)
    K_test = rbf_kernel(Xte, Xtr, gamma=gamma)
    np.testing.assert_allclose(pre.decision_function(K_test), direct.decision_function(Xte), atol=1e-9)
    np.testing.assert_array_equal(pre.predict(K_test), direct.predict(Xte))
    assert pre.support_vectors_ is None and direct.support_vectors_.shape == (len(direct.support_), Xtr.shape[1])


def test_linear_kernel_is_a_linear_model(cancer):
    Xtr, ytr, Xte, _ = cancer
    Xtr, ytr = Xtr[:100], ytr[:100]
    lin = LPRanker(C=1.0, kernel="linear").fit(Xtr, ytr)
    w = lin.support_vectors_.T @ lin.dual_coef_
    np.testing.assert_allclose(lin.decision_function(Xte), Xte @ w + lin.intercept_, atol=1e-10)
    pre = LPRanker(C=1.0, kernel="precomputed").fit(linear_kernel(Xtr), ytr)
    assert pre.objective_ == pytest.approx(lin.objective_, rel=1e-9)
    np.testing.assert_allclose(pre.decision_function(linear_kernel(Xte, Xtr)), lin.decision_function(Xte), atol=1e-9)


def test_poly_kernel_matches_precomputed_and_callable(cancer):
    Xtr, ytr, Xte, _ = cancer
    Xtr, ytr = Xtr[:100], ytr[:100]
    kw = dict(degree=2, gamma=0.5, coef0=1.0)
    poly = LPRanker(C=1.0, kernel="poly", **kw).fit(Xtr, ytr)
    pre = LPRanker(C=1.0, kernel="precomputed").fit(polynomial_kernel(Xtr, **kw), ytr)
    call = LPRanker(C=1.0, kernel=lambda A, B: polynomial_kernel(A, B, **kw)).fit(Xtr, ytr)
    for other in (pre, call):
        assert other.objective_ == pytest.approx(poly.objective_, rel=1e-9)
    f = poly.decision_function(Xte)
    np.testing.assert_allclose(pre.decision_function(polynomial_kernel(Xte, Xtr, **kw)), f, atol=1e-9)
    np.testing.assert_allclose(call.decision_function(Xte), f, atol=1e-9)
    # the degree matters: a cubic kernel is a different model
    cubic = LPRanker(C=1.0, kernel="poly", degree=3, gamma=0.5, coef0=1.0).fit(Xtr, ytr)
    assert abs(cubic.objective_ - poly.objective_) > 1e-6 * poly.objective_


@pytest.mark.parametrize("container", [sp.csr_matrix, sp.csc_matrix])
def test_sparse_X_equals_dense(cancer, container):
    Xtr, ytr, Xte, _ = cancer
    Xtr, ytr = Xtr[:100], ytr[:100]
    Xtr = np.where(Xtr < 0.3, 0.0, Xtr)  # genuinely sparse input
    Xte = np.where(Xte < 0.3, 0.0, Xte)
    dense = LPRanker(C=1.0).fit(Xtr, ytr)  # gamma="scale": also checks the sparse variance
    sparse = LPRanker(C=1.0).fit(container(Xtr), ytr)
    assert sparse.objective_ == pytest.approx(dense.objective_, rel=1e-9)
    assert sparse.kernel_.gamma == pytest.approx(dense.kernel_.gamma, rel=1e-12)
    np.testing.assert_allclose(sparse.decision_function(container(Xte)), dense.decision_function(Xte), atol=1e-9)
    np.testing.assert_allclose(sparse.decision_function(Xte), dense.decision_function(Xte), atol=1e-9)
    np.testing.assert_array_equal(sparse.predict(container(Xte)), dense.predict(Xte))


def test_sparse_precomputed_kernel_equals_dense(cancer):
    """The estimator declares sparse support (input_tags.sparse = True) for every kernel."""
    Xtr, ytr, Xte, _ = cancer
    Xtr, ytr = Xtr[:60], ytr[:60]
    K = rbf_kernel(Xtr, gamma=1.0)
    dense = LPRanker(kernel="precomputed").fit(K, ytr)
    sparse = LPRanker(kernel="precomputed").fit(sp.csr_matrix(K), ytr)
    assert sparse.objective_ == pytest.approx(dense.objective_, rel=1e-9)
    K_test = rbf_kernel(Xte, Xtr, gamma=1.0)
    np.testing.assert_allclose(sparse.decision_function(sp.csr_matrix(K_test)),
                               dense.decision_function(K_test), atol=1e-9)


def test_lifted_and_dense_lp_agree(cancer):
    Xtr, ytr, _, _ = cancer
    Xtr, ytr = Xtr[:60], ytr[:60]
    lifted = LPRanker(C=1.0, gamma=1.0, lifted=True).fit(Xtr, ytr)
    dense = LPRanker(C=1.0, gamma=1.0, lifted=False).fit(Xtr, ytr)
    assert dense.objective_ == pytest.approx(lifted.objective_, rel=1e-7)
    assert dense.problem_size_["nonzeros"] > lifted.problem_size_["nonzeros"]
    # the free-sign relaxation's feasible set contains the LP Ranker's: never a larger optimum
    free = LPRanker(C=1.0, gamma=1.0, formulation="lp_ranker_free_sign").fit(Xtr, ytr)
    assert free.objective_ <= lifted.objective_ * (1 + 1e-7)


def test_sample_weight_all_twos_equals_four_times_C(cancer):
    """Point weights w give pair weights w_i·w_j, so w ≡ 2 multiplies the loss by 4:
    Σα + C Σ 4·h_ij = Σα + (4C) Σ h_ij — the same LP as C × 4 (and not C × 2)."""
    Xtr, ytr, Xte, _ = cancer
    Xtr, ytr = Xtr[:100], ytr[:100]
    C = 0.25
    weighted = LPRanker(C=C, gamma=1.0).fit(Xtr, ytr, sample_weight=np.full(len(ytr), 2.0))
    times4 = LPRanker(C=4 * C, gamma=1.0).fit(Xtr, ytr)
    times2 = LPRanker(C=2 * C, gamma=1.0).fit(Xtr, ytr)
    assert weighted.objective_ == pytest.approx(times4.objective_, rel=1e-9)
    np.testing.assert_allclose(weighted.decision_function(Xte), times4.decision_function(Xte), atol=1e-9)
    assert weighted.threshold_ == pytest.approx(times4.threshold_, abs=1e-9)
    assert abs(weighted.objective_ - times2.objective_) > 1e-3 * times4.objective_
    ones = LPRanker(C=C, gamma=1.0).fit(Xtr, ytr, sample_weight=np.ones(len(ytr)))
    plain = LPRanker(C=C, gamma=1.0).fit(Xtr, ytr)
    assert ones.objective_ == pytest.approx(plain.objective_, rel=1e-12)


def test_integer_weights_equal_repeated_rows(cancer, whas):
    """Weights in {1, 2, 3} ≡ repeating rows: copies of a point are never paired with each other
    (same label / same time and status), their pair losses add up to w_i·w_j h_ij and their α's
    merge, so both LPs have the same optimal value (fixed gamma: 'scale' depends on repetition)."""
    rng = np.random.RandomState(3)
    Xtr, ytr, _, _ = cancer
    X, y = Xtr[:50], ytr[:50]
    w = rng.randint(1, 4, size=len(y))
    weighted = LPRanker(C=1.0, gamma=1.0).fit(X, y, sample_weight=w)
    repeated = LPRanker(C=1.0, gamma=1.0).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert weighted.objective_ == pytest.approx(repeated.objective_, rel=1e-7)

    Xs, ys = whas[0][:50], whas[1][:50]
    ws = rng.randint(1, 4, size=len(ys))
    weighted = SurvivalLPRanker(C=1.0, gamma=1.0).fit(Xs, ys, sample_weight=ws)
    repeated = SurvivalLPRanker(C=1.0, gamma=1.0).fit(np.repeat(Xs, ws, axis=0), np.repeat(ys, ws))
    assert weighted.objective_ == pytest.approx(repeated.objective_, rel=1e-7)


def test_all_zero_sample_weight_is_rejected(cancer):
    """All-zero weights leave nothing to learn (the LP optimum is α = 0, a constant model)."""
    Xtr, ytr, _, _ = cancer
    with pytest.raises(ValueError, match=r"(?i)weight"):
        LPRanker(C=1.0, gamma=1.0).fit(Xtr[:40], ytr[:40], sample_weight=np.zeros(40))


def test_predict_returns_original_labels(cancer):
    Xtr, ytr, Xte, _ = cancer
    labels = np.array(["benign", "malignant"])
    est = LPRanker(C=1.0, gamma=1.0).fit(Xtr[:100], labels[ytr[:100]])
    np.testing.assert_array_equal(est.classes_, labels)
    assert est.pos_label_ == "malignant"
    pred = est.predict(Xte)
    assert pred.dtype.kind == "U" and set(pred) <= set(labels) and len(set(pred)) == 2
    f = est.decision_function(Xte)
    np.testing.assert_array_equal(pred, np.where(f > 0, "malignant", "benign"))
    # same model as with 0/1 labels
    num = LPRanker(C=1.0, gamma=1.0).fit(Xtr[:100], ytr[:100])
    np.testing.assert_allclose(f, num.decision_function(Xte))


def test_survival_predict_is_risk_score(whas, whas_model):
    X, y = whas
    risk = whas_model.predict(X)
    assert risk.dtype == np.float64 and risk.shape == (len(y),)
    np.testing.assert_array_equal(risk, whas_model.decision_function(X))
    # higher risk = earlier event: early events score above late censored subjects on average
    event, t = _event_time(y)
    early = event & (t < np.quantile(t, 0.25))
    late = ~event & (t > np.quantile(t, 0.75))
    assert risk[early].mean() > risk[late].mean()


def test_threshold_maximizes_training_accuracy(cancer):
    Xtr, ytr, _, _ = cancer
    X, y = Xtr[:100], ytr[:100]
    est = LPRanker(C=1.0, gamma=1.0).fit(X, y)
    positive = y == est.pos_label_
    f = est.decision_function(X) + est.threshold_  # the kernel expansion itself
    u = np.unique(f)
    candidates = np.r_[-np.inf, (u[:-1] + u[1:]) / 2, np.inf]
    best = max(int(np.sum((f > tau) == positive)) for tau in candidates)
    assert int(np.sum((f > est.threshold_) == positive)) == best
    assert np.isfinite(est.threshold_)
    assert int(np.sum(est.predict(X) == y)) == best
    assert best > 0.9 * len(y)
    # pos_label = the other class: the mirrored LP (f -> -f) has the same best training accuracy
    other = LPRanker(C=1.0, gamma=1.0, pos_label=0).fit(X, y)
    assert other.pos_label_ == 0
    assert int(np.sum(other.predict(X) == y)) == best


def test_survival_target_forms_agree(whas):
    X, y = whas
    X, y = X[:60], y[:60]
    event, t = _event_time(y)
    ref = SurvivalLPRanker(C=1.0, gamma=1.0).fit(X, y)
    swapped = np.empty(len(y), dtype=[("time", float), ("status", bool)])
    swapped["time"], swapped["status"] = t, event
    for target in (survival_target(event, t), swapped):
        other = SurvivalLPRanker(C=1.0, gamma=1.0).fit(X, target)
        assert other.objective_ == pytest.approx(ref.objective_, rel=1e-12)
        assert other.score(X, target) == ref.score(X, y)


# ============================================================================ bad input


@pytest.fixture
def no_solver(monkeypatch):
    """Fail loudly if anything builds or solves an LP."""

    def boom(*args, **kwargs):
        raise AssertionError("validation must happen before building / solving the LP")

    monkeypatch.setattr(aucopt.lp._classes, "solve", boom)
    monkeypatch.setattr(aucopt.svm._aucsvm, "solve", boom)
    monkeypatch.setattr(aucopt.modeling.Formulation, "build", boom)


def test_no_solver_guard_is_effective(no_solver):
    X, y = _toy()
    with pytest.raises(AssertionError, match="before building"):
        LPRanker(gamma=1.0).fit(X, y)


def _bad_cases():
    X, y = _toy()  # 30 × 3, 15 positives and 15 negatives → 225 pairs
    event = np.r_[np.ones(10, bool), np.zeros(20, bool)]
    ys = survival_target(event, np.arange(30, dtype=float) + 1)
    X_nan = X.copy()
    X_nan[3, 1] = np.nan
    X_inf = X.copy()
    X_inf[5, 0] = np.inf
    return [
        ("nan", LPRanker(), X_nan, y, "NaN"),
        ("inf", LPRanker(), X_inf, y, "infinity"),
        ("survival-nan", SurvivalLPRanker(), X_nan, ys, "NaN"),
        ("one-class", LPRanker(), X, np.ones(30, int), "only one class"),
        ("three-classes", LPRanker(), X, np.arange(30) % 3, "Only binary classification is supported. y has 3 classes"),
        ("all-censored", SurvivalLPRanker(), X, survival_target(np.zeros(30, bool), np.arange(30.0)),
         "no comparable pairs"),
        ("length-mismatch", LPRanker(), X, y[:-1], "30 samples.*29"),
        ("survival-length-mismatch", SurvivalLPRanker(), X[:-1], ys, "29 samples.*30"),
        ("unknown-solver", LPRanker(solver="no_such_solver"), X, y, "Unknown solver 'no_such_solver'"),
        ("unknown-kernel", LPRanker(kernel="sigmoid"), X, y,
         r"The 'kernel' parameter of LPRanker must be a str among .*Got 'sigmoid' instead"),
        ("unknown-formulation", LPRanker(formulation="no_such_lp"), X, y,
         "Unknown formulation 'no_such_lp'"),
        ("C-zero", LPRanker(C=0), X, y,
         r"The 'C' parameter of LPRanker must be a float in the range \(0.0, inf\). Got 0 instead."),
        ("C-negative", LPRanker(C=-1.0), X, y, r"The 'C' parameter of LPRanker must be a float in the range"),
        ("C-nan", SurvivalLPRanker(C=float("nan")), X, ys, "The 'C' parameter of SurvivalLPRanker must be"),
        ("gamma-negative", LPRanker(gamma=-0.5), X, y, "The 'gamma' parameter of LPRanker must be"),
        ("survival-gamma-negative", SurvivalLPRanker(gamma=-1.0), X, ys,
         "The 'gamma' parameter of SurvivalLPRanker must be"),
        ("memory", LPRanker(max_bytes=1000), X, y,
         r"30 points and 225 pairs would need about \d+(\.\d+)? kB \(limit max_bytes=.*: use RankRC"),
        ("survival-to-LPRanker", LPRanker(), X, ys, "use SurvivalLPRanker"),
        ("survival-clustering", SurvivalLPRanker(method="clustering", max_bytes=1000), X, ys,
         "method='clustering' needs binary labels"),
        ("binary-to-SurvivalLPRanker", SurvivalLPRanker(), X, y, "needs a survival target"),
        ("precomputed-not-square", LPRanker(kernel="precomputed"), X, y, r"must be square.*\(30, 3\)"),
    ]


@pytest.mark.parametrize("name, est, X, y, match", _bad_cases(), ids=[c[0] for c in _bad_cases()])
def test_bad_input_raises_before_solving(no_solver, name, est, X, y, match):
    with pytest.raises(ValueError, match=match):
        est.fit(X, y)


@pytest.mark.parametrize(
    "sample_weight, match",
    [(np.r_[-1.0, np.ones(29)], "non-negative"), (np.ones(29), "Inconsistent"),
     (np.r_[np.nan, np.ones(29)], "NaN")],
    ids=["negative", "wrong-length", "nan"],
)
def test_bad_sample_weight_raises_before_solving(no_solver, sample_weight, match):
    X, y = _toy()
    with pytest.raises(ValueError, match=match):
        LPRanker().fit(X, y, sample_weight=sample_weight)


def test_wrong_number_of_features_at_predict_time(cancer, cancer_model, whas, whas_model):
    _, _, Xte, yte = cancer
    for method in ("decision_function", "predict"):
        with pytest.raises(ValueError, match="features"):
            getattr(cancer_model, method)(Xte[:, :5])
    with pytest.raises(ValueError, match="features"):
        cancer_model.score(Xte[:, :5], yte)
    X, y = whas
    with pytest.raises(ValueError, match="features"):
        whas_model.predict(X[:, :-1])
    with pytest.raises(ValueError, match="features"):
        whas_model.score(X[:, :-1], y)


def test_precomputed_kernel_wrong_columns_at_predict_time(cancer):
    Xtr, ytr, Xte, _ = cancer
    Xtr, ytr = Xtr[:40], ytr[:40]
    est = LPRanker(kernel="precomputed").fit(rbf_kernel(Xtr, gamma=1.0), ytr)
    with pytest.raises(ValueError, match="features"):
        est.decision_function(rbf_kernel(Xte, Xtr[:30], gamma=1.0))


# ============================================================================ parameters


@pytest.fixture
def no_work(no_solver, monkeypatch):
    """As ``no_solver``, and computing a kernel matrix fails too."""

    def boom(*args, **kwargs):
        raise AssertionError("validation must happen before the kernel matrix is computed")

    monkeypatch.setattr(aucopt.kernels.Kernel, "__call__", boom)


@pytest.mark.parametrize("cls", [LPRanker, SurvivalLPRanker])
def test_every_parameter_is_declared(cls):
    assert set(cls._parameter_constraints) == set(cls().get_params())


_BAD_VALUES = [
    ("C", -1), ("C", 0.0), ("C", float("inf")), ("C", "1"),
    ("kernel", "sigmoid"), ("kernel", 3),
    ("gamma", -0.5), ("gamma", 0), ("gamma", "wide"),
    ("degree", 0), ("degree", 2.5),
    ("coef0", "one"),
    ("formulation", 3),
    ("method", "interior"),
    ("method_options", [("n_chunks", 2)]),
    ("solver", 3),
    ("solver_options", "time_limit=5"),
    ("tol", 0.0), ("tol", -1e-6), ("tol", "1e-6"),
    ("max_iter", 0), ("max_iter", 2.5),
    ("verbose", -1), ("verbose", "yes"),
    ("random_state", "seed"), ("random_state", -3),
    ("support_threshold", -1e-8),
    ("lifted", "yes"),
    ("max_bytes", 0), ("max_bytes", -1.0),
]
_BAD_CASES = ([(LPRanker, name, value) for name, value in [*_BAD_VALUES, ("pos_label", [1])]]
              + [(SurvivalLPRanker, name, value) for name, value in [*_BAD_VALUES, ("pair_options", "lprex")]])


@pytest.mark.parametrize("cls, name, value", _BAD_CASES,
                         ids=[f"{c.__name__}-{n}-{v!r}" for c, n, v in _BAD_CASES])
def test_declared_constraint_rejects_bad_value_before_any_work(no_work, cls, name, value):
    X, y = _toy()
    if cls is SurvivalLPRanker:
        y = survival_target(y == 1, np.arange(len(y), dtype=float) + 1)
    est = cls(**{name: value})
    with pytest.raises(InvalidParameterError,
                       match=rf"The '{name}' parameter of {cls.__name__} must be .*"
                             rf"Got {re.escape(repr(value))} instead"):
        est.fit(X, y)


@pytest.mark.parametrize("method, params, match", [
    ("full", {"max_bytes": 1000}, r"The lifted LP 'lp_ranker' for 30 points and 225 pairs.*use RankRC"),
    ("full", {"max_bytes": 50_000}, r"The lifted LP 'lp_ranker' for 30 points and 225 pairs.*"
                                    r"use LPRanker\(method='subgradient'\)"),
    ("full", {"max_bytes": 50_000, "lifted": False},
     r"The dense LP 'lp_ranker' for 30 points and 225 pairs would need about \d+\.\d MB"),
    ("chunking", {"max_bytes": 1000}, r"Chunking over 225 pairs of 30 points .*would need about .*use RankRC"),
    ("chunking", {"max_bytes": 50_000}, r"Chunking over 225 pairs of 30 points .*method='subgradient'"),
    ("subgradient", {"max_bytes": 5000}, r"The 30 x 30 kernel matrix would need about \d+\.\d [kM]B.*use RankRC"),
    ("clustering", {"max_bytes": 5000}, r"Local clustering of 30 points .*10\.8 kB.*use RankRC"),
])
def test_memory_refusals_raise_before_any_work(no_work, method, params, match):
    X, y = _toy()
    with pytest.raises(ProblemTooLargeError, match=match):
        LPRanker(gamma=1.0, method=method, **params).fit(X, y)


def test_memory_estimate_is_the_formulations(no_solver):
    """The full route refuses with the formulation's own estimate, the same for a survival target."""
    X, y = _toy()
    ys = survival_target(y == 1, np.r_[np.ones(15), 2 * np.ones(15)])  # every event before every censoring
    form = get_formulation("lp_ranker")
    for lifted in (True, False):
        need = form.estimate_nbytes(n_points=30, n_pairs=225, n_basis=30, lifted=lifted)
        for est, target in ((LPRanker(lifted=lifted, max_bytes=need - 1), y),
                            (SurvivalLPRanker(lifted=lifted, max_bytes=need - 1), ys)):
            with pytest.raises(ProblemTooLargeError) as info:
                est.fit(X, target)
            assert info.value.nbytes == need and info.value.max_bytes == need - 1
        # at exactly the estimate the check passes and the LP is built (here: the guard fires)
        with pytest.raises(AssertionError, match="before building"):
            LPRanker(lifted=lifted, max_bytes=need).fit(X, y)


@pytest.fixture
def recorded_solves(monkeypatch):
    """Record the keywords of every call of ``aucopt.solvers.solve`` from the LP Ranker code."""
    calls = []
    real = aucopt.solvers.solve

    def record(problem, solver="highs", **kwargs):
        calls.append({"solver": solver, **kwargs})
        return real(problem, solver, **kwargs)

    monkeypatch.setattr(aucopt.lp._classes, "solve", record)
    monkeypatch.setattr(aucopt.lp._scale, "solve", record)
    return calls


@pytest.mark.parametrize("method", ["full", "clustering"])
def test_tol_max_iter_verbose_and_solver_options_reach_the_backend(recorded_solves, method):
    X, y = _toy()
    est = LPRanker(gamma=1.0, method=method, tol=1e-6, max_iter=10_000,
                   solver_options={"time_limit": 60.0}).fit(X, y)
    assert recorded_solves == [{"solver": "highs", "tol": 1e-6, "max_iter": 10_000, "verbose": False,
                                "solver_options": {"time_limit": 60.0}}]
    assert est.n_iter_ == est.solve_result_.iterations


def test_max_iter_limits_the_backend_of_the_full_lp():
    """End to end: the backend stops at the iteration limit, says so, and n_iter_ reports it."""
    X, y = _toy()
    free = LPRanker(gamma=1.0).fit(X, y)
    assert free.solve_result_.status == "optimal" and free.n_iter_ > 5  # the limit below binds
    with pytest.warns(SolverWarning, match="iteration_limit"):
        capped = LPRanker(gamma=1.0, max_iter=5).fit(X, y)
    assert capped.solve_result_.status == "iteration_limit"
    assert capped.n_iter_ == capped.solve_result_.iterations <= 5


def test_chunking_passes_tol_and_solver_options_to_every_lp(monkeypatch):
    """HiGHS: one live model (built once, with tol and the options) solves every restricted LP,
    each with the time left of the whole run."""
    from aucopt.solvers.highs import IncrementalLP

    # a clock that advances one second at each reading: the time left is known exactly
    clock = iter(range(1_000))
    fake_time = type("Clock", (), {"perf_counter": staticmethod(lambda: next(clock))})
    monkeypatch.setattr(aucopt.lp._scale, "time", fake_time)
    built, limits = [], []
    real_init, real_solve = IncrementalLP.__init__, IncrementalLP.solve

    def init(self, **kwargs):
        built.append(kwargs)
        real_init(self, **kwargs)

    def solve_(self, time_limit=None):
        limits.append(time_limit)
        return real_solve(self, time_limit=time_limit)
    monkeypatch.setattr(IncrementalLP, "__init__", init)
    monkeypatch.setattr(IncrementalLP, "solve", solve_)
    X, y = _toy()
    est = LPRanker(gamma=1.0, method="chunking", tol=1e-6, solver_options={"time_limit": 60.0},
                   random_state=0, method_options={"n_chunks": 3}).fit(X, y)
    run = est.method_result_
    assert len(limits) == run.n_solves > 1 and run.cold_restarts == 0
    assert limits[0] < 60.0 and np.all(np.diff(limits) < 0)  # each LP gets the time left of the whole run
    assert built == [{"tol": 1e-6, "verbose": False, "solver_options": {"time_limit": 60.0}}]  # one model


def test_subgradient_tol_stops_on_small_moves():
    X, y = _cancer_raw(n=80, seed=4)
    X = MinMaxScaler().fit_transform(X)
    free = LPRanker(C=10.0, gamma=1.0, method="subgradient").fit(X, y)
    assert free.method_result_.stop == "step_min"
    free_objectives = [r["objective"] for r in free.method_result_.history]
    n_iter = []
    for tol in (1e-2, 1e-3, 1e-4):
        stopped = LPRanker(C=10.0, gamma=1.0, method="subgradient", tol=tol).fit(X, y)
        run = stopped.method_result_
        assert run.stop == "tol" and stopped.n_iter_ == len(run.history)
        # the same trajectory, cut short: its history is a prefix of the free run's
        assert [r["objective"] for r in run.history] == free_objectives[:len(run.history)]
        n_iter.append(stopped.n_iter_)
    assert n_iter == sorted(n_iter) and len(set(n_iter)) == 3 and n_iter[-1] < free.n_iter_


def test_max_iter_bounds_subgradient_iterations_and_chunking_passes(cancer):
    Xtr, ytr, _, _ = cancer
    X, y = Xtr[:80], ytr[:80]
    for m in (1, 7):
        run = LPRanker(C=10.0, gamma=1.0, method="subgradient", max_iter=m,
                       method_options={"rule": "constant"}).fit(X, y)
        assert run.n_iter_ == len(run.method_result_.history) == m
    with pytest.warns(ConvergenceWarning, match="max_iter=25 before its stopping rule"):
        dynamic = LPRanker(C=10.0, gamma=1.0, method="subgradient", max_iter=25).fit(X, y)
    assert dynamic.n_iter_ <= 25 and len(dynamic.method_result_.history) <= 25

    # chunking reaches the optimum within one pass on these 80 rows: 40 noisy points need two
    X, y = make_classification(n_samples=40, flip_y=0.3, random_state=0)
    options = {"n_chunks": 8, "scheme": 2, "top_k": 2}
    free = LPRanker(C=1.0, gamma=0.01, method="chunking", random_state=0, method_options=options).fit(X, y)
    assert free.n_iter_ == free.method_result_.passes > 1  # the bound below is not vacuous
    with pytest.warns(ConvergenceWarning, match="max_iter=1 passes"):
        capped = LPRanker(C=1.0, gamma=0.01, method="chunking", random_state=0, max_iter=1,
                          method_options=options).fit(X, y)
    assert capped.n_iter_ == capped.method_result_.passes == 1
    assert capped.method_result_.n_solves == 8
    assert capped.objective_ >= free.objective_ * (1 - 1e-9)  # stopped early: not below the optimum


@pytest.mark.parametrize("method", ["full", "chunking", "clustering", "subgradient"])
def test_verbose_does_not_change_the_fit(method, capfd):
    X, y = _toy()
    kw = dict(gamma=1.0, method=method, random_state=0)
    quiet = LPRanker(**kw).fit(X, y)
    silent = capfd.readouterr()
    assert silent.out == silent.err == ""  # verbose=0 prints nothing
    for verbose in (1, 2, True):
        loud = LPRanker(verbose=verbose, **kw).fit(X, y)
        assert loud.objective_ == pytest.approx(quiet.objective_, rel=1e-9)
        np.testing.assert_allclose(loud.decision_function(X), quiet.decision_function(X), atol=1e-9)
        shown = capfd.readouterr()
        assert shown.out + shown.err != "", verbose  # a solver log or a progress bar


def test_random_state_makes_chunking_deterministic(cancer):
    Xtr, ytr, _, _ = cancer
    X, y = Xtr[:80], ytr[:80]
    kw = dict(C=10.0, gamma=1.0, method="chunking", method_options={"n_chunks": 4, "scheme": 2, "top_k": 3})
    full = LPRanker(C=10.0, gamma=1.0).fit(X, y)
    histories = {}
    for seed in (0, 1, 2):
        a = LPRanker(random_state=seed, **kw).fit(X, y)
        b = LPRanker(random_state=seed, **kw).fit(X, y)
        assert a.method_result_.history == b.method_result_.history
        np.testing.assert_array_equal(a.support_, b.support_)
        np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
        assert a.objective_ == pytest.approx(full.objective_, rel=1e-7)  # every partition is exact
        histories[seed] = [(r["retained"], r["added"]) for r in a.method_result_.history]
    assert len({tuple(h) for h in histories.values()}) > 1  # the seed does choose the partition
    # a RandomState instance in the same state draws the same partition
    c = LPRanker(random_state=np.random.RandomState(5), **kw).fit(X, y)
    d = LPRanker(random_state=np.random.RandomState(5), **kw).fit(X, y)
    assert c.method_result_.history == d.method_result_.history


@pytest.mark.parametrize("method", ["full", "chunking", "clustering", "subgradient"])
def test_n_iter_and_route_attributes(method):
    X, y = _toy()
    est = LPRanker(gamma=1.0, method=method, random_state=0).fit(X, y)
    assert isinstance(est.n_iter_, (int, np.integer)) and est.n_iter_ >= 1
    if method == "full":
        assert est.method_result_ is None and est.reduction_ is None and est.problem_size_ is not None
    elif method == "clustering":
        assert est.method_result_.n_points_after == est.reduction_["points"][1]
    else:
        assert est.problem_size_ is None and est.reduction_ is None
    # a refit with another route leaves no stale route record
    est.set_params(method="full").fit(X, y)
    assert est.method_result_ is None and est.reduction_ is None


def test_custom_formulation_without_coef_output_names_it():
    def no_coef(m, C=1.0):
        alpha = m.variable("alpha", m.n_basis, lower=0)
        z = m.variable("z", m.n_pairs, lower=0)
        m.minimize(alpha.sum() + C * (m.pair_weights @ z))
        m.subject_to(m.pair_difference(m.kernel @ alpha) + z >= 1)

    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(ValueError, match=r"no output 'coef'.*m\.output\('coef', expr\)"):
        LPRanker(formulation=no_coef, gamma=0.1).fit(X[:30], y[:30])


@pytest.mark.parametrize("scale", [1e4, 1e6])
def test_pruning_is_relative_so_large_features_keep_their_expansion(scale):
    """On X·s with C/s² (the same LP with α scaled by 1/s²) the optimal α shrinks as 1/s²; pruning
    must be relative to max|α| (an absolute floor dropped the whole expansion and left AUC 0.5
    with status 'optimal')."""
    X, y = load_breast_cancer(return_X_y=True)
    X = MinMaxScaler().fit_transform(X[:80, :5])
    y = y[:80]
    base = LPRanker(kernel="linear").fit(X, y)
    big = LPRanker(kernel="linear", C=1.0 / scale**2).fit(X * scale, y)
    assert len(big.support_) == len(base.support_) > 0
    assert big.score(X * scale, y) == pytest.approx(base.score(X, y), abs=1e-12)
    np.testing.assert_allclose(big.decision_function(X * scale), base.decision_function(X), rtol=1e-5, atol=1e-6)
