"""Agglomerative local clustering (Ataman 2007, Sec. 4.3.1, Fig. 4.2; the readings b / bp / f of the figure)."""

from __future__ import annotations

import numpy as np
import pytest

from aucopt.exceptions import ProblemTooLargeError
from aucopt.lp._clustering import VARIANTS, LocalClusters, local_clustering
from aucopt.pairs import PairSet


# --------------------------------------------------------------------------- naive reference
def naive_local_clustering(X, pos, variant):
    """O(m³) reference: recompute every candidate distance from the member means at each step.

    Tie rule (shared with the fast code by specification, not by implementation): smallest
    (squared distance, r, s) with r < s the representatives = smallest member index.
    Returns (partition as a sorted tuple of member tuples, {rep: center}, set of flagged reps,
    number of blocked pairs).
    """
    X = np.asarray(X, float)
    members = {r: [r] for r in range(len(X))}
    flagged = {r: False for r in range(len(X))}
    blocked = set()
    n_blocked = 0
    while True:
        reps = sorted(members)
        centers = {r: X[members[r]].mean(axis=0) for r in reps}
        best = None
        for ii, r in enumerate(reps):
            for s in reps[ii + 1:]:
                if variant == "b":
                    if flagged[r] or flagged[s]:
                        continue
                elif (flagged[r] and flagged[s]) or (r, s) in blocked:
                    continue
                diff = centers[r] - centers[s]
                key = (float(np.sum(diff * diff)), r, s)
                if best is None or key < best:
                    best = key
        if best is None:
            break
        _, r, s = best
        if pos[r] == pos[s] and not flagged[r] and not flagged[s]:
            members[r] = members[r] + members.pop(s)
            flagged.pop(s)
            blocked = {p for p in blocked if r not in p and s not in p}  # a new center
        elif pos[r] != pos[s] or variant == "bp":
            flagged[r] = flagged[s] = True
        else:
            blocked.add((r, s))
            n_blocked += 1
    partition = tuple(sorted(tuple(sorted(v)) for v in members.values()))
    centers = {r: X[v].mean(axis=0) for r, v in members.items()}
    return partition, centers, {r for r, f in flagged.items() if f}, n_blocked


def partition_of(labels):
    groups = {}
    for i, c in enumerate(labels):
        groups.setdefault(int(c), []).append(i)
    return tuple(sorted(tuple(v) for v in groups.values()))


def check_invariants(res: LocalClusters, X, pos):
    m = len(X)
    k = res.n_points_after
    assert res.n_points_before == m
    assert res.centers.shape == (k, X.shape[1])
    assert res.weights.shape == res.positive.shape == res.flagged.shape == (k,)
    assert res.labels.shape == (m,) and res.labels.min() == 0 and res.labels.max() == k - 1
    # weights = member counts, per class sums n+ / n-
    np.testing.assert_array_equal(res.weights, np.bincount(res.labels, minlength=k))
    assert res.weights.sum() == m
    assert res.weights[res.positive].sum() == pos.sum()
    assert res.weights[~res.positive].sum() == (~pos).sum()
    # every center is single-class and the mean of its members
    np.testing.assert_array_equal(res.positive[res.labels], pos)
    for c in range(k):
        np.testing.assert_allclose(res.centers[c], X[res.labels == c].mean(axis=0),
                                   rtol=1e-12, atol=1e-12)
    # centers ordered by smallest member index
    _, first = np.unique(res.labels, return_index=True)
    assert np.all(np.diff(first) > 0)
    # pair counts and reduced pair weights: Σ w_s w_t = n+ n-
    n_pos = int(pos.sum())
    k_pos = int(res.positive.sum())
    assert res.n_pairs_before == n_pos * (m - n_pos)
    assert res.n_pairs_after == k_pos * (k - k_pos)
    pairs = res.pairs()
    assert isinstance(pairs, PairSet) and pairs.n_points == k
    assert pairs.n_pairs == res.n_pairs_after
    assert pairs.total_weight() == pytest.approx(res.n_pairs_before, rel=0, abs=1e-9)
    i, j, w = pairs.to_arrays()
    assert np.all(res.positive[i]) and not np.any(res.positive[j])
    np.testing.assert_array_equal(w, res.weights[i] * res.weights[j])
    brute = sum(float(res.weights[s] * res.weights[t])
                for s in np.flatnonzero(res.positive) for t in np.flatnonzero(~res.positive))
    assert brute == res.n_pairs_before
    # termination (Fig. 4.2 "while not all centers are flagged"):
    if res.variant == "b":
        assert np.sum(~res.flagged) < 2  # fewer than two unflagged centers remain
    else:
        # no candidate pair (≥ 1 unflagged member) remains; an unflagged center would still
        # have an (unblockable) opposite-class candidate, so every center ends flagged
        assert np.all(res.flagged)


# --------------------------------------------------------------------------- data
def random_data(seed, m=60, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    pos = X[:, 0] + 0.7 * rng.normal(size=m) > 0
    if pos.all() or not pos.any():
        pos[0] = not pos[0]
    return X, pos


def grid_data(seed, m=36):
    """Integer points on a small 2-d grid: many exact distance ties (and duplicates)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(m, 2)).astype(float)
    pos = rng.random(m) < 0.5
    pos[:2] = [True, False]
    return X, pos


@pytest.fixture(scope="module")
def wdbc(breast_cancer):
    X, y = breast_cancer
    return X, y == 0  # malignant = positive, as in Ataman (2007)


def wdbc_subset(wdbc, size, seed):
    X, pos = wdbc
    idx = np.random.default_rng(seed).permutation(len(X))[:size]
    return X[idx], pos[idx]


# --------------------------------------------------------------------------- tests
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seed", range(3))
def test_invariants_random(variant, seed):
    X, pos = random_data(seed, m=120, d=4)
    check_invariants(local_clustering(X, pos, variant), X, pos)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("size,seed", [(100, 0), (250, 1), (455, 2)])
def test_invariants_wdbc(wdbc, variant, size, seed):
    X, pos = wdbc_subset(wdbc, size, seed)
    res = local_clustering(X, pos, variant)
    check_invariants(res, X, pos)
    assert res.n_points_after < size and res.n_pairs_after < res.n_pairs_before


def test_grid_invariants_with_duplicates():
    X, pos = grid_data(7, m=80)  # 80 points on 25 grid cells: duplicates of both classes
    for variant in VARIANTS:
        check_invariants(local_clustering(X, pos, variant), X, pos)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seed", range(6))
def test_matches_naive_reference_random(variant, seed):
    X, pos = random_data(100 + seed, m=20 + 4 * seed, d=2 + seed % 3)
    res = local_clustering(X, pos, variant)
    partition, centers, flagged, n_blocked = naive_local_clustering(X, pos, variant)
    assert partition_of(res.labels) == partition
    reps = [grp[0] for grp in partition]  # center c has smallest member reps[c]
    np.testing.assert_allclose(res.centers, np.array([centers[r] for r in reps]), atol=1e-12)
    np.testing.assert_array_equal(res.flagged, [r in flagged for r in reps])
    assert res.n_blocked == n_blocked


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seed", range(8))
def test_matches_naive_reference_with_ties(variant, seed):
    """Integer grid: exact ties everywhere; both codes must apply the same tie rule."""
    X, pos = grid_data(seed, m=24 + 2 * seed)
    res = local_clustering(X, pos, variant)
    partition, centers, flagged, n_blocked = naive_local_clustering(X, pos, variant)
    assert partition_of(res.labels) == partition
    reps = [grp[0] for grp in partition]
    np.testing.assert_array_equal(res.centers, np.array([centers[r] for r in reps]))
    np.testing.assert_array_equal(res.flagged, [r in flagged for r in reps])
    assert res.n_blocked == n_blocked


def test_hand_example_literal_b_merges_across_flagged_point():
    # + at 0, − at 1, + at 1.2, + at 3: (1, 1.2) flagged first; b then merges 0 with 3
    X = np.array([[0.0], [1.0], [1.2], [3.0]])
    pos = np.array([True, False, True, True])
    b = local_clustering(X, pos, "b")
    assert partition_of(b.labels) == ((0, 3), (1,), (2,))
    np.testing.assert_allclose(b.centers[0], [1.5])
    assert b.weights.tolist() == [2, 1, 1]
    for variant in ("bp", "f"):  # the flagged − point blocks that merge
        assert local_clustering(X, pos, variant).n_points_after == 4


def test_hand_example_bp_vs_f():
    # +(-0.95), +(0), +(0.9), −(1.0): (0.9, 1.0) flagged; then (0, 0.9) is same-class with a
    # flagged member: bp flags 0, f only blocks that pair and merges 0 with -0.95 next; the
    # merged center (-0.475) is then blocked against 0.9 and flagged against the − point.
    X = np.array([[-0.95], [0.0], [0.9], [1.0]])
    pos = np.array([True, True, True, False])
    bp = local_clustering(X, pos, "bp")
    f = local_clustering(X, pos, "f")
    b = local_clustering(X, pos, "b")
    assert bp.n_points_after == 4 and bp.n_merges == 0
    assert partition_of(f.labels) == ((0, 1), (2,), (3,)) and f.n_blocked == 2
    assert partition_of(b.labels) == ((0, 1), (2,), (3,)) and b.n_blocked == 0
    assert f.weights.tolist() == [2, 1, 1] and f.n_pairs_after == 2


def test_literal_b_reduces_most():
    cases = [random_data(s, m=150, d=d) for s, d in [(0, 2), (1, 3), (2, 5), (3, 8)]]
    cases += [grid_data(s, m=60) for s in range(3)]
    for X, pos in cases:
        k = {v: local_clustering(X, pos, v).n_points_after for v in VARIANTS}
        assert k["b"] <= k["f"] and k["b"] <= k["bp"], k


def test_wdbc_reduction_matches_reference_counts(wdbc):
    """WDBC min-max, 455 points; an earlier independent implementation found b 31–39, bp 159–189, f 69–76."""
    for seed in range(3):
        X, pos = wdbc_subset(wdbc, 455, seed)
        k = {v: local_clustering(X, pos, v).n_points_after for v in VARIANTS}
        assert k["b"] < k["f"] < k["bp"], k
        assert 20 <= k["b"] <= 50, k
        assert 140 <= k["bp"] <= 220, k
        assert 55 <= k["f"] <= 100, k


def test_reduction_fractions():
    X, pos = random_data(5, m=100)
    res = local_clustering(X, pos, "b")
    assert res.point_reduction == pytest.approx(1 - res.n_points_after / 100)
    assert res.pair_reduction == pytest.approx(1 - res.n_pairs_after / res.n_pairs_before)


def test_accepts_01_labels_and_lists():
    X, pos = random_data(6, m=30)
    a = local_clustering(X, pos, "f")
    c = local_clustering(X.tolist(), pos.astype(int).tolist(), "f")
    np.testing.assert_array_equal(a.labels, c.labels)


def test_2000_points_keep_every_point_in_a_center():
    """At 2,000 points (its time: benchmarks/lp_ranker_scale.py) every point is in one center."""
    rng = np.random.default_rng(0)
    X = rng.random((2000, 10))
    pos = X[:, 0] + 0.3 * rng.normal(size=2000) > 0.5
    res = local_clustering(X, pos, "f")
    assert res.weights.sum() == 2000


# --------------------------------------------------------------------------- bad input
def test_bad_input():
    X, pos = random_data(0, m=20)
    with pytest.raises(ValueError, match="The 'variant' parameter of local_clustering must be a str among"):
        local_clustering(X, pos, "c")
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        local_clustering(Xn, pos)
    with pytest.raises(ValueError, match="rows"):
        local_clustering(X, pos[:-1])
    with pytest.raises(ValueError, match="2-dimensional"):
        local_clustering(X[:, 0], pos)
    with pytest.raises(ValueError, match="one class"):
        local_clustering(X, np.ones(20, bool))
    with pytest.raises(ValueError, match="one class"):
        local_clustering(X, np.zeros(20, bool))
    with pytest.raises(ValueError, match="boolean-like"):
        local_clustering(X, np.arange(20) % 3)
    with pytest.raises(ValueError, match="numeric"):
        local_clustering(np.array([["a", "b"]] * 20), pos)
    with pytest.raises(ValueError, match="The 'max_bytes' parameter of local_clustering"):
        local_clustering(X, pos, max_bytes=0)
    # the 20 x 20 distance matrix and pdist's condensed vector need 4,800 bytes: refused below that
    with pytest.raises(ProblemTooLargeError, match=r"Local clustering of 20 points.*4\.8 kB.*: use RankRC"):
        local_clustering(X, pos, max_bytes=4799)
    assert local_clustering(X, pos, max_bytes=4800).n_points_before == 20
    assert local_clustering(X, pos, max_bytes=None).n_points_before == 20
