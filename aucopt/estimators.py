"""scikit-learn estimators on top of pairs → formulation → problem → solver.

Two targets × two models:

=================  ==========================  ===============================
                   binary labels (AUC)         survival target (Harrell's C)
=================  ==========================  ===============================
LP Ranker (LP)     :class:`LPRanker`           :class:`SurvivalLPRanker`
AUC-SVM (QP)       :class:`AUCSVM`             :class:`SurvivalAUCSVM`
=================  ==========================  ===============================

Binary rankers are classifiers (``decision_function`` ranks, ``predict`` thresholds it,
``score`` = AUC); survival rankers follow scikit-survival (``predict`` = risk score, higher =
earlier event, ``score`` = Harrell's C). All are kernel expansions
f(x) = Σ_{l ∈ RV} coef_l k(x, x_l) over the kept vectors (|coef_l| > tol). The target mixins
(:class:`_BinaryRanker`, :class:`_SurvivalRanker`) also serve the Newton rankers
(:mod:`aucopt.rankers`) and the greedy sparse rankers (:mod:`aucopt.sparse_greedy`).
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from ._validation import format_bytes, is_survival_target
from .kernels import Kernel, kernel_factor
from .metrics import harrell_c, roc_auc
from .modeling import BYTES_PER_NONZERO, get_formulation
from .pairs import BYTES_PER_PAIR, DEFAULT_MAX_BYTES, PairSet
from .solvers import SolveResult, Status, check_solver, solve


@dataclass
class _Solution:
    """What a model's ``_solve`` hands back: f(x) = Σ_l coef_l k(x, basis_l)."""

    basis: object  # rows the coefficients refer to (None: the precomputed kernel's columns)
    coef: np.ndarray
    result: SolveResult | None  # None when no LP/QP was solved (subgradient)
    objective: float


def validated_data_and_pairs(estimator, X, y, sample_weight):
    """Validate X (resetting the estimator's feature count) and build the estimator's pair set
    (``estimator._make_pairs``), refusing empty or all-zero-weight pair sets; ``(X, pairs)``."""
    X = validate_data(estimator, X, accept_sparse=("csr", "csc"), dtype=np.float64, reset=True)
    pairs = estimator._make_pairs(y, sample_weight)
    if pairs.n_points != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} samples but the target has {pairs.n_points}.")
    pairs.check_nonempty()
    if pairs.total_weight() == 0:
        raise ValueError(
            "All pair weights are zero: sample_weight leaves no pair with positive weight "
            "(e.g. only one class, or no event, has nonzero weight)."
        )
    return X, pairs


class _KernelPairRanker(BaseEstimator):
    """Shared validation, fit and scoring of kernel-expansion pair rankers."""

    # ------------------------------------------------------------------ hooks
    def _check_model_params(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def _solve(self, X, pairs: PairSet, kernel: Kernel) -> _Solution:  # pragma: no cover
        raise NotImplementedError

    def _make_pairs(self, y, sample_weight) -> PairSet:  # pragma: no cover - abstract
        raise NotImplementedError

    # ------------------------------------------------------------------ fit
    def _check_common_params(self):
        if not isinstance(self.C, Real) or isinstance(self.C, bool) or not (0 < self.C < np.inf):
            raise ValueError(f"C must be a positive finite number; got {self.C!r}.")
        if not isinstance(self.tol, Real) or not self.tol >= 0:
            raise ValueError(f"tol must be a non-negative number; got {self.tol!r}.")
        self._check_model_params()

    def _fit(self, X, y, sample_weight=None):
        """Validate everything, then solve; ``sample_weight`` gives pair weights w_i·w_j."""
        self._check_common_params()
        X, pairs = validated_data_and_pairs(self, X, y, sample_weight)
        kernel = Kernel.from_params(self.kernel, self.gamma, self.degree, self.coef0, X=X)
        if kernel.precomputed and X.shape[0] != X.shape[1]:
            raise ValueError(f"A precomputed kernel must be square at fit time; got {X.shape}.")
        solution = self._solve(X, pairs, kernel)
        coef = solution.coef
        keep = np.abs(coef) > self.tol * max(1.0, float(np.max(np.abs(coef), initial=0.0)))
        self.kernel_ = kernel
        self.support_ = np.flatnonzero(keep)
        self.ranking_coef_ = coef[keep]
        self.ranking_vectors_ = None if solution.basis is None else solution.basis[self.support_]
        self.objective_ = solution.objective
        self.solve_result_ = solution.result
        self.n_pairs_ = pairs.n_pairs
        self.pair_kind_ = pairs.kind
        return self

    def _expansion(self, X) -> np.ndarray:
        """The kernel expansion f(x) = Σ_{l ∈ kept vectors} coef_l k(x, x_l)."""
        check_is_fitted(self, "ranking_coef_")
        X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=np.float64, reset=False)
        if self.kernel_.precomputed:
            return _dense(X)[:, self.support_] @ self.ranking_coef_
        if len(self.support_) == 0:
            return np.zeros(X.shape[0])
        return self.kernel_(X, self.ranking_vectors_) @ self.ranking_coef_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags


# ============================================================================ targets
class _BinaryRanker(ClassifierMixin):
    """Binary labels → bipartite pairs; AUC; a classifier with a fitted threshold."""

    def _make_pairs(self, y, sample_weight):
        if is_survival_target(y):
            raise ValueError(
                f"{type(self).__name__} takes binary labels; use Survival{type(self).__name__} "
                "for (event, time) targets."
            )
        return PairSet.bipartite(y, pos_label=self.pos_label, point_weights=sample_weight)

    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the ranker (``sample_weight``: pair weights w_i·w_j); returns self."""
        if y is not None and not is_survival_target(y):
            y = column_or_1d(y, warn=True)
        self._fit(X, y, sample_weight, **fit_params)
        self.classes_ = np.unique(y)
        self.pos_label_ = self.classes_[1] if self.pos_label is None else self.pos_label
        self.threshold_ = _best_accuracy_threshold(self._expansion(X), y == self.pos_label_, sample_weight)
        sign = 1.0 if self.pos_label_ == self.classes_[1] else -1.0
        self.intercept_ = -sign * self.threshold_
        return self

    def decision_function(self, X) -> np.ndarray:
        """Ranking score: f(x) − threshold_ for ``pos_label`` = ``classes_[1]``, its negative otherwise."""
        shifted = self._expansion(X) - self.threshold_
        return shifted if self.pos_label_ == self.classes_[1] else -shifted

    def predict(self, X) -> np.ndarray:
        """Class labels: ``classes_[1]`` where ``decision_function`` > 0."""
        check_is_fitted(self, "classes_")
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    def score(self, X, y, sample_weight=None) -> float:
        """AUC of the ranking (ties ½, equal to ``sklearn.metrics.roc_auc_score``)."""
        return roc_auc(y, self._expansion(X), pos_label=self.pos_label_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


#: keyword options of :meth:`PairSet.survival` a survival estimator passes on (``pair_options``)
SURVIVAL_PAIR_OPTIONS = ("variant", "censored_weight", "time_weight", "time_scale", "weights")

PAIR_OPTIONS_DOC = """
    pair_options : dict or None — the survival pair set (seed 003 §3.1): ``{"variant": "lprex",
        "censored_weight": 0.5}`` adds censored–censored pairs (LPRex), ``{"time_weight": "linear" |
        "log" | "capped" | callable, "time_scale": ...}`` weights pairs by g(t_j − t_i), ``{"weights": ...}``
        takes user pair weights; None (default) is exactly Harrell's comparable set.
"""


class _SurvivalRanker:
    """Survival targets → Harrell's comparable pairs (or a variant); risk scores; Harrell's C."""

    pair_options = None  # overridden by each estimator's constructor parameter

    def _make_pairs(self, y, sample_weight):
        if not is_survival_target(y):
            raise ValueError(
                f"{type(self).__name__} needs a survival target: a structured array with a boolean "
                "event and a float time field (aucopt.survival_target(event, time))."
            )
        options = dict(self.pair_options or {})
        unknown = set(options) - set(SURVIVAL_PAIR_OPTIONS)
        if unknown:
            raise ValueError(f"pair_options {sorted(unknown)} unknown; valid: {list(SURVIVAL_PAIR_OPTIONS)}.")
        return PairSet.survival(y, point_weights=sample_weight, **options)

    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the risk ranker (``sample_weight``: pair weights w_i·w_j); returns self."""
        return self._fit(X, y, sample_weight, **fit_params)

    def decision_function(self, X) -> np.ndarray:
        """Risk score f(x) = Σ_{l ∈ kept vectors} coef_l k(x, x_l); higher = earlier event."""
        return self._expansion(X)

    def predict(self, X) -> np.ndarray:
        """Risk scores (higher = earlier event), as scikit-survival's ``predict``."""
        return self._expansion(X)

    def score(self, X, y, sample_weight=None) -> float:
        """Harrell's C of the risk scores (exact ties count ½; scikit-survival's
        ``concordance_index_censored`` with ``tied_tol=0``)."""
        return harrell_c(y, self._expansion(X))


# ============================================================================ LP Ranker
LP_METHODS = ("full", "chunking", "clustering", "subgradient")


class _LPRankerModel(_KernelPairRanker):
    def __init__(self, C=1.0, *, kernel="rbf", gamma="scale", degree=3, coef0=1.0,
                 formulation="lp_ranker", method="full", method_options=None, solver="highs",
                 solver_options=None, tol=1e-8, lifted=True, max_bytes=DEFAULT_MAX_BYTES):
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
        self.tol = tol
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
        from . import lp_scale

        options = dict(self.method_options or {})
        C = float(self.C)
        basis = None if kernel.precomputed else X
        if self.method == "clustering":
            return self._solve_clustered(X, pairs, kernel, options)
        if self.method == "full":
            self._check_size(pairs)
        _check_kernel_bytes(X.shape[0], self.max_bytes)
        K = kernel(_dense(X) if kernel.precomputed else X)
        if self.method == "subgradient":
            run = lp_scale.subgradient(K, pairs, C, **options)
            self.method_result_ = run
            return _Solution(basis, pairs.signs * run.alpha, None, run.objective)
        if self.method == "chunking":
            run = lp_scale.chunking(K, pairs, C, solver=self.solver, solver_options=self.solver_options,
                                    **options)
            self.method_result_ = run
            return _Solution(basis, pairs.signs * run.alpha, run.solve_result, run.objective)
        form = get_formulation(self.formulation)
        problem = form.build(pairs, K, lifted=self.lifted, max_bytes=self.max_bytes, C=C)
        result = solve(problem, self.solver, **(self.solver_options or {})).raise_for_status()
        self.problem_size_ = {"variables": problem.n_vars, "rows": problem.n_rows, "nonzeros": problem.nnz}
        return _Solution(basis, problem.output(result.x, "coef"), result, result.objective)

    def _solve_clustered(self, X, pairs, kernel, options):
        """Reduced LP 4.1 on the local-clustering centers, cluster-pair weights w_s·w_t."""
        from .clustering import local_clustering

        if pairs.kind != "bipartite" or kernel.precomputed:
            raise ValueError("method='clustering' needs binary labels and explicit features (not a precomputed kernel).")
        clusters = local_clustering(_dense(X), pairs.signs > 0, **options)
        reduced = clusters.pairs()
        self.reduction_ = {"points": (clusters.n_points_before, clusters.n_points_after),
                           "pairs": (clusters.n_pairs_before, clusters.n_pairs_after)}
        K = kernel(clusters.centers)
        problem = get_formulation(self.formulation).build(reduced, K, lifted=self.lifted,
                                                          max_bytes=self.max_bytes, C=float(self.C))
        result = solve(problem, self.solver, **(self.solver_options or {})).raise_for_status()
        self.problem_size_ = {"variables": problem.n_vars, "rows": problem.n_rows, "nonzeros": problem.nnz}
        return _Solution(clusters.centers, problem.output(result.x, "coef"), result, result.objective)


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
    support_, ranking_vectors_, ranking_coef_ : ranking vectors and their y_l α_l.
    objective_ : LP objective F(α) at the solution (the full LP's, over all pairs, for chunking and
        subgradient; the reduced LP's for clustering);
    solve_result_ : the :class:`~aucopt.solvers.SolveResult` of the (last) LP (None for subgradient);
    method_result_ : the chunking / subgradient record (passes, retained pairs, history);
    reduction_ : points and pairs before/after clustering.
"""

_THRESHOLD_DOC = """    threshold_ : the expansion value with the best training accuracy (seed 003 §1.6).
    intercept_ : ``decision_function`` is f(x) − threshold_ = Σ coef_l k(x, x_l) + intercept_
        (negated when ``pos_label`` is ``classes_[0]``, so that, as in scikit-learn, positive
        values favour ``classes_[1]``); ``predict`` is its sign. A constant shift leaves the
        ranking, the AUC and the pairwise loss unchanged.
"""


class LPRanker(_BinaryRanker, _LPRankerModel):
    __doc__ = """LP Ranker for binary labels (Ataman 2007, seed 003 eq. 3.3).

    Solves min_{α≥0} Σ α_l + C Σ_{i∈X+, j∈X−} w_ij [1 − f(x_i) + f(x_j)]_+ with
    f(x) = Σ_l y_l α_l k(x, x_l), as the lifted sparse LP (score variables s = K Y α).
    ``pos_label`` selects the positive class (default: the larger label).
    """ + _LP_DOC + _THRESHOLD_DOC

    def __init__(self, C=1.0, *, kernel="rbf", gamma="scale", degree=3, coef0=1.0,
                 formulation="lp_ranker", method="full", method_options=None, solver="highs",
                 solver_options=None, tol=1e-8, pos_label=None, lifted=True,
                 max_bytes=DEFAULT_MAX_BYTES):
        super().__init__(C, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                         formulation=formulation, method=method, method_options=method_options,
                         solver=solver, solver_options=solver_options, tol=tol, lifted=lifted,
                         max_bytes=max_bytes)
        self.pos_label = pos_label


class SurvivalLPRanker(_SurvivalRanker, _LPRankerModel):
    __doc__ = """LP Ranker for censored survival data (seed 003 Ch. V, eq. 5.3).

    The same LP as :class:`LPRanker` over Harrell's comparable pairs: (i, j) with an observed
    event for i and t_i < t_j, or t_i = t_j with j censored. y_l = +1 for events and −1 for
    censored subjects. Higher scores mean higher risk (earlier event). ``y`` is a structured
    array with a boolean event field and a float time field (scikit-survival's
    ``Surv.from_arrays`` or :func:`aucopt.survival_target`).
    """ + _LP_DOC + PAIR_OPTIONS_DOC

    def __init__(self, C=1.0, *, kernel="rbf", gamma="scale", degree=3, coef0=1.0,
                 formulation="lp_ranker", method="full", method_options=None, solver="highs",
                 solver_options=None, tol=1e-8, pair_options=None, lifted=True,
                 max_bytes=DEFAULT_MAX_BYTES):
        super().__init__(C, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                         formulation=formulation, method=method, method_options=method_options,
                         solver=solver, solver_options=solver_options, tol=tol, lifted=lifted,
                         max_bytes=max_bytes)
        self.pair_options = pair_options


# ============================================================================ AUC-SVM
class _AUCSVMModel(_KernelPairRanker):
    def __init__(self, C=1.0, *, norm=1, kernel="rbf", gamma="scale", degree=3, coef0=1.0,
                 solver="osqp", solver_options=None, reduction=None, n_clusters=None,
                 random_state=0, tol=1e-8, max_bytes=DEFAULT_MAX_BYTES):
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
        self.tol = tol
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
        from .pairwise_linear import kmeans_difference_centers, theorem2_weights

        C, norm = float(self.C), int(self.norm)
        if self.solver == "liblinear":
            w, converged, iters = theorem2_weights(X, pairs, C, norm, max_bytes=self.max_bytes)
            objective = _primal_objective(np.asarray(X @ w).ravel(), float(w @ w), pairs, C, norm)
            result = SolveResult(status=Status.OPTIMAL if converged else Status.ITERATION_LIMIT,
                                 objective=objective, x=w, iterations=iters, solver="liblinear",
                                 problem_name=f"aucsvm_l{norm}_primal (Theorem 2)").raise_for_status()
            # the model is the single vector w with coefficient 1: f(x) = <x, w>
            return _Solution(w[None, :], np.ones(1), result, objective)
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
            _check_kernel_bytes(X.shape[0], self.max_bytes)
            basis = None if kernel.precomputed else X
            factor = kernel_factor(kernel(_dense(X) if kernel.precomputed else X))
        problem = get_formulation(f"aucsvm_l{norm}_dual").build(
            pairs, factor=factor, max_bytes=self.max_bytes, C=C)
        result = solve(problem, self.solver, **(self.solver_options or {})).raise_for_status()
        coef = problem.output(result.x, "coef")
        alpha = problem.block(result.x, "alpha")
        i, j, _ = pairs.to_arrays(None)
        support = alpha > self.tol * C
        self.support_pairs_ = np.column_stack([i[support], j[support]])
        self.support_alpha_ = alpha[support]
        self.dual_objective_ = result.objective
        self.problem_size_ = {"variables": problem.n_vars, "rows": problem.n_rows, "nonzeros": problem.nnz}
        u = np.asarray(factor.T @ coef).ravel()  # Lᵀ coef: w in the factor's coordinates
        f = np.asarray(factor @ u).ravel()  # training scores K coef
        return _Solution(basis, coef, result, _primal_objective(f, float(u @ u), pairs, C, norm))


def _check_method_options(method: str, options):
    """Reject option names the chosen LP method does not take (before any work)."""
    import inspect

    from . import lp_scale
    from .clustering import local_clustering

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


def _check_kernel_bytes(n: int, max_bytes):
    if max_bytes is not None and 8 * n * n > max_bytes:
        raise ValueError(
            f"The {n:,} × {n:,} kernel matrix would need {format_bytes(8 * n * n)} "
            f"(limit max_bytes={format_bytes(max_bytes)}); subsample or raise max_bytes."
        )


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
    support_, ranking_vectors_, ranking_coef_ : points with nonzero coef = Aᵀα and their coef.
    support_pairs_, support_alpha_ : the (i, j) pairs with α_ij > tol · C and their α.
    objective_ : primal objective ½‖w‖² + (C/r) Σ w_ij ξ_ij^r at the solution (OP2);
    dual_objective_ : the solver's dual objective (= −objective_ at optimality).
"""


class AUCSVM(_BinaryRanker, _AUCSVMModel):
    __doc__ = """AUC-maximizing SVM for binary labels (Brefeld & Scheffer 2005, seed 001).

    min_w ½‖w‖² + (C/r) Σ_{i∈X+, j∈X−} w_ij ξ_ij^r  s.t.  ⟨w, φ(x_i) − φ(x_j)⟩ ≥ 1 − ξ_ij, solved
    through its pairwise dual (OP3 / OP4) as a lifted sparse QP that never forms the P × P
    pairwise kernel; f(x) = Σ_l coef_l k(x_l, x) with coef = Aᵀα.
    ``pos_label`` selects the positive class (default: the larger label).
    """ + _AUCSVM_DOC + _THRESHOLD_DOC

    def __init__(self, C=1.0, *, norm=1, kernel="rbf", gamma="scale", degree=3, coef0=1.0,
                 solver="osqp", solver_options=None, reduction=None, n_clusters=None,
                 random_state=0, tol=1e-8, pos_label=None, max_bytes=DEFAULT_MAX_BYTES):
        super().__init__(C, norm=norm, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                         solver=solver, solver_options=solver_options, reduction=reduction,
                         n_clusters=n_clusters, random_state=random_state, tol=tol,
                         max_bytes=max_bytes)
        self.pos_label = pos_label


class SurvivalAUCSVM(_SurvivalRanker, _AUCSVMModel):
    __doc__ = """Hinge-loss (or squared-hinge) survival SVM: the AUC-SVM dual over Harrell's pairs.

    Ranks subjects by risk (higher = earlier event) with one pair constraint per comparable
    pair (event_i and t_i < t_j, or t_i = t_j with j censored).
    """ + _AUCSVM_DOC + PAIR_OPTIONS_DOC

    def __init__(self, C=1.0, *, norm=1, kernel="rbf", gamma="scale", degree=3, coef0=1.0,
                 solver="osqp", solver_options=None, reduction=None, n_clusters=None,
                 random_state=0, tol=1e-8, pair_options=None, max_bytes=DEFAULT_MAX_BYTES):
        super().__init__(C, norm=norm, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                         solver=solver, solver_options=solver_options, reduction=reduction,
                         n_clusters=n_clusters, random_state=random_state, tol=tol,
                         max_bytes=max_bytes)
        self.pair_options = pair_options


# ============================================================================ helpers
def _best_accuracy_threshold(scores: np.ndarray, positive: np.ndarray, sample_weight=None) -> float:
    """Midpoint threshold τ maximizing the (weighted) accuracy of ``f > τ`` (seed 003 §1.6)."""
    weight = np.ones(len(scores)) if sample_weight is None else np.asarray(sample_weight, float)
    scores, positive, weight = scores[weight > 0], positive[weight > 0], weight[weight > 0]
    order = np.argsort(scores, kind="mergesort")
    s, pos, w = scores[order], positive[order], weight[order]
    # predict + for indices ≥ k: correct = negative weight below k + positive weight from k on
    neg_below = np.concatenate([[0.0], np.cumsum(np.where(pos, 0.0, w))])
    pos_from = np.concatenate([np.cumsum(np.where(pos, w, 0.0)[::-1])[::-1], [0.0]])
    ks = np.concatenate([[0], np.flatnonzero(np.diff(s) > 0) + 1, [len(s)]])  # cut between distinct values
    best = ks[np.argmax((neg_below + pos_from)[ks])]
    if best == 0:  # everything positive: a finite cut below the smallest score
        return float(s[0]) - 1.0
    if best == len(s):
        return float(s[-1]) + 1.0
    return 0.5 * (s[best - 1] + s[best])


def _dense(X) -> np.ndarray:
    return X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=float)
