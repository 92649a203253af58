"""aucopt on a cluster: dask collections in, the same models and metrics out.

Every path here runs on an existing engine, dask.distributed (the optional extra
``pip install 'aucopt[dask]'``): the blocks of X stay on the workers where they live, and only
vectors of length n (scores, per-row coefficients) or d (weights, gradients) travel.

* One-pass AUC statistics (:func:`dask_class_statistics`, :func:`dask_fit`): the class counts,
  means and scatter matrices are additive over partitions, merged exactly in a tree, and give the
  batch square-loss AUC solution of Gao et al. (2013).
* Metrics and model selection (:func:`gather_vectors`): :func:`aucopt.metrics.roc_auc`,
  :func:`~aucopt.metrics.harrell_c` and :func:`~aucopt.metrics.concordance_counts` take dask
  arrays, Series and survival DataFrames, gather those n-vectors to the driver and equal the
  in-memory values exactly; ``GridSearchCV`` and :func:`aucopt.pooled_cindex_cv` run their fits
  on the workers under ``joblib.parallel_backend("dask")`` with the results of ``n_jobs=1``.
* Linear rankers on a cluster (:class:`DaskRowOperator`): :class:`~aucopt.RankSVM` and
  :class:`~aucopt.SurvivalRankSVM` fitted on a dask Array or DataFrame run truncated Newton with
  Xw and Xᵀc computed where the blocks of X live and the sorted-pair core on the driver's n-vector
  of scores: the in-memory objective, iterations and solution, X never on the driver.

The core never imports this subpackage: it is the ``"dask"`` array backend of
:mod:`aucopt._dispatch`. Importing it registers the dask routes below; the core's first dask input
imports it by name, so ``harrell_c(dask_y, dask_risk)`` or ``RankSVM().fit(dask_X, y)`` work
without an ``import aucopt.distributed``.
"""

from .._dispatch import register
from ._metrics import gather_vectors
from ._newton import DaskRowOperator, dask_labels, dask_linear_scores, fit_dask_linear_ranker
from ._onepass import DistributedAUCResult, dask_class_statistics, dask_fit

register("dask", "gather_vectors")(gather_vectors)  # metrics and score(): n-vectors to the driver
register("dask", "fit_linear_ranker")(fit_dask_linear_ranker)  # RankSVM / SurvivalRankSVM.fit
register("dask", "linear_scores")(dask_linear_scores)  # their decision_function / predict
register("dask", "labels")(dask_labels)  # RankSVM.predict

__all__ = ["DaskRowOperator", "DistributedAUCResult", "dask_class_statistics", "dask_fit", "gather_vectors"]
