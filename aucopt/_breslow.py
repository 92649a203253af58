"""Survival curves from a risk score: a one-covariate Cox model on the score, with Breslow's baseline.

A ranker's risk score s has no scale. :func:`fit_breslow` calibrates it as the survival analogue of
Platt scaling: β̂ maximizes Cox's partial likelihood of the training scores (Breslow's handling of
tied event times), and Breslow's estimator gives the cumulative baseline hazard

    Ĥ₀(t) = Σ_{t_k ≤ t} d_k / Σ_{j : T_j ≥ t_k} w_j exp(β̂ s_j),

so that H(t | x) = Ĥ₀(t) exp(β̂ s(x)) and S(t | x) = exp(−H(t | x)). Everything is O(n log n): one
sort by time, then cumulative sums; β̂ is a one-dimensional Newton iteration on the concave log
partial likelihood.

References: Cox (1972), J. R. Stat. Soc. B 34(2); Breslow (1972), discussion of Cox (1972);
Platt (1999), Advances in Large Margin Classifiers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.exceptions import ConvergenceWarning
from sklearn.pipeline import Pipeline
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ._lazy import lazy_module
from ._step_function import step_values
from .exceptions import warn

_kernels = lazy_module("aucopt._breslow_kernels")  # numba: imported at the first calibration
_EMPTY = np.zeros(0)

__all__ = ["BreslowCalibration", "StepFunction", "SurvivalFunctionMixin", "fit_breslow"]

#: when the training scores order the events perfectly the partial likelihood has no maximum (β̂ = ∞);
#: the slope is then the largest with |β (s − centre)| ≤ this on the training scores, so that the
#: relative risks (up to e²⁰⁰) and the baseline's increments stay representable
MAX_LOG_RISK = 200.0


class StepFunction:
    """A right-continuous step function ``t ↦ a · y[k]`` for ``x[k] ≤ t < x[k + 1]``.

    Before ``x[0]`` it takes the value ``before`` (0 for a cumulative hazard, 1 for a survival
    function); after ``x[-1]`` it keeps its last value. The attributes ``x``, ``y`` and ``a`` are
    scikit-survival's ``StepFunction`` names.

    Parameters
    ----------
    x : ndarray of shape (n_points,)
        Increasing jump points (the training times).
    y : ndarray of shape (n_points,)
        Values from each jump point on.
    a : float, default=1.0
        Factor applied to ``y``.
    before : float, default=0.0
        Value for ``t < x[0]`` (not scaled by ``a``).

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.survival import StepFunction
    >>> f = StepFunction(np.array([1.0, 2.0]), np.array([0.5, 0.25]), before=1.0)
    >>> f([0.5, 1.0, 1.5, 9.0]).tolist()
    [1.0, 0.5, 0.5, 0.25]
    """

    def __init__(self, x: ArrayLike, y: ArrayLike, *, a: float = 1.0, before: float = 0.0):
        self.x = np.asarray(x, dtype=float)
        self.y = np.asarray(y, dtype=float)
        self.a = float(a)
        self.before = float(before)

    def __call__(self, t: ArrayLike) -> float | np.ndarray:
        """Values at times ``t`` (a float for a scalar ``t``, else an array of ``t``'s shape)."""
        t = np.asarray(t, dtype=float)
        if np.isnan(t).any():
            raise ValueError("The times at which to evaluate a step function contain NaN.")
        values = step_values(self.x, self.a * self.y, t, self.before)
        return float(values) if values.ndim == 0 else values

    def __repr__(self) -> str:
        return f"StepFunction(x=<{len(self.x)} times>, a={self.a:.6g})"


@dataclass(frozen=True)
class BreslowCalibration:
    """A risk score's Cox calibration: ``H(t | s) = Ĥ₀(t) exp(coef · (s − centre))``.

    Attributes
    ----------
    coef : float
        β̂, the partial-likelihood slope of the training scores.
    unique_times : ndarray of shape (n_times,)
        The distinct training times (events and censorings), increasing.
    cum_baseline_hazard : ndarray of shape (n_times,)
        Breslow's Ĥ₀ at ``unique_times``, for the centred scores ``s − centre`` (so that it stays
        representable when the scores are far from 0).
    centre : float
        The (weighted) mean training score.
    converged : bool
        Whether the Newton iteration met its tolerance; False when the training scores order
        the events perfectly and the likelihood grows without bound in β (β̂ is then the last
        iterate, a large slope, at most the one that keeps the relative risks of the training
        scores within e²⁰⁰).

    Examples
    --------
    Every survival estimator stores its calibration in ``calibration_``:

    >>> import numpy as np
    >>> from aucopt import SurvivalRankSVM, survival_target
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 2))
    >>> y = survival_target(rng.random(80) < 0.7, rng.exponential(np.exp(-X[:, 0])))
    >>> cal = SurvivalRankSVM(alpha=1.0).fit(X, y).calibration_
    >>> bool(cal.coef > 0), cal.converged, cal.cum_baseline_hazard.shape == cal.unique_times.shape
    (True, True, True)
    """

    coef: float
    unique_times: np.ndarray
    cum_baseline_hazard: np.ndarray
    centre: float
    converged: bool

    def cumulative_hazard(self, scores: ArrayLike) -> np.ndarray:
        """``H(t | s)`` at :attr:`unique_times`, one row per score."""
        return self.relative_risk(scores)[:, None] * self.cum_baseline_hazard[None, :]

    def relative_risk(self, scores: ArrayLike) -> np.ndarray:
        """``exp(coef · (s − centre))``: the factor of :attr:`cum_baseline_hazard` for each score."""
        return np.exp(self.coef * (np.asarray(scores, dtype=float) - self.centre))

    def median_survival_time(self, scores: ArrayLike) -> np.ndarray:
        """The first training time with ``S(t | s) ≤ ½`` (``inf`` if never reached)."""
        # S(t | s) ≤ ½ ⇔ Ĥ₀(t) ≥ log 2 / r(s); Ĥ₀ is non-decreasing: one binary search per score,
        # no n × n_times hazard matrix
        with np.errstate(divide="ignore"):
            level = np.log(2.0) / self.relative_risk(scores)
        first = np.searchsorted(self.cum_baseline_hazard, level, side="left")
        reached = first < len(self.unique_times)
        return np.where(reached, self.unique_times[np.minimum(first, len(self.unique_times) - 1)], np.inf)


def fit_breslow(scores: ArrayLike, time: ArrayLike, event: ArrayLike, sample_weight: ArrayLike | None = None, *,
                coef: float | None = None, tol: float = 1e-10, max_iter: int = 100) -> BreslowCalibration:
    """Calibrate risk scores as a one-covariate Cox model (Breslow ties) and its baseline hazard.

    Parameters
    ----------
    scores : array-like of shape (n_samples,)
        Training risk scores (higher = earlier event).
    time, event : array-like of shape (n_samples,)
        Observed times and event indicators.
    sample_weight : array-like of shape (n_samples,), default=None
        Case weights (a subject of weight w counts as w subjects).
    coef : float, default=None
        A fixed slope (e.g. 1 for the linear predictor of a fitted Cox model): only the
        baseline hazard is estimated. None: β̂ by partial likelihood.
    tol : float, default=1e-10
        Stop when the Newton step on β, relative to ``max(1, |β|)``, is below ``tol``.
    max_iter : int, default=100
        Maximum Newton steps.

    Returns
    -------
    BreslowCalibration
    """
    s = np.asarray(scores, dtype=float)
    time = np.asarray(time, dtype=float)
    event = np.asarray(event, dtype=bool)
    w = _EMPTY if sample_weight is None else np.asarray(sample_weight, dtype=float)  # empty: weight 1
    if not np.isfinite(s).all():
        raise ValueError("The training risk scores contain NaN or inf; the survival curves cannot be calibrated.")
    from .pairs import reordered, time_order  # the pair sets' sort and gather (compiled for large n)

    scale = float(np.std(s)) or 1.0
    positive = len(w) == 0 or w.sum() > 0
    centre = float(np.average(s, weights=w if len(w) else None)) if positive else 0.0
    # descending time order: a prefix holds each risk set (a tie group's order is immaterial); the
    # standardized scores z (β̃ = β · scale) and the weights in that order, then the tie groups
    order = time_order(time)[::-1]
    z = reordered(s, order)
    z -= centre
    z /= scale
    w_desc = reordered(w, order) if len(w) else w
    t_desc = reordered(time, order)
    unique_times, group_end, d, s_events = _kernels.tie_groups(t_desc, event[order], w_desc, z)
    del t_desc
    if coef is None:
        likelihood = _PartialLikelihood(z, w_desc, s_events, group_end, d)
        beta, converged = _newton_ascent(likelihood, tol, max_iter, _start(z, w_desc, order, time, event))
        reach = beta * max(likelihood.z_max, -likelihood.z_min)
        if not converged and abs(reach) > MAX_LOG_RISK:  # no finite β̂: the largest slope that stays representable
            beta *= MAX_LOG_RISK / abs(reach)
    else:
        beta, converged = float(coef) * scale, True
    del order
    # Breslow's baseline for the centred scores: increments d_k / m0_k, with log m0_k summed stably
    cum_baseline = _kernels.cumulative_baseline(z, w_desc, group_end, d, float(beta))
    return BreslowCalibration(float(beta / scale), unique_times, cum_baseline, centre, converged)


class _PartialLikelihood:
    """Cox's log partial likelihood of one standardized covariate z (Breslow ties), with its
    first two derivatives in β, over samples in descending time order (one compiled pass each)."""

    def __init__(self, z: np.ndarray, w: np.ndarray, s_events: float, group_end: np.ndarray, d: np.ndarray):
        self.z, self.w = np.ascontiguousarray(z, dtype=float), np.ascontiguousarray(w, dtype=float)  # w empty: 1
        self.group_end, self.d = np.ascontiguousarray(group_end, dtype=np.int64), np.ascontiguousarray(d, dtype=float)
        self.s_events = float(s_events)  # Σ w·event·z
        self.z_max, self.z_min = float(z.max()), float(z.min())

    def __call__(self, beta: float) -> tuple[float, float, float]:
        """(log-likelihood, gradient, curvature = −second derivative) at β."""
        shift = max(beta * self.z_max, beta * self.z_min)  # exp never overflows; log m0 adds it back
        log_part, mean_part, curvature = _kernels.partial_likelihood_sums(self.z, self.w, self.group_end, self.d,
                                                                          float(beta), float(shift))
        return beta * self.s_events - log_part, self.s_events - mean_part, curvature


#: from this many samples on, the Newton ascent starts from β̂ of a systematic subsample of about
#: _SUBSAMPLE of them (in time order), which saves two or three passes over all the samples
_SUBSAMPLE = 1 << 16


def _start(z: np.ndarray, w: np.ndarray, order: np.ndarray, time: np.ndarray, event: np.ndarray) -> float:
    """A start for the ascent on all the samples: β̂ of every k-th sample in descending time order
    (``order``; ``z`` and ``w`` in that order, ``w`` empty for weight 1), 0 when there are few
    samples or that subsample's likelihood has no maximum."""
    k = len(z) // _SUBSAMPLE
    if k < 4:
        return 0.0
    rows = order[::k]
    z, w = np.ascontiguousarray(z[::k]), (np.ascontiguousarray(w[::k]) if len(w) else w)
    _, group_end, d, s_events = _kernels.tie_groups(time[rows], event[rows], w, z)
    beta, converged = _newton_ascent(_PartialLikelihood(z, w, s_events, group_end, d), 1e-6, 100)
    return beta if converged and np.isfinite(beta) else 0.0


def _newton_ascent(pieces: Callable[[float], tuple[float, float, float]], tol: float,
                   max_iter: int, start: float = 0.0) -> tuple[float, bool]:
    """Damped Newton ascent on a concave function of β from ``start``: (β̂, converged)."""
    beta, converged = float(start), False
    loglik, gradient, curvature = pieces(beta)
    for _ in range(max_iter):
        if curvature <= 0:  # at 0: every risk set has one score, flat in β; else the curvature underflowed
            converged = beta == 0.0  # on a likelihood that grows without bound (perfectly ordered events)
            break
        newton = gradient / curvature
        if not np.isfinite(newton):
            break
        step = newton
        for _ in range(60):  # damped Newton on a concave function: halve until the likelihood does not drop
            trial = pieces(beta + step)
            if trial[0] >= loglik - 1e-12 * abs(loglik):
                break
            step /= 2
        else:
            break  # no ascent along the Newton direction: round-off level, stop where we are
        beta += step
        loglik, gradient, curvature = trial
        if abs(newton) <= tol * max(1.0, abs(beta)):
            converged = True
            break
    return beta, converged


class SurvivalFunctionMixin:
    """Survival and cumulative hazard functions of a fitted risk model, from its Cox calibration.

    The estimator stores :class:`BreslowCalibration` in ``calibration_`` at fit (see
    :meth:`_calibrate`); the methods here map risk scores ``self.predict(X)`` to step functions.
    """

    if TYPE_CHECKING:  # the estimator's risk scores, which the curves calibrate
        def predict(self, X: Any) -> np.ndarray: ...

    def _calibrate(self, scores: np.ndarray, time: np.ndarray, event: np.ndarray,
                   sample_weight: np.ndarray | None = None, *, coef: float | None = None) -> None:
        """Fit ``calibration_`` and ``unique_times_`` on the training risk scores (rows of weight 0 left out)."""
        if sample_weight is not None:
            keep = np.asarray(sample_weight) > 0
            scores, time, event, sample_weight = scores[keep], time[keep], event[keep], sample_weight[keep]
        self.calibration_ = fit_breslow(scores, time, event, sample_weight, coef=coef)
        self.unique_times_ = self.calibration_.unique_times
        if not self.calibration_.converged:
            warn(f"{type(self).__name__}: the training risk scores order the events (almost) perfectly, so the "
                 f"slope of the survival calibration (a one-covariate Cox model on the scores) grows without "
                 f"bound; it stopped at {self.calibration_.coef:.4g} and the survival curves are close to steps. "
                 "A stronger penalty (smaller C, larger alpha) gives scores that calibrate.", ConvergenceWarning)

    def _functions(self, X: ArrayLike, return_array: bool, survival: bool) -> np.ndarray:
        check_is_fitted(self, "calibration_")
        cal = self.calibration_
        scores = np.asarray(self.predict(X), dtype=float)
        if return_array:
            hazard = cal.cumulative_hazard(scores)
            return np.exp(-hazard) if survival else hazard
        risk = cal.relative_risk(scores)
        base = cal.cum_baseline_hazard
        funcs = np.empty(len(risk), dtype=object)
        for i, r in enumerate(risk):  # exp(-r·Ĥ₀), not exp(-Ĥ₀)**r, which underflows to 0 for a large Ĥ₀
            funcs[i] = (StepFunction(cal.unique_times, np.exp(-r * base), before=1.0) if survival
                        else StepFunction(cal.unique_times, base, a=r))
        return funcs

    def predict_cumulative_hazard_function(self, X: ArrayLike, return_array: bool = False) -> np.ndarray:
        """Cumulative hazard functions ``H(t | x) = Ĥ₀(t) exp(β̂ · risk(x))``.

        The risk score is calibrated at fit as a one-covariate Cox model (β̂ by partial
        likelihood on the training scores, Breslow's ties) with Breslow's baseline hazard Ĥ₀.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        return_array : bool, default=False
            If True, an array of shape (n_samples, n_unique_times) of the values at
            ``unique_times_``; else an array of callable step functions.

        Returns
        -------
        cum_hazard : ndarray of shape (n_samples,) of StepFunction, or (n_samples, n_unique_times)
        """
        return self._functions(X, return_array, survival=False)

    def predict_survival_function(self, X: ArrayLike, return_array: bool = False) -> np.ndarray:
        """Survival functions ``S(t | x) = exp(−Ĥ₀(t) exp(β̂ · risk(x)))``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        return_array : bool, default=False
            If True, an array of shape (n_samples, n_unique_times) of the values at
            ``unique_times_``; else an array of callable step functions (1 before the
            first training time).

        Returns
        -------
        survival : ndarray of shape (n_samples,) of StepFunction, or (n_samples, n_unique_times)
        """
        return self._functions(X, return_array, survival=True)

    def predict_median_survival_time(self, X: ArrayLike) -> np.ndarray:
        """Median survival times: the first training time with ``S(t | x) ≤ ½`` (``inf`` if never).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        median : ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "calibration_")
        return self.calibration_.median_survival_time(self.predict(X))


_CURVE_METHODS = ("predict_survival_function", "predict_cumulative_hazard_function", "predict_median_survival_time")


def _pipeline_method(name: str) -> Any:
    """``Pipeline.<name>``: the transforms of all steps but the last, then the last step's ``name``."""

    def method(self: Pipeline, X: Any, **kwargs: Any) -> Any:
        Xt = X if len(self.steps) == 1 else self[:-1].transform(X)
        return getattr(self.steps[-1][1], name)(Xt, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = (f"Transform ``X`` by every step but the last, then return the last step's ``{name}`` "
                      "(added to scikit-learn's Pipeline by aucopt, as scikit-survival does).")
    return available_if(lambda self: hasattr(self.steps[-1][1], name))(method)


for _name in _CURVE_METHODS:  # survival curves through a pipeline, as scikit-survival's users expect
    if not hasattr(Pipeline, _name):
        setattr(Pipeline, _name, _pipeline_method(_name))
