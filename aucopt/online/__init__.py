"""Online and streaming AUC: one-pass AUC (Gao et al. 2013) from class means and covariances.

The class statistics are additive, so they also come from data spread over a cluster
(:mod:`aucopt.distributed`).
"""

from ._onepass import (
    ClassStats,
    OnePassAUC,
    batch_solution,
    batch_solution_from_stats,
    class_statistics,
    iter_svmlight_chunks,
)

__all__ = ["OnePassAUC", "ClassStats", "class_statistics", "batch_solution", "batch_solution_from_stats",
           "iter_svmlight_chunks"]
