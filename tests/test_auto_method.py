"""Predictable defaults: ``method="auto"`` picks the exact LP / QP below a documented size and the
scalable path above, says so under ``verbose``, and time limits cap the whole fit.

Oracles: the explicitly chosen route fitted on the same data (auto must equal it exactly), the
dual QP on Clarabel for liblinear's routes, and the wall clock for time limits.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import MinMaxScaler

import aucopt._runtime
import aucopt.lp
import aucopt.svm._aucsvm
from aucopt import AUCSVM, LPRanker, PairSet, SurvivalAUCSVM, SurvivalLPRanker, survival_target
from aucopt.exceptions import SolverWarning


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    rows = rng.choice(len(y), 60, replace=False)
    return X[rows], (y[rows] == 0).astype(int)


def _survival(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, survival_target(rng.random(n) < 0.7, rng.exponential(np.exp(-X[:, 0])))


def _same_model(a, b, X):
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert a.objective_ == b.objective_


# ============================================================================ LP Ranker
def test_lp_auto_is_the_full_lp_when_it_is_predicted_fast(cancer):
    X, y = MinMaxScaler().fit_transform(cancer[0]), cancer[1]
    pairs = PairSet.bipartite(y)
    assert aucopt._runtime.full_lp_seconds(60, pairs.n_pairs) <= aucopt._runtime.AUTO_FULL_SECONDS
    auto = LPRanker(gamma=1.0).fit(X, y)
    assert auto.method == "auto" and auto.method_ == "full" and auto.optimality_gap_ == 0.0
    _same_model(auto, LPRanker(gamma=1.0, method="full").fit(X, y), X)


@pytest.mark.parametrize("survival", [False, True])
def test_lp_auto_is_smoothing_when_the_full_lp_is_predicted_slow(cancer, monkeypatch, survival):
    if survival:
        X, y = _survival()
        make = SurvivalLPRanker
    else:
        X, y = MinMaxScaler().fit_transform(cancer[0]), cancer[1]
        make = LPRanker
    monkeypatch.setattr(aucopt._runtime, "AUTO_FULL_SECONDS", 0.0)
    auto = make(gamma=1.0).fit(X, y)
    assert auto.method_ == "smoothing" and auto.method_result_.converged
    _same_model(auto, make(gamma=1.0, method="smoothing").fit(X, y), X)
    full = make(gamma=1.0, method="full").fit(X, y)  # within the certified gap of the optimum
    assert full.objective_ * (1 - 1e-9) <= auto.objective_ <= full.objective_ * (1 + auto.optimality_gap_ + 1e-9)
    assert auto.optimality_gap_ <= aucopt.lp.SMOOTHING_TOL


def test_lp_auto_predicts_ordinal_pairs_with_constants_of_their_own():
    """Many ordinal levels chain into a near-total order, as Harrell's pairs do: scikit-learn's
    regression-target data (200 points, 200 levels) takes the full LP over 7 s on HiGHS, which the
    bipartite constants predicted as 2 s; the auto route is smoothing, to its certified gap."""
    from sklearn.utils.estimator_checks import _regression_dataset

    X, y = _regression_dataset()
    pairs = PairSet.multipartite(y)
    assert aucopt._runtime.full_lp_seconds(200, pairs.n_pairs, "multipartite") > aucopt._runtime.AUTO_FULL_SECONDS
    assert aucopt._runtime.full_lp_seconds(200, pairs.n_pairs, "bipartite") < aucopt._runtime.AUTO_FULL_SECONDS
    auto = LPRanker(pair_options={"target": "multipartite"}).fit(X, y)
    assert auto.method_ == "smoothing" and 0.0 < auto.optimality_gap_ <= aucopt.lp.SMOOTHING_TOL


def test_lp_auto_does_not_depend_on_the_solver(cancer, monkeypatch):
    X, y = MinMaxScaler().fit_transform(cancer[0]), cancer[1]
    monkeypatch.setattr(aucopt._runtime, "AUTO_FULL_SECONDS", 0.0)
    method, _reason = LPRanker(solver="cvxpy:clarabel").select_method(PairSet.bipartite(y))
    assert method == "smoothing"  # it solves no LP
    with pytest.raises(ValueError, match="method='generation' grows one live HiGHS model; solver='osqp'"):
        LPRanker(method="generation", solver="osqp").fit(X, y)


def test_lp_auto_generates_a_custom_formulations_pair_rows(cancer, monkeypatch):
    """Above the full LP's few seconds, a formulation other than the LP Ranker's gets its pair rows
    generated (the same optimum, certified) instead of the scalable routes of lp_ranker."""
    X, y = MinMaxScaler().fit_transform(cancer[0])[:200], cancer[1][:200]
    full = LPRanker(gamma=1.0, formulation="lp_ranker_free_sign", method="full").fit(X, y)
    monkeypatch.setattr(aucopt._runtime, "AUTO_FULL_SECONDS", 0.0)
    model = LPRanker(gamma=1.0, formulation="lp_ranker_free_sign").fit(X, y)
    assert model.method_ == "generation" and model.optimality_gap_ == 0.0
    assert model.problem_size_["rows"] >= PairSet.bipartite(y).n_pairs  # built whole, solved by parts
    assert model.method_result_.info["working_rows"] < PairSet.bipartite(y).n_pairs
    assert model.objective_ == pytest.approx(full.objective_, rel=1e-7)


def test_lp_auto_states_its_choice_under_verbose(cancer, capsys, monkeypatch):
    X, y = MinMaxScaler().fit_transform(cancer[0]), cancer[1]
    LPRanker(gamma=1.0).fit(X, y)
    assert "method='auto'" not in capsys.readouterr().out  # silent by default
    monkeypatch.setattr(aucopt._runtime, "AUTO_FULL_SECONDS", 0.0)
    LPRanker(gamma=1.0, verbose=1).fit(X, y)
    n_pairs = PairSet.bipartite(y).n_pairs
    out = capsys.readouterr().out
    assert "[LPRanker] method='auto': smoothing to a certified relative gap of 0.001, predicted" in out
    assert f"({n_pairs:,} pairs; the full LP, exact, is predicted to take" in out


def test_lp_auto_sizes_its_own_route(monkeypatch):
    """check_size judges the route auto would take: smoothing's working arrays, not the full LP."""
    from aucopt.exceptions import ProblemTooLargeError

    pairs = PairSet.bipartite([1] * 300 + [0] * 300)  # 90,000 pairs: auto takes the smoothing route
    budget = 200e6  # smoothing's kernel and working set fit, the full LP over 90,000 pairs does not
    assert LPRanker(max_bytes=budget).select_method(pairs)[0] == "smoothing"
    LPRanker(max_bytes=budget).check_size(pairs)
    with pytest.raises(ProblemTooLargeError):
        LPRanker(method="full", max_bytes=budget).check_size(pairs)


def test_method_options_need_an_explicit_method(cancer):
    with pytest.raises(ValueError, match=r"method_options=.*set method to 'full', 'generation', 'smoothing'"):
        LPRanker(method_options={"n_chunks": 3}).fit(*cancer)
    with pytest.raises(ValueError, match=r"method_options=.*set method to 'full', 'liblinear', 'dcd' or 'kmeans'"):
        AUCSVM(kernel="linear", method_options={"n_clusters": 3}).fit(*cancer)


# ============================================================================ time limits
def test_subgradient_stops_at_the_time_limit(cancer):
    X, y = MinMaxScaler().fit_transform(cancer[0]), cancer[1]
    slow = {"callback": lambda record: time.sleep(0.002)}  # every iteration takes at least 2 ms
    with pytest.warns(ConvergenceWarning, match="max_iter=150 before"):  # tol=1e-12: the limit is what stops it
        free = LPRanker(gamma=1.0, method="subgradient", max_iter=150, tol=1e-12, method_options=slow).fit(X, y)
    assert free.method_result_.iterations > 100  # 0.2 s or more: the limit below binds
    with pytest.warns(ConvergenceWarning, match="time_limit"):
        capped = LPRanker(gamma=1.0, method="subgradient", max_iter=150, tol=1e-12, method_options=slow,
                          solver_options={"time_limit": 0.05}).fit(X, y)
    run = capped.method_result_
    assert run.stop == "time_limit" and run.iterations < 0.5 * free.method_result_.iterations
    assert run.history[-1]["seconds"] >= 0.05
    assert capped.objective_ == min(r["objective"] for r in run.history)  # the best iterate is kept


def test_chunking_honours_the_time_limit_over_the_whole_run():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 5))  # 80 points: 4 LPs of some 20 ms each when free
    y = (X[:, 0] + rng.normal(scale=1.5, size=80) > 0).astype(int)
    options = {"n_chunks": 16, "scheme": 2, "top_k": 2}  # two pairs added per LP: several LPs
    free = LPRanker(gamma=1.0, method="chunking", method_options=options).fit(X, y)
    assert free.solve_result_.status == "optimal" and free.method_result_.n_solves > 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        capped = LPRanker(gamma=1.0, method="chunking", method_options=options,
                          solver_options={"time_limit": 1e-3}).fit(X, y)
    assert capped.method_result_.n_solves < free.method_result_.n_solves
    assert capped.solve_result_.status == "time_limit" and not capped.method_result_.converged
    assert any(issubclass(w.category, ConvergenceWarning) and "time_limit" in str(w.message) for w in caught)
    assert capped.objective_ >= free.objective_ * (1 - 1e-9)  # an upper bound of the optimum


# ============================================================================ AUC-SVM
def test_aucsvm_auto_routes(cancer, monkeypatch):
    """Dual coordinate descent at every size (for a linear kernel with the squared hinge: the QP up
    to the threshold, truncated Newton above): the QP's optimum within its own certified gap,
    against Clarabel's QP solved to 1e-11."""
    X, y = MinMaxScaler().fit_transform(cancer[0]), cancer[1]
    tight = {"tol_gap_abs": 1e-11, "tol_gap_rel": 1e-11, "tol_feas": 1e-11}
    assert AUCSVM(kernel="linear", loss="squared_hinge").fit(X, y).method_ == "full"
    for kernel, loss in [("rbf", "hinge"), ("linear", "hinge"), ("rbf", "squared_hinge")]:
        params = dict(C=10.0, kernel=kernel, loss=loss)
        auto = AUCSVM(**params).fit(X, y)
        assert auto.method_ == "dcd" and auto.solve_result_.status == "optimal" and len(auto.support_pairs_)
        _same_model(auto, AUCSVM(**params, method="dcd").fit(X, y), X)
        qp = AUCSVM(**params, method="full", solver="clarabel", solver_options=tight).fit(X, y)
        gap = auto.objective_ + auto.dual_objective_  # a feasible dual point: objective_ - optimum <= gap
        assert 0 <= gap <= 1e-5 * auto.objective_, (kernel, loss)
        assert qp.objective_ * (1 - 1e-9) <= auto.objective_ <= qp.objective_ + gap * (1 + 1e-6) + 1e-12, (kernel, loss)
    monkeypatch.setattr(aucopt.svm._aucsvm, "AUCSVM_AUTO_MAX_PAIRS", 50)
    big = AUCSVM(C=0.1, kernel="linear", loss="squared_hinge").fit(X, y)
    assert big.method_ == "newton"
    exact = AUCSVM(C=0.1, kernel="linear", loss="squared_hinge", method="dcd", tol=1e-10).fit(X, y)
    assert big.objective_ == pytest.approx(exact.objective_, rel=1e-9)
    assert AUCSVM(C=0.1, kernel="linear").fit(X, y).method_ == "dcd"  # the hinge: at every size
    Xs, ys = _survival()
    assert SurvivalAUCSVM(C=0.1, kernel="linear").fit(Xs, ys).method_ == "dcd"
    assert SurvivalAUCSVM(C=0.1).fit(Xs, ys).method_ == "dcd"


def test_aucsvm_auto_states_its_choice_under_verbose(cancer, capsys):
    X, y = MinMaxScaler().fit_transform(cancer[0]), cancer[1]
    AUCSVM(C=0.1, kernel="linear", verbose=1, solver="clarabel").fit(X, y)
    assert "[AUCSVM] method='auto': the pairwise dual QP" in capsys.readouterr().out


def test_liblinear_squared_hinge_is_insensitive_to_feature_scales(cancer):
    """Unscaled WDBC features (areas ~1e3 next to ratios ~1e-2): the primal Newton route reaches
    the dual QP's optimum without hitting an iteration limit."""
    X, y = cancer
    with warnings.catch_warnings():
        warnings.simplefilter("error", SolverWarning)
        lib = AUCSVM(C=0.01, loss="squared_hinge", kernel="linear", method="liblinear").fit(X, y)
    assert lib.solve_result_.status == "optimal" and lib.n_iter_ < 200
    qp = AUCSVM(C=0.01, loss="squared_hinge", kernel="linear", method="full", solver="clarabel").fit(X, y)
    assert lib.objective_ == pytest.approx(qp.objective_, rel=1e-6)


def test_liblinear_hinge_at_its_iteration_limit_names_the_fix(cancer):
    X, y = cancer
    with pytest.warns(SolverWarning, match="scale them .*MinMaxScaler.* or use loss='squared_hinge'"):
        model = AUCSVM(C=0.01, kernel="linear", method="liblinear", max_iter=50).fit(X, y)
    assert model.solve_result_.status == "iteration_limit"
