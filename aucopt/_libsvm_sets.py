"""The LIBSVM data sets the data folder holds, by name (no numpy: the command line's help reads them).

Re-exported by :mod:`aucopt.datasets`, whose loaders read the files.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["LIBSVM_SETS", "LibsvmSet"]


class LibsvmSet(NamedTuple):
    """A LIBSVM data set of the data folder (:data:`LIBSVM_SETS`).

    Attributes
    ----------
    n_features : int
        The number of features d (the width of the training and the test file alike).
    zero_based : bool
        Whether the files number the features from 0 (``0:v`` is the first feature) rather than
        from 1, the LIBSVM convention.

    Examples
    --------
    >>> from aucopt.datasets import LIBSVM_SETS
    >>> LIBSVM_SETS["adult"]
    LibsvmSet(n_features=123, zero_based=True)
    """

    n_features: int
    zero_based: bool


#: the LIBSVM sets of the data folder by name: ``libsvm/<name>_<name>.trn.bz2`` (training) and
#: ``libsvm/<name>_<name>.tst.bz2`` (test), the copies of tick-datasets. Its adult (a9a, the
#: LASVM copy) numbers the features 0–122; ijcnn1 (1–22) and reuters (1–8,315) from 1.
LIBSVM_SETS = {"adult": LibsvmSet(123, zero_based=True),
               "ijcnn1": LibsvmSet(22, zero_based=False),
               "reuters": LibsvmSet(8315, zero_based=False)}
