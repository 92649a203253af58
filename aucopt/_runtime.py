"""The runtime model: how long the LP Ranker's routes are predicted to take, for ``method="auto"``.

As the memory model (:mod:`aucopt._memory`) predicts bytes before any allocation, this module
predicts seconds before any work, from constants measured with
``python benchmarks/lp_ranker_certified.py --parts calibrate`` (HiGHS 1.16, numpy with
OpenBLAS, 2 cores; each fit in a fresh process). The predictions are deliberately on the slow
side of the measurements (the slowest data set of each kind sets the constant): they decide
whether the exact LP is cheap enough to be the default, and whether a fit deserves a warning
that it will take minutes.

* The full LP (the lifted LP, one row per pair) grows faster than linearly in the number of
  pairs P: ``a · (P / 10⁴)^b`` seconds, with its own (a, b) for each pair target. Bipartite and
  multipartite pairs are solved by HiGHS's dual simplex; survival pairs by HiGHS's interior
  point on the dual LP with crossover, 2-5 times faster than the dual simplex there (most of
  Harrell's comparable pairs keep a positive slack at the optimum; the simplex-measured rows
  below). Multipartite pairs of ordinal levels have constants of their own: with more than a
  few levels they chain through a near-total order as Harrell's pairs do, and the bipartite
  constants under-predict them up to 5 times (below).
* The smoothing route to a relative gap of 1e-3 grows with the number of points m (Newton steps
  on a working set of kernel columns, a kernel product per step), after a fixed start-up:
  ``d + c · (m / 10³)^e`` seconds.

Measured (2 cores, noisy half-moons with RBF γ = 1, C = 10 for bipartite pairs; WHAS500's first m
subjects with C = 1, γ = 0.05 for survival pairs; for multipartite pairs, ``make_regression``'s
target cut into quantile levels, C = 1, γ = 0.1, and scikit-learn's regression-target check data,
one level per point, with the default γ):

==========  =========  ======  =========  ===========================================
route       target     points  pairs      seconds
==========  =========  ======  =========  ===========================================
full        bipartite  250     15,625     0.8
full        bipartite  500     62,500     18.7
full        bipartite  700     122,500    66.6
full        survival   150     7,989      1.2 (interior point)
full        survival   200     13,607     2.2 (interior point; dual simplex 5.0)
full        survival   300     30,079     6.0 (interior point; dual simplex 23.1)
full        survival   400     49,259     13.1 (interior point; dual simplex 59.6)
full        survival   500     75,149     33.9 (interior point; dual simplex 182)
full        multi, 3   300     30,000     2.1
full        multi, 5   300     36,000     5.9
full        multi, 20  250     29,685     12.7
full        multi, 200 200     19,900     11.6
smoothing   bipartite  1,000   250,000    6.4
smoothing   bipartite  2,000   1,000,000  10.4
smoothing   bipartite  5,000   6,250,000  61.2
smoothing   survival   500     75,149     3.5
==========  =========  ======  =========  ===========================================
"""

from __future__ import annotations

import math

#: the full LP: (a, b) of a·(P/1e4)^b seconds, per pair target (above every measurement); a custom
#: pair set uses the bipartite constants
FULL_LP_SECONDS = {"bipartite": (0.55, 2.1), "survival": (1.75, 1.55), "multipartite": (2.9, 2.3)}

#: the smoothing route to a 1e-3 gap: (d, c, e) of d + c·(m/1e3)^e seconds
SMOOTHING_SECONDS = (3.0, 3.5, 2.0)

#: method="auto" takes the full LP (exact) when it is predicted to finish within this many seconds
AUTO_FULL_SECONDS = 5.0

#: a route predicted to take longer than this is announced by a warning when method="auto" takes it
SLOW_FIT_SECONDS = 60.0


def full_lp_seconds(n_points: int, n_pairs: int, target: str = "bipartite") -> float:
    """Predicted seconds of the full LP Ranker LP on HiGHS (``method="full"``).

    Parameters
    ----------
    n_points : int
        Training points (unused by the current model; kept for the signature's stability).
    n_pairs : int
        Training pairs P.
    target : str, default="bipartite"
        The pair set's target: ``"survival"`` and ``"multipartite"`` (ordinal levels) have
        constants of their own, every other target uses the bipartite ones.

    Returns
    -------
    float

    Examples
    --------
    >>> full_lp_seconds(500, 62_500) > full_lp_seconds(250, 15_625)
    True
    """
    a, b = FULL_LP_SECONDS.get(target, FULL_LP_SECONDS["bipartite"])
    return a * (max(float(n_pairs), 1.0) / 1e4) ** b


def smoothing_seconds(n_points: int, tol: float = 1e-3) -> float:
    """Predicted seconds of the smoothing route (``method="smoothing"``) to a relative gap ``tol``.

    The model is measured at ``tol=1e-3``; a tighter gap costs a few more continuation stages,
    counted as 50 % more time per factor 10.

    Examples
    --------
    >>> smoothing_seconds(2000) > smoothing_seconds(1000)
    True
    """
    d, c, e = SMOOTHING_SECONDS
    stages = max(0.0, math.log10(1e-3 / max(float(tol), 1e-12)))
    return (d + c * (max(float(n_points), 1.0) / 1e3) ** e) * (1.0 + 0.5 * stages)


def describe(seconds: float) -> str:
    """A duration for a message: '0.4 s', '25 s', '3 min', '2.5 h'."""
    if seconds < 10:
        return f"{seconds:.1g} s" if seconds < 1 else f"{seconds:.0f} s"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
