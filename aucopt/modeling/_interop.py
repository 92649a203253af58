"""Interoperability of the standard form: cvxpy models, MPS / CPLEX LP files, solution files.

A :class:`~aucopt.modeling.Problem` leaves aucopt and comes back through four doors:

* :func:`to_cvxpy` states it as a ``cvxpy.Problem`` over one vector variable ``x`` (any solver cvxpy
  knows then solves it); :func:`from_cvxpy` turns a user's LP / QP written with cvxpy expressions
  into the standard form, so that every aucopt backend solves it, and :func:`cvxpy_formulation`
  registers such a model as a named formulation;
* :func:`write_problem` writes a free MPS (``.mps``) or CPLEX LP (``.lp``) file through HiGHS
  (a QP's Hessian included: ``QUADOBJ`` / ``[ ... ]/2``), which Gurobi, CPLEX, MOSEK, HiGHS and
  SCIP read; :func:`read_problem` reads one back;
* :func:`read_solution` reads the primal point another solver wrote for that file: HiGHS's
  ``writeSolution`` output, or the plain ``name value`` per line of Gurobi's ``.sol`` files.

Names
-----
Column ``k`` of the variable block ``alpha`` is named ``alpha(k)`` (the block name reduced to
letters, digits, ``_`` and ``.``, and not starting with a digit or ``.``), so the files are valid
MPS and CPLEX LP and a solution file maps back by name; columns outside every block are
``_x(j)``, row ``i`` is ``r(i)``. Reading a file recovers the blocks from such names.
"""

from __future__ import annotations

import os
import re

import numpy as np
import scipy.sparse as sp

from ._model import _REGISTRY, Formulation
from .problem import Problem

__all__ = [
    "column_names",
    "cvxpy_formulation",
    "from_cvxpy",
    "read_problem",
    "read_solution",
    "row_names",
    "to_cvxpy",
    "write_problem",
]

INF = 1e30
"""HiGHS's infinity: bounds at or beyond it are ±inf."""

FILE_FORMATS = {".mps": "free MPS", ".lp": "CPLEX LP"}
"""The model file formats by suffix."""

_INDEXED = re.compile(r"^(.+)\((\d+)\)$")


# ============================================================================ names
def _sanitize(name: str) -> str:
    """A block name reduced to characters valid in MPS and CPLEX LP names."""
    text = re.sub(r"[^A-Za-z0-9_.]", "_", str(name)) or "_"
    return "_" + text if text[0].isdigit() or text[0] == "." else text


def _fresh(base: str, used: set) -> str:
    """``base`` with ``_`` appended until it is not in ``used``; added to ``used``."""
    while base in used:
        base += "_"
    used.add(base)
    return base


def column_names(problem: Problem) -> list[str]:
    """The column names used in files: ``block(k)`` per block entry, ``_x(j)`` outside the blocks.

    A problem read from a file keeps the file's names (``metadata["column_names"]``).

    Parameters
    ----------
    problem : Problem
        The problem.

    Returns
    -------
    list of str
        ``problem.n_vars`` unique names.

    Examples
    --------
    >>> from aucopt import PairSet, get_formulation
    >>> from aucopt.modeling._interop import column_names
    >>> problem = get_formulation("lp_ranker").build(PairSet.bipartite([1, 0]), [[1.0, 0.0], [0.0, 1.0]])
    >>> column_names(problem)
    ['alpha(0)', 'alpha(1)', 'z(0)', 'scores(0)', 'scores(1)']
    """
    given = problem.metadata.get("column_names")
    if given is not None and len(given) == problem.n_vars:
        return list(given)
    names: list[str | None] = [None] * problem.n_vars
    used: set[str] = set()
    for block, sl in sorted(problem.blocks.items(), key=lambda item: item[1].start):
        base = _fresh(_sanitize(block), used)  # two block names may sanitize alike
        for k, j in enumerate(range(*sl.indices(problem.n_vars))):
            names[j] = f"{base}({k})"
    free = _fresh("_x", used)
    return [name if name is not None else f"{free}({j})" for j, name in enumerate(names)]


def row_names(problem: Problem) -> list[str]:
    """The row names used in files: ``r(i)``, or the names a file was read with.

    Parameters
    ----------
    problem : Problem
        The problem.

    Returns
    -------
    list of str
        ``problem.n_rows`` names.
    """
    given = problem.metadata.get("row_names")
    if given is not None and len(given) == problem.n_rows:
        return list(given)
    return [f"r({i})" for i in range(problem.n_rows)]


def _blocks_from_names(names) -> dict[str, slice]:
    """Blocks ``name(0), name(1), ...`` (consecutive columns, indices from 0) found in ``names``."""
    blocks: dict[str, slice] = {}
    seen: set[str] = set()
    j, n = 0, len(names)
    while j < n:
        match = _INDEXED.match(names[j])
        if not match or int(match.group(2)) != 0 or match.group(1) in seen:
            if match:
                seen.add(match.group(1))
            j += 1
            continue
        base, start = match.group(1), j
        while j < n and names[j] == f"{base}({j - start})":
            j += 1
        seen.add(base)
        blocks[base] = slice(start, j)
    return blocks


def _block_order(names):
    """The column permutation that puts every block ``base(0), base(1), ...`` in index order.

    Blocks keep the order of their first column. None when the permutation is the identity or
    some name is not of the form ``base(k)`` with each base's indices exactly 0, 1, ..., size − 1.
    """
    groups: dict[str, list[tuple[int, int]]] = {}
    for j, col in enumerate(names):
        match = _INDEXED.match(col)
        if not match:
            return None
        groups.setdefault(match.group(1), []).append((int(match.group(2)), j))
    order = []
    for members in groups.values():
        members.sort()
        if [k for k, _ in members] != list(range(len(members))):
            return None
        order += [j for _, j in members]
    order = np.asarray(order, dtype=np.int64)
    return None if np.array_equal(order, np.arange(len(names))) else order


# ============================================================================ cvxpy
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


def from_cvxpy(cvxpy_problem, blocks=None, outputs=None, name: str | None = None) -> Problem:
    """Turn an LP or convex QP written in cvxpy into aucopt's standard form.

    cvxpy canonicalizes the problem for its QP interfaces (HiGHS, else OSQP); the resulting
    ``½ xᵀPx + qᵀx + d``, ``A x = b``, ``F x ≤ g`` and variable bounds become a :class:`Problem`
    that every aucopt backend solves. Each cvxpy variable becomes a block (its entries in
    column-major order, cvxpy's ``vec``); auxiliary columns cvxpy introduces belong to no block.

    Parameters
    ----------
    cvxpy_problem : cvxpy.Problem
        A DCP problem with an affine or convex quadratic objective and affine constraints,
        without integer variables. ``Maximize(f)`` becomes ``minimize −f``.
    blocks : dict of str to cvxpy.Variable, default=None
        Block names for variables; a variable left out is named by ``variable.name()``
        (reduced to letters, digits, ``_`` and ``.``; made unique).
    outputs : dict of str to cvxpy expression, default=None
        Affine maps of the variables to record as ``Problem.outputs`` (e.g.
        ``{"coef": cp.multiply(y, alpha)}``), evaluated by :meth:`Problem.output`.
    name : str, default=None
        ``Problem.name``; "cvxpy" when None.

    Returns
    -------
    Problem
        ``metadata["sense"]`` is ``"minimize"`` or ``"maximize"`` (the objective is then negated).

    Raises
    ------
    TypeError
        When ``cvxpy_problem`` is not a ``cvxpy.Problem``.
    ValueError
        For a problem without variables (a constant objective: cvxpy evaluates it without a
        solver), a problem that is not DCP, not an LP / convex QP (e.g. second-order cone
        constraints), has integer variables, variables whose attributes change their size
        (``symmetric``, ``diag``), or a non-affine output.

    See Also
    --------
    to_cvxpy : the way there.
    cvxpy_formulation : register a function returning a cvxpy problem as a formulation.

    References
    ----------
    .. [1] Diamond, S., & Boyd, S. (2016). CVXPY: A Python-embedded modeling language for convex
       optimization. *JMLR*, 17(83), 1–5.

    Examples
    --------
    >>> import cvxpy as cp
    >>> from aucopt import solve
    >>> from aucopt.modeling import Problem
    >>> w = cp.Variable(2, name="w")
    >>> model = cp.Problem(cp.Minimize(cp.sum_squares(w) - w[0]), [w[0] + w[1] >= 1])
    >>> problem = Problem.from_cvxpy(model, outputs={"total": cp.sum(w)})
    >>> problem
    Problem('cvxpy', QP, 2 variables (w[2]), 1 rows, 4 nonzeros)
    >>> result = solve(problem, "highs")
    >>> round(result.objective, 6), problem.block(result.x, "w").round(6), problem.output(result.x, "total").round(6)
    (-0.125, array([0.75, 0.25]), array([1.]))
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
    variable_columns, block_slices, used = {}, {}, set()
    for var in sorted(cvxpy_problem.variables(), key=lambda v: (columns(v) or slice(n, n)).start):
        sl = columns(var)
        if sl is None:
            continue
        variable_columns[var.id] = sl
        block_slices[_fresh(_sanitize(named.get(id(var), var.name())), used)] = sl
    out = {key: _affine_map(expr, variable_columns, n, cp, target) for key, expr in (outputs or {}).items()}
    maximize = isinstance(cvxpy_problem.objective, cp.Maximize)
    return Problem(c=c, A=A, row_lower=row_lower, row_upper=row_upper, col_lower=col_lower, col_upper=col_upper,
                   P=P, offset=offset, blocks=block_slices, outputs=out, name=name or "cvxpy",
                   metadata={"sense": "maximize" if maximize else "minimize", "source": "cvxpy"})


def cvxpy_formulation(name: str | None = None, *, kind: str = "lp", nnz=None, params: dict | None = None):
    """Decorator registering ``func(pairs, kernel, **params) -> cvxpy.Problem`` as a named formulation.

    The function states the model with cvxpy expressions; it may return ``(cvxpy_problem,
    outputs)`` with ``outputs`` as in :func:`from_cvxpy` (e.g. ``{"coef": ...}``, which the
    estimators and :func:`~aucopt.modeling.compare_solvers` read). ``Formulation.build(pairs,
    kernel, **params)`` then converts it with :func:`from_cvxpy`, and every backend solves it.

    Parameters
    ----------
    name : str, default=None
        Registry name; the function's name when None.
    kind : {"lp", "qp"}, default="lp"
        The problem kind it emits.
    nnz : callable, default=None
        ``nnz(n_points, n_pairs, n_basis, lifted) -> int``, as in :func:`~aucopt.modeling.formulation`.
    params : dict, default=None
        The constraints of the function's parameters (after ``pairs`` and ``kernel``), as in
        :func:`~aucopt.modeling.formulation`; checked before every build.

    Returns
    -------
    callable
        The decorator; it returns the registered formulation.

    See Also
    --------
    from_cvxpy, aucopt.modeling.formulation

    Examples
    --------
    The LP Ranker of Ataman (2007), eq. 3.3, in cvxpy:

    >>> import cvxpy as cp
    >>> import numpy as np
    >>> from aucopt import PairSet, get_formulation, solve
    >>> from aucopt.modeling import cvxpy_formulation
    >>> from numbers import Real
    >>> from sklearn.utils._param_validation import Interval
    >>> @cvxpy_formulation("lp_ranker_in_cvxpy", kind="lp", params={"C": [Interval(Real, 0, np.inf, closed="neither")]})
    ... def lp_ranker_in_cvxpy(pairs, kernel, C=1.0):
    ...     i, j, w = pairs.to_arrays()
    ...     alpha = cp.Variable(kernel.shape[1], nonneg=True, name="alpha")
    ...     z = cp.Variable(len(w), nonneg=True, name="z")
    ...     f = kernel @ cp.multiply(pairs.signs, alpha)
    ...     model = cp.Problem(cp.Minimize(cp.sum(alpha) + C * (w @ z)), [f[i] - f[j] + z >= 1])
    ...     return model, {"coef": cp.multiply(pairs.signs, alpha)}
    >>> pairs, K = PairSet.bipartite([1, 0, 0, 1]), np.eye(4)
    >>> ours = solve(get_formulation("lp_ranker_in_cvxpy").build(pairs, K, C=1.0)).objective
    >>> reference = solve(get_formulation("lp_ranker").build(pairs, K, C=1.0)).objective
    >>> round(ours, 9), round(reference, 9)
    (2.0, 2.0)
    """
    def register(func):
        form = CvxpyFormulation(func, name or func.__name__, kind, nnz, params)
        _REGISTRY[form.name] = form
        return form

    return register


class CvxpyFormulation(Formulation):
    """A formulation written in cvxpy: ``func(pairs, kernel, **params) -> cvxpy.Problem``.

    Made by :func:`cvxpy_formulation`; :meth:`build` converts the cvxpy problem with
    :func:`from_cvxpy`.

    Parameters
    ----------
    func : callable
        ``func(pairs, kernel, **params)`` returning a cvxpy Problem, or ``(problem, outputs)``.
    name : str
        Registry name.
    kind : {"lp", "qp"}
        The problem kind it emits.
    nnz : callable, default=None
        The declared size, as for :class:`~aucopt.modeling.Formulation`.
    params : dict, default=None
        The declared constraints of the parameters, as for :class:`~aucopt.modeling.Formulation`.

    See Also
    --------
    cvxpy_formulation : the decorator.

    Examples
    --------
    >>> import cvxpy as cp
    >>> from aucopt.modeling import CvxpyFormulation
    >>> form = CvxpyFormulation(lambda pairs, kernel: cp.Problem(cp.Minimize(0)), "nothing", "lp")
    >>> form
    CvxpyFormulation('nothing', lp)
    """

    _context_args = 2  # func(pairs, kernel, **params)

    def __call__(self, m, **params):
        raise TypeError(f"The formulation {self.name!r} is written in cvxpy: call .build(pairs, kernel, **params), "
                        "not the formulation on a Model.")

    def build(self, pairs, kernel=None, *, factor=None, lifted: bool = True, max_bytes=None, **params) -> Problem:
        """Call the cvxpy function on ``pairs`` and ``kernel`` and convert its problem.

        Parameters
        ----------
        pairs : PairSet
            The pairs to rank.
        kernel : array-like, default=None
            Kernel matrix, passed to the function as an ndarray.
        factor, lifted, max_bytes
            Accepted for the interface of :meth:`Formulation.build`; unused.
        **params
            The function's own parameters.

        Returns
        -------
        Problem
            Named after the formulation, with metadata ``n_points`` and ``n_pairs``.

        Raises
        ------
        ValueError
            For a parameter the function does not take or a value outside its declared
            constraints (:meth:`~aucopt.modeling.Formulation.validate_params`), or a kernel with
            a NaN or infinite entry, before the function is called.
        """
        from ._model import check_kernel_values

        params = self.validate_params(params)
        pairs.check_nonempty()
        K = None if kernel is None else np.asarray(kernel, dtype=float)
        check_kernel_values(K, None, self.name)
        made = self.func(pairs, K, **params)
        model, outputs = made if isinstance(made, tuple) else (made, None)
        problem = from_cvxpy(model, outputs=outputs, name=self.name)
        problem.metadata.update(n_points=pairs.n_points, n_pairs=pairs.n_pairs, pair_target=pairs.target)
        return problem

    def __repr__(self):
        return f"CvxpyFormulation({self.name!r}, {self.kind})"


# ============================================================================ files
def _file_format(path) -> str:
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    if suffix not in FILE_FORMATS:
        raise ValueError(f"Unknown model file type {suffix or '(none)'!r} of {os.fspath(path)!r}: use "
                         + " or ".join(f"{s} ({k})" for s, k in FILE_FORMATS.items()) + ".")
    return suffix


def _highs():
    import highspy

    from ..solvers.highs import _new_highs

    h = _new_highs(highspy)
    h.setOptionValue("output_flag", False)
    return h, highspy


def _to_highs(problem: Problem):
    """A silent HiGHS instance holding ``problem`` with its column and row names."""
    from ..solvers.highs import pass_problem

    h, highspy = _highs()
    pass_problem(h, highspy, problem)
    for j, col in enumerate(column_names(problem)):
        h.passColName(j, col)
    for i, row in enumerate(row_names(problem)):
        h.passRowName(i, row)
    return h, highspy


def write_problem(problem: Problem, path) -> str:
    """Write the problem to a free MPS (``.mps``) or CPLEX LP (``.lp``) file through HiGHS.

    Parameters
    ----------
    problem : Problem
        The LP or convex QP; a QP's Hessian is written too (``QUADOBJ`` in MPS).
    path : str or path-like
        The file; its suffix chooses the format.

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    ValueError
        For a suffix other than ``.mps`` or ``.lp``, or data changed in place since the problem
        was made that are no longer valid (:meth:`Problem.validate`: e.g. a NaN cost, which
        would be written as ``nan`` and make the file unreadable), before the file is touched.
    OSError
        When HiGHS cannot write the file.

    See Also
    --------
    read_problem, read_solution, column_names

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from aucopt import PairSet, get_formulation
    >>> from aucopt.modeling import Problem
    >>> problem = get_formulation("lp_ranker").build(PairSet.bipartite([1, 0, 0]), np.eye(3))
    >>> path = os.path.join(tempfile.mkdtemp(), "ranker.mps")
    >>> _ = problem.write(path)
    >>> Problem.read(path)
    Problem('ranker', LP, 8 variables (alpha[3], z[2], scores[3]), 5 rows, 12 nonzeros)
    """
    path = os.fspath(path)
    _file_format(path)
    problem.validate()
    h, highspy = _to_highs(problem)
    status = h.writeModel(path)
    if status == highspy.HighsStatus.kError or not os.path.exists(path):
        raise OSError(f"HiGHS could not write the model file {path!r}; check that its directory exists and is "
                      "writable.")
    return path


def read_problem(path, name: str | None = None) -> Problem:
    """Read an MPS or CPLEX LP file (through HiGHS) into a :class:`Problem`.

    Parameters
    ----------
    path : str or path-like
        A ``.mps`` or ``.lp`` file, e.g. written by :func:`write_problem` or another solver.
    name : str, default=None
        ``Problem.name``; the file's model name, else its base name.

    Returns
    -------
    Problem
        Minimization form (a maximization objective is negated, ``metadata["sense"]`` says so);
        blocks recovered from names ``block(k)`` (an LP file lists columns by first appearance:
        when every name is of that form, each block is put back in index order, blocks in the
        order of their first column); the file's names in
        ``metadata["column_names"]`` and ``metadata["row_names"]``. A file holds no outputs.

    Raises
    ------
    ValueError
        For an unknown suffix, a file HiGHS cannot read (the message quotes HiGHS's errors), a
        file without variables (an empty file), integer columns, or entries HiGHS would leave
        out or merge: a row named in the COLUMNS, RHS or RANGES section of an MPS file that its
        ROWS section does not declare, an entry or a bound given twice, two rows or two columns
        of the same name (the message names the file, the line and the name).

    See Also
    --------
    write_problem
    """
    path = os.fspath(path)
    suffix = _file_format(path)
    if not os.path.isfile(path):
        raise ValueError(f"Model file not found: {path!r}.")
    with open(path, "rb") as fh:
        if not fh.read(1 << 16).strip() and not fh.read(1):
            raise ValueError(f"The model file {path!r} is empty: there is nothing to read. Write the model again "
                             f"(Problem.write) or check that this is the intended {FILE_FORMATS[suffix]} file.")
    h, highspy = _highs()
    status, messages = _read_model(h, highspy, path)
    if status == highspy.HighsStatus.kError:
        errors = [text for kind, text in messages if kind == "ERROR"]
        said = f" (HiGHS: {'; '.join(errors[:3])})" if errors else ""
        raise ValueError(f"HiGHS could not read the model file {path!r}{said}; check that it is valid "
                         f"{FILE_FORMATS[suffix]}.")
    _refuse_dropped_entries(path, [text for kind, text in messages if kind == "WARNING"])
    model = h.getModel()
    lp = model.lp_
    n, k = int(lp.num_col_), int(lp.num_row_)
    if n == 0:
        raise ValueError(f"The model file {path!r} declares no variables ({k} row(s)): there is nothing to "
                         "optimize. Write the model again (Problem.write) or check that this is the intended "
                         f"{FILE_FORMATS[suffix]} file.")
    integrality = np.asarray(lp.integrality_, dtype=int) if len(lp.integrality_) else np.zeros(0, int)
    if np.any(integrality != 0):
        raise ValueError(f"The model file {path!r} declares {int(np.count_nonzero(integrality))} integer column(s); "
                         "aucopt solves continuous LPs and QPs only.")
    matrix = lp.a_matrix_
    data = (np.asarray(matrix.value_, float), np.asarray(matrix.index_, np.int64), np.asarray(matrix.start_, np.int64))
    A = (sp.csc_matrix(data, shape=(k, n)) if matrix.format_ == highspy.MatrixFormat.kColwise
         else sp.csr_matrix(data, shape=(k, n)).tocsc())
    P = None
    hessian = model.hessian_
    if int(hessian.dim_) > 0 and len(hessian.value_):
        d = int(hessian.dim_)
        Q = sp.csc_matrix((np.asarray(hessian.value_, float), np.asarray(hessian.index_, np.int64),
                           np.asarray(hessian.start_, np.int64)), shape=(d, d))
        if hessian.format_ == highspy.HessianFormat.kTriangular:
            Q = Q + sp.tril(Q, -1).T
        Q = Q.tocoo()
        P = sp.csc_matrix((Q.data, (Q.row, Q.col)), shape=(n, n))
    c, offset = np.asarray(lp.col_cost_, float), float(lp.offset_)
    maximize = lp.sense_ == highspy.ObjSense.kMaximize
    if maximize:
        c, offset, P = -c, -offset, (None if P is None else -P)

    def bounds(v):
        v = np.asarray(v, float)
        return np.where(v >= INF, np.inf, np.where(v <= -INF, -np.inf, v))

    col_lower, col_upper = bounds(lp.col_lower_), bounds(lp.col_upper_)
    cols, rows = list(lp.col_names_), list(lp.row_names_)
    order = _block_order(cols) if len(cols) == n else None
    if order is not None:  # an LP file lists columns by first appearance: put each block back in order
        cols = [cols[j] for j in order]
        c, A, col_lower, col_upper = c[order], A[:, order], col_lower[order], col_upper[order]
        P = None if P is None else sp.csc_matrix(P[order][:, order])
    metadata = {"source": path, "sense": "maximize" if maximize else "minimize"}
    if len(cols) == n:
        metadata["column_names"] = cols
    if len(rows) == k:
        metadata["row_names"] = rows
    label = name or lp.model_name_ or os.path.splitext(os.path.basename(path))[0]
    return Problem(c=c, A=A, row_lower=bounds(lp.row_lower_), row_upper=bounds(lp.row_upper_),
                   col_lower=col_lower, col_upper=col_upper, P=P, offset=offset,
                   blocks=_blocks_from_names(cols) if len(cols) == n else {}, name=label, metadata=metadata)


def _read_model(h, highspy, path):
    """``h.readModel(path)`` with the reader's log captured: ``(status, [(kind, text), ...])``.

    The log goes to a temporary file (``log_file``, nothing on the console); ``kind`` is
    ``"WARNING"`` or ``"ERROR"``, ``text`` HiGHS's message.
    """
    import tempfile

    fd, log = tempfile.mkstemp(prefix="aucopt-highs-", suffix=".log")
    os.close(fd)
    try:
        h.setOptionValue("log_to_console", False)
        h.setOptionValue("log_file", log)
        h.setOptionValue("output_flag", True)
        try:
            status = h.readModel(path)
        finally:
            h.setOptionValue("output_flag", False)
            h.setOptionValue("log_file", "")
        with open(log, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    finally:
        try:
            os.remove(log)
        except OSError:  # pragma: no cover - a file still held open (Windows)
            pass
    messages = [(m.group(1), m.group(2).strip()) for m in re.finditer(r"^(WARNING|ERROR):\s*(.*)$", text, re.M)]
    return status, messages


#: HiGHS reader warnings about entries it leaves out (or, for names given twice, attaches to
#: the first row or column of that name): pattern, MPS section, the name's occurrence that
#: is wrong, and the reason in words
_DROPPED = (
    (re.compile(r'Row name "(?P<row>.+)" in (?P<section>\w+) section is not (?:defined|valid)'), None, 1,
     "names the row {row!r}, which the ROWS section does not declare"),
    (re.compile(r'Row name "(?P<row>.+)" in (?P<section>\w+) section has duplicate value'), None, 2,
     "gives the row {row!r} a second value"),
    (re.compile(r'Column "(?P<col>.+)" has duplicate nonzero \S+ in (?:objective )?row "(?P<row>.+)"'), "COLUMNS", 2,
     "gives the column {col!r} a second coefficient in the row {row!r}"),
    (re.compile(r'Column name "(?P<col>.+)" in BOUNDS section has duplicate (?P<side>\w+) bound'), "BOUNDS", 2,
     "gives the column {col!r} a second {side} bound"),
    (re.compile(r'Linear constraints \d+ and \d+ have the same name "(?P<row>.+)"'), "ROWS", 2,
     "declares a second row named {row!r}"),
    (re.compile(r'Variables \d+ and \d+ have the same name "(?P<col>.+)"'), "COLUMNS", 2,
     "starts the column {col!r} again after other columns (a second column of that name)"),
)


def _mps_lines(path, section):
    """``(line number, tokens, text)`` of the data lines of an MPS file's ``section``."""
    current = None
    with open(path, encoding="utf-8", errors="replace") as fh:
        for number, text in enumerate(fh, start=1):
            if not text.strip() or text.startswith("*"):
                continue
            if not text[0].isspace():
                current = text.split()[0].upper()
                continue
            if current == section:
                yield number, text.split(), text.rstrip("\n")


def _locate(path, section, occurrence, groups):
    """``(line number, text)`` where the named row / column occurs for the ``occurrence``-th time, or None."""
    row, col = groups.get("row"), groups.get("col")
    seen, previous = 0, None
    for number, tokens, text in _mps_lines(path, section):
        if section == "COLUMNS" and "MARKER" in (t.strip("'\"").upper() for t in tokens):
            continue
        if section == "COLUMNS" and col is not None and row is None:  # a column that starts again
            seen += tokens[0] == col and previous != col
            previous = tokens[0]
        elif section == "COLUMNS":
            if col is not None and tokens[0] != col:
                continue
            seen += tokens[1::2].count(row)
        elif section == "ROWS":
            seen += tokens[1:2] == [row]
        else:  # RHS, RANGES, BOUNDS and the quadratic sections: the name anywhere after the first field
            seen += tokens[1:].count(row if row is not None else col) + (tokens[0] == row and row is not None)
        if seen >= occurrence:
            return number, text.strip()
    return None


def _refuse_dropped_entries(path, warnings) -> None:
    """ValueError when HiGHS's reader left entries of the model file out (its warnings say so)."""
    dropped = [text for text in warnings if "ignored" in text or "have the same name" in text]
    if not dropped:
        return
    summaries = [text for text in dropped if re.match(r"\w+ section: ignored", text)]
    detail = next((text for text in dropped if text not in summaries), dropped[0])
    what = f"HiGHS reports {detail!r}"
    for pattern, section, occurrence, words in _DROPPED:
        match = pattern.search(detail)
        if match:
            groups = match.groupdict()
            section = section or groups["section"].upper()
            found = _locate(path, section, occurrence, groups)
            where = (f"line {found[0]} ({found[1]!r}), in the {section} section," if found
                     else f"its {section} section")
            what = f"{where} {words.format(**groups)}"
            break
    counts = f" (HiGHS: {'; '.join(summaries)})" if summaries else ""
    raise ValueError(
        f"The model file {path!r} is not consistent: {what}; HiGHS would leave such entries out or attach them to "
        f"another row or column{counts}, and the problem read would not be the one written. Correct the file: "
        "every row named in the COLUMNS, RHS and RANGES sections declared in ROWS, each entry, bound and name "
        "given once.")


# ============================================================================ solutions
class _SolutionFile:
    """The lines of a solution file, with messages that name the file and the line."""

    def __init__(self, path: str):
        self.path = path
        with open(path, encoding="utf-8", errors="replace") as fh:
            self.lines = fh.read().splitlines()

    def line_error(self, number: int, why: str) -> ValueError:
        text = self.lines[number - 1].strip() if 0 < number <= len(self.lines) else ""
        return ValueError(f"Line {number} of the solution file {self.path!r} is {text!r}: {why}.")

    def number(self, text: str, number: int) -> float:
        """``float(text)``, a finite number, or a ValueError naming the file and the line."""
        try:
            value = float(text)
        except ValueError:
            raise self.line_error(number, f"{text!r} is not a number (a solution file gives one finite value "
                                          "per column)") from None
        if not np.isfinite(value):
            raise self.line_error(number, f"the value {text!r} is not finite (a point has finite values only)")
        return value

    def cut_short(self, what: str) -> ValueError:
        return ValueError(f"The solution file {self.path!r} is cut short: {what}; the columns it does not list "
                          "would read as 0. Write the solution file again (HiGHS: h.writeSolution(path)).")


def _parse_highs_raw(sol: _SolutionFile):
    """``(entries, objective)`` of a HiGHS ``writeSolution`` file, raw style (dense or sparse).

    Its primal section is a status line (``None`` when there is no point), ``Objective v``,
    ``# Columns N`` (``-N`` when only the N nonzeros follow, as ``name value index``) and N
    lines ``name value``. Entries are ``(name, value, line number, column index)``.
    """
    lines = sol.lines
    start = next((k for k, line in enumerate(lines) if line.strip().lower() == "# primal solution values"), None)
    if start is None:
        raise sol.cut_short("it begins like a HiGHS solution file ('Model status') but has no '# Primal solution "
                            "values' section")
    k = next((j for j in range(start + 1, len(lines)) if lines[j].strip()), None)
    if k is None:
        raise sol.cut_short(f"it ends after its '# Primal solution values' line (line {start + 1})")
    if lines[k].strip().lower() == "none":
        status = lines[1].strip() if len(lines) > 1 and lines[0].strip() == "Model status" else "not given"
        raise ValueError(f"The solution file {sol.path!r} holds no primal point: HiGHS wrote 'None' under '# Primal "
                         f"solution values' (line {k + 1}; model status {status!r}), as it does when a solve ends "
                         "without a point. Solve the model to a point (e.g. with a longer time limit) and write its "
                         "solution then.")
    objective, header = None, None
    for j in range(k + 1, len(lines)):
        text = lines[j].strip()
        if text.startswith("#"):
            header = j if re.match(r"#\s*Columns\b", text) else None
            break
        match = re.match(r"Objective\s+(\S+)$", text)
        if match:
            objective = (sol.number(match.group(1), j + 1), j + 1)
    if header is None:
        raise sol.cut_short(f"its primal section (line {start + 1}) has no '# Columns N' line")
    match = re.match(r"#\s*Columns\s+(-?\d+)", lines[header].strip())
    if not match:
        raise sol.line_error(header + 1, "expected '# Columns N', N the number of column values that follow")
    declared = int(match.group(1))
    count, sparse = abs(declared), declared < 0
    entries = []
    for t in range(count):
        j = header + 1 + t
        text = lines[j].strip() if j < len(lines) else ""
        if not text or text.startswith("#"):
            raise sol.cut_short(f"its line {header + 1} ({lines[header].strip()!r}) announces {count} column "
                                f"value(s) but {t} follow")
        parts = text.split()
        if sparse:
            if len(parts) != 3 or not parts[2].isdigit():
                raise sol.line_error(j + 1, "expected 'name value index' (a sparse HiGHS solution)")
            index = int(parts[2])
        elif len(parts) not in (1, 2):
            raise sol.line_error(j + 1, "expected 'name value' (a HiGHS solution)")
        else:
            index = t
        name = parts[0] if len(parts) > 1 else ""
        entries.append((name, sol.number(parts[1] if len(parts) > 1 else parts[0], j + 1), j + 1, index))
    return entries, objective


def _parse_highs_pretty(sol: _SolutionFile):
    """``(entries, objective)`` of a HiGHS ``writeSolution`` file, pretty style (style 1).

    The ``Columns`` table is fixed-width (``Index Status Lower Upper Primal Dual [Type] Name``);
    a field HiGHS has no value for (no basis, no point) is left blank, so each value is placed
    by the column of the header its right edge is nearest to. A complete table is followed by
    the ``Rows`` table.
    """
    lines = sol.lines
    k = next(j for j, line in enumerate(lines) if line.strip() == "Columns")
    header = lines[k + 1] if k + 1 < len(lines) else ""
    labels = ("Index", "Status", "Lower", "Upper", "Primal", "Dual")
    if not all(label in header for label in labels):
        raise sol.cut_short(f"its 'Columns' line (line {k + 1}) is not followed by the table header "
                            f"({' '.join(labels)} ...)")
    ends = {label: header.index(label) + len(label) for label in labels[1:]}
    entries = []
    j = k + 2
    while j < len(lines):
        tokens = list(re.finditer(r"\S+", lines[j]))
        if not tokens or not tokens[0].group().isdigit():
            break
        if int(tokens[0].group()) != len(entries):
            raise sol.line_error(j + 1, f"expected the column of index {len(entries)} (HiGHS lists the columns "
                                        "in order)")
        last = tokens[-1]
        name = last.group() if last.start() > ends["Dual"] else ""
        fields = {}
        for token in tokens[1:]:
            if token.start() > ends["Dual"]:  # the Type and Name columns
                continue
            fields[min(ends, key=lambda label: abs(token.end() - ends[label]))] = token.group()
        if "Primal" not in fields:
            raise ValueError(f"The solution file {sol.path!r} holds no primal point: the Primal column of its line "
                             f"{j + 1} is blank, as HiGHS leaves it when a solve ends without a point. Solve the "
                             "model to a point and write its solution then.")
        entries.append((name, sol.number(fields["Primal"], j + 1), j + 1, len(entries)))
        j += 1
    if j >= len(lines) or lines[j].strip() != "Rows":
        raise sol.cut_short(f"its Columns table (line {k + 1}) ends at line {min(j, len(lines))} with "
                            f"{len(entries)} column(s), without the Rows table that follows it in a complete file")
    objective = None
    for i in range(j, len(lines)):
        match = re.match(r"Objective value:\s*(\S+)$", lines[i].strip())
        if match:
            objective = (sol.number(match.group(1), i + 1), i + 1)
    return entries, objective


def _parse_plain(sol: _SolutionFile):
    """``(entries, objective)`` of ``name value`` lines (Gurobi ``.sol``); ``#`` starts a comment.

    Gurobi's ``# Objective value = v`` comment is the stated objective.
    """
    entries, objective = [], None
    for number, line in enumerate(sol.lines, start=1):
        text, _, comment = line.partition("#")
        match = re.match(r"\s*Objective value\s*=\s*(\S+)\s*$", comment, re.I)
        if match and not text.strip():
            objective = (sol.number(match.group(1), number), number)
        text = text.strip()
        if not text:
            continue
        parts = text.split()
        if len(parts) != 2:
            raise sol.line_error(number, "expected 'name value' per line (Gurobi .sol, '#' comments) or a HiGHS "
                                         "solution file")
        entries.append((parts[0], sol.number(parts[1], number), number, None))
    if not entries:
        raise ValueError(f"The solution file {sol.path!r} lists no column values ("
                         + ("it is empty" if not any(line.strip() for line in sol.lines) else "only comments")
                         + "): a file that lists no column cannot be told from one that lost them all. Write the "
                         "solver's solution file again (HiGHS: h.writeSolution(path); Gurobi: model.write(path)).")
    return entries, objective


def _check_objective(problem: Problem, x, objective, path: str) -> None:
    """ValueError when the objective the file states is not the objective of its point.

    The tolerance, 1e-4 of the objective's scale (Σ|cⱼxⱼ| + ½|x|ᵀ|P||x| + |offset|), allows for
    values printed with 6 digits (HiGHS's pretty style); a maximization model read from a
    file may state the objective with either sign.
    """
    stated, number = objective
    own = problem.objective(x)
    ax = np.abs(x)
    scale = float(np.abs(problem.c) @ ax) + abs(problem.offset)
    if problem.P is not None:
        scale += 0.5 * float(ax @ (abs(problem.P) @ ax))
    tol = 1e-4 * max(scale, abs(stated)) + 1e-9 * (1.0 + float(np.abs(problem.c).sum()))
    candidates = [own, -own] if problem.metadata.get("sense") == "maximize" else [own]
    if min(abs(stated - value) for value in candidates) <= tol:
        return
    raise ValueError(f"The solution file {path!r} states the objective value {stated:.10g} (line {number}), but "
                     f"its point gives {own:.10g} on {problem.name!r} (tolerance {tol:.2g}): values are missing "
                     "(a file cut short or edited), or it is the solution of another model (other data or "
                     "parameters). Write this problem's model with Problem.write, solve that file and read its "
                     "solution.")


def read_solution(problem: Problem, path) -> np.ndarray:
    """Read a primal point that a solver wrote for ``problem``'s model file.

    Understands HiGHS's ``writeSolution`` output (raw, sparse and pretty styles) and the plain
    ``name value`` per line of Gurobi's ``.sol`` files (``#`` comments; most solvers can write
    it). Values are matched to the columns by name (:func:`column_names`, as in the files
    written by :func:`write_problem`); a column the file does not list is 0 (solvers that omit
    zeros, HiGHS's sparse style, a column an LP file does not mention). A HiGHS file without
    names (``NoName``, ``c0``, ...) maps by position.

    A file that could have lost values is refused rather than read as zeros: an empty file (or
    comments only), a HiGHS file whose ``# Columns N`` header announces more values than follow
    or whose ``Columns`` table is not followed by its ``Rows`` table, and a file whose stated
    objective (HiGHS's ``Objective``, Gurobi's ``# Objective value =``) is not the objective
    of its point.

    Parameters
    ----------
    problem : Problem
        The problem the file's model came from.
    path : str or path-like
        The solution file.

    Returns
    -------
    ndarray of shape (problem.n_vars,)
        The point, usable with :meth:`Problem.output`, :meth:`Problem.block` and
        :meth:`Problem.objective`.

    Raises
    ------
    ValueError
        For a missing file, an empty one, a file cut short, a HiGHS file without a primal point
        (``None``), a value that is not a finite number or a line that is not ``name value``
        (naming the line), a column given twice (naming both lines), names that are not columns
        of ``problem`` (the message lists a few), or a stated objective the point does not
        reproduce (within 1e-4 of its scale).

    See Also
    --------
    write_problem

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from aucopt import PairSet, get_formulation
    >>> problem = get_formulation("lp_ranker").build(PairSet.bipartite([1, 0, 0]), np.eye(3))
    >>> path = os.path.join(tempfile.mkdtemp(), "ranker.sol")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("# Objective value = 1\\nalpha(0) 0.5\\nalpha(2) 0.5\\n")
    >>> x = problem.read_solution(path)
    >>> problem.output(x, "coef"), problem.objective(x)
    (array([ 0.5,  0. , -0.5]), 1.0)
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ValueError(f"Solution file not found: {path!r}.")
    sol = _SolutionFile(path)
    first = next((line.strip() for line in sol.lines if line.strip()), "")
    if first == "Model status" or any(line.strip().lower() == "# primal solution values" for line in sol.lines):
        entries, objective = _parse_highs_raw(sol)
    elif first == "Columns":
        entries, objective = _parse_highs_pretty(sol)
    else:
        entries, objective = _parse_plain(sol)
    names = column_names(problem)
    index = {col: j for j, col in enumerate(names)}
    positional = entries and entries[0][3] is not None and not any(name in index for name, *_ in entries)
    if positional:  # a HiGHS file without the model's names: by column index
        beyond = [(number, j) for _, _, number, j in entries if j >= problem.n_vars]
        if beyond:
            raise sol.line_error(beyond[0][0], f"column index {beyond[0][1]} is beyond the {problem.n_vars} "
                                               f"columns of {problem.name!r} (the file is for another model)")
        keys = [j for *_, j in entries]
    else:
        unknown = [name for name, *_ in entries if name not in index]
        if unknown:
            raise ValueError(f"The solution file {path!r} names {len(unknown)} column(s) that {problem.name!r} does "
                             f"not have, e.g. {unknown[:3]}; its columns are named like {names[:2]} (write the model "
                             "with Problem.write so that the names match).")
        keys = [index[name] for name, *_ in entries]
    x = np.zeros(problem.n_vars)
    first_line: dict[int, int] = {}
    for (_, value, number, _), j in zip(entries, keys, strict=False):
        if j in first_line:
            raise sol.line_error(number, f"the column {names[j]!r} is given a second value (first on line "
                                         f"{first_line[j]}); a point has one value per column: the file was "
                                         "edited or joined from two")
        first_line[j] = number
        x[j] = value
    if objective is not None:
        _check_objective(problem, x, objective, path)
    return x
