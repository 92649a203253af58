"""Cox proportional hazards baseline, a wrapper of lifelines' ``CoxPHFitter``."""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import check_consistent_length, survival_arrays
from ..metrics import harrell_c


class CoxPH(BaseEstimator):
    """Cox proportional hazards baseline (lifelines ``CoxPHFitter``, Efron ties).

    ``fit(X, y)`` with a structured survival target; ``predict(X)`` returns the linear
    predictor βᵀx (uncentred) as the risk; ``score`` is Harrell's C. Columns constant in the
    training data get coefficient 0 (they would make the likelihood singular). ``penalizer`` and
    ``l1_ratio`` are passed to lifelines (a small ridge, e.g. 0.01, helps convergence on
    collinear or separable data). Requires lifelines (``pip install 'aucopt[survival]'``).
    """

    def __init__(self, penalizer: float = 0.0, l1_ratio: float = 0.0):
        self.penalizer = penalizer
        self.l1_ratio = l1_ratio

    def fit(self, X, y):
        try:
            import pandas as pd
            from lifelines import CoxPHFitter
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError("CoxPH needs lifelines: pip install 'aucopt[survival]' (or lifelines).") from exc
        for name, value in (("penalizer", self.penalizer), ("l1_ratio", self.l1_ratio)):
            if not isinstance(value, Real) or isinstance(value, bool) or not (0 <= value < np.inf):
                raise ValueError(f"{name} must be a non-negative finite number; got {value!r}.")
        if self.l1_ratio > 1:
            raise ValueError(f"l1_ratio must lie in [0, 1]; got {self.l1_ratio!r}.")
        event, time = survival_arrays(y)
        X = validate_data(self, X, dtype=np.float64, reset=True)
        check_consistent_length(X=X, y=event)
        if not event.any():
            raise ValueError("All samples are censored: the Cox model has no event to fit.")
        # columns constant in this training set (e.g. a rare one-hot level missing from a CV
        # fold) carry no information and make the partial likelihood singular: coefficient 0
        varying = np.ptp(X, axis=0) > 0
        cols = [f"x{c}" for c in np.flatnonzero(varying)]
        df = pd.DataFrame(X[:, varying], columns=cols)
        df["_time"] = time
        df["_event"] = event.astype(int)
        self.fitter_ = CoxPHFitter(penalizer=self.penalizer, l1_ratio=self.l1_ratio)
        try:
            self.fitter_.fit(df, duration_col="_time", event_col="_event")
        except Exception as exc:  # lifelines' ConvergenceError and friends: a clear message
            raise ValueError(
                f"The Cox model did not converge ({type(exc).__name__}); try a penalizer > 0 "
                "(e.g. CoxPH(penalizer=0.01))."
            ) from exc
        self.coef_ = np.zeros(X.shape[1])
        self.coef_[varying] = self.fitter_.params_[cols].to_numpy(dtype=float)
        return self

    def predict(self, X) -> np.ndarray:
        """Risk = linear predictor βᵀx (higher = earlier event)."""
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_

    def score(self, X, y) -> float:
        """Harrell's C of the risk (ties ½)."""
        return harrell_c(y, self.predict(X))
