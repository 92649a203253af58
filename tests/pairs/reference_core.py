"""Test oracle: the previous pure-numpy implementation of the sorted-pair core.

This is the numpy implementation that :mod:`aucopt.pairs.core` used before its compiled
kernels (a wavelet matrix walked level by level for nested suffixes, prefix sums for one shared
suffix, vectorized bisection for the rank thresholds). It is kept here, outside the package,
only as an independent oracle for the compiled core: same API (``pair_loss``,
``pair_loss_and_hessian``, ``PairHessian``, ``pair_counts``), a different algorithm.

Original module documentation follows.

One pair core for every scalable path: pairwise loss, gradient coefficients, Hessian products.

For scores ``f`` (length m) and a :class:`~aucopt.pairs.PairSet`, every pair (i, j) has the
argument ``z_ij = f_i - f_j`` (computed in float64, exactly as a brute-force loop would) and

    L(f) = Σ_(i,j) w_ij ℓ(z_ij),                                         w_ij = w_i w_j,
    c    = ∂L/∂f,      c_k = Σ_(k,j) w_kj ℓ'(z_kj) - Σ_(i,k) w_ik ℓ'(z_ik),
    Q(v) = Σ_(i,j) w_ij ℓ''(z_ij) (v_i - v_j)(e_i - e_j)   (generalized Hessian of L).

With ``f = Kβ`` the gradient is ``Kᵀc`` and the Hessian product is ``Kᵀ Q(K s)``: the gradient
and Hessian of RankRC, Tayal et al. (2015), eqs. 18–20 (``g = Aᵀ ℓ'``, ``H = Aᵀ I^Q A / (2ε)``
with ``A = P_mat K``, so ``Q(v) = P_matᵀ diag(ℓ'') P_mat v``; the Hessian's factor is written
here as ℓ'' = 1/(2ε) on the quadratic piece) and, for the hinge, the subgradient of the LP
Ranker objective of Ataman (2007), eq. 4.4 (``-c`` counts the violated pairs).

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
al. 2015). The boundary ranks are found by a binary search that evaluates the float64 predicate
``f_i - f_j < b`` itself, so ties and scores exactly on a breakpoint are classified exactly as
in the elementwise definition. Everything then reduces to two linear maps per breakpoint ``b``:

    C_b x  (per anchor)  = Σ_{j in suffix(i), z_ij ≥ b} x_j,
    C_bᵀ y (per point)   = Σ_{anchors i with j in suffix(i), z_ij ≥ b} y_i,

and a piece ``[b_lo, b_hi)`` is ``C_lo - C_hi`` (``C_-inf`` = the whole suffix). With sums of
``w, w f, w f²`` the loss and ``c`` follow in closed form per anchor / partner.

* **Sorted, one shared suffix** (bipartite pairs): the partners are sorted by score once;
  ``C_b`` is a prefix-sum gather and ``C_bᵀ`` a difference array over ranks — ``O(m)`` per
  product after one ``O(m log m)`` sort.
* **Sorted, nested suffixes** (Harrell's comparable set): the 2-D dominance sums "position in
  the suffix AND score rank below a threshold" use a wavelet matrix over score ranks, walked
  level by level with numpy (stable partitions, no per-sample loop): ``O(m log m)`` per
  product, ``O(m)`` memory when streamed.
* **Explicit** storage: vectorized enumeration over the pair arrays, ``O(n_pairs)``.

Public API: :class:`PairLoss`, :func:`pair_loss` (``(L, c)``), :func:`pair_loss_and_hessian`,
:class:`PairHessian` (state at fixed ``f``; ``matvec(v) = Q(v)``, ``n_active``) and
:func:`pair_counts` (number of pairs with ``z < threshold``, per point).

References: Chapelle, O., & Keerthi, S. S. (2010). Efficient algorithms for ranking with SVMs.
*Information Retrieval*, 13(3), 201–215. Tayal, A., Coleman, T. F., & Li, Y. (2015). RankRC:
Large-scale nonlinear rare class ranking. *IEEE Transactions on Knowledge and Data Engineering*,
27(12), 3347–3359. Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear
programming for problems with binary output*. PhD thesis, University of Iowa.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from aucopt._validation import check_finite_1d
from aucopt.pairs import PairSet

__all__ = [
    "LOSSES",
    "PairCounts",
    "PairHessian",
    "PairLoss",
    "pair_counts",
    "pair_loss",
    "pair_loss_and_hessian",
]

# the loss pieces are the specification both cores share; this module re-implements the sweeps
from aucopt.pairs._setup import Piece as _Piece
from aucopt.pairs.core import LOSSES, PairLoss

_INT = np.int64


# ============================================================================ rank thresholds
def _count_not_below(u: np.ndarray, x: np.ndarray, b: float) -> np.ndarray:
    """``k[q] = #{p : fl(x[q] - u[p]) >= b}`` for ascending ``u``.

    ``fl(x - u)`` is non-increasing in ``u`` (rounding is monotone), so the predicate holds on
    a prefix of ``u`` and ``u[k[q]:]`` are exactly the values with ``x[q] - u < b`` in float64.
    A ``searchsorted`` around ``x - b`` brackets the boundary to a few ulps; a vectorized
    bisection evaluating the predicate itself settles it (usually zero or one step).
    """
    x = np.asarray(x, dtype=float)
    c = x - b
    margin = 4.0 * (np.spacing(np.abs(c)) + np.spacing(abs(b)))
    lo = np.searchsorted(u, c - margin, side="right").astype(_INT)
    hi = np.searchsorted(u, c + margin, side="right").astype(_INT)
    active = np.flatnonzero(lo < hi)
    while active.size:
        low, h = lo[active], hi[active]
        mid = (low + h) // 2
        ok = (x[active] - u[mid]) >= b
        lo[active] = np.where(ok, mid + 1, low)
        hi[active] = np.where(ok, h, mid)
        active = active[lo[active] < hi[active]]
    return lo


# ============================================================================ cut operators
def _cumsum0(x: np.ndarray) -> np.ndarray:
    """Prefix sums with a leading 0 along the last axis."""
    out = np.zeros((*x.shape[:-1], x.shape[-1] + 1))
    np.cumsum(x, axis=-1, out=out[..., 1:])
    return out


class _SortedCut:
    """Cut operators when every anchor has the same suffix (bipartite pairs).

    The ``n`` partners are sorted by score rank once. ``C_b`` row i is the prefix of the
    sorted partners with rank below ``y_b(i)``: a gather of prefix sums. ``C_bᵀ`` is a
    difference array over sorted positions (``bincount`` + ``cumsum``). ``O(m)`` per product.
    """

    def __init__(self, m, partners, rank, y):
        self.m = m
        by_rank = np.argsort(rank[partners], kind="stable")
        self.sorted_points = partners[by_rank]
        sorted_rank = rank[self.sorted_points]
        n = len(partners)
        # cut 0 is the whole suffix; cut c >= 1: partners with rank < y[c - 1]
        self.idx = [np.full(y.shape[1], n, dtype=_INT)] + [
            np.searchsorted(sorted_rank, yc, side="left").astype(_INT) for yc in y
        ]

    def apply(self, X=None, Y=None):
        """``F[c] = C_c X`` (shape ``(n_cuts, k, n_anchors)``), ``G = Σ_c C_cᵀ Y[c]`` (``(k2, m)``)."""
        F = G = None
        n = len(self.sorted_points)
        if X is not None:
            P = _cumsum0(X[:, self.sorted_points])
            F = np.stack([P[:, idx] for idx in self.idx])
        if Y is not None:
            k2 = Y.shape[1]
            G = np.zeros((k2, self.m))
            for col in range(k2):
                D = np.zeros(n + 1)
                for c, idx in enumerate(self.idx):
                    D += np.bincount(idx, weights=Y[c, col], minlength=n + 1)
                # partner at sorted position r is in row i iff r < idx_i
                G[col, self.sorted_points] = D[::-1].cumsum()[::-1][1:]
        return F, G


class _WaveletCut:
    """Cut operators for general ordered suffixes (survival pairs): a wavelet matrix.

    Sequence: position p of ``order`` carries the score rank of point ``order[p]``. Query
    (i, c): positions ``[start_i, m)`` with rank ``< y_c(i)``. Walking the rank bits from the
    top, each level stably partitions the sequence into 0-bit / 1-bit halves and moves every
    query range into the half of its threshold's bit; when that bit is 1 the 0-half part of
    the range (all ranks below the threshold on the bits seen so far) is a contiguous block of
    the next level's arrangement: a prefix-sum difference for ``C``, a difference array for
    ``Cᵀ``. ``O((m + q) log m)`` per product. With ``store=True`` the per-level arrangements
    and block bounds are kept (int32/int64, ``O((m + q) log m)`` memory) so products skip the
    partitions; otherwise each product re-walks the levels in ``O(m + q)`` memory.
    """

    def __init__(self, m, order, start_anchor, rank, y, n_ranks, store):
        self.m = m
        self.order = order
        self.start = start_anchor  # suffix start of each anchor
        self.n_anchors = len(start_anchor)
        self.n_cuts = 1 + len(y)
        self.values = rank[order]
        self.a = np.tile(start_anchor, len(y))
        self.y = np.concatenate(list(y)) if len(y) else np.zeros(0, _INT)
        self.n_bits = max(1, int(n_ranks).bit_length())  # y <= n_ranks < 2**n_bits
        self.levels = list(self._walk()) if store else None

    def _walk(self):
        """Yield ``(positions, queries, lo, hi)`` per level: query q gains the block
        ``positions[lo:hi]`` of original sequence positions."""
        m, q = self.m, len(self.y)
        if q == 0 or m == 0:
            return
        small = np.int32 if max(m, q) < 2**31 - 1 else _INT
        arr = self.values
        pos = np.arange(m, dtype=small)
        a = self.a.astype(_INT)
        b = np.full(q, m, dtype=_INT)
        zeros_before = np.zeros(m + 1, dtype=_INT)
        for level in reversed(range(self.n_bits)):
            one = ((arr >> level) & 1).astype(bool)
            zero = ~one
            np.cumsum(zero, out=zeros_before[1:])
            n_zero = zeros_before[m]
            za, zb = zeros_before[a], zeros_before[b]
            ybit = ((self.y >> level) & 1).astype(bool)
            zero_idx = np.flatnonzero(zero)
            take = np.flatnonzero(ybit & (zb > za))
            if take.size:
                yield pos[zero_idx], take.astype(small), za[take].astype(small), zb[take].astype(small)
            if level == 0:
                break
            one_idx = np.flatnonzero(one)
            arr = np.concatenate((arr[zero_idx], arr[one_idx]))
            pos = np.concatenate((pos[zero_idx], pos[one_idx]))
            a = np.where(ybit, n_zero + a - za, za)
            b = np.where(ybit, n_zero + b - zb, zb)

    def apply(self, X=None, Y=None):
        """Same contract as :meth:`_SortedCut.apply`."""
        nA, m = self.n_anchors, self.m
        F = G = None
        if X is not None:
            Xs = X[:, self.order]
            k = Xs.shape[0]
            F = np.zeros((self.n_cuts, k, nA))
            F[0] = Xs[:, ::-1].cumsum(axis=1)[:, ::-1][:, self.start]
            cut = np.zeros((k, len(self.y)))
        if Y is not None:
            k2 = Y.shape[1]
            Gs = np.zeros((k2, m))
            # whole suffix: position p is in row i iff start_i <= p
            for col in range(k2):
                Gs[col] = np.bincount(self.start, weights=Y[0, col], minlength=m + 1).cumsum()[:m]
            Ycut = Y[1:].transpose(1, 0, 2).reshape(k2, -1)  # (k2, (n_cuts - 1) * nA)
        levels = self.levels if self.levels is not None else self._walk()
        for pos, take, lo, hi in levels:
            if X is not None:
                for col in range(k):
                    P = _cumsum0(Xs[col, pos])
                    cut[col, take] += P[hi] - P[lo]
            if Y is not None:
                n = len(pos) + 1
                for col in range(k2):
                    w = Ycut[col, take]
                    D = np.bincount(lo, weights=w, minlength=n)
                    D -= np.bincount(hi, weights=w, minlength=n)
                    Gs[col, pos] += D.cumsum()[:-1]
        if X is not None:
            F[1:] = cut.reshape(k, self.n_cuts - 1, nA).transpose(1, 0, 2)
        if Y is not None:
            G = np.empty_like(Gs)
            G[:, self.order] = Gs
        return F, G


# ============================================================================ shared set-up
class _Core:
    """Validated inputs plus the cut operators of one (pairs, f, loss)."""

    def __init__(self, pairs: PairSet, f, loss: PairLoss, *, store=False, cuts=None):
        if not isinstance(pairs, PairSet):
            raise TypeError(f"pairs must be a PairSet, got {type(pairs).__name__}.")
        m = pairs.n_points
        f = check_finite_1d(f, "f")
        if len(f) != m:
            raise ValueError(f"f has {len(f)} entries but the pair set has {m} points.")
        self.m, self.f, self.loss = m, f, loss
        self.w = np.ones(m) if pairs.point_weights is None else np.asarray(pairs.point_weights, float)
        # sums use scores centred by a constant (exact invariance of L, c, Q; smaller roundoff);
        # pair membership always uses the raw float64 z = f_i - f_j.
        self.g = f - (0.5 * (f.max() + f.min()) if m else 0.0)
        self.explicit = pairs.storage == "explicit"
        if self.explicit:
            i, j, w = pairs._explicit
            self.i, self.j = i.astype(_INT), j.astype(_INT)
            self.wij = np.asarray(w, float)
            self.z = f[self.i] - f[self.j]
            return
        if cuts is None:
            cuts = sorted({p.upper for p in loss.pieces} | {p.lower for p in loss.pieces} - {-np.inf})
        self.cuts = [-np.inf, *cuts]  # index 0: whole suffix
        start = np.asarray(pairs.start, dtype=_INT)
        order = np.asarray(pairs.order, dtype=_INT)
        self.anchors = np.flatnonzero(start < m)
        s = start[self.anchors]
        uniq, rank = np.unique(f, return_inverse=True)
        rank = rank.astype(_INT).ravel()
        # y[c][a] = number of score ranks r with f_anchor - uniq[r] >= cut c (rank < y <=> z >= cut)
        y = np.array([_count_not_below(uniq, uniq, b)[rank[self.anchors]] for b in self.cuts[1:]],
                     dtype=_INT).reshape(len(self.cuts) - 1, len(self.anchors))
        # rank thresholds per cut (cut 0: every rank); a piece is empty for anchor i when its
        # rank range is; such rows are masked so empty pieces give exact zeros, not roundoff
        self._y = [np.full(len(self.anchors), len(uniq), dtype=_INT), *list(y)]
        if len(self.anchors) == 0 or np.all(s == s[0]):
            s0 = s[0] if len(s) else m
            self.op = _SortedCut(m, order[s0:], rank, y)
            self.method = "sorted"
        else:
            self.op = _WaveletCut(m, order, s, rank, y, len(uniq), store)
            self.method = "wavelet"

    def piece_cuts(self, piece: _Piece) -> tuple[int, int]:
        """Indices (into ``cuts``) with ``M_piece = C[lo] - C[hi]``."""
        return self.cuts.index(piece.lower), self.cuts.index(piece.upper)

    def piece_sums(self, F: np.ndarray, piece: _Piece) -> np.ndarray:
        """``M_piece X`` per anchor from the forward cut sums ``F`` (shape ``(k, n_anchors)``)."""
        lo, hi = self.piece_cuts(piece)
        return np.where(self._y[lo] > self._y[hi], F[lo] - F[hi], 0.0)

    def fold(self, rows_per_piece: dict) -> np.ndarray:
        """Adjoint input ``Y`` with ``Σ_c C_cᵀ Y[c] = Σ_π M_πᵀ rows_π`` (``M_π = C_lo - C_hi``)."""
        first = next(iter(rows_per_piece.values()))
        Y = np.zeros((len(self.cuts), *first.shape))
        for piece, rows in rows_per_piece.items():
            lo, hi = self.piece_cuts(piece)
            rows = np.where(self._y[lo] > self._y[hi], rows, 0.0)
            Y[lo] += rows
            Y[hi] -= rows
        return Y


# ============================================================================ loss and c
def pair_loss(pairs: PairSet, f, loss="squared_hinge", eps: float = 0.5) -> tuple[float, np.ndarray]:
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

    and per partner j with ``A_k = Σ_i w_i f_i^k`` over the anchors whose pair with j is in π:

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
    return _loss_and_coef(_Core(pairs, f, loss), loss)


def pair_loss_and_hessian(pairs: PairSet, f, loss="squared_hinge", eps: float = 0.5):
    """Loss, coefficients and Hessian at ``f`` from one shared set-up.

    One sort (or one wavelet build) serves all three: what a Newton step or an exact
    line-search step needs, at the cost of about one :func:`pair_loss` call.

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
    loss = PairLoss.make(loss, eps)
    core = _Core(pairs, f, loss, store=True)
    shared = {}
    L, c = _loss_and_coef(core, loss, hessian_sums=shared)
    return L, c, PairHessian(pairs, f, loss, _core=core, _sums=shared.get("sums"))


def _loss_and_coef(core: _Core, loss: PairLoss, hessian_sums: dict | None = None) -> tuple[float, np.ndarray]:
    """L and c from one pass of the cut operators; with ``hessian_sums`` (a dict) the same pass
    also computes the Hessian's anchor/partner counts (stored under ``"sums"``)."""
    m, w, g = core.m, core.w, core.g
    if core.explicit:
        z = core.z
        L = float(np.dot(core.wij, loss.value(z)))
        d = core.wij * loss.derivative(z)
        c = np.bincount(core.i, weights=d, minlength=m) - np.bincount(core.j, weights=d, minlength=m)
        return L, c
    A = core.anchors
    c = np.zeros(m)
    if len(A) == 0:
        return 0.0, c
    wA, gA = w[A], g[A]
    # partner-side rows do not depend on the anchor-side sums: one pass computes both
    partner_rows = {
        p: np.stack([(p.d1 + 2.0 * p.d2) * wA, -2.0 * p.d2 * wA * gA, 2.0 * p.d2 * wA])
        for p in loss.pieces
    }
    X, Y = np.stack([w, w * g, w * g * g]), core.fold(partner_rows)
    quad = [p for p in loss.pieces if p.d2 != 0.0]
    if hessian_sums is not None and quad:  # piggy-back the Hessian's counts on this pass
        X = np.vstack([X, np.ones((1, m))])
        Y = np.concatenate([Y, core.fold({p: (2.0 * p.d2 * wA)[None] for p in quad})], axis=1)
    F, G = core.op.apply(X=X, Y=Y)
    if X.shape[0] == 4:
        hessian_sums["sums"] = (F[:, [0, 3]], G[3:4])
        F, G = F[:, :3], G[:3]
    h = 1.0 - gA
    L = 0.0
    cA = np.zeros(len(A))
    for piece in loss.pieces:
        W0, W1, W2 = core.piece_sums(F, piece)
        d0, d1, d2 = piece.d0, piece.d1, piece.d2
        L += float(np.dot(wA, d0 * W0 + d1 * (h * W0 + W1) + d2 * (h * h * W0 + 2.0 * h * W1 + W2)))
        cA -= wA * (d1 * W0 + 2.0 * d2 * (h * W0 + W1))
    c += w * (G[0] + G[1] + g * G[2])
    c[A] += cA
    return L, c


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
    store_levels : bool, default=True
        For nested suffixes (survival pairs), keep the wavelet levels: ``O(m log m)`` memory,
        about ``(2 m + 6 q)·log2 m`` bytes with q = anchors × quadratic-piece breakpoints (25 MB
        at m = 200,000, smoothed hinge), for products about 2× faster; False keeps the state at
        ``O(m)`` memory.

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

    The state (ranks, thresholds, sorted partners / wavelet levels, ``N``, ``N'``) is built
    once per ``f``; each :meth:`matvec` costs ``O(m)`` for one shared suffix (bipartite) and
    ``O(m log m)`` for nested suffixes (survival), with no sort.

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

    def __init__(self, pairs: PairSet, f, loss="squared_hinge", eps: float = 0.5, *,
                 store_levels: bool = True, _core=None, _sums=None):
        loss = PairLoss.make(loss, eps)
        if not loss.twice_differentiable:
            raise ValueError(
                f"The {loss.name!r} loss has no second derivative (ℓ'' = 0 almost everywhere); "
                "use 'squared_hinge' or 'smoothed_hinge' for Hessian products."
            )
        self.loss = loss
        self._quad = [p for p in loss.pieces if p.d2 != 0.0]
        cuts = sorted({p.upper for p in self._quad} | {p.lower for p in self._quad} - {-np.inf})
        # a shared core (pair_loss_and_hessian) has every piece boundary as a cut: a superset
        core = _Core(pairs, f, loss, store=store_levels, cuts=cuts) if _core is None else _core
        self._core = core
        self.n_points = core.m
        w = core.w
        if core.explicit:
            self._h2 = core.wij * loss.second(core.z)
            self.n_active = int(np.count_nonzero(loss.second(core.z) > 0))
            return
        A = core.anchors
        if len(A) == 0:
            self.n_active = 0
            self._NA = self._NP = None
            return
        if _sums is None:
            F, G = core.op.apply(
                X=np.stack([w, np.ones(core.m)]),
                Y=core.fold({p: (2.0 * p.d2 * w[A])[None] for p in self._quad}),
            )
        else:  # computed alongside the loss by pair_loss_and_hessian
            F, G = _sums
        self._NP = G[0]
        self._NA = np.zeros(len(A))
        count = 0.0
        for p in self._quad:
            N, n = core.piece_sums(F, p)
            self._NA += 2.0 * p.d2 * N
            count += n.sum()
        self.n_active = int(round(count))

    def matvec(self, v) -> np.ndarray:
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
        v = check_finite_1d(v, "v")
        if len(v) != core.m:
            raise ValueError(f"v has {len(v)} entries but the pair set has {core.m} points.")
        m = core.m
        if core.explicit:
            d = self._h2 * (v[core.i] - v[core.j])
            return np.bincount(core.i, weights=d, minlength=m) - np.bincount(core.j, weights=d, minlength=m)
        out = np.zeros(m)
        if self._NA is None:
            return out
        A, w = core.anchors, core.w
        wv = w * v
        F, G = core.op.apply(
            X=wv[None],
            Y=core.fold({p: (2.0 * p.d2 * wv[A])[None] for p in self._quad}),
        )
        VA = np.zeros(len(A))
        for p in self._quad:
            VA += 2.0 * p.d2 * core.piece_sums(F, p)[0]
        out += w * (v * self._NP - G[0])
        out[A] += w[A] * (v[A] * self._NA - VA)
        return out

    __call__ = matvec


# ============================================================================ counts
class PairCounts(NamedTuple):
    """Counts of the pairs with ``z_ij = f_i - f_j < threshold``, returned by :func:`pair_counts`.

    Attributes
    ----------
    total : int
        Number of such pairs.
    first : ndarray of int64, shape (n_points,)
        ``first[i] = #{j : (i, j) counted}``.
    second : ndarray of int64, shape (n_points,)
        ``second[j] = #{i : (i, j) counted}``.

    See Also
    --------
    pair_counts : returns these counts.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.pairs.core import pair_counts
    >>> pair_counts(PairSet.bipartite([1, 0]), np.array([0.5, 0.0])).total
    1
    """

    total: int
    first: np.ndarray
    second: np.ndarray


def pair_counts(pairs: PairSet, f, threshold: float = 1.0) -> PairCounts:
    """Count, never list, the pairs with ``f_i - f_j < threshold`` (unweighted).

    Parameters
    ----------
    pairs : PairSet
        Any pair set.
    f : array-like of shape (n_points,)
        Finite scores.
    threshold : float, default=1.0
        The margin.

    Returns
    -------
    PairCounts
        ``(total, first, second)``.

    See Also
    --------
    pair_loss : the weighted hinge coefficients ``-c`` are ``first - second`` weighted by w_ij.

    Notes
    -----
    With ``threshold = 1`` these are the margin violators whose counts form the LP Ranker
    subgradient [3]_ (eq. 4.4); for pair weights use ``-pair_loss(..., "hinge")[1]``, which is
    ``first - second`` weighted by ``w_ij``. ``O(m log m)`` time, ``O(m)`` memory for sorted
    storage.

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
    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.pairs.core import pair_counts
    >>> counts = pair_counts(PairSet.bipartite([1, 0, 1, 0]), np.array([2.0, 0.5, 0.25, 0.0]))
    >>> counts.total, counts.first.tolist(), counts.second.tolist()
    (2, [0, 0, 2, 0], [0, 1, 0, 1])
    """
    threshold = float(threshold)
    if not np.isfinite(threshold):
        raise ValueError(f"threshold must be finite, got {threshold!r}.")
    core = _Core(pairs, f, PairLoss("hinge"), cuts=[threshold])
    m = core.m
    if core.explicit:
        hit = core.z < threshold
        first = np.bincount(core.i[hit], minlength=m)
        second = np.bincount(core.j[hit], minlength=m)
        return PairCounts(int(hit.sum()), first.astype(_INT), second.astype(_INT))
    first = np.zeros(m, dtype=_INT)
    A = core.anchors
    if len(A) == 0:
        return PairCounts(0, first, np.zeros(m, dtype=_INT))
    below = _Piece(-np.inf, threshold, 0.0, 1.0, 0.0)
    F, G = core.op.apply(X=np.ones((1, m)), Y=core.fold({below: np.ones((1, len(A)))}))
    first[A] = np.rint(core.piece_sums(F, below)[0]).astype(_INT)
    second = np.rint(G[0]).astype(_INT)
    return PairCounts(int(first.sum()), first, second)
