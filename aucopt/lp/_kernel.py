"""The training kernel as the LP Ranker's scalable routes read it: blocks, columns and products.

A route sees K (m × m, symmetric) only through :class:`KernelOperator`, which holds it in one
of three forms:

* a stored array (the whole matrix, 8m² bytes);
* a callable ``K(rows, cols)`` returning the block ``K[rows][:, cols]``: nothing of size m² is
  stored, every product evaluates the kernel again in row blocks of at most
  ``block_entries`` entries;
* a factor X with K = X Xᵀ (the linear kernel): products cost O(m d) and a column block
  O(m d k), with nothing of size m² stored.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

import numpy as np
import scipy.sparse as sp

from .. import _memory

__all__ = ["KernelLike", "KernelOperator"]


class KernelOperator:
    """Blocks, column blocks and products of a symmetric training kernel K (m × m).

    Parameters
    ----------
    K : ndarray of shape (m, m), callable or None
        The kernel matrix, or a callable ``K(rows, cols)`` returning ``K[rows][:, cols]`` for
        index arrays. None with ``factor``.
    m : int
        Number of training points.
    factor : {ndarray, sparse matrix} of shape (m, d), default=None
        X with K = X Xᵀ (used instead of ``K``).
    symmetric : bool or None, default=None
        Whether a stored ``K`` is known to be symmetric (its column blocks are then gathered as
        rows, which is faster); None checks it.
    block_entries : int, default=2**24
        Kernel entries evaluated at a time by a callable (128 MB of float64).

    Attributes
    ----------
    stored : bool
        Whether the whole matrix is held (an array ``K``).

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt.lp._kernel import KernelOperator
    >>> X = np.arange(6.0).reshape(3, 2)
    >>> ops = [KernelOperator(X @ X.T, 3), KernelOperator(lambda r, c: X[r] @ X[c].T, 3),
    ...        KernelOperator(None, 3, factor=X)]
    >>> [op.matvec(np.ones(3)).tolist() for op in ops]
    [[9.0, 39.0, 69.0], [9.0, 39.0, 69.0], [9.0, 39.0, 69.0]]
    >>> ops[1].rows([2]).ravel().tolist()
    [5.0, 23.0, 41.0]
    """

    def __init__(self, K, m: int, *, factor=None, symmetric: bool | None = None,
                 block_entries: int = _memory.GENERATION_BLOCK_ENTRIES):
        self.m = int(m)
        self.block_entries = int(block_entries)
        if factor is None:
            self._factor = None
        elif sp.issparse(factor):
            self._factor = sp.csr_matrix(factor, dtype=float)
        else:
            self._factor = np.asarray(factor, dtype=float)
        self._callable: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
        self.matrix: np.ndarray | None = None
        if self._factor is not None:
            if self._factor.ndim != 2 or self._factor.shape[0] != self.m:
                raise ValueError(f"The kernel factor must have {self.m} rows, got shape {self._factor.shape}.")
        elif callable(K):
            self._callable = K
        else:
            K = np.asarray(K, dtype=float)
            if K.shape != (self.m, self.m):
                raise ValueError(f"K must have shape ({self.m}, {self.m}) for the {self.m} points of the pair "
                                 f"set, got {K.shape}.")
            self.matrix = K
            self._symmetric = _is_symmetric(K) if symmetric is None else bool(symmetric)

    @property
    def stored(self) -> bool:
        return self.matrix is not None

    def block(self, rows, cols) -> np.ndarray:
        """``K[rows][:, cols]`` for index arrays."""
        rows, cols = np.asarray(rows, dtype=np.int64), np.asarray(cols, dtype=np.int64)
        if self.matrix is not None:
            return self.matrix[np.ix_(rows, cols)]
        if self._factor is not None:
            return _dense(self._factor[rows] @ self._factor[cols].T)
        assert self._callable is not None  # neither a matrix nor a factor
        out = np.asarray(self._callable(rows, cols), dtype=float)
        if out.shape != (len(rows), len(cols)):
            raise ValueError(f"The kernel callable returned a block of shape {out.shape} for {len(rows)} rows and "
                             f"{len(cols)} columns.")
        if not np.isfinite(out).all():
            raise ValueError("The kernel callable returned NaN or infinite values; check the features and the "
                             "kernel's parameters (e.g. gamma).")
        return out

    def rows(self, idx) -> np.ndarray:
        """``K[idx]`` (k × m, C-ordered): by symmetry, the columns ``K[:, idx]`` transposed."""
        idx = np.asarray(idx, dtype=np.int64)
        if self.matrix is not None:
            return self.matrix[idx] if self._symmetric else np.ascontiguousarray(self.matrix[:, idx].T)
        if self._factor is not None:
            return _dense(self._factor[idx] @ self._factor.T)
        if len(idx) == 0:
            return np.zeros((0, self.m))
        step = max(1, self.block_entries // len(idx))
        return np.hstack([self.block(idx, np.arange(a, min(a + step, self.m))) for a in range(0, self.m, step)])

    def product(self, cols, v) -> np.ndarray:
        """``K[:, cols] @ v`` over all m rows (in row blocks for a callable)."""
        cols = np.asarray(cols, dtype=np.int64)
        if len(cols) == 0:
            return np.zeros(self.m)
        if self.matrix is not None:
            return self.rows(cols).T @ v
        if self._factor is not None:
            return np.asarray(self._factor @ (self._factor[cols].T @ v)).ravel()
        step = max(1, self.block_entries // len(cols))
        return np.concatenate([self.block(np.arange(a, min(a + step, self.m)), cols) @ v
                               for a in range(0, self.m, step)])

    def matvec(self, v) -> np.ndarray:
        """``K @ v``: one pass over the stored matrix, O(m d) with a factor, or every block evaluated once."""
        v = np.asarray(v, dtype=float)
        if self.matrix is not None:
            return self.matrix @ v
        if self._factor is not None:
            return np.asarray(self._factor @ (self._factor.T @ v)).ravel()
        nz = np.flatnonzero(v)
        return self.product(nz, v[nz])


def _is_symmetric(K, rows_per_block: int = 1024) -> bool:
    """Whether K equals its transpose exactly, checked in row blocks (no m × m temporary)."""
    m = K.shape[0]
    return all(np.array_equal(K[a:a + rows_per_block], K[:, a:a + rows_per_block].T)
               for a in range(0, m, rows_per_block))


def _dense(block) -> np.ndarray:
    """A kernel block as a dense C-ordered float64 array (products of sparse factors are sparse)."""
    return np.ascontiguousarray(block.toarray() if sp.issparse(block) else block, dtype=float)


#: what the scalable routes take as the training kernel: the matrix, a callable ``K(rows, cols)``
#: returning a block, or an operator
KernelLike: TypeAlias = np.ndarray | Callable[[np.ndarray, np.ndarray], np.ndarray] | KernelOperator
