"""Command-line interface: ``aucopt demo``, ``aucopt solvers``, ``aucopt formulations``."""

from __future__ import annotations

import argparse
import sys
import time
import warnings

#: LP backends the demo runs by default (OSQP is a first-order QP solver: on this degenerate
#: LP it needs >100 s to reach 1e-6, so it is only run when asked for by name).
DEMO_SOLVERS = ("highs", "clarabel", "scs")


def _demo_data(train_size: float, seed: int):
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import MinMaxScaler

    X, y = load_breast_cancer(return_X_y=True)
    y = (y == 0).astype(int)  # WDBC: malignant (target 0) is the positive class
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, train_size=train_size, random_state=seed, stratify=y)
    scaler = MinMaxScaler().fit(X_tr)
    return scaler.transform(X_tr), scaler.transform(X_te), y_tr, y_te


def demo(args) -> int:
    from . import LPRanker
    from .solvers import SolverError, check_solver

    for name in args.solvers:
        check_solver(name)  # unknown / uninstalled names fail here, before any fit
    if not args.C > 0:
        raise ValueError(f"--C must be positive; got {args.C}.")
    if not 0 < args.train_size < 1:
        raise ValueError(f"--train-size must lie in (0, 1); got {args.train_size}.")

    X_tr, X_te, y_tr, y_te = _demo_data(args.train_size, args.seed)
    n_pos = int(y_tr.sum())
    print(f"LP Ranker (seed 003 eq. 3.3) on WDBC (scikit-learn's breast cancer, min-max scaled): "
          f"{len(y_tr)} training points ({n_pos} malignant), {n_pos * (len(y_tr) - n_pos):,} pairs, "
          f"{len(y_te)} test points; RBF gamma={args.gamma}, C={args.C}.")
    rows = []
    for name in args.solvers:
        model = LPRanker(C=args.C, gamma=args.gamma, solver=name)
        start = time.perf_counter()
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                model.fit(X_tr, y_tr)
        except SolverError as exc:
            rows.append((name, str(exc.result.status), "", "", "", f"{time.perf_counter() - start:.2f}"))
            continue
        seconds = time.perf_counter() - start
        status = str(model.solve_result_.status) + (" (warned)" if caught else "")
        rows.append((name, status, f"{model.objective_:.6f}", f"{model.score(X_te, y_te):.4f}",
                     str(len(model.support_)), f"{seconds:.2f}"))
    header = ("solver", "status", "objective", "test AUC", "ranking vectors", "seconds")
    widths = [max(len(str(r[k])) for r in rows + [header]) for k in range(len(header))]
    for row in [header] + rows:
        print("  ".join(str(v).ljust(w) for v, w in zip(row, widths)))
    return 0


def list_solvers(args) -> int:
    from . import available_solvers

    print("\n".join(available_solvers()))
    return 0


def list_formulations(args) -> int:
    from . import available_formulations, get_formulation

    for name in available_formulations():
        form = get_formulation(name)
        doc = (form.__doc__ or "").strip().splitlines()
        print(f"{name:24s} {form.kind.upper():3s} {doc[0] if doc else ''}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="aucopt", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("demo", help="fit the LP Ranker on real data with each available solver")
    p.add_argument("--solvers", nargs="+", default=list(DEMO_SOLVERS),
                   help=f"solver names (default: {' '.join(DEMO_SOLVERS)}; see `aucopt solvers`)")
    p.add_argument("--C", type=float, default=1.0, help="pair-loss weight C (default 1)")
    p.add_argument("--gamma", type=float, default=1.0, help="RBF gamma (default 1)")
    p.add_argument("--train-size", type=float, default=0.5,
                   help="training fraction in (0, 1) (default 0.5; 0.8 gives the design's 456-point case)")
    p.add_argument("--seed", type=int, default=0, help="split seed (default 0)")
    p.set_defaults(func=demo)
    sub.add_parser("solvers", help="list usable solver names").set_defaults(func=list_solvers)
    sub.add_parser("formulations", help="list registered formulations").set_defaults(func=list_formulations)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ValueError as exc:  # bad input: a one-line message, not a traceback
        parser.exit(2, f"aucopt: error: {exc}\n")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
