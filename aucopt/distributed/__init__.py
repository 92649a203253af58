"""aucopt on a cluster: dask collections in, the same models and metrics out.

Every path here runs on an existing engine, dask.distributed (the optional extra
``pip install 'aucopt[dask]'``): the blocks of X stay on the workers where they live, and only
vectors of length n (scores, per-row coefficients) or d (weights, gradients) travel.

* One-pass AUC statistics (:func:`dask_class_statistics`, :func:`dask_fit`): the class counts,
  means and scatter matrices are additive over partitions, merged exactly in a tree, and give the
  batch square-loss AUC solution of Gao et al. (2013).
"""

from ._onepass import DistributedAUCResult, dask_class_statistics, dask_fit

__all__ = ["DistributedAUCResult", "dask_class_statistics", "dask_fit"]
