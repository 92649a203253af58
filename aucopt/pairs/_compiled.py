"""Compiled kernels of the sorted-pair core (numba, compiled on first use and cached on disk).

Private to :mod:`aucopt.pairs.core`, which states the mathematics and the tie rules. Every kernel
has one signature: float64 values, int64 point indices (``order``, ``start``, the anchor lists)
and int32 score ranks and rank thresholds; callers cast before calling.

Notation: ``rank[i]`` is the dense rank of ``f_i`` among the distinct scores ``uniq`` (ascending);
``ythr[c, r]`` is the number of distinct scores ``u`` with ``fl(uniq[r] - u) >= cuts[c]``, so
partner j of anchor i has ``z_ij >= cuts[c]`` exactly when ``rank[j] < ythr[c, rank[i]]``. A piece
``[lower, upper)`` of the loss is the rank range ``[ythr[hi, r_i], ythr[lo, r_i])`` (``lo = -1``:
``lower = -inf``, every rank).

Two sweeps over the time order (``order``) cover every quantity:

* ``forward``: per anchor i and piece, sums ``Σ_j X_j`` over the partners j of i in the piece;
* ``adjoint``: per partner j, sums over the anchors i whose piece contains j of a per-anchor
  vector.

The sweeps themselves, blocked over score ranks so that their trees stay in cache, are in
:mod:`aucopt.pairs._sweeps`; this module holds what a point contributes and what an anchor or a
partner collects in each mode (shared by both), the Fenwick-tree steps, the batched Hessian
products (:func:`matmat`: Fenwick trees of k-vectors over all ranks, for a few hundred
directions at moderate sizes) and the violated-pair scans.

Modes (what is accumulated per anchor / partner, see :mod:`aucopt.pairs.core`): ``LOSS``
(``L``, ``c`` and the Hessian's anchor and partner sums), ``MATVEC``
(``Q(v)``), ``COUNTS`` (pairs below a threshold) and ``LINE`` (``L``, ``dL/dt`` and ``d²L/dt²``
along a direction ``v``).

Weights: ``w`` (per position) weighs each point in its partner role and ``wa`` in its anchor
role, so pair (i, j) weighs ``wa_i w_j``. With point weights p and per-anchor factors a
(``PairSet.anchor_weights``, e.g. inverse-probability-of-censoring weights of the earlier
subject), ``w = p`` and ``wa = a p``; without anchor factors both are the same array.
"""

from __future__ import annotations

import numpy as np

from .._numba import njit

LOSS, MATVEC, COUNTS, LINE = 0, 1, 2, 3


@njit(cache=True, nogil=True)
def rank_thresholds(uniq, cuts):
    """``y[c, r] = #{s : fl(uniq[r] - uniq[s]) >= cuts[c]}`` (int32), by a two-pointer walk.

    ``fl(x - u)`` is non-increasing in ``u`` and non-decreasing in ``x`` (rounding is
    monotone), so the predicate holds on a prefix of ``uniq`` whose length grows with ``r``;
    the predicate itself is evaluated, so the boundary is exact in float64.
    """
    n = uniq.shape[0]
    nc = cuts.shape[0]
    y = np.empty((nc, n), np.int32)
    for c in range(nc):
        b = cuts[c]
        p = 0
        for r in range(n):
            x = uniq[r]
            while p < n and x - uniq[p] >= b:
                p += 1
            y[c, r] = p
    return y


# The per-point and per-anchor helpers take scalars and return tuples: passing arrays to a helper
# costs reference-count updates per call, which would dominate the sweeps.
@njit(cache=True, nogil=True, inline="always")
def _columns(mode, wj, gj, vj):
    """The summed columns at a position (a 6-tuple, unused entries 0): LOSS w, w g, w g²;
    MATVEC w v; COUNTS 1; LINE w, w g, w g², w v, w v², w g v."""
    if mode == 1:
        return wj * vj, 0.0, 0.0, 0.0, 0.0, 0.0
    if mode == 2:
        return 1.0, 0.0, 0.0, 0.0, 0.0, 0.0
    if mode == 0:
        return wj, wj * gj, wj * gj * gj, 0.0, 0.0, 0.0
    return wj, wj * gj, wj * gj * gj, wj * vj, wj * vj * vj, wj * gj * vj


@njit(cache=True, nogil=True, inline="always")
def _anchor_terms(mode, S, coef, wi, gi, vi, nai):
    """Contributions of one anchor from its piece sums ``S`` (pieces × columns):
    ``(ΔL, Δφ', Δφ'', Δout, NA)``."""
    npc = S.shape[0]
    if mode == 0:  # LOSS: columns w, w g, w g²
        h = 1.0 - gi
        L = 0.0
        ci = 0.0
        na = 0.0
        for p in range(npc):
            d0, d1, d2 = coef[p, 0], coef[p, 1], coef[p, 2]
            W0, W1, W2 = S[p, 0], S[p, 1], S[p, 2]
            L += d0 * W0 + d1 * (h * W0 + W1) + d2 * (h * h * W0 + 2.0 * h * W1 + W2)
            ci += d1 * W0 + 2.0 * d2 * (h * W0 + W1)
            na += 2.0 * d2 * W0
        return wi * L, 0.0, 0.0, -wi * ci, na
    if mode == 1:  # MATVEC: column w v; quadratic pieces only
        s = 0.0
        for p in range(npc):
            s += 2.0 * coef[p, 2] * S[p, 0]
        return 0.0, 0.0, 0.0, wi * (vi * nai - s), nai
    if mode == 2:  # COUNTS: column 1; one piece
        return 0.0, 0.0, 0.0, S[0, 0], 0.0
    h = 1.0 - gi  # LINE: columns w, w g, w g², w v, w v², w g v
    L = 0.0
    d1s = 0.0
    d2s = 0.0
    for p in range(npc):
        d0, d1, d2 = coef[p, 0], coef[p, 1], coef[p, 2]
        W0, W1, W2 = S[p, 0], S[p, 1], S[p, 2]
        V1, V2, U = S[p, 3], S[p, 4], S[p, 5]
        L += d0 * W0 + d1 * (h * W0 + W1) + d2 * (h * h * W0 + 2.0 * h * W1 + W2)
        d1s -= (d1 + 2.0 * d2 * h) * (vi * W0 - V1) + 2.0 * d2 * (vi * W1 - U)
        d2s += 2.0 * d2 * (vi * vi * W0 - 2.0 * vi * V1 + V2)
    return wi * L, wi * d1s, wi * d2s, 0.0, 0.0


@njit(cache=True, nogil=True, inline="always")
def _collect_anchor(mode, S, coef, wi, gi, vi, NA, a, acc):
    """One anchor's :func:`_anchor_terms`, booked: ``NA[a]`` written in the LOSS mode (and read in the
    MATVEC mode), ``ΔL, Δφ', Δφ''`` added to ``acc``; returns the anchor's term of ``out``."""
    dl, d1, d2, do, na = _anchor_terms(mode, S, coef, wi, gi, vi, NA[a] if mode == MATVEC else 0.0)
    if mode == LOSS and NA.shape[0]:
        NA[a] = na
    acc[0] += dl
    acc[1] += d1
    acc[2] += d2
    return do


@njit(cache=True, nogil=True, inline="always")
def _anchor_rows(mode, d1, d2, wi, gi, vi):
    """The vector (2-tuple) an anchor sends to the partners of a piece with coefficients d1, d2."""
    if mode == 0:  # LOSS: c_j += w_j (G0 + g_j G1); G1 is also N'_j of the Hessian
        return wi * ((d1 + 2.0 * d2) - 2.0 * d2 * gi), 2.0 * d2 * wi
    if mode == 1:  # MATVEC
        return 2.0 * d2 * wi * vi, 0.0
    return 1.0, 0.0  # COUNTS


@njit(cache=True, nogil=True, inline="always")
def _partner_terms(mode, G0, G1, wj, gj, vj, npj):
    """``(Δout, NP)`` of one partner from its adjoint sums."""
    if mode == 0:
        return wj * (G0 + gj * G1), G1
    if mode == 1:
        return wj * (vj * npj - G0), npj
    return 0.0, G0  # COUNTS: the partner-side counts go to NP


@njit(cache=True, nogil=True, inline="always")
def _tree_add(tree, n, k, r, x):
    """Add the first k entries of the tuple ``x`` at rank r (0-based) of a Fenwick tree over
    ``n`` ranks with k interleaved columns (k in 1, 2, 3, 4, 6). Scalars, not a work array: the
    loads along the tree path stay independent (memory-level parallelism)."""
    x0, x1, x2, x3, x4, x5 = x
    r += 1
    while r <= n:
        b = r * k
        tree[b] += x0
        if k > 1:
            tree[b + 1] += x1
            if k > 2:
                tree[b + 2] += x2
                if k > 3:
                    tree[b + 3] += x3
                    if k > 4:
                        tree[b + 4] += x4
                        tree[b + 5] += x5
        r += r & (-r)


@njit(cache=True, nogil=True, inline="always")
def _tree_prefix(tree, k, y):
    """The sums over ranks ``< y`` (a 6-tuple, first k entries used)."""
    s0 = s1 = s2 = s3 = s4 = s5 = 0.0
    r = y
    while r > 0:
        b = r * k
        s0 += tree[b]
        if k > 1:
            s1 += tree[b + 1]
            if k > 2:
                s2 += tree[b + 2]
                if k > 3:
                    s3 += tree[b + 3]
                    if k > 4:
                        s4 += tree[b + 4]
                        s5 += tree[b + 5]
        r -= r & (-r)
    return s0, s1, s2, s3, s4, s5


@njit(cache=True, nogil=True, inline="always")
def _piece_ranks(plo, phi, yA, n_uniq, p, a):
    """The rank range ``[hi, lo)`` of piece p for anchor a (``lo <= hi``: no partner in the piece)."""
    cl = plo[p]
    return (n_uniq if cl < 0 else yA[cl, a]), yA[phi[p], a]


# ============================================================================ violated pairs
@njit(cache=True, nogil=True, inline="always")
def _keep_smallest(zs, ps, row, z, p):
    """Insert (z, p) into row ``row`` of the ascending buffers ``zs``/``ps`` if z beats its last entry."""
    k = zs.shape[1]
    if z >= zs[row, k - 1]:
        return
    t = k - 1
    while t > 0 and zs[row, t - 1] > z:
        zs[row, t] = zs[row, t - 1]
        ps[row, t] = ps[row, t - 1]
        t -= 1
    zs[row, t] = z
    ps[row, t] = p


@njit(cache=True, nogil=True)
def violators_sorted(order, start, first, f, w, wa, skip, threshold, up_z, up_p, lo_z, lo_p):
    """Scan every pair (i, j) of sorted storage once: count those with ``f_i - f_j < threshold``
    that ``skip`` (bool, per pair position) does not hold and whose weight ``wa_i w_j`` is
    positive (``wa``: the anchor-side weights, ``w`` the partner-side ones, point order), and
    keep per anchor i (``up_*``) and per partner j (``lo_*``) the k smallest margins and their
    pair positions. ``first[i]`` is the position of anchor i's first pair."""
    m = f.shape[0]
    total = 0
    for i in range(m):
        s = start[i]
        if s >= m or wa[i] == 0.0:
            continue
        fi = f[i]
        base = first[i] - s
        for q in range(s, m):
            j = order[q]
            z = fi - f[j]
            if z < threshold and w[j] != 0.0 and not skip[base + q]:
                total += 1
                _keep_smallest(up_z, up_p, i, z, base + q)
                _keep_smallest(lo_z, lo_p, j, z, base + q)
    return total


@njit(cache=True, nogil=True)
def violators_explicit(pi, pj, pw, f, skip, threshold, up_z, up_p, lo_z, lo_p):
    """:func:`violators_sorted` for listed pairs ``(pi, pj)`` with weights ``pw``."""
    total = 0
    for p in range(pi.shape[0]):
        i = pi[p]
        j = pj[p]
        z = f[i] - f[j]
        if z < threshold and pw[p] != 0.0 and not skip[p]:
            total += 1
            _keep_smallest(up_z, up_p, i, z, p)
            _keep_smallest(lo_z, lo_p, j, z, p)
    return total


# ============================================================================ pairs one by one
@njit(cache=True, nogil=True, inline="always")
def _first_below(vals, fi, bound, left):
    """The first position k >= left of the ascending ``vals`` with ``fl(fi - vals[k]) < bound``
    (bisection: ``fl(fi - x)`` is non-increasing in x)."""
    right = vals.shape[0]
    while left < right:
        mid = (left + right) >> 1
        if fi - vals[mid] < bound:
            right = mid
        else:
            left = mid + 1
    return left


@njit(cache=True, nogil=True)
def score_ranges(vals, f, anchors, lower, upper, lo, hi):
    """Per anchor ``i = anchors[a]``, the positions ``[lo[a], hi[a])`` of the ascending scores
    ``vals`` with ``lower <= fl(f_i - vals[k]) < upper``; returns the summed lengths."""
    total = 0
    for a in range(anchors.shape[0]):
        fi = f[anchors[a]]
        lo[a] = _first_below(vals, fi, upper, 0)
        hi[a] = _first_below(vals, fi, lower, lo[a])
        total += hi[a] - lo[a]
    return total


@njit(cache=True, nogil=True)
def slopes_one_by_one(by_score, pos, start, f, w, wa, anchors, lo, hi, d1, d2, c):
    """The slopes ``s = wa_i w_j (d1 + 2 d2 t)``, ``t = 1 - fl(f_i - f_j)``, of the pairs (i, j) of sorted
    storage whose partner j is at a score position in ``[lo[a], hi[a])`` of anchor ``i = anchors[a]``
    (``by_score``: points in ascending score order; ``pos``: time positions), each from its own
    difference: ``c_i -= s``, ``c_j += s`` (``c`` empty: not kept); returns ``Σ s``."""
    keep = c.shape[0] > 0
    total = 0.0
    for a in range(anchors.shape[0]):
        i = anchors[a]
        s0 = start[i]
        fi = f[i]
        acc = 0.0
        for k in range(lo[a], hi[a]):
            j = by_score[k]
            if pos[j] < s0 or j == i:
                continue
            s = wa[i] * w[j] * (d1 + 2.0 * d2 * (1.0 - (fi - f[j])))
            acc += s
            if keep:
                c[j] += s
        if keep:
            c[i] -= acc
        total += acc
    return total


# ============================================================================ batched Hessian products
@njit(cache=True, nogil=True)
def matmat(order, aptr, apos, s0, rank, yA, n_uniq, plo, phi, coef, w, wanc, NA, NP, V, out):
    """``out += Q(V)`` column by column for an (m, k) matrix ``V`` (point order), in one pair of
    sweeps whose per-rank sums are k-vectors: the MATVEC mode of :func:`sweep` for k directions
    at once (``plo``/``phi``/``coef``: the quadratic pieces only; ``w`` and ``wanc``, the
    partner-side and anchor-side weights, in time order, ``NA`` per anchor and ``NP`` per
    position from the loss sweep)."""
    m = order.shape[0]
    k = V.shape[1]
    Vp = np.empty((m, k))
    for pos in range(m):
        Vp[pos, :] = V[order[pos], :]
    Op = np.zeros((m, k))
    if s0 >= 0:
        _matmat_shared(apos, s0, rank, yA, n_uniq, plo, phi, coef, w, wanc, NA, NP, Vp, Op)
    else:
        _matmat_forward(aptr, apos, rank, yA, n_uniq, plo, phi, coef, w, wanc, NA, Vp, Op)
        _matmat_adjoint(aptr, apos, rank, yA, n_uniq, plo, phi, coef, w, wanc, NP, Vp, Op)
    for pos in range(m):
        i = order[pos]
        for q in range(k):
            out[i, q] += Op[pos, q]


@njit(cache=True, nogil=True)
def _matmat_shared(apos, s0, rank, yA, n_uniq, plo, phi, coef, w, wanc, NA, NP, Vp, Op):
    """:func:`matmat` for one shared suffix ``order[s0:]``: prefix sums over ranks (forward) and a
    difference array (adjoint), k-vectors per rank; ``Vp`` and ``Op`` in time order."""
    m, k = Vp.shape
    npc = plo.shape[0]
    acc = np.zeros(k)
    P = np.zeros((n_uniq + 1, k))
    for pos in range(s0, m):
        r = rank[pos] + 1
        wj = w[pos]
        for q in range(k):
            P[r, q] += wj * Vp[pos, q]
    for r in range(n_uniq):
        for q in range(k):
            P[r + 1, q] += P[r, q]
    D = np.zeros((n_uniq + 1, k))
    for a in range(apos.shape[0]):
        pa = apos[a]
        wa = wanc[pa]
        acc[:] = 0.0
        for p in range(npc):
            lo, hi = _piece_ranks(plo, phi, yA, n_uniq, p, a)
            if lo <= hi:
                continue
            c2 = 2.0 * coef[p, 2]
            for q in range(k):
                acc[q] += c2 * (P[lo, q] - P[hi, q])
                x = c2 * wa * Vp[pa, q]
                D[hi, q] += x
                D[lo, q] -= x
        na = NA[a]
        for q in range(k):
            Op[pa, q] += wa * (Vp[pa, q] * na - acc[q])
    for r in range(n_uniq):
        for q in range(k):
            D[r + 1, q] += D[r, q]
    for pos in range(s0, m):
        r = rank[pos]
        wj = w[pos]
        npj = NP[pos]
        for q in range(k):
            Op[pos, q] += wj * (Vp[pos, q] * npj - D[r, q])


@njit(cache=True, nogil=True, inline="always")
def _ktree_add(tree, n, r, x, sign):
    """Add ``sign * x`` (a k-vector) at rank r (0-based) of a Fenwick tree over ``n`` ranks."""
    r += 1
    while r <= n:
        for q in range(x.shape[0]):
            tree[r, q] += sign * x[q]
        r += r & (-r)


@njit(cache=True, nogil=True, inline="always")
def _ktree_prefix(tree, y, c, acc):
    """``acc += c · (sum of the tree's k-vectors over ranks < y)``."""
    r = y
    while r > 0:
        for q in range(acc.shape[0]):
            acc[q] += c * tree[r, q]
        r -= r & (-r)


@njit(cache=True, nogil=True)
def _matmat_forward(aptr, apos, rank, yA, n_uniq, plo, phi, coef, w, wanc, NA, Vp, Op):
    """The forward sweep of :func:`matmat` for nested suffixes: from the end, each point enters a
    Fenwick tree of k-vectors at its rank; each anchor reads its piece ranges at its suffix start."""
    m, k = Vp.shape
    npc = plo.shape[0]
    acc = np.zeros(k)
    row = np.zeros(k)
    tree = np.zeros((n_uniq + 1, k))
    tot = np.zeros(k)
    for pos in range(m - 1, -1, -1):
        wj = w[pos]
        for q in range(k):
            row[q] = wj * Vp[pos, q]
            tot[q] += row[q]
        _ktree_add(tree, n_uniq, rank[pos], row, 1.0)
        for a in range(aptr[pos], aptr[pos + 1]):
            pa = apos[a]
            acc[:] = 0.0
            for p in range(npc):
                lo, hi = _piece_ranks(plo, phi, yA, n_uniq, p, a)
                if lo <= hi:
                    continue
                c2 = 2.0 * coef[p, 2]
                if lo == n_uniq:
                    for q in range(k):
                        acc[q] += c2 * tot[q]
                else:
                    _ktree_prefix(tree, lo, c2, acc)
                _ktree_prefix(tree, hi, -c2, acc)
            wa = wanc[pa]
            na = NA[a]
            for q in range(k):
                Op[pa, q] += wa * (Vp[pa, q] * na - acc[q])


@njit(cache=True, nogil=True)
def _matmat_adjoint(aptr, apos, rank, yA, n_uniq, plo, phi, coef, w, wanc, NP, Vp, Op):
    """The adjoint sweep of :func:`matmat` for nested suffixes: from the start, each anchor adds its
    k-vector over its piece rank ranges (range update); each point reads its rank (point query)."""
    m, k = Vp.shape
    npc = plo.shape[0]
    acc = np.zeros(k)
    row = np.zeros(k)
    tree = np.zeros((n_uniq + 1, k))
    for pos in range(m):
        for a in range(aptr[pos], aptr[pos + 1]):
            pa = apos[a]
            wa = wanc[pa]
            for p in range(npc):
                lo, hi = _piece_ranks(plo, phi, yA, n_uniq, p, a)
                if lo <= hi:
                    continue
                c2 = 2.0 * coef[p, 2] * wa
                for q in range(k):
                    row[q] = c2 * Vp[pa, q]
                _ktree_add(tree, n_uniq, hi, row, 1.0)
                if lo < n_uniq:
                    _ktree_add(tree, n_uniq, lo, row, -1.0)
        acc[:] = 0.0
        _ktree_prefix(tree, rank[pos] + 1, 1.0, acc)
        wj = w[pos]
        npj = NP[pos]
        for q in range(k):
            Op[pos, q] += wj * (Vp[pos, q] * npj - acc[q])
