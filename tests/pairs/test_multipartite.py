"""Multipartite (ordinal) pair sets: PairSet.multipartite against independent oracles.

Oracles: a brute-force double loop over the points (pair (i, j) for every y_i > y_j, weight
w_i w_j), closed-form pair counts Σ_{a>b} n_a n_b, the same pairs held explicitly
(``PairSet.from_arrays`` of the listing, which the core evaluates by enumeration), losses written
out here elementwise (not the package's PairLoss), ``PairSet.bipartite`` for two levels, scipy's
``linprog`` on a hand-assembled LP Ranker, and a second solver. Fürnkranz, Hüllermeier &
Vanderlooy (2009) define the pairs.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy.optimize import linprog

import aucopt
from aucopt import PairSet, get_formulation, kernel_matrix
from aucopt.exceptions import NoComparablePairsError, ProblemTooLargeError
from aucopt.pairs.core import (
    pair_counts,
    pair_line_derivatives,
    pair_loss,
    pair_loss_and_hessian,
    violated_pairs,
)


# ----------------------------------------------------------------------------- oracles
def brute_pairs(y, w=None):
    """(i, j, w) of every y_i > y_j by a double loop, sorted by (i, j)."""
    m = len(y)
    w = np.ones(m) if w is None else np.asarray(w, float)
    rows = [(i, j, w[i] * w[j]) for i in range(m) for j in range(m) if y[i] > y[j]]
    rows.sort()
    i, j, pw = (np.array(c) for c in zip(*rows, strict=False))
    return i.astype(np.int64), j.astype(np.int64), pw.astype(float)


def by_pair(i, j, w):
    key = np.lexsort((j, i))
    return np.asarray(i)[key].astype(np.int64), np.asarray(j)[key].astype(np.int64), np.asarray(w)[key]


def loss_terms(name, eps, z):
    """(ℓ, ℓ', ℓ'') elementwise, written out from the definitions with half-open pieces."""
    t = 1.0 - z
    below = z < 1.0
    if name == "hinge":
        return np.where(below, t, 0.0), np.where(below, -1.0, 0.0), np.zeros_like(z)
    if name == "squared_hinge":
        return np.where(below, t * t, 0.0), np.where(below, -2.0 * t, 0.0), np.where(below, 2.0, 0.0)
    a = 1.0 - 2.0 * eps
    lin, quad = z < a, (z >= a) & below
    val = np.where(lin, t - eps, np.where(quad, t * t / (4 * eps), 0.0))
    der = np.where(lin, -1.0, np.where(quad, -t / (2 * eps), 0.0))
    sec = np.where(quad, 1.0 / (2 * eps), 0.0)
    return val, der, sec


def brute_core(y, w, f, name, eps, v):
    """L, c, Q(v), number of pairs with ℓ'' > 0, and the line derivatives along v, by brute force."""
    i, j, pw = brute_pairs(y, w)
    z = f[i] - f[j]
    val, der, sec = loss_terms(name, eps, z)
    m = len(y)
    c = np.bincount(i, weights=pw * der, minlength=m) - np.bincount(j, weights=pw * der, minlength=m)
    d = pw * sec * (v[i] - v[j])
    q = np.bincount(i, weights=d, minlength=m) - np.bincount(j, weights=d, minlength=m)
    dv = v[i] - v[j]
    line = (np.dot(pw, val), np.dot(pw * der, dv), np.dot(pw * sec, dv * dv))
    return np.dot(pw, val), c, q, int(np.count_nonzero(sec > 0)), line


def instance(seed, n_levels, m=30, weighted=True):
    """Ordinal labels with every level present, scores on a quarter grid (ties, breakpoints hit)."""
    rng = np.random.default_rng(seed)
    y = np.r_[np.arange(n_levels), rng.integers(0, n_levels, m - n_levels)]
    rng.shuffle(y)
    w = rng.choice([0.0, 0.5, 1.0, 2.0], size=m) if weighted else None
    f = rng.integers(-6, 7, m) / 4.0
    v = rng.normal(size=m)
    return y, w, f, v


LEVELS = [2, 3, 5]
LOSS_CASES = [("hinge", 0.5), ("squared_hinge", 0.5), ("smoothed_hinge", 0.25), ("smoothed_hinge", 0.3)]


# ----------------------------------------------------------------------------- the pairs
@pytest.mark.parametrize("n_levels", LEVELS)
@pytest.mark.parametrize("weighted", [False, True])
def test_listing_equals_double_loop(n_levels, weighted):
    y, w, _, _ = instance(n_levels, n_levels, weighted=weighted)
    pairs = PairSet.multipartite(y, point_weights=w)
    assert pairs.target == "multipartite" and pairs.storage == "sorted"
    got = by_pair(*pairs.to_arrays())
    want = brute_pairs(y, w)
    for a, b in zip(got, want, strict=False):
        np.testing.assert_array_equal(a, b)
    assert pairs.n_pairs == len(want[0])
    assert pairs.total_weight() == pytest.approx(want[2].sum(), rel=1e-12)
    np.testing.assert_array_equal(pairs.partner_counts, np.bincount(want[0], minlength=len(y)))
    # pairs_at agrees with the listing order
    listed = pairs.to_arrays()
    pos = np.random.default_rng(1).integers(0, pairs.n_pairs, 25)
    for a, b in zip(pairs.pairs_at(pos), listed, strict=False):
        np.testing.assert_array_equal(a, b[pos])


def test_same_level_points_never_pair_and_order_is_the_label_order():
    y = np.array([3.5, -1.0, 3.5, 10.0, -1.0])
    i, j, _ = PairSet.multipartite(y).to_arrays()
    assert np.all(y[i] > y[j])
    assert len(i) == 2 * 2 + 1 * 4  # 3.5 over -1 (2 x 2), 10 over the other four
    # strings sort alphabetically unless levels give the order
    grades = ["high", "low", "medium", "low"]
    alpha = PairSet.multipartite(grades)  # high < low < medium
    ordered = PairSet.multipartite(grades, levels=["low", "medium", "high"])
    for ps, codes in ((alpha, [0, 1, 2, 1]), (ordered, [2, 0, 1, 0])):
        for a, b in zip(by_pair(*ps.to_arrays()), brute_pairs(np.array(codes)), strict=False):
            np.testing.assert_array_equal(a, b)
    # levels absent from y are allowed; only the order of those present matters
    sparse = PairSet.multipartite([7, 3], levels=[3, 5, 7])
    assert sparse.n_pairs == 1 and sparse.to_arrays()[0].tolist() == [0]


def test_pair_count_without_listing_at_scale():
    rng = np.random.default_rng(0)
    m, n_levels = 100_000, 4
    y = rng.integers(0, n_levels, m)
    pairs = PairSet.multipartite(y)
    n = np.bincount(y)
    want = sum(int(n[a]) * int(n[b]) for a in range(n_levels) for b in range(a))
    assert pairs.n_pairs == want > 10**9
    with pytest.raises(ProblemTooLargeError):
        pairs.to_arrays()
    # counting margin violators needs no listing either: per level pair by sorting
    f = rng.normal(size=m) + 0.5 * y
    counted = pair_counts(pairs, f, threshold=1.0).total
    oracle = 0
    for a in range(n_levels):
        for b in range(a):
            lower = np.sort(f[y == b])
            # pairs (i in a, j in b) with f_i - f_j < 1, i.e. f_j > f_i - 1
            oracle += int(np.sum(len(lower) - np.searchsorted(lower, f[y == a] - 1.0, side="right")))
    assert counted == oracle


def test_two_levels_coincide_with_bipartite():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 40)
    w = rng.random(40)
    multi = PairSet.multipartite(y, point_weights=w)
    bi = PairSet.bipartite(y, point_weights=w)
    for a, b in zip(multi.to_arrays(), bi.to_arrays(), strict=False):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(multi.order, bi.order)
    np.testing.assert_array_equal(multi.start, bi.start)
    np.testing.assert_array_equal(multi.signs, bi.signs)
    f = rng.integers(-4, 5, 40) / 4.0
    for name, eps in LOSS_CASES:
        L1, c1 = pair_loss(multi, f, name, eps)
        L2, c2 = pair_loss(bi, f, name, eps)
        assert pytest.approx(L2, rel=1e-12) == L1
        np.testing.assert_allclose(c1, c2, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n_levels", LEVELS)
def test_signs_are_minus_one_on_the_lowest_level_only(n_levels):
    y, _, _, _ = instance(7, n_levels)
    pairs = PairSet.multipartite(y)
    np.testing.assert_array_equal(pairs.signs, np.where(y > y.min(), 1.0, -1.0))
    listed = PairSet.from_arrays(*pairs.to_arrays(), n_points=len(y))  # the default sign rule
    np.testing.assert_array_equal(pairs.signs, listed.signs)


def test_invalid_targets_are_refused_with_the_fix():
    with pytest.raises(NoComparablePairsError, match=r"1 distinct level\(s\) \['b'\].*at least two"):
        PairSet.multipartite(["b", "b", "b"])
    with pytest.raises(NoComparablePairsError, match="0 distinct level"):
        PairSet.multipartite([])
    with pytest.raises(NoComparablePairsError, match=r"\[2\]"):
        PairSet.multipartite([2, 2], levels=[1, 2, 3])
    with pytest.raises(ValueError, match="NaN or infinite"):
        PairSet.multipartite([0.0, np.nan, 1.0])
    with pytest.raises(ValueError, match="1-dimensional"):
        PairSet.multipartite(np.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"not in levels.*add them"):
        PairSet.multipartite([0, 1, 2], levels=[0, 1])
    with pytest.raises(ValueError, match="twice"):
        PairSet.multipartite([0, 1], levels=[0, 1, 0])
    with pytest.raises(ValueError, match="mixes label types"):
        PairSet.multipartite(np.array([1, "a"], dtype=object))
    with pytest.raises(ValueError, match=r"PairSet\.survival"):
        PairSet.multipartite((np.array([True, False]), np.array([1.0, 2.0])))
    with pytest.raises(ValueError, match="point_weights"):
        PairSet.multipartite([0, 1, 2], point_weights=[1.0, -1.0, 1.0])


# ----------------------------------------------------------------------------- the core
@pytest.mark.parametrize("n_levels", LEVELS)
@pytest.mark.parametrize("name, eps", LOSS_CASES)
def test_core_equals_explicit_storage_and_brute_force(n_levels, name, eps):
    for seed in range(3):
        y, w, f, v = instance(10 * seed + n_levels, n_levels)
        pairs = PairSet.multipartite(y, point_weights=w)
        listed = PairSet.from_arrays(*pairs.to_arrays(), n_points=len(y))
        L_b, c_b, q_b, active_b, line_b = brute_core(y, w, f, name, eps, v)
        for ps in (pairs, listed):
            L, c = pair_loss(ps, f, name, eps)
            assert pytest.approx(L_b, rel=1e-12, abs=1e-12) == L
            np.testing.assert_allclose(c, c_b, rtol=1e-11, atol=1e-11)
            np.testing.assert_allclose(pair_line_derivatives(ps, f, v, name, eps), line_b, rtol=1e-11, atol=1e-11)
            if name == "hinge":
                continue
            L2, c2, H = pair_loss_and_hessian(ps, f, name, eps)
            assert pytest.approx(L_b, rel=1e-12, abs=1e-12) == L2
            np.testing.assert_allclose(c2, c_b, rtol=1e-11, atol=1e-11)
            np.testing.assert_allclose(H.matvec(v), q_b, rtol=1e-11, atol=1e-11)
            assert H.n_active == active_b


@pytest.mark.parametrize("n_levels", LEVELS)
@pytest.mark.parametrize("threshold", [0.0, 0.5, 1.0, np.inf])
def test_counts_and_violators_equal_explicit_storage_and_brute_force(n_levels, threshold):
    y, w, f, _ = instance(40 + n_levels, n_levels)
    pairs = PairSet.multipartite(y, point_weights=w)
    listed = PairSet.from_arrays(*pairs.to_arrays(), n_points=len(y))
    i, j, pw = pairs.to_arrays()
    z = f[i] - f[j]
    hit = z < threshold
    m = len(y)
    if np.isfinite(threshold):
        for ps in (pairs, listed):
            counts = pair_counts(ps, f, threshold)
            assert counts.total == int(hit.sum())
            np.testing.assert_array_equal(counts.first, np.bincount(i[hit], minlength=m))
            np.testing.assert_array_equal(counts.second, np.bincount(j[hit], minlength=m))
    live = hit & (pw > 0)
    skip = np.random.default_rng(n_levels).random(len(i)) < 0.2
    for kw, mask in (({}, live), ({"skip": skip}, live & ~skip)):
        found_s = violated_pairs(pairs, f, threshold, per_point=2, **kw)
        found_e = violated_pairs(listed, f, threshold, per_point=2, **kw)
        assert found_s.total == found_e.total == int(mask.sum())
        np.testing.assert_array_equal(found_s.positions, found_e.positions)
        np.testing.assert_array_equal(found_s.margins, z[found_s.positions])
        assert np.all(mask[found_s.positions])
        # every point with a violated pair as upper (lower) point has its smallest margin selected
        for side in (i, j):
            for p in np.unique(side[mask]):
                best = z[mask & (side == p)].min()
                assert np.any(found_s.margins[side[found_s.positions] == p] == best)


# ----------------------------------------------------------------------------- formulations
def shipped_formulations():
    names = []
    for name in aucopt.available_formulations():
        module = getattr(get_formulation(name).func, "__module__", "") or ""
        if module.startswith("aucopt.formulations"):
            names.append(name)
    return names


def small_ordinal(seed=0, m=14, n_levels=3):
    rng = np.random.default_rng(seed)
    y = np.r_[np.arange(n_levels), rng.integers(0, n_levels, m - n_levels)]
    X = rng.normal(size=(m, 2)) + 0.7 * y[:, None]
    w = rng.choice([0.5, 1.0, 2.0], size=m)
    return y, w, kernel_matrix(X, gamma=0.5)


def solve_objective(problem):
    solver = "highs" if problem.is_lp else "clarabel"
    result = aucopt.solve(problem, solver=solver)
    result.raise_for_status()
    return result.objective


#: parameters that formulations need besides C, per point count m
EXTRA_PARAMS = {"fair_ranker": lambda m: {"groups": np.arange(m) % 2, "epsilon": 0.5}}


@pytest.mark.parametrize("name", shipped_formulations())
def test_every_formulation_builds_and_solves_on_multipartite_pairs(name):
    y, w, K = small_ordinal()
    pairs = PairSet.multipartite(y, point_weights=w)
    listed = PairSet.from_arrays(*pairs.to_arrays(), n_points=len(y), signs=pairs.signs)
    listed = dataclasses.replace(listed, labels=pairs.labels, levels=pairs.levels)  # formulations may read them
    form = get_formulation(name)
    params = {"C": 1.0, **EXTRA_PARAMS.get(name, lambda m: {})(len(y))}
    try:
        problem = form.build(pairs, K, **params)
    except ValueError as exc:
        # formulations of positives and negatives only (e.g. top push) refuse other pair sets,
        # naming the pair set they got; they accept the same points with two unweighted levels
        assert "needs bipartite pairs" in str(exc) and "multipartite" in str(exc)
        assert np.isfinite(solve_objective(form.build(PairSet.bipartite(y > 0), K, **params)))
        return
    assert problem.metadata.get("pair_target", "multipartite") == "multipartite"
    sorted_value = solve_objective(problem)
    listed_value = solve_objective(form.build(listed, K, **params))
    assert sorted_value == pytest.approx(listed_value, rel=1e-6, abs=1e-7)
    assert np.isfinite(sorted_value)


def test_lp_ranker_on_ordinal_pairs_equals_hand_assembled_linprog():
    y, w, K = small_ordinal(seed=4, m=12)
    pairs = PairSet.multipartite(y, point_weights=w)
    value = solve_objective(get_formulation("lp_ranker").build(pairs, K, C=0.8))
    i, j, pw = brute_pairs(y, w)
    m, P = len(y), len(i)
    KY = K * np.where(y > y.min(), 1.0, -1.0)[None, :]
    A = np.zeros((P, m + P))
    A[:, :m] = KY[i] - KY[j]
    A[np.arange(P), m + np.arange(P)] = 1.0
    ref = linprog(np.r_[np.ones(m), 0.8 * pw], A_ub=-A, b_ub=-np.ones(P), bounds=(0, None), method="highs")
    assert ref.status == 0
    assert value == pytest.approx(ref.fun, rel=1e-6)


def test_linear_ranker_learns_an_ordinal_order_through_the_pair_core():
    from aucopt.svm._newton import newton_solve

    rng = np.random.default_rng(5)
    m = 300
    X = rng.normal(size=(m, 3))
    y = np.digitize(X @ np.array([1.0, -0.5, 0.0]) + 0.3 * rng.normal(size=m), [-1.0, 0.0, 1.0])
    pairs = PairSet.multipartite(y)
    result = newton_solve(X, pairs, alpha=1e-3)
    f = X @ result.theta
    i, j, _ = pairs.to_arrays()
    c_index = np.mean((f[i] > f[j]) + 0.5 * (f[i] == f[j]))
    assert c_index > 0.9
    listed = newton_solve(X, PairSet.from_arrays(i, j, n_points=m), alpha=1e-3)
    np.testing.assert_allclose(result.theta, listed.theta, rtol=1e-6, atol=1e-8)
