"""Survival analysis around the risk rankers: evaluation protocol, Cox baseline, tests and plots.

* the evaluation protocol of Ataman (2007), Sec. 5.3.5: the pooled-percentile cross-validated
  C-index (:func:`pooled_cindex_cv`, :func:`evaluate_methods`, :func:`comparison_table`) and
  paired t-tests over the repetitions (:func:`compare_methods`);
* the Cox proportional hazards baseline (:class:`CoxPH`, fitted by lifelines);
* Kaplan–Meier curves, weighted log-rank tests and risk groups (:func:`kaplan_meier`,
  :func:`logrank`, :func:`risk_groups`) and their figure (:func:`plot_risk_groups`);
* the cumulative/dynamic AUC(t) (:func:`time_dependent_auc`, via scikit-survival).

The survival rankers themselves live with their model families (:mod:`aucopt.lp`,
:mod:`aucopt.svm`). Risk convention everywhere: higher score = higher risk = earlier event.
"""

from .._validation import survival_target
from ._cox import CoxPH
from ._nonparametric import (KaplanMeierCurve, LogRankResult, RiskGroups, kaplan_meier, logrank, number_at_risk,
                             risk_groups)
from ._plot import RiskGroupsDisplay, plot_risk_groups, save_figure
from ._protocol import (
    ComparisonResult,
    PooledCVResult,
    compare_methods,
    comparison_table,
    evaluate_methods,
    percentile_scores,
    pooled_cindex_cv,
    time_dependent_auc,
)

__all__ = ["survival_target", "CoxPH", "pooled_cindex_cv", "PooledCVResult", "evaluate_methods", "comparison_table",
           "compare_methods", "ComparisonResult", "percentile_scores", "time_dependent_auc", "kaplan_meier",
           "KaplanMeierCurve", "number_at_risk", "logrank", "LogRankResult", "risk_groups", "RiskGroups",
           "plot_risk_groups", "RiskGroupsDisplay", "save_figure"]
