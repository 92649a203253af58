"""The time order of survival pairs: the packed-key sort of large pair sets is numpy's stable argsort."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aucopt import PairSet
from aucopt.pairs import _survival
from aucopt.pairs._sweeps import stable_argsort

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(finite, st.sampled_from([0.0, -0.0, 1.0, 1.0 + 2**-52, -3.5])), max_size=300))
def test_stable_argsort_is_numpys_stable_argsort(values):
    x = np.array(values, dtype=float)
    np.testing.assert_array_equal(stable_argsort(x), np.argsort(x, kind="stable"))


@pytest.mark.parametrize("seed", range(3))
def test_large_pair_sets_take_the_same_suffixes_and_censoring_curve(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    n = 3000
    time = np.round(rng.exponential(size=n), 2)  # many ties
    event = rng.random(n) < 0.6
    at = np.linspace(0.0, 3.0, 50)
    small = PairSet.survival(event, time)
    expected = small._suffixes()
    curve = _survival.censoring_survival_at(event, time, None, at)
    monkeypatch.setattr(_survival, "PACKED_SORT_FROM", 0)
    large = PairSet.survival(event, time)
    for got, want in zip(large._suffixes(), expected, strict=True):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(_survival.censoring_survival_at(event, time, None, at), curve)
    np.testing.assert_array_equal(_survival.time_order(time), np.argsort(time, kind="stable"))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, -0.0, 0.5, 1.0, 2.0]), st.booleans()), max_size=40))
def test_compiled_harrell_suffixes_are_the_numpy_ones(rows):
    """The one-pass compiled suffixes (large pair sets) equal the vectorized ones: tied times with
    events and censored subjects in any order, a single time, no event at all."""
    time = np.array([t for t, _ in rows], dtype=float)
    event = np.array([e for _, e in rows], dtype=bool)
    expected = _survival.harrell_suffixes(event, time)
    default = _survival.PACKED_SORT_FROM
    _survival.PACKED_SORT_FROM = 0
    try:
        got = _survival.harrell_suffixes(event, time)
    finally:
        _survival.PACKED_SORT_FROM = default
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_array_equal(g, e)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.booleans(), max_size=40))
def test_bipartite_suffixes_are_harrells_of_the_labels(labels):
    """Bipartite pairs are Harrell's of event = y, time = 1 - y; their suffixes need no sort."""
    positive = np.array(labels, dtype=bool)
    expected = _survival.harrell_suffixes(positive, (~positive).astype(float))
    for got, want in zip(_survival.bipartite_suffixes(positive), expected, strict=True):
        np.testing.assert_array_equal(got, want)
