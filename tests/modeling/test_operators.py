"""Model operators (index sets, grouped sums, epigraph operators, sum of the k largest) against oracles.

Oracles: numpy brute force (np.sort, np.maximum, loops over groups), cvxpy models of the same
mathematics written with cvxpy's own atoms (cp.sum_largest, cp.max, cp.pos, cp.abs), and
PairSet.to_arrays for the pair order.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp

from aucopt import Model, PairSet, get_formulation, solve
from aucopt.exceptions import ProblemTooLargeError

# ----------------------------------------------------------------------------- helpers


def fixed_model(values, y=(1, 0)):
    """A model with a variable block x fixed to ``values`` by equality rows."""
    m = Model(PairSet.bipartite(list(y)))
    x = m.variable("x", len(values))
    m.subject_to(x == np.asarray(values, float))
    return m, x


def optimum(m, solver="highs"):
    problem = m.build()
    result = solve(problem, solver)
    result.raise_for_status()
    return problem, result


def random_groups(rng, n, G, left_out=0.2):
    """Each of 0..G-1 appears at least twice; a fraction of the rest is left out (-1)."""
    g = np.r_[np.repeat(np.arange(G), 2), rng.integers(0, G, n - 2 * G)]
    g[2 * G:][rng.random(n - 2 * G) < left_out] = -1
    return rng.permutation(g)


def no_listing(monkeypatch):
    """Make PairSet.to_arrays raise: any pair listing fails the test."""
    def refuse(self, *args, **kwargs):
        raise AssertionError("the pairs were listed")

    monkeypatch.setattr(PairSet, "to_arrays", refuse)


# ----------------------------------------------------------------------------- lazy pair listing


def test_model_never_lists_pairs_unless_a_pair_operator_is_used(monkeypatch):
    no_listing(monkeypatch)
    y = np.r_[np.ones(4), np.zeros(6)]
    m = Model(PairSet.bipartite(y), kernel=np.eye(10))
    assert m.n_pairs == 24  # counted, not listed
    alpha = m.variable("alpha", m.n_basis, lower=0)
    f = m.scores(alpha)
    t = m.maximum(f[m.negatives], name="t")
    u = m.positive_part(1 - f[m.positives] + t)
    m.minimize(alpha.sum() + u.sum())
    problem = m.build()
    assert problem.metadata["n_pairs"] == 24
    for attribute in ("pair_weights", "pair_index", "pair_incidence"):
        with pytest.raises(AssertionError, match="listed"):
            getattr(m, attribute)
    with pytest.raises(AssertionError, match="listed"):
        m.pair_difference(f)


def test_pairs_listed_once_in_pairset_order(monkeypatch):
    pairs = PairSet.survival([True, False, True, True, False], [2.0, 1.0, 3.0, 3.0, 5.0])
    i0, j0, w0 = pairs.to_arrays()
    calls = []
    original = PairSet.to_arrays

    def counting(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(PairSet, "to_arrays", counting)
    m = Model(pairs)
    assert not calls
    i, j = m.pair_index
    np.testing.assert_array_equal(i, i0)
    np.testing.assert_array_equal(j, j0)
    np.testing.assert_array_equal(m.pair_weights, w0)
    D = m.pair_incidence.toarray()
    expected = np.zeros((len(i0), 5))
    expected[np.arange(len(i0)), i0] += 1.0
    expected[np.arange(len(i0)), j0] -= 1.0
    np.testing.assert_array_equal(D, expected)
    assert len(calls) == 1


def test_max_bytes_refuses_on_first_listing():
    pairs = PairSet.bipartite(np.r_[np.ones(20), np.zeros(30)])
    m = Model(pairs, np.eye(50), max_bytes=1000)  # constructing lists nothing
    with pytest.raises(ProblemTooLargeError, match=r"600 pairs.*9\.6 kB"):
        _ = m.pair_weights
    with pytest.raises(ProblemTooLargeError, match=r"limit max_bytes=1.0 kB"):
        get_formulation("lp_ranker").build(pairs, np.eye(50), max_bytes=1000)
    # a formulation without pair rows builds under the same budget
    problem = get_formulation("top_push").build(pairs, np.eye(50), max_bytes=10**6)
    assert problem.n_rows == 50 + 50  # score rows + one row per point


def test_positives_and_negatives_from_signs():
    y = np.array([0, 1, 1, 0, 0, 1, 0])
    m = Model(PairSet.bipartite(y))
    np.testing.assert_array_equal(m.positives, [1, 2, 5])
    np.testing.assert_array_equal(m.negatives, [0, 3, 4, 6])
    event = np.array([True, False, True, True])
    m = Model(PairSet.survival(event, [1.0, 2.0, 3.0, 4.0]))
    np.testing.assert_array_equal(m.positives, np.flatnonzero(event))
    np.testing.assert_array_equal(m.negatives, np.flatnonzero(~event))


def test_check_bipartite_refuses_other_pair_sets():
    with pytest.raises(ValueError, match=r"bipartite pairs.*survival"):
        Model(PairSet.survival([True, True, False], [1.0, 2.0, 3.0])).check_bipartite("top_push")
    partial = PairSet.from_arrays([0], [1], n_points=3, signs=[1, -1, -1], target="bipartite")
    with pytest.raises(ValueError, match=r"n_pairs=1 but 1 positives x 2 negatives = 2"):
        Model(partial).check_bipartite("top_push")
    with pytest.raises(ValueError, match="weights other than 1"):
        Model(PairSet.bipartite([1, 0, 0], point_weights=[1.0, 2.0, 1.0])).check_bipartite("partial_auc")
    weighted = PairSet.from_arrays([0, 0], [1, 2], [1.0, 0.5], n_points=3, target="bipartite")
    with pytest.raises(ValueError, match="weights other than 1"):
        Model(weighted).check_bipartite("partial_auc")
    Model(PairSet.bipartite([1, 0, 0], point_weights=1.0)).check_bipartite("top_push")  # all 1: accepted


# ----------------------------------------------------------------------------- algebra


def test_indexing_and_size_one_broadcasting():
    rng = np.random.default_rng(0)
    m = Model(PairSet.bipartite([1, 0]))
    x = m.variable("x", 6)
    t = m.variable("t", 1)
    A = rng.normal(size=(6, 6))
    expr = A @ x + np.arange(6.0)
    idx = np.array([4, 0, 4, 2])
    sub = expr[idx] - t
    m.output("sub", sub)
    m.output("tail", expr[3:])
    m.output("mask", 2.0 * t + expr[np.arange(6) % 2 == 0])
    m.output("one", expr[1])
    m.minimize(x.sum())
    problem = m.build()
    point = rng.normal(size=problem.n_vars)
    xv, tv = problem.block(point, "x"), problem.block(point, "t")
    full = A @ xv + np.arange(6.0)
    np.testing.assert_allclose(problem.output(point, "sub"), full[idx] - tv, rtol=1e-13)
    np.testing.assert_allclose(problem.output(point, "tail"), full[3:], rtol=1e-13)
    np.testing.assert_allclose(problem.output(point, "mask"), 2.0 * tv + full[::2], rtol=1e-13)
    np.testing.assert_allclose(problem.output(point, "one"), full[[1]], rtol=1e-13)
    with pytest.raises(ValueError, match="sizes 6 and 3"):
        expr + expr[:3]
    with pytest.raises(IndexError):
        expr[6]
    assert (sp.identity(6, format="csr") @ expr).size == 6  # sparse @ expr still defers to Affine


# ----------------------------------------------------------------------------- grouped sums


def test_group_sum_and_group_mean_match_loops():
    rng = np.random.default_rng(1)
    n, G = 15, 4
    groups = random_groups(rng, n, G)
    m = Model(PairSet.bipartite([1, 0]))
    x = m.variable("x", n)
    B = rng.normal(size=(n, n))
    expr = B @ x + rng.normal(size=n)
    m.output("sum", m.group_sum(expr, groups))
    m.output("mean", m.group_mean(expr, groups.astype(float)))  # integral floats are accepted
    m.minimize(x.sum())
    problem = m.build()
    point = rng.normal(size=problem.n_vars)
    values = B @ problem.block(point, "x") + (expr.const)
    sums = [sum(values[k] for k in range(n) if groups[k] == g) for g in range(G)]
    means = [np.mean([values[k] for k in range(n) if groups[k] == g]) for g in range(G)]
    np.testing.assert_allclose(problem.output(point, "sum"), sums, rtol=1e-12)
    np.testing.assert_allclose(problem.output(point, "mean"), means, rtol=1e-12)


def test_group_sum_keeps_empty_groups_and_mean_refuses_them():
    m, x = fixed_model([1.0, 2.0, 3.0])
    assert m.group_sum(x, [0, 2, 2]).size == 3  # group 1 is empty: its sum is 0
    with pytest.raises(ValueError, match="group 1 has no entry"):
        m.group_mean(x, [0, 2, 2])
    with pytest.raises(ValueError, match="group 1 has no entry"):
        m.group_max(x, [0, 2, 2])


# ----------------------------------------------------------------------------- epigraph operators at fixed points


@pytest.mark.parametrize("seed", [0, 1])
def test_epigraph_operators_equal_brute_force_at_fixed_points(seed):
    rng = np.random.default_rng(seed)
    n, G = 12, 3
    v = rng.normal(size=n)
    groups = random_groups(rng, n, G)
    weights = rng.uniform(0.5, 2.0, size=G)
    m, x = fixed_model(v)
    t = m.group_max(x, groups, name="t")
    mx = m.maximum(x, name="mx")
    hinge = m.positive_part(0.3 - x, name="hinge")
    absolute = m.abs(x, name="abs")
    top = m.sum_largest(x, 2, groups=groups, name="top")
    m.minimize(weights @ t + mx.sum() + hinge.sum() + absolute.sum() + weights @ top)
    problem, result = optimum(m)

    members = [v[groups == g] for g in range(G)]
    group_max = np.array([mem.max() for mem in members])
    top2 = np.array([np.sort(mem)[-2:].sum() for mem in members])
    np.testing.assert_allclose(problem.block(result.x, "t"), group_max, atol=1e-9)
    np.testing.assert_allclose(problem.block(result.x, "mx"), [v.max()], atol=1e-9)
    np.testing.assert_allclose(problem.block(result.x, "hinge"), np.maximum(0.3 - v, 0.0), atol=1e-9)
    np.testing.assert_allclose(problem.block(result.x, "abs"), np.abs(v), atol=1e-9)
    expected = weights @ group_max + v.max() + np.maximum(0.3 - v, 0).sum() + np.abs(v).sum() + weights @ top2
    assert result.objective == pytest.approx(expected, abs=1e-8)
    assert set(problem.blocks) == {"x", "t", "mx", "hinge", "abs", "top_tau", "top_excess"}
    assert problem.blocks["top_excess"].stop - problem.blocks["top_excess"].start == np.sum(groups >= 0)


@pytest.mark.parametrize("k", [1, 3, 5, 7])
def test_sum_largest_equals_sorted_sum_for_every_k(k):
    rng = np.random.default_rng(k)
    v = rng.normal(size=7)
    m, x = fixed_model(v)
    m.minimize(m.sum_largest(x, k))
    _, result = optimum(m)
    assert result.objective == pytest.approx(np.sort(v)[::-1][:k].sum(), abs=1e-9)


def test_sum_largest_upper_bound_constraint_is_exact():
    """sum_largest(x, k) <= b holds iff the k largest entries sum to at most b."""
    v = np.array([3.0, 1.0, 2.0, 0.5])
    for b, feasible in ((5.0, True), (4.9, False)):
        m, x = fixed_model(v)
        m.subject_to(m.sum_largest(x, 2) <= b)
        m.minimize(x.sum())
        result = solve(m.build(), "highs")
        assert (result.status == "optimal") is feasible


# ----------------------------------------------------------------------------- against cvxpy


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_operators_in_an_optimization_match_cvxpy(seed):
    """min Σ_g w_g·sum_largest_g(Ax − b, k) + Σ_g max_g(Cx) + Σ|x − c| + Σ(d − x)_+ over a box, vs cvxpy."""
    rng = np.random.default_rng(seed)
    d, n, G, k = 5, 14, 3, 2
    A, b = rng.normal(size=(n, d)), rng.normal(size=n)
    Cm = rng.normal(size=(n, d))
    c, dd = rng.normal(size=d), rng.normal(size=d)
    groups = random_groups(rng, n, G, left_out=0.15)
    w = rng.uniform(0.5, 2.0, size=G)

    m = Model(PairSet.bipartite([1, 0]))
    x = m.variable("x", d, lower=-1.0, upper=1.0)
    top = m.sum_largest(A @ x - b, k, groups=groups)
    gmax = m.group_max(Cm @ x, groups)
    m.minimize(w @ top + gmax.sum() + m.abs(x - c).sum() + m.positive_part(dd - x).sum())
    problem, result = optimum(m)

    xc = cp.Variable(d)
    r, s = A @ xc - b, Cm @ xc
    objective = sum(w[g] * cp.sum_largest(r[np.flatnonzero(groups == g)], k) + cp.max(s[np.flatnonzero(groups == g)])
                    for g in range(G))
    objective += cp.sum(cp.abs(xc - c)) + cp.sum(cp.pos(dd - xc))
    reference = cp.Problem(cp.Minimize(objective), [xc >= -1, xc <= 1])
    reference.solve(solver=cp.CLARABEL, tol_gap_abs=1e-10, tol_gap_rel=1e-10, tol_feas=1e-10)
    assert result.objective == pytest.approx(reference.value, rel=1e-7, abs=1e-8)
    # the LP's x attains the same value of the cvxpy objective
    xc.value = problem.block(result.x, "x")
    assert objective.value == pytest.approx(reference.value, rel=1e-7, abs=1e-8)


# ----------------------------------------------------------------------------- validation and names


@pytest.mark.parametrize("k, match", [
    (0, r"k=0 must be a positive integer no larger than the smallest group \(2 entries\); pass 1 <= k <= 2"),
    (3, r"k=3 must be a positive integer"),
    (1.5, r"k=1\.5 must be a positive integer"),
    (True, r"k=True must be a positive integer"),
])
def test_sum_largest_validates_k(k, match):
    m, x = fixed_model([1.0, 2.0, 3.0, 4.0, 5.0])
    with pytest.raises(ValueError, match=match):
        m.sum_largest(x, k, groups=[0, 0, 1, 1, 1])


def test_sum_largest_accepts_numpy_integer_k():
    m, x = fixed_model([1.0, 4.0, 2.0])
    m.minimize(m.sum_largest(x, np.int64(2)))
    assert optimum(m)[1].objective == pytest.approx(6.0, abs=1e-9)


@pytest.mark.parametrize("groups, match", [
    ([0, 1], r"groups has shape \(2,\), the expression has 3 entries"),
    ([0, -2, 1], r"groups contains -2"),
    ([0.5, 0, 1], r"groups must be integers"),
    ([-1, -1, -1], r"every entry is left out"),
])
def test_group_validation_messages(groups, match):
    m, x = fixed_model([1.0, 2.0, 3.0])
    for operator in (m.group_sum, m.group_mean, m.group_max):
        with pytest.raises(ValueError, match=match):
            operator(x, groups)


def test_new_variables_get_unique_names():
    m, x = fixed_model([1.0, 2.0])
    m.variable("_aux2", 1)  # a user block with an automatic-looking name
    names = [m.positive_part(x).name, m.abs(x).name, m.maximum(x).name]
    assert len(set(names)) == 3 and "_aux2" not in names
    with pytest.raises(ValueError, match="declared twice"):
        m.maximum(x, name="x")
