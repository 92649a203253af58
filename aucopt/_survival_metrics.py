"""Censoring-aware survival metrics: Uno's IPCW C, the cumulative/dynamic AUC(t), the Brier score.

Harrell's C (:func:`aucopt.metrics.harrell_c`) depends on the censoring distribution of the test
data. The estimators here reweight the observed events by the inverse probability of remaining
uncensored (IPCW), estimated from a training target, so that they estimate censoring-free
population quantities under independent (random) censoring:

* :func:`uno_c` — Uno, Cai, Pencina, D'Agostino & Wei (2011): Harrell's comparable pairs, each
  weighted by ``Ĝ(T_i)⁻²`` of its earlier subject, truncated at ``tau``;
* :func:`cumulative_dynamic_auc` — the cumulative/dynamic AUC(t) of Uno, Cai, Tian & Wei (2007)
  and Hung & Chiang (2010): cases ``T_i ≤ t`` with an event (weight ``1/Ĝ(T_i)``) against controls
  ``T_j > t``, and its mean over the times weighted by the Kaplan–Meier drop;
* :func:`brier_score` and :func:`integrated_brier_score` — Graf, Schmoor, Sauerbrei & Schumacher
  (1999): the IPCW mean squared error of predicted survival probabilities;
* :func:`uno_c_scorer` — :func:`uno_c` as a scikit-learn scorer (``GridSearchCV(scoring=...)``).

Ĝ is the Kaplan–Meier estimate of the censoring survival function P(C > t), computed from
``y_train`` with the roles of events and censorings swapped (:func:`censoring_survival`). The
argument order, the return values and every convention (which side of a step Ĝ is read on, tie
rules, truncation, the follow-up ranges) are those of scikit-survival's ``concordance_index_ipcw``,
``cumulative_dynamic_auc``, ``brier_score`` and ``integrated_brier_score``; the values agree with
them to round-off (tests/test_metrics_survival.py). This is an own implementation from the papers
(scikit-survival is GPL-3 and serves as a test oracle only), O(n log n) per evaluation: no pair is
ever listed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ._dispatch import call_in_memory
from ._metric_rules import TIED_TOL, absolute_tol, check_tied_tol, compiled_kernels
from ._step_function import step_values
from ._validation import check_consistent_length, check_finite_1d, is_dask_collection, survival_arrays
from .exceptions import NoComparablePairsError

__all__ = ["CensoringSurvival", "brier_score", "censoring_survival", "cumulative_dynamic_auc",
           "integrated_brier_score", "uno_c", "uno_c_scorer"]


# ============================================================================ Kaplan–Meier steps
def _product_limit(time: np.ndarray, event: np.ndarray, *, reverse: bool) -> tuple[np.ndarray, np.ndarray]:
    """The distinct times u_k and the product-limit estimate just after each (right-continuous).

    ``reverse=False``: Ŝ(u_k) = Π (1 − d_l / n_l), d the events at u_l, n the subjects with time
    ≥ u_l (censored subjects at u_l are at risk there). ``reverse=True``: the censoring survival
    Ĝ(u_k) = Π (1 − c_l / (n_l − d_l)), c the censorings at u_l; the events at u_l leave the
    censoring risk set first (an event at the censoring time of another subject happened
    before the censoring). A factor 0/0 (nobody left) is 1.
    """
    order = np.argsort(time, kind="stable")
    t_sorted = time[order]
    e_sorted = event[order]
    unique, first, counts = np.unique(t_sorted, return_index=True, return_counts=True)
    n_events = np.add.reduceat(e_sorted.astype(np.int64), first) if len(first) else np.zeros(0, np.int64)
    n_at_risk = len(time) - first  # subjects with time >= u_k
    if reverse:
        drops = counts - n_events
        at_risk = n_at_risk - n_events
    else:
        drops = n_events
        at_risk = n_at_risk
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(at_risk > 0, 1.0 - drops / np.maximum(at_risk, 1), 1.0)
    return unique, np.cumprod(factor)


class CensoringSurvival(NamedTuple):
    """A right-continuous step function: the Kaplan–Meier estimate of the censoring survival Ĝ.

    Returned by :func:`censoring_survival`.

    Attributes
    ----------
    times : ndarray of shape (n_distinct_times,)
        The distinct times of the target it was estimated from, increasing.
    survival : ndarray of shape (n_distinct_times,)
        Ĝ(times[k]): the estimate just after each time (a censoring at ``times[k]`` included).

    Examples
    --------
    >>> from aucopt.metrics import censoring_survival
    >>> g = censoring_survival(([True, False, True, False], [1.0, 2.0, 3.0, 4.0]))
    >>> g.at([0.5, 1.0, 2.0, 3.5, 4.0]).tolist()
    [1.0, 1.0, 0.6666666666666667, 0.6666666666666667, 0.0]
    """

    times: np.ndarray
    survival: np.ndarray

    def at(self, t: ArrayLike) -> np.ndarray:
        """Ĝ(t) at arbitrary times; NaN where it is unknown.

        Ĝ is 1 before the first time and, after the last one, 0 when it reached 0 there (a
        censored subject at the largest time) and unknown (NaN) otherwise: nobody was followed
        beyond it.

        Parameters
        ----------
        t : float or array-like
            Time points.

        Returns
        -------
        survival : ndarray of float
            Ĝ at each time point, shaped like ``t``.
        """
        t = np.asarray(t, dtype=float)
        values = step_values(self.times, self.survival, t, before=1.0)
        if len(self.times) and self.survival[-1] > 0:
            values = np.where(t > self.times[-1], np.nan, values)
        return values


def censoring_survival(y: ArrayLike) -> CensoringSurvival:
    """The Kaplan–Meier estimate Ĝ of the censoring survival function P(C > t).

    Parameters
    ----------
    y : structured array of shape (n_samples,) or tuple (event, time)
        A survival target (as :func:`aucopt.metrics.harrell_c` accepts); censored samples are
        the "events" of Ĝ.

    Returns
    -------
    curve : CensoringSurvival
        The distinct times and Ĝ just after each; ``curve.at(t)`` evaluates it anywhere.

    Notes
    -----
    Ĝ(t) = Π_{u ≤ t} (1 − c_u / (n_u − d_u)) over the distinct times u of ``y``, with c_u the
    censored samples at u, d_u the events at u and n_u the samples with time ≥ u: the
    Kaplan–Meier estimator (Kaplan & Meier 1958) with the roles of events and censorings
    swapped, events at a tied time leaving the censoring risk set before the censorings (an
    event at a censoring time counts as earlier, as in Harrell's comparable pairs). The step
    is right-continuous: Ĝ(t) includes the censorings at t. These are the conventions of
    scikit-survival's ``CensoringDistributionEstimator``.

    References
    ----------
    .. [1] Kaplan, E. L., & Meier, P. (1958). Nonparametric estimation from incomplete
       observations. *Journal of the American Statistical Association*, 53(282), 457–481.

    Examples
    --------
    >>> from aucopt.metrics import censoring_survival
    >>> g = censoring_survival(([True, False, True, False, True], [1.0, 2.0, 2.0, 3.0, 4.0]))
    >>> g.times.tolist(), g.survival.round(4).tolist()
    ([1.0, 2.0, 3.0, 4.0], [1.0, 0.6667, 0.3333, 0.3333])
    """
    event, time = survival_arrays(y)
    if len(time) == 0:
        raise ValueError("The censoring distribution needs a training target of at least one sample; got 0.")
    return CensoringSurvival(*_product_limit(time, event, reverse=True))


def _km_survival_at(event: np.ndarray, time: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The Kaplan–Meier estimate Ŝ(t) of the event-time distribution (right-continuous)."""
    unique, surv = _product_limit(time, event, reverse=False)
    idx = np.searchsorted(unique, t, side="right") - 1
    return np.where(idx >= 0, surv[np.maximum(idx, 0)], 1.0)


def _ipcw_at(g: CensoringSurvival, points: np.ndarray, what: str, fix: str) -> np.ndarray:
    """Ĝ at the points where an estimator needs it, refusing an unknown or zero Ĝ by name."""
    values = g.at(points)
    unknown = np.isnan(values)
    if unknown.any():
        raise ValueError(
            f"The censoring survival Ĝ estimated from y_train is unknown after its largest time "
            f"{g.times[-1]:g} (Ĝ = {g.survival[-1]:.4g} > 0 there: nobody in y_train was followed longer), "
            f"but {int(unknown.sum())} {what} lie beyond it (the largest at {float(points[unknown].max()):g}). "
            f"Pass a y_train whose follow-up covers the test data, or {fix}."
        )
    zero = values <= 0
    if zero.any():
        first = float(points[zero].min())
        raise ValueError(
            f"The censoring survival Ĝ estimated from y_train is 0 from time {first:g} on (a censored "
            f"sample at the largest training time {g.times[-1]:g}), so the weight 1/Ĝ of {int(zero.sum())} "
            f"{what} is infinite. Pass a y_train followed beyond {first:g}, or {fix}."
        )
    return values


def _check_tau(tau: float | None) -> float:
    if tau is None:
        return np.inf
    if (isinstance(tau, bool) or not isinstance(tau, (int, float, np.integer, np.floating))
            or not np.isfinite(tau) or tau <= 0):
        raise ValueError(f"tau must be None (no truncation) or a positive finite time; got {tau!r}.")
    return float(tau)


def _check_times(times: ArrayLike, test_time: np.ndarray, *, strictly_increasing: bool) -> np.ndarray:
    """The evaluation times, inside the test follow-up [min T, max T)."""
    times = np.atleast_1d(np.asarray(times, dtype=float))
    if times.ndim != 1 or len(times) == 0:
        raise ValueError(f"times must be a time or a 1-d array of times; got shape {times.shape}.")
    if not np.all(np.isfinite(times)):
        raise ValueError("times contains NaN or infinite values.")
    if strictly_increasing and np.any(np.diff(times) <= 0):
        raise ValueError(
            "times must be strictly increasing when the predictions have one column per time (column k "
            f"belongs to times[k]); got {times[:8].tolist()}{' ...' if len(times) > 8 else ''}. Sort the "
            "times and the columns together."
        )
    times = np.unique(times)
    lo, hi = float(test_time.min()), float(test_time.max())
    outside = (times < lo) | (times >= hi)
    if outside.any():
        raise ValueError(
            f"times must lie within the follow-up of y_test, [{lo:g}, {hi:g}) (at the largest test time "
            f"no subject is left as a control); got {int(outside.sum())} time(s) outside, e.g. "
            f"{float(times[outside][0]):g}. Choose times between the test data's smallest and largest time, "
            "e.g. percentiles of the event times."
        )
    return times


# ============================================================================ Uno's C
def uno_c(y_train: ArrayLike, y_test: ArrayLike, risk: ArrayLike, tau: float | None = None, *,
          tied_tol: float = TIED_TOL) -> float:
    """Uno's inverse-probability-of-censoring weighted concordance index (IPCW C-index).

    Parameters
    ----------
    y_train : structured array of shape (n_train,) or tuple (event, time)
        Target from which the censoring survival Ĝ is estimated (usually the training data;
        ``y_test`` itself is allowed). Structured arrays, ``(event, time)`` pairs and two-column
        DataFrames are accepted, as in :func:`aucopt.metrics.harrell_c`.
    y_test : structured array of shape (n_samples,) or tuple (event, time)
        The target of the subjects whose risks are evaluated.
    risk : array-like of shape (n_samples,)
        Predicted risk of the test subjects; higher means an earlier event.
    tau : float, default=None
        Truncation time: only pairs whose earlier subject had its event before ``tau``
        (T_i < tau) count. None: no truncation. Ĝ must be positive at the event times before
        ``tau``, so a ``tau`` below the end of the training follow-up is the way to evaluate test
        data that were followed longer than the training data.
    tied_tol : float, default=1e-8
        Risks differing by at most ``tied_tol · max|risk|`` count as tied (half credit), as in
        :func:`aucopt.metrics.harrell_c`; 0 ties only equal risks.

    Returns
    -------
    cindex : float
        Σ w_i ([r_i > r_j] + ½ [r_i ≈ r_j]) / Σ w_i over the comparable pairs (i, j) with
        T_i < tau, w_i = Ĝ(T_i)⁻².

    Raises
    ------
    NoComparablePairsError
        When no comparable pair has its event before ``tau`` (a subclass of ValueError).
    ValueError
        When Ĝ is 0 or unknown at the event time of a subject that enters a pair: the test
        follow-up outlasts the training follow-up (choose ``tau`` below the largest training
        time), or for invalid inputs.

    See Also
    --------
    aucopt.metrics.harrell_c : The unweighted index over the same pairs.
    cumulative_dynamic_auc : The concordance of events before t with survivors beyond t.
    uno_c_scorer : This index as a scorer for ``GridSearchCV``.
    censoring_survival : Ĝ.

    Notes
    -----
    The estimator of Uno et al. (2011), with the Kaplan–Meier Ĝ,

        C_τ = Σ_{i,j} δ_i Ĝ(T_i)⁻² I(T_i < T_j, T_i < τ) ([η_i > η_j] + ½ [η_i ≈ η_j])
              / Σ_{i,j} δ_i Ĝ(T_i)⁻² I(T_i < T_j, T_i < τ),

    over Harrell's comparable pairs (i, j): i had the event and T_i < T_j, or T_i = T_j and j
    is censored (the pairs of :func:`aucopt.metrics.concordance_counts`; the paper's strict
    T_i < T_j omits the last kind). Under independent censoring it estimates the censoring-free
    concordance P(η_i > η_j | T_i < T_j, T_i < τ), which Harrell's C does not.

    Conventions, those of scikit-survival's ``concordance_index_ipcw`` (whose values this
    equals to round-off): Ĝ is :func:`censoring_survival` of ``y_train``, read at T_i itself
    (a right-continuous step, the censorings at T_i included); truncation is strict (T_i < τ).
    Differences: the result is the index alone, as :func:`aucopt.metrics.harrell_c` (scikit-survival
    returns the tuple ``(cindex, concordant, discordant, tied_risk, tied_time)``; the unweighted
    counts are :func:`aucopt.metrics.concordance_counts`); ``tied_tol`` is relative to
    max|risk| as everywhere in aucopt (scikit-survival's is absolute); and Ĝ is required only
    at the event times of subjects that enter a pair, where scikit-survival refuses when Ĝ is 0
    or unknown at any test event time (e.g. the last event of ``y_test`` when ``y_train``
    ends with a censoring there, which enters no pair). ``sample_weight`` is not supported.

    The weight Ĝ(T_i)⁻² depends on the earlier subject only, so each event's numbers of
    partners below, within and above its risk's tie window (one Fenwick-tree sweep, as in
    :func:`aucopt.metrics.concordance_counts`) are multiplied by its weight: O(n log n), no
    pair listed. Dask inputs are gathered to the driver as in :func:`aucopt.metrics.harrell_c`.

    References
    ----------
    .. [1] Uno, H., Cai, T., Pencina, M. J., D'Agostino, R. B., & Wei, L. J. (2011). On the
       C-statistics for evaluating overall adequacy of risk prediction procedures with censored
       survival data. *Statistics in Medicine*, 30(10), 1105–1117.
    .. [2] Harrell, F. E., Califf, R. M., Pryor, D. B., Lee, K. L., & Rosati, R. A. (1982).
       Evaluating the yield of medical tests. *JAMA*, 247(18), 2543–2546.

    Examples
    --------
    >>> from aucopt.metrics import harrell_c, uno_c
    >>> event = [True, False, True, True, False, True]
    >>> time = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    >>> risk = [0.9, 0.4, 0.5, 0.6, 0.2, 0.1]
    >>> round(harrell_c((event, time), risk), 4), round(uno_c((event, time), (event, time), risk), 4)
    (0.9, 0.878)
    >>> round(uno_c((event, time), (event, time), risk, tau=3.5), 4)  # pairs of the events at 1 and 3
    0.8387
    """
    if is_dask_collection(y_train, y_test, risk):
        return call_in_memory(uno_c, y_train, y_test, risk, tau=tau, tied_tol=tied_tol)
    tied_tol = check_tied_tol(tied_tol)
    tau = _check_tau(tau)
    event, time = survival_arrays(y_test)
    risk = check_finite_1d(risk, "risk")
    check_consistent_length(y_test=event, risk=risk)
    g = censoring_survival(y_train)
    tol = absolute_tol(tied_tol, risk)
    kernels = compiled_kernels()
    by_time, time_sorted = kernels.argsort(time)
    event_t = np.ascontiguousarray(event[by_time])
    by_risk, sorted_risk = kernels.argsort(risk[by_time])
    rank, lo, hi = kernels.risk_ranks(sorted_risk, by_risk, tol)
    below, within, partners = kernels.harrell_per_event(time_sorted, event_t, rank, lo, hi)
    used = event_t & (partners > 0) & (time_sorted < tau)
    if not used.any():
        horizon = "" if np.isinf(tau) else f" before tau={tau:g}"
        raise NoComparablePairsError(
            f"No comparable pairs{horizon}: Uno's C needs at least one event{horizon} followed by a later "
            "time (or a censored sample at the same time) in y_test"
            + ("." if np.isinf(tau) else "; choose a larger tau.")
        )
    ghat = _ipcw_at(g, time_sorted[used], "test event(s) entering a comparable pair",
                    "truncate with tau below the largest training time")
    weight = 1.0 / np.square(ghat)
    numerator = float(np.dot(weight, 2.0 * below[used] + within[used]))
    denominator = float(np.dot(weight, partners[used]))
    return float(min(max(numerator / (2.0 * denominator), 0.0), 1.0))


def uno_c_scorer(*, tau: float | None = None, tied_tol: float = TIED_TOL) -> Callable[..., float]:
    """Uno's C (:func:`uno_c`) as a scikit-learn scorer, with Ĝ estimated from the scored fold.

    Parameters
    ----------
    tau : float, default=None
        Truncation time (see :func:`uno_c`).
    tied_tol : float, default=1e-8
        Relative tie tolerance of the risks (see :func:`uno_c`).

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y)`` = ``uno_c(y, y, estimator.predict(X), tau)``; pass it as
        ``scoring=`` to ``GridSearchCV``, ``cross_val_score`` or
        :func:`aucopt.survival.pooled_cindex_cv`-style loops. Higher is better.

    Notes
    -----
    A scorer receives the test fold only, so Ĝ is the censoring Kaplan–Meier estimate of the
    test fold itself. Under independent censoring that is a consistent estimate of the same
    censoring distribution, and it always covers the fold's own follow-up (no refusal for
    test times beyond a training fold's range); from a fold of n/k samples it is noisier than
    the training folds' estimate. scikit-survival's ``as_concordance_index_ipcw_scorer`` is an
    estimator wrapper instead, which keeps the training fold's target at ``fit`` and estimates
    Ĝ from it; :func:`uno_c` with ``y_train`` gives that value for one split. The estimator's
    ``predict`` must return risks (higher = earlier event), as every aucopt survival estimator
    and scikit-survival's do.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import KFold, cross_val_score
    >>> from aucopt import SurvivalRankSVM, survival_target
    >>> from aucopt.metrics import uno_c_scorer
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(120, 3))
    >>> y = survival_target(rng.random(120) < 0.7, rng.exponential(np.exp(-X[:, 0])))
    >>> scores = cross_val_score(SurvivalRankSVM(), X, y, cv=KFold(3), scoring=uno_c_scorer(tau=1.0))
    >>> scores.shape, bool(scores.mean() > 0.6)
    ((3,), True)
    """
    from sklearn.metrics import make_scorer

    _check_tau(tau)
    check_tied_tol(tied_tol)
    return make_scorer(_uno_c_on_fold, greater_is_better=True, tau=tau, tied_tol=tied_tol)


def _uno_c_on_fold(y_true: ArrayLike, risk: ArrayLike, *, tau: float | None = None,
                   tied_tol: float = TIED_TOL) -> float:
    """Uno's C of one fold, Ĝ estimated from the fold (the score function of :func:`uno_c_scorer`)."""
    return uno_c(y_true, y_true, risk, tau, tied_tol=tied_tol)


# ============================================================================ AUC(t)
def cumulative_dynamic_auc(y_train: ArrayLike, y_test: ArrayLike, risk: ArrayLike, times: ArrayLike | float, *,
                           tied_tol: float = TIED_TOL) -> tuple[np.ndarray, float]:
    """The cumulative/dynamic time-dependent AUC(t) of risk scores, and its mean over the times.

    Parameters
    ----------
    y_train : structured array of shape (n_train,) or tuple (event, time)
        Target from which the censoring survival Ĝ is estimated (see :func:`uno_c`).
    y_test : structured array of shape (n_samples,) or tuple (event, time)
        The target of the evaluated subjects.
    risk : array-like of shape (n_samples,) or (n_samples, n_times)
        Predicted risks (higher = earlier event): one score per subject, or one column per time
        point (time-dependent risks, e.g. 1 − Ŝ(t | x) or the cumulative hazard at each t; then
        ``times`` must be strictly increasing, column k belonging to ``times[k]``).
    times : float or array-like of shape (n_times,)
        Time points in the test follow-up [min T, max T); sorted and made distinct for a 1-d
        ``risk``.
    tied_tol : float, default=1e-8
        Risks differing by at most ``tied_tol · max|risk|`` (per column) count as tied: half
        credit.

    Returns
    -------
    auc : ndarray of shape (n_times,)
        AUC(t) at each (sorted) time point.
    mean_auc : float
        Σ_k AUC(t_k) (Ŝ(t_{k−1}) − Ŝ(t_k)) / (1 − Ŝ(t_last)), Ŝ the Kaplan–Meier estimate of
        ``y_test`` (Ŝ(t_0) = 1); AUC(t_1) for one time point.

    Raises
    ------
    ValueError
        For times outside the test follow-up, a time with no case (no event at or before it),
        Ĝ 0 or unknown at a case's event time (test follow-up beyond the training
        follow-up: choose earlier times), or a ``risk`` whose shape does not match.

    See Also
    --------
    uno_c : The concordance over all comparable pairs.
    brier_score : The calibration-and-discrimination counterpart for survival probabilities.

    Notes
    -----
    At time t the cases are the subjects with an event at T_i ≤ t, weighted by 1/Ĝ(T_i), and the
    controls the subjects still event-free, T_j > t (Uno, Cai, Tian & Wei 2007; Hung & Chiang
    2010):

        AUC(t) = Σ_i Σ_j w_i I(T_i ≤ t < T_j) ([η_i > η_j] + ½ [η_i ≈ η_j])
                 / (Σ_i w_i I(T_i ≤ t, δ_i = 1) · #{j : T_j > t}).

    Ĝ is :func:`censoring_survival` of ``y_train`` read at T_i (right-continuous); the mean
    weights AUC(t_k) by the drop of the test data's Kaplan–Meier curve and is normalised by
    1 − Ŝ(t_last). These are the conventions of scikit-survival's ``cumulative_dynamic_auc``,
    whose values this equals to round-off, with three differences: tied risks are those
    within ``tied_tol · max|risk|`` of each other (scikit-survival ties risks whose neighbours
    in sorted order differ by at most its absolute ``tied_tol``: a chain of near-ties can tie
    further-apart risks there; the two agree whenever the risks have no near-ties); Ĝ is needed
    only at the events of the cases, where scikit-survival refuses whenever Ĝ is 0 or unknown at
    any test event time; and a time with no case raises instead of returning NaN.

    Each time point sorts the controls' risks and counts, for every case, the controls below and
    inside its tie window by a linear merge: O(n log n) per time point (the risks are sorted once
    when ``risk`` is 1-d), no pair listed.

    References
    ----------
    .. [1] Uno, H., Cai, T., Tian, L., & Wei, L. J. (2007). Evaluating prediction rules for
       t-year survivors with censored regression models. *Journal of the American Statistical
       Association*, 102(478), 527–537.
    .. [2] Hung, H., & Chiang, C.-T. (2010). Estimation methods for time-dependent AUC models
       with survival data. *Canadian Journal of Statistics*, 38(1), 8–26.
    .. [3] Lambert, J., & Chevret, S. (2016). Summary measure of discrimination in survival
       models based on cumulative/dynamic time-dependent ROC curves. *Statistical Methods in
       Medical Research*, 25(5), 2088–2102.

    Examples
    --------
    >>> from aucopt.metrics import cumulative_dynamic_auc
    >>> event = [True, False, True, True, False, True]
    >>> time = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    >>> risk = [0.9, 0.4, 0.5, 0.6, 0.2, 0.1]
    >>> auc, mean_auc = cumulative_dynamic_auc((event, time), (event, time), risk, [1.5, 3.5])
    >>> auc.round(4).tolist(), round(mean_auc, 4)
    ([1.0, 0.8148], 0.8971)
    """
    if is_dask_collection(y_train, y_test, risk):
        return call_in_memory(cumulative_dynamic_auc, y_train, y_test, risk, times, tied_tol=tied_tol)
    tied_tol = check_tied_tol(tied_tol)
    event, time = survival_arrays(y_test)
    n = len(time)
    if n == 0:
        raise ValueError("y_test is empty.")
    risk_arr = np.asarray(risk, dtype=float)
    two_d = risk_arr.ndim == 2
    times = _check_times(times, time, strictly_increasing=two_d)
    k_times = len(times)
    if two_d:
        if risk_arr.shape != (n, k_times):
            raise ValueError(
                f"risk has shape {risk_arr.shape}; a 2-d risk needs one row per test sample and one column "
                f"per time point: ({n}, {k_times})."
            )
        if not np.all(np.isfinite(risk_arr)):
            raise ValueError(f"risk contains {int(np.sum(~np.isfinite(risk_arr)))} NaN or infinite value(s).")
        columns = [np.ascontiguousarray(risk_arr[:, k]) for k in range(k_times)]
    else:
        one = check_finite_1d(risk_arr, "risk")
        check_consistent_length(y_test=event, risk=one)
        columns = None
    first_case = float(time[event].min()) if event.any() else np.inf
    empty = times < first_case
    if empty.any():
        raise ValueError(
            f"AUC(t) at t={float(times[empty][0]):g} has no case: y_test has no event at or before it "
            + (f"(the first event is at {first_case:g}). " if event.any() else "(y_test has no event). ")
            + "Choose times at or after the first event time."
        )
    g = censoring_survival(y_train)
    cases_needed = event & (time <= times[-1])
    ipcw = np.zeros(n)
    ipcw[cases_needed] = 1.0 / _ipcw_at(g, time[cases_needed], "test event(s) that are cases at the given times",
                                        "choose times below the largest training time")
    kernels = compiled_kernels()
    auc = np.empty(k_times)
    if columns is None:
        tol = absolute_tol(tied_tol, one)
        by_risk, sorted_risk = kernels.argsort(one)
        event_s, time_s, ipcw_s = event[by_risk], time[by_risk], ipcw[by_risk]
    for k, t in enumerate(times):
        if columns is not None:
            tol = absolute_tol(tied_tol, columns[k])
            by_risk, sorted_risk = kernels.argsort(columns[k])
            event_s, time_s, ipcw_s = event[by_risk], time[by_risk], ipcw[by_risk]
        case = event_s & (time_s <= t)
        control = time_s > t
        case_w = np.ascontiguousarray(ipcw_s[case])
        ctrl = np.ascontiguousarray(sorted_risk[control])
        wins, tied = kernels.auc_weighted(np.ascontiguousarray(sorted_risk[case]), case_w, ctrl,
                                          np.ones(len(ctrl)), tol)
        auc[k] = min(max((2.0 * wins + tied) / (2.0 * float(case_w.sum()) * len(ctrl)), 0.0), 1.0)
    if k_times == 1:
        return auc, float(auc[0])
    surv = _km_survival_at(event, time, times)
    drops = -np.diff(np.r_[1.0, surv])
    return auc, float(np.dot(auc, drops) / (1.0 - surv[-1]))


# ============================================================================ Brier score
def _check_survival_probabilities(survival_probabilities: ArrayLike, n: int, k_times: int) -> np.ndarray:
    probs = np.asarray(survival_probabilities, dtype=float)
    if probs.ndim == 1 and k_times == 1:
        probs = probs[:, None]
    if probs.shape != (n, k_times):
        raise ValueError(
            f"survival_probabilities has shape {probs.shape}; it needs one row per test sample and one column "
            f"per time point: ({n}, {k_times}) (e.g. the step functions of predict_survival_function evaluated "
            "at times)."
        )
    if not np.all(np.isfinite(probs)):
        raise ValueError(
            f"survival_probabilities contains {int(np.sum(~np.isfinite(probs)))} NaN or infinite value(s).")
    if probs.min(initial=0.0) < 0.0 or probs.max(initial=0.0) > 1.0:
        raise ValueError(
            f"survival_probabilities must lie in [0, 1] (the predicted P(T > t)); got values in "
            f"[{probs.min():g}, {probs.max():g}]. Pass survival probabilities, not risk scores."
        )
    return probs


def brier_score(y_train: ArrayLike, y_test: ArrayLike, survival_probabilities: ArrayLike,
                times: ArrayLike | float) -> tuple[np.ndarray, np.ndarray]:
    """The time-dependent Brier score of predicted survival probabilities for censored data.

    Parameters
    ----------
    y_train : structured array of shape (n_train,) or tuple (event, time)
        Target from which the censoring survival Ĝ is estimated (see :func:`uno_c`).
    y_test : structured array of shape (n_samples,) or tuple (event, time)
        The target of the evaluated subjects.
    survival_probabilities : array-like of shape (n_samples, n_times), or (n_samples,) for one time
        Predicted Ŝ(t_k | x_i) = P(T_i > t_k), in [0, 1]; column k belongs to ``times[k]``.
    times : float or array-like of shape (n_times,)
        Strictly increasing time points in the test follow-up [min T, max T).

    Returns
    -------
    times : ndarray of shape (n_times,)
        The time points.
    scores : ndarray of shape (n_times,)
        BS(t) at each time point (lower is better; 0.25 for Ŝ ≡ ½).

    Raises
    ------
    ValueError
        For times outside the test follow-up or not increasing, a shape mismatch or probabilities
        outside [0, 1], and when Ĝ is 0 or unknown where a term needs it (at a time point, or at
        the event time of a subject with an event before the last time point): test follow-up
        beyond the training follow-up.

    See Also
    --------
    integrated_brier_score : Its integral over the times.
    cumulative_dynamic_auc : Discrimination at each time.

    Notes
    -----
    The estimator of Graf, Schmoor, Sauerbrei & Schumacher (1999),

        BS(t) = (1/n) Σ_i [ Ŝ(t | x_i)² I(T_i ≤ t, δ_i = 1) / Ĝ(T_i)
                            + (1 − Ŝ(t | x_i))² I(T_i > t) / Ĝ(t) ],

    subjects censored before t contributing only through the weights. Ĝ is
    :func:`censoring_survival` of ``y_train``, read at T_i and at t (right-continuous): the
    conventions of scikit-survival's ``brier_score``, whose values this equals to round-off.
    Differences: where Ĝ is 0 at a needed point scikit-survival silently drops the term (a
    weight 1/∞ = 0, which biases the score) and this function raises; where Ĝ is unknown it
    refuses for any test time, this function only for the needed ones; and unsorted times raise
    (scikit-survival sorts the times but not the columns). O(n) per time point.

    References
    ----------
    .. [1] Graf, E., Schmoor, C., Sauerbrei, W., & Schumacher, M. (1999). Assessment and
       comparison of prognostic classification schemes for survival data. *Statistics in
       Medicine*, 18(17–18), 2529–2545.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.metrics import brier_score
    >>> event = [True, False, True, True, False, True]
    >>> time = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    >>> surv = np.array([[0.2, 0.1], [0.8, 0.6], [0.7, 0.4], [0.8, 0.5], [0.9, 0.8], [0.9, 0.9]])
    >>> times, scores = brier_score((event, time), (event, time), surv, [1.5, 3.5])
    >>> times.tolist(), scores.round(4).tolist()
    ([1.5, 3.5], [0.0383, 0.0975])
    """
    event, time = survival_arrays(y_test)
    n = len(time)
    if n == 0:
        raise ValueError("y_test is empty.")
    times = _check_times(times, time, strictly_increasing=True)
    probs = _check_survival_probabilities(survival_probabilities, n, len(times))
    g = censoring_survival(y_train)
    g_times = _ipcw_at(g, times, "time point(s)", "choose times below the largest training time")
    cases_needed = event & (time <= times[-1])
    ipcw_case = np.zeros(n)
    ipcw_case[cases_needed] = 1.0 / _ipcw_at(g, time[cases_needed], "test event(s) before the last time point",
                                             "choose times below the largest training time")
    scores = np.empty(len(times))
    for k, t in enumerate(times):
        s = probs[:, k]
        case = cases_needed & (time <= t)
        control = time > t
        scores[k] = np.mean(np.where(case, np.square(s) * ipcw_case, 0.0)
                            + np.where(control, np.square(1.0 - s) / g_times[k], 0.0))
    return times, scores


def integrated_brier_score(y_train: ArrayLike, y_test: ArrayLike, survival_probabilities: ArrayLike,
                           times: ArrayLike) -> float:
    """The integrated Brier score: the mean of BS(t) over [t_1, t_last], by the trapezoidal rule.

    Parameters
    ----------
    y_train : structured array of shape (n_train,) or tuple (event, time)
        Target from which the censoring survival Ĝ is estimated (see :func:`uno_c`).
    y_test : structured array of shape (n_samples,) or tuple (event, time)
        The target of the evaluated subjects.
    survival_probabilities : array-like of shape (n_samples, n_times)
        Predicted Ŝ(t_k | x_i); column k belongs to ``times[k]``.
    times : array-like of shape (n_times,)
        At least two strictly increasing time points in the test follow-up [min T, max T); a
        fine grid (e.g. 100 points between the 10th and 90th percentile of the times) gives
        a good approximation of the integral.

    Returns
    -------
    ibs : float
        (1 / (t_last − t_1)) Σ_k (t_{k+1} − t_k) (BS(t_k) + BS(t_{k+1})) / 2 (lower is better).

    Raises
    ------
    ValueError
        For fewer than two time points, and as :func:`brier_score`.

    See Also
    --------
    brier_score : BS(t) at each time point.

    Notes
    -----
    Graf et al. (1999) define IBS = (1/τ) ∫_0^τ BS(t) dt; over a grid the integral is the
    trapezoidal sum divided by the grid's length, as scikit-survival's
    ``integrated_brier_score`` computes it (its values equal these to round-off).

    References
    ----------
    .. [1] Graf, E., Schmoor, C., Sauerbrei, W., & Schumacher, M. (1999). Assessment and
       comparison of prognostic classification schemes for survival data. *Statistics in
       Medicine*, 18(17–18), 2529–2545.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.metrics import integrated_brier_score
    >>> event = [True, False, True, True, False, True]
    >>> time = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    >>> surv = np.array([[0.2, 0.1], [0.8, 0.6], [0.7, 0.4], [0.8, 0.5], [0.9, 0.8], [0.9, 0.9]])
    >>> round(integrated_brier_score((event, time), (event, time), surv, [1.5, 3.5]), 4)
    0.0679
    """
    times = np.atleast_1d(np.asarray(times, dtype=float))
    if times.ndim != 1 or len(times) < 2:
        raise ValueError(
            f"The integrated Brier score needs at least two time points; got {len(np.ravel(times))}. "
            "Use brier_score for one time point.")
    times, scores = brier_score(y_train, y_test, survival_probabilities, times)
    area = float(np.sum(np.diff(times) * (scores[1:] + scores[:-1]) / 2.0))
    return area / float(times[-1] - times[0])
