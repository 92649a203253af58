"""The command line: each sub-command reports what the estimator it drives reports."""

import argparse
import csv
import io
import json
import os
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
from aucopt import LPRanker, OnePassAUC, PairSet, SparseAUC, cli
from aucopt.cli import SPARSE_BASIS_SIZE, build_parser, main
from aucopt.cli.demo import demo_data
from aucopt.exceptions import NoComparablePairsError, ProblemTooLargeError, SolverError


def test_demo_table_matches_the_estimator(capsys):
    assert main(["demo", "--solvers", "highs", "clarabel", "--train-size", "0.25", "--C", "1", "--gamma", "1"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if re.match(r"^(highs|clarabel)\s", line)}
    assert set(rows) == {"highs", "clarabel"}
    X_tr, X_te, y_tr, y_te = demo_data(0.25, 0)
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
    header, row = out.splitlines()[-2:]
    assert header.split()[:2] == ["examples", "features"] and header.rstrip().endswith("test AUC")
    assert row.split()[:3] == [f"{len(y_tr):,}", "30", "full"] and row.split()[-2] == f"{len(y_te):,}"
    reported = float(row.split()[-1])

    model = OnePassAUC(alpha=1e-3, eta0=0.05)
    for start in range(0, len(y_tr), 64):
        model.partial_fit(X_tr[start:start + 64], y_tr[start:start + 64] == 1, classes=[False, True])
    assert reported == pytest.approx(roc_auc_score(y_te, model.decision_function(X_te)), abs=1e-4)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # basis_size=5 is a cap
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
    monkeypatch.setattr(cli.solvers, "run", _raises(exc))
    err = _one_line_error(capsys, ["solvers"], code=code)
    assert err.startswith(message)
    if code == 1:
        assert "please report" in err and "--debug" in err


def test_debug_shows_the_traceback(monkeypatch):
    monkeypatch.setattr(cli.solvers, "run", _raises(OSError("disk full")))
    with pytest.raises(OSError, match="disk full"):
        main(["--debug", "solvers"])
    monkeypatch.setattr(cli.solvers, "run", _raises(TypeError("bug")))
    with pytest.raises(TypeError, match="bug"):
        main(["--debug", "solvers"])


# --------------------------------------------------------------------------- help, formats, streaming
def _parsers(parser, prefix="aucopt"):
    """Every parser of the command line with its name: the top level and each sub-command."""
    yield prefix, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, f"{prefix} {name}")


def test_every_option_of_every_command_has_help():
    parsers = dict(_parsers(build_parser()))
    assert set(parsers) == {"aucopt"} | {f"aucopt {c}" for c in cli.COMMANDS}
    for name, parser in parsers.items():
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert action.help and action.help.strip(), f"{name} {action.option_strings or action.dest} has no help"
            assert action.help != argparse.SUPPRESS
    # the options users found without help
    survival = parsers["aucopt survival"]
    for option in ("--splits", "--repeats", "--C", "--km-png", "--data-dir"):
        action = next(a for a in survival._actions if option in a.option_strings)
        assert "default" in action.help, (option, action.help)
    chunk = next(a for a in parsers["aucopt onepass"]._actions if "--chunk-size" in a.option_strings)
    assert "10000" in chunk.help


def test_every_compute_command_takes_the_output_options():
    for name, parser in _parsers(build_parser()):
        if name == "aucopt":
            continue
        options = {o for a in parser._actions for o in a.option_strings}
        assert {"--json", "--csv", "-o", "--output", "-v", "--verbose"} <= options, name
        if name.split()[-1] in ("survival", "onepass", "sparse"):
            assert "--data-dir" in options, name


def test_top_level_help_is_plain_text_naming_every_command(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    description = out.split("positional arguments")[0]
    for command in cli.COMMANDS:
        assert re.search(rf"^\s+{command}\s", description, flags=re.MULTILINE), command
    assert not re.search(r"``|:func:|:class:|\*\*|\.\. ", out)


def _json(capsys):
    captured = capsys.readouterr()
    return json.loads(captured.out), captured.err


def _csv_rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def test_demo_json_and_csv_match_the_estimator(capsys):
    argv = ["demo", "--solvers", "highs", "--train-size", "0.25"]
    assert main([*argv, "--json"]) == 0
    document, err = _json(capsys)
    assert "training points" in err  # the sentence above the table goes to standard error
    assert document["columns"] == ["solver", "status", "objective", "test_auc", "support_vectors", "seconds"]
    (row,) = document["rows"]
    X_tr, X_te, y_tr, y_te = demo_data(0.25, 0)
    model = LPRanker(C=1.0, gamma=1.0).fit(X_tr, y_tr)
    assert row["solver"] == "highs" and row["status"] == "optimal"
    assert row["objective"] == pytest.approx(model.objective_, rel=1e-6)
    assert row["test_auc"] == pytest.approx(model.score(X_te, y_te), abs=1e-9)
    assert row["support_vectors"] == len(model.support_) and isinstance(row["support_vectors"], int)
    assert document["summary"]["training_points"] == len(y_tr)

    assert main([*argv, "--csv"]) == 0
    captured = capsys.readouterr()
    (csv_row,) = _csv_rows(captured.out)
    assert list(csv_row) == document["columns"]
    assert float(csv_row["objective"]) == pytest.approx(row["objective"], rel=1e-12)
    assert "training points" in captured.err


@pytest.mark.parametrize(("solver", "train_size", "seed"), [("clarabel", 0.2, 0), ("scs", 0.25, 2)])
def test_demo_support_vectors_agree_across_solvers(solver, train_size, seed, capsys):
    """An interior-point or first-order solver's tiny nonzero coefficients are not support vectors:
    every row counts the support of the simplex vertex (whose other coefficients are exactly 0)."""
    argv = ["demo", "--solvers", "highs", solver, "--train-size", str(train_size), "--seed", str(seed), "--json"]
    assert main(argv) == 0
    document, err = _json(capsys)
    X_tr, _, y_tr, _ = demo_data(train_size, seed)
    vertex = LPRanker(C=1.0, gamma=1.0, method="full", solver="highs", support_threshold=0.0).fit(X_tr, y_tr)
    rows = {row["solver"]: row for row in document["rows"]}
    for row in rows.values():
        assert row["status"] == "optimal" and row["objective"] == pytest.approx(vertex.objective_, rel=1e-6)
        assert row["support_vectors"] == len(vertex.support_)
    assert "tol=1e-07" in err and "|alpha_l| > tol * max|alpha|" in err
    assert document["summary"]["tol"] == cli.DEMO_TOL


def test_demo_refuses_a_tolerance_outside_0_1(capsys):
    err = _one_line_error(capsys, ["demo", "--solvers", "highs", "--tol", "0"])
    assert "--tol must lie in (0, 1); got 0.0" in err


def test_demo_prints_each_row_as_soon_as_its_solver_finishes(monkeypatch, capsys):
    real_fit, printed = LPRanker.fit, []

    def fit(self, X, y):
        printed.append(capsys.readouterr().out)  # what the user saw when this solver started
        return real_fit(self, X, y)

    monkeypatch.setattr(LPRanker, "fit", fit)
    assert main(["demo", "--solvers", "highs", "highs", "--train-size", "0.2"]) == 0
    assert len(printed) == 2
    assert "solver" in printed[0] and "optimal" not in printed[0]  # the header, before the first fit
    assert re.search(r"^highs\s+optimal", printed[1], flags=re.MULTILINE)  # row 1, before fit 2


def test_demo_solver_failure_shows_a_dash_not_nan(monkeypatch, capsys):
    def fail(self, X, y):
        raise SolverError(SimpleNamespace(solver=self.solver, status="time_limit", problem_name="lp", message=""))

    monkeypatch.setattr(LPRanker, "fit", fail)
    assert main(["demo", "--solvers", "highs", "--train-size", "0.2"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("highs"))
    assert row.split()[:5] == ["highs", "time_limit", cli.MISSING, cli.MISSING, cli.MISSING]
    assert not re.search(r"\bnan\b", out, flags=re.IGNORECASE)
    assert main(["demo", "--solvers", "highs", "--train-size", "0.2", "--json"]) == 0
    (row,) = _json(capsys)[0]["rows"]
    assert row["objective"] is None and row["test_auc"] is None and row["support_vectors"] is None


def test_json_goes_to_the_output_file(tmp_path, capsys):
    path = tmp_path / "solvers.json"
    assert main(["solvers", "--json", "-o", str(path)]) == 0
    assert capsys.readouterr().out == ""
    names = [row["solver"] for row in json.loads(path.read_text())["rows"]]
    assert names == aucopt.available_solvers()


def test_output_file_in_a_missing_folder_is_one_line(tmp_path, capsys):
    err = _one_line_error(capsys, ["solvers", "--csv", "-o", str(tmp_path / "no" / "t.csv")])
    assert "--output" in err and "does not exist" in err
    err = _one_line_error(capsys, ["solvers", "--csv", "-o", str(tmp_path)])
    assert "is a directory" in err and "table.csv" in err


def test_listings_in_json_and_csv(capsys):
    assert main(["formulations", "--csv"]) == 0
    rows = _csv_rows(capsys.readouterr().out)
    assert {"name", "kind", "description"} == set(rows[0])
    assert {r["name"] for r in rows} == set(aucopt.available_formulations())
    assert {r["kind"] for r in rows} <= {"LP", "QP"}
    assert main(["solvers", "--csv"]) == 0
    assert [r["solver"] for r in _csv_rows(capsys.readouterr().out)] == aucopt.available_solvers()


def test_json_keeps_standard_output_clean_of_solver_logs(tmp_path):
    # HiGHS writes its log from C to file descriptor 1: --json sends it to standard error
    run = subprocess.run([sys.executable, "-m", "aucopt.cli", "demo", "--solvers", "highs", "--train-size", "0.2",
                          "-v", "--json"], capture_output=True, text=True, check=False, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["rows"][0]["status"] == "optimal"
    assert "HiGHS" in run.stderr


# --------------------------------------------------------------------------- onepass
def _svm_file(path, X, y, zero_based=False):
    dump_svmlight_file(X, y, str(path), zero_based=zero_based)
    return str(path)


def test_onepass_zero_based_file_names_the_option(tmp_path, capsys):
    rng = np.random.default_rng(0)
    X, y = rng.random((40, 3)) + 0.1, np.arange(40) % 2  # column 0 is nonzero: index 0 appears
    path = _svm_file(tmp_path / "zero.svm", X, y, zero_based=True)
    err = _one_line_error(capsys, ["onepass", path, "--n-features", "3"])
    assert err.startswith("aucopt: error: ") and "looks zero-based: pass --zero-based" in err and path in err
    assert main(["onepass", path, "--n-features", "3", "--zero-based", "--json"]) == 0
    assert _json(capsys)[0]["rows"][0]["examples"] == 40


def test_onepass_json_without_test_file_and_progress_with_verbose(tmp_path, capsys):
    rng = np.random.default_rng(1)
    path = _svm_file(tmp_path / "t.svm", rng.random((50, 4)), np.arange(50) % 2)
    assert main(["onepass", path, "--n-features", "4", "--chunk-size", "10", "--json"]) == 0
    document, err = _json(capsys)
    (row,) = document["rows"]
    assert row["examples"] == 50 and row["test_auc"] is None and row["test_examples"] is None
    assert "no --test file" in err and "OnePassAUC:" not in err  # no bar off a terminal without -v
    assert main(["onepass", path, "--n-features", "4", "--chunk-size", "10", "-v"]) == 0
    err = capsys.readouterr().err
    assert "OnePassAUC" in err and "50 rows" in err  # the bar counts the rows processed


def test_onepass_named_set_from_the_data_dir(tmp_path, capsys):
    import bz2

    rng = np.random.default_rng(2)
    folder = tmp_path / "libsvm"
    folder.mkdir()
    for part, n in (("trn", 60), ("tst", 30)):
        buffer = io.BytesIO()
        dump_svmlight_file(rng.random((n, 22)), np.where(np.arange(n) % 3 == 0, 1, -1), buffer, zero_based=False)
        (folder / f"ijcnn1_ijcnn1.{part}.bz2").write_bytes(bz2.compress(buffer.getvalue()))
    assert main(["onepass", "ijcnn1", "--data-dir", str(tmp_path), "--json"]) == 0  # width and test file known
    (row,) = _json(capsys)[0]["rows"]
    assert row["examples"] == 60 and row["features"] == 22 and row["test_examples"] == 30
    assert 0 <= row["test_auc"] <= 1
    err = _one_line_error(capsys, ["onepass", "ijcnn1", "--data-dir", str(tmp_path / "nowhere")])
    assert "nowhere" in err and "does not exist" in err


def _named_set_folder(tmp_path, name, zero_based, n_train=80, n_test=40, seed=4):
    """A data folder holding libsvm/<name>_<name>.{trn,tst}.bz2 with the set's width and index base;
    the first feature is nonzero in every row, so a zero-based file holds index 0."""
    import bz2

    from aucopt.datasets import LIBSVM_SETS

    rng = np.random.default_rng(seed)
    d = LIBSVM_SETS[name].n_features
    (tmp_path / "libsvm").mkdir(parents=True, exist_ok=True)
    parts = {}
    for part, n in (("trn", n_train), ("tst", n_test)):
        y = np.where(np.arange(n) % 3 == 0, 1, -1)
        X = np.zeros((n, d))
        X[:, 0] = 1.0 + 0.5 * (y > 0) + rng.random(n)
        X[:, -1] = rng.random(n)
        buffer = io.BytesIO()
        dump_svmlight_file(X, y, buffer, zero_based=zero_based)
        (tmp_path / "libsvm" / f"{name}_{name}.{part}.bz2").write_bytes(bz2.compress(buffer.getvalue()))
        parts[part] = (X, (y == 1).astype(int))
    return parts


def test_named_sets_know_their_index_base(tmp_path, capsys):
    """adult is zero-based (features 0-122): onepass and sparse read it without --zero-based, and
    read it right: the fit equals one on the arrays themselves."""
    from aucopt.online._onepass import iter_svmlight_chunks

    parts = _named_set_folder(tmp_path, "adult", zero_based=True)
    assert main(["onepass", "adult", "--data-dir", str(tmp_path), "--json"]) == 0
    (row,) = _json(capsys)[0]["rows"]
    assert row["examples"] == 80 and row["features"] == 123 and row["test_examples"] == 40
    train = tmp_path / "libsvm" / "adult_adult.trn.bz2"
    model = OnePassAUC().fit((X, y == 1) for X, y in iter_svmlight_chunks(str(train), 10_000, 123, zero_based=True))
    X_te, y_te = parts["tst"]
    assert row["test_auc"] == pytest.approx(roc_auc_score(y_te, model.decision_function(X_te)), abs=1e-12)
    X_tr, y_tr = parts["trn"]
    model = OnePassAUC().fit([(X_tr, y_tr)])  # the arrays: the file was read column for column
    assert row["test_auc"] == pytest.approx(roc_auc_score(y_te, model.decision_function(X_te)), abs=1e-9)

    argv = ["sparse", "adult", "--data-dir", str(tmp_path), "--basis-size", "4", "--json"]
    assert main(argv) == 0
    summary = _json(capsys)[0]["summary"]
    scaler = StandardScaler().fit(X_tr)
    sparse = SparseAUC(basis_size=4, random_state=0).fit(scaler.transform(X_tr), y_tr)
    assert summary["test_auc"] == pytest.approx(sparse.score(scaler.transform(X_te), y_te), abs=1e-12)
    # --zero-based agrees with adult; it contradicts a one-based set, which says so
    assert main(["onepass", "adult", "--data-dir", str(tmp_path), "--zero-based", "--json"]) == 0
    capsys.readouterr()
    _named_set_folder(tmp_path, "ijcnn1", zero_based=False)
    err = _one_line_error(capsys, ["onepass", "ijcnn1", "--data-dir", str(tmp_path), "--zero-based"])
    assert "the ijcnn1 set numbers its features from 1" in err and "drop --zero-based" in err


@pytest.mark.parametrize("name", ["adult", "ijcnn1", "reuters"])
def test_named_set_index_base_matches_the_shared_files(name):
    """The declared width and index base are those of the files (their smallest and largest index)."""
    from aucopt.datasets import LIBSVM_SETS, SHARED_DATA

    path = os.path.join(SHARED_DATA, "libsvm", f"{name}_{name}.trn.bz2")
    if not os.path.isfile(path):
        pytest.skip("the shared data folder is not beside this checkout")
    from sklearn.datasets import load_svmlight_file

    X, _ = load_svmlight_file(path, zero_based=True)  # column k holds index k
    used = np.flatnonzero(X.getnnz(axis=0))
    info = LIBSVM_SETS[name]
    assert used.min() == (0 if info.zero_based else 1)
    assert used.max() == info.n_features - (1 if info.zero_based else 0)


@pytest.mark.parametrize("command", ["onepass", "sparse"])
def test_named_set_without_a_checkout_says_where_to_get_the_files(command, tmp_path, capsys, monkeypatch):
    """As from a wheel: no source checkout and no folder given. The message names the files, where to
    download them and how to pass the folder."""
    from aucopt import datasets

    monkeypatch.delenv("AUCOPT_DATA", raising=False)
    monkeypatch.setattr(datasets, "SHARED_DATA", str(tmp_path / "lib" / "python3.11" / "shared" / "data"))
    err = _one_line_error(capsys, [command, "adult"])
    assert "not run from a source checkout" in err
    for expected in ("libsvm/adult_adult.trn.bz2", "libsvm/adult_adult.tst.bz2", "binary/adult/adult.trn.bz2",
                     "https://github.com/X-DataInitiative/tick-datasets", "--data-dir DIR", "AUCOPT_DATA"):
        assert expected in err
    # a folder without the test file names it; --test makes it unneeded
    _named_set_folder(tmp_path / "data", "adult", zero_based=True)
    (tmp_path / "data" / "libsvm" / "adult_adult.tst.bz2").unlink()
    monkeypatch.setenv("AUCOPT_DATA", str(tmp_path / "data"))
    err = _one_line_error(capsys, [command, "adult"])
    assert "Data file libsvm/adult_adult.tst.bz2 not found in" in err and "binary/adult/adult.tst.bz2" in err
    test = tmp_path / "test.svm"
    dump_svmlight_file(np.eye(123)[:6] + 1.0, np.arange(6) % 2, str(test), zero_based=True)
    extra = ["--basis-size", "2"] if command == "sparse" else []
    assert main([command, "adult", "--test", str(test), "--json", *extra]) == 0
    capsys.readouterr()


# --------------------------------------------------------------------------- sparse
def test_sparse_reports_why_it_stopped_and_the_computed_validation_aucs(capsys):
    argv = ["sparse", "breast_cancer", "--basis-size", "30", "--kappa", "10"]
    assert main([*argv, "--json"]) == 0
    document, err = _json(capsys)
    X, y = load_breast_cancer(return_X_y=True)
    y = (y == 0).astype(int)
    X_tr, _X_te, y_tr, _y_te = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
    model = SparseAUC(C=1.0, basis_size=30, kappa=10, random_state=0).fit(StandardScaler().fit_transform(X_tr), y_tr)
    summary = document["summary"]
    assert summary["stop_reason"] == model.stop_reason_ and summary["kept"] == len(model.support_)
    assert [r["validation_auc"] for r in document["rows"]] == [s["val_score"] for s in model.path_]
    assert any(r["validation_auc"] is not None for r in document["rows"])
    reason = {"validation": "consecutive validation checks did not beat", "basis_size": "reached --basis-size 30",
              "no_candidates": "every distinct training point"}[model.stop_reason_]
    assert reason in err
    # without a validation split: "—" and why
    assert main(["sparse", "breast_cancer", "--basis-size", "4", "--kappa", "10", "--validation-fraction", "0"]) == 0
    out = capsys.readouterr().out
    assert "no validation split (--validation-fraction 0)" in out
    rows = [line.split() for line in out.splitlines() if re.match(r"^\s+\d+\s+[0-9.]+", line)]
    assert len(rows) == 4 and all(r[-1] == cli.MISSING for r in rows)
    assert "reached --basis-size 4" in out


@pytest.mark.parametrize("case, reason", [("basis", "basis_size"), ("duplicates", "no_candidates"),
                                          ("validation", "validation")])
def test_sparse_auc_stop_reason(case, reason):
    rng = np.random.default_rng(0)
    if case == "duplicates":  # 4 distinct rows: the basis cannot grow past 4
        X = np.repeat(rng.normal(size=(4, 2)), 3, axis=0)
        y = np.tile([0, 1], 6)
        model = SparseAUC(basis_size=8, kappa=5, validation_fraction=0).fit(X, y)
        assert model.n_iter_ == 4
    elif case == "basis":
        X, y = rng.normal(size=(40, 2)), np.arange(40) % 2
        model = SparseAUC(basis_size=3, kappa=5, validation_fraction=0).fit(X, y)
        assert model.n_iter_ == 3
    else:  # labels unrelated to X: the validation AUC stops improving long before basis_size
        X, y = rng.normal(size=(200, 2)), rng.permutation(np.arange(200) % 2)
        model = SparseAUC(C=0.01, basis_size=60, kappa=5, n_iter_no_change=2).fit(X, y)
        assert model.n_iter_ < 60
    assert model.stop_reason_ == reason


def test_sparse_progress_bar_with_verbose(capsys):
    assert main(["sparse", "breast_cancer", "--basis-size", "3", "--kappa", "5", "--csv", "-v"]) == 0
    captured = capsys.readouterr()
    assert "SparseAUC" in captured.err and "basis" in captured.err
    assert [r["basis"] for r in _csv_rows(captured.out)] == ["1", "2", "3"]


# --------------------------------------------------------------------------- survival
def _survival_csv(tmp_path, m=60):
    import pandas as pd

    rng = np.random.default_rng(0)
    x = rng.normal(size=m)
    frame = pd.DataFrame({"a": x, "b": rng.normal(size=m), "T": rng.exponential(np.exp(-x)),
                          "E": (rng.random(m) < 0.7).astype(int)})
    path = tmp_path / "surv.csv"
    frame.to_csv(path, index=False)
    return str(path)


def _survival_argv(tmp_path, *extra):
    return ["survival", "--data", _survival_csv(tmp_path), "--time", "T", "--event", "E", "--model", "newton",
            "--splits", "2", *extra]


def test_survival_csv_and_json_match_the_protocol(tmp_path, capsys, monkeypatch):
    pytest.importorskip("lifelines")
    from sklearn.pipeline import make_pipeline

    from aucopt.datasets import load_survival
    from aucopt.survival import CoxPH, compare_methods, pooled_cindex_cv

    monkeypatch.chdir(tmp_path)
    assert main(_survival_argv(tmp_path, "--repeats", "2", "--csv")) == 0
    captured = capsys.readouterr()
    rows = {r["method"]: r for r in _csv_rows(captured.out)}
    assert list(rows) == ["cox", "newton"]  # the baseline first
    assert list(rows["cox"]) == ["method", "pooled_c_mean", "pooled_c_sd", "fold_c", "p_vs_cox", "seconds"]
    assert rows["cox"]["p_vs_cox"] == ""  # missing: an empty field
    X, y = load_survival(_survival_csv(tmp_path), time="T", event="E")
    args = build_parser().parse_args(_survival_argv(tmp_path))
    newton = pooled_cindex_cv(cli.survival.build_model("newton", args, PairSet.survival(y)), X, y,
                              n_splits=2, n_repeats=2)
    cox = pooled_cindex_cv(make_pipeline(MinMaxScaler(), CoxPH(alpha=0.01)), X, y, n_splits=2, n_repeats=2)
    assert float(rows["newton"]["pooled_c_mean"]) == pytest.approx(newton.mean, abs=1e-12)
    assert float(rows["newton"]["p_vs_cox"]) == pytest.approx(compare_methods(newton, cox).pvalue, abs=1e-12)
    assert "comparable pairs" in captured.err
    assert list(tmp_path.glob("*.png")) == []  # no figure unless --km-png

    assert main(_survival_argv(tmp_path, "--repeats", "1", "--json")) == 0
    document, _ = _json(capsys)
    cox_row, newton_row = document["rows"]
    assert cox_row["method"] == "cox" and cox_row["p_vs_cox"] is None and newton_row["p_vs_cox"] is None
    assert newton_row["pooled_c_sd"] == 0 and isinstance(newton_row["pooled_c_mean"], float)
    assert document["summary"]["subjects"] == 60 and "km_png" not in document["summary"]


def test_survival_n_jobs_changes_only_the_time(tmp_path, capsys, monkeypatch, process_pool):
    """--n-jobs 2 fits the folds in two worker processes: the same table, number for number."""
    monkeypatch.chdir(tmp_path)
    tables = []
    for extra in ((), ("--n-jobs", "2")):
        assert main(_survival_argv(tmp_path, "--repeats", "2", "--no-cox", "--json", *extra)) == 0
        document, _ = _json(capsys)
        tables.append([{k: v for k, v in row.items() if k != "seconds"} for row in document["rows"]])
    assert tables[0] == tables[1] and tables[0][0]["method"] == "newton"


def test_survival_text_table_streams_rows_with_dashes(tmp_path, capsys, monkeypatch):
    pytest.importorskip("lifelines")
    from aucopt.survival import _protocol

    real, printed = _protocol.pooled_cindex_cv, []

    def spy(*args, **kwargs):
        printed.append(capsys.readouterr().out)
        return real(*args, **kwargs)

    monkeypatch.setattr(_protocol, "pooled_cindex_cv", spy)
    monkeypatch.chdir(tmp_path)
    assert main(_survival_argv(tmp_path, "--repeats", "1", "--model", "newton", "lpr")) == 0
    printed.append(capsys.readouterr().out)
    assert len(printed) == 4  # before cox, before newton, before lpr, after lpr
    assert "p vs cox" in printed[0] and not re.search(r"^cox ", printed[0], flags=re.MULTILINE)
    assert re.search(r"^cox\s", printed[1], flags=re.MULTILINE)  # cox's row, before newton's CV
    assert re.search(r"^newton\s", printed[2], flags=re.MULTILINE)
    assert re.search(r"^lpr\s", printed[3], flags=re.MULTILINE)
    table = "".join(printed)
    assert not re.search(r"\bnan\b", table, flags=re.IGNORECASE)
    cox_row = next(line for line in table.splitlines() if line.startswith("cox "))
    assert cox_row.split()[-2] == cli.MISSING  # the baseline's own p-value
    assert list(tmp_path.glob("*.png")) == []


def test_survival_verbose_reaches_the_estimators_and_the_bar(tmp_path, capsys, monkeypatch):
    pytest.importorskip("lifelines")
    from aucopt import survival

    real, seen = survival.evaluate_methods, {}

    def spy(methods, *args, **kwargs):
        seen.update(methods)
        seen["verbose"] = kwargs["verbose"]
        return real(methods, *args, **kwargs)

    monkeypatch.setattr(survival, "evaluate_methods", spy)
    assert main(_survival_argv(tmp_path, "--repeats", "1", "--json", "-v")) == 0
    err = capsys.readouterr().err
    assert seen["verbose"] == 1 and seen["newton"][-1].verbose == 1 and seen["cox"][-1].verbose == 1
    assert "CV SurvivalRankSVM" in err and "CV CoxPH" in err  # each bar names its model
    seen.clear()
    assert main(_survival_argv(tmp_path, "--repeats", "1", "--json")) == 0
    assert seen["verbose"] == 0 and seen["newton"][-1].verbose == 0
    assert "CV SurvivalRankSVM" not in capsys.readouterr().err


@pytest.mark.parametrize("modules, extra, package", [
    (["sksurv", "sksurv.datasets"], ["--data", "whas500"], "--data whas500 needs scikit-survival"),
    (["lifelines"], None, "the Cox baseline needs lifelines"),
    (["matplotlib", "matplotlib.pyplot"], ["--km-png", "km.png"], "--km-png needs matplotlib"),
    (["h5py"], ["--data", "support"], "--data support (an HDF5 file) needs h5py"),
])
def test_survival_missing_optional_package_is_one_line(tmp_path, capsys, monkeypatch, modules, extra, package):
    from aucopt import survival

    def no_cv(*args, **kwargs):
        raise AssertionError("the cross-validation ran without the package")

    monkeypatch.setattr(survival, "evaluate_methods", no_cv)
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    if extra and extra[1] == "support":
        (tmp_path / "survival").mkdir()
        (tmp_path / "survival" / "support_train_test.h5").write_bytes(b"")
        monkeypatch.setenv("AUCOPT_DATA", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    argv = _survival_argv(tmp_path, "--repeats", "1") + (extra or [])
    err = _one_line_error(capsys, argv)
    assert err == f"aucopt: error: {package}: pip install 'aucopt[survival]'"
    if "lifelines" in modules:  # --no-cox goes on to the cross-validation without it
        err = _one_line_error(capsys, [*argv, "--no-cox"], code=1)
        assert "the cross-validation ran without the package" in err


def test_survival_deepsurv_set_from_the_data_dir(tmp_path, capsys, monkeypatch):
    h5py = pytest.importorskip("h5py")
    rng = np.random.default_rng(3)
    (tmp_path / "survival").mkdir()
    with h5py.File(tmp_path / "survival" / "gbsg_cancer_train_test.h5", "w") as fh:
        for part, n in (("train", 40), ("test", 20)):
            x = rng.normal(size=(n, 3))
            fh.create_dataset(f"{part}/x", data=x)
            fh.create_dataset(f"{part}/t", data=rng.exponential(np.exp(-x[:, 0])))
            fh.create_dataset(f"{part}/e", data=(rng.random(n) < 0.7).astype(int))
    monkeypatch.chdir(tmp_path)
    argv = ["survival", "--data", "gbsg", "--model", "newton", "--no-cox", "--splits", "2", "--repeats", "1", "--json"]
    assert main([*argv, "--data-dir", str(tmp_path)]) == 0
    document, _ = _json(capsys)
    assert document["summary"]["subjects"] == 60 and [r["method"] for r in document["rows"]] == ["newton"]
    err = _one_line_error(capsys, [*argv, "--data-dir", str(tmp_path / "missing")])
    assert "missing" in err and "--data-dir" in err


def test_survival_unknown_data_names_the_choices(tmp_path, capsys):
    err = _one_line_error(capsys, ["survival", "--data", "whas5000"])
    assert "whas5000" in err and "whas500" in err and "support" in err and "CSV" in err


def test_comparison_table_streams_and_holds_rows_until_the_baseline():
    from aucopt.survival import PooledCVResult, comparison_table

    def result(c):
        return PooledCVResult(np.array(c), np.full((len(c), 2), 0.7), np.zeros((len(c), 4)), np.zeros((len(c), 4)),
                              np.zeros((len(c), 4), dtype=int), seconds=1.0)

    arrived = []

    def results():
        for name, c in (("A", [0.70, 0.72, 0.71]), ("base", [0.65, 0.66, 0.68]), ("B", [0.6, 0.7, 0.65])):
            arrived.append(name)
            yield name, result(c)

    lines = comparison_table(results(), baseline="base", stream=True)
    assert next(lines).split()[0] == "method" and arrived == []  # the header before any result
    assert next(lines).startswith("A ") and arrived == ["A", "base"]  # A waited for its baseline
    assert next(lines).startswith("base ") and next(lines).startswith("B ") and arrived == ["A", "base", "B"]
    text = comparison_table({"A": result([0.7])})
    assert not re.search(r"\bnan\b", text) and text.splitlines()[1].split()[-2] == "—"


def test_a_closed_pipe_ends_quietly(monkeypatch, capsys):
    monkeypatch.setattr(cli.solvers, "run", _raises(BrokenPipeError(32, "Broken pipe")))
    assert main(["solvers"]) == 141
    assert capsys.readouterr().err == ""
