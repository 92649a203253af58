"""The censoring-aware metrics of the cross-validation protocol (``scoring``) and of ``aucopt survival
--metric``, and ``time_dependent_auc`` without scikit-survival.

Oracles: the metrics of :mod:`aucopt.metrics` called by hand on the same splits (the protocol's
numbers must be these, with Ĝ from the training fold), scikit-survival's ``concordance_index_ipcw``,
``cumulative_dynamic_auc`` and ``integrated_brier_score`` on one fold (optional), and the protocol's
own default run (the pooled C must not change when metrics are added).
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.base import BaseEstimator, clone
from sklearn.model_selection import GridSearchCV, KFold, RepeatedStratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils._param_validation import InvalidParameterError

from aucopt import SurvivalRankSVM, survival_target
from aucopt.metrics import cumulative_dynamic_auc, integrated_brier_score, uno_c, uno_c_scorer
from aucopt.survival import (
    PooledCVResult,
    compare_methods,
    comparison_table,
    evaluate_methods,
    evaluation_times,
    pooled_cindex_cv,
    survival_probabilities,
    time_dependent_auc,
)

ARRAYS = ("pooled_c", "fold_c", "percentiles", "scores", "folds")


def make_data(seed=0, m=120, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    event_time = rng.exponential(np.exp(-X @ np.array([1.0, -0.5, 0.3])[:d]))
    censor_time = rng.exponential(1.5, size=m)
    return X, survival_target(event_time <= censor_time, np.minimum(event_time, censor_time))


class RiskOnly(BaseEstimator):
    """A risk model without survival curves (as scikit-survival's FastSurvivalSVM)."""

    def fit(self, X, y):
        self.coef_ = SurvivalRankSVM().fit(X, y).coef_
        return self

    def predict(self, X):
        return np.asarray(X) @ self.coef_


def by_hand(estimator, X, y, n_splits, n_repeats, random_state=0, tau=None, times=None):
    """Every fold's Uno C, mean AUC and IBS from aucopt.metrics, Ĝ from the training fold."""
    cv = RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=n_repeats, random_state=random_state)
    out = {name: np.full((n_repeats, n_splits), np.nan) for name in ("uno", "auc", "ibs")}
    for s, (train, test) in enumerate(cv.split(np.zeros(len(y)), y["event"].astype(int))):
        r, k = divmod(s, n_splits)
        model = clone(estimator).fit(X[train], y[train])
        risk = model.predict(X[test])
        end = y["time"][train].max()
        out["uno"][r, k] = uno_c(y[train], y[test], risk, tau=end if tau is None else min(tau, end))
        grid = evaluation_times(y[train], y[test]) if times is None else np.asarray(times, float)
        out["auc"][r, k] = cumulative_dynamic_auc(y[train], y[test], risk, grid)[1]
        surv = np.array([[f(t) for t in grid] for f in model.predict_survival_function(X[test])])
        out["ibs"][r, k] = integrated_brier_score(y[train], y[test], surv, grid)
    return out


# ============================================================================ the protocol's numbers
@pytest.mark.parametrize("estimator", [SurvivalRankSVM(alpha=0.1),
                                       make_pipeline(StandardScaler(), SurvivalRankSVM(alpha=1.0))],
                         ids=["RankSVM", "pipeline"])
def test_fold_metrics_are_the_metrics_with_the_training_folds_censoring(estimator):
    X, y = make_data()
    result = pooled_cindex_cv(estimator, X, y, n_splits=3, n_repeats=2, scoring=["uno", "auc", "ibs"])
    expected = by_hand(estimator, X, y, 3, 2)
    assert list(result.fold_metrics) == ["uno", "auc", "ibs"]
    for name, values in expected.items():
        np.testing.assert_allclose(result.fold_metrics[name], values, rtol=0, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(result.metric(name), values.mean(axis=1), rtol=0, atol=1e-12)
    assert np.all((result.fold_metrics["ibs"] > 0) & (result.fold_metrics["ibs"] < 0.25))


def test_adding_metrics_leaves_the_pooled_c_unchanged():
    X, y = make_data(1)
    plain = pooled_cindex_cv(SurvivalRankSVM(alpha=0.1), X, y, n_splits=4, n_repeats=2)
    scored = pooled_cindex_cv(SurvivalRankSVM(alpha=0.1), X, y, n_splits=4, n_repeats=2,
                              scoring=["harrell", "uno", "ibs"])
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(scored, name), getattr(plain, name), err_msg=name)
    assert plain.fold_metrics == {} and list(scored.fold_metrics) == ["uno", "ibs"]
    np.testing.assert_array_equal(scored.metric("harrell"), scored.pooled_c)
    only_harrell = pooled_cindex_cv(SurvivalRankSVM(alpha=0.1), X, y, n_splits=4, n_repeats=2, scoring="harrell")
    assert only_harrell.fold_metrics == {}
    np.testing.assert_array_equal(only_harrell.pooled_c, plain.pooled_c)


def test_uno_matches_scikit_survival_on_a_fold_with_training_censoring():
    sksurv_metrics = pytest.importorskip("sksurv.metrics")
    X, y = make_data(2, m=150)
    result = pooled_cindex_cv(SurvivalRankSVM(alpha=0.1), X, y, n_splits=3, n_repeats=1, tau=1.0,
                              scoring=["uno", "auc", "ibs"])
    train, test = next(RepeatedStratifiedKFold(n_splits=3, n_repeats=1, random_state=0).split(
        np.zeros(len(y)), y["event"].astype(int)))
    model = SurvivalRankSVM(alpha=0.1).fit(X[train], y[train])
    risk = model.predict(X[test])
    tau = min(1.0, y["time"][train].max())
    expected = sksurv_metrics.concordance_index_ipcw(y[train], y[test], risk, tau=tau)[0]
    assert result.fold_metrics["uno"][0, 0] == pytest.approx(expected, abs=1e-10)
    grid = evaluation_times(y[train], y[test])
    auc = sksurv_metrics.cumulative_dynamic_auc(y[train], y[test], risk, grid)[1]
    assert result.fold_metrics["auc"][0, 0] == pytest.approx(auc, abs=1e-10)
    surv = survival_probabilities(model, X[test], grid)
    ibs = sksurv_metrics.integrated_brier_score(y[train], y[test], surv, grid)
    assert result.fold_metrics["ibs"][0, 0] == pytest.approx(ibs, abs=1e-10)


def test_tau_and_times_are_used_in_every_fold():
    X, y = make_data(3)
    times = [0.2, 0.4, 0.6]
    result = pooled_cindex_cv(SurvivalRankSVM(alpha=0.1), X, y, n_splits=3, n_repeats=2, tau=0.5, times=times,
                              scoring=["uno", "auc", "ibs"])
    expected = by_hand(SurvivalRankSVM(alpha=0.1), X, y, 3, 2, tau=0.5, times=times)
    for name, values in expected.items():
        np.testing.assert_allclose(result.fold_metrics[name], values, rtol=0, atol=1e-12, err_msg=name)


def test_times_outside_a_fold_name_the_fold():
    X, y = make_data(4)
    with pytest.raises(ValueError, match=r"auc in fold 0 of repetition 0: times must lie within"):
        pooled_cindex_cv(SurvivalRankSVM(alpha=0.1), X, y, n_splits=3, n_repeats=1, times=[0.1, 1e6],
                         scoring="auc")
    with pytest.raises(ValueError, match="finite"):
        pooled_cindex_cv(SurvivalRankSVM(alpha=0.1), X, y, n_splits=3, n_repeats=1, times=[np.nan], scoring="auc")


def test_evaluation_times_stay_inside_both_follow_ups():
    _X, y = make_data(5)
    train, test = y[:80], y[80:]
    grid = evaluation_times(train, test)
    upper = min(train["time"].max(), test["time"].max())
    events = np.sort(test["time"][test["event"] & (test["time"] < upper)])
    assert len(grid) <= 33 and np.all(np.diff(grid) > 0)
    assert grid[0] >= events[0] and grid[-1] < upper
    np.testing.assert_allclose(grid[[0, -1]], np.percentile(events, [10, 90]))
    censored = survival_target(np.zeros(5, bool), np.arange(1.0, 6.0))
    assert evaluation_times(train, censored).size == 0


# ============================================================================ scorers, NaN, searches
def test_a_dict_of_scorers_sees_the_test_fold():
    X, y = make_data(6)
    result = pooled_cindex_cv(SurvivalRankSVM(alpha=0.1), X, y, n_splits=3, n_repeats=1,
                              scoring={"uno on the fold": uno_c_scorer(), "uno": "uno"})
    assert list(result.fold_metrics) == ["uno on the fold", "uno"]
    single = pooled_cindex_cv(SurvivalRankSVM(alpha=0.1), X, y, n_splits=3, n_repeats=1, scoring=uno_c_scorer())
    np.testing.assert_array_equal(single.fold_metrics["score"], result.fold_metrics["uno on the fold"])
    cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=1, random_state=0)
    for k, (train, test) in enumerate(cv.split(np.zeros(len(y)), y["event"].astype(int))):
        risk = SurvivalRankSVM(alpha=0.1).fit(X[train], y[train]).predict(X[test])
        assert result.fold_metrics["uno on the fold"][0, k] == pytest.approx(uno_c(y[test], y[test], risk),
                                                                             abs=1e-12)


@pytest.mark.parametrize("scoring, match", [("brier", "Unknown metric 'brier'"),
                                            (["uno", "uno"], "twice"),
                                            ({"harrell": uno_c_scorer()}, "twice"),
                                            ({"x": 3}, "metric name or a scorer")])
def test_bad_scoring_is_refused_before_any_fit(scoring, match):
    X, y = make_data(7)
    with pytest.raises(ValueError, match=match):
        pooled_cindex_cv(SurvivalRankSVM(alpha=0.1), X, y, n_splits=3, n_repeats=1, scoring=scoring)


def test_tau_is_validated():
    X, y = make_data(7)
    with pytest.raises(InvalidParameterError, match="'tau'"):
        pooled_cindex_cv(SurvivalRankSVM(alpha=0.1), X, y, n_splits=3, n_repeats=1, scoring="uno", tau=-1.0)


def test_ibs_of_a_model_without_curves_is_nan_with_a_warning():
    X, y = make_data(8)
    with pytest.warns(UserWarning, match="RiskOnly has no predict_survival_function"):
        result = pooled_cindex_cv(make_pipeline(StandardScaler(), RiskOnly()), X, y, n_splits=3, n_repeats=2,
                                  scoring=["uno", "ibs"])
    assert np.all(np.isnan(result.fold_metrics["ibs"])) and np.all(np.isfinite(result.fold_metrics["uno"]))
    assert np.all(np.isnan(result.metric("ibs")))
    assert "IBS       —" in repr(result)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pooled_cindex_cv(RiskOnly(), X, y, n_splits=3, n_repeats=1, scoring="uno")  # no IBS asked: no warning


def test_ibs_of_a_grid_search_uses_its_best_estimator():
    X, y = make_data(9)
    search = GridSearchCV(SurvivalRankSVM(), {"alpha": [0.1, 10.0]}, cv=KFold(2))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        result = pooled_cindex_cv(search, X, y, n_splits=3, n_repeats=1, scoring="ibs")
    assert np.all(np.isfinite(result.fold_metrics["ibs"]))


def test_uno_without_comparable_pairs_before_tau_is_nan():
    X, y = make_data(10)
    result = pooled_cindex_cv(SurvivalRankSVM(alpha=0.1), X, y, n_splits=3, n_repeats=1, scoring="uno",
                              tau=float(y["time"].min()) / 2)
    assert np.all(np.isnan(result.fold_metrics["uno"]))


def test_parallel_folds_give_the_same_metrics(process_pool):
    X, y = make_data(11)
    kwargs = dict(n_splits=3, n_repeats=2, scoring=["uno", "auc", "ibs"])
    sequential = pooled_cindex_cv(SurvivalRankSVM(alpha=0.1), X, y, **kwargs)
    parallel = pooled_cindex_cv(SurvivalRankSVM(alpha=0.1), X, y, n_jobs=2, **kwargs)
    for name in sequential.fold_metrics:
        np.testing.assert_array_equal(parallel.fold_metrics[name], sequential.fold_metrics[name])


def test_survival_probabilities_reads_steps_after_their_last_jump():
    X, y = make_data(12)
    model = SurvivalRankSVM(alpha=0.1).fit(X, y)
    late = [float(y["time"].max()) * 2, float(y["time"].max()) * 3]
    surv = survival_probabilities(model, X[:4], late)
    np.testing.assert_allclose(surv, model.predict_survival_function(X[:4], return_array=True)[:, [-1, -1]])
    with pytest.raises(TypeError, match="RiskOnly has no predict_survival_function"):
        survival_probabilities(RiskOnly().fit(X, y), X, [0.5])


# ============================================================================ summaries and tests
@pytest.fixture(scope="module")
def two_methods():
    X, y = make_data(13, m=150)
    methods = {"weak": SurvivalRankSVM(alpha=100.0), "strong": SurvivalRankSVM(alpha=0.01),
               "no curves": RiskOnly()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return evaluate_methods(methods, X, y, n_splits=3, n_repeats=3, scoring=["uno", "ibs"])


def test_compare_methods_on_a_metric(two_methods):
    a, b = two_methods["strong"], two_methods["weak"]
    result = compare_methods(a, b, metric="uno")
    test = stats.ttest_rel(a.metric("uno"), b.metric("uno"))
    assert result.pvalue == pytest.approx(test.pvalue, abs=1e-14) and result.n == 3
    assert compare_methods(a, b).pvalue == pytest.approx(stats.ttest_rel(a.pooled_c, b.pooled_c).pvalue)
    with pytest.raises(KeyError, match="No metric 'auc'"):
        compare_methods(a, b, metric="auc")
    with pytest.raises(ValueError):
        compare_methods(two_methods["no curves"], b, metric="ibs")  # NaN


def test_summary_and_tables_show_the_metrics(two_methods):
    strong = two_methods["strong"]
    table = strong.summary(two_methods, baseline="weak")
    for column in ("uno", "uno_std", "uno_p_value", "ibs", "ibs_std", "ibs_p_value"):
        assert column in table.columns
    assert table.loc["strong", "uno"] == pytest.approx(strong.metric("uno").mean())
    assert table.loc["strong", "ibs_std"] == pytest.approx(np.std(strong.metric("ibs"), ddof=1))
    assert table.loc["strong", "uno_p_value"] == pytest.approx(
        compare_methods(strong, two_methods["weak"], metric="uno").pvalue)
    assert np.isnan(table.loc["weak", "uno_p_value"]) and np.isnan(table.loc["no curves", "ibs"])

    text = comparison_table(two_methods, baseline="weak")
    header, *rows = text.splitlines()
    assert "Uno C" in header and "IBS" in header and len(rows) == 3
    no_curves = next(row for row in rows if row.startswith("no curves"))
    assert no_curves.split()[-3:-1] == ["—", "—"]  # IBS and its p-value
    plain = comparison_table(two_methods, baseline="weak", metrics=[])
    assert "Uno C" not in plain.splitlines()[0]

    import io
    buffer = io.StringIO()
    strong.print_summary(two_methods, baseline="weak", file=buffer)
    printed = buffer.getvalue()
    assert "metrics  = Uno C:" in printed and "lower is better" in printed


def test_metric_of_a_result_without_it():
    result = PooledCVResult(np.array([0.7]), np.full((1, 2), 0.7), np.zeros((1, 4)), np.zeros((1, 4)),
                            np.zeros((1, 4), dtype=int))
    with pytest.raises(KeyError, match="scoring"):
        result.metric("uno")


# ============================================================================ time_dependent_auc
def test_time_dependent_auc_is_aucopts_own(monkeypatch):
    X, y = make_data(14)
    risk = SurvivalRankSVM(alpha=0.1).fit(X[:80], y[:80]).predict(X[80:])
    times = evaluation_times(y[:80], y[80:])[::8]
    expected = cumulative_dynamic_auc(y[:80], y[80:], risk, times)
    monkeypatch.setitem(sys.modules, "sksurv", None)  # scikit-survival "not installed"
    monkeypatch.setitem(sys.modules, "sksurv.metrics", None)
    auc, mean_auc = time_dependent_auc(y[:80], y[80:], risk, times)
    np.testing.assert_array_equal(auc, expected[0])
    assert mean_auc == expected[1]


def test_time_dependent_auc_equals_scikit_survival():
    sksurv_metrics = pytest.importorskip("sksurv.metrics")
    X, y = make_data(15)
    risk = SurvivalRankSVM(alpha=0.1).fit(X[:80], y[:80]).predict(X[80:])
    times = np.percentile(y["time"][80:][y["event"][80:]], [25, 50, 75])
    auc, mean_auc = time_dependent_auc(y[:80], y[80:], risk, times)
    ref_auc, ref_mean = sksurv_metrics.cumulative_dynamic_auc(y[:80], y[80:], risk, times)
    np.testing.assert_allclose(auc, ref_auc, rtol=0, atol=1e-10)
    assert mean_auc == pytest.approx(ref_mean, abs=1e-10)


# ============================================================================ the command line
def _csv_file(tmp_path, m=80):
    import pandas as pd

    X, y = make_data(16, m=m, d=2)
    path = tmp_path / "surv.csv"
    pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "T": y["time"], "E": y["event"].astype(int)}).to_csv(path, index=False)
    return str(path)


def test_cli_metric_columns_match_the_protocol(tmp_path, capsys):
    import csv
    import io

    from aucopt import cli
    from aucopt.datasets import load_survival
    from aucopt.pairs import PairSet

    path = _csv_file(tmp_path)
    argv = ["survival", "--data", path, "--time", "T", "--event", "E", "--model", "newton", "--splits", "3",
            "--repeats", "2", "--no-cox", "--metric", "uno", "ibs", "--csv"]
    assert cli.main(argv) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert list(rows[0]) == ["method", "pooled_c_mean", "pooled_c_sd", "fold_c", "p_vs_cox", "uno_mean", "uno_sd",
                             "uno_p_vs_cox", "ibs_mean", "ibs_sd", "ibs_p_vs_cox", "seconds"]
    X, y = load_survival(path, time="T", event="E")
    model = cli.survival.build_model("newton", cli.build_parser().parse_args(argv), PairSet.survival(y))
    result = pooled_cindex_cv(model, X, y, n_splits=3, n_repeats=2, scoring=["uno", "ibs"])
    assert float(rows[0]["pooled_c_mean"]) == pytest.approx(result.mean, abs=1e-12)
    assert float(rows[0]["uno_mean"]) == pytest.approx(result.metric("uno").mean(), abs=1e-12)
    assert float(rows[0]["ibs_sd"]) == pytest.approx(np.std(result.metric("ibs"), ddof=1), abs=1e-12)


def test_cli_default_metric_keeps_the_thesis_columns(tmp_path, capsys):
    from aucopt import cli

    path = _csv_file(tmp_path)
    base = ["survival", "--data", path, "--time", "T", "--event", "E", "--model", "newton", "--splits", "2",
            "--repeats", "2", "--no-cox", "--json"]
    tables = []
    for extra in ([], ["--metric", "harrell"]):
        assert cli.main(base + extra) == 0
        import json
        document = json.loads(capsys.readouterr().out)
        assert document["columns"] == ["method", "pooled_c_mean", "pooled_c_sd", "fold_c", "p_vs_cox", "seconds"]
        tables.append([{k: v for k, v in row.items() if k != "seconds"} for row in document["rows"]])
    assert tables[0] == tables[1]


def test_cli_text_table_with_metrics_and_tau(tmp_path, capsys):
    from aucopt import cli

    path = _csv_file(tmp_path)
    argv = ["survival", "--data", path, "--time", "T", "--event", "E", "--model", "newton", "--splits", "2",
            "--repeats", "2", "--no-cox", "--metric", "auc", "--tau", "0.5"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("method"))
    assert "mean AUC" in header and "percentiles" in out
    with pytest.raises(SystemExit) as exit_info:
        cli.main([*argv[:-2], "--tau", "-1"])
    assert exit_info.value.code == 2 and "--tau must be a positive time" in capsys.readouterr().err


# ============================================================================ curves of scores far from 0
def test_survival_functions_of_scores_far_from_zero_match_the_arrays():
    """Breslow's Ĥ₀ is of the order exp(-coef · score): with scores near -30 (an LP Ranker's offset) it is
    ~1e12, and the step functions must still equal the arrays exp(-Ĥ₀ · exp(coef · s))."""
    from aucopt._breslow import SurvivalFunctionMixin

    class Shifted(SurvivalFunctionMixin, BaseEstimator):
        def fit(self, X, y):
            self._calibrate(self.predict(X), y["time"], y["event"])
            return self

        def predict(self, X):
            return np.asarray(X)[:, 0] - 30.0

    X, y = make_data(17)
    model = Shifted().fit(X, y)
    assert model.calibration_.cum_baseline_hazard[-1] < 1e3
    arrays = model.predict_survival_function(X[:20], return_array=True)
    steps = np.array([f(model.unique_times_) for f in model.predict_survival_function(X[:20])])
    np.testing.assert_allclose(steps, arrays, rtol=1e-12, atol=1e-15)
    assert arrays[:, 0].min() > 0.5  # S just after the first time is far from 0
