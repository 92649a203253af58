"""The per-example numpy implementation of OnePassAUC, kept as an oracle for the compiled kernels.

:class:`ReferenceOnePassAUC` is :class:`aucopt.online.OnePassAUC` with its stream core (the
``_process`` of each ``fit`` / ``partial_fit`` call) replaced by the former Python loop: one
numpy update per example (Welford class statistics, rank-τ sketch, the gradient step with a
constant or scale-free step, the averaged iterate, the divergence check) and, for a weight of
more than 32 steps, the closed form through ``scipy.linalg.eigh``. Validation, labels, random
sketch draws and the progress bar are the estimator's own, so the two differ only in the core.
Not a test module.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from aucopt.online import OnePassAUC

_SPARSE_BLOCK = 256  # sparse rows are densified this many at a time
_DIVERGED = 1e8  # |wᵀ(x − c)| above this (the loss targets 1) means the iteration has diverged
_LOOP_STEPS = 32  # a weight above this many steps (and above the state's width) takes the closed form


class ReferenceOnePassAUC(OnePassAUC):
    """OnePassAUC with the per-example numpy loop (an oracle; same parameters)."""

    def _cov_matvec(self, o, w):
        if self.rank_ is None:
            return self.class_cov_[o] @ w
        Z, s, c = self.class_sketch_[o], self.class_sketch_sum_[o], self.class_mean_[o]
        v = Z.T @ w - s * (c @ w)
        return (Z @ v - c * (s @ v)) / self.class_count_[o]


    def _cov_diag(self, o):
        """Diagonal of the covariance (or of its sketch estimate) of class ``o``."""
        if self.rank_ is None:
            return np.diagonal(self.class_cov_[o])
        B = self.class_sketch_[o] - np.outer(self.class_mean_[o], self.class_sketch_sum_[o])
        return np.einsum("ij,ij->i", B, B) / self.class_count_[o]


    def _auto_step(self, x, o, sign, w):
        """The scale-free step η_t = 1 / L_t times the gradient (see the Notes of the class)."""
        u = x - self.class_mean_[o]
        self.step_bound_ = max(self.step_bound_, self.alpha + u @ u + self._cov_diag(o).sum())
        return self._gradient(x, o, sign, w) / self.step_bound_


    def _gradient(self, x, o, sign, w):
        u = x - self.class_mean_[o]
        return self.alpha * w - sign * u + u * (u @ w) + self._cov_matvec(o, w)


    def _hessian_eigen(self, u, o):
        """Eigenpairs of the Hessian H = αI + uuᵀ + S_o of the loss against class ``o``.

        Returns (values, vectors, rest): H = vectors diag(values) vectorsᵀ + rest·(I − P), P the
        projection on the columns of ``vectors``; ``rest`` is α for a sketch (H is α off the span of
        u and the sketch), None for full covariances (vectors span everything).
        """
        if self.rank_ is None:
            H = self.class_cov_[o] + np.outer(u, u)
            H[np.diag_indices_from(H)] += self.alpha
            values, vectors = scipy.linalg.eigh(H)
            return np.maximum(values, self.alpha), vectors, None
        B = self.class_sketch_[o] - np.outer(self.class_mean_[o], self.class_sketch_sum_[o])
        C = np.column_stack([u, B / np.sqrt(self.class_count_[o])])
        Q, R = np.linalg.qr(C)
        values, V = scipy.linalg.eigh(R @ R.T)
        return self.alpha + np.maximum(values, 0.0), Q @ V, self.alpha


    def _repeated_steps(self, x, o, sign, w, m, eta):
        """m gradient steps of size η on the same quadratic L_t, in closed form.

        Returns the last iterate and the sum of the m iterates. With H = αI + uuᵀ + S_o the
        step is w ← w − η(Hw − sign·u), so along an eigenvector of H (eigenvalue h, λ = 1 − ηh)
        w_k = w* + λᵏ(w_0 − w*) with w* = H⁻¹ sign·u, and Σ_{k=1}^m w_k = m w* + G (w_0 − w*),
        G = Σ_{k=1}^m λᵏ.
        """
        u = x - self.class_mean_[o]
        values, vectors, rest = self._hessian_eigen(u, o)
        mu = eta * values
        if rest is not None:
            mu = np.append(mu, eta * rest)
            values = np.append(values, rest)

        def split(z):  # coordinates along the eigenvectors, and the rest of z
            inside = vectors.T @ z
            if rest is None:
                return inside
            return np.append(inside, 0.0), z - vectors @ inside

        def join(coords, outside=None):
            z = vectors @ coords[:vectors.shape[1]]
            return z if rest is None else z + coords[-1] * outside

        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            lam = 1.0 - mu
            contracting = (mu > 0) & (mu < 1)
            log_lam = np.log1p(-np.where(contracting, mu, 0.0))
            power = np.where(contracting, np.exp(m * log_lam), np.power(lam, m))
            geometric = np.where(contracting, lam * -np.expm1(m * log_lam) / np.where(contracting, mu, 1.0),
                                 np.where(lam == 1.0, m, lam * (1.0 - power) / np.where(lam == 1.0, 1.0, 1.0 - lam)))
            if rest is None:
                b, w0 = split(sign * u), split(w)
                star = b / values
                last = join(star + power * (w0 - star))
                total = join(m * star + geometric * (w0 - star))
                return last, total
            (b, _b_out), (w0, w_out) = split(sign * u), split(w)
            # off the span, _b_out = 0 (u is in the span) and every direction shares h = α
            star = b / values
            star[-1] = 0.0
            w0[-1] = 1.0
            last_coords = star + power * (w0 - star)
            total_coords = m * star + geometric * (w0 - star)
            return join(last_coords, w_out), join(total_coords, w_out)


    def _weighted_steps(self, x, o, sign, w, weight, eta):
        """The steps of an example of weight ``weight``: ⌊weight⌋ full steps and a fractional one.

        Updates ``w``, ``coef_avg_``, ``n_updates_`` and ``update_weight_`` in place.
        """
        avg = self.coef_avg_
        full = int(weight) if weight < 2**62 else weight
        fraction = weight - full
        width = self.class_cov_.shape[1] if self.rank_ is None else self.rank_ + 1
        if full > max(_LOOP_STEPS, width):
            last, total = self._repeated_steps(x, o, sign, w, float(full), eta)
            self.n_updates_ += int(min(full, np.iinfo(np.int64).max // 2))
            self.update_weight_ += float(full)
            w[:] = last
            avg += (total - full * avg) / self.update_weight_
            self._check_divergence(x, o, w)
            full = 0
        for step in [1.0] * full + ([fraction] if fraction > 0 else []):
            w -= (eta * step) * self._gradient(x, o, sign, w)
            self.n_updates_ += 1
            self.update_weight_ += step
            self._check_divergence(x, o, w)
            avg += (w - avg) * step / self.update_weight_


    def _check_divergence(self, x, o, w):
        score = (x - self.class_mean_[o]) @ w
        if not np.isfinite(score) or abs(score) > _DIVERGED:
            self._diverged(score)


    def _process(self, X, slots, weights=None):
        n = X.shape[0]
        R = None
        if self.rank_ is not None:
            if self.sketch is None:
                R = self._rng.standard_normal((n, self.rank_)) / np.sqrt(self.rank_)
            else:
                R = np.asarray(self.sketch, dtype=np.float64)[self.n_seen_:self.n_seen_ + n]
                if R.shape[0] < n:
                    raise ValueError(f"sketch has {len(self.sketch)} rows but the stream has at least "
                                     f"{self.n_seen_ + n} examples; pass one sketch row per example.")
        cnt, mean, w, avg = self.class_count_, self.class_mean_, self.coef_, self.coef_avg_
        auto = isinstance(self.eta0, str)
        eta = None if auto else float(self.eta0)
        for start in range(0, n, _SPARSE_BLOCK if sp.issparse(X) else max(n, 1)):
            block = X[start:start + _SPARSE_BLOCK].toarray() if sp.issparse(X) else X
            for j, x in enumerate(block):
                i = start + j
                k = slots[i]
                o = 1 - k
                if weights is not None and weights[i] != 1.0:
                    self._process_weighted(x, k, weights[i], None if R is None else R[i], eta)
                    continue
                cnt[k] += 1
                T = cnt[k]
                diff = x - mean[k]
                mean[k] += diff / T
                if R is None:
                    cov = self.class_cov_[k]
                    cov *= (T - 1) / T
                    cov += np.outer(diff * ((T - 1) / T**2), diff)
                else:
                    self.class_sketch_[k] += np.outer(x, R[i])
                    self.class_sketch_sum_[k] += R[i]
                if cnt[o] == 0:
                    continue
                if auto:
                    w -= self._auto_step(x, o, 2.0 * k - 1.0, w)
                else:
                    w -= eta * self._gradient(x, o, 2.0 * k - 1.0, w)
                self.n_updates_ += 1
                self.update_weight_ += 1.0
                score = (x - mean[o]) @ w
                if not np.isfinite(score) or abs(score) > _DIVERGED:
                    self._diverged(score)
                avg += (w - avg) / self.update_weight_
        self.n_seen_ += n


    def _process_weighted(self, x, k, weight, r, eta):
        """One example of weight ``weight`` (> 0): weighted Welford update, then its steps."""
        o = 1 - k
        cnt, mean = self.class_count_, self.class_mean_
        before = cnt[k]
        cnt[k] += weight
        after = cnt[k]
        diff = x - mean[k]
        mean[k] += diff * weight / after
        if r is None:
            cov = self.class_cov_[k]
            cov *= before / after
            cov += np.outer(diff * ((weight / after) * (before / after)), diff)
        else:
            root = np.sqrt(weight)
            self.class_sketch_[k] += np.outer(x, r * root)
            self.class_sketch_sum_[k] += r * root
        if cnt[o] == 0:
            return
        sign = 2.0 * k - 1.0
        if eta is None:  # the scale-free step: the bound is the same for every repeat
            u = x - mean[o]
            self.step_bound_ = max(self.step_bound_, self.alpha + u @ u + self._cov_diag(o).sum())
            step = 1.0 / self.step_bound_
        else:
            step = eta
        self._weighted_steps(x, o, sign, self.coef_, weight, step)



class GeneralKernelOnePassAUC(OnePassAUC):
    """OnePassAUC streaming every row through the general compiled kernels (``stream_dense`` /
    ``stream_csr`` of ``aucopt.online._onepass_kernels``): the kernels of every fit before the
    full-covariance kernels of ``aucopt.online._onepass_full``, kept as their oracle and as the
    "before" of ``benchmarks/onepass_throughput.py``."""

    def _stream_kernel(self, X, slots, weights):
        from aucopt.online import _onepass_kernels

        return _onepass_kernels.stream_csr if sp.issparse(X) else _onepass_kernels.stream_dense
