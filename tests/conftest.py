"""Shared, session-cached data fixtures (only data that pip packages ship or that is generated here)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

# survival plots are tested: never open a window, whatever the machine has
os.environ.setdefault("MPLBACKEND", "Agg")
# pytest keeps each test module, rewritten for its assertion messages, as bytecode in __pycache__;
# under PYTHONDONTWRITEBYTECODE (set on some CI images, this one too) it rewrites all of them again
# in every worker of every run: collection took 14.5 s a worker instead of 7.8 (measured). The test
# modules are imported after this file.
sys.dont_write_bytecode = False


def pytest_configure(config):
    """Under pytest-xdist each worker gets its share of the cores for BLAS and OpenMP, as
    scikit-learn's conftest does: two workers running two OpenBLAS threads each on two cores
    oversubscribe them, and OpenBLAS's idle threads spin (measured: the estimator tests took 15 %
    more CPU and 18 % more time). The subprocesses the tests start inherit the limit."""
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if workers is None:
        return
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    threads = max(cores // int(workers), 1)
    for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, str(threads))
    from threadpoolctl import threadpool_limits

    threadpool_limits(threads)  # numpy's BLAS is already loaded in this process


@pytest.fixture(scope="session")
def breast_cancer():
    """sklearn's WDBC data, min-max scaled to [0, 1]; y in {0, 1}."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import minmax_scale

    X, y = load_breast_cancer(return_X_y=True)
    return minmax_scale(X), y


@pytest.fixture(scope="session")
def whas500():
    """scikit-survival's WHAS500: numeric columns min-max scaled, (event: bool, time: float)."""
    pytest.importorskip("sksurv")
    from sklearn.preprocessing import minmax_scale
    from sksurv.datasets import load_whas500

    X, y = load_whas500()
    X = minmax_scale(X.select_dtypes("number").to_numpy(dtype=float))
    event_field = next(n for n in y.dtype.names if y.dtype[n].kind == "b")
    time_field = next(n for n in y.dtype.names if n != event_field)
    return X, np.asarray(y[event_field], bool), np.asarray(y[time_field], float)


def make_small_binary(n_samples: int = 60, n_features: int = 5, seed: int = 0):
    """Small binary problem: ``X`` of shape (n_samples, n_features), ``y`` in {0, 1}."""
    from sklearn.datasets import make_classification

    return make_classification(n_samples=n_samples, n_features=n_features, n_informative=3,
                               n_redundant=0, random_state=seed)


def make_small_survival(n_samples: int = 60, n_features: int = 5, seed: int = 0):
    """Small right-censored data from a proportional-hazards model (about 70% events).

    Returns ``X`` (about a third of the entries exactly zero, so that a sparse copy has
    structure), the boolean ``event`` and the float ``time`` (distinct values).
    """
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features))
    X[np.abs(X) < 0.4] = 0.0
    beta = np.zeros(n_features)
    beta[:3] = [1.0, -0.5, 0.5]
    event_time = rng.exponential(np.exp(-X @ beta))
    censor_time = rng.exponential(2.0, size=n_samples)
    event = event_time <= censor_time
    time = np.minimum(event_time, censor_time)
    return X, event, time


@pytest.fixture(scope="session")
def small_binary():
    """(X, y): 60 samples, 5 features, labels in {0, 1}."""
    return make_small_binary()


@pytest.fixture(scope="session")
def small_survival():
    """(X, y): 60 samples, 5 features, ``y`` the structured (event, time) target."""
    from aucopt import survival_target

    X, event, time = make_small_survival()
    return X, survival_target(event, time)


#: what dask's own tests set for the clusters they start (``distributed.utils_test.config_for_cluster_tests``),
#: read when the scheduler, nannies and workers are created: their event-loop health check every 500 ms
#: instead of every 20 ms, and no statistical profiler sampling each worker's threads every 10 ms. No test
#: reads either. Measured, the CPU a cluster costs while it runs no task: the ``client`` cluster 6 % -> 1.5 %
#: of a core, the ``process_client`` one (scheduler, nannies, worker processes) 11 % -> 4 %.
DASK_CLUSTER_CONFIG = {"distributed.admin.tick.interval": "500 ms", "distributed.worker.profile.enabled": False}


class _SharedCluster:
    """One dask.distributed LocalCluster shared by consecutive tests: started by the first test
    that takes its fixture, closed as soon as the test that runs next does not take it (an idle
    cluster's heartbeats cost about 13 % of a core, 4 s of CPU in 30 s, measured), started again
    if a later test takes it. The cluster tests run together on one worker (``--dist loadgroup``).

    ``processes=False`` runs the two workers as threads of this process: the real scheduler and
    workers over dask's in-process transport, without the worker processes' own imports and
    (de)serialization (about 30 s of CPU per session, measured). Tests of what crosses a process
    boundary take ``process_client``.
    """

    def __init__(self, fixture: str, processes: bool):
        self.fixture, self.processes = fixture, processes
        self.cluster = self.client = None

    def get(self):
        if self.client is None:
            distributed = pytest.importorskip("dask.distributed")
            import dask

            with dask.config.set(DASK_CLUSTER_CONFIG):
                self.cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=self.processes,
                                                        dashboard_address=":0", memory_limit="2GiB")
            self.client = distributed.Client(self.cluster)
        return self.client

    def close(self):
        if self.client is not None:
            self.client.close()
            self.cluster.close()
            self.cluster = self.client = None


_CLUSTERS = (_SharedCluster("client", processes=False), _SharedCluster("process_client", processes=True))

#: what the forkserver of the dask worker processes imports once (a name that fails to import is skipped)
WORKER_PRELOAD = ("distributed", "numpy", "scipy.sparse", "sklearn.base", "numba", "aucopt", "aucopt.distributed",
                  "aucopt.svm", "aucopt.pairs.core")


@pytest.fixture
def client():
    """A dask.distributed client on a real LocalCluster: 2 workers of 1 thread each, in this process."""
    return _CLUSTERS[0].get()


@pytest.fixture
def process_client(forked_dask_workers):
    """A dask.distributed client on a real LocalCluster of 2 worker processes, 1 thread each: for
    tests of what the client process sends and receives."""
    return _CLUSTERS[1].get()


@pytest.fixture
def process_pool():
    """Taken by a test that fits in joblib's default process pool (``n_jobs=2``): those tests run on
    one worker (``--dist loadgroup``), where joblib reuses the pool's processes from test to test, so
    each process imports scikit-learn and aucopt once in the session (about 3 s of CPU each, measured)
    instead of once per worker that runs such a test."""


@pytest.fixture(scope="session")
def forked_dask_workers():
    """The worker processes of every LocalCluster started from here on are forked from one server
    process that imported dask.distributed, scikit-learn and aucopt once (``multiprocessing-method:
    forkserver``, as dask's own test suite does), instead of each being spawned to import them again:
    the same real processes, with their own memory and a pickled boundary, and a worker killed by a
    test is restarted by its nanny in a fraction of a second. Measured on the two files that start
    worker processes (``test_dask_newton.py``, ``test_dask_resilience.py``: a 2-worker cluster and a
    3-worker one whose workers are killed and restarted), run alone, each pair in one period: 43 s →
    25 s and 70 s → 35 s of the machine's CPU, 39 s → 27 s and 58 s → 33 s of wall time."""
    import multiprocessing

    dask = pytest.importorskip("dask")
    pytest.importorskip("dask.distributed")
    from distributed.utils import get_mp_context

    dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"})
    get_mp_context()  # dask sets its own preload once, now, and never again
    multiprocessing.get_context("forkserver").set_forkserver_preload(list(WORKER_PRELOAD))


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    for shared in _CLUSTERS:
        if nextitem is None or shared.fixture not in getattr(nextitem, "fixturenames", ()):
            shared.close()


# ----------------------------------------------------------------------------- the documentation site
ROOT = Path(__file__).resolve().parents[1]
DOCS_GENERATED = ("_build", "generated", "auto_examples", "sg_execution_times.rst")


class DocsBuild:
    """The site built once per test session, and what its gallery run left.

    Attributes
    ----------
    html : Path
        The output folder.
    source : Path
        The copied docs/ folder (sphinx-gallery writes each example's page, with its printed
        output, under ``auto_examples/``).
    examples : Path
        The copied examples/ folder the gallery ran.
    reports : Path
        One JSON description of the figures of each executed example (written by docs/sphinxext/gallery_report.py).
    """

    def __init__(self, work):
        self.html = work / "html"
        self.source = work / "docs"
        self.examples = work / "examples"
        self.reports = work / "figures"

    def stdout(self, name: str) -> str:
        """What ``examples/<name>`` printed during the build (sphinx-gallery's output blocks)."""
        import re
        import textwrap

        page = (self.source / "auto_examples" / name).with_suffix(".rst").read_text(encoding="utf-8")
        blocks = re.findall(r"^\.\. rst-class:: sphx-glr-script-out\n\n \.\. code-block:: none\n\n((?:(?: {4}.*)?\n)+)",
                            page, re.MULTILINE)
        return "".join(textwrap.dedent(block).strip("\n") + "\n" for block in blocks)

    def figures(self, name: str) -> list:
        """The figures ``examples/<name>`` drew, one list of axes per figure, in order."""
        import json

        folder, stem = name.split("/")
        return json.loads((self.reports / f"{folder}__{stem[:-3]}.json").read_text())


@pytest.fixture(scope="session")
def docs_build(tmp_path_factory):
    """Build the site from a copy of docs/, examples/ and CHANGELOG.md with -W --keep-going.

    The build executes the gallery's ``plot_*`` examples (once in the whole test run: the example
    tests read their output from here). Skipped without the documentation tools.
    """
    import shutil
    import subprocess
    import sys

    for module in ["sphinx", "numpydoc", "sphinx_gallery", "pydata_sphinx_theme", "myst_parser", "matplotlib"]:
        pytest.importorskip(module)
    work = tmp_path_factory.mktemp("docs")
    shutil.copytree(ROOT / "docs", work / "docs", ignore=shutil.ignore_patterns(*DOCS_GENERATED))
    shutil.copytree(ROOT / "examples", work / "examples", ignore=shutil.ignore_patterns("__pycache__", "*.png"))
    shutil.copy(ROOT / "CHANGELOG.md", work / "CHANGELOG.md")
    site = DocsBuild(work)
    site.reports.mkdir()
    env = {**os.environ, "MPLBACKEND": "Agg", "AUCOPT_GALLERY_REPORT": str(site.reports)}
    env.pop("AUCOPT_DATA", None)
    build = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", "-j", "1", "-q",
                            str(site.source), str(site.html)], cwd=work, env=env, capture_output=True, text=True,
                           timeout=1200)
    assert build.returncode == 0, f"sphinx-build failed or warned:\n{build.stderr[-6000:]}"
    return site


# ----------------------------------------------------------------------------- parallel runs (pytest-xdist)
#: fixtures worth building once: the tests using them run together on one worker (``--dist loadgroup``)
_SHARED_FIXTURES = {"docs_build": "docs", "client": "dask", "process_client": "dask", "forked_dask_workers": "dask",
                    "wheel": "install", "prefix": "install", "process_pool": "loky"}


def _native_repr_failure(excinfo):
    """The exception as Python prints it: what an expected failure's report needs. pytest's own
    report of it parses every source file of the traceback (scikit-learn's estimator checks, 5,000
    lines) into an AST, about 0.3 s per expected failure, for a report nobody reads."""
    return excinfo.getrepr(style="native")


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    for item in items:
        if isinstance(item, pytest.DoctestItem):  # a docstring example a user copies prints no warning
            item.add_marker(pytest.mark.filterwarnings("error"))
        groups = {group for fixture, group in _SHARED_FIXTURES.items() if fixture in item.fixturenames}
        if groups:
            item.add_marker(pytest.mark.xdist_group(sorted(groups)[0]))
        if item.get_closest_marker("xfail") is not None:
            item.repr_failure = _native_repr_failure
