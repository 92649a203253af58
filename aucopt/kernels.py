"""Kernels k(x, x') of the kernel-expansion rankers, evaluated with scikit-learn.

* ``"linear"``: xᵀx'
* ``"rbf"``: exp(−γ‖x − x'‖²) (Ataman 2007, eq. 3.4)
* ``"poly"``: (γ xᵀx' + coef0)^degree; γ = 1, coef0 = 1 gives the (xᵀx' + 1)^p of Ataman (2007),
  eq. 3.5
* ``"precomputed"``: X already is the kernel matrix (rows: points to score, columns: basis)
* a callable ``k(X, Y) -> ndarray``

The kernel width ``gamma`` may also be a rule evaluated on the training data
(:func:`gamma_from_rule`): ``"scale"`` and ``"auto"`` as in :class:`sklearn.svm.SVC`, and
``"sigma2"``, the heuristic of Tayal et al. (2015), Sec. 6.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from numbers import Real
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike
from sklearn.metrics import pairwise

from ._validation import check_finite_output, largest_magnitude, scale_fix

#: the named kernels
KERNELS = ("linear", "rbf", "poly", "precomputed")
#: the data-dependent rules for ``gamma`` (:func:`gamma_from_rule`)
GAMMA_RULES = ("scale", "auto", "sigma2")

__all__ = [
    "GAMMA_RULES",
    "KERNELS",
    "Kernel",
    "check_lp_kernel_values",
    "checked_kernel_matrix",
    "gamma_from_rule",
    "kernel_factor",
    "kernel_matrix",
]

#: HiGHS refuses an LP with a constraint coefficient of this magnitude or more (its option
#: ``large_matrix_value``); the kernel values are the LP Ranker's coefficients
HIGHS_LARGEST_COEFFICIENT = 1e15


def gamma_from_rule(rule: str, X: ArrayLike | sp.spmatrix) -> float:
    """The RBF / polynomial kernel coefficient γ computed from the training data.

    Parameters
    ----------
    rule : {"scale", "auto", "sigma2"}
        ``"scale"``: 1 / (d · Var X) and ``"auto"``: 1 / d, as :class:`sklearn.svm.SVC`;
        ``"sigma2"``: 1 / σ² with σ² the mean squared distance between two training points.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Training data.

    Returns
    -------
    gamma : float
        The coefficient γ > 0 (1 when the data are constant).

    Raises
    ------
    ValueError
        When the rule gives no finite positive γ: the variance or mean squared distance of
        ``X`` overflows float64, or underflows to 0 (or to a value whose inverse overflows)
        although ``X`` is not constant. The message names the rule and the fix (rescale ``X``
        or pass a number).

    Notes
    -----
    Tayal et al. (2015), Sec. 6, use the Gaussian kernel exp(−‖u − v‖²/σ²) with
    σ² = (1/m²) Σ_ij ‖x_i − x_j‖² = 2 (1/m) Σ_i ‖x_i − x̄‖², computed in O(md); on
    standardized data σ² = 2d.

    References
    ----------
    .. [1] Tayal, A., Coleman, T. F., & Li, Y. (2015). RankRC: Large-scale nonlinear rare class
       ranking. *IEEE Transactions on Knowledge and Data Engineering*, 27(12), 3347–3359.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.kernels import gamma_from_rule
    >>> X = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0], [2.0, 2.0]])
    >>> gamma_from_rule("auto", X), gamma_from_rule("scale", X), gamma_from_rule("sigma2", X)
    (0.5, 0.5, 0.25)
    """
    dense = X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=float)
    n_features = dense.shape[1]
    if rule == "auto":
        return 1.0 / n_features
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        if rule == "scale":
            spread = float(np.var(dense))
            gamma = 1.0 / (n_features * spread) if spread > 0 else 1.0
            what = "the variance of X"
        else:
            spread = 2.0 * float(np.mean(np.sum((dense - dense.mean(axis=0)) ** 2, axis=1)))
            gamma = 1.0 / spread if spread > 0 else 1.0
            what = "the mean squared distance between two points of X"
        constant = dense.size == 0 or bool(np.all(dense == dense.flat[0]))
    if np.isfinite(gamma) and gamma > 0 and (spread > 0 or constant):
        return float(gamma)
    if np.isnan(spread):
        happened = "is NaN (X holds NaN or infinite values)"
    elif np.isinf(spread):
        happened = "overflows float64"
    elif spread == 0:
        happened, gamma = "underflows to 0 although X is not constant", float("inf")
    else:
        happened = f"is {spread:.3g}, too small to invert in float64"
    magnitude = largest_magnitude(dense)
    raise ValueError(
        f"gamma={rule!r} cannot be computed from this X: {what} {happened} (X has entries of "
        f"magnitude up to {magnitude:.3g}), so gamma would be {gamma:.3g}. Either "
        f"{scale_fix('X')}, or pass a positive number as gamma."
    )


@dataclass(frozen=True)
class Kernel:
    """A validated kernel; ``kernel(X, Y)`` returns the ``len(X) × len(Y)`` kernel matrix.

    Parameters
    ----------
    name : {"linear", "rbf", "poly", "precomputed"} or callable, default="rbf"
        The kernel (see the module description); a callable maps ``(X, Y)`` to a matrix.
    gamma : float, default=None
        The coefficient γ of ``"rbf"`` and ``"poly"`` (already resolved; see
        :meth:`from_params` for the data-dependent rules).
    degree : int, default=3
        Degree of ``"poly"``.
    coef0 : float, default=1.0
        Constant term of ``"poly"``.

    See Also
    --------
    kernel_matrix : Build and evaluate a kernel in one call.
    sklearn.metrics.pairwise : The evaluation of the named kernels.

    References
    ----------
    .. [1] Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming
       for problems with binary output*. PhD thesis, University of Iowa.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.kernels import Kernel
    >>> kernel = Kernel.from_params("rbf", gamma=0.5)
    >>> kernel(np.array([[0.0], [1.0]])).round(4).tolist()
    [[1.0, 0.6065], [0.6065, 1.0]]
    >>> Kernel.from_params("rbf", gamma="auto", X=np.zeros((3, 4))).gamma
    0.25
    """

    name: str | object = "rbf"
    gamma: float | None = None
    degree: int = 3
    coef0: float = 1.0

    @classmethod
    def from_params(cls, kernel: str | Callable[..., Any] = "rbf", gamma: str | float = "scale", degree: int = 3,
                    coef0: float = 1.0, X: ArrayLike | sp.spmatrix | None = None) -> Kernel:
        """A kernel from estimator-style parameters, resolving a ``gamma`` rule on ``X``.

        Parameters
        ----------
        kernel : {"linear", "rbf", "poly", "precomputed"} or callable, default="rbf"
            The kernel.
        gamma : {"scale", "auto", "sigma2"} or float, default="scale"
            A positive coefficient, or a rule of :func:`gamma_from_rule` evaluated on ``X``.
        degree : int, default=3
            Degree of ``"poly"`` (a positive integer).
        coef0 : float, default=1.0
            Constant term of ``"poly"`` (finite).
        X : {array-like, sparse matrix} of shape (n_samples, n_features), default=None
            Training data; needed when ``gamma`` is a rule.

        Returns
        -------
        kernel : Kernel
        """
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
        if not isinstance(degree, Real) or float(degree) < 1 or int(float(degree)) != degree:
            raise ValueError(f"degree must be a positive integer; got {degree!r}.")
        if not isinstance(coef0, Real) or not np.isfinite(float(coef0)):
            raise ValueError(f"coef0 must be a finite number; got {coef0!r}.")
        return cls(name=kernel, gamma=float(gamma), degree=int(float(degree)), coef0=float(coef0))

    def __call__(self, X: Any, Y: Any = None) -> np.ndarray:
        """The kernel matrix k(X, Y) (``Y = X`` when omitted; ``X`` itself when precomputed).

        Raises
        ------
        ValueError
            When the kernel has NaN or infinite values (a callable or precomputed kernel that
            returns them; a named kernel whose values overflow on ``X``), or, except for the RBF
            kernel (values in [0, 1]), values whose squares summed over the samples overflow
            float64, as the fits form those sums. Each message names the kernel and the fix.
        """
        name = self.name
        if callable(name):
            K = np.asarray(name(X, X if Y is None else Y), dtype=float)
            source = "the kernel callable"
            check_finite_output(
                K, source,
                fix=f"it must return a finite {_num_rows(X)} x {_num_rows(X if Y is None else Y)} matrix "
                    "(check it on the rows of X that give NaN or infinity, or rescale X)")
            fix = "scale the kernel down (or rescale X)"
        elif name == "precomputed":
            K = check_finite_output(np.asarray(X, dtype=float), "the precomputed kernel matrix",
                                    fix="pass a finite kernel matrix")
            source, fix = "the precomputed kernel matrix", "scale the kernel matrix down"
        else:
            with np.errstate(over="ignore", invalid="ignore"):
                if name == "linear":
                    K = pairwise.linear_kernel(X, Y)
                elif name == "rbf":
                    K = pairwise.rbf_kernel(X, Y, gamma=self.gamma)
                else:
                    K = pairwise.polynomial_kernel(X, Y, degree=self.degree, gamma=self.gamma, coef0=self.coef0)
            K = np.asarray(K, dtype=float)
            source, fix = f"the {name} kernel", scale_fix("X")
            if name == "poly":
                source += f" (gamma={self.gamma:.3g}, degree={self.degree})"
                fix += ", or use a smaller gamma (e.g. gamma='scale') or degree"
            if not np.all(np.isfinite(K)):
                magnitude = max(largest_magnitude(X), 0.0 if Y is None else largest_magnitude(Y))
                check_finite_output(K, f"{source} of features of magnitude up to {magnitude:.3g}", fix=fix)
        if name != "rbf" and K.size:  # the fits sum squared kernel values
            top = largest_magnitude(K)
            with np.errstate(over="ignore"):
                overflows = not np.isfinite(np.square(np.float64(top)) * K.size)
            if overflows:
                raise ValueError(f"The values of {source} reach {top:.3g}, whose squares summed over the samples "
                                 f"overflow float64: {fix}.")
        return K

    @property
    def precomputed(self) -> bool:
        """Whether X is already the kernel matrix."""
        return isinstance(self.name, str) and self.name == "precomputed"


def _num_rows(X: Any) -> int:
    return X.shape[0] if hasattr(X, "shape") else len(X)


def kernel_matrix(X: ArrayLike | sp.spmatrix, Y: ArrayLike | sp.spmatrix | None = None,
                  kernel: str | Callable[..., Any] = "rbf", gamma: str | float = 1.0, degree: int = 3,
                  coef0: float = 1.0) -> np.ndarray:
    """The kernel matrix k(X, Y) for a kernel name or callable.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples_X, n_features)
        Rows of the matrix.
    Y : {array-like, sparse matrix} of shape (n_samples_Y, n_features), default=None
        Columns of the matrix; None means ``X``.
    kernel : {"linear", "rbf", "poly", "precomputed"} or callable, default="rbf"
        The kernel.
    gamma : {"scale", "auto", "sigma2"} or float, default=1.0
        Coefficient of ``"rbf"`` and ``"poly"``, or a rule evaluated on ``X``.
    degree : int, default=3
        Degree of ``"poly"``.
    coef0 : float, default=1.0
        Constant term of ``"poly"``.

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)

    See Also
    --------
    Kernel : The validated kernel behind this function.
    kernel_factor : A factor L with K = L Lᵀ.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.kernels import kernel_matrix
    >>> X = np.array([[1.0, 0.0], [0.0, 2.0]])
    >>> kernel_matrix(X, kernel="poly", gamma=1.0, degree=2, coef0=1.0).tolist()
    [[4.0, 1.0], [1.0, 25.0]]
    """
    return Kernel.from_params(kernel, gamma, degree, coef0, X=X)(X, Y)


def kernel_factor(K: ArrayLike, *, rtol: float = 1e-10, psd_tol: float = 1e-8) -> np.ndarray:
    """An exact low-rank factor L with K = L Lᵀ, from the eigendecomposition of K.

    Parameters
    ----------
    K : array-like of shape (n_samples, n_samples)
        A symmetric positive semidefinite kernel matrix.
    rtol : float, default=1e-10
        Eigenvalues below ``rtol · λ_max`` are dropped as rounding noise; the reconstruction
        error is at most n · rtol · λ_max.
    psd_tol : float, default=1e-8
        An eigenvalue below ``−psd_tol · max(1, λ_max)`` means K is not positive semidefinite.

    Returns
    -------
    L : ndarray of shape (n_samples, rank)
        The factor; ``rank`` ≤ n is the numerical rank of K.

    Raises
    ------
    ValueError
        When K is not square, not symmetric or not positive semidefinite (its QP would not be
        convex).

    See Also
    --------
    kernel_matrix : Builds K.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.kernels import kernel_factor
    >>> K = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> L = kernel_factor(K)
    >>> L.shape, np.allclose(L @ L.T, K)
    ((2, 2), True)
    """
    _, eigval, eigvec = checked_kernel_matrix(K, psd_tol=psd_tol, vectors=True)
    assert eigvec is not None  # vectors=True
    keep = eigval > rtol * max(float(eigval[-1]) if len(eigval) else 0.0, 0.0)
    return eigvec[:, keep] * np.sqrt(eigval[keep])


def checked_kernel_matrix(K: ArrayLike, *, psd_tol: float = 1e-8, vectors: bool = False,
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """K checked square, finite, symmetric and positive semidefinite, with its eigenvalues.

    Parameters
    ----------
    K : array-like of shape (n_samples, n_samples)
        A kernel matrix.
    psd_tol : float, default=1e-8
        An eigenvalue below ``−psd_tol · max(1, λ_max)`` means K is not positive semidefinite.
    vectors : bool, default=False
        Also return the eigenvectors (``numpy.linalg.eigh``; otherwise only ``eigvalsh``).

    Returns
    -------
    K : ndarray of shape (n_samples, n_samples)
        ½(K + Kᵀ), exactly symmetric.
    eigval : ndarray of shape (n_samples,)
        Its eigenvalues, ascending.
    eigvec : ndarray of shape (n_samples, n_samples) or None
        Its eigenvectors when ``vectors`` is True.

    Raises
    ------
    ValueError
        When K is not square, not finite, not symmetric or not positive semidefinite (a QP or
        dual over it would not be convex).

    See Also
    --------
    kernel_factor : The factor L with K = L Lᵀ, after these checks.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.kernels import checked_kernel_matrix
    >>> checked_kernel_matrix(np.array([[2.0, 1.0], [1.0, 2.0]]))[1].tolist()
    [1.0, 3.0]
    >>> checked_kernel_matrix(np.array([[1.0, 2.0], [2.0, 1.0]]))
    Traceback (most recent call last):
    ...
    ValueError: The kernel matrix is not positive semidefinite (smallest eigenvalue -1, largest 3); the QP would
    not be convex. Use a valid (Mercer) kernel.
    """
    M = np.asarray(K, dtype=float)
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ValueError(f"A kernel matrix must be square, got shape {M.shape}.")
    check_finite_output(M, "the kernel", fix="a kernel must give finite values (rescale X, or check the kernel)")
    scale = max(1.0, float(np.max(np.abs(M)))) if M.size else 1.0
    if not np.allclose(M, M.T, rtol=0, atol=1e-10 * scale):
        raise ValueError("The kernel matrix is not symmetric; a kernel must satisfy k(x, x') = k(x', x).")
    M = 0.5 * (M + M.T)
    try:
        eigval, eigvec = np.linalg.eigh(M) if vectors else (np.linalg.eigvalsh(M), None)
    except np.linalg.LinAlgError as exc:  # pragma: no cover - finite symmetric input converges
        raise ValueError(
            f"The eigendecomposition of the {M.shape[0]} x {M.shape[0]} kernel matrix did not converge "
            f"(entries up to {largest_magnitude(M):.3g}); rescale X or choose another kernel."
        ) from exc
    top = float(eigval[-1]) if len(eigval) else 0.0
    if len(eigval) and eigval[0] < -psd_tol * max(1.0, top):
        raise ValueError(
            f"The kernel matrix is not positive semidefinite (smallest eigenvalue {eigval[0]:.3g}, "
            f"largest {top:.3g}); the QP would not be convex. Use a valid (Mercer) kernel."
        )
    return M, eigval, eigvec


def check_lp_kernel_values(K: np.ndarray, solver: str | None) -> None:
    """Refuse kernel values that the LP backend cannot take as constraint coefficients.

    The kernel values are the coefficients of the LP Ranker's pair rows. HiGHS refuses a model
    with a coefficient of magnitude 1e15 or more (:data:`HIGHS_LARGEST_COEFFICIENT`), so such a
    kernel (e.g. the linear kernel of unscaled features) is refused before the LP is built.

    Parameters
    ----------
    K : ndarray
        The kernel matrix of the LP.
    solver : str or None
        The ``solver=`` name; only the HiGHS backend has this limit (None: no LP solver).

    Raises
    ------
    ValueError
        Naming the largest kernel value and the fix.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.kernels import check_lp_kernel_values
    >>> check_lp_kernel_values(np.array([[1e14]]), "highs")
    >>> check_lp_kernel_values(np.array([[2e15]]), "highs")
    Traceback (most recent call last):
    ...
    ValueError: The kernel values reach 2e+15, and HiGHS refuses LP coefficients of magnitude 1e+15 or more:
    rescale X, e.g. with sklearn.preprocessing.StandardScaler (or use kernel='rbf', whose values lie in [0, 1]).
    """
    if not isinstance(solver, str) or not solver.strip().lower().startswith("highs"):
        return
    top = largest_magnitude(K)
    if top >= HIGHS_LARGEST_COEFFICIENT:
        raise ValueError(
            f"The kernel values reach {top:.3g}, and HiGHS refuses LP coefficients of magnitude "
            f"{HIGHS_LARGEST_COEFFICIENT:.0e} or more: {scale_fix('X')} (or use kernel='rbf', whose "
            "values lie in [0, 1])."
        )
