"""Censoring-aware pair sets: Uno's IPCW weights and the horizon (AUC(τ)) pairs.

Both are sorted pair sets whose weight depends on the earlier subject only (``anchor_weights``).
They are checked against explicit pair lists built by brute-force double loops (pairs and
weights, with a brute-force censoring Kaplan–Meier), against ``uno_c`` and
``cumulative_dynamic_auc`` (the weighted fraction of concordant pairs), and the pair core on
their sorted storage against the same pairs listed (explicit storage).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from aucopt import PairSet
from aucopt.exceptions import NoComparablePairsError
from aucopt.metrics import censoring_survival, cumulative_dynamic_auc, uno_c
from aucopt.pairs import core


# ============================================================================ brute force
def brute_censoring_survival(event, time, weights, t):
    """Ĝ(t) = Π_{u ≤ t} (1 − c_u / (n_u − d_u)) over the distinct times u, by loops (weighted counts)."""
    w = np.ones(len(time)) if weights is None else np.asarray(weights, float)
    g = 1.0
    for u in sorted(set(time.tolist())):
        if u > t:
            break
        c = sum(w[k] for k in range(len(time)) if time[k] == u and not event[k])
        d = sum(w[k] for k in range(len(time)) if time[k] == u and event[k])
        n = sum(w[k] for k in range(len(time)) if time[k] >= u)
        if n - d > 0:
            g *= 1.0 - c / (n - d)
    return g


def brute_uno_pairs(event, time, weights=None, tau=np.inf):
    """Harrell's comparable pairs with T_i < tau, weight w_i w_j / Ĝ(T_i)², sorted by (i, j)."""
    m = len(time)
    w = np.ones(m) if weights is None else np.asarray(weights, float)
    out = []
    for i in range(m):
        if not event[i] or not time[i] < tau:
            continue
        for j in range(m):
            if time[i] < time[j] or (time[i] == time[j] and not event[j]):
                pw = w[i] * w[j]
                if pw != 0:
                    pw /= brute_censoring_survival(event, time, weights, time[i]) ** 2
                out.append((i, j, pw))
    return out


def brute_horizon_pairs(event, time, horizon, weights=None, ipcw=False):
    """Cases (event, T_i ≤ horizon) × controls (T_j > horizon), weight w_i w_j (/ Ĝ(T_i) with ipcw)."""
    m = len(time)
    w = np.ones(m) if weights is None else np.asarray(weights, float)
    out = []
    for i in range(m):
        if not (event[i] and time[i] <= horizon):
            continue
        for j in range(m):
            if time[j] > horizon:
                pw = w[i] * w[j]
                if ipcw and pw != 0:
                    pw /= brute_censoring_survival(event, time, weights, time[i])
                out.append((i, j, pw))
    return out


def listed(pairs):
    """The pairs of a PairSet as a list of (i, j, w) sorted by (i, j)."""
    i, j, w = pairs.to_arrays(None)
    return sorted(zip(i.tolist(), j.tolist(), w.tolist(), strict=False))


def assert_same_pairs(got, expected):
    assert [(a, b) for a, b, _ in got] == [(a, b) for a, b, _ in expected]
    np.testing.assert_allclose([x for *_, x in got], [x for *_, x in expected], rtol=1e-12, atol=0)


def weighted_concordance(pairs, risk):
    """Σ w ([r_i > r_j] + ½ [r_i = r_j]) / Σ w over the listed pairs (a loop)."""
    num = den = 0.0
    for i, j, w in listed(pairs):
        num += w * (1.0 if risk[i] > risk[j] else 0.5 if risk[i] == risk[j] else 0.0)
        den += w
    return num / den


def core_concordance(pairs, risk):
    """The same fraction from the compiled sweeps on integer risks: the hinge's total slope on
    f = 2r weighs the pairs with r_i ≤ r_j, on f = −2r those with r_i ≥ r_j."""
    total = pairs.total_weight()
    le = core.pair_slope_total(pairs, 2.0 * risk, "hinge")    # discordant + tied
    ge = core.pair_slope_total(pairs, -2.0 * risk, "hinge")   # concordant + tied
    tied = le + ge - total
    return (total - le + 0.5 * tied) / total


def random_survival(rng, m, n_times=None, p_event=0.6):
    event = rng.random(m) < p_event
    time = (rng.integers(1, n_times + 1, m).astype(float) if n_times else rng.exponential(1.0, m).round(3) + 0.001)
    return event, time


# ============================================================================ the censoring Ĝ
def test_brute_censoring_survival_is_censoring_survival():
    rng = np.random.default_rng(0)
    event, time = random_survival(rng, 40, n_times=6, p_event=0.5)
    g = censoring_survival((event, time))
    for t in np.unique(time):
        assert g.at(t) == pytest.approx(brute_censoring_survival(event, time, None, t), rel=1e-14)


# ============================================================================ Uno's pairs
@pytest.mark.parametrize("n_times", [None, 5])
@pytest.mark.parametrize("tau_quantile", [None, 0.3, 0.7])
def test_uno_pairs_equal_brute_force(n_times, tau_quantile):
    rng = np.random.default_rng(1 if n_times else 2)
    event, time = random_survival(rng, 45, n_times=n_times)
    last = np.argmax(time)  # one subject censored after everyone else: Ĝ positive at every event
    time[last], event[last] = time.max() + 1.0, False
    tau = None if tau_quantile is None else float(np.quantile(time, tau_quantile)) + 0.5 * (n_times is not None)
    pairs = PairSet.survival(event, time, weights="ipcw", tau=tau)
    assert pairs.storage == "sorted" and pairs.anchor_weights is not None
    expected = brute_uno_pairs(event, time, tau=np.inf if tau is None else tau)
    assert_same_pairs(listed(pairs), expected)
    assert pairs.n_pairs == len(expected)
    assert pairs.total_weight() == pytest.approx(sum(w for *_, w in expected), rel=1e-12)
    risk = rng.integers(0, 6, len(time)).astype(float)  # tied risks
    c = uno_c((event, time), (event, time), risk, tau=tau, tied_tol=0.0)
    assert weighted_concordance(pairs, risk) == pytest.approx(c, abs=1e-12)
    assert core_concordance(pairs, risk) == pytest.approx(c, abs=1e-12)


def test_uno_pairs_with_point_weights_equal_brute_force_and_repeated_rows():
    rng = np.random.default_rng(3)
    event, time = random_survival(rng, 30, n_times=6)
    last = np.argmax(time)
    time[last], event[last] = time.max() + 1.0, False
    weights = rng.integers(0, 4, len(time)).astype(float)
    pairs = PairSet.survival(event, time, weights="ipcw", point_weights=weights)
    assert_same_pairs(listed(pairs), brute_uno_pairs(event, time, weights))
    # an integer weight k is the subject repeated k times: the same Ĝ, the same weighted concordance
    rep = np.repeat(np.arange(len(time)), weights.astype(int))
    risk = rng.integers(0, 5, len(time)).astype(float)
    c = uno_c((event[rep], time[rep]), (event[rep], time[rep]), risk[rep], tied_tol=0.0)
    assert weighted_concordance(pairs, risk) == pytest.approx(c, abs=1e-12)
    assert core_concordance(pairs, risk) == pytest.approx(c, abs=1e-12)


def test_uno_c_doctest_data():
    event = np.array([True, False, True, True, False, True])
    time = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    risk = np.array([0.9, 0.4, 0.5, 0.6, 0.2, 0.1])
    for tau in (None, 3.5):
        pairs = PairSet.survival(event, time, weights="ipcw", tau=tau)
        assert weighted_concordance(pairs, risk) == pytest.approx(uno_c((event, time), (event, time), risk, tau),
                                                                   abs=1e-14)


# ============================================================================ horizon pairs
@pytest.mark.parametrize("ipcw", [False, True])
@pytest.mark.parametrize("n_times", [None, 6])
def test_horizon_pairs_equal_brute_force(ipcw, n_times):
    rng = np.random.default_rng(4)
    event, time = random_survival(rng, 50, n_times=n_times, p_event=0.5)
    candidates = np.unique(time[event & (time < time.max())])
    for horizon in candidates[np.linspace(0, len(candidates) - 1, 4).astype(int)]:
        horizon = float(horizon)
        pairs = PairSet.survival(event, time, horizon=horizon, weights="ipcw" if ipcw else None)
        assert pairs.storage == "sorted" and pairs.target == "survival"
        expected = brute_horizon_pairs(event, time, horizon, ipcw=ipcw)
        assert_same_pairs(listed(pairs), expected)
        assert pairs.total_weight() == pytest.approx(sum(w for *_, w in expected), rel=1e-12)
        case = event & (time <= horizon)
        np.testing.assert_array_equal(pairs.signs, np.where(case, 1.0, -1.0))
        risk = rng.integers(0, 7, len(time)).astype(float)
        frac = weighted_concordance(pairs, risk)
        assert core_concordance(pairs, risk) == pytest.approx(frac, abs=1e-12)
        if ipcw:  # exactly the weights of the cumulative/dynamic AUC(τ)
            auc, _ = cumulative_dynamic_auc((event, time), (event, time), risk, [horizon], tied_tol=0.0)
            assert frac == pytest.approx(auc[0], abs=1e-12)


def test_horizon_pairs_with_point_weights():
    rng = np.random.default_rng(5)
    event, time = random_survival(rng, 30, n_times=5)
    weights = rng.uniform(0, 2, len(time)) * (rng.random(len(time)) < 0.8)
    horizon = float(np.median(time))
    for ipcw in (False, True):
        pairs = PairSet.survival(event, time, horizon=horizon, weights="ipcw" if ipcw else None, point_weights=weights)
        assert_same_pairs(listed(pairs), brute_horizon_pairs(event, time, horizon, weights, ipcw))


# ============================================================================ refusals
def test_errors():
    event = np.array([True, False, True, True, False, True])
    time = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    for tau in (0, -1.0, np.inf, np.nan, "1"):
        with pytest.raises(ValueError, match="tau must be a positive finite time"):
            PairSet.survival(event, time, weights="ipcw", tau=tau)
    with pytest.raises(ValueError, match="horizon must be a positive finite time"):
        PairSet.survival(event, time, horizon=0.0)
    with pytest.raises(NoComparablePairsError, match="no control"):
        PairSet.survival(event, time, horizon=6.0)  # nobody followed beyond the largest time
    with pytest.raises(NoComparablePairsError, match="no case"):
        PairSet.survival(event, time, horizon=0.5)  # before the first event
    with pytest.raises(NoComparablePairsError, match="no case"):
        PairSet.survival(~event & False, time, horizon=2.5)
    with pytest.raises(NoComparablePairsError, match="choose a larger tau"):
        PairSet.survival(event, time, weights="ipcw", tau=1.0)  # T_i < tau: no event
    with pytest.raises(ValueError, match="does not combine with variant='lprex'"):
        PairSet.survival(event, time, weights="ipcw", variant="lprex")
    with pytest.raises(ValueError, match="does not combine with time_weight"):
        PairSet.survival(event, time, weights="ipcw", time_weight="log")
    with pytest.raises(ValueError, match="pass weights='ipcw' with it"):
        PairSet.survival(event, time, tau=3.0)
    with pytest.raises(ValueError, match="weights must be 'ipcw'"):
        PairSet.survival(event, time, weights="uno")
    for extra in ({"variant": "lprex"}, {"time_weight": "log"}, {"tau": 3.0}, {"weights": np.ones(9)}):
        with pytest.raises(ValueError, match="does not combine with"):
            PairSet.survival(event, time, horizon=3.5, **extra)
    # an event tied with the censorings at the largest time: Ĝ(T_i) = 0
    tied_end = (np.array([True, False, True, False]), np.array([1.0, 2.0, 3.0, 3.0]))
    with pytest.raises(ValueError, match="Truncate with tau <= 3"):
        PairSet.survival(*tied_end, weights="ipcw")
    assert PairSet.survival(*tied_end, weights="ipcw", tau=3.0).n_pairs == 3


# ============================================================================ the pair core
LOSS_SPECS = [("hinge", 0.5), ("squared_hinge", 0.5), ("smoothed_hinge", 0.25), ("smoothed_hinge", 1.0)]


@st.composite
def ipcw_instances(draw, max_m=50):
    m = draw(st.integers(2, max_m))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    event = rng.random(m) < draw(st.sampled_from([0.2, 0.6, 0.9]))
    time = rng.integers(1, draw(st.integers(2, 7)), m).astype(float)
    if draw(st.booleans()):  # one subject followed beyond everyone else (Ĝ > 0 at every event)
        time[0] = time.max() + 1.0
    weights = draw(st.sampled_from(["none", "integer", "uniform"]))
    w = {"none": None, "integer": rng.integers(0, 4, m).astype(float), "uniform": rng.uniform(0, 2, m)}[weights]
    kind = draw(st.sampled_from(["ipcw", "ipcw_tau", "horizon", "horizon_ipcw"]))
    try:
        if kind.startswith("horizon"):
            horizon = float(rng.choice(time)) + draw(st.sampled_from([0.0, 0.5]))
            pairs = PairSet.survival(event, time, horizon=horizon, point_weights=w,
                                     weights="ipcw" if kind == "horizon_ipcw" else None)
        else:
            tau = float(rng.integers(2, 8)) if kind == "ipcw_tau" else None
            pairs = PairSet.survival(event, time, weights="ipcw", tau=tau, point_weights=w)
    except ValueError:  # no pair, no case / control, or Ĝ(T_i) = 0
        assume(False)
    assume(pairs.n_pairs > 0)
    scores = draw(st.sampled_from(["integer", "quarters", "normal"]))
    f = {"integer": rng.integers(-2, 3, m).astype(float), "quarters": rng.integers(-8, 9, m) / 4.0,
         "normal": rng.standard_normal(m)}[scores]
    v = rng.integers(-2, 3, m).astype(float) if rng.random() < 0.5 else rng.standard_normal(m)
    return pairs, f, v


def _explicit(pairs):
    i, j, w = pairs.to_arrays(None)
    return PairSet.from_arrays(i, j, w, n_points=pairs.n_points, signs=pairs.signs, target="survival")


@settings(max_examples=200, deadline=None)
@given(inst=ipcw_instances(), spec=st.sampled_from(LOSS_SPECS))
def test_core_with_anchor_weights_equals_explicit(inst, spec):
    pairs, f, v = inst
    loss, eps = spec
    listed_pairs = _explicit(pairs)
    scale = 1.0 + pairs.total_weight() * (4.0 + np.abs(f).max() ** 2)
    tol = dict(rtol=1e-10, atol=1e-11 * scale)
    L, c = core.pair_loss(pairs, f, loss, eps)
    L0, c0 = core.pair_loss(listed_pairs, f, loss, eps)
    np.testing.assert_allclose(L, L0, **tol)
    np.testing.assert_allclose(c, c0, **tol)
    np.testing.assert_allclose(core.pair_slope_total(pairs, f, loss, eps),
                               core.pair_slope_total(listed_pairs, f, loss, eps), **tol)
    for got, want in zip(core.pair_slopes(pairs, f, loss, eps), core.pair_slopes(listed_pairs, f, loss, eps),
                         strict=True):
        np.testing.assert_allclose(got, want, **tol)
    np.testing.assert_allclose(core.pair_line_derivatives(pairs, f, v, loss, eps),
                               core.pair_line_derivatives(listed_pairs, f, v, loss, eps),
                               rtol=1e-10, atol=1e-11 * scale * (1 + np.abs(v).max()) ** 2)
    counts, counts0 = core.pair_counts(pairs, f), core.pair_counts(listed_pairs, f)
    assert counts.total == counts0.total
    np.testing.assert_array_equal(counts.first, counts0.first)
    np.testing.assert_array_equal(counts.second, counts0.second)
    found, found0 = core.violated_pairs(pairs, f, per_point=2), core.violated_pairs(listed_pairs, f, per_point=2)
    assert found.total == found0.total
    np.testing.assert_array_equal(found.positions, found0.positions)
    if loss == "hinge":
        return
    L2, c2, H = core.pair_loss_and_hessian(pairs, f, loss, eps)
    _, _, H0 = core.pair_loss_and_hessian(listed_pairs, f, loss, eps)
    np.testing.assert_allclose(L2, L0, **tol)
    np.testing.assert_allclose(c2, c0, **tol)
    htol = dict(rtol=1e-10, atol=1e-11 * scale * (1 + np.abs(v).max()))
    np.testing.assert_allclose(H.matvec(v), H0.matvec(v), **htol)
    V = np.column_stack([v, f, np.ones_like(f)])
    np.testing.assert_allclose(H.matmat(V), H0.matmat(V), rtol=1e-10,
                               atol=1e-11 * scale * (1 + np.abs(V).max()))
    assert H.n_active == H0.n_active


def test_core_without_anchor_weights_is_unchanged():
    """Anchor factors of 1 give bit-for-bit the results of the plain sorted set."""
    rng = np.random.default_rng(6)
    event, time = random_survival(rng, 80, n_times=8)
    w = rng.uniform(0.5, 2, 80)
    plain = PairSet.survival(event, time, point_weights=w)
    ones = replace(plain, anchor_weights=np.ones(80))
    f, v = rng.standard_normal(80), rng.standard_normal(80)
    L, c, H = core.pair_loss_and_hessian(plain, f)
    L1, c1, H1 = core.pair_loss_and_hessian(ones, f)
    assert L == L1
    np.testing.assert_array_equal(c, c1)
    np.testing.assert_array_equal(H.matvec(v), H1.matvec(v))
    assert plain.total_weight() == pytest.approx(ones.total_weight(), rel=1e-15)
