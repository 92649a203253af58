"""The ``aucopt`` command line.

* ``aucopt demo`` — the LP Ranker (Ataman 2007, eq. 3.3) on scikit-learn's breast-cancer data with
  each solver;
* ``aucopt survival`` — the survival evaluation protocol of Ataman (2007), Sec. 5.3.5;
* ``aucopt onepass`` — one-pass AUC (Gao et al. 2013) streamed over a LIBSVM file;
* ``aucopt sparse`` — sparse greedy kernel AUC (Kakkar et al. 2017) and its basis-size path;
* ``aucopt compare`` — one formulation solved by several solvers, with their disagreement;
* ``aucopt solvers`` / ``aucopt formulations`` — the usable solver names / registered formulations.

Options use the estimators' parameter names (``--C``, ``--alpha``, ``--gamma``, ``--eta0``,
``--basis-size``). Every command prints a table, one row as soon as it is known; ``--json`` or
``--csv`` print it machine-readable instead (numbers as numbers, a missing value as null / an
empty field), with everything else on standard error. Bad input exits with status 2 and a
one-line ``aucopt: error: ...`` (see :func:`main`); ``aucopt --version`` prints the version.

Each command is an internal module of this package (``aucopt/cli/demo.py``, ...) holding its
options (``add_arguments``) and what it runs (``run``); the estimators, solvers and optional packages are
imported only when a command runs, so that ``aucopt --help`` and ``aucopt --version`` start at once.
"""

from ._common import EXTRA
from ._main import COMMANDS, DESCRIPTION, build_parser, main
from ._output import MISSING
from .compare import COMPARE_MAX_POINTS, COMPARE_SOLVERS, COMPARE_TIME_LIMIT, WDBC_NAMES
from .demo import DEMO_SOLVERS, DEMO_TOL
from .sparse import SPARSE_BASIS_SIZE
from .survival import AUCSVM_QP_MAX_PAIRS, SURVIVAL_METRICS, SURVIVAL_MODELS

__all__ = [
    "AUCSVM_QP_MAX_PAIRS",
    "COMMANDS",
    "COMPARE_MAX_POINTS",
    "COMPARE_SOLVERS",
    "COMPARE_TIME_LIMIT",
    "DEMO_SOLVERS",
    "DEMO_TOL",
    "DESCRIPTION",
    "EXTRA",
    "MISSING",
    "SPARSE_BASIS_SIZE",
    "SURVIVAL_METRICS",
    "SURVIVAL_MODELS",
    "WDBC_NAMES",
    "build_parser",
    "main",
]
