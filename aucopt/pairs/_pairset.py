"""Pair sets: which (i, j) must satisfy f(x_i) > f(x_j), and with what weight.

A :class:`PairSet` has a *target* — what the pairs mean — and a *storage* — how they are held:

* target ``"bipartite"``: positives over negatives, the pairs of the AUC (Hanley & McNeil 1982;
  Ataman 2007, eq. 3.3);
* target ``"survival"``: Harrell's comparable pairs (Harrell et al. 1982), or a variant of them
  (Ataman 2007, Table 5.3): ``(i, j)`` with ``event_i`` and ``(t_i < t_j or (t_i == t_j and not
  event_j))``;
* target ``"multipartite"``: ordinal levels, one pair for every point of a higher level over
  every point of a lower level (Fürnkranz, Hüllermeier & Vanderlooy 2009); bipartite pairs are
  the case of two levels;
* target ``"custom"``: any user-listed pairs.

* storage ``"sorted"``: an *ordered-suffix* structure. The points are sorted once (``order``);
  each *anchor* point i owns the contiguous suffix ``order[start_i:]`` as its partners j.
  Bipartite pairs are the special case ``event = y``, ``time = 1 - y`` of survival ordering;
  for survival pairs, sorting by time with events before censored subjects inside a tied time
  makes each event's partners a suffix starting at ``first(t_i) + events_at(t_i)``. Counting is
  O(m log m) without listing pairs, and the same structure feeds the sorted-pair core
  (:mod:`aucopt.pairs.core`). For multipartite pairs, sorting by level, highest first, makes
  the partners of a point of level ℓ (every point of a lower level) the suffix starting after
  the last point of level ℓ;
* storage ``"explicit"``: index and weight arrays ``(i, j, w)``.

``to_arrays`` lists pairs explicitly (for the LP/QP builders), refusing with
:class:`~aucopt.exceptions.ProblemTooLargeError` when that would exceed a memory budget.

Weights: ``point_weights`` gives product-form pair weights ``w_ij = w_i * w_j`` (cluster sizes,
Ataman 2007, eq. 4.1); :meth:`PairSet.from_arrays` takes arbitrary per-pair weights. The survival
variants — ``variant="lprex"`` (Harrell's pairs plus censored–censored pairs with weight 0.5),
time-difference weights ``time_weight=`` and user pair weights ``weights=`` — are explicit pair
sets listed by :func:`survival_pair_arrays`; the unweighted default stays sorted. Weights that
depend on the earlier point of a pair only stay sorted too: ``anchor_weights`` multiplies each
anchor's pairs by a factor a_i (pair weight a_i · w_i · w_j), which is how Uno's
inverse-probability-of-censoring weights (``weights="ipcw"``) and the case weights of a
horizon pair set (``horizon=τ``, the pairs of the cumulative/dynamic AUC(τ)) are held.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validation import (
    binary_labels,
    check_consistent_length,
    check_finite_1d,
    check_point_weights,
    is_survival_target,
    survival_arrays,
)
from ..exceptions import NoComparablePairsError
from ._labels import check_groups, ordinal_codes
from ._storage import BYTES_PER_PAIR, DEFAULT_MAX_BYTES, check_nonnegative, list_suffix_pairs, no_pairs_message
from ._survival import (
    bipartite_suffixes,
    check_survival_options,
    harrell_suffixes,
    horizon_suffixes,
    ipcw_anchor_factors,
    positive_time,
    survival_pair_arrays,
    truncated_suffixes,
)

TARGETS = ("bipartite", "survival", "multipartite", "custom")


@dataclass(frozen=True)
class PairSet:
    """Pairs (i, j) with weights w_ij, each requiring f(x_i) > f(x_j).

    Build pair sets with the constructors :meth:`bipartite`, :meth:`survival`,
    :meth:`multipartite`, :meth:`from_target` and :meth:`from_arrays`; the fields below are what
    they fill in.

    Parameters
    ----------
    n_points : int
        Number of points m the indices refer to.
    target : {"bipartite", "survival", "multipartite", "custom"}
        What the pairs mean: positives over negatives, Harrell's comparable pairs (or a variant
        of them), higher ordinal levels over lower ones, or user-listed pairs.
    signs : ndarray of shape (n_points,)
        Per-point label sign y_l ∈ {−1, +1} used by sign-constrained expansions (positives,
        events and points above the lowest ordinal level +1; negatives, censored subjects and
        points of the lowest level −1).
    order : ndarray of shape (n_points,), default=None
        Sorted storage: the point order; ``None`` for explicit pairs.
    start : ndarray of shape (n_points,), default=None
        Sorted storage: anchor i's partners are ``order[start[i]:]``; non-anchors have
        ``start = m``. ``None`` for explicit pairs.
    point_weights : ndarray of shape (n_points,), default=None
        Sorted storage: per-point weights, the pair weight being their product; None for 1.
    anchor_weights : ndarray of shape (n_points,), default=None
        Sorted storage: a factor a_i per anchor, multiplying every pair (i, j) of anchor i, so
        that the pair weight is a_i · w_i · w_j (entries of points that are no anchor are not
        used); None for 1. A weight that depends on the earlier point of a pair only — Uno's
        1/Ĝ(T_i)² — is held this way without listing the pairs.
    labels : ndarray of int64, shape (n_points,), default=None
        The data the pairs were built from, for formulations that read it (``Model.labels``):
        each point's level index, its position in ``levels`` (bipartite: 0 for negatives, 1
        for positives; multipartite: the position of its label in the level order). None for
        survival and listed pairs.
    levels : ndarray of shape (n_levels,), default=None
        The label values in level order, lowest first (bipartite: ``[negative, positive]``), so
        that ``levels[labels]`` are the labels as given. None with ``labels``.
    event : ndarray of bool, shape (n_points,), default=None
        Survival pairs: the event indicators they were built from; None otherwise.
    time : ndarray of float, shape (n_points,), default=None
        Survival pairs: the event or censoring times; None otherwise.
    groups : ndarray of int64, shape (n_points,), default=None
        One integer group index per point, attached with :meth:`with_groups` (estimators:
        ``fit(X, y, groups=...)``); None when none was given.

    Attributes
    ----------
    storage : {"sorted", "explicit"}
        How the pairs are held: the ordered-suffix structure (never listed) or index arrays.
    n_pairs : int
        Number of pairs, counted without listing them.
    partner_counts : ndarray of shape (n_points,)
        Number of partners j of each point i.

    See Also
    --------
    aucopt.pairs.core.pair_loss : pairwise losses over any pair set in O(m log m).
    aucopt.modeling.Model : builds LP/QP rows from a pair set.

    Notes
    -----
    With events e and times t, Harrell's comparable pairs are

        {(i, j) : e_i and (t_i < t_j or (t_i = t_j and not e_j))},

    the pairs on which Harrell's concordance index is defined [2]_; bipartite pairs are the
    case e = y, t = 1 − y, so that the fraction of correctly ordered pairs is the AUC [3]_. The
    variant ``"lprex"`` adds the censored–censored pairs (i, j) with t_i < t_j at a reduced
    weight [1]_. With ordinal levels y, the multipartite pairs are {(i, j) : y_i > y_j}, the
    pairs of the concordance index of multipartite ranking [4]_.

    References
    ----------
    .. [1] Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming for
       problems with binary output*. PhD thesis, University of Iowa.
    .. [2] Harrell, F. E., Califf, R. M., Pryor, D. B., Lee, K. L., & Rosati, R. A. (1982).
       Evaluating the yield of medical tests. *JAMA*, 247(18), 2543–2546.
    .. [3] Hanley, J. A., & McNeil, B. J. (1982). The meaning and use of the area under a receiver
       operating characteristic (ROC) curve. *Radiology*, 143(1), 29–36.
    .. [4] Fürnkranz, J., Hüllermeier, E., & Vanderlooy, S. (2009). Binary decomposition methods
       for multipartite ranking. *Machine Learning and Knowledge Discovery in Databases (ECML
       PKDD 2009)*, LNCS 5781, 359–374.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> pairs = PairSet.bipartite([1, 0, 1, 0, 0])
    >>> pairs.target, pairs.storage, pairs.n_pairs
    ('bipartite', 'sorted', 6)
    >>> i, j, w = pairs.to_arrays()
    >>> [(int(a), int(b)) for a, b in zip(i, j)]
    [(0, 1), (0, 3), (0, 4), (2, 1), (2, 3), (2, 4)]
    >>> PairSet.survival([True, False, True], [1.0, 2.0, 3.0]).n_pairs
    2
    >>> PairSet.multipartite([2, 0, 1, 1]).n_pairs
    5
    """

    n_points: int
    target: str
    signs: np.ndarray
    order: np.ndarray | None = None
    start: np.ndarray | None = None
    point_weights: np.ndarray | None = None
    anchor_weights: np.ndarray | None = None
    _explicit: tuple[np.ndarray, np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    labels: np.ndarray | None = field(default=None, repr=False, compare=False)
    levels: np.ndarray | None = field(default=None, repr=False, compare=False)
    event: np.ndarray | None = field(default=None, repr=False, compare=False)
    time: np.ndarray | None = field(default=None, repr=False, compare=False)
    groups: np.ndarray | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if (self._explicit is None) == (self.order is None or self.start is None):
            raise ValueError("A PairSet holds either sorted storage (order and start) or explicit pairs "
                             "(_explicit), exactly one of them; build it with its constructors "
                             "(PairSet.bipartite, .survival, .multipartite, .from_arrays).")

    # ----------------------------------------------------------------- constructors
    @classmethod
    def bipartite(cls, y: ArrayLike, *, pos_label: Any = None,
                  point_weights: float | ArrayLike | None = None) -> PairSet:
        """Positives × negatives from binary labels.

        Parameters
        ----------
        y : array-like of shape (n_points,)
            Binary labels: {0, 1}, {−1, 1}, bool or any two values.
        pos_label : label, default=None
            The positive class; the larger label when None.
        point_weights : float or array-like of shape (n_points,), default=None
            Non-negative per-point weights; the pair weight is w_i · w_j. A scalar weighs every
            point alike.

        Returns
        -------
        PairSet
            ``target="bipartite"``, ``storage="sorted"``; signs +1 for positives, −1 otherwise.

        Raises
        ------
        ValueError
            For labels that are not binary (one class, three classes, NaN) or an unknown
            ``pos_label``.

        Examples
        --------
        >>> from aucopt import PairSet
        >>> pairs = PairSet.bipartite(["sick", "well", "well"], pos_label="sick")
        >>> pairs.n_pairs, pairs.signs.tolist()
        (2, [1.0, -1.0, -1.0])
        """
        positive, pos_label = binary_labels(y, pos_label)
        labels = np.asarray(y).reshape(-1)
        negative = labels[np.argmin(positive)]  # the first negative (both classes occur)
        order, start = bipartite_suffixes(positive)  # Harrell's pairs of event = y, time = 1 - y
        m = len(positive)
        return cls(n_points=m, target="bipartite", signs=np.where(positive, 1.0, -1.0), order=order, start=start,
                   point_weights=check_point_weights(point_weights, m, "point_weights"),
                   labels=positive.astype(np.int64), levels=np.array([negative, pos_label], dtype=labels.dtype))

    @classmethod
    def survival(cls, y: Any, time: ArrayLike | None = None, *, point_weights: float | ArrayLike | None = None,
                 variant: str = "harrell", censored_weight: float = 0.5,
                 time_weight: str | Callable[..., Any] | None = None, time_scale: float | None = None,
                 weights: str | Callable[..., Any] | ArrayLike | None = None, tau: float | None = None,
                 horizon: float | None = None, max_bytes: float | None = DEFAULT_MAX_BYTES) -> PairSet:
        """Harrell's comparable pairs, or a variant of them, from a survival target.

        With the defaults (``variant="harrell"``, no ``time_weight``, no ``weights``) this is the
        ordered-suffix structure (``storage="sorted"``, never listed); so are Uno's weights
        (``weights="ipcw"``, optionally truncated at ``tau``) and the horizon pair set
        (``horizon=τ``), whose weights depend on the earlier subject only
        (:attr:`anchor_weights`). The other options return an explicit pair set
        (``storage="explicit"``), listed vectorized by :func:`survival_pair_arrays` (which gives
        the exact pairs, their order and the weight ``w_ij``, a product of the factors below),
        and refused beyond ``max_bytes``. Signs are +1 for events and −1 for censored subjects
        (horizon pairs: +1 for the cases, −1 for every other subject).

        Parameters
        ----------
        y : structured array, tuple (event, time) or array-like of bool
            A survival target (``aucopt.survival_target``, scikit-survival's ``Surv``, a
            ``(event, time)`` pair), or the event indicators when ``time`` is given.
        time : array-like of shape (n_points,), default=None
            Non-negative event or censoring times, when ``y`` holds only the events.
        point_weights : float or array-like of shape (n_points,), default=None
            Per-point weights; the pair weight is multiplied by w_i · w_j. A scalar weighs every
            point alike.
        variant : {"harrell", "lprex"}, default="harrell"
            ``"lprex"`` adds the censored–censored pairs (i, j) with t_i < t_j (the shorter
            event-free time ranks higher) with weight ``censored_weight`` (Ataman 2007,
            Table 5.3).
        censored_weight : float, default=0.5
            Weight of the added censored–censored pairs.
        time_weight : {"linear", "log", "capped"} or callable, default=None
            Multiplies w_ij by g(Δ_ij), Δ_ij = t_j − t_i ≥ 0 (see :data:`TIME_WEIGHTS`); a
            callable g receives the array of all Δ.
        time_scale : float, default=None
            Positive scale s of the named time weights (applied to Δ / s); the median of the
            positive Δ_ij when None.
        weights : "ipcw", callable or array-like, default=None
            User pair weights, multiplied in: ``weights(i, j, t_i, t_j, e_i, e_j) -> w`` called
            once with the pair arrays, or an array aligned with the pair enumeration order.
            ``"ipcw"``: Uno's inverse-probability-of-censoring weights, 1/Ĝ(T_i)² for every
            comparable pair (i, j) of Harrell's set (1/Ĝ(T_i) for the cases of a horizon pair
            set), Ĝ the Kaplan–Meier estimate of the censoring survival of these subjects
            (weighted by ``point_weights`` when given), read at T_i as
            :func:`aucopt.metrics.uno_c` does; the weighted fraction of concordant pairs is
            then Uno's C (:func:`aucopt.metrics.uno_c` with ``y`` as ``y_train`` and ``y_test``).
            Stays sorted; not with ``variant="lprex"``, ``time_weight`` or ``time_scale``.
        tau : float, default=None
            With ``weights="ipcw"``: Uno's truncation, only the pairs whose event time is before
            ``tau`` (T_i < tau); the others are left out. None: no truncation.
        horizon : float, default=None
            The pairs of the cumulative/dynamic AUC at time τ = ``horizon`` instead of Harrell's:
            every *case* (an event at T_i ≤ τ) over every *control* (T_j > τ), weight 1, or
            1/Ĝ(T_i) with ``weights="ipcw"`` (the weights of
            :func:`aucopt.metrics.cumulative_dynamic_auc`). One shared suffix of controls:
            ``storage="sorted"``, O(m) per sweep of the pair core. Only with ``weights`` None
            or ``"ipcw"`` and no other option.
        max_bytes : float or None, default=2 GiB
            Memory budget for listing an explicit variant.

        Returns
        -------
        PairSet
            ``target="survival"``.

        Raises
        ------
        NoComparablePairsError
            When an explicit variant has no pair (e.g. every subject censored), no event comes
            before ``tau``, or the horizon has no case or no control (it must lie inside the
            follow-up, at or after the first event and before the largest time).
        ProblemTooLargeError
            When listing an explicit variant would exceed ``max_bytes``.
        ValueError
            For a ``tau`` or ``horizon`` that is not a positive finite time, options that do
            not combine (``tau`` without ``weights="ipcw"``; ``"ipcw"`` with ``"lprex"`` or a
            time weight; ``horizon`` with ``variant``, ``time_weight``, ``tau`` or user pair
            weights), or Uno's weights where Ĝ(T_i) = 0: an event tied with a censoring at the
            largest time (truncate with ``tau`` at or before that time).

        Notes
        -----
        Uno's weights make the weighted pair loss a consistent estimate of its censoring-free
        population counterpart under independent censoring [2]_; the horizon pair set trains
        for the time-dependent AUC(τ) [3]_. Ĝ is estimated from the subjects of this pair set
        only: fitting an estimator on part of its rows (zero ``sample_weight``, a validation
        split) estimates Ĝ on the rows fitted.

        References
        ----------
        .. [1] Harrell, F. E., Califf, R. M., Pryor, D. B., Lee, K. L., & Rosati, R. A. (1982).
           Evaluating the yield of medical tests. *JAMA*, 247(18), 2543–2546.
        .. [2] Uno, H., Cai, T., Pencina, M. J., D'Agostino, R. B., & Wei, L. J. (2011). On the
           C-statistics for evaluating overall adequacy of risk prediction procedures with
           censored survival data. *Statistics in Medicine*, 30(10), 1105–1117.
        .. [3] Uno, H., Cai, T., Tian, L., & Wei, L. J. (2007). Evaluating prediction rules for
           t-year survivors with censored regression models. *Journal of the American
           Statistical Association*, 102(478), 527–537.

        Examples
        --------
        >>> from aucopt import PairSet
        >>> event, time = [True, False, False, True], [2.0, 3.0, 5.0, 1.0]
        >>> PairSet.survival(event, time).n_pairs
        5
        >>> lprex = PairSet.survival(event, time, variant="lprex")
        >>> lprex.storage, lprex.n_pairs, lprex.total_weight()
        ('explicit', 6, 5.5)
        >>> horizon = PairSet.survival(event, time, horizon=2.5)  # events by 2.5 over the later times
        >>> i, j, w = horizon.to_arrays()
        >>> [(int(a), int(b)) for a, b in zip(i, j)]
        [(0, 1), (0, 2), (3, 1), (3, 2)]

        Uno's weights 1/Ĝ(T_i)² (Ĝ = 3/4 after the censoring at time 2):

        >>> uno = PairSet.survival([True, False, True, True, False], [1.0, 2.0, 3.0, 4.0, 5.0], weights="ipcw")
        >>> uno.storage, uno.n_pairs, uno.to_arrays()[2].round(4).tolist()
        ('sorted', 7, [1.0, 1.0, 1.0, 1.0, 1.7778, 1.7778, 1.7778])
        """
        event, time = survival_arrays(y, time)
        ipcw = check_survival_options(variant=variant, time_weight=time_weight, time_scale=time_scale,
                                      weights=weights, tau=tau, horizon=horizon)
        if horizon is not None:
            pairs = cls._horizon(event, time, positive_time(horizon, "horizon"), ipcw, point_weights)
        elif ipcw:
            pairs = cls._uno(event, time, positive_time(tau, "tau") if tau is not None else np.inf, point_weights)
        elif variant == "harrell" and time_weight is None and weights is None:
            pairs = cls._from_order(event=event, time=time, target="survival", point_weights=point_weights)
        else:
            i, j, w = survival_pair_arrays(
                event, time, variant=variant, censored_weight=censored_weight, time_weight=time_weight,
                time_scale=time_scale, weights=weights, point_weights=point_weights, max_bytes=max_bytes,
            )
            pairs = cls.from_arrays(i, j, w, n_points=len(event), signs=np.where(event, 1.0, -1.0),
                                    target="survival")
        return replace(pairs, event=np.asarray(event, dtype=bool), time=np.asarray(time, dtype=float))

    @classmethod
    def multipartite(cls, y: ArrayLike, *, levels: Sequence[Any] | ArrayLike | None = None,
                     point_weights: float | ArrayLike | None = None) -> PairSet:
        """Every point of a higher ordinal level over every point of a lower level.

        The pairs of multipartite (ordinal) ranking [1]_: with ordered levels y, one pair
        (i, j) for every ``y_i > y_j``; points on the same level form no pair. Stored sorted
        (never listed): by level, highest first, the partners of a point are every point of
        the lower levels, a suffix of that order. With two levels this is :meth:`bipartite`.

        Parameters
        ----------
        y : array-like of shape (n_points,)
            Ordinal labels: numbers, strings or any values of one sortable type, ordered as
            sorted (or as listed in ``levels``).
        levels : sequence, default=None
            The levels from lowest to highest, e.g. ``["mild", "moderate", "severe"]``, when
            the sorted order of the labels is not the intended one; every label of ``y`` must be
            one of them. The sorted distinct labels when None.
        point_weights : float or array-like of shape (n_points,), default=None
            Non-negative per-point weights; the pair weight is w_i · w_j. A scalar weighs every
            point alike.

        Returns
        -------
        PairSet
            ``target="multipartite"``, ``storage="sorted"``; signs −1 for the points of the
            lowest level present and +1 for every other point.

        Raises
        ------
        NoComparablePairsError
            When ``y`` has fewer than two distinct levels (no pair); the message names the
            levels found.
        ValueError
            For a survival target, a ``y`` that is not 1-dimensional, NaN or infinite labels,
            labels of mixed types, duplicated ``levels`` or a label missing from ``levels``.

        See Also
        --------
        bipartite : the case of two levels.
        aucopt.metrics.multipartite_c_index : the concordance index over these pairs.

        Notes
        -----
        The signs matter only for expansions with sign-constrained coefficients,
        ``f = Σ_l y_l α_l k(·, x_l)`` with α ≥ 0: every point that ranks above some other
        point (a point of a level above the lowest) gets +1, as for events in survival pair
        sets and as :meth:`from_arrays` assigns them to listed pairs. Formulations with free
        signs do not use them.

        References
        ----------
        .. [1] Fürnkranz, J., Hüllermeier, E., & Vanderlooy, S. (2009). Binary decomposition
           methods for multipartite ranking. *Machine Learning and Knowledge Discovery in
           Databases (ECML PKDD 2009)*, LNCS 5781, 359–374.

        Examples
        --------
        >>> from aucopt import PairSet
        >>> pairs = PairSet.multipartite([2, 0, 1, 1])
        >>> pairs.target, pairs.storage, pairs.n_pairs
        ('multipartite', 'sorted', 5)
        >>> i, j, w = pairs.to_arrays()
        >>> [(int(a), int(b)) for a, b in zip(i, j)]
        [(0, 2), (0, 3), (0, 1), (2, 1), (3, 1)]
        >>> grades = PairSet.multipartite(["mild", "severe", "moderate"],
        ...                               levels=["mild", "moderate", "severe"])
        >>> grades.n_pairs, grades.signs.tolist()
        (3, [-1.0, 1.0, 1.0])
        """
        codes, found = ordinal_codes(y, levels)
        m = len(codes)
        if len(found) < 2:
            raise NoComparablePairsError(
                f"y has {len(found)} distinct level(s) {found}{' (one class only)' if len(found) == 1 else ''}; "
                "multipartite pairs need at least two ordered levels (a pair is a point of a higher level "
                "over a point of a lower one). Pass labels of at least two different levels."
            )
        order = np.argsort(-codes, kind="stable")  # highest level first, ties by point index
        # a point of level l has as partners every point of a lower level: the suffix that starts
        # after the n_ge[l] points of level >= l (the lowest level: start = m, no partner)
        n_ge = np.cumsum(np.bincount(codes, minlength=len(found))[::-1])[::-1]
        start = n_ge[codes].astype(np.int64)
        point_weights = check_point_weights(point_weights, m, "point_weights")
        signs = np.where(codes > 0, 1.0, -1.0)
        if levels is None:
            all_levels, index = found, np.arange(len(found))
        else:  # the level index counts every given level, present or not
            all_levels = list(np.asarray(levels, dtype=object).ravel())
            position = {level: k for k, level in enumerate(all_levels)}
            index = np.array([position[level] for level in found], dtype=np.int64)
        return cls(n_points=m, target="multipartite", signs=signs, order=order, start=start,
                   point_weights=point_weights, labels=index[codes].astype(np.int64),
                   levels=np.array(all_levels))

    @classmethod
    def from_target(cls, y: Any, *, pos_label: Any = None,
                    point_weights: float | ArrayLike | None = None) -> PairSet:
        """Survival pairs for a survival target, bipartite pairs for binary labels.

        Parameters
        ----------
        y : array-like, structured array or tuple (event, time)
            Binary labels, or a survival target (structured array or ``(event, time)``).
        pos_label : label, default=None
            The positive class of binary labels.
        point_weights : float or array-like of shape (n_points,), default=None
            Per-point weights (a scalar weighs every point alike).

        Returns
        -------
        PairSet
            :meth:`survival` for a survival target, else :meth:`bipartite`.

        Examples
        --------
        >>> import numpy as np
        >>> from aucopt import PairSet
        >>> PairSet.from_target([0, 1, 1]).target
        'bipartite'
        >>> PairSet.from_target((np.array([True, False]), np.array([1.0, 2.0]))).target
        'survival'
        """
        if is_survival_target(y):
            return cls.survival(y, point_weights=point_weights)
        return cls.bipartite(y, pos_label=pos_label, point_weights=point_weights)

    @classmethod
    def from_arrays(cls, i: ArrayLike, j: ArrayLike, weights: ArrayLike | None = None, *, n_points: int,
                    signs: ArrayLike | None = None, target: str = "custom") -> PairSet:
        """Explicit pairs from index arrays.

        Parameters
        ----------
        i, j : array-like of int, shape (n_pairs,)
            The pairs: f(x_i) > f(x_j) is required for each k, ``i[k] != j[k]``.
        weights : array-like of shape (n_pairs,), default=None
            Non-negative pair weights (1 when None).
        n_points : int
            Number of points; indices lie in [0, n_points).
        signs : array-like of shape (n_points,), default=None
            Label signs; +1 for points that appear first in some pair, −1 otherwise, when None.
        target : {"custom", "bipartite", "survival"}, default="custom"
            What the pairs mean.

        Returns
        -------
        PairSet
            ``storage="explicit"``.

        Raises
        ------
        ValueError
            For indices out of range, a pair (i, i), negative or non-finite weights, or
            arrays of different lengths.

        Examples
        --------
        >>> from aucopt import PairSet
        >>> pairs = PairSet.from_arrays([0, 2], [1, 1], [1.0, 0.5], n_points=3)
        >>> pairs.storage, pairs.target, pairs.total_weight(), pairs.signs.tolist()
        ('explicit', 'custom', 1.5, [1.0, -1.0, 1.0])
        """
        if target not in TARGETS:
            raise ValueError(f"target must be one of {TARGETS}; got {target!r}.")
        i = np.asarray(i, dtype=np.int64).ravel()
        j = np.asarray(j, dtype=np.int64).ravel()
        check_consistent_length(i=i, j=j)
        if len(i) and (min(i.min(), j.min()) < 0 or max(i.max(), j.max()) >= n_points):
            raise ValueError(f"Pair indices must lie in [0, {n_points}).")
        if np.any(i == j):
            raise ValueError("A pair (i, i) cannot require f(x_i) > f(x_i).")
        w = np.ones(len(i)) if weights is None else check_finite_1d(weights, "weights")
        check_consistent_length(i=i, weights=w)
        check_nonnegative(w, "pair weights")
        if signs is None:
            signs = -np.ones(n_points)
            signs[np.unique(i)] = 1.0
        return cls(n_points=n_points, target=target, signs=np.asarray(signs, float),
                   _explicit=(i.astype(np.int32), j.astype(np.int32), w))

    @classmethod
    def _from_order(cls, *, event: np.ndarray, time: np.ndarray, target: str,
                    point_weights: float | ArrayLike | None) -> PairSet:
        """Harrell's comparable pairs, sorted storage."""
        order, start = harrell_suffixes(event, time)
        m = len(event)
        return cls(n_points=m, target=target, signs=np.where(event, 1.0, -1.0), order=order, start=start,
                   point_weights=check_point_weights(point_weights, m, "point_weights"))

    @classmethod
    def _uno(cls, event: np.ndarray, time: np.ndarray, tau: float,
             point_weights: float | ArrayLike | None) -> PairSet:
        """Harrell's comparable pairs of the events before ``tau``, anchor i weighted 1/Ĝ(T_i)²."""
        pairs = cls._from_order(event=event, time=time, target="survival", point_weights=point_weights)
        order, start = pairs._suffixes()
        start = truncated_suffixes(start, time, tau)
        a = ipcw_anchor_factors(event, time, pairs.point_weights, order, start, power=2)
        return replace(pairs, start=start, anchor_weights=a)

    @classmethod
    def _horizon(cls, event: np.ndarray, time: np.ndarray, horizon: float, ipcw: bool,
                 point_weights: float | ArrayLike | None) -> PairSet:
        """The cases (event, T ≤ horizon) over the controls (T > horizon): one shared suffix."""
        order, start, case = horizon_suffixes(event, time, horizon)
        point_weights = check_point_weights(point_weights, len(event), "point_weights")
        a = ipcw_anchor_factors(event, time, point_weights, order, start, power=1) if ipcw else None
        return cls(n_points=len(event), target="survival", signs=np.where(case, 1.0, -1.0), order=order,
                   start=start, point_weights=point_weights, anchor_weights=a)

    def with_groups(self, groups: ArrayLike | None) -> PairSet:
        """The same pairs carrying one integer group index per point (``Model.groups``).

        Group memberships (a protected attribute, a site, a cluster) are data about the points,
        not about the pairs: they travel with the pair set so that a formulation reads them as
        ``m.groups``, as it reads the labels as ``m.labels``. Estimators attach them from
        ``fit(X, y, groups=...)``.

        Parameters
        ----------
        groups : array-like of int, shape (n_points,) or None
            One integer per point (integral floats and booleans are converted); None removes them.

        Returns
        -------
        PairSet
            A copy sharing the pair storage, with ``groups`` set.

        Raises
        ------
        ValueError
            For a length other than ``n_points``, or values that are not integers.

        Examples
        --------
        >>> from aucopt import PairSet
        >>> PairSet.bipartite([1, 0, 0, 1]).with_groups([0, 1, 1, 0]).groups.tolist()
        [0, 1, 1, 0]
        """
        return replace(self, groups=None if groups is None else check_groups(groups, self.n_points))

    # ----------------------------------------------------------------- counting
    @property
    def storage(self) -> str:
        """How the pairs are held: ``"sorted"`` (ordered-suffix structure) or ``"explicit"`` (arrays)."""
        return "sorted" if self._explicit is None else "explicit"

    @property
    def partner_counts(self) -> np.ndarray:
        """Number of partners j of each point i (0 for non-anchors), without enumeration."""
        if self._explicit is not None:
            return np.bincount(self._explicit[0], minlength=self.n_points)
        return self.n_points - self._suffixes()[1]

    def _derived(self, key: str, build: Callable[[PairSet], Any]) -> Any:
        """``build(self)``, built at the first call and kept: the pair set is frozen, so what is
        derived from it stays valid (the sorted-pair core's :class:`~aucopt.pairs._setup.SuffixPlan`,
        shared by every evaluation on these pairs). Kept out of pickles and copies."""
        derived = self.__dict__.setdefault("_derived_cache", {})  # frozen: no attribute assignment
        if key not in derived:
            derived[key] = build(self)
        return derived[key]

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop("_derived_cache", None)
        return state

    def _suffixes(self) -> tuple[np.ndarray, np.ndarray]:
        """Sorted storage: ``(order, start)``, anchor i's partners being ``order[start[i]:]``."""
        if self.order is None or self.start is None:
            raise ValueError("explicit pairs have no ordered suffixes (storage='explicit').")
        return self.order, self.start

    def _first_positions(self) -> np.ndarray:
        """Sorted storage: the position of each point's first pair in :meth:`to_arrays` order
        (anchors in point order, so an exclusive cumulative sum of :attr:`partner_counts`)."""
        counts = self.partner_counts
        return np.cumsum(counts) - counts

    @property
    def n_pairs(self) -> int:
        """Number of pairs, computed in O(m log m) without listing them."""
        if self._explicit is not None:
            return len(self._explicit[0])
        return int(self.partner_counts.sum())

    def total_weight(self) -> float:
        """Sum of pair weights N = Σ w_ij, without enumeration for sorted storage.

        Returns
        -------
        float
            N (the number of pairs when every weight is 1).

        Examples
        --------
        >>> from aucopt import PairSet
        >>> PairSet.bipartite([1, 0, 0], point_weights=[2.0, 1.0, 0.5]).total_weight()
        3.0
        """
        if self._explicit is not None:
            return float(self._explicit[2].sum())
        if self.point_weights is None and self.anchor_weights is None:
            return float(self.n_pairs)
        order, start = self._suffixes()
        w = np.ones(self.n_points) if self.point_weights is None else self.point_weights
        suffix = np.concatenate([np.cumsum(w[order][::-1])[::-1], [0.0]])
        wa = w if self.anchor_weights is None else w * self.anchor_weights
        return float(np.dot(wa, suffix[start]))

    def nbytes_explicit(self) -> int:
        """Bytes that :meth:`to_arrays` would allocate (``n_pairs * BYTES_PER_PAIR``)."""
        return self.n_pairs * BYTES_PER_PAIR

    # ----------------------------------------------------------------- enumeration
    def to_arrays(self, max_bytes: float | None = DEFAULT_MAX_BYTES) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """List the pairs as ``(i, j, w)`` arrays, anchor by anchor.

        Parameters
        ----------
        max_bytes : float or None, default=2 GiB
            Memory budget for the arrays; None disables the check.

        Returns
        -------
        i, j : ndarray of int32, shape (n_pairs,)
            The pairs.
        w : ndarray of float64, shape (n_pairs,)
            Their weights.

        Raises
        ------
        NoComparablePairsError
            When the set is empty.
        ProblemTooLargeError
            When the arrays would exceed ``max_bytes``; the message names the pair count and the
            scalable paths that never list pairs.

        Examples
        --------
        >>> from aucopt import PairSet
        >>> i, j, w = PairSet.survival([True, True, False], [1.0, 2.0, 2.0]).to_arrays()
        >>> i.tolist(), j.tolist(), w.tolist()
        ([0, 0, 1], [1, 2, 2], [1.0, 1.0, 1.0])
        """
        n_pairs = self.n_pairs
        if n_pairs == 0:
            raise NoComparablePairsError(no_pairs_message(self.target))
        from .. import _memory

        _memory.refuse(self.nbytes_explicit(), max_bytes, f"Listing {n_pairs:,} pairs of {self.n_points:,} points",
                       lambda: _memory.pair_free_routes(self.n_points, self.target == "survival", max_bytes=max_bytes))
        if self._explicit is not None:
            return self._explicit
        i, j = list_suffix_pairs(*self._suffixes())
        i, j = i.astype(np.int32), j.astype(np.int32)
        return i, j, self._sorted_weights(i, j)

    def _sorted_weights(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Sorted storage: the weights a_i · w_i · w_j of the pairs (i, j)."""
        w = np.ones(len(i))
        if self.point_weights is not None:
            w = self.point_weights[i] * self.point_weights[j]
        if self.anchor_weights is not None:
            w = w * self.anchor_weights[i]
        return w

    def pairs_at(self, index: ArrayLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The pairs at given positions of the :meth:`to_arrays` order, without listing the others.

        Parameters
        ----------
        index : array-like of int
            Positions in [0, n_pairs).

        Returns
        -------
        i, j : ndarray of int32
            The pairs at those positions.
        w : ndarray of float64
            Their weights.

        Notes
        -----
        O(len(index) · log m) for sorted storage.

        Examples
        --------
        >>> from aucopt import PairSet
        >>> i, j, w = PairSet.bipartite([1, 0, 1, 0, 0]).pairs_at([5, 0])
        >>> i.tolist(), j.tolist()
        ([2, 0], [4, 1])
        """
        index = np.asarray(index, dtype=np.int64).ravel()
        n_pairs = self.n_pairs
        if len(index) and (index.min() < 0 or index.max() >= n_pairs):
            raise ValueError(f"pair positions must lie in [0, {n_pairs}).")
        if self._explicit is not None:
            i, j, w = self._explicit
            return i[index], j[index], w[index]
        anchors = np.flatnonzero(self.partner_counts)
        first = self._first_positions()[anchors]  # position of each anchor's first pair
        k = np.searchsorted(first, index, side="right") - 1
        i = anchors[k]
        order, start = self._suffixes()
        j = order[start[i] + (index - first[k])]
        return i.astype(np.int32), j.astype(np.int32), self._sorted_weights(i, j)

    def check_nonempty(self) -> PairSet:
        """Return self, or raise when there is no pair to learn from.

        Returns
        -------
        PairSet
            ``self``.

        Raises
        ------
        NoComparablePairsError
            When ``n_pairs == 0`` (one class only; no comparable survival pair).

        Examples
        --------
        >>> from aucopt import PairSet
        >>> PairSet.bipartite([0, 1]).check_nonempty().n_pairs
        1
        """
        if self.n_pairs == 0:
            raise NoComparablePairsError(no_pairs_message(self.target))
        return self


