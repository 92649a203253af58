"""The epoch order of dual coordinate descent: random permutations in place, compiled.

Oracles: the set of elements (a permutation of the input), a chi-square test of the 24 orders of
four elements against the uniform distribution (both the direct Fisher–Yates path and the bucket
path, forced at small sizes through its thresholds), and reproducibility from the seed.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import chisquare

from aucopt.svm._permute import _DIRECT_MAX, EpochOrder, _shuffle

#: (direct_max, bucket_bits): the direct path, and the bucket path with buckets of about 1 and 2 elements
PATHS = {"fisher-yates": (1 << 17, 15), "buckets-of-1": (1, 0), "buckets-of-2": (1, 1)}


def _draw(index, seed, path):
    _shuffle(index, np.int64(len(index)), np.uint64(seed), *PATHS[path])
    return index


@pytest.mark.parametrize("path", list(PATHS))
def test_every_order_of_four_elements_is_equally_likely(path):
    orders = {order: k for k, order in enumerate(itertools.permutations(range(4)))}
    counts = np.zeros(len(orders))
    for seed in range(24_000):
        counts[orders[tuple(_draw(np.arange(4, dtype=np.int32), seed, path))]] += 1
    assert chisquare(counts).pvalue > 1e-3, counts


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("n", [0, 1, 2, 1000, 4097])
def test_a_permutation_of_the_active_part_only(path, n):
    index = np.arange(n + 5, dtype=np.int32)[::-1].copy()
    before = index.copy()
    _shuffle(index, np.int64(n), np.uint64(7), *PATHS[path])
    assert sorted(index[:n]) == sorted(before[:n]) and np.array_equal(index[n:], before[n:])
    if n >= 1000:
        assert not np.array_equal(index[:n], before[:n])


def test_large_arrays_take_the_bucket_path_and_stay_permutations():
    n = 3 * _DIRECT_MAX + 11
    index = np.arange(n, dtype=np.int64)
    EpochOrder(index, np.random.default_rng(0)).shuffle(n)
    assert np.array_equal(np.sort(index), np.arange(n))
    # positions are spread over the whole array: the mean absolute displacement of a uniform
    # permutation is about n / 3
    displacement = np.abs(np.argsort(index) - np.arange(n)).mean()
    assert displacement == pytest.approx(n / 3, rel=0.02)


def test_the_generator_fixes_every_order():
    def orders(seed):
        index = np.arange(500, dtype=np.int32)
        order = EpochOrder(index, np.random.default_rng(seed))
        out = []
        for active in (500, 300, 10):
            order.shuffle(active)
            out.append(index.copy())
        return out

    first, again, other = orders(3), orders(3), orders(4)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not np.array_equal(first[0], other[0])
