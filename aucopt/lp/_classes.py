"""LP Ranker estimators (Ataman 2007): the kernel LP over bipartite or survival pairs."""

from __future__ import annotations

import numpy as np

from .._validation import format_bytes
from ..base import (PAIR_OPTIONS_DOC, THRESHOLD_DOC, BinaryRankerMixin, KernelPairRanker, Solution, SurvivalRankerMixin,
                    check_kernel_bytes, dense)
from ..kernels import Kernel
from ..modeling import BYTES_PER_NONZERO, get_formulation
from ..pairs import BYTES_PER_PAIR, DEFAULT_MAX_BYTES, PairSet
from ..solvers import check_solver, solve

LP_METHODS = ("full", "chunking", "clustering", "subgradient")


class _LPRankerModel(KernelPairRanker):
    def __init__(self, C=1.0, *, kernel="rbf", gamma="scale", degree=3, coef0=1.0,
                 formulation="lp_ranker", method="full", method_options=None, solver="highs",
                 solver_options=None, support_threshold=1e-8, lifted=True, max_bytes=DEFAULT_MAX_BYTES):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.formulation = formulation
        self.method = method
        self.method_options = method_options
        self.solver = solver
        self.solver_options = solver_options
        self.support_threshold = support_threshold
        self.lifted = lifted
        self.max_bytes = max_bytes

    def _check_model_params(self):
        if self.method not in LP_METHODS:
            raise ValueError(f"method must be one of {LP_METHODS}; got {self.method!r}.")
        if self.method_options is not None and not isinstance(self.method_options, dict):
            raise ValueError(f"method_options must be a dict or None; got {self.method_options!r}.")
        _check_method_options(self.method, self.method_options)
        if self.method in ("chunking", "subgradient") and self.formulation != "lp_ranker":
            raise ValueError(f"method={self.method!r} solves the LP Ranker itself; use formulation='lp_ranker'.")
        check_solver(self.solver)
        get_formulation(self.formulation)

    def _check_size(self, pairs: PairSet):
        """Refuse, before building, problems whose assembly would exceed ``max_bytes``."""
        if self.max_bytes is None:
            return
        m, P = pairs.n_points, pairs.n_pairs
        rows = m * m + (3 if self.lifted else 2 * m) * P
        need = rows * BYTES_PER_NONZERO + P * BYTES_PER_PAIR + m * m * 8
        if need > self.max_bytes:
            raise ValueError(
                f"The {'lifted' if self.lifted else 'dense'} LP for {m:,} points and {P:,} pairs "
                f"would need about {format_bytes(need)} (limit max_bytes={format_bytes(self.max_bytes)}). "
                "Use method='subgradient' (never lists pairs), method='clustering' or "
                "method='chunking', subsample, or raise max_bytes."
            )

    def _solve(self, X, pairs, kernel):
        from . import _scale as lp_scale

        options = dict(self.method_options or {})
        C = float(self.C)
        basis = None if kernel.precomputed else X
        if self.method == "clustering":
            return self._solve_clustered(X, pairs, kernel, options)
        if self.method == "full":
            self._check_size(pairs)
        check_kernel_bytes(X.shape[0], self.max_bytes)
        K = kernel(dense(X) if kernel.precomputed else X)
        if self.method == "subgradient":
            run = lp_scale.subgradient(K, pairs, C, **options)
            self.method_result_ = run
            return Solution(basis, pairs.signs * run.alpha, None, run.objective)
        if self.method == "chunking":
            run = lp_scale.chunking(K, pairs, C, solver=self.solver, solver_options=self.solver_options,
                                    **options)
            self.method_result_ = run
            return Solution(basis, pairs.signs * run.alpha, run.solve_result, run.objective)
        form = get_formulation(self.formulation)
        problem = form.build(pairs, K, lifted=self.lifted, max_bytes=self.max_bytes, C=C)
        result = solve(problem, self.solver, **(self.solver_options or {})).raise_for_status()
        self.problem_size_ = {"variables": problem.n_vars, "rows": problem.n_rows, "nonzeros": problem.nnz}
        return Solution(basis, problem.output(result.x, "coef"), result, result.objective)

    def _solve_clustered(self, X, pairs, kernel, options):
        """Reduced LP 4.1 on the local-clustering centers, cluster-pair weights w_s·w_t."""
        from ._clustering import local_clustering

        if pairs.target != "bipartite" or kernel.precomputed:
            raise ValueError("method='clustering' needs binary labels and explicit features (not a precomputed kernel).")
        clusters = local_clustering(dense(X), pairs.signs > 0, **options)
        reduced = clusters.pairs()
        self.reduction_ = {"points": (clusters.n_points_before, clusters.n_points_after),
                           "pairs": (clusters.n_pairs_before, clusters.n_pairs_after)}
        K = kernel(clusters.centers)
        problem = get_formulation(self.formulation).build(reduced, K, lifted=self.lifted,
                                                          max_bytes=self.max_bytes, C=float(self.C))
        result = solve(problem, self.solver, **(self.solver_options or {})).raise_for_status()
        self.problem_size_ = {"variables": problem.n_vars, "rows": problem.n_rows, "nonzeros": problem.nnz}
        return Solution(clusters.centers, problem.output(result.x, "coef"), result, result.objective)


_LP_DOC = """
    Parameters
    ----------
    C : pair-loss weight (> 0).
    kernel, gamma, degree, coef0 : ``"rbf"`` (default), ``"linear"``, ``"poly"``,
        ``"precomputed"`` or a callable; ``gamma="scale"`` is 1/(d·Var(X)) as in ``SVC``.
    formulation : registered formulation name (``"lp_ranker"``, ``"lp_ranker_free_sign"``, …)
        or a function ``f(m, C)`` (see :mod:`aucopt.modeling`).
    method : how the LP is solved (seed 003 Ch. IV):
        ``"full"`` (default) the whole LP; ``"chunking"`` exact constraint generation
        (:func:`aucopt.lp_scale.chunking`: n_chunks, scheme 1|2, top_k, violation, tol);
        ``"clustering"`` the reduced LP 4.1 on local-clustering centers (binary labels;
        :func:`aucopt.clustering.local_clustering`: variant "b"|"bp"|"f"); ``"subgradient"``
        projected subgradient with the O(m log m) pair core (:func:`aucopt.lp_scale.subgradient`:
        rule, lam0, lam_end, patience, shrink, target_frac, max_iter, callback, progress).
    method_options : dict of keyword options for the chosen method (listed above).
    solver : ``"highs"`` (default), ``"osqp"``, ``"cvxpy"`` (Clarabel) or ``"cvxpy:<NAME>"``.
    solver_options : keyword options for the backend (time_limit, tolerances, …).
    tol : ranking vectors are the points with |coef_l| > tol · max(1, max|coef|) (the
        subgradient's α is rarely exactly 0: pick tol accordingly, e.g. 1e-3).
    lifted : sparse lifted LP (True) or the thesis's dense pair rows (False).
    max_bytes : refuse problems whose assembly would need more memory than this.

    Attributes
    ----------
    support_, support_vectors_, dual_coef_ : ranking vectors and their y_l α_l.
    objective_ : LP objective F(α) at the solution (the full LP's, over all pairs, for chunking and
        subgradient; the reduced LP's for clustering);
    solve_result_ : the :class:`~aucopt.solvers.SolveResult` of the (last) LP (None for subgradient);
    method_result_ : the chunking / subgradient record (passes, retained pairs, history);
    reduction_ : points and pairs before/after clustering.
"""




class LPRanker(BinaryRankerMixin, _LPRankerModel):
    __doc__ = """LP Ranker for binary labels (Ataman 2007, seed 003 eq. 3.3).

    Solves min_{α≥0} Σ α_l + C Σ_{i∈X+, j∈X−} w_ij [1 − f(x_i) + f(x_j)]_+ with
    f(x) = Σ_l y_l α_l k(x, x_l), as the lifted sparse LP (score variables s = K Y α).
    ``pos_label`` selects the positive class (default: the larger label).
    """ + _LP_DOC + THRESHOLD_DOC

    def __init__(self, C=1.0, *, kernel="rbf", gamma="scale", degree=3, coef0=1.0,
                 formulation="lp_ranker", method="full", method_options=None, solver="highs",
                 solver_options=None, support_threshold=1e-8, pos_label=None, lifted=True,
                 max_bytes=DEFAULT_MAX_BYTES):
        super().__init__(C, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                         formulation=formulation, method=method, method_options=method_options,
                         solver=solver, solver_options=solver_options, support_threshold=support_threshold, lifted=lifted,
                         max_bytes=max_bytes)
        self.pos_label = pos_label


class SurvivalLPRanker(SurvivalRankerMixin, _LPRankerModel):
    __doc__ = """LP Ranker for censored survival data (seed 003 Ch. V, eq. 5.3).

    The same LP as :class:`LPRanker` over Harrell's comparable pairs: (i, j) with an observed
    event for i and t_i < t_j, or t_i = t_j with j censored. y_l = +1 for events and −1 for
    censored subjects. Higher scores mean higher risk (earlier event). ``y`` is a structured
    array with a boolean event field and a float time field (scikit-survival's
    ``Surv.from_arrays`` or :func:`aucopt.survival_target`).
    """ + _LP_DOC + PAIR_OPTIONS_DOC

    def __init__(self, C=1.0, *, kernel="rbf", gamma="scale", degree=3, coef0=1.0,
                 formulation="lp_ranker", method="full", method_options=None, solver="highs",
                 solver_options=None, support_threshold=1e-8, pair_options=None, lifted=True,
                 max_bytes=DEFAULT_MAX_BYTES):
        super().__init__(C, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                         formulation=formulation, method=method, method_options=method_options,
                         solver=solver, solver_options=solver_options, support_threshold=support_threshold, lifted=lifted,
                         max_bytes=max_bytes)
        self.pair_options = pair_options



def _check_method_options(method: str, options):
    """Reject option names the chosen LP method does not take (before any work)."""
    import inspect

    from . import _scale as lp_scale
    from ._clustering import local_clustering

    if not options:
        return
    target = {"chunking": lp_scale.chunking, "subgradient": lp_scale.subgradient,
              "clustering": local_clustering}.get(method)
    reserved = {"K", "pairs", "C", "X", "y_positive", "solver", "solver_options"}
    valid = [] if target is None else [p for p in inspect.signature(target).parameters if p not in reserved]
    unknown = sorted(set(options) - set(valid))
    if unknown:
        raise ValueError(
            f"method_options {unknown} are not options of method={method!r}; valid: {valid or 'none'}"
            + (" (solver and solver_options are estimator parameters)." if method == "chunking" else ".")
        )


