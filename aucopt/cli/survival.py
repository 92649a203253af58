"""``aucopt survival``: the survival evaluation protocol of Ataman (2007), Sec. 5.3.5 — the
pooled-percentile C-index by repeated k-fold CV for each model and Cox regression, paired t-tests,
Kaplan–Meier risk groups."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ._common import bar_verbose, require
from ._inputs import check_data_dir_option, load_survival_data
from ._output import MISSING, Column, Report, check_output_path, open_report

if TYPE_CHECKING:
    from sklearn.pipeline import Pipeline

    from ..pairs import PairSet


NAME = "survival"
HELP = "pooled-percentile C-index by repeated CV vs Cox regression; Kaplan-Meier risk groups"
DATA_DIR = True

#: ``aucopt survival --model``: the models the protocol compares with the Cox baseline
SURVIVAL_MODELS = ("lpr", "aucsvm", "newton", "newton-kernel")

#: ``aucopt survival --metric``: the metrics of the test folds besides the pooled Harrell's C
SURVIVAL_METRICS = ("uno", "auc", "ibs")

#: ``--method auto``: the AUC-SVM's pairwise dual (one variable per pair) by dual coordinate descent
#: up to this many comparable pairs, the linear Newton ranking SVM above (at the default --svm-C one
#: fit on whas500, 75k pairs, takes 0.12 s, and 6.9 s as a QP on OSQP; gbsg2 0.13 s against 27 s; on
#: flchain, 10M pairs, the QP route ran over 200 s without output, while the Newton ranker fits all of
#: flchain in under a second)
AUCSVM_QP_MAX_PAIRS = 200_000


# ============================================================================ options
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``aucopt survival``."""
    _add_data_arguments(parser)
    _add_model_arguments(parser)
    _add_protocol_arguments(parser)


def _add_data_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", default="whas500",
                   help="whas500 | gbsg2 | veterans | flchain (scikit-survival), support | metabric | gbsg | whas "
                        "(DeepSurv files in the data folder, see --data-dir) or FILE.csv (default whas500)")
    p.add_argument("--time", help="time column of a CSV file (required with FILE.csv; no default)")
    p.add_argument("--event", help="event column of a CSV file, bool or 0/1 (required with FILE.csv; no default)")


def _add_model_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", nargs="+", choices=SURVIVAL_MODELS, default=["lpr"],
                   help="one or more of: lpr (LP Ranker), aucsvm (hinge survival SVM), newton (linear RankSVM), "
                        "newton-kernel (RankRC over the events) (default: lpr)")
    p.add_argument("--method", default="auto",
                   choices=("auto", "full", "generation", "smoothing", "chunking", "subgradient"),
                   help="path of lpr and aucsvm (default auto). auto: lpr takes the LP Ranker's own choice by "
                        "predicted time (the full LP when it is predicted to take a few seconds, else smoothing to "
                        "a certified 0.1%% optimality gap); aucsvm solves its pairwise dual by dual coordinate "
                        f"descent up to {AUCSVM_QP_MAX_PAIRS:,} pairs, else the linear Newton ranking SVM. full "
                        "forces the exact problem (for aucsvm, its QP on OSQP); generation (the exact LP optimum by "
                        "row-and-column generation), smoothing, chunking and subgradient are LP Ranker routes. The "
                        "choice is printed")
    p.add_argument("--lprex", action="store_true",
                   help="add censored–censored pairs (LPRex, weight 0.5) (default: off)")
    p.add_argument("--C", type=float, default=1.0, help="C of the LP Ranker (default 1, Ataman 2007, Table 5.1)")
    p.add_argument("--gamma", type=float, default=0.05,
                   help="RBF gamma of the kernel models (default 0.05, Ataman 2007, Table 5.1)")
    p.add_argument("--svm-C", type=float, default=1e-3,
                   help="C of the AUC-SVM (default 1e-3: its loss sums over all pairs, so it is far smaller than "
                        "the LP Ranker's)")
    p.add_argument("--alpha", type=float, default=1e-3,
                   help="penalty multiplier alpha of the Newton rankers (default 1e-3)")
    p.add_argument("--cox-alpha", type=float, default=0.01,
                   help="ridge penalty alpha of the Cox baseline (default 0.01)")
    p.add_argument("--no-cox", action="store_true",
                   help="leave out the Cox baseline (and its p-values), e.g. without lifelines (default: Cox "
                        "is fitted first, the p-values test every model against it)")


def _add_protocol_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--splits", type=int, default=10, help="folds k of the repeated k-fold CV, >= 2 (default 10)")
    p.add_argument("--repeats", type=int, default=5,
                   help="repetitions R of the k-fold CV (default 5; the p-values need R >= 2)")
    p.add_argument("--seed", type=int, default=0, help="seed of the fold assignment (default 0)")
    p.add_argument("--metric", nargs="+", choices=("harrell", *SURVIVAL_METRICS), default=["harrell"],
                   help="metrics of the table: harrell (the pooled-percentile Harrell's C, Ataman 2007, always "
                        "shown), uno (Uno's IPCW C), auc (mean cumulative/dynamic AUC(t)), ibs (integrated Brier "
                        "score of the survival curves, lower is better); each extra metric is the mean over the "
                        "test folds of a repetition, with the censoring distribution estimated from the training "
                        "fold and AUC/IBS at the 10th-90th percentiles of the test fold's event times "
                        "(default: harrell)")
    p.add_argument("--tau", type=float, default=None,
                   help="truncation time of --metric uno (default: each training fold's largest time)")
    p.add_argument("--n-jobs", type=int, default=None,
                   help="folds fitted in parallel (joblib): -1 all cores (default 1); the results do not change")
    p.add_argument("--top", type=float, default=10,
                   help="high-risk group of the Kaplan-Meier figure, in percent, in (0, 100) (default 10)")
    p.add_argument("--km-png", metavar="FILE", default=None,
                   help="write the Kaplan-Meier figure of the top --top percent vs the rest (repetition 1) to "
                        "FILE (default: no figure)")
    p.add_argument("--max-bytes", type=float, default=None,
                   help="memory budget in bytes of each model's arrays (default: the estimators' 2 GiB); a route "
                        "over it (e.g. --method full on many pairs) is refused before the CV, checked on all "
                        "subjects (an upper bound for every training fold)")


# ============================================================================ models and their routes
def _lpr_route(args: argparse.Namespace, pairs: PairSet, fits: str) -> tuple[str, str]:
    """The LP Ranker's own choice (:meth:`aucopt.SurvivalLPRanker.select_method`), announced when
    chosen automatically or predicted slow."""
    from .. import SurvivalLPRanker, _runtime

    ranker = SurvivalLPRanker(C=args.C, gamma=args.gamma, method=args.method)
    route, reason = ranker.select_method(pairs)
    seconds = ranker.predicted_seconds(route, pairs)
    n_fits = args.splits * args.repeats
    slow = seconds > _runtime.SLOW_FIT_SECONDS
    if args.method != "auto" and not slow:
        return route, ""
    note = f"lpr: {reason}"
    if slow:
        note += (f" {fits}: about {_runtime.describe(n_fits * seconds)} in all (each fit predicted "
                 f"{_runtime.describe(seconds)}); --method auto chooses by predicted time")
    return route, note


def _aucsvm_route(args: argparse.Namespace, n_pairs: int, fits: str) -> tuple[str, str]:
    """The AUC-SVM's pairwise dual by dual coordinate descent on few pairs (its QP when forced), else
    the linear Newton ranker."""
    method = args.method
    if method == "full":
        note = ""
        if n_pairs > AUCSVM_QP_MAX_PAIRS:
            note = (f"aucsvm --method full: the pairwise dual QP with one variable per comparable pair "
                    f"({n_pairs:,} variables), {fits}; this can take very long (--method auto uses the "
                    f"linear Newton ranking SVM above {AUCSVM_QP_MAX_PAIRS:,} pairs)")
        return "full", note
    lp_only = f" (--method {method} is an LP Ranker route)" if method != "auto" else ""
    if n_pairs <= AUCSVM_QP_MAX_PAIRS:
        return "dcd", (f"aucsvm: the pairwise dual by dual coordinate descent ({n_pairs:,} comparable pairs <= "
                       f"{AUCSVM_QP_MAX_PAIRS:,}; --method full solves it as a QP){lp_only}")
    return "newton", (f"aucsvm: {n_pairs:,} comparable pairs > {AUCSVM_QP_MAX_PAIRS:,} are too many for the "
                      "AUC-SVM's pairwise QP (one variable per pair); using the linear ranking SVM by "
                      f"truncated Newton instead (squared hinge, alpha={args.alpha:g}, never lists the pairs; "
                      f"--method full forces the QP){lp_only}")


def model_route(name: str, args: argparse.Namespace, pairs: PairSet) -> tuple[str, str]:
    """The path ``--model name`` takes on the comparable pairs ``pairs``, and one line saying
    which and why ("" when there is nothing to say: a model without routes, or a small problem
    on an explicitly chosen path). lpr takes the estimator's own choice
    (:meth:`aucopt.SurvivalLPRanker.select_method`, by predicted time)."""
    fits = f"{args.splits * args.repeats} fits ({args.splits}-fold CV × {args.repeats})"
    if name == "lpr":
        return _lpr_route(args, pairs, fits)
    if name == "aucsvm":
        return _aucsvm_route(args, pairs.n_pairs, fits)
    return "", ""


def build_model(name: str, args: argparse.Namespace, pairs: PairSet) -> Pipeline:
    """The estimator behind ``--model name`` (min-max scaling fitted inside each training fold), on
    the path of :func:`model_route`."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler

    from .. import SurvivalAUCSVM, SurvivalLPRanker, SurvivalRankRC, SurvivalRankSVM

    pair_options = {"variant": "lprex"} if args.lprex else None
    route, _ = model_route(name, args, pairs)
    model: Any
    if name == "lpr":  # method="auto" lets each training fold choose its own route
        model = SurvivalLPRanker(C=args.C, gamma=args.gamma, method=args.method, pair_options=pair_options,
                                 support_threshold=1e-3 if route == "subgradient" else 1e-8)
    elif name == "aucsvm" and route in ("full", "dcd"):
        model = SurvivalAUCSVM(C=args.svm_C, gamma=args.gamma, method="full" if route == "full" else "dcd",
                               pair_options=pair_options)
    elif name in ("newton", "aucsvm"):
        model = SurvivalRankSVM(alpha=args.alpha, pair_options=pair_options)
    else:
        model = SurvivalRankRC(alpha=args.alpha, gamma=args.gamma, pair_options=pair_options)
    max_bytes = getattr(args, "max_bytes", None)
    if max_bytes is not None and "max_bytes" in model.get_params():
        model.set_params(max_bytes=max_bytes)
    if getattr(args, "verbose", 0):
        model.set_params(verbose=args.verbose)
    return make_pipeline(MinMaxScaler(), model)


# ============================================================================ the command
def _check(args: argparse.Namespace) -> None:
    """Everything that can fail fast, checked before the data are loaded and the CV starts."""
    check_output_path(args.km_png, "--km-png")
    if not 0 < args.top < 100:
        raise ValueError(f"--top must be a percentage in (0, 100); got {args.top:g}.")
    if args.max_bytes is not None and not args.max_bytes > 0:
        raise ValueError(f"--max-bytes must be positive; got {args.max_bytes:g}.")
    if args.splits < 2 or args.repeats < 1:
        raise ValueError(f"--splits must be at least 2 and --repeats at least 1; got {args.splits} and {args.repeats}.")
    if args.tau is not None and not 0 < args.tau < float("inf"):
        raise ValueError(f"--tau must be a positive time; got {args.tau:g}.")
    check_data_dir_option(args)
    if not args.no_cox:
        require("lifelines", "lifelines", "the Cox baseline")
    if args.km_png:
        require("matplotlib", "matplotlib", "--km-png")


def _methods(args: argparse.Namespace, pairs: PairSet) -> dict[str, Pipeline]:
    """The pipelines to cross-validate by label, the Cox baseline first; each checked against the
    memory budget up front."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler

    from .. import survival

    methods = {}
    if not args.no_cox:  # the baseline first: every later row gets its p-value as soon as it is printed
        methods["cox"] = make_pipeline(MinMaxScaler(), survival.CoxPH(alpha=args.cox_alpha, verbose=args.verbose))
    # a model that left its own family is labelled with the one it uses (aucsvm:newton)
    for m in args.model:
        label = f"{m}:newton" if (m, model_route(m, args, pairs)[0]) == ("aucsvm", "newton") else m
        methods[label] = build_model(m, args, pairs)
    for model in methods.values():  # refuse a route over the memory budget up front
        estimator = model[-1]
        if hasattr(estimator, "check_size"):
            estimator.check_size(pairs)
    return methods


def _columns(metrics: list[str]) -> list[Column]:
    """The table's columns: the pooled C, its sd, the mean fold C and p-value, those of each metric, seconds."""
    from ..survival import METRIC_LABELS

    columns = [Column("method", "method"), Column("pooled_c_mean", "pooled C", spec=".4f"),
               Column("pooled_c_sd", "sd", spec=".4f"), Column("fold_c", "fold C", spec=".4f"),
               Column("p_vs_cox", "p vs cox", spec=".4g")]
    for m in metrics:
        columns += [Column(f"{m}_mean", METRIC_LABELS[m], spec=".4f"), Column(f"{m}_sd", "sd", spec=".4f"),
                    Column(f"{m}_p_vs_cox", "p vs cox", spec=".4g")]
    columns.append(Column("seconds", "seconds", spec=".1f"))
    return columns


def _introduce(out: Report, args: argparse.Namespace, X: Any, y: Any, pairs: PairSet, metrics: list[str]) -> None:
    """The notes above the table (the data, each model's path, the metrics) and the summary."""
    from ..survival import METRIC_DESCRIPTIONS, METRIC_LABELS

    out.note(f"{args.data}: {len(y)} subjects, {int(y['event'].sum())} events, {X.shape[1]} covariates, "
             f"{pairs.n_pairs:,} comparable pairs; {args.splits}-fold CV × {args.repeats}")
    out.summary.update(data=args.data, subjects=len(y), events=int(y["event"].sum()), covariates=X.shape[1],
                       comparable_pairs=pairs.n_pairs, splits=args.splits, repeats=args.repeats)
    for name in args.model:  # which path each model takes, and why, before the long part
        note = model_route(name, args, pairs)[1]
        if note:
            out.note(note)
    if args.repeats < 2 and not args.no_cox:
        out.note(f"with --repeats 1 the sd is 0 and p vs cox is {MISSING}: both need at least 2 repetitions")
    for m in metrics:
        out.note(f"{METRIC_LABELS[m]}: {METRIC_DESCRIPTIONS[m]}; mean of the test folds per "
                 "repetition" + ("; times: the 10th-90th percentiles of each test fold's event times"
                                 if m in ("auc", "ibs") else ""))


def run(args: argparse.Namespace) -> int:
    """``aucopt survival``: the protocol of Ataman (2007), Sec. 5.3.5 — pooled-percentile C-index
    by repeated k-fold CV for each model and Cox regression, paired t-tests, Kaplan–Meier risk groups."""
    from .. import survival
    from ..pairs import PairSet

    _check(args)
    X, y = load_survival_data(args)
    pairs = PairSet.survival(y)
    methods = _methods(args, pairs)
    baseline = None if args.no_cox else "cox"
    metrics = [m for m in dict.fromkeys(args.metric) if m != "harrell"]  # the pooled C is always there

    def text_row(row: dict[str, Any]) -> str:
        return survival.comparison_line({**row, "p_value": row["p_vs_cox"],
                                         **{f"{m}_p_value": row[f"{m}_p_vs_cox"] for m in metrics}}, metrics)

    header = str(survival.comparison_table({}, baseline, metrics=metrics))  # without results: the header line
    with open_report(args, _columns(metrics), text_header=header, text_row=text_row) as out:
        _introduce(out, args, X, y, pairs, metrics)
        out.start()
        done: dict[str, Any] = {}

        def report(name: str, result: Any) -> None:
            done[name] = result
            base = None if baseline is None else done.get(baseline)
            record = survival.comparison_record(name, result, base, metrics)
            out.row(**record, p_vs_cox=record["p_value"],
                    **{f"{m}_p_vs_cox": record[f"{m}_p_value"] for m in metrics})

        results = survival.evaluate_methods(methods, X, y, n_splits=args.splits, n_repeats=args.repeats,
                                            random_state=args.seed, verbose=bar_verbose(args), callback=report,
                                            n_jobs=args.n_jobs, scoring=metrics or None, tau=args.tau)
        if args.km_png:
            fig = survival.plot_risk_groups(y["time"], y["event"],
                                            {k: r.percentiles[0] for k, r in results.items()}, top=args.top,
                                            title=f"{args.data}: top {args.top:g}% vs rest (pooled CV, repetition 1)")
            out.note(f"Kaplan–Meier figure: {survival.save_figure(fig, args.km_png)}")
            out.summary["km_png"] = args.km_png
    return 0
