"""End-to-end tests of ``aucopt survival`` (the protocol of Ataman 2007, Sec. 5.3.5, through the CLI)."""

import re

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sksurv")
pytest.importorskip("lifelines")
pytest.importorskip("matplotlib")

from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import MinMaxScaler  # noqa: E402

from aucopt.cli import _survival_model, build_parser, main  # noqa: E402
from aucopt.datasets import load_survival  # noqa: E402
from aucopt.pairs import PairSet  # noqa: E402
from aucopt.survival import CoxPH, pooled_cindex_cv  # noqa: E402

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
    n_pairs = PairSet.survival(y).n_pairs
    estimators = {m: _survival_model(m, args, n_pairs) for m in ("lpr", "newton")}
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
        main(argv + ["--km-png", ""])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("aucopt: error: ") and "\n" not in err
