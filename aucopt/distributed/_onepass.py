"""Class statistics and the batch square-loss AUC solution on dask collections.

The state of one-pass AUC (count, mean and scatter matrix of each class) is additive over
partitions: each partition's statistics are computed with numpy inside a dask task and merged
exactly, in a tree, by :meth:`aucopt.online.ClassStats.merge`. The merged statistics give the
batch minimizer w* = (αI + S₊ + S₋ + δδᵀ)⁻¹ δ (Gao et al. 2013, Eq. (2)) and a full-covariance
:class:`~aucopt.online.OnePassAUC` holding the same state, ready to continue with
``partial_fit``. Needs the optional extra ``aucopt[dask]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.utils._param_validation import validate_params

from .._validation import Count, binary_labels
from ..base import positive
from ..online import ClassStats, OnePassAUC, batch_solution_from_stats

__all__ = ["DistributedAUCResult", "dask_class_statistics", "dask_fit"]


def _require_dask():
    try:
        import dask
        import dask.array
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


_COMMON_CONSTRAINTS = {
    "X": "no_validation",
    "y": "no_validation",
    "columns": ["array-like", None],
    "pos_label": [Real, str, "boolean", None],
    "split_every": [Count(Integral, 2, None, closed="left")],
}


@validate_params(_COMMON_CONSTRAINTS, prefer_skip_nested_validation=True)
def dask_class_statistics(X: Any, y: Any, *, columns: Sequence[str] | None = None, pos_label: Any = None,
                          split_every: int = 8) -> tuple[ClassStats, ClassStats, np.ndarray, Any]:
    """Exact class statistics of a dask collection, computed partition by partition.

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features) or dask.dataframe.DataFrame
        The data. A dask array is rechunked to whole rows; a DataFrame holds the labels in the
        column named by ``y``.
    y : dask.array.Array, array-like of shape (n_samples,) or str
        The two class labels, or the name of the label column of a DataFrame ``X``.
    columns : list of str, default=None
        The feature columns of a DataFrame ``X``; None means every column but ``y``.
    pos_label : int, float, bool or str, default=None
        The positive class; None means the larger of the two labels.
    split_every : int, default=8
        Fan-in of the merge tree (partitions merged per task).

    Returns
    -------
    neg : ClassStats
        Statistics of the negative class.
    pos : ClassStats
        Statistics of the positive class.
    classes : ndarray of shape (2,)
        The two labels, sorted.
    pos_label : int, float, bool or str
        The positive class.

    See Also
    --------
    dask_fit : These statistics and the batch minimizer.
    aucopt.online.class_statistics : The same for in-memory data.

    Notes
    -----
    Runs on the active dask scheduler (e.g. a ``dask.distributed.Client``). Each partition is
    summarized with numpy and the summaries are merged exactly (Chan, Golub & LeVeque), so the
    result equals :func:`aucopt.online.class_statistics` of the whole data up to rounding.

    Examples
    --------
    >>> import dask.array as da
    >>> from sklearn.datasets import make_classification
    >>> from aucopt.distributed import dask_class_statistics
    >>> X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    >>> neg, pos, classes, pos_label = dask_class_statistics(da.from_array(X, chunks=20), y)
    >>> neg.count + pos.count, classes.tolist(), int(pos_label)
    (60, [0, 1], 1)
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
        parts = [stats(xb, yb) for xb, yb in zip(X.to_delayed().ravel(), y.to_delayed().ravel(), strict=False)]
    elif hasattr(X, "to_delayed") and hasattr(X, "columns"):
        if not isinstance(y, str) or y not in X.columns:
            raise ValueError(f"For a dask DataFrame, y must name its label column; got {y!r}.")
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
    """The batch square-loss AUC solution of a dask collection and the statistics behind it.

    Returned by :func:`dask_fit`.

    Attributes
    ----------
    coef : ndarray of shape (n_features,)
        The batch minimizer w* = (αI + S₊ + S₋ + δδᵀ)⁻¹ δ.
    neg : ClassStats
        Statistics of the negative class.
    pos : ClassStats
        Statistics of the positive class.
    classes : ndarray of shape (2,)
        The two labels, sorted.
    pos_label : int, float, bool or str
        The positive class.
    alpha : float
        The penalty multiplier the solution was computed with.

    Examples
    --------
    >>> import dask.array as da
    >>> from sklearn.datasets import make_classification
    >>> from aucopt.distributed import dask_fit
    >>> X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    >>> result = dask_fit(da.from_array(X, chunks=20), y, alpha=0.01)
    >>> model = result.to_estimator(eta0=0.01)
    >>> model.n_seen_, round(model.score(X, y), 2)
    (60, 0.9)
    """

    coef: np.ndarray
    neg: ClassStats
    pos: ClassStats
    classes: np.ndarray
    pos_label: object
    alpha: float

    def to_estimator(self, **params: Any) -> OnePassAUC:
        """A fitted full-covariance :class:`~aucopt.online.OnePassAUC` holding this state.

        Parameters
        ----------
        **params : dict
            Constructor parameters of :class:`~aucopt.online.OnePassAUC`; ``alpha`` and
            ``pos_label`` default to this result's.

        Returns
        -------
        model : OnePassAUC
            With ``coef_ = coef``, ready to continue with ``partial_fit``.
        """
        params.setdefault("alpha", self.alpha)
        params.setdefault("pos_label", self.pos_label)
        return OnePassAUC.from_statistics(self.neg, self.pos, self.classes, coef=self.coef, **params)


@validate_params({**_COMMON_CONSTRAINTS, "alpha": [positive()]}, prefer_skip_nested_validation=True)
def dask_fit(X: Any, y: Any, alpha: float = 1e-4, *, columns: Sequence[str] | None = None, pos_label: Any = None,
             split_every: int = 8) -> DistributedAUCResult:
    """The batch square-loss AUC minimizer of a dask collection, from exactly merged statistics.

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features) or dask.dataframe.DataFrame
        The data (see :func:`dask_class_statistics`).
    y : dask.array.Array, array-like of shape (n_samples,) or str
        The two class labels, or the name of the label column of a DataFrame ``X``.
    alpha : float, default=1e-4
        Penalty multiplier α > 0 of (α/2)‖w‖².
    columns : list of str, default=None
        The feature columns of a DataFrame ``X``; None means every column but ``y``.
    pos_label : int, float, bool or str, default=None
        The positive class; None means the larger of the two labels.
    split_every : int, default=8
        Fan-in of the merge tree.

    Returns
    -------
    result : DistributedAUCResult
        The minimizer ``coef``, the class statistics and ``to_estimator()``.

    See Also
    --------
    aucopt.online.batch_solution : The same for in-memory data.
    aucopt.online.OnePassAUC : The one-pass estimate of the same minimizer.

    Notes
    -----
    Minimizes Eq. (2) of Gao et al. (2013) with α in place of their λ,

        L(w) = (α/2)‖w‖² + (1/(2T₊T₋)) Σ_i Σ_j (1 − wᵀ(x_i⁺ − x_j⁻))²,

    whose minimizer w* = (αI + S₊ + S₋ + δδᵀ)⁻¹ δ needs only the class means and population
    covariances. The result equals :func:`aucopt.online.batch_solution` on the whole data.

    References
    ----------
    .. [1] Gao, W., Jin, R., Zhu, S., & Zhou, Z.-H. (2013). One-pass AUC optimization.
       *Proceedings of the 30th International Conference on Machine Learning (ICML)*,
       PMLR 28(3), 906–914.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from aucopt.distributed import dask_fit
    >>> from aucopt.online import batch_solution
    >>> X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    >>> result = dask_fit(da.from_array(X, chunks=20), y, alpha=0.01)
    >>> np.allclose(result.coef, batch_solution(X, y, alpha=0.01))
    True
    """
    neg, pos, classes, pos_label = dask_class_statistics(
        X, y, columns=columns, pos_label=pos_label, split_every=split_every)
    coef = batch_solution_from_stats(neg, pos, alpha)
    return DistributedAUCResult(coef, neg, pos, classes, pos_label, float(alpha))
