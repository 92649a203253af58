"""The ``aucopt`` command line.

* ``aucopt demo`` — the LP Ranker (Ataman 2007, eq. 3.3) on scikit-learn's breast-cancer data with
  each solver;
* ``aucopt survival`` — the survival evaluation protocol of Ataman (2007), Sec. 5.3.5;
* ``aucopt onepass`` — one-pass AUC (Gao et al. 2013) streamed over a LIBSVM file;
* ``aucopt sparse`` — sparse greedy kernel AUC (Kakkar et al. 2017) and its basis-size path;
* ``aucopt solvers`` / ``aucopt formulations`` — the usable solver names / registered formulations.

Options use the estimators' parameter names (``--C``, ``--alpha``, ``--gamma``, ``--eta0``,
``--basis-size``). Bad input exits with status 2 and a one-line ``aucopt: error: ...``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np

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


def _demo(args) -> int:
    """``aucopt demo``: fit the LP Ranker with each solver and print one table row per solver."""
    from . import LPRanker
    from .exceptions import SolverError
    from .solvers import check_solver

    for name in args.solvers:
        check_solver(name)  # unknown / uninstalled names fail here, before any fit
    if not args.C > 0:
        raise ValueError(f"--C must be positive; got {args.C}.")
    if not 0 < args.train_size < 1:
        raise ValueError(f"--train-size must lie in (0, 1); got {args.train_size}.")

    X_tr, X_te, y_tr, y_te = _demo_data(args.train_size, args.seed)
    n_pos = int(y_tr.sum())
    print(f"LP Ranker (Ataman 2007, eq. 3.3) on WDBC (scikit-learn's breast cancer, min-max scaled): "
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
    header = ("solver", "status", "objective", "test AUC", "support vectors", "seconds")
    widths = [max(len(str(r[k])) for r in rows + [header]) for k in range(len(header))]
    for row in [header] + rows:
        print("  ".join(str(v).ljust(w) for v, w in zip(row, widths)))
    return 0


def _onepass(args) -> int:
    """``aucopt onepass``: stream a LIBSVM file through OnePassAUC in chunks (never loaded whole)."""
    import os

    from .metrics import roc_auc
    from .online._onepass import OnePassAUC, iter_svmlight_chunks

    for path in [args.train] + ([args.test] if args.test else []):
        if not os.path.exists(path):
            raise ValueError(f"file not found: {path}")
    model = OnePassAUC(alpha=args.alpha, eta0=args.eta0, rank=args.rank, average=args.average)
    start = time.perf_counter()
    chunks = iter_svmlight_chunks(args.train, args.chunk_size, args.n_features, zero_based=args.zero_based)
    model.fit(((X, y == args.positive) for X, y in chunks))
    seconds = time.perf_counter() - start
    print(f"one pass over {model.n_seen_:,} examples ({args.n_features} features, "
          f"{'rank ' + str(args.rank) if args.rank else 'full covariance'}) in {seconds:.2f} s")
    if args.test:
        scores, labels = [], []
        for X, y in iter_svmlight_chunks(args.test, args.chunk_size, args.n_features,
                                         zero_based=args.zero_based):
            scores.append(model.decision_function(X))
            labels.append(y == args.positive)
        print(f"test AUC {roc_auc(np.concatenate(labels), np.concatenate(scores)):.4f}")
    return 0


def _load_labelled(path: str, positive: float, n_features=None):
    import os

    from sklearn.datasets import load_svmlight_file

    if not os.path.exists(path):
        raise ValueError(f"file not found: {path}")
    X, y = load_svmlight_file(path, n_features=n_features)
    return X.toarray(), (y == positive).astype(int)


def _sparse(args) -> int:
    """``aucopt sparse``: greedy sparse kernel AUC (Kakkar et al. 2017); print the path and test AUC."""
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    from .svm._sparse_greedy import SparseAUC

    if args.data == "breast_cancer":
        from sklearn.datasets import load_breast_cancer

        X, y = load_breast_cancer(return_X_y=True)
        y = (y == 0).astype(int)
    else:
        X, y = _load_labelled(args.data, args.positive)
    if args.test:
        X_te, y_te = _load_labelled(args.test, args.positive, n_features=X.shape[1])
        X_tr, y_tr = X, y
    else:
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, stratify=y, random_state=args.seed)
    scaler = StandardScaler().fit(X_tr)
    model = SparseAUC(C=args.C, basis_size=min(args.basis_size, len(y_tr) - 1), kappa=args.kappa,
                      selection=args.selection, random_state=args.seed)
    start = time.perf_counter()
    model.fit(scaler.transform(X_tr), y_tr)
    seconds = time.perf_counter() - start
    print(f"{'basis':>5} {'objective':>12} {'validation AUC':>15}")
    for step in model.path_:
        val = step.get("val_score")
        print(f"{step['n_basis']:5d} {step['objective']:12.4f} {'' if val is None else f'{val:15.4f}'}")
    print(f"kept |J| = {len(model.support_)} in {seconds:.2f} s; "
          f"test AUC {model.score(scaler.transform(X_te), y_te):.4f}")
    return 0


SURVIVAL_MODELS = ("lpr", "aucsvm", "newton", "newton-kernel")


def _survival_model(name: str, args, n_pairs: int):
    """The estimator behind ``--model`` (min-max scaling fitted inside each training fold)."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler

    from . import SurvivalAUCSVM
    from . import SurvivalLPRanker
    from . import SurvivalRankRC
    from . import SurvivalRankSVM

    pair_options = {"variant": "lprex"} if args.lprex else None
    if name == "lpr":
        method = args.method if args.method != "auto" else ("full" if n_pairs <= 20_000 else "subgradient")
        model = SurvivalLPRanker(C=args.C, gamma=args.gamma, method=method, pair_options=pair_options,
                                 support_threshold=1e-3 if method == "subgradient" else 1e-8)
    elif name == "aucsvm":
        model = SurvivalAUCSVM(C=args.svm_C, gamma=args.gamma, pair_options=pair_options)
    elif name == "newton":
        model = SurvivalRankSVM(alpha=args.alpha, pair_options=pair_options)
    else:
        model = SurvivalRankRC(alpha=args.alpha, gamma=args.gamma, pair_options=pair_options)
    return make_pipeline(MinMaxScaler(), model)


def _survival(args) -> int:
    """``aucopt survival``: the protocol of Ataman (2007), Sec. 5.3.5 — pooled-percentile C-index
    by repeated k-fold CV for each model and Cox regression, paired t-tests, Kaplan–Meier risk groups."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler

    from .datasets import load_survival
    from .pairs import PairSet
    from .survival import CoxPH, comparison_table, evaluate_methods, plot_risk_groups, save_figure

    X, y = load_survival(args.data, time=args.time, event=args.event)
    n_pairs = PairSet.survival(y).n_pairs
    print(f"{args.data}: {len(y)} subjects, {int(y['event'].sum())} events, {X.shape[1]} covariates, "
          f"{n_pairs:,} comparable pairs; {args.splits}-fold CV × {args.repeats}")
    methods = {m: _survival_model(m, args, n_pairs) for m in args.model}
    try:
        import lifelines  # noqa: F401

        methods["cox"] = make_pipeline(MinMaxScaler(), CoxPH(alpha=args.cox_alpha))
    except ImportError:
        print("lifelines is not installed: the Cox baseline is skipped (pip install 'aucopt[survival]').")
    results = evaluate_methods(methods, X, y, n_splits=args.splits, n_repeats=args.repeats,
                               random_state=args.seed, verbose=0)
    print(comparison_table(results, baseline="cox" if "cox" in results else None))
    if args.km_png:
        fig = plot_risk_groups(y["time"], y["event"],
                               {k: r.percentiles[0] for k, r in results.items()}, top=args.top,
                               title=f"{args.data}: top {args.top:g}% vs rest (pooled CV, repetition 1)")
        print(f"Kaplan–Meier figure: {save_figure(fig, args.km_png)}")
    return 0


def _list_solvers(args) -> int:
    """``aucopt solvers``: one usable solver name per line."""
    from . import available_solvers

    print("\n".join(available_solvers()))
    return 0


def _list_formulations(args) -> int:
    """``aucopt formulations``: name, kind and first docstring line of each registered formulation."""
    from . import available_formulations
    from . import get_formulation

    for name in available_formulations():
        form = get_formulation(name)
        doc = (form.__doc__ or "").strip().splitlines()
        print(f"{name:24s} {form.kind.upper():3s} {doc[0] if doc else ''}")
    return 0


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
    >>> args = build_parser().parse_args(["survival", "--data", "veterans", "--alpha", "0.01"])
    >>> args.data, args.alpha, args.model
    ('veterans', 0.01, ['lpr'])
    """
    parser = argparse.ArgumentParser(prog="aucopt", allow_abbrev=False,
                                     description="AUC maximization, bipartite ranking and survival risk ranking.",
                                     epilog="Run `aucopt <command> --help` for the options of a command.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("demo", allow_abbrev=False, help="fit the LP Ranker on real data with each available solver")
    p.add_argument("--solvers", nargs="+", default=list(DEMO_SOLVERS),
                   help=f"solver names (default: {' '.join(DEMO_SOLVERS)}; see `aucopt solvers`)")
    p.add_argument("--C", type=float, default=1.0, help="pair-loss weight C (default 1)")
    p.add_argument("--gamma", type=float, default=1.0, help="RBF gamma (default 1)")
    p.add_argument("--train-size", type=float, default=0.5,
                   help="training fraction in (0, 1) (default 0.5; 0.8 gives 455 training points)")
    p.add_argument("--seed", type=int, default=0, help="split seed (default 0)")
    p.set_defaults(func=_demo)
    p = sub.add_parser("onepass", allow_abbrev=False, help="one-pass AUC over a LIBSVM file, streamed in chunks")
    p.add_argument("train", help="LIBSVM training file (plain, .bz2 or .gz)")
    p.add_argument("--n-features", type=int, required=True, help="number of features d")
    p.add_argument("--test", help="LIBSVM test file for the AUC")
    p.add_argument("--positive", type=float, default=1.0, help="label of the positive class (default 1)")
    p.add_argument("--alpha", type=float, default=1e-4, help="penalty multiplier alpha (default 1e-4)")
    p.add_argument("--eta0", type=float, default=0.01, help="step size (≲ 1/(4 max‖x‖²); default 0.01)")
    p.add_argument("--rank", type=int, default=None, help="low-rank sketch size τ (O(τd) memory)")
    p.add_argument("--average", action="store_true", help="use the averaged iterate")
    p.add_argument("--chunk-size", type=int, default=10_000)
    p.add_argument("--zero-based", action="store_true", help="feature indices start at 0 (default: 1, as LIBSVM)")
    p.set_defaults(func=_onepass)
    p = sub.add_parser("sparse", allow_abbrev=False,
                       help="greedy sparse kernel AUC on a data set, printing the basis-size path")
    p.add_argument("data", help="'breast_cancer' (scikit-learn) or a LIBSVM file")
    p.add_argument("--test", help="LIBSVM test file (default: a stratified 25%% split of the data)")
    p.add_argument("--positive", type=float, default=1.0, help="label of the positive class in LIBSVM files")
    p.add_argument("--C", type=float, default=1.0)
    p.add_argument("--basis-size", type=int, default=50, help="maximum basis size |J| (default 50)")
    p.add_argument("--kappa", type=int, default=100, help="random candidates scored per step")
    p.add_argument("--selection", choices=("exact", "newton1"), default="exact")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_sparse)
    p = sub.add_parser("survival", allow_abbrev=False,
                       help="pooled-percentile C-index CV vs Cox, Kaplan–Meier risk groups")
    p.add_argument("--data", default="whas500",
                   help="whas500 | gbsg2 | veterans | flchain (scikit-survival) or FILE.csv")
    p.add_argument("--time", help="time column of a CSV file")
    p.add_argument("--event", help="event column of a CSV file (bool or 0/1)")
    p.add_argument("--model", nargs="+", choices=SURVIVAL_MODELS, default=["lpr"],
                   help="lpr (LP Ranker), aucsvm (hinge survival SVM), newton (linear RankSVM), "
                        "newton-kernel (RankRC over the events)")
    p.add_argument("--method", default="auto", choices=("auto", "full", "chunking", "subgradient"),
                   help="LP Ranker path (auto: full LP up to 20k pairs, else subgradient)")
    p.add_argument("--lprex", action="store_true", help="add censored–censored pairs (LPRex, weight 0.5)")
    p.add_argument("--C", type=float, default=1.0, help="LP Ranker C (Ataman 2007, Table 5.1: 1)")
    p.add_argument("--gamma", type=float, default=0.05, help="RBF gamma (Ataman 2007, Table 5.1: 0.05)")
    p.add_argument("--svm-C", type=float, default=1e-3,
                   help="C of the AUC-SVM (its loss sums over all pairs: far smaller than the LP Ranker's)")
    p.add_argument("--alpha", type=float, default=1e-3,
                   help="penalty multiplier alpha of the Newton rankers (default 1e-3)")
    p.add_argument("--cox-alpha", type=float, default=0.01,
                   help="ridge penalty alpha of the Cox baseline (default 0.01)")
    p.add_argument("--splits", type=int, default=10)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--top", type=float, default=10, help="high-risk group size in percent")
    p.add_argument("--km-png", default="aucopt_km.png", help="where to write the Kaplan–Meier figure ('' to skip)")
    p.set_defaults(func=_survival)
    sub.add_parser("solvers", allow_abbrev=False, help="list usable solver names").set_defaults(func=_list_solvers)
    p = sub.add_parser("formulations", allow_abbrev=False, help="list registered formulations")
    p.set_defaults(func=_list_formulations)
    return parser


def main(argv=None) -> int:
    """Run the ``aucopt`` command line.

    Parameters
    ----------
    argv : list of str, default=None
        The arguments after the program name; ``None`` reads ``sys.argv[1:]``.

    Returns
    -------
    status : int
        0 on success. Invalid input (an unknown solver, a parameter out of range, a missing file)
        does not return: it exits with status 2 after printing one line
        ``aucopt: error: ...`` to standard error.

    See Also
    --------
    build_parser : The parser and the options of every sub-command.

    Examples
    --------
    >>> from aucopt.cli import main
    >>> main(["formulations"])  # doctest: +ELLIPSIS
    aucsvm_l1_dual ...
    lp_ranker ...
    0
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ValueError as exc:  # bad input: a one-line message, not a traceback
        parser.exit(2, f"aucopt: error: {exc}\n")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
