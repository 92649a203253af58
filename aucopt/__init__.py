"""aucopt: optimization modeling for AUC maximization, bipartite ranking and survival risk ranking.

Data flows one way: pairs → formulation → problem → solver → model.
"""

from ._validation import survival_target
from .estimators import AUCSVM, LPRanker, SurvivalAUCSVM, SurvivalLPRanker
from .kernels import Kernel, kernel_matrix
from .metrics import harrell_c, roc_auc
from .modeling import Model, available_formulations, formulation, get_formulation
from .onepass import OnePassAUC
from .pairs import PairSet
from .sparse_greedy import SparseAUC, SurvivalSparseAUC
from .survival import CoxPH, compare_methods, kaplan_meier, logrank, pooled_cindex_cv
from .rankers import RankRC, RankSVM, SurvivalRankRC, SurvivalRankSVM
from .problem import Problem
from .solvers import SolveResult, SolverError, Status, available_solvers, solve

__version__ = "0.1.0"

__all__ = [
    "LPRanker", "SurvivalLPRanker", "AUCSVM", "SurvivalAUCSVM", "RankSVM", "SurvivalRankSVM",
    "RankRC", "SurvivalRankRC", "OnePassAUC", "SparseAUC", "SurvivalSparseAUC", "CoxPH", "pooled_cindex_cv",
    "compare_methods", "kaplan_meier", "logrank", "PairSet", "Problem", "Model", "formulation",
    "get_formulation", "available_formulations", "solve", "available_solvers", "SolveResult",
    "SolverError", "Status", "Kernel", "kernel_matrix", "roc_auc", "harrell_c", "survival_target",
]
