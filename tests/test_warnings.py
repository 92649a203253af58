"""Warnings and exceptions seen from the user's side.

Every warning aucopt issues is attributed to the user's own line (the first frame outside the
aucopt package, :func:`aucopt.exceptions.warn`), whatever the depth of the call that raised it,
so that ``warnings.filterwarnings(..., module=...)``, ``pytest.warns`` and the printed location
point at the caller's code. Every exception and warning class is importable from ``aucopt``.
"""

from __future__ import annotations

import inspect
import warnings

import pytest
from conftest import make_small_binary, make_small_survival
from sklearn.exceptions import ConvergenceWarning

import aucopt
import aucopt.exceptions
from aucopt import AUCSVM, CoxPH, LPRanker, RankSVM, SolverWarning, SparseAUC, SurvivalRankSVM, survival_target
from aucopt.exceptions import warn


@pytest.fixture(scope="module")
def binary():
    return make_small_binary()


@pytest.fixture(scope="module")
def survival():
    X, event, time = make_small_survival()
    return X, survival_target(event, time)


def _assert_from_here(records, category, match=None):
    chosen = [r for r in records if issubclass(r.category, category)
              and (match is None or match in str(r.message))]
    assert chosen, f"no {category.__name__} among {[str(r.message) for r in records]}"
    for record in chosen:
        assert record.filename == __file__, (record.filename, str(record.message))
    return chosen


# ============================================================================ one per category
def test_solver_warning_from_a_time_limit_points_at_the_fit(binary):
    X, y = binary
    with pytest.warns(SolverWarning, match="time_limit") as rec:
        AUCSVM(C=1.0, solver="osqp", solver_options={"time_limit": 1e-9}).fit(X, y)
    assert rec[0].filename == __file__
    _assert_from_here(rec, SolverWarning)


def test_convergence_warning_from_max_iter_points_at_the_fit(binary):
    X, y = binary
    with pytest.warns(ConvergenceWarning, match="raise max_iter") as rec:
        RankSVM(alpha=1e-2, max_iter=1).fit(X, y)
    assert rec[0].filename == __file__


def test_lp_advice_for_osqp_points_at_the_fit(binary):
    X, y = binary
    with pytest.warns(SolverWarning) as rec:
        # the advice comes before the solve: a short iteration budget keeps the test quick
        LPRanker(C=1.0, solver="osqp", solver_options={"max_iter": 200}).fit(X, y)
    assert "OSQP is a first-order" in str(rec[0].message)
    assert rec[0].filename == __file__
    _assert_from_here(rec, SolverWarning)  # and the iteration-limit warning that may follow


# ============================================================================ every other site
@pytest.mark.parametrize(
    ("make", "category", "match"),
    [
        (lambda: LPRanker(C=1.0, max_iter=1, solver_options={"presolve": "off"}), SolverWarning, "iteration_limit"),
        (lambda: LPRanker(C=1.0, method="subgradient", max_iter=2), ConvergenceWarning, "subgradient"),
        (lambda: SparseAUC(C=1.0, kappa=20, max_iter=1), ConvergenceWarning, "Raise max_iter"),
    ],
    ids=["highs-iteration-limit", "lp-subgradient", "sparse-auc"],
)
def test_binary_warning_sites_point_at_the_fit(make, category, match, binary):
    X, y = binary
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        make().fit(X, y)
    _assert_from_here(rec, category, match)


@pytest.mark.parametrize(
    ("make", "category", "match"),
    [
        (lambda: SurvivalRankSVM(alpha=1e-2, max_iter=1), ConvergenceWarning, "Newton did not converge"),
        (lambda: CoxPH(alpha=0.0, max_iter=1), ConvergenceWarning, "Cox model did not converge"),
    ],
    ids=["survival-newton", "cox"],
)
def test_survival_warning_sites_point_at_the_fit(make, category, match, survival):
    X, y = survival
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        make().fit(X, y)
    _assert_from_here(rec, category, match)


def test_warning_from_solve_points_at_the_solve_call():
    """Called directly (not through an estimator), raise_for_status warns at the user's line too."""
    from sklearn.datasets import make_classification

    from aucopt import PairSet, get_formulation, kernel_matrix, solve
    X, y = make_classification(n_samples=30, n_features=4, random_state=0)
    problem = get_formulation("lp_ranker").build(PairSet.bipartite(y), kernel_matrix(X, gamma=0.5), C=1.0)
    result = solve(problem, "highs", max_iter=1, solver_options={"presolve": "off"})
    with pytest.warns(SolverWarning) as rec:
        result.raise_for_status()
    assert rec[0].filename == __file__


def test_module_filters_apply_to_the_users_module(binary):
    """A filter on the user's module (the attribution) turns the warning into an error."""
    X, y = binary
    with warnings.catch_warnings():
        warnings.filterwarnings("error", category=ConvergenceWarning, module=__name__)
        with pytest.raises(ConvergenceWarning):
            RankSVM(alpha=1e-2, max_iter=1).fit(X, y)


def _nested_user_helper(message):
    return warn(message, SolverWarning)


def test_helper_skips_only_aucopt_frames():
    with pytest.warns(SolverWarning) as rec:
        _nested_user_helper("from a user helper")
    assert rec[0].filename == __file__
    assert rec[0].lineno == inspect.getsourcelines(_nested_user_helper)[1] + 1


def test_no_fixed_stacklevel_left_in_the_package():
    """Every warning goes through aucopt.exceptions.warn (a fixed stacklevel is right at one depth only)."""
    import pathlib
    root = pathlib.Path(aucopt.__file__).parent
    offenders = []
    for path in root.rglob("*.py"):
        if path.name == "exceptions.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "warnings.warn(" in line or "warnings.warn_explicit(" in line or "stacklevel=" in line:
                offenders.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    assert not offenders, offenders


# ============================================================================ importable from aucopt
def test_every_exception_and_warning_class_is_importable_from_aucopt():
    classes = {name: obj for name, obj in vars(aucopt.exceptions).items()
               if inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == "aucopt.exceptions"}
    assert {"ProblemTooLargeError", "NoComparablePairsError", "SolverError", "SolverWarning"} <= set(classes)
    for name, cls in classes.items():
        assert getattr(aucopt, name) is cls
        assert name in aucopt.__all__
        assert name in aucopt.exceptions.__all__
