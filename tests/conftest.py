"""Shared, session-cached data fixtures (only data that pip packages ship or that is generated here)."""

from __future__ import annotations

import os

import numpy as np
import pytest

# survival plots are tested: never open a window, whatever the machine has
os.environ.setdefault("MPLBACKEND", "Agg")


@pytest.fixture(scope="session")
def breast_cancer():
    """sklearn's WDBC data, min-max scaled to [0, 1]; y in {0, 1}."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import minmax_scale

    X, y = load_breast_cancer(return_X_y=True)
    return minmax_scale(X), y


@pytest.fixture(scope="session")
def whas500():
    """scikit-survival's WHAS500: numeric columns min-max scaled, (event: bool, time: float)."""
    pytest.importorskip("sksurv")
    from sklearn.preprocessing import minmax_scale
    from sksurv.datasets import load_whas500

    X, y = load_whas500()
    X = minmax_scale(X.select_dtypes("number").to_numpy(dtype=float))
    event_field = next(n for n in y.dtype.names if y.dtype[n].kind == "b")
    time_field = next(n for n in y.dtype.names if n != event_field)
    return X, np.asarray(y[event_field], bool), np.asarray(y[time_field], float)


def make_small_binary(n_samples: int = 60, n_features: int = 5, seed: int = 0):
    """Small binary problem: ``X`` of shape (n_samples, n_features), ``y`` in {0, 1}."""
    from sklearn.datasets import make_classification

    return make_classification(n_samples=n_samples, n_features=n_features, n_informative=3,
                               n_redundant=0, random_state=seed)


def make_small_survival(n_samples: int = 60, n_features: int = 5, seed: int = 0):
    """Small right-censored data from a proportional-hazards model (about 70% events).

    Returns ``X`` (about a third of the entries exactly zero, so that a sparse copy has
    structure), the boolean ``event`` and the float ``time`` (distinct values).
    """
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features))
    X[np.abs(X) < 0.4] = 0.0
    beta = np.zeros(n_features)
    beta[:3] = [1.0, -0.5, 0.5]
    event_time = rng.exponential(np.exp(-X @ beta))
    censor_time = rng.exponential(2.0, size=n_samples)
    event = event_time <= censor_time
    time = np.minimum(event_time, censor_time)
    return X, event, time


@pytest.fixture(scope="session")
def small_binary():
    """(X, y): 60 samples, 5 features, labels in {0, 1}."""
    return make_small_binary()


@pytest.fixture(scope="session")
def small_survival():
    """(X, y): 60 samples, 5 features, ``y`` the structured (event, time) target."""
    from aucopt import survival_target

    X, event, time = make_small_survival()
    return X, survival_target(event, time)


@pytest.fixture(scope="session")
def client():
    """A dask.distributed client on a real LocalCluster: 2 worker processes, 1 thread each (started once)."""
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  memory_limit="2GiB") as cluster, distributed.Client(cluster) as c:
        yield c
