"""Compiled per-example updates of :class:`~aucopt.online.OnePassAUC` (numba, cached on disk).

Private to :mod:`aucopt.online._onepass`, which states the mathematics (class Notes of
``OnePassAUC``). The callers cast before calling, so each kernel has one compiled signature:
float64 arrays (C-contiguous), int64 slots and CSR index arrays, a float64 ``alpha`` and
``eta`` and a boolean ``auto``. ``cache=True`` stores the machine code next to this module (or
under ``NUMBA_CACHE_DIR``): the compile cost is paid on the first call on a machine only. The
closed form of a heavily weighted example (an eigendecomposition) is its own kernel, compiled
the first time such an example occurs, so that ordinary streams never compile it.

State passed to every kernel (updated in place):

* ``count`` (2,), ``mean`` (2, d): class totals and means;
* ``cov`` (2, d, d): population covariances, or an empty (2, 0, 0) array with a sketch;
* ``sketch`` (2, d, τ), ``sketch_sum`` (2, τ): Z and s of the rank-τ sketch, or empty (2, d, 0)
  and (2, 0) arrays with full covariances;
* ``coef``, ``coef_avg`` (d,): the iterate and its average;
* ``scalars`` = [update weight, step bound, score at divergence], ``counters`` = [number of
  steps, row at which the kernel stopped].

The stream kernels return ``OK`` (every row processed), ``DIVERGED`` (the iterate exploded at
row ``counters[1]``; its score is ``scalars[2]``) or ``CLOSED_FORM`` (row ``counters[1]``
has a weight taking more than 32 steps: its class statistics and step bound are updated, and
the caller takes its steps with :func:`closed_form_steps`, then resumes at the next row).

Every covariance update is symmetric to the last bit, c·(δ_a δ_b), so the matrix-vector product
S w is computed as Sᵀw, row by row, which vectorizes. The hot loops index the state arrays
directly rather than through per-row views, and the step of a unit-weight example is written
out in :func:`_example` rather than called (views and calls with array arguments cost reference
counting: about 40 % of the time per row at d = 22).
"""

from __future__ import annotations

import math

import numpy as np

from .._numba import njit

__all__ = ["CLOSED_FORM", "DIVERGED", "OK", "closed_form_steps", "stream_csr", "stream_dense"]

OK, DIVERGED, CLOSED_FORM = 0, 1, 2
_DIVERGED = 1e8  # |wᵀ(x − c)| above this means the iteration has diverged (the loss targets ±1)
_LOOP_STEPS = 32  # a weight above this many steps (and above the state's width) takes the closed form
_TWO_62 = 2.0 ** 62
_MAX_STEP_COUNT = np.iinfo(np.int64).max // 2  # the count credited to one closed-form block at most
_INT64_MAX = np.iinfo(np.int64).max

# ============================================================================ small helpers
@njit(cache=True, nogil=True, error_model="numpy")
def _dot(a, b):  # pragma: no cover - compiled
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i] * b[i]
    return total


@njit(cache=True, nogil=True, error_model="numpy")
def _cov_matvec(o, w, mean, count, cov, sketch, sketch_sum, out, v):  # pragma: no cover - compiled
    """out = S_o w (full covariance, or the sketch estimate (Z − c sᵀ)(Z − c sᵀ)ᵀ w / T)."""
    d = w.shape[0]
    for a in range(d):
        out[a] = 0.0
    if sketch.shape[2] == 0:
        for b in range(d):  # S is symmetric: S w = Sᵀ w, accumulated row by row
            wb = w[b]
            for a in range(d):
                out[a] += cov[o, b, a] * wb
        return
    Z, s, c = sketch[o], sketch_sum[o], mean[o]
    tau = s.shape[0]
    for j in range(tau):
        v[j] = 0.0
    for a in range(d):  # v = Zᵀw − s (cᵀw)
        wa = w[a]
        row = Z[a]
        for j in range(tau):
            v[j] += row[j] * wa
    cw = _dot(c, w)
    for j in range(tau):
        v[j] -= s[j] * cw
    sv = _dot(s, v)
    T = count[o]
    for a in range(d):
        out[a] = (_dot(Z[a], v) - c[a] * sv) / T


@njit(cache=True, nogil=True, error_model="numpy")
def _cov_trace(o, mean, count, cov, sketch, sketch_sum):  # pragma: no cover - compiled
    """tr(S_o): of the covariance, or of its sketch estimate."""
    d = mean.shape[1]
    total = 0.0
    if sketch.shape[2] == 0:
        for a in range(d):
            total += cov[o, a, a]
        return total
    Z, s, c = sketch[o], sketch_sum[o], mean[o]
    T = count[o]
    for a in range(d):
        row = 0.0
        ca = c[a]
        for j in range(s.shape[0]):
            z = Z[a, j] - ca * s[j]
            row += z * z
        total += row / T
    return total


@njit(cache=True, nogil=True, error_model="numpy")
def _gradient(u, sign, w, alpha, o, mean, count, cov, sketch, sketch_sum, g, v):  # pragma: no cover
    """g = αw − sign·u + u(uᵀw) + S_o w, with u = x − c_o."""
    _cov_matvec(o, w, mean, count, cov, sketch, sketch_sum, g, v)
    uw = _dot(u, w)
    for a in range(w.shape[0]):
        g[a] = alpha * w[a] - sign * u[a] + u[a] * uw + g[a]


@njit(cache=True, nogil=True, error_model="numpy")
def _diverged(u, w, scalars):  # pragma: no cover - compiled
    """Whether |uᵀw| left the range of a converging iteration (its value goes to scalars[2])."""
    score = _dot(u, w)
    if not math.isfinite(score) or abs(score) > _DIVERGED:
        scalars[2] = score
        return True
    return False


@njit(cache=True, nogil=True, error_model="numpy")
def _add_steps(counters, n):  # pragma: no cover - compiled
    counters[0] = _INT64_MAX if counters[0] > _INT64_MAX - n else counters[0] + n


# ============================================================================ one example
@njit(cache=True, nogil=True, error_model="numpy")
def _example(  # noqa: C901, PLR0915 - one fused pass per row: inlined helpers cost 12-15 % at d = 22
        x, k, weight, r, alpha, eta, auto, count, mean, cov, sketch, sketch_sum, coef, coef_avg, scalars,
        counters, diff, u, g, v):  # pragma: no cover - compiled  # long: one row's update, written out
    """Welford update of class ``k`` with x (weight ``weight``), then its step(s) against the other."""
    d = x.shape[0]
    o = 1 - k
    sketched = sketch.shape[2] > 0
    for a in range(d):
        diff[a] = x[a] - mean[k, a]
    if weight == 1.0:
        count[k] += 1.0
        T = count[k]
        for a in range(d):
            mean[k, a] += diff[a] / T
        keep, new = (T - 1.0) / T, (T - 1.0) / (T * T)
        root = 1.0
    else:
        before = count[k]
        count[k] += weight
        after = count[k]
        for a in range(d):
            mean[k, a] += diff[a] * weight / after
        keep, new = before / after, (weight / after) * (before / after)
        root = math.sqrt(weight)
    if not sketched:  # S ← keep·S + new·δδᵀ
        for a in range(d):
            da = diff[a]
            for b in range(d):
                cov[k, a, b] = cov[k, a, b] * keep + new * (da * diff[b])
    else:  # Z ← Z + x (√v r)ᵀ, s ← s + √v r
        Z, s = sketch[k], sketch_sum[k]
        tau = s.shape[0]
        for a in range(d):
            xa = x[a]
            if xa != 0.0:
                row = Z[a]
                for j in range(tau):
                    row[j] += xa * (r[j] * root)
        for j in range(tau):
            s[j] += r[j] * root
    if count[o] == 0.0:  # no step while the other class is empty
        return OK
    sign = 2.0 * k - 1.0
    for a in range(d):
        u[a] = x[a] - mean[o, a]
    if auto:  # the scale-free step 1/L, L the running maximum of α + ‖u‖² + tr(S_o)
        uu = 0.0
        for a in range(d):
            uu += u[a] * u[a]
        if sketched:
            trace = _cov_trace(o, mean, count, cov, sketch, sketch_sum)
        else:
            trace = 0.0
            for a in range(d):
                trace += cov[o, a, a]
        bound = alpha + uu + trace
        if bound > scalars[1]:
            scalars[1] = bound
    if weight != 1.0:
        if _needs_closed_form(weight, d, sketch.shape[2]):
            return CLOSED_FORM
        return _weighted_steps(u, o, sign, weight, 1.0 / scalars[1] if auto else eta, alpha,
                               count, mean, cov, sketch, sketch_sum, coef, coef_avg, scalars,
                               counters, g, v)
    # one step, written out (the same arithmetic as _gradient and _diverged, without calls)
    if sketched:
        _cov_matvec(o, coef, mean, count, cov, sketch, sketch_sum, g, v)
    else:
        for a in range(d):
            g[a] = 0.0
        for b in range(d):
            wb = coef[b]
            for a in range(d):
                g[a] += cov[o, b, a] * wb
    uw = 0.0
    for a in range(d):
        uw += u[a] * coef[a]
    for a in range(d):
        g[a] = alpha * coef[a] - sign * u[a] + u[a] * uw + g[a]
    if auto:
        L = scalars[1]
        for a in range(d):
            coef[a] -= g[a] / L
    else:
        for a in range(d):
            coef[a] -= eta * g[a]
    if counters[0] < _INT64_MAX:
        counters[0] += 1
    scalars[0] += 1.0
    score = 0.0
    for a in range(d):
        score += u[a] * coef[a]
    if not math.isfinite(score) or abs(score) > _DIVERGED:
        scalars[2] = score
        return DIVERGED
    total = scalars[0]
    for a in range(d):
        coef_avg[a] += (coef[a] - coef_avg[a]) / total
    return OK


@njit(cache=True, nogil=True, error_model="numpy")
def _full_steps(weight):  # pragma: no cover - compiled
    """⌊weight⌋ as a float (the weight itself from 2⁶² on), and the fractional rest."""
    full = math.floor(weight) if weight < _TWO_62 else weight
    return full, weight - full


@njit(cache=True, nogil=True, error_model="numpy")
def _needs_closed_form(weight, d, tau):  # pragma: no cover - compiled
    full, _ = _full_steps(weight)
    width = d if tau == 0 else tau + 1
    return full > max(_LOOP_STEPS, width)


@njit(cache=True, nogil=True, error_model="numpy")
def _weighted_steps(u, o, sign, weight, eta, alpha, count, mean, cov, sketch, sketch_sum, coef,
                    coef_avg, scalars, counters, g, v):  # pragma: no cover - compiled
    """⌊weight⌋ steps of size η then one of (weight − ⌊weight⌋)·η, each weighing its fraction
    in the average (32 steps at most here: more go to the closed form)."""
    d = u.shape[0]
    full, fraction = _full_steps(weight)
    n_full = int(full)
    for t in range(n_full + (1 if fraction > 0.0 else 0)):
        step = 1.0 if t < n_full else fraction
        _gradient(u, sign, coef, alpha, o, mean, count, cov, sketch, sketch_sum, g, v)
        scale = eta * step
        for a in range(d):
            coef[a] -= scale * g[a]
        _add_steps(counters, 1)
        scalars[0] += step
        if _diverged(u, coef, scalars):
            return DIVERGED
        total = scalars[0]
        for a in range(d):
            coef_avg[a] += (coef[a] - coef_avg[a]) * step / total
    return OK


# ============================================================================ streams
@njit(cache=True, nogil=True, error_model="numpy")
def _stream(X, indptr, indices, data, sparse, slots, weights, R, alpha, eta, auto, count, mean, cov,
            sketch, sketch_sum, coef, coef_avg, scalars, counters, start):  # pragma: no cover
    d = mean.shape[1]
    tau = sketch_sum.shape[1]
    n = slots.shape[0]
    diff = np.empty(d)
    u = np.empty(d)
    g = np.empty(d)
    v = np.empty(tau)
    x = np.zeros(d)  # the current row (a copy: no array view is made per row)
    r = np.empty(0)
    for i in range(start, n):
        if sparse:  # scatter the row (duplicates add up, as in toarray)
            for p in range(indptr[i], indptr[i + 1]):
                x[indices[p]] += data[p]
        else:
            for a in range(d):
                x[a] = X[i, a]
        if tau:
            r = R[i]
        weight = weights[i]
        status = _example(x, slots[i], weight, r, alpha, eta, auto, count, mean, cov, sketch, sketch_sum,
                          coef, coef_avg, scalars, counters, diff, u, g, v)
        if sparse:
            for p in range(indptr[i], indptr[i + 1]):
                x[indices[p]] = 0.0
        if status != OK:
            counters[1] = i
            return status
    counters[1] = n
    return OK


@njit(cache=True, nogil=True, error_model="numpy")
def stream_dense(X, slots, weights, R, alpha, eta, auto, count, mean, cov, sketch, sketch_sum, coef,
                 coef_avg, scalars, counters, start):  # pragma: no cover - compiled
    """Stream the rows ``start:`` of a dense C-contiguous X (see the module docstring)."""
    empty_i = np.empty(0, dtype=np.int64)
    return _stream(X, empty_i, empty_i, np.empty(0), False, slots, weights, R, alpha, eta, auto, count,
                   mean, cov, sketch, sketch_sum, coef, coef_avg, scalars, counters, start)


@njit(cache=True, nogil=True, error_model="numpy")
def stream_csr(indptr, indices, data, slots, weights, R, alpha, eta, auto, count, mean, cov, sketch,
               sketch_sum, coef, coef_avg, scalars, counters, start):  # pragma: no cover - compiled
    """Stream the rows ``start:`` of a CSR matrix (int64 ``indptr`` / ``indices``), one row
    scattered at a time into a dense buffer: the same arithmetic as the dense rows."""
    return _stream(np.empty((0, mean.shape[1])), indptr, indices, data, True, slots, weights, R, alpha,
                   eta, auto, count, mean, cov, sketch, sketch_sum, coef, coef_avg, scalars, counters,
                   start)


# ============================================================================ heavy weights
@njit(cache=True, nogil=True, error_model="numpy")
def _hessian_eigen(u, o, alpha, count, mean, cov, sketch, sketch_sum):  # pragma: no cover - compiled
    """Eigenpairs of H = αI + uuᵀ + S_o: (values, vectors). With a sketch, H = α off the
    span of u and the sketch, whose orthonormal basis the vectors are."""
    d = u.shape[0]
    if sketch.shape[2] == 0:
        H = cov[o].copy()
        for a in range(d):
            for b in range(d):
                H[a, b] += u[a] * u[b]
            H[a, a] += alpha
        values, vectors = np.linalg.eigh(H)
        for i in range(d):
            values[i] = max(values[i], alpha)
        return values, vectors
    Z, s, c = sketch[o], sketch_sum[o], mean[o]
    tau = s.shape[0]
    scale = 1.0 / math.sqrt(count[o])
    M = np.empty((d, tau + 1))
    for a in range(d):
        M[a, 0] = u[a]
        for j in range(tau):
            M[a, j + 1] = (Z[a, j] - c[a] * s[j]) * scale
    Q, R = np.linalg.qr(M)
    values, V = np.linalg.eigh(np.dot(R, np.ascontiguousarray(R.T)))
    for i in range(values.shape[0]):
        values[i] = alpha + max(values[i], 0.0)
    return values, np.dot(np.ascontiguousarray(Q), V)


@njit(cache=True, nogil=True, error_model="numpy")
def _eigen_powers(values, n, eta, alpha, m):  # pragma: no cover - compiled
    """λᵐ and G = Σ_{k=1}^m λᵏ for λ = 1 − ηh, h the eigenvalues then α (the directions off a
    sketch's basis, i ≥ len(values)): (power, geometric), each of length n."""
    K = values.shape[0]
    power = np.empty(n)
    geometric = np.empty(n)
    for i in range(n):
        h = values[i] if i < K else alpha
        mu = eta * h
        lam = 1.0 - mu
        if 0.0 < mu < 1.0:
            log_lam = math.log1p(-mu)
            power[i] = math.exp(m * log_lam)
            geometric[i] = lam * -math.expm1(m * log_lam) / mu
        else:
            power[i] = lam ** m
            geometric[i] = m if lam == 1.0 else lam * (1.0 - power[i]) / (1.0 - lam)
    return power, geometric


@njit(cache=True, nogil=True, error_model="numpy")
def closed_form_steps(u, o, sign, weight, eta, alpha, count, mean, cov, sketch, sketch_sum, coef,
                      coef_avg, scalars, counters):  # pragma: no cover - compiled
    """The steps of an example of weight > 32 (after its class statistics and step bound are
    updated, by the stream kernels): ⌊weight⌋ steps at once, then the fractional one.

    With H = αI + uuᵀ + S_o the step is w ← w − η(Hw − sign·u); along an eigenvector of H
    (eigenvalue h, λ = 1 − ηh), w_m = w* + λᵐ(w_0 − w*) with w* = H⁻¹ sign·u, and the sum of
    the m iterates is m w* + G (w_0 − w*), G = Σ_{k=1}^m λᵏ. With a sketch, every direction off
    the basis shares h = α and w* has no component there.
    """
    d = u.shape[0]
    m, fraction = _full_steps(weight)
    values, vectors = _hessian_eigen(u, o, alpha, count, mean, cov, sketch, sketch_sum)
    K = values.shape[0]
    sketched = sketch.shape[2] > 0
    n = K + 1 if sketched else K
    power, geometric = _eigen_powers(values, n, eta, alpha, m)
    star = np.zeros(n)
    w0 = np.zeros(n)
    for i in range(K):  # coordinates of sign·u and of w along the eigenvectors
        bu = 0.0
        bw = 0.0
        for a in range(d):
            bu += vectors[a, i] * u[a]
            bw += vectors[a, i] * coef[a]
        star[i] = sign * bu / values[i]
        w0[i] = bw
    outside = np.zeros(d)
    if sketched:  # the rest of w, off the basis: it only shrinks, by (1 − ηα) per step
        for a in range(d):
            outside[a] = coef[a]
            for i in range(K):
                outside[a] -= vectors[a, i] * w0[i]
        w0[K] = 1.0
    last = np.zeros(d)
    total = np.zeros(d)
    for i in range(n):
        lc = star[i] + power[i] * (w0[i] - star[i])
        tc = m * star[i] + geometric[i] * (w0[i] - star[i])
        if i < K:
            for a in range(d):
                last[a] += vectors[a, i] * lc
                total[a] += vectors[a, i] * tc
        else:
            for a in range(d):
                last[a] += lc * outside[a]
                total[a] += tc * outside[a]
    _add_steps(counters, _MAX_STEP_COUNT if m >= _MAX_STEP_COUNT else int(m))
    scalars[0] += m
    weight_sum = scalars[0]
    for a in range(d):
        coef[a] = last[a]
        coef_avg[a] += (total[a] - m * coef_avg[a]) / weight_sum
    if _diverged(u, coef, scalars):
        return DIVERGED
    if fraction > 0.0:
        return _weighted_steps(u, o, sign, fraction, eta, alpha, count, mean, cov, sketch, sketch_sum,
                               coef, coef_avg, scalars, counters, np.empty(d), np.empty(sketch.shape[2]))
    return OK
