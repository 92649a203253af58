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
        for row, lab in zip(X, label, strict=False):
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
        for row, t, e in zip(X, time, event, strict=False):
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


def test_compare_limit_before_a_first_point_says_so(capsys):
    """A 1 ns limit stops HiGHS before its first point: no objective, and the note does not claim
    an approximate point."""
    assert main(["compare", "lp_ranker", "--max-points", "150", "--solvers", "highs", "--time-limit", "1e-9"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("solver"))
    assert lines[header + 1].split()[:3] == ["highs", "time_limit", "—"]
    assert ("highs: stopped at the 1e-09 s time limit, before a first point (raise --time-limit to let it finish)"
            in lines)


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
    for name in ("highs", "osqp"):  # on a loaded machine the limit may come before a first point
        assert any(f"{name}: stopped at the 0.001 s time limit, {reached} (raise --time-limit to let it "
                   "finish)" in lines for reached in ("an approximate point", "before a first point"))
    assert lines[-1] == "max disagreement: none measured (no exact solver reached 'optimal')"
    assert main(["compare", "lp_ranker", "--max-points", "150", "--solvers", "highs", "osqp",
                 "--time-limit", "0.001", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [row["status"] for row in document["rows"]] == ["time_limit", "time_limit"]
    assert document["summary"]["time_limit"] == 0.001 and document["summary"]["time_limited"] == ["highs", "osqp"]


def test_compare_default_time_limit_and_none(capsys, monkeypatch):
    import aucopt.modeling as compare_module
    from aucopt.cli import COMPARE_TIME_LIMIT
    from aucopt.modeling._compare import DEFAULT_TIME_LIMIT

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
    assert COMPARE_TIME_LIMIT == DEFAULT_TIME_LIMIT == 60.0 and seen == [60.0]
    assert document["summary"]["time_limit"] == 60.0 and document["summary"]["time_limited"] == []
    assert [row["status"] for row in document["rows"]] == ["optimal", "optimal"]
    assert "ecos: cvxpy:ecos has no time limit: ran without the 60 s limit" in captured.err
    assert main([*argv, "--time-limit", "none"]) == 0
    assert seen[-1] is None and json.loads(capsys.readouterr().out)["summary"]["time_limit"] is None
    for bad in ("0", "-1", "soon", "inf"):
        with pytest.raises(SystemExit) as exc:
            main(["compare", "lp_ranker", "--time-limit", bad])
        assert exc.value.code == 2
        assert "--time-limit: expected a positive number of seconds or 'none'" in capsys.readouterr().err


# ----------------------------------------------------------------------------- formulation parameters
def _usage_error(capsys, argv) -> str:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "internal error" not in err, err
    return err


@pytest.mark.parametrize("argv, message", [
    (["lp_ranker", "--param", "C=abc"],
     "aucopt: error: --param C=abc: The 'C' parameter of the formulation 'lp_ranker' must be a float in the range "
     "(0.0, inf). Got 'abc' instead. The parameters of lp_ranker: C (a float in the range (0.0, inf); default 1.0)."),
    (["lp_ranker", "--param", "bogus=1"],
     "aucopt: error: --param bogus=1: The formulation 'lp_ranker' has no parameter 'bogus'; its parameters: "
     "C (a float in the range (0.0, inf); default 1.0)."),
    (["partial_auc", "--param", "C=2", "beta=1.5"],
     "Got 1.5 instead. The parameters of partial_auc: C (a float in the range (0.0, inf); default 1.0), "
     "beta (a float in the range (0.0, 1.0]; default 0.1)."),
    (["ranksvm_squared_hinge", "--param", "C=-1"],
     "basis (an array-like or None; default None; not settable with --param)."),
    (["fair_ranker", "--param", "groups=sex"],
     "groups (an array-like or None; default None; from --groups COLUMN)"),
    (["lp_ranker", "--param", "C=nan"], "Got nan instead."),
])
def test_compare_param_errors_are_usage_errors_listing_the_parameters(capsys, argv, message):
    """Checked before any data is read: the missing file is never reached."""
    err = _usage_error(capsys, ["compare", *argv, "--data", "no_such_file.csv"])
    assert message in err


# ----------------------------------------------------------------------------- groups
def _fair_csv(tmp_path, n=40, blank=None):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(n, 2))
    sex = np.where(rng.random(n) < 0.5, "female", "male")
    label = np.where(X[:, 0] + 0.8 * (sex == "male") + 0.5 * rng.normal(size=n) > 0.4, "yes", "no")
    path = tmp_path / "people.csv"
    with open(path, "w") as fh:
        fh.write("x1,x2,sex,label\n")
        for k, (row, s, lab) in enumerate(zip(X, sex, label, strict=False)):
            first = "" if k == blank else repr(float(row[0]))
            fh.write(f"{first},{float(row[1])!r},{s},{lab}\n")
    return path, X, sex, label


def test_compare_fair_ranker_reads_its_groups_from_a_csv_column(capsys, tmp_path):
    path, X, sex, label = _fair_csv(tmp_path)
    assert main(["compare", "fair_ranker", "--data", str(path), "--groups", "sex", "--param", "epsilon=0.05",
                 "--solvers", "highs", "clarabel", "--kernel", "linear", "--json"]) == 0
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert "groups from column 'sex' (0 = 'female', 1 = 'male')" in captured.err
    assert document["summary"]["groups"] == "sex"
    # the same LP built here, the groups passed as the formulation's own parameter (not m.groups); the
    # features: x1, x2 and the sex column one-hot encoded (first level dropped), min-max scaled
    features = np.c_[X, sex == "male"].astype(float)
    features = (features - features.min(0)) / (features.max(0) - features.min(0))
    problem = get_formulation("fair_ranker").build(PairSet.bipartite(label == "yes"),
                                                   kernel_matrix(features, kernel="linear"), groups=sex, epsilon=0.05)
    expected = solve(problem, "highs").objective
    rows = {row["solver"]: row for row in document["rows"]}
    assert rows["highs"]["objective"] == pytest.approx(expected, rel=1e-9)
    assert rows["clarabel"]["objective"] == pytest.approx(expected, rel=1e-6)
    # epsilon binds: the LP Ranker alone has a smaller optimum
    plain = solve(get_formulation("lp_ranker").build(PairSet.bipartite(label == "yes"),
                                                     kernel_matrix(features, kernel="linear")), "highs").objective
    assert expected > plain + 1e-6


def test_compare_groups_errors_name_the_option(capsys, tmp_path):
    path, *_ = _fair_csv(tmp_path)
    err = _usage_error(capsys, ["compare", "fair_ranker", "--data", str(path), "--solvers", "highs"])
    assert ("fair_ranker reads each point's group (m.groups), and none was given: pass --data FILE.csv with "
            "--groups COLUMN") in err
    err = _usage_error(capsys, ["compare", "lp_ranker", "--data", str(path), "--groups", "sex", "--solvers", "highs"])
    assert "--groups sex: lp_ranker does not read groups (m.groups)" in err
    err = _usage_error(capsys, ["compare", "fair_ranker", "--groups", "sex", "--solvers", "highs"])
    assert "--groups sex reads a column of a CSV file, and --data wdbc is a named data set" in err
    err = _usage_error(capsys, ["compare", "fair_ranker", "--data", str(path), "--groups", "label"])
    assert "--groups label names the label (the last column of" in err
    err = _usage_error(capsys, ["compare", "fair_ranker", "--data", str(path), "--groups", "age"])
    assert "Column 'age' is not in" in err


# ----------------------------------------------------------------------------- malformed CSV rows
def _survival_rows(n=60):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(n, 2))
    return X, np.exp(-X[:, 0] + 0.3 * rng.normal(size=n)), rng.random(n) < 0.7


def _write_survival(path, time_text=None):
    X, time, event = _survival_rows()
    with open(path, "w") as fh:
        fh.write("x1,x2,time,event\n")
        for k, (row, t, e) in enumerate(zip(X, time, event, strict=False)):
            t = (time_text or {}).get(k, repr(float(t)))
            fh.write(f"{float(row[0])!r},{float(row[1])!r},{t},{int(e)}\n")
    return str(path)


def test_a_blank_time_is_an_error_naming_column_and_line_on_every_csv_path(capsys, tmp_path):
    """Before the fix: "59 of 59 points", the row dropped without a word."""
    path = _write_survival(tmp_path / "blank.csv", {17: ""})  # the 18th data row: line 19 of the file
    expected = (f"{path} has 1 missing value(s): column 'time' on line 19. Fill them in, or remove those rows from "
                "the file")
    err = _usage_error(capsys, ["compare", "lp_ranker", "--data", path, "--time", "time", "--event", "event",
                                "--solvers", "highs"])
    assert expected in err
    pytest.importorskip("lifelines")  # the survival command imports its Cox baseline first
    err = _usage_error(capsys, ["survival", "--data", path, "--time", "time", "--event", "event", "--km-png", ""])
    assert expected in err


def test_malformed_csv_rows_are_refused_never_dropped(capsys, tmp_path):
    from aucopt.datasets import load_survival

    path = _write_survival(tmp_path / "text.csv", {4: "soon", 9: "inf"})
    with pytest.raises(ValueError, match=r"The time column 'time' of .* must hold finite numbers; lines 6, 11 hold "
                                         r"'soon' …"):
        load_survival(path, time="time", event="event")
    short = tmp_path / "short.csv"
    short.write_text("x1,x2,time,event\n0.1,0.2,1.0,1\n0.3,0.4\n\n0.5,0.6,2.0,0\n")  # line 3 lacks two fields
    with pytest.raises(ValueError, match=r"has 2 missing value\(s\): column 'time' on line 3; column 'event' on "
                                         r"line 3"):
        load_survival(str(short), time="time", event="event")
    wide = tmp_path / "wide.csv"
    wide.write_text("x1,x2,time,event\n0.1,0.2,1.0,1\n0.3,0.4,2.0,0,7\n")
    with pytest.raises(ValueError, match=r"is not a well-formed CSV file .*line 3.*as many comma-separated fields"):
        load_survival(str(wide), time="time", event="event")
    # the bipartite CSV of compare: the same reader
    bipartite, *_ = _fair_csv(tmp_path, blank=7)
    err = _usage_error(capsys, ["compare", "lp_ranker", "--data", str(bipartite), "--solvers", "highs"])
    assert "has 1 missing value(s): column 'x1' on line 9" in err
    # complete files lose no row: all 60 points are read
    assert main(["compare", "lp_ranker", "--data", _write_survival(tmp_path / "ok.csv"), "--time", "time", "--event",
                 "event", "--solvers", "highs", "--max-points", "500"]) == 0
    assert "60 of 60 points" in capsys.readouterr().out.splitlines()[0]
