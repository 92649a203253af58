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

from dataclasses import dataclass, field, replace

import numpy as np

from .._validation import (
    binary_labels,
    check_consistent_length,
    check_finite_1d,
    check_point_weights,
    is_survival_target,
    survival_arrays,
)
from ..exceptions import NoComparablePairsError, check_memory

DEFAULT_MAX_BYTES = 2 * 1024**3
"""Default memory budget (2 GiB) for explicit pair arrays and assembled problems."""

BYTES_PER_PAIR = 4 + 4 + 8
"""Bytes per listed pair: int32 i, int32 j, float64 weight."""

LISTING_FIX = ("use a scalable path that never lists pairs (RankSVM / RankRC, "
               "LPRanker(method='subgradient')) or subsample")


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
    _explicit: tuple | None = field(default=None, repr=False)
    labels: np.ndarray | None = field(default=None, repr=False, compare=False)
    levels: np.ndarray | None = field(default=None, repr=False, compare=False)
    event: np.ndarray | None = field(default=None, repr=False, compare=False)
    time: np.ndarray | None = field(default=None, repr=False, compare=False)
    groups: np.ndarray | None = field(default=None, repr=False, compare=False)

    # ----------------------------------------------------------------- constructors
    @classmethod
    def bipartite(cls, y, *, pos_label=None, point_weights=None) -> PairSet:
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
        pairs = cls._from_order(
            event=positive, time=(~positive).astype(float), target="bipartite",
            point_weights=point_weights,
        )
        return replace(pairs, labels=positive.astype(np.int64),
                       levels=np.array([negative, pos_label], dtype=labels.dtype))

    @classmethod
    def survival(cls, y, time=None, *, point_weights=None, variant: str = "harrell",
                 censored_weight: float = 0.5, time_weight=None, time_scale=None, weights=None,
                 tau=None, horizon=None, max_bytes: int | None = DEFAULT_MAX_BYTES) -> PairSet:
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
        if variant not in SURVIVAL_VARIANTS:
            raise ValueError(f"variant must be one of {SURVIVAL_VARIANTS}; got {variant!r}.")
        ipcw = isinstance(weights, str)
        if ipcw and weights != "ipcw":
            raise ValueError(f"weights must be 'ipcw', a callable, an array or None; got {weights!r}.")
        if horizon is not None:
            given = [name for name, value in (("variant", variant if variant != "harrell" else None),
                                              ("time_weight", time_weight), ("time_scale", time_scale),
                                              ("tau", tau), ("weights", None if ipcw else weights))
                     if value is not None]
            if given:
                raise ValueError(
                    f"horizon={horizon!r} gives the pairs of AUC(horizon) (events up to the horizon over the "
                    f"subjects followed beyond it), weighted 1 or by weights='ipcw'; it does not combine with "
                    f"{', '.join(given)}."
                )
            pairs = cls._horizon(event, time, _positive_time(horizon, "horizon"), ipcw, point_weights)
            return replace(pairs, event=np.asarray(event, dtype=bool), time=np.asarray(time, dtype=float))
        if tau is not None and not ipcw:
            raise ValueError(
                f"tau={tau!r} is the truncation time of Uno's IPCW pairs: pass weights='ipcw' with it "
                "(pair_options={'weights': 'ipcw', 'tau': tau})."
            )
        if ipcw:
            if variant != "harrell" or time_weight is not None or time_scale is not None:
                other = f"variant={variant!r}" if variant != "harrell" else "time_weight/time_scale"
                raise ValueError(
                    f"weights='ipcw' gives Uno's weights 1/Ĝ(T_i)² on Harrell's comparable pairs; it does not "
                    f"combine with {other} (the censored-censored pairs of 'lprex' have no IPCW weight). For "
                    "other products of weights pass weights=callable(i, j, t_i, t_j, e_i, e_j)."
                )
            pairs = cls._uno(event, time, _positive_time(tau, "tau") if tau is not None else np.inf,
                             point_weights)
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
    def multipartite(cls, y, *, levels=None, point_weights=None) -> PairSet:
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
        codes, found = _ordinal_codes(y, levels)
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
    def from_target(cls, y, *, pos_label=None, point_weights=None) -> PairSet:
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
    def from_arrays(cls, i, j, weights=None, *, n_points: int, signs=None, target: str = "custom") -> PairSet:
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
        _check_nonnegative(w, "pair weights")
        if signs is None:
            signs = -np.ones(n_points)
            signs[np.unique(i)] = 1.0
        return cls(n_points=n_points, target=target, signs=np.asarray(signs, float),
                   _explicit=(i.astype(np.int32), j.astype(np.int32), w))

    @classmethod
    def _from_order(cls, *, event, time, target, point_weights) -> PairSet:
        m = len(event)
        # Sort by time, events first inside a tied time: an event's partners form a suffix.
        order = np.lexsort((~event, time))
        t_sorted = time[order]
        e_sorted = event[order]
        event_times = t_sorted[e_sorted]  # already sorted
        # searches with sorted needles (cache-friendly), then scattered back to the points
        first_at_t = np.searchsorted(t_sorted, t_sorted, side="left")
        events_at_t = np.searchsorted(event_times, t_sorted, "right") - np.searchsorted(
            event_times, t_sorted, "left"
        )
        start = np.empty(m, dtype=np.int64)
        start[order] = np.where(e_sorted, first_at_t + events_at_t, m)
        point_weights = check_point_weights(point_weights, m, "point_weights")
        signs = np.where(event, 1.0, -1.0)
        return cls(n_points=m, target=target, signs=signs, order=order, start=start,
                   point_weights=point_weights)

    @classmethod
    def _uno(cls, event, time, tau, point_weights) -> PairSet:
        """Harrell's comparable pairs of the events before ``tau``, anchor i weighted 1/Ĝ(T_i)²."""
        pairs = cls._from_order(event=event, time=time, target="survival", point_weights=point_weights)
        m = len(event)
        start = pairs.start.copy()
        start[time >= tau] = m  # Uno's truncation: the events at or after tau anchor no pair
        anchors = start < m
        if not anchors.any():
            before = "" if np.isinf(tau) else f" before tau={tau:g}"
            raise NoComparablePairsError(
                f"No comparable pairs{before}: Uno's weights need an event{before} followed by a later time (or a "
                "censored subject at the same time)" + ("." if np.isinf(tau) else "; choose a larger tau.")
            )
        a = _ipcw_anchor_factors(event, time, pairs.point_weights, pairs.order, start, power=2)
        return replace(pairs, start=start, anchor_weights=a)

    @classmethod
    def _horizon(cls, event, time, horizon, ipcw, point_weights) -> PairSet:
        """The cases (event, T ≤ horizon) over the controls (T > horizon): one shared suffix."""
        m = len(event)
        case = event & (time <= horizon)
        control = time > horizon
        follow_up = f"[{float(time.min()):g}, {float(time.max()):g})"
        if not control.any():
            raise NoComparablePairsError(
                f"horizon={horizon:g} leaves no control: nobody is followed beyond it (the largest time is "
                f"{float(time.max()):g}). Choose a horizon inside the follow-up {follow_up}, e.g. a percentile of "
                "the event times."
            )
        if not case.any():
            first = f"the first event is at {float(time[event].min()):g}" if event.any() else "there is no event"
            raise NoComparablePairsError(
                f"horizon={horizon:g} has no case: no event at or before it ({first}). Choose a horizon at or "
                f"after the first event time, inside the follow-up {follow_up}."
            )
        # cases first, then the subjects in no pair (censored before the horizon), then the controls
        order = np.argsort(np.where(case, 0, np.where(control, 2, 1)), kind="stable")
        start = np.where(case, m - int(np.count_nonzero(control)), m).astype(np.int64)
        point_weights = check_point_weights(point_weights, m, "point_weights")
        a = _ipcw_anchor_factors(event, time, point_weights, order, start, power=1) if ipcw else None
        return cls(n_points=m, target="survival", signs=np.where(case, 1.0, -1.0), order=order, start=start,
                   point_weights=point_weights, anchor_weights=a)

    def with_groups(self, groups) -> PairSet:
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
        return self.n_points - self.start

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
        w = np.ones(self.n_points) if self.point_weights is None else self.point_weights
        suffix = np.concatenate([np.cumsum(w[self.order][::-1])[::-1], [0.0]])
        wa = w if self.anchor_weights is None else w * self.anchor_weights
        return float(np.dot(wa, suffix[self.start]))

    def nbytes_explicit(self) -> int:
        """Bytes that :meth:`to_arrays` would allocate (``n_pairs * BYTES_PER_PAIR``)."""
        return self.n_pairs * BYTES_PER_PAIR

    # ----------------------------------------------------------------- enumeration
    def to_arrays(self, max_bytes: int | None = DEFAULT_MAX_BYTES):
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
            raise NoComparablePairsError(_no_pairs_message(self.target))
        from .. import _memory

        _memory.refuse(self.nbytes_explicit(), max_bytes, f"Listing {n_pairs:,} pairs of {self.n_points:,} points",
                       lambda: _memory.pair_free_routes(self.n_points, self.target == "survival", max_bytes=max_bytes))
        if self._explicit is not None:
            return self._explicit
        counts = self.partner_counts
        anchors = np.flatnonzero(counts)
        c = counts[anchors]
        i = np.repeat(anchors, c).astype(np.int32)
        # position in `order` of each pair's partner: start_i, start_i + 1, ..., m - 1
        group_start = np.repeat(np.cumsum(c) - c, c)
        pos = np.repeat(self.start[anchors], c) + (np.arange(n_pairs) - group_start)
        j = self.order[pos].astype(np.int32)
        return i, j, self._sorted_weights(i, j)

    def _sorted_weights(self, i, j) -> np.ndarray:
        """Sorted storage: the weights a_i · w_i · w_j of the pairs (i, j)."""
        w = np.ones(len(i))
        if self.point_weights is not None:
            w = self.point_weights[i] * self.point_weights[j]
        if self.anchor_weights is not None:
            w = w * self.anchor_weights[i]
        return w

    def pairs_at(self, index) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
        j = self.order[self.start[i] + (index - first[k])]
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
            raise NoComparablePairsError(_no_pairs_message(self.target))
        return self


SURVIVAL_VARIANTS = ("harrell", "lprex")
TARGETS = ("bipartite", "survival", "multipartite", "custom")

CAPPED_FLOOR = 0.01
"""Floor of the ``"capped"`` time weight, so that tied-time pairs (Δ = 0) keep a small weight."""

TIME_WEIGHTS = {
    "linear": lambda d: 1.0 + d,
    "log": lambda d: 1.0 + np.log1p(d),
    "capped": lambda d: np.clip(d, CAPPED_FLOOR, 1.0),
}
"""Named time-difference weights g(Δ) as functions of u = Δ / scale (Δ = t_j − t_i ≥ 0):
``"linear"``: 1 + u; ``"log"``: 1 + log(1 + u); ``"capped"``: min(1, max(u, CAPPED_FLOOR))."""


def survival_pair_arrays(event, time, *, variant="harrell", censored_weight=0.5, time_weight=None,
                         time_scale=None, weights=None, point_weights=None,
                         max_bytes: int | None = DEFAULT_MAX_BYTES):
    """List the pairs of a survival pair variant as ``(i, j, w)`` arrays.

    Pairs, in this enumeration order:

    1. Harrell's comparable pairs ``event_i and (t_i < t_j or (t_i == t_j and not event_j))``,
       in the order of ``PairSet.survival(event, time).to_arrays()``, base weight 1;
    2. (``variant="lprex"`` only) censored–censored pairs ``not event_i, not event_j,
       t_i < t_j``, grouped by anchor i in increasing (t_i, i), partners in increasing
       (t_j, j), base weight ``censored_weight``.

    ``w_ij = base_ij · g(t_j − t_i) · user_ij · pw_i · pw_j``, the last three factors present
    only when ``time_weight``, ``weights`` resp. ``point_weights`` are given.

    Parameters
    ----------
    event : ndarray of bool, shape (n_points,)
        Event indicators (validated).
    time : ndarray of float, shape (n_points,)
        Event or censoring times (validated).
    variant : {"harrell", "lprex"}, default="harrell"
        The pair variant.
    censored_weight : float, default=0.5
        Base weight of the censored–censored pairs of ``"lprex"``.
    time_weight : {"linear", "log", "capped"} or callable, default=None
        Named g (applied to Δ / scale, :data:`TIME_WEIGHTS`) or a callable g receiving the raw
        Δ array and returning non-negative finite values of the same shape.
    time_scale : float, default=None
        Scale of the named time weights; the median positive Δ when None.
    weights : callable or array-like, default=None
        User pair weights: ``weights(i, j, t_i, t_j, e_i, e_j)`` or an array in the order above.
    point_weights : float or array-like of shape (n_points,), default=None
        Per-point weights (a scalar weighs every point alike).
    max_bytes : float or None, default=2 GiB
        Memory budget for the listing (pair arrays and one work array).

    Returns
    -------
    i, j : ndarray of int64, shape (n_pairs,)
        The pairs.
    w : ndarray of float64, shape (n_pairs,)
        Their weights.

    Raises
    ------
    NoComparablePairsError
        When the variant has no pair.
    ProblemTooLargeError
        When the listing would exceed ``max_bytes``.

    See Also
    --------
    PairSet.survival : the pair set built from these arrays.

    References
    ----------
    .. [1] Harrell, F. E., Califf, R. M., Pryor, D. B., Lee, K. L., & Rosati, R. A. (1982).
       Evaluating the yield of medical tests. *JAMA*, 247(18), 2543–2546.
    .. [2] Ataman, K. (2007). *Learning to rank by maximizing the AUC with linear programming for
       problems with binary output*. PhD thesis, University of Iowa.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.pairs import survival_pair_arrays
    >>> i, j, w = survival_pair_arrays(np.array([True, False, False]), np.array([1.0, 2.0, 3.0]),
    ...                                variant="lprex", censored_weight=0.25)
    >>> i.tolist(), j.tolist(), w.tolist()
    ([0, 0, 1], [1, 2, 2], [1.0, 1.0, 0.25])
    """
    if variant not in SURVIVAL_VARIANTS:
        raise ValueError(f"variant must be one of {SURVIVAL_VARIANTS}; got {variant!r}.")
    if not (isinstance(censored_weight, (int, float, np.floating, np.integer))
            and not isinstance(censored_weight, bool) and np.isfinite(censored_weight)
            and censored_weight >= 0):
        raise ValueError(f"censored_weight must be a non-negative finite number; got {censored_weight!r}.")
    if time_weight is not None and not callable(time_weight) and time_weight not in TIME_WEIGHTS:
        raise ValueError(
            f"time_weight must be None, one of {tuple(TIME_WEIGHTS)} or a callable g(delta); got {time_weight!r}."
        )
    if time_scale is not None and not (np.isscalar(time_scale) and np.isfinite(time_scale) and time_scale > 0):
        raise ValueError(f"time_scale must be a positive finite number or None; got {time_scale!r}.")
    if weights is not None and not callable(weights):
        weights = check_finite_1d(weights, "weights")
    point_weights = check_point_weights(point_weights, len(event), "point_weights")
    m = len(event)
    harrell = PairSet._from_order(event=event, time=time, target="survival", point_weights=None)
    n_h = harrell.n_pairs
    # censored-censored pairs: censored sorted by (time, index); partners = strictly later times
    cens = np.flatnonzero(~event)
    cens = cens[np.argsort(time[cens], kind="stable")]
    t_c = time[cens]
    c_start = np.searchsorted(t_c, t_c, side="right")
    c_counts = len(cens) - c_start if variant == "lprex" else np.zeros(len(cens), dtype=np.int64)
    n_c = int(c_counts.sum())
    n_total = n_h + n_c
    if n_total == 0:
        raise NoComparablePairsError(_no_pairs_message("survival"))
    check_memory(n_total * (BYTES_PER_PAIR + 8), max_bytes,  # pair arrays plus one float64 work array
                 f"Listing {n_total:,} survival pairs of {m:,} points",
                 "subsample, or use the default Harrell pairs without weights (never listed)")
    if n_h:
        hi, hj, _ = harrell.to_arrays(max_bytes=None)
        hi, hj = hi.astype(np.int64), hj.astype(np.int64)
    else:
        hi = hj = np.zeros(0, dtype=np.int64)
    if n_c:
        pos = np.flatnonzero(c_counts)
        cnt = c_counts[pos]
        ci = np.repeat(cens[pos], cnt)
        group_start = np.repeat(np.cumsum(cnt) - cnt, cnt)
        cj = cens[np.repeat(c_start[pos], cnt) + (np.arange(n_c) - group_start)]
    else:
        ci = cj = np.zeros(0, dtype=np.int64)
    i = np.concatenate([hi, ci])
    j = np.concatenate([hj, cj])
    w = np.concatenate([np.ones(n_h), np.full(n_c, float(censored_weight))])
    if time_weight is not None:
        delta = time[j] - time[i]
        if callable(time_weight):
            g = np.asarray(time_weight(delta), dtype=float)
            if g.shape != delta.shape:
                g = np.broadcast_to(g, delta.shape) if g.ndim == 0 else g
            if g.shape != delta.shape:
                raise ValueError(
                    f"time_weight(delta) must return an array of shape {delta.shape}; got {g.shape}. "
                    "Write g with numpy operations (it is called once with all time gaps)."
                )
            if not np.all(np.isfinite(g)) or np.any(g < 0):
                raise ValueError("time_weight(delta) must return finite non-negative weights.")
        else:
            if time_scale is None:
                positive = delta[delta > 0]
                time_scale = float(np.median(positive)) if len(positive) else 1.0
            g = TIME_WEIGHTS[time_weight](delta / float(time_scale))
        w = w * g
    if weights is not None:
        if callable(weights):
            u = np.asarray(weights(i, j, time[i], time[j], event[i], event[j]), dtype=float)
            if u.ndim == 0:
                u = np.broadcast_to(u, i.shape)
            if u.shape != i.shape:
                raise ValueError(
                    f"weights(i, j, t_i, t_j, e_i, e_j) must return one weight per pair, shape "
                    f"{i.shape}; got {u.shape}. It is called once with the pair arrays."
                )
            if not np.all(np.isfinite(u)):
                raise ValueError("weights(...) returned NaN or infinite pair weights.")
        else:
            u = weights
            if len(u) != n_total:
                raise ValueError(
                    f"weights has {len(u)} entries but the {variant!r} pair set has {n_total} pairs "
                    "(align it with PairSet.survival(...).to_arrays() order)."
                )
        _check_nonnegative(u, "pair weights")
        w = w * u
    if point_weights is not None:
        w = w * point_weights[i] * point_weights[j]
    return i, j, w


def check_groups(groups, n_points: int, name: str = "groups") -> np.ndarray:
    """``groups`` as an int64 vector of ``n_points`` entries, or a ValueError naming ``name``.

    Integer and boolean values are taken as they are, floats only when every value is integral.
    """
    arr = np.asarray(groups)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.ravel()
    if arr.ndim != 1 or len(arr) != n_points:
        raise ValueError(f"{name} must hold one integer per sample ({n_points}); got shape {arr.shape}.")
    if arr.dtype.kind in "iub":
        return arr.astype(np.int64)
    if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
        return arr.astype(np.int64)
    raise ValueError(
        f"{name} must hold integer group indices; got values of dtype {arr.dtype}. Encode other "
        f"labels first, e.g. numpy.unique({name}, return_inverse=True)[1]."
    )


def _positive_time(value, name: str) -> float:
    """``value`` as a positive finite float, or a ValueError naming ``name``."""
    if (isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating))
            or not np.isfinite(value) or value <= 0):
        raise ValueError(f"{name} must be a positive finite time; got {value!r}.")
    return float(value)


def _ipcw_anchor_factors(event, time, point_weights, order, start, *, power: int) -> np.ndarray:
    """The factors 1/Ĝ(T_i)^power of the anchors of a sorted survival pair set (1 elsewhere).

    Anchors whose pairs all weigh 0 (a zero point weight, or partners of zero weight only) keep
    the factor 1, so that no 0 · ∞ arises; any other anchor needs Ĝ(T_i) > 0.
    """
    m = len(event)
    live = start < m
    if point_weights is not None:
        suffix = np.concatenate([np.cumsum(point_weights[order][::-1])[::-1], [0.0]])
        live &= (point_weights > 0) & (suffix[start] > 0)
    a = np.ones(m)
    if not live.any():
        return a
    g = _censoring_survival_at(event, time, point_weights, time[live])
    if np.any(g <= 0):
        at = float(time[live][g <= 0].min())
        raise ValueError(
            f"The inverse-probability-of-censoring weights are infinite for the event(s) at time {at:g}: the "
            f"censoring survival Ĝ drops to 0 there (every subject still followed at {at:g} is censored then, "
            f"and an event at the same time comes before them as a comparable pair). Truncate with tau <= {at:g} "
            "(pair_options={'weights': 'ipcw', 'tau': ...})."
        )
    a[live] = 1.0 / g ** power
    return a


def _censoring_survival_at(event, time, point_weights, t) -> np.ndarray:
    """Ĝ(t): the Kaplan–Meier estimate of the censoring survival of ``(event, time)``.

    Without point weights this is :func:`aucopt.metrics.censoring_survival` (the estimate of
    :func:`aucopt.metrics.uno_c`); with them, the same product limit over weighted counts (a
    weight k equals k repeated subjects): Ĝ(u) = Π_{u_l ≤ u} R_l / (c_l + R_l), c_l the
    censored weight at u_l and R_l the weight of the subjects followed beyond u_l (events at
    u_l leave the censoring risk set first). Right-continuous, 1 before the first time.
    """
    t = np.asarray(t, dtype=float)
    if point_weights is None:
        from .._survival_metrics import censoring_survival

        return censoring_survival((event, time)).at(t)
    order = np.argsort(time, kind="stable")
    t_sorted, w_sorted = time[order], np.asarray(point_weights, dtype=float)[order]
    unique, first = np.unique(t_sorted, return_index=True)
    censored = np.add.reduceat(np.where(event[order], 0.0, w_sorted), first)
    later = np.concatenate([np.cumsum(np.add.reduceat(w_sorted, first)[::-1])[::-1][1:], [0.0]])
    at_risk = censored + later
    factor = np.where(at_risk > 0, later / np.where(at_risk > 0, at_risk, 1.0), 1.0)
    survival = np.cumprod(factor)
    idx = np.searchsorted(unique, t, side="right") - 1
    return np.where(idx >= 0, survival[np.maximum(idx, 0)], 1.0)


def _check_nonnegative(w, name):
    if np.any(w < 0):
        raise ValueError(f"{name} must be non-negative; found {int(np.sum(w < 0))} negative value(s).")


def _ordinal_codes(y, levels=None) -> tuple[np.ndarray, list]:
    """Dense level codes 0, 1, ... (int64, in level order) of ordinal labels ``y`` and the list
    of the levels present, lowest first."""
    if y is None:
        raise ValueError("y is None; multipartite pairs need one ordinal label per point.")
    if is_survival_target(y):
        raise ValueError("y is a survival target; use PairSet.survival for (event, time) targets.")
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"y must be 1-dimensional ordinal labels, got shape {arr.shape}.")
    if arr.dtype.kind in "fc" and not np.all(np.isfinite(arr)):
        raise ValueError(
            f"y contains {int(np.sum(~np.isfinite(arr)))} NaN or infinite label(s); drop those points "
            "or give them a level."
        )
    try:
        labels, inverse = np.unique(arr, return_inverse=True)
    except TypeError as exc:  # an object array mixing e.g. int and str labels
        kinds = sorted({type(v).__name__ for v in arr.tolist()})
        raise ValueError(
            f"y mixes label types ({', '.join(kinds)}), which cannot be ordered; use labels of one "
            "type, or give their order with levels=[lowest, ..., highest]."
        ) from exc
    inverse = inverse.ravel().astype(np.int64)
    if levels is None:
        return inverse, labels.tolist()
    levels = list(np.asarray(levels, dtype=object).ravel())
    position = {}
    for k, level in enumerate(levels):
        if level in position:
            raise ValueError(f"levels lists {level!r} twice; give each level once, lowest first.")
        position[level] = k
    missing = [v for v in labels.tolist() if v not in position]
    if missing:
        raise ValueError(
            f"y has label(s) {missing[:6]} that are not in levels={levels}; add them to levels "
            "(lowest first) or drop those points."
        )
    rank = np.array([position[v] for v in labels.tolist()], dtype=np.int64)
    present = np.unique(rank)  # levels that occur, lowest first
    dense = np.searchsorted(present, rank)
    return dense[inverse], [levels[k] for k in present]


def _no_pairs_message(target: str) -> str:
    if target == "survival":
        return (
            "The survival target has no comparable pairs (a pair needs an observed event "
            "before another subject's event or censoring time); e.g. all subjects are censored."
        )
    return "The pair set is empty: there is no pair (i, j) requiring f(x_i) > f(x_j)."
