"""Ranking metrics: the empirical AUC and Harrell's concordance index, without listing pairs.

* :func:`roc_auc` — Wilcoxon–Mann–Whitney AUC of scores ``f`` for binary labels,
  ``AUC = 1/(n+ n-) * sum_{i pos, j neg} ([f_i > f_j] + c [f_i = f_j])`` with tie credit
  ``c = 1/2`` (``ties="half"``, equal to ``sklearn.metrics.roc_auc_score``) or ``c = 0``
  (``ties="strict"``).
* :func:`concordance_counts` / :func:`harrell_c` — Harrell's C of risk scores ``r`` for
  right-censored data over the comparable pairs ``(i, j)``: ``event_i`` and
  (``t_i < t_j``, or ``t_i == t_j`` and not ``event_j``). A pair is concordant when
  ``r_i > r_j`` (higher risk = earlier event) and tied when ``r_i == r_j``.

Scores (risks) count as tied when they differ by at most ``tied_tol · max|score|`` (default
``tied_tol=1e-8``, scikit-survival's ``concordance_index_censored`` tolerance relative to the
scores' magnitude), so round-off (e.g. dense vs sparse ``X``) does not change a metric, and
neither does rescaling the scores; ``tied_tol=0`` ties only exactly equal values. Counts are exact
integers; no pair is ever materialized.

With ``sample_weight`` (case weights w), a pair (i, j) counts with weight ``w_i · w_j`` in the
numerator and the denominator: the weighted AUC is scikit-learn's weighted ``roc_auc_score``, and
integer weights give the metric of the data with row i repeated ``w_i`` times (a zero weight
removes the row). The weighted sums are computed in the same O(m log m) passes.

References: Hanley & McNeil (1982) for the AUC as the Wilcoxon–Mann–Whitney statistic;
Harrell et al. (1982) for the concordance index.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .pairs._order import suffix_less_equal_counts
from ._validation import (binary_labels, check_consistent_length, check_finite_1d, check_point_weights,
                          survival_arrays)
from .pairs import PairSet

__all__ = ["ConcordanceCounts", "TIED_TOL", "concordance_counts", "harrell_c", "roc_auc"]

TIE_MODES = ("half", "strict")

TIED_TOL = 1e-8
"""Default relative tie tolerance of :func:`roc_auc`, :func:`concordance_counts` and
:func:`harrell_c` (scikit-survival's ``concordance_index_censored`` default, which is absolute)."""


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

    Starts from ``v ∓ tol`` and steps by one ulp while the rounded difference disagrees, so
    ``L <= x <= U`` holds exactly when ``abs(x - v) <= tol`` does (the test of
    scikit-survival's ``concordance_index_censored``): ``fl(x - v)`` is monotone in ``x``.
    """
    lower = values - tol
    upper = values + tol
    for _ in range(64):  # a few ulps at most; the bound only guards against a runaway loop
        out_u = (upper - values) > tol
        upper = np.where(out_u, np.nextafter(upper, -np.inf), upper)
        nxt = np.nextafter(upper, np.inf)
        in_u = ~out_u & ((nxt - values) <= tol)
        upper = np.where(in_u, nxt, upper)
        out_l = (values - lower) > tol
        lower = np.where(out_l, np.nextafter(lower, np.inf), lower)
        prv = np.nextafter(lower, -np.inf)
        in_l = ~out_l & ((values - prv) <= tol)
        lower = np.where(in_l, prv, lower)
        if not (out_u.any() or in_u.any() or out_l.any() or in_l.any()):
            break
    return lower, upper


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


def roc_auc(y_true, y_score, *, ties="half", pos_label=None, tied_tol=TIED_TOL, sample_weight=None) -> float:
    """Area under the ROC curve, as the normalized Wilcoxon–Mann–Whitney statistic.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Two class labels: {0, 1}, {-1, 1}, bool, strings, ...
    y_score : array-like of shape (n_samples,)
        Real-valued scores; higher means "more positive".
    ties : {"half", "strict"}, default="half"
        Credit of a positive–negative pair with equal scores: ½ (``"half"``, as
        :func:`sklearn.metrics.roc_auc_score`) or 0 (``"strict"``: ties count as errors).
    pos_label : int, float, bool or str, default=None
        The positive class; None means the larger of the two labels.
    tied_tol : float, default=1e-8
        Scores differing by at most ``tied_tol · max|y_score|`` count as tied (relative to the
        largest score magnitude, so that rescaling the scores changes nothing); 0 ties only
        equal scores.
    sample_weight : float or array-like of shape (n_samples,), default=None
        Non-negative case weights; a (positive, negative) pair (i, j) counts with weight
        w_i · w_j, as in :func:`sklearn.metrics.roc_auc_score`. Integer weights equal repeating
        rows; a zero weight equals removing the row (it does not enter the tie tolerance
        either). None: every sample weighs 1.

    Returns
    -------
    auc : float
        The fraction of (positive, negative) pairs ranked correctly, tied pairs credited by
        ``ties`` (the weighted fraction with ``sample_weight``).

    Raises
    ------
    ValueError
        For labels that are not two classes, non-finite scores, invalid ``sample_weight``
        (negative, NaN, wrong length) or weights that leave one class with zero total weight.

    See Also
    --------
    harrell_c : The same pair-counting idea for censored survival data.
    sklearn.metrics.roc_auc_score : Equal to ``roc_auc(..., ties="half", tied_tol=0)``.

    Notes
    -----
    With n₊ positives and n₋ negatives,

        AUC = (1/(n₊ n₋)) Σ_{i pos} Σ_{j neg} ([f_i > f_j] + c [f_i = f_j]),

    c = ½ or 0, the Wilcoxon–Mann–Whitney statistic (Hanley & McNeil 1982); with case weights
    w it is Σ_{i pos} Σ_{j neg} w_i w_j (...) / (W₊ W₋), W± the class weight totals, the area under
    the weighted ROC curve that :func:`sklearn.metrics.roc_auc_score` integrates. Here, with the
    tolerance τ = ``tied_tol`` · max|f| "f_i > f_j" means f_j < f_i − τ and "f_i = f_j" means
    ``|f_i − f_j| ≤ τ``. The default ``tied_tol=1e-8`` makes the AUC insensitive to round-off (a
    model fitted on dense and on sparse ``X`` scores alike) at any scale of the scores; it differs from
    :func:`sklearn.metrics.roc_auc_score` only when a positive and a negative score differ by
    at most τ without being equal. The negatives are sorted once and every positive is
    located by binary search: O(m log m), no pair listed. The counts are exact integers and
    the ratio is one correctly rounded division; with weights, the negatives' weights are
    summed along the sorted order and each positive reads its two prefix sums.

    References
    ----------
    .. [1] Hanley, J. A., & McNeil, B. J. (1982). The meaning and use of the area under a
       receiver operating characteristic (ROC) curve. *Radiology*, 143(1), 29–36.

    Examples
    --------
    >>> from aucopt.metrics import roc_auc
    >>> roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.4, 0.8]), roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.4, 0.8], ties="strict")
    (0.875, 0.75)

    Weights are case weights: weight 2 counts a sample twice.

    >>> roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], sample_weight=[1, 2, 1, 1])
    0.6666666666666666
    >>> roc_auc([0, 0, 0, 1, 1], [0.1, 0.4, 0.4, 0.35, 0.8])
    0.6666666666666666
    """
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


class ConcordanceCounts(NamedTuple):
    """Pair counts over Harrell's comparable pairs, returned by :func:`concordance_counts`.

    ``concordant + discordant + tied_risk == comparable``. With ``sample_weight`` the fields
    are the weighted sums Σ w_i w_j over those pairs (floats).

    Attributes
    ----------
    concordant : int or float
        Comparable pairs (i, j) with risk_i > risk_j + tied_tol (the earlier event has the
        higher risk).
    discordant : int or float
        Comparable pairs with risk_i < risk_j − tied_tol.
    tied_risk : int or float
        Comparable pairs with ``|risk_i − risk_j| ≤ tied_tol``.
    comparable : int or float
        All comparable pairs.

    Examples
    --------
    >>> from aucopt.metrics import concordance_counts
    >>> concordance_counts(([True, False, True], [1.0, 2.0, 3.0]), [0.9, 0.5, 0.7]).comparable
    2
    """

    concordant: int | float
    discordant: int | float
    tied_risk: int | float
    comparable: int | float


def concordance_counts(y, risk, *, tied_tol=TIED_TOL, sample_weight=None) -> ConcordanceCounts:
    """Concordant, discordant and risk-tied pairs among Harrell's comparable pairs.

    Parameters
    ----------
    y : structured array of shape (n_samples,) or tuple (event, time)
        The survival target: a boolean event field and a time field (as scikit-survival's
        ``Surv.from_arrays`` or :func:`aucopt.survival_target`), or an ``(event, time)`` pair.
    risk : array-like of shape (n_samples,)
        Predicted risk; higher means an earlier event.
    tied_tol : float, default=1e-8
        Risks differing by at most ``tied_tol · max|risk|`` count as tied (relative to the
        largest risk magnitude, so that rescaling the risks changes nothing); 0 ties only equal
        risks.
    sample_weight : float or array-like of shape (n_samples,), default=None
        Non-negative case weights; a comparable pair (i, j) counts with weight w_i · w_j.
        Integer weights equal repeating rows; a zero weight equals removing the row (it does
        not enter the tie tolerance either). None: every sample weighs 1.

    Returns
    -------
    counts : ConcordanceCounts
        Exact integer counts (float weighted sums with ``sample_weight``); all zero when no
        pair is comparable.

    See Also
    --------
    harrell_c : The concordance index from these counts.

    Notes
    -----
    A pair (i, j) is comparable when subject i had the event and t_i < t_j, or t_i = t_j and j
    is censored (Harrell et al. 1982; the convention of scikit-survival and lifelines). It is
    tied when ``|risk_i − risk_j| ≤ τ`` (τ = ``tied_tol`` · max|risk|), concordant when risk_i >
    risk_j otherwise, and discordant otherwise; these are the counts of scikit-survival's
    ``concordance_index_censored(..., tied_tol=τ)`` (whose tolerance is absolute). The comparable partners of each event
    form a suffix of the time order, counted by a merge sort over the risks in O(m log² m)
    (with τ > 0 the thresholds risk_i ± τ of the events join the sort); no pair is listed.
    With case weights the same merge sort carries prefix sums of the partners' weights
    (the thresholds weigh 0), and each event's sums are multiplied by its own weight.

    References
    ----------
    .. [1] Harrell, F. E., Califf, R. M., Pryor, D. B., Lee, K. L., & Rosati, R. A. (1982).
       Evaluating the yield of medical tests. *JAMA*, 247(18), 2543–2546.

    Examples
    --------
    >>> from aucopt.metrics import concordance_counts
    >>> event = [True, False, True, True]
    >>> time = [1.0, 2.0, 3.0, 4.0]
    >>> concordance_counts((event, time), [0.3, 0.1, 0.2, 0.2])
    ConcordanceCounts(concordant=3, discordant=0, tied_risk=1, comparable=4)
    """
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


def harrell_c(y, risk, *, ties="half", tied_tol=TIED_TOL, sample_weight=None) -> float:
    """Harrell's concordance index of risk scores for right-censored survival data.

    Parameters
    ----------
    y : structured array of shape (n_samples,) or tuple (event, time)
        The survival target (see :func:`concordance_counts`).
    risk : array-like of shape (n_samples,)
        Predicted risk; higher means an earlier event.
    ties : {"half", "strict"}, default="half"
        Credit of a comparable pair with equal risks: ½ (as scikit-survival and lifelines) or 0.
    tied_tol : float, default=1e-8
        Risks differing by at most ``tied_tol · max|risk|`` count as tied (relative to the
        largest risk magnitude, so that rescaling the risks changes nothing); 0 ties only equal
        risks.
    sample_weight : float or array-like of shape (n_samples,), default=None
        Non-negative case weights; a comparable pair (i, j) counts with weight w_i · w_j in the
        numerator and the denominator (see Notes). Integer weights equal repeating rows; a zero
        weight equals removing the row. None: every sample weighs 1.

    Returns
    -------
    cindex : float
        (concordant + c · tied_risk) / comparable, c = ½ or 0 (weighted sums with
        ``sample_weight``).

    Raises
    ------
    ValueError
        When no pair is comparable (e.g. every sample is censored), or no comparable pair has
        positive weight.

    See Also
    --------
    concordance_counts : The pair counts.
    roc_auc : The binary-label counterpart.

    Notes
    -----
    Risks within τ = ``tied_tol`` · max|risk| of each other tie, as in scikit-survival's
    ``concordance_index_censored`` with ``tied_tol=τ`` (its tolerance is absolute, default
    1e-8: the same for risks of magnitude 1). The tolerance makes the index insensitive to
    round-off: one model fitted on ``X`` and on ``scipy.sparse.csr_matrix(X)`` predicts risks
    differing by about 1e-14 and scores the same; being relative, it also leaves the index
    unchanged when the risks are rescaled (an absolute 1e-8 ties every pair of risks of
    magnitude 1e-9). ``tied_tol=0`` ties only equal risks, as lifelines' ``concordance_index``.
    The pairs are those of :func:`concordance_counts` (Harrell et al. 1982).

    With case weights w, the weighted concordance is

        C_w = Σ_{(i, j) comparable} w_i w_j ([risk_i > risk_j] + c [risk_i ≈ risk_j])
              / Σ_{(i, j) comparable} w_i w_j,

    Harrell's C of a population in which sample i stands for w_i subjects: integer weights
    give exactly Harrell's C of the data with row i repeated w_i times (two copies of one row
    are never comparable: that needs an event and a censored sample), and for binary data
    (event = positive, time = 1 − label) it is the weighted AUC of :func:`roc_auc`. Weights
    that depend on the pair, such as the inverse-probability-of-censoring weights of Uno et al.
    (2011), define a different estimator.

    References
    ----------
    .. [1] Harrell, F. E., Califf, R. M., Pryor, D. B., Lee, K. L., & Rosati, R. A. (1982).
       Evaluating the yield of medical tests. *JAMA*, 247(18), 2543–2546.
    .. [2] Uno, H., Cai, T., Pencina, M. J., D'Agostino, R. B., & Wei, L. J. (2011). On the
       C-statistics for evaluating overall adequacy of risk prediction procedures with censored
       survival data. *Statistics in Medicine*, 30(10), 1105–1117.

    Examples
    --------
    >>> from aucopt.metrics import harrell_c
    >>> event = [True, False, True, True]
    >>> time = [1.0, 2.0, 3.0, 4.0]
    >>> harrell_c((event, time), [0.3, 0.1, 0.2, 0.2]), harrell_c((event, time), [0.3, 0.1, 0.2, 0.2], ties="strict")
    (0.875, 0.75)

    Case weights: weight 3 on the last subject is the same as three copies of it.

    >>> harrell_c((event, time), [0.3, 0.1, 0.2, 0.2], sample_weight=[1, 1, 1, 3])
    0.8125
    >>> harrell_c(([True, False, True, True, True, True], [1.0, 2.0, 3.0, 4.0, 4.0, 4.0]),
    ...           [0.3, 0.1, 0.2, 0.2, 0.2, 0.2])
    0.8125
    """
    ties = _check_ties(ties)
    counts = concordance_counts(y, risk, tied_tol=tied_tol, sample_weight=sample_weight)
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
