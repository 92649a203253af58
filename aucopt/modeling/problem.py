"""Standard-form LP / convex QP, the single currency between formulations and solvers.

    minimize    ½ xᵀ P x + cᵀ x + offset
    subject to  row_lower ≤ A x ≤ row_upper
                col_lower ≤ x   ≤ col_upper

``A`` and ``P`` are scipy sparse (CSC); infinite bounds are ``±inf``; ``P`` is ``None`` for
an LP and otherwise symmetric positive semidefinite (both triangles stored). ``blocks``
names the variable blocks (``{"alpha": slice(0, m), ...}``) and ``outputs`` holds affine
maps ``x -> M x + b`` (e.g. the per-point model coefficients) so that a solution maps
back to a model without the solver knowing anything about ranking.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp


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
        For inconsistent shapes, NaN bounds or lower > upper.

    See Also
    --------
    aucopt.solvers.solve : solves a Problem with any backend.
    aucopt.modeling.Formulation.build : builds a Problem from a formulation.

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
        n = len(self.c)
        self.c = np.asarray(self.c, dtype=float)
        self.A = sp.csc_matrix(self.A, dtype=float)
        if self.A.shape[1] != n:
            raise ValueError(f"A has {self.A.shape[1]} columns but there are {n} variables.")
        k = self.A.shape[0]
        for name, size in (("row_lower", k), ("row_upper", k), ("col_lower", n), ("col_upper", n)):
            arr = np.asarray(getattr(self, name), dtype=float)
            if arr.shape != (size,):
                raise ValueError(f"{name} must have shape ({size},), got {arr.shape}.")
            if np.any(np.isnan(arr)):
                raise ValueError(f"{name} contains NaN.")
            setattr(self, name, arr)
        for lo, hi, what in ((self.row_lower, self.row_upper, "row"), (self.col_lower, self.col_upper, "column")):
            if np.any(lo > hi):
                raise ValueError(f"{int(np.sum(lo > hi))} {what} bound(s) have lower > upper.")
        if self.P is not None:
            self.P = sp.csc_matrix(self.P, dtype=float)
            if self.P.shape != (n, n):
                raise ValueError(f"P must be {n}×{n}, got {self.P.shape}.")
            if self.P.nnz == 0:
                self.P = None

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
    def objective(self, x) -> float:
        """½ xᵀPx + cᵀx + offset at ``x``."""
        x = np.asarray(x, dtype=float)
        value = float(self.c @ x) + self.offset
        if self.P is not None:
            value += 0.5 * float(x @ (self.P @ x))
        return value

    def block(self, x, name: str) -> np.ndarray:
        """The entries of ``x`` belonging to the variable block ``name``."""
        return np.asarray(x)[self.blocks[name]]

    def output(self, x, name: str) -> np.ndarray:
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

    def violation(self, x) -> float:
        """Largest bound or row violation of ``x`` (0 for a feasible point)."""
        x = np.asarray(x, dtype=float)
        Ax = self.A @ x
        parts = [self.row_lower - Ax, Ax - self.row_upper, self.col_lower - x, x - self.col_upper]
        return float(max(0.0, *(np.max(p, initial=0.0) for p in parts)))


def missing_output_message(problem: Problem, name: str) -> str:
    """The error text for a problem without the output ``name`` (e.g. ``"coef"``)."""
    have = sorted(problem.outputs) or "none"
    hint = ("; m.scores(alpha) declares it for a kernel expansion" if name == "coef" else "")
    return (f"The problem {problem.name!r} has no output {name!r} (its outputs: {have}). Declare it in the "
            f"formulation with m.output({name!r}, expr), expr an affine expression of the variables{hint}.")
