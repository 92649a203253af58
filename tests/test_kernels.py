"""Kernels: agreement with scikit-learn's pairwise kernels and SVC's gamma rules; validation."""

import re

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel
from sklearn.svm import SVC

from aucopt.kernels import Kernel, kernel_matrix

rng = np.random.default_rng(0)
X = rng.normal(size=(20, 4))
Y = rng.normal(size=(7, 4))


def test_named_kernels_equal_sklearn():
    np.testing.assert_allclose(kernel_matrix(X, Y, "linear"), linear_kernel(X, Y))
    np.testing.assert_allclose(kernel_matrix(X, Y, "rbf", gamma=0.3), rbf_kernel(X, Y, gamma=0.3))
    np.testing.assert_allclose(kernel_matrix(X, Y, "poly", gamma=1.0, degree=2, coef0=1.0),
                               (X @ Y.T + 1.0) ** 2)  # the thesis's (x·x' + 1)^p, eq. 3.5
    np.testing.assert_allclose(kernel_matrix(X, Y, "poly", gamma=0.5, degree=3, coef0=2.0),
                               polynomial_kernel(X, Y, degree=3, gamma=0.5, coef0=2.0))
    # rbf by definition, eq. 3.4
    d2 = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1)
    np.testing.assert_allclose(kernel_matrix(X, Y, "rbf", gamma=0.3), np.exp(-0.3 * d2))


def test_precomputed_and_callable():
    K = rbf_kernel(X, Y, gamma=0.2)
    np.testing.assert_array_equal(Kernel.from_params("precomputed", 1.0)(K), K)
    k = Kernel.from_params(lambda A, B: (A @ B.T) ** 2, 1.0)
    np.testing.assert_allclose(k(X, Y), (X @ Y.T) ** 2)
    np.testing.assert_allclose(k(X), (X @ X.T) ** 2)


def test_sparse_input_equals_dense():
    np.testing.assert_allclose(kernel_matrix(sp.csr_matrix(X), sp.csr_matrix(Y), "rbf", gamma=0.1),
                               rbf_kernel(X, Y, gamma=0.1))


@pytest.mark.parametrize("rule", ["scale", "auto"])
def test_gamma_rules_match_svc(rule):
    y = (X[:, 0] > 0).astype(int)
    svc = SVC(kernel="rbf", gamma=rule).fit(X, y)
    assert Kernel.from_params("rbf", rule, X=X).gamma == pytest.approx(svc._gamma)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(kernel="sigmoid"), "Unknown kernel 'sigmoid'"),
        (dict(gamma=0.0), "gamma must be a positive number"),
        (dict(gamma=-1.0), "gamma must be a positive number"),
        (dict(gamma="wide"), "gamma must be a positive number"),
        (dict(gamma=float("nan")), "gamma must be a positive number"),
        (dict(degree=0), "degree must be a positive integer"),
        (dict(degree=2.5), "degree must be a positive integer"),
        (dict(coef0=float("inf")), "coef0 must be a finite number"),
    ],
)
def test_bad_kernel_parameters(kwargs, match):
    params = dict(kernel="rbf", gamma=1.0, degree=3, coef0=1.0, X=X) | kwargs
    with pytest.raises(ValueError, match=match):
        Kernel.from_params(**params)


def test_sigma2_rule_is_inverse_mean_pairwise_squared_distance():
    from aucopt.kernels import gamma_from_rule

    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)  # brute force over all m² ordered pairs
    assert gamma_from_rule("sigma2", X) == pytest.approx(1.0 / d2.mean(), rel=1e-12)
    Z = (X - X.mean(0)) / X.std(0)  # standardized (population std): σ² = 2d
    assert gamma_from_rule("sigma2", Z) == pytest.approx(1.0 / (2 * X.shape[1]), rel=1e-12)
    assert gamma_from_rule("sigma2", sp.csr_matrix(X)) == gamma_from_rule("sigma2", X)
    assert gamma_from_rule("sigma2", np.ones((5, 3))) == 1.0  # no spread: a finite default


# ============================================================================ non-finite values and float64 scale
@pytest.mark.parametrize("rule", ["scale", "sigma2"])
@pytest.mark.parametrize(("factor", "match"), [
    (1e200, r"overflows float64 .*so gamma would be 0\."),
    (1e-160, r"is \d.*e-3\d\d, too small to invert in float64 .*so gamma would be inf\."),
    (1e-300, r"underflows to 0 although X is not constant .*so gamma would be inf\."),
])
def test_degenerate_gamma_rule_is_named_with_the_fix(rule, factor, match):
    """A rule that gives gamma 0 or inf (spread overflowing or underflowing) used to go on silently:
    gamma 0 made every kernel value NaN or 1, an underflowed spread fell back to gamma 1."""
    with pytest.raises(ValueError, match=rf"^gamma={rule!r} cannot be computed from this X: .*{match} "
                                         r"Either rescale X, .* or pass a positive number as gamma\."):
        kernel_matrix(X * factor, kernel="rbf", gamma=rule)


def test_gamma_rule_on_constant_data_is_one():
    assert Kernel.from_params("rbf", "scale", X=np.full((4, 3), 1e-300)).gamma == 1.0
    assert Kernel.from_params("rbf", "sigma2", X=np.full((4, 3), 7.0)).gamma == 1.0


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_kernel_callable_returning_non_finite_values_is_named(bad):
    def kernel(A, B):
        K = A @ B.T
        K[0, :3] = bad
        return K

    with pytest.raises(ValueError, match=r"^the kernel callable returned 3 non-finite value\(s\) .* among 140: "
                                         r"it must return a finite 20 x 7 matrix"):
        Kernel.from_params(kernel, gamma=1.0)(X, Y)


def test_named_kernel_overflow_names_the_magnitude_of_X():
    with pytest.raises(ValueError, match=r"^the linear kernel of features of magnitude up to 1e\+200 returned "
                                         r"\d+ non-finite .*rescale X"):
        kernel_matrix(np.array([[1e200, 0.0], [0.0, 1.0]]), kernel="linear")
    with pytest.raises(ValueError, match=r"^The values of the poly kernel \(gamma=1e\+100, degree=3\) reach "
                                         r".*smaller gamma"):
        kernel_matrix(X, kernel="poly", gamma=1e100)


def test_kernel_factor_refuses_non_finite_before_the_symmetry_check():
    """A NaN kernel was reported as "not symmetric" (NaN != NaN)."""
    from aucopt.kernels import kernel_factor

    K = np.eye(3)
    K[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"^the kernel returned 1 non-finite value"):
        kernel_factor(K)


@pytest.mark.parametrize("products", [2, 4])
def test_feature_scale_limit_is_exactly_where_the_bound_overflows(products):
    """The refusal happens exactly when the stated bound (d (2M)², or (n d (2M)²)²) is not finite."""
    from aucopt._validation import FLOAT_MAX, check_feature_scale

    n, d = 6, 3
    limit = np.sqrt(FLOAT_MAX / (4.0 * d)) if products == 2 else FLOAT_MAX ** 0.25 / np.sqrt(4.0 * n * d)
    below = np.zeros((n, d))
    below[0, 0] = limit * (1 - 1e-6)
    check_feature_scale(below, products=products)
    check_feature_scale(sp.csr_matrix(below), products=products)
    with pytest.raises(ValueError, match="^" + re.escape(f"X has entries of magnitude {limit * 1.001:.3g}")):
        check_feature_scale(below * (1.001 / (1 - 1e-6)), products=products)
    with pytest.raises(ValueError, match=r"^X has no entry of magnitude above 1e-160, so its squares underflow"):
        check_feature_scale(np.array([[1e-160, 0.0]]), products=products)
    check_feature_scale(np.zeros((3, 2)), products=products)  # all zero: nothing to rescale
