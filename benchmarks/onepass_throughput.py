"""Benchmark: OnePassAUC throughput (rows/s) against scikit-learn's SGDClassifier.partial_fit.

For each data set, the learners stream the same chunks of ``--chunk-size`` rows, in the same
run (rows/s of the best of ``--repeats`` passes, after one warm-up pass that compiles the
kernels; the rows/s of process CPU time in brackets, as the machine may be shared):

* **memory**: the data set is loaded first; ``partial_fit`` is called on each chunk
  (ijcnn1 as a dense array, a9a as a CSR matrix). "before" is OnePassAUC with the general
  per-row kernels of every earlier version (``GeneralKernelOnePassAUC`` of
  tests/online/reference_onepass.py), "after" OnePassAUC itself (the full-covariance kernels
  of ``aucopt.online._onepass_full``);
* **file**: the training file is streamed with :func:`aucopt.online.iter_svmlight_chunks`
  (decompression and parsing included): ``OnePassAUC.fit(iterator)`` against a loop of
  ``SGDClassifier.partial_fit`` over the same iterator; the time of reading the chunks alone
  is printed too;
* **limit**: a bare compiled loop (numba) over the same rows doing only the d² multiply-adds
  every exact full-covariance update needs (over rows padded as the kernels'): for dense rows a
  rank-one update of one d × d matrix and a product with the other (2d²); for CSR rows the
  product alone (d²: the second moments take nnz² per row). For dense rows a second line does the
  same work with the dense kernel's vectorized passes (``aucopt.online._simd``: rows added to a
  scatter matrix four at a time, one fused multiply-add per entry and row, and the product with
  up to 24 result columns in registers per pass down the matrix);
* **--before DIR**: OnePassAUC of an earlier copy of the package (``DIR/aucopt``) and of this one
  streaming the same chunks from memory, each in fresh processes taken in turn three times (the
  best of each), and the speed-up: this machine's speed changes over tens of seconds, so one
  probe of each would compare two periods.

The in-memory rows (and, apart, the file rows) take their timed calls in turn, one call of each
per round. The ratio column is rows/s divided by SGD's rows/s measured in the same run. The test AUC and
coef_avg_ of OnePassAUC are compared with the "before" model and with the per-example numpy
implementation kept as a test oracle (tests/online/reference_onepass.py), fitted on the same data.

First-call compile time: a fresh Python process with an empty ``NUMBA_CACHE_DIR`` times its
first ``fit`` on a small dense array, then a small CSR matrix, then with a weight above 32 steps
(the closed-form kernel); a second fresh process with the now warm cache times the same calls
(loading the cached machine code).

Data (``aucopt.datasets.get_data_dir``: ``$AUCOPT_DATA`` or ``shared/data`` beside the checkout):
  ijcnn1  libsvm/ijcnn1_ijcnn1.trn.bz2 (49,990 x 22, dense), libsvm/ijcnn1_ijcnn1.tst.bz2
  a9a     libsvm/adult_adult.trn.bz2 (32,561 x 123, sparse, 0-based indices), libsvm/adult_adult.tst.bz2
A data set whose files are missing is skipped with a line naming them.

    OPENBLAS_NUM_THREADS=1 python benchmarks/onepass_throughput.py [--datasets ijcnn1 a9a] [--repeats 5]
    (also --chunk-size 10000, --before /tmp/aucopt-before)

About two minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATASETS = {  # name: (training file, test file, n_features, dense in memory, zero-based indices)
    "ijcnn1": ("libsvm/ijcnn1_ijcnn1.trn.bz2", "libsvm/ijcnn1_ijcnn1.tst.bz2", 22, True, False),
    "a9a": ("libsvm/adult_adult.trn.bz2", "libsvm/adult_adult.tst.bz2", 123, False, True),
}


# ============================================================================ compile time
def compile_probe():
    """Run in a fresh process: seconds of the import and of each first call (JSON on stdout)."""
    import scipy.sparse as sp

    out = {}
    start = time.perf_counter()
    from aucopt.online import OnePassAUC

    out["import"] = time.perf_counter() - start
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 5))
    y = np.where(rng.random(200) < 0.5, 1, -1)
    weights = np.ones(200)
    weights[150] = 100.0  # more than 32 steps: the closed form
    for name, call in (("dense", lambda: OnePassAUC().fit(X, y)),
                       ("sparse", lambda: OnePassAUC().fit(sp.csr_matrix(X), y)),
                       ("closed_form", lambda: OnePassAUC().fit(X, y, sample_weight=weights)),
                       ("again", lambda: OnePassAUC().fit(X, y))):
        start = time.perf_counter()
        call()
        out[name] = time.perf_counter() - start
    print(json.dumps(out))


def compile_times():
    """(cold, warm) probe results, each in a fresh process sharing one new cache folder."""
    results = []
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for _ in range(2):
            done = subprocess.run([sys.executable, __file__, "--compile-probe"], env=env, check=True,
                                  capture_output=True, text=True)
            results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return results


# ============================================================================ throughput
def load(name, data_dir):
    from sklearn.datasets import load_svmlight_file

    train, test, d, dense, zero_based = DATASETS[name]
    Xtr, ytr = load_svmlight_file(os.path.join(data_dir, train), n_features=d, zero_based=zero_based)
    Xte, yte = load_svmlight_file(os.path.join(data_dir, test), n_features=d, zero_based=zero_based)
    if dense:
        Xtr, Xte = Xtr.toarray(), Xte.toarray()
    return Xtr, ytr, Xte, yte


def in_chunks(X, y, chunk_size):
    """The (X, y) chunks of ``chunk_size`` rows that every learner streams from memory."""
    return [(X[a:a + chunk_size], y[a:a + chunk_size]) for a in range(0, len(y), chunk_size)]


def streamed(cls, chunks, classes):
    """A new ``cls()`` given the chunks by ``partial_fit``, in order."""
    est = cls()
    for Xc, yc in chunks:
        est.partial_fit(Xc, yc, classes=classes)
    return est


def best_rate(run, n_rows, repeats):
    """(rows/s of wall time, rows/s of CPU time) of the fastest of ``repeats`` calls of ``run``
    (after one warm-up call)."""
    return best_rates({"run": run}, n_rows, repeats)["run"]


def best_rates(runs, n_rows, repeats):
    """:func:`best_rate` of every run of the dict ``runs``, their calls taken in turn (one call of
    each, ``repeats`` times): this machine's speed changes over tens of seconds, and runs timed one
    after the other would each see another period."""
    for run in runs.values():
        run()
    times = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            times[name].append(_timed(run))
    return {name: (n_rows / min(t[0] for t in ts), n_rows / min(t[1] for t in ts)) for name, ts in times.items()}


def _timed(run):
    start, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - start, time.process_time() - cpu


def limit_loops():
    """Bare compiled loops doing the d² multiply-adds of a row and nothing else (see the docstring).
    Their matrices' rows are padded with zeros to a multiple of four doubles (``width``), as the
    kernels' are: at d = 123 that alone takes the product from 0.41 to 0.51 M rows/s here."""
    from numba import njit

    @njit(nogil=True, error_model="numpy", boundscheck=False)
    def dense(X, C, g):  # per row: C[0] ← 0.5·C[0] + xxᵀ/n, g = C[1] x
        n, d = X.shape
        width = C.shape[2]
        x = np.zeros(width)
        for i in range(n):
            for a in range(d):
                x[a] = X[i, a]
            c0, c1 = C[0], C[1]
            for a in range(d):
                xa = x[a] / n
                row = c0[a]
                for b in range(width):
                    row[b] = row[b] * 0.5 + xa * x[b]
            for b in range(width):
                g[b] = 0.0
            for a in range(d):
                xa = x[a]
                row = c1[a]
                for b in range(width):
                    g[b] += row[b] * xa
        return g[0]

    @njit(nogil=True, error_model="numpy", boundscheck=False)
    def product(n, W, C, g):  # per row: g = C w (w a dense row of W, cycled)
        d = W.shape[1]
        width = C.shape[1]
        for i in range(n):
            w = W[i % W.shape[0]]
            for b in range(width):
                g[b] = 0.0
            for a in range(d):
                wa = w[a]
                row = C[a]
                for b in range(width):
                    g[b] += row[b] * wa
        return g[0]

    return dense, product


def arranged_loop():
    """The dense limit loop's d² work arranged as the dense kernel arranges it (see the docstring)."""
    from numba import njit

    from aucopt.online._simd import add_rows, scatter_product

    @njit(nogil=True, error_model="numpy", boundscheck=False)
    def arranged(X, C, g):  # the dense kernel's passes: C[0] += D Dᵀ four rows at a time, g = C[1] x
        n, d = X.shape
        width = C.shape[2]
        D = np.zeros((4, width))
        for i in range(n):
            t = i % 4
            for a in range(d):
                D[t, a] = X[i, a] / n
            if t == 3:
                add_rows(C[0], D, 4, d)
            scatter_product(C[1], D[t], g, d)
        return g[0]

    return arranged


def rate_probe(name, data_dir, chunk_size, repeats):
    """Run in a fresh process (``--before``: an earlier aucopt first on the import path): the
    rows/s (wall, CPU) of OnePassAUC streaming the in-memory chunks, as JSON on stdout."""
    from aucopt.online import OnePassAUC

    Xtr, ytr, _, _ = load(name, data_dir)
    chunks, classes = in_chunks(Xtr, ytr, chunk_size), np.unique(ytr)
    print(json.dumps(best_rate(lambda: streamed(OnePassAUC, chunks, classes), len(ytr), repeats)))


def probe_rate(root, name, data_dir, chunk_size, repeats):
    """:func:`rate_probe` in a fresh process, with ``root`` (a folder holding an earlier ``aucopt``
    package) first on the import path unless it is None."""
    env = dict(os.environ)
    if root:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, __file__, "--rate-probe", name, data_dir, str(chunk_size),
                           str(repeats)], env=env, check=True, capture_output=True, text=True)
    return tuple(json.loads(done.stdout.strip().splitlines()[-1]))


def before_rates(root, name, data_dir, chunk_size, repeats, rounds=3):
    """The best rows/s (wall, CPU) of this OnePassAUC and of the one under ``root``, each in fresh
    processes taken in turn ``rounds`` times: this machine's speed changes over tens of seconds,
    and a fresh process's over its placement, so one probe of each would compare two periods."""
    now, earlier = [], []
    for _ in range(rounds):
        now.append(probe_rate(None, name, data_dir, chunk_size, repeats))
        earlier.append(probe_rate(root, name, data_dir, chunk_size, repeats))
    return max(now), max(earlier)


def print_rates(name, n, d, dense, chunk_size, rates):
    """The table of rows/s (wall, CPU) and their ratios to SGD's."""
    kind = "dense" if dense else "CSR"
    print(f"\n{name}: {n:,} training rows x {d} features ({kind} in memory), chunks of {chunk_size:,} rows")
    print(f"  {'':<44}{'rows/s':>12}{'(CPU)':>14}{'/ SGD':>8}")
    labels = {"SGD memory": "SGDClassifier.partial_fit, memory", "before memory": "OnePassAUC before (general kernels)",
              "after memory": "OnePassAUC after", "limit": "limit: bare loop of the d² multiply-adds",
              "limit arranged": "limit: the same, arranged as the kernel's",
              "SGD file": "SGDClassifier.partial_fit, file", "after file": "OnePassAUC after, file",
              "reading": "reading the file alone", "now fresh": "OnePassAUC after, memory, fresh processes",
              "earlier memory": "OnePassAUC of --before, the same"}
    for key, label in labels.items():
        if key not in rates:
            continue
        wall, cpu = rates[key]
        peer = rates["SGD file" if key in ("SGD file", "after file", "reading") else "SGD memory"][0]
        print(f"  {label:<44}{wall:>12,.0f}{f'({cpu:,.0f})':>14}{wall / peer:>8.2f}")
    print(f"  speed-up after / before (memory): {rates['after memory'][0] / rates['before memory'][0]:.2f}x "
          f"(CPU {rates['after memory'][1] / rates['before memory'][1]:.2f}x)")
    if "earlier memory" in rates:
        print(f"  speed-up after / --before (memory, fresh processes): "
              f"{rates['now fresh'][0] / rates['earlier memory'][0]:.2f}x "
              f"(CPU {rates['now fresh'][1] / rates['earlier memory'][1]:.2f}x)")


def measure(name, data_dir, chunk_size, repeats, earlier=None):
    import scipy.sparse as sp
    from sklearn.linear_model import SGDClassifier

    from aucopt.metrics import roc_auc
    from aucopt.online import OnePassAUC, iter_svmlight_chunks
    from aucopt.online._onepass_full import padded_width

    sys.path.insert(0, os.path.join(HERE, "..", "tests", "online"))
    from reference_onepass import GeneralKernelOnePassAUC, ReferenceOnePassAUC

    train, _, d, dense, zero_based = DATASETS[name]
    path = os.path.join(data_dir, train)
    Xtr, ytr, Xte, yte = load(name, data_dir)
    n = len(ytr)
    chunks, classes = in_chunks(Xtr, ytr, chunk_size), np.unique(ytr)

    def onepass_file():
        return OnePassAUC().fit(iter_svmlight_chunks(path, chunk_size, d, zero_based=zero_based))

    def sgd_file():
        est = SGDClassifier(random_state=0)
        for Xc, yc in iter_svmlight_chunks(path, chunk_size, d, zero_based=zero_based):
            # the parser's int64 indices are refused by SGDClassifier: cast them to int32
            Xc = sp.csr_matrix((Xc.data, Xc.indices.astype(np.int32), Xc.indptr.astype(np.int32)), Xc.shape)
            est.partial_fit(Xc, yc, classes=classes)
        return est

    def read_only():
        for _ in iter_svmlight_chunks(path, chunk_size, d, zero_based=zero_based):
            pass

    dense_loop, product_loop = limit_loops()
    arranged = arranged_loop()
    rows = np.ascontiguousarray(Xtr if dense else Xtr[:4096].toarray())
    width = padded_width(d)  # rows padded as the kernels'
    if dense:
        def limit():
            return dense_loop(rows, np.zeros((2, d, width)), np.zeros(width))
    else:
        def limit():
            return product_loop(n, rows, np.ones((d, width)), np.zeros(width))

    rates = {
        **best_rates({"SGD memory": lambda: streamed(lambda: SGDClassifier(random_state=0), chunks, classes),
                      "before memory": lambda: streamed(GeneralKernelOnePassAUC, chunks, classes),
                      "after memory": lambda: streamed(OnePassAUC, chunks, classes),
                      "limit": limit,
                      **({"limit arranged": lambda: arranged(rows, np.zeros((2, d, width)), np.zeros(width))}
                         if dense else {})}, n, repeats),
        **best_rates({"SGD file": sgd_file, "after file": onepass_file, "reading": read_only}, n, repeats),
    }
    if earlier:
        rates["now fresh"], rates["earlier memory"] = before_rates(earlier, name, data_dir, chunk_size, repeats)
    after, before = streamed(OnePassAUC, chunks, classes), streamed(GeneralKernelOnePassAUC, chunks, classes)
    start = time.perf_counter()
    reference = streamed(ReferenceOnePassAUC, chunks, classes)
    reference_rate = n / (time.perf_counter() - start)

    def gap(model, other):
        return max(np.abs(getattr(model, k) - getattr(other, k)).max() / np.abs(getattr(other, k)).max()
                   for k in ("coef_", "coef_avg_", "class_cov_"))

    print_rates(name, n, d, dense, chunk_size, rates)
    print(f"  numpy per-example reference (memory): {reference_rate:,.0f} rows/s")
    print(f"  test AUC: after {roc_auc(yte, after.decision_function(Xte)):.6f}, "
          f"before {roc_auc(yte, before.decision_function(Xte)):.6f}, "
          f"reference {roc_auc(yte, reference.decision_function(Xte)):.6f}")
    print(f"  max relative difference of coef_, coef_avg_, class_cov_: after vs before {gap(after, before):.1e}, "
          f"after vs reference {gap(after, reference):.1e}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--chunk-size", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--before", default=None,
                        help="folder holding an earlier aucopt package: its OnePassAUC in the same run, for ratios")
    parser.add_argument("--compile-probe", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--rate-probe", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.compile_probe:
        return compile_probe()
    if args.before and not os.path.isfile(os.path.join(args.before, "aucopt", "__init__.py")):
        # without one the probes would import this aucopt and compare it with itself
        parser.error(f"--before {args.before}: no aucopt package there (expected {args.before}/aucopt/__init__.py)")
    if args.rate_probe:
        name, data_dir, chunk_size, repeats = args.rate_probe
        return rate_probe(name, data_dir, int(chunk_size), int(repeats))

    cold, warm = compile_times()
    print("First calls in a fresh process (seconds; numba cache folder empty, then warm):")
    print(f"  {'':<34}{'empty cache':>12}{'warm cache':>12}")
    for key, label in (("import", "import aucopt.online"), ("dense", "first fit, dense X"),
                       ("sparse", "first fit, CSR X"), ("closed_form", "first fit, a weight of 100"),
                       ("again", "next fit (compiled)")):
        print(f"  {label:<34}{cold[key]:>12.2f}{warm[key]:>12.3f}")

    from aucopt.datasets import get_data_dir

    for name in args.datasets:
        train, test = DATASETS[name][:2]
        try:
            data_dir = get_data_dir(required=train)
            get_data_dir(required=test)
        except FileNotFoundError as exc:
            print(f"\n{name}: skipped, {exc}")
            continue
        measure(name, data_dir, args.chunk_size, args.repeats, args.before)


if __name__ == "__main__":
    main()
