"""One small build case per shipped formulation, for tests that run over every formulation.

``CASES[name]()`` builds a small :class:`~aucopt.modeling.Problem` (at most ~40 points) of the
registered formulation ``name``. Adding a formulation to ``formulations/`` means adding ONE entry
here, ``"<name>": lambda: _build("<name>", <pairs>, <kernel>, **params)``;
``tests/modeling/test_interop.py::test_every_shipped_formulation_has_a_case`` fails, naming the
formulation, until it is added.
"""

from __future__ import annotations

import numpy as np

from aucopt import PairSet, get_formulation, kernel_matrix


def _bipartite(n=24, d=3, seed=0, gamma=0.5):
    """Separable-ish bipartite data: (PairSet, RBF kernel), n points, both classes present."""
    rng = np.random.default_rng(seed)
    y = np.r_[np.ones(n // 3, int), np.zeros(n - n // 3, int)]
    X = rng.normal(size=(n, d)) + 0.8 * y[:, None]
    return PairSet.bipartite(y), kernel_matrix(X, gamma=gamma)


def _survival(n=20, d=3, seed=1, gamma=0.5):
    """Censored survival data with ties: (PairSet over Harrell's comparable pairs, RBF kernel)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    time = np.round(np.exp(-X[:, 0] + 0.5 * rng.normal(size=n)), 1)
    event = rng.random(n) < 0.7
    y = np.empty(n, dtype=[("event", bool), ("time", float)])
    y["event"], y["time"] = event, time
    return PairSet.survival(y), kernel_matrix(X, gamma=gamma)


def _multipartite(n=24, d=3, seed=9, gamma=0.5, n_levels=4):
    """Ordinal data, every level present: (PairSet over y_i > y_j, RBF kernel)."""
    rng = np.random.default_rng(seed)
    y = np.r_[np.arange(n_levels), rng.integers(0, n_levels, n - n_levels)]
    X = rng.normal(size=(n, d)) + 0.6 * y[:, None]
    return PairSet.multipartite(y), kernel_matrix(X, gamma=gamma)


def _build(name, data, **params):
    pairs, K = data
    return get_formulation(name).build(pairs, K, **params)


#: name -> callable() -> Problem; one entry per formulation in ``formulations/``
CASES = {
    "lp_ranker": lambda: _build("lp_ranker", _bipartite(), C=1.0),
    "lp_ranker_free_sign": lambda: _build("lp_ranker_free_sign", _survival(), C=0.5),
    "aucsvm_l1_dual": lambda: _build("aucsvm_l1_dual", _bipartite(n=18, seed=2), C=1.0),
    "aucsvm_l2_dual": lambda: _build("aucsvm_l2_dual", _survival(n=16, seed=3), C=2.0),
    "top_push": lambda: _build("top_push", _bipartite(n=30, seed=4), C=1.0),
    "partial_auc": lambda: _build("partial_auc", _bipartite(n=21, seed=5), C=50.0, beta=0.3),
    "ranksvm_squared_hinge": lambda: _build("ranksvm_squared_hinge", _survival(n=18, seed=6), C=1.0),
    "auc_least_squares": lambda: _build("auc_least_squares", _bipartite(n=20, seed=7), C=0.5),
    "fair_ranker": lambda: _build("fair_ranker", _bipartite(n=24, seed=8), C=1.0, groups=np.arange(24) % 2,
                                  epsilon=0.05),
    "ordinal_margin_lp": lambda: _build("ordinal_margin_lp", _multipartite(), C=1.0),
}


def shipped_formulations() -> list[str]:
    """Registered formulations defined in the shipped ``aucopt.formulations`` package.

    Test modules register throwaway formulations of their own; those are left out.
    """
    from aucopt import available_formulations

    names = []
    for name in available_formulations():
        module = getattr(get_formulation(name).func, "__module__", "") or ""
        if module.startswith("aucopt.formulations"):
            names.append(name)
    return names
