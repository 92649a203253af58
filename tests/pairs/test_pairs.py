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
from aucopt.exceptions import NoComparablePairsError, ProblemTooLargeError
from aucopt.pairs import BYTES_PER_PAIR, survival_pair_arrays

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
    out = sorted(zip(i.tolist(), j.tolist(), strict=False))
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
    with pytest.raises(NoComparablePairsError, match="comparable"):
        pairs.to_arrays()
    with pytest.raises(NoComparablePairsError, match="comparable"):
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
    with pytest.raises(ProblemTooLargeError, match="pairs") as excinfo:
        pairs.to_arrays(max_bytes=need - 1)
    assert "63" in str(excinfo.value)
    assert excinfo.value.nbytes == need and excinfo.value.max_bytes == need - 1
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


# ----------------------------------------------------------------------------- constructors x target x storage

EVENT = np.array([True, False, True, False, False, True, True, False])
TIME = np.array([2.0, 3.0, 3.0, 1.0, 5.0, 5.0, 0.5, 4.0])
Y = np.array([1, 0, 1, 0, 0, 1, 1, 0])


def _constructors():
    """(label, factory, target, storage, oracle pairs with weights) for every constructor and option."""
    harrell = [(i, j, 1.0) for i, j in brute_harrell(EVENT, TIME)]
    censored = [(i, j, 0.5) for i in range(8) for j in range(8)
                if not EVENT[i] and not EVENT[j] and TIME[i] < TIME[j]]
    pw = np.linspace(0.5, 2.0, 8)
    delta = {(i, j): TIME[j] - TIME[i] for i, j, _ in harrell}
    bip = [(i, j, 1.0) for i, j in brute_bipartite(Y == 1)]
    return [
        ("bipartite", lambda: PairSet.bipartite(Y), "bipartite", "sorted", bip),
        ("bipartite+weights", lambda: PairSet.bipartite(Y, point_weights=pw), "bipartite", "sorted",
         [(i, j, pw[i] * pw[j]) for i, j, _ in bip]),
        ("survival", lambda: PairSet.survival(EVENT, TIME), "survival", "sorted", harrell),
        ("survival+point_weights", lambda: PairSet.survival(EVENT, TIME, point_weights=pw), "survival", "sorted",
         [(i, j, pw[i] * pw[j]) for i, j, _ in harrell]),
        ("survival lprex", lambda: PairSet.survival(EVENT, TIME, variant="lprex"), "survival", "explicit",
         harrell + censored),
        ("survival time_weight", lambda: PairSet.survival(EVENT, TIME, time_weight="linear", time_scale=1.0),
         "survival", "explicit", [(i, j, 1.0 + delta[i, j]) for i, j, _ in harrell]),
        ("survival weights", lambda: PairSet.survival(EVENT, TIME, weights=lambda i, j, ti, tj, ei, ej: 2.0 + 0 * ti),
         "survival", "explicit", [(i, j, 2.0) for i, j, _ in harrell]),
        ("survival lprex+point_weights",
         lambda: PairSet.survival(EVENT, TIME, variant="lprex", point_weights=pw), "survival", "explicit",
         [(i, j, w * pw[i] * pw[j]) for i, j, w in harrell + censored]),
        ("from_target binary", lambda: PairSet.from_target(Y), "bipartite", "sorted", bip),
        ("from_target survival", lambda: PairSet.from_target(survival_target(EVENT, TIME)), "survival", "sorted",
         harrell),
        ("from_arrays", lambda: PairSet.from_arrays([0, 2, 5], [1, 1, 3], [1.0, 0.5, 2.0], n_points=8),
         "custom", "explicit", [(0, 1, 1.0), (2, 1, 0.5), (5, 3, 2.0)]),
        ("from_arrays bipartite", lambda: PairSet.from_arrays(*PairSet.bipartite(Y).to_arrays(), n_points=8,
                                                              signs=np.where(Y == 1, 1.0, -1.0), target="bipartite"),
         "bipartite", "explicit", bip),
        ("from_arrays survival", lambda: PairSet.from_arrays(*PairSet.survival(EVENT, TIME).to_arrays(), n_points=8,
                                                             signs=np.where(EVENT, 1.0, -1.0), target="survival"),
         "survival", "explicit", harrell),
    ]


CONSTRUCTORS = _constructors()


@pytest.mark.parametrize("label, factory, target, storage, expected", CONSTRUCTORS,
                         ids=[c[0] for c in CONSTRUCTORS])
def test_every_constructor_target_and_storage(label, factory, target, storage, expected):
    pairs = factory()
    assert (pairs.target, pairs.storage) == (target, storage)
    assert pairs.n_points == 8 and pairs.n_pairs == len(expected)
    i, j, w = pairs.to_arrays()
    got = sorted(zip(i.tolist(), j.tolist(), w.tolist(), strict=False))
    want = sorted((a, b, float(c)) for a, b, c in expected)
    assert [g[:2] for g in got] == [e[:2] for e in want]
    np.testing.assert_allclose([g[2] for g in got], [e[2] for e in want], rtol=1e-14)
    assert pairs.total_weight() == pytest.approx(sum(e[2] for e in expected), rel=1e-14)
    np.testing.assert_array_equal(pairs.partner_counts, np.bincount(i, minlength=8))
    assert pairs.nbytes_explicit() == len(expected) * BYTES_PER_PAIR
    # pairs_at follows the to_arrays order, for any positions
    positions = np.array([len(expected) - 1, 0, len(expected) // 2])
    pi, pj, pw_ = pairs.pairs_at(positions)
    np.testing.assert_array_equal(pi, i[positions])
    np.testing.assert_array_equal(pj, j[positions])
    np.testing.assert_array_equal(pw_, w[positions])
    if target == "survival":
        np.testing.assert_array_equal(pairs.signs, np.where(EVENT, 1.0, -1.0))
    elif target == "bipartite":
        np.testing.assert_array_equal(pairs.signs, np.where(Y == 1, 1.0, -1.0))
    assert pairs.check_nonempty() is pairs
    # the memory guard holds for both storages
    with pytest.raises(ProblemTooLargeError, match=f"Listing {len(expected)} pairs of 8 points"):
        pairs.to_arrays(max_bytes=pairs.nbytes_explicit() - 1)


def test_every_target_is_covered():
    """The table above has every target with every storage it can have."""
    combos = {(c[2], c[3]) for c in CONSTRUCTORS}
    assert combos == {("bipartite", "sorted"), ("bipartite", "explicit"), ("survival", "sorted"),
                      ("survival", "explicit"), ("custom", "explicit")}


def test_unknown_target_is_refused():
    with pytest.raises(ValueError,
                       match=r"target must be one of \('bipartite', 'survival', 'multipartite', 'custom'\)"):
        PairSet.from_arrays([0], [1], n_points=2, target="ranking")


@pytest.mark.parametrize("factory", [
    lambda: PairSet.survival(np.zeros(4, bool), np.arange(4.0)),  # sorted, survival
    lambda: PairSet.from_arrays([], [], n_points=3),  # explicit, custom
    lambda: PairSet.from_arrays([], [], n_points=3, target="bipartite"),  # explicit, bipartite
], ids=["sorted-survival", "explicit-custom", "explicit-bipartite"])
def test_empty_sets_raise_no_comparable_pairs(factory):
    pairs = factory()
    assert pairs.n_pairs == 0
    with pytest.raises(NoComparablePairsError):
        pairs.to_arrays()
    with pytest.raises(NoComparablePairsError):
        pairs.check_nonempty()
    assert issubclass(NoComparablePairsError, ValueError)


def test_explicit_survival_variants_raise_the_library_errors():
    with pytest.raises(NoComparablePairsError, match="no comparable pairs"):
        PairSet.survival(np.zeros(5, bool), np.arange(5.0), time_weight="linear")
    with pytest.raises(NoComparablePairsError):
        survival_pair_arrays(np.zeros(3, bool), np.arange(3.0))
    with pytest.raises(ProblemTooLargeError, match=r"Listing 23 survival pairs of 8 points would need about 552 B"):
        PairSet.survival(EVENT, TIME, variant="lprex", max_bytes=64)
    with pytest.raises(ProblemTooLargeError, match="never listed"):
        survival_pair_arrays(EVENT, TIME, time_weight="log", max_bytes=10)


# ----------------------------------------------------------------------------- weight checks
def test_scalar_point_weights_weigh_every_point_alike():
    y = np.array([1, 0, 0, 1, 0])
    event, time = np.array([True, False, True, True, False]), np.array([1.0, 2.0, 2.0, 3.0, 4.0])
    for make in (lambda w: PairSet.bipartite(y, point_weights=w),
                 lambda w: PairSet.survival(event, time, point_weights=w),
                 lambda w: PairSet.survival(event, time, point_weights=w, variant="lprex")):
        scalar, full = make(2.5), make(np.full(5, 2.5))
        assert scalar.total_weight() == full.total_weight() == 6.25 * make(None).total_weight()
    i, _j, w = survival_pair_arrays(event, time, point_weights=3.0)
    np.testing.assert_array_equal(w, np.full(len(i), 9.0))


@pytest.mark.parametrize("w", [1e160, [1.0, 1e200, 1.0, 1.0, 1.0], np.full(5, 1e154)])
def test_point_weights_whose_products_overflow_are_refused(w):
    y = np.array([1, 0, 0, 1, 0])
    with pytest.raises(ValueError, match=r"point_weights reaches .* overflow float64\. Rescale point_weights"):
        PairSet.bipartite(y, point_weights=w)
    with pytest.raises(ValueError, match="overflow float64"):
        survival_pair_arrays(y.astype(bool), np.arange(5.0), point_weights=w, variant="lprex")
    # just below the bound: accepted, and the total weight is finite
    assert np.isfinite(PairSet.bipartite(y, point_weights=1e150).total_weight())


def test_point_weights_messages_name_point_weights():
    y = np.array([1, 0, 0, 1, 0])
    with pytest.raises(ValueError, match="point_weights must be non-negative"):
        PairSet.bipartite(y, point_weights=-1.0)
    with pytest.raises(ValueError, match=r"point_weights must be a number"):
        PairSet.bipartite(y, point_weights="heavy")
    with pytest.raises(ValueError, match=r"Inconsistent numbers of samples \(point_weights: 2"):
        PairSet.survival(y.astype(bool), np.arange(5.0), point_weights=[1.0, 2.0])


def test_mixed_int_and_str_labels_raise_a_clear_value_error():
    y = np.array([0, "a", 0, "a"], dtype=object)
    with pytest.raises(ValueError, match=r"y mixes label types \(int, str\)"):
        PairSet.bipartite(y)
