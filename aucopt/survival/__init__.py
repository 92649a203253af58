"""Survival analysis around the risk rankers: evaluation protocol, Cox baseline, tests and plots.

* the evaluation protocol of Ataman (2007), Sec. 5.3.5: the pooled-percentile cross-validated
  C-index (:func:`pooled_cindex_cv`, :func:`evaluate_methods`, :func:`comparison_table`) and
  paired t-tests over the repetitions (:func:`compare_methods`);
* the Cox proportional hazards baseline (:class:`CoxPH`, fitted by lifelines);
* Kaplan–Meier curves, weighted log-rank tests and risk groups (:func:`kaplan_meier`,
  :func:`logrank`, :func:`risk_groups`) and their figure (:func:`plot_risk_groups`);
* censoring-aware metrics in the protocol (``scoring=["uno", "auc", "ibs"]``, with
  :func:`evaluation_times` and :func:`survival_probabilities`) and the cumulative/dynamic AUC(t)
  (:func:`time_dependent_auc`);
* survival curves from any risk score (:class:`StepFunction`, :class:`BreslowCalibration`: the
  ``predict_survival_function`` of every survival estimator).

The survival rankers themselves live with their model families (:mod:`aucopt.lp`,
:mod:`aucopt.svm`). Risk convention everywhere: higher score = higher risk = earlier event.
"""

from .._breslow import BreslowCalibration, StepFunction
from .._validation import survival_target
from ._cox import CoxPH
from ._fold_metrics import METRIC_DESCRIPTIONS as METRIC_DESCRIPTIONS
from ._fold_metrics import METRIC_LABELS as METRIC_LABELS
from ._fold_metrics import evaluation_times, survival_probabilities, time_dependent_auc
from ._nonparametric import (
                             KaplanMeierCurve,
                             LogRankResult,
                             RiskGroups,
                             kaplan_meier,
                             logrank,
                             number_at_risk,
                             risk_groups,
)
from ._plot import RiskGroupsDisplay, plot_risk_groups, save_figure
from ._protocol import evaluate_methods, percentile_scores, pooled_cindex_cv
from ._results import ComparisonResult, PooledCVResult, compare_methods
from ._tables import comparison_line as comparison_line
from ._tables import comparison_record as comparison_record
from ._tables import comparison_table

__all__ = [
                             "BreslowCalibration",
                             "ComparisonResult",
                             "CoxPH",
                             "KaplanMeierCurve",
                             "LogRankResult",
                             "PooledCVResult",
                             "RiskGroups",
                             "RiskGroupsDisplay",
                             "StepFunction",
                             "compare_methods",
                             "comparison_table",
                             "evaluate_methods",
                             "evaluation_times",
                             "kaplan_meier",
                             "logrank",
                             "number_at_risk",
                             "percentile_scores",
                             "plot_risk_groups",
                             "pooled_cindex_cv",
                             "risk_groups",
                             "save_figure",
                             "survival_probabilities",
                             "survival_target",
                             "time_dependent_auc",
]
