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

References: Hanley & McNeil (1982) for the AUC as the Wilcoxon–Mann–Whitney statistic;
Harrell et al. (1982) for the concordance index.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .pairs._order import suffix_less_equal_counts
from ._validation import binary_labels, check_consistent_length, check_finite_1d, survival_arrays
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


def _tie_credited_ratio(wins: int, tied: int, total: int, ties: str) -> float:
    """``(wins + c * tied) / total`` with ``c`` = 1/2 or 0, as one correctly rounded division."""
    if ties == "half":
        return (2 * int(wins) + int(tied)) / (2 * int(total))
    return int(wins) / int(total)


def roc_auc(y_true, y_score, *, ties="half", pos_label=None, tied_tol=TIED_TOL) -> float:
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

    Returns
    -------
    auc : float
        The fraction of (positive, negative) pairs ranked correctly, tied pairs credited by
        ``ties``.

    See Also
    --------
    harrell_c : The same pair-counting idea for censored survival data.
    sklearn.metrics.roc_auc_score : Equal to ``roc_auc(..., ties="half", tied_tol=0)``.

    Notes
    -----
    With n₊ positives and n₋ negatives,

        AUC = (1/(n₊ n₋)) Σ_{i pos} Σ_{j neg} ([f_i > f_j] + c [f_i = f_j]),

    c = ½ or 0, the Wilcoxon–Mann–Whitney statistic (Hanley & McNeil 1982), where with the
    tolerance τ = ``tied_tol`` · max|f| "f_i > f_j" means f_j < f_i − τ and "f_i = f_j" means
    |f_i − f_j| ≤ τ. The default ``tied_tol=1e-8`` makes the AUC insensitive to round-off (a
    model fitted on dense and on sparse ``X`` scores alike) at any scale of the scores; it differs from
    :func:`sklearn.metrics.roc_auc_score` only when a positive and a negative score differ by
    at most τ without being equal. The negatives are sorted once and every positive is
    located by binary search: O(m log m), no pair listed. The counts are exact integers and
    the ratio is one correctly rounded division.

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
    """
    ties = _check_ties(ties)
    tied_tol = _check_tied_tol(tied_tol)
    y_score = check_finite_1d(y_score, "y_score")
    y_arr = np.asarray(y_true)
    check_consistent_length(y_true=y_arr, y_score=y_score)
    is_pos, _ = binary_labels(y_arr, pos_label=pos_label)
    pos_scores = y_score[is_pos]
    neg_sorted = np.sort(y_score[~is_pos])
    tol = _absolute_tol(tied_tol, y_score)
    lower, upper = _tie_bounds(pos_scores, tol) if tol > 0 else (pos_scores, pos_scores)
    below = np.searchsorted(neg_sorted, lower, side="left")  # #{j neg : f_j < f_i, not tied}
    at_most = np.searchsorted(neg_sorted, upper, side="right")  # #{j neg : f_j <= f_i or tied}
    wins = int(below.sum())
    tied = int((at_most - below).sum())
    return _tie_credited_ratio(wins, tied, len(pos_scores) * len(neg_sorted), ties)


class ConcordanceCounts(NamedTuple):
    """Pair counts over Harrell's comparable pairs, returned by :func:`concordance_counts`.

    ``concordant + discordant + tied_risk == comparable``.

    Attributes
    ----------
    concordant : int
        Comparable pairs (i, j) with risk_i > risk_j + tied_tol (the earlier event has the
        higher risk).
    discordant : int
        Comparable pairs with risk_i < risk_j − tied_tol.
    tied_risk : int
        Comparable pairs with |risk_i − risk_j| ≤ tied_tol.
    comparable : int
        All comparable pairs.

    Examples
    --------
    >>> from aucopt.metrics import concordance_counts
    >>> concordance_counts(([True, False, True], [1.0, 2.0, 3.0]), [0.9, 0.5, 0.7]).comparable
    2
    """

    concordant: int
    discordant: int
    tied_risk: int
    comparable: int


def concordance_counts(y, risk, *, tied_tol=TIED_TOL) -> ConcordanceCounts:
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

    Returns
    -------
    counts : ConcordanceCounts
        Exact integer counts; all zero when no pair is comparable.

    See Also
    --------
    harrell_c : The concordance index from these counts.

    Notes
    -----
    A pair (i, j) is comparable when subject i had the event and t_i < t_j, or t_i = t_j and j
    is censored (Harrell et al. 1982; the convention of scikit-survival and lifelines). It is
    tied when |risk_i − risk_j| ≤ τ (τ = ``tied_tol`` · max|risk|), concordant when risk_i >
    risk_j otherwise, and discordant otherwise; these are the counts of scikit-survival's
    ``concordance_index_censored(..., tied_tol=τ)`` (whose tolerance is absolute). The comparable partners of each event
    form a suffix of the time order, counted by a merge sort over the risks in O(m log² m)
    (with τ > 0 the thresholds risk_i ± τ of the events join the sort); no pair is listed.

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
    pairs = PairSet.survival(event, time)  # each event's comparable partners: a suffix of pairs.order
    events = np.flatnonzero(event)
    start = pairs.start[events]
    comparable = int((len(time) - start).sum())
    tol = _absolute_tol(tied_tol, risk)
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


def harrell_c(y, risk, *, ties="half", tied_tol=TIED_TOL) -> float:
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

    Returns
    -------
    cindex : float
        (concordant + c · tied_risk) / comparable, c = ½ or 0.

    Raises
    ------
    ValueError
        When no pair is comparable (e.g. every sample is censored).

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

    References
    ----------
    .. [1] Harrell, F. E., Califf, R. M., Pryor, D. B., Lee, K. L., & Rosati, R. A. (1982).
       Evaluating the yield of medical tests. *JAMA*, 247(18), 2543–2546.

    Examples
    --------
    >>> from aucopt.metrics import harrell_c
    >>> event = [True, False, True, True]
    >>> time = [1.0, 2.0, 3.0, 4.0]
    >>> harrell_c((event, time), [0.3, 0.1, 0.2, 0.2]), harrell_c((event, time), [0.3, 0.1, 0.2, 0.2], ties="strict")
    (0.875, 0.75)
    """
    ties = _check_ties(ties)
    counts = concordance_counts(y, risk, tied_tol=tied_tol)
    if counts.comparable == 0:
        raise ValueError(
            "No comparable pairs: Harrell's C needs at least one event followed by a later "
            "time (or a censored sample at the same time); e.g. not every sample may be censored."
        )
    return _tie_credited_ratio(counts.concordant, counts.tied_risk, counts.comparable, ties)
