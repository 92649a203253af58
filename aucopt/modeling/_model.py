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

The Model's parts live in their own modules: the expressions in ``_expressions``, the
convexity bookkeeping and its messages in ``_convexity``, the operators in ``_operators`` (a base
of :class:`Model`), the registry in ``_formulation`` and the size estimates in ``_sizes``.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike

from ..exceptions import ConvexityError, check_memory
from ..pairs import DEFAULT_MAX_BYTES, PairSet
from ._expressions import Affine, Constraint, Quadratic, Variable
from ._operators import Operators
from ._sizes import BYTES_PER_NONZERO
from .problem import Problem

__all__ = ["MissingGroupsError", "Model", "check_kernel_values"]


# ============================================================================ input checks
class MissingGroupsError(ValueError):
    """A formulation reads :attr:`Model.groups` and the pair set carries none.

    Raised by :attr:`Model.groups`, so that a caller that knows how groups are given (a command
    line option, an estimator's ``fit``) can say so.
    """


def check_kernel_values(kernel: np.ndarray | None, factor: Any = None, formulation: str | None = None) -> None:
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
        if M is None or not (sp.issparse(M) or isinstance(M, np.ndarray)):
            continue
        data = np.asarray(M.data) if sp.issparse(M) else M
        if data.size == 0 or data.dtype.kind not in "fc" or (np.isfinite(data.min()) and np.isfinite(data.max())):
            continue
        count, value, where = _first_nonfinite(M)
        raise ValueError(
            f"The {what}{of} has {count:,} non-finite {'entry' if count == 1 else 'entries'} (NaN or infinite) "
            f"among {data.size:,}, the first {value} at {where}: every entry is a "
            "coefficient of the problem and must be finite. Check the data it was computed from for NaN or "
            "infinite values, rescale it if the kernel overflows, or check the kernel function.")


def _first_nonfinite(M: Any) -> tuple[int, Any, str]:
    """``(count, first value, its position)`` of the non-finite entries of a dense or sparse matrix."""
    if sp.issparse(M):  # positions only now, on the error path
        values = M.tocoo()
        bad = ~np.isfinite(values.data)
        k = int(np.flatnonzero(bad)[0])
        return int(np.count_nonzero(bad)), values.data[k], f"row {values.row[k]}, column {values.col[k]}"
    bad = ~np.isfinite(M)
    first = tuple(np.argwhere(bad)[0])
    where = f"row {first[0]}, column {first[1]}" if M.ndim == 2 else f"index {first}"
    return int(np.count_nonzero(bad)), M[first], where


# ============================================================================ model
class Model(Operators):
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

    def __init__(self, pairs: PairSet, kernel: ArrayLike | None = None, *, factor: Any = None, lifted: bool = True,
                 max_bytes: float | None = DEFAULT_MAX_BYTES, formulation: str | None = None):
        self.pairs = pairs.check_nonempty()
        self.kernel = None if kernel is None else np.asarray(kernel, dtype=float)
        if factor is not None and factor.shape[0] != pairs.n_points:
            raise ValueError(f"The kernel factor has {factor.shape[0]} rows but the pair set has {pairs.n_points} "
                             "points.")
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
        self._listed: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # (i, j, w), listed on first use
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
    def kernel_factor(self) -> Any:
        """L (n_points × r) with K = L Lᵀ: the given factor, or an exact eigen-factor of K."""
        if self._factor is None:
            from ..kernels import kernel_factor

            if self.kernel is None:
                raise ValueError("This formulation needs a kernel matrix or a kernel factor.")
            self._factor = kernel_factor(self.kernel)
        return self._factor

    def basis_factor(self, basis: ArrayLike | None = None) -> Any:
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
                raise ValueError(f"The kernel has shape {self.kernel.shape}, so its columns are not the "
                                 f"{self.n_points} points: pass basis= the indices of the points its columns "
                                 "belong to.")
            return self.kernel_factor
        from ..kernels import kernel_factor

        if self.kernel is None:
            raise ValueError("This formulation needs a kernel matrix (pass kernel=K to build).")
        K_RR = self.kernel[self._point_indices(basis, "basis")]
        if K_RR.shape[0] != K_RR.shape[1]:
            raise ValueError(f"basis has {K_RR.shape[0]} points but the kernel has {K_RR.shape[1]} columns: pass the "
                             "indices of the points the kernel's columns belong to, one per column.")
        return kernel_factor(K_RR)

    def _point_indices(self, index: ArrayLike, what: str) -> np.ndarray:
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

    def variable(self, name: str, size: int, lower: ArrayLike | None = None,
                 upper: ArrayLike | None = None) -> Variable:
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

    def minimize(self, objective: Affine | Quadratic) -> None:
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
    def _pair_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
        f = cast(Affine, self.kernel @ expansion)  # Affine.__rmatmul__ (numpy's stubs say ndarray)
        if not self.lifted:
            return f
        s = self.variable(name, self.n_points)
        self._add_rows(s - f == 0, "scores")
        return s


    # ----------------------------------------------------------------- assembly
    def _check_nnz_budget(self, M: Any, expr: Affine, what: str) -> None:
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

    def _pair_rows(self) -> dict[str, Any]:
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
