"""The AUC-SVM's dual coordinate descent route: its data at unit scale, the start of a linear
kernel from Newton's smooth primal, and one run over the sorted pairs (never listed) or the list."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from ..base import dense
from ..kernels import Kernel, checked_kernel_matrix
from ..pairs import PairSet

if TYPE_CHECKING:
    from ._dcd_sorted import SortedDCD

__all__: list[str] = []


class _DCDRun:
    """One dual coordinate descent solve: over the sorted pairs without listing them, or over the
    pair list for explicit pairs; α, c = Aᵀα, the epochs, the status and the last gap."""

    def __init__(self, data: np.ndarray, pairs: PairSet, C: float, power: int, *, linear: bool,
                 **options: Any) -> None:
        from ._dcd import dcd_solve
        from ._dcd_sorted import dcd_solve_sorted

        self.C, self.power = C, power
        self.sorted: SortedDCD | None = None
        if pairs.storage == "sorted":
            self.sorted, self.alpha, self.c, self.n_iter, self.status, self.gap = dcd_solve_sorted(
                data, pairs, C, power, linear=linear, **options)
        else:
            self.i, self.j, self.w = pairs.to_arrays(None)
            self.alpha, self.c, self.n_iter, self.status, self.gap = dcd_solve(
                data, self.i, self.j, self.w, C, power, linear=linear, **options)

    def dual_objective(self, f: np.ndarray) -> float:
        """½ cᵀKc + Σ α_p² / (2 C w_p) [2-norm] − Σ α_p, with f = Kc (at the solver's scale)."""
        from ._dcd import dual_objective

        if self.sorted is None:
            return dual_objective(self.alpha, self.w, self.C, self.power, self.c, f)
        total, ridge = self.sorted.dual_sums(self.alpha)
        return 0.5 * float(self.c @ f) + 0.5 * ridge - total

    def support(self, threshold: float) -> tuple[np.ndarray, np.ndarray]:
        """The pairs with α_p > threshold, shape (k, 2) int32, and their α_p, in pair order."""
        if self.sorted is not None:
            return self.sorted.support(self.alpha, threshold)
        support = self.alpha > threshold
        return np.column_stack([self.i[support], self.j[support]]), self.alpha[support]

    def message(self, tol: float, time_limit: float | None) -> str:
        """Why the solve stopped short of ``tol`` ('' when optimal)."""
        if self.status == "optimal":
            return ""
        if self.status == "iteration_limit":
            return (f"{self.n_iter:,} epochs of dual coordinate descent without reaching tol={tol:g} "
                    f"(projected-gradient gap {self.gap:.3g}): raise max_iter or tol")
        return (f"stopped by solver_options['time_limit']={time_limit:g} s after {self.n_iter:,} epochs "
                f"(projected-gradient gap {self.gap:.3g}, tol={tol:g}): raise the time limit or tol")


#: the ε of the smoothed hinge whose primal optimum starts dual coordinate descent on the hinge
#: with a linear kernel, reached from ε = 0.5 by way of 0.1 (measured on make_classification, 1,000
#: and 2,000 rows of 20 features, C = 1: 60 and 68 epochs after ε = 0.01 against 936 and 1,355 from
#: α = 0; 413 and 948 after ε = 0.1; 377 and 134 after ε = 0.001)
DCD_START_EPSILON = 0.01


def _newton_start(data: np.ndarray, pairs: PairSet, C: float, power: int) -> tuple[np.ndarray, float]:
    """The start of dual coordinate descent with a linear kernel, ``(f, ε)``: the training scores
    f = X w of the primal's optimum by truncated Newton (:func:`~aucopt.svm.newton_solve`, O(nd)
    a pass, the pairs never listed), for the squared hinge (α = 2/(C N), whose pair duals
    C w_ij max(0, 1 − z_ij) are the dual's optimum) or for the hinge the ε-smoothed hinge's
    (α = 1/(C N), ε = :data:`DCD_START_EPSILON`; its pair duals C w_ij min(1, ξ_ij / (2ε)) lie in
    the box and differ from the hinge's only where the smoothing does)."""
    from ._newton import newton_solve

    N = pairs.total_weight()
    if power == 2:
        return np.asarray(data @ newton_solve(data, pairs, 2.0 / (C * N)).theta), DCD_START_EPSILON
    theta = None
    for epsilon in (0.5, 0.1, DCD_START_EPSILON):
        theta = newton_solve(data, pairs, 1.0 / (C * N), loss="smoothed_hinge", epsilon=epsilon, theta0=theta).theta
    return np.asarray(data @ theta), DCD_START_EPSILON


def _dcd_data(X: Any, kernel: Kernel) -> tuple[Any, np.ndarray, float]:
    """The expansion basis, the data dual coordinate descent works on and its scale s: X/√s (dense)
    for the linear kernel, else the kernel matrix K/s (checked positive semidefinite unless it is so
    by construction); s from :func:`_unit_scale`."""
    if kernel.name == "linear":
        data = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
        scale = _unit_scale(np.einsum("ij,ij->i", data, data))
        return X, (data / np.sqrt(scale) if scale != 1.0 else data), scale
    data = dense(kernel(dense(X) if kernel.precomputed else X))
    if not _is_mercer(kernel):
        data = checked_kernel_matrix(data)[0]
    scale = _unit_scale(np.diag(data))
    return (None if kernel.precomputed else X), (data / scale if scale != 1.0 else data), scale


def _unit_scale(diagonal: np.ndarray) -> float:
    """max_l K_ll when it is far from 1 (outside [1e-2, 1e2]), else 1 (no rescaling)."""
    scale = float(np.max(diagonal, initial=0.0))
    return scale if 0.0 < scale < np.inf and not 1e-2 <= scale <= 1e2 else 1.0


def _is_mercer(kernel: Kernel) -> bool:
    """Whether the kernel is positive semidefinite by construction (RBF; polynomial with coef0 ≥ 0)."""
    return kernel.name == "rbf" or (kernel.name == "poly" and kernel.coef0 >= 0.0)
