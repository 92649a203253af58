"""Agglomerative local clustering for the reduced LP Ranker, LPR(clus) (Ataman 2007, Sec. 4.3.1).

Ataman (2007), Fig. 4.2/4.3: merge *nearest same-class* centers into their weighted mean and
freeze ("flag") nearest *opposite-class* pairs, so single-class regions collapse into a few
weighted centers while class transitions stay unclustered. There is no numeric parameter (no k,
no distance threshold): the class transition is the stopping criterion.

Algorithm (Euclidean distance in the given, already scaled, input space)::

    c_l ← x_l,  w_l ← 1,  flagged_l ← false                       for every point l
    loop:
        (a, b) ← closest pair of *candidate* centers (see variants); stop if there is none
        if y_a == y_b (both unflagged):  c ← (w_a c_a + w_b c_b)/(w_a + w_b),  w ← w_a + w_b,
                                          c replaces a and b and is unflagged
        elif y_a != y_b:                  flag a and b

so every center is the mean of its member points and Σ_{Ω+} w = n⁺, Σ_{Ω−} w = n⁻.

Fig. 4.2 leaves open whether flagged centers still take part in the search. ``variant``
selects the reading:

* ``"b"`` (literal): flagged centers are invisible; candidates are pairs of unflagged centers;
  stop when fewer than 2 unflagged centers remain. Can merge *across* a flagged
  opposite-class center and therefore reduces hardest.
* ``"bp"``: candidates are pairs with at least one unflagged member. A closest pair that is
  same-class with one flagged member flags the other one too (no merge). Ends with every
  center flagged.
* ``"f"``: as ``"bp"``, but such a same-class pair is only *blocked* (never considered
  again); nothing is flagged. Also ends with every center flagged.

The reduced LP (Ataman 2007, eq. 4.1) then has one constraint per center pair
(s, t) ∈ Ω+ × Ω− with weight w_s·w_t, the number of original pair constraints it replaces;
Σ_{s,t} w_s w_t = n⁺n⁻ so the loss keeps the scale of the full LP. :meth:`LocalClusters.pairs`
gives that weighted pair set.

Ties in distance are broken deterministically: among equidistant candidate pairs the one with
the lexicographically smallest (r_small, r_large) wins, where a center's *representative* r is
the smallest original point index among its members (a merged center inherits the smaller one).

Complexity. A dense m × m matrix of squared distances (∞ for non-candidate pairs) and, for
every *unflagged* center (each candidate pair has one), its exact nearest candidate are kept;
each step (merge, flag or block) costs O(m) vectorised work, plus O(m·d) for a merged center's
new row and O(m) per unflagged center whose nearest neighbour was the merged / flagged one.
There are ≤ m − 1 merges, ≤ m flag steps and (variant "f") one block per blocked pair, in
practice O(m), so a run is O(m²·d) time in practice (O(m³) only in contrived worst cases)
against O(m³) for the naive loop, with **O(m²) memory** (about 12·m² bytes at the peak, the square matrix and pdist's
condensed vector: 48 MB at m = 2,000, 300 MB at m = 5,000). Above ``max_bytes`` a
:class:`~aucopt.exceptions.ProblemTooLargeError` is raised before any work, naming a path whose
own estimate fits the budget.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy.spatial.distance import pdist, squareform
from sklearn.utils._param_validation import StrOptions, validate_parameter_constraints

from .. import _memory
from .._validation import as_event_indicator
from ..base import MAX_BYTES_CONSTRAINT
from ..pairs import DEFAULT_MAX_BYTES, PairSet

__all__ = ["LocalClusters", "local_clustering"]

VARIANTS = ("b", "bp", "f")

#: constraints of the options of :func:`local_clustering`
CLUSTERING_CONSTRAINTS = {
    "variant": [StrOptions(set(VARIANTS))],
    **MAX_BYTES_CONSTRAINT,
}


@dataclass(frozen=True)
class LocalClusters:
    """Result of :func:`local_clustering`: the weighted centers Ω of the reduced LP.

    Centers are ordered by their smallest member index; every center holds points of one class.

    Attributes
    ----------
    centers : ndarray of shape (k, d)
        The centers, each the mean of its member points.
    weights : ndarray of int, shape (k,)
        Number of original points per center, w_s (they sum to m).
    positive : ndarray of bool, shape (k,)
        Class of each center.
    labels : ndarray of int, shape (m,)
        The center index of each original point.
    flagged : ndarray of bool, shape (k,)
        Final flag of each center.
    variant : {"b", "bp", "f"}
        The reading of Fig. 4.2 used (see :func:`local_clustering`).
    n_points_before, n_points_after : int
        m and k.
    n_pairs_before, n_pairs_after : int
        n⁺n⁻ and k⁺k⁻, the pair constraints of the full and the reduced LP.
    n_merges : int
        Merges performed.
    n_blocked : int
        Pairs blocked (variant ``"f"`` only).

    See Also
    --------
    local_clustering : The function returning this result.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.lp import local_clustering
    >>> X = np.array([[0.0], [0.1], [0.2], [1.0], [1.1]])
    >>> clusters = local_clustering(X, [1, 1, 1, 0, 0])
    >>> clusters.weights.tolist(), clusters.n_pairs_before, clusters.n_pairs_after
    ([3, 2], 6, 1)
    >>> clusters.pairs().total_weight()  # the reduced pairs keep the weight n⁺n⁻
    6.0
    """

    centers: np.ndarray
    weights: np.ndarray
    positive: np.ndarray
    labels: np.ndarray
    flagged: np.ndarray
    variant: str
    n_points_before: int
    n_points_after: int
    n_pairs_before: int
    n_pairs_after: int
    n_merges: int
    n_blocked: int

    def pairs(self) -> PairSet:
        """Reduced pairs Ω+ × Ω− with product weights w_s·w_t (they sum to n⁺n⁻).

        Returns
        -------
        pairs : PairSet
            Bipartite pairs over the centers, the pair set of the reduced LP (Ataman 2007,
            eq. 4.1).
        """
        return PairSet.bipartite(self.positive, point_weights=self.weights.astype(float))

    @property
    def point_reduction(self) -> float:
        """Fraction of points removed, (m − k)/m (Ataman 2007, Table 4.3 "%reduc." / 100)."""
        return 1.0 - self.n_points_after / self.n_points_before

    @property
    def pair_reduction(self) -> float:
        """Fraction of pair constraints removed, (n⁺n⁻ − k⁺k⁻)/(n⁺n⁻)."""
        return 1.0 - self.n_pairs_after / self.n_pairs_before


def local_clustering(X: ArrayLike, y_positive: ArrayLike, variant: str = "b", *,
                     max_bytes: float | None = DEFAULT_MAX_BYTES) -> LocalClusters:
    """Agglomerative local clustering of Ataman (2007), Fig. 4.2, for the reduced LP Ranker.

    Repeatedly takes the closest pair of candidate centers: two unflagged centers of the same
    class merge into their weighted mean; two centers of opposite classes are flagged (frozen).
    Single-class regions collapse into a few weighted centers while the class boundary stays
    unclustered; there is no number of clusters or distance threshold to choose.

    Parameters
    ----------
    X : array-like of shape (m, d)
        The points, in the scaling used for the kernel (distances are Euclidean in X).
    y_positive : array-like of shape (m,)
        Boolean (or 0/1) class indicator; both classes must be present.
    variant : {"b", "bp", "f"}, default="b"
        How flagged centers take part in the search, which Fig. 4.2 leaves open. ``"b"``
        (literal): flagged centers are invisible, so merges can cross them (strongest
        reduction). ``"bp"``: pairs with at least one unflagged member are candidates; a
        same-class pair with one flagged member flags the other one. ``"f"``: as ``"bp"``, but
        such a pair is only blocked. Ties in distance go to the pair of smallest
        representatives (smallest member indices).
    max_bytes : float or None, default=2 GiB
        Memory budget for the m × m distance matrix (about 12·m² bytes with pdist's condensed
        vector); a larger m raises
        :class:`~aucopt.exceptions.ProblemTooLargeError` before any work. None: no limit.

    Returns
    -------
    clusters : LocalClusters
        Centers, weights, classes, point-to-center labels and the reduction counts.

    Raises
    ------
    ProblemTooLargeError
        When the distance matrix would exceed ``max_bytes``.

    See Also
    --------
    aucopt.LPRanker : ``method="clustering"`` solves the reduced LP on these centers.
    LocalClusters.pairs : The weighted center pairs of the reduced LP.

    Notes
    -----
    The reduced LP (Ataman 2007, eq. 4.1) has one constraint per center pair
    (s, t) ∈ Ω+ × Ω− with weight w_s·w_t, the number of original pair constraints it replaces,
    so the loss keeps the scale of the full LP. A run takes O(m²·d) time in practice and
    O(m²) memory.

    References
    ----------
    .. [1] Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming for
       problems with binary output*. PhD thesis, University of Iowa.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from aucopt.lp import local_clustering
    >>> X, y = make_classification(n_samples=60, random_state=0)
    >>> clusters = local_clustering(X, y == 1, "f")
    >>> int(clusters.weights.sum()), clusters.n_points_after < 60
    (60, True)
    """
    points, pos = _check_input(X, y_positive, variant, max_bytes)
    run = _Agglomeration(points, pos, variant)
    while (pair := run.closest()) is not None:
        run.step(*pair)
    return run.clusters()


class _Agglomeration:
    """The centers of a local-clustering run and the search structure for their closest pair.

    Slot i holds the center whose representative (smallest member index) is i; merging slots
    a < b keeps a. D[i, j] is the squared center distance (+inf on the diagonal, for dead
    slots, for blocked pairs and, in variant "b", for flagged centers). Every candidate pair
    has an unflagged member, so only unflagged rows are searched: nn[u] / nnd[u] hold the
    exact nearest candidate of each unflagged center u (ties -> smallest index); nnd = inf
    for flagged and dead slots, whose rows are never read again.
    """

    def __init__(self, X: np.ndarray, pos: np.ndarray, variant: str):
        m = X.shape[0]
        self.m, self.pos, self.variant, self.literal = m, pos, variant, variant == "b"
        self.D = squareform(pdist(X, "sqeuclidean"))
        np.fill_diagonal(self.D, np.inf)
        self.sums = X.copy()
        self.w = np.ones(m, dtype=np.int64)
        self.centers = X.copy()
        self.alive = np.ones(m, dtype=bool)
        self.flagged = np.zeros(m, dtype=bool)
        self.owner = np.arange(m)  # slot of each original point
        self.nn = np.argmin(self.D, axis=1)
        self.nnd = self.D[np.arange(m), self.nn]
        self.n_merges = self.n_blocked = 0

    def recompute(self, rows: np.ndarray) -> None:
        """The nearest candidate of each of these (unflagged) rows, searched again."""
        if len(rows):
            self.nn[rows] = np.argmin(self.D[rows], axis=1)
            self.nnd[rows] = self.D[rows, self.nn[rows]]

    def closest(self) -> tuple[int, int] | None:
        """The closest candidate pair (a, b), a < b, ties to the smallest (a, b); None when none is left."""
        nn, nnd = self.nn, self.nnd
        dmin = nnd.min()
        if not np.isfinite(dmin):
            return None
        rows = np.flatnonzero(nnd == dmin)
        lo = np.minimum(rows, nn[rows])
        hi = np.maximum(rows, nn[rows])
        t = np.lexsort((hi, lo))[0] if len(rows) > 1 else 0  # tie rule: smallest (lo, hi)
        return int(lo[t]), int(hi[t])

    def step(self, a: int, b: int) -> None:
        """Merge a same-class unflagged pair, flag an opposite-class pair, or (one member flagged)
        flag the other (variant "bp") or block the pair (variant "f")."""
        pos, flagged = self.pos, self.flagged
        if pos[a] == pos[b] and not flagged[a] and not flagged[b]:
            self.merge(a, b)
            return
        if pos[a] != pos[b]:
            newly = [c for c in (a, b) if not flagged[c]]  # opposite classes: flag both
        elif self.variant == "bp":
            newly = [a if flagged[b] else b]  # same class, one flagged: flag the other one
        else:  # variant "f": same class, one flagged: block this pair only
            self.D[a, b] = self.D[b, a] = np.inf
            self.recompute(np.array([b if flagged[a] else a]))  # the pair lives in that row only
            self.n_blocked += 1
            return
        self.flag(newly)

    def merge(self, a: int, b: int) -> None:
        """Merge b into a: the weighted mean (= mean of all members), unflagged."""
        D, nn, nnd, alive, flagged = self.D, self.nn, self.nnd, self.alive, self.flagged
        self.sums[a] += self.sums[b]
        self.w[a] += self.w[b]
        self.centers[a] = self.sums[a] / self.w[a]
        alive[b] = False
        self.owner[self.owner == b] = a
        D[b, :] = np.inf
        D[:, b] = np.inf
        nnd[b] = np.inf
        cand = alive & ~flagged if self.literal else alive.copy()
        cand[a] = False
        row = np.full(self.m, np.inf)
        row[cand] = _sq_dist(self.centers[cand], self.centers[a])
        D[a, :] = row
        D[:, a] = row
        searched = alive & ~flagged
        stale = searched & ((nn == a) | (nn == b))
        stale[a] = True
        # other searched rows: only their entries for a (new) and b (now inf, not their nn)
        better = searched & ~stale & ((row < nnd) | ((row == nnd) & (nn > a)))
        nn[better] = a
        nnd[better] = row[better]
        self.recompute(np.flatnonzero(stale))
        self.n_merges += 1

    def flag(self, newly: list) -> None:
        """Freeze these centers."""
        self.flagged[newly] = True
        self.nnd[newly] = np.inf
        if self.literal:
            # flagged centers become invisible to the search
            self.D[:, newly] = np.inf
            self.recompute(np.flatnonzero(self.alive & ~self.flagged & np.isin(self.nn, newly)))
        # bp / f: pairs (unflagged, newly flagged) stay candidates and sit in unflagged rows;
        # pairs of two flagged centers are dropped simply by no longer searching flagged rows.

    def clusters(self) -> LocalClusters:
        """The living centers, in slot order (by their smallest member index)."""
        m, pos = self.m, self.pos
        slots = np.flatnonzero(self.alive)
        index_of_slot = np.full(m, -1)
        index_of_slot[slots] = np.arange(len(slots))
        positive = pos[slots]
        k_pos = int(positive.sum())
        n_pos = int(pos.sum())
        return LocalClusters(
            centers=self.centers[slots], weights=self.w[slots], positive=positive,
            labels=index_of_slot[self.owner], flagged=self.flagged[slots], variant=self.variant,
            n_points_before=m, n_points_after=len(slots),
            n_pairs_before=n_pos * (m - n_pos), n_pairs_after=k_pos * (len(slots) - k_pos),
            n_merges=self.n_merges, n_blocked=self.n_blocked,
        )


def _sq_dist(C, c):
    """Squared Euclidean distances from each row of C to c."""
    diff = C - c
    return (diff * diff).sum(axis=1)


def _check_input(X, y_positive, variant, max_bytes) -> tuple[np.ndarray, np.ndarray]:
    validate_parameter_constraints(CLUSTERING_CONSTRAINTS, {"variant": variant, "max_bytes": max_bytes},
                                   caller_name="local_clustering")
    try:
        X = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError("X must be a numeric array of shape (m, d).") from exc
    if X.ndim != 2:
        raise ValueError(f"X must be 2-dimensional (m, d), got shape {X.shape}.")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"X contains {int(np.sum(~np.isfinite(X)))} NaN or infinite value(s).")
    pos = as_event_indicator(np.asarray(y_positive).ravel() if np.ndim(y_positive) == 2
                             and 1 in np.shape(y_positive) else y_positive, "y_positive")
    if len(pos) != X.shape[0]:
        raise ValueError(
            f"X has {X.shape[0]} rows but y_positive has {len(pos)} entries; they must match."
        )
    n_pos = int(pos.sum())
    if n_pos == 0 or n_pos == len(pos):
        raise ValueError(
            "y_positive holds one class only; local clustering needs both positives and negatives."
        )
    m = X.shape[0]
    _memory.refuse(_memory.clustering_bytes(m), max_bytes,
                   f"Local clustering of {m:,} points (a {m:,} x {m:,} distance matrix)",
                   lambda: _memory.lp_routes(m, n_pos * (m - n_pos), max_bytes=max_bytes))
    return np.ascontiguousarray(X), pos
