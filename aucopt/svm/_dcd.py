"""Dual coordinate descent for the AUC-SVM pairwise duals (Hsieh et al. 2008).

Private to :mod:`aucopt.svm._aucsvm`, which imports it on the first ``method="dcd"`` fit (numba
compiles the kernels below then, or loads them from its disk cache). With pairs p = (i_p, j_p),
pair weights w_p, the expansion c = Aᵀα (c_l = Σ_{p: i_p = l} α_p − Σ_{p: j_p = l} α_p) and the
kernel matrix K, the dual is

    min_α  ½ cᵀKc + Σ_p α_p² / (2 C w_p) [2-norm only] − Σ_p α_p
    s.t.   0 ≤ α_p ≤ C w_p (1-norm)   or   α_p ≥ 0 (2-norm);   α_p = 0 when w_p = 0.

Its gradient in α_p is G_p = f_i − f_j + d_p α_p − 1, with f = Kc the training scores and
d_p = 1/(C w_p) for the 2-norm (0 for the 1-norm); the curvature is Q_pp = K_ii + K_jj − 2 K_ij + d_p.
A coordinate step is the Newton step clipped to the box. Two representations of f:

* ``kernel`` (any kernel): K in memory and f = Kc maintained; the gradient costs O(1) and a step
  that moves α_p costs O(n) (f += δ (K_i − K_j)). No factorization of K.
* ``linear`` (K = XXᵀ): w = Xᵀc maintained instead, f_i = x_iᵀw; the gradient and the step cost
  O(d), and neither K nor a factor of it is formed.

**Shrinking** (Hsieh et al. 2008, Section 3.2, as in liblinear): a coordinate at a bound whose
gradient points outward by more than the previous epoch's largest projected-gradient violation
leaves the active set. When the projected-gradient gap max PG − min PG over the active set is
at most ``tol``, f (or w) is recomputed from α, the full set is restored and passed over again:
the solve stops only when the gap over all pairs with w_p > 0 is at most ``tol``. The active
coordinates are visited in a new random order every epoch (:mod:`aucopt.svm._permute`). When the
gap stalls (nearly parallel pairs make coordinate descent zigzag) on an active set small enough,
the dual restricted to that set is solved exactly (:mod:`aucopt.svm._dcd_polish`).

Memory beyond the pair list (int32 i and j, float64 w) and K (or X): α, Q_pp and the active
index, 20 bytes a pair, and O(n) vectors.

References
----------
Hsieh, C.-J., Chang, K.-W., Lin, C.-J., Keerthi, S. S., & Sundararajan, S. (2008). A dual
coordinate descent method for large-scale linear SVM. *ICML*, 408–415.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from .._numba import njit
from .._progress import progress_bar
from .._validation import check_time_limit
from . import _dcd_polish
from ._dcd_polish import apply_alpha, polish_work, restricted_optimum
from ._permute import EpochOrder
from ._prefetch import DISTANCE, prefetch

#: |projected gradient| below which a coordinate is not moved (liblinear's 1e-12)
_PG_ZERO = 1e-12



@njit(cache=True, nogil=True)
def _curvature(data, linear, i, j, w, C, power, out):
    """Q_pp for every pair: ‖x_i − x_j‖² (linear) or K_ii + K_jj − 2K_ij, plus 1/(C w_p) (2-norm)."""
    d = data.shape[1]
    for p in range(i.shape[0]):
        a = i[p]
        b = j[p]
        if linear:
            s = 0.0
            for k in range(d):
                t = data[a, k] - data[b, k]
                s += t * t
        else:
            s = data[a, a] + data[b, b] - 2.0 * data[a, b]
        if power == 2 and w[p] > 0.0:
            s += 1.0 / (C * w[p])
        out[p] = s


@njit(cache=True, nogil=True, inline="always")
def _bound_and_gradient(ap, wp, C, power, linear, state, data, a, b):
    """(upper bound, gradient) of the dual coordinate α_p of pair (a, b) with weight wp: the bound
    C·wp and gradient −1 + (Kc)_a − (Kc)_b under the hinge (power 1); no bound and gradient
    α_p / (C·wp) − 1 + … under the squared hinge. ``state`` is Kc, or Xᵀc when ``linear``."""
    if power == 1:
        ub = C * wp
        g = -1.0
    else:
        ub = np.inf
        g = ap / (C * wp) - 1.0
    if linear:
        for k in range(state.shape[0]):
            g += state[k] * (data[a, k] - data[b, k])
    else:
        g += state[a] - state[b]
    return ub, g


@njit(cache=True, nogil=True, inline="always")
def _projected_gradient(ap, ub, g, pg_max_old, pg_min_old):
    """(shrink, projected gradient) of α_p in [0, ub] with gradient g: shrink when α_p is at 0 and
    pushed further down than the last epoch's largest projected gradient, or at ub and pushed
    further up than its smallest (the shrinking rule of Hsieh et al. 2008, Sec. 3.2)."""
    if ap <= 0.0:
        return g > pg_max_old, min(g, 0.0)
    if ap >= ub:
        return g < pg_min_old, max(g, 0.0)
    return False, g


@njit(cache=True, nogil=True)
def _epoch(data, linear, i, j, w, C, power, qdiag, alpha, c, state, index, active, pg_max_old, pg_min_old):
    """One pass over ``index[:active]`` (in its order); returns (max PG, min PG, active size, the
    number of coordinates that moved).

    ``state`` is f = Kc (``linear`` False) or w = Xᵀc (``linear`` True); shrunk coordinates
    are swapped to the end of the active part of ``index``.
    """
    n = state.shape[0]
    pg_max = -np.inf
    pg_min = np.inf
    s = moved = 0
    while s < active:
        if s + DISTANCE < active:  # the pair's entries of every pair-sized array
            ahead = index[s + DISTANCE]
            prefetch(i, ahead)
            prefetch(j, ahead)
            prefetch(w, ahead)
            prefetch(qdiag, ahead)
            prefetch(alpha, ahead)
        p = index[s]
        a = i[p]
        b = j[p]
        ap = alpha[p]
        ub, g = _bound_and_gradient(ap, w[p], C, power, linear, state, data, a, b)
        shrink, pg = _projected_gradient(ap, ub, g, pg_max_old, pg_min_old)
        if shrink:  # at a bound and pushed further out
            active -= 1
            index[s] = index[active]
            index[active] = p
            continue
        if pg > pg_max:
            pg_max = pg
        if pg < pg_min:
            pg_min = pg
        s += 1
        if abs(pg) > _PG_ZERO:
            q = qdiag[p]
            # q = 0: x_i = x_j under the 1-norm, the objective falls linearly in α_p (g = −1)
            new = min(max(ap - g / q, 0.0), ub) if q > 0.0 else (ub if g < 0.0 else 0.0)
            delta = new - ap
            if delta != 0.0:
                alpha[p] = new
                c[a] += delta
                c[b] -= delta
                moved += 1
                for k in range(n):  # w += δ (x_i − x_j), or f += δ (K_i − K_j)
                    state[k] += delta * (data[a, k] - data[b, k])
    return pg_max, pg_min, active, moved


@njit(cache=True, nogil=True)
def _dual_sums(alpha, w, C, power):
    """(Σ α_p, Σ α_p² / (C w_p) over w_p > 0 for the 2-norm, else 0) without pair-sized temporaries."""
    total = 0.0
    ridge = 0.0
    for p in range(alpha.shape[0]):
        total += alpha[p]
        if power == 2 and w[p] > 0.0:
            ridge += alpha[p] * alpha[p] / (C * w[p])
    return total, ridge


def expansion(alpha, i, j, n_points):
    """c = Aᵀα: Σ α_p over the pairs where a point comes first minus where it comes second."""
    return np.bincount(i, alpha, minlength=n_points) - np.bincount(j, alpha, minlength=n_points)


def dual_objective(alpha, w, C, power, c, f):
    """½ cᵀKc + Σ α_p² / (2 C w_p) [2-norm] − Σ α_p, with f = Kc."""
    total, ridge = _dual_sums(alpha, w, float(C), int(power))
    return 0.5 * float(c @ f) + 0.5 * ridge - total


@njit(cache=True, nogil=True)
def start_fraction(z, power, epsilon):
    """α_p / (C w_p) of the dual point read off a pair's score difference z: for the squared hinge
    (``power=2``) max(0, 1 − z), the pair dual at the primal optimum; for the hinge the ε-smoothed
    hinge's slope min(1, max(0, (1 − z) / (2ε))), in the box [0, 1]. The one formula of both
    solvers' starts (the sorted solver's pass calls it too)."""
    slack = max(1.0 - z, 0.0)
    return slack if power == 2 else min(slack / (2.0 * epsilon), 1.0)


@njit(cache=True, nogil=True)
def _start_from_scores(i, j, w, f, C, power, epsilon):
    """α_p = C w_p · :func:`start_fraction` (f_i − f_j) over the listed pairs."""
    alpha = np.empty(i.shape[0])
    for p in range(i.shape[0]):
        alpha[p] = C * w[p] * start_fraction(f[i[p]] - f[j[p]], power, epsilon)
    return alpha


def _starting_point(alpha0, w, C, power, from_scores=None, i=None, j=None):
    """``alpha0`` clipped into the box (zeros when None), with α_p = 0 where w_p = 0; or, with
    ``from_scores = (f, ε)``, C w_p · :func:`start_fraction` of the pairs' score differences."""
    if from_scores is not None:
        f, epsilon = from_scores
        return _start_from_scores(i, j, w, np.ascontiguousarray(f, dtype=np.float64), C, power, float(epsilon))
    if alpha0 is None:
        return np.zeros(w.shape[0])
    alpha = np.maximum(np.asarray(alpha0, dtype=np.float64), 0.0)
    if power == 1:
        np.minimum(alpha, C * w, out=alpha)
    alpha[w <= 0] = 0.0
    return alpha


def dcd_solve(data, i, j, w, C, power, *, linear, tol, max_iter, shrinking=True, alpha0=None, from_scores=None,
              random_state=None, time_limit=None, verbose=False):
    """Solve the 1-norm (``power=1``) or 2-norm (``power=2``) AUC-SVM dual by dual coordinate descent.

    Parameters
    ----------
    data : ndarray of shape (n_points, n_points) or (n_points, n_features)
        The kernel matrix K, or the data X when ``linear`` (K = XXᵀ, never formed).
    i, j, w : ndarray of shape (n_pairs,)
        The pairs and their weights.
    C : float
        The loss weight.
    power : {1, 2}
        1 for the hinge (box 0 ≤ α ≤ C w), 2 for the squared hinge (ridge 1/(C w)).
    linear : bool
        Whether ``data`` is X (w = Xᵀc maintained) rather than K (f = Kc maintained).
    tol : float
        Stop when the projected-gradient gap max PG − min PG over all pairs is at most ``tol``.
    max_iter : int
        Epoch limit (an epoch is one pass over the active set).
    shrinking : bool, default=True
        Remove coordinates at a bound whose gradient points outward from the active set.
    alpha0 : ndarray of shape (n_pairs,), default=None
        A starting point, clipped into the box; None starts from α = 0.
    from_scores : tuple (f, epsilon), default=None
        In place of ``alpha0``: the dual point read off training scores f of shape (n_points,),
        α_p = C w_p · :func:`start_fraction` (f_i − f_j) (ε of the smoothed hinge for
        ``power=1``), e.g. the scores of a smoothed primal solved by Newton's method.
    random_state : int or None, default=None
        Seed of the per-epoch permutations.
    time_limit : float, default=None
        Seconds (a positive number; None: no limit); checked after each epoch.
    verbose : bool, default=False
        A progress bar over epochs with the gap and the active set's size.

    Returns
    -------
    alpha : ndarray of shape (n_pairs,)
    c : ndarray of shape (n_points,)
        Aᵀα.
    n_iter : int
        Epochs run.
    status : {"optimal", "iteration_limit", "time_limit"}
    gap : float
        The last epoch's projected-gradient gap.
    """
    time_limit = check_time_limit(time_limit)
    start = time.perf_counter()
    data = np.ascontiguousarray(data, dtype=np.float64)
    i = np.ascontiguousarray(i, dtype=np.int32)
    j = np.ascontiguousarray(j, dtype=np.int32)
    w = np.ascontiguousarray(w, dtype=np.float64)
    C, power, linear = float(C), int(power), bool(linear)
    n_pairs, n_points = i.shape[0], data.shape[0]
    qdiag = np.empty(n_pairs)
    _curvature(data, linear, i, j, w, C, power, qdiag)
    index_type = np.int32 if n_pairs < 2**31 else np.int64
    index = np.flatnonzero(w > 0).astype(index_type)
    n_full = index.shape[0]
    alpha = _starting_point(alpha0, w, C, power, from_scores, i, j)
    epoch_order = EpochOrder(index, np.random.default_rng(random_state))
    scores: list[np.ndarray] = []

    def refresh() -> int:
        c = expansion(alpha, i, j, n_points)
        scores[:] = [c, data.T @ c if linear else data @ c]
        return n_full

    def epoch(active: int, pg_old: tuple[float, float]) -> tuple[float, float, int, int]:
        epoch_order.shuffle(active)
        c, state = scores
        return _epoch(data, linear, i, j, w, C, power, qdiag, alpha, c, state, index, active, *pg_old)

    def polish(active: int) -> None:
        pnums = index[:active].astype(np.int64)
        a, b = i[pnums], j[pnums]
        new = restricted_optimum(data, linear, a, b, w[pnums], alpha[pnums], scores[1], C, power)
        apply_alpha(data, linear, a, b, pnums, new, alpha, scores[1], scores[0])

    refresh()
    n_iter, status, gap = run_epochs(epoch, refresh, n_full, tol=tol, max_iter=max_iter, shrinking=shrinking,
                                     time_limit=time_limit, start=start, verbose=verbose, polish=polish,
                                     row_length=data.shape[1], rank=data.shape[1] if linear else None)
    return alpha, expansion(alpha, i, j, n_points), n_iter, status, gap


class _Stall:
    """Whether the gap has stalled: not halved in ``STALL_EPOCHS`` epochs (doubled after each stall
    reported), on an active set whose exact step is cheap enough (:mod:`aucopt.svm._dcd_polish`:
    at most ``POLISH_MAX_PAIRS`` pairs, and predicted to cost at most ``POLISH_FREE_WORK`` or
    ``POLISH_SHARE`` of the epochs' work so far)."""

    def __init__(self, rank: int | None) -> None:
        self.reference, self.since, self.patience = np.inf, 0, _dcd_polish.STALL_EPOCHS
        self.rank = rank

    def affordable(self, active: int, work: float) -> bool:
        if active > _dcd_polish.POLISH_MAX_PAIRS:
            return False
        allowed = max(_dcd_polish.POLISH_FREE_WORK, _dcd_polish.POLISH_SHARE * work)
        return polish_work(active, self.rank) <= allowed

    def stalled(self, gap: float, active: int, work: float) -> bool:
        if gap <= 0.5 * self.reference or not self.affordable(active, work):
            self.reference, self.since = gap, 0
            return False
        self.since += 1
        if self.since < self.patience:
            return False
        self.reference, self.since, self.patience = np.inf, 0, 2 * self.patience
        return True


def run_epochs(epoch: Callable[[int, tuple[float, float]], tuple[float, float, int, int]], refresh: Callable[[], int],
               n_full: int, *, tol: float, max_iter: int, shrinking: bool, time_limit: float | None, start: float,
               verbose: bool, polish: Callable[[int], None] | None = None, row_length: int = 0,
               rank: int | None = None) -> tuple[int, str, float]:
    """The epochs of dual coordinate descent with shrinking, until the gap over all pairs is at most ``tol``.

    ``epoch(active, (pg_max_old, pg_min_old))`` passes over the active pairs and returns (max PG,
    min PG, active size, coordinates moved); ``refresh()`` recomputes the scores from α, makes every pair active
    and returns their number; ``polish(active)`` replaces α on the active pairs by the exact
    optimum of the dual restricted to them (:mod:`aucopt.svm._dcd_polish`), called when the gap
    has not halved in ``STALL_EPOCHS`` epochs (then twice as many before the next call) on an
    active set whose step is cheap enough against the epochs' work so far: ``row_length``
    multiply-adds for each coordinate that moved and ``rank`` (or 1) for each step (``rank``: the
    number of features for a linear kernel, None for a kernel matrix; see :class:`_Stall`).
    Returns (epochs, status, last gap).
    """
    bar = progress_bar(verbose, total=max_iter, desc="AUC-SVM dual coordinate descent", unit="epoch")
    status, gap, n_iter, active = "iteration_limit", np.inf, 0, n_full
    pg_old = (np.inf, -np.inf)
    stall, work = _Stall(rank), 0.0
    try:
        for n_epoch in range(1, max_iter + 1):
            n_iter = n_epoch
            steps = active
            pg_max, pg_min, active, moved = epoch(active, pg_old)
            # a moved coordinate updates a row of n (or d) numbers; every step reads its gradient
            work += float(moved) * row_length + float(steps) * (rank or 1)
            gap = float(pg_max - pg_min) if pg_max >= pg_min else 0.0
            if bar is not None:
                bar.update(1)
                bar.set_postfix(gap=f"{gap:.2e}", active=f"{active:,}")
            if gap <= tol:
                if active == n_full:
                    status = "optimal"
                    break
                # converged on the active set: recompute the scores from α, restore all pairs, re-check
                active, pg_old = refresh(), (np.inf, -np.inf)
            else:
                if shrinking:
                    pg_old = (pg_max if pg_max > 0.0 else np.inf, pg_min if pg_min < 0.0 else -np.inf)
                if polish is not None and stall.stalled(gap, active, work):
                    polish(active)
            if time_limit is not None and time.perf_counter() - start >= time_limit:
                status = "time_limit"
                break
    finally:
        if bar is not None:
            bar.close()
    return n_iter, status, gap
