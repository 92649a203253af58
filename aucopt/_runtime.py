"""The runtime model: how long the LP Ranker's and the AUC-SVM's routes are predicted to take, for ``method="auto"``.

As the memory model (:mod:`aucopt._memory`) predicts bytes before any allocation, this module
predicts seconds before any work, from constants measured with
``python benchmarks/lp_ranker_certified.py --parts calibrate`` (HiGHS 1.16, numpy with
OpenBLAS, 2 cores; each fit in a fresh process). The predictions are deliberately on the slow
side of the measurements (the slowest data set of each kind sets the constant): they decide
whether the exact LP is cheap enough to be the default, and whether a fit deserves a warning
that it will take minutes. One exception: the smoothing route on bipartite pairs, whose times
differ too much between data sets for one power law above all of them (below); its constants
are set so that every fit measured over a minute is announced.

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
smoothing   bipartite+ 1,000   215,404    13.9
smoothing   bipartite+ 2,000   855,600    57.1
smoothing   bipartite+ 3,000   1,917,071  165.6
smoothing   survival   500     75,149     3.5
smoothing   survival*  500     65,028     31.4
smoothing   survival*  1,000   274,658    68.2
smoothing   survival*  1,500   617,856    212.8
smoothing   survival*  2,000   1,067,803  313.3
==========  =========  ======  =========  ===========================================

(+) The default ``LPRanker()`` on ``make_classification`` (20 features, 30 % positives, 5 % flipped
labels). (*) The default ``SurvivalLPRanker()`` on synthetic proportional-hazards data: 20 standard normal
features, hazard exp(x₀ + x₁/2), about 40 % censored (measured beside another benchmark, so on
the slow side). Its smoothing route takes many more Newton steps than on WHAS500 (129 on 1,000
subjects), and these rows set the survival constants.

* The AUC-SVM's dual coordinate descent (``AUCSVM(method="dcd")``, what ``method="auto"`` takes
  for the hinge and for a non-linear kernel) grows with the number of pairs P and, steeply, with
  C (a larger C leaves more pair duals free, and each epoch works on more of them):
  ``a · (P / 10⁵)^b`` seconds at the default ``tol`` with (a, b) interpolated in log₁₀ C between
  C = 0.01, 0.1 and 1 (held beyond), and a looser ``tol`` counted as ``(tol / 10⁻⁶)^-0.12`` (the
  epochs it saves at C = 1: 2.3 times fewer seconds at 1e-3, 8 times at 1e-2).

Measured for the DCD (2 cores, RBF kernel with ``gamma="scale"``, 10 standard normal features;
labels from a noisy linear score, or a noisy product of two features: the slower of the two):

=====  =======  =========  =======  ===================
C      points   pairs      seconds  epochs
=====  =======  =========  =======  ===================
0.01   1,000    211,191    0.40     160
0.01   2,000    873,975    2.30     182
0.1    1,000    211,191    2.16     1,180
0.1    2,000    873,975    7.15     1,371
1      1,000    211,191    7.21     278
1      2,000    958,791    87.5     918
1      3,000    2,217,959  307      (not counted)
1      3,000    2,174,924  133      351 (at tol=1e-3)
10     1,000    211,191    7.94     287
=====  =======  =========  =======  ===================

Survival pairs (Harrell's, 3,000 rows of the same features, 39 % censored at random): 3,343,013
pairs at C = 1 took 857 s against the 635 s of the bipartite constants, hence a factor 1.4.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from .exceptions import SlowFitWarning, warn

#: the full LP: (a, b) of a·(P/1e4)^b seconds, per pair target (above every measurement); a custom
#: pair set uses the bipartite constants
FULL_LP_SECONDS = {"bipartite": (0.55, 2.1), "survival": (1.75, 1.55), "multipartite": (2.9, 2.3)}

#: the smoothing route to a 1e-3 gap: (d, c, e) of d + c·(m/1e3)^e seconds, per pair target; every target
#: but survival pairs uses the bipartite constants. The survival ones are above every measurement. The
#: bipartite ones are above the half-moons' but not above make_classification's (14 s, 57 s and 166 s at
#: 1,000, 2,000 and 3,000 rows against 6.5, 24 and 64 s predicted): a curve above those would also
#: announce the fits of 2,000 rows, which finish in under a minute (the half-moons' in 10 s); the
#: exponent 2.6 announces every fit measured over a minute (from about 2,900 rows)
SMOOTHING_SECONDS = {"bipartite": (3.0, 3.5, 2.6), "survival": (20.0, 75.0, 2.6)}

#: method="auto" takes the full LP (exact) when it is predicted to finish within this many seconds
AUTO_FULL_SECONDS = 5.0

#: a route predicted to take longer than this is announced by a warning when method="auto" takes it
SLOW_FIT_SECONDS = 60.0


#: the AUC-SVM's dual coordinate descent at the default tol: (log10 C, a, b) of a·(P/1e5)^b seconds,
#: interpolated in log10 C between these anchors and held beyond them (above every measurement)
DCD_SECONDS = ((-2.0, 0.16, 1.232), (-1.0, 1.151, 0.843), (0.0, 2.43, 1.586))

#: the same for a linear kernel (w = Xᵀc kept, no kernel matrix; started from Newton's smoothed primal):
#: make_classification data (5 and 20 features, 5 informative, 5 % flipped labels; C from 1e-3 to 100;
#: 250,000 to 4 million pairs; 2 cores) and, at C = 1e-3, the 1e7 and 1e8 pairs of
#: benchmarks/aucsvm_dcd.py (5.2 s and 80 s), the largest time per pair of each C multiplied by 1.5 (above
#: every measurement; C = 1e-2 held at C = 1e-3's). At C = 100 the 4 million pairs of 5 features reached
#: the 100,000-epoch limit in 186 s.
DCD_LINEAR_SECONDS = ((-3.0, 0.12, 1.0), (-2.0, 0.12, 1.0), (-1.0, 0.146, 1.0), (0.0, 0.46, 1.0),
                      (1.0, 2.75, 1.04), (2.0, 23.0, 1.04))

#: the DCD's default stopping tolerance, at which DCD_SECONDS is measured
DCD_TOL = 1e-6

#: survival pairs (sorted storage, anchors of many sizes) against bipartite ones, per pair
DCD_SURVIVAL_FACTOR = 1.4


def dcd_seconds(n_pairs: int, C: float = 1.0, tol: float = DCD_TOL, target: str = "bipartite", *,
                linear: bool = False) -> float:
    """Predicted seconds of the AUC-SVM's dual coordinate descent (``method="dcd"``).

    Parameters
    ----------
    n_pairs : int
        Training pairs P.
    C : float, default=1.0
        The penalty: the time grows steeply with it up to C = 1 (more free pair duals).
    tol : float, default=1e-6
        The stopping tolerance: a looser one saves epochs.
    target : str, default="bipartite"
        The pair set's target: ``"survival"`` pairs take :data:`DCD_SURVIVAL_FACTOR` times longer.
    linear : bool, default=False
        Whether the kernel is linear (:data:`DCD_LINEAR_SECONDS`; a step costs O(d) and no kernel
        row is read), else :data:`DCD_SECONDS`.

    Returns
    -------
    float

    Examples
    --------
    >>> dcd_seconds(2_000_000) > 60 > dcd_seconds(2_000_000, C=0.01)
    True
    >>> dcd_seconds(2_000_000, linear=True) < dcd_seconds(2_000_000)
    True
    """
    table = DCD_LINEAR_SECONDS if linear else DCD_SECONDS
    x = min(max(math.log10(max(float(C), 1e-300)), table[0][0]), table[-1][0])
    for (x0, a0, b0), (x1, a1, b1) in itertools.pairwise(table):
        if x <= x1:
            t = (x - x0) / (x1 - x0)
            a, b = a0 ** (1.0 - t) * a1 ** t, b0 + t * (b1 - b0)
            break
    factor = (max(float(tol), 1e-12) / DCD_TOL) ** -0.12 * (DCD_SURVIVAL_FACTOR if target == "survival" else 1.0)
    return a * (max(float(n_pairs), 1.0) / 1e5) ** b * factor


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


def smoothing_seconds(n_points: int, tol: float = 1e-3, target: str = "bipartite") -> float:
    """Predicted seconds of the smoothing route (``method="smoothing"``) to a relative gap ``tol``.

    The model is measured at ``tol=1e-3``; a tighter gap costs a few more continuation stages,
    counted as 50 % more time per factor 10. Survival pairs (``target="survival"``) have constants
    of their own: their smoothing route takes many more Newton steps (129 on 1,000 subjects).

    Examples
    --------
    >>> smoothing_seconds(2000) > smoothing_seconds(1000)
    True
    >>> smoothing_seconds(1000, target="survival") > 60 > smoothing_seconds(1000)
    True
    """
    d, c, e = SMOOTHING_SECONDS.get(target, SMOOTHING_SECONDS["bipartite"])
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


def announce_slow_fit(estimator: Any, method: str, pairs: Any, advice: str) -> None:
    """Warn (:class:`~aucopt.exceptions.SlowFitWarning`) when ``method="auto"`` took a route that
    ``estimator.predicted_seconds`` puts above :data:`SLOW_FIT_SECONDS`, so that a long fit never
    starts silently; ``advice`` follows the predicted time in the message."""
    if estimator.method != "auto":
        return
    seconds = estimator.predicted_seconds(method, pairs)
    if seconds > SLOW_FIT_SECONDS:
        warn(f"{type(estimator).__name__}: {estimator.select_method(pairs)[1]} The fit is predicted to take "
             f"{describe(seconds)}{advice}", SlowFitWarning)
