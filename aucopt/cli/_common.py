"""What every command shares: the parser class, the common options, progress, optional packages."""

from __future__ import annotations

import argparse
import importlib
import sys
from types import ModuleType
from typing import NoReturn

#: the pip extra that brings the optional packages of the command line
EXTRA = "pip install 'aucopt[survival]'"


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``aucopt: error: <message> (see 'aucopt <command> --help')``."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"aucopt: error: {message} (see '{self.prog} --help')\n")


def common_options(data_dir: bool = False) -> Parser:
    """The options every command takes: output format, output file, verbosity (and the data folder)."""
    common = Parser(add_help=False)
    fmt = common.add_mutually_exclusive_group()
    fmt.add_argument("--json", dest="format", action="store_const", const="json", default="text",
                     help="print the table as one JSON document (numbers as numbers, a missing value as null) "
                          "and everything else on standard error (default: a text table)")
    fmt.add_argument("--csv", dest="format", action="store_const", const="csv",
                     help="print the table as CSV, one row as soon as it is known (a missing value is an empty "
                          "field), everything else on standard error (default: a text table)")
    common.add_argument("-o", "--output", metavar="FILE", default=None,
                        help="write the table to FILE instead of standard output (default: standard output)")
    common.add_argument("-v", "--verbose", action="count", default=0,
                        help="show progress bars on standard error even when it is not a terminal, and pass "
                             "verbose=1 (-vv: 2) to the estimators fitted: solver logs, inner progress bars "
                             "(default: bars only on a terminal, estimators silent)")
    if data_dir:
        common.add_argument("--data-dir", metavar="DIR", default=None,
                            help="folder of the data files read by the named data sets, e.g. "
                                 "DIR/libsvm/adult_adult.trn.bz2 (default: the AUCOPT_DATA environment variable, "
                                 "else the shared/data folder beside a source checkout; a missing file's error "
                                 "says where to download it)")
    return common


def progress(args: argparse.Namespace) -> bool | None:
    """Progress bars (on standard error): always with ``--verbose``, else only on a terminal."""
    return True if args.verbose else None


def bar_verbose(args: argparse.Namespace) -> int:
    """The ``verbose`` of an estimator whose only output is a progress bar."""
    return int(args.verbose or sys.stderr.isatty())


def require(module: str, package: str, purpose: str) -> ModuleType:
    """Import an optional package, or fail in one line naming it and the extra that brings it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(f"{purpose} needs {package}: {EXTRA}") from None


def first_line(text: object) -> str:
    """``text`` on one line (a message for a table note)."""
    return " ".join(str(text).split())
