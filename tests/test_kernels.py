"""Kernels: agreement with scikit-learn's pairwise kernels and SVC's gamma rules; validation."""

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
