"""Fitted-model summaries (aucopt._summary) over every public estimator.

Oracles: the estimators' own fitted attributes (coef_, objective_, n_iter_, support_,
solve_result_, ...), the data the model was fitted on (rows, feature names) and the clock.
"""

from __future__ import annotations

import io
import time

import numpy as np
import pytest
from conftest import make_small_binary, make_small_survival
from sklearn.exceptions import NotFittedError
from test_common import ESTIMATORS, make_estimator

import aucopt
from aucopt._summary import FIT_METHODS, FitSummary, print_summary, summary

MIXINS = (aucopt.BinaryRankerMixin, aucopt.SurvivalRankerMixin)


def small_data(target):
    if target == "binary":
        return make_small_binary()
    X, event, time_ = make_small_survival()
    return X, aucopt.survival_target(event, time_)


def fitted(name, X=None, y=None, **fit_kwargs):
    target = ESTIMATORS[name][0]
    if X is None:
        X, y = small_data(target)
    return make_estimator(name).fit(X, y, **fit_kwargs), X, y


def summarize(estimator):
    """The method where the estimator has it (every mixin estimator), else the function."""
    if isinstance(estimator, MIXINS):
        return estimator.summary()
    return summary(estimator)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_summary_reports_the_fitted_attributes(name):
    before = time.perf_counter()
    model, X, _y = fitted(name)
    elapsed = time.perf_counter() - before
    result = summarize(model)
    assert isinstance(result, FitSummary) and result.estimator == name
    fit = result.fit
    assert fit["n_samples"] == X.shape[0]
    assert fit["n_features"] == model.n_features_in_ == X.shape[1]
    for key, attribute in (("n_pairs", "n_pairs_"), ("pair_target", "pair_target_"), ("n_iter", "n_iter_"),
                           ("objective", "objective_"), ("n_updates", "n_updates_"), ("n_retrains", "n_retrains_"),
                           ("val_score", "val_score_")):
        if getattr(model, attribute, None) is not None:
            assert fit[key] == getattr(model, attribute), key
        else:
            assert key not in fit, key
    if getattr(model, "solve_result_", None) is not None:
        assert fit["status"] == str(model.solve_result_.status)
        assert fit["solver"] == model.solve_result_.solver
    elif hasattr(model, "converged_"):
        assert fit["status"] == ("converged" if model.converged_ else "not converged")
    assert fit["method"] == (getattr(model, "method_", model.method) if "method" in model.get_params()
                             else FIT_METHODS[name])  # the route taken (method="auto" says which)
    if hasattr(model, "optimality_gap_"):
        assert fit["optimality_gap"] == model.optimality_gap_ and "optimality_gap = " in str(result)
    if hasattr(model, "coef_"):
        assert list(result.coefficients.index) == [f"x{k}" for k in range(X.shape[1])]
        np.testing.assert_array_equal(result.coefficients["coef"].to_numpy(), model.coef_)
    else:
        assert result.coefficients is None
    if hasattr(model, "support_"):
        assert fit["n_support"] == len(model.support_) <= X.shape[0]
        assert f"n_support = {len(model.support_)} of {X.shape[0]}" in str(result)
    else:
        assert "n_support" not in fit
    if any(type(model).fit is mixin.fit for mixin in MIXINS):  # the mixins' fit records time and rows
        assert fit["fit_time"] == model.fit_time_ and 0 < model.fit_time_ <= elapsed
        assert model.n_samples_fit_ == X.shape[0]
    else:  # an estimator with a fit of its own (OnePassAUC, CoxPH)
        assert fit.get("fit_time") == getattr(model, "fit_time_", None)
    params = model.get_params()
    for key, value in result.parameters.items():
        plain = isinstance(params[key], (int, float, str, type(None)))
        assert value == (params[key] if plain else getattr(params[key], "__name__", repr(params[key]))), key
    for key in ("C", "alpha", "kernel"):
        if key in model.get_params():
            assert key in result.parameters
    text = str(result)
    assert text.startswith(f"<aucopt.{name}>")
    assert all(f"{key} = " in text for key in fit if key != "pair_target")


@pytest.mark.parametrize("name", sorted(n for n in ESTIMATORS if isinstance(aucopt.__dict__[n](), MIXINS)))
def test_every_mixin_estimator_has_summary_methods(name, capsys):
    model, _, _ = fitted(name)
    model.print_summary()
    printed = capsys.readouterr().out
    assert printed.rstrip("\n") == str(model.summary())
    out = io.StringIO()
    model.print_summary(decimals=2, file=out)
    assert out.getvalue().rstrip("\n") == model.summary().to_text(2)
    with pytest.raises(NotFittedError):
        make_estimator(name).summary()


@pytest.mark.parametrize("name", ["RankSVM", "SurvivalRankSVM", "OnePassAUC", "CoxPH"])
def test_coefficients_by_feature_name_on_a_dataframe(name):
    pd = pytest.importorskip("pandas")
    X, y = small_data(ESTIMATORS[name][0])
    columns = ["age", "bmi", "heart rate", "systolic bp", "smoker"]
    model, _, _ = fitted(name, pd.DataFrame(X, columns=columns), y)
    table = summarize(model).coefficients
    assert list(table.index) == columns
    np.testing.assert_array_equal(table["coef"].to_numpy(), model.coef_)
    assert "heart rate" in str(summarize(model))


def test_rows_with_zero_weight_are_not_counted():
    X, y = make_small_binary()
    weight = np.ones(len(y))
    weight[:7] = 0.0
    model = aucopt.RankSVM(alpha=1e-2).fit(X, y, sample_weight=weight)
    assert model.summary().fit["n_samples"] == len(y) - 7


def test_kernel_expansion_reports_support_vectors_not_coefficients():
    X, y = make_small_binary()
    model = aucopt.LPRanker(C=1.0, gamma=0.5).fit(X, y)
    result = model.summary()
    assert result.coefficients is None
    assert result.fit["n_support"] == len(model.support_) and result.fit["solver"] == "highs"
    assert result.fit["status"] == "optimal" and result.fit["objective"] == model.objective_
    assert result.parameters["C"] == 1.0 and result.parameters["gamma"] == 0.5
    assert "support_threshold" not in result.parameters  # default values of other parameters are left out
    changed = aucopt.LPRanker(C=1.0, gamma=0.5, support_threshold=1e-3).fit(X, y).summary()
    assert changed.parameters["support_threshold"] == 1e-3


def test_subgradient_path_reports_its_stop():
    X, y = make_small_binary()
    model = aucopt.LPRanker(C=1.0, method="subgradient").fit(X, y)
    result = model.summary()
    assert "solver" not in result.fit  # no LP was solved
    assert result.fit["method"] == "subgradient" and result.fit["n_iter"] == model.n_iter_
    assert result.fit["status"] == str(model.method_result_.stop)


def test_print_summary_function_on_coxph():
    model, _, _ = fitted("CoxPH")
    out = io.StringIO()
    print_summary(model, file=out)
    assert out.getvalue().startswith("<aucopt.CoxPH>")
    assert "method = Newton-Raphson (lifelines)" in out.getvalue()
