"""The pairwise-hinge (ranking SVM) family.

* :class:`AUCSVM` / :class:`SurvivalAUCSVM` — the AUC-maximizing SVM (Brefeld & Scheffer 2005):
  1-/2-norm pairwise duals as lifted QPs, the linear liblinear route, k-means pair reduction;
* :class:`RankSVM` / :class:`SurvivalRankSVM` — linear RankSVM by truncated Newton on the
  sorted-pair core;
* :class:`RankRC` / :class:`SurvivalRankRC` — kernel RankSVM with a rare-class basis
  (Tayal et al. 2015);
* :class:`SparseAUC` / :class:`SurvivalSparseAUC` — sparse greedy kernel AUC (Kakkar et al.).
"""

from ._aucsvm import AUCSVM, SurvivalAUCSVM
from ._newton import NewtonResult, newton_solve
from ._rankers import RankRC, RankSVM, SurvivalRankRC, SurvivalRankSVM
from ._sparse_greedy import SparseAUC, SurvivalSparseAUC

__all__ = ["AUCSVM", "SurvivalAUCSVM", "RankSVM", "SurvivalRankSVM", "RankRC", "SurvivalRankRC", "SparseAUC",
           "SurvivalSparseAUC", "newton_solve", "NewtonResult"]
