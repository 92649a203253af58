"""Vectorized order statistics over suffixes of a permutation (a test oracle).

This numpy merge-sort tree was the counting core of :mod:`aucopt.metrics` before the compiled
Fenwick-tree sweep replaced it; the tests keep it as an independent implementation.

The single primitive here answers, for many queries at once, "how many points of a suffix
of a fixed ordering have a smaller / equal value than mine, and what is their total weight".
It is the counting core of Harrell's C (points sorted by time, suffix = later times) and is
written so that weighted pair sums (e.g. ``sum_j w_j [v_j < v_q]``) can reuse it.

Method: a static merge-sort tree built level by level with numpy. At level ``L`` the
positions ``0 .. M-1`` (``M`` = ``len(order)`` rounded up to a power of two) are cut into
dyadic blocks of length ``2**L`` and each block is sorted by value. A suffix ``[s, M)``
is the disjoint union of at most ``log2 M + 1`` such blocks (walking upward, the block of
width ``2**L`` starting at the current position whenever its bit ``L`` is set), and inside a
block the counts are two ``searchsorted`` calls. All queries move through the levels
together, so the only Python loop is over the levels: ``O((m + q) log^2 m)`` time for ``m``
points and ``q`` queries, ``O(m + q)`` memory, no per-sample Python loop.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["SuffixCounts", "suffix_less_equal_counts"]


class SuffixCounts(NamedTuple):
    """Per-query results of :func:`suffix_less_equal_counts` (arrays of length ``n_queries``).

    ``less[k] = #{p >= start[k] : v[order[p]] < v[q_k]}``,
    ``equal[k] = #{p >= start[k] : v[order[p]] == v[q_k]}``;
    ``weight_less`` / ``weight_equal`` are the same sums with ``w[order[p]]`` in place of 1
    (``None`` when no weights were given).

    See Also
    --------
    suffix_less_equal_counts : returns these counts (with an example).
    """

    less: np.ndarray
    equal: np.ndarray
    weight_less: np.ndarray | None
    weight_equal: np.ndarray | None


def _dense_ranks(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Integer ranks ``0 .. k-1`` preserving ``<`` and ``==`` of ``values``; also ``k``."""
    uniq, inverse = np.unique(values, return_inverse=True)
    return inverse.astype(np.int64, copy=False).ravel(), len(uniq)


def _sorted_search(haystack: np.ndarray, needles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``searchsorted`` left and right, with the needles sorted first (cache-friendly)."""
    by_needle = np.argsort(needles, kind="stable")
    sorted_needles = needles[by_needle]
    lo = np.empty_like(by_needle)
    hi = np.empty_like(by_needle)
    lo[by_needle] = np.searchsorted(haystack, sorted_needles, side="left")
    hi[by_needle] = np.searchsorted(haystack, sorted_needles, side="right")
    return lo, hi


def suffix_less_equal_counts(order, start, values, queries, weights=None) -> SuffixCounts:  # noqa: PLR0915 - a plain brute-force oracle, kept literal
    """Count (and weigh) the points of each query's suffix with a smaller / equal value.

    Parameters
    ----------
    order : int array, shape (m,)
        A permutation of the point indices ``0 .. m-1`` (e.g. points sorted by time).
    start : int array, shape (n_queries,)
        Start position of each query's suffix in ``order``; ``0 <= start[k] <= m``
        (``start[k] == m`` is the empty suffix).
    values : array, shape (m,)
        Values compared with ``<`` and ``==`` (any sortable dtype, no NaN).
    queries : int array, shape (n_queries,)
        Point index ``q_k`` of each query; the query value is ``values[q_k]``.
    weights : float array, shape (m,), optional
        Per-point weights ``w_j`` for the weighted sums.

    Returns
    -------
    SuffixCounts
        With ``S_k = {order[p] : p >= start[k]}`` and ``x_k = values[queries[k]]``:
        ``less[k] = |{j in S_k : v_j < x_k}|``, ``equal[k] = |{j in S_k : v_j == x_k}|``,
        ``weight_less[k] = sum_{j in S_k, v_j < x_k} w_j`` and likewise ``weight_equal``.
        Counts are exact ``int64``; weighted sums are float64 differences of prefix sums
        (absolute error of order ``eps * sum_j |w_j| * log2 m``).

    See Also
    --------
    aucopt.metrics : Harrell's C, computed with these counts.

    Examples
    --------
    Points sorted by time; each query counts the later points with a smaller score:

    >>> import numpy as np
    >>> from order_reference import suffix_less_equal_counts
    >>> scores = np.array([0.9, 0.1, 0.5, 0.5])
    >>> counts = suffix_less_equal_counts(order=[0, 1, 2, 3], start=[1, 2], values=scores, queries=[0, 2])
    >>> counts.less.tolist(), counts.equal.tolist()
    ([3, 0], [0, 2])
    """
    order = np.asarray(order, dtype=np.int64).ravel()
    m = len(order)
    values = np.asarray(values).ravel()
    if len(values) != m:
        raise ValueError(f"values has {len(values)} entries but order has {m}.")
    if m and not np.array_equal(np.sort(order), np.arange(m)):
        raise ValueError("order must be a permutation of 0 .. len(order) - 1.")
    start = np.asarray(start, dtype=np.int64).ravel()
    queries = np.asarray(queries, dtype=np.int64).ravel()
    if len(start) != len(queries):
        raise ValueError(f"start has {len(start)} entries but queries has {len(queries)}.")
    if len(start) and (start.min() < 0 or start.max() > m):
        raise ValueError(f"start positions must lie in [0, {m}].")
    if len(queries) and (queries.min() < 0 or queries.max() >= m):
        raise ValueError(f"query indices must lie in [0, {m - 1}].")
    weighted = weights is not None
    if weighted:
        weights = np.asarray(weights, dtype=float).ravel()
        if len(weights) != m:
            raise ValueError(f"weights has {len(weights)} entries but order has {m}.")

    n_q = len(queries)
    less = np.zeros(n_q, dtype=np.int64)
    equal = np.zeros(n_q, dtype=np.int64)
    w_less = np.zeros(n_q) if weighted else None
    w_equal = np.zeros(n_q) if weighted else None
    if n_q == 0 or m == 0:
        return SuffixCounts(less, equal, w_less, w_equal)

    ranks, k = _dense_ranks(values)
    n_levels = max(int(np.ceil(np.log2(m))), 0)
    size = 1 << n_levels  # M, a power of two >= m
    # Rank of each position of ``order``; padding positions get rank k (never < or == a query).
    pos_rank = np.full(size, k, dtype=np.int64)
    pos_rank[:m] = ranks[order]
    if weighted:
        pos_weight = np.zeros(size)
        pos_weight[:m] = weights[order]
    q_rank = ranks[queries]
    stride = k + 1  # key = block * stride + rank sorts by block, then by rank
    perm = np.arange(size, dtype=np.int64)  # level 0: blocks of one position are sorted

    pointer = start.copy()  # next uncovered position of each query's suffix
    for level in range(n_levels + 1):
        width = 1 << level
        # Positions sorted by (block, rank). From level L-1 each new block is two sorted runs,
        # which the stable sort (timsort on int64) merges in near-linear time.
        keys = (perm // width) * stride + pos_rank[perm]
        if level:
            merge = np.argsort(keys, kind="stable")
            perm, keys = perm[merge], keys[merge]
        take = (pointer & width) != 0 if level < n_levels else pointer == 0
        if not np.any(take):
            continue
        p = pointer[take]
        block = p // width
        base = block * width
        r = q_rank[take]
        lo, hi = _sorted_search(keys, block * stride + r)
        less[take] += lo - base
        equal[take] += hi - lo
        if weighted:
            csum = np.concatenate(([0.0], np.cumsum(pos_weight[perm])))
            w_less[take] += csum[lo] - csum[base]
            w_equal[take] += csum[hi] - csum[lo]
        pointer[take] = p + width
    return SuffixCounts(less, equal, w_less, w_equal)
