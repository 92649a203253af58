"""The compiled OnePassAUC core against the per-example numpy implementation (tests/online/reference_onepass.py).

Random streams (hypothesis): dense and sparse rows, full covariances or a random / explicit
sketch, integer, fractional and zero weights (some above 32 steps: the closed form), constant
and scale-free steps, chunks holding one class, labels known up front or learnt. Both
estimators share validation, labels and sketch draws; only the per-example core differs, so the
models must agree to rounding.
"""

import itertools
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference_onepass import GeneralKernelOnePassAUC, ReferenceOnePassAUC

from aucopt.online import OnePassAUC
from aucopt.online import _onepass_full as full_kernels
from aucopt.online import _onepass_kernels as kernels

RTOL = 1e-12


def _close(got, want, what, rtol=RTOL):
    got, want = np.asarray(got, float), np.asarray(want, float)
    scale = max(np.abs(want).max(initial=0.0), 1e-300)
    err = np.abs(got - want).max(initial=0.0) / scale
    assert err <= rtol, f"{what}: relative difference {err:.3g} > {rtol:g}"


def _assert_models_agree(got, want, rtol=RTOL):
    for name in ("coef_", "coef_avg_", "class_count_", "class_mean_"):
        _close(getattr(got, name), getattr(want, name), name, rtol)
    if got.rank_ is None:
        for k in (0, 1):
            _close(got.class_cov_[k], want.class_cov_[k], f"class_cov_[{k}]", rtol)
    else:
        for k in (0, 1):
            _close(got.class_sketch_[k], want.class_sketch_[k], f"class_sketch_[{k}]", rtol)
        _close(got.class_sketch_sum_, want.class_sketch_sum_, "class_sketch_sum_", rtol)
    assert got.n_updates_ == want.n_updates_
    assert got.n_seen_ == want.n_seen_
    _close(got.update_weight_, want.update_weight_, "update_weight_", 1e-15)
    _close(got.step_bound_, want.step_bound_, "step_bound_", rtol)


def _assert_models_equal(got, want):
    for name in ("coef_", "coef_avg_", "class_count_", "class_mean_", "class_cov_", "class_sketch_",
                 "class_sketch_sum_", "n_updates_", "update_weight_", "step_bound_", "n_seen_"):
        if hasattr(want, name):
            np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=name)


@st.composite
def streams(draw):
    n = draw(st.integers(2, 60))
    d = draw(st.integers(1, 7))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < draw(st.floats(0.1, 0.9)), 1, -1)
    if draw(st.booleans()):  # a leading run of one class: chunks with one class, no step at first
        y[: draw(st.integers(1, n))] = draw(st.sampled_from([-1, 1]))
    X = rng.standard_normal((n, d)) * draw(st.sampled_from([0.1, 0.5, 1.0])) + 0.3 * (y == 1)[:, None]
    sparse = draw(st.booleans())
    if sparse:
        X[rng.random((n, d)) < 0.5] = 0.0
    weights = None
    kind = draw(st.sampled_from(["none", "integer", "fractional", "heavy"]))
    if kind == "integer":
        weights = rng.integers(0, 4, n).astype(float)
    elif kind == "fractional":
        weights = rng.random(n) * 3
        weights[rng.random(n) < 0.2] = 0.0
    elif kind == "heavy":  # some weights take the closed form (more than 32 steps)
        weights = rng.integers(1, 3, n).astype(float)
        weights[rng.integers(0, n, 2)] = [40.0, 75.5]
    sketch = draw(st.sampled_from(["none", "random", "explicit"]))
    params = {"alpha": draw(st.sampled_from([1e-3, 1e-2, 0.3])),
              "eta0": draw(st.sampled_from(["auto", 0.01, 0.05]))}
    if sketch == "random":
        params.update(rank=draw(st.integers(1, d)), random_state=seed % 1000)
    elif sketch == "explicit":
        params["sketch"] = rng.standard_normal((n, draw(st.integers(1, d)))) / 2
    cuts = sorted(set(draw(st.lists(st.integers(1, n - 1), max_size=3))))
    classes = [-1, 1] if draw(st.booleans()) else None
    return X, y, weights, params, sparse, cuts, classes


def _fit_chunks(est, X, y, weights, cuts, classes):
    bounds = [0, *cuts, len(y)]
    for a, b in itertools.pairwise(bounds):
        est.partial_fit(X[a:b], y[a:b], classes=classes,
                        sample_weight=None if weights is None else weights[a:b])
    return est


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams())
def test_compiled_core_equals_reference(stream):
    X, y, weights, params, sparse, cuts, classes = stream
    Xin = sp.csr_matrix(X) if sparse else X
    try:
        want = _fit_chunks(ReferenceOnePassAUC(**params), Xin, y, weights, cuts, classes)
    except ValueError as exc:  # the reference diverged (a constant step too large): so must the kernel
        assert "diverged" in str(exc)
        with pytest.raises(ValueError, match="diverged"):
            _fit_chunks(OnePassAUC(**params), Xin, y, weights, cuts, classes)
        return
    got = _fit_chunks(OnePassAUC(**params), Xin, y, weights, cuts, classes)
    _assert_models_agree(got, want)
    if hasattr(want, "classes_"):
        _close(got.threshold_, want.threshold_, "threshold_", 1e-10)
    # the general kernels (every fit's before the full-covariance kernels): with a sketch bit for
    # bit; full covariances to rounding (dense rows through the classes' scatter matrices, CSR rows
    # through their second moments)
    before = _fit_chunks(GeneralKernelOnePassAUC(**params), Xin, y, weights, cuts, classes)
    if got.rank_ is None:
        _assert_models_agree(got, before)
    else:
        _assert_models_equal(got, before)
    # one call against chunks, dense against sparse rows: bit for bit but through second moments
    one = OnePassAUC(**params).partial_fit(Xin, y, classes=classes, sample_weight=weights)
    other = OnePassAUC(**params).partial_fit(X if sparse else sp.csr_matrix(X), y, classes=classes,
                                             sample_weight=weights)
    for model, exact in ((one, not sparse or got.rank_ is not None), (other, got.rank_ is not None)):
        if exact:
            _assert_models_equal(model, got)
        else:
            _assert_models_agree(model, got)


@pytest.mark.parametrize("eta0", ["auto", 0.05])
@pytest.mark.parametrize("rank", [None, 3])
def test_compiled_core_on_breast_cancer_equals_reference(eta0, rank):
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X) / 4
    w = np.random.default_rng(0).integers(0, 4, len(y)).astype(float)
    w[[10, 200]] = [50.0, 120.25]
    for sample_weight in (None, w):
        got = OnePassAUC(eta0=eta0, rank=rank, alpha=1e-3).fit(X, y, sample_weight=sample_weight)
        want = ReferenceOnePassAUC(eta0=eta0, rank=rank, alpha=1e-3).fit(X, y, sample_weight=sample_weight)
        _assert_models_agree(got, want, rtol=1e-10)


@pytest.mark.parametrize("d", [23, 24, 25, 49, 53])
def test_vectorized_passes_at_widths_of_several_blocks(d):
    """Feature counts whose padded rows take whole blocks of the vectorized passes and remainders
    (the hypothesis streams above have d ≤ 7, one partial block): dense and CSR rows equal the
    general kernels to 1e-12, and a stream cut into chunks equals the stream whole bit for bit
    (dense) or to rounding (CSR, whose moments are rebuilt at each call)."""
    rng = np.random.default_rng(d)
    n = 400
    y = np.where(rng.random(n) < 0.2, 1, -1)  # runs of negatives: flushes of 1 to 4 rows
    X = rng.standard_normal((n, d)) * 0.5 + 0.3 * (y == 1)[:, None]
    X[rng.random((n, d)) < 0.6] = 0.0
    for Xin in (X, sp.csr_matrix(X)):
        whole = OnePassAUC(alpha=1e-3).fit(Xin, y)
        _assert_models_agree(whole, GeneralKernelOnePassAUC(alpha=1e-3).fit(Xin, y))
        chunks = _fit_chunks(OnePassAUC(alpha=1e-3), Xin, y, None, [37, 200, 201], [-1, 1])
        if sp.issparse(Xin):
            _assert_models_agree(chunks, whole)
        else:
            _assert_models_equal(chunks, whole)


def test_divergence_is_raised_with_the_same_message_and_state():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 5)) * 30
    y = np.where(rng.random(200) < 0.5, 1, -1)
    messages, models = [], []
    for cls in (OnePassAUC, ReferenceOnePassAUC):
        est = cls(eta0=0.5)
        with pytest.raises(ValueError, match="diverged") as info:
            est.fit(X, y)
        messages.append(str(info.value))
        models.append(est)
    assert messages[0] == messages[1]
    assert models[0].n_updates_ == models[1].n_updates_ > 0 and models[0].n_seen_ == 0


def test_non_contiguous_and_readonly_input_equal_contiguous():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((300, 6))
    y = np.where(rng.random(300) < 0.3, 1, -1)
    ref = OnePassAUC().fit(X, y)
    fortran = np.asfortranarray(X)
    readonly = X.copy()
    readonly.flags.writeable = False
    for other in (fortran, readonly, X[:, ::1]):
        est = OnePassAUC().fit(other, y)
        np.testing.assert_array_equal(est.coef_avg_, ref.coef_avg_)


def test_kernels_keep_one_compiled_signature():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((40, 4))
    y = np.where(rng.random(40) < 0.5, 1, -1)
    for params in ({}, {"eta0": 1}, {"alpha": 1, "rank": 2}):  # integer alpha / eta0 are cast
        for data in (X, X.astype(np.float32), sp.csr_matrix(X), np.asfortranarray(X)):
            OnePassAUC(**params).fit(data, y, sample_weight=np.arange(40) % 3)
    for stream in (kernels.stream_dense, kernels.stream_csr, full_kernels.stream_dense_full,
                   full_kernels.stream_csr_full):
        assert len(stream.signatures) == 1, stream.__name__


def test_csr_with_duplicate_and_unsorted_indices_equals_its_dense_form():
    rng = np.random.default_rng(3)
    n, d = 50, 5
    indptr = np.arange(0, 3 * n + 1, 3)
    indices = rng.integers(0, d, 3 * n)  # unsorted, with repeats: entries of a repeated index add up
    data = rng.standard_normal(3 * n)
    X = sp.csr_matrix((data, indices, indptr), shape=(n, d))
    assert not X.has_canonical_format
    dense = X.toarray()
    y = np.where(rng.random(n) < 0.5, 1, -1)
    got = OnePassAUC(eta0=0.05).fit(X, y)
    want = OnePassAUC(eta0=0.05).fit(dense, y)
    _assert_models_agree(got, want)
    _assert_models_agree(got, ReferenceOnePassAUC(eta0=0.05).fit(dense, y))
    general = GeneralKernelOnePassAUC(eta0=0.05)
    _assert_models_equal(general.fit(X, y), GeneralKernelOnePassAUC(eta0=0.05).fit(dense, y))


def test_dense_scatter_matrices_follow_the_covariances_set_elsewhere():
    """The dense kernel keeps the classes' scatter matrices between calls (a stream cut into chunks
    takes the same steps to the last bit) and rebuilds a class's from ``class_cov_`` whenever it is
    not theirs: a covariance set by hand, replaced or changed in place, and CSR rows in between."""
    rng = np.random.default_rng(11)
    X = rng.standard_normal((300, 6))
    y = np.where(rng.random(300) < 0.3, 1, -1)
    whole = OnePassAUC().fit(X, y)
    head = OnePassAUC().partial_fit(X[:100], y[:100], classes=[-1, 1])
    copied = pickle.loads(pickle.dumps(head))  # a pickled copy continues bit for bit
    _assert_models_equal(copied.partial_fit(X[100:], y[100:]), whole)
    assert copied._class_scatter.ctypes.data % 64 == 0  # on a cache line, unpickled or not
    for change in ("replaced", "in place"):
        hand = pickle.loads(pickle.dumps(head))
        if change == "replaced":
            hand.class_cov_ = hand.class_cov_ * 2.0
        else:
            hand.class_cov_[0] *= 2.0
        general = GeneralKernelOnePassAUC()
        general.__dict__.update(pickle.loads(pickle.dumps(hand)).__dict__)
        hand.partial_fit(X[100:], y[100:])
        _assert_models_agree(hand, general.partial_fit(X[100:], y[100:]))
        assert np.abs(hand.coef_ - whole.coef_).max() > 1e-6 * np.abs(whole.coef_).max(), change
    mixed = OnePassAUC()
    for (a, b), csr in (((0, 90), False), ((90, 200), True), ((200, 300), False)):
        mixed.partial_fit(sp.csr_matrix(X[a:b]) if csr else X[a:b], y[a:b], classes=[-1, 1])
    _assert_models_agree(mixed, ReferenceOnePassAUC().fit(X, y))


def _kernel_names(monkeypatch):
    """Record the name of the stream kernel each ``_process`` call picks."""
    names = []
    pick = OnePassAUC._stream_kernel

    def spy(self, X, slots, weights):
        kernel = pick(self, X, slots, weights)
        names.append(kernel.__name__)
        return kernel

    monkeypatch.setattr(OnePassAUC, "_stream_kernel", spy)
    return names


@pytest.mark.parametrize("eta0", ["auto", 0.02])
def test_csr_second_moments_equal_the_general_kernel_with_weights(monkeypatch, eta0):
    """Sparse binary rows (a9a-like), fractional and heavy weights (the closed form, which the
    moment kernel hands back converted), chunks: the second-moment kernel against today's."""
    rng = np.random.default_rng(5)
    n, d = 400, 30
    X = sp.random(n, d, density=0.15, random_state=6, format="csr", data_rvs=np.ones)
    y = np.where(X[:, :3].sum(axis=1).A.ravel() + rng.random(n) > 1.2, 1, -1)
    w = rng.random(n) * 3
    w[[50, 250]] = [40.0, 90.5]  # more than 32 steps: closed form
    names = _kernel_names(monkeypatch)
    for sample_weight in (None, w):
        got = _fit_chunks(OnePassAUC(eta0=eta0), X, y, sample_weight, [120, 121, 300], None)
        want = _fit_chunks(GeneralKernelOnePassAUC(eta0=eta0), X, y, sample_weight, [120, 121, 300], None)
        _assert_models_agree(got, want)
        _assert_models_agree(got, ReferenceOnePassAUC(eta0=eta0).fit(X, y, sample_weight=sample_weight))
    assert set(names) == {"stream_csr_full"}


def test_csr_with_large_offsets_keeps_the_welford_update(monkeypatch):
    """A CSR column far from zero against its spread: the uncentred moments would lose digits, so
    the rows take the general kernel (Welford updates): bit for bit the general kernel's dense
    rows, and the dense rows' scatter matrices to rounding."""
    rng = np.random.default_rng(7)
    X = rng.standard_normal((200, 4))
    X[:, 0] += 1e4
    y = np.where(rng.random(200) < 0.5, 1, -1)
    names = _kernel_names(monkeypatch)
    got = OnePassAUC().fit(sp.csr_matrix(X), y)
    assert names == ["stream_csr"]
    _assert_models_equal(got, GeneralKernelOnePassAUC().fit(X, y))
    _assert_models_agree(got, OnePassAUC().fit(X, y))


def test_moment_ratio_is_the_digits_at_stake():
    from aucopt.online._onepass_full import moment_ratio

    X = sp.csr_matrix(np.array([[1.0, 0.0], [3.0, 2.0], [0.0, 0.0], [2.0, 2.0]]))
    slots = np.array([0, 0, 1, 1])
    empty = (np.zeros(2), np.zeros((2, 2)), np.zeros((2, 2, 2)))
    # class 0: E[x²] = (5, 2), Var = (1, 1); class 1: E[x²] = (2, 2), Var = (1, 1)
    assert moment_ratio(*empty, X, slots, np.ones(4)) == pytest.approx(5.0)
    one_row = moment_ratio(*empty, X[:1], slots[:1], np.ones(1))
    assert one_row == np.inf  # no spread yet
    assert moment_ratio(*empty, sp.csr_matrix((3, 2)), np.zeros(3, dtype=int), np.ones(3)) == 1.0
    # the same rows with repeated, unsorted indices (row 1 as 1 + 2 at column 0, then column 1)
    repeated = sp.csr_matrix((np.array([1.0, 1.0, 2.0, 2.0, 2.0, 2.0]), np.array([0, 0, 1, 0, 0, 1]),
                              np.array([0, 1, 4, 4, 6])), shape=(4, 2))
    assert not repeated.has_canonical_format
    assert np.array_equal(repeated.toarray(), X.toarray())
    assert moment_ratio(*empty, repeated, slots, np.ones(4)) == moment_ratio(*empty, X, slots, np.ones(4))
