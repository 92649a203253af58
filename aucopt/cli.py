"""The ``aucopt`` command line.

* ``aucopt demo`` — the LP Ranker (Ataman 2007, eq. 3.3) on scikit-learn's breast-cancer data with
  each solver;
* ``aucopt survival`` — the survival evaluation protocol of Ataman (2007), Sec. 5.3.5;
* ``aucopt onepass`` — one-pass AUC (Gao et al. 2013) streamed over a LIBSVM file;
* ``aucopt sparse`` — sparse greedy kernel AUC (Kakkar et al. 2017) and its basis-size path;
* ``aucopt solvers`` / ``aucopt formulations`` — the usable solver names / registered formulations.

Options use the estimators' parameter names (``--C``, ``--alpha``, ``--gamma``, ``--eta0``,
``--basis-size``). Bad input exits with status 2 and a one-line ``aucopt: error: ...`` (see
:func:`main`); ``aucopt --version`` prints the version.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np

from . import __version__

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


_MAGIC = {".gz": (b"\x1f\x8b", "gzip"), ".bz2": (b"BZh", "bzip2")}


def _check_input_file(path: str) -> None:
    """Refuse a missing path, a directory, or a ``.gz`` / ``.bz2`` file that is not compressed so."""
    import os

    if not os.path.exists(path):
        raise ValueError(f"file not found: {path}")
    if not os.path.isfile(path):
        raise ValueError(f"{path} is a directory, not a file: give the path of a LIBSVM file.")
    for suffix, (magic, kind) in _MAGIC.items():
        if path.endswith(suffix):
            with open(path, "rb") as fh:
                if fh.read(len(magic)) != magic:
                    raise ValueError(f"{path} ends in {suffix} but is not a {kind} file: decompress it "
                                     f"correctly or rename it without {suffix}.")


def _onepass(args) -> int:
    """``aucopt onepass``: stream a LIBSVM file through OnePassAUC in chunks (never loaded whole)."""
    from .metrics import roc_auc
    from .online._onepass import OnePassAUC, iter_svmlight_chunks

    for path in [args.train] + ([args.test] if args.test else []):
        _check_input_file(path)
    model = OnePassAUC(alpha=args.alpha, rank=args.rank)
    if args.eta0 is not None:  # otherwise the estimator's default
        model.set_params(eta0=args.eta0)
    if args.average is not None:  # otherwise the estimator's default
        model.set_params(average=args.average)
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
    from sklearn.datasets import load_svmlight_file

    _check_input_file(path)
    X, y = load_svmlight_file(path, n_features=n_features)
    return X.toarray(), (y == positive).astype(int)


#: default ``--basis-size`` of ``aucopt sparse`` (clamped to half the fitting rows on small data)
SPARSE_BASIS_SIZE = 50


def _sparse_fitting_rows(y, validation_fraction: float) -> int:
    """The rows SparseAUC fits on: the training rows minus its stratified validation split."""
    if validation_fraction == 0:
        return len(y)
    counts = np.bincount(np.asarray(y, int))
    held = sum(min(max(round(validation_fraction * c), 1), c - 1) for c in counts if c > 0)
    return len(y) - held


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
    model = SparseAUC(C=args.C, kappa=args.kappa, selection=args.selection, random_state=args.seed)
    basis_size = args.basis_size
    if basis_size is None:  # default: 50, clamped to the estimator's own default min(l/2, 512)
        basis_size = min(SPARSE_BASIS_SIZE, max(1, _sparse_fitting_rows(y_tr, model.validation_fraction) // 2))
    model.set_params(basis_size=basis_size)
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

#: ``--method auto``: the LP Ranker's full LP (one row per pair) up to this many comparable
#: pairs, the projected subgradient (which never lists the pairs) above
LPR_FULL_MAX_PAIRS = 20_000
#: ``--method auto``: the AUC-SVM's pairwise dual QP (one variable per pair) up to this many
#: comparable pairs, the linear Newton ranking SVM above (one QP fit on whas500, 75k pairs,
#: takes about 9 s; on flchain, 10M pairs, the QP route ran over 200 s without output, while
#: the Newton ranker fits all of flchain in under a second)
AUCSVM_QP_MAX_PAIRS = 200_000


def _survival_route(name: str, args, n_pairs: int) -> tuple[str, str]:
    """The path ``--model name`` takes on ``n_pairs`` comparable pairs, and one line saying
    which and why ("" when there is nothing to say: a model without routes, or a small problem
    on an explicitly chosen path)."""
    method, fits = args.method, f"{args.splits * args.repeats} fits ({args.splits}-fold CV × {args.repeats})"
    if name == "lpr":
        if method != "auto":
            note = ""
            if method == "full" and n_pairs > LPR_FULL_MAX_PAIRS:
                note = (f"lpr --method full: an LP with one row per comparable pair ({n_pairs:,} rows), {fits}; "
                        f"this can take long (--method auto uses the subgradient above {LPR_FULL_MAX_PAIRS:,} pairs)")
            return method, note
        if n_pairs <= LPR_FULL_MAX_PAIRS:
            return "full", f"lpr: the full LP ({n_pairs:,} comparable pairs <= {LPR_FULL_MAX_PAIRS:,})"
        return "subgradient", (f"lpr: the projected subgradient, which never lists the pairs ({n_pairs:,} "
                               f"comparable pairs > {LPR_FULL_MAX_PAIRS:,}; --method full forces the LP)")
    if name == "aucsvm":
        if method == "full":
            note = ""
            if n_pairs > AUCSVM_QP_MAX_PAIRS:
                note = (f"aucsvm --method full: the pairwise dual QP with one variable per comparable pair "
                        f"({n_pairs:,} variables), {fits}; this can take very long (--method auto uses the "
                        f"linear Newton ranking SVM above {AUCSVM_QP_MAX_PAIRS:,} pairs)")
            return "full", note
        lp_only = f" (--method {method} is an LP Ranker route)" if method != "auto" else ""
        if n_pairs <= AUCSVM_QP_MAX_PAIRS:
            return "full", (f"aucsvm: the pairwise dual QP ({n_pairs:,} comparable pairs <= "
                            f"{AUCSVM_QP_MAX_PAIRS:,}){lp_only}")
        return "newton", (f"aucsvm: {n_pairs:,} comparable pairs > {AUCSVM_QP_MAX_PAIRS:,} are too many for the "
                          "AUC-SVM's pairwise QP (one variable per pair); using the linear ranking SVM by "
                          f"truncated Newton instead (squared hinge, alpha={args.alpha:g}, never lists the pairs; "
                          f"--method full forces the QP){lp_only}")
    return "", ""


def _survival_model(name: str, args, n_pairs: int):
    """The estimator behind ``--model`` (min-max scaling fitted inside each training fold), on the
    path of :func:`_survival_route`."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler

    from . import SurvivalAUCSVM
    from . import SurvivalLPRanker
    from . import SurvivalRankRC
    from . import SurvivalRankSVM

    pair_options = {"variant": "lprex"} if args.lprex else None
    route, _ = _survival_route(name, args, n_pairs)
    if name == "lpr":
        model = SurvivalLPRanker(C=args.C, gamma=args.gamma, method=route, pair_options=pair_options,
                                 support_threshold=1e-3 if route == "subgradient" else 1e-8)
    elif name == "aucsvm" and route == "full":
        model = SurvivalAUCSVM(C=args.svm_C, gamma=args.gamma, pair_options=pair_options)
    elif name in ("newton", "aucsvm"):
        model = SurvivalRankSVM(alpha=args.alpha, pair_options=pair_options)
    else:
        model = SurvivalRankRC(alpha=args.alpha, gamma=args.gamma, pair_options=pair_options)
    max_bytes = getattr(args, "max_bytes", None)
    if max_bytes is not None and "max_bytes" in model.get_params():
        model.set_params(max_bytes=max_bytes)
    return make_pipeline(MinMaxScaler(), model)


def _check_output_path(path: str, option: str) -> None:
    """Refuse an output file whose directory does not exist (or that names a directory)."""
    import os

    if not path:
        return
    if os.path.isdir(path):
        raise ValueError(f"{option} {path} is a directory: give a file name such as {os.path.join(path, 'km.png')}.")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"{option} {path}: the directory {folder} does not exist; create it or choose "
                         "another path ('' skips the figure).")


def _survival(args) -> int:
    """``aucopt survival``: the protocol of Ataman (2007), Sec. 5.3.5 — pooled-percentile C-index
    by repeated k-fold CV for each model and Cox regression, paired t-tests, Kaplan–Meier risk groups."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler

    from .datasets import load_survival
    from .pairs import PairSet
    from .survival import CoxPH, comparison_table, evaluate_methods, plot_risk_groups, save_figure

    _check_output_path(args.km_png, "--km-png")  # before the cross-validation, not after it
    if not 0 < args.top < 100:
        raise ValueError(f"--top must be a percentage in (0, 100); got {args.top:g}.")
    if args.max_bytes is not None and not args.max_bytes > 0:
        raise ValueError(f"--max-bytes must be positive; got {args.max_bytes:g}.")
    X, y = load_survival(args.data, time=args.time, event=args.event)
    pairs = PairSet.survival(y)
    n_pairs = pairs.n_pairs
    # a model that left its own family is labelled with the one it uses (aucsvm:newton)
    methods = {(f"{m}:newton" if (m, _survival_route(m, args, n_pairs)[0]) == ("aucsvm", "newton") else m):
               _survival_model(m, args, n_pairs) for m in args.model}
    for model in methods.values():  # refuse a route over the memory budget up front
        estimator = model[-1]
        if hasattr(estimator, "check_size"):
            estimator.check_size(pairs)
    print(f"{args.data}: {len(y)} subjects, {int(y['event'].sum())} events, {X.shape[1]} covariates, "
          f"{n_pairs:,} comparable pairs; {args.splits}-fold CV × {args.repeats}")
    for name in args.model:  # which path each model takes, and why, before the long part
        note = _survival_route(name, args, n_pairs)[1]
        if note:
            print(note, flush=True)
    try:
        import lifelines  # noqa: F401

        methods["cox"] = make_pipeline(MinMaxScaler(), CoxPH(alpha=args.cox_alpha))
    except ImportError:
        print("lifelines is not installed: the Cox baseline is skipped (pip install 'aucopt[survival]').")
    results = evaluate_methods(methods, X, y, n_splits=args.splits, n_repeats=args.repeats,
                               random_state=args.seed, verbose=int(sys.stderr.isatty()))  # a bar on a terminal
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


def _float_or_auto(text: str):
    """``'auto'`` or a number, for ``--eta0``."""
    if text == "auto":
        return text
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'auto'; got {text!r}") from None


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``aucopt: error: <message> (see 'aucopt <command> --help')``."""

    def error(self, message):
        self.exit(2, f"aucopt: error: {message} (see '{self.prog} --help')\n")


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
    parser = _Parser(prog="aucopt", allow_abbrev=False,
                                     description="AUC maximization, bipartite ranking and survival risk ranking.",
                                     epilog="Run `aucopt <command> --help` for the options of a command.")
    parser.add_argument("--version", action="version", version=f"aucopt {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback of an error instead of the one-line message")
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
    p.add_argument("--eta0", type=_float_or_auto, default=None,
                   help="step size, a number (≲ 1/(4 max‖x‖²)) or 'auto' (default: OnePassAUC's)")
    p.add_argument("--rank", type=int, default=None, help="low-rank sketch size τ (O(τd) memory)")
    p.add_argument("--average", action=argparse.BooleanOptionalAction, default=None,
                   help="use (--no-average: do not use) the averaged iterate (default: OnePassAUC's)")
    p.add_argument("--chunk-size", type=int, default=10_000)
    p.add_argument("--zero-based", action="store_true", help="feature indices start at 0 (default: 1, as LIBSVM)")
    p.set_defaults(func=_onepass)
    p = sub.add_parser("sparse", allow_abbrev=False,
                       help="greedy sparse kernel AUC on a data set, printing the basis-size path")
    p.add_argument("data", help="'breast_cancer' (scikit-learn) or a LIBSVM file")
    p.add_argument("--test", help="LIBSVM test file (default: a stratified 25%% split of the data)")
    p.add_argument("--positive", type=float, default=1.0, help="label of the positive class in LIBSVM files")
    p.add_argument("--C", type=float, default=1.0)
    p.add_argument("--basis-size", type=int, default=None,
                   help=f"maximum basis size |J| (default {SPARSE_BASIS_SIZE}, or half the fitting rows "
                        "when the data are smaller)")
    p.add_argument("--kappa", type=int, default=100, help="random candidates scored per step")
    p.add_argument("--selection", choices=("exact", "newton1"), default="exact",
                   help="how each candidate is scored: exact line search or one Newton step (default exact)")
    p.add_argument("--seed", type=int, default=0, help="seed of the validation split and candidates (default 0)")
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
                   help=f"path of lpr and aucsvm. auto: lpr solves the full LP up to {LPR_FULL_MAX_PAIRS:,} "
                        f"comparable pairs, else the subgradient; aucsvm solves its pairwise QP up to "
                        f"{AUCSVM_QP_MAX_PAIRS:,} pairs, else the linear Newton ranking SVM. full forces the exact "
                        "problem; chunking and subgradient are LP Ranker routes. The choice is printed")
    p.add_argument("--lprex", action="store_true", help="add censored–censored pairs (LPRex, weight 0.5)")
    p.add_argument("--C", type=float, default=1.0, help="LP Ranker C (Ataman 2007, Table 5.1: 1)")
    p.add_argument("--gamma", type=float, default=0.05, help="RBF gamma (Ataman 2007, Table 5.1: 0.05)")
    p.add_argument("--svm-C", type=float, default=1e-3,
                   help="C of the AUC-SVM (its loss sums over all pairs: far smaller than the LP Ranker's)")
    p.add_argument("--alpha", type=float, default=1e-3,
                   help="penalty multiplier alpha of the Newton rankers (default 1e-3)")
    p.add_argument("--cox-alpha", type=float, default=0.01,
                   help="ridge penalty alpha of the Cox baseline (default 0.01)")
    p.add_argument("--splits", type=int, default=10, help="folds k of the repeated k-fold CV (default 10)")
    p.add_argument("--repeats", type=int, default=5, help="repetitions R of the k-fold CV (default 5)")
    p.add_argument("--seed", type=int, default=0, help="seed of the fold assignment (default 0)")
    p.add_argument("--top", type=float, default=10, help="high-risk group size in percent, in (0, 100) (default 10)")
    p.add_argument("--km-png", default="aucopt_km.png", help="where to write the Kaplan–Meier figure ('' to skip)")
    p.add_argument("--max-bytes", type=float, default=None,
                   help="memory budget in bytes of each model's arrays (default: the estimators' 2 GiB); "
                        "a route over it (e.g. --method full on many pairs) is refused before the CV, "
                        "checked on all subjects (an upper bound for every training fold)")
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
      (:class:`~aucopt.exceptions.SolverError`), an optional dependency that is not installed, or
      any other ``ValueError``, ``OSError`` or ``MemoryError``.
    * **1, ``aucopt: internal error (<type>: <message>); please report it ...``** — any other
      exception (``TypeError``, ``AssertionError``, ...) is a bug in aucopt, not bad input: it is
      named as such, by its type, so that it is not mistaken for a usage error.
    * **130** — interrupted with Ctrl-C.

    ``aucopt --debug <command> ...`` re-raises every error with its full traceback instead.

    Examples
    --------
    >>> from aucopt.cli import main
    >>> main(["formulations"])  # doctest: +ELLIPSIS
    aucsvm_l1_dual ...
    lp_ranker ...
    0
    """
    from .exceptions import NoComparablePairsError, ProblemTooLargeError, SolverError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, OSError, MemoryError, ImportError,
            ProblemTooLargeError, NoComparablePairsError, SolverError) as exc:
        if args.debug:
            raise
        message = " ".join(str(exc).split()) or type(exc).__name__  # one line
        if type(exc) is MemoryError:  # a bare MemoryError carries no message
            message = ("out of memory: the problem does not fit in this machine's memory; "
                       "use a scalable --method or less data")
        parser.exit(2, f"aucopt: error: {message}\n")
    except KeyboardInterrupt:
        if args.debug:
            raise
        parser.exit(130, "aucopt: interrupted\n")
    except Exception as exc:  # a bug, not bad input: say so (--debug shows the traceback)
        if args.debug:
            raise
        message = " ".join(str(exc).split())
        parser.exit(1, f"aucopt: internal error ({type(exc).__name__}: {message}); please report it with the "
                       "output of the same command run as `aucopt --debug ...`\n")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
