"""cvxpy and the standard form: a :class:`~aucopt.modeling.Problem` stated in cvxpy, and a cvxpy model read back.

:func:`to_cvxpy` states a problem as a ``cvxpy.Problem`` over one vector variable ``x``;
:func:`cvxpy_fields` canonicalizes a user's cvxpy LP / QP through cvxpy's QP interface (HiGHS,
else OSQP) into the fields of the standard form, which ``Problem.from_cvxpy`` (and
:func:`aucopt.modeling._interop.from_cvxpy`) make a Problem of.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from ._names import _fresh, _sanitize

if TYPE_CHECKING:
    from .problem import Problem

__all__ = ["cvxpy_fields", "to_cvxpy"]


def to_cvxpy(problem: Problem):
    """State the problem in cvxpy: ``(cvxpy_problem, x)`` with ``x`` a cvxpy Variable of size ``n_vars``.

    Parameters
    ----------
    problem : Problem
        The LP or convex QP.

    Returns
    -------
    cvxpy_problem : cvxpy.Problem
        ``minimize ½ xᵀPx + cᵀx + offset`` subject to the equality rows, the finite lower and
        upper row bounds and the finite column bounds; its optimal value is the problem's.
    x : cvxpy.Variable
        The variable vector; after ``cvxpy_problem.solve()``, ``x.value`` is a point for
        :meth:`Problem.output` and :meth:`Problem.block`.

    Raises
    ------
    ValueError
        For data changed in place since the problem was made that are no longer valid
        (:meth:`Problem.validate`; a ``ConvexityError`` for a ``P`` that is no longer positive
        semidefinite, which cvxpy would take on trust).

    See Also
    --------
    from_cvxpy : the way back.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet, get_formulation, solve
    >>> problem = get_formulation("lp_ranker").build(PairSet.bipartite([1, 0, 0]), np.eye(3), C=1.0)
    >>> cvx, x = problem.to_cvxpy()
    >>> round(float(cvx.solve(solver="CLARABEL")), 6), round(solve(problem).objective, 6)
    (1.0, 1.0)
    >>> round(problem.objective(x.value), 6), problem.output(x.value, "coef").shape
    (1.0, (3,))
    """
    import cvxpy as cp

    problem.validate()  # assume_PSD below: data changed in place are checked again
    x = cp.Variable(problem.n_vars, name="x")
    A, lo, hi = problem.A.tocsr(), problem.row_lower, problem.row_upper
    eq = np.flatnonzero(lo == hi)
    ge = np.flatnonzero(np.isfinite(lo) & (lo != hi))
    le = np.flatnonzero(np.isfinite(hi) & (lo != hi))
    constraints = []
    if len(eq):
        constraints.append(A[eq] @ x == lo[eq])
    if len(ge):
        constraints.append(A[ge] @ x >= lo[ge])
    if len(le):
        constraints.append(A[le] @ x <= hi[le])
    for bound, sense in ((problem.col_lower, 1), (problem.col_upper, -1)):
        idx = np.flatnonzero(np.isfinite(bound))
        if len(idx):
            constraints.append(x[idx] >= bound[idx] if sense > 0 else x[idx] <= bound[idx])
    objective = problem.c @ x + problem.offset
    if problem.P is not None:
        objective = objective + 0.5 * cp.quad_form(x, problem.P, assume_PSD=True)
    return cp.Problem(cp.Minimize(objective), constraints), x


def _qp_target(cp) -> str:
    """The cvxpy QP interface whose data (P, q, A, b, F, G, bounds) the conversion reads."""
    for solver in ("HIGHS", "OSQP"):
        if solver in cp.installed_solvers():
            return solver
    raise ValueError("Converting a cvxpy problem needs cvxpy's HIGHS or OSQP interface (pip install highspy "
                     f"or osqp); installed cvxpy solvers: {cp.installed_solvers()}.")


def _stuffed(cvxpy_problem, cp, target: str):
    """cvxpy's QP data of ``cvxpy_problem`` and the column of each original variable id."""
    from cvxpy.reductions.cvx_attr2constr import CvxAttr2Constr

    try:
        data, chain, inverse = cvxpy_problem.get_problem_data(target)
    except (cp.error.DCPError, cp.error.SolverError, cp.error.DPPError) as exc:
        raise ValueError(f"The cvxpy problem is not an LP or a convex QP that aucopt can take (cvxpy: {exc}); "
                         "state it with affine constraints and a linear or convex quadratic objective "
                         "(sum_squares, quad_form).") from None
    new_variable = {}
    for reduction, inv in zip(chain.reductions, inverse, strict=False):
        if isinstance(reduction, CvxAttr2Constr) and isinstance(inv, tuple) and inv:
            new_variable = inv[0]  # original variable id -> the variable that replaced it
    offsets = data["param_prob"].var_id_to_col

    def columns(var):
        new = new_variable.get(var.id, var)
        if new.size != var.size:
            raise ValueError(f"The cvxpy variable {var.name()!r} has attributes ({var.attributes}) that change its "
                             "number of entries; declare a plain variable and state the structure as constraints.")
        if new.id not in offsets:
            return None
        return slice(offsets[new.id], offsets[new.id] + var.size)

    return data, columns


def _affine_map(expr, variables, n_vars: int, cp, target: str):
    """(M, b) with vec(expr) = M x + b over the standard-form columns of ``variables``."""
    expr = cp.Expression.cast_to_const(expr) if not isinstance(expr, cp.Expression) else expr
    if not expr.is_affine():
        raise ValueError(f"An output must be an affine cvxpy expression of the variables; got {expr} "
                         f"(curvature {expr.curvature}).")
    size = int(expr.size)
    if not expr.variables():
        return sp.csr_matrix((size, n_vars)), np.asarray(expr.value, dtype=float).ravel(order="F")
    aux = cp.Problem(cp.Minimize(0), [cp.vec(expr, order="F") == 0])
    data, aux_columns = _stuffed(aux, cp, target)
    M_aux = sp.csr_matrix(data["A"])[:size]
    b = -np.asarray(data["b"], dtype=float)[:size]
    rows, cols, vals = [], [], []
    M_aux = M_aux.tocsc()
    for var in expr.variables():
        src, dst = aux_columns(var), variables.get(var.id)
        if src is None:
            continue
        if dst is None:
            raise ValueError(f"An output uses the cvxpy variable {var.name()!r}, which the problem does not use.")
        block = M_aux[:, src].tocoo()
        rows.append(block.row)
        cols.append(block.col + dst.start)
        vals.append(block.data)
    M = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(size, n_vars))
    return M, b


def _stuffed_rows(data, n: int):
    """(A, row_lower, row_upper, c) from cvxpy's QP data (A x = b, F x <= g) or conic data
    (A x + s = b with s in the zero cone, then the non-negative cone)."""
    if "q" in data:  # QP interface
        A_eq = sp.csr_matrix(data["A"], shape=(len(data["b"]), n))
        F = sp.csr_matrix(data["F"], shape=(len(data["G"]), n))
        b, g = np.asarray(data["b"], float), np.asarray(data["G"], float)
        return (sp.vstack([A_eq, F]).tocsc(), np.r_[b, np.full(len(g), -np.inf)], np.r_[b, g],
                np.asarray(data["q"], float))
    dims = data["dims"]
    b = np.asarray(data["b"], float)
    zero, nonneg = int(dims.zero), int(dims.nonneg)
    if zero + nonneg != len(b):
        raise ValueError(f"The cvxpy problem needs cones beyond linear rows ({dims}); aucopt takes LPs and "
                         "convex QPs only (no norms other than sum_squares, no exp / log / SDP terms).")
    A = sp.csc_matrix(data["A"], shape=(len(b), n))
    lower = np.r_[b[:zero], np.full(nonneg, -np.inf)]
    return A, lower, b.copy(), np.asarray(data["c"], float)




def cvxpy_fields(cvxpy_problem: Any, blocks: dict | None = None, outputs: dict | None = None,
                 name: str | None = None) -> dict[str, Any]:
    """The standard-form fields of an LP or convex QP written in cvxpy: ``Problem(**fields)``.

    The conversion of :func:`aucopt.modeling._interop.from_cvxpy` (see there for the parameters
    and the errors), without making the :class:`~aucopt.modeling.Problem`, so that
    ``Problem.from_cvxpy`` makes one of its own class.
    """
    import cvxpy as cp

    if not isinstance(cvxpy_problem, cp.Problem):
        raise TypeError(f"from_cvxpy expects a cvxpy.Problem; got {type(cvxpy_problem).__name__}.")
    if not cvxpy_problem.variables():
        constants = len(cvxpy_problem.constraints)
        raise ValueError(
            f"The cvxpy problem has no variables (its objective is the constant {cvxpy_problem.objective.expr}"
            + (f", its {constants} constraint(s) are constants too" if constants else "") + "): there is nothing "
            "for a solver to choose, and cvxpy_problem.solve() evaluates it without one. A Problem needs at least "
            "one variable: state the decision variables with cp.Variable and use them in the objective or the "
            "constraints.")
    if not cvxpy_problem.is_dcp():
        raise ValueError("The cvxpy problem is not DCP (cvxpy_problem.is_dcp() is False): aucopt takes convex "
                         "LPs and QPs; see cvxpy's DCP rules.")
    if cvxpy_problem.is_mixed_integer():
        raise ValueError("The cvxpy problem has integer or boolean variables; aucopt solves continuous LPs and QPs "
                         "only: relax them or use a mixed-integer solver.")
    target = _qp_target(cp)
    data, columns = _stuffed(cvxpy_problem, cp, target)
    n = len(data["q"]) if "q" in data else len(data["c"])
    stuffed = data["param_prob"]
    # (P, q, d, A, b) with a quadratic objective, (c, d, A, b) without: d is the constant
    offset = float(stuffed.apply_parameters(quad_obj="P" in data)[-3])

    P = sp.csc_matrix(data["P"], dtype=float) if data.get("P") is not None else None
    if P is not None and P.nnz and sp.tril(P, -1).nnz == 0 and sp.triu(P, 1).nnz:  # one triangle stored
        P = sp.csc_matrix(P + sp.triu(P, 1).T)
    A, row_lower, row_upper, c = _stuffed_rows(data, n)
    lower = data.get("lower_bounds")
    upper = data.get("upper_bounds")
    col_lower = np.full(n, -np.inf) if lower is None else np.asarray(lower, float)
    col_upper = np.full(n, np.inf) if upper is None else np.asarray(upper, float)

    named = {id(v): k for k, v in (blocks or {}).items()}
    variable_columns: dict[int, slice] = {}
    block_slices: dict[str, slice] = {}
    used: set[str] = set()
    for var in sorted(cvxpy_problem.variables(), key=lambda v: (columns(v) or slice(n, n)).start):
        sl = columns(var)
        if sl is None:
            continue
        variable_columns[var.id] = sl
        block_slices[_fresh(_sanitize(named.get(id(var), var.name())), used)] = sl
    out = {key: _affine_map(expr, variable_columns, n, cp, target) for key, expr in (outputs or {}).items()}
    maximize = isinstance(cvxpy_problem.objective, cp.Maximize)
    return dict(c=c, A=A, row_lower=row_lower, row_upper=row_upper, col_lower=col_lower, col_upper=col_upper,
                P=P, offset=offset, blocks=block_slices, outputs=out, name=name or "cvxpy",
                metadata={"sense": "maximize" if maximize else "minimize", "source": "cvxpy"})

