"""Linear-kernel AUC-SVM routes on explicit pair differences z_ij = x_i − x_j.

* :func:`theorem2_weights` — Brefeld & Scheffer (2005), Theorem 2: with a linear kernel, the
  AUC-SVM primal is an SVM without threshold on the differences z_ij, all labelled +1. liblinear
  needs two classes, so it is fed the symmetrized set {(z, +1)} ∪ {(−z, −1)}, which counts every
  pair twice: liblinear's C is C/2 for the hinge and, since liblinear's squared hinge is
  C Σ ξ² against the AUC-SVM's (C/2) Σ ξ², C/4 for the squared hinge. Pair weights become
  liblinear sample weights.
* :func:`kmeans_difference_centers` — the k-means pair reduction of Brefeld & Scheffer (2005),
  Sec. 3: cluster the z_ij into k = n₊ + n₋ clusters; the reduced dual uses the centers' Gram
  matrix.

Both need the P × d difference matrix (sparse when X is); its memory is checked first.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from .. import _memory
from ..pairs import DEFAULT_MAX_BYTES, PairSet

__all__ = ["kmeans_difference_centers", "pair_differences", "theorem2_weights"]

#: liblinear's tolerance and iteration limit by loss when the estimator leaves them at None. The
#: squared hinge is solved in the primal by liblinear's trust-region Newton method, whose
#: tolerance is relative to the first gradient: 1e-10 costs a few dozen Newton steps on scaled
#: and unscaled data alike. The hinge has only the dual coordinate descent, whose tolerance
#: bounds the projected-gradient gap in units of the margin: 1e-8 matches the QP route's
#: objective to about 1e-8 on scaled data; on badly scaled features it converges slowly and stops
#: at the iteration limit with a warning naming the fix.
LIBLINEAR_TOL = {"hinge": 1e-8, "squared_hinge": 1e-10}
LIBLINEAR_MAX_ITER = {"hinge": 100_000, "squared_hinge": 1_000}


def pair_differences(X, pairs: PairSet, max_bytes: float | None = DEFAULT_MAX_BYTES):
    """The pair-difference matrix Z with rows z_ij = x_i − x_j, and the pair weights.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The points.
    pairs : PairSet
        The pairs (i, j), in the order of ``pairs.to_arrays()``.
    max_bytes : float or None, default=2147483648
        Memory budget in bytes (2 GiB) of Z (about 8 bytes per entry, 12 per stored entry for
        sparse X). None: no limit.

    Returns
    -------
    Z : {ndarray, csr_matrix} of shape (n_pairs, n_features)
        Sparse when ``X`` is sparse.
    weights : ndarray of shape (n_pairs,)
        The pair weights w_ij.

    Raises
    ------
    ProblemTooLargeError
        When Z would need more than ``max_bytes``, before it is built.

    See Also
    --------
    theorem2_weights, kmeans_difference_centers : The two routes built on Z.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.svm._pairwise_linear import pair_differences
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]])
    >>> Z, w = pair_differences(X, PairSet.bipartite([1, 0, 0]))
    >>> Z
    array([[-1.,  1.],
           [-2., -1.]])
    >>> w
    array([1., 1.])
    """
    P = pairs.n_pairs
    nnz_per_row = 2 * (X.nnz / X.shape[0]) if sp.issparse(X) else X.shape[1]
    _memory.refuse(P * nnz_per_row * (12 if sp.issparse(X) else 8), max_bytes,
                   f"The {P:,} pair-difference vectors",
                   lambda: _memory.aucsvm_routes(pairs.n_points, P, X.shape[1], nnz_per_row,
                                                 survival=pairs.target == "survival", max_bytes=max_bytes,
                                                 exclude=("liblinear", "kmeans"),
                                                 factor_nnz=float(X.nnz) if sp.issparse(X) else None))
    i, j, w = pairs.to_arrays(None if max_bytes is None else int(max_bytes))
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        return (X[i] - X[j]).tocsr(), w
    return X[i] - X[j], w


def theorem2_weights(X, pairs: PairSet, C: float, loss: str = "hinge", *, tol: float | None = None,
                     max_iter: int | None = None, verbose: int = 0, random_state=0,
                     max_bytes: float | None = DEFAULT_MAX_BYTES):
    """Weight vector of the linear AUC-SVM by liblinear on symmetrized pair differences.

    Minimizes ½‖w‖² + C Σ w_ij max(0, 1 − wᵀz_ij) (``loss="hinge"``) or
    ½‖w‖² + (C/2) Σ w_ij max(0, 1 − wᵀz_ij)² (``loss="squared_hinge"``) over the pair
    differences z_ij = x_i − x_j, as :class:`sklearn.svm.LinearSVC` without intercept on the
    set {(z_ij, +1)} ∪ {(−z_ij, −1)} with sample weights w_ij and C/2 (hinge) or C/4
    (squared hinge).

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The points.
    pairs : PairSet
        The pairs (i, j) that should be ranked f(x_i) > f(x_j), with weights w_ij.
    C : float
        Weight of the pairwise loss.
    loss : {"hinge", "squared_hinge"}, default="hinge"
        The pairwise loss.
    tol : float, default=None
        liblinear's stopping tolerance. None means 1e-10 for ``"squared_hinge"``, solved in
        the primal by a trust-region Newton method whose tolerance is relative to the first
        gradient, and 1e-8 for ``"hinge"``, solved by dual coordinate descent (a bound on the
        projected-gradient gap in units of the margin); both match the QP route's objective
        to about 1e-8 on scaled data.
    max_iter : int, default=None
        liblinear's iteration limit; None means 1,000 Newton steps (``"squared_hinge"``) or
        100,000 coordinate-descent epochs (``"hinge"``).
    verbose : int, default=0
        liblinear's output level.
    random_state : int, RandomState instance or None, default=0
        Seed of liblinear's coordinate order.
    max_bytes : float or None, default=2147483648
        Memory budget in bytes (2 GiB) of the difference matrix (see :func:`pair_differences`).

    Returns
    -------
    w : ndarray of shape (n_features,)
        The weight vector; the scores are f(x) = wᵀx.
    converged : bool
        False when liblinear stopped at ``max_iter``.
    n_iter : int
        liblinear's iteration count.

    See Also
    --------
    aucopt.AUCSVM : Uses this function for ``method="liblinear"``.

    References
    ----------
    .. [1] Brefeld, U., & Scheffer, T. (2005). AUC maximizing support vector learning.
       *Proceedings of the ICML 2005 Workshop on ROC Analysis in Machine Learning*.
    .. [2] Fan, R.-E., Chang, K.-W., Hsieh, C.-J., Wang, X.-R., & Lin, C.-J. (2008). LIBLINEAR:
       A library for large linear classification. *JMLR*, 9, 1871–1874.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.svm._pairwise_linear import theorem2_weights
    >>> X = np.array([[2.0], [1.0], [0.0]])
    >>> w, converged, _ = theorem2_weights(X, PairSet.bipartite([1, 0, 0]), C=10.0)
    >>> np.round(w, 6), converged
    (array([1.]), True)
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    Z, w = pair_differences(X, pairs, max_bytes)
    stack = sp.vstack([Z, -Z], format="csr") if sp.issparse(Z) else np.vstack([Z, -Z])
    labels = np.r_[np.ones(Z.shape[0]), -np.ones(Z.shape[0])]
    # the hinge exists only in liblinear's dual; the squared hinge goes to the primal Newton solver,
    # which, unlike dual coordinate descent, does not slow down on badly scaled features
    svc = LinearSVC(loss=loss, dual=loss == "hinge", fit_intercept=False, C=C / 2 if loss == "hinge" else C / 4,
                    tol=LIBLINEAR_TOL[loss] if tol is None else tol,
                    max_iter=LIBLINEAR_MAX_ITER[loss] if max_iter is None else max_iter,
                    verbose=int(verbose), random_state=random_state)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        svc.fit(stack, labels, sample_weight=np.r_[w, w])
    converged = not any(issubclass(c.category, ConvergenceWarning) for c in caught)
    return svc.coef_.ravel().copy(), converged, int(np.max(svc.n_iter_))


def kmeans_difference_centers(X, pairs: PairSet, n_clusters: int | None = None, *,
                              random_state=0, max_bytes: float | None = DEFAULT_MAX_BYTES,
                              minibatch_above: int = 200_000):
    """Cluster centers of the pair differences z_ij = x_i − x_j.

    scikit-learn's :class:`~sklearn.cluster.KMeans` (``n_init=1``) or, above
    ``minibatch_above`` pairs, :class:`~sklearn.cluster.MiniBatchKMeans`. Empty clusters (e.g.
    from duplicated differences) are dropped; with k ≥ P every difference is its own center.
    The clustering is unweighted, as in Brefeld & Scheffer (2005), Sec. 3.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The points.
    pairs : PairSet
        The pairs (i, j) whose differences are clustered.
    n_clusters : int, default=None
        Number of clusters k; None means the number of points, n₊ + n₋ for binary labels.
    random_state : int, RandomState instance or None, default=0
        Seed of the k-means initialization.
    max_bytes : float or None, default=2147483648
        Memory budget in bytes (2 GiB) of the difference matrix (see :func:`pair_differences`).
    minibatch_above : int, default=200_000
        Use mini-batch k-means above this many pairs.

    Returns
    -------
    centers : ndarray of shape (k', n_features)
        The non-empty cluster centers, k' ≤ k.

    See Also
    --------
    aucopt.AUCSVM : Uses this function for ``method="kmeans"``.

    References
    ----------
    .. [1] Brefeld, U., & Scheffer, T. (2005). AUC maximizing support vector learning.
       *Proceedings of the ICML 2005 Workshop on ROC Analysis in Machine Learning*.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.svm._pairwise_linear import kmeans_difference_centers
    >>> X = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> pairs = PairSet.from_arrays([0, 1, 2, 3], [2, 2, 0, 0], n_points=4)
    >>> np.sort(kmeans_difference_centers(X, pairs, n_clusters=2).ravel()).round(2)
    array([-4.95,  5.05])
    """
    from sklearn.cluster import KMeans, MiniBatchKMeans
    from sklearn.exceptions import ConvergenceWarning

    Z, _ = pair_differences(X, pairs, max_bytes)
    k = pairs.n_points if n_clusters is None else n_clusters
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"n_clusters must be a positive integer; got {n_clusters!r}.")
    if k >= Z.shape[0]:  # (n₊ − 1)(n₋ − 1) ≤ 1: no reduction possible, every pair is its own center
        return Z.toarray() if sp.issparse(Z) else np.array(Z)
    Est = MiniBatchKMeans if Z.shape[0] > minibatch_above else KMeans
    with warnings.catch_warnings():  # fewer distinct differences than k: duplicates end up empty
        warnings.simplefilter("ignore", ConvergenceWarning)
        km = Est(n_clusters=int(k), n_init=1, random_state=random_state).fit(Z)
    counts = np.bincount(km.labels_, minlength=int(k))
    return np.asarray(km.cluster_centers_)[counts > 0]
