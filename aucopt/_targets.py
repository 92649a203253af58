"""What a ranker's labels mean: the pair options of binary and survival targets, and the binary cut.

* :func:`checked_pair_options` — one ``pair_options`` vocabulary for every ranker (the
  :class:`~aucopt.PairSet` target and its constructor's options);
* :func:`pair_weights_on_rows` — user pair weights, given for the rows passed to ``fit``, on a
  subset of them;
* :func:`label_predict` — a binary ranker's ``predict``, absent for a ranker of ordinal levels;
* :func:`best_accuracy_threshold` — the score cut of ``predict``.

Used by the target mixins of :mod:`aucopt.base`, which re-exports these names.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import update_wrapper
from types import MethodType
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike

from ._lazy import lazy_module
from ._validation import check_finite_1d, survival_arrays
from .pairs import survival_pair_arrays, time_order

_metrics_numba = lazy_module("aucopt._metrics_numba")  # numba: the cut of COMPILED_CUT_FROM scores or more
#: scores from which the best cut is found by one compiled pass (below: numpy's cumulative sum)
COMPILED_CUT_FROM = 1 << 16

__all__ = [
    "BINARY_PAIR_OPTIONS",
    "SURVIVAL_PAIR_OPTIONS",
    "best_accuracy_threshold",
    "checked_pair_options",
    "label_predict",
    "pair_weights_on_rows",
]


def best_accuracy_threshold(scores: np.ndarray, positive: np.ndarray, sample_weight: ArrayLike | None = None) -> float:
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
    >>> from aucopt._targets import best_accuracy_threshold
    >>> best_accuracy_threshold(np.array([0.1, 0.2, 0.8, 0.9]), np.array([False, False, True, True]))
    0.5
    """
    if sample_weight is not None:
        weight = np.asarray(sample_weight, float)
        scores, positive, weight = scores[weight > 0], positive[weight > 0], weight[weight > 0]
    # the order inside a run of equal scores is immaterial (cuts fall between runs); the pair sets'
    # stable sort, by packed integer keys from 65,536 scores on, is about three times numpy's argsort
    order = time_order(np.asarray(scores, dtype=float))
    if len(order) >= COMPILED_CUT_FROM:  # the same cut in one compiled pass along the order
        k, first, below, above = _metrics_numba.accuracy_cut(
            order, np.ascontiguousarray(scores, dtype=float), np.ascontiguousarray(positive, dtype=bool),
            np.empty(0) if sample_weight is None else np.ascontiguousarray(weight, dtype=float))
        if k == 0:
            return float(first) - 1.0
        return float(below) + 1.0 if k == len(order) else float(0.5 * (below + above))
    s, pos = scores[order], positive[order]
    # predict + for indices ≥ k: correct = negative weight below k + positive weight from k on,
    # i.e. (total positive weight) + Σ_{<k} (negative − positive weight)
    signed = np.where(pos, -1.0, 1.0) if sample_weight is None else np.where(pos, -weight[order], weight[order])
    gain = np.empty(len(s) + 1)
    gain[0] = 0.0
    np.cumsum(signed, out=gain[1:])
    ks = np.concatenate([[0], np.flatnonzero(s[1:] > s[:-1]) + 1, [len(s)]])  # cut between distinct values
    best = ks[np.argmax(gain[ks])]
    if best == 0:  # everything positive: a finite cut below the smallest score
        return float(s[0]) - 1.0
    if best == len(s):
        return float(s[-1]) + 1.0
    return float(0.5 * (s[best - 1] + s[best]))


#: keys of a binary ranker's ``pair_options``: the pair target and, for ``"multipartite"``, the
#: order of the label values
BINARY_PAIR_OPTIONS = ("target", "levels")


def checked_pair_options(estimator: Any, valid: Sequence[str], targets: Sequence[str],
                         reason: str = "") -> tuple[str, dict]:
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

    def __init__(self, fn: Callable[..., Any]):
        self.fn = fn
        update_wrapper(cast(Callable[..., Any], self), fn)  # a descriptor standing for fn: its name, doc, __wrapped__

    def __get__(self, obj: Any, owner: type | None = None) -> Callable[..., Any]:
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


def label_predict(fn: Callable[..., Any]) -> _LabelPredict:
    """Decorator for a binary ranker's ``predict``: unavailable for rankers of ordinal levels."""
    return _LabelPredict(fn)


#: keyword options of :meth:`PairSet.survival` that a survival estimator's ``pair_options`` passes on:
#: the pair variant and its weights (``"weights": "ipcw"`` for Uno's censoring weights, truncated at
#: ``"tau"``), or ``"horizon"`` for the pairs of the time-dependent AUC at that time
SURVIVAL_PAIR_OPTIONS = ("variant", "censored_weight", "time_weight", "time_scale", "weights", "tau", "horizon")


def pair_weights_on_rows(options: dict, y_all: Any, origin: np.ndarray) -> Callable[..., np.ndarray]:
    """``pair_options["weights"]`` as a callable on the pairs of the rows ``origin`` of ``y_all``.

    A callable ``weights(i, j, t_i, t_j, e_i, e_j)`` receives the original row indices. An array
    is aligned with the pairs of all rows (``PairSet.survival(y_all, variant=...).to_arrays()``
    order); each pair among the rows ``origin`` keeps its own entry.
    """
    weights = options["weights"]
    if callable(weights):
        def on_original_rows(i: np.ndarray, j: np.ndarray, *rest: np.ndarray) -> np.ndarray:
            return weights(origin[i], origin[j], *rest)
        return on_original_rows
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

    def on_rows(a: np.ndarray, b: np.ndarray, *rest: np.ndarray) -> np.ndarray:
        query = origin[a] * n + origin[b]  # every pair of a subset of the rows is a pair of all rows
        return u[np.minimum(np.searchsorted(key, query), len(key) - 1)]
    return on_rows


