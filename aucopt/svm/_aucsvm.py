"""AUC-maximizing SVM estimators (Brefeld & Scheffer 2005): pairwise duals, liblinear route, k-means."""

from __future__ import annotations

from numbers import Integral

import numpy as np

from ..base import (PAIR_OPTIONS_DOC, THRESHOLD_DOC, BinaryRankerMixin, KernelPairRanker, Solution,
                    SurvivalRankerMixin, check_kernel_bytes, dense)
from ..kernels import kernel_factor
from ..modeling import get_formulation
from ..pairs import DEFAULT_MAX_BYTES, PairSet
from ..solvers import SolveResult, Status, check_solver, solve

class _AUCSVMModel(KernelPairRanker):
    def __init__(self, C=1.0, *, norm=1, kernel="rbf", gamma="scale", degree=3, coef0=1.0,
                 solver="osqp", solver_options=None, reduction=None, n_clusters=None,
                 random_state=0, support_threshold=1e-8, max_bytes=DEFAULT_MAX_BYTES):
        self.C = C
        self.norm = norm
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.solver = solver
        self.solver_options = solver_options
        self.reduction = reduction
        self.n_clusters = n_clusters
        self.random_state = random_state
        self.support_threshold = support_threshold
        self.max_bytes = max_bytes

    def _check_model_params(self):
        if self.norm not in (1, 2) or isinstance(self.norm, bool):
            raise ValueError(f"norm must be 1 (hinge, OP3) or 2 (squared hinge, OP4); got {self.norm!r}.")
        if self.reduction not in (None, "kmeans"):
            raise ValueError(f"reduction must be None or 'kmeans'; got {self.reduction!r}.")
        linear_only = self.solver == "liblinear" or self.reduction == "kmeans"
        if linear_only and self.kernel != "linear":
            what = "solver='liblinear' (Theorem 2)" if self.solver == "liblinear" else "reduction='kmeans'"
            raise ValueError(f"{what} needs explicit pair differences, i.e. kernel='linear'; got kernel={self.kernel!r}.")
        if self.solver == "liblinear" and self.reduction is not None:
            raise ValueError("solver='liblinear' solves the exact problem; use reduction=None with it.")
        if self.n_clusters is not None and (not isinstance(self.n_clusters, Integral) or self.n_clusters < 1):
            raise ValueError(f"n_clusters must be a positive integer or None; got {self.n_clusters!r}.")
        if self.solver != "liblinear":
            check_solver(self.solver)

    def _solve(self, X, pairs, kernel):
        from ._pairwise_linear import kmeans_difference_centers, theorem2_weights

        C, norm = float(self.C), int(self.norm)
        if self.solver == "liblinear":
            w, converged, iters = theorem2_weights(X, pairs, C, norm, max_bytes=self.max_bytes)
            objective = _primal_objective(np.asarray(X @ w).ravel(), float(w @ w), pairs, C, norm)
            result = SolveResult(status=Status.OPTIMAL if converged else Status.ITERATION_LIMIT,
                                 objective=objective, x=w, iterations=iters, solver="liblinear",
                                 problem_name=f"aucsvm_l{norm}_primal (Theorem 2)").raise_for_status()
            # the model is the single vector w with coefficient 1: f(x) = <x, w>
            return Solution(w[None, :], np.ones(1), result, objective)
        if self.reduction == "kmeans":
            centers = kmeans_difference_centers(X, pairs, self.n_clusters, random_state=self.random_state,
                                                max_bytes=self.max_bytes)
            # each center c_u is a "pair" between a virtual point at c_u and one at the origin
            basis = np.vstack([centers, np.zeros((1, centers.shape[1]))])
            k = len(centers)
            pairs = PairSet.from_arrays(np.arange(k), np.full(k, k), n_points=k + 1)
            factor = basis
        elif kernel.name == "linear":
            basis, factor = X, X  # K = X Xᵀ exactly; u = Xᵀv has d entries
        else:
            check_kernel_bytes(X.shape[0], self.max_bytes)
            basis = None if kernel.precomputed else X
            factor = kernel_factor(kernel(dense(X) if kernel.precomputed else X))
        problem = get_formulation(f"aucsvm_l{norm}_dual").build(
            pairs, factor=factor, max_bytes=self.max_bytes, C=C)
        result = solve(problem, self.solver, **(self.solver_options or {})).raise_for_status()
        coef = problem.output(result.x, "coef")
        alpha = problem.block(result.x, "alpha")
        i, j, _ = pairs.to_arrays(None)
        support = alpha > self.support_threshold * C
        self.support_pairs_ = np.column_stack([i[support], j[support]])
        self.support_alpha_ = alpha[support]
        self.dual_objective_ = result.objective
        self.problem_size_ = {"variables": problem.n_vars, "rows": problem.n_rows, "nonzeros": problem.nnz}
        u = np.asarray(factor.T @ coef).ravel()  # Lᵀ coef: w in the factor's coordinates
        f = np.asarray(factor @ u).ravel()  # training scores K coef
        return Solution(basis, coef, result, _primal_objective(f, float(u @ u), pairs, C, norm))



def _primal_objective(f, w_sq_norm, pairs: PairSet, C, norm) -> float:
    """OP2: ½‖w‖² + (C/r) Σ w_ij ξ_ij^r with ξ_ij = max(0, 1 − (f_i − f_j))."""
    i, j, w = pairs.to_arrays(None)
    xi = np.maximum(0.0, 1.0 - (f[i] - f[j]))
    return 0.5 * w_sq_norm + C / norm * float(w @ xi**norm)


_AUCSVM_DOC = """
    Parameters
    ----------
    C : pair-loss weight (> 0). Because the loss sums over n⁺n⁻ pairs, good values are much
        smaller than a regular SVM's (about C_SVM / (2 n∓), seed 001 spec §P1.3).
    norm : 1 (hinge, OP3: 0 ≤ α ≤ C) or 2 (squared hinge, OP4: α ≥ 0, K′ + I/C).
    kernel, gamma, degree, coef0 : as in :class:`LPRanker`.
    solver : a QP backend (``"osqp"`` default, ``"highs"``, ``"clarabel"``, ``"cvxpy:<NAME>"``) for
        the lifted dual, or ``"liblinear"`` for a linear kernel: Theorem 2, an unthresholded
        linear SVM on symmetrized pair differences (dense or sparse X).
    reduction : None (exact) or ``"kmeans"``: cluster the pair differences into ``n_clusters``
        (default n⁺ + n⁻) centers and solve the dual on their Gram matrix (paper Table 1;
        linear kernel only; unweighted as in the paper).
    random_state : seed of the k-means reduction.
    tol : kept vectors |coef_l| > tol · max(1, max|coef|); support pairs α > tol · C.
    max_bytes : refuse problems whose assembly would need more memory than this.

    Attributes
    ----------
    support_, support_vectors_, dual_coef_ : points with nonzero coef = Aᵀα and their coef.
    support_pairs_, support_alpha_ : the (i, j) pairs with α_ij > tol · C and their α.
    objective_ : primal objective ½‖w‖² + (C/r) Σ w_ij ξ_ij^r at the solution (OP2);
    dual_objective_ : the solver's dual objective (= −objective_ at optimality).
"""


class AUCSVM(BinaryRankerMixin, _AUCSVMModel):
    __doc__ = """AUC-maximizing SVM for binary labels (Brefeld & Scheffer 2005, seed 001).

    min_w ½‖w‖² + (C/r) Σ_{i∈X+, j∈X−} w_ij ξ_ij^r  s.t.  ⟨w, φ(x_i) − φ(x_j)⟩ ≥ 1 − ξ_ij, solved
    through its pairwise dual (OP3 / OP4) as a lifted sparse QP that never forms the P × P
    pairwise kernel; f(x) = Σ_l coef_l k(x_l, x) with coef = Aᵀα.
    ``pos_label`` selects the positive class (default: the larger label).
    """ + _AUCSVM_DOC + THRESHOLD_DOC

    def __init__(self, C=1.0, *, norm=1, kernel="rbf", gamma="scale", degree=3, coef0=1.0,
                 solver="osqp", solver_options=None, reduction=None, n_clusters=None,
                 random_state=0, support_threshold=1e-8, pos_label=None, max_bytes=DEFAULT_MAX_BYTES):
        super().__init__(C, norm=norm, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                         solver=solver, solver_options=solver_options, reduction=reduction,
                         n_clusters=n_clusters, random_state=random_state, support_threshold=support_threshold,
                         max_bytes=max_bytes)
        self.pos_label = pos_label


class SurvivalAUCSVM(SurvivalRankerMixin, _AUCSVMModel):
    __doc__ = """Hinge-loss (or squared-hinge) survival SVM: the AUC-SVM dual over Harrell's pairs.

    Ranks subjects by risk (higher = earlier event) with one pair constraint per comparable
    pair (event_i and t_i < t_j, or t_i = t_j with j censored).
    """ + _AUCSVM_DOC + PAIR_OPTIONS_DOC

    def __init__(self, C=1.0, *, norm=1, kernel="rbf", gamma="scale", degree=3, coef0=1.0,
                 solver="osqp", solver_options=None, reduction=None, n_clusters=None,
                 random_state=0, support_threshold=1e-8, pair_options=None, max_bytes=DEFAULT_MAX_BYTES):
        super().__init__(C, norm=norm, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                         solver=solver, solver_options=solver_options, reduction=reduction,
                         n_clusters=n_clusters, random_state=random_state, support_threshold=support_threshold,
                         max_bytes=max_bytes)
        self.pair_options = pair_options


