"""Survival evaluation as in Ataman (2007), seed 003 Ch. V: pooled-percentile C-index, tests, KM.

* :func:`percentile_scores` — test score → percentage of *training* scores strictly below it
  (§3.2 step 2: raw scores of different folds are not comparable; percentiles are).
* :func:`pooled_cindex_cv` — repeated (stratified) k-fold CV; every test fold is converted to
  its training percentiles, the folds of one repetition are pooled into a single ordering of all
  samples, and Harrell's C (tied risks ½) of the pooled ordering is the repetition's score
  (§3.2 steps 1–4). Per-fold ordinary C-indices are reported alongside.
* :func:`compare_methods` — paired t-test over the repetitions (§3.2 step 5, df = R − 1).
* :func:`time_dependent_auc` — cumulative/dynamic AUC via scikit-survival (optional).
* :class:`CoxPH` — sklearn-style wrapper of lifelines' ``CoxPHFitter`` (risk = βᵀx; optional
  extra ``aucopt[survival]``). scikit-survival estimators (e.g. ``FastSurvivalSVM``) can be
  passed to :func:`pooled_cindex_cv` directly.
* :func:`kaplan_meier`, :func:`logrank` (log-rank, Gehan–Breslow–Wilcoxon, Tarone–Ware),
  :func:`risk_groups`, :func:`plot_risk_groups`, :func:`save_figure` — the Kaplan–Meier risk-group
  analysis of §3.2 step 6 (own product-limit and test implementations).

Risk convention everywhere: higher score = higher risk = earlier event (scikit-survival's
``predict``).
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from scipy import stats
from sklearn.base import BaseEstimator, clone
from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold
from sklearn.utils.validation import check_is_fitted, validate_data

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
    """``100 · |{u ∈ train : f_u < f(x)}| / |train|`` for every test score (seed 003 §3.2).

    Strict ``<``: a test score equal to the smallest training score gets 0, one above every
    training score gets 100. O((n_train + n_test) log n_train).
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
    """Result of :func:`pooled_cindex_cv` (R repetitions × k folds, m samples).

    pooled_c : (R,) Harrell's C (ties ½) of each repetition's pooled percentile ordering.
    fold_c : (R, k) ordinary Harrell's C of the raw test-fold risks; NaN for a test fold with no
        comparable pair (e.g. no event in it).
    percentiles : (R, m) pooled test percentiles, indexed like the input samples.
    scores : (R, m) raw test risks (not comparable across folds).
    folds : (R, m) test-fold index of every sample in each repetition.
    """

    pooled_c: np.ndarray
    fold_c: np.ndarray
    percentiles: np.ndarray
    scores: np.ndarray
    folds: np.ndarray

    @property
    def mean(self) -> float:
        return float(np.mean(self.pooled_c))

    @property
    def std(self) -> float:
        """Sample standard deviation (ddof=1) of the per-repetition pooled C; 0 for R = 1."""
        return float(np.std(self.pooled_c, ddof=1)) if len(self.pooled_c) > 1 else 0.0

    @property
    def mean_percentiles(self) -> np.ndarray:
        """Per-sample percentile averaged over the repetitions (one ordering for KM groups)."""
        return self.percentiles.mean(axis=0)


def _take(X, idx):
    return X.iloc[idx] if hasattr(X, "iloc") else X[idx]


def pooled_cindex_cv(estimator, X, y, *, n_splits: int = 10, n_repeats: int = 5, random_state=0,
                     stratify: bool = True, min_events_per_fold: int = 1,
                     progress: bool | None = False) -> PooledCVResult:
    """Pooled-percentile C-index by repeated k-fold CV (seed 003 §3.2; defaults 10 × 5).

    For each repetition r and fold k: ``clone(estimator).fit(X_train, y_train)``, risks
    ``predict`` on the training and test folds, test risks → training percentiles
    (:func:`percentile_scores`). The k test folds cover every sample once; Harrell's C of the
    pooled percentiles against the full target is ``pooled_c[r]``. Folds are stratified on the
    event indicator (``stratify=True``) by ``RepeatedStratifiedKFold(random_state=...)``.

    ``estimator`` is anything sklearn-clonable whose ``fit(X, y)`` takes a structured survival
    target and whose ``predict`` returns a risk (higher = earlier event): aucopt survival
    rankers, :class:`CoxPH`, scikit-survival models.

    Raises ``ValueError`` before any fit when: the target is invalid (negative/NaN times,
    non-boolean events), there are fewer than ``n_splits · min_events_per_fold`` events (a
    stratified test fold could then lack events), or some training fold has no comparable pair.
    A test fold without comparable pairs gets ``fold_c = NaN`` (its samples still enter the
    pooled ordering). ``progress`` shows a tqdm bar over the folds (``None``: on a terminal only).
    """
    event, time = survival_arrays(y)
    for name, value, low in (("n_splits", n_splits, 2), ("n_repeats", n_repeats, 1),
                             ("min_events_per_fold", min_events_per_fold, 0)):
        if not isinstance(value, Integral) or isinstance(value, bool) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}; got {value!r}.")
    if not hasattr(estimator, "fit") or not hasattr(estimator, "predict"):
        raise ValueError(f"estimator must have fit and predict methods; got {type(estimator).__name__}.")
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
    bar = progress_bar(progress, iterable=splits, desc=f"CV {type(estimator).__name__}", unit="fold")
    for s, (train, test) in enumerate(splits if bar is None else bar):
        r, k = divmod(s, n_splits)
        model = clone(estimator).fit(_take(X, train), y_struct[train])
        train_risk = check_finite_1d(model.predict(_take(X, train)), "training risk")
        test_risk = check_finite_1d(model.predict(_take(X, test)), "test risk")
        percentiles[r, test] = percentile_scores(train_risk, test_risk)
        scores[r, test] = test_risk
        folds[r, test] = k
        if concordance_counts((event[test], time[test]), test_risk).comparable > 0:
            fold_c[r, k] = harrell_c((event[test], time[test]), test_risk)
    pooled = np.array([harrell_c((event, time), percentiles[r]) for r in range(n_repeats)])
    return PooledCVResult(pooled_c=pooled, fold_c=fold_c, percentiles=percentiles, scores=scores,
                          folds=folds)


def evaluate_methods(methods: dict, X, y, *, n_splits: int = 10, n_repeats: int = 5, random_state=0,
                     progress: bool | None = None) -> dict:
    """:func:`pooled_cindex_cv` for each named estimator on the same folds; each result also
    records its wall time in ``.seconds``. Returns ``{name: PooledCVResult}``."""
    import time

    results = {}
    for name, estimator in methods.items():
        start = time.perf_counter()
        results[name] = pooled_cindex_cv(estimator, X, y, n_splits=n_splits, n_repeats=n_repeats,
                                         random_state=random_state, progress=progress)
        results[name].seconds = time.perf_counter() - start
    return results


def comparison_table(results: dict, baseline: str | None = None) -> str:
    """The Table 5.2-style summary: pooled C mean ± sd, mean per-fold C, the paired t-test
    p-value against ``baseline`` (NaN with fewer than 2 repetitions) and seconds, one row per method."""
    rows = [f"{'method':14} {'pooled C':>17} {'fold C':>8} {'p vs ' + str(baseline or '-'):>10} {'seconds':>8}"]
    for name, res in results.items():
        paired = baseline in results and name != baseline and len(res.pooled_c) >= 2
        p = compare_methods(res, results[baseline]).pvalue if paired else float("nan")
        rows.append(f"{name:14} {res.mean:8.4f} ± {res.std:6.4f} {np.nanmean(res.fold_c):8.4f} "
                    f"{p:10.4g} {getattr(res, 'seconds', float('nan')):8.1f}")
    return "\n".join(rows)


# ============================================================================ comparison
class ComparisonResult(NamedTuple):
    """Paired t-test of two methods' per-repetition scores (``diff`` = a − b)."""

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
    """Paired two-sided t-test over repetitions, ``scipy.stats.ttest_rel(a, b)`` (seed 003 §3.2.5).

    ``results_*``: :class:`PooledCVResult` (uses ``pooled_c``) or arrays of per-repetition
    scores; the two must come from the same splits (same ``random_state``) to be paired.
    Means and sample standard deviations (ddof = 1) are reported.
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
    """Cumulative/dynamic AUC(t) via ``sksurv.metrics.cumulative_dynamic_auc``.

    Returns ``(auc_at_times, mean_auc)``. ``y_train`` estimates the censoring distribution;
    ``times`` must lie inside the follow-up of ``y_test``. Requires scikit-survival.
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
