"""Tests of aucopt.svm._newton.newton_solve (truncated Newton in score space; Chapelle & Keerthi 2010).

Oracle: scipy's L-BFGS-B with tight tolerances on the brute-force objective

    F(θ) = (1/N) Σ_(i,j) w_ij ℓ((Mθ)_i − (Mθ)_j) + (α/2) ‖θ‖²,    N = Σ w_ij,

whose pairs are enumerated here from their definitions (all positive × negative pairs;
Harrell's comparable pairs with ties; arbitrary weighted pairs) and whose loss ℓ and ℓ' are
written out here (tests/reference.py), independently of :mod:`aucopt.pairs.core`. Problems are tiny
(m = 40–60, p = 8) so that L-BFGS converges fully and the whole file runs in a few seconds.
The sorted-pair core itself is tested in ``test_paircore.py``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from reference import reference_loss
from scipy.optimize import minimize
from threadpoolctl import threadpool_limits

from aucopt import PairSet
from aucopt.svm._newton import newton_solve

LOSSES = [("squared_hinge", 0.5), ("smoothed_hinge", 0.5), ("smoothed_hinge", 0.1), ("smoothed_hinge", 1.0)]
KINDS = ("bipartite", "bipartite_weighted", "survival_ties", "explicit_weighted")


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    """The problems are tiny: BLAS threads only add contention (40x slower on a busy 2-core box)."""
    with threadpool_limits(1):
        yield


# ============================================================================ oracles
def brute_objective(M, i, j, w, alpha, loss, eps):
    """(F, ∇F) of the explicit-pair objective; M dense or sparse."""
    value, derivative = reference_loss(loss, eps)
    N, m = float(w.sum()), M.shape[0]

    def fg(theta):
        f = np.asarray(M @ theta).ravel()
        z = f[i] - f[j]
        d = w * derivative(z)
        c = np.bincount(i, weights=d, minlength=m) - np.bincount(j, weights=d, minlength=m)
        F = float(w @ value(z)) / N + 0.5 * alpha * float(theta @ theta)
        return F, np.asarray(M.T @ c).ravel() / N + alpha * theta

    return fg


def lbfgs_optimum(fg, p):
    res = minimize(fg, np.zeros(p), jac=True, method="L-BFGS-B",
                   options={"maxiter": 20000, "maxfun": 40000, "ftol": 1e-16, "gtol": 1e-13, "maxcor": 10})
    return res.x, float(res.fun)


def make_problem(kind, sparse=False, seed=0):
    """(M, PairSet, explicit i, j, w) with pairs enumerated from their definition."""
    rng = np.random.default_rng(seed)
    m, p = {"bipartite": 60, "bipartite_weighted": 60, "survival_ties": 50, "explicit_weighted": 40}[kind], 8
    if sparse:
        M = sp.random(m, p, density=0.35, format="csr", random_state=seed, data_rvs=rng.standard_normal)
        dense = M.toarray()
    else:
        M = dense = rng.standard_normal((m, p))
    signal = dense @ rng.standard_normal(p)
    if kind.startswith("bipartite"):
        y = (signal + rng.standard_normal(m) > 0.3).astype(int)
        y[:2] = [0, 1]  # both classes present
        pw = None
        if kind == "bipartite_weighted":
            pw = rng.uniform(0.2, 3.0, m)
            pw[3] = 0.0
        pairs = PairSet.bipartite(y, point_weights=pw)
        i, j = np.nonzero((y[:, None] == 1) & (y[None, :] == 0))
        w = np.ones(len(i)) if pw is None else pw[i] * pw[j]
    elif kind == "survival_ties":
        time = rng.integers(0, 8, m).astype(float)  # heavy ties
        event = rng.random(m) < 0.6
        pairs = PairSet.survival(event, time)
        comparable = event[:, None] & (
            (time[:, None] < time[None, :]) | ((time[:, None] == time[None, :]) & ~event[None, :])
        )
        i, j = np.nonzero(comparable)
        w = np.ones(len(i))
        tied = (time[i] == time[j])
        assert tied.any()  # event-vs-censored ties are in the problem
    else:
        n_pairs = 300
        i = rng.integers(0, m, n_pairs)
        j = rng.integers(0, m, n_pairs)
        keep = i != j
        i, j = i[keep], j[keep]
        w = rng.uniform(0.0, 2.0, len(i))
        w[:5] = 0.0
        pairs = PairSet.from_arrays(i, j, w, n_points=m)
    return M, pairs, i.astype(np.int64), j.astype(np.int64), np.asarray(w, float)


# ============================================================================ optimum
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("loss,eps", LOSSES, ids=[f"{name}-{e}" for name, e in LOSSES])
def test_newton_reaches_lbfgs_optimum(loss, eps, kind, sparse):
    alpha = 1e-2
    M, pairs, i, j, w = make_problem(kind, sparse, seed=3)
    assert pairs.total_weight() == pytest.approx(w.sum(), rel=1e-12)
    fg = brute_objective(M, i, j, w, alpha, loss, eps)
    result = newton_solve(M, pairs, alpha, loss=loss, epsilon=eps)
    theta_ref, F_ref = lbfgs_optimum(fg, M.shape[1])

    assert result.converged, result.message
    F_newton, _ = fg(result.theta)
    assert result.objective == pytest.approx(F_newton, rel=1e-11, abs=1e-14)  # reports the true F
    assert abs(F_newton - F_ref) <= 1e-8
    scores = np.asarray(M @ result.theta).ravel()
    scores_ref = np.asarray(M @ theta_ref).ravel()
    assert np.max(np.abs(scores - scores_ref)) <= 1e-3


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("loss,eps", [("squared_hinge", 0.5), ("smoothed_hinge", 0.1)])
def test_gradient_vanishes_at_tight_tolerance(loss, eps, kind):
    """A certificate independent of L-BFGS: for the α-strongly convex F,
    F(θ) − F* ≤ ‖∇F(θ)‖² / (2α), with ∇F from the brute-force pairs."""
    alpha = 1e-2
    M, pairs, i, j, w = make_problem(kind, seed=5)
    fg = brute_objective(M, i, j, w, alpha, loss, eps)
    _F0, g0 = fg(np.zeros(M.shape[1]))
    result = newton_solve(M, pairs, alpha, loss=loss, epsilon=eps, tol=1e-12)
    _, g = fg(result.theta)
    assert result.converged
    assert np.max(np.abs(g)) <= 1e-6 * max(1.0, np.max(np.abs(g0)))
    assert float(g @ g) / (2 * alpha) <= 1e-10


def test_alpha_sweep_matches_lbfgs():
    """Small and large α on the same problem (conditioning changes by 10^4)."""
    M, pairs, i, j, w = make_problem("bipartite", seed=7)
    for alpha in (1e-3, 1e-1, 10.0):
        fg = brute_objective(M, i, j, w, alpha, "smoothed_hinge", 0.5)
        result = newton_solve(M, pairs, alpha, loss="smoothed_hinge", epsilon=0.5)
        _, F_ref = lbfgs_optimum(fg, M.shape[1])
        assert abs(fg(result.theta)[0] - F_ref) <= 1e-8, alpha


def test_objective_at_zero_is_the_closed_form():
    """At θ = 0, F = 1 − ε (ε ≤ 0.5) or 1/(4ε) (ε ≥ 0.5); squared hinge: 1.
    One iteration from 0 must start from (and improve on) that value."""
    M, pairs, *_ = make_problem("bipartite", seed=1)
    for loss, eps, F0 in [("squared_hinge", 0.5, 1.0), ("smoothed_hinge", 0.1, 0.9),
                          ("smoothed_hinge", 0.5, 0.5), ("smoothed_hinge", 1.0, 0.25)]:
        result = newton_solve(M, pairs, 1e-2, loss=loss, epsilon=eps, max_iter=1)
        assert result.history[0]["objective"] < F0
        # the zero vector is already optimal for a huge α: zero iterations, F = F(0)
        M0 = np.zeros_like(M)
        at_zero = newton_solve(M0, pairs, 1e-2, loss=loss, epsilon=eps)
        assert at_zero.iterations == 0 and at_zero.converged
        assert at_zero.objective == pytest.approx(F0, rel=1e-14)
        assert np.all(at_zero.theta == 0)


# ============================================================================ warm start, history, callback
@pytest.mark.parametrize("kind", KINDS)
def test_warm_start_from_solution_takes_no_iteration(kind):
    M, pairs, *_ = make_problem(kind, seed=11)
    first = newton_solve(M, pairs, 1e-2, loss="smoothed_hinge", epsilon=0.5)
    assert first.converged and first.iterations > 0
    calls = []
    again = newton_solve(M, pairs, 1e-2, loss="smoothed_hinge", epsilon=0.5, theta0=first.theta,
                         callback=calls.append)
    assert again.converged
    assert again.iterations == 0 and again.history == [] and calls == []
    np.testing.assert_array_equal(again.theta, first.theta)
    assert again.objective == pytest.approx(first.objective, rel=1e-13)


def test_warm_start_is_not_mutated_and_reaches_same_optimum():
    M, pairs, _i, _j, _w = make_problem("survival_ties", seed=2)
    theta0 = np.random.default_rng(0).standard_normal(M.shape[1])
    keep = theta0.copy()
    warm = newton_solve(M, pairs, 1e-2, theta0=theta0)
    cold = newton_solve(M, pairs, 1e-2)
    np.testing.assert_array_equal(theta0, keep)
    assert abs(warm.objective - cold.objective) <= 1e-9


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("loss,eps", [("squared_hinge", 0.5), ("smoothed_hinge", 0.1)])
def test_history_and_callback_are_consistent(loss, eps, kind):
    M, pairs, i, j, w = make_problem(kind, seed=13)
    alpha = 1e-3
    fg = brute_objective(M, i, j, w, alpha, loss, eps)
    theta0 = 0.5 * np.random.default_rng(1).standard_normal(M.shape[1])
    F0, g0 = fg(theta0)
    calls = []
    result = newton_solve(M, pairs, alpha, loss=loss, epsilon=eps, theta0=theta0, callback=calls.append)

    history = result.history
    assert result.iterations == len(history) >= 1
    assert calls == history and all(a is b for a, b in zip(calls, history, strict=False))  # once per iteration
    assert [r["iteration"] for r in history] == list(range(1, len(history) + 1))
    objectives = [F0] + [r["objective"] for r in history]
    assert all(b <= a + 1e-15 * abs(a) for a, b in itertools.pairwise(objectives))  # non-increasing
    assert objectives[1] < F0
    assert history[-1]["objective"] == result.objective
    assert history[0]["grad_inf"] == pytest.approx(np.max(np.abs(g0)), rel=1e-10)
    for r in history:
        assert r["decrement"] > 0 and r["step"] > 0 and r["cg_iterations"] >= 1
        assert fg(theta0)[0] >= r["objective"]
    assert sum(r["cg_iterations"] for r in history) <= result.cg_iterations
    assert all(b["seconds"] >= a["seconds"] for a, b in itertools.pairwise(history))


def test_max_iter_stops_unconverged():
    M, pairs, *_ = make_problem("bipartite", seed=17)
    calls = []
    result = newton_solve(M, pairs, 1e-4, loss="smoothed_hinge", epsilon=0.1, max_iter=1, callback=calls.append)
    assert not result.converged
    assert result.iterations == 1 == len(result.history) == len(calls)
    assert "max_iter=1" in result.message
    full = newton_solve(M, pairs, 1e-4, loss="smoothed_hinge", epsilon=0.1)
    assert full.converged and full.iterations > 1
    assert full.objective < result.objective


@pytest.mark.parametrize("kind", KINDS)
def test_gap_tol_certifies_the_objective(kind):
    """gap_tol stops on the squared hinge's relative duality gap ‖∇F‖² / (2αF): checked with the
    brute-force gradient, and F(θ) − F* ≤ gap_tol · F against L-BFGS's optimum."""
    alpha = 1e-2
    M, pairs, i, j, w = make_problem(kind, seed=7)
    fg = brute_objective(M, i, j, w, alpha, "squared_hinge", 0.5)
    result = newton_solve(M, pairs, alpha, gap_tol=1e-10)
    assert result.converged and "duality gap" in result.message
    F, g = fg(result.theta)
    assert float(g @ g) / (2 * alpha * F) <= 1e-10 * (1 + 1e-6)
    _, F_ref = lbfgs_optimum(fg, M.shape[1])
    assert F - F_ref <= 1e-10 * F
    loose = newton_solve(M, pairs, alpha, gap_tol=1e-2)
    F_loose, g_loose = fg(loose.theta)
    assert loose.iterations < result.iterations and float(g_loose @ g_loose) / (2 * alpha * F_loose) <= 1e-2
    with pytest.raises(ValueError, match="gap_tol is the duality gap of loss='squared_hinge'"):
        newton_solve(M, pairs, alpha, loss="smoothed_hinge", gap_tol=1e-10)


def test_time_limit_stops_after_the_iteration_that_reached_it():
    M, pairs, *_ = make_problem("bipartite", seed=17)
    result = newton_solve(M, pairs, 1e-4, loss="smoothed_hinge", epsilon=0.1, time_limit=1e-9)
    assert not result.converged and result.iterations == 1 and "time_limit=1e-09" in result.message


def test_dense_and_sparse_give_the_same_solution():
    M, pairs, *_ = make_problem("survival_ties", sparse=True, seed=19)
    a = newton_solve(M, pairs, 1e-2)
    b = newton_solve(M.toarray(), pairs, 1e-2)
    c = newton_solve(M.tocsc(), pairs, 1e-2)
    assert a.objective == pytest.approx(b.objective, rel=1e-12)
    assert c.objective == pytest.approx(b.objective, rel=1e-12)
    np.testing.assert_allclose(a.theta, b.theta, rtol=0, atol=1e-7)


# ============================================================================ input validation
@pytest.fixture
def tiny():
    M, pairs, *_ = make_problem("bipartite", seed=23)
    return M, pairs


@pytest.mark.parametrize("alpha", [0, 0.0, -1.0, np.nan, np.inf, None, [1.0], "1"])
def test_bad_alpha(tiny, alpha):
    M, pairs = tiny
    with pytest.raises(ValueError,
                       match=r"'alpha' parameter of newton_solve must be a float in the range \(0.0, inf\)"):
        newton_solve(M, pairs, alpha)


@pytest.mark.parametrize("epsilon", [0, -0.1, 1.5, np.nan])
def test_bad_epsilon(tiny, epsilon):
    M, pairs = tiny
    with pytest.raises(ValueError,
                       match=r"'epsilon' parameter of newton_solve must be a float in the range \(0.0, 1.0\]"):
        newton_solve(M, pairs, 1e-2, loss="smoothed_hinge", epsilon=epsilon)


@pytest.mark.parametrize("loss", ["hinge", "logistic", "Squared_Hinge", None])
def test_unknown_or_non_smooth_loss(tiny, loss):
    M, pairs = tiny
    with pytest.raises(ValueError, match=r"'loss' parameter of newton_solve must be a str among "
                                         r"\{'(squared|smoothed)_hinge', '(squared|smoothed)_hinge'\}"):
        newton_solve(M, pairs, 1e-2, loss=loss)


@pytest.mark.parametrize("params", [{"tol": 0}, {"max_iter": 0}, {"max_cg_iter": 0}, {"cg_rtol": 1.0},
                                    {"verbose": "yes"}, {"callback": 3},
                                    {"gap_tol": 0}, {"time_limit": "soon"}])
def test_bad_solver_options(tiny, params):
    M, pairs = tiny
    name = next(iter(params))
    with pytest.raises(ValueError, match=f"'{name}' parameter of newton_solve must be"):
        newton_solve(M, pairs, 1e-2, **params)


def test_bad_theta0_and_empty_pairs(tiny):
    M, pairs = tiny
    with pytest.raises(ValueError, match=r"theta0 must have shape \(8,\)"):
        newton_solve(M, pairs, 1e-2, theta0=np.zeros(7))
    no_events = PairSet.survival(np.zeros(M.shape[0], bool), np.arange(M.shape[0], dtype=float))
    with pytest.raises(ValueError, match="no comparable pairs"):
        newton_solve(M, no_events, 1e-2)
    zero_weight = PairSet.from_arrays([0, 1], [2, 3], [0.0, 0.0], n_points=M.shape[0])
    with pytest.raises(ValueError, match="All pair weights are zero"):
        newton_solve(M, zero_weight, 1e-2)


# ============================================================================ the fast paths (issue 28)
def _problem(kind, m=400, p=6, seed=0):
    """A random problem with ties: bipartite (optionally weighted) or survival with tied times,
    censoring and sample weights; X has tied rows so that scores tie too."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, p))
    X[rng.random(m) < 0.2] = X[0]  # tied rows: tied scores at every θ
    w = rng.integers(0, 4, m) / 2.0 if kind.endswith("weighted") else None
    if kind.startswith("bipartite"):
        return X, PairSet.bipartite(rng.random(m) < 0.3, point_weights=w)
    time = np.round(rng.exponential(size=m), 1)  # many tied times
    return X, PairSet.survival(rng.random(m) < 0.6, time, point_weights=w)


@pytest.mark.parametrize("kind", ["bipartite", "bipartite_weighted", "survival", "survival_weighted"])
@pytest.mark.parametrize(("loss", "eps"), [("squared_hinge", 0.5), ("smoothed_hinge", 0.25)])
def test_sorted_core_newton_equals_the_listed_pairs(kind, loss, eps):
    """The blocked sorted-pair core (sort, ranks, coarse/fine sweeps) gives the fit of the same pairs
    listed explicitly (the vectorized enumeration, an independent path) to 1e-8 relative."""
    X, pairs = _problem(kind)
    listed = PairSet.from_arrays(*pairs.to_arrays(), n_points=pairs.n_points)
    fast = newton_solve(X, pairs, 1e-3, loss=loss, epsilon=eps, tol=1e-10)
    slow = newton_solve(X, listed, 1e-3, loss=loss, epsilon=eps, tol=1e-10)
    assert fast.converged and slow.converged
    np.testing.assert_allclose(fast.objective, slow.objective, rtol=1e-8)
    np.testing.assert_allclose(fast.theta, slow.theta, rtol=1e-6, atol=1e-8 * np.abs(slow.theta).max())


@pytest.mark.parametrize("kind", ["bipartite_weighted", "survival_weighted"])
def test_float32_design_is_multiplied_in_float64(kind):
    """A float32 M is used as it is, block by block in float64: the fit equals that of its float64 copy."""
    X, pairs = _problem(kind, m=3000)
    X32 = X.astype(np.float32)
    a = newton_solve(X32, pairs, 1e-3, tol=1e-10)
    b = newton_solve(X32.astype(np.float64), pairs, 1e-3, tol=1e-10)
    np.testing.assert_allclose(a.objective, b.objective, rtol=1e-12)
    np.testing.assert_allclose(a.theta, b.theta, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_compiled_products_on_two_threads_equal_numpy(dtype, monkeypatch):
    """From THREADED_FROM rows on, Mᵀc (and M d for a float32 M) are two compiled halves on two threads:
    equal to numpy's products in float64 to rounding, and the fit equals the one-thread fit to 1e-10."""
    from aucopt import _threads
    from aucopt.svm import _newton

    X, pairs = _problem("survival_weighted", m=3000)
    X = X.astype(dtype)
    rng = np.random.default_rng(2)
    c, d = rng.standard_normal(len(X)), rng.standard_normal(X.shape[1])
    one = newton_solve(X, pairs, 1e-3, tol=1e-10)
    monkeypatch.setattr(_threads, "THREADED_FROM", 100)
    monkeypatch.setattr(_threads, "two_threads", lambda: True)
    assert _newton._compiled_rows(X) and not _newton._compiled_rows(np.asfortranarray(X))
    X64 = X.astype(np.float64)
    np.testing.assert_allclose(_newton._rmatvec(X, c), X64.T @ c, rtol=1e-12, atol=1e-12 * np.abs(X64).sum())
    np.testing.assert_allclose(_newton._matvec(X, d), X64 @ d, rtol=1e-12, atol=1e-13 * np.abs(X64).max())
    two = newton_solve(X, pairs, 1e-3, tol=1e-10)
    np.testing.assert_allclose(two.objective, one.objective, rtol=1e-10)
    np.testing.assert_allclose(two.theta, one.theta, rtol=1e-7, atol=1e-10 * np.abs(one.theta).max())


def test_conjugate_gradient_accumulates_the_step_in_score_space():
    """CG returns M s with s, accumulated from the products of its steps (no extra pass over M)."""
    from aucopt.pairs.core import pair_loss_and_hessian
    from aucopt.svm._newton import _conjugate_gradient, _HessianProduct

    X, pairs = _problem("survival_weighted")
    f = X @ np.linspace(-1, 1, X.shape[1])
    _, c, H = pair_loss_and_hessian(pairs, f)
    N = pairs.total_weight()
    for maxiter in (1, 3, 25):
        s, Ms, k = _conjugate_gradient(_HessianProduct(X, H, N, 1e-3), -(X.T @ c) / N, maxiter, 1e-6)
        assert 1 <= k <= maxiter
        np.testing.assert_allclose(Ms, X @ s, rtol=1e-10, atol=1e-12 * np.abs(X @ s).max())
