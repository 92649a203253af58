"""The shared set-up of the sorted-pair core (:mod:`aucopt.pairs.core` states the mathematics).

:class:`PairCore` validates the inputs of one (pairs, f) and builds, once per ``f``, the state
every compiled sweep reads: dense score ranks, exact rank thresholds per loss breakpoint,
anchors grouped by suffix start, everything permuted to time order. :func:`scan_violators`
prepares the one compiled scan of :func:`aucopt.pairs.core.violated_pairs`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from .. import _threads
from .._lazy import lazy_module
from .._validation import check_finite_1d
from ._pairset import PairSet

_compiled = lazy_module("aucopt.pairs._compiled")  # numba: imported at the first evaluation
_sweeps = lazy_module("aucopt.pairs._sweeps")
_merge = lazy_module("aucopt.pairs._merge")

INT = np.int64
_EMPTY = np.zeros(0)


class Piece(NamedTuple):
    """ℓ(z) = d0 + d1 t + d2 t² with t = 1 - z, on ``lower <= z < upper`` (``lower`` may be -inf)."""

    lower: float
    upper: float
    d0: float
    d1: float
    d2: float


def piece_arrays(cuts: list, pieces: Sequence[Piece]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cut indices (``-1``: lower = -inf) and coefficients ``(d0, d1, d2)`` of ``pieces``."""
    plo = np.array([-1 if p.lower == -np.inf else cuts.index(p.lower) for p in pieces], dtype=np.int64)
    phi = np.array([cuts.index(p.upper) for p in pieces], dtype=np.int64)
    coef = np.array([[p.d0, p.d1, p.d2] for p in pieces], dtype=float).reshape(len(pieces), 3)
    return plo, phi, coef


def cuts_of(pieces: Iterable[Piece]) -> list:
    """The finite piece boundaries, ascending."""
    pieces = list(pieces)
    return sorted({p.upper for p in pieces} | {p.lower for p in pieces} - {-np.inf})


def checked_scores(pairs: PairSet, f: ArrayLike) -> np.ndarray:
    """``f`` as contiguous finite float64 scores of the pair set's points (one compiled signature)."""
    if not isinstance(pairs, PairSet):
        raise TypeError(f"pairs must be a PairSet, got {type(pairs).__name__}.")
    f = np.ascontiguousarray(check_finite_1d(f, "f"), dtype=float)
    if len(f) != pairs.n_points:
        raise ValueError(f"f has {len(f)} entries but the pair set has {pairs.n_points} points.")
    return f


def vec(x: np.ndarray | None) -> np.ndarray:
    """``x``, or an empty array for None (the compiled kernels take no None)."""
    return _EMPTY if x is None else x


class SuffixPlan:
    """The part of the sorted-pair state that depends on the pair set only, not on the scores.

    The time order, the anchors grouped by suffix start (``apos[aptr[p]:aptr[p + 1]]``, their
    starts ``astart``) and the point weights in time order (empty arrays: weight 1). Built once
    per pair set and kept on it (:func:`suffix_plan`): every :class:`PairCore` on the same pairs,
    one per score vector, shares it.
    """

    def __init__(self, pairs: PairSet):
        m = pairs.n_points
        if m >= 2**31 - 1:
            raise ValueError(f"The sorted-pair core handles fewer than 2**31 - 1 points; got {m:,}.")
        order, start = pairs._suffixes()
        self.m = m
        self.order = np.ascontiguousarray(order, dtype=INT)
        self.aptr, self.apos, self.astart = _sweeps.anchor_lists(np.asarray(start, dtype=INT)[self.order])
        self.n_anchors = len(self.apos)
        self.smin = int(self.astart[0]) if self.n_anchors else m
        # one shared suffix (bipartite pairs): the matmat kernels take a prefix-sum path
        self.s0 = self.smin if self.n_anchors and int(self.astart[-1]) == self.smin else -1
        # ... and when its anchors are the positions before it (apos increasing: apos == arange),
        # the sweeps are merges of the anchors and the partners in score order (aucopt.pairs._merge)
        self.merge = self.s0 >= self.n_anchors > 0 and int(self.apos[-1]) == self.n_anchors - 1
        pw, aw = pairs.point_weights, pairs.anchor_weights
        # per-position weights (time order): the sweeps then read memory sequentially
        self.w_pos = _EMPTY if pw is None else np.ascontiguousarray(np.asarray(pw, dtype=float)[self.order])
        if aw is None:
            self.wa_pos = self.w_pos
        else:
            wa = np.asarray(aw, dtype=float) if pw is None else np.asarray(pw, dtype=float) * aw
            self.wa_pos = np.ascontiguousarray(wa[self.order])
        self._positions: np.ndarray | None = None
        if self.merge:  # the merge sweeps read the points' roles and weights in point order
            self.role = np.zeros(m, np.int8)
            self.role[self.order[:self.n_anchors]] = 1
            self.role[self.order[self.s0:]] = 2
            self.w_pt = _EMPTY if pw is None else np.ascontiguousarray(pw, dtype=float)
            self.wa_pt = self.w_pt if aw is None else np.ascontiguousarray(wa, dtype=float)

    def positions(self) -> np.ndarray:
        """Each point's position in the time order (the inverse of ``order``; built on first use)."""
        if self._positions is None:
            self._positions = np.empty(self.m, dtype=INT)
            self._positions[self.order] = np.arange(self.m, dtype=INT)
        return self._positions

    def dense_weights(self) -> tuple[np.ndarray, np.ndarray]:
        """The partner-side and anchor-side weights in time order as full arrays (ones when absent)."""
        w = self.w_pos if len(self.w_pos) else np.ones(self.m)
        wa = self.wa_pos if len(self.wa_pos) else w
        return w, wa


def suffix_plan(pairs: PairSet) -> SuffixPlan:
    """The :class:`SuffixPlan` of a sorted pair set, built once and kept on the pair set, so that the
    one-off evaluations of a solver (each line-search step) do not rebuild it every call."""
    return pairs._derived("suffix_plan", SuffixPlan)


class PairCore:
    """Validated inputs plus the compiled state of one (pairs, f), built once per ``f`` and reused by
    every sweep (loss, Hessian product, counts, line derivatives); ``plan`` is the
    :class:`SuffixPlan` of ``pairs`` (:func:`suffix_plan`).

    For one shared suffix whose anchors come first (``plan.merge``: bipartite pairs and the like),
    the state is the anchors and the partners in ascending score order and the sweeps are merges
    (:mod:`aucopt.pairs._merge`, ``O(m)`` after the sort); otherwise it is the score ranks, the
    exact rank thresholds per breakpoint and the per-block lists of the blocked Fenwick sweeps
    (:mod:`aucopt.pairs._sweeps`), which :meth:`ranks` also builds on demand for a merge core (for
    :func:`aucopt.pairs._compiled.matmat`)."""

    def __init__(self, pairs: PairSet, f: ArrayLike, cuts: Iterable[float]):
        f = checked_scores(pairs, f)
        m = pairs.n_points
        self.m = m
        self.explicit = pairs._explicit is not None
        if pairs._explicit is not None:
            i, j, w = pairs._explicit
            self.i, self.j = i.astype(INT), j.astype(INT)
            self.wij = np.asarray(w, float)
            self.z = f[self.i] - f[self.j]
            return
        self.cuts = sorted(set(cuts))
        self.plan = suffix_plan(pairs)
        self.order, self.n_anchors, self.s0 = self.plan.order, self.plan.n_anchors, self.plan.s0
        self.merge = self.plan.merge
        if self.n_anchors == 0:
            return
        self._f: np.ndarray | None = f  # a merge core ranks f on demand (ranks())
        self._ranked = False
        if self.merge:
            self._merge_lists(f)
        else:
            self.ranks()
            self._f = None

    @property
    def aptr(self) -> np.ndarray:
        """Anchors grouped by suffix start (see :class:`SuffixPlan`)."""
        return self.plan.aptr

    @property
    def apos(self) -> np.ndarray:
        """Positions of the anchors, grouped by suffix start."""
        return self.plan.apos

    def _merge_lists(self, f: np.ndarray) -> None:
        """The anchors and the partners in ascending score order: scores, point indices and weights
        (filled by halves on two threads from the packed-key sort of ``f``)."""
        p, m = self.plan, self.m
        keys, shift = _sweeps.sorted_keys(f)
        na, npt = p.n_anchors, m - p.s0
        self.A_val, self.A_pt = np.empty(na), np.empty(na, INT)
        self.P_val, self.P_pt = np.empty(npt), np.empty(npt, INT)

        def fill(lo: int, hi: int, ia: int, ip: int) -> None:
            _merge.fill_lists(keys, shift, p.role, f, lo, hi, ia, ip, self.A_val, self.A_pt, self.P_val, self.P_pt)

        if _threads.threaded(m):
            h = m // 2
            ia, ip = _merge.role_counts(keys, shift, p.role, 0, h)
            _threads.run_together(lambda: fill(0, h, 0, 0), lambda: fill(h, m, ia, ip))
        else:
            fill(0, m, 0, 0)
        self.A_w = _sweeps.in_time_order(p.wa_pt, self.A_pt) if len(p.wa_pt) else _EMPTY
        self.P_w = _sweeps.in_time_order(p.w_pt, self.P_pt) if len(p.w_pt) else _EMPTY
        # sums use scores centred by a constant (exact invariance of L, c, Q; smaller roundoff);
        # pair membership always uses the raw float64 z = f_i - f_j
        self.centre = 0.5 * (f.max() + f.min())

    def blocked_layout(self, NA: np.ndarray, NP: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The Hessian's sums of a merge sweep (list order) in the blocked sweeps' layout (per anchor
        index, which is the anchor's position here, and per position)."""
        pos = self.plan.positions()
        NA_b, NP_b = np.zeros(self.n_anchors), np.zeros(self.m)
        NA_b[pos[self.A_pt]] = NA
        NP_b[pos[self.P_pt]] = NP[:len(self.P_pt)]
        return NA_b, NP_b

    def ranks(self) -> PairCore:
        """Build (once) the score ranks, the rank thresholds and the block lists of the blocked sweeps."""
        if self._ranked:
            return self
        m, f = self.m, self._f
        assert f is not None  # kept until the ranks are built
        lo, hi = f.min(), f.max()
        if lo == hi:  # one distinct score (the start at θ = 0): nothing to sort
            f_pos, self.rank, uniq = np.zeros(m), np.zeros(m, np.int32), f[:1].copy()
        else:
            f_pos = _sweeps.in_time_order(f, self.order)  # scores in time order
            self.rank, uniq = _sweeps.score_ranks(f_pos)
        self.n_uniq = len(uniq)
        self.shift = _sweeps.block_shift(self.n_uniq)
        points: tuple = ()
        thresholds: tuple = ()

        def by_points() -> None:
            nonlocal points
            points = _sweeps.point_lists(self.rank, self.plan.smin, self.n_uniq, self.shift)

        def by_thresholds() -> None:
            nonlocal thresholds
            self.yA = _sweeps.anchor_thresholds(uniq, np.asarray(self.cuts, dtype=float).reshape(-1), self.rank,
                                                self.plan.apos)
            thresholds = _sweeps.threshold_lists(self.yA, self.n_uniq, self.shift, self.plan.astart)

        if _threads.threaded(m):  # the two halves of the per-block lists, on two threads
            _threads.run_together(by_thresholds, by_points)
        else:
            by_thresholds()
            by_points()
        self.lists = points + thresholds
        # sums use scores centred by a constant (see _merge_lists; one distinct score: zeros already)
        if self.n_uniq > 1:
            f_pos -= 0.5 * (hi + lo)
        self.g_pos = f_pos
        self._ranked = True
        return self

    def set_blocks(self, shift: int | None = None) -> None:
        """Sweep by the blocked Fenwick sweeps with blocks of ``2**shift`` ranks (any ``shift`` in
        [0, 16] gives the same sums; the default, about half the bits of ``n_uniq``, keeps both
        trees in cache), also for a merge core."""
        self.ranks()
        self.merge = False
        self.shift = _sweeps.block_shift(self.n_uniq) if shift is None else int(shift)
        self.lists = _sweeps.bucket_lists(self.rank, self.plan.smin, self.yA, self.n_uniq, self.shift,
                                          self.plan.astart)

    def sweep(self, pieces: Sequence[Piece], mode: int, k_fwd: int, k_adj: int, v: np.ndarray | None = None,
              NA: np.ndarray | None = None, NP: np.ndarray | None = None,
              out: np.ndarray | None = None) -> np.ndarray:
        """One compiled call: forward and/or adjoint sweep for ``pieces``; returns ``acc``
        (the summed scalars of the mode). ``NA`` (per anchor) and ``NP`` (per position) are written
        in the LOSS and COUNTS modes (pass zeros) and read in the MATVEC mode; ``out`` (point
        order) is added to."""
        plo, phi, coef = piece_arrays(self.cuts, pieces)
        acc = np.zeros(3)
        if self.merge:
            self._merge_sweep(plo, phi, coef, mode, k_fwd, k_adj, v, vec(NA), vec(NP), vec(out), acc)
            return acc
        p = self.plan
        _sweeps.sweep(p.order, p.aptr, p.apos, p.smin, self.rank, self.yA, self.n_uniq, self.shift,
                      self.lists, plo, phi, coef, self.g_pos, p.w_pos, p.wa_pos, vec(v), mode, k_fwd, k_adj,
                      vec(NA), vec(NP), vec(out), acc)
        return acc

    def _merge_sweep(self, plo: np.ndarray, phi: np.ndarray, coef: np.ndarray, mode: int, k_fwd: int, k_adj: int,
                     v: np.ndarray | None, NA: np.ndarray, NP: np.ndarray, out: np.ndarray, acc: np.ndarray) -> None:
        """:meth:`sweep` by the merge sweeps. The direction is gathered in list order; the forward and
        the adjoint merge, each followed by the scatter of its terms to point order (disjoint
        entries of ``out``), run on two threads. ``NA`` and ``NP`` hold list order, except the
        partner counts (COUNTS), which go to ``NP`` by position."""
        cuts = np.asarray(self.cuts, dtype=float).reshape(-1)
        na, npt = len(self.A_pt), len(self.P_pt)
        A_v = P_v = _EMPTY
        if v is not None:
            A_v, P_v = _sweeps.in_time_order(v, self.A_pt), _sweeps.in_time_order(v, self.P_pt)
        outA = np.empty(na if len(out) else 0)
        outP = np.empty(npt if len(out) else 0)
        counts = mode == _compiled.COUNTS and len(NP)
        NP_list = np.zeros(npt) if counts else NP[:npt]

        def forward() -> None:
            _merge.merge_forward(cuts, plo, phi, coef, mode, self.centre, self.A_val, self.A_w, A_v, self.P_val,
                                 self.P_w, P_v, NA, outA, acc)
            if len(outA):
                _sweeps.scatter_add(self.A_pt, outA, out, 0, na)

        def adjoint() -> None:
            _merge.merge_adjoint(cuts, plo, phi, coef, mode, self.centre, self.A_val, self.A_w, A_v, self.P_val,
                                 self.P_w, P_v, NP_list, outP)
            if len(outP):
                _sweeps.scatter_add(self.P_pt, outP, out, 0, npt)

        _threads.run_both(adjoint, forward, self.m, first_on=bool(k_adj), second_on=bool(k_fwd))
        if counts:
            NP[self.plan.positions()[self.P_pt]] = NP_list


def side_weights(pairs: PairSet) -> tuple[np.ndarray, np.ndarray]:
    """Sorted storage's weights in point order: ``w`` of each point as a partner and ``wa`` as an
    anchor (``w`` times the anchor factors), so that pair (i, j) weighs ``wa_i w_j``."""
    m = pairs.n_points
    w = np.ones(m) if pairs.point_weights is None else np.ascontiguousarray(pairs.point_weights, dtype=float)
    return w, (w if pairs.anchor_weights is None else np.ascontiguousarray(w * pairs.anchor_weights))


def scan_violators(pairs: PairSet, f: np.ndarray, skip: np.ndarray, threshold: float,
                   k: int) -> tuple[int, np.ndarray, np.ndarray]:
    """One compiled scan over the pairs: the number of pairs with ``f_i - f_j < threshold`` (positive
    weight, not skipped) and, per point and side, the ``k`` smallest margins and their positions
    (``(m, k)`` buffers, upper side then lower side, concatenated and flattened)."""
    m = pairs.n_points
    up_z, lo_z = np.full((m, k), np.inf), np.full((m, k), np.inf)
    up_p, lo_p = np.full((m, k), -1, dtype=INT), np.full((m, k), -1, dtype=INT)
    if pairs._explicit is not None:
        i, j, w = pairs._explicit
        total = _compiled.violators_explicit(np.ascontiguousarray(i, dtype=INT), np.ascontiguousarray(j, dtype=INT),
                                             np.ascontiguousarray(w, dtype=float), f, skip, float(threshold),
                                             up_z, up_p, lo_z, lo_p)
    else:
        order, start = pairs._suffixes()
        first = pairs._first_positions().astype(INT)
        w, wa = side_weights(pairs)
        total = _compiled.violators_sorted(np.ascontiguousarray(order, dtype=INT),
                                           np.ascontiguousarray(start, dtype=INT), first, f, w, wa, skip,
                                           float(threshold), up_z, up_p, lo_z, lo_p)
    return int(total), np.concatenate([up_p.ravel(), lo_p.ravel()]), np.concatenate([up_z.ravel(), lo_z.ravel()])
