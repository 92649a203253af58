"""What a command prints: a table, one row as soon as it is known, as text, CSV or JSON.

:func:`open_report` opens the :class:`Report` of a command on standard output or ``--output
FILE``; with ``--json`` / ``--csv`` everything else (notes, solver logs) goes to standard error.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any, NamedTuple

#: how a missing value is shown in a text table (null in JSON, an empty field in CSV)
MISSING = "—"


class Column(NamedTuple):
    """A table column: its machine name (JSON key, CSV header), its text title and width, and
    the format of its numbers in the text table (``""``: a left-aligned string)."""

    key: str
    title: str
    width: int = 0
    spec: str = ""


def plain(value: Any) -> Any:
    """A JSON / CSV value: numpy scalars as Python numbers, NaN and infinities as None."""
    import numpy as np

    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _cell(value: Any, column: Column) -> str:
    value = plain(value)
    text = MISSING if value is None else format(value, column.spec) if column.spec else str(value)
    width = max(column.width, len(column.title))
    return text.rjust(width) if column.spec else text.ljust(width)


def _title(column: Column) -> str:
    width = max(column.width, len(column.title))
    return column.title.rjust(width) if column.spec else column.title.ljust(width)


@contextlib.contextmanager
def _bars_cleared() -> Iterator[None]:
    """Clear any progress bar on the terminal while a line is written, then redraw it."""
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency
        yield
        return
    with tqdm.external_write_mode():
        yield


class Report:
    """What a command prints: notes, and one table written row by row.

    Text (the default): the notes and a fixed-width table on the output, each row printed as
    soon as it is given. ``--csv``: the header and then each row, as they come; ``--json``: one
    document ``{"command", "columns", "rows", "summary"}`` at the end. In both machine formats
    the notes go to standard error.
    """

    def __init__(self, args: argparse.Namespace, stream: IO[str], columns: Iterable[Column], *,
                 text_header: str | None = None, text_row: Callable[[dict], str] | None = None,
                 text_table: bool = True):
        self.format, self.stream, self.columns = args.format, stream, list(columns)
        self.command = args.command
        self._text_header, self._text_row, self._text_table = text_header, text_row, text_table
        self.rows: list[dict[str, Any]] = []
        self.summary: dict[str, Any] = {}
        self._started = False

    def _write(self, text: str, stream: IO[str] | None = None) -> None:
        with _bars_cleared():
            stream = stream or self.stream
            stream.write(text + "\n")
            stream.flush()

    def note(self, text: str) -> None:
        """A line for a person: on the output in text mode, on standard error otherwise."""
        self._write(text, self.stream if self.format == "text" else sys.stderr)

    def start(self) -> None:
        """The table header (text and CSV), printed once, before the first row."""
        if self._started:
            return
        self._started = True
        if self.format == "csv":
            import csv

            self._csv = csv.writer(self.stream, lineterminator="\n")
            with _bars_cleared():
                self._csv.writerow([c.key for c in self.columns])
                self.stream.flush()
        elif self.format == "text" and self._text_table:
            header = self._text_header or "  ".join(_title(c) for c in self.columns)
            self._write(header.rstrip())

    def row(self, **values: Any) -> None:
        """One table row, printed at once (kept for the JSON document)."""
        self.start()
        row = {c.key: plain(values.get(c.key)) for c in self.columns}
        self.rows.append(row)
        if self.format == "csv":
            with _bars_cleared():
                self._csv.writerow(["" if row[c.key] is None else row[c.key] for c in self.columns])
                self.stream.flush()
        elif self.format == "text":
            line = (self._text_row(row) if self._text_row else
                    "  ".join(_cell(row[c.key], c) for c in self.columns))
            self._write(line.rstrip())

    def close(self) -> None:
        """Finish the table: the JSON document, or the CSV header of a table without rows."""
        if self.format == "json":
            import json

            document: dict[str, Any] = {"command": self.command, "columns": [c.key for c in self.columns],
                                        "rows": self.rows}
            if self.summary:
                document["summary"] = {k: plain(v) for k, v in self.summary.items()}
            self.stream.write(json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
            self.stream.flush()
        else:
            self.start()


def check_output_path(path: str | None, option: str, example: str = "km.png") -> None:
    """Refuse an output file whose directory does not exist (or that names a directory)."""
    if not path:
        return
    if os.path.isdir(path):
        raise ValueError(f"{option} {path} is a directory: give a file name such as {os.path.join(path, example)}.")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"{option} {path}: the directory {folder} does not exist; create it or choose "
                         "another path.")


@contextlib.contextmanager
def open_report(args: argparse.Namespace, columns: Iterable[Column], **options: Any) -> Iterator[Report]:
    """The :class:`Report` of a command, on standard output or ``--output FILE``.

    With ``--json`` / ``--csv`` on standard output, everything else the command prints —
    notes, and the log of a solver run with ``--verbose`` — is sent to standard error, at the
    level of the file descriptor when there is one, so that standard output holds only the
    table.
    """
    machine = args.format != "text"
    check_output_path(args.output, "--output", f"table.{'txt' if not machine else args.format}")
    if args.output:
        with (open(args.output, "w", encoding="utf-8", newline="") as fh,
              contextlib.redirect_stdout(sys.stderr) if machine else contextlib.nullcontext()):
            yield from _reported(args, fh, columns, options)
        return
    if not machine:
        yield from _reported(args, sys.stdout, columns, options)
        return
    sys.stdout.flush()
    try:
        fd = sys.stdout.fileno()
        err_fd = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        # a stream without a file descriptor (captured output): redirect in Python only
        stdout = sys.stdout  # the table's stream, taken before standard output is redirected
        with contextlib.redirect_stdout(sys.stderr):
            yield from _reported(args, stdout, columns, options)
        return
    saved = os.dup(fd)
    stream = os.fdopen(saved, "w", encoding="utf-8", newline="", closefd=False)
    os.dup2(err_fd, fd)  # C-level output (solver logs) to standard error too
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield from _reported(args, stream, columns, options)
    finally:
        stream.flush()
        sys.stdout.flush()
        os.dup2(saved, fd)
        os.close(saved)


def _reported(args: argparse.Namespace, stream: IO[str], columns: Iterable[Column],
              options: dict[str, Any]) -> Iterator[Report]:
    """Yield the report on ``stream`` to the command, then close it (unless the command failed)."""
    report = Report(args, stream, columns, **options)
    yield report
    report.close()
