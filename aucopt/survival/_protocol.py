"""The survival evaluation protocol of Ataman (2007), Sec. 5.3.5, and a time-dependent AUC.

Raw risk scores of models trained on different cross-validation folds are not comparable, so
every test score is converted to the percentage of its fold's training scores it exceeds; the
test folds of one repetition are pooled into one ordering of all samples, whose Harrell's C is
the repetition's score (:func:`percentile_scores`, :func:`pooled_cindex_cv`). Methods are
compared by a paired t-test over the repetitions (:func:`compare_methods`). ``scoring`` adds the
censoring-aware metrics of :mod:`aucopt.metrics` (Uno's C, the time-dependent AUC, the integrated
Brier score) on every test fold, with the censoring distribution estimated from the training
fold. The Kaplan–Meier
risk-group analysis of the same section lives in :mod:`aucopt.survival` (``kaplan_meier``,
``logrank``, ``risk_groups``, ``plot_risk_groups``).

This module runs the cross-validation (:func:`pooled_cindex_cv`, :func:`evaluate_methods`); the
fold metrics are in ``_fold_metrics``, the results and the t-test in ``_results`` and the text
tables in ``_tables``.

Risk convention everywhere: higher score = higher risk = earlier event (scikit-survival's
``predict``).
"""

from __future__ import annotations

import time as _time
from collections.abc import Callable, Iterable
from numbers import Integral, Real
from typing import Any

import numpy as np
from joblib import Parallel, delayed
from numpy.typing import ArrayLike
from sklearn.base import clone
from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold
from sklearn.utils._param_validation import HasMethods, Interval, validate_params

from .._progress import progress_bar
from .._validation import Count, check_finite_1d, survival_arrays, survival_target
from ..exceptions import warn
from ..metrics import concordance_counts, harrell_c
from ..pairs import PairSet
from ._fold_metrics import METRIC_DESCRIPTIONS as METRIC_DESCRIPTIONS
from ._fold_metrics import METRIC_LABELS as METRIC_LABELS
from ._fold_metrics import Scoring, _check_scoring, _fold_metric, _has_curves, evaluation_times, survival_probabilities
from ._fold_metrics import time_dependent_auc as time_dependent_auc
from ._results import ComparisonResult as ComparisonResult
from ._results import PooledCVResult, compare_methods
from ._tables import comparison_line as comparison_line
from ._tables import comparison_record as comparison_record
from ._tables import comparison_table as comparison_table

# pooled_cindex_cv runs here; the fold metrics are in _fold_metrics, the results and the paired
# t-test in _results, the text tables in _tables. Their public names stay importable from this
# module (a PooledCVResult pickled before the split names it).
__all__ = [
    "ComparisonResult",
    "PooledCVResult",
    "compare_methods",
    "comparison_table",
    "evaluate_methods",
    "evaluation_times",
    "percentile_scores",
    "pooled_cindex_cv",
    "survival_probabilities",
    "time_dependent_auc",
]


#: a seed, a generator, a legacy RandomState or None (scikit-learn's ``random_state``)
RandomStateLike = int | np.random.RandomState | np.random.Generator | None


# ============================================================================ percentiles
def percentile_scores(train_scores: ArrayLike, test_scores: ArrayLike) -> np.ndarray:
    """The percentage of training scores strictly below each test score.

    Parameters
    ----------
    train_scores : array-like of shape (n_train,)
        Risk scores of the training samples (at least one).
    test_scores : array-like of shape (n_test,)
        Risk scores of the test samples.

    Returns
    -------
    percentiles : ndarray of shape (n_test,)
        ``100 · |{u ∈ train : f_u < f(x)}| / n_train`` for every test score f(x): 0 for a score
        at or below the smallest training score, 100 above the largest.

    See Also
    --------
    pooled_cindex_cv : Pools these percentiles over the test folds.

    Notes
    -----
    "Each point is then assigned a score from 0 to 100 based on the percentage of training
    points that it ranks above" (Ataman 2007, Sec. 5.3.5); the comparison is strict. The cost is
    O((n_train + n_test) log n_train).

    References
    ----------
    .. [1] Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming
       for problems with binary output*. PhD thesis, University of Iowa.

    Examples
    --------
    >>> from aucopt.survival import percentile_scores
    >>> percentile_scores([1.0, 2.0, 3.0, 4.0], [0.5, 2.0, 2.5, 9.0]).tolist()
    [0.0, 25.0, 50.0, 100.0]
    """
    train = check_finite_1d(train_scores, "train_scores")
    test = check_finite_1d(test_scores, "test_scores")
    if len(train) == 0:
        raise ValueError("train_scores is empty; percentiles need at least one training score.")
    below = np.searchsorted(np.sort(train), test, side="left")
    return 100.0 * below / len(train)


# ============================================================================ pooled CV
def _take(X: Any, idx: np.ndarray) -> Any:
    return X.iloc[idx] if hasattr(X, "iloc") else X[idx]


_CV_CONSTRAINTS = {
    "X": ["array-like", "sparse matrix"],
    "y": "no_validation",
    "n_splits": [Count(Integral, 2, None, closed="left")],
    "n_repeats": [Count(Integral, 1, None, closed="left")],
    "random_state": ["random_state"],
    "verbose": ["verbose"],
}

_SCORING_CONSTRAINTS = {
    "scoring": [str, list, tuple, dict, callable, None],
    "times": ["array-like", Real, None],
    "tau": [Interval(Real, 0, None, closed="neither"), None],
}


@validate_params(
    {
        "estimator": [HasMethods(["fit", "predict"])],
        **_CV_CONSTRAINTS,
        "stratify": ["boolean"],
        "min_events_per_fold": [Count(Integral, 0, None, closed="left")],
        "n_jobs": [Count(Integral, None, None, closed="neither"), None],
        **_SCORING_CONSTRAINTS,
    },
    prefer_skip_nested_validation=False,
)
def pooled_cindex_cv(estimator: Any, X: ArrayLike, y: ArrayLike, *, n_splits: int = 10, n_repeats: int = 5,
                     random_state: RandomStateLike = 0, stratify: bool = True, min_events_per_fold: int = 1,
                     verbose: int = 0, n_jobs: int | None = None, scoring: Scoring = None,
                     times: ArrayLike | float | None = None, tau: float | None = None) -> PooledCVResult:
    """Pooled-percentile C-index by repeated k-fold cross-validation (Ataman 2007, Sec. 5.3.5).

    Parameters
    ----------
    estimator : estimator object
        Anything clonable whose ``fit(X, y)`` takes a structured survival target and whose
        ``predict`` returns a risk (higher = earlier event): aucopt survival rankers,
        :class:`CoxPH`, scikit-survival models, pipelines of these.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Covariates (a DataFrame is split with ``iloc``).
    y : structured array of shape (n_samples,) or tuple (event, time)
        The survival target (see :func:`aucopt.survival_target`).
    n_splits : int, default=10
        Number of folds k (at least 2).
    n_repeats : int, default=5
        Number of repetitions R of the k-fold split.
    random_state : int, RandomState instance or None, default=0
        Seeds the splits; equal seeds give equal splits, which :func:`compare_methods` needs.
    stratify : bool, default=True
        Stratify the folds on the event indicator (``RepeatedStratifiedKFold``); otherwise
        ``RepeatedKFold``.
    min_events_per_fold : int, default=1
        Refuse data with fewer than ``n_splits * min_events_per_fold`` events.
    verbose : int, default=0
        0 silent; ≥ 1 shows a progress bar over the folds.
    n_jobs : int, default=None
        Number of folds fitted in parallel by joblib: None means 1 (unless in a
        ``joblib.parallel_config`` context), -1 all processors, as in scikit-learn. The
        results do not depend on it.
    scoring : str, callable, list of str or dict of str to callable, default=None
        Metrics computed on every test fold besides the pooled Harrell's C (which is always
        computed; ``"harrell"`` names it and adds nothing). Built in, each with the censoring
        distribution Ĝ estimated from the fold's *training* target:

        * ``"uno"``: Uno's C (:func:`aucopt.metrics.uno_c`) of the test risks, truncated at
          ``tau`` or, when ``tau`` is None or later, at the training fold's largest time
          (beyond it Ĝ is not estimable);
        * ``"auc"``: the mean cumulative/dynamic AUC(t) over ``times``
          (:func:`aucopt.metrics.cumulative_dynamic_auc`);
        * ``"ibs"``: the integrated Brier score over ``times``
          (:func:`aucopt.metrics.integrated_brier_score`) of the survival curves of the
          fold's model (``predict_survival_function``; lower is better). NaN, with a
          warning, for an estimator without survival curves.

        A dict maps names to scikit-learn scorers ``scorer(estimator, X_test, y_test)`` (e.g.
        :func:`aucopt.metrics.uno_c_scorer`), which see the test fold only; its values may
        also be the built-in names above. A single scorer is named ``"score"``. The values are
        in ``result.fold_metrics`` and ``result.metric(name)``.
    times : float or array-like, default=None
        Time points of ``"auc"`` and ``"ibs"``, the same for every fold: they must lie within
        every test fold's follow-up and below every training fold's largest time. None (the
        default) takes, in each fold, the 10th, 12.5th, ..., 90th percentiles of the test
        fold's event times earlier than both its largest time and the training fold's.
    tau : float, default=None
        Truncation time of ``"uno"`` (see ``scoring``); None: each training fold's largest
        time.

    Returns
    -------
    result : PooledCVResult
        Pooled C per repetition (``pooled_c``, with ``mean`` and ``std``), per-fold C, the
        pooled percentiles, raw test risks and fold indices, the wall time and every fold's
        fit time, and the ``scoring`` metrics of every fold (``fold_metrics``);
        ``print(result)`` or ``result.summary()`` for a short report.

    Raises
    ------
    ValueError
        Before any fit, when the target is invalid (negative or NaN times, non-boolean
        events), there are fewer than ``n_splits * min_events_per_fold`` events, ``n_splits``
        exceeds the number of samples, a training fold has no comparable pair, or
        ``scoring`` names an unknown metric; during the cross-validation, when given
        ``times`` do not fit a fold (the message names the fold).

    See Also
    --------
    compare_methods : Paired t-test of two results over the repetitions.
    evaluate_methods : This function for several estimators on the same folds.
    percentile_scores : The conversion of test risks to training percentiles.

    Notes
    -----
    For each repetition r and fold k, ``clone(estimator)`` is fitted on the training folds and
    the test risks are converted to training percentiles (:func:`percentile_scores`). The k
    test folds cover every sample once, so they pool into one ordering of all m samples;
    ``pooled_c[r]`` is Harrell's C of that ordering against the full target (tied
    percentiles count ½). This "ratio of correct pairs to all possible pairs" is the metric of
    Ataman (2007), Sec. 5.3.5 and Table 5.2, there with n_splits=10 and n_repeats=5. A test
    fold without comparable pairs gets ``fold_c = NaN``; its samples still enter the pooled
    ordering.

    The ``scoring`` metrics are computed per test fold from the raw test risks (Uno's C,
    AUC) or the fold model's survival curves (IBS), and :meth:`PooledCVResult.metric`
    averages each over the folds of a repetition, so that :func:`compare_methods` pairs them
    by repetition like the pooled C. The censoring distribution Ĝ of their inverse
    probability weights is the Kaplan–Meier estimate of the *training* fold, which the
    protocol knows: this is the setting of Uno et al. (2011) and Graf et al. (1999) (a model
    fitted on one sample, evaluated on another), where a scikit-learn scorer sees the test
    fold only. Ĝ is not estimable after the training fold's largest time, hence the
    truncation of Uno's C there and the default times below it. A fold value is NaN when it
    is undefined: no comparable pair before the truncation (Uno's C), no event in the test
    fold before the largest time, or fewer than two distinct times for the IBS.

    References
    ----------
    .. [1] Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming
       for problems with binary output*. PhD thesis, University of Iowa.
    .. [2] Harrell, F. E., Califf, R. M., Pryor, D. B., Lee, K. L., & Rosati, R. A. (1982).
       Evaluating the yield of medical tests. *JAMA*, 247(18), 2543–2546.
    .. [3] Uno, H., Cai, T., Pencina, M. J., D'Agostino, R. B., & Wei, L. J. (2011). On the
       C-statistics for evaluating overall adequacy of risk prediction procedures with censored
       survival data. *Statistics in Medicine*, 30(10), 1105–1117.
    .. [4] Graf, E., Schmoor, C., Sauerbrei, W., & Schumacher, M. (1999). Assessment and
       comparison of prognostic classification schemes for survival data. *Statistics in
       Medicine*, 18(17–18), 2529–2545.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import CoxPH, survival_target
    >>> from aucopt.survival import pooled_cindex_cv
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3))
    >>> y = survival_target(rng.random(60) < 0.7, rng.exponential(np.exp(-X[:, 0])))
    >>> result = pooled_cindex_cv(CoxPH(alpha=0.01), X, y, n_splits=3, n_repeats=2)
    >>> result.pooled_c.shape, result.fold_c.shape, round(result.mean, 2)
    ((2,), (2, 3), 0.76)

    Uno's C and the integrated Brier score of every test fold, Ĝ from its training fold:

    >>> result = pooled_cindex_cv(CoxPH(alpha=0.01), X, y, n_splits=3, n_repeats=2, scoring=["uno", "ibs"])
    >>> sorted(result.fold_metrics), result.fold_metrics["ibs"].shape, result.metric("uno").shape
    (['ibs', 'uno'], (2, 3), (2,))
    """
    metrics = _check_scoring(scoring)
    times = _check_times(times)
    model_name = type(estimator[-1] if hasattr(estimator, "steps") else estimator).__name__  # a Pipeline's model
    if "ibs" in metrics.values() and not _has_curves(estimator):
        warn(f"{model_name} has no predict_survival_function: its integrated Brier score is "
             "NaN (shown as '—').", UserWarning)
    event, time = survival_arrays(y)
    if not hasattr(X, "shape"):
        X = np.asarray(X)
    _check_cv_data(X, event, n_splits, min_events_per_fold)
    y_struct = y if isinstance(y, np.ndarray) and y.dtype.names is not None else survival_target(event, time)
    splits = _cv_splits(event, time, n_splits, n_repeats, random_state, stratify)
    start = _time.perf_counter()
    # each fold's model is a clone fitted on its own: the same numbers in any order, on any worker
    runs = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(_fit_and_score_fold)(clone(estimator), X, y_struct, train, test, metrics=metrics, times=times,
                                     tau=tau, where=(s // n_splits, s % n_splits))
        for s, (train, test) in enumerate(splits))
    bar = progress_bar(bool(verbose), iterable=runs, total=len(splits), desc=f"CV {model_name}", unit="fold")
    result = _pool_folds(event, time, splits, runs if bar is None else bar, n_repeats, n_splits, metrics)
    result.seconds, result.name = _time.perf_counter() - start, model_name
    return result


def _check_times(times: ArrayLike | float | None) -> np.ndarray | None:
    """``times`` as a non-empty 1-d array of finite times, or None."""
    if times is None:
        return None
    checked = np.atleast_1d(np.asarray(times, dtype=float))
    if checked.ndim != 1 or len(checked) == 0 or not np.all(np.isfinite(checked)):
        raise ValueError(f"times must be a finite time or a non-empty 1-d array of finite times; got {checked!r}.")
    return checked


def _check_cv_data(X: Any, event: np.ndarray, n_splits: int, min_events_per_fold: int) -> None:
    """Refuse, before any fit, data that cannot fill ``n_splits`` folds with events."""
    m = len(event)
    if X.shape[0] != m:
        raise ValueError(f"X has {X.shape[0]} samples but the survival target has {m}.")
    n_events = int(event.sum())
    if n_events == 0:
        raise ValueError("All samples are censored: there is no event to rank against.")
    if n_splits > m:
        raise ValueError(f"n_splits={n_splits} exceeds the number of samples ({m}).")
    if n_events < n_splits * min_events_per_fold:
        raise ValueError(
            f"Too few events per fold: {n_events} events for n_splits={n_splits} folds "
            f"(min_events_per_fold={min_events_per_fold}). Use fewer folds or more data."
        )


def _cv_splits(event: np.ndarray, time: np.ndarray, n_splits: int, n_repeats: int, random_state: Any,
               stratify: bool) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (train, test) index pairs of every repetition, each training fold checked for comparable pairs."""
    m = len(event)
    if stratify:
        cv = RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=n_repeats, random_state=random_state)
        splits = list(cv.split(np.zeros(m), event.astype(int)))
    else:
        splits = list(RepeatedKFold(n_splits=n_splits, n_repeats=n_repeats, random_state=random_state)
                      .split(np.zeros(m)))
    for s, (train, _) in enumerate(splits):  # validate every split before the first fit
        if PairSet.survival(event[train], time[train]).n_pairs == 0:
            raise ValueError(
                f"Training fold {s % n_splits} of repetition {s // n_splits} has no comparable pairs "
                f"({int(event[train].sum())} events); use fewer folds or more data."
            )
    return splits


def _pool_folds(event: np.ndarray, time: np.ndarray, splits: list[tuple[np.ndarray, np.ndarray]],
                runs: Iterable[tuple], n_repeats: int, n_splits: int, metrics: dict) -> PooledCVResult:
    """Gather the fold runs (in split order) into the pooled percentiles of every repetition and
    their Harrell's C, the per-fold C and the fold metrics."""
    m = len(event)
    fold_c = np.full((n_repeats, n_splits), np.nan)
    percentiles = np.full((n_repeats, m), np.nan)
    scores = np.full((n_repeats, m), np.nan)
    folds = np.full((n_repeats, m), -1, dtype=np.int64)
    fit_seconds = np.full((n_repeats, n_splits), np.nan)
    fold_metrics = {name: np.full((n_repeats, n_splits), np.nan) for name in metrics}
    for s, ((_train, test), (test_percentiles, test_risk, seconds, values)) in enumerate(
            zip(splits, runs, strict=False)):
        r, k = divmod(s, n_splits)
        for name, value in values.items():
            fold_metrics[name][r, k] = value
        percentiles[r, test] = test_percentiles
        scores[r, test] = test_risk
        folds[r, test] = k
        fit_seconds[r, k] = seconds
        if concordance_counts((event[test], time[test]), test_risk).comparable > 0:
            fold_c[r, k] = harrell_c((event[test], time[test]), test_risk)
    pooled = np.array([harrell_c((event, time), percentiles[r]) for r in range(n_repeats)])
    return PooledCVResult(pooled_c=pooled, fold_c=fold_c, percentiles=percentiles, scores=scores,
                          folds=folds, fit_seconds=fit_seconds, fold_metrics=fold_metrics)


def _fit_and_score_fold(model: Any, X: Any, y: np.ndarray, train: np.ndarray, test: np.ndarray, *,
                        metrics: dict | None = None, times: np.ndarray | None = None, tau: float | None = None,
                        where: tuple[int, int] = (0, 0)) -> tuple[np.ndarray, np.ndarray, float, dict]:
    """Fit ``model`` on the rows ``train``; the test risks as training percentiles, the raw test risks,
    the seconds the fit took and the ``metrics`` of the test fold (a dict)."""
    start = _time.perf_counter()
    model.fit(_take(X, train), y[train])
    seconds = _time.perf_counter() - start
    train_risk = check_finite_1d(model.predict(_take(X, train)), "training risk")
    test_risk = check_finite_1d(model.predict(_take(X, test)), "test risk")
    values = {}
    for name, spec in (metrics or {}).items():
        try:
            values[name] = _fold_metric(spec, model, _take(X, test), y[train], y[test], test_risk, times, tau)
        except ValueError as exc:
            raise ValueError(f"{name} in fold {where[1]} of repetition {where[0]}: {exc}") from exc
    return percentile_scores(train_risk, test_risk), test_risk, seconds, values


@validate_params({"methods": [dict], **_CV_CONSTRAINTS, "callback": [callable, None], **_SCORING_CONSTRAINTS},
                 prefer_skip_nested_validation=False)
def evaluate_methods(methods: dict[str, Any], X: ArrayLike, y: ArrayLike, *, n_splits: int = 10,
                     n_repeats: int = 5, random_state: RandomStateLike = 0, verbose: int = 0,
                     callback: Callable[[str, PooledCVResult], Any] | None = None, n_jobs: int | None = None,
                     scoring: Scoring = None, times: ArrayLike | float | None = None,
                     tau: float | None = None) -> dict[str, PooledCVResult]:
    """:func:`pooled_cindex_cv` for several estimators on the same folds, timed.

    Parameters
    ----------
    methods : dict of str to estimator
        The estimators, by name, evaluated in this order.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Covariates.
    y : structured array of shape (n_samples,) or tuple (event, time)
        The survival target.
    n_splits : int, default=10
        Number of folds.
    n_repeats : int, default=5
        Number of repetitions.
    random_state : int, RandomState instance or None, default=0
        Seeds the splits (the same for every method, so the results are paired).
    verbose : int, default=0
        0 silent; ≥ 1 shows a progress bar over the folds of each method.
    callback : callable, default=None
        Called as ``callback(name, result)`` as soon as each method's cross-validation ends
        (``result.seconds`` set), before the next method starts: to report results while the
        others run (see :func:`comparison_table` with ``stream=True``).
    n_jobs : int, default=None
        Folds fitted in parallel within each method (see :func:`pooled_cindex_cv`); None
        means 1, -1 all cores. The results do not depend on it.
    scoring : str, callable, list of str or dict of str to callable, default=None
        Metrics of every test fold besides the pooled Harrell's C: ``"uno"``, ``"auc"``,
        ``"ibs"`` or scorers, with the censoring distribution from the training fold (see
        :func:`pooled_cindex_cv`).
    times : float or array-like, default=None
        Time points of ``"auc"`` and ``"ibs"``; None: percentiles of each test fold's event
        times (see :func:`pooled_cindex_cv`).
    tau : float, default=None
        Truncation time of ``"uno"``; None: each training fold's largest time.

    Returns
    -------
    results : dict of str to PooledCVResult
        One result per method, in the order of ``methods``, each with its wall time in
        ``seconds``.

    See Also
    --------
    comparison_table : A text table of these results.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import CoxPH, survival_target
    >>> from aucopt.survival import evaluate_methods
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3))
    >>> y = survival_target(rng.random(60) < 0.7, rng.exponential(np.exp(-X[:, 0])))
    >>> methods = {"ridge": CoxPH(alpha=0.01), "strong": CoxPH(alpha=1.0)}
    >>> results = evaluate_methods(methods, X, y, n_splits=2, n_repeats=2,
    ...                            callback=lambda name, result: print(name, "done"))
    ridge done
    strong done
    >>> sorted(results), results["ridge"].pooled_c.shape
    (['ridge', 'strong'], (2,))
    """
    results = {}
    for name, estimator in methods.items():
        start = _time.perf_counter()
        results[name] = pooled_cindex_cv(estimator, X, y, n_splits=n_splits, n_repeats=n_repeats,
                                         random_state=random_state, verbose=verbose, n_jobs=n_jobs,
                                         scoring=scoring, times=times, tau=tau)
        results[name].name = name
        results[name].seconds = _time.perf_counter() - start
        if callback is not None:
            callback(name, results[name])
    return results
