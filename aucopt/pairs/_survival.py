"""Survival pairs: Harrell's comparable pairs, Uno's IPCW weights, horizon pairs and the listed variants.

Harrell's comparable pairs are ``(i, j)`` with ``event_i`` and ``(t_i < t_j or (t_i == t_j and not
event_j))``. Sorting by time with events before censored subjects inside a tied time makes each
event's partners the suffix of that order starting at ``first(t_i) + events_at(t_i)``
(:func:`harrell_suffixes`). Weights that depend on the earlier subject only keep that storage:
Uno's 1/Ĝ(T_i)² (truncated at ``tau``) and the case weights 1/Ĝ(T_i) of a horizon pair set
(:func:`ipcw_anchor_factors`), Ĝ the Kaplan–Meier estimate of the censoring survival. The other
variants — ``"lprex"``'s censored–censored pairs, time-difference weights, user pair weights —
are listed by :func:`survival_pair_arrays`, one concern per helper: the comparable-pair rule,
the censored–censored pairs, the time weights, the user weights.
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._lazy import lazy_module
from .._validation import check_finite_1d, check_point_weights
from ..exceptions import NoComparablePairsError, check_memory
from ._storage import BYTES_PER_PAIR, DEFAULT_MAX_BYTES, check_nonnegative, list_suffix_pairs, no_pairs_message

_sweeps = lazy_module("aucopt.pairs._sweeps")  # numba: only for large pair sets (see time_order)

#: from this many subjects on, the time order is sorted by packed integer keys (compiled), below by numpy
PACKED_SORT_FROM = 1 << 16


def time_order(time: np.ndarray) -> np.ndarray:
    """``np.argsort(time, kind="stable")``; by packed integer keys from :data:`PACKED_SORT_FROM`
    subjects on (the same order, about a third of the time)."""
    if len(time) < PACKED_SORT_FROM:
        return np.argsort(time, kind="stable")
    return _sweeps.stable_argsort(time)


def reordered(v: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``v[order]`` for float64 ``v`` and a permutation ``order``; compiled, by halves on two
    threads, from :data:`PACKED_SORT_FROM` entries on."""
    if len(order) < PACKED_SORT_FROM:
        return v[order]
    return _sweeps.in_time_order(v, order)

SURVIVAL_VARIANTS = ("harrell", "lprex")

CAPPED_FLOOR = 0.01
"""Floor of the ``"capped"`` time weight, so that tied-time pairs (Δ = 0) keep a small weight."""

TIME_WEIGHTS = {
    "linear": lambda d: 1.0 + d,
    "log": lambda d: 1.0 + np.log1p(d),
    "capped": lambda d: np.clip(d, CAPPED_FLOOR, 1.0),
}
"""Named time-difference weights g(Δ) as functions of u = Δ / scale (Δ = t_j − t_i ≥ 0):
``"linear"``: 1 + u; ``"log"``: 1 + log(1 + u); ``"capped"``: min(1, max(u, CAPPED_FLOOR))."""


# ============================================================================ sorted storage
def harrell_suffixes(event: np.ndarray, time: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(order, start)`` of Harrell's comparable pairs: each event's partners are ``order[start_i:]``."""
    m = len(event)
    # Sort by time, events first inside a tied time (then by index): an event's partners form a suffix.
    order = time_order(time)
    if m >= PACKED_SORT_FROM:  # the same in one compiled pass
        return order, _sweeps.harrell_starts(order, reordered(np.asarray(time, dtype=float), order), event[order])
    t_sorted = time[order]
    e_sorted = event[order]
    new = np.ones(m, dtype=bool)  # position q starts a new time
    np.not_equal(t_sorted[1:], t_sorted[:-1], out=new[1:])
    group = np.cumsum(new) - 1
    tied = np.flatnonzero(np.bincount(group)[group] > 1)  # the positions of tied times only
    if len(tied):
        events_first = tied[np.lexsort((~e_sorted[tied], group[tied]))]
        order[tied], e_sorted[tied] = order[events_first], e_sorted[events_first]
    first = np.flatnonzero(new)  # each time's first position, then its number of events
    events_at = np.add.reduceat(e_sorted.astype(np.int64), first) if m else np.zeros(0, dtype=np.int64)
    start = np.empty(m, dtype=np.int64)
    start[order] = np.where(e_sorted, (first + events_at)[group], m)
    return order, start


def bipartite_suffixes(positive: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Harrell's suffixes of ``event = positive, time = 1 - positive`` without a sort: the positives,
    then the others (each by index); every positive's partners are the others."""
    up = np.flatnonzero(positive)
    order = np.concatenate([up, np.flatnonzero(~np.asarray(positive, dtype=bool))])
    m = len(order)
    start = np.full(m, m, dtype=np.int64)
    start[up] = len(up)
    return order, start


def truncated_suffixes(start: np.ndarray, time: np.ndarray, tau: float) -> np.ndarray:
    """Uno's truncation of Harrell's ``start``: the events at or after ``tau`` anchor no pair."""
    m = len(start)
    start = start.copy()
    start[time >= tau] = m
    if not (start < m).any():
        before = "" if np.isinf(tau) else f" before tau={tau:g}"
        raise NoComparablePairsError(
            f"No comparable pairs{before}: Uno's weights need an event{before} followed by a later time (or a "
            "censored subject at the same time)" + ("." if np.isinf(tau) else "; choose a larger tau.")
        )
    return start


def horizon_suffixes(event: np.ndarray, time: np.ndarray, horizon: float) -> tuple[np.ndarray, np.ndarray,
                                                                                   np.ndarray]:
    """``(order, start, case)`` of the pairs of AUC(horizon): the cases (event, T ≤ horizon) over the
    controls (T > horizon), one shared suffix."""
    m = len(event)
    case = event & (time <= horizon)
    control = time > horizon
    follow_up = f"[{float(time.min()):g}, {float(time.max()):g})"
    if not control.any():
        raise NoComparablePairsError(
            f"horizon={horizon:g} leaves no control: nobody is followed beyond it (the largest time is "
            f"{float(time.max()):g}). Choose a horizon inside the follow-up {follow_up}, e.g. a percentile of "
            "the event times."
        )
    if not case.any():
        first = f"the first event is at {float(time[event].min()):g}" if event.any() else "there is no event"
        raise NoComparablePairsError(
            f"horizon={horizon:g} has no case: no event at or before it ({first}). Choose a horizon at or "
            f"after the first event time, inside the follow-up {follow_up}."
        )
    # cases first, then the subjects in no pair (censored before the horizon), then the controls
    order = np.argsort(np.where(case, 0, np.where(control, 2, 1)), kind="stable")
    start = np.where(case, m - int(np.count_nonzero(control)), m).astype(np.int64)
    return order, start, case


def check_survival_options(*, variant: str, time_weight: Any, time_scale: Any, weights: Any, tau: Any,
                           horizon: Any) -> bool:
    """Refuse options of :meth:`PairSet.survival` that do not combine; return whether ``weights="ipcw"``."""
    if variant not in SURVIVAL_VARIANTS:
        raise ValueError(f"variant must be one of {SURVIVAL_VARIANTS}; got {variant!r}.")
    ipcw = isinstance(weights, str)
    if ipcw and weights != "ipcw":
        raise ValueError(f"weights must be 'ipcw', a callable, an array or None; got {weights!r}.")
    if horizon is not None:
        given = [name for name, value in (("variant", variant if variant != "harrell" else None),
                                          ("time_weight", time_weight), ("time_scale", time_scale),
                                          ("tau", tau), ("weights", None if ipcw else weights))
                 if value is not None]
        if given:
            raise ValueError(
                f"horizon={horizon!r} gives the pairs of AUC(horizon) (events up to the horizon over the "
                f"subjects followed beyond it), weighted 1 or by weights='ipcw'; it does not combine with "
                f"{', '.join(given)}."
            )
        return ipcw
    if tau is not None and not ipcw:
        raise ValueError(
            f"tau={tau!r} is the truncation time of Uno's IPCW pairs: pass weights='ipcw' with it "
            "(pair_options={'weights': 'ipcw', 'tau': tau})."
        )
    if ipcw and (variant != "harrell" or time_weight is not None or time_scale is not None):
        other = f"variant={variant!r}" if variant != "harrell" else "time_weight/time_scale"
        raise ValueError(
            f"weights='ipcw' gives Uno's weights 1/Ĝ(T_i)² on Harrell's comparable pairs; it does not "
            f"combine with {other} (the censored-censored pairs of 'lprex' have no IPCW weight). For "
            "other products of weights pass weights=callable(i, j, t_i, t_j, e_i, e_j)."
        )
    return ipcw


def positive_time(value: Any, name: str) -> float:
    """``value`` as a positive finite float, or a ValueError naming ``name``."""
    if (isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating))
            or not np.isfinite(value) or value <= 0):
        raise ValueError(f"{name} must be a positive finite time; got {value!r}.")
    return float(value)


# ============================================================================ IPCW weights
def ipcw_anchor_factors(event: np.ndarray, time: np.ndarray, point_weights: np.ndarray | None,
                        order: np.ndarray, start: np.ndarray, *, power: int) -> np.ndarray:
    """The factors 1/Ĝ(T_i)^power of the anchors of a sorted survival pair set (1 elsewhere).

    Anchors whose pairs all weigh 0 (a zero point weight, or partners of zero weight only) keep
    the factor 1, so that no 0 · ∞ arises; any other anchor needs Ĝ(T_i) > 0.
    """
    m = len(event)
    live = start < m
    if point_weights is not None:
        suffix = np.concatenate([np.cumsum(point_weights[order][::-1])[::-1], [0.0]])
        live &= (point_weights > 0) & (suffix[start] > 0)
    a = np.ones(m)
    if not live.any():
        return a
    g = censoring_survival_at(event, time, point_weights, time[live])
    if np.any(g <= 0):
        at = float(time[live][g <= 0].min())
        raise ValueError(
            f"The inverse-probability-of-censoring weights are infinite for the event(s) at time {at:g}: the "
            f"censoring survival Ĝ drops to 0 there (every subject still followed at {at:g} is censored then, "
            f"and an event at the same time comes before them as a comparable pair). Truncate with tau <= {at:g} "
            "(pair_options={'weights': 'ipcw', 'tau': ...})."
        )
    a[live] = 1.0 / g ** power
    return a


def censoring_survival_at(event: np.ndarray, time: np.ndarray, point_weights: np.ndarray | None,
                          t: ArrayLike) -> np.ndarray:
    """Ĝ(t): the Kaplan–Meier estimate of the censoring survival of ``(event, time)``.

    Without point weights this is :func:`aucopt.metrics.censoring_survival` (the estimate of
    :func:`aucopt.metrics.uno_c`, computed here with the same arithmetic, so that the pair
    weights and the metric agree to the last bit): Ĝ(u) = Π_{u_l ≤ u} (1 − c_l / (n_l − d_l)),
    c_l the censorings, d_l the events at u_l and n_l the subjects with time ≥ u_l. With point
    weights, the same product limit over weighted counts (a weight k equals k repeated
    subjects): Ĝ(u) = Π_{u_l ≤ u} R_l / (c_l + R_l), c_l the censored weight at u_l and R_l the
    weight of the subjects followed beyond u_l (events at u_l leave the censoring risk set
    first). Right-continuous, 1 before the first time.
    """
    t = np.asarray(t, dtype=float)
    order = time_order(time)
    t_sorted = time[order]
    if point_weights is None:
        unique, first, counts = np.unique(t_sorted, return_index=True, return_counts=True)
        n_events = np.add.reduceat(event[order].astype(np.int64), first) if len(first) else np.zeros(0, np.int64)
        at_risk = len(time) - first - n_events  # followed at u_l, the events at u_l gone
        with np.errstate(divide="ignore", invalid="ignore"):
            factor = np.where(at_risk > 0, 1.0 - (counts - n_events) / np.maximum(at_risk, 1), 1.0)
    else:
        w_sorted = np.asarray(point_weights, dtype=float)[order]
        unique, first = np.unique(t_sorted, return_index=True)
        censored = np.add.reduceat(np.where(event[order], 0.0, w_sorted), first)
        later = np.concatenate([np.cumsum(np.add.reduceat(w_sorted, first)[::-1])[::-1][1:], [0.0]])
        weighted_at_risk = censored + later
        factor = np.where(weighted_at_risk > 0, later / np.where(weighted_at_risk > 0, weighted_at_risk, 1.0), 1.0)
    survival = np.cumprod(factor)
    idx = np.searchsorted(unique, t, side="right") - 1
    return np.where(idx >= 0, survival[np.maximum(idx, 0)], 1.0)


# ============================================================================ listed variants
def survival_pair_arrays(event: np.ndarray, time: np.ndarray, *, variant: str = "harrell",
                         censored_weight: float = 0.5, time_weight: str | Callable[..., Any] | None = None,
                         time_scale: float | None = None, weights: Callable[..., Any] | ArrayLike | None = None,
                         point_weights: float | ArrayLike | None = None,
                         max_bytes: float | None = DEFAULT_MAX_BYTES) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """List the pairs of a survival pair variant as ``(i, j, w)`` arrays.

    Pairs, in this enumeration order:

    1. Harrell's comparable pairs ``event_i and (t_i < t_j or (t_i == t_j and not event_j))``,
       in the order of ``PairSet.survival(event, time).to_arrays()``, base weight 1;
    2. (``variant="lprex"`` only) censored–censored pairs ``not event_i, not event_j,
       t_i < t_j``, grouped by anchor i in increasing (t_i, i), partners in increasing
       (t_j, j), base weight ``censored_weight``.

    ``w_ij = base_ij · g(t_j − t_i) · user_ij · pw_i · pw_j``, the last three factors present
    only when ``time_weight``, ``weights`` resp. ``point_weights`` are given.

    Parameters
    ----------
    event : ndarray of bool, shape (n_points,)
        Event indicators (validated).
    time : ndarray of float, shape (n_points,)
        Event or censoring times (validated).
    variant : {"harrell", "lprex"}, default="harrell"
        The pair variant.
    censored_weight : float, default=0.5
        Base weight of the censored–censored pairs of ``"lprex"``.
    time_weight : {"linear", "log", "capped"} or callable, default=None
        Named g (applied to Δ / scale, :data:`TIME_WEIGHTS`) or a callable g receiving the raw
        Δ array and returning non-negative finite values of the same shape.
    time_scale : float, default=None
        Scale of the named time weights; the median positive Δ when None.
    weights : callable or array-like, default=None
        User pair weights: ``weights(i, j, t_i, t_j, e_i, e_j)`` or an array in the order above.
    point_weights : float or array-like of shape (n_points,), default=None
        Per-point weights (a scalar weighs every point alike).
    max_bytes : float or None, default=2 GiB
        Memory budget for the listing (pair arrays and one work array).

    Returns
    -------
    i, j : ndarray of int64, shape (n_pairs,)
        The pairs.
    w : ndarray of float64, shape (n_pairs,)
        Their weights.

    Raises
    ------
    NoComparablePairsError
        When the variant has no pair.
    ProblemTooLargeError
        When the listing would exceed ``max_bytes``.

    See Also
    --------
    PairSet.survival : the pair set built from these arrays.

    References
    ----------
    .. [1] Harrell, F. E., Califf, R. M., Pryor, D. B., Lee, K. L., & Rosati, R. A. (1982).
       Evaluating the yield of medical tests. *JAMA*, 247(18), 2543–2546.
    .. [2] Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming for
       problems with binary output*. PhD thesis, University of Iowa.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.pairs import survival_pair_arrays
    >>> i, j, w = survival_pair_arrays(np.array([True, False, False]), np.array([1.0, 2.0, 3.0]),
    ...                                variant="lprex", censored_weight=0.25)
    >>> i.tolist(), j.tolist(), w.tolist()
    ([0, 0, 1], [1, 2, 2], [1.0, 1.0, 0.25])
    """
    _check_variant_options(variant, censored_weight, time_weight, time_scale)
    if weights is not None and not callable(weights):
        weights = check_finite_1d(weights, "weights")
    point_weights = check_point_weights(point_weights, len(event), "point_weights")
    m = len(event)
    order, start = harrell_suffixes(event, time)
    n_h = int((m - start).sum())
    cens, c_start, c_counts = _censored_suffixes(event, time, lprex=variant == "lprex")
    n_c = int(c_counts.sum())
    n_total = n_h + n_c
    if n_total == 0:
        raise NoComparablePairsError(no_pairs_message("survival"))
    check_memory(n_total * (BYTES_PER_PAIR + 8), max_bytes,  # pair arrays plus one float64 work array
                 f"Listing {n_total:,} survival pairs of {m:,} points",
                 "subsample, or use the default Harrell pairs without weights (never listed)")
    hi, hj = list_suffix_pairs(order, start)
    ci, cj = _list_censored_pairs(cens, c_start, c_counts)
    i = np.concatenate([hi, ci])
    j = np.concatenate([hj, cj])
    w = np.concatenate([np.ones(n_h), np.full(n_c, float(censored_weight))])
    if time_weight is not None:
        w = w * _time_weight_factors(time[j] - time[i], time_weight, time_scale)
    if weights is not None:
        w = w * _user_weight_factors(weights, i, j, time, event, f"the {variant!r} pair set")
    if point_weights is not None:
        w = w * point_weights[i] * point_weights[j]
    return i, j, w


def _check_variant_options(variant: str, censored_weight: Any, time_weight: Any, time_scale: Any) -> None:
    """Refuse an unknown variant, a censored weight that is no non-negative number, an unknown time
    weight or a time scale that is no positive number."""
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
    scale = float(time_scale) if isinstance(time_scale, (Real, np.integer, np.floating)) else np.nan
    if time_scale is not None and not (np.isfinite(scale) and scale > 0):
        raise ValueError(f"time_scale must be a positive finite number or None; got {time_scale!r}.")


def _censored_suffixes(event: np.ndarray, time: np.ndarray, *, lprex: bool) -> tuple[np.ndarray, np.ndarray,
                                                                                     np.ndarray]:
    """The censored subjects sorted by (time, index), each one's first partner there (the first
    strictly later time) and its number of censored–censored partners (0 without ``lprex``)."""
    cens = np.flatnonzero(~event)
    cens = cens[np.argsort(time[cens], kind="stable")]
    t_c = time[cens]
    c_start = np.searchsorted(t_c, t_c, side="right")
    c_counts = len(cens) - c_start if lprex else np.zeros(len(cens), dtype=np.int64)
    return cens, c_start, c_counts


def _list_censored_pairs(cens: np.ndarray, c_start: np.ndarray, c_counts: np.ndarray) -> tuple[np.ndarray,
                                                                                            np.ndarray]:
    """The censored–censored pairs (int64), anchor by anchor in increasing (t_i, i)."""
    n_c = int(c_counts.sum())
    if not n_c:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    pos = np.flatnonzero(c_counts)
    cnt = c_counts[pos]
    ci = np.repeat(cens[pos], cnt)
    group_start = np.repeat(np.cumsum(cnt) - cnt, cnt)
    cj = cens[np.repeat(c_start[pos], cnt) + (np.arange(n_c) - group_start)]
    return ci, cj


def _time_weight_factors(delta: np.ndarray, time_weight: str | Callable[..., Any],
                         time_scale: float | None) -> np.ndarray:
    """g(Δ) for the time gaps Δ = t_j − t_i of the pairs: a callable on the raw gaps, a named
    weight on Δ / scale (the median positive gap when ``time_scale`` is None)."""
    if not callable(time_weight):
        if time_scale is None:
            positive = delta[delta > 0]
            time_scale = float(np.median(positive)) if len(positive) else 1.0
        return TIME_WEIGHTS[time_weight](delta / float(time_scale))
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
    return g


def _user_weight_factors(weights: Callable[..., Any] | np.ndarray, i: np.ndarray, j: np.ndarray,
                         time: np.ndarray, event: np.ndarray, what: str) -> np.ndarray:
    """The user pair weights of the pairs (i, j): ``weights(i, j, t_i, t_j, e_i, e_j)`` called once,
    or an array aligned with the pairs; checked finite and non-negative."""
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
        if len(u) != len(i):
            raise ValueError(
                f"weights has {len(u)} entries but {what} has {len(i)} pairs "
                "(align it with PairSet.survival(...).to_arrays() order)."
            )
    check_nonnegative(u, "pair weights")
    return u
