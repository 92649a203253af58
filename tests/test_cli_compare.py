"""``aucopt compare``: one formulation, several solvers, a row each and the largest disagreement.

Oracle: the same problem built and solved here with aucopt.solve (HiGHS) on the same subset;
a 1 ms time limit that no solver can meet on 150 points.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from aucopt import PairSet, get_formulation, kernel_matrix, solve
from aucopt.cli import main


def test_compare_wdbc_text(capsys):
    assert main(["compare", "lp_ranker", "--data", "wdbc", "--max-points", "60", "--param", "C=1.0",
                 "--solvers", "highs", "clarabel", "scs", "not_a_solver"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("lp_ranker on WDBC") and "60 of 569 points" in lines[0]
    header = next(i for i, line in enumerate(lines) if line.startswith("solver"))
    rows = [line.split()[:2] for line in lines[header + 1:header + 5]]
    assert rows == [["highs", "optimal"], ["clarabel", "optimal"], ["not_a_solver", "unavailable"],
                    ["scs", "optimal"]]
    assert any(line.startswith("not_a_solver: Unknown solver") for line in lines)
    assert lines[-1].startswith("max disagreement with ")
    gap = float(lines[-1].split("objective ")[1].split()[0])
    assert gap < 1e-4


def test_compare_json_matches_a_direct_solve(capsys, tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    label = np.where(X[:, 0] + 0.5 * rng.normal(size=30) > 0, "yes", "no")
    path = tmp_path / "points.csv"
    with open(path, "w") as fh:
        fh.write("a,b,c,label\n")
        for row, lab in zip(X, label):
            fh.write(",".join(repr(float(v)) for v in row) + f",{lab}\n")
    assert main(["compare", "lp_ranker", "--data", str(path), "--solvers", "highs", "clarabel", "--param", "C=0.5",
                 "--kernel", "linear", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    rows = {row["solver"]: row for row in document["rows"]}
    # the same LP built here: all 30 points (under --max-points), min-max scaled, "yes" positive
    Xs = (X - X.min(0)) / (X.max(0) - X.min(0))
    problem = get_formulation("lp_ranker").build(PairSet.bipartite(label == "yes"), kernel_matrix(Xs, kernel="linear"),
                                                 C=0.5)
    expected = solve(problem, "highs").objective
    assert rows["highs"]["objective"] == pytest.approx(expected, rel=1e-9)
    assert rows["clarabel"]["objective"] == pytest.approx(expected, rel=1e-6)
    assert document["summary"]["max_objective_gap"] < 1e-6
    assert document["summary"]["pairs"] == problem.metadata["n_pairs"]


def test_compare_survival_csv_and_errors(capsys, tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(25, 2))
    time = np.exp(-X[:, 0] + 0.3 * rng.normal(size=25))
    event = rng.random(25) < 0.7
    path = tmp_path / "surv.csv"
    with open(path, "w") as fh:
        fh.write("x1,x2,t,e\n")
        for row, t, e in zip(X, time, event):
            fh.write(f"{float(row[0])!r},{float(row[1])!r},{float(t)!r},{int(e)}\n")
    assert main(["compare", "aucsvm_l1_dual", "--data", str(path), "--time", "t", "--event", "e",
                 "--solvers", "clarabel", "highs", "--csv"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("solver,status,objective")
    assert [line.split(",")[:2] for line in out[1:]] == [["clarabel", "optimal"], ["highs", "optimal"]]
    for argv, message in ((["compare", "no_such_formulation"], "Unknown formulation"),
                          (["compare", "lp_ranker", "--param", "C"], "KEY=VALUE"),
                          (["compare", "lp_ranker", "--max-points", "1"], "--max-points")):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        assert message in capsys.readouterr().err


def test_compare_time_limit_reports_who_hit_it(capsys):
    """A 1 ms limit per solver stops HiGHS and OSQP on the LP Ranker of 150 WDBC points: each row
    says time_limit, a note names the solver, the JSON summary lists them."""
    assert main(["compare", "lp_ranker", "--max-points", "150", "--solvers", "highs", "osqp",
                 "--time-limit", "0.001"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith("; time limit 0.001 s per solver")
    header = next(i for i, line in enumerate(lines) if line.startswith("solver"))
    assert [line.split()[:2] for line in lines[header + 1:header + 3]] == [["highs", "time_limit"],
                                                                          ["osqp", "time_limit"]]
    for name in ("highs", "osqp"):
        assert f"{name}: stopped at the 0.001 s time limit, an approximate point (raise --time-limit to let it " \
               "finish)" in lines
    assert lines[-1] == "max disagreement: none measured (no exact solver reached 'optimal')"
    assert main(["compare", "lp_ranker", "--max-points", "150", "--solvers", "highs", "osqp",
                 "--time-limit", "0.001", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [row["status"] for row in document["rows"]] == ["time_limit", "time_limit"]
    assert document["summary"]["time_limit"] == 0.001 and document["summary"]["time_limited"] == ["highs", "osqp"]


def test_compare_default_time_limit_and_none(capsys, monkeypatch):
    import aucopt.modeling._compare as compare_module
    from aucopt.cli import COMPARE_TIME_LIMIT

    seen = []
    real = compare_module.compare_solvers

    def spy(*args, **kwargs):
        seen.append(kwargs["time_limit"])
        return real(*args, **kwargs)

    monkeypatch.setattr(compare_module, "compare_solvers", spy)
    argv = ["compare", "aucsvm_l1_dual", "--max-points", "30", "--solvers", "highs", "ecos", "--json"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert COMPARE_TIME_LIMIT == compare_module.DEFAULT_TIME_LIMIT == 60.0 and seen == [60.0]
    assert document["summary"]["time_limit"] == 60.0 and document["summary"]["time_limited"] == []
    assert [row["status"] for row in document["rows"]] == ["optimal", "optimal"]
    assert "ecos: cvxpy:ecos has no time limit: ran without the 60 s limit" in captured.err
    assert main(argv + ["--time-limit", "none"]) == 0
    assert seen[-1] is None and json.loads(capsys.readouterr().out)["summary"]["time_limit"] is None
    for bad in ("0", "-1", "soon", "inf"):
        with pytest.raises(SystemExit) as exc:
            main(["compare", "lp_ranker", "--time-limit", bad])
        assert exc.value.code == 2
        assert "--time-limit: expected a positive number of seconds or 'none'" in capsys.readouterr().err
