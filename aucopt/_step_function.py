"""Right-continuous step functions evaluated at arbitrary times: the one lookup behind every curve.

A step function with increasing jump points x[0] < x[1] < ... takes the value y[k] on
[x[k], x[k + 1]), keeps y[-1] after the last jump and ``before`` before the first. The
Kaplan–Meier curves (:class:`aucopt.survival.KaplanMeierCurve`), the censoring survival Ĝ of the
IPCW metrics (:class:`aucopt.metrics.CensoringSurvival`) and the calibrated survival curves
(:class:`aucopt.survival.StepFunction`) all read their values with :func:`step_values`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["step_values"]


def step_values(x: np.ndarray, y: np.ndarray, t: ArrayLike, before: float) -> np.ndarray:
    """``y[k]`` for ``x[k] ≤ t < x[k + 1]`` (``y[-1]`` from ``x[-1]`` on), ``before`` for ``t < x[0]``.

    Parameters
    ----------
    x : ndarray of shape (n_points,)
        Increasing jump points; may be empty (the function is then ``before`` everywhere).
    y : ndarray of shape (n_points,)
        The value from each jump point on.
    t : float or array-like
        Time points (one binary search each: O(len(t) log n_points)).
    before : float
        The value before the first jump point.

    Returns
    -------
    values : ndarray
        Shaped like ``t`` (0-d for a scalar ``t``).

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt._step_function import step_values
    >>> step_values(np.array([1.0, 2.0]), np.array([0.5, 0.25]), [0.5, 1.0, 1.5, 9.0], 1.0).tolist()
    [1.0, 0.5, 0.5, 0.25]
    """
    t = np.asarray(t, dtype=float)
    if len(x) == 0:
        return np.full(t.shape, float(before))
    k = np.searchsorted(x, t, side="right") - 1
    return np.where(k >= 0, y[np.maximum(k, 0)], before)
