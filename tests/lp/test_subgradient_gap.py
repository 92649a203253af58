"""The subgradient method's certified lower bound and optimality gap.

Oracles, independent of the code under test: the full LP (Ataman 2007, eq. 4.4) built by
``get_formulation("lp_ranker")`` and solved by HiGHS, and the LP's dual value at the all-pairs
point μ = C w written out pair by pair from a brute-force pair list.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel
from test_lp_scale import brute_bipartite, case, full_lp

from aucopt import LPRanker, PairSet
from aucopt.lp._scale import subgradient

REL = 1e-9


def _synthetic(seed, n=100, C=1.0):
    X, y = make_classification(n_samples=n, flip_y=0.1, random_state=seed)
    return rbf_kernel(X, gamma=0.1), PairSet.bipartite(y), y, C


def _run(K, pairs, C, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return subgradient(K, pairs, C, **kwargs)


@pytest.mark.parametrize("rule", ["dynamic", "dual_target", "constant"])
@pytest.mark.parametrize("seed", [0, 1])
def test_lower_bound_certifies_the_lp_optimum(seed, rule):
    K, pairs, _, C = _synthetic(seed)
    opt, _ = full_lp(K, pairs, C)
    run = _run(K, pairs, C, rule=rule, max_iter=300)
    assert 0.0 < run.lower_bound <= opt * (1 + REL)
    assert opt <= run.objective * (1 + REL)
    assert run.gap == pytest.approx((run.objective - run.lower_bound) / run.objective)
    assert run.gap >= (run.objective - opt) / run.objective - REL


@pytest.mark.parametrize("name", ["cancer", "digits3", "whas500"])
def test_lower_bound_on_real_data(name):
    if name == "whas500":
        pytest.importorskip("sksurv")
    K, pairs, _, C, (opt, _) = case(name)
    run = _run(K, pairs, C, max_iter=300)
    assert run.lower_bound <= opt * (1 + REL) <= run.objective * (1 + REL) ** 2


def test_gap_shrinks_with_more_iterations():
    K, pairs, _, C = _synthetic(2)
    short = _run(K, pairs, C, rule="constant", step=0.05, max_iter=20)
    long = _run(K, pairs, C, rule="constant", step=0.05, max_iter=400)
    assert long.gap <= short.gap
    assert long.lower_bound >= short.lower_bound
    gaps = [r["gap"] for r in long.history]
    assert all(b <= a + 1e-12 for a, b in itertools.pairwise(gaps))


def test_first_dual_point_matches_brute_force():
    """One iteration from α = 0: every pair is violated, μ = C w; its scaled dual value is the
    bound, computed here from the pair list."""
    K, pairs, y, C = _synthetic(3, n=40, C=0.5)
    i, j = brute_bipartite(y)
    sgn = pairs.signs
    rows = np.zeros(len(y))
    for a, b in zip(i, j, strict=False):
        rows += C * sgn * (K[a] - K[b])  # (Y K Dᵀ μ)_l
    expected = C * len(i) / max(1.0, rows.max())
    run = _run(K, pairs, C, rule="constant", max_iter=1)
    assert run.lower_bound == pytest.approx(expected, rel=1e-10)


def test_estimator_exposes_the_gap():
    X, y = make_classification(n_samples=80, random_state=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = LPRanker(C=1.0, gamma=0.1, method="subgradient").fit(X, y)
    res = model.method_result_
    assert 0.0 < res.lower_bound <= res.objective
    assert 0.0 <= res.gap < 1.0


def test_verbose_prints_the_gap(capsys):
    K, pairs, _, C = _synthetic(0, n=40)
    _run(K, pairs, C, max_iter=30, verbose=1)
    assert "relative gap" in capsys.readouterr().out


def test_min_improvement_shrinks_the_step_scale_sooner():
    K, pairs, _, C = _synthetic(1)
    opt, _ = full_lp(K, pairs, C)
    base = _run(K, pairs, C, max_iter=2000)
    fast = _run(K, pairs, C, max_iter=2000, min_improvement=0.01)
    assert fast.stop == "step_min" and fast.iterations <= base.iterations
    for run in (base, fast):
        assert run.lower_bound <= opt * (1 + REL) <= run.objective * (1 + REL)
    # λ never grows and, with the threshold, shrinks on every (patience + 1)-th small improvement
    lams = [r["step_scale"] for r in fast.history]
    assert all(b <= a for a, b in itertools.pairwise(lams))


def test_min_improvement_through_the_estimator():
    X, y = make_classification(n_samples=80, random_state=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = LPRanker(C=1.0, gamma=0.1, method="subgradient",
                         method_options={"min_improvement": 0.01, "rule": "dual_target"}).fit(X, y)
    assert model.method_result_.stop == "step_min"
    with pytest.raises(ValueError, match="min_improvement"):
        LPRanker(method="subgradient", method_options={"min_improvement": -1.0}).fit(X, y)
