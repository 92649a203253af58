"""The memory model: what each path allocates at its peak, and which path fits a budget.

One estimate function per path, each built from the measured constants below; every guard
(``max_bytes``) calls one of them *before* the first large allocation and raises
:class:`~aucopt.exceptions.ProblemTooLargeError` through :func:`refuse`, whose message names
the first alternative path whose own estimate fits the same budget (:func:`first_fit`).

How the constants were measured: each configuration ran in a fresh process (Linux, numpy with
OpenBLAS, HiGHS 1.x and OSQP 1.x as installed), on Gaussian features (10 columns) and random
labels; the peak resident set (``ru_maxrss``) minus the resident set just before the measured
step, divided by the count it is charged to. Two shapes (lifted LP rows: few nonzeros per
row; dense pair rows or a dense kernel factor: many) separate the per-nonzero from the per-row
and per-column cost of a solver by solving the two equations. ``benchmarks/memory_estimates.py``
re-measures the whole fits against these estimates (docs/benchmarks.md holds its table).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .exceptions import check_memory

# ----------------------------------------------------------------------------- constants
#: one float64 entry
FLOAT = 8

#: evaluating a dense kernel block of N entries peaks at about two float64 arrays of N entries
#: (scikit-learn's rbf_kernel: the squared distances and -2XYᵀ before the in-place exp, plus
#: the finiteness mask). Counted from the code; consistent with the factor measurement below.
KERNEL_EVAL_COPIES = 2.0

#: AUCSVM's kernel factor L (K = L Lᵀ by ``numpy.linalg.eigh``): K, its symmetrized copy,
#: eigh's input copy, eigenvectors and LAPACK workspace, the symmetry check's temporaries and L.
#: Measured 6.3 x 8n² at n = 1,500 and 6.1 x 8n² at n = 3,000 (RBF kernel, full rank).
KERNEL_FACTOR_COPIES = 6.5

#: Bytes per nonzero / per row-or-column that the builder (``Formulation.build``: pair arrays,
#: COO blocks, ``vstack``, CSR and CSC conversions) needs at its peak. LP: lifted LP ranker at
#: 600 points (630k nonzeros, 181k rows + columns: 36.5 MB) and the dense LP at 200 points
#: (1.98M nonzeros, 20k rows + columns: 96 MB). QP: the AUCSVM dual with a linear factor at
#: 800 points (329k nonzeros, 161k rows + columns: 38.8 MB) and with a full-rank RBF factor at
#: 1,200 points (1.49M nonzeros, 28k rows + columns: 58 MB).
BUILD_BYTES = {"lp": (48.0, 33.0), "qp": (36.0, 168.0)}

#: The assembled problem kept during the solve: CSC values and indices (12 bytes per nonzero)
#: and the float64 vectors (costs, bounds) per row and column. Counted from ``Problem``.
PROBLEM_BYTES = (12.0, 40.0)

#: The solver's own working memory above the assembled problem, as (bytes per nonzero, bytes
#: per row-or-column). HiGHS LP (dual simplex): lifted LP at 600 points (+188 MB) and the
#: dense LP at 200 points (+204 MB). OSQP QP (the KKT matrix and its LDLᵀ factor): the AUCSVM
#: dual at 800 points with a linear factor (+99 MB) and at 1,200 points with an RBF factor
#: (+81 MB, 50 iterations: the factor is allocated at setup). HiGHS QP and OSQP LP were not
#: measured separately: HiGHS QP takes HiGHS's LP figure (its QP solver keeps the same
#: simplex factor plus a dense reduced Hessian), OSQP LP takes OSQP's QP figure (the same
#: KKT factor), and other backends (cvxpy) the larger of the two.
#: OSQP was re-fitted to the whole-fit measurements of ``benchmarks/memory_estimates.py`` (the
#: AUCSVM dual at 700 points with an RBF factor and at 3,000 points with a linear one, after a
#: warm-up fit): the first constants (44, 522) under-counted those fits by a factor 1.4-1.6.
SOLVER_BYTES = {
    "highs": (96.0, 704.0),
    "osqp": (107.0, 662.0),
}
OTHER_SOLVER_BYTES = (96.0, 704.0)

#: RankRC / SurvivalRankRC: the m x r kernel block and the design M = K_mR T (two m x r
#: arrays; the block's evaluation temporaries are of the same size) and r x r arrays for the
#: basis block, eigh's copy, eigenvectors, workspace and T (six). Measured 74 MB at
#: m = 3,000, r = 907 (model 83 MB) and 266 MB at m = 6,000, r = 1,790 (model 326 MB).
RANKRC_BLOCK_COPIES, RANKRC_BASIS_COPIES = 2.0, 6.0

#: SparseAUC: the l x d_max block of chosen columns, the l x kappa candidate block and its
#: three same-size temporaries per step (Hessian products, |K|, the line-search columns).
#: Counted from the code.
SPARSE_BLOCK_COPIES, SPARSE_CANDIDATE_COPIES = 1.0, 4.0

#: Local clustering: pdist's condensed vector (m²/2) and the square m x m matrix. Counted.
CLUSTERING_COPIES = 1.5

#: Chunking's partition of the pairs: chunk label (int64), chunk index lists (int64), two
#: boolean masks. Counted.
CHUNKING_BYTES_PER_PAIR = 8 + 8 + 1 + 1

#: The pair-difference routes of AUCSVM (float64 entries of Z = x_i - x_j, per stored entry):
#: Z, the stacked [Z; -Z] and liblinear's own copy (16-byte feature nodes) of the stack: 8 +
#: 16 + 32 bytes per entry of Z. k-means: Z and scikit-learn's centered copy. Counted.
LIBLINEAR_BYTES_PER_ENTRY, KMEANS_BYTES_PER_ENTRY = 56.0, 16.0

#: pair arrays (int32 i, int32 j, float64 w)
PAIR_BYTES = 4 + 4 + 8

#: AUCSVM's dual coordinate descent, per pair (see :func:`aucsvm_dcd_bytes`)
DCD_BYTES_PER_PAIR = 56.0


# ----------------------------------------------------------------------------- estimates
def kernel_bytes(n_rows: int, n_cols: int | None = None) -> float:
    """Peak bytes of evaluating an ``n_rows x n_cols`` kernel block (square when n_cols is None).

    Examples
    --------
    >>> kernel_bytes(1000) / 1e6
    16.0
    """
    return KERNEL_EVAL_COPIES * FLOAT * float(n_rows) * float(n_rows if n_cols is None else n_cols)


def _solver_bytes(solver: str) -> tuple[float, float]:
    return SOLVER_BYTES.get(str(solver).strip().lower(), OTHER_SOLVER_BYTES)


def problem_bytes(nnz: float, rows: float, cols: float, *, kind: str = "lp", solver: str = "highs") -> float:
    """Peak bytes of building and solving a problem of ``nnz`` nonzeros, ``rows`` rows, ``cols`` columns.

    The larger of the builder's peak and the assembled problem plus the solver's working memory.

    Examples
    --------
    >>> problem_bytes(1e6, 1e5, 1e5, solver="highs") / 1e6
    256.8
    """
    b_nnz, b_rc = BUILD_BYTES["qp" if kind == "qp" else "lp"]
    s_nnz, s_rc = _solver_bytes(solver)
    p_nnz, p_rc = PROBLEM_BYTES
    rc = float(rows) + float(cols)
    build = b_nnz * nnz + b_rc * rc
    solve = (p_nnz + s_nnz) * nnz + (p_rc + s_rc) * rc
    return float(max(build, solve))


def lp_ranker_size(n_points: int, n_pairs: int, n_basis: int, *, lifted: bool = True,
                   nnz: float | None = None) -> tuple[float, float, float]:
    """(nonzeros, rows, columns) of the LP Ranker (``nnz`` overrides the declared count).

    Examples
    --------
    >>> lp_ranker_size(4, 4, 4)
    (32.0, 8.0, 12.0)
    """
    m, P, r = float(n_points), float(n_pairs), float(n_basis)
    if lifted:
        count = m * (r + 1) + 3 * P
        rows, cols = m + P, r + m + P
    else:
        count = P * (r + 1)
        rows, cols = P, r + P
    return float(count if nnz is None else nnz), rows, cols


def lp_bytes(n_points: int, n_pairs: int, n_basis: int | None = None, *, lifted: bool = True,
             solver: str = "highs", nnz: float | None = None) -> float:
    """Peak bytes of the full LP (``LPRanker(method="full")``): kernel, builder, solver.

    Parameters
    ----------
    n_points, n_pairs : int
        Points and pairs.
    n_basis : int, default=None
        Columns of the kernel matrix (``n_points`` when None).
    lifted : bool, default=True
        Lifted or dense pair rows.
    solver : str, default="highs"
        The backend.
    nnz : float, default=None
        The formulation's declared nonzeros (default: the LP Ranker's).

    Examples
    --------
    >>> round(lp_bytes(3000, 2_250_000) / 1e9, 1)   # the full LP on 3,000 balanced points
    5.1
    """
    r = n_points if n_basis is None else n_basis
    count, rows, cols = lp_ranker_size(n_points, n_pairs, r, lifted=lifted, nnz=nnz)
    kernel = FLOAT * float(n_points) * float(r)
    return float(max(kernel_bytes(n_points, r), kernel + problem_bytes(count, rows, cols, kind="lp",
                                                                          solver=solver)))


def dual_qp_size(n_points: int, n_pairs: int, rank: int, *, loss: str = "hinge",
                 factor_nnz: float | None = None) -> tuple[float, float, float]:
    """(nonzeros, rows, columns) of the AUCSVM dual QP (as the formulations declare them).

    ``factor_nnz`` replaces the dense factor's n·rank entries (a sparse linear factor X).

    Examples
    --------
    >>> dual_qp_size(3, 2, 1)
    (12.0, 4.0, 6.0)
    """
    n, P, r = float(n_points), float(n_pairs), float(rank)
    block = n * r if factor_nnz is None else float(factor_nnz)
    count = (3 if loss == "squared_hinge" else 2) * P + n + block + 2 * r
    return count, n + r, P + n + r


def dual_qp_bytes(n_points: int, n_pairs: int, rank: int, *, loss: str = "hinge",
                  solver: str = "osqp", factor_nnz: float | None = None) -> float:
    """Peak bytes of the AUCSVM dual QP for a factor of ``rank`` columns (``d`` for the linear kernel).

    Examples
    --------
    >>> round(dual_qp_bytes(20_000, 10**8, 10) / 1e9, 1)  # 20,000 points, linear kernel, 10 features
    94.1
    """
    count, rows, cols = dual_qp_size(n_points, n_pairs, rank, loss=loss, factor_nnz=factor_nnz)
    factor = FLOAT * (float(n_points) * float(rank) if factor_nnz is None else 1.5 * float(factor_nnz))
    return factor + problem_bytes(count, rows, cols, kind="qp", solver=solver)


def kernel_factor_bytes(n: int) -> float:
    """Peak bytes of AUCSVM's kernel factor (n x n kernel and ``eigh``).

    Examples
    --------
    >>> round(kernel_factor_bytes(12_000) / 1e9, 2)
    7.49
    """
    return KERNEL_FACTOR_COPIES * FLOAT * float(n) * float(n)


def aucsvm_kernel_bytes(n_points: int, n_pairs: int, *, loss: str = "hinge", solver: str = "osqp") -> float:
    """Peak bytes of AUCSVM with a nonlinear kernel: the factor, then the dual QP at full rank.

    The rank of the factor is not known before ``eigh``; the estimate takes the full rank n
    (RBF kernels on distinct points are of full numerical rank).
    """
    return max(kernel_factor_bytes(n_points), dual_qp_bytes(n_points, n_pairs, n_points, loss=loss, solver=solver))


def pair_difference_bytes(n_pairs: int, entries_per_row: float, *, route: str = "liblinear") -> float:
    """Peak bytes of AUCSVM's ``"liblinear"`` or ``"kmeans"`` route on Z (``entries_per_row`` per pair)."""
    per = LIBLINEAR_BYTES_PER_ENTRY if route == "liblinear" else KMEANS_BYTES_PER_ENTRY
    return float(n_pairs) * (per * float(entries_per_row) + PAIR_BYTES + 32)


def rankrc_bytes(n_points: int, n_basis: int) -> float:
    """Peak bytes of RankRC's design: the m x r block, its whitened copy and the r x r eigh.

    Examples
    --------
    >>> round(rankrc_bytes(20_000, 10_000) / 1e9, 1)  # the default (rare-class) basis, balanced
    8.0
    """
    m, r = float(n_points), float(n_basis)
    return FLOAT * (RANKRC_BLOCK_COPIES * m * r + RANKRC_BASIS_COPIES * r * r)


def rankrc_max_basis(n_points: int, max_bytes: float) -> int:
    """The largest basis size whose :func:`rankrc_bytes` fits ``max_bytes`` (0 when none does)."""
    a, b, c = RANKRC_BASIS_COPIES * FLOAT, RANKRC_BLOCK_COPIES * FLOAT * n_points, -float(max_bytes)
    r = int((-b + math.sqrt(b * b - 4 * a * c)) / (2 * a))
    while r > 0 and rankrc_bytes(n_points, r) > max_bytes:
        r -= 1
    return max(0, min(r, int(n_points)))


def sparse_auc_bytes(n_rows: int, max_basis: int, n_candidates: int) -> float:
    """Peak bytes of SparseAUC: the chosen columns and the candidate block with its temporaries."""
    return FLOAT * float(n_rows) * (SPARSE_BLOCK_COPIES * max_basis + SPARSE_CANDIDATE_COPIES * n_candidates)


def clustering_bytes(n_points: int) -> float:
    """Peak bytes of local clustering (the m x m distance matrix and pdist's condensed vector)."""
    return CLUSTERING_COPIES * FLOAT * float(n_points) ** 2


def subgradient_bytes(n_points: int) -> float:
    """Peak bytes of the subgradient route: the kernel matrix (the iteration itself is O(m))."""
    return kernel_bytes(n_points)


#: entries of one kernel block that row-and-column generation computes at a time
GENERATION_BLOCK_ENTRIES = 1 << 24


def generation_work_bytes(n_points: int, n_pairs: int, *, n_columns: int | None = None) -> float:
    """Peak bytes of row-and-column generation without the kernel matrix (the kernel is read in blocks).

    A one-byte mask per pair, a kernel block of ``GENERATION_BLOCK_ENTRIES`` entries, O(m) work
    arrays and the restricted LP, taken at ``n_columns`` ranking vectors (default min(m, 500))
    with a score row per point and four pair rows per point.

    Examples
    --------
    >>> generation_work_bytes(10_000, 25_000_000) < 2 ** 30
    True
    """
    m = float(n_points)
    cols = min(m, 500.0) if n_columns is None else float(n_columns)
    rows = 4.0 * m
    lp = problem_bytes(m * cols + 3.0 * rows, m + rows, cols + m + rows, kind="lp", solver="highs")
    return float(n_pairs) + FLOAT * min(float(GENERATION_BLOCK_ENTRIES), m * m) + 64.0 * m + lp


def smoothing_work_bytes(n_points: int, max_columns: int) -> float:
    """Peak bytes of the smoothing route beside the kernel matrix (which it may evaluate in blocks).

    Per Newton step: the working set's kernel rows and their Hessian products (two w x m
    arrays, plus the previous step's rows kept for reuse), four w x w arrays (the Hessian
    block, its regularized copy, the active-set solver's factor and submatrix) and O(m) arrays.

    Examples
    --------
    >>> smoothing_work_bytes(10_000, 1_000) < 2 ** 30
    True
    """
    m, w = float(n_points), float(max_columns)
    return FLOAT * (3.0 * m * w + 4.0 * w * w + 40.0 * m)


def chunking_work_bytes(n_points: int, n_pairs: int, *, n_chunks: int = 5, solver: str = "highs") -> float:
    """Peak bytes chunking adds to the kernel matrix: the pair partition and a restricted LP.

    The restricted LP is taken at about 2·P/n_chunks pairs (a chunk and the retained pairs).
    """
    restricted = min(float(n_pairs), 2.0 * float(n_pairs) / max(int(n_chunks), 1))
    count, rows, cols = lp_ranker_size(n_points, restricted, n_points)
    return (CHUNKING_BYTES_PER_PAIR * float(n_pairs) + PAIR_BYTES * restricted
            + problem_bytes(count, rows, cols, kind="lp", solver=solver))


def chunking_bytes(n_points: int, n_pairs: int, *, n_chunks: int = 5, solver: str = "highs") -> float:
    """Peak bytes of chunking: the kernel matrix, then :func:`chunking_work_bytes` beside it.

    Examples
    --------
    >>> chunking_bytes(100, 2500) > chunking_work_bytes(100, 2500) > 0
    True
    """
    kernel = FLOAT * float(n_points) ** 2
    return max(kernel_bytes(n_points), kernel + chunking_work_bytes(n_points, n_pairs, n_chunks=n_chunks,
                                                                    solver=solver))


def ranksvm_bytes(n_points: int, n_features: int) -> float:
    """Peak bytes of RankSVM (truncated Newton on X, never lists pairs): X's copy and O(m) work."""
    return FLOAT * float(n_points) * (float(n_features) + 32)


# ----------------------------------------------------------------------------- suggestions
@dataclass(frozen=True)
class Route:
    """An alternative path: the estimator (an aucopt class name), its parameters and its estimate."""

    estimator: str
    params: dict
    nbytes: float
    note: str = ""

    def label(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{self.estimator}({args})" + (f" ({self.note})" if self.note else "")


def first_fit(routes, max_bytes):
    """The first route whose estimate fits ``max_bytes`` (None when none does)."""
    for route in routes:
        if max_bytes is None or route.nbytes <= max_bytes:
            return route
    return None


def refuse(nbytes: float, max_bytes, what: str, routes=(), fallback: str = "subsample the data") -> None:
    """Raise :class:`ProblemTooLargeError` when ``nbytes > max_bytes``, naming the first route that fits.

    ``routes`` may be a callable returning the candidate routes (evaluated only on refusal).
    The error's ``suggestion`` attribute holds the chosen :class:`Route` (None: ``fallback``).
    """
    if max_bytes is None or nbytes <= max_bytes:
        return
    route = first_fit(routes() if callable(routes) else routes, max_bytes)
    fix = fallback if route is None else f"use {route.label()}"
    check_memory(nbytes, max_bytes, what, fix, suggestion=route)


def kernel_ranker_routes(n_points: int, survival: bool = False, *, max_bytes=None, exclude=(),
                         linear_first: bool = False, n_features: int = 0):
    """RankRC with the largest basis that fits, then the linear RankSVM (both never list pairs).

    ``linear_first`` puts RankSVM first (for a refused linear model)."""
    prefix = "Survival" if survival else ""
    routes = []
    if max_bytes is not None:
        size = rankrc_max_basis(n_points, max_bytes)
        if size >= 1:
            routes.append(Route(f"{prefix}RankRC", {"basis": "random", "basis_size": size},
                                rankrc_bytes(n_points, size)))
    linear = Route(f"{prefix}RankSVM", {}, ranksvm_bytes(n_points, n_features), "linear; never lists pairs")
    routes = [linear] + routes if linear_first else routes + [linear]
    return [r for r in routes if r.estimator not in exclude]


def lp_routes(n_points: int, n_pairs: int, *, survival: bool = False, solver: str = "highs",
              max_bytes=None, exclude=()):
    """Alternatives to a refused LP Ranker route: smoothing (kernel in blocks), generation, chunking,
    subgradient, then the kernel rankers."""
    prefix = "Survival" if survival else ""
    routes = [Route(f"{prefix}LPRanker", {"method": "smoothing"}, smoothing_work_bytes(n_points, min(n_points, 50)),
                    "certified gap; the kernel in blocks when it does not fit"),
              Route(f"{prefix}LPRanker", {"method": "generation"}, generation_work_bytes(n_points, n_pairs)),
              Route(f"{prefix}LPRanker", {"method": "chunking"}, chunking_bytes(n_points, n_pairs, solver=solver)),
              Route(f"{prefix}LPRanker", {"method": "subgradient"}, subgradient_bytes(n_points))]
    routes = [r for r in routes if r.params.get("method") not in exclude]
    return routes + kernel_ranker_routes(n_points, survival, max_bytes=max_bytes)


def aucsvm_routes(n_points: int, n_pairs: int, n_features: int, entries_per_row: float, *, loss: str = "hinge",
                  solver: str = "osqp", survival: bool = False, max_bytes=None, exclude=(),
                  factor_nnz: float | None = None):
    """Alternatives to a refused AUCSVM route: its linear routes, then RankRC / RankSVM."""
    prefix = "Survival" if survival else ""
    linear = [
        Route(f"{prefix}AUCSVM", {"kernel": "linear", "method": "full"},
              dual_qp_bytes(n_points, n_pairs, n_features, loss=loss, solver=solver, factor_nnz=factor_nnz)),
        Route(f"{prefix}AUCSVM", {"kernel": "linear", "method": "liblinear"},
              pair_difference_bytes(n_pairs, entries_per_row, route="liblinear")),
        Route(f"{prefix}AUCSVM", {"kernel": "linear", "method": "kmeans"},
              pair_difference_bytes(n_pairs, entries_per_row, route="kmeans")),
    ]
    linear = [r for r in linear if r.params["method"] not in exclude]
    return linear + kernel_ranker_routes(n_points, survival, max_bytes=max_bytes, linear_first=True,
                                         n_features=n_features)


def aucsvm_dcd_bytes(n_points: int, n_pairs: int, n_features: int, kernel: str) -> float:
    """Peak bytes of AUCSVM's dual coordinate descent: the pair list, its solver state and K (or X).

    Per pair, ``DCD_BYTES_PER_PAIR``: the pair list (int32 i and j, float64 w), α, Q_pp, the
    active index (int32, built from an int64 index), the rescaled α and the support mask.
    Measured 48.5 bytes a pair (RSS peak minus the RSS before ``fit``, 1e6 and 4e6 pairs, RBF
    and linear kernels, 2,000-4,000 points); counted 56 with a warm start's starting point. The
    data: the dense n × d data and its rescaled copy (linear kernel: K is never formed), or the
    n × n kernel matrix with its evaluation temporaries or its rescaled / symmetrized copies
    (other kernels; no factor).

    Examples
    --------
    >>> aucsvm_dcd_bytes(1000, 10**6, 5, "rbf") < aucsvm_bytes("full", "rbf", 1000, 10**6, 5, 5)
    True
    >>> round(aucsvm_dcd_bytes(6_325, 10**7, 10, "linear") / 1e9, 2)  # 1e7 pairs, 10 features
    0.56
    """
    columns = float(n_features) if kernel == "linear" else float(n_points)
    data = FLOAT * float(n_points) * columns * (2 if kernel == "linear" else 3)
    return DCD_BYTES_PER_PAIR * float(n_pairs) + data


def aucsvm_bytes(method: str, kernel: str, n_points: int, n_pairs: int, n_features: int,
                 entries_per_row: float, *, loss: str = "hinge", solver: str = "osqp",
                 factor_nnz: float | None = None) -> float:
    """Peak bytes of an AUCSVM fit by route: ``"liblinear"``, ``"kmeans"``, or ``"full"`` (linear or kernel).

    Examples
    --------
    >>> aucsvm_bytes("full", "rbf", 1000, 1000, 5, 5) > aucsvm_bytes("full", "linear", 1000, 1000, 5, 5)
    True
    """
    if method in ("liblinear", "kmeans"):
        return pair_difference_bytes(n_pairs, entries_per_row, route=method)
    if method == "dcd":
        return aucsvm_dcd_bytes(n_points, n_pairs, n_features, kernel)
    if kernel == "linear":
        return dual_qp_bytes(n_points, n_pairs, n_features, loss=loss, solver=solver, factor_nnz=factor_nnz)
    return aucsvm_kernel_bytes(n_points, n_pairs, loss=loss, solver=solver)


def check_aucsvm(X, pairs, *, method: str, kernel: str, loss: str, solver: str, max_bytes) -> None:
    """Refuse an AUCSVM fit whose route would exceed ``max_bytes``, before any pair or kernel work."""
    import scipy.sparse as sp

    n, P, d = pairs.n_points, pairs.n_pairs, X.shape[1]
    sparse = sp.issparse(X)
    per_row = 2.0 * X.nnz / max(X.shape[0], 1) if sparse else float(d)
    factor_nnz = float(X.nnz) if sparse and kernel == "linear" else None
    name = kernel if isinstance(kernel, str) else "callable"
    need = aucsvm_bytes(method, name, n, P, d, per_row, loss=loss, solver=solver, factor_nnz=factor_nnz)
    if method in ("liblinear", "kmeans"):
        what = f"The {method} route over {P:,} pair differences of {d:,} features"
        exclude = (method,)
    elif method == "dcd":
        what = (f"Dual coordinate descent over {P:,} pairs of {n:,} points ({name} kernel: the pair list and "
                + ("the dense data)" if name == "linear" else "the kernel matrix)"))
        exclude = ("dcd",)
    elif name == "linear":
        what = f"The dual QP over {P:,} pairs of {n:,} points (linear kernel, {d:,} features)"
        exclude = ("full",)
    else:
        what = (f"The {n:,} x {n:,} kernel factor and the dual QP over {P:,} pairs "
                f"({name} kernel, full rank)")
        exclude = ()
    survival = pairs.target == "survival"
    refuse(need, max_bytes, what,
           lambda: aucsvm_routes(n, P, d, per_row, loss=loss, solver=solver, survival=survival,
                                 max_bytes=max_bytes, exclude=exclude, factor_nnz=factor_nnz)
           if name == "linear" or method != "full" else kernel_ranker_routes(n, survival, max_bytes=max_bytes))


def pair_free_routes(n_points: int, survival: bool = False, *, max_bytes=None):
    """Paths that never list pairs: the LP Ranker's subgradient route, RankRC, RankSVM."""
    prefix = "Survival" if survival else ""
    return ([Route(f"{prefix}LPRanker", {"method": "subgradient"}, subgradient_bytes(n_points))]
            + kernel_ranker_routes(n_points, survival, max_bytes=max_bytes))


def rankrc_routes(estimator: str, n_points: int, *, survival: bool = False, max_bytes=None):
    """Alternatives to a refused RankRC basis: the largest random basis that fits, then RankSVM."""
    routes = kernel_ranker_routes(n_points, survival, max_bytes=max_bytes)
    return [Route(estimator, r.params, r.nbytes) if r.estimator.endswith("RankRC") else r for r in routes]


def sparse_auc_routes(estimator: str, n_rows: int, n_candidates: int, *, survival: bool = False, max_bytes=None):
    """Alternatives to a refused SparseAUC: the largest ``basis_size`` that fits, then RankRC / RankSVM."""
    routes = []
    if max_bytes is not None:
        per_column = FLOAT * float(n_rows) * SPARSE_BLOCK_COPIES
        size = int((float(max_bytes) - sparse_auc_bytes(n_rows, 0, n_candidates)) // per_column)
        size = min(size, int(n_rows))
        if size >= 1:
            routes.append(Route(estimator, {"basis_size": size}, sparse_auc_bytes(n_rows, size, n_candidates)))
        kappa = min(10, int(n_candidates))
        size = min(int((float(max_bytes) - sparse_auc_bytes(n_rows, 0, kappa)) // per_column), int(n_rows), 64)
        if size >= 1:
            routes.append(Route(estimator, {"basis_size": size, "kappa": kappa},
                                sparse_auc_bytes(n_rows, size, kappa)))
    return routes + kernel_ranker_routes(n_points=n_rows, survival=survival, max_bytes=max_bytes)
