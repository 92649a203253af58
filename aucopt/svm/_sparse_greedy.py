"""Sparse kernel AUC by greedy basis selection (Kakkar, Shevade, Sundararajan, Garg; seed 000).

Model f(x) = Σ_{q∈J} β_q k(x, x_q) over a greedily grown basis J (no bias). Objective, the
corrected problem (4.5) (squared hinge, seed 000 §1, pitfall P1):

    E(β_J) = ½ β_Jᵀ K_JJ β_J + (C/2) Σ_(i,j) w_ij max(0, 1 − (f_i − f_j))²,   f = K_{·J} β_J,

over bipartite (AUC) or Harrell's survival pairs. Every pair sum goes through the sorted-pair core
(:mod:`aucopt.paircore`, whose squared hinge is ℓ(z) = max(0, 1 − z)², no ½): with L = Σ w_ij ℓ,

    E = ½βᵀK_JJβ + (C/2) L(K_{·J}β),   ∇E = K_JJβ + (C/2) K_{·J}ᵀc,   ∇²E v = K_JJ v + (C/2) K_{·J}ᵀQ(K_{·J}v),

in O(l(|J| + log l)) per evaluation; pairs are never listed and only the l × |J| block and the
l × κ candidate columns of the kernel are formed.

**Scaling mapping to** :func:`aucopt.newton.newton_solve`. Retraining solves, in the whitened
variable w (K_JJ = UΛUᵀ, β = T w with T = U Λ^{-1/2}, so βᵀK_JJβ = ‖w‖², as in RankRC),

    F(w) = (1/N) L(K_{·J} T w) + (λ/2)‖w‖²   with   λ = 2 / (C N),   N = Σ w_ij (= p·n),

and then E(T w) = (C N / 2) · F(w) exactly. (Check: (CN/2)(1/N)L = (C/2)L and
(CN/2)(λ/2)‖w‖² = ½‖w‖².) Eigenvalues of K_JJ below 1e-12·λ_max are dropped (their directions
leave f unchanged up to roundoff).

**Greedy step** (paper Alg. 1, Method 2 of §4.2): draw ``kappa`` candidates uniformly without
replacement from the training points outside J (a fresh draw per step, points duplicating a
basis point are excluded, P14), compute their kernel columns c, and with β_J fixed minimize the
convex piecewise quadratic φ(t) = E(β_J, β_q = t) exactly (:func:`line_minimize`: safeguarded
1-D Newton from t = 0; b_q = K_{qJ}β_J = f_q, k_qq = c_q). ``selection="exact"`` ranks candidates by
φ(t*) − φ(0); ``selection="newton1"`` by the one-step predicted decrease g²/(2h) at t = 0 (Chapelle's
variant, all candidates in O(lκ)) and then minimizes φ exactly for the winner only. The winner is
added with β_q = t*, so E never increases. β_J is then re-optimized by Newton (warm start) when
``retrain="always"`` or, for ``"schedule"`` (default), when ``retrain_due(|J|)``: |J| < 2,
|J| = max_basis, or ⌊4 log2 |J|⌋ ≠ ⌊4 log2(|J|−1)⌋ (|J| ∈ {1..8, 10, 12, 14, 16, 20, 23, 27, 32,
…}, seed 000 §3.4). A retrain result is accepted only if it does not increase E.

**Stopping.** At ``max_basis`` (default min(l/2, 512), l = fitting points), when no candidate is
left, or — with ``validation_fraction > 0`` — by validation: that fraction of the rows (stratified
by class / event) is held out, the model is fitted on the rest, and at every retrain point the
validation AUC (Harrell's C for survival; ties ½) is recorded. Fitting stops when ``patience``
consecutive checks fail to beat the best earlier check by ``min_delta``; the final model is the
checkpoint with the best validation score (the smallest basis among equal scores).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, validate_data

from .._validation import format_bytes
from ..base import PAIR_OPTIONS_DOC, BinaryRankerMixin, SurvivalRankerMixin
from ..kernels import Kernel
from ..metrics import harrell_c, roc_auc
from ._newton import newton_solve
from ..pairs.core import pair_loss, pair_loss_and_hessian
from ..pairs import DEFAULT_MAX_BYTES, PairSet

__all__ = ["SparseAUC", "SurvivalSparseAUC", "sparse_objective", "line_minimize", "retrain_due"]


def sparse_objective(KJ, KJJ, beta, pairs: PairSet, C: float):
    """``(E, grad, hessp)`` of E(β) at β; ``hessp(v)`` is the generalized Hessian product.

    ``KJ`` is the l × |J| kernel block, ``KJJ`` its rows J. Cost O(l(|J| + log l)).
    """
    beta = np.asarray(beta, dtype=float)
    L, c, H = pair_loss_and_hessian(pairs, KJ @ beta, "squared_hinge")
    KJJ_beta = KJJ @ beta
    E = 0.5 * float(beta @ KJJ_beta) + 0.5 * C * L
    grad = KJJ_beta + 0.5 * C * (KJ.T @ c)

    def hessp(v):
        v = np.asarray(v, dtype=float)
        return KJJ @ v + 0.5 * C * (KJ.T @ H.matvec(KJ @ v))

    return E, grad, hessp


def line_minimize(pairs: PairSet, z, col, b: float, kqq: float, C: float, *, at0=None, tol=1e-10,
                  max_iter=60):
    """Exact minimizer of the 1-D problem φ(t) − φ(0) = t b + ½ k_qq t² + (C/2)[L(z + t c) − L(z)].

    φ is convex, C¹ and piecewise quadratic; safeguarded Newton from t = 0 (bisection on the
    bracket where φ' changes sign) is exact once it lands in the optimal piece. Stops when
    |φ'| ≤ tol·(1 + |b| + k_qq|t| + (C/2)|c|ᵀ|∂L|). ``at0 = (L(z), φ'(0), φ''(0), scale(0))``
    skips the evaluation at t = 0 (shared by all candidates). Returns
    ``(t*, dE ≤ 0, pair-core evaluations)``.
    """
    z, col = np.asarray(z, float), np.asarray(col, float)
    lo, hi, t = -np.inf, np.inf, 0.0
    L0 = L = None if at0 is None else at0[0]
    n_eval = 0
    for it in range(max_iter):
        if it == 0 and at0 is not None:
            d1, d2, scale = at0[1], at0[2], at0[3]
        else:
            L, c, H = pair_loss_and_hessian(pairs, z + t * col, "squared_hinge")
            n_eval += 1
            L0 = L if L0 is None else L0
            d1 = b + kqq * t + 0.5 * C * float(col @ c)
            scale = 1.0 + abs(b) + kqq * abs(t) + 0.5 * C * float(np.abs(col) @ np.abs(c))
            d2 = None
        if abs(d1) <= tol * scale:
            break
        if d2 is None:
            d2 = kqq + 0.5 * C * float(col @ H.matvec(col))
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
    """Whether β_J is re-optimized at basis size d (seed 000 §3.4, base 2^{1/4})."""
    if schedule == "always" or d < 2 or d == d_max:
        return True
    return int(np.floor(4 * np.log2(d))) != int(np.floor(4 * np.log2(d - 1)))


class _SparseGreedy(BaseEstimator):
    """Shared parameters and fit of the greedy sparse kernel AUC rankers."""

    def __init__(self, C=1.0, *, max_basis=None, kappa=100, selection="exact", retrain="schedule",
                 validation_fraction=0.2, patience=3, min_delta=1e-3, kernel="rbf", gamma="sigma2",
                 degree=3, coef0=1.0, tol=1e-8, max_iter=100, random_state=0,
                 max_bytes=DEFAULT_MAX_BYTES):
        self.C = C
        self.max_basis = max_basis
        self.kappa = kappa
        self.selection = selection
        self.retrain = retrain
        self.validation_fraction = validation_fraction
        self.patience = patience
        self.min_delta = min_delta
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.max_bytes = max_bytes

    # ------------------------------------------------------------------ validation
    def _check_params(self):
        if not isinstance(self.C, Real) or isinstance(self.C, bool) or not 0 < self.C < np.inf:
            raise ValueError(f"C must be a positive finite number; got {self.C!r}.")
        for name in ("kappa", "patience", "max_iter"):
            v = getattr(self, name)
            if not isinstance(v, Integral) or isinstance(v, bool) or v < 1:
                raise ValueError(f"{name} must be an integer >= 1; got {v!r}.")
        if self.selection not in ("exact", "newton1"):
            raise ValueError(f"selection must be 'exact' or 'newton1'; got {self.selection!r}.")
        if self.retrain not in ("schedule", "always"):
            raise ValueError(f"retrain must be 'schedule' or 'always'; got {self.retrain!r}.")
        vf = self.validation_fraction
        if not isinstance(vf, Real) or not 0 <= vf < 1:
            raise ValueError(f"validation_fraction must lie in [0, 1); got {vf!r}.")
        for name in ("min_delta", "tol"):
            v = getattr(self, name)
            if not isinstance(v, Real) or not v >= 0:
                raise ValueError(f"{name} must be a non-negative number; got {v!r}.")

    def _split(self, pairs: PairSet, m: int):
        """Stratified (class / event) split into fitting and validation rows."""
        if self.validation_fraction == 0:
            return np.arange(m), None
        rng = np.random.default_rng(self.random_state)
        val = []
        for members in (np.flatnonzero(pairs.signs > 0), np.flatnonzero(pairs.signs <= 0)):
            k = int(round(self.validation_fraction * len(members)))
            k = min(max(k, 1), len(members) - 1)
            if k < 1:
                raise ValueError(
                    "validation_fraction > 0 needs at least 2 samples of each class (of events and "
                    "of non-events for survival); use validation_fraction=0.")
            val.append(rng.choice(members, k, replace=False))
        va = np.sort(np.concatenate(val))
        return np.setdiff1d(np.arange(m), va), va

    def _val_score(self, y, scores):
        if self._is_survival:
            return harrell_c(y, scores)
        return roc_auc(y, scores, pos_label=self.pos_label)

    # ------------------------------------------------------------------ fit
    def _fit(self, X, y, sample_weight=None):
        self._check_params()
        X = validate_data(self, X, dtype=np.float64, reset=True)
        m = X.shape[0]
        full = self._make_pairs(y, sample_weight)
        if full.n_points != m:
            raise ValueError(f"X has {m} samples but the target has {full.n_points}.")
        full.check_nonempty()
        self._is_survival = full.target == "survival"
        tr, va = self._split(full, m)
        sw = None if sample_weight is None else np.asarray(sample_weight, float)
        pairs = full if va is None else self._make_pairs(y[tr], None if sw is None else sw[tr])
        pairs.check_nonempty()
        N = pairs.total_weight()
        if not N > 0:
            raise ValueError("All pair weights are zero: sample_weight leaves no pair with positive weight.")
        if va is not None and self._make_pairs(y[va], None).n_pairs == 0:
            raise ValueError("The validation rows have no comparable pair; lower validation_fraction or use 0.")
        Xt, l = X[tr], len(tr)
        d_max = min(max(1, l // 2), 512) if self.max_basis is None else self.max_basis
        if not isinstance(d_max, Integral) or isinstance(d_max, bool) or not 1 <= d_max <= l:
            raise ValueError(f"max_basis must be an integer in [1, {l}] (the fitting rows); got {self.max_basis!r}.")
        need = 8 * l * (d_max + min(self.kappa, l))
        if self.max_bytes is not None and need > self.max_bytes:
            raise ValueError(
                f"The {l:,} × {d_max:,} kernel block plus {min(self.kappa, l)} candidate columns would need "
                f"{format_bytes(need)} (limit max_bytes={format_bytes(self.max_bytes)}); lower max_basis "
                "or kappa, or raise max_bytes.")
        kernel = Kernel.from_params(self.kernel, self.gamma, self.degree, self.coef0, X=Xt)
        if kernel.precomputed:
            raise ValueError("SparseAUC evaluates kernel columns itself; kernel='precomputed' is not supported.")
        self.kernel_ = kernel
        C, rng = float(self.C), np.random.default_rng(self.random_state)
        groups = np.unique(Xt, axis=0, return_inverse=True)[1].ravel()  # duplicate rows share a group
        used = np.zeros(groups.max() + 1, dtype=bool)
        KJ = np.empty((l, d_max))
        J, beta, z = [], np.zeros(0), np.zeros(l)
        E = 0.5 * C * pair_loss(pairs, z, "squared_hinge")[0]
        path, checks, snaps = [], [], []
        self.n_retrains_ = 0
        while len(J) < d_max:
            free = np.flatnonzero(~used[groups])
            if free.size == 0:
                break
            cand = rng.choice(free, min(self.kappa, free.size), replace=False)
            Kc = kernel(Xt, Xt[cand])
            kqq = Kc[cand, np.arange(len(cand))]
            L0, c0, H = pair_loss_and_hessian(pairs, z, "squared_hinge")  # shared state at t = 0
            g = z[cand] + 0.5 * C * (Kc.T @ c0)  # φ'(0) per candidate (b_q = K_qJ β_J = f_q)
            h = kqq + 0.5 * C * np.einsum("ia,ia->a", Kc, np.column_stack([H.matvec(Kc[:, a])
                                                                          for a in range(len(cand))]))
            if self.selection == "exact":
                sc = 1.0 + np.abs(z[cand]) + 0.5 * C * (np.abs(Kc).T @ np.abs(c0))
                res = [line_minimize(pairs, z, Kc[:, a], z[q], kqq[a], C, at0=(L0, g[a], h[a], sc[a]))
                       for a, q in enumerate(cand)]
                a = int(np.argmin([r[1] for r in res]))
                t, dE = res[a][:2]
            else:  # one Newton step from t = 0: predicted decrease g²/(2h), then exact for the winner
                pred = np.where(h > 0, -0.5 * g * g / np.maximum(h, 1e-300), 0.0)
                a = int(np.argmin(pred))
                t, dE = line_minimize(pairs, z, Kc[:, a], z[cand[a]], kqq[a], C,
                                      at0=(L0, g[a], h[a], 1.0 + abs(z[cand[a]])
                                           + 0.5 * C * float(np.abs(Kc[:, a]) @ np.abs(c0))))[:2]
            q = int(cand[a])
            k = len(J)
            J.append(q)
            used[groups[q]] = True
            KJ[:, k] = Kc[:, a]
            beta = np.append(beta, t)
            z = z + t * Kc[:, a]
            E_new = E + dE
            retrained = retrain_due(k + 1, d_max, self.retrain)
            if retrained:
                beta, E_new = self._retrain(KJ[:, :k + 1], KJ[J, :k + 1], beta, pairs, C, N)
                z = KJ[:, :k + 1] @ beta
            E = E_new
            rec = {"n_basis": k + 1, "objective": E, "val_score": None, "retrained": retrained, "added": q}
            path.append(rec)
            if retrained and va is not None:
                s = kernel(X[va], Xt[J]) @ beta
                rec["val_score"] = float(self._val_score(y[va], s))
                checks.append(rec["val_score"])
                snaps.append((k + 1, beta.copy(), E))
                p = self.patience
                if len(checks) > p and max(checks[-p:]) < max(checks[:-p]) + self.min_delta:
                    break
        if snaps:  # the best validated checkpoint (first of equal scores: the sparsest)
            best = int(np.argmax(checks))
            size, beta, E = snaps[best]
            J = J[:size]
            self.val_score_ = checks[best]
        else:
            self.val_score_ = None
        self.basis_ = tr[np.asarray(J, dtype=np.int64)]
        self.basis_vectors_ = X[self.basis_]
        self.dual_coef_ = beta
        self.objective_ = float(E)
        self.path_ = path
        self.train_indices_, self.validation_indices_ = tr, va
        self.n_pairs_ = pairs.n_pairs
        return self

    def _retrain(self, KJ, KJJ, beta, pairs, C, N):
        """Newton on β_J in the whitened variable (λ = 2/(CN), E = (CN/2)·F); never increases E."""
        E_old = sparse_objective(KJ, KJJ, beta, pairs, C)[0]
        eigval, eigvec = np.linalg.eigh(0.5 * (KJJ + KJJ.T))
        keep = eigval > 1e-12 * max(float(eigval[-1]), 0.0)
        if not np.any(keep):
            return beta, E_old
        root = np.sqrt(eigval[keep])
        T = eigvec[:, keep] / root
        theta0 = root * (eigvec[:, keep].T @ beta)
        res = newton_solve(KJ @ T, pairs, 2.0 / (C * N), loss="squared_hinge", theta0=theta0,
                           tol=self.tol, max_iter=self.max_iter, cg_maxiter=50, cg_rtol=1e-2)
        self.n_retrains_ += 1
        beta_new = T @ res.theta
        E_new = sparse_objective(KJ, KJJ, beta_new, pairs, C)[0]
        return (beta_new, E_new) if E_new <= E_old else (beta, E_old)

    def _expansion(self, X):
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.kernel_(X, self.basis_vectors_) @ self.dual_coef_


_DOC = """
    Parameters
    ----------
    C : pair-loss weight (> 0) of E = ½βᵀK_JJβ + (C/2) Σ_pairs max(0, 1 − f_i + f_j)² (not
        normalized: the best C shrinks roughly like 1/#pairs).
    max_basis : cap on |J|, in [1, fitting rows]; default min(l/2, 512).
    kappa : random candidates per addition (paper: 100).
    selection : ``"exact"`` 1-D minimization per candidate (Method 2) or ``"newton1"`` one-step score.
    retrain : ``"schedule"`` (|J| ∈ {1..8, 10, 12, 14, 16, 20, 23, 27, 32, …} and max_basis) or ``"always"``.
    validation_fraction, patience, min_delta : validation stopping (0 disables; see module docs).
    kernel, gamma, degree, coef0 : as for :class:`~aucopt.RankRC` (RBF, γ = 1/σ² rule by default;
        the paper's exp(−‖x − x'‖²/(2σ²)) is ``gamma = 1/(2σ²)``).
    tol, max_iter : Newton retraining tolerance (on the normalized F) and iteration cap.
    random_state : seed of the validation split and the candidate draws.
    max_bytes : refuse when 8·l·(max_basis + kappa) bytes of kernel columns exceed this.

    Attributes
    ----------
    basis_ : row indices (into the training X) of the basis J, in order of addition;
    basis_vectors_ : X[basis_];  dual_coef_ : β_J;  kernel_ ;
    objective_ : E of the returned model on the fitting rows;  val_score_ : its validation score;
    path_ : one dict per addition: ``n_basis``, ``objective`` (E after the addition and any
        retraining; non-increasing), ``val_score`` (at validated retrain points, else None),
        ``retrained``, ``added``;  train_indices_, validation_indices_, n_retrains_, n_pairs_.
"""


class SparseAUC(BinaryRankerMixin, _SparseGreedy):
    __doc__ = """Sparse non-linear AUC ranker: greedy kernel basis + squared-hinge pair loss (binary labels).

    ``decision_function`` costs O(|J|·d) per row; ``score`` is the AUC; ``pos_label`` selects the
    positive class.
    """ + _DOC

    def __init__(self, C=1.0, *, max_basis=None, kappa=100, selection="exact", retrain="schedule",
                 validation_fraction=0.2, patience=3, min_delta=1e-3, kernel="rbf", gamma="sigma2",
                 degree=3, coef0=1.0, tol=1e-8, max_iter=100, random_state=0,
                 max_bytes=DEFAULT_MAX_BYTES, pos_label=None):
        super().__init__(C, max_basis=max_basis, kappa=kappa, selection=selection, retrain=retrain,
                         validation_fraction=validation_fraction, patience=patience,
                         min_delta=min_delta, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                         tol=tol, max_iter=max_iter, random_state=random_state, max_bytes=max_bytes)
        self.pos_label = pos_label


class SurvivalSparseAUC(SurvivalRankerMixin, _SparseGreedy):
    __doc__ = """Sparse kernel survival ranker over Harrell's comparable pairs (risk: higher = earlier event).

    ``score`` is Harrell's C (ties ½).
    """ + _DOC + PAIR_OPTIONS_DOC

    def __init__(self, C=1.0, *, max_basis=None, kappa=100, selection="exact", retrain="schedule",
                 validation_fraction=0.2, patience=3, min_delta=1e-3, kernel="rbf", gamma="sigma2",
                 degree=3, coef0=1.0, tol=1e-8, max_iter=100, random_state=0,
                 max_bytes=DEFAULT_MAX_BYTES, pair_options=None):
        super().__init__(C, max_basis=max_basis, kappa=kappa, selection=selection, retrain=retrain,
                         validation_fraction=validation_fraction, patience=patience,
                         min_delta=min_delta, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                         tol=tol, max_iter=max_iter, random_state=random_state, max_bytes=max_bytes)
        self.pair_options = pair_options
