"""One contract over every public estimator of aucopt.

The estimators are collected from the package itself (every scikit-learn estimator class that a
public aucopt module exposes), so a new estimator is covered as soon as it has an entry in
:data:`ESTIMATORS`, and the completeness test fails until it has one. What is checked:

* binary rankers: scikit-learn's estimator checks (``parametrize_with_checks``), each expected
  failure with its reason, also configured for ordinal labels (``pair_options={"target":
  "multipartite"}``), with the multipartite contract (levels as ``classes_``, ``score`` is the
  multipartite C-index, no ``predict``, weights, zero weights, pickling, ``GridSearchCV``);
* survival rankers: the survival-target contract (structured ``(event, time)`` target, risk
  scores, ``score`` is Harrell's C, binary labels refused, no comparable pair refused, feature
  names, sparse input as the tags say), and every ``pair_options`` variant on dense and sparse X;
* every estimator: clone / ``get_params`` / ``set_params``, pickling, ``GridSearchCV``, silent fits,
  ``_parameter_constraints`` (declares exactly the constructor parameters; an invalid value of any
  of them is refused by ``fit`` before any work), the shared parameter vocabulary and the
  parameter table of ``docs/parameters.md``, and a literal numpydoc class docstring.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
import pickle
import pkgutil
import re
import subprocess
import sys
import textwrap
import warnings
from numbers import Integral
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import make_small_binary, make_small_survival
from reference import assert_expected_failures_are_real_checks, run_check
from sklearn.base import BaseEstimator, clone, is_classifier
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
from sklearn.utils._param_validation import (
    Interval,
    InvalidParameterError,
    generate_invalid_param_val,
    make_constraint,
)
from sklearn.utils.estimator_checks import parametrize_with_checks

import aucopt
from aucopt import PairSet, harrell_c, survival_target
from aucopt.exceptions import NoComparablePairsError

REPO = Path(__file__).resolve().parents[1]

# ============================================================================ the estimators
#: every public estimator: its target ("binary" or "survival") and the constructor arguments of a
#: small instance whose fit takes well under a second on ~60 samples
ESTIMATORS = {
    "LPRanker": ("binary", {"C": 1.0}),
    "SurvivalLPRanker": ("survival", {"C": 1.0}),
    "AUCSVM": ("binary", {"C": 1.0}),
    "SurvivalAUCSVM": ("survival", {"C": 1.0}),
    "RankSVM": ("binary", {"alpha": 1e-2}),
    "SurvivalRankSVM": ("survival", {"alpha": 1e-2}),
    "RankRC": ("binary", {"alpha": 1e-2}),
    "SurvivalRankRC": ("survival", {"alpha": 1e-2}),
    "SparseAUC": ("binary", {"C": 1.0, "kappa": 20}),  # 20 candidates per greedy step, not 100
    "SurvivalSparseAUC": ("survival", {"C": 1.0, "kappa": 20}),
    "OnePassAUC": ("binary", {"alpha": 1e-4}),
    "CoxPH": ("survival", {"alpha": 0.1}),
}

#: public scikit-learn estimator classes that are not estimators one can fit (base classes)
BASE_CLASSES = {"KernelPairRanker": "base class of the kernel-expansion rankers; subclasses implement _solve"}

#: one hyperparameter per estimator (survival twins use their binary estimator's) for GridSearchCV
GRID = {
    "LPRanker": ("C", [0.1, 1.0]),
    "AUCSVM": ("C", [0.1, 1.0]),
    "RankSVM": ("alpha", [1e-3, 1e-1]),
    "RankRC": ("alpha", [1e-2, 1.0]),
    "SparseAUC": ("C", [0.1, 1.0]),
    "OnePassAUC": ("alpha", [1e-4, 1e-2]),
    "CoxPH": ("alpha", [0.1, 1.0]),
}

#: parameter names replaced by the shared vocabulary (docs/parameters.md); none may come back
RETIRED_NAMES = {
    "lam": "alpha", "penalizer": "alpha", "norm": "loss", "eps": "epsilon", "progress": "verbose",
    "max_basis": "basis_size", "reduction": "method", "highs_options": "solver_options",
    "osqp_options": "solver_options",
}

NAMES = sorted(ESTIMATORS)
BINARY = [n for n in NAMES if ESTIMATORS[n][0] == "binary"]
SURVIVAL = [n for n in NAMES if ESTIMATORS[n][0] == "survival"]


def estimator_class(name: str) -> type:
    return getattr(aucopt, name)


def make_estimator(name: str, **overrides) -> BaseEstimator:
    """The small instance of ``name`` (with ``overrides`` applied)."""
    return estimator_class(name)(**{**ESTIMATORS[name][1], **overrides})


def constructor_parameters(cls) -> list[str]:
    return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]


def accepts_sparse(name: str) -> bool:
    return bool(estimator_class(name)().__sklearn_tags__().input_tags.sparse)


def grid_for(name: str):
    return GRID[name.removeprefix("Survival")]


def public_estimator_classes() -> dict[str, type]:
    """Every scikit-learn estimator class exposed by a public aucopt module, by name."""
    modules = [aucopt]
    for info in pkgutil.walk_packages(aucopt.__path__, "aucopt."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        modules.append(importlib.import_module(info.name))
    found = {}
    for module in modules:
        for attr in dir(module):
            obj = getattr(module, attr)
            if (not attr.startswith("_") and inspect.isclass(obj) and issubclass(obj, BaseEstimator)
                    and obj.__module__.startswith("aucopt")):
                found[obj.__name__] = obj
    return found


def _pair_weight(i, j, t_i, t_j, e_i, e_j):
    """A user pair weight: pairs whose later partner had an event count twice."""
    return 1.0 + np.asarray(e_j, dtype=float)


#: every survival pair variant an estimator's pair_options accepts
PAIR_OPTIONS = {
    "harrell": {},
    "lprex": {"variant": "lprex"},
    "lprex-censored-weight": {"variant": "lprex", "censored_weight": 0.25},
    "time-linear": {"time_weight": "linear"},
    "time-log": {"time_weight": "log"},
    "time-capped": {"time_weight": "capped"},
    "weights-callable": {"weights": _pair_weight},
}


@pytest.fixture(scope="module")
def survival_data():
    X, event, time = make_small_survival()
    return X, survival_target(event, time)


@pytest.fixture(scope="module")
def binary_data():
    return make_small_binary()


def data_for(name, binary_data, survival_data):
    return binary_data if ESTIMATORS[name][0] == "binary" else survival_data


#: SparseAUC on the 2-fold grid searches' small folds stops at its basis size limit, as it warns
SMALL_FOLDS = pytest.mark.filterwarnings("ignore:.*reached the basis size limit:sklearn.exceptions.ConvergenceWarning")


@pytest.fixture(scope="module")
def fitted(binary_data, survival_data, ordinal_data):
    """``fitted(name)``: the small instance of ``name`` fitted on its data (``multipartite=True``:
    configured for ordinal labels and fitted on ``ordinal_data``), fitted once per module and shared
    by the tests that only read it (predict, score, pickle); a test that fits, refits or changes an
    estimator makes its own. A test of determinism compares its own fit with this one."""
    cache = {}

    def get(name: str, multipartite: bool = False) -> BaseEstimator:
        if (name, multipartite) not in cache:
            if multipartite:
                cache[name, multipartite] = make_multipartite(name).fit(*ordinal_data)
            else:
                cache[name, multipartite] = make_estimator(name).fit(*data_for(name, binary_data, survival_data))
        return cache[name, multipartite]

    return get


# ============================================================================ the collection
def test_every_public_estimator_has_an_entry():
    found = public_estimator_classes()
    estimators = {n for n, cls in found.items() if n not in BASE_CLASSES}
    assert estimators == set(ESTIMATORS), (
        "public estimators without an entry in ESTIMATORS (add a small fast instance): "
        f"{sorted(estimators - set(ESTIMATORS))}; entries without an estimator: "
        f"{sorted(set(ESTIMATORS) - estimators)}"
    )
    for name in BASE_CLASSES:
        assert name in found, f"{name} is listed as a base class but is not public"
        assert not callable(getattr(found[name], "fit", None)), f"{name} can be fitted: give it an entry"


def test_every_estimator_is_exported_from_the_top_level():
    exported = {n for n in aucopt.__all__ if inspect.isclass(getattr(aucopt, n))}
    assert set(ESTIMATORS) <= exported


@pytest.mark.parametrize("name", NAMES)
def test_target_kind_matches_the_estimator(name):
    """Binary rankers are scikit-learn classifiers; survival rankers are not."""
    est = make_estimator(name)
    assert is_classifier(est) == (ESTIMATORS[name][0] == "binary")
    if ESTIMATORS[name][0] == "survival" and name != "CoxPH":
        binary_twin = name.removeprefix("Survival")
        assert binary_twin in ESTIMATORS, f"{name} has no binary estimator {binary_twin}"


@pytest.mark.parametrize("name", [n for n in BINARY if "Survival" + n in ESTIMATORS])
def test_survival_twins_take_the_same_parameters(name):
    """A survival twin takes its binary estimator's parameters but pos_label; both take pair_options."""
    twin = "Survival" + name
    binary = set(constructor_parameters(estimator_class(name)))
    survival = set(constructor_parameters(estimator_class(twin)))
    assert binary - {"pos_label"} == survival
    assert "pos_label" in binary and "pair_options" in binary and "pair_options" in survival


# ============================================================================ scikit-learn's checks
#: checks that cannot hold by design, with the reason; strict (an unexpectedly passing check fails
#: the run), so the list cannot go stale
EXPECTED_FAILED_CHECKS = {
    # The check compares weights in {0, ..., 4} with removed / repeated rows. A zero weight is the
    # same as removing the row for every estimator (test_zero_weight_is_removal below); what
    # fails is the repetition of rows, for the reasons given.
    "LPRanker": {
        "check_sample_weight_equivalence_on_dense_data": (
            "repeated rows change gamma='scale' (1/(d·Var(X)) over the rows, as in SVC, which "
            "scikit-learn xfails for the same reason); and even with a fixed gamma the LP's optimum "
            "is not unique on this data: the weighted and the repeated LP reach the same objective "
            "at different optimal vertices, i.e. different expansions"
        ),
        "check_sample_weight_equivalence_on_sparse_data": (
            "same as check_sample_weight_equivalence_on_dense_data (gamma='scale' over the rows, "
            "and a non-unique LP optimum)"
        ),
    },
    "AUCSVM": {
        "check_sample_weight_equivalence_on_dense_data": (
            "repeated rows change gamma='scale' (1/(d·Var(X)) over the rows, as in SVC); with a "
            "fixed gamma the check passes (the dual's expansion is unique) once the solver is held to "
            "the check's 1e-7 (tol=1e-10; the default tol=1e-6 leaves differences of 1e-7)"
        ),
        "check_sample_weight_equivalence_on_sparse_data": (
            "same as check_sample_weight_equivalence_on_dense_data (gamma='scale' over the rows)"
        ),
    },
    "RankRC": {
        "check_sample_weight_equivalence_on_dense_data": (
            "repeated rows change gamma='sigma2' (σ² is the mean pairwise squared distance over "
            "the rows); with a fixed gamma the check passes (a repeated basis row spans the same "
            "functions)"
        ),
        "check_sample_weight_equivalence_on_sparse_data": (
            "same as check_sample_weight_equivalence_on_dense_data (gamma='sigma2' over the rows)"
        ),
    },
    "SparseAUC": {
        "check_sample_weight_equivalence_on_dense_data": (
            "the greedy candidates, the validation split and gamma='sigma2' are drawn / computed "
            "over rows, so repeating a row changes them (and on the check's 15 rows the rows of "
            "positive weight are too few per class for validation_fraction=0.2)"
        ),
    },
    "OnePassAUC": {
        "check_sample_weight_equivalence_on_dense_data": (
            "the check shuffles the weighted rows but not the repeated ones, and a one-pass "
            "iterate depends on the order of the stream; a weight k equals the row repeated k "
            "times in place (tests/online: test_integer_weights_equal_repeated_rows)"
        ),
        "check_sample_weight_equivalence_on_sparse_data": (
            "same as check_sample_weight_equivalence_on_dense_data (the stream's order)"
        ),
    },
}


#: the pair options of a ranker of ordinal labels
MULTIPARTITE_OPTIONS = {"target": "multipartite"}

#: the binary rankers that also rank ordinal labels (pair_options target "multipartite"); OnePassAUC
#: keeps two class statistics and refuses them (test_binary_pair_options_are_checked)
MULTIPARTITE = [n for n in BINARY if "multipartite" in getattr(estimator_class(n), "_pair_targets", ())]

#: the multipartite-configured rankers that run scikit-learn's checks (the others share their code paths)
MULTIPARTITE_CHECKED = ["LPRanker", "RankSVM"]

#: checks whose assumptions do not hold for a ranker of ordinal levels; strict, as above
MULTIPARTITE_EXPECTED_FAILED_CHECKS = {
    "check_classifiers_train": (
        "the check predicts labels; a ranker fitted on multipartite pairs orders the samples and learns "
        "no cut points between the levels, so it has no predict (test_multipartite_contract checks the "
        "ranking: decision_function, the multipartite C-index)"
    ),
    "check_classifiers_classes": (
        "the check compares predicted labels with classes_; a ranker of ordinal levels has no predict "
        "(its classes_ are the levels, checked by test_multipartite_string_levels_in_their_order)"
    ),
    "check_classifier_data_not_an_array": (
        "the check compares predict on arrays and lists; a ranker of ordinal levels has no predict "
        "(decision_function is compared on both by test_multipartite_contract)"
    ),
    "check_supervised_y_2d": (
        "the check compares predict for a 1-d and a column y; a ranker of ordinal levels has no predict"
    ),
    "check_classifiers_regression_target": (
        "the check expects a continuous target to be refused; ordinal levels are any sortable labels, so "
        "a float target is the order of its distinct values and is ranked (its multipartite C-index is "
        "Harrell's C without censoring), as PairSet.multipartite and multipartite_c_index accept it"
    ),
}


def make_multipartite(name: str, **overrides) -> BaseEstimator:
    """The small instance of ``name`` configured for ordinal labels."""
    return make_estimator(name, pair_options=dict(MULTIPARTITE_OPTIONS), **overrides)


def _binary_check_instances():
    """The small instances for scikit-learn's checks, binary and multipartite (a constructor
    failure is reported by test_small_instance_constructs, not as an error collecting the whole
    module)."""
    instances = []
    for name in BINARY + [f"{n}-multipartite" for n in MULTIPARTITE_CHECKED]:
        try:
            if name.endswith("-multipartite"):
                instances.append(make_multipartite(name.removesuffix("-multipartite")))
            else:
                instances.append(make_estimator(name))
        except Exception:
            pass
    return instances


@pytest.mark.parametrize("name", NAMES)
def test_small_instance_constructs(name):
    est = make_estimator(name)
    assert est.get_params(deep=False) == {**estimator_class(name)().get_params(deep=False),
                                          **ESTIMATORS[name][1]}


def _ranks_levels(estimator) -> bool:
    return (estimator.get_params().get("pair_options") or {}).get("target") == "multipartite"


def _expected_failed_checks(estimator):
    expected = dict(EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {}))
    if _ranks_levels(estimator):
        expected.update(MULTIPARTITE_EXPECTED_FAILED_CHECKS)
    return expected


@parametrize_with_checks(_binary_check_instances(), expected_failed_checks=_expected_failed_checks,
                         xfail_strict=True)
def test_sklearn_estimator_checks(estimator, check):
    run_check(estimator, check, ignore_user_warnings=False)


@pytest.mark.parametrize("name", sorted(EXPECTED_FAILED_CHECKS))
def test_expected_failed_checks_name_real_checks(name):
    assert name in BINARY
    assert_expected_failures_are_real_checks(make_estimator(name), EXPECTED_FAILED_CHECKS[name])


@pytest.mark.parametrize("name", MULTIPARTITE_CHECKED, ids=lambda n: f"{n}-multipartite")
def test_expected_failed_checks_name_real_checks_multipartite(name):
    estimator = make_multipartite(name)
    assert_expected_failures_are_real_checks(estimator, _expected_failed_checks(estimator))


@pytest.mark.parametrize("name", BINARY)
def test_binary_estimators_refuse_a_survival_target(name, survival_data):
    X, y = survival_data
    with pytest.raises(ValueError, match=r"(?i)survival|binary"):
        make_estimator(name).fit(X, y)


# ============================================================================ multipartite contract
def make_small_ordinal(n_samples: int = 60, n_features: int = 5, seed: int = 0):
    """Four ordinal levels (15 samples each) of a noisy linear score; a third of X exactly zero."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features))
    X[np.abs(X) < 0.4] = 0.0
    latent = X @ np.r_[1.0, -0.7, 0.5, np.zeros(n_features - 3)] + 0.5 * rng.normal(size=n_samples)
    y = np.searchsorted(np.quantile(latent, [0.25, 0.5, 0.75]), latent)
    return X, y


@pytest.fixture(scope="module")
def ordinal_data():
    return make_small_ordinal()


def brute_c_index(y, f, w=None):
    """Σ over all pairs with y_i > y_j of w_i w_j ([f_i > f_j] + ½ [f_i == f_j]) / Σ w_i w_j."""
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    above = y[:, None] > y[None, :]
    weight = np.outer(w, w) * above
    credit = (f[:, None] > f[None, :]) + 0.5 * (f[:, None] == f[None, :])
    return float((weight * credit).sum() / weight.sum())


def _fitting_rows(est, n):
    rows = getattr(est, "train_indices_", None)  # estimators holding out validation rows
    return np.arange(n) if rows is None else np.sort(rows)


MULTIPARTITE_IDS = [f"{n}-multipartite" for n in MULTIPARTITE]


@pytest.mark.parametrize("name", MULTIPARTITE, ids=MULTIPARTITE_IDS)
def test_multipartite_contract(name, ordinal_data, fitted):
    """Ordinal labels: the multipartite pairs, the levels as classes_, scores that rank the levels,
    score = the multipartite C-index, and no predict (a ranker learns no cut points)."""
    X, y = ordinal_data
    est = make_multipartite(name)
    assert is_classifier(est) and est.__sklearn_tags__().classifier_tags.multi_class
    assert not hasattr(est, "predict")  # before fit, from pair_options
    assert est.fit(X, y) is est
    np.testing.assert_array_equal(est.classes_, [0, 1, 2, 3])
    assert est.pair_target_ == "multipartite"
    assert est.n_pairs_ == PairSet.multipartite(y[_fitting_rows(est, len(y))]).n_pairs
    f = est.decision_function(X)
    assert f.shape == (len(y),) and np.all(np.isfinite(f))
    assert est.score(X, y) == pytest.approx(aucopt.metrics.multipartite_c_index(y, f), abs=1e-12)
    assert aucopt.metrics.multipartite_c_index(y, f, tied_tol=0) == pytest.approx(brute_c_index(y, f), abs=1e-12)
    assert est.score(X, y) > 0.75  # the levels follow a linear score
    np.testing.assert_array_equal(est.decision_function(X.tolist()), f)  # lists as arrays
    assert not hasattr(est, "predict")
    with pytest.raises(AttributeError, match="ranks ordinal levels and has no predict"):
        est.predict(X)
    for binary_only in ("pos_label_", "threshold_", "intercept_"):
        assert not hasattr(est, binary_only)
    assert fitted(name, multipartite=True) is not est
    np.testing.assert_array_equal(fitted(name, multipartite=True).decision_function(X), f)  # deterministic


@pytest.mark.parametrize("name", MULTIPARTITE, ids=MULTIPARTITE_IDS)
def test_multipartite_weighted_score_and_zero_weights(name, ordinal_data, fitted):
    """score(X, y, w) is the weighted multipartite C-index (pairs weigh w_i w_j); a zero weight
    removes the row from the fit."""
    X, y = ordinal_data
    est = fitted(name, multipartite=True)
    rng = np.random.default_rng(1)
    shuffled = X[rng.permutation(len(y))]
    f = est.decision_function(shuffled)
    w = rng.integers(0, 4, len(y))
    rows = np.repeat(np.arange(len(y)), w)
    weighted = est.score(shuffled, y, sample_weight=w)
    assert weighted == pytest.approx(aucopt.metrics.multipartite_c_index(y, f, sample_weight=w), abs=1e-12)
    assert weighted == pytest.approx(aucopt.metrics.multipartite_c_index(y[rows], f[rows]), abs=1e-12)
    # without the tie tolerance (scores of a kernel expansion far from its support tie within
    # 1e-8 · max|score|), exactly the brute-force weighted count
    assert aucopt.metrics.multipartite_c_index(y, f, sample_weight=w, tied_tol=0) == pytest.approx(
        brute_c_index(y, f, w), abs=1e-12)
    w = _zero_mask(len(y))
    keep = np.flatnonzero(w > 0)
    weighted = make_multipartite(name).fit(X, y, sample_weight=w)
    removed = make_multipartite(name).fit(X[keep], y[keep], sample_weight=w[keep])
    np.testing.assert_allclose(weighted.decision_function(X), removed.decision_function(X), rtol=1e-8, atol=1e-8)
    assert weighted.n_pairs_ == removed.n_pairs_


@SMALL_FOLDS
@pytest.mark.parametrize("name", MULTIPARTITE, ids=MULTIPARTITE_IDS)
def test_multipartite_clone_pickle_and_grid_search(name, ordinal_data, fitted):
    X, y = ordinal_data
    est = make_multipartite(name)
    assert clone(est).get_params(deep=False) == est.get_params(deep=False)
    est = fitted(name, multipartite=True)
    restored = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(restored.decision_function(X), est.decision_function(X))
    assert restored.score(X, y) == est.score(X, y)
    assert not hasattr(restored, "predict")
    param, values = grid_for(name)
    cv = StratifiedKFold(2, shuffle=True, random_state=0)  # stratified by level
    search = GridSearchCV(make_multipartite(name), {param: values}, cv=cv).fit(X, y)
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    train, test = next(iter(cv.split(X, y)))
    best = search.cv_results_["params"].index(search.best_params_)
    fold = make_multipartite(name, **search.best_params_).fit(X[train], y[train])
    assert search.cv_results_["split0_test_score"][best] == pytest.approx(fold.score(X[test], y[test]), abs=1e-10)
    assert search.best_estimator_.score(X, y) > 0.75


@pytest.mark.parametrize("name", MULTIPARTITE, ids=MULTIPARTITE_IDS)
def test_multipartite_string_levels_in_their_order(name, ordinal_data, fitted):
    """pair_options["levels"] orders labels whose sorted order is not the intended one."""
    X, y = ordinal_data
    levels = ["none", "mild", "moderate", "severe"]  # sorted: mild, moderate, none, severe
    words = np.array(levels)[y]
    est = make_estimator(name, pair_options={"target": "multipartite", "levels": levels}).fit(X, words)
    np.testing.assert_array_equal(est.classes_, levels)
    coded = fitted(name, multipartite=True)
    np.testing.assert_allclose(est.decision_function(X), coded.decision_function(X), rtol=1e-10, atol=1e-12)
    assert est.score(X, words) == pytest.approx(coded.score(X, y), abs=1e-12)
    assert est.score(X, words) != pytest.approx(aucopt.metrics.multipartite_c_index(words, est.decision_function(X)))


@pytest.mark.parametrize("name", [n for n in MULTIPARTITE if accepts_sparse(n)],
                         ids=[f"{n}-multipartite" for n in MULTIPARTITE if accepts_sparse(n)])
def test_multipartite_sparse_input(name, ordinal_data, fitted):
    X, y = ordinal_data
    dense = fitted(name, multipartite=True).decision_function(X)
    for fmt in (sp.csr_matrix, sp.csc_matrix):
        scores = make_multipartite(name).fit(fmt(X), y).decision_function(fmt(X))
        np.testing.assert_allclose(scores, dense, rtol=1e-6, atol=1e-8 * max(1.0, np.abs(dense).max()))


@pytest.mark.parametrize("name", MULTIPARTITE, ids=MULTIPARTITE_IDS)
def test_multipartite_and_binary_refits_switch_cleanly(name, ordinal_data, binary_data):
    """set_params between the targets: each fit leaves exactly its own attributes."""
    X, y = ordinal_data
    est = make_estimator(name).fit(*binary_data)
    assert hasattr(est, "threshold_") and hasattr(est, "predict")
    est.set_params(pair_options=dict(MULTIPARTITE_OPTIONS)).fit(X, y)
    assert not hasattr(est, "threshold_") and not hasattr(est, "predict")
    est.set_params(pair_options=None).fit(*binary_data)
    assert est.predict(binary_data[0]).shape == (len(binary_data[1]),)
    X, y = binary_data
    assert est.score(X, y) == pytest.approx(aucopt.roc_auc(y, est.decision_function(X)))


@pytest.mark.parametrize("name", BINARY)
def test_binary_pair_options_are_checked(name, ordinal_data, binary_data, fitted):
    """One vocabulary with the survival estimators: unknown keys and targets are named; the ordinal
    options do not mix with the binary ones; the default (and {"target": "bipartite"}) is unchanged."""
    X, y = ordinal_data
    with pytest.raises(ValueError, match=r"pair_options \['variant'\] unknown; valid: \['target', 'levels'\]"):
        make_estimator(name, pair_options={"variant": "lprex"}).fit(X, y)
    with pytest.raises(ValueError, match=rf"'survival': {name} ranks .*Use Survival{name}"):
        make_estimator(name, pair_options={"target": "survival"}).fit(X, y)
    with pytest.raises(ValueError, match=r"pair_options\['levels'\] orders the levels of ordinal labels"):
        make_estimator(name, pair_options={"levels": [0, 1]}).fit(*binary_data)
    with pytest.raises(ValueError, match=r"Only binary classification is supported"):
        make_estimator(name).fit(X, y)  # four levels without the multipartite target
    default = fitted(name).decision_function(binary_data[0])
    explicit = make_estimator(name, pair_options={"target": "bipartite"}).fit(*binary_data)
    np.testing.assert_array_equal(explicit.decision_function(binary_data[0]), default)
    if name in MULTIPARTITE:
        with pytest.raises(ValueError, match="pos_label=3 names the positive class of binary labels"):
            make_multipartite(name, pos_label=3).fit(X, y)
    else:  # the estimator's state is two class statistics
        with pytest.raises(ValueError, match=rf"'multipartite': {name} ranks 'bipartite' pairs\. .*two classes"):
            make_multipartite(name).fit(X, y)


@pytest.mark.parametrize("name", [n for n in NAMES if n.startswith("Survival")])
def test_survival_pair_options_take_the_target_key(name, survival_data, fitted):
    """The key "target" of the shared vocabulary: "survival" is the survival estimators' one target."""
    X, y = survival_data
    same = make_estimator(name, pair_options={"target": "survival"}).fit(X, y).predict(X)
    np.testing.assert_array_equal(same, fitted(name).predict(X))
    with pytest.raises(ValueError, match=rf"'multipartite': {name} ranks 'survival' pairs\. Use "
                                         rf"{name.removeprefix('Survival')}\(pair_options="):
        make_estimator(name, pair_options={"target": "multipartite"}).fit(X, y)


# ============================================================================ survival contract
@pytest.mark.parametrize("name", SURVIVAL)
def test_survival_fit_predict_score(name, survival_data, fitted):
    X, y = survival_data
    est = make_estimator(name)
    assert est.fit(X, y) is est
    risk = est.predict(X)
    assert isinstance(risk, np.ndarray) and risk.shape == (len(y),)
    assert np.all(np.isfinite(risk))
    assert est.score(X, y) == pytest.approx(harrell_c(y, risk), abs=1e-12)
    assert est.score(X, y) > 0.6  # the data follow a proportional-hazards model in 3 features
    assert est.n_features_in_ == X.shape[1]
    if "max_iter" in est.get_params():
        assert isinstance(est.n_iter_, (int, np.integer)) and est.n_iter_ >= 1
    refit = fitted(name)  # another fit of the same instance on the same data
    assert refit is not est
    np.testing.assert_array_equal(refit.predict(X), risk)  # deterministic


@pytest.mark.parametrize("name", SURVIVAL)
def test_survival_target_field_names_and_order_are_free(name, survival_data, fitted):
    """scikit-survival's data sets name the fields freely (e.g. ('Status', 'Survival_in_days'))
    and may put the time first: the boolean field is the event, the other the time."""
    X, y = survival_data
    event_name, time_name = y.dtype.names
    renamed = np.empty(len(y), dtype=[("Survival_in_days", float), ("Status", bool)])
    renamed["Survival_in_days"], renamed["Status"] = y[time_name], y[event_name]
    expected = fitted(name).predict(X)
    np.testing.assert_allclose(make_estimator(name).fit(X, renamed).predict(X), expected,
                               rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", SURVIVAL)
def test_survival_estimators_refuse_binary_labels(name, survival_data, binary_data):
    X, _ = survival_data
    y01 = binary_data[1][: len(X)]
    with pytest.raises(ValueError, match=r"(?i)survival target"):
        make_estimator(name).fit(X, y01)


@pytest.mark.parametrize("case", ["all-censored", "only-the-last-time-is-an-event"])
@pytest.mark.parametrize("name", SURVIVAL)
def test_survival_target_without_comparable_pairs(name, case, survival_data):
    X, y = survival_data
    time = y[y.dtype.names[1]]
    event = np.zeros(len(y), bool)
    if case == "only-the-last-time-is-an-event":
        event[np.argmax(time)] = True  # times are distinct: no later time to compare with
    with pytest.raises(NoComparablePairsError):
        make_estimator(name).fit(X, survival_target(event, time))


@pytest.mark.parametrize("name", SURVIVAL)
def test_survival_unfitted_predict_raises(name, survival_data):
    with pytest.raises(NotFittedError):
        make_estimator(name).predict(survival_data[0])


@pytest.mark.parametrize("name", SURVIVAL)
def test_survival_feature_names_from_a_data_frame(name, survival_data, fitted):
    pd = pytest.importorskip("pandas")
    X, y = survival_data
    columns = [f"marker_{k}" for k in range(X.shape[1])]
    frame = pd.DataFrame(X, columns=columns)
    est = make_estimator(name).fit(frame, y)
    assert est.n_features_in_ == X.shape[1]
    np.testing.assert_array_equal(est.feature_names_in_, columns)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # no feature-name mismatch warning
        risk = est.predict(frame)
    np.testing.assert_allclose(risk, fitted(name).predict(X), rtol=1e-10, atol=1e-12)
    assert not hasattr(fitted(name), "feature_names_in_")


@pytest.mark.parametrize("name", SURVIVAL)
def test_survival_sparse_input_as_the_tags_say(name, survival_data, fitted):
    X, y = survival_data
    est = make_estimator(name)
    if not accepts_sparse(name):
        with pytest.raises((TypeError, ValueError), match=r"(?i)sparse"):
            est.fit(sp.csr_matrix(X), y)
        return
    dense = fitted(name).predict(X)
    for fmt in (sp.csr_matrix, sp.csc_matrix):
        risk = est.fit(fmt(X), y).predict(fmt(X))
        np.testing.assert_allclose(risk, dense, rtol=1e-6, atol=1e-8 * max(1.0, np.abs(dense).max()))


# ----------------------------------------------------------------------------- pair_options
PAIR_ESTIMATORS = [n for n in SURVIVAL if "pair_options" in constructor_parameters(estimator_class(n))]


def _variant_cases():
    cases = []
    for name in PAIR_ESTIMATORS:
        formats = ["dense", "sparse"] if accepts_sparse(name) else ["dense"]
        for variant in PAIR_OPTIONS:
            for fmt in formats:
                cases.append(pytest.param(name, variant, fmt, id=f"{name}-{variant}-{fmt}"))
    return cases


@pytest.mark.parametrize(("name", "variant", "fmt"), _variant_cases())
def test_every_pair_variant_fits_and_scores(name, variant, fmt, survival_data):
    X, y = survival_data
    options = PAIR_OPTIONS[variant]
    Xf = sp.csr_matrix(X) if fmt == "sparse" else X
    est = make_estimator(name, pair_options=options).fit(Xf, y)
    risk = est.predict(Xf)
    assert risk.shape == (len(y),) and np.all(np.isfinite(risk))
    assert est.score(Xf, y) == pytest.approx(harrell_c(y, risk), abs=1e-12)
    assert est.get_params()["pair_options"] is options  # stored unchanged
    # the options reached the pair set: the estimator fitted on exactly their pairs
    rows = getattr(est, "train_indices_", None)  # estimators holding out validation rows
    y_fit = y if rows is None else y[np.sort(rows)]
    assert est.n_pairs_ == PairSet.survival(y_fit, **options).n_pairs


@pytest.mark.parametrize("name", PAIR_ESTIMATORS)
def test_pair_options_are_checked(name, survival_data):
    X, y = survival_data
    with pytest.raises(ValueError, match="variant"):
        make_estimator(name, pair_options={"variant": "all-pairs"}).fit(X, y)
    with pytest.raises(ValueError, match="typo_weight"):
        make_estimator(name, pair_options={"typo_weight": "log"}).fit(X, y)


def test_survival_sparse_auc_lprex_regression(survival_data):
    """Reported crash: SurvivalSparseAUC(pair_options={"variant": "lprex"}).fit(X, y) raised
    AttributeError ... 'pos_label' (the estimator dispatched on how the pairs were stored)."""
    X, y = survival_data
    est = aucopt.SurvivalSparseAUC(pair_options={"variant": "lprex"}).fit(X, y)
    risk = est.predict(X)
    assert risk.shape == (len(y),) and np.all(np.isfinite(risk))
    assert est.score(X, y) == pytest.approx(harrell_c(y, risk), abs=1e-12)
    rows = np.sort(est.train_indices_)  # the rows left after the validation split
    assert est.n_pairs_ == PairSet.survival(y[rows], variant="lprex").n_pairs


# ============================================================================ every estimator
@pytest.mark.parametrize("name", NAMES)
def test_clone_get_params_set_params_roundtrip(name):
    est = make_estimator(name)
    params = est.get_params(deep=False)
    assert set(params) == set(constructor_parameters(type(est)))
    for key, value in ESTIMATORS[name][1].items():
        assert params[key] is value  # stored unchanged
    cloned = clone(est)
    assert cloned is not est and cloned.get_params(deep=False) == params
    param, values = grid_for(name)
    assert cloned.set_params(**{param: values[0]}) is cloned
    assert cloned.get_params()[param] == values[0]
    assert est.get_params()[param] == params[param]  # the original is untouched
    assert type(est)().set_params(**params).get_params(deep=False) == params
    repr(est)


@pytest.mark.parametrize("name", NAMES)
def test_pickle_roundtrip_predicts_identically(name, binary_data, survival_data, fitted):
    X, y = data_for(name, binary_data, survival_data)
    est = fitted(name)
    restored = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(restored.predict(X), est.predict(X))
    if hasattr(est, "decision_function"):
        np.testing.assert_array_equal(restored.decision_function(X), est.decision_function(X))
    assert restored.score(X, y) == est.score(X, y)


@SMALL_FOLDS
@pytest.mark.parametrize("name", NAMES)
def test_grid_search_over_one_parameter(name, binary_data, survival_data):
    X, y = data_for(name, binary_data, survival_data)
    param, values = grid_for(name)
    cv = (StratifiedKFold(2, shuffle=True, random_state=0) if ESTIMATORS[name][0] == "binary"
          else KFold(2, shuffle=True, random_state=0))
    search = GridSearchCV(make_estimator(name), {param: values}, cv=cv).fit(X, y)
    scores = search.cv_results_["mean_test_score"]
    assert len(scores) == len(values) and np.all(np.isfinite(scores))
    assert search.best_params_[param] in values
    # the search's score of a fold is the estimator's own score there
    train, test = next(iter(cv.split(X, y)))
    best = search.cv_results_["params"].index(search.best_params_)
    fold = make_estimator(name, **search.best_params_).fit(X[train], y[train])
    assert search.cv_results_["split0_test_score"][best] == pytest.approx(fold.score(X[test], y[test]),
                                                                          abs=1e-10)
    assert search.best_estimator_.get_params()[param] == search.best_params_[param]


def test_fitting_with_default_verbosity_prints_nothing():
    """verbose=0 (the default) is silent, backends included; in a fresh process so that a
    backend banner printed once per process cannot hide behind an earlier test."""
    code = textwrap.dedent(f"""
        import warnings
        warnings.simplefilter("ignore")
        import aucopt
        from conftest import make_small_binary, make_small_survival
        X, y = make_small_binary()
        Xs, event, time = make_small_survival()
        ys = aucopt.survival_target(event, time)
        for name, (kind, kwargs) in {ESTIMATORS!r}.items():
            est = getattr(aucopt, name)(**kwargs)
            if kind == "binary":
                est.fit(X, y).predict(X)
            else:
                est.fit(Xs, ys).predict(Xs)
    """)
    done = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).parent, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout == "", f"fits with the default verbose printed:\n{done.stdout[:2000]}"
    assert done.stderr == "", f"fits with the default verbose printed:\n{done.stderr[:2000]}"


# ----------------------------------------------------------------------------- parameter validation
@pytest.mark.parametrize("name", NAMES)
def test_parameter_constraints_declare_exactly_the_constructor_parameters(name):
    cls = estimator_class(name)
    declared = getattr(cls, "_parameter_constraints", None)
    assert isinstance(declared, dict), f"{name} has no _parameter_constraints dict"
    params = set(constructor_parameters(cls))
    assert set(declared) == params, (
        f"{name}: undeclared {sorted(params - set(declared))}, "
        f"declared but not parameters {sorted(set(declared) - params)}"
    )
    unchecked = sorted(p for p, c in declared.items() if c == "no_validation")
    assert not unchecked, f"{name} does not validate {unchecked}"
    # the defaults themselves are valid
    for param, default in cls().get_params(deep=False).items():
        constraints = [make_constraint(c) for c in declared[param]]
        assert any(c.is_satisfied_by(default) for c in constraints), (
            f"{name}'s default {param}={default!r} violates its own constraint {declared[param]}"
        )


def _invalid_parameter_cases():
    cases = []
    for name in NAMES:
        try:
            params = constructor_parameters(estimator_class(name))
        except Exception:
            continue
        for param in params:
            cases.append(pytest.param(name, param, id=f"{name}-{param}"))
    return cases


def _invalid_values(constraints):
    """A value of no accepted type, and values of an accepted type outside the accepted range."""
    values = [type("BadType", (), {})()]
    made = [make_constraint(c) for c in constraints]
    for constraint in made:
        candidates = []
        with contextlib.suppress(NotImplementedError):
            candidates.append(generate_invalid_param_val(constraint))  # beyond the left bound
        if isinstance(constraint, Interval) and constraint.right is not None:  # beyond the right bound
            candidates.append(constraint.right + (1 if constraint.type is Integral else 1e-6))
        values += [v for v in candidates if not any(c.is_satisfied_by(v) for c in made)]
    return values


@pytest.mark.parametrize(("name", "param"), _invalid_parameter_cases())
def test_invalid_parameter_value_is_refused_before_any_work(name, param, binary_data, survival_data):
    """``fit`` checks every parameter first: with an invalid value it raises scikit-learn's
    InvalidParameterError even when X and y are themselves unusable (so nothing ran before)."""
    cls = estimator_class(name)
    constraints = cls._parameter_constraints[param]
    if constraints == "no_validation":
        pytest.fail(f"{name}.{param} is not validated")
    X, y = data_for(name, binary_data, survival_data)
    wrong_y = survival_data[1] if ESTIMATORS[name][0] == "binary" else binary_data[1]
    X_nan = np.full_like(X, np.nan)
    message = rf"The '{param}' parameter of {name} must be .* Got .* instead\."
    for value in _invalid_values(constraints):
        est = make_estimator(name).set_params(**{param: value})
        with pytest.raises(InvalidParameterError, match=message):
            est.fit(X, y)
        with pytest.raises(InvalidParameterError, match=message):
            est.fit(X_nan, wrong_y)


# ----------------------------------------------------------------------------- one vocabulary
@pytest.mark.parametrize("name", NAMES)
def test_no_retired_parameter_names(name):
    params = set(constructor_parameters(estimator_class(name)))
    retired = {p: RETIRED_NAMES[p] for p in params & set(RETIRED_NAMES)}
    assert not retired, f"{name} still uses retired names (old -> new): {retired}"


def _class_docstring(cls) -> str:
    """The class's own docstring, required to be a literal (not built by code) except for its
    ``{{name}}`` lines, which :func:`aucopt._docstrings.fill_doc` fills with shared parts."""
    source = textwrap.dedent(inspect.getsource(cls))
    node = ast.parse(source).body[0]
    literal = ast.get_docstring(node, clean=True)
    assert literal, f"{cls.__name__} has no literal docstring (a docstring built by code does not count)"
    rendered = inspect.cleandoc(cls.__doc__ or "")
    pattern = "\n".join(r"[\s\S]*?" if re.fullmatch(r"\s*\{\{\w+\}\}\s*", line) else re.escape(line)
                        for line in literal.splitlines())
    assert re.fullmatch(pattern, rendered), f"{cls.__name__}.__doc__ is replaced after the class"
    return rendered


def _numpydoc_sections(doc: str) -> dict[str, str]:
    sections, current, lines = {}, None, doc.splitlines()
    for k, line in enumerate(lines):
        if k + 1 < len(lines) and re.fullmatch(r"-{3,}", lines[k + 1].strip()) and line.strip():
            current = line.strip()
            sections[current] = ""
        elif current is not None and not re.fullmatch(r"-{3,}", line.strip()):
            sections[current] += line + "\n"
    return sections


def _documented_parameters(doc: str) -> dict[str, str]:
    """``{name: type and description}`` of a numpydoc Parameters section."""
    entries, current = {}, None
    for line in _numpydoc_sections(doc).get("Parameters", "").splitlines():
        head = re.match(r"^(\*{0,2}[A-Za-z_][\w, *]*?) :(.*)$", line)
        if head and not line.startswith(" "):
            current = [n.strip().lstrip("*") for n in head.group(1).split(",")]
            for n in current:
                entries[n] = head.group(2).strip() + "\n"
        elif current is not None:
            for n in current:
                entries[n] += line.strip() + "\n"
    return entries


@pytest.mark.parametrize("name", NAMES)
def test_class_docstring_is_literal_numpydoc(name):
    cls = estimator_class(name)
    doc = _class_docstring(cls)
    sections = _numpydoc_sections(doc)
    missing = [s for s in ("Parameters", "Attributes", "See Also", "References", "Examples") if s not in sections]
    assert not missing, f"{name}'s docstring lacks the sections {missing}"
    documented = _documented_parameters(doc)
    undocumented = [p for p in constructor_parameters(cls) if p not in documented]
    assert not undocumented, f"{name}'s docstring does not document {undocumented}"
    assert ">>>" in sections["Examples"]


@pytest.mark.parametrize("name", [n for n in NAMES if "tol" in constructor_parameters(estimator_class(n))])
def test_tol_is_documented_as_a_stopping_tolerance(name):
    description = _documented_parameters(_class_docstring(estimator_class(name))).get("tol", "")
    assert re.search(r"(?i)\bstop", description), (
        f"{name}'s tol must be documented as the stopping tolerance; got {description!r}"
    )


def _parameter_table():
    """The "Where each parameter appears" table of docs/parameters.md: rows of
    ``(parameter names, {column: cell})``."""
    text = (REPO / "docs" / "parameters.md").read_text(encoding="utf-8")
    start = text.index("## Where each parameter appears")
    lines = [ln.strip() for ln in text[start:].splitlines() if ln.strip().startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = []
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) != len(header):
            break
        names = re.findall(r"`([^`]+)`", cells[0])
        rows.append((names, dict(zip(header[1:], cells[1:], strict=False))))
    assert rows and header[0] == "parameter", "docs/parameters.md: parameter table not found"
    return rows


def test_parameter_table_of_the_docs_matches_the_estimators():
    """A mark in the table means the estimator (and its survival twin, except for pos_label /
    pair_options) has the parameter; an empty cell that it has not; listed option values are
    exactly the accepted strings."""
    problems = []
    for names, cells in _parameter_table():
        for column, cell in cells.items():
            assert column in ESTIMATORS, f"docs/parameters.md: unknown estimator column {column}"
            targets = {"binary": [column], "survival": []}
            twin = "Survival" + column
            if twin in ESTIMATORS:
                targets["survival"] = [twin]
            if cell == "binary":
                having = targets["binary"]
            elif cell == "survival":
                having = targets["survival"]
            elif cell:
                having = targets["binary"] + targets["survival"]
            else:
                having = []
            listed = set(re.findall(r"`([^`]+)`", cell))
            for est_name in targets["binary"] + targets["survival"]:
                params = set(constructor_parameters(estimator_class(est_name)))
                for param in names:
                    expected = est_name in having and (not listed or param in listed)
                    if (param in params) != expected:
                        problems.append(f"{est_name}.{param}: table says {'yes' if expected else 'no'}")
                options = [w for w in re.split(r"[,\s]+", cell.replace("✓", "")) if w and not listed]
                if options and expected and len(names) == 1 and cell not in ("binary", "survival"):
                    constraint = estimator_class(est_name)._parameter_constraints.get(names[0], [])
                    accepted = set().union(*[getattr(make_constraint(c), "options", set()) for c in constraint])
                    if set(options) != accepted:
                        problems.append(f"{est_name}.{names[0]}: table lists {sorted(options)}, "
                                        f"constraints accept {sorted(accepted)}")
    assert not problems, "docs/parameters.md disagrees with the estimators:\n" + "\n".join(problems)


def test_parameter_table_of_the_docs_lists_every_parameter():
    """Every constructor parameter of every public estimator has a row in the table."""
    listed = {name for names, _ in _parameter_table() for name in names}
    missing = sorted({f"{est}.{param}" for est in NAMES
                      for param in constructor_parameters(estimator_class(est)) if param not in listed})
    assert not missing, f"docs/parameters.md has no row for: {missing}"


def test_no_internal_note_names_in_the_product():
    """The product cites papers, never the names of internal notes."""
    pattern = re.compile(r"seed ?0|spec §|pitfall|erratum", re.IGNORECASE)
    files = [REPO / "README.md"]
    for folder in ("aucopt", "formulations", "docs"):
        files += [p for p in (REPO / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    hits = [f"{p.relative_to(REPO)}:{k}: {line.strip()[:80]}"
            for p in files
            for k, line in enumerate(p.read_text(encoding="utf-8", errors="ignore").splitlines(), 1)
            if pattern.search(line)]
    assert not hits, f"{len(hits)} mention(s) of internal notes:\n" + "\n".join(hits[:30])


# ----------------------------------------------------------------------------- formulations
def _formulation_modules():
    import aucopt.formulations as formulations

    return sorted(info.name for info in pkgutil.iter_modules(formulations.__path__, "aucopt.formulations."))


@pytest.mark.parametrize("module_name", _formulation_modules())
def test_formulation_doctests(module_name):
    """The shipped formulations' doctests, run once under their installed name
    (pytest's --doctest-modules does not collect the top-level formulations/ folder: importing
    it a second time under another name would register every formulation twice)."""
    import doctest

    module = importlib.import_module(module_name)
    assert (module.__doc__ or "").strip(), f"{module_name} has no docstring (shown by `aucopt formulations`)"
    flags = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    result = doctest.testmod(module, optionflags=flags, verbose=False, report=False)
    assert result.failed == 0, f"{result.failed} doctest failure(s) in {module_name}"


def test_every_public_name_has_a_numpydoc_docstring_with_an_example():
    """Each class and function in a public module's ``__all__`` documents itself with a literal
    docstring that has an Examples section (run by ``--doctest-modules``)."""
    modules = ["aucopt"] + [info.name for info in pkgutil.walk_packages(aucopt.__path__, "aucopt.")
                            if not any(part.startswith("_") for part in info.name.split("."))]
    lacking = []
    for module_name in modules:
        module = importlib.import_module(module_name)
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                doc = inspect.getdoc(obj) or ""
                if "Examples\n--------" not in doc:
                    lacking.append(f"{module_name}.{attr}")
    assert not lacking, f"public names without a numpydoc Examples section: {sorted(set(lacking))}"


# ============================================================================ weights, labels, score ties
WEIGHTED = [n for n in NAMES if "sample_weight" in inspect.signature(estimator_class(n).fit).parameters]


@pytest.mark.parametrize("name", WEIGHTED)
def test_scalar_sample_weight_means_every_sample_has_that_weight(name, binary_data, survival_data, fitted):
    X, y = data_for(name, binary_data, survival_data)
    by_scalar = make_estimator(name).fit(X, y, sample_weight=2.0).decision_function(X)
    by_array = make_estimator(name).fit(X, y, sample_weight=np.full(X.shape[0], 2.0)).decision_function(X)
    np.testing.assert_allclose(by_scalar, by_array, rtol=1e-10, atol=1e-12)
    ones = make_estimator(name).fit(X, y, sample_weight=1).decision_function(X)
    np.testing.assert_allclose(ones, fitted(name).decision_function(X), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", WEIGHTED)
@pytest.mark.parametrize(
    ("weight", "match"),
    [(-1.0, "sample_weight must be non-negative"),
     ("heavy", "sample_weight must be a number"),
     ([1.0, 2.0], r"Inconsistent numbers of samples \(sample_weight: 2"),
     (np.nan, "sample_weight contains 1"),
     (1e160, r"sample_weight reaches 1e\+160 .* overflow float64\. Rescale sample_weight")],
)
def test_weight_errors_name_sample_weight(name, weight, match, binary_data, survival_data):
    X, y = data_for(name, binary_data, survival_data)
    if isinstance(weight, float) and not np.isfinite(weight):
        weight = np.r_[weight, np.ones(X.shape[0] - 1)]
    with pytest.raises(ValueError, match=match) as info:
        make_estimator(name).fit(X, y, sample_weight=weight)
    assert "point_weights" not in str(info.value)


@pytest.mark.parametrize("name", WEIGHTED)
def test_overflowing_sample_weight_is_refused_before_any_work(name, binary_data, survival_data, monkeypatch):
    """Weights whose pair products overflow would give NaN objectives reported as optimal."""
    X, y = data_for(name, binary_data, survival_data)
    est = make_estimator(name)
    monkeypatch.setattr(type(est), "_make_pairs", lambda *a, **k: pytest.fail("pairs built"), raising=False)
    for weight in (1e160, np.r_[1e200, np.ones(X.shape[0] - 1)], np.full(X.shape[0], 1e153)):
        with pytest.raises(ValueError, match=r"overflow float64\. Rescale sample_weight"):
            est.fit(X, y, sample_weight=weight)
    assert not hasattr(est, "n_features_in_")
    monkeypatch.undo()
    fitted = make_estimator(name).fit(X, y, sample_weight=1e100)  # large but representable: finite
    assert np.all(np.isfinite(fitted.decision_function(X)))
    objective = getattr(fitted, "objective_", 0.0)
    assert objective is None or np.isfinite(objective)


@pytest.mark.parametrize("name", NAMES)
def test_score_is_the_weighted_metric_of_the_scores(name, binary_data, survival_data, fitted):
    """score(X, y, sample_weight=w) is the weighted AUC / Harrell's C of the estimator's scores:
    scikit-learn's weighted roc_auc_score, and the unweighted metric of the rows repeated w times."""
    from sklearn.metrics import roc_auc_score
    X, y = data_for(name, binary_data, survival_data)
    est = fitted(name)
    rng = np.random.default_rng(0)
    X = X[rng.permutation(len(y))]  # scored against shuffled rows: an AUC / C well below 1
    scores = est.decision_function(X) if hasattr(est, "decision_function") else est.predict(X)
    w = rng.integers(0, 4, len(y))
    rows = np.repeat(np.arange(len(y)), w)
    weighted = est.score(X, y, sample_weight=w)
    if ESTIMATORS[name][0] == "binary":
        assert weighted == pytest.approx(aucopt.roc_auc(y, scores, sample_weight=w), abs=1e-12)
        assert weighted == pytest.approx(aucopt.roc_auc(y[rows], scores[rows]), abs=1e-12)
        # without the tie tolerance (scores of a kernel expansion far from its support vectors
        # tie within 1e-8 · max|score|), exactly scikit-learn's weighted AUC
        assert aucopt.roc_auc(y, scores, sample_weight=w, tied_tol=0) == pytest.approx(
            roc_auc_score(y, scores, sample_weight=w), abs=1e-12)
    else:
        assert weighted == pytest.approx(harrell_c(y, scores, sample_weight=w), abs=1e-12)
        assert weighted == pytest.approx(harrell_c(y[rows], scores[rows]), abs=1e-12)
    assert weighted != pytest.approx(est.score(X, y), abs=1e-6)  # the weights do change it here
    assert est.score(X, y, sample_weight=np.ones(len(y))) == est.score(X, y)


@pytest.mark.parametrize("name", BINARY)
def test_probabilities_through_calibrated_classifier_cv(name, binary_data, fitted):
    """Rankers have no predict_proba; CalibratedClassifierCV calibrates their decision_function.
    With ensemble=False the sigmoid is fitted on cross-validated scores and applied to the ranker
    refitted on all rows: a monotone map of that ranker's decision_function."""
    from sklearn.calibration import CalibratedClassifierCV
    X, y = binary_data
    assert not hasattr(make_estimator(name), "predict_proba")
    for method in ("sigmoid", "isotonic"):
        calibrated = CalibratedClassifierCV(make_estimator(name), method=method, cv=2).fit(X, y)
        proba = calibrated.predict_proba(X)
        assert proba.shape == (len(y), 2)
        assert np.all((proba >= 0) & (proba <= 1))
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    single = CalibratedClassifierCV(make_estimator(name), method="sigmoid", cv=2, ensemble=False).fit(X, y)
    p = single.predict_proba(X)[:, 1]
    d = fitted(name).decision_function(X)
    order = np.argsort(d, kind="stable")
    steps = np.diff(p[order])
    assert np.all(steps >= 0)  # the ranking of decision_function, kept
    distinct = np.diff(d[order]) > 1e-6 * np.ptp(d)
    unsaturated = (p[order][:-1] > 1e-12) & (p[order][1:] < 1 - 1e-12)
    assert np.all(steps[distinct & unsaturated] > 0)  # and not collapsed
    assert aucopt.roc_auc(y, p) == aucopt.roc_auc(y, d)


@pytest.mark.parametrize("name", [n for n in NAMES if ESTIMATORS[n][0] == "binary"])
def test_mixed_int_and_str_labels_are_refused_clearly(name, binary_data):
    X, y = binary_data
    mixed = np.array(["yes" if label == 1 else 0 for label in y], dtype=object)
    with pytest.raises(ValueError, match=r"mixes label types \(int, str\)"):
        make_estimator(name).fit(X, mixed)


@pytest.mark.parametrize("name", [n for n in NAMES if ESTIMATORS[n][0] == "survival"])
def test_survival_score_ties_risks_within_1e_8_as_sksurv(name, survival_data, fitted):
    """``score`` is Harrell's C with scikit-survival's tie tolerance taken relative to the largest
    risk (``tied_tol = 1e-8 · max|risk|``, as documented), so round-off in the predictions (dense
    vs sparse X, ~1e-14) does not change it."""
    sksurv_metrics = pytest.importorskip("sksurv.metrics")
    X, y = survival_data
    est = fitted(name)
    risk = est.predict(X)
    event, time = y["event"], y["time"]
    tied_tol = aucopt.metrics.TIED_TOL * np.abs(risk).max()
    expected = sksurv_metrics.concordance_index_censored(event, time, risk, tied_tol=tied_tol)[0]
    assert est.score(X, y) == pytest.approx(expected, abs=1e-12)
    wobble = risk * (1 + 1e-14 * np.where(np.arange(len(risk)) % 2, 1, -1))
    assert harrell_c(y, wobble) == est.score(X, y)


# ============================================================================ zero weights
def _takes_sample_weight(name) -> bool:
    return "sample_weight" in inspect.signature(estimator_class(name).fit).parameters


WEIGHTED = [n for n in NAMES if _takes_sample_weight(n)]


def _zero_mask(n):
    """Zero weight on every fourth row (both classes / events keep rows); other weights vary."""
    w = 0.5 + (np.arange(n) % 3) / 2.0
    w[1::4] = 0.0
    return w


@pytest.mark.parametrize("name", WEIGHTED)
def test_zero_weight_is_removal(name, binary_data, survival_data):
    """sample_weight 0 leaves the model exactly as if the row were not in X: pairs, kernel width
    (gamma='scale' / 'sigma2'), basis, validation split and threshold. The oracle is the fit on
    the remaining rows; support_ indexes the rows of the X given to fit."""
    X, y = data_for(name, binary_data, survival_data)
    w = _zero_mask(len(y))
    keep = np.flatnonzero(w > 0)
    weighted = make_estimator(name).fit(X, y, sample_weight=w)
    removed = make_estimator(name).fit(X[keep], y[keep], sample_weight=w[keep])
    np.testing.assert_allclose(weighted.decision_function(X), removed.decision_function(X), rtol=1e-8, atol=1e-8)
    if ESTIMATORS[name][0] == "binary":
        np.testing.assert_array_equal(weighted.predict(X), removed.predict(X))
        assert weighted.threshold_ == pytest.approx(removed.threshold_, rel=1e-8, abs=1e-8)
    if getattr(removed, "objective_", None) is not None:
        assert weighted.objective_ == pytest.approx(removed.objective_, rel=1e-8)
    if hasattr(removed, "n_pairs_"):
        assert weighted.n_pairs_ == removed.n_pairs_
    for attribute in ("support_", "train_indices_", "validation_indices_"):
        if getattr(removed, attribute, None) is not None:
            np.testing.assert_array_equal(getattr(weighted, attribute), keep[getattr(removed, attribute)])
            assert np.all(w[getattr(weighted, attribute)] > 0)


def _takes_precomputed(name) -> bool:
    constraints = estimator_class(name)._parameter_constraints.get("kernel", [])
    return any("precomputed" in getattr(c, "options", ()) for c in constraints)


@pytest.mark.parametrize("name", [n for n in WEIGHTED if _takes_precomputed(n)])
def test_zero_weight_with_precomputed_kernel_drops_row_and_column(name, binary_data, survival_data):
    """kernel='precomputed': the row and the column of a zero-weight sample are dropped; support_
    indexes the columns of the full kernel, so predict takes an (n_test, n_train) kernel."""
    from sklearn.metrics.pairwise import rbf_kernel
    X, y = data_for(name, binary_data, survival_data)
    K = rbf_kernel(X, gamma=0.2)
    w = _zero_mask(len(y))
    keep = np.flatnonzero(w > 0)
    weighted = make_estimator(name, kernel="precomputed").fit(K, y, sample_weight=w)
    removed = make_estimator(name, kernel="precomputed").fit(K[np.ix_(keep, keep)], y[keep], sample_weight=w[keep])
    explicit = make_estimator(name, gamma=0.2).fit(X, y, sample_weight=w)
    assert weighted.n_features_in_ == len(y)
    np.testing.assert_array_equal(weighted.support_, keep[removed.support_])
    np.testing.assert_allclose(weighted.decision_function(K[:7]), removed.decision_function(K[:7, keep]),
                               rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(weighted.decision_function(K), explicit.decision_function(X), rtol=1e-6, atol=1e-6)
    assert weighted.objective_ == pytest.approx(removed.objective_, rel=1e-8)


@pytest.mark.parametrize("name", ["RankRC", "SurvivalRankRC"])
def test_zero_weight_rows_leave_an_explicit_basis(name, binary_data, survival_data):
    """basis given as row indices of X: a zero-weight row is removed from the basis too."""
    X, y = data_for(name, binary_data, survival_data)
    w = _zero_mask(len(y))
    keep = np.flatnonzero(w > 0)
    basis = np.arange(0, len(y), 3)  # includes rows of zero weight (1 ≡ row 9, 21, ...)
    weighted = make_estimator(name, basis=basis).fit(X, y, sample_weight=w)
    removed = make_estimator(name, basis=np.flatnonzero(np.isin(keep, basis))).fit(X[keep], y[keep],
                                                                                  sample_weight=w[keep])
    np.testing.assert_array_equal(weighted.support_, np.intersect1d(basis, keep))
    np.testing.assert_allclose(weighted.predict(X) if name.startswith("Survival") else weighted.decision_function(X),
                               removed.predict(X) if name.startswith("Survival") else removed.decision_function(X),
                               rtol=1e-8, atol=1e-8)


# ============================================================================ bad inputs, every estimator
#: internal names that must never reach a user's error message
INTERNAL_NAMES = ("point_weights", "row_lower", "row_upper", "lam", "K_RR", "v contains", "f contains",
                  "LinAlgError", "not symmetric", "Empty")


def _assert_user_facing(message: str) -> None:
    leaked = [word for word in INTERNAL_NAMES
              if re.search(rf"(?<![A-Za-z_]){re.escape(word)}(?![A-Za-z_])", message)]
    assert not leaked, f"internal name(s) {leaked} in the message: {message}"


def _kernel_variants(name):
    """Each kernel family the estimator offers: the scale check differs between them."""
    if "kernel" not in constructor_parameters(estimator_class(name)):
        return [{}]
    return [{"kernel": "rbf"}, {"kernel": "linear"}, {"kernel": "poly"}]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("scale", [1e200, 1e300, 1e-300])
def test_overflowing_or_underflowing_X_is_refused_naming_X(name, scale, binary_data, survival_data):
    """Squares of X that overflow (or underflow to zero) used to reach the solvers as NaN and come
    back as internal messages ("row_lower contains NaN", "v contains 60 NaN", "K_RR is zero")."""
    X, y = data_for(name, binary_data, survival_data)
    for params in _kernel_variants(name):
        est = make_estimator(name, **params)
        with pytest.raises(ValueError, match=r"^X has .*magnitude.*(overflow|underflow) float64.*rescale X") as info:
            est.fit(X * scale, y)
        _assert_user_facing(str(info.value))
        assert f"{np.abs(X).max() * scale:.3g}" in str(info.value)  # the magnitude found, not a guess


@pytest.mark.parametrize("name", NAMES)
def test_one_huge_column_is_refused_and_moderate_scales_fit(name, binary_data, survival_data):
    X, y = data_for(name, binary_data, survival_data)
    with pytest.raises(ValueError, match=r"^X has entries of magnitude 1e\+200") as info:
        make_estimator(name).fit(np.c_[X, np.full(X.shape[0], 1e200)], y)
    _assert_user_facing(str(info.value))
    fitted = make_estimator(name).fit(X * 1e3, y)  # unscaled but representable: a finite model
    scores = fitted.decision_function(X * 1e3) if hasattr(fitted, "decision_function") else fitted.predict(X * 1e3)
    assert np.all(np.isfinite(scores))


@pytest.mark.parametrize("name", [n for n in NAMES if "kernel" in constructor_parameters(estimator_class(n))])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_kernel_callable_returning_non_finite_values_is_named(name, bad, binary_data, survival_data):
    X, y = data_for(name, binary_data, survival_data)

    def kernel(A, B):
        K = np.asarray(A @ B.T, dtype=float)
        K[:2, :] = bad
        return K

    with pytest.raises(ValueError, match=r"^the kernel callable returned \d+ non-finite value") as info:
        make_estimator(name, kernel=kernel).fit(X, y)
    _assert_user_facing(str(info.value))


@pytest.mark.parametrize("name", [n for n in NAMES if "kernel" in constructor_parameters(estimator_class(n))])
def test_overflowing_polynomial_kernel_names_gamma_and_degree(name, binary_data, survival_data):
    X, y = data_for(name, binary_data, survival_data)
    message = r"^The values of the poly kernel \(gamma=1e\+100, degree=3\) reach .*smaller gamma"
    with pytest.raises(ValueError, match=message) as info:
        make_estimator(name, kernel="poly", gamma=1e100).fit(X, y)
    _assert_user_facing(str(info.value))


@pytest.mark.parametrize("name", WEIGHTED)
def test_scalar_sample_weight_is_uniform_weight(name, binary_data, survival_data):
    """A scalar sample_weight gives every sample that weight; the fit is that of uniform weights."""
    X, y = data_for(name, binary_data, survival_data)
    by_scalar = make_estimator(name).fit(X, y, sample_weight=0.5)
    by_array = make_estimator(name).fit(X, y, sample_weight=np.full(X.shape[0], 0.5))
    scores = "decision_function" if ESTIMATORS[name][0] == "binary" else "predict"
    np.testing.assert_allclose(getattr(by_scalar, scores)(X), getattr(by_array, scores)(X), rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="sample_weight") as info:
        make_estimator(name).fit(X, y, sample_weight=np.inf)
    _assert_user_facing(str(info.value))


@pytest.mark.parametrize("name", BINARY)
def test_mixed_label_types_error_names_y(name, binary_data):
    X, y = binary_data
    mixed = np.array([1 if label == 1 else "no" for label in y], dtype=object)
    with pytest.raises(ValueError, match=r"^y mixes label types") as info:
        make_estimator(name).fit(X, mixed)
    _assert_user_facing(str(info.value))


@pytest.mark.parametrize("name", NAMES)
def test_empty_X_error_names_the_samples(name, binary_data, survival_data):
    X, y = data_for(name, binary_data, survival_data)
    with pytest.raises(ValueError, match=r"0 sample|n_samples=0") as info:
        make_estimator(name).fit(X[:0], y[:0])
    _assert_user_facing(str(info.value))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_X_is_refused_naming_X(name, bad, binary_data, survival_data, fitted):
    X, y = data_for(name, binary_data, survival_data)
    X = X.copy()
    X[3, 1] = bad
    with pytest.raises(ValueError, match=r"X contains (NaN|infinity)") as info:
        make_estimator(name).fit(X, y)
    _assert_user_facing(str(info.value))
    with pytest.raises(ValueError, match=r"X contains (NaN|infinity)"):
        fitted(name).predict(X)  # a model fitted on finite X (the shared fit) refuses it too


@pytest.mark.parametrize("name", [n for n in NAMES if n.endswith("LPRanker")])
@pytest.mark.parametrize("method", ["full", "generation", "chunking"])
def test_lp_kernel_values_beyond_the_highs_limit_are_refused_naming_X(name, method, binary_data, survival_data):
    """A linear kernel of unscaled features (values >= 1e15) made HiGHS fail with "Empty"."""
    X, y = data_for(name, binary_data, survival_data)
    with pytest.raises(ValueError, match=r"^The kernel values reach .*e\+17, and HiGHS refuses LP coefficients "
                                         r"of magnitude 1e\+15 or more: rescale X") as info:
        make_estimator(name, kernel="linear", method=method).fit(X * 1e8, y)
    _assert_user_facing(str(info.value))


@pytest.mark.parametrize("name", [n for n in NAMES if "kernel" in constructor_parameters(estimator_class(n))])
def test_kernel_callable_with_overflowing_squares_is_named(name, binary_data, survival_data):
    """Finite but huge kernel values came back as "v contains 60 NaN" or a solver failure."""
    X, y = data_for(name, binary_data, survival_data)
    with pytest.raises(ValueError, match=r"^The values of the kernel callable reach .*e\+16\d, whose squares "
                                         r"summed over the samples overflow float64") as info:
        make_estimator(name, kernel=lambda A, B: (A @ B.T) * 1e160).fit(X, y)
    _assert_user_facing(str(info.value))


@pytest.mark.parametrize("name", [n for n in NAMES if n.endswith("SparseAUC")])
@pytest.mark.parametrize(("C", "weight", "match"), [
    (1e308, None, r"^C=1e\+308 is too large for the total pair weight .*Use C at most about"),
    (1e300, 1e100, r"^C=1e\+300 is too large for the total pair weight .*e\+20\d.*rescale sample_weight"),
    (5e-324, None, r"^C=4\.94e-324 is too small .*Use C at least about \de-3\d\d"),
])
def test_C_whose_inner_penalty_leaves_float64_is_named(name, C, weight, match, binary_data, survival_data):
    """The inner Newton penalty 2/(C N) underflowed to 0 and was refused under a name the user
    never set (the solver's own penalty parameter, "got 0.0")."""
    X, y = data_for(name, binary_data, survival_data)
    with pytest.raises(ValueError, match=match) as info:
        make_estimator(name, C=C).fit(X, y, sample_weight=weight)
    _assert_user_facing(str(info.value))
    assert "newton" not in str(info.value).lower() and "alpha" not in str(info.value)


@pytest.mark.parametrize("name", WEIGHTED)
def test_underflowing_sample_weight_is_refused_naming_it(name, binary_data, survival_data):
    """Weights of 1e-300 give pair weights w_i w_j that underflow to zero; the fit used to say
    that no pair had positive weight "(e.g. only one class ... has nonzero weight)"."""
    X, y = data_for(name, binary_data, survival_data)
    with pytest.raises(ValueError, match=r"^sample_weight is at most 1e-300: the pair weights w_i \* w_j "
                                         r"underflow float64 .*Rescale sample_weight") as info:
        make_estimator(name).fit(X, y, sample_weight=1e-300)
    _assert_user_facing(str(info.value))
    small = make_estimator(name).fit(X, y, sample_weight=1e-100)  # small but representable: fits
    assert np.all(np.isfinite(small.predict(X)))


@pytest.mark.parametrize("name", [n for n in NAMES if "kernel" in constructor_parameters(estimator_class(n))])
def test_rbf_fit_on_huge_but_squarable_X_is_the_fit_on_X(name, binary_data, survival_data):
    """The scale check refuses only what overflows: with the RBF kernel and gamma='scale' (values in
    [0, 1]), X scaled by 2**300 (entries ~1e90, squares ~1e181) gives exactly the unscaled fit."""
    X, y = data_for(name, binary_data, survival_data)
    c = 2.0 ** 300
    base = make_estimator(name, kernel="rbf", gamma="scale").fit(X, y)
    scaled = make_estimator(name, kernel="rbf", gamma="scale").fit(X * c, y)
    score = "decision_function" if ESTIMATORS[name][0] == "binary" else "predict"
    np.testing.assert_allclose(getattr(scaled, score)(X * c), getattr(base, score)(X), rtol=1e-9, atol=1e-12)
