"""Compiled stream kernels of :class:`~aucopt.online.OnePassAUC` with full covariances (no sketch).

Private to :mod:`aucopt.online._onepass`. Same arguments, state and return codes as
:func:`~aucopt.online._onepass_kernels.stream_dense` / ``stream_csr`` (see that module), which
remain the kernels of a sketch; a row whose weight is not 1 is handed to the general
per-row update ``_example`` of that module.

Where the time goes at d = 22 (ijcnn1), per unit-weight row (CPU time, measured by removing
one part at a time): the covariance update of the row's class ~70 ns and the product S_o w with
the other class's covariance ~70 ns (d² multiply-adds each; ~90 ns each before the padding
below), the O(d) passes ~130 ns (a chain of dependent steps: each waits for the last update of
w). The general kernel also sums the diagonal of S_o at every step and makes each O(d) pass
separately. Here:

* dense rows (:func:`stream_dense_full`): tr(S_k) is summed while S_k is updated and kept per
  class; the O(d) passes are fused (the deviation u with uᵀu and uᵀw; the step with the new
  score); S_o w is Σ_a S_o[a, :] w_a (S_o is symmetric to the last bit: the general kernel's
  Sᵀw, term by term), in its own pass (fused with the update it vectorizes worse). The d²
  passes run over local copies of S_0, S_1 and w whose rows are padded with zeros to a multiple
  of four doubles: at d = 22 the compiled loops otherwise finish each row in scalar code
  (16 elements in vector registers, 6 one by one), which made them about 15 % slower. The
  padding adds exact zeros only, and the arithmetic is the general kernel's, operation for
  operation: the results are equal bit for bit.
* CSR rows (:func:`stream_csr_full`): the Welford update of S_k is dense (δ = x − c_k has d
  nonzeros), d² per row. Here each class keeps instead its second moment
  M_k = Σ v x xᵀ (a sparse row adds nnz² terms) and S_o w = M_o w / T_o − c_o (c_oᵀ w), with
  M = T (S + c cᵀ) at entry and S = M / T − c cᵀ at exit (and before any closed-form row).
  This uncentred form loses about log10(max second moment / max variance) digits to
  cancellation, so the caller takes it only when that ratio is small (:func:`moment_ratio`);
  the means are the same Welford means as the dense rows'. M's rows are padded with zeros as
  the dense kernel's are (1.19× on a9a, d = 123, the same results bit for bit).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .._numba import njit
from ._onepass_kernels import CLOSED_FORM, DIVERGED, OK, _example, _needs_closed_form

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = ["MAX_MOMENT_RATIO", "moment_ratio", "stream_csr_full", "stream_dense_full"]

_DIVERGED = 1e8  # |wᵀ(x − c)| above this means the iteration has diverged (as in _onepass_kernels)
_INT64_MAX = np.iinfo(np.int64).max
#: the d² passes run over rows padded with zeros to a multiple of this many doubles (one AVX2
#: register): the compiled loops then have no scalar remainder
_LANES = 4
#: the CSR kernel's uncentred second moments are used while max E[x²] / max Var[x] stays below this
#: (about 3 of the 16 digits lost to cancellation, far below the 1e-12 the results are held to)
MAX_MOMENT_RATIO = 1e3


# ============================================================================ dense rows
@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)
def _trace(S):  # pragma: no cover - compiled
    """tr(S), summed in the order of the diagonal (as the general kernel does)."""
    total = 0.0
    for a in range(S.shape[0]):
        total += S[a, a]
    return total


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)
def _traces(cov):  # pragma: no cover - compiled
    out = np.empty(2)
    for k in range(2):
        out[k] = _trace(cov[k])
    return out


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)
def _padded(d):  # pragma: no cover - compiled
    """d rounded up to a multiple of ``_LANES``."""
    return (d + _LANES - 1) // _LANES * _LANES


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)
def _copy_rows(source, target, d):  # pragma: no cover - compiled
    """target[k, a, :d] = source[k, a, :d] for the two classes (padded ↔ unpadded covariances)."""
    for k in range(2):
        for a in range(d):
            for b in range(d):
                target[k, a, b] = source[k, a, b]


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)
def stream_dense_full(X, slots, weights, R, alpha, eta, auto, count, mean, cov, sketch, sketch_sum,  # noqa: C901, PLR0915 - one row's passes written out, sharing locals
                      coef, coef_avg, scalars, counters, start):  # pragma: no cover  # long: one fused row update
    """Stream the rows ``start:`` of a dense C-contiguous X (full covariances; see the module docstring)."""
    n, d = X.shape
    width = _padded(d)  # the row length of the d² passes
    padded = np.zeros((2, d, width))  # S_0, S_1 with zero columns d:width (copied back on return)
    _copy_rows(cov, padded, d)
    w = np.zeros(width)  # the iterate, padded with zeros (copied back on return)
    w[:d] = coef
    diff = np.zeros(width)
    g = np.zeros(width)
    u = np.empty(d)
    v = np.empty(0)
    r = np.empty(0)
    trace = _traces(cov)  # tr(S_0), tr(S_1), kept up to date
    status = OK
    counters[1] = n
    for i in range(start, n):
        x = X[i]
        k = slots[i]
        o = 1 - k
        if weights[i] != 1.0:  # weighted Welford update and ⌊v⌋ + 1 steps: the general update
            _copy_rows(padded, cov, d)
            coef[:] = w[:d]
            status = _example(x, k, weights[i], r, alpha, eta, auto, count, mean, cov, sketch, sketch_sum,
                              coef, coef_avg, scalars, counters, diff[:d], u, g[:d], v)
            _copy_rows(cov, padded, d)
            w[:d] = coef
            if status != OK:
                counters[1] = i
                return status
            trace[k] = _trace(cov[k])
            continue
        mk = mean[k]
        for a in range(d):
            diff[a] = x[a] - mk[a]
        count[k] += 1.0
        T = count[k]
        for a in range(d):
            mk[a] += diff[a] / T
        keep, new = (T - 1.0) / T, (T - 1.0) / (T * T)
        ck = padded[k]
        co = padded[o]
        trace_k = 0.0
        for a in range(d):  # S_k ← keep·S_k + new·δδᵀ, and tr(S_k) on the way (in the order of a)
            da = diff[a]
            rk = ck[a]
            for b in range(width):  # the padding stays 0 (δ is 0 there)
                rk[b] = rk[b] * keep + new * (da * diff[b])
            trace_k += rk[a]
        trace[k] = trace_k
        if count[o] == 0.0:  # no step while the other class is empty
            continue
        for a in range(width):
            g[a] = 0.0
        for a in range(d):  # g = S_o w as Σ_a S_o[a, :] w_a (S_o is symmetric: the general kernel's Sᵀw)
            wa = w[a]
            ro = co[a]
            for b in range(width):
                g[b] += ro[b] * wa
        sign = 2.0 * k - 1.0
        mo = mean[o]
        uu = 0.0
        uw = 0.0
        for a in range(d):
            ua = x[a] - mo[a]
            u[a] = ua
            uu += ua * ua
            uw += ua * w[a]
        if auto:  # the scale-free step 1/L, L the running maximum of α + ‖u‖² + tr(S_o)
            bound = alpha + uu + trace[o]
            if bound > scalars[1]:
                scalars[1] = bound
        L = scalars[1]
        score = 0.0
        for a in range(d):
            ga = alpha * w[a] - sign * u[a] + u[a] * uw + g[a]
            if auto:
                w[a] -= ga / L
            else:
                w[a] -= eta * ga
            score += u[a] * w[a]
        if counters[0] < _INT64_MAX:
            counters[0] += 1
        scalars[0] += 1.0
        if not math.isfinite(score) or abs(score) > _DIVERGED:
            scalars[2] = score
            counters[1] = i
            status = DIVERGED
            break
        total = scalars[0]
        for a in range(d):
            coef_avg[a] += (w[a] - coef_avg[a]) / total
    _copy_rows(padded, cov, d)
    coef[:] = w[:d]
    return status


# ============================================================================ CSR rows
@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)
def _to_moments(count, mean, cov, M):  # pragma: no cover - compiled
    """M_k = T_k (S_k + c_k c_kᵀ) (zero for an empty class)."""
    d = mean.shape[1]
    for k in range(2):
        T = count[k]
        for a in range(d):
            ca = mean[k, a]
            for b in range(d):
                M[k, a, b] = T * (cov[k, a, b] + ca * mean[k, b]) if T > 0.0 else 0.0


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)
def _to_covariances(count, mean, M, cov):  # pragma: no cover - compiled
    """S_k = M_k / T_k − c_k c_kᵀ (left as it is for an empty class)."""
    d = mean.shape[1]
    for k in range(2):
        T = count[k]
        if T > 0.0:
            for a in range(d):
                ca = mean[k, a]
                for b in range(d):
                    cov[k, a, b] = M[k, a, b] / T - ca * mean[k, b]


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)
def _moment_trace(o, count, mean, M):  # pragma: no cover - compiled
    """tr(S_o) = Σ_a (M_o[a, a] / T_o − c_a²)."""
    inv = 1.0 / count[o]
    total = 0.0
    for a in range(mean.shape[1]):
        total += M[o, a, a] * inv - mean[o, a] * mean[o, a]
    return total


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)
def _moment_matvec(o, w, count, mean, M, g):  # pragma: no cover - compiled
    """g = S_o w = (M_o w) / T_o − c_o (c_oᵀ w), M_o w as Σ_a M_o[a, :] w_a (M_o is symmetric;
    no reduction in the inner loop, which vectorizes). ``g`` has M's padded row length (its
    entries from d on are left 0)."""
    d = w.shape[0]
    Mo = M[o]
    width = Mo.shape[1]  # M's rows are padded with zeros (see stream_csr_full)
    c = mean[o]
    for b in range(width):
        g[b] = 0.0
    cw = 0.0
    for a in range(d):
        wa = w[a]
        cw += c[a] * wa
        row = Mo[a]
        for b in range(width):
            g[b] += row[b] * wa
    inv = 1.0 / count[o]
    for b in range(d):
        g[b] = g[b] * inv - c[b] * cw


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)
def _add_row(k, weight, x, cols, vals, count, mean, M, diff):  # pragma: no cover - compiled
    """Class k takes the row x (weight v): the Welford mean of the dense rows, and M_k += v x xᵀ
    over the row's stored entries (repeated indices add up, as in toarray)."""
    d = x.shape[0]
    mk = mean[k]
    for a in range(d):
        diff[a] = x[a] - mk[a]
    if weight == 1.0:
        count[k] += 1.0
        T = count[k]
        for a in range(d):
            mk[a] += diff[a] / T
    else:
        count[k] += weight
        after = count[k]
        for a in range(d):
            mk[a] += diff[a] * weight / after
    Mk = M[k]
    for p in range(cols.shape[0]):
        a = cols[p]
        va = vals[p] * weight
        for q in range(cols.shape[0]):
            Mk[a, cols[q]] += va * vals[q]


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)
def _moment_steps(x, k, weight, alpha, eta, auto, count, mean, M, coef, coef_avg, scalars, counters, u,
                  g):  # pragma: no cover - compiled
    """The step bound, then the steps of a row of class k (weight v ≤ 32 steps: ⌊v⌋ steps of
    size η and one of (v − ⌊v⌋)·η, each weighing its fraction in the average)."""
    d = x.shape[0]
    o = 1 - k
    sign = 2.0 * k - 1.0
    mo = mean[o]
    uu = 0.0
    for a in range(d):
        ua = x[a] - mo[a]
        u[a] = ua
        uu += ua * ua
    if auto:
        bound = alpha + uu + _moment_trace(o, count, mean, M)
        if bound > scalars[1]:
            scalars[1] = bound
        eta = 1.0 / scalars[1]
    full = math.floor(weight)
    n_full = int(full)
    fraction = weight - full
    for t in range(n_full + (1 if fraction > 0.0 else 0)):
        step = 1.0 if t < n_full else fraction
        _moment_matvec(o, coef, count, mean, M, g)
        uw = 0.0
        for a in range(d):
            uw += u[a] * coef[a]
        scale = eta * step
        score = 0.0
        for a in range(d):
            coef[a] -= scale * (alpha * coef[a] - sign * u[a] + u[a] * uw + g[a])
            score += u[a] * coef[a]
        if counters[0] < _INT64_MAX:
            counters[0] += 1
        scalars[0] += step
        if not math.isfinite(score) or abs(score) > _DIVERGED:
            scalars[2] = score
            return DIVERGED
        share = step / scalars[0]
        for a in range(d):
            coef_avg[a] += (coef[a] - coef_avg[a]) * share
    return OK


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)
def stream_csr_full(indptr, indices, data, slots, weights, R, alpha, eta, auto, count, mean, cov, sketch,
                    sketch_sum, coef, coef_avg, scalars, counters, start):  # pragma: no cover - compiled
    """Stream the rows ``start:`` of a CSR matrix (int64 ``indptr`` / ``indices``) through the
    classes' second moments (full covariances; see the module docstring)."""
    d = mean.shape[1]
    n = slots.shape[0]
    M = np.zeros((2, d, _padded(d)))  # rows padded with zeros, as the dense kernel's covariances
    _to_moments(count, mean, cov, M)
    x = np.zeros(d)  # the current row, scattered
    diff = np.empty(d)
    u = np.empty(d)
    g = np.zeros(M.shape[2])
    status = OK
    for i in range(start, n):
        lo, hi = indptr[i], indptr[i + 1]
        cols, vals = indices[lo:hi], data[lo:hi]
        for p in range(cols.shape[0]):
            x[cols[p]] += vals[p]
        k = slots[i]
        weight = weights[i]
        _add_row(k, weight, x, cols, vals, count, mean, M, diff)
        if count[1 - k] != 0.0:  # no step while the other class is empty
            if weight != 1.0 and _needs_closed_form(weight, d, 0):
                status = CLOSED_FORM  # the bound first: the caller takes the steps in closed form
                _moment_steps(x, k, 0.0, alpha, eta, auto, count, mean, M, coef, coef_avg, scalars,
                              counters, u, g)
            else:
                status = _moment_steps(x, k, weight, alpha, eta, auto, count, mean, M, coef, coef_avg,
                                       scalars, counters, u, g)
        for p in range(cols.shape[0]):
            x[cols[p]] = 0.0
        if status != OK:
            counters[1] = i
            _to_covariances(count, mean, M, cov)
            return status
    counters[1] = n
    _to_covariances(count, mean, M, cov)
    return OK


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)
def _row_sums(indptr, indices, data, slots, weights, d):  # pragma: no cover - compiled
    """Per class: the total weight, Σ v x and Σ v x² over the CSR rows (repeated indices of a row
    add up first)."""
    totals = np.zeros(2)
    first = np.zeros((2, d))
    second = np.zeros((2, d))
    x = np.zeros(d)
    seen = np.full(d, -1)
    for i in range(slots.shape[0]):
        k = slots[i]
        v = weights[i]
        totals[k] += v
        for p in range(indptr[i], indptr[i + 1]):
            x[indices[p]] += data[p]
        for p in range(indptr[i], indptr[i + 1]):
            a = indices[p]
            if seen[a] != i:
                seen[a] = i
                first[k, a] += v * x[a]
                second[k, a] += v * x[a] * x[a]
        for p in range(indptr[i], indptr[i + 1]):
            x[indices[p]] = 0.0
    return totals, first, second


def moment_ratio(count: np.ndarray, mean: np.ndarray, cov: np.ndarray, X: sp.csr_matrix, slots: np.ndarray,
                 weights: np.ndarray) -> float:
    """max E[x²] / max Var[x] over the features, at worst over the two classes, of the examples
    streamed so far and the rows of X (the digits the uncentred moments lose; inf with no spread)."""
    d = mean.shape[1]
    totals, sums, squares = _row_sums(X.indptr.astype(np.int64), X.indices.astype(np.int64),
                                      np.asarray(X.data, dtype=np.float64), np.asarray(slots, dtype=np.int64),
                                      np.asarray(weights, dtype=np.float64), d)
    worst = 1.0
    for k in (0, 1):
        total = count[k] + totals[k]
        if total == 0:
            continue
        first = (count[k] * mean[k] + sums[k]) / total
        second = (count[k] * (np.diagonal(cov[k]) + mean[k] ** 2) + squares[k]) / total
        top = second.max()
        spread = (second - first ** 2).max()
        if top > 0.0:
            worst = max(worst, top / spread if spread > 0.0 else np.inf)
    return float(worst)
