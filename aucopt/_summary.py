"""Fitted-model summaries: the ``summary`` and ``print_summary`` methods of the aucopt estimators.

:func:`summary` reads what a fitted estimator already records (``objective_``,
``solve_result_``, ``n_iter_``, ``coef_``, ``support_``, ``fit_time_``, ...) into one
:class:`FitSummary`; :func:`print_summary` prints it. Both are attached to
:class:`aucopt.base.BinaryRankerMixin` and :class:`aucopt.base.SurvivalRankerMixin`, and work on
any fitted aucopt estimator (e.g. ``summary(CoxPH(...).fit(X, y))``).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pandas is imported when a summary has coefficients
    import pandas as pd

__all__ = ["FitSummary", "print_summary", "summary"]

#: parameters shown whatever their value (when the estimator has them); others only when not default
#: (the method and solver used are part of the fit)
KEY_PARAMETERS = ("C", "alpha", "loss", "kernel", "gamma", "basis", "basis_size", "l1_ratio")

#: how the estimators without a ``method`` parameter fit
FIT_METHODS = {
    "RankSVM": "truncated Newton", "SurvivalRankSVM": "truncated Newton",
    "RankRC": "truncated Newton", "SurvivalRankRC": "truncated Newton",
    "SparseAUC": "greedy basis selection", "SurvivalSparseAUC": "greedy basis selection",
    "OnePassAUC": "one-pass class statistics", "CoxPH": "Newton-Raphson (lifelines)",
}


@dataclass(frozen=True)
class FitSummary:
    """What a fitted aucopt estimator records about its fit, returned by ``summary()``.

    Attributes
    ----------
    estimator : str
        The estimator's class name.
    parameters : dict
        The key constructor parameters (``C`` or ``alpha``, ``loss``, ``kernel``, ``gamma``,
        ...) and every parameter set to a value other than its default.
    fit : dict
        The fit, in this order and only where the estimator has it: ``n_samples`` (rows the
        model was fitted on), ``n_features``, ``n_pairs`` and ``pair_target`` (the ranked
        pairs), ``method`` (the route taken), ``solver``, ``status`` (the solver's, or whether
        the iterations converged), ``objective``, ``optimality_gap`` (the certified relative
        gap of an LP Ranker fit), ``n_iter``, ``n_support`` (ranking vectors of a kernel
        expansion), ``fit_time`` (seconds), and a few estimator-specific counts.
    coefficients : pandas.DataFrame or None
        For a linear model: its ``coef_`` in the column ``"coef"``, indexed by feature name
        (``feature_names_in_`` when fitted on a DataFrame, else ``x0``, ``x1``, ...); None for
        a kernel expansion.

    See Also
    --------
    summary : Builds it.
    print_summary : Prints it.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import RankSVM
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 2))
    >>> model = RankSVM(alpha=0.1).fit(X, X[:, 0] > 0)
    >>> result = model.summary()
    >>> result.estimator, result.fit["n_samples"], result.fit["n_pairs"], result.fit["method"]
    ('RankSVM', 40, 399, 'truncated Newton')
    >>> np.array_equal(result.coefficients["coef"].to_numpy(), model.coef_)
    True
    """

    estimator: str
    parameters: dict
    fit: dict
    coefficients: pd.DataFrame | None = field(default=None)

    def to_text(self, decimals: int = 4) -> str:
        """The summary as text: a header of parameters and fit, then the coefficients.

        Parameters
        ----------
        decimals : int, default=4
            Significant digits of the numbers.

        Returns
        -------
        text : str
        """
        def show(value):
            if isinstance(value, (float, np.floating)):
                return f"{value:.{decimals}g}"
            return str(value)

        items = [(name, show(value)) for name, value in self.parameters.items()]
        facts = dict(self.fit)
        if "n_pairs" in facts:
            facts["n_pairs"] = f"{facts['n_pairs']:,}" + (f" ({facts.pop('pair_target')})" if "pair_target" in facts
                                                          else "")
        if "n_support" in facts and "n_samples" in facts:
            facts["n_support"] = f"{facts['n_support']} of {facts['n_samples']}"
        if "fit_time" in facts:
            facts["fit_time"] = f"{facts['fit_time']:.3g} s"
        rows = [(name, show(value)) for name, value in facts.items()]
        width = max(len(name) for name, _ in items + rows) if items + rows else 0
        lines = [f"<aucopt.{self.estimator}>"]
        lines += [f"  {name:>{width}} = {value}" for name, value in items]
        lines.append("---")
        lines += [f"  {name:>{width}} = {value}" for name, value in rows]
        if self.coefficients is not None:
            lines.append("---")
            names = [str(n) for n in self.coefficients.index]
            values = [f"{v:.{decimals}g}" for v in self.coefficients["coef"]]
            name_width = max(len(n) for n in [*names, ""])
            value_width = max(len(v) for v in [*values, "coef"])
            lines.append(f"  {'':{name_width}}  {'coef':>{value_width}}")
            lines += [f"  {n:<{name_width}}  {v:>{value_width}}" for n, v in zip(names, values, strict=False)]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return self.to_text()


def _parameters(estimator: Any) -> dict:
    """The key parameters and the non-default ones, values shortened for display."""
    import inspect

    params = estimator.get_params(deep=False)
    defaults = {name: p.default for name, p in inspect.signature(type(estimator).__init__).parameters.items()
                if name != "self"}
    shown = {}
    for name, value in params.items():
        default = defaults.get(name, inspect.Parameter.empty)
        try:
            changed = bool(value != default) if not isinstance(value, (np.ndarray, dict)) else True
        except (TypeError, ValueError):  # values that do not compare to their default
            changed = True
        if name in KEY_PARAMETERS or changed:
            shown[name] = value if isinstance(value, (int, float, str, bool, type(None), np.number)) else \
                getattr(value, "__name__", repr(value))
    return shown


def _status(estimator: Any) -> str | None:
    result = getattr(estimator, "solve_result_", None)
    if result is not None:
        return str(result.status)
    for source in (estimator, getattr(estimator, "method_result_", None)):
        converged = getattr(source, "converged_", getattr(source, "converged", None)) if source is not None else None
        if converged is not None:
            return "converged" if converged else "not converged"
    stop = getattr(getattr(estimator, "method_result_", None), "stop", None)
    return str(stop) if stop is not None else None


def _n_samples(estimator: Any) -> int | None:
    for value in (getattr(estimator, "n_samples_fit_", None), getattr(estimator, "n_seen_", None),
                  getattr(getattr(estimator, "fitter_", None), "_n_examples", None)):
        if value is not None:
            return int(value)
    return None


def summary(self: Any) -> FitSummary:
    """A summary of the fitted model: parameters, fit statistics and coefficients.

    In the spirit of lifelines' ``print_summary``: the estimator and its key parameters, the
    number of samples and ranked pairs, the method and solver with its status, the objective,
    the number of iterations and the fit time; the coefficients of a linear model by feature
    name, or the number of ranking (support) vectors of a kernel expansion.

    Returns
    -------
    summary : FitSummary
        ``parameters`` and ``fit`` (dicts) and ``coefficients`` (a pandas DataFrame for linear
        models, else None). Its text is ``str(summary)``; :meth:`print_summary` prints it.

    Raises
    ------
    sklearn.exceptions.NotFittedError
        When the estimator is not fitted.

    See Also
    --------
    print_summary : Prints this summary.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import SurvivalLPRanker, survival_target
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(50, 3))
    >>> y = survival_target(rng.random(50) < 0.7, rng.exponential(np.exp(-X[:, 0])))
    >>> model = SurvivalLPRanker(C=1.0, gamma=0.5).fit(X, y)
    >>> result = model.summary()
    >>> result.fit["status"], result.fit["n_support"] == len(model.support_), result.coefficients is None
    ('optimal', True, True)
    """
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(self)
    fit = {}
    n_samples = _n_samples(self)

    def put(name: str, value: Any) -> None:
        if value is not None:
            fit[name] = value

    put("n_samples", n_samples)
    put("n_features", getattr(self, "n_features_in_", None))
    put("n_pairs", getattr(self, "n_pairs_", None))
    put("pair_target", getattr(self, "pair_target_", None))
    name = type(self).__name__
    put("method", getattr(self, "method_", None) or getattr(self, "method", None) or FIT_METHODS.get(name))
    result = getattr(self, "solve_result_", None)
    put("solver", (result.solver or getattr(self, "solver", None)) if result is not None else None)
    put("status", _status(self))
    objective = getattr(self, "objective_", None)
    put("objective", None if objective is None else float(objective))
    gap = getattr(self, "optimality_gap_", None)
    put("optimality_gap", None if gap is None else float(gap))
    n_iter = getattr(self, "n_iter_", None)
    put("n_iter", None if n_iter is None else int(n_iter))
    support = getattr(self, "support_", None)
    put("n_support", None if support is None else len(support))
    for extra in ("n_updates_", "n_retrains_", "val_score_"):
        put(extra.rstrip("_"), getattr(self, extra, None))
    fit_time = getattr(self, "fit_time_", None)
    put("fit_time", None if fit_time is None else float(fit_time))
    coefficients = None
    coef = getattr(self, "coef_", None)
    if coef is not None and np.ndim(coef) == 1:
        import pandas as pd

        names = getattr(self, "feature_names_in_", None)
        index = [str(n) for n in names] if names is not None else [f"x{k}" for k in range(len(coef))]
        coefficients = pd.DataFrame({"coef": np.asarray(coef, dtype=float)}, index=pd.Index(index, name="feature"))
    return FitSummary(estimator=name, parameters=_parameters(self), fit=fit, coefficients=coefficients)


def print_summary(self: Any, decimals: int = 4, file: IO[str] | None = None) -> None:
    """Print a summary of the fitted model (:meth:`summary`) as text.

    Parameters
    ----------
    decimals : int, default=4
        Significant digits of the numbers.
    file : file-like, default=None
        Where to print; None prints to ``sys.stdout``.

    See Also
    --------
    summary : The same, as a :class:`FitSummary`.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import SurvivalRankSVM, survival_target
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2))
    >>> y = survival_target(rng.random(60) < 0.7, rng.exponential(np.exp(-X[:, 0])))
    >>> model = SurvivalRankSVM(alpha=0.1).fit(X, y)
    >>> model.fit_time_ = 0.002  # the measured time varies; fixed here for the example
    >>> model.print_summary()
    <aucopt.SurvivalRankSVM>
           alpha = 0.1
            loss = squared_hinge
    ---
       n_samples = 60
      n_features = 2
         n_pairs = 1,040 (survival)
          method = truncated Newton
          status = converged
       objective = 0.5675
          n_iter = 3
        fit_time = 0.002 s
    ---
            coef
      x0  0.5386
      x1  0.0742
    """
    print(summary(self).to_text(decimals), file=file if file is not None else sys.stdout)
