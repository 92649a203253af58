"""Pair sets: which (i, j) must satisfy f(x_i) > f(x_j), and with what weight.

Every pair set here is an *ordered-suffix* structure. The points are sorted once
(``order``); each *anchor* point i owns the contiguous suffix ``order[start_i:]`` as its
partners j. This covers both cases of the seed papers:

* **bipartite** (AUC, seed 003 eq. 3.3): anchors are the positives, their suffix is all
  negatives — the special case of survival ordering with ``event = y`` and ``time = 1 - y``;
* **survival** (Harrell's comparable set, seed 003 §3.1, eq. 5.1–5.3 with ties fixed):
  ``(i, j)`` with ``event_i`` and ``(t_i < t_j or (t_i == t_j and not event_j))``.
  Sorting by time with events before censored subjects inside a tied time makes each
  event's partners a suffix starting at ``first(t_i) + events_at(t_i)``.

Counting is therefore O(m log m) without listing pairs, and the same structure feeds the
sorted-pair cores of the scalable paths. ``to_arrays`` lists pairs explicitly (for LP/QP
builders), refusing with a clear error when that would exceed a memory limit.

Weights: ``point_weights`` gives product-form pair weights ``w_ij = w_i * w_j`` (cluster
sizes, seed 003 eq. 4.1); :meth:`PairSet.from_arrays` takes arbitrary per-pair weights.

Survival variants (seed 003 §3.1, Table 5.3): ``PairSet.survival(..., variant="lprex")``
(Harrell's pairs plus censored–censored pairs with weight 0.5), time-difference weights
``time_weight=`` and user pair weights ``weights=`` return explicit pair sets listed by
:func:`survival_pair_arrays`; the unweighted default stays the ordered-suffix structure.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..exceptions import NoComparablePairsError, ProblemTooLargeError
from .._validation import (
    binary_labels,
    check_consistent_length,
    check_finite_1d,
    format_bytes,
    is_survival_target,
    survival_arrays,
)

DEFAULT_MAX_BYTES = 2 * 1024**3
"""Default memory budget (2 GiB) for explicit pair arrays and assembled problems."""

BYTES_PER_PAIR = 4 + 4 + 8  # int32 i, int32 j, float64 weight


@dataclass(frozen=True)
class PairSet:
    """Pairs (i, j, w_ij) with the requirement f(x_i) > f(x_j).

    Attributes
    ----------
    n_points : number of points m the indices refer to.
    target : what the pairs mean: ``"bipartite"`` (positives over negatives), ``"survival"``
        (Harrell's comparable pairs or a variant of them) or ``"custom"`` (user-listed pairs).
    storage : how they are held (a property): ``"sorted"`` (the ordered-suffix structure,
        never listed) or ``"explicit"`` (index and weight arrays).
    signs : per-point label sign y_l in {-1, +1} used by sign-constrained expansions
        (positives / events +1, negatives / censored -1).
    order, start : the ordered-suffix structure (``None`` for explicit pairs): anchor i's
        partners are ``order[start[i]:]``; non-anchors have ``start = m``.
    point_weights : optional per-point weights; the pair weight is their product.
    """

    n_points: int
    target: str
    signs: np.ndarray
    order: np.ndarray | None = None
    start: np.ndarray | None = None
    point_weights: np.ndarray | None = None
    _explicit: tuple | None = field(default=None, repr=False)

    # ----------------------------------------------------------------- constructors
    @classmethod
    def bipartite(cls, y, *, pos_label=None, point_weights=None) -> "PairSet":
        """Positives x negatives from binary labels ({0,1}, {-1,1}, bool, any two values)."""
        positive, _ = binary_labels(y, pos_label)
        return cls._from_order(
            event=positive, time=(~positive).astype(float), target="bipartite",
            point_weights=point_weights,
        )

    @classmethod
    def survival(cls, y, time=None, *, point_weights=None, variant: str = "harrell",
                 censored_weight: float = 0.5, time_weight=None, time_scale=None, weights=None,
                 max_bytes: int | None = DEFAULT_MAX_BYTES) -> "PairSet":
        """Harrell's comparable pairs from a survival target or from ``(event, time)`` arrays.

        With the defaults (``variant="harrell"``, no ``time_weight``, no ``weights``) this is
        the ordered-suffix structure (``target="survival"``, ``storage="sorted"``, never listed). Any of the options
        below returns an **explicit** pair set (``storage="explicit"``, listed vectorized and
        refused with a clear error beyond ``max_bytes``, like :meth:`to_arrays`), usable by
        the LP/QP builders, :mod:`aucopt.lp_scale` and the pair core. Signs stay +1 for events
        and −1 for censored subjects. See :func:`survival_pair_arrays` for the exact pairs,
        their enumeration order and the weight ``w_ij`` (a product of the factors below).

        variant : ``"harrell"`` or ``"lprex"`` (seed 003 Table 5.3: Harrell's pairs plus the
            censored–censored pairs (i, j) with t_i < t_j — the shorter event-free time ranks
            higher — with weight ``censored_weight``).
        time_weight : ``None``, ``"linear"``, ``"log"``, ``"capped"`` or a callable ``g``;
            multiplies w_ij by g(Δ_ij), Δ_ij = t_j − t_i ≥ 0 (see :data:`TIME_WEIGHTS`).
        time_scale : positive scale s of the named time weights; default the median of the
            positive Δ_ij over the pairs (1.0 when no Δ is positive).
        weights : user pair weights, multiplied in: a callable
            ``weights(i, j, t_i, t_j, e_i, e_j) -> w`` called once with the pair arrays, or an
            array aligned with the pair enumeration order.
        point_weights : per-point weights; explicit sets multiply in ``w_i · w_j``.
        """
        event, time = survival_arrays(y, time)
        if variant not in SURVIVAL_VARIANTS:
            raise ValueError(f"variant must be one of {SURVIVAL_VARIANTS}; got {variant!r}.")
        if variant == "harrell" and time_weight is None and weights is None:
            return cls._from_order(event=event, time=time, target="survival", point_weights=point_weights)
        i, j, w = survival_pair_arrays(
            event, time, variant=variant, censored_weight=censored_weight, time_weight=time_weight,
            time_scale=time_scale, weights=weights, point_weights=point_weights, max_bytes=max_bytes,
        )
        return cls.from_arrays(i, j, w, n_points=len(event), signs=np.where(event, 1.0, -1.0),
                               target="survival")

    @classmethod
    def from_target(cls, y, *, pos_label=None, point_weights=None) -> "PairSet":
        """Survival pairs for a structured / ``(event, time)`` target, bipartite pairs otherwise."""
        if is_survival_target(y):
            return cls.survival(y, point_weights=point_weights)
        return cls.bipartite(y, pos_label=pos_label, point_weights=point_weights)

    @classmethod
    def from_arrays(cls, i, j, weights=None, *, n_points: int, signs=None, target: str = "custom") -> "PairSet":
        """Explicit pairs; ``signs`` defaults to +1 for points that appear first in some pair."""
        if target not in TARGETS:
            raise ValueError(f"target must be one of {TARGETS}; got {target!r}.")
        i = np.asarray(i, dtype=np.int64).ravel()
        j = np.asarray(j, dtype=np.int64).ravel()
        check_consistent_length(i=i, j=j)
        if len(i) and (min(i.min(), j.min()) < 0 or max(i.max(), j.max()) >= n_points):
            raise ValueError(f"Pair indices must lie in [0, {n_points}).")
        if np.any(i == j):
            raise ValueError("A pair (i, i) cannot require f(x_i) > f(x_i).")
        w = np.ones(len(i)) if weights is None else check_finite_1d(weights, "weights")
        check_consistent_length(i=i, weights=w)
        _check_nonnegative(w, "pair weights")
        if signs is None:
            signs = -np.ones(n_points)
            signs[np.unique(i)] = 1.0
        return cls(n_points=n_points, target=target, signs=np.asarray(signs, float),
                   _explicit=(i.astype(np.int32), j.astype(np.int32), w))

    @classmethod
    def _from_order(cls, *, event, time, target, point_weights) -> "PairSet":
        m = len(event)
        # Sort by time, events first inside a tied time: an event's partners form a suffix.
        order = np.lexsort((~event, time))
        t_sorted = time[order]
        event_times = np.sort(time[event])
        first_at_t = np.searchsorted(t_sorted, time, side="left")
        events_at_t = np.searchsorted(event_times, time, "right") - np.searchsorted(
            event_times, time, "left"
        )
        start = np.where(event, first_at_t + events_at_t, m).astype(np.int64)
        if point_weights is not None:
            point_weights = check_finite_1d(point_weights, "point_weights")
            check_consistent_length(point_weights=point_weights, y=event)
            _check_nonnegative(point_weights, "point_weights")
        signs = np.where(event, 1.0, -1.0)
        return cls(n_points=m, target=target, signs=signs, order=order, start=start,
                   point_weights=point_weights)

    # ----------------------------------------------------------------- counting
    @property
    def storage(self) -> str:
        """``"explicit"`` for listed pairs, ``"sorted"`` for the ordered-suffix structure."""
        return "sorted" if self._explicit is None else "explicit"

    @property
    def partner_counts(self) -> np.ndarray:
        """Number of partners j of each point i (0 for non-anchors), without enumeration."""
        if self._explicit is not None:
            return np.bincount(self._explicit[0], minlength=self.n_points)
        return self.n_points - self.start

    @property
    def n_pairs(self) -> int:
        """Number of pairs, computed in O(m log m) without listing them."""
        if self._explicit is not None:
            return len(self._explicit[0])
        return int(self.partner_counts.sum())

    def total_weight(self) -> float:
        """Sum of pair weights Σ w_ij, without enumeration for product-form weights."""
        if self._explicit is not None:
            return float(self._explicit[2].sum())
        if self.point_weights is None:
            return float(self.n_pairs)
        w = self.point_weights
        suffix = np.concatenate([np.cumsum(w[self.order][::-1])[::-1], [0.0]])
        return float(np.dot(w, suffix[self.start]))

    def nbytes_explicit(self) -> int:
        """Memory that :meth:`to_arrays` would allocate."""
        return self.n_pairs * BYTES_PER_PAIR

    # ----------------------------------------------------------------- enumeration
    def to_arrays(self, max_bytes: int | None = DEFAULT_MAX_BYTES):
        """Explicit ``(i, j, w)`` arrays (int32, int32, float64), anchor by anchor.

        Raises ``ValueError`` naming the pair count and memory when they exceed ``max_bytes``
        (``None`` disables the check) and when the set is empty.
        """
        n_pairs = self.n_pairs
        if n_pairs == 0:
            raise NoComparablePairsError(_no_pairs_message(self.target))
        need = self.nbytes_explicit()
        if max_bytes is not None and need > max_bytes:
            raise ProblemTooLargeError(
                f"Listing {n_pairs:,} pairs of {self.n_points:,} points", need, max_bytes,
                "use a scalable path that never lists pairs (RankSVM / RankRC, "
                "LPRanker(method='subgradient')) or subsample")
        if self._explicit is not None:
            return self._explicit
        counts = self.partner_counts
        anchors = np.flatnonzero(counts)
        c = counts[anchors]
        i = np.repeat(anchors, c).astype(np.int32)
        # position in `order` of each pair's partner: start_i, start_i + 1, ..., m - 1
        group_start = np.repeat(np.cumsum(c) - c, c)
        pos = np.repeat(self.start[anchors], c) + (np.arange(n_pairs) - group_start)
        j = self.order[pos].astype(np.int32)
        if self.point_weights is None:
            w = np.ones(n_pairs)
        else:
            w = self.point_weights[i] * self.point_weights[j]
        return i, j, w

    def pairs_at(self, index) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(i, j, w)`` of the pairs with the given positions in the enumeration order of
        :meth:`to_arrays`, without listing the others (O(len(index) · log m))."""
        index = np.asarray(index, dtype=np.int64).ravel()
        n_pairs = self.n_pairs
        if len(index) and (index.min() < 0 or index.max() >= n_pairs):
            raise ValueError(f"pair positions must lie in [0, {n_pairs}).")
        if self._explicit is not None:
            i, j, w = self._explicit
            return i[index], j[index], w[index]
        counts = self.partner_counts
        anchors = np.flatnonzero(counts)
        first = np.concatenate([[0], np.cumsum(counts[anchors])])  # position of each anchor's first pair
        k = np.searchsorted(first, index, side="right") - 1
        i = anchors[k]
        j = self.order[self.start[i] + (index - first[k])]
        w = np.ones(len(index)) if self.point_weights is None else self.point_weights[i] * self.point_weights[j]
        return i.astype(np.int32), j.astype(np.int32), w

    def check_nonempty(self) -> "PairSet":
        """Raise a clear error when there is no pair to learn from; return self."""
        if self.n_pairs == 0:
            raise NoComparablePairsError(_no_pairs_message(self.target))
        return self


SURVIVAL_VARIANTS = ("harrell", "lprex")
TARGETS = ("bipartite", "survival", "custom")

CAPPED_FLOOR = 0.01
"""Floor of the ``"capped"`` time weight, so that tied-time pairs (Δ = 0) keep a small weight."""

TIME_WEIGHTS = {
    "linear": lambda d: 1.0 + d,
    "log": lambda d: 1.0 + np.log1p(d),
    "capped": lambda d: np.clip(d, CAPPED_FLOOR, 1.0),
}
"""Named time-difference weights g(Δ) as functions of u = Δ / scale (Δ = t_j − t_i ≥ 0):
``"linear"``: 1 + u; ``"log"``: 1 + log(1 + u); ``"capped"``: min(1, max(u, CAPPED_FLOOR))."""


def survival_pair_arrays(event, time, *, variant="harrell", censored_weight=0.5, time_weight=None,
                         time_scale=None, weights=None, point_weights=None,
                         max_bytes: int | None = DEFAULT_MAX_BYTES):
    """Explicit ``(i, j, w)`` of a survival pair variant (validated ``event``/``time`` arrays).

    Pairs, in this enumeration order:

    1. Harrell's comparable pairs ``event_i and (t_i < t_j or (t_i == t_j and not event_j))``,
       in the order of ``PairSet.survival(event, time).to_arrays()``, base weight 1;
    2. (``variant="lprex"`` only) censored–censored pairs ``not event_i, not event_j,
       t_i < t_j``, grouped by anchor i in increasing (t_i, i), partners in increasing
       (t_j, j), base weight ``censored_weight``.

    ``w_ij = base_ij · g(t_j − t_i) · user_ij · pw_i · pw_j`` where the last three factors are
    present only when ``time_weight``, ``weights`` resp. ``point_weights`` are given. Named
    ``g`` are applied to Δ / scale (:data:`TIME_WEIGHTS`); a callable ``g`` gets the raw Δ
    array and must return non-negative finite values of the same shape.
    """
    if variant not in SURVIVAL_VARIANTS:
        raise ValueError(f"variant must be one of {SURVIVAL_VARIANTS}; got {variant!r}.")
    if not (isinstance(censored_weight, (int, float, np.floating, np.integer))
            and not isinstance(censored_weight, bool) and np.isfinite(censored_weight)
            and censored_weight >= 0):
        raise ValueError(f"censored_weight must be a non-negative finite number; got {censored_weight!r}.")
    if time_weight is not None and not callable(time_weight) and time_weight not in TIME_WEIGHTS:
        raise ValueError(
            f"time_weight must be None, one of {tuple(TIME_WEIGHTS)} or a callable g(delta); got {time_weight!r}."
        )
    if time_scale is not None and not (np.isscalar(time_scale) and np.isfinite(time_scale) and time_scale > 0):
        raise ValueError(f"time_scale must be a positive finite number or None; got {time_scale!r}.")
    if weights is not None and not callable(weights):
        weights = check_finite_1d(weights, "weights")
    if point_weights is not None:
        point_weights = check_finite_1d(point_weights, "point_weights")
        check_consistent_length(point_weights=point_weights, y=event)
        _check_nonnegative(point_weights, "point_weights")
    m = len(event)
    harrell = PairSet._from_order(event=event, time=time, target="survival", point_weights=None)
    n_h = harrell.n_pairs
    # censored-censored pairs: censored sorted by (time, index); partners = strictly later times
    cens = np.flatnonzero(~event)
    cens = cens[np.argsort(time[cens], kind="stable")]
    t_c = time[cens]
    c_start = np.searchsorted(t_c, t_c, side="right")
    c_counts = len(cens) - c_start if variant == "lprex" else np.zeros(len(cens), dtype=np.int64)
    n_c = int(c_counts.sum())
    n_total = n_h + n_c
    if n_total == 0:
        raise ValueError(_no_pairs_message("survival"))
    need = n_total * (BYTES_PER_PAIR + 8)  # pair arrays plus one float64 work array
    if max_bytes is not None and need > max_bytes:
        raise ValueError(
            f"Listing {n_total:,} survival pairs of {m:,} points would need {format_bytes(need)} "
            f"(limit {format_bytes(max_bytes)}). Raise max_bytes, subsample, or use the default "
            "Harrell pairs without weights (never listed)."
        )
    if n_h:
        hi, hj, _ = harrell.to_arrays(max_bytes=None)
        hi, hj = hi.astype(np.int64), hj.astype(np.int64)
    else:
        hi = hj = np.zeros(0, dtype=np.int64)
    if n_c:
        pos = np.flatnonzero(c_counts)
        cnt = c_counts[pos]
        ci = np.repeat(cens[pos], cnt)
        group_start = np.repeat(np.cumsum(cnt) - cnt, cnt)
        cj = cens[np.repeat(c_start[pos], cnt) + (np.arange(n_c) - group_start)]
    else:
        ci = cj = np.zeros(0, dtype=np.int64)
    i = np.concatenate([hi, ci])
    j = np.concatenate([hj, cj])
    w = np.concatenate([np.ones(n_h), np.full(n_c, float(censored_weight))])
    if time_weight is not None:
        delta = time[j] - time[i]
        if callable(time_weight):
            g = np.asarray(time_weight(delta), dtype=float)
            if g.shape != delta.shape:
                g = np.broadcast_to(g, delta.shape) if g.ndim == 0 else g
            if g.shape != delta.shape:
                raise ValueError(
                    f"time_weight(delta) must return an array of shape {delta.shape}; got {g.shape}. "
                    "Write g with numpy operations (it is called once with all time gaps)."
                )
            if not np.all(np.isfinite(g)) or np.any(g < 0):
                raise ValueError("time_weight(delta) must return finite non-negative weights.")
        else:
            if time_scale is None:
                positive = delta[delta > 0]
                time_scale = float(np.median(positive)) if len(positive) else 1.0
            g = TIME_WEIGHTS[time_weight](delta / float(time_scale))
        w = w * g
    if weights is not None:
        if callable(weights):
            u = np.asarray(weights(i, j, time[i], time[j], event[i], event[j]), dtype=float)
            if u.ndim == 0:
                u = np.broadcast_to(u, i.shape)
            if u.shape != i.shape:
                raise ValueError(
                    f"weights(i, j, t_i, t_j, e_i, e_j) must return one weight per pair, shape "
                    f"{i.shape}; got {u.shape}. It is called once with the pair arrays."
                )
            if not np.all(np.isfinite(u)):
                raise ValueError("weights(...) returned NaN or infinite pair weights.")
        else:
            u = weights
            if len(u) != n_total:
                raise ValueError(
                    f"weights has {len(u)} entries but the {variant!r} pair set has {n_total} pairs "
                    "(align it with PairSet.survival(...).to_arrays() order)."
                )
        _check_nonnegative(u, "pair weights")
        w = w * u
    if point_weights is not None:
        w = w * point_weights[i] * point_weights[j]
    return i, j, w


def _check_nonnegative(w, name):
    if np.any(w < 0):
        raise ValueError(f"{name} must be non-negative; found {int(np.sum(w < 0))} negative value(s).")


def _no_pairs_message(target: str) -> str:
    if target == "survival":
        return (
            "The survival target has no comparable pairs (a pair needs an observed event "
            "before another subject's event or censoring time); e.g. all subjects are censored."
        )
    return "The pair set is empty: there is no pair (i, j) requiring f(x_i) > f(x_j)."
