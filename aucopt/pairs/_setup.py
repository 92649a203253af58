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
    per pair set: :class:`PairCore` builds one per call unless given one, and a solver that
    evaluates many score vectors on the same pairs keeps one for all of them.
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
        pw, aw = pairs.point_weights, pairs.anchor_weights
        # per-position weights (time order): the sweeps then read memory sequentially
        self.w_pos = _EMPTY if pw is None else np.ascontiguousarray(np.asarray(pw, dtype=float)[self.order])
        if aw is None:
            self.wa_pos = self.w_pos
        else:
            wa = np.asarray(aw, dtype=float) if pw is None else np.asarray(pw, dtype=float) * aw
            self.wa_pos = np.ascontiguousarray(wa[self.order])

    def dense_weights(self) -> tuple[np.ndarray, np.ndarray]:
        """The partner-side and anchor-side weights in time order as full arrays (ones when absent)."""
        w = self.w_pos if len(self.w_pos) else np.ones(self.m)
        wa = self.wa_pos if len(self.wa_pos) else w
        return w, wa


class PairCore:
    """Validated inputs plus the compiled state of one (pairs, f): score ranks, exact rank
    thresholds per breakpoint, the per-block lists of the blocked sweeps. Built once per ``f``;
    every sweep (loss, Hessian product, counts, line derivatives) reuses it. ``plan`` (the
    :class:`SuffixPlan` of ``pairs``) is built when not given."""

    def __init__(self, pairs: PairSet, f: ArrayLike, cuts: Iterable[float], plan: SuffixPlan | None = None):
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
        self.plan = SuffixPlan(pairs) if plan is None else plan
        self.order, self.n_anchors, self.s0 = self.plan.order, self.plan.n_anchors, self.plan.s0
        if self.n_anchors == 0:
            return
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
            thresholds = _sweeps.threshold_lists(self.yA, self.n_uniq, self.shift)

        if _threads.threaded(m):  # the two halves of the per-block lists, on two threads
            _threads.run_together(by_thresholds, by_points)
        else:
            by_thresholds()
            by_points()
        self.lists = points + thresholds
        # sums use scores centred by a constant (exact invariance of L, c, Q; smaller roundoff);
        # pair membership always uses the raw float64 z = f_i - f_j (the ranks and thresholds above).
        f_pos -= 0.5 * (f.max() + f.min())
        self.g_pos = f_pos

    @property
    def aptr(self) -> np.ndarray:
        """Anchors grouped by suffix start (see :class:`SuffixPlan`)."""
        return self.plan.aptr

    @property
    def apos(self) -> np.ndarray:
        """Positions of the anchors, grouped by suffix start."""
        return self.plan.apos

    def set_blocks(self, shift: int) -> None:
        """(Re)build the per-block lists of the blocked sweeps for blocks of ``2**shift`` ranks (any
        ``shift`` in [0, 16] gives the same sums; the default, about half the bits of ``n_uniq``,
        keeps both trees in cache)."""
        self.shift = int(shift)
        self.lists = _sweeps.bucket_lists(self.rank, self.plan.smin, self.yA, self.n_uniq, self.shift)

    def sweep(self, pieces: Sequence[Piece], mode: int, k_fwd: int, k_adj: int, v: np.ndarray | None = None,
              NA: np.ndarray | None = None, NP: np.ndarray | None = None,
              out: np.ndarray | None = None) -> np.ndarray:
        """One compiled call: forward and/or adjoint sweep for ``pieces``; returns ``acc``
        (the summed scalars of the mode). ``NA`` (per anchor) and ``NP`` (per position) are written
        in the LOSS and COUNTS modes (pass zeros) and read in the MATVEC mode; ``out`` (point
        order) is added to."""
        plo, phi, coef = piece_arrays(self.cuts, pieces)
        acc = np.zeros(3)
        p = self.plan
        _sweeps.sweep(p.order, p.aptr, p.apos, p.astart, p.smin, self.rank, self.yA, self.n_uniq, self.shift,
                      self.lists, plo, phi, coef, self.g_pos, p.w_pos, p.wa_pos, vec(v), mode, k_fwd, k_adj,
                      vec(NA), vec(NP), vec(out), acc)
        return acc


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
        w = np.ones(m) if pairs.point_weights is None else np.ascontiguousarray(pairs.point_weights, dtype=float)
        wa = w if pairs.anchor_weights is None else np.ascontiguousarray(w * pairs.anchor_weights)
        total = _compiled.violators_sorted(np.ascontiguousarray(order, dtype=INT),
                                           np.ascontiguousarray(start, dtype=INT), first, f, w, wa, skip,
                                           float(threshold), up_z, up_p, lo_z, lo_p)
    return int(total), np.concatenate([up_p.ravel(), lo_p.ravel()]), np.concatenate([up_z.ravel(), lo_z.ravel()])
