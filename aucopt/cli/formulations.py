"""``aucopt formulations``: the registered formulations, with their kind and first docstring line."""

from __future__ import annotations

import argparse

from ._output import Column, open_report

NAME = "formulations"
HELP = "list the registered formulations"
DATA_DIR = False


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``aucopt formulations`` takes only the common options."""


def run(args: argparse.Namespace) -> int:
    """``aucopt formulations``: name, kind and first docstring line of each registered formulation."""
    from .. import available_formulations, get_formulation

    columns = [Column("name", "name", 24), Column("kind", "kind", 4), Column("description", "description")]
    with open_report(args, columns, text_table=False) as out:
        for name in available_formulations():
            form = get_formulation(name)
            doc = (form.__doc__ or "").strip().splitlines()
            row = {"name": name, "kind": form.kind.upper(), "description": doc[0].strip() if doc else None}
            if args.format == "text":
                out.note(f"{name:24s} {row['kind']:3s} {row['description'] or ''}".rstrip())
            else:
                out.row(**row)
    return 0
