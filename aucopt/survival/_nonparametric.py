"""Kaplan–Meier product-limit estimate, weighted log-rank tests and risk groups.

Own implementations (checked against lifelines' ``KaplanMeierFitter`` and ``logrank_test``) of
the Kaplan–Meier risk-group analysis of Ataman (2007), Sec. 5.3.5: split a risk ordering into a
high-risk group and the rest, draw both groups' Kaplan–Meier curves and test their difference.
"""

from __future__ import annotations

from numbers import Real
from typing import Literal, NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats
from sklearn.utils._param_validation import Interval, StrOptions, validate_params

from .._step_function import step_values
from .._validation import check_finite_1d, survival_arrays

__all__ = [
    "LOGRANK_WEIGHTINGS",
    "KaplanMeierCurve",
    "LogRankResult",
    "RiskGroups",
    "kaplan_meier",
    "logrank",
    "number_at_risk",
    "risk_groups",
]


# ============================================================================ Kaplan–Meier
class KaplanMeierCurve(NamedTuple):
    """A product-limit estimate: S just after each distinct event time (a right-continuous step).

    Returned by :func:`kaplan_meier`, with Greenwood's pointwise confidence band on the log-log
    scale.

    Attributes
    ----------
    times : ndarray of shape (n_event_times,)
        The distinct event times t_k, increasing.
    survival : ndarray of shape (n_event_times,)
        Ŝ(t_k), the estimated probability of no event up to and including t_k.
    lower : ndarray of shape (n_event_times,) or None, default=None
        Lower end of the pointwise confidence interval of Ŝ(t_k) (see :func:`kaplan_meier`).
    upper : ndarray of shape (n_event_times,) or None, default=None
        Upper end of that interval.
    n_at_risk : ndarray of shape (n_event_times,) or None, default=None
        n_k, the number of subjects with time ≥ t_k.
    n_events : ndarray of shape (n_event_times,) or None, default=None
        d_k, the number of events at t_k.
    confidence_level : float or None, default=None
        The coverage of ``lower`` and ``upper`` (e.g. 0.95).

    Examples
    --------
    >>> from aucopt.survival import kaplan_meier
    >>> curve = kaplan_meier([1.0, 2.0, 2.0, 4.0], [True, True, False, True])
    >>> curve.at([0.5, 1.0, 3.0, 5.0]).tolist()
    [1.0, 0.75, 0.5, 0.0]
    >>> curve.n_at_risk.tolist(), curve.n_events.tolist()
    ([4, 3, 1], [1, 1, 1])
    """

    times: np.ndarray
    survival: np.ndarray
    lower: np.ndarray | None = None
    upper: np.ndarray | None = None
    n_at_risk: np.ndarray | None = None
    n_events: np.ndarray | None = None
    confidence_level: float | None = None

    def at(self, t: ArrayLike) -> np.ndarray:
        """Ŝ(t) at arbitrary times (1 before the first event time).

        Parameters
        ----------
        t : float or array-like
            Time points.

        Returns
        -------
        survival : ndarray
            Ŝ at each time point, shaped like ``t``.
        """
        return self._step(self.survival, t)

    def confidence_interval_at(self, t: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
        """The pointwise confidence interval of Ŝ(t) at arbitrary times ((1, 1) before the first event).

        Parameters
        ----------
        t : float or array-like
            Time points.

        Returns
        -------
        lower, upper : ndarray
            The interval ends at each time point, shaped like ``t``.

        Examples
        --------
        >>> from aucopt.survival import kaplan_meier
        >>> curve = kaplan_meier([1.0, 2.0, 3.0, 4.0, 5.0], [True, True, False, True, False])
        >>> lower, upper = curve.confidence_interval_at([0.5, 2.5])
        >>> lower.round(4).tolist(), upper.round(4).tolist()
        ([1.0, 0.1257], [1.0, 0.8818])
        """
        if self.lower is None or self.upper is None:
            raise ValueError("This curve has no confidence interval: compute it with "
                             "kaplan_meier(time, event, confidence_level=0.95).")
        return self._step(self.lower, t), self._step(self.upper, t)

    def _step(self, values: np.ndarray, t: ArrayLike) -> np.ndarray:
        return step_values(self.times, values, t, before=1.0)


def _survival_pair(time: ArrayLike, event: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    event, time = survival_arrays(event, time)
    if len(time) == 0:
        raise ValueError("A Kaplan–Meier group must contain at least one sample.")
    return time, event


def number_at_risk(time: ArrayLike, at: ArrayLike) -> np.ndarray:
    """The number of subjects still at risk at each time point: ``|{i : time_i ≥ t}|``.

    Parameters
    ----------
    time : array-like of shape (n_samples,)
        Event or censoring times.
    at : float or array-like of shape (n_points,)
        Time points t.

    Returns
    -------
    counts : ndarray of int
        The number of subjects whose event or censoring time is at or after each t (followed
        up to just before t), shaped like ``at``. This is n_k of the Kaplan–Meier estimator.

    See Also
    --------
    plot_risk_groups : Prints these counts under the curves.

    Examples
    --------
    >>> from aucopt.survival import number_at_risk
    >>> number_at_risk([1.0, 2.0, 2.0, 5.0], [0.0, 2.0, 2.5, 6.0]).tolist()
    [4, 3, 1, 0]
    """
    ts = np.sort(check_finite_1d(time, "time"))
    return len(ts) - np.searchsorted(ts, np.asarray(at, dtype=float), side="left")


def _greenwood_loglog(survival: np.ndarray, n_at_risk: np.ndarray, n_events: np.ndarray,
                      confidence_level: float) -> tuple[np.ndarray, np.ndarray]:
    """Greenwood's log-log ("exponential Greenwood") pointwise interval of Ŝ at the event times."""
    z = stats.norm.ppf(0.5 + confidence_level / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        # Σ d/(n(n−d)); a term with n = d (Ŝ drops to 0) adds nothing, the interval there is (0, 0)
        terms = np.where(n_at_risk > n_events, n_events / (n_at_risk * (n_at_risk - n_events.astype(float))), 0.0)
        greenwood = np.cumsum(terms)
        log_s = np.log(survival)
        spread = z * np.sqrt(greenwood) / np.abs(log_s)
        log_minus_log = np.log(-log_s)
        lower = np.exp(-np.exp(log_minus_log + spread))
        upper = np.exp(-np.exp(log_minus_log - spread))
    lower = np.where(survival > 0, lower, 0.0)
    upper = np.where(survival > 0, upper, 0.0)
    return lower, upper


def kaplan_meier(time: ArrayLike, event: ArrayLike, *, confidence_level: float | None = 0.95) -> KaplanMeierCurve:
    """The Kaplan–Meier product-limit estimate of the survival function, with a confidence band.

    Parameters
    ----------
    time : array-like of shape (n_samples,)
        Non-negative event or censoring times (at least one sample).
    event : array-like of shape (n_samples,)
        True (or 1) where the event was observed, False (or 0) where the time is censored.
    confidence_level : float or None, default=0.95
        Coverage in (0, 1) of the pointwise confidence interval (Greenwood's variance on the
        log-log scale); None leaves ``lower`` and ``upper`` None.

    Returns
    -------
    curve : KaplanMeierCurve
        The distinct event times, Ŝ there and its confidence interval, n_k and d_k (empty
        arrays when there is no event); evaluate anywhere with ``curve.at(t)`` and
        ``curve.confidence_interval_at(t)``.

    Raises
    ------
    ValueError
        For an empty sample, negative or non-finite times, non-binary events, or a
        ``confidence_level`` outside (0, 1).

    See Also
    --------
    logrank : Tests whether two groups' curves differ.
    plot_risk_groups : Draws the curves of risk groups.

    Notes
    -----
    Ŝ(t) = Π_{t_k ≤ t} (1 − d_k / n_k) over the distinct event times t_k, with d_k the number
    of events at t_k and n_k the number of subjects with time ≥ t_k; a subject censored at t_k
    counts as at risk at t_k (Kaplan & Meier 1958).

    The interval transforms Ŝ by log(−log Ŝ), whose variance by the delta method and
    Greenwood's (1926) formula is V(t) = Σ_{t_k ≤ t} d_k / (n_k (n_k − d_k)) / (log Ŝ(t))²,
    and maps θ ± z √V back: [Ŝ^exp(z √V), Ŝ^exp(−z √V)], with z the standard normal
    quantile of (1 + ``confidence_level``) / 2 (Kalbfleisch & Prentice 2002, Sec. 1.4). Unlike
    the plain Greenwood interval Ŝ ± z Ŝ √(Σ d/(n(n − d))), it stays inside [0, 1]. Where Ŝ
    reaches 0 the interval is (0, 0). The estimate and the interval equal lifelines'
    ``KaplanMeierFitter`` (its default "exponential Greenwood" interval).

    References
    ----------
    .. [1] Kaplan, E. L., & Meier, P. (1958). Nonparametric estimation from incomplete
       observations. *Journal of the American Statistical Association*, 53(282), 457–481.
    .. [2] Greenwood, M. (1926). The natural duration of cancer. *Reports on Public Health and
       Medical Subjects*, 33, 1–26. London: His Majesty's Stationery Office.
    .. [3] Kalbfleisch, J. D., & Prentice, R. L. (2002). *The Statistical Analysis of Failure
       Time Data* (2nd ed.). Hoboken, NJ: Wiley.

    Examples
    --------
    >>> from aucopt.survival import kaplan_meier
    >>> curve = kaplan_meier([1.0, 2.0, 2.0, 3.0, 5.0], [True, True, False, True, False])
    >>> curve.times.tolist(), curve.survival.round(3).tolist()
    ([1.0, 2.0, 3.0], [0.8, 0.6, 0.3])
    >>> curve.lower.round(3).tolist(), curve.upper.round(3).tolist()
    ([0.204, 0.126, 0.012], [0.969, 0.882, 0.719])
    """
    if confidence_level is not None and not (isinstance(confidence_level, Real)
                                             and 0 < float(confidence_level) < 1):
        raise ValueError(f"confidence_level must be a number in (0, 1) (e.g. 0.95) or None; "
                         f"got {confidence_level!r}.")
    time, event = _survival_pair(time, event)
    ts = np.sort(time)
    t_k, d_k = np.unique(time[event], return_counts=True)
    n_k = len(time) - np.searchsorted(ts, t_k, side="left")
    survival = np.cumprod(1.0 - d_k / n_k)
    lower = upper = None
    if confidence_level is not None:
        lower, upper = _greenwood_loglog(survival, n_k, d_k, float(confidence_level))
    return KaplanMeierCurve(times=t_k, survival=survival, lower=lower, upper=upper, n_at_risk=n_k,
                            n_events=d_k, confidence_level=None if confidence_level is None
                            else float(confidence_level))


class LogRankResult(NamedTuple):
    """A two-sample weighted log-rank test, returned by :func:`logrank`.

    Attributes
    ----------
    statistic : float
        The χ² statistic with 1 degree of freedom.
    pvalue : float
        Its p-value.
    observed_minus_expected : float
        Z = Σ_k w_k (d_ak − E_ak), the weighted excess of events in group a.
    variance : float
        Σ_k w_k² V_k, the variance of Z under the null hypothesis.

    Examples
    --------
    >>> from aucopt.survival import logrank
    >>> result = logrank([1, 2, 3, 4], [1, 1, 1, 1], [5, 6, 7, 8], [1, 1, 1, 1])
    >>> round(result.observed_minus_expected, 3), round(result.pvalue, 4)
    (2.538, 0.0067)
    """

    statistic: float
    pvalue: float
    observed_minus_expected: float
    variance: float


#: the weightings of :func:`logrank`: None (log-rank), "wilcoxon" (Gehan), "tarone-ware"
LOGRANK_WEIGHTINGS = (None, "wilcoxon", "tarone-ware")


@validate_params(
    {"time_a": ["array-like"], "event_a": ["array-like"], "time_b": ["array-like"],
     "event_b": ["array-like"], "weighting": [StrOptions({"wilcoxon", "tarone-ware"}), None]},
    prefer_skip_nested_validation=True,
)
def logrank(time_a: ArrayLike, event_a: ArrayLike, time_b: ArrayLike, event_b: ArrayLike, *,
            weighting: Literal["wilcoxon", "tarone-ware"] | None = None) -> LogRankResult:
    """Two-sample weighted log-rank test of equal survival functions (χ² with 1 df).

    Parameters
    ----------
    time_a : array-like of shape (n_a,)
        Event or censoring times of group a.
    event_a : array-like of shape (n_a,)
        Event indicators of group a.
    time_b : array-like of shape (n_b,)
        Event or censoring times of group b.
    event_b : array-like of shape (n_b,)
        Event indicators of group b.
    weighting : {"wilcoxon", "tarone-ware"}, default=None
        The weight w_k of each event time: None gives 1 (the log-rank test of Mantel 1966),
        ``"wilcoxon"`` gives n_k (Gehan's generalized Wilcoxon test, the test of Ataman 2007,
        Sec. 5.3.5), ``"tarone-ware"`` gives √n_k (Tarone & Ware 1977).

    Returns
    -------
    result : LogRankResult
        χ² statistic, p-value, weighted observed-minus-expected events of group a and its
        variance.

    Raises
    ------
    ValueError
        When the pooled sample has no event, or the variance is zero.

    See Also
    --------
    kaplan_meier : The curves being compared.
    risk_groups : Splits a risk ordering into the two groups.

    Notes
    -----
    At each distinct event time t_k of the pooled sample, with n_k subjects at risk (n_ak in
    group a, n_bk in b) and d_k events (d_ak in a):

        E_ak = n_ak d_k / n_k,
        V_k = n_ak n_bk d_k (n_k − d_k) / (n_k² (n_k − 1))   (0 when n_k = 1),
        Z = Σ_k w_k (d_ak − E_ak),   χ² = Z² / Σ_k w_k² V_k.

    The results equal lifelines' ``logrank_test(..., weightings=weighting)``.

    References
    ----------
    .. [1] Mantel, N. (1966). Evaluation of survival data and two new rank order statistics
       arising in its consideration. *Cancer Chemotherapy Reports*, 50(3), 163–170.
    .. [2] Gehan, E. A. (1965). A generalized Wilcoxon test for comparing arbitrarily
       singly-censored samples. *Biometrika*, 52(1/2), 203–223.
    .. [3] Tarone, R. E., & Ware, J. (1977). On distribution-free tests for equality of
       survival distributions. *Biometrika*, 64(1), 156–160.

    Examples
    --------
    >>> from aucopt.survival import logrank
    >>> early = ([1.0, 2.0, 2.0, 3.0, 4.0], [1, 1, 0, 1, 1])
    >>> late = ([3.0, 5.0, 6.0, 7.0, 9.0], [1, 0, 1, 1, 1])
    >>> round(logrank(*early, *late).pvalue, 4), round(logrank(*early, *late, weighting="wilcoxon").pvalue, 4)
    (0.0222, 0.0359)
    """
    ta, ea = _survival_pair(time_a, event_a)
    tb, eb = _survival_pair(time_b, event_b)
    time = np.concatenate([ta, tb])
    event = np.concatenate([ea, eb])
    if not event.any():
        raise ValueError("The log-rank test needs at least one event in the pooled sample.")
    t_k, d_k = np.unique(time[event], return_counts=True)
    d_ak = np.unique(np.concatenate([t_k, ta[ea]]), return_counts=True)[1] - 1
    n_ak = len(ta) - np.searchsorted(np.sort(ta), t_k, side="left")
    n_bk = len(tb) - np.searchsorted(np.sort(tb), t_k, side="left")
    n_k = n_ak + n_bk
    expected = n_ak * d_k / n_k
    with np.errstate(invalid="ignore", divide="ignore"):
        v_k = np.where(n_k > 1, n_ak * n_bk * d_k * (n_k - d_k) / (n_k.astype(float) ** 2 * (n_k - 1)), 0.0)
    w_k = {None: np.ones(len(t_k)), "wilcoxon": n_k.astype(float),
           "tarone-ware": np.sqrt(n_k.astype(float))}[weighting]
    z = float(np.sum(w_k * (d_ak - expected)))
    var = float(np.sum(w_k**2 * v_k))
    if var <= 0:
        raise ValueError("The log-rank variance is zero (e.g. one group has no subject at risk at any event time).")
    chi2 = z * z / var
    return LogRankResult(statistic=chi2, pvalue=float(stats.chi2.sf(chi2, 1)),
                         observed_minus_expected=z, variance=var)


# ============================================================================ risk groups
class RiskGroups(NamedTuple):
    """A split of samples into a high-risk group and the rest, returned by :func:`risk_groups`.

    Attributes
    ----------
    high : ndarray of bool, shape (n_samples,)
        The samples with the top ``top`` % of scores.
    low : ndarray of bool, shape (n_samples,)
        The rest (``~high``).

    Examples
    --------
    >>> from aucopt.survival import risk_groups
    >>> risk_groups([10.0, 90.0, 50.0, 70.0], top=25).high.tolist()
    [False, True, False, False]
    """

    high: np.ndarray
    low: np.ndarray


@validate_params({"pooled_percentiles": ["array-like"],
                  "top": [Interval(Real, 0, 100, closed="neither")]},
                 prefer_skip_nested_validation=True)
def risk_groups(pooled_percentiles: ArrayLike, top: float = 10) -> RiskGroups:
    """Split a risk ordering into the top ``top`` % (high risk) and the rest.

    Parameters
    ----------
    pooled_percentiles : array-like of shape (n_samples,)
        Risk scores of at least 2 samples, e.g. one repetition's
        ``PooledCVResult.percentiles[r]`` or ``PooledCVResult.mean_percentiles``.
    top : float, default=10
        The percentage in (0, 100) of samples in the high-risk group: 10 gives Ataman's
        "top 10% vs rest", 90 gives "bottom 10%" as ``low``.

    Returns
    -------
    groups : RiskGroups
        Boolean masks ``high`` and ``low``.

    See Also
    --------
    plot_risk_groups : Kaplan–Meier curves of these groups.
    logrank : Tests whether the groups differ.

    Notes
    -----
    The round(top/100 · m) samples with the highest scores form the high-risk group (at least
    one and at most m − 1); ties at the cut are broken by sample index (earlier first), so the
    group sizes are exact. Ataman (2007), Sec. 5.3.5, splits the pooled ordering at every 10 %
    and shows the top 10 % and the bottom 10 %.

    References
    ----------
    .. [1] Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming
       for problems with binary output*. PhD thesis, University of Iowa.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.survival import risk_groups
    >>> groups = risk_groups(np.arange(20.0), top=10)
    >>> np.flatnonzero(groups.high).tolist(), int(groups.low.sum())
    ([18, 19], 18)
    """
    scores = check_finite_1d(pooled_percentiles, "pooled_percentiles")
    m = len(scores)
    if m < 2:
        raise ValueError(f"risk_groups needs at least 2 samples; got {m}.")
    k = int(min(max(round(top / 100.0 * m), 1), m - 1))
    order = np.lexsort((np.arange(m), -scores))  # descending score, then index
    high = np.zeros(m, dtype=bool)
    high[order[:k]] = True
    return RiskGroups(high=high, low=~high)
