"""The LP Ranker family (Ataman 2007): kernel expansion, L1 penalty, pairwise hinge slacks.

:class:`LPRanker` (binary labels) and :class:`SurvivalLPRanker` (censored survival data) solve
the LP exactly (``method="full"``), exactly at scale by row-and-column generation on one live
HiGHS model (``"generation"``, :func:`row_column_generation`), or through the scalable routes of
Ataman (2007), Ch. IV: constraint generation (``"chunking"``, :func:`chunking`), local clustering
(``"clustering"``, :func:`local_clustering`) and the projected subgradient method on the
sorted-pair core (``"subgradient"``, :func:`subgradient`), whose building blocks are public here
too. The default ``method="auto"`` solves the full LP up to :data:`LP_AUTO_MAX_PAIRS` pairs and
runs row-and-column generation above.
"""

from ._classes import LP_AUTO_MAX_PAIRS, LPRanker, SurvivalLPRanker
from ._clustering import LocalClusters, local_clustering
from ._generation import GenerationResult, row_column_generation
from ._scale import ChunkingResult, SubgradientResult, chunking, lp_objective, subgradient

__all__ = ["LPRanker", "SurvivalLPRanker", "LP_AUTO_MAX_PAIRS", "chunking", "subgradient", "lp_objective", "local_clustering",
           "LocalClusters", "ChunkingResult", "SubgradientResult", "row_column_generation", "GenerationResult"]
