"""Solution files: the primal point another solver wrote for a problem's model file.

HiGHS's ``writeSolution`` output (raw, sparse and pretty styles) and the plain ``name value``
lines of Gurobi's ``.sol`` files are understood; values are matched to the columns by the names
of ``_names``. A file that could have lost values (empty, cut short, or whose stated objective
its point does not reproduce) is refused rather than read as zeros.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

import numpy as np

from ._names import column_names

if TYPE_CHECKING:
    from .problem import Problem

__all__ = ["read_solution"]

#: one value of a solution file: (column name, value, line number, column index or None)
Entry = tuple[str, float, int, int | None]


class _SolutionFile:
    """The lines of a solution file, with messages that name the file and the line."""

    def __init__(self, path: str):
        self.path = path
        with open(path, encoding="utf-8", errors="replace") as fh:
            self.lines = fh.read().splitlines()

    def line_error(self, number: int, why: str) -> ValueError:
        text = self.lines[number - 1].strip() if 0 < number <= len(self.lines) else ""
        return ValueError(f"Line {number} of the solution file {self.path!r} is {text!r}: {why}.")

    def number(self, text: str, number: int) -> float:
        """``float(text)``, a finite number, or a ValueError naming the file and the line."""
        try:
            value = float(text)
        except ValueError:
            raise self.line_error(number, f"{text!r} is not a number (a solution file gives one finite value "
                                          "per column)") from None
        if not np.isfinite(value):
            raise self.line_error(number, f"the value {text!r} is not finite (a point has finite values only)")
        return value

    def cut_short(self, what: str) -> ValueError:
        return ValueError(f"The solution file {self.path!r} is cut short: {what}; the columns it does not list "
                          "would read as 0. Write the solution file again (HiGHS: h.writeSolution(path)).")


def _parse_highs_raw(sol: _SolutionFile) -> tuple[list[Entry], tuple[float, int] | None]:
    """``(entries, objective)`` of a HiGHS ``writeSolution`` file, raw style (dense or sparse).

    Its primal section is a status line (``None`` when there is no point), ``Objective v``,
    ``# Columns N`` (``-N`` when only the N nonzeros follow, as ``name value index``) and N
    lines ``name value``. Entries are ``(name, value, line number, column index)``.
    """
    lines = sol.lines
    start = next((k for k, line in enumerate(lines) if line.strip().lower() == "# primal solution values"), None)
    if start is None:
        raise sol.cut_short("it begins like a HiGHS solution file ('Model status') but has no '# Primal solution "
                            "values' section")
    k = next((j for j in range(start + 1, len(lines)) if lines[j].strip()), None)
    if k is None:
        raise sol.cut_short(f"it ends after its '# Primal solution values' line (line {start + 1})")
    if lines[k].strip().lower() == "none":
        status = lines[1].strip() if len(lines) > 1 and lines[0].strip() == "Model status" else "not given"
        raise ValueError(f"The solution file {sol.path!r} holds no primal point: HiGHS wrote 'None' under '# Primal "
                         f"solution values' (line {k + 1}; model status {status!r}), as it does when a solve ends "
                         "without a point. Solve the model to a point (e.g. with a longer time limit) and write its "
                         "solution then.")
    objective: tuple[float, int] | None = None
    header: int | None = None
    for j in range(k + 1, len(lines)):
        text = lines[j].strip()
        if text.startswith("#"):
            header = j if re.match(r"#\s*Columns\b", text) else None
            break
        match = re.match(r"Objective\s+(\S+)$", text)
        if match:
            objective = (sol.number(match.group(1), j + 1), j + 1)
    if header is None:
        raise sol.cut_short(f"its primal section (line {start + 1}) has no '# Columns N' line")
    match = re.match(r"#\s*Columns\s+(-?\d+)", lines[header].strip())
    if not match:
        raise sol.line_error(header + 1, "expected '# Columns N', N the number of column values that follow")
    declared = int(match.group(1))
    count, sparse = abs(declared), declared < 0
    entries: list[Entry] = []
    for t in range(count):
        j = header + 1 + t
        text = lines[j].strip() if j < len(lines) else ""
        if not text or text.startswith("#"):
            raise sol.cut_short(f"its line {header + 1} ({lines[header].strip()!r}) announces {count} column "
                                f"value(s) but {t} follow")
        parts = text.split()
        if sparse:
            if len(parts) != 3 or not parts[2].isdigit():
                raise sol.line_error(j + 1, "expected 'name value index' (a sparse HiGHS solution)")
            index = int(parts[2])
        elif len(parts) not in (1, 2):
            raise sol.line_error(j + 1, "expected 'name value' (a HiGHS solution)")
        else:
            index = t
        name = parts[0] if len(parts) > 1 else ""
        entries.append((name, sol.number(parts[1] if len(parts) > 1 else parts[0], j + 1), j + 1, index))
    return entries, objective


def _parse_highs_pretty(sol: _SolutionFile) -> tuple[list[Entry], tuple[float, int] | None]:
    """``(entries, objective)`` of a HiGHS ``writeSolution`` file, pretty style (style 1).

    The ``Columns`` table is fixed-width (``Index Status Lower Upper Primal Dual [Type] Name``);
    a field HiGHS has no value for (no basis, no point) is left blank, so each value is placed
    by the column of the header its right edge is nearest to. A complete table is followed by
    the ``Rows`` table.
    """
    lines = sol.lines
    k = next(j for j, line in enumerate(lines) if line.strip() == "Columns")
    header = lines[k + 1] if k + 1 < len(lines) else ""
    labels = ("Index", "Status", "Lower", "Upper", "Primal", "Dual")
    if not all(label in header for label in labels):
        raise sol.cut_short(f"its 'Columns' line (line {k + 1}) is not followed by the table header "
                            f"({' '.join(labels)} ...)")
    ends = {label: header.index(label) + len(label) for label in labels[1:]}
    entries: list[Entry] = []
    j = k + 2
    while j < len(lines):
        tokens = list(re.finditer(r"\S+", lines[j]))
        if not tokens or not tokens[0].group().isdigit():
            break
        if int(tokens[0].group()) != len(entries):
            raise sol.line_error(j + 1, f"expected the column of index {len(entries)} (HiGHS lists the columns "
                                        "in order)")
        last = tokens[-1]
        name = last.group() if last.start() > ends["Dual"] else ""
        fields = {}
        for token in tokens[1:]:
            if token.start() > ends["Dual"]:  # the Type and Name columns
                continue
            fields[min(ends, key=lambda label: abs(token.end() - ends[label]))] = token.group()
        if "Primal" not in fields:
            raise ValueError(f"The solution file {sol.path!r} holds no primal point: the Primal column of its line "
                             f"{j + 1} is blank, as HiGHS leaves it when a solve ends without a point. Solve the "
                             "model to a point and write its solution then.")
        entries.append((name, sol.number(fields["Primal"], j + 1), j + 1, len(entries)))
        j += 1
    if j >= len(lines) or lines[j].strip() != "Rows":
        raise sol.cut_short(f"its Columns table (line {k + 1}) ends at line {min(j, len(lines))} with "
                            f"{len(entries)} column(s), without the Rows table that follows it in a complete file")
    objective: tuple[float, int] | None = None
    for i in range(j, len(lines)):
        match = re.match(r"Objective value:\s*(\S+)$", lines[i].strip())
        if match:
            objective = (sol.number(match.group(1), i + 1), i + 1)
    return entries, objective


def _parse_plain(sol: _SolutionFile) -> tuple[list[Entry], tuple[float, int] | None]:
    """``(entries, objective)`` of ``name value`` lines (Gurobi ``.sol``); ``#`` starts a comment.

    Gurobi's ``# Objective value = v`` comment is the stated objective.
    """
    entries: list[Entry] = []
    objective: tuple[float, int] | None = None
    for number, line in enumerate(sol.lines, start=1):
        text, _, comment = line.partition("#")
        match = re.match(r"\s*Objective value\s*=\s*(\S+)\s*$", comment, re.I)
        if match and not text.strip():
            objective = (sol.number(match.group(1), number), number)
        text = text.strip()
        if not text:
            continue
        parts = text.split()
        if len(parts) != 2:
            raise sol.line_error(number, "expected 'name value' per line (Gurobi .sol, '#' comments) or a HiGHS "
                                         "solution file")
        entries.append((parts[0], sol.number(parts[1], number), number, None))
    if not entries:
        raise ValueError(f"The solution file {sol.path!r} lists no column values ("
                         + ("it is empty" if not any(line.strip() for line in sol.lines) else "only comments")
                         + "): a file that lists no column cannot be told from one that lost them all. Write the "
                         "solver's solution file again (HiGHS: h.writeSolution(path); Gurobi: model.write(path)).")
    return entries, objective


def _check_objective(problem: Problem, x: np.ndarray, objective: tuple[float, int], path: str) -> None:
    """ValueError when the objective the file states is not the objective of its point.

    The tolerance, 1e-4 of the objective's scale (Σ|cⱼxⱼ| + ½|x|ᵀ|P||x| + |offset|), allows for
    values printed with 6 digits (HiGHS's pretty style); a maximization model read from a
    file may state the objective with either sign.
    """
    stated, number = objective
    own = problem.objective(x)
    ax = np.abs(x)
    scale = float(np.abs(problem.c) @ ax) + abs(problem.offset)
    if problem.P is not None:
        scale += 0.5 * float(ax @ (abs(problem.P) @ ax))
    tol = 1e-4 * max(scale, abs(stated)) + 1e-9 * (1.0 + float(np.abs(problem.c).sum()))
    candidates = [own, -own] if problem.metadata.get("sense") == "maximize" else [own]
    if min(abs(stated - value) for value in candidates) <= tol:
        return
    raise ValueError(f"The solution file {path!r} states the objective value {stated:.10g} (line {number}), but "
                     f"its point gives {own:.10g} on {problem.name!r} (tolerance {tol:.2g}): values are missing "
                     "(a file cut short or edited), or it is the solution of another model (other data or "
                     "parameters). Write this problem's model with Problem.write, solve that file and read its "
                     "solution.")


def read_solution(problem: Problem, path: str | os.PathLike) -> np.ndarray:
    """Read a primal point that a solver wrote for ``problem``'s model file.

    Understands HiGHS's ``writeSolution`` output (raw, sparse and pretty styles) and the plain
    ``name value`` per line of Gurobi's ``.sol`` files (``#`` comments; most solvers can write
    it). Values are matched to the columns by name (:func:`column_names`, as in the files
    written by :func:`write_problem`); a column the file does not list is 0 (solvers that omit
    zeros, HiGHS's sparse style, a column an LP file does not mention). A HiGHS file without
    names (``NoName``, ``c0``, ...) maps by position.

    A file that could have lost values is refused rather than read as zeros: an empty file (or
    comments only), a HiGHS file whose ``# Columns N`` header announces more values than follow
    or whose ``Columns`` table is not followed by its ``Rows`` table, and a file whose stated
    objective (HiGHS's ``Objective``, Gurobi's ``# Objective value =``) is not the objective
    of its point.

    Parameters
    ----------
    problem : Problem
        The problem the file's model came from.
    path : str or path-like
        The solution file.

    Returns
    -------
    ndarray of shape (problem.n_vars,)
        The point, usable with :meth:`Problem.output`, :meth:`Problem.block` and
        :meth:`Problem.objective`.

    Raises
    ------
    ValueError
        For a missing file, an empty one, a file cut short, a HiGHS file without a primal point
        (``None``), a value that is not a finite number or a line that is not ``name value``
        (naming the line), a column given twice (naming both lines), names that are not columns
        of ``problem`` (the message lists a few), or a stated objective the point does not
        reproduce (within 1e-4 of its scale).

    See Also
    --------
    write_problem

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from aucopt import PairSet, get_formulation
    >>> problem = get_formulation("lp_ranker").build(PairSet.bipartite([1, 0, 0]), np.eye(3))
    >>> path = os.path.join(tempfile.mkdtemp(), "ranker.sol")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("# Objective value = 1\\nalpha(0) 0.5\\nalpha(2) 0.5\\n")
    >>> x = problem.read_solution(path)
    >>> problem.output(x, "coef"), problem.objective(x)
    (array([ 0.5,  0. , -0.5]), 1.0)
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ValueError(f"Solution file not found: {path!r}.")
    sol = _SolutionFile(path)
    first = next((line.strip() for line in sol.lines if line.strip()), "")
    if first == "Model status" or any(line.strip().lower() == "# primal solution values" for line in sol.lines):
        entries, objective = _parse_highs_raw(sol)
    elif first == "Columns":
        entries, objective = _parse_highs_pretty(sol)
    else:
        entries, objective = _parse_plain(sol)
    names = column_names(problem)
    index = {col: j for j, col in enumerate(names)}
    positional = entries and entries[0][3] is not None and not any(name in index for name, *_ in entries)
    if positional:  # a HiGHS file without the model's names: by column index
        beyond = [(number, j) for _, _, number, j in entries if j is not None and j >= problem.n_vars]
        if beyond:
            raise sol.line_error(beyond[0][0], f"column index {beyond[0][1]} is beyond the {problem.n_vars} "
                                               f"columns of {problem.name!r} (the file is for another model)")
        keys = [j for *_, j in entries if j is not None]  # every HiGHS entry has its index
    else:
        unknown = [name for name, *_ in entries if name not in index]
        if unknown:
            raise ValueError(f"The solution file {path!r} names {len(unknown)} column(s) that {problem.name!r} does "
                             f"not have, e.g. {unknown[:3]}; its columns are named like {names[:2]} (write the model "
                             "with Problem.write so that the names match).")
        keys = [index[name] for name, *_ in entries]
    x = np.zeros(problem.n_vars)
    first_line: dict[int, int] = {}
    for (_, value, number, _), j in zip(entries, keys, strict=False):
        if j in first_line:
            raise sol.line_error(number, f"the column {names[j]!r} is given a second value (first on line "
                                         f"{first_line[j]}); a point has one value per column: the file was "
                                         "edited or joined from two")
        first_line[j] = number
        x[j] = value
    if objective is not None:
        _check_objective(problem, x, objective, path)
    return x
