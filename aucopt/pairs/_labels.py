"""Data about the points that a pair set carries: ordinal level codes and group indices."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validation import is_survival_target


def check_groups(groups: ArrayLike, n_points: int, name: str = "groups") -> np.ndarray:
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


def ordinal_codes(y: ArrayLike, levels: Sequence[Any] | ArrayLike | None = None) -> tuple[np.ndarray, list]:
    """Dense level codes 0, 1, ... (int64, in level order) of ordinal labels ``y`` and the list
    of the levels present, lowest first."""
    labels, inverse = _distinct_labels(y)
    if levels is None:
        return inverse, labels.tolist()
    levels = list(np.asarray(levels, dtype=object).ravel())
    position: dict[Any, int] = {}
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


def _distinct_labels(y: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct labels of 1-dimensional ordinal labels ``y`` and each label's index (int64)."""
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
    return labels, inverse.ravel().astype(np.int64)
