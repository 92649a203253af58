"""metrics.multipartite_c_index against a brute-force double loop, scikit-learn and the pair core.

Oracles: the definition over every pair y_i > y_j written out here (ties within an absolute
tolerance, case weights w_i w_j), scikit-learn's roc_auc_score for two levels and for each pair
of levels (the index is their pair-count-weighted mean), row repetition for integer weights, and
the margin counts of the sorted-pair core over ``PairSet.multipartite`` (pairs with f_i - f_j < 0).
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from aucopt import PairSet
from aucopt.exceptions import NoComparablePairsError
from aucopt.metrics import TIED_TOL, multipartite_c_index, roc_auc
from aucopt.pairs.core import pair_counts


def brute_c_index(y, f, w=None, ties="half", tol=0.0):
    m = len(y)
    w = np.ones(m) if w is None else np.asarray(w, float)
    num = den = 0.0
    credit = 0.5 if ties == "half" else 0.0
    for i in range(m):
        for j in range(m):
            if y[i] > y[j]:
                pw = w[i] * w[j]
                den += pw
                d = f[i] - f[j]
                num += pw * (1.0 if d > tol else credit if abs(d) <= tol else 0.0)
    return num / den


def data(seed, m=40, n_levels=4, grid=True):
    rng = np.random.default_rng(seed)
    y = np.r_[np.arange(n_levels), rng.integers(0, n_levels, m - n_levels)]
    f = rng.integers(-5, 6, m) / 4.0 + 0.5 * y if grid else rng.normal(size=m) + 0.5 * y
    return y, f


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n_levels", [2, 3, 5])
@pytest.mark.parametrize("ties", ["half", "strict"])
def test_equals_brute_force_with_ties_and_weights(seed, n_levels, ties):
    y, f = data(seed, n_levels=n_levels)
    w = np.random.default_rng(seed + 100).choice([0.0, 0.5, 1.0, 3.0], size=len(y))
    w[:n_levels] = 1.0  # every level keeps a point of positive weight
    assert multipartite_c_index(y, f, ties=ties, tied_tol=0) == pytest.approx(brute_c_index(y, f, ties=ties), abs=1e-15)
    assert multipartite_c_index(y, f, ties=ties, tied_tol=0, sample_weight=w) == pytest.approx(
        brute_c_index(y, f, w, ties=ties), rel=1e-12)
    # the default tolerance is relative to the largest score magnitude
    g = f + 1e-12 * np.random.default_rng(seed).normal(size=len(f))  # round-off around the grid
    tol = TIED_TOL * np.max(np.abs(g))
    assert multipartite_c_index(y, g, ties=ties) == pytest.approx(brute_c_index(y, g, ties=ties, tol=tol), abs=1e-15)
    assert multipartite_c_index(y, g, ties=ties) == multipartite_c_index(y, f, ties=ties, tied_tol=0)


@pytest.mark.parametrize("seed", range(3))
def test_two_levels_are_the_auc(seed):
    y, f = data(seed, n_levels=2)
    assert multipartite_c_index(y, f) == pytest.approx(roc_auc_score(y, f), abs=1e-15)
    assert multipartite_c_index(y, f, ties="strict") == roc_auc(y, f, ties="strict")
    w = np.random.default_rng(seed).random(len(y))
    assert multipartite_c_index(y, f, sample_weight=w) == pytest.approx(roc_auc_score(y, f, sample_weight=w), rel=1e-12)


def test_is_the_pair_weighted_mean_of_the_pairwise_aucs():
    y, f = data(7, m=120, n_levels=4, grid=False)
    n = np.bincount(y)
    num = den = 0.0
    for a in range(4):
        for b in range(a):
            mask = (y == a) | (y == b)
            num += n[a] * n[b] * roc_auc_score(y[mask] == a, f[mask])
            den += n[a] * n[b]
    assert multipartite_c_index(y, f) == pytest.approx(num / den, rel=1e-12)


@pytest.mark.parametrize("n_levels", [2, 3, 6])
def test_agrees_with_the_margin_counts_of_the_pair_core(n_levels):
    y, f = data(11, m=60, n_levels=n_levels)
    pairs = PairSet.multipartite(y)
    below = pair_counts(pairs, f, threshold=0.0).total  # f_i - f_j < 0: discordant
    at_most = pair_counts(pairs, f, threshold=np.nextafter(0.0, 1.0)).total  # f_i - f_j <= 0 on this grid
    strict = 1.0 - at_most / pairs.n_pairs
    half = 1.0 - (below + 0.5 * (at_most - below)) / pairs.n_pairs
    assert multipartite_c_index(y, f, ties="strict", tied_tol=0) == pytest.approx(strict, abs=1e-15)
    assert multipartite_c_index(y, f, tied_tol=0) == pytest.approx(half, abs=1e-15)


def test_label_order_levels_and_repetition():
    y, f = data(3, m=30, n_levels=3)
    names = np.array(["low", "medium", "high"])[y]
    value = multipartite_c_index(y, f)
    assert multipartite_c_index(names, f, levels=["low", "medium", "high"]) == value
    assert multipartite_c_index(10.0 * y - 7.0, f) == value  # any increasing relabelling
    assert multipartite_c_index(-y, -f) == value  # reversing both orders
    w = np.random.default_rng(0).integers(0, 4, len(y))
    w[:3] = 1
    rows = np.repeat(np.arange(len(y)), w)
    expanded = multipartite_c_index(y[rows], f[rows])
    assert multipartite_c_index(y, f, sample_weight=w) == pytest.approx(expanded, rel=1e-12)


def test_invalid_inputs_name_the_problem():
    with pytest.raises(NoComparablePairsError, match=r"1 distinct level\(s\) \[2\]"):
        multipartite_c_index([2, 2, 2], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="y_score"):
        multipartite_c_index([0, 1, 2], [0.1, np.nan, 0.3])
    with pytest.raises(ValueError, match=r"length|entries|samples"):
        multipartite_c_index([0, 1, 2], [0.1, 0.2])
    with pytest.raises(ValueError, match="not in levels"):
        multipartite_c_index([0, 1, 2], [0.1, 0.2, 0.3], levels=[0, 1])
    with pytest.raises(ValueError, match="no pair of points on different levels"):
        multipartite_c_index([0, 1, 2], [0.1, 0.2, 0.3], sample_weight=[0.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="ties"):
        multipartite_c_index([0, 1], [0.1, 0.2], ties="none")


def test_large_input_matches_the_level_count_formula():
    """200,000 points with ties, against counts by level (its speed: benchmarks/metrics_vs_peers.py)."""
    rng = np.random.default_rng(0)
    m = 200_000
    y = rng.integers(0, 5, m)
    f = np.round(rng.normal(size=m) + 0.3 * y, 2)
    value = multipartite_c_index(y, f)
    n = np.bincount(y)
    num = den = 0.0
    for a in range(5):
        for b in range(a):
            mask = (y == a) | (y == b)
            num += n[a] * n[b] * roc_auc_score(y[mask] == a, f[mask])
            den += n[a] * n[b]
    assert value == pytest.approx(num / den, rel=1e-12)
