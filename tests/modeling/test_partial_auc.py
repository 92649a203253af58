"""The partial-AUC LP (formulations/partial_auc.py) against independent oracles.

Oracles: a cvxpy model of the same mathematics written with cvxpy's own atoms (cp.sum_largest of
cp.pos per positive), the objective re-evaluated from the solution by sorting in numpy, the LP
Ranker at beta = 1, four backends, and the empirical partial AUC computed by brute force over
the pairs with the top-scored negatives.
"""

from __future__ import annotations

import math

import cvxpy as cp
import numpy as np
import pytest

from aucopt import PairSet, get_formulation, kernel_matrix, solve

FORM = get_formulation("partial_auc")


def noisy_data(seed, n=24, d=3, gamma=0.5):
    rng = np.random.default_rng(seed)
    y = np.r_[np.ones(n // 3, int), np.zeros(n - n // 3, int)]
    X = rng.normal(size=(n, d)) + 0.7 * y[:, None]
    return y, kernel_matrix(X, gamma=gamma)


def top_k(beta, n_neg):
    return math.ceil(round(beta * n_neg, 9))


def partial_auc_objective(alpha, K, y, C, beta):
    """Σα + C/(n_pos k) Σ_i (sum of the k largest (1 − f_i + f_j)_+ over negatives j), by sorting."""
    f = K @ (np.where(y == 1, 1.0, -1.0) * alpha)
    fn = f[y == 0]
    k = top_k(beta, len(fn))
    losses = [np.sort(np.maximum(0.0, 1.0 - fi + fn))[::-1][:k].sum() for fi in f[y == 1]]
    return alpha.sum() + C / (len(losses) * k) * sum(losses)


def cvxpy_partial_auc(K, y, C, beta):
    """The same LP as an independent cvxpy model, solved by Clarabel to tight tolerances."""
    alpha = cp.Variable(K.shape[1], nonneg=True)
    f = K @ cp.multiply(np.where(y == 1, 1.0, -1.0), alpha)
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    k = top_k(beta, len(neg))
    loss = sum(cp.sum_largest(cp.pos(1 - f[i] + f[neg]), k) for i in pos)
    problem = cp.Problem(cp.Minimize(cp.sum(alpha) + C / (len(pos) * k) * loss))
    problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-9, tol_gap_rel=1e-9, tol_feas=1e-9)
    return problem.value


def empirical_pauc(f, y, beta):
    """pAUC(0, beta) / beta: the fraction of (positive, top-k negative) pairs ranked correctly, ties 1/2."""
    fn = np.sort(f[y == 0])[::-1]
    top = fn[:top_k(beta, len(fn))]
    return float(np.mean([(a > b) + 0.5 * (a == b) for a in f[y == 1] for b in top]))


def solved(problem, solver="highs", **kw):
    result = solve(problem, solver, **kw)
    result.raise_for_status()
    return result


# ----------------------------------------------------------------------------- optimum


@pytest.mark.parametrize("seed, C, beta", [(0, 20.0, 0.1), (1, 50.0, 0.25), (2, 10.0, 0.5), (3, 30.0, 1.0)])
def test_matches_independent_cvxpy_model(seed, C, beta):
    y, K = noisy_data(seed)
    problem = FORM.build(PairSet.bipartite(y), K, C=C, beta=beta)
    result = solved(problem)
    reference = cvxpy_partial_auc(K, y, C, beta)
    assert result.objective == pytest.approx(reference, rel=1e-7)
    alpha = problem.block(result.x, "alpha")
    assert alpha.sum() > 1e-3  # not the trivial α = 0
    assert partial_auc_objective(alpha, K, y, C, beta) == pytest.approx(reference, rel=1e-7)


@pytest.mark.parametrize("solver, tol", [("clarabel", 1e-9), ("scs", 1e-9), ("ecos", None)])
def test_backends_agree(solver, tol):
    y, K = noisy_data(4, n=18)
    problem = FORM.build(PairSet.bipartite(y), K, C=30.0, beta=0.3)
    reference = solved(problem, "highs").objective
    result = solve(problem, solver, tol=tol)
    assert result.x is not None
    assert result.objective == pytest.approx(reference, rel=1e-6)


@pytest.mark.parametrize("seed, C", [(5, 40.0), (6, 200.0)])
def test_beta_one_is_the_lp_ranker_with_normalized_C(seed, C):
    y, K = noisy_data(seed)
    pairs = PairSet.bipartite(y)
    n_pos, n_neg = int(y.sum()), int((y == 0).sum())
    ours = FORM.build(pairs, K, C=C, beta=1.0)
    ranker = get_formulation("lp_ranker").build(pairs, K, C=C / (n_pos * n_neg))
    r_ours, r_ranker = solved(ours), solved(ranker)
    assert r_ours.objective == pytest.approx(r_ranker.objective, rel=1e-8)
    # each solution is optimal for the other problem too
    alpha_ours, alpha_ranker = ours.block(r_ours.x, "alpha"), ranker.block(r_ranker.x, "alpha")
    assert partial_auc_objective(alpha_ranker, K, y, C, 1.0) == pytest.approx(r_ours.objective, rel=1e-7)
    assert partial_auc_objective(alpha_ours, K, y, C, 1.0) == pytest.approx(r_ranker.objective, rel=1e-7)


def test_k_is_the_ceiling_of_beta_times_negatives():
    """k = ⌈β n_neg⌉ read from the objective: τ has weight C/n_pos, each excess C/(n_pos k)."""
    y = np.r_[np.ones(5, int), np.zeros(30, int)]
    K = np.eye(35)
    for beta, k in ((0.1, 3), (0.1001, 4), (1 / 30, 1), (0.5, 15), (1.0, 30)):
        problem = FORM.build(PairSet.bipartite(y), K, C=7.0, beta=beta)
        c_tau = problem.c[problem.blocks["top_tau"]]
        c_excess = problem.c[problem.blocks["top_excess"]]
        np.testing.assert_allclose(c_tau, 7.0 / 5)
        np.testing.assert_allclose(c_tau[0] / c_excess, k)


def test_lifted_and_dense_forms_agree_and_sizes_are_declared():
    y, K = noisy_data(7, n=15)
    pairs = PairSet.bipartite(y)
    lifted = FORM.build(pairs, K, C=20.0, beta=0.2)
    dense = FORM.build(pairs, K, C=20.0, beta=0.2, lifted=False)
    assert solved(lifted).objective == pytest.approx(solved(dense).objective, rel=1e-8)
    n, P = len(y), pairs.n_pairs
    assert lifted.A.nnz == FORM.nnz(n_points=n, n_pairs=P, n_basis=n, lifted=True) == n * (n + 1) + 6 * P
    assert dense.A.nnz <= FORM.nnz(n_points=n, n_pairs=P, n_basis=n, lifted=False)


# ----------------------------------------------------------------------------- partial AUC of the solution


def conflicting_data(seed, n_pos=20, n_neg=60, n_hard=6, spread=1.0):
    """Most negatives are easy along x1; a few hard ones outrank the positives along x1 and are
    separated by x2. A full-AUC ranker can leave the hard ones on top; pAUC(0, 0.1) counts only them."""
    rng = np.random.default_rng(seed)
    X = np.r_[np.array([1.0, 1.0]) + rng.normal(0, spread, (n_pos, 2)),
              np.array([-2.0, 1.0]) + rng.normal(0, spread, (n_neg - n_hard, 2)),
              np.array([1.5, -1.0]) + rng.normal(0, 0.3, (n_hard, 2))]
    return np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)], X @ X.T  # linear kernel


def test_partial_auc_of_the_solution_beats_the_lp_ranker_where_it_matters():
    beta, C = 0.1, 100.0
    ours, ranker = [], []
    for seed in range(6):
        y, K = conflicting_data(seed)
        pairs = PairSet.bipartite(y)
        p_ours = FORM.build(pairs, K, C=C, beta=beta)
        p_ranker = get_formulation("lp_ranker").build(pairs, K, C=C / pairs.n_pairs)  # the same loss scale
        f_ours = p_ours.block(solved(p_ours).x, "scores")
        f_ranker = p_ranker.block(solved(p_ranker).x, "scores")
        assert np.ptp(f_ours) > 1e-3  # a real ranking, not the constant (all ties) solution
        ours.append(empirical_pauc(f_ours, y, beta))
        ranker.append(empirical_pauc(f_ranker, y, beta))
    ours, ranker = np.array(ours), np.array(ranker)
    assert ours.mean() >= ranker.mean() + 0.02
    assert np.sum(ours >= ranker) >= 5


def test_empirical_pauc_oracle():
    y = np.array([1, 1, 0, 0, 0, 0])
    f = np.array([3.0, 1.0, 2.0, 0.0, -1.0, 1.0])
    assert empirical_pauc(f, y, 0.25) == pytest.approx(0.5)  # top negative 2.0: above it 3.0, below it 1.0
    assert empirical_pauc(f, y, 0.5) == pytest.approx((1 + 0 + 1 + 0.5) / 4)
    assert empirical_pauc(f, y, 1.0) == pytest.approx((4 + 2.5) / 8)


# ----------------------------------------------------------------------------- refusals


@pytest.mark.parametrize("beta", [0.0, -0.1, 1.5])
def test_refuses_beta_outside_unit_interval(beta):
    y, K = noisy_data(8, n=9)
    with pytest.raises(ValueError, match=rf"'beta' parameter of the formulation 'partial_auc' must be a float in the "
                                         rf"range \(0.0, 1.0\]. Got {beta!r} instead."):
        FORM.build(PairSet.bipartite(y), K, beta=beta)


def test_refuses_survival_and_weighted_pairs():
    y, K = noisy_data(9, n=12)
    with pytest.raises(ValueError, match=r"partial_auc needs bipartite pairs.*survival"):
        FORM.build(PairSet.survival(y.astype(bool), np.arange(12.0)), K)
    with pytest.raises(ValueError, match="partial_auc takes unweighted pairs"):
        FORM.build(PairSet.bipartite(y, point_weights=np.linspace(1, 2, 12)), K)
