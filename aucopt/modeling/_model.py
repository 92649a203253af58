"""The declarative layer: formulations state math, the builder emits a :class:`~aucopt.problem.Problem`.

A formulation is a function ``f(m, **params)`` registered with :func:`formulation`. It receives a
:class:`Model` ``m`` that knows the pair set and the kernel, and uses only:

* ``m.variable(name, size, lower=None, upper=None)`` — a block of decision variables;
* affine algebra on them (``+ - *``, ``matrix @ expr``, ``vector @ expr``, ``.sum()``) and the
  operators ``m.scores(coef)`` (f = K·coef, or K·Y·coef when ``signed``) and
  ``m.pair_difference(f)`` (the rows f_i − f_j, one per pair);
* ``m.sum_squares(expr)`` for convex quadratic objectives;
* ``m.minimize(objective)`` and ``m.subject_to(expr >= rhs, expr <= rhs, expr == rhs, ...)``.

The builder owns sparsity and lifting: by default ``m.scores`` introduces auxiliary score
variables s with the equality rows s − K Y α = 0, so each pair row ``s_i − s_j + z_ij ≥ 1``
has 3 nonzeros (m² + 3P in total) instead of the thesis's dense P × m block. ``lifted=False``
reproduces the dense form for comparison (see ``benchmarks/``).
"""

from __future__ import annotations

import sys
from numbers import Real
from typing import Callable

import numpy as np
import scipy.sparse as sp

from .._formulations_path import ensure_formulations_package
from .._validation import format_bytes
from ..exceptions import check_memory
from ..pairs import BYTES_PER_PAIR, DEFAULT_MAX_BYTES, PairSet
from .problem import Problem

BYTES_PER_NONZERO = 8 + 4  # float64 value + int32 index (CSC)


# ============================================================================ expressions
class Affine:
    """A vector-valued affine expression Σ_b M_b x_b + const over named variable blocks."""

    __array_ufunc__ = None  # let numpy defer ``ndarray @ expr`` / ``scalar * expr`` to us

    def __init__(self, model: "Model", terms: dict, const):
        self.model = model
        self.terms = terms  # name -> sparse (size × block size)
        self.const = np.asarray(const, dtype=float)

    @property
    def size(self) -> int:
        return len(self.const)

    def __len__(self) -> int:
        return self.size

    # ----------------------------------------------------------------- algebra
    def _lift(self, other) -> "Affine":
        if isinstance(other, Affine):
            return other
        if isinstance(other, Real) or (isinstance(other, (np.ndarray, list, tuple)) and np.ndim(other) <= 1):
            const = np.broadcast_to(np.asarray(other, dtype=float), (self.size,))
            return Affine(self.model, {}, const.copy())
        return NotImplemented

    def __add__(self, other):
        other = self._lift(other)
        if other is NotImplemented:
            return other
        if other.size != self.size:
            raise ValueError(f"Cannot add expressions of sizes {self.size} and {other.size}.")
        terms = dict(self.terms)
        for name, M in other.terms.items():
            terms[name] = terms[name] + M if name in terms else M
        return Affine(self.model, terms, self.const + other.const)

    __radd__ = __add__

    def __neg__(self):
        return Affine(self.model, {k: -M for k, M in self.terms.items()}, -self.const)

    def __sub__(self, other):
        other = self._lift(other)
        return other if other is NotImplemented else self + (-other)

    def __rsub__(self, other):
        return (-self) + other

    def __mul__(self, scalar):
        if not isinstance(scalar, Real):
            return NotImplemented
        return Affine(self.model, {k: scalar * M for k, M in self.terms.items()}, scalar * self.const)

    __rmul__ = __mul__

    def __rmatmul__(self, left):
        """``matrix @ expr`` (new size = rows) or ``vector @ expr`` (a scalar expression)."""
        if sp.issparse(left):
            M = sp.csr_matrix(left)
        else:
            left = np.asarray(left, dtype=float)
            M = left[None, :] if left.ndim == 1 else left
            M = sp.csr_matrix(M)
        if M.shape[1] != self.size:
            raise ValueError(f"Shape mismatch: matrix with {M.shape[1]} columns @ expression of size {self.size}.")
        self.model._check_nnz_budget(M, self, "a matrix @ expression product")
        terms = {k: sp.csr_matrix(M @ T) for k, T in self.terms.items()}
        return Affine(self.model, terms, M @ self.const)

    def sum(self) -> "Affine":
        return np.ones(self.size) @ self

    # ----------------------------------------------------------------- constraints
    def __ge__(self, rhs):
        if isinstance(rhs, Affine):
            return (self - rhs) >= 0
        return Constraint(self, lower=rhs, upper=np.inf)

    def __le__(self, rhs):
        if isinstance(rhs, Affine):
            return (self - rhs) <= 0
        return Constraint(self, lower=-np.inf, upper=rhs)

    def __eq__(self, rhs):  # type: ignore[override]
        if isinstance(rhs, Affine):
            return (self - rhs) == 0
        return Constraint(self, lower=rhs, upper=rhs)

    __hash__ = None  # type: ignore[assignment]


class Variable(Affine):
    """A block of ``size`` decision variables with bounds ``lower ≤ x ≤ upper``."""

    def __init__(self, model, name, size, lower, upper):
        super().__init__(model, {name: sp.identity(size, format="csr")}, np.zeros(size))
        self.name = name
        self.lower = np.broadcast_to(np.asarray(-np.inf if lower is None else lower, float), (size,))
        self.upper = np.broadcast_to(np.asarray(np.inf if upper is None else upper, float), (size,))

    def __repr__(self):
        return f"Variable({self.name!r}, size={self.size})"


class Constraint:
    """``lower ≤ expr ≤ upper`` (element-wise)."""

    def __init__(self, expr: Affine, lower, upper):
        self.expr = expr
        self.lower = np.broadcast_to(np.asarray(lower, float), (expr.size,)) - expr.const
        self.upper = np.broadcast_to(np.asarray(upper, float), (expr.size,)) - expr.const


class Quadratic:
    """½ Σ_b x_bᵀ Q_b x_b + (scalar affine); blocks are diagonal in the variable layout."""

    __array_ufunc__ = None

    def __init__(self, quad: dict, linear: Affine):
        self.quad = quad
        self.linear = linear

    def __add__(self, other):
        if isinstance(other, Quadratic):
            quad = dict(self.quad)
            for k, Q in other.quad.items():
                quad[k] = quad[k] + Q if k in quad else Q
            return Quadratic(quad, self.linear + other.linear)
        return Quadratic(self.quad, self.linear + other)

    __radd__ = __add__

    def __mul__(self, scalar):
        if not isinstance(scalar, Real) or scalar < 0:
            return NotImplemented  # keeps the objective convex
        return Quadratic({k: scalar * Q for k, Q in self.quad.items()}, scalar * self.linear)

    __rmul__ = __mul__

    def __sub__(self, other):
        return self + (-other)


# ============================================================================ model
class Model:
    """Build context handed to a formulation.

    Parameters
    ----------
    pairs : the :class:`~aucopt.pairs.PairSet` (defines ``n_points``, ``signs``, the pair rows).
    kernel : ``n_points × n_basis`` kernel matrix K between training points and the expansion basis.
    factor : optional ``n_points × r`` matrix L with K = L Lᵀ (dense or sparse), e.g. the
        explicit features of a linear kernel; computed from ``kernel`` on first use otherwise.
    lifted : emit auxiliary score variables (sparse) instead of dense pair rows.
    max_bytes : refuse to assemble anything larger (pair arrays, dense blocks) than this.
    """

    def __init__(self, pairs: PairSet, kernel=None, *, factor=None, lifted: bool = True,
                 max_bytes: int | None = DEFAULT_MAX_BYTES):
        self.pairs = pairs.check_nonempty()
        self.kernel = None if kernel is None else np.asarray(kernel, dtype=float)
        if factor is not None and factor.shape[0] != pairs.n_points:
            raise ValueError(f"The kernel factor has {factor.shape[0]} rows but the pair set has {pairs.n_points} points.")
        self._factor = factor
        if self.kernel is not None and self.kernel.shape[0] != pairs.n_points:
            raise ValueError(
                f"The kernel has {self.kernel.shape[0]} rows but the pair set has {pairs.n_points} points."
            )
        self.lifted = lifted
        self.max_bytes = max_bytes
        self.n_points = pairs.n_points
        self.n_pairs = pairs.n_pairs
        self.signs = pairs.signs
        self._i, self._j, self.pair_weights = pairs.to_arrays(max_bytes)
        self._variables: dict[str, Variable] = {}
        self._constraints: list[Constraint] = []
        self._objective: Quadratic | None = None
        self._outputs: dict[str, Affine] = {}

    # ----------------------------------------------------------------- declarations
    @property
    def n_basis(self) -> int:
        if self.kernel is None:
            raise ValueError("This formulation needs a kernel matrix (pass kernel=K to build).")
        return self.kernel.shape[1]

    @property
    def kernel_factor(self):
        """L (points × r) with K = L Lᵀ: the given factor, or an exact eigen-factor of K."""
        if self._factor is None:
            from ..kernels import kernel_factor

            if self.kernel is None:
                raise ValueError("This formulation needs a kernel matrix or a kernel factor.")
            self._factor = kernel_factor(self.kernel)
        return self._factor

    def variable(self, name: str, size: int, lower=None, upper=None) -> Variable:
        if name in self._variables:
            raise ValueError(f"Variable {name!r} is declared twice.")
        var = Variable(self, name, int(size), lower, upper)
        self._variables[name] = var
        return var

    def minimize(self, objective) -> None:
        if isinstance(objective, Affine):
            objective = Quadratic({}, objective)
        if not isinstance(objective, Quadratic) or objective.linear.size != 1:
            raise ValueError("The objective must be a scalar affine or convex quadratic expression.")
        self._objective = objective

    def subject_to(self, *constraints: Constraint) -> None:
        for con in constraints:
            if not isinstance(con, Constraint):
                raise TypeError(f"Expected a constraint such as `expr >= 1`, got {type(con).__name__}.")
            self._constraints.append(con)

    def output(self, name: str, expr: Affine) -> None:
        """Record an affine map of the solution, evaluated by ``Problem.output(x, name)``."""
        self._outputs[name] = expr

    # ----------------------------------------------------------------- operators
    @property
    def pair_incidence(self) -> sp.csr_matrix:
        """D (pairs × points): row (i, j) has +1 at i and −1 at j, so (D f)_ij = f_i − f_j."""
        P = self.n_pairs
        rows = np.repeat(np.arange(P), 2)
        cols = np.column_stack([self._i, self._j]).ravel()
        vals = np.tile([1.0, -1.0], P)
        return sp.csr_matrix((vals, (rows, cols)), shape=(P, self.n_points))

    def pair_difference(self, f: Affine) -> Affine:
        """The pair rows f_i − f_j for every pair (i, j), in pair order."""
        return self.pair_incidence @ f

    def scores(self, coef: Affine, *, signed: bool = True, name: str = "scores") -> Affine:
        """Training scores f = K·Y·coef (``signed``) or K·coef, and the output ``"coef"``.

        With ``lifted=True`` this declares free score variables ``s`` and the rows
        s − K Y coef = 0, returning ``s``; otherwise it returns the dense expression.
        """
        if self.kernel is None:
            raise ValueError("This formulation needs a kernel matrix.")
        if coef.size != self.n_basis:
            raise ValueError(f"coef has size {coef.size}, the kernel basis has {self.n_basis} points.")
        expansion = sp.diags(self.signs) @ coef if signed else coef
        self.output("coef", expansion)
        f = self.kernel @ expansion
        if not self.lifted:
            return f
        s = self.variable(name, self.n_points)
        self.subject_to(s - f == 0)
        return s

    def lift(self, expr: Affine, name: str | None = None) -> Variable:
        """A new free variable v with the rows v − expr = 0; keeps later products sparse
        (e.g. v = Aᵀα has 2 nonzeros per pair, and Lᵀv then costs r·n, not r·P)."""
        v = self.variable(name or f"_aux{len(self._variables)}", expr.size)
        self.subject_to(v - expr == 0)
        return v

    def sum_squares(self, expr: Affine, weights=None) -> Quadratic:
        """Σ_k weights_k · expr_k² (weights default 1, must be ≥ 0); a non-variable
        expression is lifted into an auxiliary variable first."""
        if not (isinstance(expr, Variable) and np.all(expr.const == 0)):
            expr = self.lift(expr)
        w = np.ones(expr.size) if weights is None else np.broadcast_to(np.asarray(weights, float), (expr.size,))
        if np.any(w < 0) or not np.all(np.isfinite(w)):
            raise ValueError("sum_squares weights must be finite and non-negative (convexity).")
        zero = Affine(self, {}, np.zeros(1))
        return Quadratic({expr.name: sp.diags(2.0 * w, format="csc")}, zero)

    # ----------------------------------------------------------------- assembly
    def _check_nnz_budget(self, M, expr: Affine, what: str) -> None:
        if self.max_bytes is None:
            return
        per_row = sum(T.nnz for T in expr.terms.values()) / max(expr.size, 1)
        row_nnz = np.diff(sp.csr_matrix(M).indptr) if M.shape[0] > 0 else np.zeros(0)
        estimate = float(row_nnz.sum()) * max(per_row, 1.0) * BYTES_PER_NONZERO
        if estimate > self.max_bytes:
            raise ValueError(
                f"Forming {what} ({M.shape[0]:,} rows) would need about {format_bytes(estimate)} "
                f"(limit {format_bytes(self.max_bytes)}); use the lifted form (lifted=True), "
                "fewer points or pairs, or raise max_bytes."
            )

    def build(self, name: str = "problem") -> Problem:
        if self._objective is None:
            raise ValueError("The formulation never called m.minimize(...).")
        offsets, n = {}, 0
        for vname, var in self._variables.items():
            offsets[vname] = slice(n, n + var.size)
            n += var.size

        def row_block(expr: Affine) -> sp.csr_matrix:
            parts = []
            for vname, T in expr.terms.items():
                T = sp.coo_matrix(T)
                parts.append((T.row, T.col + offsets[vname].start, T.data))
            if not parts:
                return sp.csr_matrix((expr.size, n))
            r, c, v = (np.concatenate(p) for p in zip(*parts))
            return sp.csr_matrix((v, (r, c)), shape=(expr.size, n))

        A = sp.vstack([row_block(con.expr) for con in self._constraints] or [sp.csr_matrix((0, n))])
        row_lower = np.concatenate([con.lower for con in self._constraints] or [np.zeros(0)])
        row_upper = np.concatenate([con.upper for con in self._constraints] or [np.zeros(0)])
        lin = self._objective.linear
        c = np.asarray(row_block(lin).todense()).ravel()
        P = None
        if self._objective.quad:
            diag_blocks = [
                (offsets[v].start, sp.coo_matrix(Q)) for v, Q in self._objective.quad.items()
            ]
            r = np.concatenate([Q.row + o for o, Q in diag_blocks])
            cc = np.concatenate([Q.col + o for o, Q in diag_blocks])
            vv = np.concatenate([Q.data for _, Q in diag_blocks])
            P = sp.csc_matrix((vv, (r, cc)), shape=(n, n))
        col_lower = np.concatenate([v.lower for v in self._variables.values()])
        col_upper = np.concatenate([v.upper for v in self._variables.values()])
        outputs = {k: (row_block(e), e.const.copy()) for k, e in self._outputs.items()}
        return Problem(c=c, A=A.tocsc(), row_lower=row_lower, row_upper=row_upper,
                       col_lower=col_lower, col_upper=col_upper, P=P, offset=float(lin.const[0]),
                       blocks=offsets, outputs=outputs, name=name,
                       metadata={"n_points": self.n_points, "n_pairs": self.n_pairs,
                                 "lifted": self.lifted, "pair_target": self.pairs.target})


# ============================================================================ registry
_REGISTRY: dict[str, "Formulation"] = {}


class Formulation:
    """A registered formulation: ``build(pairs, kernel, **params) -> Problem``."""

    def __init__(self, func: Callable, name: str, kind: str):
        self.func, self.name, self.kind = func, name, kind
        module = sys.modules.get(getattr(func, "__module__", ""), None)
        self.__doc__ = func.__doc__ or getattr(module, "__doc__", None)

    def __call__(self, m: Model, **params):
        return self.func(m, **params)

    def build(self, pairs: PairSet, kernel=None, *, factor=None, lifted: bool = True,
              max_bytes: int | None = DEFAULT_MAX_BYTES, **params) -> Problem:
        m = Model(pairs, kernel, factor=factor, lifted=lifted, max_bytes=max_bytes)
        self.func(m, **params)
        return m.build(self.name)

    def estimate_nbytes(self, *, n_points: int, n_pairs: int, n_basis: int, lifted: bool = True) -> float:
        """Memory the assembled problem would need: pair arrays, kernel block and constraint nonzeros.

        Counts the lifted score rows (n_points × n_basis nonzeros) and the pair rows (3 nonzeros
        each when lifted, 2·n_basis otherwise), as the builder emits them.
        """
        rows = n_points * n_basis + (3 if lifted else 2 * n_basis) * n_pairs
        return float(rows * BYTES_PER_NONZERO + n_pairs * BYTES_PER_PAIR + n_points * n_basis * 8)

    def check_size(self, *, n_points: int, n_pairs: int, n_basis: int, lifted: bool = True,
                   max_bytes: float | None = DEFAULT_MAX_BYTES) -> None:
        """Raise :class:`~aucopt.exceptions.ProblemTooLargeError` before building a problem over budget."""
        need = self.estimate_nbytes(n_points=n_points, n_pairs=n_pairs, n_basis=n_basis, lifted=lifted)
        check_memory(need, max_bytes,
                     f"The {'lifted' if lifted else 'dense'} {self.kind.upper()} {self.name!r} for "
                     f"{n_points:,} points and {n_pairs:,} pairs",
                     "use a scalable path that never lists pairs (LPRanker(method='subgradient'), "
                     "method='clustering' or method='chunking'; RankSVM / RankRC), or subsample")

    def __repr__(self):
        return f"Formulation({self.name!r}, {self.kind})"


def formulation(name: str | None = None, *, kind: str = "lp"):
    """Decorator registering ``func(m, **params)`` as a formulation (``kind`` is "lp" or "qp")."""

    def register(func):
        key = name or func.__name__
        form = Formulation(func, key, kind)
        _REGISTRY[key] = form
        return form

    return register


def get_formulation(name_or_func) -> Formulation:
    """Look up a registered formulation by name, or wrap a plain function ``f(m, **params)``."""
    if isinstance(name_or_func, Formulation):
        return name_or_func
    if callable(name_or_func):
        return Formulation(name_or_func, getattr(name_or_func, "__name__", "custom"), "custom")
    ensure_formulations_package()  # registers the shipped formulations

    if name_or_func not in _REGISTRY:
        raise ValueError(f"Unknown formulation {name_or_func!r}; available: {sorted(_REGISTRY)}.")
    return _REGISTRY[name_or_func]


def available_formulations() -> list[str]:
    ensure_formulations_package()

    return sorted(_REGISTRY)
