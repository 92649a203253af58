"""aucopt: optimization modeling for AUC maximization, bipartite ranking and survival risk ranking.

Data flows one way: pairs → formulation → problem → solver → model.

========================  ===========================================================
subpackage                what lives there
========================  ===========================================================
:mod:`aucopt.pairs`       pair sets (bipartite, survival, custom) and the sorted-pair core
:mod:`aucopt.modeling`    the declarative formulation layer and the standard-form problem
:mod:`aucopt.solvers`     one file per backend (HiGHS, OSQP, cvxpy) behind one registry
:mod:`aucopt.lp`          the LP Ranker family and its scalable paths
:mod:`aucopt.svm`         the pairwise-hinge family: AUC-SVM, RankSVM, RankRC, SparseAUC
:mod:`aucopt.online`      one-pass AUC from streamed class statistics
:mod:`aucopt.survival`    evaluation protocol, Cox baseline, Kaplan–Meier, log-rank tests
``aucopt.formulations``   the shipped formulations, one declarative file each
:mod:`aucopt.distributed` dask collections in, the same models and metrics out
========================  ===========================================================

``import aucopt`` imports neither dask nor :mod:`aucopt.distributed`: the metrics and rankers
hand dask inputs to it through the array backends of ``aucopt._dispatch``, which import it on
the first dask input. ``aucopt.formulations`` is imported here (registering the shipped
formulations); ``aucopt._formulations_path`` says where it comes from.
"""

import logging as _logging

from ._formulations_path import ensure_formulations_package as _ensure_formulations_package
from ._validation import survival_target
from ._version import __version__ as __version__
from .base import BinaryRankerMixin, KernelPairRanker, SurvivalRankerMixin
from .exceptions import (
    ClusterDataLostError,
    ConvexityError,
    InconsistentVersionWarning,
    NoComparablePairsError,
    ProblemTooLargeError,
    SlowFitWarning,
    SolverError,
    SolverWarning,
)
from .kernels import Kernel, kernel_matrix
from .lp import LPRanker, SurvivalLPRanker
from .metrics import concordance_counts, harrell_c, roc_auc
from .modeling import Model, Problem, available_formulations, formulation, get_formulation
from .online import OnePassAUC
from .pairs import PairSet
from .solvers import SolveResult, Status, available_solvers, solve
from .survival import CoxPH, compare_methods, kaplan_meier, logrank, pooled_cindex_cv
from .svm import (
    AUCSVM,
    RankRC,
    RankSVM,
    SparseAUC,
    SurvivalAUCSVM,
    SurvivalRankRC,
    SurvivalRankSVM,
    SurvivalSparseAUC,
)

_ensure_formulations_package()
# aucopt logs (route, sizes, solver, status, objective, time) to the "aucopt" logger and its
# children; it prints nothing unless the application configures logging.
_logging.getLogger("aucopt").addHandler(_logging.NullHandler())

__all__ = [
    "AUCSVM",
    "BinaryRankerMixin",
    "ClusterDataLostError",
    "ConvexityError",
    "CoxPH",
    "InconsistentVersionWarning",
    "Kernel",
    "KernelPairRanker",
    "LPRanker",
    "Model",
    "NoComparablePairsError",
    "OnePassAUC",
    "PairSet",
    "Problem",
    "ProblemTooLargeError",
    "RankRC",
    "RankSVM",
    "SlowFitWarning",
    "SolveResult",
    "SolverError",
    "SolverWarning",
    "SparseAUC",
    "Status",
    "SurvivalAUCSVM",
    "SurvivalLPRanker",
    "SurvivalRankRC",
    "SurvivalRankSVM",
    "SurvivalRankerMixin",
    "SurvivalSparseAUC",
    "available_formulations",
    "available_solvers",
    "compare_methods",
    "concordance_counts",
    "formulation",
    "get_formulation",
    "harrell_c",
    "kaplan_meier",
    "kernel_matrix",
    "logrank",
    "pooled_cindex_cv",
    "roc_auc",
    "solve",
    "survival_target",
]
