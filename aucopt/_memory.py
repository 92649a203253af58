"""The memory model: what each path allocates at its peak, and which path fits a budget.

One estimate function per path, each built from the measured constants below; every guard
(``max_bytes``) calls one of them *before* the first large allocation and raises
:class:`~aucopt.exceptions.ProblemTooLargeError` through :func:`refuse`, whose message names
the first alternative path whose own estimate fits the same budget (:func:`first_fit`).

What is estimated: the memory the whole ``fit`` adds, at its peak, with the features given as
a float64 array (another dtype or layout adds one converted copy of X): validation, the
route's arrays, the solver's working memory, the training scores and the fitted attributes.
How the constants were measured: each configuration ran in a fresh process (Linux, numpy with
OpenBLAS, HiGHS 1.x and OSQP 1.x as installed) on Gaussian features and random labels, after a
warm-up fit; the measure is the larger of the tracemalloc peak (every Python and numpy
allocation, written or not) and the peak resident set minus the resident set before the fit
(what native solvers allocate). Constants counted from the code were checked against a
tracemalloc snapshot at the peak. ``benchmarks/memory_estimates.py`` re-measures every route
against these estimates, at two or three sizes each, with the target measured ≤ estimate ≤
1.5 x measured (docs/benchmarks.md holds its table).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Any

from .exceptions import check_memory

# ----------------------------------------------------------------------------- constants
#: one float64 entry
FLOAT = 8

#: evaluating a dense kernel block of N entries peaks at one float64 array of N entries and the
#: one-byte finiteness mask (scikit-learn's kernels work in place on their output). Measured by
#: tracemalloc: 9.04 bytes an entry (RBF and polynomial kernels, 2,000 x 2,000 and 3,333 x 3,333).
KERNEL_EVAL_COPIES = 1.125

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
#: Both were re-fitted to the whole-fit measurements of ``benchmarks/memory_estimates.py`` (the
#: larger of the peak resident set and the tracemalloc peak: OSQP allocates its workspace
#: through Python's allocator, partly never written). OSQP: the AUCSVM dual with an RBF factor
#: at 500 and 700 points and with a linear one at 1,000 and 2,000 points fit 106 bytes per
#: nonzero and 841 per row or column in all (problem and solver); HiGHS: the full LP Ranker at
#: 250 and 400 points measured 1.06-1.08 times the earlier constants (96, 704). The constants
#: below are those fits plus about 10 %.
SOLVER_BYTES = {
    "highs": (112.0, 816.0),
    "osqp": (105.0, 885.0),
}
OTHER_SOLVER_BYTES = (112.0, 885.0)

#: RankRC / SurvivalRankRC, in two phases. The basis eigendecomposition: the m x r kernel block
#: (with its evaluation mask) beside r x r arrays: the basis block, eigh's copy, the
#: eigenvectors and LAPACK's workspace (two), one more for the eigenvalues and slack (six). The
#: design M = K_mR T: two m x r arrays (the block and M) and two r x r (the eigenvectors and T).
#: Counted from a tracemalloc snapshot at the peak (m = 3,000, r = 907: the design phase, 56.8
#: MB traced); the resident peaks are 4-8 % above the traced ones (61, 234 and 537 MB at m =
#: 3,000, 6,000 and 9,000 with the rare class, 30 %, as the basis), which the eigendecomposition
#: phase covers with six and a half r x r arrays.
RANKRC_EIGH_COPIES, RANKRC_DESIGN_BLOCK_COPIES, RANKRC_DESIGN_BASIS_COPIES = 6.5, 2.0, 2.0

#: SparseAUC: the l x d_max block of chosen columns (allocated once), then per step the larger
#: of the l x kappa candidate block with its temporaries (its evaluation mask, the Hessian
#: products and their sweep arrays, |K|: 4.9 copies of the block measured by tracemalloc, l =
#: 1,600, kappa = 100) and a retrain at k basis vectors: the whitened l x k design, k x k arrays
#: (the basis block, its symmetrized copy, eigenvectors, workspace, T: six), the step's
#: candidate block (still held) and the Newton solver's arrays. Counted from a tracemalloc
#: snapshot at the peak (l = 3,000, k = 150, kappa = 20).
SPARSE_BLOCK_COPIES, SPARSE_CANDIDATE_COPIES, SPARSE_BASIS_COPIES = 1.0, 5.0, 6.0

#: Local clustering: pdist's condensed vector (m²/2) and the square m x m matrix. Counted.
CLUSTERING_COPIES = 1.5

#: Chunking's partition of the pairs: chunk label (int64), chunk index lists (int64), two
#: boolean masks. Counted.
CHUNKING_BYTES_PER_PAIR = 8 + 8 + 1 + 1

#: Chunking builds and solves a restricted LP per chunk and pass: the resident set grows across
#: the solves (the previous LP and its solver are held until the garbage collector frees them,
#: and the allocator keeps the solver's small blocks), to 1.29-1.41 times one restricted LP's
#: estimate (the LP Ranker at 200 to 300 points, 10 solves); the estimate takes 1.6 times it.
CHUNKING_RESOLVE_FACTOR = 1.6

#: AUCSVM's liblinear route on the pair differences Z = x_i - x_j, per entry of Z (per pair and
#: feature): Z (8 bytes), the stacked [Z; -Z] (16) and liblinear's copy of the stack in 16-byte
#: feature nodes (32); per pair: the pair list, the labels and sample weights of the 2P stacked
#: rows, scikit-learn's validated copies of them and liblinear's per-row state. Measured (the
#: peak resident set) 876 and 1,996 bytes a pair at 10 and 30 features (250,000 pairs), i.e.
#: 56 a feature and 316 a pair; rounded up to 60 and 360.
LIBLINEAR_BYTES_PER_ENTRY, LIBLINEAR_BYTES_PER_PAIR = 60.0, 360.0

#: AUCSVM's k-means route clusters Z with MiniBatchKMeans above this many pairs (the default
#: ``minibatch_above`` of ``kmeans_difference_centers``), else with KMeans.
KMEANS_MINIBATCH_ABOVE = 200_000

#: k-means route, per entry of Z: building Z (x_i and x_j gathered, the difference taken in place
#: into the first), or Z and KMeans's centered copy: 16 bytes. Per pair: the pair list, or
#: KMeans's weights, squared norms and cumulative sums (40 bytes at most), and for KMeans the
#: k-means++ seeding's distances to the 2 + ln k candidate centers, the current and the
#: previous candidates' (16 a candidate, one more counted for slack). Counted; measured 178 and
#: 497 bytes a pair with MiniBatchKMeans (10 and 30 features) and 318 with KMeans (10 features,
#: k = 700: 8 candidates).
KMEANS_BYTES_PER_ENTRY, KMEANS_BYTES_PER_PAIR, KMEANS_SEEDING_BYTES_PER_CANDIDATE = 16.0, 40.0, 16.0

#: Truncated Newton over the sorted-pair core's blocked sweeps (SurvivalRankSVM; the retrains of
#: SparseAUC, conservatively), per point: the core's sorted order, ranks and sweep arrays, the
#: scores and the Newton vectors. Measured by tracemalloc: SurvivalRankSVM 135 bytes a point at
#: 5e4 points; RankSVM, when its pairs took these sweeps too, 131 at 1e5 points (10 and 50
#: features), 139 at 5e4 points and 200 features, 144 at 2e4 points (10 features). Rounded up.
NEWTON_BYTES_PER_POINT = 168.0
#: The same for one shared suffix (bipartite pairs), whose sweeps are merges of two sorted lists
#: (no ranks, thresholds or block lists): 110 bytes a point at 2e4 and 1e5 points (10 and 50
#: features), 118 at 5e4 points and 200 features. Rounded up.
NEWTON_MERGE_BYTES_PER_POINT = 136.0

#: pair arrays (int32 i, int32 j, float64 w)
PAIR_BYTES = 4 + 4 + 8

#: What a fit adds beside its route's arrays, per point (:func:`fit_bytes`): the O(n) vectors
#: (labels, the pair set's order and starts, scores, coefficients, support masks, the support
#: vectors' rows) and the run's records. Measured 75 bytes a point (AUCSVM's dual coordinate
#: descent, 2,000 points) to 570 (the subgradient route at 1,500 points, whose history adds
#: 433 bytes an iteration: 2,000 iterations); rounded up to 1 kB. Counted where it is more
#: than a fraction of a percent of the route's arrays.
POINT_BYTES = 1024.0

#: AUCSVM's dual coordinate descent, per pair while it solves, by the pair set's storage (the
#: route ``_DCDRun`` takes). ``"sorted"`` (bipartite, Harrell's survival pairs, multipartite; never
#: listed, :mod:`aucopt.svm._dcd_sorted`): α (8 bytes) and the int32 active index (4); measured by
#: tracemalloc 12.2 bytes a pair (1e6 pairs, linear and RBF; 12.1 at 1e7). ``"explicit"`` (the
#: listed pair sets: time-weighted or user-weighted survival pairs, ``"lprex"``): the pair list
#: (int32 i and j, float64 w: 16 bytes), Q_pp (8), the active index (4 and its int64 and mask
#: temporaries), α (8); measured 44.1 bytes a pair (1e6 pairs, the list included).
DCD_SOLVE_BYTES_PER_PAIR = {"sorted": 12.0, "explicit": 45.0}
#: ... per pair after the solve, while the model is held: α (8 bytes, kept for a warm start) and,
#: for each support pair (at most all of them), its two int32 indices and its dual (16). Counted;
#: the sorted route peaks there with the data still held: 23.7 bytes a pair measured by
#: tracemalloc with 97 % support pairs (1e6 pairs; 23.6 at 1e7), 24.2 with all of them.
DCD_KEPT_BYTES_PER_PAIR = 24.0
#: ... and, for explicit pairs, the primal objective evaluated over the listed pairs after the
#: solve (the vectorized loss: margins, loss values, derivatives and ``numpy.bincount``'s int64
#: copies), beside the pair list, α and the support pairs: 57.0 bytes a pair measured by
#: tracemalloc (hinge and squared hinge, 1e6 pairs; 56.7 at 6.9e5), where the list route peaks
#: (97.1 bytes a pair in all with every pair in the support).
DCD_OBJECTIVE_BYTES_PER_PAIR = 57.0
#: ... and a warm start's starting point (the previous fit's duals at the solver's scale), held
#: through the solve and its aftermath: 8 bytes a pair (measured 8.0).
DCD_WARM_BYTES_PER_PAIR = 8.0


# ----------------------------------------------------------------------------- estimates
def fit_bytes(n_points: int) -> float:
    """Bytes a fit adds beside its route's arrays: ``POINT_BYTES`` a point.

    Examples
    --------
    >>> fit_bytes(1000) / 1e3
    1024.0
    """
    return POINT_BYTES * float(n_points)


def kernel_bytes(n_rows: int, n_cols: int | None = None) -> float:
    """Peak bytes of evaluating an ``n_rows x n_cols`` kernel block (square when n_cols is None).

    Examples
    --------
    >>> kernel_bytes(1000) / 1e6
    9.0
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
    295.2
    """
    b_nnz, b_rc = BUILD_BYTES["qp" if kind == "qp" else "lp"]
    s_nnz, s_rc = _solver_bytes(solver)
    p_nnz, p_rc = PROBLEM_BYTES
    rc = float(rows) + float(cols)
    build = b_nnz * nnz + b_rc * rc
    solve = (p_nnz + s_nnz) * nnz + (p_rc + s_rc) * rc
    return float(max(build, solve))


def lp_ranker_size(n_points: int, n_pairs: float, n_basis: int, *, lifted: bool = True,
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
    5.9
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
    116.0
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


def pair_difference_bytes(n_pairs: int, entries_per_row: float, *, route: str = "liblinear",
                          n_clusters: int | None = None) -> float:
    """Peak bytes of AUCSVM's ``"liblinear"`` or ``"kmeans"`` route on Z (``entries_per_row`` per pair).

    ``n_clusters`` (k-means route; default 1,000) sets the k-means++ seeding's candidates.

    Examples
    --------
    >>> round(pair_difference_bytes(250_000, 10) / 1e6)  # liblinear, 10 features
    240
    >>> round(pair_difference_bytes(250_000, 10, route="kmeans") / 1e6)  # MiniBatchKMeans
    50
    """
    P, e = float(n_pairs), float(entries_per_row)
    if route == "liblinear":
        return P * (LIBLINEAR_BYTES_PER_ENTRY * e + LIBLINEAR_BYTES_PER_PAIR)
    if n_pairs > KMEANS_MINIBATCH_ABOVE:
        return P * (KMEANS_BYTES_PER_ENTRY * e + KMEANS_BYTES_PER_PAIR)
    candidates = 2 + int(math.log(max(int(1000 if n_clusters is None else n_clusters), 1)))
    return P * (KMEANS_BYTES_PER_ENTRY * e + KMEANS_BYTES_PER_PAIR + KMEANS_SEEDING_BYTES_PER_CANDIDATE
                * (1 + candidates))


def rankrc_bytes(n_points: int, n_basis: int) -> float:
    """Peak bytes of RankRC: the larger of the basis eigendecomposition and the design M = K_mR T.

    The Newton iteration's O(m) arrays are a fraction of a percent of either.

    Examples
    --------
    >>> round(rankrc_bytes(20_000, 10_000) / 1e9, 1)  # the default (rare-class) basis, balanced
    7.0
    """
    m, r = float(n_points), float(n_basis)
    eigh = KERNEL_EVAL_COPIES * m * r + RANKRC_EIGH_COPIES * r * r
    design = RANKRC_DESIGN_BLOCK_COPIES * m * r + RANKRC_DESIGN_BASIS_COPIES * r * r
    return FLOAT * max(eigh, design)


def _largest_fitting(nbytes: Callable[[int], float], upper: int, max_bytes: float) -> int:
    """The largest size in [1, upper] whose ``nbytes(size)`` (growing with size) fits ``max_bytes``; 0 if none."""
    if upper < 1 or nbytes(1) > max_bytes:
        return 0
    lo, hi = 1, int(upper)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if nbytes(mid) <= max_bytes:
            lo = mid
        else:
            hi = mid - 1
    return lo


def rankrc_max_basis(n_points: int, max_bytes: float) -> int:
    """The largest basis size whose :func:`rankrc_bytes` fits ``max_bytes`` (0 when none does).

    Examples
    --------
    >>> r = rankrc_max_basis(10_000, 1e9)
    >>> rankrc_bytes(10_000, r) <= 1e9 < rankrc_bytes(10_000, r + 1)
    True
    """
    return _largest_fitting(lambda r: rankrc_bytes(n_points, r), int(n_points), max_bytes)


def sparse_auc_bytes(n_rows: int, max_basis: int, n_candidates: int, *, n_retrained: int | None = None) -> float:
    """Peak bytes of SparseAUC: the chosen columns, then a step's candidate block or a retrain.

    ``n_retrained`` is the largest basis retrained (default ``max_basis``; validation stopping
    may end the fit earlier).

    Examples
    --------
    >>> round(sparse_auc_bytes(1_600, 512, 100) / 1e6, 1)  # the retrain at 512 vectors dominates
    28.9
    """
    rows, k, kappa = float(n_rows), float(max_basis if n_retrained is None else n_retrained), float(n_candidates)
    candidates = FLOAT * SPARSE_CANDIDATE_COPIES * rows * kappa
    retrain = FLOAT * (rows * k + SPARSE_BASIS_COPIES * k * k + rows * kappa) + NEWTON_BYTES_PER_POINT * rows
    return FLOAT * SPARSE_BLOCK_COPIES * rows * float(max_basis) + max(candidates, retrain) + fit_bytes(n_rows)


def sparse_auc_max_basis(n_rows: int, n_candidates: int, max_bytes: float) -> int:
    """The largest ``basis_size`` whose :func:`sparse_auc_bytes` fits ``max_bytes`` (0 when none does)."""
    return _largest_fitting(lambda k: sparse_auc_bytes(n_rows, k, n_candidates), int(n_rows), max_bytes)


def clustering_bytes(n_points: int) -> float:
    """Peak bytes of local clustering (the m x m distance matrix and pdist's condensed vector)."""
    return CLUSTERING_COPIES * FLOAT * float(n_points) ** 2


def subgradient_bytes(n_points: int) -> float:
    """Peak bytes of the subgradient route: the kernel matrix and O(m) vectors.

    Examples
    --------
    >>> round(subgradient_bytes(2_500) / 1e6, 1)
    58.8
    """
    return kernel_bytes(n_points) + fit_bytes(n_points)


#: entries of one kernel block that row-and-column generation computes at a time
GENERATION_BLOCK_ENTRIES = 1 << 24


def generation_work_bytes(n_points: int, n_pairs: int, *, n_columns: int | None = None,
                          n_rows: int | None = None, n_scored: int | None = None) -> float:
    """Peak bytes of row-and-column generation without the kernel matrix (the kernel is read in blocks).

    A one-byte mask per pair, a kernel block of ``GENERATION_BLOCK_ENTRIES`` entries, O(m) work
    arrays (:func:`fit_bytes`) and the restricted LP: ``n_columns`` ranking vectors (default min(m, 500)),
    ``n_rows`` pair rows (default 4m) and a score row for each of ``n_scored`` points (default m).

    Examples
    --------
    >>> generation_work_bytes(10_000, 25_000_000) < 2 ** 30
    True
    """
    m = float(n_points)
    cols = min(m, 500.0) if n_columns is None else float(n_columns)
    rows = 4.0 * m if n_rows is None else float(n_rows)
    scored = m if n_scored is None else float(n_scored)
    lp = problem_bytes(scored * (cols + 1.0) + 3.0 * rows, scored + rows, cols + scored + rows, kind="lp",
                       solver="highs")
    return float(n_pairs) + FLOAT * min(float(GENERATION_BLOCK_ENTRIES), m * m) + fit_bytes(n_points) + lp


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


def chunking_work_bytes(n_points: int, n_pairs: int, *, n_chunks: int = 5, solver: str = "highs",
                        restricted: float | None = None) -> float:
    """Peak bytes chunking adds to the kernel matrix: the pair partition and a restricted LP.

    The restricted LP is taken at ``restricted`` pairs (default 2·P/n_chunks: a chunk and the
    retained pairs).
    """
    if restricted is None:
        restricted = min(float(n_pairs), 2.0 * float(n_pairs) / max(int(n_chunks), 1))
    count, rows, cols = lp_ranker_size(n_points, restricted, n_points)
    return (CHUNKING_BYTES_PER_PAIR * float(n_pairs) + PAIR_BYTES * restricted
            + CHUNKING_RESOLVE_FACTOR * problem_bytes(count, rows, cols, kind="lp", solver=solver))


def chunking_bytes(n_points: int, n_pairs: int, *, n_chunks: int = 5, solver: str = "highs",
                   restricted: float | None = None) -> float:
    """Peak bytes of chunking: the kernel matrix, then :func:`chunking_work_bytes` beside it.

    Examples
    --------
    >>> chunking_bytes(100, 2500) > chunking_work_bytes(100, 2500) > 0
    True
    """
    kernel = FLOAT * float(n_points) ** 2
    return max(kernel_bytes(n_points), kernel + chunking_work_bytes(n_points, n_pairs, n_chunks=n_chunks,
                                                                    solver=solver, restricted=restricted))


def ranksvm_bytes(n_points: int, n_features: int, survival: bool = False) -> float:
    """Peak bytes of RankSVM or SurvivalRankSVM (truncated Newton on X, never lists pairs): O(m) work arrays.

    ``n_features`` does not enter: X is used as given (see the module's notes on conversions).

    Examples
    --------
    >>> round(ranksvm_bytes(100_000, 50) / 1e6, 1), round(ranksvm_bytes(100_000, 50, survival=True) / 1e6, 1)
    (13.6, 16.8)
    """
    return (NEWTON_BYTES_PER_POINT if survival else NEWTON_MERGE_BYTES_PER_POINT) * float(n_points)


# ----------------------------------------------------------------------------- suggestions
@dataclass(frozen=True)
class Route:
    """An alternative path: the estimator (an aucopt class name), its parameters and its estimate."""

    estimator: str
    params: dict[str, Any]
    nbytes: float
    note: str = ""

    def label(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{self.estimator}({args})" + (f" ({self.note})" if self.note else "")


def first_fit(routes: Iterable[Route], max_bytes: float | None) -> Route | None:
    """The first route whose estimate fits ``max_bytes`` (None when none does)."""
    for route in routes:
        if max_bytes is None or route.nbytes <= max_bytes:
            return route
    return None


def refuse(nbytes: float, max_bytes: float | None, what: str,
           routes: Iterable[Route] | Callable[[], Iterable[Route]] = (),
           fallback: str = "subsample the data") -> None:
    """Raise :class:`ProblemTooLargeError` when ``nbytes > max_bytes``, naming the first route that fits.

    ``routes`` may be a callable returning the candidate routes (evaluated only on refusal).
    The error's ``suggestion`` attribute holds the chosen :class:`Route` (None: ``fallback``).
    """
    if max_bytes is None or nbytes <= max_bytes:
        return
    route = first_fit(routes() if callable(routes) else routes, max_bytes)
    fix = fallback if route is None else f"use {route.label()}"
    check_memory(nbytes, max_bytes, what, fix, suggestion=route)


def kernel_ranker_routes(n_points: int, survival: bool = False, *, max_bytes: float | None = None,
                         exclude: Collection[str] = (), linear_first: bool = False,
                         n_features: int = 0) -> list[Route]:
    """RankRC with the largest basis that fits, then the linear RankSVM (both never list pairs).

    ``linear_first`` puts RankSVM first (for a refused linear model)."""
    prefix = "Survival" if survival else ""
    routes = []
    if max_bytes is not None:
        size = rankrc_max_basis(n_points, max_bytes)
        if size >= 1:
            routes.append(Route(f"{prefix}RankRC", {"basis": "random", "basis_size": size},
                                rankrc_bytes(n_points, size)))
    linear = Route(f"{prefix}RankSVM", {}, ranksvm_bytes(n_points, n_features, survival), "linear; never lists pairs")
    routes = [linear, *routes] if linear_first else [*routes, linear]
    return [r for r in routes if r.estimator not in exclude]


def lp_routes(n_points: int, n_pairs: int, *, survival: bool = False, solver: str = "highs",
              max_bytes: float | None = None, exclude: Collection[str] = ()) -> list[Route]:
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
                  solver: str = "osqp", survival: bool = False, max_bytes: float | None = None,
                  exclude: Collection[str] = (), factor_nnz: float | None = None) -> list[Route]:
    """Alternatives to a refused AUCSVM route: its linear routes, then RankRC / RankSVM."""
    prefix = "Survival" if survival else ""
    linear = [
        Route(f"{prefix}AUCSVM", {"kernel": "linear", "method": "full"},
              dual_qp_bytes(n_points, n_pairs, n_features, loss=loss, solver=solver, factor_nnz=factor_nnz)),
        Route(f"{prefix}AUCSVM", {"kernel": "linear", "method": "liblinear"},
              pair_difference_bytes(n_pairs, entries_per_row, route="liblinear")),
        Route(f"{prefix}AUCSVM", {"kernel": "linear", "method": "kmeans"},
              pair_difference_bytes(n_pairs, entries_per_row, route="kmeans", n_clusters=n_points)),
    ]
    if loss == "squared_hinge":  # the same optimum without listing the pairs
        linear.insert(0, Route(f"{prefix}AUCSVM", {"kernel": "linear", "method": "newton"},
                               ranksvm_bytes(n_points, n_features, survival), "never lists pairs"))
    linear = [r for r in linear if r.params["method"] not in exclude]
    return linear + kernel_ranker_routes(n_points, survival, max_bytes=max_bytes, linear_first=True,
                                         n_features=n_features)


def aucsvm_dcd_bytes(n_points: int, n_pairs: int, n_features: int, kernel: str, *, storage: str = "sorted",
                     warm_start: bool = False, sparse: bool = False) -> float:
    """Peak bytes of an AUCSVM fit by dual coordinate descent (``method="dcd"``).

    The largest of three phases:

    * the kernel's evaluation (not for the linear kernel): :func:`kernel_bytes` for RBF; for
      other kernels, which may be rescaled or checked for symmetry and positive
      semidefiniteness (½(K + Kᵀ) and its eigenvalues), :func:`kernel_factor_bytes`; beside
      the pair list of an explicit pair set;
    * the solve and its aftermath, beside the data (the n x n kernel matrix, or for the linear
      kernel, whose K is never formed, a dense copy of X: rescaled, or densified and rescaled
      when X is sparse): ``DCD_SOLVE_BYTES_PER_PAIR[storage]`` a pair, or more after it: α and
      the support pairs (``DCD_KEPT_BYTES_PER_PAIR``) and, for an explicit pair set, its list
      and the primal objective's temporaries over it (``DCD_OBJECTIVE_BYTES_PER_PAIR``); a
      warm start's starting point adds ``DCD_WARM_BYTES_PER_PAIR``;
    * the training scores, beside α and the support pairs and the support vectors' features:
      the kernel between the n points and the support vectors (at most n) with its evaluation
      temporaries; O(n d) for the linear kernel (X w, with w = Σ_l c_l x_l).

    Parameters
    ----------
    n_points, n_pairs, n_features : int
        Points, pairs and features.
    kernel : str
        The kernel's name (``"linear"``, ``"rbf"``, ``"poly"``, ``"precomputed"``, ...).
    storage : {"sorted", "explicit"}, default="sorted"
        The pair set's storage (:attr:`aucopt.PairSet.storage`): sorted pairs are never listed,
        explicit ones are solved over their list.
    warm_start : bool, default=False
        Whether the fit starts from a previous fit's dual.
    sparse : bool, default=False
        Whether X is sparse (the linear kernel densifies it).

    Returns
    -------
    float
        Bytes.

    Examples
    --------
    >>> aucsvm_dcd_bytes(1000, 10**6, 5, "rbf") < aucsvm_bytes("full", "rbf", 1000, 10**6, 5, 5)
    True
    >>> round(aucsvm_dcd_bytes(2_000, 10**6, 10, "linear") / 1e6)  # α and the support pairs
    26
    >>> round(aucsvm_dcd_bytes(2_000, 10**6, 10, "linear", storage="explicit") / 1e6)  # listed pairs
    99
    >>> round(aucsvm_dcd_bytes(20_000, 10**8, 10, "linear") / 1e9, 2)  # above the default 2 GiB
    2.42
    """
    n, P, d = float(n_points), float(n_pairs), float(n_features)
    features = FLOAT * n * d
    listed = storage != "sorted"
    pair_list = PAIR_BYTES * P if listed else 0.0
    if kernel == "linear":
        evaluation, data, block = 0.0, (2.0 if sparse else 1.0) * features, 0.0
    else:
        evaluation = pair_list + (kernel_bytes(n_points) if kernel == "rbf" else kernel_factor_bytes(n_points))
        data, block = FLOAT * n * n, kernel_bytes(n_points)
    after = DCD_KEPT_BYTES_PER_PAIR + (PAIR_BYTES + DCD_OBJECTIVE_BYTES_PER_PAIR if listed else 0.0)
    per_pair = max(DCD_SOLVE_BYTES_PER_PAIR["explicit" if listed else "sorted"], after)
    solve = data + (per_pair + (DCD_WARM_BYTES_PER_PAIR if warm_start else 0.0)) * P
    scores = DCD_KEPT_BYTES_PER_PAIR * P + block + features
    return float(max(evaluation, solve, scores) + fit_bytes(n_points))


def aucsvm_bytes(method: str, kernel: str, n_points: int, n_pairs: int, n_features: int,
                 entries_per_row: float, *, loss: str = "hinge", solver: str = "osqp",
                 factor_nnz: float | None = None, storage: str = "sorted", warm_start: bool = False,
                 sparse: bool = False, survival: bool = False) -> float:
    """Peak bytes of an AUCSVM fit by route: ``"liblinear"``, ``"kmeans"``, ``"newton"`` (that of
    :func:`ranksvm_bytes`, the same solver; ``survival`` pairs or not), ``"dcd"`` (see
    :func:`aucsvm_dcd_bytes` for ``storage``, ``warm_start`` and ``sparse``) or ``"full"`` (linear
    or kernel).

    Examples
    --------
    >>> aucsvm_bytes("full", "rbf", 1000, 1000, 5, 5) > aucsvm_bytes("full", "linear", 1000, 1000, 5, 5)
    True
    """
    if method in ("liblinear", "kmeans"):
        return pair_difference_bytes(n_pairs, entries_per_row, route=method, n_clusters=n_points)
    if method == "newton":
        return ranksvm_bytes(n_points, n_features, survival)
    if method == "dcd":
        return aucsvm_dcd_bytes(n_points, n_pairs, n_features, kernel, storage=storage, warm_start=warm_start,
                                sparse=sparse)
    if kernel == "linear":
        return dual_qp_bytes(n_points, n_pairs, n_features, loss=loss, solver=solver, factor_nnz=factor_nnz)
    return aucsvm_kernel_bytes(n_points, n_pairs, loss=loss, solver=solver)


def check_aucsvm(X: Any, pairs: Any, *, method: str, kernel: str, loss: str, solver: str, max_bytes: float | None,
                 warm_start: bool = False) -> None:
    """Refuse an AUCSVM fit whose route would exceed ``max_bytes``, before any pair or kernel work.

    ``warm_start``: whether dual coordinate descent may start from a previous fit's dual (its
    starting point is counted); the pair set's storage chooses that route's estimate.
    """
    import scipy.sparse as sp

    n, P, d = pairs.n_points, pairs.n_pairs, X.shape[1]
    sparse = sp.issparse(X)
    per_row = 2.0 * X.nnz / max(X.shape[0], 1) if sparse else float(d)
    factor_nnz = float(X.nnz) if sparse and kernel == "linear" else None
    name = kernel if isinstance(kernel, str) else "callable"
    survival = pairs.target == "survival"
    need = aucsvm_bytes(method, name, n, P, d, per_row, loss=loss, solver=solver, factor_nnz=factor_nnz,
                        storage=pairs.storage, warm_start=warm_start, sparse=sparse, survival=survival)
    exclude: tuple[str, ...]
    if method == "newton":
        what = f"Truncated Newton over {n:,} points (linear kernel; the {P:,} pairs never listed)"
        exclude = ("newton",)
    elif method in ("liblinear", "kmeans"):
        what = f"The {method} route over {P:,} pair differences of {d:,} features"
        exclude = (method,)
    elif method == "dcd":
        what = _dcd_what(n, P, name, listed=pairs.storage != "sorted")
        exclude = ("dcd",)
    elif name == "linear":
        what = f"The dual QP over {P:,} pairs of {n:,} points (linear kernel, {d:,} features)"
        exclude = ("full",)
    else:
        what = (f"The {n:,} x {n:,} kernel factor and the dual QP over {P:,} pairs "
                f"({name} kernel, full rank)")
        exclude = ()
    refuse(need, max_bytes, what,
           lambda: aucsvm_routes(n, P, d, per_row, loss=loss, solver=solver, survival=survival,
                                 max_bytes=max_bytes, exclude=exclude, factor_nnz=factor_nnz)
           if name == "linear" or method not in ("full", "dcd")
           else kernel_ranker_routes(n, survival, max_bytes=max_bytes))


def _dcd_what(n: int, P: int, kernel: str, *, listed: bool) -> str:
    """What dual coordinate descent holds at its peak, for the refusal's message."""
    data = "the dense data" if kernel == "linear" else "the kernel matrix"
    held = "the pair list, the objective over it, " if listed else ""
    scores = "" if kernel == "linear" else f", then the training scores against up to {n:,} support vectors"
    return (f"Dual coordinate descent over {P:,} pairs of {n:,} points ({kernel} kernel: {held}the pair duals and "
            f"support pairs beside {data}{scores})")


def pair_free_routes(n_points: int, survival: bool = False, *, max_bytes: float | None = None) -> list[Route]:
    """Paths that never list pairs: the LP Ranker's subgradient route, RankRC, RankSVM."""
    prefix = "Survival" if survival else ""
    return [Route(f"{prefix}LPRanker", {"method": "subgradient"}, subgradient_bytes(n_points)),
            *kernel_ranker_routes(n_points, survival, max_bytes=max_bytes)]


def rankrc_routes(estimator: str, n_points: int, *, survival: bool = False,
                  max_bytes: float | None = None) -> list[Route]:
    """Alternatives to a refused RankRC basis: the largest random basis that fits, then RankSVM."""
    routes = kernel_ranker_routes(n_points, survival, max_bytes=max_bytes)
    return [Route(estimator, r.params, r.nbytes) if r.estimator.endswith("RankRC") else r for r in routes]


def sparse_auc_routes(estimator: str, n_rows: int, n_candidates: int, *, survival: bool = False,
                      max_bytes: float | None = None) -> list[Route]:
    """Alternatives to a refused SparseAUC: the largest ``basis_size`` that fits, then RankRC / RankSVM."""
    routes = []
    if max_bytes is not None:
        size = sparse_auc_max_basis(n_rows, n_candidates, max_bytes)
        if size >= 1:
            routes.append(Route(estimator, {"basis_size": size}, sparse_auc_bytes(n_rows, size, n_candidates)))
        kappa = min(10, int(n_candidates))
        size = min(sparse_auc_max_basis(n_rows, kappa, max_bytes), 64)
        if size >= 1:
            routes.append(Route(estimator, {"basis_size": size, "kappa": kappa},
                                sparse_auc_bytes(n_rows, size, kappa)))
    return routes + kernel_ranker_routes(n_points=n_rows, survival=survival, max_bytes=max_bytes)
