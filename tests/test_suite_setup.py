"""The test suite's own set-up (tests/conftest.py): what keeps a parallel run from wasting CPU."""

import os
import subprocess
import sys

import numpy as np
import pytest


@pytest.mark.skipif("PYTEST_XDIST_WORKER_COUNT" not in os.environ, reason="only under pytest-xdist")
def test_each_worker_runs_blas_on_its_share_of_the_cores():
    from threadpoolctl import threadpool_info

    np.ones((64, 64)) @ np.ones((64, 64))  # BLAS loaded
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    share = max(cores // int(os.environ["PYTEST_XDIST_WORKER_COUNT"]), 1)
    pools = [pool for pool in threadpool_info() if pool["user_api"] == "blas"]
    assert pools and all(pool["num_threads"] <= share for pool in pools), pools
    child = subprocess.run([sys.executable, "-c", "import os; print(os.environ.get('OPENBLAS_NUM_THREADS'))"],
                           capture_output=True, text=True, check=True)
    assert child.stdout.strip() == os.environ["OPENBLAS_NUM_THREADS"]  # subprocesses inherit the limit


def test_rewritten_test_modules_are_kept_as_bytecode():
    """pytest caches each assertion-rewritten test module in __pycache__ only when bytecode may be written."""
    assert sys.dont_write_bytecode is False
