"""The survival evaluation protocol of Ataman (2007), Sec. 5.3.5, and a time-dependent AUC.

Raw risk scores of models trained on different cross-validation folds are not comparable, so
every test score is converted to the percentage of its fold's training scores it exceeds; the
test folds of one repetition are pooled into one ordering of all samples, whose Harrell's C is
the repetition's score (:func:`percentile_scores`, :func:`pooled_cindex_cv`). Methods are
compared by a paired t-test over the repetitions (:func:`compare_methods`). The Kaplan–Meier
risk-group analysis of the same section lives in :mod:`aucopt.survival` (``kaplan_meier``,
``logrank``, ``risk_groups``, ``plot_risk_groups``).

Risk convention everywhere: higher score = higher risk = earlier event (scikit-survival's
``predict``).
"""

from __future__ import annotations

import time as _time
from dataclasses import dataclass
from numbers import Integral
from typing import NamedTuple

import numpy as np
from scipy import stats
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold
from sklearn.utils._param_validation import HasMethods, Interval, validate_params

from .._progress import progress_bar
from .._validation import check_consistent_length, check_finite_1d, survival_arrays, survival_target
from ..metrics import concordance_counts, harrell_c
from ..pairs import PairSet

__all__ = [
    "percentile_scores", "pooled_cindex_cv", "PooledCVResult", "evaluate_methods", "comparison_table",
    "compare_methods", "ComparisonResult", "time_dependent_auc",
]


# ============================================================================ percentiles
def percentile_scores(train_scores, test_scores) -> np.ndarray:
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
@dataclass
class PooledCVResult:
    """The result of :func:`pooled_cindex_cv` (R repetitions of k folds over m samples).

    Attributes
    ----------
    pooled_c : ndarray of shape (R,)
        Harrell's C (tied risks ½) of each repetition's pooled percentile ordering.
    fold_c : ndarray of shape (R, k)
        Ordinary Harrell's C of the raw risks of each test fold; NaN for a test fold with no
        comparable pair (e.g. no event in it).
    percentiles : ndarray of shape (R, m)
        The pooled test percentiles, indexed like the input samples.
    scores : ndarray of shape (R, m)
        The raw test risks (not comparable across folds).
    folds : ndarray of shape (R, m)
        The test fold of every sample in each repetition.
    seconds : float, default=nan
        Wall time of the cross-validation, in seconds.
    fit_seconds : ndarray of shape (R, k) or None, default=None
        Seconds spent fitting the model of each fold.
    name : str or None, default=None
        The method's name in reports: :func:`pooled_cindex_cv` names it after the estimator
        (a pipeline's last step).
    mean : float
        Mean of ``pooled_c``.
    std : float
        Sample standard deviation (ddof=1) of ``pooled_c``; 0 for one repetition.
    mean_percentiles : ndarray of shape (m,)
        Each sample's percentile averaged over the repetitions.

    See Also
    --------
    pooled_cindex_cv : Produces this result.
    compare_methods : Paired t-test of two results over the repetitions.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.survival import PooledCVResult
    >>> result = PooledCVResult(pooled_c=np.array([0.7, 0.8]), fold_c=np.full((2, 3), 0.75),
    ...                         percentiles=np.zeros((2, 6)), scores=np.zeros((2, 6)),
    ...                         folds=np.zeros((2, 6), dtype=int), name="LPR")
    >>> round(result.mean, 2), round(result.std, 4)
    (0.75, 0.0707)
    >>> result
    PooledCVResult(LPR: 3 folds x 2 repetitions, 6 samples)
      pooled C  0.7500 ± 0.0707  per repetition [0.7000 0.8000]
      fold C    0.7500 ± 0.0000  over 6 folds
    """

    pooled_c: np.ndarray
    fold_c: np.ndarray
    percentiles: np.ndarray
    scores: np.ndarray
    folds: np.ndarray
    seconds: float = float("nan")
    fit_seconds: np.ndarray | None = None
    name: str | None = None

    @property
    def mean(self) -> float:
        """Mean of the per-repetition pooled C."""
        return float(np.mean(self.pooled_c))

    @property
    def std(self) -> float:
        """Sample standard deviation (ddof=1) of the per-repetition pooled C; 0 for R = 1."""
        return float(np.std(self.pooled_c, ddof=1)) if len(self.pooled_c) > 1 else 0.0

    @property
    def mean_percentiles(self) -> np.ndarray:
        """Per-sample percentile averaged over the repetitions (one ordering for KM groups)."""
        return self.percentiles.mean(axis=0)

    @property
    def fit_time(self) -> float:
        """Mean seconds to fit one fold's model (NaN when not recorded)."""
        return float(np.mean(self.fit_seconds)) if self.fit_seconds is not None else float("nan")

    def __repr__(self) -> str:
        n_repeats, n_splits = np.shape(self.fold_c)
        fold_c = np.asarray(self.fold_c, dtype=float)
        valid = fold_c[~np.isnan(fold_c)]
        lines = [f"PooledCVResult({self.name or 'model'}: {n_splits} folds x {n_repeats} repetitions, "
                 f"{np.shape(self.percentiles)[1]} samples)"]
        per_rep = (" per repetition [" + " ".join(f"{c:.4f}" for c in self.pooled_c) + "]"
                   if len(self.pooled_c) <= 10 else "")
        lines.append(f"  pooled C  {self.mean:.4f} ± {self.std:.4f} {per_rep}".rstrip())
        fold_std = float(np.std(valid, ddof=1)) if len(valid) > 1 else 0.0
        missing = fold_c.size - len(valid)
        lines.append(f"  fold C    {np.mean(valid) if len(valid) else float('nan'):.4f} ± {fold_std:.4f}  over "
                     f"{len(valid)} folds" + (f" ({missing} without comparable pairs)" if missing else ""))
        if self.fit_seconds is not None or not np.isnan(self.seconds):
            lines.append(f"  time      {self.fit_time:.3g} s per fold fit, {self.seconds:.3g} s in all")
        return "\n".join(lines)

    def summary(self, others=None, *, baseline=None):
        """A table of this result (and others on the same splits): one row per method.

        Parameters
        ----------
        others : dict of str to PooledCVResult, default=None
            More methods' results from the same splits (same ``n_splits``, ``n_repeats`` and
            ``random_state``), e.g. the dict of :func:`evaluate_methods`; this result is not
            repeated when it is among them.
        baseline : str, default=None
            The row every other method is tested against by :func:`compare_methods`; None
            takes this result.

        Returns
        -------
        table : pandas.DataFrame
            Indexed by method (this result first, under its ``name``, unless it is among
            ``others``), with the columns ``pooled_c`` (mean over the repetitions),
            ``pooled_c_std`` (ddof=1), ``fold_c_mean`` and ``fold_c_std`` (over the folds with
            comparable pairs, ddof=1), ``p_value`` (paired t-test over the repetitions against
            ``baseline``: NaN for the baseline itself and with fewer than 2 repetitions),
            ``fit_time`` (mean seconds per fold fit) and ``seconds`` (wall time). The
            baseline's name is in ``table.attrs["baseline"]``.

        Raises
        ------
        ValueError
            When ``baseline`` names no row, or a result's shape differs from this one's.

        See Also
        --------
        print_summary : The same table, printed.
        compare_methods : The paired t-test.

        Examples
        --------
        >>> import numpy as np
        >>> from aucopt import CoxPH, SurvivalRankSVM, survival_target
        >>> from aucopt.survival import pooled_cindex_cv
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(80, 3))
        >>> y = survival_target(rng.random(80) < 0.7, rng.exponential(np.exp(-X[:, 0])))
        >>> cox = pooled_cindex_cv(CoxPH(alpha=0.01), X, y, n_splits=3, n_repeats=3)
        >>> ranker = pooled_cindex_cv(SurvivalRankSVM(alpha=0.1), X, y, n_splits=3, n_repeats=3)
        >>> table = cox.summary({"RankSVM": ranker})
        >>> table.index.tolist(), table.attrs["baseline"]
        (['CoxPH', 'RankSVM'], 'CoxPH')
        >>> bool(table.loc["RankSVM", "pooled_c"] == ranker.mean), bool(np.isnan(table.loc["CoxPH", "p_value"]))
        (True, True)
        """
        import pandas as pd

        rows = {}
        if others is None or not any(result is self for result in others.values()):
            rows[self.name or "model"] = self
        for name, result in (others or {}).items():
            if not isinstance(result, PooledCVResult):
                raise TypeError(f"others[{name!r}] is a {type(result).__name__}, not a PooledCVResult.")
            if np.shape(result.fold_c) != np.shape(self.fold_c):
                raise ValueError(f"others[{name!r}] has {np.shape(result.fold_c)} (repetitions, folds), this "
                                 f"result {np.shape(self.fold_c)}: compare results of the same splits.")
            rows[name] = result
        if baseline is None:
            baseline = next(name for name, result in rows.items() if result is self)
        if baseline not in rows:
            raise ValueError(f"baseline={baseline!r} is none of the methods {list(rows)}.")
        records = {}
        for name, result in rows.items():
            folds = np.asarray(result.fold_c, dtype=float)
            folds = folds[~np.isnan(folds)]
            paired = name != baseline and len(result.pooled_c) >= 2
            records[name] = {
                "pooled_c": result.mean,
                "pooled_c_std": result.std,
                "fold_c_mean": float(np.mean(folds)) if len(folds) else float("nan"),
                "fold_c_std": float(np.std(folds, ddof=1)) if len(folds) > 1 else float("nan"),
                "p_value": compare_methods(result, rows[baseline]).pvalue if paired else float("nan"),
                "fit_time": result.fit_time,
                "seconds": float(result.seconds),
            }
        table = pd.DataFrame.from_dict(records, orient="index")
        table.index.name = "method"
        table.attrs["baseline"] = baseline
        return table

    def print_summary(self, others=None, *, baseline=None, decimals=4, file=None):
        """Print the protocol and :meth:`summary` as a text table.

        Parameters
        ----------
        others : dict of str to PooledCVResult, default=None
            More methods' results from the same splits (see :meth:`summary`).
        baseline : str, default=None
            The method the p-values refer to; None takes this result.
        decimals : int, default=4
            Decimals of the C-indices.
        file : file-like, default=None
            Where to print; None prints to ``sys.stdout``.

        See Also
        --------
        summary : The table as a DataFrame.

        References
        ----------
        .. [1] Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming
           for problems with binary output*. PhD thesis, University of Iowa.

        Examples
        --------
        >>> import numpy as np
        >>> from aucopt.survival import PooledCVResult
        >>> def result(c, name):
        ...     return PooledCVResult(np.array(c), np.array([c, c]).T, np.zeros((3, 8)), np.zeros((3, 8)),
        ...                           np.zeros((3, 8), dtype=int), seconds=2.0, name=name)
        >>> cox = result([0.65, 0.66, 0.68], "Cox")
        >>> cox.print_summary({"LPR": result([0.70, 0.72, 0.71], "LPR")})
        <aucopt.survival.PooledCVResult>
          protocol = pooled-percentile C-index (Ataman 2007), 2 folds x 3 repetitions, 8 samples
          baseline = Cox (paired t-test over the repetitions)
        ---
        method  pooled C      sd  fold C      sd  p vs Cox  fit s/fold  seconds
        Cox       0.6633  0.0153  0.6633  0.0137         —           —      2.0
        LPR       0.7100  0.0100  0.7100  0.0089   0.03391           —      2.0
        """
        import sys

        table = self.summary(others, baseline=baseline)
        baseline = table.attrs["baseline"]
        n_repeats, n_splits = np.shape(self.fold_c)
        out = file if file is not None else sys.stdout

        def number(value, fmt):
            return "—" if value is None or np.isnan(value) else format(value, fmt)

        header = ["method", "pooled C", "sd", "fold C", "sd", f"p vs {baseline}", "fit s/fold", "seconds"]
        body = [[str(name), number(row.pooled_c, f".{decimals}f"), number(row.pooled_c_std, f".{decimals}f"),
                 number(row.fold_c_mean, f".{decimals}f"), number(row.fold_c_std, f".{decimals}f"),
                 number(row.p_value, ".4g"), number(row.fit_time, ".3g"), number(row.seconds, ".1f")]
                for name, row in table.iterrows()]
        widths = [max(len(r[c]) for r in [header, *body]) for c in range(len(header))]
        print("<aucopt.survival.PooledCVResult>", file=out)
        print(f"  protocol = pooled-percentile C-index (Ataman 2007), {n_splits} folds x {n_repeats} repetitions, "
              f"{np.shape(self.percentiles)[1]} samples", file=out)
        print(f"  baseline = {baseline} (paired t-test over the repetitions)", file=out)
        print("---", file=out)
        for r in [header, *body]:
            print("  ".join(r[0].ljust(widths[0]) if c == 0 else r[c].rjust(widths[c])
                            for c in range(len(r))), file=out)


def _take(X, idx):
    return X.iloc[idx] if hasattr(X, "iloc") else X[idx]


_CV_CONSTRAINTS = {
    "X": ["array-like", "sparse matrix"],
    "y": "no_validation",
    "n_splits": [Interval(Integral, 2, None, closed="left")],
    "n_repeats": [Interval(Integral, 1, None, closed="left")],
    "random_state": ["random_state"],
    "verbose": ["verbose"],
}


@validate_params(
    {
        "estimator": [HasMethods(["fit", "predict"])],
        **_CV_CONSTRAINTS,
        "stratify": ["boolean"],
        "min_events_per_fold": [Interval(Integral, 0, None, closed="left")],
        "n_jobs": [Integral, None],
    },
    prefer_skip_nested_validation=False,
)
def pooled_cindex_cv(estimator, X, y, *, n_splits=10, n_repeats=5, random_state=0, stratify=True,
                     min_events_per_fold=1, verbose=0, n_jobs=None) -> PooledCVResult:
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

    Returns
    -------
    result : PooledCVResult
        Pooled C per repetition (``pooled_c``, with ``mean`` and ``std``), per-fold C, the
        pooled percentiles, raw test risks and fold indices, the wall time and every fold's
        fit time; ``print(result)`` or ``result.summary()`` for a short report.

    Raises
    ------
    ValueError
        Before any fit, when the target is invalid (negative or NaN times, non-boolean
        events), there are fewer than ``n_splits * min_events_per_fold`` events, ``n_splits``
        exceeds the number of samples, or a training fold has no comparable pair.

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

    References
    ----------
    .. [1] Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming
       for problems with binary output*. PhD thesis, University of Iowa.
    .. [2] Harrell, F. E., Califf, R. M., Pryor, D. B., Lee, K. L., & Rosati, R. A. (1982).
       Evaluating the yield of medical tests. *JAMA*, 247(18), 2543–2546.

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
    """
    event, time = survival_arrays(y)
    m = len(event)
    if not hasattr(X, "shape"):
        X = np.asarray(X)
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
    if isinstance(y, np.ndarray) and y.dtype.names is not None:
        y_struct = y
    else:
        y_struct = survival_target(event, time)
    if stratify:
        cv = RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=n_repeats, random_state=random_state)
        splits = list(cv.split(np.zeros(m), event.astype(int)))
    else:
        cv = RepeatedKFold(n_splits=n_splits, n_repeats=n_repeats, random_state=random_state)
        splits = list(cv.split(np.zeros(m)))
    for s, (train, _) in enumerate(splits):  # validate every split before the first fit
        if PairSet.survival(event[train], time[train]).n_pairs == 0:
            raise ValueError(
                f"Training fold {s % n_splits} of repetition {s // n_splits} has no comparable pairs "
                f"({int(event[train].sum())} events); use fewer folds or more data."
            )
    fold_c = np.full((n_repeats, n_splits), np.nan)
    percentiles = np.full((n_repeats, m), np.nan)
    scores = np.full((n_repeats, m), np.nan)
    folds = np.full((n_repeats, m), -1, dtype=np.int64)
    fit_seconds = np.full((n_repeats, n_splits), np.nan)
    model_name = type(estimator[-1] if hasattr(estimator, "steps") else estimator).__name__  # a Pipeline's model
    start = _time.perf_counter()
    # each fold's model is a clone fitted on its own: the same numbers in any order, on any worker
    runs = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(_fit_and_score_fold)(clone(estimator), X, y_struct, train, test) for train, test in splits)
    bar = progress_bar(bool(verbose), iterable=runs, total=len(splits), desc=f"CV {model_name}", unit="fold")
    for s, ((train, test), (test_percentiles, test_risk, seconds)) in enumerate(zip(splits, runs if bar is None
                                                                                     else bar)):
        r, k = divmod(s, n_splits)
        percentiles[r, test] = test_percentiles
        scores[r, test] = test_risk
        folds[r, test] = k
        fit_seconds[r, k] = seconds
        if concordance_counts((event[test], time[test]), test_risk).comparable > 0:
            fold_c[r, k] = harrell_c((event[test], time[test]), test_risk)
    pooled = np.array([harrell_c((event, time), percentiles[r]) for r in range(n_repeats)])
    return PooledCVResult(pooled_c=pooled, fold_c=fold_c, percentiles=percentiles, scores=scores,
                          folds=folds, seconds=_time.perf_counter() - start, fit_seconds=fit_seconds,
                          name=model_name)


def _fit_and_score_fold(model, X, y, train, test):
    """Fit ``model`` on the rows ``train``; the test risks as training percentiles, the raw test risks
    and the seconds the fit took."""
    start = _time.perf_counter()
    model.fit(_take(X, train), y[train])
    seconds = _time.perf_counter() - start
    train_risk = check_finite_1d(model.predict(_take(X, train)), "training risk")
    test_risk = check_finite_1d(model.predict(_take(X, test)), "test risk")
    return percentile_scores(train_risk, test_risk), test_risk, seconds


@validate_params({"methods": [dict], **_CV_CONSTRAINTS, "callback": [callable, None]},
                 prefer_skip_nested_validation=False)
def evaluate_methods(methods, X, y, *, n_splits=10, n_repeats=5, random_state=0, verbose=0,
                     callback=None, n_jobs=None) -> dict:
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
                                         random_state=random_state, verbose=verbose, n_jobs=n_jobs)
        results[name].name = name
        results[name].seconds = _time.perf_counter() - start
        if callback is not None:
            callback(name, results[name])
    return results


#: the text of a missing value in :func:`comparison_table` (a p-value without baseline, ...)
MISSING = "—"


def _comparison_record(name, result, base=None) -> dict:
    """One row of :func:`comparison_table` as numbers (None where missing): ``method``,
    ``pooled_c_mean``, ``pooled_c_sd``, ``fold_c``, ``p_value`` (paired t-test against the
    baseline result ``base``; None for the baseline itself, without one, or with < 2
    repetitions) and ``seconds``."""
    def number(value):
        value = float(value)
        return value if np.isfinite(value) else None

    paired = base is not None and base is not result and len(result.pooled_c) >= 2
    fold = result.fold_c[np.isfinite(result.fold_c)]
    return {"method": name, "pooled_c_mean": number(result.mean), "pooled_c_sd": number(result.std),
            "fold_c": number(fold.mean()) if fold.size else None,
            "p_value": number(compare_methods(result, base).pvalue) if paired else None,
            "seconds": number(getattr(result, "seconds", float("nan")))}


def _comparison_line(record) -> str:
    def cell(value, spec, width):
        return f"{MISSING:>{width}}" if value is None else f"{value:{width}{spec}}"

    sd = MISSING if record["pooled_c_sd"] is None else f"{record['pooled_c_sd']:6.4f}"
    return (f"{record['method']:14} {cell(record['pooled_c_mean'], '.4f', 8)} ± {sd:>6} "
            f"{cell(record['fold_c'], '.4f', 8)} {cell(record['p_value'], '.4g', 10)} "
            f"{cell(record['seconds'], '.1f', 8)}")


def _comparison_lines(results, baseline):
    pairs = results.items() if isinstance(results, dict) else results
    yield f"{'method':14} {'pooled C':>17} {'fold C':>8} {'p vs ' + str(baseline or '-'):>10} {'seconds':>8}"
    waiting, base = [], None
    for name, result in pairs:
        if name == baseline:
            base = result
        if baseline is not None and base is None:  # its p-value needs the baseline: hold the row
            waiting.append((name, result))
            continue
        for held_name, held in waiting + [(name, result)]:
            yield _comparison_line(_comparison_record(held_name, held, base))
        waiting = []
    for held_name, held in waiting:  # the baseline never came: no p-values
        yield _comparison_line(_comparison_record(held_name, held))


def comparison_table(results, baseline: str | None = None, *, stream: bool = False):
    """A text table of cross-validation results, one row per method (as Ataman 2007, Table 5.2).

    Parameters
    ----------
    results : dict of str to PooledCVResult, or iterable of (str, PooledCVResult)
        As returned by :func:`evaluate_methods`, or (name, result) pairs in the order the
        methods finish.
    baseline : str, default=None
        The method every other method is tested against; None leaves the p-value column
        empty.
    stream : bool, default=False
        False returns the table as one string. True returns a generator of its lines: the
        header at once, then each method's row as soon as ``results`` yields it (a row that
        comes before the baseline's is held until the baseline's arrives, since its p-value
        needs it; put the baseline first to stream every row).

    Returns
    -------
    table : str or generator of str
        Columns: method, pooled C mean ± sd, mean per-fold C, the paired t-test p-value
        against ``baseline`` and seconds (the sd is 0 for a single repetition, as
        :attr:`PooledCVResult.std`). A missing value (the baseline's own p-value, a p-value
        with fewer than 2 repetitions, a fold C with no comparable pair in any test fold) is
        shown as "—".

    See Also
    --------
    evaluate_methods : Produces the results; its ``callback`` reports each as it ends.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.survival import PooledCVResult, comparison_table
    >>> def result(c):
    ...     return PooledCVResult(np.array(c), np.array([c]), np.zeros((3, 4)), np.zeros((3, 4)),
    ...                           np.zeros((3, 4), dtype=int), seconds=1.0)
    >>> print(comparison_table({"A": result([0.70, 0.72, 0.71]), "B": result([0.65, 0.66, 0.68])},
    ...                        baseline="B"))
    method                  pooled C   fold C     p vs B  seconds
    A                0.7100 ± 0.0100   0.7100    0.03391      1.0
    B                0.6633 ± 0.0153   0.6633          —      1.0

    Streaming, with the baseline first so that every row is printed as soon as it is known:

    >>> lines = comparison_table(iter([("B", result([0.65, 0.66, 0.68])), ("A", result([0.70, 0.72, 0.71]))]),
    ...                          baseline="B", stream=True)
    >>> next(lines).split()
    ['method', 'pooled', 'C', 'fold', 'C', 'p', 'vs', 'B', 'seconds']
    >>> next(lines).split()[-2]
    '—'
    """
    lines = _comparison_lines(results, baseline)
    return lines if stream else "\n".join(lines)


# ============================================================================ comparison
class ComparisonResult(NamedTuple):
    """A paired t-test of two methods' per-repetition scores, returned by :func:`compare_methods`.

    Attributes
    ----------
    mean_a, sd_a : float
        Mean and sample standard deviation (ddof=1) of method a's scores.
    mean_b, sd_b : float
        The same for method b.
    mean_diff : float
        Mean of the differences a − b.
    statistic : float
        The t statistic (positive when a scores higher).
    pvalue : float
        Two-sided p-value with n − 1 degrees of freedom.
    n : int
        Number of repetitions.

    Examples
    --------
    >>> from aucopt.survival import compare_methods
    >>> print(compare_methods([0.71, 0.69, 0.72], [0.68, 0.69, 0.70]))
    0.7067 ± 0.0153 vs 0.6900 ± 0.0100 (diff +0.0167, t = 1.890, p = 0.1994, n = 3)
    """

    mean_a: float
    sd_a: float
    mean_b: float
    sd_b: float
    mean_diff: float
    statistic: float
    pvalue: float
    n: int

    def __str__(self) -> str:
        return (f"{self.mean_a:.4f} ± {self.sd_a:.4f} vs {self.mean_b:.4f} ± {self.sd_b:.4f} "
                f"(diff {self.mean_diff:+.4f}, t = {self.statistic:.3f}, p = {self.pvalue:.4g}, n = {self.n})")


def _per_repetition(results, name):
    values = results.pooled_c if isinstance(results, PooledCVResult) else results
    return check_finite_1d(values, name)


def compare_methods(results_a, results_b) -> ComparisonResult:
    """Paired two-sided t-test of two methods over the cross-validation repetitions.

    Parameters
    ----------
    results_a : PooledCVResult or array-like of shape (R,)
        Method a's result (its ``pooled_c`` is used) or per-repetition scores.
    results_b : PooledCVResult or array-like of shape (R,)
        Method b's, from the same splits (same ``random_state``), so that the scores pair up.

    Returns
    -------
    result : ComparisonResult
        Means and sample standard deviations (ddof=1), the mean difference, the t statistic
        and the p-value of ``scipy.stats.ttest_rel(a, b)``.

    Raises
    ------
    ValueError
        When the two hold different numbers of repetitions, or fewer than 2.

    See Also
    --------
    pooled_cindex_cv : Produces the per-repetition scores.

    Notes
    -----
    Ataman (2007), Sec. 5.3.5, compares the ratios of five repetitions of 10-fold
    cross-validation "for statistical significance using a paired t-test at the 0.05 level";
    the pairs are the repetitions (R − 1 degrees of freedom).

    References
    ----------
    .. [1] Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming
       for problems with binary output*. PhD thesis, University of Iowa.

    Examples
    --------
    >>> from aucopt.survival import compare_methods
    >>> result = compare_methods([0.71, 0.69, 0.72, 0.70, 0.73], [0.68, 0.69, 0.70, 0.66, 0.71])
    >>> round(result.mean_diff, 3), round(result.pvalue, 4)
    (0.022, 0.0295)
    """
    a = _per_repetition(results_a, "results_a")
    b = _per_repetition(results_b, "results_b")
    check_consistent_length(results_a=a, results_b=b)
    if len(a) < 2:
        raise ValueError(f"A paired t-test needs at least 2 repetitions; got {len(a)}.")
    test = stats.ttest_rel(a, b)
    return ComparisonResult(
        mean_a=float(a.mean()), sd_a=float(a.std(ddof=1)), mean_b=float(b.mean()),
        sd_b=float(b.std(ddof=1)), mean_diff=float((a - b).mean()), statistic=float(test.statistic),
        pvalue=float(test.pvalue), n=len(a),
    )


# ============================================================================ time-dependent AUC
def time_dependent_auc(y_train, y_test, risk, times):
    """Cumulative/dynamic AUC(t) of risk scores, via scikit-survival.

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

    See Also
    --------
    sksurv.metrics.cumulative_dynamic_auc : The implementation (scikit-survival needed).

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
    try:
        from sksurv.metrics import cumulative_dynamic_auc
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "time_dependent_auc needs scikit-survival: pip install scikit-survival."
        ) from exc
    e_tr, t_tr = survival_arrays(y_train)
    e_te, t_te = survival_arrays(y_test)
    risk = check_finite_1d(risk, "risk")
    check_consistent_length(y_test=e_te, risk=risk)
    return cumulative_dynamic_auc(survival_target(e_tr, t_tr), survival_target(e_te, t_te), risk,
                                  np.atleast_1d(np.asarray(times, dtype=float)))
