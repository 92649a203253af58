"""HiGHS model plumbing shared by the model files of :mod:`aucopt.modeling` and the HiGHS backend.

A :class:`~aucopt.modeling.Problem` enters highspy the same way whether it is solved
(:mod:`aucopt.solvers.highs`) or written to an MPS / CPLEX LP file (``Problem.write``): one
silent HiGHS instance (:func:`new_highs`) and one ``passModel`` / ``passHessian``
(:func:`pass_problem`), with infinite bounds clipped to HiGHS's infinity (:func:`clip`). Both
layers import these from here, so the modeling layer never imports the solvers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike

if TYPE_CHECKING:
    from .modeling.problem import Problem

__all__ = ["INF", "clip", "new_highs", "pass_problem"]

INF = 1e30
"""HiGHS's infinity: bounds at or beyond it are ±inf."""


def new_highs(highspy: Any) -> Any:
    """A HiGHS instance that prints nothing until asked to.

    ``highspy.Highs()`` registers its Python callbacks at construction, which makes HiGHS print
    its banner before ``output_flag`` can be set; the bare solver object (no callbacks, which
    the backend does not use) starts silent.
    """
    bare = getattr(getattr(highspy, "_core", None), "_Highs", None)
    return bare() if bare is not None else highspy.Highs()


def clip(v: ArrayLike) -> np.ndarray:
    """Bounds as floats, ±inf clipped to ±:data:`INF`."""
    return np.clip(np.asarray(v, dtype=float), -INF, INF)


def pass_problem(h: Any, highspy: Any, problem: Problem) -> None:
    """Load ``problem`` (an LP, or a QP with its Hessian) into the HiGHS instance ``h``.

    The LP goes in as a ``HighsLp`` without an integrality vector: ``passModel``'s array form
    needs one, and an all-continuous one makes HiGHS log a warning about it at every solve.
    """
    A = problem.A.tocsc()
    A.sort_indices()
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = problem.n_vars, problem.n_rows
    lp.offset_ = float(problem.offset)
    lp.col_cost_ = np.asarray(problem.c, dtype=float)
    lp.col_lower_, lp.col_upper_ = clip(problem.col_lower), clip(problem.col_upper)
    lp.row_lower_, lp.row_upper_ = clip(problem.row_lower), clip(problem.row_upper)
    matrix = lp.a_matrix_  # a reference into lp
    matrix.format_ = highspy.MatrixFormat.kColwise
    matrix.num_col_, matrix.num_row_ = problem.n_vars, problem.n_rows
    matrix.start_, matrix.index_ = A.indptr.astype(np.int32), A.indices.astype(np.int32)
    matrix.value_ = np.asarray(A.data, dtype=float)
    h.passModel(lp)
    if problem.P is not None:
        Q = sp.tril(problem.P, format="csc")  # HiGHS: lower triangle, column-wise
        Q.sort_indices()
        h.passHessian(problem.n_vars, Q.nnz, int(highspy.HessianFormat.kTriangular),
                      Q.indptr.astype(np.int32), Q.indices.astype(np.int32), Q.data)
