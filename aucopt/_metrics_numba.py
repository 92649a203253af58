"""Compiled counting kernels behind :mod:`aucopt.metrics` (numba, compiled once per machine).

The callers sort with numpy and pass contiguous float64 / int64 / bool arrays, so each kernel
has one compiled signature (two for the Harrell pass: exact ``int64`` counts and float64
weighted sums). ``cache=True`` stores the machine code next to this module (or under
``NUMBA_CACHE_DIR``), so the compile cost is paid on the first call on a machine only.

Tie rule, shared by every kernel: for a tolerance ``tol >= 0`` (absolute, already scaled by
the caller) a value ``x`` is *below* ``v`` when ``fl(v - x) > tol``, *tied* with ``v`` when
``fl(|v - x|) <= tol`` and *above* it otherwise. ``fl(v - x)`` is monotone in both arguments,
so along sorted values the boundaries of the tied window only move forward: two pointers
find them in one linear pass, exactly as a comparison of every pair would.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["auc_counts", "auc_weighted", "harrell_counts", "harrell_weighted", "risk_ranks"]


@njit(cache=True, nogil=True)
def _windows(queries, values, tol):  # pragma: no cover - compiled
    """For sorted ``queries`` and sorted ``values``: ``lo[k] = #{x in values : q_k - x > tol}``
    and ``hi[k] = #{x in values : x - q_k <= tol}`` (the values below q_k, and below or tied)."""
    n_q, n_v = queries.shape[0], values.shape[0]
    lo = np.empty(n_q, dtype=np.int64)
    hi = np.empty(n_q, dtype=np.int64)
    a = 0
    b = 0
    for k in range(n_q):
        q = queries[k]
        while a < n_v and q - values[a] > tol:
            a += 1
        if b < a:
            b = a
        while b < n_v and not (values[b] - q > tol):
            b += 1
        lo[k] = a
        hi[k] = b
    return lo, hi


@njit(cache=True, nogil=True)
def auc_counts(pos_sorted, neg_sorted, tol):  # pragma: no cover - compiled
    """Σ over positives of #negatives below, and of #negatives below or tied (int64).

    Parameters
    ----------
    pos_sorted, neg_sorted : float64 arrays, sorted ascending
        The positives' and the negatives' scores.
    tol : float
        Absolute tie tolerance.

    Returns
    -------
    wins, at_most : int
    """
    wins = 0
    at_most = 0
    n_v = neg_sorted.shape[0]
    a = 0
    b = 0
    for k in range(pos_sorted.shape[0]):
        q = pos_sorted[k]
        while a < n_v and q - neg_sorted[a] > tol:
            a += 1
        if b < a:
            b = a
        while b < n_v and not (neg_sorted[b] - q > tol):
            b += 1
        wins += a
        at_most += b
    return wins, at_most


@njit(cache=True, nogil=True)
def auc_weighted(pos_sorted, pos_weight, neg_sorted, neg_weight, tol):  # pragma: no cover - compiled
    """Σ_i w_i Σ_{j below i} w_j and Σ_i w_i Σ_{j tied with i} w_j over positives i, negatives j.

    Parameters
    ----------
    pos_sorted, neg_sorted : float64 arrays, sorted ascending
        The scores of each class.
    pos_weight, neg_weight : float64 arrays
        Their weights, in the same (sorted) order.
    tol : float
        Absolute tie tolerance.

    Returns
    -------
    wins, tied : float
    """
    n_v = neg_sorted.shape[0]
    cum = np.empty(n_v + 1)
    cum[0] = 0.0
    for j in range(n_v):
        cum[j + 1] = cum[j] + neg_weight[j]
    lo, hi = _windows(pos_sorted, neg_sorted, tol)
    wins = 0.0
    tied = 0.0
    for k in range(pos_sorted.shape[0]):
        below = cum[lo[k]]
        wins += pos_weight[k] * below
        tied += pos_weight[k] * (cum[hi[k]] - below)
    return wins, tied


@njit(cache=True, nogil=True)
def risk_ranks(risk_t, by_risk, tol):  # pragma: no cover - compiled
    """Dense ranks of the risks and the tie window of each distinct risk.

    Parameters
    ----------
    risk_t : float64 array
        The risks.
    by_risk : int64 array
        An ascending order of ``risk_t`` (``np.argsort(risk_t)``: numpy's sort is faster).
    tol : float
        Absolute tie tolerance.

    Returns
    -------
    rank : int64 array
        ``rank[k]`` is the index of ``risk_t[k]`` among the distinct risks, sorted ascending.
    lo, hi : int64 arrays, one entry per distinct risk
        The numbers of distinct risks below / below or tied with it.
    """
    m = risk_t.shape[0]
    rank = np.empty(m, dtype=np.int64)
    distinct = np.empty(m)
    n_distinct = 0
    for p in range(m):
        k = by_risk[p]
        v = risk_t[k]
        if n_distinct == 0 or v != distinct[n_distinct - 1]:
            distinct[n_distinct] = v
            n_distinct += 1
        rank[k] = n_distinct - 1
    lo, hi = _windows(distinct[:n_distinct], distinct[:n_distinct], tol)
    return rank, lo, hi


@njit(cache=True, nogil=True)
def harrell_counts(time_t, event_t, rank, lo, hi):  # pragma: no cover - compiled
    """Exact counts over Harrell's comparable pairs, one Fenwick-tree sweep (int64).

    Parameters
    ----------
    time_t : float64 array, sorted ascending
        The times.
    event_t : bool array
        The events, in the same order.
    rank : int64 array
        Each subject's dense risk rank, in the same order.
    lo, hi : int64 arrays
        The tie window of each rank (:func:`risk_ranks`).

    Returns
    -------
    concordant, tied_risk, comparable : int

    Notes
    -----
    The time groups are visited from the latest down. Inside a group the censored subjects
    enter the tree first (they are partners of the group's events), then each event queries
    the tree (every subject in it is a partner: a later time, or the same time and censored),
    then the events enter.
    """
    m = time_t.shape[0]
    size = lo.shape[0]
    tree = np.zeros(size + 1, dtype=np.int64)
    concordant = 0
    tied = 0
    comparable = 0
    inserted = 0
    end = m
    while end > 0:
        t = time_t[end - 1]
        begin = end - 1
        while begin > 0 and time_t[begin - 1] == t:
            begin -= 1
        has_event = False
        for k in range(begin, end):
            if event_t[k]:
                has_event = True
            else:
                i = rank[k] + 1
                while i <= size:
                    tree[i] += 1
                    i += i & -i
                inserted += 1
        if has_event:
            for k in range(begin, end):
                if event_t[k]:
                    a = lo[rank[k]]
                    b = hi[rank[k]]
                    s = 0
                    i = a
                    while i > 0:
                        s += tree[i]
                        i -= i & -i
                    concordant += s
                    # ranks [a, b): walk both ends down to their common node (short for narrow windows)
                    while b > a:
                        tied += tree[b]
                        b -= b & -b
                    while a > b:
                        tied -= tree[a]
                        a -= a & -a
                    comparable += inserted
            for k in range(begin, end):
                if event_t[k]:
                    i = rank[k] + 1
                    while i <= size:
                        tree[i] += 1
                        i += i & -i
                    inserted += 1
        end = begin
    return concordant, tied, comparable


@njit(cache=True, nogil=True)
def harrell_weighted(time_t, event_t, weight_t, rank, lo, hi):  # pragma: no cover - compiled
    """Weighted sums Σ w_i w_j over Harrell's comparable pairs (float64), as :func:`harrell_counts`.

    Returns
    -------
    concordant, tied_risk, comparable : float
    """
    m = time_t.shape[0]
    size = lo.shape[0]
    tree = np.zeros(size + 1)
    concordant = 0.0
    tied = 0.0
    comparable = 0.0
    inserted = 0.0
    end = m
    while end > 0:
        t = time_t[end - 1]
        begin = end - 1
        while begin > 0 and time_t[begin - 1] == t:
            begin -= 1
        has_event = False
        for k in range(begin, end):
            if event_t[k]:
                has_event = True
            else:
                w = weight_t[k]
                i = rank[k] + 1
                while i <= size:
                    tree[i] += w
                    i += i & -i
                inserted += w
        if has_event:
            for k in range(begin, end):
                if event_t[k]:
                    a = lo[rank[k]]
                    b = hi[rank[k]]
                    below = 0.0
                    i = a
                    while i > 0:
                        below += tree[i]
                        i -= i & -i
                    within = 0.0
                    while b > a:
                        within += tree[b]
                        b -= b & -b
                    while a > b:
                        within -= tree[a]
                        a -= a & -a
                    w = weight_t[k]
                    concordant += w * below
                    tied += w * within
                    comparable += w * inserted
            for k in range(begin, end):
                if event_t[k]:
                    w = weight_t[k]
                    i = rank[k] + 1
                    while i <= size:
                        tree[i] += w
                        i += i & -i
                    inserted += w
        end = begin
    return concordant, tied, comparable

