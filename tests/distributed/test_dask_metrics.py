"""Ranking metrics of dask collections equal the in-memory values exactly, for every chunking.

The oracle is the in-memory metric on the numpy arrays (itself tested against brute force and
scikit-learn / scikit-survival in tests/test_metrics.py); here the values must be equal with
``==``, with ties, case weights and censoring, and the graphs must run on the cluster.
"""

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")
distributed = pytest.importorskip("dask.distributed")

from aucopt import survival_target  # noqa: E402
from aucopt.distributed import gather_vectors  # noqa: E402
from aucopt.metrics import concordance_counts, harrell_c, multipartite_c_index, roc_auc, xauc  # noqa: E402

N = 157
CHUNKINGS = [N, 50, 17, (1, 100, 56), (60, 0, 97)]


def _data(seed=0):
    """Scores on a coarse grid (many exact ties), times with ties, ~40% censored, integer and real weights."""
    rng = np.random.default_rng(seed)
    score = np.round(rng.normal(size=N), 1)
    score[:10] = score[10:20]  # more ties, also at the tolerance's scale below
    score[20] = score[21] + 1e-10
    label = rng.random(N) < 0.45
    time = np.round(rng.exponential(2.0, size=N), 1)
    event = rng.random(N) < 0.6
    int_w = rng.integers(0, 4, size=N).astype(float)  # zeros remove rows
    real_w = rng.uniform(0.1, 3.0, size=N)
    group = np.where(rng.random(N) < 0.5, "a", "b")
    level = rng.integers(0, 3, size=N)
    return score, label, time, event, int_w, real_w, group, level


def _dask(x, chunks):
    return da.from_array(np.asarray(x), chunks=(chunks,) if isinstance(chunks, tuple) else chunks)


def _persisted(client, chunks, *arrays):
    """The arrays as dask arrays of this chunking, computed once on the cluster and kept there.

    A metric call on them still computes them on the cluster (the gather of their blocks) but does
    not run their ``from_array`` graph again: the loops below call a metric 18 and 27 times per
    chunking, and with new arrays every call ran their graphs again (40 tasks for 4 arrays of 10
    blocks: 0.11 s of CPU a call, measured; 0.02 s on persisted arrays). Each test first calls a
    metric on arrays that are not persisted, so that their graphs run in the metric's compute
    (before the persist: the persisted arrays have the same keys).
    """
    return client.persist([_dask(x, chunks) for x in arrays])


@pytest.mark.parametrize("chunks", CHUNKINGS)
def test_roc_auc_dask_arrays_equal_in_memory(client, chunks):
    score, label, *_, int_w, real_w, _, _ = _data()
    # labels other than bool, and pos_label (arrays not persisted: their graphs run in the metric's compute)
    labels = np.where(label, "sick", "healthy")
    assert roc_auc(_dask(labels, chunks), _dask(score, chunks), pos_label="healthy") == roc_auc(
        labels, score, pos_label="healthy")
    dlabel, dscore, dint_w, dreal_w = _persisted(client, chunks, label, score, int_w, real_w)
    for weights, dweights in ((None, None), (int_w, dint_w), (real_w, dreal_w)):
        for ties in ("half", "strict"):
            for tied_tol in (0.0, 1e-8, 1e-3):
                expected = roc_auc(label, score, ties=ties, tied_tol=tied_tol, sample_weight=weights)
                got = roc_auc(dlabel, dscore, ties=ties, tied_tol=tied_tol, sample_weight=dweights)
                assert got == expected


@pytest.mark.parametrize("chunks", CHUNKINGS)
def test_harrell_c_and_counts_dask_equal_in_memory(client, chunks):
    score, _, time, event, int_w, real_w, _, _ = _data(1)
    y = survival_target(event, time)
    # arrays not persisted: their graphs run in the metric's compute
    assert harrell_c((_dask(event, chunks), _dask(time, chunks)), _dask(score, chunks),
                     sample_weight=_dask(real_w, chunks)) == harrell_c(y, score, sample_weight=real_w)
    devent, dtime, dscore, dint_w, dreal_w = _persisted(client, chunks, event, time, score, int_w, real_w)
    for weights, dw in ((None, None), (int_w, dint_w), (real_w, dreal_w)):
        for tied_tol in (0.0, 1e-8, 1e-2):
            expected = concordance_counts(y, score, tied_tol=tied_tol, sample_weight=weights)
            got = concordance_counts((devent, dtime), dscore, tied_tol=tied_tol, sample_weight=dw)
            assert got == expected
            assert type(got.concordant) is type(expected.concordant)
            for ties in ("half", "strict"):
                assert harrell_c((devent, dtime), dscore, ties=ties, tied_tol=tied_tol, sample_weight=dw) == harrell_c(
                    y, score, ties=ties, tied_tol=tied_tol, sample_weight=weights)


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_dask_dataframe_columns_and_survival_frame(client, npartitions):
    score, _, time, event, int_w, _, _, _ = _data(2)
    frame = pd.DataFrame({"time": time, "event": event, "risk": score, "w": int_w})
    ddf = dd.from_pandas(frame, npartitions=npartitions)
    y = survival_target(event, time)
    expected = harrell_c(y, score, sample_weight=int_w)
    assert harrell_c((ddf["event"], ddf["time"]), ddf["risk"], sample_weight=ddf["w"]) == expected
    assert harrell_c(ddf[["event", "time"]], ddf["risk"], sample_weight=ddf["w"]) == expected  # a survival frame
    assert harrell_c(frame[["time", "event"]], score, sample_weight=int_w) == expected  # in memory too
    assert concordance_counts(ddf[["time", "event"]], ddf["risk"]) == concordance_counts(y, score)
    assert roc_auc(ddf["event"], ddf["risk"]) == roc_auc(event, score)
    # a dask array from a DataFrame has unknown chunk sizes
    assert harrell_c(ddf[["event", "time"]], ddf["risk"].to_dask_array()) == harrell_c(y, score)


def test_xauc_and_multipartite_on_dask(client):
    score, label, _, _, _, real_w, group, level = _data(3)
    expected = xauc(label, score, group, sample_weight=real_w)
    got = xauc(_dask(label, 40), _dask(score, 33), _dask(group, 50), sample_weight=_dask(real_w, 60))
    assert (got.ab, got.ba, got.group_a, got.group_b) == (expected.ab, expected.ba, expected.group_a,
                                                        expected.group_b)
    assert multipartite_c_index(_dask(level, 30), _dask(score, 70)) == multipartite_c_index(level, score)


def test_survival_target_and_validation_from_dask(client):
    _, _, time, event, *_ = _data(4)
    ddf = dd.from_pandas(pd.DataFrame({"event": event, "time": time}), npartitions=4)
    y = survival_target(ddf["event"], ddf["time"])
    assert y.dtype.names == ("event", "time")
    assert np.array_equal(y["event"], event) and np.array_equal(y["time"], time)
    with pytest.raises(ValueError, match="exactly one boolean column"):
        harrell_c(ddf.astype({"event": int}), np.zeros(N))
    with pytest.raises(ValueError, match="time must be non-negative"):
        harrell_c((ddf["event"], -ddf["time"]), np.zeros(N))
    with pytest.raises(ValueError, match=r"Inconsistent numbers of samples"):
        harrell_c(ddf, _dask(np.zeros(N - 1), 50))


def test_gather_vectors_computes_once_on_the_cluster_and_refuses_matrices(client):
    from distributed import get_task_stream

    score = _dask(np.arange(N, dtype=float), 40)
    with get_task_stream(client) as stream:
        (event, time), risk, other = gather_vectors((score > 50, score + 1), score, "kept")
    assert other == "kept"
    assert np.array_equal(event, np.arange(N) > 50) and np.array_equal(risk, np.arange(N))
    assert np.array_equal(time, np.arange(N) + 1.0)
    # one compute: the shared blocks of ``score`` are created once (4 blocks), not once per output
    created = [t for t in stream.data if t["key"][0].startswith("array-")]
    assert len(created) == 4
    X = da.ones((N, 3), chunks=(40, 3))
    with pytest.raises(ValueError, match=r"shape \(157, 3\).*not matrices"):
        roc_auc(_dask(np.arange(N) % 2, 40), X)
    frame = dd.from_pandas(pd.DataFrame({"event": [True] * 4, "time": [1.0] * 4, "x": [0.0] * 4}), npartitions=2)
    with pytest.raises(ValueError, match="3 columns"):
        harrell_c(frame, np.zeros(4))
