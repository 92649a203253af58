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

Modules
-------
This module gathers the doors; each lives in its own module: ``_names`` (the names),
``_cvxpy`` (cvxpy models), ``_cvxpy_formulation`` (formulations written in cvxpy), ``_files``
(model files through HiGHS) and ``_solutions`` (solution files). The ``Problem`` methods call
those modules directly, and they never import ``problem`` back (only for type checking).
"""

from __future__ import annotations

import os
from typing import Any

from ._cvxpy import cvxpy_fields, to_cvxpy
from ._cvxpy_formulation import CvxpyFormulation, cvxpy_formulation
from ._files import FILE_FORMATS, read_fields, write_problem
from ._names import column_names, row_names
from ._solutions import read_solution
from .problem import Problem

__all__ = [
    "FILE_FORMATS",
    "CvxpyFormulation",
    "column_names",
    "cvxpy_formulation",
    "from_cvxpy",
    "read_problem",
    "read_solution",
    "row_names",
    "to_cvxpy",
    "write_problem",
]


def from_cvxpy(cvxpy_problem: Any, blocks: dict | None = None, outputs: dict | None = None,
               name: str | None = None) -> Problem:
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
    return Problem(**cvxpy_fields(cvxpy_problem, blocks=blocks, outputs=outputs, name=name))


def read_problem(path: str | os.PathLike, name: str | None = None) -> Problem:
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
    return Problem(**read_fields(path, name=name))
