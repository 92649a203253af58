"""aucopt.pairs.core against brute-force pair enumeration, calculus and invariances.

Oracle: explicit pairs from ``PairSet.to_arrays()`` with ``z = f[i] - f[j]`` in float64 and the
elementwise ``PairLoss.value / derivative / second``; the smoothed hinge's defining properties
(Tayal et al. 2015), closed forms at zero scores, invariances, and the violated-pair counts of the
LP Ranker subgradient (Ataman 2007, eq. 4.4). The brute force lives here, not in the library.
The sorted storage is also checked against the core's own explicit path on the same pairs, and
the compiled core against the previous numpy implementation (tests/pairs/reference_core.py, a
wavelet matrix instead of Fenwick sweeps) in tests/pairs/test_compiled_core.py.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aucopt import PairSet
from aucopt.pairs import _compiled, core
from aucopt.pairs._setup import PairCore, Piece
from aucopt.pairs.core import (
    LOSSES,
    PairCounts,
    PairEvaluator,
    PairHessian,
    PairLoss,
    pair_counts,
    pair_line_derivatives,
    pair_loss,
    pair_loss_and_hessian,
    pair_slope_total,
    pair_slopes,
)

EPS_DYADIC = (0.125, 0.25, 0.375, 0.5, 0.75, 1.0)  # 1 - 2ε exact: scores on breakpoints
EPS_OTHER = (0.1, 0.3, 1e-3)
ALL_LOSSES = (
    [PairLoss("hinge"), PairLoss("squared_hinge")]
    + [PairLoss("smoothed_hinge", e) for e in EPS_DYADIC + EPS_OTHER]
)
SMOOTH_LOSSES = [loss for loss in ALL_LOSSES if loss.twice_differentiable]


# ----------------------------------------------------------------------------- brute force
def explicit_pairs(pairs: PairSet):
    if pairs.n_pairs == 0:
        e = np.zeros(0, dtype=np.int64)
        return e, e, np.zeros(0)
    i, j, w = pairs.to_arrays()
    return i.astype(np.int64), j.astype(np.int64), w


def brute_loss(pairs, f, loss, listed=None):
    """(L, c, scale): scale = Σ w |ℓ| + Σ w |ℓ'| bounds the magnitude of the summed terms.

    ``listed``: ``explicit_pairs(pairs)`` when the caller already has it (here and below)."""
    i, j, w = explicit_pairs(pairs) if listed is None else listed
    z = f[i] - f[j]
    val, der = w * loss.value(z), w * loss.derivative(z)
    m = pairs.n_points
    c = np.bincount(i, weights=der, minlength=m) - np.bincount(j, weights=der, minlength=m)
    return float(val.sum()), c, 1.0 + np.abs(val).sum() + np.abs(der).sum()


def brute_q(pairs, f, loss, v, listed=None):
    i, j, w = explicit_pairs(pairs) if listed is None else listed
    d = w * loss.second(f[i] - f[j]) * (v[i] - v[j])
    m = pairs.n_points
    return np.bincount(i, weights=d, minlength=m) - np.bincount(j, weights=d, minlength=m)


def brute_active(pairs, f, loss, listed=None):
    i, j, _ = explicit_pairs(pairs) if listed is None else listed
    return int(np.count_nonzero(loss.second(f[i] - f[j]) > 0))


def assert_close(got, want, scale, rtol=1e-10):
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale)


# ----------------------------------------------------------------------------- instances
def make_pairs(kind, m, rng, weighted):
    w = None
    if weighted:
        w = rng.integers(0, 5, m) / 2.0 if rng.random() < 0.5 else rng.uniform(0, 2, m)
    if kind == "bipartite" and m >= 2:
        y = rng.integers(0, 2, m)
        y[rng.permutation(m)[:2]] = [0, 1]
        return PairSet.bipartite(y, point_weights=w)
    if kind == "explicit" and m >= 2:
        n = int(rng.integers(0, 3 * m))
        i = rng.integers(0, m, n)
        j = (i + rng.integers(1, m, n)) % m
        return PairSet.from_arrays(i, j, rng.uniform(0, 2, n), n_points=m)
    event = rng.random(m) < rng.choice([0.0, 0.5, 1.0, 0.7])
    time_ = rng.integers(0, int(rng.integers(1, 5)), m).astype(float)
    return PairSet.survival(event, time_, point_weights=w)


def make_scores(style, m, rng):
    if style == "zero":
        return np.zeros(m)
    if style == "quarters":  # exact ties and z exactly on 1 and 1 - 2ε (dyadic ε)
        return rng.integers(-6, 7, m) / 4.0
    if style == "tenths":  # decimal grid: fl(f_i - f_j) != 1 although f_j == f_i - 1 "on paper"
        return np.round(rng.integers(-20, 21, m) * 0.1, 10)
    return rng.standard_normal(m) * rng.choice([0.3, 1.0, 3.0])


@st.composite
def instances(draw, max_m=14):
    m = draw(st.integers(1, max_m))
    kind = draw(st.sampled_from(["bipartite", "survival", "explicit"]))
    style = draw(st.sampled_from(["zero", "quarters", "tenths", "normal"]))
    weighted = draw(st.booleans())
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return make_pairs(kind, m, rng, weighted), make_scores(style, m, rng), rng


# ----------------------------------------------------------------------------- losses
@pytest.mark.parametrize("eps", EPS_DYADIC + EPS_OTHER)
def test_smoothed_hinge_pieces(eps):
    """Smoothed hinge (Tayal et al. 2015): ℓ(1-2ε) = ε, ℓ(1) = 0, ℓ' continuous (-1 at 1-2ε, -> 0 at 1)."""
    loss = PairLoss("smoothed_hinge", eps)
    a = 1.0 - 2.0 * eps
    assert loss.value(a) == pytest.approx(eps, rel=1e-12)
    assert loss.value(1.0) == 0.0 and loss.derivative(1.0) == 0.0 and loss.second(1.0) == 0.0
    assert loss.derivative(a) == pytest.approx(-1.0)
    assert loss.derivative(np.nextafter(a, -np.inf)) == -1.0
    assert loss.derivative(np.nextafter(1.0, -np.inf)) == pytest.approx(0.0, abs=1e-12 / eps)
    assert loss.second(a) == pytest.approx(0.5 / eps) and loss.second(a - 1e-9) == 0.0
    z = np.linspace(-3, 2, 1001)
    assert np.all(np.diff(loss.value(z)) <= 1e-15)  # non-increasing
    assert np.all(loss.value(z) >= 0)


def test_loss_definitions_and_limits():
    z = np.array([-2.0, 0.0, 0.5, 1.0 - 1e-12, 1.0, 3.0])
    hinge, sq = PairLoss("hinge"), PairLoss("squared_hinge")
    np.testing.assert_allclose(hinge.value(z), np.maximum(0, 1 - z))
    np.testing.assert_array_equal(hinge.derivative(z), [-1, -1, -1, -1, 0, 0])
    np.testing.assert_allclose(sq.value(z), np.maximum(0, 1 - z) ** 2)
    np.testing.assert_allclose(sq.derivative(z), -2 * np.maximum(0, 1 - z))
    np.testing.assert_array_equal(sq.second(z), [2, 2, 2, 2, 0, 0])
    tiny = PairLoss("smoothed_hinge", 1e-9)  # ε -> 0 recovers the hinge
    np.testing.assert_allclose(tiny.value(z), hinge.value(z), atol=1e-8)
    assert PairLoss.make(sq) is sq and PairLoss.make("hinge") == hinge
    assert set(LOSSES) == {"hinge", "squared_hinge", "smoothed_hinge"}
    for bad in [dict(name="logistic"), dict(name="smoothed_hinge", eps=0.0),
                dict(name="smoothed_hinge", eps=1.5), dict(name="smoothed_hinge", eps=np.nan)]:
        with pytest.raises(ValueError):
            PairLoss(**bad)


def test_input_validation():
    pairs = PairSet.bipartite([0, 1, 1])
    with pytest.raises(ValueError, match="no second derivative"):
        PairHessian(pairs, np.zeros(3), "hinge")
    with pytest.raises(ValueError, match="entries"):
        pair_loss(pairs, np.zeros(4))
    with pytest.raises(ValueError, match="NaN"):
        pair_loss(pairs, [0.0, np.nan, 1.0])
    with pytest.raises(ValueError, match="entries"):
        PairHessian(pairs, np.zeros(3)).matvec(np.zeros(2))
    with pytest.raises(TypeError):
        pair_loss((np.array([0]), np.array([1])), np.zeros(2))
    with pytest.raises(ValueError, match="threshold"):
        pair_counts(pairs, np.zeros(3), threshold=np.inf)


# ----------------------------------------------------------------------------- thresholds
def test_rank_thresholds_are_exact_in_float64():
    """The rank boundary evaluates fl(x - u) >= b itself, across magnitudes and ulp-close values."""
    rng = np.random.default_rng(3)
    for _ in range(300):
        scale = 10.0 ** rng.integers(-20, 20)
        base = rng.standard_normal(15) * scale
        b = float(rng.choice([1.0, 0.0, -1.0, 0.5, 1 - 2 * 0.1, 1 - 2 * 0.3, 1e-300]))
        x = rng.choice(base, 8)
        near = [x - b + k * np.spacing(np.abs(x - b)) * s for k in range(-4, 5) for s in (1, 1e-3, 1e3)]
        u = np.unique(np.concatenate([base, *near, [0.0, 5e-324]]))
        y = _compiled.rank_thresholds(u, np.array([b]))[0]
        # for every query xq = u[q] with threshold kq: fl(xq - u[:kq]) >= b and fl(xq - u[kq:]) < b, all
        # queries at once (the same float64 differences as one query at a time)
        below = np.arange(len(u))[None, :] < np.asarray(y)[:, None]
        differences = u[:, None] - u[None, :]
        assert np.all(differences[below] >= b) and np.all(differences[~below] < b)


# ----------------------------------------------------------------------------- brute force
@settings(max_examples=250, deadline=None)
@given(inst=instances(), loss=st.sampled_from(ALL_LOSSES))
def test_loss_and_coefficients_match_brute_force(inst, loss):
    pairs, f, _ = inst
    L, c = pair_loss(pairs, f, loss)
    Lb, cb, scale = brute_loss(pairs, f, loss)
    assert_close(L, Lb, scale)
    assert_close(c, cb, scale)
    assert c.shape == (pairs.n_points,)
    assert abs(c.sum()) <= 1e-10 * scale  # shift invariance: Σ_k ∂L/∂f_k = 0


@settings(max_examples=200, deadline=None)
@given(inst=instances(), loss=st.sampled_from(SMOOTH_LOSSES))
def test_hessian_product_matches_brute_force(inst, loss):
    pairs, f, rng = inst
    m = pairs.n_points
    H = PairHessian(pairs, f, loss)
    assert H.n_active == brute_active(pairs, f, loss)
    i, j, w = explicit_pairs(pairs)
    scale = 1.0 + 2.0 * np.abs(loss.second(f[i] - f[j]) * w).sum() * 3.0
    for v in (rng.standard_normal(m), np.ones(m), rng.integers(-2, 3, m) / 2.0):
        Qv = H.matvec(v)
        assert_close(Qv, brute_q(pairs, f, loss, v), scale * (1 + np.abs(v).max()))
    assert_close(H(np.ones(m)), np.zeros(m), scale)  # Q annihilates constants


@settings(max_examples=150, deadline=None)
@given(inst=instances(), threshold=st.sampled_from([1.0, 0.0, -0.5, 0.75, 0.3, 2.0]))
def test_pair_counts_match_brute_force(inst, threshold):
    pairs, f, _ = inst
    m = pairs.n_points
    i, j, _ = explicit_pairs(pairs)
    hit = (f[i] - f[j]) < threshold
    got = pair_counts(pairs, f, threshold)
    assert isinstance(got, PairCounts) and got.total == int(hit.sum())
    np.testing.assert_array_equal(got.first, np.bincount(i[hit], minlength=m))
    np.testing.assert_array_equal(got.second, np.bincount(j[hit], minlength=m))


def test_hinge_coefficients_are_weighted_violation_counts():
    """Ataman (2007), eq. 4.4: unweighted hinge c = -(first - second) of the z < 1 counts."""
    rng = np.random.default_rng(11)
    event, time_ = rng.random(300) < 0.6, rng.integers(0, 40, 300).astype(float)
    pairs = PairSet.survival(event, time_)
    f = rng.integers(-8, 9, 300) / 4.0
    counts = pair_counts(pairs, f)
    L, c = pair_loss(pairs, f, "hinge")
    np.testing.assert_array_equal(c, -(counts.first - counts.second))
    Lb, _, _ = brute_loss(pairs, f, PairLoss("hinge"))
    assert pytest.approx(Lb, rel=1e-12) == L


def test_decimal_scores_follow_float64_margins():
    """With f on a 0.1 grid, 'f_j > f_i - 1' and 'f_i - f_j < 1' disagree for some pairs; the
    core must follow z = f_i - f_j as computed (what the brute force and explicit paths see)."""
    f = np.round(np.arange(-30, 31) * 0.1, 10)
    zij = f[:, None] - f[None, :]
    assert np.any((zij < 1) != (f[None, :] > f[:, None] - 1))  # the trap exists
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, len(f))
    event, time_ = rng.random(len(f)) < 0.7, rng.integers(0, 6, len(f)).astype(float)
    for pairs in (PairSet.bipartite(y), PairSet.survival(event, time_)):
        for loss in (PairLoss("hinge"), PairLoss("squared_hinge"), PairLoss("smoothed_hinge", 0.1)):
            L, c = pair_loss(pairs, f, loss)
            Lb, cb, scale = brute_loss(pairs, f, loss)
            assert_close(L, Lb, scale)
            assert_close(c, cb, scale)
            if loss.twice_differentiable:
                assert PairHessian(pairs, f, loss).n_active == brute_active(pairs, f, loss)


@pytest.mark.parametrize("kind", ["bipartite", "survival"])
def test_medium_instances_match_brute_force(kind):
    """m = 1500: deep wavelet levels, many ties, weights; all losses."""
    rng = np.random.default_rng(2024)
    m = 1500
    w = rng.uniform(0, 2, m)
    if kind == "bipartite":
        pairs = PairSet.bipartite(rng.random(m) < 0.3, point_weights=w)
    else:
        pairs = PairSet.survival(rng.random(m) < 0.5, rng.integers(0, 200, m).astype(float),
                                 point_weights=w)
    f = rng.integers(-40, 41, m) / 16.0
    v = rng.standard_normal(m)
    listed = explicit_pairs(pairs)  # about 500,000 pairs: listed once for every loss
    for loss in ALL_LOSSES:
        L, c = pair_loss(pairs, f, loss)
        Lb, cb, scale = brute_loss(pairs, f, loss, listed)
        assert_close(L, Lb, scale)
        assert_close(c, cb, scale)
        if loss.twice_differentiable:
            H = PairHessian(pairs, f, loss)
            assert H.n_active == brute_active(pairs, f, loss, listed)
            assert_close(H.matvec(v), brute_q(pairs, f, loss, v, listed), scale * 10)


def test_explicit_pairs_with_arbitrary_weights():
    rng = np.random.default_rng(9)
    m, n = 30, 200
    i = rng.integers(0, m, n)
    j = (i + rng.integers(1, m, n)) % m
    pairs = PairSet.from_arrays(i, j, rng.uniform(0, 3, n), n_points=m)
    f = rng.integers(-4, 5, m) / 4.0
    v = rng.standard_normal(m)
    for loss in ALL_LOSSES:
        L, c = pair_loss(pairs, f, loss)
        Lb, cb, scale = brute_loss(pairs, f, loss)
        assert_close(L, Lb, scale)
        assert_close(c, cb, scale)
        if loss.twice_differentiable:
            assert_close(PairHessian(pairs, f, loss).matvec(v), brute_q(pairs, f, loss, v), scale * 10)


# ----------------------------------------------------------------------------- edge cases
def test_sets_without_pairs():
    cases = [
        PairSet.survival([False, False, False], [1.0, 2.0, 3.0]),  # all censored
        PairSet.survival([True], [1.0]),  # one point
        PairSet.survival([True, True], [2.0, 2.0]),  # tied events: not comparable
        PairSet.from_arrays([], [], n_points=3),
    ]
    for pairs in cases:
        m = pairs.n_points
        f = np.arange(m, dtype=float)
        for loss in ALL_LOSSES:
            L, c = pair_loss(pairs, f, loss)
            assert L == 0.0 and np.array_equal(c, np.zeros(m))
            if loss.twice_differentiable:
                H = PairHessian(pairs, f, loss)
                assert H.n_active == 0 and np.array_equal(H.matvec(np.ones(m)), np.zeros(m))
        assert pair_counts(pairs, f).total == 0


@pytest.mark.parametrize("m", [1, 2, 3])
def test_tiny_survival_all_events_and_ties(m):
    rng = np.random.default_rng(m)
    for time_ in (np.arange(m, dtype=float), np.zeros(m), rng.integers(0, 2, m).astype(float)):
        for event in (np.ones(m, bool), np.zeros(m, bool), rng.random(m) < 0.5):
            pairs = PairSet.survival(event, time_)
            for f in (np.zeros(m), rng.integers(-4, 5, m) / 4.0):
                for loss in ALL_LOSSES:
                    L, c = pair_loss(pairs, f, loss)
                    Lb, cb, scale = brute_loss(pairs, f, loss)
                    assert_close(L, Lb, scale)
                    assert_close(c, cb, scale)


@pytest.mark.parametrize("eps", EPS_DYADIC + EPS_OTHER)
def test_zero_scores_bipartite_oracle(eps):
    """Closed form at zero scores: f = 0 gives L = m₊m₋(1-ε) (ε ≤ ½) or m₊m₋/(4ε) (ε ≥ ½) and
    c_i = m₋ℓ'(0) for positives, c_j = -m₊ℓ'(0) for negatives."""
    y = np.array([1, 0, 0, 1, 0, 0, 0, 1, 0])
    n_pos, n_neg = 3, 6
    pairs = PairSet.bipartite(y)
    L, c = pair_loss(pairs, np.zeros(len(y)), "smoothed_hinge", eps)
    expected = 1 - eps if eps <= 0.5 else 1 / (4 * eps)
    d0 = -1.0 if eps <= 0.5 else -1 / (2 * eps)
    assert pytest.approx(n_pos * n_neg * expected, rel=1e-14) == L
    np.testing.assert_allclose(c, np.where(y == 1, n_neg * d0, -n_pos * d0), rtol=1e-14)
    for name, value, slope in (("hinge", 1.0, -1.0), ("squared_hinge", 1.0, -2.0)):
        L, c = pair_loss(pairs, np.zeros(len(y)), name)
        assert pytest.approx(n_pos * n_neg * value) == L
        np.testing.assert_allclose(c, np.where(y == 1, n_neg * slope, -n_pos * slope))


# ----------------------------------------------------------------------------- calculus
def continuous_instance(seed, kind, m=40):
    rng = np.random.default_rng(seed)
    pairs = make_pairs(kind, m, rng, weighted=bool(seed % 2))
    while True:
        f = rng.standard_normal(m)
        i, j, _ = explicit_pairs(pairs)
        z = f[i] - f[j]
        breaks = np.array([1.0, 0.0, 0.5, 1 - 2 * 0.3, -1.0])
        if len(z) == 0 or np.min(np.abs(z[:, None] - breaks[None, :])) > 1e-4:
            return pairs, f, rng


@pytest.mark.parametrize("kind", ["bipartite", "survival", "explicit"])
@pytest.mark.parametrize("seed", range(3))
def test_coefficients_match_finite_differences(kind, seed):
    pairs, f, _rng = continuous_instance(seed, kind)
    h = 1e-6
    for loss in [PairLoss("hinge"), PairLoss("squared_hinge"), PairLoss("smoothed_hinge", 0.5),
                 PairLoss("smoothed_hinge", 0.25), PairLoss("smoothed_hinge", 0.3),
                 PairLoss("smoothed_hinge", 1.0)]:
        _, c = pair_loss(pairs, f, loss)
        fd = np.empty_like(f)
        for k in range(len(f)):
            e = np.zeros_like(f)
            e[k] = h
            fd[k] = (pair_loss(pairs, f + e, loss)[0] - pair_loss(pairs, f - e, loss)[0]) / (2 * h)
        np.testing.assert_allclose(c, fd, rtol=1e-6, atol=1e-6 * (1 + np.abs(c).max()))


@pytest.mark.parametrize("kind", ["bipartite", "survival", "explicit"])
@pytest.mark.parametrize("seed", range(3))
def test_hessian_is_derivative_of_c_symmetric_and_psd(kind, seed):
    pairs, f, rng = continuous_instance(seed, kind)
    m = len(f)
    for loss in [PairLoss("squared_hinge"), PairLoss("smoothed_hinge", 0.5),
                 PairLoss("smoothed_hinge", 0.3), PairLoss("smoothed_hinge", 1.0)]:
        H = PairHessian(pairs, f, loss)
        u, v = rng.standard_normal(m), rng.standard_normal(m)
        Qu, Qv = H.matvec(u), H.matvec(v)
        scale = 1 + np.abs(Qu).sum() + np.abs(Qv).sum()
        assert abs(u @ Qv - v @ Qu) <= 1e-12 * scale
        assert v @ Qv >= -1e-12 * scale and u @ Qu >= -1e-12 * scale
        # c is piecewise linear: a central difference is exact up to roundoff away from breaks
        h = 1e-7 / (1 + np.abs(v).max())
        fd = (pair_loss(pairs, f + h * v, loss)[1] - pair_loss(pairs, f - h * v, loss)[1]) / (2 * h)
        np.testing.assert_allclose(Qv, fd, rtol=1e-5, atol=1e-5 * (1 + np.abs(Qv).max()))


# ----------------------------------------------------------------------------- invariances
@settings(max_examples=80, deadline=None)
@given(inst=instances(), loss=st.sampled_from(ALL_LOSSES), shift=st.sampled_from([0.5, -3.0, 1.25]))
def test_shift_invariance(inst, loss, shift):
    """Shift invariance of L, c and Q. Quarter-grid scores and dyadic shifts keep every z_ij exact."""
    pairs, _, rng = inst
    f = rng.integers(-6, 7, pairs.n_points) / 4.0
    L0, c0 = pair_loss(pairs, f, loss)
    L1, c1 = pair_loss(pairs, f + shift, loss)
    _, _, scale = brute_loss(pairs, f, loss)
    assert_close(L1, L0, scale)
    assert_close(c1, c0, scale)


@pytest.mark.parametrize("kind", ["bipartite", "survival"])
def test_permuting_points_permutes_c_and_q(kind):
    rng = np.random.default_rng(17)
    m = 60
    w = rng.uniform(0, 2, m)
    f = rng.integers(-6, 7, m) / 4.0
    v = rng.standard_normal(m)
    perm = rng.permutation(m)
    if kind == "bipartite":
        y = rng.random(m) < 0.4
        make = lambda idx: PairSet.bipartite(y[idx], point_weights=w[idx])  # noqa: E731
    else:
        event, time_ = rng.random(m) < 0.6, rng.integers(0, 8, m).astype(float)
        make = lambda idx: PairSet.survival(event[idx], time_[idx], point_weights=w[idx])  # noqa: E731
    base, permuted = make(np.arange(m)), make(perm)
    for loss in ALL_LOSSES:
        L0, c0 = pair_loss(base, f, loss)
        L1, c1 = pair_loss(permuted, f[perm], loss)
        _, _, scale = brute_loss(base, f, loss)
        assert_close(L1, L0, scale, rtol=1e-12)
        assert_close(c1, c0[perm], scale, rtol=1e-12)
        if loss.twice_differentiable:
            q0 = PairHessian(base, f, loss).matvec(v)
            q1 = PairHessian(permuted, f[perm], loss).matvec(v[perm])
            qscale = 1 + 4 * max(p.d2 for p in loss.pieces) * w.sum() * np.abs(w * v).sum()
            assert_close(q1, q0[perm], qscale, rtol=1e-12)


# ----------------------------------------------------------------------------- internals
@pytest.mark.parametrize("kind", ["bipartite", "bipartite_weighted", "horizon", "horizon_ipcw"])
def test_merge_sweeps_equal_the_blocked_sweeps(kind):
    """On one shared suffix whose anchors come first, the merge sweeps (two sorted lists) equal the
    blocked Fenwick sweeps in every mode: loss, c, the Hessian's sums, Hessian products, counts and
    line derivatives; bipartite pairs with and without weights, and the pairs of AUC(t) (cases,
    subjects in no pair, controls) with and without inverse-probability-of-censoring weights."""
    rng = np.random.default_rng(23)
    m = 400
    if kind.startswith("bipartite"):
        w = rng.integers(0, 4, m) / 2.0 if kind.endswith("weighted") else None
        pairs = PairSet.bipartite(rng.random(m) < 0.3, point_weights=w)
    else:
        event, time = rng.random(m) < 0.6, np.round(rng.exponential(size=m), 1)
        pairs = PairSet.survival(event, time, horizon=float(np.median(time)),
                                 weights="ipcw" if kind.endswith("ipcw") else None)
    f = rng.integers(-30, 31, m) / 8.0
    v = rng.standard_normal(m)
    for loss in (PairLoss("smoothed_hinge", 0.25), PairLoss("squared_hinge"), PairLoss("hinge")):
        results = []
        for blocked in (False, True):
            core = PairCore(pairs, f, sorted({1.0, 1 - 2 * loss.eps}))
            assert core.merge
            if blocked:
                core.set_blocks()
            c, NA, NP = np.zeros(m), np.zeros(core.n_anchors), np.zeros(m)
            acc = core.sweep(loss.pieces, _compiled.LOSS, 3, 2, NA=NA, NP=NP, out=c)
            q = np.zeros(m)
            if loss.twice_differentiable:
                core.sweep([p for p in loss.pieces if p.d2], _compiled.MATVEC, 1, 1, v=v, NA=NA, NP=NP, out=q)
            first, second = np.zeros(m), np.zeros(m)
            core.sweep([Piece(-np.inf, 1.0, 0.0, 1.0, 0.0)], _compiled.COUNTS, 1, 1, NP=second, out=first)
            line = core.sweep(loss.pieces, _compiled.LINE, 6, 0, v=v)
            if not blocked:  # the Hessian's sums in list order
                NA, NP = core.blocked_layout(NA, NP)
            results.append(np.concatenate([acc, c, NA, NP, q, first, second, line]))
        np.testing.assert_allclose(results[0], results[1], rtol=1e-12, atol=1e-9)
    # and the dispatch: survival with distinct event times takes the blocked sweeps
    surv = PairSet.survival([True, False, True, True], [1.0, 2.0, 3.0, 4.0])
    assert PairCore(surv, np.zeros(4), [1.0]).s0 == -1
    assert not PairCore(surv, np.zeros(4), [1.0]).merge


def test_counts_relations_between_losses():
    """n_active(squared hinge) = #{z < 1}; n_active(smoothed) = #{z < 1} - #{z < 1 - 2ε}."""
    rng = np.random.default_rng(31)
    m = 3000
    pairs = PairSet.survival(rng.random(m) < 0.5, rng.exponential(size=m).round(2))
    f = rng.standard_normal(m)
    below_one = pair_counts(pairs, f, 1.0).total
    assert PairHessian(pairs, f, "squared_hinge").n_active == below_one
    below_half = pair_counts(pairs, f, 0.5).total
    assert PairHessian(pairs, f, "smoothed_hinge", 0.25).n_active == below_one - below_half


# ----------------------------------------------------------------------------- scaling smoke
@pytest.mark.parametrize("kind", ["bipartite", "survival"])
def test_scaling_smoke(kind, capsys):
    """m = 200,000 without listing pairs; prints timings (not asserted)."""
    rng = np.random.default_rng(0)
    m = 200_000
    if kind == "bipartite":
        pairs = PairSet.bipartite(rng.random(m) < 0.1)
    else:
        pairs = PairSet.survival(rng.random(m) < 0.5, rng.exponential(size=m).round(3),
                                 point_weights=rng.uniform(0.5, 2, m))
    f = rng.standard_normal(m)
    v = rng.standard_normal(m)
    t0 = time.perf_counter()
    L, c = pair_loss(pairs, f, "smoothed_hinge", 0.25)
    t1 = time.perf_counter()
    H = PairHessian(pairs, f, "smoothed_hinge", 0.25)
    t2 = time.perf_counter()
    Qv = H.matvec(v)
    t3 = time.perf_counter()
    counts = pair_counts(pairs, f)
    t4 = time.perf_counter()
    assert np.isfinite(L) and np.all(np.isfinite(c)) and np.all(np.isfinite(Qv))
    assert abs(c.sum()) <= 1e-8 * np.abs(c).sum()
    assert abs(H.matvec(np.ones(m))).max() <= 1e-8 * np.abs(Qv).max()
    assert 0 < H.n_active <= counts.total <= pairs.n_pairs
    with capsys.disabled():
        print(f"\n[paircore {kind} m={m:,}, {pairs.n_pairs:,} pairs] pair_loss {t1 - t0:.2f}s, "
              f"PairHessian {t2 - t1:.2f}s, matvec {t3 - t2:.3f}s, pair_counts {t4 - t3:.2f}s")


# ----------------------------------------------------------------------------- sorted vs explicit storage
def _listing(pairs: PairSet) -> PairSet:
    """The same pairs in explicit storage (same target, signs and weights)."""
    i, j, w = pairs.to_arrays(None)
    return PairSet.from_arrays(i, j, w, n_points=pairs.n_points, signs=pairs.signs, target=pairs.target)


@settings(max_examples=150, deadline=None)
@given(inst=instances(), loss=st.sampled_from(ALL_LOSSES))
def test_sorted_set_and_its_explicit_listing_give_the_same_results(inst, loss):
    """The core's two paths (sorted-pair trick, explicit enumeration) agree on L, c, Q(v), counts."""
    pairs, f, rng = inst
    if pairs.storage != "sorted" or pairs.n_pairs == 0:
        return
    listed = _listing(pairs)
    assert listed.storage == "explicit" and listed.target == pairs.target
    L, c = pair_loss(pairs, f, loss)
    Le, ce = pair_loss(listed, f, loss)
    scale = brute_loss(pairs, f, loss)[2]
    assert_close(L, Le, scale)
    assert_close(c, ce, scale)
    m = pairs.n_points
    v = rng.standard_normal(m)
    if loss.twice_differentiable:
        H, He = PairHessian(pairs, f, loss), PairHessian(listed, f, loss)
        assert H.n_active == He.n_active
        assert_close(H.matvec(v), He.matvec(v), scale * (1 + np.abs(v).max()))
        L2, c2, H2 = pair_loss_and_hessian(pairs, f, loss)
        assert_close(L2, Le, scale)
        assert_close(c2, ce, scale)
        assert_close(H2.matvec(v), He.matvec(v), scale * (1 + np.abs(v).max()))
    for threshold in (1.0, 0.0):
        a, b = pair_counts(pairs, f, threshold), pair_counts(listed, f, threshold)
        assert a.total == b.total
        np.testing.assert_array_equal(a.first, b.first)
        np.testing.assert_array_equal(a.second, b.second)


@pytest.mark.parametrize("kind", ["bipartite", "survival"])
def test_sorted_and_explicit_agree_on_a_medium_weighted_set(kind):
    rng = np.random.default_rng(77)
    m = 400
    w = rng.uniform(0, 2, m)
    if kind == "bipartite":
        pairs = PairSet.bipartite(rng.random(m) < 0.3, point_weights=w)
    else:
        pairs = PairSet.survival(rng.random(m) < 0.5, rng.integers(0, 60, m).astype(float), point_weights=w)
    listed = _listing(pairs)
    f = rng.standard_normal(m)
    for loss in ALL_LOSSES:
        L, c = pair_loss(pairs, f, loss)
        Le, ce = pair_loss(listed, f, loss)
        assert pytest.approx(Le, rel=1e-11) == L
        np.testing.assert_allclose(c, ce, rtol=1e-10, atol=1e-10 * np.abs(ce).max())


def test_core_dispatches_on_storage_not_target():
    """Relabelling what the pairs mean (target) changes nothing the core computes."""
    rng = np.random.default_rng(3)
    m = 40
    f = rng.standard_normal(m)
    v = rng.standard_normal(m)
    sets = [PairSet.bipartite(rng.random(m) < 0.4),
            PairSet.survival(rng.random(m) < 0.5, rng.integers(0, 9, m).astype(float))]
    sets.append(_listing(sets[1]))
    for pairs in sets:
        for target in ("bipartite", "survival", "custom"):
            other = dataclasses.replace(pairs, target=target)
            assert other.storage == pairs.storage
            for loss in (PairLoss("hinge"), PairLoss("smoothed_hinge", 0.3)):
                L, c = pair_loss(pairs, f, loss)
                Lo, co = pair_loss(other, f, loss)
                assert Lo == L and np.array_equal(c, co)
            H, Ho = PairHessian(pairs, f), PairHessian(other, f)
            assert np.array_equal(H.matvec(v), Ho.matvec(v))
            assert pair_counts(pairs, f).total == pair_counts(other, f).total


# ----------------------------------------------------------------------------- line derivatives
@settings(max_examples=150, deadline=None)
@given(inst=instances(), loss=st.sampled_from(ALL_LOSSES))
def test_line_derivatives_match_brute_force(inst, loss):
    """φ(0), φ'(0) = Σ w ℓ'(z)(v_i - v_j), φ''(0) = Σ w ℓ''(z)(v_i - v_j)² over the listed pairs."""
    pairs, f, rng = inst
    m = pairs.n_points
    v = rng.integers(-3, 4, m) / 2.0 if rng.random() < 0.5 else rng.standard_normal(m)
    i, j, w = explicit_pairs(pairs)
    z, dv = f[i] - f[j], v[i] - v[j]
    want = (np.dot(w, loss.value(z)), np.dot(w * loss.derivative(z), dv), np.dot(w * loss.second(z), dv * dv))
    got = pair_line_derivatives(pairs, f, v, loss)
    scale = (brute_loss(pairs, f, loss)[2] + np.abs(w * loss.second(z)).sum()) * (1 + np.abs(v).max()) ** 2
    for a, b in zip(got, want, strict=False):
        assert_close(a, b, scale)


def test_line_derivatives_are_derivatives_of_the_loss():
    """φ' and φ'' by central differences of L(f + t v) away from breakpoints."""
    pairs, f, rng = continuous_instance(1, "survival")
    v = rng.standard_normal(len(f))
    for loss in [PairLoss("squared_hinge"), PairLoss("smoothed_hinge", 0.3), PairLoss("hinge")]:
        L, d1, d2 = pair_line_derivatives(pairs, f, v, loss)
        h = 1e-6
        Lp, d1p, _ = pair_line_derivatives(pairs, f + h * v, v, loss)
        Lm, d1m, _ = pair_line_derivatives(pairs, f - h * v, v, loss)
        assert pytest.approx(pair_loss(pairs, f, loss)[0], rel=1e-12) == L
        assert d1 == pytest.approx((Lp - Lm) / (2 * h), rel=1e-6, abs=1e-6)
        assert d2 == pytest.approx((d1p - d1m) / (2 * h), rel=1e-5, abs=1e-6)


# ----------------------------------------------------------------------------- blocked sweeps, fast ranks
@pytest.mark.parametrize("seed", range(4))
def test_block_width_does_not_change_the_sums(seed):
    """Every split of the ranks into coarse blocks and fine in-block ranks gives the same sweeps:
    blocks of one rank (all coarse) up to one block (all fine)."""
    from aucopt.pairs import _sweeps

    rng = np.random.default_rng(seed)
    m = 300
    w = rng.integers(0, 4, m) / 2.0
    pairs = (PairSet.survival(rng.random(m) < 0.6, np.round(rng.exponential(size=m), 1), point_weights=w)
             if seed % 2 else PairSet.bipartite(rng.random(m) < 0.3, point_weights=w))
    f = rng.integers(-40, 41, m) / 8.0
    v = rng.standard_normal(m)
    loss = PairLoss("smoothed_hinge", 0.25)
    core = PairCore(pairs, f, sorted({1.0, 1 - 2 * loss.eps})).ranks()
    results = []
    for shift in (0, 1, 3, _sweeps.block_shift(core.n_uniq), 16):
        core.set_blocks(shift)
        c, NA, NP = np.zeros(m), np.zeros(core.n_anchors), np.zeros(m)
        acc = core.sweep(loss.pieces, _compiled.LOSS, 3, 2, NA=NA, NP=NP, out=c)
        q = np.zeros(m)
        core.sweep([p for p in loss.pieces if p.d2], _compiled.MATVEC, 1, 1, v=v, NA=NA, NP=NP, out=q)
        line = core.sweep(loss.pieces, _compiled.LINE, 6, 0, v=v)
        results.append(np.concatenate([acc, c, NA, NP, q, line]))
    for r in results[1:]:
        np.testing.assert_allclose(r, results[0], rtol=1e-12, atol=1e-10)


@pytest.mark.parametrize("two_threads", [False, True])
def test_score_ranks_equal_argsort_ranks(two_threads, monkeypatch):
    """The packed-key sort ranks exactly as argsort does: ties, ±0, and runs of scores that share
    their leading bits (the packed keys' collisions, resolved in exact float64 order); also with the
    gather and the scatter split between two threads."""
    from aucopt import _threads
    from aucopt.pairs import _sweeps

    if two_threads:
        monkeypatch.setattr(_threads, "THREADED_FROM", 2)
        monkeypatch.setattr(_threads, "two_threads", lambda: True)
    rng = np.random.default_rng(5)
    base = rng.normal(size=2000)
    near = 1.0 + rng.integers(0, 2**20, 3000) * np.finfo(float).eps  # share the leading 40 bits
    for f in (base, np.round(base, 1), near, np.concatenate([near, -near, [0.0, -0.0, 0.0]]),
              np.zeros(7), np.array([3.0]), rng.permutation(np.concatenate([near, base]))):
        rank, uniq = _sweeps.score_ranks(np.ascontiguousarray(f, dtype=float))
        np.testing.assert_array_equal(uniq, np.unique(f))
        np.testing.assert_array_equal(rank, np.searchsorted(np.unique(f), f))


def test_pair_evaluator_equals_the_one_off_calls():
    """PairEvaluator shares the pair structure between calls and changes no result."""
    from aucopt.pairs.core import PairEvaluator, pair_line_derivatives, pair_loss_and_hessian

    rng = np.random.default_rng(9)
    m = 200
    pairs = PairSet.survival(rng.random(m) < 0.5, np.round(rng.exponential(size=m), 1),
                             point_weights=rng.random(m))
    evaluate = PairEvaluator(pairs, "smoothed_hinge", 0.25)
    for _ in range(3):
        f, v = rng.normal(size=m), rng.normal(size=m)
        L, c, H = evaluate.loss_and_hessian(f)
        L0, c0, H0 = pair_loss_and_hessian(pairs, f, "smoothed_hinge", 0.25)
        assert L == L0
        np.testing.assert_array_equal(c, c0)
        np.testing.assert_array_equal(H.matvec(v), H0.matvec(v))
        assert evaluate.line_derivatives(f, v) == pair_line_derivatives(pairs, f, v, "smoothed_hinge", 0.25)


def test_the_suffix_plan_is_built_once_per_pair_set_and_not_pickled(monkeypatch):
    """Every evaluation on one pair set shares its plan (a line search calls the core per step);
    a pair set derived by ``dataclasses.replace`` or unpickled builds its own."""
    import pickle

    from aucopt.pairs import _setup

    built = []
    original = _setup.SuffixPlan.__init__

    def counting(self, pairs):
        built.append(pairs)
        original(self, pairs)

    monkeypatch.setattr(_setup.SuffixPlan, "__init__", counting)
    rng = np.random.default_rng(0)
    event, times = rng.random(40) < 0.7, rng.exponential(size=40)
    pairs = PairSet.survival(event, times)
    f, v = rng.normal(size=40), rng.normal(size=40)
    first = [pair_line_derivatives(pairs, f + t * v, v) for t in (0.0, 0.5, 1.0)]
    first.append(pair_loss(pairs, f)[0])
    PairEvaluator(pairs).loss_and_hessian(f)
    assert len(built) == 1 and built[0] is pairs
    again = pickle.loads(pickle.dumps(pairs))
    assert "_derived_cache" not in again.__dict__ and len(pickle.dumps(pairs)) == len(pickle.dumps(again))
    regrouped = pairs.with_groups(np.arange(40) % 3)
    for other in (again, regrouped):
        assert [pair_line_derivatives(other, f + t * v, v) for t in (0.0, 0.5, 1.0)] + [
            pair_loss(other, f)[0]] == first
    assert len(built) == 3 and built[1] is again and built[2] is regrouped


def _slopes_pair_by_pair(pairs, f, eps):
    """Σ π / C and c of the smoothed hinge from the listed pairs, one difference at a time."""
    i, j, w = pairs.to_arrays(None)
    d = w * -PairLoss("smoothed_hinge", eps).derivative(f[i] - f[j])
    m = pairs.n_points
    return d.sum(), np.bincount(j, d, minlength=m) - np.bincount(i, d, minlength=m), w.sum()


def _narrow_band_cases():
    rng = np.random.default_rng(7)
    m = 120
    y = rng.random(m) < 0.4
    event, time = rng.random(m) < 0.7, rng.integers(1, 20, m).astype(float)  # tied times
    return {
        "bipartite weighted": PairSet.bipartite(y, point_weights=rng.uniform(0, 2, m)),
        "harrell": PairSet.survival(event, time),
        "ipcw (anchor weights)": PairSet.survival(event, time, weights="ipcw", tau=15.0),
    }


@pytest.mark.parametrize("case", list(_narrow_band_cases()))
@pytest.mark.parametrize("eps", [1e-9, 1e-6, 1e-3])
def test_pair_slopes_sum_a_narrow_band_pair_by_pair(case, eps):
    """Scores far from 0 and a band 2ε wide, with partners planted inside it: the prefix sums lose
    about |f|/ε of the band's slopes; pair_slopes keeps each pair's own rounding only, so Σπ and c
    belong to the same pair duals (what the smoothing route's certificate needs)."""
    pairs = _narrow_band_cases()[case]
    rng = np.random.default_rng(11)
    m = pairs.n_points
    f = 1e3 + rng.normal(size=m)
    i, j, _ = pairs.to_arrays(None)
    planted = rng.choice(len(i), size=m // 3, replace=False)
    f[j[planted]] = f[i[planted]] - 1.0 + rng.uniform(0, 2 * eps, len(planted))  # margins in the band
    total0, c0, weight = _slopes_pair_by_pair(pairs, f, eps)
    total, c = pair_slopes(pairs, f, "smoothed_hinge", eps=eps)
    assert total == pytest.approx(total0, rel=1e-13)
    assert pair_slope_total(pairs, f, "smoothed_hinge", eps=eps) == total
    np.testing.assert_allclose(c, c0, rtol=0, atol=1e-13 * weight)
    if eps <= 1e-9:  # the prefix sums' c on the same scores: at least 10 times the tolerance above
        assert np.abs(pair_loss(pairs, f, "smoothed_hinge", eps=eps)[1] - c0).max() > 1e-12 * weight


@pytest.mark.parametrize("budget", [0, 10**9], ids=["sweeps", "pair by pair"])
def test_pair_slopes_by_either_route_equal_the_listed_pairs(budget, monkeypatch):
    """A band holding more than the budget of pairs per point is summed by the sweeps, one within it
    pair by pair: both give the listed pairs' values (anchor weights included) and pair_loss's c."""
    monkeypatch.setattr(core, "_ONE_BY_ONE_PER_POINT", budget)
    monkeypatch.setattr(core, "_ONE_BY_ONE_PAIRS", budget)
    f = np.random.default_rng(3).normal(size=120)
    for pairs in _narrow_band_cases().values():
        listed = PairSet.from_arrays(*pairs.to_arrays(None), n_points=pairs.n_points)
        for eps in (0.1, 0.5, 1.0):
            total, c = pair_slopes(pairs, f, "smoothed_hinge", eps=eps)
            total0, c0 = pair_slopes(listed, f, "smoothed_hinge", eps=eps)
            assert total == pytest.approx(total0, rel=1e-12)
            np.testing.assert_allclose(c, c0, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(c, pair_loss(pairs, f, "smoothed_hinge", eps=eps)[1], rtol=1e-12, atol=1e-12)
        for loss in ("hinge", "squared_hinge"):  # no narrow piece
            np.testing.assert_allclose(pair_slopes(pairs, f, loss)[1], pair_loss(pairs, f, loss)[1], rtol=1e-12)
