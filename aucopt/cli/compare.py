"""``aucopt compare``: one formulation solved by several solvers, with their disagreement."""

from __future__ import annotations

import argparse
import math
import os
from typing import TYPE_CHECKING, Any

from ._common import first_line
from ._inputs import check_data_dir_option, check_input_file, load_survival_data
from ._output import MISSING, Column, Report, open_report

if TYPE_CHECKING:
    import numpy as np

    from ..modeling import Formulation, Problem
    from ..pairs import PairSet


NAME = "compare"
HELP = "solve one formulation with several solvers and show how far they disagree"
DATA_DIR = True

#: default solvers, point budget and seconds per solver of ``aucopt compare``
COMPARE_SOLVERS = ("highs", "osqp", "clarabel", "scs")
COMPARE_MAX_POINTS = 200
COMPARE_TIME_LIMIT = 60.0  # aucopt.modeling._compare.DEFAULT_TIME_LIMIT

#: names of scikit-learn's breast-cancer set for ``aucopt compare --data``
WDBC_NAMES = ("wdbc", "breast_cancer")


# ============================================================================ options
def _time_limit(text: str) -> float | None:
    """``--time-limit``: positive seconds, or ``none`` for no limit."""
    if text.strip().lower() == "none":
        return None
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds or 'none'; got {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``aucopt compare``."""
    p = parser
    p.add_argument("formulation", help="a registered formulation (see `aucopt formulations`), e.g. lp_ranker")
    p.add_argument("--data", default="wdbc",
                   help="wdbc (scikit-learn's breast cancer), a survival set (whas500, gbsg2, veterans, flchain; "
                        "support, metabric, gbsg, whas in the data folder) or FILE.csv: last column a two-valued "
                        "label, or survival with --time and --event (default wdbc)")
    p.add_argument("--time", help="time column of a survival CSV file (default: none, the CSV is bipartite)")
    p.add_argument("--event", help="event column of a survival CSV file, bool or 0/1 (default: none)")
    p.add_argument("--groups", metavar="COLUMN",
                   help="column of the CSV file holding each point's group, for a formulation that reads groups "
                        "(fair_ranker: two groups); it stays a feature unless removed from the file (default: none)")
    p.add_argument("--solvers", nargs="+", default=list(COMPARE_SOLVERS),
                   help=f"solver names, exact ones run first (default: {' '.join(COMPARE_SOLVERS)}; see "
                        "`aucopt solvers`)")
    p.add_argument("--param", nargs="+", action="extend", metavar="KEY=VALUE", default=[],
                   help="parameters of the formulation, e.g. --param C=1.0, checked against what it declares (a "
                        "wrong name or value lists its parameters; default: the formulation's own)")
    p.add_argument("--kernel", choices=("rbf", "linear", "poly"), default="rbf", help="kernel (default rbf)")
    p.add_argument("--gamma", type=float, default=1.0, help="gamma of the rbf and poly kernels (default 1)")
    p.add_argument("--max-points", type=int, default=COMPARE_MAX_POINTS,
                   help=f"use at most this many points, a (stratified) random subset (default {COMPARE_MAX_POINTS})")
    p.add_argument("--seed", type=int, default=0, help="seed of the subset (default 0)")
    p.add_argument("--tol", type=float, default=None, help="tolerance passed to every solver (default: each solver's)")
    p.add_argument("--time-limit", type=_time_limit, default=COMPARE_TIME_LIMIT, metavar="SECONDS",
                   help=f"seconds per solver, passed to each solver's own time limit; a solver that hits it shows "
                        f"status time_limit and its last point ('none': no limit; default {COMPARE_TIME_LIMIT:g})")


# ============================================================================ parameters
def _parse_value(text: str) -> Any:
    """A ``--param`` value: an int, else a float, else ``None`` for "None", else the text."""
    if text.strip() == "None":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _parse_params(items: list[str] | None) -> dict[str, Any]:
    """``--param C=1.0 k=3`` as ``{"C": 1.0, "k": 3}`` (numbers as numbers, ``None`` as None, else strings)."""
    params: dict[str, Any] = {}
    for item in items or []:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--param {item!r} is not KEY=VALUE; write e.g. --param C=1.0")
        params[key.strip()] = _parse_value(text)
    return params


def _check_params(form: Formulation, params: dict[str, Any]) -> dict[str, Any]:
    """The ``--param`` values checked against the formulation's declared parameters, before any data is
    read; a usage error names the value and lists every parameter with what it takes."""
    from inspect import Parameter

    try:
        return form.validate_params(params)
    except ValueError as exc:
        given = " ".join(f"{k}={v}" for k, v in params.items())
        if any(key not in form.parameters for key in params):  # the message lists the parameters already
            raise ValueError(f"--param {given}: {exc}") from None
        listing = []
        for key, allowed, default in form.describe_params():
            constraints = form.parameter_constraints.get(key, [])
            array = bool(constraints) and all(c in ("array-like", "sparse matrix", None) for c in constraints)
            how = ("; from --groups COLUMN" if key == "groups" else "; not settable with --param") if array else ""
            shown = "required" if default is Parameter.empty else f"default {default!r}"
            listing.append(f"{key} ({allowed}; {shown}{how})")
        raise ValueError(f"--param {given}: {exc} The parameters of {form.name}: "
                         + (", ".join(listing) if listing else "none") + ".") from None


# ============================================================================ data
def _groups(args: argparse.Namespace, n_rows: int) -> tuple[np.ndarray, np.ndarray] | None:
    """``--groups COLUMN``: (integer code per row, labels) from the CSV file of ``--data``, or None."""
    import numpy as np

    if args.groups is None:
        return None
    from .._csv import read_csv

    if not os.path.isfile(args.data):
        raise ValueError(f"--groups {args.groups} reads a column of a CSV file, and --data {args.data} is a named "
                         "data set: write the data with its group column to a CSV file and pass --data FILE.csv.")
    if args.groups in (args.time, args.event):
        raise ValueError(f"--groups {args.groups} names the {'time' if args.groups == args.time else 'event'} column; "
                         "give the column that holds each point's group.")
    column = read_csv(args.data, (args.groups,))[args.groups].to_numpy()
    if len(column) != n_rows:  # pragma: no cover - the loaders keep every row of a CSV file
        raise ValueError(f"--groups {args.groups}: {len(column)} rows in {args.data} but {n_rows} points were read.")
    labels, codes = np.unique(column.astype(str) if column.dtype == object else column, return_inverse=True)
    return codes, labels


def _bipartite_csv(args: argparse.Namespace) -> tuple[np.ndarray, np.ndarray, str]:
    """A CSV file whose last column is a two-valued label (the larger value positive)."""
    import numpy as np

    from .._csv import covariates, read_csv

    check_input_file(args.data)
    frame = read_csv(args.data)  # the reader of every CSV path: complete, or an error naming the lines
    if frame.shape[1] < 2:
        raise ValueError(f"{args.data} has {frame.shape[1]} column(s); expected features and a label in the "
                         "last column.")
    if args.groups == frame.columns[-1]:
        raise ValueError(f"--groups {args.groups} names the label (the last column of {args.data}); give the "
                         "column that holds each point's group.")
    labels = frame.iloc[:, -1].to_numpy()
    values = np.unique(labels)
    if len(values) != 2:
        raise ValueError(f"The last column of {args.data} ({frame.columns[-1]!r}) has {len(values)} distinct "
                         "values; a bipartite label needs 2 (for survival data give --time and --event).")
    X = covariates(frame.iloc[:, :-1])
    return X, (labels == values[1]).astype(int), f"{args.data} (label {frame.columns[-1]!r} = {values[1]!r})"


def _read(args: argparse.Namespace, survival: bool) -> tuple[np.ndarray, Any, str]:
    """The points, their target and a description of ``--data``."""
    import numpy as np

    if args.data in WDBC_NAMES:
        from sklearn.datasets import load_breast_cancer

        X, target = load_breast_cancer(return_X_y=True)
        return X, (target == 0).astype(int), "WDBC (scikit-learn's breast cancer, malignant positive)"
    if survival:
        X, y = load_survival_data(args)
        return np.asarray(X, dtype=float), y, f"{args.data} (survival)"
    return _bipartite_csv(args)


def _compare_data(args: argparse.Namespace) -> tuple[np.ndarray, PairSet, str]:
    """``--data`` of ``aucopt compare``: (X, PairSet, description), at most ``--max-points`` points.

    wdbc / breast_cancer (scikit-learn, malignant positive); a survival set or a CSV with
    ``--time`` and ``--event`` (Harrell's comparable pairs); a CSV whose last column is a
    two-valued label (the larger value positive). Features are min-max scaled.
    """
    import numpy as np
    from sklearn.preprocessing import MinMaxScaler

    from ..pairs import PairSet

    survival = args.data not in WDBC_NAMES and (not args.data.lower().endswith(".csv") or args.time or args.event)
    X, y, what = _read(args, survival)
    n = len(X)
    groups = _groups(args, n)
    if args.max_points < 2:
        raise ValueError(f"--max-points must be at least 2; got {args.max_points}.")
    if n > args.max_points:
        from sklearn.model_selection import train_test_split

        keep, _ = train_test_split(np.arange(n), train_size=args.max_points, random_state=args.seed,
                                   stratify=None if survival else y)
        keep = np.sort(keep)
        X, y = X[keep], y[keep]
        groups = None if groups is None else (groups[0][keep], groups[1])
    X = MinMaxScaler().fit_transform(X)
    pairs = PairSet.survival(y) if survival else PairSet.bipartite(y)
    what = f"{what}: {len(X)} of {n} points"
    if groups is not None:  # read by the formulation as m.groups
        pairs = pairs.with_groups(groups[0])
        what += (f"; groups from column {args.groups!r} ("
                 + ", ".join(f"{k} = {label!r}" for k, label in enumerate(groups[1].tolist())) + ")")
    return X, pairs, what


# ============================================================================ the command
def _problem(args: argparse.Namespace, form: Formulation, params: dict[str, Any],
             pairs: PairSet, X: np.ndarray) -> Problem:
    """The formulation built on the kernel of ``X``, its size checked first."""
    from .. import kernel_matrix
    from ..modeling import MissingGroupsError

    K = kernel_matrix(X, kernel=args.kernel, gamma=args.gamma)
    form.check_size(n_points=pairs.n_points, n_pairs=pairs.n_pairs, n_basis=K.shape[1])
    try:
        problem = form.build(pairs, K, **params)
    except MissingGroupsError:
        raise ValueError(f"{form.name} reads each point's group (m.groups), and none was given: pass --data FILE.csv "
                         "with --groups COLUMN, the column that holds each point's group.") from None
    if args.groups is not None and "groups" not in problem.metadata.get("data_read", ()):
        raise ValueError(f"--groups {args.groups}: {form.name} does not read groups (m.groups); leave --groups out, "
                         "or compare a formulation that reads them, such as fair_ranker.")
    return problem


def _introduce(out: Report, args: argparse.Namespace, form: Formulation, params: dict[str, Any], what: str,
               pairs: PairSet, problem: Problem) -> None:
    """The note above the table (the problem, its data and size, the time limit) and the summary."""
    out.note(f"{form.name} on {what}, {pairs.n_pairs:,} pairs; {args.kernel} kernel"
             + (f" gamma={args.gamma:g}" if args.kernel != "linear" else "")
             + (f"; {', '.join(f'{k}={v}' for k, v in params.items())}" if params else "")
             + f"; {problem.kind}: {problem.n_vars:,} variables, {problem.n_rows:,} rows"
             + ("; no time limit" if args.time_limit is None else f"; time limit {args.time_limit:g} s per solver"))
    out.summary.update(formulation=form.name, data=args.data, points=pairs.n_points, pairs=pairs.n_pairs,
                       groups=args.groups, kernel=args.kernel, gamma=args.gamma, time_limit=args.time_limit,
                       **{f"param_{k}": v for k, v in params.items()})


def _row_note(row: dict[str, Any], time_limit: float | None) -> str | None:
    """What a person should know about a solver's row: its error, its time limit, or None."""
    if row["status"] in ("unavailable", "error") and row["message"]:
        return f"{row['solver']}: {first_line(row['message'])}"
    if row["status"] == "time_limit":
        reached = "an approximate point" if math.isfinite(row["objective"]) else "before a first point"
        return (f"{row['solver']}: stopped at the {time_limit:g} s time limit, {reached} "
                "(raise --time-limit to let it finish)")
    if "has no time limit: ran without" in row["message"]:
        return f"{row['solver']}: {row['message'].split(';')[0]}"
    return None


def _conclude(out: Report, attrs: dict[str, Any]) -> None:
    """The largest disagreement with the best exact optimum, and the summary."""
    import numpy as np

    ref, gap, coef = attrs["reference_solver"], attrs["max_objective_gap"], attrs["max_coef_gap"]
    out.summary.update(reference_solver=ref, max_objective_gap=gap, max_coef_gap=coef,
                       time_limited=attrs["time_limited"])
    if ref is None:
        out.note("max disagreement: none measured (no exact solver reached 'optimal')")
    else:
        out.note(f"max disagreement with {ref}'s optimum: objective {gap:.2e} (relative), coef "
                 + (f"{coef:.2e}" if np.isfinite(coef) else MISSING))


def run(args: argparse.Namespace) -> int:
    """``aucopt compare``: one formulation, several solvers; a row per solver as it finishes and
    the largest disagreement with the best exact optimum."""
    from .. import get_formulation, modeling

    form = get_formulation(args.formulation)  # an unknown name fails here, listing the known ones
    params = _check_params(form, _parse_params(args.param))
    check_data_dir_option(args)
    X, pairs, what = _compare_data(args)
    problem = _problem(args, form, params, pairs, X)
    columns = [Column("solver", "solver", max(map(len, args.solvers))), Column("status", "status", 16),
               Column("objective", "objective", 14, ".8g"), Column("seconds", "seconds", 7, ".3f"),
               Column("iterations", "iterations", 10, "d"), Column("objective_gap", "objective gap", 13, ".2e"),
               Column("coef_gap", "coef gap", 9, ".2e")]
    with open_report(args, columns) as out:
        _introduce(out, args, form, params, what, pairs, problem)
        out.start()
        notes = []

        def report(row: dict[str, Any]) -> None:
            out.row(**row)
            note = _row_note(row, args.time_limit)
            if note is not None:
                notes.append(note)

        table = modeling.compare_solvers(problem, args.solvers, tol=args.tol, time_limit=args.time_limit,
                                         callback=report)
        for note in notes:
            out.note(note)
        _conclude(out, table.attrs)
    return 0
