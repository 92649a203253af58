"""Sparse kernel AUC by greedy basis selection (Kakkar, Shevade, Sundararajan & Garg 2017).

Model f(x) = Σ_{q∈J} β_q k(x, x_q) over a greedily grown basis J (no bias). Objective, the
squared-hinge problem of Kakkar et al. (2017), Sec. 4:

    E(β_J) = ½ β_Jᵀ K_JJ β_J + (C/2) Σ_(i,j) w_ij max(0, 1 − (f_i − f_j))²,   f = K_{·J} β_J,

over bipartite (AUC) or survival pairs. Every pair sum goes through the sorted-pair core
(:mod:`aucopt.pairs.core`, whose squared hinge is ℓ(z) = max(0, 1 − z)², no ½): with L = Σ w_ij ℓ,

    E = ½βᵀK_JJβ + (C/2) L(K_{·J}β),   ∇E = K_JJβ + (C/2) K_{·J}ᵀc,   ∇²E v = K_JJ v + (C/2) K_{·J}ᵀQ(K_{·J}v),

in O(l(|J| + log l)) per evaluation; pairs are never listed and only the l × |J| block and the
l × κ candidate columns of the kernel are formed.

**Scaling mapping to** :func:`aucopt.svm.newton_solve`. Retraining solves, in the whitened
variable w (K_JJ = UΛUᵀ, β = T w with T = U Λ^{-1/2}, so βᵀK_JJβ = ‖w‖², as in RankRC),

    F(w) = (1/N) L(K_{·J} T w) + (α/2)‖w‖²   with   α = 2 / (C N),   N = Σ w_ij (= n₊n₋),

and then E(T w) = (C N / 2) · F(w) exactly. (Check: (CN/2)(1/N)L = (C/2)L and
(CN/2)(α/2)‖w‖² = ½‖w‖².) Eigenvalues of K_JJ below 1e-12·λ_max are dropped (their directions
leave f unchanged up to roundoff).

**Greedy step** (Kakkar et al. 2017, Algorithm 1 with Method 2 of Sec. 4.2): draw ``kappa``
candidates uniformly without replacement from the training points outside J (a fresh draw per
step; points duplicating a basis point are excluded), compute their kernel columns c, and with
β_J fixed minimize the convex piecewise quadratic φ(t) = E(β_J, β_q = t) exactly
(:func:`line_minimize`: safeguarded 1-D Newton from t = 0; b_q = K_{qJ}β_J = f_q, k_qq = c_q).
``selection="exact"`` ranks candidates by φ(t*) − φ(0); ``selection="newton1"`` by the one-step
predicted decrease g²/(2h) at t = 0 (all candidates in O(lκ)) and then minimizes φ exactly for
the winner only. The winner is added with β_q = t*, so E never increases. β_J is then
re-optimized by Newton (warm start) when ``retrain="always"`` or, for ``"schedule"`` (default),
when :func:`retrain_due`: |J| < 2, |J| = basis_size, or ⌊4 log2 |J|⌋ ≠ ⌊4 log2(|J|−1)⌋
(|J| ∈ {1..8, 10, 12, 14, 16, 20, 23, 27, 32, …}). A retrain result is accepted only if it does
not increase E.

**Stopping.** At ``basis_size`` (default min(l/2, 512), l = fitting points), when no candidate is
left, or — with ``validation_fraction > 0`` — by validation: that fraction of the rows (stratified
by class / event) is held out, the model is fitted on the rest, and at every retrain point the
validation AUC (Harrell's C for survival; ties ½) and the mean validation pair loss are
recorded. A check improves on the best earlier one when its score is higher by ``min_delta``, or
when the scores differ by less than ``min_delta`` and its validation loss is lower by the fraction
``min_delta`` (the loss breaks the ties of a saturated or coarse validation AUC). Fitting stops
when ``n_iter_no_change`` consecutive checks do not improve; the final model is the best check.
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Integral, Real
from typing import Any, ClassVar, Literal

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import _memory
from .._doc_parts import (
    BINARY_ATTRIBUTES_DOC,
    BINARY_PAIR_OPTIONS_DOC,
    FEATURE_ATTRIBUTES_DOC,
    SURVIVAL_IPCW_DOC,
    SURVIVAL_PAIR_OPTIONS_DOC,
)
from .._docstrings import fill_doc
from .._progress import progress_bar
from .._validation import Count, check_fit_scale, penalty_from_C
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
    non_negative,
    positive,
)
from ..exceptions import warn
from ..kernels import Kernel
from ..metrics import harrell_c, multipartite_c_index, roc_auc
from ..pairs import DEFAULT_MAX_BYTES, PairSet
from ..pairs.core import pair_line_derivatives, pair_loss, pair_loss_and_hessian
from ._newton import newton_solve

__all__ = ["SparseAUC", "SurvivalSparseAUC", "line_minimize", "retrain_due", "sparse_objective"]


def sparse_objective(KJ: np.ndarray, KJJ: np.ndarray, beta: ArrayLike, pairs: PairSet, C: float,
                     ) -> tuple[float, np.ndarray, Callable[[ArrayLike], np.ndarray]]:
    """Objective, gradient and Hessian product of the sparse kernel AUC problem.

    E(β) = ½ βᵀK_JJβ + (C/2) Σ w_ij max(0, 1 − (f_i − f_j))² with f = K_{·J}β, evaluated
    through the sorted-pair core in O(l(|J| + log l)) without listing the pairs.

    Parameters
    ----------
    KJ : ndarray of shape (n_points, n_basis)
        The kernel block K_{·J} between all points and the basis J.
    KJJ : ndarray of shape (n_basis, n_basis)
        Its rows J, K_JJ.
    beta : array-like of shape (n_basis,)
        The expansion coefficients β.
    pairs : PairSet
        The pairs (i, j) to rank f_i > f_j, with weights w_ij.
    C : float
        Weight of the pairwise loss.

    Returns
    -------
    E : float
        The objective at β.
    grad : ndarray of shape (n_basis,)
        ∇E = K_JJβ + (C/2) K_{·J}ᵀc, c = ∂L/∂f.
    hessp : callable
        v ↦ ∇²E v, the generalized Hessian product K_JJ v + (C/2) K_{·J}ᵀQ(K_{·J}v).

    See Also
    --------
    SparseAUC : The estimator that minimizes E over a greedily grown basis.

    References
    ----------
    .. [1] Kakkar, V., Shevade, S., Sundararajan, S., & Garg, D. (2017). A sparse non-linear
       classifier design using AUC optimization. *Proceedings of the 2017 SIAM International
       Conference on Data Mining*, 291–299.

    Examples
    --------
    At β = 0 every pair has loss 1, so E = (C/2) · n₊n₋:

    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.svm._sparse_greedy import sparse_objective
    >>> KJ = np.array([[1.0], [0.5], [0.2]])
    >>> E, grad, hessp = sparse_objective(KJ, KJ[:1], np.zeros(1), PairSet.bipartite([1, 0, 0]), C=1.0)
    >>> float(E), grad.round(2)
    (1.0, array([-1.3]))
    """
    beta = np.asarray(beta, dtype=float)
    L, c, H = pair_loss_and_hessian(pairs, KJ @ beta, "squared_hinge")
    KJJ_beta = KJJ @ beta
    E = 0.5 * float(beta @ KJJ_beta) + 0.5 * C * L
    grad = KJJ_beta + 0.5 * C * (KJ.T @ c)

    def hessp(v: ArrayLike) -> np.ndarray:
        v = np.asarray(v, dtype=float)
        return KJJ @ v + 0.5 * C * (KJ.T @ H.matvec(KJ @ v))

    return E, grad, hessp


def line_minimize(pairs: PairSet, z: ArrayLike, col: ArrayLike, b: float, kqq: float, C: float, *,
                  at0: tuple[float, float, float, float] | None = None, tol: float = 1e-10,
                  max_iter: int = 60) -> tuple[float, float, int]:
    """Exact minimizer of the one-coefficient subproblem of a greedy step.

    Minimizes φ(t) − φ(0) = t b + ½ k_qq t² + (C/2)[L(z + t c) − L(z)], the change of the
    objective when candidate q enters the basis with coefficient t (Kakkar et al. 2017,
    Sec. 4.2). φ is convex, C¹ and piecewise quadratic; safeguarded Newton from t = 0
    (bisection on the bracket where φ' changes sign) is exact once it lands in the optimal
    piece.

    Parameters
    ----------
    pairs : PairSet
        The pairs and their weights.
    z : array-like of shape (n_points,)
        The current scores f = K_{·J}β.
    col : array-like of shape (n_points,)
        The candidate's kernel column c = k(·, x_q).
    b : float
        K_{qJ}β, the candidate's current score f_q.
    kqq : float
        k(x_q, x_q).
    C : float
        Weight of the pairwise loss.
    at0 : tuple of 4 floats, default=None
        ``(L(z), φ'(0), φ''(0), scale(0))``: skips the evaluation at t = 0 (shared by all
        candidates of a step).
    tol : float, default=1e-10
        Stop when |φ'(t)| ≤ tol · (1 + |b| + k_qq|t| + (C/2)|c|ᵀ|∂L(z)|), ∂L(z) the loss
        gradient at t = 0.
    max_iter : int, default=60
        Maximum number of Newton / bisection steps.

    Returns
    -------
    t : float
        The minimizer t*.
    dE : float
        φ(t*) − φ(0) ≤ 0, the decrease of the objective.
    n_eval : int
        Number of sorted-pair evaluations.

    See Also
    --------
    SparseAUC : The estimator whose greedy step calls this function.

    References
    ----------
    .. [1] Kakkar, V., Shevade, S., Sundararajan, S., & Garg, D. (2017). A sparse non-linear
       classifier design using AUC optimization. *Proceedings of the 2017 SIAM International
       Conference on Data Mining*, 291–299.

    Examples
    --------
    One pair with scores 0 and a column that separates it: φ(t) − φ(0) = ½t² + ½(1 − t)² − ½,
    minimized at t = ½:

    >>> import numpy as np
    >>> from aucopt import PairSet
    >>> from aucopt.svm._sparse_greedy import line_minimize
    >>> t, dE, _ = line_minimize(PairSet.bipartite([1, 0]), np.zeros(2), np.array([1.0, 0.0]),
    ...                          b=0.0, kqq=1.0, C=1.0)
    >>> t, dE
    (0.5, -0.25)
    """
    z, col = np.asarray(z, float), np.asarray(col, float)
    lo, hi, t = -np.inf, np.inf, 0.0
    if at0 is None:
        L0, c0 = pair_loss(pairs, z, "squared_hinge")
        slope0, curv0 = pair_line_derivatives(pairs, z, col, "squared_hinge")[1:]
        at0 = (L0, b + 0.5 * C * slope0, kqq + 0.5 * C * curv0,
               1.0 + abs(b) + 0.5 * C * float(np.abs(col) @ np.abs(c0)))
        n_eval = 2
    else:
        n_eval = 0
    L0 = L = at0[0]
    scale0 = at0[3] - abs(b)  # 1 + (C/2)|c|ᵀ|∂L| at t = 0: the size of the loss term of φ'
    for it in range(max_iter):
        if it == 0:
            d1, d2, scale = at0[1], at0[2], at0[3]
        else:  # L, φ' and φ'' along the column in one sweep (no gradient vector, no Hessian state)
            L, slope, curv = pair_line_derivatives(pairs, z + t * col, col, "squared_hinge")
            n_eval += 1
            d1 = b + kqq * t + 0.5 * C * slope
            d2 = kqq + 0.5 * C * curv
            scale = scale0 + abs(b) + kqq * abs(t)
        if abs(d1) <= tol * scale:
            break
        if d1 < 0:
            lo = t
        else:
            hi = t
        if np.isfinite(lo) and np.isfinite(hi) and hi - lo <= 1e-15 * max(1.0, abs(lo), abs(hi)):
            break
        t_new = t - d1 / d2 if d2 > 0 else (np.inf if d1 < 0 else -np.inf)
        if not lo < t_new < hi:
            if not (np.isfinite(lo) and np.isfinite(hi)):
                break  # flat direction (d2 = 0): no finite minimizer to move to
            t_new = 0.5 * (lo + hi)
        t = t_new
    dE = t * b + 0.5 * kqq * t * t + 0.5 * C * (L - L0)
    if not dE <= 0.0:  # roundoff or a flat direction: t = 0 is always feasible
        return 0.0, 0.0, n_eval
    return float(t), float(dE), n_eval


def retrain_due(d: int, d_max: int, schedule: str = "schedule") -> bool:
    """Whether the basis coefficients are re-optimized when the basis reaches size d.

    With ``schedule="schedule"``: at d < 2, at d = d_max, and whenever ⌊4 log₂ d⌋ changes,
    i.e. on a geometric grid of ratio 2^{1/4} (d ∈ {1, …, 8, 10, 12, 14, 16, 20, 23, 27, 32, …}),
    so that retraining costs a constant factor over the greedy additions. ``"always"``: at
    every size.

    Parameters
    ----------
    d : int
        The basis size after an addition.
    d_max : int
        The final basis size.
    schedule : {"schedule", "always"}, default="schedule"
        The retraining rule.

    Returns
    -------
    due : bool

    See Also
    --------
    SparseAUC : Its ``retrain`` parameter selects the rule.

    Examples
    --------
    >>> from aucopt.svm._sparse_greedy import retrain_due
    >>> [d for d in range(1, 30) if retrain_due(d, 100)]
    [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 23, 27]
    """
    if schedule == "always" or d < 2 or d == d_max:
        return True
    return int(np.floor(4 * np.log2(d))) != int(np.floor(4 * np.log2(d - 1)))


def _improves(score: float, loss: float, best_score: float, best_loss: float, min_delta: float) -> bool:
    """Whether a validation check improves on the best earlier one.

    It does when its score (AUC, C-index) is higher by at least ``min_delta``, or when the
    scores differ by less than ``min_delta`` and its mean validation pair loss is lower by at
    least the fraction ``min_delta``. The loss breaks the ties of a score that no longer
    discriminates: on a small validation set the AUC is coarse (steps of 1 / pairs) and often
    reaches 1.0 with a handful of basis functions, while the margins, and the ranking of unseen
    data, still improve.
    """
    if score >= best_score + min_delta:
        return True
    return score > best_score - min_delta and loss < best_loss * (1.0 - min_delta)


_RandomState = int | np.random.RandomState | np.random.Generator | None


class _Basis:
    """The growing basis J: its kernel columns K_{·J}, coefficients β_J and training scores f = K_{·J}β_J.

    Rows that duplicate each other share a group, and a group enters the basis once.
    """

    def __init__(self, Xt: np.ndarray, d_max: int):
        self.groups = np.unique(Xt, axis=0, return_inverse=True)[1].ravel()  # duplicate rows share a group
        self.used = np.zeros(self.groups.max() + 1, dtype=bool)
        self.KJ = np.empty((len(Xt), d_max))
        self.J: list[int] = []
        self.beta = np.zeros(0)
        self.z = np.zeros(len(Xt))

    @property
    def size(self) -> int:
        return len(self.J)

    def free_rows(self) -> np.ndarray:
        """The fitting rows that no basis point duplicates."""
        return np.flatnonzero(~self.used[self.groups])

    def add(self, q: int, col: np.ndarray, t: float) -> None:
        """Row q enters with kernel column ``col`` and coefficient t."""
        self.KJ[:, self.size] = col
        self.J.append(q)
        self.used[self.groups[q]] = True
        self.beta = np.append(self.beta, t)
        self.z = self.z + t * col

    def blocks(self) -> tuple[np.ndarray, np.ndarray]:
        """K_{·J} and K_JJ."""
        d = self.size
        return self.KJ[:, :d], self.KJ[self.J, :d]


class _Validation:
    """The held-out rows: the validation score and mean pair loss of a model, and the best check so far."""

    def __init__(self, rows: np.ndarray, X: np.ndarray, y: Any, pairs: PairSet,
                 score: Callable[[Any, np.ndarray], float], min_delta: float, n_iter_no_change: int):
        self.rows, self.X, self.y, self.pairs, self.score = rows, X, y, pairs, score
        self.min_delta, self.n_iter_no_change = min_delta, n_iter_no_change
        self.best: tuple[float, float, int, np.ndarray, float] | None = None  # (score, loss, size, beta, E)
        self.since_best = 0

    def evaluate(self, kernel: Kernel, basis_points: np.ndarray, beta: np.ndarray) -> tuple[float, float]:
        """Validation score (AUC, C-index) and mean squared-hinge loss per validation pair."""
        s = kernel(self.X, basis_points) @ beta
        loss = pair_loss(self.pairs, s, "squared_hinge")[0] / self.pairs.total_weight()
        # The pair core sums moments (h² W₀ + 2h W₁ + W₂ per anchor), so a loss of 0 comes back as
        # rounding noise of either sign; were it kept, noise would "improve" on noise and the basis
        # would keep growing. Below the worst-case rounding error of those sums the loss is 0.
        noise = len(s) * np.finfo(float).eps * (1.0 + 2.0 * float(np.abs(s).max(initial=0.0))) ** 2
        return float(self.score(self.y, s)), (loss if loss > noise else 0.0)

    def should_stop(self, score: float, loss: float, size: int, beta: np.ndarray, E: float) -> bool:
        """Record a check; True when ``n_iter_no_change`` consecutive checks have not improved."""
        if self.best is None or _improves(score, loss, self.best[0], self.best[1], self.min_delta):
            self.best, self.since_best = (score, loss, size, beta.copy(), E), 0
            return False
        self.since_best += 1
        return self.since_best >= self.n_iter_no_change


class _SparseGreedy(BaseEstimator):
    """Shared parameters and fit of the greedy sparse kernel AUC rankers."""

    _parameter_constraints: ClassVar[dict] = {
        "C": [positive()],
        "basis_size": [Count(Integral, 1, None, closed="left"), None],
        "kappa": [Count(Integral, 1, None, closed="left")],
        "selection": [StrOptions({"exact", "newton1"})],
        "retrain": [StrOptions({"schedule", "always"})],
        "validation_fraction": [Interval(Real, 0, 1, closed="left")],
        "n_iter_no_change": [Count(Integral, 1, None, closed="left")],
        "min_delta": [non_negative()],
        **KERNEL_CONSTRAINTS,
        "kernel": [StrOptions({"linear", "rbf", "poly"}), callable],  # evaluates its own kernel columns
        "tol": [positive()],
        "max_iter": [Count(Integral, 1, None, closed="left")],
        **VERBOSE_CONSTRAINT,
        **RANDOM_STATE_CONSTRAINT,
        **MAX_BYTES_CONSTRAINT,
        **PAIR_OPTIONS_CONSTRAINT,
    }

    def __init__(self, C: float = 1.0, *, basis_size: int | None = None, kappa: int = 100,
                 selection: Literal["exact", "newton1"] = "exact", retrain: Literal["schedule", "always"] = "schedule",
                 validation_fraction: float = 0.2, n_iter_no_change: int = 3, min_delta: float = 1e-3,
                 kernel: str | Callable[..., Any] = "rbf", gamma: str | float = "sigma2", degree: int = 3,
                 coef0: float = 1.0, tol: float = 1e-8, max_iter: int = 100, verbose: int = 0,
                 random_state: _RandomState = 0, max_bytes: float | None = DEFAULT_MAX_BYTES,
                 pair_options: dict[str, Any] | None = None):
        self.C = C
        self.basis_size = basis_size
        self.kappa = kappa
        self.selection = selection
        self.retrain = retrain
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.min_delta = min_delta
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter
        self.verbose = verbose
        self.random_state = random_state
        self.max_bytes = max_bytes
        self.pair_options = pair_options

    def _split(self, pairs: PairSet, m: int) -> tuple[np.ndarray, np.ndarray | None]:
        """Stratified (class / event / ordinal level) split into fitting and validation rows."""
        if self.validation_fraction == 0:
            return np.arange(m), None
        rng = as_generator(self.random_state)
        val = []
        if pairs.target == "multipartite":  # one stratum per level, highest first
            assert pairs.labels is not None  # multipartite pairs keep their labels
            strata = [np.flatnonzero(pairs.labels == level) for level in np.unique(pairs.labels)[::-1]]
        else:
            strata = [np.flatnonzero(pairs.signs > 0), np.flatnonzero(pairs.signs <= 0)]
        for members in strata:
            k = int(round(self.validation_fraction * len(members)))
            k = min(max(k, 1), len(members) - 1)
            if k < 1:
                raise ValueError(
                    "validation_fraction > 0 needs at least 2 samples of each class (of events and "
                    "of non-events for survival, of each level for ordinal labels); use validation_fraction=0.")
            val.append(rng.choice(members, k, replace=False))
        va = np.sort(np.concatenate(val))
        return np.setdiff1d(np.arange(m), va), va

    def _val_score(self, y: Any, scores: np.ndarray) -> float:
        if self._is_survival:
            return harrell_c(y, scores)
        if self._pair_target_options()[0] == "multipartite":
            return multipartite_c_index(y, scores, levels=self._pair_target_options()[1].get("levels"))
        return roc_auc(y, scores, pos_label=self.pos_label)

    # ------------------------------------------------------------------ fit
    def _fit(self, X: Any, y: Any, sample_weight: ArrayLike | None = None) -> _SparseGreedy:
        """Check the data, grow the basis on the fitting rows and keep the final (or best validated) model."""
        X, tr, pairs, validation = self._fitting_data(X, y, sample_weight)
        Xt, n_fit = X[tr], len(tr)
        d_max = self._basis_limit(n_fit)
        self.kernel_ = kernel = Kernel.from_params(self.kernel, self.gamma, self.degree, self.coef0, X=Xt)
        basis, E, path, stop_reason = self._grow(Xt, pairs, kernel, d_max, validation)
        self._warn_if_capped(validation is not None and basis.size >= d_max and stop_reason != "validation", d_max)
        J, beta = basis.J, basis.beta
        self.val_score_ = None
        if validation is not None and validation.best is not None:  # the best validated checkpoint
            self.val_score_, _, size, beta, E = validation.best
            J = J[:size]
        self.support_ = tr[np.asarray(J, dtype=np.int64)]
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = beta
        self.objective_ = float(E)
        self.path_ = path
        self.n_iter_ = len(path)
        self.stop_reason_ = stop_reason
        self.train_indices_ = tr
        self.validation_indices_ = None if validation is None else validation.rows
        self.n_pairs_ = pairs.n_pairs
        self.pair_target_ = pairs.target
        return self

    def _fitting_data(self, X: Any, y: Any, sample_weight: ArrayLike | None,
                      ) -> tuple[np.ndarray, np.ndarray, PairSet, _Validation | None]:
        """The checked data, the fitting rows, their pairs and the validation rows (None without)."""
        self._validate_params()
        X = validate_data(self, X, dtype=np.float64, reset=True)
        check_fit_scale(self, X, sample_weight)
        m = X.shape[0]
        full = self._make_pairs(y, sample_weight)
        if full.n_points != m:
            raise ValueError(f"X has {m} samples but the target has {full.n_points}.")
        full.check_nonempty()
        self._is_survival = full.target == "survival"
        tr, va = self._split(full, m)
        sw = None if sample_weight is None else np.asarray(sample_weight, float)
        pairs = full if va is None else self._make_pairs(y[tr], None if sw is None else sw[tr], rows=tr)
        pairs.check_nonempty()
        N = pairs.total_weight()
        if not N > 0:
            raise ValueError(
                "All pair weights are zero: sample_weight leaves no pair with positive weight among the "
                "fitting rows (e.g. only one class, or no event, has nonzero weight).")
        penalty_from_C(self.C, N)  # the inner Newton penalty 2/(C N) must be a positive float
        if va is None:
            return X, tr, pairs, None
        val_pairs = self._make_pairs(y[va], None, rows=va)
        if val_pairs.n_pairs == 0:
            raise ValueError("The validation rows have no comparable pair; lower validation_fraction or use 0.")
        return X, tr, pairs, _Validation(va, X[va], y[va], val_pairs, self._val_score, self.min_delta,
                                         self.n_iter_no_change)

    def _basis_limit(self, n_fit: int) -> int:
        """The final basis size (``basis_size``, or min(l/2, 512)), its kernel columns checked against ``max_bytes``."""
        d_max = min(max(1, n_fit // 2), 512) if self.basis_size is None else self.basis_size
        if d_max > n_fit:
            raise ValueError(f"basis_size={self.basis_size} exceeds the {n_fit} fitting rows "
                             "(the training rows outside the validation split).")
        n_cand = min(self.kappa, n_fit)
        _memory.refuse(_memory.sparse_auc_bytes(n_fit, d_max, n_cand), self.max_bytes,
                       f"The {n_fit:,} x {d_max:,} kernel block plus {n_cand} candidate columns and their temporaries",
                       lambda: _memory.sparse_auc_routes(type(self).__name__, n_fit, n_cand,
                                                         survival=self._is_survival, max_bytes=self.max_bytes))
        return d_max

    def _grow(self, Xt: np.ndarray, pairs: PairSet, kernel: Kernel, d_max: int, validation: _Validation | None,
              ) -> tuple[_Basis, float, list[dict], str]:
        """The greedy loop: add the best of ``kappa`` random candidates, re-optimize on schedule, validate.

        Returns the basis, its objective E, the path and the stop reason.
        """
        C, N, rng = float(self.C), pairs.total_weight(), as_generator(self.random_state)
        basis = _Basis(Xt, d_max)
        E = 0.5 * C * pair_loss(pairs, basis.z, "squared_hinge")[0]
        path: list[dict] = []
        self.n_retrains_ = self._newton_capped = 0
        stop_reason = "basis_size"
        bar = progress_bar(bool(self.verbose), total=d_max, desc=type(self).__name__, unit="basis")
        while basis.size < d_max:
            free = basis.free_rows()
            if free.size == 0:
                stop_reason = "no_candidates"
                break
            cand = rng.choice(free, min(self.kappa, free.size), replace=False)
            Kc = kernel(Xt, Xt[cand])
            a, t, dE = self._best_candidate(pairs, basis.z, Kc, cand, C)
            basis.add(int(cand[a]), Kc[:, a], t)
            E += dE
            retrained = retrain_due(basis.size, d_max, self.retrain)
            if retrained:
                basis.beta, E = self._retrain(*basis.blocks(), basis.beta, pairs, C, N)
                basis.z = basis.blocks()[0] @ basis.beta
            rec = {"n_basis": basis.size, "objective": E, "val_score": None, "val_loss": None,
                   "retrained": retrained, "added": basis.J[-1]}
            path.append(rec)
            if bar is not None:
                bar.update(1)
                bar.set_postfix(E=f"{E:.6g}")
            if retrained and validation is not None:
                score, loss = validation.evaluate(kernel, Xt[basis.J], basis.beta)
                rec["val_score"], rec["val_loss"] = score, loss
                if validation.should_stop(score, loss, basis.size, basis.beta, E):
                    stop_reason = "validation"
                    break
        if bar is not None:
            bar.close()
        return basis, E, path, stop_reason

    def _best_candidate(self, pairs: PairSet, z: np.ndarray, Kc: np.ndarray, cand: np.ndarray, C: float,
                        ) -> tuple[int, float, float]:
        """The candidate to add (its column of ``Kc``), its coefficient t* and the decrease of E.

        The loss state at t = 0 (φ'(0), φ''(0) of every candidate) is shared by all candidates;
        ``selection="exact"`` minimizes φ for each, ``"newton1"`` for the best predicted one only.
        """
        kqq = Kc[cand, np.arange(len(cand))]
        L0, c0, H = pair_loss_and_hessian(pairs, z, "squared_hinge")  # shared state at t = 0
        g = z[cand] + 0.5 * C * (Kc.T @ c0)  # φ'(0) per candidate (b_q = K_qJ β_J = f_q)
        h = kqq + 0.5 * C * np.einsum("ia,ia->a", Kc, H.matmat(Kc))  # φ''(0) per candidate
        if self.selection == "exact":
            sc = 1.0 + np.abs(z[cand]) + 0.5 * C * (np.abs(Kc).T @ np.abs(c0))
            res = [line_minimize(pairs, z, Kc[:, a], z[q], kqq[a], C, at0=(L0, g[a], h[a], sc[a]))
                   for a, q in enumerate(cand)]
            a = int(np.argmin([r[1] for r in res]))
            return a, res[a][0], res[a][1]
        # one Newton step from t = 0: predicted decrease g²/(2h), then exact for the winner
        pred = np.where(h > 0, -0.5 * g * g / np.maximum(h, 1e-300), 0.0)
        a = int(np.argmin(pred))
        scale = 1.0 + abs(z[cand[a]]) + 0.5 * C * float(np.abs(Kc[:, a]) @ np.abs(c0))
        t, dE, _ = line_minimize(pairs, z, Kc[:, a], z[cand[a]], kqq[a], C, at0=(L0, g[a], h[a], scale))
        return a, t, dE

    def _warn_if_capped(self, basis_capped: bool, d_max: int) -> None:
        """ConvergenceWarning when a limit, not the stopping rule, ended the fit."""
        name = type(self).__name__
        if basis_capped:
            warn(
                f"{name} reached the basis size limit basis_size={d_max} before its validation stopping rule "
                f"held (n_iter_no_change={self.n_iter_no_change} checks without an improvement by min_delta="
                f"{self.min_delta}): the validation score was still improving and a larger basis may rank "
                "better. Raise basis_size.",
                ConvergenceWarning)
        if self._newton_capped:
            warn(
                f"{name}: {self._newton_capped} of {self.n_retrains_} Newton re-optimizations of the basis "
                f"coefficients stopped at max_iter={self.max_iter} before reaching tol={self.tol}. Raise max_iter.",
                ConvergenceWarning)
        del self._newton_capped

    def _retrain(self, KJ: np.ndarray, KJJ: np.ndarray, beta: np.ndarray, pairs: PairSet, C: float, N: float,
                 ) -> tuple[np.ndarray, float]:
        """Newton on β_J in the whitened variable (α = 2/(CN), E = (CN/2)·F); never increases E."""
        E_old = sparse_objective(KJ, KJJ, beta, pairs, C)[0]
        eigval, eigvec = np.linalg.eigh(0.5 * (KJJ + KJJ.T))
        keep = eigval > 1e-12 * max(float(eigval[-1]), 0.0)
        if not np.any(keep):
            return beta, E_old
        root = np.sqrt(eigval[keep])
        T = eigvec[:, keep] / root
        theta0 = root * (eigvec[:, keep].T @ beta)
        res = newton_solve(KJ @ T, pairs, 2.0 / (C * N), loss="squared_hinge", theta0=theta0,
                           tol=self.tol, max_iter=self.max_iter, max_cg_iter=50, cg_rtol=1e-2)
        self.n_retrains_ += 1
        self._newton_capped += not res.converged
        beta_new = T @ res.theta
        E_new = sparse_objective(KJ, KJJ, beta_new, pairs, C)[0]
        return (beta_new, E_new) if E_new <= E_old else (beta, E_old)

    def _expansion(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.kernel_(X, self.support_vectors_) @ self.dual_coef_


#: docstring parts shared by SparseAUC and SurvivalSparseAUC (see :func:`aucopt._docstrings.fill_doc`)
_DOC = dict(
    basis_parameters="""
        C : float, default=1.0
            Weight of the pairwise loss (> 0) in E = ½βᵀK_JJβ + (C/2) Σ w_ij max(0, 1 − f_i + f_j)².
            The loss is not normalized, so good values shrink roughly like 1 / (number of pairs).
        basis_size : int, default=None
            Maximum number of basis vectors ``|J|``, at most the number of fitting rows; None means
            min(l/2, 512) for l fitting rows. Validation stopping may end with fewer; reaching
            ``basis_size`` before the validation rule holds issues a ``ConvergenceWarning``.
        kappa : int, default=100
            Random candidates examined per addition (the paper's κ).
        selection : {"exact", "newton1"}, default="exact"
            How candidates are ranked: ``"exact"`` minimizes the one-coefficient subproblem of
            each candidate (Kakkar et al. 2017, Sec. 4.2, Method 2); ``"newton1"`` ranks them by
            the decrease predicted by one Newton step and minimizes exactly for the winner only.
        retrain : {"schedule", "always"}, default="schedule"
            When all coefficients are re-optimized: at basis sizes {1, …, 8, 10, 12, 14, 16, 20,
            23, 27, 32, …} and at ``basis_size`` (see :func:`retrain_due`), or after every addition.""",
    kernel_parameters="""
        kernel : {"rbf", "linear", "poly"} or callable, default="rbf"
            The kernel; a callable ``k(A, B)`` returns the (len(A), len(B)) kernel matrix.
        gamma : {"sigma2", "scale", "auto"} or float, default="sigma2"
            Kernel coefficient of ``"rbf"`` and ``"poly"``: ``"sigma2"`` is 1/σ² with σ² the mean
            pairwise squared distance of the fitting rows; the paper's exp(−‖x − x'‖²/(2σ²)) is
            ``gamma=1/(2σ²)``.
        degree : int, default=3
            Degree of the ``"poly"`` kernel.
        coef0 : float, default=1.0
            Independent term of the ``"poly"`` kernel.
        tol : float, default=1e-8
            Stopping tolerance of the Newton re-optimization (on the normalized objective, see
            :func:`aucopt.svm.newton_solve`).
        max_iter : int, default=100
            Maximum number of Newton iterations per re-optimization; a re-optimization stopped by
            it before ``tol`` holds issues a ``ConvergenceWarning``.
        verbose : int, default=0
            0 silent; ≥ 1 shows a progress bar of the basis growth.
        random_state : int, RandomState instance, numpy.random.Generator or None, default=0
            Seed of the validation split and of the candidate draws.
        max_bytes : float or None, default=2147483648
            Memory budget in bytes (2 GiB) of the kernel columns (8 · l · (basis_size + kappa)
            bytes): larger problems raise :class:`~aucopt.ProblemTooLargeError` before any kernel
            evaluation. None: no limit.""",
    basis_attributes="""
        support_ : ndarray of shape (n_basis,)
            Row indices of the basis J in the training data, in order of addition.
        support_vectors_ : ndarray of shape (n_basis, n_features)
            The basis points.
        dual_coef_ : ndarray of shape (n_basis,)
            The expansion coefficients β_J.
        kernel_ : Kernel
            The kernel with its resolved ``gamma``.
        objective_ : float
            E of the returned model on the fitting rows.""",
    growth_attributes="""
        path_ : list of dict
            One record per addition: ``n_basis``, ``objective`` (E after the addition and any
            re-optimization; non-increasing), ``val_score`` and ``val_loss`` (the validation score
            of ``val_score_`` and the mean squared-hinge loss per validation pair, 0 below the
            rounding error of its sums, at validated re-optimization points, else None),
            ``retrained``, ``added`` (the row index among the fitting rows).
        n_iter_ : int
            Number of greedy additions performed (``len(path_)``).
        stop_reason_ : {"basis_size", "validation", "no_candidates"}
            What ended the greedy loop: the basis reached ``basis_size``; the validation rule held
            (``n_iter_no_change`` checks without an improvement); or every distinct fitting
            row was already in the basis.
        n_retrains_ : int
            Number of Newton re-optimizations.
        train_indices_, validation_indices_ : ndarray
            The fitting and validation rows (``validation_indices_`` is None without validation).
        n_pairs_ : int
            Number of pairs among the fitting rows.""",
    reference_kakkar="""
        .. [1] Kakkar, V., Shevade, S., Sundararajan, S., & Garg, D. (2017). A sparse non-linear
           classifier design using AUC optimization. *Proceedings of the 2017 SIAM International
           Conference on Data Mining*, 291–299.""",
    binary_pair_options=BINARY_PAIR_OPTIONS_DOC,
    binary_attributes=BINARY_ATTRIBUTES_DOC,
    survival_pair_options=SURVIVAL_PAIR_OPTIONS_DOC,
    survival_ipcw=SURVIVAL_IPCW_DOC,
    feature_attributes=FEATURE_ATTRIBUTES_DOC,
)


@fill_doc(**_DOC)
class SparseAUC(BinaryRankerMixin, _SparseGreedy):
    """Sparse non-linear AUC ranker: a greedily grown kernel basis with a squared-hinge pair loss.

    Grows the expansion f(x) = Σ_{q∈J} β_q k(x, x_q) one training point at a time, choosing
    among random candidates the one that decreases the objective most, and re-optimizes the
    coefficients on a geometric schedule (Kakkar et al. 2017). Prediction costs ``O(|J| · d)`` per
    row; the pairs are never listed.

    Parameters
    ----------
    {{basis_parameters}}
    validation_fraction : float, default=0.2
        Fraction of the rows (stratified by class) held out for early stopping, in [0, 1);
        0 disables validation and grows the basis to ``basis_size``.
    n_iter_no_change : int, default=3
        Stop when this many consecutive validation checks fail to improve on the best earlier
        check: a higher validation AUC by ``min_delta``, or an AUC within ``min_delta`` and a
        mean validation pair loss lower by the fraction ``min_delta``. The returned model is the
        best check.
    min_delta : float, default=1e-3
        Minimum improvement of the validation AUC (and relative improvement of the validation
        loss at an equal AUC) that counts as a change.
    {{kernel_parameters}}
    pos_label : int, float, bool or str, default=None
        The positive class; None means the larger of the two labels.
    pair_options : dict, default=None
        {{binary_pair_options}}
        The validation split is then stratified by level, and ``val_score_`` is the C-index.

    Attributes
    ----------
    {{basis_attributes}}
    val_score_ : float or None
        Validation AUC of the returned model (None without validation).
    {{growth_attributes}}
    {{binary_attributes}}
    {{feature_attributes}}

    See Also
    --------
    SurvivalSparseAUC : The same model over comparable pairs of survival data.
    RankRC : Kernel ranking SVM on a fixed basis (e.g. the rare class).
    AUCSVM : The exact kernel pairwise SVM (a QP over all pairs).

    Notes
    -----
    With N = Σ w_ij (n₊n₋ without weights), E(β) = (C N / 2) · F_α(β) for the objective
    F_α of :class:`RankRC` with ``loss="squared_hinge"`` on the basis J and α = 2/(C N), so a
    RankRC on ``support_`` with that ``alpha`` re-optimizes the same problem. See
    :mod:`aucopt.svm._sparse_greedy` for the greedy step and the stopping rules.

    References
    ----------
    {{reference_kakkar}}
    .. [2] Chapelle, O., & Keerthi, S. S. (2010). Efficient algorithms for ranking with SVMs.
       *Information Retrieval*, 13(3), 201–215.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from aucopt import SparseAUC
    >>> X, y = make_classification(n_samples=80, n_features=5, random_state=0)
    >>> model = SparseAUC(C=0.05, basis_size=8, kappa=20, validation_fraction=0).fit(X, y)
    >>> model.support_vectors_.shape, bool(model.score(X, y) > 0.9)
    ((8, 5), True)
    """

    _parameter_constraints: ClassVar[dict] = {**_SparseGreedy._parameter_constraints, **POS_LABEL_CONSTRAINT}

    def __init__(self, C: float = 1.0, *, basis_size: int | None = None, kappa: int = 100,
                 selection: Literal["exact", "newton1"] = "exact", retrain: Literal["schedule", "always"] = "schedule",
                 validation_fraction: float = 0.2, n_iter_no_change: int = 3, min_delta: float = 1e-3,
                 kernel: str | Callable[..., Any] = "rbf", gamma: str | float = "sigma2", degree: int = 3,
                 coef0: float = 1.0, tol: float = 1e-8, max_iter: int = 100, verbose: int = 0,
                 random_state: _RandomState = 0, max_bytes: float | None = DEFAULT_MAX_BYTES,
                 pos_label: int | float | bool | str | None = None, pair_options: dict[str, Any] | None = None):
        super().__init__(C, basis_size=basis_size, kappa=kappa, selection=selection, retrain=retrain,
                         validation_fraction=validation_fraction, n_iter_no_change=n_iter_no_change,
                         min_delta=min_delta, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                         tol=tol, max_iter=max_iter, verbose=verbose, random_state=random_state,
                         max_bytes=max_bytes, pair_options=pair_options)
        self.pos_label = pos_label


@fill_doc(**_DOC)
class SurvivalSparseAUC(SurvivalRankerMixin, _SparseGreedy):
    """Sparse kernel survival ranker over comparable pairs with a greedily grown basis.

    The risk score f(x) = Σ_{q∈J} β_q k(x, x_q) (higher = earlier event) minimizes the
    squared-hinge objective of :class:`SparseAUC` over Harrell's comparable pairs or the
    variant chosen by ``pair_options``; ``score`` is Harrell's C (tied risks count ½).

    Parameters
    ----------
    {{basis_parameters}}
    validation_fraction : float, default=0.2
        Fraction of the rows (stratified by event) held out for early stopping on Harrell's C,
        in [0, 1); 0 disables validation and grows the basis to ``basis_size``.
    n_iter_no_change : int, default=3
        Stop when this many consecutive validation checks fail to improve on the best earlier
        check (see :class:`SparseAUC`, with Harrell's C for the AUC).
    min_delta : float, default=1e-3
        Minimum improvement of the validation C-index (and relative improvement of the
        validation loss at an equal C-index) that counts as a change.
    {{kernel_parameters}}
    pair_options : dict, default=None
        {{survival_pair_options}}
        User pair weights refer to the rows of the ``X`` given to ``fit``: an array aligned with
        the pairs of all those rows (``PairSet.survival(y, variant=...).to_arrays()`` order), or a
        callable ``weights(i, j, t_i, t_j, e_i, e_j)`` receiving their row indices. The fit uses
        the pairs among the fitting rows (the rows outside the validation split, with nonzero
        ``sample_weight``), each with its own weight; ``time_scale=None`` is the median time gap
        of those pairs.
        {{survival_ipcw}}

    Attributes
    ----------
    {{basis_attributes}}
    val_score_ : float or None
        Validation C-index of the returned model (None without validation).
    {{growth_attributes}}
    pair_target_ : str
        ``"survival"``.
    {{feature_attributes}}

    See Also
    --------
    SparseAUC : The same model for binary labels.
    SurvivalRankRC : Kernel survival ranker on a fixed basis (the subjects with events).

    References
    ----------
    {{reference_kakkar}}
    .. [2] Harrell, F. E., Califf, R. M., Pryor, D. B., Lee, K. L., & Rosati, R. A. (1982).
       Evaluating the yield of medical tests. *JAMA*, 247(18), 2543–2546.

    Examples
    --------
    >>> import numpy as np
    >>> from aucopt import SurvivalSparseAUC, survival_target
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 3))
    >>> time = rng.exponential(np.exp(-X[:, 0]))
    >>> y = survival_target(rng.random(80) < 0.7, time)
    >>> model = SurvivalSparseAUC(C=0.05, basis_size=8, kappa=20, validation_fraction=0).fit(X, y)
    >>> len(model.support_), bool(model.score(X, y) > 0.7)
    (8, True)
    """
