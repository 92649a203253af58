"""Tests of aucopt.svm._rankers: RankSVM, SurvivalRankSVM, RankRC, SurvivalRankRC (Tayal et al. 2015;
Chapelle & Keerthi 2010).

Oracles, all independent of the code under test:

* ``sklearn.metrics.roc_auc_score``, scikit-learn's estimator checks and ``GridSearchCV``;
* scikit-survival's ``FastSurvivalSVM`` (its own Newton-CG on AVL-tree pair counts) and
  ``concordance_index_censored`` — optional, via ``pytest.importorskip``;
* scipy's L-BFGS-B on the brute-force kernel objective in β,
  (1/N) Σ_(i,j) ℓ((Kβ)_i − (Kβ)_j) + (α/2) βᵀ K_RR β, with pairs enumerated here from their
  definitions and ℓ written out in tests/reference.py;
* a brute-force RBF kernel and σ² = mean_ij ‖x_i − x_j‖² (Tayal et al. 2015).

Data: subsets (40–150 rows) of WDBC (``load_breast_cancer``) and WHAS500 (full 500 rows only
for the scikit-survival comparison, which takes well under a second).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from reference import reference_loss
from scipy.optimize import minimize
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

import aucopt.kernels
import aucopt.svm._rankers
from aucopt import PairSet, ProblemTooLargeError, RankRC, RankSVM, SurvivalRankRC, SurvivalRankSVM, survival_target

# ============================================================================ data


@pytest.fixture(scope="module")
def cancer():
    """WDBC, malignant (target 0) = positive class 1; raw features (not scaled)."""
    X, y = load_breast_cancer(return_X_y=True)
    return X, (y == 0).astype(int)


@pytest.fixture(scope="module")
def cancer_small(cancer):
    """60 standardized rows (23 positives)."""
    X, y = cancer
    idx = np.random.RandomState(0).permutation(len(y))[:60]
    return StandardScaler().fit_transform(X[idx]), y[idx]


def _whas500_standardized():
    datasets = pytest.importorskip("sksurv.datasets")
    X, y = datasets.load_whas500()
    X = X.select_dtypes("number").to_numpy(dtype=float)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    e_name = next(n for n in y.dtype.names if y.dtype[n].kind == "b")
    t_name = next(n for n in y.dtype.names if n != e_name)
    return X, np.asarray(y[e_name], bool), np.asarray(y[t_name], float)


@pytest.fixture(scope="module")
def whas():
    return _whas500_standardized()


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    """The problems are tiny: BLAS threads only add contention (40x slower on a busy 2-core box)."""
    with threadpool_limits(1):
        yield


# ============================================================================ pair_options variants
#: every survival pair variant of ``pair_options`` (see :func:`pair_options_variant`)
PAIR_VARIANTS = ["default", "harrell", "lprex", "lprex_censored_weight", "time_linear", "time_log_scaled",
                 "time_capped", "time_callable", "weights_array", "weights_callable"]


def pair_options_variant(name, y):
    """The ``pair_options`` dict of variant ``name`` for the survival target ``y``."""
    n_harrell = PairSet.survival(y).n_pairs
    return {
        "default": None,
        "harrell": {"variant": "harrell"},
        "lprex": {"variant": "lprex"},
        "lprex_censored_weight": {"variant": "lprex", "censored_weight": 0.25},
        "time_linear": {"time_weight": "linear"},
        "time_log_scaled": {"time_weight": "log", "time_scale": 2.0},
        "time_capped": {"time_weight": "capped"},
        "time_callable": {"time_weight": lambda delta: 1.0 / (1.0 + delta)},
        "weights_array": {"weights": np.linspace(0.5, 2.0, n_harrell)},
        "weights_callable": {"weights": lambda i, j, ti, tj, ei, ej: 1.0 + (tj > ti)},
    }[name]


# ============================================================================ oracles
def bipartite_pairs(y):
    return np.nonzero((y[:, None] == 1) & (y[None, :] == 0))


def survival_pairs(event, time):
    """Harrell's comparable pairs: event_i and (t_i < t_j or t_i = t_j with j censored)."""
    return np.nonzero(event[:, None] & ((time[:, None] < time[None, :])
                                        | ((time[:, None] == time[None, :]) & ~event[None, :])))


def rbf(A, B, gamma):
    return np.exp(-gamma * ((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=-1))


def sigma2_brute(X):
    return float(np.mean(((X[:, None, :] - X[None, :, :]) ** 2).sum(axis=-1)))


def kernel_beta_objective(K_block, basis, i, j, alpha, loss):
    """F(β) = (1/N) Σ ℓ((Kβ)_i − (Kβ)_j) + (α/2) βᵀ K_RR β and its gradient."""
    value, derivative = loss
    K_RR = K_block[basis]
    N, m = len(i), K_block.shape[0]

    def fg(beta):
        f = K_block @ beta
        z = f[i] - f[j]
        d = derivative(z)
        c = np.bincount(i, weights=d, minlength=m) - np.bincount(j, weights=d, minlength=m)
        Kb = K_RR @ beta
        return float(value(z).sum()) / N + 0.5 * alpha * float(beta @ Kb), K_block.T @ c / N + alpha * Kb

    return fg


def lbfgs(fg, n):
    res = minimize(fg, np.zeros(n), jac=True, method="L-BFGS-B",
                   options={"maxiter": 50000, "maxfun": 100000, "ftol": 1e-16, "gtol": 1e-13, "maxcor": 10})
    return res.x, float(res.fun)


@pytest.fixture
def no_solver_work(monkeypatch):
    """Validation must finish before any kernel evaluation or Newton iteration."""

    def forbidden(*args, **kwargs):
        raise AssertionError("solver work started before the input was validated")

    monkeypatch.setattr(aucopt.svm._rankers, "newton_solve", forbidden)
    monkeypatch.setattr(aucopt.kernels.Kernel, "__call__", forbidden)


# ============================================================================ linear RankSVM
def test_ranksvm_dense_equals_sparse(cancer):
    X, y = cancer
    X = StandardScaler().fit_transform(X)
    X = np.where(np.abs(X) > 0.8, X, 0.0)  # ~40 % zeros
    for tol in (1e-8, 1e-12):
        dense = RankSVM(alpha=1e-3, tol=tol).fit(X, y)
        for fmt in ("csr", "csc"):
            sparse = RankSVM(alpha=1e-3, tol=tol).fit(sp.csr_matrix(X).asformat(fmt), y)
            assert abs(sparse.objective_ - dense.objective_) <= 1e-10
            if tol == 1e-12:  # truncated CG amplifies summation-order roundoff: compare tight solves
                np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=0, atol=1e-6)
                np.testing.assert_allclose(sparse.decision_function(sp.csr_matrix(X).asformat(fmt)),
                                           dense.decision_function(X), rtol=0, atol=1e-5)


def test_ranksvm_objective_is_the_documented_one(cancer_small):
    """objective_ is F(w) = (1/(m₊m₋)) Σ ℓ(wᵀx_i − wᵀx_j) + (α/2)‖w‖² at coef_, and it is optimal."""
    X, y = cancer_small
    i, j = bipartite_pairs(y)
    alpha = 1e-2
    for loss, eps, (value, derivative) in [("squared_hinge", 0.5, reference_loss("squared_hinge")),
                                           ("smoothed_hinge", 0.25, reference_loss("smoothed_hinge", 0.25))]:
        est = RankSVM(alpha=alpha, loss=loss, epsilon=eps).fit(X, y)

        def fg(w):
            f = X @ w
            z = f[i] - f[j]
            d = derivative(z)
            c = np.bincount(i, weights=d, minlength=len(y)) - np.bincount(j, weights=d, minlength=len(y))
            return float(value(z).sum()) / len(i) + 0.5 * alpha * float(w @ w), X.T @ c / len(i) + alpha * w

        assert est.objective_ == pytest.approx(fg(est.coef_)[0], rel=1e-12)
        assert abs(est.objective_ - lbfgs(fg, X.shape[1])[1]) <= 1e-8
        assert est.converged_ and est.n_iter_ == len(est.history_) > 0
        assert est.n_pairs_ == len(i) and est.pair_target_ == "bipartite"


def test_ranksvm_score_is_roc_auc(cancer):
    X, y = cancer
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, random_state=0, stratify=y)
    scaler = StandardScaler().fit(Xtr)
    est = RankSVM(alpha=1e-2).fit(scaler.transform(Xtr), ytr)
    for Xs, ys in [(Xtr, ytr), (Xte, yte)]:
        Xs = scaler.transform(Xs)
        assert est.score(Xs, ys) == pytest.approx(roc_auc_score(ys, est.decision_function(Xs)), abs=1e-12)
        assert est.score(Xs, ys) == pytest.approx(roc_auc_score(ys, Xs @ est.coef_), abs=1e-12)
    # string labels and pos_label: the ranking direction follows pos_label
    labels = np.where(ytr == 1, "malignant", "benign")
    flipped = RankSVM(alpha=1e-2, pos_label="benign").fit(scaler.transform(Xtr), labels)
    np.testing.assert_allclose(flipped.coef_, -est.coef_, rtol=0, atol=1e-8)
    Xte_s = scaler.transform(Xte)
    auc = roc_auc_score(np.where(yte == 1, "malignant", "benign") == "benign", Xte_s @ flipped.coef_)
    assert flipped.score(Xte_s, np.where(yte == 1, "malignant", "benign")) == pytest.approx(auc, abs=1e-12)


def test_alpha_path_matches_fresh_fits_and_saves_iterations(cancer):
    X, y = cancer
    X = StandardScaler().fit_transform(X)
    alpha = 2.0 ** -14
    path = 2.0 ** np.arange(4, -14, -2)
    est = RankSVM(alpha=alpha).fit(X, y, alpha_path=path)
    alphas = [r["alpha"] for r in est.path_]
    assert alphas == [*path.tolist(), alpha]  # in the given order, ending at alpha
    np.testing.assert_array_equal(est.path_[-1]["coef"], est.coef_)
    assert est.path_[-1]["objective"] == est.objective_
    cold = [RankSVM(alpha=v).fit(X, y) for v in alphas]
    for record, fresh in zip(est.path_, cold, strict=False):
        assert record["converged"]
        assert abs(record["objective"] - fresh.objective_) <= 1e-8, record["alpha"]
    warm_total = sum(r["iterations"] for r in est.path_)
    cold_total = sum(c.n_iter_ for c in cold)
    assert warm_total <= cold_total
    # without a path, path_ is empty
    assert RankSVM(alpha=alpha).fit(X, y).path_ == []


def test_ranksvm_weights_are_pair_weights(cancer_small):
    """Integer sample weights equal repeated rows (w_ij = w_i w_j, N = Σ w_ij)."""
    X, y = cancer_small
    weights = np.random.RandomState(1).randint(0, 3, len(y))
    weighted = RankSVM(alpha=1e-2).fit(X, y, sample_weight=weights)
    repeated = RankSVM(alpha=1e-2).fit(np.repeat(X, weights, axis=0), np.repeat(y, weights))
    assert weighted.objective_ == pytest.approx(repeated.objective_, rel=1e-10)
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=0, atol=1e-7)


def test_non_convergence_warns(cancer_small):
    X, y = cancer_small
    with pytest.warns(ConvergenceWarning, match="raise max_iter"):
        est = RankSVM(alpha=1e-4, max_iter=1).fit(X, y)
    assert not est.converged_ and est.n_iter_ == 1


# ============================================================================ survival RankSVM
def _distinct_times(time):
    """sksurv breaks tied times at random; a tiny distinct jitter makes both codes see one order."""
    jitter = 1e-3 * np.random.RandomState(0).permutation(len(time)) / len(time)
    out = time + jitter
    assert len(np.unique(out)) == len(out)
    return out


def test_survival_ranksvm_equals_fast_survival_svm(whas):
    svm = pytest.importorskip("sksurv.svm")
    X, event, time = whas
    time = _distinct_times(time)
    y = survival_target(event, time)
    N = PairSet.survival(y).n_pairs
    i, j = survival_pairs(event, time)
    assert len(i) == N
    alpha = 1e-2
    a_sksurv = 2.0 / (alpha * N)  # scikit-survival's alpha = our C = 2/(αN)
    ours = SurvivalRankSVM(alpha=alpha, tol=1e-10).fit(X, y)
    theirs = svm.FastSurvivalSVM(alpha=a_sksurv, rank_ratio=1.0, fit_intercept=False, max_iter=1000,
                                 tol=1e-12).fit(X, y)

    def sksurv_objective(w_sk):  # scikit-survival's objective, its pairs (j has the event)
        s = X @ w_sk
        return 0.5 * float(w_sk @ w_sk) + 0.5 * a_sksurv * float(np.sum(np.maximum(0.0, 1.0 - (s[j] - s[i])) ** 2))

    F_theirs = float(theirs.optimizer_result_.fun)
    assert sksurv_objective(theirs.coef_) == pytest.approx(F_theirs, rel=1e-10)  # the formula is theirs
    assert ours.objective_ / alpha == pytest.approx(sksurv_objective(-ours.coef_), rel=1e-10)  # F/α
    assert ours.objective_ / alpha == pytest.approx(F_theirs, rel=1e-6)
    np.testing.assert_allclose(ours.coef_, -theirs.coef_, rtol=0, atol=1e-5)
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=0, atol=1e-4)


def test_survival_ranksvm_score_is_sksurv_cindex(whas):
    metrics = pytest.importorskip("sksurv.metrics")
    X, event, time = whas  # with the original tied times
    y = survival_target(event, time)
    est = SurvivalRankSVM(alpha=1e-2).fit(X[:300], y[:300])
    for rows in (slice(0, 300), slice(300, 500)):
        risk = est.predict(X[rows])
        cindex = metrics.concordance_index_censored(event[rows], time[rows], risk, tied_tol=0)[0]
        assert est.score(X[rows], y[rows]) == pytest.approx(cindex, abs=1e-12)
    np.testing.assert_array_equal(est.predict(X), est.decision_function(X))
    np.testing.assert_allclose(est.predict(X), X @ est.coef_, rtol=0, atol=1e-12)
    assert est.pair_target_ == "survival"


def test_survival_weights_are_repeated_rows(whas):
    """Integer weights = repeated subjects (copies of an event share its time: never paired)."""
    X, event, time = (a[:120] for a in whas)
    w = np.random.RandomState(2).randint(0, 3, len(event))
    weighted = SurvivalRankSVM(alpha=1e-2, tol=1e-12).fit(X, survival_target(event, time), sample_weight=w)
    repeated = SurvivalRankSVM(alpha=1e-2, tol=1e-12).fit(
        np.repeat(X, w, axis=0), survival_target(np.repeat(event, w), np.repeat(time, w)))
    assert weighted.objective_ == pytest.approx(repeated.objective_, rel=1e-10)
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=0, atol=1e-8)


# ============================================================================ RankRC
@pytest.mark.parametrize("loss,eps,alpha", [("smoothed_hinge", 0.5, 1e-1), ("smoothed_hinge", 0.5, 1e-2),
                                          ("smoothed_hinge", 0.1, 1e-2), ("squared_hinge", 0.5, 1e-2)])
def test_rankrc_full_basis_is_kernel_ranksvm(cancer_small, alpha, loss, eps):
    X, y = cancer_small
    est = RankRC(alpha=alpha, basis="full", loss=loss, epsilon=eps).fit(X, y)
    gamma = 1.0 / sigma2_brute(X)
    assert est.kernel_.gamma == pytest.approx(gamma, rel=1e-12)
    K = rbf(X, X, gamma)
    i, j = bipartite_pairs(y)
    oracle = reference_loss(loss, eps)
    fg = kernel_beta_objective(K, np.arange(len(y)), i, j, alpha, oracle)
    beta_ref, F_ref = lbfgs(fg, len(y))
    np.testing.assert_array_equal(est.support_, np.arange(len(y)))
    assert est.dual_coef_.shape == (len(y),)
    assert est.objective_ == pytest.approx(fg(est.dual_coef_)[0], rel=1e-10)  # F in β
    assert abs(est.objective_ - F_ref) <= 1e-8
    f, f_ref = K @ est.dual_coef_, K @ beta_ref
    assert np.max(np.abs(f - f_ref)) <= 1e-4 * max(1.0, np.max(np.abs(f_ref)))


def test_rankrc_rare_basis_is_the_minority_class(cancer_small):
    X, y = cancer_small
    shapes = []

    def spy_rbf(A, B):
        shapes.append((A.shape[0], B.shape[0]))
        return rbf(np.asarray(A), np.asarray(B), 0.05)

    for labels, minority in [(y, 1), (1 - y, 0)]:  # positives rare, then positives the majority
        shapes.clear()
        est = RankRC(alpha=1e-2, kernel=spy_rbf).fit(X, labels)
        rare = np.flatnonzero(labels == minority)
        assert len(rare) < len(y) / 2
        np.testing.assert_array_equal(est.support_, rare)
        assert est.support_vectors_.shape == (len(rare), X.shape[1])
        np.testing.assert_array_equal(est.support_vectors_, X[rare])
        assert est.dual_coef_.shape == (len(rare),)
        assert shapes and all(b == len(rare) for _, b in shapes)  # only K_{·R} is ever evaluated
        assert (len(y), len(rare)) in shapes
        # and the solution is the β-problem's optimum over that basis
        K = rbf(X, X[rare], 0.05)
        i, j = bipartite_pairs((labels == 1).astype(int))
        fg = kernel_beta_objective(K, rare, i, j, 1e-2, reference_loss("smoothed_hinge", 0.5))
        assert est.objective_ == pytest.approx(fg(est.dual_coef_)[0], rel=1e-10)
        assert abs(est.objective_ - lbfgs(fg, len(rare))[1]) <= 1e-8


def test_survival_rankrc_rare_basis_is_the_events(whas):
    X, event, time = whas
    X, event, time = X[:100], event[:100], time[:100]  # the original times: ties included
    assert len(np.unique(time)) < len(time)
    est = SurvivalRankRC(alpha=1e-2).fit(X, survival_target(event, time))
    np.testing.assert_array_equal(est.support_, np.flatnonzero(event))
    assert est.support_vectors_.shape == (int(event.sum()), X.shape[1])
    gamma = 1.0 / sigma2_brute(X)
    K = rbf(X, X[est.support_], gamma)
    i, j = survival_pairs(event, time)
    assert est.n_pairs_ == len(i)
    fg = kernel_beta_objective(K, est.support_, i, j, 1e-2, reference_loss("smoothed_hinge", 0.5))
    assert est.objective_ == pytest.approx(fg(est.dual_coef_)[0], rel=1e-10)
    assert abs(est.objective_ - lbfgs(fg, len(est.support_))[1]) <= 1e-8
    np.testing.assert_allclose(est.predict(X[:7]), rbf(X[:7], X[est.support_], gamma) @ est.dual_coef_,
                               rtol=0, atol=1e-10)


def test_rankrc_random_basis_is_reproducible(cancer_small):
    X, y = cancer_small
    a = RankRC(alpha=1e-2, basis="random", basis_size=15, random_state=3).fit(X, y)
    b = RankRC(alpha=1e-2, basis="random", basis_size=15, random_state=3).fit(X, y)
    c = RankRC(alpha=1e-2, basis="random", basis_size=15, random_state=4).fit(X, y)
    for est in (a, c):
        assert len(est.support_) == 15 == len(np.unique(est.support_))
        assert est.support_.min() >= 0 and est.support_.max() < len(y)
        assert est.support_vectors_.shape == (15, X.shape[1])
    np.testing.assert_array_equal(a.support_, b.support_)
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
    assert not np.array_equal(a.support_, c.support_)
    assert np.any(y[a.support_] == 0) or np.any(y[c.support_] == 0)  # drawn from both classes
    default = RankRC(alpha=1e-2, basis="random").fit(X, y)
    assert len(default.support_) == int(y.sum())  # default size: the rare set's
    assert len(RankRC(alpha=1e-2, basis="random", basis_size=len(y)).fit(X, y).support_) == len(y)


def test_rankrc_explicit_indices(cancer_small):
    X, y = cancer_small
    idx = [40, 3, 17, 3, 8]  # unsorted, with a repeat
    est = RankRC(alpha=1e-2, basis=idx).fit(X, y)
    np.testing.assert_array_equal(est.support_, [3, 8, 17, 40])
    np.testing.assert_array_equal(est.support_vectors_, X[[3, 8, 17, 40]])
    rare = np.flatnonzero(y == 1)
    by_index = RankRC(alpha=1e-2, basis=rare).fit(X, y)
    by_name = RankRC(alpha=1e-2, basis="rare").fit(X, y)
    np.testing.assert_array_equal(by_index.dual_coef_, by_name.dual_coef_)
    assert by_index.objective_ == by_name.objective_


def test_rankrc_whitening_handles_duplicate_basis_points(cancer_small):
    """Duplicated positives make K_RR exactly singular ; whitening drops the null space."""
    X, y = cancer_small
    X = X.copy()
    pos = np.flatnonzero(y == 1)
    X[pos[1]] = X[pos[0]]
    X[pos[3]] = X[pos[2]]
    X[pos[4]] = X[pos[2]]
    gamma = 1.0 / sigma2_brute(X)
    K = rbf(X, X[pos], gamma)
    assert np.linalg.matrix_rank(K[pos]) <= len(pos) - 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ConvergenceWarning, no RuntimeWarning
        est = RankRC(alpha=1e-2).fit(X, y)
    np.testing.assert_array_equal(est.support_, pos)
    assert np.all(np.isfinite(est.dual_coef_))
    i, j = bipartite_pairs(y)
    fg = kernel_beta_objective(K, pos, i, j, 1e-2, reference_loss("smoothed_hinge", 0.5))
    beta_ref, F_ref = lbfgs(fg, len(pos))
    assert est.objective_ == pytest.approx(fg(est.dual_coef_)[0], rel=1e-10)
    assert abs(est.objective_ - F_ref) <= 1e-8
    assert np.max(np.abs(K @ est.dual_coef_ - K @ beta_ref)) <= 1e-4


def test_gamma_sigma2_is_mean_pairwise_squared_distance(cancer):
    X, y = cancer
    X = X[:120]
    y = y[:120]
    raw = RankRC(alpha=1e-1, gamma="sigma2").fit(X, y)
    assert raw.kernel_.gamma == pytest.approx(1.0 / sigma2_brute(X), rel=1e-10)
    Xs = StandardScaler().fit_transform(X)  # population std: σ² = 2d exactly
    std = RankRC(alpha=1e-1, gamma="sigma2").fit(Xs, y)
    assert std.kernel_.gamma == pytest.approx(1.0 / (2 * X.shape[1]), rel=1e-10)
    assert std.kernel_.gamma == pytest.approx(1.0 / sigma2_brute(Xs), rel=1e-10)
    fixed = RankRC(alpha=1e-1, gamma=0.3).fit(Xs, y)
    assert fixed.kernel_.gamma == 0.3


def test_rankrc_decision_function_is_the_expansion(cancer):
    X, y = cancer
    Xtr, Xte = StandardScaler().fit_transform(X[:80]), StandardScaler().fit(X[:80]).transform(X[80:120])
    est = RankRC(alpha=1e-2).fit(Xtr, y[:80])
    gamma = 1.0 / sigma2_brute(Xtr)
    f = rbf(Xte, Xtr[est.support_], gamma) @ est.dual_coef_
    np.testing.assert_allclose(est.decision_function(Xte), f + est.intercept_, rtol=0, atol=1e-10)
    assert est.score(Xte, y[80:120]) == pytest.approx(roc_auc_score(y[80:120], f), abs=1e-12)
    np.testing.assert_array_equal(est.predict(Xte), est.classes_[(f + est.intercept_ > 0).astype(int)])
    # sparse input gives the same expansion
    np.testing.assert_allclose(est.decision_function(sp.csr_matrix(Xte)), est.decision_function(Xte),
                               rtol=0, atol=1e-10)


def test_rankrc_beats_trivial_baseline_on_imbalanced_data(cancer):
    """Sanity: 40 malignant vs 357 benign, train on half; a constant ranking has AUC 0.5."""
    X, y = cancer
    rng = np.random.RandomState(0)
    idx = np.concatenate([rng.permutation(np.flatnonzero(y == 1))[:40], np.flatnonzero(y == 0)])
    Xtr, Xte, ytr, yte = train_test_split(X[idx], y[idx], test_size=0.5, stratify=y[idx], random_state=0)
    scaler = StandardScaler().fit(Xtr)
    est = RankRC(alpha=1e-2).fit(scaler.transform(Xtr), ytr)
    assert len(est.support_) == int(ytr.sum()) == 20
    assert est.score(scaler.transform(Xte), yte) > 0.9


# ============================================================================ every pair variant
def weighted_objective(M_of, i, j, w, alpha, loss, penalty):
    """F(θ) = (1/N) Σ w_ij ℓ(f_i − f_j) + (α/2) penalty(θ), N = Σ w_ij, f = M_of(θ), and its gradient."""
    value, derivative = loss
    N = float(w.sum())

    def fg(theta):
        M = M_of
        f = np.asarray(M @ theta).ravel()
        z = f[i] - f[j]
        d = w * derivative(z)
        c = np.bincount(i, weights=d, minlength=M.shape[0]) - np.bincount(j, weights=d, minlength=M.shape[0])
        P, dP = penalty(theta)
        return float(w @ value(z)) / N + 0.5 * alpha * P, np.asarray(M.T @ c).ravel() / N + 0.5 * alpha * dP

    return fg


@pytest.mark.parametrize("variant", PAIR_VARIANTS)
def test_survival_ranksvm_every_pair_variant(whas, variant):
    """SurvivalRankSVM × every pair_options variant × dense/sparse X: objective_ is F over exactly
    the variant's pairs and weights, and its brute-force gradient certifies optimality there."""
    X, event, time = (a[:150] for a in whas)
    y = survival_target(event, time)
    options = pair_options_variant(variant, y)
    i, j, w = PairSet.survival(y, **(options or {})).to_arrays()
    alpha = 1e-2
    fg = weighted_objective(X, i, j, w, alpha, reference_loss("squared_hinge"), lambda t: (t @ t, 2 * t))
    coefs = []
    for Xin in (X, sp.csr_matrix(X)):
        est = SurvivalRankSVM(alpha=alpha, tol=1e-12, pair_options=options).fit(Xin, y)
        assert est.n_pairs_ == len(i) and est.pair_target_ == "survival" and est.converged_
        F, g = fg(est.coef_)
        assert est.objective_ == pytest.approx(F, rel=1e-10)
        assert float(g @ g) / (2 * alpha) <= 1e-10  # F − F* ≤ ‖∇F‖²/(2α): α-strong convexity
        coefs.append(est.coef_)
    np.testing.assert_allclose(coefs[0], coefs[1], rtol=0, atol=1e-7)


@pytest.mark.parametrize("variant", PAIR_VARIANTS)
def test_survival_rankrc_every_pair_variant(whas, variant):
    """SurvivalRankRC × every pair_options variant × dense/sparse X: the β-objective over the
    variant's pairs and weights, at its L-BFGS optimum."""
    X, event, time = (a[:80] for a in whas)
    y = survival_target(event, time)
    options = pair_options_variant(variant, y)
    i, j, w = PairSet.survival(y, **(options or {})).to_arrays()
    alpha = 1e-2
    gamma = 1.0 / sigma2_brute(X)
    rare = np.flatnonzero(event)
    K = rbf(X, X[rare], gamma)
    K_RR = K[rare]
    fg = weighted_objective(K, i, j, w, alpha, reference_loss("smoothed_hinge", 0.5),
                            lambda b: (b @ K_RR @ b, 2 * K_RR @ b))
    _, F_ref = lbfgs(fg, len(rare))
    preds = []
    for Xin in (X, sp.csr_matrix(X)):
        est = SurvivalRankRC(alpha=alpha, pair_options=options).fit(Xin, y)
        assert est.n_pairs_ == len(i) and est.pair_target_ == "survival"
        np.testing.assert_array_equal(est.support_, rare)
        assert est.objective_ == pytest.approx(fg(est.dual_coef_)[0], rel=1e-10)
        assert abs(est.objective_ - F_ref) <= 1e-8
        preds.append(est.predict(Xin))
    np.testing.assert_allclose(preds[0], preds[1], rtol=0, atol=1e-8)


# ============================================================================ scikit-learn compatibility
def test_grid_search_over_alpha(cancer):
    X, y = cancer
    X = StandardScaler().fit_transform(X[:200])
    y = y[:200]
    grid = [1e-3, 1e-1, 10.0]
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    search = GridSearchCV(RankSVM(), {"alpha": grid}, cv=cv).fit(X, y)
    manual = []
    for alpha in grid:
        aucs = []
        for tr, te in cv.split(X, y):
            est = RankSVM(alpha=alpha).fit(X[tr], y[tr])
            aucs.append(roc_auc_score(y[te], X[te] @ est.coef_))
        manual.append(np.mean(aucs))
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], manual, rtol=0, atol=1e-12)
    assert search.best_params_["alpha"] == grid[int(np.argmax(manual))]
    assert search.best_estimator_.alpha == search.best_params_["alpha"]
    rc = GridSearchCV(RankRC(), {"alpha": [1e-2, 1.0]}, cv=cv, scoring="roc_auc").fit(X, y)
    assert rc.best_params_["alpha"] in (1e-2, 1.0)


@pytest.mark.parametrize("cls", [RankSVM, SurvivalRankSVM, RankRC, SurvivalRankRC])
def test_clone_and_params_roundtrip(cls):
    params = {"alpha": 0.25, "epsilon": 0.3, "max_iter": 17, "max_cg_iter": 9, "tol": 1e-6, "verbose": 1}
    if cls in (RankRC, SurvivalRankRC):
        params.update(basis="random", basis_size=5, gamma=0.5, random_state=7, max_bytes=10**6)
    est = cls(**params)
    cloned = clone(est)
    assert cloned is not est
    assert cloned.get_params() == est.get_params()
    for key, value in params.items():
        assert cloned.get_params()[key] == value
    cloned.set_params(alpha=2.0)
    assert cloned.alpha == 2.0 and est.alpha == 0.25
    assert set(est.get_params()) == set(cls().get_params())


def test_verbose_shows_progress_and_zero_is_silent(cancer_small, capfd):
    X, y = cancer_small
    RankSVM(alpha=1e-2).fit(X, y)
    RankRC(alpha=1e-2).fit(X, y)
    assert capfd.readouterr().err == ""
    RankSVM(alpha=1e-2, verbose=1).fit(X, y)
    assert "Newton" in capfd.readouterr().err
    RankRC(alpha=1e-2, verbose=True).fit(X, y)
    assert "Newton" in capfd.readouterr().err


# ============================================================================ bad input
def test_no_solver_work_guard_bites(cancer_small, no_solver_work):
    """The guard used below really intercepts the solver and the kernel evaluation."""
    X, y = cancer_small
    with pytest.raises(AssertionError, match="solver work started"):
        RankSVM(alpha=1e-2).fit(X, y)
    with pytest.raises(AssertionError, match="solver work started"):
        RankRC(alpha=1e-2, max_bytes=None).fit(X, y)


ALL_RANKERS = [RankSVM, SurvivalRankSVM, RankRC, SurvivalRankRC]


def _target(cls, y):
    """Binary labels for the binary rankers, a survival target (events = positives) otherwise."""
    if cls in (SurvivalRankSVM, SurvivalRankRC):
        return survival_target(y == 1, np.arange(len(y), dtype=float))
    return y


@pytest.mark.parametrize("cls", ALL_RANKERS)
@pytest.mark.parametrize("alpha", [0, -1.0, np.nan, np.inf, "1", None])
def test_bad_alpha(cls, alpha, cancer_small, no_solver_work):
    X, y = cancer_small
    with pytest.raises(ValueError,
                       match=rf"'alpha' parameter of {cls.__name__} must be a float in the range \(0.0, inf\)"):
        cls(alpha=alpha).fit(X, _target(cls, y))


@pytest.mark.parametrize("cls", ALL_RANKERS)
@pytest.mark.parametrize("bad", [0, -1.0, np.nan, np.inf])
def test_bad_alpha_path(cls, bad, cancer_small, no_solver_work):
    X, y = cancer_small
    with pytest.raises(ValueError, match="alpha_path must hold positive finite penalty multipliers"):
        cls(alpha=1e-2).fit(X, _target(cls, y), alpha_path=[1.0, bad, 1e-1])


@pytest.mark.parametrize("cls", ALL_RANKERS)
@pytest.mark.parametrize("epsilon", [0, -0.1, 1.5])
def test_bad_epsilon(cls, epsilon, cancer_small, no_solver_work):
    X, y = cancer_small
    with pytest.raises(ValueError,
                       match=rf"'epsilon' parameter of {cls.__name__} must be a float in the range \(0.0, 1.0\]"):
        cls(loss="smoothed_hinge", epsilon=epsilon).fit(X, _target(cls, y))


@pytest.mark.parametrize("cls", ALL_RANKERS)
@pytest.mark.parametrize("loss", ["hinge", "logistic"])
def test_bad_loss(cls, loss, cancer_small, no_solver_work):
    X, y = cancer_small
    with pytest.raises(ValueError, match=rf"'loss' parameter of {cls.__name__} must be a str among "
                                         r"\{'(squared|smoothed)_hinge', '(squared|smoothed)_hinge'\}"):
        cls(loss=loss).fit(X, _target(cls, y))


@pytest.mark.parametrize("cls", ALL_RANKERS)
@pytest.mark.parametrize("name, value", [("max_iter", 0), ("max_iter", -3), ("max_cg_iter", 0), ("tol", 0),
                                         ("tol", -1e-8), ("verbose", "loud")])
def test_bad_iteration_parameters(cls, name, value, cancer_small, no_solver_work):
    X, y = cancer_small
    with pytest.raises(ValueError, match=f"'{name}' parameter of {cls.__name__} must be"):
        cls(**{name: value}).fit(X, _target(cls, y))


def test_bad_basis(cancer_small, no_solver_work):
    X, y = cancer_small
    m = len(y)
    with pytest.raises(ValueError, match="kernel basis is empty"):
        RankRC(basis=[]).fit(X, y)
    for idx in ([0, m], [-1, 3]):
        with pytest.raises(ValueError, match=rf"basis indices must lie in \[0, {m}\)"):
            RankRC(basis=idx).fit(X, y)
    with pytest.raises(ValueError,
                       match=r"'basis' parameter of RankRC must be a str among .*'rare'.* or an array-like"):
        RankRC(basis="minority").fit(X, y)
    for size in (0, 2.5):
        with pytest.raises(ValueError,
                           match=r"'basis_size' parameter of RankRC must be an int in the range \[1, inf\) or None"):
            RankRC(basis="random", basis_size=size).fit(X, y)
    with pytest.raises(ValueError, match=rf"basis_size={m + 1} exceeds the number of samples \({m}\)"):
        RankRC(basis="random", basis_size=m + 1).fit(X, y)
    for cls in (RankRC, SurvivalRankRC):
        with pytest.raises(ValueError, match=f"'kernel' parameter of {cls.__name__} must be a str among"):
            cls(kernel="precomputed").fit(X @ X.T, _target(cls, y))


def test_basis_memory_limit(cancer_small, no_solver_work):
    X, y = cancer_small
    from aucopt._memory import rankrc_bytes
    from aucopt._validation import format_bytes

    m, r = len(y), int(y.sum())
    assert (m, r) == (60, 23)
    need = format_bytes(rankrc_bytes(m, r)).replace(".", r"\.")
    with pytest.raises(ProblemTooLargeError, match=rf"60 x 23 kernel block.* would need about {need}.*"
                                                   r"use RankRC\(basis='random', basis_size=\d+\)"):
        RankRC(max_bytes=rankrc_bytes(m, r // 2)).fit(X, y)
    need = format_bytes(rankrc_bytes(m, m)).replace(".", r"\.")
    with pytest.raises(ProblemTooLargeError, match=rf"60 x 60 kernel block.* would need about {need}.*"
                                                   r"use SurvivalRankRC\(basis='random', basis_size=\d+\)"):
        SurvivalRankRC(basis="full", max_bytes=rankrc_bytes(m, m // 2)).fit(
            X, survival_target(y == 1, np.arange(m, dtype=float)))


def test_one_class_and_all_censored(cancer_small, no_solver_work):
    X, y = cancer_small
    for cls in (RankSVM, RankRC):
        with pytest.raises(ValueError, match="only one class"):
            cls().fit(X, np.ones(len(y), int))
    censored = survival_target(np.zeros(len(y), bool), np.arange(len(y), dtype=float))
    for cls in (SurvivalRankSVM, SurvivalRankRC):
        with pytest.raises(ValueError, match="no comparable pairs"):
            cls().fit(X, censored)
    with pytest.raises(ValueError, match="needs a survival target"):
        SurvivalRankSVM().fit(X, y)
    with pytest.raises(ValueError, match="takes binary labels"):
        RankSVM().fit(X, censored)


@pytest.mark.parametrize("cls", [RankSVM, RankRC])
def test_zero_weight_class_error_names_the_class(cls, cancer_small, no_solver_work):
    """sample_weight that zeroes a whole class leaves no weighted pair; the message must say why
    (scikit-learn's check_classifiers_one_label_sample_weights requires the word 'class', and
    aucopt.estimators' LP/QP rankers say "only one class, or no event, has nonzero weight")."""
    X, y = cancer_small
    with pytest.raises(ValueError, match=r"All pair weights are zero.*class"):
        cls().fit(X, y, sample_weight=(y == 0).astype(float))


def test_basis_mask_or_fractional_indices_are_not_misread(cancer_small):
    """A boolean mask must not silently become the indices {0, 1}, nor 2.7 become index 2:
    either it is read as a mask / rejected, or fitting raises a ValueError."""
    X, y = cancer_small
    mask = y == 1
    try:
        est = RankRC(alpha=1e-2, basis=mask).fit(X, y)
    except ValueError:
        pass
    else:
        np.testing.assert_array_equal(est.support_, np.flatnonzero(mask))
    with pytest.raises(ValueError, match="basis"):
        RankRC(alpha=1e-2, basis=[0.5, 2.7]).fit(X, y)
