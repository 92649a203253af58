"""formulations/fair_ranker.py against independent oracles.

Oracles: a cvxpy model of the same LP written here from the module docstring's math, three
backends on the built problem, the LP Ranker (ε large), the hinge gap evaluated from the scores
at the solution, and, on real data (WHAS500, gender), the held-out xAUC gap of aucopt.metrics.xauc
with a DeLong-type standard error.
"""

from __future__ import annotations

import numpy as np
import pytest

from aucopt import PairSet, get_formulation, kernel_matrix, solve
from aucopt.metrics import roc_auc, xauc


def small_case(seed=0, n=30):
    """Bipartite data whose group "b" is shifted upward: the LP Ranker ranks it unequally."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    groups = np.where(rng.random(n) < 0.5, "a", "b")
    y[:4], groups[:4] = [1, 0, 1, 0], ["a", "a", "b", "b"]
    X = rng.normal(size=(n, 2)) + np.c_[1.0 * y, 1.2 * (groups == "b")]
    return PairSet.bipartite(y), kernel_matrix(X, gamma=0.5), y, groups


def cross_masks(pairs, groups):
    i, j, _ = pairs.to_arrays()
    return (groups[i] == "a") & (groups[j] == "b"), (groups[i] == "b") & (groups[j] == "a"), i, j


def hinge_gap(f, pairs, groups):
    """mean over P_ab of max(0, 1 − (f_i − f_j)) minus the same over P_ba."""
    ab, ba, i, j = cross_masks(pairs, groups)
    h = np.maximum(0.0, 1.0 - (f[i] - f[j]))
    return h[ab].mean() - h[ba].mean()


def cvxpy_fair_ranker(K, pairs, groups, C, epsilon):
    """The LP of the module docstring, written directly in cvxpy (dense pair rows), solved by Clarabel."""
    cp = pytest.importorskip("cvxpy")
    ab, ba, i, j = cross_masks(pairs, groups)
    w = pairs.to_arrays()[2]
    alpha, z = cp.Variable(K.shape[1], nonneg=True), cp.Variable(len(i), nonneg=True)
    f = K @ cp.multiply(pairs.signs, alpha)
    d = f[i] - f[j]
    cons = [d + z >= 1,
            cp.sum(z[np.flatnonzero(ab)]) / ab.sum() - cp.sum(1 - d[np.flatnonzero(ba)]) / ba.sum() <= epsilon,
            cp.sum(z[np.flatnonzero(ba)]) / ba.sum() - cp.sum(1 - d[np.flatnonzero(ab)]) / ab.sum() <= epsilon]
    prob = cp.Problem(cp.Minimize(cp.sum(alpha) + C * (w @ z)), cons)
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    assert prob.status == "optimal"
    return prob.value


def fit(pairs, K, solver="highs", **params):
    problem = get_formulation("fair_ranker").build(pairs, K, **params)
    result = solve(problem, solver)
    result.raise_for_status()
    return result, K @ problem.output(result.x, "coef")


@pytest.mark.parametrize("seed, epsilon", [(0, 0.0), (1, 0.02), (2, 0.1)])
def test_matches_independent_cvxpy_model(seed, epsilon):
    pairs, K, _, groups = small_case(seed)
    result, _ = fit(pairs, K, C=0.5, groups=groups, epsilon=epsilon)
    assert result.objective == pytest.approx(cvxpy_fair_ranker(K, pairs, groups, 0.5, epsilon), rel=1e-7, abs=1e-7)


@pytest.mark.parametrize("solver", ["clarabel", "ecos", "scs"])
def test_backends_agree(solver):
    pairs, K, _, groups = small_case(3)
    reference, _ = fit(pairs, K, C=0.5, groups=groups, epsilon=0.05)
    options = {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iters": 200_000} if solver == "scs" else None
    problem = get_formulation("fair_ranker").build(pairs, K, C=0.5, groups=groups, epsilon=0.05)
    result = solve(problem, solver, solver_options=options)
    result.raise_for_status()
    assert result.objective == pytest.approx(reference.objective, rel=1e-6, abs=1e-6)


def test_large_epsilon_is_the_lp_ranker_and_small_epsilon_closes_the_gap():
    pairs, K, _y, groups = small_case(4)
    lp_ranker = get_formulation("lp_ranker").build(pairs, K, C=0.5)
    ranker = solve(lp_ranker, "highs")
    f_ranker = K @ lp_ranker.output(ranker.x, "coef")
    loose, _ = fit(pairs, K, C=0.5, groups=groups, epsilon=1e3)
    assert loose.objective == pytest.approx(ranker.objective, rel=1e-9, abs=1e-9)
    assert abs(hinge_gap(f_ranker, pairs, groups)) > 0.1  # the data make the unconstrained ranker unequal
    previous = ranker.objective
    for epsilon in (0.1, 0.03, 0.0):  # a tighter bound never lowers the optimum, and binds
        result, f = fit(pairs, K, C=0.5, groups=groups, epsilon=epsilon)
        assert abs(hinge_gap(f, pairs, groups)) <= epsilon + 1e-7  # the true hinge, not the slacks
        assert result.objective >= previous - 1e-9
        previous = result.objective
    assert previous > ranker.objective + 1e-3


def test_slack_only_rows_would_not_bound_the_hinge_gap():
    """Why the rows bound z against 1 − d: on the slacks alone the LP inflates z above the hinge."""
    cp = pytest.importorskip("cvxpy")
    pairs, K, _, groups = small_case(4)
    ab, ba, i, j = cross_masks(pairs, groups)
    alpha, z = cp.Variable(K.shape[1], nonneg=True), cp.Variable(len(i), nonneg=True)
    f = K @ cp.multiply(pairs.signs, alpha)
    gap = cp.sum(z[np.flatnonzero(ab)]) / ab.sum() - cp.sum(z[np.flatnonzero(ba)]) / ba.sum()
    cp.Problem(cp.Minimize(cp.sum(alpha) + 0.5 * cp.sum(z)), [f[i] - f[j] + z >= 1, cp.abs(gap) <= 0.0]).solve()
    scores = K @ (pairs.signs * alpha.value)
    assert abs(hinge_gap(scores, pairs, groups)) > 0.05  # the slacks' gap is 0, the hinge's is not
    _, fair_scores = fit(pairs, K, C=0.5, groups=groups, epsilon=0.0)
    assert abs(hinge_gap(fair_scores, pairs, groups)) <= 1e-7


def test_survival_pairs_and_declared_size():
    rng = np.random.default_rng(5)
    n = 24
    X = rng.normal(size=(n, 2))
    groups = np.where(np.arange(n) % 2 == 0, "a", "b")
    y = np.empty(n, dtype=[("event", bool), ("time", float)])
    y["event"], y["time"] = rng.random(n) < 0.7, np.exp(-X[:, 0] + 0.3 * (groups == "b"))
    pairs, K = PairSet.survival(y), kernel_matrix(X, gamma=0.5)
    form = get_formulation("fair_ranker")
    result, f = fit(pairs, K, C=1.0, groups=groups, epsilon=0.01)
    assert abs(hinge_gap(f, pairs, groups)) <= 0.01 + 1e-7
    assert result.objective == pytest.approx(cvxpy_fair_ranker(K, pairs, groups, 1.0, 0.01), rel=1e-7, abs=1e-7)
    for lifted in (True, False):
        problem = form.build(pairs, K, C=1.0, groups=groups, epsilon=0.01, lifted=lifted)
        declared = form.nnz(n_points=n, n_pairs=pairs.n_pairs, n_basis=n, lifted=lifted)
        lp = get_formulation("lp_ranker").build(pairs, K, lifted=lifted)
        assert lp.nnz < problem.nnz <= declared  # an upper bound: the fairness rows depend on the groups


def test_errors_name_the_quantity():
    pairs, K, _, groups = small_case(0)
    form = get_formulation("fair_ranker")
    with pytest.raises(ValueError, match=r"exactly two group labels; got shape \(30,\) with labels \['a'\]"):
        form.build(pairs, K, groups=np.full(30, "a"))
    with pytest.raises(ValueError, match=r"one of exactly two group labels; got shape \(29,\)"):
        form.build(pairs, K, groups=groups[:29])
    with pytest.raises(ValueError, match=r"The 'epsilon' parameter of the formulation 'fair_ranker' must be a float "
                                         r"in the range \[0.0, inf\). Got -0.1 instead."):
        form.build(pairs, K, groups=groups, epsilon=-0.1)
    y = np.array([1, 1, 0, 0])
    with pytest.raises(ValueError, match=r"No pair ranks a point of group 'a' above one of group 'b'"):
        form.build(PairSet.bipartite(y), np.eye(4), groups=np.array(["a", "b", "a", "a"]))


# ----------------------------------------------------------------------------- real data: WHAS500, gender


def delong_variance(f, pos, neg):
    """DeLong et al. (1988) variance of the AUC of positives ``pos`` against negatives ``neg``."""
    ps, ns = np.sort(f[pos]), np.sort(f[neg])
    v10 = (np.searchsorted(ns, f[pos], "left") + np.searchsorted(ns, f[pos], "right")) / (2 * len(ns))
    v01 = 1 - (np.searchsorted(ps, f[neg], "left") + np.searchsorted(ps, f[neg], "right")) / (2 * len(ps))
    return np.var(v10, ddof=1) / len(ps) + np.var(v01, ddof=1) / len(ns)


def test_whas500_heldout_xauc_gap_within_the_bound():
    """Five-year mortality after myocardial infarction (WHAS500), gender as the protected group.

    Outcome: death within 1,825 days; subjects censored earlier are dropped (297 remain). Linear
    kernel on standardized covariates, C = 0.01, ε = 0.02; 3-fold cross-validation (stratified by
    outcome × gender), the held-out gap averaged over the folds. Margin: the folds' test sets are
    disjoint, and within a fold xAUC(a, b) and xAUC(b, a) use disjoint samples, so the variance
    of the mean gap is Σ_folds (Var_ab + Var_ba) / 9 with DeLong's variance of each cross-group AUC;
    the fair model's mean held-out gap must lie within ε + 2 standard errors. On the same folds the
    unconstrained LP Ranker's gap (about −0.11: women are older, so male deaths rank below female
    survivors) is larger, and its training gap is far above ε where the fair model's is not.
    """
    pd = pytest.importorskip("pandas")
    sksurv_datasets = pytest.importorskip("sksurv.datasets")
    from sklearn.model_selection import StratifiedKFold
    from sklearn.preprocessing import StandardScaler

    from aucopt.datasets import load_survival

    X, target = load_survival("whas500")
    columns = pd.get_dummies(sksurv_datasets.load_whas500()[0], drop_first=True, dtype=float).columns
    gender = X[:, columns.get_loc("gender_1")]
    assert set(np.unique(gender)) == {0.0, 1.0} and len(columns) == X.shape[1]
    horizon, C, epsilon = 1825.0, 0.01, 0.02
    died = target["event"] & (target["time"] <= horizon)
    keep = died | (target["time"] > horizon)
    X, y, g = X[keep], died[keep].astype(int), gender[keep]
    gaps, train_gaps, aucs = ({"lp_ranker": [], "fair_ranker": []} for _ in range(3))
    variance = []
    for train, test in StratifiedKFold(3, shuffle=True, random_state=0).split(X, 2 * y + g):
        scaler = StandardScaler().fit(X[train])
        Xtr, Xte = scaler.transform(X[train]), scaler.transform(X[test])
        K, pairs = Xtr @ Xtr.T, PairSet.bipartite(y[train])
        for name, params in (("lp_ranker", {}), ("fair_ranker", dict(groups=g[train], epsilon=epsilon))):
            problem = get_formulation(name).build(pairs, K, C=C, **params)
            # HiGHS's interior point (with crossover to a vertex): 2-3 times faster than its simplex here
            result = solve(problem, "highs", solver_options={"solver": "ipm"})
            result.raise_for_status()
            coef = problem.output(result.x, "coef")
            f_train, f_test = K @ coef, (Xte @ Xtr.T) @ coef
            gaps[name].append(xauc(y[test], f_test, g[test]).gap)
            train_gaps[name].append(xauc(y[train], f_train, g[train]).gap)
            aucs[name].append(roc_auc(y[test], f_test))
            if name == "fair_ranker":
                assert abs(hinge_gap(f_train, pairs, np.where(g[train] == 0, "a", "b"))) <= epsilon + 1e-7
                yt, gt = y[test], g[test]
                variance.append(delong_variance(f_test, (yt == 1) & (gt == 0), (yt == 0) & (gt == 1))
                                + delong_variance(f_test, (yt == 1) & (gt == 1), (yt == 0) & (gt == 0)))
    se = np.sqrt(np.sum(variance)) / 3
    fair, unconstrained = np.mean(gaps["fair_ranker"]), np.mean(gaps["lp_ranker"])
    assert abs(fair) <= epsilon + 2 * se, (fair, se)
    assert abs(unconstrained) > abs(fair) + 0.05, (unconstrained, fair)
    assert abs(np.mean(train_gaps["lp_ranker"])) > 0.08 > 2 * epsilon >= abs(np.mean(train_gaps["fair_ranker"]))
    assert np.mean(aucs["fair_ranker"]) > np.mean(aucs["lp_ranker"]) - 0.03  # the ranking quality is kept
