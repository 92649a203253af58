"""Class statistics and the batch LS-AUC solution on dask collections (optional extra ``aucopt[dask]``).

The OPAUC state (count, mean, scatter per class) is additive over partitions: each partition's
statistics are computed with numpy inside a dask task and merged exactly, in a tree, with the
parallel update of Chan, Golub & LeVeque (:meth:`aucopt.onepass.ClassStats.merge`). The result
gives the batch minimizer w* = (λI + S₊ + S₋ + δδᵀ)⁻¹ δ and a full-covariance
:class:`~aucopt.onepass.OnePassAUC` holding the same state, ready to continue with ``partial_fit``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validation import binary_labels
from .online._onepass import ClassStats, OnePassAUC, batch_solution_from_stats

__all__ = ["DistributedAUCResult", "dask_class_statistics", "dask_fit"]


def _require_dask():
    try:
        import dask
        import dask.array  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "aucopt.distributed needs dask: install the extra with pip install 'aucopt[dask]' "
            "(or pip install 'dask[array,dataframe]' distributed)."
        ) from exc
    return dask


def _partition_stats(X, y) -> dict:
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y).ravel()
    if X.ndim != 2 or X.shape[0] != y.shape[0]:
        raise ValueError(f"Partition with X of shape {X.shape} and y of length {y.shape[0]}.")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or infinite values.")
    return {lab: ClassStats.from_array(X[y == lab]) for lab in np.unique(y)}


def _frame_stats(df, label, columns) -> dict:
    return _partition_stats(df[columns].to_numpy(dtype=np.float64), df[label].to_numpy())


def _merge(*parts: dict) -> dict:
    out: dict = {}
    for part in parts:
        for lab, st in part.items():
            out[lab] = out[lab].merge(st) if lab in out else st
    return out


def _tree_merge(dask, parts, split_every=8):
    merge = dask.delayed(_merge, pure=True)
    while len(parts) > 1:
        parts = [merge(*parts[i:i + split_every]) for i in range(0, len(parts), split_every)]
    return parts[0]


def dask_class_statistics(X, y, *, columns=None, pos_label=None, split_every=8):
    """``(negative, positive, classes, pos_label)`` class statistics of a dask collection.

    ``X`` is a dask array (n, d) with ``y`` a dask or numpy array of n labels, or a dask
    DataFrame with ``y`` the name of its label column (features: ``columns``, default all others).
    Computed with the active scheduler (e.g. a ``dask.distributed.Client``).
    """
    dask = _require_dask()
    import dask.array as da

    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-dimensional; got shape {X.shape}.")
        X = X.rechunk({1: -1})
        y = y if isinstance(y, da.Array) else da.from_array(np.asarray(y), chunks=(X.chunks[0],))
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]}.")
        y = y.rechunk((X.chunks[0],))
        stats = dask.delayed(_partition_stats, pure=True)
        parts = [stats(xb, yb) for xb, yb in zip(X.to_delayed().ravel(), y.to_delayed().ravel())]
    elif hasattr(X, "to_delayed") and hasattr(X, "columns"):
        if not isinstance(y, str) or y not in X.columns:
            raise ValueError("For a dask DataFrame, y must name its label column.")
        columns = [c for c in X.columns if c != y] if columns is None else list(columns)
        stats = dask.delayed(_frame_stats, pure=True)
        parts = [stats(part, y, columns) for part in X.to_delayed()]
    else:
        raise TypeError(f"X must be a dask Array or DataFrame; got {type(X).__name__}.")
    (merged,) = dask.compute(_tree_merge(dask, parts, split_every))
    classes = np.array(sorted(merged))
    _, pos = binary_labels(classes, pos_label)
    neg_label = classes[0] if classes[1] == pos else classes[1]
    return merged[neg_label], merged[pos], classes, pos


@dataclass
class DistributedAUCResult:
    """Batch LS-AUC solution ``coef`` and the exact class statistics behind it."""

    coef: np.ndarray
    neg: ClassStats
    pos: ClassStats
    classes: np.ndarray
    pos_label: object
    lam: float

    def to_estimator(self, **params) -> OnePassAUC:
        """A fitted full-covariance :class:`OnePassAUC` with this state and ``coef_ = coef``."""
        params.setdefault("lam", self.lam)
        params.setdefault("pos_label", self.pos_label)
        return OnePassAUC.from_statistics(self.neg, self.pos, self.classes, coef=self.coef, **params)


def dask_fit(X, y, lam=1e-4, *, columns=None, pos_label=None, split_every=8) -> DistributedAUCResult:
    """Class statistics over partitions, merged exactly, and w* = (λI + S₊ + S₋ + δδᵀ)⁻¹ δ."""
    neg, pos, classes, pos_label = dask_class_statistics(
        X, y, columns=columns, pos_label=pos_label, split_every=split_every)
    coef = batch_solution_from_stats(neg, pos, lam)
    return DistributedAUCResult(coef, neg, pos, classes, pos_label, float(lam))
