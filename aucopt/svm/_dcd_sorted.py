"""Dual coordinate descent over sorted pair sets, without a pair list.

The solver of :mod:`aucopt.svm._dcd` for a :class:`~aucopt.PairSet` in sorted storage
(bipartite, Harrell's survival pairs and their sorted variants, multipartite; with point and
anchor weights). Anchor i's partners are ``order[start_i:]`` and its pairs are numbered as by
:meth:`~aucopt.PairSet.to_arrays`: p = first_i + (pos − start_i) for the positions
pos ∈ [start_i, m), with first the exclusive cumulative sum of the partner counts over the
anchors in point order. Pair p is decoded from its number: its anchor by p // count when every
anchor has the same count (bipartite pairs: (pos[p // n₋], neg[p % n₋])), else by a binary
search over the anchors' first numbers; its partner is ``order[start_i + p − first_i]``; its
weight (w_i w_j) a_i from the point weights w and anchor weights a; its curvature Q_pp from K
(or X) when it is visited.

The pairs are visited as by the list solver (the same active index, shuffled by the same
generator, the same arithmetic pair by pair), so α, the epochs and the objective equal the list
solver's bit for bit; what is gone is the list: i, j, w and Q_pp (24 bytes a pair) and the
``numpy.bincount`` temporaries of the expansion (16). Memory: α (8 bytes a pair) and the active
index (int32, 4 bytes; int64 above 2³¹ pairs), and O(n) vectors.
"""

from __future__ import annotations

import time

import numpy as np

from .._numba import njit
from .._validation import check_time_limit
from ..pairs import PairSet
from ._dcd import _bound_and_gradient, _projected_gradient, run_epochs, start_fraction
from ._dcd_polish import apply_alpha, restricted_optimum
from ._permute import EpochOrder
from ._prefetch import DISTANCE, prefetch

#: |projected gradient| below which a coordinate is not moved (liblinear's 1e-12, as the list solver)
_PG_ZERO = 1e-12
#: pair numbers per coarse mark of the anchor search (2¹⁰): the anchor of pair b·1024, for each b
_COARSE_SHIFT = 10


class SortedPairs:
    """The per-point arrays of a sorted pair set that the compiled passes read.

    ``anchors`` (int32, point order), their ``first`` pair numbers and ``start`` positions
    (int64); ``order`` (int32); point weights ``pw`` and anchor weights ``aw`` (ones when
    absent); ``count``: the common partner count of every anchor, or 0 when they differ, and its
    inverse; ``coarse``: the anchor of every 1,024th pair number (for the search when they differ).
    """

    def __init__(self, pairs: PairSet) -> None:
        if pairs.order is None or pairs.start is None:
            raise ValueError("SortedPairs needs a PairSet in sorted storage.")
        m = pairs.n_points
        start = np.asarray(pairs.start, dtype=np.int64)
        counts = m - start
        anchors = np.flatnonzero(counts > 0)
        c = counts[anchors]
        self.n_points, self.n_pairs = m, int(c.sum())
        ones = np.ones(m)
        first = np.cumsum(c) - c
        count = int(c[0]) if len(c) and np.all(c == c[0]) else 0
        marks = np.arange(0, self.n_pairs + (1 << _COARSE_SHIFT), 1 << _COARSE_SHIFT, dtype=np.int64)
        coarse = np.maximum(np.searchsorted(first, np.minimum(marks, max(self.n_pairs - 1, 0)), side="right") - 1, 0)
        self.arrays = (anchors.astype(np.int32), first, start[anchors], np.asarray(pairs.order, dtype=np.int32),
                       ones if pairs.point_weights is None else np.asarray(pairs.point_weights, dtype=np.float64),
                       ones if pairs.anchor_weights is None else np.asarray(pairs.anchor_weights, dtype=np.float64),
                       np.int64(count), 1.0 / count if count else 0.0, coarse.astype(np.int64))

    def decode(self, pnums: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(i, j, (w_i w_j) a_i) of the pair numbers ``pnums``, as the compiled epoch works them out."""
        anchors, first, start, order, pw, aw, count = self.arrays[:7]
        pnums = np.asarray(pnums, dtype=np.int64)
        k = pnums // count if count else np.searchsorted(first, pnums, side="right") - 1
        a = anchors[k].astype(np.int64)
        b = order[start[k] + pnums - first[k]].astype(np.int64)
        return a, b, pw[a] * pw[b] * aw[a]


# ----------------------------------------------------------------------------- compiled parts
@njit(cache=True, nogil=True)
def _epoch(data, diag, linear, sp, C, power, alpha, state, index, active,  # noqa: PLR0915 - one fused pass:
           pg_max_old, pg_min_old):  # a helper call, even inlined, made it 3x slower
    """One pass over ``index[:active]`` in its order; returns (max PG, min PG, active size, the
    number of coordinates that moved).

    The list solver's pass with each pair decoded from its number (as :meth:`SortedPairs.decode`
    does; written out here: a helper call, even inlined, made the pass 3x slower): its anchor k
    by p // count (a multiplication by 1/count, corrected to the exact quotient) or a binary
    search between two coarse marks, its partner ``order[start_k + p − first_k]``, its weight
    (w_i w_j) a_i, and Q_pp from ``diag`` and K (or from X) when it moves. Shrunk coordinates
    are swapped to the end of the active part of ``index``.
    """
    anchors, first, start, order, pw, aw, count, inverse, coarse = sp
    n = state.shape[0]
    pg_max = -np.inf
    pg_min = np.inf
    s = moved = 0
    while s < active:
        if s + DISTANCE < active:
            prefetch(alpha, index[s + DISTANCE])
        p = np.int64(index[s])
        if count > 0:
            k = np.int64(p * inverse)
            if k * count > p:
                k -= 1
            elif (k + 1) * count <= p:
                k += 1
        else:  # the last anchor whose first pair number is at most p
            lo, hi = coarse[p >> _COARSE_SHIFT], coarse[(p >> _COARSE_SHIFT) + 1]
            while lo < hi:
                mid = (lo + hi + 1) >> 1
                if first[mid] <= p:
                    lo = mid
                else:
                    hi = mid - 1
            k = lo
        a = anchors[k]
        b = order[start[k] + p - first[k]]
        wp = pw[a] * pw[b] * aw[a]
        ap = alpha[p]
        ub, g = _bound_and_gradient(ap, wp, C, power, linear, state, data, a, b)
        shrink, pg = _projected_gradient(ap, ub, g, pg_max_old, pg_min_old)
        if shrink:  # at a bound and pushed further out
            active -= 1
            index[s] = index[active]
            index[active] = p
            continue
        pg_max = max(pg_max, pg)
        pg_min = min(pg_min, pg)
        s += 1
        if abs(pg) > _PG_ZERO:
            if linear:  # the list solver's Q_pp, summed in the same order
                q = 0.0
                for t in range(n):
                    q += (data[a, t] - data[b, t]) * (data[a, t] - data[b, t])
            else:
                q = diag[a] + diag[b] - 2.0 * data[a, b]
            if power == 2 and wp > 0.0:
                q += 1.0 / (C * wp)
            # q = 0: x_i = x_j under the 1-norm, the objective falls linearly in α_p (g = −1)
            new = min(max(ap - g / q, 0.0), ub) if q > 0.0 else (ub if g < 0.0 else 0.0)
            delta = new - ap
            if delta != 0.0:
                alpha[p] = new
                moved += 1
                for t in range(data.shape[1]):  # w += δ (x_i − x_j), or f += δ (K_i − K_j)
                    state[t] += delta * (data[a, t] - data[b, t])
    return pg_max, pg_min, active, moved


@njit(cache=True, nogil=True)
def _active_index(sp, n_pairs, index):
    """The numbers of the pairs of positive weight, ascending, into ``index``; returns their number."""
    anchors, first, start, order, pw, aw = sp[:6]
    k = 0
    for r in range(anchors.shape[0]):
        i = anchors[r]
        end = first[r + 1] if r + 1 < anchors.shape[0] else n_pairs
        for p in range(first[r], end):
            if pw[i] * pw[order[start[r] + p - first[r]]] * aw[i] > 0.0:
                index[k] = p
                k += 1
    return k


@njit(cache=True, nogil=True)
def _expansion(sp, alpha, n_points):
    """c = Aᵀα, summed in pair order (``numpy.bincount`` over the listed pairs, bit for bit)."""
    anchors, first, start, order = sp[0], sp[1], sp[2], sp[3]
    plus = np.zeros(n_points)
    minus = np.zeros(n_points)
    for r in range(anchors.shape[0]):
        i = anchors[r]
        for pos in range(start[r], n_points):
            a = alpha[first[r] + pos - start[r]]
            plus[i] += a
            minus[order[pos]] += a
    return plus - minus


@njit(cache=True, nogil=True)
def _clip_start(sp, alpha, C, power):
    """A starting point clipped in place: α_p ≥ 0, α_p ≤ C w_p (1-norm), 0 where w_p = 0."""
    anchors, first, start, order, pw, aw = sp[:6]
    m = order.shape[0]
    for r in range(anchors.shape[0]):
        i = anchors[r]
        for pos in range(start[r], m):
            p = first[r] + pos - start[r]
            wp = pw[i] * pw[order[pos]] * aw[i]
            a = max(alpha[p], 0.0)
            if power == 1:
                a = min(a, C * wp)
            alpha[p] = a if wp > 0.0 else 0.0


@njit(cache=True, nogil=True)
def _start_from_scores(sp, f, C, power, epsilon, alpha):
    """α_p = C w_p · :func:`~aucopt.svm._dcd.start_fraction` (f_i − f_j) in place, in pair order."""
    anchors, first, start, order, pw, aw = sp[:6]
    m = order.shape[0]
    for r in range(anchors.shape[0]):
        i = anchors[r]
        for pos in range(start[r], m):
            j = order[pos]
            alpha[first[r] + pos - start[r]] = C * (pw[i] * pw[j] * aw[i]) * start_fraction(f[i] - f[j], power, epsilon)


@njit(cache=True, nogil=True)
def _dual_sums(sp, alpha, C, power):
    """(Σ α_p, Σ α_p² / (C w_p) over w_p > 0 for the 2-norm, else 0), in pair order."""
    anchors, first, start, order, pw, aw = sp[:6]
    m = order.shape[0]
    total = 0.0
    ridge = 0.0
    for r in range(anchors.shape[0]):
        i = anchors[r]
        for pos in range(start[r], m):
            a = alpha[first[r] + pos - start[r]]
            total += a
            wp = pw[i] * pw[order[pos]] * aw[i]
            if power == 2 and wp > 0.0:
                ridge += a * a / (C * wp)
    return total, ridge


@njit(cache=True, nogil=True)
def _support(sp, alpha, threshold):
    """The pairs (i, j) with α_p > threshold (int32, in pair order) and their α_p."""
    anchors, first, start, order = sp[0], sp[1], sp[2], sp[3]
    m = order.shape[0]
    k = 0
    for p in range(alpha.shape[0]):
        k += alpha[p] > threshold
    ij = np.empty((k, 2), dtype=np.int32)
    values = np.empty(k)
    k = 0
    for r in range(anchors.shape[0]):
        for pos in range(start[r], m):
            a = alpha[first[r] + pos - start[r]]
            if a > threshold:
                ij[k, 0] = anchors[r]
                ij[k, 1] = order[pos]
                values[k] = a
                k += 1
    return ij, values


# ----------------------------------------------------------------------------- Python side
class SortedDCD:
    """Dual coordinate descent over a :class:`SortedPairs`: the compiled passes behind small methods."""

    def __init__(self, data: np.ndarray, structure: SortedPairs, C: float, power: int, *, linear: bool) -> None:
        self.data, self.structure, self.C, self.power, self.linear = data, structure, C, power, linear
        self.diag = np.zeros(0) if linear else np.ascontiguousarray(np.diag(data))

    @property
    def arrays(self) -> tuple:
        """The structure's arrays as the compiled passes take them."""
        return self.structure.arrays

    def starting_point(self, alpha0: np.ndarray | None,
                       from_scores: tuple[np.ndarray, float] | None = None) -> np.ndarray:
        """α = 0, or ``alpha0`` copied and clipped into the box, or the dual point read off the
        scores f of ``from_scores = (f, ε)`` (see ``dcd_solve``)."""
        if from_scores is not None:
            alpha = np.empty(self.structure.n_pairs)
            f, epsilon = from_scores
            _start_from_scores(self.arrays, np.ascontiguousarray(f, dtype=np.float64), self.C, self.power,
                               float(epsilon), alpha)
            return alpha
        if alpha0 is None:
            return np.zeros(self.structure.n_pairs)
        alpha = np.array(alpha0, dtype=np.float64, copy=True)
        _clip_start(self.arrays, alpha, self.C, self.power)
        return alpha

    def active_index(self) -> np.ndarray:
        """The numbers of the pairs of positive weight (int32 below 2³¹ pairs), ascending."""
        n_pairs = self.structure.n_pairs
        index = np.empty(n_pairs, dtype=np.int32 if n_pairs < 2**31 else np.int64)
        k = _active_index(self.arrays, n_pairs, index)
        return index if k == n_pairs else index[:k].copy()

    def expansion(self, alpha: np.ndarray) -> np.ndarray:
        """c = Aᵀα."""
        return _expansion(self.arrays, alpha, self.structure.n_points)

    def epoch(self, alpha: np.ndarray, state: np.ndarray, index: np.ndarray, active: int,
              pg_old: tuple[float, float]) -> tuple[float, float, int, int]:
        """One pass over ``index[:active]``; returns (max PG, min PG, active size, coordinates moved)."""
        hi, lo, active, moved = _epoch(self.data, self.diag, self.linear, self.arrays, self.C, self.power, alpha, state,
                                       index, active, *pg_old)
        return float(hi), float(lo), int(active), int(moved)

    def dual_sums(self, alpha: np.ndarray) -> tuple[float, float]:
        """(Σ α_p, Σ α_p² / (C w_p) for the 2-norm, else 0)."""
        total, ridge = _dual_sums(self.arrays, alpha, self.C, self.power)
        return float(total), float(ridge)

    def support(self, alpha: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray]:
        """``(pairs, α)`` of the pairs with α_p > threshold, in pair order."""
        return _support(self.arrays, alpha, float(threshold))


def dcd_solve_sorted(data: np.ndarray, pairs: PairSet, C: float, power: int, *, linear: bool, tol: float,
                     max_iter: int, shrinking: bool = True, alpha0: np.ndarray | None = None,
                     from_scores: tuple[np.ndarray, float] | None = None, random_state: int | None = None,
                     time_limit: float | None = None,
                     verbose: bool = False) -> tuple[SortedDCD, np.ndarray, np.ndarray, int, str, float]:
    """:func:`aucopt.svm._dcd.dcd_solve` over a sorted pair set, its pairs never listed.

    Parameters are those of ``dcd_solve`` with ``pairs`` (sorted storage) in place of (i, j, w).
    Returns the solver (for the dual sums and the support pairs), α, c = Aᵀα, the epochs, the
    status and the last gap; α, the epochs and the gap equal ``dcd_solve``'s on
    ``pairs.to_arrays()`` bit for bit.
    """
    time_limit = check_time_limit(time_limit)
    start = time.perf_counter()
    data = np.ascontiguousarray(data, dtype=np.float64)
    solver = SortedDCD(data, SortedPairs(pairs), float(C), int(power), linear=bool(linear))
    index = solver.active_index()
    alpha = solver.starting_point(alpha0, from_scores)
    epoch_order = EpochOrder(index, np.random.default_rng(random_state))
    scores: list[np.ndarray] = []

    def refresh() -> int:
        c = solver.expansion(alpha)
        scores[:] = [data.T @ c if linear else data @ c]
        return index.shape[0]

    def epoch(active: int, pg_old: tuple[float, float]) -> tuple[float, float, int, int]:
        epoch_order.shuffle(active)
        return solver.epoch(alpha, scores[0], index, active, pg_old)

    def polish(active: int) -> None:
        pnums = index[:active].copy()
        a, b, wp = solver.structure.decode(pnums)
        new = restricted_optimum(data, solver.linear, a, b, wp, alpha[pnums], scores[0], solver.C, solver.power)
        apply_alpha(data, solver.linear, a, b, pnums, new, alpha, scores[0], np.zeros(0))

    n_full = refresh()
    n_iter, status, gap = run_epochs(epoch, refresh, n_full, tol=tol, max_iter=max_iter, shrinking=shrinking,
                                     time_limit=time_limit, start=start, verbose=verbose, polish=polish,
                                     row_length=data.shape[1], rank=data.shape[1] if linear else None)
    return solver, alpha, solver.expansion(alpha), n_iter, status, gap
