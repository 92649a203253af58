"""The memory model: estimates follow their formulas, guards refuse before any large allocation,
and a refusal names a path that the same budget accepts.

The estimates themselves are compared with measured peak memory by
``benchmarks/memory_estimates.py`` (a benchmark, not a unit test).
"""

from __future__ import annotations

import inspect
import itertools
import re

import numpy as np
import pytest

import aucopt
import aucopt.kernels
import aucopt.svm._aucsvm
from aucopt import AUCSVM, LPRanker, PairSet, RankRC, SurvivalAUCSVM, _memory
from aucopt.exceptions import ProblemTooLargeError


def _data(n, positive_share=0.5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = (rng.random(n) < positive_share).astype(int)
    y[:2] = [0, 1]
    return X, y


@pytest.fixture
def no_kernel(monkeypatch):
    """Kernel evaluation fails the test: a guard must refuse before it."""
    def refuse_kernel(self, X, Y=None):
        raise AssertionError("a kernel was evaluated before the memory guard refused the problem")
    monkeypatch.setattr(aucopt.kernels.Kernel, "__call__", refuse_kernel)


def _suggested(message: str):
    """The estimator the refusal suggests, constructed from its message."""
    match = re.search(r"use (\w+\([^)]*\))", message)
    assert match, f"the refusal names no estimator to use: {message}"
    return eval(match.group(1), vars(aucopt))


# ============================================================================ formulas
def test_lp_ranker_size_by_hand():
    # lifted: m(r+1) + 3P nonzeros, m + P rows, r + m + P columns
    assert _memory.lp_ranker_size(10, 25, 10) == (10 * 11 + 75, 35, 45)
    # dense pair rows: P(r+1) nonzeros, P rows, r + P columns
    assert _memory.lp_ranker_size(10, 25, 10, lifted=False) == (25 * 11, 25, 35)


def test_problem_bytes_is_the_larger_of_build_and_solve():
    nnz, rows, cols = 1e6, 1e5, 2e5
    b_nnz, b_rc = _memory.BUILD_BYTES["lp"]
    s_nnz, s_rc = _memory.SOLVER_BYTES["highs"]
    p_nnz, p_rc = _memory.PROBLEM_BYTES
    expected = max(b_nnz * nnz + b_rc * 3e5, (p_nnz + s_nnz) * nnz + (p_rc + s_rc) * 3e5)
    assert _memory.problem_bytes(nnz, rows, cols) == pytest.approx(expected)


def test_kernel_paths_count_their_temporaries():
    n, r = 2000, 600
    assert _memory.kernel_factor_bytes(n) == pytest.approx(_memory.KERNEL_FACTOR_COPIES * 8 * n * n)
    assert _memory.kernel_factor_bytes(n) > 8 * n * n  # more than the bare n x n matrix
    # RankRC: the larger of the basis eigendecomposition beside the m x r block and the design
    # (block, M and two r x r arrays)
    eigh = _memory.KERNEL_EVAL_COPIES * n * r + _memory.RANKRC_EIGH_COPIES * r * r
    design = 2 * n * r + 2 * r * r
    assert _memory.rankrc_bytes(n, r) == pytest.approx(
        8 * max(eigh, design))
    budget = _memory.rankrc_bytes(n, r)
    assert _memory.rankrc_max_basis(n, budget) == r
    assert _memory.rankrc_max_basis(n, budget - 1) == r - 1


@pytest.mark.parametrize("estimate", [
    lambda n: _memory.lp_bytes(n, n * n // 4),
    lambda n: _memory.lp_bytes(n, n * n // 4, lifted=False),
    lambda n: _memory.dual_qp_bytes(n, n * n // 4, 10),
    lambda n: _memory.aucsvm_kernel_bytes(n, n * n // 4),
    lambda n: _memory.rankrc_bytes(n, n // 3),
    lambda n: _memory.chunking_bytes(n, n * n // 4),
    lambda n: _memory.clustering_bytes(n),
])
def test_estimates_grow_with_the_problem(estimate):
    sizes = [100, 400, 1600, 6400]
    values = [estimate(n) for n in sizes]
    assert all(a < b for a, b in itertools.pairwise(values))


def test_lifted_lp_is_estimated_smaller_than_dense_rows():
    assert _memory.lp_bytes(600, 90_000, lifted=True) < _memory.lp_bytes(600, 90_000, lifted=False)


# ============================================================================ guards refuse up front
def test_full_lp_is_refused_before_the_kernel_and_the_suggestion_runs(no_kernel, monkeypatch):
    X, y = _data(150)  # the suggestion (smoothing, the kernel stored) is the one 300 points get
    P = PairSet.bipartite(y).n_pairs
    budget = _memory.lp_bytes(150, P) / 3
    with pytest.raises(ProblemTooLargeError) as caught:
        LPRanker(method="full", max_bytes=budget).fit(X, y)
    assert caught.value.nbytes > budget
    suggestion = _suggested(str(caught.value))
    monkeypatch.undo()  # the suggested path may evaluate kernels
    suggestion.set_params(max_bytes=budget).fit(X, y)  # accepted by its own guard, and it runs


def test_linear_aucsvm_dual_is_refused_before_it_is_built(monkeypatch):
    """The linear dual QP over all pairs is counted (it once passed the guard and then ran out of memory).

    250 points: as with 400, the pair differences of the liblinear route do not fit half the QP's
    estimate either, so the suggestion is the k-means route (below 220 points it is liblinear), whose
    clustering of the pair differences costs 0.6 s here against 7 s for 400 points."""
    X, y = _data(250)
    P = PairSet.bipartite(y).n_pairs
    need = _memory.dual_qp_bytes(250, P, X.shape[1], solver="osqp")
    assert need > 16 * P  # more than the pair list the old guard counted

    def no_build(*args, **kwargs):
        raise AssertionError("the dual QP was built before the memory guard refused it")
    monkeypatch.setattr(aucopt.svm._aucsvm, "get_formulation", no_build)
    with pytest.raises(ProblemTooLargeError) as caught:
        AUCSVM(kernel="linear", method="full", max_bytes=need / 2).fit(X, y)
    monkeypatch.undo()
    suggestion = _suggested(str(caught.value))
    assert not (type(suggestion) is AUCSVM and suggestion.method == "full")  # not the refused route
    suggestion.set_params(max_bytes=need / 2).fit(X, y)


def test_rbf_aucsvm_counts_the_kernel_factor_not_only_the_matrix(no_kernel):
    X, y = _data(500)
    P = PairSet.bipartite(y).n_pairs
    need = _memory.aucsvm_kernel_bytes(500, P, solver="osqp")
    budget = max(8.0 * 500 * 500 * 2, need / 2)  # above the bare kernel matrix, below the estimate
    assert 8.0 * 500 * 500 < budget < need
    with pytest.raises(ProblemTooLargeError, match="kernel factor"):
        AUCSVM(method="full", max_bytes=budget).fit(X, y)


def test_rankrc_counts_its_basis_block_and_eigendecomposition(no_kernel, monkeypatch):
    X, y = _data(600, positive_share=0.4)
    r = int(min(y.sum(), (1 - y).sum()))
    need = _memory.rankrc_bytes(600, r)
    budget = need * 0.8
    assert 8.0 * 600 * r < budget  # the bare m x r block would have fitted
    with pytest.raises(ProblemTooLargeError) as caught:
        RankRC(max_bytes=budget).fit(X, y)
    monkeypatch.undo()
    suggestion = _suggested(str(caught.value))
    suggestion.set_params(max_bytes=budget).fit(X, y)


@pytest.mark.parametrize("method", ["chunking", "clustering", "subgradient"])
def test_scalable_lp_routes_are_refused_before_the_kernel(no_kernel, method):
    X, y = _data(300)
    with pytest.raises(ProblemTooLargeError):
        LPRanker(method=method, max_bytes=1e5).fit(X, y)


# ============================================================================ estimates bound the fit
def _traced_peak_of_fit(estimator, X, y, *, warm_rows=None, refit=None):
    """The tracemalloc peak of ``estimator.fit(X, y)`` (bytes), after a warm-up fit of the same route
    on a few rows (numba's kernels and the libraries loaded: not what an estimate counts): 10 of each
    class, or ``warm_rows``. With ``refit`` (parameters), the estimator is fitted first and the peak
    is that of the refit with those parameters (a warm start; the warm-up then refits as well)."""
    import tracemalloc
    import warnings

    from sklearn.base import clone

    rows = np.r_[np.flatnonzero(y == 1)[:10], np.flatnonzero(y == 0)[:10]] if warm_rows is None else warm_rows
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the capped epochs warn; memory is what is measured
        warm_up = clone(estimator).fit(X[rows], y[rows])
        if refit is not None:
            warm_up.set_params(**refit).fit(X[rows], y[rows])
            estimator.fit(X, y)
            estimator.set_params(**refit)
        tracemalloc.start()
        try:
            estimator.fit(X, y)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()


@pytest.mark.parametrize("storage, kernel, n, d, share, warm", [
    ("sorted", "linear", 1000, 50, 0.2, False), ("sorted", "linear", 900, 50, 0.5, False),
    ("sorted", "rbf", 900, 10, 0.5, False), ("sorted", "linear", 900, 10, 0.5, True),
    ("explicit", "linear", 900, 50, 0.5, False), ("explicit", "rbf", 900, 10, 0.5, False),
])
def test_dcd_estimate_bounds_the_memory_the_fit_adds(storage, kernel, n, d, share, warm):
    """The dual coordinate descent estimate is at least the fit's traced peak and at most 1.5 times it,
    on either route: sorted pair sets (bipartite pairs) are never listed (α, the active index, then α
    and the support pairs beside the data), explicit ones (time-weighted survival pairs) are solved
    over their list and the objective is evaluated over it; then the training scores. It once counted
    the pair list and the data only and admitted fits above it, then the list for every pair set."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d))
    options = dict(C=1e-3, kernel=kernel, method="dcd", max_iter=10, warm_start=warm)
    if storage == "sorted":
        y = (np.arange(n) < share * n).astype(int)
        pairs = PairSet.bipartite(y)
        estimator, rows = AUCSVM(**options), None
    else:
        y = aucopt.survival_target(rng.random(n) < share, rng.exponential(size=n))
        pairs = PairSet.survival(y, time_weight="linear")
        estimator, rows = SurvivalAUCSVM(pair_options={"time_weight": "linear"}, **options), np.arange(20)
    assert pairs.storage == storage
    estimate = _memory.aucsvm_dcd_bytes(n, pairs.n_pairs, d, kernel, storage=storage, warm_start=warm)
    estimator.set_params(max_bytes=estimate)
    peak = _traced_peak_of_fit(estimator, X, y, warm_rows=rows, refit={"C": 2e-3} if warm else None)
    assert peak <= estimate <= 1.5 * peak, (peak, estimate)  # the guard admitted it
    with pytest.raises(ProblemTooLargeError, match="Dual coordinate descent"):
        estimator.set_params(max_bytes=peak * 0.99).fit(X, y)  # a budget below the fit's peak is refused


def test_dcd_estimate_follows_the_route():
    """Sorted pairs need α and the support pairs (24 bytes a pair), listed ones their list and the
    objective over it besides; a warm start adds its starting point; a linear fit no n x n block."""
    n, P, d = 20_000, 10**8, 10
    sorted_, listed = (_memory.aucsvm_dcd_bytes(n, P, d, "linear", storage=s) for s in ("sorted", "explicit"))
    assert sorted_ == pytest.approx(24 * P + 8 * n * d + _memory.fit_bytes(n))
    assert listed - sorted_ == pytest.approx((16 + 57) * P)
    warm = _memory.aucsvm_dcd_bytes(n, P, d, "linear", warm_start=True)
    assert warm - sorted_ == pytest.approx(8 * P)
    assert _memory.aucsvm_dcd_bytes(n, P, d, "linear", sparse=True) - sorted_ == pytest.approx(8 * n * d)
    rbf = _memory.aucsvm_dcd_bytes(n, P, d, "rbf")
    assert rbf == pytest.approx(24 * P + _memory.kernel_bytes(n) + 8 * n * d + _memory.fit_bytes(n))


@pytest.mark.parametrize("estimator", [
    AUCSVM(kernel="linear", method="dcd", C=0.1),
    AUCSVM(kernel="linear", method="full", C=0.1),
    LPRanker(kernel="linear", method="full"),
])
@pytest.mark.parametrize("sparse", [False, True])
def test_linear_expansion_equals_the_kernel_matrix_expansion(estimator, sparse, monkeypatch):
    """For the linear kernel the scores are X (Σ_l c_l x_l), without the n x n_support kernel block:
    the same values as the kernel matrix's expansion to rounding, dense or sparse X."""
    import scipy.sparse as sp

    X, y = _data(60)
    X[np.abs(X) < 0.5] = 0.0  # a sparse matrix with stored zeros left out
    X = sp.csr_matrix(X) if sparse else X
    model = estimator.fit(X, y)
    assert len(model.support_) > 1 and sp.issparse(model.support_vectors_) == sparse
    X_new = _data(60, seed=1)[0]
    X_new = sp.csr_matrix(X_new) if sparse else X_new
    shortcut = model._expansion(X_new)  # the scores, before a binary ranker's threshold
    reference = np.asarray(model.kernel_(X_new, model.support_vectors_) @ model.dual_coef_)
    assert type(shortcut) is np.ndarray and shortcut.dtype == np.float64 and shortcut.shape == (60,)
    assert np.max(np.abs(shortcut - reference)) <= 1e-10 * np.max(np.abs(reference))
    calls = []
    monkeypatch.setattr(aucopt.kernels.Kernel, "__call__", lambda self, *a: calls.append(a))
    model._expansion(X_new)
    assert not calls  # the kernel block is not formed


@pytest.mark.parametrize("route", ["subgradient", "rankrc", "ranksvm", "survival_ranksvm", "sparse_auc"])
def test_numpy_route_estimates_bound_the_memory_the_fit_adds(route):
    """Routes whose arrays are all numpy's: the estimate is at least the fit's traced peak and at
    most 1.5 times it (the routes with native solvers are measured by the benchmark)."""
    from aucopt import RankSVM, SparseAUC, SurvivalRankSVM, survival_target

    n = {"subgradient": 800, "rankrc": 1500, "ranksvm": 20_000, "survival_ranksvm": 20_000, "sparse_auc": 1000}[route]
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 10))
    y = (rng.random(n) < (0.3 if route == "rankrc" else 0.5)).astype(int)
    if route == "subgradient":
        estimator = LPRanker(gamma=0.1, method="subgradient", max_iter=100, max_bytes=None)
        estimate = _memory.subgradient_bytes(n)
    elif route == "rankrc":
        estimator = RankRC(max_bytes=None)
        estimate = _memory.rankrc_bytes(n, int(y.sum()))
    elif route == "ranksvm":
        estimator = RankSVM()
        estimate = _memory.ranksvm_bytes(n, X.shape[1])
    elif route == "survival_ranksvm":  # nested suffixes: the blocked sweeps' state
        estimator = SurvivalRankSVM()
        y = survival_target(y.astype(bool), rng.exponential(size=n))
        estimate = _memory.ranksvm_bytes(n, X.shape[1], survival=True)
    else:
        estimator = SparseAUC(max_iter=5, max_bytes=None)
    peak = _traced_peak_of_fit(estimator, X, y, warm_rows=np.arange(40) if route == "survival_ranksvm" else None)
    if route == "sparse_auc":  # at the largest basis retrained: validation stops the fit early
        rows = n - int(round(0.2 * n))
        retrained = max(r["n_basis"] for r in estimator.path_ if r["retrained"])
        estimate = _memory.sparse_auc_bytes(rows, min(rows // 2, 512), 100, n_retrained=retrained)
    assert peak <= estimate <= 1.5 * peak, (peak, estimate)


def test_kmeans_estimate_switches_where_the_route_switches():
    from aucopt.svm._pairwise_linear import kmeans_difference_centers

    default = inspect.signature(kmeans_difference_centers).parameters["minibatch_above"].default
    assert default == _memory.KMEANS_MINIBATCH_ABOVE
