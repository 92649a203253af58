"""``aucopt onepass``: one-pass AUC (Gao et al. 2013) streamed over a LIBSVM file in chunks."""

from __future__ import annotations

import argparse
import contextlib
import time
from collections.abc import Generator, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from .._libsvm_sets import LIBSVM_SETS
from ._common import progress
from ._inputs import check_data_dir_option, check_input_file, libsvm_input, zero_based_hint
from ._output import MISSING, Column, Report, open_report

if TYPE_CHECKING:
    from ..online import OnePassAUC


NAME = "onepass"
HELP = "one-pass AUC over a LIBSVM file, streamed in chunks"
DATA_DIR = True


def _float_or_auto(text: str) -> float | str:
    """``'auto'`` or a number, for ``--eta0``."""
    if text == "auto":
        return text
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'auto'; got {text!r}") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``aucopt onepass``."""
    parser.add_argument("train", help="LIBSVM training file (plain, .bz2 or .gz), or the name of a LIBSVM set of the "
                                      f"data folder ({', '.join(LIBSVM_SETS)}: its .trn file, tested on its .tst "
                                      "file)")
    parser.add_argument("--n-features", type=int, default=None,
                        help="number of features d (required for a file; default for a named set: its width)")
    parser.add_argument("--test", help="LIBSVM test file for the AUC (default: none for a file, the .tst file for a "
                                       "named set)")
    parser.add_argument("--positive", type=float, default=1.0, help="label of the positive class (default 1)")
    parser.add_argument("--alpha", type=float, default=1e-4, help="penalty multiplier alpha (default 1e-4)")
    parser.add_argument("--eta0", type=_float_or_auto, default=None,
                        help="step size, a number (≲ 1/(4 max‖x‖²)) or 'auto' (default: OnePassAUC's)")
    parser.add_argument("--rank", type=int, default=None,
                        help="low-rank sketch size τ, O(τd) memory (default: the full d × d covariance)")
    parser.add_argument("--average", action=argparse.BooleanOptionalAction, default=None,
                        help="use (--no-average: do not use) the averaged iterate (default: OnePassAUC's)")
    parser.add_argument("--chunk-size", type=int, default=10_000,
                        help="rows read and fitted at a time; memory grows with it (default 10000)")
    parser.add_argument("--zero-based", action="store_true",
                        help="feature indices start at 0 (default: they start at 1, as in LIBSVM; a named set "
                             "knows its own)")


def _inputs(args: argparse.Namespace) -> tuple[str, str | None, int, bool]:
    """The training file, test file, width and index base, each checked before any is read."""
    train, test, n_features, zero_based = libsvm_input(args.train, args)
    if n_features is None:  # checked as argparse would, before the file
        raise ValueError(f"the following arguments are required for a LIBSVM file: --n-features (the number of "
                         f"features d; only the named sets {', '.join(LIBSVM_SETS)} know theirs) "
                         "(see 'aucopt onepass --help')")
    for path in [train] + ([test] if test else []):
        check_input_file(path)
    if not n_features > 0 or not args.chunk_size > 0:
        raise ValueError(f"--n-features and --chunk-size must be positive; got {n_features} and {args.chunk_size}.")
    return train, test, n_features, zero_based


def _model(args: argparse.Namespace) -> OnePassAUC:
    """OnePassAUC with the options given (the estimator's defaults for those left out)."""
    from ..online import OnePassAUC

    model = OnePassAUC(alpha=args.alpha, rank=args.rank)
    if args.eta0 is not None:  # otherwise the estimator's default
        model.set_params(eta0=args.eta0)
    if args.average is not None:  # otherwise the estimator's default
        model.set_params(average=args.average)
    return model


def _counted(chunks: Iterable[tuple[Any, Any]], bar: Any) -> Iterator[tuple[Any, Any]]:
    """The chunks, counting their rows on the progress bar ``bar`` (None: no bar)."""
    for X, y in chunks:
        yield X, y
        if bar is not None:  # one refresh per chunk: the count is exact whenever it is drawn
            bar.update(X.shape[0])
            bar.refresh()


def _chunks(args: argparse.Namespace, path: str, n_features: int, zero_based: bool,
            desc: str) -> Generator[Any, None, None]:
    """The chunks of ``path`` behind a progress bar; a zero-based file's error names the fix."""
    from .._progress import progress_bar
    from ..online import iter_svmlight_chunks

    bar = progress_bar(progress(args), desc=desc, unit=" rows")
    try:
        yield from _counted(iter_svmlight_chunks(path, args.chunk_size, n_features, zero_based=zero_based), bar)
    except ValueError as exc:
        raise zero_based_hint(exc, path) from None
    finally:
        if bar is not None:
            bar.close()


def _test_auc(out: Report, args: argparse.Namespace, model: OnePassAUC, test: str, n_features: int,
              zero_based: bool) -> tuple[float | None, int]:
    """The AUC of the fitted model on the test file (None for a single class, with a note) and its size."""
    import numpy as np

    from ..metrics import roc_auc

    scores, labels = [], []
    with contextlib.closing(_chunks(args, test, n_features, zero_based, "OnePassAUC test AUC")) as chunks:
        for X, y in chunks:
            scores.append(model.decision_function(X))
            labels.append(y == args.positive)
    positive = np.concatenate(labels)
    n_test = len(positive)
    if positive.all() or not positive.any():
        out.note(f"test AUC {MISSING}: the test file {test} holds a single class "
                 f"(--positive {args.positive:g} matched {int(positive.sum())} of {n_test} labels).")
        return None, n_test
    return roc_auc(positive, np.concatenate(scores)), n_test


def run(args: argparse.Namespace) -> int:
    """``aucopt onepass``: stream a LIBSVM file through OnePassAUC in chunks (never loaded whole)."""
    check_data_dir_option(args)
    train, test, n_features, zero_based = _inputs(args)
    model = _model(args)
    columns = [Column("examples", "examples", 10, ","), Column("features", "features", 8, "d"),
               Column("covariance", "covariance", 15), Column("seconds", "seconds", 8, ".2f"),
               Column("test_examples", "test examples", 13, ","), Column("test_auc", "test AUC", 8, ".4f")]
    with open_report(args, columns) as out:
        out.note(f"OnePassAUC over {train}, {args.chunk_size:,} rows at a time")
        start = time.perf_counter()
        with contextlib.closing(_chunks(args, train, n_features, zero_based, "OnePassAUC")) as chunks:
            model.fit((X, y == args.positive) for X, y in chunks)
        seconds = time.perf_counter() - start
        auc, n_test = None, None
        if test:
            auc, n_test = _test_auc(out, args, model, test, n_features, zero_based)
        else:
            out.note(f"test AUC {MISSING}: no --test file given.")
        out.row(examples=model.n_seen_, features=n_features,
                covariance=f"rank {args.rank}" if args.rank else "full", seconds=seconds, test_examples=n_test,
                test_auc=auc)
    return 0

