"""What the two storages of a pair set share: the memory budget, the listing of ordered suffixes,
the checks and messages of every pair set.

Sorted storage holds the pairs as ordered suffixes: anchor i's partners are ``order[start_i:]``
(``start_i = m`` for a point that anchors no pair). :func:`list_suffix_pairs` lists them anchor by
anchor, in point order, each anchor's partners in suffix order: the order of
:meth:`aucopt.pairs.PairSet.to_arrays`.
"""

from __future__ import annotations

import numpy as np

DEFAULT_MAX_BYTES = 2 * 1024**3
"""Default memory budget (2 GiB) for explicit pair arrays and assembled problems."""

BYTES_PER_PAIR = 4 + 4 + 8
"""Bytes per listed pair: int32 i, int32 j, float64 weight."""


def list_suffix_pairs(order: np.ndarray, start: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pairs ``(i, j)`` (int64) of ordered suffixes, anchor by anchor in point order."""
    counts = len(order) - start
    anchors = np.flatnonzero(counts)
    c = counts[anchors]
    i = np.repeat(anchors, c)
    # position in `order` of each pair's partner: start_i, start_i + 1, ..., m - 1
    group_start = np.repeat(np.cumsum(c) - c, c)
    pos = np.repeat(start[anchors], c) + (np.arange(int(c.sum())) - group_start)
    return i, order[pos]


def check_nonnegative(w: np.ndarray, name: str) -> None:
    """Raise a ValueError naming ``name`` when ``w`` has a negative entry."""
    if np.any(w < 0):
        raise ValueError(f"{name} must be non-negative; found {int(np.sum(w < 0))} negative value(s).")


def no_pairs_message(target: str) -> str:
    """Why a pair set of ``target`` is empty, for :class:`~aucopt.exceptions.NoComparablePairsError`."""
    if target == "survival":
        return (
            "The survival target has no comparable pairs (a pair needs an observed event "
            "before another subject's event or censoring time); e.g. all subjects are censored."
        )
    return "The pair set is empty: there is no pair (i, j) requiring f(x_i) > f(x_j)."
