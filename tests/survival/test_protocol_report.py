"""PooledCVResult's short repr and summary tables, and pooled_cindex_cv's parallel folds.

Oracles: the result's own arrays (numpy reductions) and scipy's paired t-test for the summary;
the sequential run (n_jobs=1) for the parallel ones.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from scipy import stats
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils._param_validation import InvalidParameterError

from aucopt import SurvivalLPRanker, SurvivalRankSVM, survival_target
from aucopt.survival import CoxPH, PooledCVResult, pooled_cindex_cv

ARRAYS = ("pooled_c", "fold_c", "percentiles", "scores", "folds")


def make_data(seed=0, m=90, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    event_time = rng.exponential(np.exp(-X @ np.array([1.0, -0.5, 0.3, 0.0])[:d]))
    censor_time = rng.exponential(2.0, size=m)
    return X, survival_target(event_time <= censor_time, np.minimum(event_time, censor_time))


@pytest.fixture(scope="module")
def three_results():
    X, y = make_data()
    methods = {"RankSVM": SurvivalRankSVM(alpha=0.1), "strong ridge": SurvivalRankSVM(alpha=100.0),
               "LPR": SurvivalLPRanker(C=1.0, gamma=0.5)}
    return {name: pooled_cindex_cv(est, X, y, n_splits=3, n_repeats=4, random_state=1)
            for name, est in methods.items()}


# ============================================================================ n_jobs
@pytest.mark.parametrize("estimator", [SurvivalRankSVM(alpha=0.1),
                                       make_pipeline(StandardScaler(), SurvivalLPRanker(C=1.0, gamma=0.5))],
                         ids=["RankSVM", "pipeline-LPR"])
def test_parallel_folds_give_the_sequential_results(estimator, process_pool):
    X, y = make_data(1, m=60)  # 45 training rows a fold: the LP ranker's fits stay small
    kwargs = dict(n_splits=4, n_repeats=2, random_state=3)
    sequential = pooled_cindex_cv(estimator, X, y, n_jobs=1, **kwargs)
    default = pooled_cindex_cv(estimator, X, y, **kwargs)
    for n_jobs in (2, -1):
        parallel = pooled_cindex_cv(estimator, X, y, n_jobs=n_jobs, **kwargs)
        for name in ARRAYS:
            np.testing.assert_array_equal(getattr(parallel, name), getattr(sequential, name), err_msg=name)
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(default, name), getattr(sequential, name), err_msg=name)
    assert sequential.fit_seconds.shape == (2, 4) and np.all(sequential.fit_seconds > 0)
    assert sequential.seconds >= sequential.fit_seconds.sum() * 0.5  # wall time covers the fits


def test_parallel_folds_with_threads_and_a_dataframe():
    pd = pytest.importorskip("pandas")
    joblib = pytest.importorskip("joblib")
    X, y = make_data(2)
    frame = pd.DataFrame(X, columns=["age", "bmi", "hr", "sysbp"])
    sequential = pooled_cindex_cv(CoxPH(alpha=0.01), frame, y, n_splits=3, n_repeats=2)
    with joblib.parallel_config(backend="threading"):
        threaded = pooled_cindex_cv(CoxPH(alpha=0.01), frame, y, n_splits=3, n_repeats=2, n_jobs=2)
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(threaded, name), getattr(sequential, name), err_msg=name)


def test_parallel_folds_with_a_progress_bar(capsys, process_pool):
    X, y = make_data(3)
    loud = pooled_cindex_cv(SurvivalRankSVM(alpha=0.1), X, y, n_splits=3, n_repeats=2, verbose=1, n_jobs=2)
    assert "CV SurvivalRankSVM" in capsys.readouterr().err
    quiet = pooled_cindex_cv(SurvivalRankSVM(alpha=0.1), X, y, n_splits=3, n_repeats=2)
    np.testing.assert_array_equal(loud.percentiles, quiet.percentiles)


def test_n_jobs_is_validated():
    X, y = make_data(4)
    with pytest.raises(InvalidParameterError, match="'n_jobs' parameter of pooled_cindex_cv"):
        pooled_cindex_cv(SurvivalRankSVM(), X, y, n_jobs="all")


# ============================================================================ repr
def test_repr_is_short_and_names_the_protocol(three_results):
    for result in three_results.values():
        text = repr(result)
        lines = text.splitlines()
        assert len(lines) <= 4, text
        assert "SurvivalRankSVM" in lines[0] or "SurvivalLPRanker" in lines[0]
        assert "3 folds x 4 repetitions, 90 samples" in lines[0]
        assert f"{result.mean:.4f} ± {result.std:.4f}" in lines[1]
        assert all(f"{c:.4f}" in lines[1] for c in result.pooled_c)
        assert "[[" not in text and "array(" not in text  # no array dump
    out = io.StringIO()
    results = three_results
    results["RankSVM"].print_summary(results, file=out)
    printed = out.getvalue().splitlines()
    assert len(printed) < 15, out.getvalue()
    assert [line.split("  ")[0].strip() for line in printed[-3:]] == list(results)


def test_repr_counts_folds_without_comparable_pairs():
    result = PooledCVResult(np.array([0.7, 0.8]), np.array([[0.6, np.nan], [0.7, 0.9]]), np.zeros((2, 5)),
                            np.zeros((2, 5)), np.zeros((2, 5), dtype=int), name="m")
    lines = repr(result).splitlines()
    assert "over 3 folds (1 without comparable pairs)" in lines[2]
    assert f"{np.mean([0.6, 0.7, 0.9]):.4f} ± {np.std([0.6, 0.7, 0.9], ddof=1):.4f}" in lines[2]


# ============================================================================ summary
def test_summary_equals_the_underlying_arrays(three_results):
    base = three_results["RankSVM"]
    table = base.summary(three_results)  # base is among them: not repeated
    assert table.index.tolist() == list(three_results)
    assert table.attrs["baseline"] == "RankSVM"
    for name, result in three_results.items():
        row = table.loc[name]
        assert row.pooled_c == np.mean(result.pooled_c)
        assert row.pooled_c_std == pytest.approx(np.std(result.pooled_c, ddof=1), rel=1e-12)
        folds = result.fold_c[~np.isnan(result.fold_c)]
        assert row.fold_c_mean == pytest.approx(folds.mean(), rel=1e-12)
        assert row.fold_c_std == pytest.approx(folds.std(ddof=1), rel=1e-12)
        assert row.fit_time == pytest.approx(np.mean(result.fit_seconds), rel=1e-12)
        assert row.seconds == result.seconds
        if name == "RankSVM":
            assert np.isnan(row.p_value)
        else:
            expected = stats.ttest_rel(result.pooled_c, base.pooled_c).pvalue
            assert row.p_value == pytest.approx(expected, rel=1e-12)
    # another baseline, and this result added in front when it is not among the others
    other = three_results["LPR"].summary({"RankSVM": base}, baseline="RankSVM")
    assert other.index.tolist() == ["SurvivalLPRanker", "RankSVM"]
    assert np.isnan(other.loc["RankSVM", "p_value"])
    assert other.loc["SurvivalLPRanker", "p_value"] == pytest.approx(
        stats.ttest_rel(three_results["LPR"].pooled_c, base.pooled_c).pvalue, rel=1e-12)
    alone = base.summary()
    assert alone.index.tolist() == ["SurvivalRankSVM"] and np.isnan(alone.p_value.iloc[0])


def test_print_summary_shows_a_dash_for_the_baseline(three_results):
    out = io.StringIO()
    three_results["LPR"].print_summary(three_results, baseline="LPR", file=out)
    text = out.getvalue()
    assert "p vs LPR" in text and "baseline = LPR" in text
    lpr_line = next(line for line in text.splitlines() if line.startswith("LPR "))
    assert "—" in lpr_line
    table = three_results["LPR"].summary(three_results, baseline="LPR")
    rank_line = next(line for line in text.splitlines() if line.startswith("RankSVM "))
    assert f"{table.loc['RankSVM', 'pooled_c']:.4f}" in rank_line
    assert f"{table.loc['RankSVM', 'p_value']:.4g}" in rank_line


def test_summary_errors(three_results):
    base = three_results["RankSVM"]
    with pytest.raises(ValueError, match="baseline='Cox' is none of the methods"):
        base.summary(three_results, baseline="Cox")
    X, y = make_data()
    short = pooled_cindex_cv(SurvivalRankSVM(alpha=0.1), X, y, n_splits=3, n_repeats=2)
    with pytest.raises(ValueError, match=r"others\['short'\] has \(2, 3\) \(repetitions, folds\)"):
        base.summary({"short": short})
    with pytest.raises(TypeError, match="not a PooledCVResult"):
        base.summary({"bad": [0.7, 0.8]})
