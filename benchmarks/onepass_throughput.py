"""Benchmark: OnePassAUC throughput (rows/s) against scikit-learn's SGDClassifier.partial_fit.

For each data set, both learners stream the same chunks of ``--chunk-size`` rows, in the same
run (rows/s: best of ``--repeats`` passes, after one warm-up pass that compiles the kernels):

* **memory**: the data set is loaded first; ``partial_fit`` is called on each chunk
  (ijcnn1 as a dense array, a9a as a CSR matrix);
* **file**: the training file is streamed with :func:`aucopt.online.iter_svmlight_chunks`
  (decompression and parsing included): ``OnePassAUC.fit(iterator)`` against a loop of
  ``SGDClassifier.partial_fit`` over the same iterator; the time of reading the chunks alone
  is printed too.

The ratio column is OnePassAUC rows/s divided by SGD rows/s measured in the same run. The test
AUC of the compiled OnePassAUC is compared with that of the per-example numpy implementation
kept as a test oracle (tests/online/reference_onepass.py), fitted on the same data.

First-call compile time: a fresh Python process with an empty ``NUMBA_CACHE_DIR`` times its
first ``fit`` on a small dense array, then a small CSR matrix, then with a weight above 32 steps
(the closed-form kernel); a second fresh process with the now warm cache times the same calls
(loading the cached machine code).

Data (``aucopt.datasets.get_data_dir``: ``$AUCOPT_DATA`` or ``shared/data`` beside the checkout):
  ijcnn1  libsvm/ijcnn1_ijcnn1.trn.bz2 (49,990 x 22, dense), libsvm/ijcnn1_ijcnn1.tst.bz2
  a9a     libsvm/adult_adult.trn.bz2 (32,561 x 123, sparse, 0-based indices), libsvm/adult_adult.tst.bz2
A data set whose files are missing is skipped with a line naming them.

    python benchmarks/onepass_throughput.py [--datasets ijcnn1 a9a] [--chunk-size 10000] [--repeats 3]

About one minute on 2 cores.
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


def best_rate(run, n_rows, repeats):
    """Rows per second of the fastest of ``repeats`` calls of ``run`` (after one warm-up call)."""
    run()
    seconds = min(_timed(run) for _ in range(repeats))
    return n_rows / seconds


def _timed(run):
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def measure(name, data_dir, chunk_size, repeats):
    import scipy.sparse as sp
    from sklearn.linear_model import SGDClassifier

    from aucopt.metrics import roc_auc
    from aucopt.online import OnePassAUC, iter_svmlight_chunks

    sys.path.insert(0, os.path.join(HERE, "..", "tests", "online"))
    from reference_onepass import ReferenceOnePassAUC

    train, _, d, _, zero_based = DATASETS[name]
    path = os.path.join(data_dir, train)
    Xtr, ytr, Xte, yte = load(name, data_dir)
    n = len(ytr)
    classes = np.unique(ytr)
    chunks = [(Xtr[a:a + chunk_size], ytr[a:a + chunk_size]) for a in range(0, n, chunk_size)]

    def onepass_memory():
        est = OnePassAUC()
        for Xc, yc in chunks:
            est.partial_fit(Xc, yc, classes=classes)
        return est

    def sgd_memory():
        est = SGDClassifier(random_state=0)
        for Xc, yc in chunks:
            est.partial_fit(Xc, yc, classes=classes)
        return est

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

    rows = {}
    for mode, ours, sgd in (("memory", onepass_memory, sgd_memory), ("file", onepass_file, sgd_file)):
        a, b = best_rate(ours, n, repeats), best_rate(sgd, n, repeats)
        rows[mode] = (a, b)
    reading = best_rate(read_only, n, repeats)

    model = onepass_memory()
    start = time.perf_counter()
    reference = ReferenceOnePassAUC()
    for Xc, yc in chunks:
        reference.partial_fit(Xc, yc, classes=classes)
    reference_rate = n / (time.perf_counter() - start)
    auc = roc_auc(yte, model.decision_function(Xte))
    auc_reference = roc_auc(yte, reference.decision_function(Xte))
    gap = np.abs(model.coef_avg_ - reference.coef_avg_).max() / np.abs(reference.coef_avg_).max()
    kind = "dense" if DATASETS[name][3] else "CSR"
    print(f"\n{name}: {n:,} training rows x {d} features ({kind} in memory), chunks of {chunk_size:,} rows")
    print(f"  {'mode':<8}{'OnePassAUC rows/s':>19}{'SGD rows/s':>14}{'ratio':>8}")
    for mode, (a, b) in rows.items():
        print(f"  {mode:<8}{a:>19,.0f}{b:>14,.0f}{a / b:>8.2f}")
    print(f"  reading the file alone (iter_svmlight_chunks): {reading:,.0f} rows/s")
    print(f"  numpy per-example reference (memory): {reference_rate:,.0f} rows/s "
          f"({rows['memory'][0] / reference_rate:.0f}x slower than compiled)")
    print(f"  test AUC: compiled {auc:.6f}, reference {auc_reference:.6f} "
          f"(max relative difference of coef_avg_ {gap:.1e})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--chunk-size", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--compile-probe", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.compile_probe:
        return compile_probe()

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
        measure(name, data_dir, args.chunk_size, args.repeats)


if __name__ == "__main__":
    main()
