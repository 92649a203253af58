"""Ranking metrics: the empirical AUC and Harrell's concordance index, without listing pairs.

* :func:`roc_auc` — Wilcoxon–Mann–Whitney AUC of scores ``f`` for binary labels,
  ``AUC = 1/(n+ n-) * sum_{i pos, j neg} ([f_i > f_j] + c [f_i = f_j])`` with tie credit
  ``c = 1/2`` (``ties="half"``, equal to ``sklearn.metrics.roc_auc_score``) or ``c = 0``
  (``ties="strict"``).
* :func:`xauc` — the cross-group AUCs xAUC(a, b) and xAUC(b, a) of Kallus & Zhou (2019): the AUC
  of the positives of one group against the negatives of the other, and their gap.
* :func:`multipartite_c_index` — the C-index of multipartite (ordinal) ranking (Fürnkranz,
  Hüllermeier & Vanderlooy 2009): the tie-credited fraction of the pairs ``y_i > y_j`` of ordered
  levels with ``f_i > f_j``; for two levels the AUC.
* :func:`concordance_counts` / :func:`harrell_c` — Harrell's C of risk scores ``r`` for
  right-censored data over the comparable pairs ``(i, j)``: ``event_i`` and
  (``t_i < t_j``, or ``t_i == t_j`` and not ``event_j``). A pair is concordant when
  ``r_i > r_j`` (higher risk = earlier event) and tied when ``r_i == r_j``.

Scores (risks) count as tied when they differ by at most ``tied_tol · max|score|`` (default
``tied_tol=1e-8``, scikit-survival's ``concordance_index_censored`` tolerance relative to the
scores' magnitude), so round-off (e.g. dense vs sparse ``X``) does not change a metric, and
neither does rescaling the scores; ``tied_tol=0`` ties only exactly equal values. Counts are exact
integers; no pair is ever materialized.

Dask arrays, Series and (as a survival target) DataFrames are accepted wherever numpy arrays
are: the n-vectors are computed to the driver in one ``dask.compute`` call
(:func:`aucopt.distributed.gather_vectors`, reached through the array backends of
:mod:`aucopt._dispatch`; 26 to 124 bytes a row on the driver in all) and counted there, so the
value equals the in-memory one exactly, whatever the chunking.

The counting runs in compiled code (numba, compiled on the first call on a machine and cached):
one numpy sort per class for the AUC, then a linear merge of the two sorted classes; two sorts
(by time, by risk) for Harrell's C, then one Fenwick-tree (binary indexed tree) sweep over the
time order, O(m log m) in all.

With ``sample_weight`` (case weights w), a pair (i, j) counts with weight ``w_i · w_j`` in the
numerator and the denominator: the weighted AUC is scikit-learn's weighted ``roc_auc_score``, and
integer weights give the metric of the data with row i repeated ``w_i`` times (a zero weight
removes the row). The weighted sums are computed in the same passes.

References: Hanley & McNeil (1982) for the AUC as the Wilcoxon–Mann–Whitney statistic;
Harrell et al. (1982) for the concordance index.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ._dispatch import call_in_memory
from ._metric_rules import (
    TIED_TOL,
    TieMode,
    absolute_tol,
    check_tied_tol,
    check_ties,
    compiled_kernels,
    tie_credited_ratio,
)
from ._survival_metrics import (
    CensoringSurvival,
    brier_score,
    censoring_survival,
    cumulative_dynamic_auc,
    integrated_brier_score,
    uno_c,
    uno_c_scorer,
)
from ._validation import (
    binary_labels,
    check_consistent_length,
    check_finite_1d,
    check_point_weights,
    is_dask_collection,
    survival_arrays,
)
from .exceptions import NoComparablePairsError
from .pairs import ordinal_codes

__all__ = [
    "TIED_TOL",
    "CensoringSurvival",
    "ConcordanceCounts",
    "CrossGroupAUC",
    "brier_score",
    "censoring_survival",
    "concordance_counts",
    "cumulative_dynamic_auc",
    "harrell_c",
    "integrated_brier_score",
    "multipartite_c_index",
    "roc_auc",
    "uno_c",
    "uno_c_scorer",
    "xauc",
]


def _positive_weight_rows(sample_weight, n_samples: int):
    """``sample_weight`` validated, and the mask of rows with positive weight (None: no weights).

    Rows of zero weight enter no pair; they are dropped before anything (the tie tolerance
    included) is computed, so a zero weight is the same as removing the row.
    """
    weights = check_point_weights(sample_weight, n_samples, "sample_weight")
    if weights is None:
        return None, None
    return weights, weights > 0


def roc_auc(y_true: ArrayLike, y_score: ArrayLike, *, ties: TieMode = "half", pos_label: Any = None,
            tied_tol: float = TIED_TOL, sample_weight: ArrayLike | float | None = None) -> float:
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
    at most τ without being equal. Each class is sorted once and the two sorted lists are merged:
    walking up the positives, two pointers into the negatives mark the first negative not below
    the current positive and the first one above it (O(m log m) for the sorts, O(m) for the
    merge; no pair listed). The counts are exact integers and the ratio is one correctly
    rounded division; with weights, the negatives' weights are summed along their sorted order
    and each positive reads its two prefix sums.

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
    if is_dask_collection(y_true, y_score, sample_weight):
        return call_in_memory(roc_auc, y_true, y_score, ties=ties, pos_label=pos_label, tied_tol=tied_tol,
                              sample_weight=sample_weight)
    ties = check_ties(ties)
    tied_tol = check_tied_tol(tied_tol)
    score = check_finite_1d(y_score, "y_score")
    y_arr = np.asarray(y_true)
    check_consistent_length(y_true=y_arr, y_score=score)
    is_pos, _ = binary_labels(y_arr, pos_label=pos_label)
    weights, keep = _positive_weight_rows(sample_weight, len(score))
    if weights is not None:
        is_pos, score, weights = is_pos[keep], score[keep], weights[keep]
    tol = absolute_tol(tied_tol, score)
    if weights is None:
        return _two_sample_auc(score[is_pos], score[~is_pos], None, None, tol, ties)
    pos_weight, neg_weight = weights[is_pos], weights[~is_pos]
    _check_class_weights(pos_weight, neg_weight)
    return _two_sample_auc(score[is_pos], score[~is_pos], pos_weight, neg_weight, tol, ties)


def _check_class_weights(pos_weight: np.ndarray, neg_weight: np.ndarray) -> None:
    """Raise unless both classes keep a positive total ``sample_weight`` (the AUC's denominator)."""
    pos_total, neg_total = float(pos_weight.sum()), float(neg_weight.sum())
    if pos_total * neg_total == 0:
        raise ValueError(
            f"sample_weight gives the positive or the negative class a total weight of zero (positives: "
            f"{pos_total:g}, negatives: {neg_total:g}): the AUC needs both classes with positive weight."
        )


def _group_labels(groups: np.ndarray, name: str = "groups") -> list:
    """The distinct labels of ``groups`` as plain Python objects, sorted; clear errors for NaN or
    labels of types that cannot be ordered."""
    if groups.dtype.kind in "fc" and not np.all(np.isfinite(groups)):
        raise ValueError(
            f"{name} contains {int(np.sum(~np.isfinite(groups)))} NaN or infinite label(s); give each "
            "sample a group or drop it."
        )
    try:
        labels = np.unique(groups)
    except TypeError as exc:  # an object array mixing e.g. str and None
        kinds = sorted({type(v).__name__ for v in groups.tolist()})
        raise ValueError(
            f"{name} mixes label types ({', '.join(kinds)}), which cannot be ordered; use labels of one "
            f"type, e.g. all strings ({name}.astype(str)) or all numbers."
        ) from exc
    return [label.item() if hasattr(label, "item") else label for label in labels]


def _two_sample_auc(pos_scores, neg_scores, pos_weight, neg_weight, tol: float, ties: str) -> float:
    """The tie-credited fraction of (positive, negative) pairs ranked correctly, by sorting and merging.

    ``pos_weight`` / ``neg_weight`` None: unit weights, exact integer counts; otherwise pair (i, j)
    weighs ``w_i · w_j`` (both totals must be positive). ``tol`` is the absolute tie tolerance.
    """
    if pos_weight is None:
        pos_sorted, neg_sorted = np.sort(pos_scores), np.sort(neg_scores)
        wins, at_most = compiled_kernels().auc_counts(pos_sorted, neg_sorted, tol)
        return tie_credited_ratio(wins, at_most - wins, len(pos_sorted) * len(neg_sorted), ties)
    total = float(pos_weight.sum()) * float(neg_weight.sum())
    kernels = compiled_kernels()
    pos_order, pos_sorted = kernels.argsort(pos_scores)
    neg_order, neg_sorted = kernels.argsort(neg_scores)
    wins, tied = kernels.auc_weighted(pos_sorted, pos_weight[pos_order], neg_sorted, neg_weight[neg_order], tol)
    return tie_credited_ratio(wins, max(tied, 0.0), total, ties)


class CrossGroupAUC(NamedTuple):
    """The two cross-group AUCs of two groups a and b, returned by :func:`xauc`.

    Attributes
    ----------
    ab : float
        xAUC(a, b): the fraction of pairs (positive in group a, negative in group b) ranked
        correctly.
    ba : float
        xAUC(b, a): the same for positives in group b against negatives in group a.
    group_a, group_b : object
        The two group labels (equal when ``groups`` holds a single label).

    See Also
    --------
    xauc : computes it.

    Examples
    --------
    >>> from aucopt.metrics import CrossGroupAUC
    >>> result = CrossGroupAUC(0.75, 0.5, "f", "m")
    >>> result.gap
    0.25
    """

    ab: float
    ba: float
    group_a: object
    group_b: object

    @property
    def gap(self) -> float:
        """The xAUC disparity Δ = xAUC(a, b) − xAUC(b, a) (Kallus & Zhou 2019)."""
        return self.ab - self.ba


def xauc(y_true: ArrayLike, y_score: ArrayLike, groups: ArrayLike, *, group_a: Any = None,
         ties: TieMode = "half", pos_label: Any = None, tied_tol: float = TIED_TOL,
         sample_weight: ArrayLike | float | None = None) -> CrossGroupAUC:
    """Cross-group AUCs xAUC(a, b) and xAUC(b, a) of a score over two groups (Kallus & Zhou 2019).

    xAUC(a, b) = P(f(X) > f(X′) | X positive in group a, X′ negative in group b): how often a
    positive of group a is ranked above a negative of group b. The disparity
    Δ = xAUC(a, b) − xAUC(b, a) (``result.gap``) is zero for a score that ranks the positives
    of either group above the negatives of the other equally well.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Two class labels: {0, 1}, {-1, 1}, bool, strings, ...
    y_score : array-like of shape (n_samples,)
        Real-valued scores; higher means "more positive".
    groups : array-like of shape (n_samples,)
        The group of each sample: one or two distinct labels (e.g. a protected attribute).
        With a single label, a = b and both cross-group AUCs equal :func:`roc_auc`.
    group_a : object, default=None
        The label playing group a; None means the smaller of the two labels.
    ties : {"half", "strict"}, default="half"
        Credit of a pair with equal scores: ½ or 0, as in :func:`roc_auc`.
    pos_label : int, float, bool or str, default=None
        The positive class; None means the larger of the two labels.
    tied_tol : float, default=1e-8
        Scores differing by at most ``tied_tol · max|y_score|`` (over all samples, so the
        tolerance is the one :func:`roc_auc` uses on the same data) count as tied.
    sample_weight : float or array-like of shape (n_samples,), default=None
        Non-negative case weights; a pair (i, j) counts with weight w_i · w_j, as in
        :func:`roc_auc`. None: every sample weighs 1.

    Returns
    -------
    result : CrossGroupAUC
        ``result.ab`` = xAUC(a, b), ``result.ba`` = xAUC(b, a), the labels ``group_a`` and
        ``group_b``, and ``result.gap`` = Δ.

    Raises
    ------
    ValueError
        For labels that are not two classes, non-finite scores, inconsistent lengths, ``groups``
        with NaN labels, labels of types that cannot be ordered or more than two labels, a
        ``group_a`` that is not one of them, ``sample_weight`` that leaves a class or
        ``group_a`` with zero total weight, or a group without a positive or without a negative
        (of positive total weight), which leaves a cross-group AUC undefined.

    See Also
    --------
    roc_auc : the AUC over all (positive, negative) pairs.

    Notes
    -----
    Each cross-group AUC is the AUC of two disjoint samples (positives of one group, negatives
    of the other), computed as :func:`roc_auc` does: one sort per sample and a linear merge,
    O(m log m) with no pair listed; ties within ``tied_tol`` get credit ½ (``ties="half"``).
    With n_g± the positives and negatives of group g, the pooled AUC is the pair-count weighted
    mean of the four within- and cross-group AUCs:
    AUC · n₊n₋ = Σ_{g, h ∈ {a, b}} n_g₊ n_h₋ xAUC(g, h), with xAUC(g, g) the AUC within g.

    References
    ----------
    .. [1] Kallus, N., & Zhou, A. (2019). The fairness of risk scores beyond classification:
       bipartite ranking and the xAUC metric. *Advances in Neural Information Processing
       Systems 32 (NeurIPS 2019)*.

    Examples
    --------
    >>> from aucopt.metrics import xauc
    >>> y = [1, 1, 0, 0, 1, 1, 0, 0]
    >>> score = [0.9, 0.6, 0.5, 0.1, 0.7, 0.05, 0.8, 0.2]
    >>> group = ["f", "f", "f", "f", "m", "m", "m", "m"]
    >>> result = xauc(y, score, group)
    >>> result.ab, result.ba, result.gap
    (0.75, 0.5, 0.25)
    >>> xauc(y, score, group, group_a="m").gap
    -0.25
    """
    if is_dask_collection(y_true, y_score, groups, sample_weight):
        return call_in_memory(xauc, y_true, y_score, groups, group_a=group_a, ties=ties, pos_label=pos_label,
                              tied_tol=tied_tol, sample_weight=sample_weight)
    ties = check_ties(ties)
    tied_tol = check_tied_tol(tied_tol)
    score = check_finite_1d(y_score, "y_score")
    y_arr, group_arr = np.asarray(y_true), np.asarray(groups)
    if group_arr.ndim != 1:
        raise ValueError(f"groups must be a 1-d array of group labels, got shape {group_arr.shape}.")
    check_consistent_length(y_true=y_arr, y_score=score, groups=group_arr)
    is_pos, _ = binary_labels(y_arr, pos_label=pos_label)
    all_labels = _group_labels(group_arr)
    if group_a is not None and (np.ndim(group_a) != 0 or group_a not in all_labels):
        raise ValueError(f"group_a={group_a!r} is not a label of groups {all_labels[:6]}: pass one of them "
                         "or None.")
    if group_a is not None:
        group_a = all_labels[all_labels.index(group_a)]  # the plain Python label (np.int64(1) -> 1)
    weights, keep = _positive_weight_rows(sample_weight, len(score))
    if weights is not None:
        is_pos, score, group_arr, weights = is_pos[keep], score[keep], group_arr[keep], weights[keep]
        _check_class_weights(weights[is_pos], weights[~is_pos])
    labels = _group_labels(group_arr)  # a zero weight removes the row, and a group of zero weight with it
    if len(labels) > 2:
        raise ValueError(f"groups has {len(labels)} labels {labels[:6]}: xauc compares two groups; "
                         "merge the labels into two groups first.")
    if group_a is None:
        group_a = labels[0]
    elif group_a not in labels:
        raise ValueError(f"sample_weight is zero on every sample of group_a={group_a!r}: xAUC({group_a!r}, ·) "
                         f"is undefined; give group {group_a!r} samples of positive weight.")
    group_b = next((g for g in labels if g != group_a), group_a)
    tol = absolute_tol(tied_tol, score)

    def cross(g: Any, h: Any) -> float:
        pos, neg = is_pos & (group_arr == g), ~is_pos & (group_arr == h)
        pos_w, neg_w = (None, None) if weights is None else (weights[pos], weights[neg])
        total = (pos.sum(), neg.sum()) if pos_w is None or neg_w is None else (pos_w.sum(), neg_w.sum())
        for count, kind, label in zip(total, ("positive", "negative"), (g, h), strict=False):
            if count == 0:
                raise ValueError(f"Group {label!r} has no {kind} sample (of positive weight): xAUC({g!r}, {h!r}) "
                                 f"is undefined; each group needs positives and negatives.")
        return _two_sample_auc(score[pos], score[neg], pos_w, neg_w, tol, ties)

    return CrossGroupAUC(cross(group_a, group_b), cross(group_b, group_a), group_a, group_b)


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


def concordance_counts(y: Any, risk: ArrayLike, *, tied_tol: float = TIED_TOL,
                       sample_weight: ArrayLike | float | None = None) -> ConcordanceCounts:
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
    ``concordance_index_censored(..., tied_tol=τ)`` (whose tolerance is absolute). The risks
    are ranked once, and each distinct risk's tied window (the ranks within τ of it) is found by
    two pointers along the sorted risks. The subjects are then visited from the latest time
    down, one time at a time: the censored subjects at that time enter a Fenwick tree (binary
    indexed tree) over the risk ranks, each event reads from the tree how many of the subjects
    entered so far (its comparable partners) lie below and below-or-within its tied window,
    and then the events enter. O(m log m) in all, no pair listed; with case weights the tree
    holds the partners' weights and each event's sums are multiplied by its own weight.

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
    if is_dask_collection(y, risk, sample_weight):
        return call_in_memory(concordance_counts, y, risk, tied_tol=tied_tol, sample_weight=sample_weight)
    tied_tol = check_tied_tol(tied_tol)
    event, time = survival_arrays(y)
    risks = check_finite_1d(risk, "risk")
    check_consistent_length(y=event, risk=risks)
    weights, keep = _positive_weight_rows(sample_weight, len(risks))
    if weights is not None:
        event, time, risks, weights = event[keep], time[keep], risks[keep], weights[keep]
    tol = absolute_tol(tied_tol, risks)
    time, event = np.asarray(time, dtype=np.float64), np.asarray(event, dtype=bool)
    kernels = compiled_kernels()
    by_time, time_sorted = kernels.argsort(time)
    event_t = event[by_time]
    by_risk, sorted_risk = kernels.argsort(risks[by_time])
    rank, lo, hi = kernels.risk_ranks(sorted_risk, by_risk, tol)
    if weights is None:
        concordant, tied_risk, comparable = kernels.harrell_counts(time_sorted, event_t, rank, lo, hi)
        return ConcordanceCounts(
            concordant=int(concordant),
            discordant=int(comparable - concordant - tied_risk),
            tied_risk=int(tied_risk),
            comparable=int(comparable),
        )
    concordant, tied_risk, comparable = kernels.harrell_weighted(
        time_sorted, event_t, weights[by_time], rank, lo, hi)
    tied_risk = max(float(tied_risk), 0.0)
    return ConcordanceCounts(
        concordant=float(concordant),
        discordant=max(float(comparable) - float(concordant) - tied_risk, 0.0),
        tied_risk=tied_risk,
        comparable=float(comparable),
    )


def harrell_c(y: Any, risk: ArrayLike, *, ties: TieMode = "half", tied_tol: float = TIED_TOL,
              sample_weight: ArrayLike | float | None = None) -> float:
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
    if is_dask_collection(y, risk, sample_weight):
        return call_in_memory(harrell_c, y, risk, ties=ties, tied_tol=tied_tol, sample_weight=sample_weight)
    ties = check_ties(ties)
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
    return tie_credited_ratio(counts.concordant, counts.tied_risk, counts.comparable, ties)


def multipartite_c_index(y: ArrayLike, y_score: ArrayLike, *, levels: Sequence[Any] | ArrayLike | None = None,
                         ties: TieMode = "half", tied_tol: float = TIED_TOL,
                         sample_weight: ArrayLike | float | None = None) -> float:
    """Concordance index of scores for ordinal (multipartite) labels.

    The fraction of the pairs of points on different levels, ``y_i > y_j``, that the scores
    order the same way, ``f_i > f_j``, with tied scores credited ½ (or 0); points on the same
    level form no pair. For two levels it is the AUC (:func:`roc_auc`).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Ordinal labels of one sortable type (numbers, strings, ...), ordered as sorted or as
        listed in ``levels``.
    y_score : array-like of shape (n_samples,)
        Finite scores; higher means a higher level.
    levels : sequence, default=None
        The levels from lowest to highest when the sorted order of the labels is not the
        intended one (e.g. ``["low", "medium", "high"]``); the sorted distinct labels when None.
    ties : {"half", "strict"}, default="half"
        Credit of a pair with tied scores: ½ or 0.
    tied_tol : float, default=1e-8
        Scores differing by at most ``tied_tol · max|y_score|`` count as tied; 0 ties only equal
        scores.
    sample_weight : float or array-like of shape (n_samples,), default=None
        Non-negative case weights; a pair (i, j) counts with weight w_i · w_j in the numerator
        and the denominator. Integer weights equal repeating rows; a zero weight equals removing
        the row. None: every sample weighs 1.

    Returns
    -------
    cindex : float
        (concordant + c · tied) / pairs over all pairs ``y_i > y_j``, c = ½ or 0 (weighted sums
        with ``sample_weight``).

    Raises
    ------
    NoComparablePairsError
        When ``y`` has fewer than two distinct levels; the message names the levels found.
    ValueError
        For labels or scores that are not finite or not 1-dimensional, lengths that differ, a
        label missing from ``levels``, or weights that leave no pair of positive weight.

    See Also
    --------
    roc_auc : the case of two levels.
    harrell_c : the concordance index of censored survival data.
    aucopt.PairSet.multipartite : the pairs, for training on them.

    Notes
    -----
    With n_k points on level k, the index is the pair-count-weighted mean of the AUCs between
    every two levels k > l (weights n_k n_l), the C-index of multipartite ranking [1]_. The
    volume under the ROC surface (VUS) counts correctly ordered tuples of one point per level
    instead; it is a different quantity for three levels or more. The pairs ``y_i > y_j`` are
    Harrell's comparable pairs of subjects that all had the event, at times ordered from the
    highest level down, so the index is computed by the same O(m log m) sweep as
    :func:`concordance_counts` (one Fenwick tree over score ranks), without listing a pair.

    References
    ----------
    .. [1] Fürnkranz, J., Hüllermeier, E., & Vanderlooy, S. (2009). Binary decomposition methods
       for multipartite ranking. *Machine Learning and Knowledge Discovery in Databases (ECML
       PKDD 2009)*, LNCS 5781, 359–374.

    Examples
    --------
    >>> from aucopt.metrics import multipartite_c_index
    >>> multipartite_c_index([0, 1, 2, 2], [0.1, 0.4, 0.35, 0.8])
    0.8
    >>> multipartite_c_index(["low", "high", "medium"], [1.0, 3.0, 2.0], levels=["low", "medium", "high"])
    1.0
    >>> y, score = [0, 1, 2], [0.0, 1.0, 1.0]
    >>> multipartite_c_index(y, score), multipartite_c_index(y, score, ties="strict")
    (0.8333333333333334, 0.6666666666666666)
    """
    if is_dask_collection(y, y_score, sample_weight):
        return call_in_memory(multipartite_c_index, y, y_score, levels=levels, ties=ties, tied_tol=tied_tol,
                              sample_weight=sample_weight)
    ties = check_ties(ties)
    codes, found = ordinal_codes(y, levels)
    score = check_finite_1d(y_score, "y_score")
    check_consistent_length(y=codes, y_score=score)
    if len(found) < 2:
        raise NoComparablePairsError(
            f"y has {len(found)} distinct level(s) {found}; the multipartite C-index needs points of at "
            "least two ordered levels (a pair is a point of a higher level and one of a lower level)."
        )
    # the pairs y_i > y_j are Harrell's comparable pairs of events at times highest level first
    time = (codes.max() - codes).astype(np.float64)
    counts = concordance_counts((np.ones(len(codes), dtype=bool), time), score, tied_tol=tied_tol,
                                sample_weight=sample_weight)
    if counts.comparable == 0:
        raise ValueError(
            "sample_weight leaves no pair of points on different levels with positive weight; give "
            "points of at least two levels a positive weight."
        )
    return tie_credited_ratio(counts.concordant, counts.tied_risk, counts.comparable, ties)
