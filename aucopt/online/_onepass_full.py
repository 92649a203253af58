"""Compiled stream kernels of :class:`~aucopt.online.OnePassAUC` with full covariances (no sketch).

Private to :mod:`aucopt.online._onepass`. Same arguments, state and return codes as
:func:`~aucopt.online._onepass_kernels.stream_dense` / ``stream_csr`` (see that module), which
remain the kernels of a sketch (the dense kernel takes one more, last: the classes' scatter
matrices); a row whose weight is not 1 is handed to the general per-row update ``_example`` of
that module.

Where the time goes at d = 22 (ijcnn1), per unit-weight row: the covariance update of the row's
class and the product S_o w with the other class's covariance (d² multiply-adds each), and the
O(d) passes (a chain of dependent steps: each waits for the last update of w). numba's loops over
rows of 22 doubles spend much of their time entering and leaving each short row (alias checks,
remainders), so the d² passes are intrinsics that emit vector code (:mod:`aucopt.online._simd`),
and the dense kernel arranges them to enter fewer rows:

* dense rows (:func:`stream_dense_full`): each class keeps its scatter matrix M_k = T_k S_k, to
  which Welford's update adds ((T − 1)/T)·δδᵀ = D Dᵀ with D = √((T − 1)/T)·δ: one fused
  multiply-add per entry (D_a·D_b, so M stays symmetric to the last bit), where S_k's update
  takes a multiply and a multiply-add. A class's M is needed only by the other class's steps, so
  its rows are added when a row of the other class (or a weighted row) comes, or four at a time
  (:data:`~aucopt.online._simd.add_rows`, the block of each row held in registers), each entry
  taking them one after the other: the same operations as row by row, only fewer passes.
  S_o w = M_o w / T_o, with up to 24 columns of M_o w held in registers per pass down M_o's rows
  (:data:`~aucopt.online._simd.scatter_product`: 35 against 70-100 ns at d = 22 for numba's
  loops). The O(d) passes are fused (δ, the mean, u = x − c_o, uᵀu and uᵀw in one; the step with
  the new score in another), their sums reassociated by the compiler. All passes run over rows
  padded with zeros to a multiple of four doubles (one AVX2 register): the d² passes over M's
  rows, the O(d) passes over padded copies of the iterate, its average, the means and the row
  (at d = 22, a scalar remainder of 6 entries per pass otherwise).
  The scatter matrices persist between calls (``OnePassAUC._class_scatter``), so a stream cut into
  chunks takes the same steps to the last bit as the stream whole; a class's is rebuilt from
  ``class_cov_`` whenever that is not M_k / T_k (the first call, CSR rows streamed in between, a
  covariance set by hand). The results equal the general kernel's to rounding (about 1e-14
  relative on ijcnn1; the tests hold them to 1e-12).
* CSR rows (:func:`stream_csr_full`): the Welford update of S_k is dense (δ = x − c_k has d
  nonzeros), d² per row. Here each class keeps instead its second moment
  M_k = Σ v x xᵀ (a sparse row adds nnz² terms) and S_o w = M_o w / T_o − c_o (c_oᵀ w), with
  M = T (S + c cᵀ) at entry and S = M / T − c cᵀ at exit (and before any closed-form row).
  This uncentred form loses about log10(max second moment / max variance) digits to
  cancellation, so the caller takes it only when that ratio is small (:func:`moment_ratio`);
  the means are Welford means, as the dense rows'. At d = 123 (a9a) the product S_o w
  streams M_o (122 KB) from the L2 cache at every step and takes about two thirds of a row's time,
  so M_k is kept as U, its upper triangle with the diagonal halved (M_k = U + Uᵀ exactly), rows
  and columns padded with zeros to a multiple of four, and the product reads U's 4 × 4 tiles on
  and above the diagonal once each (:data:`aucopt.online._simd.symmetric_product`): half the
  reads, about 1.2× on a9a (in turn in one process), the covariances to the same bits. Only
  those tiles are stored, packed row block by row block (:func:`aucopt.online._simd.packed_index`),
  so the product reads them in one stream: half the memory, and 1-9 % more. Around the product
  (half of a row's time on a9a by the cycle counter; the row's pairs into M_k took 17 %, the O(d)
  passes 17 % and the trace 4 % before the changes below), each row makes two O(d) passes and
  one over its stored pairs:

  - the row pass (:func:`_row_pass`): Welford's step of its class's mean (one multiplication by
    v/T per entry), u = x − c_o and the sums ‖c_k‖², uᵀu, uᵀw, c_oᵀw;
  - its pairs (:func:`_add_outer`): a row with increasing column indices (scipy's canonical form)
    adds each pair a < b of M_k once, at its row's place plus the column's offset
    (:func:`aucopt.online._simd.packed_column`, computed once per row), instead of testing all
    nnz² pairs and computing each packed index;
  - the step pass (:func:`_moment_steps`): S_o w, the step, the padded copy of w, the score and
    the average.

  The step bound's tr(S_o) = tr(M_o) / T_o − ‖c_o‖² takes two sums each class keeps (its
  diagonal's increments, and ‖c_k‖² from the row pass) instead of a pass over M_o's diagonal, and
  the passes' sums may be reassociated (so they vectorize). The kernel alone: 1,504–1,555 against
  1,586–1,631 ns a row for the passes fused, and 1.1× before that for the pairs' offsets, the
  one-pass mean and the kept sums (in turn in one process); 2e-15 relative from the code before.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from .._numba import njit
from ._onepass_kernels import CLOSED_FORM, DIVERGED, OK, _example, _needs_closed_form
from ._simd import (
    _LANES,
    GROUP,
    add_rows,
    packed_column,
    packed_index,
    packed_size,
    row_blocks,
    scatter_product,
    symmetric_product,
)

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = ["MAX_MOMENT_RATIO", "aligned_scatter", "finite_largest_magnitude", "moment_ratio", "padded_width",
           "scatter_shape", "stream_csr_full", "stream_dense_full"]

_DIVERGED = 1e8  # |wᵀ(x − c)| above this means the iteration has diverged (as in _onepass_kernels)
_INT64_MAX = np.iinfo(np.int64).max
#: the CSR kernel's uncentred second moments are used while max E[x²] / max Var[x] stays below this
#: (about 3 of the 16 digits lost to cancellation, far below the 1e-12 the results are held to)
MAX_MOMENT_RATIO = 1e3


# ============================================================================ dense rows
@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)
def _largest_magnitude_bits(X):  # pragma: no cover - compiled
    """The largest of the bit patterns of |x| over a C-contiguous X, as an integer: for float64
    these order as the values, with inf above every finite value and NaN above inf."""
    bits = X.reshape(-1).view(np.int64)
    top = 0
    for i in range(bits.shape[0]):
        b = bits[i] & 0x7FFFFFFFFFFFFFFF
        top = b if b > top else top
    return top


def finite_largest_magnitude(X: np.ndarray) -> float | None:
    """The largest ``|x|`` of a C-contiguous float64 X when every entry is finite, else None: one
    compiled pass, where :func:`aucopt._validation.largest_magnitude` (numpy, kept free of numba for
    the estimators that need none) and a finiteness check take three."""
    magnitude = float(np.array([_largest_magnitude_bits(X)], dtype=np.int64).view(np.float64)[0])
    return magnitude if math.isfinite(magnitude) else None


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)
def _trace(M):  # pragma: no cover - compiled
    """tr(M), summed in the order of the diagonal."""
    total = 0.0
    for a in range(M.shape[0]):
        total += M[a, a]
    return total


def padded_width(d: int) -> int:
    """d rounded up to a multiple of four (one AVX2 register of doubles): the row length of the d²
    passes, which need it, and of the O(d) loops' padded vectors, which then have no scalar remainder."""
    return row_blocks(d) * _LANES


_padded = njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)(padded_width)


def scatter_shape(d: int) -> tuple[int, int, int]:
    """The shape of the two classes' scatter matrices of :func:`stream_dense_full` (rows padded)."""
    return (2, d, padded_width(d))


def aligned_scatter(d: int, M: np.ndarray | None = None) -> np.ndarray:
    """Scatter matrices for d features whose data start on a cache line (64 bytes), zero or a copy
    of M. numpy aligns small arrays to 16 bytes only; a start off the line makes vector loads of the
    d² passes straddle two lines (a start 8 bytes in: 2.2 against 3.4-3.6 M rows/s on ijcnn1). The
    arrays the compiled kernels make are aligned by numba (32 bytes)."""
    shape = scatter_shape(d)
    size = shape[0] * shape[1] * shape[2]
    buf = np.zeros(size + 8)
    start = (-buf.ctypes.data % 64) // 8
    out = buf[start:start + size].reshape(shape)
    if M is not None:
        out[...] = M
    return out


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)
def _sync_scatter(count, cov, M):  # pragma: no cover - compiled
    """M_k ← T_k S_k for a class whose covariance is not M_k / T_k (the first call, or S_k set by
    another kernel or by hand); M_k as it stands otherwise, to the last bit."""
    d = cov.shape[1]
    for k in range(2):
        T = count[k]
        same = True
        for a in range(d):
            for b in range(d):
                if (M[k, a, b] / T if T > 0.0 else M[k, a, b]) != cov[k, a, b]:
                    same = False
        if not same:
            M[k] = 0.0
            _covariance_to_scatter(k, count, cov, M)


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)
def _covariance_to_scatter(k, count, cov, M):  # pragma: no cover - compiled
    """M_k = T_k S_k over the d columns (zero for an empty class; the padding columns left as they are)."""
    T = count[k]
    for a in range(cov.shape[1]):
        for b in range(cov.shape[2]):
            M[k, a, b] = cov[k, a, b] * T if T > 0.0 else 0.0


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)
def _scatter_to_covariance(k, count, M, cov):  # pragma: no cover - compiled
    """S_k = M_k / T_k (left as it is for an empty class)."""
    T = count[k]
    if T > 0.0:
        for a in range(cov.shape[1]):
            for b in range(cov.shape[2]):
                cov[k, a, b] = M[k, a, b] / T


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)
def _pad(coef, coef_avg, mean, w, avg, means):  # pragma: no cover - compiled
    """The iterate, its average and the means into :func:`stream_dense_full`'s padded copies (their
    padding left as it is: zero)."""
    d = coef.shape[0]
    w[:d] = coef
    avg[:d] = coef_avg
    means[:, :d] = mean


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)
def _unpad(w, avg, means, coef, coef_avg, mean):  # pragma: no cover - compiled
    """The padded copies of :func:`stream_dense_full` back into the caller's iterate, average and means."""
    d = coef.shape[0]
    coef[:] = w[:d]
    coef_avg[:] = avg[:d]
    mean[:, :] = means[:, :d]


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)
def _weighted_row(x, k, weight, alpha, eta, auto, count, mean, cov, coef, coef_avg, scalars, counters, M, trace, w,
                  avg, means, work):  # pragma: no cover - compiled
    """A row whose weight is not 1 (weighted Welford update and ⌊v⌋ + 1 steps) by the general update
    ``_example``: the state is copied out of :func:`stream_dense_full`'s padded vectors and scatter
    matrices first, and back after."""
    d = mean.shape[1]
    _scatter_to_covariance(0, count, M, cov)
    _scatter_to_covariance(1, count, M, cov)
    _unpad(w, avg, means, coef, coef_avg, mean)
    diff, u, g = work
    none = np.empty(0)
    status = _example(x, k, weight, none, alpha, eta, auto, count, mean, cov, np.empty((2, d, 0)), np.empty((2, 0)),
                      coef, coef_avg, scalars, counters, diff, u, g, none)
    _covariance_to_scatter(k, count, cov, M)
    trace[k] = _trace(M[k])
    _pad(coef, coef_avg, mean, w, avg, means)
    return status


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False, fastmath={"contract", "reassoc"})
def stream_dense_full(X, slots, weights, R, alpha, eta, auto, count, mean, cov, sketch, sketch_sum,  # noqa: PLR0915 - one row's passes written out, sharing locals
                      coef, coef_avg, scalars, counters, start, M):  # pragma: no cover  # long: one fused row update
    """Stream the rows ``start:`` of a dense C-contiguous X (full covariances through the classes'
    scatter matrices ``M``, shape :func:`scatter_shape`; see the module docstring)."""
    n, d = X.shape
    width = M.shape[2]
    _sync_scatter(count, cov, M)
    trace = np.array([_trace(M[0]), _trace(M[1])])  # tr(M_0), tr(M_1), as of the rows added to them
    # the iterate, its average, the means and the row, padded with zeros to the width of M's rows
    # (copied back on return): every O(d) pass then runs whole vectors, with no scalar remainder
    w, avg, means = np.zeros(width), np.zeros(width), np.zeros((2, width))
    _pad(coef, coef_avg, mean, w, avg, means)
    xp = np.zeros(width)
    D = np.zeros((GROUP, width))  # the pending rows √((T − 1)/T)·δ of class `pending` (zero padding)
    pending = 0
    n_pending = 0
    h = np.zeros(width)
    u = np.zeros(width)
    work = (np.empty(d), np.empty(d), np.empty(d))  # the general update's work vectors
    status = OK
    counters[1] = n
    for i in range(start, n):
        x = X[i]
        k = slots[i]
        o = 1 - k
        weight = weights[i]
        if n_pending > 0 and (pending != k or n_pending == GROUP or weight != 1.0):
            add_rows(M[pending], D, n_pending, d)
            trace[pending] = _trace(M[pending])
            n_pending = 0
        if weight != 1.0:  # weighted Welford update and ⌊v⌋ + 1 steps: the general update
            status = _weighted_row(x, k, weight, alpha, eta, auto, count, mean, cov, coef, coef_avg, scalars,
                                   counters, M, trace, w, avg, means, work)
            if status != OK:
                counters[1] = i
                break
            continue
        for a in range(d):
            xp[a] = x[a]
        mk = means[k]
        mo = means[o]
        count[k] += 1.0
        T = count[k]
        root = math.sqrt((T - 1.0) / T)  # M_k gains (x − c_old)(x − c_new)ᵀ = ((T − 1)/T)·δδᵀ
        Dt = D[n_pending]
        uu = 0.0
        uw = 0.0
        for a in range(width):  # δ, the mean of class k, u = x − c_o, uᵀu and uᵀw in one pass
            xa = xp[a]
            da = xa - mk[a]
            mk[a] += da / T  # (a division: the general kernel's means, to the last bit)
            Dt[a] = root * da
            ua = xa - mo[a]
            u[a] = ua
            uu += ua * ua
            uw += ua * w[a]
        pending = k
        n_pending += 1
        if count[o] == 0.0:  # no step while the other class is empty
            continue
        scatter_product(M[o], w, h, d)  # S_o w = M_o w / T_o (class o has no pending rows)
        inv = 1.0 / count[o]
        if auto:  # the scale-free step 1/L, L the running maximum of α + ‖u‖² + tr(S_o)
            bound = alpha + uu + trace[o] * inv
            if bound > scalars[1]:
                scalars[1] = bound
            step = 1.0 / scalars[1]
        else:
            step = eta
        sign = 2.0 * k - 1.0
        score = 0.0
        for a in range(width):
            ua = u[a]
            w[a] -= step * (alpha * w[a] - sign * ua + ua * uw + h[a] * inv)
            score += ua * w[a]
        if counters[0] < _INT64_MAX:
            counters[0] += 1
        scalars[0] += 1.0
        if not math.isfinite(score) or abs(score) > _DIVERGED:
            scalars[2] = score
            counters[1] = i
            status = DIVERGED
            break
        share = 1.0 / scalars[0]
        for a in range(width):
            avg[a] += (w[a] - avg[a]) * share
    if n_pending > 0:
        add_rows(M[pending], D, n_pending, d)
    _scatter_to_covariance(0, count, M, cov)
    _scatter_to_covariance(1, count, M, cov)
    _unpad(w, avg, means, coef, coef_avg, mean)
    return status


# ============================================================================ CSR rows
@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)
def _to_moments(count, mean, cov, M):  # pragma: no cover - compiled
    """M_k = T_k (S_k + c_k c_kᵀ) (zero for an empty class), stored as U, its upper triangle with the
    diagonal halved (M_k = U + Uᵀ), in packed tiles (``M`` zero on entry)."""
    d = mean.shape[1]
    nb = row_blocks(d)
    for k in range(2):
        T = count[k]
        if T > 0.0:
            for a in range(d):
                ca = mean[k, a]
                for b in range(a, d):
                    m = T * (cov[k, a, b] + ca * mean[k, b])
                    M[k, packed_index(a, b, nb)] = m if b > a else 0.5 * m


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)
def _to_covariances(count, mean, M, cov):  # pragma: no cover - compiled
    """S_k = M_k / T_k − c_k c_kᵀ with M_k = U + Uᵀ (left as it is for an empty class)."""
    d = mean.shape[1]
    nb = row_blocks(d)
    for k in range(2):
        T = count[k]
        if T > 0.0:
            for a in range(d):
                ca = mean[k, a]
                for b in range(d):
                    u = M[k, packed_index(min(a, b), max(a, b), nb)]
                    cov[k, a, b] = (u + u if a == b else u) / T - ca * mean[k, b]


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False)
def _trace_parts(mean, M, parts):  # pragma: no cover - compiled
    """``parts[k] = (tr M_k, ‖c_k‖²)``, so that tr(S_k) = tr(M_k) / T_k − ‖c_k‖² (M_k[a, a] = 2 U[a, a])."""
    d = mean.shape[1]
    nb = row_blocks(d)
    for k in range(2):
        diagonal = 0.0
        squares = 0.0
        for a in range(d):
            diagonal += 2.0 * M[k, packed_index(a, a, nb)]
            squares += mean[k, a] * mean[k, a]
        parts[k, 0] = diagonal
        parts[k, 1] = squares


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False, inline="always")
def _row_pass(x, mk, share, mo, w, u):  # pragma: no cover - compiled
    """A row's one O(d) pass before its steps: Welford's step of its class's mean, c_k += (x − c_k)·v/T_k
    (``share`` = v / T_k), and u = x − c_o; returns ‖c_k‖², uᵀu, uᵀw and c_oᵀw."""
    squares = uu = uw = cw = 0.0
    for a in range(x.shape[0]):
        xa = x[a]
        ca = mk[a] + (xa - mk[a]) * share
        mk[a] = ca
        squares += ca * ca
        oa = mo[a]
        ua = xa - oa
        u[a] = ua
        uu += ua * ua
        uw += ua * w[a]
        cw += oa * w[a]
    return squares, uu, uw, cw


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False, inline="always")
def _increasing(cols):  # pragma: no cover - compiled
    """Whether a row's column indices increase (scipy's canonical form: no repeated index)."""
    increasing = True
    for p in range(1, cols.shape[0]):
        increasing &= cols[p - 1] < cols[p]
    return increasing


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False, inline="always")
def _add_outer(k, weight, cols, vals, M, offsets, parts):  # pragma: no cover - compiled
    """M_k += v x xᵀ over the row's stored entries (repeated indices add up, as in toarray), in U:
    the pairs above the diagonal, and half of each diagonal one (an exact halving); tr M_k
    (``parts[k, 0]``) by the diagonal's increments."""
    Mk = M[k]
    nb = row_blocks(offsets.shape[0])  # offsets: d entries
    nnz = cols.shape[0]
    diagonal = 0.0
    if _increasing(cols):  # each pair a < b once, from p < q: the same products
        for q in range(nnz):
            offsets[q] = packed_column(cols[q])
        for p in range(nnz):
            va = vals[p] * weight
            row = packed_index(cols[p], cols[p], nb) - offsets[p]  # entry (a, b) at row + offsets[b's place]
            Mk[row + offsets[p]] += 0.5 * (va * vals[p])
            diagonal += va * vals[p]
            for q in range(p + 1, nnz):
                Mk[row + offsets[q]] += va * vals[q]
        parts[k, 0] += diagonal
        return
    for p in range(nnz):
        a = cols[p]
        va = vals[p] * weight
        for q in range(nnz):
            b = cols[q]
            if a < b:
                Mk[packed_index(a, b, nb)] += va * vals[q]
            elif a == b:
                Mk[packed_index(a, a, nb)] += 0.5 * (va * vals[q])
                diagonal += va * vals[q]
    parts[k, 0] += diagonal


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False, inline="always")
def _moment_steps(k, weight, alpha, eta, auto, count, mean, M, coef, coef_avg, scalars, counters, u, g, wp, parts,
                  uu, uw, cw):  # pragma: no cover - compiled
    """The step bound, then the steps of a row of class k (weight v ≤ 32 steps: ⌊v⌋ steps of
    size η and one of (v − ⌊v⌋)·η, each weighing its fraction in the average), from the row pass's
    u, uᵀu, uᵀw and c_oᵀw. The bound's tr(S_o) = tr(M_o) / T_o − ‖c_o‖² comes from ``parts``.

    A step's S_o w = (M_o w) / T_o − c_o (c_oᵀ w) takes M_o w from U's packed tiles on and above the
    diagonal (:data:`aucopt.online._simd.symmetric_product`: half of M_o, read from the L2 cache at
    every step; ``wp`` is w padded with zeros) and the rest in one O(d) pass, which also updates
    ``wp``, the score and the average (so a diverged step has entered the average too; the fit
    then raises)."""
    d = u.shape[0]
    o = 1 - k
    sign = 2.0 * k - 1.0
    mo = mean[o]
    if auto:
        bound = alpha + uu + (parts[o, 0] / count[o] - parts[o, 1])
        if bound > scalars[1]:
            scalars[1] = bound
        eta = 1.0 / scalars[1]
    full = math.floor(weight)
    n_full = int(full)
    fraction = weight - full
    for t in range(n_full + (1 if fraction > 0.0 else 0)):
        step = 1.0 if t < n_full else fraction
        if t > 0:  # w moved: its sums again
            uw = 0.0
            cw = 0.0
            for a in range(d):
                uw += u[a] * coef[a]
                cw += mo[a] * coef[a]
        symmetric_product(M[o], wp, g, d)  # g = M_o w
        inv = 1.0 / count[o]
        scale = eta * step
        total = scalars[0] + step
        share = step / total
        score = 0.0
        for a in range(d):
            ca = coef[a] - scale * (alpha * coef[a] - sign * u[a] + u[a] * uw + (g[a] * inv - mo[a] * cw))
            coef[a] = ca
            wp[a] = ca
            score += u[a] * ca
            coef_avg[a] += (ca - coef_avg[a]) * share
        if counters[0] < _INT64_MAX:
            counters[0] += 1
        scalars[0] = total
        if not math.isfinite(score) or abs(score) > _DIVERGED:
            scalars[2] = score
            return DIVERGED
    return OK


@njit(cache=True, nogil=True, error_model="numpy", boundscheck=False, fastmath={"contract", "reassoc"})
def stream_csr_full(indptr, indices, data, slots, weights, R, alpha, eta, auto, count, mean, cov, sketch,
                    sketch_sum, coef, coef_avg, scalars, counters, start):  # pragma: no cover - compiled
    """Stream the rows ``start:`` of a CSR matrix (int64 ``indptr`` / ``indices``) through the
    classes' second moments (full covariances; see the module docstring).

    Its three helpers are inlined (numba's ``inline="always"``: a call passes each array as five
    to nine words; inlined, the kernel took 5-10 % less on a9a, in turn in one process) and compiled
    with this function's fastmath flags: the passes' sums may be reassociated and their
    multiply-adds fused."""
    d = mean.shape[1]
    n = slots.shape[0]
    width = _padded(d)
    M = np.zeros((2, packed_size(d)))  # the upper triangles, halved diagonals, in packed tiles (module docstring)
    _to_moments(count, mean, cov, M)
    x = np.zeros(d)  # the current row, scattered
    offsets = np.empty(d, np.int64)  # a row's packed_column of each stored entry
    u = np.empty(d)
    g = np.zeros(width)
    wp = np.zeros(width)  # the iterate, padded (kept equal to coef by the steps)
    wp[:d] = coef
    parts = np.empty((2, 2))  # (tr M_k, ‖c_k‖²) of each class
    _trace_parts(mean, M, parts)
    status = OK
    for i in range(start, n):
        lo, hi = indptr[i], indptr[i + 1]
        cols, vals = indices[lo:hi], data[lo:hi]
        for p in range(cols.shape[0]):
            x[cols[p]] += vals[p]
        k = slots[i]
        o = 1 - k
        weight = weights[i]
        count[k] += weight
        parts[k, 1], uu, uw, cw = _row_pass(x, mean[k], weight / count[k], mean[o], coef, u)
        _add_outer(k, weight, cols, vals, M, offsets, parts)
        if count[o] != 0.0:  # no step while the other class is empty
            if weight != 1.0 and _needs_closed_form(weight, d, 0):
                status = CLOSED_FORM  # the bound first: the caller takes the steps in closed form
                _moment_steps(k, 0.0, alpha, eta, auto, count, mean, M, coef, coef_avg, scalars, counters, u, g,
                              wp, parts, uu, uw, cw)
            else:
                status = _moment_steps(k, weight, alpha, eta, auto, count, mean, M, coef, coef_avg, scalars,
                                       counters, u, g, wp, parts, uu, uw, cw)
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
    add up first; a row with increasing indices, scipy's canonical form, is read once)."""
    totals = np.zeros(2)
    first = np.zeros((2, d))
    second = np.zeros((2, d))
    x = np.zeros(d)
    seen = np.full(d, -1)
    for i in range(slots.shape[0]):
        k = slots[i]
        v = weights[i]
        totals[k] += v
        if _increasing(indices[indptr[i]:indptr[i + 1]]):
            for p in range(indptr[i], indptr[i + 1]):
                a = indices[p]
                first[k, a] += v * data[p]
                second[k, a] += v * data[p] * data[p]
            continue
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
