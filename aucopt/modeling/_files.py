"""MPS and CPLEX LP model files of a :class:`~aucopt.modeling.Problem`, written and read through HiGHS.

:func:`write_problem` writes a free MPS (``.mps``) or CPLEX LP (``.lp``) file (a QP's Hessian
included: ``QUADOBJ`` / ``[ ... ]/2``), which Gurobi, CPLEX, MOSEK, HiGHS and SCIP read;
:func:`read_fields` reads one back into the fields of the standard form, refusing a file whose
entries HiGHS's reader would leave out or merge. Columns and rows are named as ``_names`` says.
HiGHS is reached through :mod:`aucopt._highs`, shared with the HiGHS backend.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from .._highs import INF, new_highs, pass_problem
from ._names import _block_order, _blocks_from_names, column_names, row_names

if TYPE_CHECKING:
    from .problem import Problem

__all__ = ["FILE_FORMATS", "read_fields", "write_problem"]

FILE_FORMATS = {".mps": "free MPS", ".lp": "CPLEX LP"}
"""The model file formats by suffix."""


def _file_format(path: str | os.PathLike) -> str:
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    if suffix not in FILE_FORMATS:
        raise ValueError(f"Unknown model file type {suffix or '(none)'!r} of {os.fspath(path)!r}: use "
                         + " or ".join(f"{s} ({k})" for s, k in FILE_FORMATS.items()) + ".")
    return suffix


def _highs() -> tuple[Any, Any]:
    import highspy

    h = new_highs(highspy)
    h.setOptionValue("output_flag", False)
    return h, highspy


def _to_highs(problem: Problem) -> tuple[Any, Any]:
    """A silent HiGHS instance holding ``problem`` with its column and row names."""
    h, highspy = _highs()
    pass_problem(h, highspy, problem)
    for j, col in enumerate(column_names(problem)):
        h.passColName(j, col)
    for i, row in enumerate(row_names(problem)):
        h.passRowName(i, row)
    return h, highspy


def write_problem(problem: Problem, path: str | os.PathLike) -> str:
    """Write the problem to a free MPS (``.mps``) or CPLEX LP (``.lp``) file through HiGHS.

    Parameters
    ----------
    problem : Problem
        The LP or convex QP; a QP's Hessian is written too (``QUADOBJ`` in MPS).
    path : str or path-like
        The file; its suffix chooses the format.

    Returns
    -------
    str
        ``path``.

    Raises
    ------
    ValueError
        For a suffix other than ``.mps`` or ``.lp``, or data changed in place since the problem
        was made that are no longer valid (:meth:`Problem.validate`: e.g. a NaN cost, which
        would be written as ``nan`` and make the file unreadable), before the file is touched.
    OSError
        When HiGHS cannot write the file.

    See Also
    --------
    read_problem, read_solution, column_names

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from aucopt import PairSet, get_formulation
    >>> from aucopt.modeling import Problem
    >>> problem = get_formulation("lp_ranker").build(PairSet.bipartite([1, 0, 0]), np.eye(3))
    >>> path = os.path.join(tempfile.mkdtemp(), "ranker.mps")
    >>> _ = problem.write(path)
    >>> Problem.read(path)
    Problem('ranker', LP, 8 variables (alpha[3], z[2], scores[3]), 5 rows, 12 nonzeros)
    """
    path = os.fspath(path)
    _file_format(path)
    problem.validate()
    h, highspy = _to_highs(problem)
    status = h.writeModel(path)
    if status == highspy.HighsStatus.kError or not os.path.exists(path):
        raise OSError(f"HiGHS could not write the model file {path!r}; check that its directory exists and is "
                      "writable.")
    return path



def read_fields(path: str | os.PathLike, name: str | None = None) -> dict[str, Any]:
    """The standard-form fields of an MPS or CPLEX LP file (through HiGHS): ``Problem(**fields)``.

    The reading of :func:`aucopt.modeling._interop.read_problem` (see there for the result and the
    errors), without making the :class:`~aucopt.modeling.Problem`, so that ``Problem.read`` makes
    one of its own class.
    """
    path = os.fspath(path)
    suffix = _file_format(path)
    h, highspy = _read_checked(path, suffix)
    model = h.getModel()
    lp = model.lp_
    n, k = int(lp.num_col_), int(lp.num_row_)
    if n == 0:
        raise ValueError(f"The model file {path!r} declares no variables ({k} row(s)): there is nothing to "
                         "optimize. Write the model again (Problem.write) or check that this is the intended "
                         f"{FILE_FORMATS[suffix]} file.")
    integrality = np.asarray(lp.integrality_, dtype=int) if len(lp.integrality_) else np.zeros(0, int)
    if np.any(integrality != 0):
        raise ValueError(f"The model file {path!r} declares {int(np.count_nonzero(integrality))} integer column(s); "
                         "aucopt solves continuous LPs and QPs only.")
    A, P = _constraint_matrix(lp, highspy, k, n), _hessian(model.hessian_, highspy, n)
    c, offset = np.asarray(lp.col_cost_, float), float(lp.offset_)
    maximize = lp.sense_ == highspy.ObjSense.kMaximize
    if maximize:
        c, offset, P = -c, -offset, (None if P is None else -P)
    col_lower, col_upper = _bounds(lp.col_lower_), _bounds(lp.col_upper_)
    cols, rows = list(lp.col_names_), list(lp.row_names_)
    order = _block_order(cols) if len(cols) == n else None
    if order is not None:  # an LP file lists columns by first appearance: put each block back in order
        cols = [cols[j] for j in order]
        c, A, col_lower, col_upper = c[order], A[:, order], col_lower[order], col_upper[order]
        P = None if P is None else sp.csc_matrix(P[order][:, order])
    metadata: dict[str, Any] = {"source": path, "sense": "maximize" if maximize else "minimize"}
    if len(cols) == n:
        metadata["column_names"] = cols
    if len(rows) == k:
        metadata["row_names"] = rows
    label = name or lp.model_name_ or os.path.splitext(os.path.basename(path))[0]
    return dict(c=c, A=A, row_lower=_bounds(lp.row_lower_), row_upper=_bounds(lp.row_upper_),
                col_lower=col_lower, col_upper=col_upper, P=P, offset=offset,
                blocks=_blocks_from_names(cols) if len(cols) == n else {}, name=label, metadata=metadata)


def _read_checked(path: str, suffix: str) -> tuple[Any, Any]:
    """A HiGHS instance holding the model file ``path``: ValueError for a missing, empty or unreadable file,
    or one whose entries the reader would leave out."""
    if not os.path.isfile(path):
        raise ValueError(f"Model file not found: {path!r}.")
    with open(path, "rb") as fh:
        if not fh.read(1 << 16).strip() and not fh.read(1):
            raise ValueError(f"The model file {path!r} is empty: there is nothing to read. Write the model again "
                             f"(Problem.write) or check that this is the intended {FILE_FORMATS[suffix]} file.")
    h, highspy = _highs()
    status, messages = _read_model(h, highspy, path)
    if status == highspy.HighsStatus.kError:
        errors = [text for kind, text in messages if kind == "ERROR"]
        said = f" (HiGHS: {'; '.join(errors[:3])})" if errors else ""
        raise ValueError(f"HiGHS could not read the model file {path!r}{said}; check that it is valid "
                         f"{FILE_FORMATS[suffix]}.")
    _refuse_dropped_entries(path, [text for kind, text in messages if kind == "WARNING"])
    return h, highspy


def _constraint_matrix(lp: Any, highspy: Any, k: int, n: int) -> sp.csc_matrix:
    """The model's constraint matrix A (k × n), as CSC."""
    matrix = lp.a_matrix_
    data = (np.asarray(matrix.value_, float), np.asarray(matrix.index_, np.int64), np.asarray(matrix.start_, np.int64))
    return (sp.csc_matrix(data, shape=(k, n)) if matrix.format_ == highspy.MatrixFormat.kColwise
            else sp.csr_matrix(data, shape=(k, n)).tocsc())


def _hessian(hessian: Any, highspy: Any, n: int) -> sp.csc_matrix | None:
    """The model's quadratic term P (n × n, both triangles), or None for an LP."""
    if int(hessian.dim_) <= 0 or not len(hessian.value_):
        return None
    d = int(hessian.dim_)
    Q = sp.csc_matrix((np.asarray(hessian.value_, float), np.asarray(hessian.index_, np.int64),
                       np.asarray(hessian.start_, np.int64)), shape=(d, d))
    if hessian.format_ == highspy.HessianFormat.kTriangular:
        Q = Q + sp.tril(Q, -1).T
    Q = Q.tocoo()
    return sp.csc_matrix((Q.data, (Q.row, Q.col)), shape=(n, n))


def _bounds(v: Any) -> np.ndarray:
    """Bounds read from HiGHS, ±:data:`~aucopt._highs.INF` and beyond as ±inf."""
    v = np.asarray(v, float)
    return np.where(v >= INF, np.inf, np.where(v <= -INF, -np.inf, v))


def _read_model(h: Any, highspy: Any, path: str) -> tuple[Any, list[tuple[str, str]]]:
    """``h.readModel(path)`` with the reader's log captured: ``(status, [(kind, text), ...])``.

    The log goes to a temporary file (``log_file``, nothing on the console); ``kind`` is
    ``"WARNING"`` or ``"ERROR"``, ``text`` HiGHS's message.
    """
    import tempfile

    fd, log = tempfile.mkstemp(prefix="aucopt-highs-", suffix=".log")
    os.close(fd)
    try:
        h.setOptionValue("log_to_console", False)
        h.setOptionValue("log_file", log)
        h.setOptionValue("output_flag", True)
        try:
            status = h.readModel(path)
        finally:
            h.setOptionValue("output_flag", False)
            h.setOptionValue("log_file", "")
        with open(log, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    finally:
        with contextlib.suppress(OSError):  # a file still held open (Windows)
            os.remove(log)
    messages = [(m.group(1), m.group(2).strip()) for m in re.finditer(r"^(WARNING|ERROR):\s*(.*)$", text, re.M)]
    return status, messages


#: HiGHS reader warnings about entries it leaves out (or, for names given twice, attaches to
#: the first row or column of that name): pattern, MPS section, the name's occurrence that
#: is wrong, and the reason in words
_DROPPED = (
    (re.compile(r'Row name "(?P<row>.+)" in (?P<section>\w+) section is not (?:defined|valid)'), None, 1,
     "names the row {row!r}, which the ROWS section does not declare"),
    (re.compile(r'Row name "(?P<row>.+)" in (?P<section>\w+) section has duplicate value'), None, 2,
     "gives the row {row!r} a second value"),
    (re.compile(r'Column "(?P<col>.+)" has duplicate nonzero \S+ in (?:objective )?row "(?P<row>.+)"'), "COLUMNS", 2,
     "gives the column {col!r} a second coefficient in the row {row!r}"),
    (re.compile(r'Column name "(?P<col>.+)" in BOUNDS section has duplicate (?P<side>\w+) bound'), "BOUNDS", 2,
     "gives the column {col!r} a second {side} bound"),
    (re.compile(r'Linear constraints \d+ and \d+ have the same name "(?P<row>.+)"'), "ROWS", 2,
     "declares a second row named {row!r}"),
    (re.compile(r'Variables \d+ and \d+ have the same name "(?P<col>.+)"'), "COLUMNS", 2,
     "starts the column {col!r} again after other columns (a second column of that name)"),
)


def _mps_lines(path: str, section: str) -> Iterator[tuple[int, list[str], str]]:
    """``(line number, tokens, text)`` of the data lines of an MPS file's ``section``."""
    current = None
    with open(path, encoding="utf-8", errors="replace") as fh:
        for number, text in enumerate(fh, start=1):
            if not text.strip() or text.startswith("*"):
                continue
            if not text[0].isspace():
                current = text.split()[0].upper()
                continue
            if current == section:
                yield number, text.split(), text.rstrip("\n")


def _locate(path: str, section: str, occurrence: int, groups: dict[str, Any]) -> tuple[int, str] | None:
    """``(line number, text)`` where the named row / column occurs for the ``occurrence``-th time, or None."""
    row: Any = groups.get("row")  # a name, or None when the pattern names none
    col: Any = groups.get("col")
    seen, previous = 0, None
    for number, tokens, text in _mps_lines(path, section):
        if section == "COLUMNS" and "MARKER" in (t.strip("'\"").upper() for t in tokens):
            continue
        if section == "COLUMNS" and col is not None and row is None:  # a column that starts again
            seen += tokens[0] == col and previous != col
            previous = tokens[0]
        elif section == "COLUMNS":
            if col is not None and tokens[0] != col:
                continue
            seen += tokens[1::2].count(row)
        elif section == "ROWS":
            seen += tokens[1:2] == [row]
        else:  # RHS, RANGES, BOUNDS and the quadratic sections: the name anywhere after the first field
            seen += tokens[1:].count(row if row is not None else col) + (tokens[0] == row and row is not None)
        if seen >= occurrence:
            return number, text.strip()
    return None


def _refuse_dropped_entries(path: str, warnings: list[str]) -> None:
    """ValueError when HiGHS's reader left entries of the model file out (its warnings say so)."""
    dropped = [text for text in warnings if "ignored" in text or "have the same name" in text]
    if not dropped:
        return
    summaries = [text for text in dropped if re.match(r"\w+ section: ignored", text)]
    detail = next((text for text in dropped if text not in summaries), dropped[0])
    what = f"HiGHS reports {detail!r}"
    for pattern, section, occurrence, words in _DROPPED:
        match = pattern.search(detail)
        if match:
            groups = match.groupdict()
            section = section or groups["section"].upper()
            found = _locate(path, section, occurrence, groups)
            where = (f"line {found[0]} ({found[1]!r}), in the {section} section," if found
                     else f"its {section} section")
            what = f"{where} {words.format(**groups)}"
            break
    counts = f" (HiGHS: {'; '.join(summaries)})" if summaries else ""
    raise ValueError(
        f"The model file {path!r} is not consistent: {what}; HiGHS would leave such entries out or attach them to "
        f"another row or column{counts}, and the problem read would not be the one written. Correct the file: "
        "every row named in the COLUMNS, RHS and RANGES sections declared in ROWS, each entry, bound and name "
        "given once.")
