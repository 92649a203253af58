"""A real dask.distributed LocalCluster (two worker processes), shared by the distributed tests."""

import pytest

distributed = pytest.importorskip("dask.distributed")


@pytest.fixture(scope="session")
def client():
    """A client on a LocalCluster of 2 worker processes with 1 thread each (started once per session)."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  memory_limit="2GiB") as cluster, distributed.Client(cluster) as c:
        yield c
