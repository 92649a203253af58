"""The modeling layer: declarative formulations, the sparse builder and the standard-form problem.

A formulation (one file in the top-level ``formulations/`` folder, importable as
``aucopt.formulations``) is a function ``f(m, **params)`` registered with :func:`formulation`; it
states the mathematics with the operators of :class:`Model` and may declare the size of the
problem it builds (``nnz=``), which :meth:`Formulation.check_size` uses before any work.
``Formulation.build`` emits a :class:`Problem` (sparse, lifted standard form) that any backend in
:mod:`aucopt.solvers` solves.

Problems leave and re-enter through cvxpy (:meth:`Problem.to_cvxpy`, :meth:`Problem.from_cvxpy`,
:func:`cvxpy_formulation`) and MPS / LP files (:meth:`Problem.write`, :meth:`Problem.read`,
:func:`read_solution`); :func:`compare_solvers` solves one problem with several backends;
:func:`pair_row_generation` solves one with its pair rows generated as needed (certified).

Adding a formulation = adding one file to ``formulations/`` with a ``@formulation(...)``-decorated
function.
"""

from ._compare import compare_solvers, iter_compare_solvers
from ._cvxpy_formulation import CvxpyFormulation, cvxpy_formulation
from ._expressions import Affine, Constraint, Quadratic, Variable
from ._formulation import Formulation, available_formulations, formulation, get_formulation
from ._model import MissingGroupsError as MissingGroupsError
from ._model import Model
from ._rowgen import PAIR_ROW_CONSTRAINTS as PAIR_ROW_CONSTRAINTS  # options of pair_row_generation
from ._rowgen import pair_row_generation
from ._sizes import BYTES_PER_NONZERO, lifted_lp_nnz
from ._solutions import read_solution
from .problem import Problem

__all__ = [
    "BYTES_PER_NONZERO",
    "Affine",
    "Constraint",
    "CvxpyFormulation",
    "Formulation",
    "Model",
    "Problem",
    "Quadratic",
    "Variable",
    "available_formulations",
    "compare_solvers",
    "cvxpy_formulation",
    "formulation",
    "get_formulation",
    "iter_compare_solvers",
    "lifted_lp_nnz",
    "pair_row_generation",
    "read_solution",
]
