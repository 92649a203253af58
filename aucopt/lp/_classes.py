"""LP Ranker estimators (Ataman 2007): the kernel LP over bipartite or survival pairs.

:class:`LPRanker` and :class:`SurvivalLPRanker` are thin classes over one model,
``_LPRankerModel``: the route rules (which ``method``, its options, the memory check) are
:class:`~aucopt.lp._routing.RouteChoice`'s, the routes themselves the functions of this
subpackage; the shared docstring parts are in :mod:`aucopt.lp._docs`.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from numbers import Integral
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils._param_validation import StrOptions

from .._docstrings import fill_doc
from .._validation import Count
from ..base import (
    KERNEL_CONSTRAINTS,
    MAX_BYTES_CONSTRAINT,
    PAIR_OPTIONS_CONSTRAINT,
    POS_LABEL_CONSTRAINT,
    RANDOM_STATE_CONSTRAINT,
    SOLVER_OPTIONS_CONSTRAINT,
    VERBOSE_CONSTRAINT,
    BinaryRankerMixin,
    KernelPairRanker,
    Solution,
    SurvivalRankerMixin,
    dense,
    non_negative,
    positive,
)
from ..exceptions import SolverWarning, warn
from ..kernels import Kernel, check_lp_kernel_values
from ..modeling import Problem, get_formulation, pair_row_generation
from ..modeling.problem import missing_output_message
from ..pairs import DEFAULT_MAX_BYTES, PairSet
from ..solvers import SolveResult, Status, lp_advice, solve
from ._clustering import local_clustering
from ._docs import FIT_PARTS, PARTS
from ._generation import row_column_generation
from ._kernel import KernelLike, KernelOperator
from ._routing import LP_METHODS, SMOOTHING_TOL, RouteChoice
from ._scale import chunking, subgradient
from ._smoothing import smoothing

__all__ = ["SMOOTHING_TOL", "LPRanker", "SurvivalLPRanker"]

#: HiGHS's algorithm for the whole LP of survival pairs: the interior point (IPX) on the dual LP, then
#: crossover to a vertex. Harrell's comparable pairs chain through a near-total order and most of
#: them keep a positive slack at the optimum: the dual simplex then pivots through nearly every pair
#: row. Measured (2 cores, WHAS500's first m subjects, C = 1, γ = 0.05, whole fits): 200 subjects
#: 5.0 s → 2.2 s, 300: 23.1 s → 6.0 s, 400: 59.6 s → 13.1 s, 500: 182 s → 34 s, the same objective to
#: 1e-13 relative. Bipartite pairs stay on the dual simplex, 2-9 times faster there (few pairs keep a
#: slack on nearly separable data), and so do the dense pair rows (``lifted=False``: 200 subjects 9.8 s
#: against 16.7 s) and formulations other than the LP Ranker's (not measured).
SURVIVAL_LP_OPTIONS = {"solver": "ipm", "ipx_dualize_strategy": 1, "run_crossover": "on"}

#: a seed as scikit-learn takes it, or a NumPy generator
RandomState = int | np.random.RandomState | np.random.Generator | None

def _warning_at_fit(route: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``route(*args, **kwargs)``, its warnings re-issued at the user's ``fit`` call."""
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            return route(*args, **kwargs)
    finally:  # after the catch: the user's warning filters apply
        for record in caught:
            warn(record.message, record.category)


class _LPRankerModel(RouteChoice, KernelPairRanker):
    """The LP Ranker model shared by :class:`LPRanker` and :class:`SurvivalLPRanker`."""

    _parameter_constraints: ClassVar[dict] = {
        "C": [positive()],
        **KERNEL_CONSTRAINTS,
        "formulation": [str, callable],
        "method": [StrOptions({"auto", *LP_METHODS})],
        "method_options": [dict, None],
        "solver": [str],
        **SOLVER_OPTIONS_CONSTRAINT,
        "tol": [positive(), None],
        "max_iter": [Count(Integral, 1, None, closed="left"), None],
        **VERBOSE_CONSTRAINT,
        **RANDOM_STATE_CONSTRAINT,
        "support_threshold": [non_negative()],
        "lifted": ["boolean"],
        **MAX_BYTES_CONSTRAINT,
    }

    def __init__(self, C: float = 1.0, *, kernel: str | Callable[..., Any] = "rbf", gamma: float | str = "scale",
                 degree: int = 3, coef0: float = 1.0, formulation: str | Callable[..., Any] = "lp_ranker",
                 method: str = "auto", method_options: dict | None = None, solver: str = "highs",
                 solver_options: dict | None = None, tol: float | None = None, max_iter: int | None = None,
                 verbose: int = 0, random_state: RandomState = 0, support_threshold: float = 1e-8,
                 lifted: bool = True, max_bytes: float | None = DEFAULT_MAX_BYTES):
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
        self.max_iter = max_iter
        self.verbose = verbose
        self.random_state = random_state
        self.support_threshold = support_threshold
        self.lifted = lifted
        self.max_bytes = max_bytes

    # fitted by the routes
    method_result_: Any
    reduction_: dict | None
    problem_size_: dict | None

    #: what this estimator offers instead of another estimator's fit parameter (see ``check_fit_params``)
    _fit_parameter_hints: ClassVar[dict[str, str]] = {
        "alpha_path": ("Along a path of C, refit after set_params(C=...) with method_options={'warm_start': "
                       "previous.method_result_} (method='smoothing' or 'generation'): each fit starts from the "
                       "previous solution."),
    }

    @property
    def _row_index_attributes(self) -> tuple[str, ...]:
        """Fitted attributes indexing training rows (``support_`` indexes the centers for clustering)."""
        return () if getattr(self, "method_", self.method) == "clustering" else ("support_",)

    # ------------------------------------------------------------------ solve
    def _fit(self, X: Any, y: Any, sample_weight: Any = None, groups: Any = None) -> Any:
        """The kernel-expansion fit, with the per-row ``groups`` handed to the formulation."""
        self._fit_groups = groups
        try:
            return super()._fit(X, y, sample_weight)
        finally:
            del self._fit_groups

    def _solve_lp(self, problem: Problem, generation_options: dict | None = None,
                  target: str = "bipartite") -> SolveResult:
        """Solve the built LP whole, or, given ``generation_options``, with its pair rows generated
        as needed (:func:`~aucopt.modeling.pair_row_generation`: certified, or the status reached)."""
        if "coef" not in problem.outputs:  # before solving: the model is read from this output
            raise ValueError(missing_output_message(problem, "coef"))
        if generation_options is None:
            return self._solve_whole(problem, target).raise_for_status()
        solver_options = dict(self._solver_options() or {})
        time_limit = solver_options.pop("time_limit", None)  # the whole run's
        result = _warning_at_fit(pair_row_generation, problem, problem.metadata["pair_rows"], self.solver,
                                 pair_index=problem.metadata["pair_index"], verbose=self.verbose,
                                 solver_options=solver_options, time_limit=time_limit, **generation_options)
        self.method_result_ = result
        return result if result.x is not None else result.raise_for_status()

    def _solve_whole(self, problem: Problem, target: str) -> SolveResult:
        """The whole LP on the backend. On HiGHS, the lifted LP Ranker LP of survival pairs is solved
        by the interior point on the dual with crossover (:data:`SURVIVAL_LP_OPTIONS`) unless
        ``solver_options`` names the algorithm; should it fail numerically, the dual simplex solves
        the LP again."""
        options = self._solver_options() or {}
        run = functools.partial(solve, problem, self.solver, tol=self.tol, max_iter=self.max_iter,
                                verbose=bool(self.verbose))
        measured = self.formulation == "lp_ranker" and self.lifted  # the dense pair rows: the simplex is faster
        if not (self._on_highs and target == "survival" and measured and "solver" not in options):
            return run(solver_options=options or None)
        result = run(solver_options={**SURVIVAL_LP_OPTIONS, **options})
        if result.status not in (Status.NUMERICAL_ERROR, Status.ERROR, Status.OPTIMAL_INACCURATE):
            return result
        if self.verbose:
            print(f"[{type(self).__name__}] HiGHS's interior point ended with status {result.status.value!r}: "
                  "solving the LP again by dual simplex", flush=True)
        if "time_limit" in options:  # what is left of it
            left = float(options["time_limit"]) - result.wall_time
            if left <= 0:
                return result
            options = {**options, "time_limit": left}
        return run(solver_options=options or None)

    def _solve(self, X: Any, pairs: PairSet, kernel: Kernel) -> Solution:
        """Fit on the training pairs by the route ``method`` (or the one ``"auto"`` chooses)."""
        options = dict(self.method_options or {})
        C = float(self.C)
        self.method_result_ = self.reduction_ = self.problem_size_ = None
        self.optimality_gap_ = float("nan")
        groups = getattr(self, "_fit_groups", None)
        if groups is not None:  # the formulation reads them as m.groups
            pairs = pairs.with_groups(groups)
        method = self._take_route(pairs)
        if method == "clustering" and pairs.target != "bipartite":
            raise ValueError("method='clustering' needs binary labels and explicit features; "
                             f"got a {pairs.target} pair set (use method='smoothing' or 'subgradient').")
        if method == "clustering" and groups is not None:
            raise ValueError("groups are given per training row, but method='clustering' solves the LP on "
                             "cluster centers: use method='full' for a formulation that reads m.groups.")
        self.check_size(pairs)
        self._announce_slow_route(method, pairs)
        if method not in ("subgradient", "smoothing") and lp_advice(self.solver):
            warn(f"{type(self).__name__}(solver={self.solver!r}): {lp_advice(self.solver)}", SolverWarning)
        if method == "clustering":
            return self._solve_clustered(X, pairs, kernel, options)
        if self.max_iter is not None and method in ("generation", "smoothing", "chunking", "subgradient"):
            options["max_iter"] = self.max_iter
        if method == "generation" and self.formulation == "lp_ranker":
            return self._solve_generation(X, pairs, kernel, C, options)
        if method == "smoothing":
            return self._solve_smoothing(X, pairs, kernel, C, options)
        return self._solve_on_matrix(X, pairs, kernel, method, C, options)

    def _solve_on_matrix(self, X: Any, pairs: PairSet, kernel: Kernel, method: str, C: float,
                         options: dict) -> Solution:
        """The routes that read the whole kernel matrix: the subgradient, chunking and the full LP
        (its pair rows generated for a formulation other than the LP Ranker's)."""
        K = kernel(dense(X) if kernel.precomputed else X)
        check_lp_kernel_values(K, None if method == "subgradient" else self.solver)
        basis = None if kernel.precomputed else X
        if method == "subgradient":
            run = _warning_at_fit(subgradient, K, pairs, C, tol=self.tol, verbose=self.verbose,
                                  time_limit=(self._solver_options() or {}).get("time_limit"), **options)
            self.method_result_, self.n_iter_, self.optimality_gap_ = run, run.iterations, run.gap
            return Solution(basis, pairs.signs * run.alpha, None, run.objective)
        if method == "chunking":
            run = _warning_at_fit(chunking, K, pairs, C, solver=self.solver, solver_options=self._solver_options(),
                                  tol=self.tol, verbose=max(2, int(self.verbose)) if self.verbose else 0,
                                  random_state=self.random_state,
                                  max_bytes=self.max_bytes, **options)
            self.method_result_, self.n_iter_, self.optimality_gap_ = run, run.passes, run.gap
            return Solution(basis, pairs.signs * run.alpha, run.solve_result, run.objective)
        problem = get_formulation(self.formulation).build(pairs, K, lifted=self.lifted, max_bytes=self.max_bytes,
                                                          C=C)
        generates = method == "generation" and "pair_rows" in problem.metadata
        result = self._solve_lp(problem, options if generates else None, pairs.target)
        self.problem_size_ = {"variables": problem.n_vars, "rows": problem.n_rows, "nonzeros": problem.nnz}
        self.n_iter_ = result.iterations
        self.optimality_gap_ = 0.0 if result.status == Status.OPTIMAL else float("nan")
        assert result.x is not None  # _solve_lp raised otherwise
        return Solution(basis, problem.output(result.x, "coef"), result, result.objective)

    def _kernel_operator(self, X: Any, kernel: Kernel, m: int) -> KernelOperator:
        """The kernel as the smoothing route reads it: the given matrix, the features' products for the
        linear kernel, the stored matrix when it fits ``max_bytes``, else blocks evaluated on demand."""
        if kernel.precomputed:
            K = dense(X)
            if not np.isfinite(K).all():
                raise ValueError("The precomputed kernel matrix contains NaN or infinite values.")
            return KernelOperator(K, m)
        if self.kernel == "linear":
            return KernelOperator(None, m, factor=X)
        if self._stores_kernel(m):
            return KernelOperator(kernel(X), m, symmetric=True)
        return KernelOperator(lambda rows, cols: kernel(X[rows], X[cols]), m)

    def _solve_smoothing(self, X: Any, pairs: PairSet, kernel: Kernel, C: float, options: dict) -> Solution:
        """The smoothing route to a certified relative gap of ``tol`` (default 1e-3)."""
        operator = self._kernel_operator(X, kernel, pairs.n_points)
        tol = SMOOTHING_TOL if self.tol is None else float(self.tol)
        run = _warning_at_fit(smoothing, operator, pairs, C, tol=tol, verbose=self.verbose,
                              time_limit=(self._solver_options() or {}).get("time_limit"), max_bytes=self.max_bytes,
                              **options)
        self.method_result_, self.n_iter_, self.optimality_gap_ = run, run.iterations, run.gap
        return Solution(None if kernel.precomputed else X, pairs.signs * run.alpha, None, run.objective)

    def _solve_generation(self, X: Any, pairs: PairSet, kernel: Kernel, C: float, options: dict) -> Solution:
        """Row-and-column generation, reading the kernel in blocks (never the whole matrix)."""
        K: KernelLike
        if kernel.precomputed:
            K, basis = dense(X), None
            check_lp_kernel_values(K, self.solver)
        else:
            def blocks(rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
                block = kernel(X[rows], X[cols])
                check_lp_kernel_values(block, self.solver)
                return block
            K, basis = blocks, X
        run = _warning_at_fit(row_column_generation, K, pairs, C, tol=self.tol, verbose=self.verbose,
                              solver_options=self._solver_options(), max_bytes=self.max_bytes, **options)
        self.method_result_, self.n_iter_, self.optimality_gap_ = run, run.rounds, run.gap
        return Solution(basis, pairs.signs * run.alpha, run.solve_result, run.objective)

    def _solve_clustered(self, X: Any, pairs: PairSet, kernel: Kernel, options: dict) -> Solution:
        """The reduced LP (Ataman 2007, eq. 4.1) on the local-clustering centers, pair weights w_s·w_t."""
        clusters = local_clustering(dense(X), pairs.signs > 0, max_bytes=self.max_bytes, **options)
        self.method_result_ = clusters
        self.reduction_ = {"points": (clusters.n_points_before, clusters.n_points_after),
                           "pairs": (clusters.n_pairs_before, clusters.n_pairs_after)}
        K = kernel(clusters.centers)
        check_lp_kernel_values(K, self.solver)
        problem = get_formulation(self.formulation).build(clusters.pairs(), K, lifted=self.lifted,
                                                          max_bytes=self.max_bytes, C=float(self.C))
        result = self._solve_lp(problem)
        self.problem_size_ = {"variables": problem.n_vars, "rows": problem.n_rows, "nonzeros": problem.nnz}
        self.n_iter_ = result.iterations
        assert result.x is not None  # _solve_lp raised otherwise
        return Solution(clusters.centers, problem.output(result.x, "coef"), result, result.objective)


@fill_doc(**PARTS)
class LPRanker(BinaryRankerMixin, _LPRankerModel):
    """LP Ranker: a sparse kernel ranker maximizing the AUC by linear programming.

    Fits the kernel expansion f(x) = Σ_l y_l α_l k(x, x_l), α ≥ 0, that solves the LP Ranker
    of Ataman (2007), eq. 3.3: an L1 penalty on α plus C times the pairwise hinge loss over
    every (positive, negative) pair. The L1 penalty makes the expansion sparse; the points with
    α_l > 0 are the ranking vectors (``support_vectors_``). The LP is solved exactly
    (``method="full"``) or by one of the scalable routes of Ataman (2007), Ch. IV.

    Parameters
    ----------
    {{kernel_parameters}}
    formulation : str or callable, default="lp_ranker"
        The LP to solve: a registered formulation name (``"lp_ranker"``,
        ``"lp_ranker_free_sign"``, see :func:`aucopt.available_formulations`) or a function
        ``f(m, C)`` declaring one (see :mod:`aucopt.modeling`); it must declare the
        output ``"coef"`` (``m.scores(alpha)`` does, or ``m.output("coef", expr)``), checked
        before the solve. The routes ``"smoothing"``, ``"chunking"``, ``"clustering"`` and
        ``"subgradient"`` solve ``"lp_ranker"`` itself; ``"generation"`` on another formulation
        generates its pair rows (:func:`aucopt.modeling.pair_row_generation`: the same optimum,
        certified, on any solver). The formulation reads the data given
        to ``fit`` from ``m``: ``m.labels`` (each point's level index, for the target of
        ``pair_options``; e.g. ``"ordinal_margin_lp"``) and ``m.groups`` (``fit(X, y,
        groups=...)``).
    method : {"auto", "full", "generation", "smoothing", "chunking", "clustering", "subgradient"}, default="auto"
        How the LP is solved. ``"auto"``: ``"full"`` when the runtime model predicts the whole
        LP to take at most 5 s, ``"smoothing"`` above; the choice, its reason and the predicted
        times are printed when ``verbose`` is set and kept in ``method_`` (see
        :meth:`select_method`), and a choice predicted to take over a minute issues a
        :class:`~aucopt.exceptions.SlowFitWarning`. ``"full"``: the whole LP, one row per pair.
        ``"generation"``: row-and-column generation on one live HiGHS model
        (:func:`aucopt.lp.row_column_generation`), the same optimum, certified, from an LP over
        a working set of pairs and ranking vectors, started from the smoothing route's
        solution; the kernel is read in blocks. ``"smoothing"``: the smoothed objective,
        narrowed by continuation and minimized by Newton steps on the sorted-pair core
        (:func:`aucopt.lp.smoothing`), until the certified
        relative optimality gap is at most ``tol``; pairs are never listed, and a kernel that
        does not fit ``max_bytes`` is evaluated in blocks.
        The routes of Ataman (2007), Ch. IV: ``"chunking"``, exact constraint generation
        (:func:`aucopt.lp.chunking`); ``"clustering"``, the reduced LP (eq. 4.1) on the centers
        of :func:`aucopt.lp.local_clustering` (binary labels and explicit features only);
        ``"subgradient"``, the projected subgradient method (:func:`aucopt.lp.subgradient`).
        Every route reports its certified gap in ``optimality_gap_``.
    method_options : dict, default=None
        Options of the route. ``"generation"``: ``pairs_per_point``, ``max_pairs``,
        ``columns_per_round``, ``min_violation``, ``warm_start``, ``start``, ``callback``
        (on another formulation: ``pairs_per_point``, ``max_rows``).
        ``"smoothing"``: ``mu0``, ``max_columns``, ``warm_start`` (a previous fit's
        ``method_result_``, e.g. along a C path), ``callback``. ``"chunking"``:
        ``n_chunks``, ``scheme``, ``top_k``, ``violation``, ``min_violation``, ``callback``.
        ``"clustering"``: ``variant``.
        ``"subgradient"``: ``rule``, ``step0``, ``step_min``, ``patience``, ``shrink``,
        ``target_frac``, ``min_improvement``, ``step``, ``alpha0``, ``callback``. Options that are estimator
        parameters (``tol``, ``max_iter``, ``verbose``, ``random_state``, ``solver``,
        ``solver_options``, ``max_bytes``) are set on the estimator.
    {{solver_parameters}}
    max_iter : int, default=None
        Iteration limit: Newton steps of smoothing (default 1000), subgradient iterations
        (default 5000), generation rounds (default 500), chunking passes (default 50),
        or the backend's iteration limit for ``"full"`` and ``"clustering"`` (default: the
        backend's). A route stopped by it before its own rule holds issues a
        ``ConvergenceWarning`` (and chunking reports ``solve_result_.status ==
        "iteration_limit"``).
    verbose : int, default=0
        Progress output: 0 silent; ≥ 1 the route taken and why, the backend's own log for
        every LP solved (``"full"``, ``"clustering"`` and each LP of ``"chunking"``) and a
        progress bar for ``"generation"``, ``"smoothing"`` (with the certified gap),
        ``"chunking"`` and ``"subgradient"`` (with ≥ 2, also HiGHS's log for ``"generation"``).
    {{random_state_parameters}}
    pos_label : int, float, bool or str, default=None
        The positive class; None: the larger of the two labels.
    pair_options : dict, default=None
        The pairs to rank, in the vocabulary of the survival estimators' ``pair_options``:
        ``{"target": "bipartite"}`` (the default: every positive over every negative), or
        ``{"target": "multipartite"}`` for ordinal labels, one pair per ``y_i > y_j``
        (:meth:`aucopt.PairSet.multipartite`), with ``"levels": [lowest, ..., highest]`` giving
        the order of the label values (default: the sorted distinct labels). A ranker of ordinal
        levels has ``classes_`` = the levels in order, ``decision_function`` = its scores
        (higher = higher level), ``score`` = the multipartite C-index, and no ``predict`` (it
        learns no cut points between the levels); ``pos_label`` must then be None.
        The formulation receives the pair set of that target (``m.labels``: each point's level
        index). ``method="clustering"`` needs binary labels.
    {{size_parameters}}

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The two class labels (ordinal targets: the levels, lowest first).
    pos_label_ : object
        The positive class used (binary labels only).
    support_ : ndarray of shape (n_support,)
        Indices of the ranking vectors (rows of ``X``, or of the cluster centers for
        ``method="clustering"``).
    {{support_vectors}}
    dual_coef_ : ndarray of shape (n_support,)
        Their coefficients y_l α_l in f(x) = Σ_l dual_coef_l k(x, support_vectors_l).
    intercept_ : float
        ``decision_function`` = f(x) + ``intercept_`` (for ``pos_label_ == classes_[1]``).
    threshold_ : float
        The score cut with the best training accuracy, used by ``predict``.
    {{kernel_and_method}}
    objective_ : float
        LP objective Σ α + C Σ w_ij z_ij at the solution: the full LP's (over all pairs) for
        every route but ``"clustering"``, whose objective is the reduced LP's.
    optimality_gap_ : float
        The certified relative optimality gap of the returned expansion, (``objective_`` − a
        lower bound of the LP optimum) / ``objective_``: 0.0 when HiGHS proved the full LP
        optimal (``"full"``, and ``"generation"`` of another formulation, whose generated rows
        then hold the whole LP's optimum); for the LP Ranker's ``"generation"`` and
        ``"chunking"`` the bound of a point feasible for the LP's dual, built from the restricted
        LPs' duals (of the order of the solver's tolerances when their certificate held); the
        dual bound reached by ``"smoothing"``, ``"subgradient"`` and by an exact route stopped
        early; NaN where no bound exists (``"clustering"`` solves another LP, a full LP without
        an optimal status).
    solve_result_ : SolveResult or None
        The backend's result for the (last) LP; None for ``"subgradient"``. For
        ``"chunking"`` stopped by ``max_iter`` before its optimality certificate held, the
        status is ``"iteration_limit"`` (and a ``ConvergenceWarning`` is issued); likewise for
        ``"generation"`` stopped before its certificate held.
    method_result_ : GenerationResult, SmoothingResult, ChunkingResult, SubgradientResult, LocalClusters or None
        The route's record (rounds, rows and columns with the optimality certificate; Newton
        steps, smoothing widths and the certified bounds; passes and retained pairs; iteration
        history; or the clusters); None for ``"full"``. Its ``lower_bound`` and ``gap`` certify
        how far the fitted objective can be above the LP optimum.
    n_iter_ : int
        Iterations: Newton steps of smoothing, subgradient iterations, generation rounds, chunking passes, or
        the backend's iteration count for ``"full"`` and ``"clustering"``.
    n_pairs_ : int
        Number of training pairs.
    pair_target_ : str
        ``"bipartite"``, or ``"multipartite"`` (``pair_options`` target).
    problem_size_ : dict or None
        Variables, rows and nonzeros of the assembled LP (None for the scalable routes
        ``"generation"``, ``"smoothing"``, ``"chunking"`` and ``"subgradient"``).
    reduction_ : dict or None
        For ``"clustering"``: ``{"points": (m, k), "pairs": (n⁺n⁻, k⁺k⁻)}`` before and after.
    {{features_in}}

    See Also
    --------
    SurvivalLPRanker : The same LP over the comparable pairs of censored survival data.
    aucopt.AUCSVM : The pairwise-hinge SVM (an L2 penalty, solved as a QP).
    aucopt.RankRC : Kernel ranking with a small basis, for large training sets.

    Notes
    -----
    With y_l = +1 for positives and −1 for negatives and pair weights w_ij (1, or
    ``sample_weight[i] * sample_weight[j]``), the LP of Ataman (2007), eq. 3.3 is

        min_{α ≥ 0, z ≥ 0}  Σ_l α_l + C Σ_{i ∈ X+, j ∈ X−} w_ij z_ij
        s.t.  Σ_l y_l α_l (k(x_i, x_l) − k(x_j, x_l)) ≥ 1 − z_ij   for every pair (i, j),

    that is min Σ α + C Σ w_ij max(0, 1 − (f(x_i) − f(x_j))). It has one row per pair
    (n⁺n⁻ of them); ``"full"`` builds it with score variables s = K Y α so that each pair row
    has three nonzeros. The scalable routes of Ch. IV avoid building it whole: chunking (Fig.
    4.1) reaches the same optimum, local clustering (Fig. 4.2, eq. 4.1) solves a smaller LP on
    weighted centers, and the projected subgradient method (Fig. 4.4, eq. 4.5) evaluates the
    hinge sum in O(m log m) without listing pairs.

    ``score`` is the AUC of the ranking scores (as :func:`sklearn.metrics.roc_auc_score`).

    References
    ----------
    {{ataman_reference}}
    .. [2] Huangfu, Q., & Hall, J. A. J. (2018). Parallelizing the dual revised simplex method.
       *Mathematical Programming Computation*, 10(1), 119–142.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from aucopt import LPRanker
    >>> X, y = make_classification(n_samples=60, random_state=0)
    >>> X_train, y_train, X_test, y_test = X[:40], y[:40], X[40:], y[40:]
    >>> model = LPRanker(C=0.1, gamma=0.01).fit(X_train, y_train)
    >>> round(model.score(X_test, y_test), 2)  # test AUC
    0.93
    >>> len(model.support_) < 40, model.predict(X_test[:3]).shape  # a sparse expansion
    (True, (3,))

    The same LP by constraint generation, and approximately by the subgradient method:

    >>> chunked = LPRanker(C=0.1, gamma=0.01, method="chunking", random_state=0).fit(X_train, y_train)
    >>> bool(abs(chunked.objective_ - model.objective_) <= 1e-6 * model.objective_)
    True
    >>> sub = LPRanker(C=0.1, gamma=0.01, method="subgradient", support_threshold=1e-3).fit(X_train, y_train)
    >>> bool(model.objective_ * (1 - 1e-9) <= sub.objective_ <= model.objective_ * (1 + 1e-3))
    True
    """

    _parameter_constraints: ClassVar[dict] = {**_LPRankerModel._parameter_constraints, **POS_LABEL_CONSTRAINT,
                                    **PAIR_OPTIONS_CONSTRAINT}

    def __init__(self, C: float = 1.0, *, kernel: str | Callable[..., Any] = "rbf", gamma: float | str = "scale",
                 degree: int = 3, coef0: float = 1.0, formulation: str | Callable[..., Any] = "lp_ranker",
                 method: str = "auto", method_options: dict | None = None, solver: str = "highs",
                 solver_options: dict | None = None, tol: float | None = None, max_iter: int | None = None,
                 verbose: int = 0, random_state: RandomState = 0, support_threshold: float = 1e-8,
                 pos_label: int | float | bool | str | None = None, pair_options: dict | None = None,
                 lifted: bool = True, max_bytes: float | None = DEFAULT_MAX_BYTES):
        super().__init__(C, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                         formulation=formulation, method=method, method_options=method_options,
                         solver=solver, solver_options=solver_options, tol=tol, max_iter=max_iter,
                         verbose=verbose, random_state=random_state, support_threshold=support_threshold,
                         lifted=lifted, max_bytes=max_bytes)
        self.pos_label = pos_label
        self.pair_options = pair_options

    @fill_doc(**FIT_PARTS)
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: float | ArrayLike | None = None,
            groups: ArrayLike | None = None, **fit_params: Any) -> LPRanker:
        """Fit the LP Ranker.

        Parameters
        ----------
        {{fit_X}}
        y : array-like of shape (n_samples,)
            Two class labels; ``pos_label`` (default the larger) is the positive class. With
            ``pair_options={"target": "multipartite"}``: ordinal labels of two or more levels.
        {{fit_weights}}

        Returns
        -------
        {{fit_returns}}
        """
        return super().fit(X, y, sample_weight, groups=groups, **fit_params)


@fill_doc(**PARTS)
class SurvivalLPRanker(SurvivalRankerMixin, _LPRankerModel):
    """LP Ranker for right-censored survival data: a sparse kernel risk score.

    The LP of :class:`LPRanker` over the comparable pairs of Harrell's concordance index
    (Ataman 2007, Ch. V): (i, j) with an observed event for i and t_i < t_j, or t_i = t_j with
    j censored, asking f(x_i) > f(x_j). Higher scores mean higher risk (an earlier event).
    ``y`` is a structured array with a boolean event field and a float time field
    (:func:`aucopt.survival_target` or scikit-survival's ``Surv.from_arrays``).

    Parameters
    ----------
    {{kernel_parameters}}
    formulation : str or callable, default="lp_ranker"
        The LP to solve: a registered formulation name (``"lp_ranker"``,
        ``"lp_ranker_free_sign"``) or a function ``f(m, C)`` declaring one. It reads the
        data given to ``fit`` from ``m``: ``m.event`` and ``m.time``, and ``m.groups``
        (``fit(X, y, groups=...)``). ``method="generation"`` generates its pair rows
        (:func:`aucopt.modeling.pair_row_generation`).
    method : {"auto", "full", "generation", "smoothing", "chunking", "subgradient"}, default="auto"
        How the LP is solved: the whole LP, row-and-column generation
        (:func:`aucopt.lp.row_column_generation`, the same optimum, certified), smoothing to a
        certified relative optimality gap of ``tol`` (:func:`aucopt.lp.smoothing`), exact
        constraint generation (:func:`aucopt.lp.chunking`) or the projected subgradient method
        (:func:`aucopt.lp.subgradient`). ``"auto"``: ``"full"`` when the runtime model predicts
        the whole LP to take at most 5 s (a full LP over all of WHAS500's 75,000 pairs runs for
        minutes), ``"smoothing"`` above (WHAS500: seconds), stated with the predicted times when
        ``verbose`` is set and kept in ``method_`` (see :class:`LPRanker`). ``"clustering"``
        needs binary labels and is refused.
    method_options : dict, default=None
        Options of the route (see :class:`LPRanker`).
    {{solver_parameters}}
    max_iter : int, default=None
        Newton steps of smoothing (default 1000), subgradient iterations (default 5000),
        generation rounds (default 500), chunking passes (default 50) or the backend's
        iteration limit for ``"full"``. A route stopped by it before its own rule holds issues
        a ``ConvergenceWarning`` (chunking: ``solve_result_.status == "iteration_limit"``).
    verbose : int, default=0
        Progress output: 0 silent; ≥ 1 the route taken and why, the backend's own log for
        every LP solved and a progress bar for ``"generation"``, ``"smoothing"``,
        ``"chunking"`` and ``"subgradient"``.
    {{random_state_parameters}}
    pair_options : dict, default=None
        Survival pair variant, passed to :meth:`aucopt.PairSet.survival`: ``{"variant":
        "lprex"}`` adds censored–censored pairs (Ataman 2007, Table 5.3), ``{"time_weight":
        "log"}`` weighs pairs by their time difference, ``{"weights": w}`` takes user pair
        weights; keys ``variant``, ``censored_weight``, ``time_weight``, ``time_scale``,
        ``weights``, ``tau``, ``horizon``. None: Harrell's comparable pairs.
        ``{"weights": "ipcw"}`` trains on Uno's censoring weights 1/Ĝ(T_i)² (``"tau"``: only the
        pairs whose event comes before it) and ``{"horizon": τ}`` on the pairs of the time-dependent
        AUC(τ) (with ``"weights": "ipcw"`` its weights 1/Ĝ(T_i)), Ĝ the censoring Kaplan–Meier
        estimate of the fitting rows; both keep the pairs unlisted.
    {{size_parameters}}

    Attributes
    ----------
    support_ : ndarray of shape (n_support,)
        Indices of the ranking vectors among the training rows.
    {{support_vectors}}
    dual_coef_ : ndarray of shape (n_support,)
        Their coefficients y_l α_l (y_l = +1 for events, −1 for censored subjects).
    {{kernel_and_method}}
    objective_ : float
        LP objective at the solution (the full LP's, over all comparable pairs).
    optimality_gap_ : float
        The certified relative optimality gap of the returned expansion (see
        :class:`LPRanker`): 0.0 for the full LP proven optimal, the dual bound reached by
        the other routes.
    solve_result_ : SolveResult or None
        The backend's result for the (last) LP; None for ``"smoothing"`` and ``"subgradient"``.
    method_result_ : GenerationResult, SmoothingResult, ChunkingResult, SubgradientResult or None
        The route's record, with its certified ``lower_bound`` and ``gap``; None for ``"full"``.
    n_iter_ : int
        Newton steps of smoothing, generation rounds, subgradient iterations, chunking passes or
        the backend's iteration count.
    n_pairs_ : int
        Number of comparable (training) pairs.
    pair_target_ : str
        ``"survival"``.
    problem_size_ : dict or None
        Variables, rows and nonzeros of the assembled LP (``"full"`` only).
    reduction_ : None
        Only set by ``method="clustering"``, which survival data do not support.
    {{features_in}}

    See Also
    --------
    LPRanker : The same LP over the (positive, negative) pairs of binary labels.
    aucopt.CoxPH : Cox's proportional hazards model, the usual baseline.
    aucopt.SurvivalRankSVM : Linear survival ranking with the squared hinge.

    Notes
    -----
    With y_l = +1 for subjects with an event and −1 for censored ones, the model is
    f(x) = Σ_l y_l α_l k(x, x_l), α ≥ 0, and the LP (Ataman 2007, Ch. V, eq. 5.3) is

        min_{α ≥ 0, z ≥ 0}  Σ_l α_l + C Σ_{(i,j) comparable} w_ij z_ij
        s.t.  f(x_i) − f(x_j) ≥ 1 − z_ij   for every comparable pair (i, j),

    over Harrell's comparable pairs. ``score`` is Harrell's concordance index of the risk
    scores (tied risks count ½), equal to scikit-survival's ``concordance_index_censored``.

    References
    ----------
    {{ataman_reference}}
    .. [2] Harrell, F. E., Califf, R. M., Pryor, D. B., Lee, K. L., & Rosati, R. A. (1982).
       Evaluating the yield of medical tests. *JAMA*, 247(18), 2543–2546.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import SurvivalLPRanker, survival_target
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3))
    >>> time = rng.exponential(np.exp(-X[:, 0]))  # the first feature raises the hazard
    >>> y = survival_target(rng.random(60) < 0.7, time)
    >>> model = SurvivalLPRanker(C=1.0, kernel="linear").fit(X, y)
    >>> model.predict(X[:3]).shape, bool(model.score(X, y) > 0.7)
    ((3,), True)
    >>> model.pair_target_
    'survival'
    """

    _parameter_constraints: ClassVar[dict] = {**_LPRankerModel._parameter_constraints, **PAIR_OPTIONS_CONSTRAINT}

    def __init__(self, C: float = 1.0, *, kernel: str | Callable[..., Any] = "rbf", gamma: float | str = "scale",
                 degree: int = 3, coef0: float = 1.0, formulation: str | Callable[..., Any] = "lp_ranker",
                 method: str = "auto", method_options: dict | None = None, solver: str = "highs",
                 solver_options: dict | None = None, tol: float | None = None, max_iter: int | None = None,
                 verbose: int = 0, random_state: RandomState = 0, support_threshold: float = 1e-8,
                 pair_options: dict | None = None, lifted: bool = True,
                 max_bytes: float | None = DEFAULT_MAX_BYTES):
        super().__init__(C, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                         formulation=formulation, method=method, method_options=method_options,
                         solver=solver, solver_options=solver_options, tol=tol, max_iter=max_iter,
                         verbose=verbose, random_state=random_state, support_threshold=support_threshold,
                         lifted=lifted, max_bytes=max_bytes)
        self.pair_options = pair_options

    @fill_doc(**FIT_PARTS)
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: float | ArrayLike | None = None,
            groups: ArrayLike | None = None, **fit_params: Any) -> SurvivalLPRanker:
        """Fit the survival LP Ranker.

        Parameters
        ----------
        {{fit_X}}
        y : structured array of shape (n_samples,) or tuple (event, time)
            Boolean event indicator and float time (see :func:`aucopt.survival_target`).
        {{fit_weights}}

        Returns
        -------
        {{fit_returns}}
        """
        return super().fit(X, y, sample_weight, groups=groups, **fit_params)
