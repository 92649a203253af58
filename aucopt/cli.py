"""The ``aucopt`` command line.

* ``aucopt demo`` — the LP Ranker (Ataman 2007, eq. 3.3) on scikit-learn's breast-cancer data with
  each solver;
* ``aucopt survival`` — the survival evaluation protocol of Ataman (2007), Sec. 5.3.5;
* ``aucopt onepass`` — one-pass AUC (Gao et al. 2013) streamed over a LIBSVM file;
* ``aucopt sparse`` — sparse greedy kernel AUC (Kakkar et al. 2017) and its basis-size path;
* ``aucopt compare`` — one formulation solved by several solvers, with their disagreement;
* ``aucopt solvers`` / ``aucopt formulations`` — the usable solver names / registered formulations.

Options use the estimators' parameter names (``--C``, ``--alpha``, ``--gamma``, ``--eta0``,
``--basis-size``). Every command prints a table, one row as soon as it is known; ``--json`` or
``--csv`` print it machine-readable instead (numbers as numbers, a missing value as null / an
empty field), with everything else on standard error. Bad input exits with status 2 and a
one-line ``aucopt: error: ...`` (see :func:`main`); ``aucopt --version`` prints the version.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import math
import os
import sys
import time
import warnings
from typing import NamedTuple

import numpy as np

from . import __version__
from .datasets import LIBSVM_SETS

#: LP backends the demo runs by default (OSQP is a first-order QP solver: on this degenerate
#: LP it needs >100 s to reach 1e-6, so it is only run when asked for by name).
DEMO_SOLVERS = ("highs", "clarabel", "scs")

#: the tolerance every solver of the demo is run to; it is also the support threshold (relative to
#: max|α|): a coefficient below it is at the level of the solvers' error, so a simplex vertex, an
#: interior point and a first-order iterate count the same support vectors
DEMO_TOL = 1e-7

#: how a missing value is shown in a text table (null in JSON, an empty field in CSV)
MISSING = "—"

#: the pip extra that brings the optional packages of the command line
EXTRA = "pip install 'aucopt[survival]'"


# ============================================================================ output
class _Column(NamedTuple):
    """A table column: its machine name (JSON key, CSV header), its text title and width, and
    the format of its numbers in the text table (``""``: a left-aligned string)."""

    key: str
    title: str
    width: int = 0
    spec: str = ""


def _plain(value):
    """A JSON / CSV value: numpy scalars as Python numbers, NaN and infinities as None."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _cell(value, column: _Column) -> str:
    value = _plain(value)
    text = MISSING if value is None else format(value, column.spec) if column.spec else str(value)
    width = max(column.width, len(column.title))
    return text.rjust(width) if column.spec else text.ljust(width)


def _title(column: _Column) -> str:
    width = max(column.width, len(column.title))
    return column.title.rjust(width) if column.spec else column.title.ljust(width)


@contextlib.contextmanager
def _bars_cleared():
    """Clear any progress bar on the terminal while a line is written, then redraw it."""
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency
        yield
        return
    with tqdm.external_write_mode():
        yield


class _Report:
    """What a command prints: notes, and one table written row by row.

    Text (the default): the notes and a fixed-width table on the output, each row printed as
    soon as it is given. ``--csv``: the header and then each row, as they come; ``--json``: one
    document ``{"command", "columns", "rows", "summary"}`` at the end. In both machine formats
    the notes go to standard error.
    """

    def __init__(self, args, stream, columns, *, text_header=None, text_row=None, text_table=True):
        self.format, self.stream, self.columns = args.format, stream, list(columns)
        self.command = args.command
        self._text_header, self._text_row, self._text_table = text_header, text_row, text_table
        self.rows, self.summary, self._started = [], {}, False

    def _write(self, text: str, stream=None):
        with _bars_cleared():
            stream = stream or self.stream
            stream.write(text + "\n")
            stream.flush()

    def note(self, text: str):
        """A line for a person: on the output in text mode, on standard error otherwise."""
        self._write(text, self.stream if self.format == "text" else sys.stderr)

    def start(self):
        """The table header (text and CSV), printed once, before the first row."""
        if self._started:
            return
        self._started = True
        if self.format == "csv":
            import csv

            self._csv = csv.writer(self.stream, lineterminator="\n")
            with _bars_cleared():
                self._csv.writerow([c.key for c in self.columns])
                self.stream.flush()
        elif self.format == "text" and self._text_table:
            header = self._text_header or "  ".join(_title(c) for c in self.columns)
            self._write(header.rstrip())

    def row(self, **values):
        """One table row, printed at once (kept for the JSON document)."""
        self.start()
        row = {c.key: _plain(values.get(c.key)) for c in self.columns}
        self.rows.append(row)
        if self.format == "csv":
            with _bars_cleared():
                self._csv.writerow(["" if row[c.key] is None else row[c.key] for c in self.columns])
                self.stream.flush()
        elif self.format == "text":
            line = (self._text_row(row) if self._text_row else
                    "  ".join(_cell(row[c.key], c) for c in self.columns))
            self._write(line.rstrip())

    def close(self):
        """Finish the table: the JSON document, or the CSV header of a table without rows."""
        if self.format == "json":
            import json

            document = {"command": self.command, "columns": [c.key for c in self.columns], "rows": self.rows}
            if self.summary:
                document["summary"] = {k: _plain(v) for k, v in self.summary.items()}
            self.stream.write(json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n")
            self.stream.flush()
        else:
            self.start()


@contextlib.contextmanager
def _report(args, columns, **options):
    """The :class:`_Report` of a command, on standard output or ``--output FILE``.

    With ``--json`` / ``--csv`` on standard output, everything else the command prints —
    notes, and the log of a solver run with ``--verbose`` — is sent to standard error, at the
    level of the file descriptor when there is one, so that standard output holds only the
    table.
    """
    machine = args.format != "text"
    _check_output_path(args.output, "--output", f"table.{'txt' if not machine else args.format}")
    if args.output:
        with open(args.output, "w", encoding="utf-8", newline="") as fh:
            report = _Report(args, fh, columns, **options)
            with contextlib.redirect_stdout(sys.stderr) if machine else contextlib.nullcontext():
                yield report
            report.close()
        return
    if not machine:
        report = _Report(args, sys.stdout, columns, **options)
        yield report
        report.close()
        return
    sys.stdout.flush()
    try:
        fd = sys.stdout.fileno()
        err_fd = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        fd = None
    if fd is None:  # a stream without a file descriptor (captured output): redirect in Python only
        report = _Report(args, sys.stdout, columns, **options)
        with contextlib.redirect_stdout(sys.stderr):
            yield report
        report.close()
        return
    saved = os.dup(fd)
    stream = os.fdopen(saved, "w", encoding="utf-8", newline="", closefd=False)
    os.dup2(err_fd, fd)  # C-level output (solver logs) to standard error too
    try:
        report = _Report(args, stream, columns, **options)
        with contextlib.redirect_stdout(sys.stderr):
            yield report
        report.close()
    finally:
        stream.flush()
        sys.stdout.flush()
        os.dup2(saved, fd)
        os.close(saved)


def _progress(args) -> bool | None:
    """Progress bars (on standard error): always with ``--verbose``, else only on a terminal."""
    return True if args.verbose else None


def _bar_verbose(args) -> int:
    """The ``verbose`` of an estimator whose only output is a progress bar."""
    return int(args.verbose or sys.stderr.isatty())


def _require(module: str, package: str, purpose: str):
    """Import an optional package, or fail in one line naming it and the extra that brings it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(f"{purpose} needs {package}: {EXTRA}") from None


def _data_dir(args, required=None) -> str:
    """The shared data folder (``--data-dir``, else ``AUCOPT_DATA``, else a source checkout's)."""
    from .datasets import get_data_dir

    return get_data_dir(args.data_dir, required=required)


def _check_data_dir_option(args) -> None:
    """An explicit ``--data-dir`` must exist, whether or not the command reads from it."""
    if getattr(args, "data_dir", None) is not None:
        _data_dir(args)


# ============================================================================ demo
def _demo_data(train_size: float, seed: int):
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import MinMaxScaler

    X, y = load_breast_cancer(return_X_y=True)
    y = (y == 0).astype(int)  # WDBC: malignant (target 0) is the positive class
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, train_size=train_size, random_state=seed, stratify=y)
    scaler = MinMaxScaler().fit(X_tr)
    return scaler.transform(X_tr), scaler.transform(X_te), y_tr, y_te


def _first_line(text) -> str:
    return " ".join(str(text).split())


def _demo(args) -> int:
    """``aucopt demo``: fit the LP Ranker with each solver; one table row per solver, printed as
    soon as that solver has finished."""
    from . import LPRanker
    from ._progress import progress_bar
    from .exceptions import SolverError
    from .solvers import check_solver

    for name in args.solvers:
        check_solver(name)  # unknown / uninstalled names fail here, before any fit
    if not args.C > 0:
        raise ValueError(f"--C must be positive; got {args.C}.")
    if not 0 < args.train_size < 1:
        raise ValueError(f"--train-size must lie in (0, 1); got {args.train_size}.")
    if not 0 < args.tol < 1:
        raise ValueError(f"--tol must lie in (0, 1); got {args.tol}.")

    X_tr, X_te, y_tr, y_te = _demo_data(args.train_size, args.seed)
    n_pos = int(y_tr.sum())
    columns = [_Column("solver", "solver", max(map(len, args.solvers))), _Column("status", "status", 16),
               _Column("objective", "objective", 12, ".6f"), _Column("test_auc", "test AUC", 8, ".4f"),
               _Column("support_vectors", "support vectors", 15, "d"), _Column("seconds", "seconds", 7, ".2f")]
    with _report(args, columns) as out:
        out.note(f"LP Ranker (Ataman 2007, eq. 3.3) on WDBC (scikit-learn's breast cancer, min-max scaled): "
                 f"{len(y_tr)} training points ({n_pos} malignant), {n_pos * (len(y_tr) - n_pos):,} pairs, "
                 f"{len(y_te)} test points; RBF gamma={args.gamma}, C={args.C}.")
        out.note(f"Each solver solves the full LP to tol={args.tol:g}; the support vectors are the training points "
                 f"with |alpha_l| > tol * max|alpha| (smaller coefficients are within the solvers' error).")
        out.summary.update(training_points=len(y_tr), malignant=n_pos, pairs=n_pos * (len(y_tr) - n_pos),
                           test_points=len(y_te), gamma=args.gamma, C=args.C, tol=args.tol)
        out.start()
        notes = []
        bar = progress_bar(_progress(args), total=len(args.solvers), desc="LPRanker", unit="solver")
        for name in args.solvers:
            if bar is not None:
                bar.set_description(f"LPRanker {name}")
            model = LPRanker(C=args.C, gamma=args.gamma, method="full", solver=name, tol=args.tol,
                             support_threshold=args.tol, verbose=args.verbose)
            start = time.perf_counter()
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    model.fit(X_tr, y_tr)
            except SolverError as exc:
                out.row(solver=name, status=str(exc.result.status), seconds=time.perf_counter() - start)
                notes.append(f"{name}: {_first_line(exc)}")
                continue
            finally:
                if bar is not None:
                    bar.update(1)
            seconds = time.perf_counter() - start
            notes += [f"{name}: {_first_line(w.message)}" for w in caught]
            out.row(solver=name, status=str(model.solve_result_.status) + (" (warned)" if caught else ""),
                    objective=model.objective_, test_auc=model.score(X_te, y_te),
                    support_vectors=len(model.support_), seconds=seconds)
        if bar is not None:
            bar.close()
        for note in dict.fromkeys(notes):
            out.note(note)
    return 0


# ============================================================================ LIBSVM files
_MAGIC = {".gz": (b"\x1f\x8b", "gzip"), ".bz2": (b"BZh", "bzip2")}


def _check_input_file(path: str) -> None:
    """Refuse a missing path, a directory, or a ``.gz`` / ``.bz2`` file that is not compressed so."""
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


class _LibsvmInput(NamedTuple):
    """The LIBSVM files a command reads: training file, test file (or None), width (or None) and index base."""

    train: str
    test: str | None
    n_features: int | None
    zero_based: bool


def _libsvm_input(name: str, args) -> _LibsvmInput:
    """The files of ``name``: a LIBSVM set of the data folder (its files, width and index base known;
    its test file unless ``--test`` names one) or a file (``--test``, ``--n-features`` and
    ``--zero-based`` as given)."""
    n_features = getattr(args, "n_features", None)
    if name not in LIBSVM_SETS or os.path.exists(name):
        return _LibsvmInput(name, args.test, n_features, args.zero_based)
    from .datasets import libsvm_files

    train, test, info = libsvm_files(name, data_dir=args.data_dir, test=not args.test)
    if args.zero_based and not info.zero_based:
        raise ValueError(f"--zero-based: the {name} set numbers its features from 1, as LIBSVM does; drop "
                         "--zero-based (a named set knows its index base).")
    return _LibsvmInput(train, args.test or test, n_features or info.n_features, info.zero_based)


def _zero_based_hint(exc: ValueError, path: str, option: str = "--zero-based") -> ValueError:
    """Turn scikit-learn's "Invalid index 0" into the fix."""
    if "Invalid index 0" in str(exc):
        return ValueError(f"{path} has a feature index 0, but LIBSVM indices start at 1: the file looks "
                          f"zero-based: pass {option}.")
    return exc


def _onepass(args) -> int:
    """``aucopt onepass``: stream a LIBSVM file through OnePassAUC in chunks (never loaded whole)."""
    from ._progress import progress_bar
    from .metrics import roc_auc
    from .online._onepass import OnePassAUC, iter_svmlight_chunks

    _check_data_dir_option(args)
    train, test, n_features, zero_based = _libsvm_input(args.train, args)
    if n_features is None:  # checked as argparse would, before the file
        raise ValueError(f"the following arguments are required for a LIBSVM file: --n-features (the number of "
                         f"features d; only the named sets {', '.join(LIBSVM_SETS)} know theirs) "
                         "(see 'aucopt onepass --help')")
    for path in [train] + ([test] if test else []):
        _check_input_file(path)
    if not n_features > 0 or not args.chunk_size > 0:
        raise ValueError(f"--n-features and --chunk-size must be positive; got {n_features} and {args.chunk_size}.")
    model = OnePassAUC(alpha=args.alpha, rank=args.rank)
    if args.eta0 is not None:  # otherwise the estimator's default
        model.set_params(eta0=args.eta0)
    if args.average is not None:  # otherwise the estimator's default
        model.set_params(average=args.average)

    def counted(chunks, bar):
        for X, y in chunks:
            yield X, y
            if bar is not None:  # one refresh per chunk: the count is exact whenever it is drawn
                bar.update(X.shape[0])
                bar.refresh()

    columns = [_Column("examples", "examples", 10, ","), _Column("features", "features", 8, "d"),
               _Column("covariance", "covariance", 15), _Column("seconds", "seconds", 8, ".2f"),
               _Column("test_examples", "test examples", 13, ","), _Column("test_auc", "test AUC", 8, ".4f")]
    with _report(args, columns) as out:
        out.note(f"OnePassAUC over {train}, {args.chunk_size:,} rows at a time")
        start = time.perf_counter()
        bar = progress_bar(_progress(args), desc="OnePassAUC", unit=" rows")
        try:
            chunks = iter_svmlight_chunks(train, args.chunk_size, n_features, zero_based=zero_based)
            model.fit(((X, y == args.positive) for X, y in counted(chunks, bar)))
        except ValueError as exc:
            raise _zero_based_hint(exc, train) from None
        finally:
            if bar is not None:
                bar.close()
        seconds = time.perf_counter() - start
        auc, n_test = None, None
        if test:
            scores, labels = [], []
            bar = progress_bar(_progress(args), desc="OnePassAUC test AUC", unit=" rows")
            try:
                for X, y in counted(iter_svmlight_chunks(test, args.chunk_size, n_features,
                                                         zero_based=zero_based), bar):
                    scores.append(model.decision_function(X))
                    labels.append(y == args.positive)
            except ValueError as exc:
                raise _zero_based_hint(exc, test) from None
            finally:
                if bar is not None:
                    bar.close()
            labels = np.concatenate(labels)
            n_test = len(labels)
            if labels.all() or not labels.any():
                out.note(f"test AUC {MISSING}: the test file {test} holds a single class "
                         f"(--positive {args.positive:g} matched {int(labels.sum())} of {n_test} labels).")
            else:
                auc = roc_auc(labels, np.concatenate(scores))
        else:
            out.note(f"test AUC {MISSING}: no --test file given.")
        out.row(examples=model.n_seen_, features=n_features,
                covariance=f"rank {args.rank}" if args.rank else "full", seconds=seconds, test_examples=n_test,
                test_auc=auc)
    return 0


# ============================================================================ sparse
def _load_labelled(path: str, positive: float, n_features=None, zero_based=False):
    from sklearn.datasets import load_svmlight_file

    _check_input_file(path)
    try:
        X, y = load_svmlight_file(path, n_features=n_features, zero_based=zero_based)
    except ValueError as exc:
        raise _zero_based_hint(exc, path) from None
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


def _retrain_sizes(d_max: int, limit: int = 12) -> str:
    """The first basis sizes at which SparseAUC re-optimizes (and validates), as text."""
    from .svm._sparse_greedy import retrain_due

    sizes = [d for d in range(1, d_max + 1) if retrain_due(d, d_max)]
    return ", ".join(map(str, sizes[:limit])) + (", …" if len(sizes) > limit else "")


def _stop_message(model, d_max: int) -> str:
    """Why the greedy loop of a fitted SparseAUC ended, in words."""
    added = model.n_iter_
    if model.stop_reason_ == "validation":
        return (f"stopped at |J| = {added} of --basis-size {d_max}: {model.n_iter_no_change} consecutive validation "
                f"checks did not beat the best earlier one by min_delta={model.min_delta:g}")
    if model.stop_reason_ == "no_candidates":
        return (f"stopped at |J| = {added} of --basis-size {d_max}: every distinct training point is already in "
                "the basis")
    return f"reached --basis-size {d_max}"


def _sparse(args) -> int:
    """``aucopt sparse``: greedy sparse kernel AUC (Kakkar et al. 2017); print the path and test AUC."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    from .svm._sparse_greedy import SparseAUC

    _check_data_dir_option(args)
    if not 0 <= args.validation_fraction < 1:
        raise ValueError(f"--validation-fraction must lie in [0, 1); got {args.validation_fraction:g}.")
    columns = [_Column("basis", "basis", 5, "d"), _Column("objective", "objective", 12, ".4f"),
               _Column("validation_auc", "validation AUC", 14, ".4f")]
    with _report(args, columns) as out:
        test, zero_based = args.test, args.zero_based
        if args.data == "breast_cancer":
            from sklearn.datasets import load_breast_cancer

            X, y = load_breast_cancer(return_X_y=True)
            y = (y == 0).astype(int)
        else:
            source, test, n_features, zero_based = _libsvm_input(args.data, args)
            out.note(f"reading {source}" + (f" and {test}" if test else ""))
            X, y = _load_labelled(source, args.positive, n_features=n_features, zero_based=zero_based)
        if test:
            X_te, y_te = _load_labelled(test, args.positive, n_features=X.shape[1], zero_based=zero_based)
            X_tr, y_tr = X, y
        else:
            X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, stratify=y, random_state=args.seed)
        scaler = StandardScaler().fit(X_tr)
        model = SparseAUC(C=args.C, kappa=args.kappa, selection=args.selection,
                          validation_fraction=args.validation_fraction, random_state=args.seed,
                          verbose=_bar_verbose(args))
        basis_size = args.basis_size
        if basis_size is None:  # default: 50, clamped to the estimator's own default min(l/2, 512)
            basis_size = min(SPARSE_BASIS_SIZE, max(1, _sparse_fitting_rows(y_tr, model.validation_fraction) // 2))
        model.set_params(basis_size=basis_size)
        validated = args.validation_fraction > 0
        out.note(f"SparseAUC on {args.data}: {len(y_tr):,} training rows ({int(y_tr.sum()):,} positive), "
                 f"{len(y_te):,} test rows; --basis-size {basis_size}, --kappa {args.kappa}, C={args.C:g}")
        if validated:
            out.note(f"validation AUC on {args.validation_fraction:g} of the training rows, computed when the "
                     f"coefficients are re-optimized (|J| = {_retrain_sizes(basis_size)}); {MISSING} at the "
                     "other sizes")
        else:
            out.note(f"validation AUC {MISSING}: no validation split (--validation-fraction 0)")
        start = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            model.fit(scaler.transform(X_tr), y_tr)
        seconds = time.perf_counter() - start
        for step in model.path_:
            out.row(basis=step["n_basis"], objective=step["objective"], validation_auc=step.get("val_score"))
        test_auc = model.score(scaler.transform(X_te), y_te)
        kept = len(model.support_)
        n_checked = sum(step.get("val_score") is not None for step in model.path_)
        best = (f" (the best validation AUC, {model.val_score_:.4f}, of the {n_checked} sizes validated)"
                if model.val_score_ is not None else "")
        out.note(f"{_stop_message(model, basis_size)}; kept |J| = {kept}{best}, in {seconds:.2f} s; "
                 f"test AUC {test_auc:.4f}")
        for message in dict.fromkeys(_first_line(w.message) for w in caught):
            out.note(message)
        out.summary.update(kept=kept, added=model.n_iter_, basis_size=basis_size, stop_reason=model.stop_reason_,
                           validation_auc=model.val_score_, test_auc=test_auc, seconds=seconds)
    return 0


# ============================================================================ survival

SURVIVAL_MODELS = ("lpr", "aucsvm", "newton", "newton-kernel")

#: ``aucopt survival --metric``: the metrics of the test folds besides the pooled Harrell's C
SURVIVAL_METRICS = ("uno", "auc", "ibs")

#: ``--method auto``: the AUC-SVM's pairwise dual QP (one variable per pair) up to this many
#: comparable pairs, the linear Newton ranking SVM above (one QP fit on whas500, 75k pairs,
#: takes about 9 s; on flchain, 10M pairs, the QP route ran over 200 s without output, while
#: the Newton ranker fits all of flchain in under a second)
AUCSVM_QP_MAX_PAIRS = 200_000


def _survival_route(name: str, args, pairs) -> tuple[str, str]:
    """The path ``--model name`` takes on the comparable pairs ``pairs``, and one line saying
    which and why ("" when there is nothing to say: a model without routes, or a small problem
    on an explicitly chosen path). lpr takes the estimator's own choice
    (:meth:`aucopt.SurvivalLPRanker.select_method`, by predicted time)."""
    from . import SurvivalLPRanker, _runtime

    method, n_fits = args.method, args.splits * args.repeats
    fits = f"{n_fits} fits ({args.splits}-fold CV × {args.repeats})"
    n_pairs = pairs.n_pairs
    if name == "lpr":
        ranker = SurvivalLPRanker(C=args.C, gamma=args.gamma, method=method)
        route, reason = ranker.select_method(pairs)
        seconds = ranker._predicted_seconds(route, pairs)
        slow = seconds > _runtime.SLOW_FIT_SECONDS
        if method != "auto" and not slow:
            return route, ""
        note = f"lpr: {reason}"
        if slow:
            note += (f" {fits}: about {_runtime.describe(n_fits * seconds)} in all (each fit predicted "
                     f"{_runtime.describe(seconds)}); --method auto chooses by predicted time")
        return route, note
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


def _survival_model(name: str, args, pairs):
    """The estimator behind ``--model`` (min-max scaling fitted inside each training fold), on the
    path of :func:`_survival_route`."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler

    from . import SurvivalAUCSVM, SurvivalLPRanker, SurvivalRankRC, SurvivalRankSVM

    pair_options = {"variant": "lprex"} if args.lprex else None
    route, _ = _survival_route(name, args, pairs)
    if name == "lpr":  # method="auto" lets each training fold choose its own route
        model = SurvivalLPRanker(C=args.C, gamma=args.gamma, method=args.method, pair_options=pair_options,
                                 support_threshold=1e-3 if route == "subgradient" else 1e-8)
    elif name == "aucsvm" and route == "full":
        model = SurvivalAUCSVM(C=args.svm_C, gamma=args.gamma, method="full", pair_options=pair_options)
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


def _check_output_path(path: str, option: str, example: str = "km.png") -> None:
    """Refuse an output file whose directory does not exist (or that names a directory)."""
    if not path:
        return
    if os.path.isdir(path):
        raise ValueError(f"{option} {path} is a directory: give a file name such as {os.path.join(path, example)}.")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"{option} {path}: the directory {folder} does not exist; create it or choose "
                         "another path.")


def _load_survival_data(args):
    """``--data``: a scikit-survival set, a DeepSurv set of the shared data folder, or a CSV file."""
    from .datasets import DEEPSURV_SETS, SKSURV_SETS, load_deepsurv, load_survival

    if args.data in SKSURV_SETS:
        _require("sksurv.datasets", "scikit-survival", f"--data {args.data}")
        return load_survival(args.data)
    if args.data in DEEPSURV_SETS and not os.path.exists(args.data):
        _data_dir(args, required=f"survival/{DEEPSURV_SETS[args.data]}")  # the folder first: its error names --data-dir
        _require("h5py", "h5py", f"--data {args.data} (an HDF5 file)")
        return load_deepsurv(args.data, data_dir=args.data_dir)
    if not os.path.exists(args.data):
        raise ValueError(f"Unknown data set --data {args.data!r}: use one of {', '.join(SKSURV_SETS)} "
                         f"(scikit-survival), {', '.join(DEEPSURV_SETS)} (DeepSurv, in the data folder) or the path of "
                         "a CSV file.")
    return load_survival(args.data, time=args.time, event=args.event)


def _survival(args) -> int:
    """``aucopt survival``: the protocol of Ataman (2007), Sec. 5.3.5 — pooled-percentile C-index
    by repeated k-fold CV for each model and Cox regression, paired t-tests, Kaplan–Meier risk groups."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler

    from . import survival
    from .pairs import PairSet
    from .survival._protocol import METRIC_DESCRIPTIONS, METRIC_LABELS, _comparison_line, _comparison_record

    # everything that can fail fast is checked before the data are loaded and the CV starts
    _check_output_path(args.km_png, "--km-png")
    if not 0 < args.top < 100:
        raise ValueError(f"--top must be a percentage in (0, 100); got {args.top:g}.")
    if args.max_bytes is not None and not args.max_bytes > 0:
        raise ValueError(f"--max-bytes must be positive; got {args.max_bytes:g}.")
    if args.splits < 2 or args.repeats < 1:
        raise ValueError(f"--splits must be at least 2 and --repeats at least 1; got {args.splits} and {args.repeats}.")
    if args.tau is not None and not 0 < args.tau < float("inf"):
        raise ValueError(f"--tau must be a positive time; got {args.tau:g}.")
    _check_data_dir_option(args)
    if not args.no_cox:
        _require("lifelines", "lifelines", "the Cox baseline")
    if args.km_png:
        _require("matplotlib", "matplotlib", "--km-png")
    X, y = _load_survival_data(args)
    pairs = PairSet.survival(y)
    n_pairs = pairs.n_pairs
    methods = {}
    if not args.no_cox:  # the baseline first: every later row gets its p-value as soon as it is printed
        cox = survival.CoxPH(alpha=args.cox_alpha, verbose=args.verbose)
        methods["cox"] = make_pipeline(MinMaxScaler(), cox)
    # a model that left its own family is labelled with the one it uses (aucsvm:newton)
    for m in args.model:
        label = f"{m}:newton" if (m, _survival_route(m, args, pairs)[0]) == ("aucsvm", "newton") else m
        methods[label] = _survival_model(m, args, pairs)
    for model in methods.values():  # refuse a route over the memory budget up front
        estimator = model[-1]
        if hasattr(estimator, "check_size"):
            estimator.check_size(pairs)
    baseline = None if args.no_cox else "cox"
    metrics = [m for m in dict.fromkeys(args.metric) if m != "harrell"]  # the pooled C is always there
    columns = [_Column("method", "method"), _Column("pooled_c_mean", "pooled C", spec=".4f"),
               _Column("pooled_c_sd", "sd", spec=".4f"), _Column("fold_c", "fold C", spec=".4f"),
               _Column("p_vs_cox", "p vs cox", spec=".4g")]
    for m in metrics:
        columns += [_Column(f"{m}_mean", METRIC_LABELS[m], spec=".4f"), _Column(f"{m}_sd", "sd", spec=".4f"),
                    _Column(f"{m}_p_vs_cox", "p vs cox", spec=".4g")]
    columns.append(_Column("seconds", "seconds", spec=".1f"))

    def text_row(row):
        return _comparison_line({**row, "p_value": row["p_vs_cox"],
                                 **{f"{m}_p_value": row[f"{m}_p_vs_cox"] for m in metrics}}, metrics)

    header = next(survival.comparison_table({}, baseline, stream=True, metrics=metrics))
    with _report(args, columns, text_header=header, text_row=text_row) as out:
        out.note(f"{args.data}: {len(y)} subjects, {int(y['event'].sum())} events, {X.shape[1]} covariates, "
                 f"{n_pairs:,} comparable pairs; {args.splits}-fold CV × {args.repeats}")
        out.summary.update(data=args.data, subjects=len(y), events=int(y["event"].sum()), covariates=X.shape[1],
                           comparable_pairs=n_pairs, splits=args.splits, repeats=args.repeats)
        for name in args.model:  # which path each model takes, and why, before the long part
            note = _survival_route(name, args, pairs)[1]
            if note:
                out.note(note)
        if args.repeats < 2 and baseline:
            out.note(f"with --repeats 1 the sd is 0 and p vs cox is {MISSING}: both need at least 2 repetitions")
        for m in metrics:
            out.note(f"{METRIC_LABELS[m]}: {METRIC_DESCRIPTIONS[m]}; mean of the test folds per "
                     "repetition" + ("; times: the 10th-90th percentiles of each test fold's event times"
                                     if m in ("auc", "ibs") else ""))
        out.start()
        done = {}

        def report(name, result):
            done[name] = result
            record = _comparison_record(name, result, done.get(baseline), metrics)
            out.row(**record, p_vs_cox=record["p_value"],
                    **{f"{m}_p_vs_cox": record[f"{m}_p_value"] for m in metrics})

        results = survival.evaluate_methods(methods, X, y, n_splits=args.splits, n_repeats=args.repeats,
                                            random_state=args.seed, verbose=_bar_verbose(args), callback=report,
                                            n_jobs=args.n_jobs, scoring=metrics or None, tau=args.tau)
        if args.km_png:
            fig = survival.plot_risk_groups(y["time"], y["event"],
                                            {k: r.percentiles[0] for k, r in results.items()}, top=args.top,
                                            title=f"{args.data}: top {args.top:g}% vs rest (pooled CV, repetition 1)")
            out.note(f"Kaplan–Meier figure: {survival.save_figure(fig, args.km_png)}")
            out.summary["km_png"] = args.km_png
    return 0


# ============================================================================ compare
#: default solvers, point budget and seconds per solver of ``aucopt compare``
COMPARE_SOLVERS = ("highs", "osqp", "clarabel", "scs")
COMPARE_MAX_POINTS = 200
COMPARE_TIME_LIMIT = 60.0  # aucopt.modeling._compare.DEFAULT_TIME_LIMIT


def _time_limit(text: str):
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

#: names of scikit-learn's breast-cancer set for ``aucopt compare --data``
WDBC_NAMES = ("wdbc", "breast_cancer")


def _parse_params(items) -> dict:
    """``--param C=1.0 k=3`` as ``{"C": 1.0, "k": 3}`` (numbers as numbers, ``None`` as None, else strings)."""
    params = {}
    for item in items or []:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--param {item!r} is not KEY=VALUE; write e.g. --param C=1.0")
        if text.strip() == "None":
            params[key.strip()] = None
            continue
        try:
            value = int(text)
        except ValueError:
            try:
                value = float(text)
            except ValueError:
                value = text
        params[key.strip()] = value
    return params


def _check_params(form, params: dict) -> dict:
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


def _compare_groups(args, n_rows: int):
    """``--groups COLUMN``: (integer code per row, labels) from the CSV file of ``--data``, or None."""
    if args.groups is None:
        return None
    from .datasets import _read_csv

    if not os.path.isfile(args.data):
        raise ValueError(f"--groups {args.groups} reads a column of a CSV file, and --data {args.data} is a named "
                         "data set: write the data with its group column to a CSV file and pass --data FILE.csv.")
    if args.groups in (args.time, args.event):
        raise ValueError(f"--groups {args.groups} names the {'time' if args.groups == args.time else 'event'} column; "
                         "give the column that holds each point's group.")
    column = _read_csv(args.data, (args.groups,))[args.groups].to_numpy()
    if len(column) != n_rows:  # pragma: no cover - the loaders keep every row of a CSV file
        raise ValueError(f"--groups {args.groups}: {len(column)} rows in {args.data} but {n_rows} points were read.")
    labels, codes = np.unique(column.astype(str) if column.dtype == object else column, return_inverse=True)
    return codes, labels


def _compare_data(args):
    """``--data`` of ``aucopt compare``: (X, PairSet, description), at most ``--max-points`` points.

    wdbc / breast_cancer (scikit-learn, malignant positive); a survival set or a CSV with
    ``--time`` and ``--event`` (Harrell's comparable pairs); a CSV whose last column is a
    two-valued label (the larger value positive). Features are min-max scaled.
    """
    from sklearn.preprocessing import MinMaxScaler

    from .pairs import PairSet

    survival = args.data not in WDBC_NAMES and (not args.data.lower().endswith(".csv") or args.time or args.event)
    if args.data in WDBC_NAMES:
        from sklearn.datasets import load_breast_cancer

        X, target = load_breast_cancer(return_X_y=True)
        y, what = (target == 0).astype(int), "WDBC (scikit-learn's breast cancer, malignant positive)"
    elif survival:
        X, y = _load_survival_data(args)
        X, what = np.asarray(X, dtype=float), f"{args.data} (survival)"
    else:
        from .datasets import _covariates, _read_csv

        _check_input_file(args.data)
        frame = _read_csv(args.data)  # the reader of every CSV path: complete, or an error naming the lines
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
        X = _covariates(frame.iloc[:, :-1])
        y, what = (labels == values[1]).astype(int), f"{args.data} (label {frame.columns[-1]!r} = {values[1]!r})"
    n = len(X)
    groups = _compare_groups(args, n)
    if args.max_points < 2:
        raise ValueError(f"--max-points must be at least 2; got {args.max_points}.")
    if n > args.max_points:
        from sklearn.model_selection import train_test_split

        keep = np.arange(n)
        strata = None if survival else y
        keep, _ = train_test_split(keep, train_size=args.max_points, random_state=args.seed, stratify=strata)
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


def _compare(args) -> int:
    """``aucopt compare``: one formulation, several solvers; a row per solver as it finishes and
    the largest disagreement with the best exact optimum."""
    from . import get_formulation, kernel_matrix
    from .modeling._compare import compare_solvers
    from .modeling._model import MissingGroupsError

    form = get_formulation(args.formulation)  # an unknown name fails here, listing the known ones
    params = _check_params(form, _parse_params(args.param))
    _check_data_dir_option(args)
    X, pairs, what = _compare_data(args)
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
    width = max(map(len, args.solvers))
    columns = [_Column("solver", "solver", width), _Column("status", "status", 16),
               _Column("objective", "objective", 14, ".8g"), _Column("seconds", "seconds", 7, ".3f"),
               _Column("iterations", "iterations", 10, "d"), _Column("objective_gap", "objective gap", 13, ".2e"),
               _Column("coef_gap", "coef gap", 9, ".2e")]
    with _report(args, columns) as out:
        out.note(f"{form.name} on {what}, {pairs.n_pairs:,} pairs; {args.kernel} kernel"
                 + (f" gamma={args.gamma:g}" if args.kernel != "linear" else "")
                 + (f"; {', '.join(f'{k}={v}' for k, v in params.items())}" if params else "")
                 + f"; {problem.kind}: {problem.n_vars:,} variables, {problem.n_rows:,} rows"
                 + ("; no time limit" if args.time_limit is None else f"; time limit {args.time_limit:g} s per solver"))
        out.summary.update(formulation=form.name, data=args.data, points=pairs.n_points, pairs=pairs.n_pairs,
                           groups=args.groups, kernel=args.kernel, gamma=args.gamma, time_limit=args.time_limit,
                           **{f"param_{k}": v for k, v in params.items()})
        out.start()
        notes = []

        def report(row):
            out.row(**row)
            if row["status"] in ("unavailable", "error") and row["message"]:
                notes.append(f"{row['solver']}: {_first_line(row['message'])}")
            elif row["status"] == "time_limit":
                notes.append(f"{row['solver']}: stopped at the {args.time_limit:g} s time limit, an approximate point "
                             "(raise --time-limit to let it finish)")
            elif "has no time limit: ran without" in row["message"]:
                notes.append(f"{row['solver']}: {row['message'].split(';')[0]}")

        table = compare_solvers(problem, args.solvers, tol=args.tol, time_limit=args.time_limit, callback=report)
        for note in notes:
            out.note(note)
        ref, gap, coef = (table.attrs["reference_solver"], table.attrs["max_objective_gap"],
                          table.attrs["max_coef_gap"])
        out.summary.update(reference_solver=ref, max_objective_gap=gap, max_coef_gap=coef,
                           time_limited=table.attrs["time_limited"])
        if ref is None:
            out.note("max disagreement: none measured (no exact solver reached 'optimal')")
        else:
            out.note(f"max disagreement with {ref}'s optimum: objective {gap:.2e} (relative), coef "
                     + (f"{coef:.2e}" if np.isfinite(coef) else MISSING))
    return 0


# ============================================================================ listings
def _list_solvers(args) -> int:
    """``aucopt solvers``: one usable solver name per line."""
    from . import available_solvers

    with _report(args, [_Column("solver", "solver")], text_table=False) as out:
        for name in available_solvers():
            if args.format == "text":
                out.note(name)
            else:
                out.row(solver=name)
    return 0


def _list_formulations(args) -> int:
    """``aucopt formulations``: name, kind and first docstring line of each registered formulation."""
    from . import available_formulations, get_formulation

    columns = [_Column("name", "name", 24), _Column("kind", "kind", 4), _Column("description", "description")]
    with _report(args, columns, text_table=False) as out:
        for name in available_formulations():
            form = get_formulation(name)
            doc = (form.__doc__ or "").strip().splitlines()
            row = {"name": name, "kind": form.kind.upper(), "description": doc[0].strip() if doc else None}
            if args.format == "text":
                out.note(f"{name:24s} {row['kind']:3s} {row['description'] or ''}".rstrip())
            else:
                out.row(**row)
    return 0


# ============================================================================ parser
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


#: the commands, with the one-line description shown by ``aucopt --help``
COMMANDS = {
    "demo": "fit the LP Ranker on scikit-learn's breast-cancer data with each solver",
    "survival": "pooled-percentile C-index by repeated CV vs Cox regression; Kaplan-Meier risk groups",
    "onepass": "one-pass AUC over a LIBSVM file, streamed in chunks",
    "sparse": "greedy sparse kernel AUC, printing the basis-size path",
    "compare": "solve one formulation with several solvers and show how far they disagree",
    "solvers": "list the usable solver names",
    "formulations": "list the registered formulations",
}

DESCRIPTION = ("AUC maximization, bipartite ranking and survival risk ranking.\n\ncommands:\n"
               + "\n".join(f"  {name:14}{text}" for name, text in COMMANDS.items())
               + "\n\nEvery command prints a table; --json or --csv print it machine-readable on standard "
                 "output\n(everything else goes to standard error), -o FILE writes it to a file.")


def _common_options(data_dir: bool = False) -> argparse.ArgumentParser:
    """The options every command takes: output format, output file, verbosity (and the data folder)."""
    common = argparse.ArgumentParser(add_help=False)
    group = common
    fmt = common.add_mutually_exclusive_group()
    fmt.add_argument("--json", dest="format", action="store_const", const="json", default="text",
                     help="print the table as one JSON document (numbers as numbers, a missing value as null) "
                          "and everything else on standard error (default: a text table)")
    fmt.add_argument("--csv", dest="format", action="store_const", const="csv",
                     help="print the table as CSV, one row as soon as it is known (a missing value is an empty "
                          "field), everything else on standard error (default: a text table)")
    group.add_argument("-o", "--output", metavar="FILE", default=None,
                       help="write the table to FILE instead of standard output (default: standard output)")
    group.add_argument("-v", "--verbose", action="count", default=0,
                       help="show progress bars on standard error even when it is not a terminal, and pass "
                            "verbose=1 (-vv: 2) to the estimators fitted: solver logs, inner progress bars "
                            "(default: bars only on a terminal, estimators silent)")
    if data_dir:
        group.add_argument("--data-dir", metavar="DIR", default=None,
                           help="folder of the data files read by the named data sets, e.g. "
                                "DIR/libsvm/adult_adult.trn.bz2 (default: the AUCOPT_DATA environment variable, "
                                "else the shared/data folder beside a source checkout; a missing file's error "
                                "says where to download it)")
    return common


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
    parser = _Parser(prog="aucopt", allow_abbrev=False, description=DESCRIPTION,
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     epilog="Run `aucopt <command> --help` for the options of a command.")
    parser.add_argument("--version", action="version", version=f"aucopt {__version__}",
                        help="print the version and exit")
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback of an error instead of the one-line message (default: off)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser,
                                help="one of: " + ", ".join(COMMANDS))
    common, with_data = _common_options(), _common_options(data_dir=True)

    def command(name, parents):
        return sub.add_parser(name, allow_abbrev=False, description=COMMANDS[name] + ".", parents=[parents])

    p = command("demo", common)
    p.add_argument("--solvers", nargs="+", default=list(DEMO_SOLVERS),
                   help=f"solver names, run in this order (default: {' '.join(DEMO_SOLVERS)}; osqp also works but "
                        "needs minutes on this LP; see `aucopt solvers`)")
    p.add_argument("--C", type=float, default=1.0, help="pair-loss weight C of the LP Ranker, > 0 (default 1)")
    p.add_argument("--gamma", type=float, default=1.0, help="RBF kernel gamma (default 1)")
    p.add_argument("--train-size", type=float, default=0.5,
                   help="training fraction in (0, 1), the rest is the test set (default 0.5; 0.8 gives 455 "
                        "training points)")
    p.add_argument("--seed", type=int, default=0, help="seed of the stratified train/test split (default 0)")
    p.add_argument("--tol", type=float, default=DEMO_TOL,
                   help=f"tolerance of every solver, and the support threshold relative to max|alpha| "
                        f"(default {DEMO_TOL:g})")
    p.set_defaults(func=_demo)

    p = command("survival", with_data)
    p.add_argument("--data", default="whas500",
                   help="whas500 | gbsg2 | veterans | flchain (scikit-survival), support | metabric | gbsg | whas "
                        "(DeepSurv files in the data folder, see --data-dir) or FILE.csv (default whas500)")
    p.add_argument("--time", help="time column of a CSV file (required with FILE.csv; no default)")
    p.add_argument("--event", help="event column of a CSV file, bool or 0/1 (required with FILE.csv; no default)")
    p.add_argument("--model", nargs="+", choices=SURVIVAL_MODELS, default=["lpr"],
                   help="one or more of: lpr (LP Ranker), aucsvm (hinge survival SVM), newton (linear RankSVM), "
                        "newton-kernel (RankRC over the events) (default: lpr)")
    p.add_argument("--method", default="auto",
                   choices=("auto", "full", "generation", "smoothing", "chunking", "subgradient"),
                   help="path of lpr and aucsvm (default auto). auto: lpr takes the LP Ranker's own choice by "
                        "predicted time (the full LP when it is predicted to take a few seconds, else smoothing to "
                        f"a certified 0.1%% optimality gap); aucsvm solves its pairwise QP up to "
                        f"{AUCSVM_QP_MAX_PAIRS:,} pairs, else the linear Newton ranking SVM. full forces the exact "
                        "problem; generation (the exact LP optimum by row-and-column generation), smoothing, "
                        "chunking and subgradient are LP Ranker routes. The choice is printed")
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
    p.set_defaults(func=_survival)

    p = command("onepass", with_data)
    p.add_argument("train", help="LIBSVM training file (plain, .bz2 or .gz), or the name of a LIBSVM set of the data "
                                 f"folder ({', '.join(LIBSVM_SETS)}: its .trn file, tested on its .tst file)")
    p.add_argument("--n-features", type=int, default=None,
                   help="number of features d (required for a file; default for a named set: its width)")
    p.add_argument("--test", help="LIBSVM test file for the AUC (default: none for a file, the .tst file for a "
                                  "named set)")
    p.add_argument("--positive", type=float, default=1.0, help="label of the positive class (default 1)")
    p.add_argument("--alpha", type=float, default=1e-4, help="penalty multiplier alpha (default 1e-4)")
    p.add_argument("--eta0", type=_float_or_auto, default=None,
                   help="step size, a number (≲ 1/(4 max‖x‖²)) or 'auto' (default: OnePassAUC's)")
    p.add_argument("--rank", type=int, default=None,
                   help="low-rank sketch size τ, O(τd) memory (default: the full d × d covariance)")
    p.add_argument("--average", action=argparse.BooleanOptionalAction, default=None,
                   help="use (--no-average: do not use) the averaged iterate (default: OnePassAUC's)")
    p.add_argument("--chunk-size", type=int, default=10_000,
                   help="rows read and fitted at a time; memory grows with it (default 10000)")
    p.add_argument("--zero-based", action="store_true",
                   help="feature indices start at 0 (default: they start at 1, as in LIBSVM; a named set "
                        "knows its own)")
    p.set_defaults(func=_onepass)

    p = command("sparse", with_data)
    p.add_argument("data", help="'breast_cancer' (scikit-learn), the name of a LIBSVM set of the data folder "
                                f"({', '.join(LIBSVM_SETS)}: fitted on its .trn file, tested on its .tst file) or a "
                                "LIBSVM file")
    p.add_argument("--test", help="LIBSVM test file (default: the .tst file of a named set, else a stratified 25%% "
                                  "split of the data)")
    p.add_argument("--positive", type=float, default=1.0,
                   help="label of the positive class in LIBSVM files (default 1)")
    p.add_argument("--zero-based", action="store_true",
                   help="feature indices of the LIBSVM files start at 0 (default: at 1, as in LIBSVM; a named "
                        "set knows its own)")
    p.add_argument("--C", type=float, default=1.0, help="weight C of the pairwise squared hinge loss (default 1)")
    p.add_argument("--basis-size", type=int, default=None,
                   help=f"maximum basis size |J| (default {SPARSE_BASIS_SIZE}, or half the fitting rows when the "
                        "data are smaller)")
    p.add_argument("--kappa", type=int, default=100, help="random candidates scored per added basis vector "
                                                           "(default 100)")
    p.add_argument("--selection", choices=("exact", "newton1"), default="exact",
                   help="how each candidate is scored: exact line search or one Newton step (default exact)")
    p.add_argument("--validation-fraction", type=float, default=0.2,
                   help="fraction of the training rows held out to stop the basis growth when the validation AUC "
                        "stops improving, in [0, 1); 0 grows the basis to --basis-size (default 0.2)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the train/test split, the validation split and the candidates (default 0)")
    p.set_defaults(func=_sparse)

    p = command("compare", with_data)
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
    p.set_defaults(func=_compare)

    command("solvers", common).set_defaults(func=_list_solvers)
    command("formulations", common).set_defaults(func=_list_formulations)
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
    from .exceptions import NoComparablePairsError, ProblemTooLargeError, SolverError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:  # the reader left (`aucopt solvers | head -1`): stop quietly, as Unix tools do
        with contextlib.suppress(OSError, ValueError, AttributeError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 141
    except (ValueError, OSError, MemoryError, ImportError,
            ProblemTooLargeError, NoComparablePairsError, SolverError) as exc:
        if args.debug:
            raise
        message = " ".join(str(exc).split()) or type(exc).__name__  # one line
        if type(exc) is MemoryError:  # a bare MemoryError carries no message
            message = ("out of memory: the problem does not fit in this machine's memory; "
                       "use a scalable --method or less data")
        elif isinstance(exc, ImportError) and "pip install" not in message:
            message = f"aucopt {args.command} needs {exc.name or 'an optional package'}: {EXTRA} ({message})"
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
