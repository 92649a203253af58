"""Tests of AUCSVM's dual coordinate descent route (``method="dcd"``, Hsieh et al. 2008).

Oracle: the same pairwise dual solved as a lifted QP by Clarabel at tight tolerances
(``method="full"``), an independent solver; plus the KKT conditions of the dual checked on the
returned α from the training scores.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.metrics.pairwise import rbf_kernel

from aucopt import AUCSVM, PairSet, ProblemTooLargeError, SolverWarning, SurvivalAUCSVM, survival_target

TIGHT_CLARABEL = {"tol_gap_abs": 1e-11, "tol_gap_rel": 1e-11, "tol_feas": 1e-11}


def _binary(n=60, seed=0):
    return make_classification(n_samples=n, n_features=5, n_informative=3, random_state=seed)


def _survival(n=50, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    time = rng.exponential(np.exp(-X[:, 0]))
    return X, survival_target(rng.random(n) < 0.7, time)


def _assert_same_model(dcd, qp, X, rel=1e-7):
    assert dcd.solve_result_.status == "optimal"
    assert dcd.objective_ == pytest.approx(qp.objective_, rel=rel)
    assert dcd.dual_objective_ == pytest.approx(qp.dual_objective_, rel=rel)
    assert dcd.dual_objective_ == pytest.approx(-dcd.objective_, rel=rel)  # strong duality
    f, g = dcd.decision_function(X), qp.decision_function(X)
    assert np.max(np.abs(f - g)) <= 1e-4 * max(1.0, np.max(np.abs(g)))
    # the same support: the pairs with a dual coefficient clearly above 0 (QP duals at the optimum
    # of an interior-point method are ~1e-10 off their bounds)
    C = dcd.C
    big = {tuple(p) for p, a in zip(dcd.support_pairs_, dcd.pair_dual_coef_, strict=False) if a > 1e-5 * C}
    ref = {tuple(p) for p, a in zip(qp.support_pairs_, qp.pair_dual_coef_, strict=False) if a > 1e-5 * C}
    assert len(big ^ ref) <= max(1, len(ref) // 200), (len(big), len(ref), len(big ^ ref))


def _assert_kkt(est, X, y_pairs_weights, C, power, tol=1e-4):
    """Box and KKT of the dual: G_p = (f_i − f_j) + α_p/(C w_p) − 1 with f the training scores."""
    i, j, w = y_pairs_weights
    alpha = est.solve_result_.x
    f = est.decision_function(X)
    upper = C * w if power == 1 else np.where(w > 0, np.inf, 0.0)
    assert np.all(alpha >= 0) and np.all(alpha <= upper * (1 + 1e-12))
    ridge = np.divide(alpha, C * w, out=np.zeros_like(alpha), where=w > 0) if power == 2 else 0.0
    G = f[i] - f[j] + ridge - 1.0
    active = w > 0
    low = active & (alpha <= 1e-10)
    high = active & np.isfinite(upper) & (alpha >= np.where(np.isfinite(upper), upper, 0) * (1 - 1e-10))
    free = active & ~low & ~high
    assert np.all(G[low] >= -tol)
    assert np.all(G[high] <= tol)
    assert np.all(np.abs(G[free]) <= tol)


def _fit_pairs(est, X, y, sample_weight=None):
    return PairSet.bipartite(y, pos_label=est.pos_label_, point_weights=sample_weight).to_arrays(None)


def _pairs(est, y, sample_weight=None):
    """The bipartite pairs (i, j, w_i w_j), built independently of the fit."""
    pos = np.flatnonzero(y == est.pos_label_)
    neg = np.flatnonzero(y != est.pos_label_)
    i, j = np.repeat(pos, len(neg)), np.tile(neg, len(pos))
    w = np.ones(len(i)) if sample_weight is None else sample_weight[i] * sample_weight[j]
    return i, j, w


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
@pytest.mark.parametrize("power", [1, 2])
def test_dcd_matches_clarabel_bipartite(kernel, power):
    X, y = _binary()
    loss = "hinge" if power == 1 else "squared_hinge"
    C = 0.05
    dcd = AUCSVM(C=C, kernel=kernel, loss=loss, method="dcd").fit(X, y)
    qp = AUCSVM(C=C, kernel=kernel, loss=loss, method="full", solver="clarabel",
                solver_options=TIGHT_CLARABEL).fit(X, y)
    _assert_same_model(dcd, qp, X)
    assert dcd.method_ == "dcd" and dcd.n_iter_ >= 1
    assert dcd.n_pairs_ == qp.n_pairs_
    i, j, _ = _pairs(dcd, y)
    fi, fj, fw = _fit_pairs(dcd, X, y)
    np.testing.assert_array_equal(np.sort(i * len(y) + j), np.sort(fi * len(y) + fj))
    _assert_kkt(dcd, X, (fi, fj, fw), C, power)
    # the expansion collapses the pair duals onto points: Σ_l c_l = 0 and c = Aᵀα
    assert abs(dcd.dual_coef_.sum()) <= 1e-8 * max(1.0, np.abs(dcd.dual_coef_).sum())


@pytest.mark.parametrize("power", [1, 2])
def test_dcd_matches_clarabel_survival(power):
    X, y = _survival()
    loss = "hinge" if power == 1 else "squared_hinge"
    dcd = SurvivalAUCSVM(C=0.1, kernel="rbf", loss=loss, method="dcd").fit(X, y)
    qp = SurvivalAUCSVM(C=0.1, kernel="rbf", loss=loss, method="full", solver="clarabel",
                        solver_options=TIGHT_CLARABEL).fit(X, y)
    _assert_same_model(dcd, qp, X)
    assert dcd.pair_target_ == "survival"


@pytest.mark.parametrize("power", [1, 2])
def test_dcd_weighted_pairs_with_zero_weights(power):
    X, y = _binary(n=50, seed=3)
    sw = np.random.default_rng(0).uniform(0.2, 2.0, len(y))
    sw[:6] = 0.0
    loss = "hinge" if power == 1 else "squared_hinge"
    dcd = AUCSVM(C=0.1, kernel="rbf", loss=loss, method="dcd").fit(X, y, sample_weight=sw)
    qp = AUCSVM(C=0.1, kernel="rbf", loss=loss, method="full", solver="clarabel",
                solver_options=TIGHT_CLARABEL).fit(X, y, sample_weight=sw)
    _assert_same_model(dcd, qp, X)
    keep = sw > 0  # zero-weight points enter no pair: the fit runs on the others
    Xk, yk, swk = X[keep], y[keep], sw[keep]
    i, j, w = _pairs(dcd, yk, sample_weight=swk)
    assert len(dcd.solve_result_.x) == len(i)
    fi, fj, fw = _fit_pairs(dcd, Xk, yk, sample_weight=swk)
    order, fit_order = np.lexsort((j, i)), np.lexsort((fj, fi))
    np.testing.assert_array_equal(i[order], fi[fit_order])
    np.testing.assert_allclose(w[order], fw[fit_order])  # pair weights w_i w_j
    _assert_kkt(dcd, Xk, (fi, fj, fw), 0.1, power)


def test_dcd_precomputed_kernel():
    X, y = _binary(n=50, seed=4)
    K = rbf_kernel(X, gamma=0.3)
    dcd = AUCSVM(C=0.05, kernel="precomputed", method="dcd").fit(K, y)
    qp = AUCSVM(C=0.05, kernel="precomputed", method="full", solver="clarabel",
                solver_options=TIGHT_CLARABEL).fit(K, y)
    _assert_same_model(dcd, qp, K)
    rbf = AUCSVM(C=0.05, kernel="rbf", gamma=0.3, method="dcd").fit(X, y)
    np.testing.assert_allclose(rbf.decision_function(X), dcd.decision_function(K), atol=1e-5)


def test_dcd_iteration_limit_warns_with_fix():
    X, y = _binary(n=60)
    with pytest.warns(SolverWarning, match="raise max_iter"):
        est = AUCSVM(C=10.0, kernel="rbf", method="dcd", max_iter=2, tol=1e-12).fit(X, y)
    assert est.solve_result_.status == "iteration_limit"
    assert est.n_iter_ == 2


def test_dcd_time_limit():
    X, y = _binary(n=120)
    with pytest.warns(SolverWarning, match="time_limit"):
        est = AUCSVM(C=100.0, kernel="rbf", gamma=50.0, method="dcd", tol=1e-300, max_iter=10**9,
                     solver_options={"time_limit": 0.3}).fit(X, y)
    assert est.solve_result_.status == "time_limit"
    assert est.solve_result_.wall_time < 30
    with pytest.raises(ValueError, match="not options of method='dcd'"):
        AUCSVM(method="dcd", solver_options={"polishing": False}).fit(X, y)


def test_dcd_random_state_determinism():
    X, y = _binary(n=50)
    a = AUCSVM(C=0.1, method="dcd", random_state=7).fit(X, y)
    b = AUCSVM(C=0.1, method="dcd", random_state=7).fit(X, y)
    np.testing.assert_array_equal(a.solve_result_.x, b.solve_result_.x)
    assert a.n_iter_ == b.n_iter_
    c = AUCSVM(C=0.1, method="dcd", random_state=8).fit(X, y)
    assert c.objective_ == pytest.approx(a.objective_, rel=1e-6)  # another order, the same optimum


def test_dcd_memory_guard_counts_pair_list_and_kernel():
    from aucopt._memory import aucsvm_bytes, aucsvm_dcd_bytes

    X, y = _binary(n=60)
    n_pairs = int((y == 1).sum() * (y == 0).sum())
    need = aucsvm_dcd_bytes(60, n_pairs, 5, "rbf")
    assert need < aucsvm_bytes("full", "rbf", 60, n_pairs, 5, 5)  # no lifted QP, no factor
    assert aucsvm_dcd_bytes(60, n_pairs, 5, "linear") < need  # X instead of the 60 x 60 kernel
    assert aucsvm_dcd_bytes(60, 2 * n_pairs, 5, "rbf") > need
    with pytest.raises(ProblemTooLargeError, match="Dual coordinate descent"):
        AUCSVM(method="dcd", max_bytes=need - 1).fit(X, y)
    AUCSVM(method="dcd", max_bytes=need).fit(X, y)


def test_dcd_verbose_progress(capsys):
    X, y = _binary(n=40)
    AUCSVM(C=0.1, method="dcd", verbose=1).fit(X, y)
    captured = capsys.readouterr()
    assert "method='dcd'" in captured.out
    assert "gap=" in captured.err


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_dcd_shrinking_on_and_off_reach_the_same_optimum(kernel, loss):
    X, y = _binary(n=70, seed=5)
    on = AUCSVM(C=0.05, kernel=kernel, loss=loss, method="dcd").fit(X, y)
    off = AUCSVM(C=0.05, kernel=kernel, loss=loss, method="dcd", method_options={"shrinking": False}).fit(X, y)
    assert on.solve_result_.status == off.solve_result_.status == "optimal"
    assert on.objective_ == pytest.approx(off.objective_, rel=1e-8)
    # the scores are unique (the primal is strictly convex); the pair duals need not be (K has rank < n_pairs)
    np.testing.assert_allclose(on.decision_function(X), off.decision_function(X), atol=1e-5)
    i, j, w = _fit_pairs(on, X, y)
    _assert_kkt(on, X, (i, j, w), 0.05, 1 if loss == "hinge" else 2)


def test_dcd_shrinking_shrinks_the_active_set(capsys):
    X, y = _binary(n=80, seed=6)
    n_pairs = int((y == 1).sum() * (y == 0).sum())
    AUCSVM(C=0.01, method="dcd", verbose=1).fit(X, y)
    sizes = [int(s.replace(",", "")) for s in __import__("re").findall(r"active=([\d,]+)", capsys.readouterr().err)]
    assert sizes and min(sizes) < n_pairs // 2  # most pairs leave the active set
    AUCSVM(C=0.01, method="dcd", verbose=1, method_options={"shrinking": False}).fit(X, y)
    sizes = [int(s.replace(",", "")) for s in __import__("re").findall(r"active=([\d,]+)", capsys.readouterr().err)]
    assert sizes and min(sizes) == n_pairs


@pytest.mark.parametrize("kernel, loss", [("rbf", "hinge"), ("linear", "hinge"), ("rbf", "squared_hinge")])
def test_dcd_warm_c_path_equals_cold_fits(kernel, loss):
    X, y = _binary(n=80, seed=7)
    warm = AUCSVM(kernel=kernel, loss=loss, method="dcd", warm_start=True)
    for C in [0.001, 0.003, 0.01, 0.03, 0.1, 0.03]:
        warm.set_params(C=C).fit(X, y)
        cold = AUCSVM(C=C, kernel=kernel, loss=loss, method="dcd").fit(X, y)
        assert warm.solve_result_.status == "optimal"
        assert warm.objective_ == pytest.approx(cold.objective_, rel=1e-7)
        np.testing.assert_allclose(warm.decision_function(X), cold.decision_function(X), atol=1e-4)
        if loss == "hinge":
            assert np.all(warm.solve_result_.x <= C * (1 + 1e-12))  # clipped into the new box
    # the previous dual is the start: a refit at the same C is the optimality check, or a few
    # epochs more when the check's own updates (of up to tol) move the gap above tol in its order
    refit = warm.fit(X, y).n_iter_
    assert refit <= 3 and cold.n_iter_ > 3 * refit


def test_warm_start_is_ignored_by_the_other_routes_and_across_pair_sets():
    X, y = _binary(n=50, seed=8)
    qp = AUCSVM(C=0.05, method="full", solver="clarabel", warm_start=True)
    first = qp.fit(X, y).objective_
    assert qp.set_params(C=0.05).fit(X, y).objective_ == pytest.approx(first, rel=1e-9)
    est = AUCSVM(C=0.05, method="dcd", warm_start=True).fit(X, y)
    # another data set with another number of pairs: a cold start, the right optimum
    X2, y2 = _binary(n=60, seed=9)
    est.fit(X2, y2)
    cold = AUCSVM(C=0.05, method="dcd").fit(X2, y2)
    assert est.objective_ == pytest.approx(cold.objective_, rel=1e-9)
    assert est.n_iter_ == cold.n_iter_


def test_dcd_linear_sparse_equals_dense():
    import scipy.sparse as sp

    X, y = _binary(n=60, seed=10)
    X[np.abs(X) < 0.5] = 0.0
    dense_fit = AUCSVM(C=0.05, kernel="linear", method="dcd").fit(X, y)
    sparse_fit = AUCSVM(C=0.05, kernel="linear", method="dcd").fit(sp.csr_matrix(X), y)
    assert sparse_fit.objective_ == pytest.approx(dense_fit.objective_, rel=1e-9)


def test_dcd_rescaled_kernel_matches_clarabel():
    """A kernel far from unit scale is solved at unit scale (K/s, C·s) and mapped back."""
    X, y = _binary(n=50, seed=11)
    K = 1e3 * rbf_kernel(X, gamma=0.2)
    dcd = AUCSVM(C=1e-4, kernel="precomputed", method="dcd").fit(K, y)
    qp = AUCSVM(C=1e-4, kernel="precomputed", method="full", solver="clarabel",
                solver_options=TIGHT_CLARABEL).fit(K, y)
    _assert_same_model(dcd, qp, K)


def test_dcd_refuses_an_indefinite_precomputed_kernel():
    X, y = _binary(n=40, seed=12)
    K = rbf_kernel(X, gamma=0.3) - 0.5 * np.eye(40)
    with pytest.raises(ValueError, match="not positive semidefinite"):
        AUCSVM(method="dcd", kernel="precomputed").fit(K, y)


def test_dcd_zero_weight_rows_keep_row_indices():
    X, y = _binary(n=50, seed=13)
    sw = np.ones(len(y))
    sw[[0, 3, 7]] = 0.0
    dcd = AUCSVM(C=0.1, method="dcd").fit(X, y, sample_weight=sw)
    qp = AUCSVM(C=0.1, method="full", solver="clarabel", solver_options=TIGHT_CLARABEL).fit(X, y, sample_weight=sw)
    np.testing.assert_array_equal(dcd.support_, qp.support_)  # rows of the X given to fit
    assert not np.isin([0, 3, 7], dcd.support_pairs_).any()
    np.testing.assert_allclose(dcd.support_vectors_, X[dcd.support_])


def test_auto_picks_dcd_at_every_size():
    X, y = _binary(n=40, seed=14)
    Xs, ys = _survival(n=40)
    auto = AUCSVM(C=0.05).fit(X, y)
    assert auto.method_ == "dcd" and auto.solve_result_.solver == "dcd"
    assert auto.objective_ == pytest.approx(AUCSVM(C=0.05, method="dcd").fit(X, y).objective_, rel=1e-12)
    assert AUCSVM(C=0.05, kernel="linear").fit(X, y).method_ == "dcd"
    assert SurvivalAUCSVM(C=0.05, kernel="poly").fit(Xs, ys).method_ == "dcd"
    assert "dual coordinate descent" in AUCSVM(kernel="rbf").select_method(PairSet.bipartite(y))[1]


# ----------------------------------------------------------------------------- sorted pairs, never listed
def _sorted_pair_sets():
    """Sorted pair sets with what changes the decoding: ties, point and anchor weights, zero weights."""
    rng = np.random.default_rng(20)
    n = 70
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + rng.normal(size=n) > 0).astype(int)
    time = np.round(rng.exponential(np.exp(-X[:, 0])), 1)  # rounded: tied times
    event = rng.random(n) < 0.7
    sw = rng.uniform(0.2, 2.0, n)
    sw[[3, 11]] = 0.0
    return X, {
        "bipartite": PairSet.bipartite(y),
        "bipartite-weighted": PairSet.bipartite(y, point_weights=sw),
        "survival-ties": PairSet.survival(event, time),
        "survival-weighted": PairSet.survival(event, time, point_weights=sw),
        "survival-ipcw": PairSet.survival(event, time, weights="ipcw"),
        "multipartite": PairSet.multipartite(rng.integers(0, 3, n)),
    }


@pytest.mark.parametrize("name", ["bipartite", "bipartite-weighted", "survival-ties", "survival-weighted",
                                  "survival-ipcw", "multipartite"])
@pytest.mark.parametrize("kernel", ["rbf", "linear"])
@pytest.mark.parametrize("power", [1, 2])
@pytest.mark.parametrize("shrinking", [True, False])
def test_sorted_dcd_equals_the_list_solver(name, kernel, power, shrinking):
    """The pairs decoded from their numbers visit the same coordinates with the same arithmetic as
    the list of to_arrays(): α, the epochs, the gap and the dual objective are equal bit for bit."""
    from aucopt.svm._dcd import dcd_solve, dual_objective
    from aucopt.svm._dcd_sorted import dcd_solve_sorted

    X, sets = _sorted_pair_sets()
    pairs = sets[name]
    assert pairs.storage == "sorted"
    i, j, w = pairs.to_arrays(None)
    data = X if kernel == "linear" else rbf_kernel(X, gamma=0.3)
    C = 0.05
    alpha0 = np.random.default_rng(1).uniform(0.0, 2 * C, len(i))  # a warm start, clipped by both
    scores = np.random.default_rng(2).normal(size=len(X))  # a start read off scores, by both
    options = dict(linear=kernel == "linear", tol=1e-8, max_iter=20_000, shrinking=shrinking, random_state=3)
    for start in ({}, {"alpha0": alpha0}, {"from_scores": (scores, 0.3)}):
        a, c, n_iter, status, gap = dcd_solve(data, i, j, w, C, power, **start, **options)
        solver, a2, c2, n_iter2, status2, gap2 = dcd_solve_sorted(data, pairs, C, power, **start, **options)
        assert status == status2 == "optimal"
        np.testing.assert_array_equal(a2, a)
        np.testing.assert_array_equal(c2, c)
        assert (n_iter2, gap2) == (n_iter, gap)
        f = data @ (data.T @ c) if kernel == "linear" else data @ c
        total, ridge = solver.dual_sums(a2)
        assert 0.5 * float(c2 @ f) + 0.5 * ridge - total == pytest.approx(dual_objective(a, w, C, power, c, f),
                                                                       rel=1e-12)
        support, values = solver.support(a2, 1e-8 * C)
        keep = a > 1e-8 * C
        np.testing.assert_array_equal(support, np.column_stack([i[keep], j[keep]]))
        np.testing.assert_array_equal(values, a[keep])
    assert alpha0.max() > C  # the caller's starting point is left as it was


@pytest.mark.parametrize("power", [1, 2])
def test_estimator_dcd_on_sorted_and_listed_pairs_agrees(power):
    """AUCSVM's dcd route on the sorted pairs of fit, and on the same pairs listed (explicit storage):
    the same α, dual objective and support pairs."""
    from aucopt.svm._aucsvm import _DCDRun

    X, sets = _sorted_pair_sets()
    for name in ("bipartite-weighted", "survival-ties"):
        pairs = sets[name]
        i, j, w = pairs.to_arrays(None)
        listed = PairSet.from_arrays(i, j, w, n_points=pairs.n_points)
        K = rbf_kernel(X, gamma=0.3)
        options = dict(linear=False, tol=1e-8, max_iter=20_000, shrinking=True, alpha0=None, random_state=0,
                       time_limit=None, verbose=False)
        runs = [_DCDRun(K, p, 0.05, power, **options) for p in (pairs, listed)]
        assert runs[0].sorted is not None and runs[1].sorted is None
        np.testing.assert_array_equal(runs[0].alpha, runs[1].alpha)
        f = K @ runs[0].c
        assert runs[0].dual_objective(f) == pytest.approx(runs[1].dual_objective(f), rel=1e-12)
        for got, ref in zip(runs[0].support(1e-8), runs[1].support(1e-8), strict=True):
            np.testing.assert_array_equal(got, ref)
        assert runs[0].message(1e-8, None) == ""


# ============================================================================ the start of a linear kernel
def test_the_start_read_off_scores_is_the_smoothed_hinges_slope_or_the_squared_hinges_slack():
    from aucopt.svm._dcd import start_fraction

    z = [-1.0, 0.99, 1.0, 2.0]
    np.testing.assert_allclose([start_fraction(v, 1, 0.01) for v in z], [1.0, 0.5, 0.0, 0.0])  # in the box [0, 1]
    np.testing.assert_allclose([start_fraction(v, 2, 0.01) for v in z], [2.0, 0.01, 0.0, 0.0])


@pytest.mark.parametrize("target", ["bipartite", "survival"])
def test_a_linear_kernel_starts_from_newtons_smoothed_primal(monkeypatch, target):
    """With a linear kernel, dual coordinate descent starts from the pair duals of the smoothed
    hinge's primal optimum (Newton on X): on a degenerate dual (5 features, C = 100) it converges in
    a fraction of the epochs it needs from α = 0, to the QP's optimum (Clarabel)."""
    import aucopt.svm._aucsvm as aucsvm_module

    rng = np.random.default_rng(0)
    if target == "bipartite":
        X, y = make_classification(n_samples=200, n_features=5, flip_y=0.05, random_state=0)
        Est = AUCSVM
    else:
        X = rng.normal(size=(200, 5))
        y = survival_target(rng.random(200) < 0.7, rng.exponential(np.exp(-X[:, 0])))
        Est = SurvivalAUCSVM
    params = dict(kernel="linear", C=100.0, method="dcd", tol=1e-8)
    started = Est(**params).fit(X, y)
    qp = Est(kernel="linear", C=100.0, method="full", solver="clarabel", solver_options=TIGHT_CLARABEL).fit(X, y)
    assert started.solve_result_.status == "optimal"
    assert started.objective_ == pytest.approx(qp.objective_, rel=1e-7)
    assert started.dual_objective_ == pytest.approx(qp.dual_objective_, rel=1e-7)
    monkeypatch.setattr(aucsvm_module, "_newton_start", lambda *args: None)  # from α = 0
    cold = Est(**params).fit(X, y)
    assert cold.objective_ == pytest.approx(qp.objective_, rel=1e-7)
    assert started.n_iter_ * 4 <= cold.n_iter_, (started.n_iter_, cold.n_iter_)


# ============================================================================ a stalled active set
def _near_duplicates(eps=1e-4, n=40, seed=0):
    """Every point twice, ``eps`` apart: pairs (i, j) and (i, j') with x_j ≈ x_j' are nearly parallel."""
    rng = np.random.default_rng(seed)
    X = np.repeat(rng.normal(size=(n, 3)), 2, axis=0) + eps * rng.normal(size=(2 * n, 3))
    return X, (X[:, 0] + 0.8 * rng.normal(size=2 * n) > 0).astype(int)


def test_a_stalled_active_set_is_solved_exactly(monkeypatch):
    """Coordinate descent zigzags between nearly parallel pairs; once the gap stalls on a small
    active set, the dual restricted to it is solved exactly and the fit reaches tol and the QP's
    optimum. Without that step (no active set small enough) it stops at max_iter."""
    import aucopt.svm._dcd_polish as polish_module

    X, y = _near_duplicates()
    qp = AUCSVM(C=1.0, kernel="linear", method="full", solver="clarabel", solver_options=TIGHT_CLARABEL).fit(X, y)
    fit = AUCSVM(C=1.0, kernel="linear", method="dcd", max_iter=3000).fit(X, y)
    _assert_same_model(fit, qp, X, rel=1e-8)
    assert fit.n_iter_ < 1000
    monkeypatch.setattr(polish_module, "POLISH_MAX_PAIRS", 0)
    with pytest.warns(SolverWarning, match="3,000 epochs"):
        stalled = AUCSVM(C=1.0, kernel="linear", method="dcd", max_iter=3000).fit(X, y)
    assert stalled.solve_result_.status == "iteration_limit"


@pytest.mark.parametrize("kernel, power", [("linear", 1), ("linear", 2), ("rbf", 1)])  # the cases that stall
def test_the_sorted_and_list_solvers_take_the_same_exact_steps(monkeypatch, kernel, power):
    import aucopt.svm._dcd as dcd_module
    import aucopt.svm._dcd_polish as polish_module
    import aucopt.svm._dcd_sorted as sorted_module
    from aucopt.svm._dcd import dcd_solve
    from aucopt.svm._dcd_sorted import dcd_solve_sorted

    calls = []

    def counted(*args, **kwargs):
        calls.append(len(args[2]))
        return restricted_optimum(*args, **kwargs)
    restricted_optimum = dcd_module.restricted_optimum
    monkeypatch.setattr(dcd_module, "restricted_optimum", counted)
    monkeypatch.setattr(sorted_module, "restricted_optimum", counted)
    monkeypatch.setattr(polish_module, "POLISH_FREE_WORK", 1e12)  # active sets this large take exact steps here
    X, y = _near_duplicates()
    pairs = PairSet.bipartite(y)
    data = X if kernel == "linear" else rbf_kernel(X, gamma=0.5)
    options = dict(linear=kernel == "linear", tol=1e-6, max_iter=3000, random_state=0)
    a, c, n_iter, status, gap = dcd_solve(data, *pairs.to_arrays(None), 10.0, power, **options)
    _, a2, c2, n_iter2, status2, gap2 = dcd_solve_sorted(data, pairs, 10.0, power, **options)
    assert status == status2 == "optimal" and len(calls) >= 2 and calls[: len(calls) // 2] == calls[len(calls) // 2:]
    np.testing.assert_array_equal(a2, a)
    np.testing.assert_array_equal(c2, c)
    assert (n_iter2, gap2) == (n_iter, gap)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.parametrize("power", [1, 2])
def test_the_exact_step_meets_the_restricted_kkt_conditions(kernel, power):
    """After the step, every active pair's gradient (recomputed from scratch) is ≥ 0 at α = 0, ≤ 0
    at the bound and 0 in between (to 1e-7), with the other pairs held fixed."""
    from aucopt.svm._dcd_polish import restricted_optimum

    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 4))
    i, j, w = PairSet.bipartite(X[:, 0] > 0).to_arrays(None)
    C = 0.5
    data = X if kernel == "linear" else rbf_kernel(X, gamma=0.4)
    alpha = rng.uniform(0.0, C * w)  # any feasible point
    A = rng.choice(len(i), size=25, replace=False)
    c = np.bincount(i, alpha, minlength=30) - np.bincount(j, alpha, minlength=30)
    state = X.T @ c if kernel == "linear" else data @ c
    new = restricted_optimum(data, kernel == "linear", i[A], j[A], w[A], alpha[A], state, C, power)
    assert new is not None
    alpha[A] = new
    c = np.bincount(i, alpha, minlength=30) - np.bincount(j, alpha, minlength=30)
    f = X @ (X.T @ c) if kernel == "linear" else data @ c
    G = f[i[A]] - f[j[A]] - 1.0 + (new / (C * w[A]) if power == 2 else 0.0)
    upper = C * w[A] if power == 1 else np.full(len(A), np.inf)
    assert np.all(new >= 0) and np.all(new <= upper)
    low, high = new <= 0.0, new >= upper
    assert np.all(G[low] >= -1e-7) and np.all(G[high] <= 1e-7) and np.all(np.abs(G[~low & ~high]) <= 1e-7)
    assert low.any() and (~low).any()  # not vacuous


def test_pair_numbers_decode_to_the_listed_pairs():
    """The vectorized decoding (used for the exact step) gives to_arrays()'s pairs and weights."""
    from aucopt.svm._dcd_sorted import SortedPairs

    _, sets = _sorted_pair_sets()
    for name, pairs in sets.items():
        i, j, w = pairs.to_arrays(None)
        structure = SortedPairs(pairs)
        numbers = np.random.default_rng(0).permutation(len(i))
        a, b, wp = structure.decode(numbers)
        np.testing.assert_array_equal(a, i[numbers], err_msg=name)
        np.testing.assert_array_equal(b, j[numbers], err_msg=name)
        np.testing.assert_array_equal(wp, w[numbers], err_msg=name)


def test_auto_announces_a_dcd_fit_predicted_to_take_minutes(monkeypatch):
    """method="auto" takes dual coordinate descent above 20,000 pairs; a fit its runtime model predicts
    to take over a minute (the default C = 1 on a few thousand rows) is announced before any work."""
    import math
    import warnings

    import aucopt
    from aucopt.exceptions import SlowFitWarning

    X, y = make_classification(n_samples=300, random_state=0)
    pairs = PairSet.bipartite(y)
    assert AUCSVM().select_method(pairs)[0] == "dcd"
    assert 0 < AUCSVM().predicted_seconds("dcd", pairs) < aucopt._runtime.SLOW_FIT_SECONDS
    with warnings.catch_warnings():  # predicted to be quick: nothing to announce
        warnings.simplefilter("error", SlowFitWarning)
        AUCSVM().fit(X, y)
    three_thousand = PairSet.bipartite([1] * 900 + [0] * 2100)  # 1.9 million pairs
    default = AUCSVM().predicted_seconds("dcd", three_thousand)
    assert default > 60 > AUCSVM(C=0.01).predicted_seconds("dcd", three_thousand)
    assert AUCSVM(tol=1e-3).predicted_seconds("dcd", three_thousand) < default
    assert AUCSVM(C=0.1).predicted_seconds("dcd", three_thousand) < default
    linear = AUCSVM(kernel="linear").predicted_seconds("dcd", three_thousand)  # w = Xᵀc: constants of its own
    assert linear == pytest.approx(aucopt._runtime.dcd_seconds(three_thousand.n_pairs, linear=True), rel=1e-12)
    assert linear < default
    event, time = np.arange(400) % 3 > 0, np.arange(400.0)
    survival = PairSet.survival(survival_target(event, time))  # survival pairs: slower per pair
    assert SurvivalAUCSVM().predicted_seconds("dcd", survival) == pytest.approx(
        aucopt._runtime.DCD_SURVIVAL_FACTOR * aucopt._runtime.dcd_seconds(survival.n_pairs), rel=1e-12)
    assert math.isnan(AUCSVM(loss="squared_hinge").predicted_seconds("dcd", pairs))
    assert math.isnan(AUCSVM().predicted_seconds("full", pairs))
    monkeypatch.setattr(aucopt._runtime, "SLOW_FIT_SECONDS", 0.0)
    with pytest.warns(SlowFitWarning, match=r"dual coordinate descent .* predicted to take .* at C=1 .*C=0.01"):
        AUCSVM().fit(X, y)
    with warnings.catch_warnings():  # an explicit method is the user's choice: no announcement
        warnings.simplefilter("error", SlowFitWarning)
        AUCSVM(method="dcd").fit(X, y)


@pytest.mark.parametrize("form", ["dense", "woodbury", "unbounded", "woodbury-ridge"])
def test_the_interior_point_box_qp_matches_highs(form):
    """The exact step's QP solver against HiGHS's active-set QP on random box-constrained QPs with
    singular Hessians (rank below the size) and infinite upper bounds: the same optimal objective
    to 1e-11 (relative), and points that meet the bounds."""
    import highspy
    import scipy.sparse as sp

    from aucopt._highs import new_highs, pass_problem
    from aucopt.modeling import Problem
    from aucopt.svm._dcd_polish import box_qp

    rng = np.random.default_rng(7)
    for _ in range(15):
        k = int(rng.integers(3, 40))
        V = rng.normal(size=(k, int(rng.integers(1, max(2, k // 3)) if form.startswith("woodbury")
                                    else rng.integers(1, 2 * k))))
        Q = V @ V.T
        upper = rng.uniform(0.1, 2.0, size=k)
        ridge = rng.uniform(0.05, 0.5, size=k) if form in ("unbounded", "woodbury-ridge") else None
        if ridge is not None:  # as the squared hinge's: its duals have no upper bound
            upper[rng.random(k) < 0.5] = np.inf
        b = 3.0 * rng.normal(size=k)
        x = (box_qp(b, upper, V=V, ridge=ridge) if form.startswith("woodbury")
             else box_qp(b, upper, Q=Q, ridge=ridge))
        if ridge is not None:
            Q = Q + np.diag(ridge)
        h = new_highs(highspy)
        h.setOptionValue("output_flag", False)
        pass_problem(h, highspy, Problem(c=b, A=sp.csc_matrix((0, k)), row_lower=np.zeros(0), row_upper=np.zeros(0),
                                         col_lower=np.zeros(k), col_upper=upper, P=Q, name="box"))
        h.run()
        ref = np.asarray(h.getSolution().col_value)
        objective = lambda z: 0.5 * z @ Q @ z + b @ z  # noqa: E731
        assert np.all(x >= 0.0) and np.all(x <= upper)
        assert objective(x) == pytest.approx(objective(ref), rel=1e-11, abs=1e-11)
        assert np.any(x == 0.0) or np.any(x == upper) or ridge is not None


def test_a_stall_on_a_larger_active_set_is_solved_once_the_epochs_have_paid_for_the_step(monkeypatch):
    """GBSG2's first 300 patients at C = 10 (28,400 Harrell pairs, RBF kernel) stall on about 480
    active pairs, above what a step costs at any stall: the step is taken once the epochs have done
    twice its work, and the fit converges with a relative duality gap below 1e-9. Capped at 300
    pairs (the earlier rule) the same fit is still short of tol after 2,000 epochs."""
    from sklearn.preprocessing import StandardScaler

    import aucopt.svm._dcd_polish as polish_module
    import aucopt.svm._dcd_sorted as sorted_module
    from aucopt import SurvivalAUCSVM
    from aucopt.datasets import load_survival

    X, y = load_survival("gbsg2")
    X, y = StandardScaler().fit_transform(X)[:300], y[:300]
    sizes = []

    def spied(*args):
        sizes.append(len(args[2]))
        return restricted_optimum(*args)
    restricted_optimum = sorted_module.restricted_optimum
    monkeypatch.setattr(sorted_module, "restricted_optimum", spied)
    fit = SurvivalAUCSVM(C=10.0, method="dcd", random_state=0, max_iter=2000).fit(X, y)
    assert fit.solve_result_.status == "optimal" and max(sizes) > 300
    assert fit.objective_ + fit.dual_objective_ <= 1e-9 * fit.objective_  # primal minus dual (dual_objective_ = −dual)
    monkeypatch.setattr(polish_module, "POLISH_MAX_PAIRS", 300)
    with pytest.warns(SolverWarning, match="2,000 epochs"):
        capped = SurvivalAUCSVM(C=10.0, method="dcd", random_state=0, max_iter=2000).fit(X, y)
    assert capped.solve_result_.status == "iteration_limit"


def test_a_failed_factorization_leaves_the_duals_as_they_were(monkeypatch):
    """When rounding defeats the step's Cholesky factorization, the step changes nothing (the
    epochs go on) instead of failing the fit."""
    import scipy.linalg

    from aucopt.svm._dcd_polish import restricted_optimum

    def failing(*args, **kwargs):
        raise np.linalg.LinAlgError("not positive definite")
    monkeypatch.setattr(scipy.linalg, "cho_factor", failing)
    rng = np.random.default_rng(2)
    X = rng.normal(size=(12, 3))
    i, j, w = PairSet.bipartite(X[:, 0] > 0).to_arrays(None)
    alpha = rng.uniform(0.0, w)
    state = X.T @ (np.bincount(i, alpha, minlength=12) - np.bincount(j, alpha, minlength=12))
    new = restricted_optimum(X, True, i, j, w, alpha, state, 1.0, 1)
    np.testing.assert_array_equal(new, alpha)


def test_the_step_is_priced_as_it_is_solved():
    """The Woodbury form (d × d factorizations) for a linear kernel with fewer features than half
    the pairs, for both losses (the squared hinge's ridge enters its diagonal); the k × k form, and
    its price, otherwise."""
    from aucopt.svm._dcd_polish import polish_work, woodbury

    assert woodbury(1000, 20) and not woodbury(30, 20) and not woodbury(1000, None)
    assert polish_work(1000, None) > 100 * polish_work(1000, 20)


# ============================================================================ the certificate of the exact routes
@pytest.mark.parametrize("method", ["dcd", "full"])
def test_a_large_c_on_separable_data_is_certified_at_the_hard_margin_optimum(method):
    """Separable data at C = 1e6: each route stops a rounding error short of the support pairs'
    margins, which C multiplies (the objective was 6 % above the optimum, reported optimal). The
    best multiple t·w of the solution closes them: the objective is the hard-margin optimum, which
    Clarabel's QP at C = 10 reaches with every pair dual below C, within the certified gap."""
    from aucopt.svm._aucsvm_objective import AUCSVM_GAP_TOL

    X, y = _binary(n=60, seed=3)
    X = X + 3.0 * y[:, None]  # the classes far apart
    hard = AUCSVM(C=10.0, method="full", solver="clarabel", solver_options=TIGHT_CLARABEL).fit(X, y)
    assert hard.pair_dual_coef_.max() < 10.0 * (1 - 1e-6)  # no pair at its bound: the hard margin
    with warnings.catch_warnings():
        warnings.simplefilter("error", SolverWarning)
        big = AUCSVM(C=1e6, method=method).fit(X, y)
    gap = (big.objective_ + big.dual_objective_) / big.objective_
    assert big.solve_result_.status == "optimal" and 0 <= gap <= AUCSVM_GAP_TOL
    assert big.objective_ == pytest.approx(hard.objective_, rel=AUCSVM_GAP_TOL)
    assert -big.dual_objective_ <= hard.objective_ * (1 + 1e-9)  # a lower bound of the optimum
    # the returned model's margins, listed: C Σ ξ_ij is within the gap; and its scores are within the
    # certified bound of the optimum's: |f_i - f*_i| <= ‖w - w*‖ sqrt(K_ii) <= sqrt(2 (objective_ - LB)), K_ii = 1
    f = big.decision_function(X)
    i, j, w = PairSet.bipartite(y).to_arrays(None)
    assert 1e6 * np.sum(w * np.maximum(0.0, 1.0 - (f[i] - f[j]))) <= AUCSVM_GAP_TOL * big.objective_
    bound = np.sqrt(2 * (big.objective_ + big.dual_objective_))
    assert np.max(np.abs(f - hard.decision_function(X))) <= bound + 1e-6


def test_a_gap_left_open_is_reported_inaccurate_with_a_warning():
    """Sample weights of 1e10 (pair weights 1e20) on non-separable survival data: OSQP stops on its
    residuals with an objective far above its dual bound; the fit says so instead of optimal."""
    Xs, ys = _survival(n=40)
    with pytest.warns(SolverWarning, match=r"relative duality gap is .* > 0\.0001"):
        fit = SurvivalAUCSVM(method="full").fit(Xs, ys, sample_weight=1e10)
    assert fit.solve_result_.status == "optimal_inaccurate"
    assert -fit.dual_objective_ <= fit.objective_
    assert (fit.objective_ + fit.dual_objective_) / fit.objective_ > 1e-4


def test_auto_takes_the_qp_when_c_times_the_pair_weights_is_extreme():
    X, y = _binary(n=40, seed=5)
    pairs = PairSet.bipartite(y, point_weights=np.full(40, 1e7))  # pair weights 1e14
    method, reason = AUCSVM().select_method(pairs)
    assert method == "full" and "a box too wide for dual coordinate descent" in reason
    assert AUCSVM().select_method(PairSet.bipartite(y, point_weights=np.full(40, 1e5)))[0] == "dcd"
    fit = AUCSVM().fit(X, y, sample_weight=1e100)
    assert fit.method_ == "full" and np.isfinite(fit.objective_)
