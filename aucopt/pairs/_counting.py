"""Counting and listing the pairs below a margin (:func:`pair_counts`, :func:`violated_pairs`).

Part of the pair core (:mod:`aucopt.pairs.core` states the mathematics and re-exports these);
sorted storage is counted by the compiled sweeps, never listed, except by the one scan of
:func:`violated_pairs` that selects pairs for constraint generation.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .._lazy import lazy_module
from ._pairset import PairSet
from ._setup import INT, PairCore, Piece, checked_scores, scan_violators

_compiled = lazy_module("aucopt.pairs._compiled")  # numba: imported at the first evaluation

__all__ = ["PairCounts", "ViolatedPairs", "pair_counts", "violated_pairs"]


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


def pair_counts(pairs: PairSet, f: ArrayLike, threshold: float = 1.0) -> PairCounts:
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
    below = Piece(-np.inf, threshold, 0.0, 1.0, 0.0)
    core = PairCore(pairs, f, [threshold])
    m = core.m
    if core.explicit:
        hit = core.z < threshold
        return PairCounts(int(hit.sum()), np.bincount(core.i[hit], minlength=m).astype(INT),
                          np.bincount(core.j[hit], minlength=m).astype(INT))
    if core.n_anchors == 0:
        return PairCounts(0, np.zeros(m, dtype=INT), np.zeros(m, dtype=INT))
    first, second_pos = np.zeros(m), np.zeros(m)
    core.sweep([below], _compiled.COUNTS, 1, 1, NP=second_pos, out=first)
    second = np.empty(m, dtype=INT)
    second[core.order] = np.rint(second_pos)
    first = np.rint(first).astype(INT)
    return PairCounts(int(first.sum()), first, second)


# ============================================================================ violated pairs
class ViolatedPairs(NamedTuple):
    """The pairs with ``f_i - f_j < threshold`` found by :func:`violated_pairs`.

    Attributes
    ----------
    total : int
        Number of such pairs (positive weight, not skipped).
    positions : ndarray of int64
        Positions (in :meth:`~aucopt.pairs.PairSet.to_arrays` order) of the most violated of
        them: for every point, its ``per_point`` pairs of smallest margin as the upper point i
        and as the lower point j; sorted by margin, ascending.
    margins : ndarray of float64
        Their margins ``f_i - f_j``.

    See Also
    --------
    violated_pairs : returns these.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.pairs.core import violated_pairs
    >>> violated_pairs(PairSet.bipartite([1, 0]), np.array([0.5, 0.0])).total
    1
    """

    total: int
    positions: np.ndarray
    margins: np.ndarray


def violated_pairs(pairs: PairSet, f: ArrayLike, threshold: float = 1.0, *, per_point: int = 1,
                   skip: ArrayLike | None = None) -> ViolatedPairs:
    """Count the pairs with ``f_i - f_j < threshold`` and list, per point, the most violated.

    The pair-selection step of cutting-plane (constraint-generation) methods: one scan over the
    pairs finds, for every point, the ``per_point`` pairs of smallest margin ``f_i - f_j`` in which
    it is the upper point and those in which it is the lower point, so the selection covers
    every point with a violated pair instead of piling onto the few worst-scored ones. Pairs of
    weight 0 are never violated (they cost nothing); ``skip`` masks pairs already handled.

    Parameters
    ----------
    pairs : PairSet
        Any pair set.
    f : array-like of shape (n_points,)
        Finite scores.
    threshold : float, default=1.0
        The margin; ``numpy.inf`` counts every pair.
    per_point : int, default=1
        Pairs kept per point and side (k).
    skip : ndarray of bool, shape (n_pairs,), default=None
        Pairs (by position) to leave out of both the count and the selection.

    Returns
    -------
    ViolatedPairs
        ``(total, positions, margins)``; at most ``2 * per_point * n_points`` positions.

    See Also
    --------
    pair_counts : counts without selecting, in O(m log m).
    aucopt.lp.row_column_generation : adds these pairs as LP rows.

    Notes
    -----
    One pass over the pairs, O(n_pairs) time (compiled) and O(k m) memory besides ``skip``:
    listing the selected pairs needs the scan that the sorted sweeps of :func:`pair_counts`
    avoid, but never stores the pairs.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.pairs.core import violated_pairs
    >>> pairs = PairSet.bipartite([1, 1, 0, 0])
    >>> found = violated_pairs(pairs, np.array([1.5, 0.5, 1.0, 0.0]))
    >>> found.total  # (0, 3) has margin 1.5
    3
    >>> i, j, _ = pairs.pairs_at(found.positions)
    >>> [(int(a), int(b)) for a, b in zip(i, j)], found.margins.tolist()
    ([(1, 2), (0, 2), (1, 3)], [-0.5, 0.5, 0.5])
    """
    f = checked_scores(pairs, f)
    P = pairs.n_pairs
    k = int(per_point)
    if k < 1:
        raise ValueError(f"per_point={per_point!r} must be a positive integer.")
    skip = np.zeros(P, dtype=np.bool_) if skip is None else np.ascontiguousarray(skip, dtype=np.bool_)
    if skip.shape != (P,):
        raise ValueError(f"skip must have shape ({P},), got {skip.shape}.")
    total, pos, z = scan_violators(pairs, f, skip, threshold, k)
    pos, first_at = np.unique(pos, return_index=True)
    z = z[first_at]
    keep = pos >= 0
    pos, z = pos[keep], z[keep]
    by_margin = np.argsort(z, kind="stable")
    return ViolatedPairs(total, pos[by_margin], z[by_margin])
