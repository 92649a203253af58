"""Linear-kernel AUC-SVM routes on explicit pair differences z_ij = x_i − x_j.

* :func:`theorem2_weights` — Brefeld & Scheffer's Theorem 2: with a linear kernel, OP2 is an
  unthresholded SVM on the z_ij, all labelled +1. liblinear needs two classes, so it is fed
  the symmetrized set {(z, +1)} ∪ {(−z, −1)}, which counts every pair twice: C/2 for the
  hinge (r = 1) and, since liblinear's squared hinge is C Σ ξ² against the paper's (C/2) Σ ξ²,
  C/4 for r = 2 (seed 001 spec §2.7). Pair weights become liblinear sample weights.
* :func:`kmeans_difference_centers` — the k-means pair reduction (seed 001 §3, Table 1):
  cluster the z_ij into k = n⁺ + n⁻ clusters; the reduced dual uses the centers' Gram matrix.

Both need the P × d difference matrix (sparse when X is); its memory is checked first.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from .._validation import format_bytes
from ..pairs import DEFAULT_MAX_BYTES, PairSet


def pair_differences(X, pairs: PairSet, max_bytes: int | None = DEFAULT_MAX_BYTES):
    """Z = D X (P × d; sparse for sparse X) and the pair weights, after a memory check."""
    P = pairs.n_pairs
    nnz_per_row = 2 * (X.nnz / X.shape[0]) if sp.issparse(X) else X.shape[1]
    need = P * nnz_per_row * (12 if sp.issparse(X) else 8)
    if max_bytes is not None and need > max_bytes:
        raise ValueError(
            f"The {P:,} pair-difference vectors would need about {format_bytes(need)} "
            f"(limit {format_bytes(max_bytes)}); use the kernel QP route (solver='highs'/'osqp'/"
            "'clarabel'), which never forms them, or raise max_bytes."
        )
    i, j, w = pairs.to_arrays(max_bytes)
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        return (X[i] - X[j]).tocsr(), w
    return X[i] - X[j], w


def theorem2_weights(X, pairs: PairSet, C: float, norm: int, *, tol: float = 1e-10,
                     max_iter: int = 1_000_000, max_bytes: int | None = DEFAULT_MAX_BYTES):
    """w of the linear AUC-SVM (OP2, r = ``norm``) via liblinear on symmetrized pair differences."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    Z, w = pair_differences(X, pairs, max_bytes)
    stack = sp.vstack([Z, -Z], format="csr") if sp.issparse(Z) else np.vstack([Z, -Z])
    labels = np.r_[np.ones(Z.shape[0]), -np.ones(Z.shape[0])]
    svc = LinearSVC(loss="hinge" if norm == 1 else "squared_hinge", dual=True, fit_intercept=False,
                    C=C / 2 if norm == 1 else C / 4, tol=tol, max_iter=max_iter)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        svc.fit(stack, labels, sample_weight=np.r_[w, w])
    converged = not any(issubclass(c.category, ConvergenceWarning) for c in caught)
    return svc.coef_.ravel().copy(), converged, int(np.max(svc.n_iter_))


def kmeans_difference_centers(X, pairs: PairSet, n_clusters: int | None = None, *,
                              random_state=0, max_bytes: int | None = DEFAULT_MAX_BYTES,
                              minibatch_above: int = 200_000):
    """Cluster centers of the pair differences z_ij (k = ``n_clusters``, default n⁺ + n⁻).

    scikit-learn's KMeans (n_init=1, fixed seed) or, above ``minibatch_above`` pairs,
    MiniBatchKMeans. Empty clusters (e.g. from duplicated differences) are dropped; with
    k ≥ P every difference is returned as its own center. Returns a dense (k' × d) array, k' ≤ k.
    """
    from sklearn.cluster import KMeans, MiniBatchKMeans

    from sklearn.exceptions import ConvergenceWarning

    Z, _ = pair_differences(X, pairs, max_bytes)
    k = pairs.n_points if n_clusters is None else n_clusters
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"n_clusters must be a positive integer; got {n_clusters!r}.")
    if k >= Z.shape[0]:  # (n⁺ − 1)(n⁻ − 1) ≤ 1: no reduction possible, every pair is its own center
        return Z.toarray() if sp.issparse(Z) else np.array(Z)
    Est = MiniBatchKMeans if Z.shape[0] > minibatch_above else KMeans
    with warnings.catch_warnings():  # fewer distinct differences than k: duplicates end up empty
        warnings.simplefilter("ignore", ConvergenceWarning)
        km = Est(n_clusters=int(k), n_init=1, random_state=random_state).fit(Z)
    counts = np.bincount(km.labels_, minlength=int(k))
    return np.asarray(km.cluster_centers_)[counts > 0]
