"""Integer parameters refuse booleans: ``True`` is not a count.

scikit-learn's ``Interval(Integral, ...)`` accepts ``True`` / ``False`` (``bool`` is an
``Integral``), so ``SparseAUC(basis_size=True)`` used to pass validation and crash inside the fit
("an integer is required"), and other integer parameters silently read ``True`` as 1. Every
integer constraint of aucopt is declared with :class:`aucopt._validation.Count`, which refuses
booleans before any work.
"""

from __future__ import annotations

import importlib
import pkgutil
from numbers import Integral

import numpy as np
import pytest
from conftest import make_small_binary, make_small_survival
from sklearn.utils._param_validation import Interval, InvalidParameterError, Options, make_constraint
from test_common import ESTIMATORS, NAMES, make_estimator

import aucopt
from aucopt import PairSet, survival_target
from aucopt._validation import Count
from aucopt.svm import newton_solve


def _integer_constraints(constraints) -> list:
    """The integer interval / options constraints in a constraint list."""
    out = []
    for c in constraints if isinstance(constraints, list) else [constraints]:
        if isinstance(c, (str, type(None))) or not isinstance(c, (Interval, Options, type)):
            continue
        c = make_constraint(c) if isinstance(c, type) else c
        if getattr(c, "type", None) is Integral:
            out.append(c)
    return out


#: estimators without an integer constructor parameter
NO_INTEGER_PARAMETERS: set = set()


def _integer_parameters(cls) -> list[str]:
    return sorted(k for k, v in cls._parameter_constraints.items() if _integer_constraints(v))


@pytest.mark.parametrize("name", NAMES)
def test_every_integer_parameter_of_every_estimator_refuses_a_bool(name):
    est = make_estimator(name)
    params = _integer_parameters(type(est))
    if ESTIMATORS[name][0] == "binary":
        X, y = make_small_binary()
    else:
        X, event, time = make_small_survival()
        y = survival_target(event, time)
    assert params or name in NO_INTEGER_PARAMETERS, f"{name} declares no integer parameter"
    for param in params:
        for value in (True, False, np.bool_(True)):
            with pytest.raises(InvalidParameterError, match=rf"'{param}' parameter of {name} must be an int.*"
                                                            rf"Got (np\.)?{value!r}|'{param}'.*{value!r}"):
                make_estimator(name, **{param: value}).fit(X, y)


def test_sparse_auc_basis_size_true_is_refused_before_the_fit():
    X, y = make_small_binary()
    with pytest.raises(InvalidParameterError, match=r"'basis_size' parameter of SparseAUC must be an int in the "
                                                    r"range \[1, inf\) or None\. Got True instead"):
        aucopt.SparseAUC(basis_size=True).fit(X, y)
    # numpy integers are counts
    model = aucopt.SparseAUC(basis_size=np.int64(4), kappa=np.int32(10), validation_fraction=0).fit(X, y)
    assert len(model.support_) == 4


def _constraint_tables():
    """Every module-level constraint table of aucopt and every ``_parameter_constraints``."""
    for info in pkgutil.walk_packages(aucopt.__path__, "aucopt."):
        module = importlib.import_module(info.name)
        for attr, obj in vars(module).items():
            if isinstance(obj, dict) and (attr.isupper() or attr.endswith("CONSTRAINTS")):
                yield f"{info.name}.{attr}", obj
            elif isinstance(obj, type) and isinstance(vars(obj).get("_parameter_constraints"), dict):
                yield f"{info.name}.{attr}._parameter_constraints", obj._parameter_constraints


def _walk(table, where):
    for key, value in table.items():
        if isinstance(value, dict):
            yield from _walk(value, f"{where}[{key!r}]")
        elif isinstance(value, list):
            for c in _integer_constraints(value):
                yield f"{where}[{key!r}]", c


def test_every_declared_integer_constraint_refuses_a_bool():
    found = [(where, c) for name, table in _constraint_tables() if isinstance(table, dict)
             for where, c in _walk(table, name)]
    assert len(found) >= 20  # the sweep sees the tables (estimators, method options, row generation)
    accepting = [where for where, c in found if c.is_satisfied_by(True) or c.is_satisfied_by(np.bool_(False))]
    assert not accepting, f"integer constraints that accept a bool: {accepting}"
    assert all(c.is_satisfied_by(np.int64(2)) or not c.is_satisfied_by(2) for _, c in found)


def test_functions_refuse_a_bool_for_a_count():
    X, y = make_small_binary()
    with pytest.raises(InvalidParameterError, match="'max_iter' parameter of newton_solve must be an int"):
        newton_solve(X, PairSet.bipartite(y), 1.0, max_iter=True)
    assert isinstance(Count(Integral, 1, None, closed="left"), Interval)
    assert not Count(Integral, None, None, closed="neither").is_satisfied_by(True)
    assert Count(Integral, None, None, closed="neither").is_satisfied_by(-1)
