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

__all__ = ["to_cvxpy", "from_cvxpy", "cvxpy_formulation", "write_problem", "read_problem", "read_solution",
           "column_names", "row_names"]

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
    for reduction, inv in zip(chain.reductions, inverse):
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
        For a problem that is not DCP, not an LP / convex QP (e.g. second-order cone
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
    return Problem(c=c, A=A, row_lower=row_lower, row_upper=row_upper, col_lower=col_lower, col_upper=col_upper, P=P, offset=offset, blocks=block_slices,
                   outputs=out, name=name or "cvxpy",
                   metadata={"sense": "maximize" if maximize else "minimize", "source": "cvxpy"})


def cvxpy_formulation(name: str | None = None, *, kind: str = "lp", nnz=None):
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
    >>> @cvxpy_formulation("lp_ranker_in_cvxpy", kind="lp")
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
        form = CvxpyFormulation(func, name or func.__name__, kind, nnz)
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
        """
        pairs.check_nonempty()
        K = None if kernel is None else np.asarray(kernel, dtype=float)
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
        For a suffix other than ``.mps`` or ``.lp``.
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
        For an unknown suffix, a file HiGHS cannot read, or integer columns.

    See Also
    --------
    write_problem
    """
    path = os.fspath(path)
    _file_format(path)
    if not os.path.isfile(path):
        raise ValueError(f"Model file not found: {path!r}.")
    h, highspy = _highs()
    if h.readModel(path) == highspy.HighsStatus.kError:
        raise ValueError(f"HiGHS could not read the model file {path!r}; check that it is valid "
                         f"{FILE_FORMATS[_file_format(path)]}.")
    model = h.getModel()
    lp = model.lp_
    n, k = int(lp.num_col_), int(lp.num_row_)
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


# ============================================================================ solutions
def _parse_highs_raw(lines):
    """Column values of a HiGHS ``writeSolution`` file (raw style), in file order, or None."""
    for start, line in enumerate(lines):
        if line.strip().lower().startswith("# primal solution values"):
            break
    else:
        return None
    for k in range(start + 1, len(lines)):
        match = re.match(r"#\s*Columns\s+(-?\d+)", lines[k].strip())
        if match:
            count = abs(int(match.group(1)))
            pairs = []
            for line in lines[k + 1:k + 1 + count]:
                parts = line.split()
                pairs.append((parts[0], float(parts[1])) if len(parts) >= 2 else ("", float(parts[0])))
            return pairs
    return None


def _parse_highs_pretty(lines):
    """Column values of a HiGHS ``writeSolution`` file (pretty style: a Columns table), or None."""
    for k, line in enumerate(lines):
        if line.strip() == "Columns" and k + 1 < len(lines) and "Primal" in lines[k + 1]:
            header = lines[k + 1].split()
            at_primal, at_name = header.index("Primal"), header.index("Name") if "Name" in header else None
            pairs = []
            for row in lines[k + 2:]:
                parts = row.split()
                if not parts or not parts[0].isdigit():
                    break
                value = float(parts[at_primal])
                pairs.append((parts[-1] if at_name is not None and len(parts) == len(header) else "", value))
            return pairs
    return None


def _parse_plain(lines, path):
    """``name value`` per line (Gurobi ``.sol``); ``#`` starts a comment."""
    pairs = []
    for number, line in enumerate(lines, start=1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        parts = text.split()
        try:
            if len(parts) != 2:
                raise ValueError
            pairs.append((parts[0], float(parts[1])))
        except ValueError:
            raise ValueError(f"Line {number} of the solution file {path!r} is {line.strip()!r}; expected "
                             "'name value' per line (Gurobi .sol, '#' comments) or a HiGHS solution file.") from None
    return pairs


def read_solution(problem: Problem, path) -> np.ndarray:
    """Read a primal point that a solver wrote for ``problem``'s model file.

    Understands HiGHS's ``writeSolution`` output (raw and pretty styles) and the plain ``name
    value`` per line of Gurobi's ``.sol`` files (``#`` comments; most solvers can write it).
    Values are matched to the columns by name (:func:`column_names`, as in the files written by
    :func:`write_problem`); a column the file does not list is 0 (solvers that omit zeros). A
    HiGHS file without names (``c0``, ``c1``, ...) that lists every column maps by position.

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
        For a missing or unreadable file, or names that are not columns of ``problem`` (the
        message lists a few).

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
    with open(path, encoding="utf-8", errors="replace") as fh:
        lines = fh.read().splitlines()
    pairs = _parse_highs_raw(lines)
    highs = pairs is not None
    if pairs is None:
        pairs = _parse_highs_pretty(lines)
        highs = pairs is not None
    if pairs is None:
        pairs = _parse_plain(lines, path)
    names = column_names(problem)
    index = {col: j for j, col in enumerate(names)}
    unknown = [col for col, _ in pairs if col not in index]
    if unknown and highs and len(pairs) == problem.n_vars:
        return np.array([value for _, value in pairs], dtype=float)  # unnamed columns, in column order
    if unknown:
        raise ValueError(f"The solution file {path!r} names {len(unknown)} column(s) that {problem.name!r} does not "
                         f"have, e.g. {unknown[:3]}; its columns are named like {names[:2]} (write the model with "
                         "Problem.write so that the names match).")
    x = np.zeros(problem.n_vars)
    for col, value in pairs:
        x[index[col]] = value
    return x
