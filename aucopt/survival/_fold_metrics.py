"""The censoring-aware metrics of the survival protocol on one test fold (``scoring=``).

Each metric of ``scoring`` in :func:`~aucopt.survival.pooled_cindex_cv` is computed on every
test fold, with the censoring distribution Ĝ estimated from the fold's *training* target:
Uno's C, the mean cumulative/dynamic AUC(t) and the integrated Brier score of the fold model's
survival curves (:func:`evaluation_times`, :func:`survival_probabilities`); and the short form
:func:`time_dependent_auc` of :func:`aucopt.metrics.cumulative_dynamic_auc`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validation import check_finite_1d, survival_arrays
from ..exceptions import NoComparablePairsError
from ..metrics import cumulative_dynamic_auc, integrated_brier_score, uno_c

__all__ = ["EVALUATION_PERCENTILES", "METRIC_DESCRIPTIONS", "METRIC_LABELS", "evaluation_times",
           "survival_probabilities", "time_dependent_auc"]


#: what ``scoring`` takes: a metric name or scorer, a list of names, a dict of name to either, or None
Scoring = str | Callable[..., Any] | list[str] | tuple[str, ...] | dict[str, str | Callable[..., Any]] | None

#: the metrics ``scoring`` names, with their labels in printed tables
METRIC_LABELS = {"harrell": "pooled C", "uno": "Uno C", "auc": "mean AUC", "ibs": "IBS"}

#: what each metric of ``scoring`` is, for printed reports
METRIC_DESCRIPTIONS = {
    "uno": "Uno's IPCW C-index per test fold, Ĝ from the training fold, truncated at the training fold's "
           "largest time (or tau)",
    "auc": "mean cumulative/dynamic AUC(t) per test fold, Ĝ from the training fold",
    "ibs": "integrated Brier score of the survival curves per test fold (lower is better), Ĝ from the training fold",
}

#: the percentiles of a test fold's event times at which AUC(t) and the Brier score are evaluated
#: when ``times`` is None: the 10th, 12.5th, ..., 90th
EVALUATION_PERCENTILES = np.linspace(10.0, 90.0, 33)


def _check_scoring(scoring: Scoring) -> dict[str, str | Callable[..., Any]]:
    """``scoring`` as an ordered dict name -> built-in metric name or scorer; "harrell" (always
    computed, as the pooled C) is left out."""
    if scoring is None:
        return {}
    if callable(scoring):  # one scorer, named as in scikit-learn's cross_validate
        return {"score": scoring}
    if isinstance(scoring, str):
        scoring = [scoring]
    items = list(scoring.items()) if isinstance(scoring, dict) else [(name, name) for name in scoring]
    metrics = {}
    for name, spec in items:
        if not isinstance(name, str):
            raise ValueError(f"scoring names must be strings; got {name!r}.")
        if isinstance(spec, str):
            if spec not in METRIC_LABELS:
                raise ValueError(f"Unknown metric {spec!r} in scoring: use {', '.join(map(repr, METRIC_LABELS))} "
                                 "or a dict of name to scorer(estimator, X, y).")
            if spec == "harrell":
                continue
        elif not callable(spec):
            raise ValueError(f"scoring[{name!r}] is a {type(spec).__name__}: give a metric name or a "
                             "scorer(estimator, X, y).")
        if name == "harrell" or name in metrics:
            raise ValueError(f"scoring names the metric {name!r} twice (or names a scorer 'harrell', the pooled C).")
        metrics[name] = spec
    return metrics


def _has_curves(estimator: Any) -> bool:
    """Whether the (unfitted) estimator will have survival curves; a search's inner estimator counts."""
    return hasattr(estimator, "predict_survival_function") or hasattr(
        getattr(estimator, "estimator", None), "predict_survival_function")


def _curve_model(model: Any) -> Any:
    """The fitted model whose ``predict_survival_function`` to use (a search's best estimator), or None."""
    if hasattr(model, "predict_survival_function"):
        return model
    best = getattr(model, "best_estimator_", None)
    return best if hasattr(best, "predict_survival_function") else None


def evaluation_times(y_train: ArrayLike, y_test: ArrayLike) -> np.ndarray:
    """The 10th, 12.5th, ..., 90th percentiles of the test events inside both follow-ups.

    The evaluation times of ``"auc"`` and ``"ibs"`` in :func:`pooled_cindex_cv` when ``times``
    is None: percentiles of the event times of ``y_test`` that are earlier than the largest time
    of ``y_test`` (where AUC(t) has no control left) and of ``y_train`` (after which the
    censoring distribution Ĝ is not estimable).

    Parameters
    ----------
    y_train : structured array or tuple (event, time)
        The training target (Ĝ's sample).
    y_test : structured array or tuple (event, time)
        The test target.

    Returns
    -------
    times : ndarray of shape (n_times,)
        Distinct increasing times (at most 33); empty when the test data hold no such event.

    Examples
    --------
    >>> from aucopt.survival import evaluation_times
    >>> y = ([True, True, False, True, True, False], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    >>> evaluation_times(y, y)[[0, -1]].tolist()
    [1.3, 4.7]
    """
    _, train_time = survival_arrays(y_train)
    event, time = survival_arrays(y_test)
    if len(train_time) == 0 or len(time) == 0:
        return np.zeros(0)
    upper = min(float(time.max()), float(train_time.max()))
    events = time[event & (time < upper)]
    if len(events) == 0:
        return np.zeros(0)
    return np.unique(np.percentile(events, EVALUATION_PERCENTILES))


def survival_probabilities(model: Any, X: ArrayLike, times: ArrayLike) -> np.ndarray:
    """Predicted survival probabilities of a fitted model at given times, one row per sample.

    Parameters
    ----------
    model : estimator
        A fitted model with ``predict_survival_function(X)`` returning callable step functions
        (aucopt's survival estimators, scikit-survival's, pipelines of these), or a fitted
        search (``GridSearchCV``) whose best estimator has it.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Covariates.
    times : array-like of shape (n_times,)
        Time points.

    Returns
    -------
    survival : ndarray of shape (n_samples, n_times)
        Ŝ(t | x) in [0, 1], the input of :func:`aucopt.metrics.brier_score`. A step function
        that stops at its last jump (scikit-survival refuses later times) is read at that jump
        for later times: its value does not change there.

    Raises
    ------
    TypeError
        When the model has no survival curves.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import SurvivalRankSVM, survival_target
    >>> from aucopt.survival import survival_probabilities
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 2))
    >>> y = survival_target(rng.random(50) < 0.7, rng.exponential(np.exp(-X[:, 0])))
    >>> survival_probabilities(SurvivalRankSVM().fit(X, y), X[:3], [0.5, 1.0]).shape
    (3, 2)
    """
    fitted = _curve_model(model)
    if fitted is None:
        raise TypeError(f"{type(model).__name__} has no predict_survival_function.")
    times = np.atleast_1d(np.asarray(times, dtype=float))
    functions = fitted.predict_survival_function(X)
    out = np.empty((len(functions), len(times)))
    for i, function in enumerate(functions):
        jumps = getattr(function, "x", None)
        at = np.minimum(times, jumps[-1]) if jumps is not None and len(jumps) else times
        out[i] = np.asarray(function(at), dtype=float).reshape(-1)
    return np.clip(out, 0.0, 1.0)


def _fold_metric(spec: str | Callable[..., Any], model: Any, X_test: Any, y_train: np.ndarray, y_test: np.ndarray,
                 test_risk: np.ndarray, times: np.ndarray | None, tau: float | None) -> float:
    """One ``scoring`` metric of one test fold (NaN where it is undefined for the fold)."""
    if callable(spec):
        return float(spec(model, X_test, y_test))
    train_end = float(survival_arrays(y_train)[1].max())
    if spec == "uno":
        try:
            return uno_c(y_train, y_test, test_risk, tau=train_end if tau is None else min(float(tau), train_end))
        except NoComparablePairsError:
            return float("nan")
    fold_times = evaluation_times(y_train, y_test) if times is None else times
    if spec == "auc":
        return float(cumulative_dynamic_auc(y_train, y_test, test_risk, fold_times)[1]) if len(fold_times) else np.nan
    if _curve_model(model) is None or len(np.unique(fold_times)) < 2:  # "ibs"
        return float("nan")
    probabilities = survival_probabilities(model, X_test, fold_times)
    return float(integrated_brier_score(y_train, y_test, probabilities, fold_times))


def time_dependent_auc(y_train: ArrayLike, y_test: ArrayLike, risk: ArrayLike,
                       times: ArrayLike | float) -> tuple[np.ndarray, float]:
    """Cumulative/dynamic AUC(t) of risk scores, and its mean over the times.

    Parameters
    ----------
    y_train : structured array of shape (n_train,) or tuple (event, time)
        Training target, used to estimate the censoring distribution.
    y_test : structured array of shape (n_test,) or tuple (event, time)
        Test target.
    risk : array-like of shape (n_test,)
        Risk scores of the test samples (higher = earlier event).
    times : float or array-like of shape (n_times,)
        Time points, inside the follow-up of ``y_test``.

    Returns
    -------
    auc : ndarray of shape (n_times,)
        AUC(t) at each time point.
    mean_auc : float
        Its average weighted by the survival function.

    Raises
    ------
    ValueError
        As :func:`aucopt.metrics.cumulative_dynamic_auc`: times outside the test follow-up or
        before the first test event, or beyond the training follow-up.

    See Also
    --------
    aucopt.metrics.cumulative_dynamic_auc : The implementation (with a tie tolerance and
        time-dependent risks); this function is its short form.
    pooled_cindex_cv : ``scoring="auc"`` computes it on every test fold.

    Notes
    -----
    :func:`aucopt.metrics.cumulative_dynamic_auc` with its default tie tolerance: the
    estimator of Uno, Cai, Tian & Wei (2007) with the censoring distribution estimated from
    ``y_train``, equal to scikit-survival's ``cumulative_dynamic_auc`` (which it no longer
    needs).

    References
    ----------
    .. [1] Uno, H., Cai, T., Tian, L., & Wei, L. J. (2007). Evaluating prediction rules for
       t-year survivors with censored regression models. *Journal of the American Statistical
       Association*, 102(478), 527–537.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import survival_target
    >>> from aucopt.survival import time_dependent_auc
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=80)
    >>> y = survival_target(rng.random(80) < 0.7, rng.exponential(np.exp(-x)))
    >>> auc, mean_auc = time_dependent_auc(y, y, x, [0.3, 0.6])
    >>> auc.shape, bool(mean_auc > 0.5)
    ((2,), True)
    """
    risk = check_finite_1d(risk, "risk")
    return cumulative_dynamic_auc(y_train, y_test, risk, times)
