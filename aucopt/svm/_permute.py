"""Random permutations of an index array in place, compiled and cache-friendly.

Dual coordinate descent visits its active pairs in a new random order every epoch. numpy's
``Generator.shuffle`` (Fisher–Yates) makes two random memory accesses per element: at 10⁸ int32
pair numbers (400 MB) it took 11.6 s here, longer than the epoch itself. Above
``_DIRECT_MAX`` elements the order is drawn as Rao (1961) and Sandelius (1962) draw a random
permutation, without a second array: every element goes to one of ``2^k`` buckets (the top
bits of a splitmix64 mix of its value with a key drawn for the call), the buckets are formed in
place by American flag sort's cycles (each bucket's next slot only moves forward, so the
writes stream through ``2^k`` places), and each bucket, a few hundred kB that stay in cache, is
shuffled by Fisher–Yates. The random numbers are splitmix64's (Steele et al. 2014), bounded
without bias by Lemire's (2019) multiply-and-reject; the seed comes from the solver's numpy
``Generator``, so a ``random_state`` fixes every epoch's order. Each element's bucket is a hash
of its value, not an independent draw, so the order is as random as that mix (a chi-square test
over all orders of a few elements checks it).
"""

from __future__ import annotations

import numpy as np

from .._numba import njit

#: up to this many elements a plain Fisher–Yates shuffle (the array stays in cache)
_DIRECT_MAX = 1 << 17
#: log2 of the bucket size aimed at: 32,768 elements (128 kB of int32)
_BUCKET_BITS = 15

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_LOW32 = np.uint64(0xFFFFFFFF)


@njit(cache=True, nogil=True, inline="always")
def _next(state):
    """splitmix64: the next 64 random bits; ``state`` is a one-element uint64 array."""
    state[0] += _GAMMA
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True, inline="always")
def _below(state, n):
    """A uniform integer in [0, n) for 0 < n (Lemire 2019 below 2³², a 64-bit modulo above)."""
    n64 = np.uint64(n)
    if n64 > _LOW32:  # more than 2³² elements: the modulo's bias is below n / 2⁶⁴
        return np.int64(_next(state) % n64)
    m = (_next(state) >> np.uint64(32)) * n64
    if (m & _LOW32) < n64:
        floor = ((_LOW32 + np.uint64(1)) - n64) % n64
        while (m & _LOW32) < floor:
            m = (_next(state) >> np.uint64(32)) * n64
    return np.int64(m >> np.uint64(32))


@njit(cache=True, nogil=True)
def _fisher_yates(index, lo, hi, state):
    """Shuffle ``index[lo:hi]`` uniformly in place."""
    for t in range(hi - lo - 1, 0, -1):
        u = lo + _below(state, t + 1)
        v = lo + t
        index[u], index[v] = index[v], index[u]


@njit(cache=True, nogil=True, inline="always")
def _bucket(value, key, shift):
    """The bucket of an element: the top bits of a splitmix64 mix of its value and the call's key."""
    z = np.uint64(value) ^ key
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return np.int64((z ^ (z >> np.uint64(31))) >> shift)


@njit(cache=True, nogil=True)
def _shuffle(index, active, seed, direct_max, bucket_bits):
    """``index[:active]`` in a uniformly random order, in place: Fisher–Yates up to ``direct_max``
    elements, else through buckets of about ``2**bucket_bits`` elements."""
    state = np.empty(1, np.uint64)
    state[0] = np.uint64(seed)
    if active <= direct_max:
        _fisher_yates(index, 0, active, state)
        return
    bits = 1
    while (active >> (bits + bucket_bits)) > 0:
        bits += 1
    shift = np.uint64(64 - bits)
    n_buckets = 1 << bits
    key = _next(state)
    bounds = np.zeros(n_buckets + 1, np.int64)
    for t in range(active):
        bounds[_bucket(index[t], key, shift) + 1] += 1
    for b in range(n_buckets):
        bounds[b + 1] += bounds[b]
    head = bounds[:n_buckets].copy()  # the next unplaced slot of each bucket
    for b in range(n_buckets):  # American flag sort's cycles: every bucket head moves forward only
        while head[b] < bounds[b + 1]:
            v = index[head[b]]
            t = _bucket(v, key, shift)
            while t != b:
                u = index[head[t]]
                index[head[t]] = v
                head[t] += 1
                v = u
                t = _bucket(v, key, shift)
            index[head[b]] = v
            head[b] += 1
    for b in range(n_buckets):
        _fisher_yates(index, bounds[b], bounds[b + 1], state)


class EpochOrder:
    """Shuffles the active part of an index array in place, each call a new random permutation.

    ``rng`` (a numpy ``Generator``) draws one 64-bit seed per call.
    """

    def __init__(self, index: np.ndarray, rng: np.random.Generator) -> None:
        self.index, self.rng = index, rng

    def shuffle(self, active: int) -> None:
        """A random order of ``index[:active]``."""
        seed = int(self.rng.integers(0, 2**63, dtype=np.int64))
        _shuffle(self.index, np.int64(active), np.uint64(seed), _DIRECT_MAX, _BUCKET_BITS)
