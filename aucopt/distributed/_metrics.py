"""Ranking metrics of dask collections: the n-vectors gathered to the driver, counted exactly there.

:func:`aucopt.metrics.roc_auc`, :func:`~aucopt.metrics.harrell_c`,
:func:`~aucopt.metrics.concordance_counts`, :func:`~aucopt.metrics.xauc` and
:func:`~aucopt.metrics.multipartite_c_index` accept dask arrays, Series and (for a survival
target) DataFrames wherever they accept numpy arrays. Their inputs are vectors of length n
(labels, scores, events, times, weights), so the dask inputs are computed together (a graph
they share, such as the columns of one DataFrame, runs once), and
the in-memory metric runs on the driver: the value is the in-memory value, bit for bit,
whatever the chunking.

Driver memory: the gathered vectors (8 bytes a row for float64 scores, times and weights,
1 byte for boolean events or labels) plus the working arrays of the O(n log n) count (sort
orders, ranks, sorted copies), measured on 10⁶ rows: an unweighted AUC of boolean labels
9 + 17 = 26 bytes a row, a weighted one 17 + 71 = 88; Harrell's C 17 + 65 = 82 bytes a row,
weighted 25 + 99 = 124. So 10⁷ rows need about 0.8 GB on the driver (1.2 GB weighted); the
features never travel. Counting on the workers instead (each block of positives against
each sorted block of negatives) would ship every block to every other worker and sum weighted
counts in another order, which changes the last bits of a weighted metric; for inputs of a few
tens of bytes a row, gathering is the exact route.
"""

from __future__ import annotations

from typing import Any

from .._validation import gathered, is_dask_collection

__all__ = ["gather_vectors"]


def _check_vector(value: Any, name: str) -> None:
    """Refuse, before any compute, a dask collection that is not an n-vector (or a 2-column frame)."""
    columns = getattr(value, "columns", None)
    if columns is not None:  # a dask DataFrame: a survival target of two columns (event, time)
        if len(columns) > 2:
            raise ValueError(
                f"{name} is a dask DataFrame of {len(columns)} columns {list(columns)[:6]}; the metrics "
                "gather vectors of length n only (a survival target is two columns, event and time): "
                "select them, e.g. df[['event', 'time']]."
            )
        return
    ndim = getattr(value, "ndim", 1)
    shape: tuple[int, ...] = getattr(value, "shape", ())
    if ndim > 2 or (ndim == 2 and shape[1] != 1):
        raise ValueError(
            f"{name} is a dask array of shape {shape}; the metrics gather vectors of length n "
            "(labels, scores, events, times, weights) to the driver, not matrices: pass the scores, "
            "e.g. X.map_blocks(model.predict, drop_axis=1) for a dask X."
        )


def gather_vectors(*values: Any) -> tuple[Any, ...]:
    """The n-vectors among ``values`` computed to the driver, in one ``dask.compute`` call.

    Dask arrays, Series and DataFrames (also inside an ``(event, time)`` tuple) are computed
    together, so a graph they share runs once (one ``dask.compute`` call for the DataFrames
    and Series, one for the arrays); other values pass through unchanged.

    Parameters
    ----------
    *values : dask array, dask Series, dask DataFrame, tuple, or any object
        Vectors of length n (a dask array of shape (n,) or (n, 1), a Series, a DataFrame of at
        most two columns such as a survival target), or tuples of them.

    Returns
    -------
    values : tuple
        The values in order, each dask collection replaced by its numpy array or pandas object
        (tuples keep their structure).

    Raises
    ------
    ValueError
        Before any computation, for a dask array of more than one column or a dask DataFrame of
        more than two columns (a metric takes n-vectors: compute the scores first).

    See Also
    --------
    aucopt.metrics.harrell_c : Accepts dask inputs and gathers them with this function.
    aucopt.metrics.roc_auc : The same for binary labels.

    Notes
    -----
    The driver holds the gathered vectors: 8 bytes a row for each float64 vector, 1 byte for a
    boolean one. Ranking metrics count pairs over the whole data (each positive against every
    negative), so they need every score in one place; the features stay on the workers.

    Examples
    --------
    >>> import numpy as np
    >>> import dask.array as da
    >>> from aucopt.distributed import gather_vectors
    >>> score = da.from_array(np.array([0.1, 0.4, 0.35, 0.8]), chunks=2)
    >>> event, risk, tag = gather_vectors((da.ones(4, dtype=bool, chunks=3), score), score, "kept")
    >>> event[0].tolist(), risk.tolist(), tag
    ([True, True, True, True], [0.1, 0.4, 0.35, 0.8], 'kept')
    """
    for k, value in enumerate(values):
        for member in value if isinstance(value, tuple) else (value,):
            if is_dask_collection(member):
                _check_vector(member, f"Argument {k}")
    return gathered(*values)

