"""RankSVM / SurvivalRankSVM on dask collections against the in-memory fits, on a real LocalCluster.

Oracles: the in-memory estimator on the same numbers (same objective, iterations and solution),
the numpy products X @ w and X.T @ c, and the cluster's own record of where every block lives.
"""

import pickle
import sys

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")

from sklearn.exceptions import ConvergenceWarning  # noqa: E402

from aucopt import RankSVM, SurvivalRankSVM, survival_target  # noqa: E402
from aucopt.distributed import DaskRowOperator  # noqa: E402

N, D, CHUNK = 1500, 6, 200


def _data(target, weighted, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, D)) * np.array([1.0, 2.0, 0.5, 1.0, 3.0, 1.0])
    score = X @ np.array([1.0, -0.5, 0.0, 0.3, 0.2, 0.0]) + rng.normal(size=N)
    if target == "bipartite":
        y = (score > 0.3).astype(int)
    else:
        time = np.round(rng.exponential(np.exp(-score)), 2)  # rounded: tied times too
        y = survival_target(rng.random(N) < 0.6, time)
    w = None
    if weighted:
        w = rng.uniform(0.2, 3.0, size=N)
        w[rng.random(N) < 0.05] = 0.0  # zero weights: rows the in-memory fit drops
    return X, y, w


def _estimator(target, loss):
    cls = RankSVM if target == "bipartite" else SurvivalRankSVM
    return cls(alpha=0.01, loss=loss, tol=1e-10)


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("loss", ["squared_hinge", "smoothed_hinge"])
@pytest.mark.parametrize("target", ["bipartite", "survival"])
def test_dask_fit_equals_in_memory_fit(client, target, loss, weighted):
    X, y, w = _data(target, weighted)
    memory = _estimator(target, loss).fit(X, y, sample_weight=w)
    Xd = da.from_array(X, chunks=(CHUNK, D))
    wd = None if w is None else da.from_array(w, chunks=CHUNK)
    model = _estimator(target, loss).fit(Xd, y, sample_weight=wd)
    np.testing.assert_allclose(model.coef_, memory.coef_, rtol=0, atol=1e-8)
    assert model.n_iter_ == memory.n_iter_ and model.converged_
    assert model.objective_ == pytest.approx(memory.objective_, rel=1e-10)
    assert model.n_pairs_ == memory.n_pairs_ and model.n_samples_fit_ == memory.n_samples_fit_
    assert model.n_features_in_ == D
    # predictions: lazy dask arrays, equal to the in-memory ones
    scores = model.decision_function(Xd)
    assert isinstance(scores, da.Array)
    np.testing.assert_allclose(scores.compute(), memory.decision_function(X), rtol=0, atol=1e-8)
    predicted = model.predict(Xd)
    assert isinstance(predicted, da.Array)
    if target == "bipartite":
        assert model.threshold_ == pytest.approx(memory.threshold_, abs=1e-8)
        np.testing.assert_array_equal(model.classes_, memory.classes_)
        np.testing.assert_array_equal(predicted.compute(), memory.predict(X))
    else:
        np.testing.assert_allclose(predicted.compute(), memory.predict(X), rtol=0, atol=1e-8)
    assert model.score(Xd, y) == pytest.approx(memory.score(X, y), abs=1e-12)
    # numpy input to the dask-fitted model: numpy out
    assert isinstance(model.predict(X[:5]), np.ndarray)


def test_operator_products_match_numpy_and_blocks_stay_put(client):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(1000, 4))
    Xd = client.persist(da.from_array(X, chunks=(100, 4)))
    distributed.wait(Xd)
    op = DaskRowOperator(Xd, client)
    keys = op.keys
    assert len(keys) == 10
    before = {k: v for k, v in client.who_has().items() if k in set(keys)}
    for _ in range(10):
        w, c = rng.normal(size=4), rng.normal(size=1000)
        np.testing.assert_allclose(op @ w, X @ w, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(op.T @ c, X.T @ c, rtol=1e-12, atol=1e-12)
    after = {k: v for k, v in client.who_has().items() if k in set(keys)}
    # every block is on exactly one worker, the same before and after 20 products
    assert set(after) == set(keys) and all(len(after[k]) == 1 for k in keys), after
    assert {k: set(v) for k, v in before.items()} == {k: set(v) for k, v in after.items()}
    # each worker holds only its own blocks, as the operator's placement records them
    has_what = client.has_what()
    held = {worker: {k for k in has if k in set(keys)} for worker, has in has_what.items()}
    for worker, blocks in op.placement.items():
        assert held[worker] == {keys[b] for b in blocks}
    assert len(op.placement) == 2  # the data is spread over both workers
    # per product the driver moved O(n + d · tasks) bytes, never the 1000 × 4 matrix
    assert op.stats["max_bytes_per_call"] <= 8 * (1000 + 4 * op.stats["n_tasks_per_call"])
    assert op.stats["matvec_calls"] == 10 and op.stats["rmatvec_calls"] == 10
    with pytest.raises(TypeError, match="would gather X"):
        np.asarray(op)


def test_client_receives_o_of_d_bytes_and_the_coordination_runs_on_a_worker(process_client, monkeypatch):
    """The calling process gets θ, the history and the stats back, nothing of size n; X, y and the
    n-vectors of the Newton loop stay on the workers. A full-X compute trips the same spy."""
    client = process_client
    n, d = 20000, 10
    X = da.random.RandomState(3).normal(size=(n, d), chunks=(2500, d))  # generated on the workers
    coef = np.linspace(1.0, -1.0, d)
    y = (X @ coef + da.random.RandomState(4).normal(size=n, chunks=2500)) > 0  # lazy labels
    w = da.random.RandomState(5).uniform(0.5, 2.0, size=n, chunks=2500)  # lazy weights
    gathered, scattered = [], []
    original_gather, original_scatter = distributed.Client._gather, distributed.Client._scatter

    async def spy_gather(self, futures, *args, **kwargs):
        out = await original_gather(self, futures, *args, **kwargs)
        gathered.append(len(pickle.dumps(out)))
        return out

    async def spy_scatter(self, data, *args, **kwargs):
        scattered.append(len(pickle.dumps(data)))
        return await original_scatter(self, data, *args, **kwargs)

    def refuse(*args, **kwargs):
        raise AssertionError("a dask array was turned into a numpy array on the client")

    monkeypatch.setattr(distributed.Client, "_gather", spy_gather)
    monkeypatch.setattr(distributed.Client, "_scatter", spy_scatter)
    monkeypatch.setattr(da.Array, "__array__", refuse)
    with distributed.get_task_stream(client) as stream:
        model = RankSVM(alpha=0.01).fit(X, y, sample_weight=w)
    assert model.converged_ and model.n_iter_ >= 2
    # one small reply: the coefficients, the iteration history and the stats, far below one n-vector
    assert scattered == []
    assert len(gathered) == 1 and gathered[0] <= 8 * (d + 40 * model.n_iter_) + 4096 < 8 * n / 4, gathered
    stats = model.distributed_stats_
    # the coordination ran in a task on a worker (the scheduler's record), and it drove the products
    workers = set(client.scheduler_info()["workers"])
    coordinating = [t["worker"] for t in stream.data if "_coordinate" in str(t["key"])]
    assert coordinating == [stats["coordinator"]] and stats["coordinator"] in workers
    assert stats["matvec_calls"] > model.n_iter_ and set(stats["worker_seconds"]) == workers
    assert stats["max_bytes_per_call"] <= 8 * (n + d * stats["n_tasks_per_call"])
    assert 0.0 <= stats["communication_fraction"] <= 1.0
    # the same numbers in memory: the same solution; and the spy sees this full-X transfer (the
    # size checks above can fail)
    X_np, y_np, w_np = client.compute([X, y, w], sync=True)
    assert max(gathered) >= n * d * 8
    memory = RankSVM(alpha=0.01).fit(X_np, y_np, sample_weight=w_np)
    np.testing.assert_allclose(model.coef_, memory.coef_, rtol=0, atol=1e-8)


def test_in_memory_targets_are_scattered_once_and_warnings_reach_the_caller(process_client, monkeypatch):
    X, y, _ = _data("bipartite", False, seed=7)
    scattered = []
    original_scatter = distributed.Client._scatter

    async def spy_scatter(self, data, *args, **kwargs):
        scattered.append(data)
        return await original_scatter(self, data, *args, **kwargs)

    monkeypatch.setattr(distributed.Client, "_scatter", spy_scatter)
    Xd = da.from_array(X, chunks=(CHUNK, D))
    with pytest.warns(ConvergenceWarning, match="Newton did not converge"):
        model = RankSVM(alpha=1e-4, max_iter=1, tol=1e-14).fit(Xd, y)
    assert len(scattered) == 1 and np.array_equal(scattered[0][0], y)
    assert model.n_iter_ == 1 and not model.converged_
    memory = RankSVM(alpha=1e-4, max_iter=1, tol=1e-14)
    with pytest.warns(ConvergenceWarning):
        memory.fit(X, y)
    np.testing.assert_allclose(model.coef_, memory.coef_, rtol=0, atol=1e-8)


def test_dask_dataframe_input(client):
    X, y, w = _data("bipartite", True, seed=2)
    columns = [f"f{j}" for j in range(D)]
    frame = pd.DataFrame(X, columns=columns)
    Xdf = dd.from_pandas(frame, npartitions=4)
    ydf = dd.from_pandas(pd.Series(y), npartitions=4)
    wdf = dd.from_pandas(pd.Series(w), npartitions=4)
    memory = RankSVM(alpha=0.01).fit(frame, y, sample_weight=w)
    model = RankSVM(alpha=0.01).fit(Xdf, ydf, sample_weight=wdf)
    np.testing.assert_allclose(model.coef_, memory.coef_, rtol=0, atol=1e-8)
    assert list(model.feature_names_in_) == columns
    np.testing.assert_array_equal(model.predict(Xdf).compute(), memory.predict(frame))
    assert model.score(Xdf, ydf) == pytest.approx(memory.score(frame, y), abs=1e-12)
    with pytest.raises(ValueError, match="feature names should match"):
        model.predict(dd.from_pandas(frame.iloc[:, :3], npartitions=2))
    with pytest.raises(ValueError, match="X has 3 features, but RankSVM is expecting 6"):
        RankSVM(alpha=0.01).fit(da.from_array(X, chunks=(500, D)), y).predict(da.ones((4, 3)))


def test_survival_target_as_dask_dataframe(client):
    X, y, _ = _data("survival", False, seed=5)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(D)])
    target = pd.DataFrame({"time": y["time"], "event": y["event"]})
    memory = SurvivalRankSVM(alpha=0.01).fit(frame, y)
    model = SurvivalRankSVM(alpha=0.01).fit(dd.from_pandas(frame, npartitions=3),
                                            dd.from_pandas(target, npartitions=3))
    np.testing.assert_allclose(model.coef_, memory.coef_, rtol=0, atol=1e-8)
    # an (event, time) tuple of dask arrays is the same target
    tup = (da.from_array(y["event"], chunks=500), da.from_array(y["time"], chunks=500))
    again = SurvivalRankSVM(alpha=0.01).fit(da.from_array(X, chunks=(500, D)), tup)
    np.testing.assert_allclose(again.coef_, memory.coef_, rtol=0, atol=1e-8)


def test_alpha_path_on_dask(client):
    X, y, _ = _data("bipartite", False, seed=6)
    path = [1.0, 0.1]
    memory = RankSVM(alpha=0.01).fit(X, y, alpha_path=path)
    model = RankSVM(alpha=0.01).fit(da.from_array(X, chunks=(CHUNK, D)), y, alpha_path=path)
    assert [r["alpha"] for r in model.path_] == [1.0, 0.1, 0.01]
    for a, b in zip(model.path_, memory.path_, strict=False):
        np.testing.assert_allclose(a["coef"], b["coef"], rtol=0, atol=1e-8)
        assert a["iterations"] == b["iterations"]


def test_invalid_blocks_are_refused_on_the_workers(client):
    X, y, _ = _data("bipartite", False)
    X = X.copy()
    X[777, 2] = np.nan
    with pytest.raises(ValueError, match=r"NaN or infinite values \(first in block 3, rows 600 to 799\)"):
        RankSVM().fit(da.from_array(X, chunks=(CHUNK, D)), y)
    Xbig = np.ones((N, D)) * 1e80
    with pytest.raises(ValueError, match="magnitude 1e\\+80"):
        RankSVM().fit(da.from_array(Xbig, chunks=(CHUNK, D)), y)
    with pytest.raises(ValueError, match="1500 samples but the target has 10"):
        RankSVM().fit(da.from_array(X[:, :], chunks=(CHUNK, D)), y[:10])
    with pytest.raises(TypeError, match="pass X as a dask Array"):
        RankSVM().fit(np.nan_to_num(X), da.from_array(y, chunks=CHUNK))


def test_without_distributed_the_error_names_the_extra(monkeypatch):
    X, y, _ = _data("bipartite", False)
    Xd = da.from_array(X, chunks=(CHUNK, D))
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ImportError, match=r"aucopt\[dask\]"):
        RankSVM().fit(Xd, y)


def test_no_running_client_is_a_clear_error(client):
    X, y, _ = _data("bipartite", False)
    Xd = da.from_array(X, chunks=(CHUNK, D))
    with pytest.MonkeyPatch.context() as mp:
        def no_client(*args, **kwargs):
            raise ValueError("No clients found")
        mp.setattr(distributed, "get_client", no_client)
        with pytest.raises(ValueError, match=r"no dask\.distributed Client is running"):
            RankSVM().fit(Xd, y)
