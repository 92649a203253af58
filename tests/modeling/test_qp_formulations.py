"""The squared-hinge ranking SVM and the least-squares pairwise AUC QPs against independent oracles.

Oracles: cvxpy models of the same mathematics written here over brute-force pair lists (loops over
the labels, not ``PairSet``), with their own parametrization of the penalty (a Cholesky factor, or
the weight vector w of a linear scorer); the estimators that minimize the same objectives by other
algorithms (``RankSVM`` / ``SurvivalRankSVM`` / ``RankRC`` by truncated Newton on the sorted-pair
core, ``OnePassAUC``'s closed-form batch minimizer); the dual QP ``aucsvm_l2_dual`` (strong
duality); and four QP backends.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
from sklearn.datasets import make_classification

from aucopt import (
    OnePassAUC,
    PairSet,
    RankRC,
    RankSVM,
    SurvivalRankSVM,
    available_solvers,
    get_formulation,
    kernel_matrix,
    solve,
    survival_target,
)
from aucopt.online import batch_solution

FORMULATIONS = ("ranksvm_squared_hinge", "auc_least_squares")
GAMMA = 0.5


# ----------------------------------------------------------------------------- data and oracles
def binary_data(n=30, d=4, seed=0, weights=None):
    X, y = make_classification(n_samples=n, n_features=d, n_informative=3, n_redundant=0,
                               weights=weights, random_state=seed)
    return X, y


def survival_data(n=24, d=3, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    time = np.round(np.exp(-X[:, 0] + 0.5 * rng.normal(size=n)), 1)  # ties on purpose
    event = rng.random(n) < 0.7
    return X, event, time


def bipartite_pairs(y, v):
    """(i, j, v_i v_j) for every positive i and negative j, by loops."""
    return [(i, j, v[i] * v[j]) for i in range(len(y)) for j in range(len(y)) if y[i] == 1 and y[j] == 0]


def harrell_pairs(event, time):
    """Harrell's comparable pairs (i has the event and t_i < t_j, or t_i = t_j with j censored)."""
    n = len(time)
    return [(i, j, 1.0) for i in range(n) for j in range(n)
            if i != j and event[i] and (time[i] < time[j] or (time[i] == time[j] and not event[j]))]


def pair_loss(name, d):
    """The per-pair loss of a formulation at the score differences d, as a cvxpy expression or an array."""
    if name == "ranksvm_squared_hinge":
        return cp.square(cp.pos(1 - d)) if isinstance(d, cp.Expression) else np.maximum(0.0, 1 - d) ** 2
    return cp.square(1 - d) if isinstance(d, cp.Expression) else (1 - d) ** 2


def cvxpy_optimum(name, pairs, C, *, K=None, K_RR=None, X=None):
    """min ½ penalty + (C/2) Σ w ℓ(f_i − f_j): kernel form (f = Kβ, ½βᵀK_RRβ by Cholesky) or linear (f = Xw)."""
    i, j, w = (np.array(a) for a in zip(*pairs, strict=False))
    if X is not None:  # the linear scorer f = X w, penalty ½‖w‖²: a parametrization without any kernel
        theta = cp.Variable(X.shape[1])
        f, penalty = X @ theta, 0.5 * cp.sum_squares(theta)
    else:
        theta = cp.Variable(K.shape[1])
        chol = np.linalg.cholesky(K_RR)  # K_RR = chol cholᵀ (an RBF block is positive definite)
        f, penalty = K @ theta, 0.5 * cp.sum_squares(chol.T @ theta)
    objective = penalty + 0.5 * C * cp.sum(cp.multiply(w, pair_loss(name, f[i] - f[j])))
    problem = cp.Problem(cp.Minimize(objective))
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    assert problem.status == "optimal"
    return problem.value, theta.value


def evaluated_objective(name, pairs, C, f, beta, K_RR):
    """The formulation's objective evaluated from the scores and the coefficients (no solver)."""
    i, j, w = (np.array(a) for a in zip(*pairs, strict=False))
    return 0.5 * beta @ K_RR @ beta + 0.5 * C * float(w @ pair_loss(name, f[i] - f[j]))


def solved(problem, solver="clarabel", tol=1e-10, **kw):
    return solve(problem, solver, tol=tol, **kw).raise_for_status()


# one small case per pair structure and expansion: (PairSet, brute-force pairs, K, basis, factor, X)
def case(kind):
    if kind == "survival":
        X, event, time = survival_data()
        K = kernel_matrix(X, gamma=GAMMA)
        return PairSet.survival(survival_target(event, time)), harrell_pairs(event, time), K, None, None, X
    X, y = binary_data()
    if kind == "weighted":
        v = np.random.default_rng(3).uniform(0.2, 2.0, len(y))
        return (PairSet.bipartite(y, point_weights=v), bipartite_pairs(y, v), kernel_matrix(X, gamma=GAMMA),
                None, None, X)
    ones = np.ones(len(y))
    if kind == "basis":  # RankRC's expansion over the positives: K is n × |R|
        basis = np.flatnonzero(y == 1)
        K = kernel_matrix(X, X[basis], gamma=GAMMA)
        return PairSet.bipartite(y), bipartite_pairs(y, ones), K, basis, None, X
    # "linear": K = X Xᵀ with the exact factor X
    return PairSet.bipartite(y), bipartite_pairs(y, ones), X @ X.T, None, X, X


CASES = ("weighted", "survival", "basis", "linear")


# ----------------------------------------------------------------------------- the cvxpy oracle
@pytest.mark.parametrize("kind", CASES)
@pytest.mark.parametrize("name", FORMULATIONS)
def test_optimum_equals_an_independent_cvxpy_model(name, kind):
    pairs, brute, K, basis, factor, X = case(kind)
    assert pairs.n_pairs == len(brute)
    C = 0.3
    problem = get_formulation(name).build(pairs, K, factor=factor, C=C, basis=basis)
    result = solved(problem)
    K_RR = K if basis is None else K[basis]
    if kind == "linear":
        expected, w = cvxpy_optimum(name, brute, C, X=X)
        np.testing.assert_allclose(X.T @ problem.output(result.x, "coef"), w, atol=1e-6)
    else:
        expected, beta = cvxpy_optimum(name, brute, C, K=K, K_RR=K_RR)
        np.testing.assert_allclose(K @ problem.output(result.x, "coef"), K @ beta, atol=1e-6)
    assert result.objective == pytest.approx(expected, rel=1e-7)
    # the solution's coefficients and scores give the same value outside the solver
    beta = problem.output(result.x, "coef")
    f = problem.block(result.x, "scores")
    np.testing.assert_allclose(f, K @ beta, atol=1e-8)
    assert evaluated_objective(name, brute, C, f, beta, K_RR) == pytest.approx(expected, rel=1e-7)


@pytest.mark.parametrize("name", FORMULATIONS)
def test_slacks_are_the_loss_residuals(name):
    pairs, brute, K, *_ = case("survival")
    problem = get_formulation(name).build(pairs, K, C=2.0)
    result = solved(problem, "osqp", tol=1e-9)  # polished: the active set is exact
    f = problem.block(result.x, "scores")
    i, j = np.array([p[0] for p in brute]), np.array([p[1] for p in brute])
    i_m, j_m, _ = pairs.to_arrays()
    order = {(a, b): k for k, (a, b) in enumerate(zip(i_m.tolist(), j_m.tolist(), strict=False))}
    block = problem.block(result.x, "z" if name == "ranksvm_squared_hinge" else "r")
    slack = block[[order[p] for p in zip(i, j, strict=False)]]
    residual = 1.0 - (f[i] - f[j])
    expected = np.maximum(residual, 0.0) if name == "ranksvm_squared_hinge" else residual
    np.testing.assert_allclose(slack, expected, atol=1e-7)
    assert np.any(residual < -1e-3) or name == "ranksvm_squared_hinge"  # some pairs exceed the margin


# ----------------------------------------------------------------------------- backends
@pytest.mark.parametrize("name", FORMULATIONS)
def test_backends_agree(name):
    pairs, _, K, *_ = case("weighted")
    problem = get_formulation(name).build(pairs, K, C=0.8)
    backends = [s for s in ("clarabel", "highs", "osqp", "scs") if s in available_solvers()]
    assert len(backends) >= 3
    results = {s: solved(problem, s, tol=1e-9, max_iter=200_000 if s == "osqp" else None) for s in backends}
    reference = results["clarabel"]
    f_ref = problem.block(reference.x, "scores")
    for s, res in results.items():
        assert res.objective == pytest.approx(reference.objective, rel=1e-6), s
        assert problem.objective(res.x) == pytest.approx(res.objective, rel=1e-9), s
        np.testing.assert_allclose(problem.block(res.x, "scores"), f_ref, atol=1e-4, err_msg=s)


# ----------------------------------------------------------------------------- the estimators
def test_squared_hinge_equals_ranksvm_with_sample_weights():
    X, y = binary_data(n=40, seed=2)
    sw = np.random.default_rng(0).uniform(0.5, 1.5, len(y))
    alpha = 0.05
    est = RankSVM(alpha=alpha, tol=1e-12).fit(X, y, sample_weight=sw)
    pairs = PairSet.bipartite(y, point_weights=sw)
    C = 2.0 / (alpha * pairs.total_weight())
    problem = get_formulation("ranksvm_squared_hinge").build(pairs, X @ X.T, factor=X, C=C)
    result = solved(problem)
    w = X.T @ problem.output(result.x, "coef")
    assert alpha * result.objective == pytest.approx(est.objective_, rel=1e-7)
    np.testing.assert_allclose(w, est.coef_, atol=1e-6)
    np.testing.assert_allclose(problem.block(result.x, "scores"), X @ est.coef_, atol=1e-6)


def test_squared_hinge_equals_survival_ranksvm():
    X, event, time = survival_data(n=30, seed=4)
    y = survival_target(event, time)
    alpha = 0.02
    est = SurvivalRankSVM(alpha=alpha, tol=1e-12).fit(X, y)
    pairs = PairSet.survival(y)
    problem = get_formulation("ranksvm_squared_hinge").build(pairs, X @ X.T, factor=X,
                                                              C=2.0 / (alpha * pairs.total_weight()))
    result = solved(problem)
    assert alpha * result.objective == pytest.approx(est.objective_, rel=1e-7)
    np.testing.assert_allclose(X.T @ problem.output(result.x, "coef"), est.coef_, atol=1e-6)


def test_squared_hinge_over_a_basis_equals_rankrc():
    X, y = binary_data(n=40, seed=1, weights=[0.75])
    alpha = 0.02
    est = RankRC(alpha=alpha, loss="squared_hinge", gamma=GAMMA, tol=1e-12).fit(X, y)
    assert len(est.support_) < len(y)  # the rare class: K is n × |R|, not square
    pairs = PairSet.bipartite(y)
    K = est.kernel_(X, X[est.support_])
    problem = get_formulation("ranksvm_squared_hinge").build(pairs, K, basis=est.support_,
                                                              C=2.0 / (alpha * pairs.total_weight()))
    result = solved(problem)
    beta = problem.output(result.x, "coef")
    assert alpha * result.objective == pytest.approx(est.objective_, rel=1e-6)
    np.testing.assert_allclose(beta, est.dual_coef_, atol=1e-4 * np.abs(est.dual_coef_).max())
    np.testing.assert_allclose(K @ beta, est.decision_function(X) - est.intercept_, atol=1e-5)


def test_squared_hinge_primal_and_l2_dual_have_opposite_optima():
    pairs, _, K, *_ = case("survival")
    primal = get_formulation("ranksvm_squared_hinge").build(pairs, K, C=1.5)
    dual = get_formulation("aucsvm_l2_dual").build(pairs, K, C=1.5)
    p, d = solved(primal), solved(dual)
    assert p.objective == pytest.approx(-d.objective, rel=1e-7)
    np.testing.assert_allclose(K @ primal.output(p.x, "coef"), K @ dual.output(d.x, "coef"), atol=1e-5)


@pytest.mark.parametrize("weighted", [False, True])
def test_least_squares_equals_onepass_batch_solution(weighted):
    X, y = binary_data(n=40, seed=5)
    sw = np.random.default_rng(1).uniform(0.5, 2.0, len(y)) if weighted else None
    alpha = 0.03
    w_star = batch_solution(X, y, alpha=alpha, sample_weight=sw)
    pairs = PairSet.bipartite(y, point_weights=sw)
    N = pairs.total_weight()
    problem = get_formulation("auc_least_squares").build(pairs, X @ X.T, factor=X, C=1.0 / (alpha * N))
    result = solved(problem)
    w = X.T @ problem.output(result.x, "coef")
    np.testing.assert_allclose(w, w_star, rtol=0, atol=1e-6 * np.abs(w_star).max())
    # Gao et al. (2013), Eq. (2), at w*: (α/2)‖w‖² + (1/(2N)) Σ v_i v_j (1 − wᵀ(x_i − x_j))²
    v = np.ones(len(y)) if sw is None else sw
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    d = (X[pos] @ w_star)[:, None] - (X[neg] @ w_star)[None, :]
    eq2 = 0.5 * alpha * w_star @ w_star + float(np.outer(v[pos], v[neg]).ravel() @ ((1 - d) ** 2).ravel()) / (2 * N)
    assert alpha * result.objective == pytest.approx(eq2, rel=1e-7)
    if not weighted:  # the estimator's own batch minimizer, from its streamed class statistics
        streamed = OnePassAUC(alpha=alpha).fit(X, y).batch_solution()
        np.testing.assert_allclose(w, streamed, rtol=0, atol=1e-6 * np.abs(w_star).max())


# ----------------------------------------------------------------------------- size and errors
@pytest.mark.parametrize("lifted", [True, False])
@pytest.mark.parametrize("name", FORMULATIONS)
def test_declared_size_and_lifted_form(name, lifted):
    pairs, _, K, *_ = case("weighted")  # an RBF kernel of full rank: the declared size is exact
    form = get_formulation(name)
    problem = form.build(pairs, K, C=0.5, lifted=lifted)
    assert problem.kind == "QP"
    assert problem.nnz == form.nnz(n_points=K.shape[0], n_pairs=pairs.n_pairs, n_basis=K.shape[1], lifted=lifted)
    if not lifted:
        lifted_problem = form.build(pairs, K, C=0.5)
        assert solved(problem).objective == pytest.approx(solved(lifted_problem).objective, rel=1e-8)


@pytest.mark.parametrize("name", FORMULATIONS)
def test_a_basis_kernel_without_basis_is_refused(name):
    pairs, _, K, basis, *_ = case("basis")
    with pytest.raises(ValueError, match=r"shape \(30, \d+\).*pass basis="):
        get_formulation(name).build(pairs, K)
    with pytest.raises(ValueError, match=r"basis has \d+ points but the kernel has \d+ columns"):
        get_formulation(name).build(pairs, K, basis=basis[:-1])
