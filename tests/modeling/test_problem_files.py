"""Model and solution files that could lose data are refused, with the file, the line and the fix.

Oracles: HiGHS itself (a fresh ``highspy.Highs`` solves the written model and writes its solution
file in each style; its ``getSolution().col_value`` is the point the file must give back) and
files edited by hand, whose faulty line the test knows.
"""

from __future__ import annotations

import re

import cvxpy as cp
import highspy
import numpy as np
import pytest
import scipy.sparse as sp

from aucopt import PairSet, Problem, get_formulation, solve
from aucopt.exceptions import ConvexityError


def fresh_highs():
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    return h


@pytest.fixture(scope="module")
def ranker():
    """An LP Ranker whose optimum has nonzeros in several blocks (alpha and scores)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(8, 2))
    K = np.exp(-np.sum((X[:, None] - X[None]) ** 2, axis=-1))
    return get_formulation("lp_ranker").build(PairSet.bipartite([1, 0, 0, 1, 0, 1, 0, 0]), K, C=1.0)


@pytest.fixture(scope="module")
def highs_files(ranker, tmp_path_factory):
    """HiGHS's solution of the ranker's MPS file in the raw (0), pretty (1) and sparse (4) styles."""
    folder = tmp_path_factory.mktemp("highs")
    model = ranker.write(folder / "ranker.mps")
    h = fresh_highs()
    h.readModel(str(model))
    h.run()
    files = {}
    for style in (0, 1, 4):
        files[style] = folder / f"ranker{style}.sol"
        h.writeSolution(str(files[style]), style)
    return files, np.array(h.getSolution().col_value)


def write_lines(path, lines):
    path.write_text("".join(lines))
    return path


# ----------------------------------------------------------------------------- complete files
@pytest.mark.parametrize("style", [0, 1, 4])
def test_complete_highs_files_give_highs_point(ranker, highs_files, style):
    files, x_highs = highs_files
    x = ranker.read_solution(files[style])
    digits = 1e-5 if style == 1 else 1e-12  # the pretty style prints 6 significant digits
    np.testing.assert_allclose(x, x_highs, rtol=digits, atol=digits)


def test_pretty_file_without_basis_gives_primal_not_dual(ranker, tmp_path):
    # interior point without crossover: no basis, so HiGHS leaves the Status column blank
    model = ranker.write(tmp_path / "ranker.mps")
    h = fresh_highs()
    h.readModel(str(model))
    h.setOptionValue("solver", "ipm")
    h.setOptionValue("run_crossover", "off")
    h.run()
    h.writeSolution(str(tmp_path / "ipm.sol"), 1)
    assert re.search(r"^\s+0\s{8,}\S", (tmp_path / "ipm.sol").read_text().splitlines()[2])  # status blank
    x = ranker.read_solution(tmp_path / "ipm.sol")
    np.testing.assert_allclose(x, h.getSolution().col_value, rtol=1e-5, atol=1e-5)


def test_sparse_plain_file_is_still_read(ranker, tmp_path):
    # a plain file listing the nonzeros only is a legitimate format: the others are 0
    result = solve(ranker, "highs")
    names = [f"{block}({k})" for block, sl in ranker.blocks.items() for k in range(sl.stop - sl.start)]
    lines = [f"{name} {float(value)!r}\n" for name, value in zip(names, result.x, strict=False) if value != 0.0]
    assert len(lines) < ranker.n_vars
    x = ranker.read_solution(write_lines(tmp_path / "nonzeros.sol", lines))
    np.testing.assert_array_equal(x, result.x)


def test_maximization_file_states_its_objective_in_its_own_sense(tmp_path):
    (tmp_path / "max.lp").write_text("Maximize\n obj: 2 x + 3 y\nSubject To\n c1: x + y <= 4\n c2: x + 3 y <= 6\n"
                                     "Bounds\n 0 <= x <= 3\nEnd\n")
    problem = Problem.read(tmp_path / "max.lp")
    h = fresh_highs()
    h.readModel(str(tmp_path / "max.lp"))
    h.run()
    h.writeSolution(str(tmp_path / "max.sol"), 0)
    x = problem.read_solution(tmp_path / "max.sol")
    assert problem.metadata["sense"] == "maximize"
    assert abs(-problem.objective(x) - h.getInfo().objective_function_value) < 1e-9


# ----------------------------------------------------------------------------- files that lost values
def test_empty_solution_file_is_refused(ranker, tmp_path):
    (tmp_path / "e.sol").write_text("")
    with pytest.raises(ValueError, match=r"'[^']*e\.sol' lists no column values \(it is empty\)"):
        ranker.read_solution(tmp_path / "e.sol")
    (tmp_path / "c.sol").write_text("# Solution for model ranker\n\n")
    with pytest.raises(ValueError, match=r"c\.sol' lists no column values \(only comments\)"):
        ranker.read_solution(tmp_path / "c.sol")


@pytest.mark.parametrize("style", [0, 4])
def test_highs_file_cut_short_is_refused(ranker, highs_files, tmp_path, style):
    files, _ = highs_files
    lines = files[style].read_text().splitlines(True)
    header = next(k for k, line in enumerate(lines) if line.startswith("# Columns"))
    count = abs(int(lines[header].split()[2]))
    kept = count // 2
    cut = write_lines(tmp_path / "cut.sol", lines[:header + 1 + kept])
    message = (rf"'[^']*cut\.sol' is cut short: its line {header + 1} \('# Columns -?{count}[^']*'\) announces "
               rf"{count} column value\(s\) but {kept} follow")
    with pytest.raises(ValueError, match=message):
        ranker.read_solution(cut)
    # cut before the Columns header, and before the primal section
    with pytest.raises(ValueError, match=r"cut short.*no '# Columns N' line|cut short: it ends after"):
        ranker.read_solution(write_lines(tmp_path / "cut2.sol", lines[:header]))
    with pytest.raises(ValueError, match=r"cut short.*no '# Primal solution values' section"):
        ranker.read_solution(write_lines(tmp_path / "cut3.sol", lines[:2]))


def test_pretty_file_cut_short_is_refused(ranker, highs_files, tmp_path):
    files, _ = highs_files
    lines = files[1].read_text().splitlines(True)
    cut = write_lines(tmp_path / "cut.sol", lines[:2 + ranker.n_vars // 2])
    with pytest.raises(ValueError, match=rf"cut short: its Columns table .* with {ranker.n_vars // 2} column\(s\), "
                                         "without the Rows table"):
        ranker.read_solution(cut)


def test_highs_file_without_primal_point_is_refused(ranker, tmp_path):
    model = ranker.write(tmp_path / "ranker.mps")
    h = fresh_highs()
    h.readModel(str(model))  # not solved: HiGHS writes 'None' for the primal values
    h.writeSolution(str(tmp_path / "none.sol"), 0)
    with pytest.raises(ValueError, match=r"holds no primal point: HiGHS wrote 'None'.*model status 'Not Set'"):
        ranker.read_solution(tmp_path / "none.sol")


def test_stated_objective_the_point_does_not_reproduce_is_refused(ranker, tmp_path):
    result = solve(ranker, "highs")
    names = [f"{block}({k})" for block, sl in ranker.blocks.items() for k in range(sl.stop - sl.start)]
    head = ["# Solution for model ranker\n", f"# Objective value = {float(result.objective)!r}\n"]
    lines = [f"{name} {float(value)!r}\n" for name, value in zip(names, result.x, strict=False)]
    x = ranker.read_solution(write_lines(tmp_path / "full.sol", head + lines))
    np.testing.assert_array_equal(x, result.x)
    alpha = ranker.blocks["alpha"]
    lost = next(j for j in range(alpha.start, alpha.stop) if result.x[j] != 0.0)  # a nonzero with a cost
    cut = write_lines(tmp_path / "cut.sol", head + lines[:lost] + lines[lost + 1:])
    with pytest.raises(ValueError, match=rf"states the objective value {result.objective:.10g} \(line 2\), but "
                                         "its point gives"):
        ranker.read_solution(cut)


# ----------------------------------------------------------------------------- malformed lines
def test_duplicated_column_is_refused_with_both_lines(ranker, tmp_path):
    path = write_lines(tmp_path / "d.sol", ["alpha(0) 0.5\n", "alpha(0) 9\n"])
    with pytest.raises(ValueError, match=r"Line 2 of the solution file '[^']*d\.sol' is 'alpha\(0\) 9': the column "
                                         r"'alpha\(0\)' is given a second value \(first on line 1\)"):
        ranker.read_solution(path)


def test_duplicated_column_in_highs_file_is_refused(ranker, highs_files, tmp_path):
    files, _ = highs_files
    lines = files[0].read_text().splitlines(True)
    header = next(k for k, line in enumerate(lines) if line.startswith("# Columns"))
    lines[header + 2] = lines[header + 1]  # the second column's line repeats the first
    with pytest.raises(ValueError, match=rf"Line {header + 3} of .* given a second value \(first on line "
                                         rf"{header + 2}\)"):
        ranker.read_solution(write_lines(tmp_path / "dup.sol", lines))


@pytest.mark.parametrize("style", [0, 1, 4])
def test_non_numeric_value_names_file_and_line(ranker, highs_files, tmp_path, style):
    files, _ = highs_files
    lines = files[style].read_text().splitlines(True)
    if style == 1:  # the first row of the pretty table; its Primal column is right-aligned, 12 wide
        k = 2
        end = lines[1].index("Primal") + len("Primal")
        lines[k] = lines[k][:end - 12] + "abc".rjust(12) + lines[k][end:]
    else:  # the first value after the '# Columns' header
        k = 1 + next(k for k, line in enumerate(lines) if line.startswith("# Columns"))
        parts = lines[k].split()
        lines[k] = " ".join([parts[0], "abc", *parts[2:]]) + "\n"
    path = write_lines(tmp_path / "bad.sol", lines)
    with pytest.raises(ValueError, match=rf"Line {k + 1} of the solution file '[^']*bad\.sol' is .*: 'abc' is not "
                                         "a number"):
        ranker.read_solution(path)


def test_non_finite_value_is_refused(ranker, tmp_path):
    with pytest.raises(ValueError, match=r"Line 2 of the solution file .*'nan' is not finite"):
        ranker.read_solution(write_lines(tmp_path / "nan.sol", ["alpha(0) 1\n", "alpha(1) nan\n"]))


# ----------------------------------------------------------------------------- model files
MPS = """NAME          tiny
ROWS
 N  obj
 G  c1
 L  c2
COLUMNS
    x         obj       1            c1        1
    x         c2        1
    y         obj       2            c1        1
    y         c2        1
RHS
    rhs       c1        1            c2        4
BOUNDS
 UP bnd       x         3
ENDATA
"""


@pytest.mark.parametrize("old, new, line, words", [
    ("    y         c2        1\n", "    y         c3        1\n", 10,
     "names the row 'c3', which the ROWS section does not declare"),
    ("    rhs       c1        1            c2        4\n", "    rhs       c1        1            cX        4\n", 12,
     "names the row 'cX', which the ROWS section does not declare"),
    ("    x         c2        1\n", "    x         c2        1\n    x         c1        5\n", 9,
     "gives the column 'x' a second coefficient in the row 'c1'"),
    (" UP bnd       x         3\n", " UP bnd       x         3\n UP bnd       x         5\n", 15,
     "gives the column 'x' a second upper bound"),
    (" L  c2\n", " L  c2\n G  c1\n", 6, "declares a second row named 'c1'"),
])
def test_mps_entries_highs_would_drop_are_refused(tmp_path, old, new, line, words):
    good = tmp_path / "good.mps"
    good.write_text(MPS)
    problem = Problem.read(good)
    assert problem.A.nnz == 4 and problem.col_upper[0] == 3.0
    assert MPS.count(old) == 1
    bad = tmp_path / "bad.mps"
    bad.write_text(MPS.replace(old, new))
    text = bad.read_text().splitlines()[line - 1].strip()
    with pytest.raises(ValueError, match=re.escape(f"The model file {str(bad)!r} is not consistent: line {line} "
                                                   f"({text!r})") + ".*" + re.escape(words)):
        Problem.read(bad)


@pytest.mark.parametrize("suffix", [".lp", ".mps"])
def test_empty_model_file_is_refused(tmp_path, suffix):
    path = tmp_path / f"empty{suffix}"
    path.write_text("\n  \n")
    with pytest.raises(ValueError, match=r"empty\.(lp|mps)' is empty: there is nothing to read"):
        Problem.read(path)


def test_model_file_without_variables_is_refused(tmp_path):
    path = tmp_path / "none.lp"
    path.write_text("Minimize\n obj:\nSubject To\nEnd\n")
    with pytest.raises(ValueError, match=r"none\.lp' declares no variables"):
        Problem.read(path)


# ----------------------------------------------------------------------------- data changed in place
def box_qp():
    return Problem(c=np.array([1.0, -1.0]), A=sp.csc_matrix([[1.0, 1.0]]), row_lower=np.array([-1.0]),
                   row_upper=np.array([1.0]), col_lower=-np.ones(2), col_upper=np.ones(2),
                   P=sp.csc_matrix(np.diag([1.0, 1.0])), blocks={"w": slice(0, 2)})


@pytest.mark.parametrize("solver", ["scs", "clarabel", "osqp", "highs"])
def test_qp_made_non_convex_in_place_is_refused_before_any_solver(solver):
    problem = box_qp()
    problem.P.data[1] = -1.0  # in place: the construction's check cannot see it
    with pytest.raises(ConvexityError, match=r"P\[1, 1\] = -1 on w\(1\).*Changed since the problem was made: P"):
        solve(problem, solver)


def test_qp_made_non_convex_is_refused_by_to_cvxpy_and_write(tmp_path):
    problem = box_qp()
    problem.P = -problem.P
    with pytest.raises(ConvexityError, match="not positive semidefinite"):
        problem.to_cvxpy()
    with pytest.raises(ConvexityError, match="not positive semidefinite"):
        problem.write(tmp_path / "qp.mps")
    assert not (tmp_path / "qp.mps").exists()


def test_nan_cost_is_refused_at_write_naming_the_field(tmp_path):
    problem = get_formulation("lp_ranker").build(PairSet.bipartite([1, 0, 0]), np.eye(3))
    problem.c[0] = np.nan
    with pytest.raises(ValueError, match=r"c has 1 non-finite entry .* at index 0 \(alpha\(0\)\).*Changed since the "
                                         "problem was made: c"):
        problem.write(tmp_path / "nan.mps")
    assert not (tmp_path / "nan.mps").exists()


def test_validate_is_a_no_op_without_changes_and_normalizes_assigned_fields():
    problem = box_qp()
    assert problem.validate() is problem
    problem.c = [2.0, 0.5]  # a list assigned: normalized, then solved
    assert solve(problem, "highs").ok
    assert isinstance(problem.c, np.ndarray) and problem.c.dtype == float
    problem.P = sp.csc_matrix((2, 2))  # an all-zero P: the problem is an LP again
    assert problem.validate().is_lp


def test_problem_without_variables_is_refused():
    with pytest.raises(ValueError, match="has no variables"):
        Problem(c=np.zeros(0), A=sp.csc_matrix((0, 0)), row_lower=np.zeros(0), row_upper=np.zeros(0),
                col_lower=np.zeros(0), col_upper=np.zeros(0))


# ----------------------------------------------------------------------------- cvxpy without variables
@pytest.mark.parametrize("model", [cp.Problem(cp.Minimize(0)), cp.Problem(cp.Maximize(cp.Constant(2.0)),
                                                                          [cp.Constant(1.0) <= 2.0])])
def test_cvxpy_problem_without_variables_gets_a_clear_error(model):
    with pytest.raises(ValueError, match=r"The cvxpy problem has no variables \(its objective is the constant .*"
                                         r"cvxpy_problem\.solve\(\) evaluates it without one.*cp\.Variable"):
        Problem.from_cvxpy(model)
