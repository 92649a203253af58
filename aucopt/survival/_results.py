"""The results of the survival protocol and the paired t-test over its repetitions.

:class:`PooledCVResult` holds what :func:`~aucopt.survival.pooled_cindex_cv` measured (the pooled
C of every repetition, the per-fold C and the ``scoring`` metrics of every fold) with its short
report (``repr``, :meth:`PooledCVResult.summary`, :meth:`PooledCVResult.print_summary`);
:func:`compare_methods` is the paired t-test of Ataman (2007), Sec. 5.3.5, over the repetitions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from .._validation import check_consistent_length, check_finite_1d
from ._fold_metrics import METRIC_DESCRIPTIONS, METRIC_LABELS

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["MISSING", "ComparisonResult", "PooledCVResult", "compare_methods"]

#: the text of a missing value in :func:`comparison_table` (a p-value without baseline, ...)
MISSING = "—"



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
        shown = (" per repetition [" + " ".join(f"{c:.4f}" for c in self.pooled_c) + "]"
                 if len(self.pooled_c) <= 10 else "")
        lines.append(f"  pooled C  {self.mean:.4f} ± {self.std:.4f} {shown}".rstrip())
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

    def summary(self, others: dict[str, PooledCVResult] | None = None, *,
                baseline: str | None = None) -> pd.DataFrame:
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

    def print_summary(self, others: dict[str, PooledCVResult] | None = None, *, baseline: str | None = None,
                      decimals: int = 4, file: IO[str] | None = None) -> None:
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

        def number(value: float | None, fmt: str) -> str:
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


# ============================================================================ paired t-test
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


def _per_repetition(results: PooledCVResult | ArrayLike, name: str, metric: str = "harrell") -> np.ndarray:
    values = results.metric(metric) if isinstance(results, PooledCVResult) else results
    return check_finite_1d(values, name)


def compare_methods(results_a: PooledCVResult | ArrayLike, results_b: PooledCVResult | ArrayLike, *,
                    metric: str = "harrell") -> ComparisonResult:
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


def _metric_stats(result: PooledCVResult, base: PooledCVResult | None, metric: str, *,
                  paired: bool = True) -> tuple[float, float, float]:
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
