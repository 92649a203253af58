"""scikit-learn estimators on top of pairs → formulation → problem → solver.

* :class:`LPRanker` — binary labels, ranks positives above negatives (AUC); a classifier
  (``decision_function`` = ranking score, ``predict`` thresholds it, ``score`` = AUC).
* :class:`SurvivalLPRanker` — survival targets, ranks earlier events higher (Harrell's C);
  ``predict`` = ``decision_function`` = risk score, as in scikit-survival.

Both fit the LP Ranker (seed 003 eq. 3.3; or any registered LP/QP formulation over a
kernel expansion, through ``formulation=``) on the chosen ``solver`` and keep only the
ranking vectors (|coef_l| > tol) for scoring: f(x) = Σ_{l ∈ RV} coef_l k(x, x_l).
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from ._validation import format_bytes, is_survival_target
from .kernels import Kernel
from .metrics import harrell_c, roc_auc
from .modeling import BYTES_PER_NONZERO, get_formulation
from .pairs import BYTES_PER_PAIR, DEFAULT_MAX_BYTES, PairSet
from .solvers import check_solver, solve


class _KernelPairRanker(BaseEstimator):
    """Shared fit / decision_function for kernel-expansion rankers solved as LP/QP."""

    def __init__(self, C=1.0, *, kernel="rbf", gamma="scale", degree=3, coef0=1.0,
                 formulation="lp_ranker", solver="highs", solver_options=None, tol=1e-8,
                 lifted=True, max_bytes=DEFAULT_MAX_BYTES):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.formulation = formulation
        self.solver = solver
        self.solver_options = solver_options
        self.tol = tol
        self.lifted = lifted
        self.max_bytes = max_bytes

    # ------------------------------------------------------------------ validation
    def _check_params(self):
        if not isinstance(self.C, Real) or isinstance(self.C, bool) or not (0 < self.C < np.inf):
            raise ValueError(f"C must be a positive finite number; got {self.C!r}.")
        if not isinstance(self.tol, Real) or not self.tol >= 0:
            raise ValueError(f"tol must be a non-negative number; got {self.tol!r}.")
        check_solver(self.solver)
        return get_formulation(self.formulation)

    def _make_pairs(self, y, sample_weight) -> PairSet:  # pragma: no cover - abstract
        raise NotImplementedError

    def _check_size(self, pairs: PairSet):
        """Refuse, before building, problems whose assembly would exceed ``max_bytes``."""
        if self.max_bytes is None:
            return
        m, P = pairs.n_points, pairs.n_pairs
        rows = m * m + (3 if self.lifted else 2 * m) * P
        need = rows * BYTES_PER_NONZERO + P * BYTES_PER_PAIR + m * m * 8
        if need > self.max_bytes:
            raise ValueError(
                f"The {'lifted' if self.lifted else 'dense'} LP for {m:,} points and {P:,} pairs "
                f"would need about {format_bytes(need)} (limit max_bytes={format_bytes(self.max_bytes)}). "
                "Subsample, reduce the pairs, or raise max_bytes."
            )

    # ------------------------------------------------------------------ fit
    def _fit(self, X, y, sample_weight=None):
        """Fit on X and a target; ``sample_weight`` gives product-form pair weights w_i·w_j."""
        form = self._check_params()
        X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=np.float64, reset=True)
        pairs = self._make_pairs(y, sample_weight)
        if pairs.n_points != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} samples but the target has {pairs.n_points}.")
        pairs.check_nonempty()
        if pairs.total_weight() == 0:
            raise ValueError(
                "All pair weights are zero: sample_weight leaves no pair with positive weight "
                "(e.g. only one class, or no event, has nonzero weight)."
            )
        self._check_size(pairs)
        kernel = Kernel.from_params(self.kernel, self.gamma, self.degree, self.coef0, X=X)
        if kernel.precomputed and X.shape[0] != X.shape[1]:
            raise ValueError(f"A precomputed kernel must be square at fit time; got {X.shape}.")
        K = kernel(_dense(X) if kernel.precomputed else X)
        problem = form.build(pairs, K, lifted=self.lifted, max_bytes=self.max_bytes, C=float(self.C))
        result = solve(problem, self.solver, **(self.solver_options or {})).raise_for_status()
        coef = problem.output(result.x, "coef")
        keep = np.abs(coef) > self.tol * max(1.0, float(np.max(np.abs(coef))))
        self.kernel_ = kernel
        self.support_ = np.flatnonzero(keep)
        self.ranking_coef_ = coef[keep]
        self.ranking_vectors_ = None if kernel.precomputed else X[self.support_]
        self.objective_ = result.objective
        self.solve_result_ = result
        self.n_pairs_ = pairs.n_pairs
        self.pair_kind_ = pairs.kind
        self.problem_size_ = {"variables": problem.n_vars, "rows": problem.n_rows, "nonzeros": problem.nnz}
        return self

    def _expansion(self, X) -> np.ndarray:
        """The kernel expansion f(x) = Σ_{l ∈ ranking vectors} coef_l k(x, x_l)."""
        check_is_fitted(self, "ranking_coef_")
        X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=np.float64, reset=False)
        if self.kernel_.precomputed:
            K = _dense(X)[:, self.support_]
        elif len(self.support_) == 0:
            return np.zeros(X.shape[0])
        else:
            K = self.kernel_(X, self.ranking_vectors_)
        return K @ self.ranking_coef_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags


class LPRanker(ClassifierMixin, _KernelPairRanker):
    """LP Ranker for binary labels (Ataman 2007, seed 003 eq. 3.3).

    Solves min_{α≥0} Σ α_l + C Σ_{i∈X+, j∈X−} w_ij [1 − f(x_i) + f(x_j)]_+ with
    f(x) = Σ_l y_l α_l k(x, x_l), as the lifted sparse LP (score variables s = K Y α).

    Parameters
    ----------
    C : pair-loss weight (> 0).
    kernel, gamma, degree, coef0 : ``"rbf"`` (default), ``"linear"``, ``"poly"``,
        ``"precomputed"`` or a callable; ``gamma="scale"`` is 1/(d·Var(X)) as in ``SVC``.
    formulation : registered formulation name (``"lp_ranker"``, ``"lp_ranker_free_sign"``, …)
        or a function ``f(m, C)`` (see :mod:`aucopt.modeling`).
    solver : ``"highs"`` (default), ``"osqp"``, ``"cvxpy"`` (Clarabel) or ``"cvxpy:<NAME>"``.
    solver_options : keyword options for the backend (time_limit, tolerances, …).
    tol : ranking vectors are the points with |coef_l| > tol · max(1, max|coef|).
    pos_label : the positive class (default: the larger label).
    lifted : sparse lifted LP (True) or the thesis's dense pair rows (False).
    max_bytes : refuse problems whose assembly would need more memory than this.

    Attributes
    ----------
    support_, ranking_vectors_, ranking_coef_ : ranking vectors and their y_l α_l.
    objective_ : optimal LP objective;  solve_result_ : the :class:`~aucopt.solvers.SolveResult`.
    threshold_ : the expansion value with the best training accuracy (seed 003 §1.6).
    intercept_ : ``decision_function`` is f(x) − threshold_ = Σ coef_l k(x, x_l) + intercept_
        (negated when ``pos_label`` is ``classes_[0]``, so that, as in scikit-learn, positive
        values favour ``classes_[1]``); ``predict`` is its sign. A constant shift leaves the
        ranking, the AUC and the pairwise loss unchanged.
    """

    def __init__(self, C=1.0, *, kernel="rbf", gamma="scale", degree=3, coef0=1.0,
                 formulation="lp_ranker", solver="highs", solver_options=None, tol=1e-8,
                 pos_label=None, lifted=True, max_bytes=DEFAULT_MAX_BYTES):
        super().__init__(C, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                         formulation=formulation, solver=solver, solver_options=solver_options,
                         tol=tol, lifted=lifted, max_bytes=max_bytes)
        self.pos_label = pos_label

    def _make_pairs(self, y, sample_weight):
        if is_survival_target(y):
            raise ValueError("LPRanker takes binary labels; use SurvivalLPRanker for (event, time) targets.")
        return PairSet.bipartite(y, pos_label=self.pos_label, point_weights=sample_weight)

    def fit(self, X, y, sample_weight=None):
        """Fit the ranker; returns self."""
        if y is not None and not is_survival_target(y):
            y = column_or_1d(y, warn=True)
        self._fit(X, y, sample_weight)
        self.classes_ = np.unique(y)
        self.pos_label_ = self.classes_[1] if self.pos_label is None else self.pos_label
        self.threshold_ = _best_accuracy_threshold(self._expansion(X), y == self.pos_label_)
        sign = 1.0 if self.pos_label_ == self.classes_[1] else -1.0
        self.intercept_ = -sign * self.threshold_
        return self

    def decision_function(self, X) -> np.ndarray:
        """Ranking score: f(x) − threshold_ for ``pos_label`` = ``classes_[1]``, its negative otherwise."""
        shifted = self._expansion(X) - self.threshold_
        return shifted if self.pos_label_ == self.classes_[1] else -shifted

    def predict(self, X) -> np.ndarray:
        """Class labels: ``classes_[1]`` where ``decision_function`` > 0."""
        check_is_fitted(self, "classes_")
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def score(self, X, y, sample_weight=None) -> float:
        """AUC of the ranking (ties ½, equal to ``sklearn.metrics.roc_auc_score``)."""
        return roc_auc(y, self._expansion(X), pos_label=self.pos_label_)


class SurvivalLPRanker(_KernelPairRanker):
    """LP Ranker for censored survival data (seed 003 Ch. V, eq. 5.3).

    The same LP as :class:`LPRanker` over Harrell's comparable pairs: (i, j) with an observed
    event for i and t_i < t_j, or t_i = t_j with j censored. y_l = +1 for events and −1 for
    censored subjects. Higher scores mean higher risk (earlier event).

    ``y`` is a structured array with a boolean event field and a float time field
    (scikit-survival's ``Surv.from_arrays`` or :func:`aucopt.survival_target`).
    Parameters and attributes as in :class:`LPRanker` (no ``pos_label`` / ``predict`` threshold).
    """

    def _make_pairs(self, y, sample_weight):
        if not is_survival_target(y):
            raise ValueError(
                "SurvivalLPRanker needs a survival target: a structured array with a boolean "
                "event and a float time field (aucopt.survival_target(event, time))."
            )
        return PairSet.survival(y, point_weights=sample_weight)

    def fit(self, X, y, sample_weight=None):
        """Fit the risk ranker; returns self."""
        return self._fit(X, y, sample_weight)

    def decision_function(self, X) -> np.ndarray:
        """Risk score f(x) = Σ_{l ∈ ranking vectors} coef_l k(x, x_l); higher = earlier event."""
        return self._expansion(X)

    def predict(self, X) -> np.ndarray:
        """Risk scores (higher = earlier event), as scikit-survival's ``predict``."""
        return self._expansion(X)

    def score(self, X, y, sample_weight=None) -> float:
        """Harrell's C of the risk scores (exact ties count ½; scikit-survival's
        ``concordance_index_censored`` with ``tied_tol=0``)."""
        return harrell_c(y, self._expansion(X))


def _best_accuracy_threshold(scores: np.ndarray, positive: np.ndarray) -> float:
    """Midpoint threshold τ maximizing the accuracy of ``f ≥ τ`` (seed 003 §1.6)."""
    order = np.argsort(scores, kind="mergesort")
    s, pos = scores[order], positive[order].astype(float)
    # predict + for indices ≥ k: correct = negatives below k + positives from k on
    neg_below = np.concatenate([[0.0], np.cumsum(1 - pos)])
    pos_from = np.concatenate([np.cumsum(pos[::-1])[::-1], [0.0]])
    ks = np.concatenate([[0], np.flatnonzero(np.diff(s) > 0) + 1, [len(s)]])  # cut between distinct values
    best = ks[np.argmax((neg_below + pos_from)[ks])]
    if best == 0:  # everything positive: a finite cut below the smallest score
        return float(s[0]) - 1.0
    if best == len(s):
        return float(s[-1]) + 1.0
    return 0.5 * (s[best - 1] + s[best])


def _dense(X) -> np.ndarray:
    return X.toarray() if hasattr(X, "toarray") else np.asarray(X, dtype=float)
