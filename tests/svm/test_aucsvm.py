"""Tests of the AUC-maximizing SVM (Brefeld & Scheffer 2005).

Oracles, all independent of the code under test:

* brute-force double loops over pairs for the pairwise kernel K′ (4-term formula, ⟨z_ij, z_uv⟩);
* direct primal QPs (OP2, r = 1, 2; weighted; k-means reduced dual) written in cvxpy/Clarabel
  on explicitly enumerated pair differences z_ij = x_i⁺ − x_j⁻;
* scikit-learn's SVC (hard-margin equivalence w_AUC = w_SVM / 2) and estimator checks;
* ``roc_auc_score`` and scikit-survival's ``concordance_index_censored`` (optional).

Problems are small subsets (20–80 rows) of real data (WDBC, WHAS500) or random data, so the
file runs in well under 90 s on two cores.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_classification
from sklearn.metrics import roc_auc_score
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel, sigmoid_kernel
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.svm import SVC
from test_rankers import PAIR_VARIANTS, pair_options_variant

import aucopt.svm._aucsvm
import aucopt.svm._pairwise_linear
from aucopt import (
    AUCSVM,
    Model,
    PairSet,
    ProblemTooLargeError,
    RankSVM,
    SolverWarning,
    SurvivalAUCSVM,
    SurvivalRankSVM,
    get_formulation,
    roc_auc,
    solve,
    survival_target,
)
from aucopt.kernels import kernel_factor
from aucopt.svm import AUCSVM_AUTO_MAX_PAIRS
from aucopt.svm._pairwise_linear import kmeans_difference_centers

cp = pytest.importorskip("cvxpy")

QP_SOLVERS = ("osqp", "highs", "clarabel")
LOSS = {1: "hinge", 2: "squared_hinge"}  # r = 1, 2 of the paper's r-norm soft margin
#: raw Clarabel settings (cvxpy ``solve`` keywords, passed unchanged through ``solver_options``)
TIGHT_CLARABEL = {"tol_gap_abs": 1e-11, "tol_gap_rel": 1e-11, "tol_feas": 1e-11}


# ============================================================================ helpers / oracles


def _subset(data, n, seed):
    """n rows of a (X, y) data set, drawn without replacement with a fixed seed."""
    X, y = data
    idx = np.random.RandomState(seed).permutation(len(y))[:n]
    return X[idx], y[idx]


def _random_problem(n=30, d=4, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    y = (X[:, 0] + 0.8 * rng.randn(n) > 0).astype(int)
    return X, y


def _brute_pairs(y, pos_label=1):
    """Every (positive, negative) pair by a double loop, in point indices."""
    pos = [i for i in range(len(y)) if y[i] == pos_label]
    neg = [j for j in range(len(y)) if y[j] != pos_label]
    return np.array([(i, j) for i in pos for j in neg])


def _w_of(est, d):
    """w of a fitted *linear* model through the public API only: f(e_k) − f(0) = w_k."""
    return est.decision_function(np.eye(d)) - est.decision_function(np.zeros((1, d)))


def _f_of(est, X):
    """The unthresholded expansion f(x) (decision_function adds −threshold_)."""
    return est.decision_function(X) + est.threshold_


def _clarabel(prob):
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    assert prob.status == cp.OPTIMAL, prob.status
    return prob.value


def _primal_qp(Z, C, norm, weights=None):
    """OP2 in (w, ξ): min ½‖w‖² + (C/r) Σ w_p ξ_p^r  s.t. Z w ≥ 1 − ξ (and ξ ≥ 0 for r = 1)."""
    P, d = Z.shape
    c = np.ones(P) if weights is None else np.asarray(weights, float)
    w, xi = cp.Variable(d), cp.Variable(P)
    if norm == 1:
        obj = 0.5 * cp.sum_squares(w) + C * (c @ xi)
        cons = [Z @ w >= 1 - xi, xi >= 0]
    else:
        obj = 0.5 * cp.sum_squares(w) + C / 2 * (c @ cp.square(xi))
        cons = [Z @ w >= 1 - xi]
    value = _clarabel(cp.Problem(cp.Minimize(obj), cons))
    return w.value, xi.value, value


def _reduced_dual(Cmat, C, norm):
    """Reduced dual on centers c_u (rows of Cmat): max Σα − ½ αᵀGα, G = Cmat Cmatᵀ (+ I/C),
    0 ≤ α ≤ C (r = 1) or α ≥ 0 (r = 2); returns w = Σ α_u c_u."""
    k = Cmat.shape[0]
    a = cp.Variable(k)
    obj = 0.5 * cp.sum_squares(Cmat.T @ a) - cp.sum(a)
    cons = [a >= 0]
    if norm == 1:
        cons.append(a <= C)
    else:
        obj = obj + 0.5 / C * cp.sum_squares(a)
    _clarabel(cp.Problem(cp.Minimize(obj), cons))
    return Cmat.T @ a.value


@pytest.fixture(scope="module")
def cancer40(breast_cancer):
    return _subset(breast_cancer, 40, seed=0)


@pytest.fixture(scope="module")
def cancer60(breast_cancer):
    return _subset(breast_cancer, 60, seed=1)


@pytest.fixture(scope="module")
def whas50(whas500):
    X, event, t = whas500
    idx = np.random.RandomState(0).permutation(len(t))[:50]
    return X[idx], survival_target(event[idx], t[idx])


# ============================================================================ pairwise kernel K′


@pytest.mark.parametrize("kernel", ["linear", "poly"])
def test_pairwise_kernel_from_factor_equals_four_term_formula(kernel):
    """K′ = (A L)(A L)ᵀ equals k(x_i,x_u) − k(x_i,x_v) − k(x_j,x_u) + k(x_j,x_v), with k
    evaluated point by point (not from the matrix K); labels are shuffled so that positives
    are not the first rows (an index clash would show)."""
    rng = np.random.RandomState(0)
    X = rng.randn(11, 3)
    y = np.array([1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0])
    if kernel == "linear":
        def k(a, b):
            return float(a @ b)
    else:
        def k(a, b):
            return float((0.5 * (a @ b) + 1.0) ** 3)
    K = np.array([[k(a, b) for b in X] for a in X])
    pairs = PairSet.bipartite(y)
    m = Model(pairs, kernel=K)
    A = m.pair_incidence.toarray()
    i, j, _ = pairs.to_arrays()
    assert sorted(zip(i.tolist(), j.tolist(), strict=False)) == sorted(map(tuple, _brute_pairs(y).tolist()))
    # A's rows are +1 at the positive and −1 at the negative of each pair
    np.testing.assert_array_equal(A[np.arange(len(i)), i], 1.0)
    np.testing.assert_array_equal(A[np.arange(len(i)), j], -1.0)
    assert np.all(np.abs(A).sum(axis=1) == 2)

    AL = A @ kernel_factor(K)
    Kp = AL @ AL.T
    brute = np.empty_like(Kp)
    for p, (ii, jj) in enumerate(zip(i, j, strict=False)):
        for q, (uu, vv) in enumerate(zip(i, j, strict=False)):
            xi, xj, xu, xv = X[ii], X[jj], X[uu], X[vv]
            brute[p, q] = k(xi, xu) - k(xi, xv) - k(xj, xu) + k(xj, xv)
    scale = np.abs(brute).max()
    np.testing.assert_allclose(Kp, brute, rtol=0, atol=1e-10 * scale)
    ALm = A @ m.kernel_factor  # the Model's own (lazily computed) factor
    np.testing.assert_allclose(ALm @ ALm.T, brute, rtol=0, atol=1e-10 * scale)

    # block form: k_ju = k(x_j⁻, x_u⁺) = K₊₋[u, j], the cross block *transposed*
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    Kpm = K[np.ix_(pos, neg)]
    ip = np.searchsorted(pos, i)
    jn = np.searchsorted(neg, j)
    blocks = (K[np.ix_(i, i)] - Kpm[ip[:, None], jn[None, :]] - Kpm[ip[None, :], jn[:, None]]
              + K[np.ix_(j, j)])
    np.testing.assert_allclose(blocks, brute, atol=1e-10 * scale)  # block formula
    # the oracle has power: reusing the k_iv term K₊₋[i, v] for k_ju (forgetting the transpose)
    # gives a wrong matrix
    clash = K[np.ix_(i, i)] - 2 * Kpm[ip[:, None], jn[None, :]] + K[np.ix_(j, j)]
    assert np.abs(clash - brute).max() > 1e-3 * scale

    if kernel == "linear":  # K′ = Z Zᵀ with z_ij = x_i − x_j; also with the explicit factor L = X
        Z = X[i] - X[j]
        np.testing.assert_allclose(Kp, Z @ Z.T, atol=1e-10 * scale)
        AX = Model(pairs, factor=X).pair_incidence @ X
        np.testing.assert_allclose(AX, Z, atol=1e-14)


@pytest.mark.parametrize("kind", ["linear_rank_deficient", "rbf", "poly"])
def test_kernel_factor_reconstructs_kernel(kind, breast_cancer):
    X, _ = _subset(breast_cancer, 40, seed=3)
    if kind == "linear_rank_deficient":
        X = X[:, :5]
        K = X @ X.T
    elif kind == "rbf":
        K = rbf_kernel(X, gamma=0.5)
    else:
        K = polynomial_kernel(X, degree=2, gamma=1.0, coef0=1.0)
    L = kernel_factor(K)
    lam_max = np.linalg.eigvalsh(K)[-1]
    assert L.shape[0] == K.shape[0]
    err = np.linalg.norm(L @ L.T - K, 2)
    assert err <= 1e-10 * lam_max
    assert np.abs(L @ L.T - K).max() <= 1e-10 * np.abs(K).max()
    if kind == "linear_rank_deficient":
        assert L.shape[1] == 5  # the numerical rank, not n
    assert L.shape[1] == np.linalg.matrix_rank(K, tol=1e-10 * lam_max)


@pytest.mark.parametrize("K, match", [
    (np.array([[1.0, 2.0], [2.0, 1.0]]), "not positive semidefinite"),
    (np.array([[2.0, 0.5], [0.0, 2.0]]), "not symmetric"),
    (np.ones((2, 3)), "square"),
])
def test_kernel_factor_rejects_invalid_matrices(K, match):
    with pytest.raises(ValueError, match=match):
        kernel_factor(K)


def test_kernel_factor_rejects_indefinite_sigmoid_kernel():
    X = np.random.RandomState(0).randn(15, 3)
    K = sigmoid_kernel(X, gamma=1.0, coef0=-1.0)
    assert np.linalg.eigvalsh(K)[0] < -1e-3  # the oracle: the matrix really is indefinite
    with pytest.raises(ValueError, match="not positive semidefinite"):
        kernel_factor(K)


# ============================================================================ dual ↔ primal


@pytest.mark.parametrize("norm", [1, 2])
@pytest.mark.parametrize("solver", ["clarabel", "highs"])
@pytest.mark.parametrize("C", [1e-3, 0.05, 1.0])
def test_linear_dual_equals_direct_primal_qp(cancer40, norm, solver, C):
    X, y = cancer40
    pairs = _brute_pairs(y)
    Z = X[pairs[:, 0]] - X[pairs[:, 1]]
    w_ref, xi_ref, value = _primal_qp(Z, C, norm)

    est = AUCSVM(C=C, kernel="linear", loss=LOSS[norm], solver=solver).fit(X, y)
    w = est.dual_coef_ @ est.support_vectors_  # w = Xᵀ coef
    scale = max(1.0, np.abs(w_ref).max())
    assert np.abs(w - w_ref).max() <= 1e-6 * scale
    np.testing.assert_allclose(_w_of(est, X.shape[1]), w, atol=1e-9 * scale)
    # objective_ is OP2 at the recovered w; the solver's dual objective closes the gap
    assert est.objective_ == pytest.approx(value, rel=1e-6)
    assert est.objective_ + est.dual_objective_ == pytest.approx(0.0, abs=1e-6 * max(1.0, value))
    assert est.n_pairs_ == len(pairs)

    # the dual variables: box (r = 1) and slacks ξ* = α*/C (r = 2), pair by pair
    slot = {tuple(p): k for k, p in enumerate(pairs.tolist())}
    idx = np.array([slot[tuple(p)] for p in est.support_pairs_.tolist()])
    alpha = np.zeros(len(pairs))
    alpha[idx] = est.pair_dual_coef_
    assert np.all(alpha >= 0)
    if norm == 1:
        assert np.all(alpha <= C * (1 + 1e-6))
        margin = Z @ w_ref
        inside = margin > 1 + 1e-4  # strictly satisfied constraints carry no α (KKT, eq. 11)
        assert np.all(alpha[inside] <= 1e-5 * C)
        violated = margin < 1 - 1e-4  # violated constraints sit at the bound α = C
        assert np.allclose(alpha[violated], C, rtol=1e-5)
    else:
        np.testing.assert_allclose(alpha / C, xi_ref, atol=1e-6 * max(1.0, xi_ref.max()))
    # w = Σ α_ij z_ij (eq. 8)
    np.testing.assert_allclose(Z.T @ alpha, w_ref, atol=1e-6 * scale)


def test_l2_slacks_from_rebuilt_formulation(cancer40):
    """ξ* = α*/C read off the full α block of the rebuilt OP4 problem (incl. α = 0 pairs)."""
    X, y = cancer40
    C = 0.2
    pairs = PairSet.bipartite(y)
    problem = get_formulation("aucsvm_l2_dual").build(pairs, factor=X, C=C)
    res = solve(problem, "osqp").raise_for_status()  # polished: active set exact
    alpha = problem.block(res.x, "alpha")
    i, j, _ = pairs.to_arrays()
    Z = X[i] - X[j]
    w_ref, xi_ref, value = _primal_qp(Z, C, 2)
    np.testing.assert_allclose(alpha / C, xi_ref, atol=1e-6)
    coef = problem.output(res.x, "coef")
    np.testing.assert_allclose(X.T @ coef, w_ref, atol=1e-6)
    assert res.objective == pytest.approx(-value, rel=1e-6)


# ============================================================================ small-C plateau


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_small_C_plateau_is_centroid_classifier(cancer40, kernel):
    """For C ≤ C* = 1/max(K′1) every α = C and w ∝ μ⁺ − μ⁻ (the centroid classifier); above C* not."""
    X, y = cancer40
    K = X @ X.T if kernel == "linear" else rbf_kernel(X, gamma=1.0)
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    s = np.zeros(len(y))
    s[pos], s[neg] = len(neg), -len(pos)  # S = Σ_ij (φ(x_i) − φ(x_j)) in coefficients
    Ks = K @ s
    Kp1 = (Ks[pos][:, None] - Ks[neg][None, :]).ravel()  # (K′1)_ij = ⟨S, z_ij⟩
    C_star = 1.0 / Kp1.max()
    centroid = np.zeros(len(y))
    centroid[pos], centroid[neg] = 1.0 / len(pos), -1.0 / len(neg)  # μ⁺ − μ⁻

    for C in (C_star, 0.5 * C_star, 0.1 * C_star):
        est = AUCSVM(C=C, kernel=kernel, gamma=1.0, loss="hinge", solver="clarabel", support_threshold=0).fit(X, y)
        coef = np.zeros(len(y))
        coef[est.support_] = est.dual_coef_
        cos = (coef @ K @ centroid) / np.sqrt((coef @ K @ coef) * (centroid @ K @ centroid))
        assert cos == pytest.approx(1.0, abs=1e-6)
        if C_star > C:  # at C = C* the extreme pair has zero gradient: α there is ill-conditioned
            assert len(est.pair_dual_coef_) == len(pos) * len(neg)
            np.testing.assert_allclose(est.pair_dual_coef_, C, rtol=1e-6)
            np.testing.assert_allclose(coef, C * s, atol=1e-6 * C * np.abs(s).max())

    above = AUCSVM(C=3 * C_star, kernel=kernel, gamma=1.0, loss="hinge", solver="clarabel").fit(X, y)
    n_at_bound = np.sum(above.pair_dual_coef_ > (1 - 1e-3) * 3 * C_star)
    assert n_at_bound < len(pos) * len(neg)  # the plateau ends at C*


# ============================================================================ hard margin


def test_separable_large_C_is_half_the_bias_svm():
    """On linearly separable data, w_AUC = w_SVM / 2 (hard-margin equivalence)."""
    rng = np.random.RandomState(0)
    X = rng.randn(40, 3)
    score = X @ np.array([1.0, -2.0, 0.5]) + 0.3
    keep = np.abs(score) > 0.5  # a clear gap: linearly separable
    X, y = X[keep], (score[keep] > 0).astype(int)
    svc = SVC(kernel="linear", C=1e6, tol=1e-12).fit(X, y)
    w_svm = svc.coef_.ravel()
    for method, solver in (("full", "clarabel"), ("liblinear", "osqp")):
        est = AUCSVM(C=1e3, kernel="linear", method=method, solver=solver).fit(X, y)
        w = _w_of(est, X.shape[1])
        np.testing.assert_allclose(w, w_svm / 2, atol=1e-6 * np.abs(w_svm).max())
        f = _f_of(est, X)
        assert f[y == 1].min() - f[y == 0].max() == pytest.approx(1.0, abs=1e-6)  # gap exactly 1
        assert est.score(X, y) == 1.0
        if method == "full":
            assert np.all(est.pair_dual_coef_ < 0.5 * est.C)  # hard regime: no pair at the bound


# ============================================================================ Theorem 2 (liblinear)


@pytest.mark.parametrize("norm", [1, 2])
@pytest.mark.parametrize("sparse", [False, True])
def test_theorem2_liblinear_equals_qp(cancer60, norm, sparse):
    X, y = cancer60
    X = np.where(X < 0.3, 0.0, X)  # genuinely sparse features
    Xin = sp.csr_matrix(X) if sparse else X
    d = X.shape[1]
    for C in (0.01, 0.5):
        lib = AUCSVM(C=C, kernel="linear", loss=LOSS[norm], method="liblinear").fit(Xin, y)
        qp = AUCSVM(C=C, kernel="linear", loss=LOSS[norm], solver="clarabel").fit(Xin, y)
        w_lib, w_qp = _w_of(lib, d), _w_of(qp, d)
        assert np.abs(w_lib - w_qp).max() <= 1e-6 * max(1.0, np.abs(w_qp).max())
        assert lib.objective_ == pytest.approx(qp.objective_, rel=1e-7)
        assert lib.solve_result_.solver == "liblinear"
        np.testing.assert_allclose(lib.decision_function(Xin) + lib.threshold_,
                                   np.asarray(X @ w_lib).ravel(), atol=1e-10)


# ============================================================================ solver agreement


def _agree(make, X, y, rel=1e-5):
    fits = {s: make(s).fit(X, y) for s in QP_SOLVERS}
    ref = fits["clarabel"]
    for s, est in fits.items():
        assert est.objective_ == pytest.approx(ref.objective_, rel=rel), s
        assert -est.dual_objective_ == pytest.approx(ref.objective_, rel=rel), s
    return fits


@pytest.mark.parametrize("norm", [1, 2])
@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_solvers_agree_on_breast_cancer(cancer60, kernel, norm):
    X, y = cancer60
    for C in (0.01, 1.0):
        fits = _agree(lambda s: AUCSVM(C=C, kernel=kernel, gamma=1.0, loss=LOSS[norm], solver=s), X, y)
        f_ref = _f_of(fits["clarabel"], X)
        for est in fits.values():
            np.testing.assert_allclose(_f_of(est, X), f_ref, atol=1e-3 * np.abs(f_ref).max())


@pytest.mark.parametrize("norm", [1, 2])
def test_solvers_agree_on_random_problems(norm):
    for seed in (0, 1):
        X, y = _random_problem(n=30, d=4, seed=seed)
        _agree(lambda s: AUCSVM(C=0.1, kernel="poly", degree=2, gamma=0.5, loss=LOSS[norm], solver=s), X, y)


@pytest.mark.parametrize("norm", [1, 2])
@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_solvers_agree_on_survival_pairs(whas50, kernel, norm):
    X, y = whas50
    fits = _agree(lambda s: SurvivalAUCSVM(C=0.1, kernel=kernel, loss=LOSS[norm], solver=s), X, y)
    event, t = y["event"], y["time"]
    harrell = np.array([(a, b) for a in range(len(t)) if event[a] for b in range(len(t))
                        if t[a] < t[b] or (t[a] == t[b] and not event[b])])
    assert fits["osqp"].n_pairs_ == len(harrell)
    assert fits["osqp"].pair_target_ == "survival"
    if kernel == "linear":  # OP2 over Harrell's comparable pairs, solved directly
        w_ref, _, value = _primal_qp(X[harrell[:, 0]] - X[harrell[:, 1]], 0.1, norm)
        assert fits["clarabel"].objective_ == pytest.approx(value, rel=1e-6)
        np.testing.assert_allclose(fits["clarabel"].dual_coef_ @ fits["clarabel"].support_vectors_,
                                   w_ref, atol=1e-6 * max(1.0, np.abs(w_ref).max()))


# ============================================================================ Theorem 1


@pytest.mark.parametrize("norm", [1, 2])
def test_theorem1_training_auc_bound(cancer60, norm):
    """1 − AUC_strict ≤ Σ ξ^r / (n⁺n⁻), with ξ from the fitted model (r = 1: hinge of the
    training scores; r = 2: ξ = α/C from the rebuilt OP4), on a soft-margin fit with errors."""
    X, y = cancer60
    pairs = _brute_pairs(y)
    n_pairs = len(pairs)
    n_violations = []
    for C in (1e-4, 1e-2, 1.0):
        est = AUCSVM(C=C, kernel="linear", loss=LOSS[norm], solver="osqp").fit(X, y)
        f = _f_of(est, X)
        margin = f[pairs[:, 0]] - f[pairs[:, 1]]
        violations = int(np.sum(margin <= 0))
        n_violations.append(violations)
        assert (1 - roc_auc(y, f, ties="strict")) * n_pairs == pytest.approx(violations, abs=1e-9)
        if norm == 1:
            xi = np.maximum(0.0, 1 - margin)
        else:
            ps = PairSet.bipartite(y)
            problem = get_formulation("aucsvm_l2_dual").build(ps, factor=X, C=C)
            res = solve(problem, "osqp").raise_for_status()  # polished: exact active set
            xi = problem.block(res.x, "alpha") / C
            np.testing.assert_allclose(np.sort(xi), np.sort(np.maximum(0.0, 1 - margin)), atol=1e-6)
        bound = np.sum(xi**norm) / n_pairs
        assert 1 - roc_auc(y, f, ties="strict") <= bound + 1e-9
        # objective_ = ½‖w‖² + (C/r) Σ ξ^r ties the slacks to the fitted objective
        w = _w_of(est, X.shape[1])
        assert est.objective_ == pytest.approx(0.5 * w @ w + C / norm * np.sum(xi**norm), rel=1e-6)
    assert n_violations[0] > 0  # the bound is exercised on a fit that misranks pairs


# ============================================================================ pair expansion


@pytest.mark.parametrize("kernel, params", [("rbf", {"gamma": 2.0}),
                                            ("poly", {"gamma": 0.5, "degree": 3, "coef0": 1.0})])
@pytest.mark.parametrize("norm", [1, 2])
def test_per_example_coef_equals_pair_expansion(cancer40, breast_cancer, kernel, params, norm):
    X, y = cancer40
    Xt, _ = _subset(breast_cancer, 25, seed=7)
    est = AUCSVM(C=0.5, kernel=kernel, loss=LOSS[norm], solver="clarabel", support_threshold=0, **params).fit(X, y)
    kfun = (lambda A, B: rbf_kernel(A, B, gamma=params["gamma"])) if kernel == "rbf" else (
        lambda A, B: polynomial_kernel(A, B, **params))
    i, j = est.support_pairs_.T
    assert np.all(y[i] == 1) and np.all(y[j] == 0)
    f_pairs = est.pair_dual_coef_ @ (kfun(X[i], Xt) - kfun(X[j], Xt))  # Σ α_ij (k(x_i,x) − k(x_j,x))
    f_coef = _f_of(est, Xt)
    # (tol=0 keeps every α > 0; coef is the lifted v = Aᵀα, equal up to feasibility 1e-8)
    np.testing.assert_allclose(f_coef, f_pairs, atol=1e-8 * max(1.0, np.abs(f_pairs).max()))
    # the collapse coef = Aᵀα: row sums on positives, minus column sums on negatives
    coef = np.zeros(len(y))
    np.add.at(coef, i, est.pair_dual_coef_)
    np.add.at(coef, j, -est.pair_dual_coef_)
    full = np.zeros(len(y))
    full[est.support_] = est.dual_coef_
    np.testing.assert_allclose(full, coef, atol=1e-8 * max(1.0, np.abs(coef).max()))


# ============================================================================ k-means reduction


@pytest.mark.parametrize("norm", [1, 2])
def test_kmeans_model_equals_reduced_dual_on_centers(cancer40, norm):
    X, y = cancer40
    C, rs = 0.5, 3
    pairs = PairSet.bipartite(y)
    centers = kmeans_difference_centers(X, pairs, random_state=rs)
    assert centers.shape == (len(y), X.shape[1])  # k = n⁺ + n⁻ centers
    # they are k-means centers of the differences: each is the mean of its Voronoi cell
    Z = X[_brute_pairs(y)[:, 0]] - X[_brute_pairs(y)[:, 1]]
    label = np.argmin(((Z[:, None, :] - centers[None, :, :]) ** 2).sum(-1), axis=1)
    for u in range(len(centers)):
        np.testing.assert_allclose(Z[label == u].mean(axis=0), centers[u], atol=1e-6)

    est = AUCSVM(C=C, kernel="linear", loss=LOSS[norm], solver="clarabel", method="kmeans",
                 random_state=rs).fit(X, y)
    w_ref = _reduced_dual(centers, C, norm)
    np.testing.assert_allclose(_w_of(est, X.shape[1]), w_ref, atol=1e-6 * max(1.0, np.abs(w_ref).max()))
    # a different seed gives different centers, hence (generically) a different model
    other = AUCSVM(C=C, kernel="linear", loss=LOSS[norm], solver="clarabel", method="kmeans",
                   random_state=rs + 1).fit(X, y)
    assert np.abs(_w_of(other, X.shape[1]) - w_ref).max() > 1e-6


@pytest.mark.parametrize("case", ["default_k_equals_P", "one_positive", "n_clusters_P", "n_clusters_above_P"])
def test_kmeans_falls_back_to_exact_when_no_reduction_possible(cancer40, case):
    X, y = cancer40
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    n_clusters = None
    if case == "default_k_equals_P":  # n⁺ = n⁻ = 2: k = 4 = P
        idx = np.r_[pos[:2], neg[:2]]
    elif case == "one_positive":  # n⁺ = 1: k = n⁻ + 1 > P = n⁻
        idx = np.r_[pos[:1], neg[:6]]
    else:
        idx = np.r_[pos[:5], neg[:4]]
        n_clusters = 20 if case == "n_clusters_P" else 25
    Xs, ys = X[idx], y[idx]
    for norm in (1, 2):
        red = AUCSVM(C=0.5, kernel="linear", loss=LOSS[norm], solver="clarabel", method="kmeans",
                     method_options={"n_clusters": n_clusters}).fit(Xs, ys)
        exact = AUCSVM(C=0.5, kernel="linear", loss=LOSS[norm], solver="clarabel").fit(Xs, ys)
        np.testing.assert_allclose(_w_of(red, X.shape[1]), _w_of(exact, X.shape[1]), atol=1e-7)
        assert red.objective_ == pytest.approx(exact.objective_, rel=1e-7)


def test_kmeans_drops_empty_clusters_from_duplicated_rows(breast_cancer):
    """3 distinct positives and 2 distinct negatives, rows duplicated to n⁺ = 5, n⁻ = 4:
    P = 20 differences with only 6 distinct values but k = 9 clusters, so k-means must leave
    clusters empty. The model must equal the reduced dual on the 6 distinct differences."""
    X, y = _subset(breast_cancer, 40, seed=5)
    pos, neg = np.flatnonzero(y == 1)[:3], np.flatnonzero(y == 0)[:2]
    rows = np.r_[pos[[0, 0, 1, 2, 2]], neg[[0, 1, 1, 1]]]
    Xd, yd = X[rows], y[rows]
    pairs = PairSet.bipartite(yd)
    centers = kmeans_difference_centers(Xd, pairs, random_state=0)
    assert np.all(np.isfinite(centers))
    distinct = np.unique(np.round(X[pos][:, None, :] - X[neg][None, :, :], 12).reshape(-1, X.shape[1]), axis=0)
    assert len(distinct) == 6
    assert len(centers) == 6  # the 3 empty clusters were dropped, no duplicate centers kept
    for c in centers:
        assert np.min(np.abs(distinct - c).max(axis=1)) < 1e-10
    for norm in (1, 2):
        est = AUCSVM(C=0.5, kernel="linear", loss=LOSS[norm], solver="clarabel", method="kmeans").fit(Xd, yd)
        w_ref = _reduced_dual(distinct, 0.5, norm)
        np.testing.assert_allclose(_w_of(est, X.shape[1]), w_ref, atol=1e-6 * max(1.0, np.abs(w_ref).max()))


# ============================================================================ weighted pairs


@pytest.mark.parametrize("norm", [1, 2])
def test_weighted_pairs_match_weighted_primal(cancer40, norm):
    """sample_weight w gives pair weights w_i w_j: box α ≤ C w_ij (r = 1), ξ = α/(C w_ij) (r = 2)."""
    X, y = cancer40
    sw = np.random.RandomState(4).uniform(0.2, 3.0, size=len(y))
    sw[[3, 17]] = 0.0  # zero weight: their pairs leave the problem
    C = 0.3
    pairs = _brute_pairs(y)
    wij = sw[pairs[:, 0]] * sw[pairs[:, 1]]
    Z = X[pairs[:, 0]] - X[pairs[:, 1]]
    w_ref, xi_ref, value = _primal_qp(Z, C, norm, weights=wij)
    est = AUCSVM(C=C, kernel="linear", loss=LOSS[norm], solver="osqp").fit(X, y, sample_weight=sw)
    w = _w_of(est, X.shape[1])
    np.testing.assert_allclose(w, w_ref, atol=1e-6 * max(1.0, np.abs(w_ref).max()))
    assert est.objective_ == pytest.approx(value, rel=1e-6)
    lib = AUCSVM(C=C, kernel="linear", loss=LOSS[norm], method="liblinear").fit(X, y, sample_weight=sw)
    np.testing.assert_allclose(_w_of(lib, X.shape[1]), w_ref, atol=1e-6 * max(1.0, np.abs(w_ref).max()))
    assert lib.objective_ == pytest.approx(value, rel=1e-6)

    slot = {tuple(p): k for k, p in enumerate(pairs.tolist())}
    idx = np.array([slot[tuple(p)] for p in est.support_pairs_.tolist()])
    alpha = np.zeros(len(pairs))
    alpha[idx] = est.pair_dual_coef_
    assert np.all(alpha[wij == 0] == 0)
    margin = Z @ w_ref
    if norm == 1:
        assert np.all(alpha <= C * wij * (1 + 1e-6) + 1e-12)
        violated = (margin < 1 - 1e-4) & (wij > 0)
        assert violated.sum() > 5
        np.testing.assert_allclose(alpha[violated], C * wij[violated], rtol=1e-5)
        # the bound really is per pair: the unweighted C would be violated somewhere
        assert np.any(alpha > C * (1 + 1e-3)) or np.any(alpha[violated] < C * (1 - 1e-3))
    else:
        pos_w = wij > 0
        np.testing.assert_allclose(alpha[pos_w] / (C * wij[pos_w]), xi_ref[pos_w], atol=1e-6)


def test_integer_weights_equal_repeated_rows_linear(cancer40):
    """Weights in {1, 2, 3} ≡ repeating rows (same pair multiset): same w and objective."""
    X, y = cancer40
    sw = np.random.RandomState(2).randint(1, 4, size=len(y))
    weighted = AUCSVM(C=0.2, kernel="linear", solver="clarabel").fit(X, y, sample_weight=sw)
    repeated = AUCSVM(C=0.2, kernel="linear", solver="clarabel").fit(np.repeat(X, sw, axis=0), np.repeat(y, sw))
    np.testing.assert_allclose(_w_of(weighted, X.shape[1]), _w_of(repeated, X.shape[1]), atol=1e-6)
    assert weighted.objective_ == pytest.approx(repeated.objective_, rel=1e-6)


def test_weighted_threshold_equals_repeated_rows():
    """threshold_ must treat integer weights as repetitions (scikit-learn's sample_weight
    semantics), i.e. maximize the *weighted* training accuracy, so decision_function and
    predict agree with a fit on repeated rows, not only the ranking. On x = 0..3 with labels
    0, 1, 0, 1 the cuts at 0.5 and 2.5 (in x) tie without weights; weight 3 on the negative
    at x = 2 makes 2.5 the only best cut (5 of 6 weighted points correct, against 3 of 6)."""
    X = np.arange(4.0)[:, None]
    y = np.array([0, 1, 0, 1])
    sw = np.array([1, 1, 3, 1])
    # C = 0.5: the objective is ½w² + C(1 − w) + 3C(1 + w) + 3C(1 − w) near w = ½, smooth there
    weighted = AUCSVM(C=0.5, kernel="linear", solver="clarabel").fit(X, y, sample_weight=sw)
    repeated = AUCSVM(C=0.5, kernel="linear", solver="clarabel").fit(np.repeat(X, sw, axis=0), np.repeat(y, sw))
    f = _f_of(weighted, X)
    np.testing.assert_allclose(f, 0.5 * X.ravel(), atol=1e-6)  # w = C = ½ by hand
    np.testing.assert_allclose(_f_of(repeated, X), f, atol=1e-6)  # same ranking function
    assert np.all(np.diff(f) > 0)
    cuts = np.r_[f[0] - 1, 0.5 * (f[1:] + f[:-1]), f[-1] + 1]
    best = max(np.sum(sw * ((f > c) == (y == 1))) for c in cuts)
    assert best == 5
    assert np.sum(sw * ((f > repeated.threshold_) == (y == 1))) == best
    got = np.sum(sw * ((f > weighted.threshold_) == (y == 1)))
    assert got == best, f"threshold_ ignores sample_weight: weighted training accuracy {got}/6, best {best}/6"
    np.testing.assert_array_equal(weighted.predict(X), repeated.predict(X))


# ============================================================================ estimator behaviour
# (scikit-learn's estimator checks run for every estimator in tests/test_common.py)


def test_grid_search_and_score_equal_roc_auc(breast_cancer):
    X, y = _subset(breast_cancer, 60, seed=11)
    grid = {"C": [0.01, 1.0], "gamma": [0.3, 3.0]}
    base = AUCSVM(solver="clarabel")
    by_score = GridSearchCV(base, grid, cv=2).fit(X, y)
    by_auc = GridSearchCV(base, grid, cv=2, scoring="roc_auc").fit(X, y)
    np.testing.assert_allclose(by_score.cv_results_["mean_test_score"],
                               by_auc.cv_results_["mean_test_score"], atol=1e-12)
    assert by_score.best_params_ == by_auc.best_params_
    train, test = next(iter(StratifiedKFold(2).split(X, y)))
    k = by_auc.cv_results_["params"].index(by_auc.best_params_)
    fold = AUCSVM(solver="clarabel", **by_auc.best_params_).fit(X[train], y[train])
    expected = roc_auc_score(y[test], fold.decision_function(X[test]))
    assert by_auc.cv_results_["split0_test_score"][k] == pytest.approx(expected, abs=1e-12)
    assert fold.score(X[test], y[test]) == pytest.approx(expected, abs=1e-12)
    assert by_auc.best_score_ > 0.9


def test_score_equals_roc_auc_score_with_ties(breast_cancer):
    X, y = _subset(breast_cancer, 80, seed=12)
    Xtr, ytr, Xte, yte = X[:50], y[:50], X[50:], y[50:]
    Xte, yte = np.r_[Xte, Xte[:10]], np.r_[yte, 1 - yte[:10]]  # duplicated rows: tied scores
    for est in (AUCSVM(C=0.1, solver="clarabel"), AUCSVM(C=1e-4, kernel="linear", solver="osqp", pos_label=0)):
        est.fit(Xtr, ytr)
        auc = est.score(Xte, yte)
        assert auc == pytest.approx(roc_auc_score(yte, est.decision_function(Xte)), abs=1e-12)
        assert 0.5 < auc < 1.0


def test_survival_score_equals_sksurv_concordance(whas500):
    sksurv_metrics = pytest.importorskip("sksurv.metrics")
    X, event, t = whas500
    idx = np.random.RandomState(1).permutation(len(t))[:70]
    tr, te = idx[:45], idx[45:]
    te = np.r_[te, te[:8]]  # duplicated subjects: exact ties in risk
    est = SurvivalAUCSVM(C=0.1, solver="clarabel").fit(X[tr], survival_target(event[tr], t[tr]))
    risk = est.predict(X[te])
    np.testing.assert_array_equal(risk, est.decision_function(X[te]))
    oracle = sksurv_metrics.concordance_index_censored(event[te], t[te], risk, tied_tol=0)[0]
    assert est.score(X[te], survival_target(event[te], t[te])) == pytest.approx(oracle, abs=1e-12)


# ============================================================================ options reach the backend


def test_tol_max_iter_verbose_and_solver_options_reach_the_qp_backend(cancer40, monkeypatch):
    """The estimator passes tol, max_iter, verbose and the raw solver_options dict through
    aucopt.solvers.solve unchanged (the backend maps tol / max_iter onto its own options)."""
    X, y = cancer40
    calls = []
    real_solve = aucopt.svm._aucsvm.solve

    def spy(problem, solver, **kwargs):
        calls.append((solver, kwargs))
        return real_solve(problem, solver, **kwargs)

    monkeypatch.setattr(aucopt.svm._aucsvm, "solve", spy)
    raw = {"polishing": True}
    est = AUCSVM(C=0.1, kernel="linear", solver="osqp", tol=1e-7, max_iter=50_000, verbose=0,
                 solver_options=raw).fit(X, y)
    assert calls == [("osqp", {"tol": 1e-7, "max_iter": 50_000, "verbose": False, "solver_options": raw})]
    assert calls[0][1]["solver_options"] is raw
    assert est.n_iter_ == est.solve_result_.iterations > 0
    calls.clear()
    AUCSVM(C=0.1, kernel="linear", solver="highs").fit(X, y)
    assert calls == [("highs", {"tol": None, "max_iter": None, "verbose": False, "solver_options": None})]


def test_liblinear_takes_tol_and_max_iter(cancer40):
    """method='liblinear': max_iter is liblinear's iteration limit (a stop there warns), tol its
    stopping tolerance (a loose one gives a visibly different, less optimal w)."""
    X, y = cancer40
    with pytest.warns(SolverWarning, match="iteration_limit"):
        short = AUCSVM(C=0.5, kernel="linear", method="liblinear", max_iter=2).fit(X, y)
    assert short.n_iter_ == 2 and short.solve_result_.status == "iteration_limit"
    exact = AUCSVM(C=0.5, kernel="linear", method="liblinear").fit(X, y)
    loose = AUCSVM(C=0.5, kernel="linear", method="liblinear", tol=1.0).fit(X, y)
    assert exact.n_iter_ > loose.n_iter_
    assert loose.objective_ > exact.objective_ * (1 + 1e-6)


def test_memory_budget_names_the_scalable_path(cancer40):
    """The 40 x 40 kernel matrix and its pair duals, the 40 x 40 kernel factor and its QP, or 40 x 30
    pair differences of 30 features: far more than 10 kB; the message names a path that fits instead
    of the refused one (a kernel ranker with a small basis for a non-linear kernel)."""
    X, y = cancer40
    with pytest.raises(ProblemTooLargeError, match=r"Dual coordinate descent over .* pairs of 40 points.*use RankRC"):
        AUCSVM(max_bytes=10_000).fit(X, y)
    with pytest.raises(ProblemTooLargeError, match=r"40 x 40 kernel factor and the dual QP.*use RankRC"):
        AUCSVM(method="full", max_bytes=10_000).fit(X, y)
    with pytest.raises(ProblemTooLargeError, match=r"liblinear route over .* would need about .*: use ") as info:
        AUCSVM(kernel="linear", method="liblinear", max_bytes=10_000).fit(X, y)
    assert "liblinear" not in str(info.value).split(": use ")[1]


# ============================================================================ C and alpha


@pytest.mark.parametrize("method", ["full", "liblinear", "newton"])
@pytest.mark.parametrize("weighted", [False, True])
def test_C_alpha_relation_squared_hinge_equals_ranksvm(cancer40, method, weighted):
    """docs/parameters.md: with N = Σ w_ij the total pair weight, AUCSVM(loss="squared_hinge",
    C=2/(αN)) and RankSVM(alpha=α) have the same minimizer w, and F_C = F_α / α."""
    X, y = cancer40
    d = X.shape[1]
    sw = np.random.RandomState(5).uniform(0.5, 2.0, len(y)) if weighted else None
    pw = np.ones(len(y)) if sw is None else sw
    N = float(pw[y == 1].sum() * pw[y == 0].sum())  # Σ_ij w_i w_j over the positive–negative pairs
    for alpha in (1e-2, 1.0):
        rank = RankSVM(alpha=alpha, tol=1e-12).fit(X, y, sample_weight=sw)
        svm = AUCSVM(loss="squared_hinge", kernel="linear", C=2.0 / (alpha * N), method=method,
                     solver="clarabel").fit(X, y, sample_weight=sw)
        scale = max(1.0, np.abs(rank.coef_).max())
        np.testing.assert_allclose(_w_of(svm, d), rank.coef_, rtol=0, atol=max(1e-6 * scale, _w_bound(svm)))
        assert svm.objective_ == pytest.approx(rank.objective_ / alpha, rel=1e-6)
        # the power of the check: C = 1/(αN) (the hinge's relation) is a different problem
        other = AUCSVM(loss="squared_hinge", kernel="linear", C=1.0 / (alpha * N), method=method,
                       solver="clarabel").fit(X, y, sample_weight=sw)
        assert np.abs(_w_of(other, d) - rank.coef_).max() > 1e-3 * scale


def test_C_alpha_relation_survival_squared_hinge(whas50):
    """The same relation over Harrell's comparable pairs, N = the number of comparable pairs."""
    X, y = whas50
    N = PairSet.survival(y).n_pairs
    alpha = 0.05
    rank = SurvivalRankSVM(alpha=alpha, tol=1e-12).fit(X, y)
    svm = SurvivalAUCSVM(loss="squared_hinge", kernel="linear", C=2.0 / (alpha * N), solver="clarabel").fit(X, y)
    assert svm.n_pairs_ == rank.n_pairs_ == N
    np.testing.assert_allclose(svm.dual_coef_ @ svm.support_vectors_, rank.coef_, rtol=0,
                               atol=1e-6 * max(1.0, np.abs(rank.coef_).max()))
    assert svm.objective_ == pytest.approx(rank.objective_ / alpha, rel=1e-6)


def test_C_alpha_relation_hinge(cancer40):
    """Hinge: AUCSVM(loss="hinge", C=1/(αN)) minimizes F_α(w) = (1/N) Σ max(0, 1 − z) + (α/2)‖w‖²
    (solved here directly in cvxpy), and F_C = F_α / α."""
    X, y = cancer40
    pairs = _brute_pairs(y)
    Z = X[pairs[:, 0]] - X[pairs[:, 1]]
    N = len(pairs)
    alpha = 0.05
    w = cp.Variable(X.shape[1])
    F_alpha = _clarabel(cp.Problem(cp.Minimize(cp.sum(cp.pos(1 - Z @ w)) / N + alpha / 2 * cp.sum_squares(w))))
    svm = AUCSVM(loss="hinge", kernel="linear", C=1.0 / (alpha * N), solver="clarabel").fit(X, y)
    np.testing.assert_allclose(_w_of(svm, X.shape[1]), w.value, rtol=0,
                               atol=1e-6 * max(1.0, np.abs(w.value).max()))
    assert svm.objective_ == pytest.approx(F_alpha / alpha, rel=1e-6)


# ============================================================================ method="newton"


def _w_bound(est):
    """For method="newton", how far w may be from the optimum: the objective is ½‖w‖² plus a
    convex loss, so ½‖w − w*‖² ≤ F(w) − F* ≤ the duality gap objective_ + dual_objective_ (0 for
    the other routes, whose w the callers compare at a fixed tolerance)."""
    return float(np.sqrt(2.0 * max(est.objective_ + est.dual_objective_, 0.0))) if est.method_ == "newton" else 0.0


def _squared_hinge_dual(X, w, i, j, wij, C):
    """The dual objective (minimization form) at α_p = C w_p ξ_p, ξ_p = max(0, 1 − (f_i − f_j)),
    from the listed pairs: ½‖Σ_p α_p (x_i − x_j)‖² + Σ_p α_p² / (2 C w_p) − Σ_p α_p."""
    f = X @ w
    alpha = C * wij * np.maximum(0.0, 1.0 - (f[i] - f[j]))
    u = (X[i] - X[j]).T @ alpha
    ridge = np.divide(alpha**2, 2 * C * wij, out=np.zeros_like(alpha), where=wij > 0)
    return 0.5 * u @ u + ridge.sum() - alpha.sum()


@pytest.mark.parametrize("variant", PAIR_VARIANTS)
def test_newton_is_the_squared_hinge_primal_over_every_pair_variant(whas50, variant):
    """method="newton" (the primal by truncated Newton, the pairs never listed) reaches the primal
    QP's optimum (cvxpy, Clarabel) over exactly the variant's pairs and weights, dense or sparse X;
    its dual objective is the one of the pair duals C w_p ξ_p computed from the listed pairs, and
    the duality gap it certifies is below tol."""
    X, y = whas50
    options = pair_options_variant(variant, y)
    i, j, wij = PairSet.survival(y, **(options or {})).to_arrays()
    C = 0.1
    w_ref, _, value = _primal_qp(X[i] - X[j], C, 2, weights=wij)
    for Xin in (X, sp.csr_matrix(X)):
        est = SurvivalAUCSVM(C=C, kernel="linear", loss="squared_hinge", method="newton",
                             pair_options=options).fit(Xin, y)
        assert est.solve_result_.status == "optimal" and est.method_ == "newton"
        w = _w_of(est, X.shape[1])
        assert np.linalg.norm(w - w_ref) <= _w_bound(est) + 1e-6 * max(1.0, np.abs(w_ref).max())
        assert est.objective_ == pytest.approx(value, rel=1e-8)
        assert est.dual_objective_ == pytest.approx(_squared_hinge_dual(X, w, i, j, wij, C), rel=1e-9)
        assert 0.0 <= est.objective_ + est.dual_objective_ <= 1e-9 * est.objective_
        assert not hasattr(est, "support_pairs_")  # the pairs are never listed


def test_auto_takes_newton_for_the_linear_squared_hinge_above_the_qp_threshold():
    """Above 20,000 pairs, method="auto" solves the linear squared hinge by Newton (sample
    weights included), at dual coordinate descent's optimum; the hinge and other kernels keep
    dual coordinate descent, an explicit solver keeps the QP."""
    X, y = make_classification(n_samples=300, n_features=6, flip_y=0.05, random_state=0)  # 22,496 pairs
    sw = np.random.RandomState(0).uniform(0.5, 2.0, len(y))
    params = dict(kernel="linear", loss="squared_hinge", C=0.05)
    auto = AUCSVM(**params).fit(X, y, sample_weight=sw)
    dcd = AUCSVM(**params, method="dcd", tol=1e-9).fit(X, y, sample_weight=sw)
    assert auto.method_ == "newton" and dcd.solve_result_.status == "optimal"
    assert auto.objective_ == pytest.approx(dcd.objective_, rel=1e-8)
    assert -dcd.dual_objective_ <= auto.objective_ * (1 + 1e-12)  # weak duality across the two routes
    assert np.linalg.norm(_w_of(auto, 6) - _w_of(dcd, 6)) <= _w_bound(auto) + 1e-6 * np.abs(_w_of(dcd, 6)).max()
    pairs = PairSet.bipartite(y)
    reason = AUCSVM(**params).select_method(pairs)[1]
    assert f"truncated Newton on the primal over the {pairs.n_pairs:,} pairs" in reason
    assert AUCSVM(kernel="linear").select_method(pairs)[0] == "dcd"
    assert AUCSVM(kernel="rbf", loss="squared_hinge").select_method(pairs)[0] == "dcd"
    assert AUCSVM(**params, solver="osqp").select_method(pairs, X)[0] == "full"
    small = PairSet.bipartite(y[:100])
    assert small.n_pairs <= AUCSVM_AUTO_MAX_PAIRS
    assert AUCSVM(**params).select_method(small)[0] == "full"  # below the threshold: it lists the support pairs


def test_newton_stopped_short_of_tol_says_so(cancer60, monkeypatch):
    """An iteration limit, a time limit, or a gradient that stops decreasing before tol (rounding
    level; forced here): the status says which, with a warning and the gap reached; never "optimal"."""
    import aucopt.svm._newton

    X, y = cancer60
    params = dict(kernel="linear", loss="squared_hinge", method="newton", C=1e3)
    with pytest.warns(SolverWarning, match=r"iteration_limit.*relative duality gap"):
        assert AUCSVM(**params, max_iter=1).fit(X, y).solve_result_.status == "iteration_limit"
    with pytest.warns(SolverWarning, match=r"time_limit.*relative duality gap"):
        est = AUCSVM(**params, solver_options={"time_limit": 1e-9}).fit(X, y)
    assert est.solve_result_.status == "time_limit" and est.n_iter_ == 1
    assert AUCSVM(**params, tol=1e-12).fit(X, y).solve_result_.status == "optimal"  # far below the default
    monkeypatch.setattr(aucopt.svm._newton._StoppingRule, "STALL_ITERATIONS", 0)  # a stall at once
    with pytest.warns(SolverWarning, match=r"optimal_inaccurate.*rounding level.*relative duality gap"):
        assert AUCSVM(**params).fit(X, y).solve_result_.status == "optimal_inaccurate"
    with pytest.raises(ValueError, match=r"solver_options \['polishing'\] are not options of method='newton'"):
        AUCSVM(**params, solver_options={"polishing": False}).fit(X, y)


def test_newton_warm_start_reuses_w_and_refits_after_another_route(cancer60):
    """warm_start: a refit at the same C starts at the optimum (no iteration), one at a new C
    reaches the cold fit's optimum; a refit by Newton drops the pair duals of an earlier route."""
    X, y = cancer60
    est = AUCSVM(kernel="linear", loss="squared_hinge", method="newton", C=0.1, warm_start=True).fit(X, y)
    assert est.n_iter_ > 0 and est.fit(X, y).n_iter_ == 0 and est.solve_result_.status == "optimal"
    cold = AUCSVM(kernel="linear", loss="squared_hinge", method="newton", C=1.0).fit(X, y)
    assert est.set_params(C=1.0).fit(X, y).objective_ == pytest.approx(cold.objective_, rel=1e-9)
    assert est.n_iter_ <= cold.n_iter_
    est.set_params(method="dcd").fit(X, y)
    assert hasattr(est, "support_pairs_")
    assert not hasattr(est.set_params(method="newton").fit(X, y), "support_pairs_")


def test_a_refused_squared_hinge_route_names_newton(cancer40):
    """Newton needs O(n) besides X: the first route a refused linear squared-hinge fit names."""
    X, y = cancer40
    with pytest.raises(ProblemTooLargeError, match=r"use SurvivalAUCSVM\(kernel='linear', method='newton'\)|"
                                                   r"use AUCSVM\(kernel='linear', method='newton'\)"):
        AUCSVM(kernel="linear", loss="squared_hinge", method="liblinear", max_bytes=10_000).fit(X, y)
    with pytest.raises(ProblemTooLargeError, match=r"Truncated Newton over 40 points"):
        AUCSVM(kernel="linear", loss="squared_hinge", method="newton", max_bytes=1_000).fit(X, y)


# ============================================================================ pair_options variants

@pytest.mark.parametrize("variant", PAIR_VARIANTS)
def test_every_pair_variant_is_the_weighted_primal(whas50, variant):
    """SurvivalAUCSVM × every pair_options variant × dense/sparse X: the fitted w is the primal
    QP's over exactly the variant's pairs and weights (regression: lprex used to crash)."""
    X, y = whas50
    options = pair_options_variant(variant, y)
    i, j, wij = PairSet.survival(y, **(options or {})).to_arrays()
    if variant.startswith("lprex"):
        assert np.any(~y["event"][i])  # censored–censored pairs are in the set
    C = 0.1
    w_ref, _, value = _primal_qp(X[i] - X[j], C, 1, weights=wij)
    fits = []
    for Xin in (X, sp.csr_matrix(X)):
        est = SurvivalAUCSVM(C=C, kernel="linear", solver="clarabel", solver_options=TIGHT_CLARABEL,
                             pair_options=options).fit(Xin, y)
        assert est.n_pairs_ == len(i) and est.pair_target_ == "survival"
        np.testing.assert_allclose(est.dual_coef_ @ est.support_vectors_, w_ref, rtol=0,
                                   atol=1e-6 * max(1.0, np.abs(w_ref).max()))
        assert est.objective_ == pytest.approx(value, rel=1e-6)
        fits.append(est.predict(Xin))
    np.testing.assert_allclose(fits[0], fits[1], rtol=0, atol=1e-8)


# ============================================================================ bad input


@pytest.fixture
def no_solver_work(monkeypatch):
    """Any solver / pair-difference work fails the test: errors must come first."""
    def boom(*args, **kwargs):
        raise AssertionError("solver work started before validation")
    monkeypatch.setattr(aucopt.svm._aucsvm, "solve", boom)
    monkeypatch.setattr(aucopt.svm._pairwise_linear, "theorem2_weights", boom)
    monkeypatch.setattr(aucopt.svm._pairwise_linear, "kmeans_difference_centers", boom)
    monkeypatch.setattr(aucopt.svm._pairwise_linear, "pair_differences", boom)


@pytest.mark.parametrize("params, match", [
    ({"C": 0}, r"'C' parameter of {cls} must be a float in the range \(0.0, inf\)"),
    ({"C": -1.0}, r"'C' parameter of {cls} must be a float in the range \(0.0, inf\)"),
    ({"C": np.inf}, r"'C' parameter of {cls} must be a float in the range \(0.0, inf\)"),
    ({"C": "1"}, r"'C' parameter of {cls} must be a float in the range \(0.0, inf\)"),
    ({"loss": "l1"}, "'loss' parameter of {cls} must be a str among"),
    ({"loss": 2}, "'loss' parameter of {cls} must be a str among"),
    ({"loss": "smoothed_hinge"}, "'loss' parameter of {cls} must be a str among"),
    ({"method": "foo"}, "'method' parameter of {cls} must be a str among"),
    ({"method": None}, "'method' parameter of {cls} must be a str among"),
    ({"method_options": 5}, "'method_options' parameter of {cls} must be an instance of 'dict' or None"),
    ({"solver_options": "fast"}, "'solver_options' parameter of {cls} must be an instance of 'dict' or None"),
    ({"tol": 0}, r"'tol' parameter of {cls} must be a float in the range \(0.0, inf\) or None"),
    ({"max_iter": 0}, r"'max_iter' parameter of {cls} must be an int in the range \[1, inf\) or None"),
    ({"verbose": "loud"}, "'verbose' parameter of {cls} must be"),
    ({"support_threshold": -1e-3}, "'support_threshold' parameter of {cls} must be"),
    ({"max_bytes": 0}, "'max_bytes' parameter of {cls} must be"),
    ({"method": "liblinear", "kernel": "rbf"},
     r"method='liblinear' works on explicit pair differences.*kernel='linear'"),
    ({"method": "liblinear", "kernel": "poly"},
     r"method='liblinear' works on explicit pair differences.*kernel='linear'"),
    ({"method": "kmeans", "kernel": "rbf"}, "method='kmeans' works on explicit pair differences.*kernel='linear'"),
    ({"method": "newton", "loss": "squared_hinge"}, r"method='newton' .* needs kernel='linear' .* got kernel='rbf'"),
    ({"method": "newton", "kernel": "linear"}, r"method='newton' .* loss='squared_hinge'; got .* loss='hinge'"),
    ({"method": "liblinear", "kernel": "linear", "method_options": {"n_clusters": 5}},
     r"method_options \['n_clusters'\] are not options of method='liblinear'; valid: none"),
    ({"method": "full", "method_options": {"n_clusters": 5}},
     r"method_options \['n_clusters'\] are not options of method='full'"),
    ({"method": "kmeans", "kernel": "linear", "method_options": {"k": 5}},
     r"method_options \['k'\] are not options of method='kmeans'; valid: \['minibatch_above', 'n_clusters'\]"),
    ({"solver": "no_such_solver"}, "Unknown solver 'no_such_solver'"),
    ({"solver": "liblinear", "kernel": "linear"}, "Unknown solver 'liblinear'"),
    ({"method_options": {"n_clusters": 0}, "method": "kmeans", "kernel": "linear"},
     r"'n_clusters' parameter of {cls}\(method='kmeans'\) method_options must be an int in the range \[1, inf\)"),
    ({"method_options": {"n_clusters": 2.5}, "method": "kmeans", "kernel": "linear"},
     "'n_clusters' parameter of {cls}.* method_options must be an int"),
])
@pytest.mark.parametrize("cls", [AUCSVM, SurvivalAUCSVM])
def test_bad_parameters_raise_before_solving(no_solver_work, cancer40, whas50, cls, params, match):
    X, y = cancer40 if cls is AUCSVM else whas50
    with pytest.raises(ValueError, match=match.replace("{cls}", cls.__name__)):
        cls(**params).fit(X, y)


def test_unknown_cvxpy_subsolver_raises_before_solving(no_solver_work, cancer40):
    """'cvxpy:<NAME>' of a solver cvxpy does not have is as unknown as 'no_such_solver'."""
    with pytest.raises(ValueError, match=r"(?i)nope.*(not installed|unknown)|unknown solver"):
        AUCSVM(solver="cvxpy:nope").fit(*cancer40)


def test_non_psd_precomputed_kernel_raises_before_solving(no_solver_work):
    X = np.random.RandomState(0).randn(20, 3)
    y = (X[:, 0] > 0).astype(int)
    K = sigmoid_kernel(X, gamma=1.0, coef0=-1.0)
    assert np.linalg.eigvalsh(K)[0] < -1e-3
    with pytest.raises(ValueError, match="not positive semidefinite"):
        AUCSVM(kernel="precomputed").fit(K, y)
    with pytest.raises(ValueError, match="not symmetric"):
        AUCSVM(kernel="precomputed").fit(np.triu(X @ X.T + 5 * np.eye(20)), y)
    with pytest.raises(ValueError, match="must be square"):
        AUCSVM(kernel="precomputed").fit(K[:, :10], y)


def test_precomputed_psd_kernel_equals_named_kernel(cancer40):
    """The sanity counterpart: a valid precomputed RBF Gram matrix gives the same model."""
    X, y = cancer40
    K = rbf_kernel(X, gamma=1.0)
    pre = AUCSVM(C=0.3, kernel="precomputed", solver="clarabel").fit(K, y)
    named = AUCSVM(C=0.3, kernel="rbf", gamma=1.0, solver="clarabel").fit(X, y)
    np.testing.assert_allclose(pre.decision_function(K), named.decision_function(X), atol=1e-6)
    assert pre.objective_ == pytest.approx(named.objective_, rel=1e-7)


def test_wrong_target_kind_raises_before_solving(no_solver_work, cancer40, whas50):
    with pytest.raises(ValueError, match="use SurvivalAUCSVM"):
        AUCSVM().fit(whas50[0], whas50[1])
    with pytest.raises(ValueError, match="needs a survival target"):
        SurvivalAUCSVM().fit(*cancer40)


@pytest.fixture(scope="module")
def unit_scale_fits():
    """``fits(solver)``: AUCSVM(kernel="linear", solver=solver) fitted on the small binary data,
    once per solver for the three scales compared with it (the tests only read it)."""
    from conftest import make_small_binary

    X, y = make_small_binary()
    cache = {}

    def fits(solver):
        if solver not in cache:
            cache[solver] = AUCSVM(kernel="linear", solver=solver).fit(X, y)
        return cache[solver]

    return fits


@pytest.mark.parametrize("solver", ["clarabel", "osqp", "highs"])
@pytest.mark.parametrize("scale", [1e-3, 1e3, 1e5])
def test_dual_is_solved_at_unit_scale_so_feature_scale_changes_nothing(solver, scale, unit_scale_fits):
    """AUCSVM on c·X with C/c² is the same model (w/c, equal scores, equal objective). The dual's
    kernel entries scale as c², beyond solvers' absolute tolerances: at c = 1e5 Clarabel and OSQP
    reported 'optimal' at a point ranking with AUC 0.32 before the dual was solved at unit scale."""
    from conftest import make_small_binary

    X, y = make_small_binary()
    base = unit_scale_fits(solver)
    scaled = AUCSVM(kernel="linear", solver=solver, C=1.0 / scale**2).fit(X * scale, y)
    assert scaled.solve_result_.status == "optimal"
    assert scaled.objective_ * scale**2 == pytest.approx(base.objective_, rel=1e-5)
    np.testing.assert_allclose(scaled.decision_function(X * scale), base.decision_function(X),
                               rtol=1e-4, atol=1e-4 * np.ptp(base.decision_function(X)))
    assert scaled.score(X * scale, y) == pytest.approx(base.score(X, y), abs=1e-12)
