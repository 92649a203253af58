"""aucopt's survival rankers against the survival models practitioners use, on seven public data sets.

One protocol for every model and data set: repeated stratified k-fold cross-validation (default
5 folds × 2 repetitions, the same folds for every model, ``aucopt.survival.pooled_cindex_cv``),
with all preprocessing fitted inside each training fold (median / most-frequent imputation,
one-hot encoding with the first level dropped, standardization, constant columns dropped). Per
test fold it measures

* Harrell's C of the raw test risks;
* Uno's C, the censoring distribution Ĝ estimated from the training fold, truncated at the
  training fold's largest time (``scoring="uno"``);
* the integrated Brier score (IBS) of the predicted survival curves at the 10th, 12.5th, ...,
  90th percentiles of the test fold's event times that are earlier than both the test fold's
  and the training fold's largest time, Ĝ from the training fold (``scoring="ibs"``);
* the seconds of each fold's fit;

and reports mean ± sd over the test folds. Models (no hyperparameter is tuned, for any model):

* aucopt, each with Harrell's comparable pairs and with Uno's IPCW pair weights
  (``pair_options={"weights": "ipcw"}``), after min-max scaling and with the settings of
  ``aucopt survival``: ``SurvivalRankSVM(alpha=1e-3)``, ``SurvivalRankRC(alpha=1e-3,
  gamma=0.05)``, ``SurvivalLPRanker(C=1, gamma=0.05)`` (Ataman 2007, Table 5.1),
  ``SurvivalAUCSVM(C=1e-3, gamma=0.05)`` and ``SurvivalSparseAUC()`` (its defaults); their
  survival curves are the Cox calibration of the risk score (Breslow);
* aucopt's ``CoxPH(alpha=0.01)`` (lifelines);
* scikit-survival's ``CoxnetSurvivalAnalysis`` (defaults: l1_ratio 0.5, prediction at the end of
  the path, ``fit_baseline_model=True``), ``RandomSurvivalForest`` and
  ``GradientBoostingSurvivalAnalysis`` (defaults, 100 trees, ``random_state=0``) and
  ``FastSurvivalSVM`` (defaults, ``rank_ratio=1``: no survival curves, so no IBS; it refuses times
  ≤ 0, which FLCHAIN and METABRIC have, so those are given half the smallest positive time:
  the order of the times, all that its ranking objective uses, is unchanged).

The nonlinear models (aucopt's kernel rankers, the forest and the boosting) fit a random subsample
(stratified by event) of at most ``--max-train`` subjects (default 1,000) of each training fold;
the linear models (SurvivalRankSVM, CoxPH, Coxnet, FastSurvivalSVM) fit all of it. Every model is
tested on the whole test fold. This bounds the run to about 15 minutes on one core; ``--max-train
0`` fits everything on everything (hours: the boosting's Cox loss is quadratic in n).

Data: WHAS500, GBSG2, veterans and FLCHAIN from scikit-survival (FLCHAIN without its ``chapter``
column, the cause of death; its missing creatinine imputed inside the folds), and METABRIC, SUPPORT
and Rotterdam & GBSG (the DeepSurv files that pycox also uses, training and test parts stacked)
from ``survival/`` in the shared data folder (``../shared/data`` beside the repository,
``--data-dir`` or ``$AUCOPT_DATA``). A data set whose files or packages are missing is skipped
with a note saying what is missing.

    OPENBLAS_NUM_THREADS=1 nice -n 19 python benchmarks/survival_models.py --markdown survival_models.md

``--quick`` is a smoke run (300 subjects per data set, 3 folds × 1, a few minutes); ``--json FILE``
keeps every fold's numbers and ``--from-json FILE`` prints the tables again from them. Convergence
warnings are counted per model and listed under its data set's table.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, clone
from sklearn.compose import ColumnTransformer
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import VarianceThreshold
from sklearn.impute import SimpleImputer
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, OneHotEncoder, StandardScaler
from sklearn.utils.metaestimators import available_if

from aucopt import SurvivalAUCSVM, SurvivalLPRanker, SurvivalRankRC, SurvivalRankSVM, SurvivalSparseAUC, survival_target
from aucopt.survival import pooled_cindex_cv

#: name -> (label, source); the order of the tables
DATASETS = {
    "veterans": ("Veterans' lung cancer", "scikit-survival"),
    "whas500": ("WHAS500", "scikit-survival"),
    "gbsg2": ("GBSG2", "scikit-survival"),
    "metabric": ("METABRIC", "DeepSurv / pycox file"),
    "gbsg": ("Rotterdam & GBSG", "DeepSurv / pycox file"),
    "flchain": ("FLCHAIN", "scikit-survival"),
    "support": ("SUPPORT", "DeepSurv / pycox file"),
}
SKSURV_LOADERS = {"veterans": "load_veterans_lung_cancer", "whas500": "load_whas500", "gbsg2": "load_gbsg2",
                  "flchain": "load_flchain"}
DEEPSURV = {"metabric": "metabric_IHC4_clinical_train_test.h5", "gbsg": "gbsg_cancer_train_test.h5",
            "support": "support_train_test.h5"}
METRICS = (("harrell", "Harrell's C", True), ("uno", "Uno's C", True), ("ibs", "IBS", False))
DEEPSURV_URL = "https://github.com/jaredleekatzman/DeepSurv"


# ============================================================================ data
def load(name, data_dir):
    """``(X, y, categorical columns, note)`` with X a DataFrame; raises ``LookupError`` saying what is missing."""
    if name in SKSURV_LOADERS:
        try:
            import sksurv.datasets as sd
        except ImportError as exc:
            raise LookupError("scikit-survival is not installed (pip install scikit-survival)") from exc
        frame, target = getattr(sd, SKSURV_LOADERS[name])()
        event_field, time_field = target.dtype.names
        event, time_ = np.asarray(target[event_field], bool), np.asarray(target[time_field], float)
        frame = frame.copy()
        note = ""
        if name == "flchain":
            frame = frame.drop(columns=["chapter"])  # the cause of death: known only for those who died
            note = "`chapter` (the cause of death) dropped; creatinine missing for 1,350, imputed in the folds"
        categorical = [c for c in frame.columns if str(frame[c].dtype) in ("category", "object")]
        return frame, survival_target(event, time_), categorical, note
    from aucopt.datasets import get_data_dir

    relative = f"survival/{DEEPSURV[name]}"
    try:
        folder = get_data_dir(data_dir, required=relative)
    except FileNotFoundError as exc:
        raise LookupError(f"{relative} is not in the data folder ({str(exc).split(':')[0]}); the file is in "
                          f"{DEEPSURV_URL}/tree/master/experiments/data") from exc
    try:
        import h5py
    except ImportError as exc:
        raise LookupError("h5py is not installed (pip install h5py)") from exc
    with h5py.File(os.path.join(folder, relative), "r") as fh:
        X = np.vstack([fh[p]["x"][:] for p in ("train", "test")]).astype(float)
        time_ = np.concatenate([fh[p]["t"][:] for p in ("train", "test")]).astype(float)
        event = np.concatenate([fh[p]["e"][:] for p in ("train", "test")]).astype(bool)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    return frame, survival_target(event, time_), [], "training and test parts of the file stacked"


def preprocessing(frame, categorical):
    """Imputation, one-hot encoding and standardization, fitted inside each training fold."""
    numeric = [c for c in frame.columns if c not in categorical]
    steps = [("num", make_pipeline(SimpleImputer(strategy="median"), StandardScaler()), numeric)]
    if categorical:
        steps.append(("cat", make_pipeline(SimpleImputer(strategy="most_frequent"),
                                           OneHotEncoder(drop="first", handle_unknown="ignore",
                                                         sparse_output=False)), categorical))
    return make_pipeline(ColumnTransformer(steps), VarianceThreshold())


# ============================================================================ models
class Subsampled(BaseEstimator):
    """Fit ``estimator`` on a random subsample (stratified by event) of at most ``max_samples`` rows."""

    def __init__(self, estimator, max_samples=1000, random_state=0):
        self.estimator = estimator
        self.max_samples = max_samples
        self.random_state = random_state

    def fit(self, X, y):
        rows = np.arange(len(y))
        if self.max_samples and len(y) > self.max_samples:
            rows = np.sort(train_test_split(rows, train_size=self.max_samples, random_state=self.random_state,
                                            stratify=np.asarray(y[y.dtype.names[0]], bool))[0])
        self.n_fit_ = len(rows)
        self.estimator_ = clone(self.estimator).fit(X.iloc[rows] if hasattr(X, "iloc") else X[rows], y[rows])
        return self

    def predict(self, X):
        return self.estimator_.predict(X)

    @available_if(lambda self: hasattr(self.estimator, "predict_survival_function"))
    def predict_survival_function(self, X, return_array=False):
        return self.estimator_.predict_survival_function(X, return_array=return_array)


class PositiveTimes(BaseEstimator):
    """Fit ``estimator`` with times ≤ 0 raised to half the smallest positive time (their order kept)."""

    def __init__(self, estimator):
        self.estimator = estimator

    def fit(self, X, y):
        _event_field, time_field = y.dtype.names
        times = np.asarray(y[time_field], float)
        if np.any(times <= 0):
            y = y.copy()
            y[time_field] = np.where(times <= 0, times[times > 0].min() / 2, times)
        self.estimator_ = clone(self.estimator).fit(X, y)
        return self

    def predict(self, X):
        return self.estimator_.predict(X)


def models(frame, categorical, max_train):
    """name -> (estimator, family, subsampled); every model in its own preprocessing pipeline."""
    def aucopt_pipe(model):
        return make_pipeline(preprocessing(frame, categorical), MinMaxScaler(), model)

    def base_pipe(model):
        return make_pipeline(preprocessing(frame, categorical), model)

    def capped(pipe):
        return Subsampled(pipe, max_samples=max_train) if max_train else pipe

    ipcw = {"weights": "ipcw"}
    out = {}
    for suffix, pairs in (("", None), (" (IPCW)", ipcw)):
        out["SurvivalRankSVM" + suffix] = (aucopt_pipe(SurvivalRankSVM(alpha=1e-3, pair_options=pairs)), "aucopt",
                                           False)
        out["SurvivalRankRC" + suffix] = (capped(aucopt_pipe(SurvivalRankRC(alpha=1e-3, gamma=0.05,
                                                                            pair_options=pairs))), "aucopt", True)
        out["SurvivalLPRanker" + suffix] = (capped(aucopt_pipe(SurvivalLPRanker(C=1.0, gamma=0.05,
                                                                                pair_options=pairs))), "aucopt", True)
        out["SurvivalAUCSVM" + suffix] = (capped(aucopt_pipe(SurvivalAUCSVM(C=1e-3, gamma=0.05, pair_options=pairs))),
                                          "aucopt", True)
        out["SurvivalSparseAUC" + suffix] = (capped(aucopt_pipe(SurvivalSparseAUC(pair_options=pairs))), "aucopt",
                                             True)
    order = [f"{m}{s}" for m in ("SurvivalRankSVM", "SurvivalRankRC", "SurvivalLPRanker", "SurvivalAUCSVM",
                                 "SurvivalSparseAUC") for s in ("", " (IPCW)")]
    out = {name: out[name] for name in order}
    try:
        import lifelines  # noqa: F401

        from aucopt import CoxPH

        out["CoxPH (aucopt, lifelines)"] = (base_pipe(CoxPH(alpha=0.01)), "baseline", False)
    except ImportError:
        print("  (lifelines is not installed: no CoxPH)", file=sys.stderr)
    try:
        from sksurv.ensemble import GradientBoostingSurvivalAnalysis, RandomSurvivalForest
        from sksurv.linear_model import CoxnetSurvivalAnalysis
        from sksurv.svm import FastSurvivalSVM
    except ImportError:
        print("  (scikit-survival is not installed: no Coxnet, forest, boosting or FastSurvivalSVM)", file=sys.stderr)
        return out
    out["Coxnet (sksurv)"] = (base_pipe(CoxnetSurvivalAnalysis(fit_baseline_model=True)), "baseline", False)
    out["RandomSurvivalForest (sksurv)"] = (capped(base_pipe(RandomSurvivalForest(random_state=0, n_jobs=1))),
                                            "baseline", True)
    out["GradientBoostingSurvival (sksurv)"] = (capped(base_pipe(GradientBoostingSurvivalAnalysis(random_state=0))),
                                                "baseline", True)
    out["FastSurvivalSVM (sksurv)"] = (PositiveTimes(base_pipe(FastSurvivalSVM(random_state=0))), "baseline", False)
    return out


# ============================================================================ running
def run(name, args):
    """One data set: ``{model: {"harrell", "uno", "ibs", "fit": per-fold lists, ...}}`` and its description."""
    frame, y, categorical, note = load(name, args.data_dir)
    if args.quick and len(y) > 300:
        keep = np.sort(train_test_split(np.arange(len(y)), train_size=300, random_state=0, stratify=y["event"])[0])
        frame, y = frame.iloc[keep].reset_index(drop=True), y[keep]
        note = (note + "; " if note else "") + "quick run: 300 subjects"
    width = preprocessing(frame, categorical).fit_transform(frame).shape[1]
    description = {"n": len(y), "events": int(y["event"].sum()), "covariates": frame.shape[1], "columns": width,
                   "note": note}
    rows = {}
    n_train = int(np.ceil(len(y) * (args.splits - 1) / args.splits))
    for model_name, (estimator, family, capped) in models(frame, categorical, args.max_train).items():
        start = time.perf_counter()
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                result = pooled_cindex_cv(estimator, frame, y, n_splits=args.splits, n_repeats=args.repeats,
                                          random_state=args.seed, scoring=["uno", "ibs"], n_jobs=args.n_jobs)
        except Exception as exc:  # a model that fails on one data set is a row saying so, not a stopped run
            rows[model_name] = {"family": family, "error": f"{type(exc).__name__}: {str(exc)[:120]}"}
            print(f"  {model_name:34} failed: {rows[model_name]['error']}", file=sys.stderr, flush=True)
            continue
        convergence = [str(w.message).split(";")[0].split(":")[0][:90] for w in caught
                       if issubclass(w.category, ConvergenceWarning)]
        rows[model_name] = {"family": family, "harrell": result.fold_c.ravel().tolist(),
                            "uno": result.fold_metrics["uno"].ravel().tolist(),
                            "ibs": result.fold_metrics["ibs"].ravel().tolist(),
                            "fit": result.fit_seconds.ravel().tolist(),
                            "subsampled": bool(capped and args.max_train and n_train > args.max_train),
                            "convergence_warnings": {m: convergence.count(m) for m in sorted(set(convergence))}}
        print(f"  {model_name:34} Harrell {np.nanmean(rows[model_name]['harrell']):.4f}  "
              f"Uno {np.nanmean(rows[model_name]['uno']):.4f}  IBS {_mean(rows[model_name]['ibs'])}  "
              f"fit {np.mean(rows[model_name]['fit']):.2f} s  ({time.perf_counter() - start:.0f} s)"
              + (f"  [{len(convergence)} convergence warnings]" if convergence else ""),
              file=sys.stderr, flush=True)
    return rows, description


def _mean(values):
    values = np.asarray(values, float)
    return "—" if np.all(np.isnan(values)) else f"{np.nanmean(values):.4f}"


# ============================================================================ report
def cell(values, best=False, decimals=3):
    values = np.asarray(values, float)
    values = values[np.isfinite(values)]
    if len(values) == 0:
        return "—"
    text = f"{values.mean():.{decimals}f} ± {values.std(ddof=1) if len(values) > 1 else 0.0:.{decimals}f}"
    return f"**{text}**" if best else text


def best_of(rows, metric, higher, family=None):
    """The model with the best mean of ``metric`` (within ``family``), and that mean."""
    scored = [(np.nanmean(np.asarray(r[metric], float)), name) for name, r in rows.items()
              if "error" not in r and (family is None or r["family"] == family)
              and np.isfinite(np.asarray(r[metric], float)).any()]
    if not scored:
        return None, float("nan")
    value, name = (max if higher else min)(scored)
    return name, value


def table(name, rows, description, run_info):
    label, source = DATASETS[name]
    lines = [f"### {label}", "",
             f"{description['n']:,} subjects, {description['events']:,} events, {description['covariates']} "
             f"covariates ({description['columns']} columns after encoding); {source}"
             + (f"; {description['note']}" if description["note"] else "") + ".", "",
             "| model | Harrell's C | Uno's C | IBS | fit s |", "|---|---|---|---|---|"]
    best = {metric: best_of(rows, metric, higher)[0] for metric, _, higher in METRICS}
    notes = []
    for model_name, r in rows.items():
        shown = model_name + (" †" if r.get("subsampled") else "")
        if "error" in r:
            lines.append(f"| {shown} | failed: {r['error']} | | | |")
            continue
        cells = [cell(r[metric], best=best[metric] == model_name) for metric, _, _ in METRICS]
        lines.append(f"| {shown} | {' | '.join(cells)} | {np.mean(r['fit']):.2g} |")
        for message, count in r.get("convergence_warnings", {}).items():
            notes.append(f"{model_name}: {count} × “{message}”")
    if notes:
        lines += ["", "Convergence warnings (over all folds): " + "; ".join(notes) + "."]
    return lines


def verdict(name, rows, n_folds):
    """One row of the overview: the best aucopt model against the best other model, per metric, on the
    same folds: the difference of the means and in how many folds aucopt's is better."""
    need = int(np.ceil(0.8 * n_folds))
    out = [DATASETS[name][0]]
    for metric, _, higher in METRICS:
        ours, ours_value = best_of(rows, metric, higher, "aucopt")
        theirs, their_value = best_of(rows, metric, higher, "baseline")
        if ours is None or theirs is None:
            out.append("—")
            continue
        a, b = np.asarray(rows[ours][metric], float), np.asarray(rows[theirs][metric], float)
        both = np.isfinite(a) & np.isfinite(b)
        better = int(np.sum((a > b if higher else a < b) & both))
        worse = int(np.sum((a < b if higher else a > b) & both))
        word = "**wins**" if better >= need else "**loses**" if worse >= need else "tie"
        out.append(f"{word} {ours_value - their_value:+.3f} ({better}/{int(both.sum())}): {ours} "
                   f"{ours_value:.3f} vs {theirs} {their_value:.3f}")
    return "| " + " | ".join(out) + " |"


def render(results, run_info):
    """The markdown of a run: one table per data set and the overview."""
    n_folds = run_info["splits"] * run_info["repeats"]
    report = ["## Results", "",
              f"{run_info['splits']}-fold cross-validation × {run_info['repeats']} repetition(s) (seed "
              f"{run_info['seed']}), the same folds for every model; mean ± sd over the {n_folds} test folds; the "
              "best value of each column in bold. IBS: lower is better; — = no survival curves. † = fitted on a "
              f"stratified random subsample of {run_info['max_train']:,} subjects of each training fold (tested on "
              "the whole test fold). fit s = mean seconds per fold fit (preprocessing included).", ""]
    overview = ["| data set | Harrell's C | Uno's C | IBS |", "|---|---|---|---|"]
    for name, entry in results.items():
        report += [*table(name, entry["rows"], entry["description"], run_info), ""]
        overview.append(verdict(name, entry["rows"], n_folds))
    report += ["### Best aucopt model against the best other model", "",
               "Per data set and metric: the aucopt model with the best mean against the best of the other models; "
               "the difference of the means (aucopt − other; for the IBS negative is better) and in how many of "
               f"the {n_folds} folds aucopt's model is the better one. **wins** / **loses**: better / worse in at "
               f"least {int(np.ceil(0.8 * n_folds))} of them; otherwise tie.", "", *overview, ""]
    report += run_info.get("skipped", [])
    report += ["", f"Measured in {run_info['minutes']:.1f} min: `python benchmarks/survival_models.py "
               f"{run_info['argv']}`".rstrip() + "."]
    return "\n".join(report)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS),
                        help="data sets, in this order (default: all seven)")
    parser.add_argument("--splits", type=int, default=5, help="folds of the repeated CV (default 5)")
    parser.add_argument("--repeats", type=int, default=2, help="repetitions of the CV (default 2)")
    parser.add_argument("--max-train", type=int, default=1000,
                        help="training subjects of the nonlinear models per fold, a stratified random subsample "
                             "(default 1000; 0 = the whole training fold)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the folds (default 0)")
    parser.add_argument("--n-jobs", type=int, default=None, help="folds fitted in parallel (default 1)")
    parser.add_argument("--data-dir", default=None,
                        help="the shared data folder with survival/*.h5 (default: ../shared/data beside the "
                             "repository, or $AUCOPT_DATA)")
    parser.add_argument("--markdown", metavar="FILE", default=None, help="also write the tables to FILE")
    parser.add_argument("--json", metavar="FILE", default=None, help="also write every fold's numbers to FILE")
    parser.add_argument("--from-json", metavar="FILE", default=None,
                        help="print the tables of a run saved with --json instead of running")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 300 subjects per data set, 3 folds x 1, at most 300 training subjects")
    args = parser.parse_args(argv)
    if args.from_json:
        with open(args.from_json, encoding="utf-8") as fh:
            saved = json.load(fh)
        results, run_info = saved["results"], saved["run"]
    else:
        if args.quick:
            args.splits, args.repeats, args.max_train = 3, 1, 300
        start = time.perf_counter()
        results, skipped = {}, []
        for name in args.datasets:
            print(f"== {name}", file=sys.stderr, flush=True)
            try:
                rows, description = run(name, args)
            except LookupError as exc:
                skipped.append(f"* {DATASETS[name][0]} skipped: {exc}.")
                print(f"  skipped: {exc}", file=sys.stderr, flush=True)
                continue
            results[name] = {"rows": rows, "description": description}
        run_info = {"splits": args.splits, "repeats": args.repeats, "seed": args.seed, "max_train": args.max_train,
                    "skipped": skipped, "minutes": (time.perf_counter() - start) / 60,
                    "argv": " ".join(argv if argv is not None else sys.argv[1:])}
        if args.json:
            with open(args.json, "w", encoding="utf-8") as fh:
                json.dump({"run": run_info, "results": results}, fh, indent=1, allow_nan=True)
    text = render(results, run_info)
    print(text)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    main()
