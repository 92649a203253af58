"""RankSVM and SurvivalRankSVM on a dask.distributed cluster: X stays where its blocks live.

Truncated Newton (:func:`aucopt.svm.newton_solve`, Chapelle & Keerthi 2010) touches the data
only through two products, f = Xw and g = Xᵀc. :class:`DaskRowOperator` provides them over a
dask array X persisted on the workers in row blocks X_1, …, X_B (one column block each), to
the process that drives it (the coordinator):

* ``X @ w``: w (d floats) goes to every worker, each worker returns X_b w for its blocks, and
  the coordinator concatenates the n scores (8 bytes a row);
* ``X.T @ c``: c is cut into the pieces c_b of the blocks and scattered straight to the worker
  holding X_b, which returns Σ_b X_bᵀ c_b over its blocks (d floats per task).

Everything pairwise (the sort of the n scores, the loss, c = ∂L/∂f, the generalized-Hessian
products in score space) runs in the coordinator on n-vectors, by the same sorted-pair core as
in memory, so the objective, the iterates and the stopping rule are those of the in-memory fit.
Per product the coordinator sends and receives O(n + d · tasks) bytes; X (n · d · 8 bytes)
never leaves the workers.

A worker that leaves mid-fit (killed, out of memory, lost network) costs time, not the fit: the
scheduler recomputes the blocks it held from their graph on the remaining workers, the products
it was running are submitted again, and the iterations go on from where they were, to the same
solution. Only data that no graph describes (blocks sent with ``client.scatter``), or a client
closed while the fit runs, ends the fit, with :class:`~aucopt.exceptions.ClusterDataLostError`.

``fit`` on dask input (:func:`fit_dask_linear_ranker`) makes one worker the coordinator: a
single task builds the pairs from y, runs the Newton iterations (and the alpha path) and
drives the products of all workers through :func:`distributed.worker_client`. The client
process sends the keys of X's blocks and the futures of y and the weights, and receives the
fitted attributes: O(d) floats and the iteration history, whatever n. When the coordinating
worker leaves, the fit starts again on another one (in-memory targets are sent again). Needs
the optional extra ``aucopt[dask]``.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from concurrent.futures import CancelledError
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils.validation import _check_feature_names, check_is_fitted, column_or_1d

from .._fitting import check_alpha_path, checked_pairs
from .._validation import (
    check_magnitude_scale,
    check_point_weights,
    check_weight_underflow,
    is_dask_collection,
    is_survival_target,
    largest_magnitude,
    survival_target,
)
from ..exceptions import ClusterDataLostError
from ._onepass import _require_dask

__all__ = ["DaskRowOperator", "dask_linear_scores", "fit_dask_linear_ranker"]


# ============================================================================ detection and set-up
def _require_distributed():
    """dask and dask.distributed, or an ImportError naming the extra ``aucopt[dask]``."""
    _require_dask()
    try:
        import distributed
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "Fitting on a dask collection needs dask.distributed: install the extra with "
            "pip install 'aucopt[dask]' (or pip install 'dask[array,dataframe]' distributed)."
        ) from exc
    return distributed


def _current_client(distributed):
    try:
        return distributed.get_client()
    except ValueError as exc:
        raise ValueError(
            "X is a dask collection but no dask.distributed Client is running: start one first, "
            "e.g. client = dask.distributed.Client() (a LocalCluster) or Client('scheduler-address'); "
            "or pass numpy arrays to fit in memory."
        ) from exc


def _as_dask_array(X, estimator=None, *, reset=False):
    """X as a float64 dask array with one column block (a DataFrame's feature names checked)."""
    import dask.array as da

    if hasattr(X, "columns") and hasattr(X, "to_dask_array"):  # a dask DataFrame
        kinds = {c: np.dtype(t).kind for c, t in X.dtypes.items()}
        bad = [c for c, k in kinds.items() if k not in "biuf"]
        if bad:
            raise ValueError(f"X has non-numeric columns {bad[:5]}: encode them as numbers before fitting.")
        if estimator is not None:
            _check_feature_names(estimator, X._meta, reset=reset)
        X = X.to_dask_array(lengths=True)
    elif isinstance(X, da.Array):
        if estimator is not None:
            _check_feature_names(estimator, np.empty((0, X.shape[-1] if X.ndim else 0)), reset=reset)
    else:
        raise TypeError(f"X must be a dask Array or DataFrame here; got {type(X).__name__}.")
    if X.ndim != 2:
        raise ValueError(f"X must be 2-dimensional; got a dask array of shape {X.shape}.")
    if X.dtype.kind not in "biuf":
        raise ValueError(f"X has dtype {X.dtype}; a numeric dtype is needed.")
    if any(np.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()  # block lengths only (one integer per block)
    if X.shape[1] == 0:
        raise ValueError(f"X has shape {X.shape}: at least one feature is required.")
    if X.shape[0] == 0:
        raise ValueError(f"X has shape {X.shape}: at least one sample is required.")
    return X.astype(np.float64).rechunk({1: -1})


# ============================================================================ lost workers and lost data
# What dask raises when a worker holding a task's data leaves: the futures depending on data that no
# graph describes are cancelled (CancelledError), a transfer to the worker fails (OSError, e.g.
# CommClosedError), or a scatter finds no running worker to send to (TimeoutError).
_LOSS_ERRORS = (CancelledError, OSError, TimeoutError, asyncio.TimeoutError)


def _allowed_failures() -> int:
    """How often a product (or the whole fit) is submitted again after losing a worker: dask's own
    budget for a task whose workers die, ``distributed.scheduler.allowed-failures``."""
    import dask

    return max(0, int(dask.config.get("distributed.scheduler.allowed-failures", 3)))


def _client_closed(client) -> bool:
    return getattr(client, "status", "running") != "running"


def _client_closed_error(client) -> ClusterDataLostError:
    return ClusterDataLostError(
        f"The dask client closed (status {getattr(client, 'status', None)!r}) while the fit was running: the "
        "cluster released the fit's data (the blocks of X, y, the weights) and nothing was fitted. Keep the "
        "client open until fit returns (do not close it, or leave its `with` block, from another thread), "
        "check the connection to the scheduler, and fit again.",
        lost=["the client's data on the cluster"])


def _describe_blocks(blocks, offsets) -> list:
    return [f"block {b} of X (rows {int(offsets[b])} to {int(offsets[b + 1]) - 1})" for b in blocks]


def _lost_blocks_error(blocks, offsets) -> ClusterDataLostError:
    lost = _describe_blocks(blocks, offsets)
    shown = ", ".join(lost[:3]) + (f" and {len(lost) - 3} more blocks" if len(lost) > 3 else "")
    return ClusterDataLostError(
        f"{shown} {'was' if len(lost) == 1 else 'were'} lost with a worker that left the cluster and cannot be "
        "recomputed: no dask graph describes them (they were sent with client.scatter, or built from scattered "
        "data). Build X from a graph (dask.array.from_array, da.from_zarr, dask.dataframe.read_parquet, ...) so "
        "that the scheduler recomputes a lost block, or keep copies of scattered blocks on several workers "
        "(client.replicate); then fit again.", lost=lost)


def _wait_for_blocks(client, futures, offsets):
    """Wait until every block is in memory (the scheduler recomputes lost ones from their graph)."""
    from distributed import wait

    try:
        wait(futures)
    except CancelledError as exc:
        if _client_closed(client):
            raise _client_closed_error(client) from exc
        raise _lost_blocks_error([b for b, f in enumerate(futures) if f.cancelled()], offsets) from exc


# ============================================================================ block kernels (run on workers)
def _block_rows(block):
    return int(block.shape[0])


def _block_summary(blocks, _=None):
    out = []
    for block in blocks:
        data = block.data if hasattr(block, "tocsr") else np.asarray(block)
        finite = bool(np.all(np.isfinite(data)))
        magnitude = largest_magnitude(block) if finite else 0.0
        out.append((block.shape[0], finite, magnitude))
    return out, 0.0, _worker_address()


def _worker_address():
    try:
        from distributed import get_worker
        return get_worker().address
    except (ImportError, ValueError):  # pragma: no cover - outside a worker
        return "driver"


def _blocks_matvec(blocks, w):
    start = time.perf_counter()
    parts = [np.asarray(block @ w, dtype=np.float64).ravel() for block in blocks]
    out = parts[0] if len(parts) == 1 else np.concatenate(parts)
    return out, time.perf_counter() - start, _worker_address()


def _blocks_rmatvec(blocks, c):
    start = time.perf_counter()
    out, offset = None, 0
    for block in blocks:
        rows = block.shape[0]
        part = np.asarray(block.T @ c[offset:offset + rows], dtype=np.float64).ravel()
        out = part if out is None else out + part
        offset += rows
    return out, time.perf_counter() - start, _worker_address()


def _block_scores(block, coef):
    return np.asarray(block @ coef, dtype=np.float64).ravel()


def _block_labels(scores, classes):
    return classes[(scores > 0).astype(int)]


# ============================================================================ the operator
class DaskRowOperator:
    """A dask array persisted on the workers, as the linear map w ↦ Xw (and c ↦ Xᵀc).

    The blocks of X are persisted once (``client.persist``) and stay on the workers that hold
    them; every product sends small vectors to the blocks and brings small vectors back, so
    :func:`aucopt.svm.newton_solve` runs on it unchanged. The tasks of one product are grouped
    per worker thread (one task per thread, over the blocks that worker holds) and sent to that
    worker, so no block is copied while the workers stay.

    A worker that leaves is survived: the scheduler recomputes the blocks it held from their
    graph on the remaining workers, the operator waits for them, regroups the blocks by their new
    holders and submits the interrupted product again (a product is a pure function of the
    blocks and the vector, so its result is unchanged), at most
    ``distributed.scheduler.allowed-failures`` times per product.

    Parameters
    ----------
    X : dask.array.Array or dask.dataframe.DataFrame of shape (n_samples, n_features)
        The data; converted to float64 with one column block, then persisted.
    client : distributed.Client, default=None
        The client; None means the current one (``distributed.get_client()``).
    validate : bool, default=True
        Check every block for NaN or infinite entries (on the workers) and the scale of X
        (its largest magnitude, one float per block), before any product.

    Attributes
    ----------
    shape : tuple of int
        ``(n_samples, n_features)``.
    keys : list
        The dask keys of the blocks, in row order (for ``client.who_has``).
    offsets : ndarray of shape (n_blocks + 1,)
        First row of every block, and n.
    placement : dict
        Worker address → the indices of the blocks it holds.
    stats : dict
        Running totals: ``matvec_calls``, ``rmatvec_calls``, ``bytes_sent`` and
        ``bytes_received`` (by the process driving the operator, vectors only), ``seconds`` (wall time of the
        products), ``worker_seconds`` (per worker, time in the block products),
        ``communication_seconds`` (wall time minus the busiest worker's compute time, per
        product: transfers, serialization and scheduling), ``max_bytes_per_call`` (largest
        data volume the driving process sent plus received in one product), ``workers_lost``
        (addresses of the workers that held blocks and left) and ``resubmitted`` (products
        submitted again after losing a worker).

    Raises
    ------
    ValueError
        For NaN or infinite entries (naming the first offending block and its rows), a scale
        that overflows float64, or no running client.
    ClusterDataLostError
        From a product, when a block was lost with a worker and no graph can recompute it
        (scattered data), or when the client closed.

    See Also
    --------
    aucopt.RankSVM, aucopt.SurvivalRankSVM : Fitted on dask input through this operator.
    aucopt.svm.newton_solve : The solver that uses it.

    Examples
    --------
    >>> import numpy as np
    >>> import dask.array as da
    >>> from distributed import Client, LocalCluster
    >>> from aucopt.distributed import DaskRowOperator
    >>> with LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
    ...                   dashboard_address=":0") as cluster, Client(cluster) as client:
    ...     X = da.from_array(np.arange(12.0).reshape(6, 2), chunks=(2, 2))
    ...     op = DaskRowOperator(X)
    ...     (op @ np.array([1.0, 0.0])).tolist(), (op.T @ np.ones(6)).tolist()
    ([0.0, 2.0, 4.0, 6.0, 8.0, 10.0], [30.0, 36.0])
    """

    def __init__(self, X: Any, client: Any = None, *, validate: bool = True):
        distributed = _require_distributed()
        client = _current_client(distributed) if client is None else client
        X = client.persist(_as_dask_array(X))
        self._X = X  # holds the persisted blocks while the operator lives
        keys = list(_flatten(X.__dask_keys__()))
        futures = {f.key: f for f in distributed.futures_of(X)}
        self._setup(client, [futures[k] for k in keys], X.chunks[0], int(X.shape[1]), validate)

    @classmethod
    def _from_keys(cls, keys, row_chunks, n_features, client, *, validate=True):
        """The operator over blocks already persisted (by another client), named by their keys."""
        from distributed import Future

        op = cls.__new__(cls)
        op._X = None
        op._setup(client, [Future(k, client=client) for k in keys], row_chunks, n_features, validate)
        return op

    def _setup(self, client, futures, row_chunks, n_features, validate):
        self.client = client
        self._futures = list(futures)
        self.keys = [f.key for f in self._futures]
        self.offsets = np.concatenate([[0], np.cumsum(row_chunks)]).astype(np.int64)
        self.shape = (int(self.offsets[-1]), int(n_features))
        self.dtype = np.dtype(np.float64)
        self.placement: dict[str, list[int]] = {}
        self.stats: dict[str, Any] = {"matvec_calls": 0, "rmatvec_calls": 0, "bytes_sent": 0, "bytes_received": 0,
                      "seconds": 0.0, "communication_seconds": 0.0, "worker_seconds": defaultdict(float),
                      "max_bytes_per_call": 0, "n_blocks": len(self.keys), "n_tasks_per_call": 0,
                      "workers_lost": [], "resubmitted": 0}
        self._place()
        if validate:
            self._validate()

    # ------------------------------------------------------------------ where the blocks are
    def _place(self):
        """Group the blocks by the worker holding them, once all are in memory.

        Blocks lost with a worker are recomputed by the scheduler meanwhile (or, when no graph
        describes them, :class:`ClusterDataLostError` is raised). Workers of the previous
        placement that left are recorded in ``stats["workers_lost"]``.
        """
        for _ in range(_allowed_failures() + 1):
            who_has = self.client.who_has(self._futures)
            nthreads = self.client.nthreads()
            holders = {key: sorted(w for w in who_has.get(key, ()) if w in nthreads) for key in self.keys}
            missing = [b for b, key in enumerate(self.keys) if not holders[key]]
            if not missing:
                break
            self._await_blocks(missing)
        else:  # a holder left between the wait and the query, every time
            raise ClusterDataLostError(
                f"Workers kept leaving the cluster while the blocks of X were being recomputed "
                f"({_allowed_failures() + 1} times): check the workers' logs (memory limit, crashes), then fit "
                f"again.", lost=_describe_blocks(missing, self.offsets))
        self.stats["workers_lost"] += sorted(w for w in self.placement if w not in nthreads)
        placement = defaultdict(list)
        for b, key in enumerate(self.keys):
            placement[holders[key][0]].append(b)
        self.placement = dict(placement)
        self._groups = []  # (worker, block indices): one task per worker thread and product
        for worker, blocks in sorted(self.placement.items()):
            k = max(1, min(int(nthreads.get(worker, 1)), len(blocks)))
            for part in np.array_split(np.asarray(blocks), k):
                if len(part):
                    self._groups.append((worker, [int(b) for b in part]))
        self.stats["n_tasks_per_call"] = len(self._groups)

    def _await_blocks(self, blocks):
        """Wait until the given blocks are in memory: the scheduler computes (or recomputes) them
        for one small task each, which runs where the block is."""
        from distributed import wait

        futures = [self.client.submit(_block_rows, self._futures[b], pure=False) for b in blocks]
        try:
            wait(futures)
            self.client.gather(futures)  # an error computing a block is raised here
        except CancelledError as exc:
            if _client_closed(self.client):
                raise _client_closed_error(self.client) from exc
            lost = [b for b, f in zip(blocks, futures, strict=False) if f.cancelled()]
            raise _lost_blocks_error(lost, self.offsets) from exc

    def _lost_a_worker(self) -> bool:
        return any(w not in self.client.nthreads() for w in self.placement)

    def _submit(self, func, payload):
        """``func(blocks, payload(worker, blocks))`` on every group, gathered: (results, groups).

        The tasks go to the worker holding the group's blocks (another one if it has left). When
        a worker is lost meanwhile, the blocks are placed again and the product is submitted
        again; ``payload`` returns the argument and the bytes it sends.
        """
        failures = 0
        while True:
            groups = self._groups
            try:
                args = [payload(worker, blocks) for worker, blocks in groups]
                futs = [self.client.submit(func, [self._futures[b] for b in blocks], arg, workers=[worker],
                                           allow_other_workers=True, pure=False)
                        for (worker, blocks), (arg, _) in zip(groups, args, strict=False)]
                results = self.client.gather(futs)
            except _LOSS_ERRORS as exc:
                if _client_closed(self.client):
                    raise _client_closed_error(self.client) from exc
                if failures >= _allowed_failures() or not self._lost_a_worker():
                    raise
                failures += 1
                self.stats["resubmitted"] += 1
                self._place()
                continue
            if any(address != worker for (worker, _), (_, _, address) in zip(groups, results, strict=False)):
                self._place()  # a task ran elsewhere: its worker has left, the blocks have moved
            return results, groups, sum(nbytes for _, nbytes in args)

    # ------------------------------------------------------------------ validation
    def _validate(self):
        results, groups, _ = self._submit(_block_summary, lambda worker, blocks: (None, 0))
        summary: dict[int, tuple[int, bool, float]] = {}
        for (_, blocks), (result, _, _) in zip(groups, results, strict=False):
            summary.update(zip(blocks, result, strict=False))
        for b in range(len(self._futures)):
            _, finite, _ = summary[b]
            if not finite:
                raise ValueError(
                    f"X contains NaN or infinite values (first in block {b}, rows {self.offsets[b]} to "
                    f"{self.offsets[b + 1] - 1}): impute or drop them before fitting."
                )
        magnitude = max(m for _, _, m in summary.values())
        check_magnitude_scale(magnitude, self.shape, products=4)

    # ------------------------------------------------------------------ products
    def _run(self, func, payload):
        start = time.perf_counter()
        results, groups, sent = self._submit(func, payload)
        wall = time.perf_counter() - start
        busy: defaultdict[str, float] = defaultdict(float)
        for _, seconds, worker in results:
            busy[worker] += seconds
            self.stats["worker_seconds"][worker] += seconds
        self.stats["seconds"] += wall
        self.stats["communication_seconds"] += max(0.0, wall - max(busy.values(), default=0.0))
        received = sum(r[0].nbytes for r in results)
        self.stats["bytes_received"] += received
        self.stats["bytes_sent"] += sent
        self.stats["max_bytes_per_call"] = max(self.stats["max_bytes_per_call"], sent + received)
        return [r[0] for r in results], groups

    def __matmul__(self, w: ArrayLike) -> np.ndarray:
        """Xw as a numpy array of shape (n_samples,)."""
        w = np.asarray(w, dtype=np.float64).ravel()
        if w.shape != (self.shape[1],):
            raise ValueError(f"w has shape {w.shape}; X has {self.shape[1]} columns.")
        self.stats["matvec_calls"] += 1
        parts, groups = self._run(_blocks_matvec, lambda worker, blocks: (w, w.nbytes))
        out = np.empty(self.shape[0])
        for (_, blocks), part in zip(groups, parts, strict=False):
            offset = 0
            for b in blocks:
                rows = self.offsets[b + 1] - self.offsets[b]
                out[self.offsets[b]:self.offsets[b + 1]] = part[offset:offset + rows]
                offset += rows
        return out

    def rmatvec(self, c: ArrayLike) -> np.ndarray:
        """Xᵀc as a numpy array of shape (n_features,).

        Parameters
        ----------
        c : array-like of shape (n_samples,)
            One coefficient per row.

        Returns
        -------
        g : ndarray of shape (n_features,)
        """
        c = np.asarray(c, dtype=np.float64).ravel()
        if c.shape != (self.shape[0],):
            raise ValueError(f"c has shape {c.shape}; X has {self.shape[0]} rows.")
        self.stats["rmatvec_calls"] += 1

        def scatter_piece(worker, blocks):  # c_b straight to the worker holding X_b
            piece = np.concatenate([c[self.offsets[b]:self.offsets[b + 1]] for b in blocks])
            return self.client.scatter(piece, workers=[worker], direct=True, hash=False), piece.nbytes

        if self._lost_a_worker():  # a scatter to a worker that has left would wait for it until a timeout
            self._place()
        parts, _ = self._run(_blocks_rmatvec, scatter_piece)
        return np.sum(parts, axis=0)

    @property
    def T(self) -> _Transposed:
        """The transposed map c ↦ Xᵀc (``op.T @ c``)."""
        return _Transposed(self)

    def __array__(self, *args, **kwargs):
        raise TypeError(
            f"DaskRowOperator does not turn into a numpy array: that would gather X "
            f"({self.shape[0]} x {self.shape[1]}) in this process. Use op @ w and op.T @ c."
        )

    def close(self) -> None:
        """Release the persisted blocks on the workers."""
        self._futures = []
        self._X = None

    def communication_fraction(self) -> float:
        """Share of the products' wall time not spent in block products on the busiest worker.

        Returns
        -------
        fraction : float
            ``communication_seconds / seconds`` (0 before any product).
        """
        return self.stats["communication_seconds"] / self.stats["seconds"] if self.stats["seconds"] else 0.0


class _Transposed:
    def __init__(self, op):
        self._op = op
        self.shape = op.shape[::-1]

    def __matmul__(self, c):
        return self._op.rmatvec(c)


def _flatten(keys):
    if isinstance(keys, list):
        for k in keys:
            yield from _flatten(k)
    else:
        yield keys


# ============================================================================ targets on the driver
def _target_value(value):
    """A computed target or weight vector as numpy: a two-column frame becomes a survival target."""
    if isinstance(value, tuple):
        return tuple(_target_value(part) for part in value)
    if hasattr(value, "columns"):  # a pandas DataFrame
        if value.shape[1] == 1:
            return value.iloc[:, 0].to_numpy()
        if value.shape[1] != 2:
            raise ValueError(f"A target frame must have two columns (event, time); got {list(value.columns)}.")
        kinds = [value[c].dtype.kind for c in value.columns]
        event_col = value.columns[kinds.index("b")] if "b" in kinds else (
            "event" if "event" in value.columns else value.columns[0])
        time_col = next(c for c in value.columns if c != event_col)
        return survival_target(value[event_col].to_numpy(), value[time_col].to_numpy(dtype=float),
                               event_name=str(event_col), time_name=str(time_col))
    if hasattr(value, "to_numpy") and hasattr(value, "index"):  # a pandas Series
        return value.to_numpy()
    return value


# ============================================================================ the estimators' dask route
def fit_dask_linear_ranker(estimator, X, y, sample_weight=None, alpha_path=None):
    """Fit a linear Newton ranker (RankSVM, SurvivalRankSVM) on a dask collection.

    The same validation, pair set, objective, iterations and stopping rule as the in-memory
    fit. X stays on the workers (:class:`DaskRowOperator`). The coordination — the pair set
    from y, the Newton iterations with their sorted-pair evaluations on n-vectors, the alpha
    path, the threshold — runs in one task on a worker, which drives the block products of all
    workers through :func:`distributed.worker_client` (it leaves its thread slot while it
    waits, so one thread per worker suffices). y and the weights reach that worker as futures:
    the calling process sends the keys of X's blocks and receives the fitted attributes
    (O(d) floats and the iteration history), never an n-vector. Rows with zero
    ``sample_weight`` stay in X and enter no pair (the in-memory fit drops them: the same
    objective and solution). Warnings raised by the fit on the worker are raised again here.

    Losing a worker mid-fit does not end the fit when its data can be rebuilt: blocks of X
    computed from a dask graph are recomputed by the scheduler and the interrupted product is
    submitted again (:class:`DaskRowOperator`); when the coordinating worker leaves, the
    scheduler runs the coordination again on another worker, and in-memory y and weights lost
    with it are sent again. The fit is deterministic, so the solution is that of an undisturbed
    fit.

    Parameters
    ----------
    estimator : RankSVM or SurvivalRankSVM
        The estimator to fit (its parameters are validated).
    X : dask.array.Array or dask.dataframe.DataFrame of shape (n_samples, n_features)
        Training data.
    y : array-like, dask Array / Series / DataFrame, structured array or tuple
        Binary labels, or a survival target: a structured array, an (event, time) tuple, or a
        dask DataFrame of two columns whose boolean column is the event. In-memory values are
        scattered to the workers once.
    sample_weight : float, array-like or dask Array / Series of shape (n_samples,), default=None
        Per-sample weights.
    alpha_path : array-like of float, default=None
        Penalties solved first with warm starts (as in ``fit``).

    Returns
    -------
    estimator : object
        The fitted estimator; ``distributed_stats_`` holds the operator's transfer and timing
        totals (see :class:`DaskRowOperator`; bytes are counted at the coordinating worker),
        the workers that left during the products (``workers_lost``) and ``coordinator``, the
        address of the worker that ran the coordination.

    Raises
    ------
    ImportError
        When dask.distributed is not installed (the extra ``aucopt[dask]``).
    ValueError
        For invalid X, y or weights, or an empty pair set, as in memory; or no running client.
    ClusterDataLostError
        When data the fit needs is lost for good: a block of X, y or the weights that no dask
        graph describes (sent with ``client.scatter``) was on a worker that left, or the client
        closed during the fit. Nothing is fitted; the message names what was lost.

    See Also
    --------
    DaskRowOperator : The products over the blocks of X.

    References
    ----------
    Chapelle, O. and Keerthi, S. S. (2010). Efficient algorithms for ranking with SVMs.
    Information Retrieval, 13(3), 201-215.

    Examples
    --------
    >>> import numpy as np
    >>> import dask.array as da
    >>> from distributed import Client, LocalCluster
    >>> from aucopt import RankSVM
    >>> rng = np.random.default_rng(0)
    >>> X_np = rng.normal(size=(200, 3)); y = (X_np[:, 0] + 0.5 * rng.normal(size=200) > 0).astype(int)
    >>> with LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
    ...                   dashboard_address=":0") as cluster, Client(cluster) as client:
    ...     model = RankSVM(alpha=0.01).fit(da.from_array(X_np, chunks=(50, 3)), y)
    ...     ran_on_worker = model.distributed_stats_["coordinator"] in cluster.workers[0].address
    >>> ran_on_worker
    True
    >>> bool(np.allclose(model.coef_, RankSVM(alpha=0.01).fit(X_np, y).coef_, atol=1e-8))
    True
    """
    from sklearn.base import clone

    from ..exceptions import warn

    start = time.perf_counter()
    distributed = _require_distributed()
    estimator._validate_params()
    path = check_alpha_path(alpha_path)
    client = _current_client(distributed)
    if not is_dask_collection(X):
        raise TypeError(
            f"X is a {type(X).__name__} but y or sample_weight is a dask collection: pass X as a dask "
            "Array or DataFrame too, or compute y and sample_weight first."
        )
    X = client.persist(_as_dask_array(X, estimator, reset=True))
    estimator.n_features_in_ = int(X.shape[1])
    try:
        result = _run_coordination(client, clone(estimator), X, (y, sample_weight), path, alpha_path is not None)
    finally:
        del X  # the blocks of X leave the workers with the last reference
    for category, message in result["warnings"]:
        warn(message, category)
    for name, value in result["fitted"].items():
        setattr(estimator, name, value)
    estimator.distributed_stats_ = result["stats"]
    estimator.fit_time_ = time.perf_counter() - start
    return estimator


def _run_coordination(client, estimator, X, targets, path, has_path):
    """Run :func:`_coordinate` on a worker and return its result.

    The scheduler runs the task again on another worker when its worker leaves. When the in-memory
    targets were lost with that worker (scattered data, which no graph describes), they are sent
    again and the task is submitted again, up to ``distributed.scheduler.allowed-failures``
    times; the fit is deterministic, so the result is the same. Other losses raise
    :class:`ClusterDataLostError`, naming what was lost.
    """
    from distributed import futures_of

    keys = list(_flatten(X.__dask_keys__()))
    row_chunks = tuple(int(c) for c in X.chunks[0])
    offsets = np.concatenate([[0], np.cumsum(row_chunks)]).astype(np.int64)
    by_key = {f.key: f for f in futures_of(X)}
    blocks = [by_key[k] for k in keys]
    failures = 0
    while True:
        inputs = future = None
        try:
            _wait_for_blocks(client, blocks, offsets)
            inputs = _to_workers(targets, client)
            future = client.submit(_coordinate, estimator, keys, row_chunks, int(X.shape[1]), *inputs,
                                   path, has_path, pure=False)
            return future.result()
        except _LOSS_ERRORS as exc:
            if _client_closed(client):
                raise _client_closed_error(client) from exc
            lost_blocks = [b for b, f in enumerate(blocks) if f.cancelled()]
            if lost_blocks:
                raise _lost_blocks_error(lost_blocks, offsets) from exc
            if not isinstance(exc, CancelledError):
                raise
            sent_targets = zip(("y", "sample_weight"), inputs or (None, None), strict=False)
            lost = [name for name, sent in sent_targets if any(f.cancelled() for f in _futures_in(sent))]
            if not lost:
                raise ClusterDataLostError(
                    f"The task running the fit was cancelled on the cluster ({exc}): nothing was fitted. A "
                    "client.restart(), client.cancel() or a scheduler restart during the fit cancels it; fit again."
                ) from exc
            graphs = [name for name, value in zip(("y", "sample_weight"), targets, strict=False)
                      if name in lost and _contains_dask(value)]
            if graphs:
                raise ClusterDataLostError(
                    f"{' and '.join(graphs)} (a dask collection) {'was' if len(graphs) == 1 else 'were'} lost with a "
                    "worker that left the cluster and cannot be recomputed: its graph depends on scattered data. "
                    "Build it from a graph (e.g. dask.array.from_array) or pass it as a numpy array, and fit again.",
                    lost=graphs) from exc
            if failures >= _allowed_failures():
                raise ClusterDataLostError(
                    f"{' and '.join(lost)}, sent to the cluster from this process, "
                    f"{'was' if len(lost) == 1 else 'were'} lost with a worker that left, {failures + 1} times: "
                    "check the workers' logs (memory limit, crashes), then fit again.", lost=lost) from exc
            failures += 1  # in-memory targets: this process still has them, send them again
        finally:
            if future is not None:
                future.release()
            del inputs


def _futures_in(obj) -> list:
    from distributed import Future

    if isinstance(obj, tuple):
        return [f for part in obj for f in _futures_in(part)]
    return [obj] if isinstance(obj, Future) else []


def _contains_dask(obj) -> bool:
    if isinstance(obj, tuple):
        return any(_contains_dask(part) for part in obj)
    return is_dask_collection(obj)


def _to_workers(obj, client):
    """Targets and weights for the coordinating task: dask collections as futures of their values,
    in-memory arrays scattered once, scalars and None as given."""
    if isinstance(obj, tuple):
        return tuple(_to_workers(part, client) for part in obj)
    if is_dask_collection(obj):
        return client.compute(obj)
    if obj is None or np.isscalar(obj):
        return obj
    return client.scatter([obj], hash=False)[0]


def _coordinate(estimator, keys, row_chunks, n_features, y, sample_weight, path, has_path):
    """The fit, run in a task on a worker: pairs, Newton path and threshold; returns small results."""
    import warnings

    from distributed import worker_client

    with warnings.catch_warnings(record=True) as caught, worker_client() as client:
        warnings.simplefilter("always")
        stats = _fit_on_worker(estimator, keys, row_chunks, n_features, _target_value(y),
                               _target_value(sample_weight), path, has_path, client)
    fitted = {k: v for k, v in vars(estimator).items() if k.endswith("_") and not k.startswith("_")}
    return {"fitted": fitted, "stats": stats,
            "warnings": [(w.category, str(w.message)) for w in caught]}


def _fit_on_worker(estimator, keys, row_chunks, n_features, y, sample_weight, path, has_path, client):
    """Validate y and the weights, build the pairs, run Newton on the blocks; the operator's stats."""
    survival = not hasattr(estimator, "pos_label")
    if survival:
        if isinstance(y, tuple) and len(y) == 2:
            y = survival_target(*y)
    elif y is not None and not is_survival_target(y):
        y = column_or_1d(y, warn=True)
    n = int(np.sum(row_chunks))
    sample_weight = check_point_weights(sample_weight, n, "sample_weight")
    if sample_weight is not None:
        check_weight_underflow(sample_weight)
    pairs = checked_pairs(estimator, y, sample_weight, n)
    op = DaskRowOperator._from_keys(keys, row_chunks, n_features, client)
    try:
        estimator._newton_path(op, pairs, path, path if has_path else None)
        scores = op @ estimator.coef_ if not survival else None
    finally:
        stats = _public_stats(op)
        stats["coordinator"] = _worker_address()
        op.close()
    kept = np.ones(n, bool) if sample_weight is None else sample_weight > 0
    if not kept.all():  # count the pairs as the in-memory fit does: among the rows of positive weight
        rows = np.flatnonzero(kept)
        estimator._fit_rows = (rows, y)
        try:
            estimator.n_pairs_ = estimator._make_pairs(y[rows], sample_weight[rows]).n_pairs
        finally:
            del estimator._fit_rows
    if not survival:  # classes_, and for binary labels pos_label_, threshold_, intercept_ (as in memory)
        estimator._set_target_attributes(scores, y, np.asarray(y)[kept], sample_weight)
    estimator.n_samples_fit_ = int(kept.sum())
    return stats


def _public_stats(op):
    stats = dict(op.stats)
    stats["worker_seconds"] = dict(stats["worker_seconds"])
    stats["communication_fraction"] = op.communication_fraction()
    stats["placement"] = {w: list(b) for w, b in op.placement.items()}
    return stats


def dask_linear_scores(estimator, X):
    """The lazy scores Xw of a fitted linear ranker on a dask collection (one task per block).

    Parameters
    ----------
    estimator : fitted RankSVM or SurvivalRankSVM
        Its ``coef_`` (and feature names) are used.
    X : dask.array.Array or dask.dataframe.DataFrame of shape (n_samples, n_features)

    Returns
    -------
    scores : dask.array.Array of shape (n_samples,)

    Raises
    ------
    ValueError
        When X has another number of features than the fitted data.

    Examples
    --------
    >>> import numpy as np
    >>> import dask.array as da
    >>> from aucopt import RankSVM
    >>> from aucopt.distributed._newton import dask_linear_scores
    >>> model = RankSVM(alpha=0.1).fit(np.array([[1.0], [0.0], [2.0], [-1.0]]), [1, 0, 1, 0])
    >>> scores = dask_linear_scores(model, da.from_array(np.array([[1.0], [3.0]]), chunks=1))
    >>> bool(np.allclose(scores.compute(), model.coef_[0] * np.array([1.0, 3.0])))
    True
    """
    _require_dask()
    check_is_fitted(estimator, "coef_")
    X = _as_dask_array(X, estimator, reset=False)
    if X.shape[1] != estimator.n_features_in_:
        raise ValueError(f"X has {X.shape[1]} features, but {type(estimator).__name__} is expecting "
                         f"{estimator.n_features_in_} features as input.")
    return X.map_blocks(_block_scores, np.asarray(estimator.coef_), drop_axis=1, dtype=np.float64)


def dask_labels(scores, classes):
    """Class labels ``classes[score > 0]`` of a lazy score array, block by block."""
    return scores.map_blocks(_block_labels, np.asarray(classes), dtype=np.asarray(classes).dtype)
