"""``aucopt solvers``: the usable solver names, one per line."""

from __future__ import annotations

import argparse

from ._output import Column, open_report

NAME = "solvers"
HELP = "list the usable solver names"
DATA_DIR = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``aucopt solvers`` takes only the common options."""


def run(args: argparse.Namespace) -> int:
    """``aucopt solvers``: one usable solver name per line."""
    from .. import available_solvers

    with open_report(args, [Column("solver", "solver")], text_table=False) as out:
        for name in available_solvers():
            if args.format == "text":
                out.note(name)
            else:
                out.row(solver=name)
    return 0
