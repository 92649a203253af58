"""Class statistics for one-pass AUC: counts, means and scatter matrices, merged exactly.

The square pairwise loss of Gao, Jin, Zhu & Zhou (ICML 2013) depends on the data only through
the count, mean and covariance of each class. :class:`ClassStats` holds them for one class and
merges two disjoint samples exactly (so partitions of a data set are summarized part by part,
:mod:`aucopt.distributed`); :func:`class_statistics` reads both classes of a labelled data set
and :func:`batch_solution_from_stats` / :func:`batch_solution` give the batch minimizer
w* = (αI + S₊ + S₋ + δδᵀ)⁻¹ δ in closed form, in O(nd²) with no pair listed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from numpy.typing import ArrayLike
from sklearn.utils._param_validation import validate_params

from .._validation import binary_labels, check_point_weights
from ..base import positive

__all__ = ["ClassStats", "batch_solution", "batch_solution_from_stats", "class_statistics"]


# ============================================================================ class statistics
@dataclass
class ClassStats:
    """Count (or total weight), mean and scatter matrix of the examples of one class.

    The state of :class:`OnePassAUC` for one class. Two statistics of disjoint samples combine
    exactly with :meth:`merge`, so a data set split over files or workers is summarized part by
    part (:mod:`aucopt.distributed`).

    Parameters
    ----------
    count : int or float
        Number of examples T; with sample weights v_i, their total weight T = Σ_i v_i.
    mean : ndarray of shape (n_features,)
        The class mean c = (1/T) Σ_i v_i x_i (v_i = 1 without weights).
    scatter : ndarray of shape (n_features, n_features)
        The scatter matrix Σ_i v_i (x_i − c)(x_i − c)ᵀ.

    Attributes
    ----------
    cov : ndarray of shape (n_features, n_features)
        The population covariance S = scatter / count (zeros when count is 0).

    See Also
    --------
    class_statistics : The statistics of both classes of a labelled data set.
    batch_solution_from_stats : The batch minimizer from two class statistics.

    Notes
    -----
    :meth:`merge` uses the pairwise update of Chan, Golub & LeVeque: with n = T_a + T_b and
    δ = c_b − c_a, the merged mean is c_a + δ T_b / n and the merged scatter is
    scatter_a + scatter_b + δδᵀ T_a T_b / n.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.online import ClassStats
    >>> X = np.array([[0.0, 1.0], [2.0, 1.0], [4.0, 4.0]])
    >>> merged = ClassStats.from_array(X[:1]).merge(ClassStats.from_array(X[1:]))
    >>> merged.count, merged.mean.tolist()
    (3, [2.0, 2.0])
    >>> np.allclose(merged.cov, np.cov(X.T, bias=True))
    True
    """

    count: int | float
    mean: np.ndarray
    scatter: np.ndarray

    @property
    def cov(self) -> np.ndarray:
        """The population covariance scatter / count (zeros for an empty class)."""
        return self.scatter / self.count if self.count else np.zeros_like(self.scatter)

    @classmethod
    def from_array(cls, X: ArrayLike | sp.spmatrix, sample_weight: ArrayLike | None = None) -> ClassStats:
        """The statistics of the rows of ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The examples of one class; may have no rows.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights v_i: ``count`` is their total, the mean and the scatter are
            weighted (integer weights equal repeating rows). None: every row weighs 1.

        Returns
        -------
        stats : ClassStats
        """
        if sample_weight is not None:
            return cls._from_weighted_array(X, np.asarray(sample_weight, dtype=np.float64))
        if sp.issparse(X):
            X = sp.csr_matrix(X, dtype=np.float64)
            n = X.shape[0]
            mean = np.asarray(X.mean(axis=0)).ravel() if n else np.zeros(X.shape[1])
            return cls(n, mean, np.asarray((X.T @ X).todense()) - n * np.outer(mean, mean))
        X = np.asarray(X, dtype=np.float64)
        if X.shape[0] == 0:
            return cls._empty(X.shape[1])
        mean = X.mean(axis=0)
        Xc = X - mean
        return cls(X.shape[0], mean, Xc.T @ Xc)

    @classmethod
    def _empty(cls, d: int) -> ClassStats:
        """The statistics of no example in d features."""
        return cls(0, np.zeros(d), np.zeros((d, d)))

    @classmethod
    def _from_weighted_array(cls, X: ArrayLike | sp.spmatrix, weights: np.ndarray) -> ClassStats:
        total = float(weights.sum())
        if sp.issparse(X):
            A = sp.csr_matrix(X, dtype=np.float64)
            if total == 0:
                return cls._empty(A.shape[1])
            mean = np.asarray(A.T @ weights).ravel() / total
            second = np.asarray((A.T @ A.multiply(weights[:, None])).todense())
            return cls(total, mean, second - total * np.outer(mean, mean))
        D = np.asarray(X, dtype=np.float64)
        if total == 0:
            return cls._empty(D.shape[1])
        mean = (weights @ D) / total
        Xc = D - mean
        return cls(total, mean, Xc.T @ (Xc * weights[:, None]))

    def merge(self, other: ClassStats) -> ClassStats:
        """The exact statistics of the union of two disjoint samples.

        Parameters
        ----------
        other : ClassStats
            The statistics of the other sample (same number of features).

        Returns
        -------
        stats : ClassStats
        """
        if other.count == 0:
            return self
        if self.count == 0:
            return other
        n = self.count + other.count
        delta = other.mean - self.mean
        mean = self.mean + delta * (other.count / n)
        scatter = self.scatter + other.scatter + np.outer(delta, delta) * (self.count * other.count / n)
        return ClassStats(n, mean, scatter)


def class_statistics(X: ArrayLike | sp.spmatrix, y: ArrayLike, pos_label: Any = None,
                     sample_weight: ArrayLike | float | None = None) -> tuple[ClassStats, ClassStats]:
    """The statistics of the negative and the positive class of a labelled data set.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Training data.
    y : array-like of shape (n_samples,)
        Two class labels.
    pos_label : int, float, bool or str, default=None
        The positive class; None means the larger of the two labels.
    sample_weight : float or array-like of shape (n_samples,), default=None
        Non-negative weights: weighted counts, means and scatter matrices.

    Returns
    -------
    neg : ClassStats
        Statistics of the negative class.
    pos : ClassStats
        Statistics of the positive class.

    See Also
    --------
    batch_solution_from_stats : The batch minimizer from these statistics.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.online import class_statistics
    >>> neg, pos = class_statistics(np.array([[0.0], [1.0], [3.0], [5.0]]), [0, 0, 1, 1])
    >>> (neg.count, neg.mean.tolist()), (pos.count, pos.mean.tolist())
    ((2, [0.5]), (2, [4.0]))
    """
    is_pos, _ = binary_labels(y, pos_label)
    X = sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X)
    weights = check_point_weights(sample_weight, X.shape[0], "sample_weight")
    if weights is None:
        return ClassStats.from_array(X[~is_pos]), ClassStats.from_array(X[is_pos])
    return (ClassStats.from_array(X[~is_pos], weights[~is_pos]),
            ClassStats.from_array(X[is_pos], weights[is_pos]))


@validate_params({"neg": [ClassStats], "pos": [ClassStats], "alpha": [positive()]},
                 prefer_skip_nested_validation=True)
def batch_solution_from_stats(neg: ClassStats, pos: ClassStats, alpha: float) -> np.ndarray:
    """The minimizer of the batch square-loss AUC objective from the two class statistics.

    Parameters
    ----------
    neg : ClassStats
        Statistics of the negative class.
    pos : ClassStats
        Statistics of the positive class.
    alpha : float
        Penalty multiplier α > 0 of (α/2)‖w‖².

    Returns
    -------
    coef : ndarray of shape (n_features,)
        w* = (αI + S₊ + S₋ + δδᵀ)⁻¹ δ.

    See Also
    --------
    batch_solution : The same from a labelled data set.
    OnePassAUC : The one-pass estimate of the same minimizer.

    Notes
    -----
    The objective (Gao et al. 2013, Eq. (2), with α in place of their λ)

        L(w) = (α/2)‖w‖² + (1/(2T₊T₋)) Σ_i Σ_j (1 − wᵀ(x_i⁺ − x_j⁻))²

    is quadratic; setting its gradient to zero gives (αI + S₊ + S₋ + δδᵀ) w = δ, with S± the
    population (1/T±) class covariances and δ = c₊ − c₋ the difference of the class means.

    References
    ----------
    .. [1] Gao, W., Jin, R., Zhu, S., & Zhou, Z.-H. (2013). One-pass AUC optimization.
       *Proceedings of the 30th International Conference on Machine Learning (ICML)*,
       PMLR 28(3), 906–914.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.online import batch_solution_from_stats, class_statistics
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0]])
    >>> neg, pos = class_statistics(X, [0, 0, 1, 1])
    >>> batch_solution_from_stats(neg, pos, alpha=0.1).round(3).tolist()
    [0.333, 0.313]
    """
    delta = pos.mean - neg.mean
    A = pos.cov + neg.cov + np.outer(delta, delta)
    A[np.diag_indices_from(A)] += alpha
    return scipy.linalg.solve(A, delta, assume_a="pos")


def batch_solution(X: ArrayLike | sp.spmatrix, y: ArrayLike, alpha: float = 1e-4, pos_label: Any = None,
                   sample_weight: ArrayLike | float | None = None) -> np.ndarray:
    """The minimizer of the batch square-loss AUC objective of a labelled data set.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Training data.
    y : array-like of shape (n_samples,)
        Two class labels.
    alpha : float, default=1e-4
        Penalty multiplier α > 0 of (α/2)‖w‖².
    pos_label : int, float, bool or str, default=None
        The positive class; None means the larger of the two labels.
    sample_weight : float or array-like of shape (n_samples,), default=None
        Non-negative weights v: pair (i, j) weighs v_i v_j and T± become the class weight totals.

    Returns
    -------
    coef : ndarray of shape (n_features,)
        The minimizer w* of (α/2)‖w‖² + (1/(2T₊T₋)) Σ_ij (1 − wᵀ(x_i⁺ − x_j⁻))².

    See Also
    --------
    batch_solution_from_stats : The closed form, from class statistics.
    OnePassAUC : The one-pass estimate, whose fixed point is this minimizer.

    Notes
    -----
    The objective is Eq. (2) of Gao et al. (2013) with α in place of their λ; its minimizer is
    w* = (αI + S₊ + S₋ + δδᵀ)⁻¹ δ (see :func:`batch_solution_from_stats`). The cost is O(nd²)
    and no pair is listed.

    References
    ----------
    .. [1] Gao, W., Jin, R., Zhu, S., & Zhou, Z.-H. (2013). One-pass AUC optimization.
       *Proceedings of the 30th International Conference on Machine Learning (ICML)*,
       PMLR 28(3), 906–914.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from aucopt.metrics import roc_auc
    >>> from aucopt.online import batch_solution
    >>> X, y = make_classification(n_samples=60, n_features=5, random_state=0)
    >>> w = batch_solution(X, y, alpha=0.01)
    >>> round(roc_auc(y, X @ w), 2)
    0.91
    """
    return batch_solution_from_stats(*class_statistics(X, y, pos_label, sample_weight), alpha)
