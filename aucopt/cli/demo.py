"""``aucopt demo``: the LP Ranker (Ataman 2007, eq. 3.3) on scikit-learn's breast-cancer data with
each solver, one table row per solver as soon as it has finished."""

from __future__ import annotations

import argparse
import time
import warnings
from typing import TYPE_CHECKING, Any

from ._common import first_line, progress
from ._output import Column, Report, open_report

if TYPE_CHECKING:
    import numpy as np


NAME = "demo"
HELP = "fit the LP Ranker on scikit-learn's breast-cancer data with each solver"
DATA_DIR = False

#: LP backends the demo runs by default (OSQP is a first-order QP solver: on this degenerate
#: LP it needs >100 s to reach 1e-6, so it is only run when asked for by name).
DEMO_SOLVERS = ("highs", "clarabel", "scs")

#: the tolerance every solver of the demo is run to; it is also the support threshold (relative to
#: max|α|): a coefficient below it is at the level of the solvers' error, so a simplex vertex, an
#: interior point and a first-order iterate count the same support vectors
DEMO_TOL = 1e-7


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``aucopt demo``."""
    parser.add_argument("--solvers", nargs="+", default=list(DEMO_SOLVERS),
                        help=f"solver names, run in this order (default: {' '.join(DEMO_SOLVERS)}; osqp also works "
                             "but needs minutes on this LP; see `aucopt solvers`)")
    parser.add_argument("--C", type=float, default=1.0, help="pair-loss weight C of the LP Ranker, > 0 (default 1)")
    parser.add_argument("--gamma", type=float, default=1.0, help="RBF kernel gamma (default 1)")
    parser.add_argument("--train-size", type=float, default=0.5,
                        help="training fraction in (0, 1), the rest is the test set (default 0.5; 0.8 gives 455 "
                             "training points)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the stratified train/test split (default 0)")
    parser.add_argument("--tol", type=float, default=DEMO_TOL,
                        help=f"tolerance of every solver, and the support threshold relative to max|alpha| "
                             f"(default {DEMO_TOL:g})")


def demo_data(train_size: float, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """WDBC (malignant positive) split into min-max scaled training and test sets, as the demo fits it."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import MinMaxScaler

    X, y = load_breast_cancer(return_X_y=True)
    y = (y == 0).astype(int)  # WDBC: malignant (target 0) is the positive class
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, train_size=train_size, random_state=seed, stratify=y)
    scaler = MinMaxScaler().fit(X_tr)
    return scaler.transform(X_tr), scaler.transform(X_te), y_tr, y_te


def _check(args: argparse.Namespace) -> None:
    """Refuse an unknown solver or a parameter out of range, before any fit."""
    from ..solvers import check_solver

    for name in args.solvers:
        check_solver(name)  # unknown / uninstalled names fail here, before any fit
    if not args.C > 0:
        raise ValueError(f"--C must be positive; got {args.C}.")
    if not 0 < args.train_size < 1:
        raise ValueError(f"--train-size must lie in (0, 1); got {args.train_size}.")
    if not 0 < args.tol < 1:
        raise ValueError(f"--tol must lie in (0, 1); got {args.tol}.")


def _fit_row(args: argparse.Namespace, name: str, data: tuple, notes: list[str]) -> dict[str, Any]:
    """Fit the LP Ranker with solver ``name``: its table row; its warnings or failure go to ``notes``."""
    from .. import LPRanker
    from ..exceptions import SolverError

    X_tr, X_te, y_tr, y_te = data
    model = LPRanker(C=args.C, gamma=args.gamma, method="full", solver=name, tol=args.tol,
                     support_threshold=args.tol, verbose=args.verbose)
    start = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model.fit(X_tr, y_tr)
    except SolverError as exc:
        notes.append(f"{name}: {first_line(exc)}")
        return {"solver": name, "status": str(exc.result.status), "seconds": time.perf_counter() - start}
    seconds = time.perf_counter() - start
    notes += [f"{name}: {first_line(w.message)}" for w in caught]
    assert model.solve_result_ is not None  # a fit without SolverError has a result
    return {"solver": name, "status": str(model.solve_result_.status) + (" (warned)" if caught else ""),
            "objective": model.objective_, "test_auc": model.score(X_te, y_te),
            "support_vectors": len(model.support_), "seconds": seconds}


def _introduce(out: Report, args: argparse.Namespace, y_tr: np.ndarray, y_te: np.ndarray) -> None:
    """The notes above the table (the data, the pairs, the parameters) and the summary."""
    n_pos = int(y_tr.sum())
    out.note(f"LP Ranker (Ataman 2007, eq. 3.3) on WDBC (scikit-learn's breast cancer, min-max scaled): "
             f"{len(y_tr)} training points ({n_pos} malignant), {n_pos * (len(y_tr) - n_pos):,} pairs, "
             f"{len(y_te)} test points; RBF gamma={args.gamma}, C={args.C}.")
    out.note(f"Each solver solves the full LP to tol={args.tol:g}; the support vectors are the training points "
             f"with |alpha_l| > tol * max|alpha| (smaller coefficients are within the solvers' error).")
    out.summary.update(training_points=len(y_tr), malignant=n_pos, pairs=n_pos * (len(y_tr) - n_pos),
                       test_points=len(y_te), gamma=args.gamma, C=args.C, tol=args.tol)


def run(args: argparse.Namespace) -> int:
    """``aucopt demo``: fit the LP Ranker with each solver; one table row per solver, printed as
    soon as that solver has finished."""
    from .._progress import progress_bar

    _check(args)
    data = demo_data(args.train_size, args.seed)
    columns = [Column("solver", "solver", max(map(len, args.solvers))), Column("status", "status", 16),
               Column("objective", "objective", 12, ".6f"), Column("test_auc", "test AUC", 8, ".4f"),
               Column("support_vectors", "support vectors", 15, "d"), Column("seconds", "seconds", 7, ".2f")]
    with open_report(args, columns) as out:
        _introduce(out, args, data[2], data[3])
        out.start()
        notes: list[str] = []
        bar = progress_bar(progress(args), total=len(args.solvers), desc="LPRanker", unit="solver")
        for name in args.solvers:
            if bar is not None:
                bar.set_description(f"LPRanker {name}")
            try:
                out.row(**_fit_row(args, name, data, notes))
            finally:
                if bar is not None:
                    bar.update(1)
        if bar is not None:
            bar.close()
        for note in dict.fromkeys(notes):
            out.note(note)
    return 0
