"""The top-push LP (formulations/top_push.py) against independent oracles.

Oracles: a cvxpy model of the same mathematics written with cvxpy's own atoms (max over the
negatives, hinge per positive), the objective re-evaluated from the solution in numpy, an
all-pairs LP with one slack per positive built independently on the pair list, three backends,
and brute-force pair comparisons for the top-push property.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

from aucopt import PairSet, get_formulation, kernel_matrix, solve

FORM = get_formulation("top_push")


def noisy_data(seed, n=30, d=3, gamma=0.5):
    """Overlapping classes (so that the hinge is active), 1/3 positives."""
    rng = np.random.default_rng(seed)
    y = np.r_[np.ones(n // 3, int), np.zeros(n - n // 3, int)]
    X = rng.normal(size=(n, d)) + 0.7 * y[:, None]
    return y, kernel_matrix(X, gamma=gamma)


def top_push_objective(alpha, K, y, C):
    """Σα + C Σ_i∈pos (1 − f_i + max_j∈neg f_j)_+ with f = K Y α, evaluated in numpy."""
    f = K @ (np.where(y == 1, 1.0, -1.0) * alpha)
    return alpha.sum() + C * np.maximum(0.0, 1.0 - f[y == 1] + f[y == 0].max()).sum()


def cvxpy_top_push(K, y, C):
    """The same LP as an independent cvxpy model, solved by Clarabel to tight tolerances."""
    alpha = cp.Variable(K.shape[1], nonneg=True)
    f = K @ cp.multiply(np.where(y == 1, 1.0, -1.0), alpha)
    loss = cp.sum(cp.pos(1 - f[np.flatnonzero(y == 1)] + cp.max(f[np.flatnonzero(y == 0)])))
    problem = cp.Problem(cp.Minimize(cp.sum(alpha) + C * loss))
    problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    return problem.value


def solved(problem, solver="highs", **kw):
    result = solve(problem, solver, **kw)
    result.raise_for_status()
    return result


# ----------------------------------------------------------------------------- optimum


@pytest.mark.parametrize("seed, C", [(0, 1.0), (1, 5.0), (2, 0.3)])
def test_matches_independent_cvxpy_model(seed, C):
    y, K = noisy_data(seed)
    problem = FORM.build(PairSet.bipartite(y), K, C=C)
    result = solved(problem)
    reference = cvxpy_top_push(K, y, C)
    assert result.objective == pytest.approx(reference, rel=1e-7)
    alpha = problem.block(result.x, "alpha")
    assert top_push_objective(alpha, K, y, C) == pytest.approx(reference, rel=1e-7)
    assert C * problem.block(result.x, "xi").sum() > 1.0  # the hinge is active: a real test of the loss


def test_equals_all_pairs_lp_with_one_slack_per_positive():
    """Top push = the pair LP f_i − f_j ≥ 1 − ξ_i over every pair, one slack per positive."""

    def pairs_with_positive_slack(m, C=1.0):  # a plain function: nothing is registered
        alpha = m.variable("alpha", m.n_basis, lower=0)
        xi = m.variable("xi", m.n_points, lower=0)  # only positives' slacks are used
        f = m.scores(alpha)
        i, _ = m.pair_index
        m.minimize(alpha.sum() + C * xi.sum())
        m.subject_to(m.pair_difference(f) + xi[i] >= 1)

    y, K = noisy_data(3)
    pairs = PairSet.bipartite(y)
    ours = solved(FORM.build(pairs, K, C=2.0)).objective
    reference = solved(get_formulation(pairs_with_positive_slack).build(pairs, K, C=2.0)).objective
    assert ours == pytest.approx(reference, rel=1e-8)


@pytest.mark.parametrize("solver, tol", [("clarabel", 1e-9), ("scs", 1e-9), ("ecos", None)])
def test_backends_agree(solver, tol):
    y, K = noisy_data(4, n=24)
    problem = FORM.build(PairSet.bipartite(y), K, C=2.0)
    reference = solved(problem, "highs").objective
    result = solve(problem, solver, tol=tol)
    assert result.x is not None
    assert result.objective == pytest.approx(reference, rel=1e-6)


def test_lifted_and_dense_forms_agree_and_sizes_are_declared():
    y, K = noisy_data(5, n=21)
    pairs = PairSet.bipartite(y)
    lifted, dense = FORM.build(pairs, K, C=1.5), FORM.build(pairs, K, C=1.5, lifted=False)
    assert solved(lifted).objective == pytest.approx(solved(dense).objective, rel=1e-8)
    n, n_pos = len(y), int(y.sum())
    assert lifted.n_rows == 2 * n and dense.n_rows == n  # score rows + one row per point
    assert lifted.A.nnz == n * (n + 1) + 3 * n_pos + 2 * (n - n_pos)
    for problem, is_lifted in ((lifted, True), (dense, False)):
        assert problem.A.nnz <= FORM.nnz(n_points=n, n_pairs=pairs.n_pairs, n_basis=n, lifted=is_lifted)


# ----------------------------------------------------------------------------- the top-push property


def test_separable_set_puts_every_positive_above_every_negative():
    rng = np.random.default_rng(6)
    X = np.r_[rng.uniform(1.0, 2.0, size=(8, 2)), rng.uniform(-2.0, -1.0, size=(16, 2))]
    y = np.r_[np.ones(8, int), np.zeros(16, int)]
    K = kernel_matrix(X, gamma=0.5)
    problem = FORM.build(PairSet.bipartite(y), K, C=10.0)
    result = solved(problem)
    f = problem.block(result.x, "scores")
    np.testing.assert_allclose(problem.block(result.x, "xi"), 0.0, atol=1e-9)
    # every pair (i, j), by brute force: a margin of 1 over every negative
    assert all(f[i] - f[j] >= 1 - 1e-7 for i in np.flatnonzero(y == 1) for j in np.flatnonzero(y == 0))
    assert problem.block(result.x, "t")[0] == pytest.approx(f[y == 0].max(), abs=1e-7)


def test_wdbc_builds_and_solves_without_listing_pairs(monkeypatch):
    datasets = pytest.importorskip("sklearn.datasets")
    X, y = datasets.load_breast_cancer(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    K = kernel_matrix(X, gamma=1.0 / X.shape[1])
    pairs = PairSet.bipartite(y)
    assert pairs.n_pairs == 212 * 357

    def refuse(self, *args, **kwargs):
        raise AssertionError("top_push listed the pairs")

    monkeypatch.setattr(PairSet, "to_arrays", refuse)
    monkeypatch.setattr(PairSet, "pairs_at", refuse)
    problem = FORM.build(pairs, K, C=1.0)
    assert problem.n_rows == 2 * 569
    result = solved(problem)
    alpha = problem.block(result.x, "alpha")
    assert top_push_objective(alpha, K, y, 1.0) == pytest.approx(result.objective, rel=1e-7)
    f = problem.block(result.x, "scores")
    above = f[y == 1] > f[y == 0].max()
    assert above.mean() > 0.9  # most positives above the top-scored negative
    xi = problem.block(result.x, "xi")
    np.testing.assert_allclose(xi[above & (f[y == 1] - f[y == 0].max() >= 1)], 0.0, atol=1e-7)


# ----------------------------------------------------------------------------- refusals


def test_refuses_survival_and_weighted_pairs():
    y, K = noisy_data(7, n=12)
    with pytest.raises(ValueError, match=r"top_push needs bipartite pairs.*survival"):
        FORM.build(PairSet.survival(y.astype(bool), np.arange(12.0)), K)
    with pytest.raises(ValueError, match="top_push takes unweighted pairs"):
        FORM.build(PairSet.bipartite(y, point_weights=np.linspace(1, 2, 12)), K)
    with pytest.raises(ValueError, match="kernel"):
        FORM.build(PairSet.bipartite(y), None)
