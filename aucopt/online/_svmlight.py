"""LIBSVM / svmlight files streamed in chunks of lines, never held whole (for :class:`OnePassAUC`)."""

from __future__ import annotations

import bz2
import gzip
import io
import os
from collections.abc import Iterator
from numbers import Integral
from typing import Any

import numpy as np
from sklearn.utils._param_validation import validate_params

from .._validation import Count

__all__ = ["iter_svmlight_chunks"]


# ============================================================================ LIBSVM streaming
@validate_params(
    {
        "path": [str, os.PathLike],
        "chunk_size": [Count(Integral, 1, None, closed="left")],
        "n_features": [Count(Integral, 1, None, closed="left")],
        "zero_based": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def iter_svmlight_chunks(path: str | os.PathLike[str], chunk_size: int = 10_000, n_features: int | None = None,
                         *, zero_based: bool = False) -> Iterator[tuple[Any, np.ndarray]]:
    """Stream a LIBSVM / svmlight file as ``(X_chunk, y_chunk)`` pairs, never holding it whole.

    Parameters
    ----------
    path : str or path-like
        The file: plain text, or compressed when its name ends in ``.bz2`` or ``.gz``.
    chunk_size : int, default=10000
        Lines per chunk.
    n_features : int
        Number of features (every chunk gets this width); required.
    zero_based : bool, default=False
        Whether feature indices start at 0 (LIBSVM files are 1-based). Must be explicit:
        scikit-learn's ``"auto"`` cannot be decided chunk by chunk.

    Yields
    ------
    X_chunk : scipy.sparse.csr_matrix of shape (n_chunk, n_features)
        The next rows.
    y_chunk : ndarray of shape (n_chunk,)
        Their labels.

    See Also
    --------
    sklearn.datasets.load_svmlight_file : Parses each chunk.
    OnePassAUC.fit : Accepts this iterator in place of (X, y).

    Examples
    --------
    >>> import os, tempfile
    >>> from aucopt.online import iter_svmlight_chunks
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.svm")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("1 1:0.5 3:1\\n-1 2:1\\n1 1:2\\n")
    >>> [X.shape for X, y in iter_svmlight_chunks(path, chunk_size=2, n_features=3)]
    [(2, 3), (1, 3)]
    """
    from sklearn.datasets import load_svmlight_file

    return _svmlight_chunks(load_svmlight_file, str(path), chunk_size, n_features, zero_based)


_READ_BYTES = 1 << 22  # the file is read (and decompressed) in blocks of this many bytes


def _svmlight_chunks(load_svmlight_file, path, chunk_size, n_features, zero_based):
    """Chunks of ``chunk_size`` lines, cut at newlines found by numpy in blocks of bytes (no
    step per line in Python); each chunk is parsed by ``load_svmlight_file``."""
    opener = bz2.open if path.endswith(".bz2") else gzip.open if path.endswith(".gz") else open

    def parse(pieces):
        X, y = load_svmlight_file(io.BytesIO(b"".join(pieces)), n_features=n_features,
                                  zero_based=zero_based, dtype=np.float64)
        return X, y

    with opener(path, "rb") as fh:
        pieces, lines = [], 0  # the unfinished chunk: its byte pieces and complete lines
        while True:
            block = fh.read(_READ_BYTES)
            if not block:
                break
            ends = np.flatnonzero(np.frombuffer(block, dtype=np.uint8) == 10)  # b"\n"
            start = 0
            for end in ends[chunk_size - lines - 1::chunk_size]:
                pieces.append(block[start:end + 1])
                X, y = parse(pieces)
                if X.shape[0]:
                    yield X, y
                pieces, lines, start = [], 0, end + 1
            lines += int(np.count_nonzero(ends >= start))
            if start < len(block):
                pieces.append(block[start:])
        if pieces:
            last = b"".join(pieces)
            X, y = parse([last if last.endswith(b"\n") else last + b"\n"])
            if X.shape[0]:
                yield X, y
