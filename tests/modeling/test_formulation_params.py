"""Formulation parameters are declared and checked before the build; kernels are checked once, by the builder.

Oracles: the declared constraints against each function's signature; the same problem built with
a valid value (it must still build and solve); for the kernel, the position of the entry planted.
"""

from __future__ import annotations

import math
import re
from numbers import Real

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, InvalidParameterError

from aucopt import Model, PairSet, available_formulations, get_formulation, solve
from aucopt.modeling import Formulation, formulation
from aucopt.modeling._model import MissingGroupsError

Y = np.array([1, 0, 0, 1, 0, 1])
PAIRS = PairSet.bipartite(Y)
K = np.eye(6) + 0.1
GROUPS = np.array([0, 0, 1, 1, 0, 1])


def shipped():
    return [name for name in available_formulations()
            if get_formulation(name).func.__module__.startswith("aucopt.formulations.")]


def build(name, **params):
    extra = {"groups": GROUPS} if name == "fair_ranker" and "groups" not in params else {}
    return get_formulation(name).build(PAIRS, K, **extra, **params)


# ----------------------------------------------------------------------------- declarations
def test_every_shipped_formulation_declares_every_parameter():
    names = shipped()
    assert {"lp_ranker", "top_push", "partial_auc", "fair_ranker", "auc_least_squares",
            "ranksvm_squared_hinge", "aucsvm_l1_dual", "aucsvm_l2_dual", "ordinal_margin_lp"} <= set(names)
    for name in names:
        form = get_formulation(name)
        assert list(form.parameter_constraints) == list(form.parameters), name
        assert all(default is not None or None in form.parameter_constraints[key]
                   for key, default in form.parameters.items()), name


@pytest.mark.parametrize("name", ["lp_ranker", "lp_ranker_free_sign", "top_push", "partial_auc", "fair_ranker",
                                  "ordinal_margin_lp", "aucsvm_l1_dual", "aucsvm_l2_dual", "ranksvm_squared_hinge",
                                  "auc_least_squares"])
@pytest.mark.parametrize("C", [-1.0, 0, float("nan"), float("inf"), -float("inf"), "abc", None, [1.0]])
def test_a_bad_C_is_refused_before_the_build_naming_everything(name, C):
    """Before the fix: unbounded / numerical_error (LPs), a TypeError or an IndexError (QPs)."""
    with pytest.raises(InvalidParameterError) as exc:
        get_formulation(name).build(PAIRS, None, C=C)  # no kernel: the check comes first
    message = str(exc.value)
    assert f"The 'C' parameter of the formulation {name!r} must be a float in the range (0.0, inf)." in message
    assert f"Got {C!r} instead." in message
    assert isinstance(exc.value, ValueError) and isinstance(exc.value, TypeError)


def test_the_issue_repros_are_clear_errors():
    form = get_formulation("auc_least_squares")
    for C in (-1.0, "abc"):
        with pytest.raises(ValueError, match=r"'C' parameter of the formulation 'auc_least_squares'"):
            form.build(PAIRS, K, C=C)
    ranksvm = get_formulation("ranksvm_squared_hinge")
    with pytest.raises(ValueError, match=r"basis holds 1 index outside the 6 points \(0 … 5\), the first 999 at "
                                         r"position 0"):
        ranksvm.build(PAIRS, K[:, :1], basis=[999])
    with pytest.raises(ValueError, match=r"basis holds 2 indices outside .* the first -1 at position 0"):
        ranksvm.build(PAIRS, K[:, :2], basis=[-1, 6])
    with pytest.raises(ValueError, match=r"point indices \(integers\).*np.flatnonzero\(mask\)"):
        ranksvm.build(PAIRS, K[:, :3], basis=Y.astype(bool))
    with pytest.raises(ValueError, match=r"point indices \(integers\); got \[0.5 1.  2. \]"):
        ranksvm.build(PAIRS, K[:, :3], basis=[0.5, 1.0, 2.0])
    with pytest.raises(ValueError, match=r"'basis' parameter of the formulation 'ranksvm_squared_hinge' must be an "
                                         r"array-like or None. Got 3 instead."):
        ranksvm.build(PAIRS, K[:, :1], basis=3)
    # a valid basis still builds the RankRC problem, integral floats included
    assert ranksvm.build(PAIRS, K[:, [0, 3]], basis=[0.0, 3.0]).n_vars == \
        ranksvm.build(PAIRS, K[:, [0, 3]], basis=np.array([0, 3])).n_vars


@pytest.mark.parametrize("name, key, bad, good, allowed", [
    ("partial_auc", "beta", [0, -0.1, 1.5, float("nan")], [1.0, 0.5], "a float in the range (0.0, 1.0]"),
    ("fair_ranker", "epsilon", [-0.1, float("inf")], [0.0, 0.3], "a float in the range [0.0, inf)"),
    ("ordinal_margin_lp", "margin", [0, -1.0], [2.0], "a float in the range (0.0, inf)"),
    ("fair_ranker", "groups", ["ab", 3], [GROUPS, list(GROUPS)], "an array-like or None"),
])
def test_every_other_parameter_has_its_range(name, key, bad, good, allowed):
    pairs = PairSet.multipartite([0, 1, 2, 1, 0, 2]) if name == "ordinal_margin_lp" else PAIRS
    form = get_formulation(name)
    extra = {"groups": GROUPS} if name == "fair_ranker" and key != "groups" else {}
    for value in bad:
        with pytest.raises(InvalidParameterError, match=re.escape(f"The '{key}' parameter of the formulation "
                                                                  f"'{name}' must be {allowed}. Got {value!r}")):
            form.build(pairs, K, **extra, **{key: value})
    for value in good:
        result = solve(form.build(pairs, K, **extra, **{key: value}), "highs")
        assert result.status == "optimal" and math.isfinite(result.objective)


def test_an_unknown_name_lists_the_parameters():
    with pytest.raises(InvalidParameterError) as exc:
        get_formulation("partial_auc").build(PAIRS, K, bogus=1)
    assert str(exc.value) == ("The formulation 'partial_auc' has no parameter 'bogus'; its parameters: "
                              "C (a float in the range (0.0, inf); default 1.0), "
                              "beta (a float in the range (0.0, 1.0]; default 0.1).")
    assert get_formulation("top_push").describe_params() == [("C", "a float in the range (0.0, inf)", 1.0)]


# ----------------------------------------------------------------------------- a user's formulation
def ranker(m, C=1.0, shift=0.0):
    alpha = m.variable("alpha", m.n_basis, lower=0)
    z = m.variable("z", m.n_pairs, lower=0)
    f = m.scores(alpha)
    m.minimize(alpha.sum() + C * (m.pair_weights @ z))
    m.subject_to(m.pair_difference(f) + z >= 1 + shift)


def test_an_undeclared_formulation_still_works_and_refuses_non_finite_numbers():
    form = get_formulation(ranker)
    assert form.parameter_constraints == {} and list(form.parameters) == ["C", "shift"]
    reference = solve(get_formulation("lp_ranker").build(PAIRS, K, C=2.0), "highs").objective
    assert solve(form.build(PAIRS, K, C=2.0), "highs").objective == pytest.approx(reference, rel=1e-9)
    for key, value in (("C", float("nan")), ("shift", float("inf")), ("C", np.float64("-inf"))):
        with pytest.raises(InvalidParameterError, match=re.escape(f"The '{key}' parameter of the formulation "
                                                                  f"'ranker' must be a finite number. Got {value!r}")):
            form.build(PAIRS, K, **{key: value})
    with pytest.raises(InvalidParameterError, match=r"'weights' parameter .* holds 1 NaN value\(s\), the first at "
                                                    r"index \[2\]"):
        get_formulation(lambda m, weights=None: None).build(PAIRS, K, weights=np.array([1.0, 2.0, np.nan]))
    with pytest.raises(InvalidParameterError, match=r"has no parameter 'c'; its parameters: C \(any value "
                                                    r"\(undeclared; a number must be finite\); default 1.0\)"):
        form.build(PAIRS, K, c=1.0)
    with pytest.raises(InvalidParameterError, match=r"has no parameter 'C'; it takes no parameters"):
        get_formulation(lambda m: None).build(PAIRS, K, C=1.0)
    # a function taking **params takes any name
    assert get_formulation(lambda m, **params: ranker(m, **params)).build(PAIRS, K, C=2.0).n_vars == \
        form.build(PAIRS, K).n_vars


def test_declarations_are_checked_when_the_formulation_is_registered():
    positive = [Interval(Real, 0, np.inf, closed="neither")]
    with pytest.raises(ValueError, match=r"declares constraints for 'gamma', which is not one of its parameters "
                                         r"\['C', 'shift'\]"):
        formulation("never_registered", params={"gamma": positive})(ranker)
    with pytest.raises(TypeError, match="must be a non-empty list"):
        Formulation(ranker, "never_registered", "lp", params={"C": Interval(Real, 0, None, closed="left")})
    with pytest.raises(ValueError, match="Unknown constraint type"):
        Formulation(ranker, "never_registered", "lp", params={"C": ["a number"]})
    assert "never_registered" not in available_formulations()
    declared = Formulation(ranker, "declared_ranker", "lp", params={"C": positive})
    with pytest.raises(InvalidParameterError, match="'C' parameter of the formulation 'declared_ranker'"):
        declared.build(PAIRS, K, C=0.0)
    with pytest.raises(InvalidParameterError, match=r"'shift' parameter .* must be a finite number"):
        declared.build(PAIRS, K, shift=float("nan"))  # the undeclared one keeps the generic rule


def test_a_cvxpy_formulation_declares_and_checks_its_parameters():
    cp = pytest.importorskip("cvxpy")
    from aucopt.modeling import CvxpyFormulation

    def in_cvxpy(pairs, kernel, C=1.0):
        i, j, w = pairs.to_arrays()
        alpha = cp.Variable(kernel.shape[1], nonneg=True)
        z = cp.Variable(len(w), nonneg=True)
        f = kernel @ cp.multiply(pairs.signs, alpha)
        return cp.Problem(cp.Minimize(cp.sum(alpha) + C * (w @ z)), [f[i] - f[j] + z >= 1])

    form = CvxpyFormulation(in_cvxpy, "in_cvxpy", "lp", params={"C": [Interval(Real, 0, np.inf, closed="neither")]})
    assert list(form.parameters) == ["C"]
    with pytest.raises(InvalidParameterError, match=r"'C' parameter of the formulation 'in_cvxpy' .* Got -1 instead"):
        form.build(PAIRS, K, C=-1)
    with pytest.raises(InvalidParameterError, match=r"has no parameter 'gamma'"):
        form.build(PAIRS, K, gamma=1.0)
    bad = K.copy()
    bad[2, 4] = np.inf
    with pytest.raises(ValueError, match=r"kernel matrix of formulation 'in_cvxpy' has 1 non-finite entry .* the "
                                         r"first inf at row 2, column 4"):
        form.build(PAIRS, bad)
    reference = solve(get_formulation("lp_ranker").build(PAIRS, K, C=2.0), "highs").objective
    assert solve(form.build(PAIRS, K, C=2.0), "highs").objective == pytest.approx(reference, rel=1e-7)


# ----------------------------------------------------------------------------- the kernel, checked once
@pytest.mark.parametrize("name", ["lp_ranker", "lp_ranker_free_sign", "top_push", "partial_auc", "fair_ranker",
                                  "ordinal_margin_lp", "aucsvm_l1_dual", "aucsvm_l2_dual", "ranksvm_squared_hinge",
                                  "auc_least_squares"])
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_a_non_finite_kernel_entry_is_named_by_the_builder(name, value):
    """Before the fix the LPs said "row_lower contains NaN"."""
    bad = K.copy()
    bad[1, 2] = bad[4, 0] = value
    with pytest.raises(ValueError) as exc:
        get_formulation(name).build(PAIRS, bad)
    assert str(exc.value).startswith(f"The kernel matrix of formulation {name!r} has 2 non-finite entries (NaN or "
                                     f"infinite) among 36, the first {value} at row 1, column 2: ")


def test_a_non_finite_factor_is_named_dense_or_sparse():
    factor = np.ones((6, 2))
    factor[3, 1] = np.nan
    for given in (factor, sp.csr_matrix(factor)):
        with pytest.raises(ValueError, match=r"kernel factor of formulation 'aucsvm_l1_dual' has 1 non-finite entry "
                                             r".* among 12, the first nan at row 3, column 1"):
            get_formulation("aucsvm_l1_dual").build(PAIRS, factor=given)
    with pytest.raises(ValueError, match=r"^The kernel matrix has 1 non-finite entry"):
        Model(PAIRS, kernel=np.where(np.eye(6) > 0, np.nan, 0.0)[:, :1] + np.r_[0, 1, 1, 1, 1, 1][:, None])


# ----------------------------------------------------------------------------- the data a formulation reads
def test_the_problem_records_the_data_read_and_missing_groups_name_the_formulation():
    assert build("lp_ranker").metadata["data_read"] == []
    assert get_formulation("fair_ranker").build(PAIRS.with_groups(GROUPS), K).metadata["data_read"] == ["groups"]
    assert get_formulation("ordinal_margin_lp").build(PairSet.multipartite([0, 1, 2, 1, 0, 2]),
                                                      K).metadata["data_read"] == ["labels"]
    with pytest.raises(MissingGroupsError, match=r"^the formulation 'fair_ranker' reads m.groups: pass groups="):
        get_formulation("fair_ranker").build(PAIRS, K)
