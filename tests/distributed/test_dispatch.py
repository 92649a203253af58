"""The array backends of aucopt._dispatch: the core hands dask inputs to aucopt.distributed without
importing it, and a user does not import it either."""

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from aucopt import _dispatch
from aucopt._dispatch import ArrayBackend, backend_of, call_in_memory, implementation, register

REPO = Path(__file__).resolve().parents[2]


class _Lazy:
    """A collection of a made-up backend: it holds a value until gathered."""

    def __init__(self, value):
        self.value = value


@pytest.fixture
def lazy_backend(monkeypatch):
    """A backend "lazy" whose module is this test module (already imported: nothing to load)."""
    backends = {**_dispatch.BACKENDS, "lazy": ArrayBackend(
        "lazy", lambda *values: any(isinstance(v, _Lazy) for v in values), __name__, "pip install lazy")}
    monkeypatch.setattr(_dispatch, "BACKENDS", backends)
    monkeypatch.setattr(_dispatch, "_OPERATIONS", dict(_dispatch._OPERATIONS))
    return "lazy"


def test_in_memory_inputs_belong_to_no_backend_and_pass_through():
    assert backend_of(np.arange(3), [1, 2], None, (np.ones(2), 1.0), "name") is None
    assert call_in_memory(lambda a, *, b: (a, b), 1, b="x") == (1, "x")


def test_a_backend_gathers_its_inputs_before_the_function_runs(lazy_backend):
    register(lazy_backend, "gather_vectors")(lambda *values: tuple(
        v.value if isinstance(v, _Lazy) else v for v in values))
    assert backend_of(np.ones(2), _Lazy(1)) == "lazy"
    assert call_in_memory(lambda a, b, *, c: a + b + c, _Lazy(1), 2, c=_Lazy(4)) == 7


def test_missing_operations_and_backends_are_named(lazy_backend, monkeypatch):
    with pytest.raises(NotImplementedError, match=rf"^fit_linear_ranker is not available for lazy input: "
                                                  rf"{re.escape(__name__)} registers no implementation"):
        implementation(lazy_backend, "fit_linear_ranker")
    with pytest.raises(KeyError, match="Unknown array backend 'ray'"):
        register("ray", "gather_vectors")
    monkeypatch.setitem(_dispatch.BACKENDS, "lazy", ArrayBackend("lazy", _dispatch.BACKENDS["lazy"].holds,
                                                                 "aucopt_lazy_backend", "pip install lazy"))
    with pytest.raises(ImportError, match=r"gather_vectors on lazy input needs aucopt_lazy_backend and its "
                                          r"dependencies \(pip install lazy\)"):
        implementation(lazy_backend, "gather_vectors")


def test_the_dask_backend_is_loaded_by_the_first_dask_input():
    """``import aucopt`` imports neither dask nor aucopt.distributed; a dask input to a metric or a
    ranker, without ``import aucopt.distributed``, loads the backend and gives the in-memory results."""
    pytest.importorskip("dask.array")
    code = """
import sys
import numpy as np
import aucopt
from aucopt.metrics import harrell_c, roc_auc
print(sorted(m for m in ("dask", "aucopt.distributed") if m in sys.modules))
import dask.array as da
y, score = np.array([0, 0, 1, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8, 0.4])
print(roc_auc(da.from_array(y, chunks=2), da.from_array(score, chunks=3)) == roc_auc(y, score))
print("aucopt.distributed" in sys.modules)
X = np.column_stack([score, score ** 2])
model = aucopt.RankSVM(alpha=0.1).fit(X, y)
lazy = model.decision_function(da.from_array(X, chunks=2))
print(type(lazy).__module__.split(".")[0], np.allclose(lazy.compute(), model.decision_function(X)))
"""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["[]", "True", "True", "dask", "True"]
