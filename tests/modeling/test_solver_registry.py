"""The modeling layer reaches the solvers through the registry that aucopt.solvers fills at import."""

import subprocess
import sys

import numpy as np
import pytest

import aucopt.solvers
from aucopt import PairSet, get_formulation
from aucopt._solver_registry import ENTRIES, lookup, register
from aucopt.modeling import pair_row_generation


def test_the_solver_layer_registered_every_entry():
    assert lookup("Status") is aucopt.solvers.Status and lookup("SolveResult") is aucopt.solvers.SolveResult
    assert lookup("IncrementalLP") is aucopt.solvers.IncrementalLP
    assert lookup("resolve")("highs").name == "highs"
    assert set(ENTRIES) == {"solve", "resolve", "SolveResult", "Status", "IncrementalLP"}


def test_a_missing_entry_is_named():
    with pytest.raises(RuntimeError, match=r"No solver backend is registered for .gurobi.: aucopt\.solvers registers"):
        lookup("gurobi")
    with pytest.raises(ValueError, match=r"Unknown solver registry entries \['gurobi'\]"):
        register(gurobi=object())


def test_a_replaced_solve_is_the_one_the_modeling_layer_calls(monkeypatch):
    problem = get_formulation("lp_ranker").build(PairSet.bipartite([1, 0, 0, 1]), np.eye(4), C=1.0)
    real, calls = aucopt.solvers.solve, []

    def spy(problem, solver, **kwargs):
        calls.append(solver)
        return real(problem, solver, **kwargs)

    monkeypatch.setattr(aucopt.solvers, "solve", spy)
    run = pair_row_generation(problem, problem.metadata["pair_rows"], "osqp")
    assert calls and set(calls) == {"osqp"} and run.info["rounds"] == len(calls)


@pytest.mark.parametrize("max_iter", [0, -1, 2.5, True])
def test_row_generation_needs_at_least_one_round(max_iter):
    problem = get_formulation("lp_ranker").build(PairSet.bipartite([1, 0, 0, 1]), np.eye(4), C=1.0)
    with pytest.raises(ValueError, match="max_iter must be an integer >= 1"):
        pair_row_generation(problem, problem.metadata["pair_rows"], max_iter=max_iter)


def test_the_first_lookup_imports_the_solver_layer():
    """A fresh process that imports only the modeling layer still finds the solvers."""
    code = ("import sys; from aucopt._solver_registry import lookup; assert 'aucopt.solvers' not in sys.modules; "
            "print(lookup('resolve')('highs').name, 'aucopt.solvers' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["highs", "True"]
