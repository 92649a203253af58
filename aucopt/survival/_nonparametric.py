"""Kaplan–Meier product-limit estimate, weighted log-rank tests and risk groups."""

from __future__ import annotations

from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from scipy import stats

from .._validation import check_consistent_length, check_finite_1d, survival_arrays



# ============================================================================ Kaplan–Meier
class KaplanMeierCurve(NamedTuple):
    """Product-limit estimate: S just after each distinct event time (right-continuous step)."""

    times: np.ndarray
    survival: np.ndarray

    def at(self, t) -> np.ndarray:
        """S(t) for arbitrary times (1 before the first event time)."""
        idx = np.searchsorted(self.times, np.asarray(t, dtype=float), side="right") - 1
        return np.where(idx >= 0, self.survival[np.maximum(idx, 0)], 1.0)


def _survival_pair(time, event):
    event, time = survival_arrays(event, time)
    if len(time) == 0:
        raise ValueError("A Kaplan–Meier group must contain at least one sample.")
    return time, event


def kaplan_meier(time, event) -> KaplanMeierCurve:
    """Kaplan–Meier estimate ``S(t) = Π_{t_k ≤ t} (1 − d_k / n_k)`` over distinct event times t_k.

    d_k = events at t_k; n_k = subjects with time ≥ t_k (censored at t_k count as at risk, the
    usual convention). Note seed 003 pitfall 41: the thesis's formula has δ inverted.
    Returns the distinct event times and S there (empty arrays when there is no event).
    """
    time, event = _survival_pair(time, event)
    ts = np.sort(time)
    t_k, d_k = np.unique(time[event], return_counts=True)
    n_k = len(time) - np.searchsorted(ts, t_k, side="left")
    return KaplanMeierCurve(times=t_k, survival=np.cumprod(1.0 - d_k / n_k))


class LogRankResult(NamedTuple):
    statistic: float  # chi-square with 1 degree of freedom
    pvalue: float
    observed_minus_expected: float  # weighted Σ w_k (d_ak − E_ak), group a
    variance: float


LOGRANK_WEIGHTINGS = (None, "wilcoxon", "tarone-ware")


def logrank(time_a, event_a, time_b, event_b, *, weighting=None) -> LogRankResult:
    """Two-sample weighted log-rank test; χ² with 1 df.

    At each distinct event time t_k of the pooled sample, with n_k at risk (n_ak in group a),
    d_k events (d_ak in a): ``E_ak = n_ak d_k / n_k``, ``V_k = n_ak n_bk d_k (n_k − d_k) /
    (n_k² (n_k − 1))`` (0 when n_k = 1), ``Z = Σ w_k (d_ak − E_ak)``, ``χ² = Z² / Σ w_k² V_k``.
    Weights: ``None`` → 1 (log-rank), ``"wilcoxon"`` → n_k (Gehan–Breslow generalized
    Wilcoxon, seed 003 §3.2.6), ``"tarone-ware"`` → √n_k. Matches lifelines ``logrank_test``.
    """
    if weighting not in LOGRANK_WEIGHTINGS:
        raise ValueError(f"weighting must be one of {LOGRANK_WEIGHTINGS}; got {weighting!r}.")
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
    high: np.ndarray  # boolean mask: the top ``top`` % of scores
    low: np.ndarray  # boolean mask: the rest


def risk_groups(pooled_percentiles, top: float = 10) -> RiskGroups:
    """Split a (pooled) risk ordering into the top ``top`` % (high risk) and the rest.

    ``round(top/100 · m)`` samples with the highest scores form the high-risk group (at least
    one and at most m − 1); ties at the cut are broken by sample index (earlier index first),
    so the group sizes are exact. ``top=10`` is the thesis's "top 10% vs rest"; ``top=90``
    gives "bottom 10%" as ``low``. Pass one repetition's ``result.percentiles[r]`` or
    ``result.mean_percentiles``.
    """
    scores = check_finite_1d(pooled_percentiles, "pooled_percentiles")
    m = len(scores)
    if m < 2:
        raise ValueError("risk_groups needs at least 2 samples.")
    if not isinstance(top, Real) or isinstance(top, bool) or not 0 < top < 100:
        raise ValueError(f"top must be a percentage in (0, 100); got {top!r}.")
    k = int(min(max(round(top / 100.0 * m), 1), m - 1))
    order = np.lexsort((np.arange(m), -scores))  # descending score, then index
    high = np.zeros(m, dtype=bool)
    high[order[:k]] = True
    return RiskGroups(high=high, low=~high)
