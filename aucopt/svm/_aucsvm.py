"""AUC-maximizing SVM estimators (Brefeld & Scheffer 2005): pairwise duals, liblinear route, k-means."""

from __future__ import annotations

from collections.abc import Callable
from numbers import Integral
from typing import Any, ClassVar, Literal

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import StrOptions, validate_parameter_constraints

from .. import _runtime
from .._doc_parts import (
    BINARY_ATTRIBUTES_DOC,
    BINARY_PAIR_OPTIONS_DOC,
    FEATURE_ATTRIBUTES_DOC,
    SURVIVAL_IPCW_DOC,
    SURVIVAL_PAIR_OPTIONS_DOC,
)
from .._docstrings import fill_doc
from .._memory import check_aucsvm
from .._validation import Count, format_bytes
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
    as_seed,
    dense,
    non_negative,
    positive,
)
from ..exceptions import ProblemTooLargeError, SolverWarning, warn
from ..kernels import Kernel, kernel_factor
from ..modeling import get_formulation
from ..pairs import DEFAULT_MAX_BYTES, PairSet
from ..pairs.core import pair_loss
from ..solvers import SolveResult, Status, check_solver, solve
from ._aucsvm_dcd import _dcd_data, _DCDRun, _newton_start, _unit_scale
from ._aucsvm_objective import _certified, _largest_pair_weight, _primal_objective, _relative_gap

__all__ = ["AUCSVM", "SurvivalAUCSVM"]

#: the algorithm routes of ``method`` and the keys each accepts in ``method_options``
AUCSVM_METHOD_OPTIONS: dict[str, dict[str, list[Any]]] = {
    "full": {},
    "liblinear": {},
    "newton": {},
    "dcd": {"shrinking": ["boolean"]},
    "kmeans": {"n_clusters": [Count(Integral, 1, None, closed="left"), None],
               "minibatch_above": [Count(Integral, 1, None, closed="left")]},
}
_LOSS_POWER = {"hinge": 1, "squared_hinge": 2}

#: ``method="auto"`` with ``kernel="linear"`` and ``loss="squared_hinge"``: the pairwise dual QP up to
#: this many pairs (0.02 to 0.45 s on OSQP for 60 to 280 points; it lists the support pairs), truncated
#: Newton on the primal above (benchmarks/aucsvm_squared_hinge_routes.py: 250,000 pairs in 9 ms). That
#: dual (rank d plus a ridge 1/(2C)) is too ill-conditioned for dual coordinate descent: 280 points took
#: it 33 s (bipartite pairs) and 75 s (survival pairs) at C = 100. Every other case takes dual
#: coordinate descent at every size (benchmarks/aucsvm_small_routes.py: 60 to 280 points, 900 to 23,000
#: pairs, C from 0.1 to 100): 0.01 to 2.4 s where the QP on OSQP took 0.04 to 14 s with an RBF kernel,
#: and 0.02 to 0.13 s where it took 0.2 to 155 s with a linear kernel and the hinge (unconverged on 11
#: of those 24 fits); within 7e-6 and 1.2e-5 of the optimum respectively (relative, bounded by the dual).
#: With a linear kernel dual coordinate descent is also the better route than liblinear on the pair
#: differences, the one taken before (benchmarks/aucsvm_linear_routes.py: WDBC, digits and
#: make_classification, 2 to 64 features, 22,500 to 2.2 million pairs, C from 0.01 to 10): faster on
#: all 23 fits (2.3 to 55 times) and converged on all, where liblinear stopped at its iteration limit
#: on 8; at 3,000 points (2.2 million pairs) 33 s against 286 s, and liblinear's pair differences
#: exceed the default max_bytes there.
AUCSVM_AUTO_MAX_PAIRS = 20_000

#: ``method="auto"`` takes the QP instead of dual coordinate descent up to ``AUCSVM_AUTO_MAX_PAIRS``
#: pairs when C times the largest pair weight exceeds this: coordinate steps of O(1) cannot cross a
#: box that wide, and sums over pair duals that large lose every digit (sample weights of 1e100
#: overflowed them)
DCD_MAX_BOX = 1e12

#: the QP backend of ``solver="auto"``
AUCSVM_DEFAULT_SOLVER = "osqp"

#: ``method="dcd"``: the default stopping tolerance on the projected-gradient gap (on the dual
#: solved at unit kernel scale) and the default epoch limit.
DCD_DEFAULT_TOL = 1e-6
DCD_DEFAULT_MAX_ITER = 100_000

#: ``method="newton"``: the default bound on the relative duality gap
#: ``(objective_ + dual_objective_) / objective_`` (a certificate; reached in 5 to 10 Newton
#: iterations, each a few passes over X) and the default limit on the Newton iterations.
NEWTON_DEFAULT_TOL = 1e-9
NEWTON_DEFAULT_MAX_ITER = 100

_RandomState = int | np.random.RandomState | np.random.Generator | None


class _AUCSVMModel(KernelPairRanker):
    """The AUC-SVM model shared by :class:`AUCSVM` and :class:`SurvivalAUCSVM`."""

    _parameter_constraints: ClassVar[dict] = {
        "C": [positive()],
        "loss": [StrOptions(set(_LOSS_POWER))],
        **KERNEL_CONSTRAINTS,
        "method": [StrOptions({"auto", *AUCSVM_METHOD_OPTIONS})],
        "method_options": [dict, None],
        "solver": [str],
        **SOLVER_OPTIONS_CONSTRAINT,
        "tol": [positive(), None],
        "max_iter": [Count(Integral, 1, None, closed="left"), None],
        **VERBOSE_CONSTRAINT,
        **RANDOM_STATE_CONSTRAINT,
        "support_threshold": [non_negative()],
        "warm_start": ["boolean"],
        **MAX_BYTES_CONSTRAINT,
        **PAIR_OPTIONS_CONSTRAINT,
    }

    #: what this estimator offers instead of another estimator's fit parameter (see ``check_fit_params``)
    _fit_parameter_hints: ClassVar[dict[str, str]] = {
        "alpha_path": ("Along a path of C, set warm_start=True and refit after set_params(C=...): "
                       "method='dcd' starts each fit from the previous one's pair duals."),
    }

    def __init__(self, C: float = 1.0, *, loss: Literal["hinge", "squared_hinge"] = "hinge",
                 kernel: str | Callable[..., Any] = "rbf", gamma: str | float = "scale", degree: int = 3,
                 coef0: float = 1.0, method: Literal["auto", "full", "liblinear", "newton", "dcd", "kmeans"] = "auto",
                 method_options: dict[str, Any] | None = None, solver: str = "auto",
                 solver_options: dict[str, Any] | None = None, tol: float | None = None,
                 max_iter: int | None = None, verbose: int = 0, random_state: _RandomState = 0,
                 support_threshold: float = 1e-8, warm_start: bool = False,
                 pair_options: dict[str, Any] | None = None, max_bytes: float | None = DEFAULT_MAX_BYTES):
        self.C = C
        self.loss = loss
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.method = method
        self.method_options = method_options
        self.solver = solver
        self.solver_options = solver_options
        self.tol = tol
        self.max_iter = max_iter
        self.verbose = verbose
        self.random_state = random_state
        self.support_threshold = support_threshold
        self.warm_start = warm_start
        self.pair_options = pair_options
        self.max_bytes = max_bytes

    def _check_model_params(self) -> None:
        """Rules across parameters: the linear routes need kernel='linear'; the route's options."""
        if self.method in ("liblinear", "kmeans") and self.kernel != "linear":
            raise ValueError(
                f"method={self.method!r} works on explicit pair differences x_i - x_j and needs "
                f"kernel='linear'; got kernel={self.kernel!r} (use method='full' for other kernels).")
        if self.method == "newton" and (self.kernel != "linear" or self.loss != "squared_hinge"):
            raise ValueError(
                "method='newton' minimizes the primal in w, which needs kernel='linear' and the smooth "
                f"loss='squared_hinge'; got kernel={self.kernel!r}, loss={self.loss!r} (use method='dcd' for other "
                "kernels and for the hinge).")
        if self.method == "auto" and self.method_options:
            raise ValueError(f"method_options={self.method_options!r} are options of one route: set method to "
                             "'full', 'liblinear', 'dcd' or 'kmeans' with them (method='auto' chooses the route from "
                             "the kernel and the problem size).")
        allowed = AUCSVM_METHOD_OPTIONS.get(self.method, {})
        options = self.method_options or {}
        unknown = sorted(set(options) - set(allowed))
        if unknown:
            raise ValueError(f"method_options {unknown} are not options of method={self.method!r}; "
                             f"valid: {sorted(allowed) or 'none'}.")
        validate_parameter_constraints({k: allowed[k] for k in options}, options,
                                       caller_name=f"{type(self).__name__}(method={self.method!r}) method_options")
        check_solver(self._qp_solver)

    @property
    def _qp_solver(self) -> str:
        """The QP backend: ``solver``, or OSQP for ``solver="auto"``."""
        return AUCSVM_DEFAULT_SOLVER if self.solver == "auto" else self.solver

    def _over_budget(self, X: Any, pairs: PairSet, method: str) -> tuple[float, float] | None:
        """The peak bytes of ``method`` (on ``solver`` for the QP) and ``max_bytes`` when they exceed it, else None."""
        try:
            check_aucsvm(X, pairs, method=method, kernel=self.kernel if isinstance(self.kernel, str) else "callable",
                         loss=self.loss, solver=self._qp_solver, max_bytes=self.max_bytes)
        except ProblemTooLargeError as exc:
            return exc.nbytes, exc.max_bytes
        return None

    def select_method(self, pairs: PairSet, X: Any = None) -> tuple[str, str]:
        """The route ``fit`` takes on these pairs, and why.

        ``method="auto"`` takes dual coordinate descent (``"dcd"``): the pairwise dual of the QP,
        solved in a fraction of the QP's time at every size (on 60 to 280 points, 900 to 23,000
        pairs: 0.01 to 2.4 s where OSQP took 0.04 to 155 s), as close to its optimum as OSQP
        (within about 1e-5, relative, at the default ``tol``). With ``kernel="linear"`` that works
        on X itself (densified when sparse); when it exceeds ``max_bytes`` and liblinear on the
        pair differences (the same optimum, Brefeld & Scheffer 2005, Theorem 2; sparse rows kept
        sparse) fits, liblinear is taken. Two exceptions take the QP (``"full"``) up to
        ``AUCSVM_AUTO_MAX_PAIRS`` (20,000) pairs: ``kernel="linear"`` with
        ``loss="squared_hinge"``, whose dual (rank d plus a small ridge) is too ill-conditioned
        for coordinate descent (above, truncated Newton on the primal, ``"newton"``: the same
        optimum, the pairs never listed, O(n) memory besides X), and C times the largest pair
        weight above 1e12, a box too wide for coordinate steps. A ``solver``
        given explicitly (not ``"auto"``) names the QP backend, so ``method="auto"`` then takes
        the QP on it, unless the QP exceeds ``max_bytes``: the reason then says that the solver
        is not used (and ``fit`` warns). An explicit ``method`` is returned as it is.

        Parameters
        ----------
        pairs : PairSet
            The training pairs (their number and points).
        X : {array-like, sparse matrix} of shape (n_samples, n_features), default=None
            The training data, for the memory estimates of the routes (the QP when an explicit
            ``solver`` asks for it; dual coordinate descent against liblinear for
            ``kernel="linear"``); None assumes that they fit (``fit`` checks the route taken).

        Returns
        -------
        method : {"full", "liblinear", "newton", "dcd", "kmeans"}
            The route.
        reason : str
            One sentence saying why (printed by ``fit`` when ``verbose`` is set).

        Examples
        --------
        >>> from aucopt import AUCSVM, PairSet
        >>> pairs = PairSet.bipartite([1] * 300 + [0] * 300)
        >>> AUCSVM(kernel="rbf").select_method(pairs)[0], AUCSVM(kernel="linear").select_method(pairs)[0]
        ('dcd', 'dcd')
        >>> print(AUCSVM(kernel="rbf").select_method(PairSet.bipartite([1] * 100 + [0] * 100))[1])
        method='auto': dual coordinate descent on the 10,000 pairs (the same dual as the QP;
        method='full' forces the QP).
        >>> AUCSVM(kernel="linear", loss="squared_hinge").select_method(pairs)[0]
        'newton'

        A solver given explicitly keeps the QP, which it solves:

        >>> print(AUCSVM(kernel="rbf", solver="osqp").select_method(pairs)[1])
        method='auto': the pairwise dual QP on solver='osqp' as given (90,000 pairs; with
        solver='auto', dual coordinate descent reaches the same optimum, usually in a fraction of
        the time).
        """
        P = pairs.n_pairs
        if self.method != "auto":
            return self.method, f"method={self.method!r} ({P:,} pairs)."
        fast, what, dcd_over = "dcd", "dual coordinate descent", None
        box = float(self.C) * _largest_pair_weight(pairs) if P <= AUCSVM_AUTO_MAX_PAIRS else 0.0
        if box > DCD_MAX_BOX and self.solver == "auto":
            return "full", (f"method='auto': the pairwise dual QP ({P:,} pairs <= {AUCSVM_AUTO_MAX_PAIRS:,}; C times "
                            f"the largest pair weight is {box:.3g}, a box too wide for dual coordinate descent).")
        if self.kernel == "linear" and self.loss == "squared_hinge":
            if P <= AUCSVM_AUTO_MAX_PAIRS and self.solver == "auto":
                return "full", (f"method='auto': the pairwise dual QP ({P:,} pairs <= {AUCSVM_AUTO_MAX_PAIRS:,}; a "
                                "linear kernel's squared-hinge dual is too ill-conditioned for dual coordinate "
                                "descent; above, truncated Newton on the primal).")
            fast, what = "newton", "truncated Newton on the primal"
        elif self.kernel == "linear" and X is not None:
            dcd_over = self._over_budget(X, pairs, "dcd")
            if dcd_over is not None and self._over_budget(X, pairs, "liblinear") is None:
                fast, what = "liblinear", "liblinear on the pair differences"
        if self.solver != "auto":
            over = None if X is None else self._over_budget(X, pairs, "full")
            if over is None:
                return "full", (f"method='auto': the pairwise dual QP on solver={self.solver!r} as given ({P:,} "
                                f"pairs; with solver='auto', {what} reaches the same optimum, usually in a "
                                "fraction of the time).")
            return fast, (f"method='auto': {what} on the {P:,} pairs; solver={self.solver!r} is not used: the "
                          f"pairwise dual QP needs {format_bytes(over[0])}, over max_bytes={format_bytes(over[1])} "
                          "(raise max_bytes for the QP on that solver, or set solver='auto').")
        if fast == "newton":
            return "newton", (f"method='auto': truncated Newton on the primal over the {P:,} pairs "
                              f"(> {AUCSVM_AUTO_MAX_PAIRS:,}; linear kernel and squared hinge: the dual QP's optimum, "
                              "the pairs never listed; method='full' forces the QP).")
        if fast == "dcd":
            return "dcd", (f"method='auto': dual coordinate descent on the {P:,} pairs (the same dual as the QP; "
                           "method='full' forces the QP).")
        assert dcd_over is not None  # liblinear only when dual coordinate descent is over max_bytes
        return "liblinear", (f"method='auto': liblinear on the {P:,} pair differences (the same optimum as the "
                             f"dual QP; dual coordinate descent needs {format_bytes(dcd_over[0])}, over "
                             f"max_bytes={format_bytes(dcd_over[1])}; method='full' forces the QP).")

    def predicted_seconds(self, method: str, pairs: PairSet) -> float:
        """The seconds the runtime model predicts for one fit of ``method`` on these pairs.

        Dual coordinate descent (``"dcd"``, hinge loss) is modelled from its measured growth with the
        number of pairs, ``C``, ``tol``, the pair target and whether the kernel is linear, on the slow
        side of 2-core machines; ``method="auto"`` announces a fit predicted to take over a minute
        (:class:`~aucopt.exceptions.SlowFitWarning`).

        Parameters
        ----------
        method : str
            A route: ``"dcd"`` is modelled; any other route gives NaN.
        pairs : PairSet
            The training pairs (only their number is used).

        Returns
        -------
        seconds : float
            The predicted time, NaN for a route the model does not cover.

        Examples
        --------
        >>> from aucopt import AUCSVM, PairSet
        >>> pairs = PairSet.bipartite([1] * 1500 + [0] * 1500)
        >>> AUCSVM().predicted_seconds("dcd", pairs) > 60 > AUCSVM(C=0.01).predicted_seconds("dcd", pairs)
        True
        """
        if method != "dcd" or self.loss != "hinge":
            return float("nan")
        tol = DCD_DEFAULT_TOL if self.tol is None else float(self.tol)
        return _runtime.dcd_seconds(pairs.n_pairs, float(self.C), tol, pairs.target, linear=self.kernel == "linear")

    def _announce_slow_route(self, method: str, pairs: PairSet) -> None:
        """Warn when ``method="auto"`` chose a route predicted to take over a minute (never silently)."""
        small_C = _runtime.describe(_runtime.dcd_seconds(pairs.n_pairs, 0.01, target=pairs.target,
                                                         linear=self.kernel == "linear"))
        _runtime.announce_slow_fit(self, method, pairs, f" at C={self.C:g} (a larger C leaves more pair duals free; "
                                   f"C=0.01: {small_C}): set verbose=1 to follow it, lower C or raise tol to shorten "
                                   "it, or subsample the data.")

    def _solve(self, X: Any, pairs: PairSet, kernel: Kernel) -> Solution:
        """Take the route (``select_method``), check its memory peak, and solve."""
        C, power = float(self.C), _LOSS_POWER[self.loss]
        method = self._take_route(pairs, X=X)
        self._announce_slow_route(method, pairs)
        if self.method == "auto" and self.solver != "auto" and method != "full":
            warn(f"{type(self).__name__}(solver={self.solver!r}): {self.select_method(pairs, X=X)[1]}",
                 SolverWarning)
        check_aucsvm(X, pairs, method=method, kernel=kernel.name if isinstance(kernel.name, str) else "callable",
                     loss=self.loss, solver=self._qp_solver, max_bytes=self.max_bytes,
                     warm_start=bool(self.warm_start))  # the route's peak, before any pair or kernel work
        if method == "liblinear":
            return self._solve_liblinear(X, pairs, C, power)
        if method == "newton":
            return self._solve_newton(X, pairs, C)
        if method == "dcd":
            return self._solve_dcd(X, pairs, kernel, C, power)
        return self._solve_qp(*self._qp_data(X, pairs, kernel, method), C, power, exact=method == "full")

    def _solve_liblinear(self, X: Any, pairs: PairSet, C: float, power: int) -> Solution:
        """``method="liblinear"``: the linear primal on the symmetrized pair differences (Theorem 2)."""
        from ._pairwise_linear import theorem2_weights

        w, converged, n_iter = theorem2_weights(
            X, pairs, C, self.loss, tol=self.tol, max_iter=self.max_iter, verbose=self.verbose,
            random_state=as_seed(self.random_state), max_bytes=self.max_bytes)
        objective = _primal_objective(np.asarray(X @ w).ravel(), float(w @ w), pairs, C, power)
        message = "" if converged else (
            f"{n_iter:,} iterations without reaching tol; features on very different scales slow it down: "
            "scale them (MinMaxScaler or StandardScaler in a pipeline)"
            + (" or use loss='squared_hinge' (solved by Newton's method, insensitive to feature scales)"
               if self.loss == "hinge" else ""))
        result = SolveResult(status=Status.OPTIMAL if converged else Status.ITERATION_LIMIT,
                             objective=objective, x=w, iterations=n_iter, solver="liblinear", message=message,
                             problem_name=f"aucsvm_l{power}_primal (liblinear)").raise_for_status()
        self.n_iter_ = n_iter
        # the model is the single vector w with coefficient 1: f(x) = <x, w>
        return Solution(w[None, :], np.ones(1), result, objective)

    def _route_time_limit(self, method: str) -> float | None:
        """``solver_options["time_limit"]`` of a route without a QP backend, which takes no other option."""
        options = self._solver_options() or {}  # the time limit checked as on every route
        unknown = sorted(set(options) - {"time_limit"})
        if unknown:
            raise ValueError(f"solver_options {unknown} are not options of method={method!r}; valid: ['time_limit'].")
        return options.get("time_limit")

    def _solve_newton(self, X: Any, pairs: PairSet, C: float) -> Solution:
        """``method="newton"``: the primal ½‖w‖² + (C/2) Σ w_ij ξ_ij² by truncated Newton over the
        sorted-pair core (Chapelle & Keerthi 2010), the pairs never listed: F_C = F_α / α with
        α = 2 / (C N), N = Σ w_ij, the objective of :func:`~aucopt.svm.newton_solve`.

        The pair duals α_ij = C w_ij ξ_ij of the solution give the dual objective, a certificate:
        with L the squared-hinge total, Aᵀα = −(C/2) ∂L/∂f (the pair core's coefficients),
        Σ α_ij² / (2 C w_ij) = (C/2) L and Σ α_ij (f_i − f_j) = Σ α_ij − C L, the duality gap
        ½‖w‖² + (C/2) L + [½‖Xᵀ Aᵀα‖² + (C/2) L − Σ α_ij] is exactly ½‖w − Xᵀ Aᵀα‖², the
        squared primal gradient, computed so (no cancellation between terms of the size of C Σ α_ij).
        """
        import time

        from ._newton import newton_solve

        time_limit = self._route_time_limit("newton")
        start = time.perf_counter()
        previous = getattr(self, "_newton_w", None) if self.warm_start else None
        theta0 = previous if previous is not None and previous.shape == (X.shape[1],) else None
        tol = NEWTON_DEFAULT_TOL if self.tol is None else float(self.tol)
        max_iter = NEWTON_DEFAULT_MAX_ITER if self.max_iter is None else int(self.max_iter)
        run = newton_solve(X, pairs, 2.0 / (C * pairs.total_weight()), theta0=theta0, gap_tol=tol,
                           max_iter=max_iter, verbose=self.verbose, time_limit=time_limit)
        w = run.theta
        f = np.asarray(X @ w, dtype=np.float64).ravel()
        squared, grad = pair_loss(pairs, f, "squared_hinge")
        residual = w + (0.5 * C) * np.asarray(X.T @ grad, dtype=np.float64).ravel()  # w − Xᵀ Aᵀα
        objective = 0.5 * float(w @ w) + 0.5 * C * squared
        dual = 0.5 * float(residual @ residual) - objective
        gap = _relative_gap(objective, dual)
        reached = f"relative duality gap {gap:.3g}, tol={tol:g}"
        if gap <= tol:
            status, message = Status.OPTIMAL, ""
        elif run.iterations >= max_iter:
            status = Status.ITERATION_LIMIT
            message = f"{run.iterations:,} Newton iterations ({reached}): raise max_iter or tol"
        elif time_limit is not None and time.perf_counter() - start >= time_limit:
            status = Status.TIME_LIMIT
            message = (f"stopped by solver_options['time_limit']={time_limit:g} s after {run.iterations:,} Newton "
                       f"iterations ({reached}): raise the time limit or tol")
        else:
            status = Status.OPTIMAL_INACCURATE
            message = (f"Newton's gradient stopped decreasing (rounding level) at a {reached}: floating point "
                       "resolves the gap no further here")
        result = SolveResult(status=status, objective=objective, x=w, iterations=run.iterations, solver="newton",
                             message=message, problem_name="aucsvm_l2_primal (newton)",
                             wall_time=time.perf_counter() - start).raise_for_status()
        self.dual_objective_ = dual
        self.n_iter_ = run.iterations
        self._newton_w = w
        for stale in ("problem_size_", "support_pairs_", "pair_dual_coef_"):  # of an earlier fit by another route
            self.__dict__.pop(stale, None)
        return Solution(w[None, :], np.ones(1), result, objective)

    def _qp_data(self, X: Any, pairs: PairSet, kernel: Kernel, method: str) -> tuple[Any, Any, PairSet]:
        """The QP's expansion basis, kernel factor L (K = L Lᵀ) and pairs: the training points, or
        for ``method="kmeans"`` the cluster centers of the pair differences against the origin."""
        if method == "kmeans":
            from ._pairwise_linear import kmeans_difference_centers

            options = dict(self.method_options or {})
            centers = kmeans_difference_centers(X, pairs, options.get("n_clusters"),
                                                random_state=as_seed(self.random_state), max_bytes=self.max_bytes,
                                                **{k: v for k, v in options.items() if k != "n_clusters"})
            # each center c_u is a "pair" between a virtual point at c_u and one at the origin
            points = np.vstack([centers, np.zeros((1, centers.shape[1]))])
            k = len(centers)
            return points, points, PairSet.from_arrays(np.arange(k), np.full(k, k), n_points=k + 1)
        if kernel.name == "linear":
            return X, X, pairs  # K = X Xᵀ exactly; u = Xᵀv has d entries
        basis = None if kernel.precomputed else X
        return basis, kernel_factor(kernel(dense(X) if kernel.precomputed else X)), pairs

    def _solve_qp(self, basis: Any, factor: Any, pairs: PairSet, C: float, power: int, *, exact: bool) -> Solution:
        """``method="full"`` (``exact``: the solution is certified, see :func:`_certified`) or
        ``"kmeans"``: the lifted pairwise dual QP on ``solver``."""
        # Solve the dual on the unit-scale kernel K/s with C·s (the same model: scores are equal and
        # the coefficients scale by 1/s): solvers' absolute tolerances then fit the data's scale.
        scale = _kernel_scale(factor)
        problem = get_formulation(f"aucsvm_l{power}_dual").build(
            pairs, factor=factor / np.sqrt(scale), max_bytes=self.max_bytes, C=C * scale)
        result = solve(problem, self._qp_solver, tol=self.tol, max_iter=self.max_iter, verbose=bool(self.verbose),
                       solver_options=self._solver_options()).raise_for_status()
        x = result.x
        assert x is not None  # raise_for_status: the backend returned a point
        coef = problem.output(x, "coef") / scale
        alpha = problem.block(x, "alpha") / scale
        i, j, _ = pairs.to_arrays(None)
        support = alpha > self.support_threshold * C
        self.support_pairs_ = np.column_stack([i[support], j[support]])
        self.pair_dual_coef_ = alpha[support]
        self.dual_objective_ = result.objective / scale
        self.n_iter_ = result.iterations
        self.problem_size_ = {"variables": problem.n_vars, "rows": problem.n_rows, "nonzeros": problem.nnz}
        u = np.asarray(factor.T @ coef).ravel()  # Lᵀ coef: w in the factor's coordinates
        f = np.asarray(factor @ u).ravel()  # training scores K coef
        if exact:
            return _certified(basis, coef, result, f, float(u @ u), self.dual_objective_, pairs, C, power)
        return Solution(basis, coef, result, _primal_objective(f, float(u @ u), pairs, C, power))

    def _solve_dcd(self, X: Any, pairs: PairSet, kernel: Kernel, C: float, power: int) -> Solution:
        """``method="dcd"``: the pairwise dual by dual coordinate descent (Hsieh et al. 2008).

        The dual is solved at unit kernel scale (K/s with C·s, as the QP route): on X itself for
        the linear kernel (w = Xᵀc maintained, K never formed), on the kernel matrix otherwise.
        Sorted pair sets are never listed (:mod:`aucopt.svm._dcd_sorted`, the same iterates);
        explicit ones go through the pair list (:mod:`aucopt.svm._dcd`).
        """
        import time

        time_limit = self._route_time_limit("dcd")
        start = time.perf_counter()
        linear = kernel.name == "linear"
        basis, data, scale = _dcd_data(X, kernel)
        tol = DCD_DEFAULT_TOL if self.tol is None else float(self.tol)
        max_iter = DCD_DEFAULT_MAX_ITER if self.max_iter is None else int(self.max_iter)
        previous = getattr(self, "_dcd_dual", None) if self.warm_start else None
        # the previous pair duals, clipped into the new box by the solver
        alpha0 = previous * scale if previous is not None and previous.shape == (pairs.n_pairs,) else None
        # a linear kernel starts from the pair duals of its smooth primal's optimum (Newton on X, O(nd) a pass)
        from_scores = _newton_start(data, pairs, C * scale, power) if linear and alpha0 is None else None
        run = _DCDRun(data, pairs, C * scale, power, linear=linear, tol=tol, max_iter=max_iter,
                      shrinking=bool((self.method_options or {}).get("shrinking", True)), alpha0=alpha0,
                      from_scores=from_scores,
                      random_state=as_seed(self.random_state), time_limit=time_limit, verbose=bool(self.verbose))
        alpha, c = run.alpha, run.c
        f = data @ (data.T @ c) if linear else data @ c  # training scores (the same at every kernel scale)
        dual = run.dual_objective(f)
        coef = c / scale
        if scale != 1.0:
            alpha /= scale  # in place: α is the solver's own array
        result = SolveResult(status=Status(run.status), objective=dual, x=alpha, iterations=run.n_iter, solver="dcd",
                             message=run.message(tol, time_limit), problem_name=f"aucsvm_l{power}_dual (dcd)",
                             wall_time=time.perf_counter() - start).raise_for_status()
        self.support_pairs_, self.pair_dual_coef_ = run.support(self.support_threshold * C)
        self.dual_objective_ = dual / scale
        self.n_iter_ = run.n_iter
        self._dcd_dual = alpha
        self.__dict__.pop("problem_size_", None)  # a QP's size from an earlier fit
        # ‖w‖² = coefᵀ K coef = cᵀ (K/s) c / s
        return _certified(basis, coef, result, f, float(c @ f) / scale, self.dual_objective_, pairs, C, power)


def _kernel_scale(factor: Any) -> float:
    """The scale s of the dual solved on K/s for K = L Lᵀ: :func:`_unit_scale` of the squared row norms of L."""
    sq = factor.multiply(factor).sum(axis=1) if sp.issparse(factor) else np.einsum("ij,ij->i", factor, factor)
    return _unit_scale(np.asarray(sq).ravel())


#: docstring parts shared by AUCSVM and SurvivalAUCSVM (see :func:`aucopt._docstrings.fill_doc`)
_DOC = dict(
    parameters="""
        kernel : {"rbf", "linear", "poly", "precomputed"} or callable, default="rbf"
            The kernel, as in :class:`sklearn.svm.SVC`. With ``"precomputed"``, ``X`` is the
            (n_samples, n_samples) Gram matrix at fit time and the (n_test, n_samples) kernel
            against the training points at prediction time.
        gamma : {"scale", "auto", "sigma2"} or float, default="scale"
            Kernel coefficient of ``"rbf"`` and ``"poly"``: ``"scale"`` is 1 / (n_features ·
            X.var()), ``"auto"`` 1 / n_features, ``"sigma2"`` 1/σ² with σ² the mean pairwise
            squared distance, or a positive number.
        degree : int, default=3
            Degree of the ``"poly"`` kernel.
        coef0 : float, default=1.0
            Independent term of the ``"poly"`` kernel.
        method : {"auto", "full", "liblinear", "newton", "dcd", "kmeans"}, default="auto"
            The algorithm route. ``"auto"``: ``"dcd"`` (the QP's optimum, in a fraction of its
            time; for ``kernel="linear"``, ``"liblinear"`` when only it fits ``max_bytes``), except
            for ``kernel="linear"`` with ``loss="squared_hinge"``: ``"full"`` up to 20,000 pairs
            (``aucopt.svm.AUCSVM_AUTO_MAX_PAIRS``), ``"newton"`` above; ``"full"`` when ``solver``
            names a QP backend explicitly; stated when ``verbose`` is set and kept in ``method_``
            (see :meth:`select_method`), and announced by a
            :class:`~aucopt.exceptions.SlowFitWarning` when ``"dcd"`` is predicted to take over a
            minute (see :meth:`predicted_seconds`). ``"full"``: the
            exact pairwise dual QP, any kernel. ``"liblinear"``: the exact problem for
            ``kernel="linear"`` by liblinear on the symmetrized pair differences (Brefeld &
            Scheffer 2005, Theorem 2; dense or sparse X). ``"newton"``: the exact problem for
            ``kernel="linear"`` and ``loss="squared_hinge"``, its primal in w by truncated Newton
            (Chapelle & Keerthi 2010) over the sorted pairs, never listed: O(n) memory besides X
            (dense or sparse), each iteration a few passes over X and O(n log n) pair work; it
            stops when the relative duality gap of the pair duals α_ij = C w_ij max(0, 1 − z_ij)
            is at most ``tol`` (default 1e-9), typically in 5 to 10 iterations. ``"dcd"``: the
            exact pairwise dual, any kernel, by dual coordinate descent over the pairs (Hsieh et
            al. 2008) with shrinking and a new random order of the pairs every epoch. It keeps the
            training scores f = Kc with the n × n kernel matrix (a gradient costs O(1), a step
            O(n)), or, for ``kernel="linear"``, the weight vector w = Xᵀc with X densified (O(d)
            per step; no kernel matrix). With ``kernel="linear"`` it starts (unless warm-started)
            from the pair duals of the smooth primal's optimum, found by truncated Newton on X
            (the squared hinge's, or the ε-smoothed hinge's with ε = 0.01, whose pair duals
            C w_ij min(1, ξ_ij / (2ε)) lie in the box), which on degenerate duals (few features, a
            large C) saves most of the epochs. Memory is K or X and, for sorted pair sets
            (bipartite, Harrell's survival pairs, multipartite), 12 bytes a pair (α and the active
            index; the pairs are decoded from their numbers, never listed); other pair sets are
            listed (about 36 bytes a pair in all).
            ``tol`` (default 1e-6) bounds the projected-gradient gap over all pairs, ``max_iter``
            (default 100,000) the epochs, ``solver_options={"time_limit": s}`` the time,
            ``random_state`` seeds the coordinate order and ``warm_start`` reuses the previous
            fit's dual. Coordinate descent zigzags between nearly parallel pairs (near-duplicate
            points); when the gap stalls on an active set whose exact solve is cheap against the
            epochs so far, the dual restricted to it is solved exactly (an interior-point method)
            and the epochs go on.
            ``"kmeans"``: ``kernel="linear"`` only; the pair differences are clustered and the dual
            is solved on the cluster centers (an approximation; unweighted, as in the paper).
        method_options : dict, default=None
            Options of the route. ``method="kmeans"``: ``n_clusters`` (int, default n_samples)
            and ``minibatch_above`` (int, default 200,000: use mini-batch k-means
            above this many pairs). ``method="dcd"``: ``shrinking`` (bool, default True: pairs at
            a bound whose gradient points outward leave the active set until the final check, as
            in liblinear). The other routes take none.
        solver : str, default="auto"
            The QP backend of ``method="full"`` and ``"kmeans"``: ``"osqp"``, ``"highs"``,
            ``"clarabel"`` or ``"cvxpy:<NAME>"`` (see :func:`aucopt.available_solvers`); ``"auto"``:
            OSQP, and ``method="auto"`` may take a route without a QP. Not used by
            ``method="liblinear"``, ``"newton"`` or ``"dcd"``. A solver named explicitly is honoured by
            ``method="auto"``: it takes the QP, unless the QP exceeds ``max_bytes``, in which case
            ``fit`` issues a :class:`~aucopt.exceptions.SolverWarning` saying that the solver is
            not used (see :meth:`select_method`).
        solver_options : dict, default=None
            Raw options passed unchanged to the QP backend (OSQP settings such as
            ``{"polishing": False}``, HiGHS option names such as ``{"presolve": "off"}``, cvxpy
            ``solve`` keywords). Not used by ``method="liblinear"``; ``method="dcd"`` and
            ``"newton"`` take only ``time_limit``. ``{"time_limit": seconds}`` (a positive
            number, NumPy scalars included; checked by ``fit`` for every route alike) caps the
            solve on every backend that has a time limit (OSQP, HiGHS, Clarabel, SCS, ``"dcd"``,
            ``"newton"``; ECOS has none and raises ``ValueError``): a solve stopped by it keeps
            its last point, sets ``solve_result_.status == "time_limit"`` and issues a
            :class:`~aucopt.exceptions.SolverWarning`.
        tol : float, default=None
            Stopping tolerance: the QP backend's tolerance, or liblinear's ``tol`` for
            ``method="liblinear"``. None uses the backend's default (for liblinear 1e-10 relative
            to the first gradient with ``loss="squared_hinge"``, solved in the primal by Newton's
            method; 1e-8 on the dual's projected gradient with ``loss="hinge"``; for
            ``method="dcd"`` 1e-6 on the projected-gradient gap max PG − min PG over all pairs,
            on the dual at unit kernel scale; for ``method="newton"`` 1e-9 on the relative
            duality gap ``(objective_ + dual_objective_) / objective_``).
        max_iter : int, default=None
            Iteration limit of the QP backend, or liblinear's ``max_iter``. None uses the
            backend's default (for liblinear 1,000 Newton steps for the squared hinge, 100,000
            coordinate-descent epochs for the hinge; for ``method="dcd"`` 100,000 epochs, an
            epoch being one pass over the active pairs; for ``method="newton"`` 100 Newton
            iterations).
        verbose : int, default=0
            Progress output: 0 silent, ≥ 1 the route taken and why, and the solver's own log
            (OSQP's iterations, HiGHS's, cvxpy's, or liblinear's; a progress bar for
            ``method="newton"``).
        random_state : int, RandomState instance, numpy.random.Generator or None, default=0
            Seed of the k-means initialization (``method="kmeans"``) and of the coordinate order
            of liblinear (``method="liblinear"``) and of dual coordinate descent (``method="dcd"``).
        support_threshold : float, default=1e-8
            Expansion coefficients with ``|c_l| ≤ support_threshold · max|c|`` are dropped from
            the model, and pairs with dual coefficient α_ij ≤ support_threshold · C are left out of
            ``support_pairs_``.
        warm_start : bool, default=False
            When True, a refit by dual coordinate descent starts from the previous fit's dual
            solution when that fit also ran ``method="dcd"`` on as many pairs (e.g. after
            ``set_params(C=...)`` along a path of C): the pair duals α_ij, clipped into the new box
            0 ≤ α_ij ≤ C w_ij; a refit by ``method="newton"`` starts from the previous fit's w
            when that fit also ran ``"newton"`` on as many features. The optimum does not depend
            on it, only the time to reach it. Only used by ``method="dcd"`` and ``"newton"`` (and
            by ``method="auto"`` when it chooses them); the other routes ignore it, as
            scikit-learn's ``LogisticRegression`` ignores ``warm_start`` for liblinear.""",
    max_bytes="""
        max_bytes : float or None, default=2147483648
            Memory budget in bytes (2 GiB): a kernel matrix, pair-difference matrix or QP larger
            than this raises :class:`~aucopt.ProblemTooLargeError` before any work. None: no limit.""",
    attributes="""
        support_ : ndarray of shape (n_support,)
            Indices of the training points with a nonzero expansion coefficient (the single
            index 0 for ``method="liblinear"`` and ``"newton"``, whose model is one weight vector).
        support_vectors_ : ndarray of shape (n_support, n_features) or None
            The points of the expansion (the weight vector w for ``method="liblinear"`` and
            ``"newton"``, the
            cluster centers for ``method="kmeans"``; None for a precomputed kernel).
        dual_coef_ : ndarray of shape (n_support,)
            Expansion coefficients c_l = Σ_j α_lj − Σ_i α_il (the pair dual collapsed onto points).
        support_pairs_ : ndarray of shape (n_support_pairs, 2)
            The pairs (i, j) with dual coefficient α_ij > support_threshold · C (for
            ``method="kmeans"``: center index i against the origin, j = number of centers). Not set
            by ``method="liblinear"`` or ``"newton"`` (which never list the pairs).
        pair_dual_coef_ : ndarray of shape (n_support_pairs,)
            The dual coefficients α_ij of ``support_pairs_``.
        kernel_ : Kernel
            The kernel with its resolved ``gamma``.
        method_ : str
            The route taken (``method``, or the one ``method="auto"`` chose).
        objective_ : float
            The primal objective F_C(w) (see Notes) at the solution.
        dual_objective_ : float
            The QP's objective (−objective_ at optimality; for ``method="newton"``, at the pair
            duals α_ij = C w_ij max(0, 1 − z_ij) of the solution). Not set by ``method="liblinear"``.
            ``method="full"`` and ``"dcd"`` report ``solve_result_.status == "optimal"`` only when
            the relative duality gap ``(objective_ + dual_objective_) / objective_`` is at most 1e-4
            (taking, above it, the best multiple t·w of the solution, the same ranking, which
            closes margins a rounding error short at a large C); a gap still above is reported as
            ``"optimal_inaccurate"``, with a :class:`~aucopt.exceptions.SolverWarning`.
        solve_result_ : SolveResult
            The backend's result (status, iterations, times).
        n_iter_ : int
            Iterations of the QP backend or of liblinear; epochs of ``method="dcd"``; Newton
            iterations of ``method="newton"``.
        problem_size_ : dict
            Variables, rows and nonzeros of the QP. Not set by ``method="liblinear"``, ``"newton"``
            or ``"dcd"``.
        n_pairs_ : int
            Number of pairs (i, j) in the loss.""",
    reference_brefeld="""
        .. [1] Brefeld, U., & Scheffer, T. (2005). AUC maximizing support vector learning.
           *Proceedings of the ICML 2005 Workshop on ROC Analysis in Machine Learning*.""",
    binary_pair_options=BINARY_PAIR_OPTIONS_DOC,
    binary_attributes=BINARY_ATTRIBUTES_DOC,
    survival_pair_options=SURVIVAL_PAIR_OPTIONS_DOC,
    survival_ipcw=SURVIVAL_IPCW_DOC,
    feature_attributes=FEATURE_ATTRIBUTES_DOC,
)


@fill_doc(**_DOC)
class AUCSVM(BinaryRankerMixin, _AUCSVMModel):
    """AUC-maximizing support vector machine for binary labels.

    Ranks positives above negatives by a kernel expansion f(x) = Σ_l c_l k(x_l, x) that
    minimizes a pairwise hinge (or squared hinge) loss over all positive–negative pairs plus
    the RKHS norm. The problem is solved through its pairwise dual, as a sparse lifted QP that
    never forms the P × P pairwise kernel or by dual coordinate descent over the pairs (any
    kernel, for many pairs); with a linear kernel, liblinear on the pair differences and a
    k-means reduction of the pairs are available as well, and the squared hinge is solved in
    the primal by truncated Newton without listing the pairs.

    Parameters
    ----------
    C : float, default=1.0
        Weight of the pairwise loss (> 0); larger values fit the pairs harder. The loss sums
        over all n₊n₋ pairs, so useful values are much smaller than a standard SVM's; see the
        Notes for the equivalent ``alpha`` of :class:`RankSVM`.
    loss : {"hinge", "squared_hinge"}, default="hinge"
        The pairwise loss of a score difference z = f(x_i) − f(x_j): the hinge max(0, 1 − z)
        (the paper's 1-norm soft margin) or the squared hinge max(0, 1 − z)² (2-norm).
    {{parameters}}
    pos_label : int, float, bool or str, default=None
        The positive class; None means the larger of the two labels.
    pair_options : dict, default=None
        {{binary_pair_options}}
    {{max_bytes}}

    Attributes
    ----------
    {{attributes}}
    {{binary_attributes}}
    {{feature_attributes}}

    See Also
    --------
    SurvivalAUCSVM : The same model over Harrell's comparable pairs of survival data.
    RankSVM : Linear ranking SVM with a squared hinge by truncated Newton, for many pairs.
    RankRC : Kernel ranking SVM on a small expansion basis.
    aucopt.LPRanker : The L1-penalized (linear programming) pairwise ranker.

    Notes
    -----
    With pair weights w_ij (1 without ``sample_weight``; w_i w_j with it) and a score
    difference z_ij = f(x_i) − f(x_j), the primal problem (Brefeld & Scheffer 2005, OP2) is

        F_C(w) = ½‖w‖² + C Σ_ij w_ij max(0, 1 − z_ij)            (``loss="hinge"``),
        F_C(w) = ½‖w‖² + (C/2) Σ_ij w_ij max(0, 1 − z_ij)²       (``loss="squared_hinge"``),

    solved through its pairwise dual (OP3 with the box 0 ≤ α_ij ≤ C w_ij; OP4 with
    α_ij ≥ 0 and the ridge 1/(C w_ij)), lifted so that the pairwise kernel
    K′ = A K Aᵀ (A the pair incidence) is never formed. The model is
    f(x) = Σ_l c_l k(x_l, x) with c = Aᵀα, i.e. f(x) = Σ_ij α_ij (k(x_i, x) − k(x_j, x)).
    The bipartite ranking has no threshold; ``predict`` uses ``threshold_``.

    **C and alpha.** With N = Σ w_ij (n₊n₋ without weights), :class:`RankSVM` with penalty
    ``alpha`` minimizes F_α(w) = (1/N) Σ w_ij ℓ(z_ij) + (α/2)‖w‖². At equal w the two
    objectives are proportional, so they have the same minimizer when C = 2/(αN) for the
    squared hinge (C = 1/(αN) for the hinge), and then F_C = F_α / α.

    References
    ----------
    {{reference_brefeld}}
    .. [2] Fan, R.-E., Chang, K.-W., Hsieh, C.-J., Wang, X.-R., & Lin, C.-J. (2008). LIBLINEAR:
       A library for large linear classification. *JMLR*, 9, 1871–1874.
    .. [3] Stellato, B., Banjac, G., Goulart, P., Bemporad, A., & Boyd, S. (2020). OSQP: An
       operator splitting solver for quadratic programs. *Mathematical Programming
       Computation*, 12(4), 637–672.
    .. [4] Hsieh, C.-J., Chang, K.-W., Lin, C.-J., Keerthi, S. S., & Sundararajan, S. (2008). A
       dual coordinate descent method for large-scale linear SVM. *ICML*, 408–415.
    .. [5] Chapelle, O., & Keerthi, S. S. (2010). Efficient algorithms for ranking with SVMs.
       *Information Retrieval*, 13(3), 201–215.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from aucopt import AUCSVM
    >>> X, y = make_classification(n_samples=60, n_features=5, random_state=0)
    >>> model = AUCSVM(C=0.01).fit(X, y)
    >>> bool(model.score(X, y) > 0.9)
    True
    >>> linear = AUCSVM(C=0.01, kernel="linear", method="liblinear").fit(X, y)
    >>> linear.support_vectors_.shape
    (1, 5)

    Dual coordinate descent along a path of C, each fit warm-started from the previous one:

    >>> path = AUCSVM(kernel="rbf", method="dcd", warm_start=True)
    >>> objectives = [path.set_params(C=C).fit(X, y).objective_ for C in (0.001, 0.01, 0.1)]
    >>> exact = AUCSVM(C=0.1, kernel="rbf", method="full", solver="clarabel").fit(X, y)
    >>> bool(abs(objectives[-1] - exact.objective_) <= 1e-6 * exact.objective_)
    True
    """

    _parameter_constraints: ClassVar[dict] = {**_AUCSVMModel._parameter_constraints, **POS_LABEL_CONSTRAINT}

    def __init__(self, C: float = 1.0, *, loss: Literal["hinge", "squared_hinge"] = "hinge",
                 kernel: str | Callable[..., Any] = "rbf", gamma: str | float = "scale", degree: int = 3,
                 coef0: float = 1.0, method: Literal["auto", "full", "liblinear", "newton", "dcd", "kmeans"] = "auto",
                 method_options: dict[str, Any] | None = None, solver: str = "auto",
                 solver_options: dict[str, Any] | None = None, tol: float | None = None,
                 max_iter: int | None = None, verbose: int = 0, random_state: _RandomState = 0,
                 support_threshold: float = 1e-8, warm_start: bool = False,
                 pos_label: int | float | bool | str | None = None, pair_options: dict[str, Any] | None = None,
                 max_bytes: float | None = DEFAULT_MAX_BYTES):
        super().__init__(C, loss=loss, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                         method=method, method_options=method_options, solver=solver,
                         solver_options=solver_options, tol=tol, max_iter=max_iter, verbose=verbose,
                         random_state=random_state, support_threshold=support_threshold,
                         warm_start=warm_start, pair_options=pair_options, max_bytes=max_bytes)
        self.pos_label = pos_label


@fill_doc(**_DOC)
class SurvivalAUCSVM(SurvivalRankerMixin, _AUCSVMModel):
    """Hinge-loss (or squared-hinge) survival SVM: the AUC-SVM over comparable pairs.

    Ranks subjects by risk (higher = earlier event) with one pair term per comparable pair of
    Harrell's concordance index (subject i has an event and t_i < t_j, or t_i = t_j with j
    censored), or of the pair variant chosen by ``pair_options``.

    Parameters
    ----------
    C : float, default=1.0
        Weight of the pairwise loss (> 0). The loss sums over all comparable pairs; see the
        Notes for the equivalent ``alpha`` of :class:`SurvivalRankSVM` and of
        scikit-survival's ``FastSurvivalSVM``.
    loss : {"hinge", "squared_hinge"}, default="hinge"
        The pairwise loss of a risk difference z = f(x_i) − f(x_j): max(0, 1 − z) or
        max(0, 1 − z)².
    {{parameters}}
    pair_options : dict, default=None
        {{survival_pair_options}}
        {{survival_ipcw}}
    {{max_bytes}}

    Attributes
    ----------
    {{attributes}}
    pair_target_ : str
        ``"survival"``.
    {{feature_attributes}}

    See Also
    --------
    AUCSVM : The same model for binary labels (all the details of the routes).
    SurvivalRankSVM : Linear survival ranking SVM by truncated Newton, for many subjects.
    aucopt.survival_target : Build the structured (event, time) target.

    Notes
    -----
    With pair weights w_ij and z_ij = f(x_i) − f(x_j) over the comparable pairs (i at risk
    earlier), the objective is F_C(w) = ½‖w‖² + C Σ w_ij max(0, 1 − z_ij) (hinge) or
    ½‖w‖² + (C/2) Σ w_ij max(0, 1 − z_ij)² (squared hinge), solved as in :class:`AUCSVM`.
    With N = Σ w_ij (the number of comparable pairs without weights), the squared-hinge
    problem equals :class:`SurvivalRankSVM` with ``alpha`` when C = 2/(αN) (F_C = F_α / α),
    and scikit-survival's ``FastSurvivalSVM(alpha=C, rank_ratio=1, fit_intercept=False)``,
    whose objective is ½‖w‖² + (C/2) Σ max(0, 1 − z_ij)² (Pölsterl et al. 2015), up to its
    sign convention (its scores are −risk) and its tie handling.

    References
    ----------
    {{reference_brefeld}}
    .. [2] Harrell, F. E., Califf, R. M., Pryor, D. B., Lee, K. L., & Rosati, R. A. (1982).
       Evaluating the yield of medical tests. *JAMA*, 247(18), 2543–2546.
    .. [3] Pölsterl, S., Navab, N., & Katouzian, A. (2015). Fast training of support vector
       machines for survival analysis. *ECML PKDD 2015*, LNCS 9285, 243–259.
    .. [4] Chapelle, O., & Keerthi, S. S. (2010). Efficient algorithms for ranking with SVMs.
       *Information Retrieval*, 13(3), 201–215.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import SurvivalAUCSVM, survival_target
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 3))
    >>> time = rng.exponential(np.exp(-X[:, 0]))
    >>> y = survival_target(rng.random(40) < 0.7, time)
    >>> model = SurvivalAUCSVM(C=0.1, kernel="linear").fit(X, y)
    >>> model.pair_target_, bool(model.score(X, y) > 0.7)
    ('survival', True)
    """
