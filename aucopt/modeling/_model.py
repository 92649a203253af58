"""The declarative layer: formulations state the mathematics, the builder emits a :class:`Problem`.

A formulation is a function ``f(m, **params)`` registered with :func:`formulation`. It receives a
:class:`Model` ``m`` that knows the pair set and the kernel, and uses only:

* ``m.variable(name, size, lower=None, upper=None)`` — a block of decision variables;
* affine algebra on them (``+ - *``, ``matrix @ expr``, ``vector @ expr``, ``.sum()``, indexing
  ``expr[idx]``; a size-1 expression broadcasts against a larger one) and the operators
  ``m.scores(coef)`` (f = K·coef, or K·Y·coef when ``signed``) and ``m.pair_difference(f)`` (the
  rows f_i − f_j, one per pair);
* index sets ``m.positives``, ``m.negatives`` (from the label signs) and ``m.pair_index`` (the
  pairs (i, j) in pair order);
* grouped sums ``m.group_sum(expr, groups)`` and ``m.group_mean(expr, groups)``;
* epigraph operators, each declaring new variables and rows, exact when the objective pushes the
  new variables down (they appear with a non-negative coefficient in a minimized objective):
  ``m.maximum(expr)`` and ``m.group_max(expr, groups)`` (t ≥ expr_k), ``m.positive_part(expr)``
  (the hinge, u ≥ expr, u ≥ 0), ``m.abs(expr)`` (u ≥ ±expr) and ``m.sum_largest(expr, k,
  groups=None)`` (the sum of the k largest entries by the LP of Ogryczak & Tamir (2003), the
  CVaR form of Rockafellar & Uryasev (2000));
* ``m.sum_squares(expr)`` for convex quadratic objectives;
* ``m.minimize(objective)`` and ``m.subject_to(expr >= rhs, expr <= rhs, expr == rhs, ...)``.

Convexity is verified as each statement is declared (disciplined convex programming, the rules of
cvxpy's DCP, exact here because every operator is an epigraph in linear rows). The model records
the blocks created by the epigraph operators and which are known non-negative; a row of an
expression is affine without a coefficient on such blocks, convex when all those coefficients are
≥ 0, concave when all are ≤ 0. A row ``expr >= rhs`` needs a concave ``expr``, ``expr <= rhs`` a
convex one, ``expr == rhs`` an affine one, and the objective must be convex; an operator's own
rows are exempt for the block they create only, which gives DCP's composition rules
(``positive_part``, ``maximum``, ``group_max`` and ``sum_largest`` are nondecreasing: a convex
argument is fine; ``abs`` takes an affine argument, a convex non-negative or a concave
non-positive one). ``sum_squares`` takes affine entries and, by an inequality epigraph, convex
non-negative ones. Products of expressions, negative multiples of a ``sum_squares`` and quadratic
constraints are refused. A violation raises :class:`~aucopt.exceptions.ConvexityError` naming the
statement and its source line, the operator, the side and the fix; the check reads the epigraph
blocks' coefficients only, so a model without epigraph operators pays nothing.

The pairs are listed (``PairSet.to_arrays``, under the ``max_bytes`` budget) on first use of
``m.pair_weights``, ``m.pair_index``, ``m.pair_incidence`` or ``m.pair_difference``; a
formulation that uses none of them, such as ``top_push``, never lists a pair.

The builder owns sparsity and lifting: by default ``m.scores`` introduces auxiliary score
variables s with the equality rows s − K Y α = 0, so each pair row ``s_i − s_j + z_ij ≥ 1``
has 3 nonzeros (m² + 3P in total) instead of the dense P × m block of Ataman (2007), eq. 3.3.
``lifted=False`` reproduces the dense form for comparison (see ``benchmarks/``).
"""

from __future__ import annotations

import inspect
import linecache
import math
import os
import sys
from collections.abc import Callable
from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import InvalidParameterError, make_constraint, validate_parameter_constraints

from .._formulations_path import ensure_formulations_package
from ..exceptions import ConvexityError, check_memory
from ..pairs import DEFAULT_MAX_BYTES, PairSet
from .problem import Problem

BYTES_PER_NONZERO = 8 + 4
"""Bytes per stored nonzero of a sparse matrix: a float64 value and an int32 index (CSC)."""


# ============================================================================ convexity helpers
_PACKAGE_DIRS = tuple({os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,
                       os.path.dirname(os.path.dirname(os.path.realpath(__file__))) + os.sep})


def _caller_site():
    """``(filename, lineno, source line)`` of the first frame outside the aucopt package, or None.

    Called only to word an error, so a refused statement is named by the user's own line (a
    formulation file, a script, a notebook cell); no cost on the normal path.
    """
    try:
        frame = sys._getframe(1)
    except (AttributeError, ValueError):  # an interpreter without frame access
        return None
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIRS):
        frame = frame.f_back
    if frame is None:
        return None
    filename, lineno = frame.f_code.co_filename, frame.f_lineno
    return filename, lineno, _strip_comment(linecache.getline(filename, lineno).strip())


def _strip_comment(line: str) -> str:
    """The source line without a trailing ``# comment`` (tokenized, so a ``#`` in a string stays)."""
    import io
    import tokenize

    try:
        for token in tokenize.generate_tokens(io.StringIO(line).readline):
            if token.type == tokenize.COMMENT:
                return line[:token.start[1]].rstrip()
    except (tokenize.TokenError, SyntaxError):
        pass
    return line


def _signed_rows(T) -> tuple[np.ndarray, np.ndarray]:
    """The rows holding a positive and a negative coefficient of a sparse block (with repeats)."""
    T = T if getattr(T, "format", None) == "csr" else sp.csr_matrix(T)
    if T.nnz == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    rows = np.repeat(np.arange(T.shape[0]), np.diff(T.indptr))
    return rows[T.data > 0], rows[T.data < 0]


def _number(b) -> str:
    return f"{float(b):g}"


def _fix_lower_bound(op: str, b) -> str:
    """How to restate ``op(expr) >= b`` (a convex function bounded from below, not a convex set)."""
    vacuous = float(b) <= 0
    b = _number(b)
    if op in ("abs", "positive_part") and vacuous:
        return (f"Alone, {op}(expr) >= {b} holds everywhere ({op} is never negative): drop the row; next to other "
                f"terms it is not a convex set in general: bound {op} by above ({op}(expr) <= b).")
    if op == "abs":
        return (f"abs(expr) >= {b} is not a convex set; bound abs by above (abs(expr) <= b), or model the two "
                "sides with a binary choice, which an LP cannot.")
    if op == "positive_part":
        return (f"positive_part(expr) >= {b} is not a convex set as written; alone it means expr >= {b}: write that "
                "affine row instead, or bound positive_part by above (positive_part(expr) <= b).")
    if op in ("maximum", "group_max"):
        return (f"max(expr) >= {b} asks that some entry reach {b}, a choice between entries that an LP cannot "
                f"state; require it of every entry (expr >= {b}), or bound the maximum by above (max(expr) <= b).")
    if op == "sum_largest":
        return (f"sum_largest(expr, k) >= {b} is not a convex set; bound it by above (sum_largest(expr, k) <= b), "
                "or bound a fixed sum of entries from below.")
    return f"{op}(expr) >= {b} is not a convex set; bound {op} by above instead."


# ============================================================================ input checks
class MissingGroupsError(ValueError):
    """A formulation reads :attr:`Model.groups` and the pair set carries none.

    Raised by :attr:`Model.groups`, so that a caller that knows how groups are given (a command
    line option, an estimator's ``fit``) can say so.
    """


def check_kernel_values(kernel, factor=None, formulation: str | None = None) -> None:
    """Refuse a kernel matrix or kernel factor with a NaN or infinite entry, before anything is built.

    Every kernel entry becomes a coefficient of the problem (a score row, a pair row or the
    quadratic term), where a NaN would surface as a backend's message about a row bound or a
    coefficient; the check names the matrix, the count, the first entry and the fix instead. It
    allocates nothing when every entry is finite (the minimum and the maximum are).

    Parameters
    ----------
    kernel : ndarray of shape (n_points, n_basis) or None
        The kernel matrix.
    factor : ndarray or sparse matrix of shape (n_points, r), default=None
        The kernel factor L (K = L Lᵀ); other objects are not inspected.
    formulation : str, default=None
        The formulation's name, for the message.

    Raises
    ------
    ValueError
        Naming the matrix, the number of non-finite entries, the first one and its position.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.modeling._model import check_kernel_values
    >>> check_kernel_values(np.eye(2))
    >>> try:
    ...     check_kernel_values(np.array([[1.0, np.nan], [np.nan, 1.0]]), formulation="lp_ranker")
    ... except ValueError as exc:
    ...     print(exc)
    The kernel matrix of formulation 'lp_ranker' has 2 non-finite entries (NaN or infinite) among 4, the first nan
    at row 0, column 1: every entry is a coefficient of the problem and must be finite. ...
    """
    of = f" of formulation {formulation!r}" if formulation else ""
    for what, M in (("kernel matrix", kernel), ("kernel factor", factor)):
        if M is None:
            continue
        if sp.issparse(M) or isinstance(M, np.ndarray):
            data = np.asarray(M.data) if sp.issparse(M) else M
        else:
            continue
        if data.size == 0 or data.dtype.kind not in "fc" or (np.isfinite(data.min()) and np.isfinite(data.max())):
            continue
        rows = cols = None
        if sp.issparse(M):  # positions only now, on the error path
            values = M.tocoo()
            data, rows, cols = values.data, values.row, values.col
        bad = ~np.isfinite(data)
        first = tuple(np.argwhere(bad)[0])
        if rows is not None:
            where = f"row {rows[first[0]]}, column {cols[first[0]]}"
        else:
            where = f"row {first[0]}, column {first[1]}" if data.ndim == 2 else f"index {first}"
        count = int(np.count_nonzero(bad))
        raise ValueError(
            f"The {what}{of} has {count:,} non-finite {'entry' if count == 1 else 'entries'} (NaN or infinite) "
            f"among {data.size:,}, the first {data[first]} at {where}: every entry is a "
            "coefficient of the problem and must be finite. Check the data it was computed from for NaN or "
            "infinite values, rescale it if the kernel overflows, or check the kernel function.")


# ============================================================================ expressions
class Affine:
    """A vector-valued affine expression Σ_b M_b x_b + const over named variable blocks.

    Affine expressions are what :meth:`Model.variable` returns and what the algebra produces:
    ``expr + expr``, ``expr - vector``, ``scalar * expr``, ``matrix @ expr`` (dense or scipy
    sparse), ``vector @ expr`` (a size-1 expression) and :meth:`sum`. Comparisons ``>=``, ``<=``
    and ``==`` with a number, a vector or another expression make a :class:`Constraint`.

    Parameters
    ----------
    model : Model
        The model the variables belong to.
    terms : dict
        Variable-block name → sparse coefficient matrix (size × block size).
    const : array-like of shape (size,)
        The constant part.

    Attributes
    ----------
    size : int
        Number of entries.

    See Also
    --------
    Model.variable : declares the blocks expressions are built from.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import Model, PairSet
    >>> m = Model(PairSet.bipartite([1, 0]))
    >>> x = m.variable("x", 3)
    >>> expr = 2.0 * x + np.array([1.0, 0.0, -1.0])
    >>> expr.size, (np.ones((2, 3)) @ expr).size, expr.sum().size
    (3, 2, 1)
    """

    __array_ufunc__ = None  # let numpy defer ``ndarray @ expr`` / ``scalar * expr`` to us

    def __init__(self, model: Model, terms: dict, const):
        self.model = model
        self.terms = terms  # name -> sparse (size × block size)
        self.const = np.asarray(const, dtype=float)

    @property
    def size(self) -> int:
        """Number of entries of the expression."""
        return len(self.const)

    def __len__(self) -> int:
        return self.size

    def __array__(self, dtype=None, copy=None):
        # an opaque object to numpy and scipy (not a sequence despite ``__getitem__``), so that
        # ``sparse @ expr`` and ``ndarray @ expr`` defer to :meth:`__rmatmul__`
        box = np.empty((), dtype=object)
        box[()] = self
        return box

    # ----------------------------------------------------------------- algebra
    def _lift(self, other) -> Affine:
        if isinstance(other, Affine):
            return other
        if isinstance(other, Real) or (isinstance(other, (np.ndarray, list, tuple)) and np.ndim(other) <= 1):
            const = np.broadcast_to(np.asarray(other, dtype=float), (self.size,))
            return Affine(self.model, {}, const.copy())
        return NotImplemented

    def _broadcast(self, size: int) -> Affine:
        """This size-1 expression repeated ``size`` times."""
        return np.ones((size, 1)) @ self

    def __add__(self, other):
        other = self._lift(other)
        if other is NotImplemented:
            return other
        if other.size != self.size and 1 in (self.size, other.size):  # size-1 broadcasts
            if other.size == 1:
                other = other._broadcast(self.size)
            else:
                return self._broadcast(other.size) + other
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
        if isinstance(scalar, (Affine, Quadratic)):
            raise ConvexityError(self.model._product_message(self, "*", scalar))
        if not isinstance(scalar, Real):
            return NotImplemented
        return Affine(self.model, {k: scalar * M for k, M in self.terms.items()}, scalar * self.const)

    __rmul__ = __mul__

    def __matmul__(self, other):
        if isinstance(other, (Affine, Quadratic)):
            raise ConvexityError(self.model._product_message(self, "@", other))
        return NotImplemented

    def __rmatmul__(self, left):
        """``matrix @ expr`` (new size = rows) or ``vector @ expr`` (a scalar expression)."""
        if isinstance(left, (Affine, Quadratic)):
            raise ConvexityError(self.model._product_message(left, "@", self))
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

    def sum(self) -> Affine:
        """The size-1 expression Σ_k expr_k."""
        return np.ones(self.size) @ self

    def __getitem__(self, key) -> Affine:
        """The entries ``expr[key]`` (an integer, a slice, an index array or a boolean mask), in that order."""
        index = np.atleast_1d(np.arange(self.size)[key])
        if index.ndim != 1:
            raise IndexError(f"An expression has one axis; got the index {key!r}.")
        return Affine(self.model, {k: sp.csr_matrix(T)[index] for k, T in self.terms.items()},
                      self.const[index])

    # ----------------------------------------------------------------- constraints
    def __ge__(self, rhs):
        if isinstance(rhs, Quadratic):
            raise ConvexityError(self.model._quadratic_constraint_message(">="))
        if isinstance(rhs, Affine):
            return (self - rhs) >= 0
        return Constraint(self, lower=rhs, upper=np.inf)

    def __le__(self, rhs):
        if isinstance(rhs, Quadratic):
            raise ConvexityError(self.model._quadratic_constraint_message("<="))
        if isinstance(rhs, Affine):
            return (self - rhs) <= 0
        return Constraint(self, lower=-np.inf, upper=rhs)

    def __eq__(self, rhs):  # type: ignore[override]
        if isinstance(rhs, Quadratic):
            raise ConvexityError(self.model._quadratic_constraint_message("=="))
        if isinstance(rhs, Affine):
            return (self - rhs) == 0
        return Constraint(self, lower=rhs, upper=rhs)

    __hash__ = None  # type: ignore[assignment]


class Variable(Affine):
    """A block of ``size`` decision variables with bounds ``lower ≤ x ≤ upper``.

    Created by :meth:`Model.variable`; behaves as the affine expression ``x``.

    Parameters
    ----------
    model : Model
        The model that owns the block.
    name : str
        Block name (a key of ``Problem.blocks``).
    size : int
        Number of variables.
    lower, upper : float, array-like or None
        Bounds; None means −∞ resp. +∞.

    Attributes
    ----------
    name : str
        Block name.
    lower, upper : ndarray of shape (size,)
        The bounds.

    See Also
    --------
    Model.variable : declares a Variable.

    Examples
    --------
    >>> from aucopt import Model, PairSet
    >>> m = Model(PairSet.bipartite([1, 0]))
    >>> m.variable("z", 4, lower=0)
    Variable('z', size=4)
    """

    def __init__(self, model, name, size, lower, upper):
        super().__init__(model, {name: sp.identity(size, format="csr")}, np.zeros(size))
        self.name = name
        self.lower = np.broadcast_to(np.asarray(-np.inf if lower is None else lower, float), (size,))
        self.upper = np.broadcast_to(np.asarray(np.inf if upper is None else upper, float), (size,))

    def __repr__(self):
        return f"Variable({self.name!r}, size={self.size})"


class Constraint:
    """Element-wise ``lower ≤ expr ≤ upper``, made by comparing an :class:`Affine` expression.

    The expression's constant is moved into the bounds.

    Parameters
    ----------
    expr : Affine
        The constrained expression.
    lower, upper : float or array-like
        Bounds (±inf for one-sided rows).

    Attributes
    ----------
    expr : Affine
        The expression.
    lower, upper : ndarray of shape (expr.size,)
        The bounds on the expression's variable part.

    See Also
    --------
    Model.subject_to : adds constraints to a model.

    Examples
    --------
    >>> from aucopt import Model, PairSet
    >>> m = Model(PairSet.bipartite([1, 0]))
    >>> x = m.variable("x", 2)
    >>> con = x + 1.0 >= 3.0
    >>> con.lower, con.upper
    (array([2., 2.]), array([inf, inf]))
    """

    def __init__(self, expr: Affine, lower, upper):
        self.expr = expr
        self.lower = np.broadcast_to(np.asarray(lower, float), (expr.size,)) - expr.const
        self.upper = np.broadcast_to(np.asarray(upper, float), (expr.size,)) - expr.const


class Quadratic:
    """A convex quadratic objective ½ Σ_b x_bᵀ Q_b x_b + (scalar affine part).

    Made by :meth:`Model.sum_squares`; may be added to another quadratic or to a scalar affine
    expression and multiplied by a non-negative number (which keeps it convex). Everything else
    raises :class:`~aucopt.exceptions.ConvexityError`: a negative multiple or a negation
    (``-m.sum_squares(x)`` is concave, and minimizing it is not a convex problem), a product
    with an expression, and a comparison (a quadratic constraint, which an LP / QP with a
    quadratic objective only cannot hold).

    Parameters
    ----------
    quad : dict
        Variable-block name → its (diagonal, positive semidefinite) block Q_b.
    linear : Affine
        The size-1 affine part.

    See Also
    --------
    Model.sum_squares : makes a Quadratic.
    Model.minimize : takes it as the objective.

    Examples
    --------
    >>> from aucopt import Model, PairSet
    >>> m = Model(PairSet.bipartite([1, 0]))
    >>> x = m.variable("x", 2)
    >>> objective = 0.5 * m.sum_squares(x) - x.sum()
    >>> sorted(objective.quad)
    ['x']
    """

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
        if isinstance(scalar, (Affine, Quadratic)):
            raise ConvexityError(self.linear.model._product_message(self, "*", scalar))
        if not isinstance(scalar, Real):
            return NotImplemented
        if scalar < 0:  # keeps the objective convex
            raise ConvexityError(self.linear.model._concave_quadratic_message(f"{_number(scalar)} * sum_squares(...)"))
        return Quadratic({k: scalar * Q for k, Q in self.quad.items()}, scalar * self.linear)

    __rmul__ = __mul__

    def __neg__(self):
        raise ConvexityError(self.linear.model._concave_quadratic_message("-sum_squares(...)"))

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return (-self) + other

    def _compare(self, sense):
        raise ConvexityError(self.linear.model._quadratic_constraint_message(sense))

    def __ge__(self, rhs):
        self._compare(">=")

    def __le__(self, rhs):
        self._compare("<=")

    def __eq__(self, rhs):  # type: ignore[override]
        if rhs is None or not isinstance(rhs, (Real, np.ndarray, list, tuple, Affine, Quadratic)):
            return NotImplemented
        self._compare("==")

    __hash__ = object.__hash__


# ============================================================================ model
class Model:
    """The build context handed to a formulation: variables, operators, objective, constraints.

    Parameters
    ----------
    pairs : PairSet
        The pairs (i, j) with weight w_ij that must satisfy f(x_i) > f(x_j); defines
        ``n_points``, ``n_pairs``, ``signs`` and ``pair_weights``. Must not be empty.
    kernel : array-like of shape (n_points, n_basis), default=None
        Kernel matrix K between the training points and the expansion basis.
    factor : array-like or sparse matrix of shape (n_points, r), default=None
        A factor L with K = L Lᵀ (e.g. the features of a linear kernel); computed from
        ``kernel`` on first use of :attr:`kernel_factor` otherwise.
    lifted : bool, default=True
        Let :meth:`scores` introduce score variables (3 nonzeros per pair row) instead of
        emitting dense pair rows (n_basis nonzeros each).
    max_bytes : float or None, default=2 GiB
        Memory budget: listing the pairs or forming a product larger than this raises
        :class:`~aucopt.exceptions.ProblemTooLargeError`; None disables the check.
    formulation : str, default=None
        The name of the formulation being built, for messages (set by :meth:`Formulation.build`).

    Attributes
    ----------
    n_points : int
        Number of points the pairs index.
    n_pairs : int
        Number of pairs (counted by the pair set, without listing them).
    signs : ndarray of shape (n_points,)
        The pair set's label signs y_l ∈ {−1, +1} (positives / events +1).
    pair_weights : ndarray of shape (n_pairs,)
        w_ij, in pair order (lists the pairs on first use).

    Raises
    ------
    NoComparablePairsError
        When the pair set is empty.
    ValueError
        When ``kernel`` or ``factor`` holds a NaN or infinite value (every entry is a coefficient
        of the problem), or its rows are not the pair set's points.
    ProblemTooLargeError
        On first use of the pair operators (:attr:`pair_weights`, :attr:`pair_index`,
        :attr:`pair_incidence`, :meth:`pair_difference`), when listing the pairs would exceed
        ``max_bytes``. A formulation that never uses them never lists the pairs.

    See Also
    --------
    formulation : registers a function ``f(m, **params)`` that receives a Model.
    Formulation.build : creates the Model, runs the formulation and builds the Problem.

    Examples
    --------
    The LP Ranker of Ataman (2007), eq. 3.3, on three points with K = I:

    >>> import numpy as np
    >>> from aucopt import Model, PairSet, solve
    >>> m = Model(PairSet.bipartite([1, 0, 0]), kernel=np.eye(3))
    >>> alpha = m.variable("alpha", m.n_basis, lower=0)
    >>> z = m.variable("z", m.n_pairs, lower=0)
    >>> f = m.scores(alpha)
    >>> m.minimize(alpha.sum() + 1.0 * (m.pair_weights @ z))
    >>> m.subject_to(m.pair_difference(f) + z >= 1)
    >>> problem = m.build("tiny_ranker")
    >>> problem
    Problem('tiny_ranker', LP, 8 variables (alpha[3], z[2], scores[3]), 5 rows, 12 nonzeros)
    >>> round(solve(problem).objective, 9)
    1.0
    """

    def __init__(self, pairs: PairSet, kernel=None, *, factor=None, lifted: bool = True,
                 max_bytes: int | None = DEFAULT_MAX_BYTES, formulation: str | None = None):
        self.pairs = pairs.check_nonempty()
        self.kernel = None if kernel is None else np.asarray(kernel, dtype=float)
        if factor is not None and factor.shape[0] != pairs.n_points:
            raise ValueError(f"The kernel factor has {factor.shape[0]} rows but the pair set has {pairs.n_points} points.")
        self._factor = factor
        if self.kernel is not None and self.kernel.shape[0] != pairs.n_points:
            raise ValueError(
                f"The kernel has {self.kernel.shape[0]} rows but the pair set has {pairs.n_points} points."
            )
        check_kernel_values(self.kernel, factor, formulation)
        self.lifted = lifted
        self.max_bytes = max_bytes
        self.n_points = pairs.n_points
        self.n_pairs = pairs.n_pairs
        self.signs = pairs.signs
        self._listed = None  # (i, j, w), listed on first use
        self._variables: dict[str, Variable] = {}
        self._constraints: list[Constraint] = []
        self._objective: Quadratic | None = None
        self._outputs: dict[str, Affine] = {}
        # curvature tracking (disciplined convex programming): the blocks created by epigraph
        # operators -> the operator's name, and every block's known sign (+1 non-negative,
        # -1 non-positive, 0 unknown) at every feasible point
        self._epigraph: dict[str, str] = {}
        self._sign: dict[str, int] = {}
        self._formulation = formulation  # the formulation's name, for messages
        self._data_read: set[str] = set()  # the data given at fit that the formulation read (m.groups, ...)

    # ----------------------------------------------------------------- declarations
    @property
    def n_basis(self) -> int:
        """Number of expansion points: the columns of the kernel matrix."""
        if self.kernel is None:
            raise ValueError("This formulation needs a kernel matrix (pass kernel=K to build).")
        return self.kernel.shape[1]

    @property
    def kernel_factor(self):
        """L (n_points × r) with K = L Lᵀ: the given factor, or an exact eigen-factor of K."""
        if self._factor is None:
            from ..kernels import kernel_factor

            if self.kernel is None:
                raise ValueError("This formulation needs a kernel matrix or a kernel factor.")
            self._factor = kernel_factor(self.kernel)
        return self._factor

    def basis_factor(self, basis=None):
        """L with K_RR = L Lᵀ, K_RR the kernel among the expansion points: the RKHS penalty βᵀK_RRβ = ‖Lᵀβ‖².

        Parameters
        ----------
        basis : array-like of int, default=None
            The points whose kernel columns expand f (``kernel[:, j]`` is point ``basis[j]``), as for
            RankRC's rare-class basis; None: every point, K square, and L is :attr:`kernel_factor`.

        Returns
        -------
        ndarray or sparse matrix of shape (n_basis, r)
            The factor (an exact eigen-factor of ``kernel[basis]`` when ``basis`` is given).

        Raises
        ------
        ValueError
            When K_RR is not square (a kernel with fewer columns than points needs ``basis``), or
            ``basis`` holds something other than point indices 0 … n_points − 1.

        See Also
        --------
        kernel_factor : the factor of the whole (square) kernel.

        Examples
        --------
        The squared-hinge ranking SVM over a basis (``formulations/ranksvm_squared_hinge.py``):

        >>> import numpy as np
        >>> from aucopt import Model, PairSet, kernel_matrix
        >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
        >>> m = Model(PairSet.bipartite([1, 0, 1, 0]), kernel=kernel_matrix(X, X[[0, 2]], gamma=1.0))
        >>> L = m.basis_factor([0, 2])
        >>> bool(np.allclose(L @ L.T, kernel_matrix(X[[0, 2]], gamma=1.0)))
        True
        """
        if basis is None:
            if self.kernel is not None and self.kernel.shape[0] != self.kernel.shape[1]:
                raise ValueError(f"The kernel has shape {self.kernel.shape}, so its columns are not the {self.n_points} "
                                 "points: pass basis= the indices of the points its columns belong to.")
            return self.kernel_factor
        from ..kernels import kernel_factor

        K_RR = self.kernel[self._point_indices(basis, "basis")]
        if K_RR.shape[0] != K_RR.shape[1]:
            raise ValueError(f"basis has {K_RR.shape[0]} points but the kernel has {K_RR.shape[1]} columns: pass the "
                             "indices of the points the kernel's columns belong to, one per column.")
        return kernel_factor(K_RR)

    def _point_indices(self, index, what: str) -> np.ndarray:
        """``index`` as int64 point indices, each in 0 … n_points − 1 (not a mask, not fractional)."""
        values = np.asarray(index)
        if values.ndim != 1 or values.dtype.kind == "b" or (
                values.dtype.kind not in "iuf" or (values.dtype.kind == "f" and not np.all(np.mod(values, 1) == 0))):
            hint = " (a boolean mask: pass np.flatnonzero(mask))" if values.dtype.kind == "b" else ""
            raise ValueError(f"{what} must be a 1-d sequence of point indices (integers); got "
                             f"{np.array2string(values, threshold=6)} of dtype {values.dtype}{hint}.")
        values = values.astype(np.int64)
        outside = (values < 0) | (values >= self.n_points)
        if np.any(outside):
            count = int(outside.sum())
            raise ValueError(f"{what} holds {count} {'index' if count == 1 else 'indices'} outside the "
                             f"{self.n_points} points (0 … {self.n_points - 1}), the first {int(values[outside][0])} "
                             f"at position {int(np.flatnonzero(outside)[0])}: pass indices of the pair set's points.")
        return values

    def variable(self, name: str, size: int, lower=None, upper=None) -> Variable:
        """Declare a block of ``size`` variables with bounds ``lower ≤ x ≤ upper``.

        Parameters
        ----------
        name : str
            Block name, unique in the model; the block is ``Problem.blocks[name]``.
        size : int
            Number of variables.
        lower, upper : float, array-like or None, default=None
            Bounds; None means unbounded on that side.

        Returns
        -------
        Variable
            The block, usable as an affine expression.

        Examples
        --------
        >>> from aucopt import Model, PairSet
        >>> m = Model(PairSet.bipartite([1, 0, 0]))
        >>> m.variable("z", m.n_pairs, lower=0)
        Variable('z', size=2)
        """
        if name in self._variables:
            raise ValueError(f"Variable {name!r} is declared twice.")
        var = Variable(self, name, int(size), lower, upper)
        self._variables[name] = var
        self._sign[name] = 1 if np.all(var.lower >= 0) else (-1 if np.all(var.upper <= 0) else 0)
        return var

    def minimize(self, objective) -> None:
        """Set the objective: a size-1 affine expression or a convex :class:`Quadratic`.

        The objective must be convex (disciplined convex programming): every epigraph operator
        (``abs``, ``positive_part``, ``maximum``, ``group_max``, ``sum_largest``) enters its
        linear part with a non-negative coefficient, so that minimizing pushes the operator's
        variables down to the function's value; the quadratic part (non-negative multiples of
        :meth:`sum_squares`) is convex by construction.

        Parameters
        ----------
        objective : Affine or Quadratic
            The expression to minimize.

        Raises
        ------
        ConvexityError
            When an epigraph operator enters with a negative coefficient (``m.minimize(-m.abs(x).sum())``
            maximizes a convex function). ``-m.sum_squares(x)`` raises it already when negated.
        ValueError
            For an objective that is not a size-1 expression.

        Examples
        --------
        >>> from aucopt import Model, PairSet
        >>> from aucopt.exceptions import ConvexityError
        >>> m = Model(PairSet.bipartite([1, 0]))
        >>> x = m.variable("x", 2)
        >>> m.minimize(m.abs(x).sum())  # convex: accepted
        >>> try:
        ...     m.minimize(-m.abs(x).sum())
        ... except ConvexityError as exc:
        ...     print(exc)
        the objective `m.minimize(-m.abs(x).sum())` (...) is not convex: abs(...) is convex and
        enters it with a negative coefficient, ...
        """
        if isinstance(objective, Affine):
            objective = Quadratic({}, objective)
        if not isinstance(objective, Quadratic) or objective.linear.size != 1:
            raise ValueError("The objective must be a scalar affine or convex quadratic expression.")
        linear = objective.linear
        if self._epigraph and not self._epigraph.keys().isdisjoint(linear.terms):
            hit = self._violation(linear, None, np.ones(1, dtype=bool))
            if hit is not None:
                raise ConvexityError(self._objective_message(*hit))
        self._objective = objective

    def subject_to(self, *constraints: Constraint) -> None:
        """Add constraints made by comparing expressions (``expr >= 1``, ``x <= y``, ``s == f``).

        Each constraint is checked for convexity row by row when it is declared (disciplined
        convex programming, exact here because every operator is an epigraph in linear rows):
        a row ``expr >= rhs`` needs a concave ``expr``, a row ``expr <= rhs`` a convex one and
        ``expr == rhs`` (or a two-sided row) an affine one. An epigraph operator (``abs``,
        ``positive_part``, ``maximum``, ``group_max``, ``sum_largest``) is convex: it may appear
        with a positive coefficient on the small side of ``<=`` (``m.abs(x) <= 3``) and with a
        negative one in ``>=`` (``f - m.maximum(g) >= 1``), never in ``==``.

        Parameters
        ----------
        *constraints : Constraint
            One or more constraints.

        Raises
        ------
        ConvexityError
            For a row that is not a convex set, e.g. ``m.abs(x) >= 1``; the message names the
            statement (its source line), the operator, the side and the fix. No constraint of
            the call is added then.
        TypeError
            For an argument that is not a constraint.

        Examples
        --------
        >>> from aucopt import Model, PairSet, solve
        >>> from aucopt.exceptions import ConvexityError
        >>> m = Model(PairSet.bipartite([1, 0]))
        >>> x = m.variable("x", 2)
        >>> m.subject_to(m.abs(x - 5) <= 3)  # convex <= rhs: 2 <= x <= 8
        >>> m.minimize(x.sum())
        >>> round(solve(m.build()).objective, 9)
        4.0
        >>> try:
        ...     m.subject_to(m.abs(x) >= 1)
        ... except ConvexityError as exc:
        ...     print(str(exc).split(". ")[-1])
        abs(expr) >= 1 is not a convex set; bound abs by above (abs(expr) <= b), or model the two
        sides with a binary choice, which an LP cannot.
        """
        for con in constraints:
            if not isinstance(con, Constraint):
                raise TypeError(f"Expected a constraint such as `expr >= 1`, got {type(con).__name__}.")
        for con in constraints:
            self._check_rows(con, "constraint")
        self._constraints.extend(constraints)

    def output(self, name: str, expr: Affine) -> None:
        """Record an affine map of the solution, evaluated by ``Problem.output(x, name)``.

        Parameters
        ----------
        name : str
            Output name, e.g. ``"coef"`` for the model's expansion coefficients.
        expr : Affine
            The map.
        """
        self._outputs[name] = expr

    # ----------------------------------------------------------------- pairs and index sets
    def _pair_arrays(self):
        """(i, j, w) of the pair set, listed on first call under the ``max_bytes`` budget."""
        if self._listed is None:
            self._listed = self.pairs.to_arrays(self.max_bytes)
        return self._listed

    @property
    def pair_weights(self) -> np.ndarray:
        """w_ij in pair order, shape (n_pairs,); lists the pairs on first use."""
        return self._pair_arrays()[2]

    @property
    def pair_index(self) -> tuple[np.ndarray, np.ndarray]:
        """The pairs as ``(i, j)`` int arrays of shape (n_pairs,), in pair order.

        The order is that of :attr:`pair_weights`, :meth:`pair_difference` and
        ``PairSet.to_arrays``; the pairs are listed on first use.

        Returns
        -------
        i, j : ndarray of int
            Pair k requires f(x_i[k]) > f(x_j[k]).

        Raises
        ------
        ProblemTooLargeError
            When listing the pairs would exceed ``max_bytes``.

        See Also
        --------
        pair_difference : the rows f_i − f_j in the same order.

        Examples
        --------
        >>> from aucopt import Model, PairSet
        >>> i, j = Model(PairSet.bipartite([1, 0, 1, 0])).pair_index
        >>> i.tolist(), j.tolist()
        ([0, 0, 2, 2], [1, 3, 1, 3])
        """
        i, j, _ = self._pair_arrays()
        return i, j

    @property
    def positives(self) -> np.ndarray:
        """Indices of the points with label sign +1 (positives, events), in increasing order.

        Read from the pair set's ``signs``; no pair is listed.

        Returns
        -------
        ndarray of int
            The indices l with ``signs[l] = +1``.

        See Also
        --------
        negatives : the points with sign −1.

        Examples
        --------
        >>> from aucopt import Model, PairSet
        >>> m = Model(PairSet.bipartite([1, 0, 1, 0, 0]))
        >>> m.positives.tolist(), m.negatives.tolist()
        ([0, 2], [1, 3, 4])
        """
        return np.flatnonzero(self.signs > 0)

    @property
    def negatives(self) -> np.ndarray:
        """Indices of the points with label sign −1 (negatives, censored), in increasing order.

        Read from the pair set's ``signs``; no pair is listed.

        Returns
        -------
        ndarray of int
            The indices l with ``signs[l] = −1``.

        See Also
        --------
        positives : the points with sign +1.

        Examples
        --------
        >>> from aucopt import Model, PairSet
        >>> Model(PairSet.bipartite([1, 0, 1, 0, 0])).negatives.tolist()
        [1, 3, 4]
        """
        return np.flatnonzero(self.signs < 0)

    # ----------------------------------------------------------------- the data given at fit
    @property
    def labels(self) -> np.ndarray | None:
        """Each point's level index, read from the pair set (None for survival and listed pairs).

        The labels given at fit as integers in level order: for bipartite pairs 0 (negative)
        and 1 (positive); for multipartite pairs the position of the point's label among the
        ordered levels (``pair_options["levels"]`` when given, counting absent levels too, else
        the sorted distinct labels). Differences of level indices are level gaps, e.g. for
        margins that grow with the gap; :attr:`levels` maps them back to the labels as given
        (``m.levels[m.labels]``). No pair is listed.

        Returns
        -------
        ndarray of int64 of shape (n_points,) or None

        See Also
        --------
        levels, event, time, groups

        Examples
        --------
        >>> from aucopt import Model, PairSet
        >>> m = Model(PairSet.multipartite(["mild", "severe", "mild", "moderate"],
        ...                                levels=["mild", "moderate", "severe"]))
        >>> m.labels.tolist(), m.levels[m.labels].tolist()
        ([0, 2, 0, 1], ['mild', 'severe', 'mild', 'moderate'])
        """
        self._data_read.add("labels")
        return self.pairs.labels

    @property
    def levels(self) -> np.ndarray | None:
        """The label values in level order, lowest first, so that ``levels[labels]`` are the
        labels as given (bipartite: ``[negative, positive]``); None with :attr:`labels`."""
        self._data_read.add("labels")
        return self.pairs.levels

    @property
    def event(self) -> np.ndarray | None:
        """Survival pairs: the boolean event indicator of every point; None for other targets.

        Examples
        --------
        >>> from aucopt import Model, PairSet
        >>> m = Model(PairSet.survival([True, False, True], [2.0, 3.0, 5.0]))
        >>> m.event.tolist(), m.time.tolist(), m.labels
        ([True, False, True], [2.0, 3.0, 5.0], None)
        """
        self._data_read.add("event")
        return self.pairs.event

    @property
    def time(self) -> np.ndarray | None:
        """Survival pairs: the event or censoring time of every point; None for other targets."""
        self._data_read.add("time")
        return self.pairs.time

    @property
    def groups(self) -> np.ndarray:
        """One integer group index per point, given at fit (``fit(X, y, groups=...)``).

        Read from the pair set (:meth:`PairSet.with_groups`).

        Returns
        -------
        ndarray of int64 of shape (n_points,)

        Raises
        ------
        MissingGroupsError
            (a ``ValueError``) When no groups were given: a formulation that reads them cannot be
            built without.

        Examples
        --------
        >>> from aucopt import Model, PairSet
        >>> Model(PairSet.bipartite([1, 0, 0]).with_groups([0, 0, 1])).groups.tolist()
        [0, 0, 1]
        """
        self._data_read.add("groups")
        if self.pairs.groups is None:
            who = f"the formulation {self._formulation!r}" if self._formulation else "this formulation"
            raise MissingGroupsError(
                f"{who} reads m.groups: pass groups=... to fit (one integer per sample, e.g. "
                "LPRanker(formulation=...).fit(X, y, groups=g)), or build on PairSet.with_groups(g)."
            )
        return self.pairs.groups

    def check_bipartite(self, name: str) -> None:
        """Refuse pair sets other than all unweighted positive × negative pairs.

        For formulations written on :attr:`positives` and :attr:`negatives` rather than on the
        listed pairs (a top-push or partial-AUC loss): they are defined for the bipartite
        ranking pairs only, each of weight 1.

        Parameters
        ----------
        name : str
            The formulation's name, for the message.

        Raises
        ------
        ValueError
            For a survival or custom pair set, a bipartite set that is not every positive ×
            negative pair, or pair weights other than 1.

        See Also
        --------
        positives, negatives

        Examples
        --------
        >>> from aucopt import Model, PairSet
        >>> Model(PairSet.bipartite([1, 0, 0])).check_bipartite("top_push")
        >>> try:
        ...     Model(PairSet.survival([True, True], [1.0, 2.0])).check_bipartite("top_push")
        ... except ValueError as exc:
        ...     print(str(exc)[:62])
        top_push needs bipartite pairs (PairSet.bipartite(y)); got a s
        """
        pairs = self.pairs
        n_pos, n_neg = len(self.positives), len(self.negatives)
        if pairs.target != "bipartite":
            raise ValueError(f"{name} needs bipartite pairs (PairSet.bipartite(y)); got a {pairs.target} pair "
                             f"set. Use a pair-based formulation such as lp_ranker for {pairs.target} pairs.")
        if self.n_pairs != n_pos * n_neg:
            raise ValueError(f"{name} needs every positive x negative pair: n_pairs={self.n_pairs:,} but "
                             f"{n_pos} positives x {n_neg} negatives = {n_pos * n_neg:,}. "
                             "Build the pairs with PairSet.bipartite(y).")
        if pairs.storage == "sorted":
            w = pairs.point_weights
            weighted = w is not None and not np.all(np.asarray(w) == 1.0)
        else:
            weighted = not np.all(self.pair_weights == 1.0)
        if weighted:
            raise ValueError(f"{name} takes unweighted pairs; this pair set has weights other than 1. "
                             "Build it without point_weights, or use lp_ranker for weighted pairs.")

    @property
    def pair_incidence(self) -> sp.csr_matrix:
        """D (n_pairs × n_points): row (i, j) has +1 at i and −1 at j, so (D f)_ij = f_i − f_j."""
        P = self.n_pairs
        i, j = self.pair_index
        rows = np.repeat(np.arange(P), 2)
        cols = np.column_stack([i, j]).ravel()
        vals = np.tile([1.0, -1.0], P)
        return sp.csr_matrix((vals, (rows, cols)), shape=(P, self.n_points))

    # ----------------------------------------------------------------- operators
    def pair_difference(self, f: Affine) -> Affine:
        """The pair rows f_i − f_j for every pair (i, j), in pair order.

        Parameters
        ----------
        f : Affine of size n_points
            Scores, e.g. from :meth:`scores`.

        Returns
        -------
        Affine of size n_pairs
            ``D f`` with D the :attr:`pair_incidence`.
        """
        return self.pair_incidence @ f

    def scores(self, coef: Affine, *, signed: bool = True, name: str = "scores") -> Affine:
        """Training scores f = K·Y·coef (``signed``) or f = K·coef, and the output ``"coef"``.

        Parameters
        ----------
        coef : Affine of size n_basis
            Expansion weights.
        signed : bool, default=True
            Multiply by the label signs Y = diag(signs) (the sign structure y_l α_l of
            Ataman (2007), eq. 3.3); the output ``"coef"`` is then Y·coef.
        name : str, default="scores"
            Name of the score variables when lifted.

        Returns
        -------
        Affine of size n_points
            With ``lifted=True`` new free score variables s and the rows s − K Y coef = 0 are
            declared and s is returned; otherwise the dense expression K Y coef.
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
        self._add_rows(s - f == 0, "scores")
        return s

    def lift(self, expr: Affine, name: str | None = None) -> Variable:
        """A new free variable v with the rows v − expr = 0.

        Keeps later products sparse: e.g. v = Aᵀα has 2 nonzeros per pair, and Lᵀv then costs
        r·n nonzeros rather than r·P.

        Parameters
        ----------
        expr : Affine
            The expression to name.
        name : str, default=None
            Block name; ``"_aux<k>"`` when None.

        Returns
        -------
        Variable
            The new block, equal to ``expr`` at every feasible point.

        Raises
        ------
        ConvexityError
            When ``expr`` is not affine (it holds an epigraph operator such as ``abs``): an
            equality needs an affine expression.
        """
        v = self.variable(self._fresh_name(name), expr.size)
        self._add_rows(v - expr == 0, "lift")
        return v

    def sum_squares(self, expr: Affine, weights=None) -> Quadratic:
        """Σ_k weights_k · expr_k², a convex quadratic.

        Convex entry by entry when expr_k is affine, convex and non-negative (the square is
        nondecreasing on the non-negatives: ``sum_squares(positive_part(x))``, the squared
        hinge) or concave and non-positive, as in cvxpy's DCP rules. Signs are tracked row by
        row: a constant ≥ 0 and non-negative coefficients on non-negative blocks (variables with
        ``lower >= 0``, the variables of ``abs`` and ``positive_part``, ``maximum`` and
        ``sum_largest`` of non-negative entries) and no other term.

        Parameters
        ----------
        expr : Affine
            The expression. A plain variable is used as is; other affine entries are lifted
            into a new variable v by the rows v − expr = 0; convex non-negative entries by the
            inequality epigraph v ≥ expr, v ≥ 0 (v ≥ −expr for concave non-positive ones).
        weights : array-like of shape (expr.size,), default=None
            Non-negative finite weights (1 when None).

        Returns
        -------
        Quadratic
            The weighted sum of squares, to combine into :meth:`minimize`'s objective (a
            non-negative multiple; a negation or a comparison raises ConvexityError).

        Raises
        ------
        ConvexityError
            For an entry that is convex but not known to be non-negative (``maximum(x)`` may be
            negative), concave but not known to be non-positive, or of unknown curvature.
        ValueError
            For negative or non-finite weights.

        Examples
        --------
        The squared hinge Σ (1 − x_k)₊² at x = (0, 0.5, 2):

        >>> import numpy as np
        >>> from aucopt import Model, PairSet, solve
        >>> m = Model(PairSet.bipartite([1, 0]))
        >>> x = m.variable("x", 3)
        >>> m.subject_to(x == np.array([0.0, 0.5, 2.0]))
        >>> m.minimize(m.sum_squares(m.positive_part(1 - x)))
        >>> round(solve(m.build()).objective, 6)
        1.25
        """
        w = np.ones(expr.size) if weights is None else np.broadcast_to(np.asarray(weights, float), (expr.size,))
        if np.any(w < 0) or not np.all(np.isfinite(w)):
            raise ValueError("sum_squares weights must be finite and non-negative (convexity).")
        convex, concave = self._curvature_rows(expr)
        if not (convex.any() or concave.any()):  # affine: lifted unless a plain variable
            if not (isinstance(expr, Variable) and np.all(expr.const == 0)):
                expr = self.lift(expr)
        else:
            nonneg, nonpos = self._row_signs(expr)
            affine = ~convex & ~concave
            up = ~affine & ~concave & nonneg  # convex, non-negative: the square is nondecreasing there
            down = ~affine & ~up & ~convex & nonpos  # concave, non-positive: the square of −expr
            bad = ~(affine | up | down)
            if bad.any():
                raise ConvexityError(self._sum_squares_message(expr, int(np.argmax(bad)), convex, concave))
            if not (isinstance(expr, Variable) and np.all(expr.const == 0) and up.all()):
                v = self.variable(self._fresh_name(None), expr.size, lower=np.where(affine, -np.inf, 0.0))
                arg = sp.diags(np.where(down, -1.0, 1.0)) @ expr
                lifted, signed = np.flatnonzero(affine), np.flatnonzero(~affine)
                if lifted.size:
                    self._add_rows(v[lifted] - arg[lifted] == 0, "lift")
                self._add_rows(v[signed] - arg[signed] >= 0, "sum_squares")
                expr = v
            # else: a non-negative epigraph variable (positive_part(x), abs(x)): squared as is
        zero = Affine(self, {}, np.zeros(1))
        return Quadratic({expr.name: sp.diags(2.0 * w, format="csc")}, zero)

    # ----------------------------------------------------------------- grouped and epigraph operators
    def _fresh_name(self, name: str | None) -> str:
        """``name``, or an unused ``"_aux<k>"`` when None."""
        if name is not None:
            return name
        k = len(self._variables)
        while f"_aux{k}" in self._variables:
            k += 1
        return f"_aux{k}"

    @staticmethod
    def _check_groups(groups, size: int, what: str, *, nonempty: bool):
        """(groups as int64, G, entries per group); -1 leaves an entry out."""
        g = np.asarray(groups)
        if g.shape != (size,):
            raise ValueError(f"{what}: groups has shape {g.shape}, the expression has {size} entries; "
                             f"pass one group number per entry, shape ({size},).")
        if g.size and not np.issubdtype(g.dtype, np.integer):
            if not (np.issubdtype(g.dtype, np.floating) and np.all(np.isfinite(g)) and np.all(g == np.round(g))):
                raise ValueError(f"{what}: groups must be integers 0..G-1 (or -1 to leave an entry out); "
                                 f"got dtype {g.dtype}.")
        g = g.astype(np.int64)
        if g.size and g.min() < -1:
            raise ValueError(f"{what}: groups contains {int(g.min())}; group numbers are 0..G-1, and -1 "
                             "leaves an entry out.")
        if not np.any(g >= 0):
            raise ValueError(f"{what}: every entry is left out (groups == -1); put at least one entry in group 0.")
        G = int(g.max()) + 1
        counts = np.bincount(g[g >= 0], minlength=G)
        if nonempty and np.any(counts == 0):
            empty = int(np.flatnonzero(counts == 0)[0])
            raise ValueError(f"{what}: group {empty} has no entry (groups are numbered 0..{G - 1}); "
                             "renumber the groups consecutively.")
        return g, G, counts

    @staticmethod
    def _membership(g: np.ndarray, G: int):
        """(members, E): the entries with a group, and E (members × G) with E[r, g_r] = 1."""
        members = np.flatnonzero(g >= 0)
        E = sp.csr_matrix((np.ones(len(members)), (np.arange(len(members)), g[members])),
                          shape=(len(members), G))
        return members, E

    def group_sum(self, expr: Affine, groups) -> Affine:
        """Per-group sums Σ_{k : groups_k = g} expr_k, for g = 0, …, G − 1.

        Affine in ``expr``, so usable anywhere (objective, either side of a constraint).

        Parameters
        ----------
        expr : Affine
            The entries to sum.
        groups : array-like of int, shape (expr.size,)
            The group g ∈ {0, …, G − 1} of each entry; −1 leaves the entry out. G is
            ``max(groups) + 1``; a group without entries sums to 0.

        Returns
        -------
        Affine of size G
            The sums.

        Raises
        ------
        ValueError
            For groups of the wrong shape, non-integer or below −1, or all −1.

        See Also
        --------
        group_mean : the per-group averages.
        sum_largest : the per-group sums of the k largest entries.
        aucopt.formulations.partial_auc : groups the pairs by their positive (``sum_largest``).

        Examples
        --------
        >>> import numpy as np
        >>> from aucopt import Model, PairSet, solve
        >>> m = Model(PairSet.bipartite([1, 0]))
        >>> x = m.variable("x", 4)
        >>> m.subject_to(x == np.array([1.0, 2.0, 3.0, 4.0]))
        >>> m.minimize(np.array([1.0, 10.0]) @ m.group_sum(x, [0, 1, 0, -1]))  # (1 + 3) + 10·2
        >>> round(solve(m.build()).objective, 9)
        24.0
        """
        g, G, _ = self._check_groups(groups, expr.size, "group_sum", nonempty=False)
        members = np.flatnonzero(g >= 0)
        S = sp.csr_matrix((np.ones(len(members)), (g[members], members)), shape=(G, expr.size))
        return S @ expr

    def group_mean(self, expr: Affine, groups) -> Affine:
        """Per-group averages (1 / n_g) Σ_{k : groups_k = g} expr_k, for g = 0, …, G − 1.

        Affine in ``expr``, so usable anywhere (objective, either side of a constraint).

        Parameters
        ----------
        expr : Affine
            The entries to average.
        groups : array-like of int, shape (expr.size,)
            The group g ∈ {0, …, G − 1} of each entry; −1 leaves the entry out. Every group
            must have an entry.

        Returns
        -------
        Affine of size G
            The averages.

        Raises
        ------
        ValueError
            For invalid groups (see :meth:`group_sum`) or a group without entries.

        See Also
        --------
        group_sum : the per-group sums.

        Examples
        --------
        >>> import numpy as np
        >>> from aucopt import Model, PairSet, solve
        >>> m = Model(PairSet.bipartite([1, 0]))
        >>> x = m.variable("x", 3)
        >>> m.subject_to(x == np.array([1.0, 3.0, 8.0]))
        >>> m.minimize(m.group_mean(x, [0, 0, 1]).sum())  # (1 + 3) / 2 + 8
        >>> round(solve(m.build()).objective, 9)
        10.0
        """
        g, _G, counts = self._check_groups(groups, expr.size, "group_mean", nonempty=True)
        return sp.diags(1.0 / counts) @ self.group_sum(expr, g)

    def group_max(self, expr: Affine, groups, name: str | None = None) -> Variable:
        """Epigraph of a grouped maximum: a variable t with t_g ≥ expr_k for every k in group g.

        Declares G free variables and one row t_{g_k} − expr_k ≥ 0 per grouped entry. At every
        feasible point t_g ≥ max_{k ∈ g} expr_k; t_g equals the maximum at an optimum only
        when the objective pushes t down: t enters a minimized objective with non-negative
        coefficients, or a constraint ``t <= b`` (then t_g ≤ b is exactly max ≤ b). Maximizing
        t, or a negative coefficient, leaves t unbounded above — the maximum is convex, and
        only its epigraph is an LP.

        Convexity (checked, :class:`~aucopt.exceptions.ConvexityError` otherwise): the maximum
        is convex and nondecreasing, so ``expr`` must be affine or convex (``group_max(-m.abs(x),
        g)`` is refused), and t may appear only where it is pushed down: a non-negative
        coefficient in the objective, the small side of ``<=``, a negative coefficient in
        ``>=``; never in ``==``. t is known non-negative when every grouped entry is.

        Parameters
        ----------
        expr : Affine
            The entries.
        groups : array-like of int, shape (expr.size,)
            The group g ∈ {0, …, G − 1} of each entry; −1 leaves the entry out. Every group
            must have an entry.
        name : str, default=None
            Block name of t; ``"_aux<k>"`` when None.

        Returns
        -------
        Variable of size G
            t.

        Raises
        ------
        ValueError
            For invalid groups (see :meth:`group_sum`) or a group without entries.

        See Also
        --------
        maximum : the single-group case, used by ``formulations/top_push.py``.
        sum_largest : the sum of the k largest entries (k = 1 is the maximum).

        Examples
        --------
        >>> import numpy as np
        >>> from aucopt import Model, PairSet, solve
        >>> m = Model(PairSet.bipartite([1, 0]))
        >>> x = m.variable("x", 4)
        >>> m.subject_to(x == np.array([1.0, 3.0, 2.0, 5.0]))
        >>> t = m.group_max(x, [0, 0, 1, 1], name="t")
        >>> m.minimize(t.sum())  # max(1, 3) + max(2, 5)
        >>> problem = m.build()
        >>> result = solve(problem)
        >>> problem.block(result.x, "t").round(9).tolist()
        [3.0, 5.0]
        """
        return self._group_max(expr, groups, name, "group_max")

    def _group_max(self, expr: Affine, groups, name: str | None, op: str) -> Variable:
        g, G, _ = self._check_groups(groups, expr.size, op, nonempty=True)
        members, E = self._membership(g, G)
        t = self.variable(self._fresh_name(name), G)
        self._add_rows(E @ t - expr[members] >= 0, (op, -1))
        self._register(t, op, nonneg=bool(self._row_signs(expr)[0][members].all()))
        return t

    def maximum(self, expr: Affine, name: str | None = None) -> Variable:
        """Epigraph of max_k expr_k: a variable t (size 1) with t ≥ expr_k for every k.

        The case of :meth:`group_max` with one group: one free variable and ``expr.size``
        rows t − expr_k ≥ 0. t is the maximum at an optimum only when the objective pushes it
        down (a non-negative coefficient in a minimized objective, or ``t <= b``).

        Convexity (checked, :class:`~aucopt.exceptions.ConvexityError` otherwise): max is
        convex and nondecreasing, so ``expr`` must be affine or convex (``m.maximum(-m.abs(x))``
        is concave and refused), and t goes where it is pushed down only: a non-negative
        coefficient in the objective, ``t <= b``, ``f - t >= 1``; ``t >= b`` (some entry reaches
        b, a disjunction) and ``t == b`` are refused. t is known non-negative when expr is.

        Parameters
        ----------
        expr : Affine
            The entries.
        name : str, default=None
            Block name of t; ``"_aux<k>"`` when None.

        Returns
        -------
        Variable of size 1
            t, which broadcasts against larger expressions (``f - t``).

        See Also
        --------
        group_max : one maximum per group.
        aucopt.formulations.top_push : t = the top-scored negative's score, one row per negative.

        Notes
        -----
        ``formulations/top_push.py`` (Li, Jin & Zhou, NIPS 2014) bounds the negatives'
        scores by t = max_j f_j: n rows instead of one row per pair.

        Examples
        --------
        >>> import numpy as np
        >>> from aucopt import Model, PairSet, solve
        >>> m = Model(PairSet.bipartite([1, 0]))
        >>> x = m.variable("x", 3)
        >>> m.subject_to(x == np.array([-1.0, 4.0, 2.0]))
        >>> m.minimize(m.maximum(x, name="t").sum())
        >>> round(solve(m.build()).objective, 9)
        4.0
        """
        return self._group_max(expr, np.zeros(expr.size, dtype=np.int64), name, "maximum")

    def positive_part(self, expr: Affine, name: str | None = None) -> Variable:
        """Epigraph of the hinge (expr)_+ = max(expr, 0): a variable u ≥ 0 with u ≥ expr.

        Declares expr.size variables with lower bound 0 and the rows u − expr ≥ 0. At every
        feasible point u ≥ (expr)_+, with equality at an optimum only when the objective
        pushes u down (non-negative coefficients in a minimized objective, or a non-decreasing
        convex operator of u such as :meth:`sum_largest` there).

        Convexity (checked, :class:`~aucopt.exceptions.ConvexityError` otherwise): the hinge
        is convex, nondecreasing and non-negative, so ``expr`` must be affine or convex
        (``positive_part(m.abs(x))`` is accepted, ``positive_part(-m.abs(x))`` refused), and u
        goes where it is pushed down only: a non-negative coefficient in the objective, the
        small side of ``<=``, inside :meth:`sum_largest`, :meth:`maximum` or
        :meth:`sum_squares`; never ``u >= b`` or ``u == b``.

        Parameters
        ----------
        expr : Affine
            The hinge arguments, e.g. ``1 - m.pair_difference(f)``.
        name : str, default=None
            Block name of u; ``"_aux<k>"`` when None.

        Returns
        -------
        Variable of the size of expr
            u.

        See Also
        --------
        abs : the epigraph of abs(expr).
        aucopt.formulations.partial_auc : ``sum_largest(positive_part(1 - D f), k, groups)``, the
            k largest pairwise hinge losses per positive.

        Examples
        --------
        >>> import numpy as np
        >>> from aucopt import Model, PairSet, solve
        >>> m = Model(PairSet.bipartite([1, 0]))
        >>> x = m.variable("x", 3)
        >>> m.subject_to(x == np.array([-1.0, 0.5, 2.0]))
        >>> m.minimize(m.positive_part(1.0 - x).sum())  # 2 + 0.5 + 0
        >>> round(solve(m.build()).objective, 9)
        2.5
        """
        u = self.variable(self._fresh_name(name), expr.size, lower=0)
        self._add_rows(u - expr >= 0, ("positive_part", -1))
        self._register(u, "positive_part", nonneg=True)
        return u

    def abs(self, expr: Affine, name: str | None = None) -> Variable:
        """Epigraph of abs(expr): a variable u with u ≥ expr and u ≥ −expr.

        Declares expr.size free variables and 2·expr.size rows. u ≥ abs(expr) at every feasible
        point, with equality at an optimum only when the objective pushes u down
        (non-negative coefficients in a minimized objective, or ``u <= b``); abs is convex,
        so it cannot be maximized this way.

        Convexity (checked, :class:`~aucopt.exceptions.ConvexityError` otherwise): abs is
        convex and non-negative; its argument must be affine, or convex and known non-negative
        (abs is nondecreasing there: ``abs(positive_part(x))``), or concave and known
        non-positive, as in cvxpy's DCP rules; of such an argument, the row that its sign
        implies is kept but not checked. u goes where it is pushed down only: ``abs(x) <= 3``
        is accepted, ``abs(x) >= 1`` (two disjoint pieces, not a convex set) and
        ``abs(x) == 1`` are refused.

        Parameters
        ----------
        expr : Affine
            The entries.
        name : str, default=None
            Block name of u; ``"_aux<k>"`` when None.

        Returns
        -------
        Variable of the size of expr
            u.

        See Also
        --------
        positive_part : the epigraph of max(expr, 0).

        Notes
        -----
        With free expansion weights, Σ_l abs(α_l) is the L1 penalty of the sign-free LP Ranker
        (``formulations/lp_ranker_free_sign.py`` writes the same norm through a split α = β⁺ − β⁻).

        Examples
        --------
        >>> import numpy as np
        >>> from aucopt import Model, PairSet, solve
        >>> m = Model(PairSet.bipartite([1, 0]))
        >>> x = m.variable("x", 3)
        >>> m.subject_to(x == np.array([-1.5, 0.5, 2.0]))
        >>> m.minimize(m.abs(x).sum())
        >>> round(solve(m.build()).objective, 9)
        4.0
        """
        u = self.variable(self._fresh_name(name), expr.size)
        nonneg, nonpos = self._row_signs(expr)
        # u >= -expr is implied where expr >= 0 is known, u >= expr where expr <= 0 is
        self._add_rows(u - expr >= 0, ("abs", -1), skip=nonpos)
        self._add_rows(u + expr >= 0, ("abs", 1), skip=nonneg)
        self._register(u, "abs", nonneg=True)
        return u

    def sum_largest(self, expr: Affine, k: int, groups=None, name: str | None = None) -> Affine:
        """The sum of the k largest entries of expr (per group), as a linear program.

        For entries v_1, …, v_n, the sum of the k largest is (Ogryczak & Tamir, 2003; the
        CVaR representation of Rockafellar & Uryasev, 2000)

            Σ_{top k} v = min_{τ, u}  k·τ + Σ_l u_l   s.t.  u_l ≥ v_l − τ,  u_l ≥ 0,

        with the minimum at τ = the k-th largest v. Per group g this declares one free τ_g,
        one u_l ≥ 0 per grouped entry and the rows u_l − expr_l + τ_{g_l} ≥ 0, and returns the
        affine expression k·τ_g + Σ_{l ∈ g} u_l. It is ≥ the sum of the k largest at every
        feasible point and equal at an optimum only when the objective pushes it down: a
        non-negative coefficient in a minimized objective, or ``sum_largest(...) <= b``
        (exactly "the k largest sum to at most b"). The function is convex; it cannot be
        maximized this way.

        Convexity (checked, :class:`~aucopt.exceptions.ConvexityError` otherwise): the sum of
        the k largest is convex and nondecreasing, so ``expr`` must be affine or convex
        (``sum_largest(positive_part(1 - d), k)`` is the partial-AUC loss), and the result goes
        where it is pushed down only (a non-negative coefficient in the objective, the small
        side of ``<=``). It is known non-negative when every grouped entry is.

        Parameters
        ----------
        expr : Affine
            The entries.
        k : int
            How many of the largest entries to sum: 1 ≤ k ≤ the size of every group (k = 1
            is the maximum, k = group size the plain sum).
        groups : array-like of int, shape (expr.size,), default=None
            The group g ∈ {0, …, G − 1} of each entry, −1 to leave it out; None: one group of
            all entries.
        name : str, default=None
            Stem of the new blocks ``<name>_tau`` (size G) and ``<name>_excess`` (one per
            grouped entry); ``"_aux<k>"`` when None.

        Returns
        -------
        Affine of size G (1 when groups is None)
            The per-group sums of the k largest entries.

        Raises
        ------
        ValueError
            When k is not a positive integer no larger than every group, or for invalid
            groups (see :meth:`group_sum`).

        See Also
        --------
        group_max : the case k = 1 with fewer variables.
        positive_part : the hinge, whose k largest values per group ``sum_largest`` then sums.
        aucopt.formulations.partial_auc : the k = ⌈β n_neg⌉ largest pairwise hinge losses per
            positive, the partial-AUC loss over FPR ∈ [0, β].

        References
        ----------
        .. [1] Ogryczak, W., & Tamir, A. (2003). Minimizing the sum of the k largest functions
           in linear time. *Information Processing Letters*, 85(3), 117–122.
        .. [2] Rockafellar, R. T., & Uryasev, S. (2000). Optimization of conditional
           value-at-risk. *Journal of Risk*, 2(3), 21–42.

        Examples
        --------
        >>> import numpy as np
        >>> from aucopt import Model, PairSet, solve
        >>> m = Model(PairSet.bipartite([1, 0]))
        >>> x = m.variable("x", 6)
        >>> m.subject_to(x == np.array([5.0, 1.0, 3.0, 2.0, 7.0, 4.0]))
        >>> top = m.sum_largest(x, 2, groups=[0, 0, 0, 1, 1, 1])  # 5 + 3 and 7 + 4
        >>> m.minimize(np.array([1.0, 100.0]) @ top)
        >>> round(solve(m.build()).objective, 6)
        1108.0
        """
        g, G, counts = self._check_groups(
            np.zeros(expr.size, dtype=np.int64) if groups is None else groups, expr.size, "sum_largest",
            nonempty=True)
        smallest = int(counts.min())
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= smallest:
            raise ValueError(f"sum_largest: k={k!r} must be a positive integer no larger than the smallest "
                             f"group ({smallest} entries); pass 1 <= k <= {smallest}.")
        stem = self._fresh_name(name)
        members, E = self._membership(g, G)
        tau = self.variable(f"{stem}_tau", G)
        u = self.variable(f"{stem}_excess", len(members), lower=0)
        self._add_rows(u - expr[members] + E @ tau >= 0, ("sum_largest", -1))
        # τ enters every expression with its group's u (k τ_g + Σ u ≥ the sum of the k largest),
        # so it counts as non-negative when the entries are
        self._register(tau, "sum_largest", nonneg=bool(self._row_signs(expr)[0][members].all()))
        self._register(u, "sum_largest", nonneg=True)
        return float(k) * tau + E.T @ u

    # ----------------------------------------------------------------- convexity (DCP)
    # Every operator is an epigraph in linear rows, so curvature is read off the coefficients:
    # a row of an Affine expression is affine without a coefficient on an epigraph block,
    # convex when all those coefficients are >= 0, concave when all are <= 0. Checks look at
    # the epigraph blocks' coefficient matrices only, when a statement is declared.
    def _curvature_rows(self, expr: Affine) -> tuple[np.ndarray, np.ndarray]:
        """Per row: a positive (convex part) and a negative (concave part) coefficient on an epigraph block."""
        convex, concave = np.zeros(expr.size, dtype=bool), np.zeros(expr.size, dtype=bool)
        for name, T in expr.terms.items():
            if name in self._epigraph:
                pos, neg = _signed_rows(T)
                convex[pos] = True
                concave[neg] = True
        return convex, concave

    def _row_signs(self, expr: Affine) -> tuple[np.ndarray, np.ndarray]:
        """Per row: known non-negative, known non-positive at every feasible point (sign tracking).

        Non-negative: a constant >= 0 and coefficients >= 0 on non-negative blocks (variables
        with lower >= 0, the epigraph variables of abs, positive_part, ...), <= 0 on
        non-positive blocks, and no other term; non-positive likewise.
        """
        nonneg, nonpos = expr.const >= 0, expr.const <= 0
        for name, T in expr.terms.items():
            pos, neg = _signed_rows(T)
            sign = self._sign.get(name, 0)
            if sign >= 0:
                nonneg[neg] = False
                nonpos[pos] = False
            if sign <= 0:
                nonneg[pos] = False
                nonpos[neg] = False
        return nonneg, nonpos

    def _violation(self, expr: Affine, need_concave, need_convex):
        """The first ``(row, block, sign)``: a row that needs a concave (convex) expression with a
        positive (negative) coefficient on an epigraph block; None when every row is fine."""
        hit = None
        for name, T in expr.terms.items():
            if name not in self._epigraph:
                continue
            pos, neg = _signed_rows(T)
            for rows, need, sign in ((pos, need_concave, 1), (neg, need_convex, -1)):
                if need is None or rows.size == 0:
                    continue
                bad = rows[need[rows]]
                if bad.size and (hit is None or int(bad.min()) < hit[0]):
                    hit = (int(bad.min()), name, sign)
        return hit

    def _check_rows(self, con: Constraint, kind, skip=None) -> None:
        """Refuse (ConvexityError) rows that are not convex sets: ``>=`` needs concave, ``<=`` convex.

        ``kind`` names the statement for the message: ``"constraint"``, ``"lift"``, ``"scores"``,
        ``"sum_squares"`` or ``(operator, s)`` for an operator's own epigraph rows, s the sign of
        its argument in them. ``skip`` masks rows implied by others (not checked). The block an
        operator creates is registered after its rows, so they are exempt for it only.
        """
        if not self._epigraph or self._epigraph.keys().isdisjoint(con.expr.terms):
            return
        need_concave, need_convex = con.lower > -np.inf, con.upper < np.inf
        if skip is not None:
            need_concave, need_convex = need_concave & ~skip, need_convex & ~skip
        hit = self._violation(con.expr, need_concave, need_convex)
        if hit is not None:
            raise ConvexityError(self._rows_message(con, kind, *hit))

    def _add_rows(self, con: Constraint, kind, skip=None) -> None:
        """Check (see :meth:`_check_rows`) and add an operator's rows."""
        self._check_rows(con, kind, skip)
        self._constraints.append(con)

    def _register(self, var: Variable, op: str, nonneg: bool = False) -> None:
        """Record ``var`` as the epigraph block of ``op``, known non-negative when ``nonneg``."""
        self._epigraph[var.name] = op
        if nonneg:
            self._sign[var.name] = 1

    # ----------------------------------------------------------------- convexity messages
    def _statement(self, what: str) -> str:
        """``what`` with the caller's source line, file, line number and the formulation, when known."""
        site = _caller_site()
        text = what
        if site is not None and site[2]:
            text += f" `{site[2]}`"
        place = [f"formulation {self._formulation!r}"] if self._formulation else []
        if site is not None:
            place.append(f"{site[0]}:{site[1]}")
        return text + (f" ({', '.join(place)})" if place else "")

    def _rows_message(self, con: Constraint, kind, row: int, block: str, sign: int) -> str:
        op = self._epigraph[block]
        n = con.expr.size
        entry = f"row {row} (of {n:,})" if n > 1 else "its row"
        coef = "a positive" if sign > 0 else "a negative"
        lo, hi = float(con.lower[row]), float(con.upper[row])
        if kind == "constraint":
            if lo == hi:
                side, need = f"== {_number(lo)}", "an affine expression (an equality)"
            elif sign > 0:
                side, need = f">= {_number(lo)}", "a concave expression"
            else:
                side, need = f"<= {_number(hi)}", "a convex expression"
            term = f"{op}(...) is convex and enters" if sign > 0 else f"-{op}(...) is concave: {op} enters"
            head = (f"{self._statement('the constraint')} is not convex: {term} {entry} with {coef} coefficient, "
                    f"but `{side}` needs {need}")
            if lo == hi:
                b = _number(lo if sign > 0 else -lo)
                fix = (f"{op}(expr) == {b} is not a convex set; relax it to {op}(expr) <= {b}"
                       + (", or model the two sides with a binary choice, which an LP cannot." if op == "abs"
                          else " when the objective pushes it down."))
            elif sign > 0:
                fix = _fix_lower_bound(op, lo)
            else:
                fix = f"-{op}(expr) <= {_number(hi)} is {op}(expr) >= {_number(-hi)}; " + _fix_lower_bound(op, -hi)
            return f"{head}. {fix}"
        if kind in ("lift", "scores"):
            curvature = "convex" if sign < 0 else "concave"  # the expression enters the row negated
            what, fix = (("m.lift(expr)", f"declares v == expr, an equality, which needs an affine expr, but {op}(...) "
                          f"enters row {row} of expr ({curvature}). {op} already returns a variable (its epigraph): "
                          "use it directly, or an inequality v >= expr when only an upper bound is meant.")
                         if kind == "lift" else
                         ("m.scores(coef)", f"declares score variables s == K coef, an equality, which needs an affine "
                          f"coef, but {op}(...) enters row {row} of coef ({curvature}). Pass the expansion weights as "
                          "a variable, or build with lifted=False."))
            return f"{self._statement(what)} is not convex: it {fix}"
        if isinstance(kind, tuple) and kind[0] == "abs":
            s = sign * kind[1]  # the sign of op in abs's argument
            curvature, known = ("convex", "non-negative") if s > 0 else ("concave", "non-positive")
            return (f"{self._statement('the argument of abs')} is not affine: {op}(...) enters entry {row} with "
                    f"{'a positive' if s > 0 else 'a negative'} coefficient ({curvature}), and the entry is not known "
                    f"to be {known}. abs is convex of an affine argument, of a convex non-negative one (abs is "
                    "nondecreasing there, e.g. abs(positive_part(x))) or of a concave non-positive one; abs of a "
                    f"{curvature} expression of unknown sign is not convex. Make the argument affine, make its sign "
                    "visible (positive_part, variables declared with lower=0), or drop abs where the argument is "
                    "non-negative anyway.")
        if isinstance(kind, tuple):
            name = kind[0]
            return (f"{self._statement(f'the argument of {name}')} is not convex: {name} is convex and nondecreasing, "
                    f"so its argument must be convex or affine, but {op}(...) enters entry {row} of the argument with "
                    f"a negative coefficient (concave). {name}(-{op}(...)) is not convex in general (max(-abs(x)) is "
                    f"concave); give {op} a non-negative coefficient in the argument of {name}.")
        return (f"{self._statement(str(kind))} is not convex: {op}(...) enters row {row} with {coef} coefficient "
                "on the wrong side of its bound.")

    def _sum_squares_message(self, expr: Affine, row: int, convex, concave) -> str:
        op = next(self._epigraph[name] for name, T in expr.terms.items()
                  if name in self._epigraph and sp.csr_matrix(T)[row].count_nonzero())
        if convex[row] and concave[row]:
            state = "of unknown curvature (it has convex and concave parts)"
        elif convex[row]:
            state = "convex but not known to be non-negative"
        else:
            state = "concave but not known to be non-positive"
        return (f"{self._statement('m.sum_squares(expr)')} is not convex: {op}(...) enters entry {row} of expr, "
                f"which is {state}. The square is convex of an affine entry, of a convex non-negative one (it is "
                "nondecreasing there, e.g. sum_squares(positive_part(x))) or of a concave non-positive one; "
                "otherwise it is not (maximum(x) may be negative, and the square would push its epigraph variable "
                "to 0, not to the maximum). Make the entry affine or its sign visible (positive_part, variables "
                "declared with lower=0).")

    def _objective_message(self, row: int, block: str, sign: int) -> str:
        op = self._epigraph[block]
        extra = "; maximizing abs needs a binary choice of sign, which an LP cannot" if op == "abs" else ""
        return (f"{self._statement('the objective')} is not convex: {op}(...) is convex and enters it with a negative "
                f"coefficient, so minimizing it maximizes {op}, which is not a convex problem (the epigraph "
                f"variable of {op}, only bounded from below by its value, would grow without limit). Give {op} a "
                f"non-negative weight in the minimized objective{extra}.")

    def _product_message(self, a, op: str, b) -> str:
        def name(e):
            return "sum_squares(...)" if isinstance(e, Quadratic) else "expr"

        return (f"{self._statement('the product')} is not convex: `{name(a)} {op} {name(b)}` multiplies two "
                "expressions of the variables, which is neither affine nor convex in general, and this LP/QP layer "
                "multiplies expressions by numbers and constant vectors or matrices only. For a square use "
                "m.sum_squares(expr); otherwise make one factor a constant.")

    def _concave_quadratic_message(self, what: str) -> str:
        return (f"{self._statement('the expression')} is not convex: {what} is concave (a sum_squares takes "
                "non-negative multiples only), and minimizing it, i.e. maximizing a sum of squares, is not a convex "
                "problem: a QP solver would return a wrong point or fail. Give sum_squares a non-negative weight; "
                "to keep a quantity away from zero, bound it by affine rows (expr >= 1) instead.")

    def _quadratic_constraint_message(self, sense: str) -> str:
        return (f"{self._statement('the constraint')} is not supported: a sum_squares compared with `{sense}` is a "
                "quadratic constraint, and this LP/QP layer holds a quadratic term in the objective only (the "
                "problem's rows are linear). Put the term in the objective with a weight, or bound an L1 or "
                "L-infinity norm with m.abs / m.maximum (linear rows); sum_squares(...) >= b is not convex at all.")

    # ----------------------------------------------------------------- assembly
    def _check_nnz_budget(self, M, expr: Affine, what: str) -> None:
        """Refuse (ProblemTooLargeError) a product ``M @ expr`` whose nonzeros exceed ``max_bytes``."""
        if self.max_bytes is None:
            return
        row_nnz = np.diff(sp.csr_matrix(M).indptr) if M.shape[0] > 0 else np.zeros(0)
        # per term T: a result row has at most (row nnz of M) x (mean row nnz of T) entries,
        # and never more than T's columns
        nnz = sum(float(np.minimum(row_nnz * max(T.nnz / max(expr.size, 1), 1.0), T.shape[1]).sum())
                  for T in expr.terms.values()) if expr.terms else float(row_nnz.sum())
        estimate = nnz * BYTES_PER_NONZERO
        check_memory(estimate, self.max_bytes, f"Forming {what} ({M.shape[0]:,} rows)",
                     "use the lifted form (lifted=True), fewer points or pairs")

    def build(self, name: str = "problem") -> Problem:
        """Assemble the declared variables, objective and constraints into a :class:`Problem`.

        Parameters
        ----------
        name : str, default="problem"
            ``Problem.name``.

        Returns
        -------
        Problem
            Sparse standard form with ``blocks`` (one per variable), ``outputs`` and metadata
            ``n_points``, ``n_pairs``, ``lifted``, ``pair_target``, ``data_read`` (the data given
            at fit that the formulation read: a sorted list of ``"labels"``, ``"event"``,
            ``"time"``, ``"groups"``) and, when the formulation has pair rows, ``pair_rows``
            (their row indices) and ``pair_index`` (their points).
        """
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
            r, c, v = (np.concatenate(p) for p in zip(*parts, strict=False))
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
        metadata = {"n_points": self.n_points, "n_pairs": self.n_pairs, "lifted": self.lifted,
                    "pair_target": self.pairs.target, "data_read": sorted(self._data_read)}
        metadata.update(self._pair_rows())
        return Problem(c=c, A=A.tocsc(), row_lower=row_lower, row_upper=row_upper,
                       col_lower=col_lower, col_upper=col_upper, P=P, offset=float(lin.const[0]),
                       blocks=offsets, outputs=outputs, name=name, metadata=metadata)

    def _pair_rows(self) -> dict:
        """``{"pair_rows": rows, "pair_index": (i, j)}``: the rows of the constraints that hold one
        pair row per pair (``pair_difference(expr) + slack >= rhs``), which
        :func:`~aucopt.modeling.pair_row_generation` may leave out of its working set; {} when
        the pairs were never listed."""
        if self._listed is None:
            return {}
        from ._rowgen import is_pair_constraint

        i, j, _ = self._listed
        rows, ends, start = [], [], 0
        for con in self._constraints:
            if is_pair_constraint(con.expr.terms, con.lower, con.upper, i, j):
                rows.append(np.arange(start, start + con.expr.size))
                ends.append((i, j))
            start += con.expr.size
        if not rows:
            return {}
        return {"pair_rows": np.concatenate(rows),
                "pair_index": (np.concatenate([e[0] for e in ends]), np.concatenate([e[1] for e in ends]))}


# ============================================================================ registry
_REGISTRY: dict[str, Formulation] = {}


def lifted_lp_nnz(n_points: int, n_pairs: int, n_basis: int, lifted: bool = True) -> int:
    """Generic size of a kernel-expansion LP over pairs: the fallback of :meth:`Formulation.estimate_nbytes`.

    Counts the lifted score rows (n_points × n_basis nonzeros) and the pair rows: 3 nonzeros each
    when lifted, 2·n_basis (the product D·K that forms them) otherwise.

    Parameters
    ----------
    n_points, n_pairs, n_basis : int
        Points, pairs and expansion points.
    lifted : bool, default=True
        Lifted or dense pair rows.

    Returns
    -------
    int
        Number of nonzeros.

    See Also
    --------
    Formulation.estimate_nbytes : uses it for formulations that declare no size.

    Examples
    --------
    >>> from aucopt.modeling import lifted_lp_nnz
    >>> lifted_lp_nnz(100, 2500, 100), lifted_lp_nnz(100, 2500, 100, lifted=False)
    (17500, 510000)
    """
    return int(n_points * n_basis + (3 if lifted else 2 * n_basis) * n_pairs)


class Formulation:
    """A registered formulation: a function ``f(m, **params)`` that states an LP or QP on a :class:`Model`.

    Made by the :func:`formulation` decorator (or :func:`get_formulation` for a plain function).

    Parameters
    ----------
    func : callable
        ``func(m, **params)``, declaring variables, objective and constraints on ``m``.
    name : str
        Registry name.
    kind : {"lp", "qp", "custom"}
        The problem kind it emits (``"custom"`` for unregistered functions).
    nnz : callable, default=None
        ``nnz(n_points, n_pairs, n_basis, lifted) -> int``: the nonzeros of the problem it
        builds (constraint matrix and quadratic term), used by :meth:`estimate_nbytes`;
        None uses the generic estimate :func:`lifted_lp_nnz`.
    params : dict, default=None
        The constraints of the function's parameters, ``{name: [constraint, ...]}`` in the
        vocabulary of scikit-learn's ``_parameter_constraints``
        (:mod:`sklearn.utils._param_validation`: ``Interval``, ``StrOptions``, ``"array-like"``,
        a type, ``None``, ...); a value is valid when it meets one of them. Each name must be a
        parameter of ``func``. :meth:`validate_params` checks them before every build.

    Attributes
    ----------
    name : str
        Registry name.
    kind : str
        ``"lp"``, ``"qp"`` or ``"custom"``.
    nnz : callable or None
        The declared size.
    parameter_constraints : dict
        The declared constraints, by parameter name.
    parameters : dict
        The function's parameters (after ``m``) and their defaults (``inspect.Parameter.empty``
        when it has none), in order.
    __doc__ : str
        The function's docstring, else its module's (shown by ``aucopt formulations``).

    See Also
    --------
    formulation : the decorator that registers formulations.
    get_formulation : look one up by name.
    Model : the operators a formulation uses.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet, get_formulation, kernel_matrix
    >>> form = get_formulation("lp_ranker")
    >>> form
    Formulation('lp_ranker', lp)
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> problem = form.build(PairSet.bipartite([1, 0, 0, 1]), kernel_matrix(X, gamma=1.0), C=2.0)
    >>> problem.n_vars, problem.nnz, form.nnz(n_points=4, n_pairs=4, n_basis=4, lifted=True)
    (12, 32, 32)
    >>> form.describe_params()  # (name, what it takes, default), from the declared constraints
    [('C', 'a float in the range (0.0, inf)', 1.0)]
    >>> try:
    ...     form.build(PairSet.bipartite([1, 0, 0, 1]), np.eye(4), C=-1.0)
    ... except ValueError as exc:
    ...     print(exc)
    The 'C' parameter of the formulation 'lp_ranker' must be a float in the range (0.0, inf). Got -1.0 instead.
    """

    #: leading arguments of ``func`` that are not parameters (the Model ``m``)
    _context_args = 1

    def __init__(self, func: Callable, name: str, kind: str, nnz: Callable | None = None,
                 params: dict | None = None):
        if nnz is not None and not callable(nnz):
            raise TypeError(f"nnz must be a callable nnz(n_points, n_pairs, n_basis, lifted); got {nnz!r}.")
        self.func, self.name, self.kind, self.nnz = func, name, kind, nnz
        module = sys.modules.get(getattr(func, "__module__", ""), None)
        self.__doc__ = func.__doc__ or getattr(module, "__doc__", None)
        self.parameters, self._any_keyword = self._signature(func)
        self.parameter_constraints = self._declared(params)

    # ------------------------------------------------------------------ parameters
    def _signature(self, func) -> tuple[dict, bool]:
        """The parameters after the context arguments, with their defaults; and whether ``**kwargs``."""
        try:
            signature = inspect.signature(func)
        except (TypeError, ValueError):  # no signature to read (a builtin): take any keyword
            return {}, True
        args = list(signature.parameters.values())
        context = [a for a in args if a.kind in (a.POSITIONAL_ONLY, a.POSITIONAL_OR_KEYWORD)][:self._context_args]
        named = {a.name: a.default for a in args if a not in context
                 and a.kind in (a.POSITIONAL_OR_KEYWORD, a.KEYWORD_ONLY)}
        return named, any(a.kind == a.VAR_KEYWORD for a in args)

    def _declared(self, params) -> dict:
        """The declared constraints, checked against the signature and the constraint vocabulary."""
        if params is None:
            return {}
        if not isinstance(params, dict):
            raise TypeError(f"params of the formulation {self.name!r} must be a dict {{name: [constraint, ...]}}; "
                            f"got {params!r}.")
        declared = {}
        for key, constraints in params.items():
            if key not in self.parameters and not self._any_keyword:
                raise ValueError(f"The formulation {self.name!r} declares constraints for {key!r}, which is not one "
                                 f"of its parameters {list(self.parameters)}.")
            if not isinstance(constraints, list) or not constraints:
                raise TypeError(f"The constraints of {key!r} (formulation {self.name!r}) must be a non-empty list, "
                                f"as in scikit-learn's _parameter_constraints; got {constraints!r}.")
            for constraint in constraints:
                make_constraint(constraint)  # an unknown constraint fails here, at registration
            declared[key] = list(constraints)
        return declared

    def _allowed(self, key: str) -> str:
        """What a parameter takes, in words (scikit-learn's wording for declared constraints)."""
        if key not in self.parameter_constraints:
            return "any value (undeclared; a number must be finite)"
        words = [str(c) for c in map(make_constraint, self.parameter_constraints[key]) if not c.hidden]
        return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"

    def describe_params(self) -> list[tuple[str, str, object]]:
        """The parameters, what each takes and its default.

        Returns
        -------
        list of (str, str, object)
            ``(name, allowed, default)`` in the order of the function's signature; ``allowed``
            in scikit-learn's wording of the declared constraints, ``default`` is
            ``inspect.Parameter.empty`` for a parameter without one.

        Examples
        --------
        >>> from aucopt import get_formulation
        >>> get_formulation("partial_auc").describe_params()
        [('C', 'a float in the range (0.0, inf)', 1.0), ('beta', 'a float in the range (0.0, 1.0]', 0.1)]
        """
        return [(key, self._allowed(key), default) for key, default in self.parameters.items()]

    def validate_params(self, params: dict) -> dict:
        """Check the parameters of a build against the declarations, before anything is built.

        A name must be a parameter of the function (unless it takes ``**kwargs``); a declared
        parameter must meet one of its constraints (:mod:`sklearn.utils._param_validation`); an
        undeclared number must be finite and an undeclared float array must hold no NaN.

        Parameters
        ----------
        params : dict
            The parameters passed to :meth:`build`.

        Returns
        -------
        dict
            ``params``, unchanged.

        Raises
        ------
        sklearn.utils._param_validation.InvalidParameterError
            (a ``ValueError`` and a ``TypeError``) Naming the formulation, the parameter, the
            value and what it takes; for an unknown name, the parameters there are.

        Examples
        --------
        >>> from aucopt import get_formulation
        >>> try:
        ...     get_formulation("lp_ranker").validate_params({"c": 1.0})
        ... except ValueError as exc:
        ...     print(exc)
        The formulation 'lp_ranker' has no parameter 'c'; its parameters: C (a float in the range (0.0, inf);
        default 1.0).
        """
        unknown = [key for key in params if key not in self.parameters]
        if unknown and not self._any_keyword:
            raise InvalidParameterError(
                f"The formulation {self.name!r} has no parameter {unknown[0]!r}; "
                + (f"its parameters: {self._listing()}." if self.parameters else "it takes no parameters."))
        declared = {key: value for key, value in params.items() if key in self.parameter_constraints}
        validate_parameter_constraints({key: self.parameter_constraints[key] for key in declared}, declared,
                                       caller_name=f"the formulation {self.name!r}")
        for key, value in params.items():
            if key in declared:
                continue
            if isinstance(value, Real) and not isinstance(value, bool) and not math.isfinite(value):
                raise InvalidParameterError(f"The {key!r} parameter of the formulation {self.name!r} must be a "
                                            f"finite number. Got {value!r} instead.")
            if isinstance(value, np.ndarray) and value.dtype.kind in "fc" and np.isnan(value).any():
                raise InvalidParameterError(
                    f"The {key!r} parameter of the formulation {self.name!r} holds {int(np.isnan(value).sum())} "
                    f"NaN value(s), the first at index {np.argwhere(np.isnan(value))[0].tolist()}: pass numbers.")
        return params

    def _listing(self) -> str:
        def default(value):
            return "required" if value is inspect.Parameter.empty else f"default {value!r}"

        return ", ".join(f"{key} ({allowed}; {default(value)})" for key, allowed, value in self.describe_params())

    def __call__(self, m: Model, **params):
        return self.func(m, **self.validate_params(params))

    def build(self, pairs: PairSet, kernel=None, *, factor=None, lifted: bool = True,
              max_bytes: int | None = DEFAULT_MAX_BYTES, **params) -> Problem:
        """Build the problem for a pair set and a kernel.

        Parameters
        ----------
        pairs : PairSet
            The pairs to rank.
        kernel : array-like of shape (n_points, n_basis), default=None
            Kernel matrix (formulations using :meth:`Model.scores`).
        factor : array-like or sparse matrix of shape (n_points, r), default=None
            K = L Lᵀ factor (formulations using :attr:`Model.kernel_factor`).
        lifted : bool, default=True
            See :class:`Model`.
        max_bytes : float or None, default=2 GiB
            Memory budget of the builder.
        **params
            The formulation's own parameters, e.g. ``C``.

        Returns
        -------
        Problem
            Named after the formulation.

        Raises
        ------
        sklearn.utils._param_validation.InvalidParameterError
            (a ``ValueError``) For a parameter the function does not take, or a value outside its
            declared constraints (:meth:`validate_params`), before anything is built.
        ValueError
            When the kernel or the factor holds a NaN or infinite entry
            (:func:`check_kernel_values`), before anything is built.
        ProblemTooLargeError
            When listing the pairs or a dense block would exceed ``max_bytes``.
        ConvexityError
            When the formulation states a non-convex objective or constraint (see
            :meth:`Model.subject_to`); the message names the formulation and the line.
        """
        params = self.validate_params(params)
        m = Model(pairs, kernel, factor=factor, lifted=lifted, max_bytes=max_bytes, formulation=self.name)
        self.func(m, **params)
        return m.build(self.name)

    def estimate_nbytes(self, *, n_points: int, n_pairs: int, n_basis: int, lifted: bool = True,
                        solver: str | None = None) -> float:
        """Peak memory of building and solving the problem, without building it.

        Parameters
        ----------
        n_points : int
            Points the pairs index.
        n_pairs : int
            Number of pairs.
        n_basis : int
            Columns of the kernel matrix (or of the factor L, for formulations written on
            :attr:`Model.kernel_factor`).
        lifted : bool, default=True
            Lifted or dense form.
        solver : str, default=None
            The backend that will solve it; None: HiGHS for an LP, OSQP for a QP.

        Returns
        -------
        float
            Bytes: the kernel block (or factor), and the larger of the builder's peak and the
            assembled problem plus the solver's working memory, from the declared nonzeros
            (``nnz``, else :func:`lifted_lp_nnz`) and the measured per-nonzero and per-row
            costs of the builder and the backend (see ``aucopt._memory``).

        Examples
        --------
        >>> from aucopt import get_formulation
        >>> form = get_formulation("lp_ranker")
        >>> round(form.estimate_nbytes(n_points=1000, n_pairs=250_000, n_basis=1000) / 1e6)
        656
        """
        from .. import _memory

        size = self.nnz if self.nnz is not None else lifted_lp_nnz
        nnz = size(n_points=n_points, n_pairs=n_pairs, n_basis=n_basis, lifted=lifted)
        if self.kind == "qp":
            _, rows, cols = _memory.dual_qp_size(n_points, n_pairs, n_basis)
            return float(_memory.FLOAT * float(n_points) * float(n_basis)
                         + _memory.problem_bytes(nnz, rows, cols, kind="qp", solver=solver or "osqp"))
        return _memory.lp_bytes(n_points, n_pairs, n_basis, lifted=lifted, solver=solver or "highs", nnz=nnz)

    def check_size(self, *, n_points: int, n_pairs: int, n_basis: int, lifted: bool = True,
                   max_bytes: float | None = DEFAULT_MAX_BYTES, fix: str | None = None,
                   solver: str | None = None, routes=None) -> None:
        """Raise before building a problem over the memory budget.

        Parameters
        ----------
        n_points, n_pairs, n_basis : int
            As in :meth:`estimate_nbytes`.
        lifted : bool, default=True
            Lifted or dense form.
        max_bytes : float or None, default=2 GiB
            The budget; None disables the check.
        fix : str, default=None
            The remedy to name in the message; by default the first alternative path whose
            own estimate fits ``max_bytes`` (``routes``, else the pair-free paths of the LP
            Ranker and RankRC / RankSVM).
        solver : str, default=None
            The backend, as in :meth:`estimate_nbytes`.
        routes : list or callable, default=None
            Candidate alternative paths (``aucopt._memory.Route``), tried in order.

        Raises
        ------
        ProblemTooLargeError
            When :meth:`estimate_nbytes` exceeds ``max_bytes``.

        Examples
        --------
        >>> from aucopt import get_formulation
        >>> from aucopt.exceptions import ProblemTooLargeError
        >>> try:
        ...     get_formulation("lp_ranker").check_size(n_points=20_000, n_pairs=10**8, n_basis=20_000)
        ... except ProblemTooLargeError as exc:
        ...     print(str(exc)[:75])
        The lifted LP 'lp_ranker' for 20,000 points and 100,000,000 pairs would nee
        """
        from .. import _memory

        need = self.estimate_nbytes(n_points=n_points, n_pairs=n_pairs, n_basis=n_basis, lifted=lifted,
                                    solver=solver)
        what = (f"The {'lifted' if lifted else 'dense'} {self.kind.upper()} {self.name!r} for "
                f"{n_points:,} points and {n_pairs:,} pairs")
        if fix is not None:
            check_memory(need, max_bytes, what, fix)
            return
        if routes is None:
            routes = lambda: _memory.lp_routes(n_points, n_pairs, max_bytes=max_bytes)  # noqa: E731
        _memory.refuse(need, max_bytes, what, routes)

    def __repr__(self):
        return f"Formulation({self.name!r}, {self.kind})"


def formulation(name: str | None = None, *, kind: str = "lp", nnz: Callable | None = None,
                params: dict | None = None):
    """Decorator registering ``func(m, **params)`` as a named formulation.

    Parameters
    ----------
    name : str, default=None
        Registry name; the function's name when None.
    kind : {"lp", "qp"}, default="lp"
        The problem kind it emits.
    nnz : callable, default=None
        ``nnz(n_points, n_pairs, n_basis, lifted) -> int``, the nonzeros of the problem the
        formulation builds; :meth:`Formulation.check_size` uses it. None: the generic
        lifted-LP estimate :func:`lifted_lp_nnz`.
    params : dict, default=None
        The constraints of its parameters, ``{name: [constraint, ...]}`` as scikit-learn's
        ``_parameter_constraints`` (e.g. ``{"C": [Interval(Real, 0, np.inf, closed="neither")]}``
        with ``Interval`` from :mod:`sklearn.utils._param_validation`), checked before every
        build with a message naming the formulation, the parameter, the value and what it takes
        (:meth:`Formulation.validate_params`). A parameter left undeclared takes any value but
        a NaN or infinite number.

    Returns
    -------
    callable
        The decorator; it returns the registered :class:`Formulation`.

    See Also
    --------
    get_formulation, available_formulations, Model

    Notes
    -----
    Shipped formulations live one per file in the top-level ``formulations/`` folder
    (importable as ``aucopt.formulations``); a formulation defined elsewhere is registered when
    its module is imported.

    Examples
    --------
    A budgeted LP Ranker, Σα ≤ budget:

    >>> from numbers import Real
    >>> import numpy as np
    >>> from sklearn.utils._param_validation import Interval
    >>> from aucopt import PairSet, available_formulations, formulation, solve
    >>> @formulation("budget_ranker", kind="lp",
    ...              nnz=lambda n_points, n_pairs, n_basis, lifted: n_points * (n_basis + 1) + n_basis + 3 * n_pairs,
    ...              params={"C": [Interval(Real, 0, np.inf, closed="neither")],
    ...                      "budget": [Interval(Real, 0, np.inf, closed="left")]})
    ... def budget_ranker(m, C=1.0, budget=0.5):
    ...     alpha = m.variable("alpha", m.n_basis, lower=0)
    ...     z = m.variable("z", m.n_pairs, lower=0)
    ...     f = m.scores(alpha)
    ...     m.minimize(alpha.sum() + C * (m.pair_weights @ z))
    ...     m.subject_to(m.pair_difference(f) + z >= 1, alpha.sum() <= budget)
    >>> "budget_ranker" in available_formulations()
    True
    >>> problem = budget_ranker.build(PairSet.bipartite([1, 0, 0]), np.eye(3), budget=0.5)
    >>> round(solve(problem).objective, 6)
    1.5

    A value outside its declaration is refused before anything is built:

    >>> try:
    ...     budget_ranker.build(PairSet.bipartite([1, 0, 0]), np.eye(3), budget=-1)
    ... except ValueError as exc:
    ...     print(exc)
    The 'budget' parameter of the formulation 'budget_ranker' must be a float in the range [0.0, inf). Got -1 instead.
    """

    def register(func):
        key = name or func.__name__
        form = Formulation(func, key, kind, nnz, params)
        _REGISTRY[key] = form
        return form

    return register


def get_formulation(name_or_func) -> Formulation:
    """Look up a registered formulation by name, or wrap a plain function ``f(m, **params)``.

    Parameters
    ----------
    name_or_func : str, Formulation or callable
        A name of :func:`available_formulations`, a Formulation (returned as is) or a function.

    Returns
    -------
    Formulation

    Raises
    ------
    ValueError
        For an unknown name; the message lists the registered ones.

    See Also
    --------
    available_formulations, formulation

    Examples
    --------
    >>> from aucopt import get_formulation
    >>> get_formulation("aucsvm_l1_dual")
    Formulation('aucsvm_l1_dual', qp)
    >>> get_formulation(lambda m: None).kind
    'custom'
    """
    if isinstance(name_or_func, Formulation):
        return name_or_func
    if callable(name_or_func):
        return Formulation(name_or_func, getattr(name_or_func, "__name__", "custom"), "custom")
    ensure_formulations_package()  # registers the shipped formulations

    if name_or_func not in _REGISTRY:
        raise ValueError(f"Unknown formulation {name_or_func!r}; available: {sorted(_REGISTRY)}.")
    return _REGISTRY[name_or_func]


def available_formulations() -> list[str]:
    """Names of the registered formulations (the shipped ones and any registered since).

    Returns
    -------
    list of str
        Sorted names.

    See Also
    --------
    get_formulation, formulation

    Examples
    --------
    >>> from aucopt import available_formulations
    >>> {"aucsvm_l1_dual", "aucsvm_l2_dual", "lp_ranker", "lp_ranker_free_sign"} <= set(available_formulations())
    True
    """
    ensure_formulations_package()

    return sorted(_REGISTRY)
