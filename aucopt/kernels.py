"""Kernels k(x, x') for kernel-expansion rankers (seed 003 eqs. 3.4–3.5).

* ``linear``: x·x'
* ``rbf``: exp(-γ ‖x − x'‖²)                           (seed 003 eq. 3.4)
* ``poly``: (γ x·x' + coef0)^degree; γ = 1, coef0 = 1 gives the thesis's (x·x' + 1)^p (eq. 3.5)
* ``precomputed``: X already is the kernel matrix (rows: points to score, columns: basis)
* a callable ``k(X, Y) -> ndarray``

Evaluation reuses :mod:`sklearn.metrics.pairwise`.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Real

import numpy as np
from sklearn.metrics import pairwise

KERNELS = ("linear", "rbf", "poly", "precomputed")
GAMMA_RULES = ("scale", "auto", "sigma2")


def gamma_from_rule(rule: str, X) -> float:
    """γ from the data: ``"scale"`` 1/(d·Var X) and ``"auto"`` 1/d (as ``sklearn.svm.SVC``), or
    ``"sigma2"`` 1/σ² with σ² = (1/m²) Σ_ij ‖x_i − x_j‖² = 2·(1/m) Σ_i ‖x_i − x̄‖², the RankRC
    heuristic (seed 004 §1.4; σ² = 2d on standardized data)."""
    dense = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=float)
    n_features = dense.shape[1]
    if rule == "auto":
        return 1.0 / n_features
    if rule == "scale":
        var = float(np.var(dense))
        return 1.0 / (n_features * var) if var > 0 else 1.0
    sigma2 = 2.0 * float(np.mean(np.sum((dense - dense.mean(axis=0)) ** 2, axis=1)))
    return 1.0 / sigma2 if sigma2 > 0 else 1.0


@dataclass(frozen=True)
class Kernel:
    """A validated kernel specification; ``kernel(X, Y)`` returns the ``len(X) × len(Y)`` matrix."""

    name: str | object = "rbf"
    gamma: float | None = None
    degree: int = 3
    coef0: float = 1.0

    @classmethod
    def from_params(cls, kernel="rbf", gamma="scale", degree=3, coef0=1.0, X=None) -> "Kernel":
        """Validate estimator-style parameters; ``gamma='scale'`` is 1 / (d · Var(X)) as in SVC."""
        if not callable(kernel) and kernel not in KERNELS:
            raise ValueError(f"Unknown kernel {kernel!r}; choose one of {KERNELS} or pass a callable.")
        if isinstance(gamma, str):
            if gamma not in GAMMA_RULES:
                raise ValueError(f"gamma must be a positive number or one of {GAMMA_RULES}; got {gamma!r}.")
            if X is None:
                raise ValueError(f"gamma={gamma!r} needs the training data X.")
            gamma = gamma_from_rule(gamma, X)
        elif not isinstance(gamma, Real) or isinstance(gamma, bool) or not gamma > 0:
            raise ValueError(f"gamma must be a positive number or one of {GAMMA_RULES}; got {gamma!r}.")
        if not isinstance(degree, Real) or degree < 1 or int(degree) != degree:
            raise ValueError(f"degree must be a positive integer; got {degree!r}.")
        if not isinstance(coef0, Real) or not np.isfinite(coef0):
            raise ValueError(f"coef0 must be a finite number; got {coef0!r}.")
        return cls(name=kernel, gamma=float(gamma), degree=int(degree), coef0=float(coef0))

    def __call__(self, X, Y=None) -> np.ndarray:
        name = self.name
        if callable(name):
            return np.asarray(name(X, X if Y is None else Y), dtype=float)
        if name == "precomputed":
            return np.asarray(X, dtype=float)
        if name == "linear":
            K = pairwise.linear_kernel(X, Y)
        elif name == "rbf":
            K = pairwise.rbf_kernel(X, Y, gamma=self.gamma)
        else:
            K = pairwise.polynomial_kernel(X, Y, degree=self.degree, gamma=self.gamma, coef0=self.coef0)
        return np.asarray(K, dtype=float)

    @property
    def precomputed(self) -> bool:
        return isinstance(self.name, str) and self.name == "precomputed"


def kernel_matrix(X, Y=None, kernel="rbf", gamma=1.0, degree=3, coef0=1.0) -> np.ndarray:
    """Kernel matrix k(X, Y) (``Y = X`` if omitted) for a kernel name or callable."""
    return Kernel.from_params(kernel, gamma, degree, coef0, X=X)(X, Y)


def kernel_factor(K, *, rtol: float = 1e-10, psd_tol: float = 1e-8) -> np.ndarray:
    """Exact low-rank factor L (n × r) with K = L Lᵀ, from the eigendecomposition of K.

    Eigenvalues below ``rtol · λ_max`` are dropped (they are rounding noise of a PSD matrix;
    the reconstruction error is at most ``n · rtol · λ_max``); r ≤ n is the numerical rank.
    Raises ``ValueError`` when K is not symmetric or has an eigenvalue below
    ``−psd_tol · max(1, λ_max)``: a kernel that is not positive semidefinite would make the
    QP non-convex.
    """
    K = np.asarray(K, dtype=float)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"A kernel matrix must be square, got shape {K.shape}.")
    scale = max(1.0, float(np.max(np.abs(K)))) if K.size else 1.0
    if not np.allclose(K, K.T, rtol=0, atol=1e-10 * scale):
        raise ValueError("The kernel matrix is not symmetric; a kernel must satisfy k(x, x') = k(x', x).")
    eigval, eigvec = np.linalg.eigh(0.5 * (K + K.T))
    top = float(eigval[-1]) if len(eigval) else 0.0
    if len(eigval) and eigval[0] < -psd_tol * max(1.0, top):
        raise ValueError(
            f"The kernel matrix is not positive semidefinite (smallest eigenvalue {eigval[0]:.3g}, "
            f"largest {top:.3g}); the QP would not be convex. Use a valid (Mercer) kernel."
        )
    keep = eigval > rtol * max(top, 0.0)
    return eigvec[:, keep] * np.sqrt(eigval[keep])
