"""Formulations written in cvxpy: :func:`cvxpy_formulation` and :class:`CvxpyFormulation`.

A function ``func(pairs, kernel, **params)`` returning a ``cvxpy.Problem`` (or ``(problem,
outputs)``) is registered beside the formulations written on a :class:`~aucopt.modeling.Model`;
its build converts the cvxpy model into the standard form (``_cvxpy``), which every backend solves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..pairs import PairSet
from ._cvxpy import cvxpy_fields
from ._formulation import _REGISTRY, Formulation
from ._model import check_kernel_values
from .problem import Problem

__all__ = ["CvxpyFormulation", "cvxpy_formulation"]


def cvxpy_formulation(name: str | None = None, *, kind: str = "lp", nnz: Callable | None = None,
                      params: dict | None = None) -> Callable[[Callable], CvxpyFormulation]:
    """Decorator registering ``func(pairs, kernel, **params) -> cvxpy.Problem`` as a named formulation.

    The function states the model with cvxpy expressions; it may return ``(cvxpy_problem,
    outputs)`` with ``outputs`` as in :func:`from_cvxpy` (e.g. ``{"coef": ...}``, which the
    estimators and :func:`~aucopt.modeling.compare_solvers` read). ``Formulation.build(pairs,
    kernel, **params)`` then converts it with :func:`from_cvxpy`, and every backend solves it.

    Parameters
    ----------
    name : str, default=None
        Registry name; the function's name when None.
    kind : {"lp", "qp"}, default="lp"
        The problem kind it emits.
    nnz : callable, default=None
        ``nnz(n_points, n_pairs, n_basis, lifted) -> int``, as in :func:`~aucopt.modeling.formulation`.
    params : dict, default=None
        The constraints of the function's parameters (after ``pairs`` and ``kernel``), as in
        :func:`~aucopt.modeling.formulation`; checked before every build.

    Returns
    -------
    callable
        The decorator; it returns the registered formulation.

    See Also
    --------
    from_cvxpy, aucopt.modeling.formulation

    Examples
    --------
    The LP Ranker of Ataman (2007), eq. 3.3, in cvxpy:

    >>> import cvxpy as cp
    >>> import numpy as np
    >>> from aucopt import PairSet, get_formulation, solve
    >>> from aucopt.modeling import cvxpy_formulation
    >>> from numbers import Real
    >>> from sklearn.utils._param_validation import Interval
    >>> @cvxpy_formulation("lp_ranker_in_cvxpy", kind="lp", params={"C": [Interval(Real, 0, np.inf, closed="neither")]})
    ... def lp_ranker_in_cvxpy(pairs, kernel, C=1.0):
    ...     i, j, w = pairs.to_arrays()
    ...     alpha = cp.Variable(kernel.shape[1], nonneg=True, name="alpha")
    ...     z = cp.Variable(len(w), nonneg=True, name="z")
    ...     f = kernel @ cp.multiply(pairs.signs, alpha)
    ...     model = cp.Problem(cp.Minimize(cp.sum(alpha) + C * (w @ z)), [f[i] - f[j] + z >= 1])
    ...     return model, {"coef": cp.multiply(pairs.signs, alpha)}
    >>> pairs, K = PairSet.bipartite([1, 0, 0, 1]), np.eye(4)
    >>> ours = solve(get_formulation("lp_ranker_in_cvxpy").build(pairs, K, C=1.0)).objective
    >>> reference = solve(get_formulation("lp_ranker").build(pairs, K, C=1.0)).objective
    >>> round(ours, 9), round(reference, 9)
    (2.0, 2.0)
    """
    def register(func: Callable) -> CvxpyFormulation:
        form = CvxpyFormulation(func, name or func.__name__, kind, nnz, params)
        _REGISTRY[form.name] = form
        return form

    return register


class CvxpyFormulation(Formulation):
    """A formulation written in cvxpy: ``func(pairs, kernel, **params) -> cvxpy.Problem``.

    Made by :func:`cvxpy_formulation`; :meth:`build` converts the cvxpy problem with
    :func:`from_cvxpy`.

    Parameters
    ----------
    func : callable
        ``func(pairs, kernel, **params)`` returning a cvxpy Problem, or ``(problem, outputs)``.
    name : str
        Registry name.
    kind : {"lp", "qp"}
        The problem kind it emits.
    nnz : callable, default=None
        The declared size, as for :class:`~aucopt.modeling.Formulation`.
    params : dict, default=None
        The declared constraints of the parameters, as for :class:`~aucopt.modeling.Formulation`.

    See Also
    --------
    cvxpy_formulation : the decorator.

    Examples
    --------
    >>> import cvxpy as cp
    >>> from aucopt.modeling import CvxpyFormulation
    >>> form = CvxpyFormulation(lambda pairs, kernel: cp.Problem(cp.Minimize(0)), "nothing", "lp")
    >>> form
    CvxpyFormulation('nothing', lp)
    """

    _context_args = 2  # func(pairs, kernel, **params)

    def __call__(self, m: Any, **params: Any) -> Any:
        raise TypeError(f"The formulation {self.name!r} is written in cvxpy: call .build(pairs, kernel, **params), "
                        "not the formulation on a Model.")

    def build(self, pairs: PairSet, kernel: ArrayLike | None = None, *, factor: Any = None, lifted: bool = True,
              max_bytes: float | None = None, **params: Any) -> Problem:
        """Call the cvxpy function on ``pairs`` and ``kernel`` and convert its problem.

        Parameters
        ----------
        pairs : PairSet
            The pairs to rank.
        kernel : array-like, default=None
            Kernel matrix, passed to the function as an ndarray.
        factor, lifted, max_bytes
            Accepted for the interface of :meth:`Formulation.build`; unused.
        **params
            The function's own parameters.

        Returns
        -------
        Problem
            Named after the formulation, with metadata ``n_points`` and ``n_pairs``.

        Raises
        ------
        ValueError
            For a parameter the function does not take or a value outside its declared
            constraints (:meth:`~aucopt.modeling.Formulation.validate_params`), or a kernel with
            a NaN or infinite entry, before the function is called.
        """
        params = self.validate_params(params)
        pairs.check_nonempty()
        K = None if kernel is None else np.asarray(kernel, dtype=float)
        check_kernel_values(K, None, self.name)
        made = self.func(pairs, K, **params)
        model, outputs = made if isinstance(made, tuple) else (made, None)
        problem = Problem(**cvxpy_fields(model, outputs=outputs, name=self.name))
        problem.metadata.update(n_points=pairs.n_points, n_pairs=pairs.n_pairs, pair_target=pairs.target)
        return problem

    def __repr__(self) -> str:
        return f"CvxpyFormulation({self.name!r}, {self.kind})"
