"""Independent oracles and check runners shared by several test modules (not a test module).

The losses are written out from their piecewise definitions (half-open pieces, the ε-smoothed
hinge with its quadratic zone [1 − 2ε, 1)), independently of ``aucopt.pairs.core``; the check
helpers run scikit-learn's estimator checks the same way everywhere.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils.estimator_checks import estimator_checks_generator


def reference_loss(loss: str, eps: float = 0.5):
    """``(ℓ, ℓ')`` of ``"squared_hinge"`` or the ε-``"smoothed_hinge"`` as elementwise functions of z."""
    if loss == "squared_hinge":
        return (lambda z: np.where(z < 1, (1 - z) ** 2, 0.0),
                lambda z: np.where(z < 1, -2.0 * (1 - z), 0.0))
    a = 1 - 2 * eps

    def value(z):
        return np.where(z < a, 1 - eps - z, np.where(z < 1, (1 - z) ** 2 / (4 * eps), 0.0))

    def derivative(z):
        return np.where(z < a, -1.0, np.where(z < 1, -(1 - z) / (2 * eps), 0.0))

    return value, derivative


def run_check(estimator, check, *, ignore_user_warnings: bool = True):
    """Run one generated scikit-learn estimator check (its duration belongs in benchmarks/, not here)."""
    with warnings.catch_warnings():
        if ignore_user_warnings:
            warnings.simplefilter("ignore", category=UserWarning)
        check(estimator)


def assert_expected_failures_are_real_checks(estimator, expected: dict):
    """A misspelled key would silently never apply: every key must name a generated check,
    and every reason must say something (> 40 characters)."""
    names = {getattr(c, "func", c).__name__
             for _, c in estimator_checks_generator(estimator, legacy=True, mark="skip")}
    assert set(expected) <= names
    assert all(len(reason) > 40 for reason in expected.values())
