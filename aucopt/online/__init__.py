"""Online and streaming AUC optimization from class statistics.

:class:`OnePassAUC` trains a linear ranker in one pass over a stream (Gao et al. 2013), keeping
only the count, mean and covariance (or a low-rank sketch of it) of each class. The same
statistics give the batch minimizer in closed form (:func:`batch_solution`), are additive over
partitions of a data set (:class:`ClassStats`, and :mod:`aucopt.distributed` for dask
collections), and can be read from LIBSVM files in chunks (:func:`iter_svmlight_chunks`).
"""

from ._onepass import OnePassAUC
from ._stats import ClassStats, batch_solution, batch_solution_from_stats, class_statistics
from ._svmlight import iter_svmlight_chunks

__all__ = [
    "ClassStats",
    "OnePassAUC",
    "batch_solution",
    "batch_solution_from_stats",
    "class_statistics",
    "iter_svmlight_chunks",
]
