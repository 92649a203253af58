"""One-pass AUC optimization (OPAUC; Gao, Jin, Zhu & Zhou, ICML 2013), spec seed 002.

Square pairwise loss, linear scorer f(x) = wᵀx. Each example (x_t, y_t), y_t ∈ {+1, −1}, takes one
gradient step on

    L_t(w) = (λ/2)‖w‖² + ½(1 − y_t wᵀ(x_t − c_opp))² + ½ wᵀ S_opp w
           = (λ/2)‖w‖² + (1/(2 T_opp)) Σ_{i<t, y_i ≠ y_t} (1 − y_t wᵀ(x_t − x_i))²,

g = λw − y u + u(uᵀw) + S_opp w with u = x_t − c_opp, where c±, S± are the class means and
*population* (1/T) covariances of the examples seen so far (Welford updates, float64). No step
(and no λ-shrink) is taken while the opposite class is empty. Memory is O(d²), independent of T.

``rank=τ`` (OPAUC_r) stores per class the exact mean, Z = Σ_i x_i r_iᵀ (d×τ) and s = Σ_i r_i,
with r_i ~ N(0, I_τ/τ) drawn once per example (either class) from ``random_state`` and never
stored, and uses the unbiased PSD form Ŝ = (Z − c sᵀ)(Z − c sᵀ)ᵀ / T, applied in O(dτ). Passing
``sketch=R`` (an (n, τ) array) uses row t of R for the t-th example instead; if R Rᵀ = I (e.g.
the first n ≤ τ rows of an orthogonal matrix) the low-rank form equals the full covariance.

The batch minimizer of the pairwise square loss is w* = (λI + S₊ + S₋ + δδᵀ)⁻¹ δ, δ = c₊ − c₋
(:func:`batch_solution`); it is also the fixed point of OPAUC for any class ratio.
"""

from __future__ import annotations

import bz2
import gzip
import io
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from .._validation import binary_labels, format_bytes
from ..metrics import roc_auc
from ..pairs import DEFAULT_MAX_BYTES

__all__ = ["ClassStats", "OnePassAUC", "batch_solution", "batch_solution_from_stats",
           "class_statistics", "iter_svmlight_chunks"]

_SPARSE_BLOCK = 256  # sparse rows are densified this many at a time, never the whole matrix


# ============================================================================ class statistics
@dataclass
class ClassStats:
    """Count, mean and scatter Σ(x − mean)(x − mean)ᵀ of one class; ``cov`` = scatter / count."""

    count: int
    mean: np.ndarray
    scatter: np.ndarray

    @property
    def cov(self) -> np.ndarray:
        return self.scatter / self.count if self.count else np.zeros_like(self.scatter)

    @classmethod
    def from_array(cls, X) -> "ClassStats":
        if sp.issparse(X):
            X = sp.csr_matrix(X, dtype=np.float64)
            n = X.shape[0]
            mean = np.asarray(X.mean(axis=0)).ravel() if n else np.zeros(X.shape[1])
            return cls(n, mean, np.asarray((X.T @ X).todense()) - n * np.outer(mean, mean))
        X = np.asarray(X, dtype=np.float64)
        if X.shape[0] == 0:
            return cls(0, np.zeros(X.shape[1]), np.zeros((X.shape[1], X.shape[1])))
        mean = X.mean(axis=0)
        Xc = X - mean
        return cls(X.shape[0], mean, Xc.T @ Xc)

    def merge(self, other: "ClassStats") -> "ClassStats":
        """Exact combination of two disjoint samples (Chan, Golub & LeVeque parallel update)."""
        if other.count == 0:
            return self
        if self.count == 0:
            return other
        n = self.count + other.count
        delta = other.mean - self.mean
        mean = self.mean + delta * (other.count / n)
        scatter = self.scatter + other.scatter + np.outer(delta, delta) * (self.count * other.count / n)
        return ClassStats(n, mean, scatter)


def class_statistics(X, y, pos_label=None) -> tuple[ClassStats, ClassStats]:
    """``(negative, positive)`` class statistics of a data set (dense or sparse X)."""
    is_pos, _ = binary_labels(y, pos_label)
    return ClassStats.from_array(X[~is_pos]), ClassStats.from_array(X[is_pos])


def batch_solution_from_stats(neg: ClassStats, pos: ClassStats, lam: float) -> np.ndarray:
    """w* = (λI + S₊ + S₋ + δδᵀ)⁻¹ δ with population covariances and δ = c₊ − c₋."""
    _check_positive(lam, "lam")
    delta = pos.mean - neg.mean
    A = pos.cov + neg.cov + np.outer(delta, delta)
    A[np.diag_indices_from(A)] += lam
    return scipy.linalg.solve(A, delta, assume_a="pos")


def batch_solution(X, y, lam: float = 1e-4, pos_label=None) -> np.ndarray:
    """Minimizer of (λ/2)‖w‖² + (1/(2T₊T₋)) Σ_ij (1 − wᵀ(x_i⁺ − x_j⁻))² (the batch LS-AUC)."""
    return batch_solution_from_stats(*class_statistics(X, y, pos_label), lam)


def _check_positive(value, name):
    if not isinstance(value, Real) or isinstance(value, bool) or not (0 < value < np.inf):
        raise ValueError(f"{name} must be a positive finite number; got {value!r}.")


# ============================================================================ estimator
class OnePassAUC(ClassifierMixin, BaseEstimator):
    """One-pass AUC optimization (OPAUC / OPAUC_r) as a streaming binary ranker.

    Parameters
    ----------
    lam : float > 0
        Ridge weight λ.
    eta : float > 0
        Constant step size. η ≤ 1/(4 + λ) is stable when ‖x‖ ≤ 1; scale features accordingly
        (for standardized data use roughly η ≲ 1/(4 d)).
    rank : int in [1, d] or None
        None: full covariances (O(d²) memory). τ: randomized low-rank sketch (O(τd) memory).
    averaged : bool
        Use the running average of the iterates (``coef_avg_``) as the model instead of the
        last iterate (``coef_``).
    random_state : int, Generator or None
        Seeds the sketch vectors r_t (low-rank only).
    pos_label : label or None
        Positive class; default the larger of the two labels.
    sketch : array of shape (n, τ) or None
        Explicit sketch rows (row t for the t-th example since the last reset), for
        reproducibility tests; implies ``rank=τ``.
    max_bytes : int or None
        Refuse state (2 d² or 2 dτ floats) larger than this.

    Attributes
    ----------
    coef_, coef_avg_ : last iterate and average of the iterates after each step taken.
    class_count_, class_mean_ : shape (2,), (2, d); index 0 = negative, 1 = positive class.
    class_cov_ : (2, d, d) population covariances (full only).
    class_sketch_, class_sketch_sum_ : (2, d, τ) and (2, τ) Z and s (low rank only).
    n_updates_, n_seen_ : steps taken, examples seen.
    threshold_ : wᵀ(c₊ + c₋)/2, the cut used by ``predict``.
    """

    def __init__(self, lam=1e-4, eta=0.01, rank=None, averaged=False, random_state=0,
                 pos_label=None, sketch=None, max_bytes=DEFAULT_MAX_BYTES):
        self.lam = lam
        self.eta = eta
        self.rank = rank
        self.averaged = averaged
        self.random_state = random_state
        self.pos_label = pos_label
        self.sketch = sketch
        self.max_bytes = max_bytes

    # ------------------------------------------------------------------ validation / state
    def _sketch_rank(self, d):
        tau = self.rank
        if self.sketch is not None:
            R = np.asarray(self.sketch, dtype=np.float64)
            if R.ndim != 2 or not np.all(np.isfinite(R)):
                raise ValueError("sketch must be a finite 2-d array of shape (n_samples, rank).")
            if tau is not None and tau != R.shape[1]:
                raise ValueError(f"rank={tau} does not match sketch with {R.shape[1]} columns.")
            tau = R.shape[1]
        if tau is None:
            return None
        if not isinstance(tau, Integral) or isinstance(tau, bool) or not 1 <= tau <= d:
            raise ValueError(f"rank must be an integer in [1, n_features={d}] or None; got {tau!r}.")
        return int(tau)

    def _init_state(self, d):
        _check_positive(self.lam, "lam")
        _check_positive(self.eta, "eta")
        tau = self._sketch_rank(d)
        need = 8 * 2 * d * (d if tau is None else tau)
        if self.max_bytes is not None and need > self.max_bytes:
            hint = ("use rank=τ (low-rank sketch, O(τd) memory), " if tau is None else "lower rank, ")
            raise ValueError(
                f"OnePassAUC state for d={d:,} features needs about {format_bytes(need)} "
                f"(limit max_bytes={format_bytes(self.max_bytes)}); {hint}or raise max_bytes."
            )
        self.rank_ = tau
        self.coef_ = np.zeros(d)
        self.coef_avg_ = np.zeros(d)
        self.class_count_ = np.zeros(2, dtype=np.int64)
        self.class_mean_ = np.zeros((2, d))
        if tau is None:
            self.class_cov_ = np.zeros((2, d, d))
        else:
            self.class_sketch_ = np.zeros((2, d, tau))
            self.class_sketch_sum_ = np.zeros((2, tau))
            if self.sketch is None:
                rs = self.random_state
                self._rng = rs if isinstance(rs, np.random.Generator) else np.random.default_rng(rs)
        self.n_updates_ = 0
        self.n_seen_ = 0
        self._labels = []  # labels seen, in slot order while the classes are unknown

    def _clear(self):
        for name in ("coef_", "classes_", "pos_label_", "class_cov_", "class_sketch_", "_rng",
                     "class_sketch_sum_", "threshold_"):
            self.__dict__.pop(name, None)

    def _set_classes(self, classes):
        classes = np.unique(np.asarray(classes))
        if len(classes) != 2:
            raise ValueError(f"classes must hold exactly two labels; got {classes.tolist()}.")
        _, pos = binary_labels(classes, self.pos_label)
        if hasattr(self, "classes_"):
            if not np.array_equal(classes, self.classes_):
                raise ValueError(f"classes={classes.tolist()} differ from classes_={self.classes_.tolist()}.")
            return
        # Until both labels are known, the first label's examples sit in slot 0 unless it is
        # the given pos_label; move them to their true slot.
        if self._labels and (self._labels[0] == pos) != self._first_slot_is_pos():
            for arr in (self.class_count_, self.class_mean_, self.__dict__.get("class_cov_"),
                        self.__dict__.get("class_sketch_"), self.__dict__.get("class_sketch_sum_")):
                if arr is not None:
                    arr[[0, 1]] = arr[[1, 0]]  # w is still 0: no step was taken yet
        self.classes_, self.pos_label_ = classes, pos

    def _first_slot_is_pos(self):
        return self.pos_label is not None and self._labels[0] == self.pos_label

    def _slots(self, y):
        """Slot (0 = negative, 1 = positive) of every label of a chunk."""
        new = [lab for lab in np.unique(y) if lab not in self._labels]
        self._labels += new
        if len(self._labels) > 2:
            raise ValueError(f"Only binary labels are supported; saw {sorted(self._labels)}.")
        if not hasattr(self, "classes_") and len(self._labels) == 2:
            self._set_classes(self._labels)
        if hasattr(self, "classes_"):
            return (y == self.pos_label_).astype(np.intp)
        return np.full(len(y), int(self._first_slot_is_pos()) if self._labels else 0, dtype=np.intp)

    # ------------------------------------------------------------------ core
    def _cov_matvec(self, o, w):
        if self.rank_ is None:
            return self.class_cov_[o] @ w
        Z, s, c = self.class_sketch_[o], self.class_sketch_sum_[o], self.class_mean_[o]
        v = Z.T @ w - s * (c @ w)
        return (Z @ v - c * (s @ v)) / self.class_count_[o]

    def _gradient(self, x, o, sign, w):
        u = x - self.class_mean_[o]
        return self.lam * w - sign * u + u * (u @ w) + self._cov_matvec(o, w)

    def loss_gradient(self, x, y, coef=None) -> np.ndarray:
        """∇L_t at ``coef`` (default ``coef_``) for a new example (x, y) under the current statistics."""
        check_is_fitted(self, "classes_")
        x = np.asarray(x, dtype=np.float64).ravel()
        w = self.coef_ if coef is None else np.asarray(coef, dtype=np.float64)
        k = int(y == self.pos_label_)
        if self.class_count_[1 - k] == 0:
            return np.zeros_like(w)
        return self._gradient(x, 1 - k, 2.0 * k - 1.0, w)

    def _process(self, X, slots):
        n = X.shape[0]
        R = None
        if self.rank_ is not None:
            if self.sketch is None:
                R = self._rng.standard_normal((n, self.rank_)) / np.sqrt(self.rank_)
            else:
                R = np.asarray(self.sketch, dtype=np.float64)[self.n_seen_:self.n_seen_ + n]
                if R.shape[0] < n:
                    raise ValueError(f"sketch has {len(self.sketch)} rows; the stream is longer.")
        cnt, mean, w, avg = self.class_count_, self.class_mean_, self.coef_, self.coef_avg_
        eta = float(self.eta)
        for start in range(0, n, _SPARSE_BLOCK if sp.issparse(X) else max(n, 1)):
            block = X[start:start + _SPARSE_BLOCK].toarray() if sp.issparse(X) else X
            for j, x in enumerate(block):
                i = start + j
                k = slots[i]
                o = 1 - k
                cnt[k] += 1
                T = cnt[k]
                diff = x - mean[k]
                mean[k] += diff / T
                if R is None:
                    cov = self.class_cov_[k]
                    cov *= (T - 1) / T
                    cov += np.outer(diff * ((T - 1) / T**2), diff)
                else:
                    self.class_sketch_[k] += np.outer(x, R[i])
                    self.class_sketch_sum_[k] += R[i]
                if cnt[o] == 0:
                    continue
                w -= eta * self._gradient(x, o, 2.0 * k - 1.0, w)
                self.n_updates_ += 1
                avg += (w - avg) / self.n_updates_
        self.n_seen_ += n

    def _partial_fit(self, X, y, classes=None, reset=False):
        if reset:
            self._clear()
        first = not hasattr(self, "coef_")
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=first)
        y = column_or_1d(y, warn=True)
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} samples but y has {y.shape[0]}.")
        if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
            raise ValueError("y contains NaN or infinite values.")
        if first:
            self._init_state(X.shape[1])
        if classes is not None:
            self._set_classes(classes)
        self._process(X, self._slots(y))
        if hasattr(self, "classes_"):
            self.threshold_ = float(self._w() @ (self.class_mean_[0] + self.class_mean_[1]) / 2)
        return self

    def partial_fit(self, X, y, classes=None):
        """Stream the rows of (X, y) in order through OPAUC; ``classes`` may name both labels up front."""
        return self._partial_fit(X, y, classes)

    def fit(self, X, y=None):
        """Reset, then one pass over (X, y); with ``y=None``, X is an iterable of (X_chunk, y_chunk)."""
        if y is None:
            if hasattr(X, "shape"):
                raise ValueError("This estimator requires y to be passed, but the target y is None.")
            reset = True
            for Xc, yc in X:
                self._partial_fit(Xc, yc, reset=reset)
                reset = False
            if reset:
                raise ValueError("The chunk iterator yielded no data.")
            if not hasattr(self, "classes_"):
                raise ValueError(f"y has only one class ({self._labels}); ranking needs both classes.")
            return self
        y = column_or_1d(y, warn=True)
        binary_labels(y, self.pos_label)  # one class, >2 classes, NaN -> ValueError
        return self._partial_fit(X, y, reset=True)

    # ------------------------------------------------------------------ prediction
    def _w(self):
        return self.coef_avg_ if self.averaged else self.coef_

    def _scores(self, X):
        check_is_fitted(self, "classes_")
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return np.asarray(X @ self._w()).ravel()

    def decision_function(self, X) -> np.ndarray:
        """wᵀx − threshold_, negated when ``pos_label`` is ``classes_[0]``."""
        shifted = self._scores(X) - self.threshold_
        return shifted if self.pos_label_ == self.classes_[1] else -shifted

    def predict(self, X) -> np.ndarray:
        """``classes_[1]`` where ``decision_function`` > 0."""
        check_is_fitted(self, "classes_")
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    def score(self, X, y, sample_weight=None) -> float:
        """AUC of wᵀx (ties ½)."""
        return roc_auc(y, self._scores(X), pos_label=self.pos_label_)

    def statistics(self) -> tuple[ClassStats, ClassStats]:
        """``(negative, positive)`` exact class statistics (full covariance only)."""
        check_is_fitted(self, "coef_")
        if self.rank_ is not None:
            raise ValueError("A low-rank model keeps no covariance; fit with rank=None.")
        n = self.class_count_
        return tuple(ClassStats(int(n[k]), self.class_mean_[k].copy(), self.class_cov_[k] * n[k])
                     for k in (0, 1))

    def batch_solution(self, lam=None) -> np.ndarray:
        """Batch LS-AUC minimizer w* from the streamed class statistics (full covariance only)."""
        return batch_solution_from_stats(*self.statistics(), self.lam if lam is None else lam)

    @classmethod
    def from_statistics(cls, neg: ClassStats, pos: ClassStats, classes, coef=None, **params):
        """A full-covariance model holding given class statistics, ready for ``partial_fit``.

        ``coef`` defaults to the batch solution w*; it becomes both ``coef_`` and ``coef_avg_``.
        """
        est = cls(**params)
        if est.rank is not None or est.sketch is not None:
            raise ValueError("from_statistics builds full-covariance models only (rank=None).")
        d = len(pos.mean)
        est._init_state(d)
        est.n_features_in_ = d
        est._labels = list(np.unique(classes))
        est._set_classes(classes)
        for k, st in enumerate((neg, pos)):
            est.class_count_[k], est.class_mean_[k], est.class_cov_[k] = st.count, st.mean, st.cov
        est.n_seen_ = int(neg.count + pos.count)
        w = batch_solution_from_stats(neg, pos, est.lam) if coef is None else np.asarray(coef, float)
        est.coef_, est.coef_avg_ = w.copy(), w.copy()
        est.threshold_ = float(w @ (neg.mean + pos.mean) / 2)
        return est

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.classifier_tags.multi_class = False
        return tags


# ============================================================================ LIBSVM streaming
def iter_svmlight_chunks(path, chunk_size=10_000, n_features=None, *, zero_based=False):
    """Yield ``(X_chunk (CSR), y_chunk)`` from a LIBSVM/svmlight file (plain, .bz2 or .gz).

    Reads ``chunk_size`` lines at a time and parses them with ``sklearn.datasets.load_svmlight_file``,
    so the file is never held whole. ``n_features`` is required (every chunk gets that width) and
    ``zero_based`` must be explicit (LIBSVM files are 1-based; "auto" is undecidable per chunk).
    """
    from sklearn.datasets import load_svmlight_file

    if not isinstance(n_features, Integral) or n_features < 1:
        raise ValueError(f"n_features must be a positive integer; got {n_features!r}.")
    if not isinstance(chunk_size, Integral) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer; got {chunk_size!r}.")
    if zero_based not in (True, False):
        raise ValueError("zero_based must be True or False when streaming in chunks.")
    path = str(path)
    opener = bz2.open if path.endswith(".bz2") else gzip.open if path.endswith(".gz") else open

    def parse(lines):
        X, y = load_svmlight_file(io.BytesIO(b"".join(lines)), n_features=n_features,
                                  zero_based=zero_based, dtype=np.float64)
        return X, y

    with opener(path, "rb") as fh:
        lines = []
        for line in fh:
            lines.append(line if line.endswith(b"\n") else line + b"\n")
            if len(lines) == chunk_size:
                X, y = parse(lines)
                lines = []
                if X.shape[0]:
                    yield X, y
        if lines:
            X, y = parse(lines)
            if X.shape[0]:
                yield X, y
