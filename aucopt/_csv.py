"""Complete CSV data files: the one reader of every CSV data path, and the messages that name the lines.

:func:`read_csv` refuses what pandas would silently accept or drop (a malformed, empty or
header-only file, a missing column, any missing value), naming the columns and the file lines;
:func:`numeric_column` and :func:`covariates` turn its frame into floats. Used by
:func:`aucopt.datasets.load_survival` and the command line.

Examples
--------
>>> import os, tempfile
>>> from aucopt._csv import covariates, read_csv
>>> path = os.path.join(tempfile.mkdtemp(), "data.csv")
>>> with open(path, "w") as fh:
...     _ = fh.write("age,sex\\n61,m\\n45,f\\n")
>>> covariates(read_csv(path, ("age",))).tolist()
[[61.0, 1.0], [45.0, 0.0]]
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

if TYPE_CHECKING:  # pandas is imported by the readers when they run
    import pandas as pd

__all__ = ["covariates", "csv_lines", "numeric_column", "read_csv", "rows_where"]


def csv_lines(path: str | os.PathLike[str], n_rows: int) -> np.ndarray | None:
    """The line of ``path`` on which each of its ``n_rows`` data rows starts (the header on line 1), as
    pandas reads them (blank lines skipped); None when the file cannot be mapped so (then rows are
    counted instead)."""
    import csv

    starts, line = [], 0
    with open(path, newline="", encoding="utf-8", errors="replace") as fh:
        reader = csv.reader(fh)
        for record in reader:
            if any(field.strip() for field in record):
                starts.append(line + 1)
            line = reader.line_num
    return np.asarray(starts[1:]) if len(starts) == n_rows + 1 else None


def rows_where(path: str | os.PathLike[str], frame: pd.DataFrame, rows: ArrayLike) -> str:
    """Where the data rows ``rows`` (positions) of the CSV file ``path`` are, for a message."""
    lines = csv_lines(path, len(frame))
    rows = np.asarray(rows)
    shown = ", ".join(str(int(k)) for k in (rows[:5] + 1 if lines is None else lines[rows[:5]]))
    unit = "data row" if lines is None else "line"
    more = f" and {len(rows) - 5} more" if len(rows) > 5 else ""
    return f"{unit}{'s' if len(rows) > 1 else ''} {shown}{more}"


def read_csv(path: str | os.PathLike[str], columns: Iterable[str | None] = ()) -> pd.DataFrame:
    """A CSV data file as a DataFrame, complete: the one reader of every CSV data path.

    Refuses a path that is not a file, an empty, malformed or header-only file, a column of
    ``columns`` that it lacks, and any missing value (a blank or NA field, or a row with fewer
    fields than the header), naming the columns and lines: no row is ever dropped.
    """
    import pandas as pd

    if not os.path.isfile(path):
        raise ValueError(f"{path} is not a file: give the path of a CSV file.")
    try:
        frame = pd.read_csv(path)
    except pd.errors.EmptyDataError:
        raise ValueError(f"{path} is empty: a CSV file needs a header row and one row per subject.") from None
    except pd.errors.ParserError as exc:
        raise ValueError(f"{path} is not a well-formed CSV file ({' '.join(str(exc).split())}): every row needs "
                         "as many comma-separated fields as the header.") from None
    for col in columns:
        if col is not None and col not in frame.columns:
            raise ValueError(f"Column {col!r} is not in {path}; columns: {list(frame.columns)[:12]} …")
    if len(frame) == 0:
        raise ValueError(f"{path} has a header but no data rows: it needs one row per subject.")
    missing = frame.isna().to_numpy()
    if missing.any():
        where = [f"column {col!r} on {rows_where(path, frame, np.flatnonzero(missing[:, k]))}"
                 for k, col in enumerate(frame.columns) if missing[:, k].any()]
        raise ValueError(f"{path} has {int(missing.sum())} missing value(s): {'; '.join(where[:4])}"
                         f"{f'; and in {len(where) - 4} more columns' if len(where) > 4 else ''}. "
                         "Fill them in, or remove those rows from the file: no row is dropped silently.")
    return frame


def covariates(frame: pd.DataFrame) -> np.ndarray:
    """The covariates of a data frame as floats: categorical columns one-hot encoded, first level dropped."""
    import pandas as pd

    return pd.get_dummies(frame, drop_first=True, dtype=float).to_numpy(float)


def numeric_column(path: str | os.PathLike[str], frame: pd.DataFrame, col: str, what: str) -> np.ndarray:
    """Column ``col`` of a complete CSV frame as finite floats; the message names the lines that are not."""
    import pandas as pd

    values = pd.to_numeric(frame[col], errors="coerce").to_numpy(float)
    bad = np.flatnonzero(~np.isfinite(values))
    if len(bad):
        raise ValueError(f"{what} column {col!r} of {path} must hold finite numbers; {rows_where(path, frame, bad)} "
                         f"hold{'s' if len(bad) == 1 else ''} {frame[col].iloc[bad[0]]!r}"
                         f"{' …' if len(bad) > 1 else ''}: correct those values or remove the rows.")
    return values
