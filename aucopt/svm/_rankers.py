"""Rankers trained by truncated Newton on the sorted-pair core (Chapelle & Keerthi 2010; Tayal et al. 2015).

    F = (1/N) Σ_(i,j) w_ij ℓ(f(x_i) − f(x_j)) + (α/2)·‖w‖²

with ℓ the squared hinge (default) or the ε-smoothed hinge, N = Σ w_ij (= n₊n₋ for AUC; the
number of comparable pairs for survival), over bipartite or survival pairs.

* :class:`RankSVM` / :class:`SurvivalRankSVM` — linear, f(x) = wᵀx, dense or sparse X:
  O(nd + n log n) per pass.
* :class:`RankRC` / :class:`SurvivalRankRC` — kernel expansion over a basis R,
  f(x) = Σ_{k∈R} β_k k(x_k, x), penalty (α/2) βᵀK_RRβ. ``basis="rare"`` is RankRC (the
  minority class; the subjects with events for survival), ``"random"`` a random basis,
  ``"full"`` the kernel RankSVM. Only the ``m × |R|`` kernel block is stored; the problem is solved
  in the whitened variable w (β = U Λ^{−1/2} w, K_RR = UΛUᵀ), where it is well conditioned.

Each binary ranker and its survival twin share their model class (``_LinearModel``,
``_KernelModel``: parameters, fit, scores) and their common docstring text (the parts below,
filled in by :func:`aucopt._docstrings.fill_doc`); the target mixins of :mod:`aucopt.base` give
the pairs, ``predict`` and ``score``.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import _memory
from .._dispatch import implementation  # the dask routes, registered by aucopt.distributed
from .._doc_parts import (
    BINARY_ATTRIBUTES_DOC,
    BINARY_PAIR_OPTIONS_DOC,
    FEATURE_ATTRIBUTES_DOC,
    SURVIVAL_IPCW_DOC,
    SURVIVAL_PAIR_OPTIONS_DOC,
)
from .._docstrings import fill_doc
from .._fitting import check_alpha_path, validated_data_and_pairs
from .._targets import label_predict
from .._validation import Count, is_dask_collection
from ..base import (
    KERNEL_CONSTRAINTS,
    MAX_BYTES_CONSTRAINT,
    PAIR_OPTIONS_CONSTRAINT,
    POS_LABEL_CONSTRAINT,
    RANDOM_STATE_CONSTRAINT,
    VERBOSE_CONSTRAINT,
    BinaryRankerMixin,
    SurvivalRankerMixin,
    as_generator,
    positive,
)
from ..exceptions import warn
from ..kernels import Kernel
from ..metrics import harrell_c
from ..pairs import DEFAULT_MAX_BYTES, PairSet
from ._newton import NEWTON_LOSSES, _matvec, newton_solve

__all__ = ["RankRC", "RankSVM", "SurvivalRankRC", "SurvivalRankSVM"]

BASIS_CHOICES = ("rare", "random", "full")

# ============================================================================ shared docstring parts
def _join(*parts: str) -> str:
    """Numpydoc lines written at any indentation, flush left and one after the other."""
    return "\n".join(textwrap.dedent(part).strip("\n") for part in parts)


def _entry(head: str, description: str) -> str:
    """A numpydoc entry: ``head`` with ``description`` (written at any indentation) indented under it."""
    return head + "\n" + textwrap.indent(textwrap.dedent(description).strip("\n"), "    ")


#: the text the twins share, by ``{{name}}`` placeholder (:func:`aucopt._docstrings.fill_doc`)
_DOC = {
    "newton_params": """
        tol : float, default=1e-8
            Stopping tolerance: stop when ‖∇F‖_∞ ≤ tol or the Newton decrement is at most tol · F.
        max_iter : int, default=100
            Maximum number of Newton iterations.
        max_cg_iter : int, default=25
            Maximum number of conjugate-gradient steps per Newton iteration.
        verbose : int, default=0
            0 silent; ≥ 1 shows a progress bar of the Newton iterations.
    """,
    "linear_loss": """
        loss : {"squared_hinge", "smoothed_hinge"}, default="squared_hinge"
            The pairwise loss ℓ(z) of a score (risk) difference z = wᵀx_i − wᵀx_j: max(0, 1 − z)², or
            the ε-smoothed hinge of Tayal et al. (2015): 1 − ε − z for z < 1 − 2ε, (1 − z)²/(4ε) on
            [1 − 2ε, 1), 0 above. Both have the twice differentiable pieces Newton needs.
        epsilon : float, default=0.5
            Half-width ε in (0, 1] of the smoothed hinge's quadratic zone [1 − 2ε, 1); not used by
            the squared hinge.
    """,
    "kernel_params": """
        kernel : {"rbf", "linear", "poly"} or callable, default="rbf"
            The kernel; a callable ``k(A, B)`` returns the (len(A), len(B)) kernel matrix.
        gamma : {"sigma2", "scale", "auto"} or float, default="sigma2"
            Kernel coefficient of ``"rbf"`` and ``"poly"``: ``"sigma2"`` is 1/σ² with σ² the mean
            pairwise squared distance of the training rows (Tayal et al. 2015), ``"scale"`` and
            ``"auto"`` as in :class:`sklearn.svm.SVC`, or a positive number.
        degree : int, default=3
            Degree of the ``"poly"`` kernel.
        coef0 : float, default=1.0
            Independent term of the ``"poly"`` kernel.
        loss : {"smoothed_hinge", "squared_hinge"}, default="smoothed_hinge"
            The pairwise loss: the ε-smoothed hinge of Tayal et al. (2015) or max(0, 1 − z)².
        epsilon : float, default=0.5
            Half-width ε in (0, 1] of the smoothed hinge's quadratic zone [1 − 2ε, 1).
    """,
    "kernel_budget": """
        random_state : int, RandomState instance, numpy.random.Generator or None, default=0
            Seed of the ``"random"`` basis.
        max_bytes : float or None, default=2147483648
            Memory budget in bytes (2 GiB) of the kernel block (``8 · n_samples · |R|`` bytes): larger
            blocks raise :class:`~aucopt.ProblemTooLargeError` before any kernel evaluation. None:
            no limit.
    """,
    "binary_target": _join("""
        pos_label : int, float, bool or str, default=None
            The positive class; None means the larger of the two labels.
    """, _entry("pair_options : dict, default=None", BINARY_PAIR_OPTIONS_DOC)),
    "survival_pairs": _entry("pair_options : dict, default=None",
                             _join(SURVIVAL_PAIR_OPTIONS_DOC, SURVIVAL_IPCW_DOC)),
    "kernel_attributes": """
        support_ : ndarray of shape (n_basis,)
            Row indices of the basis R in the training data.
        support_vectors_ : {ndarray, sparse matrix} of shape (n_basis, n_features)
            The basis points.
        dual_coef_ : ndarray of shape (n_basis,)
            The expansion coefficients β.
        kernel_ : Kernel
            The kernel with its resolved ``gamma``.
    """,
    "newton_attributes": """
        objective_ : float
            F_α (see Notes) at the solution.
        n_iter_ : int
            Newton iterations of the final fit.
        converged_ : bool
            Whether the final fit met its stopping test.
        history_ : list of dict
            One record per Newton iteration (see :class:`~aucopt.svm.NewtonResult`).
        path_ : list of dict
            With ``fit(..., alpha_path=...)``: one record per penalty (``alpha``, ``objective``,
            ``iterations``, ``converged`` and ``coef``, the model's coefficients: w, or β for a kernel
            model), in the order solved; otherwise empty.
    """,
    "binary_attributes": _join("""
        n_pairs_ : int
            Number of positive–negative pairs.
    """, BINARY_ATTRIBUTES_DOC, FEATURE_ATTRIBUTES_DOC),
    "survival_attributes": _join("""
        n_pairs_ : int
            Number of pairs.
        pair_target_ : str
            ``"survival"``.
    """, FEATURE_ATTRIBUTES_DOC),
    "newton_references": """
        .. [1] Chapelle, O., & Keerthi, S. S. (2010). Efficient algorithms for ranking with SVMs.
           *Information Retrieval*, 13(3), 201–215.
        .. [2] Tayal, A., Coleman, T. F., & Li, Y. (2015). RankRC: Large-scale nonlinear rare class
           ranking. *IEEE Transactions on Knowledge and Data Engineering*, 27(12), 3347–3359.
    """,
    "harrell_reference": """
        .. [3] Harrell, F. E., Califf, R. M., Pryor, D. B., Lee, K. L., & Rosati, R. A. (1982).
           Evaluating the yield of medical tests. *JAMA*, 247(18), 2543–2546.
    """,
    # ---------------------------------------------------------------- fit
    "fit_dask_X": """
        X : {array-like, sparse matrix, dask Array, dask DataFrame} of shape (n_samples, n_features)
            Training data. A dask collection is fitted on the running dask.distributed client:
            its blocks stay on the workers, which compute Xw and Xᵀc; the Newton iterations
            run in one task on a worker, and the calling process receives only the fitted
            attributes (see :mod:`aucopt.distributed`).
    """,
    "fit_X": """
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
    """,
    "fit_weights": """
        sample_weight : float or array-like of shape (n_samples,), default=None
            Non-negative per-sample weights; pair (i, j) weighs ``sample_weight[i] *
            sample_weight[j]``. A zero weight is the same as removing the row.
        alpha_path : array-like of float, default=None
            Penalties solved first, in the given order (e.g. ``2.0 ** np.arange(10, -20, -2)``),
            each warm-started from the previous solution, before ``alpha``; their solutions are
            kept in ``path_``.
    """,
    "fit_returns": """
        self : object
            The fitted estimator.
    """,
}


# ============================================================================ the Newton fit
class _NewtonRanker(BaseEstimator):
    """Shared fit: validate, build f = Mθ, run Newton (optionally along an alpha path)."""

    _parameter_constraints: ClassVar[dict] = {
        "alpha": [positive()],
        "loss": [StrOptions(set(NEWTON_LOSSES))],
        "epsilon": [Interval(Real, 0, 1, closed="right")],
        "tol": [positive()],
        "max_iter": [Count(Integral, 1, None, closed="left")],
        "max_cg_iter": [Count(Integral, 1, None, closed="left")],
        **VERBOSE_CONSTRAINT,
    }
    _fit_dtype: ClassVar[Any] = np.float64  # the dtypes X is kept in (others are converted to the first)

    def _fit(self, X: Any, y: Any, sample_weight: np.ndarray | None = None,
             alpha_path: ArrayLike | None = None) -> _NewtonRanker:
        """Solve ``alpha_path`` in order with warm starts, ending at ``alpha``."""
        self._validate_params()
        path = check_alpha_path(alpha_path)
        X, pairs = validated_data_and_pairs(self, X, y, sample_weight, dtype=self._fit_dtype)
        return self._newton_path(self._design(X, pairs), pairs, path, alpha_path)

    def _newton_path(self, M: Any, pairs: PairSet, path: list[float], alpha_path: ArrayLike | None) -> _NewtonRanker:
        """Run Newton on f = Mθ along ``path`` then ``alpha``; set the fitted attributes.

        ``M`` is anything with ``shape``, ``M @ θ`` and ``M.T @ c`` (a matrix, or the
        :class:`~aucopt.distributed.DaskRowOperator` over blocks held by dask workers).
        """
        theta: np.ndarray | None = None
        self.path_ = []
        for alpha in [*path, float(self.alpha)]:  # warm starts along the path, ending at self.alpha
            result = newton_solve(M, pairs, alpha, loss=self.loss, epsilon=self.epsilon, theta0=theta,
                                  tol=self.tol, max_iter=self.max_iter, max_cg_iter=self.max_cg_iter,
                                  verbose=self.verbose)
            theta = result.theta
            if alpha_path is not None:
                self.path_.append({"alpha": alpha, "objective": result.objective,
                                   "iterations": result.iterations, "converged": result.converged,
                                   "coef": self._coef_from(theta)})
        if not result.converged:  # result: the fit at self.alpha
            warn(f"Newton did not converge ({result.message}); raise max_iter.", ConvergenceWarning)
        self._set_model(result.theta)
        self.objective_ = result.objective
        self.n_iter_ = result.iterations
        self.converged_ = result.converged
        self.history_ = result.history
        self.n_pairs_ = pairs.n_pairs
        self.pair_target_ = pairs.target
        return self

    # the model: f = M θ and the fitted coefficients (each model class defines them)
    def _design(self, X: Any, pairs: PairSet) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _coef_from(self, theta: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _set_model(self, theta: np.ndarray) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


# ============================================================================ linear
class _LinearModel(_NewtonRanker):
    """f(x) = wᵀx over dense, sparse or dask X; the parameters and fit of RankSVM and SurvivalRankSVM.

    A float32 X is kept as it is (half the memory of a float64 copy); the scores, the gradients
    and the objective are computed in float64 from it, block by block.
    """

    _fit_dtype: ClassVar[Any] = (np.float64, np.float32)

    def __init__(self, alpha: float = 1e-3, *, loss: str = "squared_hinge", epsilon: float = 0.5,
                 tol: float = 1e-8, max_iter: int = 100, max_cg_iter: int = 25, verbose: int = 0,
                 pair_options: dict | None = None):
        self.alpha = alpha
        self.loss = loss
        self.epsilon = epsilon
        self.tol = tol
        self.max_iter = max_iter
        self.max_cg_iter = max_cg_iter
        self.verbose = verbose
        self.pair_options = pair_options

    def _design(self, X: Any, pairs: PairSet) -> Any:
        return X  # f = X w

    def _coef_from(self, theta: np.ndarray) -> np.ndarray:
        return theta.copy()

    def _set_model(self, theta: np.ndarray) -> None:
        self.coef_ = theta

    def _expansion(self, X: Any) -> Any:
        check_is_fitted(self, "coef_")
        if is_dask_collection(X):  # lazy scores, one task per block of X
            return self._dask_scores(X)
        X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=self._fit_dtype, reset=False)
        return _matvec(X, self.coef_)

    # ------------------------------------------------------------------ the dask route
    # The one place where the linear rankers hand dask collections on: aucopt.distributed registers
    # these operations (aucopt._dispatch); svm never imports it.
    def _fit_dask(self, X: Any, y: Any, sample_weight: Any, alpha_path: ArrayLike | None) -> Any:
        return implementation("dask", "fit_linear_ranker")(self, X, y, sample_weight, alpha_path)

    def _dask_scores(self, X: Any) -> Any:
        return implementation("dask", "linear_scores")(self, X)

    def _dask_labels(self, X: Any) -> Any:
        check_is_fitted(self, "classes_")
        return implementation("dask", "labels")(self.decision_function(X), self.classes_)

    def _gathered(self, X: Any, y: Any, sample_weight: Any) -> tuple[np.ndarray, Any, Any]:
        """Scores of a dask X, y and the weights as numpy n-vectors on the driver (for ``score``)."""
        return implementation("dask", "gather_vectors")(self._expansion(X), y, sample_weight)


@fill_doc(**_DOC)
class RankSVM(BinaryRankerMixin, _LinearModel):
    """Linear ranking SVM for binary labels, trained by truncated Newton.

    Maximizes a smooth surrogate of the AUC over all positive–negative pairs without listing
    them: each pass costs O(nd + n log n) (Chapelle & Keerthi 2010). Dense or sparse X.

    Parameters
    ----------
    alpha : float, default=1e-3
        Penalty multiplier α > 0 of (α/2)‖w‖²; larger values give a smaller w. Useful values
        typically lie between 2⁻²⁰ and 2¹⁰.
    {{linear_loss}}
    {{newton_params}}
    {{binary_target}}

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The weight vector w; the ranking score is f(x) = wᵀx.
    {{newton_attributes}}
    {{binary_attributes}}

    See Also
    --------
    SurvivalRankSVM : The same model over comparable pairs of survival data.
    RankRC : Kernel ranking SVM on a small expansion basis.
    AUCSVM : The C-parameterized pairwise SVM (hinge or squared hinge, any kernel).
    aucopt.svm.newton_solve : The solver.

    Notes
    -----
    With pair weights w_ij (1 without ``sample_weight``; w_i w_j with it) and N = Σ w_ij
    (n₊n₋ without weights), RankSVM minimizes

        F_α(w) = (1/N) Σ_ij w_ij ℓ(wᵀx_i − wᵀx_j) + (α/2)‖w‖².

    The gradient and generalized-Hessian products are sums over pairs computed from one sort
    of the scores (Chapelle & Keerthi 2010). With the squared hinge this is the problem of
    ``AUCSVM(loss="squared_hinge", kernel="linear", C=2/(α N))``, whose objective
    F_C(w) = ½‖w‖² + (C/2) Σ w_ij max(0, 1 − z_ij)² equals F_α(w)/α.

    References
    ----------
    {{newton_references}}

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_classification
    >>> from aucopt import RankSVM
    >>> X, y = make_classification(n_samples=60, n_features=5, random_state=0)
    >>> model = RankSVM(alpha=0.01).fit(X, y)
    >>> model.coef_.shape, round(model.score(X, y), 2)
    ((5,), 0.92)

    A warm-started path of penalties, ending at ``alpha``:

    >>> path = RankSVM(alpha=1e-3).fit(X, y, alpha_path=[1.0, 0.1, 0.01]).path_
    >>> [record["alpha"] for record in path]
    [1.0, 0.1, 0.01, 0.001]
    """

    _parameter_constraints: ClassVar[dict] = {**_NewtonRanker._parameter_constraints, **POS_LABEL_CONSTRAINT,
                                              **PAIR_OPTIONS_CONSTRAINT}

    def __init__(self, alpha: float = 1e-3, *, loss: str = "squared_hinge", epsilon: float = 0.5,
                 tol: float = 1e-8, max_iter: int = 100, max_cg_iter: int = 25, verbose: int = 0,
                 pos_label: int | float | bool | str | None = None, pair_options: dict | None = None):
        super().__init__(alpha, loss=loss, epsilon=epsilon, tol=tol, max_iter=max_iter,
                         max_cg_iter=max_cg_iter, verbose=verbose, pair_options=pair_options)
        self.pos_label = pos_label

    @fill_doc(**_DOC)
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | float | None = None,  # type: ignore[override]  # alpha_path is its one fit parameter
            alpha_path: ArrayLike | None = None) -> RankSVM:
        """Fit the ranker, optionally along a warm-started path of penalties.

        Parameters
        ----------
        {{fit_dask_X}}
        y : array-like, dask Array or dask Series of shape (n_samples,)
            Two class labels; ``pos_label`` (default the larger) is the positive class.
        {{fit_weights}}

        Returns
        -------
        {{fit_returns}}
        """
        if is_dask_collection(X, y, sample_weight):
            return self._fit_dask(X, y, sample_weight, alpha_path)
        return super().fit(X, y, sample_weight, alpha_path=alpha_path)

    @label_predict
    def predict(self, X: ArrayLike) -> Any:
        """Class labels: ``classes_[1]`` where ``decision_function`` is positive.

        Not available with ``pair_options`` target ``"multipartite"`` (see the class docstring).

        Parameters
        ----------
        X : {array-like, sparse matrix, dask Array, dask DataFrame} of shape (n_samples, n_features)

        Returns
        -------
        labels : ndarray or dask Array of shape (n_samples,)
            A dask array (computed block by block) for dask input.
        """
        if is_dask_collection(X):
            return self._dask_labels(X)
        return super().predict(X)

    def score(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | float | None = None) -> float:
        """AUC of the ranking scores (ties count ½), by :func:`aucopt.metrics.roc_auc`.

        With ``pair_options`` target ``"multipartite"``: the multipartite C-index
        (:func:`aucopt.metrics.multipartite_c_index`).

        Parameters
        ----------
        X : {array-like, sparse matrix, dask Array, dask DataFrame} of shape (n_samples, n_features)
        y : array-like, dask Array or dask Series of shape (n_samples,)
        sample_weight : float or array-like of shape (n_samples,), default=None
            Case weights: a (positive, negative) pair (i, j) counts with weight
            ``sample_weight[i] * sample_weight[j]``.

        Returns
        -------
        auc : float
            For dask input the scores, y and the weights are gathered as n-vectors.
        """
        if is_dask_collection(X, y, sample_weight):
            scores, labels, weights = self._gathered(X, y, sample_weight)
            return self._score_of(labels, scores, weights)
        return super().score(X, y, sample_weight)


@fill_doc(**_DOC)
class SurvivalRankSVM(SurvivalRankerMixin, _LinearModel):
    """Linear survival ranking SVM over comparable pairs, trained by truncated Newton.

    The risk score is wᵀx (higher = earlier event); the pairs are Harrell's comparable pairs
    (subject i has an event and t_i < t_j, or t_i = t_j with j censored) or the variant chosen by
    ``pair_options``. Dense or sparse X.

    Parameters
    ----------
    alpha : float, default=1e-3
        Penalty multiplier α > 0 of (α/2)‖w‖².
    {{linear_loss}}
    {{newton_params}}
    {{survival_pairs}}

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The weight vector w; the risk score is wᵀx.
    {{newton_attributes}}
    {{survival_attributes}}

    See Also
    --------
    RankSVM : The same model for binary labels.
    SurvivalRankRC : Kernel survival ranker on a small expansion basis.
    SurvivalAUCSVM : The C-parameterized survival SVM (hinge or squared hinge, any kernel).

    Notes
    -----
    With pair weights w_ij and N = Σ w_ij (the number of comparable pairs without weights), the
    objective is F_α(w) = (1/N) Σ w_ij ℓ(wᵀx_i − wᵀx_j) + (α/2)‖w‖². With the squared hinge it
    has the minimizer of scikit-survival's
    ``FastSurvivalSVM(alpha=2/(α N), rank_ratio=1, fit_intercept=False)`` (Pölsterl et al.
    2015), whose objective ½‖w‖² + (a/2) Σ max(0, 1 − z_ij)² is F_α/α for a = 2/(αN), up to its
    sign convention (its predictions are −risk) and its random tie-breaking of tied times; and
    of ``SurvivalAUCSVM(loss="squared_hinge", kernel="linear", C=2/(α N))``.

    References
    ----------
    {{newton_references}}
    {{harrell_reference}}
    .. [4] Pölsterl, S., Navab, N., & Katouzian, A. (2015). Fast training of support vector
       machines for survival analysis. *ECML PKDD 2015*, LNCS 9285, 243–259.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import SurvivalRankSVM, survival_target
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3))
    >>> time = rng.exponential(np.exp(-X[:, 0]))
    >>> y = survival_target(rng.random(80) < 0.7, time)
    >>> model = SurvivalRankSVM(alpha=0.01).fit(X, y)
    >>> int(np.argmax(np.abs(model.coef_))), bool(model.score(X, y) > 0.7)
    (0, True)
    """

    _parameter_constraints: ClassVar[dict] = {**_NewtonRanker._parameter_constraints, **PAIR_OPTIONS_CONSTRAINT}

    @fill_doc(**_DOC)
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | float | None = None,  # type: ignore[override]  # alpha_path is its one fit parameter
            alpha_path: ArrayLike | None = None) -> SurvivalRankSVM:
        """Fit the risk ranker, optionally along a warm-started path of penalties.

        Parameters
        ----------
        {{fit_dask_X}}
        y : structured array of shape (n_samples,), tuple (event, time) or dask DataFrame
            Boolean event indicator and float time (see :func:`aucopt.survival_target`); with
            dask X also a dask DataFrame of two columns (the boolean one is the event) or a
            tuple of dask arrays.
        {{fit_weights}}

        Returns
        -------
        {{fit_returns}}
        """
        if is_dask_collection(X, y, sample_weight):
            return self._fit_dask(X, y, sample_weight, alpha_path)
        return super().fit(X, y, sample_weight, alpha_path=alpha_path)

    def score(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | float | None = None) -> float:
        """Harrell's concordance index of the risk scores (tied risks count ½).

        Parameters
        ----------
        X : {array-like, sparse matrix, dask Array, dask DataFrame} of shape (n_samples, n_features)
        y : structured array of shape (n_samples,), tuple (event, time) or dask DataFrame
        sample_weight : float or array-like of shape (n_samples,), default=None
            Case weights: a comparable pair (i, j) counts with weight
            ``sample_weight[i] * sample_weight[j]``.

        Returns
        -------
        cindex : float
            For dask input the risks, y and the weights are gathered as n-vectors.
        """
        if is_dask_collection(X, y, sample_weight):
            risk, target, weights = self._gathered(X, y, sample_weight)
            return harrell_c(target, risk, sample_weight=weights)
        return super().score(X, y, sample_weight)


# ============================================================================ kernel
class _KernelModel(_NewtonRanker):
    """f(x) = Σ_{k∈R} β_k k(x_k, x) over a basis R; the parameters and fit of RankRC and SurvivalRankRC."""

    _parameter_constraints: ClassVar[dict] = {
        **_NewtonRanker._parameter_constraints,
        "basis": [StrOptions(set(BASIS_CHOICES)), "array-like"],
        "basis_size": [Count(Integral, 1, None, closed="left"), None],
        **KERNEL_CONSTRAINTS,
        "kernel": [StrOptions({"linear", "rbf", "poly"}), callable],  # evaluates its own kernel block
        **RANDOM_STATE_CONSTRAINT,
        **MAX_BYTES_CONSTRAINT,
    }

    def __init__(self, alpha: float = 1e-3, *, basis: str | ArrayLike = "rare", basis_size: int | None = None,
                 kernel: str | Callable[..., Any] = "rbf", gamma: str | float = "sigma2", degree: int = 3,
                 coef0: float = 1.0, loss: str = "smoothed_hinge", epsilon: float = 0.5, tol: float = 1e-8,
                 max_iter: int = 100, max_cg_iter: int = 25, verbose: int = 0, random_state: Any = 0,
                 max_bytes: float | None = DEFAULT_MAX_BYTES, pair_options: dict | None = None):
        self.alpha = alpha
        self.basis = basis
        self.basis_size = basis_size
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.loss = loss
        self.epsilon = epsilon
        self.tol = tol
        self.max_iter = max_iter
        self.max_cg_iter = max_cg_iter
        self.verbose = verbose
        self.random_state = random_state
        self.max_bytes = max_bytes
        self.pair_options = pair_options

    def _basis_indices(self, pairs: PairSet) -> np.ndarray:
        """The basis R as row indices of the fitting rows, its kernel block checked against ``max_bytes``."""
        m = pairs.n_points
        idx = self._named_basis(pairs) if isinstance(self.basis, str) else self._given_basis(m)
        if len(idx) == 0:
            raise ValueError("The kernel basis is empty; choose basis='rare' / 'random' / 'full' or non-empty indices.")
        _memory.refuse(_memory.rankrc_bytes(m, len(idx)), self.max_bytes,
                       f"The {m:,} x {len(idx):,} kernel block, its whitened copy and the "
                       f"{len(idx):,} x {len(idx):,} basis eigendecomposition",
                       lambda: _memory.rankrc_routes(type(self).__name__, m, survival=pairs.target == "survival",
                                                     max_bytes=self.max_bytes))
        return idx

    def _named_basis(self, pairs: PairSet) -> np.ndarray:
        """The ``"full"``, ``"rare"`` or ``"random"`` basis."""
        m = pairs.n_points
        rare = pairs.signs > 0  # positives / subjects with an event / levels above the lowest
        if pairs.target in ("bipartite", "multipartite") and rare.sum() > m - rare.sum():
            rare = ~rare  # the minority class (ordinal levels: the lowest level or the levels above it)
        if self.basis == "full":
            return np.arange(m)
        if self.basis == "rare":
            return np.flatnonzero(rare)
        size = int(rare.sum()) if self.basis_size is None else self.basis_size
        if size > m:
            raise ValueError(f"basis_size={self.basis_size} exceeds the number of samples ({m}).")
        return np.sort(as_generator(self.random_state).choice(m, size, replace=False))

    def _given_basis(self, m: int) -> np.ndarray:
        """The basis given as row indices or a boolean mask of the rows of the ``X`` given to fit."""
        kept, y_all = getattr(self, "_fit_rows", (None, None))
        n = m if kept is None or y_all is None else len(y_all)  # the basis names rows of the X given to fit
        arr = np.asarray(self.basis).ravel()
        if arr.dtype == bool:
            if len(arr) != n:
                raise ValueError(f"A boolean basis mask must have one entry per sample ({n}); got {len(arr)}.")
            arr = np.flatnonzero(arr)
        elif len(arr) and arr.dtype.kind not in "iu":
            raise ValueError(f"basis indices must be integers; got dtype {arr.dtype}.")
        idx = np.unique(arr.astype(np.int64))
        if len(idx) and (idx[0] < 0 or idx[-1] >= n):
            raise ValueError(f"basis indices must lie in [0, {n}).")
        if kept is not None:  # zero-weight rows are removed, from the basis too
            idx = np.flatnonzero(np.isin(kept, idx))
        return idx

    def _design(self, X: Any, pairs: PairSet) -> np.ndarray:
        idx = self._basis_indices(pairs)
        kernel = Kernel.from_params(self.kernel, self.gamma, self.degree, self.coef0, X=X)
        K_block = kernel(X, X[idx])  # m × r: the only kernel storage
        eigval, eigvec = np.linalg.eigh(K_block[idx])
        keep = eigval > 1e-12 * max(float(eigval[-1]), 0.0)
        if not np.any(keep):
            raise ValueError("The kernel is zero on every pair of basis points (k(x_i, x_j) = 0), so the "
                             "basis cannot represent any ranking: check the kernel, or choose another basis.")
        self._whiten = eigvec[:, keep] / np.sqrt(eigval[keep])  # T: β = T w, βᵀK_RRβ = ‖w‖²
        self.kernel_ = kernel
        self.support_ = idx
        self.support_vectors_ = X[idx]
        return K_block @ self._whiten

    def _coef_from(self, theta: np.ndarray) -> np.ndarray:
        return self._whiten @ theta

    def _set_model(self, theta: np.ndarray) -> None:
        self.dual_coef_ = self._whiten @ theta  # β
        del self._whiten

    def _expansion(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=np.float64, reset=False)
        return self.kernel_(X, self.support_vectors_) @ self.dual_coef_


@fill_doc(**_DOC)
class RankRC(BinaryRankerMixin, _KernelModel):
    """RankRC: kernel ranking SVM with the rare class as the expansion basis.

    The ranking function is a kernel expansion over a basis R of training points,
    f(x) = Σ_{k∈R} β_k k(x_k, x); with the default ``basis="rare"``, R is the minority class,
    so training stores only the n × n_rare kernel block and costs O(n · n_rare) time and memory
    per iteration (Tayal et al. 2015).

    Parameters
    ----------
    alpha : float, default=1e-3
        Penalty multiplier α > 0 of (α/2) βᵀK_RRβ.
    basis : {"rare", "random", "full"} or array-like, default="rare"
        The expansion basis R: ``"rare"`` the minority class, ``"random"`` ``basis_size`` rows
        drawn with ``random_state``, ``"full"`` every training row (the kernel RankSVM), or
        integer row indices / a boolean mask over the training rows (rows with zero
        ``sample_weight`` are left out, as if removed).
    basis_size : int, default=None
        Size of the ``"random"`` basis (at most n_samples); None means the minority class's
        size. Not used by the other bases.
    {{kernel_params}}
    {{newton_params}}
    {{kernel_budget}}
    {{binary_target}}
        With ``basis="rare"`` the basis is then the smaller of the lowest level and the levels
        above it.

    Attributes
    ----------
    {{kernel_attributes}}
    {{newton_attributes}}
    {{binary_attributes}}

    See Also
    --------
    SurvivalRankRC : The same model over comparable pairs of survival data.
    RankSVM : The linear ranking SVM.
    SparseAUC : A kernel ranker whose basis is chosen greedily.
    AUCSVM : The exact kernel pairwise SVM (a QP over all pairs).

    Notes
    -----
    With pair weights w_ij, N = Σ w_ij and the kernel block K_{·R}, RankRC minimizes

        F_α(β) = (1/N) Σ_ij w_ij ℓ((K_{·R}β)_i − (K_{·R}β)_j) + (α/2) βᵀK_RRβ,

    by truncated Newton (Chapelle & Keerthi 2010) in the whitened variable w with β = T w,
    K_RR = UΛUᵀ and T = U Λ^{−1/2} (directions with eigenvalues below 10⁻¹² λ_max are dropped),
    so that the penalty is (α/2)‖w‖² and the problem is well conditioned. ``basis="full"`` is
    the kernel RankSVM; with the squared hinge it has the minimizer of
    ``AUCSVM(loss="squared_hinge", C=2/(α N))`` with the same kernel.

    References
    ----------
    {{newton_references}}

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from aucopt import RankRC
    >>> X, y = make_classification(n_samples=80, n_features=5, weights=[0.8], random_state=0)
    >>> model = RankRC(alpha=0.01).fit(X, y)
    >>> bool(len(model.support_) == (y == 1).sum()), bool(model.score(X, y) > 0.9)
    (True, True)
    """

    _parameter_constraints: ClassVar[dict] = {**_KernelModel._parameter_constraints, **POS_LABEL_CONSTRAINT,
                                              **PAIR_OPTIONS_CONSTRAINT}

    def __init__(self, alpha: float = 1e-3, *, basis: str | ArrayLike = "rare", basis_size: int | None = None,
                 kernel: str | Callable[..., Any] = "rbf", gamma: str | float = "sigma2", degree: int = 3,
                 coef0: float = 1.0, loss: str = "smoothed_hinge", epsilon: float = 0.5, tol: float = 1e-8,
                 max_iter: int = 100, max_cg_iter: int = 25, verbose: int = 0, random_state: Any = 0,
                 max_bytes: float | None = DEFAULT_MAX_BYTES, pos_label: int | float | bool | str | None = None,
                 pair_options: dict | None = None):
        super().__init__(alpha, basis=basis, basis_size=basis_size, kernel=kernel, gamma=gamma,
                         degree=degree, coef0=coef0, loss=loss, epsilon=epsilon, tol=tol, max_iter=max_iter,
                         max_cg_iter=max_cg_iter, verbose=verbose, random_state=random_state,
                         max_bytes=max_bytes, pair_options=pair_options)
        self.pos_label = pos_label

    @fill_doc(**_DOC)
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | float | None = None,  # type: ignore[override]  # alpha_path is its one fit parameter
            alpha_path: ArrayLike | None = None) -> RankRC:
        """Fit the ranker, optionally along a warm-started path of penalties.

        Parameters
        ----------
        {{fit_X}}
        y : array-like of shape (n_samples,)
            Two class labels; ``pos_label`` (default the larger) is the positive class.
        {{fit_weights}}

        Returns
        -------
        {{fit_returns}}
        """
        return super().fit(X, y, sample_weight, alpha_path=alpha_path)


@fill_doc(**_DOC)
class SurvivalRankRC(SurvivalRankerMixin, _KernelModel):
    """Kernel survival ranker over comparable pairs with a small expansion basis.

    The risk score is f(x) = Σ_{k∈R} β_k k(x_k, x) (higher = earlier event); with the default
    ``basis="rare"``, R is the set of subjects with an observed event. The pairs are Harrell's
    comparable pairs or the variant chosen by ``pair_options``.

    Parameters
    ----------
    alpha : float, default=1e-3
        Penalty multiplier α > 0 of (α/2) βᵀK_RRβ.
    basis : {"rare", "random", "full"} or array-like, default="rare"
        The expansion basis R: ``"rare"`` the subjects with an event, ``"random"``
        ``basis_size`` rows drawn with ``random_state``, ``"full"`` every training row, or
        integer row indices / a boolean mask over the training rows (rows with zero
        ``sample_weight`` are left out, as if removed).
    basis_size : int, default=None
        Size of the ``"random"`` basis (at most n_samples); None means the number of events.
    {{kernel_params}}
    {{newton_params}}
    {{kernel_budget}}
    {{survival_pairs}}

    Attributes
    ----------
    {{kernel_attributes}}
    {{newton_attributes}}
    {{survival_attributes}}

    See Also
    --------
    RankRC : The same model for binary labels (details of the basis and the solver).
    SurvivalRankSVM : The linear survival ranking SVM.
    SurvivalSparseAUC : A kernel survival ranker whose basis is chosen greedily.

    Notes
    -----
    F_α(β) = (1/N) Σ_ij w_ij ℓ(f(x_i) − f(x_j)) + (α/2) βᵀK_RRβ over the comparable pairs,
    N = Σ w_ij, solved as in :class:`RankRC`.

    References
    ----------
    {{newton_references}}
    {{harrell_reference}}

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import SurvivalRankRC, survival_target
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3))
    >>> time = rng.exponential(np.exp(-X[:, 0]))
    >>> event = rng.random(80) < 0.3
    >>> model = SurvivalRankRC(alpha=0.01).fit(X, survival_target(event, time))
    >>> bool(np.array_equal(model.support_, np.flatnonzero(event)))
    True
    """

    _parameter_constraints: ClassVar[dict] = {**_KernelModel._parameter_constraints, **PAIR_OPTIONS_CONSTRAINT}

    @fill_doc(**_DOC)
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | float | None = None,  # type: ignore[override]  # alpha_path is its one fit parameter
            alpha_path: ArrayLike | None = None) -> SurvivalRankRC:
        """Fit the risk ranker, optionally along a warm-started path of penalties.

        Parameters
        ----------
        {{fit_X}}
        y : structured array of shape (n_samples,)
            Boolean event indicator and float time (see :func:`aucopt.survival_target`).
        {{fit_weights}}

        Returns
        -------
        {{fit_returns}}
        """
        return super().fit(X, y, sample_weight, alpha_path=alpha_path)
