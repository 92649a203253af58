"""The compiled sorted-pair core against the previous numpy implementation (the oracle).

``reference_core`` (tests/pairs/reference_core.py) is the former pure-numpy core: a wavelet
matrix walked level by level for nested suffixes and vectorized bisection for the rank
thresholds. The compiled core uses Fenwick sweeps and a two-pointer threshold walk. Random
inputs stress the tie rules: integer and quarter-grid scores (z exactly on breakpoints), integer
times (tied times with events and censoring), heavy censoring, and zero / integer point weights.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import pytest
import reference_core as ref
from hypothesis import given, settings
from hypothesis import strategies as st

from aucopt import PairSet, _threads
from aucopt.pairs import _sweeps, core

LOSS_SPECS = [("hinge", 0.5), ("squared_hinge", 0.5), ("smoothed_hinge", 0.25), ("smoothed_hinge", 0.5),
              ("smoothed_hinge", 1.0), ("smoothed_hinge", 0.3)]


@st.composite
def tied_instances(draw, max_m=60):
    m = draw(st.integers(1, max_m))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["bipartite", "survival", "survival_censored"]))
    weights = draw(st.sampled_from(["none", "integer", "zero_heavy", "uniform"]))
    w = {"none": None, "integer": rng.integers(0, 4, m).astype(float),
         "zero_heavy": (rng.random(m) < 0.5) * rng.integers(1, 3, m).astype(float),
         "uniform": rng.uniform(0, 2, m)}[weights]
    if kind == "bipartite" and m >= 2:
        y = rng.integers(0, 2, m)
        y[:2] = [0, 1]
        pairs = PairSet.bipartite(y, point_weights=w)
    else:
        p_event = 0.15 if kind == "survival_censored" else 0.6
        event = rng.random(m) < p_event
        time_ = rng.integers(0, draw(st.integers(1, 6)), m).astype(float)
        pairs = PairSet.survival(event, time_, point_weights=w)
    scores = draw(st.sampled_from(["integer", "quarters", "normal"]))
    if scores == "integer":
        f = rng.integers(-2, 3, m).astype(float)
    elif scores == "quarters":
        f = rng.integers(-8, 9, m) / 4.0
    else:
        f = rng.standard_normal(m)
    v = rng.integers(-2, 3, m).astype(float) if rng.random() < 0.5 else rng.standard_normal(m)
    return pairs, f, v


@contextmanager
def blocked(on):
    """With ``on``, every sweep takes the blocked path (coarse and fine parts), which the core itself
    chooses only above ``COARSE_ONLY`` distinct scores: more than these small instances have."""
    default = _sweeps.COARSE_ONLY
    _sweeps.COARSE_ONLY = 0 if on else default
    try:
        yield
    finally:
        _sweeps.COARSE_ONLY = default


def _scale(pairs, f):
    w = np.ones(pairs.n_points) if pairs.point_weights is None else pairs.point_weights
    return 1.0 + pairs.total_weight() * (4.0 + np.abs(f).max() ** 2) * (1 + w.max())


@settings(max_examples=300, deadline=None)
@given(inst=tied_instances(), spec=st.sampled_from(LOSS_SPECS), blocks=st.booleans())
def test_compiled_loss_hessian_and_counts_equal_the_reference(inst, spec, blocks):
    with blocked(blocks):
        _loss_hessian_and_counts_equal_the_reference(inst, spec)


def _loss_hessian_and_counts_equal_the_reference(inst, spec):
    pairs, f, v = inst
    name, eps = spec
    scale = _scale(pairs, f) * (1 + np.abs(v).max()) ** 2
    L0, c0 = ref.pair_loss(pairs, f, name, eps)
    L1, c1 = core.pair_loss(pairs, f, name, eps)
    np.testing.assert_allclose(L1, L0, rtol=1e-12, atol=1e-12 * scale)
    np.testing.assert_allclose(c1, c0, rtol=1e-12, atol=1e-12 * scale)
    if name != "hinge":
        H0 = ref.PairHessian(pairs, f, name, eps)
        L2, c2, H1 = core.pair_loss_and_hessian(pairs, f, name, eps)
        assert L2 == L1 and np.array_equal(c2, c1)
        assert H1.n_active == H0.n_active
        np.testing.assert_allclose(H1.matvec(v), H0.matvec(v), rtol=1e-12, atol=1e-12 * scale)
        np.testing.assert_allclose(core.PairHessian(pairs, f, name, eps).matvec(v), H0.matvec(v),
                                   rtol=1e-12, atol=1e-12 * scale)
    for threshold in (1.0, 0.0, 0.5, -1.0):
        a, b = ref.pair_counts(pairs, f, threshold), core.pair_counts(pairs, f, threshold)
        assert a.total == b.total
        np.testing.assert_array_equal(b.first, a.first)
        np.testing.assert_array_equal(b.second, a.second)


@settings(max_examples=100, deadline=None)
@given(inst=tied_instances(), spec=st.sampled_from(LOSS_SPECS), blocks=st.booleans())
def test_line_derivatives_equal_reference_c_and_q(inst, spec, blocks):
    """φ'(0) = cᵀv and φ''(0) = vᵀQ(v) with c and Q from the reference core."""
    pairs, f, v = inst
    name, eps = spec
    scale = _scale(pairs, f) * (1 + np.abs(v).max()) ** 2
    with blocked(blocks):
        L, d1, d2 = core.pair_line_derivatives(pairs, f, v, name, eps)
    L0, c0 = ref.pair_loss(pairs, f, name, eps)
    np.testing.assert_allclose(L, L0, rtol=1e-12, atol=1e-12 * scale)
    np.testing.assert_allclose(d1, c0 @ v, rtol=1e-10, atol=1e-11 * scale)
    q = ref.PairHessian(pairs, f, name, eps).matvec(v) @ v if name != "hinge" else 0.0
    np.testing.assert_allclose(d2, q, rtol=1e-10, atol=1e-11 * scale)


@pytest.mark.parametrize("scores", ["zero", "signed_zeros", "constant"])
@pytest.mark.parametrize("kind", ["survival", "survival_weighted", "ipcw", "multipartite"])
def test_one_distinct_score_equals_the_listed_pairs(kind, scores):
    """Every score the same (the start at θ = 0): the sweeps' suffix totals and running sums, without a
    tree, against the same pairs listed (the vectorized enumeration) for every loss (z = 0 inside,
    or on the edge of, each piece) and every quantity."""
    rng = np.random.default_rng(3)
    m = 300
    event, time = rng.random(m) < 0.6, rng.integers(0, 40, m).astype(float)
    pairs = {"survival": lambda: PairSet.survival(event, time),
             "survival_weighted": lambda: PairSet.survival(event, time, point_weights=rng.integers(0, 3, m) / 2.0),
             "ipcw": lambda: PairSet.survival(event, time, weights="ipcw", tau=30.0),
             "multipartite": lambda: PairSet.multipartite(rng.integers(0, 4, m))}[kind]()
    listed = PairSet.from_arrays(*pairs.to_arrays(), n_points=m)
    f = {"zero": np.zeros(m), "signed_zeros": np.where(rng.random(m) < 0.5, -0.0, 0.0),
         "constant": np.full(m, 3.5)}[scores]
    v = rng.standard_normal(m)
    for name, eps in LOSS_SPECS:
        got, want = [], []
        for out, p in ((got, pairs), (want, listed)):
            L, c = core.pair_loss(p, f, name, eps)
            out += [np.array([L]), c, np.array(core.pair_line_derivatives(p, f, v, name, eps))]
            counts = core.pair_counts(p, f, 0.0 if name == "hinge" else 1.0)
            out += [np.array([counts.total]), counts.first, counts.second]
            if name != "hinge":
                H = core.pair_loss_and_hessian(p, f, name, eps)[2]
                out += [H.matvec(v), np.array([H.n_active])]
        np.testing.assert_allclose(np.concatenate(got), np.concatenate(want), rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("blocks", [False, True])
@pytest.mark.parametrize("kind", ["bipartite", "survival"])
def test_large_tied_instance_equals_the_reference(kind, blocks):
    """m = 20,000 with heavy ties in scores and times: deep Fenwick trees, many rank groups."""
    rng = np.random.default_rng(8)
    m = 20_000
    w = rng.integers(0, 3, m).astype(float)
    if kind == "bipartite":
        pairs = PairSet.bipartite(rng.random(m) < 0.2, point_weights=w)
    else:
        pairs = PairSet.survival(rng.random(m) < 0.3, rng.integers(0, 300, m).astype(float), point_weights=w)
    f = rng.integers(-64, 65, m) / 16.0
    v = rng.standard_normal(m)
    for name, eps in LOSS_SPECS:
        L0, c0 = ref.pair_loss(pairs, f, name, eps)
        with blocked(blocks):
            L1, c1 = core.pair_loss(pairs, f, name, eps)
            Q1 = core.pair_loss_and_hessian(pairs, f, name, eps)[2].matvec(v) if name != "hinge" else None
        scale = np.abs(c0).sum()
        assert pytest.approx(L0, rel=1e-11) == L1
        np.testing.assert_allclose(c1, c0, rtol=1e-10, atol=1e-12 * scale)
        if name != "hinge":
            Q0 = ref.PairHessian(pairs, f, name, eps).matvec(v)
            np.testing.assert_allclose(Q1, Q0, rtol=1e-10, atol=1e-12 * np.abs(Q0).sum())


@pytest.mark.parametrize("blocks", [False, True])
@pytest.mark.parametrize("kind", ["bipartite", "survival_weighted"])
def test_the_sweeps_on_two_threads_equal_one_thread_to_the_bit(kind, blocks, monkeypatch):
    """From THREADED_FROM points on (when numba may use two threads) the forward and adjoint sweeps run on two
    threads; the terms are added in the same order, so every result is the same to the bit."""
    monkeypatch.setattr(_sweeps, "COARSE_ONLY", 0 if blocks else _sweeps.COARSE_ONLY)
    rng = np.random.default_rng(5)
    m = 3_000
    if kind == "bipartite":
        pairs = PairSet.bipartite(rng.random(m) < 0.3)
    else:
        pairs = PairSet.survival(rng.random(m) < 0.5, rng.integers(0, 400, m).astype(float),
                                 point_weights=rng.uniform(0, 2, m))
    f, v = rng.integers(-40, 41, m) / 16.0, rng.standard_normal(m)

    def results():
        out = []
        for name, eps in LOSS_SPECS[1:]:
            L, c, H = core.pair_loss_and_hessian(pairs, f, name, eps)
            out += [np.array([L]), c, H.matvec(v), H.matmat(np.c_[v, f]).ravel(), np.array([H.n_active])]
        return out

    monkeypatch.setattr(_threads, "THREADED_FROM", 10**12)
    one = results()
    together = []
    run = _threads.run_together
    monkeypatch.setattr(_threads, "run_together", lambda *halves: (together.append(1), run(*halves)))
    monkeypatch.setattr(_threads, "THREADED_FROM", 0)
    monkeypatch.setattr(_threads, "two_threads", lambda: True)
    two = results()
    assert len(together) >= 2 * len(LOSS_SPECS[1:])  # the loss and every Hessian product
    for a, b in zip(one, two, strict=True):
        assert np.array_equal(a, b)


def test_an_error_on_the_other_thread_reaches_the_caller():
    from aucopt._threads import run_together

    ran = []

    def fails():
        raise ValueError("raised on the other thread")

    with pytest.raises(ValueError, match="other thread"):
        run_together(lambda: ran.append(1), fails)
    assert ran == [1]


@pytest.mark.parametrize(("numba_threads", "two"), [(1, False), (2, True), (8, True)])
def test_numba_thread_count_decides_whether_a_sweep_uses_two_threads(numba_threads, two, monkeypatch):
    """``NUMBA_NUM_THREADS=1`` (what joblib's workers get when they share the cores) keeps the sweeps on one thread."""
    from numba import config

    monkeypatch.setattr(config, "NUMBA_NUM_THREADS", numba_threads)
    _threads.two_threads.cache_clear()  # read once per process, at the first question
    try:
        assert _threads.two_threads() is two
    finally:
        _threads.two_threads.cache_clear()
