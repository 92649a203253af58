"""One-pass AUC (aucopt.online) and the dask statistics (aucopt.distributed) against brute-force oracles.

Oracles: the brute-force pairwise gradient and normal equations of Gao et al. (2013), Eq. (2);
numpy class means and covariances; an orthonormal sketch (exact low-rank covariance).
"""

import bz2
import io

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.datasets import dump_svmlight_file, load_breast_cancer, load_svmlight_file
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.preprocessing import StandardScaler

from aucopt.metrics import roc_auc
from aucopt.online._onepass import (
    ClassStats,
    OnePassAUC,
    batch_solution,
    batch_solution_from_stats,
    class_statistics,
    iter_svmlight_chunks,
)


def _stream(seed=0, n=80, d=7, frac=0.3):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < frac, 1, -1)
    X = rng.standard_normal((n, d)) * 0.4 + 0.7 + 0.3 * (y == 1)[:, None]  # uncentered
    return X, y


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    sc = StandardScaler().fit(Xtr)
    return sc.transform(Xtr), sc.transform(Xte), ytr, yte


# ------------------------------------------------------------------ streaming gradient and class statistics
def test_streaming_gradient_equals_bruteforce_pairwise_gradient():
    X, y = _stream()
    alpha = 0.3
    est = OnePassAUC(alpha=alpha, eta0=0.05)
    rng = np.random.default_rng(5)
    checked = 0
    for t in range(len(y)):
        if t:
            w = rng.standard_normal(X.shape[1])
            opp = np.flatnonzero(y[:t] != y[t])
            if len(opp):  # brute force ∇ of (λ/2)|w|² + (1/2T_opp) Σ (1 − y_t wᵀ(x_t − x_i))²
                D = X[t] - X[opp]
                r = 1 - y[t] * (D @ w)
                brute = alpha * w - y[t] * (D.T @ r) / len(opp)
            else:
                brute = np.zeros_like(w)
            got = est.loss_gradient(X[t], y[t], w)
            np.testing.assert_allclose(got, brute, rtol=0, atol=1e-10 * max(1, np.abs(brute).max()))
            checked += 1
            for k, lab in ((0, -1), (1, 1)):  # Welford statistics = numpy on the prefix
                Xc = X[:t][y[:t] == lab]
                assert est.class_count_[k] == len(Xc)
                if len(Xc):
                    np.testing.assert_allclose(est.class_mean_[k], Xc.mean(0), atol=1e-12)
                    np.testing.assert_allclose(est.class_cov_[k], np.cov(Xc.T, bias=True), atol=1e-12)
        est.partial_fit(X[t:t + 1], y[t:t + 1], classes=[-1, 1])
    assert checked == len(y) - 1


def test_no_step_until_both_classes_seen():
    X, y = _stream()
    y = np.r_[np.ones(5, int), -np.ones(5, int), y[10:]]
    est = OnePassAUC(eta0=0.1)
    est.partial_fit(X[:5], y[:5])  # classes unknown, one label only
    assert not hasattr(est, "classes_") and np.all(est.coef_ == 0) and est.n_updates_ == 0
    est.partial_fit(X[5:], y[5:])
    ref = OnePassAUC(eta0=0.1).fit(X, y)
    np.testing.assert_array_equal(est.coef_, ref.coef_)
    np.testing.assert_array_equal(est.class_mean_, ref.class_mean_)
    assert ref.n_updates_ == len(y) - 5  # the 5 leading positives only update statistics


def test_batch_solution_solves_pairwise_normal_equations():
    X, y = _stream(n=60, d=5)
    alpha = 0.05
    P, N = X[y == 1], X[y == -1]
    D = (P[:, None, :] - N[None, :, :]).reshape(-1, X.shape[1])
    w_brute = np.linalg.solve(alpha * np.eye(5) + D.T @ D / len(D), D.sum(0) / len(D))
    np.testing.assert_allclose(batch_solution(X, y, alpha), w_brute, rtol=1e-10)


# ------------------------------------------------------------------ convergence to the batch minimizer
def test_one_pass_approaches_batch_solution_synthetic():
    rng = np.random.default_rng(1)
    d, T = 10, 50_000
    y = np.where(rng.random(T + 20_000) < 0.2, 1, -1)
    A = rng.standard_normal((d, d)) / np.sqrt(d)
    X = rng.standard_normal((len(y), d)) @ A * 0.5 + np.outer(y == 1, np.linspace(-0.3, 0.3, d)) + 0.2
    X /= np.linalg.norm(X, axis=1).max()  # |x| <= 1 as in the theory
    Xtr, ytr, Xte, yte = X[:T], y[:T], X[T:], y[T:]
    ws = batch_solution(Xtr, ytr, 1e-3)
    est = OnePassAUC(alpha=1e-3, eta0=0.2).fit(Xtr, ytr)
    assert np.linalg.norm(est.coef_ - ws) / np.linalg.norm(ws) < 0.10
    assert abs(est.score(Xte, yte) - roc_auc(yte, Xte @ ws)) < 0.01
    np.testing.assert_allclose(est.batch_solution(), ws, rtol=1e-9)  # streamed stats are exact


def test_breast_cancer_one_pass_auc_and_passes_reach_batch(cancer):
    Xtr, Xte, ytr, yte = cancer
    alpha = 0.1
    ws = batch_solution(Xtr, ytr, alpha)
    auc_star = roc_auc(yte, Xte @ ws)
    one = OnePassAUC(alpha=alpha, eta0=0.01).fit(Xtr, ytr)
    assert abs(one.score(Xte, yte) - auc_star) < 0.01
    # repeating the data leaves the class means / population covariances unchanged, so
    # further shuffled passes keep w* as the fixed point and close the gap
    est, rng = OnePassAUC(alpha=alpha, eta0=0.003), np.random.default_rng(0)
    for _ in range(30):
        p = rng.permutation(len(ytr))
        est.partial_fit(Xtr[p], ytr[p])
    assert np.linalg.norm(est.coef_ - ws) / np.linalg.norm(ws) < 0.10
    assert abs(est.score(Xte, yte) - auc_star) < 0.01
    np.testing.assert_allclose(est.batch_solution(), ws, rtol=1e-8)


# ------------------------------------------------------------------ low-rank covariance sketch
def test_lowrank_with_orthonormal_sketch_equals_full():
    rng = np.random.default_rng(3)
    d, T = 12, 12
    X, y = _stream(seed=4, n=T, d=d, frac=0.5)
    R = np.linalg.qr(rng.standard_normal((d, d)))[0][:T]  # R Rᵀ = I_T, tau = d
    full = OnePassAUC(alpha=0.01, eta0=0.05)
    low = OnePassAUC(alpha=0.01, eta0=0.05, sketch=R)
    for t in range(T):
        full.partial_fit(X[t:t + 1], y[t:t + 1], classes=[-1, 1])
        low.partial_fit(X[t:t + 1], y[t:t + 1], classes=[-1, 1])
        np.testing.assert_allclose(low.coef_, full.coef_, atol=1e-10)
        for k in (0, 1):
            if full.class_count_[k]:
                w = rng.standard_normal(d)
                np.testing.assert_allclose(low._cov_matvec(k, w), full.class_cov_[k] @ w, atol=1e-10)
    assert low.n_updates_ > 0 and low.rank_ == d


def test_lowrank_random_sketch_matvec_and_quality(cancer):
    Xtr, Xte, ytr, yte = cancer
    est = OnePassAUC(alpha=0.1, eta0=0.01, rank=10, random_state=0).fit(Xtr, ytr)
    assert est.class_sketch_.shape == (2, Xtr.shape[1], 10) and not hasattr(est, "class_cov_")
    # the Z-trick matvec equals the explicit (Z − c sᵀ)(Z − c sᵀ)ᵀ / T
    Z, s, c, n = est.class_sketch_[1], est.class_sketch_sum_[1], est.class_mean_[1], est.class_count_[1]
    B = Z - np.outer(c, s)
    w = np.arange(Xtr.shape[1], dtype=float)
    np.testing.assert_allclose(est._cov_matvec(1, w), B @ (B.T @ w) / n, rtol=1e-12)
    assert est.score(Xte, yte) > 0.95
    again = OnePassAUC(alpha=0.1, eta0=0.01, rank=10, random_state=0).fit(Xtr, ytr)
    np.testing.assert_array_equal(again.coef_, est.coef_)


# ------------------------------------------------------------------ chunks, sparse, files
@pytest.mark.parametrize("rank", [None, 3])
def test_chunks_sparse_and_iterator_equal_fit(rank):
    X, y = _stream(n=150, d=6)
    ref = OnePassAUC(alpha=0.01, eta0=0.05, rank=rank, average=True).fit(X, y)
    part = OnePassAUC(alpha=0.01, eta0=0.05, rank=rank, average=True)
    for a, b in [(0, 7), (7, 8), (8, 100), (100, 150)]:
        part.partial_fit(X[a:b], y[a:b])
    spm = OnePassAUC(alpha=0.01, eta0=0.05, rank=rank, average=True).fit(sp.csr_matrix(X), y)
    it = OnePassAUC(alpha=0.01, eta0=0.05, rank=rank, average=True).fit(
        (X[a:a + 40], y[a:a + 40]) for a in range(0, 150, 40))
    for other in (part, it):
        np.testing.assert_array_equal(other.coef_, ref.coef_)
        np.testing.assert_array_equal(other.coef_avg_, ref.coef_avg_)
        np.testing.assert_array_equal(other.decision_function(X), ref.decision_function(X))
    # CSR rows: the same iterates, to rounding (through the classes' second moments without a sketch)
    np.testing.assert_allclose(spm.coef_, ref.coef_, rtol=1e-12, atol=1e-12 * np.abs(ref.coef_).max())
    np.testing.assert_allclose(spm.coef_avg_, ref.coef_avg_, rtol=1e-12, atol=1e-12 * np.abs(ref.coef_avg_).max())
    assert ref.n_seen_ == 150


def test_refit_resets_state():
    X, y = _stream()
    est = OnePassAUC().fit(X, y)
    first = est.coef_.copy()
    np.testing.assert_array_equal(est.fit(X, y).coef_, first)
    assert est.class_count_.sum() == len(y)


@pytest.mark.parametrize("suffix", ["", ".bz2"])
def test_svmlight_chunk_streamer(tmp_path, suffix):
    rng = np.random.default_rng(0)
    X = sp.random(53, 9, density=0.3, random_state=1, format="csr")
    y = np.where(rng.random(53) < 0.4, 1, -1)
    path = tmp_path / "data.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False, comment="header")
    if suffix:
        path = tmp_path / ("data.svm" + suffix)
        path.write_bytes(bz2.compress((tmp_path / "data.svm").read_bytes()))
    Xr, yr = load_svmlight_file(str(tmp_path / "data.svm"), n_features=9, zero_based=False)
    chunks = list(iter_svmlight_chunks(path, chunk_size=10, n_features=9))
    assert len(chunks) == 6
    np.testing.assert_array_equal(sp.vstack([c[0] for c in chunks]).toarray(), Xr.toarray())
    np.testing.assert_array_equal(np.concatenate([c[1] for c in chunks]), yr)
    streamed = OnePassAUC(eta0=0.1).fit(iter_svmlight_chunks(path, 10, 9))
    whole = OnePassAUC(eta0=0.1).fit(Xr, yr).coef_  # chunk ends convert the second moments: rounding
    np.testing.assert_allclose(streamed.coef_, whole, rtol=1e-12, atol=1e-12 * np.abs(whole).max())


# ------------------------------------------------------------------ sklearn API, bad input
def test_sklearn_compat(cancer):
    Xtr, Xte, ytr, yte = cancer
    est = OnePassAUC(alpha=0.1, eta0=0.01)
    assert clone(est).get_params() == est.get_params()
    gs = GridSearchCV(est, {"alpha": [1e-2, 1e-1]}, cv=3).fit(Xtr, ytr)
    assert gs.best_params_["alpha"] in (1e-2, 1e-1) and gs.score(Xte, yte) > 0.95
    est.fit(Xtr, ytr)
    pred = est.predict(Xte)
    assert set(pred) <= {0, 1} and np.mean(pred == yte) > 0.85
    np.testing.assert_allclose(est.score(Xte, yte), roc_auc(yte, est.decision_function(Xte)))
    # string labels with pos_label = the smaller one: the ranking flips sign consistently
    ys = np.where(ytr == 1, "benign", "malignant")
    flip = OnePassAUC(alpha=0.1, eta0=0.01, pos_label="malignant").fit(Xtr, ys)
    np.testing.assert_allclose(flip.coef_, -est.coef_, atol=1e-12)
    assert flip.score(Xte, np.where(yte == 1, "benign", "malignant")) == pytest.approx(est.score(Xte, yte))


@pytest.mark.parametrize("params, X_y, match", [
    ({}, "one_class", "one class"),
    ({}, "nan", "NaN"),
    ({"rank": 8}, None, "rank=8 exceeds n_features=7"),
    ({"rank": 3, "sketch": np.ones((30, 2))}, None, "does not match the 2 columns of sketch"),
    ({"sketch": np.ones(30)}, None, "sketch must be a finite 2-d array"),
    ({}, "three", "binary"),
])
def test_bad_input(params, X_y, match):
    X, y = _stream(n=30, d=7)
    if X_y == "one_class":
        y = np.ones_like(y)
    elif X_y == "nan":
        X = X.copy()
        X[3, 2] = np.nan
    elif X_y == "three":
        y = np.arange(30) % 3
    with pytest.raises(ValueError, match=match):
        OnePassAUC(**params).fit(X, y)


class _Untouchable:
    """Data that fails loudly if anything reads it: parameter checks must come first."""

    shape = (30, 7)

    def __array__(self, *args, **kwargs):
        raise AssertionError("the data was read before the parameters were checked")

    def __len__(self):
        raise AssertionError("the data was read before the parameters were checked")


@pytest.mark.parametrize("param, value", [
    ("alpha", 0), ("alpha", -1.0), ("alpha", "big"), ("eta0", 0), ("eta0", None),
    ("rank", 0), ("rank", 1.5), ("average", "yes"), ("random_state", "seed"),
    ("pos_label", [1]), ("sketch", "R"), ("max_bytes", 0), ("max_bytes", -1.0),
])
def test_each_constraint_rejects_bad_value_before_any_work(param, value):
    from sklearn.utils._param_validation import InvalidParameterError

    est = OnePassAUC(**{param: value})
    for call in (lambda: est.fit(_Untouchable(), _Untouchable()),
                 lambda: est.partial_fit(_Untouchable(), _Untouchable())):
        with pytest.raises(InvalidParameterError, match=f"'{param}' parameter of OnePassAUC"):
            call()
    assert not hasattr(est, "coef_")


def test_partial_fit_validates_again_only_a_parameter_set_anew(monkeypatch):
    """The parameter check (as costly as a thousand rows' updates) runs at the first call and after
    ``set_params``, not at every call with the same parameters."""
    from sklearn.utils._param_validation import InvalidParameterError

    X, y = _stream(n=40, d=4)
    est = OnePassAUC(alpha=0.01)
    checks = []
    original = OnePassAUC._validate_params
    monkeypatch.setattr(OnePassAUC, "_validate_params", lambda self: (checks.append(1), original(self)))
    for a in range(0, 40, 10):
        est.partial_fit(X[a:a + 10], y[a:a + 10], classes=[-1, 1])
    assert len(checks) == 1
    est.set_params(eta0="bogus")
    with pytest.raises(InvalidParameterError, match="'eta0' parameter of OnePassAUC"):
        est.partial_fit(X[:10], y[:10])
    est.set_params(eta0="auto")  # the parameters checked at the first call: not checked again
    est.partial_fit(X[:10], y[:10])
    assert len(checks) == 2
    est.set_params(alpha=0.05)
    est.partial_fit(X[:10], y[:10])
    assert len(checks) == 3


def test_later_chunks_are_checked_as_the_first():
    """A later chunk that is a C-contiguous finite float64 ndarray of the fitted width skips
    scikit-learn's general input checks (one compiled pass finds its largest magnitude and that it
    is finite); any other chunk takes them, with their errors and warnings, and a refused chunk
    leaves the state as it was."""
    pd = pytest.importorskip("pandas")
    X, y = _stream(n=60, d=4)
    ref = OnePassAUC().partial_fit(X[:30], y[:30], classes=[-1, 1]).partial_fit(X[30:], y[30:])
    est = OnePassAUC().partial_fit(X[:30], y[:30], classes=[-1, 1])
    nan, inf = X[30:33].copy(), X[30:33].copy()
    nan[1, 2], inf[2, 0] = np.nan, -np.inf
    huge = np.full((2, 4), 1e308)  # finite entries whose squares overflow: the scale check decides
    tiny = np.full((2, 4), 1e-200)  # ... or underflow
    for bad, labels, match in ((nan, y[30:33], "NaN"), (inf, y[30:33], "infinity"),
                               (np.asfortranarray(nan), y[30:33], "NaN"),  # not C-contiguous: the general checks
                               (X[30:40, :3], y[30:40], "3 features"), (np.empty((0, 4)), y[:0], "0 sample"),
                               (huge, y[30:32], "overflow"), (tiny, y[30:32], "underflow")):
        with pytest.raises(ValueError, match=match):
            est.partial_fit(bad, labels)
    with pytest.raises(ValueError, match="not in classes"):
        est.partial_fit(X[30:33], np.array([1, 2, -1]))
    est.partial_fit(X[30:].tolist(), y[30:].tolist())  # lists: the general checks, the same rows
    for name in ("coef_", "coef_avg_", "class_cov_", "class_mean_"):
        np.testing.assert_array_equal(getattr(est, name), getattr(ref, name), err_msg=name)
    named = OnePassAUC().partial_fit(pd.DataFrame(X[:30], columns=list("abcd")), y[:30], classes=[-1, 1])
    with pytest.warns(UserWarning, match="feature names"):
        named.partial_fit(X[30:], y[30:])


def test_memory_budget_raises_before_allocating():
    from aucopt.exceptions import ProblemTooLargeError

    X, y = _stream(n=30, d=7)
    with pytest.raises(ProblemTooLargeError, match="rank=") as info:
        OnePassAUC(max_bytes=500).fit(X, y)
    # two 7 x 7 covariances and their scatter matrices (rows padded to 8 doubles)
    assert info.value.nbytes == 8 * 2 * 7 * (7 + 8) and info.value.max_bytes == 500
    with pytest.raises(ProblemTooLargeError, match="lower rank"):
        OnePassAUC(rank=5, max_bytes=500).fit(X, y)
    OnePassAUC(rank=3, max_bytes=500).fit(X, y)  # 2·7·3 floats = 336 bytes fit


def test_public_helpers_validate_alpha_and_chunk_options(tmp_path):
    from sklearn.utils._param_validation import InvalidParameterError

    X, y = _stream(n=30, d=4)
    neg, pos = class_statistics(X, y)
    with pytest.raises(InvalidParameterError, match="'alpha' parameter of batch_solution_from_stats"):
        batch_solution(X, y, alpha=0.0)
    with pytest.raises(InvalidParameterError, match="'alpha' parameter of batch_solution_from_stats"):
        batch_solution_from_stats(neg, pos, -1.0)
    with pytest.raises(InvalidParameterError, match="'neg' parameter"):
        batch_solution_from_stats(X, pos, 1.0)
    path = tmp_path / "missing.svm"  # never opened: the options are checked at call time
    for kwargs, name in (({"n_features": None}, "n_features"), ({"n_features": 0}, "n_features"),
                         ({"n_features": 3, "chunk_size": 0}, "chunk_size"),
                         ({"n_features": 3, "zero_based": "auto"}, "zero_based")):
        with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of iter_svmlight_chunks"):
            iter_svmlight_chunks(path, **kwargs)


def test_sketch_shorter_than_stream():
    X, y = _stream(n=30, d=7)
    with pytest.raises(ValueError, match="sketch has 10 rows"):
        OnePassAUC(sketch=np.ones((10, 2))).fit(X, y)


def test_bad_input_streaming():
    X, y = _stream(n=30, d=7)
    with pytest.raises(ValueError, match="one class"):
        OnePassAUC().fit(iter([(X, np.ones(30))]))
    est = OnePassAUC().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        est.partial_fit(X[:, :3], y)
    with pytest.raises(ValueError, match="binary"):
        est.partial_fit(X[:2], [5, 5])
    with pytest.raises(ValueError, match="y to be passed"):
        OnePassAUC().fit(X)


# ------------------------------------------------------------------ dask
@pytest.fixture(scope="module")
def dask_client():
    pytest.importorskip("dask.array")
    distributed = pytest.importorskip("dask.distributed")
    client = distributed.Client(processes=False, n_workers=2, threads_per_worker=1,
                                dashboard_address=":0")
    yield client
    client.close()


def _assert_stats_equal(got, want):
    assert got.count == want.count
    np.testing.assert_allclose(got.mean, want.mean, rtol=0, atol=1e-10)
    np.testing.assert_allclose(got.scatter, want.scatter, rtol=1e-10, atol=1e-10 * len(want.mean))


def test_dask_array_statistics_equal_numpy(dask_client, cancer):
    import dask.array as da

    from aucopt.distributed import dask_fit

    Xtr, Xte, ytr, yte = cancer
    alpha = 0.1
    res = dask_fit(da.from_array(Xtr, chunks=(50, 10)), da.from_array(ytr, chunks=70), alpha)
    neg, pos = class_statistics(Xtr, ytr)
    _assert_stats_equal(res.neg, neg)
    _assert_stats_equal(res.pos, pos)
    np.testing.assert_allclose(res.coef, batch_solution(Xtr, ytr, alpha), rtol=1e-10)
    est = res.to_estimator(eta0=0.003)
    assert est.score(Xte, yte) == pytest.approx(roc_auc(yte, Xte @ res.coef))
    np.testing.assert_allclose(est.class_cov_[1], np.cov(Xtr[ytr == 1].T, bias=True), atol=1e-10)
    est.partial_fit(Xte[:5], yte[:5])  # the loaded state streams on
    assert est.n_seen_ == len(ytr) + 5


def test_dask_dataframe_statistics_equal_numpy(dask_client, cancer):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")

    from aucopt.distributed import dask_fit

    Xtr, _, ytr, _ = cancer
    frame = pd.DataFrame(Xtr, columns=[f"f{i}" for i in range(Xtr.shape[1])])
    frame["label"] = np.where(ytr == 1, "pos", "neg")
    res = dask_fit(dd.from_pandas(frame, npartitions=5), "label", 0.05, pos_label="pos")
    neg, pos = class_statistics(Xtr, ytr)
    _assert_stats_equal(res.neg, neg)
    _assert_stats_equal(res.pos, pos)
    np.testing.assert_allclose(res.coef, batch_solution_from_stats(neg, pos, 0.05), rtol=1e-10)
    assert list(res.classes) == ["neg", "pos"] and res.pos_label == "pos"


def test_chan_merge_is_exact():
    X, _y = _stream(n=100, d=4)
    parts = [ClassStats.from_array(X[a:b]) for a, b in [(0, 1), (1, 40), (40, 40), (40, 100)]]
    merged = parts[0]
    for p in parts[1:]:
        merged = merged.merge(p)
    _assert_stats_equal(merged, ClassStats.from_array(X))
    _assert_stats_equal(ClassStats.from_array(sp.csr_matrix(X)), ClassStats.from_array(X))


def test_dask_fit_checks_alpha_before_any_work():
    pytest.importorskip("dask.array")
    from sklearn.utils._param_validation import InvalidParameterError

    from aucopt.distributed import dask_fit

    with pytest.raises(InvalidParameterError, match="'alpha' parameter of dask_fit"):
        dask_fit(_Untouchable(), _Untouchable(), alpha=0)
    with pytest.raises(InvalidParameterError, match="'split_every' parameter of dask_fit"):
        dask_fit(_Untouchable(), _Untouchable(), split_every=1)


def test_missing_dask_names_the_extra(monkeypatch):
    import sys

    from aucopt import distributed

    monkeypatch.setitem(sys.modules, "dask", None)
    with pytest.raises(ImportError, match=r"aucopt\[dask\]"):
        distributed.dask_fit(np.zeros((2, 2)), [0, 1])


# ------------------------------------------------------------------ reliability: step size, labels, targets
@pytest.mark.parametrize("factor", [10.0, 100.0])
def test_constant_step_on_unscaled_features_raises_instead_of_diverging(cancer, factor):
    Xtr, _, ytr, _ = cancer
    with pytest.raises(ValueError, match=r"diverged.*eta0=0\.01.*Scale the features.*smaller eta0"):
        OnePassAUC(eta0=0.01).fit(Xtr * factor, ytr)


@pytest.mark.parametrize("factor", [1.0, 10.0, 100.0, 1e4])
def test_default_step_is_scale_free(cancer, factor):
    Xtr, Xte, ytr, yte = cancer
    ref = OnePassAUC().fit(Xtr, ytr)
    est = OnePassAUC().fit(Xtr * factor, ytr)
    assert np.all(np.isfinite(est.coef_)) and np.all(np.isfinite(est.coef_avg_))
    np.testing.assert_allclose(est.coef_avg_ * factor, ref.coef_avg_, rtol=1e-3, atol=1e-6)
    assert roc_auc(yte, est.decision_function(Xte * factor)) > 0.97
    assert len(np.unique(est.predict(Xte * factor))) == 2


def test_default_step_on_raw_breast_cancer():
    X, y = load_breast_cancer(return_X_y=True)  # features from 1e-3 to 4e3, unscaled
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    est = OnePassAUC().fit(Xtr, ytr)
    assert np.all(np.isfinite(est.coef_avg_)) and roc_auc(yte, est.decision_function(Xte)) > 0.95


def test_auto_step_keeps_partial_fit_equal_to_fit(cancer):
    Xtr, _, ytr, _ = cancer
    ref = OnePassAUC().fit(Xtr * 50, ytr)
    part = OnePassAUC()
    for start in range(0, len(ytr), 37):
        part.partial_fit(Xtr[start:start + 37] * 50, ytr[start:start + 37], classes=[0, 1])
    np.testing.assert_array_equal(part.coef_, ref.coef_)
    np.testing.assert_array_equal(part.coef_avg_, ref.coef_avg_)
    assert part.step_bound_ == ref.step_bound_ > 0


def test_default_iterate_is_the_averaged_one():
    assert OnePassAUC().average is True and OnePassAUC().eta0 == "auto"
    # long noisy stream: averaging cancels the noise of the last steps
    from sklearn.datasets import make_classification
    for seed in (0, 1):
        X, y = make_classification(n_samples=20000, n_features=20, n_informative=5, flip_y=0.2,
                                   class_sep=0.5, weights=[0.9], random_state=seed)
        est = OnePassAUC().fit(10 * X[:15000], y[:15000])
        avg = roc_auc(y[15000:], X[15000:] @ est.coef_avg_)
        last = roc_auc(y[15000:], X[15000:] @ est.coef_)
        assert avg >= last - 1e-3
        assert est.score(10 * X[15000:], y[15000:]) == pytest.approx(avg)


@pytest.mark.parametrize("scaled", [True, False])
def test_default_is_close_to_the_alternative_on_breast_cancer(scaled):
    # On 400 examples the averaged iterate is within 0.01 of the last one (mean test AUC over three
    # splits); it wins clearly on long streams (test above). The former default (constant step
    # 0.01, last iterate) is no better scaled, and diverges, with an error, unscaled.
    X, y = load_breast_cancer(return_X_y=True)
    default, last, old = [], [], []
    for seed in range(3):
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=seed, stratify=y)
        if scaled:
            sc = StandardScaler().fit(Xtr)
            Xtr, Xte = sc.transform(Xtr), sc.transform(Xte)
        est = OnePassAUC().fit(Xtr, ytr)
        default.append(roc_auc(yte, est.decision_function(Xte)))
        last.append(roc_auc(yte, Xte @ est.coef_))
        if scaled:
            old.append(roc_auc(yte, OnePassAUC(eta0=0.01, average=False).fit(Xtr, ytr).decision_function(Xte)))
        else:
            with pytest.raises(ValueError, match="diverged"):
                OnePassAUC(eta0=0.01, average=False).fit(Xtr, ytr)
    assert min(default) > 0.94
    assert np.mean(default) >= np.mean(last) - 0.01
    if scaled:
        assert np.mean(default) >= np.mean(old) - 0.01


def test_partial_fit_rejects_labels_not_in_classes():
    X, y = _stream(n=30, d=7)
    y01 = (y == 1).astype(int)
    est = OnePassAUC()
    with pytest.raises(ValueError, match=r"y contains labels \[0, 1\] that are not in classes=\[5, 6\]"):
        est.partial_fit(X, y01, classes=[5, 6])
    est = OnePassAUC().partial_fit(X[:10], y01[:10], classes=[0, 1])
    with pytest.raises(ValueError, match=r"labels \[2\] that are not in classes=\[0, 1\]"):
        est.partial_fit(X[10:12], [2, 2])
    assert est.n_seen_ == 10
    first = OnePassAUC().partial_fit(X[:5], np.zeros(5, int))
    with pytest.raises(ValueError, match=r"labels \[0\] seen earlier.*not in classes=\[5, 6\]"):
        first.partial_fit(X[5:10], np.full(5, 5), classes=[5, 6])


def test_survival_target_and_empty_X_are_named():
    from aucopt import survival_target
    X, _ = _stream(n=30, d=7)
    rng = np.random.default_rng(0)
    y_surv = survival_target(rng.random(30) < 0.5, rng.random(30) + 0.1)
    for call in (lambda: OnePassAUC().fit(X, y_surv), lambda: OnePassAUC().partial_fit(X, y_surv)):
        with pytest.raises(ValueError, match=r"binary class labels.*survival target.*SurvivalRankSVM"):
            call()
    with pytest.raises(ValueError, match=r"X is empty \(n_samples=0"):
        OnePassAUC().fit(np.empty((0, 7)), np.empty(0))


# ------------------------------------------------------------------ sample weights
def _assert_same_model(a, b, rtol=1e-10, atol=1e-12):
    for name in ("coef_", "coef_avg_", "class_count_", "class_mean_", "class_cov_"):
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=rtol, atol=atol, err_msg=name)
    assert a.threshold_ == pytest.approx(b.threshold_, rel=rtol, abs=atol)
    assert a.n_updates_ == b.n_updates_
    assert a.update_weight_ == pytest.approx(b.update_weight_, rel=1e-15)


@pytest.mark.parametrize("eta0", ["auto", 0.05])
@pytest.mark.parametrize("sparse", [False, True])
def test_integer_weights_equal_repeated_rows(eta0, sparse):
    """Weight k = the row streamed k times in a row (0 = removed), for the iterate, its average,
    the class statistics and the threshold."""
    X, y = _stream(seed=2, n=60, d=5)
    w = np.random.default_rng(0).integers(0, 5, len(y))
    rows = np.repeat(np.arange(len(y)), w)
    Xw = sp.csr_matrix(X) if sparse else X
    weighted = OnePassAUC(alpha=0.01, eta0=eta0).fit(Xw, y, sample_weight=w)
    repeated = OnePassAUC(alpha=0.01, eta0=eta0).fit(X[rows], y[rows])
    _assert_same_model(weighted, repeated)
    np.testing.assert_allclose(weighted.decision_function(X), repeated.decision_function(X), rtol=1e-10, atol=1e-12)
    assert weighted.n_seen_ == np.count_nonzero(w)


@pytest.mark.parametrize("eta0", ["auto", 0.02])
def test_large_integer_weights_take_the_closed_form_and_equal_repetition(eta0):
    """Weights above 32 steps are taken at once (eigendecomposition of the loss's Hessian); the
    result is still the row repeated, step by step, that many times."""
    X, y = _stream(seed=5, n=40, d=4)
    w = np.ones(len(y))
    w[[3, 10, 11, 25]] = [40, 75, 33, 120]
    rows = np.repeat(np.arange(len(y)), w.astype(int))
    weighted = OnePassAUC(alpha=0.01, eta0=eta0).fit(X, y, sample_weight=w)
    repeated = OnePassAUC(alpha=0.01, eta0=eta0).fit(X[rows], y[rows])
    _assert_same_model(weighted, repeated)


def test_closed_form_with_a_sketch_equals_repetition():
    """Sketched model, orthonormal sketch (the covariance estimate is exact): a weight of 50 equals
    50 repeats of the row through the full-covariance model."""
    X, y = _stream(seed=6, n=10, d=12, frac=0.5)
    w = np.array([1, 1, 50, 1, 2, 1, 1, 40, 1, 1], dtype=float)
    rows = np.repeat(np.arange(len(y)), w.astype(int))
    R = np.linalg.qr(np.random.default_rng(1).standard_normal((12, 12)))[0][:10]
    sketched = OnePassAUC(alpha=0.01, eta0=0.05, sketch=R).fit(X, y, sample_weight=w)
    full = OnePassAUC(alpha=0.01, eta0=0.05).fit(X[rows], y[rows])
    np.testing.assert_allclose(sketched.coef_, full.coef_, rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(sketched.coef_avg_, full.coef_avg_, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("rank", [None, 3])
def test_zero_weight_equals_removing_the_row(rank):
    X, y = _stream(seed=3, n=70, d=6)
    w = 0.5 + np.random.default_rng(2).random(len(y)) * 2
    w[::4] = 0.0
    keep = w > 0
    weighted = OnePassAUC(alpha=0.01, rank=rank).fit(X, y, sample_weight=w)
    removed = OnePassAUC(alpha=0.01, rank=rank).fit(X[keep], y[keep], sample_weight=w[keep])
    np.testing.assert_array_equal(weighted.coef_avg_, removed.coef_avg_)
    np.testing.assert_array_equal(weighted.decision_function(X), removed.decision_function(X))
    assert weighted.n_seen_ == removed.n_seen_ == keep.sum()


@pytest.mark.parametrize("rank", [None, 3])
def test_weighted_partial_fit_equals_fit(rank):
    X, y = _stream(n=120, d=6)
    w = np.random.default_rng(4).random(len(y)) * 3
    w[5] = 0.0
    ref = OnePassAUC(alpha=0.01, rank=rank).fit(X, y, sample_weight=w)
    part = OnePassAUC(alpha=0.01, rank=rank)
    for a, b in [(0, 7), (7, 8), (8, 100), (100, 120)]:
        part.partial_fit(X[a:b], y[a:b], sample_weight=w[a:b])
    chunks = OnePassAUC(alpha=0.01, rank=rank).fit((X[a:a + 50], y[a:a + 50], w[a:a + 50]) for a in range(0, 120, 50))
    for other in (part, chunks):
        np.testing.assert_array_equal(other.coef_, ref.coef_)
        np.testing.assert_array_equal(other.coef_avg_, ref.coef_avg_)


def test_weighted_statistics_are_numpy_weighted_means_and_covariances():
    X, y = _stream(seed=8, n=90, d=5)
    w = np.random.default_rng(5).random(len(y)) * 4
    est = OnePassAUC(alpha=0.01).fit(X, y, sample_weight=w)
    neg, pos = est.statistics()
    for stats, mask in ((neg, y == -1), (pos, y == 1)):
        assert stats.count == pytest.approx(w[mask].sum(), rel=1e-12)
        np.testing.assert_allclose(stats.mean, np.average(X[mask], axis=0, weights=w[mask]), rtol=1e-12)
        np.testing.assert_allclose(stats.cov, np.cov(X[mask].T, aweights=w[mask], bias=True), rtol=1e-10, atol=1e-13)
    for got, want in zip((neg, pos), class_statistics(X, y, sample_weight=w), strict=False):
        assert got.count == pytest.approx(want.count, rel=1e-12)
        np.testing.assert_allclose(got.scatter, want.scatter, rtol=1e-10, atol=1e-12)
    sparse = class_statistics(sp.csr_matrix(X), y, sample_weight=w)
    for got, want in zip(sparse, (neg, pos), strict=False):
        np.testing.assert_allclose(got.scatter, want.scatter, rtol=1e-10, atol=1e-12)
    # the weighted batch minimizer solves the weighted pairwise normal equations
    ws = batch_solution(X, y, alpha=0.1, sample_weight=w)
    P, N = np.flatnonzero(y == 1), np.flatnonzero(y == -1)
    D = (X[P][:, None, :] - X[N][None, :, :]).reshape(-1, X.shape[1])
    v = (w[P][:, None] * w[N][None, :]).ravel() / (w[P].sum() * w[N].sum())
    gradient = 0.1 * ws - D.T @ (v * (1 - D @ ws))
    np.testing.assert_allclose(gradient, 0.0, atol=1e-10)
    np.testing.assert_allclose(est.batch_solution(alpha=0.1), ws, rtol=1e-8)


def test_fractional_weights_are_continuous_and_unit_weights_change_nothing():
    X, y = _stream(seed=9, n=50, d=4)
    ref = OnePassAUC(alpha=0.01).fit(X, y)
    np.testing.assert_array_equal(OnePassAUC(alpha=0.01).fit(X, y, sample_weight=np.ones(len(y))).coef_avg_,
                                  ref.coef_avg_)
    w = np.ones(len(y))
    w[7] = 3.0
    three = OnePassAUC(alpha=0.01).fit(X, y, sample_weight=w).coef_avg_
    w[7] = 3.0 - 1e-9
    below = OnePassAUC(alpha=0.01).fit(X, y, sample_weight=w).coef_avg_
    w[7] = 3.0 + 1e-9
    above = OnePassAUC(alpha=0.01).fit(X, y, sample_weight=w).coef_avg_
    np.testing.assert_allclose(below, three, rtol=1e-6)
    np.testing.assert_allclose(above, three, rtol=1e-6)


def test_huge_weight_converges_in_closed_form():
    """A weight of 1e100 is 1e100 steps on one loss: the iterate reaches that loss's minimizer."""
    X, y = _stream(seed=10, n=30, d=3)
    w = np.ones(len(y))
    w[-1] = 1e100
    est = OnePassAUC(alpha=0.01).fit(X, y, sample_weight=w)
    o = 1 - int(y[-1] == 1)
    u = X[-1] - est.class_mean_[o]
    H = 0.01 * np.eye(3) + np.outer(u, u) + est.class_cov_[o]
    np.testing.assert_allclose(est.coef_, np.linalg.solve(H, np.sign(y[-1]) * u), rtol=1e-8)
    assert np.all(np.isfinite(est.coef_avg_))


def test_weights_refused_clearly():
    X, y = _stream(n=20, d=3)
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        OnePassAUC().fit(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(ValueError, match="zero on every example of one class"):
        OnePassAUC().fit(X, y, sample_weight=(y == 1).astype(float))
    with pytest.raises(ValueError, match="weight_chunk"):
        OnePassAUC().fit(iter([(X, y)]), sample_weight=np.ones(len(y)))


@pytest.mark.parametrize("rank", [None, 3])
def test_verbose_shows_rows_and_changes_nothing(monkeypatch, capsys, rank):
    """verbose=1 streams in blocks behind a progress bar: the same updates, bit for bit."""
    import aucopt.online._onepass as onepass

    monkeypatch.setattr(onepass, "_PROGRESS_BLOCK", 7)  # several blocks on a small stream
    X, y = _stream(n=50)
    quiet = OnePassAUC(rank=rank).fit(X, y)
    shown = OnePassAUC(rank=rank, verbose=1).fit(X, y)
    np.testing.assert_array_equal(shown.coef_, quiet.coef_)
    np.testing.assert_array_equal(shown.coef_avg_, quiet.coef_avg_)
    assert "OnePassAUC" in capsys.readouterr().err and not hasattr(shown, "_bar")

    class Bar:  # records what the estimator reports to its progress bar
        def __init__(self, progress, total=None, **kwargs):
            self.total, self.counted, self.closed = total, 0, False
            bars.append(self)

        def update(self, n):
            self.counted += n

        def close(self):
            self.closed = True

    bars = []
    monkeypatch.setattr(onepass, "progress_bar", Bar)
    chunks = [(X[:20], y[:20]), (X[20:], y[20:])]
    streamed = OnePassAUC(rank=rank, verbose=1).fit(iter(chunks))
    np.testing.assert_array_equal(streamed.coef_, quiet.coef_)
    assert [(b.total, b.counted, b.closed) for b in bars] == [(None, 50, True)]  # one bar over the chunks
    OnePassAUC(rank=rank, verbose=1).fit(X, y)
    assert (bars[-1].total, bars[-1].counted) == (50, 50)


@pytest.mark.parametrize("read_bytes", [5, 64, 1 << 22])
@pytest.mark.parametrize("chunk_size", [1, 3, 10, 1000])
@pytest.mark.parametrize("trailing_newline", [True, False])
def test_svmlight_chunks_are_the_files_lines_in_groups(tmp_path, monkeypatch, read_bytes, chunk_size,
                                                       trailing_newline):
    """The reader cuts the file at every chunk_size-th newline, whatever the block boundaries: the
    chunks are those of splitting the lines in Python and parsing each group."""
    import aucopt.online._svmlight as svmlight

    monkeypatch.setattr(svmlight, "_READ_BYTES", read_bytes)
    rng = np.random.default_rng(3)
    X = sp.random(37, 6, density=0.4, random_state=2, format="csr")
    y = np.where(rng.random(37) < 0.5, 1, -1)
    path = tmp_path / "data.svm"
    dump_svmlight_file(X, y, str(path), zero_based=False, comment="two\nlines")
    text = path.read_bytes()
    text = text.replace(b"\n", b"\n# a comment line\n", 5)  # comment lines count as lines
    path.write_bytes(text if trailing_newline else text.rstrip(b"\n"))
    lines = path.read_bytes().splitlines(keepends=True)
    expected = []
    for a in range(0, len(lines), chunk_size):
        group = b"".join(line if line.endswith(b"\n") else line + b"\n" for line in lines[a:a + chunk_size])
        Xg, yg = load_svmlight_file(io.BytesIO(group), n_features=6, zero_based=False)
        if Xg.shape[0]:
            expected.append((Xg, yg))
    got = list(iter_svmlight_chunks(path, chunk_size=chunk_size, n_features=6))
    assert len(got) == len(expected)
    for (Xc, yc), (Xe, ye) in zip(got, expected, strict=False):
        np.testing.assert_array_equal(Xc.toarray(), Xe.toarray())
        np.testing.assert_array_equal(yc, ye)
    np.testing.assert_allclose(sp.vstack([c[0] for c in got]).toarray(), X.toarray(), rtol=1e-15)
