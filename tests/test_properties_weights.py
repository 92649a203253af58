"""Property: a zero sample weight is the same as removing the row.

For random data, random positive weights and a random set of zero-weight rows, the fit with the
zero weights and the fit on the remaining rows (their weights unchanged) give the same model:
the same predictions on every row of X, the same objective and the same number of pairs. The
oracle is the fit on the reduced data, which never sees the removed rows.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aucopt import LPRanker, RankSVM, SurvivalRankSVM, survival_target

N = 24


@st.composite
def weighted_binary(draw):
    """X (N × 3), labels with both classes among the kept rows, weights with some zeros."""
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, 3))
    y = (X[:, 0] + rng.normal(scale=1.0, size=N) > 0).astype(int)
    y[:2], y[2:4] = 1, 0  # both classes present
    zero = np.array(draw(st.lists(st.booleans(), min_size=N, max_size=N)))
    zero[[0, 2]] = False  # one positive and one negative always kept
    w = rng.uniform(0.2, 3.0, size=N)
    w[zero] = 0.0
    return X, y, w


@st.composite
def weighted_survival(draw):
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, 3))
    time = rng.exponential(np.exp(-X[:, 0]))
    event = rng.random(N) < 0.7
    event[0], time[0] = True, 0.0  # an early event: a comparable pair among the kept rows
    zero = np.array(draw(st.lists(st.booleans(), min_size=N, max_size=N)))
    zero[[0, 1]] = False
    w = rng.uniform(0.2, 3.0, size=N)
    w[zero] = 0.0
    return X, survival_target(event, time), w


def _assert_same_model(weighted, removed, X):
    np.testing.assert_allclose(weighted.decision_function(X), removed.decision_function(X), rtol=1e-8, atol=1e-8)
    assert weighted.objective_ == pytest.approx(removed.objective_, rel=1e-8, abs=1e-12)
    assert weighted.n_pairs_ == removed.n_pairs_


SETTINGS = {"max_examples": 20, "deadline": None, "derandomize": True,
            "suppress_health_check": [HealthCheck.too_slow]}


@settings(**SETTINGS)
@given(weighted_binary())
def test_ranksvm_zero_weight_is_removal(data):
    X, y, w = data
    keep = w > 0
    weighted = RankSVM(alpha=1e-2).fit(X, y, sample_weight=w)
    removed = RankSVM(alpha=1e-2).fit(X[keep], y[keep], sample_weight=w[keep])
    _assert_same_model(weighted, removed, X)
    np.testing.assert_array_equal(weighted.predict(X), removed.predict(X))


@settings(**SETTINGS)
@given(weighted_binary())
def test_lp_ranker_zero_weight_is_removal(data):
    X, y, w = data
    keep = np.flatnonzero(w > 0)
    weighted = LPRanker(C=1.0, kernel="linear").fit(X, y, sample_weight=w)
    removed = LPRanker(C=1.0, kernel="linear").fit(X[keep], y[keep], sample_weight=w[keep])
    _assert_same_model(weighted, removed, X)
    np.testing.assert_array_equal(weighted.support_, keep[removed.support_])
    assert np.all(w[weighted.support_] > 0)  # no zero-weight row in the expansion


@settings(**SETTINGS)
@given(weighted_survival())
def test_survival_ranksvm_zero_weight_is_removal(data):
    X, y, w = data
    keep = w > 0
    weighted = SurvivalRankSVM(alpha=1e-2).fit(X, y, sample_weight=w)
    removed = SurvivalRankSVM(alpha=1e-2).fit(X[keep], y[keep], sample_weight=w[keep])
    _assert_same_model(weighted, removed, X)
