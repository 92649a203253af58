"""Shared, session-cached data fixtures (only data that pip packages ship)."""

from __future__ import annotations

import numpy as np
import pytest


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
    event_field = [n for n in y.dtype.names if y.dtype[n].kind == "b"][0]
    time_field = [n for n in y.dtype.names if n != event_field][0]
    return X, np.asarray(y[event_field], bool), np.asarray(y[time_field], float)
