"""Convexity checked at build time (disciplined convex programming) and a Problem that refuses
non-convex or non-finite data.

Oracles: cvxpy's ``is_dcp()`` on the same expression trees written with cvxpy's atoms (``abs``,
``pos``, ``max``, ``sum_largest``), cvxpy (Clarabel) optima of the same tiny models, and numpy /
scipy eigenvalues for the quadratic terms.
"""

from __future__ import annotations

import os
import sys

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp

import aucopt
from aucopt import Model, PairSet, Problem, solve
from aucopt.exceptions import ConvexityError
from aucopt.modeling import formulation

sys.path.insert(0, os.path.dirname(__file__))
from formulation_cases import CASES


def tiny_model():
    return Model(PairSet.bipartite([1, 0]))


def optimum(m, solver="clarabel"):
    result = solve(m.build(), solver)
    result.raise_for_status()
    return result.objective


def cvxpy_optimum(objective, constraints=()):
    problem = cp.Problem(cp.Minimize(objective), list(constraints))
    problem.solve(solver="CLARABEL")
    assert problem.status == "optimal"
    return problem.value


# ----------------------------------------------------------------------------- the model layer


@formulation("bad_abs_lower_bound", kind="lp")
def bad(m, C=1.0):
    a = m.variable("alpha", m.n_basis, lower=0)
    z = m.variable("z", m.n_pairs, lower=0)
    f = m.scores(a)
    m.minimize(a.sum() + C * z.sum())
    m.subject_to(m.abs(m.pair_difference(f)) + z >= 1)   # convex >= 1: not a convex set


def test_abs_bounded_from_below_is_refused_with_the_statement_operator_side_and_fix():
    with pytest.raises(ConvexityError) as caught:
        bad.build(PairSet.bipartite([1, 0, 0, 1]), np.eye(4))
    message = str(caught.value)
    assert isinstance(caught.value, ValueError)
    assert "m.subject_to(m.abs(m.pair_difference(f)) + z >= 1)" in message  # the caller's source line
    assert "formulation 'bad_abs_lower_bound'" in message and "test_convexity.py:" in message
    assert "abs(...) is convex" in message and "`>= 1` needs a concave expression" in message
    assert "abs(expr) >= 1 is not a convex set; bound abs by above (abs(expr) <= b)" in message
    assert "\n" not in message


def test_exported_and_documented():
    assert aucopt.ConvexityError is ConvexityError and "ConvexityError" in aucopt.__all__
    assert issubclass(ConvexityError, ValueError)


@pytest.mark.parametrize("product", [lambda x, y: x * y, lambda x, y: x @ y, lambda x, y: y * x,
                                     lambda x, y: x[0] * y, lambda x, y: tiny_sq(x) * y])
def test_products_of_expressions_are_refused(product):
    m = tiny_model()
    x, y = m.variable("x", 2), m.variable("y", 2)
    with pytest.raises(ConvexityError, match="multiplies two expressions"):
        product(x, y)


def tiny_sq(x):
    return x.model.sum_squares(x)


@pytest.mark.parametrize("statement", [
    lambda m, x: m.minimize(-m.sum_squares(x)),
    lambda m, x: m.minimize(-1.0 * m.sum_squares(x)),
    lambda m, x: m.minimize(x.sum() - m.sum_squares(x)),
    lambda m, x: m.minimize(m.sum_squares(x) - m.sum_squares(x - 1)),
])
def test_maximizing_a_sum_of_squares_is_refused(statement):
    m = tiny_model()
    x = m.variable("x", 2)
    with pytest.raises(ConvexityError, match=r"sum_squares\(\.\.\.\) is concave"):
        statement(m, x)


@pytest.mark.parametrize("sense", ["<=", ">=", "=="])
def test_quadratic_constraints_are_refused(sense):
    m = tiny_model()
    x = m.variable("x", 2)
    q = m.sum_squares(x)
    with pytest.raises(ConvexityError, match="quadratic constraint"):
        {"<=": lambda: q <= 1, ">=": lambda: q >= 1, "==": lambda: q == 1}[sense]()
    with pytest.raises(ConvexityError, match="quadratic constraint"):
        _ = x[0] <= q


@pytest.mark.parametrize("statement, match", [
    (lambda m, x: m.minimize(-m.abs(x).sum()),
     r"the objective .* abs\(\.\.\.\) is convex and enters it with a negative"),
    (lambda m, x: m.subject_to(m.maximum(x) >= 1), r"max\(expr\) >= 1 asks that some entry reach 1"),
    (lambda m, x: m.subject_to(m.positive_part(x) == 1), r"`== 1` needs an affine expression"),
    (lambda m, x: m.subject_to(-m.sum_largest(x, 1) <= 2), r"sum_largest\(expr, k\) >= -2 is not a convex set"),
    (lambda m, x: m.maximum(-m.abs(x)), r"the argument of maximum .* abs\(\.\.\.\) enters entry 0"),
    (lambda m, x: m.abs(m.maximum(x)), r"the argument of abs .* not known to be non-negative"),
    (lambda m, x: m.sum_squares(m.maximum(x)), r"convex but not known to be non-negative"),
    (lambda m, x: m.lift(m.abs(x)), r"m\.lift\(expr\) .* needs an affine expr"),
])
def test_non_dcp_statements_are_refused_with_a_message(statement, match):
    m = tiny_model()
    x = m.variable("x", 2)
    with pytest.raises(ConvexityError, match=match):
        statement(m, x)


def test_a_refused_call_adds_no_constraint():
    m = tiny_model()
    x = m.variable("x", 2)
    u = m.abs(x)
    rows = len(m._constraints)
    with pytest.raises(ConvexityError):
        m.subject_to(x <= 5, u >= 1)
    assert len(m._constraints) == rows


def test_abs_bounded_from_above_solves_like_cvxpy():
    a = np.array([0.5, -2.0, 4.0])
    m = tiny_model()
    x = m.variable("x", 3)
    m.subject_to(m.abs(x - a) <= 3)
    m.minimize(np.array([1.0, -1.0, 2.0]) @ x)
    xc = cp.Variable(3)
    ref = cvxpy_optimum(np.array([1.0, -1.0, 2.0]) @ xc, [cp.abs(xc - a) <= 3])
    assert optimum(m) == pytest.approx(ref, abs=1e-7)
    assert optimum(m, "highs") == pytest.approx(ref, abs=1e-7)


def test_compositions_accepted_by_dcp_solve_like_cvxpy():
    """positive_part(abs), abs(positive_part) (abs is nondecreasing on non-negative arguments, as
    in cvxpy), abs of a concave non-positive argument and sum_squares(positive_part)."""
    a = np.array([1.0, -0.5, 2.5])
    w = np.array([0.3, -0.2, 0.1])
    m = tiny_model()
    x = m.variable("x", 3, lower=-4, upper=4)
    obj = (m.positive_part(m.abs(x - a) - 1).sum() + m.abs(m.positive_part(2 - x)).sum()
           + 0.5 * m.abs(-m.positive_part(x - 3)).sum() + w @ x)
    m.minimize(obj + m.sum_squares(m.positive_part(x - a[::-1])))
    m.subject_to(x.sum() >= 1)
    xc = cp.Variable(3)
    ref = cvxpy_optimum(cp.sum(cp.pos(cp.abs(xc - a) - 1)) + cp.sum(cp.abs(cp.pos(2 - xc)))
                        + 0.5 * cp.sum(cp.abs(-cp.pos(xc - 3))) + w @ xc + cp.sum_squares(cp.pos(xc - a[::-1])),
                        [cp.sum(xc) >= 1, xc >= -4, xc <= 4])
    assert optimum(m) == pytest.approx(ref, abs=1e-6)
    assert optimum(m, "highs") == pytest.approx(ref, abs=1e-6)


def test_sum_squares_of_a_non_negative_epigraph_variable_and_of_a_concave_non_positive_expression():
    a = np.array([1.0, -1.0, 0.5])
    m = tiny_model()
    x = m.variable("x", 3)
    m.minimize(m.sum_squares(m.positive_part(x - a)) + m.sum_squares(-m.abs(x + 1) - 0.5, weights=[1.0, 2.0, 0.5])
               + m.sum_squares(m.maximum(m.positive_part(x))) - x.sum())
    xc = cp.Variable(3)
    ref = cvxpy_optimum(cp.sum_squares(cp.pos(xc - a))
                        + cp.sum(cp.multiply([1.0, 2.0, 0.5], cp.square(-cp.abs(xc + 1) - 0.5)))
                        + cp.square(cp.max(cp.pos(xc))) - cp.sum(xc))
    assert optimum(m) == pytest.approx(ref, abs=1e-6)


# ----------------------------------------------------------------------------- random trees vs cvxpy
OPERATORS = ["scale", "add", "shift", "abs", "pos", "max", "sum_largest"]
LEAF_PROBABILITY = [0.0, 0.2, 0.4, 0.7, 1.0]  # by depth


def draw(rng, n, depth=0):
    """A random expression tree (nested tuples) over fresh leaves of size n; no shared subtree."""
    if rng.random() < LEAF_PROBABILITY[depth]:
        return ("leaf", bool(rng.random() < 0.5))
    op = OPERATORS[rng.integers(len(OPERATORS))]
    if op == "scale":
        return (op, float(rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 2.0)), draw(rng, n, depth + 1))
    if op == "shift":
        return (op, float(rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 2.0)), draw(rng, n, depth + 1))
    if op == "add":
        return (op, draw(rng, n, depth + 1), draw(rng, n, depth + 1))
    child = draw(rng, n, depth + 1)
    if op == "sum_largest":
        return (op, int(rng.integers(1, size(child, n) + 1)), child)
    return (op, child)


def size(tree, n):
    if tree[0] == "leaf":
        return n
    if tree[0] in ("max", "sum_largest"):
        return 1
    if tree[0] == "add":
        return max(size(tree[1], n), size(tree[2], n))
    return size(tree[-1], n)


def build_ours(tree, m, n):
    kind = tree[0]
    if kind == "leaf":
        return m.variable(f"v{len(m._variables)}", n, lower=0 if tree[1] else None)
    if kind == "scale":
        return tree[1] * build_ours(tree[2], m, n)
    if kind == "shift":
        return build_ours(tree[2], m, n) + tree[1]
    if kind == "add":
        return build_ours(tree[1], m, n) + build_ours(tree[2], m, n)
    if kind == "sum_largest":
        return m.sum_largest(build_ours(tree[2], m, n), tree[1])
    child = build_ours(tree[1], m, n)
    return {"abs": m.abs, "pos": m.positive_part, "max": m.maximum}[kind](child)


def build_cvxpy(tree, n):
    kind = tree[0]
    if kind == "leaf":
        return cp.Variable(n, nonneg=tree[1])
    if kind == "scale":
        return tree[1] * build_cvxpy(tree[2], n)
    if kind == "shift":
        return build_cvxpy(tree[2], n) + tree[1]
    if kind == "add":
        return build_cvxpy(tree[1], n) + build_cvxpy(tree[2], n)
    if kind == "sum_largest":
        return cp.sum_largest(build_cvxpy(tree[2], n), tree[1])
    child = build_cvxpy(tree[1], n)
    return {"abs": cp.abs, "pos": cp.pos, "max": cp.max}[kind](child)


STATEMENTS = {
    "minimize": (lambda m, e, c: m.minimize(e.sum()), lambda e, c: cp.Problem(cp.Minimize(cp.sum(e)))),
    ">=": (lambda m, e, c: m.subject_to(e >= c), lambda e, c: e >= c),
    "<=": (lambda m, e, c: m.subject_to(e <= c), lambda e, c: e <= c),
    "==": (lambda m, e, c: m.subject_to(e == c), lambda e, c: e == c),
}


def test_random_expression_trees_agree_with_cvxpy_is_dcp():
    rng = np.random.default_rng(20240611)
    verdicts, disagreements = {True: 0, False: 0}, []
    n_trees = 1200
    for _ in range(n_trees):
        n = int(rng.integers(2, 4))
        tree = draw(rng, n)
        expr_cvx = build_cvxpy(tree, n)
        m = tiny_model()
        try:
            expr = build_ours(tree, m, n)
        except ConvexityError:
            expr = None  # a non-DCP composition, refused when the operator is called
        for kind, (ours, theirs) in STATEMENTS.items():
            c = float(rng.normal())
            if expr is None:
                accepted = False
            else:
                try:
                    ours(m, expr, c)
                    accepted = True
                except ConvexityError:
                    accepted = False
            expected = bool(theirs(expr_cvx, c).is_dcp())
            verdicts[expected] += 1
            if accepted != expected:
                disagreements.append((tree, kind, accepted, expected))
    assert not disagreements, f"{len(disagreements)} disagreements, e.g. {disagreements[:3]}"
    assert verdicts[True] >= 0.25 * 4 * n_trees and verdicts[False] >= 0.25 * 4 * n_trees, verdicts


# ----------------------------------------------------------------------------- shipped formulations


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_shipped_formulation_builds_without_convexity_error(name):
    problem = CASES[name]()
    assert problem.n_vars > 0


# ----------------------------------------------------------------------------- Problem


def qp(P, **overrides):
    n = P.shape[0]
    kw = dict(c=np.zeros(n), A=sp.csc_matrix((0, n)), row_lower=np.zeros(0), row_upper=np.zeros(0),
              col_lower=-np.ones(n), col_upper=np.ones(n), P=P, blocks={"x": slice(0, n)})
    kw.update(overrides)
    return Problem(**kw)


def test_negative_definite_P_is_refused_before_any_solver(monkeypatch):
    import aucopt.solvers as solvers

    monkeypatch.setattr(solvers, "solve", lambda *a, **k: pytest.fail("a solver ran"))
    with pytest.raises(ConvexityError, match=r"P\[0, 0\] = -1 on x\(0\).*not positive semidefinite"):
        Problem(c=np.zeros(2), A=np.zeros((0, 2)), row_lower=[], row_upper=[], col_lower=[-1, -1],
                col_upper=[1, 1], P=-np.eye(2), blocks={"x": slice(0, 2)})


def test_indefinite_dense_P_names_the_smallest_eigenvalue_and_its_direction():
    P = np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 3.0]])
    with pytest.raises(ConvexityError, match=r"smallest eigenvalue is -1 .*led by x\(\d\) \([+-]0\.71\), x\(\d\)"):
        qp(sp.csc_matrix(P))


@pytest.mark.parametrize("field, value, match", [
    ("c", np.array([0.0, np.nan, 1.0]), r"c has 1 non-finite entry .* at index 1 \(x\(1\)\)"),
    ("c", np.array([np.inf, 0.0, 0.0]), r"c has 1 non-finite entry"),
    ("A", sp.csc_matrix(np.array([[1.0, np.nan, 0.0], [0.0, 1.0, np.nan]])),
     r"A has 2 non-finite entries .* row 0, column 1 \(x\(1\)\)"),
    ("P", sp.csc_matrix(np.diag([1.0, np.nan, 1.0])), r"P has 1 non-finite entry"),
    ("offset", np.nan, r"offset is nan"),
])
def test_non_finite_data_is_refused(field, value, match):
    overrides = {"P": sp.identity(3, format="csc"), field: value}
    if field == "A":
        overrides.update(row_lower=np.zeros(2), row_upper=np.ones(2))
    with pytest.raises(ValueError, match=match):
        qp(**overrides)


def test_asymmetric_P_is_refused():
    with pytest.raises(ValueError, match=r"P is not symmetric.*T \+ T\.T - diag\(T\)"):
        qp(sp.csc_matrix(np.array([[2.0, 1.0], [0.0, 2.0]])))
    qp(sp.csc_matrix(np.array([[2.0, 1.0], [1.0 + 1e-14, 2.0]])))  # rounding is fine


def test_psd_non_diagonal_P_is_accepted_small_and_large():
    rng = np.random.default_rng(0)
    L = rng.normal(size=(50, 10))
    P = L @ L.T  # PSD of rank 10: its zero eigenvalues are ±rounding
    assert np.linalg.eigvalsh(P)[0] < 1e-10
    assert qp(sp.csc_matrix(P)).kind == "QP"
    n = 3000
    L = sp.random(n, n, density=2.0 / n, random_state=1, format="csr") + sp.identity(n)
    L = L[:, : n - 5]  # rank deficient: P is singular
    problem = qp((L @ L.T).tocsc())
    assert problem.P.shape == (n, n)


def test_indefinite_large_sparse_P_is_refused_by_the_factorization():
    n = 3000
    L = sp.random(n, n, density=2.0 / n, random_state=2, format="csr") + sp.identity(n)
    P = (L @ L.T).tolil()
    P[1234, 1234] = -40.0
    with pytest.raises(ConvexityError, match=r"LDLᵀ factorization .* meets the pivot -[\d.]+ at x\(1234\)"):
        qp(P.tocsc())


def test_model_built_qps_keep_a_diagonal_P():
    problem = CASES["ranksvm_squared_hinge"]()
    P = problem.P.tocoo()
    assert np.all(P.row == P.col) and np.all(P.data >= 0)


@pytest.mark.parametrize("text", [
    "Minimize\n obj: x + y + [ -2 x^2 + 2 x * y - 2 y^2 ] / 2\n",
    "Maximize\n obj: x + [ 2 x^2 + 2 y^2 ] / 2\n",
])
def test_non_convex_qp_read_from_a_file_is_refused(tmp_path, text):
    path = tmp_path / "nonconvex.lp"
    path.write_text(text + "Subject To\n r0: x + y >= -1\nBounds\n -1 <= x <= 1\n -1 <= y <= 1\nEnd\n")
    with pytest.raises(ConvexityError, match="not positive semidefinite"):
        Problem.read(str(path))


def test_convex_qp_read_from_a_file_is_accepted(tmp_path):
    path = tmp_path / "convex.lp"
    path.write_text("Minimize\n obj: x + [ 2 x^2 + 2 x * y + 2 y^2 ] / 2\nSubject To\n r0: x + y >= -1\n"
                    "Bounds\n -1 <= x <= 1\n -1 <= y <= 1\nEnd\n")
    assert Problem.read(str(path)).kind == "QP"


def test_non_convex_qp_from_cvxpy_is_refused():
    x = cp.Variable(2, name="x")
    indefinite = np.array([[1.0, 3.0], [3.0, 1.0]])
    model = cp.Problem(cp.Minimize(cp.quad_form(x, indefinite, assume_PSD=True)), [cp.abs(x) <= 1])
    assert model.is_dcp()  # cvxpy takes assume_PSD on trust
    with pytest.raises(ConvexityError, match="smallest eigenvalue"):
        Problem.from_cvxpy(model)
