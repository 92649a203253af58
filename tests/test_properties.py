"""Property-based tests (hypothesis): invariances of the estimators and metrics, honest solver
statuses on random LPs/QPs, and the command line's exit codes on random bad input.

Each property is checked on a few random examples (``max_examples`` small, no deadline) so the
whole file runs in well under a minute.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import make_small_binary, make_small_survival
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from aucopt import (
    LPRanker,
    RankRC,
    RankSVM,
    SparseAUC,
    SurvivalLPRanker,
    SurvivalRankSVM,
    harrell_c,
    roc_auc,
    survival_target,
)
from aucopt.modeling import Problem
from aucopt.solvers import Status, available_solvers, solve

FEW = settings(max_examples=6, deadline=None, derandomize=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

#: scale factors that are powers of two: multiplying by them is exact in float64, so an
#: invariance that holds in exact arithmetic holds up to the solver's own tolerance
POWERS_OF_TWO = st.sampled_from([0.125, 0.25, 0.5, 2.0, 4.0, 8.0])


def _binary(n_samples=40):
    X, y = make_small_binary(n_samples=n_samples, n_features=4)
    return X, y


def _survival(n_samples=40):
    X, event, time = make_small_survival(n_samples=n_samples, n_features=4)
    return X, survival_target(event, time)


# ============================================================================ (a) scaling X
@FEW
@given(c=POWERS_OF_TWO, survival=st.booleans())
def test_rank_svm_scaling_X_by_c_with_alpha_times_c2_changes_only_the_scale_of_coef(c, survival):
    """f = Xw with penalty (α/2)‖w‖²: on cX, w/c gives the same scores and the penalty
    (α c²/2)‖w/c‖² = (α/2)‖w‖², so RankSVM(alpha=α c²) on cX is the same problem: identical
    scores, coef_ divided by c, the same objective."""
    X, y = _survival() if survival else _binary()
    cls = SurvivalRankSVM if survival else RankSVM
    base = cls(alpha=1e-2, tol=1e-10).fit(X, y)
    scaled = cls(alpha=1e-2 * c * c, tol=1e-10).fit(c * X, y)
    np.testing.assert_allclose(scaled.coef_, base.coef_ / c, rtol=1e-6, atol=1e-9 / c)
    np.testing.assert_allclose(scaled.decision_function(c * X), base.decision_function(X), rtol=1e-6, atol=1e-9)
    assert scaled.objective_ == pytest.approx(base.objective_, rel=1e-8)
    assert scaled.score(c * X, y) == base.score(X, y)


@FEW
@given(c=POWERS_OF_TWO, survival=st.booleans())
def test_lp_ranker_linear_kernel_scaling_X_by_c_with_C_over_c2(c, survival):
    """With the linear kernel K' = c²K on cX; α' = α/c² gives the same scores and constraints,
    and Σ|α'| + (C/c²)Σξ = (Σ|α| + CΣξ)/c². So LPRanker(C/c²) on cX has objective objective/c²,
    expansion coefficients divided by c², and (at the same vertex) the same scores and AUC."""
    X, y = _survival(30) if survival else _binary(30)
    cls = SurvivalLPRanker if survival else LPRanker
    base = cls(kernel="linear", C=1.0).fit(X, y)
    scaled = cls(kernel="linear", C=1.0 / (c * c)).fit(c * X, y)
    assert scaled.solve_result_.status == base.solve_result_.status == "optimal"
    assert scaled.objective_ == pytest.approx(base.objective_ / (c * c), rel=1e-7)
    f_base, f_scaled = base.decision_function(X), scaled.decision_function(c * X)
    np.testing.assert_allclose(f_scaled, f_base, rtol=1e-6, atol=1e-6 * np.abs(f_base).max())
    assert scaled.score(c * X, y) == pytest.approx(base.score(X, y), abs=1e-12)


@FEW
@given(c=POWERS_OF_TWO, rule=st.sampled_from(["scale", "sigma2"]),
       cls=st.sampled_from([LPRanker, RankRC, SparseAUC]))
def test_rbf_kernel_with_a_gamma_rule_is_invariant_to_scaling_X(c, rule, cls):
    """gamma='scale' (1/(d Var X)) and 'sigma2' (1/mean squared distance) scale as 1/c², the
    squared distances as c²: the kernel matrix, hence the whole fit, does not change."""
    X, y = _binary(30)
    params = {"kernel": "rbf", "gamma": rule}
    if cls is SparseAUC:
        params["kappa"] = 10
    base = cls(**params).fit(X, y)
    scaled = cls(**params).fit(c * X, y)
    assert scaled.kernel_.gamma == pytest.approx(base.kernel_.gamma / (c * c), rel=1e-12)
    np.testing.assert_allclose(scaled.decision_function(c * X), base.decision_function(X), rtol=1e-7, atol=1e-9)


@FEW
@given(c=st.floats(1e-3, 1e3), seed=st.integers(0, 10_000), ties=st.booleans())
def test_metrics_are_invariant_to_positive_scaling_with_the_tolerance_scaled(c, seed, ties):
    """AUC and Harrell's C depend only on the order of the scores; the tie tolerance is relative
    to the scores' magnitude, so they are unchanged, and with tied_tol=0 the AUC is sklearn's."""
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=50)
    if ties:
        scores = np.round(scores, 1)
    y = rng.integers(0, 2, size=50)
    y[:2] = [0, 1]
    assert roc_auc(y, c * scores, tied_tol=0) == pytest.approx(roc_auc(y, scores, tied_tol=0), abs=1e-15)
    assert roc_auc(y, scores, tied_tol=0) == pytest.approx(roc_auc_score(y, scores), abs=1e-12)
    assert roc_auc(y, -scores, tied_tol=0) == pytest.approx(1 - roc_auc(y, scores, tied_tol=0), abs=1e-12)
    two = 2.0 ** np.round(np.log2(c))  # exact scaling of the scores and the tolerance
    two = two * 2.0 ** -30  # down to scores of magnitude about 1e-12, where ties once swallowed the order
    assert roc_auc(y, two * scores) == roc_auc(y, scores)
    target = survival_target(y.astype(bool), rng.exponential(size=50))
    assert harrell_c(target, two * scores) == harrell_c(target, scores)


# ============================================================================ (b) solver statuses
DOCUMENTED = {s.value for s in Status}
SOLVERS = [s for s in available_solvers() if s not in ("cvxpy", "ecos_bb")]  # "cvxpy" is clarabel


def _accepts(solver: str, kind: str) -> bool:
    try:
        from aucopt.solvers import _resolve

        return kind in _resolve(solver).problem_kinds
    except ValueError:
        return False


@st.composite
def feasible_problems(draw, qp: bool):
    """A bounded feasible LP or convex QP: rows built around a point inside the box."""
    rng = np.random.default_rng(draw(st.integers(0, 2**31 - 1)))
    n, m = draw(st.integers(2, 5)), draw(st.integers(1, 4))
    A = rng.integers(-3, 4, size=(m, n)).astype(float)
    A[A == 0] = 1.0
    lo, hi = np.zeros(n), np.full(n, 3.0)
    x0 = rng.uniform(0.5, 2.5, size=n)
    ax = A @ x0
    row_lower = np.where(rng.random(m) < 0.7, ax - rng.uniform(0, 1, m), -np.inf)
    row_upper = np.where(rng.random(m) < 0.5, ax + rng.uniform(0, 1, m), np.inf)
    c = rng.normal(size=n)
    P = None
    if qp:
        B = rng.normal(size=(n, n))
        P = sp.csc_matrix(B @ B.T)
    return Problem(c=c, A=sp.csc_matrix(A), row_lower=row_lower, row_upper=row_upper,
                   col_lower=lo, col_upper=hi, P=P, name="random")


def _infeasible(qp: bool) -> Problem:
    """x₀ + x₁ ≥ 2 and x₀ + x₁ ≤ 1."""
    P = sp.csc_matrix(np.eye(2)) if qp else None
    return Problem(c=np.ones(2), A=sp.csc_matrix([[1.0, 1.0], [1.0, 1.0]]), row_lower=np.array([2.0, -np.inf]),
                   row_upper=np.array([np.inf, 1.0]), col_lower=np.zeros(2), col_upper=np.full(2, np.inf),
                   P=P, name="infeasible")


def _unbounded(qp: bool) -> Problem:
    """LP: min −x₀ − x₁ with x₀ − x₁ ≤ 1, x ≥ 0.

    QP: ½‖β‖² − t with t free, β₀ + β₁ ≥ −1.
    """
    if qp:
        return Problem(c=np.array([0.0, 0.0, -1.0]), A=sp.csc_matrix([[1.0, 1.0, 0.0]]),
                       row_lower=np.array([-1.0]), row_upper=np.array([np.inf]),
                       col_lower=np.array([-np.inf, -np.inf, -np.inf]), col_upper=np.full(3, np.inf),
                       P=sp.csc_matrix(np.diag([1.0, 1.0, 0.0])), name="unbounded")
    return Problem(c=np.array([-1.0, -1.0]), A=sp.csc_matrix([[1.0, -1.0]]), row_lower=np.array([-np.inf]),
                   row_upper=np.array([1.0]), col_lower=np.zeros(2), col_upper=np.full(2, np.inf), name="unbounded")


def _kkt_residuals(problem: Problem, x: np.ndarray, y: np.ndarray) -> dict:
    """Primal feasibility, dual feasibility (reduced costs vs. the active column bounds) and
    complementarity of the row duals, from the problem data alone, relative to its scale."""
    A = problem.A.toarray()
    P = np.zeros((len(x), len(x))) if problem.P is None else problem.P.toarray()
    ax = A @ x
    scale = 1.0 + max(np.abs(A).max(), np.abs(problem.c).max(), np.abs(P).max(), np.abs(x).max())
    primal = max(np.max(np.maximum(problem.row_lower - ax, 0), initial=0),
                 np.max(np.maximum(ax - problem.row_upper, 0), initial=0),
                 np.max(np.maximum(problem.col_lower - x, 0), initial=0),
                 np.max(np.maximum(x - problem.col_upper, 0), initial=0))
    r = problem.c + P @ x - A.T @ y  # reduced costs: the column-bound multipliers
    tol_active = 1e-5 * scale
    at_lo = x <= problem.col_lower + tol_active
    at_hi = x >= problem.col_upper - tol_active
    dual = np.where(at_lo & at_hi, 0.0,
                    np.where(at_lo, np.maximum(-r, 0), np.where(at_hi, np.maximum(r, 0), np.abs(r))))
    # y_r > 0 only on a row held at its (finite) lower bound, y_r < 0 at its upper bound: the
    # residual is |y_r| times the row's distance from that bound, or |y_r| when it has none
    gap_lo = np.where(np.isfinite(problem.row_lower), ax - problem.row_lower, 1.0)
    gap_hi = np.where(np.isfinite(problem.row_upper), problem.row_upper - ax, 1.0)
    compl = np.where(y > 0, y * np.abs(gap_lo), np.where(y < 0, -y * np.abs(gap_hi), 0.0))
    return {"primal": primal / scale, "dual": float(np.max(dual, initial=0)) / scale,
            "complementarity": float(np.max(compl, initial=0)) / scale}


def _solve_quietly(problem, solver):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return solve(problem, solver)


@pytest.mark.parametrize("qp", [False, True], ids=["LP", "QP"])
@pytest.mark.parametrize("solver", SOLVERS)
@settings(max_examples=4, deadline=None, derandomize=True)
@given(data=st.data())
def test_every_status_is_documented_and_optimal_only_with_small_kkt_residuals(solver, qp, data):
    if not _accepts(solver, "QP" if qp else "LP"):
        pytest.skip(f"{solver} does not solve {'QP' if qp else 'LP'}s")
    problem = data.draw(feasible_problems(qp))
    result = _solve_quietly(problem, solver)
    assert str(result.status) in DOCUMENTED
    if result.status != Status.OPTIMAL:
        return
    x = result.x
    assert x is not None and np.all(np.isfinite(x)) and np.isfinite(result.objective)
    assert result.objective == pytest.approx(problem.objective(x), rel=1e-9, abs=1e-9)
    if result.dual is not None:
        res = _kkt_residuals(problem, x, np.asarray(result.dual, dtype=float))
        assert max(res.values()) < 1e-3, f"{solver} said optimal with KKT residuals {res}"
    else:  # no duals: the optimal value must agree with a second backend
        reference = _solve_quietly(problem, "highs" if solver != "highs" else "clarabel")
        assert reference.status == Status.OPTIMAL
        assert result.objective == pytest.approx(reference.objective, rel=1e-4, abs=1e-4)
        assert problem.violation(x) < 1e-4


@pytest.mark.parametrize("qp", [False, True], ids=["LP", "QP"])
@pytest.mark.parametrize("kind", ["infeasible", "unbounded"])
@pytest.mark.parametrize("solver", SOLVERS)
def test_infeasible_and_unbounded_problems_are_never_optimal(solver, kind, qp):
    if not _accepts(solver, "QP" if qp else "LP"):
        pytest.skip(f"{solver} does not solve {'QP' if qp else 'LP'}s")
    problem = _infeasible(qp) if kind == "infeasible" else _unbounded(qp)
    result = _solve_quietly(problem, solver)
    assert str(result.status) in DOCUMENTED
    assert result.status not in (Status.OPTIMAL, Status.OPTIMAL_INACCURATE), (
        f"{solver} reported {result.status} on an {kind} {'QP' if qp else 'LP'} (objective {result.objective})")


# ============================================================================ (c) CLI exit codes
def _run_cli(argv, capsys):
    from aucopt.cli import main

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
    captured = capsys.readouterr()
    return code, captured.err


@pytest.fixture(scope="module")
def bad_files(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    files = {
        "missing": str(root / "nothing_here.svm"),
        "directory": str(root),
        "fake_gz": root / "data.svm.gz",
        "garbage": root / "garbage.svm",
        "empty": root / "empty.svm",
        "header_only": root / "header.csv",
        "one_class": root / "one_class.svm",
    }
    files["fake_gz"].write_text("1 1:0.5\n0 1:0.2\n")
    files["garbage"].write_text("this is not a libsvm file\n\x00\x01\n")
    files["empty"].write_text("")
    files["header_only"].write_text("time,event,x1\n")
    files["one_class"].write_text("1 1:0.5\n1 1:0.2\n1 1:0.9\n")
    return {k: str(v) for k, v in files.items()}


VALUE_ERRORS = st.sampled_from([
    # (sub-command arguments, with {file} standing for a bad file)
    ["onepass", "{file}", "--n-features", "3"],
    ["onepass", "{file}", "--n-features", "3", "--test", "{file}"],
    ["sparse", "{file}"],
    ["survival", "--data", "{file}", "--time", "time", "--event", "event", "--splits", "2", "--repeats", "1"],
])
BAD_FILES = st.sampled_from(["missing", "directory", "fake_gz", "garbage", "empty", "header_only", "one_class"])


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(template=VALUE_ERRORS, which=BAD_FILES)
def test_cli_bad_files_exit_2_with_one_line(template, which, bad_files, capsys):
    argv = [a.replace("{file}", bad_files[which]) for a in template]
    code, err = _run_cli(argv, capsys)
    assert code == 2, (argv, code, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("aucopt: error: "), (argv, err)
    assert "Traceback" not in err


BAD_VALUES = st.sampled_from([
    ["sparse", "breast_cancer", "--C", "-1"],
    ["sparse", "breast_cancer", "--C", "0"],
    ["sparse", "breast_cancer", "--kappa", "0"],
    ["sparse", "breast_cancer", "--basis-size", "0"],
    ["sparse", "breast_cancer", "--basis-size", "100000"],
    ["onepass", "{good}", "--n-features", "0"],
    ["onepass", "{good}", "--n-features", "3", "--alpha", "-1"],
    ["onepass", "{good}", "--n-features", "3", "--chunk-size", "0"],
    ["onepass", "{good}", "--n-features", "3", "--eta0", "-3"],
    ["onepass", "{good}", "--n-features", "3", "--rank", "0"],
    ["survival", "--splits", "1"],
    ["survival", "--max-bytes", "-5"],
    ["survival", "--data", "no_such_dataset"],
    ["survival", "--C", "-2"],
])


@pytest.fixture(scope="module")
def good_svm(tmp_path_factory):
    from sklearn.datasets import dump_svmlight_file

    X, y = make_small_binary(n_samples=40, n_features=3)
    path = tmp_path_factory.mktemp("cli_good") / "train.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    return str(path)


@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(argv=BAD_VALUES)
def test_cli_bad_values_exit_2_with_one_line(argv, good_svm, capsys):
    argv = [a.replace("{good}", good_svm) for a in argv]
    code, err = _run_cli(argv, capsys)
    assert code == 2, (argv, code, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("aucopt: error: "), (argv, err)


PARSE_ERRORS = st.sampled_from([
    ["sparse", "breast_cancer", "--C", "abc"],
    ["onepass", "x.svm"],  # --n-features is required
    ["survival", "--model", "nonsense"],
    ["bogus-command"],
    ["sparse", "breast_cancer", "--no-such-option"],
])


@settings(max_examples=5, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(argv=PARSE_ERRORS)
def test_cli_parse_errors_exit_2_with_an_error_line_and_no_traceback(argv, capsys):
    """argparse's own errors (unknown option, unparsable number) exit 2 with one line
    ``aucopt: error: ... (see 'aucopt ... --help')``; never a traceback or a usage dump."""
    code, err = _run_cli(argv, capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("aucopt: error: ") and "--help" in lines[0], err


@settings(max_examples=3, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(argv=st.sampled_from([["solvers"], ["formulations"], ["--version"],
                             ["onepass", "{good}", "--n-features", "3"]]))
def test_cli_good_arguments_exit_0(argv, good_svm, capsys):
    argv = [a.replace("{good}", good_svm) for a in argv]
    code, err = _run_cli(argv, capsys)
    assert code in (0, None), (argv, code, err)
    assert "error" not in err


@pytest.mark.parametrize("top", ["0", "150"])
def test_cli_survival_checks_top_before_the_cross_validation(top, capsys, monkeypatch):
    import aucopt.survival

    def no_cv(*args, **kwargs):
        raise AssertionError("the cross-validation ran before --top was checked")

    monkeypatch.setattr(aucopt.survival, "evaluate_methods", no_cv)
    code, err = _run_cli(["survival", "--top", top], capsys)
    assert code == 2 and err.startswith("aucopt: error: ") and "top" in err


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 30), levels=st.integers(1, 6), weighted=st.booleans(), seed=st.integers(0, 10_000),
       packed=st.booleans())
def test_the_threshold_has_the_best_training_accuracy_of_any_cut(n, levels, weighted, seed, packed):
    """Brute force over every cut between distinct scores (and beyond both ends), tied scores included;
    with ``packed``, the scores are sorted and cut as from 65,536 of them on (packed integer keys, one
    compiled pass)."""
    import aucopt._targets
    import aucopt.pairs._survival
    from aucopt._targets import best_accuracy_threshold

    rng = np.random.default_rng(seed)
    scores = rng.integers(0, levels, n).astype(float)
    positive = rng.random(n) < 0.5
    weight = rng.integers(0, 4, n).astype(float) if weighted else np.ones(n)
    if not weight.any():
        weight[0] = 1.0
    with pytest.MonkeyPatch.context() as patch:
        if packed:
            patch.setattr(aucopt.pairs._survival, "PACKED_SORT_FROM", 0)
            patch.setattr(aucopt._targets, "COMPILED_CUT_FROM", 0)
        threshold = best_accuracy_threshold(scores, positive, weight if weighted else None)
    # the same cut as the vectorized path, the first of equally good ones
    assert threshold == best_accuracy_threshold(scores, positive, weight if weighted else None)

    def accuracy(tau):
        return float(weight @ ((scores > tau) == positive))

    kept = np.unique(scores[weight > 0])
    cuts = np.concatenate([[kept[0] - 1.0], (kept[1:] + kept[:-1]) / 2, [kept[-1] + 1.0]])
    assert threshold in cuts
    assert accuracy(threshold) == max(accuracy(tau) for tau in cuts)


@settings(max_examples=80, deadline=None)
@given(st.one_of(
    st.lists(st.integers(-3, 3), max_size=12).map(lambda v: np.array(v, dtype=np.int64)),
    st.lists(st.integers(0, 1), max_size=12).map(lambda v: np.array(v, dtype=np.int8)),
    st.lists(st.booleans(), max_size=12).map(lambda v: np.array(v, dtype=bool)),
    st.lists(st.sampled_from([0.0, -0.0, 1.5, np.nan, -np.inf]), max_size=12).map(np.array),
    st.lists(st.sampled_from(["a", "b", "c"]), max_size=12).map(np.array),
))
def test_unique_labels_is_numpys_unique(labels):
    """The labels' classes from their minimum and maximum (at most two numbers) are np.unique's."""
    from aucopt._validation import unique_labels

    got, want = unique_labels(labels), np.unique(labels)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
