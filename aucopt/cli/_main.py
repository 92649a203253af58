"""The parser of the ``aucopt`` command, built from the command modules, and :func:`main`."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence

from .._version import __version__
from . import compare, demo, formulations, onepass, solvers, sparse, survival
from ._common import EXTRA, Parser, common_options

#: the command modules, in the order of ``aucopt --help``; each has NAME, HELP (its one-line
#: description), DATA_DIR (whether it takes ``--data-dir``), add_arguments(parser) and run(args)
COMMAND_MODULES = (demo, survival, onepass, sparse, compare, solvers, formulations)

#: the commands, with the one-line description shown by ``aucopt --help``
COMMANDS = {module.NAME: module.HELP for module in COMMAND_MODULES}

DESCRIPTION = ("AUC maximization, bipartite ranking and survival risk ranking.\n\ncommands:\n"
               + "\n".join(f"  {name:14}{text}" for name, text in COMMANDS.items())
               + "\n\nEvery command prints a table; --json or --csv print it machine-readable on standard "
                 "output\n(everything else goes to standard error), -o FILE writes it to a file.")


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser of the ``aucopt`` command.

    Returns
    -------
    parser : argparse.ArgumentParser
        The parser with one sub-command per task (``demo``, ``onepass``, ``sparse``,
        ``survival``, ``solvers``, ``formulations``); each parsed namespace carries the function
        that runs it in ``func``.

    See Also
    --------
    main : Parse the arguments and run the sub-command.

    Examples
    --------
    >>> from aucopt.cli import build_parser
    >>> args = build_parser().parse_args(["survival", "--data", "veterans", "--alpha", "0.01", "--csv"])
    >>> args.data, args.alpha, args.model, args.format
    ('veterans', 0.01, ['lpr'], 'csv')
    """
    parser = Parser(prog="aucopt", allow_abbrev=False, description=DESCRIPTION,
                    formatter_class=argparse.RawDescriptionHelpFormatter,
                    epilog="Run `aucopt <command> --help` for the options of a command.")
    parser.add_argument("--version", action="version", version=f"aucopt {__version__}",
                        help="print the version and exit")
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback of an error instead of the one-line message (default: off)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser,
                                help="one of: " + ", ".join(COMMANDS))
    common, with_data = common_options(), common_options(data_dir=True)
    for module in COMMAND_MODULES:
        command = sub.add_parser(module.NAME, allow_abbrev=False, description=module.HELP + ".",
                                 parents=[with_data if module.DATA_DIR else common])
        module.add_arguments(command)
        command.set_defaults(func=module.run)
    return parser


def _error(exc: Exception, command: str) -> tuple[int, str]:
    """The exit status and one-line message of an error: 2 for bad input, 1 for a bug in aucopt."""
    from ..exceptions import NoComparablePairsError, ProblemTooLargeError, SolverError

    message = " ".join(str(exc).split())  # one line
    if not isinstance(exc, (ValueError, OSError, MemoryError, ImportError,
                            ProblemTooLargeError, NoComparablePairsError, SolverError)):
        return 1, (f"aucopt: internal error ({type(exc).__name__}: {message}); please report it with the output "
                   "of the same command run as `aucopt --debug ...`\n")
    message = message or type(exc).__name__
    if type(exc) is MemoryError:  # a bare MemoryError carries no message
        message = ("out of memory: the problem does not fit in this machine's memory; "
                   "use a scalable --method or less data")
    elif isinstance(exc, ImportError) and "pip install" not in message:
        message = f"aucopt {command} needs {exc.name or 'an optional package'}: {EXTRA} ({message})"
    return 2, f"aucopt: error: {message}\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``aucopt`` command line.

    Parameters
    ----------
    argv : list of str, default=None
        The arguments after the program name; ``None`` reads ``sys.argv[1:]``.

    Returns
    -------
    status : int
        0 on success. Invalid input does not return: it exits with status 2 after printing one
        line ``aucopt: error: ...`` to standard error.

    See Also
    --------
    build_parser : The parser and the options of every sub-command.

    Notes
    -----
    Exit statuses and messages:

    * **2, ``aucopt: error: <message>``** — bad input: an unknown option or value, a missing or
      unreadable file, a parameter out of range, a problem over the memory budget
      (:class:`~aucopt.exceptions.ProblemTooLargeError`), a target without comparable pairs
      (:class:`~aucopt.exceptions.NoComparablePairsError`), a solver that returned no solution
      (:class:`~aucopt.exceptions.SolverError`), an optional package that is not installed
      (``... needs <package>: pip install 'aucopt[survival]'``), or any other ``ValueError``,
      ``OSError`` or ``MemoryError``.
    * **1, ``aucopt: internal error (<type>: <message>); please report it ...``** — any other
      exception (``TypeError``, ``AssertionError``, ...) is a bug in aucopt, not bad input: it is
      named as such, by its type, so that it is not mistaken for a usage error.
    * **130** — interrupted with Ctrl-C.
    * **141** — standard output was closed by its reader (a broken pipe, as in
      ``aucopt solvers | head -1``); nothing is printed.

    ``aucopt --debug <command> ...`` re-raises every error with its full traceback instead.

    Examples
    --------
    >>> from aucopt.cli import main
    >>> main(["formulations"])  # doctest: +ELLIPSIS
    auc_least_squares ...
    lp_ranker ...
    0
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:  # the reader left (`aucopt solvers | head -1`): stop quietly, as Unix tools do
        with contextlib.suppress(OSError, ValueError, AttributeError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 141
    except KeyboardInterrupt:
        if args.debug:
            raise
        parser.exit(130, "aucopt: interrupted\n")
    except Exception as exc:  # bad input in one line; a bug named as such (--debug shows the traceback)
        if args.debug:
            raise
        parser.exit(*_error(exc, args.command))
