"""aucopt.metrics.xauc against independent oracles.

Oracles: a brute-force double loop over the cross-group pairs (ties credited ½ or 0), the pooled
AUC of roc_auc and scikit-learn (one group; and the pair-count weighted decomposition over the four
within- and cross-group AUCs), and row repetition for integer case weights.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from aucopt.metrics import CrossGroupAUC, roc_auc, xauc


def brute_xauc(y, f, g, a, b, ties="half", w=None):
    """Σ w_i w_j ([f_i > f_j] + c [f_i = f_j]) / Σ w_i w_j over i positive in a, j negative in b."""
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    c = 0.5 if ties == "half" else 0.0
    num = den = 0.0
    for i in range(len(y)):
        for j in range(len(y)):
            if y[i] == 1 and g[i] == a and y[j] == 0 and g[j] == b:
                num += w[i] * w[j] * ((f[i] > f[j]) + c * (f[i] == f[j]))
                den += w[i] * w[j]
    return num / den


def random_case(seed, n=60, n_levels=None):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    g = rng.choice(["female", "male"], n)
    y[:4], g[:4] = [0, 1, 0, 1], ["female", "female", "male", "male"]
    f = rng.normal(size=n) + 0.8 * y + 0.5 * (g == "female")
    if n_levels is not None:  # many exact ties
        f = np.round(f * n_levels) / n_levels
    return y, f, g


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ties", ["half", "strict"])
def test_xauc_matches_brute_force(seed, ties):
    y, f, g = random_case(seed, n_levels=2 if seed % 2 else None)
    result = xauc(y, f, g, ties=ties, tied_tol=0)
    assert isinstance(result, CrossGroupAUC)
    assert (result.group_a, result.group_b) == ("female", "male")
    assert result.ab == pytest.approx(brute_xauc(y, f, g, "female", "male", ties), abs=1e-15)
    assert result.ba == pytest.approx(brute_xauc(y, f, g, "male", "female", ties), abs=1e-15)
    assert result.gap == pytest.approx(result.ab - result.ba, abs=0)
    swapped = xauc(y, f, g, group_a="male", ties=ties, tied_tol=0)
    assert (swapped.ab, swapped.ba, swapped.gap) == (result.ba, result.ab, -result.gap)


@pytest.mark.parametrize("seed", range(3))
def test_xauc_weighted_matches_brute_force_and_repetition(seed):
    y, f, g = random_case(seed, n=40, n_levels=3)
    w = np.random.default_rng(seed + 10).integers(0, 4, len(y)).astype(float)
    w[:4] = 1.0
    result = xauc(y, f, g, sample_weight=w, tied_tol=0)
    assert result.ab == pytest.approx(brute_xauc(y, f, g, "female", "male", w=w), abs=1e-12)
    assert result.ba == pytest.approx(brute_xauc(y, f, g, "male", "female", w=w), abs=1e-12)
    rep = np.repeat(np.arange(len(y)), w.astype(int))  # a weight-k row is k copies; weight 0 drops it
    repeated = xauc(y[rep], f[rep], g[rep], tied_tol=0)
    assert repeated.ab == pytest.approx(result.ab, abs=1e-12) and repeated.ba == pytest.approx(result.ba, abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_one_group_is_the_auc(seed):
    y, f, _ = random_case(seed, n_levels=4)
    result = xauc(y, f, np.zeros(len(y), int))
    assert result.group_a == result.group_b == 0
    assert result.ab == result.ba == roc_auc(y, f) == pytest.approx(roc_auc_score(y, f), abs=1e-15)
    assert result.gap == 0.0


@pytest.mark.parametrize("seed", range(3))
def test_pooled_auc_is_the_pair_weighted_mean_of_the_four_group_aucs(seed):
    y, f, g = random_case(seed, n=80)
    cross = xauc(y, f, g)
    total = 0.0
    for a, b, value in (("female", "male", cross.ab), ("male", "female", cross.ba)):
        total += np.sum((y == 1) & (g == a)) * np.sum((y == 0) & (g == b)) * value
    for a in ("female", "male"):
        inside = g == a
        total += np.sum(y[inside] == 1) * np.sum(y[inside] == 0) * roc_auc_score(y[inside], f[inside])
    assert total / (np.sum(y == 1) * np.sum(y == 0)) == pytest.approx(roc_auc_score(y, f), abs=1e-13)


def test_tie_tolerance_is_relative_to_all_scores():
    """The tolerance is tied_tol · max|f| over every sample, as roc_auc on the same data uses."""
    y = np.array([1, 0, 1, 0])
    g = np.array([0, 1, 1, 0])
    f = np.array([1.0, 1.0 - 5e-9, 0.0, 100.0])  # |f_0 − f_1| = 5e-9 ≤ 1e-8 · 100: a tie
    assert xauc(y, f, g).ab == 0.5
    assert xauc(y, f, g, tied_tol=0).ab == 1.0
    assert xauc(y, f, g, ties="strict").ab == 0.0


def test_xauc_errors_name_the_problem():
    y, f = np.array([1, 0, 1, 0]), np.array([0.3, 0.1, 0.5, 0.2])
    with pytest.raises(ValueError, match=r"groups has 3 labels .*merge the labels into two groups"):
        xauc(y, f, [0, 1, 2, 0])
    with pytest.raises(ValueError, match=r"group_a='x' is not a label of groups"):
        xauc(y, f, ["a", "a", "b", "b"], group_a="x")
    with pytest.raises(ValueError, match=r"Group 'b' has no negative sample .*xAUC\('a', 'b'\) is undefined"):
        xauc(y, f, ["a", "a", "b", "a"])
    with pytest.raises(ValueError, match=r"Group 1 has no positive sample .*xAUC\(1, 0\)"):
        xauc(y, f, [0, 1, 1, 0], sample_weight=[1, 1, 0, 1], group_a=0)
    with pytest.raises(ValueError, match="Inconsistent numbers of samples"):
        xauc(y, f, [0, 1, 1])
    with pytest.raises(ValueError, match="1-d array of group labels"):
        xauc(y, f, [[0, 1], [1, 0]])


def test_xauc_weight_and_group_label_errors_name_the_cause():
    """Inputs that used to raise IndexError / TypeError from inside numpy give a ValueError naming the fix."""
    y, f = np.array([1, 0, 1, 0]), np.array([0.3, 0.1, 0.5, 0.2])
    with pytest.raises(ValueError, match=r"total weight of zero \(positives: 0, negatives: 0\)"):
        xauc([0, 1], [0.0, 0.0], ["a", "a"], sample_weight=[0, 0])
    with pytest.raises(ValueError, match=r"total weight of zero \(positives: 0, negatives: 2\)"):
        xauc(y, f, ["a", "a", "b", "b"], sample_weight=[0, 1, 0, 1])
    with pytest.raises(ValueError, match=r"sample_weight is zero on every sample of group_a='b'"):
        xauc(y, f, ["a", "a", "b", "b"], group_a="b", sample_weight=[1, 1, 0, 0])
    with pytest.raises(ValueError, match=r"groups mixes label types \(NoneType, str\)"):
        xauc(y, f, [None, "a", None, "a"])
    with pytest.raises(ValueError, match=r"groups contains 2 NaN or infinite label"):
        xauc(y, f, [1.0, np.nan, 1.0, np.nan])
    with pytest.raises(ValueError, match=r"group_a=array\(\[0, 1\]\) is not a label of groups \[0, 1\]"):
        xauc(y, f, [0, 1, 1, 0], group_a=np.array([0, 1]))
    result = xauc(y, f, [0, 1, 1, 0], group_a=np.int64(1))  # a numpy scalar label is returned as the plain label
    assert type(result.group_a) is int and (result.group_a, result.group_b) == (1, 0)
    # a zero weight removes the row, and a group all of zero weight with it: one group left, the AUC
    kept = xauc(y, f, ["a", "a", "b", "b"], sample_weight=[1, 1, 0, 0])
    assert kept.ab == kept.ba == roc_auc(y[:2], f[:2])
