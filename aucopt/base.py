"""Base classes and mixins shared by every aucopt estimator.

An estimator is one model (how scores are computed and trained) combined with one target mixin
(what the labels mean):

=========================  ==============================  =======================================
mixin                      target ``y``                    ``predict`` / ``score``
=========================  ==============================  =======================================
:class:`BinaryRankerMixin`     two class labels                class labels / AUC
:class:`SurvivalRankerMixin`   structured (event, time) array  risk scores / Harrell's C
=========================  ==============================  =======================================

A new estimator subclasses one mixin and a model class (e.g. :class:`KernelPairRanker`),
declares its parameters in ``_parameter_constraints`` (scikit-learn's
:mod:`sklearn.utils._param_validation` vocabulary, checked by ``fit`` before any work) and
implements ``_fit``. Binary rankers are classifiers (``decision_function`` ranks, ``predict``
thresholds it); survival rankers follow scikit-survival (``predict`` is a risk score, higher
means an earlier event).
"""

from __future__ import annotations

import inspect
import logging
import time as _time
from dataclasses import dataclass
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from ._breslow import SurvivalFunctionMixin
from ._fitting import ROW_FIT_PARAMS as ROW_FIT_PARAMS  # the names below are re-exported from their new homes
from ._fitting import ROW_INDEX_ATTRIBUTES as ROW_INDEX_ATTRIBUTES
from ._fitting import check_fit_params as check_fit_params
from ._fitting import check_kernel_bytes as check_kernel_bytes
from ._fitting import dense, fit_on_rows, sample_weight_for, validated_data_and_pairs
from ._fitting import fit_parameters as fit_parameters
from ._summary import print_summary as _print_summary
from ._summary import summary as _summary
from ._targets import (
    BINARY_PAIR_OPTIONS,
    SURVIVAL_PAIR_OPTIONS,
    best_accuracy_threshold,
    checked_pair_options,
    pair_weights_on_rows,
)
from ._targets import label_predict as label_predict
from ._validation import (
    Count,
    check_time_limit,
    is_survival_target,
    largest_magnitude,
    survival_arrays,
    survival_target,
    unique_labels,
)
from ._version import __version__
from .exceptions import InconsistentVersionWarning, warn
from .kernels import GAMMA_RULES, KERNELS, Kernel
from .metrics import harrell_c, multipartite_c_index, roc_auc
from .pairs import DEFAULT_MAX_BYTES, PairSet
from .solvers import SolveResult

__all__ = [
    "BINARY_PAIR_OPTIONS",
    "DEFAULT_MAX_BYTES",
    "SURVIVAL_PAIR_OPTIONS",
    "BinaryRankerMixin",
    "KernelPairRanker",
    "Solution",
    "SurvivalRankerMixin",
    "VersionedStateMixin",
    "validated_data_and_pairs",
]

_LOG = logging.getLogger(__name__)

#: a binary / survival ranker's own type, returned by its ``fit``
_Binary = TypeVar("_Binary", bound="BinaryRankerMixin")
_Survival = TypeVar("_Survival", bound="SurvivalRankerMixin")

if TYPE_CHECKING:  # the mixins below are combined with a BaseEstimator, whose methods they extend
    from sklearn.base import BaseEstimator as _Host
else:
    _Host = object

# ============================================================================ parameter vocabulary
#: constraints of parameters that mean the same thing in every estimator that has them
KERNEL_CONSTRAINTS = {
    "kernel": [StrOptions(set(KERNELS)), callable],
    "gamma": [StrOptions(set(GAMMA_RULES)), Interval(Real, 0, None, closed="neither")],
    "degree": [Count(Integral, 1, None, closed="left")],
    "coef0": [Interval(Real, None, None, closed="neither")],
}
MAX_BYTES_CONSTRAINT = {"max_bytes": [Interval(Real, 0, None, closed="neither"), None]}
VERBOSE_CONSTRAINT = {"verbose": ["verbose"]}
RANDOM_STATE_CONSTRAINT = {"random_state": ["random_state", np.random.Generator]}
POS_LABEL_CONSTRAINT = {"pos_label": [Real, str, "boolean", None]}
PAIR_OPTIONS_CONSTRAINT = {"pair_options": [dict, None]}
SOLVER_OPTIONS_CONSTRAINT = {"solver_options": [dict, None]}


def positive(kind: type = Real) -> Interval:
    """Constraint ``(0, inf)`` for a positive number (``C``, ``alpha``, step sizes)."""
    return Interval(kind, 0, None, closed="neither")


def non_negative(kind: type = Real) -> Interval:
    """Constraint ``[0, inf)``."""
    return Interval(kind, 0, None, closed="left")


def as_generator(random_state: Any) -> np.random.Generator:
    """A :class:`numpy.random.Generator` from any ``random_state`` value.

    None, an int or a Generator go to :func:`numpy.random.default_rng`; a legacy
    :class:`numpy.random.RandomState` seeds a new Generator from its stream.

    Examples
    --------
    >>> from aucopt.base import as_generator
    >>> int(as_generator(0).integers(100)) == int(as_generator(0).integers(100))
    True
    """
    if isinstance(random_state, np.random.RandomState):
        random_state = random_state.randint(np.iinfo(np.int32).max)
    return np.random.default_rng(random_state)


def as_seed(random_state: Any) -> int | np.random.RandomState | None:
    """A ``random_state`` that scikit-learn accepts (None, int or RandomState) from any value.

    A :class:`numpy.random.Generator` is turned into an int seed drawn from it.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.base import as_seed
    >>> as_seed(3), isinstance(as_seed(np.random.default_rng(0)), int)
    (3, True)
    """
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(np.iinfo(np.int32).max))
    return random_state


# ============================================================================ the solution of a model
@dataclass
class Solution:
    """What a model's ``_solve`` hands back: f(x) = Σ_l coef_l k(x, basis_l).

    Attributes
    ----------
    basis : ndarray or None
        The rows the coefficients refer to (None: the columns of a precomputed kernel).
    coef : ndarray
        One expansion coefficient per basis row.
    result : SolveResult or None
        The LP/QP backend's result; None when no LP/QP was solved.
    objective : float
        The model's objective at the solution.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.base import Solution
    >>> Solution(basis=np.eye(2), coef=np.array([1.0, -1.0]), result=None, objective=2.0).coef
    array([ 1., -1.])
    """

    basis: Any
    coef: np.ndarray
    result: SolveResult | None
    objective: float


# ============================================================================ kernel expansions
def _linear_expansion(X: Any, basis: Any, coef: np.ndarray) -> np.ndarray | None:
    """Σ_l coef_l xᵀx_l for every row x of ``X``, as X w with w = basisᵀ coef (the linear kernel).

    The plain inner product ``Kernel("linear")`` evaluates, without its ``len(X) × len(basis)``
    block: O(n d) time and memory instead of O(n · n_basis · d) and n · n_basis floats, equal
    up to rounding. ``X`` and ``basis`` may be dense or sparse. Returns None where the kernel's own
    checks could refuse the block (values that overflow, or whose squares summed over the block
    do: bounded by d · max|X| · max|basis|), so that the caller evaluates the kernel and raises
    as before.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.base import _linear_expansion
    >>> X, basis = np.array([[1.0, 2.0], [0.0, 1.0]]), np.array([[1.0, 0.0], [1.0, 1.0]])
    >>> _linear_expansion(X, basis, np.array([2.0, -1.0])).tolist()  # (X basisᵀ) coef
    [-1.0, -1.0]
    """
    n_rows, n_basis, n_features = X.shape[0], basis.shape[0], X.shape[1]
    with np.errstate(over="ignore", invalid="ignore"):
        bound = float(n_features) * largest_magnitude(X) * largest_magnitude(basis)
        if not np.isfinite(4.0 * bound * bound * float(n_rows) * float(n_basis)):
            return None
        w = np.asarray(basis.T @ coef, dtype=np.float64).ravel()
        scores = np.asarray(X @ w, dtype=np.float64).ravel()
    return scores if np.all(np.isfinite(scores)) else None


class KernelPairRanker(BaseEstimator):
    """Base class of rankers that solve an LP/QP for a kernel expansion f(x) = Σ_l c_l k(x, x_l).

    Subclasses implement ``_check_model_params()`` (rules spanning several parameters) and
    ``_solve(X, pairs, kernel) -> Solution``; this class validates the data and parameters, prunes
    negligible coefficients (``|c_l| ≤ support_threshold · max|c|``) and evaluates the
    expansion. Fitted attributes: ``support_``, ``support_vectors_``, ``dual_coef_``, ``kernel_``,
    ``objective_``, ``solve_result_``, ``n_pairs_``, ``pair_target_``.

    See Also
    --------
    aucopt.LPRanker, aucopt.AUCSVM : The estimators built on this class.

    Examples
    --------
    A kernel ranker whose "solver" puts weight +1 on every positive and −1 on every negative
    (a Parzen-window score), showing the ``_solve`` hook:

    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from aucopt.base import BinaryRankerMixin, KernelPairRanker, Solution
    >>> class ParzenRanker(BinaryRankerMixin, KernelPairRanker):
    ...     _parameter_constraints = {"kernel": "no_validation", "gamma": "no_validation",
    ...                               "degree": "no_validation", "coef0": "no_validation",
    ...                               "support_threshold": "no_validation", "pos_label": "no_validation"}
    ...     def __init__(self, kernel="rbf", gamma="scale", degree=3, coef0=1.0,
    ...                  support_threshold=0.0, pos_label=None):
    ...         self.kernel, self.gamma, self.degree, self.coef0 = kernel, gamma, degree, coef0
    ...         self.support_threshold, self.pos_label = support_threshold, pos_label
    ...     def _solve(self, X, pairs, kernel):
    ...         coef = pairs.signs / np.where(pairs.signs > 0, (pairs.signs > 0).sum(), (pairs.signs < 0).sum())
    ...         return Solution(basis=X, coef=coef, result=None, objective=0.0)
    >>> X, y = make_classification(n_samples=60, random_state=0)
    >>> model = ParzenRanker().fit(X, y)
    >>> len(model.support_), bool(model.score(X, y) > 0.9)
    (60, True)
    """

    _parameter_constraints: ClassVar[dict] = {}  # each estimator declares every parameter

    # ------------------------------------------------------------------ hooks
    @property
    def _row_index_attributes(self) -> tuple[str, ...]:
        """Fitted attributes holding training-row indices: those of the exact routes
        (``method="full"`` or ``"dcd"``, or ``method_`` after ``method="auto"`` chose one); other
        routes' expansions may index centers or a weight vector."""
        route = getattr(self, "method_", None) or getattr(self, "method", "full")
        return ("support_", "support_pairs_") if route in ("full", "dcd") else ()

    def _take_route(self, pairs: PairSet, **context: Any) -> str:
        """The route of ``select_method(pairs, **context)``, kept in ``method_``, logged, and printed
        under ``verbose`` (for estimators whose ``method`` offers ``"auto"``)."""
        method, reason = self.select_method(pairs, **context)
        self.method_ = method
        _LOG.info("%s: %s", type(self).__name__, reason)
        if self.verbose:
            print(f"[{type(self).__name__}] {reason}", flush=True)
        return method

    def _check_model_params(self) -> None:
        """Check rules that span several parameters (single parameters are declared)."""

    def _solver_options(self) -> dict | None:
        """``solver_options`` as every route reads them, its ``"time_limit"`` checked
        (:func:`aucopt._validation.check_time_limit`): the dict given (None when none is), or a
        copy whose time limit is a Python number (a NumPy scalar converted, None removed)."""
        options = getattr(self, "solver_options", None)
        if not options or "time_limit" not in options:
            return options
        given = options["time_limit"]
        seconds = check_time_limit(given, "solver_options['time_limit']")
        if seconds is None:
            return {key: value for key, value in options.items() if key != "time_limit"}
        return options if type(given) in (int, float) else {**options, "time_limit": seconds}

    def _solve(self, X: Any, pairs: PairSet, kernel: Kernel) -> Solution:  # pragma: no cover - abstract
        raise NotImplementedError

    # ------------------------------------------------------------------ fit
    def _fit(self, X: Any, y: Any, sample_weight: ArrayLike | None = None) -> KernelPairRanker:
        """Validate everything, then solve; ``sample_weight`` gives pair weights w_i·w_j."""
        self._validate_params()
        self._solver_options()  # the time limit, checked once for every route
        self._check_model_params()
        X, pairs = validated_data_and_pairs(self, X, y, sample_weight)
        kernel = Kernel.from_params(self.kernel, self.gamma, self.degree, self.coef0, X=X)
        if kernel.precomputed and X.shape[0] != X.shape[1]:
            raise ValueError(f"A precomputed kernel must be square at fit time; got {X.shape}.")
        solution = self._solve(X, pairs, kernel)
        coef = solution.coef
        keep = np.abs(coef) > self.support_threshold * float(np.max(np.abs(coef), initial=0.0))
        self.kernel_ = kernel
        self.support_ = np.flatnonzero(keep)
        self.dual_coef_ = coef[keep]
        self.support_vectors_ = None if solution.basis is None else solution.basis[self.support_]
        self.objective_ = solution.objective
        self.solve_result_ = solution.result
        self.n_pairs_ = pairs.n_pairs
        self.pair_target_ = pairs.target
        return self

    def _expansion(self, X: Any) -> np.ndarray:
        """The kernel expansion f(x) = Σ_{l ∈ support} dual_coef_l k(x, x_l).

        For the linear kernel, f = X (Σ_l dual_coef_l x_l) (``_linear_expansion``): O(n d)
        memory instead of the n × n_support kernel block; the same values up to rounding.
        """
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=np.float64, reset=False)
        if self.kernel_.precomputed:
            return dense(X)[:, self.support_] @ self.dual_coef_
        if len(self.support_) == 0:
            return np.zeros(X.shape[0])
        if isinstance(self.kernel_.name, str) and self.kernel_.name == "linear":
            scores = _linear_expansion(X, self.support_vectors_, self.dual_coef_)
            if scores is not None:
                return scores
        return self.kernel_(X, self.support_vectors_) @ self.dual_coef_

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags


# ============================================================================ pickles
class VersionedStateMixin(_Host):
    """Pickles that record the aucopt version, and old pickles that still ``repr``, ``get_params`` and ``clone``.

    scikit-learn stores its own version in the pickles of its estimators only; this mixin does
    the same for aucopt's (``_aucopt_version`` in the pickled state). Unpickling a state from
    another version, or one that records none, issues an
    :class:`~aucopt.exceptions.InconsistentVersionWarning`, and constructor parameters the state
    lacks (added in a later version) are set to their defaults, which the warning lists.

    Examples
    --------
    >>> import pickle
    >>> from aucopt import AUCSVM
    >>> state = AUCSVM(C=0.5).__getstate__()
    >>> state["_aucopt_version"] == __import__("aucopt").__version__
    True
    >>> pickle.loads(pickle.dumps(AUCSVM(C=0.5)))
    AUCSVM(C=0.5)
    """

    def __getstate__(self) -> dict[str, Any]:
        return {**super().__getstate__(), "_aucopt_version": __version__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        version = state.pop("_aucopt_version", None)
        filled = {}
        for name, parameter in inspect.signature(type(self).__init__).parameters.items():
            if (name != "self" and name not in state and parameter.default is not parameter.empty
                    and parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)):
                filled[name] = parameter.default
        state.update(filled)
        if version != __version__ or filled:
            warn(InconsistentVersionWarning(estimator_name=type(self).__name__, current_version=__version__,
                                            original_version=version, filled_parameters=filled))
        super().__setstate__(state)


# ============================================================================ targets
class BinaryRankerMixin(VersionedStateMixin, ClassifierMixin):
    """Mixin for rankers of binary labels: bipartite pairs, AUC, a classifier with a threshold.

    The model's ``_expansion(X)`` gives ranking scores f(x). After ``fit``: ``classes_``,
    ``pos_label_``, ``threshold_`` (the score cut with the best training accuracy) and
    ``intercept_`` (``decision_function`` = f(x) + ``intercept_`` for ``pos_label_ == classes_[1]``).
    ``score`` is the AUC (scores within 1e-8 tie and count ½), as :func:`aucopt.metrics.roc_auc`.

    **Ordinal labels.** With ``pair_options={"target": "multipartite"}`` (and optionally
    ``"levels": [lowest, ..., highest]``, default the sorted distinct labels) the ranker is fitted
    on the pairs of :meth:`aucopt.PairSet.multipartite`, one per ``y_i > y_j``: ``classes_`` are
    the levels in order, ``decision_function`` the ranking scores (higher = higher level),
    ``score`` the (weighted) multipartite C-index (:func:`aucopt.metrics.multipartite_c_index`),
    and there is no ``predict``: a ranker learns no cut points between the levels (``hasattr``
    is False; ``pos_label_``, ``threshold_`` and ``intercept_`` are not set).

    **Probabilities.** A ranker's scores order the samples; they are not probabilities, and
    there is no ``predict_proba``: the AUC depends only on the order of the scores, so their
    scale carries no calibrated meaning. For probabilities, calibrate ``decision_function`` on
    held-out folds with :class:`sklearn.calibration.CalibratedClassifierCV`, e.g.
    ``CalibratedClassifierCV(LPRanker(), method="sigmoid")``: ``"sigmoid"`` (Platt 1999) is a
    monotone map of the score, so it keeps the ranking (up to the averaging over folds);
    ``"isotonic"`` (Zadrozny & Elkan 2002) fits a step function and may tie scores.

    See Also
    --------
    SurvivalRankerMixin : The same contract for censored survival targets.
    KernelPairRanker : A model base class for LP/QP kernel expansions.
    sklearn.calibration.CalibratedClassifierCV : Probabilities from ``decision_function``.

    References
    ----------
    .. [1] Platt, J. C. (1999). Probabilistic outputs for support vector machines and
       comparisons to regularized likelihood methods. In *Advances in Large Margin
       Classifiers*, 61–74. MIT Press.
    .. [2] Zadrozny, B., & Elkan, C. (2002). Transforming classifier scores into accurate
       multiclass probability estimates. *Proceedings of the 8th ACM SIGKDD International
       Conference on Knowledge Discovery and Data Mining (KDD)*, 694–699.

    Examples
    --------
    A complete binary ranker in a few lines: a model that scores by the difference of the
    class means, with the pair set, threshold, ``predict`` and the AUC ``score`` from the mixin.

    >>> import numpy as np
    >>> from sklearn.base import BaseEstimator
    >>> from sklearn.datasets import make_classification
    >>> from aucopt.base import BinaryRankerMixin, validated_data_and_pairs
    >>> class MeanDifferenceRanker(BinaryRankerMixin, BaseEstimator):
    ...     _parameter_constraints = {"pos_label": "no_validation"}
    ...     def __init__(self, pos_label=None):
    ...         self.pos_label = pos_label
    ...     def _fit(self, X, y, sample_weight=None):
    ...         X, pairs = validated_data_and_pairs(self, X, y, sample_weight)
    ...         positive = pairs.signs > 0
    ...         self.coef_ = X[positive].mean(axis=0) - X[~positive].mean(axis=0)
    ...         return self
    ...     def _expansion(self, X):
    ...         return np.asarray(X, dtype=float) @ self.coef_
    >>> X, y = make_classification(n_samples=80, random_state=0)
    >>> model = MeanDifferenceRanker().fit(X, y)
    >>> round(model.score(X, y), 3), model.predict(X[:4]).tolist()
    (0.932, [0, 1, 0, 1])

    Probabilities through calibration of ``decision_function``:

    >>> from sklearn.calibration import CalibratedClassifierCV
    >>> calibrated = CalibratedClassifierCV(MeanDifferenceRanker(), method="sigmoid", cv=3).fit(X, y)
    >>> proba = calibrated.predict_proba(X)
    >>> proba.shape, bool(np.allclose(proba.sum(axis=1), 1.0))
    ((80, 2), True)
    """

    #: the pair targets of ``pair_options["target"]``, the default first
    _pair_targets: tuple[str, ...] = ("bipartite", "multipartite")
    #: why other targets are refused (estimators that rank fewer targets say why)
    _pair_target_reason = ""

    def _pair_target_options(self) -> tuple[str, dict]:
        """``(target, options)`` of ``pair_options``, checked (:func:`checked_pair_options`)."""
        target, options = checked_pair_options(self, BINARY_PAIR_OPTIONS[1:], self._pair_targets,
                                               self._pair_target_reason)
        if target == "multipartite" and getattr(self, "pos_label", None) is not None:
            raise ValueError(
                f"pos_label={self.pos_label!r} names the positive class of binary labels; with pair_options "
                "target 'multipartite' every label is a level: give their order with pair_options['levels']."
            )
        if target == "bipartite" and "levels" in options:
            raise ValueError(
                "pair_options['levels'] orders the levels of ordinal labels: set pair_options={'target': "
                "'multipartite', 'levels': [...]}; binary labels take pos_label."
            )
        return target, options

    def _ranks_levels(self) -> bool:
        """Whether this ranker ranks ordinal levels: its fitted pair target, else its ``pair_options``."""
        fitted = getattr(self, "pair_target_", None)
        if fitted is not None:
            return fitted == "multipartite"
        try:
            return self._pair_target_options()[0] == "multipartite"
        except Exception:
            return False

    def _make_pairs(self, y: Any, sample_weight: np.ndarray | None, rows: ArrayLike | None = None) -> PairSet:
        """The pairs of ``y`` for ``pair_options``: bipartite (default) or multipartite.

        ``rows`` (positions of ``y`` among the fitting rows) is unused.
        """
        if is_survival_target(y):
            raise ValueError(
                f"{type(self).__name__} takes binary labels; use Survival{type(self).__name__} "
                "for (event, time) targets."
            )
        target, options = self._pair_target_options()
        if target == "multipartite":
            if y is None:
                raise ValueError("This estimator requires y to be passed, but the target y is None.")
            return PairSet.multipartite(y, levels=options.get("levels"), point_weights=sample_weight)
        return PairSet.bipartite(y, pos_label=self.pos_label, point_weights=sample_weight)

    def _set_target_attributes(self, scores: np.ndarray, y: Any, y_fit: Any, sample_weight: ArrayLike | None) -> None:
        """``classes_`` and, for binary labels, ``pos_label_``, ``threshold_`` and ``intercept_``.

        ``scores`` are the training scores of all rows ``y``; ``y_fit`` the labels of the rows
        of positive weight.
        """
        target, options = self._pair_target_options()
        if target == "multipartite":
            levels = options.get("levels")
            self.classes_ = unique_labels(y_fit) if levels is None else np.asarray(levels).ravel()
            self._score_levels = levels
            for name in ("pos_label_", "threshold_", "intercept_"):
                self.__dict__.pop(name, None)  # binary attributes of an earlier fit
            return
        self.classes_ = unique_labels(y_fit)
        self.pos_label_ = self.classes_[1] if self.pos_label is None else self.pos_label
        self.threshold_ = best_accuracy_threshold(scores, np.asarray(y) == self.pos_label_, sample_weight)
        sign = 1.0 if self.pos_label_ == self.classes_[1] else -1.0
        self.intercept_ = -sign * self.threshold_

    def _score_of(self, y: Any, scores: np.ndarray, sample_weight: ArrayLike | None = None) -> float:
        """The fitted target's metric: the AUC, or the multipartite C-index for ordinal levels."""
        if self._ranks_levels():
            return multipartite_c_index(y, scores, levels=getattr(self, "_score_levels", None),
                                        sample_weight=sample_weight)
        return roc_auc(y, scores, pos_label=self.pos_label_, sample_weight=sample_weight)

    summary = _summary
    print_summary = _print_summary

    def fit(self: _Binary, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | float | None = None,
            **fit_params: Any) -> _Binary:
        """Fit the ranker.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (the kernel matrix for ``kernel="precomputed"``).
        y : array-like of shape (n_samples,)
            Two class labels; ``pos_label`` (default the larger) is the positive class. With
            ``pair_options={"target": "multipartite"}``: ordinal labels of two or more levels.
        sample_weight : float or array-like of shape (n_samples,), default=None
            Non-negative per-sample weights; pair (i, j) weighs ``sample_weight[i] *
            sample_weight[j]``. A scalar weighs every sample alike. A zero weight is the same
            as removing the row: it enters no pair, kernel width, basis, validation split or
            threshold (for ``kernel="precomputed"`` its column is dropped too, and
            ``support_`` indexes the rows of ``X`` as given). Weights whose pair weights
            overflow float64 (sum above about 1e154) are refused: rescale them.
        **fit_params : dict
            Estimator-specific fit parameters (e.g. ``alpha_path`` of the Newton rankers,
            ``groups`` of the LP Ranker); a name the estimator does not take raises a
            ``TypeError`` naming the estimators that do, before any work.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        start = _time.perf_counter()
        labels: Any = y if y is None or is_survival_target(y) else column_or_1d(y, warn=True)
        weights = sample_weight_for(X, sample_weight)
        y_fit = fit_on_rows(self, X, labels, weights, lambda rows: len(unique_labels(labels[rows])) >= 2, fit_params)
        self._set_target_attributes(self._expansion(X), labels, y_fit, weights)
        self.n_samples_fit_ = len(y_fit)  # the rows with positive weight
        self.fit_time_ = _time.perf_counter() - start
        return self

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Signed ranking score: positive values favour ``classes_[1]``.

        For a ranker of ordinal levels (``pair_options`` target ``"multipartite"``): the
        ranking scores f(x), higher meaning a higher level.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            ``f(x) − threshold_`` when ``pos_label_`` is ``classes_[1]``, its negative otherwise
            (ordinal levels: f(x)).
        """
        if self._ranks_levels():
            return self._expansion(X)
        shifted = self._expansion(X) - self.threshold_
        return shifted if self.pos_label_ == self.classes_[1] else -shifted

    @label_predict
    def predict(self, X: ArrayLike) -> np.ndarray:
        """Class labels: ``classes_[1]`` where ``decision_function`` is positive.

        Not available for a ranker of ordinal levels (``pair_options`` target
        ``"multipartite"``), which learns no cut points between the levels.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        labels : ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "classes_")
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    def score(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | float | None = None) -> float:
        """AUC of the ranking scores (ties count ½), by :func:`aucopt.metrics.roc_auc`.

        Scores within 1e-8 · max|score| (``aucopt.metrics.TIED_TOL``, relative) of each other
        tie, so round-off (a model fitted on dense or sparse ``X``) does not change the score;
        otherwise equal to :func:`sklearn.metrics.roc_auc_score`. For a ranker of ordinal
        levels (``pair_options`` target ``"multipartite"``): the multipartite C-index over the
        pairs ``y_i > y_j`` (:func:`aucopt.metrics.multipartite_c_index`, in the order of
        ``pair_options["levels"]`` when given).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : float or array-like of shape (n_samples,), default=None
            Case weights: a (positive, negative) pair (i, j) counts with weight
            ``sample_weight[i] * sample_weight[j]``, as in scikit-learn's weighted
            ``roc_auc_score`` (integer weights equal repeating rows, zero removes the row).

        Returns
        -------
        auc : float
            The AUC (ordinal levels: the multipartite C-index).
        """
        return self._score_of(y, self._expansion(X), sample_weight)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = self._ranks_levels()
        return tags


class SurvivalRankerMixin(SurvivalFunctionMixin, VersionedStateMixin):
    """Mixin for risk rankers of right-censored survival data (scikit-survival's conventions).

    ``y`` is a structured array with a boolean event field and a float time field
    (:func:`aucopt.survival_target` or ``sksurv.util.Surv.from_arrays``). The pairs are Harrell's
    comparable pairs, or the variant chosen by the estimator's ``pair_options`` (keys of
    :data:`SURVIVAL_PAIR_OPTIONS`, passed to :meth:`aucopt.PairSet.survival`; the key
    ``"target"`` of the binary rankers' vocabulary is accepted with its one value here,
    ``"survival"``). ``y`` may also be
    an ``(event, time)`` pair of arrays. User pair weights (``pair_options["weights"]``) refer to
    the rows of the ``X`` given to ``fit``: an array aligned with the pairs of all rows, or a
    callable ``weights(i, j, t_i, t_j, e_i, e_j)`` of their row indices; when the model is fitted
    on part of the rows (zero ``sample_weight``, a validation split), each remaining pair keeps
    its own weight. ``pair_options={"weights": "ipcw"}`` trains on Uno's weights 1/Ĝ(T_i)² (with
    ``"tau"``: the pairs whose event comes before it) and ``{"horizon": τ}`` on the pairs of the
    time-dependent AUC(τ) (with ``"weights": "ipcw"``: its case weights 1/Ĝ(T_i)); Ĝ, the
    censoring Kaplan–Meier estimate, is computed on the rows fitted (weighted by
    ``sample_weight``), and both stay in the sorted pair storage (see
    :meth:`aucopt.PairSet.survival`). ``predict`` returns risk scores (higher = earlier
    event); ``score`` is Harrell's C (tied risks count ½).

    See Also
    --------
    BinaryRankerMixin : The same contract for binary labels.
    aucopt.survival_target : Build the structured target from event and time arrays.

    References
    ----------
    .. [1] Harrell, F. E., Califf, R. M., Pryor, D. B., Lee, K. L., & Rosati, R. A. (1982).
       Evaluating the yield of medical tests. *JAMA*, 247(18), 2543–2546.

    Examples
    --------
    A risk ranker that scores by one feature; pairs, ``predict`` and Harrell's C come from the mixin.

    >>> import numpy as np
    >>> from sklearn.base import BaseEstimator
    >>> from aucopt import survival_target
    >>> from aucopt.base import SurvivalRankerMixin, validated_data_and_pairs
    >>> class FirstFeatureRisk(SurvivalRankerMixin, BaseEstimator):
    ...     _parameter_constraints = {"pair_options": [dict, None]}
    ...     def __init__(self, pair_options=None):
    ...         self.pair_options = pair_options
    ...     def _fit(self, X, y, sample_weight=None):
    ...         X, pairs = validated_data_and_pairs(self, X, y, sample_weight)
    ...         self.n_pairs_ = pairs.n_pairs
    ...         return self
    ...     def _expansion(self, X):
    ...         return np.asarray(X, dtype=float)[:, 0]
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 3))
    >>> time = rng.exponential(np.exp(-X[:, 0]))
    >>> y = survival_target(rng.random(50) < 0.7, time)
    >>> model = FirstFeatureRisk().fit(X, y)
    >>> model.predict(X).shape, bool(model.score(X, y) > 0.6)
    ((50,), True)
    """

    def _make_pairs(self, y: Any, sample_weight: np.ndarray | None, rows: ArrayLike | None = None) -> PairSet:
        """Survival pairs of ``y`` with ``pair_options``.

        ``rows``: positions of ``y`` among the rows handed to ``_fit`` (None: all of them).
        User pair weights (``pair_options["weights"]``) refer to the rows of the ``X`` given to
        ``fit``; on a subset of them (zero-weight rows dropped, a validation split) each pair
        keeps its own weight.
        """
        if not is_survival_target(y):
            raise ValueError(
                f"{type(self).__name__} needs a survival target: a structured array with a boolean "
                "event and a float time field (aucopt.survival_target(event, time))."
            )
        _, options = checked_pair_options(self, SURVIVAL_PAIR_OPTIONS, ("survival",))
        dropped, y_all = getattr(self, "_fit_rows", (None, None))
        weights = options.get("weights")  # "ipcw" is computed on the rows fitted
        if weights is not None and not isinstance(weights, str) and y_all is not None:
            origin = rows if dropped is None else (dropped if rows is None else dropped[np.asarray(rows)])
            origin = np.arange(len(y_all)) if origin is None else np.asarray(origin, dtype=np.int64)
            options["weights"] = pair_weights_on_rows(options, y_all, origin)
        return PairSet.survival(y, point_weights=sample_weight, **options)

    summary = _summary
    print_summary = _print_summary

    def fit(self: _Survival, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | float | None = None,
            **fit_params: Any) -> _Survival:
        """Fit the risk ranker.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (the kernel matrix for ``kernel="precomputed"``).
        y : structured array of shape (n_samples,) or tuple (event, time)
            Boolean event indicator and float time (see :func:`aucopt.survival_target`).
        sample_weight : float or array-like of shape (n_samples,), default=None
            Non-negative per-sample weights; pair (i, j) weighs ``sample_weight[i] *
            sample_weight[j]``. A scalar weighs every sample alike. A zero weight is the same
            as removing the row: it enters no pair, kernel width, basis or validation split
            (for ``kernel="precomputed"`` its column is dropped too, and ``support_`` indexes
            the rows of ``X`` as given). Weights whose pair weights overflow float64 (sum above
            about 1e154) are refused: rescale them.
        **fit_params : dict
            Estimator-specific fit parameters (e.g. ``alpha_path`` of the Newton rankers,
            ``groups`` of the LP Ranker); a name the estimator does not take raises a
            ``TypeError`` naming the estimators that do, before any work.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        start = _time.perf_counter()
        target: Any = y
        if isinstance(y, tuple) and len(y) == 2:
            target = survival_target(*y)  # an (event, time) pair, as the structured target

        def rankable(rows: np.ndarray) -> bool:
            event, _ = survival_arrays(target[rows])
            return bool(event.any()) and len(rows) >= 2

        weights = sample_weight_for(X, sample_weight)
        y_fit = fit_on_rows(self, X, target, weights, rankable, fit_params)
        self.n_samples_fit_ = len(y_fit)  # the rows with positive weight
        event, time = survival_arrays(target)
        self._calibrate(self._expansion(X), time, event, weights)  # survival curves: Cox on the training scores
        self.fit_time_ = _time.perf_counter() - start
        return self

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Risk scores (higher = earlier event); the same as :meth:`predict`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        risk : ndarray of shape (n_samples,)
        """
        return self._expansion(X)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Risk scores (higher = earlier event), as scikit-survival's ``predict``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        risk : ndarray of shape (n_samples,)
        """
        return self._expansion(X)

    def score(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | float | None = None) -> float:
        """Harrell's concordance index of the risk scores (tied risks count ½).

        Risks within 1e-8 · max|risk| (``aucopt.metrics.TIED_TOL``, relative) of each other
        tie, so round-off (a model fitted on dense or sparse ``X``) does not change the score.
        Equal to scikit-survival's ``concordance_index_censored`` with ``tied_tol=1e-8 ·
        max|risk|``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : structured array of shape (n_samples,)
        sample_weight : float or array-like of shape (n_samples,), default=None
            Case weights: a comparable pair (i, j) counts with weight ``sample_weight[i] *
            sample_weight[j]`` (integer weights equal repeating rows, zero removes the row; see
            :func:`aucopt.metrics.harrell_c`).

        Returns
        -------
        cindex : float
        """
        return harrell_c(y, self._expansion(X), sample_weight=sample_weight)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags
