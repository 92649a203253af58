"""Compiled merge sweeps of the sorted-pair core for one shared suffix (bipartite pairs and the like).

Private to :mod:`aucopt.pairs._setup`, which chooses this path, and :mod:`aucopt.pairs.core`, which
states the mathematics and the tie rules. When every anchor pairs with the same suffix of the time
order, and the anchors are the positions before it, the two-dimensional dominance sums of the
general sweeps (:mod:`aucopt.pairs._sweeps`) become one-dimensional: anchor i's partners with
``z_ij = f_i - f_j >= b`` are the partners of the smallest scores, a prefix of the partners in
ascending score order, and the prefix grows with ``f_i``. The sorted-pair trick of Chapelle &
Keerthi (2010) is then a merge of two sorted lists:

* ``forward``: the anchors in ascending score order, and per cut ``b`` a pointer over the partners
  that takes in every partner with ``fl(f_i - f_j) >= b``; each anchor reads the running sums of
  its pieces (the prefix sums of the general sweeps);
* ``adjoint``: the partners in ascending score order, and per cut a pointer over the anchors that
  takes in every anchor with ``fl(f_i - f_j) < b`` (for a fixed partner, a prefix of the anchors,
  which grows with ``f_j``); each partner reads the running sums of the anchors' rows.

The predicates are evaluated in float64 as the elementwise definition does (``fl(x - u)`` is
monotone in both arguments), so ties and scores on a breakpoint are classified exactly. The lists
hold the scores, the point indices and the weights in ascending score order (:func:`fill_lists`,
built once per score vector from the packed-key sort of :mod:`aucopt.pairs._sweeps`); every pass
of a sweep then reads and writes memory in order, and its terms reach point order by one scatter
per list. What a point contributes and what an anchor or a partner collects are the general
sweeps' (:mod:`aucopt.pairs._compiled`); the Hessian's sums ``NA`` and ``NP`` are kept in list
order (:class:`aucopt.pairs._setup.PairCore` converts them for the kernels that read the general
layout).
"""

from __future__ import annotations

import numpy as np

from .._numba import njit
from ._compiled import MATVEC, _collect_anchor, _columns, _partner_terms
from ._sweeps import _cut_rows, _wt

__all__ = ["fill_lists", "merge_adjoint", "merge_forward", "role_counts"]


@njit(cache=True, nogil=True, inline="always")
def _at(x, i):
    """``x[i]``, or 0 for an empty ``x`` (no direction)."""
    return x[i] if x.shape[0] else 0.0


# ============================================================================ the lists
@njit(cache=True, nogil=True)
def role_counts(keys, shift, role, lo, hi):
    """The anchors (role 1) and partners (role 2) among the sorted packed keys ``lo <= q < hi``
    (their low ``shift`` bits hold the point index)."""
    low = (np.uint64(1) << np.uint64(shift)) - np.uint64(1)
    na = npt = 0
    for q in range(lo, hi):
        r = role[np.int64(keys[q] & low)]
        if r == 1:
            na += 1
        elif r == 2:
            npt += 1
    return na, npt


@njit(cache=True, nogil=True)
def fill_lists(keys, shift, role, f, lo, hi, ia, ip, A_val, A_pt, P_val, P_pt):
    """Write the anchors and the partners of the sorted keys ``lo <= q < hi`` from list entries ``ia``
    and ``ip`` on: score and point index."""
    low = (np.uint64(1) << np.uint64(shift)) - np.uint64(1)
    for q in range(lo, hi):
        i = np.int64(keys[q] & low)
        r = role[i]
        if r == 1:
            A_val[ia] = f[i]
            A_pt[ia] = i
            ia += 1
        elif r == 2:
            P_val[ip] = f[i]
            P_pt[ip] = i
            ip += 1


# ============================================================================ the sweeps
@njit(cache=True, nogil=True)
def merge_forward(cuts, plo, phi, coef, mode, centre, A_val, A_w, A_v, P_val, P_w, P_v, NA, outA, acc):
    """Every anchor's piece sums by a merge with the partners (one pointer per cut), then its terms, in
    the anchors' list order: ``outA`` (empty: none), ``NA`` written in the LOSS mode and read in the
    MATVEC mode, the summed scalars to ``acc``. ``A_v`` / ``P_v``: the direction in list order (or
    empty)."""
    na, npt, nc, npc = A_val.shape[0], P_val.shape[0], cuts.shape[0], plo.shape[0]
    T = np.zeros(6)  # every partner
    for j in range(npt):
        x = _columns(mode, _wt(P_w, j), P_val[j] - centre, _at(P_v, j))
        for col in range(6):
            T[col] += x[col]
    R = np.zeros((nc, 6))  # per cut: the partners with fl(f_i - f_j) >= cut so far
    ptr = np.zeros(nc, np.int64)
    S = np.zeros((npc, 6))
    has_out = outA.shape[0] > 0
    for i in range(na):
        fi = A_val[i]
        for c in range(nc):
            b = cuts[c]
            j = ptr[c]
            while j < npt and fi - P_val[j] >= b:
                x = _columns(mode, _wt(P_w, j), P_val[j] - centre, _at(P_v, j))
                for col in range(6):
                    R[c, col] += x[col]
                j += 1
            ptr[c] = j
        for p in range(npc):  # piece [lower, upper): (z >= lower) - (z >= upper)
            for col in range(6):
                S[p, col] = (T[col] if plo[p] < 0 else R[plo[p], col]) - R[phi[p], col]
        do = _collect_anchor(mode, S, coef, _wt(A_w, i), fi - centre, _at(A_v, i), NA, i, acc)
        if has_out:
            outA[i] = do


@njit(cache=True, nogil=True)
def merge_adjoint(cuts, plo, phi, coef, mode, centre, A_val, A_w, A_v, P_val, P_w, P_v, NP, outP):
    """Every partner's sums of the anchors' rows by a merge with the anchors (one pointer per cut),
    then its terms, in the partners' list order: ``outP`` (empty: none), ``NP`` written (LOSS,
    COUNTS) or read (MATVEC)."""
    na, npt, nc = A_val.shape[0], P_val.shape[0], cuts.shape[0]
    G = np.zeros((nc, 2))  # per cut: the rows of the anchors with fl(f_i - f_j) < cut so far
    ptr = np.zeros(nc, np.int64)
    has_out = outP.shape[0] > 0
    for j in range(npt):
        fj = P_val[j]
        G0 = G1 = 0.0
        for c in range(nc):
            b = cuts[c]
            i = ptr[c]
            while i < na and A_val[i] - fj < b:
                y0, y1 = _cut_rows(mode, plo, phi, coef, c, _wt(A_w, i), A_val[i] - centre, _at(A_v, i))
                G[c, 0] += y0
                G[c, 1] += y1
                i += 1
            ptr[c] = i
            G0 += G[c, 0]
            G1 += G[c, 1]
        do, dn = _partner_terms(mode, G0, G1, _wt(P_w, j), fj - centre, _at(P_v, j), NP[j] if mode == MATVEC else 0.0)
        if has_out:
            outP[j] = do
        if mode != MATVEC and NP.shape[0]:
            NP[j] = dn
