"""Model selection on a cluster: GridSearchCV, cross_validate and pooled_cindex_cv with joblib's dask backend.

Every aucopt estimator is fitted on the workers of the session LocalCluster (two workers, as
threads of the test process) and must give exactly (``==``) the results of the in-memory
``n_jobs=1`` run: the same best parameters, the same score of every candidate on every split, the
same refitted model; the fitted estimators come back from the workers and predict as the
in-memory ones. (That every estimator survives pickling, as it must between worker processes, is
``tests/test_common.py::test_pickle_roundtrip_predicts_identically``.)
"""

import numpy as np
import pytest

distributed = pytest.importorskip("dask.distributed")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")
joblib = pytest.importorskip("joblib")

from sklearn.base import clone  # noqa: E402
from sklearn.datasets import load_breast_cancer  # noqa: E402
from sklearn.model_selection import GridSearchCV, KFold, cross_validate  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

import aucopt  # noqa: E402
from aucopt import pooled_cindex_cv, survival_target  # noqa: E402
from aucopt.metrics import harrell_c  # noqa: E402

N = 80
GRIDS = {
    "LPRanker": {"C": [0.1, 1.0], "gamma": [0.1, 0.5]},
    "SurvivalLPRanker": {"C": [0.1, 1.0], "gamma": [0.1, 0.5]},
    "AUCSVM": {"C": [0.1, 1.0], "gamma": [0.1, 0.5]},
    "SurvivalAUCSVM": {"C": [0.1, 1.0], "gamma": [0.1, 0.5]},
    "RankSVM": {"alpha": [1e-3, 1e-1], "epsilon": [0.5, 1.0]},
    "SurvivalRankSVM": {"alpha": [1e-3, 1e-1], "epsilon": [0.5, 1.0]},
    "RankRC": {"alpha": [1e-3, 1e-1], "basis_size": [10, 20]},
    "SurvivalRankRC": {"alpha": [1e-3, 1e-1], "basis_size": [10, 20]},
    "SparseAUC": {"C": [0.1, 1.0], "basis_size": [8, 12]},
    "SurvivalSparseAUC": {"C": [0.1, 1.0], "basis_size": [8, 12]},
    "OnePassAUC": {"alpha": [1e-4, 1e-2], "average": [True, False]},
    "CoxPH": {"alpha": [0.01, 0.1], "l1_ratio": [0.0, 0.5]},
}
SURVIVAL = ["SurvivalLPRanker", "SurvivalAUCSVM", "SurvivalRankSVM", "SurvivalRankRC", "SurvivalSparseAUC", "CoxPH"]


def _data():
    """80 breast-cancer rows (5 standardized features), their labels, and a censored survival target."""
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    rows = rng.choice(len(y), N, replace=False)
    X = StandardScaler().fit_transform(X[rows][:, :5])
    t, c = rng.exponential(np.exp(-X[:, 0])), rng.exponential(2.0, size=N)
    return X, y[rows], survival_target(t <= c, np.minimum(t, c))


X, Y_BINARY, Y_SURVIVAL = _data()


def _target(name):
    return Y_SURVIVAL if name in SURVIVAL else Y_BINARY


def test_every_estimator_is_covered():
    estimators = [name for name in aucopt.__all__ if isinstance(getattr(aucopt, name), type)
                  and hasattr(getattr(aucopt, name), "fit") and not name.endswith("Mixin")
                  and name not in ("KernelPairRanker",)]
    assert sorted(estimators) == sorted(GRIDS)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name", list(GRIDS))
def test_grid_search_on_dask_equals_in_memory(client, name):
    estimator, grid, y = getattr(aucopt, name)(), GRIDS[name], _target(name)
    cv = KFold(2, shuffle=True, random_state=0)
    local = GridSearchCV(estimator, grid, cv=cv, n_jobs=1, error_score="raise").fit(X, y)
    with distributed.get_task_stream(client) as stream, joblib.parallel_backend("dask"):
        remote = GridSearchCV(estimator, grid, cv=cv, n_jobs=-1, error_score="raise").fit(X, y)
    assert len(stream.data) >= 1  # the fits ran on the workers
    assert remote.best_params_ == local.best_params_
    assert remote.best_score_ == local.best_score_
    for key in ("split0_test_score", "split1_test_score", "mean_test_score", "rank_test_score"):
        assert np.array_equal(remote.cv_results_[key], local.cv_results_[key]), key
    assert remote.cv_results_["params"] == local.cv_results_["params"]
    assert np.array_equal(remote.best_estimator_.predict(X), local.best_estimator_.predict(X))

    # fitted estimators come back from the workers (pickled) and predict as the in-memory ones
    with joblib.parallel_backend("dask"):
        fitted = cross_validate(estimator, X, y, cv=cv, n_jobs=-1, return_estimator=True)
    reference = cross_validate(estimator, X, y, cv=cv, n_jobs=1, return_estimator=True)
    assert np.array_equal(fitted["test_score"], reference["test_score"])
    for a, b in zip(fitted["estimator"], reference["estimator"], strict=False):
        assert np.array_equal(a.predict(X), b.predict(X))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name", SURVIVAL)
def test_pooled_cindex_cv_on_dask_equals_in_memory(client, name):
    params = {k: v[0] for k, v in GRIDS[name].items()}
    estimator = getattr(aucopt, name)(**params)
    local = pooled_cindex_cv(estimator, X, Y_SURVIVAL, n_splits=2, n_repeats=2, n_jobs=1)
    with distributed.get_task_stream(client) as stream, joblib.parallel_backend("dask"):
        remote = pooled_cindex_cv(estimator, X, Y_SURVIVAL, n_splits=2, n_repeats=2, n_jobs=-1)
    assert len(stream.data) >= 1
    for field in ("pooled_c", "fold_c", "percentiles", "scores", "folds"):
        assert np.array_equal(getattr(remote, field), getattr(local, field), equal_nan=True), field
    # the pooled C of each repetition is Harrell's C of the pooled percentiles
    assert remote.pooled_c[0] == harrell_c(Y_SURVIVAL, remote.percentiles[0])


def test_dask_dataframe_survival_target_for_estimators_and_protocol(client):
    frame = pd.DataFrame({"event": Y_SURVIVAL["event"], "time": Y_SURVIVAL["time"]})
    ddf = dd.from_pandas(frame, npartitions=3)
    for y in (ddf, (ddf["event"], ddf["time"])):
        for estimator in (aucopt.SurvivalLPRanker(C=1.0, gamma=0.1), aucopt.CoxPH(alpha=0.1)):
            reference = clone(estimator).fit(X, Y_SURVIVAL)
            model = clone(estimator).fit(X, y)
            assert np.array_equal(model.predict(X), reference.predict(X))
            assert model.score(X, y) == reference.score(X, Y_SURVIVAL)
    result = pooled_cindex_cv(aucopt.CoxPH(alpha=0.1), X, ddf, n_splits=2, n_repeats=1)
    expected = pooled_cindex_cv(aucopt.CoxPH(alpha=0.1), X, Y_SURVIVAL, n_splits=2, n_repeats=1)
    assert np.array_equal(result.pooled_c, expected.pooled_c)
