"""Compiled counting kernels behind :mod:`aucopt.metrics` (numba, compiled once per machine).

The callers sort (with :func:`argsort`: numpy's argsort, or numpy's sort of packed integer keys
on large arrays) and pass contiguous float64 / int64 / bool arrays, so each kernel has one
compiled signature; the Harrell sweep has two functions, exact ``int64`` counts and float64
weighted sums. ``cache=True`` stores the machine code next to this module (or under
``NUMBA_CACHE_DIR``), so the compile cost is paid on the first call on a machine only.

Tie rule, shared by every kernel: for a tolerance ``tol >= 0`` (absolute, already scaled by
the caller) a value ``x`` is *below* ``v`` when ``fl(v - x) > tol``, *tied* with ``v`` when
``fl(|v - x|) <= tol`` and *above* it otherwise. ``fl(v - x)`` is monotone in both arguments,
so along sorted values the boundaries of the tied window only move forward: two pointers
find them in one linear pass, exactly as a comparison of every pair would.
"""

from __future__ import annotations

import numpy as np

from ._numba import njit

__all__ = ["accuracy_cut", "argsort", "auc_counts", "auc_weighted", "harrell_counts", "harrell_weighted", "risk_ranks"]


@njit(cache=True, nogil=True)
def _packed_keys(values, shift):  # pragma: no cover - compiled
    """Order-preserving unsigned keys of ``values``, low ``shift`` bits replaced by the index."""
    n = values.shape[0]
    out = np.empty(n, dtype=np.uint64)
    sign = np.uint64(1) << np.uint64(63)
    s = np.uint64(shift)
    for k in range(n):
        b = np.float64(values[k] + 0.0).view(np.uint64)  # + 0.0: -0.0 becomes 0.0
        key = ~b if b & sign else b | sign
        out[k] = ((key >> s) << s) | np.uint64(k)
    return out


@njit(cache=True, nogil=True)
def _unpacked_order(packed, sorted_values, values, shift):  # pragma: no cover - compiled
    """The indices held by the sorted packed keys, sorted by value where the keys were cut short.

    A run of equal truncated keys holds the same positions in ``packed`` and in
    ``sorted_values``; it needs sorting by value when its first and last sorted values differ.
    Short runs are insertion-sorted; on a long one this returns False (the caller falls back
    to numpy's argsort).
    """
    n = packed.shape[0]
    s = np.uint64(shift)
    mask = (np.uint64(1) << s) - np.uint64(1)
    sign = np.uint64(1) << np.uint64(63)
    order = np.empty(n, dtype=np.int64)
    for k in range(n):
        order[k] = np.int64(packed[k] & mask)
    begin = 0
    while begin < n:
        b = np.float64(sorted_values[begin] + 0.0).view(np.uint64)
        high = (~b if b & sign else b | sign) >> s
        end = begin + 1
        while end < n:
            b = np.float64(sorted_values[end] + 0.0).view(np.uint64)
            if ((~b if b & sign else b | sign) >> s) != high:
                break
            end += 1
        if sorted_values[begin] != sorted_values[end - 1]:  # distinct values, one truncated key
            if end - begin > 64:
                return order, False
            for q in range(begin + 1, end):
                item = order[q]
                v = values[item]
                r = q
                while r > begin and values[order[r - 1]] > v:
                    order[r] = order[r - 1]
                    r -= 1
                order[r] = item
        begin = end
    return order, True


PACKED_SORT_MIN = 2_000_000
"""Arrays at least this long are ordered by :func:`argsort`'s packed-key sort, shorter ones by
:func:`numpy.argsort` (faster there; its time grows faster than n log n on larger arrays)."""


def argsort(values):
    """An ascending order of a float64 array and the sorted values, faster than
    :func:`numpy.argsort` on large inputs.

    Below :data:`PACKED_SORT_MIN` entries this is :func:`numpy.argsort`. Above, the keys
    (order-preserving 64-bit integers of the values, their low bits replaced by the index) are
    sorted with :func:`numpy.sort`, whose vectorized integer sort is far faster than
    its argsort; so are the values. Distinct values that differ only in the replaced bits
    (within about ``2**(b - 52)`` of each other, relative, for ``b`` index bits: ``2**-28`` at
    10⁷ entries) are then put in order, by insertion in short runs, by numpy's argsort of all
    values when a run is long. Equal values come in arbitrary order.

    Parameters
    ----------
    values : array of float64 (any strides)

    Returns
    -------
    order : int64 array
        An order with ``values[order]`` ascending (``-0.0`` and ``0.0`` count as equal).
    sorted_values : float64 array
        ``np.sort(values)``.
    """
    values = np.ascontiguousarray(values, dtype=np.float64)  # one compiled signature
    if len(values) < PACKED_SORT_MIN:
        order = np.argsort(values)
        return order, values[order]
    shift = max(len(values) - 1, 0).bit_length()
    sorted_values = np.sort(values)
    order, done = _unpacked_order(np.sort(_packed_keys(values, shift)), sorted_values, values, shift)
    return (order if done else np.argsort(values)), sorted_values


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
def risk_ranks(sorted_risk, by_risk, tol):  # pragma: no cover - compiled
    """Dense ranks of the risks and the tie window of each distinct risk.

    Parameters
    ----------
    sorted_risk : float64 array
        The risks, sorted ascending.
    by_risk : int64 array
        The order that sorts them (:func:`argsort`).
    tol : float
        Absolute tie tolerance.

    Returns
    -------
    rank : int64 array
        ``rank[by_risk[p]]`` is the index of ``sorted_risk[p]`` among the distinct risks.
    lo, hi : int64 arrays, one entry per distinct risk
        The numbers of distinct risks below / below or tied with it.
    """
    m = sorted_risk.shape[0]
    rank = np.empty(m, dtype=np.int64)
    distinct = np.empty(m)
    n_distinct = 0
    for p in range(m):
        v = sorted_risk[p]
        if n_distinct == 0 or v != distinct[n_distinct - 1]:
            distinct[n_distinct] = v
            n_distinct += 1
        rank[by_risk[p]] = n_distinct - 1
    lo, hi = _windows(distinct[:n_distinct], distinct[:n_distinct], tol)
    return rank, lo, hi


@njit(cache=True, nogil=True, inline="always")
def _tree_insert(tree, r, w):  # pragma: no cover - compiled
    """Add ``w`` at rank r (0-based) of a Fenwick tree (``tree[0]`` unused, always 0)."""
    size = tree.shape[0] - 1
    i = r + 1
    while i <= size:
        tree[i] += w
        i += i & -i


@njit(cache=True, nogil=True, inline="always")
def _tree_below(tree, a):  # pragma: no cover - compiled
    """The sum over ranks ``< a``."""
    s = tree[0]
    i = a
    while i > 0:
        s += tree[i]
        i -= i & -i
    return s


@njit(cache=True, nogil=True, inline="always")
def _tree_window(tree, a, b):  # pragma: no cover - compiled
    """The sum over ranks ``[a, b)``: both ends walk down to their common node (short for narrow windows)."""
    s = tree[0]
    while b > a:
        s += tree[b]
        b -= b & -b
    while a > b:
        s -= tree[a]
        a -= a & -a
    return s


@njit(cache=True, nogil=True, inline="always")
def _insert_group(tree, event_t, weight_t, rank, begin, end, events, inserted):  # pragma: no cover - compiled
    """Insert the subjects ``begin:end`` whose event flag is ``events`` (weight 1 when ``weight_t`` is
    empty); returns ``inserted`` plus their weights, added one by one, and whether the group has an event
    (inserting the censored subjects, ``events=False``: whether any subject was left out)."""
    weighted = weight_t.shape[0] > 0
    one = tree[0] + 1  # 1 in the tree's type
    has_event = False
    for k in range(begin, end):
        if event_t[k] != events:
            has_event = True
            continue
        w = weight_t[k] if weighted else one
        _tree_insert(tree, rank[k], w)
        inserted += w
    return inserted, has_event or events


@njit(cache=True, nogil=True)
def _harrell_sweep(time_t, event_t, weight_t, rank, lo, hi, tree, below_out, within_out,
                   partners_out):  # pragma: no cover - compiled
    """The one Fenwick-tree sweep over Harrell's comparable pairs behind every Harrell kernel.

    ``tree`` (``lo.shape[0] + 1`` zeros) sets the arithmetic: int64 for exact counts, float64 for
    weighted sums. ``weight_t`` (in the time order) weighs each subject; an empty array weighs every
    subject 1. Each event k adds ``w_k × (partners below its tie window)`` to ``concordant``,
    ``w_k × (partners inside it)`` to ``tied`` and ``w_k × (all its partners)`` to ``comparable``
    (partners counted by their weights), the sums returned; with non-empty ``below_out``,
    ``within_out``, ``partners_out`` (length m) the three partner sums of each event are also stored.

    The time groups are visited from the latest down. Inside a group the censored subjects
    enter the tree first (they are partners of the group's events), then each event queries
    the tree (every subject in it is a partner: a later time, or the same time and censored),
    then the events enter.
    """
    weighted = weight_t.shape[0] > 0
    per_event = below_out.shape[0] > 0
    concordant = tied = comparable = inserted = tree[0]
    end = time_t.shape[0]
    while end > 0:
        begin = end - 1
        while begin > 0 and time_t[begin - 1] == time_t[end - 1]:
            begin -= 1
        inserted, has_event = _insert_group(tree, event_t, weight_t, rank, begin, end, False, inserted)
        if not has_event:
            end = begin
            continue
        for k in range(begin, end):
            if not event_t[k]:
                continue
            a = lo[rank[k]]
            below = _tree_below(tree, a)
            within = _tree_window(tree, a, hi[rank[k]])
            if per_event:
                below_out[k] = below
                within_out[k] = within
                partners_out[k] = inserted
            w = weight_t[k] if weighted else tree[0] + 1
            concordant += w * below
            tied += w * within
            comparable += w * inserted
        inserted, _ = _insert_group(tree, event_t, weight_t, rank, begin, end, True, inserted)
        end = begin
    return concordant, tied, comparable


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
    The sweep of :func:`_harrell_sweep`, every subject weighing 1.
    """
    none = np.zeros(0, dtype=np.int64)
    tree = np.zeros(lo.shape[0] + 1, dtype=np.int64)
    return _harrell_sweep(time_t, event_t, none, rank, lo, hi, tree, none, none, none)


@njit(cache=True, nogil=True)
def harrell_weighted(time_t, event_t, weight_t, rank, lo, hi):  # pragma: no cover - compiled
    """Weighted sums Σ w_i w_j over Harrell's comparable pairs (float64), as :func:`harrell_counts`.

    Returns
    -------
    concordant, tied_risk, comparable : float
    """
    none = np.zeros(0)
    return _harrell_sweep(time_t, event_t, weight_t, rank, lo, hi, np.zeros(lo.shape[0] + 1), none, none, none)


@njit(cache=True, nogil=True)
def harrell_per_event(time_t, event_t, rank, lo, hi):  # pragma: no cover - compiled
    """Per-subject counts over Harrell's comparable pairs, the sweep of :func:`harrell_counts`.

    For each event k (in the given time order): ``below[k]`` partners j with risk below its
    tie window, ``within[k]`` partners inside it and ``partners[k]`` all its partners (the
    subjects with a later time, or the same time and censored); zero for censored subjects.
    A weight that depends on the earlier subject only (Uno's 1/Ĝ(t_i)², a horizon) then
    multiplies these integer counts: ``Σ_k w_k below[k]`` etc.

    Returns
    -------
    below, within, partners : int64 arrays of shape (m,)
    """
    m = time_t.shape[0]
    below = np.zeros(m, dtype=np.int64)
    within = np.zeros(m, dtype=np.int64)
    partners = np.zeros(m, dtype=np.int64)
    tree = np.zeros(lo.shape[0] + 1, dtype=np.int64)
    _harrell_sweep(time_t, event_t, np.zeros(0, dtype=np.int64), rank, lo, hi, tree, below, within, partners)
    return below, within, partners


@njit(cache=True, nogil=True)
def accuracy_cut(order, scores, positive, weight):  # pragma: no cover - compiled
    """The cut of the best (weighted) accuracy of ``scores > τ`` along the ascending ``order`` (ties
    by index): the number k of sorted scores below the cut (0 … n, only between distinct scores;
    the first best), and the sorted scores on either side of it (the smallest and the largest for
    k = 0 and k = n). The gain of cut k is Σ over the first k of (+w for a negative, −w for a
    positive), summed in order; ``weight`` empty: weight 1."""
    n = order.shape[0]
    best_k, best_gain, gain = 0, 0.0, 0.0
    first = last = scores[order[0]]
    below = above = first
    for q in range(n):
        i = order[q]
        x = scores[i]
        if q > 0 and x > last and gain > best_gain:
            best_k, best_gain, below, above = q, gain, last, x
        w = weight[i] if weight.shape[0] else 1.0
        gain += -w if positive[i] else w
        last = x
    if gain > best_gain:
        best_k, below, above = n, last, last
    return best_k, first, below, above
