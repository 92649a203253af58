"""The vectorized product and row updates of the OnePassAUC kernels against numpy."""

import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from aucopt.online._simd import add_rows, packed_column, packed_index, packed_size, scatter_product, symmetric_product


@njit(cache=False)
def _product(M, w, h, d):
    scatter_product(M, w, h, d)


@pytest.mark.parametrize("d", [0, 1, 3, 4, 5, 22, 23, 24, 25, 47, 64, 123])
def test_scatter_product_is_the_rows_weighted_sum(d):
    """h[:W] = Σ_{a<d} M[a, :] w[a] for every width W (a multiple of 4, 1 to 31 vectors: whole
    blocks of 6 and every remainder), rows beyond d ignored, entries of h beyond W untouched."""
    rng = np.random.default_rng(d)
    width = max(4, (d + 3) // 4 * 4)
    M = rng.standard_normal((d + 2, width))  # two rows more than are summed
    w = rng.standard_normal(d + 1)
    h = np.full(width + 3, 7.0)
    _product(M, w, h, d)
    expected = M[:d].T @ w[:d]
    np.testing.assert_allclose(h[:width], expected, rtol=1e-13, atol=1e-13 * max(1.0, np.abs(expected).max()))
    np.testing.assert_array_equal(h[width:], 7.0)


def test_scatter_product_takes_c_contiguous_float64_only():
    M = np.asfortranarray(np.ones((4, 4)))
    with pytest.raises(TypingError):
        _product(M, np.ones(4), np.zeros(4), 4)
    with pytest.raises(TypingError):
        _product(np.ones((4, 4), dtype=np.float32), np.ones(4), np.zeros(4), 4)


@njit(cache=False)
def _add(M, D, n, d):
    add_rows(M, D, n, d)


@pytest.mark.parametrize("d", [1, 3, 5, 22, 24, 25, 47, 123])
def test_add_rows_adds_the_outer_products_in_row_order(d):
    """M[:d] += Σ_{t<n} D[t, :d, None] D[t] for n = 1 to 4 (every block width and remainder), the
    same bits whether the n rows come in one call or one per call (each entry takes them in order,
    one fused multiply-add each), rows beyond d untouched; n outside 1..4 adds nothing."""
    rng = np.random.default_rng(d)
    width = (d + 3) // 4 * 4
    D = np.zeros((4, width))
    D[:, :d] = rng.standard_normal((4, d))
    M0 = rng.standard_normal((d + 1, width))
    for n in range(1, 5):
        together, one_by_one = M0.copy(), M0.copy()
        _add(together, D, n, d)
        for t in range(n):
            _add(one_by_one, D[t:t + 1].copy(), 1, d)
        expected = M0[:d] + sum(np.outer(D[t, :d], D[t]) for t in range(n))
        np.testing.assert_allclose(together[:d], expected, rtol=1e-14, atol=1e-14)
        np.testing.assert_array_equal(together, one_by_one)
        np.testing.assert_array_equal(together[d], M0[d])
    for n in (0, 5):
        untouched = M0.copy()
        _add(untouched, D, n, d)
        np.testing.assert_array_equal(untouched, M0)


@njit(cache=False)
def _symmetric(P, w, h, d):
    symmetric_product(P, w, h, d)


def _packed(U, d):
    """U's 4 × 4 tiles on and above the diagonal, row block by row block, each row-major (by slicing)."""
    nb = (d + 3) // 4
    return np.concatenate([U[4 * i:4 * i + 4, 4 * j:4 * j + 4].ravel() for i in range(nb) for j in range(i, nb)])


@pytest.mark.parametrize("d", [1, 3, 4, 5, 9, 22])
def test_packed_index_is_where_the_tiles_put_each_entry(d):
    nb = (d + 3) // 4
    U = np.arange(16 * nb * nb, dtype=float).reshape(4 * nb, 4 * nb)
    P = _packed(U, d)
    assert P.shape == (packed_size(d),)
    for a in range(4 * nb):
        for b in range(a, 4 * nb):
            assert P[packed_index(a, b, nb)] == U[a, b], (a, b)
            # a row's pairs from its diagonal entry by column offsets (the CSR kernel's update)
            assert P[packed_index(a, a, nb) - packed_column(a) + packed_column(b)] == U[a, b], (a, b)


@pytest.mark.parametrize("d", [1, 3, 4, 5, 22, 25, 47, 123])
def test_symmetric_product_is_the_full_matrix_times_w(d):
    """h = S w for S = U + Uᵀ, U the upper triangle of S with its diagonal halved (rows and columns
    padded to a multiple of 4 with zeros) in packed tiles; entries of h beyond the width untouched."""
    rng = np.random.default_rng(d)
    width = (d + 3) // 4 * 4
    A = rng.standard_normal((d, d))
    S = A + A.T
    U = np.zeros((width, width))
    U[:d, :d] = np.triu(S, 1) + np.diag(np.diag(S)) / 2
    w = np.zeros(width)
    w[:d] = rng.standard_normal(d)
    h = np.full(width + 2, 5.0)
    _symmetric(_packed(U, d), w, h, d)
    expected = S @ w[:d]
    np.testing.assert_allclose(h[:d], expected, rtol=1e-13, atol=1e-13 * np.abs(expected).max())
    np.testing.assert_array_equal(h[d:width], 0.0)
    np.testing.assert_array_equal(h[width:], 5.0)
