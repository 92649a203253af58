"""What every estimator's ``fit`` does before and around its solver.

* :func:`validated_data_and_pairs` — ``X`` validated and the estimator's pair set built, refusing
  empty or zero-weight pair sets (:func:`checked_pairs`);
* :func:`fit_on_rows` — rows of zero ``sample_weight`` removed before anything is computed from
  the data, and the fitted row indices mapped back to the rows given;
* :func:`fit_parameters` / :func:`check_fit_params` — the keyword arguments of ``fit`` an
  estimator takes, and an error naming the estimators that take an unknown one;
* :func:`sample_weight_for`, :func:`check_alpha_path` — the weights and the penalty path, checked.

Shared by every subpackage's estimators (and the dask routes of :mod:`aucopt.distributed`);
:mod:`aucopt.base` re-exports the names it has always exported.
"""

from __future__ import annotations

import inspect
import logging
import sys
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import _check_feature_names, _num_features, _num_samples, validate_data

from . import _memory
from ._validation import check_fit_scale, check_point_weights
from .pairs import PairSet, check_groups

__all__ = [
    "ROW_FIT_PARAMS",
    "ROW_INDEX_ATTRIBUTES",
    "check_alpha_path",
    "check_fit_params",
    "check_kernel_bytes",
    "checked_pairs",
    "dense",
    "fit_on_rows",
    "fit_parameters",
    "sample_weight_for",
    "validated_data_and_pairs",
]

#: the fit log keeps the name it has always had, under which users configure it
_LOG = logging.getLogger("aucopt.base")


def validated_data_and_pairs(estimator: BaseEstimator, X: ArrayLike, y: ArrayLike,
                             sample_weight: ArrayLike | float | None, *,
                             dtype: Any = np.float64) -> tuple[Any, PairSet]:
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
    dtype : dtype or tuple of dtypes, default=numpy.float64
        The accepted dtypes of ``X`` (``validate_data``'s ``dtype``): a tuple keeps ``X`` in any
        of them (e.g. float32, without a float64 copy) and converts other input to the first.

    Returns
    -------
    X : ndarray or sparse matrix of float64 (or of a dtype in ``dtype``)
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
    data = validate_data(estimator, X, accept_sparse=("csr", "csc"), dtype=dtype, reset=True)
    check_fit_scale(estimator, data, sample_weight)
    weights = check_point_weights(sample_weight, data.shape[0], "sample_weight")
    return data, checked_pairs(estimator, y, weights, data.shape[0])


def checked_pairs(estimator: Any, y: ArrayLike, sample_weight: np.ndarray | None, n_samples: int) -> PairSet:
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


def sample_weight_for(X: Any, sample_weight: ArrayLike | float | None) -> Any:
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


#: fitted attributes that hold row indices of the training data (remapped when rows are dropped)
ROW_INDEX_ATTRIBUTES = ("support_", "train_indices_", "validation_indices_")


def _positive_weight_rows(X: Any, y: Any, sample_weight: np.ndarray | None,
                          rankable: Callable[[np.ndarray], bool]) -> np.ndarray | None:
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


def _take_rows(X: Any, rows: np.ndarray, precomputed: bool) -> Any:
    """The rows ``rows`` of ``X`` (and the same columns of a precomputed kernel)."""
    if hasattr(X, "tocsr") and getattr(X, "format", "csr") not in ("csr", "csc"):
        X = X.tocsr()
    X = _safe_indexing(X, rows, axis=0)
    return _safe_indexing(X, rows, axis=1) if precomputed else X


#: fit parameters with one entry per row of ``X``: checked against its length and, when rows of
#: zero weight are dropped, taken on the remaining rows with them
ROW_FIT_PARAMS = ("groups",)


def _row_fit_params(fit_params: Mapping[str, Any], X: Any, rows: np.ndarray | None) -> dict[str, Any]:
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


def fit_parameters(estimator_class: type) -> tuple[str, ...]:
    """The fit parameters of an estimator class: the named arguments of its ``fit`` and ``_fit``
    besides ``X``, ``y`` and ``sample_weight`` (e.g. ``groups``, ``alpha_path``).

    Examples
    --------
    >>> from aucopt import AUCSVM, LPRanker, RankSVM
    >>> from aucopt._fitting import fit_parameters
    >>> fit_parameters(LPRanker), fit_parameters(RankSVM), fit_parameters(AUCSVM)
    (('groups',), ('alpha_path',), ())
    """
    names: set[str] = set()
    for method in (getattr(estimator_class, "fit", None), getattr(estimator_class, "_fit", None)):
        if method is None:
            continue
        names.update(p.name for p in inspect.signature(method).parameters.values()
                     if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in _FIT_DATA)
    return tuple(sorted(names))


def _estimators_taking(name: str) -> list[str]:
    """The public aucopt estimators whose ``fit`` takes the fit parameter ``name``."""
    # the package namespace, read and not imported: importing any aucopt module ran its __init__ first
    aucopt = sys.modules["aucopt"]
    found = []
    for public in aucopt.__all__:
        obj = getattr(aucopt, public, None)
        if (inspect.isclass(obj) and issubclass(obj, BaseEstimator) and hasattr(obj, "fit")
                and name in fit_parameters(obj)):
            found.append(public)
    return sorted(found)


def _names(items: Any) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def check_fit_params(estimator: BaseEstimator, fit_params: Mapping[str, Any]) -> None:
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
    >>> from aucopt._fitting import check_fit_params
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


def fit_on_rows(estimator: Any, X: Any, y: Any, sample_weight: np.ndarray | None,
                rankable: Callable[[np.ndarray], bool], fit_params: Mapping[str, Any]) -> Any:
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
    if rows is not None and sample_weight is not None:  # rows are found only where a weight is zero
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


def check_kernel_bytes(n: int, max_bytes: float | None, *, survival: bool = False) -> None:
    """Refuse an ``n × n`` kernel matrix whose evaluation would exceed ``max_bytes``, before it is computed.

    The estimate counts the matrix and its evaluation temporaries (``aucopt._memory.kernel_bytes``);
    the message names RankRC with the largest basis that fits the budget, else RankSVM
    (``survival``: their survival variants).
    """
    _memory.refuse(_memory.kernel_bytes(n), max_bytes, f"The {n:,} x {n:,} kernel matrix",
                   lambda: _memory.kernel_ranker_routes(n, survival, max_bytes=max_bytes))


def dense(X: Any) -> np.ndarray:
    """``X`` as a dense float array (sparse matrices are densified)."""
    return X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=float)


def check_alpha_path(alpha_path: ArrayLike | None) -> list[float]:
    """The penalty path as a list of floats; every value must be positive and finite.

    Examples
    --------
    >>> from aucopt._fitting import check_alpha_path
    >>> check_alpha_path([1.0, 0.1]), check_alpha_path(None)
    ([1.0, 0.1], [])
    """
    if alpha_path is None:
        return []
    path = np.asarray(alpha_path, dtype=float).ravel()
    if not np.all(np.isfinite(path) & (path > 0)):
        raise ValueError(f"alpha_path must hold positive finite penalty multipliers; got {alpha_path!r}.")
    return path.tolist()
