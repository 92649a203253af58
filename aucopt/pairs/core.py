"""One pair core for every scalable path: pairwise loss, gradient coefficients, Hessian products.

For scores ``f`` (length m) and a :class:`~aucopt.pairs.PairSet`, every pair (i, j) has the
argument ``z_ij = f_i - f_j`` (computed in float64, exactly as a brute-force loop would) and

    L(f) = Σ_(i,j) w_ij ℓ(z_ij),                                   w_ij = a_i w_i w_j,
    c    = ∂L/∂f,      c_k = Σ_(k,j) w_kj ℓ'(z_kj) - Σ_(i,k) w_ik ℓ'(z_ik),
    Q(v) = Σ_(i,j) w_ij ℓ''(z_ij) (v_i - v_j)(e_i - e_j)   (generalized Hessian of L).

with point weights ``w`` and per-anchor factors ``a`` (``PairSet.anchor_weights``, 1 when
absent; for explicit storage ``w_ij`` is the listed weight). With ``f = Kβ`` the gradient is
``Kᵀc`` and the Hessian product is ``Kᵀ Q(K s)``: the gradient and Hessian of RankRC, Tayal et
al. (2015), eqs. 18–20 (``g = Aᵀ ℓ'``, ``H = Aᵀ I^Q A / (2ε)`` with ``A = P_mat K``, so
``Q(v) = P_matᵀ diag(ℓ'') P_mat v``; the Hessian's factor is written here as ℓ'' = 1/(2ε) on
the quadratic piece) and, for the hinge, the subgradient of the LP Ranker objective of Ataman
(2007), eq. 4.4 (``-c`` counts the violated pairs). In the sweeps a point carries ``w_i`` as a
partner and ``a_i w_i`` as an anchor, so a weight that depends on the earlier point of a pair
only (Uno's inverse-probability-of-censoring weights) costs nothing extra.

Losses (:class:`PairLoss`; written with ``t = 1 - z``, half-open pieces):

* ``"hinge"``          ℓ = t            on z < 1, else 0;   ℓ' = -1 on z < 1 (0 at z = 1); no ℓ''.
* ``"squared_hinge"``  ℓ = t²           on z < 1, else 0;   ℓ' = -2t, ℓ'' = 2 on z < 1.
* ``"smoothed_hinge"`` ℓ = t - ε        on z < 1 - 2ε;      ℓ' = -1,      ℓ'' = 0,
                       ℓ = t² / (4ε)    on 1 - 2ε ≤ z < 1;  ℓ' = -t/(2ε), ℓ'' = 1/(2ε),
                       ℓ = 0            on z ≥ 1.

The core dispatches on the pair set's *storage* only, never on its target. Nothing is
enumerated for sorted storage (anchor i's partners are ``order[start_i:]``, see
:mod:`aucopt.pairs`). For a fixed anchor, ``z_ij`` is a non-increasing function of ``f_j``, so
each loss piece selects the partners whose score lies in a half-open range ``[lo_i, hi_i)`` of
score ranks: the sorted-pair trick of Chapelle & Keerthi (2010), also used by RankRC (Tayal et
al. 2015). The boundary ranks are found by a monotone two-pointer walk over the distinct scores that
evaluates the float64 predicate ``f_i - f_j < b`` itself, so ties and scores exactly on a
breakpoint are classified exactly as in the elementwise definition. Everything then reduces to
two linear maps per breakpoint ``b``:

    C_b x  (per anchor)  = Σ_{j in suffix(i), z_ij ≥ b} x_j,
    C_bᵀ y (per point)   = Σ_{anchors i with j in suffix(i), z_ij ≥ b} y_i,

and a piece ``[b_lo, b_hi)`` is ``C_lo - C_hi`` (``C_-inf`` = the whole suffix). With sums of
``w, w f, w f²`` the loss and ``c`` follow in closed form per anchor / partner.

* **Sorted, one shared suffix** (bipartite pairs, multipartite pairs of two levels, the cases
  and controls of AUC(t)): ``C_b`` and ``C_bᵀ`` are merges of the anchors and the partners in
  ascending score order, each with one pointer per breakpoint that evaluates ``f_i - f_j >= b``
  itself — ``O(m)`` per product after one sort of ``f``, every pass reading memory in order
  (:mod:`aucopt.pairs._merge`).
* **Sorted, nested suffixes** (Harrell's comparable set; multipartite pairs of three or more
  levels, whose suffixes are the lower levels): the 2-D dominance sums "position in
  the suffix AND score rank below a threshold" are two sweeps over the time order with a
  Fenwick tree over score ranks: walking from the end, each point is inserted at its rank and
  each anchor reads the prefix sums at its thresholds when its suffix start is reached
  (``C_b``); walking from the start, each anchor adds its rank ranges and each point reads its
  rank (``C_bᵀ``). ``O(m log m)`` per product, ``O(m)`` memory.

The sweeps are compiled (numba, cached on disk after the first call) and fused: the loss and
``c`` are one forward and one adjoint sweep whose per-anchor / per-partner sums are combined on
the fly, and the Hessian's counts ride along. The set-up (one ``argsort`` of ``f``, dense ranks,
exact rank thresholds by a two-pointer walk, anchors grouped by suffix start, everything
permuted once to time order) is built once per ``f``: :func:`pair_loss_and_hessian` shares it
between the loss, ``c`` and every :meth:`PairHessian.matvec`; :func:`pair_line_derivatives`
gives ``L`` and its first two derivatives along a direction in one forward sweep (a line
search needs no ``c`` and no Hessian state).
* **Explicit** storage: vectorized enumeration over the pair arrays, ``O(n_pairs)``.

Public API: :class:`PairLoss`, :func:`pair_loss` (``(L, c)``), :func:`pair_loss_and_hessian`,
:class:`PairHessian` (state at fixed ``f``; ``matvec(v) = Q(v)``, ``n_active``),
:func:`pair_line_derivatives` (``L``, ``cᵀv``, ``vᵀQ(v)``) and :func:`pair_counts` (number of
pairs with ``z < threshold``, per point).

References: Chapelle, O., & Keerthi, S. S. (2010). Efficient algorithms for ranking with SVMs.
*Information Retrieval*, 13(3), 201–215. Tayal, A., Coleman, T. F., & Li, Y. (2015). RankRC:
Large-scale nonlinear rare class ranking. *IEEE Transactions on Knowledge and Data Engineering*,
27(12), 3347–3359. Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear
programming for problems with binary output*. PhD thesis, University of Iowa.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._lazy import lazy_module
from .._validation import check_finite_1d
from ._counting import PairCounts, ViolatedPairs, pair_counts, violated_pairs
from ._pairset import PairSet
from ._setup import INT, PairCore, Piece, checked_scores, cuts_of, piece_arrays, side_weights, suffix_plan

_compiled = lazy_module("aucopt.pairs._compiled")  # numba: imported at the first evaluation

__all__ = [
    "LOSSES",
    "PairCounts",
    "PairEvaluator",
    "PairHessian",
    "PairLoss",
    "ViolatedPairs",
    "pair_counts",
    "pair_line_derivatives",
    "pair_loss",
    "pair_loss_and_hessian",
    "pair_slope_total",
    "pair_slopes",
    "violated_pairs",
]

LOSSES = ("hinge", "squared_hinge", "smoothed_hinge")
"""Names accepted by :class:`PairLoss`."""

_MATMAT_COLUMNS = 32  # columns per compiled batched Hessian product


# ===================================================================================== losses
@dataclass(frozen=True)
class PairLoss:
    """A piecewise-quadratic pairwise loss ℓ(z) of the score difference ``z = f_i - f_j``.

    Parameters
    ----------
    name : {"hinge", "squared_hinge", "smoothed_hinge"}, default="squared_hinge"
        The loss (:data:`LOSSES`).
    eps : float, default=0.5
        ε ∈ (0, 1], the half-width of the smoothed hinge's quadratic zone [1 − 2ε, 1); used by
        ``"smoothed_hinge"`` only.

    Attributes
    ----------
    pieces : tuple of (lower, upper, d0, d1, d2)
        The non-zero pieces: ℓ = d0 + d1 t + d2 t², t = 1 − z, on ``lower ≤ z < upper``.
    twice_differentiable : bool
        False for the hinge (no Hessian).

    See Also
    --------
    pair_loss : the total loss over a pair set.

    Notes
    -----
    The smoothed hinge of RankRC [2]_ is C¹ with ℓ(1 − 2ε) = ε and ℓ'(1 − 2ε) = −1; it tends to
    the hinge as ε → 0, and at ε = 1 its quadratic piece starts at z = −1. Pieces are half-open
    ``[lower, upper)``; :meth:`value`, :meth:`derivative` and :meth:`second` evaluate ℓ, ℓ' and
    ℓ'' elementwise with exactly these tie rules (ℓ' is the right-continuous subgradient
    choice: 0 at z = 1 for the hinge).

    References
    ----------
    .. [1] Chapelle, O., & Keerthi, S. S. (2010). Efficient algorithms for ranking with SVMs.
       *Information Retrieval*, 13(3), 201–215.
    .. [2] Tayal, A., Coleman, T. F., & Li, Y. (2015). RankRC: Large-scale nonlinear rare class
       ranking. *IEEE Transactions on Knowledge and Data Engineering*, 27(12), 3347–3359.

    Examples
    --------
    >>> from aucopt.pairs.core import PairLoss
    >>> loss = PairLoss("smoothed_hinge", eps=0.25)
    >>> loss.value([0.0, 0.5, 0.75, 1.0]).tolist()
    [0.75, 0.25, 0.0625, 0.0]
    >>> loss.derivative([0.0, 0.75]).tolist(), loss.second([0.75]).tolist()
    ([-1.0, -0.5], [2.0])
    """

    name: str = "squared_hinge"
    eps: float = 0.5

    def __post_init__(self) -> None:
        if self.name not in LOSSES:
            raise ValueError(f"Unknown pair loss {self.name!r}; choose one of {', '.join(LOSSES)}.")
        eps = float(self.eps)
        if not (np.isfinite(eps) and 0.0 < eps <= 1.0):
            raise ValueError(f"eps must lie in (0, 1], got {self.eps!r}.")
        object.__setattr__(self, "eps", eps)

    @classmethod
    def make(cls, loss: str | PairLoss = "squared_hinge", eps: float = 0.5) -> PairLoss:
        """A :class:`PairLoss` from a name (with ``eps``), or an existing instance unchanged.

        Parameters
        ----------
        loss : str or PairLoss, default="squared_hinge"
            A name of :data:`LOSSES` or a PairLoss.
        eps : float, default=0.5
            ε of the smoothed hinge (ignored for an instance).

        Returns
        -------
        PairLoss

        Examples
        --------
        >>> from aucopt.pairs.core import PairLoss
        >>> PairLoss.make("hinge")
        PairLoss(name='hinge', eps=0.5)
        """
        if isinstance(loss, PairLoss):
            return loss
        return cls(str(loss), eps)

    @property
    def pieces(self) -> tuple[Piece, ...]:
        """Non-zero pieces ``(lower, upper, d0, d1, d2)`` of ℓ in ``t = 1 - z``; ℓ = 0 elsewhere."""
        if self.name == "hinge":
            return (Piece(-np.inf, 1.0, 0.0, 1.0, 0.0),)
        if self.name == "squared_hinge":
            return (Piece(-np.inf, 1.0, 0.0, 0.0, 1.0),)
        e = self.eps
        a = 1.0 - 2.0 * e
        return (Piece(-np.inf, a, -e, 1.0, 0.0), Piece(a, 1.0, 0.0, 0.0, 0.25 / e))

    @property
    def twice_differentiable(self) -> bool:
        """Whether ℓ'' is defined piecewise (False for the hinge: no Hessian)."""
        return self.name != "hinge"

    def _map(self, z: ArrayLike, fn: Any) -> np.ndarray:
        z = np.asarray(z, dtype=float)
        out = np.zeros_like(z)
        for p in self.pieces:
            inside = (z >= p.lower) & (z < p.upper)
            out = np.where(inside, fn(p, 1.0 - z), out)
        return out

    def value(self, z: ArrayLike) -> np.ndarray:
        """ℓ(z), elementwise."""
        return self._map(z, lambda p, t: p.d0 + p.d1 * t + p.d2 * t * t)

    def derivative(self, z: ArrayLike) -> np.ndarray:
        """ℓ'(z) = -(d1 + 2 d2 t), elementwise (0 at the kink z = 1)."""
        return self._map(z, lambda p, t: -(p.d1 + 2.0 * p.d2 * t))

    def second(self, z: ArrayLike) -> np.ndarray:
        """ℓ''(z) = 2 d2 on each piece, elementwise (the generalized second derivative)."""
        return self._map(z, lambda p, t: np.full_like(t, 2.0 * p.d2))


# ============================================================================ loss and c
def pair_loss(pairs: PairSet, f: ArrayLike, loss: str | PairLoss = "squared_hinge",
              eps: float = 0.5) -> tuple[float, np.ndarray]:
    """Total pair loss ``L(f) = Σ w_ij ℓ(f_i - f_j)`` and its coefficient vector ``c = ∂L/∂f``.

    Parameters
    ----------
    pairs : PairSet
        Any pair set (sorted or explicit storage).
    f : array-like of shape (n_points,)
        Finite scores.
    loss : str or PairLoss, default="squared_hinge"
        The pairwise loss (:data:`LOSSES`).
    eps : float, default=0.5
        ε of the smoothed hinge.

    Returns
    -------
    L : float
        The total loss.
    c : ndarray of shape (n_points,)
        ∂L/∂f; with ``f = Kβ`` the gradient is ``∂L/∂β = Kᵀc``.

    See Also
    --------
    pair_loss_and_hessian : loss, coefficients and Hessian from one set-up.
    pair_counts : violated-pair counts.

    Notes
    -----
    Per anchor i and loss piece π (partners with ``z_ij`` in π), with ``h_i = 1 - f_i`` and
    ``W_k = Σ_j w_j f_j^k`` over those partners,

        L   += w_i [d0 W_0 + d1 (h_i W_0 + W_1) + d2 (h_i² W_0 + 2 h_i W_1 + W_2)],
        c_i -= w_i [d1 W_0 + 2 d2 (h_i W_0 + W_1)],

    and per partner j with ``A_k = Σ_i w_i f_i^k`` over the anchors whose pair with j is in π
    (with anchor factors, every anchor-side ``w_i`` above reads ``a_i w_i``):

        c_j += w_j [d1 A_0 + 2 d2 (A_0 - A_1 + f_j A_0)],

    where ``d0, d1, d2`` are the piece coefficients of :attr:`PairLoss.pieces`; scores enter
    centred by a constant, which changes nothing exactly. For the hinge, ``-c`` are the
    weighted violated-pair counts of the LP Ranker subgradient [3]_ (eq. 4.4; pairs with z
    exactly 1 count 0).

    Cost: ``O(m log m)`` time and ``O(m)`` memory for sorted storage (nothing is enumerated,
    after the sorted-pair trick of [1]_), ``O(n_pairs)`` for explicit storage.

    Roundoff: like every prefix-sum form of the sorted-pair trick, the quadratic pieces are
    differences of sums of ``w f²``; the absolute error is about ``1e-16 · Σ_ij w_ij (f_i - f_j)²``.
    That is negligible for scores on the margin's scale (``|f|`` up to ~1e3) but costs digits
    when scores are huge (``|f|`` ~ 1e6: errors ~1e-4 in quadratic-piece terms of size 1).
    A narrow quadratic piece loses more, about ``1e-16 |f| / ε`` of its slopes (the smoothed hinge at
    a small ε): :func:`pair_slopes` sums such a piece pair by pair.

    References
    ----------
    .. [1] Chapelle, O., & Keerthi, S. S. (2010). Efficient algorithms for ranking with SVMs.
       *Information Retrieval*, 13(3), 201–215.
    .. [2] Tayal, A., Coleman, T. F., & Li, Y. (2015). RankRC: Large-scale nonlinear rare class
       ranking. *IEEE Transactions on Knowledge and Data Engineering*, 27(12), 3347–3359.
    .. [3] Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming for
       problems with binary output*. PhD thesis, University of Iowa.

    Examples
    --------
    A sorted pair set and its explicit listing give the same loss:

    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.pairs.core import pair_loss
    >>> pairs = PairSet.bipartite([1, 0, 1, 0])
    >>> f = np.array([2.0, 0.5, 0.25, 0.0])
    >>> L, c = pair_loss(pairs, f, "squared_hinge")
    >>> listed = PairSet.from_arrays(*pairs.to_arrays(), n_points=4)
    >>> L, float(pair_loss(listed, f, "squared_hinge")[0]), c.tolist()
    (2.125, 2.125, [0.0, 2.5, -4.0, 1.5])
    """
    loss = PairLoss.make(loss, eps)
    L, c, _ = _loss_and_coef(PairCore(pairs, f, cuts_of(loss.pieces)), loss)
    return L, c


def pair_loss_and_hessian(pairs: PairSet, f: ArrayLike, loss: str | PairLoss = "squared_hinge",
                          eps: float = 0.5) -> tuple[float, np.ndarray, PairHessian]:
    """Loss, coefficients and Hessian at ``f`` from one shared set-up.

    One set-up (sort, ranks, thresholds) and one pair of sweeps serve all three: what a Newton
    step needs, at the cost of about one :func:`pair_loss` call; each :meth:`PairHessian.matvec`
    then costs two sweeps and no sort.

    Parameters
    ----------
    pairs : PairSet
        Any pair set.
    f : array-like of shape (n_points,)
        Finite scores.
    loss : {"squared_hinge", "smoothed_hinge"} or PairLoss, default="squared_hinge"
        A twice-differentiable pairwise loss.
    eps : float, default=0.5
        ε of the smoothed hinge.

    Returns
    -------
    L : float
        The total loss.
    c : ndarray of shape (n_points,)
        ∂L/∂f.
    hessian : PairHessian
        The generalized Hessian at ``f``.

    See Also
    --------
    pair_loss, PairHessian

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.pairs.core import pair_loss_and_hessian
    >>> L, c, H = pair_loss_and_hessian(PairSet.bipartite([1, 0]), np.array([0.5, 0.0]))
    >>> L, c.tolist(), H.matvec(np.array([1.0, 0.0])).tolist()
    (0.25, [-1.0, 1.0], [2.0, -2.0])
    """
    return _loss_and_hessian(pairs, f, PairLoss.make(loss, eps))


def _loss_and_hessian(pairs: PairSet, f: ArrayLike, loss: PairLoss) -> tuple[float, np.ndarray, PairHessian]:
    if not loss.twice_differentiable:
        PairHessian._check(loss)
    core = PairCore(pairs, f, cuts_of(loss.pieces))
    L, c, sums = _loss_and_coef(core, loss, hessian=True)
    return L, c, PairHessian(pairs, f, loss, _core=core, _sums=sums)


def _loss_and_coef(core: PairCore, loss: PairLoss, hessian: bool = False, pieces: Sequence[Piece] | None = None
                   ) -> tuple[float, np.ndarray, tuple[np.ndarray, np.ndarray] | None]:
    """L and c from one forward and one adjoint sweep; with ``hessian`` the same sweeps also give
    the Hessian's anchor and partner sums ``N`` and ``N'``. ``pieces``: a subset of the loss's pieces
    to sweep (sorted storage; default all of them)."""
    m = core.m
    if core.explicit:
        z = core.z
        L = float(np.dot(core.wij, loss.value(z)))
        d = core.wij * loss.derivative(z)
        c: np.ndarray = np.bincount(core.i, weights=d, minlength=m) - np.bincount(core.j, weights=d, minlength=m)
        return L, c, None
    c = np.zeros(m)
    if core.n_anchors == 0:
        return 0.0, c, None
    NA = np.zeros(core.n_anchors if hessian else 0)
    NP = np.zeros(m)
    acc = core.sweep(loss.pieces if pieces is None else pieces, _compiled.LOSS, 3, 2, NA=NA, NP=NP, out=c)
    sums = (NA, NP) if hessian else None
    return float(acc[0]), c, sums


def pair_slope_total(pairs: PairSet, f: ArrayLike, loss: str | PairLoss = "squared_hinge", eps: float = 0.5) -> float:
    """The total slope ``-Σ w_ij ℓ'(f_i - f_j)`` over the pairs, in one forward sweep.

    For the hinge this is the weight of the pairs with margin below 1; for the smoothed hinge
    of half-width ε it is ``Σ w_ij min(1, max(0, t_ij / 2ε))`` with ``t = 1 - z``: the total of
    the pair duals ``π_ij / C`` that the smoothed LP Ranker objective's gradient carries (the
    dual objective of its certificate, see :func:`aucopt.lp.smoothing`).

    Parameters
    ----------
    pairs : PairSet
        Any pair set.
    f : array-like of shape (n_points,)
        Finite scores.
    loss : str or PairLoss, default="squared_hinge"
        The pairwise loss (:data:`LOSSES`).
    eps : float, default=0.5
        ε of the smoothed hinge.

    Returns
    -------
    float
        ``-Σ w_ij ℓ'(z_ij)`` (ℓ' as in :meth:`PairLoss.derivative`: 0 at a kink's right side).

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.pairs.core import pair_slope_total
    >>> pairs = PairSet.bipartite([1, 0, 0])
    >>> f = np.array([1.0, 0.75, -1.0])      # margins 0.25 and 2
    >>> pair_slope_total(pairs, f, "hinge"), pair_slope_total(pairs, f, "smoothed_hinge", eps=0.5)
    (1.0, 0.75)
    """
    return _slopes(pairs, f, PairLoss.make(loss, eps), per_point=False)[0]


def pair_slopes(pairs: PairSet, f: ArrayLike, loss: str | PairLoss = "squared_hinge",
                eps: float = 0.5) -> tuple[float, np.ndarray]:
    """The pair slopes ``-w_ij ℓ'(f_i - f_j)``: their total and ``c = ∂L/∂f``, each pair of a
    narrow quadratic piece summed from its own score difference.

    The prefix-sum form of :func:`pair_loss` sums a quadratic piece from totals of ``w f`` over all
    the partners below it: when the piece is narrow against the scores (the smoothed hinge at a
    small ε), its slopes lose about ``1e-16 |f| / ε`` of their size. Here such a piece, when it
    holds at most 16 pairs per point or 4 million in all, is summed pair by pair instead, so the
    total and ``c`` carry the rounding of each pair's own difference only, and they belong to the
    same pair slopes: the smoothing route of the LP Ranker certifies its lower bound with them.

    Parameters
    ----------
    pairs : PairSet
        Any pair set.
    f : array-like of shape (n_points,)
        Finite scores.
    loss : str or PairLoss, default="squared_hinge"
        The pairwise loss (:data:`LOSSES`).
    eps : float, default=0.5
        ε of the smoothed hinge.

    Returns
    -------
    total : float
        ``-Σ w_ij ℓ'(z_ij)``, as :func:`pair_slope_total`.
    c : ndarray of shape (n_points,)
        ∂L/∂f, as :func:`pair_loss`.

    See Also
    --------
    pair_slope_total : the total alone.
    pair_loss : the loss and ``c`` by prefix sums only.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.pairs.core import pair_slopes
    >>> f = np.array([4.0, 3.0 + 2.0**-20, 0.0])    # margins 1 - 2**-20 and 4
    >>> total, c = pair_slopes(PairSet.bipartite([1, 0, 0]), f, "smoothed_hinge", eps=2.0**-20)
    >>> total, c.tolist()
    (0.5, [-0.5, 0.5, 0.0])
    """
    return _slopes(pairs, f, PairLoss.make(loss, eps), per_point=True)


#: a narrow quadratic piece is summed pair by pair when it holds at most this many point pairs per
#: point, or at most _ONE_BY_ONE_PAIRS in all (a few milliseconds)
_ONE_BY_ONE_PER_POINT = 16
_ONE_BY_ONE_PAIRS = 1 << 22


def _slopes(pairs: PairSet, f: ArrayLike, loss: PairLoss, per_point: bool) -> tuple[float, np.ndarray]:
    """:func:`pair_slopes`; with ``per_point`` False, ``c`` is not computed (an empty array)."""
    f = checked_scores(pairs, f)
    m = pairs.n_points
    c = np.zeros(m if per_point else 0)
    if pairs._explicit is not None:  # every pair from its own difference already
        core = PairCore(pairs, f, ())
        d = core.wij * -loss.derivative(core.z)
        if per_point:
            c[:] = np.bincount(core.j, weights=d, minlength=m) - np.bincount(core.i, weights=d, minlength=m)
        return float(d.sum()), c
    swept, total = list(loss.pieces), 0.0
    narrow = [p for p in swept if p.d2 != 0.0 and p.lower > -np.inf]
    if narrow and suffix_plan(pairs).n_anchors:
        order, start = pairs._suffixes()
        w, wa = side_weights(pairs)
        anchors = np.flatnonzero((start < m) & (wa != 0.0)).astype(INT)
        by_score = np.argsort(f, kind="stable").astype(INT)
        vals = f[by_score]
        pos = np.empty(m, INT)
        pos[order] = np.arange(m)
        start = np.ascontiguousarray(start, dtype=INT)
        for p in narrow:
            lo, hi = np.empty(len(anchors), INT), np.empty(len(anchors), INT)
            n_listed = _compiled.score_ranges(vals, f, anchors, p.lower, p.upper, lo, hi)
            if n_listed > max(_ONE_BY_ONE_PER_POINT * m, _ONE_BY_ONE_PAIRS):
                continue
            total += _compiled.slopes_one_by_one(by_score, pos, start, f, w, wa, anchors, lo, hi, p.d1, p.d2, c)
            swept.remove(p)
    if not swept:
        return total, c
    slope = tuple(Piece(p.lower, p.upper, p.d1, 2.0 * p.d2, 0.0) for p in swept)  # ℓ = the slope: L = Σ slopes
    core = PairCore(pairs, f, cuts_of(swept))
    if core.n_anchors == 0:
        return total, c
    total += float(core.sweep(slope, _compiled.LOSS, 3, 0)[0])
    if per_point:
        c += _loss_and_coef(core, loss, pieces=swept)[1]
    return total, c


def pair_line_derivatives(pairs: PairSet, f: ArrayLike, v: ArrayLike, loss: str | PairLoss = "squared_hinge",
                          eps: float = 0.5) -> tuple[float, float, float]:
    """``L`` and its first two derivatives along a direction, ``φ(t) = L(f + t v)`` at ``t = 0``.

    What a line search needs, in one forward pass and without ``c`` or a Hessian state:

        φ(0)   = Σ w_ij ℓ(z_ij),
        φ'(0)  = Σ w_ij ℓ'(z_ij) (v_i - v_j)       (= cᵀv, ℓ' as in :func:`pair_loss`),
        φ''(0) = Σ w_ij ℓ''(z_ij) (v_i - v_j)²     (= vᵀQ(v); 0 for the hinge).

    Parameters
    ----------
    pairs : PairSet
        Any pair set.
    f : array-like of shape (n_points,)
        Finite scores.
    v : array-like of shape (n_points,)
        Finite direction.
    loss : str or PairLoss, default="squared_hinge"
        The pairwise loss (:data:`LOSSES`).
    eps : float, default=0.5
        ε of the smoothed hinge.

    Returns
    -------
    value, slope, curvature : float
        φ(0), φ'(0) (``cᵀv``, with ℓ' at a kink chosen as in :func:`pair_loss`) and the
        generalized φ''(0).

    See Also
    --------
    pair_loss_and_hessian : ``c`` and ``Q`` at ``f``.

    Notes
    -----
    Per anchor i and piece, with ``h_i = 1 - f_i``, ``W_k = Σ w_j f_j^k``, ``V_k = Σ w_j v_j^k``
    and ``U = Σ w_j f_j v_j`` over the partners in the piece,
    ``φ' -= w_i [(d1 + 2 d2 h_i)(v_i W_0 - V_1) + 2 d2 (v_i W_1 - U)]`` and
    ``φ'' += w_i 2 d2 (v_i² W_0 - 2 v_i V_1 + V_2)``: one forward sweep, ``O(m log m)`` for
    sorted storage.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.pairs.core import pair_line_derivatives
    >>> pair_line_derivatives(PairSet.bipartite([1, 0]), np.array([0.5, 0.0]), np.array([1.0, 0.0]))
    (0.25, -1.0, 2.0)
    """
    return _line_derivatives(pairs, f, v, PairLoss.make(loss, eps))


def _line_derivatives(pairs: PairSet, f: ArrayLike, v: ArrayLike, loss: PairLoss) -> tuple[float, float, float]:
    core = PairCore(pairs, f, cuts_of(loss.pieces))
    v = np.ascontiguousarray(check_finite_1d(v, "v"), dtype=float)
    if len(v) != core.m:
        raise ValueError(f"v has {len(v)} entries but the pair set has {core.m} points.")
    if core.explicit:
        z, dv = core.z, v[core.i] - v[core.j]
        return (float(np.dot(core.wij, loss.value(z))), float(np.dot(core.wij * loss.derivative(z), dv)),
                float(np.dot(core.wij * loss.second(z), dv * dv)))
    if core.n_anchors == 0:
        return 0.0, 0.0, 0.0
    acc = core.sweep(loss.pieces, _compiled.LINE, 6, 0, v=v)
    return float(acc[0]), float(acc[1]), float(acc[2])


# ============================================================================ Hessian
class PairHessian:
    """Generalized Hessian of ``L`` at fixed scores ``f``: ``Q(v) = Σ w_ij ℓ''(z_ij)(v_i - v_j)(e_i - e_j)``.

    Parameters
    ----------
    pairs : PairSet
        Any pair set.
    f : array-like of shape (n_points,)
        Finite scores at which the Hessian is taken.
    loss : {"squared_hinge", "smoothed_hinge"} or PairLoss, default="squared_hinge"
        A twice-differentiable pairwise loss.
    eps : float, default=0.5
        ε of the smoothed hinge.

    Attributes
    ----------
    n_active : int
        Number of pairs with ℓ'' > 0 (counted, never listed).
    loss : PairLoss
        The loss.
    n_points : int
        Length of ``f``.

    Raises
    ------
    ValueError
        For the hinge (ℓ'' = 0 almost everywhere; no Hessian).

    See Also
    --------
    pair_loss_and_hessian : builds it together with the loss.

    Notes
    -----
    Only the quadratic pieces contribute (ℓ'' = 2 d2: 2 for the squared hinge on z < 1,
    1/(2ε) for the smoothed hinge on 1 − 2ε ≤ z < 1). Per anchor i and partner j (the Hessian of
    RankRC [2]_, eq. 20, ``Q = P_matᵀ I^Q P_mat`` times ℓ''),

        Q_i = w_i Σ_π 2 d2 (v_i N_i - Σ_{j∈π(i)} w_j v_j),   N_i = Σ_{j∈π(i)} w_j,
        Q_j = w_j Σ_π 2 d2 (v_j N'_j - Σ_{i: j∈π(i)} w_i v_i), N'_j = Σ_{i: j∈π(i)} w_i.

    The state (ranks, thresholds, anchors by suffix start, ``N``, ``N'``) is built once per
    ``f``; each :meth:`matvec` costs ``O(m)`` for one shared suffix (bipartite) and
    ``O(m log m)`` for nested suffixes (survival, two Fenwick sweeps), with no sort.

    References
    ----------
    .. [1] Chapelle, O., & Keerthi, S. S. (2010). Efficient algorithms for ranking with SVMs.
       *Information Retrieval*, 13(3), 201–215.
    .. [2] Tayal, A., Coleman, T. F., & Li, Y. (2015). RankRC: Large-scale nonlinear rare class
       ranking. *IEEE Transactions on Knowledge and Data Engineering*, 27(12), 3347–3359.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.pairs.core import PairHessian
    >>> H = PairHessian(PairSet.bipartite([1, 0, 0]), np.zeros(3))
    >>> H.n_active, H.matvec(np.array([1.0, 0.0, 0.0])).tolist()
    (2, [4.0, -2.0, -2.0])
    """

    def __init__(self, pairs: PairSet, f: ArrayLike, loss: str | PairLoss = "squared_hinge", eps: float = 0.5, *,
                 _core: PairCore | None = None, _sums: tuple[np.ndarray, np.ndarray] | None = None):
        loss = PairLoss.make(loss, eps)
        self._check(loss)
        self.loss = loss
        self._quad = [p for p in loss.pieces if p.d2 != 0.0]
        # a shared core (pair_loss_and_hessian) has every piece boundary as a cut
        core = PairCore(pairs, f, cuts_of(loss.pieces)) if _core is None else _core
        self._core = core
        self.n_points = core.m
        self._n_active: int | None = None  # sorted storage: counted on first access (one sweep per quadratic piece)
        if core.explicit:
            self._h2 = core.wij * loss.second(core.z)
            self._n_active = int(np.count_nonzero(loss.second(core.z) > 0))
            return
        if _sums is None:
            _, _, _sums = _loss_and_coef(core, loss, hessian=True)
        if _sums is None:  # no anchor: no pair
            self._n_active = 0
            self._NA = self._NP = None
            return
        self._NA, self._NP = _sums

    @property
    def n_active(self) -> int:
        """Number of pairs with ℓ'' > 0 (counted, never listed; computed on first access)."""
        if self._n_active is None:
            total = 0.0
            for piece in self._quad:
                counts = np.zeros(self.n_points)
                self._core.sweep([piece], _compiled.COUNTS, 1, 0, out=counts)
                total += counts.sum()
            self._n_active = int(round(total))
        return self._n_active

    @staticmethod
    def _check(loss: PairLoss) -> None:
        if not loss.twice_differentiable:
            raise ValueError(
                f"The {loss.name!r} loss has no second derivative (ℓ'' = 0 almost everywhere); "
                "use 'squared_hinge' or 'smoothed_hinge' for Hessian products."
            )

    def matvec(self, v: ArrayLike) -> np.ndarray:
        """The product ``Q(v)``; linear, symmetric and positive semidefinite in ``v``.

        Parameters
        ----------
        v : array-like of shape (n_points,)
            Finite direction.

        Returns
        -------
        ndarray of shape (n_points,)
            ``Q(v)``.
        """
        core = self._core
        v = np.ascontiguousarray(check_finite_1d(v, "v"), dtype=float)
        if len(v) != core.m:
            raise ValueError(f"v has {len(v)} entries but the pair set has {core.m} points.")
        m = core.m
        if core.explicit:
            d = self._h2 * (v[core.i] - v[core.j])
            return np.bincount(core.i, weights=d, minlength=m) - np.bincount(core.j, weights=d, minlength=m)
        out = np.zeros(m)
        if self._NA is None:
            return out
        core.sweep(self._quad, _compiled.MATVEC, 1, 1, v=v, NA=self._NA, NP=self._NP, out=out)
        return out

    __call__ = matvec

    def matmat(self, V: ArrayLike) -> np.ndarray:
        """The products ``Q(V[:, k])`` for every column of a matrix, in one pair of sweeps.

        Equal to ``np.column_stack([self.matvec(v) for v in V.T])`` at the cost of about one
        :meth:`matvec` per column without its per-call overhead (the sweeps carry k-vectors):
        what forming ``Vᵀ Q V`` for a few hundred directions needs.

        Parameters
        ----------
        V : array-like of shape (n_points, k)
            Finite directions, one per column.

        Returns
        -------
        ndarray of shape (n_points, k)
            ``Q(V)``.

        Examples
        --------
        >>> import numpy as np
        >>> from aucopt import PairSet
        >>> from aucopt.pairs.core import PairHessian
        >>> H = PairHessian(PairSet.bipartite([1, 0, 0]), np.zeros(3))
        >>> H.matmat(np.eye(3)).tolist()
        [[4.0, -2.0, -2.0], [-2.0, 2.0, 0.0], [-2.0, 0.0, 2.0]]
        """
        core = self._core
        V = np.asarray(V, dtype=float)
        if V.ndim != 2 or V.shape[0] != core.m:
            raise ValueError(f"V must have shape ({core.m}, k); got {V.shape}.")
        out = np.zeros(V.shape)
        if core.explicit:
            if not np.isfinite(V).all():
                raise ValueError("V contains NaN or infinite values.")
            D = self._h2[:, None] * (V[core.i] - V[core.j])
            np.add.at(out, core.i, D)
            np.subtract.at(out, core.j, D)
            return out
        if self._NA is None or self._NP is None or V.shape[1] == 0:
            return out
        plo, phi, coef = piece_arrays(core.cuts, self._quad)
        w_pos, wa_pos = core.plan.dense_weights()
        NA, NP = self._NA, self._NP
        if core.merge:  # its ranks and thresholds, and the Hessian's sums in the layout of this kernel
            core.ranks()
            NA, NP = core.blocked_layout(NA, NP)
        part = np.empty((core.m, min(_MATMAT_COLUMNS, V.shape[1])))
        for a in range(0, V.shape[1], _MATMAT_COLUMNS):  # k-vector trees that stay in cache
            block = np.ascontiguousarray(V[:, a:a + _MATMAT_COLUMNS])
            if not np.isfinite(block).all():
                raise ValueError("V contains NaN or infinite values.")
            chunk = part[:, :block.shape[1]] if block.shape[1] < part.shape[1] else part
            chunk = np.ascontiguousarray(chunk)
            chunk[:] = 0.0
            _compiled.matmat(core.order, core.aptr, core.apos, core.s0, core.rank, core.yA, core.n_uniq, plo, phi,
                             coef, w_pos, wa_pos, NA, NP, block, chunk)
            out[:, a:a + _MATMAT_COLUMNS] = chunk
        return out


# ============================================================================ many evaluations
class PairEvaluator:
    """The loss of one pair set at many score vectors, sharing what does not depend on the scores.

    A solver evaluates the same pairs at a new ``f`` every iteration. The time order, the anchors
    grouped by suffix start and the weights in that order are built once per pair set (sorted
    storage) and kept on it, where the one-off functions find them too; each call then sorts only
    the new scores. Results equal those of :func:`pair_loss_and_hessian` and
    :func:`pair_line_derivatives` exactly.

    Parameters
    ----------
    pairs : PairSet
        Any pair set.
    loss : str or PairLoss, default="squared_hinge"
        The pairwise loss (:data:`LOSSES`).
    eps : float, default=0.5
        ε of the smoothed hinge.

    Attributes
    ----------
    pairs : PairSet
        The pair set.
    loss : PairLoss
        The loss.

    See Also
    --------
    pair_loss_and_hessian, pair_line_derivatives : the one-off evaluations.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.pairs.core import PairEvaluator
    >>> evaluate = PairEvaluator(PairSet.bipartite([1, 0]))
    >>> L, c, H = evaluate.loss_and_hessian(np.array([0.5, 0.0]))
    >>> L, c.tolist(), evaluate.line_derivatives(np.array([0.5, 0.0]), np.array([1.0, 0.0]))
    (0.25, [-1.0, 1.0], (0.25, -1.0, 2.0))
    """

    def __init__(self, pairs: PairSet, loss: str | PairLoss = "squared_hinge", eps: float = 0.5):
        if not isinstance(pairs, PairSet):
            raise TypeError(f"pairs must be a PairSet, got {type(pairs).__name__}.")
        self.pairs = pairs
        self.loss = PairLoss.make(loss, eps)
        if pairs.storage == "sorted":
            suffix_plan(pairs)  # built now, kept on the pair set for every call

    def loss_and_hessian(self, f: ArrayLike) -> tuple[float, np.ndarray, PairHessian]:
        """``(L, c, hessian)`` at ``f``, as :func:`pair_loss_and_hessian`.

        Parameters
        ----------
        f : array-like of shape (n_points,)
            Finite scores.

        Returns
        -------
        L : float
        c : ndarray of shape (n_points,)
        hessian : PairHessian
        """
        return _loss_and_hessian(self.pairs, f, self.loss)

    def line_derivatives(self, f: ArrayLike, v: ArrayLike) -> tuple[float, float, float]:
        """``L`` and its first two derivatives along ``v`` at ``f``, as :func:`pair_line_derivatives`.

        Parameters
        ----------
        f : array-like of shape (n_points,)
            Finite scores.
        v : array-like of shape (n_points,)
            Finite direction.

        Returns
        -------
        value, slope, curvature : float
        """
        return _line_derivatives(self.pairs, f, v, self.loss)
