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
from functools import update_wrapper
from numbers import Integral, Real
from types import MethodType

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import _safe_indexing
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import (
    _check_feature_names,
    _num_features,
    _num_samples,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from ._breslow import SurvivalFunctionMixin
from ._summary import print_summary as _print_summary
from ._summary import summary as _summary
from ._validation import (
    Count,
    check_finite_1d,
    check_fit_scale,
    check_point_weights,
    check_time_limit,
    is_survival_target,
    survival_arrays,
    survival_target,
)
from ._version import __version__
from .exceptions import InconsistentVersionWarning, warn
from .kernels import GAMMA_RULES, KERNELS, Kernel
from .metrics import harrell_c, multipartite_c_index, roc_auc
from .pairs import DEFAULT_MAX_BYTES, PairSet
from .pairs._pairset import check_groups, survival_pair_arrays
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


def positive(kind=Real):
    """Constraint ``(0, inf)`` for a positive number (``C``, ``alpha``, step sizes)."""
    return Interval(kind, 0, None, closed="neither")


def non_negative(kind=Real):
    """Constraint ``[0, inf)``."""
    return Interval(kind, 0, None, closed="left")


def as_generator(random_state) -> np.random.Generator:
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


def as_seed(random_state):
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


# ============================================================================ fitting helpers
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

    basis: object
    coef: np.ndarray
    result: SolveResult | None
    objective: float


def validated_data_and_pairs(estimator, X, y, sample_weight):
    """Validate ``X`` and build ``estimator``'s pair set, refusing empty or zero-weight sets.

    Parameters
    ----------
    estimator : estimator with a ``_make_pairs(y, sample_weight)`` method
        Its feature count (``n_features_in_``) is reset from ``X``.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like
        Binary labels or a survival target, as the estimator expects.
    sample_weight : float, array-like of shape (n_samples,) or None
        Per-sample weights; a pair (i, j) weighs w_i · w_j. A scalar weighs every sample alike.

    Returns
    -------
    X : ndarray or sparse matrix of float64
    pairs : PairSet

    Raises
    ------
    ValueError
        For invalid ``X`` (NaN or infinite entries, or entries whose squares, or for a linear or
        polynomial kernel whose squared inner products, overflow or underflow float64), target
        or ``sample_weight`` (wrong length, negative, NaN, or so large
        that the pair weights or their total overflow float64), and for a pair set that is
        empty or has zero total weight.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import RankSVM
    >>> from aucopt.base import validated_data_and_pairs
    >>> X, pairs = validated_data_and_pairs(RankSVM(), np.eye(4), [0, 1, 1, 0], None)
    >>> pairs.target, pairs.n_pairs
    ('bipartite', 4)
    """
    X = validate_data(estimator, X, accept_sparse=("csr", "csc"), dtype=np.float64, reset=True)
    check_fit_scale(estimator, X, sample_weight)
    sample_weight = check_point_weights(sample_weight, X.shape[0], "sample_weight")
    return X, _checked_pairs(estimator, y, sample_weight, X.shape[0])


def _checked_pairs(estimator, y, sample_weight, n_samples: int):
    """The estimator's pair set for ``y``, checked: ``n_samples`` points, nonempty, finite positive weight.

    Raises
    ------
    ValueError
        When the target's length is not ``n_samples``, or the total pair weight overflows or is 0.
    NoComparablePairsError
        When there is no pair.
    """
    pairs = estimator._make_pairs(y, sample_weight)
    if pairs.n_points != n_samples:
        raise ValueError(f"X has {n_samples} samples but the target has {pairs.n_points}.")
    pairs.check_nonempty()
    total = pairs.total_weight()
    if not np.isfinite(total):
        raise ValueError(
            f"The total pair weight is {total} (float64 overflow): rescale sample_weight or the "
            "pair weights of pair_options, e.g. divide them by their maximum."
        )
    if total == 0:
        raise ValueError(
            "All pair weights are zero: sample_weight leaves no pair with positive weight "
            "(e.g. only one class, or no event, has nonzero weight)."
        )
    return pairs


def _sample_weight_for(X, sample_weight):
    """``sample_weight`` validated against the rows of ``X`` (a scalar broadcast to every row).

    Left as given when ``X`` has no length (the validation of ``X`` then reports it).
    """
    if sample_weight is None:
        return None
    try:
        n_samples = _num_samples(X)
    except TypeError:
        return sample_weight
    return check_point_weights(sample_weight, n_samples, "sample_weight")


_LOG = logging.getLogger(__name__)

#: fitted attributes that hold row indices of the training data (remapped when rows are dropped)
ROW_INDEX_ATTRIBUTES = ("support_", "train_indices_", "validation_indices_")


def _positive_weight_rows(X, y, sample_weight, rankable) -> np.ndarray | None:
    """Indices of the rows with positive ``sample_weight`` when some weight is zero, else None.

    None also when dropping the zero-weight rows would leave nothing to rank
    (``rankable(rows)`` is False: the fit then reports the zero pair weights) or when ``X`` and
    ``y`` disagree in length (the validation reports that).
    """
    if sample_weight is None:
        return None
    zero = np.asarray(sample_weight) == 0
    if not zero.any() or zero.all():
        return None
    try:
        if _num_samples(y) != len(zero) or _num_samples(X) != len(zero):
            return None
    except TypeError:
        return None
    rows = np.flatnonzero(~zero)
    try:
        return rows if rankable(rows) else None
    except (TypeError, ValueError):
        return None


def _take_rows(X, rows, precomputed: bool):
    """The rows ``rows`` of ``X`` (and the same columns of a precomputed kernel)."""
    if hasattr(X, "tocsr") and getattr(X, "format", "csr") not in ("csr", "csc"):
        X = X.tocsr()
    X = _safe_indexing(X, rows, axis=0)
    return _safe_indexing(X, rows, axis=1) if precomputed else X


#: fit parameters with one entry per row of ``X``: checked against its length and, when rows of
#: zero weight are dropped, taken on the remaining rows with them
ROW_FIT_PARAMS = ("groups",)


def _row_fit_params(fit_params, X, rows):
    """``fit_params`` with the per-row ones (:data:`ROW_FIT_PARAMS`) checked and taken on ``rows``."""
    params = dict(fit_params)
    for name in ROW_FIT_PARAMS:
        if params.get(name) is None:
            continue
        try:
            n_samples = _num_samples(X)
        except TypeError:
            continue  # X itself is refused by the validation
        params[name] = check_groups(params[name], n_samples, name)
        if rows is not None:
            params[name] = params[name][rows]
    return params


#: the arguments of ``fit`` that every estimator takes (not fit parameters)
_FIT_DATA = ("self", "X", "y", "sample_weight")


def fit_parameters(estimator_class) -> tuple[str, ...]:
    """The fit parameters of an estimator class: the named arguments of its ``fit`` and ``_fit``
    besides ``X``, ``y`` and ``sample_weight`` (e.g. ``groups``, ``alpha_path``).

    Examples
    --------
    >>> from aucopt import AUCSVM, LPRanker, RankSVM
    >>> from aucopt.base import fit_parameters
    >>> fit_parameters(LPRanker), fit_parameters(RankSVM), fit_parameters(AUCSVM)
    (('groups',), ('alpha_path',), ())
    """
    names = set()
    for method in (getattr(estimator_class, "fit", None), getattr(estimator_class, "_fit", None)):
        if method is None:
            continue
        names.update(p.name for p in inspect.signature(method).parameters.values()
                     if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in _FIT_DATA)
    return tuple(sorted(names))


def _estimators_taking(name: str) -> list[str]:
    """The public aucopt estimators whose ``fit`` takes the fit parameter ``name``."""
    import aucopt

    found = []
    for public in aucopt.__all__:
        obj = getattr(aucopt, public, None)
        if (inspect.isclass(obj) and issubclass(obj, BaseEstimator) and hasattr(obj, "fit")
                and name in fit_parameters(obj)):
            found.append(public)
    return sorted(found)


def _names(items) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def check_fit_params(estimator, fit_params) -> None:
    """Refuse, before any work, keyword arguments of ``fit`` that are not fit parameters of ``estimator``.

    Raises
    ------
    TypeError
        Naming the argument, the fit parameters the estimator does take, the estimators whose
        ``fit`` takes the argument, and, for one of the estimator's own constructor parameters,
        how to set it.

    Examples
    --------
    >>> from aucopt import AUCSVM
    >>> from aucopt.base import check_fit_params
    >>> check_fit_params(AUCSVM(), {"alpha_path": [1.0]})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: AUCSVM.fit() got an unexpected keyword argument 'alpha_path': ... is a fit parameter of RankRC, ...
    """
    cls = type(estimator)
    accepted = fit_parameters(cls)
    unknown = sorted(set(fit_params) - set(accepted))
    if not unknown:
        return
    name, key = cls.__name__, unknown[0]
    takes = (f"the fit parameters of {name} are {_names(accepted)}" if accepted
             else f"{name}.fit takes X, y and sample_weight only")
    message = f"{name}.fit() got an unexpected keyword argument {key!r}: {takes}."
    if key in estimator.get_params(deep=False):
        message += f" {key} is a parameter of {name}: set it with {name}({key}=...) or set_params({key}=...)."
    else:
        others = _estimators_taking(key)
        if others:
            message += f" {key} is a fit parameter of {_names(others)}."
        hint = getattr(estimator, "_fit_parameter_hints", {}).get(key)
        if hint:
            message += f" {hint}"
    raise TypeError(message)


def _fit_on_rows(estimator, X, y, sample_weight, rankable, fit_params):
    """``estimator._fit`` with the zero-weight rows removed, as if they were not in ``X``.

    A row with ``sample_weight == 0`` is dropped before anything is computed from the data
    (pairs, kernel width, basis, validation split), for a precomputed kernel its column too.
    Fitted row indices (:data:`ROW_INDEX_ATTRIBUTES`, or the estimator's
    ``_row_index_attributes``) are mapped back to rows of the ``X`` given to ``fit``, and a
    precomputed kernel keeps its full width for ``predict``. During the fit,
    ``estimator._fit_rows`` holds ``(rows, y)``: the original indices of the fitting rows (None
    for all) and the full target, so that pair options given per original row or pair apply.
    Per-row fit parameters (``groups``) are checked against the rows of ``X`` and taken on the
    fitting rows.
    """
    check_fit_params(estimator, fit_params)
    rows = _positive_weight_rows(X, y, sample_weight, rankable)
    precomputed = getattr(estimator, "kernel", None) == "precomputed"
    X_fit, y_fit, w_fit = X, y, sample_weight
    if rows is not None:
        try:
            X_fit = _take_rows(X, rows, precomputed)
        except Exception:
            rows = None
        else:
            y_fit, w_fit = y[rows], sample_weight[rows]
    fit_params = _row_fit_params(fit_params, X, rows)
    estimator._fit_rows = (rows, y)
    if _LOG.isEnabledFor(logging.INFO):
        params = estimator.get_params(deep=False)
        route = ", ".join(f"{k}={params[k]!r}" for k in ("method", "solver", "kernel", "loss") if k in params)
        _LOG.info("%s.fit: %s samples%s, route %s", type(estimator).__name__, _num_samples(X_fit),
                  "" if rows is None else f" ({_num_samples(X) - len(rows)} of zero weight dropped)", route or "-")
    try:
        estimator._fit(X_fit, y_fit, w_fit, **fit_params)
    finally:
        del estimator._fit_rows
    if rows is not None:
        for name in getattr(estimator, "_row_index_attributes", ROW_INDEX_ATTRIBUTES):
            value = getattr(estimator, name, None)
            if value is not None:
                setattr(estimator, name, rows[np.asarray(value, dtype=np.int64)])
        if precomputed:
            _check_feature_names(estimator, X, reset=True)
            estimator.n_features_in_ = _num_features(X)
    return y_fit


def check_kernel_bytes(n: int, max_bytes, *, survival: bool = False) -> None:
    """Refuse an ``n × n`` kernel matrix whose evaluation would exceed ``max_bytes``, before it is computed.

    The estimate counts the matrix and its evaluation temporaries (``aucopt._memory.kernel_bytes``);
    the message names RankRC with the largest basis that fits the budget, else RankSVM
    (``survival``: their survival variants).
    """
    from . import _memory

    _memory.refuse(_memory.kernel_bytes(n), max_bytes, f"The {n:,} x {n:,} kernel matrix",
                   lambda: _memory.kernel_ranker_routes(n, survival, max_bytes=max_bytes))


def best_accuracy_threshold(scores: np.ndarray, positive: np.ndarray, sample_weight=None) -> float:
    """Midpoint threshold τ maximizing the (weighted) training accuracy of ``scores > τ``.

    Parameters
    ----------
    scores : ndarray of shape (n_samples,)
    positive : ndarray of bool, shape (n_samples,)
    sample_weight : ndarray of shape (n_samples,) or None

    Returns
    -------
    threshold : float
        Halfway between two distinct neighbouring scores, or one unit beyond the extremes when
        predicting everything positive (or negative) is best.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.base import best_accuracy_threshold
    >>> best_accuracy_threshold(np.array([0.1, 0.2, 0.8, 0.9]), np.array([False, False, True, True]))
    0.5
    """
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
    return float(0.5 * (s[best - 1] + s[best]))


def dense(X) -> np.ndarray:
    """``X`` as a dense float array (sparse matrices are densified)."""
    return X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=float)


# ============================================================================ kernel expansions
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

    _parameter_constraints: dict = {}  # each estimator declares every parameter

    # ------------------------------------------------------------------ hooks
    @property
    def _row_index_attributes(self):
        """Fitted attributes holding training-row indices: those of the exact routes
        (``method="full"`` or ``"dcd"``, or ``method_`` after ``method="auto"`` chose one); other
        routes' expansions may index centers or a weight vector."""
        route = getattr(self, "method_", None) or getattr(self, "method", "full")
        return ("support_", "support_pairs_") if route in ("full", "dcd") else ()

    def _take_route(self, pairs: PairSet, **context) -> str:
        """The route of ``select_method(pairs, **context)``, kept in ``method_``, logged, and printed
        under ``verbose`` (for estimators whose ``method`` offers ``"auto"``)."""
        method, reason = self.select_method(pairs, **context)
        self.method_ = method
        _LOG.info("%s: %s", type(self).__name__, reason)
        if self.verbose:
            print(f"[{type(self).__name__}] {reason}", flush=True)
        return method

    def _check_model_params(self):
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

    def _solve(self, X, pairs: PairSet, kernel: Kernel) -> Solution:  # pragma: no cover - abstract
        raise NotImplementedError

    # ------------------------------------------------------------------ fit
    def _fit(self, X, y, sample_weight=None):
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

    def _expansion(self, X) -> np.ndarray:
        """The kernel expansion f(x) = Σ_{l ∈ support} dual_coef_l k(x, x_l)."""
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=np.float64, reset=False)
        if self.kernel_.precomputed:
            return dense(X)[:, self.support_] @ self.dual_coef_
        if len(self.support_) == 0:
            return np.zeros(X.shape[0])
        return self.kernel_(X, self.support_vectors_) @ self.dual_coef_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags


# ============================================================================ pair options
#: keys of a binary ranker's ``pair_options``: the pair target and, for ``"multipartite"``, the
#: order of the label values
BINARY_PAIR_OPTIONS = ("target", "levels")


def checked_pair_options(estimator, valid, targets, reason: str = "") -> tuple[str, dict]:
    """The pair target and the other options of ``estimator.pair_options``, checked.

    One vocabulary for every ranker: ``pair_options["target"]`` names the
    :class:`~aucopt.PairSet` target (default: the first of ``targets``), the other keys are the
    options of that target's constructor.

    Parameters
    ----------
    estimator : estimator with a ``pair_options`` parameter (dict or None)
    valid : sequence of str
        The keys the estimator accepts besides ``"target"``.
    targets : sequence of str
        The targets the estimator ranks, its default first.
    reason : str, default=""
        Why other targets are refused, appended to the message.

    Returns
    -------
    target : str
    options : dict
        A copy of the other options.

    Raises
    ------
    ValueError
        For an unknown key or a target the estimator does not rank.
    """
    options = dict(getattr(estimator, "pair_options", None) or {})
    name = type(estimator).__name__
    keys = ["target", *valid]
    unknown = set(options) - set(keys)
    if unknown:
        raise ValueError(f"pair_options {sorted(unknown)} unknown; valid: {keys}.")
    target = options.pop("target", targets[0])
    if target not in targets:
        if target == "survival":
            hint = f" Use Survival{name} for (event, time) targets."
        elif targets == ("survival",) and target in ("bipartite", "multipartite"):
            hint = (f" Use {name.removeprefix('Survival')}(pair_options={{'target': {target!r}}}) for "
                    f"{'ordinal' if target == 'multipartite' else 'binary'} labels.")
        else:
            hint = ""
        raise ValueError(f"pair_options['target']={target!r}: {name} ranks {' or '.join(map(repr, targets))} "
                         f"pairs.{(' ' + reason) if reason else ''}{hint}")
    return target, options


class _LabelPredict:
    """``predict`` of a binary ranker: absent (``hasattr`` is False) from a ranker of ordinal levels.

    A ranker fitted on multipartite pairs orders the samples; it learns no cut points between
    the levels, so it has no labels to predict. Accessing ``predict`` on it raises an
    ``AttributeError`` that says so.
    """

    def __init__(self, fn):
        self.fn = fn
        update_wrapper(self, fn)

    def __get__(self, obj, owner=None):
        if obj is None:
            return self.fn
        if obj._ranks_levels():
            raise AttributeError(
                f"{type(obj).__name__} with pair_options target 'multipartite' ranks ordinal levels and has no "
                "predict: a ranker orders the samples but learns no cut points between the levels. Use "
                "decision_function for the ranking scores (higher means a higher level) and score for the "
                "multipartite C-index."
            )
        return MethodType(self.fn, obj)


def label_predict(fn):
    """Decorator for a binary ranker's ``predict``: unavailable for rankers of ordinal levels."""
    return _LabelPredict(fn)


# ============================================================================ pickles
class VersionedStateMixin:
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

    def __getstate__(self):
        return {**super().__getstate__(), "_aucopt_version": __version__}

    def __setstate__(self, state):
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
    _pair_targets = ("bipartite", "multipartite")
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

    def _make_pairs(self, y, sample_weight, rows=None):
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

    def _set_target_attributes(self, scores, y, y_fit, sample_weight):
        """``classes_`` and, for binary labels, ``pos_label_``, ``threshold_`` and ``intercept_``.

        ``scores`` are the training scores of all rows ``y``; ``y_fit`` the labels of the rows
        of positive weight.
        """
        target, options = self._pair_target_options()
        if target == "multipartite":
            levels = options.get("levels")
            self.classes_ = np.unique(y_fit) if levels is None else np.asarray(levels).ravel()
            self._score_levels = levels
            for name in ("pos_label_", "threshold_", "intercept_"):
                self.__dict__.pop(name, None)  # binary attributes of an earlier fit
            return
        self.classes_ = np.unique(y_fit)
        self.pos_label_ = self.classes_[1] if self.pos_label is None else self.pos_label
        self.threshold_ = best_accuracy_threshold(scores, np.asarray(y) == self.pos_label_, sample_weight)
        sign = 1.0 if self.pos_label_ == self.classes_[1] else -1.0
        self.intercept_ = -sign * self.threshold_

    def _score_of(self, y, scores, sample_weight=None) -> float:
        """The fitted target's metric: the AUC, or the multipartite C-index for ordinal levels."""
        if self._ranks_levels():
            return multipartite_c_index(y, scores, levels=getattr(self, "_score_levels", None),
                                        sample_weight=sample_weight)
        return roc_auc(y, scores, pos_label=self.pos_label_, sample_weight=sample_weight)

    summary = _summary
    print_summary = _print_summary

    def fit(self, X, y, sample_weight=None, **fit_params):
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
        if y is not None and not is_survival_target(y):
            y = column_or_1d(y, warn=True)
        sample_weight = _sample_weight_for(X, sample_weight)
        y_fit = _fit_on_rows(self, X, y, sample_weight, lambda rows: len(np.unique(y[rows])) >= 2, fit_params)
        self._set_target_attributes(self._expansion(X), y, y_fit, sample_weight)
        self.n_samples_fit_ = len(y_fit)  # the rows with positive weight
        self.fit_time_ = _time.perf_counter() - start
        return self

    def decision_function(self, X) -> np.ndarray:
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
    def predict(self, X) -> np.ndarray:
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

    def score(self, X, y, sample_weight=None) -> float:
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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = self._ranks_levels()
        return tags


#: keyword options of :meth:`PairSet.survival` that a survival estimator's ``pair_options`` passes on:
#: the pair variant and its weights (``"weights": "ipcw"`` for Uno's censoring weights, truncated at
#: ``"tau"``), or ``"horizon"`` for the pairs of the time-dependent AUC at that time
SURVIVAL_PAIR_OPTIONS = ("variant", "censored_weight", "time_weight", "time_scale", "weights", "tau", "horizon")


def _pair_weights_on_rows(options, y_all, origin):
    """``pair_options["weights"]`` as a callable on the pairs of the rows ``origin`` of ``y_all``.

    A callable ``weights(i, j, t_i, t_j, e_i, e_j)`` receives the original row indices. An array
    is aligned with the pairs of all rows (``PairSet.survival(y_all, variant=...).to_arrays()``
    order); each pair among the rows ``origin`` keeps its own entry.
    """
    weights = options["weights"]
    if callable(weights):
        def on_rows(i, j, *rest):
            return weights(origin[i], origin[j], *rest)
        return on_rows
    event, time = survival_arrays(y_all)
    variant = options.get("variant", "harrell")
    i, j, _ = survival_pair_arrays(event, time, variant=variant,
                                   censored_weight=options.get("censored_weight", 0.5))
    u = check_finite_1d(weights, "weights")
    if len(u) != len(i):
        raise ValueError(
            f"pair_options['weights'] has {len(u)} entries but the {variant!r} pair set of the {len(event)} "
            f"rows given to fit has {len(i)} pairs (align it with PairSet.survival(y, variant={variant!r})"
            ".to_arrays() order, or pass a callable weights(i, j, t_i, t_j, e_i, e_j) of the row indices)."
        )
    n = np.int64(len(event))
    key = i.astype(np.int64) * n + j
    order = np.argsort(key, kind="stable")
    key, u = key[order], u[order]

    def on_rows(a, b, *rest):
        query = origin[a] * n + origin[b]  # every pair of a subset of the rows is a pair of all rows
        return u[np.minimum(np.searchsorted(key, query), len(key) - 1)]
    return on_rows


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

    def _make_pairs(self, y, sample_weight, rows=None):
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
            options["weights"] = _pair_weights_on_rows(options, y_all, origin)
        return PairSet.survival(y, point_weights=sample_weight, **options)

    summary = _summary
    print_summary = _print_summary

    def fit(self, X, y, sample_weight=None, **fit_params):
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
        if isinstance(y, tuple) and len(y) == 2:
            y = survival_target(*y)  # an (event, time) pair, as the structured target

        def rankable(rows):
            event, _ = survival_arrays(y[rows])
            return bool(event.any()) and len(rows) >= 2

        weights = _sample_weight_for(X, sample_weight)
        y_fit = _fit_on_rows(self, X, y, weights, rankable, fit_params)
        self.n_samples_fit_ = len(y_fit)  # the rows with positive weight
        event, time = survival_arrays(y)
        self._calibrate(self._expansion(X), time, event, weights)  # survival curves: Cox on the training scores
        self.fit_time_ = _time.perf_counter() - start
        return self

    def decision_function(self, X) -> np.ndarray:
        """Risk scores (higher = earlier event); the same as :meth:`predict`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        risk : ndarray of shape (n_samples,)
        """
        return self._expansion(X)

    def predict(self, X) -> np.ndarray:
        """Risk scores (higher = earlier event), as scikit-survival's ``predict``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        risk : ndarray of shape (n_samples,)
        """
        return self._expansion(X)

    def score(self, X, y, sample_weight=None) -> float:
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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags
