"""The operators of the :class:`~aucopt.modeling.Model`: lifting, squares, grouped sums and epigraphs.

``lift`` and ``sum_squares``; the grouped sums ``group_sum`` and ``group_mean``; the epigraph
operators ``group_max``, ``maximum``, ``positive_part``, ``abs`` and ``sum_largest`` (Ogryczak &
Tamir, 2003), each declaring new variables and linear rows and registering its block for the
convexity checks of :class:`~aucopt.modeling._convexity.ConvexityChecks`. :class:`Operators` is a
base of ``Model``; the pair and kernel operators (``scores``, ``pair_difference``) live there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike

from ..exceptions import ConvexityError
from ._convexity import ConvexityChecks
from ._expressions import Affine, Quadratic, Variable

__all__ = ["Operators"]


class Operators(ConvexityChecks):
    """The operators a formulation states its mathematics with (a base of :class:`~aucopt.modeling.Model`)."""

    _variables: dict[str, Variable]

    if TYPE_CHECKING:
        def variable(self, name: str, size: int, lower: ArrayLike | None = None,
                     upper: ArrayLike | None = None) -> Variable: ...

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

    def sum_squares(self, expr: Affine, weights: ArrayLike | None = None) -> Quadratic:
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
        zero = Affine(expr.model, {}, np.zeros(1))
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
    def _check_groups(groups: ArrayLike, size: int, what: str, *,
                      nonempty: bool) -> tuple[np.ndarray, int, np.ndarray]:
        """(groups as int64, G, entries per group); -1 leaves an entry out."""
        g = np.asarray(groups)
        if g.shape != (size,):
            raise ValueError(f"{what}: groups has shape {g.shape}, the expression has {size} entries; "
                             f"pass one group number per entry, shape ({size},).")
        whole = np.issubdtype(g.dtype, np.floating) and np.all(np.isfinite(g)) and np.all(g == np.round(g))
        if g.size and not np.issubdtype(g.dtype, np.integer) and not whole:
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
    def _membership(g: np.ndarray, G: int) -> tuple[np.ndarray, sp.csr_matrix]:
        """(members, E): the entries with a group, and E (members × G) with E[r, g_r] = 1."""
        members = np.flatnonzero(g >= 0)
        E = sp.csr_matrix((np.ones(len(members)), (np.arange(len(members)), g[members])),
                          shape=(len(members), G))
        return members, E

    def group_sum(self, expr: Affine, groups: ArrayLike) -> Affine:
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

    def group_mean(self, expr: Affine, groups: ArrayLike) -> Affine:
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

    def group_max(self, expr: Affine, groups: ArrayLike, name: str | None = None) -> Variable:
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

    def _group_max(self, expr: Affine, groups: ArrayLike, name: str | None, op: str) -> Variable:
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

    def sum_largest(self, expr: Affine, k: int, groups: ArrayLike | None = None, name: str | None = None) -> Affine:
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
