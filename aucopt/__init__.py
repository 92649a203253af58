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

``import aucopt`` is cheap: the public names below are imported at their first use (the lazy
loading of scientific Python's SPEC 1), so that ``aucopt --version`` and a script that needs one
estimator do not pay for the others, and the compiled kernels (numba), the cvxpy bridge, dask,
matplotlib and lifelines are imported only when a fit, a plot or a dask input needs them. The
metrics and rankers hand dask inputs to :mod:`aucopt.distributed` through the array backends of
``aucopt._dispatch``; the shipped formulations (``aucopt.formulations``) are registered at the
first look-up of the formulation registry; ``aucopt._formulations_path`` says where they come from.
"""

from __future__ import annotations

import importlib as _importlib
import logging as _logging
from typing import TYPE_CHECKING, Any

from ._formulations_path import install_checkout_finder as _install_checkout_finder
from ._version import __version__ as __version__

if TYPE_CHECKING:  # what the lazy names are, for type checkers and editors
    from ._validation import survival_target
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

#: public name -> the module that defines it (imported at the name's first use)
_WHERE = {
    "survival_target": "._validation",
    **dict.fromkeys(["BinaryRankerMixin", "KernelPairRanker", "SurvivalRankerMixin"], ".base"),
    **dict.fromkeys(["ClusterDataLostError", "ConvexityError", "InconsistentVersionWarning", "NoComparablePairsError",
                     "ProblemTooLargeError", "SlowFitWarning", "SolverError", "SolverWarning"], ".exceptions"),
    **dict.fromkeys(["Kernel", "kernel_matrix"], ".kernels"),
    **dict.fromkeys(["LPRanker", "SurvivalLPRanker"], ".lp"),
    **dict.fromkeys(["concordance_counts", "harrell_c", "roc_auc"], ".metrics"),
    **dict.fromkeys(["Model", "Problem", "available_formulations", "formulation", "get_formulation"], ".modeling"),
    "OnePassAUC": ".online",
    "PairSet": ".pairs",
    **dict.fromkeys(["SolveResult", "Status", "available_solvers", "solve"], ".solvers"),
    **dict.fromkeys(["CoxPH", "compare_methods", "kaplan_meier", "logrank", "pooled_cindex_cv"], ".survival"),
    **dict.fromkeys(["AUCSVM", "RankRC", "RankSVM", "SparseAUC", "SurvivalAUCSVM", "SurvivalRankRC", "SurvivalRankSVM",
                     "SurvivalSparseAUC"], ".svm"),
}


def __getattr__(name: str) -> Any:
    """Import a public name at its first use (and keep it in the module for the next)."""
    try:
        where = _WHERE[name]
    except KeyError:
        raise AttributeError(f"module 'aucopt' has no attribute {name!r}") from None
    value = getattr(_importlib.import_module(where, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})


_install_checkout_finder()
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
