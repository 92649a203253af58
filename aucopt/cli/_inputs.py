"""The data a command reads: the data folder, LIBSVM files and named sets, survival sets."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any, NamedTuple

from ._common import require

if TYPE_CHECKING:
    import numpy as np

#: the first bytes of a compressed file, by suffix
_MAGIC = {".gz": (b"\x1f\x8b", "gzip"), ".bz2": (b"BZh", "bzip2")}


def data_dir(args: argparse.Namespace, required: str | None = None) -> str:
    """The shared data folder (``--data-dir``, else ``AUCOPT_DATA``, else a source checkout's)."""
    from ..datasets import get_data_dir

    return get_data_dir(args.data_dir, required=required)


def check_data_dir_option(args: argparse.Namespace) -> None:
    """An explicit ``--data-dir`` must exist, whether or not the command reads from it."""
    if getattr(args, "data_dir", None) is not None:
        data_dir(args)


def check_input_file(path: str) -> None:
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


class LibsvmInput(NamedTuple):
    """The LIBSVM files a command reads: training file, test file (or None), width (or None) and index base."""

    train: str
    test: str | None
    n_features: int | None
    zero_based: bool


def libsvm_input(name: str, args: argparse.Namespace) -> LibsvmInput:
    """The files of ``name``: a LIBSVM set of the data folder (its files, width and index base known;
    its test file unless ``--test`` names one) or a file (``--test``, ``--n-features`` and
    ``--zero-based`` as given)."""
    from ..datasets import LIBSVM_SETS, libsvm_files

    n_features = getattr(args, "n_features", None)
    if name not in LIBSVM_SETS or os.path.exists(name):
        return LibsvmInput(name, args.test, n_features, args.zero_based)
    train, test, info = libsvm_files(name, data_dir=args.data_dir, test=not args.test)
    if args.zero_based and not info.zero_based:
        raise ValueError(f"--zero-based: the {name} set numbers its features from 1, as LIBSVM does; drop "
                         "--zero-based (a named set knows its index base).")
    return LibsvmInput(train, args.test or test, n_features or info.n_features, info.zero_based)


def zero_based_hint(exc: ValueError, path: str, option: str = "--zero-based") -> ValueError:
    """Turn scikit-learn's "Invalid index 0" into the fix."""
    if "Invalid index 0" in str(exc):
        return ValueError(f"{path} has a feature index 0, but LIBSVM indices start at 1: the file looks "
                          f"zero-based: pass {option}.")
    return exc


def load_labelled(path: str, positive: float, n_features: int | None = None,
                  zero_based: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """A LIBSVM file as a dense matrix and 0/1 labels (1 where the label is ``positive``)."""
    from sklearn.datasets import load_svmlight_file

    check_input_file(path)
    try:
        X, y = load_svmlight_file(path, n_features=n_features, zero_based=zero_based)
    except ValueError as exc:
        raise zero_based_hint(exc, path) from None
    return X.toarray(), (y == positive).astype(int)


def load_survival_data(args: argparse.Namespace) -> tuple[Any, np.ndarray]:
    """``--data``: a scikit-survival set, a DeepSurv set of the shared data folder, or a CSV file."""
    from ..datasets import DEEPSURV_SETS, SKSURV_SETS, load_deepsurv, load_survival

    if args.data in SKSURV_SETS:
        require("sksurv.datasets", "scikit-survival", f"--data {args.data}")
        return load_survival(args.data)
    if args.data in DEEPSURV_SETS and not os.path.exists(args.data):
        data_dir(args, required=f"survival/{DEEPSURV_SETS[args.data]}")  # the folder first: its error names --data-dir
        require("h5py", "h5py", f"--data {args.data} (an HDF5 file)")
        return load_deepsurv(args.data, data_dir=args.data_dir)
    if not os.path.exists(args.data):
        raise ValueError(f"Unknown data set --data {args.data!r}: use one of {', '.join(SKSURV_SETS)} "
                         f"(scikit-survival), {', '.join(DEEPSURV_SETS)} (DeepSurv, in the data folder) or the path of "
                         "a CSV file.")
    return load_survival(args.data, time=args.time, event=args.event)
