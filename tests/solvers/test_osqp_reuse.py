"""OSQP warm starts update the set-up solver of the previous problem instead of a new setup.

Along a path of C the AUC-SVM dual keeps its sparsity pattern (only the box bounds α ≤ C w move,
and for the squared hinge the diagonal of P); a warm-started solve then reuses the kept
``osqp.OSQP`` (update + warm_start). Oracles: a fresh setup of the same problem (the
pre-cache backend, CACHE_SIZE = 0) and Clarabel; the number of ``setup`` calls, counted on
osqp's own class.
"""

from __future__ import annotations

import threading

import numpy as np
import osqp
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

import aucopt.solvers.osqp as backend
from aucopt import PairSet, Status, get_formulation, solve


@pytest.fixture(autouse=True)
def empty_cache():
    backend.clear_cache()
    yield
    backend.clear_cache()


@pytest.fixture
def setups(monkeypatch):
    """The number of ``osqp.OSQP.setup`` calls of the backend's solves (its option probes excepted)."""
    calls = []
    real = osqp.OSQP.setup

    def counting(self, P, q, A, *args, **kwargs):
        if A.shape[0] > 1:  # _rejected_message probes settings on a 1-row QP
            calls.append(A.shape)
        return real(self, P, q, A, *args, **kwargs)

    monkeypatch.setattr(osqp.OSQP, "setup", counting)
    return calls


def path(formulation, Cs, n=60):
    """The AUC-SVM dual on the first n standardized WDBC rows along Cs, at unit kernel scale as
    AUCSVM builds it."""
    X, y = load_breast_cancer(return_X_y=True)
    X, y = StandardScaler().fit_transform(X)[:n], y[:n] == 0
    scale = float(np.max(np.einsum("ij,ij->i", X, X)))
    pairs = PairSet.bipartite(y)
    return [get_formulation(formulation).build(pairs, factor=X / np.sqrt(scale), C=C * scale) for C in Cs]


def fresh(problem, **kwargs):
    """The same solve with a new setup: the cache emptied and disabled for it."""
    saved, backend.CACHE_SIZE = backend.CACHE_SIZE, 0
    try:
        return solve(problem, "osqp", **kwargs)
    finally:
        backend.CACHE_SIZE = saved


@pytest.mark.parametrize("formulation", ["aucsvm_l1_dual", "aucsvm_l2_dual"])
def test_a_warm_started_path_sets_up_once_and_matches_fresh_setups(formulation, setups):
    """l1: only the bounds change (update(u=)); l2: P's diagonal 1/(C w) changes (update(Px=))."""
    problems = path(formulation, (0.01, 0.02, 0.04))
    previous, results = None, []
    for problem in problems:
        start = None if previous is None else {"x": previous.x, "y": previous.dual}
        previous = solve(problem, "osqp", warm_start=start)
        results.append(previous)
    assert len(setups) == 1
    assert [r.info["reused_setup"] for r in results] == [False, True, True]
    for problem, result in zip(problems, results, strict=False):
        assert result.status == Status.OPTIMAL
        new = fresh(problem)
        ref = solve(problem, "clarabel", tol=1e-10)
        # OSQP's tolerance (eps 1e-6) bounds the agreement; polished points agree to 1e-9
        rel = 1e-9 if result.info["polished"] and new.info["polished"] else 1e-5
        assert result.objective == pytest.approx(new.objective, rel=rel)
        assert result.objective == pytest.approx(ref.objective, rel=max(rel, 1e-8))
    assert len(setups) == 1 + len(problems)  # the fresh solves set up each time


def test_warm_starts_along_a_path_save_iterations_on_the_reused_solver():
    """The kept solver starts from the previous solution and ADMM's adapted step size ρ: 7,850
    ADMM iterations over 10 values of C instead of 10,825 with a new setup per solve."""
    problems = path("aucsvm_l1_dual", np.geomspace(1e-3, 1e-1, 10))
    totals = {}
    for cache_size in (0, 1):
        backend.clear_cache()
        backend.CACHE_SIZE, previous, total = cache_size, None, 0
        try:
            for problem in problems:
                start = None if previous is None else {"x": previous.x, "y": previous.dual}
                previous = solve(problem, "osqp", warm_start=start)
                assert previous.status == Status.OPTIMAL and previous.info["reused_setup"] == (
                    cache_size > 0 and start is not None)
                total += previous.iterations
        finally:
            backend.CACHE_SIZE = 1
        totals[cache_size] = total
    assert totals[1] < 0.9 * totals[0], totals


def test_an_explicit_rho_restarts_from_the_iterates_of_a_fresh_setup(setups):
    first, second = path("aucsvm_l1_dual", (0.01, 0.02))
    options = {"rho": 0.1}
    previous = solve(first, "osqp", solver_options=options)
    start = {"x": previous.x, "y": previous.dual}
    reused = solve(second, "osqp", warm_start=start, solver_options=options)
    new = fresh(second, warm_start=start, solver_options=options)
    assert reused.info["reused_setup"] and len(setups) == 2
    assert reused.iterations == new.iterations
    np.testing.assert_allclose(reused.x, new.x, rtol=0, atol=1e-12)


def test_what_is_not_reused(setups):
    first, second = path("aucsvm_l1_dual", (0.01, 0.02))
    other = path("aucsvm_l1_dual", (0.02,), n=50)[0]  # another pattern
    previous = solve(first, "osqp")
    start = {"x": previous.x, "y": previous.dual}
    # no warm start: a cold solve sets up afresh, whatever was solved before
    assert not solve(second, "osqp").info["reused_setup"]
    # another sparsity pattern, or a setting fixed at setup
    assert not solve(other, "osqp", warm_start={"x": np.zeros(other.n_vars)}).info["reused_setup"]
    solve(first, "osqp")
    assert not solve(second, "osqp", warm_start=start, solver_options={"scaling": 5}).info["reused_setup"]
    # the cache switched off, or cleared
    solve(first, "osqp")
    backend.clear_cache()
    assert not solve(second, "osqp", warm_start=start).info["reused_setup"]
    assert len(setups) == 7


def test_updated_settings_and_limits_reach_the_reused_solver():
    """Tolerances, iteration and time limits change on the kept solver; a limit the next solve
    does not set is reset to OSQP's default."""
    first, second = path("aucsvm_l1_dual", (0.01, 0.02))
    previous = solve(first, "osqp", max_iter=30, solver_options={"polishing": False})
    assert previous.status == Status.ITERATION_LIMIT and previous.iterations == 30
    start = {"x": previous.x, "y": previous.dual}
    limited = solve(second, "osqp", warm_start=start, time_limit=1e-9)
    assert limited.info["reused_setup"] and limited.status == Status.TIME_LIMIT
    finished = solve(second, "osqp", warm_start={"x": limited.x})
    assert finished.info["reused_setup"] and finished.status == Status.OPTIMAL
    assert finished.objective == pytest.approx(fresh(second).objective, rel=1e-8)


def test_results_do_not_alias_the_reused_solver():
    first, second = path("aucsvm_l1_dual", (0.01, 0.02))
    a = solve(first, "osqp")
    x, dual = a.x.copy(), a.dual.copy()
    b = solve(second, "osqp", warm_start={"x": a.x, "y": a.dual})
    assert b.info["reused_setup"] and not np.allclose(a.x, b.x)
    np.testing.assert_array_equal(a.x, x)
    np.testing.assert_array_equal(a.dual, dual)


def test_concurrent_warm_starts_never_share_a_solver():
    """A solver in use is out of the cache: threads warm-starting the same pattern each get their own
    solver or a fresh setup, and every result equals the sequential one."""
    problems = path("aucsvm_l1_dual", (0.01, 0.015, 0.02, 0.03))
    base = solve(problems[0], "osqp")
    start = {"x": base.x, "y": base.dual}
    expected = [fresh(p).objective for p in problems]
    results = [None] * len(problems)

    def work(k):
        results[k] = solve(problems[k], "osqp", warm_start=start)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(problems))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for result, value in zip(results, expected, strict=False):
        assert result.status == Status.OPTIMAL
        assert result.objective == pytest.approx(value, rel=1e-8, abs=1e-10)
