"""The LP Ranker at scale (Ataman 2007, Ch. IV): chunking and the projected subgradient method.

Oracles, independent of the code under test:

* the full LP (3.3), built by ``get_formulation("lp_ranker")`` and solved by HiGHS;
* brute-force pair lists enumerated here from the labels / (event, time) definition
  (positives × negatives; Harrell: event_i and (t_i < t_j or t_i == t_j and not event_j)),
  and the hinge objective / subgradient summed over them pair by pair;
* ``sklearn.metrics.roc_auc_score`` for test AUCs, and a direct call of
  :func:`aucopt.lp._clustering.local_clustering` for the clustering reduction.

Real data: sklearn's breast cancer (WDBC) and digits (one-vs-rest), scikit-survival's whas500
(optional, ``importorskip``). Subsets of 80-200 rows keep the file at a few seconds.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_digits, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import roc_auc_score
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.preprocessing import MinMaxScaler, minmax_scale

import aucopt.kernels
import aucopt.lp._classes
import aucopt.lp._scale
import aucopt.svm._aucsvm
from aucopt import LPRanker, PairSet, SurvivalLPRanker, get_formulation
from aucopt.exceptions import ProblemTooLargeError
from aucopt.lp._clustering import local_clustering
from aucopt.lp._scale import chunking, lp_objective, subgradient
from aucopt.pairs.core import pair_counts, pair_loss
from aucopt.solvers import solve

RTOL_LP = 1e-7


# ============================================================================ oracles
def brute_bipartite(pos):
    """All (i, j) with i positive and j negative, enumerated from the labels."""
    pos = np.asarray(pos, bool)
    return np.nonzero(pos[:, None] & ~pos[None, :])


def brute_survival(event, time):
    """Harrell's comparable pairs from the definition (ties: t_i == t_j needs j censored)."""
    event, time = np.asarray(event, bool), np.asarray(time, float)
    ti, tj = time[:, None], time[None, :]
    comparable = event[:, None] & ((ti < tj) | ((ti == tj) & ~event[None, :]))
    return np.nonzero(comparable)


def brute_F(K, y, i, j, w, C, alpha):
    """Σα + C Σ w_ij max(0, 1 − (f_i − f_j)), f = K (y∘α), summed pair by pair."""
    f = K @ (y * alpha)
    hinge = sum(wk * max(0.0, 1.0 - (f[a] - f[b])) for a, b, wk in zip(i, j, w, strict=False))
    return float(np.sum(alpha)) + C * hinge


def brute_subgradient(K, y, i, j, w, C, alpha):
    """g = 1 − C Σ_{z_ij < 1} w_ij y∘(K_i· − K_j·) (pairs exactly at margin 1 contribute 0)."""
    f = K @ (y * alpha)
    g = np.ones(len(alpha))
    for a, b, wk in zip(i, j, w, strict=False):
        if f[a] - f[b] < 1.0:
            g -= C * wk * y * (K[a] - K[b])
    return g


def full_lp(K, pairs, C):
    """(objective, alpha) of the whole LP (3.3) solved by HiGHS."""
    problem = get_formulation("lp_ranker").build(pairs, K, C=C)
    result = solve(problem, "highs").raise_for_status()
    return result.objective, problem.block(result.x, "alpha")


# ============================================================================ data
def _cancer_subset(n, seed=0):
    X, y = load_breast_cancer(return_X_y=True)
    idx = np.random.RandomState(seed).permutation(len(y))[:n]
    return minmax_scale(X[idx]), y[idx] == 0  # malignant = positive


def _digits_subset(digit, n=120, seed=1):
    d = load_digits()
    idx = np.random.RandomState(seed).permutation(len(d.target))[:n]
    return d.data[idx] / 16.0, d.target[idx] == digit  # pixels are in [0, 16]


def _whas_subset(n=80, seed=0):
    datasets = pytest.importorskip("sksurv.datasets")
    X, y = datasets.load_whas500()
    Xn = X.select_dtypes("number").to_numpy(dtype=float)
    idx = np.random.RandomState(seed).permutation(len(y))[:n]
    names = y.dtype.names
    e = next(nm for nm in names if y.dtype[nm].kind == "b")
    t = next(nm for nm in names if nm != e)
    return minmax_scale(Xn[idx]), y[idx], np.asarray(y[e][idx], bool), np.asarray(y[t][idx], float)


def _case(name):
    """(K, pairs, brute (i, j, w), C) of a real-data LP."""
    if name == "cancer":
        X, pos = _cancer_subset(120)
        K, C = rbf_kernel(X, gamma=1.0), 10.0
        pairs, (i, j) = PairSet.bipartite(pos), brute_bipartite(pos)
    elif name.startswith("digits"):
        X, pos = _digits_subset(int(name[-1]))
        K, C = rbf_kernel(X, gamma=0.05), 10.0
        pairs, (i, j) = PairSet.bipartite(pos), brute_bipartite(pos)
    elif name == "whas500":
        X, _, event, time = _whas_subset()
        K, C = rbf_kernel(X, gamma=1.0), 0.1
        pairs, (i, j) = PairSet.survival(event, time), brute_survival(event, time)
    else:  # pragma: no cover
        raise KeyError(name)
    return K, pairs, (i, j, np.ones(len(i))), C


_CASES = {}


def case(name):
    if name not in _CASES:
        K, pairs, brute, C = _case(name)
        _CASES[name] = (K, pairs, brute, C, full_lp(K, pairs, C))
    return _CASES[name]


@pytest.fixture
def no_solver_work(monkeypatch):
    """Any LP solve or hinge evaluation fails the test: validation must come first."""

    def refuse(*args, **kwargs):
        raise AssertionError("solver work started before the input was validated")

    monkeypatch.setattr(aucopt.lp._scale, "solve", refuse)
    monkeypatch.setattr(aucopt.lp._scale, "pair_loss", refuse)
    monkeypatch.setattr(aucopt.lp._classes, "solve", refuse)


# ============================================================================ chunking: exactness
CHUNK_SETTINGS = [  # (scheme, n_chunks, top_k)
    (1, 1, 1000),
    (1, 3, 1000),
    (1, 5, 1000),
    (2, 5, 20),
    (2, 13, 5),
]


@pytest.mark.parametrize("name", ["cancer", "digits3", "digits8", "whas500"])
def test_chunking_reaches_full_lp_optimum(name):
    K, pairs, (i, j, w), C, (F_full, alpha_full) = case(name)
    assert pairs.n_pairs == len(i)  # the brute enumeration is the same pair set (size)
    # the oracle itself: HiGHS's objective is the hinge form at its alpha
    assert brute_F(K, pairs.signs, i, j, w, C, alpha_full) == pytest.approx(F_full, rel=1e-8)
    settings = CHUNK_SETTINGS if name != "whas500" else [(1, 3, 1000), (2, 4, 50)]
    for scheme, n_chunks, top_k in settings:
        run = chunking(K, pairs, C, n_chunks=n_chunks, scheme=scheme, top_k=top_k, random_state=0)
        label = f"{name} scheme={scheme} n_chunks={n_chunks} top_k={top_k}"
        assert run.objective == pytest.approx(F_full, rel=RTOL_LP), label
        # the returned alpha is optimal for the FULL LP, by the independent pair-by-pair sum
        assert np.all(run.alpha >= -1e-9), label
        assert brute_F(K, pairs.signs, i, j, w, C, run.alpha) == pytest.approx(F_full, rel=RTOL_LP), label
        # it stopped on the certificate, at the first restricted LP that violated no pair outside it
        assert run.converged and [r["added"] == 0 for r in run.history] == [False] * (run.n_solves - 1) + [True], label
        assert run.n_solves == (run.passes - 1) * n_chunks + run.history[-1]["chunk"] + 1, label
        assert run.history[-1]["retained"] == run.n_constraints <= pairs.n_pairs, label
        if scheme == 2:
            assert all(r["added"] <= top_k for r in run.history), label
            if n_chunks > 1:  # genuine constraint generation: far fewer rows than the full LP
                assert run.n_constraints <= top_k * run.n_solves < pairs.n_pairs, label


def test_chunking_callback_and_history():
    K, pairs, _, C, (F_full, _) = case("digits8")
    seen = []
    run = chunking(K, pairs, C, n_chunks=4, scheme=2, top_k=10, callback=seen.append, random_state=0)
    assert seen == run.history and len(seen) == run.n_solves
    retained = [r["retained"] for r in run.history]
    assert retained == sorted(retained)  # S never shrinks
    assert np.cumsum([r["added"] for r in run.history])[-1] == run.n_constraints
    # each restricted LP is a relaxation of the full LP: its optimum is a lower bound
    assert all(r["restricted_objective"] <= F_full * (1 + 1e-9) for r in run.history)
    assert run.history[-1]["restricted_objective"] == pytest.approx(F_full, rel=RTOL_LP)


@pytest.mark.parametrize("name", ["cancer", "digits8"])
def test_misorder_rule_is_not_exact(name):
    """violation="misorder" (LHS < 0) stops while margin violators remain: its α is not optimal
    for the full LP (on WDBC, 71.57 against 30.91), whereas the margin rule on the same chunks is."""
    K, pairs, (i, j, w), C, (F_full, _) = case(name)
    wrong = chunking(K, pairs, C, n_chunks=5, violation="misorder", random_state=0)
    right = chunking(K, pairs, C, n_chunks=5, violation="margin", random_state=0)
    F_wrong = brute_F(K, pairs.signs, i, j, w, C, wrong.alpha)
    assert wrong.objective == pytest.approx(F_wrong, rel=1e-9)
    assert F_wrong > 1.25 * F_full  # clearly suboptimal, not a rounding difference
    assert right.objective == pytest.approx(F_full, rel=RTOL_LP)
    # and why: margin violators (0 ≤ LHS < 1) that the misorder rule never adds remain
    f = K @ (pairs.signs * wrong.alpha)
    z = f[i] - f[j]
    assert np.sum((z >= 0) & (z < 1 - 1e-6)) > 0


# ============================================================================ PairSet.pairs_at
def _pair_set_data():
    rng = np.random.default_rng(7)
    m = 40
    pos = rng.random(m) < 0.4
    event = rng.random(m) < 0.6
    time = rng.integers(0, 6, m).astype(float)  # many ties, events and censored at the same time
    return rng, m, pos, event, time


def _pair_sets():
    rng, m, pos, event, time = _pair_set_data()
    pw = rng.uniform(0.5, 3.0, m)
    i = rng.integers(0, m, 150)
    j = (i + rng.integers(1, m, 150)) % m
    return {
        "bipartite": PairSet.bipartite(pos),
        "bipartite_weighted": PairSet.bipartite(pos, point_weights=pw),
        "survival_ties": PairSet.survival(event, time),
        "survival_ties_weighted": PairSet.survival(event, time, point_weights=pw),
        "explicit": PairSet.from_arrays(i, j, rng.uniform(0, 2, 150), n_points=m),
    }


@pytest.mark.parametrize("kind", list(_pair_sets()))
def test_pairs_at_equals_indexing_to_arrays(kind):
    pairs = _pair_sets()[kind]
    all_i, all_j, all_w = pairs.to_arrays()
    P = pairs.n_pairs
    assert P == len(all_i) > 50
    rng = np.random.default_rng(3)
    for index in (np.arange(P), rng.permutation(P)[: P // 3], rng.integers(0, P, 200),  # with repeats
                  np.array([0, P - 1, 0]), np.array([], dtype=np.int64)):
        i, j, w = pairs.pairs_at(index)
        np.testing.assert_array_equal(i, all_i[index])
        np.testing.assert_array_equal(j, all_j[index])
        np.testing.assert_allclose(w, all_w[index], rtol=0, atol=0)
    with pytest.raises(ValueError, match="pair positions must lie in"):
        pairs.pairs_at([P])
    with pytest.raises(ValueError, match="pair positions must lie in"):
        pairs.pairs_at([-1])


def test_survival_ties_pair_set_matches_definition():
    """The tied-time set used above really has ties of both kinds, and is Harrell's set."""
    _, _, _, event, time = _pair_set_data()
    pairs = _pair_sets()["survival_ties"]
    all_i, all_j, _ = pairs.to_arrays()
    bi, bj = brute_survival(event, time)
    assert set(zip(all_i.tolist(), all_j.tolist(), strict=False)) == set(zip(bi.tolist(), bj.tolist(), strict=False))
    assert np.any(time[all_i] == time[all_j])  # event-vs-censored at a tied time is a pair


# ============================================================================ hinge and subgradient
def _hinge_cases():
    """(name, K, pairs, brute (i, j, w), y, alpha, expect_at_margin)."""
    rng = np.random.default_rng(11)
    out = []
    X, pos = _cancer_subset(60, seed=3)
    K = rbf_kernel(X, gamma=1.0)
    alpha = rng.exponential(0.3, len(pos)) * (rng.random(len(pos)) < 0.5)
    pw = rng.uniform(0.2, 2.0, len(pos))
    i, j = brute_bipartite(pos)
    out.append(("bipartite", K, PairSet.bipartite(pos), (i, j, np.ones(len(i))), alpha, False))
    out.append(("bipartite_weighted", K, PairSet.bipartite(pos, point_weights=pw),
                (i, j, pw[i] * pw[j]), alpha, False))
    # survival with many tied times (5 distinct values; events and censored share them)
    m = 50
    event = rng.random(m) < 0.5
    time = rng.integers(0, 5, m).astype(float)
    Xs = rng.random((m, 4))
    Ks = rbf_kernel(Xs, gamma=2.0)
    si, sj = brute_survival(event, time)
    out.append(("survival_ties", Ks, PairSet.survival(event, time), (si, sj, np.ones(len(si))),
                rng.exponential(0.5, m), False))
    pws = rng.uniform(0.5, 2.0, m)
    out.append(("survival_ties_weighted", Ks, PairSet.survival(event, time, point_weights=pws),
                (si, sj, pws[si] * pws[sj]), rng.exponential(0.5, m), False))
    # exact margins: K = I and dyadic α, so many f_i − f_j are exactly 1 (and exactly 1 ± 0.25)
    grid = np.array([0.0, 0.25, 0.5, 0.75, 1.0, 1.5])
    out.append(("bipartite_margin1", np.eye(len(pos)), PairSet.bipartite(pos, point_weights=pw),
                (i, j, pw[i] * pw[j]), rng.choice(grid, len(pos)), True))
    out.append(("survival_margin1", np.eye(m), PairSet.survival(event, time),
                (si, sj, np.ones(len(si))), rng.choice(grid, m), True))
    return out


@pytest.mark.parametrize("name,K,pairs,brute,alpha,at_margin", _hinge_cases(),
                         ids=[c[0] for c in _hinge_cases()])
def test_hinge_value_and_subgradient_match_brute_force(name, K, pairs, brute, alpha, at_margin):
    i, j, w = brute
    C = 3.0
    y = pairs.signs
    f = K @ (y * alpha)
    z = f[i] - f[j]
    if at_margin:  # the case must actually contain pairs exactly at margin 1, and violators
        assert np.sum(z == 1.0) >= 5 and np.sum(z < 1.0) >= 5
    F_ref = brute_F(K, y, i, j, w, C, alpha)
    g_ref = brute_subgradient(K, y, i, j, w, C, alpha)

    F, f_lib = lp_objective(K, pairs, C, alpha)
    np.testing.assert_allclose(f_lib, f, rtol=0, atol=1e-12)
    assert pytest.approx(F_ref, rel=1e-9, abs=1e-9) == F
    _hinge, c = pair_loss(pairs, f, "hinge")
    g = 1.0 + C * y * (K @ c)
    np.testing.assert_allclose(g, g_ref, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(g_ref).max()))
    if pairs.point_weights is None:  # −c = (#violated as first) − (#violated as second)
        counts = pair_counts(pairs, f, 1.0)
        assert counts.total == np.sum(z < 1.0)
        np.testing.assert_allclose(-c, counts.first - counts.second, atol=1e-9)

    # subgradient() steps along exactly this g: one constant step from α, then F(α⁺)
    s = 1e-3
    run = subgradient(K, pairs, C, rule="constant", step=s, max_iter=2, alpha0=alpha)
    assert run.history[0]["objective"] == pytest.approx(F_ref, rel=1e-9)
    assert run.history[0]["grad_norm"] == pytest.approx(np.linalg.norm(g_ref), rel=1e-9)
    alpha_next = np.maximum(alpha - s * g_ref / np.linalg.norm(g_ref), 0.0)  # normalized step
    assert run.history[1]["objective"] == pytest.approx(brute_F(K, y, i, j, w, C, alpha_next), rel=1e-9)
    # and the dynamic (Polyak) step is step0 · target_frac · F / ‖g‖²
    with pytest.warns(ConvergenceWarning, match="max_iter=1 before"):
        run = subgradient(K, pairs, C, rule="dynamic", step0=1.5, target_frac=0.2, max_iter=1, alpha0=alpha)
    assert run.history[0]["step"] == pytest.approx(1.5 * 0.2 * F_ref / float(g_ref @ g_ref), rel=1e-9)


# ============================================================================ subgradient runs
@pytest.fixture(scope="module")
def cancer_lp():
    X, pos = _cancer_subset(100, seed=2)
    K = rbf_kernel(X, gamma=1.0)
    pairs = PairSet.bipartite(pos)
    i, j = brute_bipartite(pos)
    return K, pairs, (i, j, np.ones(len(i))), 10.0


def _check_history(run, K, pairs, brute, C):
    objectives = np.array([r["objective"] for r in run.history])
    best = np.array([r["best"] for r in run.history])
    np.testing.assert_array_equal(best, np.minimum.accumulate(objectives))
    assert np.all(np.diff(best) <= 0)
    assert [r["iteration"] for r in run.history] == list(range(1, len(run.history) + 1))
    assert run.objective == objectives.min()
    assert run.history[run.best_iteration - 1]["objective"] == run.objective
    assert np.all(run.alpha >= 0)
    i, j, w = brute
    assert brute_F(K, pairs.signs, i, j, w, C, run.alpha) == pytest.approx(run.objective, rel=1e-9)


def test_subgradient_dynamic_rule_history_and_lambda_schedule(cancer_lp):
    K, pairs, brute, C = cancer_lp
    step0, step_min, patience, shrink = 1.0, 0.01, 3, 1.5
    seen = []
    run = subgradient(K, pairs, C, step0=step0, step_min=step_min, patience=patience, shrink=shrink,
                      max_iter=5000, callback=seen.append)
    assert seen == run.history
    _check_history(run, K, pairs, brute, C)
    F_full, _ = full_lp(K, pairs, C)
    assert run.objective >= F_full * (1 - 1e-9)  # the LP optimum is a lower bound
    assert run.objective < 0.5 * C * pairs.n_pairs  # and the run did make progress from F(0)

    # λ is divided by `shrink` exactly on the (patience+1)-th consecutive non-improving iteration
    lam, best, streak = step0, np.inf, 0
    expected = []
    for r in run.history:
        if r["objective"] < best:
            best, streak = r["objective"], 0
        elif streak < patience:
            streak += 1
        else:
            lam, streak = lam / shrink, 0
        expected.append(lam)
    lams = [r["step_scale"] for r in run.history]
    assert lams == expected
    # a reduction happens only after patience+1 iterations that did not improve the best
    obj = [r["objective"] for r in run.history]
    for k in range(1, len(lams)):
        if lams[k] < lams[k - 1]:
            window = range(k - patience, k + 1)
            assert all(obj[t] >= min(obj[:t]) for t in window if t > 0)
    # it stopped because λ fell below step_min, after every reduction step0/shrinkⁿ ≥ step_min
    assert run.iterations < 5000 and run.iterations == len(run.history) + 1
    assert run.stop == "step_min"
    n_reductions = int(np.floor(np.log(step0 / step_min) / np.log(shrink)))
    assert len(set(lams)) == n_reductions + 1
    assert min(lams) >= step_min > min(lams) / shrink
    # steps are the Polyak steps λ·target_frac·F/‖g‖² > 0
    assert all(r["step"] > 0 for r in run.history)


@pytest.mark.parametrize("rule,step", [("constant", 0.05), ("sqrt", 0.2)])
def test_subgradient_constant_and_sqrt_run_max_iter(cancer_lp, rule, step):
    K, pairs, brute, C = cancer_lp
    seen = []
    run = subgradient(K, pairs, C, rule=rule, step=step, max_iter=60, callback=seen.append)
    assert run.iterations == len(run.history) == 60 and seen == run.history
    # normalized steps: α moves by `step` (constant) or `step`/√k (sqrt) along −g/‖g‖
    expected = [(step if rule == "constant" else step / np.sqrt(k)) / r["grad_norm"]
                for k, r in enumerate(run.history, start=1)]
    np.testing.assert_allclose([r["step"] for r in run.history], expected, rtol=1e-12)
    _check_history(run, K, pairs, brute, C)
    # with a step on the scale of 1/‖g‖ the run makes real progress from F(0) = C·n_pairs
    assert run.objective < 0.1 * C * pairs.n_pairs


@pytest.mark.parametrize("seed", [0, 1])
def test_subgradient_test_auc_close_to_full_lp(seed):
    """WDBC, 200 training rows, min-max, RBF γ=1, C=10, dynamic defaults. Ataman (2007),
    Table 4.5: LPR(sub) ranks as well as the exact LP (here 0.9923 against 0.9913)."""
    X, yb = load_breast_cancer(return_X_y=True)
    perm = np.random.RandomState(seed).permutation(len(yb))
    tr, te = perm[:200], perm[200:]
    scaler = MinMaxScaler().fit(X[tr])
    Xtr, Xte = scaler.transform(X[tr]), scaler.transform(X[te])
    pos_tr, pos_te = yb[tr] == 0, yb[te] == 0
    K = rbf_kernel(Xtr, gamma=1.0)
    pairs = PairSet.bipartite(pos_tr)
    F_full, alpha_full = full_lp(K, pairs, 10.0)
    run = subgradient(K, pairs, 10.0)
    assert F_full * (1 - 1e-9) <= run.objective < 2.0 * F_full
    Kte = rbf_kernel(Xte, Xtr, gamma=1.0)
    auc_full = roc_auc_score(pos_te, Kte @ (pairs.signs * alpha_full))
    auc_sub = roc_auc_score(pos_te, Kte @ (pairs.signs * run.alpha))
    assert auc_full > 0.97
    assert abs(auc_sub - auc_full) <= 0.015


# ============================================================================ estimators
@pytest.fixture(scope="module")
def cancer_split():
    X, yb = load_breast_cancer(return_X_y=True)
    idx = np.random.RandomState(0).permutation(len(yb))[:300]
    X, y = X[idx], (yb[idx] == 0).astype(int)
    scaler = MinMaxScaler().fit(X[:150])
    return scaler.transform(X[:150]), y[:150], scaler.transform(X[150:]), y[150:]


@pytest.fixture(scope="module")
def cancer_full_model(cancer_split):
    Xtr, ytr, _, _ = cancer_split
    return LPRanker(C=10.0, gamma=1.0).fit(Xtr, ytr)


def test_estimator_chunking_equals_full(cancer_split, cancer_full_model):
    Xtr, ytr, Xte, yte = cancer_split
    full = cancer_full_model
    for options in (None, {"n_chunks": 4, "scheme": 2, "top_k": 15}):
        model = LPRanker(C=10.0, gamma=1.0, method="chunking", method_options=options).fit(Xtr, ytr)
        assert model.objective_ == pytest.approx(full.objective_, rel=RTOL_LP)
        assert model.objective_ == model.method_result_.objective
        assert model.score(Xte, yte) == full.score(Xte, yte)
        assert roc_auc_score(yte, model.decision_function(Xte)) == pytest.approx(full.score(Xte, yte), abs=1e-12)
        assert model.solve_result_ is model.method_result_.solve_result is not None
    # the expansion is the LP's f = K (y∘α): objective recomputed from the model's coefficients
    K = rbf_kernel(Xtr, gamma=1.0)
    i, j = brute_bipartite(ytr == 1)
    y = np.where(ytr == 1, 1.0, -1.0)
    alpha = np.zeros(len(ytr))
    alpha[model.support_] = y[model.support_] * model.dual_coef_
    assert np.all(alpha >= -1e-9)
    assert brute_F(K, y, i, j, np.ones(len(i)), 10.0, alpha) == pytest.approx(full.objective_, rel=1e-6)


def test_estimator_clustering_reports_reduction(cancer_split, cancer_full_model):
    Xtr, ytr, Xte, yte = cancer_split
    model = LPRanker(C=10.0, gamma=1.0, method="clustering", method_options={"variant": "bp"}).fit(Xtr, ytr)
    clusters = local_clustering(Xtr, ytr == 1, "bp")
    n_pos = int(np.sum(ytr == 1))
    k_pos = int(clusters.positive.sum())
    k = len(clusters.centers)
    assert model.reduction_ == {"points": (len(ytr), k),
                                "pairs": (n_pos * (len(ytr) - n_pos), k_pos * (k - k_pos))}
    assert k < len(ytr)  # it did reduce
    # objective_ is the reduced LP 4.1's: centres, weights w_s·w_t, built independently
    reduced = PairSet.bipartite(clusters.positive, point_weights=clusters.weights.astype(float))
    F_red, _ = full_lp(rbf_kernel(clusters.centers, gamma=1.0), reduced, 10.0)
    assert model.objective_ == pytest.approx(F_red, rel=RTOL_LP)
    np.testing.assert_allclose(model.support_vectors_, clusters.centers[model.support_])
    assert model.score(Xte, yte) > 0.95


def test_estimator_subgradient_with_method_options(cancer_split, cancer_full_model):
    Xtr, ytr, Xte, yte = cancer_split
    full = cancer_full_model
    model = LPRanker(C=10.0, gamma=1.0, support_threshold=1e-3, method="subgradient", max_iter=200,
                     method_options={"rule": "sqrt", "step": 0.2}).fit(Xtr, ytr)
    run = model.method_result_
    assert len(run.history) == run.iterations == model.n_iter_ == 200
    assert model.objective_ == run.objective == min(r["objective"] for r in run.history)
    # between the LP optimum and a tenth of F(α=0) = C·n_pairs (the default step=1 would not
    # move off α = 0 here: ‖g‖ is ~1e4, see the report)
    assert full.objective_ * (1 - 1e-9) <= model.objective_ < 0.1 * 10.0 * full.n_pairs_
    assert model.solve_result_ is None
    # default (dynamic) subgradient ranks the test set as well as the exact LP
    dyn = LPRanker(C=10.0, gamma=1.0, support_threshold=1e-3, method="subgradient").fit(Xtr, ytr)
    assert dyn.method_result_.history and dyn.objective_ >= full.objective_ * (1 - 1e-9)
    assert abs(dyn.score(Xte, yte) - full.score(Xte, yte)) <= 0.015


def test_survival_estimators_chunking_and_subgradient():
    X, y, event, time = _whas_subset(70, seed=1)
    full = SurvivalLPRanker(C=0.1, gamma=1.0).fit(X, y)
    chunk = SurvivalLPRanker(C=0.1, gamma=1.0, method="chunking",
                             method_options={"n_chunks": 3}).fit(X, y)
    assert chunk.pair_target_ == "survival"
    assert chunk.objective_ == pytest.approx(full.objective_, rel=RTOL_LP)
    # the LP has several optimal vertices (the objective above is the certificate); two optima
    # may order a few tied-margin pairs differently
    assert chunk.score(X, y) == pytest.approx(full.score(X, y), abs=5e-3)
    with pytest.warns(ConvergenceWarning, match="max_iter=400 before"):
        sub = SurvivalLPRanker(C=0.1, gamma=1.0, method="subgradient", max_iter=400).fit(X, y)
    assert sub.method_result_.iterations == sub.n_iter_ <= 400
    i, j = brute_survival(event, time)
    K = rbf_kernel(X, gamma=1.0)
    F_sub = brute_F(K, np.where(event, 1.0, -1.0), i, j, np.ones(len(i)), 0.1, sub.method_result_.alpha)
    assert sub.objective_ == pytest.approx(F_sub, rel=1e-9)
    assert full.objective_ * (1 - 1e-9) <= F_sub < 1.05 * full.objective_
    with pytest.raises(ValueError, match="method='clustering' needs binary labels"):
        SurvivalLPRanker(method="clustering").fit(X, y)


# ============================================================================ bad input
@pytest.fixture(scope="module")
def small():
    X, pos = _cancer_subset(30, seed=5)
    return X, pos.astype(int), rbf_kernel(X, gamma=1.0), PairSet.bipartite(pos)


def _param_error(name, caller):
    return rf"The '{name}' parameter of {caller} must be"


@pytest.mark.parametrize("kwargs,match", [
    ({"scheme": 3}, _param_error("scheme", "chunking")),
    ({"scheme": 0}, _param_error("scheme", "chunking")),
    ({"violation": "lhs"}, _param_error("violation", "chunking")),
    ({"n_chunks": 0}, _param_error("n_chunks", "chunking") + r" an int in the range \[1, inf\)"),
    ({"n_chunks": 10 ** 6}, r"n_chunks=1000000 exceeds the number of pairs; use an integer in \[1, "),
    ({"n_chunks": 2.5}, _param_error("n_chunks", "chunking")),
    ({"top_k": 0}, _param_error("top_k", "chunking")),
    ({"min_violation": -1e-3}, _param_error("min_violation", "chunking")),
    ({"min_violation": 1.0}, _param_error("min_violation", "chunking")),
    ({"max_iter": 0}, _param_error("max_iter", "chunking")),
    ({"tol": 0.0}, _param_error("tol", "chunking")),
    ({"verbose": -1}, _param_error("verbose", "chunking")),
    ({"random_state": "seed"}, _param_error("random_state", "chunking")),
    ({"solver_options": "fast"}, _param_error("solver_options", "chunking")),
    ({"max_bytes": 0}, _param_error("max_bytes", "chunking")),
    ({"callback": 3}, _param_error("callback", "chunking")),
])
def test_chunking_rejects_bad_options(small, no_solver_work, kwargs, match):
    _, _, K, pairs = small
    with pytest.raises(ValueError, match=match):
        chunking(K, pairs, 1.0, **kwargs)


def test_chunking_n_chunks_bound_is_the_pair_count(small, no_solver_work):
    _, _, K, pairs = small
    with pytest.raises(ValueError, match=rf"\[1, {pairs.n_pairs}\]"):
        chunking(K, pairs, 1.0, n_chunks=pairs.n_pairs + 1)


def test_chunking_memory_budget_raises_before_any_solve(small, no_solver_work):
    _, _, K, pairs = small
    from aucopt._memory import chunking_work_bytes

    need = chunking_work_bytes(pairs.n_points, pairs.n_pairs)  # pair partition and a restricted LP
    assert need > 18 * pairs.n_pairs  # chunk label, chunk lists and two masks per pair, and more
    with pytest.raises(ProblemTooLargeError, match=rf"Chunking over {pairs.n_pairs:,} pairs.*: use "):
        chunking(K, pairs, 1.0, max_bytes=need - 1)


@pytest.mark.parametrize("kwargs,match", [
    ({"rule": "polyak"}, _param_error("rule", "subgradient")),
    ({"step0": 0.0}, _param_error("step0", "subgradient") + r" a float in the range \(0.0, inf\). Got 0.0"),
    ({"step0": -1.0}, _param_error("step0", "subgradient")),
    ({"shrink": 1.0}, _param_error("shrink", "subgradient") + r" a float in the range \(1.0, inf\)"),
    ({"shrink": 0.5}, _param_error("shrink", "subgradient")),
    ({"target_frac": 0.0}, _param_error("target_frac", "subgradient")),
    ({"target_frac": 1.0}, _param_error("target_frac", "subgradient")),
    ({"patience": -1}, _param_error("patience", "subgradient")),
    ({"max_iter": 0}, _param_error("max_iter", "subgradient")),
    ({"step_min": 0.0}, _param_error("step_min", "subgradient")),
    ({"step": 0.0}, _param_error("step", "subgradient")),
    ({"tol": -1.0}, _param_error("tol", "subgradient")),
    ({"verbose": "loud"}, _param_error("verbose", "subgradient")),
    ({"callback": "print"}, _param_error("callback", "subgradient")),
])
def test_subgradient_rejects_bad_options(small, no_solver_work, kwargs, match):
    _, _, K, pairs = small
    with pytest.raises(ValueError, match=match):
        subgradient(K, pairs, 1.0, **kwargs)


@pytest.mark.parametrize("C", [0.0, -1.0, np.inf, np.nan])
def test_scale_functions_reject_bad_C(small, no_solver_work, C):
    _, _, K, pairs = small
    with pytest.raises(ValueError, match=_param_error("C", "subgradient")):
        subgradient(K, pairs, C)
    with pytest.raises(ValueError, match=_param_error("C", "chunking")):
        chunking(K, pairs, C)


@pytest.mark.parametrize("params,match", [
    ({"method": "interior"}, _param_error("method", "LPRanker")),
    ({"method": "chunking", "method_options": [("n_chunks", 2)]}, _param_error("method_options", "LPRanker")),
    ({"method": "chunking", "method_options": {"scheme": 3}}, _param_error("scheme", "chunking")),
    ({"method": "chunking", "method_options": {"violation": "x"}}, _param_error("violation", "chunking")),
    ({"method": "chunking", "method_options": {"n_chunks": 0}}, _param_error("n_chunks", "chunking")),
    ({"method": "chunking", "method_options": {"n_chunks": 10 ** 6}}, "n_chunks=1000000 exceeds the number of pairs"),
    ({"method": "chunking", "method_options": {"top_k": 0}}, _param_error("top_k", "chunking")),
    ({"method": "chunking", "method_options": {"min_violation": 2.0}}, _param_error("min_violation", "chunking")),
    ({"method": "subgradient", "method_options": {"rule": "x"}}, _param_error("rule", "subgradient")),
    ({"method": "subgradient", "method_options": {"step0": 0.0}}, _param_error("step0", "subgradient")),
    ({"method": "subgradient", "method_options": {"shrink": 1}}, _param_error("shrink", "subgradient")),
    ({"method": "subgradient", "method_options": {"target_frac": 1.5}}, _param_error("target_frac", "subgradient")),
    ({"method": "subgradient", "method_options": {"patience": -2}}, _param_error("patience", "subgradient")),
    ({"method": "subgradient", "method_options": {"step_min": -1.0}}, _param_error("step_min", "subgradient")),
    ({"method": "chunking", "formulation": "lp_ranker_free_sign"}, "solves the LP Ranker itself"),
    ({"method": "subgradient", "formulation": "lp_ranker_free_sign"}, "solves the LP Ranker itself"),
    ({"method": "clustering", "method_options": {"variant": "z"}}, _param_error("variant", "local_clustering")),
    ({"method": "clustering", "kernel": "precomputed"}, "needs binary labels and explicit features"),
])
def test_estimator_rejects_bad_method_input(small, no_solver_work, params, match):
    X, y, _, _ = small
    Xfit = rbf_kernel(X, gamma=1.0) if params.get("kernel") == "precomputed" else X
    with pytest.raises(ValueError, match=match):
        LPRanker(**params).fit(Xfit, y)


@pytest.mark.parametrize("params", [
    {"method": "chunking", "method_options": {"scheme": 3}},
    {"method": "subgradient", "method_options": {"rule": "x"}},
    {"method": "clustering", "method_options": {"variant": "z"}},
])
def test_estimator_checks_option_values_before_the_kernel(small, monkeypatch, params):
    """Option values are checked with the parameters, before even the kernel matrix is computed."""
    X, y, _, _ = small

    def refuse(*args, **kwargs):
        raise AssertionError("the kernel matrix was computed before the options were checked")

    monkeypatch.setattr(aucopt.kernels.Kernel, "__call__", refuse)
    with pytest.raises(ValueError, match="parameter of"):
        LPRanker(**params).fit(X, y)


@pytest.mark.parametrize("method", ["chunking", "subgradient", "clustering", "full"])
def test_estimator_unknown_option_key_is_a_clear_error(small, no_solver_work, method):
    """Unknown keys are rejected before any work, naming the key and the valid ones."""
    X, y, _, _ = small
    with pytest.raises(ValueError, match=r"\['n_iterations'\] are not options of method="):
        LPRanker(method=method, method_options={"n_iterations": 5}).fit(X, y)


@pytest.mark.parametrize("method, key", [
    ("chunking", "solver"), ("chunking", "solver_options"), ("chunking", "max_iter"), ("chunking", "tol"),
    ("chunking", "random_state"), ("chunking", "verbose"), ("chunking", "max_bytes"),
    ("subgradient", "max_iter"), ("subgradient", "tol"), ("subgradient", "verbose"), ("subgradient", "C"),
    ("clustering", "max_bytes"), ("full", "max_iter"),
])
def test_estimator_parameters_in_method_options_point_to_the_estimator(small, no_solver_work, method, key):
    X, y, _, _ = small
    with pytest.raises(ValueError, match=rf"method_options \['{key}'\] are parameters of LPRanker.*LPRanker\({key}="):
        LPRanker(method=method, method_options={key: 1}).fit(X, y)


@pytest.mark.parametrize("key", ["n_chunks", "top_k"])
def test_chunking_rejects_booleans_as_counts(small, no_solver_work, key):
    X, y, _, _ = small
    with pytest.raises(ValueError, match=key):
        LPRanker(method="chunking", method_options={key: True}).fit(X, y)


def test_subgradient_max_iter_before_step_rule_warns():
    from sklearn.metrics.pairwise import rbf_kernel
    X, y = make_classification(n_samples=40, random_state=0)
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        subgradient(rbf_kernel(X, gamma=0.1), PairSet.bipartite(y), 1.0, max_iter=3)


# ============================================================================ chunking: honest status
def _full_lp_objective(X, y, C, gamma):
    """The oracle: the whole LP (3.3) over every pair, solved by HiGHS."""
    K = rbf_kernel(X, gamma=gamma)
    result = solve(get_formulation("lp_ranker").build(PairSet.bipartite(y), K, C=C))
    assert result.status == "optimal"
    return result.objective


@pytest.fixture(scope="module")
def noisy():
    return make_classification(n_samples=80, flip_y=0.3, random_state=0)


@pytest.mark.parametrize("max_iter", [1, 50])
def test_chunking_on_near_identity_kernel_survives_failed_warm_starts(noisy, max_iter):
    """gamma=1 on 20 features gives a kernel with entries down to 1e-59: the basis HiGHS builds
    from the warm start is singular there ('Not Set'). The LP is then re-solved from scratch and
    the run certifies the full LP's optimum."""
    import warnings

    X, y = noisy
    F_full = _full_lp_objective(X, y, 1.0, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = LPRanker(C=1.0, gamma=1.0, method="chunking", method_options={"n_chunks": 8},
                         max_iter=max_iter).fit(X, y)
    assert model.solve_result_.status == "optimal"
    assert model.method_result_.converged
    assert model.objective_ == pytest.approx(F_full, rel=1e-6)
    assert model.n_iter_ == model.method_result_.passes <= max_iter


@pytest.fixture(scope="module")
def noisy40():
    """40 noisy points: chunking with two pairs per chunk (8 chunks) needs 2 passes (1.02 times the
    optimum after one); the 80 of ``noisy`` took 29 passes of 8 restricted LPs each for the same checks
    when each LP dropped the pairs active at the last one."""
    return make_classification(n_samples=40, flip_y=0.3, random_state=0)


def test_chunking_stopped_by_max_iter_says_so(noisy40):
    """Two pairs added per chunk cannot reach the optimum in one pass: the status is
    iteration_limit, a ConvergenceWarning names max_iter, and the objective is above the full
    LP's (by 2 %, far above the LP's tolerance; a run once reported 'optimal' at 9705 against
    5330). With enough passes: optimal."""
    X, y = noisy40
    F_full = _full_lp_objective(X, y, 1.0, 0.01)
    options = {"n_chunks": 8, "scheme": 2, "top_k": 2}
    with pytest.warns(ConvergenceWarning, match=r"max_iter=1 passes.*Raise max_iter") as record:
        early = LPRanker(C=1.0, gamma=0.01, method="chunking", method_options=options, max_iter=1).fit(X, y)
    assert [r.filename for r in record] == [__file__]  # pointing at the user's fit call
    assert early.solve_result_.status == "iteration_limit"
    assert early.n_iter_ == 1 and not early.method_result_.converged
    assert early.objective_ > 1.01 * F_full
    done = LPRanker(C=1.0, gamma=0.01, method="chunking", method_options=options).fit(X, y)
    assert done.solve_result_.status == "optimal" and done.method_result_.converged
    assert done.objective_ == pytest.approx(F_full, rel=RTOL_LP)
    assert 1 < done.n_iter_ < 50


def test_chunking_function_reports_iteration_limit(noisy40):
    X, y = noisy40
    K, pairs = rbf_kernel(X, gamma=0.01), PairSet.bipartite(y)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        run = chunking(K, pairs, 1.0, n_chunks=8, scheme=2, top_k=2, max_iter=1, random_state=0)
    assert run.solve_result.status == "iteration_limit" and run.passes == 1 and not run.converged
    # the restricted optimum is a lower bound and the objective at its α an upper bound of the optimum
    F_full = _full_lp_objective(X, y, 1.0, 0.01)
    assert run.history[-1]["restricted_objective"] <= F_full * (1 + 1e-9) < run.objective


def test_chunking_keeps_the_active_pairs_and_the_live_basis(noisy40, monkeypatch):
    """Each restricted LP holds the pairs active at the last one's solution: HiGHS's live model
    never deletes a nonbasic row (its basis stays valid across every change, so no solve starts
    from a crash basis), and a backend that solves each LP from scratch needs as many passes."""
    X, y = noisy40
    K, pairs = rbf_kernel(X, gamma=0.01), PairSet.bipartite(y)
    valid = []
    change_to = aucopt.lp._scale._LiveRestrictedLP._change_to

    def checked(self, R):
        change_to(self, R)
        valid.append(self.lp._h.getBasis().valid)

    monkeypatch.setattr(aucopt.lp._scale._LiveRestrictedLP, "_change_to", checked)
    live = chunking(K, pairs, 1.0, n_chunks=8, scheme=2, top_k=2, random_state=0)
    assert len(valid) == live.n_solves - 1 > 5 and all(valid)
    fresh = chunking(K, pairs, 1.0, n_chunks=8, scheme=2, top_k=2, random_state=0, solver="clarabel")
    assert live.converged and fresh.converged and live.passes == fresh.passes == 2
    assert live.objective == pytest.approx(fresh.objective, rel=1e-7)
