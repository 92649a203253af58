"""The command line: `aucopt demo` fits real models and reports what the estimator reports."""

import re

import pytest

from aucopt import LPRanker
from aucopt.cli import _demo_data, main


def test_demo_table_matches_the_estimator(capsys):
    assert main(["demo", "--solvers", "highs", "clarabel", "--train-size", "0.25", "--C", "1", "--gamma", "1"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if re.match(r"^(highs|clarabel)\s", line)}
    assert set(rows) == {"highs", "clarabel"}
    X_tr, X_te, y_tr, y_te = _demo_data(0.25, 0)
    model = LPRanker(C=1.0, gamma=1.0).fit(X_tr, y_tr)
    for _name, row in rows.items():
        assert row[1] == "optimal"
        assert float(row[2]) == pytest.approx(model.objective_, rel=1e-6)  # objective
        assert float(row[3]) == pytest.approx(model.score(X_te, y_te), abs=1e-4)  # test AUC
    assert f"{len(y_tr)} training points" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["demo", "--solvers", "nosuch"], "Unknown solver 'nosuch'"),
        (["demo", "--C", "-1", "--solvers", "highs"], "--C must be positive"),
        (["demo", "--train-size", "1.5", "--solvers", "highs"], "--train-size must lie in"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert "Traceback" not in captured.err and "training points" not in captured.out


def test_listing_commands(capsys):
    assert main(["formulations"]) == 0
    out = capsys.readouterr().out
    assert "lp_ranker " in out and "lp_ranker_free_sign" in out and "eq. 3.3" in out
    assert main(["solvers"]) == 0
    names = capsys.readouterr().out.split()
    assert {"highs", "osqp", "cvxpy", "clarabel"} <= set(names) and len(names) == len(set(names))
