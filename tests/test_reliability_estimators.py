"""Estimators as a user meets them: fit parameters, pickles across versions, time limits, the
solver a user names, and every route's stop at a time limit.

Oracles: the signatures of the estimators' ``fit`` (who takes which fit parameter), a model's
own predictions before pickling, the full LP solved whole by HiGHS (its optimum bounds every
certified lower bound from below and every feasible objective from above), and the LP Ranker's
objective recomputed pair by pair.
"""

from __future__ import annotations

import pickle
import warnings
from dataclasses import replace

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel

import aucopt
from aucopt import (
    AUCSVM,
    CoxPH,
    LPRanker,
    OnePassAUC,
    PairSet,
    RankSVM,
    SparseAUC,
    SurvivalAUCSVM,
    SurvivalLPRanker,
    get_formulation,
    solve,
    survival_target,
)
from aucopt.exceptions import InconsistentVersionWarning, SolverError, SolverWarning
from aucopt.solvers import Status

TIME_LIMIT_MESSAGE = "must be a positive number of seconds, or None for no limit"


@pytest.fixture(scope="module")
def binary():
    return make_classification(n_samples=60, n_features=5, n_informative=3, n_redundant=0, random_state=0)


def _lp_ranker_objective(K, pairs, C, alpha):
    """F(α) = Σ α + C Σ_p w_p max(0, 1 − (f_i − f_j)), pair by pair."""
    f = K @ (pairs.signs * alpha)
    i, j, w = pairs.to_arrays(None)
    return float(alpha.sum() + C * np.sum(w * np.maximum(0.0, 1.0 - (f[i] - f[j]))))


# ============================================================================ fit parameters
@pytest.mark.parametrize("estimator", [LPRanker(), AUCSVM(), SparseAUC(), SurvivalAUCSVM(), SurvivalLPRanker()],
                         ids=lambda e: type(e).__name__)
def test_a_fit_parameter_of_other_estimators_is_refused_by_name_before_any_work(estimator, binary, monkeypatch):
    X, y = binary
    if type(estimator).__name__.startswith("Survival"):
        y = survival_target(y == 1, np.arange(len(y), dtype=float) + 1.0)
    monkeypatch.setattr(type(estimator), "_make_pairs", lambda *a, **k: pytest.fail("work started"))
    name = type(estimator).__name__
    with pytest.raises(TypeError, match=rf"^{name}\.fit\(\) got an unexpected keyword argument 'alpha_path'") as info:
        estimator.fit(X, y, alpha_path=[1.0])
    message = str(info.value)
    # the estimators whose fit takes it, read from their signatures
    takers = sorted(n for n in aucopt.__all__ if "alpha_path" in getattr(getattr(aucopt, n), "fit", lambda: 0)
                    .__code__.co_varnames)
    assert takers == ["RankRC", "RankSVM", "SurvivalRankRC", "SurvivalRankSVM"]
    assert "alpha_path is a fit parameter of RankRC, RankSVM, SurvivalRankRC and SurvivalRankSVM" in message
    assert ("the fit parameters of" in message and "are groups" in message) == ("LPRanker" in name)
    if isinstance(estimator, (AUCSVM, SurvivalAUCSVM)):
        assert "warm_start=True" in message  # the way along a path of C that this estimator has
    with pytest.raises(TypeError, match=r"C is a parameter of .*: set it with .*\(C=\.\.\.\) or set_params"):
        estimator.fit(X, y, C=2.0)


def test_the_fit_parameters_an_estimator_takes_still_reach_it(binary):
    X, y = binary
    path = RankSVM(alpha=1e-2).fit(X, y, alpha_path=[1.0, 0.1]).path_
    assert [record["alpha"] for record in path][:2] == [1.0, 0.1]
    groups = np.arange(len(y)) % 2
    with pytest.raises(ValueError, match="groups"):  # reaches the formulation, which checks its length
        LPRanker(method="full").fit(X, y, groups=groups[:-1])
    assert aucopt.base.fit_parameters(LPRanker) == ("groups",)
    assert aucopt.base.fit_parameters(AUCSVM) == ()


# ============================================================================ pickles
def _pickle_with_state(monkeypatch, estimator, edit):
    """The bytes of ``pickle.dumps(estimator)`` with its state changed by ``edit`` (as an older aucopt wrote it)."""
    cls = type(estimator)
    original = cls.__getstate__

    def getstate(self):
        state = original(self)
        edit(state)
        return state
    monkeypatch.setattr(cls, "__getstate__", getstate)
    data = pickle.dumps(estimator)
    monkeypatch.setattr(cls, "__getstate__", original)
    return data


def test_a_pickle_of_an_older_version_warns_and_keeps_repr_get_params_and_clone(binary, monkeypatch):
    X, y = binary
    model = AUCSVM(C=0.05, method="dcd", verbose=0).fit(X, y)

    def as_020(state):
        del state["warm_start"], state["verbose"]  # parameters added after 0.2.0
        state["_aucopt_version"] = "0.2.0"
    data = _pickle_with_state(monkeypatch, model, as_020)
    with pytest.warns(InconsistentVersionWarning, match=r"from aucopt 0\.2\.0 with aucopt .*verbose=0, warm_start=False"
                      ) as record:
        loaded = pickle.loads(data)
    warning = record[0].message
    assert (warning.original_version, warning.current_version) == ("0.2.0", aucopt.__version__)
    assert warning.filled_parameters == {"verbose": 0, "warm_start": False}
    assert record[0].filename == __file__  # the user's line, not aucopt's
    assert np.array_equal(loaded.decision_function(X), model.decision_function(X))
    assert repr(loaded) == "AUCSVM(C=0.05, method='dcd')"
    assert loaded.get_params() == model.get_params()
    refit = clone(loaded).fit(X, y)
    assert refit.objective_ == pytest.approx(model.objective_, rel=1e-9)


def test_a_pickle_without_a_version_warns_and_one_of_this_version_does_not(binary, monkeypatch):
    X, y = binary
    model = LPRanker(C=0.5, method="full").fit(X, y)
    data = _pickle_with_state(monkeypatch, model, lambda state: state.pop("_aucopt_version"))
    with pytest.warns(InconsistentVersionWarning, match="older than 0.3.0 .the pickle records none"):
        loaded = pickle.loads(data)
    assert np.array_equal(loaded.decision_function(X), model.decision_function(X))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = pickle.loads(pickle.dumps(model))
    assert np.array_equal(again.decision_function(X), model.decision_function(X))


@pytest.mark.parametrize("estimator", [AUCSVM(), LPRanker(), RankSVM(), SparseAUC(), OnePassAUC(),
                                       SurvivalAUCSVM(), CoxPH()], ids=lambda e: type(e).__name__)
def test_every_estimator_records_the_version_in_its_pickle(estimator):
    assert estimator.__getstate__()["_aucopt_version"] == aucopt.__version__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert "_aucopt_version" not in vars(pickle.loads(pickle.dumps(estimator)))


# ============================================================================ time limits
BAD_TIME_LIMITS = [-1, 0, 0.0, float("nan"), float("inf"), True, np.bool_(True), "1", [1.0]]
ROUTES = ([LPRanker(method=m) for m in ("full", "generation", "smoothing", "chunking", "subgradient", "clustering")]
          + [LPRanker(method="generation", formulation="lp_ranker_free_sign")]
          + [AUCSVM(method=m, kernel="linear") for m in ("full", "dcd", "liblinear", "kmeans")])


@pytest.mark.parametrize("bad", BAD_TIME_LIMITS, ids=repr)
@pytest.mark.parametrize("estimator", ROUTES, ids=lambda e: f"{type(e).__name__}-{e.method}")
def test_every_route_refuses_a_bad_time_limit_with_one_message_before_any_work(estimator, bad, binary, monkeypatch):
    X, y = binary
    monkeypatch.setattr(type(estimator), "_make_pairs", lambda *a, **k: pytest.fail("work started"))
    with pytest.raises(ValueError) as info:
        clone(estimator).set_params(solver_options={"time_limit": bad}).fit(X, y)
    assert str(info.value) == f"solver_options['time_limit'] {TIME_LIMIT_MESSAGE}; got {bad!r}."


def test_the_route_functions_refuse_a_bad_time_limit_with_the_same_message(binary):
    from aucopt.lp import chunking, row_column_generation, smoothing, subgradient
    from aucopt.svm._dcd import dcd_solve

    X, y = binary
    K, pairs = rbf_kernel(X, gamma=0.2), PairSet.bipartite(y)
    calls = {"smoothing": lambda t: smoothing(K, pairs, 1.0, time_limit=t),
             "subgradient": lambda t: subgradient(K, pairs, 1.0, time_limit=t),
             "chunking": lambda t: chunking(K, pairs, 1.0, solver_options={"time_limit": t}),
             "generation": lambda t: row_column_generation(K, pairs, 1.0, solver_options={"time_limit": t}),
             "dcd": lambda t: dcd_solve(K, *pairs.to_arrays(None), 1.0, 1, linear=False, tol=1e-6, max_iter=10,
                                        time_limit=t)}
    for call in calls.values():
        for bad in (-1, float("nan"), True):
            with pytest.raises(ValueError, match=rf"time_limit'?\]? {TIME_LIMIT_MESSAGE}; got {bad!r}\."):
                call(bad)


@pytest.mark.parametrize("limit", [np.float32(30), np.float64(30.0), np.int64(30), 30])
def test_numpy_and_python_numbers_are_time_limits_on_every_route(limit, binary):
    X, y = binary
    dcd = AUCSVM(method="dcd", solver_options={"time_limit": limit}).fit(X, y)
    exact = AUCSVM(method="dcd").fit(X, y)
    assert dcd.solve_result_.status == Status.OPTIMAL and dcd.objective_ == pytest.approx(exact.objective_)
    generation = LPRanker(method="generation", solver_options={"time_limit": limit}).fit(X, y)
    full = LPRanker(method="full").fit(X, y)
    assert generation.method_result_.converged
    assert generation.objective_ == pytest.approx(full.objective_, rel=1e-7)


# ============================================================================ every route's stop at a time limit
@pytest.fixture(scope="module")
def lp_case():
    X, y = make_classification(n_samples=80, n_features=5, n_informative=3, flip_y=0.2, random_state=1)
    K, pairs, C = rbf_kernel(X, gamma=0.5), PairSet.bipartite(y), 5.0
    optimum = solve(get_formulation("lp_ranker").build(pairs, K, C=C)).raise_for_status().objective
    return K, pairs, C, optimum


def _assert_certified_stop(run, K, pairs, C, optimum):
    assert run.solve_result.status == Status.TIME_LIMIT and not run.converged
    assert run.alpha.min() >= 0.0
    assert run.objective == pytest.approx(_lp_ranker_objective(K, pairs, C, run.alpha), rel=1e-10)
    assert run.objective >= optimum * (1 - 1e-9) and run.lower_bound <= optimum * (1 + 1e-9)
    assert run.gap == pytest.approx(max(run.objective - run.lower_bound, 0.0) / run.objective)


@pytest.mark.parametrize("call", [1, 2])
def test_chunking_stopped_inside_a_restricted_lp_keeps_its_best_point(monkeypatch, lp_case, call):
    """A restricted LP stopped by the time limit without a point: a ConvergenceWarning with the
    best point (α = 0 before the first solution) and its certified bound; never a SolverError."""
    import aucopt.lp._scale as scale
    from aucopt.solvers.highs import IncrementalLP

    K, pairs, C, optimum = lp_case
    seen, original = [], IncrementalLP.solve

    def solve_(self, *args, **kwargs):
        seen.append(self.name)
        result = original(self, *args, **kwargs)
        return replace(result, status=Status.TIME_LIMIT, x=None) if len(seen) == call else result
    monkeypatch.setattr(IncrementalLP, "solve", solve_)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.warns(ConvergenceWarning, match=r"Chunking stopped at time_limit=60 s .*certified lower bound"):
            run = scale.chunking(K, pairs, C, n_chunks=3, solver_options={"time_limit": 60.0}, random_state=0)
    _assert_certified_stop(run, K, pairs, C, optimum)
    assert run.n_solves == call and seen[0].startswith("lp_ranker restricted to ")
    if call == 1:  # α = 0, the only point; its bound comes from the stopped LP's duals (any duals give one)
        assert not run.alpha.any() and 0.0 < run.lower_bound <= optimum


def test_smoothing_passes_the_time_left_to_its_fallback_qp_and_stops_with_a_certified_point(monkeypatch, lp_case):
    """The Newton step's fallback QP (HiGHS) gets the time left; when it uses it up, the run stops at
    its next evaluation with its best iterate and certified gap (a fake clock: no wall time)."""
    import aucopt.lp._smoothing as smoothing_module
    import aucopt.solvers

    K, pairs, C, optimum = lp_case
    clock = [0.0]
    monkeypatch.setattr(smoothing_module, "time", type("Clock", (), {"perf_counter": staticmethod(lambda: clock[0])}))

    def no_cholesky(*args, **kwargs):  # the active-set method fails: the fallback QP runs
        raise np.linalg.LinAlgError("forced")
    monkeypatch.setattr(smoothing_module.sla, "cho_factor", no_cholesky)
    limits = []

    def qp(problem, solver, time_limit=None, **kwargs):
        limits.append(time_limit)
        clock[0] += 100.0  # the QP used all the time there was
        return aucopt.solvers.SolveResult(Status.TIME_LIMIT, float("nan"), None, solver="highs",
                                          problem_name=problem.name)
    monkeypatch.setattr(aucopt.solvers, "solve", qp)
    with pytest.warns(ConvergenceWarning, match=r"stopped at time_limit=60.0 s .*certified lower bound"):
        run = smoothing_module.smoothing(K, pairs, C, tol=1e-9, time_limit=60.0)
    assert limits == [60.0] and run.stop == "time_limit" and run.iterations == 1
    assert run.lower_bound <= optimum * (1 + 1e-9) <= run.objective * (1 + 2e-9)
    assert run.objective == pytest.approx(_lp_ranker_objective(K, pairs, C, run.alpha), rel=1e-10)


def test_a_failed_restricted_lp_names_its_problem(monkeypatch, lp_case):
    from aucopt.lp import row_column_generation
    from aucopt.solvers.highs import IncrementalLP

    K, pairs, C, _ = lp_case
    original = IncrementalLP.solve
    monkeypatch.setattr(IncrementalLP, "solve", lambda self, time_limit=None: replace(
        original(self, time_limit=time_limit), status=Status.NUMERICAL_ERROR, x=None, message="Solve error"))
    with pytest.raises(SolverError, match=r"highs returned status 'numerical_error' on 'LP Ranker restricted to "
                                          r"generated pair rows and columns \(.* pairs, 80 points\)': Solve error"):
        row_column_generation(K, pairs, C, start="zero")


# ============================================================================ the solver a user names
@pytest.fixture(scope="module")
def many_pairs():
    X, y = make_classification(n_samples=300, n_features=3, n_informative=3, n_redundant=0, random_state=0)
    assert (y == 1).sum() * (y == 0).sum() > aucopt.svm._aucsvm.AUCSVM_AUTO_MAX_PAIRS
    return X, y


def test_the_default_solver_is_auto_and_method_auto_then_takes_the_fast_routes(many_pairs):
    X, y = many_pairs
    assert AUCSVM().solver == "auto" and SurvivalAUCSVM().solver == "auto"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = AUCSVM(C=0.01, kernel="linear").fit(X, y)
    assert model.method_ == "dcd"
    small = AUCSVM(C=0.01).fit(X[:40], y[:40])
    assert small.method_ == "dcd" and small.solve_result_.solver == "dcd"  # at every size
    qp = AUCSVM(C=0.01, method="full").fit(X[:40], y[:40])
    assert qp.solve_result_.solver == "osqp"  # "auto": OSQP for the QP


@pytest.mark.parametrize("solver", ["osqp", "highs", "clarabel"])
def test_an_explicit_solver_keeps_method_auto_on_the_qp_that_it_solves(solver, many_pairs, monkeypatch):
    import aucopt.svm._aucsvm as module

    X, y = many_pairs
    pairs = PairSet.bipartite(y)
    for kernel in ("linear", "rbf"):
        method, reason = AUCSVM(kernel=kernel, solver=solver).select_method(pairs, X=X)
        assert method == "full" and f"solver={solver!r} as given" in reason
        assert AUCSVM(kernel=kernel).select_method(pairs, X=X)[0] == "dcd"

    class Reached(Exception):
        pass

    def solve_(problem, name, **kwargs):
        raise Reached(name)
    monkeypatch.setattr(module, "solve", solve_)  # the QP is reached with the named solver (not solved here)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(Reached, match=f"^{solver}$"):
            AUCSVM(C=0.01, kernel="linear", solver=solver).fit(X, y)


def test_an_explicit_solver_that_the_memory_budget_rules_out_is_announced(many_pairs):
    from aucopt import _memory

    X, y = many_pairs
    n, P, d = len(y), int((y == 1).sum() * (y == 0).sum()), X.shape[1]
    qp, fast = (_memory.aucsvm_bytes("full", "linear", n, P, d, d, solver="osqp"),
                _memory.aucsvm_bytes("dcd", "linear", n, P, d, d))
    assert fast < qp
    budget = (fast + qp) / 2  # the fast route fits, the QP does not
    estimator = AUCSVM(C=0.01, kernel="linear", solver="osqp", max_bytes=budget)
    method, reason = estimator.select_method(PairSet.bipartite(y), X=X)
    assert method == "dcd" and "solver='osqp' is not used" in reason and "max_bytes" in reason
    with pytest.warns(SolverWarning, match=r"AUCSVM\(solver='osqp'\): .*solver='osqp' is not used"):
        model = estimator.fit(X, y)
    reference = AUCSVM(C=0.01, kernel="linear").fit(X, y)
    assert model.method_ == "dcd" and model.objective_ == pytest.approx(reference.objective_)


def test_auto_takes_liblinear_for_a_linear_kernel_when_only_it_fits_the_memory_budget(monkeypatch):
    """Dual coordinate descent densifies X; sparse rows of many features keep only liblinear's pair
    differences within max_bytes, and method="auto" then takes liblinear, saying why; both reach the
    same optimum (the dual QP's, Brefeld & Scheffer 2005, Theorem 2)."""
    import scipy.sparse as sp

    from aucopt import _memory

    monkeypatch.setattr(aucopt.svm._aucsvm, "AUCSVM_AUTO_MAX_PAIRS", 100)  # few pairs, fast fits
    rng = np.random.default_rng(3)
    n, d = 60, 20_000
    X = sp.random(n, d, density=5 / d, format="csr", random_state=rng)
    X = sp.hstack([X, sp.csr_matrix(rng.normal(size=(n, 2)))], format="csr")  # two dense informative columns
    y = (X[:, -1].toarray().ravel() + 0.5 * rng.normal(size=n)) > 0
    pairs = PairSet.bipartite(y)
    assert pairs.n_pairs > 100
    per_row = 2.0 * X.nnz / n
    dcd, lib = (_memory.aucsvm_bytes("dcd", "linear", n, pairs.n_pairs, X.shape[1], per_row, sparse=True),
                _memory.aucsvm_bytes("liblinear", "linear", n, pairs.n_pairs, X.shape[1], per_row))
    assert lib < dcd
    estimator = AUCSVM(C=0.01, kernel="linear", max_bytes=(lib + dcd) / 2)
    method, reason = estimator.select_method(pairs, X=X)
    assert method == "liblinear" and "dual coordinate descent needs" in reason and "max_bytes" in reason
    assert AUCSVM(C=0.01, kernel="linear").select_method(pairs, X=X)[0] == "dcd"  # the default budget: both fit
    model = estimator.fit(X, y)
    assert model.method_ == "liblinear"
    reference = AUCSVM(C=0.01, kernel="linear", method="dcd").fit(X, y)
    assert model.objective_ == pytest.approx(reference.objective_, rel=1e-6)
