"""End-to-end tests of ``aucopt survival`` (the protocol of Ataman 2007, Sec. 5.3.5, through the CLI)."""

import re

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sksurv")
pytest.importorskip("lifelines")
pytest.importorskip("matplotlib")

from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler

from aucopt.cli import build_parser, main
from aucopt.cli.survival import build_model as _survival_model
from aucopt.datasets import load_survival
from aucopt.pairs import PairSet
from aucopt.survival import CoxPH, pooled_cindex_cv

ROW = re.compile(r"^(\S+)\s+([0-9.]+) ± ([0-9.]+)\s+([0-9.]+)\s+(\S+)\s+([0-9.]+)$")


def _table(out):
    return {m.group(1): float(m.group(2)) for line in out.splitlines() if (m := ROW.match(line.strip()))}


def test_cli_matches_pooled_cindex_cv(tmp_path, capsys):
    png = tmp_path / "km.png"
    argv = ["survival", "--data", "veterans", "--model", "lpr", "newton", "--splits", "3",
            "--repeats", "2", "--km-png", str(png)]
    assert main(argv) == 0
    table = _table(capsys.readouterr().out)
    assert set(table) == {"lpr", "newton", "cox"}
    args = build_parser().parse_args(argv)
    X, y = load_survival("veterans")
    estimators = {m: _survival_model(m, args, PairSet.survival(y)) for m in ("lpr", "newton")}
    estimators["cox"] = make_pipeline(MinMaxScaler(), CoxPH(alpha=args.cox_alpha))
    for name, est in estimators.items():
        res = pooled_cindex_cv(est, X, y, n_splits=3, n_repeats=2, random_state=0)
        assert table[name] == pytest.approx(round(res.mean, 4), abs=1e-4)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_single_repetition(tmp_path):
    assert main(["survival", "--data", "veterans", "--model", "newton", "--splits", "3",
                 "--repeats", "1", "--km-png", str(tmp_path / "km.png")]) == 0


def _csv(tmp_path, name="d.csv", **change):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=60), "b": rng.normal(size=60), "T": rng.exponential(size=60),
                       "E": rng.integers(0, 2, 60)})
    for col, value in change.items():
        df[col] = value
    path = tmp_path / name
    df.to_csv(path, index=False)
    return str(path)


def test_cli_csv(tmp_path, capsys):
    path = _csv(tmp_path)
    assert main(["survival", "--data", path, "--time", "T", "--event", "E", "--model", "newton",
                 "--splits", "3", "--repeats", "2", "--km-png", ""]) == 0
    assert set(_table(capsys.readouterr().out)) == {"newton", "cox"}


@pytest.mark.parametrize("case", ["unknown", "no_time", "negative", "censored"])
def test_cli_bad_input(tmp_path, capsys, case):
    if case == "unknown":
        argv = ["survival", "--data", "no_such_set"]
    elif case == "no_time":
        argv = ["survival", "--data", _csv(tmp_path), "--event", "E"]
    elif case == "negative":
        argv = ["survival", "--data", _csv(tmp_path, T=np.r_[-1.0, np.ones(59)]), "--time", "T", "--event", "E"]
    else:
        argv = ["survival", "--data", _csv(tmp_path, E=0), "--time", "T", "--event", "E"]
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--km-png", ""])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("aucopt: error: ") and "\n" not in err


def _one_line_error(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert err.startswith("aucopt: error: ") and "\n" not in err and "Traceback" not in captured.err
    return err, captured.out


def test_cli_time_and_event_must_differ(tmp_path, capsys):
    err, _ = _one_line_error(capsys, ["survival", "--data", _csv(tmp_path), "--time", "T", "--event", "T",
                                      "--km-png", ""])
    assert "time and event name the same column 'T'" in err


def test_cli_csv_without_covariates(tmp_path, capsys):
    path = tmp_path / "te.csv"
    pd.read_csv(_csv(tmp_path))[["T", "E"]].to_csv(path, index=False)
    err, _ = _one_line_error(capsys, ["survival", "--data", str(path), "--time", "T", "--event", "E",
                                      "--km-png", ""])
    assert "no covariate column" in err


@pytest.mark.parametrize("content, message", [
    ("a,T,E\n", "no data rows"), ("", "is empty"),
    ("a,T,E\n,1.0,1\n,2.0,0\n", "2 missing value(s): column 'a' on lines 2, 3"),
])
def test_cli_csv_without_usable_rows(tmp_path, capsys, content, message):
    path = tmp_path / "rows.csv"
    path.write_text(content)
    err, _ = _one_line_error(capsys, ["survival", "--data", str(path), "--time", "T", "--event", "E",
                                      "--km-png", ""])
    assert message in err


def test_cli_km_png_directory_is_checked_before_the_cv(tmp_path, capsys, monkeypatch):
    from aucopt import survival

    def no_cv(*args, **kwargs):
        raise AssertionError("the cross-validation ran before the output path was checked")

    monkeypatch.setattr(survival, "evaluate_methods", no_cv)
    err, out = _one_line_error(capsys, ["survival", "--data", _csv(tmp_path), "--time", "T", "--event", "E",
                                        "--model", "newton", "--km-png", str(tmp_path / "missing" / "km.png")])
    assert "--km-png" in err and "does not exist" in err and out == ""


def test_cli_full_lp_over_the_budget_is_refused_up_front(tmp_path, capsys, monkeypatch):
    from aucopt import survival

    def no_cv(*args, **kwargs):
        raise AssertionError("the cross-validation ran on an LP over the memory budget")

    monkeypatch.setattr(survival, "evaluate_methods", no_cv)
    err, _ = _one_line_error(capsys, ["survival", "--data", _csv(tmp_path), "--time", "T", "--event", "E",
                                      "--model", "lpr", "--method", "full", "--max-bytes", "1e4",
                                      "--km-png", ""])
    # the suggestion names a path that fits this budget (the 60 x 60 kernel alone is over 1e4 bytes)
    assert "would need about" in err and "max_bytes=" in err and re.search(r": use \w+\(", err), err
    # the default route stays within the budget of these 60 subjects
    args = build_parser().parse_args(["survival", "--max-bytes", "1e4"])
    assert _survival_model("lpr", args, PairSet.survival([True, False], [1.0, 2.0]))[-1].max_bytes == 1e4


def test_cli_max_bytes_must_be_positive(tmp_path, capsys):
    err, _ = _one_line_error(capsys, ["survival", "--data", _csv(tmp_path), "--time", "T", "--event", "E",
                                      "--max-bytes", "0", "--km-png", ""])
    assert "--max-bytes must be positive" in err


# ----------------------------------------------------------------------------- the path each model takes
@pytest.fixture
def cv_spy(monkeypatch, capsys):
    """Run the real cross-validation, recording the models and what was printed before it began."""
    from aucopt import survival

    real, seen = survival.evaluate_methods, {}

    def spy(methods, *args, **kwargs):
        seen["methods"] = dict(methods)
        seen["printed_before_cv"] = capsys.readouterr().out
        return real(methods, *args, **kwargs)

    monkeypatch.setattr(survival, "evaluate_methods", spy)
    return seen


def _n_pairs(path):
    _X, y = load_survival(path, time="T", event="E")
    return PairSet.survival(y).n_pairs


def test_cli_aucsvm_auto_on_many_pairs_takes_the_newton_path_and_says_why(tmp_path, capsys, monkeypatch, cv_spy):
    from aucopt import SurvivalRankSVM, cli

    path = _csv(tmp_path)
    n_pairs = _n_pairs(path)
    monkeypatch.setattr(cli.survival, "AUCSVM_QP_MAX_PAIRS", n_pairs - 1)  # these 60 subjects count as "many pairs"
    assert main(["survival", "--data", path, "--time", "T", "--event", "E", "--model", "aucsvm",
                 "--splits", "2", "--repeats", "1", "--km-png", ""]) == 0
    before = cv_spy["printed_before_cv"]
    notes = [line for line in before.splitlines() if line.startswith("aucsvm")]
    assert len(notes) == 1, before
    assert f"{n_pairs:,} comparable pairs > {n_pairs - 1:,}" in notes[0] and "truncated Newton" in notes[0]
    assert "--method full forces the QP" in notes[0]
    model = cv_spy["methods"]["aucsvm:newton"][-1]
    assert isinstance(model, SurvivalRankSVM) and model.alpha == 1e-3
    assert "aucsvm:newton" in _table(capsys.readouterr().out)


def test_cli_aucsvm_auto_on_few_pairs_solves_the_dual_and_says_so(tmp_path, capsys, cv_spy):
    from aucopt import SurvivalAUCSVM

    path = _csv(tmp_path)
    assert main(["survival", "--data", path, "--time", "T", "--event", "E", "--model", "aucsvm", "lpr",
                 "--splits", "2", "--repeats", "1", "--km-png", ""]) == 0
    before = cv_spy["printed_before_cv"]
    assert (f"aucsvm: the pairwise dual by dual coordinate descent ({_n_pairs(path):,} comparable pairs <= 200,000; "
            "--method full solves it as a QP)") in before
    assert f"lpr: method='auto': the full LP, one row per pair, exact ({_n_pairs(path):,} pairs; predicted" in before
    aucsvm = cv_spy["methods"]["aucsvm"][-1]
    assert isinstance(aucsvm, SurvivalAUCSVM) and aucsvm.method == "dcd"
    assert cv_spy["methods"]["lpr"][-1].method == "auto"  # each fold chooses, by the same rule


def test_cli_explicit_full_path_on_many_pairs_prints_the_size_before_the_cv(tmp_path, capsys, monkeypatch, cv_spy):
    from aucopt import cli

    path = _csv(tmp_path)
    n_pairs = _n_pairs(path)
    monkeypatch.setattr(cli.survival, "AUCSVM_QP_MAX_PAIRS", 10)
    assert main(["survival", "--data", path, "--time", "T", "--event", "E", "--model", "aucsvm", "--method", "full",
                 "--splits", "2", "--repeats", "1", "--km-png", ""]) == 0
    notes = [line for line in cv_spy["printed_before_cv"].splitlines() if line.startswith("aucsvm --method full")]
    assert len(notes) == 1 and "the pairwise dual QP with one variable per comparable pair" in notes[0]
    assert f"({n_pairs:,} " in notes[0] and "2 fits" in notes[0]
    assert cv_spy["methods"]["aucsvm"][-1].method == "full"


def test_cli_explicit_lp_route_predicted_slow_says_so_before_the_cv(tmp_path, capsys, monkeypatch, cv_spy):
    import aucopt._runtime

    path = _csv(tmp_path)
    monkeypatch.setattr(aucopt._runtime, "SLOW_FIT_SECONDS", 0.0)
    assert main(["survival", "--data", path, "--time", "T", "--event", "E", "--model", "lpr", "--method", "full",
                 "--splits", "2", "--repeats", "1", "--km-png", ""]) == 0
    notes = [line for line in cv_spy["printed_before_cv"].splitlines() if line.startswith("lpr:")]
    assert len(notes) == 1 and f"method='full' ({_n_pairs(path):,} pairs)" in notes[0] and "2 fits" in notes[0]
    assert "in all (each fit predicted" in notes[0]
    assert cv_spy["methods"]["lpr"][-1].method == "full"


def test_cli_lpr_auto_takes_the_estimators_choice_and_says_why(tmp_path, capsys, monkeypatch, cv_spy):
    import aucopt._runtime

    path = _csv(tmp_path)
    monkeypatch.setattr(aucopt._runtime, "AUTO_FULL_SECONDS", 0.0)  # these 60 subjects count as a slow LP
    assert main(["survival", "--data", path, "--time", "T", "--event", "E", "--model", "lpr",
                 "--splits", "2", "--repeats", "1", "--km-png", ""]) == 0
    assert ("lpr: method='auto': smoothing to a certified relative gap of 0.001, predicted"
            in cv_spy["printed_before_cv"])
    model = cv_spy["methods"]["lpr"][-1]
    assert model.method == "auto" and model.select_method(PairSet.survival(*_event_time(path)))[0] == "smoothing"


def _event_time(path):
    _, y = load_survival(path, time="T", event="E")
    return y["event"], y["time"]
