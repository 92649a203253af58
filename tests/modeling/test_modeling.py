"""The declarative builder (aucopt.modeling) against independent oracles.

Oracles: brute-force pair loops, matrices written out by hand (D K Y), scipy.optimize.linprog
on an independently assembled dense LP Ranker, the hinge-loss objective evaluated from
the solution, and closed-form QP solutions.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog

from aucopt import Model, PairSet, Problem, _memory, available_formulations, get_formulation, kernel_matrix, solve
from aucopt.exceptions import ProblemTooLargeError
from aucopt.kernels import kernel_factor
from aucopt.modeling import Formulation, formulation, lifted_lp_nnz
from aucopt.modeling._formulation import _REGISTRY

# ----------------------------------------------------------------------------- helpers


def brute_pairs(event, time, w=None):
    """Harrell pairs (bipartite pairs are event=y, time=1-y) with product weights, by loops."""
    m = len(time)
    out = []
    for i in range(m):
        for j in range(m):
            if i != j and event[i] and (time[i] < time[j] or (time[i] == time[j] and not event[j])):
                out.append((i, j, 1.0 if w is None else w[i] * w[j]))
    return out


def random_data(seed, m=24, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    y = rng.integers(0, 2, m)
    y[:2] = [0, 1]
    return X, y, kernel_matrix(X, gamma=0.3)


def hinge_objective(alpha, K, signs, pairs, C):
    """Σα + C Σ w_ij max(0, 1 − (f_i − f_j)) with f = K Y α, pairs as (i, j, w) tuples."""
    f = K @ (signs * alpha)
    return alpha.sum() + C * sum(w * max(0.0, 1.0 - (f[i] - f[j])) for i, j, w in pairs)


def linprog_lp_ranker(K, signs, pairs, C):
    """Optimal value of the dense LP Ranker assembled here by hand, solved by scipy."""
    m, P = K.shape[0], len(pairs)
    KY = K * signs[None, :]
    A = np.zeros((P, m + P))
    for r, (i, j, _) in enumerate(pairs):
        A[r, :m] = KY[i] - KY[j]
        A[r, m + r] = 1.0
    c = np.r_[np.ones(m), C * np.array([w for _, _, w in pairs])]
    res = linprog(c, A_ub=-A, b_ub=-np.ones(P), bounds=(0, None), method="highs")
    assert res.status == 0
    return res.fun


def solved(problem, **kw):
    result = solve(problem, "highs", **kw)
    result.raise_for_status()
    return result


# ----------------------------------------------------------------------------- lifted vs dense


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lifted_and_dense_have_equal_optimum(seed):
    _X, y, K = random_data(seed)
    pairs = PairSet.bipartite(y)
    form = get_formulation("lp_ranker")
    lifted = form.build(pairs, K, C=0.7)
    dense = form.build(pairs, K, C=0.7, lifted=False)
    assert lifted.metadata["lifted"] and not dense.metadata["lifted"]
    assert lifted.is_lp and dense.is_lp
    r_l, r_d = solved(lifted), solved(dense)
    assert r_l.objective == pytest.approx(r_d.objective, rel=1e-7)
    assert r_l.objective == pytest.approx(linprog_lp_ranker(K, pairs.signs, brute_pairs(y == 1, 1.0 - y), 0.7),
                                          rel=1e-7)
    # optimal α may differ between the forms, but each one's hinge objective is the optimum
    brute = brute_pairs(y == 1, 1.0 - y)
    for prob, res in ((lifted, r_l), (dense, r_d)):
        alpha = prob.block(res.x, "alpha")
        np.testing.assert_allclose(prob.output(res.x, "coef"), pairs.signs * alpha, atol=1e-12)
        assert hinge_objective(alpha, K, pairs.signs, brute, 0.7) == pytest.approx(r_l.objective, rel=1e-7)


def test_lifted_structure():
    _X, y, K = random_data(3, m=15)
    assert np.all(K != 0)  # a dense kernel
    pairs = PairSet.bipartite(y)
    m, P = len(y), pairs.n_pairs
    prob = get_formulation("lp_ranker").build(pairs, K)
    a, z, s = prob.blocks["alpha"], prob.blocks["z"], prob.blocks["scores"]
    assert (a.stop - a.start, z.stop - z.start, s.stop - s.start) == (m, P, m)
    A = prob.A.tocsr()
    pair_rows = np.flatnonzero((prob.row_lower == 1) & np.isinf(prob.row_upper))
    score_rows = np.flatnonzero((prob.row_lower == 0) & (prob.row_upper == 0))
    assert len(pair_rows) == P and len(score_rows) == m and prob.n_rows == P + m

    # pair rows: exactly s_i − s_j + z_ij, 3 nonzeros each
    Ap = A[pair_rows]
    np.testing.assert_array_equal(np.diff(Ap.indptr), 3)
    i, j, _ = pairs.to_arrays()
    D = np.zeros((P, m))
    D[np.arange(P), i] = 1.0
    D[np.arange(P), j] = -1.0
    np.testing.assert_array_equal(Ap[:, s].toarray(), D)
    np.testing.assert_array_equal(Ap[:, z].toarray(), np.eye(P))
    assert Ap[:, a].nnz == 0

    # score rows: s − K Y α = 0, m² + m nonzeros
    As = A[score_rows]
    assert As.nnz == m * m + m
    np.testing.assert_array_equal(As[:, s].toarray(), np.eye(m))
    np.testing.assert_allclose(As[:, a].toarray(), -K * pairs.signs[None, :], rtol=1e-15)
    assert prob.A.nnz == m * m + m + 3 * P

    # objective Σα + C Σ w z, bounds α, z ≥ 0, s free
    np.testing.assert_array_equal(prob.c[a], 1.0)
    np.testing.assert_array_equal(prob.c[z], 1.0)
    np.testing.assert_array_equal(prob.c[s], 0.0)
    np.testing.assert_array_equal(prob.col_lower[a], 0.0)
    np.testing.assert_array_equal(prob.col_lower[z], 0.0)
    assert np.all(np.isinf(prob.col_lower[s])) and np.all(np.isinf(prob.col_upper))


def test_dense_structure():
    _X, y, K = random_data(4, m=15)
    pairs = PairSet.bipartite(y)
    m, P = len(y), pairs.n_pairs
    prob = get_formulation("lp_ranker").build(pairs, K, lifted=False)
    assert set(prob.blocks) == {"alpha", "z"}
    assert prob.n_rows == P and prob.n_vars == m + P
    a, z = prob.blocks["alpha"], prob.blocks["z"]
    A = prob.A.tocsr()
    i, j, _ = pairs.to_arrays()
    KY = K * pairs.signs[None, :]
    assert A[:, a].shape == (P, m) and A[:, a].nnz == P * m
    np.testing.assert_allclose(A[:, a].toarray(), KY[i] - KY[j], rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(A[:, z].toarray(), np.eye(P))
    np.testing.assert_array_equal(prob.row_lower, 1.0)


# ----------------------------------------------------------------------------- the LP Ranker's optimum


def _check_lp_ranker_optimum(K, pairs, brute, C):
    prob = get_formulation("lp_ranker").build(pairs, K, C=C)
    res = solved(prob)
    alpha = prob.block(res.x, "alpha")
    assert np.all(alpha >= -1e-9)
    # the objective of the returned point equals the hinge objective of its α
    assert res.objective == pytest.approx(hinge_objective(alpha, K, pairs.signs, brute, C), rel=1e-7, abs=1e-7)
    # and it is the optimum of the LP written independently
    assert res.objective == pytest.approx(linprog_lp_ranker(K, pairs.signs, brute, C), rel=1e-7)
    # the lifted score variables equal K Y α
    np.testing.assert_allclose(prob.block(res.x, "scores"), K @ (pairs.signs * alpha), atol=1e-7)
    return prob, res


@pytest.mark.parametrize("seed", [0, 1])
def test_lp_ranker_objective_bipartite(seed):
    _X, y, K = random_data(seed, m=30)
    _check_lp_ranker_optimum(K, PairSet.bipartite(y), brute_pairs(y == 1, 1.0 - y), C=1.3)


@pytest.mark.parametrize("seed", [0, 1])
def test_lp_ranker_objective_survival(seed):
    rng = np.random.default_rng(100 + seed)
    m = 30
    X = rng.normal(size=(m, 3))
    time = rng.integers(1, 9, m).astype(float)  # ties
    event = rng.random(m) < 0.5
    event[0] = True
    K = kernel_matrix(X, gamma=0.5)
    pairs = PairSet.survival(event, time)
    prob, _ = _check_lp_ranker_optimum(K, pairs, brute_pairs(event, time), C=0.8)
    assert prob.metadata["pair_target"] == "survival"
    assert prob.metadata["n_pairs"] == len(brute_pairs(event, time))


def test_lp_ranker_objective_weighted():
    rng = np.random.default_rng(9)
    _X, y, K = random_data(9, m=28)
    w = rng.uniform(0.2, 3.0, len(y))
    w[3] = 0.0
    _check_lp_ranker_optimum(K, PairSet.bipartite(y, point_weights=w), brute_pairs(y == 1, 1.0 - y, w), C=0.9)
    time = rng.integers(0, 5, len(y)).astype(float)
    event = rng.random(len(y)) < 0.6
    _check_lp_ranker_optimum(K, PairSet.survival(event, time, point_weights=w), brute_pairs(event, time, w), C=0.9)


def test_coef_output_lp_ranker_and_free_sign():
    _X, y, K = random_data(5, m=26)
    pairs = PairSet.bipartite(y)
    signed = get_formulation("lp_ranker").build(pairs, K, C=2.0)
    free = get_formulation("lp_ranker_free_sign").build(pairs, K, C=2.0)
    r_s, r_f = solved(signed), solved(free)

    alpha = signed.block(r_s.x, "alpha")
    np.testing.assert_allclose(signed.output(r_s.x, "coef"), np.where(y == 1, 1.0, -1.0) * alpha, atol=1e-12)
    beta = free.block(r_f.x, "beta_pos") - free.block(r_f.x, "beta_neg")
    np.testing.assert_allclose(free.output(r_f.x, "coef"), beta, atol=1e-12)
    np.testing.assert_allclose(free.block(r_f.x, "scores"), K @ beta, atol=1e-7)

    # free-sign objective = ‖β‖₁ + C Σ hinge at the optimum (β⁺, β⁻ never both positive)
    f = K @ beta
    hinge = sum(max(0.0, 1.0 - (f[i] - f[j])) for i, j, _ in brute_pairs(y == 1, 1.0 - y))
    assert r_f.objective == pytest.approx(np.abs(beta).sum() + 2.0 * hinge, rel=1e-7)
    # the free-sign LP is a relaxation of the sign-constrained one
    assert r_f.objective <= r_s.objective * (1 + 1e-9)
    # and the signed solution is feasible for it, mapped to β = Yα
    x = np.zeros(free.n_vars)
    coef = signed.output(r_s.x, "coef")
    x[free.blocks["beta_pos"]] = np.maximum(coef, 0)
    x[free.blocks["beta_neg"]] = np.maximum(-coef, 0)
    x[free.blocks["z"]] = signed.block(r_s.x, "z")
    x[free.blocks["scores"]] = signed.block(r_s.x, "scores")
    assert free.violation(x) < 1e-7
    assert free.objective(x) == pytest.approx(r_s.objective, rel=1e-9)


# ----------------------------------------------------------------------------- custom formulations


def budget_ranker(m, C=1.0, budget=0.5):
    """LP Ranker with an extra constraint Σα ≤ budget."""
    alpha = m.variable("alpha", m.n_basis, lower=0)
    z = m.variable("z", m.n_pairs, lower=0)
    f = m.scores(alpha)
    m.minimize(alpha.sum() + C * (m.pair_weights @ z))
    m.subject_to(m.pair_difference(f) + z >= 1, alpha.sum() <= budget)


def test_custom_lp_formulation_plain_function():
    _X, y, K = random_data(6, m=20)
    pairs = PairSet.bipartite(y)
    form = get_formulation(budget_ranker)
    assert isinstance(form, Formulation) and form.name == "budget_ranker"
    assert get_formulation(form) is form
    unconstrained = solved(get_formulation("lp_ranker").build(pairs, K, C=1.0))
    alpha_sum = unconstrained.x[: len(y)].sum()
    assert alpha_sum > 0.2
    budget = 0.5 * alpha_sum
    prob = form.build(pairs, K, C=1.0, budget=budget)
    assert prob.name == "budget_ranker"
    res = solved(prob)
    alpha = prob.block(res.x, "alpha")
    assert alpha.sum() <= budget + 1e-8
    assert res.objective > unconstrained.objective + 1e-6  # the budget binds
    # oracle: the same LP with the budget row, assembled by hand
    brute = brute_pairs(y == 1, 1.0 - y)
    mm, P = len(y), len(brute)
    KY = K * pairs.signs[None, :]
    A = np.zeros((P + 1, mm + P))
    for r, (i, j, _) in enumerate(brute):
        A[r, :mm], A[r, mm + r] = -(KY[i] - KY[j]), -1.0
    A[P, :mm] = 1.0
    ref = linprog(np.ones(mm + P), A_ub=A, b_ub=np.r_[-np.ones(P), budget], bounds=(0, None), method="highs")
    assert res.objective == pytest.approx(ref.fun, rel=1e-7)
    assert res.objective == pytest.approx(hinge_objective(alpha, K, pairs.signs, brute, 1.0), rel=1e-7)


def test_custom_qp_projection_closed_form():
    """min Σ (x − t)² s.t. Σx = 1 has the closed form x = t − (Σt − 1)/n."""
    t = np.array([0.3, -1.2, 2.0, 0.7])

    def projection(m, target=t):
        x = m.variable("x", len(target))
        m.minimize(m.sum_squares(x - target) + 3.0)
        m.subject_to(x.sum() == 1)
        m.output("x", x)

    pairs = PairSet.bipartite([0, 1])
    prob = get_formulation(projection).build(pairs)
    assert not prob.is_lp
    res = solved(prob)
    expected = t - (t.sum() - 1) / len(t)
    np.testing.assert_allclose(prob.output(res.x, "x"), expected, atol=1e-7)
    assert res.objective == pytest.approx(np.sum((expected - t) ** 2) + 3.0, rel=1e-7)


def test_custom_qp_ranker_matches_direct_cvxpy():
    cp = pytest.importorskip("cvxpy")

    def qp_ranker(m, C=1.0):
        alpha = m.variable("alpha", m.n_basis, lower=0)
        z = m.variable("z", m.n_pairs, lower=0)
        f = m.scores(alpha)
        m.minimize(0.5 * m.sum_squares(alpha) + C * (m.pair_weights @ z))
        m.subject_to(m.pair_difference(f) + z >= 1)

    _X, y, K = random_data(8, m=20)
    pairs = PairSet.bipartite(y)
    prob = get_formulation(qp_ranker).build(pairs, K, C=0.5)
    res = solved(prob)
    brute = brute_pairs(y == 1, 1.0 - y)
    KY = K * pairs.signs[None, :]
    Dm = np.array([KY[i] - KY[j] for i, j, _ in brute])
    a = cp.Variable(len(y), nonneg=True)
    hinge = cp.sum(cp.pos(1 - Dm @ a))
    ref = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(a) + 0.5 * hinge))
    ref.solve(solver="CLARABEL")
    assert res.objective == pytest.approx(ref.value, rel=1e-6)


def test_quadratic_plus_affine_in_either_order():
    """``affine + m.sum_squares(...)`` must build the same objective as the reverse order."""

    def quad_first(m):
        x = m.variable("x", 2)
        m.minimize(m.sum_squares(x) + x.sum())

    def affine_first(m):
        x = m.variable("x", 2)
        m.minimize(x.sum() + m.sum_squares(x))

    pairs = PairSet.bipartite([0, 1])
    p1 = get_formulation(quad_first).build(pairs)
    p2 = get_formulation(affine_first).build(pairs)
    for p in (p1, p2):  # min x² + x  → x = −1/2, value −1/4 per coordinate
        res = solved(p)
        np.testing.assert_allclose(res.x, -0.5, atol=1e-7)
        assert res.objective == pytest.approx(-0.5, rel=1e-7)


def test_constraint_between_two_expressions():
    """``t >= x + 1`` (expressions on both sides) means the same as ``t - x >= 1``."""

    def both_sides(m):
        x = m.variable("x", 2, lower=np.array([0.5, 2.0]))
        t = m.variable("t", 2)
        m.minimize(t.sum() + x.sum())
        m.subject_to(t >= x + 1)

    prob = get_formulation(both_sides).build(PairSet.bipartite([0, 1]))
    res = solved(prob)
    np.testing.assert_allclose(prob.block(res.x, "t"), [1.5, 3.0], atol=1e-9)
    assert res.objective == pytest.approx(7.0)


def test_unknown_formulation_lists_available():
    names = available_formulations()
    assert {"lp_ranker", "lp_ranker_free_sign"} <= set(names)
    with pytest.raises(ValueError, match="lp_ranker") as excinfo:
        get_formulation("no_such_formulation")
    assert "no_such_formulation" in str(excinfo.value)
    assert "lp_ranker_free_sign" in str(excinfo.value)


def test_model_input_validation():
    _X, y, K = random_data(0, m=10)
    pairs = PairSet.bipartite(y)
    with pytest.raises(ValueError, match="rows"):
        Model(pairs, K[:-1])
    with pytest.raises(ValueError, match="comparable"):
        Model(PairSet.survival(np.zeros(4, bool), np.arange(4.0)), K[:4, :4])
    with pytest.raises(ValueError, match="minimize"):
        get_formulation(lambda m: None).build(pairs, K)


def test_kernel_formulation_without_kernel_raises_valueerror():
    pairs = PairSet.bipartite([0, 1, 1, 0])
    with pytest.raises(ValueError, match="kernel"):
        get_formulation("lp_ranker").build(pairs, None)


# ----------------------------------------------------------------------------- memory guard


def test_model_max_bytes_refuses_pair_listing():
    y = np.r_[np.ones(20), np.zeros(30)]
    pairs = PairSet.bipartite(y)
    K = np.eye(50)
    with pytest.raises(ProblemTooLargeError, match=r"600 pairs.*9\.6 kB") as excinfo:
        _ = Model(pairs, K, max_bytes=1000).pair_weights
    assert "limit max_bytes=1.0 kB" in str(excinfo.value)
    assert isinstance(excinfo.value, MemoryError) and excinfo.value.max_bytes == 1000
    with pytest.raises(ValueError, match=r"\d kB"):
        get_formulation("lp_ranker").build(pairs, K, max_bytes=1000)


def test_build_max_bytes_refuses_dense_block_only():
    _X, y, K = random_data(2, m=30)
    pairs = PairSet.bipartite(y)
    m, P = len(y), pairs.n_pairs
    # enough for the pair arrays, the lifted score rows (~12 m² B) and pair rows (~24 P B),
    # far below the dense P × m block (~24 P m B)
    budget = 2 * max(16 * P, 12 * m * m, 24 * P)
    assert budget < 24 * P * m / 4
    form = get_formulation("lp_ranker")
    lifted = form.build(pairs, K, max_bytes=budget)
    assert lifted.A.nnz == m * m + m + 3 * P
    with pytest.raises(ProblemTooLargeError, match=r"would need about [\d.]+ (kB|MB)") as excinfo:
        form.build(pairs, K, lifted=False, max_bytes=budget)
    assert "lifted" in str(excinfo.value)
    assert excinfo.value.nbytes > budget == excinfo.value.max_bytes
    assert form.build(pairs, K, lifted=False, max_bytes=None).n_rows == P


def test_problem_objective_offset_and_output_maps():
    """Builder constants go to the offset and to bounds, not lost."""

    def shifted(m):
        x = m.variable("x", 3, lower=0)
        m.minimize((x + 2.0).sum() * 2.0)  # 2Σx + 12
        m.subject_to(x + 1.0 >= np.array([2.0, 0.5, 4.0]))  # x ≥ [1, -0.5, 3]
        m.output("shifted", x * 3.0 - 1.0)

    prob = get_formulation(shifted).build(PairSet.bipartite([1, 0]))
    assert prob.offset == pytest.approx(12.0)
    res = solved(prob)
    np.testing.assert_allclose(res.x, [1.0, 0.0, 3.0], atol=1e-9)
    assert res.objective == pytest.approx(2 * 4.0 + 12.0)
    np.testing.assert_allclose(prob.output(res.x, "shifted"), [2.0, -1.0, 8.0], atol=1e-9)
    assert isinstance(prob, Problem) and sp.issparse(prob.A)


# ----------------------------------------------------------------------------- declared sizes


def _shipped_problems(seed=0, m=16):
    X, y, K = random_data(seed, m=m)
    pairs = PairSet.bipartite(y)
    assert np.all(K != 0)  # dense kernel: the declared counts are exact
    for name in ("lp_ranker", "lp_ranker_free_sign"):
        for lifted in (True, False):
            yield name, pairs, dict(kernel=K, lifted=lifted), K.shape[1], lifted
    for name in ("aucsvm_l1_dual", "aucsvm_l2_dual"):
        for factor in (X, kernel_factor(K)):  # linear features, eigen-factor of an RBF kernel
            yield name, pairs, dict(factor=factor), factor.shape[1], True


@pytest.mark.parametrize("case", range(8))
def test_declared_nnz_equals_built_problem(case):
    name, pairs, build_kw, n_basis, lifted = list(_shipped_problems())[case]
    form = get_formulation(name)
    assert form.nnz is not None, f"{name} declares no size"
    problem = form.build(pairs, **build_kw)
    declared = form.nnz(n_points=pairs.n_points, n_pairs=pairs.n_pairs, n_basis=n_basis, lifted=lifted)
    assert declared == problem.nnz, name
    n, P = pairs.n_points, pairs.n_pairs
    if form.kind == "qp":  # the factor, then the larger of the builder's and the solver's peak
        _, rows, cols = _memory.dual_qp_size(n, P, n_basis)
        assert (rows, cols) == (problem.n_rows, problem.n_vars), name
        expected = 8.0 * n * n_basis + _memory.problem_bytes(problem.nnz, rows, cols, kind="qp", solver="osqp")
    else:
        _, rows, cols = _memory.lp_ranker_size(n, P, n_basis, lifted=lifted)
        if name == "lp_ranker":
            assert (rows, cols) == (problem.n_rows, problem.n_vars), name
        expected = max(_memory.kernel_bytes(n, n_basis),
                       8.0 * n * n_basis + _memory.problem_bytes(problem.nnz, rows, cols, solver="highs"))
    assert form.estimate_nbytes(n_points=n, n_pairs=P, n_basis=n_basis, lifted=lifted) == pytest.approx(expected)


def test_check_size_uses_the_declared_size():
    """The QP dual's size is linear in the pairs, the dense LP's is pairs × basis: check_size knows."""
    n, P, r = 2_000, 1_000_000, 10
    lp, qp = get_formulation("lp_ranker"), get_formulation("aucsvm_l1_dual")
    need_qp = qp.estimate_nbytes(n_points=n, n_pairs=P, n_basis=r)
    assert need_qp == _memory.dual_qp_bytes(n, P, r)
    need_dense = lp.estimate_nbytes(n_points=n, n_pairs=P, n_basis=n, lifted=False)
    assert need_dense == _memory.lp_bytes(n, P, n, lifted=False) > 8 * P * (n + 1)
    qp.check_size(n_points=n, n_pairs=P, n_basis=r, max_bytes=need_qp)  # exactly at the budget: fine
    with pytest.raises(ProblemTooLargeError, match=r"The lifted QP 'aucsvm_l1_dual' for 2,000 points and "
                                                   r"1,000,000 pairs would need about") as excinfo:
        qp.check_size(n_points=n, n_pairs=P, n_basis=r, max_bytes=need_qp - 1, fix="use method='liblinear'")
    assert "use method='liblinear', or raise max_bytes" in str(excinfo.value)
    with pytest.raises(ProblemTooLargeError, match=r"dense LP 'lp_ranker'.*use LPRanker\(method='smoothing'\)"):
        lp.check_size(n_points=n, n_pairs=P, n_basis=n, lifted=False, max_bytes=2**30)
    lp.check_size(n_points=n, n_pairs=P, n_basis=n, lifted=False, max_bytes=None)


def test_undeclared_size_falls_back_to_the_generic_estimate():
    @formulation("test_undeclared_size", kind="lp")
    def undeclared(m, C=1.0):
        alpha = m.variable("alpha", m.n_basis, lower=0)
        m.minimize(alpha.sum())

    @formulation("test_declared_size", kind="lp", nnz=lambda n_points, n_pairs, n_basis, lifted: 7)
    def declared(m):
        alpha = m.variable("alpha", m.n_basis, lower=0)
        m.minimize(alpha.sum())

    try:
        assert get_formulation("test_undeclared_size") is undeclared and undeclared.nnz is None
        kw = dict(n_points=50, n_pairs=600, n_basis=50)
        assert undeclared.estimate_nbytes(**kw) == _memory.lp_bytes(50, 600, 50, nnz=lifted_lp_nnz(50, 600, 50))
        assert declared.estimate_nbytes(**kw) == _memory.lp_bytes(50, 600, 50, nnz=7)
        assert declared.estimate_nbytes(**kw) < undeclared.estimate_nbytes(**kw)
        assert lifted_lp_nnz(50, 600, 50, lifted=False) == 50 * 50 + 2 * 50 * 600
    finally:
        _REGISTRY.pop("test_undeclared_size", None)
        _REGISTRY.pop("test_declared_size", None)
    with pytest.raises(TypeError, match="nnz must be a callable"):
        formulation("test_bad_size", nnz=12)(lambda m: None)
    assert "test_bad_size" not in _REGISTRY


def test_shipped_formulations_cite_papers():
    for name in ("lp_ranker", "lp_ranker_free_sign"):
        doc = get_formulation(name).__doc__
        assert "Ataman" in doc and "eq. 3.3" in doc and "University of Iowa" in doc
    for name, problem in (("aucsvm_l1_dual", "Optimization Problem 3"), ("aucsvm_l2_dual", "Optimization Problem 4")):
        doc = get_formulation(name).__doc__
        assert "Brefeld & Scheffer 2005" in doc and problem in doc and "ROC Analysis" in doc
