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

Risk convention everywhere: higher score = higher risk = earlier event (scikit-survival's
``predict``).
"""

from __future__ import annotations

import time as _time
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from joblib import Parallel, delayed
from scipy import stats
from sklearn.base import clone
from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold
from sklearn.utils._param_validation import HasMethods, Interval, validate_params

from .._progress import progress_bar
from .._validation import Count, check_consistent_length, check_finite_1d, survival_arrays, survival_target
from ..exceptions import NoComparablePairsError, warn
from ..metrics import concordance_counts, cumulative_dynamic_auc, harrell_c, integrated_brier_score, uno_c
from ..pairs import PairSet

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
    fold_metrics : dict of str to ndarray of shape (R, k), default={}
        The metrics of ``scoring`` on every test fold, by name (``"uno"``, ``"auc"``, ``"ibs"``
        or a scorer's name); NaN where a fold has no value (see :func:`pooled_cindex_cv`).
        :meth:`metric` averages them over the folds of each repetition.
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
    fold_metrics: dict = field(default_factory=dict)

    def metric(self, name: str = "harrell") -> np.ndarray:
        """One value per repetition of a metric: the pooled C, or a fold metric averaged over the folds.

        Parameters
        ----------
        name : str, default="harrell"
            ``"harrell"`` for :attr:`pooled_c`, or a key of :attr:`fold_metrics`.

        Returns
        -------
        values : ndarray of shape (R,)
            ``pooled_c`` for ``"harrell"``; otherwise the mean over the folds of each
            repetition that have a value (NaN when none has).

        Raises
        ------
        KeyError
            When the metric was not computed (not in ``scoring``).

        Examples
        --------
        >>> import numpy as np
        >>> from aucopt.survival import PooledCVResult
        >>> result = PooledCVResult(np.array([0.7, 0.8]), np.full((2, 2), 0.75), np.zeros((2, 4)),
        ...                         np.zeros((2, 4)), np.zeros((2, 4), dtype=int),
        ...                         fold_metrics={"uno": np.array([[0.6, 0.7], [0.8, np.nan]])})
        >>> result.metric("uno").round(2).tolist(), result.metric().tolist()
        ([0.65, 0.8], [0.7, 0.8])
        """
        if name == "harrell":
            return np.asarray(self.pooled_c, dtype=float)
        if name not in self.fold_metrics:
            raise KeyError(f"No metric {name!r} in this result: it holds 'harrell'"
                           + "".join(f", {m!r}" for m in self.fold_metrics)
                           + ". Pass scoring=[...] to pooled_cindex_cv to compute more.")
        values = np.asarray(self.fold_metrics[name], dtype=float)
        counts = np.sum(~np.isnan(values), axis=1)
        sums = np.nansum(values, axis=1)
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)

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
        for name in self.fold_metrics:
            per_rep = self.metric(name)
            finite = per_rep[np.isfinite(per_rep)]
            if len(finite) == 0:
                lines.append(f"  {METRIC_LABELS.get(name, name):9} {MISSING}  (no fold has a value)")
                continue
            sd = float(np.std(finite, ddof=1)) if len(finite) > 1 else 0.0
            lines.append(f"  {METRIC_LABELS.get(name, name):9} {np.mean(finite):.4f} ± {sd:.4f}  mean of the "
                         f"folds, over {len(finite)} repetition(s)")
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
            ``fit_time`` (mean seconds per fold fit) and ``seconds`` (wall time); then, for
            every metric ``m`` of this result's ``scoring`` (:attr:`fold_metrics`), ``m`` (the
            mean over the repetitions of :meth:`metric`), ``m_std`` (ddof=1) and ``m_p_value``
            (the same paired t-test on that metric; NaN where a method has no value). The
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
            for metric in self.fold_metrics:
                mean, sd, p_value = _metric_stats(result, rows[baseline], metric, paired=name != baseline)
                records[name].update({metric: mean, f"{metric}_std": sd, f"{metric}_p_value": p_value})
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

        header = ["method", "pooled C", "sd", "fold C", "sd", f"p vs {baseline}"]
        for metric in self.fold_metrics:
            header += [METRIC_LABELS.get(metric, metric), "sd", "p"]
        header += ["fit s/fold", "seconds"]
        body = []
        for name, row in table.iterrows():
            line = [str(name), number(row.pooled_c, f".{decimals}f"), number(row.pooled_c_std, f".{decimals}f"),
                    number(row.fold_c_mean, f".{decimals}f"), number(row.fold_c_std, f".{decimals}f"),
                    number(row.p_value, ".4g")]
            for metric in self.fold_metrics:
                line += [number(row[metric], f".{decimals}f"), number(row[f"{metric}_std"], f".{decimals}f"),
                         number(row[f"{metric}_p_value"], ".4g")]
            body.append([*line, number(row.fit_time, ".3g"), number(row.seconds, ".1f")])
        widths = [max(len(r[c]) for r in [header, *body]) for c in range(len(header))]
        print("<aucopt.survival.PooledCVResult>", file=out)
        print(f"  protocol = pooled-percentile C-index (Ataman 2007), {n_splits} folds x {n_repeats} repetitions, "
              f"{np.shape(self.percentiles)[1]} samples", file=out)
        print(f"  baseline = {baseline} (paired t-test over the repetitions)", file=out)
        if self.fold_metrics:
            print("  metrics  = " + "; ".join(f"{METRIC_LABELS.get(m, m)}: {METRIC_DESCRIPTIONS.get(m, 'a scorer')}"
                                             for m in self.fold_metrics), file=out)
        print("---", file=out)
        for r in [header, *body]:
            print("  ".join(r[0].ljust(widths[0]) if c == 0 else r[c].rjust(widths[c])
                            for c in range(len(r))), file=out)


def _take(X, idx):
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
def pooled_cindex_cv(estimator, X, y, *, n_splits=10, n_repeats=5, random_state=0, stratify=True,
                     min_events_per_fold=1, verbose=0, n_jobs=None, scoring=None, times=None,
                     tau=None) -> PooledCVResult:
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
    if times is not None:
        times = np.atleast_1d(np.asarray(times, dtype=float))
        if times.ndim != 1 or len(times) == 0 or not np.all(np.isfinite(times)):
            raise ValueError(f"times must be a finite time or a non-empty 1-d array of finite times; got {times!r}.")
    if "ibs" in metrics.values() and not _has_curves(estimator):
        model = estimator[-1] if hasattr(estimator, "steps") else estimator
        warn(f"{type(model).__name__} has no predict_survival_function: its integrated Brier score is "
             "NaN (shown as '—').", UserWarning)
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
    y_struct = y if isinstance(y, np.ndarray) and y.dtype.names is not None else survival_target(event, time)
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
    fold_metrics = {name: np.full((n_repeats, n_splits), np.nan) for name in metrics}
    runs = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(_fit_and_score_fold)(clone(estimator), X, y_struct, train, test, metrics=metrics, times=times,
                                     tau=tau, where=(s // n_splits, s % n_splits))
        for s, (train, test) in enumerate(splits))
    bar = progress_bar(bool(verbose), iterable=runs, total=len(splits), desc=f"CV {model_name}", unit="fold")
    for s, ((train, test), (test_percentiles, test_risk, seconds, values)) in enumerate(
            zip(splits, runs if bar is None else bar, strict=False)):
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
                          folds=folds, seconds=_time.perf_counter() - start, fit_seconds=fit_seconds,
                          name=model_name, fold_metrics=fold_metrics)


def _fit_and_score_fold(model, X, y, train, test, *, metrics=None, times=None, tau=None, where=(0, 0)):
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


# ============================================================================ fold metrics
def _check_scoring(scoring) -> dict:
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


def _has_curves(estimator) -> bool:
    """Whether the (unfitted) estimator will have survival curves; a search's inner estimator counts."""
    return hasattr(estimator, "predict_survival_function") or hasattr(
        getattr(estimator, "estimator", None), "predict_survival_function")


def _curve_model(model):
    """The fitted model whose ``predict_survival_function`` to use (a search's best estimator), or None."""
    if hasattr(model, "predict_survival_function"):
        return model
    best = getattr(model, "best_estimator_", None)
    return best if hasattr(best, "predict_survival_function") else None


def evaluation_times(y_train, y_test) -> np.ndarray:
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


def survival_probabilities(model, X, times) -> np.ndarray:
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


def _fold_metric(spec, model, X_test, y_train, y_test, test_risk, times, tau) -> float:
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


def _metric_stats(result, base, metric, *, paired=True):
    """Mean and sd (ddof=1) over the repetitions of ``result.metric(metric)``, and the paired
    t-test p-value against ``base`` (NaN where undefined)."""
    nan = float("nan")
    if metric not in result.fold_metrics:
        return nan, nan, nan
    values = result.metric(metric)
    finite = values[np.isfinite(values)]
    mean = float(finite.mean()) if len(finite) else nan
    sd = float(finite.std(ddof=1)) if len(finite) > 1 else (0.0 if len(finite) == 1 else nan)
    p_value = nan
    if paired and base is not None and base is not result and metric in base.fold_metrics and len(values) >= 2:
        other = base.metric(metric)
        if len(other) == len(values) and np.all(np.isfinite(values)) and np.all(np.isfinite(other)):
            p_value = compare_methods(values, other).pvalue
    return mean, sd, p_value


@validate_params({"methods": [dict], **_CV_CONSTRAINTS, "callback": [callable, None], **_SCORING_CONSTRAINTS},
                 prefer_skip_nested_validation=False)
def evaluate_methods(methods, X, y, *, n_splits=10, n_repeats=5, random_state=0, verbose=0,
                     callback=None, n_jobs=None, scoring=None, times=None, tau=None) -> dict:
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


#: the text of a missing value in :func:`comparison_table` (a p-value without baseline, ...)
MISSING = "—"


def _comparison_record(name, result, base=None, metrics=()) -> dict:
    """One row of :func:`comparison_table` as numbers (None where missing): ``method``,
    ``pooled_c_mean``, ``pooled_c_sd``, ``fold_c``, ``p_value`` (paired t-test against the
    baseline result ``base``; None for the baseline itself, without one, or with < 2
    repetitions) and ``seconds``; for every name m of ``metrics``, ``m_mean``, ``m_sd`` and
    ``m_p_value`` (the same for :meth:`PooledCVResult.metric`)."""
    def number(value):
        value = float(value)
        return value if np.isfinite(value) else None

    paired = base is not None and base is not result and len(result.pooled_c) >= 2
    fold = result.fold_c[np.isfinite(result.fold_c)]
    record = {"method": name, "pooled_c_mean": number(result.mean), "pooled_c_sd": number(result.std),
              "fold_c": number(fold.mean()) if fold.size else None,
              "p_value": number(compare_methods(result, base).pvalue) if paired else None,
              "seconds": number(getattr(result, "seconds", float("nan")))}
    for metric in metrics:
        mean, sd, p_value = _metric_stats(result, base, metric, paired=paired)
        record.update({f"{metric}_mean": number(mean), f"{metric}_sd": number(sd),
                       f"{metric}_p_value": number(p_value)})
    return record


def _comparison_line(record, metrics=()) -> str:
    def cell(value, spec, width):
        return f"{MISSING:>{width}}" if value is None else f"{value:{width}{spec}}"

    def mean_sd(mean, sd):
        if mean is None:
            return f"{MISSING:>17}"
        sd = MISSING if sd is None else f"{sd:6.4f}"
        return f"{mean:8.4f} ± {sd:>6}"

    extra = "".join(f"{mean_sd(record[f'{m}_mean'], record[f'{m}_sd'])} {cell(record[f'{m}_p_value'], '.4g', 10)} "
                    for m in metrics)
    return (f"{record['method']:14} {mean_sd(record['pooled_c_mean'], record['pooled_c_sd'])} "
            f"{cell(record['fold_c'], '.4f', 8)} {cell(record['p_value'], '.4g', 10)} {extra}"
            f"{cell(record['seconds'], '.1f', 8)}")


def _comparison_header(baseline, metrics=()) -> str:
    p_title = f"{'p vs ' + str(baseline or '-'):>10}"
    extra = "".join(f"{METRIC_LABELS.get(m, m):>17} {p_title} " for m in metrics)
    return f"{'method':14} {'pooled C':>17} {'fold C':>8} {p_title} {extra}{'seconds':>8}"


def _comparison_lines(results, baseline, metrics=None):
    pairs = results.items() if isinstance(results, dict) else results
    if metrics is None:  # a dict shows the metrics of its first result; a stream, none unless named
        first = next(iter(results.values()), None) if isinstance(results, dict) else None
        metrics = tuple(first.fold_metrics) if first is not None else ()
    metrics = tuple(metrics)
    yield _comparison_header(baseline, metrics)
    waiting, base = [], None
    for name, result in pairs:
        if name == baseline:
            base = result
        if baseline is not None and base is None:  # its p-value needs the baseline: hold the row
            waiting.append((name, result))
            continue
        for held_name, held in [*waiting, (name, result)]:
            yield _comparison_line(_comparison_record(held_name, held, base, metrics), metrics)
        waiting = []
    for held_name, held in waiting:  # the baseline never came: no p-values
        yield _comparison_line(_comparison_record(held_name, held, metrics=metrics), metrics)


def comparison_table(results, baseline: str | None = None, *, stream: bool = False, metrics=None):
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
    metrics : list of str, default=None
        The ``scoring`` metrics to show after the Harrell columns, each as mean ± sd over the
        repetitions and its p-value against ``baseline``. None: those of the first result
        when ``results`` is a dict, none for an iterable (the header is written before any
        result arrives).

    Returns
    -------
    table : str or generator of str
        Columns: method, pooled C mean ± sd, mean per-fold C, the paired t-test p-value
        against ``baseline``, the ``metrics`` and seconds (the sd is 0 for a single
        repetition, as :attr:`PooledCVResult.std`). A missing value (the baseline's own
        p-value, a p-value with fewer than 2 repetitions, a fold C with no comparable pair in
        any test fold, the IBS of a model without survival curves) is shown as "—".

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
    lines = _comparison_lines(results, baseline, metrics)
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


def _per_repetition(results, name, metric="harrell"):
    values = results.metric(metric) if isinstance(results, PooledCVResult) else results
    return check_finite_1d(values, name)


def compare_methods(results_a, results_b, *, metric="harrell") -> ComparisonResult:
    """Paired two-sided t-test of two methods over the cross-validation repetitions.

    Parameters
    ----------
    results_a : PooledCVResult or array-like of shape (R,)
        Method a's result (its ``pooled_c`` is used) or per-repetition scores.
    results_b : PooledCVResult or array-like of shape (R,)
        Method b's, from the same splits (same ``random_state``), so that the scores pair up.
    metric : str, default="harrell"
        Which score of a :class:`PooledCVResult` to test: ``"harrell"`` (the pooled C) or a
        metric of its ``scoring`` (:meth:`PooledCVResult.metric`, e.g. ``"uno"``, ``"ibs"``);
        ignored for arrays.

    Returns
    -------
    result : ComparisonResult
        Means and sample standard deviations (ddof=1), the mean difference, the t statistic
        and the p-value of ``scipy.stats.ttest_rel(a, b)``.

    Raises
    ------
    ValueError
        When the two hold different numbers of repetitions, or fewer than 2, or a score is
        NaN (a metric without a value in some repetition).

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
    a = _per_repetition(results_a, "results_a", metric)
    b = _per_repetition(results_b, "results_b", metric)
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
