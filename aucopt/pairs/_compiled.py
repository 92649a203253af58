"""Compiled kernels of the sorted-pair core (numba, compiled on first use and cached on disk).

Private to :mod:`aucopt.pairs.core`, which states the mathematics and the tie rules. Every kernel
has one signature: float64 values, int64 point indices (``order``, ``start``, the anchor lists)
and int32 score ranks and rank thresholds; callers cast before calling.

Notation: ``rank[i]`` is the dense rank of ``f_i`` among the distinct scores ``uniq`` (ascending);
``ythr[c, r]`` is the number of distinct scores ``u`` with ``fl(uniq[r] - u) >= cuts[c]``, so
partner j of anchor i has ``z_ij >= cuts[c]`` exactly when ``rank[j] < ythr[c, rank[i]]``. A piece
``[lower, upper)`` of the loss is the rank range ``[ythr[hi, r_i], ythr[lo, r_i])`` (``lo = -1``:
``lower = -inf``, every rank).

Two sweeps over the time order (``order``; arrays are permuted to it once per state, so the
sweeps read memory sequentially except for the Fenwick tree) cover every quantity:

* ``forward``: per anchor i and piece, sums ``Σ_j X_j`` over the partners j of i in the piece;
* ``adjoint``: per partner j, sums over the anchors i whose piece contains j of a per-anchor
  vector.

With one shared suffix (bipartite pairs) both are prefix sums over score ranks, ``O(m)``. With
nested suffixes (Harrell's comparable set, multipartite pairs of three or more levels), the
forward sweep walks the time order from the end, inserting each point into a Fenwick tree over
score ranks and querying it at each anchor's suffix start; the adjoint sweep walks from the
start, inserting each anchor's rank ranges (range update) and reading each point (point query):
``O(m log m)`` time, ``O(m)`` memory.

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
from numba import njit

LOSS, MATVEC, COUNTS, LINE = 0, 1, 2, 3


@njit(cache=True, nogil=True)
def dense_ranks(f, perm):
    """``rank`` (int32) and ``uniq`` (ascending distinct values) of ``f`` from ``perm = argsort(f)``."""
    m = f.shape[0]
    rank = np.empty(m, np.int32)
    uniq = np.empty(m, np.float64)
    n = 0
    for q in range(m):
        i = perm[q]
        x = f[i]
        if n == 0 or x != uniq[n - 1]:
            uniq[n] = x
            n += 1
        rank[i] = n - 1
    return rank, uniq[:n].copy()


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


@njit(cache=True, nogil=True)
def position_state(order, start, rank, ythr):
    """The state in time order: score rank per position, anchors grouped by suffix start
    (``apos[aptr[p]:aptr[p + 1]]`` are the positions of the anchors whose suffix starts at p, in
    increasing position) and each anchor's rank thresholds ``yA[c, a]`` (all int32)."""
    m = order.shape[0]
    nc = ythr.shape[0]
    rank_pos = np.empty(m, np.int32)
    aptr = np.zeros(m + 1, np.int32)
    for pos in range(m):
        i = order[pos]
        rank_pos[pos] = rank[i]
        s = start[i]
        if s < m:
            aptr[s + 1] += 1
    for p in range(m):
        aptr[p + 1] += aptr[p]
    n_anchors = aptr[m]
    apos = np.empty(n_anchors, np.int32)
    yA = np.empty((nc, n_anchors), np.int32)
    fill = aptr[:m].copy()
    for pos in range(m):
        i = order[pos]
        s = start[i]
        if s < m:
            a = fill[s]
            apos[a] = pos
            for c in range(nc):
                yA[c, a] = ythr[c, rank[i]]
            fill[s] += 1
    return rank_pos, aptr, apos, yA


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
def _close_anchor(mode, S, coef, w, g, v, has_v, NA, has_na, a, pa, out):
    """Anchor a (point ``pa``) with its piece sums ``S``: add its output to ``out[pa]``, store its
    ``NA`` entry, and return its (loss, first, second) contributions to the accumulators."""
    dl, d1, d2, do, na = _anchor_terms(mode, S, coef, w[pa], g[pa], v[pa] if has_v else 0.0,
                                       NA[a] if has_na else 0.0)
    out[pa] += do
    if has_na:
        NA[a] = na
    return dl, d1, d2


@njit(cache=True, nogil=True, inline="always")
def _piece_ranks(plo, phi, yA, n_uniq, p, a):
    """The rank range ``[hi, lo)`` of piece p for anchor a (``lo <= hi``: no partner in the piece)."""
    cl = plo[p]
    return (n_uniq if cl < 0 else yA[cl, a]), yA[phi[p], a]


@njit(cache=True, nogil=True)
def _forward(aptr, apos, s0, rank, yA, n_uniq, plo, phi, k, mode, coef, g, w, wa, v, NA, out, acc):
    if s0 >= 0:  # one shared suffix: prefix sums over ranks
        a0, a1, a2 = _forward_shared(apos, s0, rank, yA, n_uniq, plo, phi, k, mode, coef, g, w, wa, v, NA, out)
    else:
        a0, a1, a2 = _forward_nested(aptr, apos, rank, yA, n_uniq, plo, phi, k, mode, coef, g, w, wa, v, NA, out)
    acc[0] += a0
    acc[1] += a1
    acc[2] += a2


@njit(cache=True, nogil=True)
def _forward_shared(apos, s0, rank, yA, n_uniq, plo, phi, k, mode, coef, g, w, wa, v, NA, out):
    """:func:`_forward` for one shared suffix ``order[s0:]``: prefix sums over score ranks."""
    m = rank.shape[0]
    npc = plo.shape[0]
    S = np.zeros((npc, 6))
    has_v = v.shape[0] > 0
    has_na = NA.shape[0] > 0
    a0 = a1 = a2 = 0.0
    P = np.zeros((n_uniq + 1, 6))
    for pos in range(s0, m):
        x0, x1, x2, x3, x4, x5 = _columns(mode, w[pos], g[pos], v[pos] if has_v else 0.0)
        r = rank[pos] + 1
        P[r, 0] += x0
        P[r, 1] += x1
        P[r, 2] += x2
        P[r, 3] += x3
        P[r, 4] += x4
        P[r, 5] += x5
    for r in range(n_uniq):
        for q in range(k):
            P[r + 1, q] += P[r, q]
    for a in range(apos.shape[0]):
        for p in range(npc):
            lo, hi = _piece_ranks(plo, phi, yA, n_uniq, p, a)
            for q in range(k):
                S[p, q] = P[lo, q] - P[hi, q] if lo > hi else 0.0
        dl, d1, d2 = _close_anchor(mode, S, coef, wa, g, v, has_v, NA, has_na, a, apos[a], out)
        a0 += dl
        a1 += d1
        a2 += d2
    return a0, a1, a2


@njit(cache=True, nogil=True)
def _forward_nested(aptr, apos, rank, yA, n_uniq, plo, phi, k, mode, coef, g, w, wa, v, NA, out):
    """:func:`_forward` for nested suffixes: a Fenwick tree over ranks, filled from the end."""
    m = rank.shape[0]
    npc = plo.shape[0]
    S = np.zeros((npc, 6))
    has_v = v.shape[0] > 0
    has_na = NA.shape[0] > 0
    a0 = a1 = a2 = 0.0
    tree = np.zeros((n_uniq + 1) * k)  # Fenwick tree over ranks, k interleaved columns
    t0 = t1 = t2 = t3 = t4 = t5 = 0.0  # the whole suffix
    for pos in range(m - 1, -1, -1):
        x = _columns(mode, w[pos], g[pos], v[pos] if has_v else 0.0)
        t0 += x[0]
        t1 += x[1]
        t2 += x[2]
        t3 += x[3]
        t4 += x[4]
        t5 += x[5]
        _tree_add(tree, n_uniq, k, rank[pos], x)
        for a in range(aptr[pos], aptr[pos + 1]):
            for p in range(npc):
                lo, hi = _piece_ranks(plo, phi, yA, n_uniq, p, a)
                if lo <= hi:
                    for q in range(6):
                        S[p, q] = 0.0
                    continue
                u = (t0, t1, t2, t3, t4, t5) if lo == n_uniq else _tree_prefix(tree, k, lo)
                d = _tree_prefix(tree, k, hi)
                S[p, 0] = u[0] - d[0]
                S[p, 1] = u[1] - d[1]
                S[p, 2] = u[2] - d[2]
                S[p, 3] = u[3] - d[3]
                S[p, 4] = u[4] - d[4]
                S[p, 5] = u[5] - d[5]
            dl, d1, d2 = _close_anchor(mode, S, coef, wa, g, v, has_v, NA, has_na, a, apos[a], out)
            a0 += dl
            a1 += d1
            a2 += d2
    return a0, a1, a2


@njit(cache=True, nogil=True)
def _adjoint(aptr, apos, s0, rank, yA, n_uniq, plo, phi, k, mode, coef, g, w, wa, v, NP, out):
    m = rank.shape[0]
    npc = plo.shape[0]
    has_v = v.shape[0] > 0
    if s0 >= 0:  # one shared suffix: a difference array over ranks
        D = np.zeros((n_uniq + 1, 2))
        for a in range(apos.shape[0]):
            pa = apos[a]
            for p in range(npc):
                cl = plo[p]
                lo = n_uniq if cl < 0 else yA[cl, a]
                hi = yA[phi[p], a]
                if lo <= hi:
                    continue
                y0, y1 = _anchor_rows(mode, coef[p, 1], coef[p, 2], wa[pa], g[pa], v[pa] if has_v else 0.0)
                D[hi, 0] += y0
                D[hi, 1] += y1
                D[lo, 0] -= y0
                D[lo, 1] -= y1
        for r in range(n_uniq):
            for q in range(2):
                D[r + 1, q] += D[r, q]
        for pos in range(s0, m):
            r = rank[pos]
            do, npj = _partner_terms(mode, D[r, 0], D[r, 1], w[pos], g[pos], v[pos] if has_v else 0.0, NP[pos])
            out[pos] += do
            NP[pos] = npj
        return
    tree = np.zeros((n_uniq + 1) * k)  # Fenwick tree: range update over ranks [hi, lo), point query
    for pos in range(m):
        for a in range(aptr[pos], aptr[pos + 1]):
            pa = apos[a]
            for p in range(npc):
                cl = plo[p]
                lo = n_uniq if cl < 0 else yA[cl, a]
                hi = yA[phi[p], a]
                if lo <= hi:
                    continue
                y0, y1 = _anchor_rows(mode, coef[p, 1], coef[p, 2], wa[pa], g[pa], v[pa] if has_v else 0.0)
                _tree_add(tree, n_uniq, k, hi, (y0, y1, 0.0, 0.0, 0.0, 0.0))
                if lo < n_uniq:
                    _tree_add(tree, n_uniq, k, lo, (-y0, -y1, 0.0, 0.0, 0.0, 0.0))
        G = _tree_prefix(tree, k, rank[pos] + 1)
        do, npj = _partner_terms(mode, G[0], G[1], w[pos], g[pos], v[pos] if has_v else 0.0, NP[pos])
        out[pos] += do
        NP[pos] = npj


@njit(cache=True, nogil=True)
def sweep(order, aptr, apos, s0, rank, yA, n_uniq, plo, phi, coef, g, w, wa, v, mode, k_fwd, k_adj,
          NA, NP, out, acc):
    """Forward sweep (``k_fwd`` columns, if > 0) then adjoint sweep (``k_adj``, if > 0).

    Everything is in time order (position ``pos`` holds point ``order[pos]``) except ``v``
    (read) and ``out`` (added to), which are in point order: gathered and scattered once.
    ``NA`` is per anchor (CSR order), ``NP`` per position (for COUNTS it receives the
    partner-side counts). ``w`` weighs a point as a partner, ``wa`` as an anchor (the pair
    weight is ``wa_i w_j``; the same array when there are no anchor weights).
    """
    m = order.shape[0]
    v_pos = np.zeros(m if v.shape[0] else 0)
    for pos in range(v_pos.shape[0]):
        v_pos[pos] = v[order[pos]]
    out_pos = np.zeros(m)
    if k_fwd > 0:
        _forward(aptr, apos, s0, rank, yA, n_uniq, plo, phi, k_fwd, mode, coef, g, w, wa, v_pos, NA, out_pos, acc)
    if k_adj > 0:
        _adjoint(aptr, apos, s0, rank, yA, n_uniq, plo, phi, k_adj, mode, coef, g, w, wa, v_pos, NP, out_pos)
    if out.shape[0]:
        for pos in range(m):
            out[order[pos]] += out_pos[pos]


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
