"""aucopt logs to the "aucopt" logger tree: nothing is printed by default (a NullHandler), and at
INFO the route, problem sizes, solver, status, objective and time of every fit and solve; at DEBUG
the solver options."""

from __future__ import annotations

import logging
import subprocess
import sys

from conftest import make_small_binary

import aucopt
from aucopt import LPRanker, RankSVM, solve


def test_package_logger_has_a_null_handler_and_module_loggers_are_children():
    handlers = logging.getLogger("aucopt").handlers
    assert any(isinstance(h, logging.NullHandler) for h in handlers)
    import aucopt.solvers
    assert aucopt.solvers._LOG.name == "aucopt.solvers"
    assert aucopt.solvers._LOG.parent is logging.getLogger("aucopt")
    assert aucopt.base._LOG.name == "aucopt.base"


def test_nothing_is_printed_without_logging_configuration():
    code = ("import numpy as np; from sklearn.datasets import make_classification; from aucopt import LPRanker; "
            "X, y = make_classification(n_samples=30, random_state=0); LPRanker(C=1.0).fit(X, y)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "" and run.stderr == ""


def test_fit_and_solve_log_route_sizes_solver_status_objective_time(caplog):
    X, y = make_small_binary()
    with caplog.at_level(logging.INFO, logger="aucopt"):
        model = LPRanker(C=1.0, solver="highs").fit(X, y)
    messages = [r.getMessage() for r in caplog.records]
    assert all(r.name.startswith("aucopt.") for r in caplog.records)
    fit = [m for m in messages if m.startswith("LPRanker.fit")]
    assert fit and f"{len(y)} samples" in fit[0] and f"method={model.method!r}" in fit[0] and "solver='highs'" in fit[0]
    problem = model.solve_result_.problem_name
    start = [m for m in messages if m.startswith(f"solving {problem!r}")]
    assert start and "LP:" in start[0] and "variables" in start[0] and "nonzeros" in start[0]
    done = [m for m in messages if m.startswith(f"highs on {problem!r}: status optimal")]
    assert done and f"{model.solve_result_.objective:.10g}" in done[0]
    assert not [r for r in caplog.records if r.levelno == logging.DEBUG]  # options only at DEBUG


def test_solver_options_at_debug(caplog):
    from aucopt import PairSet, get_formulation, kernel_matrix
    X, y = make_small_binary()
    problem = get_formulation("lp_ranker").build(PairSet.bipartite(y), kernel_matrix(X, gamma=0.5), C=1.0)
    with caplog.at_level(logging.DEBUG, logger="aucopt.solvers"):
        solve(problem, "highs", tol=1e-7, solver_options={"presolve": "off"})
    debug = [r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG]
    assert debug and "tol=1e-07" in debug[0] and "'presolve': 'off'" in debug[0]


def test_zero_weight_rows_and_a_scalable_route_are_logged(caplog):
    X, y = make_small_binary()
    w = [0.0] + [1.0] * (len(y) - 1)
    with caplog.at_level(logging.INFO, logger="aucopt"):
        RankSVM(alpha=1e-2).fit(X, y, sample_weight=w)
    fit = [r.getMessage() for r in caplog.records if r.getMessage().startswith("RankSVM.fit")]
    assert fit and f"{len(y) - 1} samples (1 of zero weight dropped)" in fit[0]
    assert "loss='squared_hinge'" in fit[0]


def test_logging_can_be_silenced_by_level(caplog):
    X, y = make_small_binary()
    with caplog.at_level(logging.WARNING, logger="aucopt"):
        LPRanker(C=1.0).fit(X, y)
    assert not [r for r in caplog.records if r.name.startswith("aucopt")]
    assert aucopt  # the package stays importable with any logging configuration
