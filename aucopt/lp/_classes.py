"""LP Ranker estimators (Ataman 2007): the kernel LP over bipartite or survival pairs."""

from __future__ import annotations

import inspect
import warnings
from numbers import Integral

import numpy as np
from sklearn.utils._param_validation import StrOptions, validate_parameter_constraints

from .. import _memory, _runtime
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
from ..exceptions import SlowFitWarning, SolverWarning, warn
from ..kernels import check_lp_kernel_values
from ..modeling import get_formulation
from ..modeling._rowgen import PAIR_ROW_CONSTRAINTS, pair_row_generation
from ..modeling.problem import missing_output_message
from ..pairs import DEFAULT_MAX_BYTES, PairSet
from ..solvers import Status, check_solver, lp_advice, solve
from ._clustering import CLUSTERING_CONSTRAINTS, local_clustering
from ._generation import GENERATION_CONSTRAINTS, row_column_generation
from ._kernel import KernelOperator
from ._scale import CHUNKING_CONSTRAINTS, SUBGRADIENT_CONSTRAINTS, chunking, subgradient
from ._smoothing import SMOOTHING_CONSTRAINTS, smoothing

LP_METHODS = ("full", "generation", "smoothing", "chunking", "clustering", "subgradient")

#: ``method="smoothing"``'s certified relative gap when ``tol`` is None
SMOOTHING_TOL = 1e-3


#: the function behind each scalable route and the constraints of its ``method_options``
_ROUTES = {
    "generation": (row_column_generation, GENERATION_CONSTRAINTS),
    "smoothing": (smoothing, SMOOTHING_CONSTRAINTS),
    "chunking": (chunking, CHUNKING_CONSTRAINTS),
    "subgradient": (subgradient, SUBGRADIENT_CONSTRAINTS),
    "clustering": (local_clustering, CLUSTERING_CONSTRAINTS),
}
#: a formulation other than "lp_ranker": method="generation" generates its pair rows
_FORMULATION_GENERATION = (pair_row_generation, PAIR_ROW_CONSTRAINTS)
#: arguments of the route functions that the estimator itself supplies
_DATA_ARGUMENTS = {"K", "pairs", "X", "y_positive", "time_limit",  # time_limit: from solver_options
                   "problem", "pair_rows", "pair_index"}
_ESTIMATOR_PARAMETERS = {"C", "tol", "max_iter", "verbose", "random_state", "solver", "solver_options",
                         "max_bytes"}


def _warning_at_fit(route, *args, **kwargs):
    """``route(*args, **kwargs)``, its warnings re-issued at the user's ``fit`` call."""
    caught = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            return route(*args, **kwargs)
    finally:  # after the catch: the user's warning filters apply
        for record in caught:
            warn(record.message, record.category)


class _LPRankerModel(KernelPairRanker):
    """The LP Ranker model shared by :class:`LPRanker` and :class:`SurvivalLPRanker`."""

    _parameter_constraints: dict = {
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

    def __init__(self, C=1.0, *, kernel="rbf", gamma="scale", degree=3, coef0=1.0,
                 formulation="lp_ranker", method="auto", method_options=None, solver="highs",
                 solver_options=None, tol=None, max_iter=None, verbose=0, random_state=0,
                 support_threshold=1e-8, lifted=True, max_bytes=DEFAULT_MAX_BYTES):
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

    #: what this estimator offers instead of another estimator's fit parameter (see ``check_fit_params``)
    _fit_parameter_hints = {
        "alpha_path": ("Along a path of C, refit after set_params(C=...) with method_options={'warm_start': "
                       "previous.method_result_} (method='smoothing' or 'generation'): each fit starts from the "
                       "previous solution."),
    }

    @property
    def _row_index_attributes(self):
        """Fitted attributes indexing training rows (``support_`` indexes the centers for clustering)."""
        return () if getattr(self, "method_", self.method) == "clustering" else ("support_",)

    @property
    def _on_highs(self) -> bool:
        """Whether ``solver`` is the HiGHS backend, the one that can hold a live model for ``"generation"``."""
        return self.solver.strip().lower() == "highs"

    # ------------------------------------------------------------------ checks
    def _check_model_params(self):
        """Rules spanning several parameters: the route, its options, formulation and solver."""
        if self.method == "auto" and self.method_options:
            raise ValueError(f"method_options={self.method_options!r} are options of one route: set method to "
                             "'full', 'generation', 'smoothing', 'chunking', 'clustering' or 'subgradient' with "
                             "them (method='auto' chooses the route from the problem size).")
        self._check_method_options()
        if self.method == "generation" and not self._on_highs and self.formulation == "lp_ranker":
            raise ValueError(f"method='generation' grows one live HiGHS model; solver={self.solver!r} cannot. Use "
                             "solver='highs', or method='chunking', which re-solves restricted LPs on any LP solver.")
        if self.method in ("smoothing", "chunking", "subgradient") and self.formulation != "lp_ranker":
            raise ValueError(f"method={self.method!r} solves the LP Ranker itself; use formulation='lp_ranker' "
                             f"(got formulation={self.formulation!r}).")
        if self.method == "clustering" and self.kernel == "precomputed":
            raise ValueError("method='clustering' needs binary labels and explicit features (not a precomputed "
                             "kernel): the centers are means of feature rows.")
        check_solver(self.solver)
        get_formulation(self.formulation)

    def _check_method_options(self):
        """Reject option names the route does not take and option values out of range."""
        options = self.method_options or {}
        if not options:
            return
        name = type(self).__name__
        route = _FORMULATION_GENERATION if self._generates_pair_rows else _ROUTES.get(self.method)
        valid = [] if route is None else [p for p in inspect.signature(route[0]).parameters
                                          if p not in _DATA_ARGUMENTS | _ESTIMATOR_PARAMETERS]
        owned = sorted(set(options) & _ESTIMATOR_PARAMETERS)
        if owned:
            raise ValueError(
                f"method_options {owned} are parameters of {name}, not options of method={self.method!r}: "
                f"pass them to the estimator, e.g. {name}({owned[0]}=...).")
        unknown = sorted(set(options) - set(valid))
        if unknown:
            raise ValueError(f"method_options {unknown} are not options of method={self.method!r}; "
                             f"valid: {valid or 'none'}.")
        function, constraints = route
        validate_parameter_constraints({key: constraints[key] for key in options}, dict(options),
                                       caller_name=function.__name__)

    def select_method(self, pairs: PairSet) -> tuple[str, str]:
        """The route ``fit`` takes on these pairs, and why.

        ``method="auto"`` predicts the time of each route from measured constants (as the
        memory model predicts bytes): the full LP, exact, when it is predicted to finish within
        5 s (``aucopt._runtime.AUTO_FULL_SECONDS``); above, the smoothing route, which stops at
        a certified relative optimality gap of ``tol`` (default 1e-3), or, for a formulation
        other than ``"lp_ranker"``, its pair rows generated as needed
        (:func:`aucopt.modeling.pair_row_generation`, exact). A choice predicted to take over a minute is announced with a
        warning at fit time. An explicit ``method`` is returned as it is.

        Parameters
        ----------
        pairs : PairSet
            The training pairs (only their number, points and target are used).

        Returns
        -------
        method : {"full", "generation", "smoothing", "chunking", "clustering", "subgradient"}
            The route.
        reason : str
            One sentence saying why, with the predicted times (printed by ``fit`` when
            ``verbose`` is set).

        Examples
        --------
        >>> from aucopt import LPRanker, PairSet
        >>> LPRanker().select_method(PairSet.bipartite([1] * 100 + [0] * 100))[0]
        'full'
        >>> method, reason = LPRanker().select_method(PairSet.bipartite([1] * 1000 + [0] * 1000))
        >>> method
        'smoothing'
        >>> print(reason)  # doctest: +ELLIPSIS
        method='auto': smoothing to a certified relative gap of 0.001, predicted ... (1,000,000 pairs; the full LP, exact, is predicted to take ...; method='full' forces it).
        """
        m, P = pairs.n_points, pairs.n_pairs
        if self.method != "auto":
            return self.method, f"method={self.method!r} ({P:,} pairs)."
        full = _runtime.full_lp_seconds(m, P, pairs.target)
        if self.formulation != "lp_ranker":
            if full <= _runtime.AUTO_FULL_SECONDS:
                return "full", (f"method='auto': the full LP of formulation {self.formulation!r} ({P:,} pairs; "
                                f"the LP Ranker's would take {_runtime.describe(full)}).")
            return "generation", (f"method='auto': formulation {self.formulation!r} with its pair rows generated as "
                                  f"needed, exact ({P:,} pairs; the LP Ranker's full LP would take "
                                  f"{_runtime.describe(full)}; method='full' solves it whole).")
        if full <= _runtime.AUTO_FULL_SECONDS:
            return "full", (f"method='auto': the full LP, one row per pair, exact ({P:,} pairs; predicted "
                            f"{_runtime.describe(full)}).")
        tol = SMOOTHING_TOL if self.tol is None else float(self.tol)
        blocks = "" if self._stores_kernel(m) else (
            f"; the {m:,} x {m:,} kernel exceeds max_bytes, so it is evaluated in blocks at every step")
        return "smoothing", (f"method='auto': smoothing to a certified relative gap of {tol:g}, predicted "
                             f"{_runtime.describe(self._predicted_seconds('smoothing', pairs))} ({P:,} pairs; the full "
                             f"LP, exact, is predicted to take {_runtime.describe(full)}; method='full' forces "
                             f"it{blocks}).")

    def _predicted_seconds(self, method: str, pairs: PairSet) -> float:
        """The runtime model's seconds for ``method`` on these pairs (NaN for routes it does not model)."""
        m, P = pairs.n_points, pairs.n_pairs
        if method == "full":
            return _runtime.full_lp_seconds(m, P, pairs.target)
        if method == "smoothing":
            seconds = _runtime.smoothing_seconds(m, SMOOTHING_TOL if self.tol is None else float(self.tol))
            return seconds if self._stores_kernel(m) else 4.0 * seconds  # kernel blocks at every step
        return float("nan")

    def _stores_kernel(self, m: int) -> bool:
        """Whether the smoothing route keeps the kernel matrix (it fits ``max_bytes`` beside the
        working arrays, or it is given precomputed); otherwise it evaluates kernel blocks."""
        if self.kernel in ("precomputed", "linear"):
            return True  # given, or a product of X with itself in O(m d)
        return self.max_bytes is None or (_memory.kernel_bytes(m) + _memory.smoothing_work_bytes(m, min(m, 1000))
                                          <= self.max_bytes)

    def check_size(self, pairs: PairSet) -> None:
        """Refuse, before any work, a problem whose route would exceed ``max_bytes``.

        Estimates the peak memory of the route chosen by ``method`` (see
        :meth:`select_method`) for these pairs (kernel
        matrix, assembled LP and the solver's working memory for ``"full"``; a byte per pair, a
        kernel block and the restricted LP for ``"generation"`` (the kernel is read in blocks);
        the working set's kernel rows and Hessian block for ``"smoothing"`` (with the kernel
        when it fits, else the kernel is evaluated in blocks);
        the kernel, the pair partition and a restricted LP for ``"chunking"``; the kernel for
        ``"subgradient"``; the distance matrix for ``"clustering"``) and raises when it is
        over the budget. ``fit`` calls it first; call it yourself to test a size up front.

        Parameters
        ----------
        pairs : PairSet
            The training pairs (their number of points and pairs is all that is used).

        Raises
        ------
        ProblemTooLargeError
            When the estimate exceeds ``max_bytes``. The message (and the error's
            ``suggestion``) names the first alternative path whose own estimate fits the same
            budget: another route of this estimator, RankRC with a basis that fits, or RankSVM.

        Examples
        --------
        >>> from aucopt import LPRanker, PairSet
        >>> from aucopt.exceptions import ProblemTooLargeError
        >>> pairs = PairSet.bipartite([1] * 10_000 + [0] * 10_000)
        >>> try:
        ...     LPRanker(method="full").check_size(pairs)
        ... except ProblemTooLargeError as exc:
        ...     print(exc.suggestion.estimator, exc.suggestion.params)
        LPRanker {'method': 'smoothing'}
        """
        m, P = pairs.n_points, pairs.n_pairs
        survival = pairs.target == "survival"
        method = self.select_method(pairs)[0]

        def routes(*exclude):
            return lambda: _memory.lp_routes(m, P, survival=survival, solver=self.solver,
                                             max_bytes=self.max_bytes, exclude=exclude)

        if method == "full" or self.formulation != "lp_ranker":  # the whole problem is built
            get_formulation(self.formulation).check_size(n_points=m, n_pairs=P, n_basis=m, lifted=self.lifted,
                                                         max_bytes=self.max_bytes, solver=self.solver,
                                                         routes=routes())
        elif method == "generation":
            _memory.refuse(_memory.generation_work_bytes(m, P), self.max_bytes,
                           f"Row-and-column generation over {P:,} pairs of {m:,} points (a byte per pair, kernel "
                           "blocks and the restricted LP)", routes("generation"))
        elif method == "smoothing":
            kernel = _memory.kernel_bytes(m) if self._stores_kernel(m) and self.kernel != "linear" else 0.0
            _memory.refuse(kernel + _memory.smoothing_work_bytes(m, min(m, 50)), self.max_bytes,
                           f"The smoothing route over {m:,} points (kernel rows of its working set)",
                           routes("smoothing"))
        elif method == "clustering":
            _memory.refuse(_memory.clustering_bytes(m), self.max_bytes,
                           f"Local clustering of {m:,} points (a {m:,} x {m:,} distance matrix)", routes())
        elif method == "chunking":
            n_chunks = (self.method_options or {}).get("n_chunks", 5)
            _memory.refuse(_memory.chunking_bytes(m, P, n_chunks=n_chunks, solver=self.solver), self.max_bytes,
                           f"Chunking over {P:,} pairs of {m:,} points (kernel matrix, pair partition and "
                           "restricted LPs)", routes("chunking"))
        else:
            _memory.refuse(_memory.subgradient_bytes(m), self.max_bytes, f"The {m:,} x {m:,} kernel matrix",
                           routes("chunking", "subgradient"))

    # ------------------------------------------------------------------ solve
    def _fit(self, X, y, sample_weight=None, groups=None):
        """The kernel-expansion fit, with the per-row ``groups`` handed to the formulation."""
        self._fit_groups = groups
        try:
            return super()._fit(X, y, sample_weight)
        finally:
            del self._fit_groups

    def _solve_lp(self, problem, generation_options=None):
        """Solve the built LP whole, or, given ``generation_options``, with its pair rows generated
        as needed (:func:`~aucopt.modeling.pair_row_generation`: certified, or the status reached)."""
        if "coef" not in problem.outputs:  # before solving: the model is read from this output
            raise ValueError(missing_output_message(problem, "coef"))
        if generation_options is None:
            return solve(problem, self.solver, tol=self.tol, max_iter=self.max_iter, verbose=bool(self.verbose),
                         solver_options=self._solver_options()).raise_for_status()
        solver_options = dict(self._solver_options() or {})
        time_limit = solver_options.pop("time_limit", None)  # the whole run's
        result = _warning_at_fit(pair_row_generation, problem, problem.metadata["pair_rows"], self.solver,
                                 pair_index=problem.metadata["pair_index"], verbose=self.verbose,
                                 solver_options=solver_options, time_limit=time_limit, **generation_options)
        self.method_result_ = result
        return result if result.x is not None else result.raise_for_status()

    def _solve(self, X, pairs, kernel):
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
        result = self._solve_lp(problem, options if generates else None)
        self.problem_size_ = {"variables": problem.n_vars, "rows": problem.n_rows, "nonzeros": problem.nnz}
        self.n_iter_ = result.iterations
        self.optimality_gap_ = 0.0 if result.status == Status.OPTIMAL else float("nan")
        return Solution(basis, problem.output(result.x, "coef"), result, result.objective)

    @property
    def _generates_pair_rows(self) -> bool:
        """method="generation" on a formulation other than the LP Ranker: its pair rows generated."""
        return self.method == "generation" and self.formulation != "lp_ranker"

    def _announce_slow_route(self, method, pairs):
        """Warn when ``method="auto"`` chose a route predicted to take over a minute (never silently)."""
        if self.method != "auto":
            return
        seconds = self._predicted_seconds(method, pairs)
        if seconds > _runtime.SLOW_FIT_SECONDS:
            warn(f"{type(self).__name__}: {self.select_method(pairs)[1]} The fit is predicted to take "
                 f"{_runtime.describe(seconds)}: set verbose=1 to follow its certified gap, raise tol for a looser "
                 "gap, or subsample the data.", SlowFitWarning)

    def _kernel_operator(self, X, kernel, m):
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

    def _solve_smoothing(self, X, pairs, kernel, C, options):
        """The smoothing route to a certified relative gap of ``tol`` (default 1e-3)."""
        operator = self._kernel_operator(X, kernel, pairs.n_points)
        tol = SMOOTHING_TOL if self.tol is None else float(self.tol)
        run = _warning_at_fit(smoothing, operator, pairs, C, tol=tol, verbose=self.verbose,
                              time_limit=(self._solver_options() or {}).get("time_limit"), max_bytes=self.max_bytes,
                              **options)
        self.method_result_, self.n_iter_, self.optimality_gap_ = run, run.iterations, run.gap
        return Solution(None if kernel.precomputed else X, pairs.signs * run.alpha, None, run.objective)

    def _solve_generation(self, X, pairs, kernel, C, options):
        """Row-and-column generation, reading the kernel in blocks (never the whole matrix)."""
        if kernel.precomputed:
            K, basis = dense(X), None
            check_lp_kernel_values(K, self.solver)
        else:
            basis = X

            def K(rows, cols):
                block = kernel(X[rows], X[cols])
                check_lp_kernel_values(block, self.solver)
                return block
        run = _warning_at_fit(row_column_generation, K, pairs, C, tol=self.tol, verbose=self.verbose,
                              solver_options=self._solver_options(), max_bytes=self.max_bytes, **options)
        self.method_result_, self.n_iter_, self.optimality_gap_ = run, run.rounds, run.gap
        return Solution(basis, pairs.signs * run.alpha, run.solve_result, run.objective)

    def _solve_clustered(self, X, pairs, kernel, options):
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
        return Solution(clusters.centers, problem.output(result.x, "coef"), result, result.objective)


class LPRanker(BinaryRankerMixin, _LPRankerModel):
    """LP Ranker: a sparse kernel ranker maximizing the AUC by linear programming.

    Fits the kernel expansion f(x) = Σ_l y_l α_l k(x, x_l), α ≥ 0, that solves the LP Ranker
    of Ataman (2007), eq. 3.3: an L1 penalty on α plus C times the pairwise hinge loss over
    every (positive, negative) pair. The L1 penalty makes the expansion sparse; the points with
    α_l > 0 are the ranking vectors (``support_vectors_``). The LP is solved exactly
    (``method="full"``) or by one of the scalable routes of Ataman (2007), Ch. IV.

    Parameters
    ----------
    C : float, default=1.0
        Weight of the pairwise hinge loss (> 0); larger values fit the pairs harder and keep
        more ranking vectors.
    kernel : {"rbf", "linear", "poly", "precomputed"} or callable, default="rbf"
        The kernel k, as in :class:`sklearn.svm.SVC`. With ``"precomputed"``, ``X`` is the
        kernel matrix (n_samples × n_samples at fit, n_test × n_samples at prediction). A
        callable is called as ``kernel(A, B)`` and returns the kernel matrix.
    gamma : float or {"scale", "auto", "sigma2"}, default="scale"
        Width of the ``"rbf"`` and ``"poly"`` kernels: ``"scale"`` is 1/(n_features·Var(X)),
        ``"auto"`` 1/n_features, ``"sigma2"`` 1/σ² with σ² the mean pairwise squared distance.
    degree : int, default=3
        Degree of the ``"poly"`` kernel.
    coef0 : float, default=1.0
        Constant term of the ``"poly"`` kernel.
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
        solution; the kernel is read in blocks. ``"smoothing"``: the smoothed objective, narrowed by continuation and minimized by
        Newton steps on the sorted-pair core (:func:`aucopt.lp.smoothing`), until the certified
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
    solver : str, default="highs"
        LP backend: ``"highs"``, ``"osqp"``, ``"cvxpy"`` (Clarabel), ``"cvxpy:<NAME>"`` or an
        installed cvxpy solver name (see :func:`aucopt.available_solvers`). Unused by
        ``method="smoothing"`` and ``"subgradient"``; ``method="generation"`` needs
        ``"highs"``. HiGHS (dual simplex) is the LP solver. OSQP is a first-order
        QP solver: on this degenerate LP it takes minutes at a few hundred points (HiGHS: about
        a second) and often stops at its iteration limit, so ``"osqp"`` (and
        ``"cvxpy:osqp"``) issue a :class:`~aucopt.exceptions.SolverWarning` at fit time.
    solver_options : dict, default=None
        Raw options passed unchanged to the backend, in its own names (e.g. HiGHS
        ``{"presolve": "off"}``). ``{"time_limit": seconds}`` (a positive number, NumPy
        scalars included; checked by ``fit`` for every route alike) caps each solve on every
        backend that has a time limit (HiGHS, OSQP, Clarabel, SCS, HiGHS or OSQP through cvxpy;
        ECOS has none and raises ``ValueError``); a solve of ``method="full"`` stopped by it
        keeps its last point, sets ``solve_result_.status == "time_limit"`` and issues a
        :class:`~aucopt.exceptions.SolverWarning`. It caps the whole fit on every route:
        generation and chunking give each restricted LP the time left, smoothing (its inner QP
        solves too) and the subgradient stop at it. A scalable route stopped by it, even inside
        a restricted LP, issues a ``ConvergenceWarning``: the best point found is kept, with its
        certified lower bound, and ``optimality_gap_`` says how far from the optimum it can be.
    tol : float, default=None
        Stopping tolerance: for ``method="smoothing"``, the certified relative optimality gap at
        which it stops (None: 1e-3, ``aucopt.lp.SMOOTHING_TOL``); the backend's tolerance for
        the LP routes (None: the backend's default); for ``method="subgradient"`` the relative
        move of α below which the run stops (None: no such test).
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
    random_state : int, RandomState instance, numpy.random.Generator or None, default=0
        Seed of the random partition of the pairs into chunks (``method="chunking"``).
    support_threshold : float, default=1e-8
        Coefficients with ``|y_l α_l| ≤ support_threshold · max|y α|`` are dropped
        from the expansion. The subgradient's α is rarely exactly 0: use e.g. 1e-3 there.
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
    lifted : bool, default=True
        Build the sparse lifted LP (score variables s = K Y α, three nonzeros per pair row);
        False builds the thesis's dense pair rows (2·n_samples nonzeros per pair row).
    max_bytes : float or None, default=2147483648
        Memory budget (bytes, default 2 GiB) of the LP, the kernel matrix and the route's
        arrays; larger problems raise :class:`~aucopt.exceptions.ProblemTooLargeError` before
        any work. None: no limit.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The two class labels (ordinal targets: the levels, lowest first).
    pos_label_ : object
        The positive class used (binary labels only).
    support_ : ndarray of shape (n_support,)
        Indices of the ranking vectors (rows of ``X``, or of the cluster centers for
        ``method="clustering"``).
    support_vectors_ : ndarray of shape (n_support, n_features) or None
        The ranking vectors; None for ``kernel="precomputed"``.
    dual_coef_ : ndarray of shape (n_support,)
        Their coefficients y_l α_l in f(x) = Σ_l dual_coef_l k(x, support_vectors_l).
    intercept_ : float
        ``decision_function`` = f(x) + ``intercept_`` (for ``pos_label_ == classes_[1]``).
    threshold_ : float
        The score cut with the best training accuracy, used by ``predict``.
    kernel_ : Kernel
        The kernel with its resolved ``gamma``.
    method_ : str
        The route taken (``method``, or the one ``method="auto"`` chose).
    objective_ : float
        LP objective Σ α + C Σ w_ij z_ij at the solution: the full LP's (over all pairs) for
        every route but ``"clustering"``, whose objective is the reduced LP's.
    optimality_gap_ : float
        The certified relative optimality gap of the returned expansion, (``objective_`` − a
        lower bound of the LP optimum) / ``objective_``: 0.0 when an exact route proved
        optimality (``"full"``, and ``"generation"`` and ``"chunking"`` when their certificate
        held); the dual bound reached by ``"smoothing"``, ``"subgradient"`` and by an exact
        route stopped early; NaN where no bound exists (``"clustering"`` solves another LP, a
        full LP without an optimal status).
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
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the features seen during fit, when ``X`` has string column names.

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
    .. [1] Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming for
       problems with binary output*. PhD thesis, University of Iowa.
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
    >>> sub = LPRanker(C=0.1, gamma=0.01, method="subgradient", max_iter=300,
    ...                support_threshold=1e-3).fit(X_train, y_train)
    >>> sub.n_iter_ <= 300, bool(sub.objective_ >= model.objective_ * (1 - 1e-9))
    (True, True)
    """

    _parameter_constraints: dict = {**_LPRankerModel._parameter_constraints, **POS_LABEL_CONSTRAINT,
                                    **PAIR_OPTIONS_CONSTRAINT}

    def __init__(self, C=1.0, *, kernel="rbf", gamma="scale", degree=3, coef0=1.0,
                 formulation="lp_ranker", method="auto", method_options=None, solver="highs",
                 solver_options=None, tol=None, max_iter=None, verbose=0, random_state=0,
                 support_threshold=1e-8, pos_label=None, pair_options=None, lifted=True,
                 max_bytes=DEFAULT_MAX_BYTES):
        super().__init__(C, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                         formulation=formulation, method=method, method_options=method_options,
                         solver=solver, solver_options=solver_options, tol=tol, max_iter=max_iter,
                         verbose=verbose, random_state=random_state, support_threshold=support_threshold,
                         lifted=lifted, max_bytes=max_bytes)
        self.pos_label = pos_label
        self.pair_options = pair_options

    def fit(self, X, y, sample_weight=None, groups=None, **fit_params):
        """Fit the LP Ranker.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (the kernel matrix for ``kernel="precomputed"``).
        y : array-like of shape (n_samples,)
            Two class labels; ``pos_label`` (default the larger) is the positive class. With
            ``pair_options={"target": "multipartite"}``: ordinal labels of two or more levels.
        sample_weight : float or array-like of shape (n_samples,), default=None
            Non-negative per-sample weights; pair (i, j) weighs ``sample_weight[i] *
            sample_weight[j]``. A zero weight is the same as removing the row.
        groups : array-like of int of shape (n_samples,), default=None
            One integer group index per sample (a protected attribute, a site, ...), handed
            to the formulation as ``m.groups`` (rows of zero ``sample_weight`` are dropped from
            it with the rows); a formulation that reads ``m.groups`` without them raises a
            ``ValueError``. Formulations that do not read it ignore it. In a ``Pipeline`` pass
            ``fit(X, y, <step>__groups=g)``; in ``GridSearchCV`` or ``cross_validate``, enable
            scikit-learn's metadata routing and request it with ``set_fit_request(groups=True)``
            (the same ``groups`` then also reach a group-aware splitter).
        **fit_params : dict
            No other fit parameter is taken: a name given here raises a ``TypeError`` naming
            the estimators that take it (e.g. ``alpha_path`` of the Newton rankers), before
            any work.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return super().fit(X, y, sample_weight, groups=groups, **fit_params)


class SurvivalLPRanker(SurvivalRankerMixin, _LPRankerModel):
    """LP Ranker for right-censored survival data: a sparse kernel risk score.

    The LP of :class:`LPRanker` over the comparable pairs of Harrell's concordance index
    (Ataman 2007, Ch. V): (i, j) with an observed event for i and t_i < t_j, or t_i = t_j with
    j censored, asking f(x_i) > f(x_j). Higher scores mean higher risk (an earlier event).
    ``y`` is a structured array with a boolean event field and a float time field
    (:func:`aucopt.survival_target` or scikit-survival's ``Surv.from_arrays``).

    Parameters
    ----------
    C : float, default=1.0
        Weight of the pairwise hinge loss (> 0).
    kernel : {"rbf", "linear", "poly", "precomputed"} or callable, default="rbf"
        The kernel k, as in :class:`sklearn.svm.SVC`; ``"precomputed"`` takes the kernel
        matrix as ``X``.
    gamma : float or {"scale", "auto", "sigma2"}, default="scale"
        Width of the ``"rbf"`` and ``"poly"`` kernels: ``"scale"`` is 1/(n_features·Var(X)),
        ``"auto"`` 1/n_features, ``"sigma2"`` 1/σ² with σ² the mean pairwise squared distance.
    degree : int, default=3
        Degree of the ``"poly"`` kernel.
    coef0 : float, default=1.0
        Constant term of the ``"poly"`` kernel.
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
    solver : str, default="highs"
        LP backend (see :func:`aucopt.available_solvers`). HiGHS is the LP solver; ``"osqp"``
        (a first-order QP solver, minutes on this LP at a few hundred points) issues a
        :class:`~aucopt.exceptions.SolverWarning` at fit time (see :class:`LPRanker`).
    solver_options : dict, default=None
        Raw options passed unchanged to the backend; ``{"time_limit": seconds}`` caps the
        whole fit on every route and backend that has a time limit (see :class:`LPRanker`).
    tol : float, default=None
        Stopping tolerance: for ``method="smoothing"`` the certified relative optimality gap
        (None: 1e-3); the backend's for the LP routes (None: its default); for
        ``method="subgradient"`` the relative move of α below which the run stops.
    max_iter : int, default=None
        Newton steps of smoothing (default 1000), subgradient iterations (default 5000),
        generation rounds (default 500), chunking passes (default 50) or the backend's
        iteration limit for ``"full"``. A route stopped by it before its own rule holds issues
        a ``ConvergenceWarning`` (chunking: ``solve_result_.status == "iteration_limit"``).
    verbose : int, default=0
        Progress output: 0 silent; ≥ 1 the route taken and why, the backend's own log for
        every LP solved and a progress bar for ``"generation"``, ``"smoothing"``,
        ``"chunking"`` and ``"subgradient"``.
    random_state : int, RandomState instance, numpy.random.Generator or None, default=0
        Seed of the random partition of the pairs into chunks (``method="chunking"``).
    support_threshold : float, default=1e-8
        Coefficients with ``|y_l α_l| ≤ support_threshold · max|y α|`` are dropped.
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
    lifted : bool, default=True
        Build the sparse lifted LP (False: the thesis's dense pair rows).
    max_bytes : float or None, default=2147483648
        Memory budget (bytes, default 2 GiB); larger problems raise
        :class:`~aucopt.exceptions.ProblemTooLargeError` before any work. None: no limit.

    Attributes
    ----------
    support_ : ndarray of shape (n_support,)
        Indices of the ranking vectors among the training rows.
    support_vectors_ : ndarray of shape (n_support, n_features) or None
        The ranking vectors; None for ``kernel="precomputed"``.
    dual_coef_ : ndarray of shape (n_support,)
        Their coefficients y_l α_l (y_l = +1 for events, −1 for censored subjects).
    kernel_ : Kernel
        The kernel with its resolved ``gamma``.
    method_ : str
        The route taken (``method``, or the one ``method="auto"`` chose).
    objective_ : float
        LP objective at the solution (the full LP's, over all comparable pairs).
    optimality_gap_ : float
        The certified relative optimality gap of the returned expansion (see
        :class:`LPRanker`): 0.0 for a proven optimum, the dual bound reached by
        ``"smoothing"``, ``"subgradient"`` or an exact route stopped early.
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
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the features seen during fit, when ``X`` has string column names.

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
    .. [1] Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming for
       problems with binary output*. PhD thesis, University of Iowa.
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

    _parameter_constraints: dict = {**_LPRankerModel._parameter_constraints, **PAIR_OPTIONS_CONSTRAINT}

    def __init__(self, C=1.0, *, kernel="rbf", gamma="scale", degree=3, coef0=1.0,
                 formulation="lp_ranker", method="auto", method_options=None, solver="highs",
                 solver_options=None, tol=None, max_iter=None, verbose=0, random_state=0,
                 support_threshold=1e-8, pair_options=None, lifted=True, max_bytes=DEFAULT_MAX_BYTES):
        super().__init__(C, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                         formulation=formulation, method=method, method_options=method_options,
                         solver=solver, solver_options=solver_options, tol=tol, max_iter=max_iter,
                         verbose=verbose, random_state=random_state, support_threshold=support_threshold,
                         lifted=lifted, max_bytes=max_bytes)
        self.pair_options = pair_options

    def fit(self, X, y, sample_weight=None, groups=None, **fit_params):
        """Fit the survival LP Ranker.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (the kernel matrix for ``kernel="precomputed"``).
        y : structured array of shape (n_samples,) or tuple (event, time)
            Boolean event indicator and float time (see :func:`aucopt.survival_target`).
        sample_weight : float or array-like of shape (n_samples,), default=None
            Non-negative per-sample weights; pair (i, j) weighs ``sample_weight[i] *
            sample_weight[j]``. A zero weight is the same as removing the row.
        groups : array-like of int of shape (n_samples,), default=None
            One integer group index per sample (a protected attribute, a site, ...), handed
            to the formulation as ``m.groups`` (rows of zero ``sample_weight`` are dropped from
            it with the rows); a formulation that reads ``m.groups`` without them raises a
            ``ValueError``. Formulations that do not read it ignore it. In a ``Pipeline`` pass
            ``fit(X, y, <step>__groups=g)``; in ``GridSearchCV`` or ``cross_validate``, enable
            scikit-learn's metadata routing and request it with ``set_fit_request(groups=True)``
            (the same ``groups`` then also reach a group-aware splitter).
        **fit_params : dict
            No other fit parameter is taken: a name given here raises a ``TypeError`` naming
            the estimators that take it (e.g. ``alpha_path`` of the Newton rankers), before
            any work.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return super().fit(X, y, sample_weight, groups=groups, **fit_params)
