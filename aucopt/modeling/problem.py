"""Standard-form LP / convex QP, the single currency between formulations and solvers.

    minimize    ½ xᵀ P x + cᵀ x + offset
    subject to  row_lower ≤ A x ≤ row_upper
                col_lower ≤ x   ≤ col_upper

``A`` and ``P`` are scipy sparse (CSC); infinite bounds are ``±inf``; ``P`` is ``None`` for
an LP and otherwise symmetric positive semidefinite (both triangles stored; checked on
construction, with :class:`~aucopt.exceptions.ConvexityError` for a non-convex ``P``). ``blocks``
names the variable blocks (``{"alpha": slice(0, m), ...}``) and ``outputs`` holds affine
maps ``x -> M x + b`` (e.g. the per-point model coefficients) so that a solution maps
back to a model without the solver knowing anything about ranking.

A Problem also leaves aucopt and comes back: :meth:`Problem.to_cvxpy` / :meth:`Problem.from_cvxpy`
(cvxpy models), :meth:`Problem.write` / :meth:`Problem.read` (MPS and CPLEX LP files for any
solver) and :meth:`Problem.read_solution` (a solver's solution file); see ``_interop``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike

_NOT_CONVEX_FIX = ("A QP solver would report a wrong optimum, or fail: ½ xᵀPx must be convex. Check the sign of the "
                   "quadratic term (maximizing a convex quadratic is minimizing a concave one), or build P as a Gram "
                   "matrix MᵀM, or shift it by at least the eigenvalue's magnitude.")
"""The remedy named by every refusal of a quadratic term that is not positive semidefinite."""


@dataclass
class Problem:
    """A sparse LP or convex QP in standard form, the currency between formulations and solvers.

    The standard form is::

        minimize    ½ xᵀ P x + cᵀ x + offset
        subject to  row_lower ≤ A x ≤ row_upper
                    col_lower ≤ x   ≤ col_upper

    Parameters
    ----------
    c : array-like of shape (n_vars,)
        Linear objective.
    A : sparse matrix or array-like of shape (n_rows, n_vars)
        Constraint matrix (stored as CSC).
    row_lower, row_upper : array-like of shape (n_rows,)
        Row bounds; ±inf for one-sided rows, equal for equality rows.
    col_lower, col_upper : array-like of shape (n_vars,)
        Variable bounds; ±inf when free.
    P : sparse matrix of shape (n_vars, n_vars), default=None
        Symmetric positive semidefinite quadratic term, both triangles stored; None (or an
        all-zero matrix) for an LP.
    offset : float, default=0.0
        Constant added to the objective.
    blocks : dict, default={}
        Variable-block name → slice of ``x`` (e.g. ``{"alpha": slice(0, m), ...}``).
    outputs : dict, default={}
        Name → ``(M, b)``: affine maps x ↦ M x + b evaluated by :meth:`output` (e.g. the
        model's expansion coefficients ``"coef"``), so a solution maps back to a model without
        the solver knowing anything about ranking.
    name : str, default="problem"
        A label, reported by the solvers.
    metadata : dict, default={}
        Free-form facts from the builder (``n_points``, ``n_pairs``, ``lifted``, ``pair_target``).

    Attributes
    ----------
    n_vars : int
        Number of variables.
    n_rows : int
        Number of constraint rows.
    is_lp : bool
        True without a quadratic term.
    kind : str
        ``"LP"`` or ``"QP"``.
    nnz : int
        Stored nonzeros of ``A`` and ``P``.

    Raises
    ------
    ValueError
        For no variables, inconsistent shapes, NaN bounds, lower > upper, non-finite entries in
        ``c``, ``A``, ``P`` or ``offset`` (the message names the count and the first entry), or a
        ``P`` that is not symmetric (beyond a relative 1e-10).
    ConvexityError
        For a ``P`` that is not positive semidefinite (an eigenvalue below
        −1e-9·max(1, max|P|)), checked on the rows and columns with nonzeros: a diagonal ``P`` by
        its diagonal in O(nnz); up to 2,000 such rows by a dense Cholesky factorization of
        P + δI, the message naming the smallest eigenvalue and the variables leading its
        eigenvector; beyond, by the pivots of an LDLᵀ factorization of P + δI, the message naming
        the variable of a non-positive pivot. Problems from files (:meth:`read`) and from cvxpy
        (:meth:`from_cvxpy`) are checked alike; data changed in place afterwards are checked again
        by :meth:`validate` before a solve, a file or a cvxpy model is made from them.

    See Also
    --------
    aucopt.solvers.solve : solves a Problem with any backend.
    aucopt.modeling.Formulation.build : builds a Problem from a formulation.
    to_cvxpy, from_cvxpy : to and from cvxpy models.
    write, read, read_solution : MPS / CPLEX LP model files and solvers' solution files.
    validate : checks the data again after a change in place.

    Examples
    --------
    min x₀ + 2x₁ subject to x₀ + x₁ ≥ 1, x ≥ 0:

    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from aucopt import Problem, solve
    >>> lp = Problem(c=np.array([1.0, 2.0]), A=sp.csc_matrix([[1.0, 1.0]]), row_lower=np.array([1.0]),
    ...              row_upper=np.array([np.inf]), col_lower=np.zeros(2), col_upper=np.full(2, np.inf),
    ...              blocks={"x": slice(0, 2)}, name="tiny")
    >>> lp
    Problem('tiny', LP, 2 variables (x[2]), 1 rows, 2 nonzeros)
    >>> x = solve(lp).x
    >>> lp.objective(x), lp.violation(x), lp.block(x, "x")
    (1.0, 0.0, array([1., 0.]))
    """

    c: np.ndarray
    A: sp.csc_matrix
    row_lower: np.ndarray
    row_upper: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    P: sp.csc_matrix | None = None
    offset: float = 0.0
    blocks: dict[str, slice] = field(default_factory=dict)
    outputs: dict[str, tuple] = field(default_factory=dict)
    name: str = "problem"
    metadata: dict = field(default_factory=dict)

    def __post_init__(self):
        self._check()

    def _check(self) -> None:
        """Normalize the fields (float arrays, CSC matrices, ``P=None`` for an LP) and check them.

        The checks of the class docstring's Raises section; the fingerprint of the checked
        data is kept, so that :meth:`validate` repeats them only after a change.
        """
        n = len(self.c)
        if n == 0:
            raise ValueError(f"Problem {self.name!r} has no variables (c has length 0): there is nothing to "
                             "optimize. Give at least one variable: c, the columns of A and the column bounds "
                             "have one entry per variable.")
        self.c = np.ascontiguousarray(self.c, dtype=float)
        self.A = sp.csc_matrix(self.A, dtype=float)
        if self.A.shape[1] != n:
            raise ValueError(f"A has {self.A.shape[1]} columns but there are {n} variables.")
        k = self.A.shape[0]
        for name, size in (("row_lower", k), ("row_upper", k), ("col_lower", n), ("col_upper", n)):
            arr = np.ascontiguousarray(getattr(self, name), dtype=float)
            if arr.shape != (size,):
                raise ValueError(f"{name} must have shape ({size},), got {arr.shape}.")
            if np.any(np.isnan(arr)):
                raise ValueError(f"{name} contains NaN.")
            setattr(self, name, arr)
        for lo, hi, what in ((self.row_lower, self.row_upper, "row"), (self.col_lower, self.col_upper, "column")):
            if np.any(lo > hi):
                raise ValueError(f"{int(np.sum(lo > hi))} {what} bound(s) have lower > upper.")
        self._check_finite_data(self.c, "c", "the objective's coefficients")
        self._check_finite_data(self.A, "A", "the constraint coefficients")
        offset = float(self.offset)
        if not np.isfinite(offset):
            raise ValueError(f"Problem {self.name!r}: offset is {offset}; the objective's constant must be a finite "
                             "number: check the data the problem was built from.")
        self.offset = offset
        if self.P is not None:
            self.P = sp.csc_matrix(self.P, dtype=float)
            if self.P.shape != (n, n):
                raise ValueError(f"P must be {n}×{n}, got {self.P.shape}.")
            if self.P.nnz == 0:
                self.P = None
            else:
                if not self.P.has_canonical_format:
                    self.P = self.P.copy()
                    self.P.sum_duplicates()
                self._check_finite_data(self.P, "P", "the quadratic term")
                self._check_convex_quadratic(self.P)
        self._checked = self._fingerprint()

    _DATA_FIELDS = ("c", "A", "row_lower", "row_upper", "col_lower", "col_upper", "P", "offset")
    """The fields the standard form is made of, checked on construction and by :meth:`validate`."""

    def _fingerprint(self) -> dict:
        """Per data field: its type, shape and a CRC-32 of its bytes (O(nnz), a few GB/s)."""
        import zlib

        def crc(array: np.ndarray) -> int:
            return zlib.crc32(np.ascontiguousarray(array).view(np.uint8).ravel().data)

        prints: dict[str, tuple] = {}
        for name in self._DATA_FIELDS:
            value = getattr(self, name)
            if sp.issparse(value):
                prints[name] = (type(value), value.shape, crc(value.data), crc(value.indices), crc(value.indptr))
            elif isinstance(value, np.ndarray):
                prints[name] = (type(value), value.dtype, value.shape, crc(value))
            elif value is None or isinstance(value, float):
                prints[name] = (type(value), value)
            else:  # a list, an int offset, ...: normalized by the next check
                prints[name] = (type(value), id(value))
        return prints

    def validate(self) -> Problem:
        """Check the problem again after its data were changed in place.

        A Problem is checked when it is made; its arrays can still be changed afterwards
        (``problem.c[0] = np.nan``, ``problem.P = -problem.P``). :func:`~aucopt.solvers.solve`,
        :meth:`write` and :meth:`to_cvxpy` call this method first, so that such a change is
        refused with the construction's message before any solver or file sees it. The data are
        fingerprinted (a CRC of each array, O(nnz)): when nothing changed, nothing is checked
        again.

        Returns
        -------
        Problem
            ``self``, its changed fields normalized (float arrays, CSC matrices).

        Raises
        ------
        ValueError
            As on construction (the message also names the fields changed since the last check).
        ConvexityError
            For a changed ``P`` that is not positive semidefinite.

        Examples
        --------
        >>> import numpy as np
        >>> import scipy.sparse as sp
        >>> from aucopt import Problem
        >>> qp = Problem(c=np.zeros(1), A=sp.csc_matrix((0, 1)), row_lower=np.zeros(0), row_upper=np.zeros(0),
        ...              col_lower=-np.ones(1), col_upper=np.ones(1), P=sp.csc_matrix([[2.0]]))
        >>> qp.validate() is qp
        True
        >>> qp.P = -qp.P
        >>> qp.validate()
        Traceback (most recent call last):
        ...
        aucopt.exceptions.ConvexityError: Problem 'problem': the quadratic term P is diagonal with 1 negative entry, ...
        """
        before = getattr(self, "_checked", None)
        now = self._fingerprint()
        if before == now:
            return self
        changed = [name for name in self._DATA_FIELDS if before is None or before.get(name) != now[name]]
        try:
            self._check()
        except ValueError as exc:  # ConvexityError included
            raise type(exc)(f"{exc} (Changed since the problem was made: {', '.join(changed)}.)") from None
        return self

    # ------------------------------------------------------------------ validation
    def _column_label(self, j: int) -> str:
        """Variable ``j`` by its block (``alpha(3)``), else the file's column name, else ``x[j]``."""
        for name, sl in self.blocks.items():
            if sl.start <= j < sl.stop:
                return f"{name}({j - sl.start})"
        names = self.metadata.get("column_names") if isinstance(self.metadata, dict) else None
        if names is not None and j < len(names):
            return str(names[j])
        return f"x[{j}]"

    def _check_finite_data(self, data, what: str, meaning: str) -> None:
        """ValueError naming the count and the first non-finite entry of c, A or P (O(nnz))."""
        values = data.data if sp.issparse(data) else data
        finite = np.isfinite(values)
        if finite.all():
            return
        bad = np.flatnonzero(~finite)
        k = int(bad[0])
        if sp.issparse(data):  # CSC: the entry's row and column
            j = int(np.searchsorted(data.indptr, k, side="right") - 1)
            where = f"row {int(data.indices[k])}, column {j} ({self._column_label(j)})"
        else:
            where = f"index {k} ({self._column_label(k)})"
        entries = "entry" if bad.size == 1 else "entries"
        raise ValueError(f"Problem {self.name!r}: {what} has {bad.size:,} non-finite {entries} (NaN or ±inf), the "
                         f"first {values[k]} at {where}; {meaning} must be finite numbers: check the data the "
                         "problem was built from (a kernel, weights or parameters with NaN or inf).")

    def _check_convex_quadratic(self, P: sp.csc_matrix) -> None:
        """P symmetric (relative 1e-10) and positive semidefinite (eigenvalues ≥ −1e-9·max(1, max|P|)).

        A cheap certificate on the rows / columns with nonzeros: a diagonal P by its diagonal
        (O(nnz)); up to 2,000 such rows a dense Cholesky factorization of P + δI (δ the
        tolerance), with the smallest eigenpair (``scipy.linalg.eigh``) to confirm and word a
        refusal; beyond, an LDLᵀ factorization of P + δI without pivoting in a symmetric
        fill-reducing order (SuperLU; dense LAPACK for a dense block), whose pivots are all
        positive exactly when P + δI is positive definite (Sylvester's law of inertia).
        """
        from ..exceptions import ConvexityError

        n = P.shape[0]
        rows = P.indices
        cols = np.repeat(np.arange(n), np.diff(P.indptr))
        nonzero = P.data != 0
        scale = float(np.max(np.abs(P.data)))
        if scale == 0.0:
            return
        tol = 1e-9 * max(1.0, scale)
        off = nonzero & (rows != cols)
        if not off.any():  # diagonal: O(nnz)
            negative = nonzero & (P.data < -tol)
            if negative.any():
                bad = np.flatnonzero(negative)
                k = int(bad[np.argmin(P.data[bad])])
                raise ConvexityError(
                    f"Problem {self.name!r}: the quadratic term P is diagonal with {bad.size:,} negative entr"
                    f"{'y' if bad.size == 1 else 'ies'}, the smallest P[{cols[k]}, {cols[k]}] = {P.data[k]:g} on "
                    f"{self._column_label(int(cols[k]))} (tolerance {-tol:g}), so P is not positive semidefinite. "
                    + _NOT_CONVEX_FIX)
            return
        asym = (P - P.T).tocoo()
        if asym.nnz and np.max(np.abs(asym.data)) > 1e-10 * scale:
            k = int(np.argmax(np.abs(asym.data)))
            i, j = int(asym.row[k]), int(asym.col[k])
            raise ValueError(
                f"Problem {self.name!r}: P is not symmetric: P[{i}, {j}] = {P[i, j]:g} but P[{j}, {i}] = {P[j, i]:g} "
                f"(largest difference {abs(asym.data[k]):g}, relative to max|P| = {scale:g} above 1e-10). The "
                "standard form holds the symmetric matrix of ½ xᵀPx with both triangles stored: for one stored "
                "triangle T pass T + T.T - diag(T), for any square M pass (M + M.T) / 2 (the same objective).")
        support = np.unique(rows[nonzero])
        self._check_semidefinite(P[support][:, support], support, tol)

    def _check_semidefinite(self, S: sp.csc_matrix, support: np.ndarray, tol: float) -> None:
        """ConvexityError when S, P on the variables ``support`` with nonzeros, has an eigenvalue below −``tol``:
        a dense Cholesky factorization (and the smallest eigenpair) up to 2,000 rows, LDLᵀ pivots beyond."""
        from ..exceptions import ConvexityError

        m = len(support)

        def refuse(detail: str) -> None:
            raise ConvexityError(f"Problem {self.name!r}: the quadratic term P is not positive semidefinite: "
                                 f"{detail}. {_NOT_CONVEX_FIX}")

        if m <= 2000:
            import scipy.linalg as sla

            dense = S.toarray()
            try:
                sla.cholesky(dense + tol * np.eye(m), lower=True, check_finite=False)
                return
            except np.linalg.LinAlgError:
                pass
            w, v = sla.eigh(dense, subset_by_index=[0, 0], check_finite=False)
            if w[0] >= -tol:
                return  # rounding in the factorization; the eigenvalue decides
            lead = np.argsort(-np.abs(v[:, 0]))[:3]
            direction = ", ".join(f"{self._column_label(int(support[k]))} ({v[k, 0]:+.2f})" for k in lead)
            refuse(f"its smallest eigenvalue is {w[0]:.6g} (tolerance {-tol:g}), along a direction led by {direction}")
        shifted = S + tol * sp.identity(m, format="csc")
        where = self._nonpositive_pivot(shifted, m)
        if where is not None:
            k, value = where
            pivot = "a non-positive pivot" if value is None else f"the pivot {value:.6g}"
            at = "" if k is None else f" at {self._column_label(int(support[k]))}"
            refuse(f"an LDLᵀ factorization of P + {tol:g}·I (over the {m:,} variables with nonzeros) meets {pivot}"
                   f"{at}, so P has an eigenvalue below {-tol:g}")

    @staticmethod
    def _nonpositive_pivot(S, m: int):
        """``(index, pivot or None)`` of the first non-positive pivot of S = LDLᵀ (elimination order), or None.

        S is positive definite exactly when every pivot is positive (Sylvester's law of inertia).
        """
        if S.nnz > 0.05 * float(m) ** 2 and m <= 8000:  # a dense block: LAPACK's Cholesky, in the given order
            from scipy.linalg import lapack

            _, info = lapack.dpotrf(S.toarray(), lower=True, overwrite_a=True, clean=False)
            return None if info == 0 else (int(info) - 1, None)
        import scipy.sparse.linalg as spla

        order, singular = None, False
        try:  # LDLᵀ in a symmetric fill-reducing order, no pivoting: the diagonal of U is D
            lu = spla.splu(S.tocsc(), permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0,
                           options={"SymmetricMode": True})
            if np.array_equal(lu.perm_r, lu.perm_c):
                order, pivots = lu.perm_c, lu.U.diagonal()
        except RuntimeError:  # an exactly zero pivot: not positive definite
            singular = True
        if order is None and m > 8000:  # no dense fallback at this size
            return (None, 0.0) if singular else None
        if order is None:  # a zero pivot, or SuperLU swapped rows: Cholesky in the natural order
            from scipy.linalg import lapack

            _, info = lapack.dpotrf(S.toarray(), lower=True, overwrite_a=True, clean=False)
            return None if info == 0 else (int(info) - 1, None)
        bad = np.flatnonzero(pivots <= 0)
        if bad.size == 0:
            return None
        return int(np.argsort(order)[bad[0]]), float(pivots[bad[0]])

    # ------------------------------------------------------------------ shape
    @property
    def n_vars(self) -> int:
        """Number of variables."""
        return len(self.c)

    @property
    def n_rows(self) -> int:
        """Number of constraint rows."""
        return self.A.shape[0]

    @property
    def is_lp(self) -> bool:
        """True when there is no quadratic term."""
        return self.P is None

    @property
    def kind(self) -> str:
        """``"LP"`` or ``"QP"``."""
        return "LP" if self.is_lp else "QP"

    @property
    def nnz(self) -> int:
        """Stored nonzeros of ``A`` and ``P``."""
        return self.A.nnz + (0 if self.P is None else self.P.nnz)

    def __repr__(self) -> str:
        blocks = ", ".join(f"{k}[{s.stop - s.start}]" for k, s in self.blocks.items())
        return (f"Problem({self.name!r}, {self.kind}, {self.n_vars:,} variables ({blocks}), "
                f"{self.n_rows:,} rows, {self.nnz:,} nonzeros)")

    # ------------------------------------------------------------------ solution maps
    def objective(self, x: ArrayLike) -> float:
        """½ xᵀPx + cᵀx + offset at ``x``."""
        x = np.asarray(x, dtype=float)
        value = float(self.c @ x) + self.offset
        if self.P is not None:
            value += 0.5 * float(x @ (self.P @ x))
        return value

    def block(self, x: ArrayLike, name: str) -> np.ndarray:
        """The entries of ``x`` belonging to the variable block ``name``."""
        return np.asarray(x)[self.blocks[name]]

    def output(self, x: ArrayLike, name: str) -> np.ndarray:
        """Evaluate the named affine output map (e.g. ``"coef"``) at ``x``.

        Raises
        ------
        ValueError
            When the problem has no output ``name``; the message lists the outputs it has and
            how a formulation declares one (``m.output(name, expr)``).
        """
        if name not in self.outputs:
            raise ValueError(missing_output_message(self, name))
        M, b = self.outputs[name]
        return M @ np.asarray(x, dtype=float) + b

    def violation(self, x: ArrayLike) -> float:
        """Largest bound or row violation of ``x`` (0 for a feasible point)."""
        x = np.asarray(x, dtype=float)
        Ax = self.A @ x
        parts = [self.row_lower - Ax, Ax - self.row_upper, self.col_lower - x, x - self.col_upper]
        return float(max(0.0, *(np.max(p, initial=0.0) for p in parts)))

    # ------------------------------------------------------------------ interoperability
    def to_cvxpy(self) -> tuple[Any, Any]:
        """The problem in cvxpy: ``(cvxpy_problem, x)``, ``x`` the variable vector.

        Returns
        -------
        cvxpy_problem : cvxpy.Problem
            Same optimum; solve it with any cvxpy solver.
        x : cvxpy.Variable of size n_vars
            After solving, ``x.value`` is a point for :meth:`output`, :meth:`block`, :meth:`objective`.

        See Also
        --------
        from_cvxpy : a cvxpy model as a Problem.

        Examples
        --------
        >>> import numpy as np
        >>> import scipy.sparse as sp
        >>> from aucopt import Problem
        >>> lp = Problem(c=np.array([1.0, 2.0]), A=sp.csc_matrix([[1.0, 1.0]]), row_lower=np.array([1.0]),
        ...              row_upper=np.array([np.inf]), col_lower=np.zeros(2), col_upper=np.full(2, np.inf))
        >>> cvx, x = lp.to_cvxpy()
        >>> round(float(cvx.solve(solver="CLARABEL")), 6), x.value.round(6)
        (1.0, array([1., 0.]))
        """
        from ._cvxpy import to_cvxpy

        return to_cvxpy(self)

    @classmethod
    def from_cvxpy(cls, cvxpy_problem: Any, blocks: dict | None = None, outputs: dict | None = None,
                   name: str | None = None) -> Problem:
        """A cvxpy LP or convex QP in standard form; see :func:`aucopt.modeling._interop.from_cvxpy`.

        Parameters
        ----------
        cvxpy_problem : cvxpy.Problem
            Affine constraints, a linear or convex quadratic objective, no integer variables.
        blocks : dict of str to cvxpy.Variable, default=None
            Block names of variables (default: each variable's own name).
        outputs : dict of str to cvxpy expression, default=None
            Affine maps recorded as :attr:`outputs` (e.g. ``"coef"``).
        name : str, default=None
            The problem's name ("cvxpy" when None).

        Returns
        -------
        Problem

        Raises
        ------
        ValueError
            For a model without variables (a constant objective, which cvxpy evaluates without a
            solver), a model that is not an LP or convex QP, or a non-affine output.

        See Also
        --------
        to_cvxpy : the way back.

        Examples
        --------
        >>> import cvxpy as cp
        >>> from aucopt import Problem, solve
        >>> t = cp.Variable(name="t")
        >>> problem = Problem.from_cvxpy(cp.Problem(cp.Minimize(t), [t >= 2]))
        >>> round(solve(problem).objective, 9), problem.blocks
        (2.0, {'t': slice(0, 1, None)})
        """
        from ._cvxpy import cvxpy_fields

        return cls(**cvxpy_fields(cvxpy_problem, blocks=blocks, outputs=outputs, name=name))

    def write(self, path: str | os.PathLike) -> str:
        """Write a free MPS (``.mps``) or CPLEX LP (``.lp``) file through HiGHS, Hessian included.

        Columns are named ``block(k)`` (e.g. ``alpha(3)``), rows ``r(i)``, so that Gurobi, CPLEX,
        MOSEK, SCIP or HiGHS read the file and :meth:`read_solution` maps their solution back.

        Parameters
        ----------
        path : str or path-like
            The file; the suffix ``.mps`` or ``.lp`` chooses the format.

        Returns
        -------
        str
            ``path``.

        Raises
        ------
        ValueError
            For another suffix, or data changed in place that are no longer valid (:meth:`validate`:
            e.g. a NaN cost), before the file is touched.
        OSError
            When the file cannot be written.

        See Also
        --------
        read : the way back.
        read_solution : a solver's solution for the file.

        Examples
        --------
        >>> import os, tempfile
        >>> from pathlib import Path
        >>> import numpy as np
        >>> import scipy.sparse as sp
        >>> from aucopt import Problem
        >>> lp = Problem(c=np.array([1.0, 2.0]), A=sp.csc_matrix([[1.0, 1.0]]), row_lower=np.array([1.0]),
        ...              row_upper=np.array([np.inf]), col_lower=np.zeros(2), col_upper=np.full(2, np.inf),
        ...              blocks={"x": slice(0, 2)}, name="tiny")
        >>> path = lp.write(os.path.join(tempfile.mkdtemp(), "tiny.lp"))
        >>> print(Path(path).read_text().split("st")[0].splitlines()[-1])
         obj: +1 x(0) +2 x(1)
        """
        from ._files import write_problem

        return write_problem(self, path)

    @classmethod
    def read(cls, path: str | os.PathLike, name: str | None = None) -> Problem:
        """Read an MPS or CPLEX LP file through HiGHS (blocks recovered from ``block(k)`` names).

        Parameters
        ----------
        path : str or path-like
            A ``.mps`` or ``.lp`` file.
        name : str, default=None
            The problem's name (default: the file's model name, else its base name).

        Returns
        -------
        Problem
            Without outputs (a file holds none); the file's names in ``metadata``.

        Raises
        ------
        ValueError
            For an unknown suffix, an unreadable or empty file, a file without variables, integer
            columns, or entries the reader would leave out (an MPS entry for an undeclared row,
            an entry given twice: the message names the line).

        See Also
        --------
        write : the way there.

        Examples
        --------
        >>> import os, tempfile
        >>> import numpy as np
        >>> import scipy.sparse as sp
        >>> from aucopt import Problem, solve
        >>> qp = Problem(c=np.array([-1.0]), A=sp.csc_matrix((0, 1)), row_lower=np.zeros(0),
        ...              row_upper=np.zeros(0), col_lower=np.zeros(1), col_upper=np.ones(1),
        ...              P=sp.csc_matrix([[4.0]]), blocks={"w": slice(0, 1)})
        >>> back = Problem.read(qp.write(os.path.join(tempfile.mkdtemp(), "qp.mps")))
        >>> back.kind, back.blocks, round(solve(back).objective, 6)
        ('QP', {'w': slice(0, 1, None)}, -0.125)
        """
        from ._files import read_fields

        return cls(**read_fields(path, name=name))

    def read_solution(self, path: str | os.PathLike) -> np.ndarray:
        """Read a solver's solution file for this problem's model file: the point ``x``.

        HiGHS ``writeSolution`` files and the plain ``name value`` lines of Gurobi's ``.sol``
        (``#`` comments) are understood; names are matched to the columns (as :meth:`write`
        names them), unlisted columns are 0. A file that may have lost values is refused: an
        empty one, a HiGHS file with fewer values than its header announces, one whose stated
        objective its point does not reproduce.

        Parameters
        ----------
        path : str or path-like
            The solution file.

        Returns
        -------
        ndarray of shape (n_vars,)
            The point, e.g. for ``output(x, "coef")``.

        Raises
        ------
        ValueError
            For a missing, empty or truncated file, a malformed line or a value that is not a
            finite number (naming the line), a column given twice, names that are not columns of
            the problem, or a stated objective the point does not reproduce; see
            :func:`~aucopt.modeling._interop.read_solution`.

        See Also
        --------
        write : writes the model file with these names.

        Examples
        --------
        >>> import os, tempfile
        >>> from pathlib import Path
        >>> import numpy as np
        >>> import scipy.sparse as sp
        >>> from aucopt import Problem
        >>> lp = Problem(c=np.array([1.0, 2.0]), A=sp.csc_matrix([[1.0, 1.0]]), row_lower=np.array([1.0]),
        ...              row_upper=np.array([np.inf]), col_lower=np.zeros(2), col_upper=np.full(2, np.inf),
        ...              blocks={"x": slice(0, 2)})
        >>> path = os.path.join(tempfile.mkdtemp(), "tiny.sol")
        >>> _ = Path(path).write_text("# Solution for model tiny\\nx(0) 1\\n")
        >>> lp.read_solution(path), lp.objective(lp.read_solution(path))
        (array([1., 0.]), 1.0)
        """
        from ._solutions import read_solution

        return read_solution(self, path)


def missing_output_message(problem: Problem, name: str) -> str:
    """The error text for a problem without the output ``name`` (e.g. ``"coef"``)."""
    have = sorted(problem.outputs) or "none"
    hint = ("; m.scores(alpha) declares it for a kernel expansion" if name == "coef" else "")
    return (f"The problem {problem.name!r} has no output {name!r} (its outputs: {have}). Declare it in the "
            f"formulation with m.output({name!r}, expr), expr an affine expression of the variables{hint}.")
