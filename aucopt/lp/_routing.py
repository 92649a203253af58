"""Which route the LP Ranker takes, with which options, and whether it fits in memory.

``method="auto"`` predicts the time of each route from measured constants (:mod:`aucopt._runtime`)
and ``check_size`` the peak memory of the chosen one (:mod:`aucopt._memory`), before any work;
``method_options`` are checked against the signature and the constraints of the route's function.
:class:`RouteChoice` holds these rules for the LP Ranker estimators.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from sklearn.utils._param_validation import validate_parameter_constraints

from .. import _memory, _runtime
from ..modeling import PAIR_ROW_CONSTRAINTS, get_formulation, pair_row_generation
from ..pairs import PairSet
from ..solvers import check_solver
from ._clustering import CLUSTERING_CONSTRAINTS, local_clustering
from ._generation import GENERATION_CONSTRAINTS, row_column_generation
from ._scale import CHUNKING_CONSTRAINTS, SUBGRADIENT_CONSTRAINTS, chunking, subgradient
from ._smoothing import SMOOTHING_CONSTRAINTS, smoothing

__all__ = ["LP_METHODS", "SMOOTHING_TOL", "RouteChoice"]

LP_METHODS = ("full", "generation", "smoothing", "chunking", "clustering", "subgradient")

#: ``method="smoothing"``'s certified relative gap when ``tol`` is None
SMOOTHING_TOL = 1e-3


#: the function behind each scalable route and the constraints of its ``method_options``
_ROUTES: dict[str, tuple[Callable[..., Any], dict]] = {
    "generation": (row_column_generation, GENERATION_CONSTRAINTS),
    "smoothing": (smoothing, SMOOTHING_CONSTRAINTS),
    "chunking": (chunking, CHUNKING_CONSTRAINTS),
    "subgradient": (subgradient, SUBGRADIENT_CONSTRAINTS),
    "clustering": (local_clustering, CLUSTERING_CONSTRAINTS),
}
#: a formulation other than "lp_ranker": method="generation" generates its pair rows
_FORMULATION_GENERATION: tuple[Callable[..., Any], dict] = (pair_row_generation, PAIR_ROW_CONSTRAINTS)
#: arguments of the route functions that the estimator itself supplies
_DATA_ARGUMENTS = {"K", "pairs", "X", "y_positive", "time_limit",  # time_limit: from solver_options
                   "problem", "pair_rows", "pair_index"}
_ESTIMATOR_PARAMETERS = {"C", "tol", "max_iter", "verbose", "random_state", "solver", "solver_options",
                         "max_bytes"}


class RouteChoice:
    """The route rules of the LP Ranker estimators: the choice of ``method="auto"``, the checks of
    ``method``, ``method_options``, ``formulation`` and ``solver``, and the memory check."""

    # the estimator parameters these rules read
    method: str
    method_options: dict | None
    formulation: str | Callable[..., Any]
    kernel: str | Callable[..., Any]
    solver: str
    tol: float | None
    lifted: bool
    max_bytes: float | None

    @property
    def _on_highs(self) -> bool:
        """Whether ``solver`` is the HiGHS backend, the one that can hold a live model for ``"generation"``."""
        return self.solver.strip().lower() == "highs"

    # ------------------------------------------------------------------ checks
    def _check_model_params(self) -> None:
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

    def _check_method_options(self) -> None:
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
        assert route is not None  # without a route every option is unknown
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
        (:func:`aucopt.modeling.pair_row_generation`, exact). A choice predicted to take over a
        minute is announced with a warning at fit time. An explicit ``method`` is returned as it is.

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
        >>> print(reason)  # doctest: +ELLIPSIS +NORMALIZE_WHITESPACE
        method='auto': smoothing to a certified relative gap of 0.001, predicted ... (1,000,000 pairs;
        the full LP, exact, is predicted to take ...; method='full' forces it).
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
                             f"{_runtime.describe(self.predicted_seconds('smoothing', pairs))} ({P:,} pairs; the full "
                             f"LP, exact, is predicted to take {_runtime.describe(full)}; method='full' forces "
                             f"it{blocks}).")

    def predicted_seconds(self, method: str, pairs: PairSet) -> float:
        """The seconds the runtime model predicts for one fit of ``method`` on these pairs.

        ``method="auto"`` compares these predictions (see :meth:`select_method`); they are on the
        slow side of the measurements of 2-core machines.

        Parameters
        ----------
        method : str
            A route: ``"full"`` or ``"smoothing"`` are modelled; any other route gives NaN.
        pairs : PairSet
            The training pairs (only their number, points and target are used).

        Returns
        -------
        seconds : float
            The predicted time, NaN for a route the model does not cover.

        Examples
        --------
        >>> from aucopt import LPRanker, PairSet
        >>> pairs = PairSet.bipartite([1] * 1000 + [0] * 1000)
        >>> ranker = LPRanker()
        >>> ranker.predicted_seconds("smoothing", pairs) < ranker.predicted_seconds("full", pairs)
        True
        """
        m, P = pairs.n_points, pairs.n_pairs
        if method == "full":
            return _runtime.full_lp_seconds(m, P, pairs.target)
        if method == "smoothing":
            seconds = _runtime.smoothing_seconds(m, SMOOTHING_TOL if self.tol is None else float(self.tol),
                                                 pairs.target)
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

    @property
    def _generates_pair_rows(self) -> bool:
        """method="generation" on a formulation other than the LP Ranker: its pair rows generated."""
        return self.method == "generation" and self.formulation != "lp_ranker"

    def _announce_slow_route(self, method: str, pairs: PairSet) -> None:
        """Warn when ``method="auto"`` chose a route predicted to take over a minute (never silently)."""
        _runtime.announce_slow_fit(self, method, pairs, ": set verbose=1 to follow its certified gap, raise tol for "
                                   "a looser gap, or subsample the data.")
