"""The rules every pair-counting metric shares: tie credit, the relative tie tolerance, the kernels.

:mod:`aucopt.metrics` (AUC, xAUC, Harrell's C, the multipartite C-index) and the censoring-aware
survival metrics (:mod:`aucopt._survival_metrics`: Uno's C, AUC(t)), which :mod:`aucopt.metrics`
re-exports, both count pairs with these rules; they live here, below both, so that neither
imports the other for them.

* Scores tie when they differ by at most ``tied_tol · max|score|`` (:func:`absolute_tol`);
* a tied pair is credited ½ (``ties="half"``) or 0 (``"strict"``) (:func:`tie_credited_ratio`);
* the compiled kernels (:mod:`aucopt._metrics_numba`) are imported with the first metric computed
  (:func:`compiled_kernels`), so ``import aucopt`` does not import numba.
"""

from __future__ import annotations

from types import ModuleType
from typing import Literal

import numpy as np

__all__ = ["TIED_TOL", "TIE_MODES", "TieMode", "absolute_tol", "check_tied_tol", "check_ties", "compiled_kernels",
           "tie_credited_ratio"]

TieMode = Literal["half", "strict"]
"""The credit of a tied pair: ½ (``"half"``) or 0 (``"strict"``)."""

TIE_MODES: tuple[TieMode, ...] = ("half", "strict")

TIED_TOL = 1e-8
"""Default relative tie tolerance of :func:`aucopt.metrics.roc_auc`,
:func:`~aucopt.metrics.concordance_counts` and :func:`~aucopt.metrics.harrell_c`
(scikit-survival's ``concordance_index_censored`` default, which is absolute)."""


def compiled_kernels() -> ModuleType:
    """The compiled kernels; numba is imported with the first metric computed, not with aucopt."""
    from . import _metrics_numba

    return _metrics_numba


def check_ties(ties: object) -> TieMode:
    """``ties`` if it is ``"half"`` or ``"strict"``; a ValueError naming the choices otherwise."""
    if ties == "half":
        return "half"
    if ties == "strict":
        return "strict"
    raise ValueError(f"ties must be one of {TIE_MODES}, got {ties!r}.")


def check_tied_tol(tied_tol: object) -> float:
    """``tied_tol`` as a float if it is a non-negative finite number; a ValueError otherwise."""
    if (isinstance(tied_tol, bool) or not isinstance(tied_tol, (int, float, np.integer, np.floating))
            or not np.isfinite(tied_tol) or tied_tol < 0):
        raise ValueError(
            f"tied_tol must be a non-negative finite number (0 ties only equal scores); got {tied_tol!r}."
        )
    return float(tied_tol)


def absolute_tol(tied_tol: float, scores: np.ndarray) -> float:
    """The absolute tie tolerance ``tied_tol · max|scores|``: ties relative to the scores' scale."""
    return tied_tol * float(np.max(np.abs(scores), initial=0.0)) if tied_tol > 0 else 0.0


def tie_credited_ratio(wins: float, tied: float, total: float, ties: str) -> float:
    """``(wins + c * tied) / total`` with ``c`` = 1/2 or 0, as one correctly rounded division.

    Integer counts are divided exactly as integers; float (weighted) sums as floats.
    """
    if isinstance(total, (float, np.floating)):
        value = (2.0 * wins + tied) / (2.0 * total) if ties == "half" else wins / total
        return float(min(max(value, 0.0), 1.0))  # sums of prefix differences: clip round-off
    if ties == "half":
        return (2 * int(wins) + int(tied)) / (2 * int(total))
    return int(wins) / int(total)
