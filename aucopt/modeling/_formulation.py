"""The formulation registry: :class:`Formulation`, the :func:`formulation` decorator and the look-ups.

A formulation is a function ``f(m, **params)`` stating an LP or QP on a
:class:`~aucopt.modeling.Model`; :func:`formulation` registers it by name with its kind, its
declared size (``nnz=``, checked by :meth:`Formulation.check_size` before anything is built) and
the constraints of its parameters (scikit-learn's ``_parameter_constraints`` vocabulary, checked
by :meth:`Formulation.validate_params` before every build). :func:`get_formulation` and
:func:`available_formulations` read the registry, which the shipped formulations (the top-level
``formulations/`` folder, importable as ``aucopt.formulations``) fill when first asked.
"""

from __future__ import annotations

import inspect
import math
import sys
from collections.abc import Callable
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils._param_validation import InvalidParameterError, make_constraint, validate_parameter_constraints

from .._formulations_path import ensure_formulations_package
from ..exceptions import check_memory
from ..pairs import DEFAULT_MAX_BYTES, PairSet
from ._model import Model
from ._sizes import lifted_lp_nnz
from .problem import Problem

__all__ = ["Formulation", "available_formulations", "formulation", "get_formulation"]

_REGISTRY: dict[str, Formulation] = {}
"""The registered formulations by name."""


class Formulation:
    """A registered formulation: a function ``f(m, **params)`` that states an LP or QP on a :class:`Model`.

    Made by the :func:`formulation` decorator (or :func:`get_formulation` for a plain function).

    Parameters
    ----------
    func : callable
        ``func(m, **params)``, declaring variables, objective and constraints on ``m``.
    name : str
        Registry name.
    kind : {"lp", "qp", "custom"}
        The problem kind it emits (``"custom"`` for unregistered functions).
    nnz : callable, default=None
        ``nnz(n_points, n_pairs, n_basis, lifted) -> int``: the nonzeros of the problem it
        builds (constraint matrix and quadratic term), used by :meth:`estimate_nbytes`;
        None uses the generic estimate :func:`lifted_lp_nnz`.
    params : dict, default=None
        The constraints of the function's parameters, ``{name: [constraint, ...]}`` in the
        vocabulary of scikit-learn's ``_parameter_constraints``
        (:mod:`sklearn.utils._param_validation`: ``Interval``, ``StrOptions``, ``"array-like"``,
        a type, ``None``, ...); a value is valid when it meets one of them. Each name must be a
        parameter of ``func``. :meth:`validate_params` checks them before every build.

    Attributes
    ----------
    name : str
        Registry name.
    kind : str
        ``"lp"``, ``"qp"`` or ``"custom"``.
    nnz : callable or None
        The declared size.
    parameter_constraints : dict
        The declared constraints, by parameter name.
    parameters : dict
        The function's parameters (after ``m``) and their defaults (``inspect.Parameter.empty``
        when it has none), in order.
    __doc__ : str
        The function's docstring, else its module's (shown by ``aucopt formulations``).

    See Also
    --------
    formulation : the decorator that registers formulations.
    get_formulation : look one up by name.
    Model : the operators a formulation uses.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import PairSet, get_formulation, kernel_matrix
    >>> form = get_formulation("lp_ranker")
    >>> form
    Formulation('lp_ranker', lp)
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> problem = form.build(PairSet.bipartite([1, 0, 0, 1]), kernel_matrix(X, gamma=1.0), C=2.0)
    >>> problem.n_vars, problem.nnz, form.nnz(n_points=4, n_pairs=4, n_basis=4, lifted=True)
    (12, 32, 32)
    >>> form.describe_params()  # (name, what it takes, default), from the declared constraints
    [('C', 'a float in the range (0.0, inf)', 1.0)]
    >>> try:
    ...     form.build(PairSet.bipartite([1, 0, 0, 1]), np.eye(4), C=-1.0)
    ... except ValueError as exc:
    ...     print(exc)
    The 'C' parameter of the formulation 'lp_ranker' must be a float in the range (0.0, inf). Got -1.0 instead.
    """

    #: leading arguments of ``func`` that are not parameters (the Model ``m``)
    _context_args = 1

    def __init__(self, func: Callable, name: str, kind: str, nnz: Callable | None = None,
                 params: dict | None = None):
        if nnz is not None and not callable(nnz):
            raise TypeError(f"nnz must be a callable nnz(n_points, n_pairs, n_basis, lifted); got {nnz!r}.")
        self.func, self.name, self.kind, self.nnz = func, name, kind, nnz
        module = sys.modules.get(getattr(func, "__module__", ""), None)
        self.__doc__ = func.__doc__ or getattr(module, "__doc__", None)
        self.parameters, self._any_keyword = self._signature(func)
        self.parameter_constraints = self._declared(params)

    # ------------------------------------------------------------------ parameters
    def _signature(self, func: Callable) -> tuple[dict, bool]:
        """The parameters after the context arguments, with their defaults; and whether ``**kwargs``."""
        try:
            signature = inspect.signature(func)
        except (TypeError, ValueError):  # no signature to read (a builtin): take any keyword
            return {}, True
        args = list(signature.parameters.values())
        context = [a for a in args if a.kind in (a.POSITIONAL_ONLY, a.POSITIONAL_OR_KEYWORD)][:self._context_args]
        named = {a.name: a.default for a in args if a not in context
                 and a.kind in (a.POSITIONAL_OR_KEYWORD, a.KEYWORD_ONLY)}
        return named, any(a.kind == a.VAR_KEYWORD for a in args)

    def _declared(self, params: dict | None) -> dict:
        """The declared constraints, checked against the signature and the constraint vocabulary."""
        if params is None:
            return {}
        if not isinstance(params, dict):
            raise TypeError(f"params of the formulation {self.name!r} must be a dict {{name: [constraint, ...]}}; "
                            f"got {params!r}.")
        declared = {}
        for key, constraints in params.items():
            if key not in self.parameters and not self._any_keyword:
                raise ValueError(f"The formulation {self.name!r} declares constraints for {key!r}, which is not one "
                                 f"of its parameters {list(self.parameters)}.")
            if not isinstance(constraints, list) or not constraints:
                raise TypeError(f"The constraints of {key!r} (formulation {self.name!r}) must be a non-empty list, "
                                f"as in scikit-learn's _parameter_constraints; got {constraints!r}.")
            for constraint in constraints:
                make_constraint(constraint)  # an unknown constraint fails here, at registration
            declared[key] = list(constraints)
        return declared

    def _allowed(self, key: str) -> str:
        """What a parameter takes, in words (scikit-learn's wording for declared constraints)."""
        if key not in self.parameter_constraints:
            return "any value (undeclared; a number must be finite)"
        words = [str(c) for c in map(make_constraint, self.parameter_constraints[key]) if not c.hidden]
        return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"

    def describe_params(self) -> list[tuple[str, str, object]]:
        """The parameters, what each takes and its default.

        Returns
        -------
        list of (str, str, object)
            ``(name, allowed, default)`` in the order of the function's signature; ``allowed``
            in scikit-learn's wording of the declared constraints, ``default`` is
            ``inspect.Parameter.empty`` for a parameter without one.

        Examples
        --------
        >>> from aucopt import get_formulation
        >>> get_formulation("partial_auc").describe_params()
        [('C', 'a float in the range (0.0, inf)', 1.0), ('beta', 'a float in the range (0.0, 1.0]', 0.1)]
        """
        return [(key, self._allowed(key), default) for key, default in self.parameters.items()]

    def validate_params(self, params: dict) -> dict:
        """Check the parameters of a build against the declarations, before anything is built.

        A name must be a parameter of the function (unless it takes ``**kwargs``); a declared
        parameter must meet one of its constraints (:mod:`sklearn.utils._param_validation`); an
        undeclared number must be finite and an undeclared float array must hold no NaN.

        Parameters
        ----------
        params : dict
            The parameters passed to :meth:`build`.

        Returns
        -------
        dict
            ``params``, unchanged.

        Raises
        ------
        sklearn.utils._param_validation.InvalidParameterError
            (a ``ValueError`` and a ``TypeError``) Naming the formulation, the parameter, the
            value and what it takes; for an unknown name, the parameters there are.

        Examples
        --------
        >>> from aucopt import get_formulation
        >>> try:
        ...     get_formulation("lp_ranker").validate_params({"c": 1.0})
        ... except ValueError as exc:
        ...     print(exc)
        The formulation 'lp_ranker' has no parameter 'c'; its parameters: C (a float in the range (0.0, inf);
        default 1.0).
        """
        unknown = [key for key in params if key not in self.parameters]
        if unknown and not self._any_keyword:
            raise InvalidParameterError(
                f"The formulation {self.name!r} has no parameter {unknown[0]!r}; "
                + (f"its parameters: {self._listing()}." if self.parameters else "it takes no parameters."))
        declared = {key: value for key, value in params.items() if key in self.parameter_constraints}
        validate_parameter_constraints({key: self.parameter_constraints[key] for key in declared}, declared,
                                       caller_name=f"the formulation {self.name!r}")
        for key, value in params.items():
            if key in declared:
                continue
            if isinstance(value, Real) and not isinstance(value, bool) and not math.isfinite(value):
                raise InvalidParameterError(f"The {key!r} parameter of the formulation {self.name!r} must be a "
                                            f"finite number. Got {value!r} instead.")
            if isinstance(value, np.ndarray) and value.dtype.kind in "fc" and np.isnan(value).any():
                raise InvalidParameterError(
                    f"The {key!r} parameter of the formulation {self.name!r} holds {int(np.isnan(value).sum())} "
                    f"NaN value(s), the first at index {np.argwhere(np.isnan(value))[0].tolist()}: pass numbers.")
        return params

    def _listing(self) -> str:
        def default(value: Any) -> str:
            return "required" if value is inspect.Parameter.empty else f"default {value!r}"

        return ", ".join(f"{key} ({allowed}; {default(value)})" for key, allowed, value in self.describe_params())

    def __call__(self, m: Model, **params: Any) -> Any:
        return self.func(m, **self.validate_params(params))

    def build(self, pairs: PairSet, kernel: ArrayLike | None = None, *, factor: Any = None, lifted: bool = True,
              max_bytes: float | None = DEFAULT_MAX_BYTES, **params: Any) -> Problem:
        """Build the problem for a pair set and a kernel.

        Parameters
        ----------
        pairs : PairSet
            The pairs to rank.
        kernel : array-like of shape (n_points, n_basis), default=None
            Kernel matrix (formulations using :meth:`Model.scores`).
        factor : array-like or sparse matrix of shape (n_points, r), default=None
            K = L Lᵀ factor (formulations using :attr:`Model.kernel_factor`).
        lifted : bool, default=True
            See :class:`Model`.
        max_bytes : float or None, default=2 GiB
            Memory budget of the builder.
        **params
            The formulation's own parameters, e.g. ``C``.

        Returns
        -------
        Problem
            Named after the formulation.

        Raises
        ------
        sklearn.utils._param_validation.InvalidParameterError
            (a ``ValueError``) For a parameter the function does not take, or a value outside its
            declared constraints (:meth:`validate_params`), before anything is built.
        ValueError
            When the kernel or the factor holds a NaN or infinite entry
            (:func:`check_kernel_values`), before anything is built.
        ProblemTooLargeError
            When listing the pairs or a dense block would exceed ``max_bytes``.
        ConvexityError
            When the formulation states a non-convex objective or constraint (see
            :meth:`Model.subject_to`); the message names the formulation and the line.
        """
        params = self.validate_params(params)
        m = Model(pairs, kernel, factor=factor, lifted=lifted, max_bytes=max_bytes, formulation=self.name)
        self.func(m, **params)
        return m.build(self.name)

    def estimate_nbytes(self, *, n_points: int, n_pairs: int, n_basis: int, lifted: bool = True,
                        solver: str | None = None) -> float:
        """Peak memory of building and solving the problem, without building it.

        Parameters
        ----------
        n_points : int
            Points the pairs index.
        n_pairs : int
            Number of pairs.
        n_basis : int
            Columns of the kernel matrix (or of the factor L, for formulations written on
            :attr:`Model.kernel_factor`).
        lifted : bool, default=True
            Lifted or dense form.
        solver : str, default=None
            The backend that will solve it; None: HiGHS for an LP, OSQP for a QP.

        Returns
        -------
        float
            Bytes: the kernel block (or factor), and the larger of the builder's peak and the
            assembled problem plus the solver's working memory, from the declared nonzeros
            (``nnz``, else :func:`lifted_lp_nnz`) and the measured per-nonzero and per-row
            costs of the builder and the backend (see ``aucopt._memory``).

        Examples
        --------
        >>> from aucopt import get_formulation
        >>> form = get_formulation("lp_ranker")
        >>> round(form.estimate_nbytes(n_points=1000, n_pairs=250_000, n_basis=1000) / 1e6)
        656
        """
        from .. import _memory

        size = self.nnz if self.nnz is not None else lifted_lp_nnz
        nnz = size(n_points=n_points, n_pairs=n_pairs, n_basis=n_basis, lifted=lifted)
        if self.kind == "qp":
            _, rows, cols = _memory.dual_qp_size(n_points, n_pairs, n_basis)
            return float(_memory.FLOAT * float(n_points) * float(n_basis)
                         + _memory.problem_bytes(nnz, rows, cols, kind="qp", solver=solver or "osqp"))
        return _memory.lp_bytes(n_points, n_pairs, n_basis, lifted=lifted, solver=solver or "highs", nnz=nnz)

    def check_size(self, *, n_points: int, n_pairs: int, n_basis: int, lifted: bool = True,
                   max_bytes: float | None = DEFAULT_MAX_BYTES, fix: str | None = None,
                   solver: str | None = None, routes: list | Callable | None = None) -> None:
        """Raise before building a problem over the memory budget.

        Parameters
        ----------
        n_points, n_pairs, n_basis : int
            As in :meth:`estimate_nbytes`.
        lifted : bool, default=True
            Lifted or dense form.
        max_bytes : float or None, default=2 GiB
            The budget; None disables the check.
        fix : str, default=None
            The remedy to name in the message; by default the first alternative path whose
            own estimate fits ``max_bytes`` (``routes``, else the pair-free paths of the LP
            Ranker and RankRC / RankSVM).
        solver : str, default=None
            The backend, as in :meth:`estimate_nbytes`.
        routes : list or callable, default=None
            Candidate alternative paths (``aucopt._memory.Route``), tried in order.

        Raises
        ------
        ProblemTooLargeError
            When :meth:`estimate_nbytes` exceeds ``max_bytes``.

        Examples
        --------
        >>> from aucopt import get_formulation
        >>> from aucopt.exceptions import ProblemTooLargeError
        >>> try:
        ...     get_formulation("lp_ranker").check_size(n_points=20_000, n_pairs=10**8, n_basis=20_000)
        ... except ProblemTooLargeError as exc:
        ...     print(str(exc)[:75])
        The lifted LP 'lp_ranker' for 20,000 points and 100,000,000 pairs would nee
        """
        from .. import _memory

        need = self.estimate_nbytes(n_points=n_points, n_pairs=n_pairs, n_basis=n_basis, lifted=lifted,
                                    solver=solver)
        what = (f"The {'lifted' if lifted else 'dense'} {self.kind.upper()} {self.name!r} for "
                f"{n_points:,} points and {n_pairs:,} pairs")
        if fix is not None:
            check_memory(need, max_bytes, what, fix)
            return
        if routes is None:
            routes = lambda: _memory.lp_routes(n_points, n_pairs, max_bytes=max_bytes)  # noqa: E731
        _memory.refuse(need, max_bytes, what, routes)

    def __repr__(self) -> str:
        return f"Formulation({self.name!r}, {self.kind})"


def formulation(name: str | None = None, *, kind: str = "lp", nnz: Callable | None = None,
                params: dict | None = None) -> Callable[[Callable], Formulation]:
    """Decorator registering ``func(m, **params)`` as a named formulation.

    Parameters
    ----------
    name : str, default=None
        Registry name; the function's name when None.
    kind : {"lp", "qp"}, default="lp"
        The problem kind it emits.
    nnz : callable, default=None
        ``nnz(n_points, n_pairs, n_basis, lifted) -> int``, the nonzeros of the problem the
        formulation builds; :meth:`Formulation.check_size` uses it. None: the generic
        lifted-LP estimate :func:`lifted_lp_nnz`.
    params : dict, default=None
        The constraints of its parameters, ``{name: [constraint, ...]}`` as scikit-learn's
        ``_parameter_constraints`` (e.g. ``{"C": [Interval(Real, 0, np.inf, closed="neither")]}``
        with ``Interval`` from :mod:`sklearn.utils._param_validation`), checked before every
        build with a message naming the formulation, the parameter, the value and what it takes
        (:meth:`Formulation.validate_params`). A parameter left undeclared takes any value but
        a NaN or infinite number.

    Returns
    -------
    callable
        The decorator; it returns the registered :class:`Formulation`.

    See Also
    --------
    get_formulation, available_formulations, Model

    Notes
    -----
    Shipped formulations live one per file in the top-level ``formulations/`` folder
    (importable as ``aucopt.formulations``); a formulation defined elsewhere is registered when
    its module is imported.

    Examples
    --------
    A budgeted LP Ranker, Σα ≤ budget:

    >>> from numbers import Real
    >>> import numpy as np
    >>> from sklearn.utils._param_validation import Interval
    >>> from aucopt import PairSet, available_formulations, formulation, solve
    >>> @formulation("budget_ranker", kind="lp",
    ...              nnz=lambda n_points, n_pairs, n_basis, lifted: n_points * (n_basis + 1) + n_basis + 3 * n_pairs,
    ...              params={"C": [Interval(Real, 0, np.inf, closed="neither")],
    ...                      "budget": [Interval(Real, 0, np.inf, closed="left")]})
    ... def budget_ranker(m, C=1.0, budget=0.5):
    ...     alpha = m.variable("alpha", m.n_basis, lower=0)
    ...     z = m.variable("z", m.n_pairs, lower=0)
    ...     f = m.scores(alpha)
    ...     m.minimize(alpha.sum() + C * (m.pair_weights @ z))
    ...     m.subject_to(m.pair_difference(f) + z >= 1, alpha.sum() <= budget)
    >>> "budget_ranker" in available_formulations()
    True
    >>> problem = budget_ranker.build(PairSet.bipartite([1, 0, 0]), np.eye(3), budget=0.5)
    >>> round(solve(problem).objective, 6)
    1.5

    A value outside its declaration is refused before anything is built:

    >>> try:
    ...     budget_ranker.build(PairSet.bipartite([1, 0, 0]), np.eye(3), budget=-1)
    ... except ValueError as exc:
    ...     print(exc)
    The 'budget' parameter of the formulation 'budget_ranker' must be a float in the range [0.0, inf). Got -1 instead.
    """

    def register(func: Callable) -> Formulation:
        key = name or func.__name__
        form = Formulation(func, key, kind, nnz, params)
        _REGISTRY[key] = form
        return form

    return register


def get_formulation(name_or_func: str | Formulation | Callable) -> Formulation:
    """Look up a registered formulation by name, or wrap a plain function ``f(m, **params)``.

    Parameters
    ----------
    name_or_func : str, Formulation or callable
        A name of :func:`available_formulations`, a Formulation (returned as is) or a function.

    Returns
    -------
    Formulation

    Raises
    ------
    ValueError
        For an unknown name; the message lists the registered ones.

    See Also
    --------
    available_formulations, formulation

    Examples
    --------
    >>> from aucopt import get_formulation
    >>> get_formulation("aucsvm_l1_dual")
    Formulation('aucsvm_l1_dual', qp)
    >>> get_formulation(lambda m: None).kind
    'custom'
    """
    if isinstance(name_or_func, Formulation):
        return name_or_func
    if callable(name_or_func):
        return Formulation(name_or_func, getattr(name_or_func, "__name__", "custom"), "custom")
    ensure_formulations_package()  # registers the shipped formulations

    if name_or_func not in _REGISTRY:
        raise ValueError(f"Unknown formulation {name_or_func!r}; available: {sorted(_REGISTRY)}.")
    return _REGISTRY[name_or_func]


def available_formulations() -> list[str]:
    """Names of the registered formulations (the shipped ones and any registered since).

    Returns
    -------
    list of str
        Sorted names.

    See Also
    --------
    get_formulation, formulation

    Examples
    --------
    >>> from aucopt import available_formulations
    >>> {"aucsvm_l1_dual", "aucsvm_l2_dual", "lp_ranker", "lp_ranker_free_sign"} <= set(available_formulations())
    True
    """
    ensure_formulations_package()

    return sorted(_REGISTRY)
