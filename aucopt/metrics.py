"""Ranking metrics: the empirical AUC and Harrell's concordance index, in O(m log m).

* :func:`roc_auc` — Wilcoxon–Mann–Whitney AUC of scores ``f`` for binary labels,
  ``AUC = 1/(n+ n-) * sum_{i pos, j neg} ([f_i > f_j] + c [f_i = f_j])`` with tie credit
  ``c = 1/2`` (``ties="half"``, equal to ``sklearn.metrics.roc_auc_score``) or ``c = 0``
  (``ties="strict"``).
* :func:`concordance_counts` / :func:`harrell_c` — Harrell's C of risk scores ``r`` for
  right-censored data over the comparable pairs ``(i, j)``: ``event_i`` and
  (``t_i < t_j``, or ``t_i == t_j`` and not ``event_j``). A pair is concordant when
  ``r_i > r_j`` (higher risk = earlier event) and tied when ``r_i == r_j``.

Counts are exact integers; no pair is ever materialized.
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


def roc_auc(y_true, y_score, *, ties: str = "half", pos_label=None) -> float:
    """Area under the ROC curve as the normalized Wilcoxon–Mann–Whitney statistic.

    ``AUC = 1/(n+ n-) * sum_{i pos, j neg} ([f_i > f_j] + c [f_i = f_j])``,
    ``c = 1/2`` for ``ties="half"`` (identical to ``sklearn.metrics.roc_auc_score``) and
    ``c = 0`` for ``ties="strict"`` (tied pairs count as errors).

    Parameters
    ----------
    y_true : array of shape (m,)
        Two-valued labels: {0, 1}, {-1, 1}, bool, strings, ...
    y_score : array of shape (m,)
        Real-valued scores; higher means "more positive".
    ties : {"half", "strict"}
        Credit given to a positive–negative pair with equal scores.
    pos_label : optional
        The positive class; defaults to the larger label value (see ``binary_labels``).

    Sorts the negatives once and binary-searches every positive: ``O(m log m)``.
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
    """Pair counts over Harrell's comparable set (``concordant + discordant + tied_risk == comparable``)."""

    concordant: int
    discordant: int
    tied_risk: int
    comparable: int


def concordance_counts(y, risk) -> ConcordanceCounts:
    """Concordant, discordant and risk-tied pairs among Harrell's comparable pairs.

    Comparable: ``(i, j)`` with ``event_i`` and (``t_i < t_j`` or ``t_i == t_j`` and not
    ``event_j``). Concordant: ``risk_i > risk_j``; tied: ``risk_i == risk_j``; discordant:
    ``risk_i < risk_j``.

    Parameters
    ----------
    y : survival target
        Structured array (boolean event field + time field, as in scikit-survival) or an
        ``(event, time)`` tuple.
    risk : array of shape (m,)
        Predicted risk; higher means an earlier event.

    ``O(m log^2 m)`` via :func:`aucopt._order.suffix_less_equal_counts`.
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


def harrell_c(y, risk, *, ties: str = "half") -> float:
    """Harrell's concordance index ``(concordant + c * tied_risk) / comparable``.

    ``c = 1/2`` for ``ties="half"`` (as scikit-survival and lifelines) and ``c = 0`` for
    ``ties="strict"``; see :func:`concordance_counts` for the pair definitions. Risks tie only
    when exactly equal, as in lifelines and ``concordance_index_censored(..., tied_tol=0)``;
    scikit-survival's default also ties risks within 1e-8.
    Raises ``ValueError`` when no pair is comparable (e.g. every sample censored).
    """
    ties = _check_ties(ties)
    counts = concordance_counts(y, risk)
    if counts.comparable == 0:
        raise ValueError(
            "No comparable pairs: Harrell's C needs at least one event followed by a later "
            "time (or a censored sample at the same time); e.g. not every sample may be censored."
        )
    return _tie_credited_ratio(counts.concordant, counts.tied_risk, counts.comparable, ties)
