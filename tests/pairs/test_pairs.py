"""Properties of aucopt.pairs.PairSet against brute-force pair enumeration.

Oracles: explicit double loops over (i, j) for positives x negatives and for Harrell's
comparable set {(i, j): i != j, event_i and (t_i < t_j or (t_i == t_j and not event_j))}.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aucopt import PairSet, survival_target
from aucopt.pairs import BYTES_PER_PAIR

# ----------------------------------------------------------------------------- oracles


def brute_bipartite(is_pos):
    m = len(is_pos)
    return sorted((i, j) for i in range(m) for j in range(m) if is_pos[i] and not is_pos[j])


def brute_harrell(event, time):
    m = len(time)
    return sorted(
        (i, j)
        for i in range(m)
        for j in range(m)
        if i != j and event[i] and (time[i] < time[j] or (time[i] == time[j] and not event[j]))
    )


def listed(pairs: PairSet):
    """Pairs as a sorted list of (i, j) (empty list for an empty set)."""
    if pairs.n_pairs == 0:
        return []
    i, j, _ = pairs.to_arrays()
    out = sorted(zip(i.tolist(), j.tolist()))
    assert len(set(out)) == len(out), "to_arrays listed a pair twice"
    return out


def check_against(pairs: PairSet, expected, point_weights=None):
    """Enumeration, counts and weights of ``pairs`` equal the brute-force list ``expected``."""
    m = pairs.n_points
    assert listed(pairs) == expected
    assert pairs.n_pairs == len(expected)
    counts = np.zeros(m, dtype=int)
    for i, _ in expected:
        counts[i] += 1
    np.testing.assert_array_equal(pairs.partner_counts, counts)
    if point_weights is None:
        assert pairs.total_weight() == pytest.approx(len(expected))
    else:
        brute = sum(point_weights[i] * point_weights[j] for i, j in expected)
        assert pairs.total_weight() == pytest.approx(brute, rel=1e-12, abs=1e-12)
        if expected:
            i, j, w = pairs.to_arrays()
            np.testing.assert_allclose(w, point_weights[i] * point_weights[j], rtol=1e-15)
    if expected:
        i, j, w = pairs.to_arrays()
        assert i.dtype == np.int32 and j.dtype == np.int32 and w.dtype == np.float64
        if point_weights is None:
            np.testing.assert_array_equal(w, 1.0)


# ----------------------------------------------------------------------------- bipartite


@pytest.mark.parametrize("seed", range(5))
def test_bipartite_equals_pos_times_neg(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 40))
    y = rng.integers(0, 2, m)
    y[0], y[1] = 0, 1  # both classes present
    is_pos = y == 1
    pairs = PairSet.bipartite(y)
    assert pairs.target == "bipartite" and pairs.storage == "sorted" and pairs.n_points == m
    check_against(pairs, brute_bipartite(is_pos))
    assert pairs.n_pairs == is_pos.sum() * (~is_pos).sum()
    np.testing.assert_array_equal(pairs.signs, np.where(is_pos, 1.0, -1.0))


def test_bipartite_label_encodings_agree():
    rng = np.random.default_rng(7)
    is_pos = rng.random(25) < 0.4
    is_pos[:2] = [True, False]
    expected = brute_bipartite(is_pos)
    encodings = [
        PairSet.bipartite(is_pos.astype(int)),  # {0, 1}
        PairSet.bipartite(np.where(is_pos, 1, -1)),  # {-1, 1}
        PairSet.bipartite(np.where(is_pos, 1.0, 0.0)),  # float {0., 1.}
        PairSet.bipartite(is_pos),  # bool
        PairSet.bipartite(is_pos.tolist()),  # python list of bool
        PairSet.bipartite(np.where(is_pos, "sick", "well"), pos_label="sick"),
        PairSet.bipartite(np.where(is_pos, "b", "a")),  # default pos_label: larger class
        PairSet.bipartite(np.where(is_pos, 0, 1), pos_label=0),  # non-default positive
        PairSet.bipartite(is_pos.astype(int)[:, None]),  # column vector
        PairSet.from_target(is_pos.astype(int)),
    ]
    for pairs in encodings:
        assert listed(pairs) == expected
        np.testing.assert_array_equal(pairs.signs, np.where(is_pos, 1.0, -1.0))


def test_bipartite_point_weights():
    rng = np.random.default_rng(3)
    y = np.array([1, 0, 0, 1, 0, 1, 1, 0, 0])
    w = rng.uniform(0, 3, len(y))
    w[2] = 0.0
    check_against(PairSet.bipartite(y, point_weights=w), brute_bipartite(y == 1), point_weights=w)


# ----------------------------------------------------------------------------- survival


@st.composite
def survival_data(draw, max_size=12):
    m = draw(st.integers(1, max_size))
    # few distinct times -> many ties, including ties between events and censored subjects
    time = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 7.25]), min_size=m, max_size=m)))
    event = np.array(draw(st.lists(st.booleans(), min_size=m, max_size=m)))
    return event, time


@settings(max_examples=200, deadline=None)
@given(survival_data())
def test_survival_equals_brute_force_harrell(data):
    event, time = data
    pairs = PairSet.survival(event, time)
    assert pairs.target == "survival" and pairs.n_points == len(time)
    check_against(pairs, brute_harrell(event, time))
    np.testing.assert_array_equal(pairs.signs, np.where(event, 1.0, -1.0))


@settings(max_examples=100, deadline=None)
@given(survival_data(), st.data())
def test_survival_point_weights_total_weight(data, draw):
    event, time = data
    w = np.array(draw.draw(st.lists(st.floats(0, 5), min_size=len(time), max_size=len(time))))
    pairs = PairSet.survival(event, time, point_weights=w)
    check_against(pairs, brute_harrell(event, time), point_weights=w)


@pytest.mark.parametrize(
    "event, time",
    [
        ([True], [1.0]),
        ([False], [1.0]),
        ([True, False], [1.0, 1.0]),  # tie, event vs censored: comparable
        ([True, True], [1.0, 1.0]),  # tie, two events: not comparable
        ([False, True], [1.0, 1.0]),
        ([True, False], [2.0, 1.0]),  # censored before the event: not comparable
        ([True, True, False], [1.0, 1.0, 1.0]),
        ([False, True, True], [0.0, 3.0, 1.0]),
        ([True, False, True], [5.0, 5.0, 0.0]),
    ],
)
def test_survival_tiny_cases(event, time):
    event, time = np.array(event), np.array(time)
    check_against(PairSet.survival(event, time), brute_harrell(event, time))


def test_survival_random_continuous_times_with_ties():
    rng = np.random.default_rng(11)
    m = 60
    time = np.round(rng.exponential(3.0, m), 1)  # rounding creates ties
    event = rng.random(m) < 0.6
    check_against(PairSet.survival(event, time), brute_harrell(event, time))


def test_all_censored_has_no_comparable_pair():
    pairs = PairSet.survival(np.zeros(6, dtype=bool), np.arange(6.0))
    assert pairs.n_pairs == 0
    assert pairs.total_weight() == 0.0
    np.testing.assert_array_equal(pairs.partner_counts, 0)
    with pytest.raises(ValueError, match="comparable"):
        pairs.to_arrays()
    with pytest.raises(ValueError, match="comparable"):
        pairs.check_nonempty()


def test_all_events():
    time = np.array([3.0, 1.0, 1.0, 2.0, 5.0, 3.0])
    event = np.ones(6, dtype=bool)
    expected = sorted((i, j) for i in range(6) for j in range(6) if time[i] < time[j])
    assert brute_harrell(event, time) == expected
    pairs = PairSet.survival(event, time)
    check_against(pairs, expected)
    assert pairs.check_nonempty() is pairs


def test_survival_target_encodings_agree():
    rng = np.random.default_rng(5)
    m = 30
    time = rng.integers(0, 8, m).astype(float)
    event = rng.random(m) < 0.5
    expected = brute_harrell(event, time)
    time_first = np.empty(m, dtype=[("days", float), ("died", bool)])
    time_first["days"], time_first["died"] = time, event
    targets = [
        survival_target(event, time),
        survival_target(event.astype(int), time.astype(int), event_name="e", time_name="t"),
        time_first,  # field order does not matter: the boolean field is the event
        (event, time),
        (event.astype(int), time.tolist()),
    ]
    for y in targets:
        assert listed(PairSet.survival(y)) == expected
        assert listed(PairSet.from_target(y)) == expected
        assert PairSet.from_target(y).target == "survival"
    assert listed(PairSet.survival(event.astype(float), time)) == expected


def test_sksurv_structured_array_agrees():
    surv = pytest.importorskip("sksurv.util")
    rng = np.random.default_rng(6)
    time = rng.integers(1, 6, 25).astype(float)
    event = rng.random(25) < 0.5
    y = surv.Surv.from_arrays(event=event, time=time)
    assert listed(PairSet.survival(y)) == brute_harrell(event, time)
    assert listed(PairSet.from_target(y)) == brute_harrell(event, time)


# ----------------------------------------------------------------------------- memory limit


def test_to_arrays_max_bytes():
    y = np.array([1] * 7 + [0] * 9)
    pairs = PairSet.bipartite(y)
    need = 63 * BYTES_PER_PAIR
    assert pairs.n_pairs == 63 and pairs.nbytes_explicit() == need
    with pytest.raises(ValueError, match="pairs") as excinfo:
        pairs.to_arrays(max_bytes=need - 1)
    assert "63" in str(excinfo.value)
    assert len(pairs.to_arrays(max_bytes=need)[0]) == 63
    assert len(pairs.to_arrays(max_bytes=None)[0]) == 63


def test_to_arrays_max_bytes_names_large_count():
    y = np.r_[np.ones(1500), np.zeros(1000)]
    pairs = PairSet.bipartite(y)
    with pytest.raises(ValueError, match=r"1,500,000 pairs"):
        pairs.to_arrays(max_bytes=1_000_000)


# ----------------------------------------------------------------------------- explicit pairs


def test_from_arrays_roundtrip():
    i, j, w = [0, 0, 2, 3, 3], [1, 2, 1, 0, 4], [1.0, 0.5, 2.0, 0.0, 3.0]
    pairs = PairSet.from_arrays(i, j, w, n_points=5)
    assert pairs.storage == "explicit" and pairs.target == "custom" and pairs.n_pairs == 5
    ii, jj, ww = pairs.to_arrays()
    np.testing.assert_array_equal(ii, i)
    np.testing.assert_array_equal(jj, j)
    np.testing.assert_array_equal(ww, w)
    np.testing.assert_array_equal(pairs.partner_counts, [2, 0, 1, 2, 0])
    assert pairs.total_weight() == pytest.approx(6.5)
    np.testing.assert_array_equal(pairs.signs, [1, -1, 1, 1, -1])
    assert PairSet.from_arrays(i, j, n_points=5).total_weight() == 5.0


@pytest.mark.parametrize(
    "i, j, w, match",
    [
        ([0, 1], [1, 5], None, r"\[0, 5\)"),  # j out of range
        ([-1, 1], [1, 2], None, r"\[0, 5\)"),  # negative index
        ([0, 2], [1, 2], None, "cannot"),  # i == j
        ([0, 1], [1, 2], [1.0, -0.5], "non-negative"),
        ([0, 1], [1, 2], [1.0, np.nan], "NaN"),
        ([0, 1], [1], None, "Inconsistent"),
        ([0, 1], [1, 2], [1.0], "Inconsistent"),
    ],
)
def test_from_arrays_validation(i, j, w, match):
    with pytest.raises(ValueError, match=match):
        PairSet.from_arrays(i, j, w, n_points=5)


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "event, time, match",
    [
        ([1, 0, 1], [1.0, np.nan, 2.0], "NaN"),
        ([1, 0, 1], [1.0, np.inf, 2.0], "NaN or infinite"),
        ([1, 0, 1], [1.0, -2.0, 2.0], "non-negative"),
        ([1, 0, 2], [1.0, 2.0, 3.0], "boolean-like"),
        ([0.5, 0, 1], [1.0, 2.0, 3.0], "boolean-like"),
        (["y", "n", "y"], [1.0, 2.0, 3.0], "boolean-like"),
        ([1, 0, 1], [1.0, 2.0], "Inconsistent"),
    ],
)
def test_survival_bad_input(event, time, match):
    with pytest.raises(ValueError, match=match):
        PairSet.survival(np.array(event), np.array(time))


def test_survival_bad_structured_targets():
    two_floats = np.zeros(3, dtype=[("event", float), ("time", float)])
    with pytest.raises(ValueError, match="boolean"):
        PairSet.survival(two_floats)
    three = np.zeros(3, dtype=[("event", bool), ("time", float), ("x", float)])
    with pytest.raises(ValueError, match="survival target"):
        PairSet.survival(three)
    with pytest.raises(ValueError, match="survival target"):
        PairSet.survival(np.array([1.0, 2.0]))


@pytest.mark.parametrize(
    "y, match",
    [
        ([1, 1, 1], "one class"),
        ([0, 1, 2], "binary"),
        (["a", "b", "c", "a"], "binary"),
        ([0.0, 1.0, np.nan], "NaN"),
        (np.zeros((2, 3)), "1-dimensional"),
    ],
)
def test_bipartite_bad_labels(y, match):
    with pytest.raises(ValueError, match=match):
        PairSet.bipartite(np.asarray(y))


def test_bipartite_unknown_pos_label():
    with pytest.raises(ValueError, match="pos_label"):
        PairSet.bipartite(["a", "b", "a"], pos_label="c")


@pytest.mark.parametrize(
    "w, match",
    [([1.0, 1.0], "Inconsistent"), ([1.0, -1.0, 1.0], "non-negative"), ([1.0, np.nan, 1.0], "NaN")],
)
def test_bad_point_weights(w, match):
    with pytest.raises(ValueError, match=match):
        PairSet.bipartite([0, 1, 1], point_weights=w)
    with pytest.raises(ValueError, match=match):
        PairSet.survival([True, False, True], [1.0, 2.0, 3.0], point_weights=w)
