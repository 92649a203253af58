"""The LP Ranker family (Ataman 2007): kernel expansion, L1 penalty, pairwise hinge slacks.

:class:`LPRanker` (binary labels) and :class:`SurvivalLPRanker` (censored survival data) solve
the LP exactly (``method="full"``), exactly at scale by row-and-column generation on one live
HiGHS model (``"generation"``, :func:`row_column_generation`), to a certified relative
optimality gap by smoothing with continuation and Newton steps on the sorted-pair core
(``"smoothing"``, :func:`smoothing`), or through the scalable routes of Ataman (2007), Ch. IV:
constraint generation (``"chunking"``, :func:`chunking`), local clustering (``"clustering"``,
:func:`local_clustering`) and the projected subgradient method (``"subgradient"``,
:func:`subgradient`), whose building blocks are public here too. The default ``method="auto"``
predicts the time of each route and solves the full LP when it is predicted to take a few
seconds, the smoothing route above.
"""

from ._classes import LPRanker, SurvivalLPRanker
from ._clustering import LocalClusters, local_clustering
from ._generation import GenerationResult, row_column_generation
from ._routing import SMOOTHING_TOL
from ._scale import ChunkingResult, SubgradientResult, chunking, lp_objective, subgradient
from ._smoothing import SmoothingResult, smoothing

__all__ = [
           "SMOOTHING_TOL",
           "ChunkingResult",
           "GenerationResult",
           "LPRanker",
           "LocalClusters",
           "SmoothingResult",
           "SubgradientResult",
           "SurvivalLPRanker",
           "chunking",
           "local_clustering",
           "lp_objective",
           "row_column_generation",
           "smoothing",
           "subgradient",
]
