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

from .._validation import check_finite_1d
from . import _compiled
from ._pairset import PairSet

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


class PairCore:
    """Validated inputs plus the compiled state of one (pairs, f): score ranks, exact rank
    thresholds per breakpoint, anchors grouped by suffix start. Built once per ``f``; every
    sweep (loss, Hessian product, counts, line derivatives) reuses it."""

    def __init__(self, pairs: PairSet, f: ArrayLike, cuts: Iterable[float]):
        f = checked_scores(pairs, f)
        m = pairs.n_points
        self.m, self.f = m, f
        self.w = (np.ones(m) if pairs.point_weights is None
                  else np.ascontiguousarray(pairs.point_weights, dtype=float))
        # anchor-side weights a_i w_i (pair weight a_i w_i w_j); the same array without anchor factors
        self.wa = self.w if pairs.anchor_weights is None else self.w * pairs.anchor_weights
        # sums use scores centred by a constant (exact invariance of L, c, Q; smaller roundoff);
        # pair membership always uses the raw float64 z = f_i - f_j.
        self.g = f - (0.5 * (f.max() + f.min()) if m else 0.0)
        self.explicit = pairs._explicit is not None
        if pairs._explicit is not None:
            i, j, w = pairs._explicit
            self.i, self.j = i.astype(INT), j.astype(INT)
            self.wij = np.asarray(w, float)
            self.z = f[self.i] - f[self.j]
            return
        self.cuts = sorted(set(cuts))
        if m >= 2**31 - 1:
            raise ValueError(f"The sorted-pair core handles fewer than 2**31 - 1 points; got {m:,}.")
        order, start = (np.ascontiguousarray(a, dtype=INT) for a in pairs._suffixes())
        self.order = order
        anchors = start < m
        self.n_anchors = int(np.count_nonzero(anchors))
        if self.n_anchors == 0:
            return
        s = start[anchors]
        self.s0 = int(s[0]) if s.min() == s.max() else -1
        del anchors, s
        rank, uniq = _compiled.dense_ranks(f, np.argsort(f))
        self.n_uniq = len(uniq)
        ythr = _compiled.rank_thresholds(uniq, np.asarray(self.cuts, dtype=float).reshape(-1))
        del uniq
        self.rank, self.aptr, self.apos, self.yA = _compiled.position_state(order, start, rank, ythr)
        del rank, ythr
        # per-position copies (time order): the sweeps then read memory sequentially
        self.w_pos = self.w if pairs.point_weights is None else self.w[order]
        self.wa_pos = self.w_pos if pairs.anchor_weights is None else np.ascontiguousarray(self.wa[order])
        self.g_pos = self.g[order]
        del self.g, self.w, self.wa  # only the explicit path uses the point-order copies

    def sweep(self, pieces: Sequence[Piece], mode: int, k_fwd: int, k_adj: int, v: np.ndarray | None = None,
              NA: np.ndarray | None = None, NP: np.ndarray | None = None,
              out: np.ndarray | None = None) -> np.ndarray:
        """One compiled call: forward and/or adjoint sweep for ``pieces``; returns ``acc``
        (the summed scalars of the mode)."""
        plo, phi, coef = piece_arrays(self.cuts, pieces)
        acc = np.zeros(3)
        _compiled.sweep(self.order, self.aptr, self.apos, self.s0, self.rank, self.yA, self.n_uniq,
                        plo, phi, coef, self.g_pos, self.w_pos, self.wa_pos, vec(v), mode, k_fwd, k_adj,
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
