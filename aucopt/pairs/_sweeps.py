"""Compiled set-up and sweeps of the sorted-pair core, blocked so that every tree stays in cache.

Private to :mod:`aucopt.pairs.core` (which states the mathematics and the tie rules) and
:mod:`aucopt.pairs._setup`; the per-mode arithmetic (what a point contributes, what an anchor
collects) is that of :mod:`aucopt.pairs._compiled`.

**Score ranks** (:func:`score_ranks`): one ``ndarray.sort`` of 64-bit words that hold, above the
position, the leading bits of an order-preserving integer image of each float64 score (a SIMD
sort of plain integers, several times faster than ``argsort``'s indirect comparisons); the few
runs of scores that share those leading bits are then put in exact float64 order, and the dense
ranks and distinct scores follow in one pass.

**Blocked dominance sums.** Every quantity of a sweep is a 2-D dominance sum over positions in
the time order and score ranks: the forward sweep needs, per anchor a and cut c,
``Σ_{pos ≥ start_a, rank < y_ca} x_pos`` and the adjoint sweep, per position,
``Σ_{anchors a: start_a ≤ pos, y_ca ≤ rank_pos} u_ac``. A Fenwick tree over all ranks answers them
in ``O(m log m)`` but, at 10⁷ points, nearly every tree access is a cache miss. Here the ranks are
cut into blocks of ``B = 2**shift`` consecutive ranks (``B ≈ √n_uniq``) and each sum is split
exactly into

* a *coarse* part over the blocks strictly below the threshold's block: one sweep over the time
  order with a Fenwick tree over the ``≈ √n_uniq`` blocks, and
* a *fine* part inside the threshold's block: per block, its points (in time order) and the
  thresholds that fall in it (in suffix-start order) are merged with a Fenwick tree over the
  block's ``B`` ranks.

Both trees fit in cache and the lists are read in order; every contribution of an anchor or a
partner is affine in its sums (see :func:`aucopt.pairs._compiled._anchor_terms`), so the two parts
are accumulated separately. The lists (:func:`bucket_lists`) are built once per score vector and
serve every sweep at those scores (the loss and each Hessian product). With few distinct scores
(at most :data:`COARSE_ONLY`, e.g. all scores tied at a start from zero) one tree over all ranks
stays in cache: blocks of one rank (``shift = 0``), where the coarse parts alone give every sum
and no lists are built.
"""

from __future__ import annotations

import threading

import numpy as np

from .. import _threads
from .._numba import njit
from ._compiled import (
    MATVEC,
    _anchor_rows,
    _collect_anchor,
    _columns,
    _partner_terms,
    _piece_ranks,
    _tree_add,
    _tree_prefix,
    rank_thresholds,
)

MAX_SHIFT = 16  # block-local ranks are stored as uint16
#: up to this many distinct scores one tree over all ranks stays in cache and no blocks (shift 0) are
#: faster: at 10⁷ points, 0.68 s against 0.81 s for one distinct score, 1.20 s against 1.68 s for 2¹⁶,
#: but 2.28 s against 1.79 s for 2¹⁸
COARSE_ONLY = 1 << 16


def block_shift(n_uniq: int) -> int:
    """``log2`` of the block width: about half the bits of the number of distinct scores; 0 (blocks
    of one rank: the coarse parts alone, no per-block lists) up to :data:`COARSE_ONLY` distinct scores,
    as when all scores tie at a start from zero."""
    if n_uniq <= COARSE_ONLY:
        return 0
    return min(MAX_SHIFT, (int(n_uniq).bit_length() + 1) // 2)


# ============================================================================ score ranks
@njit(cache=True, nogil=True)
def _packed_keys(f, shift):
    """``(image(f_i) >> shift) << shift | i`` with ``image`` the order-preserving uint64 image of a float64."""
    m = f.shape[0]
    bits = f.view(np.uint64)
    out = np.empty(m, np.uint64)
    top = np.uint64(1) << np.uint64(63)
    s = np.uint64(shift)
    for i in range(m):
        b = bits[i]
        key = ~b if b & top else b | top
        out[i] = ((key >> s) << s) | np.uint64(i)
    return out


@njit(cache=True, nogil=True)
def _in_order(keys, f, shift, lo, hi):
    """Whether the scores of ``keys[lo:hi]`` are non-decreasing."""
    low = (np.uint64(1) << np.uint64(shift)) - np.uint64(1)
    last = f[np.int64(keys[lo] & low)]
    for q in range(lo + 1, hi):
        x = f[np.int64(keys[q] & low)]
        if x < last:
            return False
        last = x
    return True


@njit(cache=True, nogil=True)
def _exact_runs(keys, f, shift):
    """Put the runs of ``keys`` (sorted) that share their leading bits in exact float64 order."""
    m = keys.shape[0]
    s = np.uint64(shift)
    lo = 0
    while lo < m:
        head = keys[lo] >> s
        hi = lo + 1
        while hi < m and keys[hi] >> s == head:
            hi += 1
        if hi - lo > 1 and not _in_order(keys, f, shift, lo, hi):
            low = (np.uint64(1) << s) - np.uint64(1)
            vals = np.empty(hi - lo)
            for q in range(lo, hi):
                vals[q - lo] = f[np.int64(keys[q] & low)]
            run = keys[lo:hi].copy()
            by_value = np.argsort(vals, kind="mergesort")
            for q in range(hi - lo):
                keys[lo + q] = run[by_value[q]]
        lo = hi


@njit(cache=True, nogil=True)
def _sorted_values(keys, f, shift, vals, lo, hi):
    """``vals[q] = f[index of keys[q]]`` for ``lo <= q < hi`` (independent loads)."""
    low = (np.uint64(1) << np.uint64(shift)) - np.uint64(1)
    for q in range(lo, hi):
        vals[q] = f[np.int64(keys[q] & low)]


@njit(cache=True, nogil=True)
def _dense_in_sorted_order(keys, vals, shift):
    """One pass in sorted order: each key's leading bits become its dense rank, and the distinct values
    move to the front of ``vals`` (entry n is written after entry q >= n was read); returns their number."""
    m = keys.shape[0]
    s = np.uint64(shift)
    low = (np.uint64(1) << s) - np.uint64(1)
    n = 0
    last = 0.0
    for q in range(m):
        x = vals[q]
        if n == 0 or x != last:
            vals[n] = x
            last = x
            n += 1
        keys[q] = (np.uint64(n - 1) << s) | (keys[q] & low)
    return n


@njit(cache=True, nogil=True)
def _scatter_ranks(keys, shift, rank, lo, hi):
    """``rank[index] = dense rank`` for the keys ``lo <= q < hi`` (rank above, index below ``shift`` bits)."""
    s = np.uint64(shift)
    low = (np.uint64(1) << s) - np.uint64(1)
    for q in range(lo, hi):
        key = keys[q]
        rank[np.int64(key & low)] = np.int32(key >> s)


def score_ranks(f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dense ranks (int32) of the finite float64 scores ``f`` and their distinct values, ascending.

    Equal to ranking by ``np.argsort(f)`` (``-0.0 == 0.0``), in about a third of its time. After the
    sort, the scores are gathered in sorted order and the ranks scattered back by halves on two
    threads (random accesses, independent of each other); only the pass that counts the distinct
    scores runs in order.
    """
    keys, shift = sorted_keys(f)
    m = keys.shape[0]
    vals = np.empty(m)
    _threads.by_halves(lambda lo, hi: _sorted_values(keys, f, shift, vals, lo, hi), m)
    n = _dense_in_sorted_order(keys, vals, shift)
    rank = np.empty(m, np.int32)
    _threads.by_halves(lambda lo, hi: _scatter_ranks(keys, shift, rank, lo, hi), m)
    return rank, vals[:n]


def sorted_keys(x: np.ndarray) -> tuple[np.ndarray, int]:
    """The packed keys of ``x`` in the order of its values (ties by index), and the index bits."""
    m = x.shape[0]
    shift = max(1, int(m - 1).bit_length()) if m else 1
    keys = _packed_keys(x, shift)
    keys.sort()
    _exact_runs(keys, x, shift)
    return keys, shift


def stable_argsort(x: np.ndarray) -> np.ndarray:
    """``np.argsort(x, kind="stable")`` of finite float64 ``x`` (``-0.0`` ties with ``0.0``), int64.

    The packed keys of :func:`score_ranks` (leading bits of the value, then the index) sorted as
    integers, with the runs that share their leading bits put in exact order: about a third of
    the merge sort's time at 1e7 values.
    """
    keys, shift = sorted_keys(np.ascontiguousarray(x, dtype=np.float64) + 0.0)  # -0.0 + 0.0 is +0.0
    return (keys & np.uint64((1 << shift) - 1)).astype(np.int64)


# ============================================================================ set-up
@njit(cache=True, nogil=True)
def harrell_starts(order, t_sorted, e_sorted):
    """Harrell's suffix starts from ``order`` (the stable time order) and the times and events in that
    order. ``order`` is reordered in place so that the events come first inside each tied time (each
    part still by index): an event's partners are ``order[start:]`` from the first position after
    its time's events; a censored subject anchors none (``start = m``). One pass over the time
    order; ``start`` is written per subject."""
    m = order.shape[0]
    start = np.empty(m, np.int64)
    spare = np.empty(0, np.int64)  # the tied censored subjects of one time, while its events move up
    q = 0
    while q < m:
        r = q + 1
        while r < m and t_sorted[r] == t_sorted[q]:
            r += 1
        n_events = 0
        if r - q > 1:  # a tied time: events first, each part in its order
            if spare.shape[0] < r - q:
                spare = np.empty(max(r - q, 2 * spare.shape[0]), np.int64)
            n_spare = 0
            for p in range(q, r):
                if e_sorted[p]:
                    order[q + n_events] = order[p]
                    n_events += 1
                else:
                    spare[n_spare] = order[p]
                    n_spare += 1
            for p in range(n_spare):
                order[q + n_events + p] = spare[p]
            for p in range(q, r):
                start[order[p]] = q + n_events if p < q + n_events else m
        else:
            start[order[q]] = q + 1 if e_sorted[q] else m
        q = r
    return start


@njit(cache=True, nogil=True)
def anchor_lists(start_pos):
    """Anchors grouped by suffix start: ``apos[aptr[p]:aptr[p + 1]]`` are the positions (in the time
    order) of the anchors whose suffix starts at p, increasing; ``astart`` their starts (all int32).
    ``start_pos`` is the suffix start of each position (in time order: both passes read it in order)."""
    m = start_pos.shape[0]
    aptr = np.zeros(m + 1, np.int32)
    for pos in range(m):
        s = start_pos[pos]
        if s < m:
            aptr[s + 1] += 1
    for p in range(m):
        aptr[p + 1] += aptr[p]
    n_anchors = aptr[m]
    apos = np.empty(n_anchors, np.int32)
    astart = np.empty(n_anchors, np.int32)
    fill = aptr[:m].copy()
    for pos in range(m):
        s = start_pos[pos]
        if s < m:
            a = fill[s]
            apos[a] = pos
            astart[a] = s
            fill[s] += 1
    return aptr, apos, astart


@njit(cache=True, nogil=True)
def anchor_thresholds(uniq, cuts, rank, apos):
    """``yA[c, a]``: the number of distinct scores u with ``fl(f_a - u) >= cuts[c]`` for anchor a
    (int32), from :func:`~aucopt.pairs._compiled.rank_thresholds` (exact in float64)."""
    ythr = rank_thresholds(uniq, cuts)
    yA = np.empty((cuts.shape[0], apos.shape[0]), np.int32)
    for c in range(cuts.shape[0]):
        for a in range(apos.shape[0]):
            yA[c, a] = ythr[c, rank[apos[a]]]
    return yA


@njit(cache=True, nogil=True)
def point_lists(rank, smin, n_uniq, shift):
    """The fine sweeps' points: the positions ``>= smin`` by block of their rank (in time order) with
    their block-local ranks, as ``(bp_ptr, bp_pos, bp_loc)``."""
    m = rank.shape[0] if shift else smin  # shift 0: blocks of one rank, no fine part, no lists
    nb = (n_uniq >> shift) + 1 if shift else 0
    mask = (1 << shift) - 1
    bp_ptr = np.zeros(nb + 1, np.int64)
    for pos in range(smin, m):
        bp_ptr[(rank[pos] >> shift) + 1] += 1
    for b in range(nb):
        bp_ptr[b + 1] += bp_ptr[b]
    bp_pos = np.empty(bp_ptr[nb], np.int32)
    bp_loc = np.empty(bp_ptr[nb], np.uint16)
    fill = bp_ptr[:nb].copy()
    for pos in range(smin, m):
        r = rank[pos]
        b = r >> shift
        i = fill[b]
        bp_pos[i] = pos
        bp_loc[i] = r & mask
        fill[b] = i + 1
    return bp_ptr, bp_pos, bp_loc


@njit(cache=True, nogil=True)
def threshold_lists(yA, n_uniq, shift, astart):
    """The fine sweeps' thresholds: those ``y < n_uniq`` by block (in anchor order, i.e. by suffix
    start) as ``a * n_cuts + c`` with their block-local ranks and their anchors' suffix starts
    (``astart``, per anchor), as ``(bq_ptr, bq_id, bq_loc, bq_start)``: the sweeps then read the
    starts in list order instead of gathering them by anchor, a cache miss each at 10⁷ points (a
    loss sweep or a Hessian product on one thread 14-19 % less there, the same sums)."""
    nc, na = yA.shape
    if not shift:  # blocks of one rank: no fine part, no lists
        na = 0
    nb = (n_uniq >> shift) + 1 if shift else 0
    mask = (1 << shift) - 1
    bq_ptr = np.zeros(nb + 1, np.int64)
    for a in range(na):
        for c in range(nc):
            y = yA[c, a]
            if y < n_uniq:
                bq_ptr[(y >> shift) + 1] += 1
    for b in range(nb):
        bq_ptr[b + 1] += bq_ptr[b]
    bq_id = np.empty(bq_ptr[nb], np.int32)
    bq_loc = np.empty(bq_ptr[nb], np.uint16)
    bq_start = np.empty(bq_ptr[nb], np.int32)
    fill = bq_ptr[:nb].copy()
    for a in range(na):
        for c in range(nc):
            y = yA[c, a]
            if y < n_uniq:
                b = y >> shift
                i = fill[b]
                bq_id[i] = a * nc + c
                bq_loc[i] = y & mask
                bq_start[i] = astart[a]
                fill[b] = i + 1
    return bq_ptr, bq_id, bq_loc, bq_start


def bucket_lists(rank: np.ndarray, smin: int, yA: np.ndarray, n_uniq: int, shift: int, astart: np.ndarray) -> tuple:
    """The per-block lists of the fine sweeps, ``point_lists + threshold_lists`` (both empty for
    ``shift = 0``: with blocks of one rank the coarse parts compute every sum)."""
    return point_lists(rank, smin, n_uniq, shift) + threshold_lists(yA, n_uniq, shift, astart)


# ============================================================================ helpers
@njit(cache=True, nogil=True, inline="always")
def _wt(w, i):
    """``w[i]``, or 1 for an empty ``w`` (no weights)."""
    return w[i] if w.shape[0] else 1.0


@njit(cache=True, nogil=True, inline="always")
def _cut_sign(plo, phi, p, c):
    """How the prefix sum at cut c enters piece p's sum: +1 at its lower cut, -1 at its upper cut."""
    return (1.0 if plo[p] == c else 0.0) - (1.0 if phi[p] == c else 0.0)


@njit(cache=True, nogil=True, inline="always")
def _cut_rows(mode, plo, phi, coef, c, wai, gi, vi):
    """What an anchor adds from its threshold at cut c on (range [hi, lo) of each piece: + at hi, - at lo)."""
    y0 = y1 = 0.0
    for p in range(plo.shape[0]):
        s = -_cut_sign(plo, phi, p, c)
        if s != 0.0:
            r0, r1 = _anchor_rows(mode, coef[p, 1], coef[p, 2], wai, gi, vi)
            y0 += s * r0
            y1 += s * r1
    return y0, y1


# ============================================================================ fine part (per block)
_CHUNK = 4096  # rows of the gather buffers (a block with many tied scores is gathered in pieces)


@njit(cache=True, nogil=True)
def _gather_columns(pos_b, lo, hi, mode, g, w, v, X):
    """``X[:hi - lo]``: the columns of the points ``pos_b[lo:hi]`` (a tight loop of independent loads)."""
    has_v = v.shape[0] > 0
    for i in range(lo, hi):
        pos = pos_b[i]
        X[i - lo, 0], X[i - lo, 1], X[i - lo, 2], X[i - lo, 3], X[i - lo, 4], X[i - lo, 5] = _columns(
            mode, _wt(w, pos), g[pos], v[pos] if has_v else 0.0)


@njit(cache=True, nogil=True)
def _fine_forward_block(pos_b, loc_b, id_b, qloc_b, start_b, k, mode, g, w, v, X, tree, UA):
    """One block of the fine forward part: from the end of the time order, the block's points enter a
    tree over its ranks and each threshold (a, c) stores the sum below it over its anchor's suffix
    (from ``start_b``) in ``UA[(a * n_cuts + c) * k:][:k]``. Point columns are gathered in chunks
    first (independent loads) and then merged."""
    width = tree.shape[0] // k - 1
    tree[:] = 0.0
    p = pos_b.shape[0] - 1
    lo_g = p + 1  # X holds the columns of the points [lo_g, lo_g + _CHUNK)
    for i in range(id_b.shape[0] - 1, -1, -1):
        yl = np.int64(qloc_b[i])
        if yl == 0:
            continue
        while p >= 0 and pos_b[p] >= start_b[i]:
            if p < lo_g:
                lo_g = max(0, p - _CHUNK + 1)
                _gather_columns(pos_b, lo_g, p + 1, mode, g, w, v, X)
            r = p - lo_g
            _tree_add(tree, width, k, np.int64(loc_b[p]), (X[r, 0], X[r, 1], X[r, 2], X[r, 3], X[r, 4], X[r, 5]))
            p -= 1
        u = _tree_prefix(tree, k, yl)
        base = np.int64(id_b[i]) * k
        for col in range(k):
            UA[base + col] = u[col]


@njit(cache=True, nogil=True)
def _fine_adjoint_block(pos_b, loc_b, id_b, qloc_b, start_b, nc, plo, phi, coef, k, mode, wa, gA, vA, Y, tree, NP,
                        out):
    """One block of the fine adjoint part: in time order, each threshold (a, c) adds its anchor's rows
    at its block-local rank once the anchor's suffix has started (``start_b``); each point stores the
    sums at or below its rank in ``out[pos]`` (and ``NP[pos]`` for a second column), plain stores that
    the coarse part reads in order. The thresholds' rows (from ``wa, gA, vA``, per anchor) are
    gathered in chunks first."""
    width = tree.shape[0] // k - 1
    nq = id_b.shape[0]
    has_vA = vA.shape[0] > 0
    tree[:] = 0.0
    q = 0
    hi_g = 0  # Y holds the rows of the thresholds [hi_g - _CHUNK, hi_g)
    for i in range(pos_b.shape[0]):
        pos = pos_b[i]
        while q < nq:
            if q >= hi_g:
                for j in range(q, min(nq, q + _CHUNK)):
                    a = id_b[j] // nc
                    Y[j - q, 0], Y[j - q, 1] = _cut_rows(mode, plo, phi, coef, id_b[j] - a * nc, _wt(wa, a), gA[a],
                                                         vA[a] if has_vA else 0.0)
                hi_g = q + _CHUNK
            if start_b[q] > pos:
                break
            r = q - (hi_g - _CHUNK)
            _tree_add(tree, width, k, np.int64(qloc_b[q]), (Y[r, 0], Y[r, 1], 0.0, 0.0, 0.0, 0.0))
            q += 1
        G = _tree_prefix(tree, k, np.int64(loc_b[i]) + 1)
        out[pos] = G[0]  # scratch: the coarse part turns the sums into the partner's terms
        if k > 1:
            NP[pos] = G[1]


@njit(cache=True, nogil=True)
def _fine(shift, lists, b_lo, b_hi, nc, plo, phi, coef, k_fwd, k_adj, mode, g, w, v, wa, gA, vA, UA, NP, out):
    """The fine parts of both sweeps, block by block, for the blocks ``b_lo <= b < b_hi``."""
    bp_ptr, bp_pos, bp_loc, bq_ptr, bq_id, bq_loc, bq_start = lists
    width = 1 << shift
    X = np.empty((_CHUNK, 6))
    Y = np.empty((_CHUNK, 2))
    tree_f = np.empty((width + 1) * k_fwd)
    tree_a = np.empty((width + 1) * k_adj)
    for b in range(b_lo, b_hi):
        p_lo, p_hi, q_lo, q_hi = bp_ptr[b], bp_ptr[b + 1], bq_ptr[b], bq_ptr[b + 1]
        if q_hi == q_lo or p_hi == p_lo:
            continue
        pos_b, loc_b, id_b, qloc_b = bp_pos[p_lo:p_hi], bp_loc[p_lo:p_hi], bq_id[q_lo:q_hi], bq_loc[q_lo:q_hi]
        start_b = bq_start[q_lo:q_hi]
        if k_fwd:
            _fine_forward_block(pos_b, loc_b, id_b, qloc_b, start_b, k_fwd, mode, g, w, v, X, tree_f, UA)
        if k_adj:
            _fine_adjoint_block(pos_b, loc_b, id_b, qloc_b, start_b, nc, plo, phi, coef, k_adj, mode, wa, gA, vA, Y,
                                tree_a, NP, out)


# ============================================================================ coarse part
@njit(cache=True, nogil=True, inline="always")
def _prefix(tree, k, shift, UA, nc, a, c, y, n_uniq, t):
    """Σ over the suffix of anchor a of the columns at ranks < y (cut c): the blocks below y's block
    (coarse tree) plus y's own block (``UA``, from the fine part); the whole suffix ``t`` for ``n_uniq``."""
    if y == n_uniq:
        return t
    s0, s1, s2, s3, s4, s5 = _tree_prefix(tree, k, np.int64(y >> shift))
    if not shift:  # blocks of one rank: no fine part
        return s0, s1, s2, s3, s4, s5
    b = (np.int64(a) * nc + c) * k
    s0 += UA[b]
    if k > 1:
        s1 += UA[b + 1]
        if k > 2:
            s2 += UA[b + 2]
            if k > 3:
                s3 += UA[b + 3]
                if k > 4:
                    s4 += UA[b + 4]
                    s5 += UA[b + 5]
    return s0, s1, s2, s3, s4, s5


@njit(cache=True, nogil=True)
def _forward_coarse(shift, smin, rank, aptr, apos, yA, n_uniq, plo, phi, coef, k, mode, g, w, wa, v, UA, NA, outA,
                    acc):
    """The forward sweep's coarse part and every anchor's contribution: from the end of the time order,
    points enter a tree over rank blocks; each anchor combines, per piece, its coarse and fine sums
    (its term to ``outA[a]``)."""
    m = rank.shape[0]
    npc, nc = plo.shape[0], yA.shape[0]
    tree = np.zeros(((n_uniq >> shift) + 2) * k)
    S = np.zeros((npc, 6))
    has_v = v.shape[0] > 0
    t0 = t1 = t2 = t3 = t4 = t5 = 0.0
    for pos in range(m - 1, smin - 1, -1):
        x = _columns(mode, _wt(w, pos), g[pos], v[pos] if has_v else 0.0)
        t0, t1, t2, t3, t4, t5 = t0 + x[0], t1 + x[1], t2 + x[2], t3 + x[3], t4 + x[4], t5 + x[5]
        _tree_add(tree, (n_uniq >> shift) + 1, k, np.int64(rank[pos] >> shift), x)
        for a in range(aptr[pos], aptr[pos + 1]):
            for p in range(npc):
                lo, hi = _piece_ranks(plo, phi, yA, n_uniq, p, a)
                if lo <= hi:
                    S[p, :] = 0.0
                    continue
                t = (t0, t1, t2, t3, t4, t5)
                u = _prefix(tree, k, shift, UA, nc, a, plo[p], lo, n_uniq, t)
                d = _prefix(tree, k, shift, UA, nc, a, phi[p], hi, n_uniq, t)
                for col in range(6):
                    S[p, col] = u[col] - d[col]
            pa = apos[a]
            outA[a] += _collect_anchor(mode, S, coef, _wt(wa, pa), g[pa], v[pa] if has_v else 0.0, NA, a, acc)


@njit(cache=True, nogil=True)
def _adjoint_coarse(shift, smin, rank, aptr, apos, yA, n_uniq, plo, phi, coef, k, mode, g, w, wa, v, NP, out):
    """Coarse adjoint part and every partner's contribution: in time order, each anchor adds its rows,
    per cut, from the block after its threshold's block on (a tree over rank blocks); each point
    reads the blocks up to its own, adds its fine sums (left in ``out[pos]`` and ``NP[pos]``) and
    replaces them by its terms. With ``shift = 0`` (blocks of one rank, no fine part) an anchor adds
    its rows from its threshold's own rank on."""
    m = rank.shape[0]
    nc = yA.shape[0]
    nb = (n_uniq >> shift) + 1
    tree = np.zeros((nb + 1) * k)
    has_v = v.shape[0] > 0
    first = 1 if shift else 0  # the first block an anchor's rows enter, after its threshold's
    for pos in range(smin, m):
        for a in range(aptr[pos], aptr[pos + 1]):
            pa = apos[a]
            for c in range(nc):
                y = yA[c, a]
                if y >= n_uniq or (y >> shift) + first >= nb:
                    continue
                y0, y1 = _cut_rows(mode, plo, phi, coef, c, _wt(wa, pa), g[pa], v[pa] if has_v else 0.0)
                _tree_add(tree, nb, k, np.int64((y >> shift) + first), (y0, y1, 0.0, 0.0, 0.0, 0.0))
        G = _tree_prefix(tree, k, np.int64(rank[pos] >> shift) + 1)
        G0 = G[0] + out[pos] if first else G[0]  # plus the fine sums stored there
        G1 = (G[1] + NP[pos] if first else G[1]) if k > 1 else 0.0
        npj = NP[pos] if mode == MATVEC else 0.0
        do, dn = _partner_terms(mode, G0, G1, _wt(w, pos), g[pos], v[pos] if has_v else 0.0, npj)
        out[pos] = do
        if mode != MATVEC and NP.shape[0]:
            NP[pos] = dn


# ============================================================================ one call
@njit(cache=True, nogil=True)
def _per_anchor(x, apos):
    """``x[apos]`` (empty for an empty ``x``)."""
    out = np.empty(apos.shape[0] if x.shape[0] else 0)
    for a in range(out.shape[0]):
        out[a] = x[apos[a]]
    return out


@njit(cache=True, nogil=True)
def _gather(v, order, v_pos, lo, hi):
    """``v_pos[lo:hi] = v[order[lo:hi]]``."""
    for pos in range(lo, hi):
        v_pos[pos] = v[order[pos]]


# ============================================================================ one distinct score
@njit(cache=True, nogil=True)
def _constant_forward(smin, aptr, apos, yA, plo, phi, coef, mode, g, w, wa, v, NA, acc):
    """The forward sweep when every score is the same (``n_uniq = 1``, the start at θ = 0): each
    piece holds either all of an anchor's partners or none (``z = 0``), so its sums are the suffix
    totals of the time order; no tree. Returns each anchor's term (anchor order)."""
    m, npc = aptr.shape[0] - 1, plo.shape[0]
    has_v = v.shape[0] > 0
    T = np.zeros(6)
    S = np.zeros((npc, 6))
    outA = np.zeros(apos.shape[0])
    for pos in range(m - 1, smin - 1, -1):
        x = _columns(mode, _wt(w, pos), g[pos], v[pos] if has_v else 0.0)
        for col in range(6):
            T[col] += x[col]
        for a in range(aptr[pos], aptr[pos + 1]):
            for p in range(npc):
                lo, hi = _piece_ranks(plo, phi, yA, 1, p, a)
                for col in range(6):
                    S[p, col] = T[col] if lo > hi else 0.0
            pa = apos[a]
            outA[a] = _collect_anchor(mode, S, coef, _wt(wa, pa), g[pa], v[pa] if has_v else 0.0, NA, a, acc)
    return outA


@njit(cache=True, nogil=True)
def _constant_adjoint(smin, aptr, apos, yA, plo, phi, coef, mode, g, w, wa, v, NP, out):
    """The adjoint sweep when every score is the same: each partner collects the rows of every anchor
    whose suffix has started, at the cuts above ``z = 0`` (``yA = 0``); running sums, no tree."""
    m, nc = aptr.shape[0] - 1, yA.shape[0]
    has_v = v.shape[0] > 0
    G0 = G1 = 0.0
    for pos in range(smin, m):
        for a in range(aptr[pos], aptr[pos + 1]):
            pa = apos[a]
            for c in range(nc):
                if yA[c, a] == 0:
                    y0, y1 = _cut_rows(mode, plo, phi, coef, c, _wt(wa, pa), g[pa], v[pa] if has_v else 0.0)
                    G0 += y0
                    G1 += y1
        do, dn = _partner_terms(mode, G0, G1, _wt(w, pos), g[pos], v[pos] if has_v else 0.0,
                                NP[pos] if mode == MATVEC else 0.0)
        out[pos] = do
        if mode != MATVEC and NP.shape[0]:
            NP[pos] = dn


@njit(cache=True, nogil=True)
def _fine_forward(shift, lists, b_lo, b_hi, nc, plo, phi, coef, k, mode, g, w, v_pos, UA):
    """The fine part of the forward sweep for the blocks ``b_lo <= b < b_hi``: their sums to ``UA``."""
    none = np.empty(0)
    _fine(shift, lists, b_lo, b_hi, nc, plo, phi, coef, k, 0, mode, g, w, v_pos, none, none, none, UA, none,
          none)


@njit(cache=True, nogil=True)
def _forward_half(shift, lists, smin, rank, aptr, apos, yA, n_uniq, plo, phi, coef, k, mode, g, w, wa, v_pos,
                  NA, acc, UA):
    """The forward sweep's coarse part, once its fine part's sums are in ``UA``; returns each anchor's
    term (anchor order). One distinct score: :func:`_constant_forward`."""
    if n_uniq == 1:
        return _constant_forward(smin, aptr, apos, yA, plo, phi, coef, mode, g, w, wa, v_pos, NA, acc)
    outA = np.zeros(apos.shape[0])
    _forward_coarse(shift, smin, rank, aptr, apos, yA, n_uniq, plo, phi, coef, k, mode, g, w, wa, v_pos, UA, NA, outA,
                    acc)
    return outA


@njit(cache=True, nogil=True)
def _adjoint_half(shift, lists, smin, rank, aptr, apos, yA, n_uniq, plo, phi, coef, k, mode, g, w, wa, v_pos,
                  NP, out_pos):
    """The adjoint sweep, fine part then coarse part; writes each partner's term to ``out_pos``."""
    if n_uniq == 1:  # one distinct score
        _constant_adjoint(smin, aptr, apos, yA, plo, phi, coef, mode, g, w, wa, v_pos, NP, out_pos)
        return
    # per-anchor copies (anchor order) for the fine adjoint: one random access per threshold
    if shift:  # blocks of one rank (shift 0) have no fine part
        gA, waA, vA = _per_anchor(g, apos), _per_anchor(wa, apos), _per_anchor(v_pos, apos)
        _fine(shift, lists, 0, lists[0].shape[0] - 1, yA.shape[0], plo, phi, coef, 0, k, mode, g, w, v_pos,
              waA, gA, vA, np.empty(0), NP, out_pos)
    _adjoint_coarse(shift, smin, rank, aptr, apos, yA, n_uniq, plo, phi, coef, k, mode, g, w, wa, v_pos, NP, out_pos)


@njit(cache=True, nogil=True)
def _add_anchor_terms(apos, outA, out_pos):
    """Each anchor's term onto its position's partner term."""
    for a in range(outA.shape[0]):
        out_pos[apos[a]] += outA[a]


@njit(cache=True, nogil=True)
def scatter_add(order, out_pos, out, lo, hi):
    """``out[order[pos]] += out_pos[pos]`` for the positions ``lo <= pos < hi`` (``order`` without repeats)."""
    for pos in range(lo, hi):
        out[order[pos]] += out_pos[pos]


def sweep(order, aptr, apos, smin, rank, yA, n_uniq, shift, lists, plo, phi, coef, g, w, wa, v, mode, k_fwd,
          k_adj, NA, NP, out, acc):
    """Forward sweep (``k_fwd`` columns, if > 0) and adjoint sweep (``k_adj``, if > 0).

    Everything is in time order (position ``pos`` holds point ``order[pos]``) except ``v``
    (read) and ``out`` (added to), which are in point order: gathered and scattered once (the
    parts then read and write memory in order). ``NA`` is per anchor (in the order of ``apos``),
    ``NP`` per position: both are written in the LOSS mode (zero on entry) and read in the
    MATVEC mode; for COUNTS ``NP`` receives the partner-side counts. ``w`` weighs a point as a
    partner, ``wa`` as an anchor (pair weight ``wa_i w_j``); an empty array means weight 1.
    ``lists`` are those of :func:`bucket_lists`.

    The two sweeps share only their read-only inputs (the forward one writes ``NA``, ``acc`` and
    the anchors' terms, the adjoint one ``NP`` and the partners' terms), so they run on two
    threads when :func:`aucopt._threads.threaded` (the kernels release the GIL), and so do the
    halves of the gather of ``v`` and of the scatter to ``out``; the terms are added in the same
    order as on one thread, so the results are the same to the bit.
    """
    m = order.shape[0]
    v_pos = in_time_order(v, order) if v.shape[0] else v
    out_pos = np.zeros(m)
    outA = np.zeros(0)
    common = (shift, lists, smin, rank, aptr, apos, yA, n_uniq, plo, phi, coef)
    nc, nb = yA.shape[0], lists[0].shape[0] - 1
    UA = np.zeros(apos.shape[0] * nc * k_fwd if shift else 0)  # the fine forward sums per anchor and cut
    split = nb  # the fine forward part of the blocks from ``split`` on is done by the adjoint's thread
    handed_over = threading.Event()

    def forward() -> None:
        nonlocal outA
        if shift:
            _fine_forward(shift, lists, 0, split, nc, plo, phi, coef, k_fwd, mode, g, w, v_pos, UA)
        if split < nb:
            handed_over.wait()
        outA = _forward_half(*common, k_fwd, mode, g, w, wa, v_pos, NA, acc, UA)

    def adjoint() -> None:
        try:
            if split < nb:
                _fine_forward(shift, lists, split, nb, nc, plo, phi, coef, k_fwd, mode, g, w, v_pos, UA)
        finally:
            handed_over.set()
        _adjoint_half(*common, k_adj, mode, g, w, wa, v_pos, NP, out_pos)

    if shift and k_fwd and k_adj and _threads.threaded(m):
        split = _handover(lists, HANDOVER)
    _threads.run_both(adjoint, forward, m, first_on=bool(k_adj), second_on=bool(k_fwd))
    if out.shape[0]:
        _add_anchor_terms(apos, outA, out_pos)
        _threads.by_halves(lambda lo, hi: scatter_add(order, out_pos, out, lo, hi), m)


#: the share of the fine forward part's points and thresholds that the adjoint sweep's thread takes on
#: first, when the two sweeps run on two threads. It was chosen when the forward sweep was the longer
#: one by about a third of its fine part; with the suffix starts in list order the two are about
#: even (at 10⁷ survival points, each alone: forward 1.9-2.4 s against adjoint 1.7 s for the loss,
#: 2.0 s against 2.1 s for a Hessian product), and shares of 0, 0.1 and 0.2 measured the same
HANDOVER = 0.2


def _handover(lists: tuple, share: float) -> int:
    """The first block of the last ``share`` of the fine forward work (the blocks' points plus thresholds)."""
    work = lists[0] + lists[3]  # cumulative points + thresholds before each block
    return int(np.searchsorted(work, (1.0 - share) * work[-1]))


def in_time_order(v: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``v[order]`` for float64 ``v`` and an index array ``order`` (a permutation: the time order; or
    part of one: a merge core's lists), its halves on two threads when :func:`aucopt._threads.threaded`."""
    m = order.shape[0]
    v_pos = np.empty(m)
    _threads.by_halves(lambda lo, hi: _gather(v, order, v_pos, lo, hi), m)
    return v_pos


__all__ = ["anchor_lists", "anchor_thresholds", "block_shift", "bucket_lists", "harrell_starts", "in_time_order",
           "point_lists", "scatter_add", "score_ranks", "sorted_keys", "stable_argsort", "sweep", "threshold_lists"]
