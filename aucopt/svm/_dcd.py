"""Dual coordinate descent for the AUC-SVM pairwise duals (Hsieh et al. 2008).

Private to :mod:`aucopt.svm._aucsvm`. The dual, on a kernel factor L (K = L Lᵀ, r columns) and
pairs p = (i, j) with a_p = L_i − L_j, is

    min_α  ½‖u‖² + Σ_p α_p² / (2 C w_p) [2-norm only] − Σ_p α_p,   u = Σ_p α_p a_p,
    s.t.   0 ≤ α_p ≤ C w_p (1-norm)   or   α_p ≥ 0 (2-norm; α_p = 0 when w_p = 0).

One coordinate step costs O(r): the gradient G_p = uᵀa_p + d_p α_p − 1 (d_p = 1/(C w_p) for the
2-norm, 0 for the 1-norm), the curvature Q_pp = ‖a_p‖² + d_p, the clipped Newton step, and the
update of u. The epoch kernel has one compiled signature (float64 arrays, int64 indices);
callers cast first. numba is imported on first use.

References
----------
Hsieh, C.-J., Chang, K.-W., Lin, C.-J., Keerthi, S. S., & Sundararajan, S. (2008). A dual
coordinate descent method for large-scale linear SVM. *ICML*, 408–415.
"""

from __future__ import annotations

import numpy as np

_KERNEL = None


def _epoch_kernel():
    """The compiled epoch (numba imported and the kernel compiled, or loaded from cache, on first use)."""
    global _KERNEL
    if _KERNEL is None:
        from numba import njit

        @njit(cache=True, nogil=True)
        def dcd_epoch(L, i, j, upper, ridge, qdiag, alpha, u, perm):
            """One pass over ``perm``; returns (max PG, min PG) over the free coordinates."""
            r = L.shape[1]
            pg_max = -np.inf
            pg_min = np.inf
            for t in range(perm.shape[0]):
                p = perm[t]
                ub = upper[p]
                if ub <= 0.0:
                    continue
                a = i[p]
                b = j[p]
                g = ridge[p] * alpha[p] - 1.0
                for k in range(r):
                    g += u[k] * (L[a, k] - L[b, k])
                ap = alpha[p]
                if ap <= 0.0:
                    pg = min(g, 0.0)
                elif ap >= ub:
                    pg = max(g, 0.0)
                else:
                    pg = g
                if pg > pg_max:
                    pg_max = pg
                if pg < pg_min:
                    pg_min = pg
                if pg != 0.0:
                    q = qdiag[p]
                    if q > 0.0:
                        new = min(max(ap - g / q, 0.0), ub)
                    else:  # a_p = 0 and no ridge: the objective falls linearly in α_p (g = −1)
                        new = ub if g < 0.0 else 0.0
                    d = new - ap
                    if d != 0.0:
                        alpha[p] = new
                        for k in range(r):
                            u[k] += d * (L[a, k] - L[b, k])
            return pg_max, pg_min

        _KERNEL = dcd_epoch
    return _KERNEL


def dcd_solve(L, i, j, w, C, power, *, tol, max_iter, random_state, time_limit=None, verbose=False):
    """Solve the 1-norm (``power=1``) or 2-norm (``power=2``) AUC-SVM dual by dual coordinate descent.

    Parameters
    ----------
    L : ndarray of shape (n_points, r)
        The kernel factor.
    i, j, w : ndarray of shape (n_pairs,)
        The pairs and their weights.
    C : float
        The loss weight.
    power : {1, 2}
        1 for the hinge (box 0 ≤ α ≤ C w), 2 for the squared hinge (ridge 1/(C w)).
    tol : float
        Stop when the projected-gradient gap max PG − min PG over an epoch is at most ``tol``.
    max_iter : int
        Epoch limit.
    random_state : int or None
        Seed of the per-epoch permutation.
    time_limit : float, default=None
        Seconds; checked after each epoch.
    verbose : bool, default=False
        A progress bar over epochs with the gap.

    Returns
    -------
    alpha : ndarray of shape (n_pairs,)
    u : ndarray of shape (r,)
        Σ α_p a_p.
    n_iter : int
        Epochs run.
    status : {"optimal", "iteration_limit", "time_limit"}
    gap : float
        The last epoch's projected-gradient gap.
    """
    import time

    from .._progress import progress_bar

    L = np.ascontiguousarray(L, dtype=np.float64)
    i = np.ascontiguousarray(i, dtype=np.int64)
    j = np.ascontiguousarray(j, dtype=np.int64)
    w = np.asarray(w, dtype=np.float64)
    P = i.shape[0]
    qdiag = _pair_sq_norms(L, i, j)
    if power == 1:
        upper = C * w
        ridge = np.zeros(P)
    else:
        positive = w > 0
        upper = np.where(positive, np.inf, 0.0)
        ridge = np.divide(1.0, C * w, out=np.zeros(P), where=positive)
        qdiag += ridge
    alpha = np.zeros(P)
    u = np.zeros(L.shape[1])
    epoch = _epoch_kernel()
    if isinstance(random_state, np.random.RandomState):
        random_state = int(random_state.randint(2**31 - 1))
    rng = np.random.default_rng(random_state)
    start = time.perf_counter()
    bar = progress_bar(verbose, total=max_iter, desc="AUC-SVM dual coordinate descent", unit="epoch")
    status, gap, n_iter = "iteration_limit", np.inf, 0
    try:
        for n_iter in range(1, max_iter + 1):
            pg_max, pg_min = epoch(L, i, j, upper, ridge, qdiag, alpha, u, rng.permutation(P).astype(np.int64))
            gap = float(pg_max - pg_min) if pg_max >= pg_min else 0.0
            if bar is not None:
                bar.update(1)
                bar.set_postfix(gap=f"{gap:.2e}")
            if gap <= tol:
                status = "optimal"
                break
            if time_limit is not None and time.perf_counter() - start >= time_limit:
                status = "time_limit"
                break
    finally:
        if bar is not None:
            bar.close()
    return alpha, u, n_iter, status, gap


def _pair_sq_norms(L, i, j, chunk=65_536):
    """‖L_i − L_j‖² per pair, in chunks of pairs (never a pairs × r matrix)."""
    out = np.empty(i.shape[0])
    for s in range(0, i.shape[0], chunk):
        e = min(s + chunk, i.shape[0])
        diff = L[i[s:e]] - L[j[s:e]]
        out[s:e] = np.einsum("ij,ij->i", diff, diff)
    return out
