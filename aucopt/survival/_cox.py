"""The Cox proportional hazards baseline, a scikit-learn style wrapper of lifelines' ``CoxPHFitter``."""

from __future__ import annotations

import time as _time
import warnings
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, validate_data

from .._breslow import SurvivalFunctionMixin
from .._summary import print_summary as _print_summary
from .._summary import summary as _summary
from .._validation import Count, check_consistent_length, check_feature_scale, survival_arrays
from ..base import VERBOSE_CONSTRAINT, VersionedStateMixin, non_negative, positive
from ..exceptions import warn
from ..metrics import harrell_c
from ..pairs import PairSet

__all__ = ["CoxPH"]


def _count_newton_steps(fitter: Any) -> list[int] | None:
    """Count lifelines' Newton–Raphson steps: one gradient evaluation per step.

    Wraps the fitter's gradient calculator on the instance (removed after the fit); returns a
    one-element list holding the count, or None when lifelines has no such hook.
    """
    choose = getattr(fitter, "_choose_gradient_calculator", None)
    if choose is None:  # pragma: no cover - depends on the lifelines version
        return None
    steps = [0]

    def choose_counting(*args: Any, **kwargs: Any) -> Any:
        gradients = choose(*args, **kwargs)

        def counted(*a: Any, **k: Any) -> Any:
            steps[0] += 1
            return gradients(*a, **k)

        return counted

    fitter._choose_gradient_calculator = choose_counting
    return steps


class CoxPH(VersionedStateMixin, SurvivalFunctionMixin, BaseEstimator):
    """Cox proportional hazards model, fitted by lifelines (Efron's ties), as a risk ranker.

    The baseline the survival rankers are compared with (Ataman 2007, Ch. V). ``fit`` takes a
    structured survival target; ``predict`` returns the linear predictor βᵀx as the risk
    (higher = earlier event) and ``score`` is Harrell's C. Needs lifelines
    (``pip install 'aucopt[survival]'``).

    Parameters
    ----------
    alpha : float, default=0.0
        Penalty multiplier α ≥ 0 (lifelines' ``penalizer``; see Notes for the exact objective).
        A small ridge, e.g. 0.01, helps Newton–Raphson converge on collinear or separable data.
    l1_ratio : float, default=0.0
        Share ρ in [0, 1] of the L1 part of the elastic-net penalty (0: ridge, 1: lasso), as in
        scikit-learn and lifelines.
    tol : float, default=1e-7
        Stopping tolerance of Newton–Raphson: stop when the step norm or the Newton decrement
        falls below ``tol`` (lifelines' ``fit_options["precision"]``).
    max_iter : int, default=500
        Maximum number of Newton–Raphson steps (lifelines' ``fit_options["max_steps"]``).
    verbose : int, default=0
        0 silent; ≥ 1 prints lifelines' progress of every Newton step (``show_progress``).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The regression coefficients β on the original scale of ``X``; 0 for columns that are
        constant in the training data.
    converged_ : bool
        Whether Newton–Raphson met its stopping test within ``max_iter`` steps.
    n_iter_ : int
        Number of Newton–Raphson steps taken.
    calibration_ : BreslowCalibration
        Breslow's cumulative baseline hazard for the linear predictor (slope fixed at 1), behind
        :meth:`predict_survival_function`, :meth:`predict_cumulative_hazard_function` and
        :meth:`predict_median_survival_time`.
    unique_times_ : ndarray of shape (n_unique_times,)
        The distinct training times, where ``return_array=True`` evaluates the functions.
    fit_time_ : float
        Seconds taken by ``fit``.
    fitter_ : lifelines.fitters.coxph_fitter.SemiParametricPHFitter
        The fitted lifelines model, the one ``lifelines.CoxPHFitter`` fits with its default
        Breslow baseline (over the non-constant columns, named ``x0``, ``x1``, … after their
        index in ``X``): ``summary``, ``baseline_hazard_``, ``print_summary()``, …
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the features seen during fit, when ``X`` has string column names.

    See Also
    --------
    pooled_cindex_cv : Cross-validated comparison with the survival rankers.
    aucopt.SurvivalRankSVM : A pairwise risk ranker with a ridge penalty ``alpha``.
    sksurv.linear_model.CoxPHSurvivalAnalysis : scikit-survival's Cox model.

    Notes
    -----
    The hazard of a subject with covariates x is h(t | x) = h₀(t) exp(βᵀx) (Cox 1972). lifelines
    standardizes every column by its mean and sample standard deviation s_k (ddof = 1), fits
    the coefficients β̃_k = s_k β_k of the standardized columns by Newton–Raphson, and
    reports β = β̃ / s. Over n samples it minimizes::

        −(1/n) ℓ(β̃) + α ( ρ Σ_k |β̃_k| + ½ (1 − ρ) ‖β̃‖² ),

    where ℓ is the log partial likelihood with Efron's correction for tied event times (a sum
    over the events, not an average; the penalty is multiplied by n inside lifelines) and ρ is
    ``l1_ratio``; ``|·|`` is replaced by a smooth approximation that sharpens at every step. So a
    ridge (ρ = 0) ``CoxPH(alpha=a)`` on standardized columns is scikit-survival's
    ``CoxPHSurvivalAnalysis(alpha=n * a, ties="efron")``, which minimizes −ℓ(β) + (α/2)‖β‖².

    Columns constant in the training data (e.g. a rare one-hot level absent from a
    cross-validation fold) would make the partial likelihood singular: they are left out of the
    fit and get coefficient 0.

    References
    ----------
    .. [1] Cox, D. R. (1972). Regression models and life-tables. *Journal of the Royal
       Statistical Society, Series B*, 34(2), 187–220.
    .. [2] Davidson-Pilon, C. (2019). lifelines: survival analysis in Python. *Journal of Open
       Source Software*, 4(40), 1317.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import CoxPH, survival_target
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3))
    >>> y = survival_target(rng.random(60) < 0.7, rng.exponential(np.exp(-X[:, 0])))
    >>> model = CoxPH(alpha=0.01).fit(X, y)
    >>> model.coef_.shape, model.converged_, model.n_iter_, round(model.score(X, y), 2)
    ((3,), True, 4, 0.78)
    """

    _parameter_constraints: ClassVar[dict] = {
        "alpha": [non_negative()],
        "l1_ratio": [Interval(Real, 0, 1, closed="both")],
        "tol": [positive()],
        "max_iter": [Count(Integral, 1, None, closed="left")],
        **VERBOSE_CONSTRAINT,
    }

    def __init__(self, alpha: float = 0.0, *, l1_ratio: float = 0.0, tol: float = 1e-7, max_iter: int = 500,
                 verbose: int = 0):
        self.alpha = alpha
        self.l1_ratio = l1_ratio
        self.tol = tol
        self.max_iter = max_iter
        self.verbose = verbose

    def fit(self, X: ArrayLike, y: ArrayLike) -> CoxPH:
        """Fit the Cox model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Covariates.
        y : structured array of shape (n_samples,)
            Boolean event indicator and float time (see :func:`aucopt.survival_target`).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        start = _time.perf_counter()
        self._validate_params()
        try:
            import pandas as pd
            from lifelines.fitters.coxph_fitter import SemiParametricPHFitter
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("CoxPH needs lifelines: pip install 'aucopt[survival]' (or lifelines).") from exc
        event, time = survival_arrays(y)
        data: np.ndarray = validate_data(self, X, dtype=np.float64, reset=True)
        check_feature_scale(data)  # the Newton steps on the partial likelihood need x**2
        check_consistent_length(X=data, y=event)
        PairSet.survival(event, time).check_nonempty()  # no event, or no one at risk after any event
        varying = np.ptp(data, axis=0) > 0
        cols = [f"x{c}" for c in np.flatnonzero(varying)]
        df = pd.DataFrame(data[:, varying], columns=cols)
        df["_time"] = time
        df["_event"] = event.astype(int)
        # the model lifelines' CoxPHFitter fits with its default Breslow baseline, built directly
        # so that its Newton steps can be counted
        self.fitter_ = SemiParametricPHFitter(penalizer=float(self.alpha), l1_ratio=float(self.l1_ratio))
        steps = _count_newton_steps(self.fitter_)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                self.fitter_.fit(df, duration_col="_time", event_col="_event",
                                 show_progress=bool(self.verbose),
                                 fit_options={"precision": float(self.tol), "max_steps": int(self.max_iter)})
            except Exception as exc:  # lifelines' ConvergenceError and friends: a clear message
                raise ValueError(
                    f"The Cox model could not be fitted with alpha={self.alpha!r} ({type(exc).__name__}: "
                    f"{str(exc).splitlines()[0] if str(exc) else ''}); try alpha > 0, "
                    "e.g. CoxPH(alpha=0.01)."
                ) from exc
            finally:
                self.fitter_.__dict__.pop("_choose_gradient_calculator", None)  # keep the fitter picklable
        self.n_iter_ = steps[0] if steps else None
        self.converged_ = True
        for w in caught:
            if "failed to converge" in str(w.message):
                self.converged_ = False
            else:
                warn(w.message, w.category)  # lifelines' own warnings, at the user's line
        if not self.converged_:
            warn(
                f"The Cox model did not converge (max_iter={self.max_iter}, tol={self.tol}); raise "
                "max_iter, or use alpha > 0 for collinear or separable data.",
                ConvergenceWarning,
            )
        self.coef_ = np.zeros(data.shape[1])
        self.coef_[varying] = self.fitter_.params_[cols].to_numpy(dtype=float)
        self._calibrate(data @ self.coef_, time, event, coef=1.0)  # Breslow's baseline for the fitted β
        self.fit_time_ = _time.perf_counter() - start
        return self

    summary = _summary
    print_summary = _print_summary

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Risk scores: the linear predictor βᵀx (higher = earlier event).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        risk : ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "coef_")
        data: np.ndarray = validate_data(self, X, dtype=np.float64, reset=False)
        return data @ self.coef_

    def score(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> float:
        """Harrell's concordance index of the risk scores (tied risks count ½).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : structured array of shape (n_samples,)
        sample_weight : float or array-like of shape (n_samples,), default=None
            Case weights: a comparable pair (i, j) counts with weight ``sample_weight[i] *
            sample_weight[j]`` (see :func:`aucopt.metrics.harrell_c`).

        Returns
        -------
        cindex : float
        """
        return harrell_c(y, self.predict(X), sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags
