"""A linear ranker fitted on a dask cluster that loses a worker, or its client, in the middle of the fit.

A 3-worker LocalCluster (worker processes); a scheduler plugin kills one worker with SIGKILL, by its
process id, at a fixed point of the fit: when the fit submits its first product after the first
Newton gradient Xᵀc has returned. Oracles: the undisturbed fit on the same data (the same solution,
to the solver's tolerance), the scheduler's own record of which worker held which block and which
held y, and the blocks that lived only on the killed worker.
"""

import contextlib
import os
import signal

import numpy as np
import pytest

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

from conftest import DASK_CLUSTER_CONFIG  # noqa: E402
from distributed.diagnostics.plugin import SchedulerPlugin  # noqa: E402

from aucopt import RankSVM  # noqa: E402
from aucopt.distributed import DaskRowOperator  # noqa: E402
from aucopt.exceptions import ClusterDataLostError  # noqa: E402

N, D, CHUNK = 1500, 5, 150  # 10 blocks over 3 workers


@pytest.fixture(scope="module")
def cluster(forked_dask_workers):
    with dask.config.set(DASK_CLUSTER_CONFIG):  # dask's own test settings (tests/conftest.py)
        cluster = distributed.LocalCluster(n_workers=3, threads_per_worker=1, processes=True, dashboard_address=":0",
                                           memory_limit="2GiB")
    with cluster:
        yield cluster


@pytest.fixture
def client3(cluster):
    """A client of the 3-worker cluster, current for the test (a worker killed by the previous test has
    been restarted by its nanny by then)."""
    with distributed.Client(cluster, set_as_default=False) as client:
        client.wait_for_workers(3, timeout=120)
        with client.as_current():
            yield client


def _data(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, D)) * np.array([1.0, 2.0, 0.5, 1.0, 3.0])
    score = X @ np.array([1.0, -0.5, 0.0, 0.3, 0.2]) + rng.normal(size=N)
    return X, score


class KillMidFit(SchedulerPlugin):
    """Kill one worker (SIGKILL to its process) mid-fit: when the fit submits its first product after the
    first Newton gradient Xᵀc has returned (the first product of the conjugate gradient).

    ``victim`` chooses the worker from the scheduler's state: ``"coordinator"`` (the worker running
    the fit's coordinating task) or ``"block holder"`` (a worker holding blocks of X, but neither
    the coordinating task nor its inputs y and the weights).
    """

    name = "aucopt-kill-mid-fit"

    def __init__(self, scheduler, pids, victim, block_keys):
        self.scheduler, self.pids, self.victim, self.block_keys = scheduler, pids, victim, list(block_keys)
        self.gradient_done = False
        self.killed, self.only_on_victim, self.fit_finished_before, self.held_inputs = None, None, None, None

    def transition(self, key, start, finish, *args, **kwargs):
        if self.killed is not None or not str(key).startswith("_blocks_"):
            return
        if not self.gradient_done:
            self.gradient_done = str(key).startswith("_blocks_rmatvec") and finish == "memory"
            return
        if start != "released":  # a task of the next product, just submitted
            return
        tasks = self.scheduler.tasks
        (coordinator,) = [ts for k, ts in tasks.items() if str(k).startswith("_coordinate")]
        self.fit_finished_before = coordinator.state == "memory"
        here = coordinator.processing_on.address
        holders = {k: {ws.address for ws in tasks[k].who_has or ()} for k in self.block_keys}
        inputs = {ws.address for dep in coordinator.dependencies for ws in dep.who_has or ()}
        if self.victim == "coordinator":
            address = here
        else:
            candidates = sorted({w for h in holders.values() for w in h} - inputs - {here})
            assert candidates, f"no worker holds blocks without the fit's inputs: {holders}, inputs on {inputs}"
            address = candidates[0]
        self.only_on_victim = [b for b, k in enumerate(self.block_keys) if holders[k] == {address}]
        self.held_inputs = inputs == {address}  # the only copy of the scattered y
        self.killed = address
        os.kill(self.pids[address], signal.SIGKILL)


@contextlib.contextmanager
def killing(client, X, victim):
    """While in the block, the plugin kills a worker mid-fit (a fit on the persisted X); yields the plugin."""
    block_keys = [f.key for f in distributed.futures_of(X)]
    plugin = KillMidFit(client.cluster.scheduler, client.run(os.getpid), victim, block_keys)
    client.cluster.scheduler.add_plugin(plugin)
    try:
        yield plugin
    finally:
        client.cluster.scheduler.remove_plugin(plugin.name)
    assert plugin.killed is not None and plugin.fit_finished_before is False  # mid-fit


@pytest.mark.parametrize("victim", ["block holder", "coordinator"])
def test_a_worker_killed_mid_fit_is_survived_with_the_same_solution(client3, victim, monkeypatch):
    X, score = _data()
    y = (score > 0.3).astype(int)
    undisturbed = RankSVM(alpha=0.01, tol=1e-10).fit(X, y)
    Xd = client3.persist(da.from_array(X, chunks=(CHUNK, D)))
    scattered = []
    original_scatter = distributed.Client._scatter

    async def spy_scatter(self, data, *args, **kwargs):
        scattered.append(data)
        return await original_scatter(self, data, *args, **kwargs)

    monkeypatch.setattr(distributed.Client, "_scatter", spy_scatter)
    with killing(client3, Xd, victim) as plugin:
        model = RankSVM(alpha=0.01, tol=1e-10).fit(Xd, y)
    np.testing.assert_allclose(model.coef_, undisturbed.coef_, rtol=0, atol=1e-8)
    assert model.n_iter_ == undisturbed.n_iter_ and model.converged_
    assert model.objective_ == pytest.approx(undisturbed.objective_, rel=1e-10)
    assert model.threshold_ == pytest.approx(undisturbed.threshold_, abs=1e-8)
    stats = model.distributed_stats_
    assert stats["coordinator"] != plugin.killed
    assert plugin.killed not in stats["placement"]  # the lost blocks were recomputed elsewhere
    assert sorted(b for blocks in stats["placement"].values() for b in blocks) == list(range(N // CHUNK))
    if victim == "block holder":  # the coordinator went on: it saw the worker leave, and moved the blocks
        assert plugin.only_on_victim, "the killed worker held no block of its own"
        assert stats["workers_lost"] == [plugin.killed]
        assert len(scattered) == 1
    else:  # the fit started again on another worker; y was sent again if its only copy was lost
        assert len(scattered) == (2 if plugin.held_inputs else 1)
        assert all(np.array_equal(data[0], y) for data in scattered)
    # the data the fit persisted is still whole on the cluster, and equal to X
    np.testing.assert_array_equal(Xd.compute(), X)


def test_operator_products_after_a_worker_is_killed_equal_numpy(client3):
    """The operator in the client process: a worker is killed between products (and the scheduler has
    removed it): the next Xᵀc recomputes the blocks elsewhere instead of waiting for the dead worker."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(1000, 4))
    op = DaskRowOperator(da.from_array(X, chunks=(100, 4)), client3)
    w, c = rng.normal(size=4), rng.normal(size=1000)
    np.testing.assert_allclose(op.T @ c, X.T @ c, rtol=1e-12, atol=1e-12)
    victim = sorted(op.placement)[0]
    os.kill(client3.run(os.getpid)[victim], signal.SIGKILL)
    client3.sync(_until_removed, client3.cluster.scheduler, victim)
    np.testing.assert_allclose(op.T @ c, X.T @ c, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(op @ w, X @ w, rtol=1e-12, atol=1e-12)
    assert op.stats["workers_lost"] == [victim] and victim not in op.placement
    held = client3.who_has(op._futures)
    assert all(set(held[k]) and victim not in held[k] for k in op.keys)


async def _until_removed(scheduler, address):
    """Until the scheduler has removed the worker (it sees the closed connection at once)."""
    import asyncio

    while address in scheduler.workers:
        await asyncio.sleep(0.01)


def test_a_lost_scattered_block_is_a_clear_error(client3):
    """Blocks sent with client.scatter have no graph: lost with their worker, they cannot be recomputed."""
    X, score = _data(seed=3)
    y = (score > 0.3).astype(int)
    pieces = [X[i:i + CHUNK] for i in range(0, N, CHUNK)]
    scattered = client3.scatter(pieces, hash=False)
    Xd = client3.persist(da.concatenate([da.from_delayed(f, shape=p.shape, dtype=float)
                                         for f, p in zip(scattered, pieces, strict=False)]))
    lost = r"lost with a worker that left the cluster and cannot be recomputed: no dask graph describes them"
    with pytest.raises(ClusterDataLostError, match=lost) as info, killing(client3, Xd, "block holder") as plugin:
        RankSVM(alpha=0.01, tol=1e-10).fit(Xd, y)
    # exactly the blocks that lived only on the killed worker, by their rows
    assert plugin.only_on_victim
    assert info.value.lost == tuple(f"block {b} of X (rows {b * CHUNK} to {(b + 1) * CHUNK - 1})"
                                    for b in plugin.only_on_victim)
    message = str(info.value)
    assert "client.scatter" in message and "from_array" in message and "fit again" in message


@pytest.mark.parametrize("moment", ["while X is persisted", "while the fit runs"])
def test_a_client_closed_mid_fit_is_a_clear_error(cluster, monkeypatch, moment):
    X, score = _data(seed=4)
    y = (score > 0.3).astype(int)
    client = distributed.Client(cluster, set_as_default=False)
    if moment == "while X is persisted":
        original = distributed.wait

        def close_then_wait(futures, *args, **kwargs):
            client.close()
            return original(futures, *args, **kwargs)

        monkeypatch.setattr(distributed, "wait", close_then_wait)
    else:
        original = distributed.Future.result

        def close_then_result(self, *args, **kwargs):
            if str(self.key).startswith("_coordinate"):
                client.close()
            return original(self, *args, **kwargs)

        monkeypatch.setattr(distributed.Future, "result", close_then_result)
    try:
        with client.as_current(), pytest.raises(ClusterDataLostError, match="client closed") as info:
            RankSVM(alpha=0.01).fit(da.from_array(X, chunks=(CHUNK, D)), y)
    finally:
        client.close()
    assert isinstance(info.value.__cause__, distributed.client.CancelledError)
    assert "fit again" in str(info.value) and "nothing was fitted" in str(info.value)
