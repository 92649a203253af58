"""Ranking metrics: the empirical AUC and Harrell's concordance index, without listing pairs.

* :func:`roc_auc` — Wilcoxon–Mann–Whitney AUC of scores ``f`` for binary labels,
  ``AUC = 1/(n+ n-) * sum_{i pos, j neg} ([f_i > f_j] + c [f_i = f_j])`` with tie credit
  ``c = 1/2`` (``ties="half"``, equal to ``sklearn.metrics.roc_auc_score``) or ``c = 0``
  (``ties="strict"``).
* :func:`concordance_counts` / :func:`harrell_c` — Harrell's C of risk scores ``r`` for
  right-censored data over the comparable pairs ``(i, j)``: ``event_i`` and
  (``t_i < t_j``, or ``t_i == t_j`` and not ``event_j``). A pair is concordant when
  ``r_i > r_j`` (higher risk = earlier event) and tied when ``r_i == r_j``.

Counts are exact integers; no pair is ever materialized.

References: Hanley & McNeil (1982) for the AUC as the Wilcoxon–Mann–Whitney statistic;
Harrell et al. (1982) for the concordance index.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .pairs._order import suffix_less_equal_counts
from ._validation import binary_labels, check_consistent_length, check_finite_1d, survival_arrays
from .pairs import PairSet

__all__ = ["ConcordanceCounts", "concordance_counts", "harrell_c", "roc_auc"]

TIE_MODES = ("half", "strict")


def _check_ties(ties) -> str:
    if ties not in TIE_MODES:
        raise ValueError(f"ties must be one of {TIE_MODES}, got {ties!r}.")
    return ties


def _tie_credited_ratio(wins: int, tied: int, total: int, ties: str) -> float:
    """``(wins + c * tied) / total`` with ``c`` = 1/2 or 0, as one correctly rounded division."""
    if ties == "half":
        return (2 * int(wins) + int(tied)) / (2 * int(total))
    return int(wins) / int(total)


def roc_auc(y_true, y_score, *, ties="half", pos_label=None) -> float:
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

    Returns
    -------
    auc : float
        The fraction of (positive, negative) pairs ranked correctly, tied pairs credited by
        ``ties``.

    See Also
    --------
    harrell_c : The same pair-counting idea for censored survival data.
    sklearn.metrics.roc_auc_score : Equal to ``roc_auc(..., ties="half")``.

    Notes
    -----
    With n₊ positives and n₋ negatives,

        AUC = (1/(n₊ n₋)) Σ_{i pos} Σ_{j neg} ([f_i > f_j] + c [f_i = f_j]),

    c = ½ or 0, the Wilcoxon–Mann–Whitney statistic (Hanley & McNeil 1982). The negatives are
    sorted once and every positive is located by binary search: O(m log m), no pair listed.
    The counts are exact integers and the ratio is one correctly rounded division.

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
    y_score = check_finite_1d(y_score, "y_score")
    y_arr = np.asarray(y_true)
    check_consistent_length(y_true=y_arr, y_score=y_score)
    is_pos, _ = binary_labels(y_arr, pos_label=pos_label)
    pos_scores = y_score[is_pos]
    neg_sorted = np.sort(y_score[~is_pos])
    below = np.searchsorted(neg_sorted, pos_scores, side="left")  # #{j neg : f_j < f_i}
    at_most = np.searchsorted(neg_sorted, pos_scores, side="right")  # #{j neg : f_j <= f_i}
    wins = int(below.sum())
    tied = int((at_most - below).sum())
    return _tie_credited_ratio(wins, tied, len(pos_scores) * len(neg_sorted), ties)


class ConcordanceCounts(NamedTuple):
    """Pair counts over Harrell's comparable pairs, returned by :func:`concordance_counts`.

    ``concordant + discordant + tied_risk == comparable``.

    Attributes
    ----------
    concordant : int
        Comparable pairs (i, j) with risk_i > risk_j (the earlier event has the higher risk).
    discordant : int
        Comparable pairs with risk_i < risk_j.
    tied_risk : int
        Comparable pairs with risk_i == risk_j.
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


def concordance_counts(y, risk) -> ConcordanceCounts:
    """Concordant, discordant and risk-tied pairs among Harrell's comparable pairs.

    Parameters
    ----------
    y : structured array of shape (n_samples,) or tuple (event, time)
        The survival target: a boolean event field and a time field (as scikit-survival's
        ``Surv.from_arrays`` or :func:`aucopt.survival_target`), or an ``(event, time)`` pair.
    risk : array-like of shape (n_samples,)
        Predicted risk; higher means an earlier event.

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
    concordant when risk_i > risk_j, tied when risk_i = risk_j and discordant otherwise. The
    comparable partners of each event form a suffix of the time order, counted by a merge
    sort over the risks in O(m log² m); no pair is listed.

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
    event, time = survival_arrays(y)
    risk = check_finite_1d(risk, "risk")
    check_consistent_length(y=event, risk=risk)
    pairs = PairSet.survival(event, time)  # each event's comparable partners: a suffix of pairs.order
    events = np.flatnonzero(event)
    start = pairs.start[events]
    counts = suffix_less_equal_counts(pairs.order, start, risk, events)
    comparable = int((len(time) - start).sum())
    concordant = int(counts.less.sum())
    tied_risk = int(counts.equal.sum())
    return ConcordanceCounts(
        concordant=concordant,
        discordant=comparable - concordant - tied_risk,
        tied_risk=tied_risk,
        comparable=comparable,
    )


def harrell_c(y, risk, *, ties="half") -> float:
    """Harrell's concordance index of risk scores for right-censored survival data.

    Parameters
    ----------
    y : structured array of shape (n_samples,) or tuple (event, time)
        The survival target (see :func:`concordance_counts`).
    risk : array-like of shape (n_samples,)
        Predicted risk; higher means an earlier event.
    ties : {"half", "strict"}, default="half"
        Credit of a comparable pair with equal risks: ½ (as scikit-survival and lifelines) or 0.

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
    Risks tie only when exactly equal, as in lifelines' ``concordance_index`` and
    scikit-survival's ``concordance_index_censored(..., tied_tol=0)``; scikit-survival's
    default also ties risks within 1e-8. The pairs are those of :func:`concordance_counts`
    (Harrell et al. 1982).

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
    counts = concordance_counts(y, risk)
    if counts.comparable == 0:
        raise ValueError(
            "No comparable pairs: Harrell's C needs at least one event followed by a later "
            "time (or a censored sample at the same time); e.g. not every sample may be censored."
        )
    return _tie_credited_ratio(counts.concordant, counts.tied_risk, counts.comparable, ties)
