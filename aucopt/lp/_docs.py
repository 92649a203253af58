"""The docstring parts that :class:`LPRanker` and :class:`SurvivalLPRanker` share (see
:func:`aucopt._docstrings.fill_doc`): each is written once and rendered into both."""

from __future__ import annotations

__all__ = ["FIT_PARTS", "PARTS"]

#: parts of the class docstrings
PARTS = {
    "kernel_parameters": """\
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
""",
    "solver_parameters": """\
solver : str, default="highs"
    LP backend: ``"highs"``, ``"osqp"``, ``"cvxpy"`` (Clarabel), ``"cvxpy:<NAME>"`` or an
    installed cvxpy solver name (see :func:`aucopt.available_solvers`). Unused by
    ``method="smoothing"`` and ``"subgradient"``; ``method="generation"`` needs
    ``"highs"``. HiGHS is the LP solver, by dual simplex; the lifted LP of survival pairs
    goes to its interior point on the dual LP, with crossover to a vertex (2-5 times faster
    there: WHAS500, 500 subjects, 34 s against 182 s), unless ``solver_options`` names
    HiGHS's ``"solver"``, and should the interior point fail numerically, the dual simplex
    solves the LP again. OSQP is a first-order QP solver: on this degenerate LP it takes
    minutes at a few hundred points (HiGHS: about a second) and often stops at its
    iteration limit, so ``"osqp"`` (and ``"cvxpy:osqp"``) issue a
    :class:`~aucopt.exceptions.SolverWarning` at fit time.
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
""",
    "random_state_parameters": """\
random_state : int, RandomState instance, numpy.random.Generator or None, default=0
    Seed of the random partition of the pairs into chunks (``method="chunking"``).
support_threshold : float, default=1e-8
    Coefficients with ``|y_l α_l| ≤ support_threshold · max|y α|`` are dropped
    from the expansion. The subgradient's α is rarely exactly 0: use e.g. 1e-3 there.
""",
    "size_parameters": """\
lifted : bool, default=True
    Build the sparse lifted LP (score variables s = K Y α, three nonzeros per pair row);
    False builds the thesis's dense pair rows (2·n_samples nonzeros per pair row).
max_bytes : float or None, default=2147483648
    Memory budget (bytes, default 2 GiB) of the LP, the kernel matrix and the route's
    arrays; larger problems raise :class:`~aucopt.exceptions.ProblemTooLargeError` before
    any work. None: no limit.
""",
    "support_vectors": """\
support_vectors_ : ndarray of shape (n_support, n_features) or None
    The ranking vectors; None for ``kernel="precomputed"``.
""",
    "kernel_and_method": """\
kernel_ : Kernel
    The kernel with its resolved ``gamma``.
method_ : str
    The route taken (``method``, or the one ``method="auto"`` chose).
""",
    "features_in": """\
n_features_in_ : int
    Number of features seen during fit.
feature_names_in_ : ndarray of shape (`n_features_in_`,)
    Names of the features seen during fit, when ``X`` has string column names.
""",
    "ataman_reference": """\
.. [1] Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming for
   problems with binary output*. PhD thesis, University of Iowa.
""",
}

#: parts of the ``fit`` docstrings
FIT_PARTS = {
    "fit_X": """\
X : {array-like, sparse matrix} of shape (n_samples, n_features)
    Training data (the kernel matrix for ``kernel="precomputed"``).
""",
    "fit_weights": """\
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
""",
    "fit_returns": """\
self : object
    The fitted estimator.
""",
}
