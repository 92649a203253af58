"""The command line: each sub-command reports what the estimator it drives reports."""

import re
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file, load_breast_cancer
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler, StandardScaler

import aucopt
from aucopt import LPRanker, OnePassAUC, SparseAUC, cli
from aucopt.cli import SPARSE_BASIS_SIZE, _demo_data, build_parser, main
from aucopt.exceptions import NoComparablePairsError, ProblemTooLargeError, SolverError


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


def test_demo_header_cites_the_paper(capsys):
    assert main(["demo", "--solvers", "highs", "--train-size", "0.2"]) == 0
    header = capsys.readouterr().out.splitlines()
    header = next(line for line in header if line.startswith("LP Ranker"))
    assert "Ataman 2007, eq. 3.3" in header
    assert not re.search(r"seed ?0|spec \u00a7|pitfall|erratum|\u00a7", header, flags=re.IGNORECASE)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["demo", "--solvers", "nosuch"], "Unknown solver 'nosuch'"),
        (["demo", "--C", "-1", "--solvers", "highs"], "--C must be positive"),
        (["demo", "--train-size", "1.5", "--solvers", "highs"], "--train-size must lie in"),
        (["onepass", "no_such_file.svm", "--n-features", "3"], "file not found: no_such_file.svm"),
        (["sparse", "no_such_file.svm"], "file not found: no_such_file.svm"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert "Traceback" not in captured.err and "training points" not in captured.out


@pytest.mark.parametrize(
    "argv, dest, value",
    [
        (["onepass", "f.svm", "--n-features", "3", "--alpha", "0.5"], "alpha", 0.5),
        (["onepass", "f.svm", "--n-features", "3", "--eta0", "0.2"], "eta0", 0.2),
        (["onepass", "f.svm", "--n-features", "3", "--average"], "average", True),
        (["sparse", "breast_cancer", "--basis-size", "7"], "basis_size", 7),
        (["survival", "--alpha", "0.25"], "alpha", 0.25),
        (["survival", "--cox-alpha", "0.5"], "cox_alpha", 0.5),
    ],
)
def test_options_use_the_estimator_parameter_names(argv, dest, value):
    assert getattr(build_parser().parse_args(argv), dest) == value


@pytest.mark.parametrize(
    "argv",
    [
        ["onepass", "f.svm", "--n-features", "3", "--lam", "0.5"],
        ["onepass", "f.svm", "--n-features", "3", "--eta", "0.2"],
        ["onepass", "f.svm", "--n-features", "3", "--averaged"],
        ["sparse", "breast_cancer", "--max-basis", "7"],
        ["survival", "--lam", "0.25"],
        ["survival", "--cox-penalizer", "0.5"],
    ],
)
def test_old_option_names_are_rejected(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        build_parser().parse_args(argv)
    assert exc.value.code == 2
    assert "unrecognized arguments" in capsys.readouterr().err


def test_onepass_streams_the_file_as_partial_fit_would(tmp_path, capsys):
    X, y = load_breast_cancer(return_X_y=True)
    X = MinMaxScaler().fit_transform(X)
    y = (y == 0).astype(float)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    dump_svmlight_file(X_tr, y_tr, str(train), zero_based=False)
    dump_svmlight_file(X_te, y_te, str(test), zero_based=False)
    assert main(["onepass", str(train), "--n-features", "30", "--test", str(test), "--chunk-size", "64",
                 "--alpha", "1e-3", "--eta0", "0.05"]) == 0
    out = capsys.readouterr().out
    assert f"one pass over {len(y_tr):,} examples" in out
    reported = float(re.search(r"test AUC ([0-9.]+)", out).group(1))

    model = OnePassAUC(alpha=1e-3, eta0=0.05)
    for start in range(0, len(y_tr), 64):
        model.partial_fit(X_tr[start:start + 64], y_tr[start:start + 64] == 1, classes=[False, True])
    assert reported == pytest.approx(roc_auc_score(y_te, model.decision_function(X_te)), abs=1e-4)


def test_sparse_reports_the_fitted_basis_and_test_auc(capsys):
    assert main(["sparse", "breast_cancer", "--basis-size", "5", "--kappa", "20"]) == 0
    out = capsys.readouterr().out
    kept = int(re.search(r"kept \|J\| = (\d+)", out).group(1))
    reported = float(re.search(r"test AUC ([0-9.]+)", out).group(1))

    X, y = load_breast_cancer(return_X_y=True)
    y = (y == 0).astype(int)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
    scaler = StandardScaler().fit(X_tr)
    model = SparseAUC(C=1.0, basis_size=5, kappa=20, random_state=0).fit(scaler.transform(X_tr), y_tr)
    assert kept == len(model.support_) <= 5
    assert reported == pytest.approx(roc_auc_score(y_te, model.decision_function(scaler.transform(X_te))),
                                     abs=1e-4)
    path_rows = [line for line in out.splitlines() if re.match(r"^\s+\d+\s+[-0-9.]+", line)]
    assert len(path_rows) == len(model.path_)


def test_listing_commands(capsys):
    assert main(["formulations"]) == 0
    out = capsys.readouterr().out
    assert "lp_ranker " in out and "lp_ranker_free_sign" in out and "eq. 3.3" in out
    assert not re.search(r"seed ?0|spec \u00a7|pitfall|erratum", out, flags=re.IGNORECASE)
    assert main(["solvers"]) == 0
    names = capsys.readouterr().out.split()
    assert {"highs", "osqp", "cvxpy", "clarabel"} <= set(names) and len(names) == len(set(names))


# --------------------------------------------------------------------------- never a traceback
def _one_line_error(capsys, argv, code=2):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == code
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert "Traceback" not in captured.err and "\n" not in err
    return err


def test_onepass_refuses_a_gz_file_that_is_not_gzip(tmp_path, capsys):
    path = tmp_path / "train.svm.gz"
    path.write_text("1 1:0.5 2:1.0\n0 1:0.1\n")  # plain text behind a .gz name
    err = _one_line_error(capsys, ["onepass", str(path), "--n-features", "2"])
    assert err.startswith("aucopt: error: ") and "not a gzip file" in err and str(path) in err


def test_onepass_refuses_a_directory(tmp_path, capsys):
    err = _one_line_error(capsys, ["onepass", str(tmp_path), "--n-features", "2"])
    assert err.startswith("aucopt: error: ") and "is a directory" in err


def test_sparse_default_basis_size_is_clamped_to_small_data(tmp_path, capsys):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 4)), (np.arange(60) % 2).astype(float)
    path = tmp_path / "s60.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False)
    assert main(["sparse", str(path), "--kappa", "10"]) == 0
    kept = int(re.search(r"kept \|J\| = (\d+)", capsys.readouterr().out).group(1))
    assert 1 <= kept <= SPARSE_BASIS_SIZE
    # an explicit size the data cannot hold is still an error, in one line
    err = _one_line_error(capsys, ["sparse", str(path), "--basis-size", "500"])
    assert err.startswith("aucopt: error: basis_size=500")


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"aucopt {aucopt.__version__}"


def test_version_and_errors_in_a_subprocess(tmp_path):
    run = subprocess.run([sys.executable, "-m", "aucopt.cli", "--version"], capture_output=True, text=True, check=False)
    assert run.returncode == 0 and run.stdout.strip() == f"aucopt {aucopt.__version__}"
    run = subprocess.run([sys.executable, "-m", "aucopt.cli", "onepass", str(tmp_path), "--n-features", "2"],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.startswith("aucopt: error: ") and run.stderr.count("\n") == 1


def _raises(exc):
    def command(args):
        raise exc
    return command


@pytest.mark.parametrize(
    "exc, code, message",
    [
        (OSError("disk full"), 2, "aucopt: error: disk full"),
        (ValueError("bad\nvalue"), 2, "aucopt: error: bad value"),
        (ProblemTooLargeError("The LP", 8e9, 2e9, "use method='subgradient'"), 2,
         "aucopt: error: The LP would need about 8.0 GB"),
        (NoComparablePairsError("no comparable pair"), 2, "aucopt: error: no comparable pair"),
        (SolverError(SimpleNamespace(solver="highs", status="infeasible", problem_name="lp", message="")), 2,
         "aucopt: error: highs returned status 'infeasible'"),
        (MemoryError(), 2, "aucopt: error: out of memory"),
        (TypeError("unsupported operand"), 1, "aucopt: internal error (TypeError: unsupported operand)"),
        (AssertionError("invariant"), 1, "aucopt: internal error (AssertionError: invariant)"),
    ],
)
def test_main_turns_errors_into_one_line(monkeypatch, capsys, exc, code, message):
    monkeypatch.setattr(cli, "_list_solvers", _raises(exc))
    err = _one_line_error(capsys, ["solvers"], code=code)
    assert err.startswith(message)
    if code == 1:
        assert "please report" in err and "--debug" in err


def test_debug_shows_the_traceback(monkeypatch):
    monkeypatch.setattr(cli, "_list_solvers", _raises(OSError("disk full")))
    with pytest.raises(OSError, match="disk full"):
        main(["--debug", "solvers"])
    monkeypatch.setattr(cli, "_list_solvers", _raises(TypeError("bug")))
    with pytest.raises(TypeError, match="bug"):
        main(["--debug", "solvers"])
