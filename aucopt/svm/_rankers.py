"""Rankers trained by truncated Newton on the sorted-pair core (Tayal et al., RankRC, seed 004).

    F = (1/N) Σ_(i,j) w_ij ℓ(f(x_i) − f(x_j)) + (λ/2)·‖w‖²        (seed 004 eqs. 4, 11, 13)

with ℓ the squared hinge (default) or the ε-smoothed hinge, N = Σ w_ij (= m₊m₋ for AUC; the
number of comparable pairs for survival), over bipartite or Harrell's survival pairs.

* :class:`RankSVM` / :class:`SurvivalRankSVM` — linear, f(x) = wᵀx, dense or sparse X:
  O(nd + n log n) per pass.
* :class:`RankRC` / :class:`SurvivalRankRC` — kernel expansion over a basis R,
  f(x) = Σ_{k∈R} β_k k(x_k, x), regularizer (λ/2) βᵀK_RRβ. ``basis="rare"`` is RankRC (the
  minority class; the subjects with events for survival), ``"random"`` RANK-RND, ``"full"``
  RANK-SVM. Only the m × |R| kernel block is stored; the problem is solved in the whitened
  variable w (β = U Λ^{−1/2} w, K_RR = UΛUᵀ, seed 004 §1.6), where it is well conditioned.

Relation to scikit-survival's ``FastSurvivalSVM(alpha=α, rank_ratio=1, fit_intercept=False)``,
which minimizes ½‖w‖² + (α/2) Σ max(0, 1 − (wᵀx_j − wᵀx_i))² over the same pairs (no tied
times; its scores are −risk): at equal w, its objective is F / λ when α = 2 / (λ N).
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import format_bytes
from ..base import PAIR_OPTIONS_DOC, BinaryRankerMixin, SurvivalRankerMixin, validated_data_and_pairs
from ..kernels import Kernel
from ._newton import check_loss_params, newton_solve
from ..pairs import DEFAULT_MAX_BYTES, PairSet

BASIS_CHOICES = ("rare", "random", "full")


class _NewtonRanker(BaseEstimator):
    """Shared fit: validate, build f = Mθ, run Newton (optionally along a λ path)."""

    def _check_common(self):
        check_loss_params(self.lam, self.loss, self.eps)
        for name in ("max_iter", "cg_maxiter"):
            value = getattr(self, name)
            if not isinstance(value, Integral) or value < 1:
                raise ValueError(f"{name} must be a positive integer; got {value!r}.")
        if not isinstance(self.tol, Real) or not self.tol > 0:
            raise ValueError(f"tol must be a positive number; got {self.tol!r}.")

    def _fit(self, X, y, sample_weight=None, lam_path=None):
        """``fit(X, y, sample_weight=None, lam_path=None)``: ``lam_path`` (e.g.
        ``2.0 ** np.arange(10, -20, -2)``) is solved first, in the given order with warm starts,
        ending at ``lam``; each solution is kept in ``path_``."""
        self._check_common()
        path = [] if lam_path is None else [float(v) for v in np.ravel(lam_path)]
        for lam in path:
            check_loss_params(lam, self.loss, self.eps)
        X, pairs = validated_data_and_pairs(self, X, y, sample_weight)
        M = self._design(X, pairs)
        theta, self.path_ = None, []
        for lam in path + [float(self.lam)]:  # warm starts along the path, ending at self.lam
            result = newton_solve(M, pairs, lam, loss=self.loss, eps=self.eps, theta0=theta,
                                  tol=self.tol, max_iter=self.max_iter, cg_maxiter=self.cg_maxiter,
                                  progress=self.progress)
            theta = result.theta
            if lam_path is not None:
                self.path_.append({"lam": lam, "objective": result.objective,
                                   "iterations": result.iterations, "converged": result.converged,
                                   "coef": self._coef_from(theta)})
        if not result.converged:
            warnings.warn(f"Newton did not converge ({result.message}); raise max_iter.",
                          ConvergenceWarning, stacklevel=3)
        self._set_model(theta)
        self.objective_ = result.objective
        self.n_iter_ = result.iterations
        self.converged_ = result.converged
        self.history_ = result.history
        self.n_pairs_ = pairs.n_pairs
        self.pair_target_ = pairs.target
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


# ============================================================================ linear
class _LinearModel(_NewtonRanker):
    def __init__(self, lam=1e-3, *, loss="squared_hinge", eps=0.5, tol=1e-8, max_iter=100,
                 cg_maxiter=25, progress=False):
        self.lam = lam
        self.loss = loss
        self.eps = eps
        self.tol = tol
        self.max_iter = max_iter
        self.cg_maxiter = cg_maxiter
        self.progress = progress

    def _design(self, X, pairs):
        return X  # f = X w

    def _coef_from(self, theta):
        return theta.copy()

    def _set_model(self, theta):
        self.coef_ = theta

    def _expansion(self, X):
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=np.float64, reset=False)
        return np.asarray(X @ self.coef_).ravel()


_LINEAR_DOC = """
    Parameters
    ----------
    lam : regularization λ > 0 (seed 004 grid: 2^10 … 2^-20).
    loss : ``"squared_hinge"`` (default; Chapelle & Keerthi) or ``"smoothed_hinge"`` (RankRC's ℓ_ε).
    eps : ε ∈ (0, 1] of the smoothed hinge (its quadratic zone is [1 − 2ε, 1)).
    tol : stop when ‖∇F‖_∞ ≤ tol or the Newton decrement −gᵀs ≤ tol·F.
    max_iter, cg_maxiter : outer Newton iterations; CG steps per iteration.
    progress : show a progress bar (``None``: only on a terminal).

    Attributes
    ----------
    coef_ : w;  objective_ : F at the solution;  n_iter_, converged_, history_ (one record per
    Newton iteration);  path_ : per-λ records when ``fit(..., lam_path=...)`` was used.
"""


class RankSVM(BinaryRankerMixin, _LinearModel):
    __doc__ = """Linear RankSVM for binary labels: maximizes a smooth AUC surrogate over all pos/neg pairs.

    F(w) = (1/(m₊m₋)) Σ_{i∈X+, j∈X−} ℓ(wᵀx_i − wᵀx_j) + (λ/2)‖w‖² (seed 004 eq. 4), truncated Newton
    with O(nd + n log n) per pass; dense or sparse X. ``pos_label`` selects the positive class.
    """ + _LINEAR_DOC

    def __init__(self, lam=1e-3, *, loss="squared_hinge", eps=0.5, tol=1e-8, max_iter=100,
                 cg_maxiter=25, progress=False, pos_label=None):
        super().__init__(lam, loss=loss, eps=eps, tol=tol, max_iter=max_iter,
                         cg_maxiter=cg_maxiter, progress=progress)
        self.pos_label = pos_label


class SurvivalRankSVM(SurvivalRankerMixin, _LinearModel):
    __doc__ = """Linear survival RankSVM over Harrell's comparable pairs (risk = wᵀx, higher = earlier event).

    Equals scikit-survival's ``FastSurvivalSVM(alpha=2/(λN), rank_ratio=1, fit_intercept=False)``
    up to its sign convention and its random tie-breaking of tied times (see the module docs).
    """ + _LINEAR_DOC + PAIR_OPTIONS_DOC

    def __init__(self, lam=1e-3, *, loss="squared_hinge", eps=0.5, tol=1e-8, max_iter=100,
                 cg_maxiter=25, progress=False, pair_options=None):
        super().__init__(lam, loss=loss, eps=eps, tol=tol, max_iter=max_iter,
                         cg_maxiter=cg_maxiter, progress=progress)
        self.pair_options = pair_options


# ============================================================================ kernel
class _KernelModel(_NewtonRanker):
    def __init__(self, lam=1e-3, *, basis="rare", basis_size=None, kernel="rbf", gamma="sigma2",
                 degree=3, coef0=1.0, loss="smoothed_hinge", eps=0.5, tol=1e-8, max_iter=100,
                 cg_maxiter=25, random_state=0, max_bytes=DEFAULT_MAX_BYTES, progress=False):
        self.lam = lam
        self.basis = basis
        self.basis_size = basis_size
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.loss = loss
        self.eps = eps
        self.tol = tol
        self.max_iter = max_iter
        self.cg_maxiter = cg_maxiter
        self.random_state = random_state
        self.max_bytes = max_bytes
        self.progress = progress

    def _basis_indices(self, pairs: PairSet) -> np.ndarray:
        m = pairs.n_points
        rare = pairs.signs > 0  # positives / subjects with an event
        if pairs.target == "bipartite" and rare.sum() > m - rare.sum():
            rare = ~rare  # the minority class
        if isinstance(self.basis, str):
            if self.basis not in BASIS_CHOICES:
                raise ValueError(f"basis must be one of {BASIS_CHOICES} or an index array; got {self.basis!r}.")
            if self.basis == "full":
                idx = np.arange(m)
            elif self.basis == "rare":
                idx = np.flatnonzero(rare)
            else:
                size = int(rare.sum()) if self.basis_size is None else self.basis_size
                if not isinstance(size, Integral) or not 1 <= size <= m:
                    raise ValueError(f"basis_size must be an integer in [1, {m}]; got {self.basis_size!r}.")
                idx = np.sort(np.random.default_rng(self.random_state).choice(m, size, replace=False))
        else:
            arr = np.asarray(self.basis).ravel()
            if arr.dtype == bool:
                if len(arr) != m:
                    raise ValueError(f"A boolean basis mask must have one entry per sample ({m}); got {len(arr)}.")
                arr = np.flatnonzero(arr)
            elif len(arr) and arr.dtype.kind not in "iu":
                raise ValueError(f"basis indices must be integers; got dtype {arr.dtype}.")
            idx = np.unique(arr.astype(np.int64))
            if len(idx) and (idx[0] < 0 or idx[-1] >= m):
                raise ValueError(f"basis indices must lie in [0, {m}).")
        if len(idx) == 0:
            raise ValueError("The kernel basis is empty; choose basis='rare' / 'random' / 'full' or non-empty indices.")
        need = 8 * m * len(idx)
        if self.max_bytes is not None and need > self.max_bytes:
            raise ValueError(
                f"The {m:,} × {len(idx):,} kernel block would need {format_bytes(need)} "
                f"(limit max_bytes={format_bytes(self.max_bytes)}); use a smaller basis "
                "(basis='rare' or basis='random' with a smaller basis_size) or raise max_bytes."
            )
        return idx

    def _design(self, X, pairs):
        idx = self._basis_indices(pairs)
        kernel = Kernel.from_params(self.kernel, self.gamma, self.degree, self.coef0, X=X)
        if kernel.precomputed:
            raise ValueError("RankRC evaluates the kernel block itself; kernel='precomputed' is not supported.")
        K_block = kernel(X, X[idx])  # m × r: the only kernel storage
        eigval, eigvec = np.linalg.eigh(K_block[idx])
        keep = eigval > 1e-12 * max(float(eigval[-1]), 0.0)
        if not np.any(keep):
            raise ValueError("The basis kernel matrix K_RR is zero; the basis cannot represent any ranking.")
        self._whiten = eigvec[:, keep] / np.sqrt(eigval[keep])  # T: β = T w, βᵀK_RRβ = ‖w‖²
        self.kernel_ = kernel
        self.basis_ = idx
        self.basis_vectors_ = X[idx]
        return K_block @ self._whiten

    def _coef_from(self, theta):
        return self._whiten @ theta

    def _set_model(self, theta):
        self.dual_coef_ = self._whiten @ theta  # β
        del self._whiten

    def _expansion(self, X):
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=np.float64, reset=False)
        return self.kernel_(X, self.basis_vectors_) @ self.dual_coef_


_KERNEL_DOC = """
    Parameters
    ----------
    lam : regularization λ > 0 on βᵀK_RRβ.
    basis : ``"rare"`` (RankRC, default), ``"random"`` (``basis_size`` points drawn with
        ``random_state``; default size = the rare set's), ``"full"`` (RankSVM), integer indices
        or a boolean mask over the training rows.
    kernel, gamma, degree, coef0 : kernel (``"rbf"`` default; ``"linear"``, ``"poly"``, callable);
        ``gamma="sigma2"`` is the paper's 1/σ², σ² = mean pairwise squared distance (§1.4);
        ``"scale"``, ``"auto"`` or a number also work.
    loss, eps : ``"smoothed_hinge"`` with ε = 0.5 (the paper's ℓ_ε) or ``"squared_hinge"``.
    tol, max_iter, cg_maxiter, progress : as for :class:`RankSVM`.
    max_bytes : refuse kernel blocks (8·m·|R| bytes) larger than this.

    Attributes
    ----------
    basis_, basis_vectors_, dual_coef_ : the basis R, its points and β;  kernel_ ;
    objective_, n_iter_, converged_, history_, path_ as for :class:`RankSVM`.
"""


class RankRC(BinaryRankerMixin, _KernelModel):
    __doc__ = """RankRC: kernel RankSVM with the rare class as the expansion basis (Tayal et al., seed 004 eq. 13).

    Training stores only the m × m₊ kernel block: O(m·m₊) time and memory per iteration.
    ``pos_label`` selects the positive class.
    """ + _KERNEL_DOC

    def __init__(self, lam=1e-3, *, basis="rare", basis_size=None, kernel="rbf", gamma="sigma2",
                 degree=3, coef0=1.0, loss="smoothed_hinge", eps=0.5, tol=1e-8, max_iter=100,
                 cg_maxiter=25, random_state=0, max_bytes=DEFAULT_MAX_BYTES, progress=False,
                 pos_label=None):
        super().__init__(lam, basis=basis, basis_size=basis_size, kernel=kernel, gamma=gamma,
                         degree=degree, coef0=coef0, loss=loss, eps=eps, tol=tol, max_iter=max_iter,
                         cg_maxiter=cg_maxiter, random_state=random_state, max_bytes=max_bytes,
                         progress=progress)
        self.pos_label = pos_label


class SurvivalRankRC(SurvivalRankerMixin, _KernelModel):
    __doc__ = ("""Kernel survival ranker over Harrell's pairs with a basis R (default: the subjects with events)."""
               + _KERNEL_DOC + PAIR_OPTIONS_DOC)

    def __init__(self, lam=1e-3, *, basis="rare", basis_size=None, kernel="rbf", gamma="sigma2",
                 degree=3, coef0=1.0, loss="smoothed_hinge", eps=0.5, tol=1e-8, max_iter=100,
                 cg_maxiter=25, random_state=0, max_bytes=DEFAULT_MAX_BYTES, progress=False,
                 pair_options=None):
        super().__init__(lam, basis=basis, basis_size=basis_size, kernel=kernel, gamma=gamma,
                         degree=degree, coef0=coef0, loss=loss, eps=eps, tol=tol, max_iter=max_iter,
                         cg_maxiter=cg_maxiter, random_state=random_state, max_bytes=max_bytes,
                         progress=progress)
        self.pair_options = pair_options
