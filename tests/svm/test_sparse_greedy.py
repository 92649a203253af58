"""Tests of aucopt.svm._sparse_greedy: SparseAUC / SurvivalSparseAUC (Kakkar et al. 2017).

Independent oracles: pairs enumerated here from their definitions (bipartite; Harrell's
comparable pairs with tied times), the squared-hinge objective / gradient / generalized Hessian
written here in explicit pair loops, central finite differences, scipy's L-BFGS-B on the full
kernel RankSVM, scipy's ``minimize_scalar`` for the 1-D problem, ``sklearn.metrics.roc_auc_score``.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize, minimize_scalar
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import roc_auc_score
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from test_rankers import PAIR_VARIANTS, pair_options_variant
from threadpoolctl import threadpool_limits

from aucopt import PairSet, ProblemTooLargeError, RankRC, harrell_c, survival_target
from aucopt.svm._sparse_greedy import SparseAUC, SurvivalSparseAUC, line_minimize, retrain_due, sparse_objective


@pytest.fixture(autouse=True, scope="module")
def _one_blas_thread():
    with threadpool_limits(1):
        yield


@pytest.fixture(scope="module")
def cancer_split():
    X, y = load_breast_cancer(return_X_y=True)
    y = (y == 0).astype(int)  # malignant = positive
    Xtr, Xte, ytr, yte = train_test_split(X, y, train_size=300, random_state=0, stratify=y)
    sc = StandardScaler().fit(Xtr)
    return sc.transform(Xtr), sc.transform(Xte), ytr, yte


# ============================================================================ brute force
def brute_pairs(event, time):
    """Harrell's comparable pairs (i, j): i has an event and t_i < t_j, or t_i = t_j with j censored."""
    return [(i, j) for i in range(len(time)) for j in range(len(time))
            if event[i] and (time[i] < time[j] or (time[i] == time[j] and not event[j]))]


def brute(KJ, KJJ, beta, pairs, w, C):
    """E, ∇E, and v ↦ ∇²E v (generalized: ℓ'' = 2 on z < 1) from explicit pair loops."""
    z = KJ @ beta
    E, gz = 0.5 * beta @ KJJ @ beta, np.zeros(len(z))
    active = []
    for (i, j) in pairs:
        r = 1.0 - (z[i] - z[j])
        if r > 0:
            E += 0.5 * C * w[i] * w[j] * r * r
            gz[i] -= C * w[i] * w[j] * r
            gz[j] += C * w[i] * w[j] * r
            active.append((i, j))

    def hessp(v):
        u, hu = KJ @ v, np.zeros(len(z))
        for (i, j) in active:
            d = C * w[i] * w[j] * (u[i] - u[j])
            hu[i] += d
            hu[j] -= d
        return KJJ @ v + KJ.T @ hu

    return E, KJJ @ beta + KJ.T @ gz, hessp


def _case(kind, rng, n_points=30, r=6, integer=True, weighted=False):
    if kind == "bipartite":
        event = rng.random(n_points) < 0.4
        event[:2] = [True, False]
        time = (~event).astype(float)
        pairs = PairSet.bipartite(event)
    else:
        event = rng.random(n_points) < 0.6
        time = rng.integers(0, 6, n_points).astype(float)  # many tied times
        pairs = PairSet.survival(survival_target(event, time))
    w = rng.uniform(0.5, 2.0, n_points) if weighted else np.ones(n_points)
    if weighted:
        pairs = (PairSet.bipartite(event, point_weights=w) if kind == "bipartite"
                 else PairSet.survival(survival_target(event, time), point_weights=w))
    if integer:  # integer scores: many exact ties and margins exactly 1
        KJ = rng.integers(-1, 2, (n_points, r)).astype(float)
        beta = rng.integers(-2, 3, r).astype(float)
    else:
        KJ, beta = rng.normal(size=(n_points, r)), rng.normal(size=r)
    B = rng.normal(size=(r, r))
    return KJ, B @ B.T, beta, pairs, brute_pairs(event, time), w


# ============================================================================ 1. derivatives
@pytest.mark.parametrize("kind", ["bipartite", "survival"])
@pytest.mark.parametrize("weighted", [False, True])
def test_objective_gradient_hessian_equal_brute_force(kind, weighted):
    rng = np.random.default_rng(1)
    for trial in range(12):
        KJ, KJJ, beta, pairs, plist, w = _case(kind, rng, integer=trial % 2 == 0, weighted=weighted)
        C = 10.0 ** rng.uniform(-2, 1)
        E, g, hp = sparse_objective(KJ, KJJ, beta, pairs, C)
        Eb, gb, hpb = brute(KJ, KJJ, beta, plist, w, C)
        assert pytest.approx(Eb, rel=1e-10, abs=1e-12) == E
        np.testing.assert_allclose(g, gb, rtol=1e-9, atol=1e-10 * (1 + np.abs(gb).max()))
        v = rng.normal(size=len(beta))
        np.testing.assert_allclose(hp(v), hpb(v), rtol=1e-9, atol=1e-10 * (1 + np.abs(hpb(v)).max()))


@pytest.mark.parametrize("kind", ["bipartite", "survival"])
def test_gradient_and_hessian_match_finite_differences(kind):
    rng = np.random.default_rng(2)
    KJ, KJJ, beta, pairs, _, _ = _case(kind, rng, integer=False)
    C, h = 0.7, 1e-6
    _E, g, hp = sparse_objective(KJ, KJJ, beta, pairs, C)
    fd = np.array([(sparse_objective(KJ, KJJ, beta + h * e, pairs, C)[0]
                    - sparse_objective(KJ, KJJ, beta - h * e, pairs, C)[0]) / (2 * h) for e in np.eye(len(beta))])
    assert np.linalg.norm(fd - g) <= 1e-6 * np.linalg.norm(g)
    v = rng.normal(size=len(beta))
    plus = sparse_objective(KJ, KJJ, beta + h * v, pairs, C)[1]
    minus = sparse_objective(KJ, KJJ, beta - h * v, pairs, C)[1]
    fdh = (plus - minus) / (2 * h)
    assert np.linalg.norm(fdh - hp(v)) <= 1e-5 * np.linalg.norm(hp(v))


# ============================================================================ 2. 1-D subproblem
@pytest.mark.parametrize("kind", ["bipartite", "survival"])
def test_candidate_line_minimization_matches_scipy(kind):
    rng = np.random.default_rng(3)
    for _trial in range(10):
        KJ, _KJJ, beta, pairs, plist, w = _case(kind, rng, n_points=40, integer=False)
        col, kqq, b, C = rng.normal(size=40), rng.uniform(0.5, 2), rng.normal(), 10.0 ** rng.uniform(-1, 1)
        z = KJ @ beta
        first, second = np.array(plist).T  # every listed pair, in numpy: φ is evaluated ~100 times

        def phi(t):  # brute-force φ(t) − φ(0)
            def loss(f):
                return float(np.sum(w[first] * w[second] * np.maximum(0.0, 1 - f[first] + f[second]) ** 2))

            return t * b + 0.5 * kqq * t * t + 0.5 * C * (loss(z + t * col) - loss(z))

        t, dE, _ = line_minimize(pairs, z, col, b, kqq, C)
        ref = minimize_scalar(phi, bracket=(-1.0, 1.0), tol=1e-12)
        assert dE <= 0.0
        assert dE == pytest.approx(phi(t), rel=1e-9, abs=1e-12)
        assert dE <= ref.fun + 1e-10 * (1 + abs(ref.fun))
        assert t == pytest.approx(ref.x, rel=1e-4, abs=1e-5)  # strictly convex: unique minimizer
        grid = np.linspace(t - 1, t + 1, 2001)
        assert dE <= min(phi(s) for s in grid[::50]) + 1e-10 * (1 + abs(dE))  # roundoff of L(z+tc) - L(z)


# ============================================================================ 3. schedule
def test_retrain_schedule():
    due = [d for d in range(1, 600) if retrain_due(d, 10_000)]
    assert due[:28] == [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 23, 27, 32, 39, 46, 54, 64, 77, 91,
                        108, 128, 153, 182, 216, 256]
    assert {305, 363, 431, 512} <= set(due)
    assert retrain_due(50, 50) and not retrain_due(50, 51) and retrain_due(9, 9, "always")


# ============================================================================ 4. full basis
def test_full_basis_equals_kernel_ranksvm_lbfgs(cancer_split):
    Xtr, _, ytr, _ = cancer_split
    X, y = Xtr[:50], ytr[:50]
    C, gamma = 0.5, 1.0 / 30
    model = SparseAUC(C, basis_size=50, kappa=50, selection="newton1", validation_fraction=0,
                      gamma=gamma, tol=1e-12, max_iter=200).fit(X, y)
    assert sorted(model.support_) == list(range(50))
    K = rbf_kernel(X, X, gamma=gamma)
    P, N = np.flatnonzero(y == 1), np.flatnonzero(y == 0)

    def fun(beta):
        z = K @ beta
        r = np.maximum(0.0, 1.0 - z[P][:, None] + z[N][None, :])
        gz = np.zeros(len(z))
        gz[P] = -C * r.sum(axis=1)
        gz[N] = C * r.sum(axis=0)
        return 0.5 * beta @ K @ beta + 0.5 * C * (r * r).sum(), K @ beta + K @ gz

    ref = minimize(fun, np.zeros(50), jac=True, method="L-BFGS-B",
                   options={"maxiter": 20000, "gtol": 1e-12, "ftol": 1e-16, "maxcor": 50})
    E = model.objective_
    assert pytest.approx(fun(model.dual_coef_[np.argsort(model.support_)])[0], rel=1e-12) == E
    assert ref.fun * (1 + 1e-9) >= E
    assert pytest.approx(ref.fun, rel=1e-6) == E
    z_model = K[:, model.support_] @ model.dual_coef_
    np.testing.assert_allclose(z_model, K @ ref.x, atol=1e-3 * (1 + np.abs(z_model).max()))


# ============================================================================ 5. monotone path
@pytest.mark.parametrize("retrain, selection", [("schedule", "exact"), ("always", "newton1"),
                                                ("schedule", "newton1")])
def test_objective_never_increases(cancer_split, retrain, selection):
    Xtr, _, ytr, _ = cancer_split
    C = 0.01
    m = SparseAUC(C, basis_size=24, kappa=20, selection=selection, retrain=retrain,
                  validation_fraction=0, gamma=1 / 60).fit(Xtr, ytr)
    E = np.array([r["objective"] for r in m.path_])
    p = ytr.sum()
    E0 = 0.5 * C * p * (len(ytr) - p)  # E(∅): every pair violated by 1
    assert E[0] < E0
    assert np.all(np.diff(E) <= 1e-12 * E[:-1])
    assert [r["n_basis"] for r in m.path_] == list(range(1, 25))
    assert len(set(m.support_)) == 24 and m.path_[-1]["retrained"]
    assert m.objective_ == pytest.approx(E[-1])


# ============================================================================ 6. greedy vs random
def test_greedy_beats_random_basis(cancer_split):
    Xtr, Xte, ytr, yte = cancer_split
    C, gamma, size = 0.01, 1 / 60, 10
    greedy = SparseAUC(C, basis_size=size, validation_fraction=0, gamma=gamma, random_state=0).fit(Xtr, ytr)
    N = ytr.sum() * (len(ytr) - ytr.sum())
    alpha = 2.0 / (C * N)  # E = (C N / 2) · F_α with α = 2/(C N)  (module docs)
    # RankRC on the greedy basis re-optimizes the same problem: same objective (scaling check)
    same = RankRC(alpha, basis=greedy.support_, loss="squared_hinge", gamma=gamma, tol=1e-12).fit(Xtr, ytr)
    assert same.objective_ * C * N / 2 == pytest.approx(greedy.objective_, rel=1e-6)
    E_rand, auc_rand = [], []
    for seed in range(5):
        idx = np.random.default_rng(seed).choice(len(ytr), size, replace=False)
        rr = RankRC(alpha, basis=idx, loss="squared_hinge", gamma=gamma, tol=1e-10).fit(Xtr, ytr)
        E_rand.append(rr.objective_ * C * N / 2)
        auc_rand.append(rr.score(Xte, yte))
    assert greedy.objective_ < min(E_rand)
    auc = greedy.score(Xte, yte)
    assert auc == pytest.approx(roc_auc_score(yte, greedy.decision_function(Xte)))
    assert auc >= np.median(auc_rand) - 0.01


def test_validation_stopping_keeps_best_checkpoint(cancer_split):
    Xtr, Xte, ytr, yte = cancer_split
    m = SparseAUC(0.01, basis_size=60, selection="newton1", gamma=1 / 60, n_iter_no_change=3).fit(Xtr, ytr)
    checks = [r for r in m.path_ if r["val_score"] is not None]
    held, k = _replay_validation(_checks(m), 3, 1e-3)
    assert held and m.stop_reason_ == "validation"
    assert m.val_score_ == checks[k]["val_score"] and len(m.support_) == checks[k]["n_basis"]
    assert m.val_score_ >= max(r["val_score"] for r in checks) - 1e-3
    assert len(m.validation_indices_) + len(m.train_indices_) == len(ytr)
    assert not set(m.support_) & set(m.validation_indices_)
    assert m.score(Xte, yte) > 0.95


def test_saturated_validation_auc_is_decided_by_the_validation_loss():
    """On a small validation set the AUC reaches 1.0 within a few basis functions; the checks
    after that are ranked by the validation pair loss, not stopped at the first 1.0."""
    from sklearn.datasets import make_moons

    X, y = make_moons(200, noise=0.15, random_state=0)
    m = SparseAUC(1.0, kappa=20, gamma=2.0, random_state=0).fit(X, y)
    checks = [r for r in m.path_ if r["val_score"] is not None]
    first_top = next(r for r in checks if r["val_score"] == 1.0)
    held, k = _replay_validation(_checks(m), 3, 1e-3)
    assert held and m.stop_reason_ == "validation"
    assert len(m.support_) == checks[k]["n_basis"] > first_top["n_basis"]
    assert checks[k]["val_loss"] < first_top["val_loss"] * (1 - 1e-3)
    # the recorded loss is the mean squared hinge over the validation pairs of the returned model
    va = m.validation_indices_
    f = m.decision_function(X[va])
    pos, neg = f[y[va] == 1], f[y[va] == 0]
    brute = np.mean(np.maximum(0.0, 1.0 - (pos[:, None] - neg[None, :])) ** 2)
    assert checks[k]["val_loss"] == pytest.approx(brute, rel=1e-9, abs=1e-12)
    assert m.val_score_ == checks[k]["val_score"] == 1.0


def test_validation_loss_of_zero_does_not_keep_the_fit_growing():
    """A validation loss of exactly 0 at an AUC of 1 is no improvement on an earlier 0.

    The pair core's moment sums return a loss of 0 as rounding noise of either sign (here
    ±2e-16, varying with the CPU's instructions); noise read as a loss kept "improving"."""
    from sklearn.datasets import make_moons

    X, y = make_moons(200, noise=0.15, random_state=1)
    m = SparseAUC(1.0, kappa=20, gamma=2.0, random_state=1).fit(X, y)
    losses = [r["val_loss"] for r in m.path_ if r["val_score"] is not None]
    assert m.stop_reason_ == "validation" and min(losses) == 0.0 and all(v >= 0.0 for v in losses)
    assert len(m.support_) == m.path_[[r["val_loss"] for r in m.path_].index(0.0)]["n_basis"]


def test_one_step_scores_equal_single_hessian_products(cancer_split):
    """The candidates' curvature from one multi-column Hessian product equals the per-column one,
    and the line search along one sweep equals a brute-force 1-D minimization."""
    Xtr, _, ytr, _ = cancer_split
    pairs = PairSet.bipartite(ytr)
    K = rbf_kernel(Xtr, Xtr[:7], gamma=1 / 60)
    z = K[:, :2] @ np.array([0.3, -0.2])
    from aucopt.pairs.core import pair_loss_and_hessian
    _, _, H = pair_loss_and_hessian(pairs, z, "squared_hinge")
    np.testing.assert_allclose(H.matmat(K), np.column_stack([H.matvec(K[:, a]) for a in range(7)]),
                               rtol=1e-12, atol=1e-12)
    C = 0.01
    for a in range(2, 7):
        t, dE, _ = line_minimize(pairs, z, K[:, a], z[a], 1.0, C)
        phi = lambda u: u * z[a] + 0.5 * u * u + 0.5 * C * (  # noqa: E731
            np.sum(np.maximum(0, 1 - ((z + u * K[:, a])[ytr == 1][:, None] - (z + u * K[:, a])[ytr == 0][None])) ** 2)
            - np.sum(np.maximum(0, 1 - (z[ytr == 1][:, None] - z[ytr == 0][None])) ** 2))
        ref = minimize_scalar(phi)
        assert dE <= ref.fun + 1e-9 * (1 + abs(ref.fun))
        assert t == pytest.approx(ref.x, rel=1e-5, abs=1e-7)


# ============================================================================ 7. survival
def test_survival_sparse_auc():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(120, 4))
    risk = X[:, 0] - 0.5 * X[:, 1] ** 2
    time = np.round(rng.exponential(np.exp(-risk)) * 4)  # rounded: tied times
    event = rng.random(120) < 0.7
    y = survival_target(event, time)
    m = SurvivalSparseAUC(1.0, basis_size=15, kappa=30, validation_fraction=0.25, random_state=1).fit(X, y)
    assert 1 <= len(m.support_) <= 15
    assert m.score(X, y) == pytest.approx(harrell_c(y, m.predict(X)))
    assert m.score(X, y) > 0.6
    E = [r["objective"] for r in m.path_]
    assert np.all(np.diff(E) <= 1e-12 * np.abs(E[:-1]))


# ============================================================================ 8. API and errors
def test_sklearn_basics(cancer_split):
    Xtr, Xte, ytr, _ = cancer_split
    est = SparseAUC(0.1, basis_size=5, kappa=10, pos_label=1)
    assert clone(est).get_params() == est.get_params()
    est.set_params(kappa=7)
    assert est.get_params()["kappa"] == 7
    with pytest.warns(ConvergenceWarning, match="basis_size=5"):
        est.fit(Xtr, ytr)
    assert est.decision_function(Xte).shape == (len(Xte),)
    assert set(est.predict(Xte)) <= {0, 1}
    assert est.support_vectors_.shape == (len(est.support_), Xtr.shape[1])
    assert len(est.dual_coef_) == len(est.support_)
    assert est.n_iter_ == len(est.path_) >= len(est.support_)
    np.testing.assert_array_equal(est.support_vectors_, Xtr[est.support_])


def test_verbose_shows_progress_and_zero_is_silent(cancer_split, capfd):
    Xtr, _, ytr, _ = cancer_split
    SparseAUC(0.1, basis_size=4, kappa=10, validation_fraction=0).fit(Xtr, ytr)
    assert capfd.readouterr().err == ""
    SparseAUC(0.1, basis_size=4, kappa=10, validation_fraction=0, verbose=1).fit(Xtr, ytr)
    assert "SparseAUC" in capfd.readouterr().err


def test_bad_input(cancer_split):
    Xtr, _, ytr, _ = cancer_split
    X, y = Xtr[:40], ytr[:40]
    for kw, msg in [({"C": 0}, r"'C' parameter of SparseAUC must be a float in the range \(0.0, inf\)"),
                    ({"C": -1.0}, "'C' parameter of SparseAUC must be"),
                    ({"basis_size": 0}, r"'basis_size' parameter of SparseAUC must be an int in the range \[1, inf\)"),
                    ({"basis_size": 41}, "basis_size=41 exceeds the 40 fitting rows"),
                    ({"kappa": 0}, "'kappa' parameter of SparseAUC must be"),
                    ({"selection": "bad"}, "'selection' parameter of SparseAUC must be a str among"),
                    ({"retrain": "never"}, "'retrain' parameter of SparseAUC must be a str among"),
                    ({"validation_fraction": 1.0},
                     r"'validation_fraction' parameter of SparseAUC must be a float in the range \[0.0, 1.0\)"),
                    ({"n_iter_no_change": 0}, "'n_iter_no_change' parameter of SparseAUC must be"),
                    ({"min_delta": -1.0}, "'min_delta' parameter of SparseAUC must be"),
                    ({"tol": 0}, "'tol' parameter of SparseAUC must be"),
                    ({"max_iter": 0}, "'max_iter' parameter of SparseAUC must be"),
                    ({"kernel": "precomputed"}, "'kernel' parameter of SparseAUC must be a str among"),
                    ({"max_bytes": 1000},
                     r"kernel block plus 40 candidate columns and their temporaries would need about .*: use ")]:
        with pytest.raises(ValueError, match=msg):
            SparseAUC(**{"validation_fraction": 0, **kw}).fit(X, y)
    with pytest.raises(ProblemTooLargeError):
        SparseAUC(validation_fraction=0, max_bytes=1000).fit(X, y)
    with pytest.raises(ValueError, match="one class"):
        SparseAUC().fit(X, np.ones(40))
    with pytest.raises(ValueError, match="censored"):
        SurvivalSparseAUC().fit(X, survival_target(np.zeros(40, bool), np.arange(40.0)))
    with pytest.raises(ValueError, match="survival"):
        SurvivalSparseAUC().fit(X, y)


# ============================================================================ 9. every pair variant
@pytest.mark.parametrize("variant", PAIR_VARIANTS)
def test_survival_sparse_auc_every_pair_variant(whas500, variant):
    """SurvivalSparseAUC × every pair_options variant (regression: variant="lprex" raised
    AttributeError 'pos_label'): E is the objective over exactly the variant's pairs and weights,
    and the final re-optimization leaves a vanishing brute-force gradient on the basis."""
    X, event, time = (a[:80] for a in whas500)
    y = survival_target(event, time)
    options = pair_options_variant(variant, y)
    i, j, w = PairSet.survival(y, **(options or {})).to_arrays()
    C, gamma = 0.05, 5.0
    est = SurvivalSparseAUC(C, basis_size=10, kappa=20, validation_fraction=0, gamma=gamma, tol=1e-14,
                            max_iter=200, pair_options=options).fit(X, y)
    assert est.n_pairs_ == len(i) and est.pair_target_ == "survival"
    assert len(est.support_) == 10 == est.n_iter_ == len(est.path_)
    KJ = rbf_kernel(X, est.support_vectors_, gamma=gamma)
    beta = est.dual_coef_
    z = KJ @ beta
    r = np.maximum(0.0, 1.0 - (z[i] - z[j]))
    E = 0.5 * beta @ KJ[est.support_] @ beta + 0.5 * C * float(w @ r**2)
    assert est.objective_ == pytest.approx(E, rel=1e-10)
    gz = np.bincount(j, weights=C * w * r, minlength=len(z)) - np.bincount(i, weights=C * w * r, minlength=len(z))
    grad = KJ[est.support_] @ beta + KJ.T @ gz
    assert np.max(np.abs(grad)) <= 1e-6 * (1.0 + np.max(np.abs(KJ.T @ gz)))
    np.testing.assert_allclose(est.predict(X), z, rtol=0, atol=1e-10)
    with pytest.raises(TypeError, match="dense data is required"):
        SurvivalSparseAUC(C, basis_size=3, validation_fraction=0, pair_options=options).fit(sp.csr_matrix(X), y)


def test_survival_sparse_auc_lprex_with_validation(whas500):
    """The reported crash, as reported: the defaults (validation split on) with variant='lprex'."""
    X, event, time = (a[:120] for a in whas500)
    y = survival_target(event, time)
    est = SurvivalSparseAUC(basis_size=8, kappa=20, pair_options={"variant": "lprex"}).fit(X, y)
    rows = est.train_indices_
    assert est.n_pairs_ == PairSet.survival(y[rows], variant="lprex").n_pairs
    assert est.val_score_ is not None and 0.0 <= est.val_score_ <= 1.0


# ============================================================================ 9. honest stopping
def _replay_validation(checks, p, min_delta):
    """The stopping rule replayed on the recorded (val_score, val_loss) checks.

    A check improves on the incumbent when its score is higher by ``min_delta``, or when the
    scores differ by less than ``min_delta`` and its loss is lower by the fraction ``min_delta``.
    Returns (whether ``p`` consecutive checks failed to improve, index of the incumbent then).
    """
    best, since = 0, 0
    for k in range(1, len(checks)):
        (s, v), (bs, bv) = checks[k], checks[best]
        if s >= bs + min_delta or (abs(s - bs) < min_delta and v < bv * (1 - min_delta)):
            best, since = k, 0
        else:
            since += 1
            if since == p:
                return True, best
    return False, best


def _validation_rule_held(checks, p, min_delta):
    return _replay_validation(checks, p, min_delta)[0]


def _checks(model):
    return [(r["val_score"], r["val_loss"]) for r in model.path_ if r["val_score"] is not None]


def test_basis_size_limit_before_validation_rule_warns(cancer_split):
    import warnings

    Xtr, _, ytr, _ = cancer_split
    message = r"basis_size=3 before its validation stopping rule.*Raise basis_size"
    with pytest.warns(ConvergenceWarning, match=message) as record:
        capped = SparseAUC(0.1, basis_size=3, kappa=10, random_state=0).fit(Xtr, ytr)
    assert [r.filename for r in record] == [__file__]  # pointing at the user's fit call
    checks = _checks(capped)
    assert capped.n_iter_ == len(capped.path_) == 3
    assert not _validation_rule_held(checks, 3, 1e-3)
    # the same settings with room to grow: the rule ends the fit, silently, before the limit
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        free = SparseAUC(0.1, basis_size=120, kappa=10, random_state=0).fit(Xtr, ytr)
    checks = _checks(free)
    assert free.n_iter_ == len(free.path_) < 120
    assert _validation_rule_held(checks, 3, 1e-3)
    # without validation, basis_size is the stopping rule itself: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        SparseAUC(0.1, basis_size=3, kappa=10, validation_fraction=0).fit(Xtr, ytr)


def test_newton_max_iter_in_retrains_warns(cancer_split):
    import warnings

    Xtr, _, ytr, _ = cancer_split
    with pytest.warns(ConvergenceWarning, match=r"Newton re-optimizations .* max_iter=1 .*Raise max_iter"):
        capped = SparseAUC(0.01, basis_size=6, kappa=10, validation_fraction=0, max_iter=1).fit(Xtr, ytr)
    assert capped.n_iter_ == len(capped.path_) == 6
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        done = SparseAUC(0.01, basis_size=6, kappa=10, validation_fraction=0).fit(Xtr, ytr)
    # oracle: the first retrain (basis of one point, the same first pick) minimized exactly by
    # scipy; the converged fit reaches it, the capped one stops above it
    assert done.path_[0]["added"] == capped.path_[0]["added"]
    q = done.path_[0]["added"]
    k = rbf_kernel(Xtr, Xtr[[q]], gamma=done.kernel_.gamma)
    pairs = PairSet.bipartite(ytr)
    i, j = np.nonzero((ytr == 1)[:, None] & (ytr == 0)[None, :])

    def E(b):
        z = k[:, 0] * b[0]
        return 0.5 * k[q, 0] * b[0] ** 2 + 0.5 * 0.01 * np.sum(np.maximum(0.0, 1.0 - (z[i] - z[j])) ** 2)

    best = minimize_scalar(lambda t: E([t])).fun
    assert pairs.n_pairs == len(i)
    assert done.path_[0]["objective"] == pytest.approx(best, rel=1e-8)
    assert capped.path_[0]["objective"] >= best * (1 - 1e-12)


# ============================================================================ 10. survival targets and pair weights
@pytest.fixture(scope="module")
def survival80():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 3))
    time = np.round(rng.exponential(np.exp(-X[:, 0])) * 5) / 5  # tied times
    event = rng.random(80) < 0.7
    return X, event, time


def test_survival_tuple_target_equals_structured(survival80):
    X, event, time = survival80
    kw = dict(C=0.5, basis_size=10, kappa=20, random_state=0)
    structured = SurvivalSparseAUC(**kw).fit(X, survival_target(event, time))
    from_tuple = SurvivalSparseAUC(**kw).fit(X, (event, time))
    np.testing.assert_array_equal(from_tuple.predict(X), structured.predict(X))
    np.testing.assert_array_equal(from_tuple.validation_indices_, structured.validation_indices_)
    assert from_tuple.score(X, survival_target(event, time)) == structured.score(X, survival_target(event, time))


def test_pair_weights_array_follows_the_validation_split(survival80):
    """pair_options={"weights": array} is aligned with the pairs of ALL rows given to fit; with a
    validation split the fitting pairs (those among the training rows) keep their own entries.
    Oracle: a callable of the original row indices looking each pair up in a dict built here
    from the brute-force pair list, which also records the pairs it is asked about."""
    X, event, time = survival80
    y = survival_target(event, time)
    pairs = brute_pairs(event, time)
    rng = np.random.default_rng(0)
    u = rng.uniform(0.5, 2.0, size=len(pairs))
    i, j, _ = PairSet.survival(y).to_arrays()
    weight_of = dict(zip(zip(i.tolist(), j.tolist(), strict=False), u, strict=False))  # the array's order: to_arrays()
    assert set(weight_of) == set(pairs)
    asked = []

    def lookup(a, b, *rest):
        asked.append(set(zip(a.tolist(), b.tolist(), strict=False)))
        return np.array([weight_of[p] for p in zip(a.tolist(), b.tolist(), strict=False)])

    kw = dict(C=0.5, basis_size=12, kappa=20, validation_fraction=0.25, random_state=1)
    by_array = SurvivalSparseAUC(**kw, pair_options={"weights": u}).fit(X, y)
    by_callable = SurvivalSparseAUC(**kw, pair_options={"weights": lookup}).fit(X, y)
    np.testing.assert_array_equal(by_array.predict(X), by_callable.predict(X))
    assert by_array.objective_ == by_callable.objective_
    train = set(by_callable.train_indices_.tolist())
    fitting = {p for p in pairs if p[0] in train and p[1] in train}
    assert fitting in asked  # the callable saw original row indices: exactly the training pairs
    assert by_array.n_pairs_ == len(fitting) < len(pairs)
    # the weights matter: uniform weights give another model
    plain = SurvivalSparseAUC(**kw).fit(X, y)
    assert not np.allclose(plain.predict(X), by_array.predict(X))


def test_pair_weights_array_of_the_wrong_length_names_the_alternative(survival80):
    X, event, time = survival80
    y = survival_target(event, time)
    n_pairs = PairSet.survival(y).n_pairs
    with pytest.raises(ValueError, match=rf"has {n_pairs - 1} entries but the 'harrell' pair set of the 80 rows "
                                         rf"given to fit has {n_pairs} pairs.*callable weights\(i, j"):
        SurvivalSparseAUC(basis_size=5, kappa=10, pair_options={"weights": np.ones(n_pairs - 1)}).fit(X, y)
