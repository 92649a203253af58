"""The expressions of the modeling layer: affine expressions, variable blocks, constraints, quadratics.

An :class:`Affine` expression is Σ_b M_b x_b + const over named variable blocks (sparse M_b);
comparing one makes a :class:`Constraint`; :meth:`Model.sum_squares
<aucopt.modeling.Model.sum_squares>` makes a convex :class:`Quadratic`. A product of two
expressions, a negative multiple of a quadratic and a quadratic constraint raise
:class:`~aucopt.exceptions.ConvexityError` with the model's message (see ``_convexity``).
"""

from __future__ import annotations

from numbers import Real
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike

from ..exceptions import ConvexityError

if TYPE_CHECKING:
    from ._model import Model

__all__ = ["Affine", "Constraint", "Quadratic", "Variable"]


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

    def __init__(self, model: Model, terms: dict, const: ArrayLike):
        self.model = model
        self.terms = terms  # name -> sparse (size × block size)
        self.const = np.asarray(const, dtype=float)

    @property
    def size(self) -> int:
        """Number of entries of the expression."""
        return len(self.const)

    def __len__(self) -> int:
        return self.size

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        # an opaque object to numpy and scipy (not a sequence despite ``__getitem__``), so that
        # ``sparse @ expr`` and ``ndarray @ expr`` defer to :meth:`__rmatmul__`
        box = np.empty((), dtype=object)
        box[()] = self
        return box

    # ----------------------------------------------------------------- algebra
    def _lift(self, other: Any) -> Any:
        if isinstance(other, Affine):
            return other
        if isinstance(other, Real) or (isinstance(other, (np.ndarray, list, tuple)) and np.ndim(other) <= 1):
            const = np.broadcast_to(np.asarray(other, dtype=float), (self.size,))
            return Affine(self.model, {}, const.copy())
        return NotImplemented

    def _broadcast(self, size: int) -> Affine:
        """This size-1 expression repeated ``size`` times."""
        return cast(Affine, np.ones((size, 1)) @ self)  # Affine.__rmatmul__ (numpy's stubs say ndarray)

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
        return Affine(self.model, {k: scalar * M for k, M in self.terms.items()}, self.const * float(scalar))

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
        return cast(Affine, np.ones(self.size) @ self)  # Affine.__rmatmul__

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

    def __eq__(self, rhs):
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

    def __init__(self, model: Model, name: str, size: int, lower: ArrayLike | None, upper: ArrayLike | None):
        super().__init__(model, {name: sp.identity(size, format="csr")}, np.zeros(size))
        self.name = name
        self.lower = np.broadcast_to(np.asarray(-np.inf if lower is None else lower, float), (size,))
        self.upper = np.broadcast_to(np.asarray(np.inf if upper is None else upper, float), (size,))

    def __repr__(self) -> str:
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

    def __init__(self, expr: Affine, lower: ArrayLike, upper: ArrayLike):
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
            raise ConvexityError(self.linear.model._concave_quadratic_message(f"{float(scalar):g} * sum_squares(...)"))
        return Quadratic({k: scalar * Q for k, Q in self.quad.items()}, self.linear * scalar)

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

    def __eq__(self, rhs):
        if rhs is None or not isinstance(rhs, (Real, np.ndarray, list, tuple, Affine, Quadratic)):
            return NotImplemented
        self._compare("==")

    __hash__ = object.__hash__

