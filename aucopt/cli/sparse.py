"""``aucopt sparse``: sparse greedy kernel AUC (Kakkar et al. 2017) and its basis-size path."""

from __future__ import annotations

import argparse
import time
import warnings
from typing import TYPE_CHECKING, Any

from .._libsvm_sets import LIBSVM_SETS
from ._common import bar_verbose, first_line
from ._inputs import check_data_dir_option, libsvm_input, load_labelled
from ._output import MISSING, Column, Report, open_report

if TYPE_CHECKING:
    import numpy as np

    from ..svm import SparseAUC


NAME = "sparse"
HELP = "greedy sparse kernel AUC, printing the basis-size path"
DATA_DIR = True

#: default ``--basis-size`` of ``aucopt sparse`` (clamped to half the fitting rows on small data)
SPARSE_BASIS_SIZE = 50


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``aucopt sparse``."""
    parser.add_argument("data", help="'breast_cancer' (scikit-learn), the name of a LIBSVM set of the data folder "
                                     f"({', '.join(LIBSVM_SETS)}: fitted on its .trn file, tested on its .tst file) "
                                     "or a LIBSVM file")
    parser.add_argument("--test", help="LIBSVM test file (default: the .tst file of a named set, else a stratified "
                                       "25%% split of the data)")
    parser.add_argument("--positive", type=float, default=1.0,
                        help="label of the positive class in LIBSVM files (default 1)")
    parser.add_argument("--zero-based", action="store_true",
                        help="feature indices of the LIBSVM files start at 0 (default: at 1, as in LIBSVM; a named "
                             "set knows its own)")
    parser.add_argument("--C", type=float, default=1.0, help="weight C of the pairwise squared hinge loss (default 1)")
    parser.add_argument("--basis-size", type=int, default=None,
                        help=f"maximum basis size |J| (default {SPARSE_BASIS_SIZE}, or half the fitting rows when "
                             "the data are smaller)")
    parser.add_argument("--kappa", type=int, default=100, help="random candidates scored per added basis vector "
                                                                "(default 100)")
    parser.add_argument("--selection", choices=("exact", "newton1"), default="exact",
                        help="how each candidate is scored: exact line search or one Newton step (default exact)")
    parser.add_argument("--validation-fraction", type=float, default=0.2,
                        help="fraction of the training rows held out to stop the basis growth when the validation "
                             "AUC stops improving, in [0, 1); 0 grows the basis to --basis-size (default 0.2)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the train/test split, the validation split and the candidates (default 0)")


def _fitting_rows(y: np.ndarray, validation_fraction: float) -> int:
    """The rows SparseAUC fits on: the training rows minus its stratified validation split."""
    import numpy as np

    if validation_fraction == 0:
        return len(y)
    counts = np.bincount(np.asarray(y, int))
    held = sum(min(max(round(validation_fraction * c), 1), c - 1) for c in counts if c > 0)
    return len(y) - held


def _retrain_sizes(d_max: int, limit: int = 12) -> str:
    """The first basis sizes at which SparseAUC re-optimizes (and validates), as text."""
    from ..svm import retrain_due

    sizes = [d for d in range(1, d_max + 1) if retrain_due(d, d_max)]
    return ", ".join(map(str, sizes[:limit])) + (", …" if len(sizes) > limit else "")


def _stop_message(model: SparseAUC, d_max: int) -> str:
    """Why the greedy loop of a fitted SparseAUC ended, in words."""
    added = model.n_iter_
    if model.stop_reason_ == "validation":
        return (f"stopped at |J| = {added} of --basis-size {d_max}: {model.n_iter_no_change} consecutive validation "
                f"checks did not beat the best earlier one by min_delta={model.min_delta:g}")
    if model.stop_reason_ == "no_candidates":
        return (f"stopped at |J| = {added} of --basis-size {d_max}: every distinct training point is already in "
                "the basis")
    return f"reached --basis-size {d_max}"


def _split(out: Report, args: argparse.Namespace) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The training and test sets of ``data``: a named set's files, ``--test``, or a stratified 25% split."""
    from sklearn.model_selection import train_test_split

    test, zero_based = args.test, args.zero_based
    if args.data == "breast_cancer":
        from sklearn.datasets import load_breast_cancer

        X, y = load_breast_cancer(return_X_y=True)
        y = (y == 0).astype(int)
    else:
        source, test, n_features, zero_based = libsvm_input(args.data, args)
        out.note(f"reading {source}" + (f" and {test}" if test else ""))
        X, y = load_labelled(source, args.positive, n_features=n_features, zero_based=zero_based)
    if test:
        X_te, y_te = load_labelled(test, args.positive, n_features=X.shape[1], zero_based=zero_based)
        return X, X_te, y, y_te
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, stratify=y, random_state=args.seed)
    return X_tr, X_te, y_tr, y_te


def _introduce(out: Report, args: argparse.Namespace, y_tr: np.ndarray, y_te: np.ndarray, basis_size: int) -> None:
    """The notes above the path: the data, the options and which sizes are validated."""
    out.note(f"SparseAUC on {args.data}: {len(y_tr):,} training rows ({int(y_tr.sum()):,} positive), "
             f"{len(y_te):,} test rows; --basis-size {basis_size}, --kappa {args.kappa}, C={args.C:g}")
    if args.validation_fraction > 0:
        out.note(f"validation AUC on {args.validation_fraction:g} of the training rows, computed when the "
                 f"coefficients are re-optimized (|J| = {_retrain_sizes(basis_size)}); {MISSING} at the "
                 "other sizes")
    else:
        out.note(f"validation AUC {MISSING}: no validation split (--validation-fraction 0)")


def _conclude(out: Report, model: SparseAUC, basis_size: int, seconds: float, test_auc: float,
              caught: list[Any]) -> None:
    """The notes under the path (why it stopped, the basis kept, the test AUC) and the summary."""
    kept = len(model.support_)
    n_checked = sum(step.get("val_score") is not None for step in model.path_)
    best = (f" (the best validation AUC, {model.val_score_:.4f}, of the {n_checked} sizes validated)"
            if model.val_score_ is not None else "")
    out.note(f"{_stop_message(model, basis_size)}; kept |J| = {kept}{best}, in {seconds:.2f} s; "
             f"test AUC {test_auc:.4f}")
    for message in dict.fromkeys(first_line(w.message) for w in caught):
        out.note(message)
    out.summary.update(kept=kept, added=model.n_iter_, basis_size=basis_size, stop_reason=model.stop_reason_,
                       validation_auc=model.val_score_, test_auc=test_auc, seconds=seconds)


def run(args: argparse.Namespace) -> int:
    """``aucopt sparse``: greedy sparse kernel AUC (Kakkar et al. 2017); print the path and test AUC."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.preprocessing import StandardScaler

    from ..svm import SparseAUC

    check_data_dir_option(args)
    if not 0 <= args.validation_fraction < 1:
        raise ValueError(f"--validation-fraction must lie in [0, 1); got {args.validation_fraction:g}.")
    columns = [Column("basis", "basis", 5, "d"), Column("objective", "objective", 12, ".4f"),
               Column("validation_auc", "validation AUC", 14, ".4f")]
    with open_report(args, columns) as out:
        X_tr, X_te, y_tr, y_te = _split(out, args)
        scaler = StandardScaler().fit(X_tr)
        model = SparseAUC(C=args.C, kappa=args.kappa, selection=args.selection,
                          validation_fraction=args.validation_fraction, random_state=args.seed,
                          verbose=bar_verbose(args))
        basis_size = args.basis_size
        if basis_size is None:  # default: 50, clamped to the estimator's own default min(l/2, 512)
            basis_size = min(SPARSE_BASIS_SIZE, max(1, _fitting_rows(y_tr, model.validation_fraction) // 2))
        model.set_params(basis_size=basis_size)
        _introduce(out, args, y_tr, y_te, basis_size)
        start = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            model.fit(scaler.transform(X_tr), y_tr)
        seconds = time.perf_counter() - start
        for step in model.path_:
            out.row(basis=step["n_basis"], objective=step["objective"], validation_auc=step.get("val_score"))
        _conclude(out, model, basis_size, seconds, model.score(scaler.transform(X_te), y_te), caught)
    return 0
