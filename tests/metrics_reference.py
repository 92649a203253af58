"""The numpy implementation of aucopt.metrics, kept as an oracle for the compiled kernels.

``reference_roc_auc``, ``reference_concordance_counts`` and ``reference_harrell_c`` take the
arguments of ``aucopt.metrics.roc_auc``, ``concordance_counts`` and ``harrell_c`` and count
the same pairs by another method: binary searches of each positive among the sorted negatives,
and a merge-sort tree over the suffixes of the time order (``tests/order_reference.py``) instead of
one Fenwick-tree sweep. Not a test module.
"""

from __future__ import annotations

import numpy as np
from order_reference import suffix_less_equal_counts

from aucopt._validation import (
    binary_labels,
    check_consistent_length,
    check_finite_1d,
    check_point_weights,
    survival_arrays,
)
from aucopt.metrics import ConcordanceCounts
from aucopt.pairs import PairSet

TIE_MODES = ("half", "strict")


def _check_ties(ties) -> str:
    if ties not in TIE_MODES:
        raise ValueError(f"ties must be one of {TIE_MODES}, got {ties!r}.")
    return ties


def _check_tied_tol(tied_tol) -> float:
    if (isinstance(tied_tol, bool) or not isinstance(tied_tol, (int, float, np.integer, np.floating))
            or not np.isfinite(tied_tol) or tied_tol < 0):
        raise ValueError(
            f"tied_tol must be a non-negative finite number (0 ties only equal scores); got {tied_tol!r}."
        )
    return float(tied_tol)


def _absolute_tol(tied_tol: float, scores: np.ndarray) -> float:
    """The absolute tie tolerance ``tied_tol · max|scores|``: ties relative to the scores' scale."""
    return tied_tol * float(np.max(np.abs(scores), initial=0.0)) if tied_tol > 0 else 0.0


def _tie_bounds(values: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """Per value v the smallest and largest float x with ``|x - v| <= tol`` in float64.

    ``L <= x <= U`` holds exactly when ``abs(x - v) <= tol`` does (the test of
    scikit-survival's ``concordance_index_censored``), because ``fl(x - v)`` is monotone in ``x``.
    Each bound is found by bisection between a float inside the tie interval (v) and one outside
    (v ∓ 2·tol), down to adjacent floats: stepping one ulp at a time from ``v ∓ tol`` would not
    reach it when the bound is near 0, where the ulps are far smaller than the rounding of
    ``v ∓ tol``.
    """
    values = np.asarray(values, dtype=float)

    def bound(inside, outside):
        for _ in range(2200):  # bisection in value, then in ulps: ~1,100 halvings at worst
            step = np.nextafter(inside, outside)
            open_ = step != outside
            if not open_.any():
                break
            mid = inside + (outside - inside) / 2
            stuck = (mid == inside) | (mid == outside)
            mid = np.where(stuck, step, mid)
            tied = np.abs(mid - values) <= tol
            inside = np.where(open_ & tied, mid, inside)
            outside = np.where(open_ & ~tied, mid, outside)
        return inside

    return bound(values.copy(), values - 2 * tol), bound(values.copy(), values + 2 * tol)


def _tie_credited_ratio(wins, tied, total, ties: str) -> float:
    """``(wins + c * tied) / total`` with ``c`` = 1/2 or 0, as one correctly rounded division.

    Integer counts are divided exactly as integers; float (weighted) sums as floats.
    """
    if isinstance(total, (float, np.floating)):
        value = (2.0 * wins + tied) / (2.0 * total) if ties == "half" else wins / total
        return float(min(max(value, 0.0), 1.0))  # sums of prefix differences: clip round-off
    if ties == "half":
        return (2 * int(wins) + int(tied)) / (2 * int(total))
    return int(wins) / int(total)


def _positive_weight_rows(sample_weight, n_samples: int):
    """``sample_weight`` validated, and the mask of rows with positive weight (None: no weights).

    Rows of zero weight enter no pair; they are dropped before anything (the tie tolerance
    included) is computed, so a zero weight is the same as removing the row.
    """
    weights = check_point_weights(sample_weight, n_samples, "sample_weight")
    if weights is None:
        return None, None
    return weights, weights > 0


def reference_roc_auc(y_true, y_score, *, ties="half", pos_label=None, tied_tol=1e-8, sample_weight=None) -> float:
    """The numpy implementation of aucopt.metrics.roc_auc (reference)."""
    ties = _check_ties(ties)
    tied_tol = _check_tied_tol(tied_tol)
    y_score = check_finite_1d(y_score, "y_score")
    y_arr = np.asarray(y_true)
    check_consistent_length(y_true=y_arr, y_score=y_score)
    is_pos, _ = binary_labels(y_arr, pos_label=pos_label)
    weights, keep = _positive_weight_rows(sample_weight, len(y_score))
    if weights is not None:
        is_pos, y_score, weights = is_pos[keep], y_score[keep], weights[keep]
    pos_scores = y_score[is_pos]
    neg_order = np.argsort(y_score[~is_pos], kind="stable")
    neg_sorted = y_score[~is_pos][neg_order]
    tol = _absolute_tol(tied_tol, y_score)
    lower, upper = _tie_bounds(pos_scores, tol) if tol > 0 else (pos_scores, pos_scores)
    below = np.searchsorted(neg_sorted, lower, side="left")  # #{j neg : f_j < f_i, not tied}
    at_most = np.searchsorted(neg_sorted, upper, side="right")  # #{j neg : f_j <= f_i or tied}
    if weights is None:
        wins = int(below.sum())
        tied = int((at_most - below).sum())
        return _tie_credited_ratio(wins, tied, len(pos_scores) * len(neg_sorted), ties)
    pos_weight = weights[is_pos]
    neg_cumulative = np.concatenate([[0.0], np.cumsum(weights[~is_pos][neg_order])])
    total = float(pos_weight.sum()) * float(neg_cumulative[-1])
    if total == 0:
        raise ValueError(
            "sample_weight gives the positive or the negative class a total weight of zero: "
            "the AUC needs both classes with positive weight."
        )
    wins = float(pos_weight @ neg_cumulative[below])
    tied = float(pos_weight @ (neg_cumulative[at_most] - neg_cumulative[below]))
    return _tie_credited_ratio(wins, tied, total, ties)


def reference_concordance_counts(y, risk, *, tied_tol=1e-8, sample_weight=None) -> ConcordanceCounts:
    """The numpy implementation of aucopt.metrics.concordance_counts (reference)."""
    tied_tol = _check_tied_tol(tied_tol)
    event, time = survival_arrays(y)
    risk = check_finite_1d(risk, "risk")
    check_consistent_length(y=event, risk=risk)
    weights, keep = _positive_weight_rows(sample_weight, len(risk))
    if weights is not None:
        event, time, risk, weights = event[keep], time[keep], risk[keep], weights[keep]
    pairs = PairSet.survival(event, time)  # each event's comparable partners: a suffix of pairs.order
    events = np.flatnonzero(event)
    start = pairs.start[events]
    comparable = int((len(time) - start).sum())
    tol = _absolute_tol(tied_tol, risk)
    if weights is not None:
        return _weighted_counts(pairs, start, risk, events, weights, tol)
    if tol == 0:
        counts = suffix_less_equal_counts(pairs.order, start, risk, events)
        concordant = int(counts.less.sum())
        tied_risk = int(counts.equal.sum())
    else:
        concordant, at_most = _suffix_counts_within(pairs.order, start, risk, events, tol)
        tied_risk = at_most - concordant
    return ConcordanceCounts(
        concordant=concordant,
        discordant=comparable - concordant - tied_risk,
        tied_risk=tied_risk,
        comparable=comparable,
    )


def _weighted_counts(pairs, start, risk, events, weights, tol) -> ConcordanceCounts:
    """The weighted sums Σ w_i w_j of the comparable, concordant and risk-tied pairs.

    The partners of event i are the suffix ``order[start_i:]``; their total weight is a suffix
    sum, their weight below / tied with risk_i comes from the merge sort's prefix sums.
    """
    suffix_weight = np.concatenate([np.cumsum(weights[pairs.order][::-1])[::-1], [0.0]])
    event_weight = weights[events]
    comparable = float(event_weight @ suffix_weight[start])
    if tol == 0:
        counts = suffix_less_equal_counts(pairs.order, start, risk, events, weights)
        below, tied = counts.weight_less, counts.weight_equal
    else:
        below, at_most = _suffix_weights_within(pairs.order, start, risk, events, tol, weights)
        tied = at_most - below
    concordant = float(event_weight @ below)
    tied_risk = max(float(event_weight @ tied), 0.0)
    return ConcordanceCounts(
        concordant=concordant,
        discordant=max(comparable - concordant - tied_risk, 0.0),
        tied_risk=tied_risk,
        comparable=comparable,
    )


def _suffix_weights_within(order, start, risk, events, tol, weights) -> tuple[np.ndarray, np.ndarray]:
    """Per event k: Σ_{j in suffix_k, r_j < L_k} w_j and Σ_{j in suffix_k, r_j ≤ U_k} w_j.

    As :func:`_suffix_counts_within`, with the thresholds appended as points of weight 0, so
    that they add nothing to the weighted sums.
    """
    m, k = len(order), len(events)
    lower, upper = _tie_bounds(risk[events], tol)
    counts = suffix_less_equal_counts(
        np.concatenate([order, np.arange(m, m + 2 * k)]), np.concatenate([start, start]),
        np.concatenate([risk, lower, upper]), np.arange(m, m + 2 * k),
        np.concatenate([weights, np.zeros(2 * k)]),
    )
    return counts.weight_less[:k], counts.weight_less[k:] + counts.weight_equal[k:]


def _suffix_counts_within(order, start, risk, events, tol) -> tuple[int, int]:
    """Σ_k #{j in suffix_k : r_j < L_k} and Σ_k #{j in suffix_k : r_j ≤ U_k}.

    [L_k, U_k] are the risks tied with r_k (|r_j − r_k| ≤ tol in float64, :func:`_tie_bounds`).

    The thresholds r_k ∓ tol of the events are appended as extra points after every real
    point of ``order`` (so inside every suffix) and queried; the extra points' own
    contribution, the same for every suffix, is counted with one sorted search and removed.
    """
    m, k = len(order), len(events)
    lower, upper = _tie_bounds(risk[events], tol)
    values = np.concatenate([risk, lower, upper])
    extra = np.arange(m, m + 2 * k)
    counts = suffix_less_equal_counts(
        np.concatenate([order, extra]), np.concatenate([start, start]), values,
        extra,
    )
    thresholds = np.sort(np.concatenate([lower, upper]))
    below_lower = counts.less[:k] - np.searchsorted(thresholds, lower, side="left")
    at_most_upper = counts.less[k:] + counts.equal[k:] - np.searchsorted(thresholds, upper, side="right")
    return int(below_lower.sum()), int(at_most_upper.sum())


def reference_harrell_c(y, risk, *, ties="half", tied_tol=1e-8, sample_weight=None) -> float:
    """The numpy implementation of aucopt.metrics.harrell_c (reference)."""
    ties = _check_ties(ties)
    counts = reference_concordance_counts(y, risk, tied_tol=tied_tol, sample_weight=sample_weight)
    if counts.comparable == 0 and sample_weight is not None:
        raise ValueError(
            "No comparable pair has positive weight: sample_weight leaves no event of positive "
            "weight followed by a later time (or a censored sample at the same time) of positive "
            "weight."
        )
    if counts.comparable == 0:
        raise ValueError(
            "No comparable pairs: Harrell's C needs at least one event followed by a later "
            "time (or a censored sample at the same time); e.g. not every sample may be censored."
        )
    return _tie_credited_ratio(counts.concordant, counts.tied_risk, counts.comparable, ties)
