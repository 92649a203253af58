"""Properties of aucopt.metrics and of the order-statistics oracle against independent oracles.

Oracles: brute-force pair enumeration, sklearn.metrics.roc_auc_score,
sksurv.metrics.concordance_index_censored and lifelines.utils.concordance_index
(scikit-survival is used only as a test oracle), and the former numpy implementation
(tests/metrics_reference.py: binary searches and a merge-sort tree in place of the compiled
merge and Fenwick-tree sweep).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from metrics_reference import reference_concordance_counts, reference_harrell_c, reference_roc_auc
from order_reference import suffix_less_equal_counts
from sklearn.datasets import load_breast_cancer
from sklearn.metrics import roc_auc_score

from aucopt import _metrics_numba, survival_target
from aucopt.metrics import ConcordanceCounts, concordance_counts, harrell_c, multipartite_c_index, roc_auc, xauc

# ----------------------------------------------------------------------------- brute force


def brute_auc(is_pos, score, tie_credit):
    pos, neg = score[is_pos], score[~is_pos]
    total = 0.0
    for fi in pos:
        for fj in neg:
            total += 1.0 if fi > fj else (tie_credit if fi == fj else 0.0)
    return total / (len(pos) * len(neg))


def brute_concordance(event, time, risk):
    conc = disc = tied = comp = 0
    m = len(time)
    for i in range(m):
        if not event[i]:
            continue
        for j in range(m):
            if time[i] < time[j] or (time[i] == time[j] and not event[j]):
                comp += 1
                if risk[i] > risk[j]:
                    conc += 1
                elif risk[i] == risk[j]:
                    tied += 1
                else:
                    disc += 1
    return ConcordanceCounts(conc, disc, tied, comp)


def random_survival(rng, m, n_times=6, n_risks=5, p_event=0.6):
    """Tied times, tied (integer-valued, so never *near*-tied) risks, mixed censoring."""
    time = rng.integers(0, n_times, m).astype(float)
    event = rng.random(m) < p_event
    risk = rng.integers(0, n_risks, m).astype(float)
    return event, time, risk


# ----------------------------------------------------------------------------- _order


@settings(max_examples=150, deadline=None)
@given(
    m=st.integers(1, 40),
    n_queries=st.integers(0, 60),
    n_values=st.integers(1, 6),
    seed=st.integers(0, 2**32 - 1),
)
def test_suffix_counts_match_brute_force(m, n_queries, n_values, seed):
    rng = np.random.default_rng(seed)
    order = rng.permutation(m)
    values = rng.integers(0, n_values, m).astype(float)
    weights = rng.standard_normal(m)
    queries = rng.integers(0, m, n_queries)
    start = rng.integers(0, m + 1, n_queries)
    got = suffix_less_equal_counts(order, start, values, queries, weights)
    for k in range(n_queries):
        suffix = order[start[k] :]
        x = values[queries[k]]
        less, equal = values[suffix] < x, values[suffix] == x
        assert got.less[k] == less.sum()
        assert got.equal[k] == equal.sum()
        assert got.weight_less[k] == pytest.approx(weights[suffix][less].sum(), abs=1e-9)
        assert got.weight_equal[k] == pytest.approx(weights[suffix][equal].sum(), abs=1e-9)


def test_suffix_counts_unweighted_and_edge_cases():
    rng = np.random.default_rng(0)
    m = 1000
    order = rng.permutation(m)
    values = rng.integers(0, 50, m)  # integer dtype works too
    queries = np.arange(m)
    start = rng.integers(0, m + 1, m)
    got = suffix_less_equal_counts(order, start, values, queries)
    assert got.weight_less is None and got.weight_equal is None
    # Oracle: position-indexed values, counted per query with a vectorized mask.
    pos_values = values[order]
    mask = np.arange(m)[None, :] >= start[:, None]
    x = values[queries][:, None]
    np.testing.assert_array_equal(got.less, (mask & (pos_values[None, :] < x)).sum(1))
    np.testing.assert_array_equal(got.equal, (mask & (pos_values[None, :] == x)).sum(1))
    # Empty suffix (start == m) and no queries.
    empty = suffix_less_equal_counts(order, [m], values, [3])
    assert empty.less[0] == 0 and empty.equal[0] == 0
    assert len(suffix_less_equal_counts(order, [], values, []).less) == 0
    with pytest.raises(ValueError, match="permutation"):
        suffix_less_equal_counts([0, 0, 1], [0], [1.0, 2.0, 3.0], [0])
    with pytest.raises(ValueError, match="start"):
        suffix_less_equal_counts([0, 1], [3], [1.0, 2.0], [0])


# ----------------------------------------------------------------------------- roc_auc


@settings(max_examples=100, deadline=None)
@given(m=st.integers(2, 60), levels=st.integers(1, 6), seed=st.integers(0, 2**32 - 1))
def test_roc_auc_half_equals_sklearn_with_many_ties(m, levels, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, m)
    y[0], y[1] = 0, 1  # both classes present
    score = np.round(rng.random(m) * levels) / levels  # quantized: many exact ties
    assert roc_auc(y, score) == pytest.approx(roc_auc_score(y, score), abs=1e-12)
    assert roc_auc(y, score, ties="strict") == pytest.approx(brute_auc(y == 1, score, 0.0), abs=1e-12)
    assert roc_auc(y, score) == pytest.approx(brute_auc(y == 1, score, 0.5), abs=1e-12)


def test_roc_auc_breast_cancer_matches_sklearn():
    X, y = load_breast_cancer(return_X_y=True)
    for column in (0, 1, 20, 27):
        score = X[:, column]
        assert roc_auc(y, score) == pytest.approx(roc_auc_score(y, score), abs=1e-12)
        assert roc_auc(y, -score) == pytest.approx(roc_auc_score(y, -score), abs=1e-12)
    rounded = np.round(X[:, 0])  # heavy ties on real data
    assert roc_auc(y, rounded) == pytest.approx(roc_auc_score(y, rounded), abs=1e-12)
    strict = roc_auc(y, rounded, ties="strict")
    assert strict == pytest.approx(brute_auc(y == 1, rounded, 0.0), abs=1e-12)
    assert strict < roc_auc(y, rounded)


@pytest.mark.parametrize(
    "ranking, expected",
    [("++++-+----", 24 / 25), ("-++++----+", 16 / 25), ("+++--++---", 21 / 25), ("+--++-++--", 15 / 25)],
)
def test_roc_auc_thesis_toy_tables(ranking, expected):
    # ranking lists the samples from highest to lowest score.
    y = np.array([c == "+" for c in ranking])
    score = np.arange(len(ranking), 0, -1, dtype=float)
    assert roc_auc(y, score) == expected
    assert roc_auc(y, score, ties="strict") == expected  # no ties here


def test_roc_auc_label_encodings_agree():
    rng = np.random.default_rng(3)
    y01 = rng.integers(0, 2, 50)
    score = np.round(rng.standard_normal(50), 1)
    ref = roc_auc(y01, score)
    assert roc_auc(2 * y01 - 1, score) == ref
    assert roc_auc(y01.astype(bool), score) == ref
    assert roc_auc(y01.astype(float), score) == ref
    strings = np.where(y01 == 1, "sick", "healthy")
    assert roc_auc(strings, score, pos_label="sick") == ref
    # pos_label flips the roles: AUC(neg as positive) = 1 - AUC under ties="half".
    assert roc_auc(strings, score, pos_label="healthy") == pytest.approx(1 - ref, abs=1e-12)
    assert roc_auc(list(y01), list(score)) == ref


def test_roc_auc_bad_input():
    y, s = np.array([0, 1, 1, 0]), np.array([0.1, 0.4, 0.35, 0.8])
    with pytest.raises(ValueError, match="NaN"):
        roc_auc(y, np.array([0.1, np.nan, 0.3, 0.2]))
    with pytest.raises(ValueError, match="one class"):
        roc_auc(np.ones(4), s)
    with pytest.raises(ValueError, match="Inconsistent numbers of samples"):
        roc_auc(y, s[:3])
    with pytest.raises(ValueError, match="ties must be one of"):
        roc_auc(y, s, ties="average")
    with pytest.raises(ValueError, match="pos_label"):
        roc_auc(y, s, pos_label=2)


# ----------------------------------------------------------------------------- Harrell's C


@settings(max_examples=200, deadline=None)
@given(
    m=st.integers(1, 30),
    n_times=st.integers(1, 6),
    n_risks=st.integers(1, 6),
    p_event=st.sampled_from([0.0, 0.3, 0.7, 1.0]),
    seed=st.integers(0, 2**32 - 1),
)
def test_concordance_counts_match_brute_force(m, n_times, n_risks, p_event, seed):
    rng = np.random.default_rng(seed)
    event, time, risk = random_survival(rng, m, n_times, n_risks, p_event)
    expected = brute_concordance(event, time, risk)
    got = concordance_counts((event, time), risk)
    assert got == expected
    assert all(type(v) is int for v in got)
    if expected.comparable == 0:
        with pytest.raises(ValueError, match="No comparable pairs"):
            harrell_c((event, time), risk)
    else:
        c = expected.concordant
        assert harrell_c((event, time), risk) == pytest.approx(
            (c + 0.5 * expected.tied_risk) / expected.comparable, abs=1e-12
        )
        assert harrell_c((event, time), risk, ties="strict") == pytest.approx(
            c / expected.comparable, abs=1e-12
        )


def test_harrell_c_structured_target_and_tuple_agree():
    rng = np.random.default_rng(7)
    event, time, risk = random_survival(rng, 80)
    y = np.empty(80, dtype=[("status", bool), ("days", float)])
    y["status"], y["days"] = event, time
    assert harrell_c(y, risk) == harrell_c((event, time), risk)
    assert harrell_c((event.astype(int), time), risk) == harrell_c((event, time), risk)


@pytest.mark.parametrize("seed", range(5))
def test_harrell_c_matches_sksurv_and_lifelines_random(seed):
    sksurv_metrics = pytest.importorskip("sksurv.metrics")
    lifelines_utils = pytest.importorskip("lifelines.utils")
    rng = np.random.default_rng(seed)
    m = 300
    event, time, risk = random_survival(rng, m, n_times=40, n_risks=25)
    # Integer-valued risks: exact ties only, never within sksurv's tied_tol=1e-8 otherwise.
    cindex, conc, disc, tied_risk, _ = sksurv_metrics.concordance_index_censored(event, time, risk)
    counts = concordance_counts((event, time), risk)
    assert (counts.concordant, counts.discordant, counts.tied_risk) == (conc, disc, tied_risk)
    assert harrell_c((event, time), risk) == pytest.approx(cindex, abs=1e-12)
    assert harrell_c((event, time), risk) == pytest.approx(
        lifelines_utils.concordance_index(time, -risk, event), abs=1e-12
    )


def test_harrell_c_matches_oracles_on_whas500():
    sksurv_datasets = pytest.importorskip("sksurv.datasets")
    sksurv_metrics = pytest.importorskip("sksurv.metrics")
    lifelines_utils = pytest.importorskip("lifelines.utils")
    X, y = sksurv_datasets.load_whas500()
    event, time = y["fstat"], y["lenfol"]
    for column in ("age", "hr", "bmi"):
        risk = X[column].to_numpy(dtype=float)
        cindex, conc, disc, tied_risk, _ = sksurv_metrics.concordance_index_censored(
            event, time, risk
        )
        counts = concordance_counts(y, risk)
        assert (counts.concordant, counts.discordant, counts.tied_risk) == (conc, disc, tied_risk)
        assert counts == brute_concordance(event, time, risk)
        assert harrell_c(y, risk) == pytest.approx(cindex, abs=1e-12)
        assert harrell_c(y, risk) == pytest.approx(
            lifelines_utils.concordance_index(time, -risk, event), abs=1e-12
        )
    assert harrell_c(y, X["age"]) > 0.6  # age is a strong risk factor after MI


def test_harrell_c_bad_input():
    event = np.array([True, False, True, True])
    time = np.array([1.0, 2.0, 3.0, 4.0])
    risk = np.array([0.3, 0.1, 0.2, 0.0])
    with pytest.raises(ValueError, match="NaN"):
        harrell_c((event, time), np.array([0.3, np.nan, 0.2, 0.0]))
    with pytest.raises(ValueError, match="Inconsistent numbers of samples"):
        harrell_c((event, time), risk[:3])
    with pytest.raises(ValueError, match="No comparable pairs"):
        harrell_c((np.zeros(4, dtype=bool), time), risk)
    with pytest.raises(ValueError, match="ties must be one of"):
        harrell_c((event, time), risk, ties="average")
    with pytest.raises(ValueError, match="survival target"):
        harrell_c(np.array([1, 0, 1, 1]), risk)
    # All censored: counts are zero rather than an error.
    assert concordance_counts((np.zeros(4, dtype=bool), time), risk) == ConcordanceCounts(0, 0, 0, 0)


# ----------------------------------------------------------------------------- tie tolerance
def _near_tie_survival(rng, m):
    """Survival data whose risks have exact ties and near-ties (1e-14 ... 3e-8 apart)."""
    time = rng.integers(0, 15, m).astype(float)
    event = rng.random(m) < 0.6
    event[0] = True
    time[0] = 0.0  # an event at the earliest time
    time[-1] = 20.0  # and a later subject: at least one comparable pair
    base = rng.integers(0, 6, m).astype(float) + rng.normal(size=m) * (rng.random(m) < 0.5)
    risk = base + rng.choice([0.0, 1e-14, -1e-14, 3e-9, -7e-9, 2e-8, -3e-8], size=m)
    return event, time, risk


@pytest.mark.parametrize("seed", range(20))
def test_harrell_c_tied_tol_matches_sksurv_with_near_ties(seed):
    sksurv_metrics = pytest.importorskip("sksurv.metrics")
    rng = np.random.default_rng(seed)
    event, time, risk = _near_tie_survival(rng, int(rng.integers(5, 200)))
    scale = np.max(np.abs(risk))  # our tolerance is relative to it, scikit-survival's absolute
    for tol in (1e-8, 0.0, 5e-9):
        cindex, conc, disc, tied, _ = sksurv_metrics.concordance_index_censored(event, time, risk,
                                                                                tied_tol=tol * scale)
        counts = concordance_counts((event, time), risk, tied_tol=tol)
        assert (counts.concordant, counts.discordant, counts.tied_risk) == (conc, disc, tied)
        assert harrell_c((event, time), risk, tied_tol=tol) == pytest.approx(cindex, abs=1e-12)
    # the default is scikit-survival's default, relative to the risks' scale
    assert concordance_counts((event, time), risk) == concordance_counts((event, time), risk, tied_tol=1e-8)
    assert harrell_c((event, time), risk / scale) == pytest.approx(
        sksurv_metrics.concordance_index_censored(event, time, risk / scale)[0], abs=1e-12)


@pytest.mark.parametrize("scale", [1e-12, 1e-9, 1e9])
def test_tie_tolerance_is_relative_so_rescaled_scores_score_alike(scale):
    """An absolute 1e-8 tied every pair of scores of magnitude 1e-9 (AUC 0.5 for any model)."""
    rng = np.random.default_rng(0)
    scores = rng.normal(size=200)
    y = rng.random(200) < 0.4
    y[:2] = [True, False]
    assert roc_auc(y, scale * scores) == roc_auc(y, scores) == pytest.approx(roc_auc_score(y, scores), abs=1e-12)
    target = survival_target(y, rng.exponential(size=200))
    assert harrell_c(target, scale * scores) == harrell_c(target, scores)
    assert concordance_counts(target, scale * scores) == concordance_counts(target, scores)


@pytest.mark.parametrize("seed", range(10))
def test_metrics_invariant_to_round_off_perturbations(seed):
    """Scores differing by ~1e-14 (e.g. a model fitted on X and on csr_matrix(X)) score alike."""
    rng = np.random.default_rng(seed)
    m = 150
    event, time, _ = _near_tie_survival(rng, m)
    risk = rng.integers(0, 8, m) / 7.0  # many exact ties
    wobble = risk * (1 + rng.choice([-1, 1], m) * 1e-14) + rng.normal(size=m) * 1e-14
    assert not np.array_equal(risk, wobble)
    assert harrell_c((event, time), wobble) == harrell_c((event, time), risk)
    assert concordance_counts((event, time), wobble) == concordance_counts((event, time), risk)
    y = rng.random(m) < 0.4
    y[:2] = [True, False]
    assert roc_auc(y, wobble) == roc_auc(y, risk) == pytest.approx(roc_auc_score(y, risk), abs=1e-12)
    # exact ties only: the perturbation now changes the answer
    assert harrell_c((event, time), wobble, tied_tol=0) != harrell_c((event, time), risk, tied_tol=0)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_exact_mode_equals_brute_force_exact_ties(seed):
    """``tied_tol=0`` keeps the exact-tie counts (ties only when equal), for both metrics."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 40))
    event, time, risk = _near_tie_survival(rng, m)
    conc = disc = tied = 0
    for i in range(m):
        for j in range(m):
            if event[i] and (time[i] < time[j] or (time[i] == time[j] and not event[j])):
                conc += risk[i] > risk[j]
                disc += risk[i] < risk[j]
                tied += risk[i] == risk[j]
    assert concordance_counts((event, time), risk, tied_tol=0) == (conc, disc, tied, conc + disc + tied)
    y = np.arange(m) % 2 == 0
    assert roc_auc(y, risk, tied_tol=0) == pytest.approx(roc_auc_score(y, risk), abs=1e-12)


def test_roc_auc_tied_tol_counts_near_ties_as_ties():
    y = [0, 1, 0, 1]
    scores = [0.5, 0.5 + 5e-9, 0.1, 0.9]
    assert roc_auc(y, scores) == 0.875  # the near-tie counts 1/2
    assert roc_auc(y, scores, tied_tol=0) == 1.0
    assert roc_auc(y, scores, tied_tol=1e-9) == 1.0
    assert roc_auc(y, [0.5, 0.5 + 5e-8, 0.1, 0.9]) == 1.0  # beyond the tolerance: ordered


@pytest.mark.parametrize("bad", [-1e-8, float("nan"), float("inf"), "0", True])
def test_tied_tol_bad_values(bad):
    with pytest.raises(ValueError, match="tied_tol must be a non-negative finite number"):
        harrell_c(([True, False], [1.0, 2.0]), [0.3, 0.1], tied_tol=bad)
    with pytest.raises(ValueError, match="tied_tol"):
        roc_auc([0, 1], [0.3, 0.1], tied_tol=bad)


# ----------------------------------------------------------------------------- sample_weight


def brute_weighted_concordance(event, time, risk, weight, tol=0.0):
    """Σ w_i w_j over every comparable pair (i, j), listed one by one: (concordant, tied, comparable)."""
    conc = tied = comp = 0.0
    for i in range(len(time)):
        if not event[i]:
            continue
        for j in range(len(time)):
            if time[i] < time[j] or (time[i] == time[j] and not event[j]):
                pair = weight[i] * weight[j]
                comp += pair
                if abs(risk[i] - risk[j]) <= tol:
                    tied += pair
                elif risk[i] > risk[j]:
                    conc += pair
    return conc, tied, comp


@settings(max_examples=100, deadline=None)
@given(m=st.integers(2, 60), levels=st.integers(1, 5), seed=st.integers(0, 2**32 - 1))
def test_weighted_roc_auc_equals_sklearn_with_heavy_ties(m, levels, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, m)
    y[0], y[1] = 0, 1
    score = rng.integers(0, levels + 1, m).astype(float)  # integer scores: heavy exact ties
    weight = rng.random(m) * 3
    weight[0] = weight[1] = 1.0  # both classes keep a positive weight
    weight[rng.random(m) < 0.2] = 0.0
    weight[0] = weight[1] = 1.0
    expected = roc_auc_score(y, score, sample_weight=weight)
    assert roc_auc(y, score, sample_weight=weight) == pytest.approx(expected, rel=1e-12, abs=1e-12)
    assert roc_auc(y, score, sample_weight=weight, tied_tol=0) == pytest.approx(expected, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_integer_weights_equal_repeated_rows(seed):
    rng = np.random.default_rng(seed)
    m = 50
    y = rng.integers(0, 2, m)
    y[:2] = [0, 1]
    score = rng.integers(0, 6, m).astype(float)
    weight = rng.integers(0, 4, m)
    weight[:2] = 1
    rows = np.repeat(np.arange(m), weight)
    assert roc_auc(y, score, sample_weight=weight) == pytest.approx(roc_auc(y[rows], score[rows]), rel=1e-14)
    assert roc_auc(y, score, sample_weight=weight, ties="strict") == pytest.approx(
        roc_auc(y[rows], score[rows], ties="strict"), rel=1e-14)

    event, time, risk = random_survival(rng, m, n_times=8, n_risks=5)
    time += 1.0
    event[0], time[0] = True, 0.0  # at least one comparable pair among the weighted rows
    got = concordance_counts((event, time), risk, sample_weight=weight)
    want = concordance_counts((event[rows], time[rows]), risk[rows])
    for field in ConcordanceCounts._fields:
        assert getattr(got, field) == pytest.approx(getattr(want, field), rel=1e-14, abs=1e-12)
        assert isinstance(getattr(got, field), float)
    assert harrell_c((event, time), risk, sample_weight=weight) == pytest.approx(
        harrell_c((event[rows], time[rows]), risk[rows]), rel=1e-14)


@settings(max_examples=120, deadline=None)
@given(
    m=st.integers(1, 30),
    n_times=st.integers(1, 6),
    n_risks=st.integers(1, 6),
    p_event=st.sampled_from([0.0, 0.3, 0.7, 1.0]),
    seed=st.integers(0, 2**32 - 1),
)
def test_weighted_concordance_matches_brute_force(m, n_times, n_risks, p_event, seed):
    """Tied times, tied risks, censoring and zero weights, against every pair listed."""
    rng = np.random.default_rng(seed)
    event, time, risk = random_survival(rng, m, n_times, n_risks, p_event)
    weight = rng.random(m) * 2
    weight[rng.random(m) < 0.25] = 0.0
    conc, tied, comp = brute_weighted_concordance(event, time, risk, weight)
    got = concordance_counts((event, time), risk, sample_weight=weight)
    assert got.comparable == pytest.approx(comp, rel=1e-12, abs=1e-12)
    assert got.concordant == pytest.approx(conc, rel=1e-12, abs=1e-12)
    assert got.tied_risk == pytest.approx(tied, rel=1e-12, abs=1e-12)
    assert got.discordant == pytest.approx(comp - conc - tied, rel=1e-12, abs=1e-12)
    if comp == 0:
        with pytest.raises(ValueError, match="sample_weight"):
            harrell_c((event, time), risk, sample_weight=weight)
    else:
        assert harrell_c((event, time), risk, sample_weight=weight) == pytest.approx(
            (conc + 0.5 * tied) / comp, rel=1e-12, abs=1e-12)
        assert harrell_c((event, time), risk, sample_weight=weight, ties="strict") == pytest.approx(
            conc / comp, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_weighted_concordance_with_near_ties_matches_brute_force(seed):
    """The relative tie tolerance applies to weighted sums as to counts (over positive-weight rows)."""
    rng = np.random.default_rng(seed)
    event, time, risk = _near_tie_survival(rng, 70)
    weight = rng.random(70) + 0.5
    weight[::7] = 0.0
    scale = np.max(np.abs(risk[weight > 0]))
    conc, tied, comp = brute_weighted_concordance(event, time, risk, weight, tol=1e-8 * scale)
    got = concordance_counts((event, time), risk, sample_weight=weight)
    assert (got.concordant, got.tied_risk, got.comparable) == pytest.approx((conc, tied, comp), rel=1e-12)
    assert tied > 0  # the near ties are exercised


def test_zero_weight_is_removal_for_every_metric():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 40)
    y[:2] = [0, 1]
    score = rng.normal(size=40)
    score[5] = 1e9  # a removed row does not widen the tie tolerance of the others
    weight = np.ones(40)
    weight[5] = 0.0
    keep = weight > 0
    assert roc_auc(y, score, sample_weight=weight) == roc_auc(y[keep], score[keep])
    event, time, _ = random_survival(rng, 40)
    time += 1.0
    event[0], time[0] = True, 0.0
    assert harrell_c((event, time), score, sample_weight=weight) == harrell_c((event[keep], time[keep]), score[keep])


def test_unit_and_scalar_weights_change_nothing():
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 80)
    score = rng.integers(0, 5, 80).astype(float)
    assert roc_auc(y, score, sample_weight=np.ones(80)) == roc_auc(y, score)
    assert roc_auc(y, score, sample_weight=2.5) == roc_auc(y, score)
    event, time, risk = random_survival(rng, 80)
    assert harrell_c((event, time), risk, sample_weight=np.ones(80)) == harrell_c((event, time), risk)
    assert harrell_c((event, time), risk, sample_weight=0.5) == pytest.approx(harrell_c((event, time), risk), rel=1e-15)
    unweighted = concordance_counts((event, time), risk)
    assert all(type(v) is int for v in unweighted)  # the unweighted counts stay exact integers


@pytest.mark.parametrize(
    ("weight", "match"),
    [(-1.0, "sample_weight must be non-negative"),
     ([1.0, 2.0], r"sample_weight"),
     (np.r_[np.nan, np.ones(9)], "sample_weight contains 1"),
     (1e160, r"overflow float64\. Rescale sample_weight")],
)
def test_weight_errors_name_sample_weight(weight, match):
    y = np.r_[np.zeros(5), np.ones(5)]
    score = np.arange(10.0)
    with pytest.raises(ValueError, match=match):
        roc_auc(y, score, sample_weight=weight)
    with pytest.raises(ValueError, match=match):
        harrell_c((y.astype(bool), score), score, sample_weight=weight)


def test_weights_leaving_a_class_or_no_comparable_pair_are_refused():
    y = np.array([0, 0, 1, 1])
    with pytest.raises(ValueError, match="positive or the negative class a total weight of zero"):
        roc_auc(y, [0.1, 0.2, 0.3, 0.4], sample_weight=[1, 1, 0, 0])
    with pytest.raises(ValueError, match="No comparable pair has positive weight"):
        harrell_c(([True, False, True], [1.0, 2.0, 3.0]), [0.3, 0.2, 0.1], sample_weight=[0, 1, 1])


_NO_WEIGHT = "positive or the negative class a total weight of zero"


@pytest.mark.parametrize(
    ("metric", "match"),
    [(lambda w: roc_auc([0, 1], [0.0, 0.0], sample_weight=w), _NO_WEIGHT),
     (lambda w: xauc([0, 1], [0.0, 0.0], ["a", "a"], sample_weight=w), _NO_WEIGHT),
     (lambda w: xauc([0, 1], [0.0, 0.0], ["a", "b"], sample_weight=w), _NO_WEIGHT),
     (lambda w: harrell_c(([True, False], [1.0, 2.0]), [0.0, 1.0], sample_weight=w),
      "No comparable pair has positive weight"),
     (lambda w: multipartite_c_index([0, 1], [0.0, 1.0], sample_weight=w), "no pair of points on different levels")],
    ids=["roc_auc", "xauc_one_group", "xauc_two_groups", "harrell_c", "multipartite_c_index"],
)
@pytest.mark.parametrize("weight", [[0, 0], 0.0], ids=["zeros", "scalar_zero"])
def test_all_zero_weights_give_each_metric_its_clear_error(metric, match, weight):
    """Every row of zero weight (no pair left) is refused by a ValueError naming the cause, never a crash."""
    with pytest.raises(ValueError, match=match):
        metric(weight)
    assert concordance_counts(([True, False], [1.0, 2.0]), [0.0, 1.0], sample_weight=weight) == (0, 0, 0, 0)


@pytest.mark.parametrize(
    ("metric", "match"),
    [(lambda: roc_auc([], []), "only one class"),
     (lambda: roc_auc([1, 1], [0.0, 1.0]), "only one class"),
     (lambda: xauc([], [], []), "only one class"),
     (lambda: xauc([1, 1], [0.0, 1.0], ["a", "b"]), "only one class"),
     (lambda: harrell_c(([], []), []), "No comparable pairs"),
     (lambda: harrell_c(([False, False], [1.0, 2.0]), [0.0, 1.0]), "No comparable pairs"),
     (lambda: multipartite_c_index([], []), "0 distinct level"),
     (lambda: multipartite_c_index([1, 1], [0.0, 1.0]), "1 distinct level")],
)
def test_empty_or_one_class_inputs_give_each_metric_its_clear_error(metric, match):
    with pytest.raises(ValueError, match=match):
        metric()
    assert concordance_counts(([], []), []) == (0, 0, 0, 0)


# ----------------------------------------------------------------------------- compiled vs reference


def brute_weighted_auc(is_pos, score, weight, tol, tie_credit):
    """Σ w_i w_j ([f_j < f_i, not tied] + c [|f_i - f_j| <= tol]) / (W+ W-), every pair listed."""
    num = 0.0
    for i in np.flatnonzero(is_pos):
        for j in np.flatnonzero(~is_pos):
            if abs(score[i] - score[j]) <= tol:
                num += tie_credit * weight[i] * weight[j]
            elif score[i] > score[j]:
                num += weight[i] * weight[j]
    return num / (weight[is_pos].sum() * weight[~is_pos].sum())


def brute_counts_within(event, time, risk, tol):
    """Exact (concordant, discordant, tied, comparable) with ties ``|r_i - r_j| <= tol``, every pair listed."""
    conc = disc = tied = 0
    for i in np.flatnonzero(event):
        for j in range(len(time)):
            if time[i] < time[j] or (time[i] == time[j] and not event[j]):
                if abs(risk[i] - risk[j]) <= tol:
                    tied += 1
                elif risk[i] > risk[j]:
                    conc += 1
                else:
                    disc += 1
    return ConcordanceCounts(conc, disc, tied, conc + disc + tied)


# near-ties: offsets below, at and above the default relative tolerance (the risks are O(1..10))
_NEAR = [0.0, 1e-15, -1e-15, 2e-9, -4e-9, 3e-8, -6e-8, 1e-7]


@st.composite
def heavy_tie_survival(draw, max_m=40):
    """Integer times and risks (heavy ties), many censored, zero and integer weights, near-ties."""
    m = draw(st.integers(1, max_m))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n_times = draw(st.integers(1, 8))
    time = rng.integers(0, n_times, m).astype(float)
    event = rng.random(m) < draw(st.sampled_from([0.0, 0.2, 0.5, 0.9, 1.0]))
    risk = rng.integers(0, draw(st.integers(1, 6)), m).astype(float)
    if draw(st.booleans()):
        risk = risk + rng.choice(_NEAR, size=m)
    risk = risk * draw(st.sampled_from([1.0, -1.0, 1e-9, 1e6]))
    weight = rng.integers(0, 4, m).astype(float)
    if draw(st.booleans()):
        weight = weight * rng.random(m)
    return event, time, risk, weight


@settings(max_examples=300, deadline=None)
@given(data=heavy_tie_survival(), tied_tol=st.sampled_from([0.0, 1e-8, 5e-9, 1e-3]))
def test_compiled_concordance_equals_reference_and_brute_force(data, tied_tol):
    event, time, risk, weight = data
    got = concordance_counts((event, time), risk, tied_tol=tied_tol)
    assert got == reference_concordance_counts((event, time), risk, tied_tol=tied_tol)
    assert got == brute_counts_within(event, time, risk, tied_tol * np.max(np.abs(risk)))
    assert all(type(v) is int for v in got)

    weighted = concordance_counts((event, time), risk, tied_tol=tied_tol, sample_weight=weight)
    ref = reference_concordance_counts((event, time), risk, tied_tol=tied_tol, sample_weight=weight)
    keep = weight > 0
    scale = np.max(np.abs(risk[keep]), initial=0.0)
    conc, tied, comp = brute_weighted_concordance(event, time, risk, weight, tol=tied_tol * scale)
    assert all(isinstance(v, float) for v in weighted)
    for got_v, ref_v, brute_v in zip(weighted, ref, (conc, comp - conc - tied, tied, comp), strict=False):
        assert got_v == pytest.approx(ref_v, rel=1e-12, abs=1e-12)
        assert got_v == pytest.approx(brute_v, rel=1e-12, abs=1e-12)
    if np.array_equal(weight, np.round(weight)):  # integer weights: the repeated rows, exactly
        rows = np.repeat(np.arange(len(weight)), weight.astype(int))
        repeated = concordance_counts((event[rows], time[rows]), risk[rows], tied_tol=tied_tol)
        assert tuple(weighted) == tuple(float(v) for v in repeated)
    for ties in ("half", "strict"):
        if comp > 0:
            assert harrell_c((event, time), risk, ties=ties, tied_tol=tied_tol, sample_weight=weight) == \
                pytest.approx(reference_harrell_c((event, time), risk, ties=ties, tied_tol=tied_tol,
                                                  sample_weight=weight), rel=1e-12, abs=1e-12)
        if got.comparable > 0:
            assert harrell_c((event, time), risk, ties=ties, tied_tol=tied_tol) == \
                reference_harrell_c((event, time), risk, ties=ties, tied_tol=tied_tol)


@settings(max_examples=300, deadline=None)
@given(data=heavy_tie_survival(max_m=50), tied_tol=st.sampled_from([0.0, 1e-8, 5e-9, 1e-3]),
       ties=st.sampled_from(["half", "strict"]))
def test_compiled_roc_auc_equals_reference_and_brute_force(data, tied_tol, ties):
    is_pos, _, score, weight = data
    if is_pos.all() or not is_pos.any():
        return
    y = is_pos.astype(int)
    got = roc_auc(y, score, ties=ties, tied_tol=tied_tol)
    assert got == reference_roc_auc(y, score, ties=ties, tied_tol=tied_tol)
    credit = 0.5 if ties == "half" else 0.0
    tol = tied_tol * np.max(np.abs(score))
    assert got == pytest.approx(brute_weighted_auc(is_pos, score, np.ones(len(y)), tol, credit), abs=1e-12)
    keep = weight > 0
    if not (is_pos[keep].any() and (~is_pos[keep]).any()):
        with pytest.raises(ValueError, match="total weight of zero"):
            roc_auc(y, score, ties=ties, tied_tol=tied_tol, sample_weight=weight)
        return
    weighted = roc_auc(y, score, ties=ties, tied_tol=tied_tol, sample_weight=weight)
    assert weighted == pytest.approx(
        reference_roc_auc(y, score, ties=ties, tied_tol=tied_tol, sample_weight=weight), rel=1e-12, abs=1e-12)
    tol_kept = tied_tol * np.max(np.abs(score[keep]))
    assert weighted == pytest.approx(
        brute_weighted_auc(is_pos[keep], score[keep], weight[keep], tol_kept, credit), rel=1e-12, abs=1e-12)
    if tied_tol == 0 and ties == "half":
        assert weighted == pytest.approx(roc_auc_score(y, score, sample_weight=weight), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_compiled_equals_reference_on_larger_inputs(seed):
    """Thousands of subjects, heavy ties and continuous values alike (many Fenwick-tree levels)."""
    rng = np.random.default_rng(seed)
    m = 5_000  # 13 Fenwick-tree levels; the numpy reference's merge-sort tree is the slow side
    time = rng.integers(0, 300, m).astype(float)
    event = rng.random(m) < 0.3
    for risk in (rng.integers(0, 50, m).astype(float), rng.normal(size=m),
                 np.round(rng.normal(size=m), 3) + rng.choice(_NEAR, m)):
        for tied_tol in (0.0, 1e-8, 1e-4):
            assert concordance_counts((event, time), risk, tied_tol=tied_tol) == \
                reference_concordance_counts((event, time), risk, tied_tol=tied_tol)
            assert roc_auc(event, risk, tied_tol=tied_tol) == reference_roc_auc(event, risk, tied_tol=tied_tol)
        weight = rng.integers(0, 3, m) * rng.random(m)
        got = concordance_counts((event, time), risk, sample_weight=weight)
        ref = reference_concordance_counts((event, time), risk, sample_weight=weight)
        assert tuple(got) == pytest.approx(tuple(ref), rel=1e-10)


def test_inputs_of_any_dtype_share_one_compiled_signature():
    """Integer, boolean, float32 and list inputs are cast before the kernels: one compilation each."""
    event = np.array([True, False, True, True, False, True])
    for time, risk in [([1, 2, 3, 4, 5, 6], [3, 1, 2, 2, 0, 1]),
                       (np.arange(6, dtype=np.float32), np.array([0.3, 0.1, 0.2, 0.2, 0.0, 0.1], np.float32)),
                       (np.arange(6, dtype=np.int32), np.array([1, 0, 1, 1, 0, 0], dtype=bool))]:
        harrell_c((event.astype(int), time), risk)
        harrell_c((event, time), risk, sample_weight=[1, 2, 0, 1, 1, 3])
        roc_auc(event, risk)
        roc_auc(event.astype(np.int8), risk, sample_weight=np.arange(6, dtype=np.int64) + 1)
    for kernel in (_metrics_numba.harrell_counts, _metrics_numba.harrell_weighted, _metrics_numba.risk_ranks,
                   _metrics_numba.auc_counts, _metrics_numba.auc_weighted):
        assert len(kernel.signatures) == 1, (kernel, kernel.signatures)


@st.composite
def ulp_clustered_values(draw):
    """Values with exact ties, ±0.0, and clusters a few ulps wide (distinct values sharing their
    high bits: the packed-key sort must order them by value)."""
    n = draw(st.integers(0, 300))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    centers = rng.choice([0.0, -0.0, 1.0, -3.5, 1e-300, 7e300, 123.456], size=n)
    ulps = rng.integers(-draw(st.sampled_from([0, 3, 40, 1000])), draw(st.sampled_from([1, 4, 50, 2000])), n)
    values = centers + ulps * np.spacing(np.abs(centers) + 1e-300)
    if draw(st.booleans()):
        values = np.where(rng.random(n) < 0.5, values, rng.normal(size=n))
    return values.astype(np.float64)


@settings(max_examples=200, deadline=None)
@given(values=ulp_clustered_values(), packed=st.booleans())
def test_argsort_orders_values_exactly(values, packed):
    with pytest.MonkeyPatch.context() as patch:
        if packed:
            patch.setattr(_metrics_numba, "PACKED_SORT_MIN", 0)
        order, sorted_values = _metrics_numba.argsort(values)
    assert order.dtype == np.int64
    np.testing.assert_array_equal(np.sort(order), np.arange(len(values)))
    np.testing.assert_array_equal(sorted_values, np.sort(values))
    assert np.all(values[order][1:] >= values[order][:-1])  # ascending, ±0.0 equal


def test_packed_sort_paths_give_the_reference_counts():
    """The packed-key sort (used from 2,000,000 entries on) on data whose distinct values share
    high bits, through concordance_counts and roc_auc."""
    rng = np.random.default_rng(5)
    m = 3000
    time = np.round(rng.exponential(size=m), 1) + rng.integers(0, 3, m) * np.spacing(10.0)
    event = rng.random(m) < 0.5
    near = np.repeat(rng.normal(size=m // 3), 3) + rng.integers(0, 3, m) * np.spacing(4.0)
    long_run = 1.0 + rng.integers(-30, 30, m) * np.spacing(1.0)
    for risk, path in ((long_run, "numpy"), (near[rng.permutation(m)], "insertion"), (rng.normal(size=m), "packed")):
        shift = (m - 1).bit_length()  # the path each risk array takes, as the test intends
        packed = np.sort(_metrics_numba._packed_keys(risk, shift))
        raw_order = (packed & np.uint64((1 << shift) - 1)).astype(np.int64)
        done = _metrics_numba._unpacked_order(packed, np.sort(risk), risk, shift)[1]
        assert (done, bool(np.all(np.diff(risk[raw_order]) >= 0))) == \
            {"numpy": (False, False), "insertion": (True, False), "packed": (True, True)}[path]
        weight = rng.integers(0, 3, m) * 1.0
        expected = [reference_concordance_counts((event, time), risk, tied_tol=tol) for tol in (0.0, 1e-8)]
        expected_w = reference_concordance_counts((event, time), risk, sample_weight=weight)
        expected_auc = reference_roc_auc(event, risk, sample_weight=weight, tied_tol=0)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_metrics_numba, "PACKED_SORT_MIN", 0)
            assert [concordance_counts((event, time), risk, tied_tol=tol) for tol in (0.0, 1e-8)] == expected
            assert tuple(concordance_counts((event, time), risk, sample_weight=weight)) == \
                pytest.approx(tuple(expected_w), rel=1e-12)
            assert roc_auc(event, risk, sample_weight=weight, tied_tol=0) == pytest.approx(expected_auc, rel=1e-12)


def test_strided_and_structured_inputs_share_the_packed_sort_signature():
    """A structured target's time field is a strided view: it is made contiguous before the kernels."""
    rng = np.random.default_rng(2)
    y = np.empty(500, dtype=[("event", bool), ("time", float)])
    y["event"], y["time"] = rng.random(500) < 0.5, rng.integers(0, 20, 500)
    risk = rng.normal(size=1000)[::2]
    assert not y["time"].flags.c_contiguous and not risk.flags.c_contiguous
    expected = reference_concordance_counts(y, risk)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_metrics_numba, "PACKED_SORT_MIN", 0)
        assert concordance_counts(y, risk) == expected
        assert concordance_counts((y["event"], np.ascontiguousarray(y["time"])), risk.copy()) == expected
    for kernel in (_metrics_numba._packed_keys, _metrics_numba._unpacked_order):
        assert len(kernel.signatures) == 1, (kernel, kernel.signatures)
