"""The pairwise-hinge (ranking SVM) family.

* :class:`AUCSVM` / :class:`SurvivalAUCSVM` — the AUC-maximizing SVM (Brefeld & Scheffer 2005):
  hinge / squared-hinge pairwise duals as lifted QPs (``method="full"``), the linear liblinear
  route (``method="liblinear"``, Fan et al. 2008), dual coordinate descent over the pairs
  (``method="dcd"``, Hsieh et al. 2008) and the k-means pair reduction (``method="kmeans"``); the
  default ``method="auto"`` takes dual coordinate descent, except for a linear kernel with the
  squared hinge: the QP up to :data:`AUCSVM_AUTO_MAX_PAIRS` pairs, truncated Newton on the primal
  (``method="newton"``) above;
* :class:`RankSVM` / :class:`SurvivalRankSVM` — linear RankSVM by truncated Newton on the
  sorted-pair core (Chapelle & Keerthi 2010);
* :class:`RankRC` / :class:`SurvivalRankRC` — kernel RankSVM with a rare-class basis
  (Tayal et al. 2015);
* :class:`SparseAUC` / :class:`SurvivalSparseAUC` — sparse greedy kernel AUC (Kakkar et al. 2017);
* :func:`newton_solve` — the truncated Newton solver of the RankSVM family.

The C-parameterized estimators (AUCSVM, SparseAUC) and the alpha-parameterized ones (RankSVM,
RankRC) solve the same squared-hinge problem when C = 2 / (alpha · N), N the total pair weight.
"""

from ._aucsvm import AUCSVM, AUCSVM_AUTO_MAX_PAIRS, SurvivalAUCSVM
from ._newton import NewtonResult, newton_solve
from ._rankers import RankRC, RankSVM, SurvivalRankRC, SurvivalRankSVM
from ._sparse_greedy import SparseAUC, SurvivalSparseAUC
from ._sparse_greedy import retrain_due as retrain_due

__all__ = [
           "AUCSVM",
           "AUCSVM_AUTO_MAX_PAIRS",
           "NewtonResult",
           "RankRC",
           "RankSVM",
           "SparseAUC",
           "SurvivalAUCSVM",
           "SurvivalRankRC",
           "SurvivalRankSVM",
           "SurvivalSparseAUC",
           "newton_solve",
]
