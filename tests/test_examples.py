"""The examples gallery (examples/): layout, execution, data handling.

Every ``plot_*.py`` example is executed once in a test run, by the documentation build
(sphinx-gallery, the ``docs_build`` fixture of tests/conftest.py): its printed results are read
from the page the build wrote and its figures from the JSON description the gallery's
``gallery_report`` scraper (docs/sphinxext) left, and both are checked here. The other examples run here as a
subprocess from an empty temporary directory with pyplot's ``show`` a no-op: examples needing the
external data folder must refuse a missing folder with exit code 2 and one line; with the
repository's ``../shared/data`` beside the checkout they also run (quickly) on the real data.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SHARED_DATA = EXAMPLES.parent.parent / "shared" / "data"

#: examples needing the external data folder: the files they need
DATA_EXAMPLES = {"binary/coil2000_subgradient.py": ["coil2000/ticdata.csv.gz", "coil2000/levels.json"]}
#: data-free examples too slow for the documentation build (minutes), run here on a small protocol
SLOW_EXAMPLES = {"survival/survival_gbsg2.py": ["--splits", "2", "--repeats", "1"]}

PLOT_EXAMPLES = sorted(p.relative_to(EXAMPLES).as_posix() for p in EXAMPLES.rglob("plot_*.py"))
ALL_EXAMPLES = sorted(p.relative_to(EXAMPLES).as_posix() for p in EXAMPLES.rglob("*.py"))

# Runs an example as __main__ the way sphinx-gallery does (pyplot figures, no window), then
# writes a description of the pyplot figures it left open.
RUNNER = r"""
import json, runpy, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
plt.show = lambda *args, **kwargs: None
script, report = sys.argv[1], sys.argv[2]
sys.argv = [script] + sys.argv[3:]
runpy.run_path(script, run_name="__main__")
figures = []
for number in plt.get_fignums():
    axes = []
    for ax in plt.figure(number).axes:
        axes.append({"title": ax.get_title(), "xlabel": ax.get_xlabel(), "ylabel": ax.get_ylabel(),
                     "n_images": len(ax.images),
                     "lines": [[list(map(float, line.get_xdata())), list(map(float, line.get_ydata()))]
                               for line in ax.lines]})
    figures.append(axes)
with open(report, "w") as fh:
    json.dump(figures, fh)
"""


def _environment(**extra):
    env = {k: v for k, v in os.environ.items() if k != "AUCOPT_DATA"}
    env.update(MPLBACKEND="Agg", PYTHONIOENCODING="utf-8", **extra)
    return env


def run_example(name, tmp_path, *args, env=None):
    """Run examples/<name> from an empty directory; returns (completed process, figures or None)."""
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    report = tmp_path / "figures.json"
    proc = subprocess.run([sys.executable, "-c", RUNNER, str(EXAMPLES / name), str(report), *args],
                          cwd=workdir, env=env or _environment(), capture_output=True, text=True,
                          timeout=300)
    figures = json.loads(report.read_text()) if report.exists() else None
    return proc, figures, workdir


def gallery_run(docs_build, name):
    """What the documentation build's execution of examples/<name> printed and drew."""
    written = sorted(p.relative_to(docs_build.examples) for p in docs_build.examples.rglob("*")
                     if p.is_file() and "__pycache__" not in p.parts)
    shipped = sorted(p.relative_to(EXAMPLES) for p in EXAMPLES.rglob("*")
                     if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".png")
    assert written == shipped, "an example must not write files where it runs"
    return docs_build.stdout(name), docs_build.figures(name)


def _check_ran(proc, workdir):
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert list(workdir.iterdir()) == [], "an example must not write files into the working directory"


# ------------------------------------------------------------------------------ layout
def test_gallery_layout():
    """Every folder has a gallery header; file names are unique (sphinx-gallery links by name)."""
    folders = {EXAMPLES} | {p.parent for p in EXAMPLES.rglob("*.py")}
    for folder in folders:
        assert (folder / "GALLERY_HEADER.rst").is_file(), f"{folder} has no GALLERY_HEADER.rst"
    names = [Path(p).name for p in ALL_EXAMPLES]
    assert len(names) == len(set(names)), names
    # every example is either executed by the docs build, or listed here with how it is tested
    others = {p for p in ALL_EXAMPLES if not Path(p).name.startswith("plot_")}
    assert others == set(DATA_EXAMPLES) | set(SLOW_EXAMPLES)
    assert len(PLOT_EXAMPLES) >= 6


@pytest.mark.parametrize("name", ALL_EXAMPLES)
def test_sphinx_gallery_format(name):
    """A module docstring opening with a reST title and a paragraph, then ``# %%`` cells."""
    source = (EXAMPLES / name).read_text(encoding="utf-8")
    docstring = ast.get_docstring(ast.parse(source), clean=False)
    assert docstring is not None, f"{name} has no module docstring"
    lines = docstring.strip("\n").splitlines()
    title, underline = lines[0], lines[1]
    assert set(underline) == {"="} and len(underline) >= len(title), (title, underline)
    assert lines[2] == "" and lines[3].strip(), "the title is followed by a paragraph"
    assert source.count("\n# %%\n") >= 2, f"{name} is not split into cells"
    for internal in ("../shared", "shared/research", "seeds/", "seed file", "pitfall", "spec section"):
        assert internal not in source.lower(), f"{name} mentions {internal!r}"


# ------------------------------------------------------------------------------ plot_ examples
def _printed_aucs(stdout):
    return {m.group(1).strip(): float(m.group(2))
            for m in re.finditer(r"^(.+?)\s+test AUC (\d\.\d+)\s*$", stdout, re.MULTILINE)}


def _table(stdout):
    """Rows of aucopt.survival.comparison_table: method -> pooled C."""
    return {m.group(1): float(m.group(2))
            for m in re.finditer(r"^(LP Ranker|RankSVM|Cox)\s+(\d\.\d+) ±", stdout, re.MULTILINE)}


def test_plot_roc_curves(docs_build):
    stdout, figures = gallery_run(docs_build, "binary/plot_roc_curves.py")
    aucs = _printed_aucs(stdout)
    assert set(aucs) == {"LP Ranker", "AUC-SVM", "RankSVM", "RankRC", "logistic regression"}
    assert all(0.95 < auc <= 1 for auc in aucs.values()), aucs
    (full, _zoom), = figures
    roc_lines = [line for line in full["lines"] if len(line[0]) > 2]   # the chance line has 2 points
    assert len(roc_lines) == 5
    for fpr, tpr in roc_lines:  # ROC curves: monotone from (0, 0) to (1, 1), AUC as printed
        assert fpr[0] == tpr[0] == 0 and fpr[-1] == tpr[-1] == 1
        assert np.all(np.diff(fpr) >= 0) and np.all(np.diff(tpr) >= 0)
    areas = sorted(np.trapezoid(tpr, fpr) for fpr, tpr in roc_lines)
    np.testing.assert_allclose(areas, sorted(aucs.values()), atol=1e-4)


def test_plot_lp_ranker_wdbc(docs_build):
    stdout, figures = gallery_run(docs_build, "binary/plot_lp_ranker_wdbc.py")
    best = float(re.search(r"cross-validated AUC (\d\.\d+)", stdout).group(1))
    test = float(re.search(r"^test AUC (\d\.\d+)", stdout, re.MULTILINE).group(1))
    assert 0.95 < best <= 1 and 0.95 < test <= 1
    n_sv, n_train = map(int, re.search(r"(\d+) support vectors of (\d+)", stdout).groups())
    assert 0 < n_sv < n_train == 284    # half of WDBC's 569 rows; the 1-norm keeps few points
    (heat_map, _colorbar), = figures
    assert heat_map["n_images"] == 1 and heat_map["xlabel"] == "RBF γ"


def test_plot_custom_formulation(docs_build):
    stdout, _figures = gallery_run(docs_build, "binary/plot_custom_formulation.py")
    rows = re.findall(r"^(highs|osqp|clarabel)\s+(\S+)\s+objective (\S+)\s+test AUC (\S+)", stdout,
                      re.MULTILINE)
    assert [r[0] for r in rows] == ["highs", "osqp", "clarabel"]
    assert all(r[1] == "optimal" for r in rows)
    objectives, aucs = [float(r[2]) for r in rows], [float(r[3]) for r in rows]
    np.testing.assert_allclose(objectives, objectives[0], rtol=1e-4)   # one QP, three solvers
    estimator_auc = float(re.search(r"formulation='l2_pair_hinge'\) test AUC (\S+)", stdout).group(1))
    assert min(aucs) > 0.95 and abs(estimator_auc - aucs[0]) < 0.01
    assert "z[3375]" in stdout     # one slack per pair: 45 malignant × 75 benign tumours


def test_plot_regularization_path(docs_build):
    from sklearn.datasets import load_breast_cancer

    stdout, figures = gallery_run(docs_build, "binary/plot_regularization_path.py")
    (auc_ax, coef_ax), (objective_ax, _validation_ax) = figures
    (alphas, train), (_, test) = auc_ax["lines"]
    assert len(alphas) == 29 and np.all(np.diff(alphas) < 0)
    assert train[-1] > test[-1] and max(test) > test[-1]         # the path ends overfitted
    assert len(coef_ax["lines"]) == load_breast_cancer().data.shape[1]
    first = np.array([line[1][0] for line in coef_ax["lines"]])
    last = np.array([line[1][-1] for line in coef_ax["lines"]])
    assert np.linalg.norm(first) < np.linalg.norm(last) / 10      # strong penalty: small weights
    sizes, objective = objective_ax["lines"][0]
    assert sizes == list(range(1, len(sizes) + 1)) and np.all(np.diff(objective) <= 1e-9 * objective[0])
    kept, grown = map(int, re.search(r"grew (\d+) basis vectors, kept (\d+)", stdout).groups()[::-1])
    assert 1 <= kept <= grown == len(sizes)


@pytest.mark.parametrize("name, n_curves", [("survival/plot_survival_whas500.py", 4),
                                            ("survival/plot_survival_flchain.py", 6)])
def test_plot_survival_protocol(name, n_curves, docs_build):
    pytest.importorskip("sksurv")
    pytest.importorskip("lifelines")
    stdout, figures = gallery_run(docs_build, name)
    table = _table(stdout)
    assert set(table) == {"LP Ranker", "RankSVM", "Cox"} and all(0.6 < c < 0.95 for c in table.values())
    km_axes = [ax for fig in figures for ax in fig if ax["ylabel"]]
    curves = [line for ax in km_axes for line in ax["lines"] if len(line[0]) > 2]
    assert len(curves) >= n_curves     # a high-risk and a rest curve per method
    for _, survival in curves:         # Kaplan–Meier curves: start at 1, non-increasing
        assert survival[0] == 1 and np.all(np.diff(survival) <= 1e-12)


def test_plot_survival_veterans(docs_build):
    pytest.importorskip("sksurv")
    pytest.importorskip("lifelines")
    stdout, figures = gallery_run(docs_build, "survival/plot_survival_veterans.py")
    assert set(_table(stdout)) == {"LP Ranker", "RankSVM", "Cox"}
    (ax,), = figures
    assert len(ax["lines"]) == 3
    for times, auc in ax["lines"]:
        assert len(times) == 8 and np.all(np.diff(times) > 0) and all(0.5 < a <= 1 for a in auc)


@pytest.mark.parametrize("name", PLOT_EXAMPLES)
def test_plot_example_prints_no_warning(name, docs_build):
    """The gallery shows what an example printed, warnings included: a reader would take one for a fault."""
    stdout, _figures = gallery_run(docs_build, name)
    assert "Warning:" not in stdout, f"{name} warns:\n{stdout}"


def test_every_plot_example_is_tested():
    tested = {"binary/plot_roc_curves.py", "binary/plot_lp_ranker_wdbc.py",
              "binary/plot_custom_formulation.py", "binary/plot_regularization_path.py",
              "survival/plot_survival_whas500.py", "survival/plot_survival_flchain.py",
              "survival/plot_survival_veterans.py"}
    assert set(PLOT_EXAMPLES) == tested


# ------------------------------------------------------------------------------ data examples
@pytest.mark.parametrize("name", sorted(DATA_EXAMPLES))
def test_data_example_missing_folder(name, tmp_path):
    """No traceback: one line naming the missing file and how to give the folder; exit code 2."""
    proc, _, _ = run_example(name, tmp_path, "--data-dir", "/nonexistent")
    assert proc.returncode == 2, proc.stderr
    message = proc.stderr.strip()
    assert "\n" not in message and "Traceback" not in message, message
    assert DATA_EXAMPLES[name][0] in message and "--data-dir" in message and "AUCOPT_DATA" in message
    assert "/nonexistent" in message


@pytest.mark.parametrize("name", sorted(DATA_EXAMPLES))
def test_data_example_empty_aucopt_data(name, tmp_path):
    """$AUCOPT_DATA naming a folder without the files: the missing file is named."""
    empty = tmp_path / "data"
    empty.mkdir()
    proc, _, _ = run_example(name, tmp_path, env=_environment(AUCOPT_DATA=str(empty)))
    assert proc.returncode == 2, proc.stderr
    message = proc.stderr.strip()
    assert "\n" not in message and f"Data file {DATA_EXAMPLES[name][0]} not found in {empty}" in message


@pytest.mark.skipif(not (SHARED_DATA / "coil2000" / "ticdata.csv.gz").is_file(),
                    reason="the shared data folder is not beside this checkout")
def test_coil2000_on_the_data(tmp_path):
    proc, figures, workdir = run_example("binary/coil2000_subgradient.py", tmp_path,
                                         "--data-dir", str(SHARED_DATA), "--max-iter", "3")
    _check_ran(proc, workdir)
    assert "1,904,952 pairs, 3 iterations" in proc.stdout       # 348 buyers × 5,474 others
    found = {m.group(1).strip(): int(m.group(2)) for m in
             re.finditer(r"^(.+?) evaluation AUC \S+; buyers in the top 20%: (\d+) of 238", proc.stdout,
                         re.MULTILINE)}
    assert set(found) == {"LP Ranker", "RankRC", "logistic regression"}
    assert found["RankRC"] > 2 * 48                              # far above a random pick
    (ax,), = figures
    lifts = [line for line in ax["lines"] if len(line[0]) == 4000]
    assert len(lifts) == 3
    for (_targeted, captured), count in zip(lifts, found.values(), strict=False):
        assert captured[-1] == 1 and np.all(np.diff(captured) >= 0)
        assert round(captured[799] * 238) == count                  # the 20% cut is the printed count


# ------------------------------------------------------------------------------ slow examples
@pytest.mark.parametrize("name", sorted(SLOW_EXAMPLES))
def test_slow_example_small_protocol(name, tmp_path):
    pytest.importorskip("sksurv")
    pytest.importorskip("lifelines")
    proc, figures, workdir = run_example(name, tmp_path, *SLOW_EXAMPLES[name])
    _check_ran(proc, workdir)
    assert set(_table(proc.stdout)) == {"LP Ranker", "RankSVM", "Cox"} and figures
